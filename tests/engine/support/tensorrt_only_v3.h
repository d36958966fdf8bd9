// SPDX-License-Identifier: Apache-2.0
// A V3 plugin written for TensorRT alone, the way public plugin projects write them: no kiln header, and a
// getCapabilityInterface() that treats any type other than kCORE, kBUILD and kRUNTIME as a broken contract (real
// plugins assert and abort there; this one counts the breach in outOfContractCalls() so a test can say which call
// it was). It doubles a FLOAT tensor in enqueue(), which needs a GPU stream: on kiln's host backend it has no way to
// run, so it shows what building and loading such a plugin for the host backend does.
//
//     TensorRTOnlyCreator creator;                     // "TensorRTOnly" version "1" namespace "kiln.test"
//     registry.registerCreator(creator, "kiln.test");
#pragma once

#include "NvInfer.h"

#include <atomic>

namespace kiln::test
{

//! The calls of getCapabilityInterface() with a type outside TensorRT's three, over every TensorRTOnlyPlugin.
inline std::atomic<int32_t>& outOfContractCalls()
{
    static std::atomic<int32_t> count{0};
    return count;
}

class TensorRTOnlyPlugin final : public nvinfer1::IPluginV3,
                                 public nvinfer1::IPluginV3OneCore,
                                 public nvinfer1::IPluginV3OneBuild,
                                 public nvinfer1::IPluginV3OneRuntime
{
public:
    nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override
    {
        if (type == nvinfer1::PluginCapabilityType::kCORE)
        {
            return static_cast<nvinfer1::IPluginV3OneCore*>(this);
        }
        if (type == nvinfer1::PluginCapabilityType::kBUILD)
        {
            return static_cast<nvinfer1::IPluginV3OneBuild*>(this);
        }
        if (type == nvinfer1::PluginCapabilityType::kRUNTIME)
        {
            return static_cast<nvinfer1::IPluginV3OneRuntime*>(this);
        }
        ++outOfContractCalls(); // PLUGIN_ASSERT(false) in a real plugin
        return nullptr;
    }
    nvinfer1::IPluginV3* clone() noexcept override { return new TensorRTOnlyPlugin; }

    char const* getPluginName() const noexcept override { return "TensorRTOnly"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    char const* getPluginNamespace() const noexcept override { return "kiln.test"; }

    int32_t getNbOutputs() const noexcept override { return 1; }
    int32_t configurePlugin(nvinfer1::DynamicPluginTensorDesc const*, int32_t, nvinfer1::DynamicPluginTensorDesc const*,
        int32_t) noexcept override
    {
        return 0;
    }
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t, int32_t) noexcept override
    {
        return inOut[pos].desc.type == nvinfer1::DataType::kFLOAT
            && inOut[pos].desc.format == nvinfer1::TensorFormat::kLINEAR;
    }
    int32_t getOutputDataTypes(
        nvinfer1::DataType* outputTypes, int32_t, nvinfer1::DataType const* inputTypes, int32_t) const noexcept override
    {
        outputTypes[0] = inputTypes[0];
        return 0;
    }
    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t, nvinfer1::DimsExprs const*, int32_t,
        nvinfer1::DimsExprs* outputs, int32_t, nvinfer1::IExprBuilder&) noexcept override
    {
        outputs[0] = inputs[0];
        return 0;
    }

    int32_t onShapeChange(
        nvinfer1::PluginTensorDesc const*, int32_t, nvinfer1::PluginTensorDesc const*, int32_t) noexcept override
    {
        return 0;
    }
    int32_t enqueue(nvinfer1::PluginTensorDesc const*, nvinfer1::PluginTensorDesc const*, void const* const*,
        void* const*, void*, cudaStream_t) noexcept override
    {
        ++mEnqueues;
        return 0;
    }
    nvinfer1::IPluginV3* attachToContext(nvinfer1::IPluginResourceContext*) noexcept override { return clone(); }
    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override { return &mNoFields; }

    int32_t enqueues() const noexcept { return mEnqueues; }

private:
    nvinfer1::PluginFieldCollection mNoFields{0, nullptr};
    int32_t mEnqueues{};
};

class TensorRTOnlyCreator final : public nvinfer1::IPluginCreatorV3One
{
public:
    nvinfer1::IPluginV3* createPlugin(
        char const*, nvinfer1::PluginFieldCollection const*, nvinfer1::TensorRTPhase) noexcept override
    {
        return new TensorRTOnlyPlugin;
    }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override { return &mNoFields; }
    char const* getPluginName() const noexcept override { return "TensorRTOnly"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    char const* getPluginNamespace() const noexcept override { return "kiln.test"; }

private:
    nvinfer1::PluginFieldCollection mNoFields{0, nullptr};
};

} // namespace kiln::test
