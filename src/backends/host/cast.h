// SPDX-License-Identifier: Apache-2.0
// Host reference of ICastLayer: out = in converted to another element type. Which conversions exist is one table,
// castRules(), one row per DataType, that the kernel, the support check and the tests all read.
//
//     HostBuffer in(DataType::kFLOAT, Dims{1, {3}}), out(DataType::kINT32, Dims{1, {3}});
//     Status const done = runCast({DataType::kINT32}, in.tensor(), out.tensor());   // 2.7 -> 2, -2.7 -> -2
//
// The conversions (cast.cpp says where each was established):
// - Between kFLOAT, kHALF, kBF16, kINT8, kINT32, kINT64, kBOOL and kFP8 (kiln's extension): every pair. kUINT8
//   converts only to and from kFLOAT and kHALF. kINT4, kFP4 and kE8M0 are refused (they go through quantize and
//   dequantize layers).
// - Floating to floating: rounded once, to nearest even; overflow gives infinity (kHALF, kBF16, kFLOAT) or
//   saturates (kFP8); NaN stays NaN.
// - Floating to integer: truncated toward zero, saturated to the type's range, NaN to 0 (3.9 -> 3, -3.9 -> -3,
//   +inf -> INT32_MAX, 300.0 -> 255 for kUINT8).
// - Integer to integer: kINT64 to kINT32 keeps the low 32 bits (two's complement wrap-around).
// - Integer to floating: rounded once, to nearest even (2^24 + 1 -> 16777216.0f).
// - To kBOOL: x != 0 (NaN is true, -0 false). From kBOOL: 0 or 1.
// - kINT8 and kFP8 are scaled: a kINT8 or kFP8 input is dequantized with its scale first; a kINT8 or kFP8 output
//   quantizes with its scale (kINT8 rounds half to even and saturates to [-128, 127]; 2.5 -> 2 at scale 1).
#pragma once

#include "backends/host/tensor_view.h"

#include <span>

namespace kiln::host
{

//! The parameters of a cast kernel: the output type.
struct CastParams
{
    DataType toType{DataType::kFLOAT};
};

//! The conversions from one type: the types it casts to (itself included when it casts at all).
struct CastRule
{
    DataType from;
    TypeSet to;
};

//! One row per DataType, in enum order.
std::span<CastRule const> castRules() noexcept;

//! Whether the host backend casts from to to.
bool castSupported(DataType from, DataType to) noexcept;

//! The output's type and shape for input in, or the error that refuses the conversion.
Expected<TensorDesc> inferCast(CastParams const& params, TensorDesc const& in);

//! Computes out = cast(in) after checking what inferCast checks, that out has the inferred type and in's shape, and
//! each tensor's data and scale. out may be in when both have the same element size.
Status runCast(CastParams const& params, HostTensor const& in, HostTensor const& out);

} // namespace kiln::host
