// SPDX-License-Identifier: Apache-2.0
// Models for the plugin-import tests: one node of any op type between x [2, 3] and y, and access to that node.
#pragma once

#include "model_builder.h"

#include <string>

namespace kiln::onnx_test
{

//! x [2, 3] -> op (node nodeName, in domain) -> y. Attributes go on node(m).
inline ModelBuilder unaryModel(std::string const& op, std::string const& domain = "", std::string const& nodeName = "p")
{
    ModelBuilder m;
    m.input("x", {2, 3});
    m.node(op, {"x"}, {"y"}, nodeName, domain);
    m.output("y");
    return m;
}

//! Node index of the model's graph.
inline ::onnx::NodeProto& node(ModelBuilder& m, int index = 0)
{
    return *m.graph().mutable_node(index);
}

} // namespace kiln::onnx_test
