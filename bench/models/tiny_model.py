#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A tiny ONNX model with a numpy reference, to check kiln_model_bench end to end without PyTorch (and, with
--backend host, without a GPU): the "tiny" step of bench/models/run.sh.

    python3 bench/models/tiny_model.py make DIR [--batch 4]     # DIR/model.onnx, DIR/inputs, DIR/expected
    kiln_model_bench DIR/model.onnx --inputs DIR/inputs --dump DIR/kiln_fp32 --backend host --name tiny
    python3 bench/models/tiny_model.py check DIR [--precision fp32]   # one check line per output

The model (opset 17, batch axis dynamic), on ids int64 [batch, 8] and features float32 [batch, 8, 16]:

    s = Gather(E, ids) + features                 E [100, 16]
    h = Relu(MatMul(LayerNormalization(s), W1) + b1)        W1 [16, 32]
    out = MatMul(h, W2)                           W2 [32, 4]; outputs "out" [batch, 8, 4]
    pooled = ReduceMean(out, axes [1])            and "pooled" [batch, 4]

Needs numpy and onnx. check prints {"bench":"model","model":"tiny","check":"kiln_vs_numpy",...,"ok":true} lines and
exits 1 when an output is missing or off (relative L2 error above 1e-5 in fp32, 2e-2 in fp16).
"""

import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tensor_files  # noqa: E402

TOKENS, WIDTH, HIDDEN, OUT, VOCABULARY = 8, 16, 32, 4, 100


def weights():
    rng = np.random.default_rng(5)
    f32 = np.float32
    return {"E": rng.standard_normal((VOCABULARY, WIDTH)).astype(f32),
            "gamma": (1 + 0.1 * rng.standard_normal(WIDTH)).astype(f32),
            "beta": (0.1 * rng.standard_normal(WIDTH)).astype(f32),
            "W1": (rng.standard_normal((WIDTH, HIDDEN)) / 4).astype(f32),
            "b1": (0.1 * rng.standard_normal(HIDDEN)).astype(f32),
            "W2": (rng.standard_normal((HIDDEN, OUT)) / 6).astype(f32)}


def reference(w, ids, features):
    s = w["E"][ids].astype(np.float64) + features
    mean = s.mean(-1, keepdims=True)
    var = ((s - mean) ** 2).mean(-1, keepdims=True)
    n = (s - mean) / np.sqrt(var + 1e-5) * w["gamma"] + w["beta"]
    h = np.maximum(n @ w["W1"] + w["b1"], 0)
    out = h @ w["W2"]
    return {"out": out.astype(np.float32), "pooled": out.mean(1).astype(np.float32)}


def make(folder, batch):
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    w = weights()
    nodes = [
        helper.make_node("Gather", ["E", "ids"], ["embedded"], axis=0),
        helper.make_node("Add", ["embedded", "features"], ["s"]),
        helper.make_node("LayerNormalization", ["s", "gamma", "beta"], ["n"], axis=-1, epsilon=1e-5),
        helper.make_node("MatMul", ["n", "W1"], ["mm1"]),
        helper.make_node("Add", ["mm1", "b1"], ["pre"]),
        helper.make_node("Relu", ["pre"], ["h"]),
        helper.make_node("MatMul", ["h", "W2"], ["out"]),
        helper.make_node("ReduceMean", ["out"], ["pooled"], axes=[1], keepdims=0),
    ]
    graph = helper.make_graph(
        nodes, "tiny",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", TOKENS]),
         helper.make_tensor_value_info("features", TensorProto.FLOAT, ["batch", TOKENS, WIDTH])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, ["batch", TOKENS, OUT]),
         helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["batch", OUT])],
        initializer=[numpy_helper.from_array(array, name) for name, array in w.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="kiln-bench")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    os.makedirs(folder, exist_ok=True)
    onnx.save_model(model, os.path.join(folder, "model.onnx"))
    rng = np.random.default_rng(6)
    inputs = {"ids": rng.integers(0, VOCABULARY, (batch, TOKENS), dtype=np.int64),
              "features": rng.standard_normal((batch, TOKENS, WIDTH)).astype(np.float32)}
    tensor_files.write_tensors(os.path.join(folder, "inputs"), inputs)
    tensor_files.write_tensors(os.path.join(folder, "expected"), reference(w, inputs["ids"], inputs["features"]))
    with open(os.path.join(folder, "shapes.txt"), "w", encoding="utf-8") as file:
        file.write(tensor_files.shape_list(inputs) + "\n")
    return 0


def check(folder, precision):
    expected = tensor_files.read_tensors(os.path.join(folder, "expected"))
    dump = os.path.join(folder, f"kiln_{precision}")
    got = tensor_files.read_tensors(dump) if os.path.exists(os.path.join(dump, "manifest.txt")) else {}
    batch = next(iter(expected.values())).shape[0]
    tolerance = 1e-5 if precision == "fp32" else 2e-2
    failures = 0
    for name, want in expected.items():
        line = {"bench": "model", "model": "tiny", "precision": precision, "batch": batch, "system": "kiln",
                "check": "kiln_vs_numpy", "output": name}
        if name not in got or got[name].shape != want.shape:
            shape = list(got[name].shape) if name in got else None
            print(json.dumps({**line, "error": f"kiln's {name}: shape {shape}, expected {list(want.shape)}"}))
            failures += 1
            continue
        difference = got[name].astype(np.float64) - want
        rel_l2 = float(np.linalg.norm(difference) / np.linalg.norm(want))
        ok = bool(np.isfinite(got[name]).all()) and rel_l2 <= tolerance
        failures += not ok
        print(json.dumps({**line, "rel_l2": rel_l2, "max_abs_diff": float(np.abs(difference).max()),
                          "max_abs_reference": float(np.abs(want).max()), "ok": ok}))
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=("make", "check"))
    parser.add_argument("folder")
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--precision", choices=("fp32", "fp16"), default="fp32")
    args = parser.parse_args()
    return make(args.folder, args.batch) if args.command == "make" else check(args.folder, args.precision)


if __name__ == "__main__":
    sys.exit(main())
