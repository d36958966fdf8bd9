// SPDX-License-Identifier: Apache-2.0
// Fill: generates a tensor (linear ramp, uniform or normal random values). The shape, alpha and beta are
// parameters or tensor inputs 0, 1 and 2; setting a parameter drops the tensor input that gave it.
#include "core/float_convert.h"
#include "network/checks.h"
#include "network/network.h"
#include "network/shape_rules.h"

#include <algorithm>
#include <optional>

namespace kiln
{

using nvinfer1::FillOperation;

namespace
{

//! Why a fill of op cannot produce type, or nullptr.
char const* fillTypeProblem(FillOperation op, DataType type) noexcept
{
    bool const floating = type == DataType::kFLOAT || type == DataType::kHALF;
    if (!floating && type != DataType::kINT32 && type != DataType::kINT64)
    {
        return "a fill produces kFLOAT, kHALF, kINT32 or kINT64";
    }
    if (!floating && op != FillOperation::kLINSPACE)
    {
        return "random fills produce kFLOAT or kHALF";
    }
    return nullptr;
}

} // namespace

template <>
class KindImpl<LayerType::kFILL> final : public nvinfer1::apiv::VFillLayer, public KindBase
{
public:
    using KindBase::KindBase;

    void setDimensions(Dims const& dimensions) noexcept override
    {
        if (mLayer.checkDims("setDimensions", "the dimensions", dimensions, 0))
        {
            edit().dims = dimensions;
            mLayer.clearInput(0);
        }
    }
    Dims getDimensions() const noexcept override { return mLayer.input(0) != nullptr ? kUnsetDims : p().dims; }
    void setOperation(FillOperation op) noexcept override
    {
        if (!mLayer.checkEnum("setOperation", "fill operation", op))
        {
            return;
        }
        if (char const* problem = fillTypeProblem(op, p().toType))
        {
            mLayer.fail("setOperation", "operation ", op, " with output type ", p().toType, ": ", problem);
            return;
        }
        edit().op = op;
    }
    FillOperation getOperation() const noexcept override { return p().op; }
    void setAlpha(double alpha) noexcept override
    {
        edit().alpha = alpha;
        edit().alphaInt64 = saturatingInteger<int64_t>(alpha);
        edit().alphaBetaInt64 = false;
        mLayer.clearInput(1);
    }
    double getAlpha() const noexcept override { return mLayer.input(1) != nullptr ? -1.0 : p().alpha; }
    void setBeta(double beta) noexcept override
    {
        edit().beta = beta;
        edit().betaInt64 = saturatingInteger<int64_t>(beta);
        edit().alphaBetaInt64 = false;
        mLayer.clearInput(2);
    }
    double getBeta() const noexcept override { return mLayer.input(2) != nullptr ? -1.0 : p().beta; }
    void setAlphaInt64(int64_t alpha) noexcept override
    {
        edit().alphaInt64 = alpha;
        edit().alpha = static_cast<double>(alpha);
        edit().alphaBetaInt64 = true;
        mLayer.clearInput(1);
    }
    int64_t getAlphaInt64() const noexcept override { return mLayer.input(1) != nullptr ? -1 : p().alphaInt64; }
    void setBetaInt64(int64_t beta) noexcept override
    {
        edit().betaInt64 = beta;
        edit().beta = static_cast<double>(beta);
        edit().alphaBetaInt64 = true;
        mLayer.clearInput(2);
    }
    int64_t getBetaInt64() const noexcept override { return mLayer.input(2) != nullptr ? -1 : p().betaInt64; }
    bool isAlphaBetaInt64() const noexcept override { return p().alphaBetaInt64; }
    DataType getToType() const noexcept override { return p().toType; }
    void setToType(DataType toType) noexcept override
    {
        if (!mLayer.checkEnum("setToType", "data type", toType))
        {
            return;
        }
        if (char const* problem = fillTypeProblem(p().op, toType))
        {
            mLayer.fail("setToType", "output type ", toType, " with operation ", p().op, ": ", problem);
            return;
        }
        edit().toType = toType;
    }

    //! Inputs: 0 shape, 1 alpha, 2 beta.
    int32_t inputCapacity() const noexcept { return 3; }
    bool isShapeInput(int32_t index) const noexcept { return index == 0; }
    bool computesShapeValues() const noexcept { return true; }
    DataType outputType(int32_t /*index*/) const noexcept { return p().toType; }
    Dims outputDims(int32_t /*index*/) const noexcept
    {
        if (mLayer.input(0) == nullptr)
        {
            return p().dims;
        }
        Dims const shape = inputDims(0);
        bool const known = shape.nbDims == 1 && shape.d[0] >= 0 && shape.d[0] <= Dims::MAX_DIMS;
        return known ? filledDims(static_cast<int32_t>(shape.d[0]), -1) : kUnsetDims;
    }

private:
    FillParams const& p() const noexcept { return mLayer.paramsAs<FillParams>(); }
    //! The parameters, to change: the layer's outputs are then computed again (Layer::editParams).
    FillParams& edit() noexcept { return mLayer.editParams<FillParams>(); }
};

nvinfer1::IFillLayer* NetworkApi::addFillV2(Dims const& dimensions, FillOperation op, DataType outputType) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addFill";
    return mNetwork.reporter().guard(
        kWhere, static_cast<nvinfer1::IFillLayer*>(nullptr), [&]() -> nvinfer1::IFillLayer* {
            if (dimensions.nbDims < 0 || dimensions.nbDims > Dims::MAX_DIMS || !staticVolume(dimensions))
            {
                return mNetwork.fail(kWhere, "the dimensions ", dimensions,
                    " are not a static shape (0 to 8 extents, each at least 0); give a shape tensor with setInput(0) "
                    "instead");
            }
            if (!isValidEnum(op))
            {
                return mNetwork.fail(kWhere, "fill operation ", op, " is not a valid FillOperation");
            }
            if (!isValidEnum(outputType))
            {
                return mNetwork.fail(kWhere, "output type ", outputType, " is not a valid DataType");
            }
            if (char const* problem = fillTypeProblem(op, outputType))
            {
                return mNetwork.fail(kWhere, "operation ", op, " with output type ", outputType, ": ", problem);
            }
            FillParams params;
            params.dims = dimensions;
            params.op = op;
            params.toType = outputType;
            return &mNetwork.addLayer<LayerType::kFILL>({}, std::move(params), 1);
        });
}

nvinfer1::IFillLayer* NetworkApi::addFill(Dims const& dimensions, FillOperation op) noexcept
{
    return addFillV2(dimensions, op, DataType::kFLOAT);
}

// The symbolic shape rule (network/shape_rules.h).
Expected<std::vector<SymbolicTensor>> inferOutputShapes(FillParams const& params, ShapeRuleContext& context)
{
    SymbolicTensor const& shape = context.input(0);
    if (!shape.present())
    {
        return context.finish({SymbolicTensor{constantDims(context.exprs(), params.dims), std::nullopt, {}}});
    }
    int64_t length = 0;
    if (shape.rank() != 1 || !isConstantExpr((*shape.shape)[0], &length))
    {
        return context.error("input 0 (the shape) has shape ", context.str(*shape.shape),
            "; it must be a 1-D shape tensor of build-time length");
    }
    if (!shape.values)
    {
        return context.error("the values of input 0 (the shape) are not known symbolically");
    }
    for (std::size_t i = 0; i < shape.values->size(); ++i)
    {
        int64_t value = 0;
        if (isConstantExpr((*shape.values)[i], &value) && value < 0)
        {
            return context.error("extent ", i, " of the shape given by input 0 is ", value, "; extents are at least 0");
        }
    }
    return context.finish({SymbolicTensor{*shape.values, std::nullopt, {}}});
}

} // namespace kiln
