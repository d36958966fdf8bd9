// SPDX-License-Identifier: Apache-2.0
// ScatterElements nodes with a plugin_namespace attribute become TensorRT's standard ScatterElements plugin (version
// "2" from plugin_version; reduction and axis as attributes, the STRING reduction a kCHAR field with its NUL): built
// and run on the host backend, against ONNX's definition written here, with negative indices and a negative axis.
#include "checks.h"
#include "model_builder.h"
#include "standard_plugin_library.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace kiln::onnx_test
{
namespace
{

TEST(OnnxScatterElementsPlugin, ReductionsThroughThePluginFollowOnnx)
{
    ASSERT_TRUE(loadStandardPluginLibrary());
    // data [3, 4]; updates and indices [3, 2] along axis -1 (1), indices negative ones included and repeated.
    std::vector<int64_t> const indices{0, -1, 3, 3, -4, 1};
    std::vector<float> const updates{1.0F, 2.0F, 3.0F, 4.0F, 5.0F, 6.0F};
    std::vector<float> const data = randomValues(12, 5, -4.0F, 4.0F);
    for (std::string const reduction : {"add", "mul", "max", "min"})
    {
        SCOPED_TRACE(reduction);
        ModelBuilder m(18);
        m.input("data", {3, 4});
        m.initializer(int64Tensor("indices", {3, 2}, indices));
        m.initializer(floatTensor("updates", {3, 2}, updates));
        auto& node = m.node("ScatterElements", {"data", "indices", "updates"}, {"Y"}, "scatter");
        attrString(node, "plugin_namespace", "");
        attrString(node, "plugin_version", "2");
        attrString(node, "reduction", reduction);
        attrInt(node, "axis", -1);
        m.output("Y");
        Harness h;
        ASSERT_TRUE(h.parse(m)) << h.errors();
        ASSERT_EQ(h.layers(nvinfer1::LayerType::kPLUGIN_V3).size(), 1U);
        auto outputs = h.run({{"data", {{3, 4}, data}}});
        ASSERT_EQ(outputs.count("Y"), 1U) << h.lastFailure();
        std::vector<float> expected = data;
        for (size_t e = 0; e < updates.size(); ++e)
        {
            int64_t const row = static_cast<int64_t>(e) / 2;
            int64_t const column = indices[e] < 0 ? indices[e] + 4 : indices[e];
            float& target = expected[static_cast<size_t>(row * 4 + column)];
            target = reduction == "add" ? target + updates[e]
                : reduction == "mul"    ? target * updates[e]
                : reduction == "max"    ? std::max(target, updates[e])
                                        : std::min(target, updates[e]);
        }
        EXPECT_EQ(outputs["Y"].values, expected);
    }
}

} // namespace
} // namespace kiln::onnx_test
