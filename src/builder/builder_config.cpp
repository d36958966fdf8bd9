// SPDX-License-Identifier: Apache-2.0
#include "builder/builder_config.h"

#include "builder/build.h"
#include "builder/timing_cache.h"

#include <unistd.h>

#include <algorithm>
#include <set>

namespace kiln
{

using nvinfer1::BuilderFlag;
using nvinfer1::MemoryPoolType;

namespace
{

//! The mask of every enumerator of a flag enum.
template <typename E>
constexpr uint32_t allBits() noexcept
{
    return nvinfer1::EnumMax<E>() >= 32 ? ~0U : (1U << static_cast<uint32_t>(nvinfer1::EnumMax<E>())) - 1U;
}

template <typename E>
constexpr uint32_t bitOf(E value) noexcept
{
    return 1U << static_cast<uint32_t>(value);
}

std::size_t physicalMemory() noexcept
{
    long const pages = sysconf(_SC_PHYS_PAGES);
    long const pageSize = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || pageSize <= 0)
    {
        return std::size_t{1} << 32U;
    }
    return static_cast<std::size_t>(pages) * static_cast<std::size_t>(pageSize);
}

//! The identity of the timing caches of this process's builds (the backend KILN_BACKEND or the machine gives).
std::string buildIdentity()
{
    auto const backend = chosenBackend();
    return timingCacheIdentity(backend ? backend.value() : PlanBackend::kHOST);
}

} // namespace

std::size_t defaultMemoryPoolLimit(MemoryPoolType pool) noexcept
{
    constexpr std::size_t kMiB = std::size_t{1} << 20U;
    switch (pool)
    {
    case MemoryPoolType::kWORKSPACE: return physicalMemory();
    case MemoryPoolType::kDLA_MANAGED_SRAM: return kMiB;
    case MemoryPoolType::kDLA_LOCAL_DRAM: return 1024 * kMiB;
    case MemoryPoolType::kDLA_GLOBAL_DRAM: return 512 * kMiB;
    case MemoryPoolType::kTACTIC_DRAM: return physicalMemory();
    case MemoryPoolType::kTACTIC_SHARED_MEMORY: return 48 * 1024;
    }
    return 0;
}

BuildSettings::BuildSettings()
{
    for (int32_t i = 0; i < nvinfer1::EnumMax<MemoryPoolType>(); ++i)
    {
        memoryPoolLimits[static_cast<std::size_t>(i)] = defaultMemoryPoolLimit(static_cast<MemoryPoolType>(i));
    }
}

BuilderConfig::BuilderConfig(Reporter const& reporter)
    : mReporter(reporter)
{
    mImpl = &mImplObject;
}

void BuilderConfig::Impl::setAvgTimingIterations(int32_t avgTiming) noexcept
{
    if (avgTiming < 1)
    {
        fail("setAvgTimingIterations", "avgTiming is ", avgTiming, "; at least one run is timed");
        return;
    }
    mSettings.avgTimingIterations = avgTiming;
}

int32_t BuilderConfig::Impl::getAvgTimingIterations() const noexcept
{
    return mSettings.avgTimingIterations;
}

void BuilderConfig::Impl::setEngineCapability(nvinfer1::EngineCapability capability) noexcept
{
    if (checkEnum("setEngineCapability", "engine capability", capability))
    {
        mSettings.engineCapability = capability;
    }
}

nvinfer1::EngineCapability BuilderConfig::Impl::getEngineCapability() const noexcept
{
    return mSettings.engineCapability;
}

void BuilderConfig::Impl::setInt8Calibrator(nvinfer1::IInt8Calibrator* calibrator) noexcept
{
    mSettings.int8Calibrator = calibrator;
}

nvinfer1::IInt8Calibrator* BuilderConfig::Impl::getInt8Calibrator() const noexcept
{
    return mSettings.int8Calibrator;
}

void BuilderConfig::Impl::setFlags(nvinfer1::BuilderFlags builderFlags) noexcept
{
    if ((builderFlags & ~allBits<BuilderFlag>()) != 0)
    {
        fail("setFlags", "flags ", builderFlags, " contain bits that are no BuilderFlag (mask ", allBits<BuilderFlag>(),
            ")");
        return;
    }
    mSettings.flags = builderFlags;
}

nvinfer1::BuilderFlags BuilderConfig::Impl::getFlags() const noexcept
{
    return mSettings.flags;
}

void BuilderConfig::Impl::clearFlag(BuilderFlag builderFlag) noexcept
{
    if (checkEnum("clearFlag", "builder flag", builderFlag))
    {
        mSettings.flags &= ~bitOf(builderFlag);
    }
}

void BuilderConfig::Impl::setFlag(BuilderFlag builderFlag) noexcept
{
    if (checkEnum("setFlag", "builder flag", builderFlag))
    {
        mSettings.flags |= bitOf(builderFlag);
    }
}

bool BuilderConfig::Impl::getFlag(BuilderFlag builderFlag) const noexcept
{
    return checkEnum("getFlag", "builder flag", builderFlag) && (mSettings.flags & bitOf(builderFlag)) != 0;
}

void BuilderConfig::Impl::setDeviceType(nvinfer1::ILayer const* layer, nvinfer1::DeviceType deviceType) noexcept
{
    if (layer == nullptr)
    {
        fail("setDeviceType", "the layer is null");
        return;
    }
    if (checkEnum("setDeviceType", "device type", deviceType))
    {
        mConfig.mReporter.guard("IBuilderConfig::setDeviceType", 0, [&] {
            mSettings.deviceTypes[layer] = deviceType;
            return 0;
        });
    }
}

nvinfer1::DeviceType BuilderConfig::Impl::getDeviceType(nvinfer1::ILayer const* layer) const noexcept
{
    auto const found = mSettings.deviceTypes.find(layer);
    return found != mSettings.deviceTypes.end() ? found->second : mSettings.defaultDeviceType;
}

bool BuilderConfig::Impl::isDeviceTypeSet(nvinfer1::ILayer const* layer) const noexcept
{
    return mSettings.deviceTypes.count(layer) != 0;
}

void BuilderConfig::Impl::resetDeviceType(nvinfer1::ILayer const* layer) noexcept
{
    mSettings.deviceTypes.erase(layer);
}

bool BuilderConfig::Impl::canRunOnDLA(nvinfer1::ILayer const* /*layer*/) const noexcept
{
    return false; // kiln has no DLA
}

void BuilderConfig::Impl::setDLACore(int32_t dlaCore) noexcept
{
    if (dlaCore < -1)
    {
        fail("setDLACore", "DLA core ", dlaCore, " is not -1 (none) or a core index");
        return;
    }
    mSettings.dlaCore = dlaCore;
}

int32_t BuilderConfig::Impl::getDLACore() const noexcept
{
    return mSettings.dlaCore;
}

void BuilderConfig::Impl::setDefaultDeviceType(nvinfer1::DeviceType deviceType) noexcept
{
    if (checkEnum("setDefaultDeviceType", "device type", deviceType))
    {
        mSettings.defaultDeviceType = deviceType;
    }
}

nvinfer1::DeviceType BuilderConfig::Impl::getDefaultDeviceType() const noexcept
{
    return mSettings.defaultDeviceType;
}

void BuilderConfig::Impl::reset() noexcept
{
    mConfig.mReporter.guard("IBuilderConfig::reset", 0, [&] {
        mSettings = BuildSettings{};
        return 0;
    });
}

void BuilderConfig::Impl::setProfileStream(const cudaStream_t stream) noexcept
{
    mSettings.profileStream = stream;
}

cudaStream_t BuilderConfig::Impl::getProfileStream() const noexcept
{
    return mSettings.profileStream;
}

int32_t BuilderConfig::Impl::addOptimizationProfile(nvinfer1::IOptimizationProfile const* profile) noexcept
{
    constexpr char const* kWhere = "IBuilderConfig::addOptimizationProfile";
    if (profile == nullptr)
    {
        fail("addOptimizationProfile", "the profile is null");
        return -1;
    }
    return mConfig.mReporter.guard(kWhere, -1, [&] {
        ProfileData const& data = OptimizationProfile::of(*profile).data();
        if (auto problem = profileProblem(data))
        {
            fail("addOptimizationProfile", "the profile is not valid: ", *problem);
            return -1;
        }
        mSettings.profiles.push_back(data);
        return static_cast<int32_t>(mSettings.profiles.size()) - 1;
    });
}

int32_t BuilderConfig::Impl::getNbOptimizationProfiles() const noexcept
{
    return static_cast<int32_t>(mSettings.profiles.size());
}

void BuilderConfig::Impl::setProfilingVerbosity(nvinfer1::ProfilingVerbosity verbosity) noexcept
{
    if (checkEnum("setProfilingVerbosity", "profiling verbosity", verbosity))
    {
        mSettings.profilingVerbosity = verbosity;
    }
}

nvinfer1::ProfilingVerbosity BuilderConfig::Impl::getProfilingVerbosity() const noexcept
{
    return mSettings.profilingVerbosity;
}

void BuilderConfig::Impl::setAlgorithmSelector(nvinfer1::IAlgorithmSelector* selector) noexcept
{
    mSettings.algorithmSelector = selector;
}

nvinfer1::IAlgorithmSelector* BuilderConfig::Impl::getAlgorithmSelector() const noexcept
{
    return mSettings.algorithmSelector;
}

bool BuilderConfig::Impl::setCalibrationProfile(nvinfer1::IOptimizationProfile const* profile) noexcept
{
    if (profile != nullptr)
    {
        bool const valid = mConfig.mReporter.guard("IBuilderConfig::setCalibrationProfile", false, [&] {
            auto problem = profileProblem(OptimizationProfile::of(*profile).data());
            if (problem)
            {
                fail("setCalibrationProfile", "the profile is not valid: ", *problem);
            }
            return !problem;
        });
        if (!valid)
        {
            return false;
        }
    }
    mSettings.calibrationProfile = profile;
    return true;
}

nvinfer1::IOptimizationProfile const* BuilderConfig::Impl::getCalibrationProfile() noexcept
{
    return mSettings.calibrationProfile;
}

void BuilderConfig::Impl::setQuantizationFlags(nvinfer1::QuantizationFlags flags) noexcept
{
    if ((flags & ~allBits<nvinfer1::QuantizationFlag>()) != 0)
    {
        fail("setQuantizationFlags", "flags ", flags, " contain bits that are no QuantizationFlag");
        return;
    }
    mSettings.quantizationFlags = flags;
}

nvinfer1::QuantizationFlags BuilderConfig::Impl::getQuantizationFlags() const noexcept
{
    return mSettings.quantizationFlags;
}

void BuilderConfig::Impl::clearQuantizationFlag(nvinfer1::QuantizationFlag flag) noexcept
{
    if (checkEnum("clearQuantizationFlag", "quantization flag", flag))
    {
        mSettings.quantizationFlags &= ~bitOf(flag);
    }
}

void BuilderConfig::Impl::setQuantizationFlag(nvinfer1::QuantizationFlag flag) noexcept
{
    if (checkEnum("setQuantizationFlag", "quantization flag", flag))
    {
        mSettings.quantizationFlags |= bitOf(flag);
    }
}

bool BuilderConfig::Impl::getQuantizationFlag(nvinfer1::QuantizationFlag flag) const noexcept
{
    return checkEnum("getQuantizationFlag", "quantization flag", flag)
        && (mSettings.quantizationFlags & bitOf(flag)) != 0;
}

bool BuilderConfig::Impl::setTacticSources(nvinfer1::TacticSources tacticSources) noexcept
{
    if ((tacticSources & ~allBits<nvinfer1::TacticSource>()) != 0)
    {
        fail("setTacticSources", "sources ", tacticSources, " contain bits that are no TacticSource (mask ",
            allBits<nvinfer1::TacticSource>(), ")");
        return false;
    }
    mSettings.tacticSources = tacticSources;
    return true;
}

nvinfer1::TacticSources BuilderConfig::Impl::getTacticSources() const noexcept
{
    return mSettings.tacticSources;
}

nvinfer1::ITimingCache* BuilderConfig::Impl::createTimingCache(void const* blob, std::size_t size) const noexcept
{
    constexpr char const* kWhere = "IBuilderConfig::createTimingCache";
    bool const editable = (mSettings.flags & bitOf(BuilderFlag::kEDITABLE_TIMING_CACHE)) != 0;
    nvinfer1::IErrorRecorder* const recorder = mConfig.mReporter.recorder();
    return mConfig.mReporter.guard(
        kWhere, static_cast<nvinfer1::ITimingCache*>(nullptr), [&]() -> nvinfer1::ITimingCache* {
            if (size == 0)
            {
                return TimingCache::create(buildIdentity(), editable, recorder).release();
            }
            auto cache = TimingCache::deserialize(blob, size, editable, recorder);
            if (!cache)
            {
                mConfig.mReporter.error(cache.error().code, kWhere, ": ", cache.error().message);
                return nullptr;
            }
            return cache.value().release();
        });
}

bool BuilderConfig::Impl::setTimingCache(nvinfer1::ITimingCache const& cache, bool ignoreMismatch) noexcept
{
    constexpr char const* kWhere = "IBuilderConfig::setTimingCache";
    TimingCache const* const kilnCache = TimingCache::find(&cache);
    if (kilnCache == nullptr)
    {
        fail("setTimingCache", "the cache was not made by kiln (IBuilderConfig::createTimingCache)");
        return false;
    }
    bool const matched = mConfig.mReporter.guard(kWhere, false, [&] {
        std::string const identity = buildIdentity();
        if (kilnCache->identity() == identity)
        {
            return true;
        }
        if (!ignoreMismatch)
        {
            fail("setTimingCache", "the cache holds timings of ", quotedText(kilnCache->identity()),
                " but this build's are those of ", quotedText(identity),
                "; pass ignoreMismatch = true to use it anyway");
            return false;
        }
        mConfig.mReporter.warning(kWhere, ": the cache holds timings of ", quotedText(kilnCache->identity()),
            " but this build's are those of ", quotedText(identity), " (ignoreMismatch); they may not hold here");
        return true;
    });
    if (!matched)
    {
        return false;
    }
    mSettings.timingCache = &cache;
    mSettings.ignoreTimingCacheMismatch = ignoreMismatch;
    return true;
}

nvinfer1::ITimingCache const* BuilderConfig::Impl::getTimingCache() const noexcept
{
    return mSettings.timingCache;
}

void BuilderConfig::Impl::setMemoryPoolLimit(MemoryPoolType pool, std::size_t poolSize) noexcept
{
    if (checkEnum("setMemoryPoolLimit", "memory pool", pool))
    {
        mSettings.memoryPoolLimits[static_cast<std::size_t>(pool)] = poolSize;
    }
}

std::size_t BuilderConfig::Impl::getMemoryPoolLimit(MemoryPoolType pool) const noexcept
{
    return checkEnum("getMemoryPoolLimit", "memory pool", pool)
        ? mSettings.memoryPoolLimits[static_cast<std::size_t>(pool)]
        : 0;
}

void BuilderConfig::Impl::setPreviewFeature(nvinfer1::PreviewFeature feature, bool enable) noexcept
{
    if (!checkEnum("setPreviewFeature", "preview feature", feature))
    {
        return;
    }
    if (feature == nvinfer1::PreviewFeature::kPROFILE_SHARING_0806)
    {
        if (!enable)
        {
            mConfig.mReporter.warning(
                "IBuilderConfig::setPreviewFeature: kPROFILE_SHARING_0806 is always on; turning it off has no effect");
        }
        return;
    }
    mSettings.previewFeatures
        = enable ? mSettings.previewFeatures | bitOf(feature) : mSettings.previewFeatures & ~bitOf(feature);
}

bool BuilderConfig::Impl::getPreviewFeature(nvinfer1::PreviewFeature feature) const noexcept
{
    return checkEnum("getPreviewFeature", "preview feature", feature)
        && (mSettings.previewFeatures & bitOf(feature)) != 0;
}

void BuilderConfig::Impl::setBuilderOptimizationLevel(int32_t level) noexcept
{
    if (level < 0 || level > 5)
    {
        fail("setBuilderOptimizationLevel", "level ", level, " is not in 0 to 5");
        return;
    }
    mSettings.builderOptimizationLevel = level;
}

int32_t BuilderConfig::Impl::getBuilderOptimizationLevel() const noexcept
{
    return mSettings.builderOptimizationLevel;
}

void BuilderConfig::Impl::setHardwareCompatibilityLevel(
    nvinfer1::HardwareCompatibilityLevel hardwareCompatibilityLevel) noexcept
{
    if (checkEnum("setHardwareCompatibilityLevel", "hardware compatibility level", hardwareCompatibilityLevel))
    {
        mSettings.hardwareCompatibilityLevel = hardwareCompatibilityLevel;
    }
}

nvinfer1::HardwareCompatibilityLevel BuilderConfig::Impl::getHardwareCompatibilityLevel() const noexcept
{
    return mSettings.hardwareCompatibilityLevel;
}

void BuilderConfig::Impl::setPluginsToSerialize(char const* const* paths, int32_t nbPaths) noexcept
{
    if (nbPaths < 0 || (paths == nullptr && nbPaths > 0))
    {
        fail("setPluginsToSerialize", nbPaths < 0 ? "nbPaths is negative: " : "the paths are null but nbPaths is ",
            nbPaths);
        return;
    }
    mConfig.mReporter.guard("IBuilderConfig::setPluginsToSerialize", 0, [&] {
        std::vector<std::string> list;
        std::set<std::string> seen;
        for (int32_t i = 0; i < nbPaths; ++i)
        {
            if (paths[i] == nullptr)
            {
                fail("setPluginsToSerialize", "path ", i, " is null");
                return 0;
            }
            if (!seen.insert(paths[i]).second)
            {
                fail("setPluginsToSerialize", "path ", quotedText(paths[i]), " is given twice; the paths are unique");
                return 0;
            }
            list.emplace_back(paths[i]);
        }
        mSettings.pluginsToSerialize = std::move(list);
        return 0;
    });
}

char const* BuilderConfig::Impl::getPluginToSerialize(int32_t index) const noexcept
{
    if (index < 0 || index >= getNbPluginsToSerialize())
    {
        fail("getPluginToSerialize", "index ", index, " is out of range; there are ", getNbPluginsToSerialize(),
            " plugin libraries to serialize");
        return nullptr;
    }
    return mSettings.pluginsToSerialize[static_cast<std::size_t>(index)].c_str();
}

int32_t BuilderConfig::Impl::getNbPluginsToSerialize() const noexcept
{
    return static_cast<int32_t>(mSettings.pluginsToSerialize.size());
}

void BuilderConfig::Impl::setMaxAuxStreams(int32_t nbStreams) noexcept
{
    if (nbStreams < 0)
    {
        fail("setMaxAuxStreams", "nbStreams is ", nbStreams, "; it must be at least 0");
        return;
    }
    mSettings.maxAuxStreams = nbStreams;
}

int32_t BuilderConfig::Impl::getMaxAuxStreams() const noexcept
{
    return mSettings.maxAuxStreams;
}

void BuilderConfig::Impl::setProgressMonitor(nvinfer1::IProgressMonitor* monitor) noexcept
{
    mSettings.progressMonitor = monitor;
}

nvinfer1::IProgressMonitor* BuilderConfig::Impl::getProgressMonitor() const noexcept
{
    return mSettings.progressMonitor;
}

void BuilderConfig::Impl::setRuntimePlatform(nvinfer1::RuntimePlatform runtimePlatform) noexcept
{
    if (checkEnum("setRuntimePlatform", "runtime platform", runtimePlatform))
    {
        mSettings.runtimePlatform = runtimePlatform;
    }
}

nvinfer1::RuntimePlatform BuilderConfig::Impl::getRuntimePlatform() const noexcept
{
    return mSettings.runtimePlatform;
}

void BuilderConfig::Impl::setMaxNbTactics(int32_t maxTactics) noexcept
{
    if (maxTactics < -1)
    {
        fail("setMaxNbTactics", "maxTactics is ", maxTactics, "; it is -1 (the builder decides) or at least 0");
        return;
    }
    mSettings.maxNbTactics = maxTactics;
}

int32_t BuilderConfig::Impl::getMaxNbTactics() const noexcept
{
    return mSettings.maxNbTactics;
}

bool BuilderConfig::Impl::setTilingOptimizationLevel(nvinfer1::TilingOptimizationLevel level) noexcept
{
    if (!checkEnum("setTilingOptimizationLevel", "tiling optimization level", level))
    {
        return false;
    }
    mSettings.tilingOptimizationLevel = level;
    return true;
}

nvinfer1::TilingOptimizationLevel BuilderConfig::Impl::getTilingOptimizationLevel() const noexcept
{
    return mSettings.tilingOptimizationLevel;
}

bool BuilderConfig::Impl::setL2LimitForTiling(int64_t size) noexcept
{
    if (size < 0)
    {
        fail("setL2LimitForTiling", "size is ", size, "; it must be at least 0");
        return false;
    }
    mSettings.l2LimitForTiling = size;
    return true;
}

int64_t BuilderConfig::Impl::getL2LimitForTiling() const noexcept
{
    return mSettings.l2LimitForTiling;
}

bool BuilderConfig::Impl::setRemoteAutoTuningConfig(char const* config) noexcept
{
    return mConfig.mReporter.guard("IBuilderConfig::setRemoteAutoTuningConfig", false, [&] {
        if (config == nullptr)
        {
            mSettings.remoteAutoTuningConfig.reset();
        }
        else
        {
            mSettings.remoteAutoTuningConfig = std::string{config};
        }
        return true;
    });
}

char const* BuilderConfig::Impl::getRemoteAutoTuningConfig() const noexcept
{
    return mSettings.remoteAutoTuningConfig ? mSettings.remoteAutoTuningConfig->c_str() : nullptr;
}

} // namespace kiln
