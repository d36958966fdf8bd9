// SPDX-License-Identifier: Apache-2.0
// ScatterElements version "2" (an IPluginV3, as TensorRT's ScatterElementsPluginV3Creator): ONNX ScatterElements with
// a reduction. Inputs data (rank 1 to 8; kFLOAT, kHALF, kINT32 or kINT64), indices (kINT64, data's rank) and updates
// (indices' shape, data's type); output of data's shape and type. Fields (TensorRT's names and types): reduction
// (kCHAR, required: add, mul, min, max, or mean as TensorRT's kernel computes it, which is add; kiln also accepts none,
// which TensorRT leaves to its scatter layer) and axis (kINT32, in [-rank, rank); default 0). The arithmetic:
// scatter_elements_math.h. On the GPU, updates that meet at one element combine in no fixed order (for none, one of
// them wins).
#pragma once

#include "common.h"
#include "scatter_elements_math.h"

namespace kiln::plugins
{

inline constexpr char const* kScatterElementsName = "ScatterElements";
inline constexpr char const* kScatterElementsVersion = "2";

//! Computes Y on host memory; type is data's (kFLOAT, kHALF as IEEE half bit patterns, kINT32 or kINT64).
void runScatterElementsHost(ScatterParams const& params, nvinfer1::DataType type, void const* data,
    int64_t const* indices, void const* updates, void* y);

#ifdef KILN_PLUGINS_CUDA
//! Queues the same computation on stream (device memory): a copy of data into y, then the updates; returns the status.
cudaError_t launchScatterElements(ScatterParams const& params, nvinfer1::DataType type, void const* data,
    int64_t const* indices, void const* updates, void* y, cudaStream_t stream);
#endif

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

} // namespace kiln::plugins
