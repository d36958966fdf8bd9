// SPDX-License-Identifier: Apache-2.0
// Gather in its three forms: kDEFAULT (ONNX Gather), kELEMENT (GatherElements) and kND (GatherND).
#include "network/checks.h"
#include "network/network.h"

namespace kiln
{

using nvinfer1::GatherMode;

template <>
class KindImpl<LayerType::kGATHER> final : public nvinfer1::apiv::VGatherLayer, public KindBase
{
public:
    using KindBase::KindBase;

    void setGatherAxis(int32_t axis) noexcept override
    {
        int32_t const rank = inputDims(0).nbDims;
        if (axis < 0 || (rank >= 0 && axis >= rank))
        {
            mLayer.fail("setGatherAxis", "axis ", axis, " is out of range for data of rank ", rank);
            return;
        }
        p().axis = axis;
    }
    int32_t getGatherAxis() const noexcept override { return p().axis; }
    void setNbElementWiseDims(int32_t k) noexcept override
    {
        if (k < 0 || k > 1 || (k != 0 && p().mode == GatherMode::kELEMENT))
        {
            mLayer.fail("setNbElementWiseDims", "nbElementWiseDims is ", k, "; it is 0 or 1, and 0 in kELEMENT mode");
            return;
        }
        p().nbElementWiseDims = k;
    }
    int32_t getNbElementWiseDims() const noexcept override { return p().nbElementWiseDims; }
    void setMode(GatherMode mode) noexcept override
    {
        if (mLayer.checkEnum("setMode", "gather mode", mode))
        {
            p().mode = mode;
        }
    }
    GatherMode getMode() const noexcept override { return p().mode; }

    bool computesShapeValues() const noexcept { return true; }
    DataType outputType(int32_t /*index*/) const noexcept { return inputType(0); }
    Dims outputDims(int32_t /*index*/) const noexcept
    {
        Dims const data = inputDims(0);
        Dims const indices = inputDims(1);
        GatherParams const& params = p();
        if (params.mode == GatherMode::kELEMENT)
        {
            return indices;
        }
        if (data.nbDims < 0 || indices.nbDims < 0)
        {
            return kUnsetDims;
        }
        int32_t const k = params.nbElementWiseDims;
        Dims result{0, {}};
        auto const push = [&](int64_t extent) {
            if (result.nbDims < Dims::MAX_DIMS)
            {
                result.d[result.nbDims++] = extent;
            }
        };
        if (params.mode == GatherMode::kDEFAULT)
        {
            if (params.axis >= data.nbDims || data.nbDims + indices.nbDims - 1 - k > Dims::MAX_DIMS)
            {
                return kUnsetDims;
            }
            for (int32_t i = 0; i < params.axis; ++i)
            {
                push(data.d[i]);
            }
            for (int32_t i = k; i < indices.nbDims; ++i)
            {
                push(indices.d[i]);
            }
            for (int32_t i = params.axis + 1; i < data.nbDims; ++i)
            {
                push(data.d[i]);
            }
            return result;
        }
        // kND: indices[..., q] picks q dimensions of data after the k element-wise ones.
        int64_t const q = indices.nbDims > 0 ? indices.d[indices.nbDims - 1] : -1;
        if (q < 0 || k + q > data.nbDims || indices.nbDims - 1 + data.nbDims - k - q > Dims::MAX_DIMS)
        {
            return kUnsetDims;
        }
        for (int32_t i = 0; i < indices.nbDims - 1; ++i)
        {
            push(indices.d[i]);
        }
        for (int64_t i = k + q; i < data.nbDims; ++i)
        {
            push(data.d[i]);
        }
        return result;
    }

private:
    GatherParams& p() const noexcept { return mLayer.paramsAs<GatherParams>(); }
};

namespace
{

nvinfer1::IGatherLayer* addGatherLayer(Network& network, char const* where, nvinfer1::ITensor& data,
    nvinfer1::ITensor& indices, GatherMode mode, int32_t axis)
{
    Tensor* source = network.own(&data, where, "data input");
    Tensor* index = source != nullptr ? network.own(&indices, where, "indices input") : nullptr;
    if (index == nullptr)
    {
        return nullptr;
    }
    if (!isValidEnum(mode))
    {
        return network.fail(where, "gather mode ", mode, " is not a valid GatherMode");
    }
    int32_t const rank = source->dims().nbDims;
    if (axis < 0 || (rank >= 0 && axis >= rank))
    {
        return network.fail(where, "axis ", axis, " is out of range for data ", quotedText(source->name()),
            " of shape ", source->dims());
    }
    if (!isIndexType(index->type()))
    {
        return network.fail(where, "indices ", quotedText(index->name()), " have type ", index->type(),
            "; indices are kINT32 or kINT64");
    }
    return &network.addLayer<LayerType::kGATHER>({source, index}, GatherParams{mode, axis, 0}, 1);
}

} // namespace

nvinfer1::IGatherLayer* NetworkApi::addGather(
    nvinfer1::ITensor& data, nvinfer1::ITensor& indices, int32_t axis) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addGather";
    return mNetwork.reporter().guard(kWhere, static_cast<nvinfer1::IGatherLayer*>(nullptr),
        [&] { return addGatherLayer(mNetwork, kWhere, data, indices, GatherMode::kDEFAULT, axis); });
}

nvinfer1::IGatherLayer* NetworkApi::addGatherV2(
    nvinfer1::ITensor& data, nvinfer1::ITensor& indices, GatherMode mode) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addGatherV2";
    return mNetwork.reporter().guard(kWhere, static_cast<nvinfer1::IGatherLayer*>(nullptr),
        [&] { return addGatherLayer(mNetwork, kWhere, data, indices, mode, 0); });
}

} // namespace kiln
