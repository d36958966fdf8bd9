// Test fixture: the engine side of dimension expressions. Implements the hidden interfaces apiv::VDimensionExpr and
// apiv::VExprBuilder with the spec's exact signatures (section 4.10: const, not noexcept) and wraps them in
// IDimensionExpr / IExprBuilder objects with the [vptr][mImpl] layout plugins expect, so tests can run a plugin's
// getOutputShapes / getOutputDimensions. Constant expressions are folded; anything else is "not constant".
// C++14, RTTI-free.

#ifndef KILN_TESTS_HEADERS_EXPR_FIXTURES_H
#define KILN_TESTS_HEADERS_EXPR_FIXTURES_H

#include "NvInferRuntime.h"
#include "fixture_common.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

namespace kiln_test
{

//! The implementation behind one dimension expression.
class FullDimensionExprImpl : public nvinfer1::apiv::VDimensionExpr
{
public:
    explicit FullDimensionExprImpl(bool constant = true, int64_t value = 0, bool sizeTensor = false) noexcept
        : mConstant(constant)
        , mValue(value)
        , mSizeTensor(sizeTensor)
    {
    }

    ~FullDimensionExprImpl() noexcept override = default;

    bool isConstant() const override { return mConstant; }

    int64_t getConstantValue() const override { return mConstant ? mValue : std::numeric_limits<int64_t>::min(); }

    bool isSizeTensor() const override { return mSizeTensor; }

private:
    LiveCounter mCounter;
    bool mConstant;
    int64_t mValue;
    bool mSizeTensor;
};

//! An IDimensionExpr as the engine hands it to plugins: a wrapper whose mImpl points at its own implementation.
class TestDimensionExpr : public nvinfer1::IDimensionExpr
{
public:
    explicit TestDimensionExpr(bool constant = true, int64_t value = 0, bool sizeTensor = false) noexcept
        : mImplementation(constant, value, sizeTensor)
    {
        mImpl = &mImplementation;
    }

    ~TestDimensionExpr() noexcept override = default;

    //! The implementation pointer, for layout checks.
    nvinfer1::apiv::VDimensionExpr* impl() const noexcept { return mImpl; }

    //! Where mImpl lies inside the object, in bytes.
    std::ptrdiff_t implOffset() const noexcept
    {
        return reinterpret_cast<char const*>(&mImpl) - reinterpret_cast<char const*>(this);
    }

private:
    FullDimensionExprImpl mImplementation;
};

//! The implementation behind an IExprBuilder; owns every expression it makes.
class FullExprBuilderImpl : public nvinfer1::apiv::VExprBuilder
{
public:
    ~FullExprBuilderImpl() noexcept override = default;

    nvinfer1::IDimensionExpr const* constant(int64_t value) override { return make(true, value, false); }

    nvinfer1::IDimensionExpr const* operation(nvinfer1::DimensionOperation op, nvinfer1::IDimensionExpr const& first,
        nvinfer1::IDimensionExpr const& second) override
    {
        int32_t const opIndex = static_cast<int32_t>(op);
        if (opIndex < 0 || opIndex >= nvinfer1::EnumMax<nvinfer1::DimensionOperation>())
        {
            return nullptr;
        }
        if (!first.isConstant() || !second.isConstant())
        {
            return make(false, 0, false);
        }
        int64_t const a = first.getConstantValue();
        int64_t const b = second.getConstantValue();
        bool const divides
            = op == nvinfer1::DimensionOperation::kFLOOR_DIV || op == nvinfer1::DimensionOperation::kCEIL_DIV;
        if (divides && b == 0)
        {
            return nullptr;
        }
        return make(true, evaluate(op, a, b), false);
    }

    nvinfer1::IDimensionExpr const* declareSizeTensor(
        int32_t outputIndex, nvinfer1::IDimensionExpr const& opt, nvinfer1::IDimensionExpr const& upper) override
    {
        mLastSizeTensorOutput = outputIndex;
        mLastSizeTensorOpt = opt.getConstantValue();
        mLastSizeTensorUpper = upper.getConstantValue();
        return make(false, 0, true);
    }

    int32_t lastSizeTensorOutput() const noexcept { return mLastSizeTensorOutput; }

    int64_t lastSizeTensorOpt() const noexcept { return mLastSizeTensorOpt; }

    int64_t lastSizeTensorUpper() const noexcept { return mLastSizeTensorUpper; }

private:
    static int64_t evaluate(nvinfer1::DimensionOperation op, int64_t a, int64_t b) noexcept
    {
        switch (op)
        {
        case nvinfer1::DimensionOperation::kSUM: return a + b;
        case nvinfer1::DimensionOperation::kPROD: return a * b;
        case nvinfer1::DimensionOperation::kMAX: return a > b ? a : b;
        case nvinfer1::DimensionOperation::kMIN: return a < b ? a : b;
        case nvinfer1::DimensionOperation::kSUB: return a - b;
        case nvinfer1::DimensionOperation::kEQUAL: return a == b ? 1 : 0;
        case nvinfer1::DimensionOperation::kLESS: return a < b ? 1 : 0;
        case nvinfer1::DimensionOperation::kFLOOR_DIV: return (a / b) - ((a % b != 0 && (a < 0) != (b < 0)) ? 1 : 0);
        case nvinfer1::DimensionOperation::kCEIL_DIV: return (a / b) + ((a % b != 0 && (a < 0) == (b < 0)) ? 1 : 0);
        }
        return 0;
    }

    nvinfer1::IDimensionExpr const* make(bool isConstant, int64_t value, bool sizeTensor)
    {
        mExprs.push_back(std::unique_ptr<TestDimensionExpr>(new TestDimensionExpr(isConstant, value, sizeTensor)));
        return mExprs.back().get();
    }

    LiveCounter mCounter;
    std::vector<std::unique_ptr<TestDimensionExpr>> mExprs;
    int32_t mLastSizeTensorOutput{-1};
    int64_t mLastSizeTensorOpt{0};
    int64_t mLastSizeTensorUpper{0};
};

//! An IExprBuilder as the engine hands it to plugins.
class TestExprBuilder : public nvinfer1::IExprBuilder
{
public:
    TestExprBuilder() noexcept { mImpl = &mImplementation; }

    ~TestExprBuilder() noexcept override = default;

    FullExprBuilderImpl& implementation() noexcept { return mImplementation; }

    //! Where mImpl lies inside the object, in bytes.
    std::ptrdiff_t implOffset() const noexcept
    {
        return reinterpret_cast<char const*>(&mImpl) - reinterpret_cast<char const*>(this);
    }

private:
    FullExprBuilderImpl mImplementation;
};

} // namespace kiln_test

#endif // KILN_TESTS_HEADERS_EXPR_FIXTURES_H
