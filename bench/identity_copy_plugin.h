// SPDX-License-Identifier: Apache-2.0
// IdentityCopy, kiln_bench's V3 plugin (name "KilnBenchIdentityCopy", version "1", namespace "kiln_bench"): one input
// of kFLOAT or kHALF in linear format, one output of the same type and shape, which enqueue() fills with a single
// cudaMemcpyAsync device-to-device on the stream it is given. No fields, no workspace, no tactics. Its cost over a
// bare cudaMemcpyAsync is what the engine adds around a plugin.
//
//     static kiln_bench::IdentityCopyCreator creator;
//     getPluginRegistry()->registerCreator(creator, kiln_bench::kPluginNamespace);
#pragma once

#include "NvInferRuntime.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace kiln_bench
{

using namespace nvinfer1;

constexpr char const* kPluginName = "KilnBenchIdentityCopy";
constexpr char const* kPluginVersion = "1";
constexpr char const* kPluginNamespace = "kiln_bench";

class IdentityCopyPlugin final : public IPluginV3,
                                 public IPluginV3OneCore,
                                 public IPluginV3OneBuild,
                                 public IPluginV3OneRuntime
{
public:
    IPluginCapability* getCapabilityInterface(PluginCapabilityType type) noexcept override
    {
        switch (type)
        {
        case PluginCapabilityType::kCORE: return static_cast<IPluginV3OneCore*>(this);
        case PluginCapabilityType::kBUILD: return static_cast<IPluginV3OneBuild*>(this);
        case PluginCapabilityType::kRUNTIME: return static_cast<IPluginV3OneRuntime*>(this);
        }
        return nullptr;
    }

    IPluginV3* clone() noexcept override
    {
        try
        {
            return new IdentityCopyPlugin(*this);
        }
        catch (...)
        {
            return nullptr;
        }
    }

    // Core.
    char const* getPluginName() const noexcept override { return kPluginName; }
    char const* getPluginVersion() const noexcept override { return kPluginVersion; }
    char const* getPluginNamespace() const noexcept override { return kPluginNamespace; }

    // Build.
    int32_t configurePlugin(DynamicPluginTensorDesc const*, int32_t nbInputs, DynamicPluginTensorDesc const*,
        int32_t nbOutputs) noexcept override
    {
        return nbInputs == 1 && nbOutputs == 1 ? 0 : -1;
    }

    int32_t getOutputDataTypes(
        DataType* outputTypes, int32_t nbOutputs, DataType const* inputTypes, int32_t nbInputs) const noexcept override
    {
        if (nbInputs != 1 || nbOutputs != 1)
        {
            return -1;
        }
        outputTypes[0] = inputTypes[0];
        return 0;
    }

    int32_t getOutputShapes(DimsExprs const* inputs, int32_t nbInputs, DimsExprs const*, int32_t, DimsExprs* outputs,
        int32_t nbOutputs, IExprBuilder&) noexcept override
    {
        if (nbInputs != 1 || nbOutputs != 1)
        {
            return -1;
        }
        outputs[0] = inputs[0];
        return 0;
    }

    bool supportsFormatCombination(
        int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t, int32_t) noexcept override
    {
        PluginTensorDesc const& desc = inOut[pos].desc;
        if (desc.format != TensorFormat::kLINEAR)
        {
            return false;
        }
        return pos == 0 ? desc.type == DataType::kFLOAT || desc.type == DataType::kHALF
                        : desc.type == inOut[0].desc.type;
    }

    int32_t getNbOutputs() const noexcept override { return 1; }

    // Runtime.
    int32_t onShapeChange(PluginTensorDesc const*, int32_t, PluginTensorDesc const*, int32_t) noexcept override
    {
        return 0;
    }

    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const*, void const* const* inputs,
        void* const* outputs, void*, cudaStream_t stream) noexcept override
    {
        int64_t count = 1;
        for (int32_t i = 0; i < inputDesc[0].dims.nbDims; ++i)
        {
            count *= inputDesc[0].dims.d[i];
        }
        int64_t const size = inputDesc[0].type == DataType::kHALF ? 2 : 4;
        cudaError_t const status = cudaMemcpyAsync(
            outputs[0], inputs[0], static_cast<std::size_t>(count * size), cudaMemcpyDeviceToDevice, stream);
        return status == cudaSuccess ? 0 : -1;
    }

    IPluginV3* attachToContext(IPluginResourceContext*) noexcept override { return clone(); }

    PluginFieldCollection const* getFieldsToSerialize() noexcept override { return &mNoFields; }

private:
    PluginFieldCollection mNoFields{0, nullptr};
};

class IdentityCopyCreator final : public IPluginCreatorV3One
{
public:
    IPluginV3* createPlugin(char const*, PluginFieldCollection const*, TensorRTPhase) noexcept override
    {
        try
        {
            return new IdentityCopyPlugin();
        }
        catch (...)
        {
            return nullptr;
        }
    }

    PluginFieldCollection const* getFieldNames() noexcept override { return &mNoFields; }
    char const* getPluginName() const noexcept override { return kPluginName; }
    char const* getPluginVersion() const noexcept override { return kPluginVersion; }
    char const* getPluginNamespace() const noexcept override { return kPluginNamespace; }

private:
    PluginFieldCollection mNoFields{0, nullptr};
};

} // namespace kiln_bench
