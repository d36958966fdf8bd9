// SPDX-License-Identifier: Apache-2.0
// How the kiln tool speaks: one process-wide ILogger that prints kiln's messages (and the tool's own warnings and
// errors) to a stream, stderr by default, each line prefixed with trtexec's severity tag ([V] [I] [W] [E] [F]); and
// Failure, the error that ends a run with exit status 1 after naming what failed.
//
//     LoggerScope scope(err, Severity::kINFO);       // for one run: messages go to err
//     createInferBuilder(logger());                  // kiln keeps this logger for the process's life
//     throw Failure("cannot read the engine file " + path);
#pragma once

#include "NvInferRuntime.h"

#include <mutex>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kiln_tool
{

using Severity = nvinfer1::ILogger::Severity;

//! What ends a run with exit status 1: the message names the step and the thing (file, tensor, node) that failed.
class Failure : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

//! trtexec's tag of a severity: "[I] " and so on.
std::string_view severityTag(Severity severity) noexcept;

class Logger final : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* message) noexcept override;

    //! Messages less severe than severity are dropped.
    void setSeverity(Severity severity) noexcept;
    //! Where the messages go; nullptr: std::cerr.
    void setStream(std::ostream* stream) noexcept;

    void verbose(std::string_view message) noexcept { print(Severity::kVERBOSE, message); }
    void warning(std::string_view message) noexcept { print(Severity::kWARNING, message); }
    void error(std::string_view message) noexcept { print(Severity::kERROR, message); }

private:
    void print(Severity severity, std::string_view message) noexcept;

    std::mutex mMutex; // kiln may log from its worker threads
    Severity mSeverity{Severity::kINFO};
    std::ostream* mStream{nullptr};
};

//! The tool's logger. It lives as long as the process, because kiln keeps the last logger it was handed.
Logger& logger() noexcept;

//! Points logger() at stream with severity for one run, and back at std::cerr and kINFO after it.
class LoggerScope
{
public:
    LoggerScope(std::ostream& stream, Severity severity) noexcept;
    ~LoggerScope();
    LoggerScope(LoggerScope const&) = delete;
    LoggerScope& operator=(LoggerScope const&) = delete;
};

} // namespace kiln_tool
