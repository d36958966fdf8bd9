# SPDX-License-Identifier: Apache-2.0
"""A legacy V2 plugin written in Python (trt.IPluginV2DynamicExt with a trt.IPluginCreator) on the GPU: the
circular-padding plugin of python_plugin_v2_examples.py with an enqueue that pads with CuPy on kiln's stream, as
TensorRT's circ_pad_plugin_cupy.py sample does, built, serialized, deserialized and run on kiln's CUDA backend in
float32 and float16, outputs checked against np.pad(mode="wrap").

Skipped unless KILN_BACKEND=cuda is set (conftest.py defaults it to host), CuPy imports and a GPU is usable:

    KILN_BACKEND=cuda PYTHONPATH=build-gpu/python python3 -m pytest python/tests/test_python_plugins_v2_gpu.py
"""

import os

import numpy as np
import pytest

import kiln as trt

if os.environ.get("KILN_BACKEND") != "cuda":
    pytest.skip("the GPU tests run with KILN_BACKEND=cuda", allow_module_level=True)
cp = pytest.importorskip("cupy")
try:
    if cp.cuda.runtime.getDeviceCount() < 1:
        pytest.skip("no GPU", allow_module_level=True)
except cp.cuda.runtime.CUDARuntimeError as error:
    pytest.skip(f"no usable GPU: {error}", allow_module_level=True)

import python_plugin_v2_examples as ex  # noqa: E402
from conftest import CollectingLogger, build_plan  # noqa: E402

NUMPY = {trt.DataType.FLOAT: np.float32, trt.DataType.HALF: np.float16}


def device_view(address, desc, owner):
    """A CuPy array over the device memory at address, shaped and typed as desc (a PluginTensorDesc)."""
    dtype = np.dtype(NUMPY[desc.type])
    shape = tuple(desc.dims)
    memory = cp.cuda.UnownedMemory(address, int(np.prod(shape)) * dtype.itemsize, owner)
    return cp.ndarray(shape, dtype, cp.cuda.MemoryPointer(memory, 0))


class CupyCircPadPlugin(ex.CircPadPlugin):
    """CircPadV2 whose enqueue pads on the GPU with CuPy, on the stream kiln gives."""

    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        ex.EVENTS.append(("enqueue", tuple(input_desc[0].dims)))
        with cp.cuda.ExternalStream(stream):
            x = device_view(inputs[0], input_desc[0], self)
            y = device_view(outputs[0], output_desc[0], self)
            y[...] = cp.pad(x, ex.pad_widths(self.pads, x.ndim), mode="wrap")


class CupyCircPadCreator(ex.CircPadCreator):
    plugin_class = CupyCircPadPlugin


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_a_v2_python_plugin_runs_cupy_on_kilns_stream(rng, dtype):
    pads = (1, 2, 0, 3)
    logger = CollectingLogger()
    registry = trt.get_plugin_registry()
    creator = CupyCircPadCreator()
    assert registry.register_creator(creator, ex.NAMESPACE)
    try:
        builder = trt.Builder(logger)
        network = builder.create_network(0)
        x = network.add_input("x", trt.float32 if dtype == np.float32 else trt.float16, (-1, 3, -1, -1))
        plugin = registry.get_plugin_creator("CircPadV2", "1", ex.NAMESPACE).create_plugin(
            "pad", ex.pads_field(pads))
        layer = network.add_plugin_v2([x], plugin)
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
            value = rng.standard_normal(shape).astype(dtype)
            expected = np.pad(value, ex.pad_widths(pads, 4), mode="wrap")
            stream = cp.cuda.Stream(non_blocking=True)
            x_device = cp.asarray(value)
            y_device = cp.empty(expected.shape, dtype)
            assert context.set_input_shape("x", shape)
            assert context.set_tensor_address("x", x_device.data.ptr)
            assert context.set_tensor_address("y", y_device.data.ptr)
            assert context.execute_async_v3(stream.ptr)
            stream.synchronize()
            np.testing.assert_array_equal(cp.asnumpy(y_device), expected)
        events = [event[0] for event in ex.EVENTS]
        assert "enqueue" in events and "enqueue_host" not in events
        assert not logger.errors()
        del context, engine, layer, network, plugin
    finally:
        registry.deregister_creator(creator)
