// SPDX-License-Identifier: Apache-2.0
// Convolution: N-d (2-D or 3-D) with groups, stride, padding modes and dilation. The kernel and bias come as
// weights, or as tensor inputs 1 and 2 (setInput), in which case their weights are empty.
#include "network/checks.h"
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
class KindImpl<LayerType::kCONVOLUTION> final : public FilterKind<nvinfer1::apiv::VConvolutionLayer, ConvolutionParams>
{
public:
    using FilterKind::FilterKind;

    Dims outputDims(int32_t /*index*/) const noexcept
    {
        ConvolutionParams const& params = p();
        return windowOutputDims(inputDims(0), params.nbOutputMaps, params.kernelSize, params.stride, params.prePadding,
            params.postPadding, params.dilation, params.paddingMode);
    }
};

nvinfer1::IConvolutionLayer* NetworkApi::addConvolutionNd(nvinfer1::ITensor& input, int64_t nbOutputMaps,
    Dims const& kernelSize, Weights kernelWeights, Weights biasWeights) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addConvolutionNd";
    return mNetwork.reporter().guard(
        kWhere, static_cast<nvinfer1::IConvolutionLayer*>(nullptr), [&]() -> nvinfer1::IConvolutionLayer* {
            return addFilterLayer<LayerType::kCONVOLUTION>(
                mNetwork, kWhere, "convolution", input, nbOutputMaps, kernelSize, kernelWeights, biasWeights);
        });
}

// The symbolic shape rule (network/shape_rules.h).
Expected<std::vector<SymbolicTensor>> inferOutputShapes(ConvolutionParams const& params, ShapeRuleContext& context)
{
    SymbolicTensor const& data = context.input(0);
    int32_t const spatial = params.kernelSize.nbDims;
    int32_t const needed = spatial + 2;
    if (data.rank() != needed)
    {
        return context.error("input 0 has ", data.rank(), " dimensions; a ", spatial, "-D convolution needs ", needed,
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
    int64_t channels = 0;
    if (isConstantExpr(in[1], &channels))
    {
        if (channels % groups != 0)
        {
            return context.error(
                "input 0 has ", channels, " channels, not a multiple of the number of groups ", groups);
        }
        int64_t expected = params.nbOutputMaps * (channels / groups);
        for (int32_t i = 0; i < spatial; ++i)
        {
            expected *= params.kernelSize.d[i];
        }
        if (params.kernel.count != 0 && params.kernel.count != expected)
        {
            return context.error("the kernel weights have ", params.kernel.count, " values; ", params.nbOutputMaps,
                " output maps x ", channels / groups, " channels per group x kernel ", params.kernelSize, " need ",
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
                " (K, C / groups, spatial...)");
        }
        context.requireEqual((*kernel.shape)[0], context.constant(params.nbOutputMaps),
            "extent 0 of the kernel input is " + context.str((*kernel.shape)[0]) + "; it must be nbOutputMaps "
                + std::to_string(params.nbOutputMaps));
    }
    SymbolicDims out{in[0], context.constant(params.nbOutputMaps)};
    for (int32_t i = 0; i < spatial; ++i)
    {
        out.push_back(
            windowExtent(context, in[static_cast<std::size_t>(2 + i)], params.kernelSize.d[i], params.stride.d[i],
                params.prePadding.d[i], params.postPadding.d[i], params.dilation.d[i], params.paddingMode, 2 + i));
    }
    return context.finish({SymbolicTensor{std::move(out), std::nullopt, {}}});
}

} // namespace kiln
