// SPDX-License-Identifier: Apache-2.0
// A V3 plugin for the engine's plugin tests that logs every call the engine makes, with its arguments, and really
// computes (through kiln's host capability), plus its creator. Every object made from one creator shares a Journal:
// the log, counters, and the Script that says how the plugins behave (tactics, a timing-cache ID, statuses to
// return, nulls to give back).
//
// Modes: kSCALE: one FLOAT input (or kHALF where Script::halfFormats allows), one output of its type = input * scale
// (the field "scale"), plus the tactic number (so the chosen tactic shows in the output). kCOMPACT: one FLOAT input
// [N]; outputs: the positive elements in order (a [K] FLOAT tensor) and K as a kINT64 size tensor, whose upper bound is
// N and optimum N / 2.
//
//     auto journal = std::make_shared<Journal>();
//     RecordingCreator creator(journal);                         // register it in the registry under test
//     std::unique_ptr<nvinfer1::IPluginV3> plugin{creator.createPlugin("p", fields, TensorRTPhase::kBUILD)};
//     journal->calls("clone1");                                  // {"getCapabilityInterface(kBUILD)", ...}
#pragma once

#include "NvInfer.h"
#include "kiln/plugin_host.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace kiln::test
{

enum class Mode : int32_t
{
    kSCALE = 0,
    kCOMPACT = 1,
};

//! How the plugins of one creator behave.
struct Script
{
    Mode mode{Mode::kSCALE};
    std::vector<int32_t> tactics;  //!< Custom tactics (empty: none).
    std::string timingCacheId;     //!< Empty: no timing-cache ID.
    std::set<std::string> failing; //!< Methods that return status 1 (or null): "configurePlugin", "clone", ...
    //! Formats supportsFormatCombination accepts at each position (empty: kLINEAR only).
    std::set<nvinfer1::TensorFormat> formats;
    int32_t aliasOutput{-1}; //!< getAliasedInput(0) (the build capability is IPluginV3OneBuildV2).
    bool anyOutputFormat{};  //!< Outputs in any accepted format (else in the first input's: the kernel converts).
    //! Formats in which kHALF I/O is accepted (empty: none); the kernel computes in half then (kSCALE only).
    std::set<nvinfer1::TensorFormat> halfFormats;
    bool noFloat{}; //!< kFLOAT I/O is refused (only kHALF, in halfFormats, is accepted).
};

//! What the plugins of one creator did.
class Journal
{
public:
    Script script;
    //! What each attachToContext() found in its IPluginResourceContext.
    std::vector<nvinfer1::IGpuAllocator*> allocators;
    std::vector<nvinfer1::IErrorRecorder*> recorders;

    void log(std::string const& id, std::string const& call)
    {
        std::lock_guard<std::mutex> lock(mMutex);
        mLog.push_back(id + ":" + call);
    }
    //! Every call, "id:method(args)", in order.
    std::vector<std::string> log() const
    {
        std::lock_guard<std::mutex> lock(mMutex);
        return mLog;
    }
    //! The calls made to object id, without the id.
    std::vector<std::string> calls(std::string const& id) const
    {
        std::vector<std::string> result;
        for (std::string const& entry : log())
        {
            if (entry.compare(0, id.size() + 1, id + ":") == 0)
            {
                result.push_back(entry.substr(id.size() + 1));
            }
        }
        return result;
    }
    //! The calls to id whose method name is method (the text before "(").
    std::vector<std::string> callsNamed(std::string const& id, std::string const& method) const
    {
        std::vector<std::string> result;
        for (std::string const& call : calls(id))
        {
            if (call.substr(0, call.find('(')) == method)
            {
                result.push_back(call);
            }
        }
        return result;
    }
    //! The method names of id's calls, in order.
    std::vector<std::string> methods(std::string const& id) const
    {
        std::vector<std::string> result;
        for (std::string const& call : calls(id))
        {
            result.push_back(call.substr(0, call.find('(')));
        }
        return result;
    }
    //! How many calls of method any object received.
    int32_t count(std::string const& method) const
    {
        int32_t n = 0;
        for (std::string const& entry : log())
        {
            std::string const call = entry.substr(entry.find(':') + 1);
            n += call.substr(0, call.find('(')) == method ? 1 : 0;
        }
        return n;
    }
    //! Ids of the objects ever made, in order.
    std::vector<std::string> ids() const
    {
        std::lock_guard<std::mutex> lock(mMutex);
        return mIds;
    }
    std::string newId(std::string const& prefix)
    {
        std::lock_guard<std::mutex> lock(mMutex);
        std::string id = prefix + std::to_string(++mNext[prefix]);
        mIds.push_back(id);
        ++mAlive;
        return id;
    }
    void died()
    {
        std::lock_guard<std::mutex> lock(mMutex);
        --mAlive;
    }
    //! Objects made and not yet deleted.
    int32_t alive() const
    {
        std::lock_guard<std::mutex> lock(mMutex);
        return mAlive;
    }
    void clear()
    {
        std::lock_guard<std::mutex> lock(mMutex);
        mLog.clear();
    }

private:
    mutable std::mutex mMutex;
    std::vector<std::string> mLog;
    std::vector<std::string> mIds;
    std::map<std::string, int32_t> mNext;
    int32_t mAlive{};
};

inline std::string text(nvinfer1::Dims const& dims)
{
    std::string out = "(";
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        out += (i == 0 ? "" : ",") + std::to_string(dims.d[i]);
    }
    return out + ")";
}

inline std::string text(nvinfer1::PluginTensorDesc const& desc)
{
    return std::to_string(static_cast<int32_t>(desc.type)) + "/" + std::to_string(static_cast<int32_t>(desc.format))
        + text(desc.dims);
}

inline std::string text(nvinfer1::DynamicPluginTensorDesc const& desc)
{
    return text(desc.desc) + "[" + text(desc.min) + text(desc.opt) + text(desc.max) + "]";
}

template <typename Desc>
std::string text(Desc const* descs, int32_t count)
{
    std::string out;
    for (int32_t i = 0; i < count; ++i)
    {
        out += (i == 0 ? "" : " ") + text(descs[i]);
    }
    return out;
}

constexpr char const* kRecordingName = "Recording";
constexpr char const* kRecordingVersion = "1";
constexpr char const* kRecordingNamespace = "kiln.test";

class RecordingPlugin final : public nvinfer1::IPluginV3,
                              public nvinfer1::IPluginV3OneCore,
                              public nvinfer1::IPluginV3OneBuildV2,
                              public nvinfer1::IPluginV3OneRuntime,
                              public kiln::IPluginV3OneHost
{
public:
    RecordingPlugin(std::shared_ptr<Journal> journal, std::string const& prefix, float scale)
        : mJournal(std::move(journal))
        , mId(mJournal->newId(prefix))
        , mScale(scale)
    {
    }
    RecordingPlugin(RecordingPlugin const&) = delete;
    ~RecordingPlugin() override { mJournal->died(); }

    std::string const& id() const { return mId; }

    // IPluginV3
    nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override
    {
        // kiln finds the host capability as a base class (RTTI) and never asks for it: a call with any value outside
        // TensorRT's three is logged, so that the tests see it.
        switch (type)
        {
        case nvinfer1::PluginCapabilityType::kCORE:
            log("getCapabilityInterface(kCORE)");
            return static_cast<nvinfer1::IPluginV3OneCore*>(this);
        case nvinfer1::PluginCapabilityType::kBUILD:
            log("getCapabilityInterface(kBUILD)");
            return static_cast<nvinfer1::IPluginV3OneBuildV2*>(this);
        case nvinfer1::PluginCapabilityType::kRUNTIME:
            log("getCapabilityInterface(kRUNTIME)");
            return static_cast<nvinfer1::IPluginV3OneRuntime*>(this);
        }
        log("getCapabilityInterface(" + std::to_string(static_cast<int32_t>(type)) + ")");
        return nullptr;
    }
    nvinfer1::IPluginV3* clone() noexcept override
    {
        log("clone()");
        if (fails("clone"))
        {
            return nullptr;
        }
        return copy("clone");
    }

    // Core
    char const* getPluginName() const noexcept override { return kRecordingName; }
    char const* getPluginVersion() const noexcept override { return kRecordingVersion; }
    char const* getPluginNamespace() const noexcept override { return kRecordingNamespace; }

    // Build
    int32_t configurePlugin(nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept override
    {
        log("configurePlugin(" + text(in, nbInputs) + " -> " + text(out, nbOutputs) + ")");
        return status("configurePlugin");
    }
    int32_t getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t nbOutputs, nvinfer1::DataType const* inputTypes,
        int32_t nbInputs) const noexcept override
    {
        mJournal->log(mId, "getOutputDataTypes(" + std::to_string(nbOutputs) + "," + std::to_string(nbInputs) + ")");
        outputTypes[0] = inputTypes[0];
        if (nbOutputs > 1)
        {
            outputTypes[1] = nvinfer1::DataType::kINT64;
        }
        return 0;
    }
    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs, nvinfer1::DimsExprs const*,
        int32_t nbShapeInputs, nvinfer1::DimsExprs* outputs, int32_t nbOutputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override
    {
        log("getOutputShapes(" + std::to_string(nbInputs) + "," + std::to_string(nbShapeInputs) + ","
            + std::to_string(nbOutputs) + ")");
        if (mJournal->script.mode == Mode::kSCALE)
        {
            outputs[0] = inputs[0];
            return 0;
        }
        // kCOMPACT: K in [0, N], optimum N / 2.
        auto const* n = inputs[0].d[0];
        auto const* optimum
            = exprBuilder.operation(nvinfer1::DimensionOperation::kFLOOR_DIV, *n, *exprBuilder.constant(2));
        auto const* k = exprBuilder.declareSizeTensor(1, *optimum, *n);
        outputs[0].nbDims = 1;
        outputs[0].d[0] = k;
        outputs[1].nbDims = 0;
        return 0;
    }
    bool supportsFormatCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs) noexcept override
    {
        log("supportsFormatCombination(" + std::to_string(pos) + "," + std::to_string(nbInputs) + ","
            + std::to_string(nbOutputs) + "," + text(inOut[pos].desc) + ")");
        Script const& script = mJournal->script;
        nvinfer1::PluginTensorDesc const& desc = inOut[pos].desc;
        bool allowed = script.formats.empty() ? desc.format == nvinfer1::TensorFormat::kLINEAR
                                              : script.formats.count(desc.format) != 0;
        if (desc.type == nvinfer1::DataType::kHALF)
        {
            allowed = script.halfFormats.count(desc.format) != 0;
        }
        else if (desc.type == nvinfer1::DataType::kFLOAT && script.noFloat)
        {
            allowed = false;
        }
        // Outputs in the first input's format and type (which it has already accepted): the kernel is elementwise.
        return allowed && (pos == 0 || script.anyOutputFormat || desc.format == inOut[0].desc.format)
            && (pos == 0 || desc.type == inOut[0].desc.type || desc.type == nvinfer1::DataType::kINT64);
    }
    int32_t getNbOutputs() const noexcept override { return mJournal->script.mode == Mode::kCOMPACT ? 2 : 1; }
    size_t getWorkspaceSize(nvinfer1::DynamicPluginTensorDesc const* inputs, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const*, int32_t) const noexcept override
    {
        mJournal->log(mId, "getWorkspaceSize(" + text(inputs, nbInputs) + ")");
        return 64;
    }
    int32_t getValidTactics(int32_t* tactics, int32_t nbTactics) noexcept override
    {
        log("getValidTactics(" + std::to_string(nbTactics) + ")");
        std::copy_n(mJournal->script.tactics.begin(),
            std::min<std::size_t>(static_cast<std::size_t>(nbTactics), mJournal->script.tactics.size()), tactics);
        return status("getValidTactics");
    }
    int32_t getNbTactics() noexcept override
    {
        log("getNbTactics()");
        return static_cast<int32_t>(mJournal->script.tactics.size());
    }
    char const* getTimingCacheID() noexcept override
    {
        log("getTimingCacheID()");
        return mJournal->script.timingCacheId.empty() ? nullptr : mJournal->script.timingCacheId.c_str();
    }
    int32_t getAliasedInput(int32_t outputIndex) noexcept override
    {
        log("getAliasedInput(" + std::to_string(outputIndex) + ")");
        return outputIndex == 0 ? mJournal->script.aliasOutput : -1;
    }

    // Runtime
    int32_t setTactic(int32_t tactic) noexcept override
    {
        log("setTactic(" + std::to_string(tactic) + ")");
        mTactic = tactic;
        return status("setTactic");
    }
    int32_t onShapeChange(nvinfer1::PluginTensorDesc const* in, int32_t nbInputs, nvinfer1::PluginTensorDesc const* out,
        int32_t nbOutputs) noexcept override
    {
        log("onShapeChange(" + text(in, nbInputs) + " -> " + text(out, nbOutputs) + ")");
        return status("onShapeChange");
    }
    int32_t enqueue(nvinfer1::PluginTensorDesc const*, nvinfer1::PluginTensorDesc const*, void const* const*,
        void* const*, void*, cudaStream_t) noexcept override
    {
        log("enqueue()");
        return 1; // The host backend must use enqueueHost.
    }
    nvinfer1::IPluginV3* attachToContext(nvinfer1::IPluginResourceContext* context) noexcept override
    {
        log("attachToContext(" + std::to_string(reinterpret_cast<std::uintptr_t>(context)) + ")");
        if (fails("attachToContext"))
        {
            return nullptr;
        }
        auto* attached = copy("ctx");
        attached->mContext = context;
        mJournal->allocators.push_back(context != nullptr ? context->getGpuAllocator() : nullptr);
        mJournal->recorders.push_back(context != nullptr ? context->getErrorRecorder() : nullptr);
        return attached;
    }
    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        log("getFieldsToSerialize()");
        mFields[0] = nvinfer1::PluginField{"scale", &mScale, nvinfer1::PluginFieldType::kFLOAT32, 1};
        mCollection.nbFields = 1;
        mCollection.fields = mFields;
        return &mCollection;
    }

    // Host
    int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace) noexcept override
    {
        log("enqueueHost(" + text(inputDesc, 1) + " -> " + text(outputDesc, getNbOutputs()) + ","
            + (workspace != nullptr ? "workspace" : "none") + (inputs[0] == outputs[0] ? ",in place" : "") + ")");
        if (fails("enqueueHost"))
        {
            return 1;
        }
        // Elementwise, so any layout works if the padding counts: kCHW32 pads the channels to 32.
        int64_t count = 1;
        for (int32_t i = 0; i < inputDesc[0].dims.nbDims; ++i)
        {
            int64_t extent = inputDesc[0].dims.d[i];
            if (inputDesc[0].format == nvinfer1::TensorFormat::kCHW32 && i == inputDesc[0].dims.nbDims - 3)
            {
                extent = (extent + 31) / 32 * 32;
            }
            count *= extent;
        }
        auto const* in = static_cast<float const*>(inputs[0]);
        auto* out = static_cast<float*>(outputs[0]);
        if (mJournal->script.mode == Mode::kSCALE && inputDesc[0].type == nvinfer1::DataType::kHALF)
        {
            auto const* inHalf = static_cast<uint16_t const*>(inputs[0]);
            auto* outHalf = static_cast<uint16_t*>(outputs[0]);
            for (int64_t i = 0; i < count; ++i)
            {
                outHalf[i] = toHalf(fromHalf(inHalf[i]) * mScale + static_cast<float>(mTactic));
            }
            return 0;
        }
        if (mJournal->script.mode == Mode::kSCALE)
        {
            for (int64_t i = 0; i < count; ++i)
            {
                out[i] = in[i] * mScale + static_cast<float>(mTactic);
            }
            return 0;
        }
        int64_t k = 0;
        for (int64_t i = 0; i < count; ++i)
        {
            if (in[i] > 0.0F)
            {
                out[k++] = in[i];
            }
        }
        *static_cast<int64_t*>(outputs[1]) = k;
        return 0;
    }

    nvinfer1::IPluginResourceContext* context() const { return mContext; }

private:
    //! IEEE half <-> float for the normal values the tests use (small integers), rounding to nearest.
    static float fromHalf(uint16_t bits)
    {
        uint32_t const sign = (bits & 0x8000U) << 16U;
        uint32_t const exponent = (bits >> 10U) & 0x1FU;
        uint32_t const mantissa = bits & 0x3FFU;
        uint32_t const value = exponent == 0 ? sign : sign | ((exponent + 112U) << 23U) | (mantissa << 13U);
        float result = 0.0F;
        std::memcpy(&result, &value, sizeof(result));
        return result;
    }
    static uint16_t toHalf(float value)
    {
        uint32_t bits = 0;
        std::memcpy(&bits, &value, sizeof(bits));
        auto const sign = static_cast<uint16_t>((bits >> 16U) & 0x8000U);
        int32_t const exponent = static_cast<int32_t>((bits >> 23U) & 0xFFU) - 112;
        if (exponent <= 0)
        {
            return sign;
        }
        uint32_t const rounded = (static_cast<uint32_t>(exponent) << 10U) + (((bits & 0x7FFFFFU) + 0x1000U) >> 13U);
        return static_cast<uint16_t>(sign | std::min<uint32_t>(rounded, 0x7C00U));
    }

    void log(std::string const& call) const { mJournal->log(mId, call); }
    bool fails(std::string const& method) const { return mJournal->script.failing.count(method) != 0; }
    int32_t status(std::string const& method) const { return fails(method) ? 1 : 0; }
    RecordingPlugin* copy(std::string const& prefix) const
    {
        auto* made = new RecordingPlugin(mJournal, prefix, mScale);
        made->mTactic = mTactic;
        return made;
    }

    std::shared_ptr<Journal> mJournal;
    std::string mId;
    float mScale{1.0F};
    int32_t mTactic{};
    nvinfer1::IPluginResourceContext* mContext{};
    nvinfer1::PluginField mFields[1];
    nvinfer1::PluginFieldCollection mCollection{};
};

class RecordingCreator final : public nvinfer1::IPluginCreatorV3One
{
public:
    explicit RecordingCreator(std::shared_ptr<Journal> journal)
        : mJournal(std::move(journal))
    {
        mFieldNames[0] = nvinfer1::PluginField{"scale", nullptr, nvinfer1::PluginFieldType::kFLOAT32, 1};
        mNames.nbFields = 1;
        mNames.fields = mFieldNames;
    }

    nvinfer1::IPluginV3* createPlugin(
        char const* name, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase phase) noexcept override
    {
        bool const runtime = phase == nvinfer1::TensorRTPhase::kRUNTIME;
        float scale = 1.0F;
        std::string fields;
        for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
        {
            fields += std::string(fields.empty() ? "" : ",") + fc->fields[i].name;
            if (std::strcmp(fc->fields[i].name, "scale") == 0 && fc->fields[i].length == 1)
            {
                std::memcpy(&scale, fc->fields[i].data, sizeof(float));
                fields += "=" + std::to_string(scale);
            }
        }
        mJournal->log("creator",
            std::string("createPlugin(") + name + "," + fields + "," + (runtime ? "kRUNTIME" : "kBUILD") + ")");
        if (runtime && mJournal->script.failing.count("createPlugin") != 0)
        {
            return nullptr;
        }
        return new RecordingPlugin(mJournal, runtime ? "runtime" : "user", scale);
    }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override { return &mNames; }
    char const* getPluginName() const noexcept override { return kRecordingName; }
    char const* getPluginVersion() const noexcept override { return kRecordingVersion; }
    char const* getPluginNamespace() const noexcept override { return kRecordingNamespace; }

private:
    std::shared_ptr<Journal> mJournal;
    nvinfer1::PluginField mFieldNames[1];
    nvinfer1::PluginFieldCollection mNames{};
};

} // namespace kiln::test
