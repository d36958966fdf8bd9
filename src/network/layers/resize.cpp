// SPDX-License-Identifier: Apache-2.0
// Resize: the input interpolated to another shape (network/resize_math.h has the arithmetic). The output shape is
// input 1 (a shape tensor) when given, else the output dimensions or the scales, whichever was set last; setting one
// drops the other and input 1.
//
// Where the rules come from: TensorRT 10's IResizeLayer reference (docs.nvidia.com, "IResizeLayer" and its enums;
// the operator reference's Resize page): the methods and their order, the enum values, the defaults (kNEAREST,
// kASYMMETRIC, kFORMULA, kFLOOR, cubic coefficient -0.75, exclude-outside off), output extents floor(in * scale),
// getScales' -1 without scales. Chosen by kiln: nothing set keeps the input's shape; getOutputDimensions has
// nbDims == -1 unless the output dimensions were set; a scale divides the output coordinate as ONNX's Resize does.
#include "network/checks.h"
#include "network/network.h"
#include "network/resize_math.h"
#include "network/shape_rules.h"

#include <cmath>
#include <limits>
#include <optional>

namespace kiln
{

using nvinfer1::InterpolationMode;
using nvinfer1::ResizeCoordinateTransformation;
using nvinfer1::ResizeRoundMode;
using nvinfer1::ResizeSelector;

namespace
{

constexpr int32_t kShapeInput = 1;

//! Wide enough for an extent times a 24-bit numerator.
__extension__ using Wide = __int128;

} // namespace

ExactScale exactScale(float scale) noexcept
{
    int exponent = 0;
    double const mantissa = std::frexp(static_cast<double>(scale), &exponent); // scale = mantissa * 2^exponent
    ExactScale result{static_cast<int64_t>(std::ldexp(mantissa, 24)), 24 - exponent};
    while (result.numerator != 0 && result.numerator % 2 == 0 && result.shift > 0)
    {
        result.numerator /= 2;
        --result.shift;
    }
    return result;
}

std::optional<int64_t> resizedExtent(int64_t in, float scale) noexcept
{
    ExactScale const exact = exactScale(scale);
    Wide const product = static_cast<Wide>(in) * exact.numerator;
    if (exact.shift >= 0)
    {
        return exact.shift >= 100 ? 0 : static_cast<int64_t>(product >> exact.shift);
    }
    int32_t const up = -exact.shift;
    if (product == 0)
    {
        return 0;
    }
    if (up >= 63 || product > (static_cast<Wide>(std::numeric_limits<int64_t>::max()) >> up))
    {
        return std::nullopt;
    }
    return static_cast<int64_t>(product << up);
}

template <>
class KindImpl<LayerType::kRESIZE> final : public nvinfer1::apiv::VResizeLayer, public KindBase
{
public:
    using KindBase::KindBase;

    void setOutputDimensions(Dims const& dimensions) noexcept override
    {
        if (!mLayer.checkDims("setOutputDimensions", "the output dimensions", dimensions, 0))
        {
            return;
        }
        int32_t const rank = inputDims(0).nbDims;
        if (rank >= 0 && dimensions.nbDims != rank)
        {
            mLayer.fail("setOutputDimensions", "the output dimensions ", dimensions, " have ", dimensions.nbDims,
                " extents; the input has rank ", rank);
            return;
        }
        edit().outputDims = dimensions;
        edit().scales.clear();
        mLayer.clearInput(kShapeInput);
    }
    Dims getOutputDimensions() const noexcept override { return given() ? kUnsetDims : p().outputDims; }
    void setScales(float const* scales, int32_t nbScales) noexcept override
    {
        if (nbScales < 1 || nbScales > Dims::MAX_DIMS)
        {
            mLayer.fail("setScales", "nbScales is ", nbScales, "; it must be 1 to ", Dims::MAX_DIMS,
                " (one scale per input axis)");
            return;
        }
        if (scales == nullptr)
        {
            mLayer.fail("setScales", "scales is null but nbScales is ", nbScales);
            return;
        }
        int32_t const rank = inputDims(0).nbDims;
        if (rank >= 0 && nbScales != rank)
        {
            mLayer.fail("setScales", nbScales, " scales for an input of rank ", rank, "; give one per input axis");
            return;
        }
        for (int32_t i = 0; i < nbScales; ++i)
        {
            if (!std::isfinite(scales[i]) || scales[i] <= 0.F)
            {
                mLayer.fail("setScales", "scale ", i, " is ", static_cast<double>(scales[i]),
                    "; scales must be positive and finite");
                return;
            }
        }
        mLayer.reporter().guard("IResizeLayer::setScales", 0, [&] {
            edit().scales.assign(scales, scales + nbScales);
            return 0;
        });
        edit().outputDims = kUnsetDims;
        mLayer.clearInput(kShapeInput);
    }
    int32_t getScales(int32_t size, float* scales) const noexcept override
    {
        if (given() || p().scales.empty())
        {
            return -1;
        }
        auto const count = static_cast<int32_t>(p().scales.size());
        if (scales != nullptr && size == count)
        {
            std::copy(p().scales.begin(), p().scales.end(), scales);
        }
        return count;
    }
    void setResizeMode(InterpolationMode interpolationMode) noexcept override
    {
        if (mLayer.checkEnum("setResizeMode", "interpolation mode", interpolationMode))
        {
            edit().mode = interpolationMode;
        }
    }
    InterpolationMode getResizeMode() const noexcept override { return p().mode; }
    void setCoordinateTransformation(ResizeCoordinateTransformation coordTransform) noexcept override
    {
        if (mLayer.checkEnum("setCoordinateTransformation", "coordinate transformation", coordTransform))
        {
            edit().transformation = coordTransform;
        }
    }
    ResizeCoordinateTransformation getCoordinateTransformation() const noexcept override { return p().transformation; }
    void setSelectorForSinglePixel(ResizeSelector selector) noexcept override
    {
        if (mLayer.checkEnum("setSelectorForSinglePixel", "selector", selector))
        {
            edit().selector = selector;
        }
    }
    ResizeSelector getSelectorForSinglePixel() const noexcept override { return p().selector; }
    void setNearestRounding(ResizeRoundMode value) noexcept override
    {
        if (mLayer.checkEnum("setNearestRounding", "rounding mode", value))
        {
            edit().rounding = value;
        }
    }
    ResizeRoundMode getNearestRounding() const noexcept override { return p().rounding; }
    void setCubicCoeff(float A) noexcept override
    {
        if (!std::isfinite(A))
        {
            mLayer.fail("setCubicCoeff", "the cubic coefficient is ", static_cast<double>(A), "; it must be finite");
            return;
        }
        edit().cubicCoeff = A;
    }
    float getCubicCoeff() const noexcept override { return p().cubicCoeff; }
    void setExcludeOutside(bool excludeFlag) noexcept override { edit().excludeOutside = excludeFlag; }
    bool getExcludeOutside() const noexcept override { return p().excludeOutside; }

    //! Inputs: 0 data, 1 the output shape.
    int32_t inputCapacity() const noexcept { return 2; }
    bool isShapeInput(int32_t index) const noexcept { return index == kShapeInput; }
    DataType outputType(int32_t /*index*/) const noexcept { return inputType(0); }
    Dims outputDims(int32_t /*index*/) const noexcept
    {
        Dims const input = inputDims(0);
        if (given())
        {
            Dims const shape = inputDims(kShapeInput);
            bool const known = shape.nbDims == 1 && shape.d[0] >= 0 && shape.d[0] <= Dims::MAX_DIMS;
            return known ? filledDims(static_cast<int32_t>(shape.d[0]), -1) : kUnsetDims;
        }
        if (p().outputDims.nbDims >= 0)
        {
            return p().outputDims;
        }
        if (p().scales.empty() || input.nbDims != static_cast<int32_t>(p().scales.size()))
        {
            return p().scales.empty() ? input : filledDims(input.nbDims, -1);
        }
        Dims result = input;
        for (int32_t i = 0; i < input.nbDims; ++i)
        {
            std::optional<int64_t> const extent
                = input.d[i] < 0 ? std::nullopt : resizedExtent(input.d[i], p().scales[static_cast<std::size_t>(i)]);
            result.d[i] = extent.value_or(-1);
        }
        return result;
    }

private:
    ResizeParams const& p() const noexcept { return mLayer.paramsAs<ResizeParams>(); }
    //! The parameters, to change: the layer's outputs are then computed again (Layer::editParams).
    ResizeParams& edit() noexcept { return mLayer.editParams<ResizeParams>(); }
    bool given() const noexcept { return mLayer.input(kShapeInput) != nullptr; }
};

nvinfer1::IResizeLayer* NetworkApi::addResize(nvinfer1::ITensor& input) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addResize";
    return mNetwork.reporter().guard(
        kWhere, static_cast<nvinfer1::IResizeLayer*>(nullptr), [&]() -> nvinfer1::IResizeLayer* {
            Tensor* data = mNetwork.own(&input, kWhere, "input");
            if (data == nullptr)
            {
                return nullptr;
            }
            return &mNetwork.addLayer<LayerType::kRESIZE>({data}, ResizeParams{}, 1);
        });
}

// The symbolic shape rule (network/shape_rules.h).
namespace
{

//! floor(extent * scale) as an expression: exact for constant extents, a multiplication and a floor division by a
//! power of two otherwise.
DimExpr const* scaledExtent(ShapeRuleContext& context, DimExpr const* extent, float scale, int32_t axis)
{
    if (scale == 1.F)
    {
        return extent;
    }
    int64_t value = 0;
    if (isConstantExpr(extent, &value))
    {
        std::optional<int64_t> const resized = resizedExtent(value, scale);
        if (!resized)
        {
            context.fail(context.error("axis ", axis, ": extent ", value, " times scale ", static_cast<double>(scale),
                " does not fit in 64 bits"));
            return extent;
        }
        return context.constant(*resized);
    }
    ExactScale const exact = exactScale(scale);
    if (exact.shift >= 0 && exact.shift <= 40)
    {
        DimExpr const* product = context.mul(extent, context.constant(exact.numerator));
        return exact.shift == 0 ? product : context.floorDiv(product, context.constant(int64_t{1} << exact.shift));
    }
    if (exact.shift < 0 && exact.shift >= -24)
    {
        return context.mul(extent, context.constant(exact.numerator << -exact.shift));
    }
    context.fail(context.error("axis ", axis, ": scale ", static_cast<double>(scale), " of the run-time extent ",
        context.str(extent), " is too small or too large for a shape expression (2^-40 to 2^48)"));
    return extent;
}

} // namespace

Expected<std::vector<SymbolicTensor>> inferOutputShapes(ResizeParams const& params, ShapeRuleContext& context)
{
    SymbolicTensor const& data = context.input(0);
    if (!data.present())
    {
        return context.error("input 0 is missing");
    }
    int32_t const rank = data.rank();
    SymbolicTensor const& shape = context.input(kShapeInput);
    if (shape.present())
    {
        int64_t length = 0;
        if (shape.type != DataType::kINT32 && shape.type != DataType::kINT64)
        {
            return context.error(
                "input 1 (the output shape) has type ", shape.type, "; it must be a kINT32 or kINT64 shape tensor");
        }
        if (shape.rank() != 1 || !isConstantExpr((*shape.shape)[0], &length) || length != rank)
        {
            return context.error("input 1 (the output shape) has shape ", context.str(*shape.shape),
                "; it must be a 1-D shape tensor of ", rank, " values (the input's rank)");
        }
        if (!shape.values)
        {
            return context.error("the values of input 1 (the output shape) are not known symbolically");
        }
        for (std::size_t i = 0; i < shape.values->size(); ++i)
        {
            int64_t value = 0;
            if (isConstantExpr((*shape.values)[i], &value) && value < 0)
            {
                return context.error(
                    "extent ", i, " of the output shape given by input 1 is ", value, "; extents are at least 0");
            }
        }
        return context.finish({SymbolicTensor{*shape.values, std::nullopt, {}}});
    }
    if (params.outputDims.nbDims >= 0)
    {
        if (params.outputDims.nbDims != rank)
        {
            return context.error("the output dimensions ", params.outputDims, " have ", params.outputDims.nbDims,
                " extents; the input has rank ", rank);
        }
        return context.finish({SymbolicTensor{constantDims(context.exprs(), params.outputDims), std::nullopt, {}}});
    }
    if (params.scales.empty())
    {
        return context.finish({SymbolicTensor{*data.shape, std::nullopt, {}}});
    }
    if (static_cast<int32_t>(params.scales.size()) != rank)
    {
        return context.error(
            params.scales.size(), " scales for an input of rank ", rank, "; the layer needs one per input axis");
    }
    SymbolicDims out = *data.shape;
    for (int32_t i = 0; i < rank; ++i)
    {
        float const scale = params.scales[static_cast<std::size_t>(i)];
        if (!std::isfinite(scale) || scale <= 0.F)
        {
            return context.error(
                "scale ", i, " is ", static_cast<double>(scale), "; scales must be positive and finite");
        }
        out[static_cast<std::size_t>(i)] = scaledExtent(context, out[static_cast<std::size_t>(i)], scale, i);
    }
    return context.finish({SymbolicTensor{std::move(out), std::nullopt, {}}});
}

} // namespace kiln
