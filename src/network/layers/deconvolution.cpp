// SPDX-License-Identifier: Apache-2.0
// Deconvolution (transposed convolution): N-d (2-D or 3-D) with groups, stride, padding modes and dilation. Each
// input element adds the kernel, times its value, to the output at its position times the stride; the padding then
// trims the ends of that full result. The kernel and bias come as weights, or as tensor inputs 1 and 2 (setInput), in
// which case their weights are empty.
//
// The rules (TensorRT's IDeconvolutionLayer documentation and the operator reference's Deconvolution page,
// docs.nvidia.com/deeplearning/tensorrt/latest/_static/operators/Deconvolution.html; I input extent, S stride, D
// dilation, F kernel extent, DK = 1 + D * (F - 1), B pre-padding, A post-padding):
// - The kernel is [C, K / groups, spatial...] for C input channels and K = nbOutputMaps; groups divide C and K.
// - Explicit modes (kEXPLICIT_ROUND_DOWN and kEXPLICIT_ROUND_UP alike, nothing rounds): O = (I - 1) * S + DK - B - A.
// - kSAME_UPPER, kSAME_LOWER: O = min(I * S, (I - 1) * S + DK); the padding P = max(DK - S, 0) splits as
//   B = floor(P / 2), A = P - B (kSAME_UPPER) or A = floor(P / 2), B = P - A (kSAME_LOWER).
// - Every output extent must be at least 1 (kiln refuses padding that trims a whole axis away).
#include "network/deconvolution_math.h"
#include "network/layers/window_kind.h"
#include "network/network.h"
#include "network/shape_rules.h"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <utility>

namespace kiln
{

template <>
class KindImpl<LayerType::kDECONVOLUTION> final
    : public FilterKind<nvinfer1::apiv::VDeconvolutionLayer, DeconvolutionParams>
{
public:
    using FilterKind::FilterKind;

    Dims outputDims(int32_t /*index*/) const noexcept
    {
        DeconvolutionParams const& params = p();
        Dims const input = inputDims(0);
        if (input.nbDims < 0)
        {
            return kUnsetDims;
        }
        Dims result = input;
        if (input.nbDims >= 2)
        {
            result.d[1] = params.nbOutputMaps;
        }
        int32_t const spatial = params.kernelSize.nbDims;
        int32_t const first = input.nbDims - spatial;
        bool const consistent = first >= 0 && params.stride.nbDims == spatial && params.prePadding.nbDims == spatial
            && params.postPadding.nbDims == spatial && params.dilation.nbDims == spatial;
        for (int32_t i = 0; i < spatial && first >= 0; ++i)
        {
            result.d[first + i] = consistent
                ? deconvolutionOutputExtent(input.d[first + i], params.kernelSize.d[i], params.stride.d[i],
                    params.prePadding.d[i], params.postPadding.d[i], params.dilation.d[i], params.paddingMode)
                : -1;
        }
        return result;
    }
};

nvinfer1::IDeconvolutionLayer* NetworkApi::addDeconvolutionNd(nvinfer1::ITensor& input, int64_t nbOutputMaps,
    Dims const& kernelSize, Weights kernelWeights, Weights biasWeights) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addDeconvolutionNd";
    return mNetwork.reporter().guard(
        kWhere, static_cast<nvinfer1::IDeconvolutionLayer*>(nullptr), [&]() -> nvinfer1::IDeconvolutionLayer* {
            return addFilterLayer<LayerType::kDECONVOLUTION>(
                mNetwork, kWhere, "deconvolution", input, nbOutputMaps, kernelSize, kernelWeights, biasWeights);
        });
}

// The symbolic shape rule (network/shape_rules.h).
Expected<std::vector<SymbolicTensor>> inferOutputShapes(DeconvolutionParams const& params, ShapeRuleContext& context)
{
    SymbolicTensor const& data = context.input(0);
    int32_t const spatial = params.kernelSize.nbDims;
    int32_t const needed = spatial + 2;
    if (data.rank() != needed)
    {
        return context.error("input 0 has ", data.rank(), " dimensions; a ", spatial, "-D deconvolution needs ", needed,
            spatial == 3 ? " (N, C, D, H, W)" : " (N, C, H, W)");
    }
    if (auto problem = windowParamsProblem(context, spatial,
            {{"stride", &params.stride}, {"pre-padding", &params.prePadding}, {"post-padding", &params.postPadding},
                {"dilation", &params.dilation}}))
    {
        return *problem;
    }
    SymbolicDims const& in = *data.shape;
    int64_t const groups = params.nbGroups;
    if (params.nbOutputMaps % groups != 0)
    {
        return context.error(
            "nbOutputMaps ", params.nbOutputMaps, " is not a multiple of the number of groups ", groups);
    }
    int64_t const mapsPerGroup = params.nbOutputMaps / groups;
    int64_t channels = 0;
    if (isConstantExpr(in[1], &channels))
    {
        if (channels % groups != 0)
        {
            return context.error(
                "input 0 has ", channels, " channels, not a multiple of the number of groups ", groups);
        }
        int64_t expected = channels * mapsPerGroup;
        for (int32_t i = 0; i < spatial; ++i)
        {
            expected *= params.kernelSize.d[i];
        }
        if (params.kernel.count != 0 && params.kernel.count != expected)
        {
            return context.error("the kernel weights have ", params.kernel.count, " values; ", channels,
                " input channels x ", mapsPerGroup, " output maps per group x kernel ", params.kernelSize, " need ",
                expected);
        }
    }
    else
    {
        context.require(
            context.eq(context.mul(context.floorDiv(in[1], context.constant(groups)), context.constant(groups)), in[1]),
            "the input channels " + context.str(in[1]) + " must be a multiple of the number of groups "
                + std::to_string(groups));
    }
    if (params.bias.count != 0 && params.bias.count != params.nbOutputMaps)
    {
        return context.error("the bias weights have ", params.bias.count, " values; one per output map (",
            params.nbOutputMaps, ") is needed");
    }
    if (SymbolicTensor const& kernel = context.input(1); kernel.present())
    {
        if (kernel.rank() != needed)
        {
            return context.error("input 1 (the kernel) has ", kernel.rank(), " dimensions; it needs ", needed,
                " (C, K / groups, spatial...)");
        }
        SymbolicDims const& k = *kernel.shape;
        context.requireEqual(k[0], in[1],
            "extent 0 of the kernel input is " + context.str(k[0]) + "; it must be the input channels "
                + context.str(in[1]));
        context.requireEqual(k[1], context.constant(mapsPerGroup),
            "extent 1 of the kernel input is " + context.str(k[1]) + "; it must be nbOutputMaps / groups "
                + std::to_string(mapsPerGroup));
        for (int32_t i = 0; i < spatial; ++i)
        {
            context.requireEqual(k[static_cast<std::size_t>(2 + i)], context.constant(params.kernelSize.d[i]),
                "extent " + std::to_string(2 + i) + " of the kernel input is "
                    + context.str(k[static_cast<std::size_t>(2 + i)]) + "; it must be the kernel size's "
                    + std::to_string(params.kernelSize.d[i]));
        }
    }
    if (SymbolicTensor const& bias = context.input(2); bias.present())
    {
        if (bias.rank() != 1)
        {
            return context.error("input 2 (the bias) has ", bias.rank(), " dimensions; it needs 1 (K)");
        }
        context.requireEqual((*bias.shape)[0], context.constant(params.nbOutputMaps),
            "extent 0 of the bias input is " + context.str((*bias.shape)[0]) + "; it must be nbOutputMaps "
                + std::to_string(params.nbOutputMaps));
    }
    SymbolicDims out{in[0], context.constant(params.nbOutputMaps)};
    for (int32_t i = 0; i < spatial; ++i)
    {
        DeconvolutionWindow const window{params.kernelSize.d[i], params.stride.d[i], params.prePadding.d[i],
            params.postPadding.d[i], params.dilation.d[i]};
        if (char const* problem = window.problem())
        {
            return context.error("spatial dimension ", i, ": ", problem);
        }
        // O = I * S + offset, where offset is constant for the mode.
        int64_t const offset = window.offset(params.paddingMode);
        DimExpr const* extent
            = context.add(context.mul(in[static_cast<std::size_t>(2 + i)], context.constant(window.stride)),
                context.constant(offset));
        context.require(context.less(context.constant(0), extent),
            "dimension " + std::to_string(2 + i) + ": the output extent " + context.str(extent) + " (input "
                + context.str(in[static_cast<std::size_t>(2 + i)]) + ", stride " + std::to_string(window.stride)
                + ", kernel " + std::to_string(window.kernel) + ", dilation " + std::to_string(window.dilation)
                + ", padding " + std::to_string(window.pre) + " + " + std::to_string(window.post)
                + ") is not positive: the padding trims the whole axis");
        out.push_back(extent);
    }
    return context.finish({SymbolicTensor{std::move(out), std::nullopt, {}}});
}

} // namespace kiln
