// SPDX-License-Identifier: Apache-2.0
// ResizeNearest_TRT on the host: the host implementation against a direct nearest-neighbour loop written here, for
// integer, fractional and shrinking scales; the creator's field and refusals; serialization with the configured
// shapes; and an engine (the IPluginV2Ext in an explicit-batch network) built, serialized, deserialized and run on the
// host backend.
#include "NvInferPlugin.h"
#include "host_engine_support.h"
#include "resize_nearest.h"
#include "standard_plugin_v2.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

KILN_IGNORE_DEPRECATED_BEGIN

namespace kiln::plugins
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::PluginField;
using nvinfer1::PluginFieldCollection;
using nvinfer1::PluginFieldType;

using ResizeLogger = test::PluginLog; // warnings and errors, one per line (host_engine_support.h)

ResizeLogger& logger()
{
    static ResizeLogger instance;
    return instance;
}

std::vector<float> reference(
    std::vector<float> const& x, int64_t planes, int64_t h, int64_t w, float scale, int64_t oh, int64_t ow)
{
    std::vector<float> y;
    for (int64_t p = 0; p < planes; ++p)
    {
        for (int64_t oy = 0; oy < oh; ++oy)
        {
            for (int64_t ox = 0; ox < ow; ++ox)
            {
                int64_t const iy = std::min<int64_t>(static_cast<int64_t>(static_cast<float>(oy) / scale), h - 1);
                int64_t const ix = std::min<int64_t>(static_cast<int64_t>(static_cast<float>(ox) / scale), w - 1);
                y.push_back(x[(p * h + iy) * w + ix]);
            }
        }
    }
    return y;
}

TEST(ResizeNearestHost, MatchesTheDirectLoop)
{
    std::mt19937_64 rng(20261130);
    std::uniform_real_distribution<float> values(-1.0F, 1.0F);
    for (float scale : {2.0F, 1.5F, 0.5F, 3.0F, 0.7F})
    {
        SCOPED_TRACE(scale);
        ResizeNearestParams p;
        p.scale = scale;
        p.planes = 6;
        p.height = 5;
        p.width = 7;
        p.outHeight = resizeNearestExtent(5, scale);
        p.outWidth = resizeNearestExtent(7, scale);
        std::vector<float> x(static_cast<size_t>(6 * 5 * 7));
        for (float& v : x)
        {
            v = values(rng);
        }
        std::vector<float> y(static_cast<size_t>(p.outputCount()), -7.0F);
        runResizeNearestHost(p, x.data(), y.data());
        EXPECT_EQ(y, reference(x, 6, 5, 7, scale, p.outHeight, p.outWidth));
    }
    EXPECT_EQ(resizeNearestExtent(5, 1.5F), 7);
    EXPECT_EQ(resizeNearestExtent(7, 0.5F), 3);
}

nvinfer1::IPluginCreator* creator()
{
    return static_cast<nvinfer1::IPluginCreator*>(getPluginRegistry()->getCreator("ResizeNearest_TRT", "1", ""));
}

TEST(ResizeNearestPlugin, RegisteredWithTensorRTsFieldAndRefusesBadOnes)
{
    ASSERT_TRUE(initLibNvInferPlugins(&logger(), ""));
    ASSERT_NE(creator(), nullptr);
    ASSERT_EQ(creator()->getFieldNames()->nbFields, 1);
    EXPECT_STREQ(creator()->getFieldNames()->fields[0].name, "scale");
    EXPECT_EQ(creator()->getFieldNames()->fields[0].type, PluginFieldType::kFLOAT32);
    PluginFieldCollection const none{0, nullptr};
    logger().mMessages.clear();
    EXPECT_EQ(creator()->createPlugin("resize", &none), nullptr);
    EXPECT_NE(logger().mMessages.find("ResizeNearest_TRT plugin: field scale is required"), std::string::npos)
        << logger().mMessages;
    float const zero = 0.0F;
    PluginField const bad{"scale", &zero, PluginFieldType::kFLOAT32, 1};
    PluginFieldCollection const badFc{1, &bad};
    logger().mMessages.clear();
    EXPECT_EQ(creator()->createPlugin("resize", &badFc), nullptr);
    EXPECT_NE(logger().mMessages.find("scale is 0.000000; it must be positive"), std::string::npos)
        << logger().mMessages;
    int32_t const two = 2;
    PluginField const wrong{"scale", &two, PluginFieldType::kINT32, 1};
    PluginFieldCollection const wrongFc{1, &wrong};
    logger().mMessages.clear();
    EXPECT_EQ(creator()->createPlugin("resize", &wrongFc), nullptr);
    EXPECT_NE(logger().mMessages.find("field scale must be kFLOAT32"), std::string::npos) << logger().mMessages;
    uint8_t const shortBytes[4]{};
    logger().mMessages.clear();
    EXPECT_EQ(creator()->deserializePlugin("resize", shortBytes, 4), nullptr);
    EXPECT_NE(logger().mMessages.find("the serialized plugin has 4 bytes"), std::string::npos) << logger().mMessages;
}

TEST(ResizeNearestPlugin, EngineSerializesDeserializesAndRunsOnTheHost)
{
    ASSERT_TRUE(initLibNvInferPlugins(&logger(), ""));
    float const scale = 2.0F;
    PluginField const field{"scale", &scale, PluginFieldType::kFLOAT32, 1};
    PluginFieldCollection const fc{1, &field};
    nvinfer1::IPluginV2* plugin = creator()->createPlugin("resize", &fc);
    ASSERT_NE(plugin, nullptr);
    std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger())};
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    nvinfer1::ITensor* input = network->addInput("X", DataType::kFLOAT, nvinfer1::Dims{4, {2, 3, 4, 5}});
    nvinfer1::IPluginV2Layer* layer = network->addPluginV2(&input, 1, *plugin);
    ASSERT_NE(layer, nullptr);
    layer->getOutput(0)->setName("Y");
    network->markOutput(*layer->getOutput(0));
    std::unique_ptr<nvinfer1::IBuilderConfig> config{builder->createBuilderConfig()};
    logger().mMessages.clear();
    std::unique_ptr<nvinfer1::IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
    plugin->destroy();
    ASSERT_NE(plan, nullptr) << logger().mMessages;
    std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(logger())};
    std::unique_ptr<nvinfer1::ICudaEngine> engine{runtime->deserializeCudaEngine(plan->data(), plan->size())};
    ASSERT_NE(engine, nullptr) << logger().mMessages;
    nvinfer1::Dims const out = engine->getTensorShape("Y");
    ASSERT_EQ(out.nbDims, 4);
    EXPECT_EQ(out.d[2], 8);
    EXPECT_EQ(out.d[3], 10);
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_NE(context, nullptr) << logger().mMessages;
    std::vector<float> x(2 * 3 * 4 * 5);
    for (size_t i = 0; i < x.size(); ++i)
    {
        x[i] = static_cast<float>(i);
    }
    std::vector<float> y(2 * 3 * 8 * 10, -9.F);
    context->setTensorAddress("X", x.data());
    context->setTensorAddress("Y", y.data());
    ASSERT_TRUE(context->enqueueV3(nullptr)) << logger().mMessages;
    EXPECT_EQ(y, reference(x, 6, 4, 5, 2.0F, 8, 10));
}

} // namespace
} // namespace kiln::plugins

KILN_IGNORE_DEPRECATED_END
