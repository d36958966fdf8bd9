// SPDX-License-Identifier: Apache-2.0
// Where the rules come from: TensorRT's IDeconvolutionLayer documentation (the CKRS kernel, the bias per output map,
// groups) and the operator reference's Deconvolution page (output extents and the SAME modes' padding), as
// network/layers/deconvolution.cpp lists them. The loops gather: each output element sums the input elements whose
// kernel taps land on it, so every output is written once.
#include "backends/host/deconvolution.h"

#include "backends/host/window.h"
#include "network/deconvolution_math.h"

#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace kiln::host
{

namespace
{

constexpr std::string_view kWhat = "deconvolution";

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, std::string(kWhat) + ": " + message};
}

bool present(nvinfer1::Weights const& weights) noexcept
{
    return weights.count != 0 || weights.values != nullptr;
}

HostTensor weightsView(nvinfer1::Weights const& weights)
{
    return HostTensor{const_cast<void*>(weights.values), weights.type, Dims{1, {weights.count}}, 1.0F};
}

//! Checks the kernel (Weights or operands.kernel) against the geometry's channels, maps and window.
std::optional<Error> checkKernel(DeconvolutionParams const& params, DeconvolutionGeometry const& g, DataType inputType,
    DeconvolutionOperands const& operands)
{
    int64_t const mapsPerGroup = g.maps / g.groups;
    // The window's volume and the kernel's count, checked: a plan may state any extents.
    std::optional<int64_t> windowVolume = 1;
    for (int32_t i = 0; i < g.nbSpatial && windowVolume; ++i)
    {
        windowVolume = checkedProduct(*windowVolume, g.kernel[static_cast<std::size_t>(i)]);
    }
    std::optional<int64_t> kernelCount = windowVolume ? checkedProduct(g.channels, mapsPerGroup) : std::nullopt;
    kernelCount = kernelCount ? checkedProduct(*kernelCount, *windowVolume) : std::nullopt;
    if (!kernelCount)
    {
        return invalid(std::to_string(g.channels) + " input channels x " + std::to_string(mapsPerGroup)
            + " output maps per group x window " + shapeString(params.kernelSize)
            + " is more kernel values than a 64-bit count holds");
    }
    if (present(params.kernel))
    {
        if (!contains(kDeconvolutionTypes, params.kernel.type))
        {
            return invalid(std::string("kernel weights of type ") + dataTypeName(params.kernel.type)
                + " are not supported (it takes " + typeSetString(kDeconvolutionTypes) + ")");
        }
        int64_t const needed = *kernelCount;
        if (params.kernel.count != needed)
        {
            return invalid("the kernel weights hold " + std::to_string(params.kernel.count) + " values but "
                + std::to_string(g.channels) + " input channels x " + std::to_string(mapsPerGroup)
                + " output maps per group (" + std::to_string(g.maps) + " maps / " + std::to_string(g.groups)
                + " groups) x window " + shapeString(params.kernelSize) + " need " + std::to_string(needed));
        }
        return std::nullopt;
    }
    if (operands.kernel == nullptr)
    {
        return invalid("no kernel: params.kernel is empty and no kernel tensor (input 1) was given");
    }
    if (operands.kernel->type != inputType)
    {
        return invalid(std::string("the kernel tensor is ") + dataTypeName(operands.kernel->type) + " but the input is "
            + dataTypeName(inputType));
    }
    if (!sameShape(operands.kernel->dims, g.kernelDims))
    {
        return invalid("the kernel tensor " + shapeString(operands.kernel->dims) + " must be "
            + shapeString(g.kernelDims) + " (input channels, output maps per group, window)");
    }
    return std::nullopt;
}

//! Checks the bias (Weights, operands.bias, or none) against the output maps.
std::optional<Error> checkBias(DeconvolutionParams const& params, int64_t maps, DeconvolutionOperands const& operands)
{
    if (present(params.bias))
    {
        if (!contains(kDeconvolutionTypes, params.bias.type))
        {
            return invalid(std::string("bias weights of type ") + dataTypeName(params.bias.type)
                + " are not supported (it takes " + typeSetString(kDeconvolutionTypes) + ")");
        }
        if (params.bias.count != maps)
        {
            return invalid("the bias weights hold " + std::to_string(params.bias.count) + " values but there are "
                + std::to_string(maps) + " output maps");
        }
    }
    else if (operands.bias != nullptr)
    {
        if (!contains(kDeconvolutionTypes, operands.bias->type))
        {
            return invalid(std::string("a bias tensor of type ") + dataTypeName(operands.bias->type)
                + " is not supported (it takes " + typeSetString(kDeconvolutionTypes) + ")");
        }
        if (operands.bias->dims.nbDims != 1 || operands.bias->dims.d[0] != maps)
        {
            return invalid("the bias tensor " + shapeString(operands.bias->dims) + " must be [" + std::to_string(maps)
                + "] (one value per output map)");
        }
    }
    return std::nullopt;
}

} // namespace

Expected<DeconvolutionGeometry> deconvolutionGeometry(
    DeconvolutionParams const& params, TensorDesc const& input, DeconvolutionOperands const& operands)
{
    if (!contains(kDeconvolutionTypes, input.type))
    {
        return invalid(std::string("does not accept ") + dataTypeName(input.type) + " inputs (it takes "
            + typeSetString(kDeconvolutionTypes) + ")");
    }
    if (auto const mode = static_cast<int32_t>(params.paddingMode);
        mode < 0 || mode >= nvinfer1::EnumMax<nvinfer1::PaddingMode>())
    {
        return invalid("padding mode " + std::to_string(static_cast<int32_t>(params.paddingMode)) + " is not valid");
    }
    // makeWindow checks the ranks and extents of the window's members as a convolution's.
    Expected<Window> const window
        = makeWindow(kWhat, params.kernelSize, params.stride, params.dilation, params.prePadding, params.postPadding);
    if (!window)
    {
        return window.error();
    }
    Window const& w = window.value();
    DeconvolutionGeometry g;
    g.nbSpatial = w.nbSpatial;
    if (!isValidShape(input.dims) || input.dims.nbDims != g.nbSpatial + 2)
    {
        return invalid("the input " + shapeString(input.dims) + " has rank " + std::to_string(input.dims.nbDims)
            + " but a " + std::to_string(g.nbSpatial) + "-D deconvolution needs rank " + std::to_string(g.nbSpatial + 2)
            + " [N, C, spatial...]");
    }
    g.batch = input.dims.d[0];
    g.channels = input.dims.d[1];
    g.maps = params.nbOutputMaps;
    g.groups = params.nbGroups;
    if (g.maps < 1 || g.groups < 1)
    {
        return invalid("nbOutputMaps " + std::to_string(g.maps) + " and nbGroups " + std::to_string(g.groups)
            + " must both be >= 1");
    }
    if (g.channels % g.groups != 0)
    {
        return invalid("the input has " + std::to_string(g.channels) + " channels, not divisible by "
            + std::to_string(g.groups) + " groups");
    }
    if (g.maps % g.groups != 0)
    {
        return invalid(
            "nbOutputMaps " + std::to_string(g.maps) + " is not divisible by " + std::to_string(g.groups) + " groups");
    }
    g.outputDims = Dims{g.nbSpatial + 2, {g.batch, g.maps}};
    g.kernelDims = Dims{g.nbSpatial + 2, {g.channels, g.maps / g.groups}};
    for (int32_t i = 0; i < g.nbSpatial; ++i)
    {
        auto const a = static_cast<std::size_t>(i);
        DeconvolutionWindow const axis{w.size[a], w.stride[a], w.pre[a], w.post[a], w.dilation[a]};
        g.in[a] = input.dims.d[i + 2];
        // (in - 1) * stride + span stays inside int64_t: the window's members are at most kMaxWindowExtent.
        if (g.in[a] > (std::numeric_limits<int64_t>::max() / 4) / kMaxWindowExtent)
        {
            return invalid("spatial axis " + std::to_string(i) + ": the input extent " + std::to_string(g.in[a])
                + " is too large to deconvolve (its output extent would not fit a 64-bit integer)");
        }
        g.kernel[a] = w.size[a];
        g.stride[a] = w.stride[a];
        g.dilation[a] = w.dilation[a];
        g.pre[a] = axis.resolvedPre(params.paddingMode);
        g.post[a] = axis.resolvedPost(params.paddingMode);
        g.out[a] = axis.extent(g.in[a], params.paddingMode);
        if (g.out[a] < 1)
        {
            return invalid("spatial axis " + std::to_string(i) + ": the output extent " + std::to_string(g.out[a])
                + " ((" + std::to_string(g.in[a]) + " - 1) * stride " + std::to_string(g.stride[a]) + " + span "
                + std::to_string(axis.span()) + " - padding " + std::to_string(g.pre[a]) + " - "
                + std::to_string(g.post[a]) + ") is below 1: the padding trims the whole axis");
        }
        g.outputDims.d[i + 2] = g.out[a];
        g.kernelDims.d[i + 2] = g.kernel[a];
    }
    if (std::optional<Error> error = checkKernel(params, g, input.type, operands))
    {
        return *error;
    }
    if (std::optional<Error> error = checkBias(params, g.maps, operands))
    {
        return *error;
    }
    return g;
}

Expected<TensorDesc> inferDeconvolution(
    DeconvolutionParams const& params, TensorDesc const& input, DeconvolutionOperands const& operands)
{
    Expected<DeconvolutionGeometry> const g = deconvolutionGeometry(params, input, operands);
    if (!g)
    {
        return g.error();
    }
    return TensorDesc{input.type, g.value().outputDims};
}

Status runDeconvolution(DeconvolutionParams const& params, HostTensor const& input, HostTensor const& output,
    DeconvolutionOperands const& operands)
{
    Expected<DeconvolutionGeometry> const planned = deconvolutionGeometry(params, {input.type, input.dims}, operands);
    if (!planned)
    {
        return planned.error();
    }
    DeconvolutionGeometry const& g = planned.value();
    if (std::optional<std::string> const mismatch = outputMismatch(output, input.type, g.outputDims))
    {
        return invalid(*mismatch);
    }
    if (std::optional<std::string> const problem
        = filterOperandsProblem(input, output, present(params.kernel) ? nullptr : operands.kernel,
            present(params.bias) ? nullptr : operands.bias, params.kernel, params.bias))
    {
        return invalid(*problem);
    }

    auto const spatial = static_cast<std::size_t>(g.nbSpatial);
    int64_t inVolume = 1;
    int64_t outVolume = 1;
    int64_t windowVolume = 1;
    for (std::size_t a = 0; a < spatial; ++a)
    {
        inVolume *= g.in[a];
        outVolume *= g.out[a];
        windowVolume *= g.kernel[a];
    }
    int64_t const channelsPerGroup = g.channels / g.groups;
    int64_t const mapsPerGroup = g.maps / g.groups;

    HostTensor const kernelView = present(params.kernel) ? weightsView(params.kernel) : *operands.kernel;
    std::vector<double> kernel(static_cast<std::size_t>(elementCount(g.kernelDims)));
    for (std::size_t i = 0; i < kernel.size(); ++i)
    {
        kernel[i] = loadFloat(kernelView, static_cast<int64_t>(i));
    }
    std::vector<double> bias(static_cast<std::size_t>(g.maps), 0.0);
    if (present(params.bias) || operands.bias != nullptr)
    {
        HostTensor const view = present(params.bias) ? weightsView(params.bias) : *operands.bias;
        for (int64_t k = 0; k < g.maps; ++k)
        {
            bias[static_cast<std::size_t>(k)] = loadFloat(view, k);
        }
    }

    // Row-major coordinates of a linear index over the spatial extents.
    auto const unflatten = [spatial](int64_t index, std::array<int64_t, 3> const& extents) {
        std::array<int64_t, 3> coordinate{};
        for (std::size_t a = spatial; a-- > 0;)
        {
            coordinate[a] = index % extents[a];
            index /= extents[a];
        }
        return coordinate;
    };

    for (int64_t n = 0; n < g.batch; ++n)
    {
        for (int64_t k = 0; k < g.maps; ++k)
        {
            int64_t const group = k / mapsPerGroup;
            int64_t const mapInGroup = k % mapsPerGroup;
            for (int64_t o = 0; o < outVolume; ++o)
            {
                std::array<int64_t, 3> const outAt = unflatten(o, g.out);
                double sum = bias[static_cast<std::size_t>(k)];
                // No channels per group: the sum is the bias (and the window's volume, which only a non-empty
                // kernel bounds, is no loop bound).
                int64_t const taps = channelsPerGroup > 0 ? windowVolume : 0;
                for (int64_t r = 0; r < taps; ++r)
                {
                    std::array<int64_t, 3> const tap = unflatten(r, g.kernel);
                    // The input position whose tap r lands on this output: i * stride == o + pre - tap * dilation.
                    int64_t inOffset = 0;
                    bool hit = true;
                    for (std::size_t a = 0; a < spatial && hit; ++a)
                    {
                        int64_t const reach = outAt[a] + g.pre[a] - tap[a] * g.dilation[a];
                        hit = reach >= 0 && reach % g.stride[a] == 0 && reach / g.stride[a] < g.in[a];
                        inOffset = inOffset * g.in[a] + (hit ? reach / g.stride[a] : 0);
                    }
                    if (!hit)
                    {
                        continue;
                    }
                    for (int64_t c = 0; c < channelsPerGroup; ++c)
                    {
                        int64_t const channel = group * channelsPerGroup + c;
                        double const x = loadFloat(input, (n * g.channels + channel) * inVolume + inOffset);
                        double const w = kernel[static_cast<std::size_t>(
                            (channel * mapsPerGroup + mapInGroup) * windowVolume + r)];
                        sum += x * w;
                    }
                }
                storeFloat(output, (n * g.maps + k) * outVolume + o, sum);
            }
        }
    }
    return Done{};
}

} // namespace kiln::host
