// SPDX-License-Identifier: Apache-2.0
// Test support for the ONNX parser's tests: ModelBuilder makes onnx::ModelProto objects in C++ (inputs, outputs,
// initializers, nodes with typed attributes), and Harness holds a builder, a network and a parser, parses a model
// through the public API and runs the network on kiln's host backend.
//
//     ModelBuilder m;
//     m.input("x", {2, 3});
//     attrFloat(m.node("Relu", {"x"}, {"y"}, "relu"), "alpha", 0.5F);
//     m.output("y");
//     Harness h;
//     ASSERT_TRUE(h.parse(m)) << h.errors();
//     auto y = h.run({{"x", {{2, 3}, values}}});
#pragma once

#include "NvInfer.h"
#include "NvOnnxParser.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace kiln::onnx_test
{

using Shape = std::vector<int64_t>; //!< Extents; -1 is a dynamic extent (no dim_value).

//! An ONNX TensorProto of type with dims and the given bytes as raw_data.
inline ::onnx::TensorProto rawTensor(
    std::string const& name, int32_t type, Shape const& dims, void const* bytes, size_t size)
{
    ::onnx::TensorProto tensor;
    tensor.set_name(name);
    tensor.set_data_type(type);
    for (int64_t d : dims)
    {
        tensor.add_dims(d);
    }
    tensor.set_raw_data(bytes, size);
    return tensor;
}

template <typename T>
::onnx::TensorProto rawTensor(std::string const& name, int32_t type, Shape const& dims, std::vector<T> const& values)
{
    return rawTensor(name, type, dims, values.data(), values.size() * sizeof(T));
}

inline ::onnx::TensorProto floatTensor(std::string const& name, Shape const& dims, std::vector<float> const& values)
{
    return rawTensor(name, ::onnx::TensorProto::FLOAT, dims, values);
}

inline ::onnx::TensorProto int64Tensor(std::string const& name, Shape const& dims, std::vector<int64_t> const& values)
{
    return rawTensor(name, ::onnx::TensorProto::INT64, dims, values);
}

inline ::onnx::TensorProto int32Tensor(std::string const& name, Shape const& dims, std::vector<int32_t> const& values)
{
    return rawTensor(name, ::onnx::TensorProto::INT32, dims, values);
}

//! Adds an attribute of each ONNX attribute type to a node.
inline ::onnx::AttributeProto& addAttr(
    ::onnx::NodeProto& node, std::string const& name, ::onnx::AttributeProto::AttributeType type)
{
    ::onnx::AttributeProto& attribute = *node.add_attribute();
    attribute.set_name(name);
    attribute.set_type(type);
    return attribute;
}
inline void attrFloat(::onnx::NodeProto& node, std::string const& name, float value)
{
    addAttr(node, name, ::onnx::AttributeProto::FLOAT).set_f(value);
}
inline void attrInt(::onnx::NodeProto& node, std::string const& name, int64_t value)
{
    addAttr(node, name, ::onnx::AttributeProto::INT).set_i(value);
}
inline void attrString(::onnx::NodeProto& node, std::string const& name, std::string const& value)
{
    addAttr(node, name, ::onnx::AttributeProto::STRING).set_s(value);
}
inline void attrFloats(::onnx::NodeProto& node, std::string const& name, std::vector<float> const& values)
{
    auto& attribute = addAttr(node, name, ::onnx::AttributeProto::FLOATS);
    for (float v : values)
    {
        attribute.add_floats(v);
    }
}
inline void attrInts(::onnx::NodeProto& node, std::string const& name, std::vector<int64_t> const& values)
{
    auto& attribute = addAttr(node, name, ::onnx::AttributeProto::INTS);
    for (int64_t v : values)
    {
        attribute.add_ints(v);
    }
}
inline void attrStrings(::onnx::NodeProto& node, std::string const& name, std::vector<std::string> const& values)
{
    auto& attribute = addAttr(node, name, ::onnx::AttributeProto::STRINGS);
    for (std::string const& v : values)
    {
        attribute.add_strings(v);
    }
}
inline void attrTensor(::onnx::NodeProto& node, std::string const& name, ::onnx::TensorProto const& tensor)
{
    *addAttr(node, name, ::onnx::AttributeProto::TENSOR).mutable_t() = tensor;
}

//! Builds one ONNX model: opset 17 of the default domain, IR version 8.
class ModelBuilder
{
public:
    explicit ModelBuilder(int64_t opset = 17)
    {
        mModel.set_ir_version(8);
        mModel.set_producer_name("kiln-onnx-test");
        opset_import("", opset);
        mModel.mutable_graph()->set_name("test");
    }

    void opset_import(std::string const& domain, int64_t version)
    {
        auto* entry = mModel.add_opset_import();
        entry->set_domain(domain);
        entry->set_version(version);
    }

    //! A graph input of type (an ONNX element type) and shape (-1: dynamic).
    ::onnx::ValueInfoProto& input(
        std::string const& name, Shape const& shape, int32_t type = ::onnx::TensorProto::FLOAT)
    {
        return valueInfo(*mModel.mutable_graph()->add_input(), name, &shape, type);
    }

    //! A graph output; without a type the parser keeps the computed one.
    ::onnx::ValueInfoProto& output(std::string const& name, int32_t type = ::onnx::TensorProto::FLOAT)
    {
        return valueInfo(*mModel.mutable_graph()->add_output(), name, nullptr, type);
    }

    ::onnx::TensorProto& initializer(::onnx::TensorProto const& tensor)
    {
        return *mModel.mutable_graph()->add_initializer() = tensor;
    }

    ::onnx::NodeProto& node(std::string const& opType, std::vector<std::string> const& inputs,
        std::vector<std::string> const& outputs, std::string const& name = "", std::string const& domain = "")
    {
        ::onnx::NodeProto& node = *mModel.mutable_graph()->add_node();
        node.set_op_type(opType);
        node.set_name(name);
        node.set_domain(domain);
        for (std::string const& in : inputs)
        {
            node.add_input(in);
        }
        for (std::string const& out : outputs)
        {
            node.add_output(out);
        }
        return node;
    }

    ::onnx::ModelProto& proto() { return mModel; }
    ::onnx::GraphProto& graph() { return *mModel.mutable_graph(); }

    std::string bytes() const
    {
        std::string out;
        mModel.SerializeToString(&out);
        return out;
    }

    void writeTo(std::filesystem::path const& path) const
    {
        std::ofstream out(path, std::ios::binary);
        mModel.SerializeToOstream(&out);
    }

private:
    static ::onnx::ValueInfoProto& valueInfo(
        ::onnx::ValueInfoProto& info, std::string const& name, Shape const* shape, int32_t type)
    {
        info.set_name(name);
        auto* tensorType = info.mutable_type()->mutable_tensor_type();
        tensorType->set_elem_type(type);
        if (shape != nullptr)
        {
            auto* dims = tensorType->mutable_shape();
            for (int64_t d : *shape)
            {
                auto* dim = dims->add_dim();
                if (d >= 0)
                {
                    dim->set_dim_value(d);
                }
            }
        }
        return info;
    }

    ::onnx::ModelProto mModel;
};

//! Keeps every message.
class CollectingLogger final : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        std::lock_guard<std::mutex> lock(mMutex);
        mMessages.emplace_back(severity, msg);
    }
    //! Every message of at most this severity that contains text.
    std::vector<std::string> find(std::string const& text, Severity atMost = Severity::kVERBOSE) const
    {
        std::lock_guard<std::mutex> lock(mMutex);
        std::vector<std::string> found;
        for (auto const& [severity, message] : mMessages)
        {
            if (severity <= atMost && message.find(text) != std::string::npos)
            {
                found.push_back(message);
            }
        }
        return found;
    }
    std::string all() const
    {
        std::lock_guard<std::mutex> lock(mMutex);
        std::string out;
        for (auto const& [severity, message] : mMessages)
        {
            out += std::to_string(static_cast<int>(severity)) + ": " + message + "\n";
        }
        return out;
    }

private:
    mutable std::mutex mMutex;
    std::vector<std::pair<Severity, std::string>> mMessages;
};

//! A host tensor for Harness::run: its shape and FLOAT values.
struct HostTensor
{
    Shape shape;
    std::vector<float> values;
};

//! A builder, a network and a parser for it (the parser outlives nothing it must: it is destroyed first).
class Harness
{
public:
    Harness()
        : mBuilder(nvinfer1::createInferBuilder(mLogger))
        , mNetwork(mBuilder != nullptr ? mBuilder->createNetworkV2(0) : nullptr)
        , mParser(mNetwork != nullptr ? nvonnxparser::createParser(*mNetwork, mLogger) : nullptr)
    {
    }

    bool parse(std::string const& bytes, char const* path = nullptr)
    {
        return mParser->parse(bytes.data(), bytes.size(), path);
    }
    bool parse(ModelBuilder const& model) { return parse(model.bytes()); }

    //! Every recorded parser error, one per line, for failure messages.
    std::string errors() const
    {
        std::string out;
        for (int i = 0; i < mParser->getNbErrors(); ++i)
        {
            nvonnxparser::IParserError const* e = mParser->getError(i);
            out += "[" + std::to_string(static_cast<int>(e->code())) + "] node " + std::to_string(e->node()) + " ("
                + e->nodeName() + ", " + e->nodeOperator() + ") " + e->func() + ": " + e->desc() + "\n";
        }
        return out;
    }

    //! The first error, or nullptr.
    nvonnxparser::IParserError const* firstError() const
    {
        return mParser->getNbErrors() > 0 ? mParser->getError(0) : nullptr;
    }

    //! The layers of type, in network order.
    std::vector<nvinfer1::ILayer*> layers(nvinfer1::LayerType type) const
    {
        std::vector<nvinfer1::ILayer*> found;
        for (int32_t i = 0; i < mNetwork->getNbLayers(); ++i)
        {
            if (mNetwork->getLayer(i)->getType() == type)
            {
                found.push_back(mNetwork->getLayer(i));
            }
        }
        return found;
    }

    //! The layer whose output is tensor, or nullptr.
    nvinfer1::ILayer* producer(nvinfer1::ITensor const* tensor) const
    {
        for (int32_t i = 0; i < mNetwork->getNbLayers(); ++i)
        {
            nvinfer1::ILayer* layer = mNetwork->getLayer(i);
            for (int32_t o = 0; o < layer->getNbOutputs(); ++o)
            {
                if (layer->getOutput(o) == tensor)
                {
                    return layer;
                }
            }
        }
        return nullptr;
    }

    //! Builds the network (one profile fixed at the given input shapes when an input is dynamic), deserializes the
    //! engine, runs it on inputs and returns every FLOAT output by name. An output whose shape is data-dependent gets
    //! a buffer of getMaxOutputSize() bytes and its shape from getTensorShape() after the run. An empty map when a
    //! step fails (the log says why; see lastFailure()).
    std::map<std::string, HostTensor> run(std::map<std::string, HostTensor> const& inputs)
    {
        mFailure.clear();
        std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
        bool dynamic = false;
        nvinfer1::IOptimizationProfile* profile = mBuilder->createOptimizationProfile();
        for (int32_t i = 0; i < mNetwork->getNbInputs(); ++i)
        {
            nvinfer1::ITensor* in = mNetwork->getInput(i);
            auto found = inputs.find(in->getName());
            if (found == inputs.end())
            {
                mFailure = std::string("no value for input ") + in->getName();
                return {};
            }
            nvinfer1::Dims const declared = in->getDimensions();
            for (int32_t d = 0; d < declared.nbDims; ++d)
            {
                dynamic = dynamic || declared.d[d] < 0;
            }
            nvinfer1::Dims const actual = dims(found->second.shape);
            for (auto selector : {nvinfer1::OptProfileSelector::kMIN, nvinfer1::OptProfileSelector::kOPT,
                     nvinfer1::OptProfileSelector::kMAX})
            {
                profile->setDimensions(in->getName(), selector, actual);
            }
        }
        if (dynamic)
        {
            config->addOptimizationProfile(profile);
        }
        std::unique_ptr<nvinfer1::IHostMemory> plan{mBuilder->buildSerializedNetwork(*mNetwork, *config)};
        if (plan == nullptr)
        {
            mFailure = "buildSerializedNetwork failed";
            return {};
        }
        std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(mLogger)};
        std::unique_ptr<nvinfer1::ICudaEngine> engine{runtime->deserializeCudaEngine(plan->data(), plan->size())};
        if (engine == nullptr)
        {
            mFailure = "deserializeCudaEngine failed";
            return {};
        }
        std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
        if (context == nullptr)
        {
            mFailure = "createExecutionContext failed";
            return {};
        }
        for (auto const& [name, tensor] : inputs)
        {
            if (!context->setInputShape(name.c_str(), dims(tensor.shape))
                || !context->setTensorAddress(name.c_str(), const_cast<float*>(tensor.values.data())))
            {
                mFailure = "cannot bind input " + name;
                return {};
            }
        }
        std::map<std::string, HostTensor> outputs;
        std::vector<std::string> pending;
        for (int32_t i = 0; i < engine->getNbIOTensors(); ++i)
        {
            char const* name = engine->getIOTensorName(i);
            if (engine->getTensorIOMode(name) != nvinfer1::TensorIOMode::kOUTPUT)
            {
                continue;
            }
            nvinfer1::Dims const shape = context->getTensorShape(name);
            HostTensor& out = outputs[name];
            int64_t volume = 1;
            for (int32_t d = 0; d < shape.nbDims; ++d)
            {
                out.shape.push_back(shape.d[d]);
                volume *= shape.d[d];
            }
            if (std::find(out.shape.begin(), out.shape.end(), -1) != out.shape.end())
            {
                pending.emplace_back(name);
                volume = context->getMaxOutputSize(name) / static_cast<int64_t>(sizeof(float));
            }
            out.values.assign(static_cast<size_t>(volume < 0 ? 0 : volume), -12345.0F);
            if (!context->setTensorAddress(name, out.values.data()))
            {
                mFailure = std::string("cannot bind output ") + name;
                return {};
            }
        }
        if (!context->enqueueV3(nullptr))
        {
            mFailure = "enqueueV3 failed";
            return {};
        }
        for (std::string const& name : pending)
        {
            nvinfer1::Dims const shape = context->getTensorShape(name.c_str());
            HostTensor& out = outputs[name];
            out.shape.assign(shape.d, shape.d + std::max(shape.nbDims, 0));
            int64_t volume = 1;
            for (int64_t extent : out.shape)
            {
                volume *= extent;
            }
            out.values.resize(static_cast<size_t>(std::max<int64_t>(volume, 0)));
        }
        return outputs;
    }

    //! Why the last run() returned nothing, with the log.
    std::string lastFailure() const { return mFailure + "\n" + mLogger.all(); }

    static nvinfer1::Dims dims(Shape const& shape)
    {
        nvinfer1::Dims out{static_cast<int32_t>(shape.size()), {}};
        for (size_t i = 0; i < shape.size(); ++i)
        {
            out.d[i] = shape[i];
        }
        return out;
    }

    CollectingLogger mLogger;
    std::unique_ptr<nvinfer1::IBuilder> mBuilder;
    std::unique_ptr<nvinfer1::INetworkDefinition> mNetwork;
    std::unique_ptr<nvonnxparser::IParser> mParser;
    std::string mFailure;
};

//! A BOOL tensor (one byte per element).
inline ::onnx::TensorProto boolTensor(std::string const& name, Shape const& dims, std::vector<uint8_t> const& values)
{
    return rawTensor(name, ::onnx::TensorProto::BOOL, dims, values);
}

//! Adds a node to a graph or function body (anything with add_node()), like ModelBuilder::node.
template <typename Body>
::onnx::NodeProto& addNode(Body& body, std::string const& opType, std::vector<std::string> const& inputs,
    std::vector<std::string> const& outputs, std::string const& name = "", std::string const& domain = "")
{
    ::onnx::NodeProto& node = *body.add_node();
    node.set_op_type(opType);
    node.set_name(name);
    node.set_domain(domain);
    for (std::string const& in : inputs)
    {
        node.add_input(in);
    }
    for (std::string const& out : outputs)
    {
        node.add_output(out);
    }
    return node;
}

//! Adds a model-local function (opset 17 of the default domain inside) and imports its domain into the model.
inline ::onnx::FunctionProto& addFunction(ModelBuilder& model, std::string const& name,
    std::vector<std::string> const& inputs, std::vector<std::string> const& outputs,
    std::string const& domain = "kiln.test")
{
    ::onnx::FunctionProto& function = *model.proto().add_functions();
    function.set_name(name);
    function.set_domain(domain);
    for (std::string const& in : inputs)
    {
        function.add_input(in);
    }
    for (std::string const& out : outputs)
    {
        function.add_output(out);
    }
    auto* opset = function.add_opset_import();
    opset->set_domain("");
    opset->set_version(17);
    bool imported = false;
    for (auto const& entry : model.proto().opset_import())
    {
        imported = imported || entry.domain() == domain;
    }
    if (!imported)
    {
        model.opset_import(domain, 1);
    }
    return function;
}

//! An attribute of a function body node that takes the value of the call's attribute refName.
inline void attrRef(::onnx::NodeProto& node, std::string const& name, ::onnx::AttributeProto::AttributeType type,
    std::string const& refName)
{
    addAttr(node, name, type).set_ref_attr_name(refName);
}

//! A GRAPH attribute (an If branch, a Loop body), named graphName, to fill with addNode and graphOutput.
inline ::onnx::GraphProto& attrGraph(::onnx::NodeProto& node, std::string const& name, std::string const& graphName)
{
    ::onnx::GraphProto& graph = *addAttr(node, name, ::onnx::AttributeProto::GRAPH).mutable_g();
    graph.set_name(graphName);
    return graph;
}

//! Declares an output of a subgraph (element type only).
inline void graphOutput(::onnx::GraphProto& graph, std::string const& name, int32_t type = ::onnx::TensorProto::FLOAT)
{
    ::onnx::ValueInfoProto& info = *graph.add_output();
    info.set_name(name);
    info.mutable_type()->mutable_tensor_type()->set_elem_type(type);
}

} // namespace kiln::onnx_test
