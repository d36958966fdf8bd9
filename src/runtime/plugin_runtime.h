// SPDX-License-Identifier: Apache-2.0
// Plugins at run time, the TensorRT way, in two types (one per owner):
//
// - EnginePlugins belongs to an engine. When the engine is made, it finds each plugin layer's creator in the plugin
//   registry by the name, version and namespace the plan records, calls createPlugin(layer name, the serialized
//   fields, TensorRTPhase::kRUNTIME) and then setTactic() with the tactic the builder chose (0 without custom
//   tactics). The engine owns and deletes these objects. A V2 plugin layer's plugin comes from its V2 creator's
//   deserializePlugin(layer name, the serialize()d bytes) instead, and is initialize()d (plugin_runtime_v2.cpp).
// - ContextPlugins belongs to an execution context. Making one calls attachToContext() on every engine plugin with
//   an IPluginResourceContext of that context (a distinct object per context) and keeps the clones it returns.
//   Running a plugin layer calls onShapeChange() when the I/O descriptors differ from the last call's, then
//   enqueue (enqueueHost on the host backend) with a workspace of the recorded size. For a V2 plugin: clone(),
//   attachToContext() and initialize() per context; configurePlugin() (IPluginV2DynamicExt) on a shape change; the
//   host runner's enqueueHost() on the host backend.
//
//     auto plugins = EnginePlugins::create(model, *getPluginRegistry(), true);   // error names layer and plugin
//     auto perContext = plugins.value()->attach(recorder, allocator);
//     host::Status ran = perContext.value()->run(layerIndex, inputs, outputs, outputDescDims);
#pragma once

#include "backends/host/tensor_view.h"
#include "plan/engine_model.h"
#include "plugin/plugin_v3.h"
#include "plugin/v2_handles.h"
#include "runtime/executor.h"

#include "NvInferRuntime.h"

#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace kiln
{

class ContextPlugins;

//! One plugin of one execution context, whatever its family.
class ContextPlugin
{
public:
    virtual ~ContextPlugin() = default;

    //! Runs the plugin: descs holds the data inputs' descriptors, then the outputs'. changed: the descriptors differ
    //! from the last run's (or this is the first run): the plugin hears of the new shapes first (V3
    //! onShapeChange, V2 DynamicExt configurePlugin). host: run on the host backend; otherwise enqueue on stream, the
    //! buffers and workspace in device memory. The error names the plugin.
    virtual host::Status run(std::span<nvinfer1::PluginTensorDesc const> descs, int32_t nbInputs, bool changed,
        void const* const* inputs, void* const* outputs, void* workspace, bool host, cudaStream_t stream)
        = 0;
};

//! One plugin layer's plugin of one engine, whatever its family.
class EnginePlugin
{
public:
    virtual ~EnginePlugin() = default;

    //! The plugin of a new execution context, attached to its resources (V3) or to its allocator and library handles
    //! (V2). Called under the engine's lock.
    virtual Expected<std::unique_ptr<ContextPlugin>> attach(
        nvinfer1::IPluginResourceContext& resources, V2Handles& handles)
        = 0;
};

//! The interface a creator must report for a plugin the plan holds, and how messages name both.
struct CreatorKind
{
    char const* kind;        //!< "PLUGIN CREATOR_V3ONE".
    char const* className;   //!< "IPluginCreatorV3One".
    std::string planHolds;   //!< "a V3 plugin".
    bool python{};           //!< The plan records the plugin as written in Python (PluginPlanRecord::language).
    char const* otherKind{}; //!< Another kind that does as well ("PLUGIN CREATOR_V3QUICK"), or null.
};

//! The creator registry holds for identity, reporting interface wanted.kind version 1; otherwise an error after where
//! ("layer 'x'") that says what is there instead, or how to register one.
Expected<nvinfer1::IPluginCreatorInterface*> findPluginCreator(nvinfer1::IPluginRegistry& registry,
    PluginIdentity const& identity, std::string const& where, CreatorKind const& wanted);

//! The engine plugin of V2 plugin layer layerName (runtime/plugin_runtime_v2.cpp): deserializePlugin(layerName, the
//! serialized bytes) through the V2 creator registered for params.identity, then initialize(); on the host backend
//! (host) also the plugin's host runner. Each context gets a clone(), attachToContext() (IPluginV2Ext and up) and
//! initialize(). The error names the layer and the plugin; for a missing creator or runner it says how to register
//! one.
Expected<std::unique_ptr<EnginePlugin>> makeEnginePluginV2(
    std::string const& layerName, PluginV2Params const& params, nvinfer1::IPluginRegistry& registry, bool host);

//! The engine plugin of a V3 plugin layer that the builder replaced by an ahead-of-time kernel (params.plan.aot;
//! runtime/plugin_runtime_aot.cpp): no creator is needed. Each context loads the PTX (CUDA backend) and launches the
//! kernel; on the host backend (host) a run fails, naming the layer and the plugin.
Expected<std::unique_ptr<EnginePlugin>> makeEnginePluginAot(
    std::string const& layerName, PluginV3Params const& params, bool host);

//! The plugins of one engine, made from its plan through the registry.
class EnginePlugins
{
public:
    //! Makes every plugin layer's plugin. host: the engine runs on the host backend (each plugin needs kiln's host
    //! capability). The error names the layer and the plugin; for a creator that is not registered it says how to
    //! register one.
    static Expected<std::unique_ptr<EnginePlugins>> create(
        EngineModel const& model, nvinfer1::IPluginRegistry& registry, bool host);

    ~EnginePlugins();
    EnginePlugins(EnginePlugins const&) = delete;
    EnginePlugins& operator=(EnginePlugins const&) = delete;

    //! The plugins of a new execution context whose error recorder and GPU allocator are given (either may be null).
    //! Thread-safe.
    Expected<std::unique_ptr<ContextPlugins>> attach(
        nvinfer1::IErrorRecorder* recorder, nvinfer1::IGpuAllocator* allocator) const;

private:
    friend class ContextPlugins;
    struct Slot
    {
        int32_t layer{};
        std::unique_ptr<EnginePlugin> plugin;
        int32_t nbInputs{}; //!< Data inputs.
        int64_t workspaceBytes{};
    };

    EnginePlugins() = default;

    EngineModel const* mModel{};
    bool mHost{};
    std::vector<Slot> mSlots;
    mutable std::mutex mMutex; //!< attachToContext() from contexts made on several threads.
};

//! The plugins of one execution context. Not thread-safe (one context runs one enqueue at a time).
class ContextPlugins
{
public:
    ~ContextPlugins();
    ContextPlugins(ContextPlugins const&) = delete;
    ContextPlugins& operator=(ContextPlugins const&) = delete;

    //! Runs plugin layer index (into the model's layers) on the views (only its data inputs are read: shape inputs
    //! are for getOutputShapes alone). outputDims are the output descriptors' dims: -1 where an extent waits for the
    //! plugin's own size tensors (the views then hold the upper bound). The error names the plugin; the caller adds
    //! nothing but the method.
    host::Status run(int32_t layer, std::span<host::HostTensor const* const> inputs,
        std::span<host::HostTensor const> outputs, std::span<nvinfer1::Dims const> outputDims, cudaStream_t stream);

private:
    friend class EnginePlugins;

    struct Slot
    {
        std::unique_ptr<ContextPlugin> plugin;
        int32_t nbInputs{};
        std::vector<nvinfer1::PluginTensorDesc> shaped; //!< The descriptors of the last run.
        std::vector<nvinfer1::PluginTensorDesc> descs;  //!< This run's, reused from run to run.
        std::vector<void const*> inputData;
        std::vector<void*> outputData;
        MemoryBlock workspace;
        int64_t workspaceBytes{};
    };

    ContextPlugins(
        nvinfer1::IErrorRecorder* recorder, nvinfer1::IGpuAllocator* allocator, EngineModel const& model, bool host);

    bool mHost{};
    //! This context's allocator and recorder, and its V2 plugins' library handles; they outlive the clones, which may
    //! keep their addresses.
    PluginResourceContext mResources;
    V2Handles mHandles;
    std::vector<int32_t> mSlotOf; //!< Per model layer: its slot, or -1.
    std::vector<Slot> mSlots;
    EngineModel const* mModel{};
};

} // namespace kiln
