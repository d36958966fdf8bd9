#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""kiln's benchmark blocks in PyTorch: the same shapes, weights and math as bench/kiln_bench.cpp.

    python3 bench/torch_blocks.py [--block NAME]... [--precision fp32|fp16]... [--system torch_eager|torch_compile]...
                                  [--iterations N] [--warmup N] [--compile-mode MODE] [--no-graph]
                                  [--compare-dir DIR]

Prints one JSON object per line on stdout, with the fields kiln_bench prints (bench/README.md lists them):

    {"block":"conv_stack","precision":"fp16","system":"torch_compile","mode":"enqueue","ms_median":0.39,...}

Systems: "torch_eager" (plain PyTorch) and "torch_compile" (torch.compile, mode "default" unless --compile-mode says
otherwise: "default" compiles in seconds and leaves CUDA graphs out, so it stays comparable to kiln's enqueue mode;
"max-autotune-no-cudagraphs" is stronger but autotunes for minutes). Each also gets a "mode":"graph" line, timed by
replaying a torch.cuda.CUDAGraph that captured one call, as kiln_bench does with enqueueV3.

Matching kiln's numerics: TF32 is off for matrix multiplies and convolutions (kiln's fp32 kernels use no TF32), fp16
matrix multiplies may not reduce in reduced precision, and cudnn.benchmark is on (kiln times its tactics too).

--compare-dir DIR reads the outputs that `kiln_bench --dump DIR` wrote (<block>.<precision>.bin, raw little-endian
fp32 or fp16) and prints one "check" line per file: the largest |kiln - torch_eager|, and for scale the largest
|torch fp16 - torch fp32| of the same block.

The identity_plugin_copy block exists only in kiln_bench (it measures a kiln plugin against cudaMemcpyAsync).
"""

import argparse
import json
import math
import os
import sys

try:
    import torch
    import torch.nn.functional as F
except ImportError as error:  # Reported as JSON lines by main(); the generator below works without torch.
    torch = None
    F = None
    TORCH_IMPORT_ERROR = str(error)
else:
    TORCH_IMPORT_ERROR = ""

BLOCKS = ("conv_stack", "transformer_block", "resnet_stem", "gelu", "pointwise_broadcast")
DEFAULT_BLOCKS = BLOCKS[:3]  # as kiln_bench: gelu and pointwise_broadcast run when asked (--block)
PRECISIONS = ("fp32", "fp16")
SYSTEMS = ("torch_eager", "torch_compile")

# ----------------------------------------------------------------------------------------------------------------
# The shared generator (kiln_bench.cpp has the same one, see benchValue):
#
#   mix32(x):  x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16     (all mod 2^32)
#   h       = mix32(seed * 0x9e3779b9 + i)                                                   (mod 2^32)
#   base    = float((h >> 8) * 2 - 2^24) * 2^-24          in [-1, 1), exact in fp32
#   value_i = float32(base * scale) + offset              two fp32 operations, scale and offset rounded to fp32
#
# mix32 works on Python ints and on torch int64 tensors alike. The 32-bit products are formed from 16-bit halves of
# the constant, so no intermediate exceeds 2^49 and int64 never overflows.
# ----------------------------------------------------------------------------------------------------------------

MASK32 = 0xFFFFFFFF


def mul32(x, constant):
    """(x * constant) mod 2^32 for 0 <= x < 2^32, without leaving int64."""
    low = constant & 0xFFFF
    high = constant >> 16
    return (x * low + (((x * high) & 0xFFFF) << 16)) & MASK32


def mix32(x):
    x = x ^ (x >> 16)
    x = mul32(x, 0x7FEB352D)
    x = x ^ (x >> 15)
    x = mul32(x, 0x846CA68B)
    x = x ^ (x >> 16)
    return x


def gen_values(seed, shape, scale, offset=0.0):
    """The fp32 tensor (on the CPU) of the given shape whose flat element i is value_i of stream seed."""
    count = math.prod(shape)
    index = torch.arange(count, dtype=torch.int64)
    h = mix32((mul32(seed, 0x9E3779B9) + index) & MASK32)
    base = ((h >> 8) * 2 - (1 << 24)).to(torch.float32) * (2.0**-24)  # exact: a 25-bit integer times 2^-24
    values = base * torch.tensor(scale, dtype=torch.float32)
    if offset != 0.0:
        values = values + torch.tensor(offset, dtype=torch.float32)
    return values.reshape(shape)


# ----------------------------------------------------------------------------------------------------------------
# The blocks. Seeds and scales are the ones kiln_bench.cpp uses (bench/README.md has the table).
# ----------------------------------------------------------------------------------------------------------------

CONV_BATCH, CONV_CHANNELS, CONV_SIDE, CONV_LAYERS = 8, 64, 56, 4
BATCH, SEQ, MODEL, HEADS, HIDDEN = 8, 128, 512, 8, 2048
HEAD_DIM = MODEL // HEADS
LAYER_NORM_EPS = 1e-5


def conv_gflop():
    per_layer = 2.0 * CONV_BATCH * CONV_CHANNELS * CONV_SIDE * CONV_SIDE * CONV_CHANNELS * 9
    return per_layer * CONV_LAYERS / 1e9


def transformer_gflop():
    tokens = BATCH * SEQ
    projections = 4.0 * 2.0 * tokens * MODEL * MODEL
    attention = 2.0 * 2.0 * BATCH * HEADS * SEQ * SEQ * HEAD_DIM
    mlp = 2.0 * 2.0 * tokens * MODEL * HIDDEN
    return (projections + attention + mlp) / 1e9


def conv_params():
    kernel_scale = 1.0 / math.sqrt(CONV_CHANNELS * 9)
    params = {"input": gen_values(1, (CONV_BATCH, CONV_CHANNELS, CONV_SIDE, CONV_SIDE), 1.0)}
    for layer in range(CONV_LAYERS):
        params[f"conv{layer}.weight"] = gen_values(10 + layer, (CONV_CHANNELS, CONV_CHANNELS, 3, 3), kernel_scale)
        params[f"conv{layer}.bias"] = gen_values(20 + layer, (CONV_CHANNELS,), 0.1)
    return params


def conv_forward(p, x):
    for layer in range(CONV_LAYERS):
        x = torch.relu(F.conv2d(x, p[f"conv{layer}.weight"], p[f"conv{layer}.bias"], padding=1))
    return x


def transformer_params():
    def linear(seed, fan_in, fan_out):  # [in, out], so that y = x @ W as in kiln's [1, in, out] constants
        return gen_values(seed, (fan_in, fan_out), 1.0 / math.sqrt(fan_in))

    return {
        "input": gen_values(2, (BATCH, SEQ, MODEL), 1.0),
        "ln1.gamma": gen_values(30, (MODEL,), 0.1, 1.0),
        "ln1.beta": gen_values(31, (MODEL,), 0.1),
        "q.weight": linear(32, MODEL, MODEL),
        "k.weight": linear(33, MODEL, MODEL),
        "v.weight": linear(34, MODEL, MODEL),
        "o.weight": linear(35, MODEL, MODEL),
        "ln2.gamma": gen_values(36, (MODEL,), 0.1, 1.0),
        "ln2.beta": gen_values(37, (MODEL,), 0.1),
        "mlp.up.weight": linear(38, MODEL, HIDDEN),
        "mlp.up.bias": gen_values(39, (HIDDEN,), 0.1),
        "mlp.down.weight": linear(40, HIDDEN, MODEL),
        "mlp.down.bias": gen_values(41, (MODEL,), 0.1),
    }


def transformer_forward(p, x):
    """Pre-norm block: explicit attention (no scaled_dot_product_attention), the same operations kiln's network has."""

    def heads(t):  # [B, S, D] -> [B, H, S, Dh]
        return t.reshape(BATCH, SEQ, HEADS, HEAD_DIM).transpose(1, 2)

    ln1 = F.layer_norm(x, (MODEL,), p["ln1.gamma"], p["ln1.beta"], LAYER_NORM_EPS)
    q = heads(ln1 @ p["q.weight"])
    k = heads(ln1 @ p["k.weight"])
    v = heads(ln1 @ p["v.weight"])
    probs = torch.softmax((q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(HEAD_DIM)), dim=-1)
    context = (probs @ v).transpose(1, 2).reshape(BATCH, SEQ, MODEL)
    h = x + context @ p["o.weight"]
    ln2 = F.layer_norm(h, (MODEL,), p["ln2.gamma"], p["ln2.beta"], LAYER_NORM_EPS)
    up = F.gelu(ln2 @ p["mlp.up.weight"] + p["mlp.up.bias"], approximate="tanh")
    return h + (up @ p["mlp.down.weight"] + p["mlp.down.bias"])


STEM_BATCH, STEM_MAPS, STEM_SIDE = 256, 64, 224


def stem_gflop():
    return 2.0 * STEM_BATCH * STEM_MAPS * (STEM_SIDE // 2) ** 2 * 3 * 49 / 1e9


def stem_params():
    return {
        "input": gen_values(5, (STEM_BATCH, 3, STEM_SIDE, STEM_SIDE), 1.0),
        "conv1.weight": gen_values(50, (STEM_MAPS, 3, 7, 7), 1.0 / math.sqrt(3 * 49)),
        "conv1.bias": gen_values(51, (STEM_MAPS,), 0.1),
    }


def stem_forward(p, x):
    x = torch.relu(F.conv2d(x, p["conv1.weight"], p["conv1.bias"], stride=2, padding=3))
    return F.max_pool2d(x, 3, stride=2, padding=1)


POINTWISE_ROWS, POINTWISE_COLUMNS = 4096, 3072  # BERT-base's MLP activation at batch 32


def no_gflop():
    return 0.0


def gelu_params():
    return {"input": gen_values(3, (POINTWISE_ROWS, POINTWISE_COLUMNS), 2.0)}


def gelu_forward(p, x):
    return x * (torch.erf(x / 1.4142135) + 1.0) * 0.5  # the exporters' erf form, as kiln_bench builds it


def pointwise_broadcast_params():
    return {
        "input": gen_values(4, (POINTWISE_ROWS, POINTWISE_COLUMNS), 1.0),
        "scale": gen_values(50, (1, POINTWISE_COLUMNS), 0.5, 1.0),
        "bias": gen_values(51, (1, POINTWISE_COLUMNS), 0.1),
    }


def pointwise_broadcast_forward(p, x):
    return torch.relu(x * p["scale"] + p["bias"])


BLOCK_DEFS = {
    "conv_stack": (conv_params, conv_forward, conv_gflop),
    "transformer_block": (transformer_params, transformer_forward, transformer_gflop),
    "resnet_stem": (stem_params, stem_forward, stem_gflop),
    "gelu": (gelu_params, gelu_forward, no_gflop),
    "pointwise_broadcast": (pointwise_broadcast_params, pointwise_broadcast_forward, no_gflop),
}


# ----------------------------------------------------------------------------------------------------------------
# Timing, memory and output.
# ----------------------------------------------------------------------------------------------------------------


def emit(fields):
    print(json.dumps(fields), flush=True)


def quantile(sorted_values, q):
    """Linear interpolation between ranks, as kiln_bench computes it."""
    position = q * (len(sorted_values) - 1)
    below = math.floor(position)
    above = min(below + 1, len(sorted_values) - 1)
    return sorted_values[below] + (sorted_values[above] - sorted_values[below]) * (position - below)


def time_calls(call, warmup, iterations):
    """warmup calls, then iterations calls each between two CUDA events on the current stream; ms statistics."""
    for _ in range(warmup):
        call()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iterations)]
    stops = [torch.cuda.Event(enable_timing=True) for _ in range(iterations)]
    for start, stop in zip(starts, stops):
        start.record()
        call()
        stop.record()
    torch.cuda.synchronize()
    times = sorted(start.elapsed_time(stop) for start, stop in zip(starts, stops))
    return {
        "ms_median": quantile(times, 0.5),
        "ms_p10": quantile(times, 0.1),
        "ms_p90": quantile(times, 0.9),
        "ms_mean": sum(times) / len(times),
        "ms_min": times[0],
        "iterations": iterations,
        "warmup": warmup,
    }


def capture_graph(call):
    """A CUDAGraph of one call, after warm-up calls on a side stream (what torch.cuda.graph expects)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            call()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        call()
    return graph


def set_numerics():
    """kiln's numerics: no TF32, no reduced-precision fp16 reductions in matrix multiplies; cudnn.benchmark on (kiln
    times its tactics too)."""
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    torch.backends.cudnn.benchmark = True


def device_name():
    return torch.cuda.get_device_name(0) if torch is not None and torch.cuda.is_available() else "unknown"


def load_params(block, dtype):
    make, forward, gflop = BLOCK_DEFS[block]
    params = {name: t.to(device="cuda", dtype=dtype) for name, t in make().items()}
    x = params.pop("input").contiguous()
    return params, x, forward, gflop()


def run_system(block, precision, system, args):
    """Prints the enqueue line and (unless --no-graph) the graph line of one block, precision and system."""
    dtype = torch.float32 if precision == "fp32" else torch.float16
    base = {"block": block, "precision": precision, "system": system, "device": device_name()}
    params, x, forward, gflop = load_params(block, dtype)
    base["shape"] = "[" + ",".join(str(d) for d in x.shape) + "]"
    if system == "torch_compile":
        base["compile_mode"] = args.compile_mode
        torch._dynamo.reset()
        fn = torch.compile(lambda t: forward(params, t), mode=args.compile_mode, dynamic=False)
    else:
        fn = lambda t: forward(params, t)  # noqa: E731

    def call():
        fn(x)  # The result is dropped at once, so the peak holds one output, as kiln's does.

    with torch.no_grad():
        call()  # The first call compiles (torch_compile); it stays out of the timings and the memory peak.
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        timing = time_calls(call, args.warmup, args.iterations)
        peak = torch.cuda.max_memory_allocated()
        emit({**base, "mode": "enqueue", **timing, "gflop": gflop, "tflops": gflop / timing["ms_median"],
              "peak_device_bytes": peak, "memory_method": "torch.cuda.max_memory_allocated"})
        if args.no_graph:
            return
        try:
            graph = capture_graph(call)
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            timing = time_calls(graph.replay, args.warmup, args.iterations)
            peak = torch.cuda.max_memory_allocated()
            emit({**base, "mode": "graph", **timing, "gflop": gflop, "tflops": gflop / timing["ms_median"],
                  "peak_device_bytes": peak, "memory_method": "torch.cuda.max_memory_allocated"})
            del graph
        except Exception as error:  # noqa: BLE001 - any failure becomes the line's "error"
            emit({**base, "mode": "graph", "error": f"{type(error).__name__}: {error}"})


def eager_output(block, precision):
    dtype = torch.float32 if precision == "fp32" else torch.float16
    params, x, forward, _ = load_params(block, dtype)
    with torch.no_grad():
        return forward(params, x).float()


def compare(block, precision, directory):
    """The check line of kiln's dumped output against torch_eager, or None when kiln dumped none."""
    path = os.path.join(directory, f"{block}.{precision}.bin")
    if not os.path.exists(path):
        return None
    reference = eager_output(block, precision)
    dtype = torch.float32 if precision == "fp32" else torch.float16
    with open(path, "rb") as file:
        raw = bytearray(file.read())
    line = {"block": block, "precision": precision, "system": "kiln", "check": "kiln_vs_torch_eager",
            "device": device_name()}
    expected = reference.numel() * (4 if precision == "fp32" else 2)
    if len(raw) != expected:
        return {**line, "error": f"{path} holds {len(raw)} bytes; the output has {expected}"}
    kiln = torch.frombuffer(raw, dtype=dtype).reshape(reference.shape).to("cuda").float()
    diff = (kiln - reference).abs()
    line.update({"max_abs_diff": diff.max().item(), "mean_abs_diff": diff.mean().item(),
                 "max_abs_reference": reference.abs().max().item(),
                 "kiln_finite": bool(torch.isfinite(kiln).all().item())})
    if precision == "fp16":  # The scale of an fp16 error: torch's own fp16 output against its fp32 output.
        line["torch_fp16_vs_fp32_max_abs_diff"] = (reference - eager_output(block, "fp32")).abs().max().item()
    return line


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--block", action="append", choices=BLOCKS)
    parser.add_argument("--precision", action="append", choices=PRECISIONS)
    parser.add_argument("--system", action="append", choices=SYSTEMS)
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--compile-mode", default="default",
                        help='torch.compile mode: "default" (the default) or e.g. "max-autotune-no-cudagraphs"')
    parser.add_argument("--no-graph", action="store_true", help="leave out the CUDA-graph lines")
    parser.add_argument("--compare-dir", help="compare kiln_bench --dump outputs found here with torch_eager")
    args = parser.parse_args()
    if args.iterations < 1 or args.warmup < 0:
        parser.error("--iterations must be at least 1 and --warmup at least 0")
    blocks = args.block or list(DEFAULT_BLOCKS)
    precisions = args.precision or list(PRECISIONS)
    systems = args.system or list(SYSTEMS)

    if torch is None or not torch.cuda.is_available():
        why = f"PyTorch is not importable: {TORCH_IMPORT_ERROR}" if torch is None else "torch sees no CUDA device"
        for block in blocks:
            for system in systems:
                emit({"block": block, "precision": "", "system": system, "device": "unknown", "error": why})
        return 1

    set_numerics()

    failures = 0
    for block in blocks:
        for precision in precisions:
            for system in systems:
                try:
                    run_system(block, precision, system, args)
                except Exception as error:  # noqa: BLE001 - any failure becomes the line's "error"
                    failures += 1
                    emit({"block": block, "precision": precision, "system": system, "device": device_name(),
                          "error": f"{type(error).__name__}: {error}"})
                torch.cuda.empty_cache()
    if args.compare_dir:
        for block in blocks:
            for precision in precisions:
                try:
                    line = compare(block, precision, args.compare_dir)
                except Exception as error:  # noqa: BLE001
                    line = {"block": block, "precision": precision, "system": "kiln", "check": "kiln_vs_torch_eager",
                            "error": f"{type(error).__name__}: {error}"}
                if line is not None:
                    emit(line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
