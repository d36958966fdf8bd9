// SPDX-License-Identifier: Apache-2.0
// Scatter: a copy of data (input 0) with updates (input 2) written at the positions indices (input 1) give.
// - kELEMENT (ONNX ScatterElements): indices and updates have the data's rank and one shape, at most the data's extents
//   except along the axis; update p goes to p with its axis coordinate replaced by indices[p].
// - kND (ONNX ScatterND): indices [i_0, ..., i_{q-2}, k] hold index tuples of length k (1 <= k <= the data's rank, a
//   build-time constant); updates are [i_0, ..., i_{q-2}] + data.shape[k:], each a slice written at its tuple.
// The output has the data's type and shape; indices are kINT32 or kINT64, the updates the data's type.
//
// What kiln checks, and where it differs from TensorRT: the axis is in [-rank, rank) (negative from the last; TensorRT
// documents [0, rank)). Indices are values known at run time: a negative index counts from the end of its axis (as
// ONNX allows), an index still out of range skips its update (TensorRT leaves that undefined), and where indices
// repeat one of the updates is kept (the host backend keeps the last).
#include "core/data_type.h"
#include "network/checks.h"
#include "network/network.h"
#include "network/shape_rules.h"

#include <string>

namespace kiln
{

using nvinfer1::ScatterMode;

namespace
{

//! Whether axis is one of rank's (any axis when the rank is unknown).
bool axisFits(int32_t axis, int32_t rank) noexcept
{
    return rank < 0 || (axis >= -rank && axis < rank);
}

} // namespace

template <>
class KindImpl<LayerType::kSCATTER> final : public nvinfer1::apiv::VScatterLayer, public KindBase
{
public:
    using KindBase::KindBase;

    void setMode(ScatterMode mode) noexcept override
    {
        if (mLayer.checkEnum("setMode", "mode", mode))
        {
            edit().mode = mode;
        }
    }
    ScatterMode getMode() const noexcept override { return p().mode; }
    void setAxis(int32_t axis) noexcept override
    {
        Dims const data = inputDims(0);
        if (!axisFits(axis, data.nbDims))
        {
            mLayer.fail(
                "setAxis", "axis ", axis, " is outside [", -data.nbDims, ", ", data.nbDims, ") for the data ", data);
            return;
        }
        edit().axis = axis;
    }
    int32_t getAxis() const noexcept override { return p().axis; }

    DataType outputType(int32_t /*index*/) const noexcept { return inputType(0); }
    Dims outputDims(int32_t /*index*/) const noexcept { return inputDims(0); }

private:
    ScatterParams const& p() const noexcept { return mLayer.paramsAs<ScatterParams>(); }
    //! The parameters, to change: the layer's outputs are then computed again (Layer::editParams).
    ScatterParams& edit() noexcept { return mLayer.editParams<ScatterParams>(); }
};

nvinfer1::IScatterLayer* NetworkApi::addScatter(
    nvinfer1::ITensor& data, nvinfer1::ITensor& indices, nvinfer1::ITensor& updates, ScatterMode mode) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addScatter";
    return mNetwork.reporter().guard(
        kWhere, static_cast<nvinfer1::IScatterLayer*>(nullptr), [&]() -> nvinfer1::IScatterLayer* {
            Tensor* d = mNetwork.own(&data, kWhere, "data");
            Tensor* i = d != nullptr ? mNetwork.own(&indices, kWhere, "indices") : nullptr;
            Tensor* u = i != nullptr ? mNetwork.own(&updates, kWhere, "updates") : nullptr;
            if (u == nullptr)
            {
                return nullptr;
            }
            if (!isValidEnum(mode))
            {
                return mNetwork.fail(kWhere, "mode ", mode, " is not a valid ScatterMode");
            }
            if (!isIndexType(i->type()))
            {
                return mNetwork.fail(kWhere, "indices ", quotedText(i->name()), " are ", dataTypeName(i->type()),
                    "; they must be kINT32 or kINT64");
            }
            if (u->type() != d->type())
            {
                return mNetwork.fail(kWhere, "updates ", quotedText(u->name()), " are ", dataTypeName(u->type()),
                    " but the data ", quotedText(d->name()), " is ", dataTypeName(d->type()),
                    "; they must be one type");
            }
            if (d->dims().nbDims == 0)
            {
                return mNetwork.fail(
                    kWhere, "the data ", quotedText(d->name()), " is 0-D; a scatter needs rank 1 or more");
            }
            return &mNetwork.addLayer<LayerType::kSCATTER>({d, i, u}, ScatterParams{mode, 0}, 1);
        });
}

// The symbolic shape rule (network/shape_rules.h): the output is the data's; the indices and updates must fit it.
Expected<std::vector<SymbolicTensor>> inferOutputShapes(ScatterParams const& params, ShapeRuleContext& context)
{
    SymbolicTensor const& data = context.input(0);
    SymbolicTensor const& indices = context.input(1);
    SymbolicTensor const& updates = context.input(2);
    if (!data.present() || !indices.present() || !updates.present())
    {
        return context.error("a scatter has three inputs: data, indices and updates");
    }
    if (!isIndexType(indices.type))
    {
        return context.error("the indices are ", dataTypeName(indices.type), "; they must be kINT32 or kINT64");
    }
    if (updates.type != data.type)
    {
        return context.error("the updates are ", dataTypeName(updates.type), " but the data is ",
            dataTypeName(data.type), "; they must be one type");
    }
    int32_t const rank = data.rank();
    if (rank < 1)
    {
        return context.error("the data is 0-D; a scatter needs rank 1 or more");
    }
    SymbolicDims const& d = *data.shape;
    SymbolicDims const& ix = *indices.shape;
    SymbolicDims const& up = *updates.shape;
    if (params.mode == ScatterMode::kELEMENT)
    {
        if (!axisFits(params.axis, rank))
        {
            return context.error(
                "axis ", params.axis, " is outside [", -rank, ", ", rank, ") for the data ", context.str(d));
        }
        if (indices.rank() != rank || updates.rank() != rank)
        {
            return context.error("kELEMENT needs indices and updates of the data's rank ", rank, "; they are ",
                context.str(ix), " and ", context.str(up));
        }
        auto const axis = static_cast<std::size_t>(params.axis < 0 ? params.axis + rank : params.axis);
        for (std::size_t i = 0; i < d.size(); ++i)
        {
            context.requireEqual(
                up[i], ix[i], "the updates " + context.str(up) + " must have the indices' shape " + context.str(ix));
            if (i != axis)
            {
                context.require(context.eq(context.less(d[i], ix[i]), context.constant(0)),
                    "the indices " + context.str(ix) + " exceed the data " + context.str(d) + " along axis "
                        + std::to_string(i) + " (only the scatter axis may be longer)");
            }
        }
    }
    else if (params.mode == ScatterMode::kND)
    {
        int32_t const q = indices.rank();
        int64_t k = 0;
        if (q < 1 || !isConstantExpr(ix.back(), &k))
        {
            return context.error("kND needs indices of rank 1 or more whose last extent (the tuple length) is a "
                                 "build-time constant; they are ",
                context.str(ix));
        }
        if (k < 1 || k > rank)
        {
            return context.error("the index tuples have ", k, " entries; kND needs 1 to the data's rank ", rank);
        }
        auto const expectedRank = static_cast<std::size_t>(q - 1 + rank - k);
        if (up.size() != expectedRank)
        {
            return context.error("the updates ", context.str(up), " have rank ", up.size(),
                "; kND needs indices.shape[:-1] + data.shape[k:], rank ", expectedRank);
        }
        for (std::size_t i = 0; i < up.size(); ++i)
        {
            auto const q1 = static_cast<std::size_t>(q - 1);
            DimExpr const* want = i < q1 ? ix[i] : d[static_cast<std::size_t>(k) + i - q1];
            context.requireEqual(up[i], want,
                "the updates " + context.str(up) + " must be indices.shape[:-1] + data.shape[k:] (indices "
                    + context.str(ix) + ", data " + context.str(d) + ")");
        }
    }
    else
    {
        return context.error("mode ", static_cast<int32_t>(params.mode), " is not a valid ScatterMode");
    }
    return context.finish({SymbolicTensor{d, std::nullopt, data.type}});
}

} // namespace kiln
