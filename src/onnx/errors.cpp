// SPDX-License-Identifier: Apache-2.0
#include "onnx/errors.h"

#include <string_view>

namespace kiln::onnx_import
{

namespace
{

//! "importConv" from "std::vector<kiln::onnx_import::Value> kiln::onnx_import::importConv(ImportContext&, Node&)".
std::string bareFunctionName(std::string_view signature)
{
    size_t const open = signature.find('(');
    std::string_view head = signature.substr(0, open);
    size_t const start = head.find_last_of(": ");
    return std::string(start == std::string_view::npos ? head : head.substr(start + 1));
}

std::string baseName(std::string_view path)
{
    size_t const slash = path.find_last_of('/');
    return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

} // namespace

Failure failureAt(ErrorCode code, std::string desc, SourceLocation where)
{
    Failure failure;
    failure.code = code;
    failure.desc = std::move(desc);
    failure.file = baseName(where.file);
    failure.line = static_cast<int>(where.line);
    failure.func = bareFunctionName(where.function);
    return failure;
}

} // namespace kiln::onnx_import
