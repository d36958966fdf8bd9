#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes roi_align.onnx, the model the install test's application parses (tests/install/app.cpp):

    X [1, 1, 4, 4] -> Relu -> RoiAlign (one box, rois [[0, 0, 4, 4]] and batch index 0 as initializers;
                              output 1x1, sampling ratio 2, half-pixel) -> Y [1, 1, 1, 1]

kiln's parser imports RoiAlign as TensorRT's ROIAlign_TRT plugin from the standard plugin library
(libnvinfer_plugin.so.10, beside libnvinfer), so an installed kiln that parses it has found its plugin library too.
With X = 0, 1, ..., 15 the box averages the bilinear values at (0.5, 0.5), (0.5, 2.5), (2.5, 0.5) and (2.5, 2.5) of
[-0.5, 3.5]^2: Y = 7.5. Run with `python3 make_model.py [output path]` (needs the onnx package); the repository keeps
its output beside this script.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def make_model() -> onnx.ModelProto:
    nodes = [
        helper.make_node("Relu", ["X"], ["relu_out"], name="relu"),
        helper.make_node(
            "RoiAlign",
            ["relu_out", "rois", "batch_indices"],
            ["Y"],
            name="roi_align",
            output_height=1,
            output_width=1,
            sampling_ratio=2,
        ),
    ]
    graph = helper.make_graph(
        nodes,
        "roi_align",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 1, 4, 4])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 1, 1, 1])],
        initializer=[
            numpy_helper.from_array(np.array([[0.0, 0.0, 4.0, 4.0]], dtype=np.float32), "rois"),
            numpy_helper.from_array(np.array([0], dtype=np.int64), "batch_indices"),
        ],
    )
    model = helper.make_model(graph, producer_name="kiln make_model.py", opset_imports=[helper.make_opsetid("", 16)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


if __name__ == "__main__":
    path = sys.argv[1] if len(sys.argv) > 1 else "roi_align.onnx"
    onnx.save(make_model(), path)
    print(f"wrote {path}")
