// SPDX-License-Identifier: Apache-2.0
// The arithmetic of ROIAlign_TRT, shared by its host implementation (roi_align.cpp) and its CUDA kernel
// (roi_align.cu): one output element from X [N, C, H, W], rois [R, 4] (x1, y1, x2, y2) and batch indices [R], computed
// in float on both sides with the same operations.
//
// The rules are ONNX's RoiAlign (opsets 10, 16 and 22, and ONNX's reference implementation):
// - A box is scaled by spatial_scale and, with half_pixel, shifted by -0.5. With output_half_pixel (opset 10's only
//   behaviour) its width and height are at least 1.
// - Each of the output_height x output_width bins takes grid_h x grid_w samples at the centres of an even grid;
//   grid_h is sampling_ratio, or ceil(box height / output_height) when sampling_ratio is 0 (adaptive).
// - A sample above -1 and below the extent reads X bilinearly, its coordinate clamped to [0, extent - 1]; samples
//   farther out are 0 (their four weights are 0).
// - avg: the sum of the samples over max(grid_h * grid_w, 1). max: the largest, over the samples, of the largest of
//   the four weighted corner values (ONNX's reference takes the maximum of w * value, not of the interpolated value).
// Chosen by kiln: a batch index outside [0, N) and an empty X give 0. The sampling grid has at most
// kMaxSamplingGrid samples per axis: sampling_ratio above it is refused when the plugin is created, and an adaptive
// grid (from the boxes' values, which may be anything: a box of height 1e30) is held to it, so that one output element
// never takes more than kMaxSamplingGrid^2 samples. Real boxes come nowhere near it (a box of 3584 feature-map pixels
// over 7 bins takes 512 samples a side).
#pragma once

#include "core/integer_math.h"

#include <math.h>

#include <cstdint>

namespace kiln::plugins
{

//! The most samples a bin takes along each axis (see above).
inline constexpr int32_t kMaxSamplingGrid = 512;

//! The adaptive grid along one axis for bins of extent bin: ceil(bin), at least 0 (a box of negative or NaN extent
//! takes no samples: fmaxf returns its number operand) and at most kMaxSamplingGrid, so that the conversion to an
//! integer is defined.
KILN_HOST_DEVICE inline int64_t adaptiveGrid(float bin) noexcept
{
    return static_cast<int64_t>(fminf(fmaxf(ceilf(bin), 0.0F), static_cast<float>(kMaxSamplingGrid)));
}

//! The attributes of one ROIAlign_TRT plugin and the extents of one run.
struct RoiAlignParams
{
    int32_t outputHeight{1};
    int32_t outputWidth{1};
    int32_t samplingRatio{0};
    float spatialScale{1.0F};
    bool halfPixel{true}; //!< coordinate_transformation_mode 1 (half_pixel) or 0 (output_half_pixel).
    bool maxMode{false};  //!< mode 0 (max) or 1 (avg).
    int64_t batch{};      //!< N, C, H, W of X and R, the number of boxes.
    int64_t channels{};
    int64_t height{};
    int64_t width{};
    int64_t rois{};

    //! Elements of the output [R, C, output_height, output_width].
    KILN_HOST_DEVICE int64_t outputCount() const noexcept { return rois * channels * outputHeight * outputWidth; }
};

//! The output element at index of [R, C, output_height, output_width]; load(T) gives a float.
template <typename T, typename Load>
KILN_HOST_DEVICE float roiAlignValue(
    RoiAlignParams const& p, T const* x, T const* rois, int32_t const* batchIndices, int64_t index, Load load) noexcept
{
    int64_t const pw = index % p.outputWidth;
    int64_t const ph = index / p.outputWidth % p.outputHeight;
    int64_t const c = index / (static_cast<int64_t>(p.outputWidth) * p.outputHeight) % p.channels;
    int64_t const r = index / (static_cast<int64_t>(p.outputWidth) * p.outputHeight * p.channels);
    int64_t const b = batchIndices[r];
    if (b < 0 || b >= p.batch || p.height == 0 || p.width == 0)
    {
        return 0.0F;
    }
    float const shift = p.halfPixel ? 0.5F : 0.0F;
    float const startW = load(rois[r * 4 + 0]) * p.spatialScale - shift;
    float const startH = load(rois[r * 4 + 1]) * p.spatialScale - shift;
    float const endW = load(rois[r * 4 + 2]) * p.spatialScale - shift;
    float const endH = load(rois[r * 4 + 3]) * p.spatialScale - shift;
    float roiWidth = endW - startW;
    float roiHeight = endH - startH;
    if (!p.halfPixel)
    {
        roiWidth = fmaxf(roiWidth, 1.0F);
        roiHeight = fmaxf(roiHeight, 1.0F);
    }
    float const binHeight = roiHeight / static_cast<float>(p.outputHeight);
    float const binWidth = roiWidth / static_cast<float>(p.outputWidth);
    int64_t const gridH = p.samplingRatio > 0 ? p.samplingRatio : adaptiveGrid(binHeight);
    int64_t const gridW = p.samplingRatio > 0 ? p.samplingRatio : adaptiveGrid(binWidth);
    int64_t const count = gridH * gridW > 1 ? gridH * gridW : 1;

    T const* plane = x + (b * p.channels + c) * p.height * p.width;
    auto const extentH = static_cast<float>(p.height);
    auto const extentW = static_cast<float>(p.width);
    float sum = 0.0F;
    float largest = 0.0F;
    bool first = true;
    for (int64_t iy = 0; iy < gridH; ++iy)
    {
        float y = startH + static_cast<float>(ph) * binHeight
            + (static_cast<float>(iy) + 0.5F) * binHeight / static_cast<float>(gridH);
        for (int64_t ix = 0; ix < gridW; ++ix)
        {
            float xx = startW + static_cast<float>(pw) * binWidth
                + (static_cast<float>(ix) + 0.5F) * binWidth / static_cast<float>(gridW);
            float v1 = 0.0F;
            float v2 = 0.0F;
            float v3 = 0.0F;
            float v4 = 0.0F;
            if (!(y < -1.0F || y > extentH || xx < -1.0F || xx > extentW))
            {
                float sy = fmaxf(y, 0.0F);
                float sx = fmaxf(xx, 0.0F);
                auto low = static_cast<int64_t>(sy);
                auto left = static_cast<int64_t>(sx);
                int64_t high = low + 1;
                int64_t right = left + 1;
                if (low >= p.height - 1)
                {
                    low = high = p.height - 1;
                    sy = static_cast<float>(low);
                }
                if (left >= p.width - 1)
                {
                    left = right = p.width - 1;
                    sx = static_cast<float>(left);
                }
                float const ly = sy - static_cast<float>(low);
                float const lx = sx - static_cast<float>(left);
                float const hy = 1.0F - ly;
                float const hx = 1.0F - lx;
                v1 = hy * hx * load(plane[low * p.width + left]);
                v2 = hy * lx * load(plane[low * p.width + right]);
                v3 = ly * hx * load(plane[high * p.width + left]);
                v4 = ly * lx * load(plane[high * p.width + right]);
            }
            if (p.maxMode)
            {
                float const v = fmaxf(fmaxf(v1, v2), fmaxf(v3, v4));
                largest = first ? v : fmaxf(largest, v);
                first = false;
            }
            else
            {
                sum += v1 + v2 + v3 + v4;
            }
        }
    }
    return p.maxMode ? largest : sum / static_cast<float>(count);
}

} // namespace kiln::plugins
