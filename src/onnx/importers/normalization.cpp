// SPDX-License-Identifier: Apache-2.0
// BatchNormalization (folded to a scale and shift when its parameters are weights), InstanceNormalization,
// LayerNormalization, GroupNormalization, RMSNormalization, LpNormalization, LRN, MeanVarianceNormalization and
// ImageScaler, composed from reduce, element-wise, unary, shuffle and pooling layers (kiln has no normalization layer).
// With OnnxParserFlag::kNATIVE_INSTANCENORM cleared, InstanceNormalization becomes TensorRT's standard plugin
// InstanceNormalization_TRT version "3" instead, as TensorRT's parser imports it: scale and B must be initializers
// (their values become the plugin's scales and bias fields, as FLOAT), relu and alpha are 0, X has rank 3 to 5, and a
// 3-D X runs as 4-D with a trailing extent of 1.
#include "onnx/importers/helpers.h"
#include "onnx/importers/importers.h"
#include "onnx/importers/plugin.h"
#include "onnx/importers/shape_helpers.h"

#include "core/data_type.h"

#include <cmath>

namespace kiln::onnx_import
{

namespace
{

using nvinfer1::ElementWiseOperation;
using nvinfer1::ReduceOperation;
using nvinfer1::UnaryOperation;

ITensor& mean(ImportContext& ctx, ITensor& x, uint32_t axes)
{
    return *ctx.added(ctx.network().addReduce(x, ReduceOperation::kAVG, axes, true)).getOutput(0);
}

ITensor& constant(ImportContext& ctx, double value, ITensor const& like)
{
    return scalarConstant(ctx, value, like.getType(), like.getDimensions().nbDims);
}

//! The statistics of a normalization over a set of axes.
struct Normalized
{
    ITensor* y;      //!< (x - mean) / sqrt(variance + epsilon)
    ITensor* mean;   //!< Kept axes as extents of 1.
    ITensor* invStd; //!< 1 / sqrt(variance + epsilon)
};

Normalized normalize(ImportContext& ctx, ITensor& x, uint32_t axes, double epsilon)
{
    ITensor& average = mean(ctx, x, axes);
    ITensor& centered = binary(ctx, x, average, ElementWiseOperation::kSUB);
    ITensor& variance = mean(ctx, binary(ctx, centered, centered, ElementWiseOperation::kPROD), axes);
    ITensor& padded = binary(ctx, variance, constant(ctx, epsilon, variance), ElementWiseOperation::kSUM);
    ITensor& invStd = unary(ctx, unary(ctx, padded, UnaryOperation::kSQRT), UnaryOperation::kRECIP);
    return {&binary(ctx, centered, invStd, ElementWiseOperation::kPROD), &average, &invStd};
}

//! A bit mask of the axes from first to rank - 1.
uint32_t axesFrom(int32_t first, int32_t rank)
{
    return ((1U << rank) - 1U) & ~((1U << first) - 1U);
}

//! Extents of 1, except extent axis (-1: from the data).
Dims onesExcept(int32_t rank, int32_t axis, int64_t extent)
{
    Dims dims{rank, {}};
    for (int32_t i = 0; i < rank; ++i)
    {
        dims.d[i] = i == axis ? extent : 1;
    }
    return dims;
}

//! A 1-D per-channel value [C] as a tensor of type shaped [1, C, 1, ...] (rank dimensions).
ITensor& perChannel(ImportContext& ctx, Value const& value, DataType type, int32_t rank, char const* what)
{
    require(value.rank() == 1, ErrorCode::kINVALID_NODE, what, " must be 1-D (one value per channel), not ",
        value.rank(), "-D");
    if (value.isWeights())
    {
        ShapedWeights weights = value.weights();
        weights.shape = onesExcept(rank, 1, weights.count);
        weights.name.clear(); // a named initializer's constant keeps its own shape
        return castTo(ctx, ctx.tensor(Value::weights(weights)), type);
    }
    auto& shuffle = ctx.added(ctx.network().addShuffle(ctx.tensor(value)));
    shuffle.setReshapeDimensions(onesExcept(rank, 1, -1));
    return castTo(ctx, *shuffle.getOutput(0), type);
}

//! Per-channel values as a constant of type shaped [1, C, 1, ...] (rank dimensions).
ITensor& perChannelConstant(ImportContext& ctx, std::vector<double> const& values, DataType type, int32_t rank)
{
    auto const channels = static_cast<int64_t>(values.size());
    ShapedWeights weights = ctx.weightsFrom(type, Dims{1, {channels}}, values);
    weights.shape = onesExcept(rank, 1, channels);
    return ctx.tensor(Value::weights(weights));
}

//! x * scale + bias (bias may be nullptr).
//! x * scale + bias in x's type. Exporters write scale and bias in another type than X (PyTorch's half models
//! normalize a float X with half weights), which the element-wise layers refuse: they are cast to x's type.
ITensor& affine(ImportContext& ctx, ITensor& x, ITensor& scale, ITensor* bias)
{
    ITensor& scaled = binary(ctx, x, castTo(ctx, scale, x.getType()), ElementWiseOperation::kPROD);
    return bias == nullptr ? scaled : binary(ctx, scaled, castTo(ctx, *bias, x.getType()), ElementWiseOperation::kSUM);
}

//! Fails when the node asks for an output beyond the first.
void requireOnlyFirstOutput(Node const& node, char const* why)
{
    for (int i = 1; i < node.proto.output_size(); ++i)
    {
        require(node.proto.output(i).empty(), ErrorCode::kUNSUPPORTED_NODE, "output ", i, " (", node.proto.output(i),
            ") is not supported: ", why);
    }
}

void checkBatchNormalization(ImportContext&, ::onnx::NodeProto const&, Attributes const& attrs)
{
    require(attrs.get<int64_t>("training_mode", 0) == 0, ErrorCode::kUNSUPPORTED_NODE_ATTR,
        "attribute training_mode must be 0: kiln imports inference only");
    require(attrs.get<int64_t>("spatial", 1) != 0, ErrorCode::kUNSUPPORTED_NODE_ATTR,
        "attribute spatial = 0 (per-activation statistics) is not supported");
}

//! scale / sqrt(var + epsilon) and bias - mean * that, computed at parse time, shaped [1, C, 1, ...].
std::pair<ITensor*, ITensor*> foldBatchNormalization(ImportContext& ctx, Node const& node, ITensor const& x)
{
    std::vector<double> const scale = constantNumbers(node, 1, "scale");
    std::vector<double> const bias = constantNumbers(node, 2, "B");
    std::vector<double> const average = constantNumbers(node, 3, "input_mean");
    std::vector<double> const variance = constantNumbers(node, 4, "input_var");
    size_t const channels = scale.size();
    require(bias.size() == channels && average.size() == channels && variance.size() == channels,
        ErrorCode::kINVALID_NODE, "scale, B, input_mean and input_var must have one value per channel");
    auto const epsilon = static_cast<double>(node.attrs.get<float>("epsilon", 1e-5F));
    std::vector<double> factor(channels);
    std::vector<double> shift(channels);
    for (size_t c = 0; c < channels; ++c)
    {
        factor[c] = scale[c] / std::sqrt(variance[c] + epsilon);
        shift[c] = bias[c] - average[c] * factor[c];
    }
    int32_t const rank = x.getDimensions().nbDims;
    return {&perChannelConstant(ctx, factor, x.getType(), rank), &perChannelConstant(ctx, shift, x.getType(), rank)};
}

std::vector<Value> importBatchNormalization(ImportContext& ctx, Node& node)
{
    requireOnlyFirstOutput(node, "kiln imports BatchNormalization for inference only");
    ITensor& x = inputTensor(ctx, node, 0);
    int32_t const rank = x.getDimensions().nbDims;
    require(rank >= 2, ErrorCode::kINVALID_NODE, "input X has ", rank, " dimensions; it needs N and C at least");
    bool folded = true;
    for (size_t i = 1; i <= 4; ++i)
    {
        folded = folded && node.input(i).isWeights();
    }
    if (folded)
    {
        auto [factor, shift] = foldBatchNormalization(ctx, node, x);
        return {output(&affine(ctx, x, *factor, shift))};
    }
    DataType const type = x.getType();
    auto const epsilon = static_cast<double>(node.attrs.get<float>("epsilon", 1e-5F));
    ITensor& average = perChannel(ctx, node.input(3), type, rank, "input_mean");
    ITensor& variance = perChannel(ctx, node.input(4), type, rank, "input_var");
    ITensor& padded = binary(ctx, variance, constant(ctx, epsilon, variance), ElementWiseOperation::kSUM);
    ITensor& factor = binary(ctx, perChannel(ctx, node.input(1), type, rank, "scale"),
        unary(ctx, padded, UnaryOperation::kSQRT), ElementWiseOperation::kDIV);
    ITensor& centered = binary(ctx, x, average, ElementWiseOperation::kSUB);
    return {output(&affine(ctx, centered, factor, &perChannel(ctx, node.input(2), type, rank, "B")))};
}

//! InstanceNormalization as the InstanceNormalization_TRT plugin (see the top of the file).
std::vector<Value> importInstanceNormalizationPlugin(ImportContext& ctx, Node& node)
{
    require(node.input(1).isWeights(), ErrorCode::kUNSUPPORTED_NODE,
        "The scale tensor is required to be an initializer (OnnxParserFlag::kNATIVE_INSTANCENORM is cleared, so "
        "InstanceNormalization becomes the InstanceNormalization_TRT plugin, whose scales are fields)");
    require(node.input(2).isWeights(), ErrorCode::kUNSUPPORTED_NODE,
        "The bias tensor is required to be an initializer (OnnxParserFlag::kNATIVE_INSTANCENORM is cleared, so "
        "InstanceNormalization becomes the InstanceNormalization_TRT plugin, whose bias is a field)");
    ITensor* x = &inputTensor(ctx, node, 0);
    int32_t const rank = x->getDimensions().nbDims;
    require(rank >= 3 && rank <= 5, ErrorCode::kUNSUPPORTED_NODE, "X has ", rank,
        " dimensions: TensorRT only supports InstanceNormalization on 3D, 4D, or 5D tensors!");
    require(x->getType() == DataType::kFLOAT || x->getType() == DataType::kHALF, ErrorCode::kUNSUPPORTED_NODE_DATATYPE,
        "X is ", dataTypeName(x->getType()), "; TensorRT's InstanceNormalization_TRT plugin takes FLOAT or FLOAT16");
    std::vector<double> const scaleValues = constantNumbers(node, 1, "scale");
    std::vector<double> const biasValues = constantNumbers(node, 2, "B");
    std::vector<float> scales(scaleValues.begin(), scaleValues.end());
    std::vector<float> bias(biasValues.begin(), biasValues.end());
    float epsilon = node.attrs.get<float>("epsilon", 1e-5F);
    int32_t relu = 0;
    float alpha = 0.0F;
    if (rank == 3)
    {
        x = &ctx.tensor(reshapeValue(
            ctx, Value::tensor(*x), {DimPart::copy(0), DimPart::copy(1), DimPart::copy(2), DimPart::fixed(1)}));
    }
    std::vector<nvinfer1::PluginField> const fields{
        nvinfer1::PluginField{"epsilon", &epsilon, nvinfer1::PluginFieldType::kFLOAT32, 1},
        nvinfer1::PluginField{
            "scales", scales.data(), nvinfer1::PluginFieldType::kFLOAT32, static_cast<int32_t>(scales.size())},
        nvinfer1::PluginField{
            "bias", bias.data(), nvinfer1::PluginFieldType::kFLOAT32, static_cast<int32_t>(bias.size())},
        nvinfer1::PluginField{"relu", &relu, nvinfer1::PluginFieldType::kINT32, 1},
        nvinfer1::PluginField{"alpha", &alpha, nvinfer1::PluginFieldType::kFLOAT32, 1}};
    nvinfer1::IPluginV3Layer& layer = addStandardPlugin(ctx, node, "InstanceNormalization_TRT", "3", fields, {x});
    if (rank == 3)
    {
        return {reshapeValue(
            ctx, Value::tensor(*layer.getOutput(0)), {DimPart::copy(0), DimPart::copy(1), DimPart::copy(2)})};
    }
    return {output(layer.getOutput(0))};
}

std::vector<Value> importInstanceNormalization(ImportContext& ctx, Node& node)
{
    if (!ctx.flag(nvonnxparser::OnnxParserFlag::kNATIVE_INSTANCENORM))
    {
        return importInstanceNormalizationPlugin(ctx, node);
    }
    ITensor& x = inputTensor(ctx, node, 0);
    int32_t const rank = x.getDimensions().nbDims;
    require(rank >= 3, ErrorCode::kINVALID_NODE, "input has ", rank, " dimensions; it needs N, C and spatial ones");
    auto const epsilon = static_cast<double>(node.attrs.get<float>("epsilon", 1e-5F));
    Normalized const n = normalize(ctx, x, axesFrom(2, rank), epsilon);
    DataType const type = x.getType();
    ITensor& scale = perChannel(ctx, node.input(1), type, rank, "scale");
    return {output(&affine(ctx, *n.y, scale, &perChannel(ctx, node.input(2), type, rank, "B")))};
}

//! The type stash_type names (the type the statistics are computed in).
DataType stashType(Node const& node)
{
    return floatingTypeAttribute(node, "stash_type", ::onnx::TensorProto::FLOAT);
}

std::vector<Value> importLayerNormalization(ImportContext& ctx, Node& node)
{
    ITensor& x = inputTensor(ctx, node, 0);
    int32_t const rank = x.getDimensions().nbDims;
    require(rank >= 1, ErrorCode::kINVALID_NODE, "input X must have at least one dimension");
    int32_t const axis = normalizeAxis(node.attrs.get<int64_t>("axis", -1), rank);
    auto const epsilon = static_cast<double>(node.attrs.get<float>("epsilon", 1e-5F));
    Normalized const n = normalize(ctx, castTo(ctx, x, stashType(node)), axesFrom(axis, rank), epsilon);
    ITensor& y = castTo(ctx, *n.y, x.getType());
    ITensor* bias = node.has(2) ? &inputTensor(ctx, node, 2) : nullptr;
    std::vector<Value> outputs{output(&affine(ctx, y, inputTensor(ctx, node, 1), bias))};
    // Mean and InvStdDev (optional outputs 1 and 2), in the stash type.
    if (node.outputCount() > 1)
    {
        outputs.push_back(output(n.mean));
    }
    if (node.outputCount() > 2)
    {
        outputs.push_back(output(n.invStd));
    }
    return outputs;
}

//! Makes the shuffle reshape to the shape of like (static dimensions, else a shape tensor).
void reshapeLike(ImportContext& ctx, nvinfer1::IShuffleLayer& shuffle, ITensor& like)
{
    Dims const shape = like.getDimensions();
    if (isStatic(shape))
    {
        shuffle.setReshapeDimensions(shape);
    }
    else
    {
        shuffle.setInput(1, shapeOf(ctx, like));
    }
}

//! A reshape of x to dims (0 copies an extent) or, when dims is nullptr, to the shape of like.
ITensor& reshape(ImportContext& ctx, ITensor& x, Dims const* dims, ITensor& like)
{
    auto& shuffle = ctx.added(ctx.network().addShuffle(x));
    if (dims != nullptr)
    {
        shuffle.setReshapeDimensions(*dims);
    }
    else
    {
        reshapeLike(ctx, shuffle, like);
    }
    return *shuffle.getOutput(0);
}

//! Normalizes each of num_groups groups of channels; scale and bias are per group (opset 18) or per channel (21).
std::vector<Value> importGroupNormalization(ImportContext& ctx, Node& node)
{
    ITensor& x = inputTensor(ctx, node, 0);
    int32_t const rank = x.getDimensions().nbDims;
    require(rank >= 3, ErrorCode::kINVALID_NODE, "input X has ", rank, " dimensions; it needs N, C and spatial ones");
    int64_t const groups = node.attrs.required<int64_t>("num_groups");
    int64_t const channels = x.getDimensions().d[1];
    require(groups >= 1 && (channels < 0 || channels % groups == 0), ErrorCode::kINVALID_NODE, "attribute num_groups (",
        groups, ") must divide the channels (", channels, ")");
    bool const byChannel = ctx.opset() >= 21;
    int64_t const expected = byChannel ? channels : groups;
    for (size_t i = 1; i <= 2; ++i)
    {
        Dims const shape = node.input(i).shape();
        require(shape.nbDims == 1 && (expected < 0 || shape.d[0] < 0 || shape.d[0] == expected),
            ErrorCode::kINVALID_NODE, "input ", i, " must be 1-D with one value per ", byChannel ? "channel" : "group");
    }
    auto const epsilon = static_cast<double>(node.attrs.get<float>("epsilon", 1e-5F));
    Dims const grouped{3, {0, groups, -1}};
    ITensor& stashed = castTo(ctx, x, stashType(node));
    ITensor& y = castTo(ctx, *normalize(ctx, reshape(ctx, stashed, &grouped, x), 4U, epsilon).y, x.getType());
    ITensor& scale = perChannel(ctx, node.input(1), x.getType(), byChannel ? rank : 3, "scale");
    ITensor& bias = perChannel(ctx, node.input(2), x.getType(), byChannel ? rank : 3, "bias");
    if (byChannel)
    {
        return {output(&affine(ctx, reshape(ctx, y, nullptr, x), scale, &bias))};
    }
    return {output(&reshape(ctx, affine(ctx, y, scale, &bias), nullptr, x))};
}

//! LRN: x / (bias + alpha / size * (sum of x^2 over size neighbouring channels))^beta. The channel sum is an average
//! pool (counting padding) of x^2 viewed as [N, 1, C, rest].
std::vector<Value> importLRN(ImportContext& ctx, Node& node)
{
    ITensor& x = inputTensor(ctx, node, 0);
    require(x.getDimensions().nbDims >= 2, ErrorCode::kINVALID_NODE, "input X needs N and C dimensions");
    int64_t const size = node.attrs.required<int64_t>("size");
    require(size >= 1, ErrorCode::kINVALID_NODE, "attribute size must be at least 1, not ", size);
    auto& toPlanes = ctx.added(ctx.network().addShuffle(binary(ctx, x, x, ElementWiseOperation::kPROD)));
    toPlanes.setReshapeDimensions(Dims{4, {0, 0, -1, 1}});
    toPlanes.setSecondTranspose(nvinfer1::Permutation{{0, 3, 1, 2}});
    auto& pool = ctx.added(
        ctx.network().addPoolingNd(*toPlanes.getOutput(0), nvinfer1::PoolingType::kAVERAGE, Dims{2, {size, 1}}));
    pool.setPrePadding(Dims{2, {(size - 1) / 2, 0}});
    pool.setPostPadding(Dims{2, {size / 2, 0}});
    pool.setAverageCountExcludesPadding(false);
    auto& back = ctx.added(ctx.network().addShuffle(*pool.getOutput(0)));
    back.setFirstTranspose(nvinfer1::Permutation{{0, 2, 3, 1}});
    reshapeLike(ctx, back, x);
    ITensor& average = *back.getOutput(0);

    auto const attr
        = [&](char const* name, float fallback) { return static_cast<double>(node.attrs.get<float>(name, fallback)); };
    ITensor& scaled = binary(ctx, average, constant(ctx, attr("alpha", 1e-4F), x), ElementWiseOperation::kPROD);
    ITensor& base = binary(ctx, scaled, constant(ctx, attr("bias", 1.0F), x), ElementWiseOperation::kSUM);
    ITensor& divisor = binary(ctx, base, constant(ctx, attr("beta", 0.75F), x), ElementWiseOperation::kPOW);
    return {output(&binary(ctx, x, divisor, ElementWiseOperation::kDIV))};
}

//! (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9) over axes (default 0, 2, 3), as ONNX's function body.
std::vector<Value> importMeanVarianceNormalization(ImportContext& ctx, Node& node)
{
    ITensor& x = inputTensor(ctx, node, 0);
    int32_t const rank = x.getDimensions().nbDims;
    uint32_t axes = 0;
    for (int64_t axis : node.attrs.get<std::vector<int64_t>>("axes", {0, 2, 3}))
    {
        axes |= 1U << normalizeAxis(axis, rank, "axes value");
    }
    ITensor& average = mean(ctx, x, axes);
    ITensor& squares = mean(ctx, binary(ctx, x, x, ElementWiseOperation::kPROD), axes);
    ITensor& variance
        = binary(ctx, squares, binary(ctx, average, average, ElementWiseOperation::kPROD), ElementWiseOperation::kSUB);
    ITensor& deviation = binary(
        ctx, unary(ctx, variance, UnaryOperation::kSQRT), constant(ctx, 1e-9, variance), ElementWiseOperation::kSUM);
    ITensor& centered = binary(ctx, x, average, ElementWiseOperation::kSUB);
    return {output(&binary(ctx, centered, deviation, ElementWiseOperation::kDIV))};
}

//! ImageScaler: x * scale + bias[c] over NCHW (an affine per channel).
std::vector<Value> importImageScaler(ImportContext& ctx, Node& node)
{
    ITensor& x = floatingInput(ctx, node);
    Dims const dims = x.getDimensions();
    require(dims.nbDims == 4, ErrorCode::kINVALID_NODE, "input has shape ", shapeText(dims), "; it must be 4-D (NCHW)");
    std::vector<float> const bias = node.attrs.get<std::vector<float>>("bias", {});
    require(bias.empty() || dims.d[1] < 0 || static_cast<int64_t>(bias.size()) == dims.d[1], ErrorCode::kINVALID_NODE,
        "attribute bias has ", bias.size(), " values; the input has ", dims.d[1], " channels");
    ITensor& scale = constant(ctx, static_cast<double>(node.attrs.get<float>("scale", 1.0F)), x);
    ITensor* shift = bias.empty()
        ? nullptr
        : &perChannelConstant(ctx, std::vector<double>(bias.begin(), bias.end()), x.getType(), dims.nbDims);
    return {output(&affine(ctx, x, scale, shift))};
}

//! LpNormalization: x / (sum over axis of |x|^p)^(1/p), for p = 1 (sum of |x|) and p = 2 (sqrt of the sum of x^2).
std::vector<Value> importLpNormalization(ImportContext& ctx, Node& node)
{
    ITensor& x = floatingInput(ctx, node);
    int32_t const axis = normalizeAxis(node.attrs.get<int64_t>("axis", -1), x.getDimensions().nbDims);
    int64_t const p = node.attrs.get<int64_t>("p", 2);
    require(p == 1 || p == 2, ErrorCode::kUNSUPPORTED_NODE_ATTR, "attribute p is ", p, "; it must be 1 or 2");
    ITensor& terms = p == 1 ? unary(ctx, x, UnaryOperation::kABS) : binary(ctx, x, x, ElementWiseOperation::kPROD);
    ITensor& sum = *ctx.added(ctx.network().addReduce(terms, ReduceOperation::kSUM, 1U << axis, true)).getOutput(0);
    ITensor& norm = p == 1 ? sum : unary(ctx, sum, UnaryOperation::kSQRT);
    return {output(&binary(ctx, x, norm, ElementWiseOperation::kDIV))};
}

//! RMSNormalization (opset 23): x / sqrt(mean(x^2) + epsilon) over the axes from axis on, computed in stash_type,
//! then times scale (broadcast over the normalized axes).
std::vector<Value> importRMSNormalization(ImportContext& ctx, Node& node)
{
    ITensor& x = floatingInput(ctx, node);
    int32_t const rank = x.getDimensions().nbDims;
    require(rank >= 1, ErrorCode::kINVALID_NODE, "input X must have at least one dimension");
    int32_t const axis = normalizeAxis(node.attrs.get<int64_t>("axis", -1), rank);
    auto const epsilon = static_cast<double>(node.attrs.get<float>("epsilon", 1e-5F));
    ITensor& stashed = castTo(ctx, x, stashType(node));
    ITensor& squares = mean(ctx, binary(ctx, stashed, stashed, ElementWiseOperation::kPROD), axesFrom(axis, rank));
    ITensor& padded = binary(ctx, squares, constant(ctx, epsilon, squares), ElementWiseOperation::kSUM);
    ITensor& normalized = binary(ctx, stashed, unary(ctx, padded, UnaryOperation::kSQRT), ElementWiseOperation::kDIV);
    ITensor& scale = castTo(ctx, inputTensor(ctx, node, 1), x.getType());
    return {output(&binary(ctx, castTo(ctx, normalized, x.getType()), scale, ElementWiseOperation::kPROD))};
}

} // namespace

void registerNormalizationOps(OpRegistry& registry)
{
    registry.add("BatchNormalization", importBatchNormalization, checkBatchNormalization);
    registry.add("InstanceNormalization", importInstanceNormalization);
    registry.add("LayerNormalization", importLayerNormalization);
    registry.add("GroupNormalization", importGroupNormalization);
    registry.add("LRN", importLRN);
    registry.add("MeanVarianceNormalization", importMeanVarianceNormalization);
    registry.add("ImageScaler", importImageScaler);
    registry.add("LpNormalization", importLpNormalization);
    registry.add("RMSNormalization", importRMSNormalization);
}

} // namespace kiln::onnx_import
