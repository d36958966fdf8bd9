# SPDX-License-Identifier: Apache-2.0
"""Enqueue overhead of one plugin written three ways (issue 19): y = scale * x, float32, as

* ``cpp``: the C++ ScalePlugin of examples/plugin_library (its own CUDA kernel), loaded with ``load_library``;
* ``jit``: a ``tensorrt.plugin`` plugin whose ``impl`` runs ``torch.mul`` on kiln's stream (Python at every enqueue);
* ``aot``: the same ``tensorrt.plugin`` plugin with ``aot_impl``: a Triton kernel compiled to PTX, kept in the plan
  and launched by kiln without Python.

Each engine holds the plugin alone. The script times ``execute_async_v3`` plus a stream synchronize over many
iterations (median and p10/p90 of single calls, in microseconds) at a tiny size, where the time is the overhead, and
at a large one, and checks every output against numpy. One JSON line per case on stdout, then a table.

    PYTHONPATH=build-gpu/python python3 bench/python_plugins/enqueue_overhead.py \\
        --library build-gpu/examples/plugin_library/libkiln_example_plugins.so

Needs a GPU, torch and Triton (KILN_BACKEND=cuda is set here).
"""

import argparse
import json
import os
import sys
import time
from typing import Tuple

import numpy as np

os.environ["KILN_BACKEND"] = "cuda"
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

import tensorrt as trt  # noqa: E402
import tensorrt.plugin as trtp  # noqa: E402

SCALE = 2.5
BLOCK = 256


@triton.jit
def scale_kernel(x_ptr, n, y_ptr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * 2.5, mask=mask)


def compile_triton():
    try:  # Triton 3.2 and later
        source = triton.compiler.ASTSource(fn=scale_kernel, signature={
            "x_ptr": "*fp32", "n": "i32", "y_ptr": "*fp32", "BLOCK": "constexpr"}, constexprs={"BLOCK": BLOCK})
    except TypeError:
        source = triton.compiler.ASTSource(fn=scale_kernel, signature="*fp32,i32,*fp32", constants={"BLOCK": BLOCK})
    return triton.compile(source)


COMPILED = compile_triton()


@trtp.register("bench::scale")
def scale_desc(x: trtp.TensorDesc) -> trtp.TensorDesc:
    return x.like()


@trtp.impl("bench::scale")
def scale_impl(x: trtp.Tensor, outputs: Tuple[trtp.Tensor], stream: int) -> None:
    with torch.cuda.stream(torch.cuda.ExternalStream(stream)):
        torch.mul(torch.as_tensor(x, device="cuda"), SCALE, out=torch.as_tensor(outputs[0], device="cuda"))


@trtp.aot_impl("bench::scale")
def scale_aot(x: trtp.TensorDesc, outputs: Tuple[trtp.TensorDesc], tactic: int
              ) -> Tuple[str, bytes, trtp.KernelLaunchParams, trtp.SymExprs]:
    n = x.shape_expr.numel()
    launch = trtp.KernelLaunchParams(grid_x=trtp.cdiv(n, BLOCK), block_x=COMPILED.metadata.num_warps * 32,
                                     shared_mem=COMPILED.metadata.shared)
    return COMPILED.metadata.name, COMPILED.asm["ptx"], launch, trtp.SymIntExprs.from_tuple([n])


def build(logger, kind, library, n):
    builder = trt.Builder(logger)
    network = builder.create_network(1 << int(trt.NetworkDefinitionCreationFlag.STRONGLY_TYPED))
    x = network.add_input("x", trt.float32, (n,))
    if kind == "cpp":
        registry = trt.get_plugin_registry()
        creator = registry.get_creator("ScalePlugin", "1", "example")
        fields = trt.PluginFieldCollection([trt.PluginField("scale", np.array([SCALE], np.float32),
                                                            trt.PluginFieldType.FLOAT32)])
        plugin = creator.create_plugin("scale", fields, trt.TensorRTPhase.BUILD)
        layer = network.add_plugin_v3([x], [], plugin)
    else:
        layer = network.add_plugin(trtp.op.bench.scale(x), aot=(kind == "aot"))
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    config = builder.create_builder_config()
    plan = builder.build_serialized_network(network, config)
    if plan is None:
        raise RuntimeError(f"{kind}: the build failed")
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    if engine is None:
        raise RuntimeError(f"{kind}: the plan did not load")
    return engine


def measure(engine, n, iterations, warmup):
    context = engine.create_execution_context()
    stream = torch.cuda.Stream()
    x = torch.randn(n, device="cuda")
    y = torch.empty_like(x)
    context.set_tensor_address("x", x.data_ptr())
    context.set_tensor_address("y", y.data_ptr())
    times = []
    for i in range(warmup + iterations):
        start = time.perf_counter()
        if not context.execute_async_v3(stream.cuda_stream):
            raise RuntimeError("execute_async_v3 failed")
        stream.synchronize()
        if i >= warmup:
            times.append((time.perf_counter() - start) * 1e6)
    np.testing.assert_allclose(y.cpu().numpy(), x.cpu().numpy() * SCALE, rtol=1e-6)
    times = np.array(times)
    return {"median_us": float(np.median(times)), "p10_us": float(np.percentile(times, 10)),
            "p90_us": float(np.percentile(times, 90))}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--library", required=True, help="libkiln_example_plugins.so (the C++ ScalePlugin)")
    parser.add_argument("--sizes", default="256,16777216")
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=200)
    args = parser.parse_args()
    logger = trt.Logger(trt.Logger.WARNING)
    if trt.get_plugin_registry().load_library(args.library) is None:
        sys.exit(f"could not load {args.library}")
    rows = []
    for n in [int(s) for s in args.sizes.split(",")]:
        for kind in ("cpp", "aot", "jit"):
            try:
                result = {"kind": kind, "elements": n, **measure(build(logger, kind, args.library, n), n,
                                                                 args.iterations, args.warmup)}
            except Exception as error:  # noqa: BLE001  (reported, and the other cases still run)
                print(json.dumps({"kind": kind, "elements": n, "error": str(error)}), flush=True)
                continue
            print(json.dumps(result), flush=True)
            rows.append(result)
    print("\n| elements | plugin | median us | p10-p90 us | / C++ |\n|---|---|---|---|---|")
    for row in rows:
        cpp = next((r for r in rows if r["elements"] == row["elements"] and r["kind"] == "cpp"), None)
        ratio = f"{row['median_us'] / cpp['median_us']:.2f}" if cpp else "-"
        print(f"| {row['elements']} | {row['kind']} | {row['median_us']:.1f} | {row['p10_us']:.1f}-{row['p90_us']:.1f} "
              f"| {ratio} |")


if __name__ == "__main__":
    main()
