// SPDX-License-Identifier: Apache-2.0
// Activations onto IActivationLayer where kiln has the function (Relu, LeakyRelu, Elu, Selu, Sigmoid, HardSigmoid,
// Softplus, Softsign, ThresholdedRelu, Tanh, Clip, Gelu), composed from element-wise layers otherwise (Celu,
// HardSwish, PRelu, Mish, Shrink, Clip with run-time or integer bounds).
#include "onnx/importers/helpers.h"
#include "onnx/importers/importers.h"

#include "core/data_type.h"

#include <algorithm>
#include <limits>
#include <string>

namespace kiln::onnx_import
{

namespace
{

using nvinfer1::ActivationType;
using Op = nvinfer1::ElementWiseOperation;

//! The type ONNX ops that take every numeric type compute in: floating types as they are, int32 and int64 as they
//! are, int8 as INT32 (kiln's kINT8 is scaled: it rounds and saturates), uint8 as FLOAT. bool fails.
DataType numericComputeType(Node const& node)
{
    DataType const type = node.input(0).type();
    bool const known = isFloating(type) || type == DataType::kINT32 || type == DataType::kINT64
        || type == DataType::kINT8 || type == DataType::kUINT8;
    require(known, ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "the input has type ", dataTypeShortName(type), "; ",
        node.opType(), " takes floating-point, int8, uint8, int32 or int64 inputs");
    return type == DataType::kUINT8 ? DataType::kFLOAT : (type == DataType::kINT8 ? DataType::kINT32 : type);
}

ITensor& activation(ImportContext& ctx, ITensor& x, ActivationType type, float alpha = 0.0F, float beta = 0.0F)
{
    auto& layer = ctx.added(ctx.network().addActivation(x, type));
    layer.setAlpha(alpha);
    layer.setBeta(beta);
    return *layer.getOutput(0);
}

//! A constant like x's elements, ready to broadcast against x.
ITensor& constantLike(ImportContext& ctx, ITensor& x, double value)
{
    return scalarConstant(ctx, value, x.getType(), x.getDimensions().nbDims);
}

std::vector<Value> importRelu(ImportContext& ctx, Node& node)
{
    DataType const type = node.input(0).type();
    bool const known
        = isFloating(type) || type == DataType::kINT8 || type == DataType::kINT32 || type == DataType::kINT64;
    require(known, ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "the input has type ", dataTypeShortName(type),
        "; Relu takes floating-point, int8, int32 or int64 inputs");
    return {output(&activation(ctx, inputTensor(ctx, node, 0), ActivationType::kRELU))};
}

//! Sigmoid, Tanh, Softsign: functions without parameters.
template <ActivationType type>
std::vector<Value> importPlain(ImportContext& ctx, Node& node)
{
    return {output(&activation(ctx, floatingInput(ctx, node), type))};
}

std::vector<Value> importLeakyRelu(ImportContext& ctx, Node& node)
{
    float const alpha = node.attrs.get<float>("alpha", 0.01F);
    return {output(&activation(ctx, floatingInput(ctx, node), ActivationType::kLEAKY_RELU, alpha))};
}

std::vector<Value> importElu(ImportContext& ctx, Node& node)
{
    float const alpha = node.attrs.get<float>("alpha", 1.0F);
    return {output(&activation(ctx, floatingInput(ctx, node), ActivationType::kELU, alpha))};
}

std::vector<Value> importSelu(ImportContext& ctx, Node& node)
{
    float const alpha = node.attrs.get<float>("alpha", 1.67326319217681884765625F);
    float const gamma = node.attrs.get<float>("gamma", 1.05070102214813232421875F);
    return {output(&activation(ctx, floatingInput(ctx, node), ActivationType::kSELU, alpha, gamma))};
}

//! Celu: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)), which is alpha * elu(x / alpha) with elu's alpha 1.
std::vector<Value> importCelu(ImportContext& ctx, Node& node)
{
    ITensor& x = floatingInput(ctx, node);
    double const alpha = node.attrs.get<float>("alpha", 1.0F);
    require(alpha != 0.0, ErrorCode::kINVALID_NODE, "Celu's alpha attribute must not be 0");
    if (alpha == 1.0)
    {
        return {output(&activation(ctx, x, ActivationType::kELU, 1.0F))};
    }
    ITensor& scaled = binary(ctx, x, constantLike(ctx, x, alpha), Op::kDIV);
    ITensor& elu = activation(ctx, scaled, ActivationType::kELU, 1.0F);
    return {output(&binary(ctx, elu, constantLike(ctx, x, alpha), Op::kPROD))};
}

std::vector<Value> importHardSigmoid(ImportContext& ctx, Node& node)
{
    float const alpha = node.attrs.get<float>("alpha", 0.2F);
    float const beta = node.attrs.get<float>("beta", 0.5F);
    return {output(&activation(ctx, floatingInput(ctx, node), ActivationType::kHARD_SIGMOID, alpha, beta))};
}

//! HardSwish: x * hardsigmoid(x) with alpha 1/6, beta 0.5.
std::vector<Value> importHardSwish(ImportContext& ctx, Node& node)
{
    ITensor& x = floatingInput(ctx, node);
    ITensor& gate = activation(ctx, x, ActivationType::kHARD_SIGMOID, 1.0F / 6.0F, 0.5F);
    return {output(&binary(ctx, x, gate, Op::kPROD))};
}

std::vector<Value> importSoftplus(ImportContext& ctx, Node& node)
{
    return {output(&activation(ctx, floatingInput(ctx, node), ActivationType::kSOFTPLUS, 1.0F, 1.0F))};
}

std::vector<Value> importThresholdedRelu(ImportContext& ctx, Node& node)
{
    float const alpha = node.attrs.get<float>("alpha", 1.0F);
    return {output(&activation(ctx, floatingInput(ctx, node), ActivationType::kTHRESHOLDED_RELU, alpha))};
}

//! ScaledTanh and ParametricSoftplus: ONNX's experimental ops (before opset 10), alpha and beta as kiln has them.
template <ActivationType type>
std::vector<Value> importAlphaBeta(ImportContext& ctx, Node& node)
{
    float const alpha = node.attrs.get<float>("alpha", 1.0F);
    float const beta = node.attrs.get<float>("beta", 1.0F);
    return {output(&activation(ctx, floatingInput(ctx, node), type, alpha, beta))};
}

void checkGelu(ImportContext&, ::onnx::NodeProto const&, Attributes const& attrs)
{
    std::string const approximate = attrs.get<std::string>("approximate", "none");
    require(approximate == "none" || approximate == "tanh", ErrorCode::kUNSUPPORTED_NODE_ATTR,
        "Gelu's approximate attribute is '", approximate, "'; it must be 'none' or 'tanh'");
}

std::vector<Value> importGelu(ImportContext& ctx, Node& node)
{
    bool const tanh = node.attrs.get<std::string>("approximate", "none") == "tanh";
    return {output(
        &activation(ctx, floatingInput(ctx, node), tanh ? ActivationType::kGELU_TANH : ActivationType::kGELU_ERF))};
}

//! Mish: x * tanh(softplus(x)).
std::vector<Value> importMish(ImportContext& ctx, Node& node)
{
    ITensor& x = floatingInput(ctx, node);
    ITensor& softplus = activation(ctx, x, ActivationType::kSOFTPLUS, 1.0F, 1.0F);
    return {output(&binary(ctx, x, activation(ctx, softplus, ActivationType::kTANH), Op::kPROD))};
}

ITensor& select(ImportContext& ctx, ITensor& condition, ITensor& yes, ITensor& no)
{
    return *ctx.added(ctx.network().addSelect(condition, yes, no)).getOutput(0);
}

//! Shrink: x + bias below -lambd, x - bias above lambd, 0 between. Integers run in FLOAT and are cast back
//! (truncating, as ONNX's reference does).
std::vector<Value> importShrink(ImportContext& ctx, Node& node)
{
    DataType const type = node.input(0).type();
    DataType compute = numericComputeType(node);
    compute = isFloating(compute) ? compute : DataType::kFLOAT;
    ITensor& x = castTo(ctx, inputTensor(ctx, node, 0), compute);
    double const lambd = node.attrs.get<float>("lambd", 0.5F);
    double const bias = node.attrs.get<float>("bias", 0.0F);
    ITensor& below = binary(ctx, x, constantLike(ctx, x, -lambd), Op::kLESS);
    ITensor& above = binary(ctx, x, constantLike(ctx, x, lambd), Op::kGREATER);
    ITensor& plus = binary(ctx, x, constantLike(ctx, x, bias), Op::kSUM);
    ITensor& minus = binary(ctx, x, constantLike(ctx, x, bias), Op::kSUB);
    ITensor& inner = select(ctx, above, minus, constantLike(ctx, x, 0.0));
    return {output(&castTo(ctx, select(ctx, below, plus, inner), type))};
}

//! The slope of PRelu, at X's rank. ONNX broadcasts it to X one way (numpy rules, the slope's dimensions 1 or X's);
//! before opset 7 a 1-D slope of X's channel count ran per channel.
ITensor& preluSlope(ImportContext& ctx, Node const& node, Dims const& xDims)
{
    ITensor* slope = &inputTensor(ctx, node, 1);
    Dims s = slope->getDimensions();
    if (ctx.opset() < 7 && s.nbDims == 1 && xDims.nbDims >= 3 && s.d[0] != 1 && s.d[0] == xDims.d[1])
    {
        Dims perChannel{xDims.nbDims - 1, {}};
        perChannel.d[0] = s.d[0];
        for (int32_t i = 1; i < perChannel.nbDims; ++i)
        {
            perChannel.d[i] = 1;
        }
        auto& reshape = ctx.added(ctx.network().addShuffle(*slope));
        reshape.setReshapeDimensions(perChannel);
        slope = reshape.getOutput(0);
        s = perChannel;
    }
    require(s.nbDims <= xDims.nbDims, ErrorCode::kINVALID_NODE, "PRelu's slope of shape ", shapeText(s),
        " has more dimensions than X of shape ", shapeText(xDims));
    for (int32_t i = 1; i <= s.nbDims; ++i)
    {
        int64_t const sd = s.d[s.nbDims - i];
        int64_t const xd = xDims.d[xDims.nbDims - i];
        require(sd == 1 || sd < 0 || xd < 0 || sd == xd, ErrorCode::kINVALID_NODE, "PRelu's slope of shape ",
            shapeText(s), " does not broadcast to X of shape ", shapeText(xDims));
    }
    return expandRank(ctx, *slope, xDims.nbDims);
}

//! PRelu: x < 0 ? slope * x : x.
std::vector<Value> importPRelu(ImportContext& ctx, Node& node)
{
    DataType const type = node.input(0).type();
    bool const known = isFloating(type) || type == DataType::kINT32 || type == DataType::kINT64;
    require(known, ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "X has type ", dataTypeShortName(type),
        "; PRelu takes floating-point, int32 or int64 inputs");
    require(node.input(1).type() == type, ErrorCode::kINVALID_NODE, "the slope has type ",
        dataTypeShortName(node.input(1).type()), " but X has type ", dataTypeShortName(type), "; PRelu takes one type");
    ITensor& x = inputTensor(ctx, node, 0);
    ITensor& slope = preluSlope(ctx, node, x.getDimensions());
    ITensor& negative = binary(ctx, x, constantLike(ctx, x, 0.0), Op::kLESS);
    return {output(&select(ctx, negative, binary(ctx, x, slope, Op::kPROD), x))};
}

//! One bound of Clip: absent, a number known at parse time, or a run-time scalar tensor.
struct ClipBound
{
    bool present{false};
    double value{0.0};
    ITensor* tensor{nullptr};
};

//! Bound input i (opset 11 on) or attribute name (before).
ClipBound clipBound(ImportContext& ctx, Node const& node, size_t i, char const* name)
{
    if (ctx.opset() < 11)
    {
        if (!node.attrs.has(name))
        {
            return {};
        }
        return {true, node.attrs.get<float>(name, 0.0F), nullptr};
    }
    if (!node.has(i))
    {
        return {};
    }
    Value const& bound = node.input(i);
    if (bound.isWeights())
    {
        require(bound.weights().count == 1, ErrorCode::kINVALID_NODE, "Clip's ", name,
            " input must be a scalar, not a tensor of shape ", shapeText(bound.shape()));
        return {true, bound.weights().number(0), nullptr};
    }
    Dims const dims = bound.shape();
    bool const scalar = dims.nbDims == 0 || (dims.nbDims == 1 && dims.d[0] == 1);
    require(scalar, ErrorCode::kINVALID_NODE, "Clip's ", name, " input must be a scalar, not a tensor of ", dims.nbDims,
        " dimensions (shape ", shapeText(dims), ")");
    require(bound.type() == node.input(0).type(), ErrorCode::kINVALID_NODE, "Clip's ", name, " input has type ",
        dataTypeShortName(bound.type()), " but the input has type ", dataTypeShortName(node.input(0).type()));
    ITensor* tensor = &ctx.tensor(bound);
    if (dims.nbDims == 1)
    {
        auto& reshape = ctx.added(ctx.network().addShuffle(*tensor));
        reshape.setReshapeDimensions(Dims{0, {}});
        tensor = reshape.getOutput(0);
    }
    return {true, 0.0, tensor};
}

//! A bound as a tensor of type compute, at x's rank.
ITensor& boundTensor(ImportContext& ctx, ClipBound const& bound, ITensor& x)
{
    if (bound.tensor == nullptr)
    {
        return constantLike(ctx, x, bound.value);
    }
    return expandRank(ctx, castTo(ctx, *bound.tensor, x.getType()), x.getDimensions().nbDims);
}

//! Clip: kCLIP for floating inputs with bounds known at parse time; else max with min, then min with max (so
//! max wins when min > max, as ONNX says), in the numeric compute type.
std::vector<Value> importClip(ImportContext& ctx, Node& node)
{
    DataType const type = node.input(0).type();
    DataType const compute = numericComputeType(node);
    ClipBound const low = clipBound(ctx, node, 1, "min");
    ClipBound const high = clipBound(ctx, node, 2, "max");
    ITensor& x = castTo(ctx, inputTensor(ctx, node, 0), compute);
    if (isFloating(type) && low.tensor == nullptr && high.tensor == nullptr)
    {
        double const inf = std::numeric_limits<double>::infinity();
        double const hi = high.present ? high.value : inf;
        double const lo = std::min(low.present ? low.value : -inf, hi);
        return {output(&activation(ctx, x, ActivationType::kCLIP, static_cast<float>(lo), static_cast<float>(hi)))};
    }
    ITensor* y = &x;
    if (low.present)
    {
        y = &binary(ctx, *y, boundTensor(ctx, low, x), Op::kMAX);
    }
    if (high.present)
    {
        y = &binary(ctx, *y, boundTensor(ctx, high, x), Op::kMIN);
    }
    return {output(&castTo(ctx, *y, type))};
}

} // namespace

void registerActivationOps(OpRegistry& registry)
{
    registry.add("Relu", importRelu);
    registry.add("LeakyRelu", importLeakyRelu);
    registry.add("Elu", importElu);
    registry.add("Selu", importSelu);
    registry.add("Celu", importCelu);
    registry.add("Sigmoid", importPlain<ActivationType::kSIGMOID>);
    registry.add("HardSigmoid", importHardSigmoid);
    registry.add("HardSwish", importHardSwish);
    registry.add("Softplus", importSoftplus);
    registry.add("Softsign", importPlain<ActivationType::kSOFTSIGN>);
    registry.add("ThresholdedRelu", importThresholdedRelu);
    registry.add("Tanh", importPlain<ActivationType::kTANH>);
    registry.add("PRelu", importPRelu);
    registry.add("Clip", importClip);
    registry.add("Gelu", importGelu, checkGelu);
    registry.add("Mish", importMish);
    registry.add("Shrink", importShrink);
    registry.add("ScaledTanh", importAlphaBeta<ActivationType::kSCALED_TANH>);
    registry.add("ParametricSoftplus", importAlphaBeta<ActivationType::kSOFTPLUS>);
}

} // namespace kiln::onnx_import
