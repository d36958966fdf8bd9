#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes identity_conv.onnx, the model of the IdentityConv custom-plugin walk-through: three "convolutions" whose
weights make each an identity.

    X [N, 3, 8, 8] -> Conv (1x1, weights the 3x3 identity matrix)
                   -> IdentityConv (a custom node: no ONNX op of that name; kiln imports it as the IdentityConv
                      plugin, version 1, namespace "", with the depthwise all-ones weights as a second input)
                   -> Conv (1x1 depthwise, all ones) -> Y

so Y equals X. N is a symbolic dimension ("N"). Run with `python3 make_model.py [output path]` (needs the onnx package);
the repository keeps its output beside this script.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

CHANNELS = 3
SIDE = 8


def make_model() -> onnx.ModelProto:
    identity = np.eye(CHANNELS, dtype=np.float32).reshape(CHANNELS, CHANNELS, 1, 1)
    ones = np.ones((CHANNELS, 1, 1, 1), dtype=np.float32)
    conv_attributes = dict(kernel_shape=[1, 1], strides=[1, 1], pads=[0, 0, 0, 0])
    nodes = [
        helper.make_node("Conv", ["X", "conv1.weight"], ["conv1_out"], name="conv1", group=1, **conv_attributes),
        helper.make_node(
            "IdentityConv",
            ["conv1_out", "identity_conv.weight"],
            ["identity_conv_out"],
            name="identity_conv",
            group=CHANNELS,
            plugin_version="1",
            plugin_namespace="",
            **conv_attributes,
        ),
        helper.make_node(
            "Conv", ["identity_conv_out", "conv2.weight"], ["Y"], name="conv2", group=CHANNELS, **conv_attributes
        ),
    ]
    graph = helper.make_graph(
        nodes,
        "identity_conv",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", CHANNELS, SIDE, SIDE])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["N", CHANNELS, SIDE, SIDE])],
        initializer=[
            numpy_helper.from_array(identity, "conv1.weight"),
            numpy_helper.from_array(ones, "identity_conv.weight"),
            numpy_helper.from_array(ones, "conv2.weight"),
        ],
    )
    model = helper.make_model(graph, producer_name="kiln make_model.py", opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


if __name__ == "__main__":
    path = sys.argv[1] if len(sys.argv) > 1 else "identity_conv.onnx"
    onnx.save(make_model(), path)
    print(f"wrote {path}")
