// SPDX-License-Identifier: Apache-2.0
// CustomSkipLayerNormPluginDynamic version "5" (an IPluginV3, TensorRT's port of its IPluginV2DynamicExt version 1,
// with the same fields, inputs and output): the residual add and layer norm of BERT's encoder.
//
// Layout (sequence-first, as TensorRT's BERT plugins): inputs input and skip [S, B, E, 1, 1] (S the sequence length, B
// the batch, E the hidden size ld; the trailing 1 x 1 lets a fully connected layer follow), both of the type type_id
// names (kFLOAT or kHALF); output of the same shape and type: for each of the S * B rows of E elements,
//     x = input + skip (+ bias);  y = gamma * (x - mean(x)) / sqrt(var(x) + 1e-5) + beta.
// Fields (TensorRT's names and types): type_id (kINT32, required: 0 FP32, 1 FP16; 2, INT8, is refused by kiln), ld
// (kINT32, required, positive: E), beta and gamma (weights: kFLOAT32 or kFLOAT16 with ld elements, required), bias
// (weights with ld elements, optional). The arithmetic: skip_layer_norm_math.h (in float, for both types).
#pragma once

#include "common.h"
#include "skip_layer_norm_math.h"

#ifdef KILN_PLUGINS_CUDA
#include <cuda_runtime_api.h>
#endif

namespace kiln::plugins
{

inline constexpr char const* kSkipLayerNormName = "CustomSkipLayerNormPluginDynamic";
inline constexpr char const* kSkipLayerNormVersion = "5";

//! Computes out on host memory; type is the tensors' (kFLOAT, or kHALF as IEEE half bit patterns); bias may be null.
void runSkipLayerNormHost(SkipLayerNormParams const& params, nvinfer1::DataType type, void const* input,
    void const* skip, float const* gamma, float const* beta, float const* bias, void* out);

#ifdef KILN_PLUGINS_CUDA
//! Queues the same computation on stream (device memory, gamma, beta and bias included); returns the launch's status.
cudaError_t launchSkipLayerNorm(SkipLayerNormParams const& params, nvinfer1::DataType type, void const* input,
    void const* skip, float const* gamma, float const* beta, float const* bias, void* out, cudaStream_t stream);
#endif

//! The creator of CustomSkipLayerNormPluginDynamic version "5".
class SkipLayerNormCreator final : public StandardCreator
{
public:
    SkipLayerNormCreator();

    nvinfer1::IPluginV3* createPlugin(
        char const* name, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase phase) noexcept override;
    char const* getPluginName() const noexcept override { return kSkipLayerNormName; }
    char const* getPluginVersion() const noexcept override { return kSkipLayerNormVersion; }
};

} // namespace kiln::plugins
