// SPDX-License-Identifier: Apache-2.0
// What the host tests of the BERT family of standard plugins share: a logger that keeps the errors, seeded random
// values, FP16 conversions of whole vectors, the registered creators, and an engine built from a network with one
// plugin layer, serialized, deserialized and run on the host backend with outputs of any type.
#pragma once

#include "NvInfer.h"
#include "NvInferPlugin.h"
#include "core/float_convert.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace kiln::plugins::bert_test
{

class CollectingLogger final : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        if (severity <= Severity::kWARNING)
        {
            mMessages += std::string(msg) + "\n";
        }
    }
    std::string mMessages;
};

inline CollectingLogger& logger()
{
    static CollectingLogger instance;
    return instance;
}

//! Registers the standard plugins with this logger (so that their errors are collected) and clears what it holds.
inline void initPlugins()
{
    ASSERT_TRUE(initLibNvInferPlugins(&logger(), ""));
    logger().mMessages.clear();
}

inline std::vector<float> randomFloats(std::mt19937_64& rng, size_t n, float lo, float hi)
{
    std::uniform_real_distribution<float> uniform(lo, hi);
    std::vector<float> values(n);
    for (float& v : values)
    {
        v = uniform(rng);
    }
    return values;
}

inline std::vector<uint16_t> toHalf(std::vector<float> const& values)
{
    std::vector<uint16_t> out(values.size());
    for (size_t i = 0; i < values.size(); ++i)
    {
        out[i] = floatToHalf(values[i]);
    }
    return out;
}

inline std::vector<float> fromHalf(std::vector<uint16_t> const& values)
{
    std::vector<float> out(values.size());
    for (size_t i = 0; i < values.size(); ++i)
    {
        out[i] = halfToFloat(values[i]);
    }
    return out;
}

//! Each value rounded through FP16.
inline std::vector<float> roundedToHalf(std::vector<float> const& values)
{
    return fromHalf(toHalf(values));
}

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

inline nvinfer1::IPluginCreatorV3One* creator(char const* name, char const* version, char const* ns = "")
{
    return static_cast<nvinfer1::IPluginCreatorV3One*>(getPluginRegistry()->getCreator(name, version, ns));
}

//! Whether the collected log holds fragment (and prints the log when not).
inline ::testing::AssertionResult logged(std::string const& fragment)
{
    if (logger().mMessages.find(fragment) != std::string::npos)
    {
        return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure() << "no \"" << fragment << "\" in the log:\n" << logger().mMessages;
}

//! One plugin layer's host run: the bytes of its outputs, or why it failed.
struct EngineRun
{
    std::vector<std::vector<uint8_t>> outputs;
    std::string failure;
};

//! Builds a network with inputs (name, type, dims) and one plugin layer made by creator from fields, serializes it,
//! deserializes it (the plugin restored from its serialized fields), and runs it on the host backend with the given
//! input bytes; the outputs, named Y0, Y1, ..., get outputBytes[i] bytes each.
inline EngineRun runPluginEngine(nvinfer1::IPluginCreatorV3One& creator, nvinfer1::PluginFieldCollection const& fields,
    std::vector<std::tuple<char const*, nvinfer1::DataType, nvinfer1::Dims>> const& inputs,
    std::vector<void const*> const& inputData, std::vector<size_t> const& outputBytes)
{
    EngineRun run;
    std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger())};
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    std::vector<nvinfer1::ITensor*> tensors;
    for (auto const& [name, type, dims] : inputs)
    {
        tensors.push_back(network->addInput(name, type, dims));
    }
    std::unique_ptr<nvinfer1::IPluginV3> plugin{creator.createPlugin("bert", &fields, nvinfer1::TensorRTPhase::kBUILD)};
    if (plugin == nullptr)
    {
        run.failure = "createPlugin failed: " + logger().mMessages;
        return run;
    }
    nvinfer1::IPluginV3Layer* layer
        = network->addPluginV3(tensors.data(), static_cast<int32_t>(tensors.size()), nullptr, 0, *plugin);
    if (layer == nullptr)
    {
        run.failure = "addPluginV3 failed: " + logger().mMessages;
        return run;
    }
    for (size_t i = 0; i < outputBytes.size(); ++i)
    {
        layer->getOutput(static_cast<int32_t>(i))->setName(("Y" + std::to_string(i)).c_str());
        network->markOutput(*layer->getOutput(static_cast<int32_t>(i)));
    }
    std::unique_ptr<nvinfer1::IBuilderConfig> config{builder->createBuilderConfig()};
    std::unique_ptr<nvinfer1::IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
    if (plan == nullptr)
    {
        run.failure = "build failed: " + logger().mMessages;
        return run;
    }
    std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(logger())};
    std::unique_ptr<nvinfer1::ICudaEngine> engine{runtime->deserializeCudaEngine(plan->data(), plan->size())};
    if (engine == nullptr)
    {
        run.failure = "deserialize failed: " + logger().mMessages;
        return run;
    }
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    if (context == nullptr)
    {
        run.failure = "createExecutionContext failed: " + logger().mMessages;
        return run;
    }
    for (size_t i = 0; i < inputs.size(); ++i)
    {
        context->setTensorAddress(std::get<0>(inputs[i]), const_cast<void*>(inputData[i]));
    }
    run.outputs.resize(outputBytes.size());
    for (size_t i = 0; i < outputBytes.size(); ++i)
    {
        run.outputs[i].assign(outputBytes[i], 0xA5);
        context->setTensorAddress(("Y" + std::to_string(i)).c_str(), run.outputs[i].data());
    }
    if (!context->enqueueV3(nullptr))
    {
        run.failure = "enqueue failed: " + logger().mMessages;
    }
    return run;
}

//! The elements of bytes as T.
template <typename T>
std::vector<T> elementsOf(std::vector<uint8_t> const& bytes)
{
    std::vector<T> out(bytes.size() / sizeof(T));
    std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
    return out;
}

} // namespace kiln::plugins::bert_test
