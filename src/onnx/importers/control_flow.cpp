// SPDX-License-Identifier: Apache-2.0
// If. An If whose condition is known at parse time (an initializer or a Constant output) imports only
// the branch it takes, inline, as TensorRT's parser does; an If with a run-time condition becomes an IIfConditional
// whose branches are both imported, each output pair an output of the conditional. A branch's names live in a scope of
// their own ("<node>/then_branch/") that sees the outer names, and errors inside it carry "<node> (then_branch)" on
// the function stack. The branches read outer tensors directly (kiln tells a branch's layers from the graph, so no
// IIfConditionalInputLayer is needed). Loop and Scan are in loop.cpp.
#include "onnx/importers/importers.h"
#include "onnx/importers/shape_helpers.h"
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

//! Imports branch of an If node in its own scope: its output values.
std::vector<Value> importBranch(ImportContext& ctx, Node& node, std::string const& branch)
{
    Graph const& graph = *node.attrs.required<Graph const*>(branch);
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

//! An If whose condition is computed at run time: an IIfConditional over both branches.
std::vector<Value> importRuntimeIf(ImportContext& ctx, Node& node)
{
    nvinfer1::ITensor* condition = &ctx.tensor(node.input(0));
    require(condition->getType() == DataType::kBOOL, ErrorCode::kINVALID_NODE, "the condition (input 0, '",
        node.proto.input(0), "') must be BOOL, not ", dataTypeName(condition->getType()));
    nvinfer1::Dims const dims = condition->getDimensions();
    if (dims.nbDims != 0)
    {
        // A one-element tensor of another rank: the conditional takes a 0-D condition.
        condition = &ctx.tensor(reshapeValue(ctx, node.input(0), {}));
    }
    nvinfer1::IIfConditional* conditional = ctx.network().addIfConditional();
    require(conditional != nullptr, ErrorCode::kINTERNAL_ERROR, "the network refused addIfConditional");
    conditional->setName(node.name().c_str());
    require(conditional->setCondition(*condition) != nullptr, ErrorCode::kINVALID_NODE, "the condition (input 0, '",
        node.proto.input(0), "') must have one element");
    std::vector<Value> const onTrue = importBranch(ctx, node, "then_branch");
    std::vector<Value> const onFalse = importBranch(ctx, node, "else_branch");
    std::vector<Value> outputs;
    for (std::size_t i = 0; i < onTrue.size(); ++i)
    {
        nvinfer1::ITensor& t = ctx.tensor(onTrue[i]);
        nvinfer1::ITensor& f = ctx.tensor(onFalse[i]);
        require(t.getType() == f.getType(), ErrorCode::kINVALID_NODE, "output ", i, ": then_branch gives ",
            dataTypeName(t.getType()), " and else_branch ", dataTypeName(f.getType()), "; they must have one type");
        require(t.getDimensions().nbDims == f.getDimensions().nbDims, ErrorCode::kUNSUPPORTED_NODE, "output ", i,
            ": then_branch gives rank ", t.getDimensions().nbDims, " and else_branch rank ", f.getDimensions().nbDims,
            "; the outputs of the two branches must have the same rank");
        auto& layer = ctx.added(conditional->addOutput(t, f));
        outputs.push_back(Value::tensor(*layer.getOutput(0)));
    }
    return outputs;
}

std::vector<Value> importIf(ImportContext& ctx, Node& node)
{
    Value const& condition = node.input(0);
    if (!condition.isWeights())
    {
        return importRuntimeIf(ctx, node);
    }
    ShapedWeights const& weights = condition.weights();
    require(weights.type == DataType::kBOOL, ErrorCode::kINVALID_NODE, "the condition (input 0, '", node.proto.input(0),
        "') must be BOOL, not ", dataTypeName(weights.type));
    require(weights.count == 1, ErrorCode::kINVALID_NODE, "the condition (input 0, '", node.proto.input(0),
        "') must have one element, not ", weights.count);
    std::string const branch = weights.number(0) != 0.0 ? "then_branch" : "else_branch";
    ctx.info("If ", node.name(), ": the condition is a constant ", branch == "then_branch" ? "true" : "false",
        ", so only ", branch, " is imported");
    return importBranch(ctx, node, branch);
}

} // namespace

void registerControlFlowOps(OpRegistry& registry)
{
    registry.add("If", importIf, checkIf);
}

} // namespace kiln::onnx_import
