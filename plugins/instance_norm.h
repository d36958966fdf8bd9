// SPDX-License-Identifier: Apache-2.0
// InstanceNormalization_TRT version "3" (an IPluginV3, as TensorRT's InstanceNormalizationV3PluginCreator): ONNX
// InstanceNormalization with the per-channel scale and bias held as fields, and an optional leaky ReLU after it.
// Input X [N, C, D1, ...] of rank 3 to 5 (kFLOAT or kHALF); output of X's shape and type. Fields (TensorRT's names
// and types): epsilon (kFLOAT32; default 0, TensorRT's), scales and bias (kFLOAT32, C values each; required), relu
// (kINT32; default 0, above 0 applies the leaky ReLU) and alpha (kFLOAT32; default 0, its slope below 0). The
// arithmetic: instance_norm_math.h. Chosen by kiln: a negative or NaN epsilon, and scales and bias of different or zero
// lengths, are refused when the plugin is created; an X whose C differs from the fields' length, when it is built.
#pragma once

#include "common.h"
#include "instance_norm_math.h"

namespace kiln::plugins
{

inline constexpr char const* kInstanceNormName = "InstanceNormalization_TRT";
inline constexpr char const* kInstanceNormVersion = "3";

//! Normalizes X into Y on host memory (instance_norm_math.h; InstanceNormalization_TRT and GroupNormalizationPlugin);
//! type is X's (kFLOAT, or kHALF as IEEE half bit patterns); scale and bias hold C floats.
void runNormHost(
    NormParams const& params, nvinfer1::DataType type, void const* x, float const* scale, float const* bias, void* y);

#ifdef KILN_PLUGINS_CUDA
//! Queues the same computation on stream (x, y, scale and bias in device memory); returns the launch's status.
cudaError_t launchNorm(NormParams const& params, nvinfer1::DataType type, void const* x, float const* scale,
    float const* bias, void* y, cudaStream_t stream);
#endif

//! The creator of InstanceNormalization_TRT version "3".
class InstanceNormCreator final : public StandardCreator
{
public:
    InstanceNormCreator();

    nvinfer1::IPluginV3* createPlugin(
        char const* name, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase phase) noexcept override;
    char const* getPluginName() const noexcept override { return kInstanceNormName; }
    char const* getPluginVersion() const noexcept override { return kInstanceNormVersion; }
};

} // namespace kiln::plugins
