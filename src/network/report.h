// SPDX-License-Identifier: Apache-2.0
// How the build-side API objects (network, layers, tensors, builder, config, profiles) refuse a call: an error
// message that names the method and the thing concerned goes to the current logger and, when one is set, to the
// object's error recorder. Messages are assembled from parts inside a noexcept function, so a caller composes them
// without allocating:
//
//     reporter.error(ErrorCode::kINVALID_ARGUMENT, "IConvolutionLayer::setStrideNd: layer ", quoted(name),
//         ": stride[", i, "] is ", value, "; strides are positive");
#pragma once

#include "core/error.h"
#include "core/logging.h"

#include "NvInferRuntime.h"

#include <concepts>
#include <exception>
#include <string>
#include <string_view>
#include <type_traits>

namespace kiln
{

//! A text shown in double quotes, or (null).
struct Quoted
{
    std::string_view text;
    bool isNull{};
};

inline Quoted quotedText(char const* text) noexcept
{
    return text != nullptr ? Quoted{text, false} : Quoted{{}, true};
}

inline Quoted quotedText(std::string const& text) noexcept
{
    return Quoted{text, false};
}

namespace message
{
inline void append(std::string& out, std::string_view text)
{
    out += text;
}
inline void append(std::string& out, char const* text)
{
    out += text != nullptr ? text : "(null)";
}
inline void append(std::string& out, std::string const& text)
{
    out += text;
}
inline void append(std::string& out, Quoted const& text)
{
    if (text.isNull)
    {
        out += "(null)";
        return;
    }
    out += '"';
    out += text.text;
    out += '"';
}
template <std::integral T>
void append(std::string& out, T value)
{
    out += std::to_string(value);
}
template <typename E>
requires std::is_enum_v<E>
void append(std::string& out, E value)
{
    out += std::to_string(static_cast<int64_t>(value));
}
void append(std::string& out, double value);
//! "[1, 3, -1]", or "[unknown rank]".
void append(std::string& out, nvinfer1::Dims const& dims);
} // namespace message

//! Sends refusals to the logger and an optional error recorder, which it keeps referenced while it is set.
class Reporter
{
public:
    Reporter() = default;
    ~Reporter() noexcept;
    Reporter(Reporter const&) = delete;
    Reporter& operator=(Reporter const&) = delete;

    //! Sends errors to recorder as well (nullptr: the logger only).
    void setRecorder(nvinfer1::IErrorRecorder* recorder) noexcept;
    nvinfer1::IErrorRecorder* recorder() const noexcept { return mRecorder; }

    //! Logs message as an error and reports it to the recorder (cut to IErrorRecorder::kMAX_DESC_LENGTH).
    void emit(nvinfer1::ErrorCode code, std::string const& message) const noexcept;

    //! An error made of parts (texts, Quoted, integers, enums, Dims).
    template <typename... Parts>
    void error(nvinfer1::ErrorCode code, Parts const&... parts) const noexcept
    {
        try
        {
            std::string text;
            (message::append(text, parts), ...);
            emit(code, text);
        }
        catch (...)
        {
            log(Severity::kINTERNAL_ERROR, "out of memory while reporting an error");
        }
    }

    //! Whether value is at least minimum; otherwise reports `<where>: <name> is <value>; it must be at least
    //! <minimum>` as an invalid argument.
    template <std::integral T>
    bool checkAtLeast(char const* where, char const* name, T value, T minimum) const noexcept
    {
        if (value >= minimum)
        {
            return true;
        }
        error(nvinfer1::ErrorCode::kINVALID_ARGUMENT, where, ": ", name, " is ", value, "; it must be at least ",
            minimum);
        return false;
    }

    //! A warning made of parts; the logger only.
    template <typename... Parts>
    void warning(Parts const&... parts) const noexcept
    {
        try
        {
            std::string text;
            (message::append(text, parts), ...);
            log(Severity::kWARNING, text);
        }
        catch (...)
        {
            log(Severity::kINTERNAL_ERROR, "out of memory while reporting a warning");
        }
    }

    //! Runs body; an exception that escapes it is reported as an internal error of `where`, and fallback returned.
    template <typename R, typename Body>
    R guard(char const* where, R fallback, Body&& body) const noexcept
    {
        try
        {
            return body();
        }
        catch (std::exception const& e)
        {
            error(nvinfer1::ErrorCode::kINTERNAL_ERROR, where, ": unexpected failure: ", e.what());
        }
        catch (...)
        {
            error(nvinfer1::ErrorCode::kINTERNAL_ERROR, where, ": unexpected failure");
        }
        return fallback;
    }

private:
    nvinfer1::IErrorRecorder* mRecorder{};
};

//! Whether value is one of the enumerators of E (every API enum is dense from 0 to EnumMax<E>() - 1).
template <typename E>
constexpr bool isValidEnum(E value) noexcept
{
    auto const index = static_cast<int64_t>(value);
    return index >= 0 && index < nvinfer1::EnumMax<E>();
}

} // namespace kiln
