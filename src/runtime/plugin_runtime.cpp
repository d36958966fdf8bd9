// SPDX-License-Identifier: Apache-2.0
#include "runtime/plugin_runtime.h"

#include "network/checks.h"
#include "plan/model_support.h"
#include "plugin/plugin_fields.h"
#include "plugin/plugin_lookup.h"
#include "plugin/plugin_quick.h"
#include "plugin/registry_lookup.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include <unistd.h>

namespace kiln
{
namespace
{

using nvinfer1::ErrorCode;

Error failure(ErrorCode code, std::string message)
{
    return Error{code, std::move(message)};
}

bool sameDesc(nvinfer1::PluginTensorDesc const& a, nvinfer1::PluginTensorDesc const& b) noexcept
{
    return a.type == b.type && a.format == b.format && a.scale == b.scale && a.dims.nbDims == b.dims.nbDims
        && std::equal(a.dims.d, a.dims.d + std::clamp(a.dims.nbDims, 0, nvinfer1::Dims::MAX_DIMS), b.dims.d);
}

//! A V3 plugin of one context: attachToContext()'s clone.
class ContextPluginV3 final : public ContextPlugin
{
public:
    ContextPluginV3(std::unique_ptr<nvinfer1::IPluginV3> plugin, V3Capabilities caps, std::string who)
        : mPlugin(std::move(plugin))
        , mCaps(caps)
        , mWho(std::move(who))
    {
    }

    host::Status run(std::span<nvinfer1::PluginTensorDesc const> descs, int32_t nbInputs, bool changed,
        void const* const* inputs, void* const* outputs, void* workspace, bool host, cudaStream_t stream) override
    {
        auto const nbOutputs = static_cast<int32_t>(descs.size()) - nbInputs;
        if (changed)
        {
            int32_t const status
                = mCaps.runtime->onShapeChange(descs.data(), nbInputs, descs.data() + nbInputs, nbOutputs);
            if (status != 0)
            {
                return failure(
                    ErrorCode::kFAILED_EXECUTION, mWho + ": onShapeChange() returned status " + std::to_string(status));
            }
        }
        int32_t const status = host
            ? mCaps.host->enqueueHost(descs.data(), descs.data() + nbInputs, inputs, outputs, workspace)
            : mCaps.runtime->enqueue(descs.data(), descs.data() + nbInputs, inputs, outputs, workspace, stream);
        if (status != 0)
        {
            return failure(ErrorCode::kFAILED_EXECUTION,
                mWho + ": " + (host ? "enqueueHost()" : "enqueue()") + " returned status " + std::to_string(status));
        }
        return host::Done{};
    }

private:
    std::unique_ptr<nvinfer1::IPluginV3> mPlugin;
    V3Capabilities mCaps;
    std::string mWho;
};

//! A V3 plugin of one engine: createPlugin(kRUNTIME)'s object, its tactic set.
class EnginePluginV3 final : public EnginePlugin
{
public:
    EnginePluginV3(std::unique_ptr<nvinfer1::IPluginV3> plugin, V3Capabilities caps, std::string layer,
        std::string described, bool host)
        : mPlugin(std::move(plugin))
        , mCaps(caps)
        , mLayer(std::move(layer))
        , mDescribed(std::move(described))
        , mHost(host)
    {
    }

    Expected<std::unique_ptr<ContextPlugin>> attach(
        nvinfer1::IPluginResourceContext& resources, V2Handles& /*handles*/) override
    {
        std::string const who = mLayer + ": " + mDescribed;
        std::unique_ptr<nvinfer1::IPluginV3> clone{mCaps.runtime->attachToContext(&resources)};
        if (clone == nullptr)
        {
            return failure(ErrorCode::kFAILED_ALLOCATION,
                who + ": attachToContext() returned null; the execution context needs the plugin's clone");
        }
        auto caps = capabilitiesOf(*clone, {.build = false, .host = mHost}, mLayer, mDescribed + "'s clone");
        if (!caps)
        {
            return caps.error();
        }
        return std::unique_ptr<ContextPlugin>{std::make_unique<ContextPluginV3>(std::move(clone), caps.value(), who)};
    }

private:
    std::unique_ptr<nvinfer1::IPluginV3> mPlugin;
    V3Capabilities mCaps;
    std::string mLayer;
    std::string mDescribed;
    bool mHost;
};

Expected<std::unique_ptr<EnginePlugin>> makeEnginePluginV3(
    std::string const& layerName, PluginV3Params const& params, nvinfer1::IPluginRegistry& registry, bool host)
{
    std::string const where = "layer '" + layerName + "'";
    std::string const described = describeIdentity(params.identity);
    auto found = findPluginCreator(registry, params.identity, where,
        {"PLUGIN CREATOR_V3ONE", "IPluginCreatorV3One", "a V3 plugin",
            params.plan.language == nvinfer1::APILanguage::kPYTHON, kQuickCreatorKind});
    if (!found)
    {
        return found.error();
    }
    FieldView const fields(params.plan.fields);
    std::unique_ptr<nvinfer1::IPluginV3> plugin;
    std::string call;
    if (isQuickKind(found.value()->getInterfaceInfo(), kQuickCreatorKind))
    {
        // A Quick creator makes the plugin from its own name and namespace; a plan holds JIT plugins only (an AOT
        // one is a kernel), so the request is a strict JIT.
        auto* creator = static_cast<nvinfer1::IPluginCreatorV3Quick*>(found.value());
        plugin.reset(creator->createPlugin(params.identity.name.c_str(), params.identity.pluginNamespace.c_str(),
            fields.collection(), nvinfer1::TensorRTPhase::kRUNTIME, nvinfer1::QuickPluginCreationRequest::kSTRICT_JIT));
        call = "createPlugin(\"" + params.identity.name + "\", \"" + params.identity.pluginNamespace + "\", "
            + std::to_string(params.plan.fields.size())
            + " serialized fields, TensorRTPhase::kRUNTIME, QuickPluginCreationRequest::kSTRICT_JIT)";
    }
    else
    {
        auto* creator = static_cast<nvinfer1::IPluginCreatorV3One*>(found.value());
        plugin.reset(creator->createPlugin(layerName.c_str(), fields.collection(), nvinfer1::TensorRTPhase::kRUNTIME));
        call = "createPlugin(\"" + layerName + "\", " + std::to_string(params.plan.fields.size())
            + " serialized fields, TensorRTPhase::kRUNTIME)";
    }
    if (plugin == nullptr)
    {
        return failure(
            ErrorCode::kINVALID_ARGUMENT, where + ": the creator of " + described + " returned null from " + call);
    }
    // The host capability is looked for on each context's clone, the object that runs: an engine whose contexts are
    // never made needs none.
    auto caps = capabilitiesOf(*plugin, {.build = false, .host = false}, where, described);
    if (!caps)
    {
        return caps.error();
    }
    if (int32_t const status = caps.value().runtime->setTactic(params.plan.tactic); status != 0)
    {
        return failure(ErrorCode::kINVALID_ARGUMENT,
            where + ": " + described + ": setTactic(" + std::to_string(params.plan.tactic) + ") returned status "
                + std::to_string(status));
    }
    return std::unique_ptr<EnginePlugin>{
        std::make_unique<EnginePluginV3>(std::move(plugin), caps.value(), where, described, host)};
}

} // namespace

Expected<nvinfer1::IPluginCreatorInterface*> findPluginCreator(nvinfer1::IPluginRegistry& registry,
    PluginIdentity const& identity, std::string const& where, CreatorKind const& wanted)
{
    std::string const described = describeIdentity(identity);
    // Looked up quietly (getCreator would log the miss too), so that a miss is reported once, here.
    PluginKey const key{identity.name, identity.version, identity.pluginNamespace};
    nvinfer1::IPluginCreatorInterface* creator = findRegisteredQuietly(registry, key);
    if (creator == nullptr && wanted.python)
    {
        // Only Python can make this plugin again: say which registration and which process it takes.
        return failure(ErrorCode::kINVALID_ARGUMENT,
            where + ": no creator of " + described
                + " is registered, and the plan records the plugin as written in Python (a class-based IPluginV3 or a "
                  "tensorrt.plugin plugin), so only a Python process that registers its creator can load this plan: "
                  "get_plugin_registry().register_creator(creator, \""
                + identity.pluginNamespace + "\") with the plugin's " + wanted.className
                + " before deserializing, or, for a tensorrt.plugin plugin, import the module that defines \""
                + identity.pluginNamespace + "::" + identity.name + "\". " + describeNearMisses(registry, key));
    }
    if (creator == nullptr)
    {
        return failure(ErrorCode::kINVALID_ARGUMENT,
            where + ": no creator of " + described + " is registered; register its " + wanted.className
                + " before deserializing (REGISTER_TENSORRT_PLUGIN, IPluginRegistry::registerCreator(creator, \""
                + identity.pluginNamespace + "\") or, from Python, get_plugin_registry().register_creator(creator, \""
                + identity.pluginNamespace + "\"), or load its library with IPluginRegistry::loadLibrary). "
                + describeNearMisses(registry, key));
    }
    nvinfer1::InterfaceInfo const info = creator->getInterfaceInfo();
    bool const otherKind = wanted.otherKind != nullptr && info.kind != nullptr
        && std::strcmp(info.kind, wanted.otherKind) == 0 && info.major == 1;
    if (!otherKind && (info.kind == nullptr || std::strcmp(info.kind, wanted.kind) != 0 || info.major != 1))
    {
        return failure(ErrorCode::kINVALID_ARGUMENT,
            where + ": the creator registered for " + described + " reports interface "
                + quoted(info.kind != nullptr ? info.kind : "(null)") + " version " + std::to_string(info.major)
                + "; the plan holds " + wanted.planHolds + ", which needs an " + wanted.className + " (\"" + wanted.kind
                + "\"" + (wanted.otherKind != nullptr ? std::string(" or \"") + wanted.otherKind + "\"" : "") + ")");
    }
    return creator;
}

// ---- EnginePlugins
// ---------------------------------------------------------------------------------------------------

namespace
{

//! The largest plugin workspace a plan may state: the memory of the machine that runs it (host memory for the host
//! backend, the device's for the CUDA backend), which is also the builder's default workspace pool. A plan stating
//! more was not built for this machine, and allocating it at the first run would only fail late (or take it all).
int64_t workspaceLimit(bool host) noexcept
{
#if KILN_WITH_CUDA
    if (!host)
    {
        std::size_t free = 0;
        std::size_t total = 0;
        if (cudaMemGetInfo(&free, &total) == cudaSuccess && total > 0)
        {
            return static_cast<int64_t>(std::min<std::size_t>(total, std::numeric_limits<int64_t>::max()));
        }
    }
#else
    static_cast<void>(host);
#endif
    long const pages = sysconf(_SC_PHYS_PAGES);
    long const pageSize = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || pageSize <= 0 || pages > std::numeric_limits<int64_t>::max() / pageSize)
    {
        return std::numeric_limits<int64_t>::max();
    }
    return static_cast<int64_t>(pages) * pageSize;
}

//! The refusal of the first plugin layer of model whose stated workspace exceeds workspaceLimit(host); nothing when
//! none does.
std::optional<Error> workspaceProblem(EngineModel const& model, bool host)
{
    int64_t const limit = workspaceLimit(host);
    for (LayerRecord const& layer : model.layers)
    {
        int64_t workspace = 0;
        if (auto const* v3 = std::get_if<PluginV3Params>(&layer.params))
        {
            workspace = v3->plan.workspaceBytes;
        }
        else if (auto const* v2 = std::get_if<PluginV2Params>(&layer.params))
        {
            workspace = v2->plan.workspaceBytes;
        }
        if (workspace > limit)
        {
            return Error{ErrorCode::kINVALID_ARGUMENT,
                "plugin layer '" + layer.name + "' states a workspace of " + std::to_string(workspace)
                    + " bytes, more than the " + std::to_string(limit) + " bytes of this machine's "
                    + (host ? "memory" : "device memory") + " (the builder's default workspace pool)"};
        }
    }
    return std::nullopt;
}

} // namespace

EnginePlugins::~EnginePlugins() = default;

Expected<std::unique_ptr<EnginePlugins>> EnginePlugins::create(
    EngineModel const& model, nvinfer1::IPluginRegistry& registry, bool host)
{
    if (std::optional<Error> problem = workspaceProblem(model, host))
    {
        return *problem;
    }
    std::unique_ptr<EnginePlugins> plugins(new EnginePlugins);
    plugins->mModel = &model;
    plugins->mHost = host;
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        LayerRecord const& layer = model.layers[l];
        auto const* v3 = std::get_if<PluginV3Params>(&layer.params);
        auto const* v2 = std::get_if<PluginV2Params>(&layer.params);
        if (v3 == nullptr && v2 == nullptr)
        {
            continue;
        }
        Expected<std::unique_ptr<EnginePlugin>> made = v3 != nullptr
            ? (v3->plan.aot ? makeEnginePluginAot(layer.name, *v3, host)
                            : makeEnginePluginV3(layer.name, *v3, registry, host))
            : makeEnginePluginV2(layer.name, *v2, registry, host);
        int32_t const nbInputs = v3 != nullptr ? v3->nbInputs : static_cast<int32_t>(layer.inputs.size());
        int64_t const workspace = v3 != nullptr ? v3->plan.workspaceBytes : v2->plan.workspaceBytes;
        if (!made)
        {
            return made.error();
        }
        plugins->mSlots.push_back(Slot{static_cast<int32_t>(l), std::move(made.value()), nbInputs, workspace});
    }
    return plugins;
}

Expected<std::unique_ptr<ContextPlugins>> EnginePlugins::attach(
    nvinfer1::IErrorRecorder* recorder, nvinfer1::IGpuAllocator* allocator) const
{
    std::unique_ptr<ContextPlugins> context(new ContextPlugins(recorder, allocator, *mModel, mHost));
    std::lock_guard<std::mutex> const lock(mMutex);
    for (Slot const& slot : mSlots)
    {
        auto attached = slot.plugin->attach(context->mResources, context->mHandles);
        if (!attached)
        {
            return attached.error();
        }
        context->mSlotOf[static_cast<std::size_t>(slot.layer)] = static_cast<int32_t>(context->mSlots.size());
        ContextPlugins::Slot added;
        added.plugin = std::move(attached.value());
        added.nbInputs = slot.nbInputs;
        added.workspaceBytes = slot.workspaceBytes;
        added.workspace = MemoryBlock(mHost ? nullptr : allocator); // Device memory on the CUDA backend.
        context->mSlots.push_back(std::move(added));
    }
    return context;
}

// ---- ContextPlugins
// --------------------------------------------------------------------------------------------------

ContextPlugins::ContextPlugins(
    nvinfer1::IErrorRecorder* recorder, nvinfer1::IGpuAllocator* allocator, EngineModel const& model, bool host)
    : mHost(host)
    , mResources(recorder, allocator)
    , mHandles(model.tacticSources, !host)
    , mSlotOf(model.layers.size(), -1)
    , mModel(&model)
{
}

ContextPlugins::~ContextPlugins()
{
    mSlots.clear(); // The clones go before the resource context they may point to.
}

host::Status ContextPlugins::run(int32_t layer, std::span<host::HostTensor const* const> inputs,
    std::span<host::HostTensor const> outputs, std::span<nvinfer1::Dims const> outputDims, cudaStream_t stream)
{
    int32_t const index = layer >= 0 && static_cast<std::size_t>(layer) < mSlotOf.size()
        ? mSlotOf[static_cast<std::size_t>(layer)]
        : -1;
    if (index < 0)
    {
        return failure(ErrorCode::kINTERNAL_ERROR, "the execution context has no plugin for this layer");
    }
    Slot& slot = mSlots[static_cast<std::size_t>(index)];
    LayerRecord const& record = mModel->layers[static_cast<std::size_t>(layer)];

    // The slot's vectors keep their capacity from run to run: no allocation once the first run has happened.
    std::vector<nvinfer1::PluginTensorDesc>& descs = slot.descs;
    std::vector<void const*>& inputData = slot.inputData;
    std::vector<void*>& outputData = slot.outputData;
    descs.clear();
    inputData.clear();
    outputData.clear();
    for (int32_t i = 0; i < slot.nbInputs; ++i)
    {
        host::HostTensor const& view = *inputs[static_cast<std::size_t>(i)];
        TensorRecord const& tensor
            = mModel->tensors[static_cast<std::size_t>(record.inputs[static_cast<std::size_t>(i)])];
        descs.push_back(pluginDesc(view.dims, view.type, tensor.format, view.scale));
        inputData.push_back(view.data);
    }
    for (std::size_t o = 0; o < outputs.size(); ++o)
    {
        TensorRecord const& tensor = mModel->tensors[static_cast<std::size_t>(record.outputs[o])];
        descs.push_back(pluginDesc(outputDims[o], outputs[o].type, tensor.format, outputs[o].scale));
        outputData.push_back(outputs[o].data);
    }
    bool const changed
        = slot.shaped.size() != descs.size() || !std::equal(descs.begin(), descs.end(), slot.shaped.begin(), sameDesc);
    void* workspace = nullptr;
    if (slot.workspaceBytes > 0)
    {
        try
        {
            slot.workspace.reserve(slot.workspaceBytes);
        }
        catch (std::bad_alloc const&)
        {
            return failure(ErrorCode::kFAILED_ALLOCATION,
                "cannot allocate the plugin's workspace of " + std::to_string(slot.workspaceBytes) + " bytes");
        }
        workspace = slot.workspace.data();
    }
    auto const ran = slot.plugin->run(
        descs, slot.nbInputs, changed, inputData.data(), outputData.data(), workspace, mHost, stream);
    if (!ran)
    {
        return ran;
    }
    if (changed)
    {
        slot.shaped.assign(descs.begin(), descs.end());
    }
    return host::Done{};
}

} // namespace kiln
