// SPDX-License-Identifier: Apache-2.0
// Where the rules come from:
// - Shapes, groups, KCRS kernel layout with C / groups input channels, bias per output map: NvInfer.h's
//   IConvolutionLayer documentation ("The kernel, in GKCRS order") and the operator reference's Convolution page
//   (docs.nvidia.com/deeplearning/tensorrt/latest/_static/operators/Convolution.html).
// - Output extents and padding: NvInfer.h's PaddingMode documentation (see window.h).
// - INT8: TensorRT's quantized convolution computes sum(qx * qw) in int32 and rescales by inputScale * weightScale /
//   outputScale, with weights quantized per output channel (TensorRT developer guide, "Working with Quantized Types":
//   per-channel weight scales for convolution kernels). In real numbers that is the convolution of the dequantized
//   operands, quantized to the output, which is what this reference computes (in double).
#include "backends/host/convolution.h"

#include <cmath>
#include <string>

namespace kiln::host
{

namespace
{

constexpr std::string_view kWhat = "convolution";

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, std::string(kWhat) + ": " + message};
}

bool present(nvinfer1::Weights const& weights) noexcept
{
    return weights.count != 0 || weights.values != nullptr;
}

HostTensor weightsView(nvinfer1::Weights const& weights, float scale = 1.0F)
{
    return HostTensor{const_cast<void*>(weights.values), weights.type, Dims{1, {weights.count}}, scale};
}

//! Everything a run needs, checked.
struct Plan
{
    Window window;
    int64_t batch{};
    int64_t channels{};
    int64_t maps{};
    int64_t groups{};
    std::array<int64_t, 3> in{};
    std::array<int64_t, 3> out{};
    Dims outputDims{};
};

std::optional<Error> checkKernelScales(std::vector<float> const& scales, int64_t maps)
{
    if (scales.size() != 1 && static_cast<int64_t>(scales.size()) != maps)
    {
        return invalid("a kINT8 kernel needs 1 or " + std::to_string(maps) + " kernel scales (one per output map), not "
            + std::to_string(scales.size()));
    }
    for (float const scale : scales)
    {
        if (!(scale > 0.0F) || !std::isfinite(scale))
        {
            return invalid("kernel scale " + std::to_string(scale) + " is not positive and finite");
        }
    }
    return std::nullopt;
}

Expected<Plan> makePlan(ConvolutionParams const& params, TensorDesc const& input, ConvolutionOperands const& operands)
{
    if (!contains(kConvolutionTypes, input.type))
    {
        return invalid(std::string("does not accept ") + dataTypeName(input.type) + " inputs (it takes "
            + typeSetString(kConvolutionTypes) + ")");
    }
    Expected<Window> const window
        = makeWindow(kWhat, params.kernelSize, params.stride, params.dilation, params.prePadding, params.postPadding);
    if (!window)
    {
        return window.error();
    }
    Plan plan{window.value()};
    int32_t const nbSpatial = plan.window.nbSpatial;
    if (!isValidShape(input.dims) || input.dims.nbDims != nbSpatial + 2)
    {
        return invalid("the input " + shapeString(input.dims) + " has rank " + std::to_string(input.dims.nbDims)
            + " but a " + std::to_string(nbSpatial) + "-D convolution needs rank " + std::to_string(nbSpatial + 2)
            + " [N, C, spatial...]");
    }
    plan.batch = input.dims.d[0];
    plan.channels = input.dims.d[1];
    plan.maps = params.nbOutputMaps;
    plan.groups = params.nbGroups;
    if (plan.maps < 1 || plan.groups < 1)
    {
        return invalid("nbOutputMaps " + std::to_string(plan.maps) + " and nbGroups " + std::to_string(plan.groups)
            + " must both be >= 1");
    }
    if (plan.channels % plan.groups != 0)
    {
        return invalid("the input has " + std::to_string(plan.channels) + " channels, not divisible by "
            + std::to_string(plan.groups) + " groups");
    }
    if (plan.maps % plan.groups != 0)
    {
        return invalid("nbOutputMaps " + std::to_string(plan.maps) + " is not divisible by "
            + std::to_string(plan.groups) + " groups");
    }
    int64_t const perGroup = plan.channels / plan.groups;
    // The window's volume and the kernel's count, checked: a plan may state any extents.
    std::optional<int64_t> windowVolume = 1;
    for (int32_t i = 0; i < nbSpatial && windowVolume; ++i)
    {
        windowVolume = checkedProduct(*windowVolume, plan.window.size[static_cast<std::size_t>(i)]);
    }
    std::optional<int64_t> kernelCount = windowVolume ? checkedProduct(plan.maps, perGroup) : std::nullopt;
    kernelCount = kernelCount ? checkedProduct(*kernelCount, *windowVolume) : std::nullopt;
    if (!kernelCount)
    {
        return invalid("nbOutputMaps " + std::to_string(plan.maps) + " x " + std::to_string(perGroup)
            + " input channels per group x window " + shapeString(params.kernelSize)
            + " is more kernel values than a 64-bit count holds");
    }

    // The kernel: Weights, or a tensor.
    if (present(params.kernel))
    {
        if (!contains(kConvolutionWeightTypes, params.kernel.type))
        {
            return invalid(std::string("kernel weights of type ") + dataTypeName(params.kernel.type)
                + " are not supported (it takes " + typeSetString(kConvolutionWeightTypes) + ")");
        }
        int64_t const needed = *kernelCount;
        if (params.kernel.count != needed)
        {
            return invalid("the kernel weights hold " + std::to_string(params.kernel.count) + " values but "
                + std::to_string(plan.maps) + " output maps x " + std::to_string(perGroup)
                + " input channels per group (" + std::to_string(plan.channels) + " channels / "
                + std::to_string(plan.groups) + " groups) x window " + shapeString(params.kernelSize) + " need "
                + std::to_string(needed));
        }
        if (params.kernel.type == DataType::kINT8)
        {
            if (std::optional<Error> error = checkKernelScales(operands.kernelScales, plan.maps))
            {
                return *error;
            }
        }
    }
    else if (operands.kernel != nullptr)
    {
        Dims const& k = operands.kernel->dims;
        if (operands.kernel->type != input.type)
        {
            return invalid(std::string("the kernel tensor is ") + dataTypeName(operands.kernel->type)
                + " but the input is " + dataTypeName(input.type));
        }
        bool shapeOk = k.nbDims == nbSpatial + 2 && k.d[0] == plan.maps;
        for (int32_t i = 0; shapeOk && i < nbSpatial; ++i)
        {
            shapeOk = k.d[i + 2] == params.kernelSize.d[i];
        }
        if (!shapeOk)
        {
            return invalid("the kernel tensor " + shapeString(k) + " must be [" + std::to_string(plan.maps)
                + ", C/groups, " + shapeString(params.kernelSize)
                + "] (nbOutputMaps, input channels per group, window)");
        }
        if (k.d[1] * plan.groups != plan.channels)
        {
            return invalid("the input has " + std::to_string(plan.channels) + " channels but the kernel tensor "
                + shapeString(k) + " has " + std::to_string(k.d[1]) + " input channels per group x "
                + std::to_string(plan.groups) + " groups = " + std::to_string(k.d[1] * plan.groups));
        }
        if (!operands.kernelScales.empty())
        {
            if (operands.kernel->type != DataType::kINT8)
            {
                return invalid("kernel scales apply to a kINT8 kernel only");
            }
            if (std::optional<Error> error = checkKernelScales(operands.kernelScales, plan.maps))
            {
                return *error;
            }
        }
    }
    else
    {
        return invalid("no kernel: params.kernel is empty and no kernel tensor (input 1) was given");
    }

    // The bias: Weights, a tensor, or none.
    if (present(params.bias))
    {
        if (!contains(kConvolutionBiasTypes, params.bias.type))
        {
            return invalid(std::string("bias weights of type ") + dataTypeName(params.bias.type)
                + " are not supported (it takes " + typeSetString(kConvolutionBiasTypes) + ")");
        }
        if (params.bias.count != plan.maps)
        {
            return invalid("the bias weights hold " + std::to_string(params.bias.count) + " values but there are "
                + std::to_string(plan.maps) + " output maps");
        }
    }
    else if (operands.bias != nullptr)
    {
        if (!contains(kConvolutionBiasTypes, operands.bias->type))
        {
            return invalid(std::string("a bias tensor of type ") + dataTypeName(operands.bias->type)
                + " is not supported (it takes " + typeSetString(kConvolutionBiasTypes) + ")");
        }
        if (operands.bias->dims.nbDims != 1 || operands.bias->dims.d[0] != plan.maps)
        {
            return invalid("the bias tensor " + shapeString(operands.bias->dims) + " must be ["
                + std::to_string(plan.maps) + "] (one value per output map)");
        }
    }

    plan.outputDims = Dims{nbSpatial + 2, {plan.batch, plan.maps}};
    for (int32_t i = 0; i < nbSpatial; ++i)
    {
        auto const a = static_cast<std::size_t>(i);
        plan.in[a] = input.dims.d[i + 2];
        Expected<int64_t> const extent = windowOutputExtent(kWhat, plan.window, i, plan.in[a]);
        if (!extent)
        {
            return extent.error();
        }
        plan.out[a] = extent.value();
        plan.outputDims.d[i + 2] = plan.out[a];
    }
    return plan;
}

//! The kernel's values in KCRS order, dequantized.
std::vector<double> loadKernel(ConvolutionParams const& params, ConvolutionOperands const& operands, int64_t perMap)
{
    HostTensor view = present(params.kernel) ? weightsView(params.kernel) : *operands.kernel;
    int64_t const count = present(params.kernel) ? params.kernel.count : elementCount(operands.kernel->dims);
    std::vector<double> values(static_cast<std::size_t>(count));
    bool const perMapScales = view.type == DataType::kINT8 && !operands.kernelScales.empty();
    for (int64_t i = 0; i < count; ++i)
    {
        if (perMapScales)
        {
            std::size_t const k = operands.kernelScales.size() == 1 ? 0 : static_cast<std::size_t>(i / perMap);
            view.scale = operands.kernelScales[k];
        }
        values[static_cast<std::size_t>(i)] = loadFloat(view, i);
    }
    return values;
}

} // namespace

Expected<TensorDesc> inferConvolution(
    ConvolutionParams const& params, TensorDesc const& input, ConvolutionOperands const& operands)
{
    Expected<Plan> const plan = makePlan(params, input, operands);
    if (!plan)
    {
        return plan.error();
    }
    return TensorDesc{input.type, plan.value().outputDims};
}

Status runConvolution(ConvolutionParams const& params, HostTensor const& input, HostTensor const& output,
    ConvolutionOperands const& operands)
{
    Expected<Plan> const planned = makePlan(params, {input.type, input.dims}, operands);
    if (!planned)
    {
        return planned.error();
    }
    Plan const& p = planned.value();
    if (std::optional<std::string> const mismatch = outputMismatch(output, input.type, p.outputDims))
    {
        return invalid(*mismatch);
    }
    if (std::optional<std::string> const problem
        = filterOperandsProblem(input, output, present(params.kernel) ? nullptr : operands.kernel,
            present(params.bias) ? nullptr : operands.bias, params.kernel, params.bias))
    {
        return invalid(*problem);
    }

    int32_t const nbSpatial = p.window.nbSpatial;
    int64_t inVolume = 1;
    int64_t outVolume = 1;
    int64_t windowVolume = 1;
    for (std::size_t a = 0; a < static_cast<std::size_t>(nbSpatial); ++a)
    {
        inVolume *= p.in[a];
        outVolume *= p.out[a];
        windowVolume *= p.window.size[a];
    }
    int64_t const perGroup = p.channels / p.groups;
    int64_t const mapsPerGroup = p.maps / p.groups;
    std::vector<double> const kernel = loadKernel(params, operands, perGroup * windowVolume);
    std::vector<double> bias(static_cast<std::size_t>(p.maps), 0.0);
    if (present(params.bias) || operands.bias != nullptr)
    {
        HostTensor const view = present(params.bias) ? weightsView(params.bias) : *operands.bias;
        for (int64_t k = 0; k < p.maps; ++k)
        {
            bias[static_cast<std::size_t>(k)] = loadFloat(view, k);
        }
    }

    // Row-major coordinates of a linear index over nbSpatial extents.
    auto const unflatten = [nbSpatial](int64_t index, std::array<int64_t, 3> const& extents) {
        std::array<int64_t, 3> coordinate{};
        for (int32_t i = nbSpatial - 1; i >= 0; --i)
        {
            auto const a = static_cast<std::size_t>(i);
            coordinate[a] = index % extents[a];
            index /= extents[a];
        }
        return coordinate;
    };

    for (int64_t n = 0; n < p.batch; ++n)
    {
        for (int64_t k = 0; k < p.maps; ++k)
        {
            int64_t const group = k / mapsPerGroup;
            for (int64_t o = 0; o < outVolume; ++o)
            {
                std::array<int64_t, 3> const outAt = unflatten(o, p.out);
                double sum = bias[static_cast<std::size_t>(k)];
                // No channels per group: the sum is the bias (and the window's volume, which only a non-empty
                // kernel bounds, is no loop bound).
                int64_t const taps = perGroup > 0 ? windowVolume : 0;
                for (int64_t r = 0; r < taps; ++r)
                {
                    std::array<int64_t, 3> const tap = unflatten(r, p.window.size);
                    int64_t inOffset = 0;
                    bool inside = true;
                    for (std::size_t a = 0; a < static_cast<std::size_t>(nbSpatial) && inside; ++a)
                    {
                        int64_t const x
                            = outAt[a] * p.window.stride[a] - p.window.pre[a] + tap[a] * p.window.dilation[a];
                        inside = x >= 0 && x < p.in[a];
                        inOffset = inOffset * p.in[a] + x;
                    }
                    if (!inside)
                    {
                        continue;
                    }
                    for (int64_t c = 0; c < perGroup; ++c)
                    {
                        int64_t const channel = group * perGroup + c;
                        double const x = loadFloat(input, (n * p.channels + channel) * inVolume + inOffset);
                        double const w = kernel[static_cast<std::size_t>((k * perGroup + c) * windowVolume + r)];
                        sum += x * w;
                    }
                }
                storeFloat(output, (n * p.maps + k) * outVolume + o, sum);
            }
        }
    }
    return Done{};
}

} // namespace kiln::host
