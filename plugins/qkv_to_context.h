// SPDX-License-Identifier: Apache-2.0
// CustomQKVToContextPluginDynamic version "4" (an IPluginV3, TensorRT's port of its IPluginV2DynamicExt version 1,
// with the same fields, inputs and output): BERT's multi-head self-attention from the packed QKV projection.
//
// Layout (sequence-first): input 0, the packed QKV [S, B, 3 * E, 1, 1] (S the sequence length, B the batch, E =
// hidden_size = num_heads * H), each row [N, 3, H] (head n's query, key and value side by side), of type_id's type;
// input 1 when has_mask is 1, the mask index kINT32 [B, 1] (CustomEmbLayerNormPluginDynamic's output 1; [B] is
// accepted too): the number of leading valid tokens of each batch. Output: the context [S, B, E, 1, 1] of the same
// type, [N, H] per row: softmax(Q K^T / sqrt(H)) V per head over the valid keys.
// Fields (TensorRT's names and types): type_id (kINT32, required: 0 FP32, 1 FP16; 2, INT8, is refused by kiln),
// hidden_size and num_heads (kINT32, required, positive, num_heads dividing hidden_size), has_mask (kINT32, 0 or 1,
// default 0), dq_probs (kFLOAT32, default 1/127; the INT8 softmax scale, kept but unused). The arithmetic:
// qkv_to_context_math.h (in float, for both types).
#pragma once

#include "common.h"
#include "qkv_to_context_math.h"

#ifdef KILN_PLUGINS_CUDA
#include <cuda_runtime_api.h>
#endif

namespace kiln::plugins
{

inline constexpr char const* kQkvToContextName = "CustomQKVToContextPluginDynamic";
inline constexpr char const* kQkvToContextVersion = "4";

//! Computes the context on host memory; type is the tensors' (kFLOAT, or kHALF as bit patterns); mask may be null.
void runQkvToContextHost(
    QkvToContextParams const& params, nvinfer1::DataType type, void const* qkv, int32_t const* mask, void* out);

#ifdef KILN_PLUGINS_CUDA
//! Queues the same computation on stream (device memory); returns the launch's status.
cudaError_t launchQkvToContext(QkvToContextParams const& params, nvinfer1::DataType type, void const* qkv,
    int32_t const* mask, void* out, cudaStream_t stream);
#endif

//! The creator of CustomQKVToContextPluginDynamic version "4".
class QkvToContextCreator final : public StandardCreator
{
public:
    QkvToContextCreator();

    nvinfer1::IPluginV3* createPlugin(
        char const* name, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase phase) noexcept override;
    char const* getPluginName() const noexcept override { return kQkvToContextName; }
    char const* getPluginVersion() const noexcept override { return kQkvToContextVersion; }
};

} // namespace kiln::plugins
