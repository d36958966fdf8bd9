// SPDX-License-Identifier: Apache-2.0
// GridSample (opsets 16 and 20) onto IGridSampleLayer, for 4-D inputs: mode "bilinear" / "linear" (the default),
// "nearest", "bicubic" / "cubic" (opset 16's names and opset 20's, taken in either opset) become kLINEAR, kNEAREST and
// kCUBIC; padding_mode "zeros" (the default), "border" and "reflection" become kFILL, kCLAMP and kREFLECT;
// align_corners (0 or 1) is the layer's. A grid of another floating type than X is cast to X's.
// Refused: 5-D (volumetric) and other ranks (the layer samples 2-D planes, as TensorRT's does: "Input must be 4D
// input."), non-floating X or grid.
#include "core/data_type.h"
#include "onnx/importers/helpers.h"
#include "onnx/importers/importers.h"

#include <string>

namespace kiln::onnx_import
{

namespace
{

using nvinfer1::InterpolationMode;
using nvinfer1::SampleMode;

InterpolationMode interpolationOf(std::string const& mode)
{
    if (mode == "bilinear" || mode == "linear")
    {
        return InterpolationMode::kLINEAR;
    }
    if (mode == "nearest")
    {
        return InterpolationMode::kNEAREST;
    }
    require(mode == "bicubic" || mode == "cubic", ErrorCode::kUNSUPPORTED_NODE_ATTR, "attribute mode is '", mode,
        "'; it must be bilinear, nearest or bicubic (opset 16), or linear, nearest or cubic (opset 20)");
    return InterpolationMode::kCUBIC;
}

SampleMode sampleModeOf(std::string const& padding)
{
    if (padding == "zeros")
    {
        return SampleMode::kFILL;
    }
    if (padding == "border")
    {
        return SampleMode::kCLAMP;
    }
    require(padding == "reflection", ErrorCode::kUNSUPPORTED_NODE_ATTR, "attribute padding_mode is '", padding,
        "'; it must be zeros, border or reflection");
    return SampleMode::kREFLECT;
}

void checkGridSample(ImportContext& /*ctx*/, ::onnx::NodeProto const& /*node*/, Attributes const& attrs)
{
    static_cast<void>(interpolationOf(attrs.get<std::string>("mode", "bilinear")));
    static_cast<void>(sampleModeOf(attrs.get<std::string>("padding_mode", "zeros")));
    int64_t const align = attrs.get<int64_t>("align_corners", 0);
    require(align == 0 || align == 1, ErrorCode::kINVALID_NODE, "attribute align_corners is ", align,
        "; it must be 0 or 1");
}

std::vector<Value> importGridSample(ImportContext& ctx, Node& node)
{
    ITensor& x = inputTensor(ctx, node, 0);
    ITensor& grid = inputTensor(ctx, node, 1);
    int32_t const rank = x.getDimensions().nbDims;
    require(rank == 4, ErrorCode::kUNSUPPORTED_NODE, "X has rank ", rank,
        "; kiln's grid sample takes a 4-D input [N, C, H, W] (5-D, volumetric, GridSample is not supported)");
    require(grid.getDimensions().nbDims == 4, ErrorCode::kINVALID_NODE, "the grid has shape ",
        shapeText(grid.getDimensions()), "; for a 4-D input it must be [N, H_out, W_out, 2]");
    require(isFloating(x.getType()) && isFloating(grid.getType()), ErrorCode::kUNSUPPORTED_NODE_DATATYPE,
        "GridSample takes FLOAT, FLOAT16 or BFLOAT16 X and grid; they are ", dataTypeName(x.getType()), " and ",
        dataTypeName(grid.getType()));
    ITensor& positions = castTo(ctx, grid, x.getType());
    Attributes const& attrs = node.attrs;
    auto& layer = ctx.added(ctx.network().addGridSample(x, positions));
    layer.setInterpolationMode(interpolationOf(attrs.get<std::string>("mode", "bilinear")));
    layer.setAlignCorners(attrs.get<int64_t>("align_corners", 0) != 0);
    require(layer.setSampleMode(sampleModeOf(attrs.get<std::string>("padding_mode", "zeros"))),
        ErrorCode::kINTERNAL_ERROR, "the grid sample layer refused the sample mode");
    return {output(layer.getOutput(0))};
}

} // namespace

void registerGridSampleOps(OpRegistry& registry)
{
    registry.add("GridSample", importGridSample, checkGridSample);
}

} // namespace kiln::onnx_import
