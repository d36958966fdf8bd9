// SPDX-License-Identifier: Apache-2.0
// PadPlugin (the TensorRT developer guide's "Example: Adding a Custom Layer with Dynamic Shapes Using C++"): every
// image of an NCHW FP32 batch is padded with zeros to 32 x 32. Input X is [N, C, H, W] with H, W <= 32; output Y is [N,
// C, 32, 32], written as an expression of the input's extents with the IExprBuilder. The plugin has no attributes. Its
// creator registers itself statically under namespace "" with REGISTER_TENSORRT_PLUGIN.
#include "example_common.h"
#include "kiln/plugin_host.h"

#ifdef KILN_EXAMPLE_CUDA
#include "pad_kernel.h"
#endif

#include <string>

using namespace nvinfer1;

namespace
{

constexpr char const* kName = "PadPlugin";
constexpr char const* kVersion = "1";
constexpr char const* kNamespace = "";
constexpr int64_t kSide = 32; //!< The padded height and width.

class PadPlugin final : public IPluginV3,
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
            return new PadPlugin(*this);
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
    int32_t getNbOutputs() const noexcept override { return 1; }

    int32_t getOutputDataTypes(DataType* outputTypes, int32_t /*nbOutputs*/, DataType const* inputTypes,
        int32_t /*nbInputs*/) const noexcept override
    {
        outputTypes[0] = inputTypes[0];
        return 0;
    }

    int32_t getOutputShapes(DimsExprs const* inputs, int32_t nbInputs, DimsExprs const* /*shapeInputs*/,
        int32_t /*nbShapeInputs*/, DimsExprs* outputs, int32_t /*nbOutputs*/,
        IExprBuilder& exprBuilder) noexcept override
    {
        if (nbInputs != 1 || inputs[0].nbDims != 4)
        {
            example::logError(kName, "expects one 4-D input [N, C, H, W]");
            return -1;
        }
        outputs[0].nbDims = 4;
        outputs[0].d[0] = inputs[0].d[0]; // N and C pass through,
        outputs[0].d[1] = inputs[0].d[1];
        outputs[0].d[2] = exprBuilder.constant(kSide); // H and W become 32.
        outputs[0].d[3] = exprBuilder.constant(kSide);
        return 0;
    }

    bool supportsFormatCombination(int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t /*nbInputs*/,
        int32_t /*nbOutputs*/) noexcept override
    {
        return inOut[pos].desc.format == TensorFormat::kLINEAR && inOut[pos].desc.type == DataType::kFLOAT;
    }

    int32_t configurePlugin(DynamicPluginTensorDesc const* in, int32_t /*nbInputs*/,
        DynamicPluginTensorDesc const* /*out*/, int32_t /*nbOutputs*/) noexcept override
    {
        // The largest images of the optimization profile must fit in 32 x 32.
        if (in[0].max.d[2] > kSide || in[0].max.d[3] > kSide)
        {
            example::logError(kName,
                "the profile allows images of " + std::to_string(in[0].max.d[2]) + " x "
                    + std::to_string(in[0].max.d[3]) + "; PadPlugin pads up to 32 x 32 and cannot crop");
            return -1;
        }
        return 0;
    }

    // ---- IPluginV3OneRuntime ----
    int32_t onShapeChange(PluginTensorDesc const* /*in*/, int32_t /*nbInputs*/, PluginTensorDesc const* /*out*/,
        int32_t /*nbOutputs*/) noexcept override
    {
        return 0; // Nothing to prepare: enqueue reads the extents from its descriptors.
    }

    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* /*outputDesc*/,
        void const* const* inputs, void* const* outputs, void* /*workspace*/, cudaStream_t stream) noexcept override
    {
#ifdef KILN_EXAMPLE_CUDA
        Dims const& x = inputDesc[0].dims;
        cudaError_t const status = launchPad(static_cast<float const*>(inputs[0]), static_cast<float*>(outputs[0]),
            x.d[0] * x.d[1], x.d[2], x.d[3], kSide, stream);
        return status == cudaSuccess ? 0 : -1;
#else
        (void)inputDesc, (void)inputs, (void)outputs, (void)stream;
        return example::noCudaKernel(kName);
#endif
    }

    IPluginV3* attachToContext(IPluginResourceContext* /*context*/) noexcept override
    {
        return clone();
    }

    PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        return &mNoFields; // Nothing to restore: the engine keeps only the plugin's name, version and namespace.
    }

    // ---- kiln::IPluginV3OneHost: the same padding on host memory ----
    int32_t enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const* /*outputDesc*/,
        void const* const* inputs, void* const* outputs, void* /*workspace*/) noexcept override
    {
        Dims const& x = inputDesc[0].dims;
        int64_t const planes = x.d[0] * x.d[1];
        int64_t const height = x.d[2];
        int64_t const width = x.d[3];
        auto const* in = static_cast<float const*>(inputs[0]);
        auto* out = static_cast<float*>(outputs[0]);
        for (int64_t plane = 0; plane < planes; ++plane)
        {
            for (int64_t row = 0; row < kSide; ++row)
            {
                for (int64_t column = 0; column < kSide; ++column)
                {
                    bool const inside = row < height && column < width;
                    out[(plane * kSide + row) * kSide + column]
                        = inside ? in[(plane * height + row) * width + column] : 0.0F;
                }
            }
        }
        return 0;
    }

private:
    PluginFieldCollection mNoFields{};
};

class PadPluginCreator final : public IPluginCreatorV3One
{
public:
    IPluginV3* createPlugin(
        char const* /*name*/, PluginFieldCollection const* /*fc*/, TensorRTPhase /*phase*/) noexcept override
    {
        try
        {
            return new PadPlugin();
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

REGISTER_TENSORRT_PLUGIN(PadPluginCreator);
