// SPDX-License-Identifier: Apache-2.0
// How the parser reports what went wrong. Import code throws ImportError through fail() or require(); the node loop
// catches it, adds the node (index, name, op type, function stack) and records it as an IParserError. The parser
// source file, line and function come from SourceLocation (the compilers' location builtins, as SourceLocation
// has them; clang 14 with libstdc++ has no SourceLocation), so no macros are needed:
//
//     require(kernel.rank() == 4, ErrorCode::kUNSUPPORTED_NODE_SHAPE, "the kernel must be 4-D, not ", kernel.rank());
//     fail(ErrorCode::kUNSUPPORTED_NODE_ATTR, "auto_pad ", mode, " is not supported");
#pragma once

#include "NvOnnxParser.h"

#include <cstdint>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

namespace kiln::onnx_import
{

using nvonnxparser::ErrorCode;

//! Where a failure was raised, from the builtins GCC and clang evaluate at the caller when they are default arguments.
struct SourceLocation
{
    char const* file{""};
    char const* function{""};
    uint32_t line{};

    static constexpr SourceLocation current(char const* file = __builtin_FILE(),
        char const* function = __builtin_FUNCTION(), uint32_t line = __builtin_LINE()) noexcept
    {
        return SourceLocation{file, function, line};
    }
};

//! One error, as IParserError reports it.
struct Failure
{
    ErrorCode code{ErrorCode::kINTERNAL_ERROR};
    std::string desc;
    std::string file;
    int line{0};
    std::string func;
    int node{-1};
    std::string nodeName;
    std::string nodeOperator;
    std::vector<std::string> functionStack; //!< "node (function)", outermost first.
};

//! The error the import code throws; the node loop fills in the node.
class ImportError : public std::exception
{
public:
    explicit ImportError(Failure failure)
        : mFailure(std::move(failure))
    {
    }
    char const* what() const noexcept override { return mFailure.desc.c_str(); }
    Failure& failure() noexcept { return mFailure; }
    Failure const& failure() const noexcept { return mFailure; }

private:
    Failure mFailure;
};

//! A Failure at where: the file's base name and the bare function name.
Failure failureAt(ErrorCode code, std::string desc, SourceLocation where);

//! The message pieces streamed together.
template <typename... Parts>
std::string concat(Parts const&... parts)
{
    std::ostringstream out;
    (out << ... << parts);
    return out.str();
}

//! Throws an ImportError with code and the message made of parts, located at the caller.
template <typename... Parts>
struct fail
{
    [[noreturn]] fail(ErrorCode code, Parts const&... parts, SourceLocation where = SourceLocation::current())
    {
        throw ImportError(failureAt(code, concat(parts...), where));
    }
};
template <typename... Parts>
fail(ErrorCode, Parts const&...) -> fail<Parts...>;

//! Ends a function whose last statement is a fail(): its constructor never returns, which GCC sees and clang does
//! not (clang would warn that the function returns no value).
[[noreturn]] inline void unreachableAfterFail() noexcept
{
    __builtin_unreachable();
}

//! Throws like fail() when condition is false.
template <typename... Parts>
struct require
{
    require(bool condition, ErrorCode code, Parts const&... parts, SourceLocation where = SourceLocation::current())
    {
        if (!condition)
        {
            throw ImportError(failureAt(code, concat(parts...), where));
        }
    }
};
template <typename... Parts>
require(bool, ErrorCode, Parts const&...) -> require<Parts...>;

} // namespace kiln::onnx_import
