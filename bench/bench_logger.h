// SPDX-License-Identifier: Apache-2.0
// BenchLogger: the ILogger of kiln's GPU benchmarks (kiln_bench, kiln_model_bench). It prints kiln's warnings and
// errors to stderr behind a prefix and keeps the last error, which the failing call's JSON line then names.
//
//     kiln_bench::BenchLogger logger("kiln_bench");
//     if (!context->enqueueV3(stream)) { throw BenchError(logger.takeLastError("enqueueV3 failed")); }
#pragma once

#include "NvInferRuntime.h"

#include <iostream>
#include <mutex>
#include <string>
#include <utility>

namespace kiln_bench
{

class BenchLogger final : public nvinfer1::ILogger
{
public:
    explicit BenchLogger(std::string program)
        : mPrefix(std::move(program) + ": kiln: ")
    {
    }

    void log(Severity severity, char const* msg) noexcept override
    {
        if (severity > Severity::kWARNING)
        {
            return;
        }
        try
        {
            std::lock_guard<std::mutex> const lock(mMutex);
            std::cerr << mPrefix << msg << "\n";
            if (severity <= Severity::kERROR)
            {
                mLastError = msg;
            }
        }
        catch (...)
        {
            // Logging must not throw into kiln; a message lost under memory exhaustion is acceptable.
        }
    }

    //! The last error kiln logged since the previous call, or fallback when there was none.
    std::string takeLastError(std::string const& fallback)
    {
        std::lock_guard<std::mutex> const lock(mMutex);
        std::string message = mLastError.empty() ? fallback : fallback + ": " + mLastError;
        mLastError.clear();
        return message;
    }

private:
    std::string mPrefix;
    std::mutex mMutex;
    std::string mLastError;
};

} // namespace kiln_bench
