// SPDX-License-Identifier: Apache-2.0
#include "core/logging.h"

#include "core/error.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace kiln
{
namespace
{

char const* severityName(Severity severity) noexcept
{
    switch (severity)
    {
    case Severity::kINTERNAL_ERROR: return "INTERNAL ERROR";
    case Severity::kERROR: return "ERROR";
    case Severity::kWARNING: return "WARNING";
    case Severity::kINFO: return "INFO";
    case Severity::kVERBOSE: return "VERBOSE";
    }
    return "UNKNOWN";
}

//! Prints messages up to KILN_LOG_LEVEL (error, warning (default), info, verbose) to stderr.
class StderrLogger final : public nvinfer1::ILogger
{
public:
    StderrLogger() noexcept
    {
        char const* level = std::getenv("KILN_LOG_LEVEL");
        if (level == nullptr)
        {
            return;
        }
        std::string const text{level};
        if (text == "error")
        {
            mThreshold = Severity::kERROR;
        }
        else if (text == "info")
        {
            mThreshold = Severity::kINFO;
        }
        else if (text == "verbose")
        {
            mThreshold = Severity::kVERBOSE;
        }
    }

    void log(Severity severity, char const* msg) noexcept override
    {
        if (severity <= mThreshold)
        {
            std::fprintf(stderr, "[kiln] %s: %s\n", severityName(severity), msg);
        }
    }

private:
    Severity mThreshold{Severity::kWARNING};
};

// Never destroyed, like the finder below: pinned plugin libraries may log from their static destructors.
StderrLogger& defaultLogger() noexcept
{
    static auto* logger = new StderrLogger;
    return *logger;
}

std::atomic<nvinfer1::ILogger*> gLogger{nullptr};

class CurrentLoggerFinder final : public nvinfer1::ILoggerFinder
{
public:
    nvinfer1::ILogger* findLogger() override { return &currentLogger(); }
};

} // namespace

void setLogger(nvinfer1::ILogger* logger) noexcept
{
    gLogger.store(logger, std::memory_order_release);
}

nvinfer1::ILogger& currentLogger() noexcept
{
    nvinfer1::ILogger* logger = gLogger.load(std::memory_order_acquire);
    return logger != nullptr ? *logger : defaultLogger();
}

void log(Severity severity, std::string_view message) noexcept
{
    try
    {
        std::string const text{message};
        currentLogger().log(severity, text.c_str());
    }
    catch (...)
    {
        currentLogger().log(Severity::kINTERNAL_ERROR, "out of memory while formatting a log message");
    }
}

nvinfer1::ILoggerFinder& loggerFinder() noexcept
{
    static auto* finder = new CurrentLoggerFinder;
    return *finder;
}

std::string quoted(char const* text)
{
    if (text == nullptr)
    {
        return "(null)";
    }
    std::string result{"\""};
    result += text;
    result += '"';
    return result;
}

std::string describePlugin(char const* name, char const* version, char const* pluginNamespace)
{
    return "plugin " + quoted(name) + " version " + quoted(version) + " namespace " + quoted(pluginNamespace);
}

} // namespace kiln

extern "C" TENSORRTAPI nvinfer1::ILogger* getLogger() noexcept
{
    return &kiln::currentLogger();
}

extern "C" TENSORRTAPI void kilnSetLogger(nvinfer1::ILogger* logger) noexcept
{
    kiln::setLogger(logger);
}
