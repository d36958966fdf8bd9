// SPDX-License-Identifier: Apache-2.0
// The plugin-field fuzz target: the field collections a creator receives when a plan is loaded (or a network built),
// decoded from any bytes (plugin_fields.h), handed to one of the creators initLibNvInferPlugins registers. A creator
// must refuse what it cannot use by returning nullptr; a plugin it makes must answer its core questions, clone, give
// its fields to serialize (each with a name and, for a positive length, data) and be destroyed without crashing.
//
//     kiln_plugin_fields_fuzz [--iterations N] [--seed S] [--replay] build/tests/fuzz/fuzz_seeds/plugin_fields
#include "NvInfer.h"
#include "NvInferPlugin.h"
#include "fuzz/driver.h"
#include "fuzz/plugin_fields.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace
{

class SilentLogger : public nvinfer1::ILogger
{
public:
    void log(Severity, char const*) noexcept override {}
};

void checkSerializedFields(nvinfer1::PluginFieldCollection const* fields)
{
    if (fields == nullptr)
    {
        return;
    }
    for (int32_t i = 0; i < fields->nbFields; ++i)
    {
        nvinfer1::PluginField const& field = fields->fields[i];
        if (field.name == nullptr || (field.length > 0 && field.data == nullptr) || field.length < 0)
        {
            std::fprintf(stderr, "field %d to serialize has no name, a negative length or no data\n", i);
            std::abort();
        }
    }
}

void exerciseV3(nvinfer1::IPluginCreatorV3One& creator, kiln::fuzz::DecodedFields const& input)
{
    auto const phase = input.runtimePhase ? nvinfer1::TensorRTPhase::kRUNTIME : nvinfer1::TensorRTPhase::kBUILD;
    nvinfer1::IPluginV3* plugin = creator.createPlugin("fuzzed", &input.collection, phase);
    if (plugin == nullptr)
    {
        return;
    }
    auto* core = static_cast<nvinfer1::IPluginV3OneCore*>(
        plugin->getCapabilityInterface(nvinfer1::PluginCapabilityType::kCORE));
    if (core == nullptr || core->getPluginName() == nullptr || core->getPluginVersion() == nullptr)
    {
        std::fprintf(stderr, "a plugin made from fields has no core interface, name or version\n");
        std::abort();
    }
    auto* runtime = static_cast<nvinfer1::IPluginV3OneRuntime*>(
        plugin->getCapabilityInterface(nvinfer1::PluginCapabilityType::kRUNTIME));
    if (runtime != nullptr)
    {
        checkSerializedFields(runtime->getFieldsToSerialize());
    }
    delete plugin->clone();
    delete plugin;
}

void exerciseV2(nvinfer1::IPluginCreator& creator, kiln::fuzz::DecodedFields const& input)
{
    nvinfer1::IPluginV2* plugin = creator.createPlugin("fuzzed", &input.collection);
    if (plugin == nullptr)
    {
        return;
    }
    (void)plugin->getNbOutputs();
    (void)plugin->getSerializationSize();
    if (nvinfer1::IPluginV2* copy = plugin->clone())
    {
        copy->destroy();
    }
    plugin->destroy();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(uint8_t const* data, size_t size)
{
    static SilentLogger logger;
    static bool const plugins = initLibNvInferPlugins(&logger, "");
    (void)plugins;
    int32_t count = 0;
    nvinfer1::IPluginCreatorInterface* const* creators = getPluginRegistry()->getAllCreators(&count);
    if (creators == nullptr || count <= 0)
    {
        return 0;
    }
    nvinfer1::IPluginCreatorInterface& creator = *creators[(size > 0 ? data[0] : 0) % count];
    kiln::fuzz::DecodedFields const input
        = kiln::fuzz::decodeFields(data, size, kiln::fuzz::creatorFieldNames(creator));
    std::string const kind = creator.getInterfaceInfo().kind;
    if (kind == "PLUGIN CREATOR_V3ONE")
    {
        exerciseV3(static_cast<nvinfer1::IPluginCreatorV3One&>(creator), input);
    }
    else if (kind == "PLUGIN CREATOR_V1")
    {
        exerciseV2(static_cast<nvinfer1::IPluginCreator&>(creator), input);
    }
    return 0;
}

#ifndef KILN_LIBFUZZER
int main(int argc, char** argv)
{
    return kiln::fuzz::runFuzzDriver(argc, argv, "kiln_plugin_fields_fuzz", {});
}
#endif
