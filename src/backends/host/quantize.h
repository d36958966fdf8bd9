// SPDX-License-Identifier: Apache-2.0
// Host reference of IQuantizeLayer and IDequantizeLayer (explicit quantization), with scales per tensor, per axis or
// per block (network/layers/quantize.cpp says how a scale's shape maps onto the input):
//
//     QuantizeParams params{1, kUnsetDims, DataType::kINT8};   // per axis 1; network/params.h
//     // in kFLOAT [2, 3], scale kFLOAT [3] gives out kINT8 [2, 3]
//     Status const done = runQuantize(params, in.tensor(), scale.tensor(), nullptr, out.tensor());
//
// The arithmetic, in float as TensorRT and ONNX define it (s the element's scale, z its zero point, 0 when absent):
// - quantize to kINT8 / kINT4: clamp(round-half-even(x / s) + z) to [-128, 127] / [-8, 7]; NaN gives z.
// - quantize to kFP8: E4M3(x / s + z), rounded to nearest even and saturated at +-448 (NaN stays NaN). z is added only
//   when the layer has a zero point (so -0 stays -0 without one).
// - dequantize: (q - z) * s, rounded once to the output type (kFLOAT, kHALF or kBF16).
// The input is kFLOAT, kHALF or kBF16 for quantize (kINT8, kFP8 or kINT4 for dequantize), the scale kFLOAT, kHALF or
// kBF16 of any of the three, the zero point the quantized type. Quantized tensors hold the codes themselves: their
// view's scale is not used (the builder gives Q/DQ tensors scale 1). kINT4 is packed two to a byte
// (core/float_convert.h).
#pragma once

#include "backends/host/tensor_view.h"
#include "network/params.h"

#include <array>

namespace kiln::host
{

//! How the elements of an input select their scale (and zero point): the scale index of the element at coordinates x is
//! the sum over axes i of (x[i] / blocks[i]) * strides[i]. Per tensor every stride is 0; per axis only the axis has
//! stride 1 (blocks of 1); per block the strides are the scale's, row-major.
struct ScaleMap
{
    int32_t rank{0};
    std::array<int64_t, Dims::MAX_DIMS> extents{}; //!< The input's.
    std::array<int64_t, Dims::MAX_DIMS> blocks{};  //!< At least 1.
    std::array<int64_t, Dims::MAX_DIMS> strides{};

    //! The scale index of input element index (row-major).
    int64_t operator()(int64_t index) const noexcept;
};

//! How a scale of shape scale maps onto an input of shape input, for a layer with axis and blockShape: per tensor (0-D
//! scale, or 1-D of one element), per axis (other 1-D scales, unless the input is 1-D and a block shape is set), or per
//! block (the input's rank).
//! The error says why the shapes do not fit.
Expected<ScaleMap> mapScales(Dims const& input, Dims const& scale, int32_t axis, Dims const& blockShape);

//! The types a quantize reads and a dequantize writes, and the types of scales.
inline constexpr TypeSet kQuantizeFloatTypes = kFloatingTypes;
//! The types a quantize writes and a dequantize reads.
inline constexpr TypeSet kQuantizeCodeTypes = typeSet({DataType::kINT8, DataType::kFP8, DataType::kINT4});

//! The output's type and shape. The error refuses a type not taken, a scale that does not map onto the input, or a zero
//! point of another type or shape than the scale's.
Expected<TensorDesc> inferQuantize(
    QuantizeParams const& params, TensorDesc const& in, TensorDesc const& scale, TensorDesc const* zeroPoint);

//! Computes out = quantize(in) after checking what inferQuantize checks, out's type and shape, and each tensor's data.
Status runQuantize(QuantizeParams const& params, HostTensor const& in, HostTensor const& scale,
    HostTensor const* zeroPoint, HostTensor const& out);

//! The output's type and shape, with the refusals of inferQuantize.
Expected<TensorDesc> inferDequantize(
    DequantizeParams const& params, TensorDesc const& in, TensorDesc const& scale, TensorDesc const* zeroPoint);

//! Computes out = dequantize(in) after checking what inferDequantize checks, out's type and shape, and the data.
Status runDequantize(DequantizeParams const& params, HostTensor const& in, HostTensor const& scale,
    HostTensor const* zeroPoint, HostTensor const& out);

} // namespace kiln::host
