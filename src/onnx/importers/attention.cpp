// SPDX-License-Identifier: Apache-2.0
// Attention and RotaryEmbedding (opset 23), composed from shuffle, matrix multiply, element-wise, select, softmax,
// gather, slice and concatenation layers.
//
// Attention is softmax(Q K^T * scale + mask) V per head. 3-D Q/K/V ([batch, sequence, heads * size]) are split into
// heads by one shuffle each and the result merged back by one, so that a CUDA build fuses the unmasked, non-causal
// case with as many K/V heads as Q heads into one attention kernel (builder/fusion.cpp, matchAttention). Grouped-query
// K/V heads are repeated to Q's by a gather. TensorRT's restrictions are kept: no past_key / past_value /
// nonpad_kv_seqlen inputs, only the output Y, no softcap or qk_matmul_output_mode.
#include "onnx/importers/helpers.h"
#include "onnx/importers/importers.h"
#include "onnx/importers/shape_helpers.h"

#include "core/data_type.h"

#include <array>
#include <cmath>
#include <limits>

namespace kiln::onnx_import
{

namespace
{

using nvinfer1::MatrixOperation;

constexpr nvinfer1::Permutation kSwapHeads{{0, 2, 1, 3}};

//! [batch, sequence, heads * size] as [batch, heads, sequence, size]: one shuffle.
ITensor& splitHeads(ImportContext& ctx, ITensor& x, int64_t heads)
{
    auto& shuffle = ctx.added(ctx.network().addShuffle(x));
    shuffle.setReshapeDimensions(Dims{4, {0, 0, heads, -1}});
    shuffle.setSecondTranspose(kSwapHeads);
    return *shuffle.getOutput(0);
}

//! [batch, heads, sequence, size] as [batch, sequence, heads * size]: one shuffle.
ITensor& mergeHeads(ImportContext& ctx, ITensor& x)
{
    auto& shuffle = ctx.added(ctx.network().addShuffle(x));
    shuffle.setFirstTranspose(kSwapHeads);
    shuffle.setReshapeDimensions(Dims{3, {0, 0, -1}});
    return *shuffle.getOutput(0);
}

//! Input i (Q, K or V) as [batch, heads, sequence, size]; heads is the attribute (3-D inputs) or the extent (4-D).
std::pair<ITensor*, int64_t> headsOf(ImportContext& ctx, Node const& node, size_t i, char const* headsAttribute)
{
    static constexpr char const* kNames[] = {"Q", "K", "V"};
    ITensor& x = inputTensor(ctx, node, i);
    Dims const dims = x.getDimensions();
    require(dims.nbDims == 3 || dims.nbDims == 4, ErrorCode::kUNSUPPORTED_NODE, "input ", kNames[i], " has shape ",
        shapeText(dims), "; it must be 3-D or 4-D");
    if (dims.nbDims == 4)
    {
        return {&x, dims.d[1]};
    }
    int64_t const heads = node.attrs.get<int64_t>(headsAttribute, 0);
    require(heads >= 1, ErrorCode::kINVALID_NODE, "input ", kNames[i], " is 3-D, so attribute ", headsAttribute,
        " must be positive, not ", heads);
    require(dims.d[2] < 0 || dims.d[2] % heads == 0, ErrorCode::kINVALID_NODE, "input ", kNames[i], "'s extent ",
        dims.d[2], " is not a multiple of ", headsAttribute, " (", heads, ")");
    return {&splitHeads(ctx, x, heads), heads};
}

void checkAttention(ImportContext& /*ctx*/, ::onnx::NodeProto const& node, Attributes const& attrs)
{
    static constexpr char const* kInputs[] = {"past_key", "past_value", "nonpad_kv_seqlen"};
    for (int i = 4; i < node.input_size() && i < 7; ++i)
    {
        require(node.input(i).empty(), ErrorCode::kUNSUPPORTED_NODE_INPUT, "input ", kInputs[i - 4],
            " is not supported (as in TensorRT): kiln's Attention has no KV cache input");
    }
    for (int i = 1; i < node.output_size(); ++i)
    {
        require(node.output(i).empty(), ErrorCode::kUNSUPPORTED_NODE, "output ", i, " (", node.output(i),
            ") is not supported (as in TensorRT): only Y is");
    }
    require(attrs.get<float>("softcap", 0.0F) == 0.0F, ErrorCode::kUNSUPPORTED_NODE_ATTR,
        "attribute softcap is not supported (as in TensorRT)");
    require(attrs.get<int64_t>("qk_matmul_output_mode", 0) == 0, ErrorCode::kUNSUPPORTED_NODE_ATTR,
        "attribute qk_matmul_output_mode is not supported (as in TensorRT)");
}

ITensor& matrixMultiply(ImportContext& ctx, ITensor& a, ITensor& b, MatrixOperation opB)
{
    return *ctx.added(ctx.network().addMatrixMultiply(a, MatrixOperation::kNONE, b, opB)).getOutput(0);
}

//! scores where keep, else -inf (keep a BOOL tensor broadcast to the scores).
ITensor& maskScores(ImportContext& ctx, ITensor& scores, ITensor& keep)
{
    int32_t const rank = scores.getDimensions().nbDims;
    ITensor& minusInfinity = scalarConstant(ctx, -std::numeric_limits<double>::infinity(), scores.getType(), rank);
    ITensor& condition = expandRank(ctx, keep, rank);
    return *ctx.added(ctx.network().addSelect(condition, scores, minusInfinity)).getOutput(0);
}

std::vector<Value> importAttention(ImportContext& ctx, Node& node)
{
    DataType const type = node.input(0).type();
    require(isFloating(type), ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "input Q is ", dataTypeShortName(type),
        "; Attention takes floating-point inputs");
    bool const flat = node.input(0).rank() == 3;
    auto [q, qHeads] = headsOf(ctx, node, 0, "q_num_heads");
    auto [k, kHeads] = headsOf(ctx, node, 1, "kv_num_heads");
    auto [v, vHeads] = headsOf(ctx, node, 2, "kv_num_heads");
    require(k->getType() == type && v->getType() == type, ErrorCode::kINVALID_NODE, "Q, K and V must have one type");
    require(qHeads >= 1 && kHeads >= 1 && kHeads == vHeads && qHeads % kHeads == 0, ErrorCode::kINVALID_NODE, "Q has ",
        qHeads, " heads, K ", kHeads, " and V ", vHeads,
        "; they must be known, K and V must have as many, and Q a multiple of theirs");
    if (kHeads != qHeads)
    {
        // Grouped-query attention: Q head h reads K/V head h / (qHeads / kHeads).
        std::vector<int64_t> group(static_cast<size_t>(qHeads));
        for (int64_t h = 0; h < qHeads; ++h)
        {
            group[static_cast<size_t>(h)] = h / (qHeads / kHeads);
        }
        ITensor& indices = int64Constant(ctx, group);
        k = ctx.added(ctx.network().addGather(*k, indices, 1)).getOutput(0);
        v = ctx.added(ctx.network().addGather(*v, indices, 1)).getOutput(0);
    }
    int64_t const size = q->getDimensions().d[3];
    double scale = 0.0;
    if (node.attrs.has("scale"))
    {
        scale = static_cast<double>(node.attrs.get<float>("scale", 1.0F));
    }
    else
    {
        require(size > 0, ErrorCode::kUNSUPPORTED_NODE_DYNAMIC,
            "the head size of Q must be known at build time for the default scale (1 / sqrt(head size))");
        scale = 1.0 / std::sqrt(static_cast<double>(size));
    }
    // scores = Q K^T * scale, [batch, heads, q sequence, kv sequence].
    ITensor* scores = &binary(ctx, matrixMultiply(ctx, *q, *k, MatrixOperation::kTRANSPOSE),
        scalarConstant(ctx, scale, type, 4), ElementWiseOperation::kPROD);
    if (node.has(3))
    {
        ITensor& mask = inputTensor(ctx, node, 3);
        scores = mask.getType() == DataType::kBOOL
            ? &maskScores(ctx, *scores, mask)
            : &binary(ctx, *scores, castTo(ctx, mask, type), ElementWiseOperation::kSUM);
    }
    if (node.attrs.get<int64_t>("is_causal", 0) != 0)
    {
        // Query i sees keys 0..i: keep where key position <= query position.
        ITensor& rows = axisPositions(ctx, *scores, 1U << 2);
        ITensor& columns = axisPositions(ctx, *scores, 1U << 3);
        ITensor& later = binary(ctx, columns, rows, ElementWiseOperation::kGREATER);
        scores = &maskScores(ctx, *scores, unary(ctx, later, nvinfer1::UnaryOperation::kNOT));
    }
    ITensor* softmaxInput = scores;
    if (node.attrs.has("softmax_precision"))
    {
        softmaxInput = &castTo(ctx, *scores, floatingTypeAttribute(node, "softmax_precision", 1));
    }
    auto& softmax = ctx.added(ctx.network().addSoftMax(*softmaxInput));
    softmax.setAxes(1U << 3);
    ITensor& probabilities = castTo(ctx, *softmax.getOutput(0), type);
    ITensor& context = matrixMultiply(ctx, probabilities, *v, MatrixOperation::kNONE);
    return {output(flat ? &mergeHeads(ctx, context) : &context)};
}

//! X's last axis from start, size elements with stride.
ITensor& lastAxisSlice(ImportContext& ctx, ITensor& x, int64_t start, int64_t size, int64_t stride)
{
    int64_t const last = x.getDimensions().nbDims - 1;
    return *addSliceOf(ctx, x, int64Value(ctx, {start}), int64Value(ctx, {size}), int64Value(ctx, {stride}),
        std::vector<int64_t>{last})
                .getOutput(0);
}

//! The cos or sin cache for each (batch, position), [batch, sequence, half] with half = the rotated size / 2, and a
//! unit axis inserted at heads (1 for [B, H, S, D] inputs, 2 for [B, S, H, D]).
ITensor& rotaryCache(ImportContext& ctx, Node const& node, size_t i, int64_t half, int32_t heads, DataType type)
{
    ITensor* cache = &castTo(ctx, inputTensor(ctx, node, i), type);
    if (node.has(3))
    {
        ITensor& positions = inputTensor(ctx, node, 3);
        require(positions.getType() == DataType::kINT64 || positions.getType() == DataType::kINT32,
            ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "position_ids is ", dataTypeShortName(positions.getType()),
            "; it must be INT64 (or INT32)");
        cache = ctx.added(ctx.network().addGather(*cache, positions, 0)).getOutput(0);
    }
    Dims const dims = cache->getDimensions();
    require(dims.nbDims == 3, ErrorCode::kINVALID_NODE, "the ", i == 1 ? "cos" : "sin", " cache gives shape ",
        shapeText(dims), " per position; it must be [batch, sequence, rotary size / 2]");
    if (dims.d[2] != half)
    {
        cache = &lastAxisSlice(ctx, *cache, 0, half, 1);
    }
    std::vector<DimPart> parts{DimPart::copy(0), DimPart::copy(1), DimPart::fixed(half)};
    parts.insert(parts.begin() + heads, DimPart::fixed(1));
    return reshapeValue(ctx, Value::tensor(*cache), parts).tensor();
}

//! RotaryEmbedding: rotates pairs of X's head elements (halves, or even/odd elements when interleaved) of the first
//! rotary_embedding_dim by the angles whose cos and sin the caches hold.
std::vector<Value> importRotaryEmbedding(ImportContext& ctx, Node& node)
{
    ITensor& input = floatingInput(ctx, node);
    Dims const dims = input.getDimensions();
    require(dims.nbDims == 3 || dims.nbDims == 4, ErrorCode::kINVALID_NODE, "input X has shape ", shapeText(dims),
        "; it must be 3-D or 4-D");
    ITensor* x = &input;
    int32_t const headsAxis = dims.nbDims == 4 ? 1 : 2; // of the 4-D view of X
    if (dims.nbDims == 3)
    {
        int64_t const heads = node.attrs.get<int64_t>("num_heads", 0);
        require(heads >= 1 && dims.d[2] > 0 && dims.d[2] % heads == 0, ErrorCode::kINVALID_NODE,
            "input X is 3-D with hidden size ", dims.d[2], ", so attribute num_heads (", heads,
            ") must be positive and divide it");
        x = &reshapeValue(ctx, Value::tensor(input),
            {DimPart::copy(0), DimPart::copy(1), DimPart::fixed(heads), DimPart::fixed(dims.d[2] / heads)})
                 .tensor();
    }
    int64_t const size = x->getDimensions().d[3];
    require(size > 0, ErrorCode::kUNSUPPORTED_NODE_DYNAMIC, "the head size of X must be known at build time");
    int64_t const rotated = node.attrs.get<int64_t>("rotary_embedding_dim", 0) == 0
        ? size
        : node.attrs.get<int64_t>("rotary_embedding_dim", 0);
    require(rotated > 0 && rotated <= size && rotated % 2 == 0, ErrorCode::kINVALID_NODE, "rotary_embedding_dim is ",
        rotated, "; it must be even and at most the head size ", size);
    int64_t const half = rotated / 2;
    DataType const type = input.getType();
    ITensor& cos = rotaryCache(ctx, node, 1, half, headsAxis, type);
    ITensor& sin = rotaryCache(ctx, node, 2, half, headsAxis, type);
    bool const interleaved = node.attrs.get<int64_t>("interleaved", 0) != 0;
    ITensor& x1 = interleaved ? lastAxisSlice(ctx, *x, 0, half, 2) : lastAxisSlice(ctx, *x, 0, half, 1);
    ITensor& x2 = interleaved ? lastAxisSlice(ctx, *x, 1, half, 2) : lastAxisSlice(ctx, *x, half, half, 1);
    using Op = ElementWiseOperation;
    ITensor& real = binary(ctx, binary(ctx, cos, x1, Op::kPROD), binary(ctx, sin, x2, Op::kPROD), Op::kSUB);
    ITensor& imaginary = binary(ctx, binary(ctx, sin, x1, Op::kPROD), binary(ctx, cos, x2, Op::kPROD), Op::kSUM);
    ITensor* rotatedPart = nullptr;
    if (interleaved)
    {
        // [..., half] pairs as [..., half, 2], then back to [..., rotated]: real and imaginary alternate.
        std::vector<DimPart> const pairs{
            DimPart::copy(0), DimPart::copy(1), DimPart::copy(2), DimPart::copy(3), DimPart::fixed(1)};
        std::array<ITensor*, 2> parts{&reshapeValue(ctx, Value::tensor(real), pairs).tensor(),
            &reshapeValue(ctx, Value::tensor(imaginary), pairs).tensor()};
        auto& concat = ctx.added(ctx.network().addConcatenation(parts.data(), 2));
        concat.setAxis(4);
        rotatedPart = &reshapeValue(ctx, Value::tensor(*concat.getOutput(0)),
            {DimPart::copy(0), DimPart::copy(1), DimPart::copy(2), DimPart::fixed(rotated)})
                           .tensor();
    }
    else
    {
        std::array<ITensor*, 2> parts{&real, &imaginary};
        auto& concat = ctx.added(ctx.network().addConcatenation(parts.data(), 2));
        concat.setAxis(3);
        rotatedPart = concat.getOutput(0);
    }
    ITensor* y = rotatedPart;
    if (rotated < size)
    {
        std::array<ITensor*, 2> parts{rotatedPart, &lastAxisSlice(ctx, *x, rotated, size - rotated, 1)};
        auto& concat = ctx.added(ctx.network().addConcatenation(parts.data(), 2));
        concat.setAxis(3);
        y = concat.getOutput(0);
    }
    if (dims.nbDims == 3)
    {
        y = &reshapeValue(ctx, Value::tensor(*y), {DimPart::copy(0), DimPart::copy(1), DimPart::fixed(dims.d[2])})
                 .tensor();
    }
    return {output(y)};
}

} // namespace

void registerAttentionOps(OpRegistry& registry)
{
    registry.add("Attention", importAttention, checkAttention);
    registry.add("RotaryEmbedding", importRotaryEmbedding);
}

} // namespace kiln::onnx_import
