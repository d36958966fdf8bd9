// SPDX-License-Identifier: Apache-2.0
// NonZero: the coordinates of the non-zero elements of the input (ONNX NonZero). For an input of rank m, output 0 is
// [m, n], column j the coordinates of the j-th non-zero element in row-major order; n is known only once the layer
// has run. The layer has a second, hidden output (Layer::apiOutputs): n itself, a 0-D kINT64 tensor whose one value
// is the size-tensor symbol of output 0's last extent, so that the run time learns n the way it learns a plugin's
// size tensor. n's upper bound (and its optimum) is the input's volume (its upper bound, for an input whose shape is
// data-dependent itself).
//
// What kiln checks: the input is kFLOAT, kHALF, kBF16, kINT8, kINT32, kINT64 or kBOOL (TensorRT's reference lists
// kFLOAT, kHALF, kINT32 and kBOOL; kiln takes the types ONNX NonZero and the TensorRT ONNX parser take); the indices
// type is kINT32 or kINT64 (default kINT32, as TensorRT's). A 0-D input gives [0, n] with n 0 or 1.
#include "core/data_type.h"
#include "network/checks.h"
#include "network/indices_type.h"
#include "network/network.h"
#include "network/shape_rules.h"

namespace kiln
{

namespace
{

//! Whether the layer takes input of type.
bool isNonZeroInputType(DataType type) noexcept
{
    switch (type)
    {
    case DataType::kFLOAT:
    case DataType::kHALF:
    case DataType::kBF16:
    case DataType::kINT8:
    case DataType::kINT32:
    case DataType::kINT64:
    case DataType::kBOOL: return true;
    default: return false;
    }
}

} // namespace

template <>
class KindImpl<LayerType::kNON_ZERO> final : public nvinfer1::apiv::VNonZeroLayer, public KindBase
{
public:
    using KindBase::KindBase;

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

    //! Output 0 the indices, output 1 (hidden) the count.
    DataType outputType(int32_t index) const noexcept { return index == 0 ? p().indicesType : DataType::kINT64; }
    Dims outputDims(int32_t index) const noexcept
    {
        if (index != 0)
        {
            return Dims{0, {}};
        }
        Dims const input = inputDims(0);
        return input.nbDims < 0 ? kUnsetDims : Dims{2, {input.nbDims, -1}};
    }

private:
    NonZeroParams const& p() const noexcept { return mLayer.paramsAs<NonZeroParams>(); }
    //! The parameters, to change: the layer's outputs are then computed again (Layer::editParams).
    NonZeroParams& edit() noexcept { return mLayer.editParams<NonZeroParams>(); }
};

nvinfer1::INonZeroLayer* NetworkApi::addNonZeroV2(nvinfer1::ITensor& input, DataType indicesType) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addNonZero";
    return mNetwork.reporter().guard(
        kWhere, static_cast<nvinfer1::INonZeroLayer*>(nullptr), [&]() -> nvinfer1::INonZeroLayer* {
            Tensor* data = mNetwork.own(&input, kWhere, "input");
            if (data == nullptr)
            {
                return nullptr;
            }
            if (!isNonZeroInputType(data->type()))
            {
                return mNetwork.fail(kWhere, "input ", quotedText(data->name()), " is ", dataTypeName(data->type()),
                    "; a non-zero layer takes kFLOAT, kHALF, kBF16, kINT8, kINT32, kINT64 or kBOOL");
            }
            if (!isIndexType(indicesType))
            {
                return mNetwork.fail(kWhere, "the indices type ", dataTypeName(indicesType), " (", indicesType,
                    ") is not kINT32 or kINT64");
            }
            return &mNetwork.addLayer<LayerType::kNON_ZERO>({data}, NonZeroParams{indicesType}, 1, nullptr, 1);
        });
}

nvinfer1::INonZeroLayer* NetworkApi::addNonZero(nvinfer1::ITensor& input) noexcept
{
    return addNonZeroV2(input, DataType::kINT32);
}

// The symbolic shape rule (network/shape_rules.h): output 0 [rank, n], output 1 the 0-D count whose value is n.
Expected<std::vector<SymbolicTensor>> inferOutputShapes(NonZeroParams const& params, ShapeRuleContext& context)
{
    SymbolicTensor const& data = context.input(0);
    if (!data.present())
    {
        return context.error("input 0 is missing");
    }
    if (!isNonZeroInputType(data.type))
    {
        return context.error("input 0 is ", dataTypeName(data.type),
            "; a non-zero layer takes kFLOAT, kHALF, kBF16, kINT8, kINT32, kINT64 or kBOOL");
    }
    if (!isIndexType(params.indicesType))
    {
        return context.error("the indices type ", dataTypeName(params.indicesType), " is not kINT32 or kINT64");
    }
    if (context.nbOutputs() != 2)
    {
        return context.error("the layer has ", context.nbOutputs(), " outputs; a non-zero layer has 2 (one hidden)");
    }
    DimExpr const* volume = context.volume(*data.shape);
    if (context.failed())
    {
        return context.finish({});
    }
    // An input whose shape is itself data-dependent (made from an earlier non-zero's output) is bounded by the upper
    // bounds of the size tensors it depends on.
    DimExpr const* upper = sizeFreeUpperBound(context.exprs(), volume);
    if (upper == nullptr)
    {
        return context.error("the number of elements of input 0, ", context.str(volume),
            ", has no upper bound known before the layer runs");
    }
    auto count = context.exprs().sizeTensor(context.layerName() + ".count", 1, *upper, *upper);
    if (!count)
    {
        return context.error(count.error().message);
    }
    SymbolicTensor indices{
        SymbolicDims{context.constant(data.rank()), count.value()}, std::nullopt, params.indicesType};
    SymbolicTensor counted{SymbolicDims{}, SymbolicDims{count.value()}, DataType::kINT64};
    return context.finish({std::move(indices), std::move(counted)});
}

} // namespace kiln
