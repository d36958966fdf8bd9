// SPDX-License-Identifier: Apache-2.0
// IExecutionContext: one set of input shapes, tensor addresses and output allocators, one optimization profile at a
// time, and the activation memory to run the engine with. enqueueV3 runs synchronously on the calling thread (the
// host backend's "device" memory is host memory) through the context's Executor (runtime/executor.h).
//
//     context->setInputShape("x", Dims{2, {4, 3}});
//     context->setTensorAddress("x", in.data());
//     context->setTensorAddress("y", out.data());
//     bool ok = context->enqueueV3(stream);   // false, with a message naming the tensor or layer, on failure
//
// A context is used by one thread at a time; several contexts of one engine may run at once.
#pragma once

#include "network/report.h"
#include "runtime/engine.h"
#include "runtime/executor.h"

#include "NvInferRuntime.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln
{

class ExecutionContext final : public nvinfer1::IExecutionContext
{
public:
    //! A context using profile 0 and backend, whose activation memory strategy says how it is obtained. Throws
    //! std::bad_alloc.
    //! plugins: the context's plugins (Engine::attachPlugins), or null.
    ExecutionContext(Engine const& engine, nvinfer1::ExecutionContextAllocationStrategy strategy,
        std::unique_ptr<Backend> backend, std::unique_ptr<ContextPlugins> plugins = nullptr);
    ~ExecutionContext() noexcept override;

    //! The implementation behind a context kiln made.
    static ExecutionContext const& of(nvinfer1::IExecutionContext const& context) noexcept
    {
        return static_cast<ExecutionContext const&>(context);
    }

    Engine const& engine() const noexcept { return mEngine; }

    //! Every tensor's shape as far as the context knows it now (-1 where unknown), for the engine inspector.
    std::vector<nvinfer1::Dims> knownShapes() const;

    //! How many times the context computed its shape values (Executor::shapeValueRuns): once per set of input shapes.
    int64_t shapeValueRuns() const noexcept { return mExecutor.shapeValueRuns(); }

private:
    class Impl final : public nvinfer1::apiv::VExecutionContext
    {
    public:
        explicit Impl(ExecutionContext& context)
            : mContext(context)
        {
        }

        nvinfer1::IExecutionContext* getPImpl() noexcept override { return &mContext; }
        void setDebugSync(bool sync) noexcept override;
        bool getDebugSync() const noexcept override;
        void setProfiler(nvinfer1::IProfiler* profiler) noexcept override;
        nvinfer1::IProfiler* getProfiler() const noexcept override;
        nvinfer1::ICudaEngine const& getEngine() const noexcept override;
        void setName(char const* name) noexcept override;
        char const* getName() const noexcept override;
        void setDeviceMemory(void* memory) noexcept override;
        int32_t getOptimizationProfile() const noexcept override;
        bool allInputDimensionsSpecified() const noexcept override;
        bool allInputShapesSpecified() const noexcept override;
        void setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept override;
        nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override;
        bool executeV2(void* const* bindings) noexcept override;
        bool setOptimizationProfileAsync(int32_t profileIndex, cudaStream_t stream) noexcept override;
        void setEnqueueEmitsProfile(bool enqueueEmitsProfile) noexcept override;
        bool getEnqueueEmitsProfile() const noexcept override;
        bool reportToProfiler() const noexcept override;
        bool setInputShape(char const* tensorName, nvinfer1::Dims const& dims) noexcept override;
        nvinfer1::Dims getTensorShape(char const* tensorName) const noexcept override;
        nvinfer1::Dims getTensorStrides(char const* tensorName) const noexcept override;
        bool setTensorAddress(char const* tensorName, void* data) noexcept override;
        void const* getTensorAddress(char const* tensorName) const noexcept override;
        bool setInputTensorAddress(char const* tensorName, void const* data) noexcept override;
        bool setOutputTensorAddress(char const* tensorName, void* data) noexcept override;
        int32_t inferShapes(int32_t nbMaxNames, char const** tensorNames) noexcept override;
        bool setInputConsumedEvent(cudaEvent_t event) noexcept override;
        cudaEvent_t getInputConsumedEvent() const noexcept override;
        void* getOutputTensorAddress(char const* tensorName) const noexcept override;
        bool setOutputAllocator(char const* tensorName, nvinfer1::IOutputAllocator* outputAllocator) noexcept override;
        nvinfer1::IOutputAllocator* getOutputAllocator(char const* name) noexcept override;
        int64_t getMaxOutputSize(char const* tensorName) const noexcept override;
        bool setTemporaryStorageAllocator(nvinfer1::IGpuAllocator* allocator) noexcept override;
        nvinfer1::IGpuAllocator* getTemporaryStorageAllocator() const noexcept override;
        bool enqueueV3(cudaStream_t stream) noexcept override;
        void setPersistentCacheLimit(size_t size) noexcept override;
        size_t getPersistentCacheLimit() const noexcept override;
        bool setNvtxVerbosity(nvinfer1::ProfilingVerbosity verbosity) noexcept override;
        nvinfer1::ProfilingVerbosity getNvtxVerbosity() const noexcept override;
        void setAuxStreams(cudaStream_t* auxStreams, int32_t nbStreams) noexcept override;
        bool setDebugListener(nvinfer1::IDebugListener* listener) noexcept override;
        nvinfer1::IDebugListener* getDebugListener() noexcept override;
        bool setTensorDebugState(char const* name, bool flag) noexcept override;
        bool getDebugState(char const* name) const noexcept override;
        bool setAllTensorsDebugState(bool flag) noexcept override;
        size_t updateDeviceMemorySizeForShapes() noexcept override;
        void setDeviceMemoryV2(void* memory, int64_t size) noexcept override;
        nvinfer1::IRuntimeConfig* getRuntimeConfig() const noexcept override;
        bool setUnfusedTensorsDebugState(bool flag) noexcept override;
        bool getUnfusedTensorsDebugState() const noexcept override;
        bool setCommunicator(void* communicator) noexcept override;

    private:
        //! Sets the address of tensorName after checking it is of mode (kNONE: either) and suitably aligned.
        bool setAddress(char const* method, char const* tensorName, void* data, nvinfer1::TensorIOMode mode) noexcept;
        //! The shape of I/O tensor tensorName as far as it is known; Dims{-1, {}} after reporting an unknown name.
        nvinfer1::Dims shapeOf(char const* method, char const* tensorName) const noexcept;
        //! Runs the engine with bindings; method names the API call in messages.
        bool execute(char const* method, Bindings const& bindings, cudaStream_t stream) noexcept;
        //! Whether the activation memory is set; false after reporting why not.
        bool takeDeviceMemory(char const* method, void* memory, int64_t size) noexcept;

        ExecutionContext& mContext;
    };

    //! Resets the shapes of the inputs whose shape is not fixed (a new profile), and fixes the others.
    void resetShapes();

    Impl mImplObject{*this};
    Engine const& mEngine;
    EngineProgram const& mProgram;
    Reporter mReporter;
    RuntimeConfig mConfig;
    Bindings mBindings;
    Executor mExecutor;
    MemoryBlock mActivations; //!< Owned activation memory (kSTATIC, kON_PROFILE_CHANGE).
    //! What the last successful enqueue ran with (for the shapes of data-dependent outputs afterwards).
    std::optional<Bindings> mLastRun;
    void* mUserMemory{};          //!< Activation memory from setDeviceMemory / V2 (kUSER_MANAGED).
    int64_t mUserMemoryBytes{-1}; //!< Its size from setDeviceMemoryV2; -1 when not given.
    bool mUserMemorySet{};        //!< Whether setDeviceMemory / V2 was called.
    std::string mName;
    bool mDebugSync{};
    nvinfer1::IProfiler* mProfiler{};
    bool mEnqueueEmitsProfile{true};
    bool mHasRun{};
    nvinfer1::IGpuAllocator* mTemporaryAllocator{};
    cudaEvent_t mInputConsumedEvent{};
    size_t mPersistentCacheLimit{};
    nvinfer1::ProfilingVerbosity mNvtxVerbosity{nvinfer1::ProfilingVerbosity::kLAYER_NAMES_ONLY};
    std::vector<cudaStream_t> mAuxStreams;
    nvinfer1::IDebugListener* mDebugListener{};
    std::vector<uint8_t> mDebugStates; //!< Per EngineProgram::debugTensors entry: setTensorDebugState's flag.
    bool mUnfusedTensorsDebugState{};
    void* mCommunicator{};
};

} // namespace kiln
