// SPDX-License-Identifier: Apache-2.0
// V2 plugins for the engine's plugin tests, one class per API level (IPluginV2, IPluginV2Ext, IPluginV2IOExt,
// IPluginV2DynamicExt), that log every call the engine makes with its arguments and really compute, plus their V2
// creator (IPluginCreator) and their host runner (kiln::IPluginV2HostRunner). They share recording_v3.h's Journal:
// the log, the count of objects alive, and the Script whose `failing` says which calls fail ("clone",
// "deserializePlugin", "initialize", "enqueueHost", "getSerializationSize") and whose `formats` lists the formats
// accepted (empty: kLINEAR only; supportsFormatCombination also wants the outputs in input 0's format).
//
// Every level computes y = x * scale on FLOAT tensors of any shape, y having x's shape; the plugin serializes its
// scale (a field at creation) and the innermost extent its configure call saw, and the host runner refuses (status 2)
// a run whose innermost extent differs from that, so a plan's deserialized plugin proves it got the configured state.
// Objects are named by their origin: the creator's objects "user1" (createPlugin) and "runtime1"
// (deserializePlugin), a clone of "x" is "x.1", "x.2"...; levels 0 to 2 log dims as they see them (no batch).
//
//     auto journal = std::make_shared<Journal>();
//     RecordingV2Creator creator(journal, 2);                      // "RecordingV2IOExt" version "1"
//     RecordingV2Runner runner(2);                                 // kilnRegisterPluginV2HostRunner(..., &runner)
//     nvinfer1::IPluginV2* plugin = creator.createPlugin("p", &fields);
//     journal->calls("user1.1");                                   // the network's clone: {"getNbOutputs()", ...}
#pragma once

#include "support/recording_v3.h"

#include "NvInfer.h"
#include "kiln/plugin_host.h"

#include <array>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>

namespace kiln::test
{

constexpr std::array<char const*, 4> kRecordingV2Names{
    "RecordingV2", "RecordingV2Ext", "RecordingV2IOExt", "RecordingV2DynamicExt"};
constexpr char const* kRecordingV2Version = "1";
constexpr int64_t kRecordingV2Workspace = 16;

inline std::string text(nvinfer1::DataType type)
{
    return std::to_string(static_cast<int32_t>(type));
}

//! What every level shares: identity, lifetime, serialization, initialize/terminate, and the computation.
template <typename Base>
class RecordingV2Common : public Base
{
public:
    RecordingV2Common(std::shared_ptr<Journal> journal, int32_t level, std::string const& prefix, float scale)
        : mJournal(std::move(journal))
        , mLevel(level)
        , mId(mJournal->newId(prefix))
        , mScale(scale)
    {
    }
    RecordingV2Common(RecordingV2Common const&) = delete;
    RecordingV2Common& operator=(RecordingV2Common const&) = delete;

    std::string const& id() const { return mId; }
    void restore(int64_t extent) { mExtent = extent; }

    char const* getPluginType() const noexcept override { return kRecordingV2Names[static_cast<std::size_t>(mLevel)]; }
    char const* getPluginVersion() const noexcept override { return kRecordingV2Version; }
    char const* getPluginNamespace() const noexcept override { return kRecordingNamespace; }
    void setPluginNamespace(char const* pluginNamespace) noexcept override
    {
        log(std::string("setPluginNamespace(") + pluginNamespace + ")");
    }
    int32_t getNbOutputs() const noexcept override
    {
        log("getNbOutputs()");
        return 1;
    }
    int32_t initialize() noexcept override
    {
        log("initialize()");
        return fails("initialize") ? 1 : 0;
    }
    void terminate() noexcept override { log("terminate()"); }
    size_t getSerializationSize() const noexcept override
    {
        log("getSerializationSize()");
        return fails("getSerializationSize") ? (std::size_t{1} << 30U) + 1 : sizeof(float) + sizeof(int64_t);
    }
    void serialize(void* buffer) const noexcept override
    {
        log("serialize()");
        auto* bytes = static_cast<char*>(buffer);
        std::memcpy(bytes, &mScale, sizeof(float));
        std::memcpy(bytes + sizeof(float), &mExtent, sizeof(int64_t));
    }
    void destroy() noexcept override
    {
        log("destroy()");
        delete this;
    }

    //! The host runner's work: y = x * scale, after checking the configured extent.
    int32_t runHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace)
    {
        log("enqueueHost(" + text(inputDesc[0]) + " -> " + text(outputDesc[0]) + ","
            + (workspace != nullptr ? "workspace" : "none") + ")");
        if (fails("enqueueHost"))
        {
            return 1;
        }
        nvinfer1::Dims const& dims = inputDesc[0].dims;
        if (dims.nbDims < 1 || dims.d[dims.nbDims - 1] != mExtent)
        {
            log("refused: configured for " + std::to_string(mExtent));
            return 2;
        }
        int64_t count = 1;
        for (int32_t i = 0; i < dims.nbDims; ++i)
        {
            count *= dims.d[i];
        }
        auto const* in = static_cast<float const*>(inputs[0]);
        auto* out = static_cast<float*>(outputs[0]);
        for (int64_t i = 0; i < count; ++i)
        {
            out[i] = in[i] * mScale;
        }
        return 0;
    }

protected:
    ~RecordingV2Common() override { mJournal->died(); }

    void log(std::string const& call) const { mJournal->log(mId, call); }
    bool fails(std::string const& method) const { return mJournal->script.failing.count(method) != 0; }
    bool accepts(nvinfer1::TensorFormat format) const
    {
        auto const& formats = mJournal->script.formats;
        return formats.empty() ? format == nvinfer1::TensorFormat::kLINEAR : formats.count(format) != 0;
    }
    //! What supportsFormatCombination accepts: FLOAT in a format of the script; outputs in input 0's format (the
    //! computation is elementwise, so any one layout will do).
    bool accepted(int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs) const
    {
        nvinfer1::PluginTensorDesc const& desc = inOut[pos];
        return desc.type == nvinfer1::DataType::kFLOAT && accepts(desc.format)
            && (pos < nbInputs || desc.format == inOut[0].format);
    }
    //! A clone: logged here, made by the level's class.
    template <typename Self>
    Self* copyOf() const
    {
        log("clone()");
        if (fails("clone"))
        {
            return nullptr;
        }
        auto* made = new Self(mJournal, mId + ".", mScale);
        made->restore(mExtent);
        return made;
    }
    //! "(4)", the dims of a configure call.
    static std::string dimsText(nvinfer1::Dims const* dims, int32_t count)
    {
        std::string out;
        for (int32_t i = 0; i < count; ++i)
        {
            out += (i == 0 ? "" : " ") + text(dims[i]);
        }
        return out;
    }

    std::shared_ptr<Journal> mJournal;
    int32_t mLevel;
    std::string mId;
    float mScale;
    int64_t mExtent{-1}; //!< The innermost extent of input 0 at the last configure call.
};

//! The Dims-based methods levels 0 to 2 share (dims without the batch dimension).
template <typename Base>
class RecordingV2Implicit : public RecordingV2Common<Base>
{
public:
    using RecordingV2Common<Base>::RecordingV2Common;

    nvinfer1::Dims getOutputDimensions(
        int32_t index, nvinfer1::Dims const* inputs, int32_t nbInputDims) noexcept override
    {
        this->log("getOutputDimensions(" + std::to_string(index) + "," + this->dimsText(inputs, nbInputDims) + ")");
        return inputs[0];
    }
    size_t getWorkspaceSize(int32_t maxBatchSize) const noexcept override
    {
        this->log("getWorkspaceSize(" + std::to_string(maxBatchSize) + ")");
        return kRecordingV2Workspace;
    }
    int32_t enqueue(int32_t batchSize, void const* const*, void* const*, void*, cudaStream_t) noexcept override
    {
        this->log("enqueue(" + std::to_string(batchSize) + ")");
        return 1; // The host backend must use the host runner.
    }
};

//! IPluginV2Ext's additions that levels 1 and 2 share.
template <typename Base>
class RecordingV2Ext : public RecordingV2Implicit<Base>
{
public:
    using RecordingV2Implicit<Base>::RecordingV2Implicit;

    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override
    {
        this->log("getOutputDataType(" + std::to_string(index) + "," + std::to_string(nbInputs) + ")");
        return inputTypes[0];
    }
    bool isOutputBroadcastAcrossBatch(int32_t outputIndex, bool const*, int32_t) const noexcept override
    {
        this->log("isOutputBroadcastAcrossBatch(" + std::to_string(outputIndex) + ")");
        return false;
    }
    bool canBroadcastInputAcrossBatch(int32_t inputIndex) const noexcept override
    {
        this->log("canBroadcastInputAcrossBatch(" + std::to_string(inputIndex) + ")");
        return false;
    }
    void attachToContext(
        cudnnContext* cudnn, cublasContext* cublas, nvinfer1::IGpuAllocator* allocator) noexcept override
    {
        auto const pointer = [](void const* p) { return std::string(p != nullptr ? "set" : "null"); };
        this->log("attachToContext(" + pointer(cudnn) + "," + pointer(cublas) + "," + pointer(allocator) + ")");
    }
    void detachFromContext() noexcept override { this->log("detachFromContext()"); }
};

//! Level 0: IPluginV2.
class RecordingV2Plugin final : public RecordingV2Implicit<nvinfer1::IPluginV2>
{
public:
    static constexpr int32_t kLevel = 0;
    RecordingV2Plugin(std::shared_ptr<Journal> journal, std::string const& prefix, float scale)
        : RecordingV2Implicit(std::move(journal), kLevel, prefix, scale)
    {
    }

    bool supportsFormat(nvinfer1::DataType type, nvinfer1::PluginFormat format) const noexcept override
    {
        log("supportsFormat(" + text(type) + "/" + std::to_string(static_cast<int32_t>(format)) + ")");
        return type == nvinfer1::DataType::kFLOAT && accepts(format);
    }
    void configureWithFormat(nvinfer1::Dims const* inputDims, int32_t nbInputs, nvinfer1::Dims const* outputDims,
        int32_t nbOutputs, nvinfer1::DataType type, nvinfer1::PluginFormat format,
        int32_t maxBatchSize) noexcept override
    {
        log("configureWithFormat(" + dimsText(inputDims, nbInputs) + " -> " + dimsText(outputDims, nbOutputs) + ","
            + text(type) + "/" + std::to_string(static_cast<int32_t>(format)) + "," + std::to_string(maxBatchSize)
            + ")");
        mExtent = inputDims[0].d[inputDims[0].nbDims - 1];
    }
    nvinfer1::IPluginV2* clone() const noexcept override { return copyOf<RecordingV2Plugin>(); }
};

//! Level 1: IPluginV2Ext.
class RecordingV2ExtPlugin final : public RecordingV2Ext<nvinfer1::IPluginV2Ext>
{
public:
    static constexpr int32_t kLevel = 1;
    RecordingV2ExtPlugin(std::shared_ptr<Journal> journal, std::string const& prefix, float scale)
        : RecordingV2Ext(std::move(journal), kLevel, prefix, scale)
    {
    }

    bool supportsFormat(nvinfer1::DataType type, nvinfer1::PluginFormat format) const noexcept override
    {
        log("supportsFormat(" + text(type) + "/" + std::to_string(static_cast<int32_t>(format)) + ")");
        return type == nvinfer1::DataType::kFLOAT && accepts(format);
    }
    void configurePlugin(nvinfer1::Dims const* inputDims, int32_t nbInputs, nvinfer1::Dims const* outputDims,
        int32_t nbOutputs, nvinfer1::DataType const* inputTypes, nvinfer1::DataType const* outputTypes,
        bool const* inputIsBroadcast, bool const* outputIsBroadcast, nvinfer1::PluginFormat floatFormat,
        int32_t maxBatchSize) noexcept override
    {
        log("configurePlugin(" + dimsText(inputDims, nbInputs) + ":" + text(inputTypes[0]) + ":"
            + (inputIsBroadcast[0] ? "b" : "-") + " -> " + dimsText(outputDims, nbOutputs) + ":" + text(outputTypes[0])
            + ":" + (outputIsBroadcast[0] ? "b" : "-") + "," + std::to_string(static_cast<int32_t>(floatFormat)) + ","
            + std::to_string(maxBatchSize) + ")");
        mExtent = inputDims[0].d[inputDims[0].nbDims - 1];
    }
    nvinfer1::IPluginV2Ext* clone() const noexcept override { return copyOf<RecordingV2ExtPlugin>(); }
};

//! Level 2: IPluginV2IOExt.
class RecordingV2IOExtPlugin final : public RecordingV2Ext<nvinfer1::IPluginV2IOExt>
{
public:
    static constexpr int32_t kLevel = 2;
    RecordingV2IOExtPlugin(std::shared_ptr<Journal> journal, std::string const& prefix, float scale)
        : RecordingV2Ext(std::move(journal), kLevel, prefix, scale)
    {
    }

    void configurePlugin(nvinfer1::PluginTensorDesc const* in, int32_t nbInput, nvinfer1::PluginTensorDesc const* out,
        int32_t nbOutput) noexcept override
    {
        log("configurePlugin(" + text(in, nbInput) + " -> " + text(out, nbOutput) + ")");
        mExtent = in[0].dims.d[in[0].dims.nbDims - 1];
    }
    bool supportsFormatCombination(int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs) const noexcept override
    {
        log("supportsFormatCombination(" + std::to_string(pos) + "," + std::to_string(nbInputs) + ","
            + std::to_string(nbOutputs) + "," + text(inOut[pos]) + ")");
        return accepted(pos, inOut, nbInputs);
    }
    nvinfer1::IPluginV2IOExt* clone() const noexcept override { return copyOf<RecordingV2IOExtPlugin>(); }
};

//! Level 3: IPluginV2DynamicExt.
class RecordingV2DynamicPlugin final : public RecordingV2Common<nvinfer1::IPluginV2DynamicExt>
{
public:
    static constexpr int32_t kLevel = 3;
    RecordingV2DynamicPlugin(std::shared_ptr<Journal> journal, std::string const& prefix, float scale)
        : RecordingV2Common(std::move(journal), kLevel, prefix, scale)
    {
    }

    nvinfer1::IPluginV2DynamicExt* clone() const noexcept override { return copyOf<RecordingV2DynamicPlugin>(); }
    nvinfer1::DimsExprs getOutputDimensions(int32_t outputIndex, nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::IExprBuilder&) noexcept override
    {
        log("getOutputDimensions(" + std::to_string(outputIndex) + "," + std::to_string(nbInputs) + ")");
        return inputs[0];
    }
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept override
    {
        log("supportsFormatCombination(" + std::to_string(pos) + "," + std::to_string(nbInputs) + ","
            + std::to_string(nbOutputs) + "," + text(inOut[pos]) + ")");
        return accepted(pos, inOut, nbInputs);
    }
    void configurePlugin(nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept override
    {
        log("configurePlugin(" + text(in, nbInputs) + " -> " + text(out, nbOutputs) + ")");
        mExtent = in[0].desc.dims.d[in[0].desc.dims.nbDims - 1];
    }
    size_t getWorkspaceSize(nvinfer1::PluginTensorDesc const* inputs, int32_t nbInputs,
        nvinfer1::PluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept override
    {
        log("getWorkspaceSize(" + text(inputs, nbInputs) + " -> " + text(outputs, nbOutputs) + ")");
        return kRecordingV2Workspace;
    }
    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const*, void const* const*,
        void* const*, void*, cudaStream_t) noexcept override
    {
        log("enqueue(" + text(inputDesc[0]) + ")");
        return 1; // The host backend must use the host runner.
    }
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override
    {
        log("getOutputDataType(" + std::to_string(index) + "," + std::to_string(nbInputs) + ")");
        return inputTypes[0];
    }
    void attachToContext(
        cudnnContext* cudnn, cublasContext* cublas, nvinfer1::IGpuAllocator* allocator) noexcept override
    {
        auto const pointer = [](void const* p) { return std::string(p != nullptr ? "set" : "null"); };
        log("attachToContext(" + pointer(cudnn) + "," + pointer(cublas) + "," + pointer(allocator) + ")");
    }
    void detachFromContext() noexcept override { log("detachFromContext()"); }
};

//! Calls f with a null pointer of the plugin class of level (to pick the type).
template <typename F>
decltype(auto) withLevel(int32_t level, F&& f)
{
    switch (level)
    {
    case 0: return f(static_cast<RecordingV2Plugin*>(nullptr));
    case 1: return f(static_cast<RecordingV2ExtPlugin*>(nullptr));
    case 2: return f(static_cast<RecordingV2IOExtPlugin*>(nullptr));
    default: return f(static_cast<RecordingV2DynamicPlugin*>(nullptr));
    }
}

//! The V2 creator of the recording plugin of one level; field "scale" (kFLOAT32, default 1).
class RecordingV2Creator final : public nvinfer1::IPluginCreator
{
public:
    RecordingV2Creator(std::shared_ptr<Journal> journal, int32_t level)
        : mJournal(std::move(journal))
        , mLevel(level)
    {
        mFieldNames[0] = nvinfer1::PluginField{"scale", nullptr, nvinfer1::PluginFieldType::kFLOAT32, 1};
        mNames.nbFields = 1;
        mNames.fields = mFieldNames;
    }

    char const* getPluginName() const noexcept override { return kRecordingV2Names[static_cast<std::size_t>(mLevel)]; }
    char const* getPluginVersion() const noexcept override { return kRecordingV2Version; }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override { return &mNames; }
    nvinfer1::IPluginV2* createPlugin(char const* name, nvinfer1::PluginFieldCollection const* fc) noexcept override
    {
        float scale = 1.0F;
        for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
        {
            if (std::strcmp(fc->fields[i].name, "scale") == 0 && fc->fields[i].length == 1)
            {
                std::memcpy(&scale, fc->fields[i].data, sizeof(float));
            }
        }
        mJournal->log("creator", std::string("createPlugin(") + name + ",scale=" + std::to_string(scale) + ")");
        return make("user", scale, -1);
    }
    nvinfer1::IPluginV2* deserializePlugin(
        char const* name, void const* serialData, size_t serialLength) noexcept override
    {
        float scale = 0.0F;
        int64_t extent = -1;
        bool const fits = serialLength == sizeof(float) + sizeof(int64_t);
        if (fits)
        {
            std::memcpy(&scale, serialData, sizeof(float));
            std::memcpy(&extent, static_cast<char const*>(serialData) + sizeof(float), sizeof(int64_t));
        }
        mJournal->log("creator",
            std::string("deserializePlugin(") + name + "," + std::to_string(serialLength)
                + " bytes,scale=" + std::to_string(scale) + ",extent=" + std::to_string(extent) + ")");
        if (!fits || mJournal->script.failing.count("deserializePlugin") != 0)
        {
            return nullptr;
        }
        return make("runtime", scale, extent);
    }
    void setPluginNamespace(char const* pluginNamespace) noexcept override { mNamespace = pluginNamespace; }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

private:
    nvinfer1::IPluginV2* make(char const* prefix, float scale, int64_t extent)
    {
        return withLevel(mLevel, [&](auto* type) -> nvinfer1::IPluginV2* {
            using Plugin = std::remove_pointer_t<decltype(type)>;
            auto* made = new Plugin(mJournal, prefix, scale);
            made->restore(extent);
            return made;
        });
    }

    std::shared_ptr<Journal> mJournal;
    int32_t mLevel;
    std::string mNamespace{kRecordingNamespace};
    nvinfer1::PluginField mFieldNames[1];
    nvinfer1::PluginFieldCollection mNames{};
};

//! The host runner of the recording plugin of one level.
class RecordingV2Runner final : public kiln::IPluginV2HostRunner
{
public:
    explicit RecordingV2Runner(int32_t level)
        : mLevel(level)
    {
    }

    int32_t enqueueHost(nvinfer1::IPluginV2& plugin, nvinfer1::PluginTensorDesc const* inputDesc,
        nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs,
        void* workspace) noexcept override
    {
        return withLevel(mLevel, [&](auto* type) {
            using Plugin = std::remove_pointer_t<decltype(type)>;
            return static_cast<Plugin&>(plugin).runHost(inputDesc, outputDesc, inputs, outputs, workspace);
        });
    }

private:
    int32_t mLevel;
};

} // namespace kiln::test
