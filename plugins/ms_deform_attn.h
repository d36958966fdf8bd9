// SPDX-License-Identifier: Apache-2.0
// MultiscaleDeformableAttnPlugin_TRT version "2" (an IPluginV3, as TensorRT's MultiscaleDeformableAttnPluginCreator
// since 10.11): Deformable DETR's multi-scale deformable attention. Inputs value [N, S, M, D], spatial_shapes [L, 2]
// (kINT32; each level's [H, W]), level_start_index [L] (kINT32), sampling_locations [N, Lq, M, L, P, 2] and
// attention_weights [N, Lq, M, L, P]; value, the locations, the weights and the output are all kFLOAT or all kHALF.
// Output [N, Lq, M, D]. No fields, as TensorRT's. The arithmetic: ms_deform_attn_math.h.
#pragma once

#include "common.h"
#include "ms_deform_attn_math.h"

namespace kiln::plugins
{

inline constexpr char const* kMsDeformAttnName = "MultiscaleDeformableAttnPlugin_TRT";
inline constexpr char const* kMsDeformAttnVersion = "2";

//! Computes Y on host memory; type is value's (kFLOAT, or kHALF as IEEE half bit patterns).
void runMsDeformAttnHost(MsDeformAttnParams const& params, nvinfer1::DataType type, void const* value,
    int32_t const* shapes, int32_t const* starts, void const* locations, void const* weights, void* y);

#ifdef KILN_PLUGINS_CUDA
//! Queues the same computation on stream (device memory); returns the launch's status.
cudaError_t launchMsDeformAttn(MsDeformAttnParams const& params, nvinfer1::DataType type, void const* value,
    int32_t const* shapes, int32_t const* starts, void const* locations, void const* weights, void* y,
    cudaStream_t stream);
#endif

//! The creator of MultiscaleDeformableAttnPlugin_TRT version "2".
class MsDeformAttnCreator final : public StandardCreator
{
public:
    MsDeformAttnCreator();

    nvinfer1::IPluginV3* createPlugin(
        char const* name, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase phase) noexcept override;
    char const* getPluginName() const noexcept override { return kMsDeformAttnName; }
    char const* getPluginVersion() const noexcept override { return kMsDeformAttnVersion; }
};

} // namespace kiln::plugins
