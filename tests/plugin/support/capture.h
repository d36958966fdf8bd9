// SPDX-License-Identifier: Apache-2.0
// Test helpers: a logger and an error recorder that keep what they receive, and a fixture with a private
// registry whose messages are captured.
#pragma once

#include "NvInferRuntime.h"
#include "kiln/kiln.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

namespace kiln::test
{

//! Keeps every message; installed as kiln's logger while alive.
class CapturingLogger final : public nvinfer1::ILogger
{
public:
    CapturingLogger();
    ~CapturingLogger() override;

    void log(Severity severity, char const* msg) noexcept override;

    //! The messages of at least this severity, joined by newlines.
    std::string text(Severity atLeast = Severity::kWARNING) const;
    //! Whether some message of exactly this severity contains every one of the fragments.
    bool has(Severity severity, std::vector<std::string> const& fragments) const;
    void clear();

private:
    mutable std::mutex mMutex;
    std::vector<std::pair<Severity, std::string>> mMessages;
};

//! Keeps every error reported to it and counts references.
class RecordingErrorRecorder final : public nvinfer1::IErrorRecorder
{
public:
    int32_t getNbErrors() const noexcept override;
    nvinfer1::ErrorCode getErrorCode(int32_t errorIdx) const noexcept override;
    ErrorDesc getErrorDesc(int32_t errorIdx) const noexcept override;
    bool hasOverflowed() const noexcept override { return false; }
    void clear() noexcept override;
    bool reportError(nvinfer1::ErrorCode val, ErrorDesc desc) noexcept override;
    RefCount incRefCount() noexcept override { return ++mRefCount; }
    RefCount decRefCount() noexcept override { return --mRefCount; }

    RefCount refCount() const { return mRefCount.load(); }

private:
    mutable std::mutex mMutex;
    std::vector<std::pair<nvinfer1::ErrorCode, std::string>> mErrors;
    std::atomic<RefCount> mRefCount{0};
};

//! A private registry (child of nothing) and a capturing logger for each test.
class RegistryTest : public ::testing::Test
{
protected:
    void SetUp() override;
    void TearDown() override;

    //! The path of a test plugin library built beside the tests.
    static std::string libraryPath(char const* stem);

    CapturingLogger mLog;
    nvinfer1::IPluginRegistry* mRegistry{};
};

} // namespace kiln::test
