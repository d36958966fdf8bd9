// SPDX-License-Identifier: Apache-2.0
// TopK: the k largest (kMAX) or smallest (kMIN) elements along one axis, sorted, with their indices along it. Output 0
// has the input's type, output 1 the indices type (kINT32, or kINT64 through setIndicesType / addTopK's V2 form). k is
// a parameter or the value of input 1, a 0-D kINT32 or kINT64 shape tensor; setting k drops input 1.
//
// What kiln checks: the axes mask has exactly one bit, below the input's rank; 0 <= k <= the axis' extent (at the
// layer's methods when the extent is known, else in the shape rule and, for extents known only at run time, as a
// shape assertion). kiln has no upper bound of its own on k (TensorRT documents k <= 3840), and takes any axis
// (TensorRT's operator reference says one of the last four). k == 0 gives empty outputs.
#include "core/data_type.h"
#include "network/checks.h"
#include "network/indices_type.h"
#include "network/network.h"
#include "network/shape_rules.h"

#include <bit>
#include <optional>

namespace kiln
{

using nvinfer1::TopKOperation;

namespace
{

//! The axis of a one-bit mask below rank (any rank when it is unknown), or nullopt.
std::optional<int32_t> axisOf(uint32_t axes, int32_t rank) noexcept
{
    if (std::popcount(axes) != 1)
    {
        return std::nullopt;
    }
    auto const axis = static_cast<int32_t>(std::countr_zero(axes));
    return rank < 0 || axis < rank ? std::optional(axis) : std::nullopt;
}

//! Why the axes mask does not name one axis of a tensor of rank, or nullptr.
char const* axesProblem(uint32_t axes, int32_t rank) noexcept
{
    if (std::popcount(axes) != 1)
    {
        return "must have exactly one bit set (the axis)";
    }
    return axisOf(axes, rank) ? nullptr : "names an axis at or beyond the input's rank";
}

//! The extent of the input along axis when it is known at network time, or -1.
int64_t knownExtent(Dims const& input, uint32_t axes) noexcept
{
    std::optional<int32_t> const axis = axisOf(axes, input.nbDims);
    return axis && input.nbDims >= 0 ? input.d[*axis] : -1;
}

} // namespace

template <>
class KindImpl<LayerType::kTOPK> final : public nvinfer1::apiv::VTopKLayer, public KindBase
{
public:
    using KindBase::KindBase;

    void setOperation(TopKOperation op) noexcept override
    {
        if (mLayer.checkEnum("setOperation", "operation", op))
        {
            edit().op = op;
        }
    }
    TopKOperation getOperation() const noexcept override { return p().op; }
    void setK(int32_t k) noexcept override
    {
        int64_t const extent = knownExtent(inputDims(0), p().axes);
        if (k < 0)
        {
            mLayer.fail("setK", "k is ", k, "; it must be at least 0");
            return;
        }
        if (extent >= 0 && k > extent)
        {
            mLayer.fail("setK", "k is ", k, " but the input ", inputDims(0), " has only ", extent,
                " elements along the axis; k must be at most that");
            return;
        }
        edit().k = k;
        mLayer.clearInput(1);
    }
    int32_t getK() const noexcept override { return mLayer.input(1) != nullptr ? -1 : p().k; }
    void setReduceAxes(uint32_t reduceAxes) noexcept override
    {
        Dims const input = inputDims(0);
        if (char const* problem = axesProblem(reduceAxes, input.nbDims))
        {
            mLayer.fail("setReduceAxes", "the axes mask ", reduceAxes, " ", problem, " (the input is ", input, ")");
            return;
        }
        int64_t const extent = knownExtent(input, reduceAxes);
        if (mLayer.input(1) == nullptr && extent >= 0 && p().k > extent)
        {
            mLayer.fail("setReduceAxes", "the axes mask ", reduceAxes, " names an axis of ", extent,
                " elements in the input ", input, ", fewer than k (", p().k, ")");
            return;
        }
        edit().axes = reduceAxes;
    }
    uint32_t getReduceAxes() const noexcept override { return p().axes; }
    bool setIndicesType(DataType type) noexcept override
    {
        if (!checkIndicesType(mLayer, type))
        {
            return false;
        }
        edit().indicesType = type;
        return true;
    }
    DataType getIndicesType() const noexcept override { return p().indicesType; }

    //! Inputs: 0 data, 1 k.
    int32_t inputCapacity() const noexcept { return 2; }
    bool isShapeInput(int32_t index) const noexcept { return index == 1; }
    DataType outputType(int32_t index) const noexcept { return index == 1 ? p().indicesType : inputType(0); }
    Dims outputDims(int32_t /*index*/) const noexcept
    {
        Dims result = inputDims(0);
        std::optional<int32_t> const axis = axisOf(p().axes, result.nbDims);
        if (result.nbDims < 0 || !axis)
        {
            return kUnsetDims;
        }
        result.d[*axis] = mLayer.input(1) != nullptr ? -1 : p().k;
        return result;
    }

private:
    TopKParams const& p() const noexcept { return mLayer.paramsAs<TopKParams>(); }
    //! The parameters, to change: the layer's outputs are then computed again (Layer::editParams).
    TopKParams& edit() noexcept { return mLayer.editParams<TopKParams>(); }
};

nvinfer1::ITopKLayer* NetworkApi::addTopKV2(
    nvinfer1::ITensor& input, TopKOperation op, int32_t k, uint32_t reduceAxes, DataType indicesType) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addTopK";
    return mNetwork.reporter().guard(
        kWhere, static_cast<nvinfer1::ITopKLayer*>(nullptr), [&]() -> nvinfer1::ITopKLayer* {
            Tensor* data = mNetwork.own(&input, kWhere, "input");
            if (data == nullptr)
            {
                return nullptr;
            }
            if (!isValidEnum(op))
            {
                return mNetwork.fail(kWhere, "operation ", op, " is not a valid TopKOperation");
            }
            Dims const dims = data->dims();
            if (char const* problem = axesProblem(reduceAxes, dims.nbDims))
            {
                return mNetwork.fail(kWhere, "the axes mask ", reduceAxes, " ", problem, " (input ",
                    quotedText(data->name()), " ", dims, ")");
            }
            if (k < 0)
            {
                return mNetwork.fail(kWhere, "k is ", k, "; it must be at least 0");
            }
            int64_t const extent = knownExtent(dims, reduceAxes);
            if (extent >= 0 && k > extent)
            {
                return mNetwork.fail(kWhere, "k is ", k, " but input ", quotedText(data->name()), " ", dims,
                    " has only ", extent, " elements along the axis; k must be at most that");
            }
            if (!isIndexType(indicesType))
            {
                return mNetwork.fail(kWhere, "the indices type ", dataTypeName(indicesType), " (", indicesType,
                    ") is not kINT32 or kINT64");
            }
            return &mNetwork.addLayer<LayerType::kTOPK>({data}, TopKParams{op, k, reduceAxes, indicesType}, 2);
        });
}

nvinfer1::ITopKLayer* NetworkApi::addTopK(
    nvinfer1::ITensor& input, TopKOperation op, int32_t k, uint32_t reduceAxes) noexcept
{
    return addTopKV2(input, op, k, reduceAxes, DataType::kINT32);
}

// The symbolic shape rule (network/shape_rules.h).
Expected<std::vector<SymbolicTensor>> inferOutputShapes(TopKParams const& params, ShapeRuleContext& context)
{
    SymbolicTensor const& data = context.input(0);
    if (!data.present())
    {
        return context.error("input 0 is missing");
    }
    int32_t const rank = data.rank();
    if (char const* problem = axesProblem(params.axes, rank))
    {
        return context.error("the axes mask ", params.axes, " ", problem, " (the input has rank ", rank, ")");
    }
    if (!isIndexType(params.indicesType))
    {
        return context.error("the indices type ", dataTypeName(params.indicesType), " is not kINT32 or kINT64");
    }
    auto const axis = static_cast<std::size_t>(*axisOf(params.axes, rank));
    DimExpr const* extent = (*data.shape)[axis];

    // k: the parameter, or the value of input 1 (a 0-D shape tensor).
    DimExpr const* k = context.constant(params.k);
    std::string what = "k (" + std::to_string(params.k) + ")";
    if (SymbolicTensor const& given = context.input(1); given.present())
    {
        if (given.rank() != 0 || !isIndexType(given.type))
        {
            return context.error("input 1 (k) is ", dataTypeName(given.type), " of shape ", context.str(*given.shape),
                "; it must be a 0-D kINT32 or kINT64 shape tensor");
        }
        if (!given.values || given.values->size() != 1)
        {
            return context.error("the value of input 1 (k) is not known symbolically");
        }
        k = given.values->front();
        what = "k (input 1: " + context.str(k) + ")";
    }
    int64_t value = 0;
    if (isConstantExpr(k, &value) && value < 0)
    {
        return context.error(what, " must be at least 0");
    }
    if (!isNonNegative(context.exprs(), k))
    {
        context.require(
            context.eq(context.less(k, context.constant(0)), context.constant(0)), what + " must be at least 0");
    }
    context.require(context.eq(context.less(extent, k), context.constant(0)),
        what + " must be at most the axis' extent " + context.str(extent) + " (the input is " + context.str(*data.shape)
            + ")");

    SymbolicDims out = *data.shape;
    out[axis] = k;
    SymbolicTensor values{out, std::nullopt, data.type};
    SymbolicTensor indices{out, std::nullopt, params.indicesType};
    return context.finish({std::move(values), std::move(indices)});
}

} // namespace kiln
