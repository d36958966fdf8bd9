// SPDX-License-Identifier: Apache-2.0
#include "runtime/executor.h"

#include "backends/host/reformat.h"
#include "runtime/plugin_runtime.h"

#include "core/data_type.h"
#include "network/layer_kinds.h"
#include "network/report.h"

#include <algorithm>
#include <limits>
#include <new>
#include <utility>

namespace kiln
{
namespace
{

using nvinfer1::Dims;
using nvinfer1::ErrorCode;

//! 'name', as the runtime's messages quote tensors and layers.
std::string q(std::string const& name)
{
    return "'" + name + "'";
}

std::string dimsText(Dims const& dims)
{
    std::string text;
    message::append(text, dims);
    return text;
}

Error failure(ErrorCode code, std::string message)
{
    return Error{code, std::move(message)};
}

//! The layer for messages: 'relu' (Activation).
std::string layerText(LayerRecord const& layer)
{
    return "layer " + q(layer.name) + " (" + layerKindTag(layer.type) + ")";
}

bool isPluginLayer(LayerType type) noexcept
{
    return type == LayerType::kPLUGIN_V2 || type == LayerType::kPLUGIN_V3;
}

bool isShapeValueType(DataType type) noexcept
{
    return type == DataType::kINT32 || type == DataType::kINT64;
}

//! Value index of a shape-value tensor, or the reason it cannot be read.
Expected<int64_t> readShapeValue(host::HostTensor const& view, int64_t index, std::string const& tensorName)
{
    if (!isShapeValueType(view.type))
    {
        return failure(ErrorCode::kINVALID_ARGUMENT,
            "tensor " + q(tensorName) + " holds shape values but has type " + dataTypeName(view.type)
                + "; shape values are kINT32 or kINT64");
    }
    int64_t const count = host::elementCount(view.dims);
    if (index < 0 || index >= count)
    {
        return failure(ErrorCode::kINVALID_ARGUMENT,
            "tensor " + q(tensorName) + " of shape " + dimsText(view.dims) + " has no value " + std::to_string(index));
    }
    if (view.data == nullptr)
    {
        return failure(ErrorCode::kINVALID_ARGUMENT, "tensor " + q(tensorName) + " has no data to read values from");
    }
    return host::loadInteger(view, index);
}

} // namespace

Expected<int64_t> tensorBytes(DataType type, Dims const& dims)
{
    if (dims.nbDims < 0 || dims.nbDims > Dims::MAX_DIMS)
    {
        return failure(ErrorCode::kINVALID_ARGUMENT, "the shape " + dimsText(dims) + " has no valid rank");
    }
    int64_t count = 1;
    for (int32_t j = 0; j < dims.nbDims; ++j)
    {
        if (dims.d[j] < 0)
        {
            return failure(ErrorCode::kINVALID_ARGUMENT,
                "the shape " + dimsText(dims) + " has a negative extent " + std::to_string(dims.d[j]));
        }
        if (__builtin_mul_overflow(count, dims.d[j], &count) || count > std::numeric_limits<int64_t>::max() / 8)
        {
            return failure(ErrorCode::kINVALID_ARGUMENT, "the shape " + dimsText(dims) + " has too many elements");
        }
    }
    if (dataTypeBits(type) == 0)
    {
        return failure(ErrorCode::kINVALID_ARGUMENT,
            "the data type " + std::to_string(static_cast<int32_t>(type)) + " is no DataType");
    }
    return storageBytes(type, count);
}

std::string linearFormatDescription(DataType type)
{
    char const* name = "unknown type";
    switch (type)
    {
    case DataType::kFLOAT: name = "FP32"; break;
    case DataType::kHALF: name = "FP16"; break;
    case DataType::kINT8: name = "INT8"; break;
    case DataType::kINT32: name = "INT32"; break;
    case DataType::kBOOL: name = "Bool"; break;
    case DataType::kUINT8: name = "UINT8"; break;
    case DataType::kFP8: name = "FP8"; break;
    case DataType::kBF16: name = "BF16"; break;
    case DataType::kINT64: name = "INT64"; break;
    case DataType::kINT4: name = "INT4"; break;
    case DataType::kFP4: name = "FP4"; break;
    case DataType::kE8M0: name = "E8M0"; break;
    }
    return std::string("Row major linear ") + name + " format (kLINEAR)";
}

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
    auto const invalid = [](std::string message) { return failure(ErrorCode::kINVALID_ARGUMENT, std::move(message)); };
    auto const validTensor = [&](int32_t t) { return t >= 0 && t < nbTensors; };

    if (m.backend != PlanBackend::kHOST)
    {
        return failure(ErrorCode::kUNSUPPORTED_STATE,
            "the plan was built for kiln's CUDA backend; this runtime runs plans built for the host backend only "
            "(build the engine for the host backend, or use a kiln with the CUDA backend)");
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
                // A plugin's output may wait for the plugin's own size tensors: it is placed at their upper bound.
                bool const ownSizeTensors = mStages[extent] == l && isPluginLayer(layer.type);
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
            return invalid("size tensor " + q(symbol.name) + " has no upper bound known before its plugin runs");
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
            ProfileInput input{&*found, {}};
            std::array<std::vector<int64_t> const*, 3> const values{
                &found->minValues, &found->optValues, &found->maxValues};
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
        mWeightBytes += static_cast<int64_t>(blob.bytes.size());
    }
    mAliasRoots = aliasRoots(m);
    return true;
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

// ---- AlignedBuffer ------------------------------------------------------------------------------------------------

void AlignedBuffer::Free::operator()(std::byte* p) const noexcept
{
    ::operator delete (p, std::align_val_t{kActivationAlignment});
}

void AlignedBuffer::reserve(int64_t bytes)
{
    if (bytes <= mSize && mData != nullptr)
    {
        return;
    }
    mData.reset();
    mSize = 0;
    auto const size = static_cast<std::size_t>(std::max<int64_t>(bytes, 1));
    mData.reset(static_cast<std::byte*>(::operator new (size, std::align_val_t{kActivationAlignment})));
    mSize = bytes;
}

// ---- Executor -----------------------------------------------------------------------------------------------------

Executor::Executor(
    EngineProgram const& program, std::unique_ptr<Backend> backend, std::unique_ptr<ContextPlugins> plugins)
    : mProgram(program)
    , mBackend(std::move(backend))
    , mPlugins(std::move(plugins))
{
    std::size_t const nbTensors = program.model().tensors.size();
    mShapes.assign(nbTensors, Dims{-1, {}});
    mViews.assign(nbTensors, host::HostTensor{});
    mOwned.resize(nbTensors);
    mAllocated.assign(program.ioTensors().size(), nullptr);
    mLayerTimes.assign(program.model().layers.size(), 0.F);
}

Executor::~Executor() = default;

host::Status Executor::checkAssertions(int32_t stage, SymbolValues const& values) const
{
    EngineModel const& model = mProgram.model();
    for (uint32_t a : mProgram.assertionsAt(stage))
    {
        AssertionRecord const& assertion = model.assertions[a];
        DimExpr const& condition = mProgram.node(assertion.condition);
        auto const value = mProgram.exprs().evaluate(condition, values);
        std::string const where
            = assertion.layer >= 0 && static_cast<std::size_t>(assertion.layer) < model.layers.size()
            ? layerText(model.layers[static_cast<std::size_t>(assertion.layer)]) + ": "
            : std::string{};
        if (!value)
        {
            return failure(value.error().code,
                where + "cannot check the assertion " + q(assertion.message) + ": " + value.error().message);
        }
        if (value.value() == 0)
        {
            return failure(ErrorCode::kINVALID_ARGUMENT,
                where + "assertion failed: " + assertion.message + " (" + mProgram.exprs().toString(condition)
                    + " is false for these shapes)");
        }
    }
    return host::Done{};
}

host::Status Executor::evaluateStatic(Bindings const& bindings)
{
    EngineModel const& model = mProgram.model();
    InputState state = bindInputs(mProgram, bindings);
    if (!state.missing.empty())
    {
        auto const position = static_cast<std::size_t>(state.missing.front());
        TensorRecord const& tensor = model.tensors[static_cast<std::size_t>(mProgram.ioTensors()[position].tensor)];
        if (bindings.shapes[position].nbDims < 0)
        {
            auto const& range = *mProgram.profileInput(bindings.profile, state.missing.front()).record;
            return failure(ErrorCode::kINVALID_STATE,
                "input " + q(tensor.name) + " has no shape; set one with setInputShape (optimization profile "
                    + std::to_string(bindings.profile) + " allows " + dimsText(range.min) + " to " + dimsText(range.max)
                    + ")");
        }
        return failure(ErrorCode::kINVALID_STATE,
            "tensor " + q(tensor.name) + " has no address; set one with setTensorAddress (an input shape tensor, read "
                + "from host memory)");
    }
    if (state.problem)
    {
        return failure(ErrorCode::kINVALID_ARGUMENT, *state.problem);
    }
    if (mStaticValues && *mStaticValues == state.values)
    {
        mValues = std::move(state.values);
        return host::Done{};
    }

    mStaticValues.reset();
    mStaticShapes.assign(model.tensors.size(), Dims{-1, {}});
    for (std::size_t t = 0; t < model.tensors.size(); ++t)
    {
        TensorRecord const& tensor = model.tensors[t];
        Dims& dims = mStaticShapes[t];
        dims.nbDims = static_cast<int32_t>(tensor.shape.size());
        for (std::size_t j = 0; j < tensor.shape.size(); ++j)
        {
            dims.d[j] = -1;
            if (mProgram.stage(tensor.shape[j]) != kBeforeExecution)
            {
                continue;
            }
            DimExpr const& extent = mProgram.node(tensor.shape[j]);
            auto const value = mProgram.exprs().evaluate(extent, state.values);
            if (!value)
            {
                return failure(value.error().code,
                    "tensor " + q(tensor.name) + " extent " + std::to_string(j) + ": " + value.error().message);
            }
            if (value.value() < 0)
            {
                return failure(ErrorCode::kINVALID_ARGUMENT,
                    "tensor " + q(tensor.name) + " extent " + std::to_string(j) + " is " + std::to_string(value.value())
                        + " (" + mProgram.exprs().toString(extent) + ") for these input shapes; extents are >= 0");
            }
            dims.d[j] = value.value();
        }
    }
    auto const checked = checkAssertions(kBeforeExecution, state.values);
    if (!checked)
    {
        return checked;
    }
    mStaticValues = state.values;
    mValues = std::move(state.values);
    return host::Done{};
}

host::Status Executor::prepareShapes(Bindings const& bindings)
{
    auto const done = evaluateStatic(bindings);
    if (done)
    {
        mShapes = mStaticShapes;
    }
    return done;
}

host::Status Executor::completeShape(int32_t tensor, SymbolValues const& values)
{
    TensorRecord const& record = mProgram.model().tensors[static_cast<std::size_t>(tensor)];
    Dims& dims = mShapes[static_cast<std::size_t>(tensor)];
    for (std::size_t j = 0; j < record.shape.size(); ++j)
    {
        if (mProgram.stage(record.shape[j]) == kBeforeExecution)
        {
            continue;
        }
        DimExpr const& extent = mProgram.node(record.shape[j]);
        auto const value = mProgram.exprs().evaluate(extent, values);
        if (!value)
        {
            return failure(value.error().code,
                "tensor " + q(record.name) + " extent " + std::to_string(j) + ": " + value.error().message);
        }
        if (value.value() < 0)
        {
            return failure(ErrorCode::kFAILED_EXECUTION,
                "tensor " + q(record.name) + " extent " + std::to_string(j) + " is " + std::to_string(value.value())
                    + " (" + mProgram.exprs().toString(extent) + ") for the values computed; extents are >= 0");
        }
        dims.d[j] = value.value();
    }
    return host::Done{};
}

host::Status Executor::placeOutput(
    int32_t tensor, Bindings const& bindings, ActivationMemory memory, cudaStream_t stream)
{
    auto const t = static_cast<std::size_t>(tensor);
    TensorRecord const& record = mProgram.model().tensors[t];
    auto const bytes = record.format == nvinfer1::TensorFormat::kLINEAR
        ? tensorBytes(record.type, mShapes[t])
        : host::formatBytes(record.format, record.type, mShapes[t]);
    if (!bytes)
    {
        return failure(bytes.error().code, "tensor " + q(record.name) + ": " + bytes.error().message);
    }
    void* data = nullptr;
    int32_t const position = mProgram.ioPositionOfTensor(tensor);
    int64_t const offset = mProgram.model().profiles[static_cast<std::size_t>(bindings.profile)].offsets[t];
    if (position >= 0)
    {
        auto const p = static_cast<std::size_t>(position);
        nvinfer1::IOutputAllocator* allocator = bindings.allocators[p];
        data = bindings.addresses[p];
        if (allocator != nullptr)
        {
            void* current = mAllocated[p] != nullptr ? mAllocated[p] : bindings.addresses[p];
            auto const size = static_cast<uint64_t>(std::max<int64_t>(bytes.value(), 1));
            try
            {
                data = allocator->reallocateOutputAsync(
                    record.name.c_str(), current, size, static_cast<uint64_t>(kActivationAlignment), stream);
            }
            catch (...)
            {
                return failure(ErrorCode::kFAILED_ALLOCATION,
                    "the output allocator of " + q(record.name) + " threw from reallocateOutputAsync");
            }
            if (data == nullptr)
            {
                return failure(ErrorCode::kFAILED_ALLOCATION,
                    "the output allocator of " + q(record.name) + " returned nullptr for "
                        + std::to_string(bytes.value()) + " bytes (shape " + dimsText(mShapes[t]) + ")");
            }
            mAllocated[p] = data;
        }
    }
    else if (offset >= 0 && bytes.value() == 0)
    {
        data = memory.base != nullptr ? memory.base + offset : nullptr;
    }
    else if (offset >= 0)
    {
        if (memory.base == nullptr || offset + bytes.value() > memory.bytes)
        {
            return failure(ErrorCode::kINTERNAL_ERROR,
                "tensor " + q(record.name) + " of shape " + dimsText(mShapes[t]) + " needs "
                    + std::to_string(bytes.value()) + " bytes at offset " + std::to_string(offset)
                    + ", beyond the activation block of " + std::to_string(memory.bytes) + " bytes");
        }
        data = memory.base + offset;
    }
    else
    {
        mOwned[t].reserve(bytes.value());
        data = mOwned[t].data();
    }
    mViews[t] = host::HostTensor{data, record.type, mShapes[t], record.scale};
    return host::Done{};
}

Expected<std::optional<SymbolValues>> Executor::upperBoundValues(int32_t layer) const
{
    EngineModel const& model = mProgram.model();
    std::optional<SymbolValues> values;
    for (uint32_t s : mProgram.symbolsBoundBy(layer))
    {
        SymbolRecord const& symbol = model.symbols[s];
        if (symbol.kind != SymbolKind::kSIZE_TENSOR)
        {
            continue;
        }
        if (!values)
        {
            values = mValues;
        }
        auto const bound = mProgram.exprs().evaluate(mProgram.node(static_cast<uint32_t>(symbol.upperBound)), mValues);
        if (!bound)
        {
            return failure(bound.error().code,
                "cannot evaluate the upper bound of size tensor " + q(symbol.name) + ": " + bound.error().message);
        }
        (*values)[static_cast<SymbolId>(s)] = bound.value();
    }
    return values;
}

Dims Executor::descriptorDims(int32_t tensor, int32_t layer) const
{
    TensorRecord const& record = mProgram.model().tensors[static_cast<std::size_t>(tensor)];
    Dims dims = mShapes[static_cast<std::size_t>(tensor)];
    for (std::size_t j = 0; j < record.shape.size(); ++j)
    {
        if (mProgram.stage(record.shape[j]) == layer)
        {
            dims.d[j] = -1;
        }
    }
    return dims;
}

host::Status Executor::shrinkToValues(LayerRecord const& layer)
{
    EngineModel const& model = mProgram.model();
    for (int32_t output : layer.outputs)
    {
        auto const t = static_cast<std::size_t>(output);
        Dims const capacity = mShapes[t];
        auto const completed = completeShape(output, mValues);
        if (!completed)
        {
            return completed;
        }
        for (int32_t j = 0; j < capacity.nbDims; ++j)
        {
            if (mShapes[t].d[j] > capacity.d[j])
            {
                return failure(ErrorCode::kFAILED_EXECUTION,
                    "output " + q(model.tensors[t].name) + " has the shape " + dimsText(mShapes[t])
                        + ", beyond the upper bound " + dimsText(capacity)
                        + " its size tensors declared; the plugin wrote past its buffer");
            }
        }
        mViews[t].dims = mShapes[t];
    }
    return host::Done{};
}

host::Status Executor::bindSymbolsOf(int32_t layer)
{
    EngineModel const& model = mProgram.model();
    for (uint32_t s : mProgram.symbolsBoundBy(layer))
    {
        SymbolRecord const& symbol = model.symbols[s];
        auto const t = static_cast<std::size_t>(symbol.tensor);
        auto const value = readShapeValue(mViews[t], symbol.index, model.tensors[t].name);
        if (!value)
        {
            return failure(ErrorCode::kFAILED_EXECUTION,
                "cannot read the data-dependent value " + q(symbol.name) + ": " + value.error().message);
        }
        mValues[static_cast<SymbolId>(s)] = value.value();
    }
    return checkAssertions(layer, mValues);
}

host::Status Executor::run(Bindings const& bindings, ActivationMemory memory, cudaStream_t stream)
{
    EngineModel const& model = mProgram.model();
    auto const evaluated = evaluateStatic(bindings);
    if (!evaluated)
    {
        return evaluated;
    }

    // Every I/O tensor needs memory: an address, or for outputs an allocator. Empty tensors may go without.
    auto const io = mProgram.ioTensors();
    for (std::size_t p = 0; p < io.size(); ++p)
    {
        TensorRecord const& tensor = model.tensors[static_cast<std::size_t>(io[p].tensor)];
        if (!io[p].isInput && bindings.allocators[p] != nullptr)
        {
            continue;
        }
        if (io[p].dataDependent && !io[p].upperBounded)
        {
            return failure(ErrorCode::kINVALID_STATE,
                "output " + q(tensor.name) + " has a data-dependent shape "
                    + dimsText(mStaticShapes[static_cast<std::size_t>(io[p].tensor)])
                    + "; set an IOutputAllocator for it with setOutputAllocator");
        }
        Dims const& shape = io[p].isInput ? bindings.shapes[p] : mStaticShapes[static_cast<std::size_t>(io[p].tensor)];
        if (bindings.addresses[p] == nullptr && host::elementCount(shape) != 0)
        {
            return failure(ErrorCode::kINVALID_STATE,
                "tensor " + q(tensor.name) + " has no address; set one with setTensorAddress");
        }
    }

    mShapes = mStaticShapes;
    for (int32_t p = 0; p < model.nbInputs; ++p)
    {
        auto const position = static_cast<std::size_t>(p);
        auto const t = static_cast<std::size_t>(io[position].tensor);
        mShapes[t] = bindings.shapes[position];
        mViews[t] = host::HostTensor{
            bindings.addresses[position], model.tensors[t].type, bindings.shapes[position], model.tensors[t].scale};
    }

    std::vector<host::HostTensor const*> inputs;
    std::vector<host::HostTensor> outputs;
    std::vector<Dims> outputDims;
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        auto const start = std::chrono::steady_clock::now();
        LayerRecord const& layer = model.layers[l];
        auto const index = static_cast<int32_t>(l);
        outputs.clear();
        outputDims.clear();
        // Outputs that wait for the layer's own size tensors are placed at their upper bounds.
        auto const capacity = upperBoundValues(index);
        if (!capacity)
        {
            return failure(capacity.error().code, layerText(layer) + ": " + capacity.error().message);
        }
        for (int32_t output : layer.outputs)
        {
            auto placed = completeShape(output, capacity.value() ? *capacity.value() : mValues);
            int32_t const root = mProgram.aliasRoot(output);
            if (placed && root != output)
            {
                // Written in place, into the memory of the input it aliases.
                auto const t = static_cast<std::size_t>(output);
                TensorRecord const& record = model.tensors[t];
                host::HostTensor const& source = mViews[static_cast<std::size_t>(root)];
                TensorRecord const& sourceRecord = model.tensors[static_cast<std::size_t>(root)];
                if (source.type != record.type || sourceRecord.format != record.format
                    || host::elementCount(mShapes[t]) > host::elementCount(source.dims))
                {
                    return failure(ErrorCode::kINVALID_ARGUMENT,
                        layerText(layer) + ": output " + q(record.name) + " " + dimsText(mShapes[t]) + " aliases "
                            + q(sourceRecord.name) + " " + dimsText(source.dims)
                            + ", which does not have its type, format and size");
                }
                mViews[t] = host::HostTensor{
                    mViews[static_cast<std::size_t>(root)].data, record.type, mShapes[t], record.scale};
            }
            else if (placed)
            {
                placed = placeOutput(output, bindings, memory, stream);
            }
            if (!placed)
            {
                return failure(placed.error().code, layerText(layer) + ": " + placed.error().message);
            }
            outputs.push_back(mViews[static_cast<std::size_t>(output)]);
            outputDims.push_back(descriptorDims(output, index));
        }
        inputs.clear();
        for (int32_t input : layer.inputs)
        {
            inputs.push_back(input == kNoTensor ? nullptr : &mViews[static_cast<std::size_t>(input)]);
        }
        auto const ran = isPluginLayer(layer.type) && mPlugins != nullptr
            ? mPlugins->run(index, inputs, outputs, outputDims)
            : mBackend->runLayer(layer, model, inputs, outputs, stream);
        if (!ran)
        {
            return failure(ran.error().code == ErrorCode::kSUCCESS ? ErrorCode::kFAILED_EXECUTION : ran.error().code,
                layerText(layer) + " failed: " + ran.error().message);
        }
        auto const bound = bindSymbolsOf(index);
        if (!bound)
        {
            return failure(bound.error().code, "after " + layerText(layer) + ": " + bound.error().message);
        }
        if (capacity.value())
        {
            auto const shrunk = shrinkToValues(layer);
            if (!shrunk)
            {
                return failure(shrunk.error().code, "after " + layerText(layer) + ": " + shrunk.error().message);
            }
        }
        for (int32_t output : layer.outputs)
        {
            int32_t const position = mProgram.ioPositionOfTensor(output);
            if (position >= 0 && bindings.allocators[static_cast<std::size_t>(position)] != nullptr)
            {
                bindings.allocators[static_cast<std::size_t>(position)]->notifyShape(
                    model.tensors[static_cast<std::size_t>(output)].name.c_str(),
                    mShapes[static_cast<std::size_t>(output)]);
            }
        }
        mLayerTimes[l] = std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - start).count();
    }
    return host::Done{};
}

} // namespace kiln
