// SPDX-License-Identifier: Apache-2.0
// DisentangledAttention_TRT version "2" (an IPluginV3, TensorRT's port of its IPluginV2DynamicExt version 1, with the
// same fields, inputs and output): DeBERTa's disentangled attention scores.
//
// Layout: inputs c2c (content to content, Qc Kc^T) [BN, S, S], c2p (content to position, Qc Kr^T) [BN, S, 2 * span]
// and p2c (position to content, Kc Qr^T) [BN, S, 2 * span], where BN is the batch times the heads and S the sequence
// length, all kFLOAT or all kHALF (TensorRT's INT8 is not supported by kiln); output [BN, S, S] of their type: the sum
// of c2c and the relative-position gathers of c2p and p2c, times factor.
// Fields (TensorRT's names and types; both required): span (kINT32, positive: the relative distance k), factor
// (kFLOAT32, in (0, 1): 1 / sqrt(3 d), d the head size). The arithmetic: disentangled_attention_math.h.
#pragma once

#include "common.h"
#include "disentangled_attention_math.h"

#ifdef KILN_PLUGINS_CUDA
#include <cuda_runtime_api.h>
#endif

namespace kiln::plugins
{

inline constexpr char const* kDisentangledAttentionName = "DisentangledAttention_TRT";
inline constexpr char const* kDisentangledAttentionVersion = "2";

//! Computes the output on host memory; type is the tensors' (kFLOAT, or kHALF as bit patterns).
void runDisentangledAttentionHost(DisentangledAttentionParams const& params, nvinfer1::DataType type, void const* c2c,
    void const* c2p, void const* p2c, void* out);

#ifdef KILN_PLUGINS_CUDA
//! Queues the same computation on stream (device memory); returns the launch's status.
cudaError_t launchDisentangledAttention(DisentangledAttentionParams const& params, nvinfer1::DataType type,
    void const* c2c, void const* c2p, void const* p2c, void* out, cudaStream_t stream);
#endif

//! The creator of DisentangledAttention_TRT version "2".
class DisentangledAttentionCreator final : public StandardCreator
{
public:
    DisentangledAttentionCreator();

    nvinfer1::IPluginV3* createPlugin(
        char const* name, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase phase) noexcept override;
    char const* getPluginName() const noexcept override { return kDisentangledAttentionName; }
    char const* getPluginVersion() const noexcept override { return kDisentangledAttentionVersion; }
};

} // namespace kiln::plugins
