// SPDX-License-Identifier: Apache-2.0
// BatchedNMSDynamic_TRT as an ONNX node (op_type the plugin's name, fields as attributes; the test registers
// the standard plugin library first, as a TensorRT application must): ONNX's NonMaxSuppression example boxes parsed,
// built and run on the host backend, and a refused attribute with its code.
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

// ONNX's NonMaxSuppression example boxes, scaled into [0, 1]: three pairs of overlapping boxes and one alone.
std::vector<float> const kBoxes{0.0F, 0.0F, 0.01F, 0.01F, 0.0F, 0.001F, 0.01F, 0.011F, 0.0F, -0.001F, 0.01F, 0.009F,
    0.0F, 0.1F, 0.01F, 0.11F, 0.0F, 0.101F, 0.01F, 0.111F, 0.0F, 0.9F, 0.01F, 0.91F};
std::vector<float> const kScores{0.9F, 0.75F, 0.6F, 0.95F, 0.5F, 0.3F};

::onnx::NodeProto& batchedNode(ModelBuilder& m, int64_t keepTopK)
{
    auto& node = m.node("BatchedNMSDynamic_TRT", {"boxes", "scores"},
        {"num", "nmsed_boxes", "nmsed_scores", "nmsed_classes"}, "batched_nms");
    attrInt(node, "shareLocation", 1);
    attrInt(node, "backgroundLabelId", -1);
    attrInt(node, "numClasses", 1);
    attrInt(node, "topK", 6);
    attrInt(node, "keepTopK", keepTopK);
    attrFloat(node, "scoreThreshold", 0.0F);
    attrFloat(node, "iouThreshold", 0.5F);
    return node;
}

TEST(OnnxBatchedNms, PluginRunsOnTheHost)
{
    ASSERT_EQ(initStandardPluginLibrary(), "");
    ModelBuilder m(17);
    m.input("boxes", {1, 6, 1, 4});
    m.input("scores", {1, 6, 1});
    batchedNode(m, 4);
    attrInt(m.node("Cast", {"num"}, {"num_f"}, "num_cast"), "to", ::onnx::TensorProto::FLOAT);
    m.output("num_f");
    m.output("nmsed_boxes");
    m.output("nmsed_scores");
    m.output("nmsed_classes");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    ASSERT_EQ(h.layers(nvinfer1::LayerType::kPLUGIN_V2).size(), 1U);
    auto outputs = h.run({{"boxes", {{1, 6, 1, 4}, kBoxes}}, {"scores", {{1, 6, 1}, kScores}}});
    ASSERT_EQ(outputs.count("nmsed_boxes"), 1U) << h.lastFailure();
    EXPECT_EQ(outputs["num_f"].values, std::vector<float>{3.0F});
    // Boxes 3, 0 and 5 survive, by score; the fourth row is empty, class -1.
    EXPECT_EQ(outputs["nmsed_boxes"].values,
        (std::vector<float>{
            0.0F, 0.1F, 0.01F, 0.11F, 0.0F, 0.0F, 0.01F, 0.01F, 0.0F, 0.9F, 0.01F, 0.91F, 0.0F, 0.0F, 0.0F, 0.0F}));
    EXPECT_EQ(outputs["nmsed_scores"].values, (std::vector<float>{0.95F, 0.9F, 0.3F, 0.0F}));
    EXPECT_EQ(outputs["nmsed_classes"].values, (std::vector<float>{0.0F, 0.0F, 0.0F, -1.0F}));
}

TEST(OnnxBatchedNms, KeepTopKAboveTopKIsRefused)
{
    ASSERT_EQ(initStandardPluginLibrary(), "");
    ModelBuilder m(17);
    m.input("boxes", {1, 6, 1, 4});
    m.input("scores", {1, 6, 1});
    batchedNode(m, 7);
    m.output("num");
    m.output("nmsed_boxes");
    m.output("nmsed_scores");
    m.output("nmsed_classes");
    expectRefused(m, ErrorCode::kUNSUPPORTED_NODE, "Could not create the plugin");
}

} // namespace
} // namespace kiln::onnx_test
