// SPDX-License-Identifier: Apache-2.0
// Constant: a tensor made of weights (their type is the output type); empty tensors included.
#include "network/checks.h"
#include "network/network.h"
#include "network/shape_rules.h"

#include <algorithm>
#include <optional>

namespace kiln
{

template <>
class KindImpl<LayerType::kCONSTANT> final : public nvinfer1::apiv::VConstantLayer, public KindBase
{
public:
    using KindBase::KindBase;

    void setWeights(Weights weights) noexcept override
    {
        if (char const* problem = weightsProblem(weights))
        {
            mLayer.fail("setWeights", "the weights are unusable: ", problem);
            return;
        }
        edit().weights = weights;
    }
    Weights getWeights() const noexcept override { return p().weights; }
    void setDimensions(Dims const& dimensions) noexcept override
    {
        if (mLayer.checkDims("setDimensions", "the dimensions", dimensions, 0))
        {
            edit().dims = dimensions;
        }
    }
    Dims getDimensions() const noexcept override { return p().dims; }

    int32_t inputCapacity() const noexcept { return 0; }
    bool computesShapeValues() const noexcept { return true; }
    DataType outputType(int32_t /*index*/) const noexcept { return p().weights.type; }
    Dims outputDims(int32_t /*index*/) const noexcept { return p().dims; }

private:
    ConstantParams const& p() const noexcept { return mLayer.paramsAs<ConstantParams>(); }
    //! The parameters, to change: the layer's outputs are then computed again (Layer::editParams).
    ConstantParams& edit() noexcept { return mLayer.editParams<ConstantParams>(); }
};

nvinfer1::IConstantLayer* NetworkApi::addConstant(Dims const& dimensions, Weights weights) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addConstant";
    return mNetwork.reporter().guard(
        kWhere, static_cast<nvinfer1::IConstantLayer*>(nullptr), [&]() -> nvinfer1::IConstantLayer* {
            if (dimensions.nbDims < 0 || dimensions.nbDims > Dims::MAX_DIMS)
            {
                return mNetwork.fail(kWhere, "the dimensions have rank ", dimensions.nbDims, "; a shape has 0 to ",
                    Dims::MAX_DIMS, " dimensions");
            }
            auto const volume = staticVolume(dimensions);
            if (!volume)
            {
                return mNetwork.fail(kWhere, "the dimensions ", dimensions,
                    " are not a static shape (every extent at least 0, a volume that fits in int64_t)");
            }
            if (char const* problem = weightsProblem(weights))
            {
                return mNetwork.fail(kWhere, "the weights are unusable: ", problem);
            }
            if (weights.count != *volume)
            {
                return mNetwork.fail(kWhere, "the weights have ", weights.count, " values but the dimensions ",
                    dimensions, " hold ", *volume);
            }
            return &mNetwork.addLayer<LayerType::kCONSTANT>({}, ConstantParams{dimensions, weights}, 1);
        });
}

// The symbolic shape rule (network/shape_rules.h).
Expected<std::vector<SymbolicTensor>> inferOutputShapes(ConstantParams const& params, ShapeRuleContext& context)
{
    SymbolicTensor result{constantDims(context.exprs(), params.dims), std::nullopt, params.weights.type};
    bool const index = params.weights.type == DataType::kINT32 || params.weights.type == DataType::kINT64;
    if (index && params.dims.nbDims <= 1 && params.weights.count >= 0
        && static_cast<std::size_t>(params.weights.count) <= kMaxShapeValues
        && (params.weights.count == 0 || params.weights.values != nullptr))
    {
        SymbolicDims values;
        for (int64_t i = 0; i < params.weights.count; ++i)
        {
            int64_t const value = params.weights.type == DataType::kINT32
                ? static_cast<int32_t const*>(params.weights.values)[i]
                : static_cast<int64_t const*>(params.weights.values)[i];
            values.push_back(context.constant(value));
        }
        result.values = std::move(values);
    }
    return context.finish({std::move(result)});
}

} // namespace kiln
