// SPDX-License-Identifier: Apache-2.0
// ResizeNearest_TRT as an ONNX node (op_type the plugin's name, scale as an attribute; the test registers
// the standard plugin library first, as a TensorRT application must; an IPluginV2Ext in an explicit-batch network),
// parsed, built and run on the host backend, and a refused scale with its code.
#include "checks.h"
#include "model_builder.h"
#include "standard_plugin_library.h"

#include <gtest/gtest.h>

#include <vector>

namespace kiln::onnx_test
{
namespace
{

using nvonnxparser::ErrorCode;

TEST(OnnxResizeNearest, PluginRunsOnTheHost)
{
    ASSERT_EQ(initStandardPluginLibrary(), "");
    ModelBuilder m(17);
    m.input("X", {1, 2, 2, 2});
    attrFloat(m.node("ResizeNearest_TRT", {"X"}, {"Y"}, "resize"), "scale", 2.0F);
    m.output("Y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    ASSERT_EQ(h.layers(nvinfer1::LayerType::kPLUGIN_V2).size(), 1U);
    auto outputs = h.run({{"X", {{1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}}}});
    ASSERT_EQ(outputs.count("Y"), 1U) << h.lastFailure();
    EXPECT_EQ(outputs["Y"].shape, (Shape{1, 2, 4, 4}));
    EXPECT_EQ(outputs["Y"].values,
        (std::vector<float>{
            1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4, 5, 5, 6, 6, 5, 5, 6, 6, 7, 7, 8, 8, 7, 7, 8, 8}));
}

TEST(OnnxResizeNearest, NonPositiveScaleIsRefused)
{
    ASSERT_EQ(initStandardPluginLibrary(), "");
    ModelBuilder m(17);
    m.input("X", {1, 2, 2, 2});
    attrFloat(m.node("ResizeNearest_TRT", {"X"}, {"Y"}, "resize"), "scale", -1.0F);
    m.output("Y");
    expectRefused(m, ErrorCode::kUNSUPPORTED_NODE, "Could not create the plugin");
}

} // namespace
} // namespace kiln::onnx_test
