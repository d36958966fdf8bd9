// SPDX-License-Identifier: Apache-2.0
// The builder: makes networks, configs and optimization profiles (it owns the profiles), and turns a network and a
// config into a plan (buildSerializedNetwork, buildSerializedNetworkToStream) or an engine (buildEngineWithConfig)
// through the build step (builder/build.h). A failure is logged, naming the network and what refused it.
//
// createInferBuilder_INTERNAL(logger, version) makes one; the logger becomes kiln's current logger.
#pragma once

#include "builder/builder_config.h"
#include "builder/optimization_profile.h"
#include "core/error.h"
#include "network/report.h"
#include "plan/engine_codec.h"

#include "NvInfer.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace kiln
{

class Builder final : public nvinfer1::IBuilder
{
public:
    explicit Builder(nvinfer1::ILogger& logger);
    ~Builder() noexcept override;

    Reporter const& reporter() const noexcept { return mReporter; }

private:
    class Impl final : public nvinfer1::apiv::VBuilder
    {
    public:
        explicit Impl(Builder& builder)
            : mBuilder(builder)
        {
        }

        bool platformHasFastFp16() const noexcept override;
        bool platformHasFastInt8() const noexcept override;
        int32_t getMaxDLABatchSize() const noexcept override;
        int32_t getNbDLACores() const noexcept override;
        void setGpuAllocator(nvinfer1::IGpuAllocator* allocator) noexcept override;
        nvinfer1::IBuilderConfig* createBuilderConfig() noexcept override;
        nvinfer1::INetworkDefinition* createNetworkV2(nvinfer1::NetworkDefinitionCreationFlags flags) noexcept override;
        nvinfer1::IOptimizationProfile* createOptimizationProfile() noexcept override;
        void setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept override;
        nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override;
        void reset() noexcept override;
        bool platformHasTf32() const noexcept override;
        nvinfer1::IHostMemory* buildSerializedNetwork(
            nvinfer1::INetworkDefinition& network, nvinfer1::IBuilderConfig& config) noexcept override;
        bool isNetworkSupported(nvinfer1::INetworkDefinition const& network,
            nvinfer1::IBuilderConfig const& config) const noexcept override;
        nvinfer1::ILogger* getLogger() const noexcept override;
        bool setMaxThreads(int32_t maxThreads) noexcept override;
        int32_t getMaxThreads() const noexcept override;
        nvinfer1::IPluginRegistry& getPluginRegistry() noexcept override;
        nvinfer1::ICudaEngine* buildEngineWithConfig(
            nvinfer1::INetworkDefinition& network, nvinfer1::IBuilderConfig& config) noexcept override;
        bool buildSerializedNetworkToStream(nvinfer1::INetworkDefinition& network, nvinfer1::IBuilderConfig& config,
            nvinfer1::IStreamWriter& writer) noexcept override;
        nvinfer1::IHostMemory* buildSerializedNetworkWithKernelText(nvinfer1::INetworkDefinition& network,
            nvinfer1::IBuilderConfig& config, nvinfer1::IHostMemory*& kernelText) noexcept override;

    private:
        //! The plan for network and config, in the encoder's buffer; a failure is reported as method's.
        Expected<PlanBytes> buildPlan(char const* method, nvinfer1::INetworkDefinition const& network,
            nvinfer1::IBuilderConfig const& config) const;
        //! config's settings with the builder's error recorder and GPU allocator.
        BuildSettings settingsOf(nvinfer1::IBuilderConfig const& config) const;
        //! Reports error as method's failure to build network, and returns it.
        Error failure(char const* method, nvinfer1::INetworkDefinition const& network, Error error) const;

        Builder& mBuilder;
    };

    Impl mImplObject{*this};
    nvinfer1::ILogger& mLogger;
    Reporter mReporter;
    int32_t mMaxThreads{1};
    nvinfer1::IGpuAllocator* mAllocator{};
    int32_t mNetworksMade{};
    std::vector<std::unique_ptr<OptimizationProfile>> mProfiles;
};

} // namespace kiln
