// SPDX-License-Identifier: Apache-2.0
// The V3 plugin library `kiln check-plugin`'s tests check: KilnCheckScale version "1" namespace "", y = scale * x on
// linear FP32, with a "scale" field (kFLOAT32, declared with the default 2) and kiln's host capability. Built once
// as it should be (libkiln_check_none.so) and once per planted violation, each selected by one
// KILN_CHECK_BREAKS_<RULE> definition (tests/tools/CMakeLists.txt) and each breaking exactly one rule. With
// KILN_CHECK_STATIC_REGISTRATION (libkiln_check_static.so) it registers its creator from a static initializer
// (REGISTER_TENSORRT_PLUGIN) instead of exporting getCreators.
//
//   FIELDS_ROUND_TRIP   createPlugin(kRUNTIME) ignores the serialized scale
//   CLONE               clone loses the scale
//   IDENTITY            the core capability names another plugin than the creator
//   CAPABILITIES        getCapabilityInterface(kBUILD) returns the core capability
//   SAMPLE_INPUTS       getOutputShapes dereferences null (a crash while the inputs are probed)
//   FORMAT_WITHIN_POS   supportsFormatCombination(pos 0) reads the output's entry, inOut[1]
//   FORMAT_CONSISTENT   supportsFormatCombination answers FP16 at pos 0 alternately true and false
//   OUTPUT_SHAPES       getNbOutputs says 2, getOutputShapes writes only the first
//   OUTPUTS_WRITTEN     enqueueHost writes only the first half of the output
//   OUTPUTS_WRITTEN_CRASH  enqueueHost dereferences null
//   MEMORY_BOUNDS       enqueueHost writes one element past the output's end
//   MEMORY_BOUNDS_INPUT enqueueHost scales its input in place before copying it out
//   ATTACH_TO_CONTEXT   attachToContext returns the plugin itself
//   RESOURCES_RELEASED  the attached object acquires a registry resource and never releases it
//   NO_LEAK             every plugin object allocates a buffer it never frees
#include "kiln/plugin_host.h"

#include "NvInferRuntime.h"

#include <cstdint>
#include <cstring>

using namespace nvinfer1;

namespace
{

constexpr char const* kName = "KilnCheckScale";
constexpr char const* kVersion = "1";
constexpr char const* kNamespace = "";
constexpr float kDefaultScale = 2.0F;

//! An address no process maps (below mmap_min_addr), where the planted crashes read and write; volatile so that the
//! compiler keeps the access it cannot prove wrong.
[[maybe_unused]] std::uintptr_t volatile gUnmapped = 64;

int64_t volume(Dims const& dims)
{
    int64_t count = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        count *= dims.d[i];
    }
    return count;
}

#ifdef KILN_CHECK_BREAKS_RESOURCES_RELEASED
//! A registry resource the attached object acquires.
class Scratch final : public IPluginResource
{
public:
    int32_t release() noexcept override { return 0; }
    IPluginResource* clone() noexcept override { return new Scratch(); }
};
#endif

class ScalePlugin final : public IPluginV3,
                          public IPluginV3OneCore,
                          public IPluginV3OneBuild,
                          public IPluginV3OneRuntime,
                          public kiln::IPluginV3OneHost
{
public:
    explicit ScalePlugin(float scale)
        : mScale(scale)
    {
#ifdef KILN_CHECK_BREAKS_NO_LEAK
        mLeaked = new int32_t[4]; // never freed
#endif
    }
    ScalePlugin(ScalePlugin const&) = delete;
    ScalePlugin& operator=(ScalePlugin const&) = delete;

    IPluginCapability* getCapabilityInterface(PluginCapabilityType type) noexcept override
    {
        if (type == kiln::kPLUGIN_CAPABILITY_HOST)
        {
            return static_cast<kiln::IPluginV3OneHost*>(this);
        }
        switch (type)
        {
        case PluginCapabilityType::kCORE: return static_cast<IPluginV3OneCore*>(this);
#ifdef KILN_CHECK_BREAKS_CAPABILITIES
        case PluginCapabilityType::kBUILD: return static_cast<IPluginV3OneCore*>(this);
#else
        case PluginCapabilityType::kBUILD: return static_cast<IPluginV3OneBuild*>(this);
#endif
        case PluginCapabilityType::kRUNTIME: return static_cast<IPluginV3OneRuntime*>(this);
        }
        return nullptr;
    }

    IPluginV3* clone() noexcept override
    {
#ifdef KILN_CHECK_BREAKS_CLONE
        return new ScalePlugin(1.0F);
#else
        return new ScalePlugin(mScale);
#endif
    }

#ifdef KILN_CHECK_BREAKS_IDENTITY
    char const* getPluginName() const noexcept override
    {
        return "KilnCheckScaleRenamed";
    }
#else
    char const* getPluginName() const noexcept override
    {
        return kName;
    }
#endif
    char const* getPluginVersion() const noexcept override
    {
        return kVersion;
    }
    char const* getPluginNamespace() const noexcept override
    {
        return kNamespace;
    }

#ifdef KILN_CHECK_BREAKS_OUTPUT_SHAPES
    int32_t getNbOutputs() const noexcept override
    {
        return 2;
    }
#else
    int32_t getNbOutputs() const noexcept override
    {
        return 1;
    }
#endif
    int32_t getOutputDataTypes(
        DataType* outputTypes, int32_t nbOutputs, DataType const* inputTypes, int32_t) const noexcept override
    {
        for (int32_t i = 0; i < nbOutputs; ++i)
        {
            outputTypes[i] = inputTypes[0];
        }
        return 0;
    }
    int32_t getOutputShapes(DimsExprs const* inputs, int32_t nbInputs, DimsExprs const*, int32_t, DimsExprs* outputs,
        int32_t, IExprBuilder&) noexcept override
    {
        if (nbInputs != 1)
        {
            return -1;
        }
#ifdef KILN_CHECK_BREAKS_SAMPLE_INPUTS
        auto const* nowhere = reinterpret_cast<DimsExprs const*>(gUnmapped);
        outputs[0] = inputs[0].nbDims > 0 ? *nowhere : inputs[0]; // a crash
#else
        outputs[0] = inputs[0];
#endif
        return 0;
    }
    bool supportsFormatCombination(
        int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t, int32_t) noexcept override
    {
        PluginTensorDesc const& desc = inOut[pos].desc;
#ifdef KILN_CHECK_BREAKS_FORMAT_CONSISTENT
        if (pos == 0 && desc.type == DataType::kHALF)
        {
            mFlip = !mFlip;
            return mFlip;
        }
#endif
#ifdef KILN_CHECK_BREAKS_FORMAT_WITHIN_POS
        if (pos == 0 && inOut[1].desc.type != desc.type) // looks ahead at the output's entry
        {
            return false;
        }
#endif
        return desc.type == DataType::kFLOAT && desc.format == TensorFormat::kLINEAR;
    }
    int32_t configurePlugin(
        DynamicPluginTensorDesc const*, int32_t, DynamicPluginTensorDesc const*, int32_t) noexcept override
    {
        return 0;
    }

    int32_t onShapeChange(PluginTensorDesc const*, int32_t, PluginTensorDesc const*, int32_t) noexcept override
    {
        return 0;
    }
    int32_t enqueue(PluginTensorDesc const*, PluginTensorDesc const*, void const* const*, void* const*, void*,
        cudaStream_t) noexcept override
    {
        return 1; // no CUDA kernel: the checks run enqueueHost
    }
    int32_t enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const*, void const* const* inputs,
        void* const* outputs, void*) noexcept override
    {
        auto const* x = static_cast<float const*>(inputs[0]);
        auto* y = static_cast<float*>(outputs[0]);
        int64_t const count = volume(inputDesc[0].dims);
#if defined(KILN_CHECK_BREAKS_OUTPUTS_WRITTEN)
        for (int64_t i = 0; i < count / 2; ++i) // the second half stays unwritten
        {
            y[i] = mScale * x[i];
        }
#elif defined(KILN_CHECK_BREAKS_OUTPUTS_WRITTEN_CRASH)
        auto* nowhere = reinterpret_cast<float*>(gUnmapped);
        nowhere[count - 1] = mScale * x[0]; // a crash instead of writing y
        (void)y;
#elif defined(KILN_CHECK_BREAKS_MEMORY_BOUNDS_INPUT)
        auto* scaled = const_cast<float*>(x); // scales the input in place
        for (int64_t i = 0; i < count; ++i)
        {
            scaled[i] *= mScale;
        }
        std::memcpy(y, x, static_cast<std::size_t>(count) * sizeof(float));
#else
        for (int64_t i = 0; i < count; ++i)
        {
            y[i] = mScale * x[i];
        }
#ifdef KILN_CHECK_BREAKS_MEMORY_BOUNDS
        y[count] = 0.0F; // one past the end
#endif
#endif
        return 0;
    }
    IPluginV3* attachToContext(IPluginResourceContext*) noexcept override
    {
#ifdef KILN_CHECK_BREAKS_ATTACH_TO_CONTEXT
        return this;
#else
        auto* attached = new ScalePlugin(mScale);
#ifdef KILN_CHECK_BREAKS_RESOURCES_RELEASED
        Scratch scratch;
        getPluginRegistry()->acquirePluginResource("kiln_check.scratch", &scratch); // never released
#endif
        return attached;
#endif
    }
    PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        mField = PluginField("scale", &mScale, PluginFieldType::kFLOAT32, 1);
        mFields = PluginFieldCollection{1, &mField};
        return &mFields;
    }

private:
    float mScale;
    bool mFlip{false};
    int32_t* mLeaked{nullptr};
    PluginField mField{};
    PluginFieldCollection mFields{};
};

class ScaleCreator final : public IPluginCreatorV3One
{
public:
    ScaleCreator()
    {
        mDeclared = PluginField("scale", &kDefaultScale, PluginFieldType::kFLOAT32, 1);
        mFields = PluginFieldCollection{1, &mDeclared};
    }

    IPluginV3* createPlugin(char const*, PluginFieldCollection const* fc, TensorRTPhase phase) noexcept override
    {
        float scale = 1.0F;
        for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
        {
            PluginField const& field = fc->fields[i];
            bool const usable = std::strcmp(field.name, "scale") == 0 && field.type == PluginFieldType::kFLOAT32
                && field.length == 1 && field.data != nullptr;
#ifdef KILN_CHECK_BREAKS_FIELDS_ROUND_TRIP
            if (usable && phase == TensorRTPhase::kBUILD) // the serialized value is ignored
#else
            if (usable)
#endif
            {
                scale = *static_cast<float const*>(field.data);
            }
        }
        (void)phase;
        return new ScalePlugin(scale);
    }
    PluginFieldCollection const* getFieldNames() noexcept override
    {
        return &mFields;
    }
    char const* getPluginName() const noexcept override
    {
        return kName;
    }
    char const* getPluginVersion() const noexcept override
    {
        return kVersion;
    }
    char const* getPluginNamespace() const noexcept override
    {
        return kNamespace;
    }

private:
    PluginField mDeclared{};
    PluginFieldCollection mFields{};
};

#ifndef KILN_CHECK_STATIC_REGISTRATION
ScaleCreator gCreator;
IPluginCreatorInterface* const gCreators[] = {&gCreator};
#endif

} // namespace

#ifdef KILN_CHECK_STATIC_REGISTRATION
REGISTER_TENSORRT_PLUGIN(ScaleCreator);
#else
extern "C" __attribute__((visibility("default"))) IPluginCreatorInterface* const* getCreators(int32_t& nbCreators)
{
    nbCreators = 1;
    return gCreators;
}
#endif
