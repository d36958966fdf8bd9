// SPDX-License-Identifier: Apache-2.0
#include "builder/fusion.h"

#include "core/data_type.h"
#include "core/float_convert.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <vector>

namespace kiln
{
namespace
{

//! Who reads each tensor: layers (by index), network outputs, symbols.
struct Readers
{
    std::vector<std::vector<int32_t>> layers;
    std::vector<bool> pinned; //!< A network output, or read by a symbol.
};

Readers readersOf(EngineModel const& model)
{
    Readers readers;
    readers.layers.resize(model.tensors.size());
    readers.pinned.assign(model.tensors.size(), false);
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        for (int32_t input : model.layers[l].inputs)
        {
            if (input != kNoTensor)
            {
                readers.layers[static_cast<std::size_t>(input)].push_back(static_cast<int32_t>(l));
            }
        }
    }
    for (std::size_t t = 0; t < model.tensors.size(); ++t)
    {
        readers.pinned[t] = model.tensors[t].isOutput || model.tensors[t].isInput;
    }
    for (SymbolRecord const& symbol : model.symbols)
    {
        if (symbol.tensor != kNoTensor)
        {
            readers.pinned[static_cast<std::size_t>(symbol.tensor)] = true;
        }
    }
    return readers;
}

//! The one layer that reads tensor, when nothing else does; -1 otherwise.
int32_t soleReader(Readers const& readers, int32_t tensor)
{
    auto const t = static_cast<std::size_t>(tensor);
    if (readers.pinned[t] || readers.layers[t].size() != 1)
    {
        return -1;
    }
    return readers.layers[t].front();
}

//! Whether two tensors have the same type, scale, format and shape expressions.
bool sameTensorShape(TensorRecord const& a, TensorRecord const& b)
{
    return a.type == b.type && a.scale == b.scale && a.format == b.format && a.shape == b.shape;
}

//! Whether a type's values are stored quantized (an epilogue would skip the intermediate quantization).
bool scaled(DataType type)
{
    return type == DataType::kINT8 || type == DataType::kFP8;
}

//! Whether a type's values are one of the float types a fused point-wise program computes.
bool pointwiseType(DataType type)
{
    return type == DataType::kFLOAT || type == DataType::kHALF || type == DataType::kBF16;
}

//! The value of a tensor made by a constant layer of one float element; nullopt for any other tensor.
std::optional<float> scalarConstant(EngineModel const& model, int32_t tensor)
{
    int32_t const producer = model.tensors[static_cast<std::size_t>(tensor)].producer;
    if (producer < 0)
    {
        return std::nullopt;
    }
    auto const* constant = std::get_if<ConstantParams>(&model.layers[static_cast<std::size_t>(producer)].params);
    if (constant == nullptr || constant->weights.count != 1 || constant->weights.values == nullptr)
    {
        return std::nullopt;
    }
    switch (constant->weights.type)
    {
    case DataType::kFLOAT:
    {
        float value{};
        std::memcpy(&value, constant->weights.values, sizeof(value));
        return value;
    }
    case DataType::kHALF:
    case DataType::kBF16:
    {
        uint16_t bits{};
        std::memcpy(&bits, constant->weights.values, sizeof(bits));
        return constant->weights.type == DataType::kHALF ? halfToFloat(bits) : bf16ToFloat(bits);
    }
    default: return std::nullopt;
    }
}

//! Keeps the layers of sequence, in that order (old indices); every other layer is removed. The tensors that only
//! removed layers made are left unmade (producer -1); the assertions of a removed layer l move to movedTo[l] (an old
//! index, or -1 for none).
void keepLayers(EngineModel& model, std::vector<int32_t> const& sequence, std::vector<int32_t> const& movedTo)
{
    std::vector<int32_t> newIndex(model.layers.size(), -1);
    std::vector<LayerRecord> kept;
    kept.reserve(sequence.size());
    for (int32_t old : sequence)
    {
        newIndex[static_cast<std::size_t>(old)] = static_cast<int32_t>(kept.size());
        kept.push_back(std::move(model.layers[static_cast<std::size_t>(old)]));
    }
    auto const renumber = [&](int32_t layer) {
        if (layer < 0 || static_cast<std::size_t>(layer) >= newIndex.size())
        {
            return layer;
        }
        auto const l = static_cast<std::size_t>(layer);
        if (newIndex[l] >= 0)
        {
            return newIndex[l];
        }
        return movedTo[l] >= 0 ? newIndex[static_cast<std::size_t>(movedTo[l])] : -1;
    };
    model.layers = std::move(kept);
    for (TensorRecord& tensor : model.tensors)
    {
        tensor.producer = -1;
    }
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        for (int32_t output : model.layers[l].outputs)
        {
            model.tensors[static_cast<std::size_t>(output)].producer = static_cast<int32_t>(l);
        }
    }
    for (AssertionRecord& assertion : model.assertions)
    {
        assertion.layer = renumber(assertion.layer);
    }
}

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
            // Matrix multiply times a scalar constant: cuBLASLt's alpha.
            if (std::optional<Operation> const next = nextElementWise();
                next && next->op == nvinfer1::ElementWiseOperation::kPROD)
            {
                if (std::optional<float> const factor = scalarConstant(model, next->other))
                {
                    layer.scale *= *factor;
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

} // namespace kiln
