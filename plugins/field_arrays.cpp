// SPDX-License-Identifier: Apache-2.0
#include "field_arrays.h"

#include "common.h"

#include <cstring>

namespace kiln::plugins
{

namespace
{

nvinfer1::PluginField const* findField(nvinfer1::PluginFieldCollection const* fc, char const* name)
{
    for (int32_t i = 0; fc != nullptr && fc->fields != nullptr && i < fc->nbFields; ++i)
    {
        nvinfer1::PluginField const& field = fc->fields[i];
        if (field.name != nullptr && std::strcmp(field.name, name) == 0)
        {
            return &field;
        }
    }
    return nullptr;
}

} // namespace

bool readFloatArray(
    char const* plugin, nvinfer1::PluginFieldCollection const* fc, char const* name, std::vector<float>& values)
{
    nvinfer1::PluginField const* field = findField(fc, name);
    if (field == nullptr)
    {
        return true;
    }
    if (field->type != nvinfer1::PluginFieldType::kFLOAT32 || field->length < 0
        || (field->length > 0 && field->data == nullptr))
    {
        logError(plugin,
            std::string("field ") + name + " must be kFLOAT32 with its values; it has another type, length "
                + std::to_string(field->length) + (field->data == nullptr ? " and no data" : ""));
        return false;
    }
    values.resize(static_cast<size_t>(field->length));
    if (!values.empty())
    {
        std::memcpy(values.data(), field->data, values.size() * sizeof(float));
    }
    return true;
}

bool readString(char const* plugin, nvinfer1::PluginFieldCollection const* fc, char const* name, std::string& value)
{
    nvinfer1::PluginField const* field = findField(fc, name);
    if (field == nullptr)
    {
        return true;
    }
    if (field->type != nvinfer1::PluginFieldType::kCHAR || field->data == nullptr || field->length < 0)
    {
        logError(plugin,
            std::string("field ") + name + " must be kCHAR with its characters; it has another type"
                + (field->data == nullptr ? " or no data" : " or a negative length"));
        return false;
    }
    auto const* text = static_cast<char const*>(field->data);
    auto const length = static_cast<size_t>(field->length);
    void const* nul = std::memchr(text, '\0', length);
    value.assign(text, nul != nullptr ? static_cast<char const*>(nul) - text : static_cast<std::ptrdiff_t>(length));
    return true;
}

} // namespace kiln::plugins
