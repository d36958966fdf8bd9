// SPDX-License-Identifier: Apache-2.0
#include "runtime/context.h"

#include "core/data_type.h"
#include "core/logging.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace kiln
{
namespace
{

using nvinfer1::Dims;
using nvinfer1::ErrorCode;
using nvinfer1::ExecutionContextAllocationStrategy;
using nvinfer1::TensorIOMode;

constexpr Dims kNoDims{-1, {}};

//! "kSTATIC" for messages.
char const* strategyName(ExecutionContextAllocationStrategy strategy) noexcept
{
    switch (strategy)
    {
    case ExecutionContextAllocationStrategy::kSTATIC: return "kSTATIC";
    case ExecutionContextAllocationStrategy::kON_PROFILE_CHANGE: return "kON_PROFILE_CHANGE";
    case ExecutionContextAllocationStrategy::kUSER_MANAGED: return "kUSER_MANAGED";
    }
    return "an unknown strategy";
}

//! The alignment setTensorAddress asks for: one element (the host reads elements in place).
int64_t elementAlignment(DataType type) noexcept
{
    return std::max<int64_t>(1, dataTypeBits(type) / 8);
}

} // namespace

ExecutionContext::ExecutionContext(Engine const& engine, ExecutionContextAllocationStrategy strategy,
    std::unique_ptr<Backend> backend, std::unique_ptr<ContextPlugins> plugins)
    : mEngine(engine)
    , mProgram(engine.program())
    , mConfig(strategy)
    , mExecutor(engine.program(), std::move(backend), std::move(plugins), engine.deviceAllocator())
    , mActivations(engine.program().onDevice() ? engine.deviceAllocator() : nullptr)
{
    mImpl = &mImplObject;
    mReporter.setRecorder(engine.reporter().recorder());
    std::size_t const nbIo = mProgram.ioTensors().size();
    mBindings.shapes.assign(nbIo, kNoDims);
    mBindings.addresses.assign(nbIo, nullptr);
    mBindings.allocators.assign(nbIo, nullptr);
    mDebugStates.assign(mProgram.debugTensors().size(), 0);
    resetShapes();
    if (strategy == ExecutionContextAllocationStrategy::kSTATIC)
    {
        mActivations.reserve(engine.maxActivationBytes());
    }
    else if (strategy == ExecutionContextAllocationStrategy::kON_PROFILE_CHANGE)
    {
        mActivations.reserve(engine.activationBytes(0));
    }
}

ExecutionContext::~ExecutionContext() noexcept = default;

void ExecutionContext::resetShapes()
{
    for (int32_t p = 0; p < mProgram.model().nbInputs; ++p)
    {
        int32_t const t = mProgram.ioTensors()[static_cast<std::size_t>(p)].tensor;
        mBindings.shapes[static_cast<std::size_t>(p)] = mProgram.hasStaticShape(t) ? mProgram.staticShape(t) : kNoDims;
    }
}

std::vector<Dims> ExecutionContext::knownShapes() const
{
    InputState const state = bindInputs(mProgram, mBindings);
    std::vector<Dims> shapes;
    for (std::size_t t = 0; t < mProgram.model().tensors.size(); ++t)
    {
        int32_t const p = mProgram.ioPositionOfTensor(static_cast<int32_t>(t));
        bool const isInput = p >= 0 && mProgram.ioTensors()[static_cast<std::size_t>(p)].isInput;
        if (isInput && mBindings.shapes[static_cast<std::size_t>(p)].nbDims >= 0)
        {
            shapes.push_back(mBindings.shapes[static_cast<std::size_t>(p)]);
        }
        else
        {
            shapes.push_back(mProgram.knownShape(static_cast<int32_t>(t), state.values));
        }
    }
    return shapes;
}

// ---- Settings -----------------------------------------------------------------------------------------------------

void ExecutionContext::Impl::setDebugSync(bool sync) noexcept
{
    mContext.mDebugSync = sync;
}

bool ExecutionContext::Impl::getDebugSync() const noexcept
{
    return mContext.mDebugSync;
}

void ExecutionContext::Impl::setProfiler(nvinfer1::IProfiler* profiler) noexcept
{
    mContext.mProfiler = profiler;
    // A CUDA engine's layers are timed on the GPU while a profiler is set.
    mContext.mExecutor.timeOnDevice(profiler != nullptr);
}

nvinfer1::IProfiler* ExecutionContext::Impl::getProfiler() const noexcept
{
    return mContext.mProfiler;
}

nvinfer1::ICudaEngine const& ExecutionContext::Impl::getEngine() const noexcept
{
    return mContext.mEngine;
}

void ExecutionContext::Impl::setName(char const* name) noexcept
{
    mContext.mReporter.guard("IExecutionContext::setName", false, [&] {
        mContext.mName = name != nullptr ? name : "";
        return true;
    });
}

char const* ExecutionContext::Impl::getName() const noexcept
{
    return mContext.mName.c_str();
}

void ExecutionContext::Impl::setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept
{
    mContext.mReporter.setRecorder(recorder);
}

nvinfer1::IErrorRecorder* ExecutionContext::Impl::getErrorRecorder() const noexcept
{
    return mContext.mReporter.recorder();
}

void ExecutionContext::Impl::setEnqueueEmitsProfile(bool enqueueEmitsProfile) noexcept
{
    mContext.mEnqueueEmitsProfile = enqueueEmitsProfile;
}

bool ExecutionContext::Impl::getEnqueueEmitsProfile() const noexcept
{
    return mContext.mEnqueueEmitsProfile;
}

bool ExecutionContext::Impl::reportToProfiler() const noexcept
{
    constexpr char const* kWhere = "IExecutionContext::reportToProfiler";
    if (mContext.mProfiler == nullptr)
    {
        mContext.mReporter.error(ErrorCode::kINVALID_STATE, kWhere, ": no profiler is set; set one with setProfiler");
        return false;
    }
    if (!mContext.mHasRun)
    {
        mContext.mReporter.error(ErrorCode::kINVALID_STATE, kWhere, ": the context has not run yet");
        return false;
    }
    auto const times = mContext.mExecutor.layerTimes();
    for (std::size_t l = 0; l < times.size(); ++l)
    {
        mContext.mProfiler->reportLayerTime(mContext.mProgram.model().layers[l].name.c_str(), times[l]);
    }
    return true;
}

bool ExecutionContext::Impl::setInputConsumedEvent(cudaEvent_t event) noexcept
{
    // A host engine has consumed its inputs when enqueueV3 returns; a CUDA engine records the event on the stream
    // once its work is queued (execute).
    mContext.mInputConsumedEvent = event;
    return true;
}

cudaEvent_t ExecutionContext::Impl::getInputConsumedEvent() const noexcept
{
    return mContext.mInputConsumedEvent;
}

bool ExecutionContext::Impl::setTemporaryStorageAllocator(nvinfer1::IGpuAllocator* allocator) noexcept
{
    mContext.mTemporaryAllocator = allocator;
    return true;
}

nvinfer1::IGpuAllocator* ExecutionContext::Impl::getTemporaryStorageAllocator() const noexcept
{
    return mContext.mTemporaryAllocator;
}

void ExecutionContext::Impl::setPersistentCacheLimit(size_t size) noexcept
{
    mContext.mPersistentCacheLimit = size;
}

size_t ExecutionContext::Impl::getPersistentCacheLimit() const noexcept
{
    return mContext.mPersistentCacheLimit;
}

bool ExecutionContext::Impl::setNvtxVerbosity(nvinfer1::ProfilingVerbosity verbosity) noexcept
{
    if (!isValidEnum(verbosity))
    {
        mContext.mReporter.error(ErrorCode::kINVALID_ARGUMENT, "IExecutionContext::setNvtxVerbosity: ", verbosity,
            " is no ProfilingVerbosity");
        return false;
    }
    mContext.mNvtxVerbosity = verbosity;
    return true;
}

nvinfer1::ProfilingVerbosity ExecutionContext::Impl::getNvtxVerbosity() const noexcept
{
    return mContext.mNvtxVerbosity;
}

void ExecutionContext::Impl::setAuxStreams(cudaStream_t* auxStreams, int32_t nbStreams) noexcept
{
    constexpr char const* kWhere = "IExecutionContext::setAuxStreams";
    if (nbStreams < 0 || (nbStreams > 0 && auxStreams == nullptr))
    {
        mContext.mReporter.error(ErrorCode::kINVALID_ARGUMENT, kWhere, ": ", nbStreams,
            " streams at a null array; give a non-negative count and the streams");
        return;
    }
    mContext.mReporter.guard(kWhere, false, [&] {
        mContext.mAuxStreams.assign(auxStreams, auxStreams + nbStreams);
        return true;
    });
}

bool ExecutionContext::Impl::setDebugListener(nvinfer1::IDebugListener* listener) noexcept
{
    mContext.mDebugListener = listener;
    mContext.mExecutor.observeDebugTensors(listener, mContext.mDebugStates);
    return true;
}

nvinfer1::IDebugListener* ExecutionContext::Impl::getDebugListener() noexcept
{
    return mContext.mDebugListener;
}

bool ExecutionContext::Impl::setTensorDebugState(char const* name, bool flag) noexcept
{
    int32_t const position = name == nullptr ? -1 : mContext.mProgram.debugPosition(name);
    if (position < 0)
    {
        mContext.mReporter.error(ErrorCode::kINVALID_ARGUMENT, "IExecutionContext::setTensorDebugState: tensor ",
            quotedText(name), " was not marked as a debug tensor when the engine was built");
        return false;
    }
    mContext.mDebugStates[static_cast<std::size_t>(position)] = flag ? 1 : 0;
    mContext.mExecutor.observeDebugTensors(mContext.mDebugListener, mContext.mDebugStates);
    return true;
}

bool ExecutionContext::Impl::getDebugState(char const* name) const noexcept
{
    int32_t const position = name == nullptr ? -1 : mContext.mProgram.debugPosition(name);
    return position >= 0 && mContext.mDebugStates[static_cast<std::size_t>(position)] != 0;
}

bool ExecutionContext::Impl::setAllTensorsDebugState(bool flag) noexcept
{
    std::fill(mContext.mDebugStates.begin(), mContext.mDebugStates.end(), flag ? 1 : 0);
    mContext.mExecutor.observeDebugTensors(mContext.mDebugListener, mContext.mDebugStates);
    return true;
}

bool ExecutionContext::Impl::setUnfusedTensorsDebugState(bool flag) noexcept
{
    mContext.mUnfusedTensorsDebugState = flag;
    return true;
}

bool ExecutionContext::Impl::getUnfusedTensorsDebugState() const noexcept
{
    return mContext.mUnfusedTensorsDebugState;
}

bool ExecutionContext::Impl::setCommunicator(void* communicator) noexcept
{
    mContext.mCommunicator = communicator;
    if (communicator != nullptr)
    {
        // Kept, as TensorRT keeps it, but kiln builds no collective layers: nothing will use it.
        log(Severity::kWARNING,
            "IExecutionContext::setCommunicator: the communicator is kept but not used: kiln builds no collective "
            "(multi-device) layers, so its engines run on one device");
    }
    return true;
}

nvinfer1::IRuntimeConfig* ExecutionContext::Impl::getRuntimeConfig() const noexcept
{
    return &mContext.mConfig;
}

// ---- Profiles and shapes ------------------------------------------------------------------------------------------

int32_t ExecutionContext::Impl::getOptimizationProfile() const noexcept
{
    return mContext.mBindings.profile;
}

bool ExecutionContext::Impl::setOptimizationProfileAsync(int32_t profileIndex, cudaStream_t stream) noexcept
{
    constexpr char const* kWhere = "IExecutionContext::setOptimizationProfileAsync";
    if (!mContext.mEngine.checkProfile(kWhere, profileIndex, mContext.mReporter))
    {
        return false;
    }
    if (profileIndex == mContext.mBindings.profile)
    {
        return true;
    }
    return mContext.mReporter.guard(kWhere, false, [&] {
        if (mContext.mConfig.strategy() == ExecutionContextAllocationStrategy::kON_PROFILE_CHANGE)
        {
            // In the order of stream, after the work that used the previous profile's block.
            mContext.mActivations.release(stream);
            mContext.mActivations.reserve(mContext.mEngine.activationBytes(profileIndex), stream);
        }
        mContext.mBindings.profile = profileIndex;
        mContext.resetShapes();
        return true;
    });
}

bool ExecutionContext::Impl::setInputShape(char const* tensorName, Dims const& dims) noexcept
{
    constexpr char const* kWhere = "IExecutionContext::setInputShape";
    ExecutionContext& c = mContext;
    int32_t const p = c.mEngine.findIo(kWhere, tensorName, c.mReporter);
    if (p < 0)
    {
        return false;
    }
    auto const& io = c.mProgram.ioTensors()[static_cast<std::size_t>(p)];
    TensorRecord const& tensor = c.mProgram.model().tensors[static_cast<std::size_t>(io.tensor)];
    if (!io.isInput)
    {
        c.mReporter.error(ErrorCode::kINVALID_ARGUMENT, kWhere, ": tensor '", tensor.name,
            "' is an output; only inputs take a shape");
        return false;
    }
    int32_t const profile = c.mBindings.profile;
    auto const& range = *c.mProgram.profileInput(profile, p).record;
    auto const rank = static_cast<int32_t>(tensor.shape.size());
    if (dims.nbDims != rank)
    {
        c.mReporter.error(ErrorCode::kINVALID_ARGUMENT, kWhere, ": input '", tensor.name, "' has rank ", rank,
            "; the dims given, ", dims, ", do not (optimization profile ", profile, " allows ", range.min, " to ",
            range.max, ")");
        return false;
    }
    Dims const fixed = c.mProgram.staticShape(io.tensor);
    for (int32_t j = 0; j < rank; ++j)
    {
        if (fixed.d[j] >= 0 && dims.d[j] != fixed.d[j])
        {
            c.mReporter.error(ErrorCode::kINVALID_ARGUMENT, kWhere, ": input '", tensor.name, "': the dims given, ",
                dims, ", have extent ", j, " = ", dims.d[j], "; the engine was built with ", fixed.d[j], " there ",
                "(shape ", fixed, ")");
            return false;
        }
    }
    for (int32_t j = 0; j < rank; ++j)
    {
        if (dims.d[j] < range.min.d[j] || dims.d[j] > range.max.d[j])
        {
            c.mReporter.error(ErrorCode::kINVALID_ARGUMENT, kWhere, ": input '", tensor.name, "': the dims given, ",
                dims, ", are outside optimization profile ", profile, "'s range ", range.min, " to ", range.max,
                " (extent ", j, ")");
            return false;
        }
    }
    c.mBindings.shapes[static_cast<std::size_t>(p)] = dims;
    // Shape values are computed now, once every input is given; a failure is enqueueV3's to report.
    try
    {
        static_cast<void>(c.mExecutor.prepareShapeValues(c.mBindings));
    }
    catch (...)
    {
    }
    return true;
}

Dims ExecutionContext::Impl::shapeOf(char const* method, char const* tensorName) const noexcept
{
    ExecutionContext const& c = mContext;
    int32_t const p = c.mEngine.findIo(method, tensorName, c.mReporter);
    if (p < 0)
    {
        return kNoDims;
    }
    return c.mReporter.guard(method, kNoDims, [&] {
        auto const& io = c.mProgram.ioTensors()[static_cast<std::size_t>(p)];
        if (io.isInput)
        {
            Dims const& shape = c.mBindings.shapes[static_cast<std::size_t>(p)];
            return shape.nbDims >= 0 ? shape : c.mProgram.staticShape(io.tensor);
        }
        // A data-dependent output's shape is known once an enqueue with the current inputs has run.
        if (io.dataDependent && c.mLastRun && c.mLastRun->profile == c.mBindings.profile
            && std::equal(c.mBindings.shapes.begin(), c.mBindings.shapes.end(), c.mLastRun->shapes.begin(),
                [](Dims const& a, Dims const& b) {
                    return a.nbDims == b.nbDims && std::equal(a.d, a.d + std::max(a.nbDims, 0), b.d);
                }))
        {
            return c.mExecutor.shapes()[static_cast<std::size_t>(io.tensor)];
        }
        InputState const state = bindInputs(c.mProgram, c.mBindings);
        return c.mProgram.knownShape(io.tensor, state.values);
    });
}

Dims ExecutionContext::Impl::getTensorShape(char const* tensorName) const noexcept
{
    return shapeOf("IExecutionContext::getTensorShape", tensorName);
}

Dims ExecutionContext::Impl::getTensorStrides(char const* tensorName) const noexcept
{
    Dims const shape = shapeOf("IExecutionContext::getTensorStrides", tensorName);
    if (shape.nbDims < 0)
    {
        return kNoDims;
    }
    Dims strides{shape.nbDims, {}};
    int64_t stride = 1;
    for (int32_t j = shape.nbDims - 1; j >= 0; --j)
    {
        strides.d[j] = stride;
        if (stride >= 0)
        {
            stride = shape.d[j] < 0 ? -1 : stride * std::max<int64_t>(shape.d[j], 1);
        }
    }
    return strides;
}

bool ExecutionContext::Impl::allInputDimensionsSpecified() const noexcept
{
    auto const& shapes = mContext.mBindings.shapes;
    int32_t const nbInputs = mContext.mProgram.model().nbInputs;
    return std::all_of(shapes.begin(), shapes.begin() + nbInputs, [](Dims const& d) { return d.nbDims >= 0; });
}

bool ExecutionContext::Impl::allInputShapesSpecified() const noexcept
{
    // TensorRT 10 has no shape bindings left to specify: input shape tensors are given by their addresses.
    return true;
}

int32_t ExecutionContext::Impl::inferShapes(int32_t nbMaxNames, char const** tensorNames) noexcept
{
    constexpr char const* kWhere = "IExecutionContext::inferShapes";
    ExecutionContext& c = mContext;
    if (nbMaxNames < 0 || (nbMaxNames > 0 && tensorNames == nullptr))
    {
        c.mReporter.error(ErrorCode::kINVALID_ARGUMENT, kWhere, ": room for ", nbMaxNames,
            " names at a null array; give a non-negative count and an array for the names of missing inputs");
        return -1;
    }
    return c.mReporter.guard(kWhere, int32_t{-1}, [&]() -> int32_t {
        EngineModel const& model = c.mProgram.model();
        InputState const state = bindInputs(c.mProgram, c.mBindings);
        if (!state.missing.empty())
        {
            for (std::size_t i = 0; i < state.missing.size() && static_cast<int32_t>(i) < nbMaxNames; ++i)
            {
                auto const t = c.mProgram.ioTensors()[static_cast<std::size_t>(state.missing[i])].tensor;
                tensorNames[i] = model.tensors[static_cast<std::size_t>(t)].name.c_str();
            }
            return static_cast<int32_t>(state.missing.size());
        }
        auto const prepared = c.mExecutor.prepareShapes(c.mBindings);
        if (!prepared)
        {
            c.mReporter.error(prepared.error().code, kWhere, ": ", prepared.error().message);
            return -1;
        }
        // Output shape tensors whose values the inputs decide get them now.
        for (std::size_t p = static_cast<std::size_t>(model.nbInputs); p < c.mProgram.ioTensors().size(); ++p)
        {
            TensorRecord const& tensor = model.tensors[static_cast<std::size_t>(c.mProgram.ioTensors()[p].tensor)];
            void* address = c.mBindings.addresses[p];
            if (!tensor.isShapeTensor || !tensor.values || address == nullptr
                || (tensor.type != DataType::kINT32 && tensor.type != DataType::kINT64))
            {
                continue;
            }
            Dims const shape = c.mExecutor.shapes()[static_cast<std::size_t>(c.mProgram.ioTensors()[p].tensor)];
            host::HostTensor const view{address, tensor.type, shape, 1.0F};
            if (host::elementCount(shape) != static_cast<int64_t>(tensor.values->size()))
            {
                continue;
            }
            for (std::size_t i = 0; i < tensor.values->size(); ++i)
            {
                auto const value = c.mProgram.exprs().evaluate(c.mProgram.node((*tensor.values)[i]), state.values);
                if (value)
                {
                    host::storeInteger(view, static_cast<int64_t>(i), value.value());
                }
            }
        }
        return 0;
    });
}

size_t ExecutionContext::Impl::updateDeviceMemorySizeForShapes() noexcept
{
    if (!allInputDimensionsSpecified())
    {
        mContext.mReporter.error(ErrorCode::kINVALID_STATE, "IExecutionContext::updateDeviceMemorySizeForShapes: ",
            "set the shape of every input with setInputShape first");
        return 0;
    }
    // Activation memory is planned per profile for its largest shapes; smaller shapes fit in the same block.
    return static_cast<size_t>(mContext.mEngine.activationBytes(mContext.mBindings.profile));
}

// ---- Addresses and allocators -------------------------------------------------------------------------------------

bool ExecutionContext::Impl::setAddress(
    char const* method, char const* tensorName, void* data, TensorIOMode mode) noexcept
{
    ExecutionContext& c = mContext;
    int32_t const p = c.mEngine.findIo(method, tensorName, c.mReporter);
    if (p < 0)
    {
        return false;
    }
    auto const& io = c.mProgram.ioTensors()[static_cast<std::size_t>(p)];
    TensorRecord const& tensor = c.mProgram.model().tensors[static_cast<std::size_t>(io.tensor)];
    if (mode == TensorIOMode::kINPUT && !io.isInput)
    {
        c.mReporter.error(ErrorCode::kINVALID_ARGUMENT, method, ": tensor '", tensor.name,
            "' is an output; set its address with setOutputTensorAddress or setTensorAddress");
        return false;
    }
    if (mode == TensorIOMode::kOUTPUT && io.isInput)
    {
        c.mReporter.error(ErrorCode::kINVALID_ARGUMENT, method, ": tensor '", tensor.name,
            "' is an input; set its address with setInputTensorAddress or setTensorAddress");
        return false;
    }
    int64_t const alignment = elementAlignment(tensor.type);
    if (reinterpret_cast<std::uintptr_t>(data) % static_cast<std::uintptr_t>(alignment) != 0)
    {
        c.mReporter.error(ErrorCode::kINVALID_ARGUMENT, method, ": the address given for '", tensor.name,
            "' is not aligned to ", alignment, " bytes, the size of its ", dataTypeName(tensor.type), " elements");
        return false;
    }
    c.mBindings.addresses[static_cast<std::size_t>(p)] = data;
    return true;
}

bool ExecutionContext::Impl::setTensorAddress(char const* tensorName, void* data) noexcept
{
    return setAddress("IExecutionContext::setTensorAddress", tensorName, data, TensorIOMode::kNONE);
}

bool ExecutionContext::Impl::setInputTensorAddress(char const* tensorName, void const* data) noexcept
{
    // The executor never writes an input; the pointer is kept without its const for the shared address table.
    return setAddress(
        "IExecutionContext::setInputTensorAddress", tensorName, const_cast<void*>(data), TensorIOMode::kINPUT);
}

bool ExecutionContext::Impl::setOutputTensorAddress(char const* tensorName, void* data) noexcept
{
    return setAddress("IExecutionContext::setOutputTensorAddress", tensorName, data, TensorIOMode::kOUTPUT);
}

void const* ExecutionContext::Impl::getTensorAddress(char const* tensorName) const noexcept
{
    int32_t const p = mContext.mEngine.findIo("IExecutionContext::getTensorAddress", tensorName, mContext.mReporter);
    return p < 0 ? nullptr : mContext.mBindings.addresses[static_cast<std::size_t>(p)];
}

void* ExecutionContext::Impl::getOutputTensorAddress(char const* tensorName) const noexcept
{
    constexpr char const* kWhere = "IExecutionContext::getOutputTensorAddress";
    int32_t const p = mContext.mEngine.findIo(kWhere, tensorName, mContext.mReporter);
    if (p < 0)
    {
        return nullptr;
    }
    if (mContext.mProgram.ioTensors()[static_cast<std::size_t>(p)].isInput)
    {
        mContext.mReporter.error(
            ErrorCode::kINVALID_ARGUMENT, kWhere, ": tensor '", tensorName, "' is an input; use getTensorAddress");
        return nullptr;
    }
    return mContext.mBindings.addresses[static_cast<std::size_t>(p)];
}

bool ExecutionContext::Impl::setOutputAllocator(
    char const* tensorName, nvinfer1::IOutputAllocator* outputAllocator) noexcept
{
    constexpr char const* kWhere = "IExecutionContext::setOutputAllocator";
    int32_t const p = mContext.mEngine.findIo(kWhere, tensorName, mContext.mReporter);
    if (p < 0)
    {
        return false;
    }
    if (mContext.mProgram.ioTensors()[static_cast<std::size_t>(p)].isInput)
    {
        mContext.mReporter.error(ErrorCode::kINVALID_ARGUMENT, kWhere, ": tensor '", tensorName,
            "' is an input; output allocators serve outputs");
        return false;
    }
    mContext.mBindings.allocators[static_cast<std::size_t>(p)] = outputAllocator;
    return true;
}

nvinfer1::IOutputAllocator* ExecutionContext::Impl::getOutputAllocator(char const* name) noexcept
{
    int32_t const p = mContext.mEngine.findIo("IExecutionContext::getOutputAllocator", name, mContext.mReporter);
    return p < 0 ? nullptr : mContext.mBindings.allocators[static_cast<std::size_t>(p)];
}

int64_t ExecutionContext::Impl::getMaxOutputSize(char const* tensorName) const noexcept
{
    constexpr char const* kWhere = "IExecutionContext::getMaxOutputSize";
    ExecutionContext const& c = mContext;
    int32_t const p = c.mEngine.findIo(kWhere, tensorName, c.mReporter);
    if (p < 0)
    {
        return -1;
    }
    auto const& io = c.mProgram.ioTensors()[static_cast<std::size_t>(p)];
    if (io.isInput)
    {
        c.mReporter.error(
            ErrorCode::kINVALID_ARGUMENT, kWhere, ": tensor '", tensorName, "' is an input; it takes outputs");
        return -1;
    }
    return c.mReporter.guard(kWhere, int64_t{-1}, [&]() -> int64_t {
        EngineModel const& model = c.mProgram.model();
        InputState const state = bindInputs(c.mProgram, c.mBindings);
        if (!state.missing.empty())
        {
            return -1;
        }
        // Ranges: the inputs' symbols are exact; a size tensor ranges up to its upper bound; other data-dependent
        // values have no bound, so neither has the output.
        std::map<SymbolId, Interval> ranges;
        for (auto const& [symbol, value] : state.values)
        {
            ranges[symbol] = Interval{value, value};
        }
        for (std::size_t s = 0; s < model.symbols.size(); ++s)
        {
            SymbolRecord const& symbol = model.symbols[s];
            if (symbol.kind != SymbolKind::kSIZE_TENSOR)
            {
                continue;
            }
            if (symbol.upperBound < 0 || static_cast<std::size_t>(symbol.upperBound) >= model.exprs.size())
            {
                return -1;
            }
            auto const upper
                = c.mProgram.exprs().evaluate(c.mProgram.node(static_cast<uint32_t>(symbol.upperBound)), state.values);
            if (!upper)
            {
                return -1;
            }
            ranges[static_cast<SymbolId>(s)] = Interval{0, upper.value()};
        }
        TensorRecord const& tensor = model.tensors[static_cast<std::size_t>(io.tensor)];
        Dims largest{static_cast<int32_t>(tensor.shape.size()), {}};
        for (std::size_t j = 0; j < tensor.shape.size(); ++j)
        {
            auto const bound = c.mProgram.exprs().bounds(c.mProgram.node(tensor.shape[j]), ranges);
            if (!bound || bound.value().hi < 0)
            {
                return -1;
            }
            largest.d[j] = bound.value().hi;
        }
        auto const bytes = tensorBytes(tensor.type, largest);
        return bytes ? bytes.value() : -1;
    });
}

// ---- Memory and execution -----------------------------------------------------------------------------------------

bool ExecutionContext::Impl::takeDeviceMemory(char const* method, void* memory, int64_t size) noexcept
{
    ExecutionContext& c = mContext;
    ExecutionContextAllocationStrategy const strategy = c.mConfig.strategy();
    if (strategy != ExecutionContextAllocationStrategy::kUSER_MANAGED)
    {
        c.mReporter.error(ErrorCode::kINVALID_STATE, method, ": the context was created with ", strategyName(strategy),
            " and allocates its own device memory; only a context created with kUSER_MANAGED takes memory");
        return false;
    }
    int64_t const needed = c.mEngine.activationBytes(c.mBindings.profile);
    if (size < -1 || (memory == nullptr && size != 0 && needed > 0))
    {
        c.mReporter.error(ErrorCode::kINVALID_ARGUMENT, method, ": the memory given is ",
            memory == nullptr ? "null" : "of negative size", "; give at least ", needed,
            " bytes (ICudaEngine::getDeviceMemorySizeForProfileV2)");
        return false;
    }
    if (reinterpret_cast<std::uintptr_t>(memory) % static_cast<std::uintptr_t>(kActivationAlignment) != 0)
    {
        c.mReporter.error(ErrorCode::kINVALID_ARGUMENT, method, ": the memory given is not aligned to ",
            kActivationAlignment, " bytes");
        return false;
    }
    if (size >= 0 && size < needed)
    {
        c.mReporter.error(ErrorCode::kINVALID_ARGUMENT, method, ": ", size, " bytes given; optimization profile ",
            c.mBindings.profile, " needs ", needed, " (ICudaEngine::getDeviceMemorySizeForProfileV2)");
        return false;
    }
    c.mUserMemory = memory;
    c.mUserMemoryBytes = size;
    c.mUserMemorySet = true;
    return true;
}

void ExecutionContext::Impl::setDeviceMemory(void* memory) noexcept
{
    takeDeviceMemory("IExecutionContext::setDeviceMemory", memory, -1);
}

void ExecutionContext::Impl::setDeviceMemoryV2(void* memory, int64_t size) noexcept
{
    if (size < 0)
    {
        mContext.mReporter.error(ErrorCode::kINVALID_ARGUMENT, "IExecutionContext::setDeviceMemoryV2: the size is ",
            size, "; it must be at least 0");
        return;
    }
    takeDeviceMemory("IExecutionContext::setDeviceMemoryV2", memory, size);
}

bool ExecutionContext::Impl::execute(char const* method, Bindings const& bindings, cudaStream_t stream) noexcept
{
    ExecutionContext& c = mContext;
    if (c.mEngine.weightsMissing())
    {
        c.mReporter.error(ErrorCode::kINVALID_STATE, method, ": the engine (network ",
            quotedText(c.mEngine.program().model().name),
            ") was built with BuilderFlag::kSTRIP_PLAN and its refittable weights are not in it yet; refit it first "
            "(createInferRefitter, setNamedWeights or setWeights for each weights getMissingWeights or getMissing "
            "lists, then refitCudaEngine)");
        return false;
    }
    return c.mReporter.guard(method, false, [&] {
        int64_t const needed = c.mEngine.activationBytes(bindings.profile);
        ActivationMemory memory;
        if (c.mConfig.strategy() == ExecutionContextAllocationStrategy::kUSER_MANAGED)
        {
            if (!c.mUserMemorySet && needed > 0)
            {
                c.mReporter.error(ErrorCode::kINVALID_STATE, method,
                    ": the context was created without device memory (kUSER_MANAGED); give it ", needed,
                    " bytes with setDeviceMemoryV2 first (ICudaEngine::getDeviceMemorySizeForProfileV2)");
                return false;
            }
            if (c.mUserMemoryBytes >= 0 && c.mUserMemoryBytes < needed)
            {
                c.mReporter.error(ErrorCode::kINVALID_STATE, method, ": the device memory given has ",
                    c.mUserMemoryBytes, " bytes; optimization profile ", bindings.profile, " needs ", needed,
                    "; give more with setDeviceMemoryV2");
                return false;
            }
            memory = ActivationMemory{
                static_cast<std::byte*>(c.mUserMemory), c.mUserMemoryBytes >= 0 ? c.mUserMemoryBytes : needed};
        }
        else
        {
            c.mActivations.reserve(needed, stream);
            memory = ActivationMemory{c.mActivations.data(), c.mActivations.size()};
        }
        auto const ran = c.mExecutor.run(bindings, memory, stream);
        if (!ran)
        {
            c.mReporter.error(ran.error().code, method, ": ", ran.error().message);
            return false;
        }
        c.mHasRun = true;
        c.mLastRun = bindings;
#if KILN_WITH_CUDA
        // Recorded after the last layer: every read of the inputs is queued before it.
        if (c.mInputConsumedEvent != nullptr && c.mProgram.onDevice())
        {
            if (cudaError_t const status = cudaEventRecord(c.mInputConsumedEvent, stream); status != cudaSuccess)
            {
                static_cast<void>(cudaGetLastError());
                c.mReporter.error(ErrorCode::kFAILED_EXECUTION, method,
                    ": cannot record the input-consumed event: ", cudaGetErrorString(status));
                return false;
            }
        }
#endif
        if (c.mProfiler != nullptr && c.mEnqueueEmitsProfile)
        {
            auto const times = c.mExecutor.layerTimes();
            for (std::size_t l = 0; l < times.size(); ++l)
            {
                c.mProfiler->reportLayerTime(c.mProgram.model().layers[l].name.c_str(), times[l]);
            }
        }
        return true;
    });
}

bool ExecutionContext::Impl::enqueueV3(cudaStream_t stream) noexcept
{
    return execute("IExecutionContext::enqueueV3", mContext.mBindings, stream);
}

bool ExecutionContext::Impl::executeV2(void* const* bindings) noexcept
{
    constexpr char const* kWhere = "IExecutionContext::executeV2";
    if (bindings == nullptr)
    {
        mContext.mReporter.error(ErrorCode::kINVALID_ARGUMENT, kWhere, ": the bindings array is null; give one ",
            "address per I/O tensor, in ICudaEngine::getIOTensorName order");
        return false;
    }
    return mContext.mReporter.guard(kWhere, false, [&] {
        Bindings copy = mContext.mBindings;
        for (std::size_t p = 0; p < copy.addresses.size(); ++p)
        {
            copy.addresses[p] = bindings[p];
        }
        if (!execute(kWhere, copy, nullptr))
        {
            return false;
        }
#if KILN_WITH_CUDA
        // executeV2 returns once the work is done.
        if (mContext.mProgram.onDevice())
        {
            if (cudaError_t const status = cudaStreamSynchronize(nullptr); status != cudaSuccess)
            {
                static_cast<void>(cudaGetLastError());
                mContext.mReporter.error(
                    ErrorCode::kFAILED_EXECUTION, kWhere, ": the GPU work failed: ", cudaGetErrorString(status));
                return false;
            }
        }
#endif
        return true;
    });
}

} // namespace kiln
