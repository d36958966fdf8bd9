# SPDX-License-Identifier: Apache-2.0
"""Build, serialize, deserialize and run engines on numpy arrays on the host backend: kiln.run and the
TensorRT-style flow (set_input_shape, set_tensor_address with numpy data pointers, execute_async_v3)."""

import numpy as np
import pytest

import kiln

from conftest import CollectingLogger, build_plan


def _conv_relu_numpy(x, w, b):
    """Reference: 3x3 convolution, padding 1, stride 1, then ReLU (NCHW)."""
    n, c, h, width = x.shape
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((n, w.shape[0], h, width), np.float64)
    for i in range(h):
        for j in range(width):
            patch = padded[:, :, i:i + 3, j:j + 3]
            out[:, :, i, j] = np.einsum("nchw,ochw->no", patch, w)
    return np.maximum(out + b.reshape(1, -1, 1, 1), 0)


def _conv_relu_engine(logger, rng, dynamic=False):
    builder = kiln.Builder(logger)
    network = builder.create_network()
    shape = (-1, 3, 5, 5) if dynamic else (2, 3, 5, 5)
    x = network.add_input("x", kiln.float32, shape)
    w = rng.standard_normal((4, 3, 3, 3), dtype=np.float32)
    b = rng.standard_normal(4, dtype=np.float32)
    conv = network.add_convolution_nd(x, 4, (3, 3), w, b)
    conv.padding_nd = (1, 1)
    relu = network.add_activation(conv.get_output(0), kiln.ActivationType.RELU)
    relu.get_output(0).name = "y"
    network.mark_output(relu.get_output(0))
    config = builder.create_builder_config()
    config.set_memory_pool_limit(kiln.MemoryPoolType.WORKSPACE, 1 << 20)
    assert config.get_memory_pool_limit(kiln.MemoryPoolType.WORKSPACE) == 1 << 20
    if dynamic:
        profile = builder.create_optimization_profile()
        profile.set_shape("x", min=(1, 3, 5, 5), opt=(2, 3, 5, 5), max=(4, 3, 5, 5))
        assert profile.get_shape("x") == [(1, 3, 5, 5), (2, 3, 5, 5), (4, 3, 5, 5)]
        assert bool(profile)
        assert config.add_optimization_profile(profile) == 0
        assert config.num_optimization_profiles == 1
    plan = build_plan(builder, network, config)
    engine = kiln.Runtime(logger).deserialize_cuda_engine(plan)
    assert engine is not None
    return engine, w, b


def test_conv_relu_runs_through_kiln_run(logger, rng):
    engine, w, b = _conv_relu_engine(logger, rng)
    x = rng.standard_normal((2, 3, 5, 5), dtype=np.float32)
    outputs = kiln.run(engine, {"x": x})
    assert set(outputs) == {"y"}
    np.testing.assert_allclose(outputs["y"], _conv_relu_numpy(x, w, b), rtol=1e-5, atol=1e-5)


def test_tensorrt_style_execution_with_numpy_addresses(logger, rng):
    engine, w, b = _conv_relu_engine(logger, rng, dynamic=True)
    assert engine.num_io_tensors == 2 and list(engine[i] for i in range(2)) == ["x", "y"]
    assert engine.get_tensor_mode("x") == kiln.TensorIOMode.INPUT
    assert engine.get_tensor_mode("y") == kiln.TensorIOMode.OUTPUT
    assert engine.get_tensor_shape("x") == (-1, 3, 5, 5)
    assert engine.get_tensor_dtype("y") == kiln.float32
    assert engine.get_tensor_profile_shape("x", 0) == [(1, 3, 5, 5), (2, 3, 5, 5), (4, 3, 5, 5)]
    with pytest.raises(IndexError):
        engine[2]
    context = engine.create_execution_context()
    assert context.engine is engine
    x = rng.standard_normal((3, 3, 5, 5), dtype=np.float32)
    assert context.set_input_shape("x", x.shape)
    assert context.get_tensor_shape("y") == (3, 4, 5, 5)
    y = np.empty(tuple(context.get_tensor_shape("y")), np.float32)
    assert context.set_tensor_address("x", x.ctypes.data)
    assert context.set_tensor_address("y", y.ctypes.data)
    assert context.get_tensor_address("y") == y.ctypes.data
    assert context.execute_async_v3(0)
    np.testing.assert_allclose(y, _conv_relu_numpy(x, w, b), rtol=1e-5, atol=1e-5)
    assert not context.set_input_shape("x", (5, 3, 5, 5)), "beyond the profile's max"


def test_streams_and_addresses_accept_int_like_objects(logger, rng):
    engine, w, b = _conv_relu_engine(logger, rng)
    context = engine.create_execution_context()

    class Handle:
        def __init__(self, value):
            self.value = value

        def __int__(self):
            return self.value

    x = rng.standard_normal((2, 3, 5, 5), dtype=np.float32)
    y = np.empty((2, 4, 5, 5), np.float32)
    assert context.set_tensor_address("x", Handle(x.ctypes.data))
    assert context.set_tensor_address("y", np.uint64(y.ctypes.data))
    assert context.execute_async_v3(stream_handle=Handle(0))
    np.testing.assert_allclose(y, _conv_relu_numpy(x, w, b), rtol=1e-5, atol=1e-5)
    with pytest.raises(TypeError, match="memory"):
        context.set_tensor_address("x", 1.5)
    with pytest.raises(TypeError, match="stream_handle"):
        context.execute_async_v3("0")


def test_engine_serialize_round_trip(logger, rng):
    engine, w, b = _conv_relu_engine(logger, rng)
    blob = engine.serialize()
    assert isinstance(blob, kiln.IHostMemory) and blob.nbytes > 0
    again = kiln.Runtime(logger).deserialize_cuda_engine(bytes(blob))
    x = rng.standard_normal((2, 3, 5, 5), dtype=np.float32)
    np.testing.assert_allclose(kiln.run(again, {"x": x})["y"], kiln.run(engine, {"x": x})["y"])


def test_matmul_elementwise_network(logger, rng):
    builder = kiln.Builder(logger)
    network = builder.create_network()
    a = network.add_input("a", kiln.float32, (2, 3))
    weights = rng.standard_normal((3, 4), dtype=np.float32)
    w = network.add_constant((3, 4), weights)
    mm = network.add_matrix_multiply(a, kiln.MatrixOperation.NONE, w.get_output(0), kiln.MatrixOperation.NONE)
    bias = rng.standard_normal((1, 4), dtype=np.float32)
    add = network.add_elementwise(mm.get_output(0), network.add_constant((1, 4), bias).get_output(0),
                                  kiln.ElementWiseOperation.SUM)
    sig = network.add_activation(add.get_output(0), kiln.ActivationType.SIGMOID)
    sig.get_output(0).name = "out"
    network.mark_output(sig.get_output(0))
    engine = kiln.Runtime(logger).deserialize_cuda_engine(build_plan(builder, network))
    x = rng.standard_normal((2, 3), dtype=np.float32)
    expected = 1 / (1 + np.exp(-(x @ weights + bias)))
    np.testing.assert_allclose(kiln.run(engine, {"a": x})["out"], expected, rtol=1e-5, atol=1e-6)


def test_builder_config_flags(logger):
    config = kiln.Builder(logger).create_builder_config()
    assert not config.get_flag(kiln.BuilderFlag.FP16)
    config.set_flag(kiln.BuilderFlag.FP16)
    assert config.get_flag(kiln.BuilderFlag.FP16)
    assert config.flags & (1 << int(kiln.BuilderFlag.FP16))
    config.clear_flag(kiln.BuilderFlag.FP16)
    assert not config.get_flag(kiln.BuilderFlag.FP16)
    config.flags = 1 << int(kiln.BuilderFlag.REFIT)
    assert config.get_flag(kiln.BuilderFlag.REFIT)
    for flag in kiln.BuilderFlag.__members__.values():
        config.get_flag(flag)
    config.profiling_verbosity = kiln.ProfilingVerbosity.DETAILED
    assert config.profiling_verbosity == kiln.ProfilingVerbosity.DETAILED
    config.builder_optimization_level = 2
    assert config.builder_optimization_level == 2


def test_inconsistent_profile_raises(logger):
    builder = kiln.Builder(logger)
    profile = builder.create_optimization_profile()
    with pytest.raises(RuntimeError, match="inconsistent"):
        profile.set_shape("x", (4, 3), (2, 3), (1, 3))
    assert profile.get_shape("y") == []


def test_deserialize_garbage_returns_none(logger):
    assert kiln.Runtime(logger).deserialize_cuda_engine(b"\0" * 64) is None


def test_run_reports_bad_inputs(logger, rng):
    engine, _, _ = _conv_relu_engine(logger, rng)
    with pytest.raises(KeyError, match="missing"):
        kiln.run(engine, {})
    with pytest.raises(KeyError, match="no input named"):
        kiln.run(engine, {"x": np.zeros((2, 3, 5, 5), np.float32), "z": np.zeros(1)})
    with pytest.raises(ValueError, match="refuses"):
        kiln.run(engine, {"x": np.zeros((1, 3, 5, 5), np.float32)})


def test_set_communicator_takes_a_capsule_or_an_int(logger, rng):
    # TensorRT's attention_mdtrt sample hands nccl.core's communicator over as a PyCapsule named "ncclComm_t".
    import ctypes

    engine, w, b = _conv_relu_engine(logger, rng)
    context = engine.create_execution_context()
    capsule_new = ctypes.pythonapi.PyCapsule_New
    capsule_new.restype = ctypes.py_object
    capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    communicator = ctypes.c_int64(0)
    assert context.set_communicator(capsule_new(ctypes.addressof(communicator), b"ncclComm_t", None)) is True
    assert context.set_communicator(communicator=ctypes.addressof(communicator)) is True
    with pytest.raises(TypeError, match="communicator"):
        context.set_communicator("nccl")
    x = rng.standard_normal((2, 3, 5, 5), dtype=np.float32)
    y = kiln.run(engine, {"x": x}, context=context)["y"]  # the context still runs
    np.testing.assert_allclose(y, _conv_relu_numpy(x, w, b), rtol=1e-5, atol=1e-5)


def test_set_communicator_warns_that_kiln_does_not_use_it(rng):
    logger = CollectingLogger()
    engine, _, _ = _conv_relu_engine(logger, rng)
    context = engine.create_execution_context()
    logger.messages.clear()
    assert context.set_communicator(0x1000) is True
    warnings = [msg for severity, msg in logger.messages if severity == kiln.ILogger.Severity.WARNING]
    assert any("the communicator is kept but not used" in msg for msg in warnings), logger.text()
