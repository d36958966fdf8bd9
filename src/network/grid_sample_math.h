// SPDX-License-Identifier: Apache-2.0
// The arithmetic of IGridSampleLayer, shared by the host reference kernel (backends/host/grid_sample.cpp) and the CUDA
// kernel (backends/cuda/grid_sample.cu). Coordinates are computed in double on both sides with the same operations
// (no multiply-add fusion), so both read the same elements; weights are computed in T (double on the host, float on
// the device).
//
//     GridAxis const w = gridAxis(4, false);                                   // low -0.5, high 3.5
//     double const c = gridSourceCoordinate(0.25, w, false, kLINEAR, kFILL);    // ((0.25 + 1) * 4 - 1) / 2 = 2
//     GridTaps<double> const taps = gridTaps<double>(c, w, kLINEAR, kFILL);   // indices 2, 3; weights 1, 0
//
// The rules: ONNX's GridSample (onnx.ai, GridSample-16 and -20, and its reference implementation), which follows
// PyTorch's grid_sample. For one axis of extent d and a normalized grid value n:
// - The coordinate: with align corners (n + 1) / 2 * (d - 1), else ((n + 1) * d - 1) / 2. kNEAREST rounds it to the
//   nearest integer, ties to even.
// - The inside range is [low, high]: [0, d - 1] with align corners, else [-0.5, d - 0.5]. A coordinate outside it is
//   clamped to [0, d - 1] (kCLAMP) or reflected into it (kREFLECT: mirrored at low and high, repeatedly); kFILL leaves
//   it.
// - kNEAREST reads the element at the coordinate (truncated), kLINEAR those at f = floor(c) and f + 1 with weights
//   1 - t and t (t = c - f), kCUBIC those at f - 1 .. f + 2 with the cubic convolution weights of coefficient -0.75.
// - Each element index read is then mapped by the mode: kFILL reads 0 outside [0, d); kCLAMP clamps the index to
//   [0, d - 1]; kREFLECT reflects it into [low, high] and truncates.
// - The 2-D value sums, over the rows read, the row's weight times the weighted sum of the row's elements read.
// Chosen by kiln: a coordinate beyond ±2^40 (or NaN) is taken as ±2^40 (NaN as -2^40), so that every conversion to an
// integer is defined; an axis of extent 0 reads 0 everywhere.
#pragma once

#include "core/integer_math.h"
#include "network/resize_math.h"

#include "NvInfer.h"

#include <math.h>

#include <cstdint>

namespace kiln
{

//! One spatial axis of the input as sampling sees it.
struct GridAxis
{
    int64_t extent{0};
    double low{0.0};  //!< The lowest coordinate inside: 0 with align corners, else -0.5.
    double high{0.0}; //!< The highest: extent - 1 with align corners, else extent - 0.5.
};

//! The axis of extent extent (>= 0).
KILN_HOST_DEVICE inline GridAxis gridAxis(int64_t extent, bool alignCorners) noexcept
{
    auto const d = static_cast<double>(extent);
    return alignCorners ? GridAxis{extent, 0.0, d - 1.0} : GridAxis{extent, -0.5, d - 0.5};
}

//! The furthest a coordinate goes from 0 (kiln's bound; see the file comment).
inline constexpr double kGridFar = 1099511627776.0; // 2^40

//! a * b rounded once, never fused into a multiply-add.
KILN_HOST_DEVICE inline double gridProduct(double a, double b) noexcept
{
#if defined(__CUDA_ARCH__)
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}

//! x reflected into [low, high] (ONNX's reference: by the nearer edge, repeatedly); low when the range is empty.
KILN_HOST_DEVICE inline double gridReflect(double x, double low, double high) noexcept
{
    double const range = high - low;
    if (!(range > 0.0))
    {
        return low;
    }
    if (x < low)
    {
        double const distance = low - x;
        double const laps = trunc(distance / range);
        double const rest = distance - gridProduct(laps, range);
        return fmod(laps, 2.0) == 0.0 ? low + rest : high - rest;
    }
    if (x > high)
    {
        double const distance = x - high;
        double const laps = trunc(distance / range);
        double const rest = distance - gridProduct(laps, range);
        return fmod(laps, 2.0) == 0.0 ? high - rest : low + rest;
    }
    return x;
}

//! The coordinate on axis that normalized grid value n reads, after kNEAREST's rounding and the clamp or reflection
//! of a coordinate outside the inside range.
KILN_HOST_DEVICE inline double gridSourceCoordinate(double n, GridAxis const& axis, bool alignCorners,
    nvinfer1::InterpolationMode mode, nvinfer1::SampleMode sampleMode) noexcept
{
    auto const d = static_cast<double>(axis.extent);
    double c = alignCorners ? gridProduct((n + 1.0) / 2.0, d - 1.0) : (gridProduct(n + 1.0, d) - 1.0) / 2.0;
    if (!(c >= -kGridFar))
    {
        c = -kGridFar;
    }
    else if (c > kGridFar)
    {
        c = kGridFar;
    }
    if (mode == nvinfer1::InterpolationMode::kNEAREST)
    {
        c = rint(c);
    }
    if (c < axis.low || c > axis.high)
    {
        if (sampleMode == nvinfer1::SampleMode::kCLAMP)
        {
            c = c < 0.0 ? 0.0 : (c > d - 1.0 ? d - 1.0 : c);
        }
        else if (sampleMode == nvinfer1::SampleMode::kREFLECT)
        {
            c = gridReflect(c, axis.low, axis.high);
        }
    }
    return c;
}

//! The element index that integer position i of axis reads under sampleMode, or -1 for a zero (kFILL outside, or an
//! axis of extent 0).
KILN_HOST_DEVICE inline int64_t gridTapIndex(int64_t i, GridAxis const& axis, nvinfer1::SampleMode sampleMode) noexcept
{
    if (axis.extent <= 0)
    {
        return -1;
    }
    if (sampleMode == nvinfer1::SampleMode::kCLAMP)
    {
        return i < 0 ? 0 : (i >= axis.extent ? axis.extent - 1 : i);
    }
    if (sampleMode == nvinfer1::SampleMode::kREFLECT)
    {
        auto const r = static_cast<int64_t>(gridReflect(static_cast<double>(i), axis.low, axis.high));
        return r < 0 ? 0 : (r >= axis.extent ? axis.extent - 1 : r);
    }
    return i >= 0 && i < axis.extent ? i : -1;
}

//! The elements one coordinate of an axis reads: up to 4 indices (-1: a zero) and their weights.
template <typename T>
struct GridTaps
{
    int32_t count{1};
    int64_t index[4]{};
    T weight[4]{};
};

//! The taps of coordinate c (from gridSourceCoordinate) on axis.
template <typename T>
KILN_HOST_DEVICE inline GridTaps<T> gridTaps(
    double c, GridAxis const& axis, nvinfer1::InterpolationMode mode, nvinfer1::SampleMode sampleMode) noexcept
{
    GridTaps<T> taps;
    if (mode == nvinfer1::InterpolationMode::kNEAREST)
    {
        taps.count = 1;
        taps.index[0] = gridTapIndex(static_cast<int64_t>(c), axis, sampleMode);
        taps.weight[0] = T(1);
        return taps;
    }
    double const below = floor(c);
    auto const t = static_cast<T>(c - below);
    auto const base = static_cast<int64_t>(below);
    if (mode == nvinfer1::InterpolationMode::kLINEAR)
    {
        taps.count = 2;
        taps.index[0] = gridTapIndex(base, axis, sampleMode);
        taps.index[1] = gridTapIndex(base + 1, axis, sampleMode);
        taps.weight[0] = T(1) - t;
        taps.weight[1] = t;
        return taps;
    }
    T const a = T(-0.75);
    taps.count = 4;
    for (int32_t k = 0; k < 4; ++k)
    {
        taps.index[k] = gridTapIndex(base - 1 + k, axis, sampleMode);
    }
    taps.weight[0] = cubicResizeWeight<T>(T(1) + t, a);
    taps.weight[1] = cubicResizeWeight<T>(t, a);
    taps.weight[2] = cubicResizeWeight<T>(T(1) - t, a);
    taps.weight[3] = cubicResizeWeight<T>(T(2) - t, a);
    return taps;
}

//! One output value: over the rows read (rows), the row's weight times the weighted sum of the row's elements read
//! (columns); load(row, column) reads an element of the plane. Taps of index -1 add nothing.
template <typename T, typename Load>
KILN_HOST_DEVICE inline T gridSampleValue(GridTaps<T> const& rows, GridTaps<T> const& columns, Load const& load)
{
    T sum = T(0);
    for (int32_t r = 0; r < rows.count; ++r)
    {
        if (rows.index[r] < 0)
        {
            continue;
        }
        T row = T(0);
        for (int32_t k = 0; k < columns.count; ++k)
        {
            if (columns.index[k] >= 0)
            {
                row += columns.weight[k] * load(rows.index[r], columns.index[k]);
            }
        }
        sum += rows.weight[r] * row;
    }
    return sum;
}

} // namespace kiln
