// SPDX-License-Identifier: Apache-2.0
// If, Loop and Scan. kiln has no conditional or loop layers yet. An If whose condition is known at parse time (an
// initializer or a Constant output) imports only the branch it takes, inline, as TensorRT's parser does: the
// branch's names live in a scope of their own ("<node>/then_branch/") that sees the outer names, and errors inside
// it carry "<node> (then_branch)" on the function stack. An If with a run-time condition, Loop and Scan are refused.
#include "onnx/importers/importers.h"
#include "onnx/model_importer.h"

#include "core/data_type.h"

namespace kiln::onnx_import
{

namespace
{

using Graph = ::onnx::GraphProto;

void checkIf(ImportContext&, ::onnx::NodeProto const& node, Attributes const& attrs)
{
    Graph const* thenBranch = attrs.required<Graph const*>("then_branch");
    Graph const* elseBranch = attrs.required<Graph const*>("else_branch");
    require(thenBranch->output_size() == elseBranch->output_size(), ErrorCode::kINVALID_NODE,
        "then_branch and else_branch must have the same number of outputs; then_branch has ", thenBranch->output_size(),
        ", else_branch ", elseBranch->output_size());
    require(node.output_size() == thenBranch->output_size(), ErrorCode::kINVALID_NODE, "the node has ",
        node.output_size(), " outputs and its branches ", thenBranch->output_size(), "; they must have as many");
}

std::vector<Value> importIf(ImportContext& ctx, Node& node)
{
    Value const& condition = node.input(0);
    require(condition.isWeights(), ErrorCode::kUNSUPPORTED_NODE, "the condition (input 0, '", node.proto.input(0),
        "') is computed at run time; kiln has no conditional layer yet, so the condition of If must be a constant: "
        "an initializer or the output of a Constant node");
    ShapedWeights const& weights = condition.weights();
    require(weights.type == DataType::kBOOL, ErrorCode::kINVALID_NODE, "the condition (input 0, '", node.proto.input(0),
        "') must be BOOL, not ", dataTypeName(weights.type));
    require(weights.count == 1, ErrorCode::kINVALID_NODE, "the condition (input 0, '", node.proto.input(0),
        "') must have one element, not ", weights.count);
    std::string const branch = weights.number(0) != 0.0 ? "then_branch" : "else_branch";
    Graph const& graph = *node.attrs.required<Graph const*>(branch);
    ctx.info("If ", node.name(), ": the condition is a constant ", branch == "then_branch" ? "true" : "false",
        ", so only ", branch, " is imported");

    struct Guard
    {
        ImportContext& ctx;
        ~Guard()
        {
            ctx.popScope();
            ctx.functionStack().pop_back();
        }
    };
    ctx.pushScope(true, node.name() + "/" + branch + "/");
    ctx.functionStack().push_back(node.name() + " (" + branch + ")");
    Guard guard{ctx};
    return importSubgraph(ctx, graph, node.index);
}

} // namespace

void registerControlFlowOps(OpRegistry& registry)
{
    registry.add("If", importIf, checkIf);
    registry.addUnsupported("Loop", "kiln has no loop layers yet (TensorRT's ILoop), so it cannot run a loop body");
    registry.addUnsupported(
        "Scan", "kiln has no loop layers yet (TensorRT's ILoop), so it cannot run a scan body over its inputs");
}

} // namespace kiln::onnx_import
