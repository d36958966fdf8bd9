// SPDX-License-Identifier: Apache-2.0
#include "runtime/executor.h"

#include "backends/host/if_conditional.h"
#include "backends/host/layer_kinds.h"
#include "backends/host/reformat.h"
#include "runtime/executor_support.h"
#include "runtime/plugin_runtime.h"
#include "runtime/shape_values.h"

#include "core/data_type.h"
#include "network/layer_kinds.h"
#include "network/report.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <new>
#include <string_view>
#include <utility>

namespace kiln
{

using namespace executor_detail;
using nvinfer1::Dims;
using nvinfer1::ErrorCode;

Expected<int64_t> tensorBytes(DataType type, Dims const& dims)
{
    if (dims.nbDims < 0 || dims.nbDims > Dims::MAX_DIMS)
    {
        return failure(ErrorCode::kINVALID_ARGUMENT, "the shape " + dimsText(dims) + " has no valid rank");
    }
    int64_t count = 1;
    int64_t span = 1; // The product with each 0 taken as 1, bounded too (host::isValidShape).
    for (int32_t j = 0; j < dims.nbDims; ++j)
    {
        if (dims.d[j] < 0)
        {
            return failure(ErrorCode::kINVALID_ARGUMENT,
                "the shape " + dimsText(dims) + " has a negative extent " + std::to_string(dims.d[j]));
        }
        if (__builtin_mul_overflow(count, dims.d[j], &count) || count > std::numeric_limits<int64_t>::max() / 8
            || __builtin_mul_overflow(span, std::max<int64_t>(dims.d[j], 1), &span))
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

// ---- MemoryBlock ------------------------------------------------------------------------------------------------

void MemoryBlock::Free::operator()(std::byte* p) const noexcept
{
    if (device != nullptr)
    {
        static_cast<void>(device->deallocateAsync(p, stream));
        return;
    }
    ::operator delete (p, std::align_val_t{kActivationAlignment});
}

void MemoryBlock::reserve(int64_t bytes, cudaStream_t stream)
{
    if (bytes <= mSize && mData != nullptr)
    {
        return;
    }
    mData.get_deleter().stream = stream;
    mData.reset();
    mSize = 0;
    auto const size = static_cast<std::size_t>(std::max<int64_t>(bytes, 1));
    nvinfer1::IGpuAllocator* const device = mData.get_deleter().device;
    if (device != nullptr)
    {
        void* memory = device->allocateAsync(size, static_cast<uint64_t>(kActivationAlignment), 0, stream);
        if (memory == nullptr)
        {
            throw std::bad_alloc();
        }
        mData.reset(static_cast<std::byte*>(memory));
    }
    else
    {
        mData.reset(static_cast<std::byte*>(::operator new (size, std::align_val_t{kActivationAlignment})));
    }
    mSize = bytes;
}

// ---- Executor -----------------------------------------------------------------------------------------------------

Executor::Executor(EngineProgram const& program, std::unique_ptr<Backend> backend,
    std::unique_ptr<ContextPlugins> plugins, nvinfer1::IGpuAllocator* device)
    : mProgram(program)
    , mBackend(std::move(backend))
    , mPlugins(std::move(plugins))
{
    std::size_t const nbTensors = program.model().tensors.size();
    mShapes.assign(nbTensors, Dims{-1, {}});
    mViews.assign(nbTensors, host::HostTensor{});
    mMirrors.assign(nbTensors, host::HostTensor{});
    for (std::size_t t = 0; t < nbTensors; ++t)
    {
        bool const deviceWritten = program.tensorSide(static_cast<int32_t>(t)) == Side::kDEVICE;
        mOwned.emplace_back(deviceWritten ? device : nullptr);
        mLoopBuffers.emplace_back(deviceWritten ? device : nullptr);
        mMirrorOwned.emplace_back(deviceWritten ? nullptr : device);
    }
    if (program.onDevice())
    {
        mHostBackend = makeHostBackend();
    }
    mAllocated.assign(program.ioTensors().size(), nullptr);
    mLayerTimes.assign(program.model().layers.size(), 0.F);

    // Constants a CUDA engine may read from its weights: on the device, not an I/O tensor, no tensor aliasing them
    // (an in-place plugin would write into the weights).
    EngineModel const& model = program.model();
    mWeightsConstants.assign(model.layers.size(), false);
    if (program.onDevice())
    {
        std::vector<int32_t> const roots = memoryRoots(model);
        std::vector<bool> aliased(model.tensors.size(), false);
        for (std::size_t t = 0; t < roots.size(); ++t)
        {
            if (roots[t] != static_cast<int32_t>(t) && roots[t] >= 0)
            {
                aliased[static_cast<std::size_t>(roots[t])] = true;
            }
        }
        for (std::size_t l = 0; l < model.layers.size(); ++l)
        {
            LayerRecord const& layer = model.layers[l];
            if (layer.type != LayerType::kCONSTANT || layer.outputs.size() != 1
                || program.layerSide(static_cast<int32_t>(l)) != Side::kDEVICE)
            {
                continue;
            }
            auto const out = static_cast<std::size_t>(layer.outputs[0]);
            mWeightsConstants[l] = !model.tensors[out].isOutput && !aliased[out];
        }
    }

    // What runLayerAt would otherwise work out on every run: the side each input is read on, the device weights of
    // constants, and which layers are precomputed.
    mConstantData.assign(model.layers.size(), nullptr);
    mInputSides.resize(model.layers.size());
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        LayerRecord const& layer = model.layers[l];
        auto const index = static_cast<int32_t>(l);
        Side const side = program.layerSide(index);
        bool const plugin = isPluginLayer(layer.type);
        for (std::size_t i = 0; i < layer.inputs.size(); ++i)
        {
            int32_t const input = layer.inputs[i];
            host::InputUse const use
                = plugin || input == kNoTensor ? host::InputUse::kDATA : host::inputUse(layer.params, i);
            mInputSides[l].push_back(use == host::InputUse::kVALUES ? Side::kHOST
                    : use == host::InputUse::kSHAPE                 ? program.tensorSide(input)
                                                                    : side);
        }
        if (mWeightsConstants[l])
        {
            mConstantData[l] = mBackend->constantData(layer, model);
        }
        if (program.precomputed(index))
        {
            mPrecomputedLayers.push_back(index);
        }
    }
    for (int32_t p = 0; p < model.nbInputs; ++p)
    {
        if (model.tensors[static_cast<std::size_t>(program.ioTensors()[static_cast<std::size_t>(p)].tensor)]
                .isShapeTensor)
        {
            mShapeTensorInputs.push_back(p);
        }
    }
    mInputKey.values.resize(mShapeTensorInputs.size());
    char const* const replay = std::getenv("KILN_ENQUEUE_GRAPH");
    mReplay.capturable = capturableProgram() && (replay == nullptr || std::string_view(replay) != "0");
}

Executor::~Executor()
{
    timeOnDevice(false);
    dropReplayGraph();
}

void Executor::timeOnDevice(bool enabled) noexcept
{
#if KILN_WITH_CUDA
    mTimeOnDevice = enabled && mProgram.onDevice();
    if (!mTimeOnDevice)
    {
        for (cudaEvent_t event : mLayerEvents)
        {
            static_cast<void>(cudaEventDestroy(event));
        }
        mLayerEvents.clear();
        mEventsRecorded = false;
    }
#else
    static_cast<void>(enabled);
#endif
}

std::span<float const> Executor::layerTimes() noexcept
{
#if KILN_WITH_CUDA
    if (mTimeOnDevice && mEventsRecorded && mLayerEvents.size() == mLayerTimes.size() + 1)
    {
        bool const done = cudaEventSynchronize(mLayerEvents.back()) == cudaSuccess;
        for (std::size_t l = 0; l < mLayerTimes.size(); ++l)
        {
            float ms = 0.F;
            // A precomputed layer does not run on enqueue: what lies between its events is the events' own cost.
            if (!done || mProgram.precomputed(static_cast<int32_t>(l))
                || cudaEventElapsedTime(&ms, mLayerEvents[l], mLayerEvents[l + 1]) != cudaSuccess)
            {
                ms = 0.F;
            }
            mLayerTimes[l] = ms;
        }
        static_cast<void>(cudaGetLastError());
    }
#endif
    return mLayerTimes;
}

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
    mInputsKnown = false;
    mShapeValuesReady = false;
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

Expected<int64_t> Executor::currentBytes(int32_t tensor) const
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
    return bytes.value();
}

Expected<void*> Executor::ioMemory(int32_t position, int64_t bytes, Bindings const& bindings, cudaStream_t stream)
{
    auto const p = static_cast<std::size_t>(position);
    auto const t = static_cast<std::size_t>(mProgram.ioTensors()[p].tensor);
    TensorRecord const& record = mProgram.model().tensors[t];
    nvinfer1::IOutputAllocator* allocator = bindings.allocators[p];
    if (allocator == nullptr)
    {
        return bindings.addresses[p];
    }
    void* current = mAllocated[p] != nullptr ? mAllocated[p] : bindings.addresses[p];
    auto const size = static_cast<uint64_t>(std::max<int64_t>(bytes, 1));
    void* data = nullptr;
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
            "the output allocator of " + q(record.name) + " returned nullptr for " + std::to_string(bytes)
                + " bytes (shape " + dimsText(mShapes[t]) + ")");
    }
    mAllocated[p] = data;
    return data;
}

host::Status Executor::placeOutput(
    int32_t tensor, Bindings const& bindings, ActivationMemory memory, cudaStream_t stream)
{
    auto const t = static_cast<std::size_t>(tensor);
    TensorRecord const& record = mProgram.model().tensors[t];
    auto const bytes = currentBytes(tensor);
    if (!bytes)
    {
        return bytes.error();
    }
    void* data = nullptr;
    int32_t const position = mProgram.ioPositionOfTensor(tensor);
    int64_t const offset = mProgram.model().profiles[static_cast<std::size_t>(bindings.profile)].offsets[t];
    Side const written = mProgram.tensorSide(tensor);
    // The activation block is memory of the engine's backend.
    bool const inBlock = offset >= 0 && position < 0 && written == (mProgram.onDevice() ? Side::kDEVICE : Side::kHOST);
    if (position >= 0 && mProgram.ioSide(tensor) == written)
    {
        auto const given = ioMemory(position, bytes.value(), bindings, stream);
        if (!given)
        {
            return given.error();
        }
        data = given.value();
    }
    else if (inBlock && bytes.value() == 0)
    {
        data = memory.base != nullptr ? memory.base + offset : nullptr;
    }
    else if (inBlock)
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
        mOwned[t].reserve(bytes.value(), stream);
        data = mOwned[t].data();
    }
    mViews[t] = host::HostTensor{data, record.type, mShapes[t], record.scale};
    return host::Done{};
}

host::HostTensor const& Executor::viewOn(int32_t tensor, Side side) const
{
    auto const t = static_cast<std::size_t>(tensor);
    return mProgram.tensorSide(tensor) != side && mProgram.mirrored(tensor) ? mMirrors[t] : mViews[t];
}

bool Executor::branchTaken(int32_t node) const
{
    if (node < 0)
    {
        return true;
    }
    BranchNode const& branch = mProgram.branches().nodes[static_cast<std::size_t>(node)];
    // The enclosing branch first: a condition layer that did not run left nothing to read.
    return branchTaken(branch.parent)
        && host::conditionalBranch(viewOn(branch.condition, Side::kHOST)) == branch.onTrue;
}

host::Status Executor::mirror(int32_t tensor, Bindings const& bindings, cudaStream_t stream, bool& copiedToHost)
{
    auto const t = static_cast<std::size_t>(tensor);
    TensorRecord const& record = mProgram.model().tensors[t];
    auto const bytes = currentBytes(tensor);
    if (!bytes)
    {
        return bytes.error();
    }
    Side const to = mProgram.tensorSide(tensor) == Side::kHOST ? Side::kDEVICE : Side::kHOST;
    int32_t const position = mProgram.ioPositionOfTensor(tensor);
    void* data = nullptr;
    if (position >= 0 && mProgram.ioSide(tensor) == to)
    {
        auto const given = ioMemory(position, bytes.value(), bindings, stream);
        if (!given)
        {
            return given.error();
        }
        data = given.value();
    }
    else
    {
        mMirrorOwned[t].reserve(bytes.value(), stream);
        data = mMirrorOwned[t].data();
    }
    mMirrors[t] = host::HostTensor{data, record.type, mShapes[t], record.scale};
    if (bytes.value() == 0 || data == mViews[t].data)
    {
        return host::Done{};
    }
#if KILN_WITH_CUDA
    cudaError_t const status = cudaMemcpyAsync(data, mViews[t].data, static_cast<std::size_t>(bytes.value()),
        to == Side::kHOST ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice, stream);
    if (status != cudaSuccess)
    {
        static_cast<void>(cudaGetLastError());
        return failure(ErrorCode::kFAILED_EXECUTION,
            "copying tensor " + q(record.name) + " to the " + (to == Side::kHOST ? "host" : "device")
                + " failed: " + cudaGetErrorString(status));
    }
    copiedToHost = copiedToHost || to == Side::kHOST;
    return host::Done{};
#else
    static_cast<void>(stream);
    static_cast<void>(copiedToHost);
    return failure(ErrorCode::kINTERNAL_ERROR, "tensor " + q(record.name) + " has a copy in device memory");
#endif
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
                        + " its size tensors declared; the layer wrote past its buffer");
            }
        }
        mViews[t].dims = mShapes[t];
        mMirrors[t].dims = mShapes[t];
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
        auto const value = readShapeValue(viewOn(symbol.tensor, Side::kHOST), symbol.index, model.tensors[t].name);
        if (!value)
        {
            return failure(ErrorCode::kFAILED_EXECUTION,
                "cannot read the data-dependent value " + q(symbol.name) + ": " + value.error().message);
        }
        mValues[static_cast<SymbolId>(s)] = value.value();
        mValuesExtended = true;
    }
    return checkAssertions(layer, mValues);
}

host::Status Executor::run(Bindings const& bindings, ActivationMemory memory, cudaStream_t stream)
{
    EngineModel const& model = mProgram.model();
    mLastStream = stream;
    // However the run ends, the backend stops depending on stream (an application may destroy it after the run).
    struct Finish
    {
        Backend& backend;
        cudaStream_t stream;
        ~Finish() { backend.finishRun(stream); }
    } const finish{*mBackend, stream};
    auto const evaluated = prepareInputs(bindings);
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
    bool copiedToHost = false;
    for (int32_t p = 0; p < model.nbInputs; ++p)
    {
        auto const position = static_cast<std::size_t>(p);
        auto const t = static_cast<std::size_t>(io[position].tensor);
        mShapes[t] = bindings.shapes[position];
        mViews[t] = host::HostTensor{
            bindings.addresses[position], model.tensors[t].type, bindings.shapes[position], model.tensors[t].scale};
        if (mProgram.mirrored(io[position].tensor))
        {
            auto const copied = mirror(io[position].tensor, bindings, stream, copiedToHost);
            if (!copied)
            {
                return copied;
            }
        }
    }
    // The shape values: computed when the inputs changed, copied to the device once after that.
    if (!mShapeValuesReady)
    {
        auto const computed = computeShapeValues(bindings, stream);
        if (!computed)
        {
            return computed;
        }
    }
    if (auto const uploaded = uploadShapeValues(stream); !uploaded)
    {
        return uploaded;
    }
    if (auto const synced = synchronize(copiedToHost, stream); !synced)
    {
        return synced;
    }
    if (std::optional<host::Status> replayed = replayLayers(bindings, memory, stream))
    {
        return *replayed;
    }
    return runLayers(bindings, memory, stream, copiedToHost);
}

host::Status Executor::runLayers(
    Bindings const& bindings, ActivationMemory memory, cudaStream_t stream, bool& copiedToHost)
{
    EngineModel const& model = mProgram.model();
#if KILN_WITH_CUDA
    // Device timing: events made once, recorded before each layer and after the last.
    mEventsRecorded = false;
    if (mTimeOnDevice && mLayerEvents.empty())
    {
        for (std::size_t e = 0; e <= model.layers.size(); ++e)
        {
            cudaEvent_t event{};
            if (cudaEventCreate(&event) != cudaSuccess)
            {
                static_cast<void>(cudaGetLastError());
                break;
            }
            mLayerEvents.push_back(event);
        }
    }
    bool const recordEvents = mTimeOnDevice && mLayerEvents.size() == model.layers.size() + 1;
    auto const recordLayerEvent = [&](std::size_t e) {
        if (recordEvents && cudaEventRecord(mLayerEvents[e], stream) != cudaSuccess)
        {
            static_cast<void>(cudaGetLastError());
        }
    };
#endif
    Loops const& loops = mProgram.loops();
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
#if KILN_WITH_CUDA
        recordLayerEvent(l);
#endif
        int32_t const block = loops.layers.empty() ? -1 : loops.layers[l];
        if (block >= 0)
        {
            // A loop's block runs as one: its time goes to its first layer.
            LoopBlock const& loop = loops.blocks[static_cast<std::size_t>(block)];
            auto const ran = runLoop(loop, bindings, memory, stream, copiedToHost);
            if (!ran)
            {
                return ran;
            }
            for (int32_t member : loop.members)
            {
#if KILN_WITH_CUDA
                if (static_cast<std::size_t>(member) != l)
                {
                    recordLayerEvent(static_cast<std::size_t>(member));
                }
#endif
                l = static_cast<std::size_t>(member);
            }
            continue;
        }
        if (mProgram.precomputed(static_cast<int32_t>(l)))
        {
            // Computed for these inputs already; only the symbols its values bind are read again.
            mLayerTimes[l] = 0.F;
            if (!mProgram.symbolsBoundBy(static_cast<int32_t>(l)).empty())
            {
                auto const bound = bindSymbolsOf(static_cast<int32_t>(l));
                if (!bound)
                {
                    return failure(
                        bound.error().code, "after " + layerText(model.layers[l]) + ": " + bound.error().message);
                }
            }
            if (auto const reported = reportDebugTensors(model.layers[l], stream); !reported)
            {
                return reported;
            }
            continue;
        }
        auto const ran = runLayerAt(l, bindings, memory, stream, copiedToHost);
        if (!ran)
        {
            return ran;
        }
    }
#if KILN_WITH_CUDA
    recordLayerEvent(model.layers.size());
    mEventsRecorded = recordEvents;
#endif
    return host::Done{};
}

host::Status Executor::synchronize(bool& pending, cudaStream_t stream)
{
#if KILN_WITH_CUDA
    if (pending)
    {
        pending = false;
        if (cudaError_t const status = cudaStreamSynchronize(stream); status != cudaSuccess)
        {
            static_cast<void>(cudaGetLastError());
            return failure(ErrorCode::kFAILED_EXECUTION,
                std::string("the stream failed before values the host reads were copied: ")
                    + cudaGetErrorString(status));
        }
    }
#else
    static_cast<void>(stream);
#endif
    pending = false;
    return host::Done{};
}

void Executor::observeDebugTensors(nvinfer1::IDebugListener* listener, std::span<uint8_t const> on)
{
    std::span<int32_t const> const debug = mProgram.debugTensors();
    mDebugObserved.assign(mProgram.model().tensors.size(), 0);
    bool any = false;
    for (std::size_t i = 0; i < debug.size() && i < on.size(); ++i)
    {
        mDebugObserved[static_cast<std::size_t>(debug[i])] = on[i];
        any = any || on[i] != 0;
    }
    mDebugListener = any ? listener : nullptr;
}

host::Status Executor::reportDebugTensors(LayerRecord const& layer, cudaStream_t stream) const
{
    if (mDebugListener == nullptr)
    {
        return host::Done{};
    }
    for (int32_t output : layer.outputs)
    {
        auto const t = static_cast<std::size_t>(output);
        if (mDebugObserved[t] == 0)
        {
            continue;
        }
        TensorRecord const& record = mProgram.model().tensors[t];
        auto const location = mProgram.tensorSide(output) == Side::kDEVICE ? nvinfer1::TensorLocation::kDEVICE
                                                                           : nvinfer1::TensorLocation::kHOST;
        bool accepted = false;
        try
        {
            accepted = mDebugListener->processDebugTensor(
                mViews[t].data, location, record.type, mShapes[t], record.name.c_str(), stream);
        }
        catch (...)
        {
            accepted = false;
        }
        if (!accepted)
        {
            return failure(ErrorCode::kFAILED_EXECUTION,
                "after " + layerText(layer) + ": the debug listener failed on debug tensor " + q(record.name)
                    + " (IDebugListener::processDebugTensor returned false)");
        }
    }
    return host::Done{};
}

host::Status Executor::runLayerAt(
    std::size_t l, Bindings const& bindings, ActivationMemory memory, cudaStream_t stream, bool& copiedToHost)
{
    EngineModel const& model = mProgram.model();
    std::vector<host::HostTensor const*>& inputs = mScratchInputs;
    std::vector<host::HostTensor>& outputs = mScratchOutputs;
    std::vector<Dims>& outputDims = mScratchDims;
    auto const start = std::chrono::steady_clock::now();
    LayerRecord const& layer = model.layers[l];
    auto const index = static_cast<int32_t>(l);
    mLayerTimes[l] = 0.F;
    if (!branchTaken(mProgram.branches().layers[l]))
    {
        return host::Done{}; // In the branch of an if-conditional that the condition did not choose.
    }
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
            // Types and formats were checked at load; the size depends on this run's shapes.
            if (host::elementCount(mShapes[t]) > host::elementCount(source.dims))
            {
                return failure(ErrorCode::kINVALID_ARGUMENT,
                    layerText(layer) + ": output " + q(record.name) + " " + dimsText(mShapes[t]) + " aliases "
                        + q(sourceRecord.name) + " " + dimsText(source.dims) + ", which is smaller");
            }
            mViews[t]
                = host::HostTensor{viewOn(root, mProgram.layerSide(index)).data, record.type, mShapes[t], record.scale};
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
    // Each input from the side the layer reads it on: values on the host, data where the layer runs.
    Side const side = mProgram.layerSide(index);
    bool const plugin = isPluginLayer(layer.type);
    inputs.clear();
    std::vector<Side> const& sides = mInputSides[l];
    for (std::size_t i = 0; i < layer.inputs.size(); ++i)
    {
        int32_t const input = layer.inputs[i];
        inputs.push_back(input == kNoTensor ? nullptr : &viewOn(input, sides[i]));
    }
    Backend& backend = side == Side::kHOST && mHostBackend != nullptr ? *mHostBackend : *mBackend;
    // A constant whose values the engine's weights already hold on the device is read from them: nothing runs.
    void const* const weights = mConstantData[l];
    if (weights != nullptr)
    {
        mViews[static_cast<std::size_t>(layer.outputs[0])].data = const_cast<void*>(weights);
    }
    // A reshape whose output is a view of its input's memory has nothing to do either.
    auto const ran = weights != nullptr || mProgram.reshapeView(index) ? host::Status{host::Done{}}
        : plugin && mPlugins != nullptr ? mPlugins->run(index, inputs, outputs, outputDims, stream)
                                        : backend.runLayer(layer, model, inputs, outputs, stream);
    if (!ran)
    {
        return failure(ran.error().code == ErrorCode::kSUCCESS ? ErrorCode::kFAILED_EXECUTION : ran.error().code,
            layerText(layer) + " failed: " + ran.error().message);
    }
    for (int32_t output : layer.outputs)
    {
        if (mProgram.mirrored(output))
        {
            auto const copied = mirror(output, bindings, stream, copiedToHost);
            if (!copied)
            {
                return failure(copied.error().code, "after " + layerText(layer) + ": " + copied.error().message);
            }
        }
    }
    if (auto const synced = synchronize(copiedToHost, stream); !synced)
    {
        return failure(synced.error().code, "after " + layerText(layer) + ": " + synced.error().message);
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
    if (auto const reported = reportDebugTensors(layer, stream); !reported)
    {
        return reported;
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
    return host::Done{};
}

} // namespace kiln
