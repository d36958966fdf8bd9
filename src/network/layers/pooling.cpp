// SPDX-License-Identifier: Apache-2.0
// Pooling: 2-D or 3-D max, average or blended windows, with padding, stride and the average's padding rule.
#include "network/checks.h"
#include "network/layers/window_kind.h"
#include "network/network.h"
#include "network/shape_rules.h"

#include <algorithm>
#include <optional>

namespace kiln
{

template <>
class KindImpl<LayerType::kPOOLING> final : public WindowKind<nvinfer1::apiv::VPoolingLayer, PoolingParams>
{
public:
    using WindowKind::WindowKind;

    void setPoolingType(nvinfer1::PoolingType type) noexcept override
    {
        if (mLayer.checkEnum("setPoolingType", "pooling type", type))
        {
            edit().type = type;
        }
    }
    nvinfer1::PoolingType getPoolingType() const noexcept override { return p().type; }
    void setBlendFactor(float blendFactor) noexcept override
    {
        if (!(blendFactor >= 0.F && blendFactor <= 1.F))
        {
            mLayer.fail("setBlendFactor", "the blend factor ", static_cast<double>(blendFactor), " is not in [0, 1]");
            return;
        }
        edit().blendFactor = blendFactor;
    }
    float getBlendFactor() const noexcept override { return p().blendFactor; }
    void setAverageCountExcludesPadding(bool exclusive) noexcept override
    {
        edit().averageCountExcludesPadding = exclusive;
    }
    bool getAverageCountExcludesPadding() const noexcept override { return p().averageCountExcludesPadding; }
    void setWindowSizeNd(Dims const& windowSize) noexcept override
    {
        if (mLayer.checkDims("setWindowSizeNd", "the window size", windowSize, 1, 2, 3))
        {
            edit().windowSize = windowSize;
        }
    }
    Dims getWindowSizeNd() const noexcept override { return p().windowSize; }

    DataType outputType(int32_t /*index*/) const noexcept { return inputType(0); }
    Dims outputDims(int32_t /*index*/) const noexcept
    {
        PoolingParams const& params = p();
        return windowOutputDims(inputDims(0), -2, params.windowSize, params.stride, params.prePadding,
            params.postPadding, filledDims(params.windowSize.nbDims, 1), params.paddingMode);
    }
};

nvinfer1::IPoolingLayer* NetworkApi::addPoolingNd(
    nvinfer1::ITensor& input, nvinfer1::PoolingType type, Dims const& windowSize) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addPoolingNd";
    return mNetwork.reporter().guard(
        kWhere, static_cast<nvinfer1::IPoolingLayer*>(nullptr), [&]() -> nvinfer1::IPoolingLayer* {
            Tensor* data = mNetwork.own(&input, kWhere, "input");
            if (data == nullptr)
            {
                return nullptr;
            }
            if (!isValidEnum(type))
            {
                return mNetwork.fail(kWhere, "pooling type ", type, " is not a valid PoolingType");
            }
            if (windowSize.nbDims < 2 || windowSize.nbDims > 3)
            {
                return mNetwork.fail(kWhere, "the window size ", windowSize, " has ", windowSize.nbDims,
                    " dimensions; pooling is 2-D or 3-D");
            }
            for (int32_t i = 0; i < windowSize.nbDims; ++i)
            {
                if (windowSize.d[i] < 1)
                {
                    return mNetwork.fail(kWhere, "extent ", i, " of the window size ", windowSize, " is ",
                        windowSize.d[i], "; window extents are at least 1");
                }
            }
            int32_t const rank = data->dims().nbDims;
            if (rank >= 0 && rank < windowSize.nbDims + 2)
            {
                return mNetwork.fail(kWhere, "input ", quotedText(data->name()), " has shape ", data->dims(), "; ",
                    windowSize.nbDims, "-D pooling needs batch, channel and ", windowSize.nbDims,
                    " spatial dimensions");
            }
            PoolingParams params;
            params.type = type;
            params.windowSize = windowSize;
            params.stride = filledDims(windowSize.nbDims, 1);
            params.prePadding = filledDims(windowSize.nbDims, 0);
            params.postPadding = filledDims(windowSize.nbDims, 0);
            return &mNetwork.addLayer<LayerType::kPOOLING>({data}, std::move(params), 1);
        });
}

// The symbolic shape rule (network/shape_rules.h).
Expected<std::vector<SymbolicTensor>> inferOutputShapes(PoolingParams const& params, ShapeRuleContext& context)
{
    SymbolicTensor const& data = context.input(0);
    int32_t const spatial = params.windowSize.nbDims;
    if (data.rank() < spatial + 2)
    {
        return context.error("input 0 has ", data.rank(), " dimensions; a ", spatial, "-D pooling needs at least ",
            spatial + 2, spatial == 3 ? " (N, C, D, H, W)" : " (N, C, H, W)");
    }
    if (auto problem = windowParamsProblem(context, spatial,
            {{"stride", &params.stride}, {"pre-padding", &params.prePadding}, {"post-padding", &params.postPadding}}))
    {
        return *problem;
    }
    SymbolicDims out = *data.shape;
    int32_t const first = data.rank() - spatial;
    for (int32_t i = 0; i < spatial; ++i)
    {
        out[static_cast<std::size_t>(first + i)]
            = windowExtent(context, out[static_cast<std::size_t>(first + i)], params.windowSize.d[i],
                params.stride.d[i], params.prePadding.d[i], params.postPadding.d[i], 1, params.paddingMode, first + i);
    }
    return context.finish({SymbolicTensor{std::move(out), std::nullopt, {}}});
}

} // namespace kiln
