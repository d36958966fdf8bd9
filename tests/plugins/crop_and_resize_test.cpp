// SPDX-License-Identifier: Apache-2.0
// CropAndResizeDynamic on the host: the host implementation against a direct reference written here from TensorFlow's
// crop_and_resize (double arithmetic) on seeded random feature maps and boxes (partly outside the image, flipped,
// crop sizes of 1); the creator's fields and refusals; a run whose shapes disagree with the fields; and an engine
// built, serialized, deserialized and run on the host backend.
#include "NvInferPlugin.h"
#include "crop_and_resize.h"
#include "host_engine_support.h"
#include "kiln/plugin_host.h"
#include "standard_plugin_v2.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace kiln::plugins
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::PluginField;
using nvinfer1::PluginFieldCollection;
using nvinfer1::PluginFieldType;

using CropLogger = test::PluginLog; // warnings and errors, one per line (host_engine_support.h)

CropLogger& logger()
{
    static CropLogger instance;
    return instance;
}

std::vector<float> reference(CropAndResizeParams const& p, std::vector<float> const& x, std::vector<float> const& rois)
{
    std::vector<float> y;
    for (int64_t box = 0; box < p.batch * p.boxes; ++box)
    {
        int64_t const image = box / p.boxes;
        double const y1 = rois[box * 4];
        double const x1 = rois[box * 4 + 1];
        double const y2 = rois[box * 4 + 2];
        double const x2 = rois[box * 4 + 3];
        for (int64_t c = 0; c < p.channels; ++c)
        {
            for (int64_t oy = 0; oy < p.cropHeight; ++oy)
            {
                for (int64_t ox = 0; ox < p.cropWidth; ++ox)
                {
                    auto const at = [](double lo, double hi, int64_t extent, int64_t crop, int64_t i) {
                        return crop > 1 ? lo * (extent - 1) + i * (hi - lo) * (extent - 1) / (crop - 1)
                                        : 0.5 * (lo + hi) * (extent - 1);
                    };
                    double const iy = at(y1, y2, p.height, p.cropHeight, oy);
                    double const ix = at(x1, x2, p.width, p.cropWidth, ox);
                    if (iy < 0 || iy > p.height - 1 || ix < 0 || ix > p.width - 1)
                    {
                        y.push_back(0.0F);
                        continue;
                    }
                    auto const value = [&](int64_t yy, int64_t xx) {
                        return static_cast<double>(x[((image * p.channels + c) * p.height + yy) * p.width + xx]);
                    };
                    auto const top = static_cast<int64_t>(std::floor(iy));
                    auto const left = static_cast<int64_t>(std::floor(ix));
                    auto const bottom = static_cast<int64_t>(std::ceil(iy));
                    auto const right = static_cast<int64_t>(std::ceil(ix));
                    double const ly = iy - top;
                    double const lx = ix - left;
                    double const upper = value(top, left) + (value(top, right) - value(top, left)) * lx;
                    double const lower = value(bottom, left) + (value(bottom, right) - value(bottom, left)) * lx;
                    y.push_back(static_cast<float>(upper + (lower - upper) * ly));
                }
            }
        }
    }
    return y;
}

std::vector<float> uniform(std::mt19937_64& rng, size_t n, float lo, float hi)
{
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(n);
    for (float& f : v)
    {
        f = d(rng);
    }
    return v;
}

TEST(CropAndResizeHost, MatchesTensorFlowsDefinition)
{
    std::mt19937_64 rng(20261130);
    for (auto const& [cropH, cropW] : {std::pair{3, 4}, std::pair{1, 5}, std::pair{2, 1}, std::pair{1, 1}})
    {
        SCOPED_TRACE(std::to_string(cropH) + "x" + std::to_string(cropW));
        CropAndResizeParams p;
        p.cropHeight = cropH;
        p.cropWidth = cropW;
        p.batch = 2;
        p.channels = 3;
        p.height = 7;
        p.width = 9;
        p.boxes = 5;
        std::vector<float> const x = uniform(rng, static_cast<size_t>(2 * 3 * 7 * 9), -2.0F, 2.0F);
        // Normalized boxes in [-0.3, 1.3): partly outside the image, and flipped where y1 > y2 or x1 > x2.
        std::vector<float> const rois = uniform(rng, static_cast<size_t>(2 * 5 * 4), -0.3F, 1.3F);
        std::vector<float> y(static_cast<size_t>(p.outputCount()), -7.0F);
        runCropAndResizeHost(p, x.data(), rois.data(), y.data());
        std::vector<float> const expected = reference(p, x, rois);
        ASSERT_EQ(y.size(), expected.size());
        for (size_t i = 0; i < y.size(); ++i)
        {
            EXPECT_NEAR(y[i], expected[i], 1e-5 * (1 + std::fabs(expected[i]))) << i;
        }
    }
}

nvinfer1::IPluginCreatorV3One* creator()
{
    return static_cast<nvinfer1::IPluginCreatorV3One*>(
        getPluginRegistry()->getCreator("CropAndResizeDynamic", "2", ""));
}

void expectRefused(std::vector<PluginField> const& fields, std::string const& message)
{
    PluginFieldCollection const fc{static_cast<int32_t>(fields.size()), fields.data()};
    logger().mMessages.clear();
    std::unique_ptr<nvinfer1::IPluginV3> plugin{creator()->createPlugin("crop", &fc, nvinfer1::TensorRTPhase::kBUILD)};
    EXPECT_EQ(plugin, nullptr) << message;
    EXPECT_NE(logger().mMessages.find(message), std::string::npos) << logger().mMessages;
}

TEST(CropAndResizePlugin, RegisteredWithTensorRTsFieldsAndRefusesBadOnes)
{
    ASSERT_TRUE(initLibNvInferPlugins(&logger(), ""));
    ASSERT_NE(creator(), nullptr);
    EXPECT_STREQ(creator()->getInterfaceInfo().kind, "PLUGIN CREATOR_V3ONE");
    ASSERT_EQ(creator()->getFieldNames()->nbFields, 2);
    EXPECT_STREQ(creator()->getFieldNames()->fields[0].name, "crop_width");
    EXPECT_STREQ(creator()->getFieldNames()->fields[1].name, "crop_height");
    int32_t const zero = 0;
    int32_t const three = 3;
    float const wrong = 3.0F;
    expectRefused({{"crop_width", &three, PluginFieldType::kINT32, 1}},
        "CropAndResizeDynamic plugin: field crop_height is required");
    expectRefused(
        {{"crop_width", &three, PluginFieldType::kINT32, 1}, {"crop_height", &zero, PluginFieldType::kINT32, 1}},
        "crop_width and crop_height are 3 and 0; they must be positive");
    expectRefused(
        {{"crop_width", &wrong, PluginFieldType::kFLOAT32, 1}, {"crop_height", &three, PluginFieldType::kINT32, 1}},
        "field crop_width must be kINT32");
}

nvinfer1::PluginTensorDesc describe(nvinfer1::Dims const& dims)
{
    nvinfer1::PluginTensorDesc desc{};
    desc.dims = dims;
    desc.type = DataType::kFLOAT;
    desc.format = nvinfer1::TensorFormat::kLINEAR;
    return desc;
}

TEST(CropAndResizePlugin, RunsWhoseShapesDisagreeAreRefused)
{
    ASSERT_TRUE(initLibNvInferPlugins(&logger(), ""));
    int32_t const two = 2;
    PluginField const fields[]
        = {{"crop_width", &two, PluginFieldType::kINT32, 1}, {"crop_height", &two, PluginFieldType::kINT32, 1}};
    PluginFieldCollection const fc{2, fields};
    std::unique_ptr<nvinfer1::IPluginV3> plugin{
        creator()->createPlugin("crop", &fc, nvinfer1::TensorRTPhase::kRUNTIME)};
    ASSERT_NE(plugin, nullptr);
    auto* host = static_cast<kiln::IPluginV3OneHost*>(plugin->getCapabilityInterface(kiln::kPLUGIN_CAPABILITY_HOST));
    ASSERT_NE(host, nullptr);
    std::vector<float> x(1 * 1 * 4 * 4, 1.F);
    std::vector<float> rois{0.F, 0.F, 1.F, 1.F};
    std::vector<float> y(1 * 1 * 1 * 2 * 1, -7.F); // [1, 1, 1, 2, 1]: one column short of [1, 1, 1, 2, 2].
    nvinfer1::PluginTensorDesc const in[]
        = {describe(nvinfer1::Dims{4, {1, 1, 4, 4}}), describe(nvinfer1::Dims{3, {1, 1, 4}})};
    nvinfer1::PluginTensorDesc const out = describe(nvinfer1::Dims{5, {1, 1, 1, 2, 1}});
    void const* inputs[] = {x.data(), rois.data()};
    void* outputs[] = {y.data()};
    logger().mMessages.clear();
    EXPECT_NE(host->enqueueHost(in, &out, inputs, outputs, nullptr), 0);
    EXPECT_NE(logger().mMessages.find("CropAndResizeDynamic plugin: the tensors of this run do not have the shapes"),
        std::string::npos)
        << logger().mMessages;
    EXPECT_EQ(y, std::vector<float>(y.size(), -7.F));
}

TEST(CropAndResizePlugin, SerializesDeserializesAndRunsInAnEngine)
{
    ASSERT_TRUE(initLibNvInferPlugins(&logger(), ""));
    std::mt19937_64 rng(9);
    CropAndResizeParams p;
    p.cropHeight = 3;
    p.cropWidth = 2;
    p.batch = 2;
    p.channels = 2;
    p.height = 5;
    p.width = 6;
    p.boxes = 3;
    std::vector<float> x = uniform(rng, static_cast<size_t>(2 * 2 * 5 * 6), -1.0F, 1.0F);
    std::vector<float> rois = uniform(rng, static_cast<size_t>(2 * 3 * 4), 0.0F, 1.0F);
    std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger())};
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    nvinfer1::ITensor* inputs[] = {network->addInput("X", DataType::kFLOAT, nvinfer1::Dims{4, {2, 2, 5, 6}}),
        network->addInput("rois", DataType::kFLOAT, nvinfer1::Dims{4, {2, 3, 4, 1}})};
    PluginField const fields[] = {{"crop_width", &p.cropWidth, PluginFieldType::kINT32, 1},
        {"crop_height", &p.cropHeight, PluginFieldType::kINT32, 1}};
    PluginFieldCollection const fc{2, fields};
    std::unique_ptr<nvinfer1::IPluginV3> plugin{creator()->createPlugin("crop", &fc, nvinfer1::TensorRTPhase::kBUILD)};
    ASSERT_NE(plugin, nullptr);
    nvinfer1::IPluginV3Layer* layer = network->addPluginV3(inputs, 2, nullptr, 0, *plugin);
    ASSERT_NE(layer, nullptr);
    layer->getOutput(0)->setName("Y");
    network->markOutput(*layer->getOutput(0));
    std::unique_ptr<nvinfer1::IBuilderConfig> config{builder->createBuilderConfig()};
    logger().mMessages.clear();
    std::unique_ptr<nvinfer1::IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
    ASSERT_NE(plan, nullptr) << logger().mMessages;
    std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(logger())};
    std::unique_ptr<nvinfer1::ICudaEngine> engine{runtime->deserializeCudaEngine(plan->data(), plan->size())};
    ASSERT_NE(engine, nullptr) << logger().mMessages;
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_NE(context, nullptr) << logger().mMessages;
    std::vector<float> y(static_cast<size_t>(p.outputCount()), -9.F);
    context->setTensorAddress("X", x.data());
    context->setTensorAddress("rois", rois.data());
    context->setTensorAddress("Y", y.data());
    ASSERT_TRUE(context->enqueueV3(nullptr)) << logger().mMessages;
    std::vector<float> const expected = reference(p, x, rois);
    for (size_t i = 0; i < y.size(); ++i)
    {
        EXPECT_NEAR(y[i], expected[i], 1e-5 * (1 + std::fabs(expected[i]))) << i;
    }
}

KILN_IGNORE_DEPRECATED_BEGIN

// Version "1", the legacy IPluginV2DynamicExt form: the same fields, serialized and restored, and the same results in
// an engine on the host backend.
TEST(CropAndResizePlugin, LegacyVersionOneRunsInAnEngine)
{
    ASSERT_TRUE(initLibNvInferPlugins(&logger(), ""));
    auto* legacy
        = static_cast<nvinfer1::IPluginCreator*>(getPluginRegistry()->getCreator("CropAndResizeDynamic", "1", ""));
    ASSERT_NE(legacy, nullptr);
    EXPECT_STREQ(legacy->getInterfaceInfo().kind, "PLUGIN CREATOR_V1");
    ASSERT_EQ(legacy->getFieldNames()->nbFields, 2);
    int32_t const zero = 0;
    PluginField const bad[]
        = {{"crop_width", &zero, PluginFieldType::kINT32, 1}, {"crop_height", &zero, PluginFieldType::kINT32, 1}};
    PluginFieldCollection const badFc{2, bad};
    logger().mMessages.clear();
    EXPECT_EQ(legacy->createPlugin("crop", &badFc), nullptr);
    EXPECT_NE(logger().mMessages.find("crop_width and crop_height are 0 and 0"), std::string::npos)
        << logger().mMessages;

    std::mt19937_64 rng(10);
    CropAndResizeParams p;
    p.cropHeight = 2;
    p.cropWidth = 3;
    p.batch = 2;
    p.channels = 2;
    p.height = 5;
    p.width = 4;
    p.boxes = 2;
    std::vector<float> x = uniform(rng, static_cast<size_t>(2 * 2 * 5 * 4), -1.0F, 1.0F);
    std::vector<float> rois = uniform(rng, static_cast<size_t>(2 * 2 * 4), -0.2F, 1.2F);
    PluginField const fields[] = {{"crop_width", &p.cropWidth, PluginFieldType::kINT32, 1},
        {"crop_height", &p.cropHeight, PluginFieldType::kINT32, 1}};
    PluginFieldCollection const fc{2, fields};
    nvinfer1::IPluginV2* plugin = legacy->createPlugin("crop", &fc);
    ASSERT_NE(plugin, nullptr);
    EXPECT_STREQ(plugin->getPluginVersion(), "1");
    std::vector<uint8_t> bytes(plugin->getSerializationSize());
    ASSERT_EQ(bytes.size(), 8U);
    plugin->serialize(bytes.data());
    nvinfer1::IPluginV2* restored = legacy->deserializePlugin("crop", bytes.data(), bytes.size());
    ASSERT_NE(restored, nullptr);
    restored->destroy();
    std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger())};
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    nvinfer1::ITensor* inputs[] = {network->addInput("X", DataType::kFLOAT, nvinfer1::Dims{4, {2, 2, 5, 4}}),
        network->addInput("rois", DataType::kFLOAT, nvinfer1::Dims{3, {2, 2, 4}})};
    nvinfer1::IPluginV2Layer* layer = network->addPluginV2(inputs, 2, *plugin);
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
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_NE(context, nullptr) << logger().mMessages;
    std::vector<float> y(static_cast<size_t>(p.outputCount()), -9.F);
    context->setTensorAddress("X", x.data());
    context->setTensorAddress("rois", rois.data());
    context->setTensorAddress("Y", y.data());
    ASSERT_TRUE(context->enqueueV3(nullptr)) << logger().mMessages;
    std::vector<float> const expected = reference(p, x, rois);
    for (size_t i = 0; i < y.size(); ++i)
    {
        EXPECT_NEAR(y[i], expected[i], 1e-5 * (1 + std::fabs(expected[i]))) << i;
    }
}

KILN_IGNORE_DEPRECATED_END

} // namespace
} // namespace kiln::plugins
