// SPDX-License-Identifier: Apache-2.0
// nvonnxparser::IParser: parses ONNX models into the network it was made for, and reports errors as IParserError
// records; nvonnxparser::IParserRefitter: refits an engine from a model's initializers. The work is in
// model_importer.cpp; this file holds the API objects, the error records and the library's entry points.
#include "onnx/model_importer.h"
#include "onnx/weights.h"

#include "NvInfer.h"
#include "NvOnnxConfig.h"
#include "NvOnnxParser.h"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>

namespace kiln::onnx_import
{

namespace
{

using nvonnxparser::IParserError;
using nvonnxparser::OnnxParserFlag;
using nvonnxparser::OnnxParserFlags;

char const* errorCodeName(ErrorCode code)
{
    switch (code)
    {
    case ErrorCode::kSUCCESS: return "SUCCESS";
    case ErrorCode::kINTERNAL_ERROR: return "INTERNAL_ERROR";
    case ErrorCode::kMEM_ALLOC_FAILED: return "MEM_ALLOC_FAILED";
    case ErrorCode::kMODEL_DESERIALIZE_FAILED: return "MODEL_DESERIALIZE_FAILED";
    case ErrorCode::kINVALID_VALUE: return "INVALID_VALUE";
    case ErrorCode::kINVALID_GRAPH: return "INVALID_GRAPH";
    case ErrorCode::kINVALID_NODE: return "INVALID_NODE";
    case ErrorCode::kUNSUPPORTED_GRAPH: return "UNSUPPORTED_GRAPH";
    case ErrorCode::kUNSUPPORTED_NODE: return "UNSUPPORTED_NODE";
    case ErrorCode::kUNSUPPORTED_NODE_ATTR: return "UNSUPPORTED_NODE_ATTR";
    case ErrorCode::kUNSUPPORTED_NODE_INPUT: return "UNSUPPORTED_NODE_INPUT";
    case ErrorCode::kUNSUPPORTED_NODE_DATATYPE: return "UNSUPPORTED_NODE_DATATYPE";
    case ErrorCode::kUNSUPPORTED_NODE_DYNAMIC: return "UNSUPPORTED_NODE_DYNAMIC";
    case ErrorCode::kUNSUPPORTED_NODE_SHAPE: return "UNSUPPORTED_NODE_SHAPE";
    case ErrorCode::kREFIT_FAILED: return "REFIT_FAILED";
    }
    return "UNKNOWN";
}

//! One recorded error.
class ParserError final : public IParserError
{
public:
    explicit ParserError(Failure failure)
        : mFailure(std::move(failure))
    {
        for (std::string const& entry : mFailure.functionStack)
        {
            mStack.push_back(entry.c_str());
        }
    }
    ~ParserError() override = default;

    ErrorCode code() const override { return mFailure.code; }
    char const* desc() const override { return mFailure.desc.c_str(); }
    char const* file() const override { return mFailure.file.c_str(); }
    int line() const override { return mFailure.line; }
    char const* func() const override { return mFailure.func.c_str(); }
    int node() const override { return mFailure.node; }
    char const* nodeName() const override { return mFailure.nodeName.c_str(); }
    char const* nodeOperator() const override { return mFailure.nodeOperator.c_str(); }
    char const* const* localFunctionStack() const override { return mStack.empty() ? nullptr : mStack.data(); }
    int32_t localFunctionStackSize() const override { return static_cast<int32_t>(mStack.size()); }

    Failure const& failure() const noexcept { return mFailure; }

private:
    Failure mFailure;
    std::vector<char const*> mStack;
};

//! The text of a failure as logged: "In node 3 with name: conv1 and operator: Conv (importConv): INVALID_NODE: ...".
std::string describe(Failure const& failure)
{
    std::string where = failure.node >= 0 || !failure.nodeOperator.empty() ? concat("In node ", failure.node,
                            " with name: ", failure.nodeName, " and operator: ", failure.nodeOperator, " ")
                                                                           : std::string{};
    std::string stack;
    for (std::string const& call : failure.functionStack)
    {
        stack += (stack.empty() ? " [in function call " : " > ") + call;
    }
    if (!stack.empty())
    {
        stack += "]";
    }
    return concat(where, "(", failure.func, "): ", errorCodeName(failure.code), ": ", failure.desc, stack);
}

//! What the parser and the parser refitter share: the logger, the error records (logged as they are made), and a
//! model read by loadModelProto() whose initializers loadInitializer() may replace.
class ParserBase
{
protected:
    explicit ParserBase(nvinfer1::ILogger& logger)
        : mLogger(logger)
    {
    }

    template <typename Work>
    bool guarded(Work work) noexcept
    {
        try
        {
            return work();
        }
        catch (ImportError const& error)
        {
            record(error.failure());
        }
        catch (std::exception const& error)
        {
            record(failureAt(ErrorCode::kINTERNAL_ERROR, error.what(), SourceLocation::current()));
        }
        catch (...)
        {
            record(failureAt(ErrorCode::kINTERNAL_ERROR, "unknown exception", SourceLocation::current()));
        }
        return false;
    }

    void log(nvinfer1::ILogger::Severity severity, std::string const& message) const
    {
        if (static_cast<int>(severity) <= mVerbosity)
        {
            mLogger.log(severity, ("[kiln onnx] " + message).c_str());
        }
    }

    void record(Failure failure)
    {
        log(nvinfer1::ILogger::Severity::kERROR, describe(failure));
        mErrors.emplace_back(std::move(failure));
    }

    static void setFolder(ImportContext& ctx, char const* modelPath)
    {
        if (modelPath != nullptr)
        {
            ctx.setModelFolder(std::filesystem::path(modelPath).parent_path().string());
        }
    }

    //! The bytes of an ONNX model file, or nullopt after recording why (method names the caller).
    std::optional<std::string> readFile(char const* method, char const* file)
    {
        if (file == nullptr)
        {
            record(failureAt(
                ErrorCode::kINVALID_VALUE, concat(method, ": the file name is null"), SourceLocation::current()));
            return std::nullopt;
        }
        std::ifstream in(file, std::ios::binary);
        if (!in)
        {
            record(failureAt(ErrorCode::kINVALID_VALUE, concat("cannot open the ONNX model file '", file, "'"),
                SourceLocation::current()));
            return std::nullopt;
        }
        // One read of the whole file (a stream iterator would take it a character at a time: a fifth of BERT-base's
        // parse).
        in.seekg(0, std::ios::end);
        std::streamoff const size = in.tellg();
        in.seekg(0, std::ios::beg);
        std::string bytes;
        if (size < 0) // not seekable (a pipe): as it comes
        {
            in.clear();
            bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        }
        else if (size > 0)
        {
            bytes.resize(static_cast<std::size_t>(size));
            in.read(bytes.data(), size);
        }
        if (in.bad() || (size > 0 && !in))
        {
            record(failureAt(ErrorCode::kINVALID_VALUE, concat("cannot read the ONNX model file '", file, "'"),
                SourceLocation::current()));
            return std::nullopt;
        }
        log(nvinfer1::ILogger::Severity::kINFO, concat("reading ", file, " (", bytes.size(), " bytes)"));
        return bytes;
    }

    //! The model of bytes, or null after recording why.
    std::shared_ptr<::onnx::ModelProto> readProto(void const* model, size_t size)
    {
        auto proto = std::make_shared<::onnx::ModelProto>();
        if (auto failure = readModel(model, size, *proto))
        {
            record(*failure);
            return nullptr;
        }
        return proto;
    }

    //! loadModelProto(): keeps the model of bytes and its path for later.
    bool loadModel(void const* model, size_t size, char const* modelPath)
    {
        auto proto = readProto(model, size);
        if (proto == nullptr)
        {
            return false;
        }
        mLoaded = proto;
        mLoadedPath = modelPath != nullptr ? modelPath : "";
        return true;
    }

    //! loadInitializer(): data becomes the data of the loaded model's initializer name.
    bool replaceInitializer(char const* name, void const* data, size_t size)
    {
        if (!mLoaded || name == nullptr || (data == nullptr && size != 0))
        {
            record(failureAt(ErrorCode::kINVALID_VALUE,
                "loadInitializer needs a model from loadModelProto, a name and data", SourceLocation::current()));
            return false;
        }
        for (::onnx::TensorProto& initializer : *mLoaded->mutable_graph()->mutable_initializer())
        {
            if (initializer.name() == name)
            {
                // The caller's bytes become the initializer's data (copied into the model).
                initializer.clear_external_data();
                initializer.set_data_location(::onnx::TensorProto::DEFAULT);
                initializer.set_raw_data(data, size);
                return true;
            }
        }
        record(failureAt(ErrorCode::kINVALID_VALUE, concat("the model has no initializer named '", name, "'"),
            SourceLocation::current()));
        return false;
    }

    //! The path loadModelProto() was given, or nullptr.
    char const* loadedPath() const noexcept { return mLoadedPath.empty() ? nullptr : mLoadedPath.c_str(); }

    //! The model loadModelProto() read, or null after recording that method (the caller) needs one.
    std::shared_ptr<::onnx::ModelProto> loaded(char const* method)
    {
        if (!mLoaded)
        {
            record(failureAt(ErrorCode::kINVALID_VALUE, concat(method, " needs a model from loadModelProto"),
                SourceLocation::current()));
        }
        return mLoaded;
    }

    nvinfer1::ILogger& mLogger;
    int mVerbosity{static_cast<int>(nvinfer1::ILogger::Severity::kVERBOSE)};
    std::deque<ParserError> mErrors;
    std::shared_ptr<::onnx::ModelProto> mLoaded;
    std::string mLoadedPath;
};

class Parser final : public nvonnxparser::IParser, private ParserBase
{
public:
    Parser(nvinfer1::INetworkDefinition& network, nvinfer1::ILogger& logger)
        : ParserBase(logger)
        , mNetwork(network)
    {
    }

    bool parse(void const* model, size_t size, char const* modelPath) noexcept override
    {
        return guarded([&] { return parseBytes(model, size, modelPath); });
    }

    bool parseFromFile(char const* file, int verbosity) noexcept override
    {
        return guarded([&] {
            mVerbosity = verbosity;
            std::optional<std::string> const bytes = readFile("parseFromFile", file);
            return bytes && parseBytes(bytes->data(), bytes->size(), file);
        });
    }

    bool supportsModel(
        void const* model, size_t size, SubGraphCollection_t& collection, char const* modelPath) noexcept override
    {
        return guarded([&] {
            bool supported = supportsModelV2(model, size, modelPath);
            collection.clear();
            for (auto const& run : mRuns)
            {
                collection.emplace_back(run.first, run.second);
            }
            return supported;
        });
    }

    bool parseWithWeightDescriptors(void const* model, size_t size) noexcept override
    {
        return parse(model, size, nullptr);
    }

    bool supportsOperator(char const* opName) const noexcept override
    {
        return opName != nullptr && builtinOps().supports(opName);
    }

    int getNbErrors() const noexcept override { return static_cast<int>(mErrors.size()); }

    IParserError const* getError(int index) const noexcept override
    {
        return index >= 0 && index < static_cast<int>(mErrors.size()) ? &mErrors[static_cast<size_t>(index)] : nullptr;
    }

    void clearErrors() noexcept override { mErrors.clear(); }

    //! The plugin libraries (paths) the creators of the last parse's plugin layers come from, as TensorRT's parser
    //! lists the libraries its plugin-backed importers need.
    char const* const* getUsedVCPluginLibraries(int64_t& nbPluginLibs) const noexcept override
    {
        std::vector<char const*> const* used = mContexts.empty() ? nullptr : &mContexts.back()->pluginLibraries();
        nbPluginLibs = used != nullptr ? static_cast<int64_t>(used->size()) : 0;
        return nbPluginLibs > 0 ? used->data() : nullptr;
    }

    void setFlags(OnnxParserFlags flags) noexcept override { mFlags = flags; }
    OnnxParserFlags getFlags() const noexcept override { return mFlags; }
    void clearFlag(OnnxParserFlag flag) noexcept override { mFlags &= ~bit(flag); }
    void setFlag(OnnxParserFlag flag) noexcept override { mFlags |= bit(flag); }
    bool getFlag(OnnxParserFlag flag) const noexcept override { return (mFlags & bit(flag)) != 0; }

    nvinfer1::ITensor const* getLayerOutputTensor(char const* name, int64_t i) noexcept override
    {
        if (name == nullptr || i < 0)
        {
            return nullptr;
        }
        for (int32_t l = 0; l < mNetwork.getNbLayers(); ++l)
        {
            nvinfer1::ILayer* layer = mNetwork.getLayer(l);
            if (layer != nullptr && std::string_view(layer->getName()) == name && i < layer->getNbOutputs())
            {
                return layer->getOutput(static_cast<int32_t>(i));
            }
        }
        return nullptr;
    }

    bool supportsModelV2(void const* model, size_t size, char const* modelPath) noexcept override
    {
        return guarded([&] {
            mRuns.clear();
            auto proto = readProto(model, size);
            if (proto == nullptr)
            {
                return false;
            }
            ImportContext scratch(mNetwork, mLogger, mFlags);
            setFolder(scratch, modelPath);
            mRuns = partitionModel(scratch, *proto);
            bool all = true;
            for (auto const& run : mRuns)
            {
                all = all && run.second;
            }
            return all;
        });
    }

    int64_t getNbSubgraphs() noexcept override { return static_cast<int64_t>(mRuns.size()); }

    bool isSubgraphSupported(int64_t const index) noexcept override
    {
        return index >= 0 && index < getNbSubgraphs() && mRuns[static_cast<size_t>(index)].second;
    }

    int64_t* getSubgraphNodes(int64_t const index, int64_t& length) noexcept override
    {
        length = 0;
        if (index < 0 || index >= getNbSubgraphs())
        {
            return nullptr;
        }
        auto const& nodes = mRuns[static_cast<size_t>(index)].first;
        mNodeList.assign(nodes.begin(), nodes.end());
        length = static_cast<int64_t>(mNodeList.size());
        return mNodeList.data();
    }

    bool loadModelProto(void const* model, size_t size, char const* modelPath) noexcept override
    {
        return guarded([&] { return loadModel(model, size, modelPath); });
    }

    bool loadInitializer(char const* name, void const* data, size_t size) noexcept override
    {
        return guarded([&] { return replaceInitializer(name, data, size); });
    }

    bool parseModelProto() noexcept override
    {
        return guarded([&] {
            auto const model = loaded("parseModelProto");
            return model != nullptr && parseProto(model, loadedPath());
        });
    }

    bool setBuilderConfig(nvinfer1::IBuilderConfig const* const) noexcept override { return true; }

private:
    static OnnxParserFlags bit(OnnxParserFlag flag) { return 1U << static_cast<uint32_t>(flag); }

    bool parseBytes(void const* model, size_t size, char const* modelPath)
    {
        auto proto = readProto(model, size);
        return proto != nullptr && parseProto(proto, modelPath);
    }

    bool parseProto(std::shared_ptr<::onnx::ModelProto> proto, char const* modelPath)
    {
        if (mNetwork.getNbLayers() != 0 || mNetwork.getNbInputs() != 0)
        {
            record(failureAt(ErrorCode::kINVALID_VALUE, "Parse was called with a non-empty network definition",
                SourceLocation::current()));
            return false;
        }
        // Every context stays alive with the parser: the network's constants point into weights it owns.
        mContexts.push_back(std::make_unique<ImportContext>(mNetwork, mLogger, mFlags));
        ImportContext& ctx = *mContexts.back();
        ctx.keep(proto);
        setFolder(ctx, modelPath);
        std::vector<Failure> failures = importModel(ctx, *proto);
        for (Failure& failure : failures)
        {
            record(std::move(failure));
        }
        return failures.empty();
    }

    nvinfer1::INetworkDefinition& mNetwork;
    OnnxParserFlags mFlags{1U << static_cast<uint32_t>(OnnxParserFlag::kNATIVE_INSTANCENORM)};
    std::vector<std::unique_ptr<ImportContext>> mContexts;
    std::vector<std::pair<std::vector<size_t>, bool>> mRuns;
    std::vector<int64_t> mNodeList;
};

//! nvonnxparser::IParserRefitter: gives an IRefitter the values of the initializers (and Constant nodes' tensors) of
//! an ONNX model whose names the engine's refittable weights carry, converted as the parser converts them, then
//! refits. The parser names weights after the initializers that reach the network unchanged (constant layers, Conv
//! and ConvTranspose weights: ImportContext::nameWeights); weights an importer made from an initializer some other
//! way are not refitted from the model (refit them by layer and role).
class ParserRefitter final : public nvonnxparser::IParserRefitter, private ParserBase
{
public:
    ParserRefitter(nvinfer1::IRefitter& refitter, nvinfer1::ILogger& logger)
        : ParserBase(logger)
        , mRefitter(refitter)
    {
    }

    bool refitFromBytes(void const* model, size_t size, char const* modelPath) noexcept override
    {
        return guarded([&] {
            auto proto = readProto(model, size);
            return proto != nullptr && refit(*proto, modelPath);
        });
    }

    bool refitFromFile(char const* file) noexcept override
    {
        return guarded([&] {
            std::optional<std::string> const bytes = readFile("refitFromFile", file);
            auto proto = bytes ? readProto(bytes->data(), bytes->size()) : nullptr;
            return proto != nullptr && refit(*proto, file);
        });
    }

    int32_t getNbErrors() const noexcept override { return static_cast<int32_t>(mErrors.size()); }

    IParserError const* getError(int32_t index) const noexcept override
    {
        return index >= 0 && index < getNbErrors() ? &mErrors[static_cast<size_t>(index)] : nullptr;
    }

    void clearErrors() override { mErrors.clear(); }

    bool loadModelProto(void const* model, size_t size, char const* modelPath) noexcept override
    {
        return guarded([&] { return loadModel(model, size, modelPath); });
    }

    bool loadInitializer(char const* name, void const* data, size_t size) noexcept override
    {
        return guarded([&] { return replaceInitializer(name, data, size); });
    }

    bool refitModelProto() noexcept override
    {
        return guarded([&] {
            auto const model = loaded("refitModelProto");
            return model != nullptr && refit(*model, loadedPath());
        });
    }

private:
    void refused(std::string desc)
    {
        record(failureAt(ErrorCode::kREFIT_FAILED, std::move(desc), SourceLocation::current()));
    }

    //! Gives the refitter the values of the tensors of model named as the engine's refittable weights, then refits.
    bool refit(::onnx::ModelProto const& model, char const* modelPath)
    {
        // importTensor converts through an import context, which needs a network; a scratch one that stays empty.
        std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(mLogger)};
        std::unique_ptr<nvinfer1::INetworkDefinition> network{
            builder != nullptr ? builder->createNetworkV2(0) : nullptr};
        if (network == nullptr)
        {
            refused("cannot make the scratch network the import of the model's tensors needs");
            return false;
        }
        ImportContext ctx(*network, mLogger, 0);
        setFolder(ctx, modelPath);
        int32_t const count = std::max(mRefitter.getAllWeights(0, nullptr), 0);
        std::vector<char const*> names(static_cast<size_t>(count));
        mRefitter.getAllWeights(count, names.data());
        std::set<std::string> wanted(names.begin(), names.end());
        std::set<std::string> given;
        std::vector<std::string> unused; // The model's tensors the engine holds no weights of that name for.
        bool ok = true;
        auto const offer = [&](::onnx::TensorProto const& tensor, std::string const& name) {
            if (wanted.count(name) == 0)
            {
                unused.push_back(name);
                return;
            }
            if (given.count(name) != 0)
            {
                return;
            }
            ShapedWeights const weights = importTensor(ctx, tensor);
            nvinfer1::Weights const prototype = mRefitter.getWeightsPrototype(name.c_str());
            if (weights.type != prototype.type || weights.count != prototype.count)
            {
                refused(concat("initializer '", name, "' has ", weights.count, " elements of type ",
                    static_cast<int>(weights.type), "; the engine's weights of that name take ", prototype.count,
                    " elements of type ", static_cast<int>(prototype.type)));
                ok = false;
                return;
            }
            if (!mRefitter.setNamedWeights(name.c_str(), weights.api()))
            {
                refused(concat("the refitter refused initializer '", name, "'; the log says why"));
                ok = false;
                return;
            }
            given.insert(name);
        };
        for (::onnx::TensorProto const& initializer : model.graph().initializer())
        {
            offer(initializer, initializer.name());
        }
        for (::onnx::NodeProto const& node : model.graph().node())
        {
            for (::onnx::AttributeProto const& attribute : node.attribute())
            {
                if (node.op_type() == "Constant" && node.output_size() > 0 && attribute.name() == "value"
                    && attribute.has_t())
                {
                    offer(attribute.t(), node.output(0));
                }
            }
        }
        for (std::string const& name : wanted)
        {
            if (given.count(name) == 0)
            {
                refused(
                    concat("the engine refits weights '", name, "', but the model has no initializer of that name"));
                ok = false;
            }
        }
        // The values given point into model (or the files it maps), which the caller frees when this returns: on
        // failure the refitter must not keep them for a later refitCudaEngine.
        auto const withdraw = [&] {
            for (std::string const& name : given)
            {
                if (mRefitter.getNamedWeights(name.c_str()).values != nullptr)
                {
                    mRefitter.unsetNamedWeights(name.c_str());
                }
            }
        };
        if (!ok)
        {
            withdraw();
            return false;
        }
        if (!unused.empty())
        {
            // Nothing is dropped silently: these keep the values the engine was built with.
            std::string list;
            for (std::size_t i = 0; i < unused.size() && i < 16; ++i)
            {
                list += (i == 0 ? "'" : ", '") + unused[i] + "'";
            }
            log(nvinfer1::ILogger::Severity::kWARNING,
                concat("refit: ", unused.size(),
                    " tensor(s) of the model are not refittable weights of the engine by "
                    "name, so they keep the values the engine was built with (an importer transformed them, the "
                    "engine was built without them refittable, or they became shapes): ",
                    list, unused.size() > 16 ? ", ..." : "",
                    "; refit those by layer and role with IRefitter::setWeights"));
        }
        if (!mRefitter.refitCudaEngine())
        {
            withdraw();
            refused("IRefitter::refitCudaEngine failed; the log says why");
            return false;
        }
        return true;
    }

    nvinfer1::IRefitter& mRefitter;
};

class OnnxConfig final : public nvonnxparser::IOnnxConfig
{
public:
    void setModelDtype(nvinfer1::DataType type) noexcept override { mType = type; }
    nvinfer1::DataType getModelDtype() const noexcept override { return mType; }
    char const* getModelFileName() const noexcept override { return mModel.c_str(); }
    void setModelFileName(char const* name) noexcept override { mModel = name != nullptr ? name : ""; }
    Verbosity getVerbosityLevel() const noexcept override { return mVerbosity; }
    void addVerbosity() noexcept override { ++mVerbosity; }
    void reduceVerbosity() noexcept override { --mVerbosity; }
    void setVerbosityLevel(Verbosity verbosity) noexcept override { mVerbosity = verbosity; }
    char const* getTextFileName() const noexcept override { return mText.c_str(); }
    void setTextFileName(char const* name) noexcept override { mText = name != nullptr ? name : ""; }
    char const* getFullTextFileName() const noexcept override { return mFullText.c_str(); }
    void setFullTextFileName(char const* name) noexcept override { mFullText = name != nullptr ? name : ""; }
    bool getPrintLayerInfo() const noexcept override { return mPrintLayerInfo; }
    void setPrintLayerInfo(bool print) noexcept override { mPrintLayerInfo = print; }

private:
    nvinfer1::DataType mType{nvinfer1::DataType::kFLOAT};
    std::string mModel;
    std::string mText;
    std::string mFullText;
    Verbosity mVerbosity{static_cast<Verbosity>(nvinfer1::ILogger::Severity::kWARNING)};
    bool mPrintLayerInfo{false};
};

} // namespace

} // namespace kiln::onnx_import

extern "C" TENSORRTAPI void* createNvOnnxParser_INTERNAL(void* network, void* logger, int version) noexcept
{
    if (network == nullptr || logger == nullptr || version / 100 != NV_ONNX_PARSER_VERSION / 100)
    {
        return nullptr;
    }
    try
    {
        return static_cast<nvonnxparser::IParser*>(new kiln::onnx_import::Parser(
            *static_cast<nvinfer1::INetworkDefinition*>(network), *static_cast<nvinfer1::ILogger*>(logger)));
    }
    catch (...)
    {
        return nullptr;
    }
}

extern "C" TENSORRTAPI void* createNvOnnxParserRefitter_INTERNAL(void* refitter, void* logger, int32_t version) noexcept
{
    if (refitter == nullptr || logger == nullptr || version / 100 != NV_ONNX_PARSER_VERSION / 100)
    {
        return nullptr;
    }
    try
    {
        return static_cast<nvonnxparser::IParserRefitter*>(new kiln::onnx_import::ParserRefitter(
            *static_cast<nvinfer1::IRefitter*>(refitter), *static_cast<nvinfer1::ILogger*>(logger)));
    }
    catch (...)
    {
        return nullptr;
    }
}

extern "C" TENSORRTAPI int getNvOnnxParserVersion() noexcept
{
    return NV_ONNX_PARSER_VERSION;
}

namespace nvonnxparser
{
TENSORRTAPI IOnnxConfig* createONNXConfig()
{
    return new (std::nothrow) kiln::onnx_import::OnnxConfig();
}
} // namespace nvonnxparser
