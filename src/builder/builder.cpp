// SPDX-License-Identifier: Apache-2.0
#include "builder/builder.h"

#include "builder/build.h"
#include "builder/builder_config.h"
#include "core/entry_point.h"
#include "core/host_memory.h"
#include "network/network.h"
#include "plan/engine_codec.h"
#include "runtime/engine.h"

namespace kiln
{

using nvinfer1::ErrorCode;
using nvinfer1::NetworkDefinitionCreationFlag;

Builder::Builder(nvinfer1::ILogger& logger)
    : mLogger(logger)
{
    mImpl = &mImplObject;
}

Builder::~Builder() noexcept = default;

bool Builder::Impl::platformHasFastFp16() const noexcept
{
    return false;
}

bool Builder::Impl::platformHasFastInt8() const noexcept
{
    return false;
}

int32_t Builder::Impl::getMaxDLABatchSize() const noexcept
{
    return 1;
}

int32_t Builder::Impl::getNbDLACores() const noexcept
{
    return 0;
}

void Builder::Impl::setGpuAllocator(nvinfer1::IGpuAllocator* allocator) noexcept
{
    mBuilder.mAllocator = allocator;
}

nvinfer1::IBuilderConfig* Builder::Impl::createBuilderConfig() noexcept
{
    return mBuilder.mReporter.guard("IBuilder::createBuilderConfig", static_cast<nvinfer1::IBuilderConfig*>(nullptr),
        [&] { return new BuilderConfig(mBuilder.mReporter); });
}

nvinfer1::INetworkDefinition* Builder::Impl::createNetworkV2(nvinfer1::NetworkDefinitionCreationFlags flags) noexcept
{
    constexpr char const* kWhere = "IBuilder::createNetworkV2";
    constexpr uint32_t kKnown = (1U << static_cast<uint32_t>(nvinfer1::EnumMax<NetworkDefinitionCreationFlag>())) - 1U;
    constexpr uint32_t kBothPython
        = (1U << static_cast<uint32_t>(NetworkDefinitionCreationFlag::kPREFER_JIT_PYTHON_PLUGINS))
        | (1U << static_cast<uint32_t>(NetworkDefinitionCreationFlag::kPREFER_AOT_PYTHON_PLUGINS));
    if ((flags & ~kKnown) != 0)
    {
        mBuilder.mReporter.error(ErrorCode::kINVALID_ARGUMENT, kWhere, ": flags ", flags,
            " contain bits that are no NetworkDefinitionCreationFlag (mask ", kKnown, ")");
        return nullptr;
    }
    if ((flags & kBothPython) == kBothPython)
    {
        mBuilder.mReporter.error(ErrorCode::kINVALID_ARGUMENT, kWhere,
            ": kPREFER_JIT_PYTHON_PLUGINS and kPREFER_AOT_PYTHON_PLUGINS exclude each other");
        return nullptr;
    }
    return mBuilder.mReporter.guard(kWhere, static_cast<nvinfer1::INetworkDefinition*>(nullptr), [&] {
        std::string name = "Unnamed Network ";
        name += std::to_string(mBuilder.mNetworksMade++);
        return new Network(mBuilder, flags, std::move(name), mBuilder.mReporter.recorder());
    });
}

nvinfer1::IOptimizationProfile* Builder::Impl::createOptimizationProfile() noexcept
{
    return mBuilder.mReporter.guard(
        "IBuilder::createOptimizationProfile", static_cast<nvinfer1::IOptimizationProfile*>(nullptr), [&] {
            mBuilder.mProfiles.push_back(std::make_unique<OptimizationProfile>(mBuilder.mReporter));
            return mBuilder.mProfiles.back().get();
        });
}

void Builder::Impl::setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept
{
    mBuilder.mReporter.setRecorder(recorder);
}

nvinfer1::IErrorRecorder* Builder::Impl::getErrorRecorder() const noexcept
{
    return mBuilder.mReporter.recorder();
}

void Builder::Impl::reset() noexcept
{
    mBuilder.mMaxThreads = 1;
    mBuilder.mAllocator = nullptr;
}

bool Builder::Impl::platformHasTf32() const noexcept
{
    return false;
}

Expected<PlanBytes> Builder::Impl::buildPlan(
    char const* method, nvinfer1::INetworkDefinition const& network, nvinfer1::IBuilderConfig const& config) const
{
    // The model borrows the network's weights (alive until this call returns), so they are copied once: into the plan.
    Expected<EngineModel> model = buildEngineModel(Network::of(network), settingsOf(config), ModelWeights::kBORROW);
    if (!model)
    {
        return failure(method, network, model.error());
    }
    Expected<PlanBytes> plan = encodePlan(model.value());
    if (!plan)
    {
        return failure(method, network, plan.error());
    }
    return plan;
}

BuildSettings Builder::Impl::settingsOf(nvinfer1::IBuilderConfig const& config) const
{
    BuildSettings settings = BuilderConfig::of(config).settings();
    settings.builderRecorder = mBuilder.mReporter.recorder();
    settings.builderAllocator = mBuilder.mAllocator;
    return settings;
}

Error Builder::Impl::failure(char const* method, nvinfer1::INetworkDefinition const& network, Error error) const
{
    mBuilder.mReporter.error(
        error.code, "IBuilder::", method, ": network ", quotedText(Network::of(network).name()), ": ", error.message);
    return error;
}

nvinfer1::IHostMemory* Builder::Impl::buildSerializedNetwork(
    nvinfer1::INetworkDefinition& network, nvinfer1::IBuilderConfig& config) noexcept
{
    return mBuilder.mReporter.guard("IBuilder::buildSerializedNetwork", static_cast<nvinfer1::IHostMemory*>(nullptr),
        [&]() -> nvinfer1::IHostMemory* {
            Expected<PlanBytes> plan = buildPlan("buildSerializedNetwork", network, config);
            return plan ? new HostMemory(std::move(plan.value().owner), plan.value().bytes) : nullptr;
        });
}

bool Builder::Impl::isNetworkSupported(
    nvinfer1::INetworkDefinition const& network, nvinfer1::IBuilderConfig const& config) const noexcept
{
    return mBuilder.mReporter.guard("IBuilder::isNetworkSupported", false, [&] {
        Expected<EngineModel> model = buildEngineModel(Network::of(network), settingsOf(config), ModelWeights::kBORROW);
        if (!model)
        {
            failure("isNetworkSupported", network, model.error());
        }
        return model.ok();
    });
}

nvinfer1::ILogger* Builder::Impl::getLogger() const noexcept
{
    return &mBuilder.mLogger;
}

bool Builder::Impl::setMaxThreads(int32_t maxThreads) noexcept
{
    if (!mBuilder.mReporter.checkAtLeast("IBuilder::setMaxThreads", "maxThreads", maxThreads, 1))
    {
        return false;
    }
    mBuilder.mMaxThreads = maxThreads;
    return true;
}

int32_t Builder::Impl::getMaxThreads() const noexcept
{
    return mBuilder.mMaxThreads;
}

nvinfer1::IPluginRegistry& Builder::Impl::getPluginRegistry() noexcept
{
    return *::getPluginRegistry();
}

nvinfer1::ICudaEngine* Builder::Impl::buildEngineWithConfig(
    nvinfer1::INetworkDefinition& network, nvinfer1::IBuilderConfig& config) noexcept
{
    return mBuilder.mReporter.guard("IBuilder::buildEngineWithConfig", static_cast<nvinfer1::ICudaEngine*>(nullptr),
        [&]() -> nvinfer1::ICudaEngine* {
            Expected<EngineModel> model = buildEngineModel(Network::of(network), settingsOf(config));
            if (!model)
            {
                failure("buildEngineWithConfig", network, model.error());
                return nullptr;
            }
            return createEngine(std::move(model.value()), mBuilder.mLogger);
        });
}

bool Builder::Impl::buildSerializedNetworkToStream(
    nvinfer1::INetworkDefinition& network, nvinfer1::IBuilderConfig& config, nvinfer1::IStreamWriter& writer) noexcept
{
    return mBuilder.mReporter.guard("IBuilder::buildSerializedNetworkToStream", false, [&] {
        Expected<PlanBytes> plan = buildPlan("buildSerializedNetworkToStream", network, config);
        if (!plan)
        {
            return false;
        }
        std::span<uint8_t const> const bytes = plan.value().bytes;
        std::size_t written = 0;
        while (written < bytes.size())
        {
            auto const asked = static_cast<int64_t>(bytes.size() - written);
            int64_t const count = writer.write(bytes.data() + written, asked);
            if (count > asked)
            {
                mBuilder.mReporter.error(ErrorCode::kFAILED_EXECUTION,
                    "IBuilder::buildSerializedNetworkToStream: the stream writer says it wrote ", count,
                    " bytes when it was given ", asked);
                return false;
            }
            if (count <= 0)
            {
                mBuilder.mReporter.error(ErrorCode::kFAILED_EXECUTION,
                    "IBuilder::buildSerializedNetworkToStream: the stream writer accepted ", written, " of ",
                    bytes.size(), " bytes and then refused more (it returned ", count, ")");
                return false;
            }
            written += static_cast<std::size_t>(count);
        }
        return true;
    });
}

nvinfer1::IHostMemory* Builder::Impl::buildSerializedNetworkWithKernelText(nvinfer1::INetworkDefinition& network,
    nvinfer1::IBuilderConfig& config, nvinfer1::IHostMemory*& kernelText) noexcept
{
    // The host backend compiles no kernels, so there is no kernel text.
    kernelText = nullptr;
    return buildSerializedNetwork(network, config);
}

} // namespace kiln

extern "C" TENSORRTAPI void* createInferBuilder_INTERNAL(void* logger, int32_t version) noexcept
{
    return kiln::createFromEntryPoint<nvinfer1::IBuilder, kiln::Builder>("createInferBuilder", logger, version);
}

extern "C" TENSORRTAPI nvinfer1::IPluginRegistry* getBuilderPluginRegistry(
    nvinfer1::EngineCapability capability) noexcept
{
    if (capability == nvinfer1::EngineCapability::kSTANDARD)
    {
        return getPluginRegistry();
    }
    kiln::log(kiln::Severity::kERROR,
        "getBuilderPluginRegistry: kiln builds only EngineCapability::kSTANDARD engines, so it has no plugin registry "
        "for EngineCapability "
            + std::to_string(static_cast<int32_t>(capability)));
    return nullptr;
}
