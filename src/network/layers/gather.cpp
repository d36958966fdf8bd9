// SPDX-License-Identifier: Apache-2.0
// Gather in its three forms: kDEFAULT (ONNX Gather), kELEMENT (GatherElements) and kND (GatherND).
#include "network/checks.h"
#include "network/network.h"
#include "network/shape_rules.h"

#include <algorithm>
#include <optional>

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
        edit().axis = axis;
    }
    int32_t getGatherAxis() const noexcept override { return p().axis; }
    void setNbElementWiseDims(int32_t k) noexcept override
    {
        if (k < 0 || k > 1 || (k != 0 && p().mode == GatherMode::kELEMENT))
        {
            mLayer.fail("setNbElementWiseDims", "nbElementWiseDims is ", k, "; it is 0 or 1, and 0 in kELEMENT mode");
            return;
        }
        edit().nbElementWiseDims = k;
    }
    int32_t getNbElementWiseDims() const noexcept override { return p().nbElementWiseDims; }
    void setMode(GatherMode mode) noexcept override
    {
        if (mLayer.checkEnum("setMode", "gather mode", mode))
        {
            edit().mode = mode;
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
    GatherParams const& p() const noexcept { return mLayer.paramsAs<GatherParams>(); }
    //! The parameters, to change: the layer's outputs are then computed again (Layer::editParams).
    GatherParams& edit() noexcept { return mLayer.editParams<GatherParams>(); }
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

// The symbolic shape rule (network/shape_rules.h).
Expected<std::vector<SymbolicTensor>> inferOutputShapes(GatherParams const& params, ShapeRuleContext& context)
{
    SymbolicTensor const& data = context.input(0);
    SymbolicTensor const& indices = context.input(1);
    if (!data.present() || !indices.present())
    {
        return context.error("a gather has two inputs, data and indices");
    }
    int32_t const r = data.rank();
    int32_t const q = indices.rank();
    int32_t const k = params.nbElementWiseDims;
    SymbolicDims const& d = *data.shape;
    SymbolicDims const& ix = *indices.shape;
    SymbolicDims out;
    auto const elementwise = [&](int32_t count) {
        for (int32_t i = 0; i < count; ++i)
        {
            context.requireEqual(d[static_cast<std::size_t>(i)], ix[static_cast<std::size_t>(i)],
                "element-wise dimension " + std::to_string(i) + " is " + context.str(d[static_cast<std::size_t>(i)])
                    + " in the data and " + context.str(ix[static_cast<std::size_t>(i)])
                    + " in the indices; they must be equal");
        }
    };
    switch (params.mode)
    {
    case GatherMode::kDEFAULT:
    {
        // data[:axis] + indices[k:] + data[axis + 1:]
        if (params.axis < 0 || params.axis >= r)
        {
            return context.error("axis ", params.axis, " is out of range for data of rank ", r);
        }
        if (k > params.axis || k > q)
        {
            return context.error(
                "nbElementWiseDims ", k, " must be at most the axis ", params.axis, " and the indices' rank ", q);
        }
        elementwise(k);
        out.assign(d.begin(), d.begin() + params.axis);
        out.insert(out.end(), ix.begin() + k, ix.end());
        out.insert(out.end(), d.begin() + params.axis + 1, d.end());
        break;
    }
    case GatherMode::kELEMENT:
    {
        if (q != r)
        {
            return context.error(
                "kELEMENT: the indices have ", q, " dimensions and the data ", r, "; they must be equal");
        }
        if (params.axis < 0 || params.axis >= r)
        {
            return context.error("axis ", params.axis, " is out of range for data of rank ", r);
        }
        out = ix;
        break;
    }
    case GatherMode::kND:
    {
        // indices[:q - 1] + data[k + m:], m = the indices' last extent.
        int64_t m = 0;
        if (q < 1 || !isConstantExpr(ix.back(), &m))
        {
            return context.error("kND: the indices' last extent must be a build-time constant; the indices have shape ",
                context.str(ix));
        }
        if (m < 1 || m > r - k)
        {
            return context.error("kND: the indices' last extent is ", m, "; it must be 1 to ", r - k,
                " (the data's rank ", r, " minus nbElementWiseDims ", k, ")");
        }
        if (k >= q)
        {
            return context.error("kND: nbElementWiseDims ", k, " must be less than the indices' rank ", q);
        }
        elementwise(k);
        out.assign(ix.begin(), ix.end() - 1);
        out.insert(out.end(), d.begin() + k + m, d.end());
        break;
    }
    }
    if (out.size() > static_cast<std::size_t>(Dims::MAX_DIMS))
    {
        return context.error("the output would have ", out.size(), " dimensions; at most ", Dims::MAX_DIMS);
    }
    SymbolicTensor result{out, std::nullopt, {}};
    // Shape-tensor values: kDEFAULT along axis 0 of 1-D data with constant indices.
    if (params.mode == GatherMode::kDEFAULT && params.axis == 0 && r == 1 && q <= 1 && data.values && indices.values)
    {
        SymbolicDims values;
        auto const n = static_cast<int64_t>(data.values->size());
        for (DimExpr const* index : *indices.values)
        {
            int64_t i = 0;
            if (!isConstantExpr(index, &i))
            {
                break;
            }
            i = i < 0 ? i + n : i;
            if (i < 0 || i >= n)
            {
                return context.error(
                    "index ", context.str(index), " is out of range for shape-tensor data of ", n, " values");
            }
            values.push_back((*data.values)[static_cast<std::size_t>(i)]);
        }
        if (values.size() == indices.values->size())
        {
            result.values = std::move(values);
        }
    }
    return context.finish({std::move(result)});
}

} // namespace kiln
