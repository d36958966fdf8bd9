// SPDX-License-Identifier: Apache-2.0
// Resize (opsets 10 to 18) and Upsample (opsets 7 and 9) onto IResizeLayer. Scales must be known when the model is
// parsed (they become the layer's scales); sizes may be known then (output dimensions) or computed at run time (a
// shape tensor, input 1 of the layer).
//
// How ONNX's attributes map onto the layer:
// - mode nearest / linear / cubic: InterpolationMode kNEAREST / kLINEAR / kCUBIC.
// - coordinate_transformation_mode half_pixel, align_corners, asymmetric: the transformation of the same name;
//   pytorch_half_pixel: kHALF_PIXEL with the kUPPER selector (coordinate 0 where an axis has one output element);
//   tf_half_pixel_for_nn: kHALF_PIXEL with the rounding that gives round((x + 0.5) / scale) (nearest only).
// - nearest_mode round_prefer_floor / round_prefer_ceil / floor / ceil: kHALF_DOWN / kHALF_UP / kFLOOR / kCEIL.
// - cubic_coeff_a, exclude_outside: the layer's cubic coefficient and exclude-outside flag.
// - Resize-10 and Upsample: kASYMMETRIC with kFLOOR, as those opsets define nearest resizing.
// Refused, naming the attribute: tf_crop_and_resize and half_pixel_symmetric, antialias, keep_aspect_ratio_policy
// other than stretch.
#include "core/data_type.h"
#include "onnx/importers/helpers.h"
#include "onnx/importers/importers.h"
#include "onnx/importers/shape_helpers.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace kiln::onnx_import
{

namespace
{

using nvinfer1::InterpolationMode;
using nvinfer1::ResizeCoordinateTransformation;
using nvinfer1::ResizeRoundMode;
using nvinfer1::ResizeSelector;

//! What a node asks of the layer, besides the output shape.
struct ResizeSettings
{
    InterpolationMode mode{InterpolationMode::kNEAREST};
    ResizeCoordinateTransformation transformation{ResizeCoordinateTransformation::kASYMMETRIC};
    ResizeSelector selector{ResizeSelector::kFORMULA};
    ResizeRoundMode rounding{ResizeRoundMode::kFLOOR};
    float cubicCoeff{-0.75F};
    bool excludeOutside{false};
};

InterpolationMode interpolationOf(std::string const& mode, bool cubic)
{
    if (mode == "nearest")
    {
        return InterpolationMode::kNEAREST;
    }
    if (mode == "linear")
    {
        return InterpolationMode::kLINEAR;
    }
    require(cubic && mode == "cubic", ErrorCode::kUNSUPPORTED_NODE_ATTR, "attribute mode is '", mode,
        "'; it must be nearest, linear", cubic ? " or cubic" : "");
    return InterpolationMode::kCUBIC;
}

//! The settings of a node of an op set whose nearest resizing floors asymmetric coordinates (Resize-10, Upsample).
ResizeSettings flooringSettings(Attributes const& attrs)
{
    ResizeSettings settings;
    settings.mode = interpolationOf(attrs.get<std::string>("mode", "nearest"), false);
    return settings;
}

//! The settings of a Resize node of opset 11 or later.
ResizeSettings resizeSettings(Attributes const& attrs)
{
    ResizeSettings settings;
    settings.mode = interpolationOf(attrs.get<std::string>("mode", "nearest"), true);
    require(attrs.get<int64_t>("antialias", 0) == 0, ErrorCode::kUNSUPPORTED_NODE_ATTR,
        "attribute antialias is 1; kiln resizes without an antialiasing filter");
    std::string const policy = attrs.get<std::string>("keep_aspect_ratio_policy", "stretch");
    require(policy == "stretch", ErrorCode::kUNSUPPORTED_NODE_ATTR, "attribute keep_aspect_ratio_policy is '", policy,
        "'; only stretch is supported");
    std::string const transformation = attrs.get<std::string>("coordinate_transformation_mode", "half_pixel");
    std::string const nearestMode = attrs.get<std::string>("nearest_mode", "round_prefer_floor");
    bool const nearest = settings.mode == InterpolationMode::kNEAREST;
    if (nearestMode == "round_prefer_floor")
    {
        settings.rounding = ResizeRoundMode::kHALF_DOWN;
    }
    else if (nearestMode == "round_prefer_ceil")
    {
        settings.rounding = ResizeRoundMode::kHALF_UP;
    }
    else if (nearestMode == "floor")
    {
        settings.rounding = ResizeRoundMode::kFLOOR;
    }
    else if (nearestMode == "ceil")
    {
        settings.rounding = ResizeRoundMode::kCEIL;
    }
    else
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_ATTR, "attribute nearest_mode is '", nearestMode,
            "'; it must be round_prefer_floor, round_prefer_ceil, floor or ceil");
    }
    if (transformation == "half_pixel")
    {
        settings.transformation = ResizeCoordinateTransformation::kHALF_PIXEL;
    }
    else if (transformation == "pytorch_half_pixel")
    {
        settings.transformation = ResizeCoordinateTransformation::kHALF_PIXEL;
        settings.selector = ResizeSelector::kUPPER;
    }
    else if (transformation == "align_corners")
    {
        settings.transformation = ResizeCoordinateTransformation::kALIGN_CORNERS;
    }
    else if (transformation == "asymmetric")
    {
        settings.transformation = ResizeCoordinateTransformation::kASYMMETRIC;
    }
    else if (transformation == "tf_half_pixel_for_nn")
    {
        // round((x + 0.5) / scale) is round'(c + 0.5) for the half-pixel coordinate c: rounding half down after
        // adding 0.5 is ceil(c), flooring after adding 0.5 is rounding half up. The other two have no equivalent.
        require(nearest, ErrorCode::kUNSUPPORTED_NODE_ATTR,
            "attribute coordinate_transformation_mode tf_half_pixel_for_nn is supported with mode nearest only");
        require(nearestMode == "round_prefer_floor" || nearestMode == "floor", ErrorCode::kUNSUPPORTED_NODE_ATTR,
            "attribute nearest_mode ", nearestMode,
            " is not supported with coordinate_transformation_mode tf_half_pixel_for_nn (only round_prefer_floor and "
            "floor are)");
        settings.transformation = ResizeCoordinateTransformation::kHALF_PIXEL;
        settings.rounding = nearestMode == "floor" ? ResizeRoundMode::kHALF_UP : ResizeRoundMode::kCEIL;
    }
    else if (transformation == "tf_crop_and_resize" || transformation == "half_pixel_symmetric")
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_ATTR, "attribute coordinate_transformation_mode ", transformation,
            " is not supported (kiln's resize layer has no region of interest or symmetric half-pixel mapping)");
    }
    else
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_ATTR, "attribute coordinate_transformation_mode is '", transformation,
            "'; it must be half_pixel, pytorch_half_pixel, align_corners, asymmetric or tf_half_pixel_for_nn");
    }
    settings.cubicCoeff = attrs.get<float>("cubic_coeff_a", -0.75F);
    require(std::isfinite(settings.cubicCoeff), ErrorCode::kINVALID_NODE, "attribute cubic_coeff_a is ",
        settings.cubicCoeff, "; it must be finite");
    int64_t const excludeOutside = attrs.get<int64_t>("exclude_outside", 0);
    require(excludeOutside == 0 || excludeOutside == 1, ErrorCode::kINVALID_NODE, "attribute exclude_outside is ",
        excludeOutside, "; it must be 0 or 1");
    settings.excludeOutside = excludeOutside == 1;
    return settings;
}

void checkResize(ImportContext& ctx, ::onnx::NodeProto const& /*node*/, Attributes const& attrs)
{
    if (ctx.opset() >= 11)
    {
        resizeSettings(attrs);
    }
    else
    {
        flooringSettings(attrs);
    }
}

void checkUpsample(ImportContext& ctx, ::onnx::NodeProto const& /*node*/, Attributes const& attrs)
{
    flooringSettings(attrs);
    require(ctx.opset() >= 9 || attrs.has("scales"), ErrorCode::kINVALID_NODE,
        "the required attribute 'scales' is missing");
}

//! Whether input i is given and not an empty tensor (opset 11 marks an unused scales input with an empty one).
bool given(Node const& node, size_t i)
{
    if (!node.has(i))
    {
        return false;
    }
    Value const& value = node.input(i);
    return !(value.isWeights() && value.weights().count == 0) && !(value.rank() == 1 && value.shape().d[0] == 0);
}

//! The axes scales and sizes refer to (the attribute axes of opset 18, else every axis), normalized.
std::vector<int32_t> resizedAxes(Attributes const& attrs, int32_t rank)
{
    std::vector<int32_t> axes;
    if (!attrs.has("axes"))
    {
        for (int32_t i = 0; i < rank; ++i)
        {
            axes.push_back(i);
        }
        return axes;
    }
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    for (int64_t axis : attrs.get<std::vector<int64_t>>("axes", {}))
    {
        int32_t const a = normalizeAxis(axis, rank, "attribute axes value");
        require(!seen[static_cast<size_t>(a)], ErrorCode::kINVALID_NODE, "axis ", axis, " is repeated in axes");
        seen[static_cast<size_t>(a)] = true;
        axes.push_back(a);
    }
    return axes;
}

nvinfer1::IResizeLayer& addResizeLayer(ImportContext& ctx, ITensor& x, ResizeSettings const& settings)
{
    require(settings.mode == InterpolationMode::kNEAREST || isFloating(x.getType()),
        ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "the input has type ", dataTypeShortName(x.getType()),
        "; linear and cubic resizing take floating-point inputs");
    auto& layer = ctx.added(ctx.network().addResize(x));
    layer.setResizeMode(settings.mode);
    layer.setCoordinateTransformation(settings.transformation);
    layer.setSelectorForSinglePixel(settings.selector);
    layer.setNearestRounding(settings.rounding);
    layer.setCubicCoeff(settings.cubicCoeff);
    layer.setExcludeOutside(settings.excludeOutside);
    return layer;
}

//! Sets the layer's scales: values for the given axes (what names them in messages), 1 for the others.
void setScales(nvinfer1::IResizeLayer& layer, std::vector<double> const& values, std::vector<int32_t> const& axes,
    int32_t rank, char const* what)
{
    require(values.size() == axes.size(), ErrorCode::kINVALID_NODE, what, " has ", values.size(), " values for ",
        axes.size(), " resized axes");
    std::vector<float> scales(static_cast<size_t>(rank), 1.F);
    for (size_t i = 0; i < axes.size(); ++i)
    {
        auto const scale = static_cast<float>(values[i]);
        require(std::isfinite(scale) && scale > 0.F, ErrorCode::kINVALID_NODE, what, " value ", i, " is ", values[i],
            "; scales must be positive and finite");
        scales[static_cast<size_t>(axes[i])] = scale;
    }
    layer.setScales(scales.data(), rank);
}

//! Gives the layer the output extents of sizes (a node input) for the axes, the input's extents elsewhere.
void setSizes(
    ImportContext& ctx, nvinfer1::IResizeLayer& layer, ITensor& x, Value const& sizes, std::vector<int32_t> const& axes)
{
    Dims const in = x.getDimensions();
    int32_t const rank = in.nbDims;
    require(sizes.rank() == 1 && sizes.shape().d[0] == static_cast<int64_t>(axes.size()), ErrorCode::kINVALID_NODE,
        "sizes (input 3) has shape ", shapeText(sizes.shape()), "; it must hold ", axes.size(),
        " values (one per resized axis)");
    std::vector<int32_t> sourceOf(static_cast<size_t>(rank), -1); // axis -> its entry in sizes
    for (size_t i = 0; i < axes.size(); ++i)
    {
        sourceOf[static_cast<size_t>(axes[i])] = static_cast<int32_t>(i);
    }
    bool known = sizes.isWeights();
    for (int32_t a = 0; a < rank; ++a)
    {
        known = known && (sourceOf[static_cast<size_t>(a)] >= 0 || in.d[a] >= 0);
    }
    if (known)
    {
        std::vector<int64_t> const values = integers(sizes.weights());
        Dims out = in;
        for (int32_t a = 0; a < rank; ++a)
        {
            int32_t const from = sourceOf[static_cast<size_t>(a)];
            if (from >= 0)
            {
                out.d[a] = values[static_cast<size_t>(from)];
                require(out.d[a] >= 0, ErrorCode::kINVALID_NODE, "sizes value ", from, " is ", out.d[a],
                    "; sizes are at least 0");
            }
        }
        layer.setOutputDimensions(out);
        return;
    }
    require(sizes.type() == DataType::kINT64 || sizes.type() == DataType::kINT32, ErrorCode::kUNSUPPORTED_NODE_DATATYPE,
        "sizes (input 3) has type ", dataTypeShortName(sizes.type()), "; it must be INT64");
    ITensor& values = ctx.tensor(sizes);
    if (static_cast<int32_t>(axes.size()) == rank && std::is_sorted(axes.begin(), axes.end()))
    {
        layer.setInput(1, castTo(ctx, values, DataType::kINT64));
        return;
    }
    // Some axes keep their extent (or come in another order): the output shape, extent by extent.
    Value const shape = shapeValue(ctx, Value::tensor(x));
    std::vector<ITensor*> parts;
    for (int32_t a = 0; a < rank; ++a)
    {
        int32_t const from = sourceOf[static_cast<size_t>(a)];
        Value const part = from >= 0 ? pick(ctx, Value::tensor(values), {from}) : pick(ctx, shape, {a});
        parts.push_back(&castTo(ctx, ctx.tensor(part), DataType::kINT64));
    }
    auto& concat = ctx.added(ctx.network().addConcatenation(parts.data(), static_cast<int32_t>(parts.size())));
    concat.setAxis(0);
    layer.setInput(1, *concat.getOutput(0));
}

std::vector<Value> importResize(ImportContext& ctx, Node& node)
{
    ITensor& x = inputTensor(ctx, node, 0);
    int32_t const rank = x.getDimensions().nbDims;
    bool const modern = ctx.opset() >= 11;
    ResizeSettings const settings = modern ? resizeSettings(node.attrs) : flooringSettings(node.attrs);
    std::vector<int32_t> const axes = resizedAxes(node.attrs, rank);
    auto& layer = addResizeLayer(ctx, x, settings);
    size_t const scalesInput = modern ? 2 : 1;
    bool const hasScales = given(node, scalesInput);
    bool const hasSizes = modern && given(node, 3);
    require(hasScales != hasSizes, ErrorCode::kINVALID_NODE,
        modern ? "exactly one of scales (input 2) and sizes (input 3) must be given"
               : "the scales (input 1) must be given");
    if (hasScales)
    {
        setScales(layer, constantNumbers(node, scalesInput, "scales"), axes, rank, "scales");
    }
    else
    {
        setSizes(ctx, layer, x, node.input(3), axes);
    }
    return {output(layer.getOutput(0))};
}

std::vector<Value> importUpsample(ImportContext& ctx, Node& node)
{
    ITensor& x = inputTensor(ctx, node, 0);
    int32_t const rank = x.getDimensions().nbDims;
    auto& layer = addResizeLayer(ctx, x, flooringSettings(node.attrs));
    std::vector<double> scales;
    if (ctx.opset() >= 9)
    {
        scales = constantNumbers(node, 1, "scales");
    }
    else
    {
        for (float scale : node.attrs.required<std::vector<float>>("scales"))
        {
            scales.push_back(scale);
        }
    }
    std::vector<int32_t> axes;
    for (int32_t i = 0; i < rank; ++i)
    {
        axes.push_back(i);
    }
    setScales(layer, scales, axes, rank, ctx.opset() >= 9 ? "scales (input 1)" : "attribute scales");
    return {output(layer.getOutput(0))};
}

} // namespace

void registerResizeOps(OpRegistry& registry)
{
    registry.add("Resize", importResize, checkResize);
    registry.add("Upsample", importUpsample, checkUpsample);
}

} // namespace kiln::onnx_import
