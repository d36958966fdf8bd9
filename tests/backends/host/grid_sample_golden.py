#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Prints the golden values of tests/backends/host/grid_sample_test.cpp (HostGridSample.OnnxReferenceValues): ONNX's
# reference implementation of GridSample (onnx.reference, onnx 1.23) on one small input and grid, for every mode,
# padding mode and align_corners.
import numpy as np
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator


def grid_sample(x, grid, mode, padding, align):
    node = helper.make_node("GridSample", ["X", "G"], ["Y"], mode=mode, padding_mode=padding, align_corners=align)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", TensorProto.FLOAT, x.shape),
                                            helper.make_tensor_value_info("G", TensorProto.FLOAT, grid.shape)],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
    return ReferenceEvaluator(model).run(None, {"X": x, "G": grid})[0]


x = np.arange(1, 7, dtype=np.float32).reshape(1, 1, 2, 3)
grid = np.array([[[[-1.0, -1.0], [0.0, 0.0], [1.0, 1.0], [-1.7, 0.3]],
                  [[1.9, -1.4], [0.5, 0.25], [2.6, 1.2], [-0.2, -3.1]]]], dtype=np.float32)
for mode in ["nearest", "linear", "cubic"]:
    for padding in ["zeros", "border", "reflection"]:
        for align in [0, 1]:
            y = grid_sample(x, grid, mode, padding, align)
            print("{" + ", ".join(repr(float(v)) for v in y.flatten()) + "},")
