// SPDX-License-Identifier: Apache-2.0
// The arithmetic of IResizeLayer, shared by its shape rule (network/layers/resize.cpp), the host reference kernel
// (backends/host/resize.cpp) and the CUDA kernel (backends/cuda/resize.cu). The functions marked KILN_HOST_DEVICE are
// compiled for both sides, so the host and the device compute the same source coordinates and the same nearest
// indices, bit for bit (in double on both; no operation below can be fused into a multiply-add).
//
//     std::optional<int64_t> const out = resizedExtent(5, 0.6F);     // floor(5 * 0.6f) == 3, exactly
//     double const c = resizeSourceCoordinate(2, 5, 3, 0.6F, ResizeCoordinateTransformation::kHALF_PIXEL,
//         ResizeSelector::kFORMULA);                                  // (2 + 0.5) / 0.6f - 0.5
//     int64_t const i = resizeNearestIndex(c, ResizeRoundMode::kHALF_DOWN, 5);   // rounded, within [0, 5)
//
// The rules. For an axis of input extent `in` and output extent `out`, output coordinate x reads source coordinate c:
// - kALIGN_CORNERS: c = x * (in - 1) / (out - 1) (with scales: / (in * scale - 1)), and 0 when out is 1.
// - kASYMMETRIC: c = x / scale with scales, else x * in / out.
// - kHALF_PIXEL: c = (x + 0.5) / scale - 0.5 with scales, else (x + 0.5) * in / out - 0.5.
// - kUPPER selector: c = 0 on an axis whose output extent is 1 (kFORMULA keeps the formula).
// With scales, the resized length is in * scale before flooring (as ONNX's Resize defines it), not out: the two
// differ unless in * scale is an integer.
// - kNEAREST reads index round(c) (kHALF_UP, kHALF_DOWN, kFLOOR or kCEIL), clamped to [0, in - 1].
// - kLINEAR reads indices f = floor(c) and f + 1 with weights 1 - t and t (t = c - f); kCUBIC reads f - 1 .. f + 2
//   with the weights of the cubic convolution kernel of coefficient A at distances 1 + t, t, 1 - t, 2 - t. Indices
//   outside the input read the edge (clamped); with exclude-outside they weigh 0 and the other weights are scaled to
//   sum to 1.
// - An axis whose output equals its input (same extent, scale 1 or none) is copied; an axis of input extent 1 reads
//   index 0 with weight 1.
#pragma once

#include "core/integer_math.h"

#include "NvInfer.h"

#include <math.h>

#include <cstdint>
#include <optional>

namespace kiln
{

//! floor(in * scale), exactly (scale a positive finite float, in >= 0), or nullopt when it exceeds int64_t.
std::optional<int64_t> resizedExtent(int64_t in, float scale) noexcept;

//! A positive finite float as numerator * 2^-shift, numerator odd unless shift is 0 (or the float an integer).
struct ExactScale
{
    int64_t numerator{};
    int32_t shift{}; //!< May be negative: numerator * 2^-shift is then an integer.
};

//! scale (positive, finite) as an exact binary fraction.
ExactScale exactScale(float scale) noexcept;

//! a * b rounded once: never fused with a following addition into a multiply-add (the host does not fuse).
KILN_HOST_DEVICE inline double resizeProduct(double a, double b) noexcept
{
#if defined(__CUDA_ARCH__)
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}

//! The source coordinate of output coordinate x on an axis (see the file comment). scale: the axis' scale, or 0 when
//! the layer has none (the extents then give the ratio).
KILN_HOST_DEVICE inline double resizeSourceCoordinate(int64_t x, int64_t in, int64_t out, float scale,
    nvinfer1::ResizeCoordinateTransformation transformation, nvinfer1::ResizeSelector selector) noexcept
{
    using nvinfer1::ResizeCoordinateTransformation;
    if (out == 1 && selector == nvinfer1::ResizeSelector::kUPPER)
    {
        return 0.0;
    }
    auto const position = static_cast<double>(x);
    switch (transformation)
    {
    case ResizeCoordinateTransformation::kALIGN_CORNERS:
    {
        if (out <= 1)
        {
            return 0.0;
        }
        // With scales the resized length is in * scale, before flooring.
        double const span = scale > 0.F ? resizeProduct(static_cast<double>(in), static_cast<double>(scale)) - 1.0
                                        : static_cast<double>(out - 1);
        return position * static_cast<double>(in - 1) / span;
    }
    case ResizeCoordinateTransformation::kASYMMETRIC:
        return scale > 0.F ? position / static_cast<double>(scale)
                           : position * static_cast<double>(in) / static_cast<double>(out);
    case ResizeCoordinateTransformation::kHALF_PIXEL:
    default:
    {
        double const center = position + 0.5;
        double const source = scale > 0.F ? center / static_cast<double>(scale)
                                          : center * static_cast<double>(in) / static_cast<double>(out);
        return source - 0.5;
    }
    }
}

//! index limited to [0, in - 1] (in >= 1).
KILN_HOST_DEVICE inline int64_t clampResizeIndex(int64_t index, int64_t in) noexcept
{
    return index < 0 ? 0 : (index >= in ? in - 1 : index);
}

//! The index kNEAREST reads at source coordinate c: rounded as mode says, clamped to [0, in - 1] (in >= 1).
KILN_HOST_DEVICE inline int64_t resizeNearestIndex(double c, nvinfer1::ResizeRoundMode mode, int64_t in) noexcept
{
    using nvinfer1::ResizeRoundMode;
    // Beyond the extent in either direction the clamp decides; this also keeps the conversions below in range.
    if (!(c > -1.0))
    {
        return 0;
    }
    if (c >= static_cast<double>(in))
    {
        return in - 1;
    }
    double const below = floor(c);
    double const fraction = c - below; // Exact: |c| is small.
    auto index = static_cast<int64_t>(below);
    switch (mode)
    {
    case ResizeRoundMode::kHALF_UP: index += fraction >= 0.5 ? 1 : 0; break;
    case ResizeRoundMode::kHALF_DOWN: index += fraction > 0.5 ? 1 : 0; break;
    case ResizeRoundMode::kCEIL: index += fraction > 0.0 ? 1 : 0; break;
    case ResizeRoundMode::kFLOOR:
    default: break;
    }
    return clampResizeIndex(index, in);
}

//! The cubic convolution kernel of coefficient a at distance d >= 0.
template <typename T>
KILN_HOST_DEVICE inline T cubicResizeWeight(T d, T a) noexcept
{
    if (d <= T(1))
    {
        return ((a + T(2)) * d - (a + T(3))) * d * d + T(1);
    }
    if (d < T(2))
    {
        return ((a * d - T(5) * a) * d + T(8) * a) * d - T(4) * a;
    }
    return T(0);
}

//! The input elements one output coordinate of an axis reads, and their weights.
template <typename T>
struct ResizeTaps
{
    int32_t count{1};
    int64_t index[4]{};
    T weight[4]{T(1)};
};

//! What an axis of a resize does (see the file comment).
enum class ResizeAxisKind : int32_t
{
    kCOPY,        //!< Output coordinate x reads input coordinate x.
    kBROADCAST,   //!< Input extent 1: every output coordinate reads index 0.
    kINTERPOLATE, //!< Source coordinates, then taps.
};

//! The kind of an axis of input extent in, output extent out and scale (0: none).
KILN_HOST_DEVICE inline ResizeAxisKind resizeAxisKind(int64_t in, int64_t out, float scale) noexcept
{
    if (in == out && (scale == 0.F || scale == 1.F))
    {
        return ResizeAxisKind::kCOPY;
    }
    return in == 1 ? ResizeAxisKind::kBROADCAST : ResizeAxisKind::kINTERPOLATE;
}

//! The taps of source coordinate c on an axis of input extent in >= 1, for an interpolating mode. Weights are computed
//! in T from the fraction of c.
template <typename T>
KILN_HOST_DEVICE inline ResizeTaps<T> resizeTaps(double c, int64_t in, nvinfer1::InterpolationMode mode,
    nvinfer1::ResizeRoundMode rounding, T cubicCoeff, bool excludeOutside) noexcept
{
    ResizeTaps<T> taps;
    if (mode == nvinfer1::InterpolationMode::kNEAREST)
    {
        taps.count = 1;
        taps.index[0] = resizeNearestIndex(c, rounding, in);
        taps.weight[0] = T(1);
        return taps;
    }
    double const below = floor(c);
    auto const t = static_cast<T>(c - below);
    auto const base = static_cast<int64_t>(below);
    int64_t first = base;
    if (mode == nvinfer1::InterpolationMode::kLINEAR)
    {
        taps.count = 2;
        taps.weight[0] = T(1) - t;
        taps.weight[1] = t;
    }
    else
    {
        taps.count = 4;
        first = base - 1;
        taps.weight[0] = cubicResizeWeight<T>(T(1) + t, cubicCoeff);
        taps.weight[1] = cubicResizeWeight<T>(t, cubicCoeff);
        taps.weight[2] = cubicResizeWeight<T>(T(1) - t, cubicCoeff);
        taps.weight[3] = cubicResizeWeight<T>(T(2) - t, cubicCoeff);
    }
    T inside = T(0);
    for (int32_t k = 0; k < taps.count; ++k)
    {
        int64_t const index = first + k;
        if (index >= 0 && index < in)
        {
            inside += taps.weight[k];
        }
    }
    bool const renormalize = excludeOutside && inside != T(0);
    for (int32_t k = 0; k < taps.count; ++k)
    {
        int64_t const index = first + k;
        if (renormalize)
        {
            taps.weight[k] = index >= 0 && index < in ? taps.weight[k] / inside : T(0);
        }
        taps.index[k] = clampResizeIndex(index, in);
    }
    return taps;
}

} // namespace kiln
