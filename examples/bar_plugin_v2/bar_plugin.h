// SPDX-License-Identifier: Apache-2.0
// BarPlugin as an IPluginV2DynamicExt (the TensorRT 8 developer guide's "Example: Adding a Custom Layer with Dynamic
// Shape Support Using C++"), version "1", namespace "example". Two inputs X0 [N0, C, H, W] and X1 [N1, C, H, W] of one
// type (FP32 or FP16, linear) and two outputs of that type: Y0 [N0 + N1, C, H, W], the inputs concatenated along the
// first dimension (getOutputDimensions gives its first extent as the sum of the inputs' first extents), and Y1, a copy
// of X0. BarPlugin has no parameters: it serializes nothing.
//
// kiln's host backend runs it through barPluginHostRunner(), registered for its name, version and namespace with
// kilnRegisterPluginV2HostRunner (include/kiln/plugin_host.h); on TensorRT its enqueue() launches bar_kernel.cu.
#pragma once

#include "NvInferRuntime.h"

#ifdef KILN_VERSION_MAJOR
#include "kiln/plugin_host.h"
#endif

//! The creator of BarPlugin, to register with getPluginRegistry()->registerCreator(barPluginCreator(), "example").
nvinfer1::IPluginCreator& barPluginCreator();

#ifdef KILN_VERSION_MAJOR
//! BarPlugin's host runner, to register with kilnRegisterPluginV2HostRunner("BarPlugin", "1", "example", &runner).
kiln::IPluginV2HostRunner& barPluginHostRunner();
#endif
