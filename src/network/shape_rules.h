// SPDX-License-Identifier: Apache-2.0
// Symbolic shape rules: what each layer kind computes from its inputs' symbolic shapes (and, for shape tensors,
// symbolic values). Every extent is a DimExpr over network-input extents, shape-tensor values and plugin size
// tensors, the same nodes plugins see through IDimensionExpr. The rule of a kind is the overload
// inferOutputShapes(<Name>Params const&, ShapeRuleContext&) defined in the kind's own src/network/layers/<stem>.cpp;
// the driver (network/shape_inference.h) calls the one that matches a layer's parameters.
//
//     ShapeRuleContext context(exprs, "conv1", LayerType::kCONVOLUTION, {inputShape}, 1);
//     auto outputs = inferOutputShapes(convolutionParams, context);   // outputs.value()[0].shape: [N, K, H', W']
//
// Broadcasting of extents that are not provably equal or 1 gives max(a, b) and records a ShapeAssertion (an
// expression that must be non-zero); the driver checks assertions at the profile's kMIN/kOPT/kMAX points at build
// time and keeps them for the run time, where the real input shapes are known.
#pragma once

#include "core/error.h"
#include "core/shape_expr.h"
#include "network/layer_kinds.h"
#include "network/report.h"

#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kiln
{

//! A symbolic shape: one expression per extent.
using SymbolicDims = std::vector<DimExpr const*>;

//! The most values kiln tracks for one shape tensor.
inline constexpr std::size_t kMaxShapeValues = 64;

//! A tensor as the shape rules see it.
struct SymbolicTensor
{
    std::optional<SymbolicDims> shape;  //!< nullopt: an absent optional input.
    std::optional<SymbolicDims> values; //!< A shape tensor's values in row-major order, when known.
    DataType type{DataType::kFLOAT};

    bool present() const noexcept { return shape.has_value(); }
    int32_t rank() const noexcept { return shape ? static_cast<int32_t>(shape->size()) : -1; }
};

//! A condition (an expression that must evaluate to non-zero) and what is wrong when it does not hold.
struct ShapeAssertion
{
    DimExpr const* condition{};
    std::string message;
};

//! What a rule works with: the expression context, the layer's identity for messages, the inputs, and the
//! assertions it records. Arithmetic helpers never fail outright: the first error is kept and returned by
//! finish(), so rules read as plain formulas.
class ShapeRuleContext
{
public:
    ShapeRuleContext(ExprContext& exprs, std::string layerName, LayerType type, std::vector<SymbolicTensor> inputs,
        int32_t nbOutputs);

    ExprContext& exprs() noexcept { return mExprs; }
    std::string const& layerName() const noexcept { return mLayerName; }
    LayerType type() const noexcept { return mType; }
    int32_t nbOutputs() const noexcept { return mNbOutputs; }
    std::vector<SymbolicTensor> const& inputs() const noexcept { return mInputs; }
    int32_t nbInputs() const noexcept { return static_cast<int32_t>(mInputs.size()); }
    //! Input index, or an absent tensor when out of range.
    SymbolicTensor const& input(int32_t index) const noexcept;
    std::vector<ShapeAssertion> const& assertions() const noexcept { return mAssertions; }

    //! `layer 'name' (IClassLayer): ` followed by parts.
    template <typename... Parts>
    Error error(Parts const&... parts) const
    {
        std::string text = "layer '" + mLayerName + "' (" + layerClassName(mType) + "): ";
        (message::append(text, parts), ...);
        return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, std::move(text)};
    }

    DimExpr const* constant(int64_t value) { return mExprs.constant(value); }
    DimExpr const* op(DimensionOperation op, DimExpr const* a, DimExpr const* b);
    DimExpr const* add(DimExpr const* a, DimExpr const* b) { return op(DimensionOperation::kSUM, a, b); }
    DimExpr const* sub(DimExpr const* a, DimExpr const* b) { return op(DimensionOperation::kSUB, a, b); }
    DimExpr const* mul(DimExpr const* a, DimExpr const* b) { return op(DimensionOperation::kPROD, a, b); }
    DimExpr const* floorDiv(DimExpr const* a, DimExpr const* b) { return op(DimensionOperation::kFLOOR_DIV, a, b); }
    DimExpr const* ceilDiv(DimExpr const* a, DimExpr const* b) { return op(DimensionOperation::kCEIL_DIV, a, b); }
    DimExpr const* eq(DimExpr const* a, DimExpr const* b) { return op(DimensionOperation::kEQUAL, a, b); }
    DimExpr const* less(DimExpr const* a, DimExpr const* b) { return op(DimensionOperation::kLESS, a, b); }
    DimExpr const* max(DimExpr const* a, DimExpr const* b) { return op(DimensionOperation::kMAX, a, b); }
    DimExpr const* min(DimExpr const* a, DimExpr const* b) { return op(DimensionOperation::kMIN, a, b); }
    //! The product of extents (1 for none).
    DimExpr const* volume(SymbolicDims const& dims);

    //! Records that condition must hold (non-zero); a constant 0 is an error now, a constant non-zero is dropped.
    void require(DimExpr const* condition, std::string message);
    //! Records an error (the first one wins) to be returned by finish().
    void fail(Error error);
    bool failed() const noexcept { return mError.has_value(); }

    //! The broadcast of extents a and b (what: e.g. "dimension 2"); an error when both are constants that differ
    //! and neither is 1; max(a, b) with an assertion when that cannot be told at build time.
    DimExpr const* broadcast(DimExpr const* a, DimExpr const* b, std::string const& what, std::string const& aName,
        std::string const& bName);
    //! Records that a and b are equal (an error now when both are constants).
    void requireEqual(DimExpr const* a, DimExpr const* b, std::string const& message);

    //! The outputs, or the first error recorded.
    Expected<std::vector<SymbolicTensor>> finish(std::vector<SymbolicTensor> outputs);

    //! The string form of an expression.
    std::string str(DimExpr const* expr) const { return mExprs.toString(*expr); }
    std::string str(SymbolicDims const& dims) const;

private:
    ExprContext& mExprs;
    std::string mLayerName;
    LayerType mType;
    std::vector<SymbolicTensor> mInputs;
    int32_t mNbOutputs;
    std::vector<ShapeAssertion> mAssertions;
    std::optional<Error> mError;
};

//! Whether expr is a constant; its value through value.
inline bool isConstantExpr(DimExpr const* expr, int64_t* value = nullptr) noexcept
{
    if (expr != nullptr && expr->kind() == DimExpr::Kind::kCONSTANT)
    {
        if (value != nullptr)
        {
            *value = expr->value();
        }
        return true;
    }
    return false;
}

//! Whether expr is provably >= 0 (constants >= 0, input extents and size tensors, and sums, products, max, min,
//! divisions and comparisons of such).
bool isNonNegative(ExprContext const& exprs, DimExpr const* expr) noexcept;

//! An upper bound of expr over symbols known before any layer runs: expr with each size-tensor symbol replaced by its
//! upper bound. Exact for sums, products, max, min and divisions of extents (which never decrease as a size tensor
//! grows); nullptr when expr uses another operation on a size tensor, or the arithmetic fails.
DimExpr const* sizeFreeUpperBound(ExprContext& exprs, DimExpr const* expr);

//! A symbolic shape of constants.
SymbolicDims constantDims(ExprContext& exprs, Dims const& dims);

//! The input shape unchanged, values passed through: the rule of shape-preserving kinds.
Expected<std::vector<SymbolicTensor>> passThrough(ShapeRuleContext& context, bool keepValues);

//! One spatial extent of a convolution or pooling output (PaddingMode formulas of NvInfer.h; dilation 1 for
//! pooling). axis names the extent in messages.
DimExpr const* windowExtent(ShapeRuleContext& context, DimExpr const* input, int64_t window, int64_t stride,
    int64_t prePadding, int64_t postPadding, int64_t dilation, nvinfer1::PaddingMode mode, int32_t axis);

//! An error unless each of the named window parameters (stride, paddings, dilation) has one entry per spatial
//! dimension.
std::optional<Error> windowParamsProblem(
    ShapeRuleContext& context, int32_t spatial, std::initializer_list<std::pair<char const*, Dims const*>> params);

// One rule per kind, each defined in the kind's src/network/layers/<stem>.cpp.
#define KILN_DECLARE_SHAPE_RULE(e, Name, tag)                                                                          \
    Expected<std::vector<SymbolicTensor>> inferOutputShapes(Name##Params const& params, ShapeRuleContext& context);
KILN_LAYER_KINDS(KILN_DECLARE_SHAPE_RULE)
#undef KILN_DECLARE_SHAPE_RULE

} // namespace kiln
