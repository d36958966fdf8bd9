// SPDX-License-Identifier: Apache-2.0
// CustomEmbLayerNormPluginDynamic version "6" (an IPluginV3, TensorRT's port of its IPluginV2DynamicExt version 1,
// with the same fields, inputs and outputs): BERT's embeddings (word + token type + position) and their layer norm,
// and the mask index that CustomQKVToContextPluginDynamic reads.
//
// Layout (sequence-first): inputs input_ids, segment_ids and input_mask, each kINT32 [S, B] (S the sequence length,
// B the batch). Outputs: 0, the normalised embeddings [S, B, E, 1, 1] (E the hidden size, beta's length), kFLOAT, or
// kHALF when output_fp16 is 1; 1, the mask index, kINT32 [B, 1]: for each batch, the position of the first 0 in its
// column of input_mask, or S (the number of valid tokens of a mask of ones then zeros). That is TensorRT's unfused
// mask format (pack size 1), which TensorRT gives for mha_type_id 0 (FP32) and for sequence lengths or GPUs its fused
// attention kernels do not cover; kiln has no fused kernels and always gives it (see docs/plugins.md).
//
// Fields (TensorRT's names): bert_embeddings_layernorm_beta and bert_embeddings_layernorm_gamma (weights of E
// elements), bert_embeddings_word_embeddings, bert_embeddings_token_type_embeddings and
// bert_embeddings_position_embeddings (weights of rows x E elements), all required, each kFLOAT32 or kFLOAT16;
// output_fp16 (kINT32, default 0), full_mask (kINT32, default 0; 1, the packed mask of TensorRT's fused kernels, is
// refused by kiln), mha_type_id (kINT32 0 to 3, default 0; read and kept, it changes nothing in kiln). With
// output_fp16 the tables are rounded to FP16 as TensorRT keeps them. The arithmetic: emb_layer_norm_math.h.
#pragma once

#include "common.h"
#include "emb_layer_norm_math.h"

#ifdef KILN_PLUGINS_CUDA
#include <cuda_runtime_api.h>
#endif

namespace kiln::plugins
{

inline constexpr char const* kEmbLayerNormName = "CustomEmbLayerNormPluginDynamic";
inline constexpr char const* kEmbLayerNormVersion = "6";

//! Computes both outputs on host memory; type is the embedded output's (kFLOAT, or kHALF as bit patterns).
void runEmbLayerNormHost(EmbLayerNormParams const& params, nvinfer1::DataType type, int32_t const* ids,
    int32_t const* segments, int32_t const* mask, EmbLayerNormWeights const& weights, void* out, int32_t* maskIndex);

#ifdef KILN_PLUGINS_CUDA
//! Queues the same computation on stream (device memory, weights included); returns the launches' status.
cudaError_t launchEmbLayerNorm(EmbLayerNormParams const& params, nvinfer1::DataType type, int32_t const* ids,
    int32_t const* segments, int32_t const* mask, EmbLayerNormWeights const& weights, void* out, int32_t* maskIndex,
    cudaStream_t stream);
#endif

//! The creator of CustomEmbLayerNormPluginDynamic version "6".
class EmbLayerNormCreator final : public StandardCreator
{
public:
    EmbLayerNormCreator();

    nvinfer1::IPluginV3* createPlugin(
        char const* name, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase phase) noexcept override;
    char const* getPluginName() const noexcept override { return kEmbLayerNormName; }
    char const* getPluginVersion() const noexcept override { return kEmbLayerNormVersion; }
};

} // namespace kiln::plugins
