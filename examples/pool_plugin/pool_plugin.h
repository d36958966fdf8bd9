// SPDX-License-Identifier: Apache-2.0
// PoolPlugin (the TensorRT developer guide's "Example: Adding a Custom Layer with INT8 I/O Support Using C++"),
// version "1", namespace "example": max or average pooling of
// NCHW images over non-overlapping windows, with linear input and output of one type among FP32, FP16, BF16, FP8 and
// INT8. Quantized (FP8, INT8) values are real values divided by the tensor's scale, which the builder passes in
// PluginTensorDesc::scale (kiln derives it from ITensor::setDynamicRange).
//
// Build fields: "mode" (kINT32, 1 value: 0 max, 1 average), "window" (kINT32, 2 values: height, width).
// Serialized fields: the same plus "scales" (kFLOAT32, 2 values: input scale, output scale).
#pragma once

#include "NvInferRuntime.h"

//! The creator of PoolPlugin, to register with getPluginRegistry()->registerCreator(poolPluginCreator(), "example").
nvinfer1::IPluginCreatorV3One& poolPluginCreator();
