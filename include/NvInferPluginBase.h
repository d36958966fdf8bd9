/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * NvInferPluginBase.h -- the parts of the plugin API shared by every plugin generation: plugin fields (how
 * plugins receive attributes and serialize themselves), the V3 plugin root IPluginV3, capability markers,
 * the creator root and shared plugin resources.
 *
 * Do not include this file directly; include NvInferRuntime.h. A V3 plugin serializes itself as fields:
 *
 *     mFields.emplace_back("pad", &mPad, nvinfer1::PluginFieldType::kINT32, 1);
 *     mCollection.nbFields = static_cast<int32_t>(mFields.size());
 *     mCollection.fields = mFields.data();
 */

#ifndef NV_INFER_PLUGIN_BASE_H
#define NV_INFER_PLUGIN_BASE_H

#if !defined(NV_INFER_INTERNAL_INCLUDE)
static_assert(false, "Do not directly include this file. Include NvInferRuntime.h or NvInferPluginUtils.h");
#endif

#define NV_INFER_INTERNAL_INCLUDE 1
#include "NvInferRuntimeBase.h"
#undef NV_INFER_INTERNAL_INCLUDE

namespace nvinfer1
{

//! The type of the data a PluginField points to.
enum class PluginFieldType : int32_t
{
    kFLOAT16 = 0, //!< 16-bit floats.
    kFLOAT32 = 1, //!< 32-bit floats.
    kFLOAT64 = 2, //!< 64-bit floats.
    kINT8 = 3,    //!< 8-bit integers.
    kINT16 = 4,   //!< 16-bit integers.
    kINT32 = 5,   //!< 32-bit integers.
    kCHAR = 6,    //!< Characters (a string; length counts the characters).
    kDIMS = 7,    //!< nvinfer1::Dims values.
    kUNKNOWN = 8, //!< Opaque bytes; length is the byte count.
    kBF16 = 9,    //!< bfloat16 values.
    kINT64 = 10,  //!< 64-bit integers.
    kFP8 = 11,    //!< FP8 (E4M3) values.
    kINT4 = 12,   //!< 4-bit integers, packed.
    kFP4 = 13,    //!< FP4 (E2M1) values, packed.
};

//! One named attribute of a plugin: a pointer to length values of a given type. Does not own the data.
class PluginField
{
public:
    AsciiChar const* name; //!< The field's name.
    void const* data;      //!< The field's values.
    PluginFieldType type;  //!< The type of the values.
    int32_t length;        //!< The number of values (bytes for kUNKNOWN).

    //! A field naming length values of the given type at data.
    PluginField(AsciiChar const* const name_ = nullptr, void const* const data_ = nullptr,
        PluginFieldType const type_ = PluginFieldType::kUNKNOWN, int32_t const length_ = 0) noexcept
        : name(name_)
        , data(data_)
        , type(type_)
        , length(length_)
    {
    }
};

//! An array of plugin fields. Does not own them.
struct PluginFieldCollection
{
    int32_t nbFields{};          //!< The number of fields.
    PluginField const* fields{}; //!< The fields.
};

//! The phase in which a V3 plugin is created.
enum class TensorRTPhase : int32_t
{
    kBUILD = 0,   //!< Engine build: the plugin needs its build and runtime capabilities.
    kRUNTIME = 1, //!< Engine deserialization: the plugin needs its runtime capability.
};

//! The capability interfaces a V3 plugin offers through getCapabilityInterface().
enum class PluginCapabilityType : int32_t
{
    kCORE = 0,    //!< Name, version and namespace (IPluginV3OneCore).
    kBUILD = 1,   //!< Build-time methods (IPluginV3OneBuild).
    kRUNTIME = 2, //!< Run-time methods (IPluginV3OneRuntime).
};

namespace v_1_0
{

//! The marker base of plugin capability interfaces. Derive from the concrete capability classes, not from this.
class IPluginCapability : public IVersionedInterface
{
};

//! A resource shared among plugins through IPluginRegistry::acquirePluginResource, implemented by the user.
class IPluginResource : public IVersionedInterface
{
public:
    //! Reports {"IPluginResource", 1, 0}.
    InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"IPluginResource", 1, 0}; }

    //! Frees what this clone holds; called once when the last user releases it. Returns 0 on success.
    virtual int32_t release() noexcept = 0;

    //! A new, fully initialised copy; the registry stores clones only. Must be thread-safe. nullptr on failure.
    virtual IPluginResource* clone() noexcept = 0;

    ~IPluginResource() noexcept override = default;

    IPluginResource() = default;
    IPluginResource(IPluginResource const&) = default;
    IPluginResource(IPluginResource&&) = default;
    IPluginResource& operator=(IPluginResource const&) & = default;
    IPluginResource& operator=(IPluginResource&&) & = default;
};

//! The root of every plugin creator; the kind string tells V2 creators from V3 ones.
class IPluginCreatorInterface : public IVersionedInterface
{
public:
    ~IPluginCreatorInterface() noexcept override = default;

protected:
    IPluginCreatorInterface() = default;
    IPluginCreatorInterface(IPluginCreatorInterface const&) = default;
    IPluginCreatorInterface(IPluginCreatorInterface&&) = default;
    IPluginCreatorInterface& operator=(IPluginCreatorInterface const&) & = default;
    IPluginCreatorInterface& operator=(IPluginCreatorInterface&&) & = default;
};

//! A V3 plugin: a set of capability interfaces (core, build, runtime) reached through getCapabilityInterface().
class IPluginV3 : public IVersionedInterface
{
public:
    //! Reports {"PLUGIN", 1, 0}.
    InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"PLUGIN", 1, 0}; }

    //! The capability interface of the given type, or nullptr when the plugin lacks it.
    virtual IPluginCapability* getCapabilityInterface(PluginCapabilityType type) noexcept = 0;

    //! A fully initialised copy with at least the same capabilities; nullptr on failure.
    virtual IPluginV3* clone() noexcept = 0;
};

} // namespace v_1_0

using IPluginCapability = v_1_0::IPluginCapability;             //!< The capability marker base.
using IPluginResource = v_1_0::IPluginResource;                 //!< The shared-resource interface.
using IPluginCreatorInterface = v_1_0::IPluginCreatorInterface; //!< The creator root.
using IPluginV3 = v_1_0::IPluginV3;                             //!< The V3 plugin root.

} // namespace nvinfer1

#endif // NV_INFER_PLUGIN_BASE_H
