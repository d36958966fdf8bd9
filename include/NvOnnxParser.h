/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * NvOnnxParser.h -- the ONNX parser (libnvonnxparser in TensorRT, libkiln_onnxparser in kiln): it reads an ONNX
 * model and adds its graph to an INetworkDefinition. Nodes whose op type has no importer become plugin layers,
 * looked up in the builder's plugin registry by op type, the node's "plugin_version" (default "1") and
 * "plugin_namespace" (default "") attributes:
 *
 *     std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
 *     std::unique_ptr<nvonnxparser::IParser> parser{nvonnxparser::createParser(*network, logger)};
 *     if (!parser->parseFromFile("model.onnx", static_cast<int>(nvinfer1::ILogger::Severity::kWARNING)))
 *     {
 *         for (int i = 0; i < parser->getNbErrors(); ++i)
 *         {
 *             std::cerr << parser->getError(i)->desc() << "\n";
 *         }
 *     }
 *
 * The parser must outlive the engine build: the network's constants point into weights the parser owns.
 */

#ifndef NV_ONNX_PARSER_H
#define NV_ONNX_PARSER_H

#include "NvInfer.h"
#include <stddef.h>
#include <string>
#include <vector>

#define NV_ONNX_PARSER_MAJOR 0
#define NV_ONNX_PARSER_MINOR 1
#define NV_ONNX_PARSER_PATCH 0

//! The parser interface version that createParser() passes to the library.
static constexpr int32_t NV_ONNX_PARSER_VERSION
    = ((NV_ONNX_PARSER_MAJOR * 10000) + (NV_ONNX_PARSER_MINOR * 100) + NV_ONNX_PARSER_PATCH);

//! The indices of a run of nodes, and whether the parser supports all of them.
typedef std::pair<std::vector<size_t>, bool> SubGraph_t;

//! The runs of nodes of a model, in the order supportsModel() found them.
typedef std::vector<SubGraph_t> SubGraphCollection_t;

namespace nvonnxparser
{

//! The number of values of enum T (specialised below).
template <typename T>
constexpr int32_t EnumMax() noexcept = delete;

//! What went wrong in an IParserError.
enum class ErrorCode : int
{
    kSUCCESS = 0,
    kINTERNAL_ERROR = 1,
    kMEM_ALLOC_FAILED = 2,
    kMODEL_DESERIALIZE_FAILED = 3,
    kINVALID_VALUE = 4,
    kINVALID_GRAPH = 5,
    kINVALID_NODE = 6,
    kUNSUPPORTED_GRAPH = 7,
    kUNSUPPORTED_NODE = 8,
    kUNSUPPORTED_NODE_ATTR = 9,
    kUNSUPPORTED_NODE_INPUT = 10,
    kUNSUPPORTED_NODE_DATATYPE = 11,
    kUNSUPPORTED_NODE_DYNAMIC = 12,
    kUNSUPPORTED_NODE_SHAPE = 13,
    kREFIT_FAILED = 14
};

//! 14, one less than the number of codes, as TensorRT's header says.
template <>
constexpr inline int32_t EnumMax<ErrorCode>() noexcept
{
    return 14;
}

//! A bit mask of OnnxParserFlag values: bit (1U << flag).
using OnnxParserFlags = uint32_t;

//! Switches of the parser's behaviour (IParser::setFlag).
enum class OnnxParserFlag : int32_t
{
    //! InstanceNormalization becomes a normalization layer rather than a plugin. On by default.
    kNATIVE_INSTANCENORM = 0,
    //! UINT8 and asymmetric quantization for DLA.
    kENABLE_UINT8_AND_ASYMMETRIC_QUANTIZATION_DLA = 1,
    //! Report which nodes DLA could run.
    kREPORT_CAPABILITY_DLA = 2,
    //! A registered plugin named like an ONNX op wins over the op's importer even without "plugin_namespace".
    kENABLE_PLUGIN_OVERRIDE = 3,
    //! Adjust the network for DLA.
    kADJUST_FOR_DLA = 4
};

//! The number of parser flags.
template <>
constexpr inline int32_t EnumMax<OnnxParserFlag>() noexcept
{
    return 5;
}

//! One error of a parse: what went wrong, where in the parser, and at which node.
class IParserError
{
public:
    //! The kind of error.
    virtual ErrorCode code() const = 0;
    //! The message.
    virtual char const* desc() const = 0;
    //! The parser source file that found it; for an error about a graph input, the input's name.
    virtual char const* file() const = 0;
    //! The line in file().
    virtual int line() const = 0;
    //! The parser function that found it.
    virtual char const* func() const = 0;
    //! The index of the node in the graph's node list, or -1 when the error is not about a node.
    virtual int node() const = 0;
    //! The node's name ("" when the error is not about a node).
    virtual char const* nodeName() const = 0;
    //! The node's op type ("" when the error is not about a node).
    virtual char const* nodeOperator() const = 0;
    //! The calls of model-local functions that led to the node, outermost first, as "node (function)"; nullptr
    //! when there are none.
    virtual char const* const* localFunctionStack() const = 0;
    //! The number of entries of localFunctionStack().
    virtual int32_t localFunctionStackSize() const = 0;

protected:
    virtual ~IParserError() {}
};

//! Reads ONNX models into the network it was made for (createParser()).
class IParser
{
public:
    //! Parses a serialized ModelProto into the network. model_path (the model file's path) locates external
    //! weights. True when there were no errors.
    virtual bool parse(void const* serialized_onnx_model, size_t serialized_onnx_model_size,
        const char* model_path = nullptr) noexcept = 0;

    //! Reads and parses the model file; verbosity is an ILogger::Severity below which messages are shown.
    virtual bool parseFromFile(const char* onnxModelFile, int verbosity) noexcept = 0;

    //! Whether the parser supports the whole model; the node runs it found go to sub_graph_collection.
    TRT_DEPRECATED virtual bool supportsModel(void const* serialized_onnx_model, size_t serialized_onnx_model_size,
        SubGraphCollection_t& sub_graph_collection, const char* model_path = nullptr) noexcept = 0;

    //! Parses a model whose weights the caller keeps alive.
    TRT_DEPRECATED virtual bool parseWithWeightDescriptors(
        void const* serialized_onnx_model, size_t serialized_onnx_model_size) noexcept = 0;

    //! Whether the parser has an importer for op_name (ignoring plugins).
    virtual bool supportsOperator(const char* op_name) const noexcept = 0;

    //! The number of errors recorded since the last clearErrors().
    virtual int getNbErrors() const noexcept = 0;

    //! Error index, or nullptr when there is none.
    virtual IParserError const* getError(int index) const noexcept = 0;

    //! Forgets the recorded errors.
    virtual void clearErrors() noexcept = 0;

    virtual ~IParser() noexcept = default;

    //! The paths of the plugin libraries the last parse's plugin layers come from (for setPluginsToSerialize or
    //! IPluginRegistry::loadLibrary), or nullptr when none; valid until the next parse.
    virtual char const* const* getUsedVCPluginLibraries(int64_t& nbPluginLibs) const noexcept = 0;

    //! Replaces all flags.
    virtual void setFlags(OnnxParserFlags onnxParserFlags) noexcept = 0;

    //! All flags.
    virtual OnnxParserFlags getFlags() const noexcept = 0;

    //! Clears one flag.
    virtual void clearFlag(OnnxParserFlag onnxParserFlag) noexcept = 0;

    //! Sets one flag.
    virtual void setFlag(OnnxParserFlag onnxParserFlag) noexcept = 0;

    //! Whether one flag is set.
    virtual bool getFlag(OnnxParserFlag onnxParserFlag) const noexcept = 0;

    //! Output i of the layer that produced the ONNX tensor name, or nullptr.
    virtual nvinfer1::ITensor const* getLayerOutputTensor(char const* name, int64_t i) noexcept = 0;

    //! Whether the parser supports the whole model; getNbSubgraphs() and friends then tell the runs of nodes.
    virtual bool supportsModelV2(
        void const* serializedOnnxModel, size_t serializedOnnxModelSize, char const* modelPath = nullptr) noexcept = 0;

    //! The number of node runs supportsModelV2() found.
    virtual int64_t getNbSubgraphs() noexcept = 0;

    //! Whether run index is supported.
    virtual bool isSubgraphSupported(int64_t const index) noexcept = 0;

    //! The node indices of run index; subgraphLength receives their number.
    virtual int64_t* getSubgraphNodes(int64_t const index, int64_t& subgraphLength) noexcept = 0;

    //! Reads a model without parsing it, so that loadInitializer() can supply weights before parseModelProto().
    virtual bool loadModelProto(
        void const* serializedOnnxModel, size_t serializedOnnxModelSize, char const* modelPath = nullptr) noexcept = 0;

    //! Supplies the data of initializer name; the caller keeps data alive until the engine is built.
    virtual bool loadInitializer(char const* name, void const* data, size_t size) noexcept = 0;

    //! Parses the model loadModelProto() read.
    virtual bool parseModelProto() noexcept = 0;

    //! The builder configuration capability reports refer to.
    virtual bool setBuilderConfig(const nvinfer1::IBuilderConfig* const builderConfig) noexcept = 0;
};

//! Refits an engine's weights from an ONNX model.
class IParserRefitter
{
public:
    //! Refits from a serialized ModelProto.
    virtual bool refitFromBytes(
        void const* serializedOnnxModel, size_t serializedOnnxModelSize, char const* modelPath = nullptr) noexcept = 0;

    //! Refits from a model file.
    virtual bool refitFromFile(char const* onnxModelFile) noexcept = 0;

    //! The number of errors.
    virtual int32_t getNbErrors() const noexcept = 0;

    //! Error index, or nullptr.
    virtual IParserError const* getError(int32_t index) const noexcept = 0;

    //! Forgets the errors.
    virtual void clearErrors() = 0;

    virtual ~IParserRefitter() noexcept = default;

    //! Reads a model without refitting.
    virtual bool loadModelProto(
        void const* serializedOnnxModel, size_t serializedOnnxModelSize, char const* modelPath = nullptr) noexcept = 0;

    //! Supplies the data of initializer name.
    virtual bool loadInitializer(char const* name, void const* data, size_t size) noexcept = 0;

    //! Refits from the model loadModelProto() read.
    virtual bool refitModelProto() noexcept = 0;
};

} // namespace nvonnxparser

//! The library's parser factory behind createParser(): network is an INetworkDefinition*, logger an ILogger*,
//! version NV_ONNX_PARSER_VERSION; returns an IParser*, or nullptr.
extern "C" TENSORRTAPI void* createNvOnnxParser_INTERNAL(void* network, void* logger, int version) noexcept;

//! The library's refitter factory behind createParserRefitter(); returns an IParserRefitter*, or nullptr.
extern "C" TENSORRTAPI void* createNvOnnxParserRefitter_INTERNAL(
    void* refitter, void* logger, int32_t version) noexcept;

//! The library's parser version (NV_ONNX_PARSER_VERSION of the headers it was built with).
extern "C" TENSORRTAPI int getNvOnnxParserVersion() noexcept;

namespace nvonnxparser
{
// An unnamed namespace: each translation unit has its own copy, tied to the header version it was compiled with.
namespace
{

//! A new parser that adds to network and logs to logger; delete it after the engine is built. nullptr on failure.
inline IParser* createParser(nvinfer1::INetworkDefinition& network, nvinfer1::ILogger& logger) noexcept
{
    return static_cast<IParser*>(createNvOnnxParser_INTERNAL(&network, &logger, NV_ONNX_PARSER_VERSION));
}

//! A new refitter for refitter's engine, which refits from a model's initializers by name; nullptr on failure.
inline IParserRefitter* createParserRefitter(nvinfer1::IRefitter& refitter, nvinfer1::ILogger& logger) noexcept
{
    return static_cast<IParserRefitter*>(
        createNvOnnxParserRefitter_INTERNAL(&refitter, &logger, NV_ONNX_PARSER_VERSION));
}

} // namespace
} // namespace nvonnxparser

#endif // NV_ONNX_PARSER_H
