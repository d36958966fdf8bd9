// SPDX-License-Identifier: Apache-2.0
// BarPlugin: see bar_plugin.h for what it computes. Y's last extent is data-dependent: getOutputShapes() declares
// output 1 a size tensor with IExprBuilder::declareSizeTensor(), bounded by H * W and tuned at half that; enqueue()
// writes K into the size tensor and Y densely for that K into a buffer sized for the bound.
#include "bar_plugin.h"

#include "element_types.h"
#include "example_common.h"
#include "kiln/plugin_host.h"

#ifdef KILN_EXAMPLE_CUDA
#include "bar_kernel.h"
#endif

#include <cstdint>

using namespace nvinfer1;

namespace
{

constexpr char const* kName = "BarPlugin";
constexpr char const* kVersion = "1";
constexpr char const* kNamespace = "example";
constexpr int64_t kChannels = 3;

class BarPlugin final : public IPluginV3,
                        public IPluginV3OneCore,
                        public IPluginV3OneBuild,
                        public IPluginV3OneRuntime,
                        public kiln::IPluginV3OneHost
{
public:
    // ---- IPluginV3 ----
    IPluginCapability* getCapabilityInterface(PluginCapabilityType type) noexcept override
    {
        if (type == PluginCapabilityType::kCORE)
        {
            return static_cast<IPluginV3OneCore*>(this);
        }
        if (type == PluginCapabilityType::kBUILD)
        {
            return static_cast<IPluginV3OneBuild*>(this);
        }
        if (type == PluginCapabilityType::kRUNTIME)
        {
            return static_cast<IPluginV3OneRuntime*>(this);
        }
        if (type == kiln::kPLUGIN_CAPABILITY_HOST)
        {
            return static_cast<kiln::IPluginV3OneHost*>(this);
        }
        return nullptr;
    }

    IPluginV3* clone() noexcept override
    {
        try
        {
            return new BarPlugin(*this);
        }
        catch (...)
        {
            return nullptr;
        }
    }

    // ---- IPluginV3OneCore ----
    char const* getPluginName() const noexcept override { return kName; }
    char const* getPluginVersion() const noexcept override { return kVersion; }
    char const* getPluginNamespace() const noexcept override { return kNamespace; }

    // ---- IPluginV3OneBuild ----
    int32_t getNbOutputs() const noexcept override { return 2; } // Y and its size tensor.

    int32_t getOutputDataTypes(DataType* outputTypes, int32_t /*nbOutputs*/, DataType const* inputTypes,
        int32_t /*nbInputs*/) const noexcept override
    {
        outputTypes[0] = inputTypes[0];
        outputTypes[1] = DataType::kINT32;
        return 0;
    }

    int32_t getOutputShapes(DimsExprs const* inputs, int32_t nbInputs, DimsExprs const* shapeInputs,
        int32_t nbShapeInputs, DimsExprs* outputs, int32_t /*nbOutputs*/, IExprBuilder& exprBuilder) noexcept override
    {
        bool const shapesOk = nbInputs == 1 && nbShapeInputs == 1 && inputs[0].nbDims == 4
            && inputs[0].d[1]->isConstant() && inputs[0].d[1]->getConstantValue() == kChannels
            && shapeInputs[0].nbDims >= 1;
        if (!shapesOk)
        {
            example::logError(kName, "expects X [N, 3, H, W] and a shape input S with at least one value");
            return -1;
        }
        outputs[0].nbDims = 4;
        outputs[0].d[0] = shapeInputs[0].d[0];             // R: the value of S[0].
        outputs[0].d[1] = exprBuilder.constant(kChannels); // static
        outputs[0].d[2] = inputs[0].d[0];                  // N: from X's shape.

        // K is data-dependent: at most H * W, tuned at half of that.
        IDimensionExpr const* upperBound
            = exprBuilder.operation(DimensionOperation::kPROD, *inputs[0].d[2], *inputs[0].d[3]);
        IDimensionExpr const* optimum
            = exprBuilder.operation(DimensionOperation::kFLOOR_DIV, *upperBound, *exprBuilder.constant(2));
        outputs[1].nbDims = 0; // A size tensor is 0-D.
        outputs[0].d[3] = exprBuilder.declareSizeTensor(1, *optimum, *upperBound);
        return outputs[0].d[3] != nullptr ? 0 : -1;
    }

    bool supportsFormatCombination(
        int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t /*nbOutputs*/) noexcept override
    {
        // Only positions up to pos may be read: Y's check looks back at X, never the other way round.
        DynamicPluginTensorDesc const* in = inOut;
        DynamicPluginTensorDesc const* out = inOut + nbInputs;
        bool typeOk = false;
        switch (pos)
        {
        case 0: typeOk = in[0].desc.type == DataType::kFLOAT || in[0].desc.type == DataType::kHALF; break;
        case 1: typeOk = out[0].desc.type == in[0].desc.type; break;
        case 2: typeOk = out[1].desc.type == DataType::kINT32; break;
        default: break;
        }
        return typeOk && inOut[pos].desc.format == TensorFormat::kLINEAR;
    }

    int32_t configurePlugin(DynamicPluginTensorDesc const* /*in*/, int32_t /*nbInputs*/,
        DynamicPluginTensorDesc const* /*out*/, int32_t /*nbOutputs*/) noexcept override
    {
        return 0;
    }

    size_t getWorkspaceSize(DynamicPluginTensorDesc const* inputs, int32_t /*nbInputs*/,
        DynamicPluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept override
    {
        // The list of selected pixels: one int32 per pixel of the largest image.
        return static_cast<size_t>(inputs[0].max.d[2] * inputs[0].max.d[3]) * sizeof(int32_t);
    }

    // ---- IPluginV3OneRuntime ----
    int32_t onShapeChange(PluginTensorDesc const* /*in*/, int32_t /*nbInputs*/, PluginTensorDesc const* /*out*/,
        int32_t /*nbOutputs*/) noexcept override
    {
        return 0; // Y's last extent arrives as -1 here: it is known only once enqueue has counted.
    }

    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc, void const* const* inputs,
        void* const* outputs, void* workspace, cudaStream_t stream) noexcept override
    {
#ifdef KILN_EXAMPLE_CUDA
        Dims const& x = inputDesc[0].dims;
        cudaError_t const status
            = launchBar(inputs[0], outputs[0], static_cast<int32_t*>(outputs[1]), static_cast<int32_t*>(workspace),
                inputDesc[0].type == DataType::kHALF, x.d[0], x.d[2], x.d[3], outputDesc[0].dims.d[0], stream);
        return status == cudaSuccess ? 0 : -1;
#else
        (void)inputDesc, (void)outputDesc, (void)inputs, (void)outputs, (void)workspace, (void)stream;
        return example::noCudaKernel(kName);
#endif
    }

    IPluginV3* attachToContext(IPluginResourceContext* /*context*/) noexcept override
    {
        return clone();
    }

    PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        return &mNoFields;
    }

    // ---- kiln::IPluginV3OneHost: the same computation on host memory ----
    int32_t enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace) noexcept override
    {
        Dims const& x = inputDesc[0].dims;
        DataType const type = inputDesc[0].type;
        int64_t const n = x.d[0];
        int64_t const pixels = x.d[2] * x.d[3];
        int64_t const repeats = outputDesc[0].dims.d[0];
        auto* positions = static_cast<int32_t*>(workspace);

        int32_t k = 0;
        for (int64_t pixel = 0; pixel < pixels; ++pixel)
        {
            float sum = 0.0F;
            for (int64_t plane = 0; plane < n * kChannels; ++plane)
            {
                sum += example::loadElement(inputs[0], type, plane * pixels + pixel);
            }
            if (sum > 0.0F)
            {
                positions[k++] = static_cast<int32_t>(pixel);
            }
        }
        *static_cast<int32_t*>(outputs[1]) = k;
        for (int64_t row = 0; row < repeats * kChannels * n; ++row) // row = (r * 3 + c) * n + i
        {
            int64_t const i = row % n;
            int64_t const c = row / n % kChannels;
            int64_t const r = row / (n * kChannels);
            for (int64_t j = 0; j < k; ++j)
            {
                float const value = static_cast<float>(r + 1)
                    * example::loadElement(inputs[0], type, (i * kChannels + c) * pixels + positions[j]);
                example::storeElement(outputs[0], type, row * k + j, value);
            }
        }
        return 0;
    }

private:
    PluginFieldCollection mNoFields{};
};

class BarPluginCreator final : public IPluginCreatorV3One
{
public:
    IPluginV3* createPlugin(
        char const* /*name*/, PluginFieldCollection const* /*fc*/, TensorRTPhase /*phase*/) noexcept override
    {
        try
        {
            return new BarPlugin();
        }
        catch (...)
        {
            return nullptr;
        }
    }

    PluginFieldCollection const* getFieldNames() noexcept override { return &mNoFields; }
    char const* getPluginName() const noexcept override { return kName; }
    char const* getPluginVersion() const noexcept override { return kVersion; }
    char const* getPluginNamespace() const noexcept override { return kNamespace; }

private:
    PluginFieldCollection mNoFields{};
};

} // namespace

IPluginCreatorV3One& barPluginCreator()
{
    static BarPluginCreator creator;
    return creator;
}
