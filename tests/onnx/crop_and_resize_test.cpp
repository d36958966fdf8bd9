// SPDX-License-Identifier: Apache-2.0
// CropAndResizeDynamic as an ONNX node (op_type the plugin's name, plugin_version "2", crop sizes as attributes; the
// test registers the standard plugin library first, as a TensorRT application must), parsed, built and run on the host
// backend, version "1" (the default plugin_version), the legacy IPluginV2DynamicExt form; and a missing field refused.
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

TEST(OnnxCropAndResize, PluginRunsOnTheHost)
{
    ASSERT_EQ(initStandardPluginLibrary(), "");
    ModelBuilder m(17);
    m.input("X", {1, 1, 3, 3});
    m.input("rois", {1, 2, 4});
    auto& node = m.node("CropAndResizeDynamic", {"X", "rois"}, {"Y"}, "crop");
    attrString(node, "plugin_version", "2");
    attrInt(node, "crop_width", 2);
    attrInt(node, "crop_height", 2);
    m.output("Y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    ASSERT_EQ(h.layers(nvinfer1::LayerType::kPLUGIN_V3).size(), 1U);
    // X is 0..8 row by row. Box 0 covers the whole image: its samples are the corners. Box 1 ([0.5, 0.5] to [1, 1])
    // samples rows and columns 1 and 2: 4, 5, 7, 8.
    std::vector<float> const x{0, 1, 2, 3, 4, 5, 6, 7, 8};
    std::vector<float> const rois{0.0F, 0.0F, 1.0F, 1.0F, 0.5F, 0.5F, 1.0F, 1.0F};
    auto outputs = h.run({{"X", {{1, 1, 3, 3}, x}}, {"rois", {{1, 2, 4}, rois}}});
    ASSERT_EQ(outputs.count("Y"), 1U) << h.lastFailure();
    EXPECT_EQ(outputs["Y"].shape, (Shape{1, 2, 1, 2, 2}));
    EXPECT_EQ(outputs["Y"].values, (std::vector<float>{0, 2, 6, 8, 4, 5, 7, 8}));
}

TEST(OnnxCropAndResize, VersionOneIsTheLegacyV2Plugin)
{
    ASSERT_EQ(initStandardPluginLibrary(), "");
    ModelBuilder m(17);
    m.input("X", {1, 1, 3, 3});
    m.input("rois", {1, 1, 4});
    auto& node = m.node("CropAndResizeDynamic", {"X", "rois"}, {"Y"}, "crop");
    attrInt(node, "crop_width", 2);
    attrInt(node, "crop_height", 2);
    m.output("Y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    ASSERT_EQ(h.layers(nvinfer1::LayerType::kPLUGIN_V2).size(), 1U);
    auto outputs = h.run({{"X", {{1, 1, 3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8}}}, {"rois", {{1, 1, 4}, {0, 0, 1, 1}}}});
    ASSERT_EQ(outputs.count("Y"), 1U) << h.lastFailure();
    EXPECT_EQ(outputs["Y"].values, (std::vector<float>{0, 2, 6, 8}));
}

TEST(OnnxCropAndResize, MissingCropSizeIsRefused)
{
    ASSERT_EQ(initStandardPluginLibrary(), "");
    ModelBuilder m(17);
    m.input("X", {1, 1, 3, 3});
    m.input("rois", {1, 2, 4});
    auto& node = m.node("CropAndResizeDynamic", {"X", "rois"}, {"Y"}, "crop");
    attrString(node, "plugin_version", "2");
    attrInt(node, "crop_width", 2);
    m.output("Y");
    expectRefused(m, ErrorCode::kUNSUPPORTED_NODE, "Could not create the plugin");
}

} // namespace
} // namespace kiln::onnx_test
