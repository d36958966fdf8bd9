/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * NvInferRuntimeCommon.h -- the plugin registry: where plugin creators are registered and found, plugin shared
 * libraries are loaded, and resources shared among plugins are kept.
 *
 * The process-wide registry is returned by getPluginRegistry() (NvInferRuntime.h):
 *
 *     auto* creator = static_cast<nvinfer1::IPluginCreatorV3One*>(
 *         getPluginRegistry()->getCreator("PadPlugin", "1", ""));
 *     auto handle = getPluginRegistry()->loadLibrary("libmyplugins.so");   // nullptr on failure
 *
 * Every method is thread-safe. Refusals return false / nullptr and log an error naming what was asked for.
 */

#ifndef NV_INFER_RUNTIME_COMMON_H
#define NV_INFER_RUNTIME_COMMON_H

#define NV_INFER_INTERNAL_INCLUDE 1
#include "NvInferPluginBase.h"
#undef NV_INFER_INTERNAL_INCLUDE
#include "NvInferRuntimePlugin.h"

namespace nvinfer1
{

KILN_IGNORE_DEPRECATED_BEGIN

//! The registry of plugin creators, plugin libraries and shared plugin resources. Owned by the library.
class IPluginRegistry
{
public:
    using PluginLibraryHandle = void*; //!< Identifies a library loaded with loadLibrary().

    //! Registers a V2 creator under pluginNamespace; false (and a logged error) if that name/version/namespace
    //! is already registered.
    TRT_DEPRECATED virtual bool registerCreator(
        IPluginCreator& creator, AsciiChar const* const pluginNamespace) noexcept = 0;

    //! The registered V2 creators; numCreators receives their count.
    TRT_DEPRECATED virtual IPluginCreator* const* getPluginCreatorList(int32_t* const numCreators) const noexcept = 0;

    //! The V2 creator with this name, version and namespace, or nullptr.
    TRT_DEPRECATED virtual IPluginCreator* getPluginCreator(AsciiChar const* const pluginName,
        AsciiChar const* const pluginVersion, AsciiChar const* const pluginNamespace = "") noexcept = 0;

    IPluginRegistry() = default;
    IPluginRegistry(IPluginRegistry const&) = delete;
    IPluginRegistry(IPluginRegistry&&) = delete;
    IPluginRegistry& operator=(IPluginRegistry const&) & = delete;
    IPluginRegistry& operator=(IPluginRegistry&&) & = delete;

protected:
    virtual ~IPluginRegistry() noexcept = default;

public:
    //! Sends the registry's errors to recorder as well as to the logger; nullptr detaches the current one.
    virtual void setErrorRecorder(IErrorRecorder* const recorder) noexcept = 0;

    //! The recorder set with setErrorRecorder(), or nullptr.
    virtual IErrorRecorder* getErrorRecorder() const noexcept = 0;

    //! Removes a V2 creator registered earlier; false if it is not registered.
    TRT_DEPRECATED virtual bool deregisterCreator(IPluginCreator const& creator) noexcept = 0;

    //! Whether look-ups that miss continue in the parent registry.
    virtual bool isParentSearchEnabled() const = 0;

    //! Turns look-ups in the parent registry on or off (on by default).
    virtual void setParentSearchEnabled(bool const enabled) = 0;

    //! Loads a plugin shared library and registers its creators; nullptr if it cannot be loaded, lacks the entry
    //! points, or holds a creator that is already registered.
    virtual PluginLibraryHandle loadLibrary(AsciiChar const* pluginPath) noexcept = 0;

    //! Deregisters the creators of a library loaded with loadLibrary() and unloads it.
    virtual void deregisterLibrary(PluginLibraryHandle handle) noexcept = 0;

    //! Registers a V2 or V3 creator under pluginNamespace; false if that name/version/namespace is taken.
    virtual bool registerCreator(IPluginCreatorInterface& creator, AsciiChar const* const pluginNamespace) noexcept = 0;

    //! Every registered creator, V2 and V3; numCreators receives their count; nullptr when there are none.
    virtual IPluginCreatorInterface* const* getAllCreators(int32_t* const numCreators) const noexcept = 0;

    //! The creator (V2 or V3) with this name, version and namespace, or nullptr.
    virtual IPluginCreatorInterface* getCreator(AsciiChar const* const pluginName, AsciiChar const* const pluginVersion,
        AsciiChar const* const pluginNamespace = "") noexcept = 0;

    //! Removes a creator registered earlier; false if it is not registered.
    virtual bool deregisterCreator(IPluginCreatorInterface const& creator) noexcept = 0;

    //! Returns the resource stored under key, storing a clone of resource first if there is none; counts users.
    virtual IPluginResource* acquirePluginResource(AsciiChar const* key, IPluginResource* resource) noexcept = 0;

    //! Drops one user of key; the last one releases and deletes the stored clone. Returns 0 on success.
    virtual int32_t releasePluginResource(AsciiChar const* key) noexcept = 0;

    //! Like getAllCreators(), followed by the parents' creators while parent search is enabled.
    virtual IPluginCreatorInterface* const* getAllCreatorsRecursive(int32_t* const numCreators) noexcept = 0;
};

KILN_IGNORE_DEPRECATED_END

} // namespace nvinfer1

#endif // NV_INFER_RUNTIME_COMMON_H
