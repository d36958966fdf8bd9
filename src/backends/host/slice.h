// SPDX-License-Identifier: Apache-2.0
// Host reference of ISliceLayer: out[y] = in[start + y * stride] per axis, with every SampleMode handling coordinates
// outside the input. The modes are one table, sampleModes(), checked against EnumMax<SampleMode>.
//
//     SliceParams params{Dims{1, {4}}, Dims{1, {3}}, Dims{1, {-2}}, SampleMode::kSTRICT_BOUNDS};  // network/params.h
//     // in [6] = {0..5} gives out [3] = {4, 2, 0}
//     Status const done = runSlice(params, in.tensor(), out.tensor());
//
// The rules (slice.cpp says where each comes from). For a sliced axis, x = start + y * stride (stride may be negative
// or 0) and d the input's extent:
// - The output extent is size. Axes not named by params.axes are copied whole (start 0, size d, stride 1); axes
//   unset means start, size and stride cover every axis in order. Negative axes count from the end.
// - kSTRICT_BOUNDS: x must lie in [0, d) (refused otherwise, naming the axis, coordinate and extent).
// - kWRAP: in[mod(x, d)] (mod toward negative infinity, so the result lies in [0, d)).
// - kCLAMP: in[min(max(x, 0), d - 1)].
// - kFILL: in[x] inside, otherwise the fill value: element 0 of the fill input (one element, converted to the data's
//   type when its type differs), or 0 when there is none.
// - kREFLECT: c = mod(|x|, 2d - 2), z = c >= d ? 2d - 2 - c : c (z = 0 when d == 1).
// - Modes other than kFILL need d >= 1 on an axis whose output extent is not 0.
// - The values TensorRT takes from tensors (start, size, stride inputs 1-3, axes input 5) arrive resolved in params.
#pragma once

#include "backends/host/tensor_view.h"
#include "network/params.h"

#include <span>

namespace kiln::host
{

using nvinfer1::SampleMode;

//! One sample mode: its name and how it maps an out-of-range coordinate (nullptr: kSTRICT_BOUNDS and kFILL, which
//! refuse or fill instead).
struct SampleModeInfo
{
    SampleMode mode;
    char const* name;                          //!< "kWRAP".
    int64_t (*map)(int64_t x, int64_t extent); //!< A coordinate in [0, extent) for any x, extent >= 1.
};

//! Every SampleMode, in enum order.
std::span<SampleModeInfo const> sampleModes() noexcept;

//! The output's type and shape, or the error that refuses the input (unknown mode, operand lengths, axes, sizes).
Expected<TensorDesc> inferSlice(SliceParams const& params, TensorDesc const& in);

//! Slices after checking what inferSlice checks, the output's type and shape, each tensor's data, the fill input
//! (kFILL only; one element) and the bounds in kSTRICT_BOUNDS.
Status runSlice(
    SliceParams const& params, HostTensor const& in, HostTensor const& out, HostTensor const* fill = nullptr);

} // namespace kiln::host
