// SPDX-License-Identifier: Apache-2.0
// A node of op type GroupNormalizationPlugin (TensorRT's standard V2 plugin, fields eps and num_groups as attributes)
// parsed into an IPluginV2 layer, built and run on the host backend: it equals ONNX GroupNormalization (opset 21,
// scale and bias per channel) imported natively in the same model.
#include "checks.h"
#include "model_builder.h"
#include "standard_plugin_library.h"

#include <gtest/gtest.h>

namespace kiln::onnx_test
{
namespace
{

TEST(OnnxGroupNormPlugin, ANodeNamedAfterThePluginEqualsGroupNormalization)
{
    ASSERT_TRUE(loadStandardPluginLibrary());
    Shape const shape{2, 6, 3, 4};
    ModelBuilder m(21);
    m.input("X", shape);
    m.initializer(floatTensor("scale", {6}, {0.5F, 1.0F, 1.5F, 2.0F, -1.0F, 0.25F}));
    m.initializer(floatTensor("bias", {6}, {0.0F, 0.1F, -0.2F, 0.3F, 1.0F, -1.0F}));
    auto& plugin = m.node("GroupNormalizationPlugin", {"X", "scale", "bias"}, {"Y"}, "plugin");
    attrFloat(plugin, "eps", 1e-3F);
    attrInt(plugin, "num_groups", 3);
    auto& native = m.node("GroupNormalization", {"X", "scale", "bias"}, {"Z"}, "native");
    attrFloat(native, "epsilon", 1e-3F);
    attrInt(native, "num_groups", 3);
    m.output("Y");
    m.output("Z");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto const layers = h.layers(nvinfer1::LayerType::kPLUGIN_V2);
    ASSERT_EQ(layers.size(), 1U);
    KILN_IGNORE_DEPRECATED_BEGIN
    EXPECT_STREQ(static_cast<nvinfer1::IPluginV2Layer*>(layers.front())->getPlugin().getPluginType(),
        "GroupNormalizationPlugin");
    KILN_IGNORE_DEPRECATED_END
    auto outputs = h.run({{"X", {shape, randomValues(144, 21, -2.0F, 4.0F)}}});
    ASSERT_EQ(outputs.count("Y"), 1U) << h.lastFailure();
    EXPECT_EQ(outputs["Y"].shape, shape);
    expectClose(outputs["Y"].values, outputs["Z"].values, 1e-4F);
}

} // namespace
} // namespace kiln::onnx_test
