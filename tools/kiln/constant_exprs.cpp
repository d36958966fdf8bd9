// SPDX-License-Identifier: Apache-2.0
#include "constant_exprs.h"

#include <limits>
#include <unordered_map>

namespace kiln_tool
{
namespace
{

using namespace nvinfer1;

//! One expression: a constant, or not (a size tensor, or an operation on one).
class Expr final : public IDimensionExpr
{
public:
    Expr(std::optional<int64_t> value, bool sizeTensor)
        : mValue(value)
        , mSizeTensor(sizeTensor)
        , mImplObject(*this)
    {
        mImpl = &mImplObject;
    }
    ~Expr() noexcept override = default;

    std::optional<int64_t> value() const noexcept { return mValue; }

private:
    class Impl final : public apiv::VDimensionExpr
    {
    public:
        explicit Impl(Expr const& owner)
            : mOwner(owner)
        {
        }
        bool isConstant() const override { return mOwner.mValue.has_value(); }
        int64_t getConstantValue() const override
        {
            return mOwner.mValue.value_or(std::numeric_limits<int64_t>::min());
        }
        bool isSizeTensor() const override { return mOwner.mSizeTensor; }

    private:
        Expr const& mOwner;
    };

    std::optional<int64_t> mValue;
    bool mSizeTensor;
    Impl mImplObject;
};

char const* operationName(DimensionOperation op)
{
    switch (op)
    {
    case DimensionOperation::kSUM: return "kSUM";
    case DimensionOperation::kPROD: return "kPROD";
    case DimensionOperation::kMAX: return "kMAX";
    case DimensionOperation::kMIN: return "kMIN";
    case DimensionOperation::kSUB: return "kSUB";
    case DimensionOperation::kEQUAL: return "kEQUAL";
    case DimensionOperation::kLESS: return "kLESS";
    case DimensionOperation::kFLOOR_DIV: return "kFLOOR_DIV";
    case DimensionOperation::kCEIL_DIV: return "kCEIL_DIV";
    }
    return "an unknown operation";
}

//! op(a, b), or nullopt for an unknown op or a division by zero.
std::optional<int64_t> fold(DimensionOperation op, int64_t a, int64_t b)
{
    switch (op)
    {
    case DimensionOperation::kSUM: return a + b;
    case DimensionOperation::kPROD: return a * b;
    case DimensionOperation::kMAX: return std::max(a, b);
    case DimensionOperation::kMIN: return std::min(a, b);
    case DimensionOperation::kSUB: return a - b;
    case DimensionOperation::kEQUAL: return a == b ? 1 : 0;
    case DimensionOperation::kLESS: return a < b ? 1 : 0;
    case DimensionOperation::kFLOOR_DIV:
        if (b == 0)
        {
            return std::nullopt;
        }
        return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0);
    case DimensionOperation::kCEIL_DIV:
        if (b == 0)
        {
            return std::nullopt;
        }
        return a / b + ((a % b != 0) && ((a < 0) == (b < 0)) ? 1 : 0);
    }
    return std::nullopt;
}

} // namespace

class ConstantExprBuilder::Impl final : public apiv::VExprBuilder
{
public:
    IDimensionExpr const* constant(int64_t value) override { return make(value, false); }

    IDimensionExpr const* operation(
        DimensionOperation op, IDimensionExpr const& first, IDimensionExpr const& second) override
    {
        Expr const* a = find(&first);
        Expr const* b = find(&second);
        if (a == nullptr || b == nullptr)
        {
            mMisuses.push_back(std::string("operation(") + operationName(op)
                + ") was given an expression this IExprBuilder did not make");
            return nullptr;
        }
        if (!a->value() || !b->value())
        {
            return make(std::nullopt, false);
        }
        std::optional<int64_t> const value = fold(op, *a->value(), *b->value());
        if (!value)
        {
            mMisuses.push_back(std::string("operation(") + operationName(op) + ", " + std::to_string(*a->value()) + ", "
                + std::to_string(*b->value()) + ") has no value (an unknown operation or a division by 0)");
            return nullptr;
        }
        return make(value, false);
    }

    IDimensionExpr const* declareSizeTensor(int32_t, IDimensionExpr const& opt, IDimensionExpr const& upper) override
    {
        if (find(&opt) == nullptr || find(&upper) == nullptr)
        {
            mMisuses.push_back("declareSizeTensor was given an expression this IExprBuilder did not make");
            return nullptr;
        }
        mSizeTensor = true;
        return make(std::nullopt, true);
    }

    Expr const* find(IDimensionExpr const* expr) const noexcept
    {
        auto const found = mOwned.find(expr);
        return found != mOwned.end() ? found->second : nullptr;
    }

    std::vector<std::string> mMisuses;
    bool mSizeTensor{false};

private:
    Expr const* make(std::optional<int64_t> value, bool sizeTensor)
    {
        mNodes.push_back(std::make_unique<Expr>(value, sizeTensor));
        Expr const* node = mNodes.back().get();
        mOwned.emplace(static_cast<IDimensionExpr const*>(node), node);
        return node;
    }

    std::deque<std::unique_ptr<Expr>> mNodes;
    std::unordered_map<IDimensionExpr const*, Expr const*> mOwned;
};

ConstantExprBuilder::ConstantExprBuilder()
    : mImplObject(std::make_unique<Impl>())
{
    mImpl = mImplObject.get();
}

ConstantExprBuilder::~ConstantExprBuilder() noexcept = default;

bool ConstantExprBuilder::owns(IDimensionExpr const* expr) const noexcept
{
    return mImplObject->find(expr) != nullptr;
}

std::optional<int64_t> ConstantExprBuilder::valueOf(IDimensionExpr const* expr) const noexcept
{
    Expr const* node = mImplObject->find(expr);
    return node != nullptr ? node->value() : std::nullopt;
}

std::vector<std::string> const& ConstantExprBuilder::misuses() const noexcept
{
    return mImplObject->mMisuses;
}

bool ConstantExprBuilder::declaredSizeTensor() const noexcept
{
    return mImplObject->mSizeTensor;
}

} // namespace kiln_tool
