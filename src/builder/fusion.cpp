// SPDX-License-Identifier: Apache-2.0
#include "builder/fusion.h"
#include "builder/fusion_graph.h"
#include "network/layer_kinds.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <vector>

namespace kiln
{
namespace
{

//! Whether a layer of this kind only computes its outputs (no effect besides them, no role in a loop or a
//! conditional): one whose outputs nothing reads may go. Plugins are kept (their enqueue may do more than write).
bool removableKind(LayerType type)
{
    return !isLoopOrConditionalBoundary(type) && type != LayerType::kASSERTION && type != LayerType::kPLUGIN
        && type != LayerType::kPLUGIN_V2 && type != LayerType::kPLUGIN_V3;
}

//! The step a point-wise layer computes (operands unset), when the layer can join a fused program: an arithmetic
//! element-wise, float unary or activation layer with one output of a float type in kLINEAR, whose inputs have the
//! output's type, format and rank, each extent the output's, the constant 1, or one known only at run time.
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
        // Extents of different symbols (BERT's word and token embeddings, one batch extent per input) are the
        // output's or 1 at run time: the network's broadcast rule asserts it (network/shape_rules.cpp), and the
        // program's kernels map each input by the extents it has when it runs.
        for (std::size_t d = 0; d < in.shape.size(); ++d)
        {
            bool const bothConstant = model.exprs[in.shape[d]].kind == DimExpr::Kind::kCONSTANT
                && model.exprs[out.shape[d]].kind == DimExpr::Kind::kCONSTANT;
            if (in.shape[d] != out.shape[d] && !constantOne(in.shape[d]) && bothConstant)
            {
                return std::nullopt;
            }
        }
    }
    return step;
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

int32_t removeUnreadLayers(EngineModel& model)
{
    std::optional<std::vector<uint8_t>> const fixed = fixedLayers(model);
    if (!fixed)
    {
        return 0; // Refused later, with the loop named.
    }
    Readers const readers = readersOf(model);
    std::vector<int32_t> liveReaders(model.tensors.size(), 0);
    for (std::size_t t = 0; t < model.tensors.size(); ++t)
    {
        liveReaders[t] = static_cast<int32_t>(readers.layers[t].size());
    }
    // Readers come after the layers they read: from the last layer back, a layer is decided after all its readers.
    std::vector<uint8_t> removed(model.layers.size(), 0);
    for (std::size_t l = model.layers.size(); l-- > 0;)
    {
        LayerRecord const& layer = model.layers[l];
        bool const unread = !layer.outputs.empty() && fixed.value()[l] == 0 && removableKind(layer.type)
            && std::all_of(layer.outputs.begin(), layer.outputs.end(), [&](int32_t output) {
                   auto const t = static_cast<std::size_t>(output);
                   return !readers.pinned[t] && liveReaders[t] == 0;
               });
        if (!unread)
        {
            continue;
        }
        removed[l] = 1;
        for (int32_t input : layer.inputs)
        {
            if (input != kNoTensor)
            {
                --liveReaders[static_cast<std::size_t>(input)];
            }
        }
    }
    std::vector<int32_t> sequence;
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        if (removed[l] == 0)
        {
            sequence.push_back(static_cast<int32_t>(l));
        }
    }
    auto const count = static_cast<int32_t>(model.layers.size() - sequence.size());
    if (count > 0)
    {
        keepLayers(model, sequence, std::vector<int32_t>(model.layers.size(), -1));
    }
    return count;
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

} // namespace kiln
