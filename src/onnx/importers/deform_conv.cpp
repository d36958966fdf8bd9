// SPDX-License-Identifier: Apache-2.0
// DeformConv (opset 19) onto TensorRT's standard plugin ModulatedDeformConv2d version "2" (kiln's standard plugin
// library, plugins/deform_conv.h), as TensorRT's parser imports it: the plugin takes X, offset, mask, weight and the
// optional bias; an absent mask becomes ones of shape [N, offset_group * kH * kW, oH, oW]. Fields: stride, padding
// and dilation ([height, width]), group and deformable_group (offset_group). 1-D DeformConv ([N, C, L]) runs as 2-D
// with a trailing extent of 1 (X, W, offset and mask reshaped, the output reshaped back).
// Refused, as TensorRT refuses them: spatial ranks other than 1 and 2 ("input must have 1D or 2D spatial
// dimensions"), pads that differ between the beginning and the end of an axis, inputs that are not all FLOAT or all
// FLOAT16.
#include "core/data_type.h"
#include "onnx/importers/helpers.h"
#include "onnx/importers/importers.h"
#include "onnx/importers/plugin.h"
#include "onnx/importers/shape_helpers.h"

#include <string>

namespace kiln::onnx_import
{

namespace
{

using nvinfer1::PluginField;
using nvinfer1::PluginFieldType;

//! The plugin's fields for a node of spatial rank 1 or 2, checked; 1-D values get the trailing axis's defaults.
struct DeformConvFields
{
    std::vector<int32_t> stride{1, 1};
    std::vector<int32_t> padding{0, 0};
    std::vector<int32_t> dilation{1, 1};
    int32_t group{1};
    int32_t offsetGroup{1};
};

//! ints (one per spatial axis, or empty for the defaults) into out; fails naming the attribute.
void spatialInts(
    std::vector<int64_t> const& ints, size_t spatial, char const* name, int64_t low, std::vector<int32_t>& out)
{
    if (ints.empty())
    {
        return;
    }
    require(ints.size() == spatial, ErrorCode::kINVALID_NODE, "attribute ", name, " has ", ints.size(),
        " values; the input has ", spatial, " spatial dimensions");
    for (size_t i = 0; i < spatial; ++i)
    {
        require(ints[i] >= low && ints[i] <= INT32_MAX, ErrorCode::kINVALID_NODE, "attribute ", name, " holds ",
            ints[i], "; its values must be at least ", low);
        out[i] = static_cast<int32_t>(ints[i]);
    }
}

DeformConvFields deformConvFields(Attributes const& attrs, size_t spatial)
{
    DeformConvFields f;
    spatialInts(attrs.get<std::vector<int64_t>>("strides", {}), spatial, "strides", 1, f.stride);
    spatialInts(attrs.get<std::vector<int64_t>>("dilations", {}), spatial, "dilations", 1, f.dilation);
    std::vector<int64_t> const pads = attrs.get<std::vector<int64_t>>("pads", {});
    if (!pads.empty())
    {
        require(pads.size() == 2 * spatial, ErrorCode::kINVALID_NODE, "attribute pads has ", pads.size(),
            " values; it must have 2 per spatial dimension (", 2 * spatial, ")");
        for (size_t i = 0; i < spatial; ++i)
        {
            require(pads[i] == pads[i + spatial], ErrorCode::kUNSUPPORTED_NODE, "pads are ", shapeText(toDims(pads)),
                ": pads for the beginning and end along each spatial axis must be the same");
        }
        spatialInts(std::vector<int64_t>(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(spatial)), spatial,
            "pads", 0, f.padding);
    }
    int64_t const group = attrs.get<int64_t>("group", 1);
    int64_t const offsetGroup = attrs.get<int64_t>("offset_group", 1);
    require(group > 0 && group <= INT32_MAX && offsetGroup > 0 && offsetGroup <= INT32_MAX, ErrorCode::kINVALID_NODE,
        "attributes group and offset_group are ", group, " and ", offsetGroup, "; they must be positive");
    f.group = static_cast<int32_t>(group);
    f.offsetGroup = static_cast<int32_t>(offsetGroup);
    return f;
}

void checkDeformConv(ImportContext& /*ctx*/, ::onnx::NodeProto const& /*node*/, Attributes const& attrs)
{
    std::vector<int64_t> const kernel = attrs.get<std::vector<int64_t>>("kernel_shape", {});
    require(kernel.size() <= 2, ErrorCode::kUNSUPPORTED_NODE, "attribute kernel_shape has ", kernel.size(),
        " values: input must have 1D or 2D spatial dimensions");
    if (!kernel.empty())
    {
        static_cast<void>(deformConvFields(attrs, kernel.size()));
    }
}

//! value with a trailing extent of 1 appended to its 3 dimensions.
ITensor& toTwoD(ImportContext& ctx, ITensor& tensor)
{
    return ctx.tensor(reshapeValue(
        ctx, Value::tensor(tensor), {DimPart::copy(0), DimPart::copy(1), DimPart::copy(2), DimPart::fixed(1)}));
}

//! Ones of offset's shape with half its channels: the mask ONNX means when there is none.
ITensor& onesMask(ImportContext& ctx, ITensor& offset, DataType type)
{
    Dims const dims = offset.getDimensions();
    Value shape;
    if (isStatic(dims))
    {
        shape = int64Value(ctx, {dims.d[0], dims.d[1] / 2, dims.d[2], dims.d[3]});
    }
    else
    {
        shape = Value::tensor(binary(ctx, ctx.tensor(shapeValue(ctx, Value::tensor(offset))),
            int64Constant(ctx, {1, 2, 1, 1}), nvinfer1::ElementWiseOperation::kFLOOR_DIV));
    }
    return broadcastTo(ctx, scalarConstant(ctx, 1.0, type, 4), shape);
}

std::vector<Value> importDeformConv(ImportContext& ctx, Node& node)
{
    ITensor* x = &inputTensor(ctx, node, 0);
    int32_t const rank = x->getDimensions().nbDims;
    require(rank == 3 || rank == 4, ErrorCode::kUNSUPPORTED_NODE, "X has shape ", shapeText(x->getDimensions()),
        ": input must have 1D or 2D spatial dimensions");
    DataType const type = x->getType();
    require(type == DataType::kFLOAT || type == DataType::kHALF, ErrorCode::kINVALID_NODE, "X is ", dataTypeName(type),
        "; inputs must be either all FLOAT or all FLOAT16");
    for (size_t i = 1; i < node.inputCount(); ++i)
    {
        require(!node.has(i) || inputTensor(ctx, node, i).getType() == type, ErrorCode::kINVALID_NODE, "input ", i,
            " is ", dataTypeName(inputTensor(ctx, node, i).getType()), " and X ", dataTypeName(type),
            "; inputs must be either all FLOAT or all FLOAT16");
    }
    auto const spatial = static_cast<size_t>(rank - 2);
    DeformConvFields f = deformConvFields(node.attrs, spatial);
    ITensor* weight = &inputTensor(ctx, node, 1);
    ITensor* offset = &inputTensor(ctx, node, 2);
    require(weight->getDimensions().nbDims == rank && offset->getDimensions().nbDims == rank, ErrorCode::kINVALID_NODE,
        "W and offset have shapes ", shapeText(weight->getDimensions()), " and ", shapeText(offset->getDimensions()),
        "; they must have X's rank ", rank);
    std::vector<int64_t> const kernel = node.attrs.get<std::vector<int64_t>>("kernel_shape", {});
    for (size_t i = 0; i < kernel.size() && i < spatial; ++i)
    {
        int64_t const extent = weight->getDimensions().d[2 + i];
        require(extent < 0 || extent == kernel[i], ErrorCode::kINVALID_NODE, "attribute kernel_shape is ",
            shapeText(toDims(kernel)), ", but W has shape ", shapeText(weight->getDimensions()));
    }
    ITensor* mask = node.has(4) ? &inputTensor(ctx, node, 4) : nullptr;
    if (spatial == 1)
    {
        x = &toTwoD(ctx, *x);
        weight = &toTwoD(ctx, *weight);
        offset = &toTwoD(ctx, *offset);
        mask = mask != nullptr ? &toTwoD(ctx, *mask) : nullptr;
    }
    if (mask == nullptr)
    {
        mask = &onesMask(ctx, *offset, type);
    }
    std::vector<ITensor*> inputs{x, offset, mask, weight};
    if (node.has(3))
    {
        inputs.push_back(&inputTensor(ctx, node, 3));
    }
    std::vector<PluginField> const fields{PluginField{"stride", f.stride.data(), PluginFieldType::kINT32, 2},
        PluginField{"padding", f.padding.data(), PluginFieldType::kINT32, 2},
        PluginField{"dilation", f.dilation.data(), PluginFieldType::kINT32, 2},
        PluginField{"group", &f.group, PluginFieldType::kINT32, 1},
        PluginField{"deformable_group", &f.offsetGroup, PluginFieldType::kINT32, 1}};
    nvinfer1::IPluginV3Layer& layer = addStandardPlugin(ctx, node, "ModulatedDeformConv2d", "2", fields, inputs);
    if (spatial == 1)
    {
        return {reshapeValue(
            ctx, Value::tensor(*layer.getOutput(0)), {DimPart::copy(0), DimPart::copy(1), DimPart::copy(2)})};
    }
    return {output(layer.getOutput(0))};
}

} // namespace

void registerDeformConvOps(OpRegistry& registry)
{
    registry.add("DeformConv", importDeformConv, checkDeformConv);
}

} // namespace kiln::onnx_import
