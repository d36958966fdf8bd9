// SPDX-License-Identifier: Apache-2.0
// The arithmetic of one spatial axis of a deconvolution, shared by the layer's shape rules (network/layers/
// deconvolution.cpp) and the host kernel (backends/host/deconvolution.cpp), so both resolve padding modes alike.
//
//     DeconvolutionWindow const w{3, 2, 0, 0, 1};            // kernel 3, stride 2, no padding, dilation 1
//     w.extent(4, PaddingMode::kEXPLICIT_ROUND_DOWN);       // (4 - 1) * 2 + 3 = 9
//     w.extent(4, PaddingMode::kSAME_UPPER);                // min(4 * 2, 9) = 8: pre 0, post 1 trimmed
//
// With I the input extent, S the stride, DK = 1 + dilation * (kernel - 1) and B, A the pre- and post-padding, the
// full (untrimmed) output has (I - 1) * S + DK elements; the output is that with B trimmed at the start and A at the
// end. The explicit modes take B and A as given (both round the same: nothing is divided); kSAME_UPPER and
// kSAME_LOWER trim P = max(DK - S, 0) in all, floor(P / 2) at the start (UPPER) or at the end (LOWER), so that the
// output is min(I * S, (I - 1) * S + DK). Either way the output extent is I * S + offset, offset = DK - S - B - A.
#pragma once

#include "NvInfer.h"

#include <algorithm>
#include <cstdint>

namespace kiln
{

//! One spatial axis of a deconvolution.
struct DeconvolutionWindow
{
    int64_t kernel{1};
    int64_t stride{1};
    int64_t pre{};  //!< Explicit pre-padding (ignored by the SAME modes).
    int64_t post{}; //!< Explicit post-padding (ignored by the SAME modes).
    int64_t dilation{1};

    //! Why the axis is unusable (a kernel, stride or dilation below 1, a negative padding), or nullptr.
    constexpr char const* problem() const noexcept
    {
        if (kernel < 1)
        {
            return "the kernel extent is below 1";
        }
        if (stride < 1)
        {
            return "the stride is below 1";
        }
        if (dilation < 1)
        {
            return "the dilation is below 1";
        }
        if (pre < 0 || post < 0)
        {
            return "a padding is negative";
        }
        return nullptr;
    }

    //! 1 + dilation * (kernel - 1): how far one input element's kernel reaches.
    constexpr int64_t span() const noexcept { return 1 + dilation * (kernel - 1); }

    //! The padding trimmed at the start under mode.
    constexpr int64_t resolvedPre(nvinfer1::PaddingMode mode) const noexcept
    {
        if (!isSame(mode))
        {
            return pre;
        }
        int64_t const total = samePadding();
        return mode == nvinfer1::PaddingMode::kSAME_UPPER ? total / 2 : total - total / 2;
    }

    //! The padding trimmed at the end under mode.
    constexpr int64_t resolvedPost(nvinfer1::PaddingMode mode) const noexcept
    {
        return isSame(mode) ? samePadding() - resolvedPre(mode) : post;
    }

    //! The output extent minus input extent * stride under mode.
    constexpr int64_t offset(nvinfer1::PaddingMode mode) const noexcept
    {
        return span() - stride - resolvedPre(mode) - resolvedPost(mode);
    }

    //! The output extent for an input extent under mode (may be below 1 when the padding trims the whole axis).
    constexpr int64_t extent(int64_t input, nvinfer1::PaddingMode mode) const noexcept
    {
        return input * stride + offset(mode);
    }

private:
    static constexpr bool isSame(nvinfer1::PaddingMode mode) noexcept
    {
        return mode == nvinfer1::PaddingMode::kSAME_UPPER || mode == nvinfer1::PaddingMode::kSAME_LOWER;
    }
    constexpr int64_t samePadding() const noexcept { return std::max<int64_t>(span() - stride, 0); }
};

//! One spatial extent of a deconvolution's output for the network's static shapes: -1 when input is -1 or the axis
//! is unusable, 0 when the padding trims the whole axis (the shape rule then reports it).
constexpr int64_t deconvolutionOutputExtent(int64_t input, int64_t kernel, int64_t stride, int64_t prePadding,
    int64_t postPadding, int64_t dilation, nvinfer1::PaddingMode mode) noexcept
{
    DeconvolutionWindow const window{kernel, stride, prePadding, postPadding, dilation};
    if (input < 0 || window.problem() != nullptr)
    {
        return -1;
    }
    return std::max<int64_t>(window.extent(input, mode), 0);
}

} // namespace kiln
