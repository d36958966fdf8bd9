// SPDX-License-Identifier: Apache-2.0
#include "support/capture.h"

namespace kiln::test
{

CapturingLogger::CapturingLogger()
{
    kilnSetLogger(this);
}

CapturingLogger::~CapturingLogger()
{
    kilnSetLogger(nullptr);
}

void CapturingLogger::log(Severity severity, char const* msg) noexcept
{
    std::lock_guard<std::mutex> lock(mMutex);
    mMessages.emplace_back(severity, msg);
}

std::string CapturingLogger::text(Severity atLeast) const
{
    std::lock_guard<std::mutex> lock(mMutex);
    std::string result;
    for (auto const& [severity, message] : mMessages)
    {
        if (severity <= atLeast)
        {
            result += message + "\n";
        }
    }
    return result;
}

bool CapturingLogger::has(Severity severity, std::vector<std::string> const& fragments) const
{
    std::lock_guard<std::mutex> lock(mMutex);
    for (auto const& [s, message] : mMessages)
    {
        bool all = s == severity;
        for (auto const& fragment : fragments)
        {
            all = all && message.find(fragment) != std::string::npos;
        }
        if (all)
        {
            return true;
        }
    }
    return false;
}

void CapturingLogger::clear()
{
    std::lock_guard<std::mutex> lock(mMutex);
    mMessages.clear();
}

int32_t RecordingErrorRecorder::getNbErrors() const noexcept
{
    std::lock_guard<std::mutex> lock(mMutex);
    return static_cast<int32_t>(mErrors.size());
}

nvinfer1::ErrorCode RecordingErrorRecorder::getErrorCode(int32_t errorIdx) const noexcept
{
    std::lock_guard<std::mutex> lock(mMutex);
    return mErrors.at(static_cast<std::size_t>(errorIdx)).first;
}

RecordingErrorRecorder::ErrorDesc RecordingErrorRecorder::getErrorDesc(int32_t errorIdx) const noexcept
{
    std::lock_guard<std::mutex> lock(mMutex);
    return mErrors.at(static_cast<std::size_t>(errorIdx)).second.c_str();
}

void RecordingErrorRecorder::clear() noexcept
{
    std::lock_guard<std::mutex> lock(mMutex);
    mErrors.clear();
}

bool RecordingErrorRecorder::reportError(nvinfer1::ErrorCode val, ErrorDesc desc) noexcept
{
    std::lock_guard<std::mutex> lock(mMutex);
    mErrors.emplace_back(val, desc);
    return true;
}

void RegistryTest::SetUp()
{
    mRegistry = kilnCreatePluginRegistry(nullptr);
    ASSERT_NE(mRegistry, nullptr);
}

void RegistryTest::TearDown()
{
    kilnDestroyPluginRegistry(mRegistry);
}

std::string RegistryTest::libraryPath(char const* stem)
{
    return std::string(KILN_TEST_LIBRARY_DIR) + "/libkiln_test_" + stem + ".so";
}

} // namespace kiln::test
