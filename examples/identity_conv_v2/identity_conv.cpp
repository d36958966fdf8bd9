// SPDX-License-Identifier: Apache-2.0
// IdentityConv as an IPluginV2IOExt: see identity_conv.h. What the V2 interface asks of it, in the order the builder
// and the runtime call it: getOutputDimensions sees dims without the batch dimension and returns X's;
// supportsFormatCombination accepts linear FP32 or FP16, the output like X; configurePlugin records X's configuration;
// initialize/terminate have nothing to acquire; serialize writes the configuration, which the creator's
// deserializePlugin reads back; enqueue copies batchSize samples of X.
#include "identity_conv.h"

#include "element_types.h"
#include "example_common.h"

#ifdef KILN_EXAMPLE_CUDA
#include "identity_conv_kernel.h"
#endif

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

using namespace nvinfer1;

namespace
{

constexpr char const* kName = "IdentityConv";
constexpr char const* kVersion = "1";

//! The plugin's state: the group from the ONNX node, then X's configuration from configurePlugin.
struct IdentityConvParams
{
    int32_t group{};
    DataType dtype{DataType::kFLOAT};
    int32_t channelSize{};
    int32_t height{};
    int32_t width{};
    int64_t dtypeBytes{};
};

//! The serialized form: six little fields, in this order.
constexpr std::size_t kSerializedBytes = 5 * sizeof(int32_t) + sizeof(int64_t);

template <typename T>
void put(char*& cursor, T value)
{
    std::memcpy(cursor, &value, sizeof(T));
    cursor += sizeof(T);
}

template <typename T>
T take(char const*& cursor)
{
    T value;
    std::memcpy(&value, cursor, sizeof(T));
    cursor += sizeof(T);
    return value;
}

std::string describe(IdentityConvParams const& params)
{
    return "group " + std::to_string(params.group) + ", "
        + (params.dtype == DataType::kHALF         ? "kHALF"
                : params.dtype == DataType::kFLOAT ? "kFLOAT"
                                                   : "another type")
        + ", C " + std::to_string(params.channelSize) + ", H " + std::to_string(params.height) + ", W "
        + std::to_string(params.width) + ", " + std::to_string(params.dtypeBytes) + "-byte elements";
}

std::string& lastRestored()
{
    static std::string text;
    return text;
}

class IdentityConv final : public IPluginV2IOExt
{
public:
    explicit IdentityConv(IdentityConvParams const& params)
        : mParams(params)
    {
    }

    // ---- IPluginV2 ----
    char const* getPluginType() const noexcept override { return kName; }
    char const* getPluginVersion() const noexcept override { return kVersion; }
    int32_t getNbOutputs() const noexcept override { return 1; }

    Dims getOutputDimensions(int32_t index, Dims const* inputs, int32_t nbInputDims) noexcept override
    {
        // Without the batch dimension: X is [C, H, W], and so is the output.
        if (index != 0 || nbInputDims != 2 || inputs[0].nbDims != 3)
        {
            example::logError(kName, "expects X [C, H, W] and the weights W, without the batch dimension");
            return Dims{-1, {}};
        }
        return inputs[0];
    }

    int32_t initialize() noexcept override { return 0; } // Nothing to acquire.
    void terminate() noexcept override {}
    size_t getWorkspaceSize(int32_t /*maxBatchSize*/) const noexcept override { return 0; }

    int32_t enqueue(int32_t batchSize, void const* const* inputs, void* const* outputs, void* /*workspace*/,
        cudaStream_t stream) noexcept override
    {
#ifdef KILN_EXAMPLE_CUDA
        return launchIdentityCopy(inputs[0], outputs[0], sampleBytes() * batchSize, stream) == cudaSuccess ? 0 : -1;
#else
        (void)batchSize, (void)inputs, (void)outputs, (void)stream;
        return example::noCudaKernel(kName);
#endif
    }

    size_t getSerializationSize() const noexcept override
    {
        return kSerializedBytes;
    }

    void serialize(void* buffer) const noexcept override
    {
        // The order deserializePlugin reads.
        char* cursor = static_cast<char*>(buffer);
        put(cursor, mParams.group);
        put(cursor, static_cast<int32_t>(mParams.dtype));
        put(cursor, mParams.channelSize);
        put(cursor, mParams.height);
        put(cursor, mParams.width);
        put(cursor, mParams.dtypeBytes);
    }

    void destroy() noexcept override
    {
        delete this;
    }

    IPluginV2IOExt* clone() const noexcept override
    {
        try
        {
            auto* plugin = new IdentityConv(mParams);
            plugin->setPluginNamespace(mNamespace.c_str());
            return plugin;
        }
        catch (...)
        {
            return nullptr;
        }
    }

    void setPluginNamespace(char const* pluginNamespace) noexcept override
    {
        mNamespace = pluginNamespace != nullptr ? pluginNamespace : "";
    }
    char const* getPluginNamespace() const noexcept override
    {
        return mNamespace.c_str();
    }

    // ---- IPluginV2Ext ----
    DataType getOutputDataType(
        int32_t /*index*/, DataType const* inputTypes, int32_t /*nbInputs*/) const noexcept override
    {
        return inputTypes[0]; // The output has X's type.
    }
    bool isOutputBroadcastAcrossBatch(
        int32_t /*outputIndex*/, bool const* /*inputIsBroadcasted*/, int32_t /*nbInputs*/) const noexcept override
    {
        return false;
    }
    bool canBroadcastInputAcrossBatch(int32_t /*inputIndex*/) const noexcept override
    {
        return false;
    }

    // ---- IPluginV2IOExt ----
    void configurePlugin(PluginTensorDesc const* in, int32_t nbInput, PluginTensorDesc const* /*out*/,
        int32_t /*nbOutput*/) noexcept override
    {
        // X without its batch dimension: [C, H, W]. Only set up state here; nothing is allocated.
        if (nbInput != 2 || in[0].dims.nbDims != 3)
        {
            example::logError(kName, "configurePlugin expects X [C, H, W] and W");
            return;
        }
        mParams.dtype = in[0].type;
        mParams.channelSize = static_cast<int32_t>(in[0].dims.d[0]);
        mParams.height = static_cast<int32_t>(in[0].dims.d[1]);
        mParams.width = static_cast<int32_t>(in[0].dims.d[2]);
        mParams.dtypeBytes = example::elementSize(in[0].type);
        if (mParams.channelSize != mParams.group)
        {
            example::logError(kName,
                "group is " + std::to_string(mParams.group) + " but X has " + std::to_string(mParams.channelSize)
                    + " channels; an identity convolution has one group per channel");
        }
    }

    bool supportsFormatCombination(
        int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t /*nbOutputs*/) const noexcept override
    {
        // Inputs are positions 0 .. nbInputs - 1, outputs follow; each position compared only with earlier ones.
        PluginTensorDesc const& desc = inOut[pos];
        bool const valid
            = desc.format == TensorFormat::kLINEAR && (desc.type == DataType::kFLOAT || desc.type == DataType::kHALF);
        // The output has X's type and format.
        return valid && (pos < nbInputs || (desc.type == inOut[0].type && desc.format == inOut[0].format));
    }

    //! The host runner's work: the same copy as enqueue(), on host memory, with the configuration deserializePlugin
    //! restored (inputDesc carries X's whole shape, batch first).
    int32_t runOnHost(PluginTensorDesc const* inputDesc, void const* const* inputs, void* const* outputs) const
    {
        Dims const& x = inputDesc[0].dims;
        if (x.nbDims != 4 || x.d[1] != mParams.channelSize || x.d[2] != mParams.height || x.d[3] != mParams.width
            || inputDesc[0].type != mParams.dtype)
        {
            example::logError(
                kName, "X is " + example::toString(x) + " but the plugin was configured for " + describe(mParams));
            return -1;
        }
        std::memcpy(outputs[0], inputs[0], static_cast<std::size_t>(sampleBytes() * x.d[0]));
        return 0;
    }

private:
    int64_t sampleBytes() const
    {
        return int64_t{mParams.channelSize} * mParams.height * mParams.width * mParams.dtypeBytes;
    }

    IdentityConvParams mParams;
    std::string mNamespace;
};

class IdentityConvCreator final : public IPluginCreator
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

    char const* getPluginName() const noexcept override { return kName; }
    char const* getPluginVersion() const noexcept override { return kVersion; }
    PluginFieldCollection const* getFieldNames() noexcept override { return &mFieldCollection; }

    IPluginV2* createPlugin(char const* /*name*/, PluginFieldCollection const* fc) noexcept override
    {
        int32_t kernelShape[2]{};
        int32_t strides[2]{};
        int32_t pads[4]{};
        IdentityConvParams params;
        struct Wanted
        {
            char const* name;
            int32_t* values;
            int32_t count;
        };
        Wanted const wanted[] = {
            {"kernel_shape", kernelShape, 2}, {"strides", strides, 2}, {"pads", pads, 4}, {"group", &params.group, 1}};
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
        bool const identity = kernelShape[0] == 1 && kernelShape[1] == 1 && strides[0] == 1 && strides[1] == 1
            && pads[0] == 0 && pads[1] == 0 && pads[2] == 0 && pads[3] == 0 && params.group >= 1;
        if (!identity)
        {
            example::logError(kName, "only a 1x1 convolution with stride 1 and no padding can be an identity");
            return nullptr;
        }
        return make(params);
    }

    IPluginV2* deserializePlugin(char const* /*name*/, void const* serialData, size_t serialLength) noexcept override
    {
        if (serialData == nullptr || serialLength != kSerializedBytes)
        {
            example::logError(kName,
                "deserializePlugin expects " + std::to_string(kSerializedBytes) + " bytes, not "
                    + std::to_string(serialLength));
            return nullptr;
        }
        // The order serialize wrote.
        char const* cursor = static_cast<char const*>(serialData);
        IdentityConvParams params;
        params.group = take<int32_t>(cursor);
        params.dtype = static_cast<DataType>(take<int32_t>(cursor));
        params.channelSize = take<int32_t>(cursor);
        params.height = take<int32_t>(cursor);
        params.width = take<int32_t>(cursor);
        params.dtypeBytes = take<int64_t>(cursor);
        lastRestored() = describe(params);
        return make(params);
    }

    void setPluginNamespace(char const* pluginNamespace) noexcept override
    {
        mNamespace = pluginNamespace != nullptr ? pluginNamespace : "";
    }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

private:
    IPluginV2* make(IdentityConvParams const& params) const noexcept
    {
        try
        {
            auto* plugin = new IdentityConv(params);
            plugin->setPluginNamespace(mNamespace.c_str());
            return plugin;
        }
        catch (...)
        {
            return nullptr;
        }
    }

    std::string mNamespace;
    std::vector<PluginField> mFieldNames;
    PluginFieldCollection mFieldCollection{};
};

#ifdef KILN_VERSION_MAJOR
//! Runs IdentityConv on kiln's host backend.
class IdentityConvHostRunner final : public kiln::IPluginV2HostRunner
{
public:
    int32_t enqueueHost(IPluginV2& plugin, PluginTensorDesc const* inputDesc, PluginTensorDesc const* /*outputDesc*/,
        void const* const* inputs, void* const* outputs, void* /*workspace*/) noexcept override
    {
        return static_cast<IdentityConv&>(plugin).runOnHost(inputDesc, inputs, outputs);
    }
};
#endif

} // namespace

IPluginCreator& identityConvCreator()
{
    static IdentityConvCreator creator;
    return creator;
}

std::string identityConvLastRestored()
{
    return lastRestored();
}

#ifdef KILN_VERSION_MAJOR
kiln::IPluginV2HostRunner& identityConvHostRunner()
{
    static IdentityConvHostRunner runner;
    return runner;
}
#endif
