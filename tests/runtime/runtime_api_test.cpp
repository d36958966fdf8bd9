// SPDX-License-Identifier: Apache-2.0
// IRuntime through libkiln's public headers: createInferRuntime and its version check, the logger it installs, the
// runtime's settings, and plans it refuses.
#include "support/api_test.h"

#include <memory>
#include <string>

namespace kiln::test
{
namespace
{

using nvinfer1::ILogger;
using nvinfer1::IRuntime;

//! ApiTest's logger and error expectations, and a runtime.
class RuntimeApi : public ApiTest
{
protected:
    void SetUp() override
    {
        ApiTest::SetUp();
        mRuntime.reset(nvinfer1::createInferRuntime(mLogger));
        ASSERT_NE(mRuntime, nullptr);
    }
    void TearDown() override
    {
        mRuntime.reset();
        ApiTest::TearDown();
    }

    std::unique_ptr<IRuntime> mRuntime;
};

TEST(RuntimeFactory, RefusesAnotherMajorVersion)
{
    TestLogger logger;
    EXPECT_EQ(createInferRuntime_INTERNAL(&logger, 80601), nullptr);
    auto const errors = logger.messages(ILogger::Severity::kERROR);
    ASSERT_EQ(errors.size(), 1U);
    EXPECT_NE(errors.front().find("createInferRuntime: the application was compiled against TensorRT 8.6.1"),
        std::string::npos)
        << errors.front();
    EXPECT_NE(errors.front().find("kiln implements the TensorRT 10 API"), std::string::npos) << errors.front();
    EXPECT_NE(getLogger(), &logger);
    EXPECT_EQ(createInferRuntime_INTERNAL(nullptr, NV_TENSORRT_VERSION), nullptr);
}

TEST(RuntimeFactory, AcceptsAnyTensorRT10Minor)
{
    TestLogger logger;
    auto* runtime = static_cast<IRuntime*>(createInferRuntime_INTERNAL(&logger, 100500));
    ASSERT_NE(runtime, nullptr);
    EXPECT_EQ(getLogger(), &logger);
    delete runtime;
    kilnSetLogger(nullptr);
}

TEST_F(RuntimeApi, Settings)
{
    EXPECT_EQ(mRuntime->getLogger(), &mLogger);
    EXPECT_EQ(&mRuntime->getPluginRegistry(), getPluginRegistry());
    EXPECT_EQ(mRuntime->getMaxThreads(), 1);
    EXPECT_TRUE(mRuntime->setMaxThreads(4));
    EXPECT_EQ(mRuntime->getMaxThreads(), 4);
    EXPECT_FALSE(mRuntime->setMaxThreads(0));
    expectError({"IRuntime::setMaxThreads", "maxThreads is 0"});

    EXPECT_EQ(mRuntime->getNbDLACores(), 0);
    EXPECT_EQ(mRuntime->getDLACore(), -1);
    mRuntime->setDLACore(0);
    expectError({"IRuntime::setDLACore", "DLA core 0 does not exist"});
    EXPECT_EQ(mRuntime->getDLACore(), -1);

    EXPECT_EQ(mRuntime->getTemporaryDirectory(), nullptr);
    mRuntime->setTemporaryDirectory("/tmp/kiln");
    EXPECT_STREQ(mRuntime->getTemporaryDirectory(), "/tmp/kiln");
    mRuntime->setTemporaryDirectory(nullptr);
    EXPECT_EQ(mRuntime->getTemporaryDirectory(), nullptr);
    EXPECT_EQ(mRuntime->getTempfileControlFlags(), 3U);
    mRuntime->setTempfileControlFlags(1U);
    EXPECT_EQ(mRuntime->getTempfileControlFlags(), 1U);
    mRuntime->setTempfileControlFlags(4U);
    expectError({"IRuntime::setTempfileControlFlags", "flags 4"});

    EXPECT_FALSE(mRuntime->getEngineHostCodeAllowed());
    mRuntime->setEngineHostCodeAllowed(true);
    EXPECT_TRUE(mRuntime->getEngineHostCodeAllowed());
    mRuntime->setGpuAllocator(nullptr);

    EXPECT_EQ(mRuntime->loadRuntime("libnvinfer_lean.so"), nullptr);
    expectError({"IRuntime::loadRuntime", "\"libnvinfer_lean.so\"", "no lean runtime"});

    TestErrorRecorder recorder;
    mRuntime->setErrorRecorder(&recorder);
    EXPECT_EQ(mRuntime->getErrorRecorder(), &recorder);
    EXPECT_EQ(recorder.refCount(), 1);
    mRuntime->setErrorRecorder(nullptr);
    EXPECT_EQ(recorder.refCount(), 0);
}

TEST_F(RuntimeApi, RefusesForeignBytes)
{
    std::string const bytes(200, 'x');
    EXPECT_EQ(mRuntime->deserializeCudaEngine(bytes.data(), bytes.size()), nullptr);
    expectError({"IRuntime::deserializeCudaEngine", "not a kiln plan"});
}

} // namespace
} // namespace kiln::test
