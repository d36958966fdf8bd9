// SPDX-License-Identifier: Apache-2.0
// Errors as values inside kiln: an error code and a message naming the thing concerned.
#pragma once

#include "NvInferRuntime.h"

#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace kiln
{

//! An error: its category and a message that names the layer, node, plugin or file concerned.
struct Error
{
    nvinfer1::ErrorCode code{nvinfer1::ErrorCode::kUNSPECIFIED_ERROR};
    std::string message;
};

//! A value or the error that prevented it.
template <typename T>
class Expected
{
public:
    Expected(T value)
        : mState(std::move(value))
    {
    }
    Expected(Error error)
        : mState(std::move(error))
    {
    }

    bool ok() const noexcept { return std::holds_alternative<T>(mState); }
    explicit operator bool() const noexcept { return ok(); }
    T& value() { return std::get<T>(mState); }
    T const& value() const { return std::get<T>(mState); }
    Error const& error() const { return std::get<Error>(mState); }

private:
    std::variant<T, Error> mState;
};

//! `"text"` for messages, or `(null)` for a null pointer.
std::string quoted(char const* text);

//! `plugin "name" version "version" namespace "ns"`: how every message names a plugin.
std::string describePlugin(char const* name, char const* version, char const* pluginNamespace);

} // namespace kiln
