// SPDX-License-Identifier: Apache-2.0
// The arithmetic of CropAndResizeDynamic, shared by its host implementation (crop_and_resize.cpp) and its CUDA kernel
// (crop_and_resize.cu): one output element of [N, R, C, crop_height, crop_width] from the feature maps X [N, C, H, W]
// and the boxes rois [N, R, 4] (normalized [y1, x1, y2, x2]), TensorFlow's crop_and_resize as TensorRT's kernel
// computes it (extrapolation value 0):
// - along each axis the output's sample i reads y1 * (H - 1) + i * (y2 - y1) * (H - 1) / (crop_height - 1), or the
//   box's centre (y1 + y2) / 2 * (H - 1) when crop_height is 1;
// - a sample outside [0, H - 1] (or [0, W - 1]) is 0; inside, X is read bilinearly between the pixels around it.
// Computed in float on both sides with the same operations (nms_math.h's explicitly rounded ones).
#pragma once

#include "nms_math.h"

#include <math.h>
#include <stdint.h>

namespace kiln::plugins
{

//! The attributes of one CropAndResizeDynamic plugin and the extents of one run.
struct CropAndResizeParams
{
    int32_t cropWidth{1};
    int32_t cropHeight{1};
    int64_t batch{};    //!< N
    int64_t channels{}; //!< C
    int64_t height{};   //!< H
    int64_t width{};    //!< W
    int64_t boxes{};    //!< R, per image

    //! Elements of the output [N, R, C, crop_height, crop_width].
    KILN_HOST_DEVICE int64_t outputCount() const noexcept { return batch * boxes * channels * cropHeight * cropWidth; }
};

//! The input coordinate of output sample i along an axis of extent (H or W) for box edges lo and hi and crop size.
KILN_HOST_DEVICE inline float cropCoordinate(float lo, float hi, int64_t extent, int32_t crop, int64_t i) noexcept
{
    auto const last = static_cast<float>(extent - 1);
    if (crop <= 1)
    {
        return mulRn(mulRn(0.5F, addRn(lo, hi)), last);
    }
    float const scale = divRn(mulRn(subRn(hi, lo), last), static_cast<float>(crop - 1));
    return addRn(mulRn(lo, last), mulRn(static_cast<float>(i), scale));
}

//! Output element index of [N, R, C, crop_height, crop_width], from x and rois of element type T read through load.
template <typename T, typename Load>
KILN_HOST_DEVICE float cropAndResizeValue(
    CropAndResizeParams const& p, T const* x, T const* rois, int64_t index, Load load) noexcept
{
    int64_t const ox = index % p.cropWidth;
    int64_t const oy = (index / p.cropWidth) % p.cropHeight;
    int64_t const c = (index / (static_cast<int64_t>(p.cropWidth) * p.cropHeight)) % p.channels;
    int64_t const box = index / (static_cast<int64_t>(p.cropWidth) * p.cropHeight * p.channels); // n * R + r
    int64_t const image = box / p.boxes;
    T const* r = rois + box * 4;
    float const inY = cropCoordinate(load(r[0]), load(r[2]), p.height, p.cropHeight, oy);
    if (!(inY >= 0.0F && inY <= static_cast<float>(p.height - 1)))
    {
        return 0.0F;
    }
    float const inX = cropCoordinate(load(r[1]), load(r[3]), p.width, p.cropWidth, ox);
    if (!(inX >= 0.0F && inX <= static_cast<float>(p.width - 1)))
    {
        return 0.0F;
    }
    auto const top = static_cast<int64_t>(floorf(inY));
    auto const bottom = static_cast<int64_t>(ceilf(inY));
    auto const left = static_cast<int64_t>(floorf(inX));
    auto const right = static_cast<int64_t>(ceilf(inX));
    float const yLerp = subRn(inY, static_cast<float>(top));
    float const xLerp = subRn(inX, static_cast<float>(left));
    T const* plane = x + (image * p.channels + c) * p.height * p.width;
    float const topLeft = load(plane[top * p.width + left]);
    float const topRight = load(plane[top * p.width + right]);
    float const bottomLeft = load(plane[bottom * p.width + left]);
    float const bottomRight = load(plane[bottom * p.width + right]);
    float const upper = addRn(topLeft, mulRn(subRn(topRight, topLeft), xLerp));
    float const lower = addRn(bottomLeft, mulRn(subRn(bottomRight, bottomLeft), xLerp));
    return addRn(upper, mulRn(subRn(lower, upper), yLerp));
}

} // namespace kiln::plugins
