// SPDX-License-Identifier: Apache-2.0
// IBuilder through the public API: createInferBuilder and its version check, the logger it installs, network
// creation flags, threads, the plugin registry, platform queries, and the build step that is not there yet.
#include "support/api_test.h"

#include <cstring>

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

TEST_F(BuilderTest, TheBuildStepIsNotImplementedYet)
{
    mNetwork->setName("tiny");
    mNetwork->markOutput(*mNetwork->addIdentity(*input("x", dims({2})))->getOutput(0));
    nvinfer1::IBuilderConfig* config = mBuilder->createBuilderConfig();
    ASSERT_NE(config, nullptr);
    expectNoError();
    EXPECT_EQ(mBuilder->buildSerializedNetwork(*mNetwork, *config), nullptr);
    expectError(
        {"IBuilder::buildSerializedNetwork", "network \"tiny\"", "the builder's build step is not implemented yet"});
    EXPECT_EQ(mBuilder->buildEngineWithConfig(*mNetwork, *config), nullptr);
    expectError({"IBuilder::buildEngineWithConfig", "not implemented yet"});
    EXPECT_FALSE(mBuilder->isNetworkSupported(*mNetwork, *config));
    expectError({"IBuilder::isNetworkSupported", "not implemented yet"});
    nvinfer1::IHostMemory* kernelText = reinterpret_cast<nvinfer1::IHostMemory*>(&kernelText);
    EXPECT_EQ(mBuilder->buildSerializedNetwork(*mNetwork, *config, kernelText), nullptr);
    EXPECT_EQ(kernelText, nullptr);
    expectError({"IBuilder::buildSerializedNetwork", "not implemented yet"});
    delete config;
}

} // namespace
} // namespace kiln::test
