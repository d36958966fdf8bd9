// SPDX-License-Identifier: Apache-2.0
// The state of one import: the network being filled, the values of the ONNX names seen so far, the weights the
// parser owns, the model's opsets and the parser flags. Importers get it with the node they import:
//
//     std::vector<Value> importRelu(ImportContext& ctx, Node& node)
//     {
//         auto& layer = ctx.added(ctx.network().addActivation(ctx.tensor(node.input(0)), ActivationType::kRELU));
//         return {Value::tensor(*layer.getOutput(0))};
//     }
#pragma once

#include "onnx/attributes.h"
#include "onnx/value.h"

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace kiln::onnx_import
{

using nvinfer1::ILogger;
using Severity = ILogger::Severity;

//! The node being imported, with its inputs resolved.
struct Node
{
    ::onnx::NodeProto const& proto;
    int index;                 //!< In the top-level graph's node list (the calling node's, inside functions).
    std::vector<Value> inputs; //!< One per ONNX input; omitted optional inputs are null values.
    Attributes attrs;

    //! The node's name, or "node_of_<first output>" when it has none.
    std::string name() const;
    std::string const& opType() const { return proto.op_type(); }
    //! Input i; a missing or omitted input fails with kINVALID_NODE.
    Value const& input(size_t i) const;
    //! Whether input i is present (not omitted).
    bool has(size_t i) const { return i < inputs.size() && !inputs[i].isNull(); }
    size_t inputCount() const { return inputs.size(); }
    //! The number of outputs the node declares (including omitted optional ones).
    size_t outputCount() const { return static_cast<size_t>(proto.output_size()); }
};

//! Import state shared by the model importer and every op importer.
class ImportContext
{
public:
    ImportContext(nvinfer1::INetworkDefinition& network, ILogger& logger, uint32_t flags);
    ~ImportContext();
    ImportContext(ImportContext const&) = delete;
    ImportContext& operator=(ImportContext const&) = delete;

    nvinfer1::INetworkDefinition& network() noexcept { return mNetwork; }

    //! Logs through the parser's logger.
    void log(Severity severity, std::string const& message) const;
    template <typename... Parts>
    void warn(Parts const&... parts) const
    {
        log(Severity::kWARNING, concat(parts...));
    }
    template <typename... Parts>
    void info(Parts const&... parts) const
    {
        log(Severity::kINFO, concat(parts...));
    }

    bool flag(nvonnxparser::OnnxParserFlag flag) const noexcept
    {
        return (mFlags & (1U << static_cast<uint32_t>(flag))) != 0;
    }

    //! The opset the model imports for domain ("" is ONNX's default domain), or 0 when it imports none.
    int64_t opset(std::string const& domain = "") const;
    void setOpset(std::string const& domain, int64_t version) { mOpsets[domain] = version; }

    //! The folder of the model file ("" when unknown); external weights are found from there.
    std::string const& modelFolder() const noexcept { return mModelFolder; }
    void setModelFolder(std::string folder) { mModelFolder = std::move(folder); }

    //! Gives an ONNX name its value in the innermost scope. A tensor takes the name, prefixed with the scope's
    //! prefix (so messages and bindings use ONNX names).
    void define(std::string const& name, Value value);
    //! The value of an ONNX name, or nullptr when nothing defined it yet. Scopes that see outer names (subgraphs)
    //! look outwards; function bodies see only their own scope.
    Value const* find(std::string const& name) const;
    //! Enters a scope: a function body (seesOuter false) or a subgraph; tensors defined in it get prefix.
    void pushScope(bool seesOuter, std::string prefix);
    void popScope();

    //! Zeroed bytes for count elements of type, owned by the context.
    ShapedWeights allocate(DataType type, Dims const& shape, std::string name = "");
    //! A one-element or 1-D weights of type made from values (converted from double / int64).
    ShapedWeights weightsFrom(DataType type, Dims const& shape, std::vector<double> const& values);
    ShapedWeights int64Weights(std::vector<int64_t> const& values, bool scalar = false);
    //! Keeps a buffer alive as long as the context (mapped files, protobufs).
    void keep(std::shared_ptr<void const> owner) { mKeep.push_back(std::move(owner)); }

    //! The value as a network tensor: weights become a constant layer (one per named initializer).
    nvinfer1::ITensor& tensor(Value const& value);

    //! Names weights a layer was given after their initializer (INetworkDefinition::setWeightsName), so that an
    //! IRefitter finds them by that name; unnamed weights, and a name other values already carry, are left alone.
    void nameWeights(ShapedWeights const& weights);

    //! Checks that the network added the layer, and names it after the node being imported.
    template <typename Layer>
    Layer& added(Layer* layer)
    {
        nameLayer(layer);
        return *layer;
    }

    //! The node being imported (for layer names and messages), or nullptr.
    Node const* currentNode() const noexcept { return mCurrentNode; }
    void setCurrentNode(Node const* node) noexcept { mCurrentNode = node; }

    //! Function bodies by name (the model's local functions).
    std::map<std::string, ::onnx::FunctionProto const*>& localFunctions() noexcept { return mLocalFunctions; }
    //! The "node (function)" entries of the calls the importer is inside of.
    std::vector<std::string>& functionStack() noexcept { return mFunctionStack; }
    //! The attributes of the innermost function call (nullptr at the top level).
    std::vector<Attributes const*>& callerAttributes() noexcept { return mCallerAttributes; }

    //! Records the plugin library (its path) that a node's plugin comes from, once per path, for
    //! IParser::getUsedVCPluginLibraries.
    void usePluginLibrary(std::string const& path);
    //! The recorded plugin library paths, in the order they were first used; valid while the context lives.
    std::vector<char const*> const& pluginLibraries() const noexcept { return mPluginLibraryPaths; }

private:
    void nameLayer(nvinfer1::ILayer* layer);

    nvinfer1::INetworkDefinition& mNetwork;
    ILogger& mLogger;
    uint32_t mFlags;
    std::map<std::string, int64_t> mOpsets;
    std::string mModelFolder;
    struct Scope
    {
        std::unordered_map<std::string, Value> values;
        bool seesOuter{true};
        std::string prefix;
    };
    std::vector<Scope> mScopes{Scope{}};
    std::unordered_set<nvinfer1::ITensor const*> mNamedTensors;
    std::vector<std::unique_ptr<std::byte[]>> mBuffers;
    std::vector<std::shared_ptr<void const>> mKeep;
    struct Constant
    {
        nvinfer1::ITensor* tensor;
        void const* data;
        DataType type;
        Dims shape;
    };
    std::unordered_map<std::string, Constant> mConstants;       //!< Constant layers of named weights.
    std::unordered_map<std::string, void const*> mWeightsNames; //!< Names given with setWeightsName, and their values.
    std::unordered_map<std::string, int> mLayerNames;
    Node const* mCurrentNode{nullptr};
    std::map<std::string, ::onnx::FunctionProto const*> mLocalFunctions;
    std::vector<std::string> mFunctionStack;
    std::vector<Attributes const*> mCallerAttributes;
    std::deque<std::string> mPluginLibraries;     //!< A deque: its strings stay where they are as it grows.
    std::vector<char const*> mPluginLibraryPaths; //!< mPluginLibraries' c_str()s.
};

} // namespace kiln::onnx_import
