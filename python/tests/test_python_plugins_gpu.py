# SPDX-License-Identifier: Apache-2.0
"""Python plugins on the GPU (issue 19, "On the device"): a class-based plugin and a tensorrt.plugin plugin whose
enqueue runs CuPy kernels on kiln's stream, built, serialized, deserialized and run on kiln's CUDA backend, outputs
checked against numpy.

Skipped unless KILN_BACKEND=cuda is set (conftest.py defaults it to host), CuPy imports and a GPU is usable:

    KILN_BACKEND=cuda PYTHONPATH=build-gpu/python python3 -m pytest python/tests/test_python_plugins_gpu.py
"""

import os
from typing import Tuple

import numpy as np
import pytest

import kiln as trt
import kiln.plugin as trtp

if os.environ.get("KILN_BACKEND") != "cuda":
    pytest.skip("the GPU tests run with KILN_BACKEND=cuda", allow_module_level=True)
cp = pytest.importorskip("cupy")
try:
    if cp.cuda.runtime.getDeviceCount() < 1:
        pytest.skip("no GPU", allow_module_level=True)
except cp.cuda.runtime.CUDARuntimeError as error:
    pytest.skip(f"no usable GPU: {error}", allow_module_level=True)

import python_plugin_examples as ex  # noqa: E402
from conftest import CollectingLogger, build_plan  # noqa: E402

NUMPY = {trt.DataType.FLOAT: np.float32, trt.DataType.HALF: np.float16, trt.DataType.INT32: np.int32}


def device_view(address, desc):
    """A CuPy array over the device memory at address, shaped and typed as desc (a PluginTensorDesc)."""
    dtype = np.dtype(NUMPY[desc.type])
    shape = tuple(desc.dims)
    size = int(np.prod(shape)) * dtype.itemsize
    memory = cp.cuda.UnownedMemory(address, size, owner=None)
    return cp.ndarray(shape, dtype, cp.cuda.MemoryPointer(memory, 0))


class CupyCircPadPlugin(ex.CircPadPlugin):
    """CircPad whose enqueue pads on the GPU with CuPy, on the stream kiln gives."""

    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        ex.EVENTS.append((self.plugin_name, "enqueue"))
        ph, pw = self.pads
        with cp.cuda.ExternalStream(stream):
            x = device_view(inputs[0], input_desc[0])
            y = device_view(outputs[0], output_desc[0])
            y[...] = cp.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), mode="wrap")


class CupyCircPadCreator(ex.CircPadCreator):
    def create_plugin(self, name, field_collection, phase):
        plugin = super().create_plugin(name, field_collection, phase)
        return CupyCircPadPlugin(plugin.pads, phase)


def run_on_device(engine, context, inputs, output_name, output_shape, dtype=np.float32):
    """Binds CuPy buffers, runs execute_async_v3 on a CuPy stream and returns the output as numpy."""
    stream = cp.cuda.Stream(non_blocking=True)
    buffers = {name: cp.asarray(value) for name, value in inputs.items()}
    for name, value in inputs.items():
        assert context.set_input_shape(name, value.shape)
        assert context.set_tensor_address(name, buffers[name].data.ptr)
    out = cp.empty(output_shape, dtype)
    assert context.set_tensor_address(output_name, out.data.ptr)
    assert context.execute_async_v3(stream.ptr)
    stream.synchronize()
    return cp.asnumpy(out)


def test_a_class_based_plugin_runs_cupy_on_kilns_stream(rng):
    logger = CollectingLogger()
    registry = trt.get_plugin_registry()
    creator = CupyCircPadCreator()
    assert registry.register_creator(creator, ex.NAMESPACE)
    try:
        builder = trt.Builder(logger)
        network = builder.create_network(0)
        x = network.add_input("x", trt.float32, (-1, 3, -1, -1))
        layer = network.add_plugin_v3([x], [], CupyCircPadPlugin((1, 2)))
        layer.get_output(0).name = "y"
        network.mark_output(layer.get_output(0))
        config = builder.create_builder_config()
        profile = builder.create_optimization_profile()
        profile.set_shape("x", (1, 3, 2, 2), (2, 3, 4, 5), (4, 3, 8, 8))
        config.add_optimization_profile(profile)
        plan = build_plan(builder, network, config)
        engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
        assert engine is not None, logger.errors()
        assert engine.get_tensor_location("x") == trt.TensorLocation.DEVICE
        context = engine.create_execution_context()
        for shape in [(2, 3, 4, 5), (4, 3, 8, 7)]:
            value = rng.standard_normal(shape).astype(np.float32)
            out_shape = (shape[0], 3, shape[2] + 2, shape[3] + 4)
            y = run_on_device(engine, context, {"x": value}, "y", out_shape)
            np.testing.assert_array_equal(y, np.pad(value, ((0, 0), (0, 0), (1, 1), (2, 2)), mode="wrap"))
        assert ("CircPad", "enqueue") in ex.EVENTS and ("CircPad", "enqueue_host") not in ex.EVENTS
        assert not logger.errors()
        del context, engine
    finally:
        registry.deregister_creator(creator)


@trtp.register("kiln_gpu::scaled_add")
def scaled_add_desc(x: trtp.TensorDesc, y: trtp.TensorDesc, alpha: float) -> trtp.TensorDesc:
    return x.like()


@trtp.impl("kiln_gpu::scaled_add")
def scaled_add_impl(x: trtp.Tensor, y: trtp.Tensor, alpha: float, outputs: Tuple[trtp.Tensor], stream: int) -> None:
    with cp.cuda.ExternalStream(stream):
        out = cp.asarray(outputs[0])
        out[...] = cp.asarray(x) + alpha * cp.asarray(y)


def test_a_decorator_plugin_runs_cupy_through_the_cuda_array_interface(rng):
    logger = CollectingLogger()
    builder = trt.Builder(logger)
    network = builder.create_network(0)
    a = network.add_input("a", trt.float32, (4, 16))
    b = network.add_input("b", trt.float32, (4, 16))
    layer = network.add_plugin(trtp.op.kiln_gpu.scaled_add(a, b, alpha=0.5))
    layer.get_output(0).name = "c"
    network.mark_output(layer.get_output(0))
    plan = build_plan(builder, network)
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    assert engine is not None, logger.errors()
    context = engine.create_execution_context()
    av = rng.standard_normal((4, 16)).astype(np.float32)
    bv = rng.standard_normal((4, 16)).astype(np.float32)
    c = run_on_device(engine, context, {"a": av, "b": bv}, "c", (4, 16))
    np.testing.assert_allclose(c, av + 0.5 * bv, rtol=1e-6)
    assert not logger.errors()
