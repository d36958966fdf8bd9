// SPDX-License-Identifier: Apache-2.0
// The library's logger: the one the application installed, or a default that prints to stderr.
#pragma once

#include "NvInferRuntime.h"

#include <string_view>

namespace kiln
{

using Severity = nvinfer1::ILogger::Severity;

//! Installs logger for every message of the library; nullptr restores the default.
void setLogger(nvinfer1::ILogger* logger) noexcept;

//! The logger in use now.
nvinfer1::ILogger& currentLogger() noexcept;

//! Sends one message to the current logger.
void log(Severity severity, std::string_view message) noexcept;

//! The finder handed to plugin libraries' setLoggerFinder entry point; it finds the current logger.
nvinfer1::ILoggerFinder& loggerFinder() noexcept;

} // namespace kiln
