// SPDX-License-Identifier: Apache-2.0
// Test support for the build-side API, used through libkiln's public headers only: a logger that keeps every
// message, an error recorder that keeps every error, and a fixture with a builder and a network.
//
//     TEST_F(NetworkTest, Example)
//     {
//         EXPECT_EQ(mNetwork->addInput(nullptr, DataType::kFLOAT, Dims{1, {2}}), nullptr);
//         expectError({"INetworkDefinition::addInput", "the input name is null"});
//     }
#pragma once

#include "NvInfer.h"
#include "kiln/kiln.h"

#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace kiln::test
{

//! Keeps every message it receives.
class TestLogger final : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        std::lock_guard<std::mutex> lock(mMutex);
        mMessages.emplace_back(severity, msg);
    }

    //! The messages of exactly this severity.
    std::vector<std::string> messages(Severity severity) const
    {
        std::lock_guard<std::mutex> lock(mMutex);
        std::vector<std::string> result;
        for (auto const& [s, message] : mMessages)
        {
            if (s == severity)
            {
                result.push_back(message);
            }
        }
        return result;
    }

    //! Every message, one per line, for failure output.
    std::string all() const
    {
        std::lock_guard<std::mutex> lock(mMutex);
        std::string result;
        for (auto const& [s, message] : mMessages)
        {
            result += std::to_string(static_cast<int32_t>(s));
            result += ": ";
            result += message;
            result += '\n';
        }
        return result;
    }

    void clear()
    {
        std::lock_guard<std::mutex> lock(mMutex);
        mMessages.clear();
    }

private:
    mutable std::mutex mMutex;
    std::vector<std::pair<Severity, std::string>> mMessages;
};

//! Keeps every error reported to it; counts references.
class TestErrorRecorder final : public nvinfer1::IErrorRecorder
{
public:
    int32_t getNbErrors() const noexcept override { return static_cast<int32_t>(mErrors.size()); }
    nvinfer1::ErrorCode getErrorCode(int32_t errorIdx) const noexcept override
    {
        return mErrors[static_cast<std::size_t>(errorIdx)].first;
    }
    ErrorDesc getErrorDesc(int32_t errorIdx) const noexcept override
    {
        return mErrors[static_cast<std::size_t>(errorIdx)].second.c_str();
    }
    bool hasOverflowed() const noexcept override { return false; }
    void clear() noexcept override { mErrors.clear(); }
    bool reportError(nvinfer1::ErrorCode val, ErrorDesc desc) noexcept override
    {
        mErrors.emplace_back(val, desc);
        return false;
    }
    RefCount incRefCount() noexcept override { return ++mRefCount; }
    RefCount decRefCount() noexcept override { return --mRefCount; }
    RefCount refCount() const noexcept { return mRefCount; }

private:
    std::vector<std::pair<nvinfer1::ErrorCode, std::string>> mErrors;
    RefCount mRefCount{0};
};

//! Shapes, weights and flags in one line.
inline nvinfer1::Dims dims(std::initializer_list<int64_t> extents)
{
    nvinfer1::Dims result{static_cast<int32_t>(extents.size()), {}};
    int32_t i = 0;
    for (int64_t extent : extents)
    {
        result.d[i++] = extent;
    }
    return result;
}

inline bool sameDims(nvinfer1::Dims const& a, nvinfer1::Dims const& b)
{
    if (a.nbDims != b.nbDims)
    {
        return false;
    }
    for (int32_t i = 0; i < a.nbDims; ++i)
    {
        if (a.d[i] != b.d[i])
        {
            return false;
        }
    }
    return true;
}

inline std::string toString(nvinfer1::Dims const& value)
{
    std::string result = "{";
    result += std::to_string(value.nbDims);
    result += ":";
    for (int32_t i = 0; i < value.nbDims && i < nvinfer1::Dims::MAX_DIMS; ++i)
    {
        result += ' ';
        result += std::to_string(value.d[i]);
    }
    result += '}';
    return result;
}

#define EXPECT_DIMS(actual, ...)                                                                                       \
    EXPECT_TRUE(::kiln::test::sameDims((actual), ::kiln::test::dims(__VA_ARGS__)))                                     \
        << "actual " << ::kiln::test::toString(actual) << ", expected "                                                \
        << ::kiln::test::toString(::kiln::test::dims(__VA_ARGS__))

constexpr uint32_t flagBit(nvinfer1::NetworkDefinitionCreationFlag flag)
{
    return 1U << static_cast<uint32_t>(flag);
}

//! A builder with a test logger (kiln's logger while the fixture lives), and a weakly typed network.
class ApiTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        mBuilder = nvinfer1::createInferBuilder(mLogger);
        ASSERT_NE(mBuilder, nullptr);
        mNetwork = mBuilder->createNetworkV2(0);
        ASSERT_NE(mNetwork, nullptr);
    }

    void TearDown() override
    {
        delete mNetwork;
        delete mBuilder;
        kilnSetLogger(nullptr);
    }

    //! Replaces the network with one made with flags.
    void recreate(nvinfer1::NetworkDefinitionCreationFlags flags)
    {
        delete mNetwork;
        mNetwork = mBuilder->createNetworkV2(flags);
        ASSERT_NE(mNetwork, nullptr);
    }

    //! Expects exactly one error since the last check, containing every fragment; clears the log.
    void expectError(std::vector<std::string> const& fragments)
    {
        auto const errors = mLogger.messages(nvinfer1::ILogger::Severity::kERROR);
        EXPECT_EQ(errors.size(), 1U) << mLogger.all();
        for (auto const& fragment : fragments)
        {
            EXPECT_TRUE(!errors.empty() && errors.back().find(fragment) != std::string::npos)
                << "missing \"" << fragment << "\" in:\n"
                << mLogger.all();
        }
        mLogger.clear();
    }

    //! Expects no error since the last check.
    void expectNoError()
    {
        EXPECT_TRUE(mLogger.messages(nvinfer1::ILogger::Severity::kERROR).empty()) << mLogger.all();
        mLogger.clear();
    }

    nvinfer1::ITensor* input(
        char const* name, nvinfer1::Dims const& shape, nvinfer1::DataType type = nvinfer1::DataType::kFLOAT)
    {
        return mNetwork->addInput(name, type, shape);
    }

    TestLogger mLogger;
    nvinfer1::IBuilder* mBuilder{};
    nvinfer1::INetworkDefinition* mNetwork{};
};

} // namespace kiln::test
