// SPDX-License-Identifier: Apache-2.0
// Symbolic dimensions: every extent the builder reasons about is an expression over symbols (network input
// extents, shape-tensor values, size-tensor values). Plugins see the same nodes through IDimensionExpr and make
// new ones through IExprBuilder, so the node objects have the binary layout TensorRT-compiled plugins inline:
// [vptr][apiv::VDimensionExpr* mImpl].
//
//     ExprContext context;
//     DimExpr const* n = context.symbol("input.d0", SymbolKind::kINPUT_EXTENT);
//     DimExpr const* padded = context.operation(DimensionOperation::kMAX, *n, *context.constant(32));
//     context.evaluate(*padded, {{n->symbol(), 7}});   // 32
//     context.bounds(*padded, {{n->symbol(), {1, 64}}});   // [32, 64]
//
// operation() simplifies as it builds, so that an extent that is provably a constant is one (TensorRT reports
// Flatten after a dynamic batch as [-1, C*H*W]): sums, differences and products are kept as a sum of terms, each a
// constant coefficient times a product of factors in one order (so (a*b)*c and c*(b*a) are one node, and a + b - a is
// b); a quotient drops the factors and the constant divisor its operands share ((N*c)/N is c, (N*a*b)/(N*a) is b) and
// takes exact multiples of a constant divisor out (floor_div(2*N + 3, 2) is N + 1); comparisons, max and min of
// operands that differ by a constant are decided. Each rewrite keeps the value wherever the original expression has
// one: (N*c)/N is c for every N but 0, where the original divides by zero (an extent of 0 makes an empty tensor,
// whose reshape TensorRT gives the same extents). A sum is kept whole inside a product ((N + 1) * c), never expanded.
#pragma once

#include "core/error.h"

#include "NvInferRuntime.h"

#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace kiln
{

using nvinfer1::DimensionOperation;

//! What a symbol stands for.
enum class SymbolKind
{
    kINPUT_EXTENT, //!< An extent of a network input, fixed by setInputShape within the profile's range.
    kSHAPE_VALUE,  //!< A value of a shape tensor, fixed by setInputShape / setTensorAddress at run time.
    kSIZE_TENSOR,  //!< The value of a plugin's size tensor, known only after the plugin runs.
};

using SymbolId = uint32_t;

//! A closed range of values.
struct Interval
{
    int64_t lo{};
    int64_t hi{};
    bool operator==(Interval const&) const = default;
};

class ExprContext;
struct LinearForm;

//! One immutable node of an expression DAG, owned by its ExprContext. Hand it to plugins as IDimensionExpr.
class DimExpr final : public nvinfer1::IDimensionExpr
{
public:
    enum class Kind
    {
        kCONSTANT,
        kSYMBOL,
        kOPERATION
    };

    Kind kind() const noexcept { return mKind; }
    int64_t value() const noexcept { return mValue; }      //!< kCONSTANT: the value.
    SymbolId symbol() const noexcept { return mSymbol; }   //!< kSYMBOL: the symbol.
    DimensionOperation op() const noexcept { return mOp; } //!< kOPERATION: the operation.
    DimExpr const* lhs() const noexcept { return mLhs; }   //!< kOPERATION: the first operand.
    DimExpr const* rhs() const noexcept { return mRhs; }   //!< kOPERATION: the second operand.
    uint32_t id() const noexcept { return mId; }           //!< Creation order: operands come first.
    bool dependsOnSizeTensor() const noexcept { return mSizeDependent; }

    ~DimExpr() noexcept override = default;

private:
    friend class ExprContext;

    //! The hidden implementation interface the inline IDimensionExpr methods call.
    class Impl final : public nvinfer1::apiv::VDimensionExpr
    {
    public:
        explicit Impl(DimExpr const& owner)
            : mOwner(owner)
        {
        }
        bool isConstant() const override { return mOwner.mKind == Kind::kCONSTANT; }
        int64_t getConstantValue() const override
        {
            return isConstant() ? mOwner.mValue : std::numeric_limits<int64_t>::min();
        }
        bool isSizeTensor() const override { return mOwner.mIsSizeTensor; }

    private:
        DimExpr const& mOwner;
    };

    DimExpr(uint32_t id, Kind kind) noexcept;

    Impl mImplObject{*this};
    Kind mKind;
    uint32_t mId;
    int64_t mValue{};
    SymbolId mSymbol{};
    DimensionOperation mOp{};
    DimExpr const* mLhs{};
    DimExpr const* mRhs{};
    bool mIsSizeTensor{};  //!< Made by declareSizeTensor.
    bool mSizeDependent{}; //!< Refers to a size-tensor symbol somewhere.
};

//! A symbol's description.
struct SymbolInfo
{
    std::string name;
    SymbolKind kind{};
    // kSIZE_TENSOR only: the declaring output and the expressions the plugin gave.
    int32_t outputIndex{-1};
    DimExpr const* optimum{};
    DimExpr const* upperBound{};
};

//! Owns expression nodes, folds constants, shares structurally equal nodes, evaluates. Not thread-safe: one
//! context per build.
class ExprContext
{
public:
    ExprContext();
    ~ExprContext();
    ExprContext(ExprContext const&) = delete;
    ExprContext& operator=(ExprContext const&) = delete;

    //! The constant value.
    DimExpr const* constant(int64_t value);

    //! A new symbol (each call makes a distinct one).
    DimExpr const* symbol(std::string name, SymbolKind kind);

    //! op(lhs, rhs), folded and simplified; an error for an invalid op or a constant division by zero or
    //! overflow.
    Expected<DimExpr const*> operation(DimensionOperation op, DimExpr const& lhs, DimExpr const& rhs);

    //! A new size-tensor symbol for output outputIndex with the given optimum and upper bound, which must not
    //! depend on size tensors themselves.
    Expected<DimExpr const*> sizeTensor(
        std::string name, int32_t outputIndex, DimExpr const& optimum, DimExpr const& upperBound);

    //! The node behind an IDimensionExpr this context made, or nullptr for any other object.
    DimExpr const* find(nvinfer1::IDimensionExpr const* expr) const noexcept;

    SymbolInfo const& symbolInfo(SymbolId id) const { return mSymbols.at(id); }
    std::size_t symbolCount() const noexcept { return mSymbols.size(); }
    std::size_t nodeCount() const noexcept { return mNodes.size(); }

    //! The value of expr given a value for every symbol it uses; an error names a missing symbol or a division
    //! by zero.
    Expected<int64_t> evaluate(DimExpr const& expr, std::map<SymbolId, int64_t> const& values) const;

    //! The range of values expr can take when each symbol ranges over its interval (interval arithmetic, exact
    //! for monotone expressions, a safe over-approximation otherwise). A size-tensor symbol without a given range
    //! ranges over [0, its upper bound].
    Expected<Interval> bounds(DimExpr const& expr, std::map<SymbolId, Interval> const& ranges) const;

    //! Readable form for messages, e.g. "max(input.d0, 32)".
    std::string toString(DimExpr const& expr) const;

private:
    DimExpr* make(DimExpr::Kind kind);
    //! The node op(lhs, rhs) as given (one node per structure), without simplifying.
    DimExpr const* intern(DimensionOperation op, DimExpr const& lhs, DimExpr const& rhs);
    //! expr as a sum of terms (computed once per node).
    LinearForm const& form(DimExpr const& expr);
    //! The node of a sum of terms in its canonical structure; nullptr when a coefficient overflows.
    DimExpr const* build(LinearForm const& form);
    //! op(lhs, rhs) simplified through the operands' sums of terms, or nullptr when no rule applies.
    DimExpr const* simplify(DimensionOperation op, DimExpr const& lhs, DimExpr const& rhs);
    DimExpr const* simplifyDivision(DimensionOperation op, DimExpr const& lhs, DimExpr const& rhs);

    std::deque<std::unique_ptr<DimExpr>> mNodes;
    std::vector<SymbolInfo> mSymbols;
    std::unordered_map<int64_t, DimExpr const*> mConstants;
    std::map<std::tuple<int32_t, uint32_t, uint32_t>, DimExpr const*> mOperations;
    std::unordered_map<nvinfer1::IDimensionExpr const*, DimExpr const*> mOwned;
    std::unordered_map<uint32_t, std::unique_ptr<LinearForm>> mForms; //!< By node id, filled by form().
};

//! op(a, b) on values, as ExprContext::evaluate() computes it; nothing for a division by zero or an overflow.
std::optional<int64_t> applyOperation(DimensionOperation op, int64_t a, int64_t b) noexcept;

//! The IExprBuilder handed to a plugin's getOutputShapes / getOutputDimensions. Misuse (a foreign expression, an
//! invalid operation, a bad size-tensor declaration) returns nullptr and is kept in errors() for the builder to
//! report with the plugin's name.
class PluginExprBuilder final : public nvinfer1::IExprBuilder
{
public:
    //! sizeTensorPrefix names the size-tensor symbols (e.g. the layer name).
    PluginExprBuilder(ExprContext& context, std::string sizeTensorPrefix);
    ~PluginExprBuilder() noexcept override = default;

    std::vector<std::string> const& errors() const noexcept { return mImplObject.mErrors; }

    //! The size tensors declared so far, by output index.
    std::map<int32_t, DimExpr const*> const& sizeTensors() const noexcept { return mImplObject.mSizeTensors; }

private:
    class Impl final : public nvinfer1::apiv::VExprBuilder
    {
    public:
        Impl(ExprContext& context, std::string prefix);
        nvinfer1::IDimensionExpr const* constant(int64_t value) override;
        nvinfer1::IDimensionExpr const* operation(DimensionOperation op, nvinfer1::IDimensionExpr const& first,
            nvinfer1::IDimensionExpr const& second) override;
        nvinfer1::IDimensionExpr const* declareSizeTensor(
            int32_t outputIndex, nvinfer1::IDimensionExpr const& opt, nvinfer1::IDimensionExpr const& upper) override;

        ExprContext& mContext;
        std::string mPrefix;
        std::vector<std::string> mErrors;
        std::map<int32_t, DimExpr const*> mSizeTensors;

    private:
        DimExpr const* own(nvinfer1::IDimensionExpr const& expr, char const* call, char const* which);
    };

    Impl mImplObject;
};

} // namespace kiln
