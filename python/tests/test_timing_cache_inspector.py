# SPDX-License-Identifier: Apache-2.0
"""ITimingCache (made by the config, set on it, serialized and read back), TimingCacheKey/Value, and
EngineInspector's layer and engine information."""

import json

import numpy as np
import pytest

import kiln

from conftest import build_plan


def _network(builder, rng):
    network = builder.create_network()
    x = network.add_input("x", kiln.float32, (1, 2, 4, 4))
    conv = network.add_convolution_nd(x, 2, (3, 3), rng.standard_normal((2, 2, 3, 3), dtype=np.float32))
    conv.name = "conv"
    network.mark_output(network.add_activation(conv.get_output(0), kiln.ActivationType.RELU).get_output(0))
    return network


def test_timing_cache_round_trip(logger, rng):
    builder = kiln.Builder(logger)
    config = builder.create_builder_config()
    cache = config.create_timing_cache(b"")
    assert isinstance(cache, kiln.ITimingCache)
    assert config.set_timing_cache(cache, ignore_mismatch=False)
    assert config.get_timing_cache() is cache
    build_plan(builder, _network(builder, rng), config)
    blob = cache.serialize()
    assert isinstance(blob, kiln.IHostMemory) and blob.nbytes > 0
    again = config.create_timing_cache(bytes(blob))
    assert again is not None
    assert [str(k) for k in again.queryKeys()] == [str(k) for k in cache.queryKeys()]
    assert again.combine(cache, True)
    assert again.reset()
    assert again.queryKeys() == []


def test_timing_cache_key_and_value():
    text = "0x" + "0123456789abcdef" * 2
    key = kiln.TimingCacheKey.parse(text)
    assert str(key) == text
    with pytest.raises(ValueError):
        kiln.TimingCacheKey.parse("0x1234")
    with pytest.raises(ValueError):
        kiln.TimingCacheKey.parse("0x" + "g" * 32)
    value = kiln.TimingCacheValue(tacticHash=7, timingMSec=0.5)
    assert (value.tacticHash, value.timingMSec) == (7, 0.5)


def test_engine_inspector(logger, rng):
    builder = kiln.Builder(logger)
    config = builder.create_builder_config()
    config.profiling_verbosity = kiln.ProfilingVerbosity.DETAILED
    engine = kiln.Runtime(logger).deserialize_cuda_engine(build_plan(builder, _network(builder, rng), config))
    inspector = engine.create_engine_inspector()
    assert isinstance(inspector, kiln.EngineInspector)
    context = engine.create_execution_context()
    inspector.execution_context = context
    assert inspector.execution_context is context
    info = json.loads(inspector.get_engine_information(kiln.LayerInformationFormat.JSON))
    assert "Layers" in info and len(info["Layers"]) == engine.num_layers
    layer = json.loads(inspector.get_layer_information(0, kiln.LayerInformationFormat.JSON))
    assert isinstance(layer, (dict, str))
    assert isinstance(inspector.get_engine_information(kiln.LayerInformationFormat.ONELINE), str)
