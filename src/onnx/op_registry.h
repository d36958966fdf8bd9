// SPDX-License-Identifier: Apache-2.0
// The ONNX op types kiln imports. Each op family's file (src/onnx/importers/<family>.cpp) adds its ops in one
// register function, called from builtinOps(); one entry per op holds both its parse-time check and its importer:
//
//     void registerActivationOps(OpRegistry& registry)
//     {
//         registry.add("Relu", importRelu);
//         registry.add("LeakyRelu", importLeakyRelu, checkLeakyRelu);
//     }
#pragma once

#include "onnx/context.h"

#include <map>
#include <string>
#include <vector>

namespace kiln::onnx_import
{

//! Adds the node to the network; returns one value per ONNX output (omitted optional outputs may be null).
using ImportFunction = std::vector<Value> (*)(ImportContext& ctx, Node& node);
//! Checks what can be checked before any node is imported (attributes, opset); fails with an ImportError.
using CheckFunction = void (*)(ImportContext& ctx, ::onnx::NodeProto const& node, Attributes const& attrs);

//! One op type.
struct OpImporter
{
    ImportFunction import{nullptr}; //!< nullptr: the op is known and not supported.
    CheckFunction check{nullptr};   //!< Optional.
    std::string unsupportedReason;  //!< Why, for ops kiln knows it cannot import.
};

//! Op types and their importers.
class OpRegistry
{
public:
    void add(std::string const& opType, ImportFunction import, CheckFunction check = nullptr);
    //! An ONNX op kiln knows it cannot import; nodes of this type fail their check with reason.
    void addUnsupported(std::string const& opType, std::string reason);
    //! The entry of opType, or nullptr.
    OpImporter const* find(std::string const& opType) const;
    //! Whether opType has an importer.
    bool supports(std::string const& opType) const;
    //! Every op type with an importer, sorted.
    std::vector<std::string> supportedOps() const;

private:
    std::map<std::string, OpImporter> mOps;
};

//! Every op importer kiln has (built once).
OpRegistry const& builtinOps();

} // namespace kiln::onnx_import
