#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Parse and build time against model size: synthetic ONNX models of N transformer-like blocks, each parsed and built
by kiln_onnx_parse_bench (host backend), one JSON line per N, so that how the times grow with N is visible.

    python3 bench/onnx/size_sweep.py [--blocks 1,2,4,8,12,25,50,100,200,400] [--hidden 64] [--tokens 16] [--limit-s 30]
                                     [--bench build/bench/onnx/kiln_onnx_parse_bench] [--keep DIR]

Block i on x [1, tokens, hidden] (opset 17), 11 nodes and 7 initializers:

    n = LayerNormalization(x, gamma_i, beta_i)                  axis -1, epsilon 1e-5
    h = MatMul(n, W1_i) + b1_i                                  W1_i [hidden, 4 hidden]
    g = h * 0.5 * (1 + Erf(h / sqrt(2)))                        GELU as torch.onnx writes it for opset 17
    x = x + (MatMul(g, W2_i) + b2_i)                            W2_i [4 hidden, hidden]; the residual

Each size runs in its own process under a time limit: one past --limit-s is killed and reported with
"status":"timeout", and the larger sizes are then reported "status":"skipped" without running. Lines:

    {"bench":"onnx_size","blocks":100,"nodes":1100,"onnx_bytes":..,"parse_s":..,"build_s":..,"status":"ok",...}

plus kiln_onnx_parse_bench's fields (layers, weights_bytes, plan_bytes, memory peaks). Needs numpy and onnx.
The exit status is 1 when a size failed other than by the time limit.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

DEFAULT_BENCH = os.path.join("build", "bench", "onnx", "kiln_onnx_parse_bench")


def chain_model(blocks, hidden, tokens, seed=0):
    """The ModelProto of `blocks` blocks (see the module's docstring)."""
    rng = np.random.default_rng(seed)
    nodes, initializers = [], []

    def constant(name, array):
        initializers.append(numpy_helper.from_array(np.asarray(array, dtype=np.float32), name))
        return name

    def node(op, inputs, output, **attributes):
        nodes.append(helper.make_node(op, inputs, [output], name=output, **attributes))
        return output

    x = "x"
    for i in range(blocks):
        p = f"b{i}."
        gamma = constant(p + "gamma", 1.0 + 0.1 * rng.standard_normal(hidden))
        beta = constant(p + "beta", 0.1 * rng.standard_normal(hidden))
        w1 = constant(p + "w1", rng.standard_normal((hidden, 4 * hidden)) / np.sqrt(hidden))
        b1 = constant(p + "b1", 0.1 * rng.standard_normal(4 * hidden))
        w2 = constant(p + "w2", rng.standard_normal((4 * hidden, hidden)) / np.sqrt(4 * hidden))
        b2 = constant(p + "b2", 0.1 * rng.standard_normal(hidden))
        sqrt2 = constant(p + "sqrt2", np.sqrt(2.0))
        n = node("LayerNormalization", [x, gamma, beta], p + "ln", axis=-1, epsilon=1e-5)
        h = node("Add", [node("MatMul", [n, w1], p + "mm1"), b1], p + "h")
        erf = node("Erf", [node("Div", [h, sqrt2], p + "scaled")], p + "erf")
        half = constant(p + "half", 0.5)
        one = constant(p + "one", 1.0)
        g = node("Mul", [node("Mul", [h, half], p + "halved"), node("Add", [erf, one], p + "erf1")], p + "gelu")
        y = node("Add", [node("MatMul", [g, w2], p + "mm2"), b2], p + "y")
        x = node("Add", [x, y], p + "out")
    shape = [1, tokens, hidden]
    graph = helper.make_graph(nodes, f"chain{blocks}", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info(x, TensorProto.FLOAT, shape)], initializer=initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="kiln-bench")
    model.ir_version = 8
    return model


def run_size(blocks, args, folder):
    """The line of one size: writes the model, runs the bench on it under the time limit."""
    model = chain_model(blocks, args.hidden, args.tokens)
    path = os.path.join(folder, f"chain{blocks}.onnx")
    onnx.save_model(model, path)
    line = {"bench": "onnx_size", "blocks": blocks, "hidden": args.hidden, "tokens": args.tokens,
            "nodes": len(model.graph.node), "initializers": len(model.graph.initializer),
            "onnx_bytes": os.path.getsize(path)}
    start = time.perf_counter()
    try:
        done = subprocess.run([args.bench, path, "--interval-ms", "10"], capture_output=True, text=True,
                              timeout=args.limit_s, check=False)
    except subprocess.TimeoutExpired:
        return {**line, "status": "timeout", "limit_s": args.limit_s}
    finally:
        if not args.keep:
            os.remove(path)
    wall_s = time.perf_counter() - start
    sys.stderr.write(done.stderr)
    result = next((json.loads(text) for text in done.stdout.splitlines() if text.startswith("{")), None)
    if done.returncode != 0 or result is None:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {**line, "status": "failed", "error": f"kiln_onnx_parse_bench exited {done.returncode}: {last}"}
    result.pop("bench", None)
    result.pop("model", None)
    return {**line, "status": "ok", "wall_s": wall_s, **result}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--blocks", default="1,2,4,8,12,25,50,100,200,400", help="comma-separated block counts")
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--tokens", type=int, default=16)
    parser.add_argument("--limit-s", type=float, default=30.0, help="the time limit of one size, parse and build")
    parser.add_argument("--bench", default=DEFAULT_BENCH, help="the kiln_onnx_parse_bench executable")
    parser.add_argument("--keep", help="keep the models in this folder")
    args = parser.parse_args()
    sizes = sorted(int(text) for text in args.blocks.split(","))
    if not os.access(args.bench, os.X_OK):
        print(json.dumps({"bench": "onnx_size", "status": "failed", "error": f"{args.bench} is not built"}))
        return 1
    failed = 0
    stopped = None
    with tempfile.TemporaryDirectory(prefix="kiln-size-") as scratch:
        folder = args.keep or scratch
        os.makedirs(folder, exist_ok=True)
        for blocks in sizes:
            if stopped is not None:
                line = {"bench": "onnx_size", "blocks": blocks, "status": "skipped",
                        "reason": f"{stopped} blocks ran past the time limit"}
            else:
                line = run_size(blocks, args, folder)
                stopped = blocks if line["status"] == "timeout" else None
                failed += line["status"] == "failed"
            print(json.dumps(line), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
