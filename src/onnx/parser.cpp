// SPDX-License-Identifier: Apache-2.0
// nvonnxparser::IParser: parses ONNX models into the network it was made for, and reports errors as IParserError
// records. The work is in model_importer.cpp; this file holds the API object, the error records and the library's
// entry points.
#include "onnx/model_importer.h"

#include "NvOnnxConfig.h"
#include "NvOnnxParser.h"

#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>

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

class Parser final : public nvonnxparser::IParser
{
public:
    Parser(nvinfer1::INetworkDefinition& network, nvinfer1::ILogger& logger)
        : mNetwork(network)
        , mLogger(logger)
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
            if (file == nullptr)
            {
                record(failureAt(ErrorCode::kINVALID_VALUE, "parseFromFile: the file name is null",
                    std::source_location::current()));
                return false;
            }
            std::ifstream in(file, std::ios::binary);
            if (!in)
            {
                record(failureAt(ErrorCode::kINVALID_VALUE, concat("cannot open the ONNX model file '", file, "'"),
                    std::source_location::current()));
                return false;
            }
            std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            log(nvinfer1::ILogger::Severity::kINFO, concat("parsing ", file, " (", bytes.size(), " bytes)"));
            return parseBytes(bytes.data(), bytes.size(), file);
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

    char const* const* getUsedVCPluginLibraries(int64_t& nbPluginLibs) const noexcept override
    {
        nbPluginLibs = 0;
        return nullptr;
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
            auto proto = std::make_shared<::onnx::ModelProto>();
            if (auto failure = readModel(model, size, *proto))
            {
                record(*failure);
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
        return guarded([&] {
            auto proto = std::make_shared<::onnx::ModelProto>();
            if (auto failure = readModel(model, size, *proto))
            {
                record(*failure);
                return false;
            }
            mLoaded = proto;
            mLoadedPath = modelPath != nullptr ? modelPath : "";
            return true;
        });
    }

    bool loadInitializer(char const* name, void const* data, size_t size) noexcept override
    {
        return guarded([&] {
            if (!mLoaded || name == nullptr || (data == nullptr && size != 0))
            {
                record(failureAt(ErrorCode::kINVALID_VALUE,
                    "loadInitializer needs a model from loadModelProto, a name and data",
                    std::source_location::current()));
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
                std::source_location::current()));
            return false;
        });
    }

    bool parseModelProto() noexcept override
    {
        return guarded([&] {
            if (!mLoaded)
            {
                record(failureAt(ErrorCode::kINVALID_VALUE, "parseModelProto needs a model from loadModelProto",
                    std::source_location::current()));
                return false;
            }
            return parseProto(mLoaded, mLoadedPath.empty() ? nullptr : mLoadedPath.c_str());
        });
    }

    bool setBuilderConfig(nvinfer1::IBuilderConfig const* const) noexcept override { return true; }

private:
    static OnnxParserFlags bit(OnnxParserFlag flag) { return 1U << static_cast<uint32_t>(flag); }

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
            record(failureAt(ErrorCode::kINTERNAL_ERROR, error.what(), std::source_location::current()));
        }
        catch (...)
        {
            record(failureAt(ErrorCode::kINTERNAL_ERROR, "unknown exception", std::source_location::current()));
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

    bool parseBytes(void const* model, size_t size, char const* modelPath)
    {
        auto proto = std::make_shared<::onnx::ModelProto>();
        if (auto failure = readModel(model, size, *proto))
        {
            record(*failure);
            return false;
        }
        return parseProto(proto, modelPath);
    }

    bool parseProto(std::shared_ptr<::onnx::ModelProto> proto, char const* modelPath)
    {
        if (mNetwork.getNbLayers() != 0 || mNetwork.getNbInputs() != 0)
        {
            record(failureAt(ErrorCode::kINVALID_VALUE, "Parse was called with a non-empty network definition",
                std::source_location::current()));
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
    nvinfer1::ILogger& mLogger;
    OnnxParserFlags mFlags{1U << static_cast<uint32_t>(OnnxParserFlag::kNATIVE_INSTANCENORM)};
    int mVerbosity{static_cast<int>(nvinfer1::ILogger::Severity::kVERBOSE)};
    std::deque<ParserError> mErrors;
    std::vector<std::unique_ptr<ImportContext>> mContexts;
    std::vector<std::pair<std::vector<size_t>, bool>> mRuns;
    std::vector<int64_t> mNodeList;
    std::shared_ptr<::onnx::ModelProto> mLoaded;
    std::string mLoadedPath;
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

extern "C" TENSORRTAPI void* createNvOnnxParserRefitter_INTERNAL(void* refitter, void* logger, int32_t) noexcept
{
    // Refitting from a model would have to replay what the importers made of each initializer (transposes, casts,
    // folded normalizations); that is not done yet. The engine's IRefitter takes the initializers by name.
    if (logger != nullptr)
    {
        static_cast<nvinfer1::ILogger*>(logger)->log(nvinfer1::ILogger::Severity::kERROR,
            "[kiln onnx] createParserRefitter: kiln's ONNX parser cannot refit from a model yet; give the new "
            "initializers to the IRefitter by name instead (IRefitter::setNamedWeights: the parser names weights "
            "after their initializers)");
    }
    (void)refitter;
    return nullptr;
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
