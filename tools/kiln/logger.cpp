// SPDX-License-Identifier: Apache-2.0
#include "logger.h"

#include <iostream>

namespace kiln_tool
{

std::string_view severityTag(Severity severity) noexcept
{
    switch (severity)
    {
    case Severity::kINTERNAL_ERROR: return "[F] ";
    case Severity::kERROR: return "[E] ";
    case Severity::kWARNING: return "[W] ";
    case Severity::kINFO: return "[I] ";
    case Severity::kVERBOSE: return "[V] ";
    }
    return "[?] ";
}

void Logger::log(Severity severity, char const* message) noexcept
{
    print(severity, message != nullptr ? message : "");
}

void Logger::setSeverity(Severity severity) noexcept
{
    std::lock_guard<std::mutex> const lock(mMutex);
    mSeverity = severity;
}

void Logger::setStream(std::ostream* stream) noexcept
{
    std::lock_guard<std::mutex> const lock(mMutex);
    mStream = stream;
}

void Logger::print(Severity severity, std::string_view message) noexcept
{
    std::lock_guard<std::mutex> const lock(mMutex);
    if (severity > mSeverity) // less severe ones have larger values
    {
        return;
    }
    std::ostream& stream = mStream != nullptr ? *mStream : std::cerr;
    stream << severityTag(severity) << message << '\n';
    stream.flush();
}

Logger& logger() noexcept
{
    static Logger instance;
    return instance;
}

LoggerScope::LoggerScope(std::ostream& stream, Severity severity) noexcept
{
    logger().setStream(&stream);
    logger().setSeverity(severity);
}

LoggerScope::~LoggerScope()
{
    logger().setStream(nullptr);
    logger().setSeverity(Severity::kINFO);
}

} // namespace kiln_tool
