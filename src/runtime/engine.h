// SPDX-License-Identifier: Apache-2.0
// ICudaEngine: a loaded engine (runtime/executor.h's EngineProgram) behind TensorRT's engine API, and the small
// objects it hands out: IHostMemory (a serialized plan, core/host_memory.h), IRuntimeConfig, ISerializationConfig and
// IEngineInspector (runtime/inspector.h).
//
//     nvinfer1::ICudaEngine* engine = createEngine(std::move(model), logger);   // nullptr, with the error logged
//     nvinfer1::IExecutionContext* context = engine->createExecutionContext();
//
// The engine is read-only once made (its error recorder and weight-streaming budget aside, which the application
// sets between runs), so its contexts may run on different threads at once; each context has its own backend.
#pragma once

#include "backends/backend.h"
#include "network/report.h"
#include "plan/engine_codec.h"
#include "plan/engine_model.h"
#include "runtime/executor.h"
#include "runtime/plan_libraries.h"
#include "runtime/plugin_runtime.h"

#include "NvInferRuntime.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace kiln
{

//! Makes a backend for each execution context.
using BackendFactory = std::function<std::unique_ptr<Backend>()>;

//! Brings the backend's copy of a weights blob of the engine up to date after a refit rewrote its host bytes, ordered
//! on stream (a CUDA engine's device copy); null where the kernels read the host bytes themselves.
using WeightsRefresh = std::function<std::optional<Error>(WeightsBlob const& blob, cudaStream_t stream)>;

//! The engine of a built or deserialized plan, or nullptr with the error sent to logger. For the builder's
//! buildEngineWithConfig.
nvinfer1::ICudaEngine* createEngine(EngineModel&& model, nvinfer1::ILogger& logger) noexcept;

//! The backends of an engine's contexts: the host backend, or for a CUDA engine the CUDA backend over the engine's
//! weights, uploaded to the device now; refresh (may be null) receives how to update those weights after a refit. The
//! error says why a CUDA engine cannot run here.
Expected<BackendFactory> backendsFor(EngineProgram const& program, WeightsRefresh* refresh = nullptr);

//! The same with the contexts' backends made by backends (tests use it to run a model on a fake backend); a null
//! backends picks them as backendsFor does.
nvinfer1::ICudaEngine* createEngine(EngineModel&& model, nvinfer1::ILogger& logger, BackendFactory backends) noexcept;

class Engine final : public nvinfer1::ICudaEngine
{
public:
    //! recorder (may be null) becomes the engine's error recorder.
    Engine(std::unique_ptr<EngineProgram const> program, nvinfer1::ILogger& logger, BackendFactory backends,
        nvinfer1::IErrorRecorder* recorder);
    ~Engine() noexcept override;

    //! The implementation behind an engine kiln made.
    static Engine const& of(nvinfer1::ICudaEngine const& engine) noexcept { return static_cast<Engine const&>(engine); }

    EngineProgram const& program() const noexcept { return *mProgram; }
    Reporter const& reporter() const noexcept { return mReporter; }
    nvinfer1::ILogger& logger() const noexcept { return mLogger; }

    //! A backend for a new context.
    std::unique_ptr<Backend> makeBackend() const { return mBackends(); }

    //! The plugins of a new context (attachToContext on each engine plugin); null for an engine without plugins.
    Expected<std::unique_ptr<ContextPlugins>> attachPlugins(nvinfer1::IErrorRecorder* recorder) const;

    //! The GPU allocator plugins of this engine's contexts get from their IPluginResourceContext (the runtime's).
    void setPluginAllocator(nvinfer1::IGpuAllocator* allocator) noexcept { mPluginAllocator = allocator; }

    //! The allocator of the device memory of a CUDA engine's contexts: the runtime's, else kiln's default; null for
    //! a host engine (and for a CUDA engine whose runtime set none, in a kiln without the CUDA backend).
    nvinfer1::IGpuAllocator* deviceAllocator() const noexcept;

    //! The plugin libraries of the plan that this engine uses (runtime/plan_libraries.h), set before its plugins are
    //! made; they stay loaded until after the engine's plugins and program are gone.
    void setPlanLibraries(std::unique_ptr<PlanLibraries> libraries) noexcept { mPlanLibraries = std::move(libraries); }

    //! What the engine uses of its plan's plugin libraries; null for an engine the builder made.
    PlanLibraries const* planLibraries() const noexcept { return mPlanLibraries.get(); }

    //! Makes the engine's plugins from the plan through registry (the error names the layer and the plugin).
    std::optional<Error> makePlugins(nvinfer1::IPluginRegistry& registry);

    //! The I/O position of tensorName; -1 after reporting a null or unknown name as method's error to reporter.
    int32_t findIo(char const* method, char const* tensorName, Reporter const& reporter) const noexcept;

    //! Whether profile is a profile index; false after reporting it as method's error to reporter.
    bool checkProfile(char const* method, int32_t profile, Reporter const& reporter) const noexcept;

    //! The activation bytes a context needs for profile.
    int64_t activationBytes(int32_t profile) const noexcept;

    //! The largest activation bytes over all profiles.
    int64_t maxActivationBytes() const noexcept;

    // Refitting (runtime/refitter.h). The application must not run contexts of the engine during a refit.

    //! How the backend's copy of the weights follows a refit (see WeightsRefresh).
    void setWeightsRefresh(WeightsRefresh refresh) { mWeightsRefresh = std::move(refresh); }
    WeightsRefresh const& weightsRefresh() const noexcept { return mWeightsRefresh; }

    //! The model's weights blobs, for a refit to rewrite in place: nothing the program prepared at load depends on
    //! the values of weights.
    std::vector<WeightsBlob>& refitBlobs() noexcept { return const_cast<EngineModel&>(mProgram->model()).weights; }

    //! Whether weights were left out of the plan (kSTRIP_PLAN) and not yet refitted: contexts refuse to run.
    bool weightsMissing() const noexcept { return mWeightsMissing.load(std::memory_order_acquire); }
    void setWeightsMissing(bool missing) noexcept { mWeightsMissing.store(missing, std::memory_order_release); }

    //! A refitter for this engine that logs to logger, or nullptr after reporting why the engine cannot be refitted.
    nvinfer1::IRefitter* createRefitter(nvinfer1::ILogger& logger) noexcept;

private:
    class Impl final : public nvinfer1::apiv::VCudaEngine
    {
    public:
        explicit Impl(Engine& engine)
            : mEngine(engine)
        {
        }

        nvinfer1::ICudaEngine* getPImpl() noexcept override { return &mEngine; }
        int32_t getNbLayers() const noexcept override;
        nvinfer1::IHostMemory* serialize() const noexcept override;
        nvinfer1::IExecutionContext* createExecutionContext(
            nvinfer1::ExecutionContextAllocationStrategy strategy) noexcept override;
        nvinfer1::IExecutionContext* createExecutionContextWithoutDeviceMemory() noexcept override;
        size_t getDeviceMemorySize() const noexcept override;
        bool isRefittable() const noexcept override;
        char const* getName() const noexcept override;
        int32_t getNbOptimizationProfiles() const noexcept override;
        int32_t const* getProfileTensorValues(
            char const* tensorName, int32_t profileIndex, nvinfer1::OptProfileSelector select) const noexcept override;
        nvinfer1::EngineCapability getEngineCapability() const noexcept override;
        void setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept override;
        nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override;
        bool hasImplicitBatchDimension() const noexcept override;
        nvinfer1::TacticSources getTacticSources() const noexcept override;
        nvinfer1::ProfilingVerbosity getProfilingVerbosity() const noexcept override;
        nvinfer1::IEngineInspector* createEngineInspector() const noexcept override;
        nvinfer1::Dims getTensorShape(char const* tensorName) const noexcept override;
        nvinfer1::DataType getTensorDataType(char const* tensorName) const noexcept override;
        nvinfer1::TensorLocation getTensorLocation(char const* tensorName) const noexcept override;
        bool isShapeInferenceIO(char const* tensorName) const noexcept override;
        nvinfer1::TensorIOMode getTensorIOMode(char const* tensorName) const noexcept override;
        int32_t getTensorBytesPerComponent(char const* tensorName) const noexcept override;
        int32_t getTensorComponentsPerElement(char const* tensorName) const noexcept override;
        nvinfer1::TensorFormat getTensorFormat(char const* tensorName) const noexcept override;
        char const* getTensorFormatDesc(char const* tensorName) const noexcept override;
        int32_t getTensorVectorizedDim(char const* tensorName) const noexcept override;
        nvinfer1::Dims getProfileShape(
            char const* tensorName, int32_t profileIndex, nvinfer1::OptProfileSelector select) const noexcept override;
        int32_t getNbIOTensors() const noexcept override;
        char const* getIOTensorName(int32_t index) const noexcept override;
        nvinfer1::HardwareCompatibilityLevel getHardwareCompatibilityLevel() const noexcept override;
        int32_t getNbAuxStreams() const noexcept override;
        int32_t getTensorBytesPerComponentV2(char const* tensorName, int32_t profileIndex) const noexcept override;
        int32_t getTensorComponentsPerElementV2(char const* tensorName, int32_t profileIndex) const noexcept override;
        nvinfer1::TensorFormat getTensorFormatV2(char const* tensorName, int32_t profileIndex) const noexcept override;
        char const* getTensorFormatDescV2(char const* tensorName, int32_t profileIndex) const noexcept override;
        int32_t getTensorVectorizedDimV2(char const* tensorName, int32_t profileIndex) const noexcept override;
        nvinfer1::ISerializationConfig* createSerializationConfig() noexcept override;
        nvinfer1::IHostMemory* serializeWithConfig(nvinfer1::ISerializationConfig& config) const noexcept override;
        size_t getDeviceMemorySizeForProfile(int32_t profileIndex) const noexcept override;
        nvinfer1::IRefitter* createRefitter(nvinfer1::ILogger& logger) noexcept override;
        bool setWeightStreamingBudget(int64_t gpuMemoryBudget) noexcept override;
        int64_t getWeightStreamingBudget() const noexcept override;
        int64_t getMinimumWeightStreamingBudget() const noexcept override;
        int64_t getStreamableWeightsSize() const noexcept override;
        bool isDebugTensor(char const* name) const noexcept override;
        bool setWeightStreamingBudgetV2(int64_t gpuMemoryBudget) noexcept override;
        int64_t getWeightStreamingBudgetV2() const noexcept override;
        int64_t getWeightStreamingAutomaticBudget() const noexcept override;
        int64_t getWeightStreamingScratchMemorySize() const noexcept override;
        int64_t getDeviceMemorySizeV2() const noexcept override;
        int64_t getDeviceMemorySizeForProfileV2(int32_t profileIndex) const noexcept override;
        int64_t const* getProfileTensorValuesV2(
            char const* tensorName, int32_t profileIndex, nvinfer1::OptProfileSelector select) const noexcept override;
        nvinfer1::IExecutionContext* createExecutionContextWithRuntimeConfig(
            nvinfer1::IRuntimeConfig* runtimeConfig) noexcept override;
        nvinfer1::IRuntimeConfig* createRuntimeConfig() noexcept override;
        int64_t getEngineStat(nvinfer1::EngineStat stat) const noexcept override;
        char const* getAliasedInputTensor(char const* tensorName) const noexcept override;

    private:
        //! The I/O tensor record of tensorName, or nullptr after reporting it as method's error.
        TensorRecord const* ioRecord(char const* method, char const* tensorName) const noexcept;
        //! The range of input tensorName in profile, or nullptr after reporting why there is none.
        ProfileRecord::Input const* profileRange(char const* method, char const* tensorName, int32_t profile,
            nvinfer1::OptProfileSelector select, bool wantValues, int32_t* position = nullptr) const noexcept;
        //! The engine as a plan holding weights, or nullptr after reporting the error as method's.
        nvinfer1::IHostMemory* serializeAs(char const* method, PlanWeights weights) const noexcept;
        nvinfer1::IExecutionContext* makeContext(
            char const* method, nvinfer1::ExecutionContextAllocationStrategy strategy) noexcept;

        Engine& mEngine;
    };

    Impl mImplObject{*this};
    //! Deleted last: the plugins' code may live in these libraries.
    std::unique_ptr<PlanLibraries> mPlanLibraries;
    std::unique_ptr<EngineProgram const> mProgram;
    std::unique_ptr<EnginePlugins> mPlugins; //!< Deleted before the program, whose model it reads.
    nvinfer1::IGpuAllocator* mPluginAllocator{};
    nvinfer1::ILogger& mLogger;
    BackendFactory mBackends;
    Reporter mReporter;
    int64_t mWeightStreamingBudget{-1};   //!< setWeightStreamingBudget (V1): -1, streaming off.
    int64_t mWeightStreamingBudgetV2{-1}; //!< setWeightStreamingBudgetV2; -1 until set (reads as every weight).
    WeightsRefresh mWeightsRefresh;
    std::atomic<bool> mWeightsMissing{};
};

//! IRuntimeConfig: the allocation strategy of contexts made with it.
class RuntimeConfig final : public nvinfer1::IRuntimeConfig
{
public:
    explicit RuntimeConfig(
        nvinfer1::ExecutionContextAllocationStrategy strategy = nvinfer1::ExecutionContextAllocationStrategy::kSTATIC);
    ~RuntimeConfig() noexcept override;

    nvinfer1::ExecutionContextAllocationStrategy strategy() const noexcept { return mStrategy; }

private:
    class Impl final : public nvinfer1::apiv::VRuntimeConfig
    {
    public:
        explicit Impl(RuntimeConfig& config)
            : mConfig(config)
        {
        }
        nvinfer1::IRuntimeConfig* getPImpl() noexcept override { return &mConfig; }
        void setExecutionContextAllocationStrategy(
            nvinfer1::ExecutionContextAllocationStrategy strategy) noexcept override;
        nvinfer1::ExecutionContextAllocationStrategy getExecutionContextAllocationStrategy() const noexcept override;

    private:
        RuntimeConfig& mConfig;
    };

    Impl mImplObject{*this};
    nvinfer1::ExecutionContextAllocationStrategy mStrategy;
};

} // namespace kiln
