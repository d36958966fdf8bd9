// SPDX-License-Identifier: Apache-2.0
// A node of op type MultiscaleDeformableAttnPlugin_TRT parsed into the plugin layer (version "2" with plugin_version
// "2"; the legacy V2 version "1" without the attribute, TensorRT's default, with INT64 spatial shapes and start indices
// cast to INT32 as TensorRT's parser casts them), built and run on the host backend, against
// values worked out by hand: samples at pixel centres read one value, a sample between four pixels their mean, and a
// sample outside the map nothing.
#include "checks.h"
#include "model_builder.h"
#include "standard_plugin_library.h"

#include <gtest/gtest.h>

namespace kiln::onnx_test
{
namespace
{

TEST(OnnxMsDeformAttnPlugin, ANodeNamedAfterThePluginRunsInBothVersions)
{
    ASSERT_TRUE(loadStandardPluginLibrary());
    for (bool legacy : {false, true})
    {
        SCOPED_TRACE(legacy ? "version 1 (no plugin_version attribute)" : "version 2");
        // One batch, two levels ([2, 2] then [1, 2]: S = 6), one head, one channel, one query, two points per level.
        ModelBuilder m(17);
        m.input("value", {1, 6, 1, 1});
        if (legacy)
        {
            // INT64, as models exported from PyTorch hold them: cast to INT32 for the plugin, as TensorRT's parser
            // does.
            m.initializer(int64Tensor("shapes", {2, 2}, {2, 2, 1, 2}));
            m.initializer(int64Tensor("starts", {2}, {0, 4}));
        }
        else
        {
            m.initializer(int32Tensor("shapes", {2, 2}, {2, 2, 1, 2}));
            m.initializer(int32Tensor("starts", {2}, {0, 4}));
        }
        // Level 0: the centre of pixel (0, 1) (x 0.75, y 0.25), and the middle of the map (0.5, 0.5).
        // Level 1: the centre of pixel (0, 0) (x 0.25, y 0.5), and a point outside (x 1.6).
        m.initializer(
            floatTensor("locations", {1, 1, 1, 2, 2, 2}, {0.75F, 0.25F, 0.5F, 0.5F, 0.25F, 0.5F, 1.6F, 0.5F}));
        m.initializer(floatTensor("weights", {1, 1, 1, 2, 2}, {1.0F, 2.0F, 0.5F, 3.0F}));
        auto& node = m.node("MultiscaleDeformableAttnPlugin_TRT", {"value", "shapes", "starts", "locations", "weights"},
            {"Y"}, "attention");
        if (!legacy)
        {
            attrString(node, "plugin_version", "2");
        }
        m.output("Y");
        Harness h;
        ASSERT_TRUE(h.parse(m)) << h.errors();
        ASSERT_EQ(h.layers(legacy ? nvinfer1::LayerType::kPLUGIN_V2 : nvinfer1::LayerType::kPLUGIN_V3).size(), 1U);
        std::vector<float> const value{1.0F, 2.0F, 3.0F, 4.0F, 10.0F, 20.0F};
        auto outputs = h.run({{"value", {{1, 6, 1, 1}, value}}});
        ASSERT_EQ(outputs.count("Y"), 1U) << h.lastFailure();
        EXPECT_EQ(outputs["Y"].shape, (Shape{1, 1, 1, 1}));
        // 1 * 2 (pixel (0, 1)) + 2 * 2.5 (the mean of 1, 2, 3, 4) + 0.5 * 10 + 3 * 0.
        ASSERT_EQ(outputs["Y"].values.size(), 1U);
        EXPECT_NEAR(outputs["Y"].values[0], 12.0F, 1e-5F);
    }
}

} // namespace
} // namespace kiln::onnx_test
