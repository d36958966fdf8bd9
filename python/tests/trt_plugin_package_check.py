# SPDX-License-Identifier: Apache-2.0
"""Runs TensorRT's own tensorrt.plugin package (a directory given as argv[1], extracted from TensorRT's wheel; never
part of kiln) on kiln's bindings and host backend, in a process of its own: the package is loaded as
``tensorrt.plugin`` over kiln's ``tensorrt`` compatibility package, and a JIT and an AOT plugin defined with its
``@register``/``@impl``/``@autotune``/``@aot_impl`` are built, serialized and loaded through kiln's builder and runtime.

TensorRT's JIT template plugin runs its impl on device pointers; to run it on the host backend this script gives the
template class an ``enqueue_host`` that hands the host buffers' addresses to the package's own ``enqueue`` (the impl
below reads them with numpy). That glue lives here only. Prints one line per check: ``ok <what>``; raises otherwise.
"""

import importlib.util
import os
import sys
from typing import List, Tuple

import numpy as np

import tensorrt as trt  # kiln's compatibility package


def load_package(path):
    spec = importlib.util.spec_from_file_location(
        "tensorrt.plugin", os.path.join(path, "__init__.py"), submodule_search_locations=[path])
    module = importlib.util.module_from_spec(spec)
    sys.modules["tensorrt.plugin"] = module
    trt.plugin = module
    spec.loader.exec_module(module)
    return module


trtp = load_package(sys.argv[1])
host = os.environ.get("KILN_BACKEND", "host") == "host"
assert "_plugin_class" in sys.modules["tensorrt.plugin"].__dict__ or hasattr(trtp, "register")
print("ok import", "aot" if sys.modules["tensorrt.plugin._export"].IS_AOT_ENABLED else "no-aot")


def host_array(tensor):
    """A numpy view of a tensorrt.plugin Tensor whose data_ptr is host memory."""
    dtype = np.dtype(trt.nptype(tensor.dtype))
    count = int(np.prod(tuple(tensor.shape))) if len(tuple(tensor.shape)) else 1
    buffer = (np.ctypeslib.ctypes.c_byte * (count * dtype.itemsize)).from_address(tensor.data_ptr)
    return np.frombuffer(buffer, dtype=dtype).reshape(tuple(tensor.shape))


# TensorRT 10.16's package rebuilds a float attribute with float(f.data), and PluginField.data is a 1-D array (in
# TensorRT's bindings as in kiln's), which NumPy 2 refuses to convert ("only 0-dimensional arrays can be converted to
# Python scalars"); an npt.NDArray annotation fails in its own register() (issubclass() of a generic alias) with the
# NumPy and Python of the GPU machine. Both are the package's own limitations, seen with TensorRT itself. So with
# NumPy 2 (or KILN_TRT_CHECK_NO_ATTRIBUTES=1) the plugin takes no attribute and adds 2 itself.
SCALAR_ATTRIBUTES = int(np.__version__.split(".")[0]) < 2 and os.environ.get("KILN_TRT_CHECK_NO_ATTRIBUTES") != "1"


def add(x, k, outputs, stream):
    if host:
        out = host_array(outputs[0])
        out[...] = host_array(x) + out.dtype.type(k)
    else:
        import torch

        with torch.cuda.stream(torch.cuda.ExternalStream(stream)):
            torch.add(torch.as_tensor(x, device="cuda"), k, out=torch.as_tensor(outputs[0], device="cuda"))


if SCALAR_ATTRIBUTES:
    @trtp.register("kiln_qdp::add_k")
    def add_k_desc(x: trtp.TensorDesc, k: float) -> trtp.TensorDesc:
        return x.like()

    @trtp.impl("kiln_qdp::add_k")
    def add_k_impl(x: trtp.Tensor, k: float, outputs: Tuple[trtp.Tensor], stream: int, tactic: int) -> None:
        add(x, k, outputs, stream)
else:
    @trtp.register("kiln_qdp::add_k")
    def add_k_desc(x: trtp.TensorDesc) -> trtp.TensorDesc:
        return x.like()

    @trtp.impl("kiln_qdp::add_k")
    def add_k_impl(x: trtp.Tensor, outputs: Tuple[trtp.Tensor], stream: int, tactic: int) -> None:
        add(x, 2.0, outputs, stream)


@trtp.autotune("kiln_qdp::add_k")
def add_k_tune(x: trtp.TensorDesc, outputs: Tuple[trtp.TensorDesc]) -> List[trtp.AutoTuneCombination]:
    # The shape expressions the package kept from get_output_shapes() are alive (the build's own).
    assert x.shape_expr[1].constant_value() == 8 and not x.shape_expr[0].is_constant
    return [trtp.AutoTuneCombination("FP32|FP16, FP32|FP16", "LINEAR", [1, 2])]


if host:
    template = sys.modules["tensorrt.plugin._plugin_class"]._TemplateJITPlugin

    def enqueue_host(self, input_desc, output_desc, inputs, outputs, in_strides, out_strides):
        self.enqueue(input_desc, output_desc, [a.ctypes.data for a in inputs], [a.ctypes.data for a in outputs],
                     in_strides, out_strides, 0)

    template.enqueue_host = enqueue_host


def network_for(builder, dtype):
    network = builder.create_network(1 << int(trt.NetworkDefinitionCreationFlag.STRONGLY_TYPED))
    x = network.add_input("x", dtype, (-1, 8))
    plugin = trtp.op.kiln_qdp.add_k(x, k=2.0) if SCALAR_ATTRIBUTES else trtp.op.kiln_qdp.add_k(x)
    layer = network.add_plugin(plugin)
    assert layer is not None
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    return network


def config_for(builder):
    config = builder.create_builder_config()
    profile = builder.create_optimization_profile()
    profile.set_shape("x", (1, 8), (4, 8), (16, 8))
    config.add_optimization_profile(profile)
    return config


logger = trt.Logger(trt.Logger.ERROR)
builder = trt.Builder(logger)
creator = trt.get_plugin_registry().get_creator("add_k", "1", "kiln_qdp")
assert creator is not None and isinstance(creator, trt.IPluginCreatorV3Quick), creator
print("ok registered IPluginCreatorV3Quick")
for dtype, npdtype in ((trt.float32, np.float32), (trt.float16, np.float16)):
    plan = builder.build_serialized_network(network_for(builder, dtype), config_for(builder))
    assert plan is not None, "the JIT build failed"
    print("ok JIT build and serialize", npdtype.__name__)
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    assert engine is not None, "the JIT plan did not load"
    print("ok JIT deserialize through the Quick creator", npdtype.__name__)
    if host:
        context = engine.create_execution_context()
        assert context is not None
        for rows in (1, 5, 16):
            x = np.random.default_rng(rows).standard_normal((rows, 8)).astype(npdtype)
            y = np.zeros_like(x)
            context.set_input_shape("x", x.shape)
            context.set_tensor_address("x", x.ctypes.data)
            context.set_tensor_address("y", y.ctypes.data)
            assert context.execute_async_v3(0)
            np.testing.assert_allclose(y, x + npdtype(2.0), rtol=1e-3)
        print("ok JIT run on the host backend (impl through the package's enqueue)", npdtype.__name__)
    else:
        import torch

        context = engine.create_execution_context()
        stream = torch.cuda.Stream()
        for rows in (1, 5, 16):
            x = torch.randn((rows, 8), device="cuda", dtype=getattr(torch, npdtype.__name__))
            y = torch.zeros_like(x)
            context.set_input_shape("x", tuple(x.shape))
            context.set_tensor_address("x", x.data_ptr())
            context.set_tensor_address("y", y.data_ptr())
            assert context.execute_async_v3(stream.cuda_stream)
            stream.synchronize()
            torch.testing.assert_close(y, x + 2.0, rtol=1e-3, atol=1e-3)
        print("ok JIT run on the GPU (impl with torch)", npdtype.__name__)

# AOT: add_one(x, n, y), compiled by nvcc -ptx (compute_80, PTX ISA 7.8) from
#     extern "C" __global__ void add_one(float const* x, int n, float* y)
#     { int const i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = x[i] + 1.0f; }
# The plan keeps it and loads without the package's creator being asked; the CUDA backend launches it.
PTX = b""".version 7.8
.target sm_80
.address_size 64
	// .globl	add_one
.visible .entry add_one(
	.param .u64 add_one_param_0,
	.param .u32 add_one_param_1,
	.param .u64 add_one_param_2
)
{
	.reg .pred 	%p<2>;
	.reg .f32 	%f<3>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<8>;
	ld.param.u64 	%rd1, [add_one_param_0];
	ld.param.u32 	%r2, [add_one_param_1];
	ld.param.u64 	%rd2, [add_one_param_2];
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	mov.u32 	%r5, %tid.x;
	mad.lo.s32 	%r1, %r3, %r4, %r5;
	setp.ge.s32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB0_2;
	cvta.to.global.u64 	%rd3, %rd1;
	mul.wide.s32 	%rd4, %r1, 4;
	add.s64 	%rd5, %rd3, %rd4;
	ld.global.f32 	%f1, [%rd5];
	add.f32 	%f2, %f1, 0f3F800000;
	cvta.to.global.u64 	%rd6, %rd2;
	add.s64 	%rd7, %rd6, %rd4;
	st.global.f32 	[%rd7], %f2;
$L__BB0_2:
	ret;
}
"""


@trtp.register("kiln_qdp::add_one")
def add_one_desc(x: trtp.TensorDesc) -> trtp.TensorDesc:
    return x.like()


@trtp.aot_impl("kiln_qdp::add_one")
def add_one_aot(x: trtp.TensorDesc, outputs: Tuple[trtp.TensorDesc], tactic: int
                ) -> Tuple[str, bytes, trtp.KernelLaunchParams, trtp.SymExprs]:
    n = x.shape_expr.numel()
    launch = trtp.KernelLaunchParams()
    launch.grid_x = trtp.cdiv(n, 128)
    launch.block_x = 128
    return "add_one", PTX, launch, trtp.SymIntExprs.from_tuple([trtp.SymInt32(n)])


network = builder.create_network(1 << int(trt.NetworkDefinitionCreationFlag.STRONGLY_TYPED))
x = network.add_input("x", trt.float32, (-1, 8))
layer = network.add_plugin(trtp.op.kiln_qdp.add_one(x), aot=True)
assert layer is not None
layer.get_output(0).name = "y"
network.mark_output(layer.get_output(0))
plan = builder.build_serialized_network(network, config_for(builder))
assert plan is not None, "the AOT build failed"
print("ok AOT build and serialize")
engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
assert engine is not None
info = engine.create_engine_inspector().get_engine_information(trt.LayerInformationFormat.JSON)
assert "add_one" in info and "\"ScalarArguments\": 1" in info, info
print("ok AOT plan keeps the kernel")
if not host:
    import torch

    context = engine.create_execution_context()
    for rows in (1, 7, 16):
        x = torch.randn((rows, 8), device="cuda")
        y = torch.zeros_like(x)
        context.set_input_shape("x", tuple(x.shape))
        context.set_tensor_address("x", x.data_ptr())
        context.set_tensor_address("y", y.data_ptr())
        assert context.execute_async_v3(torch.cuda.current_stream().cuda_stream)
        torch.cuda.synchronize()
        torch.testing.assert_close(y, x + 1.0)
    print("ok AOT kernel run on the GPU")
