// SPDX-License-Identifier: Apache-2.0
// IdentityConv as the IdentityConv custom-plugin walk-through wrote it: an IPluginV2IOExt, version "1", namespace "".
// It replaces the middle of three identity convolutions: it takes the convolution's input X [N, C, H, W] and weights W
// [C, 1, 1, 1] (FP32 or FP16, linear; as an IPluginV2IOExt it sees them without their leading dimension: [C, H, W] and
// [1, 1, 1]) and copies X to its output. createPlugin reads the ONNX Conv attributes the node carries ("kernel_shape"
// kINT32 x 2, "strides" kINT32 x 2, "pads" kINT32 x 4, "group" kINT32 x 1), which must describe a 1x1 convolution with
// stride 1 and no padding. configurePlugin records X's type, channels, height and width; serialize writes them with the
// group, and deserializePlugin restores them, so the engine's plugin knows its configuration without being configured
// again.
//
// kiln's host backend runs it through identityConvHostRunner(), registered for its name, version and namespace with
// kilnRegisterPluginV2HostRunner (include/kiln/plugin_host.h); on TensorRT its enqueue() launches
// identity_conv_kernel.cu.
#pragma once

#include "NvInferRuntime.h"

#ifdef KILN_VERSION_MAJOR
#include "kiln/plugin_host.h"
#endif

#include <string>

//! The creator of IdentityConv, to register with getPluginRegistry()->registerCreator(identityConvCreator(), "").
nvinfer1::IPluginCreator& identityConvCreator();

//! What the last deserializePlugin() restored, as "group 3, kFLOAT, C 3, H 8, W 8, 4-byte elements" (empty before
//! the first).
std::string identityConvLastRestored();

#ifdef KILN_VERSION_MAJOR
//! IdentityConv's host runner, to register with kilnRegisterPluginV2HostRunner("IdentityConv", "1", "", &runner).
kiln::IPluginV2HostRunner& identityConvHostRunner();
#endif
