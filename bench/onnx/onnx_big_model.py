#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes an ONNX model with more than 1 GB of FP32 weights, kept as external data, for bench/onnx's parse benchmark.

    python3 bench/onnx/onnx_big_model.py OUT_DIR [--layers 20] [--width 4096] [--seed 0]

OUT_DIR/big.onnx holds the graph, OUT_DIR/weights.bin every initializer (data_location EXTERNAL, location
"weights.bin", each at a 4096-aligned offset). The graph is a chain of `layers` blocks on x [1, width]:

    x = Relu(MatMul(x, W_i) + b_i)        W_i [width, width] FP32, b_i [width] FP32

With the defaults: 20 x 64 MiB of matrices (and 20 x 16 KiB of biases), 1.34 GB of weights. Batch 1 and static
shapes keep the build cheap: kiln's host backend times no kernels, and nothing runs the network while building.
Prints one JSON line: the paths, the number of initializers and their total bytes.
"""

import argparse
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

ALIGN = 4096


def external_tensor(name, array, weights, offset):
    """An initializer whose bytes go to the open file weights at offset (padded to ALIGN); returns it and the next
    offset."""
    raw = np.ascontiguousarray(array, dtype="<f4").tobytes()
    weights.seek(offset)
    weights.write(raw)
    tensor = TensorProto()
    tensor.name = name
    tensor.data_type = TensorProto.FLOAT
    tensor.dims.extend(array.shape)
    tensor.data_location = TensorProto.EXTERNAL
    for key, value in (("location", "weights.bin"), ("offset", str(offset)), ("length", str(len(raw)))):
        entry = tensor.external_data.add()
        entry.key = key
        entry.value = value
    return tensor, (offset + len(raw) + ALIGN - 1) // ALIGN * ALIGN


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir")
    parser.add_argument("--layers", type=int, default=20)
    parser.add_argument("--width", type=int, default=4096)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    os.makedirs(args.out_dir, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    scale = 1.0 / np.sqrt(args.width)
    nodes, initializers = [], []
    offset, total = 0, 0
    with open(os.path.join(args.out_dir, "weights.bin"), "wb") as weights:
        previous = "x"
        for i in range(args.layers):
            # One random row repeated: fast to make, and the values still differ along each row.
            row = (rng.standard_normal(args.width, dtype=np.float32) * scale).astype(np.float32)
            matrix = np.broadcast_to(row, (args.width, args.width))
            bias = (rng.standard_normal(args.width, dtype=np.float32) * 0.01).astype(np.float32)
            for name, array in ((f"W{i}", matrix), (f"b{i}", bias)):
                tensor, offset = external_tensor(name, array, weights, offset)
                initializers.append(tensor)
                total += array.size * 4
            nodes.append(helper.make_node("MatMul", [previous, f"W{i}"], [f"mm{i}"], name=f"matmul{i}"))
            nodes.append(helper.make_node("Add", [f"mm{i}", f"b{i}"], [f"add{i}"], name=f"bias{i}"))
            nodes.append(helper.make_node("Relu", [f"add{i}"], [f"y{i}"], name=f"relu{i}"))
            previous = f"y{i}"
        weights.truncate(offset)

    graph = helper.make_graph(
        nodes,
        "big_mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, args.width])],
        [helper.make_tensor_value_info(previous, TensorProto.FLOAT, [1, args.width])],
        initializer=initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="kiln-bench")
    model.ir_version = 8
    path = os.path.join(args.out_dir, "big.onnx")
    onnx.save_model(model, path)  # initializers already external: only the graph goes into big.onnx
    onnx.checker.check_model(path)  # by path: the checker reads external data without loading it
    print(
        json.dumps(
            {
                "model": path,
                "weights_file": os.path.join(args.out_dir, "weights.bin"),
                "initializers": len(initializers),
                "weights_bytes": total,
                "model_file_bytes": os.path.getsize(path),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
