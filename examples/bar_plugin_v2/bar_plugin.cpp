// SPDX-License-Identifier: Apache-2.0
// BarPlugin as an IPluginV2DynamicExt: see bar_plugin.h for what it computes. The methods dynamic shapes touch are the
// four of the TensorRT 8 guide's example: getOutputDimensions (Y0's first extent as an IExprBuilder sum),
// supportsFormatCombination (asked position by position; each position compared only with positions before it),
// configurePlugin (nothing to set up) and enqueue (the real shapes arrive in the descriptors).
#include "bar_plugin.h"

#include "element_types.h"
#include "example_common.h"

#ifdef KILN_EXAMPLE_CUDA
#include "bar_kernel.h"
#endif

#include <cstring>
#include <string>

using namespace nvinfer1;

namespace
{

constexpr char const* kName = "BarPlugin";
constexpr char const* kVersion = "1";
constexpr char const* kNamespace = "example";

//! The bytes of a tensor of desc's shape and type.
int64_t bytesOf(PluginTensorDesc const& desc)
{
    return example::volume(desc.dims) * example::elementSize(desc.type);
}

class BarPlugin final : public IPluginV2DynamicExt
{
public:
    BarPlugin() = default;

    // ---- IPluginV2DynamicExt ----
    IPluginV2DynamicExt* clone() const noexcept override
    {
        try
        {
            auto* plugin = new BarPlugin();
            plugin->setPluginNamespace(mNamespace.c_str());
            return plugin;
        }
        catch (...)
        {
            return nullptr;
        }
    }

    DimsExprs getOutputDimensions(
        int32_t outputIndex, DimsExprs const* inputs, int32_t nbInputs, IExprBuilder& exprBuilder) noexcept override
    {
        if (nbInputs != 2 || inputs[0].nbDims != inputs[1].nbDims || inputs[0].nbDims < 1)
        {
            example::logError(kName, "expects two inputs of one rank");
            return DimsExprs{-1, {}};
        }
        switch (outputIndex)
        {
        case 0:
        {
            // Y0: the inputs concatenated along the first dimension.
            DimsExprs output(inputs[0]);
            output.d[0] = exprBuilder.operation(DimensionOperation::kSUM, *inputs[0].d[0], *inputs[1].d[0]);
            return output;
        }
        case 1: return inputs[0]; // Y1: a copy of X0.
        default: example::logError(kName, "has two outputs"); return DimsExprs{-1, {}};
        }
    }

    bool supportsFormatCombination(
        int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t /*nbOutputs*/) noexcept override
    {
        // Every connection linear and of in[0]'s type, which is FP32 or FP16; a position is compared only with
        // positions before it.
        PluginTensorDesc const* in = inOut;
        PluginTensorDesc const* out = inOut + nbInputs;
        switch (pos)
        {
        case 0:
            return in[0].format == TensorFormat::kLINEAR
                && (in[0].type == DataType::kFLOAT || in[0].type == DataType::kHALF);
        case 1: return in[1].type == in[0].type && in[1].format == TensorFormat::kLINEAR;
        case 2: return out[0].type == in[0].type && out[0].format == TensorFormat::kLINEAR;
        case 3: return out[1].type == in[0].type && out[1].format == TensorFormat::kLINEAR;
        default: return false;
        }
    }

    void configurePlugin(DynamicPluginTensorDesc const* /*in*/, int32_t /*nbInputs*/,
        DynamicPluginTensorDesc const* /*out*/, int32_t /*nbOutputs*/) noexcept override
    {
        // Nothing to set up: the real extents arrive with each enqueue().
    }

    size_t getWorkspaceSize(PluginTensorDesc const* /*inputs*/, int32_t /*nbInputs*/,
        PluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept override
    {
        return 0;
    }

    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* /*outputDesc*/,
        void const* const* inputs, void* const* outputs, void* /*workspace*/, cudaStream_t stream) noexcept override
    {
#ifdef KILN_EXAMPLE_CUDA
        return launchBar(
                   inputs[0], bytesOf(inputDesc[0]), inputs[1], bytesOf(inputDesc[1]), outputs[0], outputs[1], stream)
                == cudaSuccess
            ? 0
            : -1;
#else
        (void)inputDesc, (void)inputs, (void)outputs, (void)stream;
        return example::noCudaKernel(kName);
#endif
    }

    // ---- IPluginV2Ext ----
    DataType getOutputDataType(
        int32_t /*index*/, DataType const* inputTypes, int32_t /*nbInputs*/) const noexcept override
    {
        return inputTypes[0]; // Both outputs have X0's type.
    }

    // ---- IPluginV2 ----
    char const* getPluginType() const noexcept override
    {
        return kName;
    }
    char const* getPluginVersion() const noexcept override
    {
        return kVersion;
    }
    int32_t getNbOutputs() const noexcept override
    {
        return 2;
    }
    int32_t initialize() noexcept override
    {
        return 0;
    }
    void terminate() noexcept override {}
    size_t getSerializationSize() const noexcept override
    {
        return 0;
    }
    void serialize(void* /*buffer*/) const noexcept override {}
    void destroy() noexcept override
    {
        delete this;
    }
    void setPluginNamespace(char const* pluginNamespace) noexcept override
    {
        mNamespace = pluginNamespace != nullptr ? pluginNamespace : "";
    }
    char const* getPluginNamespace() const noexcept override
    {
        return mNamespace.c_str();
    }

    //! The same work as enqueue(), on host memory.
    int32_t runOnHost(PluginTensorDesc const* inputDesc, void const* const* inputs, void* const* outputs) const
    {
        int64_t const bytes0 = bytesOf(inputDesc[0]);
        auto* y0 = static_cast<unsigned char*>(outputs[0]);
        std::memcpy(y0, inputs[0], static_cast<std::size_t>(bytes0));
        std::memcpy(y0 + bytes0, inputs[1], static_cast<std::size_t>(bytesOf(inputDesc[1])));
        std::memcpy(outputs[1], inputs[0], static_cast<std::size_t>(bytes0));
        return 0;
    }

private:
    std::string mNamespace{kNamespace};
};

class BarPluginCreator final : public IPluginCreator
{
public:
    char const* getPluginName() const noexcept override { return kName; }
    char const* getPluginVersion() const noexcept override { return kVersion; }
    PluginFieldCollection const* getFieldNames() noexcept override { return &mNoFields; }

    IPluginV2* createPlugin(char const* /*name*/, PluginFieldCollection const* /*fc*/) noexcept override
    {
        return make();
    }

    IPluginV2* deserializePlugin(
        char const* /*name*/, void const* /*serialData*/, size_t serialLength) noexcept override
    {
        if (serialLength != 0)
        {
            example::logError(kName, "serializes nothing, but was given " + std::to_string(serialLength) + " bytes");
            return nullptr;
        }
        return make();
    }

    void setPluginNamespace(char const* pluginNamespace) noexcept override
    {
        mNamespace = pluginNamespace != nullptr ? pluginNamespace : "";
    }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

private:
    IPluginV2* make() const noexcept
    {
        try
        {
            auto* plugin = new BarPlugin();
            plugin->setPluginNamespace(mNamespace.c_str());
            return plugin;
        }
        catch (...)
        {
            return nullptr;
        }
    }

    std::string mNamespace{kNamespace};
    PluginFieldCollection mNoFields{};
};

#ifdef KILN_VERSION_MAJOR
//! Runs BarPlugin on kiln's host backend: the descriptors carry whole shapes.
class BarPluginHostRunner final : public kiln::IPluginV2HostRunner
{
public:
    int32_t enqueueHost(IPluginV2& plugin, PluginTensorDesc const* inputDesc, PluginTensorDesc const* /*outputDesc*/,
        void const* const* inputs, void* const* outputs, void* /*workspace*/) noexcept override
    {
        return static_cast<BarPlugin&>(plugin).runOnHost(inputDesc, inputs, outputs);
    }
};
#endif

} // namespace

IPluginCreator& barPluginCreator()
{
    static BarPluginCreator creator;
    return creator;
}

#ifdef KILN_VERSION_MAJOR
kiln::IPluginV2HostRunner& barPluginHostRunner()
{
    static BarPluginHostRunner runner;
    return runner;
}
#endif
