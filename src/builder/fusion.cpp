// SPDX-License-Identifier: Apache-2.0
#include "builder/fusion.h"
#include "builder/fusion_graph.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <vector>

namespace kiln
{
namespace
{

//! The step a point-wise layer computes (operands unset), when the layer can join a fused program: an arithmetic
//! element-wise, float unary or activation layer with one output of a float type in kLINEAR, whose inputs have the
//! output's type, format and rank, each extent the output's or the constant 1.
std::optional<PointwiseStep> pointwiseStep(EngineModel const& model, LayerRecord const& layer)
{
    PointwiseStep step;
    std::size_t arity = 1;
    if (auto const* e = std::get_if<ElementWiseParams>(&layer.params))
    {
        step.kind = PointwiseStep::Kind::kELEMENTWISE;
        step.op = static_cast<int32_t>(e->op);
        arity = 2;
    }
    else if (auto const* u = std::get_if<UnaryParams>(&layer.params))
    {
        step.kind = PointwiseStep::Kind::kUNARY;
        step.op = static_cast<int32_t>(u->op);
    }
    else if (auto const* a = std::get_if<ActivationParams>(&layer.params))
    {
        step.kind = PointwiseStep::Kind::kACTIVATION;
        step.op = static_cast<int32_t>(a->type);
        step.alpha = a->alpha;
        step.beta = a->beta;
    }
    else
    {
        return std::nullopt;
    }
    if (!isPointwiseOp(step.kind, step.op) || layer.inputs.size() != arity || layer.outputs.size() != 1
        || layer.epilogue || !layer.pointwise.empty() || layer.tactic != 0)
    {
        return std::nullopt;
    }
    TensorRecord const& out = model.tensors[static_cast<std::size_t>(layer.outputs[0])];
    if (!pointwiseType(out.type) || out.format != nvinfer1::TensorFormat::kLINEAR)
    {
        return std::nullopt;
    }
    auto const constantOne = [&](uint32_t expr) {
        ExprRecord const& record = model.exprs[expr];
        return record.kind == DimExpr::Kind::kCONSTANT && record.value == 1;
    };
    for (int32_t input : layer.inputs)
    {
        if (input == kNoTensor)
        {
            return std::nullopt;
        }
        TensorRecord const& in = model.tensors[static_cast<std::size_t>(input)];
        if (in.type != out.type || in.format != out.format || in.shape.size() != out.shape.size())
        {
            return std::nullopt;
        }
        for (std::size_t d = 0; d < in.shape.size(); ++d)
        {
            if (in.shape[d] != out.shape[d] && !constantOne(in.shape[d]))
            {
                return std::nullopt;
            }
        }
    }
    return step;
}

//! The layer's fusion into a fused kernel: the layers it absorbs (their assertions move to the fused one), where it
//! runs (an old layer index: every input exists by then) and what it becomes.
struct KernelFusion
{
    int32_t layer{-1};    //!< The layer that holds the fused kernel.
    int32_t position{-1}; //!< The old index it takes in the order.
    std::vector<int32_t> absorbed;
    std::vector<int32_t> inputs;
    int32_t output{kNoTensor};
    FusedKernel kernel;
};

//! Applies fusions (disjoint sets of layers) to model; returns the layers removed.
int32_t applyKernelFusions(EngineModel& model, std::vector<KernelFusion> const& fusions)
{
    if (fusions.empty())
    {
        return 0;
    }
    std::size_t const nbLayers = model.layers.size();
    std::vector<int32_t> movedTo(nbLayers, -1);
    std::vector<int32_t> placedAt(nbLayers, -1); // Old position -> the fused layer that runs there.
    std::vector<bool> skipped(nbLayers, false);
    for (KernelFusion const& fusion : fusions)
    {
        LayerRecord& layer = model.layers[static_cast<std::size_t>(fusion.layer)];
        model.tensors[static_cast<std::size_t>(layer.outputs.front())].producer = -1;
        layer.inputs = fusion.inputs;
        layer.outputs = {fusion.output};
        layer.fused = fusion.kernel;
        for (int32_t absorbed : fusion.absorbed)
        {
            movedTo[static_cast<std::size_t>(absorbed)] = fusion.layer;
            skipped[static_cast<std::size_t>(absorbed)] = true;
        }
        skipped[static_cast<std::size_t>(fusion.layer)] = true;
        placedAt[static_cast<std::size_t>(fusion.position)] = fusion.layer;
    }
    std::vector<int32_t> sequence;
    for (std::size_t l = 0; l < nbLayers; ++l)
    {
        if (placedAt[l] >= 0)
        {
            sequence.push_back(placedAt[l]);
        }
        if (!skipped[l])
        {
            sequence.push_back(static_cast<int32_t>(l));
        }
    }
    auto const removed = static_cast<int32_t>(nbLayers - sequence.size());
    keepLayers(model, sequence, movedTo);
    return removed;
}

//! Whether tensor is a layer norm's gamma or beta for x: x's type, rank and last extent, 1 on every other axis.
bool affineVector(EngineModel const& model, int32_t tensor, TensorRecord const& x)
{
    TensorRecord const& t = tensorAt(model, tensor);
    if (t.type != x.type || t.format != nvinfer1::TensorFormat::kLINEAR || t.shape.size() != x.shape.size())
    {
        return false;
    }
    for (std::size_t d = 0; d + 1 < t.shape.size(); ++d)
    {
        if (constantExtent(model, t.shape[d]) != 1)
        {
            return false;
        }
    }
    return sameExtent(model, t.shape.back(), x.shape.back());
}

//! The layer norm that starts at layer l (the mean), built from primitive layers as
//!     mean = avg(x); c = x - mean; var = avg(c * c); y = c / sqrt(var + eps) [* gamma [+ beta]]
//! (or c * recip(sqrt(var + eps)), in either order)
//! with every average over the last axis (keeping it), eps a one-element constant, gamma and beta affine vectors.
std::optional<KernelFusion> matchLayerNorm(EngineModel const& model, Readers const& readers, int32_t l)
{
    LayerRecord const& mean = layerAt(model, l);
    auto const* reduce = std::get_if<ReduceParams>(&mean.params);
    if (reduce == nullptr || !plainLayer(mean) || mean.inputs.size() != 1)
    {
        return std::nullopt;
    }
    int32_t const x = mean.inputs[0];
    TensorRecord const& input = tensorAt(model, x);
    std::size_t const rank = input.shape.size();
    auto const lastAxisAverage = [&](ReduceParams const& params) {
        return params.op == nvinfer1::ReduceOperation::kAVG && params.keepDimensions
            && params.axes == (1U << (rank - 1));
    };
    if (rank == 0 || rank > 32 || !pointwiseType(input.type) || input.format != nvinfer1::TensorFormat::kLINEAR
        || !lastAxisAverage(*reduce))
    {
        return std::nullopt;
    }
    // Every tensor of the pattern has x's type (and the result x's shape).
    auto const typed = [&](int32_t tensor) {
        TensorRecord const& t = tensorAt(model, tensor);
        return t.type == input.type && t.format == nvinfer1::TensorFormat::kLINEAR;
    };
    auto const next = [&](int32_t tensor) { return typed(tensor) ? soleReader(readers, tensor) : -1; };
    int32_t const sub = next(mean.outputs[0]);
    if (sub < 0 || elementWiseOp(layerAt(model, sub)) != nvinfer1::ElementWiseOperation::kSUB
        || layerAt(model, sub).inputs != std::vector<int32_t>{x, mean.outputs[0]})
    {
        return std::nullopt;
    }
    int32_t const centered = layerAt(model, sub).outputs[0];
    auto const c = static_cast<std::size_t>(centered);
    // Its readers: the square (which lists it twice) and the division.
    std::vector<int32_t> centeredReaders = readers.layers[c];
    std::sort(centeredReaders.begin(), centeredReaders.end());
    centeredReaders.erase(std::unique(centeredReaders.begin(), centeredReaders.end()), centeredReaders.end());
    if (!typed(centered) || readers.pinned[c] || centeredReaders.size() != 2)
    {
        return std::nullopt;
    }
    int32_t square = -1;
    int32_t divide = -1;
    for (int32_t reader : centeredReaders)
    {
        std::optional<nvinfer1::ElementWiseOperation> const op = elementWiseOp(layerAt(model, reader));
        if (op == nvinfer1::ElementWiseOperation::kPROD
            && layerAt(model, reader).inputs == std::vector<int32_t>{centered, centered})
        {
            square = reader;
        }
        else if ((op == nvinfer1::ElementWiseOperation::kDIV && layerAt(model, reader).inputs[0] == centered)
            || op == nvinfer1::ElementWiseOperation::kPROD)
        {
            divide = reader; // c / deviation, or c * (1 / deviation) in either order.
        }
    }
    if (square < 0 || divide < 0)
    {
        return std::nullopt;
    }
    int32_t const variance = next(layerAt(model, square).outputs[0]);
    auto const* varianceParams = variance < 0 ? nullptr : std::get_if<ReduceParams>(&layerAt(model, variance).params);
    if (varianceParams == nullptr || !plainLayer(layerAt(model, variance)) || !lastAxisAverage(*varianceParams))
    {
        return std::nullopt;
    }
    int32_t const addEpsilon = next(layerAt(model, variance).outputs[0]);
    if (addEpsilon < 0 || elementWiseOp(layerAt(model, addEpsilon)) != nvinfer1::ElementWiseOperation::kSUM)
    {
        return std::nullopt;
    }
    std::vector<int32_t> const& epsilonInputs = layerAt(model, addEpsilon).inputs;
    int32_t const varianceTensor = layerAt(model, variance).outputs[0];
    int32_t const epsilonTensor = epsilonInputs[0] == varianceTensor ? epsilonInputs[1] : epsilonInputs[0];
    std::optional<float> const epsilon = scalarConstant(model, epsilonTensor);
    if (!epsilon || epsilonTensor == varianceTensor || !std::isfinite(*epsilon) || *epsilon < 0.F)
    {
        return std::nullopt;
    }
    auto const unaryLayer = [&](int32_t layer, nvinfer1::UnaryOperation op) {
        auto const* unary = layer < 0 ? nullptr : std::get_if<UnaryParams>(&layerAt(model, layer).params);
        return unary != nullptr && unary->op == op && plainLayer(layerAt(model, layer));
    };
    int32_t const root = next(layerAt(model, addEpsilon).outputs[0]);
    if (!unaryLayer(root, nvinfer1::UnaryOperation::kSQRT))
    {
        return std::nullopt;
    }
    // c / deviation, or c * recip(deviation) (the ONNX parser's LayerNormalization).
    std::vector<int32_t> absorbed{sub, square, variance, addEpsilon, root};
    int32_t deviation = layerAt(model, root).outputs[0];
    bool const divides = elementWiseOp(layerAt(model, divide)) == nvinfer1::ElementWiseOperation::kDIV;
    if (!divides)
    {
        int32_t const reciprocal = next(deviation);
        if (!unaryLayer(reciprocal, nvinfer1::UnaryOperation::kRECIP))
        {
            return std::nullopt;
        }
        absorbed.push_back(reciprocal);
        deviation = layerAt(model, reciprocal).outputs[0];
    }
    std::vector<int32_t> const& normalizing = layerAt(model, divide).inputs;
    bool const reads = divides ? normalizing[1] == deviation
                               : (normalizing == std::vector<int32_t>{centered, deviation}
                                   || normalizing == std::vector<int32_t>{deviation, centered});
    if (next(deviation) != divide || !reads)
    {
        return std::nullopt;
    }
    absorbed.push_back(divide);
    KernelFusion fusion;
    fusion.layer = l;
    fusion.absorbed = std::move(absorbed);
    fusion.inputs = {x};
    fusion.kernel = FusedKernel{FusedKernel::Kind::kLAYER_NORM, *epsilon, 0, 1.F};
    int32_t last = divide;
    // * gamma, then + beta.
    for (auto const op : {nvinfer1::ElementWiseOperation::kPROD, nvinfer1::ElementWiseOperation::kSUM})
    {
        int32_t const result = layerAt(model, last).outputs[0];
        int32_t const affine = next(result);
        if (affine < 0 || elementWiseOp(layerAt(model, affine)) != op)
        {
            break;
        }
        std::vector<int32_t> const& operands = layerAt(model, affine).inputs;
        int32_t const vector = operands[0] == result ? operands[1] : operands[0];
        if (vector == result || !affineVector(model, vector, input))
        {
            break;
        }
        fusion.inputs.push_back(vector);
        fusion.absorbed.push_back(affine);
        last = affine;
    }
    fusion.output = layerAt(model, last).outputs[0];
    if (!sameTensorShape(tensorAt(model, fusion.output), input))
    {
        return std::nullopt;
    }
    fusion.position = last;
    return fusion;
}

//! Whether a plain shuffle layer with one input of rank inputRank transposes and reshapes as given: first the
//! transpose first (or none), then a reshape to rank reshapeRank, then the transpose second (or none).
bool shuffleIs(LayerRecord const& layer, int32_t inputRank, std::optional<std::array<int32_t, 4>> first,
    int32_t reshapeRank, std::optional<std::array<int32_t, 4>> second)
{
    auto const* params = std::get_if<ShuffleParams>(&layer.params);
    if (params == nullptr || !plainLayer(layer) || layer.inputs.size() != 1 || params->reshape.nbDims != reshapeRank)
    {
        return false;
    }
    // A permutation's entries past the rank it applies to are not read (applications often leave them 0).
    auto const matches
        = [](nvinfer1::Permutation const& permutation, std::optional<std::array<int32_t, 4>> wanted, int32_t rank) {
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

//! Whether a plain shuffle layer with one input of rank 4 only transposes, by swap (as its first or its second
//! transpose, the other one the identity, no reshape).
bool transposeOnly(LayerRecord const& layer, std::array<int32_t, 4> const& swap)
{
    auto const* params = std::get_if<ShuffleParams>(&layer.params);
    if (params == nullptr || params->reshape.nbDims != kUnsetDims.nbDims)
    {
        return false;
    }
    auto const is = [](nvinfer1::Permutation const& permutation, std::array<int32_t, 4> const& order) {
        return std::equal(order.begin(), order.end(), permutation.order);
    };
    constexpr std::array<int32_t, 4> kIdentity{0, 1, 2, 3};
    return plainLayer(layer) && layer.inputs.size() == 1
        && ((is(params->firstTranspose, swap) && is(params->secondTranspose, kIdentity))
            || (is(params->firstTranspose, kIdentity) && is(params->secondTranspose, swap)));
}

//! The layers that split heads into tensor t4 ([B, H, S, D]) and the tensor they split ([B, S, H * D]): one shuffle
//! that reshapes and transposes, or a reshape then a transpose (the ONNX parser's Reshape and Transpose).
std::optional<std::pair<int32_t, std::vector<int32_t>>> headSplit(
    EngineModel const& model, Readers const& readers, int32_t t4, std::array<int32_t, 4> const& swap)
{
    int32_t const split = producerOf(model, t4);
    if (split < 0)
    {
        return std::nullopt;
    }
    LayerRecord const& layer = layerAt(model, split);
    if (shuffleIs(layer, 3, std::nullopt, 4, swap))
    {
        return std::pair{layer.inputs[0], std::vector<int32_t>{split}};
    }
    if (!transposeOnly(layer, swap))
    {
        return std::nullopt;
    }
    int32_t const reshape = producerOf(model, layer.inputs[0]);
    if (reshape < 0 || soleReader(readers, layer.inputs[0]) != split
        || !shuffleIs(layerAt(model, reshape), 3, std::nullopt, 4, std::nullopt))
    {
        return std::nullopt;
    }
    return std::pair{layerAt(model, reshape).inputs[0], std::vector<int32_t>{split, reshape}};
}

//! The layers that merge the heads of tensor t4 ([B, H, S, D]) and the tensor they make ([B, S, H * D]): one shuffle,
//! or a transpose then a reshape.
std::optional<std::pair<int32_t, std::vector<int32_t>>> headMerge(
    EngineModel const& model, Readers const& readers, int32_t t4, std::array<int32_t, 4> const& swap)
{
    int32_t const merge = soleReader(readers, t4);
    if (merge < 0)
    {
        return std::nullopt;
    }
    LayerRecord const& layer = layerAt(model, merge);
    if (shuffleIs(layer, 4, swap, 3, std::nullopt))
    {
        return std::pair{layer.outputs[0], std::vector<int32_t>{merge}};
    }
    if (!transposeOnly(layer, swap))
    {
        return std::nullopt;
    }
    int32_t const reshape = soleReader(readers, layer.outputs[0]);
    if (reshape < 0 || !shuffleIs(layerAt(model, reshape), 4, std::nullopt, 3, std::nullopt))
    {
        return std::nullopt;
    }
    return std::pair{layerAt(model, reshape).outputs[0], std::vector<int32_t>{merge, reshape}};
}

//! Attention whose softmax is layer l, built from primitive layers as
//!     q4 = split(q); k4 = split(k); v4 = split(v);           split: [B, S, H * D] -> reshape [B, S, H, D] -> {0, 2, 1,
//!     3} out = merge(softmax(scale * q4 k4^T) v4)               merge: {0, 2, 1, 3} -> reshape [B, S, H * D]
//! with the softmax over the last axis and scale the scores' product scale (fuseEpilogues folded it).
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
    auto const product = [&](int32_t layer, nvinfer1::MatrixOperation second) {
        if (layer < 0)
        {
            return false;
        }
        LayerRecord const& record = layerAt(model, layer);
        auto const* params = std::get_if<MatrixMultiplyParams>(&record.params);
        return params != nullptr && !record.fused && record.pointwise.empty() && !record.epilogue && record.tactic == 0
            && record.outputs.size() == 1 && record.inputs.size() == 2
            && params->ops[0] == nvinfer1::MatrixOperation::kNONE && params->ops[1] == second;
    };
    int32_t const scores = producerOf(model, softmax.inputs[0]);
    if (!pointwiseType(type) || scoresTensor.shape.size() != 4 || !typed(softmax.inputs[0])
        || !product(scores, nvinfer1::MatrixOperation::kTRANSPOSE) || soleReader(readers, softmax.inputs[0]) != l
        || !std::isfinite(layerAt(model, scores).scale))
    {
        return std::nullopt;
    }
    int32_t const context = typed(softmax.outputs[0]) ? soleReader(readers, softmax.outputs[0]) : -1;
    if (!product(context, nvinfer1::MatrixOperation::kNONE) || layerAt(model, context).inputs[0] != softmax.outputs[0]
        || layerAt(model, context).scale != 1.F)
    {
        return std::nullopt;
    }
    constexpr std::array<int32_t, 4> kSwap{0, 2, 1, 3};
    int32_t const contextTensor = layerAt(model, context).outputs[0];
    auto const merged = typed(contextTensor) ? headMerge(model, readers, contextTensor, kSwap) : std::nullopt;
    if (!merged || !typed(merged->first))
    {
        return std::nullopt;
    }
    // The three head splits, each read by its product alone.
    int32_t const q4 = layerAt(model, scores).inputs[0];
    int32_t const k4 = layerAt(model, scores).inputs[1];
    int32_t const v4 = layerAt(model, context).inputs[1];
    std::array<int32_t, 3> flats{};
    std::vector<int32_t> absorbed;
    std::array<int32_t, 3> const heads{q4, k4, v4};
    std::array<int32_t, 3> const readerOf{scores, scores, context};
    for (std::size_t i = 0; i < 3; ++i)
    {
        auto const split = typed(heads[i]) && soleReader(readers, heads[i]) == readerOf[i]
            ? headSplit(model, readers, heads[i], kSwap)
            : std::nullopt;
        if (!split || !typed(split->first))
        {
            return std::nullopt;
        }
        for (int32_t layer : split->second)
        {
            if (std::find(absorbed.begin(), absorbed.end(), layer) != absorbed.end())
            {
                return std::nullopt; // Two of q, k and v split by one layer.
            }
            absorbed.push_back(layer);
        }
        flats[i] = split->first;
    }
    if (q4 == k4)
    {
        return std::nullopt;
    }
    // Shapes: q4 [B, H, Sq, D], k4 and v4 [B, H, Skv, D]; the flat tensors [B, S, H * D]; the output [B, Sq, H * D].
    std::vector<uint32_t> const& q = tensorAt(model, q4).shape;
    std::optional<int64_t> const nbHeads = constantExtent(model, q[1]);
    std::optional<int64_t> const headSize = constantExtent(model, q[3]);
    if (!nbHeads || !headSize || *nbHeads < 1 || *nbHeads > 65535 || !fusedAttentionHeadSize(*headSize))
    {
        return std::nullopt;
    }
    std::vector<uint32_t> const& k = tensorAt(model, k4).shape;
    std::vector<uint32_t> const& v = tensorAt(model, v4).shape;
    for (std::vector<uint32_t> const* shape : {&k, &v})
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
    int32_t const output = merged->first;
    if (!flat(flats[0], q[2]) || !flat(flats[1], k[2]) || !flat(flats[2], v[2]) || !flat(output, q[2]))
    {
        return std::nullopt;
    }
    KernelFusion fusion;
    fusion.layer = context;
    fusion.position = context;
    absorbed.insert(absorbed.end(), {scores, l});
    absorbed.insert(absorbed.end(), merged->second.begin(), merged->second.end());
    fusion.absorbed = std::move(absorbed);
    fusion.inputs = {flats[0], flats[1], flats[2]};
    fusion.output = output;
    fusion.kernel
        = FusedKernel{FusedKernel::Kind::kATTENTION, 0.F, static_cast<int32_t>(*nbHeads), layerAt(model, scores).scale};
    return fusion;
}

} // namespace

int32_t fuseEpilogues(EngineModel& model)
{
    Readers const readers = readersOf(model);
    std::vector<int32_t> absorbedInto(model.layers.size(), -1);
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        LayerRecord& layer = model.layers[l];
        bool const matrix = layer.type == LayerType::kMATRIX_MULTIPLY;
        if ((!matrix && layer.type != LayerType::kCONVOLUTION) || layer.outputs.size() != 1 || absorbedInto[l] >= 0)
        {
            continue;
        }
        auto const absorb = [&](int32_t next) {
            absorbedInto[static_cast<std::size_t>(next)] = static_cast<int32_t>(l);
            model.tensors[static_cast<std::size_t>(layer.outputs[0])].producer = -1;
            layer.outputs = model.layers[static_cast<std::size_t>(next)].outputs;
        };
        // The element-wise layer that is the sole reader of the layer's result, with the other operand, when it has
        // two inputs and makes a tensor like the result.
        struct Operation
        {
            int32_t layer{-1};
            nvinfer1::ElementWiseOperation op{};
            int32_t other{kNoTensor};
        };
        auto const nextElementWise = [&]() -> std::optional<Operation> {
            int32_t const product = layer.outputs[0];
            int32_t const next = soleReader(readers, product);
            if (next < 0)
            {
                return std::nullopt;
            }
            LayerRecord const& sum = model.layers[static_cast<std::size_t>(next)];
            auto const* params = std::get_if<ElementWiseParams>(&sum.params);
            if (params == nullptr || sum.inputs.size() != 2 || sum.outputs.size() != 1
                || !sameTensorShape(model.tensors[static_cast<std::size_t>(product)],
                    model.tensors[static_cast<std::size_t>(sum.outputs[0])]))
            {
                return std::nullopt;
            }
            int32_t const other = sum.inputs[0] == product ? sum.inputs[1] : sum.inputs[0];
            if (other == product || other == kNoTensor)
            {
                return std::nullopt;
            }
            return Operation{next, params->op, other};
        };
        if (matrix && layer.inputs.size() == 2
            && !scaled(model.tensors[static_cast<std::size_t>(layer.outputs[0])].type))
        {
            // Matrix multiply times a scalar constant, or divided by one (the ONNX exporters' scores / sqrt(d)):
            // cuBLASLt's alpha.
            if (std::optional<Operation> const next = nextElementWise(); next
                && (next->op == nvinfer1::ElementWiseOperation::kPROD
                    || (next->op == nvinfer1::ElementWiseOperation::kDIV
                        && model.layers[static_cast<std::size_t>(next->layer)].inputs[0] == layer.outputs[0])))
            {
                std::optional<float> const factor = scalarConstant(model, next->other);
                bool const divides = next->op == nvinfer1::ElementWiseOperation::kDIV;
                if (factor && (!divides || (*factor != 0.F && std::isfinite(1.F / *factor))))
                {
                    layer.scale *= divides ? 1.F / *factor : *factor;
                    absorb(next->layer);
                }
            }
            // + bias (broadcast: the third input) and + residual (the result's shape: the fourth), in either order.
            for (int32_t round = 0; round < 2; ++round)
            {
                std::optional<Operation> const next = nextElementWise();
                if (!next || next->op != nvinfer1::ElementWiseOperation::kSUM)
                {
                    break;
                }
                TensorRecord const& out = model.tensors[static_cast<std::size_t>(layer.outputs[0])];
                TensorRecord const& addend = model.tensors[static_cast<std::size_t>(next->other)];
                // The addend must exist when the matrix multiply runs: made before it, or (a bias) by a layer without
                // inputs (a constant), which the renumbering below moves before it.
                int32_t const producer = addend.producer;
                bool const before = producer < static_cast<int32_t>(l);
                bool const constant = !before && model.layers[static_cast<std::size_t>(producer)].inputs.empty();
                if (addend.type != out.type || addend.format != nvinfer1::TensorFormat::kLINEAR)
                {
                    break;
                }
                bool const hasBias = layer.inputs.size() > 2 && layer.inputs[2] != kNoTensor;
                bool const hasResidual = layer.inputs.size() > 3;
                if (sameTensorShape(addend, out) && !hasResidual && before)
                {
                    layer.inputs.resize(4, kNoTensor);
                    layer.inputs[3] = next->other;
                }
                else if (!hasBias && !hasResidual && (before || constant))
                {
                    layer.inputs.resize(3, kNoTensor);
                    layer.inputs[2] = next->other;
                }
                else
                {
                    break;
                }
                absorb(next->layer);
            }
        }
        // + activation.
        int32_t const next = soleReader(readers, layer.outputs[0]);
        if (next >= 0)
        {
            LayerRecord const& activation = model.layers[static_cast<std::size_t>(next)];
            auto const* params = std::get_if<ActivationParams>(&activation.params);
            if (params != nullptr && activation.outputs.size() == 1
                && sameTensorShape(model.tensors[static_cast<std::size_t>(layer.outputs[0])],
                    model.tensors[static_cast<std::size_t>(activation.outputs[0])])
                && !scaled(model.tensors[static_cast<std::size_t>(layer.outputs[0])].type))
            {
                layer.epilogue = *params;
                absorb(next);
            }
        }
    }

    // The new order: the layers kept, each fused bias made by a layer without inputs (a constant) moved to just before
    // the matrix multiply that now reads it, if it came after.
    std::vector<int32_t> sequence;
    std::vector<bool> placed(model.layers.size(), false);
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        if (absorbedInto[l] >= 0 || placed[l])
        {
            continue;
        }
        LayerRecord const& layer = model.layers[l];
        if (layer.type == LayerType::kMATRIX_MULTIPLY && layer.inputs.size() > 2 && layer.inputs[2] != kNoTensor)
        {
            int32_t const producer = model.tensors[static_cast<std::size_t>(layer.inputs[2])].producer;
            if (producer > static_cast<int32_t>(l) && !placed[static_cast<std::size_t>(producer)]
                && model.layers[static_cast<std::size_t>(producer)].inputs.empty())
            {
                sequence.push_back(producer);
                placed[static_cast<std::size_t>(producer)] = true;
            }
        }
        sequence.push_back(static_cast<int32_t>(l));
        placed[l] = true;
    }
    auto const removed = static_cast<int32_t>(model.layers.size() - sequence.size());
    bool const moved = !std::is_sorted(sequence.begin(), sequence.end());
    if (removed == 0 && !moved)
    {
        return 0;
    }
    keepLayers(model, sequence, absorbedInto);
    return removed;
}

int32_t fusePointwise(EngineModel& model)
{
    Readers const readers = readersOf(model);
    std::size_t const nbLayers = model.layers.size();
    std::vector<std::optional<PointwiseStep>> steps(nbLayers);
    for (std::size_t l = 0; l < nbLayers; ++l)
    {
        steps[l] = pointwiseStep(model, model.layers[l]);
    }
    // A point-wise layer is inlined into its readers when they are all point-wise layers and nothing else reads its
    // result (it is then computed by each program that reads it, never stored).
    std::vector<bool> inlined(nbLayers, false);
    for (std::size_t l = 0; l < nbLayers; ++l)
    {
        if (!steps[l])
        {
            continue;
        }
        auto const out = static_cast<std::size_t>(model.layers[l].outputs[0]);
        std::vector<int32_t> const& readersOfOut = readers.layers[out];
        inlined[l] = !readers.pinned[out] && !readersOfOut.empty()
            && std::all_of(readersOfOut.begin(), readersOfOut.end(),
                [&](int32_t reader) { return steps[static_cast<std::size_t>(reader)].has_value(); });
    }

    // The program of each root (a point-wise layer that is not inlined): its steps and its inputs. When a program is
    // over the limits, one of its inlined layers is stored instead and every program is made again.
    struct Program
    {
        std::vector<PointwiseStep> steps;
        std::vector<int32_t> inputs;
        std::vector<int32_t> layers; //!< The inlined layers it computes.
    };
    std::vector<Program> programs(nbLayers);
    bool again = true;
    while (again)
    {
        again = false;
        for (std::size_t root = 0; root < nbLayers && !again; ++root)
        {
            if (!steps[root] || inlined[root])
            {
                continue;
            }
            Program program;
            std::map<int32_t, int32_t> emitted; // Layer -> operand.
            auto const emit = [&](auto const& self, int32_t l) -> int32_t {
                if (auto const found = emitted.find(l); found != emitted.end())
                {
                    return found->second;
                }
                LayerRecord const& layer = model.layers[static_cast<std::size_t>(l)];
                std::vector<int32_t> operands;
                for (int32_t input : layer.inputs)
                {
                    int32_t const producer = model.tensors[static_cast<std::size_t>(input)].producer;
                    if (producer >= 0 && inlined[static_cast<std::size_t>(producer)])
                    {
                        operands.push_back(self(self, producer));
                        continue;
                    }
                    auto const at = std::find(program.inputs.begin(), program.inputs.end(), input);
                    operands.push_back(static_cast<int32_t>(at - program.inputs.begin()));
                    if (at == program.inputs.end())
                    {
                        program.inputs.push_back(input);
                    }
                }
                PointwiseStep step = *steps[static_cast<std::size_t>(l)];
                step.a = operands[0];
                step.b = operands.size() > 1 ? operands[1] : 0;
                program.steps.push_back(step);
                if (l != static_cast<int32_t>(root))
                {
                    program.layers.push_back(l);
                }
                int32_t const operand = pointwiseStepOperand(static_cast<int32_t>(program.steps.size()) - 1);
                emitted.emplace(l, operand);
                return operand;
            };
            emit(emit, static_cast<int32_t>(root));
            if (program.steps.size() > kMaxPointwiseSteps || program.inputs.size() > kMaxPointwiseInputs)
            {
                // Store one inlined layer instead: the one after which the root's last kMaxPointwiseSteps - 1 steps
                // were made (over the step limit), or the middle one (over the input limit).
                std::size_t const cut = program.steps.size() > kMaxPointwiseSteps
                    ? program.steps.size() - kMaxPointwiseSteps
                    : program.layers.size() / 2;
                inlined[static_cast<std::size_t>(program.layers[std::min(cut, program.layers.size() - 1)])] = false;
                again = true;
                continue;
            }
            programs[root] = std::move(program);
        }
    }

    std::vector<int32_t> movedTo(nbLayers, -1);
    std::vector<int32_t> sequence;
    for (std::size_t l = 0; l < nbLayers; ++l)
    {
        Program& program = programs[l];
        if (!program.layers.empty())
        {
            for (int32_t absorbed : program.layers)
            {
                if (movedTo[static_cast<std::size_t>(absorbed)] < 0)
                {
                    movedTo[static_cast<std::size_t>(absorbed)] = static_cast<int32_t>(l);
                }
            }
            model.layers[l].inputs = std::move(program.inputs);
            model.layers[l].pointwise = std::move(program.steps);
        }
        if (!inlined[l])
        {
            sequence.push_back(static_cast<int32_t>(l));
        }
    }
    auto const removed = static_cast<int32_t>(nbLayers - sequence.size());
    if (removed > 0)
    {
        keepLayers(model, sequence, movedTo);
    }
    return removed;
}

int32_t removeUnreadConstants(EngineModel& model)
{
    Readers const readers = readersOf(model);
    std::vector<int32_t> sequence;
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        LayerRecord const& layer = model.layers[l];
        bool const unread = std::holds_alternative<ConstantParams>(layer.params)
            && std::all_of(layer.outputs.begin(), layer.outputs.end(), [&](int32_t output) {
                   auto const t = static_cast<std::size_t>(output);
                   return !readers.pinned[t] && readers.layers[t].empty();
               });
        if (!unread)
        {
            sequence.push_back(static_cast<int32_t>(l));
        }
    }
    auto const removed = static_cast<int32_t>(model.layers.size() - sequence.size());
    if (removed > 0)
    {
        keepLayers(model, sequence, std::vector<int32_t>(model.layers.size(), -1));
    }
    return removed;
}

int32_t fuseLayerNorms(EngineModel& model)
{
    Readers const readers = readersOf(model);
    std::vector<KernelFusion> fusions;
    std::vector<bool> taken(model.layers.size(), false);
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        if (taken[l])
        {
            continue;
        }
        if (std::optional<KernelFusion> fusion = matchLayerNorm(model, readers, static_cast<int32_t>(l)))
        {
            taken[l] = true;
            for (int32_t absorbed : fusion->absorbed)
            {
                taken[static_cast<std::size_t>(absorbed)] = true;
            }
            fusions.push_back(std::move(*fusion));
        }
    }
    return applyKernelFusions(model, fusions);
}

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
