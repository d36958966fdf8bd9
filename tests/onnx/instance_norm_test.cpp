// SPDX-License-Identifier: Apache-2.0
// InstanceNormalization with OnnxParserFlag::kNATIVE_INSTANCENORM cleared: TensorRT's route through the
// InstanceNormalization_TRT plugin (version "3"). The network holds that plugin layer (3-D X reshaped to 4-D around
// it), and its output equals the native import's for ranks 3 to 5; with the flag set (the default) no plugin is used;
// scale or B that are not initializers, and X of rank 2 or 6, are refused as TensorRT refuses them.
#include "checks.h"
#include "model_builder.h"

#include <gtest/gtest.h>

namespace kiln::onnx_test
{
namespace
{

using nvonnxparser::ErrorCode;
using nvonnxparser::OnnxParserFlag;

//! X (shape) -> InstanceNormalization with scale and B initializers of C values, epsilon 1e-3 -> Y.
ModelBuilder instanceNormModel(Shape const& shape, bool scaleIsInput = false)
{
    ModelBuilder m(17);
    m.input("X", shape);
    int64_t const channels = shape[1];
    std::vector<float> scale;
    std::vector<float> bias;
    for (int64_t c = 0; c < channels; ++c)
    {
        scale.push_back(0.5F + 0.25F * static_cast<float>(c));
        bias.push_back(-0.5F + 0.3F * static_cast<float>(c));
    }
    if (scaleIsInput)
    {
        m.input("scale", {channels});
    }
    else
    {
        m.initializer(floatTensor("scale", {channels}, scale));
    }
    m.initializer(floatTensor("B", {channels}, bias));
    attrFloat(m.node("InstanceNormalization", {"X", "scale", "B"}, {"Y"}, "norm"), "epsilon", 1e-3F);
    m.output("Y");
    return m;
}

std::string pluginName(nvinfer1::ILayer* layer)
{
    auto& plugin = static_cast<nvinfer1::IPluginV3Layer*>(layer)->getPlugin();
    auto* core = static_cast<nvinfer1::IPluginV3OneCore*>(
        plugin.getCapabilityInterface(nvinfer1::PluginCapabilityType::kCORE));
    return std::string(core->getPluginName()) + " " + core->getPluginVersion();
}

TEST(OnnxInstanceNormPlugin, WithTheFlagClearedThePluginGivesTheNativeResult)
{
    for (Shape const& shape : {Shape{2, 3, 7}, Shape{2, 3, 4, 5}, Shape{1, 2, 3, 4, 5}})
    {
        SCOPED_TRACE(shape.size());
        ModelBuilder const m = instanceNormModel(shape);
        size_t count = 1;
        for (int64_t e : shape)
        {
            count *= static_cast<size_t>(e);
        }
        std::vector<float> const x = randomValues(count, 11, -2.0F, 3.0F);

        Harness plugin;
        plugin.mParser->clearFlag(OnnxParserFlag::kNATIVE_INSTANCENORM);
        ASSERT_TRUE(plugin.parse(m)) << plugin.errors();
        auto const layers = plugin.layers(nvinfer1::LayerType::kPLUGIN_V3);
        ASSERT_EQ(layers.size(), 1U);
        EXPECT_EQ(pluginName(layers.front()), "InstanceNormalization_TRT 3");
        auto pluginOut = plugin.run({{"X", {shape, x}}});
        ASSERT_EQ(pluginOut.count("Y"), 1U) << plugin.lastFailure();
        EXPECT_EQ(pluginOut["Y"].shape, shape);

        Harness native;
        ASSERT_TRUE(native.mParser->getFlag(OnnxParserFlag::kNATIVE_INSTANCENORM)) << "on by default";
        ASSERT_TRUE(native.parse(m)) << native.errors();
        EXPECT_TRUE(native.layers(nvinfer1::LayerType::kPLUGIN_V3).empty());
        auto nativeOut = native.run({{"X", {shape, x}}});
        ASSERT_EQ(nativeOut.count("Y"), 1U) << native.lastFailure();
        expectClose(pluginOut["Y"].values, nativeOut["Y"].values, 1e-4F);
    }
}

TEST(OnnxInstanceNormPlugin, RefusalsWithTheFlagCleared)
{
    auto refused = [](ModelBuilder const& m, std::string const& fragment) {
        Harness h;
        h.mParser->clearFlag(OnnxParserFlag::kNATIVE_INSTANCENORM);
        EXPECT_FALSE(h.parse(m));
        ASSERT_NE(h.firstError(), nullptr);
        EXPECT_EQ(h.firstError()->code(), ErrorCode::kUNSUPPORTED_NODE) << h.errors();
        EXPECT_NE(std::string(h.firstError()->desc()).find(fragment), std::string::npos) << h.errors();
    };
    refused(instanceNormModel({1, 2, 3, 3}, true), "The scale tensor is required to be an initializer");
    refused(instanceNormModel({1, 2}), "TensorRT only supports InstanceNormalization on 3D, 4D, or 5D tensors!");
    refused(instanceNormModel({1, 2, 1, 1, 2, 2}),
        "TensorRT only supports InstanceNormalization on 3D, 4D, or 5D tensors!");
    // The native import takes a scale computed at run time.
    Harness native;
    EXPECT_TRUE(native.parse(instanceNormModel({1, 2, 3, 3}, true))) << native.errors();
}

} // namespace
} // namespace kiln::onnx_test
