// SPDX-License-Identifier: Apache-2.0
// The arithmetic of ResizeNearest_TRT, shared by its host implementation (resize_nearest.cpp) and its CUDA kernel
// (resize_nearest.cu): the last two axes of X [..., H, W] grow to [int(H * scale), int(W * scale)], and output pixel
// (oy, ox) copies input pixel (int(oy / scale), int(ox / scale)) (float quotients truncated, as TensorRT's kernel
// computes them; kiln holds them to the last row and column, which a rounded quotient could pass).
#pragma once

#include "nms_math.h"

#include <stdint.h>

namespace kiln::plugins
{

//! The extents of one ResizeNearest_TRT run: planes (every axis but the last two, the batch included) of [H, W] to
//! [outH, outW].
struct ResizeNearestParams
{
    float scale{1.0F};
    int64_t planes{};
    int64_t height{};
    int64_t width{};
    int64_t outHeight{};
    int64_t outWidth{};

    KILN_HOST_DEVICE int64_t outputCount() const noexcept { return planes * outHeight * outWidth; }
};

//! The output extent of an axis of extent for scale (TensorRT's int(extent * scale)).
inline int64_t resizeNearestExtent(int64_t extent, float scale) noexcept
{
    return static_cast<int64_t>(static_cast<float>(extent) * scale);
}

//! The input index that output index o of an axis of extent reads.
KILN_HOST_DEVICE inline int64_t resizeNearestSource(int64_t o, float scale, int64_t extent) noexcept
{
    auto const i = static_cast<int64_t>(divRn(static_cast<float>(o), scale));
    return i < extent - 1 ? i : extent - 1;
}

//! The input element that output element index copies.
KILN_HOST_DEVICE inline int64_t resizeNearestInputIndex(ResizeNearestParams const& p, int64_t index) noexcept
{
    int64_t const ox = index % p.outWidth;
    int64_t const oy = (index / p.outWidth) % p.outHeight;
    int64_t const plane = index / (p.outWidth * p.outHeight);
    return (plane * p.height + resizeNearestSource(oy, p.scale, p.height)) * p.width
        + resizeNearestSource(ox, p.scale, p.width);
}

} // namespace kiln::plugins
