// SPDX-License-Identifier: Apache-2.0
// IdentityConv: see identity_conv.h. The walk-through wrote it as an IPluginV2IOExt; this is the same plugin as an
// IPluginV3.
#include "identity_conv.h"

#include "element_types.h"
#include "example_common.h"
#include "kiln/plugin_host.h"

#ifdef KILN_EXAMPLE_CUDA
#include "identity_conv_kernel.h"
#endif

#include <cstring>
#include <string>
#include <vector>

using namespace nvinfer1;

namespace
{

constexpr char const* kName = "IdentityConv";
constexpr char const* kVersion = "1";
constexpr char const* kNamespace = "";

//! The attributes of the replaced Conv node.
struct IdentityConvParams
{
    int32_t kernelShape[2];
    int32_t strides[2];
    int32_t pads[4];
    int32_t group;
};

class IdentityConv final : public IPluginV3,
                           public IPluginV3OneCore,
                           public IPluginV3OneBuild,
                           public IPluginV3OneRuntime,
                           public kiln::IPluginV3OneHost
{
public:
    explicit IdentityConv(IdentityConvParams const& params)
        : mParams(params)
    {
    }

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
            return new IdentityConv(mParams);
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
        outputTypes[0] = inputTypes[0]; // The output has X's type.
        return 0;
    }

    int32_t getOutputShapes(DimsExprs const* inputs, int32_t nbInputs, DimsExprs const* /*shapeInputs*/,
        int32_t /*nbShapeInputs*/, DimsExprs* outputs, int32_t /*nbOutputs*/,
        IExprBuilder& /*exprBuilder*/) noexcept override
    {
        if (nbInputs != 2 || inputs[0].nbDims != 4)
        {
            example::logError(kName, "expects X [N, C, H, W] and the weights W");
            return -1;
        }
        outputs[0] = inputs[0]; // Identity: the output has X's shape.
        return 0;
    }

    bool supportsFormatCombination(
        int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t /*nbOutputs*/) noexcept override
    {
        PluginTensorDesc const& desc = inOut[pos].desc;
        bool const valid
            = desc.format == TensorFormat::kLINEAR && (desc.type == DataType::kFLOAT || desc.type == DataType::kHALF);
        // The output must have X's type and format.
        return valid && (pos < nbInputs || (desc.type == inOut[0].desc.type && desc.format == inOut[0].desc.format));
    }

    int32_t configurePlugin(DynamicPluginTensorDesc const* in, int32_t /*nbInputs*/,
        DynamicPluginTensorDesc const* /*out*/, int32_t /*nbOutputs*/) noexcept override
    {
        if (in[0].desc.dims.d[1] != mParams.group)
        {
            example::logError(kName,
                "group is " + std::to_string(mParams.group) + " but X has " + std::to_string(in[0].desc.dims.d[1])
                    + " channels; an identity convolution has one group per channel");
            return -1;
        }
        return 0;
    }

    // ---- IPluginV3OneRuntime ----
    int32_t onShapeChange(PluginTensorDesc const* /*in*/, int32_t /*nbInputs*/, PluginTensorDesc const* /*out*/,
        int32_t /*nbOutputs*/) noexcept override
    {
        return 0;
    }

    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* /*outputDesc*/,
        void const* const* inputs, void* const* outputs, void* /*workspace*/, cudaStream_t stream) noexcept override
    {
#ifdef KILN_EXAMPLE_CUDA
        int64_t const bytes = example::volume(inputDesc[0].dims) * example::elementSize(inputDesc[0].type);
        return launchIdentityCopy(inputs[0], outputs[0], bytes, stream) == cudaSuccess ? 0 : -1;
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
        mFields = {PluginField("kernel_shape", mParams.kernelShape, PluginFieldType::kINT32, 2),
            PluginField("strides", mParams.strides, PluginFieldType::kINT32, 2),
            PluginField("pads", mParams.pads, PluginFieldType::kINT32, 4),
            PluginField("group", &mParams.group, PluginFieldType::kINT32, 1)};
        mFieldCollection = PluginFieldCollection{static_cast<int32_t>(mFields.size()), mFields.data()};
        return &mFieldCollection;
    }

    // ---- kiln::IPluginV3OneHost: the same copy on host memory ----
    int32_t enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const* /*outputDesc*/,
        void const* const* inputs, void* const* outputs, void* /*workspace*/) noexcept override
    {
        int64_t const bytes = example::volume(inputDesc[0].dims) * example::elementSize(inputDesc[0].type);
        std::memcpy(outputs[0], inputs[0], static_cast<std::size_t>(bytes));
        return 0;
    }

private:
    IdentityConvParams mParams;
    std::vector<PluginField> mFields;
    PluginFieldCollection mFieldCollection{};
};

class IdentityConvCreator final : public IPluginCreatorV3One
{
public:
    IdentityConvCreator()
    {
        // The attributes of the ONNX node, which the ONNX parser collects and passes as fields.
        mFieldNames = {PluginField("kernel_shape", nullptr, PluginFieldType::kINT32, 2),
            PluginField("strides", nullptr, PluginFieldType::kINT32, 2),
            PluginField("pads", nullptr, PluginFieldType::kINT32, 4),
            PluginField("group", nullptr, PluginFieldType::kINT32, 1)};
        mFieldCollection = PluginFieldCollection{static_cast<int32_t>(mFieldNames.size()), mFieldNames.data()};
    }

    IPluginV3* createPlugin(
        char const* /*name*/, PluginFieldCollection const* fc, TensorRTPhase /*phase*/) noexcept override
    {
        IdentityConvParams params{};
        struct Wanted
        {
            char const* name;
            int32_t* values;
            int32_t count;
        };
        Wanted const wanted[] = {{"kernel_shape", params.kernelShape, 2}, {"strides", params.strides, 2},
            {"pads", params.pads, 4}, {"group", &params.group, 1}};
        for (Wanted const& field : wanted)
        {
            PluginField const* found = example::findField(fc, field.name, PluginFieldType::kINT32, field.count);
            if (found == nullptr)
            {
                example::logError(kName,
                    std::string("the field ") + field.name + " is missing or not " + std::to_string(field.count)
                        + " x kINT32");
                return nullptr;
            }
            std::memcpy(field.values, found->data, sizeof(int32_t) * static_cast<std::size_t>(field.count));
        }
        bool const identity = params.kernelShape[0] == 1 && params.kernelShape[1] == 1 && params.strides[0] == 1
            && params.strides[1] == 1 && params.pads[0] == 0 && params.pads[1] == 0 && params.pads[2] == 0
            && params.pads[3] == 0 && params.group >= 1;
        if (!identity)
        {
            example::logError(kName, "only a 1x1 convolution with stride 1 and no padding can be an identity");
            return nullptr;
        }
        try
        {
            return new IdentityConv(params);
        }
        catch (...)
        {
            return nullptr;
        }
    }

    PluginFieldCollection const* getFieldNames() noexcept override { return &mFieldCollection; }
    char const* getPluginName() const noexcept override { return kName; }
    char const* getPluginVersion() const noexcept override { return kVersion; }
    char const* getPluginNamespace() const noexcept override { return kNamespace; }

private:
    std::vector<PluginField> mFieldNames;
    PluginFieldCollection mFieldCollection{};
};

} // namespace

IPluginCreatorV3One& identityConvCreator()
{
    static IdentityConvCreator creator;
    return creator;
}
