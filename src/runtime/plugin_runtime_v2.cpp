// SPDX-License-Identifier: Apache-2.0
// V2 plugins at run time (runtime/plugin_runtime.h), call by call as the V2 contract gives it:
// - The engine: the V2 creator ("PLUGIN CREATOR_V1") registered under the plan's name, version and namespace;
//   deserializePlugin(layer name, the bytes serialize() wrote at build time), whose object must have the plan's API
//   level; initialize().
//   The engine's object is terminate()d and destroy()ed with the engine.
// - Each execution context: clone() of the engine's object; for IPluginV2Ext and up attachToContext(cuDNN handle,
//   cuBLAS handle, the context's GPU allocator), the handles real ones of the context on the CUDA backend where the
//   engine's tactic sources allow them (kCUDNN, kCUBLAS; off by default in TensorRT 10), else null (plugin/
//   v2_handles.h); initialize(). On the host backend the plugin's host runner is looked up here, when a context first
//   needs to run the plugin.
//   When the context goes: detachFromContext() (IPluginV2Ext and up), terminate(), destroy().
// - A run: an IPluginV2DynamicExt hears of new shapes through configurePlugin() with min = opt = max = the run's
//   dims; then the host runner's enqueueHost() on the host backend (whole shapes at every level), else enqueue():
//   with the descriptors for IPluginV2DynamicExt, with batchSize = the leading extent for the other levels.
#include "runtime/plugin_runtime.h"

#include "network/checks.h"
#include "plugin/v2_host.h"

#include <cstring>

namespace kiln
{
namespace
{

using nvinfer1::ErrorCode;
using V2Pointer = std::unique_ptr<nvinfer1::IPluginV2, PluginV2Deleter>;

constexpr int32_t kPythonDynamicExtLevel = 0x43;
constexpr char const* kLevelClasses[] = {"IPluginV2", "IPluginV2Ext", "IPluginV2IOExt", "IPluginV2DynamicExt"};

Error failure(ErrorCode code, std::string message)
{
    return Error{code, std::move(message)};
}

//! The API level plugin reports (the top byte of getTensorRTVersion(); a Python DynamicExt is level 3).
int32_t levelOf(nvinfer1::IPluginV2 const& plugin) noexcept
{
    auto const level = static_cast<int32_t>(static_cast<uint32_t>(plugin.getTensorRTVersion()) >> 24U);
    return level == kPythonDynamicExtLevel ? 3 : level;
}

//! A V2 plugin of one context: a clone of the engine's object, attached and initialized.
class ContextPluginV2 final : public ContextPlugin
{
public:
    ContextPluginV2(V2Pointer plugin, int32_t level, IPluginV2HostRunner* runner, V2Handles& handles, std::string who)
        : mPlugin(std::move(plugin))
        , mLevel(level)
        , mRunner(runner)
        , mHandles(handles)
        , mWho(std::move(who))
    {
    }
    ~ContextPluginV2() override
    {
        if (mLevel >= 1)
        {
            static_cast<nvinfer1::IPluginV2Ext&>(*mPlugin).detachFromContext();
        }
        mPlugin->terminate();
    }
    ContextPluginV2(ContextPluginV2 const&) = delete;
    ContextPluginV2& operator=(ContextPluginV2 const&) = delete;

    host::Status run(std::span<nvinfer1::PluginTensorDesc const> descs, int32_t nbInputs, bool changed,
        void const* const* inputs, void* const* outputs, void* workspace, bool host, cudaStream_t stream) override
    {
        auto const nbOutputs = static_cast<int32_t>(descs.size()) - nbInputs;
        nvinfer1::PluginTensorDesc const* outputDescs = descs.data() + nbInputs;
        if (mLevel == 3 && changed)
        {
            std::vector<nvinfer1::DynamicPluginTensorDesc> shaped;
            for (nvinfer1::PluginTensorDesc const& desc : descs)
            {
                shaped.push_back(nvinfer1::DynamicPluginTensorDesc{desc, desc.dims, desc.dims, desc.dims});
            }
            dynamic().configurePlugin(shaped.data(), nbInputs, shaped.data() + nbInputs, nbOutputs);
        }
        int32_t status = 0;
        if (host)
        {
            if (mRunner == nullptr)
            {
                return failure(ErrorCode::kINTERNAL_ERROR, mWho + ": the engine was made without a host runner");
            }
            status = mRunner->enqueueHost(*mPlugin, descs.data(), outputDescs, inputs, outputs, workspace);
        }
        else
        {
            mHandles.setStream(stream);
            status = mLevel == 3
                ? dynamic().enqueue(descs.data(), outputDescs, inputs, outputs, workspace, stream)
                : mPlugin->enqueue(static_cast<int32_t>(descs[0].dims.d[0]), inputs, outputs, workspace, stream);
        }
        if (status != 0)
        {
            return failure(ErrorCode::kFAILED_EXECUTION,
                mWho + ": " + (host ? "the host runner's enqueueHost()" : "enqueue()") + " returned status "
                    + std::to_string(status));
        }
        return host::Done{};
    }

private:
    nvinfer1::IPluginV2DynamicExt& dynamic() { return static_cast<nvinfer1::IPluginV2DynamicExt&>(*mPlugin); }

    V2Pointer mPlugin;
    int32_t mLevel;
    IPluginV2HostRunner* mRunner;
    V2Handles& mHandles;
    std::string mWho;
};

//! A V2 plugin of one engine: deserializePlugin()'s object, initialized.
class EnginePluginV2 final : public EnginePlugin
{
public:
    EnginePluginV2(V2Pointer plugin, int32_t level, PluginIdentity identity, bool host, std::string where)
        : mPlugin(std::move(plugin))
        , mLevel(level)
        , mIdentity(std::move(identity))
        , mHost(host)
        , mWhere(std::move(where))
        , mWho(mWhere + ": " + describeIdentity(mIdentity))
    {
    }
    ~EnginePluginV2() override { mPlugin->terminate(); }
    EnginePluginV2(EnginePluginV2 const&) = delete;
    EnginePluginV2& operator=(EnginePluginV2 const&) = delete;

    Expected<std::unique_ptr<ContextPlugin>> attach(
        nvinfer1::IPluginResourceContext& resources, V2Handles& handles) override
    {
        // The host runner is what runs the plugin on the host backend: an engine whose contexts are never made needs
        // none.
        IPluginV2HostRunner* runner = nullptr;
        if (mHost)
        {
            auto required = requireV2HostRunner(mIdentity);
            if (!required)
            {
                return failure(required.error().code, mWhere + ": " + required.error().message);
            }
            runner = required.value();
        }
        auto made = handles.get();
        if (!made)
        {
            return failure(made.error().code, mWho + ": " + made.error().message);
        }
        V2Pointer clone{mPlugin->clone()};
        if (clone == nullptr)
        {
            return failure(ErrorCode::kFAILED_ALLOCATION,
                mWho + ": clone() returned null; each execution context runs a clone of the engine's plugin");
        }
        if (mLevel >= 1)
        {
            static_cast<nvinfer1::IPluginV2Ext&>(*clone).attachToContext(
                made.value().cudnn, made.value().cublas, resources.getGpuAllocator());
        }
        if (int32_t const status = clone->initialize(); status != 0)
        {
            if (mLevel >= 1)
            {
                static_cast<nvinfer1::IPluginV2Ext&>(*clone).detachFromContext();
            }
            return failure(ErrorCode::kFAILED_INITIALIZATION,
                mWho + ": initialize() returned status " + std::to_string(status)
                    + " on the execution context's clone");
        }
        return std::unique_ptr<ContextPlugin>{
            std::make_unique<ContextPluginV2>(std::move(clone), mLevel, runner, handles, mWho)};
    }

private:
    V2Pointer mPlugin;
    int32_t mLevel;
    PluginIdentity mIdentity;
    bool mHost;
    std::string mWhere;
    std::string mWho;
};

} // namespace

Expected<std::unique_ptr<EnginePlugin>> makeEnginePluginV2(
    std::string const& layerName, PluginV2Params const& params, nvinfer1::IPluginRegistry& registry, bool host)
{
    std::string const where = "layer '" + layerName + "'";
    std::string const who = where + ": " + describeIdentity(params.identity);
    if (params.level < 0 || params.level > 3)
    {
        return failure(ErrorCode::kINVALID_ARGUMENT,
            who + ": the plan records V2 plugin level " + std::to_string(params.level) + "; levels are 0 to 3");
    }
    auto found = findPluginCreator(registry, params.identity, where,
        {"PLUGIN CREATOR_V1", "IPluginCreator", std::string("a V2 plugin (") + kLevelClasses[params.level] + ")"});
    if (!found)
    {
        return found.error();
    }
    auto* creator = static_cast<nvinfer1::IPluginCreator*>(found.value());
    std::vector<uint8_t> const& bytes = params.plan.serialized;
    V2Pointer plugin{creator->deserializePlugin(layerName.c_str(), bytes.data(), bytes.size())};
    if (plugin == nullptr)
    {
        return failure(ErrorCode::kINVALID_ARGUMENT,
            where + ": the creator of " + describeIdentity(params.identity) + " returned null from deserializePlugin(\""
                + layerName + "\", " + std::to_string(bytes.size()) + " serialized bytes)");
    }
    if (int32_t const level = levelOf(*plugin); level != params.level)
    {
        return failure(ErrorCode::kINVALID_ARGUMENT,
            who + ": deserializePlugin() made an object that reports API level " + std::to_string(level)
                + ", but the plan holds a plugin of level " + std::to_string(params.level) + " ("
                + kLevelClasses[params.level] + ")");
    }
    if (int32_t const status = plugin->initialize(); status != 0)
    {
        return failure(ErrorCode::kFAILED_INITIALIZATION,
            who + ": initialize() returned status " + std::to_string(status) + " on the engine's plugin");
    }
    return std::unique_ptr<EnginePlugin>{
        std::make_unique<EnginePluginV2>(std::move(plugin), params.level, params.identity, host, where)};
}

} // namespace kiln
