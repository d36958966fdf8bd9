// SPDX-License-Identifier: Apache-2.0
#include "network/shape_rules.h"

namespace kiln
{

ShapeRuleContext::ShapeRuleContext(
    ExprContext& exprs, std::string layerName, LayerType type, std::vector<SymbolicTensor> inputs, int32_t nbOutputs)
    : mExprs(exprs)
    , mLayerName(std::move(layerName))
    , mType(type)
    , mInputs(std::move(inputs))
    , mNbOutputs(nbOutputs)
{
}

SymbolicTensor const& ShapeRuleContext::input(int32_t index) const noexcept
{
    static SymbolicTensor const kAbsent{};
    return index >= 0 && index < nbInputs() ? mInputs[static_cast<std::size_t>(index)] : kAbsent;
}

DimExpr const* ShapeRuleContext::op(DimensionOperation operation, DimExpr const* a, DimExpr const* b)
{
    auto result = mExprs.operation(operation, *a, *b);
    if (!result)
    {
        fail(error(result.error().message));
        return mExprs.constant(0);
    }
    return result.value();
}

DimExpr const* ShapeRuleContext::volume(SymbolicDims const& dims)
{
    DimExpr const* product = constant(1);
    for (DimExpr const* extent : dims)
    {
        product = mul(product, extent);
    }
    return product;
}

void ShapeRuleContext::require(DimExpr const* condition, std::string message)
{
    int64_t value = 0;
    if (isConstantExpr(condition, &value))
    {
        if (value == 0)
        {
            fail(error(message));
        }
        return;
    }
    mAssertions.push_back(ShapeAssertion{condition, error(message).message});
}

void ShapeRuleContext::fail(Error error)
{
    if (!mError)
    {
        mError = std::move(error);
    }
}

DimExpr const* ShapeRuleContext::broadcast(
    DimExpr const* a, DimExpr const* b, std::string const& what, std::string const& aName, std::string const& bName)
{
    int64_t x = 0;
    int64_t y = 0;
    bool const aConstant = isConstantExpr(a, &x);
    bool const bConstant = isConstantExpr(b, &y);
    if (a == b || (bConstant && y == 1))
    {
        return a;
    }
    if (aConstant && x == 1)
    {
        return b;
    }
    std::string const message = what + " is " + str(a) + " in " + aName + " and " + str(b) + " in " + bName
        + "; they must be equal or one of them 1";
    if (aConstant && bConstant)
    {
        fail(error(message));
        return a;
    }
    DimExpr const* one = constant(1);
    if (aConstant)
    {
        require(add(eq(b, a), eq(b, one)), message);
        return a;
    }
    if (bConstant)
    {
        require(add(eq(a, b), eq(a, one)), message);
        return b;
    }
    require(add(add(eq(a, b), eq(a, one)), eq(b, one)), message);
    return max(a, b);
}

void ShapeRuleContext::requireEqual(DimExpr const* a, DimExpr const* b, std::string const& message)
{
    if (a != b)
    {
        require(eq(a, b), message);
    }
}

Expected<std::vector<SymbolicTensor>> ShapeRuleContext::finish(std::vector<SymbolicTensor> outputs)
{
    if (mError)
    {
        return *mError;
    }
    return outputs;
}

std::string ShapeRuleContext::str(SymbolicDims const& dims) const
{
    std::string text = "[";
    for (std::size_t i = 0; i < dims.size(); ++i)
    {
        text += (i == 0 ? "" : ", ") + str(dims[i]);
    }
    return text + "]";
}

namespace
{

// Deep enough for any shape a network computes; beyond it the answer is "not known", which is always safe. The bound
// also keeps DAGs that reuse a node many times from costing exponential time.
constexpr int32_t kMaxSignDepth = 16;

bool isNonNegativeWithin(ExprContext const& exprs, DimExpr const* expr, int32_t depth) noexcept
{
    switch (expr->kind())
    {
    case DimExpr::Kind::kCONSTANT: return expr->value() >= 0;
    case DimExpr::Kind::kSYMBOL: return exprs.symbolInfo(expr->symbol()).kind != SymbolKind::kSHAPE_VALUE;
    case DimExpr::Kind::kOPERATION:
        if (depth == kMaxSignDepth)
        {
            return false;
        }
        switch (expr->op())
        {
        case DimensionOperation::kEQUAL:
        case DimensionOperation::kLESS: return true;
        case DimensionOperation::kSUB: return false;
        case DimensionOperation::kMAX:
            return isNonNegativeWithin(exprs, expr->lhs(), depth + 1)
                || isNonNegativeWithin(exprs, expr->rhs(), depth + 1);
        default:
            return isNonNegativeWithin(exprs, expr->lhs(), depth + 1)
                && isNonNegativeWithin(exprs, expr->rhs(), depth + 1);
        }
    }
    return false;
}

} // namespace

bool isNonNegative(ExprContext const& exprs, DimExpr const* expr) noexcept
{
    return isNonNegativeWithin(exprs, expr, 0);
}

SymbolicDims constantDims(ExprContext& exprs, Dims const& dims)
{
    SymbolicDims result;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        result.push_back(exprs.constant(dims.d[i]));
    }
    return result;
}

Expected<std::vector<SymbolicTensor>> passThrough(ShapeRuleContext& context, bool keepValues)
{
    SymbolicTensor const& input = context.input(0);
    if (!input.present())
    {
        return context.error("input 0 is missing");
    }
    SymbolicTensor output;
    output.shape = input.shape;
    if (keepValues)
    {
        output.values = input.values;
    }
    return std::vector<SymbolicTensor>{std::move(output)};
}

DimExpr const* windowExtent(ShapeRuleContext& context, DimExpr const* input, int64_t window, int64_t stride,
    int64_t prePadding, int64_t postPadding, int64_t dilation, nvinfer1::PaddingMode mode, int32_t axis)
{
    using nvinfer1::PaddingMode;
    DimExpr const* strideExpr = context.constant(stride);
    if (mode == PaddingMode::kSAME_UPPER || mode == PaddingMode::kSAME_LOWER)
    {
        // O = ceil(I / S); the padding follows from it and explicit padding is ignored.
        return context.ceilDiv(input, strideExpr);
    }
    // M = I + B + A, DK = 1 + D * (F - 1); O = floor((M - DK) / S) + 1, or ceil for kEXPLICIT_ROUND_UP.
    int64_t const dilated = 1 + dilation * (window - 1);
    DimExpr const* padded = context.add(input, context.constant(prePadding + postPadding));
    DimExpr const* span = context.sub(padded, context.constant(dilated));
    std::string const message = "dimension " + std::to_string(axis) + ": the padded input extent " + context.str(padded)
        + " (input " + context.str(input) + " + padding " + std::to_string(prePadding) + " + "
        + std::to_string(postPadding) + ") is smaller than the dilated window extent " + std::to_string(dilated);
    context.require(context.sub(context.constant(1), context.less(span, context.constant(0))), message);
    DimExpr const* steps = mode == PaddingMode::kEXPLICIT_ROUND_UP ? context.ceilDiv(span, strideExpr)
                                                                   : context.floorDiv(span, strideExpr);
    return context.add(steps, context.constant(1));
}

std::optional<Error> windowParamsProblem(
    ShapeRuleContext& context, int32_t spatial, std::initializer_list<std::pair<char const*, Dims const*>> params)
{
    for (auto const& [what, dims] : params)
    {
        if (dims->nbDims != spatial)
        {
            return context.error(
                "the ", what, " ", *dims, " has ", dims->nbDims, " dimensions; the window has ", spatial);
        }
    }
    return std::nullopt;
}

DimExpr const* sizeFreeUpperBound(ExprContext& exprs, DimExpr const* expr)
{
    if (expr == nullptr || !expr->dependsOnSizeTensor())
    {
        return expr;
    }
    if (expr->kind() == DimExpr::Kind::kSYMBOL)
    {
        // A size tensor's upper bound never depends on size tensors (ExprContext::sizeTensor).
        return exprs.symbolInfo(expr->symbol()).upperBound;
    }
    if (expr->kind() != DimExpr::Kind::kOPERATION)
    {
        return nullptr;
    }
    switch (expr->op())
    {
    case DimensionOperation::kSUM:
    case DimensionOperation::kPROD:
    case DimensionOperation::kMAX:
    case DimensionOperation::kMIN: break;
    case DimensionOperation::kFLOOR_DIV:
    case DimensionOperation::kCEIL_DIV:
        if (expr->rhs()->dependsOnSizeTensor())
        {
            return nullptr; // a smaller divisor gives a larger quotient
        }
        break;
    default: return nullptr;
    }
    DimExpr const* lhs = sizeFreeUpperBound(exprs, expr->lhs());
    DimExpr const* rhs = sizeFreeUpperBound(exprs, expr->rhs());
    if (lhs == nullptr || rhs == nullptr)
    {
        return nullptr;
    }
    auto bound = exprs.operation(expr->op(), *lhs, *rhs);
    return bound ? bound.value() : nullptr;
}

} // namespace kiln
