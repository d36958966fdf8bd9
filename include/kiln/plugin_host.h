/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * kiln/plugin_host.h -- how plugins also run on kiln's host backend, where tensors live in host memory and there is
 * no CUDA stream. Two routes, one per plugin family:
 *
 * V3 plugins derive from kiln::IPluginV3OneHost alongside their TensorRT capabilities. kiln never calls a plugin
 * outside TensorRT's contract: getCapabilityInterface() sees only kCORE, kBUILD and kRUNTIME unless the plugin opted
 * in, so a plugin written for TensorRT alone (one that asserts on any other capability type) runs on kiln unchanged.
 * The opt-in is explicit, one of two ways:
 *
 * 1. Derive the plugin's class publicly from kiln::IPluginV3OneHost and build it with RTTI (the compiler's default).
 *    kiln finds that base from the object's own type information, without calling the plugin; nothing else to do.
 * 2. Build with -fno-rtti, or keep the host capability in an object of its own: declare the plugin's name, version
 *    and namespace with kilnRegisterPluginV3Host() before engines that use it are built or deserialized, and answer
 *    getCapabilityInterface(kiln::kPLUGIN_CAPABILITY_HOST) with the host capability. kiln asks for that value only of
 *    the plugins so declared.
 *
 * Either way the capability must report {"KILN_PLUGIN_V3ONE_HOST", 1, 0}. Answering kPLUGIN_CAPABILITY_HOST as below
 * is harmless under both rules (TensorRT never passes it), so it is the portable way to write a host plugin:
 *
 *     #include "kiln/plugin_host.h"
 *     class Doubler : public nvinfer1::IPluginV3, public nvinfer1::IPluginV3OneCore,
 *                     public nvinfer1::IPluginV3OneBuild, public nvinfer1::IPluginV3OneRuntime,
 *                     public kiln::IPluginV3OneHost
 *     {
 *         nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override
 *         {
 *             if (type == kiln::kPLUGIN_CAPABILITY_HOST)
 *                 return static_cast<kiln::IPluginV3OneHost*>(this);
 *             // ... kCORE, kBUILD and kRUNTIME as usual; nullptr for anything else
 *         }
 *         int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const*,
 *             void const* const* inputs, void* const* outputs, void*) noexcept override
 *         {
 *             // the same computation as enqueue(), on host pointers, finished before returning
 *         }
 *         // ... the other methods of the four TensorRT classes
 *     };
 *     #if defined(KILN_VERSION_MAJOR) && !defined(__GXX_RTTI)
 *     kilnRegisterPluginV3Host("Doubler", "1", "");            // only without RTTI
 *     #endif
 *
 * A plugin without the host capability still builds into a host engine when the builder has nothing to run (one
 * format combination and no custom tactics); executing it is what needs the capability, and the refusal, naming the
 * plugin, comes from createExecutionContext().
 *
 * V2 plugins (IPluginV2 to IPluginV2DynamicExt) have no capabilities to offer, so their host code lives in a separate
 * object, a kiln::IPluginV2HostRunner, registered for the plugin's name, version and namespace before an engine that
 * uses the plugin is built or deserialized:
 *
 *     class DoublerRunner : public kiln::IPluginV2HostRunner
 *     {
 *         int32_t enqueueHost(nvinfer1::IPluginV2& plugin, nvinfer1::PluginTensorDesc const* inputDesc,
 *             nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs,
 *             void* workspace) noexcept override
 *         {
 *             auto& doubler = static_cast<Doubler&>(plugin);   // the type the runner was registered for
 *             // the same computation as doubler.enqueue(), on host pointers, finished before returning
 *         }
 *     };
 *     static DoublerRunner runner;                             // outlives every engine that uses it
 *     #ifdef KILN_VERSION_MAJOR
 *     kilnRegisterPluginV2HostRunner("Doubler", "1", "", &runner);
 *     #endif
 *
 * Like TensorRT's own interfaces, a released class never changes: new methods go into a subclass in a new
 * versioned namespace that reports a higher major version. The header needs C++14 and no RTTI.
 */

#ifndef KILN_PLUGIN_HOST_H
#define KILN_PLUGIN_HOST_H

#include "NvInferRuntimePlugin.h"

#include <cstdint>

namespace kiln
{

//! The capability type kiln passes to IPluginV3::getCapabilityInterface() to ask for IPluginV3OneHost, and only of
//! plugins declared with kilnRegisterPluginV3Host(). It lies outside TensorRT's PluginCapabilityType values ("KLN"
//! and 1 in its bytes), so TensorRT never passes it. Test for it with an if: as a case label of a switch on the type,
//! GCC warns that the value is not an enumerator.
constexpr nvinfer1::PluginCapabilityType kPLUGIN_CAPABILITY_HOST
    = static_cast<nvinfer1::PluginCapabilityType>(0x4B4C4E01);

namespace v_1_0
{

//! The host capability of a V3 plugin: runs the layer on kiln's host backend. kiln recognises it by its interface
//! info {"KILN_PLUGIN_V3ONE_HOST", 1, 0}, never by RTTI; the host backend refuses a plugin without it.
class IPluginV3OneHost : public nvinfer1::IPluginCapability
{
public:
    //! Reports {"KILN_PLUGIN_V3ONE_HOST", 1, 0}.
    nvinfer1::InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return nvinfer1::InterfaceInfo{"KILN_PLUGIN_V3ONE_HOST", 1, 0};
    }

    //! Runs the layer on host memory and returns 0 on success (anything else fails the execution, naming the
    //! plugin). The host backend calls it instead of IPluginV3OneRuntime::enqueue(), on the plugin object that
    //! attachToContext() returned for the execution context, after the same setTactic()/onShapeChange() sequence
    //! enqueue() would follow. The descriptors, data types and formats are the ones enqueue() would receive;
    //! inputs and outputs point to host memory; workspace is getWorkspaceSize() bytes of host memory (nullptr when
    //! that size is 0). The work must be complete when the call returns: there is no stream.
    virtual int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc,
        nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs,
        void* workspace) noexcept = 0;

protected:
    IPluginV3OneHost() = default;
    IPluginV3OneHost(IPluginV3OneHost const&) = default;
    IPluginV3OneHost(IPluginV3OneHost&&) = default;
    IPluginV3OneHost& operator=(IPluginV3OneHost const&) & = default;
    IPluginV3OneHost& operator=(IPluginV3OneHost&&) & = default;
};

} // namespace v_1_0

using IPluginV3OneHost = v_1_0::IPluginV3OneHost; //!< The host capability of V3 plugins.

KILN_IGNORE_DEPRECATED_BEGIN

namespace v_1_0
{

//! Runs the V2 plugins of one name, version and namespace on kiln's host backend. kiln recognises it by its
//! interface info {"KILN_PLUGIN_V2_HOST_RUNNER", 1, 0}, never by RTTI. The host backend refuses a V2 plugin for which
//! no runner is registered (kilnRegisterPluginV2HostRunner).
class IPluginV2HostRunner : public nvinfer1::IVersionedInterface
{
public:
    //! Reports {"KILN_PLUGIN_V2_HOST_RUNNER", 1, 0}.
    nvinfer1::InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return nvinfer1::InterfaceInfo{"KILN_PLUGIN_V2_HOST_RUNNER", 1, 0};
    }

    //! Runs plugin (an object of the type the runner was registered for: static_cast it) on host memory and returns
    //! 0 on success (anything else fails the build or the execution, naming the plugin). The host backend calls it
    //! instead of the plugin's enqueue(), on the plugin object of the execution context (after clone(),
    //! attachToContext() and initialize(); for an IPluginV2DynamicExt, after configurePlugin() with the new shapes),
    //! and at build time on the builder's object between initialize() and terminate(). The descriptors carry full
    //! dims including the leading batch dimension for every level (inputDesc[0].dims.d[0] is the batch size an
    //! IPluginV2 to IPluginV2IOExt enqueue() would receive), with the types and formats the plugin accepted; inputs
    //! and outputs point to host memory; workspace is getWorkspaceSize() bytes of host memory (nullptr when that size
    //! is 0). The work must be complete when the call returns: there is no stream.
    virtual int32_t enqueueHost(nvinfer1::IPluginV2& plugin, nvinfer1::PluginTensorDesc const* inputDesc,
        nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs,
        void* workspace) noexcept = 0;

protected:
    IPluginV2HostRunner() = default;
    IPluginV2HostRunner(IPluginV2HostRunner const&) = default;
    IPluginV2HostRunner(IPluginV2HostRunner&&) = default;
    IPluginV2HostRunner& operator=(IPluginV2HostRunner const&) & = default;
    IPluginV2HostRunner& operator=(IPluginV2HostRunner&&) & = default;
};

} // namespace v_1_0

using IPluginV2HostRunner = v_1_0::IPluginV2HostRunner; //!< The host runner of V2 plugins.

KILN_IGNORE_DEPRECATED_END

} // namespace kiln

extern "C"
{
    //! Registers runner for the V2 plugins whose getPluginType(), getPluginVersion() and getPluginNamespace() are name,
    //! version and pluginNamespace (nullptr: ""), process-wide. Returns false, logging why, when name or version is
    //! null or runner is null, does not report "KILN_PLUGIN_V2_HOST_RUNNER" major 1, or a runner is already registered
    //! for that plugin. kiln looks the runner up when it builds or deserializes an engine and keeps it for that
    //! engine's life: runner must outlive every such engine (deregistering affects only later look-ups). Thread-safe.
    TENSORRTAPI bool kilnRegisterPluginV2HostRunner(
        char const* name, char const* version, char const* pluginNamespace, kiln::IPluginV2HostRunner* runner) noexcept;

    //! Removes the runner registered for name, version and pluginNamespace (nullptr: ""); false, logging why, when
    //! there is none. Thread-safe.
    TENSORRTAPI bool kilnDeregisterPluginV2HostRunner(
        char const* name, char const* version, char const* pluginNamespace) noexcept;

    //! Declares that the V3 plugins whose core capability reports name, version and pluginNamespace (nullptr: "")
    //! answer getCapabilityInterface(kiln::kPLUGIN_CAPABILITY_HOST) with a kiln::IPluginV3OneHost, process-wide: kiln
    //! then asks them for it. Needed only where kiln cannot find an IPluginV3OneHost base by itself (a plugin built
    //! with -fno-rtti, or a host capability that is an object of its own). Returns false, logging why, when name or
    //! version is null or the plugin is declared already. Thread-safe.
    TENSORRTAPI bool kilnRegisterPluginV3Host(
        char const* name, char const* version, char const* pluginNamespace) noexcept;

    //! Withdraws kilnRegisterPluginV3Host()'s declaration for name, version and pluginNamespace (nullptr: ""); false,
    //! logging why, when there is none. Thread-safe.
    TENSORRTAPI bool kilnDeregisterPluginV3Host(
        char const* name, char const* version, char const* pluginNamespace) noexcept;
}

#endif // KILN_PLUGIN_HOST_H
