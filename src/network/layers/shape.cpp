// SPDX-License-Identifier: Apache-2.0
// Shape: the shape of its input as a 1-D kINT64 tensor.
#include "network/checks.h"
#include "network/network.h"
#include "network/shape_rules.h"

#include <algorithm>
#include <optional>

namespace kiln
{

template <>
class KindImpl<LayerType::kSHAPE> final : public nvinfer1::apiv::VShapeLayer, public KindBase
{
public:
    using KindBase::KindBase;

    bool computesShapeValues() const noexcept { return true; }
    DataType outputType(int32_t /*index*/) const noexcept { return DataType::kINT64; }
    Dims outputDims(int32_t /*index*/) const noexcept { return Dims{1, {inputDims(0).nbDims}}; }
};

nvinfer1::IShapeLayer* NetworkApi::addShape(nvinfer1::ITensor& input) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addShape";
    return mNetwork.reporter().guard(
        kWhere, static_cast<nvinfer1::IShapeLayer*>(nullptr), [&]() -> nvinfer1::IShapeLayer* {
            Tensor* data = mNetwork.own(&input, kWhere, "input");
            if (data == nullptr)
            {
                return nullptr;
            }
            return &mNetwork.addLayer<LayerType::kSHAPE>({data}, ShapeParams{}, 1);
        });
}

// The symbolic shape rule (network/shape_rules.h).
Expected<std::vector<SymbolicTensor>> inferOutputShapes(ShapeParams const& /*params*/, ShapeRuleContext& context)
{
    SymbolicTensor const& input = context.input(0);
    if (!input.present())
    {
        return context.error("input 0 is missing");
    }
    // A 1-D kINT64 tensor of length rank whose values are the input's extents.
    return context.finish(
        {SymbolicTensor{SymbolicDims{context.constant(input.rank())}, input.shape, DataType::kINT64}});
}

} // namespace kiln
