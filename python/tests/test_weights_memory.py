# SPDX-License-Identifier: Apache-2.0
"""Weights (zero-copy views of numpy arrays) and IHostMemory (the buffer protocol)."""

import numpy as np
import pytest

import kiln

from conftest import build_plan


def test_weights_view_numpy_without_copy():
    array = np.arange(6, dtype=np.float32)
    weights = kiln.Weights(array)
    assert weights.dtype == kiln.float32
    assert weights.size == 6 and len(weights) == 6 and weights.nbytes == 24
    view = weights.numpy()
    array[0] = 42.0
    assert view[0] == 42.0, "Weights must not copy the array"
    for dtype, trt_type in ((np.float16, kiln.float16), (np.int32, kiln.int32), (np.int64, kiln.int64),
                            (np.int8, kiln.int8), (np.bool_, kiln.bool), (np.uint8, kiln.uint8)):
        assert kiln.Weights(np.zeros(2, dtype)).dtype == trt_type


def test_weights_refuses_other_dtypes_and_layouts():
    with pytest.raises(ValueError, match="NumPy data type"):
        kiln.Weights(np.zeros(3, np.float64))
    with pytest.raises(ValueError, match="non-contiguous"):
        kiln.Weights(np.zeros((4, 4), np.float32)[:, 1])


def test_empty_and_raw_pointer_weights():
    empty = kiln.Weights()
    assert empty.dtype == kiln.float32 and empty.size == 0
    assert kiln.Weights(kiln.int32).dtype == kiln.int32
    array = np.ones(4, np.float32)
    raw = kiln.Weights(kiln.float32, array.ctypes.data, 4)
    assert raw.size == 4
    assert np.array_equal(raw.numpy(), array)


def test_layer_keeps_weights_alive(logger):
    network = kiln.Builder(logger).create_network()
    layer = network.add_constant((2,), np.array([1.5, 2.5], np.float32))
    import gc

    gc.collect()
    assert np.array_equal(layer.weights, np.array([1.5, 2.5], np.float32))


def _identity_plan(logger):
    builder = kiln.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", kiln.float32, (2, 2))
    network.mark_output(network.add_identity(x).get_output(0))
    return build_plan(builder, network)


def test_host_memory_buffer_protocol(logger):
    plan = _identity_plan(logger)
    assert isinstance(plan, kiln.IHostMemory)
    assert plan.dtype == kiln.uint8
    view = memoryview(plan)
    assert len(view) == plan.nbytes > 0
    assert view.itemsize == 1 and view.ndim == 1
    data = bytes(plan)
    assert len(data) == plan.nbytes
    assert np.frombuffer(plan, np.uint8).tobytes() == data
    runtime = kiln.Runtime(logger)
    for blob in (plan, data, bytearray(data), memoryview(data), np.frombuffer(data, np.uint8)):
        assert runtime.deserialize_cuda_engine(blob) is not None
