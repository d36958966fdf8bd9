// SPDX-License-Identifier: Apache-2.0
#include "onnx/model_importer.h"

#include "onnx/importers/plugin.h"
#include "onnx/weights.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <climits>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace kiln::onnx_import
{

namespace
{

using nvonnxparser::OnnxParserFlag;

//! Fills in the node of a failure that has none yet (the innermost node wins).
void annotate(Failure& failure, ImportContext& ctx, ::onnx::NodeProto const& node, int index)
{
    if (!failure.nodeOperator.empty())
    {
        return;
    }
    failure.node = index;
    failure.nodeName = node.name();
    failure.nodeOperator = node.op_type();
    failure.functionStack = ctx.functionStack();
}

//! Every name that subgraphs (If/Loop/Scan bodies) of node read, at any depth.
void subgraphReads(::onnx::NodeProto const& node, std::vector<std::string>& names)
{
    for (::onnx::AttributeProto const& attribute : node.attribute())
    {
        std::vector<::onnx::GraphProto const*> graphs;
        if (attribute.has_g())
        {
            graphs.push_back(&attribute.g());
        }
        for (::onnx::GraphProto const& g : attribute.graphs())
        {
            graphs.push_back(&g);
        }
        for (::onnx::GraphProto const* graph : graphs)
        {
            for (::onnx::NodeProto const& inner : graph->node())
            {
                names.insert(names.end(), inner.input().begin(), inner.input().end());
                subgraphReads(inner, names);
            }
        }
    }
}

enum class Route
{
    kPlugin,
    kBuiltin,
    kFunction,
    kUnsupported,
};

//! Which importer a node goes to: a plugin asked for (plugin_namespace attribute or kENABLE_PLUGIN_OVERRIDE) and
//! registered wins; then kiln's importer of the op type; then a model-local function; then a plugin by op type.
Route route(ImportContext& ctx, ::onnx::NodeProto const& node, Attributes const& attrs)
{
    bool const pluginAsked = ctx.flag(OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE) || attrs.has("plugin_namespace");
    if (pluginAsked && findNodePlugin(ctx, node, attrs).creator != nullptr)
    {
        return Route::kPlugin;
    }
    if (OpImporter const* op = builtinOps().find(node.op_type()))
    {
        return op->import != nullptr ? Route::kBuiltin : Route::kUnsupported;
    }
    if (ctx.localFunctions().count(node.op_type()) != 0)
    {
        return Route::kFunction;
    }
    return Route::kPlugin;
}

void checkNode(ImportContext& ctx, ::onnx::NodeProto const& node, Attributes const& attrs)
{
    switch (route(ctx, node, attrs))
    {
    case Route::kPlugin: checkPluginNode(ctx, node, attrs); return;
    case Route::kBuiltin:
        if (CheckFunction check = builtinOps().find(node.op_type())->check)
        {
            check(ctx, node, attrs);
        }
        return;
    case Route::kFunction: return;
    case Route::kUnsupported:
        fail(ErrorCode::kUNSUPPORTED_NODE, "kiln does not support ONNX op ", node.op_type(), ": ",
            builtinOps().find(node.op_type())->unsupportedReason,
            ". A plugin of that name is used instead when the node has a plugin_namespace attribute or the parser has "
            "OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE. ",
            describeNodePluginNearMisses(ctx, node, attrs));
    }
}

void importNode(ImportContext& ctx, ::onnx::NodeProto const& proto, int index);

//! How deep function calls and If branches may nest (a recursive function would otherwise overflow the stack).
constexpr size_t kMaxNesting = 64;

void requireNestingRoom(ImportContext& ctx)
{
    require(ctx.functionStack().size() < kMaxNesting, ErrorCode::kUNSUPPORTED_GRAPH, "the model nests function ",
        "calls and If branches more than ", kMaxNesting, " deep (a local function that calls itself?)");
}

//! A call of a model-local function: its body in a scope of its own, with the call's inputs and attributes.
std::vector<Value> importFunction(ImportContext& ctx, Node& node, ::onnx::FunctionProto const& function)
{
    require(node.inputCount() <= static_cast<size_t>(function.input_size()), ErrorCode::kINVALID_NODE,
        "the call of local function ", function.name(), " has ", node.inputCount(), " inputs; the function takes ",
        function.input_size());
    requireNestingRoom(ctx);
    struct Guard
    {
        ImportContext& ctx;
        ~Guard()
        {
            ctx.popScope();
            ctx.functionStack().pop_back();
            ctx.callerAttributes().pop_back();
        }
    };
    ctx.pushScope(false, node.name() + "/");
    ctx.functionStack().push_back(node.name() + " (" + function.name() + ")");
    ctx.callerAttributes().push_back(&node.attrs);
    Guard guard{ctx};
    for (int i = 0; i < function.input_size(); ++i)
    {
        ctx.define(function.input(i), i < static_cast<int>(node.inputCount()) ? node.inputs[i] : Value{});
    }
    for (::onnx::NodeProto const& inner : function.node())
    {
        importNode(ctx, inner, node.index);
    }
    std::vector<Value> outputs;
    for (std::string const& name : function.output())
    {
        Value const* value = ctx.find(name);
        require(value != nullptr, ErrorCode::kINVALID_NODE, "local function ", function.name(), " does not produce ",
            "its output '", name, "'");
        outputs.push_back(*value);
    }
    return outputs;
}

void importNode(ImportContext& ctx, ::onnx::NodeProto const& proto, int index)
{
    Attributes const* caller = ctx.callerAttributes().empty() ? nullptr : ctx.callerAttributes().back();
    Node node{proto, index, {}, Attributes(proto, caller)};
    Node const* outer = ctx.currentNode();
    struct Restore
    {
        ImportContext& ctx;
        Node const* node;
        ~Restore() { ctx.setCurrentNode(node); }
    } restore{ctx, outer};
    ctx.setCurrentNode(&node);
    try
    {
        for (std::string const& name : proto.input())
        {
            if (name.empty())
            {
                node.inputs.emplace_back();
                continue;
            }
            Value const* value = ctx.find(name);
            require(value != nullptr, ErrorCode::kINVALID_GRAPH, "Node input was not registered: '", name,
                "' is not a graph input, an initializer or the output of an earlier node");
            node.inputs.push_back(*value);
        }
        std::vector<Value> outputs;
        switch (route(ctx, proto, node.attrs))
        {
        case Route::kPlugin: outputs = importPluginNode(ctx, node); break;
        case Route::kBuiltin:
        {
            warnIgnoredPluginAttributes(ctx, node, concat("kiln's ", proto.op_type(), " importer"));
            OpImporter const* op = builtinOps().find(proto.op_type());
            if (op->check != nullptr)
            {
                op->check(ctx, proto, node.attrs);
            }
            outputs = op->import(ctx, node);
            break;
        }
        case Route::kFunction:
            warnIgnoredPluginAttributes(ctx, node, concat("a call of the model-local function ", proto.op_type()));
            outputs = importFunction(ctx, node, *ctx.localFunctions().at(proto.op_type()));
            break;
        case Route::kUnsupported: checkNode(ctx, proto, node.attrs); break;
        }
        for (int i = 0; i < proto.output_size(); ++i)
        {
            std::string const& name = proto.output(i);
            if (name.empty())
            {
                continue;
            }
            require(i < static_cast<int>(outputs.size()) && !outputs[i].isNull(), ErrorCode::kINVALID_GRAPH, "the ",
                proto.op_type(), " importer produced ", outputs.size(), " outputs; the node's output ", i, " ('", name,
                "') is not one of them");
            ctx.define(name, outputs[i]);
        }
    }
    catch (ImportError& error)
    {
        annotate(error.failure(), ctx, proto, index);
        throw;
    }
    catch (std::exception const& error)
    {
        Failure failure = failureAt(ErrorCode::kINTERNAL_ERROR,
            concat("Invalid Node - ", node.name(), ": ", error.what()), SourceLocation::current());
        annotate(failure, ctx, proto, index);
        throw ImportError(failure);
    }
}

//! ONNX INT8 values are plain integers; kiln's kINT8 is a quantized type whose scale comes from a dynamic range. The
//! range of +-127 makes the scale 1, so the values mean what they say.
void markPlainInt8(ImportContext& ctx, nvinfer1::ITensor& tensor)
{
    if (tensor.getType() == DataType::kINT8
        && !ctx.network().getFlag(nvinfer1::NetworkDefinitionCreationFlag::kSTRONGLY_TYPED))
    {
        KILN_IGNORE_DEPRECATED_BEGIN
        tensor.setDynamicRange(-127.0F, 127.0F);
        KILN_IGNORE_DEPRECATED_END
    }
}

//! The network input for a graph input.
void importInput(ImportContext& ctx, ::onnx::ValueInfoProto const& input)
{
    std::string const& name = input.name();
    require(input.type().has_tensor_type(), ErrorCode::kUNSUPPORTED_GRAPH, "graph input '", name,
        "' is not a tensor (sequences, maps and optionals are not supported)");
    ::onnx::TypeProto_Tensor const& tensorType = input.type().tensor_type();
    std::optional<DataType> type = dataTypeFromOnnx(tensorType.elem_type());
    require(type.has_value(), ErrorCode::kUNSUPPORTED_NODE, "graph input '", name, "' has element type ",
        onnxTypeName(tensorType.elem_type()), ", which kiln does not support");
    if (tensorType.elem_type() == ::onnx::TensorProto::DOUBLE)
    {
        ctx.warn("graph input '", name, "' is DOUBLE; kiln makes it a FLOAT input");
    }
    Dims dims{0, {}};
    std::vector<std::pair<int32_t, std::string>> names;
    if (tensorType.has_shape())
    {
        ::onnx::TensorShapeProto const& shape = tensorType.shape();
        require(shape.dim_size() <= Dims::MAX_DIMS, ErrorCode::kUNSUPPORTED_GRAPH, "graph input '", name, "' has ",
            shape.dim_size(), " dimensions; at most ", Dims::MAX_DIMS, " are supported");
        dims.nbDims = shape.dim_size();
        for (int i = 0; i < shape.dim_size(); ++i)
        {
            ::onnx::TensorShapeProto_Dimension const& dim = shape.dim(i);
            dims.d[i] = dim.has_dim_value() && dim.dim_value() >= 0 ? dim.dim_value() : -1;
            if (dim.has_dim_param() && !dim.dim_param().empty())
            {
                names.emplace_back(i, dim.dim_param());
            }
        }
    }
    nvinfer1::ITensor* tensor = ctx.network().addInput(name.c_str(), *type, dims);
    require(tensor != nullptr, ErrorCode::kUNSUPPORTED_GRAPH, "the network refused graph input '", name,
        "'; its error is in the log");
    for (auto const& [index, dimName] : names)
    {
        tensor->setDimensionName(index, dimName.c_str());
    }
    markPlainInt8(ctx, *tensor);
    ctx.define(name, Value::tensor(*tensor));
}

//! Marks a graph output, with an identity where the tensor is already an input or output and a cast where the
//! declared type differs.
void markOutput(ImportContext& ctx, ::onnx::ValueInfoProto const& output)
{
    std::string const& name = output.name();
    Value const* value = ctx.find(name);
    require(value != nullptr, ErrorCode::kINVALID_GRAPH, "The output tensor ", name,
        " was not registered: no node, graph input or initializer produces it");
    nvinfer1::ITensor* tensor = &ctx.tensor(*value);
    if (tensor->isNetworkInput() || tensor->isNetworkOutput())
    {
        // A tensor is one input or output: the graph output gets a copy. An input of the output's own name is
        // renamed "__<name>", as TensorRT's parser does.
        if (tensor->isNetworkInput() && name == tensor->getName())
        {
            tensor->setName(("__" + name).c_str());
        }
        tensor = ctx.network().addIdentity(*tensor)->getOutput(0);
    }
    if (output.type().has_tensor_type() && output.type().tensor_type().elem_type() != 0)
    {
        std::optional<DataType> declared = dataTypeFromOnnx(output.type().tensor_type().elem_type());
        require(declared.has_value(), ErrorCode::kUNSUPPORTED_GRAPH, "graph output '", name, "' has element type ",
            onnxTypeName(output.type().tensor_type().elem_type()), ", which kiln does not support");
        if (*declared != tensor->getType())
        {
            nvinfer1::ICastLayer* cast = ctx.network().addCast(*tensor, *declared);
            require(cast != nullptr, ErrorCode::kUNSUPPORTED_GRAPH, "graph output '", name,
                "' is declared with another type than the one computed, and the network refused the cast");
            tensor = cast->getOutput(0);
            markPlainInt8(ctx, *tensor);
        }
    }
    tensor->setName(name.c_str());
    ctx.network().markOutput(*tensor);
}

} // namespace

std::optional<Failure> readModel(void const* bytes, size_t size, ::onnx::ModelProto& model)
{
    if (bytes == nullptr || size == 0)
    {
        return failureAt(
            ErrorCode::kMODEL_DESERIALIZE_FAILED, "the model is empty (no bytes)", SourceLocation::current());
    }
    if (size > static_cast<size_t>(INT_MAX))
    {
        return failureAt(ErrorCode::kMODEL_DESERIALIZE_FAILED,
            concat("the model is ", size, " bytes; a protobuf message cannot exceed 2 GB, so larger models keep their ",
                "weights in external data files"),
            SourceLocation::current());
    }
    google::protobuf::io::ArrayInputStream array(bytes, static_cast<int>(size));
    google::protobuf::io::CodedInputStream stream(&array);
    stream.SetTotalBytesLimit(INT_MAX);
    if (!model.ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage())
    {
        return failureAt(ErrorCode::kMODEL_DESERIALIZE_FAILED,
            concat("the ", size, " bytes are not a valid ONNX ModelProto (a truncated or damaged file, or not ONNX)"),
            SourceLocation::current());
    }
    return std::nullopt;
}

std::vector<int> topologicalOrder(
    ::onnx::GraphProto const& graph, std::vector<std::string> const& outerNames, std::optional<Failure>& failure)
{
    int const n = graph.node_size();
    std::unordered_map<std::string, int> producer;
    for (int i = 0; i < n; ++i)
    {
        for (std::string const& name : graph.node(i).output())
        {
            if (!name.empty())
            {
                producer.emplace(name, i);
            }
        }
    }
    std::unordered_set<std::string> available(outerNames.begin(), outerNames.end());
    for (auto const& input : graph.input())
    {
        available.insert(input.name());
    }
    for (auto const& initializer : graph.initializer())
    {
        available.insert(initializer.name());
    }
    std::vector<std::vector<int>> readers(static_cast<size_t>(n));
    std::vector<int> waiting(static_cast<size_t>(n), 0);
    for (int i = 0; i < n; ++i)
    {
        std::vector<std::string> reads(graph.node(i).input().begin(), graph.node(i).input().end());
        subgraphReads(graph.node(i), reads);
        std::set<int> from;
        for (std::string const& name : reads)
        {
            auto found = producer.find(name);
            // Names defined outside (inputs, initializers) or nowhere (reported at import) do not order nodes.
            if (!name.empty() && found != producer.end() && available.count(name) == 0)
            {
                from.insert(found->second);
            }
        }
        for (int p : from)
        {
            readers[static_cast<size_t>(p)].push_back(i);
        }
        waiting[static_cast<size_t>(i)] = static_cast<int>(from.size());
    }
    // Kahn's algorithm, always taking the ready node that comes first in the file.
    std::set<int> ready;
    for (int i = 0; i < n; ++i)
    {
        if (waiting[static_cast<size_t>(i)] == 0)
        {
            ready.insert(i);
        }
    }
    std::vector<int> order;
    while (!ready.empty())
    {
        int i = *ready.begin();
        ready.erase(ready.begin());
        order.push_back(i);
        for (int r : readers[static_cast<size_t>(i)])
        {
            if (--waiting[static_cast<size_t>(r)] == 0)
            {
                ready.insert(r);
            }
        }
    }
    if (static_cast<int>(order.size()) != n)
    {
        for (int i = 0; i < n; ++i)
        {
            if (waiting[static_cast<size_t>(i)] > 0)
            {
                Failure f = failureAt(ErrorCode::kINVALID_GRAPH,
                    concat("Failed to sort the model topologically: node ", i, " ('", graph.node(i).name(), "', ",
                        graph.node(i).op_type(), ") is part of a cycle, or depends on one"),
                    SourceLocation::current());
                f.node = i;
                f.nodeName = graph.node(i).name();
                f.nodeOperator = graph.node(i).op_type();
                failure = f;
                break;
            }
        }
    }
    return order;
}

std::vector<Value> importSubgraph(ImportContext& ctx, ::onnx::GraphProto const& graph, int parentIndex)
{
    Node const* parent = ctx.currentNode();
    try
    {
        require(ctx.functionStack().size() <= kMaxNesting, ErrorCode::kUNSUPPORTED_GRAPH, "the model nests ",
            "function calls and If branches more than ", kMaxNesting, " deep");
        for (::onnx::TensorProto const& initializer : graph.initializer())
        {
            require(!initializer.name().empty(), ErrorCode::kINVALID_GRAPH, "an initializer of subgraph '",
                graph.name(), "' has no name");
            ctx.define(initializer.name(), Value::weights(importTensor(ctx, initializer)));
        }
        // Names from outside the subgraph are not produced inside it, so they do not order its nodes.
        std::optional<Failure> sortFailure;
        std::vector<int> order = topologicalOrder(graph, {}, sortFailure);
        if (sortFailure)
        {
            sortFailure->desc += concat(" (in subgraph '", graph.name(), "')");
            sortFailure->node = parentIndex;
            sortFailure->functionStack = ctx.functionStack();
            throw ImportError(*sortFailure);
        }
        for (int index : order)
        {
            importNode(ctx, graph.node(index), parentIndex);
        }
        std::vector<Value> outputs;
        for (::onnx::ValueInfoProto const& output : graph.output())
        {
            Value const* value = ctx.find(output.name());
            require(value != nullptr, ErrorCode::kINVALID_GRAPH, "subgraph '", graph.name(), "' does not produce its ",
                "output '", output.name(), "': no node, initializer or outer value has that name");
            outputs.push_back(*value);
        }
        return outputs;
    }
    catch (ImportError& error)
    {
        // Failures outside the subgraph's nodes (initializers, outputs) belong to the node that holds it.
        if (parent != nullptr)
        {
            annotate(error.failure(), ctx, parent->proto, parentIndex);
        }
        throw;
    }
}

namespace
{

//! Opsets, local functions; fails for models kiln cannot read at all.
void importModelInfo(ImportContext& ctx, ::onnx::ModelProto const& model)
{
    require(model.ir_version() > 0, ErrorCode::kMODEL_DESERIALIZE_FAILED,
        "the model has no ir_version: the bytes are not an ONNX model (another protobuf message, or damaged)");
    require(model.opset_import_size() <= 1024, ErrorCode::kUNSUPPORTED_GRAPH, "the model imports ",
        model.opset_import_size(), " opsets; at most 1024 domains are supported");
    for (::onnx::OperatorSetIdProto const& opset : model.opset_import())
    {
        ctx.setOpset(opset.domain(), opset.version());
    }
    int64_t const opset = ctx.opset("");
    if (opset != 0 && opset < 7)
    {
        ctx.warn("the model uses ONNX opset ", opset,
            "; kiln supports opset 7 and newer, older models may not "
            "import correctly");
    }
    for (::onnx::FunctionProto const& function : model.functions())
    {
        ctx.localFunctions()[function.name()] = &function;
    }
    require(model.has_graph(), ErrorCode::kINVALID_GRAPH, "the model has no graph");
}

} // namespace

std::vector<Failure> importModel(ImportContext& ctx, ::onnx::ModelProto const& model)
{
    std::vector<Failure> failures;
    try
    {
        importModelInfo(ctx, model);
    }
    catch (ImportError const& error)
    {
        return {error.failure()};
    }
    ::onnx::GraphProto const& graph = model.graph();

    std::unordered_set<std::string> initializers;
    for (::onnx::TensorProto const& initializer : graph.initializer())
    {
        try
        {
            require(!initializer.name().empty(), ErrorCode::kINVALID_GRAPH, "an initializer has no name");
            ctx.define(initializer.name(), Value::weights(importTensor(ctx, initializer)));
            initializers.insert(initializer.name());
        }
        catch (ImportError const& error)
        {
            failures.push_back(error.failure());
        }
    }
    for (::onnx::ValueInfoProto const& input : graph.input())
    {
        if (initializers.count(input.name()) != 0)
        {
            continue; // the initializer wins; it is not a network input
        }
        try
        {
            importInput(ctx, input);
        }
        catch (ImportError const& error)
        {
            Failure failure = error.failure();
            failure.file = input.name();
            failures.push_back(failure);
        }
    }
    if (!failures.empty())
    {
        return failures;
    }

    std::optional<Failure> sortFailure;
    std::vector<int> order = topologicalOrder(graph, {}, sortFailure);
    if (sortFailure)
    {
        return {*sortFailure};
    }
    for (int index : order)
    {
        ::onnx::NodeProto const& node = graph.node(index);
        try
        {
            checkNode(ctx, node, Attributes(node));
        }
        catch (ImportError& error)
        {
            annotate(error.failure(), ctx, node, index);
            failures.push_back(error.failure());
            continue;
        }
        if (!failures.empty())
        {
            continue; // once a check failed, later nodes are only checked
        }
        try
        {
            importNode(ctx, node, index);
        }
        catch (ImportError const& error)
        {
            failures.push_back(error.failure());
            return failures;
        }
    }
    if (!failures.empty())
    {
        return failures;
    }
    for (::onnx::ValueInfoProto const& output : graph.output())
    {
        try
        {
            markOutput(ctx, output);
        }
        catch (ImportError const& error)
        {
            failures.push_back(error.failure());
        }
    }
    return failures;
}

std::vector<std::pair<std::vector<size_t>, bool>> partitionModel(ImportContext& ctx, ::onnx::ModelProto const& model)
{
    std::vector<std::pair<std::vector<size_t>, bool>> runs;
    try
    {
        importModelInfo(ctx, model);
    }
    catch (ImportError const&)
    {
        return runs;
    }
    std::optional<Failure> sortFailure;
    std::vector<int> order = topologicalOrder(model.graph(), {}, sortFailure);
    for (int index : order)
    {
        ::onnx::NodeProto const& node = model.graph().node(index);
        bool supported = true;
        try
        {
            checkNode(ctx, node, Attributes(node));
        }
        catch (ImportError const&)
        {
            supported = false;
        }
        if (runs.empty() || runs.back().second != supported)
        {
            runs.emplace_back(std::vector<size_t>{}, supported);
        }
        runs.back().first.push_back(static_cast<size_t>(index));
    }
    return runs;
}

} // namespace kiln::onnx_import
