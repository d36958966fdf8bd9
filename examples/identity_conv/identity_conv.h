// SPDX-License-Identifier: Apache-2.0
// IdentityConv (from the IdentityConv custom-plugin walk-through), version "1", namespace "": the custom node that
// replaces the middle of three identity convolutions. It takes the convolution's input X [N, C, H, W] and weights W [C,
// 1, 1, 1] (FP32 or FP16, linear) and copies X to its output. Its fields are the ONNX Conv attributes the node carries,
// which the ONNX parser forwards (examples/onnx_identity_conv): "kernel_shape" (kINT32 x 2), "strides" (kINT32 x 2),
// "pads" (kINT32 x 4) and "group" (kINT32 x 1); they must describe a 1x1 convolution with stride 1, no padding and one
// group per channel. The same fields are serialized.
#pragma once

#include "NvInferRuntime.h"

//! The creator of IdentityConv, to register with getPluginRegistry()->registerCreator(identityConvCreator(), "").
nvinfer1::IPluginCreatorV3One& identityConvCreator();
