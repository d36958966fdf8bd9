// SPDX-License-Identifier: Apache-2.0
// IRuntime: turns plans into engines. A plan is read whole (from memory, or from a stream reader: the 64-byte header
// first, which says how many bytes follow, then exactly those), its envelope checked (plan/container.h), refused
// clearly when it was built for a backend this runtime does not have, decoded and validated (plan/engine_codec.h),
// and loaded (runtime/engine.h), the plugin libraries it carries made available first as the runtime's settings allow
// (setEngineHostCodeAllowed, setTempfileControlFlags, setTemporaryDirectory: runtime/plan_libraries.h).
//
// createInferRuntime_INTERNAL(logger, version) makes one; the logger becomes kiln's current logger.
//
//     nvinfer1::IRuntime* runtime = nvinfer1::createInferRuntime(logger);
//     nvinfer1::ICudaEngine* engine = runtime->deserializeCudaEngine(plan.data(), plan.size());
#pragma once

#include "network/report.h"
#include "runtime/plan_libraries.h"

#include "NvInferRuntime.h"

#include <cstddef>
#include <string>

namespace kiln
{

class Runtime final : public nvinfer1::IRuntime
{
public:
    explicit Runtime(nvinfer1::ILogger& logger);
    ~Runtime() noexcept override;

private:
    class Impl final : public nvinfer1::apiv::VRuntime
    {
    public:
        explicit Impl(Runtime& runtime)
            : mRuntime(runtime)
        {
        }

        nvinfer1::IRuntime* getPImpl() noexcept override { return &mRuntime; }
        nvinfer1::ICudaEngine* deserializeCudaEngine(void const* blob, std::size_t size) noexcept override;
        nvinfer1::ICudaEngine* deserializeCudaEngine(nvinfer1::IStreamReader& streamReader) noexcept override;
        void setDLACore(int32_t dlaCore) noexcept override;
        int32_t getDLACore() const noexcept override;
        int32_t getNbDLACores() const noexcept override;
        void setGpuAllocator(nvinfer1::IGpuAllocator* allocator) noexcept override;
        void setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept override;
        nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override;
        nvinfer1::ILogger* getLogger() const noexcept override;
        bool setMaxThreads(int32_t maxThreads) noexcept override;
        int32_t getMaxThreads() const noexcept override;
        void setTemporaryDirectory(char const* path) noexcept override;
        char const* getTemporaryDirectory() const noexcept override;
        void setTempfileControlFlags(nvinfer1::TempfileControlFlags flags) noexcept override;
        nvinfer1::TempfileControlFlags getTempfileControlFlags() const noexcept override;
        nvinfer1::IPluginRegistry& getPluginRegistry() noexcept override;
        void setPluginRegistryParent(nvinfer1::IPluginRegistry* parent) noexcept override;
        nvinfer1::IRuntime* loadRuntime(char const* path) noexcept override;
        void setEngineHostCodeAllowed(bool allowed) noexcept override;
        bool getEngineHostCodeAllowed() const noexcept override;
        nvinfer1::ICudaEngine* deserializeCudaEngineV2(nvinfer1::IStreamReaderV2& streamReader) noexcept override;

    private:
        //! The engine of the plan in [data, data + size); method names the API call in messages.
        nvinfer1::ICudaEngine* load(char const* method, void const* data, std::size_t size) noexcept;
        //! How engines of this runtime may load the plugin libraries their plans carry.
        PlanLibraryPolicy libraryPolicy() const;

        Runtime& mRuntime;
    };

    Impl mImplObject{*this};
    nvinfer1::ILogger& mLogger;
    Reporter mReporter;
    int32_t mMaxThreads{1};
    int32_t mDLACore{-1};
    nvinfer1::IGpuAllocator* mAllocator{};
    std::string mTemporaryDirectory;
    bool mHasTemporaryDirectory{};
    nvinfer1::TempfileControlFlags mTempfileFlags{
        (1U << static_cast<uint32_t>(nvinfer1::TempfileControlFlag::kALLOW_IN_MEMORY_FILES))
        | (1U << static_cast<uint32_t>(nvinfer1::TempfileControlFlag::kALLOW_TEMPORARY_FILES))};
    bool mEngineHostCodeAllowed{};
};

} // namespace kiln
