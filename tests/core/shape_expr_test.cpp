// SPDX-License-Identifier: Apache-2.0
// Symbolic dimensions: folding, sharing, evaluation, interval bounds, and the IExprBuilder / IDimensionExpr
// objects plugins receive, used only through the public inline wrappers (the path a compiled plugin takes).
#include "core/shape_expr.h"

#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace kiln
{
namespace
{

using Op = DimensionOperation;

class ShapeExprTest : public ::testing::Test
{
protected:
    DimExpr const* op(Op o, DimExpr const* a, DimExpr const* b)
    {
        auto result = mContext.operation(o, *a, *b);
        EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
        return result.ok() ? result.value() : nullptr;
    }

    ExprContext mContext;
};

TEST_F(ShapeExprTest, ConstantsFoldWithTensorRTSemantics)
{
    auto c = [&](int64_t v) { return mContext.constant(v); };
    EXPECT_EQ(op(Op::kSUM, c(3), c(4))->value(), 7);
    EXPECT_EQ(op(Op::kPROD, c(3), c(4))->value(), 12);
    EXPECT_EQ(op(Op::kMAX, c(3), c(4))->value(), 4);
    EXPECT_EQ(op(Op::kMIN, c(3), c(4))->value(), 3);
    EXPECT_EQ(op(Op::kSUB, c(3), c(4))->value(), -1);
    EXPECT_EQ(op(Op::kEQUAL, c(3), c(3))->value(), 1);
    EXPECT_EQ(op(Op::kEQUAL, c(3), c(4))->value(), 0);
    EXPECT_EQ(op(Op::kLESS, c(3), c(4))->value(), 1);
    EXPECT_EQ(op(Op::kLESS, c(4), c(3))->value(), 0);
    EXPECT_EQ(op(Op::kFLOOR_DIV, c(7), c(2))->value(), 3);
    EXPECT_EQ(op(Op::kFLOOR_DIV, c(-7), c(2))->value(), -4);
    EXPECT_EQ(op(Op::kCEIL_DIV, c(7), c(2))->value(), 4);
    EXPECT_EQ(op(Op::kCEIL_DIV, c(-7), c(2))->value(), -3);
    EXPECT_EQ(op(Op::kCEIL_DIV, c(8), c(2))->value(), 4);
    EXPECT_EQ(c(5), c(5)) << "one node per constant";
}

TEST_F(ShapeExprTest, InvalidOperationsAreErrorsThatNameTheOperands)
{
    auto const n = mContext.symbol("x.d0", SymbolKind::kINPUT_EXTENT);
    auto byZero = mContext.operation(Op::kFLOOR_DIV, *mContext.constant(4), *mContext.constant(0));
    ASSERT_FALSE(byZero.ok());
    EXPECT_NE(byZero.error().message.find("floor_div(4, 0)"), std::string::npos) << byZero.error().message;
    auto symbolByZero = mContext.operation(Op::kCEIL_DIV, *n, *mContext.constant(0));
    ASSERT_FALSE(symbolByZero.ok());
    EXPECT_NE(symbolByZero.error().message.find("ceil_div(x.d0, 0) divides by zero"), std::string::npos);
    auto overflow
        = mContext.operation(Op::kPROD, *mContext.constant(std::numeric_limits<int64_t>::max()), *mContext.constant(2));
    EXPECT_FALSE(overflow.ok());
    auto badOp = mContext.operation(static_cast<Op>(42), *n, *n);
    ASSERT_FALSE(badOp.ok());
    EXPECT_NE(badOp.error().message.find("invalid DimensionOperation 42"), std::string::npos);
}

TEST_F(ShapeExprTest, IdentitiesSimplifyAndEqualExpressionsShareANode)
{
    auto const n = mContext.symbol("x.d0", SymbolKind::kINPUT_EXTENT);
    auto const m = mContext.symbol("x.d1", SymbolKind::kINPUT_EXTENT);
    EXPECT_EQ(op(Op::kSUM, n, mContext.constant(0)), n);
    EXPECT_EQ(op(Op::kPROD, mContext.constant(1), n), n);
    EXPECT_EQ(op(Op::kPROD, n, mContext.constant(0))->value(), 0);
    EXPECT_EQ(op(Op::kSUB, n, n)->value(), 0);
    EXPECT_EQ(op(Op::kMAX, n, n), n);
    EXPECT_EQ(op(Op::kEQUAL, n, n)->value(), 1);
    EXPECT_EQ(op(Op::kLESS, n, n)->value(), 0);
    EXPECT_EQ(op(Op::kFLOOR_DIV, n, mContext.constant(1)), n);
    EXPECT_EQ(op(Op::kSUM, n, m), op(Op::kSUM, m, n)) << "commutative operands are ordered";
    EXPECT_NE(op(Op::kSUB, n, m), op(Op::kSUB, m, n));
    EXPECT_NE(mContext.symbol("x.d0", SymbolKind::kINPUT_EXTENT), n) << "every symbol is distinct";
}

TEST_F(ShapeExprTest, EqualSumsAndProductsShareANodeWhateverTheirOrder)
{
    auto const a = mContext.symbol("a", SymbolKind::kINPUT_EXTENT);
    auto const b = mContext.symbol("b", SymbolKind::kINPUT_EXTENT);
    auto const c = mContext.symbol("c", SymbolKind::kSHAPE_VALUE);
    auto const k = [&](int64_t v) { return mContext.constant(v); };
    EXPECT_EQ(op(Op::kSUM, op(Op::kSUM, a, b), c), op(Op::kSUM, a, op(Op::kSUM, c, b)));
    EXPECT_EQ(op(Op::kPROD, op(Op::kPROD, a, b), c), op(Op::kPROD, c, op(Op::kPROD, b, a)));
    EXPECT_EQ(op(Op::kPROD, op(Op::kPROD, a, k(3)), op(Op::kPROD, k(4), b)), op(Op::kPROD, op(Op::kPROD, a, b), k(12)));
    EXPECT_EQ(op(Op::kSUB, op(Op::kSUM, a, b), a), b) << "a + b - a";
    EXPECT_EQ(op(Op::kSUM, op(Op::kSUB, a, b), b), a) << "(a - b) + b";
    EXPECT_EQ(op(Op::kSUM, op(Op::kSUM, a, k(2)), k(3)), op(Op::kSUM, k(5), a)) << "constants fold across a sum";
    EXPECT_EQ(op(Op::kSUM, a, a), op(Op::kPROD, k(2), a));
    EXPECT_EQ(op(Op::kPROD, k(3), op(Op::kSUM, a, k(1))), op(Op::kSUM, op(Op::kPROD, a, k(3)), k(3)))
        << "a constant factor distributes over a sum";
    EXPECT_EQ(op(Op::kSUB, op(Op::kPROD, op(Op::kSUM, a, b), c), op(Op::kPROD, c, op(Op::kSUM, b, a)))->value(), 0)
        << "a sum stays one factor of a product, and equal factors cancel";
    EXPECT_EQ(mContext.toString(*op(Op::kSUB, op(Op::kSUM, a, k(2)), b)), "((a - b) + 2)");
    EXPECT_EQ(op(Op::kSUB, op(Op::kSUM, a, k(2)), op(Op::kSUM, b, k(3))), op(Op::kSUB, op(Op::kSUB, a, k(1)), b));
    EXPECT_EQ(mContext.toString(*op(Op::kSUB, k(3), a)), "(3 - a)");
    EXPECT_EQ(mContext.toString(*op(Op::kSUB, op(Op::kSUB, a, k(1)), b)), "((a - b) - 1)");
}

TEST_F(ShapeExprTest, QuotientsDropTheFactorsTheirOperandsShare)
{
    auto const n = mContext.symbol("x.d0", SymbolKind::kINPUT_EXTENT);
    auto const a = mContext.symbol("x.d1", SymbolKind::kINPUT_EXTENT);
    auto const b = mContext.symbol("x.d2", SymbolKind::kINPUT_EXTENT);
    auto const k = [&](int64_t v) { return mContext.constant(v); };
    for (Op const division : {Op::kFLOOR_DIV, Op::kCEIL_DIV})
    {
        // A flatten's inferred extent: (N*c)/N and (N*a*b)/(N*a).
        EXPECT_EQ(op(division, op(Op::kPROD, n, k(128)), n)->value(), 128);
        EXPECT_EQ(op(division, op(Op::kPROD, op(Op::kPROD, n, a), b), op(Op::kPROD, a, n)), b);
        EXPECT_EQ(
            op(division, op(Op::kPROD, op(Op::kPROD, n, k(8)), op(Op::kPROD, k(16), a)), op(Op::kPROD, a, n))->value(),
            128);
        // Exact multiples of a constant, and multiples of a whole sum.
        EXPECT_EQ(op(division, op(Op::kPROD, n, k(6)), k(3)), op(Op::kPROD, n, k(2)));
        EXPECT_EQ(op(division, op(Op::kPROD, op(Op::kSUM, n, k(1)), a), op(Op::kSUM, k(1), n)), a);
        EXPECT_EQ(op(division, op(Op::kSUM, op(Op::kPROD, n, k(2)), k(2)), op(Op::kSUM, n, k(1)))->value(), 2);
        EXPECT_EQ(op(division, k(0), n)->value(), 0);
    }
    // (6N)/(4N) is 1.5 for every N but 0.
    EXPECT_EQ(op(Op::kFLOOR_DIV, op(Op::kPROD, n, k(6)), op(Op::kPROD, n, k(4)))->value(), 1);
    EXPECT_EQ(op(Op::kCEIL_DIV, op(Op::kPROD, n, k(6)), op(Op::kPROD, n, k(4)))->value(), 2);
    // The multiples of a constant divisor come out whole: floor((2N + 3) / 2) = N + 1, ceil = N + 2.
    EXPECT_EQ(op(Op::kFLOOR_DIV, op(Op::kSUM, op(Op::kPROD, n, k(2)), k(3)), k(2)), op(Op::kSUM, n, k(1)));
    EXPECT_EQ(op(Op::kCEIL_DIV, op(Op::kSUM, op(Op::kPROD, n, k(2)), k(3)), k(2)), op(Op::kSUM, n, k(2)));
    // What is not provably constant stays an operation.
    for (DimExpr const* kept : {op(Op::kFLOOR_DIV, op(Op::kSUM, n, k(1)), n), op(Op::kFLOOR_DIV, n, k(2)),
             op(Op::kCEIL_DIV, op(Op::kPROD, n, a), b), op(Op::kFLOOR_DIV, op(Op::kSUM, n, a), n)})
    {
        EXPECT_EQ(kept->kind(), DimExpr::Kind::kOPERATION) << mContext.toString(*kept);
    }
    EXPECT_EQ(mContext.evaluate(*op(Op::kFLOOR_DIV, op(Op::kSUM, n, k(1)), n), {{n->symbol(), 2}}).value(), 1);
}

TEST_F(ShapeExprTest, ComparisonsMaxAndMinOfOperandsThatDifferByAConstantAreDecided)
{
    auto const n = mContext.symbol("x.d0", SymbolKind::kINPUT_EXTENT);
    auto const m = mContext.symbol("x.d1", SymbolKind::kINPUT_EXTENT);
    auto const k = [&](int64_t v) { return mContext.constant(v); };
    auto const nPlus1 = op(Op::kSUM, n, k(1));
    EXPECT_EQ(op(Op::kLESS, n, nPlus1)->value(), 1);
    EXPECT_EQ(op(Op::kLESS, nPlus1, n)->value(), 0);
    EXPECT_EQ(op(Op::kEQUAL, op(Op::kSUB, nPlus1, k(1)), n)->value(), 1);
    EXPECT_EQ(op(Op::kEQUAL, nPlus1, n)->value(), 0);
    EXPECT_EQ(op(Op::kMAX, n, nPlus1), nPlus1);
    EXPECT_EQ(op(Op::kMIN, nPlus1, n), n);
    EXPECT_EQ(
        op(Op::kEQUAL, op(Op::kPROD, op(Op::kSUM, n, m), k(2)), op(Op::kSUM, op(Op::kSUM, m, n), op(Op::kSUM, n, m)))
            ->value(),
        1)
        << "a reshape's check that the element counts agree";
    EXPECT_EQ(op(Op::kLESS, n, m)->kind(), DimExpr::Kind::kOPERATION);
    EXPECT_EQ(op(Op::kMAX, n, k(1))->kind(), DimExpr::Kind::kOPERATION) << "no range is assumed for a symbol";
}

// Random expressions over three symbols, checked point by point against a plain evaluation of the same operations:
// wherever the original has a value (no division by zero), the simplified node has the same one.
TEST_F(ShapeExprTest, SimplifiedExpressionsKeepTheirValueWhereverTheOriginalHasOne)
{
    struct Tree
    {
        Op op{};
        int64_t value{};
        int32_t symbol{-1}; // -1 with no operands: a constant
        std::vector<Tree> operands;
    };
    std::mt19937 random(99);
    std::array<DimExpr const*, 3> const symbols{mContext.symbol("p", SymbolKind::kINPUT_EXTENT),
        mContext.symbol("q", SymbolKind::kINPUT_EXTENT), mContext.symbol("r", SymbolKind::kSHAPE_VALUE)};
    std::function<Tree(int)> grow = [&](int depth) {
        uint32_t const pick = random() % 10;
        if (depth == 0 || pick < 3)
        {
            return pick % 2 == 0 ? Tree{Op::kSUM, static_cast<int64_t>(random() % 7) - 2, -1, {}}
                                 : Tree{Op::kSUM, 0, static_cast<int32_t>(random() % 3), {}};
        }
        // Sums, differences and products more often than the rest, so that factors meet again in quotients.
        static constexpr std::array kOps{Op::kSUM, Op::kSUB, Op::kPROD, Op::kPROD, Op::kPROD, Op::kFLOOR_DIV,
            Op::kCEIL_DIV, Op::kFLOOR_DIV, Op::kMAX, Op::kMIN, Op::kEQUAL, Op::kLESS};
        return Tree{kOps[random() % kOps.size()], 0, -1, {grow(depth - 1), grow(depth - 1)}};
    };
    std::function<std::optional<int64_t>(Tree const&, std::array<int64_t, 3> const&)> value
        = [&](Tree const& t, std::array<int64_t, 3> const& at) -> std::optional<int64_t> {
        if (t.operands.empty())
        {
            return t.symbol < 0 ? t.value : at[static_cast<std::size_t>(t.symbol)];
        }
        auto const x = value(t.operands[0], at);
        auto const y = value(t.operands[1], at);
        if (!x || !y)
        {
            return std::nullopt;
        }
        ExprContext scratch;
        auto const folded = scratch.operation(t.op, *scratch.constant(*x), *scratch.constant(*y));
        return folded.ok() ? std::optional<int64_t>(folded.value()->value()) : std::nullopt;
    };
    std::function<DimExpr const*(Tree const&)> node = [&](Tree const& t) -> DimExpr const* {
        if (t.operands.empty())
        {
            return t.symbol < 0 ? mContext.constant(t.value) : symbols[static_cast<std::size_t>(t.symbol)];
        }
        DimExpr const* x = node(t.operands[0]);
        DimExpr const* y = node(t.operands[1]);
        if (x == nullptr || y == nullptr)
        {
            return nullptr;
        }
        auto made = mContext.operation(t.op, *x, *y);
        return made.ok() ? made.value() : nullptr; // a constant division by zero
    };
    int32_t checked = 0;
    for (int trial = 0; trial < 3000; ++trial)
    {
        Tree const tree = grow(4);
        DimExpr const* expr = node(tree);
        for (int point = 0; expr != nullptr && point < 8; ++point)
        {
            std::array<int64_t, 3> const at{static_cast<int64_t>(random() % 9) - 4,
                static_cast<int64_t>(random() % 9) - 4, static_cast<int64_t>(random() % 9) - 4};
            auto const expected = value(tree, at);
            if (!expected)
            {
                continue;
            }
            auto const actual = mContext.evaluate(
                *expr, {{symbols[0]->symbol(), at[0]}, {symbols[1]->symbol(), at[1]}, {symbols[2]->symbol(), at[2]}});
            ASSERT_TRUE(actual.ok()) << mContext.toString(*expr) << ": " << actual.error().message;
            ASSERT_EQ(actual.value(), *expected)
                << mContext.toString(*expr) << " at " << at[0] << ", " << at[1] << ", " << at[2];
            ++checked;
        }
    }
    EXPECT_GT(checked, 5000);
}

TEST_F(ShapeExprTest, LongSumsAndProductsCostLinearNodes)
{
    // A concatenation of 5000 inputs of distinct extents, and a product of as many: past a few terms the sum is kept
    // as built, so each step adds a bounded number of nodes.
    DimExpr const* sum = mContext.constant(0);
    DimExpr const* product = mContext.constant(1);
    std::map<SymbolId, int64_t> values;
    for (int i = 0; i < 5000; ++i)
    {
        auto const s = mContext.symbol("t" + std::to_string(i) + ".d1", SymbolKind::kINPUT_EXTENT);
        values[s->symbol()] = 1;
        sum = op(Op::kSUM, sum, op(Op::kPROD, s, mContext.constant(2)));
        product = op(Op::kPROD, product, s);
    }
    EXPECT_LT(mContext.nodeCount(), 5000U * 40U);
    EXPECT_EQ(mContext.evaluate(*sum, values).value(), 10000);
    EXPECT_EQ(mContext.evaluate(*product, values).value(), 1);
}

TEST_F(ShapeExprTest, EvaluatesAgainstSymbolValuesAndNamesMissingOnes)
{
    auto const h = mContext.symbol("image.d2", SymbolKind::kINPUT_EXTENT);
    auto const w = mContext.symbol("image.d3", SymbolKind::kINPUT_EXTENT);
    // Output of a 3x3 stride-2 convolution with padding 1: floor((h + 2 - 3) / 2) + 1, and the pad to 32.
    auto const out = op(Op::kSUM,
        op(Op::kFLOOR_DIV, op(Op::kSUB, op(Op::kSUM, h, mContext.constant(2)), mContext.constant(3)),
            mContext.constant(2)),
        mContext.constant(1));
    auto const area = op(Op::kPROD, op(Op::kMAX, h, mContext.constant(32)), w);
    auto value = mContext.evaluate(*out, {{h->symbol(), 224}});
    ASSERT_TRUE(value.ok());
    EXPECT_EQ(value.value(), 112);
    EXPECT_EQ(mContext.evaluate(*area, {{h->symbol(), 7}, {w->symbol(), 5}}).value(), 160);
    EXPECT_EQ(mContext.toString(*area), "(image.d3 * max(image.d2, 32))") << "factors in one order: by creation";

    auto missing = mContext.evaluate(*area, {{h->symbol(), 7}});
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().message.find("no value for image.d3"), std::string::npos) << missing.error().message;

    auto const ratio = op(Op::kFLOOR_DIV, h, w);
    auto divZero = mContext.evaluate(*ratio, {{h->symbol(), 4}, {w->symbol(), 0}});
    ASSERT_FALSE(divZero.ok());
    EXPECT_NE(divZero.error().message.find("division by zero"), std::string::npos);
}

TEST_F(ShapeExprTest, DeepSharedExpressionsEvaluateInLinearTime)
{
    // x, x+x, (x+x)+(x+x), ... : a naive tree walk would take 2^200 steps.
    auto const x = mContext.symbol("x", SymbolKind::kINPUT_EXTENT);
    DimExpr const* e = x;
    for (int i = 0; i < 200; ++i)
    {
        e = op(Op::kMAX, op(Op::kSUM, e, e), e);
    }
    EXPECT_EQ(mContext.evaluate(*e, {{x->symbol(), 0}}).value(), 0);
    EXPECT_EQ(mContext.bounds(*e, {{x->symbol(), {0, 0}}}).value(), (Interval{0, 0}));
}

//! Evaluates expr at every point of the box and checks that bounds() encloses all results.
void expectBoundsEnclose(
    ExprContext& context, DimExpr const& expr, DimExpr const* a, DimExpr const* b, Interval ra, Interval rb, bool exact)
{
    auto const range = context.bounds(expr, {{a->symbol(), ra}, {b->symbol(), rb}});
    ASSERT_TRUE(range.ok()) << range.error().message;
    int64_t lo = std::numeric_limits<int64_t>::max();
    int64_t hi = std::numeric_limits<int64_t>::min();
    for (int64_t x = ra.lo; x <= ra.hi; ++x)
    {
        for (int64_t y = rb.lo; y <= rb.hi; ++y)
        {
            auto const value = context.evaluate(expr, {{a->symbol(), x}, {b->symbol(), y}});
            ASSERT_TRUE(value.ok());
            lo = std::min(lo, value.value());
            hi = std::max(hi, value.value());
        }
    }
    EXPECT_LE(range.value().lo, lo) << context.toString(expr);
    EXPECT_GE(range.value().hi, hi) << context.toString(expr);
    if (exact)
    {
        EXPECT_EQ(range.value(), (Interval{lo, hi})) << context.toString(expr);
    }
}

TEST_F(ShapeExprTest, BoundsEncloseEveryValueOnRandomRanges)
{
    std::mt19937 random(1234);
    std::uniform_int_distribution<int64_t> endpoint(-20, 20);
    auto const a = mContext.symbol("a", SymbolKind::kINPUT_EXTENT);
    auto const b = mContext.symbol("b", SymbolKind::kINPUT_EXTENT);
    for (int trial = 0; trial < 200; ++trial)
    {
        Interval ra{endpoint(random), 0};
        ra.hi = ra.lo + std::uniform_int_distribution<int64_t>(0, 10)(random);
        Interval rb{endpoint(random), 0};
        rb.hi = rb.lo + std::uniform_int_distribution<int64_t>(0, 10)(random);
        for (int32_t o = 0; o < nvinfer1::EnumMax<Op>(); ++o)
        {
            auto const operation = static_cast<Op>(o);
            bool const division = operation == Op::kFLOOR_DIV || operation == Op::kCEIL_DIV;
            if (division && rb.lo <= 0 && rb.hi >= 0)
            {
                auto const risky = mContext.bounds(*op(operation, a, b), {{a->symbol(), ra}, {b->symbol(), rb}});
                EXPECT_FALSE(risky.ok()) << "a divisor range containing 0 must be refused";
                continue;
            }
            // A single operation of two independent symbols is bounded exactly.
            expectBoundsEnclose(mContext, *op(operation, a, b), a, b, ra, rb, true);
        }
        // Compound expressions (with a repeated symbol) are enclosed, not necessarily exactly.
        expectBoundsEnclose(mContext, *op(Op::kSUB, op(Op::kPROD, a, b), op(Op::kMAX, a, b)), a, b, ra, rb, false);
    }
}

TEST_F(ShapeExprTest, SizeTensorsAreBoundedByTheirDeclaredUpperBound)
{
    auto const n = mContext.symbol("x.d0", SymbolKind::kINPUT_EXTENT);
    auto const upper = op(Op::kPROD, n, mContext.constant(2));
    auto const optimum = op(Op::kFLOOR_DIV, n, mContext.constant(2));
    auto size = mContext.sizeTensor("nonzero.output1.size", 1, *optimum, *upper);
    ASSERT_TRUE(size.ok());
    EXPECT_TRUE(size.value()->dependsOnSizeTensor());
    auto const shape = op(Op::kPROD, size.value(), mContext.constant(2));
    EXPECT_TRUE(shape->dependsOnSizeTensor());
    EXPECT_EQ(mContext.bounds(*shape, {{n->symbol(), {1, 10}}}).value(), (Interval{0, 40}));
    EXPECT_EQ(mContext.evaluate(*shape, {{size.value()->symbol(), 6}}).value(), 12) << "known after the plugin runs";

    auto nested = mContext.sizeTensor("bad.output0.size", 0, *shape, *upper);
    ASSERT_FALSE(nested.ok());
    EXPECT_NE(nested.error().message.find("must have an optimum and an upper bound computed from the inputs alone"),
        std::string::npos)
        << nested.error().message;
}

// The plugin-facing objects, used only through IExprBuilder& / IDimensionExpr const* as a plugin does.
TEST_F(ShapeExprTest, PluginSeesConstantsAndOperationsThroughTheInlineWrappers)
{
    PluginExprBuilder builder{mContext, "pad"};
    nvinfer1::IExprBuilder& exprBuilder = builder;
    auto const n = mContext.symbol("x.d0", SymbolKind::kINPUT_EXTENT);
    nvinfer1::IDimensionExpr const* input = n;

    nvinfer1::IDimensionExpr const* thirtyTwo = exprBuilder.constant(32);
    ASSERT_NE(thirtyTwo, nullptr);
    EXPECT_TRUE(thirtyTwo->isConstant());
    EXPECT_EQ(thirtyTwo->getConstantValue(), 32);
    EXPECT_FALSE(thirtyTwo->isSizeTensor());
    EXPECT_FALSE(input->isConstant());
    EXPECT_EQ(input->getConstantValue(), std::numeric_limits<int64_t>::min());

    nvinfer1::IDimensionExpr const* padded = exprBuilder.operation(Op::kMAX, *input, *thirtyTwo);
    ASSERT_NE(padded, nullptr);
    EXPECT_EQ(mContext.evaluate(*mContext.find(padded), {{n->symbol(), 40}}).value(), 40);
    nvinfer1::IDimensionExpr const* folded = exprBuilder.operation(Op::kSUM, *thirtyTwo, *exprBuilder.constant(8));
    EXPECT_TRUE(folded->isConstant());
    EXPECT_EQ(folded->getConstantValue(), 40);
    EXPECT_TRUE(builder.errors().empty());
}

TEST_F(ShapeExprTest, PluginMisuseReturnsNullAndIsRecorded)
{
    PluginExprBuilder builder{mContext, "bar"};
    nvinfer1::IExprBuilder& exprBuilder = builder;
    ExprContext other;
    nvinfer1::IDimensionExpr const* foreign = other.constant(3);
    nvinfer1::IDimensionExpr const* mine = exprBuilder.constant(3);

    EXPECT_EQ(exprBuilder.operation(Op::kSUM, *foreign, *mine), nullptr);
    EXPECT_EQ(exprBuilder.operation(static_cast<Op>(-1), *mine, *mine), nullptr);
    EXPECT_EQ(exprBuilder.operation(Op::kFLOOR_DIV, *mine, *exprBuilder.constant(0)), nullptr);
    ASSERT_EQ(builder.errors().size(), 3U);
    EXPECT_NE(builder.errors()[0].find("first expression was not made by this builder"), std::string::npos);
    EXPECT_NE(builder.errors()[1].find("invalid DimensionOperation -1"), std::string::npos);
    EXPECT_NE(builder.errors()[2].find("division by zero"), std::string::npos);
}

TEST_F(ShapeExprTest, PluginDeclaresSizeTensorsOncePerOutput)
{
    PluginExprBuilder builder{mContext, "nonzero"};
    nvinfer1::IExprBuilder& exprBuilder = builder;
    auto const n = mContext.symbol("x.d0", SymbolKind::kINPUT_EXTENT);
    nvinfer1::IDimensionExpr const* upper = exprBuilder.operation(Op::kPROD, *n, *exprBuilder.constant(4));
    nvinfer1::IDimensionExpr const* opt = exprBuilder.operation(Op::kFLOOR_DIV, *upper, *exprBuilder.constant(2));

    nvinfer1::IDimensionExpr const* k = exprBuilder.declareSizeTensor(1, *opt, *upper);
    ASSERT_NE(k, nullptr);
    EXPECT_TRUE(k->isSizeTensor());
    EXPECT_FALSE(k->isConstant());
    EXPECT_EQ(exprBuilder.declareSizeTensor(1, *opt, *upper), k) << "the same declaration again";
    EXPECT_EQ(mContext.symbolInfo(mContext.find(k)->symbol()).name, "nonzero.output1.size");
    ASSERT_EQ(builder.sizeTensors().size(), 1U);
    EXPECT_EQ(builder.sizeTensors().at(1), mContext.find(k));

    // Output 0 of NonZero is [2, K]: K can be used in other shapes.
    nvinfer1::IDimensionExpr const* total = exprBuilder.operation(Op::kPROD, *exprBuilder.constant(2), *k);
    ASSERT_NE(total, nullptr);
    EXPECT_TRUE(mContext.find(total)->dependsOnSizeTensor());

    EXPECT_EQ(exprBuilder.declareSizeTensor(1, *upper, *upper), nullptr);
    EXPECT_EQ(exprBuilder.declareSizeTensor(2, *k, *upper), nullptr);
    ASSERT_EQ(builder.errors().size(), 2U);
    EXPECT_NE(builder.errors()[0].find("output 1 was already declared"), std::string::npos);
    EXPECT_NE(builder.errors()[1].find("computed from the inputs alone"), std::string::npos);
}

} // namespace
} // namespace kiln
