// SPDX-License-Identifier: Apache-2.0
// Symbolic dimensions: folding, sharing, evaluation, interval bounds, and the IExprBuilder / IDimensionExpr
// objects plugins receive, used only through the public inline wrappers (the path a compiled plugin takes).
#include "core/shape_expr.h"

#include <gtest/gtest.h>

#include <random>

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
    EXPECT_EQ(mContext.toString(*area), "(max(image.d2, 32) * image.d3)");

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
