// SPDX-License-Identifier: Apache-2.0
// InstanceNormalization_TRT versions "1" and "2": TensorRT's legacy IPluginV2DynamicExt of the op version "3"
// (instance_norm.cpp) runs, with the same fields, checks, arithmetic and kernel.
#include "instance_norm.h"

#include <cstring>

namespace kiln::plugins
{

KILN_IGNORE_DEPRECATED_BEGIN

namespace
{

//! Appends value's bytes at out.
template <typename T>
void put(std::vector<uint8_t>& out, T const& value)
{
    auto const* bytes = reinterpret_cast<uint8_t const*>(&value);
    out.insert(out.end(), bytes, bytes + sizeof(T));
}

//! Reads a T at offset of data (size bytes) and advances offset; false when it does not fit.
template <typename T>
bool take(uint8_t const* data, size_t size, size_t& offset, T& value)
{
    if (size - offset < sizeof(T) || offset > size)
    {
        return false;
    }
    std::memcpy(&value, data + offset, sizeof(T));
    offset += sizeof(T);
    return true;
}

class InstanceNormLegacyPlugin final : public OneOutputPluginV2
{
public:
    InstanceNormLegacyPlugin(char const* version, InstanceNormFields fields)
        : mVersion(version)
        , mFields(std::move(fields))
    {
    }

    char const* getPluginType() const noexcept override { return kInstanceNormName; }
    char const* getPluginVersion() const noexcept override { return mVersion; }

    nvinfer1::IPluginV2DynamicExt* clone() const noexcept override
    {
        try
        {
            auto* plugin = new InstanceNormLegacyPlugin(mVersion, mFields);
            plugin->mNamespace = mNamespace;
            return plugin;
        }
        catch (...)
        {
            return nullptr;
        }
    }

    nvinfer1::DimsExprs getOutputDimensions(int32_t outputIndex, nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::IExprBuilder& /*exprBuilder*/) noexcept override
    {
        std::string const problem
            = instanceNormBuildProblem(inputs, nbInputs, static_cast<int64_t>(mFields.scales.size()));
        if (!problem.empty() || outputIndex != 0)
        {
            logError(kInstanceNormName, problem.empty() ? std::string("has one output") : problem);
            nvinfer1::DimsExprs refused{};
            refused.nbDims = -1;
            return refused;
        }
        return inputs[0];
    }

    bool supportsFormatCombination(int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t /*nbInputs*/,
        int32_t /*nbOutputs*/) noexcept override
    {
        return pos < 2 && instanceNormSupports(pos, inOut);
    }

    size_t getWorkspaceSize(nvinfer1::PluginTensorDesc const* /*inputs*/, int32_t /*nbInputs*/,
        nvinfer1::PluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept override
    {
        return instanceNormWorkspaceSize(mFields);
    }

    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override
    {
        return instanceNormEnqueue(mFields, inputDesc, outputDesc, inputs, outputs, workspace, stream);
    }

    int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* /*workspace*/) noexcept override
    {
        return instanceNormEnqueueHost(mFields, inputDesc, outputDesc, inputs, outputs);
    }

    size_t getSerializationSize() const noexcept override { return 32 + 8 * mFields.scales.size(); }

    void serialize(void* buffer) const noexcept override
    {
        try
        {
            std::vector<uint8_t> out;
            put(out, mFields.params.epsilon);
            put(out, static_cast<int32_t>(mFields.scales.size()));
            for (std::vector<float> const* values : {&mFields.scales, &mFields.bias})
            {
                put(out, static_cast<uint64_t>(values->size()));
                for (float v : *values)
                {
                    put(out, v);
                }
            }
            put(out, static_cast<int32_t>(mFields.params.relu ? 1 : 0));
            put(out, mFields.params.alpha);
            std::memcpy(buffer, out.data(), out.size());
        }
        catch (...)
        {
            logError(kInstanceNormName, "out of memory while serializing");
        }
    }

private:
    char const* mVersion;
    InstanceNormFields mFields;
};

//! The fields serialized in data, or why they are refused.
std::string deserializeFields(void const* serialData, size_t size, InstanceNormFields& fields)
{
    auto const* data = static_cast<uint8_t const*>(serialData);
    size_t offset = 0;
    int32_t channels = 0;
    if (data == nullptr || !take(data, size, offset, fields.params.epsilon) || !take(data, size, offset, channels)
        || channels <= 0 || size != 32 + 8 * static_cast<size_t>(channels))
    {
        return "a serialized plugin is 32 + 8 * C bytes with C above 0; this one is " + std::to_string(size) + " bytes";
    }
    for (std::vector<float>* values : {&fields.scales, &fields.bias})
    {
        uint64_t count = 0;
        if (!take(data, size, offset, count) || count != static_cast<uint64_t>(channels))
        {
            return "the serialized scales and bias must hold C (" + std::to_string(channels) + ") values each";
        }
        values->resize(static_cast<size_t>(count));
        for (float& v : *values)
        {
            take(data, size, offset, v);
        }
    }
    int32_t relu = 0;
    take(data, size, offset, relu);
    take(data, size, offset, fields.params.alpha);
    fields.params.relu = relu > 0;
    return instanceNormFieldProblem(fields);
}

} // namespace

InstanceNormLegacyCreator::InstanceNormLegacyCreator(char const* version)
    : StandardCreatorV2(instanceNormDeclaredFields())
    , mVersion(version)
{
}

nvinfer1::IPluginV2* InstanceNormLegacyCreator::createPlugin(
    char const* /*name*/, nvinfer1::PluginFieldCollection const* fc) noexcept
{
    try
    {
        InstanceNormFields fields;
        if (!readInstanceNormFields(fc, fields))
        {
            return nullptr;
        }
        auto* plugin = new InstanceNormLegacyPlugin(mVersion, std::move(fields));
        plugin->setPluginNamespace(mNamespace.c_str());
        return plugin;
    }
    catch (...)
    {
        return nullptr;
    }
}

nvinfer1::IPluginV2* InstanceNormLegacyCreator::deserializePlugin(
    char const* /*name*/, void const* serialData, size_t serialLength) noexcept
{
    try
    {
        InstanceNormFields fields;
        std::string const problem = deserializeFields(serialData, serialLength, fields);
        if (!problem.empty())
        {
            logError(kInstanceNormName, "the serialized plugin is refused: " + problem);
            return nullptr;
        }
        auto* plugin = new InstanceNormLegacyPlugin(mVersion, std::move(fields));
        plugin->setPluginNamespace(mNamespace.c_str());
        return plugin;
    }
    catch (...)
    {
        return nullptr;
    }
}

KILN_IGNORE_DEPRECATED_END

} // namespace kiln::plugins
