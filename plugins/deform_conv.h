// SPDX-License-Identifier: Apache-2.0
// ModulatedDeformConv2d version "2" (an IPluginV3, as TensorRT's): modulated deformable 2-D convolution (ONNX
// DeformConv). Inputs, all kFLOAT or all kHALF: X [N, C, H, W], offset [N, 2 * deformable_group * kH * kW, oH, oW],
// mask [N, deformable_group * kH * kW, oH, oW], weight [O, C / group, kH, kW], and optionally bias [O]; output
// [N, O, oH, oW] (oH and oW are offset's). Fields (TensorRT's names and types; all optional): stride, padding,
// dilation (kINT32 x 2, [height, width]; defaults [1, 1], [0, 0], [1, 1]), group and deformable_group (kINT32;
// default 1). The arithmetic: deform_conv_math.h.
#pragma once

#include "common.h"
#include "deform_conv_math.h"

namespace kiln::plugins
{

inline constexpr char const* kDeformConvName = "ModulatedDeformConv2d";
inline constexpr char const* kDeformConvVersion = "2";

//! Computes Y on host memory; type is the inputs' (kFLOAT, or kHALF as IEEE half bit patterns); bias may be null.
void runDeformConvHost(DeformConvParams const& params, nvinfer1::DataType type, void const* x, void const* offset,
    void const* mask, void const* weight, void const* bias, void* y);

#ifdef KILN_PLUGINS_CUDA
//! Queues the same computation on stream (device memory); returns the launch's status.
cudaError_t launchDeformConv(DeformConvParams const& params, nvinfer1::DataType type, void const* x, void const* offset,
    void const* mask, void const* weight, void const* bias, void* y, cudaStream_t stream);
#endif

//! The creator of ModulatedDeformConv2d version "2".
class DeformConvCreator final : public StandardCreator
{
public:
    DeformConvCreator();

    nvinfer1::IPluginV3* createPlugin(
        char const* name, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase phase) noexcept override;
    char const* getPluginName() const noexcept override { return kDeformConvName; }
    char const* getPluginVersion() const noexcept override { return kDeformConvVersion; }
};

} // namespace kiln::plugins
