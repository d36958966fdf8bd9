// SPDX-License-Identifier: Apache-2.0
// A whole ONNX model into a network: read the bytes, take the opsets and local functions, turn initializers into
// weights and graph inputs into network inputs, then check and import each node in topological order, and mark
// the graph outputs.
//
//     ::onnx::ModelProto model;
//     if (auto failure = readModel(bytes, size, model)) { report(*failure); }
//     std::vector<Failure> failures = importModel(ctx, model);
#pragma once

#include "onnx/errors.h"
#include "onnx/op_registry.h"

#include <optional>

namespace kiln::onnx_import
{

//! Reads a serialized ModelProto (any size protobuf allows); a failure when the bytes are not one.
std::optional<Failure> readModel(void const* bytes, size_t size, ::onnx::ModelProto& model);

//! Imports model into ctx's network. Returns the failures: parse-time check failures of several nodes, or the one
//! failure that stopped the import. Empty on success.
std::vector<Failure> importModel(ImportContext& ctx, ::onnx::ModelProto const& model);

//! Imports a subgraph (the branch of an If whose condition is known) into the innermost scope, which the caller
//! pushes: its initializers, then its nodes in topological order, each as a top-level node is (route, check,
//! import). Errors report parentIndex, the index of the top-level node the subgraph belongs to, and the function
//! stack. Returns the values of the graph's outputs.
std::vector<Value> importSubgraph(ImportContext& ctx, ::onnx::GraphProto const& graph, int parentIndex);

//! The top-level nodes in topological order (indices into graph.node()), or a failure naming a node in a cycle or
//! reading a name nothing defines.
std::vector<int> topologicalOrder(
    ::onnx::GraphProto const& graph, std::vector<std::string> const& outerNames, std::optional<Failure>& failure);

//! Runs of nodes (topological order) that kiln can or cannot import, judged by the parse-time checks.
std::vector<std::pair<std::vector<size_t>, bool>> partitionModel(ImportContext& ctx, ::onnx::ModelProto const& model);

} // namespace kiln::onnx_import
