// SPDX-License-Identifier: Apache-2.0
// EngineProgram (runtime/executor.h): an engine model prepared once, and the binding of input symbols.
#include "runtime/executor.h"

#include "runtime/executor_support.h"
#include "runtime/shape_values.h"

#include "backends/host/layer_kinds.h"
#include "backends/host/reformat.h"
#include "network/layer_kinds.h"
#include "plan/loops.h"
#if KILN_WITH_CUDA
#include "backends/cuda/cuda_backend.h"
#endif

#include <algorithm>
#include <limits>

namespace kiln
{

using namespace executor_detail;
using nvinfer1::Dims;
using nvinfer1::ErrorCode;

namespace
{

//! Why a plan for the CUDA backend cannot run here, or nullopt when it can: no GPU, or a library the backend needs
//! that cannot be loaded (they are opened only where there is a GPU).
std::optional<std::string> cudaBackendUnusable()
{
#if KILN_WITH_CUDA
    if (!cuda::gpuUsable())
    {
        return "no GPU can be used here";
    }
    if (std::optional<Error> missing = cuda::loadBackendLibraries())
    {
        return std::move(missing->message);
    }
    return std::nullopt;
#else
    return "this kiln was built without it";
#endif
}

Error invalid(std::string message)
{
    return failure(ErrorCode::kINVALID_ARGUMENT, std::move(message));
}

//! Activation blocks larger than this many bytes beyond twice what their tensors need are refused at load.
constexpr int64_t kActivationSlack = int64_t{16} << 20;

//! Per tensor, its bytes at a profile's kMAX input shapes and shape values (-1 where not known from the inputs alone:
//! a data-dependent shape); nullopt when the profile's kMAX inputs bind no symbols, or an error naming a tensor whose
//! size does not fit 64 bits.
Expected<std::optional<std::vector<int64_t>>> tensorBytesAtMax(EngineProgram const& program, int32_t profile)
{
    EngineModel const& m = program.model();
    Bindings bindings;
    bindings.profile = profile;
    bindings.shapes.assign(m.ioTensors.size(), Dims{-1, {}});
    bindings.addresses.assign(m.ioTensors.size(), nullptr);
    for (int32_t p = 0; p < m.nbInputs; ++p)
    {
        auto const position = static_cast<std::size_t>(p);
        EngineProgram::ProfileInput const& input = program.profileInput(profile, p);
        bindings.shapes[position] = input.record->max;
        TensorRecord const& tensor = m.tensors[static_cast<std::size_t>(program.ioTensors()[position].tensor)];
        if (tensor.isShapeTensor)
        {
            bindings.addresses[position] = tensor.type == DataType::kINT64
                ? static_cast<void*>(const_cast<int64_t*>(input.record->maxValues.data()))
                : static_cast<void*>(const_cast<int32_t*>(input.values32[2].data()));
        }
    }
    InputState const state = bindInputs(program, bindings);
    if (!state.missing.empty() || state.problem)
    {
        return std::optional<std::vector<int64_t>>{};
    }
    std::vector<int64_t> sizes(m.tensors.size(), -1);
    for (std::size_t t = 0; t < m.tensors.size(); ++t)
    {
        TensorRecord const& tensor = m.tensors[t];
        Dims const shape = program.knownShape(static_cast<int32_t>(t), state.values);
        if (std::any_of(shape.d, shape.d + std::max(shape.nbDims, 0), [](int64_t e) { return e < 0; }))
        {
            continue;
        }
        Expected<int64_t> const bytes = tensor.format == nvinfer1::TensorFormat::kLINEAR
            ? tensorBytes(tensor.type, shape)
            : host::formatBytes(tensor.format, tensor.type, shape);
        if (!bytes)
        {
            return invalid("tensor " + q(tensor.name) + " at optimization profile " + std::to_string(profile)
                + "'s kMAX shapes: " + bytes.error().message);
        }
        sizes[t] = bytes.value();
    }
    return std::optional<std::vector<int64_t>>{std::move(sizes)};
}

//! The bytes of each tensor a profile places in its activation block (-1 for the others), at the profile's kMAX input
//! shapes and shape values, each rounded up to kActivationAlignment; nullopt when some placed tensor's size is not
//! known from the inputs alone (a data-dependent shape), or an error naming the tensor whose size does not fit 64
//! bits.
Expected<std::optional<std::vector<int64_t>>> placedBytesAtMax(EngineProgram const& program, int32_t profile)
{
    EngineModel const& m = program.model();
    auto const sizes = tensorBytesAtMax(program, profile);
    if (!sizes || !sizes.value())
    {
        return sizes;
    }
    ProfileRecord const& record = m.profiles[static_cast<std::size_t>(profile)];
    std::vector<int64_t> placed(record.offsets.size(), -1);
    for (std::size_t t = 0; t < record.offsets.size(); ++t)
    {
        if (record.offsets[t] < 0)
        {
            continue;
        }
        int64_t const bytes = t < sizes.value()->size() ? (*sizes.value())[t] : -1;
        if (bytes < 0)
        {
            return std::optional<std::vector<int64_t>>{};
        }
        if (bytes > std::numeric_limits<int64_t>::max() - kActivationAlignment)
        {
            return invalid("tensor " + q(m.tensors[t].name) + " at optimization profile " + std::to_string(profile)
                + "'s kMAX shapes needs more bytes than a 64-bit size holds");
        }
        placed[t] = (bytes + kActivationAlignment - 1) / kActivationAlignment * kActivationAlignment;
    }
    return std::optional<std::vector<int64_t>>{std::move(placed)};
}

//! Each tensor's first and last steps (layer indices) as the builder's memory plan counts them
//! (builder/build_memory.cpp): from the layer that makes it to the last that reads it, a loop block's tensors over the
//! whole block, a plugin input that an output aliases as long as the output.
std::vector<std::pair<int32_t, int32_t>> tensorLifetimes(EngineModel const& m, Loops const& loops)
{
    std::vector<std::pair<int32_t, int32_t>> life(m.tensors.size());
    for (std::size_t t = 0; t < m.tensors.size(); ++t)
    {
        life[t] = {m.tensors[t].producer, m.tensors[t].producer};
    }
    for (std::size_t l = 0; l < m.layers.size(); ++l)
    {
        for (int32_t input : m.layers[l].inputs)
        {
            if (input != kNoTensor)
            {
                int32_t& last = life[static_cast<std::size_t>(input)].second;
                last = std::max(last, static_cast<int32_t>(l));
            }
        }
    }
    for (LoopBlock const& block : loops.blocks)
    {
        if (block.members.empty())
        {
            continue;
        }
        int32_t const first = std::max(block.members.front(), 0);
        int32_t const last = block.members.back();
        for (int32_t l : block.members)
        {
            LayerRecord const& layer = m.layers[static_cast<std::size_t>(l)];
            for (auto const* list : {&layer.inputs, &layer.outputs})
            {
                for (int32_t t : *list)
                {
                    if (t >= 0)
                    {
                        auto& span = life[static_cast<std::size_t>(t)];
                        span = {std::min(span.first, first), std::max(span.second, last)};
                    }
                }
            }
        }
    }
    std::vector<int32_t> const roots = memoryRoots(m);
    for (std::size_t t = 0; t < m.tensors.size(); ++t)
    {
        auto const root = static_cast<std::size_t>(roots[t]);
        life[root].second = std::max(life[root].second, life[t].second);
    }
    return life;
}

//! An error naming two tensors of a profile that are live at the same step and whose bytes (offset, placed) overlap,
//! or that lie past the block; nothing when every placed tensor has bytes of its own.
std::optional<Error> overlappingTensors(EngineModel const& m, int32_t profile, std::vector<int64_t> const& placed,
    std::vector<std::pair<int32_t, int32_t>> const& life)
{
    ProfileRecord const& record = m.profiles[static_cast<std::size_t>(profile)];
    std::string const which = "optimization profile " + std::to_string(profile);
    std::vector<std::size_t> order;
    for (std::size_t t = 0; t < placed.size(); ++t)
    {
        if (placed[t] < 0)
        {
            continue;
        }
        if (placed[t] > record.activationBytes || record.offsets[t] > record.activationBytes - placed[t])
        {
            return invalid(which + " places tensor " + q(m.tensors[t].name) + " of " + std::to_string(placed[t])
                + " bytes at offset " + std::to_string(record.offsets[t]) + ", past its activation block of "
                + std::to_string(record.activationBytes) + " bytes");
        }
        order.push_back(t);
    }
    // A sweep over steps: each tensor against those still live when it is made.
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return life[a].first < life[b].first; });
    std::vector<std::size_t> live;
    for (std::size_t t : order)
    {
        std::erase_if(live, [&](std::size_t other) { return life[other].second < life[t].first; });
        int64_t const begin = record.offsets[t];
        int64_t const end = begin + placed[t];
        for (std::size_t other : live)
        {
            int64_t const otherBegin = record.offsets[other];
            int64_t const otherEnd = otherBegin + placed[other];
            if (begin < otherEnd && otherBegin < end && placed[t] > 0 && placed[other] > 0)
            {
                return invalid(which + " places tensors " + q(m.tensors[other].name) + " and " + q(m.tensors[t].name)
                    + ", live at the same time, in overlapping bytes [" + std::to_string(otherBegin) + ", "
                    + std::to_string(otherEnd) + ") and [" + std::to_string(begin) + ", " + std::to_string(end)
                    + ") of its activation block");
            }
        }
        live.push_back(t);
    }
    return std::nullopt;
}

} // namespace

// ---- EngineProgram ------------------------------------------------------------------------------------------------

Expected<std::unique_ptr<EngineProgram const>> EngineProgram::load(EngineModel&& model)
{
    std::unique_ptr<EngineProgram> program(new EngineProgram);
    program->mModel = std::move(model);
    auto prepared = program->prepare();
    if (!prepared)
    {
        return prepared.error();
    }
    return std::unique_ptr<EngineProgram const>(std::move(program));
}

Expected<bool> EngineProgram::prepare()
{
    EngineModel const& m = mModel;
    auto const nbTensors = static_cast<int32_t>(m.tensors.size());
    auto const nbLayers = static_cast<int32_t>(m.layers.size());
    auto const validTensor = [&](int32_t t) { return t >= 0 && t < nbTensors; };

    if (m.backend == PlanBackend::kCUDA)
    {
        if (std::optional<std::string> const unusable = cudaBackendUnusable())
        {
            return failure(ErrorCode::kUNSUPPORTED_STATE,
                "the plan was built for kiln's CUDA backend, which cannot run here: " + *unusable
                    + " (build the engine for the host backend: KILN_BACKEND=host)");
        }
    }

    // Symbols, then the expression records in index order: operands come first.
    std::vector<int32_t> symbolStages;
    for (std::size_t s = 0; s < m.symbols.size(); ++s)
    {
        SymbolRecord const& symbol = m.symbols[s];
        if (!validTensor(symbol.tensor))
        {
            return invalid("symbol " + q(symbol.name) + " refers to tensor " + std::to_string(symbol.tensor)
                + ", which the engine does not have");
        }
        TensorRecord const& source = m.tensors[static_cast<std::size_t>(symbol.tensor)];
        int32_t stage = kBeforeExecution;
        if (symbol.kind == SymbolKind::kINPUT_EXTENT)
        {
            if (!source.isInput || symbol.index < 0 || symbol.index >= static_cast<int32_t>(source.shape.size()))
            {
                return invalid("symbol " + q(symbol.name) + " is extent " + std::to_string(symbol.index) + " of "
                    + q(source.name) + ", which is not an input of that rank");
            }
        }
        else if (!source.isInput)
        {
            if (source.producer < 0 || source.producer >= nbLayers)
            {
                return invalid(
                    "symbol " + q(symbol.name) + " is a value of " + q(source.name) + ", which no layer makes");
            }
            stage = source.producer;
        }
        symbolStages.push_back(stage);
        mSymbolNodes.push_back(mExprs.symbol(symbol.name, symbol.kind));
    }

    for (std::size_t i = 0; i < m.exprs.size(); ++i)
    {
        ExprRecord const& record = m.exprs[i];
        switch (record.kind)
        {
        case DimExpr::Kind::kCONSTANT:
            mNodes.push_back(mExprs.constant(record.value));
            mStages.push_back(kBeforeExecution);
            break;
        case DimExpr::Kind::kSYMBOL:
            if (record.symbol >= mSymbolNodes.size())
            {
                return invalid("expression " + std::to_string(i) + " refers to symbol " + std::to_string(record.symbol)
                    + ", which the engine does not have");
            }
            mNodes.push_back(mSymbolNodes[record.symbol]);
            mStages.push_back(symbolStages[record.symbol]);
            break;
        case DimExpr::Kind::kOPERATION:
        {
            if (record.lhs >= i || record.rhs >= i)
            {
                return invalid("expression " + std::to_string(i) + " uses expressions " + std::to_string(record.lhs)
                    + " and " + std::to_string(record.rhs) + "; operands must come first");
            }
            auto const node = mExprs.operation(record.op, *mNodes[record.lhs], *mNodes[record.rhs]);
            if (!node)
            {
                return invalid("expression " + std::to_string(i) + ": " + node.error().message);
            }
            mNodes.push_back(node.value());
            mStages.push_back(std::max(mStages[record.lhs], mStages[record.rhs]));
            break;
        }
        default: return invalid("expression " + std::to_string(i) + " has an unknown kind");
        }
    }

    auto const validExpr = [&](uint32_t record) { return record < mNodes.size(); };
    for (TensorRecord const& tensor : m.tensors)
    {
        if (tensor.shape.size() > static_cast<std::size_t>(Dims::MAX_DIMS))
        {
            return invalid("tensor " + q(tensor.name) + " has rank " + std::to_string(tensor.shape.size()));
        }
        bool ok = std::all_of(tensor.shape.begin(), tensor.shape.end(), validExpr);
        if (tensor.values)
        {
            ok = ok && std::all_of(tensor.values->begin(), tensor.values->end(), validExpr);
        }
        if (!ok)
        {
            return invalid("tensor " + q(tensor.name) + " refers to an expression the engine does not have");
        }
    }

    // Layers: every tensor they name exists, and every output's shape is known before the layer runs.
    mBoundBy.resize(m.layers.size());
    for (int32_t l = 0; l < nbLayers; ++l)
    {
        LayerRecord const& layer = m.layers[static_cast<std::size_t>(l)];
        for (int32_t input : layer.inputs)
        {
            if (input != kNoTensor && !validTensor(input))
            {
                return invalid(
                    layerText(layer) + " reads tensor " + std::to_string(input) + ", which the engine does not have");
            }
        }
        for (int32_t output : layer.outputs)
        {
            if (!validTensor(output))
            {
                return invalid(
                    layerText(layer) + " makes tensor " + std::to_string(output) + ", which the engine does not have");
            }
            TensorRecord const& tensor = m.tensors[static_cast<std::size_t>(output)];
            for (uint32_t extent : tensor.shape)
            {
                // A plugin's output (or a non-zero's, an NMS's) may wait for the layer's own size tensors: it is placed
                // at their upper bound.
                bool const ownSizeTensors = mStages[extent] == l && makesSizeTensors(layer.type);
                if (mStages[extent] >= l && !ownSizeTensors)
                {
                    return failure(ErrorCode::kUNSUPPORTED_STATE,
                        layerText(layer) + " makes " + q(tensor.name) + " of shape " + mExprs.toString(*mNodes[extent])
                            + ", which depends on values the layer computes itself (a size tensor); kiln's executor "
                              "does not run such layers yet");
                }
            }
        }
    }
    for (std::size_t s = 0; s < m.symbols.size(); ++s)
    {
        if (symbolStages[s] != kBeforeExecution)
        {
            mBoundBy[static_cast<std::size_t>(symbolStages[s])].push_back(static_cast<uint32_t>(s));
        }
        // A size tensor's upper bound sizes the buffers of the outputs that wait for it: it is known earlier.
        SymbolRecord const& symbol = m.symbols[s];
        if (symbol.kind == SymbolKind::kSIZE_TENSOR
            && (!validExpr(static_cast<uint32_t>(symbol.upperBound)) || symbol.upperBound < 0
                || mStages[static_cast<std::size_t>(symbol.upperBound)] >= symbolStages[s]))
        {
            return invalid("size tensor " + q(symbol.name) + " has no upper bound known before its layer runs");
        }
    }

    mAssertionsAt.resize(m.layers.size() + 1);
    for (std::size_t a = 0; a < m.assertions.size(); ++a)
    {
        AssertionRecord const& assertion = m.assertions[a];
        if (!validExpr(assertion.condition))
        {
            return invalid("assertion " + q(assertion.message) + " refers to an expression the engine does not have");
        }
        mAssertionsAt[static_cast<std::size_t>(mStages[assertion.condition] + 1)].push_back(static_cast<uint32_t>(a));
    }

    // Expressions over input symbols and plugin size tensors alone: bounded by the size tensors' upper bounds.
    std::vector<bool> sizeBounded(m.exprs.size(), true);
    for (std::size_t i = 0; i < m.exprs.size(); ++i)
    {
        ExprRecord const& record = m.exprs[i];
        if (record.kind == DimExpr::Kind::kSYMBOL)
        {
            sizeBounded[i] = symbolStages[record.symbol] == kBeforeExecution
                || m.symbols[record.symbol].kind == SymbolKind::kSIZE_TENSOR;
        }
        else if (record.kind == DimExpr::Kind::kOPERATION)
        {
            sizeBounded[i] = sizeBounded[record.lhs] && sizeBounded[record.rhs];
        }
    }

    // I/O tensors.
    if (m.nbInputs < 0 || static_cast<std::size_t>(m.nbInputs) > m.ioTensors.size())
    {
        return invalid("the engine has " + std::to_string(m.nbInputs) + " inputs among "
            + std::to_string(m.ioTensors.size()) + " I/O tensors");
    }
    for (std::size_t t = 0; t < m.tensors.size(); ++t)
    {
        if (m.tensors[t].isDebug)
        {
            mDebugTensors.push_back(static_cast<int32_t>(t));
        }
    }
    mIoOfTensor.assign(m.tensors.size(), -1);
    for (std::size_t p = 0; p < m.ioTensors.size(); ++p)
    {
        int32_t const t = m.ioTensors[p];
        if (!validTensor(t))
        {
            return invalid("I/O tensor " + std::to_string(p) + " is tensor " + std::to_string(t)
                + ", which the engine does not have");
        }
        TensorRecord const& tensor = m.tensors[static_cast<std::size_t>(t)];
        bool const isInput = static_cast<int32_t>(p) < m.nbInputs;
        if ((isInput && !tensor.isInput) || (!isInput && !tensor.isOutput))
        {
            return invalid("I/O tensor " + q(tensor.name) + " is listed as an " + (isInput ? "input" : "output")
                + " but is not one");
        }
        if (!mIoByName.emplace(tensor.name, static_cast<int32_t>(p)).second)
        {
            return invalid("two I/O tensors are named " + q(tensor.name));
        }
        mIoOfTensor[static_cast<std::size_t>(t)] = static_cast<int32_t>(p);
        IoTensor io{t, isInput, false, false, linearFormatDescription(tensor.type)};
        if (!isInput)
        {
            io.dataDependent = std::any_of(tensor.shape.begin(), tensor.shape.end(),
                [&](uint32_t extent) { return mStages[extent] != kBeforeExecution; });
            io.upperBounded = io.dataDependent
                && std::all_of(
                    tensor.shape.begin(), tensor.shape.end(), [&](uint32_t extent) { return sizeBounded[extent]; });
            if (tensor.producer < 0)
            {
                return invalid("output " + q(tensor.name) + " is made by no layer");
            }
        }
        mIo.push_back(std::move(io));
    }

    if (m.profiles.empty())
    {
        return invalid("the engine has no optimization profile");
    }
    for (std::size_t k = 0; k < m.profiles.size(); ++k)
    {
        ProfileRecord const& profile = m.profiles[k];
        std::string const which = "optimization profile " + std::to_string(k);
        if (profile.offsets.size() != m.tensors.size())
        {
            return invalid(which + " has " + std::to_string(profile.offsets.size()) + " tensor offsets for "
                + std::to_string(m.tensors.size()) + " tensors");
        }
        if (profile.activationBytes < 0)
        {
            return invalid(which + " has a negative activation size");
        }
        std::vector<ProfileInput> inputs;
        for (int32_t p = 0; p < m.nbInputs; ++p)
        {
            int32_t const t = mIo[static_cast<std::size_t>(p)].tensor;
            TensorRecord const& tensor = m.tensors[static_cast<std::size_t>(t)];
            auto const found = std::find_if(profile.inputs.begin(), profile.inputs.end(),
                [t](ProfileRecord::Input const& input) { return input.tensor == t; });
            if (found == profile.inputs.end())
            {
                return invalid(which + " gives no range for input " + q(tensor.name));
            }
            auto const rank = static_cast<int32_t>(tensor.shape.size());
            if (found->min.nbDims != rank || found->opt.nbDims != rank || found->max.nbDims != rank)
            {
                return invalid(which + " gives input " + q(tensor.name) + " of rank " + std::to_string(rank)
                    + " the range " + dimsText(found->min) + " to " + dimsText(found->max));
            }
            std::array<std::vector<int64_t> const*, 3> const values{
                &found->minValues, &found->optValues, &found->maxValues};
            // A shape tensor input's values fill its shape (the executor reads that many); other inputs have none.
            for (std::size_t s = 0; s < values.size(); ++s)
            {
                Dims const& shape = s == 0 ? found->min : s == 1 ? found->opt : found->max;
                int64_t const count = !tensor.isShapeTensor ? 0
                    : host::isValidShape(shape)             ? host::elementCount(shape)
                                                            : -1;
                if (static_cast<int64_t>(values[s]->size()) != count)
                {
                    return invalid(which + " gives input " + q(tensor.name) + " " + std::to_string(values[s]->size())
                        + " values at " + std::array<char const*, 3>{"kMIN", "kOPT", "kMAX"}[s] + " for its shape "
                        + dimsText(shape) + (tensor.isShapeTensor ? "" : ", which is not a shape tensor"));
                }
            }
            ProfileInput input{&*found, {}};
            for (std::size_t s = 0; s < values.size(); ++s)
            {
                for (int64_t value : *values[s])
                {
                    input.values32[s].push_back(static_cast<int32_t>(std::clamp<int64_t>(
                        value, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max())));
                }
            }
            inputs.push_back(std::move(input));
        }
        mProfileInputs.push_back(std::move(inputs));
    }

    for (WeightsBlob const& blob : m.weights)
    {
        mWeightBytes += static_cast<int64_t>(blob.view().size());
    }
    // A plugin output written in place of an input, or a reshape's view of its input, has the input's type and format.
    mAliasRoots = memoryRoots(m);
    mReshapeViews.assign(m.layers.size(), 0);
    for (std::size_t l = 0; l < m.layers.size(); ++l)
    {
        mReshapeViews[l] = m.layers[l].viewsInput ? 1 : 0;
    }
    for (std::size_t t = 0; t < mAliasRoots.size(); ++t)
    {
        TensorRecord const& tensor = m.tensors[t];
        TensorRecord const& root = m.tensors[static_cast<std::size_t>(mAliasRoots[t])];
        bool const io = &tensor != &root && (tensor.isOutput || root.isInput || root.isOutput);
        if (tensor.type != root.type || tensor.format != root.format || io)
        {
            return invalid("tensor " + q(tensor.name) + " is written in place of " + q(root.name)
                + ", which differs in type or format, or one of them is network I/O");
        }
    }
    // An if-conditional's output layer reads the condition layer's output as input 2 (model checks held the arity).
    for (LayerRecord const& layer : m.layers)
    {
        if (layer.type == LayerType::kCONDITIONAL_OUTPUT)
        {
            auto const& condition = m.tensors[static_cast<std::size_t>(layer.inputs[2])];
            if (condition.type != DataType::kBOOL || !condition.shape.empty() || condition.producer < 0
                || m.layers[static_cast<std::size_t>(condition.producer)].type != LayerType::kCONDITION)
            {
                return invalid(layerText(layer) + ": input 2 must be the 0-D kBOOL output of a condition layer");
            }
        }
    }
    mBranches = findBranches(m);
    auto loops = findLoops(m);
    if (!loops)
    {
        return loops.error();
    }
    mLoops = std::move(loops.value());
    for (LoopBlock const& block : mLoops.blocks)
    {
        if (block.members.back() - block.members.front() + 1 != static_cast<int32_t>(block.members.size()))
        {
            return invalid("the layers of loop " + std::to_string(block.loop) + " are not consecutive");
        }
    }
    place();
    return checkActivationBlocks();
}

Expected<bool> EngineProgram::checkActivationBlocks() const
{
    // Each block the plan states against what its tensors need (a plan may state any size, and a context allocates
    // it), each tensor's bytes inside it and apart from every tensor live at the same time (a plan may state any
    // offsets, and layers write their outputs there), and the engine's device memory size against the largest block.
    auto const loops = findLoops(mModel);
    if (!loops)
    {
        return loops.error();
    }
    std::vector<std::pair<int32_t, int32_t>> const life = tensorLifetimes(mModel, loops.value());
    int64_t largest = 0;
    for (std::size_t k = 0; k < mModel.profiles.size(); ++k)
    {
        int64_t const stated = mModel.profiles[k].activationBytes;
        largest = std::max(largest, stated);
        auto const placed = placedBytesAtMax(*this, static_cast<int32_t>(k));
        if (!placed)
        {
            return placed.error();
        }
        if (!placed.value())
        {
            continue; // Sizes known only at run time: each tensor is checked against the block when it is placed.
        }
        if (std::optional<Error> overlap = overlappingTensors(mModel, static_cast<int32_t>(k), *placed.value(), life))
        {
            return *overlap;
        }
        int64_t needed = 0;
        for (int64_t bytes : *placed.value())
        {
            if (bytes > 0 && __builtin_add_overflow(needed, bytes, &needed))
            {
                return invalid("the tensors of optimization profile " + std::to_string(k)
                    + " need more activation memory than a 64-bit size holds");
            }
        }
        int64_t const bound = needed > (std::numeric_limits<int64_t>::max() - kActivationSlack) / 2
            ? std::numeric_limits<int64_t>::max()
            : 2 * needed + kActivationSlack;
        if (stated > bound)
        {
            return invalid("optimization profile " + std::to_string(k) + " states an activation block of "
                + std::to_string(stated) + " bytes, but its tensors need at most " + std::to_string(needed)
                + " bytes at the profile's kMAX shapes");
        }
    }
    if (mModel.deviceMemorySize != largest)
    {
        return invalid("the engine's device memory size is " + std::to_string(mModel.deviceMemorySize)
            + " bytes, but its largest optimization profile needs " + std::to_string(largest));
    }
    return true;
}

Placement placeLayers(EngineModel const& m, std::vector<int64_t> const& bytesAtMax)
{
    Placement placement;
    std::vector<Side>& mLayerSides = placement.layers;
    std::vector<Side>& mTensorSides = placement.tensors;
    std::vector<uint8_t>& mMirrored = placement.mirrored;
    std::size_t const nbTensors = m.tensors.size();
    bool const onDevice = m.backend == PlanBackend::kCUDA;
    mLayerSides.assign(m.layers.size(), onDevice ? Side::kDEVICE : Side::kHOST);
    mTensorSides.assign(nbTensors, onDevice ? Side::kDEVICE : Side::kHOST);
    mMirrored.assign(nbTensors, false);
    placement.precomputed.assign(m.layers.size(), 0);
    std::vector<uint8_t> const candidates = shapeValueCandidates(m);
    // Uses of each tensor on either side: consumers' inputs, network outputs in the application's memory, and the
    // symbols whose values the executor reads. valueUses counts the reads of values (parameters, symbols, shape tensor
    // outputs, the data precomputed layers read): what makes a candidate worth computing once on the host.
    std::vector<int32_t> hostUses(nbTensors, 0);
    std::vector<int32_t> deviceUses(nbTensors, 0);
    std::vector<int32_t> valueUses(nbTensors, 0);
    for (std::size_t t = 0; t < nbTensors; ++t)
    {
        if (m.tensors[t].isOutput)
        {
            ++(m.tensors[t].isShapeTensor ? hostUses : deviceUses)[t];
            valueUses[t] += m.tensors[t].isShapeTensor ? 1 : 0;
        }
    }
    for (SymbolRecord const& symbol : m.symbols)
    {
        if (symbol.kind != SymbolKind::kINPUT_EXTENT && !m.tensors[static_cast<std::size_t>(symbol.tensor)].isInput)
        {
            ++hostUses[static_cast<std::size_t>(symbol.tensor)];
            ++valueUses[static_cast<std::size_t>(symbol.tensor)];
        }
    }
    // Consumers come after producers: deciding from the last layer back decides a layer after all its consumers.
    for (std::size_t l = m.layers.size(); l-- > 0;)
    {
        LayerRecord const& layer = m.layers[l];
        auto const anyOutput = [&](std::vector<int32_t> const& uses) {
            return std::any_of(layer.outputs.begin(), layer.outputs.end(),
                [&](int32_t output) { return uses[static_cast<std::size_t>(output)] > 0; });
        };
        // Values from input shapes alone that the host reads are computed there once per set of input shapes; so are
        // a CUDA engine's small ones that only the device reads (position indices, masks from ranges, the arithmetic
        // of a slice's bounds): one copy per set of input shapes instead of a kernel on every enqueue.
        bool const small
            = !layer.outputs.empty() && std::all_of(layer.outputs.begin(), layer.outputs.end(), [&](int32_t output) {
                  auto const t = static_cast<std::size_t>(output);
                  return t < bytesAtMax.size() && bytesAtMax[t] >= 0 && bytesAtMax[t] <= kPrecomputedBytes;
              });
        bool precomputed = candidates[l] != 0
            && (anyOutput(valueUses)
                || (onDevice && (anyOutput(hostUses) || (small && layer.type != LayerType::kCONSTANT))));
        bool host = !onDevice || precomputed || layer.type == LayerType::kSHAPE;
        if (!isPluginLayer(layer.type) && !host && !layer.outputs.empty())
        {
            host = std::all_of(layer.outputs.begin(), layer.outputs.end(), [&](int32_t output) {
                auto const t = static_cast<std::size_t>(output);
                return deviceUses[t] == 0 && hostUses[t] > 0;
            });
        }
        // A CUDA engine's candidate that runs on the host anyway (a Shape layer whose extents only the device reads,
        // as data) is computed once per set of input shapes too: otherwise it would run, and its device copy be
        // written, on every enqueue.
        precomputed = precomputed || (onDevice && host && candidates[l] != 0);
        placement.precomputed[l] = precomputed ? 1 : 0;
        mLayerSides[l] = host ? Side::kHOST : Side::kDEVICE;
        for (std::size_t i = 0; i < layer.inputs.size(); ++i)
        {
            if (layer.inputs[i] == kNoTensor)
            {
                continue;
            }
            auto const t = static_cast<std::size_t>(layer.inputs[i]);
            switch (isPluginLayer(layer.type) ? host::InputUse::kDATA : host::inputUse(layer.params, i))
            {
            case host::InputUse::kVALUES:
                ++hostUses[t];
                ++valueUses[t];
                break;
            case host::InputUse::kSHAPE: break;
            case host::InputUse::kDATA:
                ++(host ? hostUses : deviceUses)[t];
                valueUses[t] += precomputed ? 1 : 0;
                break;
            }
        }
    }
    if (!onDevice)
    {
        return placement;
    }
    for (std::size_t t = 0; t < nbTensors; ++t)
    {
        TensorRecord const& tensor = m.tensors[t];
        Side const written = tensor.producer < 0 ? (tensor.isShapeTensor ? Side::kHOST : Side::kDEVICE)
                                                 : mLayerSides[static_cast<std::size_t>(tensor.producer)];
        mTensorSides[t] = written;
        mMirrored[t] = written == Side::kHOST ? deviceUses[t] > 0 : hostUses[t] > 0;
    }
    return placement;
}

void EngineProgram::place()
{
    // Each tensor's largest size over the profiles' kMAX inputs (-1 where some profile does not know it).
    std::vector<int64_t> largest(mModel.tensors.size(), mModel.profiles.empty() ? -1 : 0);
    for (std::size_t k = 0; k < mModel.profiles.size(); ++k)
    {
        auto const sizes = tensorBytesAtMax(*this, static_cast<int32_t>(k));
        for (std::size_t t = 0; t < largest.size(); ++t)
        {
            int64_t const bytes = sizes && sizes.value() ? (*sizes.value())[t] : -1;
            largest[t] = bytes < 0 || largest[t] < 0 ? -1 : std::max(largest[t], bytes);
        }
    }
    Placement placement = placeLayers(mModel, largest);
    mLayerSides = std::move(placement.layers);
    mTensorSides = std::move(placement.tensors);
    mMirrored = std::move(placement.mirrored);
    mPrecomputed = std::move(placement.precomputed);
}

int32_t EngineProgram::ioPosition(std::string_view name) const noexcept
{
    try
    {
        auto const found = mIoByName.find(std::string(name));
        return found == mIoByName.end() ? -1 : found->second;
    }
    catch (...)
    {
        return -1;
    }
}

int32_t EngineProgram::debugPosition(std::string_view name) const noexcept
{
    auto const found = std::find_if(mDebugTensors.begin(), mDebugTensors.end(),
        [&](int32_t t) { return mModel.tensors[static_cast<std::size_t>(t)].name == name; });
    return found == mDebugTensors.end() ? -1 : static_cast<int32_t>(found - mDebugTensors.begin());
}

int32_t EngineProgram::ioPositionOfTensor(int32_t tensor) const noexcept
{
    return tensor >= 0 && static_cast<std::size_t>(tensor) < mIoOfTensor.size()
        ? mIoOfTensor[static_cast<std::size_t>(tensor)]
        : -1;
}

EngineProgram::ProfileInput const& EngineProgram::profileInput(int32_t profile, int32_t position) const
{
    return mProfileInputs.at(static_cast<std::size_t>(profile)).at(static_cast<std::size_t>(position));
}

Dims EngineProgram::staticShape(int32_t tensor) const
{
    TensorRecord const& record = mModel.tensors.at(static_cast<std::size_t>(tensor));
    Dims dims{static_cast<int32_t>(record.shape.size()), {}};
    for (std::size_t j = 0; j < record.shape.size(); ++j)
    {
        DimExpr const& extent = node(record.shape[j]);
        dims.d[j] = extent.kind() == DimExpr::Kind::kCONSTANT ? extent.value() : -1;
    }
    return dims;
}

bool EngineProgram::hasStaticShape(int32_t tensor) const
{
    TensorRecord const& record = mModel.tensors.at(static_cast<std::size_t>(tensor));
    return std::all_of(record.shape.begin(), record.shape.end(),
        [&](uint32_t extent) { return node(extent).kind() == DimExpr::Kind::kCONSTANT; });
}

Dims EngineProgram::knownShape(int32_t tensor, SymbolValues const& values) const
{
    TensorRecord const& record = mModel.tensors.at(static_cast<std::size_t>(tensor));
    Dims dims{static_cast<int32_t>(record.shape.size()), {}};
    for (std::size_t j = 0; j < record.shape.size(); ++j)
    {
        auto const value = mExprs.evaluate(node(record.shape[j]), values);
        dims.d[j] = value && value.value() >= 0 ? value.value() : -1;
    }
    return dims;
}

// ---- Input symbols ------------------------------------------------------------------------------------------------

InputState bindInputs(EngineProgram const& program, Bindings const& bindings)
{
    EngineModel const& model = program.model();
    InputState state;
    for (int32_t p = 0; p < model.nbInputs; ++p)
    {
        auto const position = static_cast<std::size_t>(p);
        TensorRecord const& tensor = model.tensors[static_cast<std::size_t>(program.ioTensors()[position].tensor)];
        Dims const& shape = bindings.shapes[position];
        if (shape.nbDims < 0 || (tensor.isShapeTensor && bindings.addresses[position] == nullptr))
        {
            state.missing.push_back(p);
            continue;
        }
        if (!tensor.isShapeTensor || state.problem)
        {
            continue;
        }
        // A shape tensor's values must lie within the profile's range, element by element.
        auto const& range = *program.profileInput(bindings.profile, p).record;
        host::HostTensor const view{bindings.addresses[position], tensor.type, shape, 1.0F};
        int64_t const count = host::elementCount(shape);
        if (range.minValues.empty())
        {
            continue;
        }
        if (static_cast<std::size_t>(count) != range.minValues.size()
            || range.maxValues.size() != range.minValues.size())
        {
            state.problem = "input shape tensor " + q(tensor.name) + " has " + std::to_string(count)
                + " values; optimization profile " + std::to_string(bindings.profile) + " gives ranges for "
                + std::to_string(range.minValues.size());
            continue;
        }
        for (int64_t i = 0; i < count && !state.problem; ++i)
        {
            auto const value = readShapeValue(view, i, tensor.name);
            if (!value)
            {
                state.problem = value.error().message;
                break;
            }
            auto const index = static_cast<std::size_t>(i);
            if (value.value() < range.minValues[index] || value.value() > range.maxValues[index])
            {
                state.problem = "input shape tensor " + q(tensor.name) + " value [" + std::to_string(i) + "] is "
                    + std::to_string(value.value()) + ", outside optimization profile "
                    + std::to_string(bindings.profile) + "'s range [" + std::to_string(range.minValues[index]) + ", "
                    + std::to_string(range.maxValues[index]) + "]";
            }
        }
    }

    for (std::size_t s = 0; s < model.symbols.size(); ++s)
    {
        SymbolRecord const& symbol = model.symbols[s];
        int32_t const p = program.ioPositionOfTensor(symbol.tensor);
        TensorRecord const& tensor = model.tensors[static_cast<std::size_t>(symbol.tensor)];
        if (p < 0 || !tensor.isInput || symbol.kind == SymbolKind::kSIZE_TENSOR)
        {
            continue;
        }
        auto const position = static_cast<std::size_t>(p);
        Dims const& shape = bindings.shapes[position];
        if (shape.nbDims < 0)
        {
            continue;
        }
        if (symbol.kind == SymbolKind::kINPUT_EXTENT)
        {
            if (symbol.index < shape.nbDims)
            {
                state.values[static_cast<SymbolId>(s)] = shape.d[symbol.index];
            }
            continue;
        }
        if (bindings.addresses[position] == nullptr)
        {
            continue;
        }
        host::HostTensor const view{bindings.addresses[position], tensor.type, shape, 1.0F};
        auto const value = readShapeValue(view, symbol.index, tensor.name);
        if (value)
        {
            state.values[static_cast<SymbolId>(s)] = value.value();
        }
        else if (!state.problem)
        {
            state.problem = value.error().message;
        }
    }
    return state;
}

} // namespace kiln
