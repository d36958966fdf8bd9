// SPDX-License-Identifier: Apache-2.0
// GridSample: input 0 (the data, [N, C, H, W]) sampled at the positions input 1 (the grid, [N, H_out, W_out, 2]) gives;
// the output is [N, C, H_out, W_out] of the data's type. TensorRT's IGridSampleLayer reference: both inputs of rank
// 4; interpolation kNEAREST, kLINEAR (default) or kCUBIC; align corners (default false); sample modes kCLAMP, kFILL
// (default) and kREFLECT only. network/grid_sample_math.h has the arithmetic (ONNX's GridSample).
//
// What kiln checks: the data and the grid are kFLOAT, kHALF or kBF16 and of one type (TensorRT's reference lists the
// floating types; kiln does not mix them), of rank 4, at addGridSample and in the shape rule; the grid's batch is the
// data's and its last extent is 2 in the shape rule; the modes at their setters and in the shape rule.
#include "core/data_type.h"
#include "network/checks.h"
#include "network/network.h"
#include "network/shape_rules.h"

namespace kiln
{

using nvinfer1::InterpolationMode;
using nvinfer1::SampleMode;

namespace
{

//! Whether type is one a grid sample takes.
bool isGridSampleType(DataType type) noexcept
{
    return type == DataType::kFLOAT || type == DataType::kHALF || type == DataType::kBF16;
}

//! Whether mode is one a grid sample takes.
bool isGridSampleMode(SampleMode mode) noexcept
{
    return mode == SampleMode::kFILL || mode == SampleMode::kCLAMP || mode == SampleMode::kREFLECT;
}

} // namespace

template <>
class KindImpl<LayerType::kGRID_SAMPLE> final : public nvinfer1::apiv::VGridSampleLayer, public KindBase
{
public:
    using KindBase::KindBase;

    void setInterpolationMode(InterpolationMode mode) noexcept override
    {
        if (mLayer.checkEnum("setInterpolationMode", "interpolation mode", mode))
        {
            edit().mode = mode;
        }
    }
    InterpolationMode getInterpolationMode() const noexcept override { return p().mode; }
    void setAlignCorners(bool alignCorners) noexcept override { edit().alignCorners = alignCorners; }
    bool getAlignCorners() const noexcept override { return p().alignCorners; }
    bool setSampleMode(SampleMode mode) noexcept override
    {
        if (!isGridSampleMode(mode))
        {
            mLayer.fail("setSampleMode", "sample mode ", mode, " is not one a grid sample takes (kFILL, kCLAMP or ",
                "kREFLECT)");
            return false;
        }
        edit().sampleMode = mode;
        return true;
    }
    SampleMode getSampleMode() const noexcept override { return p().sampleMode; }

    //! Inputs: 0 data, 1 grid.
    DataType outputType(int32_t /*index*/) const noexcept { return inputType(0); }
    Dims outputDims(int32_t /*index*/) const noexcept
    {
        Dims const data = inputDims(0);
        Dims const grid = inputDims(1);
        if (data.nbDims != 4 || grid.nbDims != 4)
        {
            return kUnsetDims;
        }
        return Dims{4, {data.d[0] >= 0 ? data.d[0] : grid.d[0], data.d[1], grid.d[1], grid.d[2]}};
    }

private:
    GridSampleParams const& p() const noexcept { return mLayer.paramsAs<GridSampleParams>(); }
    //! The parameters, to change: the layer's outputs are then computed again (Layer::editParams).
    GridSampleParams& edit() noexcept { return mLayer.editParams<GridSampleParams>(); }
};

nvinfer1::IGridSampleLayer* NetworkApi::addGridSample(nvinfer1::ITensor& input, nvinfer1::ITensor& grid) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addGridSample";
    return mNetwork.reporter().guard(
        kWhere, static_cast<nvinfer1::IGridSampleLayer*>(nullptr), [&]() -> nvinfer1::IGridSampleLayer* {
            Tensor* data = mNetwork.own(&input, kWhere, "input");
            Tensor* positions = data == nullptr ? nullptr : mNetwork.own(&grid, kWhere, "grid");
            if (data == nullptr || positions == nullptr)
            {
                return nullptr;
            }
            if (!isGridSampleType(data->type()))
            {
                return mNetwork.fail(kWhere, "input ", quotedText(data->name()), " is ", dataTypeName(data->type()),
                    "; a grid sample takes kFLOAT, kHALF or kBF16");
            }
            if (positions->type() != data->type())
            {
                return mNetwork.fail(kWhere, "the grid ", quotedText(positions->name()), " is ",
                    dataTypeName(positions->type()), " but the input ", quotedText(data->name()), " is ",
                    dataTypeName(data->type()), "; they must be one type");
            }
            if (data->dims().nbDims != 4 || positions->dims().nbDims != 4)
            {
                return mNetwork.fail(kWhere, "the input ", quotedText(data->name()), " is ", data->dims(),
                    " and the grid ", quotedText(positions->name()), " is ", positions->dims(),
                    "; a grid sample takes a 4-D input [N, C, H, W] and a 4-D grid [N, H_out, W_out, 2]");
            }
            return &mNetwork.addLayer<LayerType::kGRID_SAMPLE>({data, positions}, GridSampleParams{}, 1);
        });
}

// The symbolic shape rule (network/shape_rules.h).
Expected<std::vector<SymbolicTensor>> inferOutputShapes(GridSampleParams const& params, ShapeRuleContext& context)
{
    SymbolicTensor const& data = context.input(0);
    SymbolicTensor const& grid = context.input(1);
    if (!data.present() || !grid.present())
    {
        return context.error("a grid sample has two inputs: the data and the grid");
    }
    if (!isValidEnum(params.mode))
    {
        return context.error("interpolation mode ", static_cast<int32_t>(params.mode), " is not valid");
    }
    if (!isGridSampleMode(params.sampleMode))
    {
        return context.error("sample mode ", static_cast<int32_t>(params.sampleMode),
            " is not one a grid sample takes (kFILL, kCLAMP or kREFLECT)");
    }
    if (!isGridSampleType(data.type) || grid.type != data.type)
    {
        return context.error("the input is ", dataTypeName(data.type), " and the grid ", dataTypeName(grid.type),
            "; a grid sample takes two tensors of one type, kFLOAT, kHALF or kBF16");
    }
    if (data.rank() != 4 || grid.rank() != 4)
    {
        return context.error("the input ", context.str(*data.shape), " and the grid ", context.str(*grid.shape),
            " must both have rank 4 ([N, C, H, W] and [N, H_out, W_out, 2])");
    }
    SymbolicDims const& d = *data.shape;
    SymbolicDims const& g = *grid.shape;
    context.requireEqual(
        g[0], d[0], "the grid " + context.str(g) + " must have the batch extent of the input " + context.str(d));
    context.requireEqual(g[3], context.constant(2),
        "the grid " + context.str(g) + " must end in an extent of 2 (x and y of each position)");
    return context.finish({SymbolicTensor{SymbolicDims{d[0], d[1], g[1], g[2]}, std::nullopt, data.type}});
}

} // namespace kiln
