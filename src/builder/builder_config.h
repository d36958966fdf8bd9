// SPDX-License-Identifier: Apache-2.0
// The builder config: the options of one build, kept in BuildSettings (which the build reads), with TensorRT's
// defaults. Memory pool defaults: kWORKSPACE and kTACTIC_DRAM default to the machine's physical memory, which is
// "the device's total memory" of the host backend (the CUDA backend will use the GPU's); kTACTIC_SHARED_MEMORY to
// 48 KiB, CUDA's per-block limit without opting in; the DLA pools to TensorRT's 1 MiB, 1 GiB and 512 MiB.
// Profiles are copied when added: later changes to an IOptimizationProfile do not reach the config.
#pragma once

#include "builder/optimization_profile.h"
#include "network/report.h"

#include "NvInfer.h"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kiln
{

//! TensorRT's default builder flags: kTF32 on.
inline constexpr nvinfer1::BuilderFlags kDefaultBuilderFlags = 1U
    << static_cast<uint32_t>(nvinfer1::BuilderFlag::kTF32);

//! TensorRT's default tactic sources: kEDGE_MASK_CONVOLUTIONS and kJIT_CONVOLUTIONS.
inline constexpr nvinfer1::TacticSources kDefaultTacticSources
    = (1U << static_cast<uint32_t>(nvinfer1::TacticSource::kEDGE_MASK_CONVOLUTIONS))
    | (1U << static_cast<uint32_t>(nvinfer1::TacticSource::kJIT_CONVOLUTIONS));

//! The default limit of a memory pool (see above).
std::size_t defaultMemoryPoolLimit(nvinfer1::MemoryPoolType pool) noexcept;

//! Everything a builder config holds.
struct BuildSettings
{
    BuildSettings();

    int32_t avgTimingIterations{1};
    nvinfer1::EngineCapability engineCapability{nvinfer1::EngineCapability::kSTANDARD};
    nvinfer1::IInt8Calibrator* int8Calibrator{};
    nvinfer1::BuilderFlags flags{kDefaultBuilderFlags};
    std::map<nvinfer1::ILayer const*, nvinfer1::DeviceType> deviceTypes;
    int32_t dlaCore{-1};
    nvinfer1::DeviceType defaultDeviceType{nvinfer1::DeviceType::kGPU};
    cudaStream_t profileStream{};
    std::vector<ProfileData> profiles;
    nvinfer1::ProfilingVerbosity profilingVerbosity{nvinfer1::ProfilingVerbosity::kLAYER_NAMES_ONLY};
    nvinfer1::IAlgorithmSelector* algorithmSelector{};
    nvinfer1::IOptimizationProfile const* calibrationProfile{};
    nvinfer1::QuantizationFlags quantizationFlags{};
    nvinfer1::TacticSources tacticSources{kDefaultTacticSources};
    //! A kiln TimingCache (builder/timing_cache.h) owned by the application; setTimingCache() refuses a cache of
    //! another identity than this build's unless ignoreMismatch, which is kept here.
    nvinfer1::ITimingCache const* timingCache{};
    bool ignoreTimingCacheMismatch{};
    std::array<std::size_t, nvinfer1::EnumMax<nvinfer1::MemoryPoolType>()> memoryPoolLimits{};
    //! Bit i: PreviewFeature i; kPROFILE_SHARING_0806 is always on.
    uint32_t previewFeatures{1U << static_cast<uint32_t>(nvinfer1::PreviewFeature::kPROFILE_SHARING_0806)};
    int32_t builderOptimizationLevel{3};
    nvinfer1::HardwareCompatibilityLevel hardwareCompatibilityLevel{nvinfer1::HardwareCompatibilityLevel::kNONE};
    std::vector<std::string> pluginsToSerialize;
    int32_t maxAuxStreams{-1}; //!< -1: the builder decides.
    nvinfer1::IProgressMonitor* progressMonitor{};
    nvinfer1::RuntimePlatform runtimePlatform{nvinfer1::RuntimePlatform::kSAME_AS_BUILD};
    int32_t maxNbTactics{-1}; //!< -1: the builder decides.
    nvinfer1::TilingOptimizationLevel tilingOptimizationLevel{nvinfer1::TilingOptimizationLevel::kNONE};
    int64_t l2LimitForTiling{-1}; //!< -1: the builder decides.
    std::optional<std::string> remoteAutoTuningConfig;
    //! The builder's, not the config's: what plugins attached for timing get in their resource context (either may be
    //! null: the default allocator, no recorder).
    nvinfer1::IErrorRecorder* builderRecorder{};
    nvinfer1::IGpuAllocator* builderAllocator{};
};

//! Whether flag is set in settings.
inline bool hasFlag(BuildSettings const& settings, nvinfer1::BuilderFlag flag) noexcept
{
    return (settings.flags & (nvinfer1::BuilderFlags{1} << static_cast<uint32_t>(flag))) != 0;
}

class BuilderConfig final : public nvinfer1::IBuilderConfig
{
public:
    //! Errors go to reporter (the builder's).
    explicit BuilderConfig(Reporter const& reporter);
    ~BuilderConfig() noexcept override = default;

    BuildSettings const& settings() const noexcept { return mSettings; }

    //! The BuilderConfig behind a config kiln made.
    static BuilderConfig const& of(nvinfer1::IBuilderConfig const& config) noexcept
    {
        return static_cast<BuilderConfig const&>(config);
    }

private:
    class Impl final : public nvinfer1::apiv::VBuilderConfig
    {
    public:
        explicit Impl(BuilderConfig& config)
            : mConfig(config)
            , mSettings(config.mSettings)
        {
        }

        void setAvgTimingIterations(int32_t avgTiming) noexcept override;
        int32_t getAvgTimingIterations() const noexcept override;
        void setEngineCapability(nvinfer1::EngineCapability capability) noexcept override;
        nvinfer1::EngineCapability getEngineCapability() const noexcept override;
        void setInt8Calibrator(nvinfer1::IInt8Calibrator* calibrator) noexcept override;
        nvinfer1::IInt8Calibrator* getInt8Calibrator() const noexcept override;
        void setFlags(nvinfer1::BuilderFlags builderFlags) noexcept override;
        nvinfer1::BuilderFlags getFlags() const noexcept override;
        void clearFlag(nvinfer1::BuilderFlag builderFlag) noexcept override;
        void setFlag(nvinfer1::BuilderFlag builderFlag) noexcept override;
        bool getFlag(nvinfer1::BuilderFlag builderFlag) const noexcept override;
        void setDeviceType(nvinfer1::ILayer const* layer, nvinfer1::DeviceType deviceType) noexcept override;
        nvinfer1::DeviceType getDeviceType(nvinfer1::ILayer const* layer) const noexcept override;
        bool isDeviceTypeSet(nvinfer1::ILayer const* layer) const noexcept override;
        void resetDeviceType(nvinfer1::ILayer const* layer) noexcept override;
        bool canRunOnDLA(nvinfer1::ILayer const* layer) const noexcept override;
        void setDLACore(int32_t dlaCore) noexcept override;
        int32_t getDLACore() const noexcept override;
        void setDefaultDeviceType(nvinfer1::DeviceType deviceType) noexcept override;
        nvinfer1::DeviceType getDefaultDeviceType() const noexcept override;
        void reset() noexcept override;
        void setProfileStream(const cudaStream_t stream) noexcept override;
        cudaStream_t getProfileStream() const noexcept override;
        int32_t addOptimizationProfile(nvinfer1::IOptimizationProfile const* profile) noexcept override;
        int32_t getNbOptimizationProfiles() const noexcept override;
        void setProfilingVerbosity(nvinfer1::ProfilingVerbosity verbosity) noexcept override;
        nvinfer1::ProfilingVerbosity getProfilingVerbosity() const noexcept override;
        void setAlgorithmSelector(nvinfer1::IAlgorithmSelector* selector) noexcept override;
        nvinfer1::IAlgorithmSelector* getAlgorithmSelector() const noexcept override;
        bool setCalibrationProfile(nvinfer1::IOptimizationProfile const* profile) noexcept override;
        nvinfer1::IOptimizationProfile const* getCalibrationProfile() noexcept override;
        void setQuantizationFlags(nvinfer1::QuantizationFlags flags) noexcept override;
        nvinfer1::QuantizationFlags getQuantizationFlags() const noexcept override;
        void clearQuantizationFlag(nvinfer1::QuantizationFlag flag) noexcept override;
        void setQuantizationFlag(nvinfer1::QuantizationFlag flag) noexcept override;
        bool getQuantizationFlag(nvinfer1::QuantizationFlag flag) const noexcept override;
        bool setTacticSources(nvinfer1::TacticSources tacticSources) noexcept override;
        nvinfer1::TacticSources getTacticSources() const noexcept override;
        nvinfer1::ITimingCache* createTimingCache(void const* blob, std::size_t size) const noexcept override;
        bool setTimingCache(nvinfer1::ITimingCache const& cache, bool ignoreMismatch) noexcept override;
        nvinfer1::ITimingCache const* getTimingCache() const noexcept override;
        void setMemoryPoolLimit(nvinfer1::MemoryPoolType pool, std::size_t poolSize) noexcept override;
        std::size_t getMemoryPoolLimit(nvinfer1::MemoryPoolType pool) const noexcept override;
        void setPreviewFeature(nvinfer1::PreviewFeature feature, bool enable) noexcept override;
        bool getPreviewFeature(nvinfer1::PreviewFeature feature) const noexcept override;
        void setBuilderOptimizationLevel(int32_t level) noexcept override;
        int32_t getBuilderOptimizationLevel() const noexcept override;
        void setHardwareCompatibilityLevel(
            nvinfer1::HardwareCompatibilityLevel hardwareCompatibilityLevel) noexcept override;
        nvinfer1::HardwareCompatibilityLevel getHardwareCompatibilityLevel() const noexcept override;
        void setPluginsToSerialize(char const* const* paths, int32_t nbPaths) noexcept override;
        char const* getPluginToSerialize(int32_t index) const noexcept override;
        int32_t getNbPluginsToSerialize() const noexcept override;
        void setMaxAuxStreams(int32_t nbStreams) noexcept override;
        int32_t getMaxAuxStreams() const noexcept override;
        void setProgressMonitor(nvinfer1::IProgressMonitor* monitor) noexcept override;
        nvinfer1::IProgressMonitor* getProgressMonitor() const noexcept override;
        void setRuntimePlatform(nvinfer1::RuntimePlatform runtimePlatform) noexcept override;
        nvinfer1::RuntimePlatform getRuntimePlatform() const noexcept override;
        void setMaxNbTactics(int32_t maxTactics) noexcept override;
        int32_t getMaxNbTactics() const noexcept override;
        bool setTilingOptimizationLevel(nvinfer1::TilingOptimizationLevel level) noexcept override;
        nvinfer1::TilingOptimizationLevel getTilingOptimizationLevel() const noexcept override;
        bool setL2LimitForTiling(int64_t size) noexcept override;
        int64_t getL2LimitForTiling() const noexcept override;
        bool setRemoteAutoTuningConfig(char const* config) noexcept override;
        char const* getRemoteAutoTuningConfig() const noexcept override;

    private:
        //! Reports an invalid argument of method: "IBuilderConfig::<method>: <parts>".
        template <typename... Parts>
        void fail(char const* method, Parts const&... parts) const noexcept
        {
            mConfig.mReporter.error(nvinfer1::ErrorCode::kINVALID_ARGUMENT, "IBuilderConfig::", method, ": ", parts...);
        }
        template <typename E>
        bool checkEnum(char const* method, char const* what, E value) const noexcept
        {
            if (!isValidEnum(value))
            {
                fail(method, what, " ", value, " is not a valid value");
                return false;
            }
            return true;
        }

        BuilderConfig& mConfig;
        BuildSettings& mSettings;
    };

    Impl mImplObject{*this};
    Reporter const& mReporter;
    BuildSettings mSettings;
};

} // namespace kiln
