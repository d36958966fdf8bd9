// SPDX-License-Identifier: Apache-2.0
// MultiscaleDeformableAttnPlugin_TRT version "2" (an IPluginV3, as TensorRT's MultiscaleDeformableAttnPluginCreator
// since 10.11): Deformable DETR's multi-scale deformable attention. Inputs value [N, S, M, D], spatial_shapes [L, 2]
// (kINT32; each level's [H, W]), level_start_index [L] (kINT32), sampling_locations [N, Lq, M, L, P, 2] and
// attention_weights [N, Lq, M, L, P]; value, the locations, the weights and the output are all kFLOAT or all kHALF.
// Output [N, Lq, M, D]. No fields, as TensorRT's. The arithmetic: ms_deform_attn_math.h. Version "1", TensorRT's legacy
// IPluginV2DynamicExt, is the same op (ms_deform_attn_legacy.cpp).
#pragma once

#include "common.h"
#include "common_v2.h"
#include "ms_deform_attn_math.h"

#include <string>

namespace kiln::plugins
{

inline constexpr char const* kMsDeformAttnName = "MultiscaleDeformableAttnPlugin_TRT";
inline constexpr char const* kMsDeformAttnVersion = "2";
inline constexpr char const* kMsDeformAttnLegacyVersion = "1";

//! Computes Y on host memory; type is value's (kFLOAT, or kHALF as IEEE half bit patterns).
void runMsDeformAttnHost(MsDeformAttnParams const& params, nvinfer1::DataType type, void const* value,
    int32_t const* shapes, int32_t const* starts, void const* locations, void const* weights, void* y);

#ifdef KILN_PLUGINS_CUDA
//! Queues the same computation on stream (device memory); returns the launch's status.
cudaError_t launchMsDeformAttn(MsDeformAttnParams const& params, nvinfer1::DataType type, void const* value,
    int32_t const* shapes, int32_t const* starts, void const* locations, void const* weights, void* y,
    cudaStream_t stream);
#endif

// What versions "2" and "1" (ms_deform_attn_legacy.cpp) share. Each logs what it refuses.
//! Why the inputs' shapes at build time do not fit together (extents not known yet are not compared); empty if they do.
std::string msDeformAttnBuildProblem(nvinfer1::DimsExprs const* inputs, int32_t nbInputs);
//! Whether a run's tensors have the shapes the plugin takes and Y [N, Lq, M, D].
bool msDeformAttnRunAgrees(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc);
//! The extents of a run (whose shapes agree).
MsDeformAttnParams msDeformAttnRunParams(nvinfer1::PluginTensorDesc const* inputDesc);
//! Whether tensor pos (inputs, then the output) may have its type and format, given those before it.
bool msDeformAttnSupports(int32_t pos, nvinfer1::PluginTensorDesc const* inOut);
//! The checked run on the CUDA backend and on the host backend; 0 on success.
int32_t msDeformAttnEnqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
    void const* const* inputs, void* const* outputs, cudaStream_t stream);
int32_t msDeformAttnEnqueueHost(nvinfer1::PluginTensorDesc const* inputDesc,
    nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs);

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

KILN_IGNORE_DEPRECATED_BEGIN

//! The creator of MultiscaleDeformableAttnPlugin_TRT version "1" (an IPluginCreator of IPluginV2DynamicExt plugins,
//! TensorRT's legacy version; same inputs, output and arithmetic, no fields, nothing serialized).
class MsDeformAttnLegacyCreator final : public StandardCreatorV2
{
public:
    MsDeformAttnLegacyCreator();

    char const* getPluginName() const noexcept override { return kMsDeformAttnName; }
    char const* getPluginVersion() const noexcept override { return kMsDeformAttnLegacyVersion; }
    nvinfer1::IPluginV2* createPlugin(char const* name, nvinfer1::PluginFieldCollection const* fc) noexcept override;
    nvinfer1::IPluginV2* deserializePlugin(
        char const* name, void const* serialData, size_t serialLength) noexcept override;
};

KILN_IGNORE_DEPRECATED_END

} // namespace kiln::plugins
