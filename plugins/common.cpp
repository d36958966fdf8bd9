// SPDX-License-Identifier: Apache-2.0
#include "common.h"

#include <atomic>
#include <cstring>

namespace kiln::plugins
{

namespace
{

std::atomic<nvinfer1::ILogger*> gLogger{nullptr};

char const* typeName(nvinfer1::PluginFieldType type)
{
    switch (type)
    {
    case nvinfer1::PluginFieldType::kINT32: return "kINT32";
    case nvinfer1::PluginFieldType::kFLOAT32: return "kFLOAT32";
    default: return "another type";
    }
}

} // namespace

void setLibraryLogger(nvinfer1::ILogger* logger) noexcept
{
    gLogger.store(logger);
}

namespace
{

void logAs(nvinfer1::ILogger::Severity severity, char const* plugin, std::string const& message) noexcept
{
    try
    {
        nvinfer1::ILogger* logger = gLogger.load();
        if (logger == nullptr)
        {
            logger = getLogger();
        }
        if (logger != nullptr)
        {
            logger->log(severity, (std::string(plugin) + " plugin: " + message).c_str());
        }
    }
    catch (...)
    {
        // Nothing can be reported without memory for the message.
    }
}

} // namespace

void logError(char const* plugin, std::string const& message) noexcept
{
    logAs(nvinfer1::ILogger::Severity::kERROR, plugin, message);
}

bool hasField(nvinfer1::PluginFieldCollection const* fc, char const* name) noexcept
{
    for (int32_t i = 0; fc != nullptr && fc->fields != nullptr && i < fc->nbFields; ++i)
    {
        if (fc->fields[i].name != nullptr && std::strcmp(fc->fields[i].name, name) == 0)
        {
            return true;
        }
    }
    return false;
}

void logWarning(char const* plugin, std::string const& message) noexcept
{
    logAs(nvinfer1::ILogger::Severity::kWARNING, plugin, message);
}

FieldReader::FieldReader(char const* plugin, nvinfer1::PluginFieldCollection const* fc) noexcept
    : mPlugin(plugin)
    , mFields(fc)
{
}

nvinfer1::PluginField const* FieldReader::find(
    char const* name, nvinfer1::PluginFieldType type, int32_t length, bool& ok) const
{
    ok = true;
    for (int32_t i = 0; mFields != nullptr && mFields->fields != nullptr && i < mFields->nbFields; ++i)
    {
        nvinfer1::PluginField const& field = mFields->fields[i];
        if (field.name == nullptr || std::strcmp(field.name, name) != 0)
        {
            continue;
        }
        if (field.type != type || field.data == nullptr || field.length != length)
        {
            logError(mPlugin,
                std::string("field ") + name + " must be " + typeName(type) + " with " + std::to_string(length)
                    + (length == 1 ? " element" : " elements") + "; it has " + typeName(field.type) + " with "
                    + std::to_string(field.length) + (field.data == nullptr ? " and no data" : ""));
            ok = false;
            return nullptr;
        }
        return &field;
    }
    return nullptr;
}

bool FieldReader::readInt(char const* name, int32_t& value) const
{
    bool ok = true;
    if (nvinfer1::PluginField const* field = find(name, nvinfer1::PluginFieldType::kINT32, 1, ok))
    {
        std::memcpy(&value, field->data, sizeof value);
    }
    return ok;
}

bool FieldReader::readFloat(char const* name, float& value) const
{
    bool ok = true;
    if (nvinfer1::PluginField const* field = find(name, nvinfer1::PluginFieldType::kFLOAT32, 1, ok))
    {
        std::memcpy(&value, field->data, sizeof value);
    }
    return ok;
}

bool FieldReader::readInts(char const* name, std::vector<int32_t>& values) const
{
    bool ok = true;
    auto const length = static_cast<int32_t>(values.size());
    if (nvinfer1::PluginField const* field = find(name, nvinfer1::PluginFieldType::kINT32, length, ok))
    {
        std::memcpy(values.data(), field->data, values.size() * sizeof(int32_t));
    }
    return ok;
}

nvinfer1::IPluginCapability* StandardPlugin::getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept
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
    if (type == kiln::kPLUGIN_CAPABILITY_HOST)
    {
        return static_cast<kiln::IPluginV3OneHost*>(this);
    }
    return nullptr;
}

int32_t StandardPlugin::getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t nbOutputs,
    nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept
{
    if (nbOutputs != 1 || nbInputs < 1)
    {
        logError(getPluginName(), "expects one output and at least one input");
        return -1;
    }
    outputTypes[0] = inputTypes[0];
    return 0;
}

int32_t StandardPlugin::configurePlugin(nvinfer1::DynamicPluginTensorDesc const* /*in*/, int32_t /*nbInputs*/,
    nvinfer1::DynamicPluginTensorDesc const* /*out*/, int32_t /*nbOutputs*/) noexcept
{
    return 0;
}

int32_t StandardPlugin::onShapeChange(nvinfer1::PluginTensorDesc const* /*in*/, int32_t /*nbInputs*/,
    nvinfer1::PluginTensorDesc const* /*out*/, int32_t /*nbOutputs*/) noexcept
{
    return 0; // enqueue reads the extents from its descriptors.
}

nvinfer1::IPluginV3* StandardPlugin::attachToContext(nvinfer1::IPluginResourceContext* /*context*/) noexcept
{
    return clone();
}

} // namespace kiln::plugins
