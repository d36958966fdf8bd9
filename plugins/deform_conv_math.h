// SPDX-License-Identifier: Apache-2.0
// The arithmetic of ModulatedDeformConv2d, shared by its host implementation (deform_conv.cpp) and its CUDA kernel
// (deform_conv.cu): one output element of a modulated deformable 2-D convolution, computed in float on both sides.
//
// The rules are ONNX's DeformConv (opset 19, and ONNX's reference implementation), which are torchvision's
// deform_conv2d: for output (n, o, y, x), with g the group of o and, for each input channel c of g, d the offset group
// of c (c / (C / deformable_group)),
//   Y = bias[o] + sum over c, kh, kw of W[o, c - g * C / group, kh, kw] * mask[n, d, kh, kw, y, x]
//       * X[n, c](y * stride_h - pad_h + kh * dilation_h + offset[n, d, kh, kw, 0, y, x],
//                 x * stride_w - pad_w + kw * dilation_w + offset[n, d, kh, kw, 1, y, x])
// where offset is [N, deformable_group * kH * kW * 2, oH, oW] seen as [N, d, kH, kW, (y, x), oH, oW] and mask
// [N, deformable_group * kH * kW, oH, oW]. X is read bilinearly at the fractional position, each of the four
// neighbours outside the image reading 0 (a position at or beyond -1 or the extent reads 0).
#pragma once

#include "core/integer_math.h"

#include <math.h>

#include <cstdint>

namespace kiln::plugins
{

//! The attributes of one ModulatedDeformConv2d plugin and the extents of one run (stride, padding and dilation as
//! [height, width]).
struct DeformConvParams
{
    int32_t strideH{1};
    int32_t strideW{1};
    int32_t padH{0};
    int32_t padW{0};
    int32_t dilationH{1};
    int32_t dilationW{1};
    int32_t group{1};
    int32_t deformableGroup{1};
    int64_t batch{}; //!< X [N, C, H, W], W [O, C / group, kH, kW], Y [N, O, oH, oW].
    int64_t channels{};
    int64_t height{};
    int64_t width{};
    int64_t outChannels{};
    int64_t kernelH{};
    int64_t kernelW{};
    int64_t outHeight{};
    int64_t outWidth{};
    bool hasBias{false};

    //! Elements of the output.
    KILN_HOST_DEVICE int64_t outputCount() const noexcept { return batch * outChannels * outHeight * outWidth; }
};

//! plane [height, width] read bilinearly at (y, x), neighbours outside the plane reading 0.
template <typename T, typename Load>
KILN_HOST_DEVICE float deformSample(T const* plane, int64_t height, int64_t width, float y, float x, Load load) noexcept
{
    if (!(y > -1.0F && y < static_cast<float>(height) && x > -1.0F && x < static_cast<float>(width)))
    {
        return 0.0F;
    }
    auto const top = static_cast<int64_t>(floorf(y));
    auto const left = static_cast<int64_t>(floorf(x));
    float const ly = y - static_cast<float>(top);
    float const lx = x - static_cast<float>(left);
    auto at = [&](int64_t row, int64_t column) {
        return row >= 0 && row < height && column >= 0 && column < width ? load(plane[row * width + column]) : 0.0F;
    };
    return (1.0F - ly) * (1.0F - lx) * at(top, left) + (1.0F - ly) * lx * at(top, left + 1)
        + ly * (1.0F - lx) * at(top + 1, left) + ly * lx * at(top + 1, left + 1);
}

//! The output element at index of Y [N, O, oH, oW]; bias may be null when !hasBias; load(T) gives a float.
template <typename T, typename Load>
KILN_HOST_DEVICE float deformConvValue(DeformConvParams const& p, T const* x, T const* offset, T const* mask,
    T const* weight, T const* bias, int64_t index, Load load) noexcept
{
    int64_t const ox = index % p.outWidth;
    int64_t const oy = index / p.outWidth % p.outHeight;
    int64_t const o = index / (p.outWidth * p.outHeight) % p.outChannels;
    int64_t const n = index / (p.outWidth * p.outHeight * p.outChannels);
    int64_t const groupChannels = p.channels / p.group;
    int64_t const g = o / (p.outChannels / p.group);
    int64_t const offsetGroupChannels = p.channels / p.deformableGroup;
    int64_t const taps = p.kernelH * p.kernelW;
    int64_t const outPlane = p.outHeight * p.outWidth;
    int64_t const at = oy * p.outWidth + ox;
    float sum = p.hasBias ? load(bias[o]) : 0.0F;
    for (int64_t local = 0; local < groupChannels; ++local)
    {
        int64_t const c = g * groupChannels + local;
        int64_t const d = c / offsetGroupChannels;
        T const* plane = x + (n * p.channels + c) * p.height * p.width;
        T const* offsets = offset + (n * p.deformableGroup + d) * taps * 2 * outPlane + at;
        T const* masks = mask + (n * p.deformableGroup + d) * taps * outPlane + at;
        T const* weights = weight + (o * groupChannels + local) * taps;
        for (int64_t kh = 0; kh < p.kernelH; ++kh)
        {
            for (int64_t kw = 0; kw < p.kernelW; ++kw)
            {
                int64_t const k = kh * p.kernelW + kw;
                float const y = static_cast<float>(oy * p.strideH - p.padH + kh * p.dilationH)
                    + load(offsets[(2 * k) * outPlane]);
                float const xx = static_cast<float>(ox * p.strideW - p.padW + kw * p.dilationW)
                    + load(offsets[(2 * k + 1) * outPlane]);
                float const v = deformSample(plane, p.height, p.width, y, xx, load);
                sum += load(weights[k]) * load(masks[k * outPlane]) * v;
            }
        }
    }
    return sum;
}

} // namespace kiln::plugins
