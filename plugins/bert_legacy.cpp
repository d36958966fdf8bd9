// SPDX-License-Identifier: Apache-2.0
#include "bert_legacy.h"

#include "bert_common.h"

#include <cstring>
#include <vector>

namespace kiln::plugins
{

KILN_IGNORE_DEPRECATED_BEGIN

namespace
{

using nvinfer1::DataType;
using nvinfer1::PluginField;
using nvinfer1::PluginFieldType;

constexpr uint32_t kSerialMagic = 0x4B424C31; // "KBL1": kiln's BERT legacy plugin, layout 1.

//! Bytes per element of the field types the V3 plugins serialize (0: a type they never write).
size_t elementBytes(PluginFieldType type)
{
    switch (type)
    {
    case PluginFieldType::kINT32:
    case PluginFieldType::kFLOAT32: return 4;
    case PluginFieldType::kFLOAT16: return 2;
    default: return 0;
    }
}

//! Fields as bytes: magic, count, then per field its name's length, name, type, element count and data.
std::vector<uint8_t> encodeFields(nvinfer1::PluginFieldCollection const& fc)
{
    size_t total = 8;
    for (int32_t i = 0; i < fc.nbFields; ++i)
    {
        PluginField const& f = fc.fields[i];
        total += 12 + std::strlen(f.name) + elementBytes(f.type) * static_cast<size_t>(f.length);
    }
    std::vector<uint8_t> out(total);
    size_t at = 0;
    auto put = [&](void const* data, size_t bytes) {
        if (bytes != 0)
        {
            std::memcpy(out.data() + at, data, bytes);
            at += bytes;
        }
    };
    auto const count = static_cast<uint32_t>(fc.nbFields);
    put(&kSerialMagic, 4);
    put(&count, 4);
    for (int32_t i = 0; i < fc.nbFields; ++i)
    {
        PluginField const& f = fc.fields[i];
        auto const nameLength = static_cast<uint32_t>(std::strlen(f.name));
        auto const type = static_cast<int32_t>(f.type);
        put(&nameLength, 4);
        put(f.name, nameLength);
        put(&type, 4);
        put(&f.length, 4);
        put(f.data, elementBytes(f.type) * static_cast<size_t>(f.length));
    }
    return out;
}

//! The fields encodeFields() wrote, pointing into storage; false when the bytes are not such a record (truncated,
//! another magic, a type or length out of range, bytes left over).
bool decodeFields(void const* data, size_t length, std::vector<std::string>& names, std::vector<PluginField>& fields)
{
    auto const* p = static_cast<uint8_t const*>(data);
    size_t at = 0;
    auto take = [&](void* out, size_t bytes) {
        if (p == nullptr || length - at < bytes || at > length)
        {
            return false;
        }
        std::memcpy(out, p + at, bytes);
        at += bytes;
        return true;
    };
    uint32_t magic = 0;
    uint32_t count = 0;
    if (!take(&magic, 4) || magic != kSerialMagic || !take(&count, 4) || count > 64)
    {
        return false;
    }
    names.resize(count);
    fields.resize(count);
    for (uint32_t i = 0; i < count; ++i)
    {
        uint32_t nameLength = 0;
        int32_t type = 0;
        int32_t elements = 0;
        if (!take(&nameLength, 4) || nameLength > 256 || length - at < nameLength)
        {
            return false;
        }
        names[i].assign(reinterpret_cast<char const*>(p + at), nameLength);
        at += nameLength;
        if (!take(&type, 4) || !take(&elements, 4) || elements < 0)
        {
            return false;
        }
        size_t const bytes = elementBytes(static_cast<PluginFieldType>(type));
        if (bytes == 0 || (length - at) / bytes < static_cast<size_t>(elements))
        {
            return false;
        }
        fields[i] = PluginField{nullptr, p + at, static_cast<PluginFieldType>(type), elements};
        at += bytes * static_cast<size_t>(elements);
    }
    for (uint32_t i = 0; i < count; ++i)
    {
        fields[i].name = names[i].c_str();
    }
    return at == length;
}

//! A V2 plugin that forwards to the V3 plugin it owns.
class BertLegacyPlugin final : public nvinfer1::IPluginV2DynamicExt
{
public:
    BertLegacyPlugin(std::unique_ptr<nvinfer1::IPluginV3> core, std::string pluginNamespace)
        : mCore(std::move(core))
        , mNamespace(std::move(pluginNamespace))
        , mCoreInfo(static_cast<nvinfer1::IPluginV3OneCore*>(
              mCore->getCapabilityInterface(nvinfer1::PluginCapabilityType::kCORE)))
        , mBuild(static_cast<nvinfer1::IPluginV3OneBuild*>(
              mCore->getCapabilityInterface(nvinfer1::PluginCapabilityType::kBUILD)))
        , mRuntime(static_cast<nvinfer1::IPluginV3OneRuntime*>(
              mCore->getCapabilityInterface(nvinfer1::PluginCapabilityType::kRUNTIME)))
        , mHost(static_cast<kiln::IPluginV3OneHost*>(mCore->getCapabilityInterface(kiln::kPLUGIN_CAPABILITY_HOST)))
    {
    }

    char const* getPluginType() const noexcept override { return mCoreInfo->getPluginName(); }
    char const* getPluginVersion() const noexcept override { return kBertLegacyVersion; }
    int32_t getNbOutputs() const noexcept override { return mBuild->getNbOutputs(); }
    int32_t initialize() noexcept override { return 0; }
    void terminate() noexcept override {}
    void destroy() noexcept override { delete this; }
    void setPluginNamespace(char const* pluginNamespace) noexcept override
    {
        try
        {
            mNamespace = pluginNamespace == nullptr ? "" : pluginNamespace;
        }
        catch (...)
        {
        }
    }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

    nvinfer1::IPluginV2DynamicExt* clone() const noexcept override
    {
        try
        {
            std::unique_ptr<nvinfer1::IPluginV3> copy{mCore->clone()};
            return copy == nullptr ? nullptr : new BertLegacyPlugin(std::move(copy), mNamespace);
        }
        catch (...)
        {
            return nullptr;
        }
    }

    nvinfer1::DimsExprs getOutputDimensions(int32_t outputIndex, nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override
    {
        nvinfer1::DimsExprs outputs[2]{};
        int32_t const nbOutputs = getNbOutputs();
        if (outputIndex < 0 || outputIndex >= nbOutputs || nbOutputs > 2
            || mBuild->getOutputShapes(inputs, nbInputs, nullptr, 0, outputs, nbOutputs, exprBuilder) != 0)
        {
            nvinfer1::DimsExprs failed{};
            failed.nbDims = -1;
            return failed;
        }
        return outputs[outputIndex];
    }

    bool supportsFormatCombination(
        int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept override
    {
        try
        {
            std::vector<nvinfer1::DynamicPluginTensorDesc> described(static_cast<size_t>(nbInputs + nbOutputs));
            for (size_t i = 0; i < described.size(); ++i)
            {
                described[i].desc = inOut[i];
                described[i].min = described[i].opt = described[i].max = inOut[i].dims;
            }
            return mBuild->supportsFormatCombination(pos, described.data(), nbInputs, nbOutputs);
        }
        catch (...)
        {
            return false;
        }
    }

    void configurePlugin(nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept override
    {
        static_cast<void>(mBuild->configurePlugin(in, nbInputs, out, nbOutputs));
    }

    size_t getWorkspaceSize(nvinfer1::PluginTensorDesc const* /*inputs*/, int32_t /*nbInputs*/,
        nvinfer1::PluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept override
    {
        return 0; // None of the four needs scratch memory.
    }

    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override
    {
        return mRuntime->enqueue(inputDesc, outputDesc, inputs, outputs, workspace, stream);
    }

    //! The host backend's run (through bertLegacyHostRunner()).
    int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace) noexcept
    {
        return mHost->enqueueHost(inputDesc, outputDesc, inputs, outputs, workspace);
    }

    DataType getOutputDataType(int32_t index, DataType const* inputTypes, int32_t nbInputs) const noexcept override
    {
        DataType types[2]{DataType::kFLOAT, DataType::kFLOAT};
        int32_t const nbOutputs = mBuild->getNbOutputs();
        if (index < 0 || index >= nbOutputs || nbOutputs > 2
            || mBuild->getOutputDataTypes(types, nbOutputs, inputTypes, nbInputs) != 0)
        {
            return DataType::kFLOAT;
        }
        return types[index];
    }

    size_t getSerializationSize() const noexcept override
    {
        try
        {
            return serialized().size();
        }
        catch (...)
        {
            return 0;
        }
    }

    void serialize(void* buffer) const noexcept override
    {
        try
        {
            std::vector<uint8_t> const bytes = serialized();
            std::memcpy(buffer, bytes.data(), bytes.size());
        }
        catch (...)
        {
        }
    }

private:
    std::vector<uint8_t> serialized() const
    {
        nvinfer1::PluginFieldCollection const* fc = mRuntime->getFieldsToSerialize();
        return fc == nullptr ? std::vector<uint8_t>{} : encodeFields(*fc);
    }

    std::unique_ptr<nvinfer1::IPluginV3> mCore;
    std::string mNamespace;
    nvinfer1::IPluginV3OneCore* mCoreInfo;
    nvinfer1::IPluginV3OneBuild* mBuild;
    nvinfer1::IPluginV3OneRuntime* mRuntime;
    kiln::IPluginV3OneHost* mHost;
};

class BertLegacyHostRunner final : public kiln::IPluginV2HostRunner
{
public:
    int32_t enqueueHost(nvinfer1::IPluginV2& plugin, nvinfer1::PluginTensorDesc const* inputDesc,
        nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs,
        void* workspace) noexcept override
    {
        return static_cast<BertLegacyPlugin&>(plugin).enqueueHost(inputDesc, outputDesc, inputs, outputs, workspace);
    }
};

} // namespace

BertLegacyCreator::BertLegacyCreator(std::unique_ptr<StandardCreator> v3)
    : mV3(std::move(v3))
{
}

BertLegacyCreator::~BertLegacyCreator() = default;

nvinfer1::IPluginV2* BertLegacyCreator::createPlugin(
    char const* name, nvinfer1::PluginFieldCollection const* fc) noexcept
{
    try
    {
        std::unique_ptr<nvinfer1::IPluginV3> core{mV3->createPlugin(name, fc, nvinfer1::TensorRTPhase::kBUILD)};
        return core == nullptr ? nullptr : new BertLegacyPlugin(std::move(core), mNamespace);
    }
    catch (...)
    {
        return nullptr;
    }
}

nvinfer1::IPluginV2* BertLegacyCreator::deserializePlugin(
    char const* name, void const* serialData, size_t serialLength) noexcept
{
    try
    {
        std::vector<std::string> names;
        std::vector<PluginField> fields;
        if (!decodeFields(serialData, serialLength, names, fields))
        {
            logError(pluginLabel(getPluginName(), kBertLegacyVersion, mNamespace).c_str(),
                "the serialized plugin (" + std::to_string(serialLength)
                    + " bytes) is not one this library wrote; nothing was deserialized");
            return nullptr;
        }
        nvinfer1::PluginFieldCollection const fc{static_cast<int32_t>(fields.size()), fields.data()};
        std::unique_ptr<nvinfer1::IPluginV3> core{mV3->createPlugin(name, &fc, nvinfer1::TensorRTPhase::kRUNTIME)};
        return core == nullptr ? nullptr : new BertLegacyPlugin(std::move(core), mNamespace);
    }
    catch (...)
    {
        return nullptr;
    }
}

void BertLegacyCreator::setPluginNamespace(char const* pluginNamespace) noexcept
{
    try
    {
        mNamespace = pluginNamespace == nullptr ? "" : pluginNamespace;
        mV3->setPluginNamespace(pluginNamespace);
    }
    catch (...)
    {
    }
}

kiln::IPluginV2HostRunner& bertLegacyHostRunner()
{
    static auto* runner = new BertLegacyHostRunner();
    return *runner;
}

KILN_IGNORE_DEPRECATED_END

} // namespace kiln::plugins
