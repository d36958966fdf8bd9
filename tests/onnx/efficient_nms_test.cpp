// SPDX-License-Identifier: Apache-2.0
// EfficientNMS_TRT and EfficientNMS_ONNX_TRT as ONNX nodes (op_type the plugin's name, fields as attributes; the test
// registers the standard plugin library first, as a TensorRT application must): ONNX's NonMaxSuppression example boxes
// parsed, built and run on the host backend, and a refused attribute with its code.
#include "checks.h"
#include "model_builder.h"
#include "standard_plugin_library.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kiln::onnx_test
{
namespace
{

using nvonnxparser::ErrorCode;

// ONNX's NonMaxSuppression example: three pairs of overlapping unit boxes (IoU 0.82 within a pair) and one alone.
std::vector<float> const kBoxes{0.0F, 0.0F, 1.0F, 1.0F, 0.0F, 0.1F, 1.0F, 1.1F, 0.0F, -0.1F, 1.0F, 0.9F, 0.0F, 10.0F,
    1.0F, 11.0F, 0.0F, 10.1F, 1.0F, 11.1F, 0.0F, 100.0F, 1.0F, 101.0F};
std::vector<float> const kScores{0.9F, 0.75F, 0.6F, 0.95F, 0.5F, 0.3F};

TEST(OnnxEfficientNms, StandardPluginRunsOnTheHost)
{
    ASSERT_EQ(initStandardPluginLibrary(), "");
    ModelBuilder m(17);
    m.input("boxes", {1, 6, 4});
    m.input("scores", {1, 6, 1});
    auto& node = m.node(
        "EfficientNMS_TRT", {"boxes", "scores"}, {"num", "det_boxes", "det_scores", "det_classes"}, "efficient_nms");
    attrFloat(node, "score_threshold", 0.0F);
    attrFloat(node, "iou_threshold", 0.5F);
    attrInt(node, "max_output_boxes", 4);
    attrInt(node, "background_class", -1);
    attrInt(node, "score_activation", 0);
    attrInt(node, "box_coding", 0);
    attrInt(m.node("Cast", {"num"}, {"num_f"}, "num_cast"), "to", ::onnx::TensorProto::FLOAT);
    attrInt(m.node("Cast", {"det_classes"}, {"classes_f"}, "classes_cast"), "to", ::onnx::TensorProto::FLOAT);
    m.output("num_f");
    m.output("det_boxes");
    m.output("det_scores");
    m.output("classes_f");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    ASSERT_EQ(h.layers(nvinfer1::LayerType::kPLUGIN_V2).size(), 1U);
    auto outputs = h.run({{"boxes", {{1, 6, 4}, kBoxes}}, {"scores", {{1, 6, 1}, kScores}}});
    ASSERT_EQ(outputs.count("det_boxes"), 1U) << h.lastFailure();
    EXPECT_EQ(outputs["num_f"].values, std::vector<float>{3.0F});
    EXPECT_EQ(outputs["det_boxes"].shape, (Shape{1, 4, 4}));
    // Boxes 3, 0 and 5 survive, by score; the fourth row is empty.
    EXPECT_EQ(outputs["det_boxes"].values,
        (std::vector<float>{
            0.0F, 10.0F, 1.0F, 11.0F, 0.0F, 0.0F, 1.0F, 1.0F, 0.0F, 100.0F, 1.0F, 101.0F, 0.0F, 0.0F, 0.0F, 0.0F}));
    EXPECT_EQ(outputs["det_scores"].values, (std::vector<float>{0.95F, 0.9F, 0.3F, 0.0F}));
    EXPECT_EQ(outputs["classes_f"].values, (std::vector<float>{0.0F, 0.0F, 0.0F, 0.0F}));
}

TEST(OnnxEfficientNms, OnnxVariantSelectsIndices)
{
    ASSERT_EQ(initStandardPluginLibrary(), "");
    ModelBuilder m(17);
    m.input("boxes", {1, 6, 4});
    m.input("scores", {1, 6, 1});
    auto& node = m.node("EfficientNMS_ONNX_TRT", {"boxes", "scores"}, {"selected"}, "efficient_nms_onnx");
    attrFloat(node, "score_threshold", 0.0F);
    attrFloat(node, "iou_threshold", 0.5F);
    attrInt(node, "max_output_boxes_per_class", 3);
    attrInt(m.node("Cast", {"selected"}, {"y"}, "to_float"), "to", ::onnx::TensorProto::FLOAT);
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto outputs = h.run({{"boxes", {{1, 6, 4}, kBoxes}}, {"scores", {{1, 6, 1}, kScores}}});
    ASSERT_EQ(outputs.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(outputs["y"].shape, (Shape{3, 3}));
    EXPECT_EQ(outputs["y"].values, (std::vector<float>{0, 0, 3, 0, 0, 0, 0, 0, 5}));
}

TEST(OnnxEfficientNms, BadAttributeIsRefused)
{
    ASSERT_EQ(initStandardPluginLibrary(), "");
    ModelBuilder m(17);
    m.input("boxes", {1, 6, 4});
    m.input("scores", {1, 6, 1});
    auto& node = m.node("EfficientNMS_ONNX_TRT", {"boxes", "scores"}, {"selected"}, "efficient_nms_onnx");
    attrInt(node, "max_output_boxes_per_class", 3);
    attrInt(node, "center_point_box", 2);
    m.output("selected");
    expectRefused(m, ErrorCode::kUNSUPPORTED_NODE, "Could not create the plugin");
}

} // namespace
} // namespace kiln::onnx_test
