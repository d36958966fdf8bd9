# SPDX-License-Identifier: Apache-2.0
"""tensorrt.plugin's Tensor through DLPack on the GPU: @impl functions view device memory with torch.from_dlpack, as
TensorRT's quickly_deployable_plugins sample (qdp_runner.py inplace_add) does, on kiln's CUDA backend.

- in place, two chained plugins whose output is aliased to their input (ALIASED_PLUGIN_IO_10_03), input and output
  bound to the same torch buffer, the impl running on the plugin's stream (no synchronization needed);
- out of place on a torch stream of its own, so that __dlpack__ makes that stream wait for the plugin's (an event
  through the CUDA driver) and the impl makes the plugin's stream wait for its work before returning.

Skipped unless KILN_BACKEND=cuda is set (conftest.py defaults it to host), torch imports and a GPU is usable:

    KILN_BACKEND=cuda PYTHONPATH=build-gpu/python python3 -m pytest python/tests/test_plugin_dlpack_gpu.py
"""

import os
from typing import Tuple

import pytest

import kiln as trt
import kiln.plugin as trtp

if os.environ.get("KILN_BACKEND") != "cuda":
    pytest.skip("the GPU tests run with KILN_BACKEND=cuda", allow_module_level=True)
torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no usable GPU for torch", allow_module_level=True)

from conftest import CollectingLogger, build_plan  # noqa: E402

TORCH = {trt.float32: torch.float32, trt.float16: torch.float16}
SEEN = []


@trtp.register("kiln_dlpack_gpu::add_inplace")
def add_inplace_desc(inp0: trtp.TensorDesc, delta: int) -> trtp.TensorDesc:
    return inp0.aliased()


@trtp.impl("kiln_dlpack_gpu::add_inplace")
def add_inplace_impl(inp0: trtp.Tensor, delta: int, outputs: Tuple[trtp.Tensor], stream: int) -> None:
    with torch.cuda.stream(torch.cuda.ExternalStream(stream)):
        x = torch.from_dlpack(inp0)
        SEEN.append((inp0.__dlpack_device__(), x.device, x.dtype, x.data_ptr() == inp0.data_ptr))
        x.add_(delta)


@trtp.register("kiln_dlpack_gpu::scale")
def scale_desc(inp0: trtp.TensorDesc, alpha: float) -> trtp.TensorDesc:
    return inp0.like()


@trtp.impl("kiln_dlpack_gpu::scale")
def scale_impl(inp0: trtp.Tensor, alpha: float, outputs: Tuple[trtp.Tensor], stream: int) -> None:
    own = torch.cuda.Stream()
    with torch.cuda.stream(own):  # __dlpack__ gets own's handle and makes it wait for the plugin's stream
        x = torch.from_dlpack(inp0)
        y = torch.from_dlpack(outputs[0])
        torch.mul(x, alpha, out=y)
    torch.cuda.ExternalStream(stream).wait_stream(own)  # what follows on the plugin's stream sees y


def network_of(builder, dtype, shape, *ops):
    network = builder.create_network(0)
    tensor = network.add_input("x", dtype, shape)
    for op in ops:
        tensor = network.add_plugin(op(tensor)).get_output(0)
    tensor.name = "y"
    network.mark_output(tensor)
    return network


@pytest.mark.parametrize("dtype", [trt.float32, trt.float16])
def test_an_impl_adds_in_place_through_torch_from_dlpack(dtype):
    SEEN.clear()
    logger = CollectingLogger()
    builder = trt.Builder(logger)
    shape = (10, 3, 32, 32)
    network = network_of(builder, dtype, shape, lambda t: trtp.op.kiln_dlpack_gpu.add_inplace(t, delta=2),
                         lambda t: trtp.op.kiln_dlpack_gpu.add_inplace(t, delta=4))
    config = builder.create_builder_config()
    config.set_preview_feature(trt.PreviewFeature.ALIASED_PLUGIN_IO_10_03, True)
    engine = trt.Runtime(logger).deserialize_cuda_engine(build_plan(builder, network, config))
    assert engine is not None, logger.errors()
    context = engine.create_execution_context()
    x = torch.ones(shape, dtype=TORCH[dtype], device="cuda")
    expected = x.clone() + 6
    assert context.set_tensor_address("x", x.data_ptr()) and context.set_tensor_address("y", x.data_ptr())
    stream = torch.cuda.Stream()
    SEEN.clear()
    assert context.execute_async_v3(stream.cuda_stream)
    stream.synchronize()
    torch.testing.assert_close(x, expected)
    device = torch.cuda.current_device()
    assert SEEN and all(seen == ((2, device), torch.device("cuda", device), TORCH[dtype], True) for seen in SEEN)
    assert not logger.errors()


def test_an_impl_on_its_own_torch_stream_is_synchronized():
    logger = CollectingLogger()
    builder = trt.Builder(logger)
    shape = (64, 1024)
    network = network_of(builder, trt.float32, shape, lambda t: trtp.op.kiln_dlpack_gpu.scale(t, alpha=0.5),
                         lambda t: trtp.op.kiln_dlpack_gpu.scale(t, alpha=3.0))
    engine = trt.Runtime(logger).deserialize_cuda_engine(build_plan(builder, network))
    assert engine is not None, logger.errors()
    context = engine.create_execution_context()
    generator = torch.Generator(device="cuda").manual_seed(7)
    x = torch.randn(shape, device="cuda", generator=generator)
    y = torch.empty_like(x)
    assert context.set_tensor_address("x", x.data_ptr()) and context.set_tensor_address("y", y.data_ptr())
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())  # x is written on the current stream
    for _ in range(3):
        y.zero_()
        stream.wait_stream(torch.cuda.current_stream())
        assert context.execute_async_v3(stream.cuda_stream)
        stream.synchronize()
        torch.testing.assert_close(y, x * 1.5)
    assert not logger.errors()
