// SPDX-License-Identifier: Apache-2.0
// Quantize and Dequantize (explicit quantization):
//     quantize:   output = saturate(round-half-even(input / scale) + zeroPoint)   kFLOAT/kHALF/kBF16 ->
//     kINT8/kFP8/kINT4 dequantize: output = (input - zeroPoint) * scale                            kINT8/kFP8/kINT4 ->
//     kFLOAT/kHALF/kBF16
// Input 1, the scale (kFLOAT, kHALF or kBF16), maps onto the input one of three ways: a 0-D scale, or a 1-D scale of
// one element, is the one scale of the tensor (as in TensorRT); another 1-D scale has one scale per index of the axis
// (setAxis, negative from the last axis); a scale of the
// input's rank has one scale per block, the block's extents given by setBlockShape (-1: the whole axis; the scale's
// extent is then ceil(input extent / block extent)) or, without a block shape, the input's extents over the scale's
// (which must divide them). Input 2, optional, is the zero point: the scale's shape, the quantized type, and zero.
//
// What kiln checks, and where it differs from TensorRT:
// - Like TensorRT: the zero point must be a build-time constant of zeros (an IConstantLayer's output here; kiln folds
//   no constants), so quantization is symmetric; a zero point that is not is reported and dropped. A scale that is
//   an IConstantLayer's output must be positive and finite.
// - kiln also takes a scale computed at run time (TensorRT requires a build-time constant); its values are then not
//   checked. kiln takes block scales along any axes (TensorRT: the last or second to last), and kINT4 at every
//   granularity. kFP4 (TensorRT's NVFP4 with FP8 block scales) is refused: not yet supported.
// - The quantized tensors hold the codes themselves: they need no dynamic range (the builder gives them scale 1).
#include "core/data_type.h"
#include "core/float_convert.h"
#include "network/checks.h"
#include "network/network.h"
#include "network/shape_rules.h"

#include <cmath>
#include <cstring>
#include <optional>
#include <string>

namespace kiln
{

namespace
{

//! The scale and zero-point inputs.
constexpr int32_t kScaleInput = 1;
constexpr int32_t kZeroPointInput = 2;

bool isScaleType(DataType type) noexcept
{
    return type == DataType::kFLOAT || type == DataType::kHALF || type == DataType::kBF16;
}

//! The types a quantize makes and a dequantize reads.
bool isCodeType(DataType type) noexcept
{
    return type == DataType::kINT8 || type == DataType::kFP8 || type == DataType::kINT4;
}

//! Why type cannot be the quantized type, or nullptr.
char const* codeTypeProblem(DataType type) noexcept
{
    if (type == DataType::kFP4)
    {
        return "is not supported yet by kiln's quantize and dequantize layers (kINT8, kFP8 and kINT4 are)";
    }
    return isCodeType(type) ? nullptr : "is not a quantized type (kINT8, kFP8 or kINT4)";
}

//! The facts that differ between the two kinds.
template <LayerType T>
struct QdqTraits;

template <>
struct QdqTraits<LayerType::kQUANTIZE>
{
    using Params = QuantizeParams;
    static constexpr char const* kDataTypes = "kFLOAT, kHALF or kBF16";
    static bool dataType(DataType type) noexcept { return isScaleType(type); }
    static char const* toTypeProblem(DataType type) noexcept { return codeTypeProblem(type); }
    //! The type of the codes: the output's.
    static DataType codeType(DataType /*input*/, DataType toType) noexcept { return toType; }
};

template <>
struct QdqTraits<LayerType::kDEQUANTIZE>
{
    using Params = DequantizeParams;
    static constexpr char const* kDataTypes = "kINT8, kFP8 or kINT4";
    static bool dataType(DataType type) noexcept { return isCodeType(type); }
    static char const* toTypeProblem(DataType type) noexcept
    {
        return isScaleType(type) ? nullptr : "is not kFLOAT, kHALF or kBF16";
    }
    //! The type of the codes: the input's.
    static DataType codeType(DataType input, DataType /*toType*/) noexcept { return input; }
};

//! Why blockShape cannot be a block shape for an input of rank (unknown when negative), or nullptr.
std::optional<std::string> blockShapeProblem(Dims const& blockShape, int32_t rank)
{
    if (blockShape.nbDims < 0 || blockShape.nbDims > Dims::MAX_DIMS)
    {
        return "has rank " + std::to_string(blockShape.nbDims) + "; a block shape has one extent per input axis";
    }
    if (rank >= 0 && blockShape.nbDims != rank)
    {
        return "has rank " + std::to_string(blockShape.nbDims) + " but the input has rank " + std::to_string(rank);
    }
    for (int32_t i = 0; i < blockShape.nbDims; ++i)
    {
        if (blockShape.d[i] < -1 || blockShape.d[i] == 0)
        {
            return "has extent " + std::to_string(blockShape.d[i]) + " at axis " + std::to_string(i)
                + "; block extents are positive, or -1 for the whole axis";
        }
    }
    return std::nullopt;
}

//! The weights of tensor when an IConstantLayer makes it, else nullptr.
Weights const* constantWeights(Tensor const& tensor) noexcept
{
    Layer const* producer = tensor.producer();
    if (producer == nullptr || producer->type() != LayerType::kCONSTANT)
    {
        return nullptr;
    }
    return &producer->paramsAs<ConstantParams>().weights;
}

//! Element index of weights as a float, for the types a scale or zero point has; nullopt for other types.
std::optional<float> weightsValue(Weights const& weights, int64_t index) noexcept
{
    auto const* bytes = static_cast<uint8_t const*>(weights.values);
    switch (weights.type)
    {
    case DataType::kFLOAT:
    {
        float value = 0.F;
        std::memcpy(&value, bytes + index * 4, sizeof(value));
        return value;
    }
    case DataType::kHALF:
    case DataType::kBF16:
    {
        uint16_t bits = 0;
        std::memcpy(&bits, bytes + index * 2, sizeof(bits));
        return weights.type == DataType::kHALF ? halfToFloat(bits) : bf16ToFloat(bits);
    }
    case DataType::kINT8: return static_cast<float>(static_cast<int8_t>(bytes[index]));
    case DataType::kFP8: return fp8e4m3ToFloat(bytes[index]);
    case DataType::kINT4: return static_cast<float>(int4FromNibble(nibble(bytes[index / 2], index % 2)));
    default: return std::nullopt;
    }
}

//! Why a constant scale is unusable (a value that is not positive and finite), or nullopt; unknown when scale is not
//! an IConstantLayer's output.
std::optional<std::string> scaleValuesProblem(Tensor const& scale)
{
    Weights const* weights = constantWeights(scale);
    if (weights == nullptr || weights->values == nullptr || weightsProblem(*weights) != nullptr)
    {
        return std::nullopt;
    }
    for (int64_t i = 0; i < weights->count; ++i)
    {
        std::optional<float> const value = weightsValue(*weights, i);
        if (value && !(std::isfinite(*value) && *value > 0.F))
        {
            std::string text = "scale \"" + scale.name() + "\" holds ";
            message::append(text, static_cast<double>(*value));
            return text + " at index " + std::to_string(i) + "; scales must be positive and finite";
        }
    }
    return std::nullopt;
}

//! Why zeroPoint cannot be a zero point: not an IConstantLayer's output, or a value that is not zero.
std::optional<std::string> zeroPointProblem(Tensor const& zeroPoint)
{
    Weights const* weights = constantWeights(zeroPoint);
    if (weights == nullptr)
    {
        return "the zero point \"" + zeroPoint.name()
            + "\" is not a build-time constant (an IConstantLayer's output); kiln supports only zero points of zeros";
    }
    if (weightsProblem(*weights) != nullptr || (weights->count > 0 && weights->values == nullptr))
    {
        return "the zero point \"" + zeroPoint.name() + "\" has unusable weights";
    }
    for (int64_t i = 0; i < weights->count; ++i)
    {
        std::optional<float> const value = weightsValue(*weights, i);
        if (!value || *value != 0.F)
        {
            std::string text = "the zero point \"" + zeroPoint.name() + "\" holds ";
            value ? message::append(text, static_cast<double>(*value)) : message::append(text, "a value");
            return text + " at index " + std::to_string(i)
                + "; only symmetric quantization is supported, so every zero point must be 0";
        }
    }
    return std::nullopt;
}

} // namespace

//! The descriptor shared by both kinds; QdqTraits says where they differ.
template <LayerType T>
class QdqKind : public LayerKindTraits<T>::Interface, public KindBase
{
public:
    using Traits = QdqTraits<T>;
    using Params = typename Traits::Params;
    using KindBase::KindBase;

    int32_t getAxis() const noexcept override { return p().axis; }
    void setAxis(int32_t axis) noexcept override
    {
        int32_t const rank = inputDims(0).nbDims;
        if (rank >= 0 && (axis < -rank || axis >= rank))
        {
            mLayer.fail("setAxis", "axis ", axis, " is outside [", -rank, ", ", rank, ") for the input ", inputDims(0));
            return;
        }
        edit().axis = axis;
    }
    DataType getToType() const noexcept override { return p().toType; }
    void setToType(DataType toType) noexcept override
    {
        if (char const* problem = Traits::toTypeProblem(toType))
        {
            mLayer.fail("setToType", "the output type ", dataTypeName(toType), " (", toType, ") ", problem);
            return;
        }
        edit().toType = toType;
    }
    bool setBlockShape(Dims const& blockShape) noexcept override
    {
        if (auto problem = blockShapeProblem(blockShape, inputDims(0).nbDims))
        {
            mLayer.fail("setBlockShape", "the block shape ", blockShape, " ", *problem);
            return false;
        }
        edit().blockShape = blockShape;
        return true;
    }
    Dims getBlockShape() const noexcept override { return p().blockShape; }

    //! Inputs: 0 data, 1 scale, 2 zero point.
    int32_t inputCapacity() const noexcept { return 3; }
    //! A zero point that is not a constant of zeros is reported and dropped.
    void inputChanged(int32_t index) noexcept
    {
        if (index == kZeroPointInput)
        {
            if (auto problem = zeroPointProblem(*mLayer.input(kZeroPointInput)))
            {
                mLayer.fail("setInput", *problem, "; input 2 is left unset");
                mLayer.clearInput(kZeroPointInput);
            }
        }
        else if (index == kScaleInput)
        {
            if (auto problem = scaleValuesProblem(*mLayer.input(kScaleInput)))
            {
                mLayer.fail("setInput", *problem);
            }
        }
    }
    DataType outputType(int32_t /*index*/) const noexcept { return p().toType; }
    Dims outputDims(int32_t /*index*/) const noexcept { return inputDims(0); }

private:
    Params const& p() const noexcept { return mLayer.paramsAs<Params>(); }
    //! The parameters, to change: the layer's outputs are then computed again (Layer::editParams).
    Params& edit() noexcept { return mLayer.editParams<Params>(); }
};

template <>
class KindImpl<LayerType::kQUANTIZE> final : public QdqKind<LayerType::kQUANTIZE>
{
public:
    using QdqKind::QdqKind;
};

template <>
class KindImpl<LayerType::kDEQUANTIZE> final : public QdqKind<LayerType::kDEQUANTIZE>
{
public:
    using QdqKind::QdqKind;
};

namespace
{

//! Adds a quantize (T kQUANTIZE) or dequantize of input by scale to toType, as where.
template <LayerType T>
typename LayerKindTraits<T>::Wrapper* addQdq(
    Network& network, char const* where, nvinfer1::ITensor& input, nvinfer1::ITensor& scale, DataType toType) noexcept
{
    using Traits = QdqTraits<T>;
    using Wrapper = typename LayerKindTraits<T>::Wrapper;
    return network.reporter().guard(where, static_cast<Wrapper*>(nullptr), [&]() -> Wrapper* {
        Tensor* data = network.own(&input, where, "input");
        Tensor* scales = data != nullptr ? network.own(&scale, where, "scale") : nullptr;
        if (data == nullptr || scales == nullptr)
        {
            return nullptr;
        }
        if (!Traits::dataType(data->type()))
        {
            return network.fail(where, "input ", quotedText(data->name()), " is ", dataTypeName(data->type()),
                "; it must be ", Traits::kDataTypes);
        }
        if (!isScaleType(scales->type()))
        {
            return network.fail(where, "scale ", quotedText(scales->name()), " is ", dataTypeName(scales->type()),
                "; it must be kFLOAT, kHALF or kBF16");
        }
        if (char const* problem = Traits::toTypeProblem(toType))
        {
            return network.fail(where, "the output type ", dataTypeName(toType), " (", toType, ") ", problem);
        }
        Dims const dims = data->dims();
        Dims const scaleDims = scales->dims();
        if (scaleDims.nbDims > 1 && dims.nbDims >= 0 && scaleDims.nbDims != dims.nbDims)
        {
            return network.fail(where, "scale ", quotedText(scales->name()), " ", scaleDims, " has rank ",
                scaleDims.nbDims,
                "; a scale is 0-D (per tensor), 1-D (per axis) or of the input's rank (per block: the "
                "input ",
                quotedText(data->name()), " is ", dims, ")");
        }
        if (auto problem = scaleValuesProblem(*scales))
        {
            return network.fail(where, *problem);
        }
        return &network.addLayer<T>({data, scales}, typename Traits::Params{-1, kUnsetDims, toType}, 1);
    });
}

//! The shape rule of both kinds (network/shape_rules.h): the output has the input's shape and the output type; the
//! scale (and zero point) must map onto the input as the file comment says.
template <LayerType T>
Expected<std::vector<SymbolicTensor>> qdqShapes(typename QdqTraits<T>::Params const& params, ShapeRuleContext& context)
{
    using Traits = QdqTraits<T>;
    SymbolicTensor const& data = context.input(0);
    SymbolicTensor const& scale = context.input(kScaleInput);
    if (!data.present() || !scale.present())
    {
        return context.error("the data (input 0) and the scale (input 1) are required");
    }
    if (!Traits::dataType(data.type))
    {
        return context.error("input 0 is ", dataTypeName(data.type), "; it must be ", Traits::kDataTypes);
    }
    if (char const* problem = Traits::toTypeProblem(params.toType))
    {
        return context.error("the output type ", dataTypeName(params.toType), " ", problem);
    }
    if (!isScaleType(scale.type))
    {
        return context.error(
            "the scale (input 1) is ", dataTypeName(scale.type), "; it must be kFLOAT, kHALF or kBF16");
    }
    SymbolicDims const& in = *data.shape;
    SymbolicDims const& s = *scale.shape;
    int32_t const rank = data.rank();
    bool const block = scale.rank() == rank && (rank > 1 || params.blockShape.nbDims >= 0);
    if (params.blockShape.nbDims >= 0)
    {
        if (auto problem = blockShapeProblem(params.blockShape, rank))
        {
            return context.error("the block shape ", problem->c_str());
        }
        if (!block)
        {
            return context.error(
                "a block shape is set but the scale ", context.str(s), " is not of the input's rank (", rank, ")");
        }
    }
    int64_t scaleCount = 0;
    if (scale.rank() == 1 && !block && isConstantExpr(s[0], &scaleCount) && scaleCount == 1)
    {
        // One scale in a 1-D tensor is the tensor's one scale, whatever the axis (TensorRT takes it per tensor).
    }
    else if (scale.rank() == 1 && !block)
    {
        if (params.axis < -rank || params.axis >= rank)
        {
            return context.error(
                "axis ", params.axis, " is outside [", -rank, ", ", rank, ") for the input ", context.str(in));
        }
        auto const axis = static_cast<std::size_t>(params.axis < 0 ? params.axis + rank : params.axis);
        context.requireEqual(s[0], in[axis],
            "the 1-D scale has " + context.str(s[0]) + " elements but the input " + context.str(in) + " has "
                + context.str(in[axis]) + " along axis " + std::to_string(axis) + "; they must be equal");
    }
    else if (block)
    {
        DimExpr const* one = context.constant(1);
        for (std::size_t i = 0; i < s.size(); ++i)
        {
            std::string const where = "axis " + std::to_string(i) + " of the input " + context.str(in)
                + " and of the scale " + context.str(s);
            int64_t const extent = params.blockShape.nbDims >= 0 ? params.blockShape.d[i] : 0;
            if (extent == -1)
            {
                context.requireEqual(s[i], one, where + ": a whole-axis block (-1) needs a scale extent of 1");
            }
            else if (extent > 0)
            {
                context.requireEqual(s[i], context.ceilDiv(in[i], context.constant(extent)),
                    where + ": blocks of " + std::to_string(extent) + " need ceil(input / block) scales");
            }
            else
            {
                context.require(context.eq(context.less(s[i], one), context.constant(0)),
                    where + ": the scale extent must be at least 1");
                context.require(context.eq(context.mul(context.floorDiv(in[i], context.max(s[i], one)), s[i]), in[i]),
                    where + ": the scale's extent must divide the input's (or set a block shape)");
            }
        }
    }
    else if (scale.rank() != 0)
    {
        return context.error("the scale ", context.str(s), " has rank ", scale.rank(),
            "; a scale is 0-D (per tensor), 1-D (per axis) or of the input's rank ", rank, " (per block)");
    }
    if (SymbolicTensor const& zeroPoint = context.input(kZeroPointInput); zeroPoint.present())
    {
        DataType const codeType = Traits::codeType(data.type, params.toType);
        if (zeroPoint.type != codeType)
        {
            return context.error("the zero point (input 2) is ", dataTypeName(zeroPoint.type), "; it must be ",
                dataTypeName(codeType), ", the quantized type");
        }
        if (zeroPoint.rank() != scale.rank())
        {
            return context.error(
                "the zero point ", context.str(*zeroPoint.shape), " must have the scale's shape ", context.str(s));
        }
        for (std::size_t i = 0; i < s.size(); ++i)
        {
            context.requireEqual((*zeroPoint.shape)[i], s[i],
                "the zero point " + context.str(*zeroPoint.shape) + " must have the scale's shape " + context.str(s));
        }
    }
    return context.finish({SymbolicTensor{in, std::nullopt, params.toType}});
}

} // namespace

nvinfer1::IQuantizeLayer* NetworkApi::addQuantize(nvinfer1::ITensor& input, nvinfer1::ITensor& scale) noexcept
{
    return addQdq<LayerType::kQUANTIZE>(mNetwork, "INetworkDefinition::addQuantize", input, scale, DataType::kINT8);
}

nvinfer1::IQuantizeLayer* NetworkApi::addQuantizeV2(
    nvinfer1::ITensor& input, nvinfer1::ITensor& scale, DataType outputType) noexcept
{
    return addQdq<LayerType::kQUANTIZE>(mNetwork, "INetworkDefinition::addQuantize", input, scale, outputType);
}

nvinfer1::IDequantizeLayer* NetworkApi::addDequantize(nvinfer1::ITensor& input, nvinfer1::ITensor& scale) noexcept
{
    return addQdq<LayerType::kDEQUANTIZE>(
        mNetwork, "INetworkDefinition::addDequantize", input, scale, DataType::kFLOAT);
}

nvinfer1::IDequantizeLayer* NetworkApi::addDequantizeV2(
    nvinfer1::ITensor& input, nvinfer1::ITensor& scale, DataType outputType) noexcept
{
    return addQdq<LayerType::kDEQUANTIZE>(mNetwork, "INetworkDefinition::addDequantize", input, scale, outputType);
}

Expected<std::vector<SymbolicTensor>> inferOutputShapes(QuantizeParams const& params, ShapeRuleContext& context)
{
    return qdqShapes<LayerType::kQUANTIZE>(params, context);
}

Expected<std::vector<SymbolicTensor>> inferOutputShapes(DequantizeParams const& params, ShapeRuleContext& context)
{
    return qdqShapes<LayerType::kDEQUANTIZE>(params, context);
}

} // namespace kiln
