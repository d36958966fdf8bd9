// SPDX-License-Identifier: Apache-2.0
// Cumulative: successive reductions (kSUM: prefix sums) along one axis, forward or reverse, inclusive or exclusive. The
// output has the input's type and shape. Input 1 is the axis, a 0-D kINT32 or kINT64 tensor whose value must be known
// at build time (TensorRT's operator reference, Cumulative: "axis must be a build-time constant 0D tensor"), in
// [-rank, rank - 1]; negative values count from the end. The input has rank 1 or more and one of kFLOAT, kHALF,
// kBF16, kINT32 and kINT64 (the reference's types).
//
// What kiln checks: the operation at the methods; the input's rank and type at addCumulative; the axis tensor's rank
// and type at addCumulative and in the shape rule, which also needs its value and checks its range.
#include "core/data_type.h"
#include "network/checks.h"
#include "network/network.h"
#include "network/shape_rules.h"

namespace kiln
{

using nvinfer1::CumulativeOperation;

namespace
{

//! Whether type is one the layer takes for its data.
bool isCumulativeType(DataType type) noexcept
{
    return type == DataType::kFLOAT || type == DataType::kHALF || type == DataType::kBF16 || type == DataType::kINT32
        || type == DataType::kINT64;
}

} // namespace

template <>
class KindImpl<LayerType::kCUMULATIVE> final : public nvinfer1::apiv::VCumulativeLayer, public KindBase
{
public:
    using KindBase::KindBase;

    bool setOperation(CumulativeOperation op) noexcept override
    {
        if (!mLayer.checkEnum("setOperation", "operation", op))
        {
            return false;
        }
        edit().op = op;
        return true;
    }
    CumulativeOperation getOperation() const noexcept override { return p().op; }
    void setExclusive(bool exclusive) noexcept override { edit().exclusive = exclusive; }
    bool getExclusive() const noexcept override { return p().exclusive; }
    void setReverse(bool reverse) noexcept override { edit().reverse = reverse; }
    bool getReverse() const noexcept override { return p().reverse; }

    //! Inputs: 0 data, 1 axis.
    bool isShapeInput(int32_t index) const noexcept { return index == 1; }
    DataType outputType(int32_t /*index*/) const noexcept { return inputType(0); }
    Dims outputDims(int32_t /*index*/) const noexcept { return inputDims(0); }

private:
    CumulativeParams const& p() const noexcept { return mLayer.paramsAs<CumulativeParams>(); }
    //! The parameters, to change: the layer's outputs are then computed again (Layer::editParams).
    CumulativeParams& edit() noexcept { return mLayer.editParams<CumulativeParams>(); }
};

nvinfer1::ICumulativeLayer* NetworkApi::addCumulative(nvinfer1::ITensor& input, nvinfer1::ITensor& axis,
    CumulativeOperation operation, bool exclusive, bool reverse) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addCumulative";
    return mNetwork.reporter().guard(
        kWhere, static_cast<nvinfer1::ICumulativeLayer*>(nullptr), [&]() -> nvinfer1::ICumulativeLayer* {
            Tensor* data = mNetwork.own(&input, kWhere, "input");
            Tensor* axisTensor = data == nullptr ? nullptr : mNetwork.own(&axis, kWhere, "axis");
            if (data == nullptr || axisTensor == nullptr)
            {
                return nullptr;
            }
            if (!isValidEnum(operation))
            {
                return mNetwork.fail(kWhere, "operation ", operation, " is not a valid CumulativeOperation");
            }
            if (data->dims().nbDims == 0)
            {
                return mNetwork.fail(kWhere, "input ", quotedText(data->name()), " has rank 0; a cumulative operation ",
                    "needs an axis (rank 1 or more)");
            }
            if (!isCumulativeType(data->type()))
            {
                return mNetwork.fail(kWhere, "input ", quotedText(data->name()), " is ", dataTypeName(data->type()),
                    "; a cumulative operation takes kFLOAT, kHALF, kBF16, kINT32 or kINT64");
            }
            if (axisTensor->dims().nbDims > 0 || !isIndexType(axisTensor->type()))
            {
                return mNetwork.fail(kWhere, "the axis ", quotedText(axisTensor->name()), " is ",
                    dataTypeName(axisTensor->type()), " ", axisTensor->dims(),
                    "; it must be a 0-D kINT32 or kINT64 tensor");
            }
            CumulativeParams params;
            params.op = operation;
            params.exclusive = exclusive;
            params.reverse = reverse;
            return &mNetwork.addLayer<LayerType::kCUMULATIVE>({data, axisTensor}, params, 1);
        });
}

// The symbolic shape rule (network/shape_rules.h).
Expected<std::vector<SymbolicTensor>> inferOutputShapes(CumulativeParams const& params, ShapeRuleContext& context)
{
    SymbolicTensor const& data = context.input(0);
    if (!data.present())
    {
        return context.error("input 0 is missing");
    }
    if (!isValidEnum(params.op))
    {
        return context.error("operation ", static_cast<int32_t>(params.op), " is not a valid CumulativeOperation");
    }
    int32_t const rank = data.rank();
    if (rank < 1)
    {
        return context.error("input 0 has rank 0; a cumulative operation needs rank 1 or more");
    }
    SymbolicTensor const& axis = context.input(1);
    if (!axis.present())
    {
        return context.error("input 1 (the axis) is missing");
    }
    if (axis.rank() != 0 || !isIndexType(axis.type))
    {
        return context.error("input 1 (the axis) is ", dataTypeName(axis.type), " of shape ", context.str(*axis.shape),
            "; it must be a 0-D kINT32 or kINT64 tensor");
    }
    int64_t value = 0;
    if (!axis.values || axis.values->size() != 1 || !isConstantExpr(axis.values->front(), &value))
    {
        return context.error("the value of input 1 (the axis) must be known at build time");
    }
    if (value < -rank || value >= rank)
    {
        return context.error(
            "the axis is ", value, "; for an input of rank ", rank, " it must be in [", -rank, ", ", rank - 1, "]");
    }
    return context.finish({SymbolicTensor{*data.shape, std::nullopt, data.type}});
}

} // namespace kiln
