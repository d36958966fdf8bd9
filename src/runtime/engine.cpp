// SPDX-License-Identifier: Apache-2.0
#include "runtime/engine.h"

#include "core/data_type.h"
#include "core/host_memory.h"
#include "plan/engine_codec.h"
#include "plan/model_check.h"
#include "plan/refit.h"
#include "runtime/context.h"
#include "runtime/inspector.h"

#if KILN_WITH_CUDA
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/gpu_allocator.h"
#endif

#include <algorithm>
#include <string>
#include <utility>

namespace kiln
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::ErrorCode;
using nvinfer1::ExecutionContextAllocationStrategy;
using nvinfer1::OptProfileSelector;

constexpr Dims kNoDims{-1, {}};

// ---- ISerializationConfig -------------------------------------------------------------------------------------------

class SerializationConfig final : public nvinfer1::ISerializationConfig
{
public:
    //! flags: the initial flags (kEXCLUDE_WEIGHTS for an engine built with kSTRIP_PLAN).
    SerializationConfig(Reporter const& reporter, nvinfer1::SerializationFlags flags)
        : mReporter(reporter)
        , mFlags(flags)
    {
        mImpl = &mImplObject;
    }

    nvinfer1::SerializationFlags flags() const noexcept { return mFlags; }

private:
    static constexpr nvinfer1::SerializationFlags kKnown
        = (1U << static_cast<uint32_t>(nvinfer1::EnumMax<nvinfer1::SerializationFlag>())) - 1U;

    class Impl final : public nvinfer1::apiv::VSerializationConfig
    {
    public:
        explicit Impl(SerializationConfig& config)
            : mConfig(config)
        {
        }
        bool setFlags(nvinfer1::SerializationFlags flags) noexcept override
        {
            if ((flags & ~kKnown) != 0)
            {
                mConfig.mReporter.error(ErrorCode::kINVALID_ARGUMENT, "ISerializationConfig::setFlags: flags ", flags,
                    " contain bits that are no SerializationFlag (mask ", kKnown, ")");
                return false;
            }
            if ((flags & (1U << static_cast<uint32_t>(nvinfer1::SerializationFlag::kINCLUDE_REFIT))) != 0)
            {
                mConfig.mReporter.warning("ISerializationConfig: SerializationFlag::kINCLUDE_REFIT is ignored: kiln "
                                          "always keeps a refittable engine's refit information in its plan");
            }
            mConfig.mFlags = flags;
            return true;
        }
        nvinfer1::SerializationFlags getFlags() const noexcept override { return mConfig.mFlags; }
        bool clearFlag(nvinfer1::SerializationFlag flag) noexcept override
        {
            if (!check("clearFlag", flag))
            {
                return false;
            }
            mConfig.mFlags &= ~(1U << static_cast<uint32_t>(flag));
            return true;
        }
        bool setFlag(nvinfer1::SerializationFlag flag) noexcept override
        {
            return check("setFlag", flag) && setFlags(mConfig.mFlags | 1U << static_cast<uint32_t>(flag));
        }
        bool getFlag(nvinfer1::SerializationFlag flag) const noexcept override
        {
            return isValidEnum(flag) && (mConfig.mFlags >> static_cast<uint32_t>(flag) & 1U) != 0;
        }

    private:
        bool check(char const* method, nvinfer1::SerializationFlag flag) const noexcept
        {
            if (!isValidEnum(flag))
            {
                mConfig.mReporter.error(ErrorCode::kINVALID_ARGUMENT, "ISerializationConfig::", method, ": ", flag,
                    " is no SerializationFlag");
                return false;
            }
            return true;
        }

        SerializationConfig& mConfig;
    };

    Impl mImplObject{*this};
    Reporter const& mReporter;
    nvinfer1::SerializationFlags mFlags{};
};

} // namespace

// ---- Factories ------------------------------------------------------------------------------------------------------

Expected<BackendFactory> backendsFor(EngineProgram const& program, [[maybe_unused]] WeightsRefresh* refresh)
{
    if (!program.onDevice())
    {
        return BackendFactory{[] { return makeHostBackend(); }};
    }
#if KILN_WITH_CUDA
    auto weights = cuda::DeviceWeights::upload(program.model());
    if (!weights)
    {
        return weights.error();
    }
    if (refresh != nullptr)
    {
        *refresh = [device = weights.value()](
                       WeightsBlob const& blob, cudaStream_t stream) { return device->refresh(blob, stream); };
    }
    return BackendFactory{[weights = std::move(weights.value())] { return cuda::makeCudaBackend(weights); }};
#else
    return Error{ErrorCode::kUNSUPPORTED_STATE, "this kiln was built without its CUDA backend"};
#endif
}

nvinfer1::ICudaEngine* createEngine(EngineModel&& model, nvinfer1::ILogger& logger) noexcept
{
    return createEngine(std::move(model), logger, nullptr);
}

nvinfer1::ICudaEngine* createEngine(EngineModel&& model, nvinfer1::ILogger& logger, BackendFactory backends) noexcept
{
    std::string name;
    auto const fail = [&](std::string const& why) {
        try
        {
            std::string const message = "createEngine: network " + quoted(name.c_str()) + ": " + why;
            logger.log(Severity::kERROR, message.c_str());
        }
        catch (...)
        {
            logger.log(Severity::kERROR, "createEngine: out of memory");
        }
        return nullptr;
    };
    try
    {
        name = model.name;
        if (auto const problem = modelProblem(model))
        {
            return fail("the engine model is not consistent: " + *problem);
        }
        auto program = EngineProgram::load(std::move(model));
        if (!program)
        {
            return fail(program.error().message);
        }
        WeightsRefresh refresh;
        if (!backends)
        {
            auto made = backendsFor(*program.value(), &refresh);
            if (!made)
            {
                return fail(made.error().message);
            }
            backends = std::move(made.value());
        }
        auto engine = std::make_unique<Engine>(std::move(program.value()), logger, std::move(backends), nullptr);
        engine->setWeightsRefresh(std::move(refresh));
        if (auto problem = engine->makePlugins(*getPluginRegistry()))
        {
            return fail(problem->message);
        }
        return engine.release();
    }
    catch (std::exception const& e)
    {
        return fail(std::string("unexpected failure: ") + e.what());
    }
    catch (...)
    {
        return fail("unexpected failure");
    }
}

// ---- Engine ---------------------------------------------------------------------------------------------------------

Engine::Engine(std::unique_ptr<EngineProgram const> program, nvinfer1::ILogger& logger, BackendFactory backends,
    nvinfer1::IErrorRecorder* recorder)
    : mProgram(std::move(program))
    , mLogger(logger)
    , mBackends(std::move(backends))
{
    mImpl = &mImplObject;
    mReporter.setRecorder(recorder);
    auto const& blobs = mProgram->model().weights;
    setWeightsMissing(std::any_of(blobs.begin(), blobs.end(), [](WeightsBlob const& blob) { return blob.stripped; }));
}

Engine::~Engine() noexcept = default;

std::optional<Error> Engine::makePlugins(nvinfer1::IPluginRegistry& registry)
{
    bool const any
        = std::any_of(mProgram->model().layers.begin(), mProgram->model().layers.end(), [](LayerRecord const& layer) {
              return layer.type == LayerType::kPLUGIN_V2 || layer.type == LayerType::kPLUGIN_V3;
          });
    if (!any)
    {
        return std::nullopt;
    }
    auto plugins = EnginePlugins::create(mProgram->model(), registry, !mProgram->onDevice());
    if (!plugins)
    {
        return plugins.error();
    }
    mPlugins = std::move(plugins.value());
    return std::nullopt;
}

Expected<std::unique_ptr<ContextPlugins>> Engine::attachPlugins(nvinfer1::IErrorRecorder* recorder) const
{
    if (mPlugins == nullptr)
    {
        return std::unique_ptr<ContextPlugins>{};
    }
    return mPlugins->attach(recorder, deviceAllocator());
}

nvinfer1::IGpuAllocator* Engine::deviceAllocator() const noexcept
{
#if KILN_WITH_CUDA
    if (mProgram->onDevice())
    {
        return mPluginAllocator != nullptr ? mPluginAllocator : &cuda::defaultGpuAllocator();
    }
#endif
    return mPluginAllocator;
}

int32_t Engine::findIo(char const* method, char const* tensorName, Reporter const& reporter) const noexcept
{
    if (tensorName == nullptr)
    {
        reporter.error(ErrorCode::kINVALID_ARGUMENT, method, ": the tensor name is null");
        return -1;
    }
    int32_t const position = mProgram->ioPosition(tensorName);
    if (position < 0)
    {
        reporter.guard(method, false, [&] {
            std::string names;
            for (auto const& io : mProgram->ioTensors())
            {
                names += names.empty() ? "'" : ", '";
                names += mProgram->model().tensors[static_cast<size_t>(io.tensor)].name;
                names += "'";
            }
            reporter.error(ErrorCode::kINVALID_ARGUMENT, method, ": no input or output tensor is named '", tensorName,
                "' (the engine's I/O tensors: ", names.empty() ? std::string("none") : names, ")");
            return true;
        });
    }
    return position;
}

bool Engine::checkProfile(char const* method, int32_t profile, Reporter const& reporter) const noexcept
{
    auto const count = static_cast<int32_t>(mProgram->model().profiles.size());
    if (profile < 0 || profile >= count)
    {
        reporter.error(ErrorCode::kINVALID_ARGUMENT, method, ": optimization profile ", profile,
            " does not exist; the engine has ", count, " (indices 0 to ", count - 1, ")");
        return false;
    }
    return true;
}

int64_t Engine::activationBytes(int32_t profile) const noexcept
{
    auto const& profiles = mProgram->model().profiles;
    return profile >= 0 && static_cast<std::size_t>(profile) < profiles.size()
        ? profiles[static_cast<std::size_t>(profile)].activationBytes
        : 0;
}

int64_t Engine::maxActivationBytes() const noexcept
{
    int64_t bytes = mProgram->model().deviceMemorySize;
    for (ProfileRecord const& profile : mProgram->model().profiles)
    {
        bytes = std::max(bytes, profile.activationBytes);
    }
    return bytes;
}

TensorRecord const* Engine::Impl::ioRecord(char const* method, char const* tensorName) const noexcept
{
    int32_t const p = mEngine.findIo(method, tensorName, mEngine.mReporter);
    if (p < 0)
    {
        return nullptr;
    }
    auto const t = mEngine.program().ioTensors()[static_cast<std::size_t>(p)].tensor;
    return &mEngine.program().model().tensors[static_cast<std::size_t>(t)];
}

ProfileRecord::Input const* Engine::Impl::profileRange(char const* method, char const* tensorName, int32_t profile,
    OptProfileSelector select, bool wantValues, int32_t* position) const noexcept
{
    int32_t const p = mEngine.findIo(method, tensorName, mEngine.mReporter);
    if (p < 0 || !mEngine.checkProfile(method, profile, mEngine.mReporter))
    {
        return nullptr;
    }
    if (!isValidEnum(select))
    {
        mEngine.mReporter.error(ErrorCode::kINVALID_ARGUMENT, method, ": ", select, " is no OptProfileSelector");
        return nullptr;
    }
    EngineProgram const& program = mEngine.program();
    auto const& io = program.ioTensors()[static_cast<std::size_t>(p)];
    TensorRecord const& tensor = program.model().tensors[static_cast<std::size_t>(io.tensor)];
    if (!io.isInput)
    {
        mEngine.mReporter.error(ErrorCode::kINVALID_ARGUMENT, method, ": tensor '", tensor.name,
            "' is an output; optimization profiles give ranges of inputs");
        return nullptr;
    }
    ProfileRecord::Input const& range = *program.profileInput(profile, p).record;
    if (wantValues && (!tensor.isShapeTensor || range.minValues.empty()))
    {
        mEngine.mReporter.error(ErrorCode::kINVALID_ARGUMENT, method, ": input '", tensor.name,
            "' is not a shape tensor; only input shape tensors have profile values");
        return nullptr;
    }
    if (position != nullptr)
    {
        *position = p;
    }
    return &range;
}

int32_t Engine::Impl::getNbLayers() const noexcept
{
    return static_cast<int32_t>(mEngine.program().model().layers.size());
}

nvinfer1::IHostMemory* Engine::Impl::serializeAs(char const* method, PlanWeights weights) const noexcept
{
    return mEngine.mReporter.guard(method, static_cast<nvinfer1::IHostMemory*>(nullptr), [&] {
        auto plan = encodePlan(mEngine.program().model(), weights);
        if (!plan)
        {
            mEngine.mReporter.error(plan.error().code, method, ": ", plan.error().message);
            return static_cast<nvinfer1::IHostMemory*>(nullptr);
        }
        return static_cast<nvinfer1::IHostMemory*>(new HostMemory(std::move(plan.value().owner), plan.value().bytes));
    });
}

nvinfer1::IHostMemory* Engine::Impl::serialize() const noexcept
{
    return serializeAs("ICudaEngine::serialize", PlanWeights::kAS_BUILT);
}

nvinfer1::IHostMemory* Engine::Impl::serializeWithConfig(nvinfer1::ISerializationConfig& config) const noexcept
{
    auto const flags = static_cast<SerializationConfig const&>(config).flags();
    bool const exclude = (flags >> static_cast<uint32_t>(nvinfer1::SerializationFlag::kEXCLUDE_WEIGHTS) & 1U) != 0;
    if (!isRefittable())
    {
        if (exclude)
        {
            mEngine.mReporter.warning("ICudaEngine::serializeWithConfig: kEXCLUDE_WEIGHTS applies to refittable ",
                "engines; this engine is not refittable, so its weights stay in the plan");
        }
        return serialize();
    }
    return serializeAs("ICudaEngine::serializeWithConfig", exclude ? PlanWeights::kNOT_REFITTABLE : PlanWeights::kALL);
}

nvinfer1::IExecutionContext* Engine::Impl::makeContext(
    char const* method, ExecutionContextAllocationStrategy strategy) noexcept
{
    if (!isValidEnum(strategy))
    {
        mEngine.mReporter.error(
            ErrorCode::kINVALID_ARGUMENT, method, ": ", strategy, " is no ExecutionContextAllocationStrategy");
        return nullptr;
    }
    return mEngine.mReporter.guard(method, static_cast<nvinfer1::IExecutionContext*>(nullptr), [&] {
        std::unique_ptr<Backend> backend = mEngine.makeBackend();
        if (backend == nullptr)
        {
            mEngine.mReporter.error(ErrorCode::kFAILED_INITIALIZATION, method, ": the backend could not be made");
            return static_cast<nvinfer1::IExecutionContext*>(nullptr);
        }
        auto plugins = mEngine.attachPlugins(mEngine.mReporter.recorder());
        if (!plugins)
        {
            mEngine.mReporter.error(plugins.error().code, method, ": ", plugins.error().message);
            return static_cast<nvinfer1::IExecutionContext*>(nullptr);
        }
        return static_cast<nvinfer1::IExecutionContext*>(
            new ExecutionContext(mEngine, strategy, std::move(backend), std::move(plugins.value())));
    });
}

nvinfer1::IExecutionContext* Engine::Impl::createExecutionContext(ExecutionContextAllocationStrategy strategy) noexcept
{
    return makeContext("ICudaEngine::createExecutionContext", strategy);
}

nvinfer1::IExecutionContext* Engine::Impl::createExecutionContextWithoutDeviceMemory() noexcept
{
    return makeContext(
        "ICudaEngine::createExecutionContextWithoutDeviceMemory", ExecutionContextAllocationStrategy::kUSER_MANAGED);
}

nvinfer1::IExecutionContext* Engine::Impl::createExecutionContextWithRuntimeConfig(
    nvinfer1::IRuntimeConfig* runtimeConfig) noexcept
{
    auto const strategy = runtimeConfig != nullptr ? static_cast<RuntimeConfig const*>(runtimeConfig)->strategy()
                                                   : ExecutionContextAllocationStrategy::kSTATIC;
    return makeContext("ICudaEngine::createExecutionContext", strategy);
}

nvinfer1::IRuntimeConfig* Engine::Impl::createRuntimeConfig() noexcept
{
    return mEngine.mReporter.guard("ICudaEngine::createRuntimeConfig", static_cast<nvinfer1::IRuntimeConfig*>(nullptr),
        [] { return static_cast<nvinfer1::IRuntimeConfig*>(new RuntimeConfig()); });
}

nvinfer1::ISerializationConfig* Engine::Impl::createSerializationConfig() noexcept
{
    return mEngine.mReporter.guard(
        "ICudaEngine::createSerializationConfig", static_cast<nvinfer1::ISerializationConfig*>(nullptr), [&] {
            // As the engine was built: a stripped build's plans leave the refittable weights out.
            nvinfer1::SerializationFlags const flags = mEngine.program().model().refit.strip
                ? 1U << static_cast<uint32_t>(nvinfer1::SerializationFlag::kEXCLUDE_WEIGHTS)
                : 0U;
            return static_cast<nvinfer1::ISerializationConfig*>(new SerializationConfig(mEngine.mReporter, flags));
        });
}

nvinfer1::IEngineInspector* Engine::Impl::createEngineInspector() const noexcept
{
    return mEngine.mReporter.guard("ICudaEngine::createEngineInspector",
        static_cast<nvinfer1::IEngineInspector*>(nullptr),
        [&] { return static_cast<nvinfer1::IEngineInspector*>(new EngineInspector(mEngine)); });
}

size_t Engine::Impl::getDeviceMemorySize() const noexcept
{
    return static_cast<size_t>(mEngine.maxActivationBytes());
}

int64_t Engine::Impl::getDeviceMemorySizeV2() const noexcept
{
    return mEngine.maxActivationBytes();
}

size_t Engine::Impl::getDeviceMemorySizeForProfile(int32_t profileIndex) const noexcept
{
    if (!mEngine.checkProfile("ICudaEngine::getDeviceMemorySizeForProfile", profileIndex, mEngine.mReporter))
    {
        return 0;
    }
    return static_cast<size_t>(mEngine.activationBytes(profileIndex));
}

int64_t Engine::Impl::getDeviceMemorySizeForProfileV2(int32_t profileIndex) const noexcept
{
    if (!mEngine.checkProfile("ICudaEngine::getDeviceMemorySizeForProfileV2", profileIndex, mEngine.mReporter))
    {
        return 0;
    }
    return mEngine.activationBytes(profileIndex);
}

bool Engine::Impl::isRefittable() const noexcept
{
    return mEngine.program().model().refit.mode != RefitRecord::Mode::kNONE;
}

char const* Engine::Impl::getName() const noexcept
{
    return mEngine.program().model().name.c_str();
}

int32_t Engine::Impl::getNbOptimizationProfiles() const noexcept
{
    return static_cast<int32_t>(mEngine.program().model().profiles.size());
}

nvinfer1::Dims Engine::Impl::getProfileShape(
    char const* tensorName, int32_t profileIndex, OptProfileSelector select) const noexcept
{
    auto const* range = profileRange("ICudaEngine::getProfileShape", tensorName, profileIndex, select, false);
    if (range == nullptr)
    {
        return kNoDims;
    }
    switch (select)
    {
    case OptProfileSelector::kMIN: return range->min;
    case OptProfileSelector::kOPT: return range->opt;
    case OptProfileSelector::kMAX: return range->max;
    }
    return kNoDims;
}

int64_t const* Engine::Impl::getProfileTensorValuesV2(
    char const* tensorName, int32_t profileIndex, OptProfileSelector select) const noexcept
{
    auto const* range = profileRange("ICudaEngine::getProfileTensorValuesV2", tensorName, profileIndex, select, true);
    if (range == nullptr)
    {
        return nullptr;
    }
    switch (select)
    {
    case OptProfileSelector::kMIN: return range->minValues.data();
    case OptProfileSelector::kOPT: return range->optValues.data();
    case OptProfileSelector::kMAX: return range->maxValues.data();
    }
    return nullptr;
}

int32_t const* Engine::Impl::getProfileTensorValues(
    char const* tensorName, int32_t profileIndex, OptProfileSelector select) const noexcept
{
    int32_t position = -1;
    auto const* range
        = profileRange("ICudaEngine::getProfileTensorValues", tensorName, profileIndex, select, true, &position);
    if (range == nullptr)
    {
        return nullptr;
    }
    return mEngine.program().profileInput(profileIndex, position).values32[static_cast<std::size_t>(select)].data();
}

nvinfer1::EngineCapability Engine::Impl::getEngineCapability() const noexcept
{
    return nvinfer1::EngineCapability::kSTANDARD;
}

void Engine::Impl::setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept
{
    mEngine.mReporter.setRecorder(recorder);
}

nvinfer1::IErrorRecorder* Engine::Impl::getErrorRecorder() const noexcept
{
    return mEngine.mReporter.recorder();
}

bool Engine::Impl::hasImplicitBatchDimension() const noexcept
{
    return false;
}

nvinfer1::TacticSources Engine::Impl::getTacticSources() const noexcept
{
    return mEngine.mProgram->model().tacticSources;
}

nvinfer1::ProfilingVerbosity Engine::Impl::getProfilingVerbosity() const noexcept
{
    return mEngine.mProgram->model().profilingVerbosity;
}

nvinfer1::Dims Engine::Impl::getTensorShape(char const* tensorName) const noexcept
{
    int32_t const p = mEngine.findIo("ICudaEngine::getTensorShape", tensorName, mEngine.mReporter);
    if (p < 0)
    {
        return kNoDims;
    }
    return mEngine.program().staticShape(mEngine.program().ioTensors()[static_cast<std::size_t>(p)].tensor);
}

nvinfer1::DataType Engine::Impl::getTensorDataType(char const* tensorName) const noexcept
{
    TensorRecord const* tensor = ioRecord("ICudaEngine::getTensorDataType", tensorName);
    return tensor != nullptr ? tensor->type : DataType::kFLOAT;
}

nvinfer1::TensorLocation Engine::Impl::getTensorLocation(char const* tensorName) const noexcept
{
    // Where the application gives the tensor (EngineProgram::ioSide): host memory for shape tensors and for every I/O
    // tensor of a host engine, device memory for the others. A name that is no I/O tensor answers kDEVICE.
    int32_t const p = mEngine.findIo("ICudaEngine::getTensorLocation", tensorName, mEngine.mReporter);
    if (p < 0)
    {
        return nvinfer1::TensorLocation::kDEVICE;
    }
    EngineProgram const& program = mEngine.program();
    return program.ioSide(program.ioTensors()[static_cast<std::size_t>(p)].tensor) == Side::kHOST
        ? nvinfer1::TensorLocation::kHOST
        : nvinfer1::TensorLocation::kDEVICE;
}

bool Engine::Impl::isShapeInferenceIO(char const* tensorName) const noexcept
{
    TensorRecord const* tensor = ioRecord("ICudaEngine::isShapeInferenceIO", tensorName);
    return tensor != nullptr && tensor->isShapeTensor;
}

nvinfer1::TensorIOMode Engine::Impl::getTensorIOMode(char const* tensorName) const noexcept
{
    // kNONE answers a name that is no I/O tensor; asking is not an error.
    int32_t const p = tensorName != nullptr ? mEngine.program().ioPosition(tensorName) : -1;
    if (p < 0)
    {
        return nvinfer1::TensorIOMode::kNONE;
    }
    return mEngine.program().ioTensors()[static_cast<std::size_t>(p)].isInput ? nvinfer1::TensorIOMode::kINPUT
                                                                              : nvinfer1::TensorIOMode::kOUTPUT;
}

int32_t Engine::Impl::getTensorBytesPerComponent(char const* tensorName) const noexcept
{
    TensorRecord const* tensor = ioRecord("ICudaEngine::getTensorBytesPerComponent", tensorName);
    return tensor != nullptr ? std::max(1, dataTypeBits(tensor->type) / 8) : -1;
}

int32_t Engine::Impl::getTensorComponentsPerElement(char const* tensorName) const noexcept
{
    return ioRecord("ICudaEngine::getTensorComponentsPerElement", tensorName) != nullptr ? 1 : -1;
}

nvinfer1::TensorFormat Engine::Impl::getTensorFormat(char const* tensorName) const noexcept
{
    TensorRecord const* tensor = ioRecord("ICudaEngine::getTensorFormat", tensorName);
    return tensor != nullptr ? tensor->format : nvinfer1::TensorFormat::kLINEAR;
}

char const* Engine::Impl::getTensorFormatDesc(char const* tensorName) const noexcept
{
    int32_t const p = mEngine.findIo("ICudaEngine::getTensorFormatDesc", tensorName, mEngine.mReporter);
    return p < 0 ? nullptr : mEngine.program().ioTensors()[static_cast<std::size_t>(p)].formatDescription.c_str();
}

int32_t Engine::Impl::getTensorVectorizedDim(char const* tensorName) const noexcept
{
    ioRecord("ICudaEngine::getTensorVectorizedDim", tensorName);
    return -1;
}

int32_t Engine::Impl::getTensorBytesPerComponentV2(char const* tensorName, int32_t profileIndex) const noexcept
{
    if (!mEngine.checkProfile("ICudaEngine::getTensorBytesPerComponent", profileIndex, mEngine.mReporter))
    {
        return -1;
    }
    return getTensorBytesPerComponent(tensorName);
}

int32_t Engine::Impl::getTensorComponentsPerElementV2(char const* tensorName, int32_t profileIndex) const noexcept
{
    if (!mEngine.checkProfile("ICudaEngine::getTensorComponentsPerElement", profileIndex, mEngine.mReporter))
    {
        return -1;
    }
    return getTensorComponentsPerElement(tensorName);
}

nvinfer1::TensorFormat Engine::Impl::getTensorFormatV2(char const* tensorName, int32_t profileIndex) const noexcept
{
    if (!mEngine.checkProfile("ICudaEngine::getTensorFormat", profileIndex, mEngine.mReporter))
    {
        return nvinfer1::TensorFormat::kLINEAR;
    }
    return getTensorFormat(tensorName);
}

char const* Engine::Impl::getTensorFormatDescV2(char const* tensorName, int32_t profileIndex) const noexcept
{
    if (!mEngine.checkProfile("ICudaEngine::getTensorFormatDesc", profileIndex, mEngine.mReporter))
    {
        return nullptr;
    }
    return getTensorFormatDesc(tensorName);
}

int32_t Engine::Impl::getTensorVectorizedDimV2(char const* tensorName, int32_t profileIndex) const noexcept
{
    if (!mEngine.checkProfile("ICudaEngine::getTensorVectorizedDim", profileIndex, mEngine.mReporter))
    {
        return -1;
    }
    return getTensorVectorizedDim(tensorName);
}

int32_t Engine::Impl::getNbIOTensors() const noexcept
{
    return static_cast<int32_t>(mEngine.program().ioTensors().size());
}

char const* Engine::Impl::getIOTensorName(int32_t index) const noexcept
{
    auto const io = mEngine.program().ioTensors();
    if (index < 0 || static_cast<std::size_t>(index) >= io.size())
    {
        mEngine.mReporter.error(ErrorCode::kINVALID_ARGUMENT, "ICudaEngine::getIOTensorName: index ", index,
            " is outside [0, ", io.size(), ")");
        return nullptr;
    }
    return mEngine.program()
        .model()
        .tensors[static_cast<std::size_t>(io[static_cast<std::size_t>(index)].tensor)]
        .name.c_str();
}

nvinfer1::HardwareCompatibilityLevel Engine::Impl::getHardwareCompatibilityLevel() const noexcept
{
    return nvinfer1::HardwareCompatibilityLevel::kNONE;
}

int32_t Engine::Impl::getNbAuxStreams() const noexcept
{
    return 0;
}

nvinfer1::IRefitter* Engine::Impl::createRefitter(nvinfer1::ILogger& logger) noexcept
{
    return mEngine.createRefitter(logger);
}

// Weight streaming: kiln keeps every weight resident, so no weight is streamable and any budget covers them all.

bool Engine::Impl::setWeightStreamingBudget(int64_t gpuMemoryBudget) noexcept
{
    if (gpuMemoryBudget < -1)
    {
        mEngine.mReporter.error(ErrorCode::kINVALID_ARGUMENT, "ICudaEngine::setWeightStreamingBudget: the budget is ",
            gpuMemoryBudget, "; give -1 (streaming off), 0 (automatic) or a number of bytes");
        return false;
    }
    mEngine.mWeightStreamingBudget = gpuMemoryBudget;
    return true;
}

int64_t Engine::Impl::getWeightStreamingBudget() const noexcept
{
    return mEngine.mWeightStreamingBudget;
}

int64_t Engine::Impl::getMinimumWeightStreamingBudget() const noexcept
{
    return 0;
}

int64_t Engine::Impl::getStreamableWeightsSize() const noexcept
{
    return 0;
}

bool Engine::Impl::setWeightStreamingBudgetV2(int64_t gpuMemoryBudget) noexcept
{
    if (gpuMemoryBudget < 0)
    {
        mEngine.mReporter.error(ErrorCode::kINVALID_ARGUMENT, "ICudaEngine::setWeightStreamingBudgetV2: the budget is ",
            gpuMemoryBudget, "; it must be at least 0 bytes");
        return false;
    }
    mEngine.mWeightStreamingBudgetV2 = gpuMemoryBudget;
    return true;
}

int64_t Engine::Impl::getWeightStreamingBudgetV2() const noexcept
{
    return mEngine.mWeightStreamingBudgetV2 >= 0 ? mEngine.mWeightStreamingBudgetV2 : getStreamableWeightsSize();
}

int64_t Engine::Impl::getWeightStreamingAutomaticBudget() const noexcept
{
    return getStreamableWeightsSize();
}

int64_t Engine::Impl::getWeightStreamingScratchMemorySize() const noexcept
{
    return 0;
}

bool Engine::Impl::isDebugTensor(char const* name) const noexcept
{
    return name != nullptr && mEngine.program().debugPosition(name) >= 0;
}

int64_t Engine::Impl::getEngineStat(nvinfer1::EngineStat stat) const noexcept
{
    switch (stat)
    {
    case nvinfer1::EngineStat::kTOTAL_WEIGHTS_SIZE: return mEngine.program().weightBytes();
    case nvinfer1::EngineStat::kSTRIPPED_WEIGHTS_SIZE:
    {
        // The weights a plan without the refittable ones holds; -1 for an engine that is not refittable.
        EngineModel const& model = mEngine.program().model();
        if (model.refit.mode == RefitRecord::Mode::kNONE)
        {
            return -1;
        }
        std::vector<bool> const refittable = refittableBlobs(model);
        int64_t bytes = 0;
        for (std::size_t b = 0; b < model.weights.size(); ++b)
        {
            bytes += refittable[b] ? 0 : static_cast<int64_t>(model.weights[b].view().size());
        }
        return bytes;
    }
    }
    mEngine.mReporter.error(ErrorCode::kINVALID_ARGUMENT, "ICudaEngine::getEngineStat: ", stat, " is no EngineStat");
    return -1;
}

char const* Engine::Impl::getAliasedInputTensor(char const* tensorName) const noexcept
{
    ioRecord("ICudaEngine::getAliasedInputTensor", tensorName);
    return nullptr;
}

// ---- IRuntimeConfig -------------------------------------------------------------------------------------------------

RuntimeConfig::RuntimeConfig(ExecutionContextAllocationStrategy strategy)
    : mStrategy(strategy)
{
    mImpl = &mImplObject;
}

RuntimeConfig::~RuntimeConfig() noexcept = default;

void RuntimeConfig::Impl::setExecutionContextAllocationStrategy(ExecutionContextAllocationStrategy strategy) noexcept
{
    if (!isValidEnum(strategy))
    {
        log(Severity::kERROR,
            "IRuntimeConfig::setExecutionContextAllocationStrategy: " + std::to_string(static_cast<int32_t>(strategy))
                + " is no ExecutionContextAllocationStrategy");
        return;
    }
    mConfig.mStrategy = strategy;
}

ExecutionContextAllocationStrategy RuntimeConfig::Impl::getExecutionContextAllocationStrategy() const noexcept
{
    return mConfig.mStrategy;
}

} // namespace kiln
