// SPDX-License-Identifier: Apache-2.0
// What the host tests of InstanceNormalization_TRT, GroupNormalizationPlugin, ScatterElements and
// MultiscaleDeformableAttnPlugin_TRT share: a logger that keeps warnings and errors, the library initialised with it,
// seeded random data, a tolerance comparison, plugin tensor descriptions, and an engine built, serialized,
// deserialized and run on the host backend with raw input and output buffers.
//
//     PluginLog& log = initPlugins();
//     auto* creator = v3Creator("ScatterElements", "2");
//     EngineRun run = buildAndRun(*builder, *network, {{"data", data.data()}}, bytes);
#pragma once

#include "NvInfer.h"
#include "NvInferPlugin.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace kiln::plugins::test
{

//! Keeps warnings and errors, one per line.
class PluginLog final : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        if (severity <= Severity::kWARNING)
        {
            mMessages += std::string(msg) + "\n";
        }
    }
    //! Whether a kept message contains text.
    bool has(std::string const& text) const { return mMessages.find(text) != std::string::npos; }
    std::string mMessages;
};

//! The library initialised (namespace "") with a process-wide log, emptied.
inline PluginLog& initPlugins()
{
    static PluginLog log;
    EXPECT_TRUE(initLibNvInferPlugins(&log, ""));
    log.mMessages.clear();
    return log;
}

inline nvinfer1::IPluginCreatorV3One* v3Creator(char const* name, char const* version)
{
    return static_cast<nvinfer1::IPluginCreatorV3One*>(getPluginRegistry()->getCreator(name, version, ""));
}

//! count values uniform in [lo, hi).
inline std::vector<float> randomValues(std::mt19937_64& rng, size_t count, float lo, float hi)
{
    std::uniform_real_distribution<float> uniform(lo, hi);
    std::vector<float> values(count);
    for (float& v : values)
    {
        v = uniform(rng);
    }
    return values;
}

//! Every element within tolerance * (1 + |expected|); at most ten failures reported.
inline void expectClose(std::vector<float> const& actual, std::vector<float> const& expected, double tolerance)
{
    ASSERT_EQ(actual.size(), expected.size());
    int failures = 0;
    for (size_t i = 0; i < expected.size() && failures < 10; ++i)
    {
        if (!(std::fabs(actual[i] - expected[i]) <= tolerance * (1.0 + std::fabs(expected[i]))))
        {
            ADD_FAILURE() << "element " << i << ": " << actual[i] << ", expected " << expected[i];
            ++failures;
        }
    }
}

//! A linear plugin tensor description.
inline nvinfer1::PluginTensorDesc describe(nvinfer1::Dims const& dims, nvinfer1::DataType type)
{
    nvinfer1::PluginTensorDesc desc{};
    desc.dims = dims;
    desc.type = type;
    desc.format = nvinfer1::TensorFormat::kLINEAR;
    return desc;
}

struct EngineRun
{
    std::vector<uint8_t> output; //!< Output "Y"'s bytes.
    std::string failure;

    std::vector<float> floats() const
    {
        std::vector<float> values(output.size() / sizeof(float));
        std::memcpy(values.data(), output.data(), values.size() * sizeof(float));
        return values;
    }
};

//! Builds network (filled, output "Y" marked), serializes, deserializes with a fresh runtime, runs with the bound
//! inputs; returns Y's outputBytes bytes.
inline EngineRun buildAndRun(nvinfer1::IBuilder& builder, nvinfer1::INetworkDefinition& network,
    std::vector<std::pair<char const*, void const*>> const& inputs, size_t outputBytes, PluginLog& log)
{
    EngineRun run;
    std::unique_ptr<nvinfer1::IBuilderConfig> config{builder.createBuilderConfig()};
    std::unique_ptr<nvinfer1::IHostMemory> plan{builder.buildSerializedNetwork(network, *config)};
    if (plan == nullptr)
    {
        run.failure = "build failed: " + log.mMessages;
        return run;
    }
    std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(log)};
    std::unique_ptr<nvinfer1::ICudaEngine> engine{runtime->deserializeCudaEngine(plan->data(), plan->size())};
    if (engine == nullptr)
    {
        run.failure = "deserialize failed: " + log.mMessages;
        return run;
    }
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    if (context == nullptr)
    {
        run.failure = "no execution context: " + log.mMessages;
        return run;
    }
    for (auto const& [name, data] : inputs)
    {
        context->setTensorAddress(name, const_cast<void*>(data));
    }
    run.output.assign(outputBytes, 0xA5);
    context->setTensorAddress("Y", run.output.data());
    if (!context->enqueueV3(nullptr))
    {
        run.failure = "enqueue failed: " + log.mMessages;
    }
    return run;
}

} // namespace kiln::plugins::test
