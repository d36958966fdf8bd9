// SPDX-License-Identifier: Apache-2.0
// IBuilder through the public API: createInferBuilder and its version check, the logger it installs, network
// creation flags, threads, the plugin registry, platform queries, and the build step that is not there yet.
#include "support/api_test.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace kiln::test
{
namespace
{

using nvinfer1::ILogger;
using nvinfer1::NetworkDefinitionCreationFlag;

using BuilderTest = ApiTest;

TEST_F(BuilderTest, TheLoggerBecomesKilnsLogger)
{
    EXPECT_EQ(mBuilder->getLogger(), &mLogger);
    EXPECT_EQ(getLogger(), &mLogger);
}

TEST(BuilderFactory, RefusesAnotherMajorVersion)
{
    TestLogger logger;
    EXPECT_EQ(createInferBuilder_INTERNAL(&logger, 90000 + 6 * 100 + 1), nullptr);
    auto const errors = logger.messages(ILogger::Severity::kERROR);
    ASSERT_EQ(errors.size(), 1U);
    EXPECT_NE(errors.front().find("compiled against TensorRT 9.6.1"), std::string::npos) << errors.front();
    EXPECT_NE(errors.front().find("kiln implements the TensorRT 10 API"), std::string::npos) << errors.front();
    EXPECT_NE(getLogger(), &logger); // not installed
    EXPECT_EQ(createInferBuilder_INTERNAL(nullptr, NV_TENSORRT_VERSION), nullptr);
}

TEST(BuilderFactory, AcceptsAnyTensorRT10Minor)
{
    TestLogger logger;
    auto* builder = static_cast<nvinfer1::IBuilder*>(createInferBuilder_INTERNAL(&logger, 100300));
    ASSERT_NE(builder, nullptr);
    delete builder;
    kilnSetLogger(nullptr);
}

TEST_F(BuilderTest, NetworkCreationFlags)
{
    uint32_t const explicitBatch = flagBit(NetworkDefinitionCreationFlag::kEXPLICIT_BATCH);
    uint32_t const strong = flagBit(NetworkDefinitionCreationFlag::kSTRONGLY_TYPED);
    uint32_t const jit = flagBit(NetworkDefinitionCreationFlag::kPREFER_JIT_PYTHON_PLUGINS);
    uint32_t const aot = flagBit(NetworkDefinitionCreationFlag::kPREFER_AOT_PYTHON_PLUGINS);
    for (uint32_t flags : {explicitBatch, strong, explicitBatch | strong, jit, aot})
    {
        nvinfer1::INetworkDefinition* network = mBuilder->createNetworkV2(flags);
        ASSERT_NE(network, nullptr) << flags;
        EXPECT_EQ(network->getFlags(), flags);
        delete network;
    }
    expectNoError();
    EXPECT_EQ(mBuilder->createNetworkV2(1U << 4U), nullptr);
    expectError({"IBuilder::createNetworkV2", "flags 16 contain bits that are no NetworkDefinitionCreationFlag"});
    EXPECT_EQ(mBuilder->createNetworkV2(jit | aot), nullptr);
    expectError({"IBuilder::createNetworkV2", "kPREFER_JIT_PYTHON_PLUGINS and kPREFER_AOT_PYTHON_PLUGINS"});
}

TEST_F(BuilderTest, ThreadsPlatformAndRegistry)
{
    EXPECT_EQ(mBuilder->getMaxThreads(), 1);
    EXPECT_TRUE(mBuilder->setMaxThreads(8));
    EXPECT_EQ(mBuilder->getMaxThreads(), 8);
    EXPECT_FALSE(mBuilder->setMaxThreads(0));
    expectError({"IBuilder::setMaxThreads", "maxThreads is 0"});
    mBuilder->reset();
    EXPECT_EQ(mBuilder->getMaxThreads(), 1);
    EXPECT_FALSE(mBuilder->platformHasFastFp16());
    EXPECT_FALSE(mBuilder->platformHasFastInt8());
    EXPECT_FALSE(mBuilder->platformHasTf32());
    EXPECT_EQ(mBuilder->getNbDLACores(), 0);
    EXPECT_EQ(mBuilder->getMaxDLABatchSize(), 1);
    EXPECT_EQ(&mBuilder->getPluginRegistry(), getPluginRegistry());
    mBuilder->setGpuAllocator(nullptr);
    expectNoError();
}

TEST_F(BuilderTest, ErrorRecorder)
{
    TestErrorRecorder recorder;
    mBuilder->setErrorRecorder(&recorder);
    EXPECT_EQ(mBuilder->getErrorRecorder(), &recorder);
    EXPECT_FALSE(mBuilder->setMaxThreads(-1));
    ASSERT_EQ(recorder.getNbErrors(), 1);
    EXPECT_NE(std::strstr(recorder.getErrorDesc(0), "IBuilder::setMaxThreads"), nullptr);
    mBuilder->setErrorRecorder(nullptr);
    EXPECT_EQ(recorder.refCount(), 0);
    mLogger.clear();
}

//! Keeps what it is given, up to a limit after which it refuses.
class LimitedWriter final : public nvinfer1::IStreamWriter
{
public:
    explicit LimitedWriter(std::size_t limit)
        : mLimit(limit)
    {
    }
    int64_t write(void const* data, int64_t size) noexcept override
    {
        auto const room = static_cast<int64_t>(mLimit - mBytes.size());
        int64_t const count = std::min(size, std::min<int64_t>(room, 100));
        auto const* bytes = static_cast<uint8_t const*>(data);
        mBytes.insert(mBytes.end(), bytes, bytes + count);
        return count;
    }
    std::vector<uint8_t> mBytes;

private:
    std::size_t mLimit;
};

TEST_F(BuilderTest, EveryBuildEntryPointBuildsTheSamePlan)
{
    mNetwork->setName("tiny");
    mNetwork->markOutput(*mNetwork->addIdentity(*input("x", dims({2})))->getOutput(0));
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    ASSERT_NE(config, nullptr);

    std::unique_ptr<nvinfer1::IHostMemory> plan{mBuilder->buildSerializedNetwork(*mNetwork, *config)};
    ASSERT_NE(plan, nullptr);
    expectNoError();
    EXPECT_EQ(plan->type(), nvinfer1::DataType::kUINT8);
    auto const* bytes = static_cast<uint8_t const*>(plan->data());
    std::vector<uint8_t> const expected(bytes, bytes + plan->size());
    EXPECT_EQ(std::string(expected.begin(), expected.begin() + 8), "KILNPLAN");

    // Written in pieces of at most 100 bytes, as a stream writer may take them.
    LimitedWriter writer(expected.size());
    EXPECT_TRUE(mBuilder->buildSerializedNetworkToStream(*mNetwork, *config, writer));
    EXPECT_EQ(writer.mBytes, expected);

    nvinfer1::IHostMemory* kernelText = reinterpret_cast<nvinfer1::IHostMemory*>(&kernelText);
    std::unique_ptr<nvinfer1::IHostMemory> again{mBuilder->buildSerializedNetwork(*mNetwork, *config, kernelText)};
    ASSERT_NE(again, nullptr);
    EXPECT_EQ(kernelText, nullptr);
    EXPECT_EQ(std::vector<uint8_t>(static_cast<uint8_t const*>(again->data()),
                  static_cast<uint8_t const*>(again->data()) + again->size()),
        expected);

    EXPECT_TRUE(mBuilder->isNetworkSupported(*mNetwork, *config));
    std::unique_ptr<nvinfer1::ICudaEngine> engine{mBuilder->buildEngineWithConfig(*mNetwork, *config)};
    ASSERT_NE(engine, nullptr);
    EXPECT_EQ(engine->getNbIOTensors(), 2);
    expectNoError();
}

// Limits kiln records without acting on them are said to be so when a build sees them (nothing is ignored silently);
// the defaults say nothing.
TEST_F(BuilderTest, ScratchLimitsAndTheOptimizationLevelKilnDoesNotApplyAreSaidToBeRecordedOnly)
{
    mNetwork->markOutput(*mNetwork->addIdentity(*input("x", dims({2})))->getOutput(0));
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    auto const said = [&](ILogger::Severity severity, std::string const& fragment) {
        auto const messages = mLogger.messages(severity);
        return std::any_of(messages.begin(), messages.end(),
            [&](std::string const& m) { return m.find(fragment) != std::string::npos; });
    };
    std::unique_ptr<nvinfer1::IHostMemory> plain{mBuilder->buildSerializedNetwork(*mNetwork, *config)};
    ASSERT_NE(plain, nullptr);
    EXPECT_FALSE(said(ILogger::Severity::kWARNING, "memory pool limit")) << mLogger.all();
    EXPECT_FALSE(said(ILogger::Severity::kINFO, "optimization level")) << mLogger.all();
    mLogger.clear();

    config->setMemoryPoolLimit(nvinfer1::MemoryPoolType::kWORKSPACE, std::size_t{64} << 20);
    config->setBuilderOptimizationLevel(1);
    std::unique_ptr<nvinfer1::IHostMemory> limited{mBuilder->buildSerializedNetwork(*mNetwork, *config)};
    ASSERT_NE(limited, nullptr);
    EXPECT_TRUE(said(ILogger::Severity::kWARNING, "kWORKSPACE = 67108864 bytes is recorded but not applied"))
        << mLogger.all();
    EXPECT_TRUE(said(ILogger::Severity::kINFO, "builder optimization level 1 is recorded")) << mLogger.all();
    expectNoError();
}

TEST_F(BuilderTest, AFailedBuildNamesTheNetworkAndTheCause)
{
    mNetwork->setName("tiny");
    input("x", dims({-1, 2}));
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    EXPECT_EQ(mBuilder->buildSerializedNetwork(*mNetwork, *config), nullptr);
    expectError({"IBuilder::buildSerializedNetwork", "network \"tiny\"", "no outputs"});
    EXPECT_EQ(mBuilder->buildEngineWithConfig(*mNetwork, *config), nullptr);
    expectError({"IBuilder::buildEngineWithConfig", "no outputs"});
    EXPECT_FALSE(mBuilder->isNetworkSupported(*mNetwork, *config));
    expectError({"IBuilder::isNetworkSupported", "no outputs"});
    LimitedWriter writer(1000);
    EXPECT_FALSE(mBuilder->buildSerializedNetworkToStream(*mNetwork, *config, writer));
    expectError({"IBuilder::buildSerializedNetworkToStream", "no outputs"});

    // An input with a dynamic extent and no profile.
    mNetwork->markOutput(*mNetwork->addIdentity(*mNetwork->getInput(0))->getOutput(0));
    EXPECT_EQ(mBuilder->buildSerializedNetwork(*mNetwork, *config), nullptr);
    expectError({"IBuilder::buildSerializedNetwork", "'x'", "profile"});
}

//! Claims to have written more than it was given.
class BoastfulWriter final : public nvinfer1::IStreamWriter
{
public:
    int64_t write(void const* /*data*/, int64_t size) noexcept override { return size + 1; }
};

TEST_F(BuilderTest, AStreamWriterThatClaimsTooMuchFailsTheBuild)
{
    mNetwork->markOutput(*mNetwork->addIdentity(*input("x", dims({2})))->getOutput(0));
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    BoastfulWriter writer;
    EXPECT_FALSE(mBuilder->buildSerializedNetworkToStream(*mNetwork, *config, writer));
    expectError({"IBuilder::buildSerializedNetworkToStream", "says it wrote"});
}

TEST_F(BuilderTest, AStreamWriterThatStopsTakingBytesFailsTheBuild)
{
    mNetwork->markOutput(*mNetwork->addIdentity(*input("x", dims({2})))->getOutput(0));
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    LimitedWriter writer(150);
    EXPECT_FALSE(mBuilder->buildSerializedNetworkToStream(*mNetwork, *config, writer));
    expectError({"IBuilder::buildSerializedNetworkToStream", "accepted 150 of", "refused more"});
}

} // namespace
} // namespace kiln::test
