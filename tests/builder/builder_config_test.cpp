// SPDX-License-Identifier: Apache-2.0
// IBuilderConfig through the public API: TensorRT's defaults, every setter read back, reset, and each refusal.
#include "support/api_test.h"

namespace kiln::test
{
namespace
{

using nvinfer1::BuilderFlag;
using nvinfer1::DeviceType;
using nvinfer1::MemoryPoolType;
using nvinfer1::PreviewFeature;

class ConfigTest : public ApiTest
{
protected:
    void SetUp() override
    {
        ApiTest::SetUp();
        mConfig = mBuilder->createBuilderConfig();
        ASSERT_NE(mConfig, nullptr);
    }
    void TearDown() override
    {
        delete mConfig;
        ApiTest::TearDown();
    }

    nvinfer1::IBuilderConfig* mConfig{};
};

TEST_F(ConfigTest, Defaults)
{
    EXPECT_EQ(mConfig->getAvgTimingIterations(), 1);
    EXPECT_EQ(mConfig->getEngineCapability(), nvinfer1::EngineCapability::kSTANDARD);
    EXPECT_EQ(mConfig->getFlags(), 1U << static_cast<uint32_t>(BuilderFlag::kTF32));
    EXPECT_TRUE(mConfig->getFlag(BuilderFlag::kTF32));
    EXPECT_FALSE(mConfig->getFlag(BuilderFlag::kFP16));
    EXPECT_EQ(mConfig->getDLACore(), -1);
    EXPECT_EQ(mConfig->getDefaultDeviceType(), DeviceType::kGPU);
    EXPECT_EQ(mConfig->getProfileStream(), nullptr);
    EXPECT_EQ(mConfig->getNbOptimizationProfiles(), 0);
    EXPECT_EQ(mConfig->getProfilingVerbosity(), nvinfer1::ProfilingVerbosity::kLAYER_NAMES_ONLY);
    EXPECT_EQ(mConfig->getTacticSources(),
        (1U << static_cast<uint32_t>(nvinfer1::TacticSource::kEDGE_MASK_CONVOLUTIONS))
            | (1U << static_cast<uint32_t>(nvinfer1::TacticSource::kJIT_CONVOLUTIONS)));
    EXPECT_EQ(mConfig->getTimingCache(), nullptr);
    EXPECT_GT(mConfig->getMemoryPoolLimit(MemoryPoolType::kWORKSPACE), std::size_t{1} << 26U);
    EXPECT_EQ(mConfig->getMemoryPoolLimit(MemoryPoolType::kTACTIC_DRAM),
        mConfig->getMemoryPoolLimit(MemoryPoolType::kWORKSPACE));
    EXPECT_EQ(mConfig->getMemoryPoolLimit(MemoryPoolType::kDLA_MANAGED_SRAM), std::size_t{1} << 20U);
    EXPECT_EQ(mConfig->getMemoryPoolLimit(MemoryPoolType::kDLA_LOCAL_DRAM), std::size_t{1} << 30U);
    EXPECT_EQ(mConfig->getMemoryPoolLimit(MemoryPoolType::kDLA_GLOBAL_DRAM), std::size_t{1} << 29U);
    EXPECT_EQ(mConfig->getMemoryPoolLimit(MemoryPoolType::kTACTIC_SHARED_MEMORY), 48U * 1024U);
    EXPECT_TRUE(mConfig->getPreviewFeature(PreviewFeature::kPROFILE_SHARING_0806));
    EXPECT_FALSE(mConfig->getPreviewFeature(PreviewFeature::kALIASED_PLUGIN_IO_10_03));
    EXPECT_EQ(mConfig->getBuilderOptimizationLevel(), 3);
    EXPECT_EQ(mConfig->getHardwareCompatibilityLevel(), nvinfer1::HardwareCompatibilityLevel::kNONE);
    EXPECT_EQ(mConfig->getNbPluginsToSerialize(), 0);
    EXPECT_EQ(mConfig->getMaxAuxStreams(), -1);
    EXPECT_EQ(mConfig->getProgressMonitor(), nullptr);
    EXPECT_EQ(mConfig->getRuntimePlatform(), nvinfer1::RuntimePlatform::kSAME_AS_BUILD);
    EXPECT_EQ(mConfig->getMaxNbTactics(), -1);
    EXPECT_EQ(mConfig->getTilingOptimizationLevel(), nvinfer1::TilingOptimizationLevel::kNONE);
    EXPECT_EQ(mConfig->getL2LimitForTiling(), -1);
    EXPECT_EQ(mConfig->getRemoteAutoTuningConfig(), nullptr);
    EXPECT_EQ(mConfig->getQuantizationFlags(), 0U);
    EXPECT_EQ(mConfig->getInt8Calibrator(), nullptr);
    EXPECT_EQ(mConfig->getAlgorithmSelector(), nullptr);
    EXPECT_EQ(mConfig->getCalibrationProfile(), nullptr);
    expectNoError();
}

class CountingMonitor final : public nvinfer1::IProgressMonitor
{
public:
    void phaseStart(char const*, char const*, int32_t) noexcept override {}
    bool stepComplete(char const*, int32_t) noexcept override { return true; }
    void phaseFinish(char const*) noexcept override {}
};

TEST_F(ConfigTest, SettersReadBackAndResetRestoresDefaults)
{
    mConfig->setAvgTimingIterations(4);
    mConfig->setFlag(BuilderFlag::kFP16);
    mConfig->clearFlag(BuilderFlag::kTF32);
    mConfig->setMemoryPoolLimit(MemoryPoolType::kWORKSPACE, 1U << 20U);
    mConfig->setPreviewFeature(PreviewFeature::kALIASED_PLUGIN_IO_10_03, true);
    mConfig->setProfilingVerbosity(nvinfer1::ProfilingVerbosity::kDETAILED);
    mConfig->setBuilderOptimizationLevel(5);
    mConfig->setHardwareCompatibilityLevel(nvinfer1::HardwareCompatibilityLevel::kAMPERE_PLUS);
    mConfig->setMaxAuxStreams(2);
    mConfig->setRuntimePlatform(nvinfer1::RuntimePlatform::kWINDOWS_AMD64);
    mConfig->setMaxNbTactics(7);
    EXPECT_TRUE(mConfig->setTilingOptimizationLevel(nvinfer1::TilingOptimizationLevel::kFULL));
    EXPECT_TRUE(mConfig->setL2LimitForTiling(1 << 20));
    EXPECT_TRUE(mConfig->setRemoteAutoTuningConfig("remote"));
    EXPECT_TRUE(mConfig->setTacticSources(0));
    mConfig->setEngineCapability(nvinfer1::EngineCapability::kSAFETY);
    mConfig->setDLACore(0);
    mConfig->setDefaultDeviceType(DeviceType::kDLA);
    CountingMonitor monitor;
    mConfig->setProgressMonitor(&monitor);
    char const* paths[] = {"libA.so", "libB.so"};
    mConfig->setPluginsToSerialize(paths, 2);
    nvinfer1::ILayer* layer = mNetwork->addIdentity(*input("x", dims({1})));
    mConfig->setDeviceType(layer, DeviceType::kDLA);
    expectNoError();

    EXPECT_EQ(mConfig->getAvgTimingIterations(), 4);
    EXPECT_EQ(mConfig->getFlags(), 1U << static_cast<uint32_t>(BuilderFlag::kFP16));
    EXPECT_EQ(mConfig->getMemoryPoolLimit(MemoryPoolType::kWORKSPACE), 1U << 20U);
    EXPECT_TRUE(mConfig->getPreviewFeature(PreviewFeature::kALIASED_PLUGIN_IO_10_03));
    EXPECT_EQ(mConfig->getProfilingVerbosity(), nvinfer1::ProfilingVerbosity::kDETAILED);
    EXPECT_EQ(mConfig->getBuilderOptimizationLevel(), 5);
    EXPECT_EQ(mConfig->getHardwareCompatibilityLevel(), nvinfer1::HardwareCompatibilityLevel::kAMPERE_PLUS);
    EXPECT_EQ(mConfig->getMaxAuxStreams(), 2);
    EXPECT_EQ(mConfig->getRuntimePlatform(), nvinfer1::RuntimePlatform::kWINDOWS_AMD64);
    EXPECT_EQ(mConfig->getMaxNbTactics(), 7);
    EXPECT_EQ(mConfig->getTilingOptimizationLevel(), nvinfer1::TilingOptimizationLevel::kFULL);
    EXPECT_EQ(mConfig->getL2LimitForTiling(), 1 << 20);
    EXPECT_STREQ(mConfig->getRemoteAutoTuningConfig(), "remote");
    EXPECT_EQ(mConfig->getTacticSources(), 0U);
    EXPECT_EQ(mConfig->getEngineCapability(), nvinfer1::EngineCapability::kSAFETY);
    EXPECT_EQ(mConfig->getDLACore(), 0);
    EXPECT_EQ(mConfig->getProgressMonitor(), &monitor);
    ASSERT_EQ(mConfig->getNbPluginsToSerialize(), 2);
    EXPECT_STREQ(mConfig->getPluginToSerialize(1), "libB.so");
    EXPECT_TRUE(mConfig->isDeviceTypeSet(layer));
    EXPECT_EQ(mConfig->getDeviceType(layer), DeviceType::kDLA);
    EXPECT_FALSE(mConfig->canRunOnDLA(layer));
    mConfig->resetDeviceType(layer);
    EXPECT_FALSE(mConfig->isDeviceTypeSet(layer));
    EXPECT_EQ(mConfig->getDeviceType(layer), DeviceType::kDLA); // the default device type now

    mConfig->reset();
    EXPECT_EQ(mConfig->getAvgTimingIterations(), 1);
    EXPECT_EQ(mConfig->getFlags(), 1U << static_cast<uint32_t>(BuilderFlag::kTF32));
    EXPECT_EQ(mConfig->getNbPluginsToSerialize(), 0);
    EXPECT_EQ(mConfig->getDefaultDeviceType(), DeviceType::kGPU);
    EXPECT_EQ(mConfig->getProgressMonitor(), nullptr);
    EXPECT_EQ(mConfig->getMemoryPoolLimit(MemoryPoolType::kDLA_MANAGED_SRAM), std::size_t{1} << 20U);
    expectNoError();
}

TEST_F(ConfigTest, TimingCacheIsSetAndRead)
{
    // The cache itself is tested in timing_cache_test.cpp; here, only the config's side.
    std::unique_ptr<nvinfer1::ITimingCache> cache{mConfig->createTimingCache(nullptr, 0)};
    ASSERT_NE(cache, nullptr);
    expectNoError();
    EXPECT_EQ(mConfig->getTimingCache(), nullptr);
    EXPECT_TRUE(mConfig->setTimingCache(*cache, false));
    EXPECT_EQ(mConfig->getTimingCache(), cache.get());
}

TEST_F(ConfigTest, Refusals)
{
    mConfig->setAvgTimingIterations(0);
    expectError({"IBuilderConfig::setAvgTimingIterations", "avgTiming is 0"});
    mConfig->setFlags(1U << 30U);
    expectError({"IBuilderConfig::setFlags", "contain bits that are no BuilderFlag"});
    mConfig->setFlag(static_cast<BuilderFlag>(29));
    expectError({"IBuilderConfig::setFlag", "builder flag 29 is not a valid value"});
    EXPECT_FALSE(mConfig->getFlag(static_cast<BuilderFlag>(-1)));
    expectError({"IBuilderConfig::getFlag", "builder flag -1"});
    mConfig->clearFlag(static_cast<BuilderFlag>(40));
    expectError({"IBuilderConfig::clearFlag", "builder flag 40"});
    mConfig->setMemoryPoolLimit(static_cast<MemoryPoolType>(6), 1);
    expectError({"IBuilderConfig::setMemoryPoolLimit", "memory pool 6 is not a valid value"});
    EXPECT_EQ(mConfig->getMemoryPoolLimit(static_cast<MemoryPoolType>(6)), 0U);
    expectError({"IBuilderConfig::getMemoryPoolLimit"});
    mConfig->setPreviewFeature(static_cast<PreviewFeature>(4), true);
    expectError({"IBuilderConfig::setPreviewFeature", "preview feature 4"});
    EXPECT_FALSE(mConfig->getPreviewFeature(static_cast<PreviewFeature>(-1)));
    expectError({"IBuilderConfig::getPreviewFeature", "preview feature -1"});
    mConfig->setPreviewFeature(PreviewFeature::kPROFILE_SHARING_0806, false);
    EXPECT_TRUE(mConfig->getPreviewFeature(PreviewFeature::kPROFILE_SHARING_0806));
    EXPECT_EQ(mLogger.messages(nvinfer1::ILogger::Severity::kWARNING).size(), 1U);
    mLogger.clear();
    mConfig->setBuilderOptimizationLevel(6);
    expectError({"IBuilderConfig::setBuilderOptimizationLevel", "level 6 is not in 0 to 5"});
    EXPECT_FALSE(mConfig->setTacticSources(1U << 9U));
    expectError({"IBuilderConfig::setTacticSources", "contain bits that are no TacticSource"});
    mConfig->setProfilingVerbosity(static_cast<nvinfer1::ProfilingVerbosity>(3));
    expectError({"IBuilderConfig::setProfilingVerbosity"});
    mConfig->setEngineCapability(static_cast<nvinfer1::EngineCapability>(3));
    expectError({"IBuilderConfig::setEngineCapability"});
    mConfig->setHardwareCompatibilityLevel(static_cast<nvinfer1::HardwareCompatibilityLevel>(3));
    expectError({"IBuilderConfig::setHardwareCompatibilityLevel"});
    mConfig->setRuntimePlatform(static_cast<nvinfer1::RuntimePlatform>(2));
    expectError({"IBuilderConfig::setRuntimePlatform"});
    EXPECT_FALSE(mConfig->setTilingOptimizationLevel(static_cast<nvinfer1::TilingOptimizationLevel>(4)));
    expectError({"IBuilderConfig::setTilingOptimizationLevel"});
    EXPECT_FALSE(mConfig->setL2LimitForTiling(-5));
    expectError({"IBuilderConfig::setL2LimitForTiling", "size is -5"});
    mConfig->setMaxAuxStreams(-1);
    expectError({"IBuilderConfig::setMaxAuxStreams", "nbStreams is -1"});
    mConfig->setMaxNbTactics(-2);
    expectError({"IBuilderConfig::setMaxNbTactics", "maxTactics is -2"});
    mConfig->setDLACore(-3);
    expectError({"IBuilderConfig::setDLACore", "DLA core -3"});
    mConfig->setDeviceType(nullptr, DeviceType::kGPU);
    expectError({"IBuilderConfig::setDeviceType", "the layer is null"});
    nvinfer1::ILayer* layer = mNetwork->addIdentity(*input("x", dims({1})));
    mConfig->setDeviceType(layer, static_cast<DeviceType>(7));
    expectError({"IBuilderConfig::setDeviceType", "device type 7"});
    EXPECT_FALSE(mConfig->isDeviceTypeSet(layer));
    mConfig->setDefaultDeviceType(static_cast<DeviceType>(2));
    expectError({"IBuilderConfig::setDefaultDeviceType"});
    mConfig->setQuantizationFlags(2U);
    expectError({"IBuilderConfig::setQuantizationFlags"});
    mConfig->setQuantizationFlag(static_cast<nvinfer1::QuantizationFlag>(1));
    expectError({"IBuilderConfig::setQuantizationFlag", "quantization flag 1"});
    mConfig->clearQuantizationFlag(static_cast<nvinfer1::QuantizationFlag>(1));
    expectError({"IBuilderConfig::clearQuantizationFlag"});
    EXPECT_FALSE(mConfig->getQuantizationFlag(static_cast<nvinfer1::QuantizationFlag>(1)));
    expectError({"IBuilderConfig::getQuantizationFlag"});
    mConfig->setQuantizationFlag(nvinfer1::QuantizationFlag::kCALIBRATE_BEFORE_FUSION);
    EXPECT_TRUE(mConfig->getQuantizationFlag(nvinfer1::QuantizationFlag::kCALIBRATE_BEFORE_FUSION));
    mConfig->clearQuantizationFlag(nvinfer1::QuantizationFlag::kCALIBRATE_BEFORE_FUSION);
    EXPECT_EQ(mConfig->getQuantizationFlags(), 0U);
    char const* duplicated[] = {"libA.so", "libA.so"};
    mConfig->setPluginsToSerialize(duplicated, 2);
    expectError({"IBuilderConfig::setPluginsToSerialize", "path \"libA.so\" is given twice"});
    char const* withNull[] = {"libA.so", nullptr};
    mConfig->setPluginsToSerialize(withNull, 2);
    expectError({"IBuilderConfig::setPluginsToSerialize", "path 1 is null"});
    mConfig->setPluginsToSerialize(nullptr, 1);
    expectError({"IBuilderConfig::setPluginsToSerialize", "the paths are null but nbPaths is 1"});
    mConfig->setPluginsToSerialize(duplicated, -1);
    expectError({"IBuilderConfig::setPluginsToSerialize", "nbPaths is negative: -1"});
    EXPECT_EQ(mConfig->getNbPluginsToSerialize(), 0);
    EXPECT_EQ(mConfig->getPluginToSerialize(0), nullptr);
    expectError({"IBuilderConfig::getPluginToSerialize", "index 0 is out of range"});
    nvinfer1::IOptimizationProfile* profile = mBuilder->createOptimizationProfile();
    profile->setDimensions("x", nvinfer1::OptProfileSelector::kMIN, dims({1}));
    EXPECT_FALSE(mConfig->setCalibrationProfile(profile));
    expectError({"IBuilderConfig::setCalibrationProfile", "the profile is not valid"});
    EXPECT_TRUE(mConfig->setCalibrationProfile(nullptr));
    EXPECT_EQ(mConfig->getFlags(), 1U << static_cast<uint32_t>(BuilderFlag::kTF32));
    EXPECT_EQ(mConfig->getBuilderOptimizationLevel(), 3);
}

} // namespace
} // namespace kiln::test
