// SPDX-License-Identifier: Apache-2.0
#include "core/shape_expr.h"

#include <algorithm>
#include <array>
#include <optional>
#include <utility>

namespace kiln
{
namespace
{

using nvinfer1::ErrorCode;

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

bool isValidOp(DimensionOperation op) noexcept
{
    auto const value = static_cast<int32_t>(op);
    return value >= 0 && value < nvinfer1::EnumMax<DimensionOperation>();
}

bool isCommutative(DimensionOperation op) noexcept
{
    return op == DimensionOperation::kSUM || op == DimensionOperation::kPROD || op == DimensionOperation::kMAX
        || op == DimensionOperation::kMIN || op == DimensionOperation::kEQUAL;
}

int64_t floorDiv(int64_t a, int64_t b) noexcept
{
    int64_t const q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t ceilDiv(int64_t a, int64_t b) noexcept
{
    int64_t const q = a / b;
    return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
}

//! op(a, b) on values; nullopt for a division by zero or an overflow (or the one quotient that overflows).
std::optional<int64_t> apply(DimensionOperation op, int64_t a, int64_t b) noexcept
{
    int64_t result = 0;
    switch (op)
    {
    case DimensionOperation::kSUM: return __builtin_add_overflow(a, b, &result) ? std::nullopt : std::optional(result);
    case DimensionOperation::kSUB: return __builtin_sub_overflow(a, b, &result) ? std::nullopt : std::optional(result);
    case DimensionOperation::kPROD: return __builtin_mul_overflow(a, b, &result) ? std::nullopt : std::optional(result);
    case DimensionOperation::kMAX: return std::max(a, b);
    case DimensionOperation::kMIN: return std::min(a, b);
    case DimensionOperation::kEQUAL: return a == b ? 1 : 0;
    case DimensionOperation::kLESS: return a < b ? 1 : 0;
    case DimensionOperation::kFLOOR_DIV:
    case DimensionOperation::kCEIL_DIV:
        if (b == 0 || (a == kMin && b == -1))
        {
            return std::nullopt;
        }
        return op == DimensionOperation::kFLOOR_DIV ? floorDiv(a, b) : ceilDiv(a, b);
    }
    return std::nullopt;
}

char const* opName(DimensionOperation op) noexcept
{
    switch (op)
    {
    case DimensionOperation::kSUM: return "+";
    case DimensionOperation::kPROD: return "*";
    case DimensionOperation::kMAX: return "max";
    case DimensionOperation::kMIN: return "min";
    case DimensionOperation::kSUB: return "-";
    case DimensionOperation::kEQUAL: return "==";
    case DimensionOperation::kLESS: return "<";
    case DimensionOperation::kFLOOR_DIV: return "floor_div";
    case DimensionOperation::kCEIL_DIV: return "ceil_div";
    }
    return "?";
}

// Interval arithmetic computes in 128 bits and saturates, so no bound silently wraps.
__extension__ typedef __int128 Wide;

//! Saturates a wide result into int64_t.
int64_t clamp128(Wide value) noexcept
{
    return value > kMax ? kMax : (value < kMin ? kMin : static_cast<int64_t>(value));
}

//! op over intervals (a safe enclosure of every op(x, y) with x in a, y in b); nullopt when a division may be by
//! zero.
std::optional<Interval> applyRange(DimensionOperation op, Interval a, Interval b) noexcept
{
    switch (op)
    {
    case DimensionOperation::kSUM: return Interval{clamp128(Wide{a.lo} + b.lo), clamp128(Wide{a.hi} + b.hi)};
    case DimensionOperation::kSUB: return Interval{clamp128(Wide{a.lo} - b.hi), clamp128(Wide{a.hi} - b.lo)};
    case DimensionOperation::kPROD:
    {
        std::array<Wide, 4> const corners{Wide{a.lo} * b.lo, Wide{a.lo} * b.hi, Wide{a.hi} * b.lo, Wide{a.hi} * b.hi};
        auto const [lo, hi] = std::minmax_element(corners.begin(), corners.end());
        return Interval{clamp128(*lo), clamp128(*hi)};
    }
    case DimensionOperation::kMAX: return Interval{std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
    case DimensionOperation::kMIN: return Interval{std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
    case DimensionOperation::kEQUAL:
        if (a.lo == a.hi && b.lo == b.hi && a.lo == b.lo)
        {
            return Interval{1, 1};
        }
        return (a.hi < b.lo || b.hi < a.lo) ? Interval{0, 0} : Interval{0, 1};
    case DimensionOperation::kLESS:
        if (a.hi < b.lo)
        {
            return Interval{1, 1};
        }
        return a.lo >= b.hi ? Interval{0, 0} : Interval{0, 1};
    case DimensionOperation::kFLOOR_DIV:
    case DimensionOperation::kCEIL_DIV:
    {
        if (b.lo <= 0 && b.hi >= 0)
        {
            return std::nullopt;
        }
        // With the divisor's sign fixed, the quotient is monotone in each operand: the corners bound it.
        int64_t lo = kMax;
        int64_t hi = kMin;
        for (int64_t x : {a.lo, a.hi})
        {
            for (int64_t y : {b.lo, b.hi})
            {
                auto const q = apply(op, x, y);
                int64_t const value = q ? *q : (x < 0 ? kMax : kMin); // only kMin / -1 overflows
                lo = std::min(lo, value);
                hi = std::max(hi, value);
            }
        }
        return Interval{lo, hi};
    }
    }
    return std::nullopt;
}

} // namespace

std::optional<int64_t> applyOperation(DimensionOperation op, int64_t a, int64_t b) noexcept
{
    return apply(op, a, b);
}

DimExpr::DimExpr(uint32_t id, Kind kind) noexcept
    : mKind(kind)
    , mId(id)
{
    mImpl = &mImplObject;
}

DimExpr* ExprContext::make(DimExpr::Kind kind)
{
    auto node = std::unique_ptr<DimExpr>(new DimExpr(static_cast<uint32_t>(mNodes.size()), kind));
    DimExpr* raw = node.get();
    mNodes.push_back(std::move(node));
    mOwned.emplace(static_cast<nvinfer1::IDimensionExpr const*>(raw), raw);
    return raw;
}

DimExpr const* ExprContext::constant(int64_t value)
{
    if (auto found = mConstants.find(value); found != mConstants.end())
    {
        return found->second;
    }
    DimExpr* node = make(DimExpr::Kind::kCONSTANT);
    node->mValue = value;
    mConstants.emplace(value, node);
    return node;
}

DimExpr const* ExprContext::symbol(std::string name, SymbolKind kind)
{
    DimExpr* node = make(DimExpr::Kind::kSYMBOL);
    node->mSymbol = static_cast<SymbolId>(mSymbols.size());
    node->mIsSizeTensor = kind == SymbolKind::kSIZE_TENSOR;
    node->mSizeDependent = node->mIsSizeTensor;
    mSymbols.push_back(SymbolInfo{std::move(name), kind});
    return node;
}

Expected<DimExpr const*> ExprContext::operation(DimensionOperation op, DimExpr const& lhs, DimExpr const& rhs)
{
    if (!isValidOp(op))
    {
        return Error{ErrorCode::kINVALID_ARGUMENT,
            "invalid DimensionOperation " + std::to_string(static_cast<int32_t>(op)) + " on " + toString(lhs) + " and "
                + toString(rhs)};
    }
    bool const lhsConst = lhs.kind() == DimExpr::Kind::kCONSTANT;
    bool const rhsConst = rhs.kind() == DimExpr::Kind::kCONSTANT;
    if (lhsConst && rhsConst)
    {
        auto const folded = apply(op, lhs.value(), rhs.value());
        if (!folded)
        {
            return Error{ErrorCode::kINVALID_ARGUMENT,
                std::string(opName(op)) + "(" + std::to_string(lhs.value()) + ", " + std::to_string(rhs.value())
                    + ") is a division by zero or overflows int64"};
        }
        return constant(*folded);
    }
    if ((op == DimensionOperation::kFLOOR_DIV || op == DimensionOperation::kCEIL_DIV) && rhsConst && rhs.value() == 0)
    {
        return Error{
            ErrorCode::kINVALID_ARGUMENT, std::string(opName(op)) + "(" + toString(lhs) + ", 0) divides by zero"};
    }
    if (DimExpr const* simplified = simplify(op, lhs, rhs))
    {
        return simplified;
    }
    return intern(op, lhs, rhs);
}

DimExpr const* ExprContext::intern(DimensionOperation op, DimExpr const& lhs, DimExpr const& rhs)
{
    // Structurally equal operations share one node (commutative operands in either order); the node keeps the
    // operand order of its first use, which is how messages print it.
    uint32_t first = lhs.id();
    uint32_t second = rhs.id();
    if (isCommutative(op) && first > second)
    {
        std::swap(first, second);
    }
    auto const key = std::make_tuple(static_cast<int32_t>(op), first, second);
    if (auto found = mOperations.find(key); found != mOperations.end())
    {
        return found->second;
    }
    DimExpr* node = make(DimExpr::Kind::kOPERATION);
    node->mOp = op;
    node->mLhs = &lhs;
    node->mRhs = &rhs;
    node->mSizeDependent = lhs.dependsOnSizeTensor() || rhs.dependsOnSizeTensor();
    mOperations.emplace(key, node);
    return node;
}

Expected<DimExpr const*> ExprContext::sizeTensor(
    std::string name, int32_t outputIndex, DimExpr const& optimum, DimExpr const& upperBound)
{
    if (optimum.dependsOnSizeTensor() || upperBound.dependsOnSizeTensor())
    {
        return Error{ErrorCode::kINVALID_ARGUMENT,
            "the size tensor " + name + " (output " + std::to_string(outputIndex)
                + ") must have an optimum and an upper bound computed from the inputs alone, not from size tensors: "
                + "opt = " + toString(optimum) + ", upper = " + toString(upperBound)};
    }
    DimExpr const* node = symbol(std::move(name), SymbolKind::kSIZE_TENSOR);
    SymbolInfo& info = mSymbols.back();
    info.outputIndex = outputIndex;
    info.optimum = &optimum;
    info.upperBound = &upperBound;
    return node;
}

DimExpr const* ExprContext::find(nvinfer1::IDimensionExpr const* expr) const noexcept
{
    auto const found = mOwned.find(expr);
    return found == mOwned.end() ? nullptr : found->second;
}

Expected<int64_t> ExprContext::evaluate(DimExpr const& expr, std::map<SymbolId, int64_t> const& values) const
{
    // Operands are created before the operations that use them, so one pass over ids in order suffices.
    std::unordered_map<uint32_t, int64_t> memo;
    std::vector<DimExpr const*> stack{&expr};
    while (!stack.empty())
    {
        DimExpr const* node = stack.back();
        if (memo.count(node->id()) != 0)
        {
            stack.pop_back();
            continue;
        }
        switch (node->kind())
        {
        case DimExpr::Kind::kCONSTANT: memo[node->id()] = node->value(); break;
        case DimExpr::Kind::kSYMBOL:
        {
            auto const found = values.find(node->symbol());
            if (found == values.end())
            {
                return Error{ErrorCode::kINVALID_ARGUMENT,
                    "no value for " + symbolInfo(node->symbol()).name + " to evaluate " + toString(expr)};
            }
            memo[node->id()] = found->second;
            break;
        }
        case DimExpr::Kind::kOPERATION:
        {
            auto const l = memo.find(node->lhs()->id());
            auto const r = memo.find(node->rhs()->id());
            if (l == memo.end() || r == memo.end())
            {
                stack.push_back(node->lhs());
                stack.push_back(node->rhs());
                continue;
            }
            auto const result = apply(node->op(), l->second, r->second);
            if (!result)
            {
                return Error{ErrorCode::kINVALID_ARGUMENT,
                    toString(*node) + " is a division by zero or overflows int64 for " + opName(node->op()) + "("
                        + std::to_string(l->second) + ", " + std::to_string(r->second) + ")"};
            }
            memo[node->id()] = *result;
            break;
        }
        }
        stack.pop_back();
    }
    return memo.at(expr.id());
}

Expected<Interval> ExprContext::bounds(DimExpr const& expr, std::map<SymbolId, Interval> const& ranges) const
{
    std::unordered_map<uint32_t, Interval> memo;
    std::vector<DimExpr const*> stack{&expr};
    while (!stack.empty())
    {
        DimExpr const* node = stack.back();
        if (memo.count(node->id()) != 0)
        {
            stack.pop_back();
            continue;
        }
        if (node->kind() == DimExpr::Kind::kCONSTANT)
        {
            memo[node->id()] = Interval{node->value(), node->value()};
        }
        else if (node->kind() == DimExpr::Kind::kSYMBOL)
        {
            SymbolInfo const& info = symbolInfo(node->symbol());
            if (auto const found = ranges.find(node->symbol()); found != ranges.end())
            {
                memo[node->id()] = found->second;
            }
            else if (info.kind == SymbolKind::kSIZE_TENSOR)
            {
                auto const upper = bounds(*info.upperBound, ranges);
                if (!upper)
                {
                    return upper.error();
                }
                memo[node->id()] = Interval{0, upper.value().hi};
            }
            else
            {
                return Error{ErrorCode::kINVALID_ARGUMENT, "no range for " + info.name + " to bound " + toString(expr)};
            }
        }
        else
        {
            auto const l = memo.find(node->lhs()->id());
            auto const r = memo.find(node->rhs()->id());
            if (l == memo.end() || r == memo.end())
            {
                stack.push_back(node->lhs());
                stack.push_back(node->rhs());
                continue;
            }
            auto const result = applyRange(node->op(), l->second, r->second);
            if (!result)
            {
                return Error{ErrorCode::kINVALID_ARGUMENT,
                    toString(*node) + " may divide by zero: the divisor " + toString(*node->rhs()) + " ranges over ["
                        + std::to_string(r->second.lo) + ", " + std::to_string(r->second.hi) + "]"};
            }
            memo[node->id()] = *result;
        }
        stack.pop_back();
    }
    return memo.at(expr.id());
}

namespace
{

// Messages show an expression, not all of it: a plan or a network can hold DAGs that are deep (a long chain) or that
// reuse a node many times (their text doubles with each level), so rendering stops at a depth and a length.
constexpr int32_t kMaxTextDepth = 12;
constexpr std::size_t kMaxTextLength = 400;

void render(ExprContext const& context, DimExpr const& expr, int32_t depth, std::string& out)
{
    if (out.size() > kMaxTextLength)
    {
        return;
    }
    switch (expr.kind())
    {
    case DimExpr::Kind::kCONSTANT: out += std::to_string(expr.value()); return;
    case DimExpr::Kind::kSYMBOL: out += context.symbolInfo(expr.symbol()).name; return;
    case DimExpr::Kind::kOPERATION: break;
    }
    if (depth == kMaxTextDepth)
    {
        out += "...";
        return;
    }
    bool const functional = expr.op() == DimensionOperation::kMAX || expr.op() == DimensionOperation::kMIN
        || expr.op() == DimensionOperation::kFLOOR_DIV || expr.op() == DimensionOperation::kCEIL_DIV;
    out += functional ? std::string(opName(expr.op())) + "(" : std::string("(");
    render(context, *expr.lhs(), depth + 1, out);
    out += functional ? std::string(", ") : std::string(" ") + opName(expr.op()) + " ";
    render(context, *expr.rhs(), depth + 1, out);
    out += ")";
}

} // namespace

std::string ExprContext::toString(DimExpr const& expr) const
{
    std::string text;
    render(*this, expr, 0, text);
    if (text.size() > kMaxTextLength)
    {
        text.resize(kMaxTextLength);
        text += "...";
    }
    return text;
}

PluginExprBuilder::PluginExprBuilder(ExprContext& context, std::string sizeTensorPrefix)
    : mImplObject(context, std::move(sizeTensorPrefix))
{
    mImpl = &mImplObject;
}

PluginExprBuilder::Impl::Impl(ExprContext& context, std::string prefix)
    : mContext(context)
    , mPrefix(std::move(prefix))
{
}

DimExpr const* PluginExprBuilder::Impl::own(nvinfer1::IDimensionExpr const& expr, char const* call, char const* which)
{
    DimExpr const* node = mContext.find(&expr);
    if (node == nullptr)
    {
        mErrors.push_back(std::string(call) + ": the " + which
            + " expression was not made by this builder (only expressions from IExprBuilder or from the inputs' "
              "DimsExprs may be passed back)");
    }
    return node;
}

nvinfer1::IDimensionExpr const* PluginExprBuilder::Impl::constant(int64_t value)
{
    return mContext.constant(value);
}

nvinfer1::IDimensionExpr const* PluginExprBuilder::Impl::operation(
    DimensionOperation op, nvinfer1::IDimensionExpr const& first, nvinfer1::IDimensionExpr const& second)
{
    DimExpr const* a = own(first, "IExprBuilder::operation", "first");
    DimExpr const* b = own(second, "IExprBuilder::operation", "second");
    if (a == nullptr || b == nullptr)
    {
        return nullptr;
    }
    auto result = mContext.operation(op, *a, *b);
    if (!result)
    {
        mErrors.push_back("IExprBuilder::operation: " + result.error().message);
        return nullptr;
    }
    return result.value();
}

nvinfer1::IDimensionExpr const* PluginExprBuilder::Impl::declareSizeTensor(
    int32_t outputIndex, nvinfer1::IDimensionExpr const& opt, nvinfer1::IDimensionExpr const& upper)
{
    DimExpr const* optimum = own(opt, "IExprBuilder::declareSizeTensor", "opt");
    DimExpr const* upperBound = own(upper, "IExprBuilder::declareSizeTensor", "upper");
    if (optimum == nullptr || upperBound == nullptr)
    {
        return nullptr;
    }
    if (auto const found = mSizeTensors.find(outputIndex); found != mSizeTensors.end())
    {
        SymbolInfo const& info = mContext.symbolInfo(found->second->symbol());
        if (info.optimum == optimum && info.upperBound == upperBound)
        {
            return found->second; // the same declaration again
        }
        mErrors.push_back("IExprBuilder::declareSizeTensor: output " + std::to_string(outputIndex)
            + " was already declared a size tensor with other bounds");
        return nullptr;
    }
    auto result = mContext.sizeTensor(
        mPrefix + ".output" + std::to_string(outputIndex) + ".size", outputIndex, *optimum, *upperBound);
    if (!result)
    {
        mErrors.push_back("IExprBuilder::declareSizeTensor: " + result.error().message);
        return nullptr;
    }
    mSizeTensors.emplace(outputIndex, result.value());
    return result.value();
}

} // namespace kiln
