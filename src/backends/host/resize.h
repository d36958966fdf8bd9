// SPDX-License-Identifier: Apache-2.0
// Host reference of IResizeLayer: each output element is a weighted sum of the input elements its coordinates read,
// axis by axis, in double (kNEAREST copies the element's bytes). network/resize_math.h has the arithmetic the CUDA
// kernel shares: source coordinates, nearest rounding, the linear and cubic taps.
//
//     ResizeParams params;                           // network/params.h
//     params.mode = InterpolationMode::kLINEAR;
//     params.transformation = ResizeCoordinateTransformation::kHALF_PIXEL;
//     params.scales = {1.F, 1.F, 2.F, 2.F};
//     Status const done = runResize(params, in.tensor(), out.tensor());   // in [1, 3, 4, 4], out [1, 3, 8, 8]
//
// The rules (resize.cpp says where each comes from):
// - The output shape: params.outputDims when set (rank >= 0; the dispatch puts input 1's values there), else
//   floor(extent * scale) per axis with params.scales, else the input's. One extent or scale per input axis.
// - An output extent above 0 needs an input extent above 0 on that axis.
// - Types: kNEAREST moves any host type (bytes copied; the output has the input's type); kLINEAR and kCUBIC take
//   kFLOAT, kHALF, kBF16 and kINT8 (scaled; the output's scale may differ).
#pragma once

#include "backends/host/tensor_view.h"
#include "network/params.h"

#include <string>

namespace kiln::host
{

//! The types kLINEAR and kCUBIC interpolate.
inline constexpr TypeSet kResizeInterpolatedTypes
    = typeSet({DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8});

//! The name of mode ("kLINEAR"), or nullptr outside the enum.
char const* interpolationModeName(nvinfer1::InterpolationMode mode) noexcept;

//! How messages name the kernel: "resize kLINEAR" ("resize" for a mode outside the enum).
std::string resizeKernelName(ResizeParams const& params);

//! The scale that divides the output coordinates of axis: params.scales' when they give the output shape, else 0 (the
//! extents give the ratio).
float resizeAxisScale(ResizeParams const& params, int32_t axis) noexcept;

//! The output's type and shape, or the error that refuses the input: an enum value out of range, a cubic coefficient
//! that is not finite, a type the mode does not take, output dimensions or scales of another rank than the input,
//! a scale that is not positive and finite, an output extent drawn from an empty axis.
Expected<TensorDesc> inferResize(ResizeParams const& params, TensorDesc const& in);

//! Resizes after checking what inferResize checks, the output's type and shape, and each tensor's data and scale.
Status runResize(ResizeParams const& params, HostTensor const& in, HostTensor const& out);

} // namespace kiln::host
