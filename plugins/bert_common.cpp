// SPDX-License-Identifier: Apache-2.0
#include "bert_common.h"

#include <cstring>

namespace kiln::plugins
{

bool readWeightsField(char const* plugin, nvinfer1::PluginFieldCollection const* fc, char const* name,
    std::vector<float>& values, bool& present)
{
    present = false;
    for (int32_t i = 0; fc != nullptr && fc->fields != nullptr && i < fc->nbFields; ++i)
    {
        nvinfer1::PluginField const& field = fc->fields[i];
        if (field.name == nullptr || std::strcmp(field.name, name) != 0)
        {
            continue;
        }
        bool const floats = field.type == nvinfer1::PluginFieldType::kFLOAT32;
        bool const halves = field.type == nvinfer1::PluginFieldType::kFLOAT16;
        if ((!floats && !halves) || field.data == nullptr || field.length < 1)
        {
            logError(plugin,
                std::string("field ") + name
                    + " must be weights (kFLOAT32 or kFLOAT16 with at least one element); it has"
                    + (floats || halves ? "" : " another type,") + " " + std::to_string(field.length) + " elements"
                    + (field.data == nullptr ? " and no data" : ""));
            return false;
        }
        values.resize(static_cast<size_t>(field.length));
        for (size_t k = 0; k < values.size(); ++k)
        {
            if (floats)
            {
                std::memcpy(&values[k], static_cast<char const*>(field.data) + k * sizeof(float), sizeof(float));
            }
            else
            {
                uint16_t bits = 0;
                std::memcpy(&bits, static_cast<char const*>(field.data) + k * sizeof(bits), sizeof(bits));
                values[k] = halfToFloat(bits);
            }
        }
        present = true;
        return true;
    }
    return true;
}

void roundToHalf(std::vector<float>& values)
{
    for (float& v : values)
    {
        v = halfToFloat(floatToHalf(v));
    }
}

#ifdef KILN_PLUGINS_CUDA
DeviceFloats::~DeviceFloats()
{
    if (mDevice != nullptr)
    {
        static_cast<void>(cudaFree(mDevice));
    }
}

float const* DeviceFloats::upload(std::vector<float> const& host, cudaStream_t stream, cudaError_t& status) noexcept
{
    status = cudaSuccess;
    if (mDevice != nullptr || host.empty())
    {
        return mDevice;
    }
    void* device = nullptr;
    status = cudaMalloc(&device, host.size() * sizeof(float));
    if (status != cudaSuccess)
    {
        return nullptr;
    }
    status = cudaMemcpyAsync(device, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice, stream);
    // The host vector belongs to the plugin, which outlives the copy: no wait is needed.
    if (status != cudaSuccess)
    {
        static_cast<void>(cudaFree(device));
        return nullptr;
    }
    mDevice = static_cast<float*>(device);
    return mDevice;
}
#endif

} // namespace kiln::plugins

namespace kiln::plugins
{

std::string pluginLabel(char const* name, char const* version, std::string const& pluginNamespace)
{
    return std::string(name) + " version \"" + version + "\" namespace \"" + pluginNamespace + "\"";
}

bool isSequenceFirst5d(nvinfer1::Dims const& dims, int64_t hidden)
{
    return dims.nbDims == 5 && dims.d[0] >= 0 && dims.d[1] >= 0 && dims.d[2] == hidden && dims.d[3] == 1
        && dims.d[4] == 1;
}

int64_t volumeOf(nvinfer1::Dims const& dims)
{
    int64_t count = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        if (dims.d[i] < 0)
        {
            return 0;
        }
        count *= dims.d[i];
    }
    return count;
}

} // namespace kiln::plugins
