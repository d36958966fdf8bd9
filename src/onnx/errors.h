// SPDX-License-Identifier: Apache-2.0
// How the parser reports what went wrong. Import code throws ImportError through fail() or require(); the node loop
// catches it, adds the node (index, name, op type, function stack) and records it as an IParserError. The parser
// source file, line and function come from std::source_location, so no macros are needed:
//
//     require(kernel.rank() == 4, ErrorCode::kUNSUPPORTED_NODE_SHAPE, "the kernel must be 4-D, not ", kernel.rank());
//     fail(ErrorCode::kUNSUPPORTED_NODE_ATTR, "auto_pad ", mode, " is not supported");
#pragma once

#include "NvOnnxParser.h"

#include <exception>
#include <source_location>
#include <sstream>
#include <string>
#include <vector>

namespace kiln::onnx_import
{

using nvonnxparser::ErrorCode;

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
Failure failureAt(ErrorCode code, std::string desc, std::source_location where);

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
    [[noreturn]] fail(
        ErrorCode code, Parts const&... parts, std::source_location where = std::source_location::current())
    {
        throw ImportError(failureAt(code, concat(parts...), where));
    }
};
template <typename... Parts>
fail(ErrorCode, Parts const&...) -> fail<Parts...>;

//! Throws like fail() when condition is false.
template <typename... Parts>
struct require
{
    require(bool condition, ErrorCode code, Parts const&... parts,
        std::source_location where = std::source_location::current())
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
