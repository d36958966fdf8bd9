// SPDX-License-Identifier: Apache-2.0
// Attention (builder/fusion.h, fuseAttention): multi-head attention written with primitive layers becomes one fused
// attention (FusedKernel::kATTENTION) that reads q, k and v with their heads interleaved ([B, S, H * D]), an optional
// additive mask, and writes the heads merged. The forms it recognises, from the softmax out, each intermediate tensor
// read by the next layer alone (no other layer, no network output, no shape symbol):
//
//     q4 = split(q) [* c] ; k4 = split(k) [* c] ; v4 = split(v)
//     s  = scale * q4 k4^T             k4 [B, H, Skv, D]; or scale * q4 k4 with k split to [B, H, D, Skv]
//     s' = s + mask                    optional
//     p  = softmax(s') over the last axis
//     p' = select(isnan(p), 0, p)      optional: the NaN guard of transformers' ONNX exports
//     out = merge(p' v4)
//
// - split: [B, S, H * D] -> reshape [B, S, H, D] -> transpose {0, 2, 1, 3} (k: or {0, 2, 3, 1}), as one shuffle or a
//   reshape then a transpose (the ONNX parser's Reshape and Transpose); the reshape given by its dimensions or by a
//   shape tensor (input 1: exporters compute it with Shape, Gather and Concat), the shapes of the tensors around it
//   deciding what it does. merge: transpose {0, 2, 1, 3} -> reshape [B, S, H * D], one shuffle or two.
// - [* c]: any number of element-wise kPRODs by a one-element constant (either operand) or kDIVs by one, on q's and
//   k's way anywhere from the flat tensor to the scores (before the reshape, between the reshape and the transpose,
//   after the transpose: transformers scales q and k each by D^-1/4). Their factors and the scores' product scale
//   (fuseEpilogues folded a scale of the scores) make the fused scale.
// - mask: any tensor of rank 4 whose extents are [B, H, Sq, Skv]'s or 1 (in practice [B, 1, Sq, Skv] or
//   [B, 1, 1, Skv]), of the scores' type or kFLOAT, added by an element-wise kSUM or, where fuseEpilogues folded the
//   sum, the scores' bias or residual input. It may be read elsewhere or be a network output: the fused layer only
//   reads it, as its input 3. Its batch may be another input's (an exported mask's is the attention_mask input's):
//   the sum's extents are then the two broadcast (kiln's maximum, asserted equal or 1), and so are the context's and
//   the output's that follow; the kernel checks at run time that the mask's extents are the scores' or 1.
// - The NaN guard sets FusedKernel::zeroMaskedRows: rows the softmax makes NaN (every score -inf: fully masked) give
//   zeros, as the guarded layers do.
#include "builder/fusion.h"
#include "builder/fusion_graph.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <variant>
#include <vector>

namespace kiln
{
namespace
{

using Order = std::array<int32_t, 4>;
constexpr Order kHeadSwap{0, 2, 1, 3};       //!< [B, S, H, D] <-> [B, H, S, D].
constexpr Order kKeysTransposed{0, 2, 3, 1}; //!< [B, S, H, D] -> [B, H, D, S].

//! Whether a plain shuffle layer with input rank inputRank transposes and reshapes as given: first the transpose first
//! (or none), then a reshape to rank reshapeRank (by its dimensions, or by a shape tensor as input 1), then the
//! transpose second (or none).
bool shuffleIs(EngineModel const& model, LayerRecord const& layer, int32_t inputRank, std::optional<Order> first,
    int32_t reshapeRank, std::optional<Order> second)
{
    auto const* params = std::get_if<ShuffleParams>(&layer.params);
    if (params == nullptr || !plainLayer(layer))
    {
        return false;
    }
    bool const byDimensions = layer.inputs.size() == 1 && params->reshape.nbDims == reshapeRank;
    bool const byShapeTensor = layer.inputs.size() == 2 && params->reshape.nbDims == kUnsetDims.nbDims
        && tensorAt(model, layer.outputs[0]).shape.size() == static_cast<std::size_t>(reshapeRank);
    if ((!byDimensions && !byShapeTensor)
        || tensorAt(model, layer.inputs[0]).shape.size() != static_cast<std::size_t>(inputRank))
    {
        return false;
    }
    // A permutation's entries past the rank it applies to are not read (applications often leave them 0).
    auto const matches = [](nvinfer1::Permutation const& permutation, std::optional<Order> wanted, int32_t rank) {
        for (int32_t i = 0; i < rank; ++i)
        {
            int32_t const expected = wanted && i < 4 ? (*wanted)[static_cast<std::size_t>(i)] : i;
            if (permutation.order[i] != expected)
            {
                return false;
            }
        }
        return true;
    };
    return matches(params->firstTranspose, first, inputRank) && matches(params->secondTranspose, second, reshapeRank);
}

//! Whether a plain shuffle layer with one input of rank 4 only transposes, by order (as its first or its second
//! transpose, the other one the identity, no reshape).
bool transposeOnly(LayerRecord const& layer, Order const& order)
{
    auto const* params = std::get_if<ShuffleParams>(&layer.params);
    if (params == nullptr || params->reshape.nbDims != kUnsetDims.nbDims)
    {
        return false;
    }
    auto const is = [](nvinfer1::Permutation const& permutation, Order const& wanted) {
        return std::equal(wanted.begin(), wanted.end(), permutation.order);
    };
    constexpr Order kIdentity{0, 1, 2, 3};
    return plainLayer(layer) && layer.inputs.size() == 1
        && ((is(params->firstTranspose, order) && is(params->secondTranspose, kIdentity))
            || (is(params->firstTranspose, kIdentity) && is(params->secondTranspose, order)));
}

//! A tensor before the scalar factors that make the one a pattern reads: what they scale, the factors' product, and
//! the layers that multiply (or divide).
struct Unscaled
{
    int32_t tensor{kNoTensor};
    float factor{1.F};
    std::vector<int32_t> layers;
};

//! Walks back from tensor, whose sole reader must be reader for its producer to be absorbed, through element-wise
//! layers that multiply by a one-element constant (either operand) or divide by one and keep their operand's shape.
Unscaled unscaled(EngineModel const& model, Readers const& readers, int32_t tensor, int32_t reader)
{
    Unscaled result{tensor, 1.F, {}};
    for (;;)
    {
        int32_t const producer = producerOf(model, result.tensor);
        if (producer < 0 || soleReader(readers, result.tensor) != reader)
        {
            return result;
        }
        LayerRecord const& layer = layerAt(model, producer);
        std::optional<nvinfer1::ElementWiseOperation> const op = elementWiseOp(layer);
        std::optional<float> factor;
        int32_t scaled = kNoTensor;
        if (op == nvinfer1::ElementWiseOperation::kPROD)
        {
            factor = scalarConstant(model, layer.inputs[1]);
            scaled = layer.inputs[0];
            if (!factor)
            {
                factor = scalarConstant(model, layer.inputs[0]);
                scaled = layer.inputs[1];
            }
        }
        else if (op == nvinfer1::ElementWiseOperation::kDIV)
        {
            std::optional<float> const divisor = scalarConstant(model, layer.inputs[1]);
            if (divisor && *divisor != 0.F && std::isfinite(1.F / *divisor))
            {
                factor = 1.F / *divisor;
                scaled = layer.inputs[0];
            }
        }
        if (!factor || !sameTensorShape(tensorAt(model, scaled), tensorAt(model, result.tensor)))
        {
            return result;
        }
        result.factor *= *factor;
        result.layers.push_back(producer);
        result.tensor = scaled;
        reader = producer;
    }
}

//! The layers that split heads into tensor t4 (read by reader alone) and the tensor they split ([B, S, H * D]): one
//! shuffle that reshapes and transposes by order, or a reshape then a transpose; with scales, scalar factors before,
//! between and after them (their product in factor).
std::optional<Unscaled> headSplit(
    EngineModel const& model, Readers const& readers, int32_t t4, int32_t reader, Order const& order, bool scales)
{
    Unscaled split = scales ? unscaled(model, readers, t4, reader) : Unscaled{t4, 1.F, {}};
    int32_t const transpose = producerOf(model, split.tensor);
    if (transpose < 0 || soleReader(readers, split.tensor) != (split.layers.empty() ? reader : split.layers.back()))
    {
        return std::nullopt;
    }
    LayerRecord const& layer = layerAt(model, transpose);
    split.layers.push_back(transpose);
    int32_t reshape = transpose;
    if (!shuffleIs(model, layer, 3, std::nullopt, 4, order))
    {
        if (!transposeOnly(layer, order))
        {
            return std::nullopt;
        }
        Unscaled const between
            = scales ? unscaled(model, readers, layer.inputs[0], transpose) : Unscaled{layer.inputs[0], 1.F, {}};
        reshape = producerOf(model, between.tensor);
        if (reshape < 0
            || soleReader(readers, between.tensor) != (between.layers.empty() ? transpose : between.layers.back())
            || !shuffleIs(model, layerAt(model, reshape), 3, std::nullopt, 4, std::nullopt))
        {
            return std::nullopt;
        }
        split.factor *= between.factor;
        split.layers.insert(split.layers.end(), between.layers.begin(), between.layers.end());
        split.layers.push_back(reshape);
    }
    // The flat tensor may be read elsewhere (q, k and v of one tensor): it stays.
    Unscaled const before = scales ? unscaled(model, readers, layerAt(model, reshape).inputs[0], reshape)
                                   : Unscaled{layerAt(model, reshape).inputs[0], 1.F, {}};
    split.factor *= before.factor;
    split.layers.insert(split.layers.end(), before.layers.begin(), before.layers.end());
    split.tensor = before.tensor;
    return split;
}

//! The layers that merge the heads of tensor t4 ([B, H, S, D]) and the tensor they make ([B, S, H * D]): one shuffle,
//! or a transpose then a reshape.
std::optional<std::pair<int32_t, std::vector<int32_t>>> headMerge(
    EngineModel const& model, Readers const& readers, int32_t t4)
{
    int32_t const merge = soleReader(readers, t4);
    if (merge < 0)
    {
        return std::nullopt;
    }
    LayerRecord const& layer = layerAt(model, merge);
    if (shuffleIs(model, layer, 4, kHeadSwap, 3, std::nullopt))
    {
        return std::pair{layer.outputs[0], std::vector<int32_t>{merge}};
    }
    if (!transposeOnly(layer, kHeadSwap))
    {
        return std::nullopt;
    }
    int32_t const reshape = soleReader(readers, layer.outputs[0]);
    if (reshape < 0 || !shuffleIs(model, layerAt(model, reshape), 4, std::nullopt, 3, std::nullopt))
    {
        return std::nullopt;
    }
    return std::pair{layerAt(model, reshape).outputs[0], std::vector<int32_t>{merge, reshape}};
}

//! The NaN guard on the probabilities p: select(isnan(p), 0, p), p read by these two layers alone and isnan(p) by
//! the select alone. The select and isnan layers, or nullopt.
std::optional<std::array<int32_t, 2>> nanGuard(EngineModel const& model, Readers const& readers, int32_t p)
{
    auto const t = static_cast<std::size_t>(p);
    if (readers.pinned[t] || readers.layers[t].size() != 2)
    {
        return std::nullopt;
    }
    for (std::size_t first = 0; first < 2; ++first)
    {
        int32_t const isNan = readers.layers[t][first];
        int32_t const select = readers.layers[t][1 - first];
        LayerRecord const& test = layerAt(model, isNan);
        LayerRecord const& choice = layerAt(model, select);
        auto const* unary = std::get_if<UnaryParams>(&test.params);
        if (unary == nullptr || unary->op != nvinfer1::UnaryOperation::kISNAN || !plainLayer(test)
            || test.inputs.size() != 1 || !std::holds_alternative<SelectParams>(choice.params) || !plainLayer(choice)
            || choice.inputs.size() != 3 || choice.inputs[0] != test.outputs[0] || choice.inputs[2] != p
            || soleReader(readers, test.outputs[0]) != select || scalarConstant(model, choice.inputs[1]) != 0.F
            || !sameTensorShape(tensorAt(model, p), tensorAt(model, choice.outputs[0])))
        {
            continue;
        }
        return std::array<int32_t, 2>{select, isNan};
    }
    return std::nullopt;
}

//! Whether extent e is batch, or batch broadcast with the mask's extent: kiln's broadcast of two symbolic extents is
//! their maximum (the builder asserts that they are equal or one is 1), so a maximum whose operands are batch, mask or
//! such broadcasts themselves.
bool broadcastOf(EngineModel const& model, uint32_t e, uint32_t batch, uint32_t mask)
{
    if (sameExtent(model, e, batch))
    {
        return true;
    }
    ExprRecord const& record = model.exprs[e];
    if (record.kind != DimExpr::Kind::kOPERATION || record.op != DimensionOperation::kMAX)
    {
        return false;
    }
    auto const operand = [&](uint32_t x) { return x == mask || broadcastOf(model, x, batch, mask); };
    return operand(record.lhs) && operand(record.rhs);
}

//! Whether mask can be the fused attention's additive mask of the scores [B, H, Sq, Skv] (extents), which the sum
//! makes sum: rank 4, sum's type or kFLOAT, kLINEAR; each extent the scores', 1, or one the sum broadcast with the
//! scores' (another input's batch: equal or 1 at run time, which the kernel checks).
bool maskFor(EngineModel const& model, int32_t mask, std::array<uint32_t, 4> const& extents, TensorRecord const& sum)
{
    TensorRecord const& m = tensorAt(model, mask);
    if (m.shape.size() != 4 || (m.type != sum.type && m.type != DataType::kFLOAT)
        || m.format != nvinfer1::TensorFormat::kLINEAR || m.scale != 1.F)
    {
        return false;
    }
    for (std::size_t d = 0; d < 4; ++d)
    {
        if (!sameExtent(model, m.shape[d], extents[d]) && constantExtent(model, m.shape[d]) != 1
            && !broadcastOf(model, sum.shape[d], extents[d], m.shape[d]))
        {
            return false;
        }
    }
    return true;
}

//! Whether two tensors have one type, scale, format and rank (their extents may differ by a broadcast).
bool sameKind(TensorRecord const& a, TensorRecord const& b)
{
    return a.type == b.type && a.scale == b.scale && a.format == b.format && a.shape.size() == b.shape.size();
}

//! The scores before softmax input a (read by the softmax alone): the product itself, a kSUM of the product (with two
//! inputs, read by the sum alone) and a mask (maskFor checks its extents), or the product with the mask folded as its
//! bias or residual (fuseEpilogues). The product, the mask (or kNoTensor) and the sum layer (or -1).
struct Scores
{
    int32_t product{-1};
    int32_t mask{kNoTensor};
    int32_t sum{-1};
};

std::optional<Scores> scoresOf(EngineModel const& model, Readers const& readers, int32_t a)
{
    Scores scores{producerOf(model, a), kNoTensor, -1};
    if (scores.product < 0)
    {
        return std::nullopt;
    }
    LayerRecord const& producer = layerAt(model, scores.product);
    if (elementWiseOp(producer) == nvinfer1::ElementWiseOperation::kSUM)
    {
        scores.sum = scores.product;
        for (std::size_t i = 0; i < 2; ++i)
        {
            int32_t const s = producer.inputs[i];
            int32_t const mask = producer.inputs[1 - i];
            int32_t const product = producerOf(model, s);
            if (product >= 0 && mask != s && soleReader(readers, s) == scores.sum
                && std::holds_alternative<MatrixMultiplyParams>(layerAt(model, product).params)
                && layerAt(model, product).inputs.size() == 2 && sameKind(tensorAt(model, s), tensorAt(model, a)))
            {
                scores.product = product;
                scores.mask = mask;
                return scores;
            }
        }
        return std::nullopt;
    }
    // The mask folded into the product: its bias (input 2) or its residual (input 3), not both.
    std::vector<int32_t> const& inputs = producer.inputs;
    if (inputs.size() == 3)
    {
        scores.mask = inputs[2];
    }
    else if (inputs.size() == 4 && inputs[2] == kNoTensor)
    {
        scores.mask = inputs[3];
    }
    else if (inputs.size() != 2)
    {
        return std::nullopt;
    }
    return scores;
}

//! Attention whose softmax is layer l, in the forms the file comment lists.
std::optional<KernelFusion> matchAttention(EngineModel const& model, Readers const& readers, int32_t l)
{
    LayerRecord const& softmax = layerAt(model, l);
    auto const* softmaxParams = std::get_if<SoftMaxParams>(&softmax.params);
    if (softmaxParams == nullptr || !plainLayer(softmax) || softmax.inputs.size() != 1
        || softmaxParams->axes != (1U << 3))
    {
        return std::nullopt;
    }
    TensorRecord const& scoresTensor = tensorAt(model, softmax.inputs[0]);
    DataType const type = scoresTensor.type;
    auto const typed = [&](int32_t tensor) {
        TensorRecord const& t = tensorAt(model, tensor);
        return t.type == type && t.format == nvinfer1::TensorFormat::kLINEAR;
    };
    // A product of two operands (the scores' may hold the mask as a third or fourth) that computes only that, apart
    // from its scale.
    auto const product = [&](int32_t layer, nvinfer1::MatrixOperation second, std::size_t nbInputs) {
        if (layer < 0)
        {
            return false;
        }
        LayerRecord const& record = layerAt(model, layer);
        auto const* params = std::get_if<MatrixMultiplyParams>(&record.params);
        return params != nullptr && !record.fused && record.pointwise.empty() && !record.epilogue && record.tactic == 0
            && record.outputs.size() == 1 && record.inputs.size() == nbInputs
            && params->ops[0] == nvinfer1::MatrixOperation::kNONE && params->ops[1] == second;
    };
    if (!pointwiseType(type) || scoresTensor.shape.size() != 4 || !typed(softmax.inputs[0])
        || soleReader(readers, softmax.inputs[0]) != l)
    {
        return std::nullopt;
    }
    std::optional<Scores> const scores = scoresOf(model, readers, softmax.inputs[0]);
    if (!scores || !std::isfinite(layerAt(model, scores->product).scale))
    {
        return std::nullopt;
    }
    LayerRecord const& scoresLayer = layerAt(model, scores->product);
    std::size_t const nbScoresInputs = scoresLayer.inputs.size();
    bool const keysTransposed = product(scores->product, nvinfer1::MatrixOperation::kNONE, nbScoresInputs);
    if (!keysTransposed && !product(scores->product, nvinfer1::MatrixOperation::kTRANSPOSE, nbScoresInputs))
    {
        return std::nullopt;
    }
    // The probabilities, through the NaN guard when there is one, read by the context alone.
    int32_t probabilities = softmax.outputs[0];
    std::optional<std::array<int32_t, 2>> const guard = nanGuard(model, readers, probabilities);
    if (guard)
    {
        probabilities = layerAt(model, (*guard)[0]).outputs[0];
    }
    int32_t const context = typed(probabilities) ? soleReader(readers, probabilities) : -1;
    if (!product(context, nvinfer1::MatrixOperation::kNONE, 2) || layerAt(model, context).inputs[0] != probabilities
        || layerAt(model, context).scale != 1.F)
    {
        return std::nullopt;
    }
    int32_t const contextTensor = layerAt(model, context).outputs[0];
    auto const merged = typed(contextTensor) ? headMerge(model, readers, contextTensor) : std::nullopt;
    if (!merged || !typed(merged->first))
    {
        return std::nullopt;
    }
    // The three head splits, q's and k's with their scalar factors.
    int32_t const q4 = scoresLayer.inputs[0];
    int32_t const k4 = scoresLayer.inputs[1];
    int32_t const v4 = layerAt(model, context).inputs[1];
    std::array<int32_t, 3> flats{};
    std::vector<int32_t> absorbed;
    float scale = scoresLayer.scale;
    std::array<int32_t, 3> const heads{q4, k4, v4};
    std::array<int32_t, 3> const readerOf{scores->product, scores->product, context};
    std::array<Order, 3> const orders{kHeadSwap, keysTransposed ? kKeysTransposed : kHeadSwap, kHeadSwap};
    for (std::size_t i = 0; i < 3; ++i)
    {
        auto const split
            = typed(heads[i]) ? headSplit(model, readers, heads[i], readerOf[i], orders[i], i < 2) : std::nullopt;
        if (!split || !typed(split->tensor))
        {
            return std::nullopt;
        }
        absorbed.insert(absorbed.end(), split->layers.begin(), split->layers.end());
        flats[i] = split->tensor;
        scale *= split->factor;
    }
    if (q4 == k4 || !std::isfinite(scale))
    {
        return std::nullopt;
    }
    // Shapes: q4 [B, H, Sq, D], k4 [B, H, Skv, D] (or [B, H, D, Skv]) and v4 [B, H, Skv, D]; the flat tensors
    // [B, S, H * D]; the output [B, Sq, H * D].
    std::vector<uint32_t> const& q = tensorAt(model, q4).shape;
    std::optional<int64_t> const nbHeads = constantExtent(model, q[1]);
    std::optional<int64_t> const headSize = constantExtent(model, q[3]);
    if (q.size() != 4 || !nbHeads || !headSize || *nbHeads < 1 || *nbHeads > 65535
        || !fusedAttentionHeadSize(*headSize))
    {
        return std::nullopt;
    }
    std::vector<uint32_t> k = tensorAt(model, k4).shape;
    std::vector<uint32_t> const& v = tensorAt(model, v4).shape;
    if (k.size() == 4 && keysTransposed)
    {
        std::swap(k[2], k[3]);
    }
    for (std::vector<uint32_t> const* shape : std::array<std::vector<uint32_t> const*, 2>{&k, &v})
    {
        if (shape->size() != 4 || !sameExtent(model, (*shape)[0], q[0]) || !sameExtent(model, (*shape)[1], q[1])
            || !sameExtent(model, (*shape)[3], q[3]))
        {
            return std::nullopt;
        }
    }
    if (!sameExtent(model, k[2], v[2]))
    {
        return std::nullopt;
    }
    int64_t const width = *nbHeads * *headSize;
    auto const flat = [&](int32_t tensor, uint32_t rows) {
        std::vector<uint32_t> const& shape = tensorAt(model, tensor).shape;
        return shape.size() == 3 && sameExtent(model, shape[0], q[0]) && sameExtent(model, shape[1], rows)
            && constantExtent(model, shape[2]) == width;
    };
    if (!flat(flats[0], q[2]) || !flat(flats[1], k[2]) || !flat(flats[2], v[2]))
    {
        return std::nullopt;
    }
    if (scores->mask != kNoTensor && !maskFor(model, scores->mask, {q[0], q[1], q[2], k[2]}, scoresTensor))
    {
        return std::nullopt;
    }
    // The output [B, Sq, H * D]. Where the mask's batch is another symbol, the context's batch is the broadcast of the
    // two and the merge's last extent the context's volume over B * Sq: H * D when they are equal at run time (else
    // the kernel refuses the output's shape).
    int32_t const output = merged->first;
    std::vector<uint32_t> const& o = tensorAt(model, output).shape;
    std::vector<uint32_t> const& c = tensorAt(model, contextTensor).shape;
    uint32_t const maskBatch = scores->mask != kNoTensor ? tensorAt(model, scores->mask).shape[0] : q[0];
    if (o.size() != 3 || c.size() != 4 || !sameExtent(model, o[0], q[0]) || !sameExtent(model, o[1], q[2])
        || (constantExtent(model, o[2]) != width
            && (constantExtent(model, o[2]) || !broadcastOf(model, c[0], q[0], maskBatch))))
    {
        return std::nullopt;
    }
    absorbed.insert(absorbed.end(), {scores->product, l});
    if (scores->sum >= 0)
    {
        absorbed.push_back(scores->sum);
    }
    if (guard)
    {
        absorbed.insert(absorbed.end(), guard->begin(), guard->end());
    }
    absorbed.insert(absorbed.end(), merged->second.begin(), merged->second.end());
    std::vector<int32_t> sorted = absorbed;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    {
        return std::nullopt; // Two of q, k and v split (or scaled) by one layer.
    }
    KernelFusion fusion;
    fusion.layer = context;
    fusion.position = context;
    fusion.absorbed = std::move(absorbed);
    fusion.inputs = {flats[0], flats[1], flats[2]};
    if (scores->mask != kNoTensor)
    {
        fusion.inputs.push_back(scores->mask);
    }
    fusion.output = output;
    fusion.kernel = FusedKernel{FusedKernel::Kind::kATTENTION, 0.F, static_cast<int32_t>(*nbHeads), scale};
    fusion.kernel.zeroMaskedRows = guard.has_value();
    return fusion;
}

} // namespace

int32_t fuseAttention(EngineModel& model)
{
    Readers const readers = readersOf(model);
    std::vector<KernelFusion> fusions;
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        if (std::optional<KernelFusion> fusion = matchAttention(model, readers, static_cast<int32_t>(l)))
        {
            fusions.push_back(std::move(*fusion));
        }
    }
    return applyKernelFusions(model, fusions);
}

} // namespace kiln
