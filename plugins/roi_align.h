// SPDX-License-Identifier: Apache-2.0
// ROIAlign_TRT version "2" (an IPluginV3, as TensorRT's): ONNX RoiAlign. Inputs X [N, C, H, W] (kFLOAT or kHALF),
// rois [R, 4] (X's type) and batch_indices [R] (kINT32); output [R, C, output_height, output_width] of X's type.
// Fields (all optional, TensorRT's names, types and defaults): coordinate_transformation_mode (kINT32, 1 = half_pixel,
// 0 = output_half_pixel; default 1), mode (kINT32, 1 = avg, 0 = max; default 1), output_height and output_width
// (kINT32, positive; default 1), sampling_ratio (kINT32, >= 0, 0 = adaptive; default 0), spatial_scale (kFLOAT32,
// positive; default 1). The arithmetic: roi_align_math.h.
#pragma once

#include "common.h"
#include "roi_align_math.h"

namespace kiln::plugins
{

inline constexpr char const* kRoiAlignName = "ROIAlign_TRT";
inline constexpr char const* kRoiAlignVersion = "2";

//! Computes Y on host memory; type is X's (kFLOAT, or kHALF as IEEE half bit patterns).
void runRoiAlignHost(RoiAlignParams const& params, nvinfer1::DataType type, void const* x, void const* rois,
    int32_t const* batchIndices, void* y);

#ifdef KILN_PLUGINS_CUDA
//! Queues the same computation on stream (device memory); returns the launch's status.
cudaError_t launchRoiAlign(RoiAlignParams const& params, nvinfer1::DataType type, void const* x, void const* rois,
    int32_t const* batchIndices, void* y, cudaStream_t stream);
#endif

//! The creator of ROIAlign_TRT version "2".
class RoiAlignCreator final : public StandardCreator
{
public:
    RoiAlignCreator();

    nvinfer1::IPluginV3* createPlugin(
        char const* name, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase phase) noexcept override;
    char const* getPluginName() const noexcept override { return kRoiAlignName; }
    char const* getPluginVersion() const noexcept override { return kRoiAlignVersion; }
};

} // namespace kiln::plugins
