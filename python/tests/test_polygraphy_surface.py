# SPDX-License-Identifier: Apache-2.0
"""The parts of the API Polygraphy's TensorRT backend reaches beyond the core flow: the engine's profiling verbosity
(which decides whether `inspect model --show layers` parses the inspector's JSON), the parser's set_builder_config and
supports_model, weight-streaming and device-memory members, the deprecated INT8 properties read as None, and the
classes it checks with isinstance."""

import json

import numpy as np
import pytest

import kiln

from conftest import build_plan
from onnx_bytes import matmul_add_relu


def _engine(logger, verbosity=None):
    builder = kiln.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", kiln.float32, (2, 3))
    relu = network.add_activation(x, kiln.ActivationType.RELU)
    relu.name = "relu"
    relu.get_output(0).name = "y"
    network.mark_output(relu.get_output(0))
    config = builder.create_builder_config()
    if verbosity is not None:
        config.profiling_verbosity = verbosity
    return kiln.Runtime(logger).deserialize_cuda_engine(build_plan(builder, network, config))


def test_engine_keeps_the_builders_profiling_verbosity(logger):
    assert _engine(logger).profiling_verbosity == kiln.ProfilingVerbosity.LAYER_NAMES_ONLY
    engine = _engine(logger, kiln.ProfilingVerbosity.DETAILED)
    assert engine.profiling_verbosity == kiln.ProfilingVerbosity.DETAILED
    # The serialized engine keeps it too.
    again = kiln.Runtime(logger).deserialize_cuda_engine(engine.serialize())
    assert again.profiling_verbosity == kiln.ProfilingVerbosity.DETAILED
    layer = json.loads(engine.create_engine_inspector().get_layer_information(0, kiln.LayerInformationFormat.JSON))
    assert layer["Name"] == "relu" and "FP32" in layer["Inputs"][0]["Format/Datatype"]


def test_engine_weight_streaming_and_memory_members(logger):
    engine = _engine(logger)
    assert engine.streamable_weights_size == 0
    assert engine.weight_streaming_budget_v2 == 0
    assert engine.weight_streaming_scratch_memory_size == 0
    assert engine.get_weight_streaming_automatic_budget() == 0
    with pytest.warns(DeprecationWarning):
        assert engine.minimum_weight_streaming_budget == 0
    with pytest.warns(DeprecationWarning):
        assert engine.get_device_memory_size_for_profile(0) == engine.get_device_memory_size_for_profile_v2(0)
    assert engine.get_aliased_input_tensor("y") is None


def test_context_takes_user_managed_memory(logger):
    engine = _engine(logger)
    context = engine.create_execution_context(kiln.ExecutionContextAllocationStrategy.USER_MANAGED)
    size = max(context.update_device_memory_size_for_shapes(), engine.device_memory_size_v2, 1)
    memory = np.empty(size + 256, np.uint8)
    address = (memory.ctypes.data + 255) // 256 * 256
    context.set_device_memory(address, size)
    x = np.array([[-1, 2, -3], [4, -5, 6]], np.float32)
    np.testing.assert_array_equal(kiln.run(engine, {"x": x}, context=context)["y"], np.maximum(x, 0))
    with pytest.raises(AttributeError):
        context.device_memory  # write-only, as in TensorRT


def test_deprecated_int8_members_read_none(logger):
    builder = kiln.Builder(logger)
    config = builder.create_builder_config()
    with pytest.warns(DeprecationWarning):
        assert config.int8_calibrator is None
    with pytest.warns(DeprecationWarning):
        config.int8_calibrator = None
    with pytest.warns(DeprecationWarning), pytest.raises(TypeError):
        config.int8_calibrator = object()
    assert config.algorithm_selector is None
    profile = builder.create_optimization_profile()
    with pytest.warns(DeprecationWarning):
        config.set_calibration_profile(profile)


def test_network_debug_marks_and_loop_class(logger):
    network = kiln.Builder(logger).create_network()
    network.add_input("x", kiln.float32, (2,))
    assert network.mark_unfused_tensors_as_debug_tensors() in (True, False)
    assert network.unmark_unfused_tensors_as_debug_tensors() in (True, False)
    assert isinstance(kiln.ILoop, type)


@pytest.mark.skipif(not hasattr(kiln, "OnnxParser"), reason="kiln was built without its ONNX parser")
def test_parser_builder_config_and_supports_model(logger):
    builder = kiln.Builder(logger)
    network = builder.create_network()
    parser = kiln.OnnxParser(network, logger)
    assert parser.set_builder_config(builder.create_builder_config())
    model = matmul_add_relu(np.ones((3, 2), np.float32), np.zeros(2, np.float32))
    supported, subgraphs = parser.supports_model(model)
    assert supported is True
    assert subgraphs and all(ok for _, ok in subgraphs)
