// SPDX-License-Identifier: Apache-2.0
// NonMaxSuppression (opsets 10 and 11) onto INMSLayer with INT64 indices. ONNX's scores [B, C, N] are transposed to
// the layer's [B, N, C]; center_point_box = 1 is kCENTER_SIZES. The optional inputs: max_output_boxes_per_class
// (absent: 0, no output rows) becomes a 0-D kINT32 constant when known at parse time (values beyond INT32 clamped),
// else a 0-D kINT64 tensor; iou_threshold (absent: 0, as ONNX) and score_threshold (absent: -inf, so that only NaN and
// -inf scores are dropped, as ONNX keeps every box) become 0-D kFLOAT tensors. The TopK box limit is the layer's
// largest, 5000: with more boxes times classes per batch item, only the 5000 highest-scoring are considered (ONNX has
// no limit).
//
// Row order: the layer gives each batch item's rows by decreasing score; ONNX gives them class by class, each class in
// selection order. With more than one class the rows are reordered: a stable sort by (batch, class) made of a TopK
// over the key (batch * C + class) * n + row, n the number of rows.
#include "onnx/importers/helpers.h"
#include "onnx/importers/importers.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace kiln::onnx_import
{

namespace
{

using nvinfer1::ElementWiseOperation;

void checkNonMaxSuppression(ImportContext&, ::onnx::NodeProto const&, Attributes const& attrs)
{
    int64_t const center = attrs.get<int64_t>("center_point_box", 0);
    require(
        center == 0 || center == 1, ErrorCode::kINVALID_NODE, "center_point_box is ", center, "; it must be 0 or 1");
}

//! Optional input i, one value, as a 0-D tensor of type (weights become a constant; what names the input).
ITensor& scalarInput(ImportContext& ctx, Node const& node, size_t i, DataType type, char const* what)
{
    Value const& given = node.input(i);
    require(given.rank() == 0 || (given.rank() == 1 && given.shape().d[0] == 1), ErrorCode::kINVALID_NODE, "input ", i,
        " (", what, ") has shape ", shapeText(given.shape()), "; it must hold one value");
    auto& scalar = ctx.added(ctx.network().addShuffle(castTo(ctx, ctx.tensor(given), type)));
    scalar.setReshapeDimensions(Dims{0, {}});
    return *scalar.getOutput(0);
}

//! Rows [n, 3] of (batch, class, box) in ONNX's order: by batch, then class, keeping the order within a class. count
//! is n (the layer's 0-D output 1, TopK's k); classes the number of classes (a 0-D INT64 tensor).
ITensor& classMajor(ImportContext& ctx, ITensor& rows, ITensor& count, ITensor& classes)
{
    auto column = [&](int64_t c) -> ITensor& {
        auto& gather = ctx.added(ctx.network().addGather(rows, int64Constant(ctx, {c}, Dims{0, {}}), 1));
        return *gather.getOutput(0); // [n]
    };
    ITensor& batch = column(0);
    ITensor& cls = column(1);
    ITensor& n = shapeOf(ctx, batch);                  // [1] INT64 holding n
    ITensor& position = axisPositions(ctx, batch, 1U); // 0 .. n - 1
    ITensor& group
        = binary(ctx, binary(ctx, batch, classes, ElementWiseOperation::kPROD), cls, ElementWiseOperation::kSUM);
    ITensor& key
        = binary(ctx, binary(ctx, group, n, ElementWiseOperation::kPROD), position, ElementWiseOperation::kSUM);
    auto& sort = ctx.added(ctx.network().addTopK(key, nvinfer1::TopKOperation::kMIN, 0, 1U, DataType::kINT64));
    sort.setInput(1, count);
    auto& gather = ctx.added(ctx.network().addGather(rows, *sort.getOutput(1), 0));
    return *gather.getOutput(0);
}

std::vector<Value> importNonMaxSuppression(ImportContext& ctx, Node& node)
{
    ITensor& boxes = inputTensor(ctx, node, 0);
    ITensor& scores = inputTensor(ctx, node, 1);
    require(boxes.getType() == DataType::kFLOAT && scores.getType() == DataType::kFLOAT,
        ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "NonMaxSuppression takes FLOAT boxes and scores");
    Dims const boxDims = boxes.getDimensions();
    Dims const scoreDims = scores.getDimensions();
    require(boxDims.nbDims == 3 && scoreDims.nbDims == 3, ErrorCode::kINVALID_NODE, "the boxes ", shapeText(boxDims),
        " and scores ", shapeText(scoreDims), " must have rank 3: [B, N, 4] and [B, C, N]");

    // Scores [B, C, N] to the layer's [B, N, C].
    auto& transpose = ctx.added(ctx.network().addShuffle(scores));
    nvinfer1::Permutation order{};
    order.order[0] = 0;
    order.order[1] = 2;
    order.order[2] = 1;
    transpose.setFirstTranspose(order);

    ITensor* maxPerClass = nullptr;
    if (!node.has(2))
    {
        int32_t const zero = 0;
        maxPerClass = &ctx.tensor(Value::weights(ctx.weightsFrom(DataType::kINT32, Dims{0, {}}, {zero})));
    }
    else if (node.input(2).isWeights())
    {
        std::vector<int64_t> const values = constantInts(node, 2, "max_output_boxes_per_class");
        require(values.size() == 1, ErrorCode::kINVALID_NODE, "input 2 (max_output_boxes_per_class) has ",
            values.size(), " values; it must have one");
        int64_t const clamped = std::clamp<int64_t>(values.front(), 0, std::numeric_limits<int32_t>::max());
        maxPerClass = &ctx.tensor(
            Value::weights(ctx.weightsFrom(DataType::kINT32, Dims{0, {}}, {static_cast<double>(clamped)})));
    }
    else
    {
        maxPerClass = &scalarInput(ctx, node, 2, DataType::kINT64, "max_output_boxes_per_class");
    }

    auto& layer = ctx.added(ctx.network().addNMS(boxes, *transpose.getOutput(0), *maxPerClass, DataType::kINT64));
    layer.setBoundingBoxFormat(node.attrs.get<int64_t>("center_point_box", 0) != 0
            ? nvinfer1::BoundingBoxFormat::kCENTER_SIZES
            : nvinfer1::BoundingBoxFormat::kCORNER_PAIRS);
    if (node.has(3))
    {
        layer.setInput(3, scalarInput(ctx, node, 3, DataType::kFLOAT, "iou_threshold"));
    }
    ITensor& scoreThreshold = node.has(4)
        ? scalarInput(ctx, node, 4, DataType::kFLOAT, "score_threshold")
        : ctx.tensor(
            Value::weights(ctx.weightsFrom(DataType::kFLOAT, Dims{0, {}}, {-std::numeric_limits<double>::infinity()})));
    layer.setInput(4, scoreThreshold);

    ITensor* rows = layer.getOutput(0);
    if (scoreDims.d[1] != 1)
    {
        ITensor& classes = scoreDims.d[1] >= 0
            ? int64Constant(ctx, {scoreDims.d[1]}, Dims{0, {}})
            : *ctx.added(ctx.network().addGather(shapeOf(ctx, scores), int64Constant(ctx, {1}, Dims{0, {}}), 0))
                   .getOutput(0);
        rows = &classMajor(ctx, *rows, *layer.getOutput(1), classes);
    }
    return {output(rows)};
}

} // namespace

void registerNmsOps(OpRegistry& registry)
{
    registry.add("NonMaxSuppression", importNonMaxSuppression, checkNonMaxSuppression);
}

} // namespace kiln::onnx_import
