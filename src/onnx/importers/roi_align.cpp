// SPDX-License-Identifier: Apache-2.0
// RoiAlign (opsets 10, 16 and 22) onto TensorRT's standard plugin ROIAlign_TRT version "2" (kiln's standard plugin
// library, plugins/roi_align.h), as TensorRT's parser imports it: X (FLOAT or FLOAT16), rois (cast to X's type),
// batch_indices (cast to INT32, as the plugin takes). Attributes become the plugin's fields: mode "avg" / "max" 1 / 0,
// coordinate_transformation_mode "half_pixel" / "output_half_pixel" 1 / 0 (before opset 16 there is no attribute and
// ONNX's behaviour is output_half_pixel), output_height, output_width, sampling_ratio, spatial_scale.
// Refused: other modes, non-positive output extents or spatial_scale, a negative sampling_ratio, X of rank other
// than 4 or of a non-floating type.
#include "core/data_type.h"
#include "onnx/importers/helpers.h"
#include "onnx/importers/importers.h"
#include "onnx/importers/plugin.h"

#include <string>

namespace kiln::onnx_import
{

namespace
{

using nvinfer1::PluginField;
using nvinfer1::PluginFieldType;

//! The plugin's fields, checked.
struct RoiAlignFields
{
    int32_t aligned{1};
    int32_t mode{1};
    int32_t outputHeight{1};
    int32_t outputWidth{1};
    int32_t samplingRatio{0};
    float spatialScale{1.0F};
};

RoiAlignFields roiAlignFields(ImportContext& ctx, Attributes const& attrs)
{
    RoiAlignFields f;
    std::string const mode = attrs.get<std::string>("mode", "avg");
    require(mode == "avg" || mode == "max", ErrorCode::kINVALID_NODE, "attribute mode is '", mode,
        "'; it must be avg or max");
    f.mode = mode == "avg" ? 1 : 0;
    std::string const transform = attrs.get<std::string>(
        "coordinate_transformation_mode", ctx.opset() >= 16 ? "half_pixel" : "output_half_pixel");
    require(transform == "half_pixel" || transform == "output_half_pixel", ErrorCode::kINVALID_NODE,
        "attribute coordinate_transformation_mode is '", transform, "'; it must be half_pixel or output_half_pixel");
    f.aligned = transform == "half_pixel" ? 1 : 0;
    int64_t const height = attrs.get<int64_t>("output_height", 1);
    int64_t const width = attrs.get<int64_t>("output_width", 1);
    require(height > 0 && width > 0 && height <= INT32_MAX && width <= INT32_MAX, ErrorCode::kINVALID_NODE,
        "attributes output_height and output_width are ", height, " and ", width, "; they must be positive");
    int64_t const sampling = attrs.get<int64_t>("sampling_ratio", 0);
    require(sampling >= 0 && sampling <= INT32_MAX, ErrorCode::kINVALID_NODE, "attribute sampling_ratio is ", sampling,
        "; it must be 0 (adaptive) or more");
    f.spatialScale = attrs.get<float>("spatial_scale", 1.0F);
    require(f.spatialScale > 0.0F, ErrorCode::kINVALID_NODE, "attribute spatial_scale is ", f.spatialScale,
        "; it must be positive");
    f.outputHeight = static_cast<int32_t>(height);
    f.outputWidth = static_cast<int32_t>(width);
    f.samplingRatio = static_cast<int32_t>(sampling);
    return f;
}

void checkRoiAlign(ImportContext& ctx, ::onnx::NodeProto const& /*node*/, Attributes const& attrs)
{
    static_cast<void>(roiAlignFields(ctx, attrs));
}

std::vector<Value> importRoiAlign(ImportContext& ctx, Node& node)
{
    RoiAlignFields f = roiAlignFields(ctx, node.attrs);
    ITensor& x = inputTensor(ctx, node, 0);
    require(x.getDimensions().nbDims == 4, ErrorCode::kUNSUPPORTED_NODE, "X has shape ", shapeText(x.getDimensions()),
        "; RoiAlign takes a 4-D X [N, C, H, W]");
    require(x.getType() == DataType::kFLOAT || x.getType() == DataType::kHALF, ErrorCode::kUNSUPPORTED_NODE_DATATYPE,
        "X is ", dataTypeName(x.getType()), "; TensorRT's ROIAlign_TRT plugin takes FLOAT or FLOAT16");
    ITensor& rois = castTo(ctx, inputTensor(ctx, node, 1), x.getType());
    ITensor& batchIndices = castTo(ctx, inputTensor(ctx, node, 2), DataType::kINT32);
    std::vector<PluginField> const fields{
        PluginField{"coordinate_transformation_mode", &f.aligned, PluginFieldType::kINT32, 1},
        PluginField{"mode", &f.mode, PluginFieldType::kINT32, 1},
        PluginField{"output_height", &f.outputHeight, PluginFieldType::kINT32, 1},
        PluginField{"output_width", &f.outputWidth, PluginFieldType::kINT32, 1},
        PluginField{"sampling_ratio", &f.samplingRatio, PluginFieldType::kINT32, 1},
        PluginField{"spatial_scale", &f.spatialScale, PluginFieldType::kFLOAT32, 1}};
    nvinfer1::IPluginV3Layer& layer
        = addStandardPlugin(ctx, node, "ROIAlign_TRT", "2", fields, {&x, &rois, &batchIndices});
    return {output(layer.getOutput(0))};
}

} // namespace

void registerRoiAlignOps(OpRegistry& registry)
{
    registry.add("RoiAlign", importRoiAlign, checkRoiAlign);
}

} // namespace kiln::onnx_import
