// SPDX-License-Identifier: Apache-2.0
// ScatterElements version "2" (an IPluginV3, as TensorRT's ScatterElementsPluginV3Creator): ONNX ScatterElements with
// a reduction. Inputs data (rank 1 to 8; kFLOAT, kHALF, kINT32 or kINT64), indices (kINT64, data's rank) and updates
// (indices' shape, data's type); output of data's shape and type. Fields (TensorRT's names and types): reduction
// (kCHAR, required: add, mul, min, max, or mean as TensorRT's kernel computes it, which is add; kiln also accepts none,
// which TensorRT leaves to its scatter layer) and axis (kINT32, in [-rank, rank); default 0). The arithmetic:
// scatter_elements_math.h. On the GPU, updates that meet at one element combine in no fixed order (for none, one of
// them wins). Version "1", TensorRT's legacy IPluginV2DynamicExt, is the same op (scatter_elements_legacy.cpp).
#pragma once

#include "common.h"
#include "common_v2.h"
#include "scatter_elements_math.h"

#include <string>

namespace kiln::plugins
{

inline constexpr char const* kScatterElementsName = "ScatterElements";
inline constexpr char const* kScatterElementsVersion = "2";
inline constexpr char const* kScatterElementsLegacyVersion = "1";

//! Computes Y on host memory; type is data's (kFLOAT, kHALF as IEEE half bit patterns, kINT32 or kINT64).
void runScatterElementsHost(ScatterParams const& params, nvinfer1::DataType type, void const* data,
    int64_t const* indices, void const* updates, void* y);

#ifdef KILN_PLUGINS_CUDA
//! Queues the same computation on stream (device memory): a copy of data into y, then the updates; returns the status.
cudaError_t launchScatterElements(ScatterParams const& params, nvinfer1::DataType type, void const* data,
    int64_t const* indices, void const* updates, void* y, cudaStream_t stream);
#endif

// What versions "2" and "1" (scatter_elements_legacy.cpp) share. Each logs what it refuses.
//! Reads the fields reduction (required) and axis (default 0, left as it is when absent).
bool readScatterFields(nvinfer1::PluginFieldCollection const* fc, ScatterReduction& reduction, int32_t& axis);
//! The field value of reduction.
char const* scatterReductionName(ScatterReduction reduction);
//! Why the inputs' shapes at build time do not fit axis (extents not known yet are not compared); empty if they do.
std::string scatterBuildProblem(nvinfer1::DimsExprs const* inputs, int32_t nbInputs, int32_t axis);
//! Whether tensor pos (inputs, then the output) may have its type and format, given those before it.
bool scatterSupports(int32_t pos, nvinfer1::PluginTensorDesc const* inOut);
//! Whether a run's tensors fit together and axis.
bool scatterRunAgrees(
    int32_t axis, nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc);
//! The parameters of a run (whose tensors agree).
ScatterParams scatterRunParams(ScatterReduction reduction, int32_t axis, nvinfer1::PluginTensorDesc const* inputDesc);
//! The checked run on the CUDA backend and on the host backend; 0 on success.
int32_t scatterEnqueue(ScatterReduction reduction, int32_t axis, nvinfer1::PluginTensorDesc const* inputDesc,
    nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs, cudaStream_t stream);
int32_t scatterEnqueueHost(ScatterReduction reduction, int32_t axis, nvinfer1::PluginTensorDesc const* inputDesc,
    nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs);

//! The creator of ScatterElements version "2".
class ScatterElementsCreator final : public StandardCreator
{
public:
    ScatterElementsCreator();

    nvinfer1::IPluginV3* createPlugin(
        char const* name, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase phase) noexcept override;
    char const* getPluginName() const noexcept override { return kScatterElementsName; }
    char const* getPluginVersion() const noexcept override { return kScatterElementsVersion; }
};

KILN_IGNORE_DEPRECATED_BEGIN

//! The creator of ScatterElements version "1" (an IPluginCreator of IPluginV2DynamicExt plugins, TensorRT's legacy
//! version): the same op and fields. Serialized as the reduction (int32, kiln's ScatterReduction) and the axis.
class ScatterElementsLegacyCreator final : public StandardCreatorV2
{
public:
    ScatterElementsLegacyCreator();

    char const* getPluginName() const noexcept override { return kScatterElementsName; }
    char const* getPluginVersion() const noexcept override { return kScatterElementsLegacyVersion; }
    nvinfer1::IPluginV2* createPlugin(char const* name, nvinfer1::PluginFieldCollection const* fc) noexcept override;
    nvinfer1::IPluginV2* deserializePlugin(
        char const* name, void const* serialData, size_t serialLength) noexcept override;
};

KILN_IGNORE_DEPRECATED_END

} // namespace kiln::plugins
