// SPDX-License-Identifier: Apache-2.0
// CropAndResizeDynamic version "2" (an IPluginV3, as TensorRT 10.16 registers it; TensorRT's legacy
// IPluginV2DynamicExt version "1" and the implicit-batch CropAndResize are not provided): TensorFlow's crop_and_resize.
// Inputs X [N, C, H, W] and rois [N, R, 4] or [N, R, 4, 1] (normalized [y1, x1, y2, x2], R boxes per image), both
// kFLOAT (TensorRT's plugin takes FP32 only); output [N, R, C, crop_height, crop_width] kFLOAT. Fields (required, as
// TensorRT's creator requires them): crop_width and crop_height (kINT32, positive). The arithmetic:
// crop_and_resize_math.h.
#pragma once

#include "common.h"
#include "crop_and_resize_math.h"

#include <memory>

namespace kiln::plugins
{

inline constexpr char const* kCropAndResizeName = "CropAndResizeDynamic";
inline constexpr char const* kCropAndResizeVersion = "2";
inline constexpr char const* kCropAndResizeLegacyVersion = "1";

//! Computes the output on host memory (kFLOAT).
void runCropAndResizeHost(CropAndResizeParams const& params, float const* x, float const* rois, float* y);

#ifdef KILN_PLUGINS_CUDA
//! Queues the same computation on stream (device memory); returns the launch's status.
cudaError_t launchCropAndResize(
    CropAndResizeParams const& params, float const* x, float const* rois, float* y, cudaStream_t stream);
#endif

//! Reads and checks crop_width and crop_height (required, positive) into params; false (logged) otherwise.
bool readCropAndResizeFields(nvinfer1::PluginFieldCollection const* fc, CropAndResizeParams& params);

//! Whether X, rois and Y have the shapes params' crop sizes imply (X [N, C, H, W], rois [N, R, 4] or [N, R, 4, 1],
//! Y [N, R, C, crop_height, crop_width]); sets run to params with these extents.
bool cropAndResizeShapes(CropAndResizeParams const& params, nvinfer1::Dims const& x, nvinfer1::Dims const& rois,
    nvinfer1::Dims const& y, CropAndResizeParams& run);

class StandardCreatorV2;

//! The creator of CropAndResizeDynamic version "1", the legacy IPluginV2DynamicExt form (crop_and_resize_legacy.cpp).
std::unique_ptr<StandardCreatorV2> makeCropAndResizeLegacyCreator();

//! The creator of CropAndResizeDynamic version "2".
class CropAndResizeCreator final : public StandardCreator
{
public:
    CropAndResizeCreator();

    nvinfer1::IPluginV3* createPlugin(
        char const* name, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase phase) noexcept override;
    char const* getPluginName() const noexcept override { return kCropAndResizeName; }
    char const* getPluginVersion() const noexcept override { return kCropAndResizeVersion; }
};

} // namespace kiln::plugins
