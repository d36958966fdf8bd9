// SPDX-License-Identifier: Apache-2.0
// Building blocks of the shape and data-movement importers: parse-time folding of weights (reshape, transpose,
// cast, element remapping), shapes as values (weights when static, shape tensors otherwise), reshapes described
// extent by extent, and broadcasting through stride-0 slices.
//
//     Value shape = shapeValue(ctx, node.input(0));                 // INT64 weights when every extent is known
//     Value y = reshapeValue(ctx, x, {DimPart::copy(0), DimPart::fixed(-1)});   // [d0, -1]
//     ITensor& ones = broadcastTo(ctx, scalarConstant(ctx, 1, DataType::kFLOAT, 2), shape);
#pragma once

#include "onnx/importers/helpers.h"

#include <array>
#include <functional>
#include <optional>

namespace kiln::onnx_import
{

using nvinfer1::ElementWiseOperation;

//! The largest weights (in bytes) the importers compute at parse time when every input is known.
inline constexpr int64_t kFoldBytes = int64_t{1} << 24;

//! Coordinates of one element.
using Coords = std::array<int64_t, Dims::MAX_DIMS>;

//! Whether value is weights that the importers fold: of a whole-byte type and at most kFoldBytes.
bool foldable(Value const& value);

//! The integer values of weights (any integer, boolean or floating type; floating values are truncated).
std::vector<int64_t> integers(ShapedWeights const& weights);

//! The same bytes under another shape of as many elements; unnamed, so it becomes its own constant layer.
ShapedWeights withShape(ShapedWeights weights, Dims const& shape);

//! New weights of type and shape whose element at coordinates c is element source(c) of input (a row-major index).
ShapedWeights remapWeights(ImportContext& ctx, ShapedWeights const& input, Dims const& shape,
    std::function<int64_t(Coords const&)> const& source);

//! The transpose of weights: output dimension i is input dimension perm[i].
ShapedWeights transposeWeights(ImportContext& ctx, ShapedWeights const& weights, std::vector<int32_t> const& perm);

//! Weights converted to type (integers exactly, floating values truncated towards zero).
ShapedWeights castWeights(ImportContext& ctx, ShapedWeights const& weights, DataType type);

//! A 1-D INT64 value (weights).
Value int64Value(ImportContext& ctx, std::vector<int64_t> const& values);

//! The shape of value as a 1-D INT64 value: weights when every extent is known, else an IShapeLayer output.
Value shapeValue(ImportContext& ctx, Value const& value);

//! Elements of a 1-D tensor (or weights) picked by constant indices, as a 1-D tensor or folded weights.
Value pick(ImportContext& ctx, Value const& vector, std::vector<int64_t> const& indices);

//! One output extent of a reshape: input extent `from` times mul divided by div, or a fixed extent (-1: inferred).
struct DimPart
{
    int32_t from{-1};
    int64_t extent{0};
    int64_t mul{1};
    int64_t div{1};

    static DimPart copy(int32_t from, int64_t mul = 1, int64_t div = 1) { return DimPart{from, 0, mul, div}; }
    static DimPart fixed(int64_t extent) { return DimPart{-1, extent, 1, 1}; }
};

//! value reshaped to parts: folded for weights, else a shuffle with static dimensions where they are known, or with
//! a shape tensor computed from the input's shape.
Value reshapeValue(ImportContext& ctx, Value const& value, std::vector<DimPart> const& parts);

//! value with an axis of extent 1 inserted at axis (in [0, rank]).
Value unsqueezeAxis(ImportContext& ctx, Value const& value, int32_t axis);

//! value without axis, whose extent is 1.
Value squeezeAxis(ImportContext& ctx, Value const& value, int32_t axis);

//! value with dimensions permuted (output dimension i is input dimension perm[i]); folded for small weights.
Value transposeValue(ImportContext& ctx, Value const& value, std::vector<int32_t> const& perm);

//! A slice whose start, size and stride are each Dims or a 1-D INT64 tensor value; axes (when given) name the
//! sliced axes, otherwise every axis is.
nvinfer1::ISliceLayer& addSliceOf(ImportContext& ctx, ITensor& input, Value const& start, Value const& size,
    Value const& stride, std::optional<std::vector<int64_t>> const& axes = std::nullopt);

//! small (every extent 1, the rank of shape's length) repeated to shape (a 1-D INT64 value of known length).
ITensor& broadcastTo(ImportContext& ctx, ITensor& small, Value const& shape);

//! The number of values of a 1-D value whose length is known at build time; fails naming what otherwise.
int32_t knownLength(Value const& vector, char const* what);

} // namespace kiln::onnx_import
