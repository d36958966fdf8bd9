// SPDX-License-Identifier: Apache-2.0
// NMS: non-maximum suppression per batch item and class (TensorRT's INMSLayer; ONNX NonMaxSuppression with the scores
// transposed). Inputs: 0 boxes [B, N, 4] (shared by the classes) or [B, N, C, 4], kFLOAT or kHALF; 1 scores
// [B, N, C], the boxes' type; 2 MaxOutputBoxesPerClass, 0-D; 3 the IoU threshold and 4 the score threshold, 0-D
// kFLOAT, optional. Outputs: 0 the selected (batch, class, box) rows [n, 3], kINT32 or kINT64; 1 n, a 0-D kINT32
// tensor whose one value is the size-tensor symbol of output 0's first extent: n is known once the layer has run. Its
// upper bound is B * C * min(N, MaxOutputBoxesPerClass) when MaxOutputBoxesPerClass is a build-time constant, else
// B * C * N; it is also n's optimum.
//
// What kiln checks: the types and ranks above, the extents that must agree (B, N, C, the 4 coordinates), the bounding
// box format, and a TopK box limit of 1 to 5000 (TensorRT's largest; the default). kiln also takes a kINT64
// MaxOutputBoxesPerClass (TensorRT documents kINT32). The thresholds are values read at run time.
#include "core/data_type.h"
#include "network/checks.h"
#include "network/indices_type.h"
#include "network/network.h"
#include "network/shape_rules.h"

#include <algorithm>

namespace kiln
{

using nvinfer1::BoundingBoxFormat;

namespace
{

//! The largest (and default) TopK box limit.
constexpr int32_t kMaxTopKBoxLimit = 5000;

bool isBoxType(DataType type) noexcept
{
    return type == DataType::kFLOAT || type == DataType::kHALF;
}

//! Why the boxes or scores (their type and shape at network time) cannot be NMS inputs, or nullptr.
char const* boxesProblem(DataType boxes, Dims const& boxDims, DataType scores, Dims const& scoreDims) noexcept
{
    if (!isBoxType(boxes))
    {
        return "the boxes must be kFLOAT or kHALF";
    }
    if (scores != boxes)
    {
        return "the scores must have the boxes' type";
    }
    if (boxDims.nbDims >= 0 && boxDims.nbDims != 3 && boxDims.nbDims != 4)
    {
        return "the boxes must have rank 3 ([batch, boxes, 4]) or 4 ([batch, boxes, classes, 4])";
    }
    if (boxDims.nbDims > 0 && boxDims.d[boxDims.nbDims - 1] >= 0 && boxDims.d[boxDims.nbDims - 1] != 4)
    {
        return "the boxes' last extent must be 4";
    }
    if (scoreDims.nbDims >= 0 && scoreDims.nbDims != 3)
    {
        return "the scores must have rank 3 ([batch, boxes, classes])";
    }
    return nullptr;
}

} // namespace

template <>
class KindImpl<LayerType::kNMS> final : public nvinfer1::apiv::VNMSLayer, public KindBase
{
public:
    using KindBase::KindBase;

    void setBoundingBoxFormat(BoundingBoxFormat fmt) noexcept override
    {
        if (mLayer.checkEnum("setBoundingBoxFormat", "format", fmt))
        {
            edit().format = fmt;
        }
    }
    BoundingBoxFormat getBoundingBoxFormat() const noexcept override { return p().format; }
    void setTopKBoxLimit(int32_t limit) noexcept override
    {
        if (limit < 1 || limit > kMaxTopKBoxLimit)
        {
            mLayer.fail("setTopKBoxLimit", "the limit is ", limit, "; it must be 1 to ", kMaxTopKBoxLimit);
            return;
        }
        edit().topKBoxLimit = limit;
    }
    int32_t getTopKBoxLimit() const noexcept override { return p().topKBoxLimit; }
    bool setIndicesType(DataType type) noexcept override
    {
        if (!checkIndicesType(mLayer, type))
        {
            return false;
        }
        edit().indicesType = type;
        return true;
    }
    DataType getIndicesType() const noexcept override { return p().indicesType; }

    //! Inputs: 0 boxes, 1 scores, 2 MaxOutputBoxesPerClass, 3 IoU threshold, 4 score threshold.
    int32_t inputCapacity() const noexcept { return 5; }
    bool isShapeInput(int32_t index) const noexcept { return index == 2; }
    DataType outputType(int32_t index) const noexcept { return index == 0 ? p().indicesType : DataType::kINT32; }
    Dims outputDims(int32_t index) const noexcept { return index == 0 ? Dims{2, {-1, 3}} : Dims{0, {}}; }

private:
    NMSParams const& p() const noexcept { return mLayer.paramsAs<NMSParams>(); }
    //! The parameters, to change: the layer's outputs are then computed again (Layer::editParams).
    NMSParams& edit() noexcept { return mLayer.editParams<NMSParams>(); }
};

nvinfer1::INMSLayer* NetworkApi::addNMSV2(nvinfer1::ITensor& boxes, nvinfer1::ITensor& scores,
    nvinfer1::ITensor& maxOutputBoxesPerClass, DataType indicesType) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addNMS";
    return mNetwork.reporter().guard(kWhere, static_cast<nvinfer1::INMSLayer*>(nullptr), [&]() -> nvinfer1::INMSLayer* {
        Tensor* b = mNetwork.own(&boxes, kWhere, "boxes");
        Tensor* s = b != nullptr ? mNetwork.own(&scores, kWhere, "scores") : nullptr;
        Tensor* m = s != nullptr ? mNetwork.own(&maxOutputBoxesPerClass, kWhere, "maxOutputBoxesPerClass") : nullptr;
        if (m == nullptr)
        {
            return nullptr;
        }
        if (char const* problem = boxesProblem(b->type(), b->dims(), s->type(), s->dims()))
        {
            return mNetwork.fail(kWhere, "boxes ", quotedText(b->name()), " are ", dataTypeName(b->type()), " ",
                b->dims(), ", scores ", quotedText(s->name()), " ", dataTypeName(s->type()), " ", s->dims(), ": ",
                problem);
        }
        if (m->dims().nbDims != 0 || !isIndexType(m->type()))
        {
            return mNetwork.fail(kWhere, "maxOutputBoxesPerClass ", quotedText(m->name()), " is ",
                dataTypeName(m->type()), " ", m->dims(), "; it must be a 0-D kINT32 (or kINT64) tensor");
        }
        if (!isIndexType(indicesType))
        {
            return mNetwork.fail(
                kWhere, "the indices type ", dataTypeName(indicesType), " (", indicesType, ") is not kINT32 or kINT64");
        }
        NMSParams params;
        params.indicesType = indicesType;
        return &mNetwork.addLayer<LayerType::kNMS>({b, s, m}, params, 2);
    });
}

nvinfer1::INMSLayer* NetworkApi::addNMS(
    nvinfer1::ITensor& boxes, nvinfer1::ITensor& scores, nvinfer1::ITensor& maxOutputBoxesPerClass) noexcept
{
    return addNMSV2(boxes, scores, maxOutputBoxesPerClass, DataType::kINT32);
}

// The symbolic shape rule (network/shape_rules.h).
Expected<std::vector<SymbolicTensor>> inferOutputShapes(NMSParams const& params, ShapeRuleContext& context)
{
    SymbolicTensor const& boxes = context.input(0);
    SymbolicTensor const& scores = context.input(1);
    SymbolicTensor const& limit = context.input(2);
    if (!boxes.present() || !scores.present() || !limit.present())
    {
        return context.error("inputs 0 (boxes), 1 (scores) and 2 (MaxOutputBoxesPerClass) are required");
    }
    if (!isValidEnum(params.format))
    {
        return context.error("the bounding box format ", static_cast<int32_t>(params.format), " is not valid");
    }
    if (params.topKBoxLimit < 1 || params.topKBoxLimit > kMaxTopKBoxLimit)
    {
        return context.error("the TopK box limit is ", params.topKBoxLimit, "; it must be 1 to ", kMaxTopKBoxLimit);
    }
    if (!isIndexType(params.indicesType))
    {
        return context.error("the indices type ", dataTypeName(params.indicesType), " is not kINT32 or kINT64");
    }
    // The ranks alone (the extents are checked below, symbolically).
    Dims const boxRank = filledDims(boxes.rank(), -1);
    Dims const scoreRank = filledDims(scores.rank(), -1);
    if (char const* problem = boxesProblem(boxes.type, boxRank, scores.type, scoreRank))
    {
        return context.error("boxes ", dataTypeName(boxes.type), " ", context.str(*boxes.shape), ", scores ",
            dataTypeName(scores.type), " ", context.str(*scores.shape), ": ", problem);
    }
    SymbolicDims const& b = *boxes.shape;
    SymbolicDims const& s = *scores.shape;
    std::string const shapes = " (boxes " + context.str(b) + ", scores " + context.str(s) + ")";
    context.requireEqual(b.back(), context.constant(4), "the boxes' last extent must be 4" + shapes);
    context.requireEqual(b[0], s[0], "the boxes and scores must have one batch extent" + shapes);
    context.requireEqual(b[1], s[1], "the boxes and scores must have one number of boxes" + shapes);
    if (b.size() == 4)
    {
        context.requireEqual(b[2], s[2], "per-class boxes must have the scores' number of classes" + shapes);
    }
    if (limit.rank() != 0 || !isIndexType(limit.type))
    {
        return context.error("input 2 (MaxOutputBoxesPerClass) is ", dataTypeName(limit.type), " of shape ",
            context.str(*limit.shape), "; it must be a 0-D kINT32 (or kINT64) tensor");
    }
    for (int32_t i = 3; i < 5; ++i)
    {
        SymbolicTensor const& threshold = context.input(i);
        if (threshold.present() && (threshold.rank() != 0 || threshold.type != DataType::kFLOAT))
        {
            return context.error("input ", i, " (the ", i == 3 ? "IoU" : "score", " threshold) is ",
                dataTypeName(threshold.type), " of shape ", context.str(*threshold.shape),
                "; it must be a 0-D kFLOAT tensor");
        }
    }
    if (context.nbOutputs() != 2)
    {
        return context.error("the layer has ", context.nbOutputs(), " outputs; an NMS layer has 2");
    }

    // The most rows: B * C * min(N, MaxOutputBoxesPerClass) when that is a build-time constant.
    DimExpr const* perClass = s[1];
    int64_t most = 0;
    if (limit.values && limit.values->size() == 1 && isConstantExpr(limit.values->front(), &most))
    {
        perClass = context.min(perClass, context.constant(std::max<int64_t>(most, 0)));
    }
    DimExpr const* rows = context.mul(context.mul(s[0], s[2]), perClass);
    if (context.failed())
    {
        return context.finish({});
    }
    DimExpr const* upper = sizeFreeUpperBound(context.exprs(), rows);
    if (upper == nullptr)
    {
        return context.error(
            "the number of rows, at most ", context.str(rows), ", has no upper bound known before the layer runs");
    }
    auto count = context.exprs().sizeTensor(context.layerName() + ".count", 1, *upper, *upper);
    if (!count)
    {
        return context.error(count.error().message);
    }
    SymbolicTensor selected{SymbolicDims{count.value(), context.constant(3)}, std::nullopt, params.indicesType};
    SymbolicTensor counted{SymbolicDims{}, SymbolicDims{count.value()}, DataType::kINT32};
    return context.finish({std::move(selected), std::move(counted)});
}

} // namespace kiln
