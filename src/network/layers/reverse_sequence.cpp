// SPDX-License-Identifier: Apache-2.0
// ReverseSequence: for each index b of the batch axis, the first sequenceLens[b] elements along the sequence axis of
// input 0 are reversed, the others copied; the output has the input's type and shape. Input 1 (sequenceLens) is a 1-D
// kINT32 or kINT64 tensor of the batch axis' extent. TensorRT's IReverseSequenceLayer reference: batch axis default
// 1, sequence axis default 0, each in [0, rank) and different from the other.
//
// What kiln checks: an axis outside [0, rank) at its setter (the value is kept); the two axes being equal, the rank
// (2 or more) and the lengths' type and shape at addReverseSequence and in the shape rule, which also needs the
// lengths' extent to be the batch axis' (the setters cannot insist the axes differ: swapping them takes two calls).
// Lengths are values known at run time: one below 0 counts as 0, one beyond the sequence axis' extent as the extent
// (kiln's choice; ONNX requires them in range).
#include "core/data_type.h"
#include "network/checks.h"
#include "network/network.h"
#include "network/shape_rules.h"

namespace kiln
{

template <>
class KindImpl<LayerType::kREVERSE_SEQUENCE> final : public nvinfer1::apiv::VReverseSequenceLayer, public KindBase
{
public:
    using KindBase::KindBase;

    void setBatchAxis(int32_t batchAxis) noexcept override
    {
        if (checkAxis("setBatchAxis", "batch axis", batchAxis))
        {
            edit().batchAxis = batchAxis;
        }
    }
    int32_t getBatchAxis() const noexcept override { return p().batchAxis; }
    void setSequenceAxis(int32_t sequenceAxis) noexcept override
    {
        if (checkAxis("setSequenceAxis", "sequence axis", sequenceAxis))
        {
            edit().sequenceAxis = sequenceAxis;
        }
    }
    int32_t getSequenceAxis() const noexcept override { return p().sequenceAxis; }

    //! Inputs: 0 data, 1 sequence lengths.
    DataType outputType(int32_t /*index*/) const noexcept { return inputType(0); }
    Dims outputDims(int32_t /*index*/) const noexcept { return inputDims(0); }

private:
    ReverseSequenceParams const& p() const noexcept { return mLayer.paramsAs<ReverseSequenceParams>(); }
    //! The parameters, to change: the layer's outputs are then computed again (Layer::editParams).
    ReverseSequenceParams& edit() noexcept { return mLayer.editParams<ReverseSequenceParams>(); }
    bool checkAxis(char const* method, char const* what, int32_t axis) const noexcept
    {
        int32_t const rank = inputDims(0).nbDims;
        if (axis < 0 || axis >= rank)
        {
            mLayer.fail(
                method, "the ", what, " is ", axis, "; for an input of rank ", rank, " it must be in [0, ", rank, ")");
            return false;
        }
        return true;
    }
};

nvinfer1::IReverseSequenceLayer* NetworkApi::addReverseSequence(
    nvinfer1::ITensor& input, nvinfer1::ITensor& sequenceLens) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addReverseSequence";
    return mNetwork.reporter().guard(
        kWhere, static_cast<nvinfer1::IReverseSequenceLayer*>(nullptr), [&]() -> nvinfer1::IReverseSequenceLayer* {
            Tensor* data = mNetwork.own(&input, kWhere, "input");
            Tensor* lengths = data == nullptr ? nullptr : mNetwork.own(&sequenceLens, kWhere, "sequenceLens");
            if (data == nullptr || lengths == nullptr)
            {
                return nullptr;
            }
            if (data->dims().nbDims < 2)
            {
                return mNetwork.fail(kWhere, "input ", quotedText(data->name()), " is ", data->dims(),
                    "; a reverse sequence needs rank 2 or more (a batch axis and a sequence axis)");
            }
            if (lengths->dims().nbDims != 1 || !isIndexType(lengths->type()))
            {
                return mNetwork.fail(kWhere, "the sequence lengths ", quotedText(lengths->name()), " are ",
                    dataTypeName(lengths->type()), " ", lengths->dims(),
                    "; they must be a 1-D kINT32 or kINT64 tensor");
            }
            return &mNetwork.addLayer<LayerType::kREVERSE_SEQUENCE>({data, lengths}, ReverseSequenceParams{}, 1);
        });
}

// The symbolic shape rule (network/shape_rules.h).
Expected<std::vector<SymbolicTensor>> inferOutputShapes(ReverseSequenceParams const& params, ShapeRuleContext& context)
{
    SymbolicTensor const& data = context.input(0);
    SymbolicTensor const& lengths = context.input(1);
    if (!data.present() || !lengths.present())
    {
        return context.error("a reverse sequence has two inputs: the data and the sequence lengths");
    }
    int32_t const rank = data.rank();
    for (auto const& [axis, what] : {std::pair{params.batchAxis, "batch"}, std::pair{params.sequenceAxis, "sequence"}})
    {
        if (axis < 0 || axis >= rank)
        {
            return context.error(
                "the ", what, " axis is ", axis, "; for an input of rank ", rank, " it must be in [0, ", rank, ")");
        }
    }
    if (params.batchAxis == params.sequenceAxis)
    {
        return context.error("the batch axis and the sequence axis are both ", params.batchAxis, "; they must differ");
    }
    if (lengths.rank() != 1 || !isIndexType(lengths.type))
    {
        return context.error("the sequence lengths are ", dataTypeName(lengths.type), " of shape ",
            context.str(*lengths.shape), "; they must be a 1-D kINT32 or kINT64 tensor");
    }
    SymbolicDims const& d = *data.shape;
    DimExpr const* batch = d[static_cast<std::size_t>(params.batchAxis)];
    context.requireEqual((*lengths.shape)[0], batch,
        "the sequence lengths " + context.str(*lengths.shape) + " must have one entry per index of the batch axis "
            + std::to_string(params.batchAxis) + " of the input " + context.str(d));
    return context.finish({SymbolicTensor{d, std::nullopt, data.type}});
}

} // namespace kiln
