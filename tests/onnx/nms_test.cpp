// SPDX-License-Identifier: Apache-2.0
// The NonMaxSuppression importer through the public API: ONNX's examples (both box formats, limits per class, two
// classes in ONNX's class-major order, two batches), optional inputs left out, scores and thresholds as graph inputs,
// run end to end on the host backend; the layer's settings; and the refusals with their codes and messages.
#include "model_builder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kiln::onnx_test
{
namespace
{

using nvonnxparser::ErrorCode;

std::vector<float> const kCorners{0.0F, 0.0F, 1.0F, 1.0F, 0.0F, 0.1F, 1.0F, 1.1F, 0.0F, -0.1F, 1.0F, 0.9F, 0.0F, 10.0F,
    1.0F, 11.0F, 0.0F, 10.1F, 1.0F, 11.1F, 0.0F, 100.0F, 1.0F, 101.0F};
std::vector<float> const kScores{0.9F, 0.75F, 0.6F, 0.95F, 0.5F, 0.3F};

//! boxes [B, 6, 4], scores [B, C, 6] -> NonMaxSuppression(max, iou, score as initializers) -> Cast FLOAT -> y.
ModelBuilder nmsModel(int64_t batches, int64_t classes, int64_t maxPerClass, int64_t opset = 11)
{
    ModelBuilder m(opset);
    m.input("boxes", {batches, 6, 4});
    m.input("scores", {batches, classes, 6});
    m.initializer(int64Tensor("max", {1}, {maxPerClass}));
    m.initializer(floatTensor("iou", {1}, {0.5F}));
    m.initializer(floatTensor("score", {1}, {0.0F}));
    m.node("NonMaxSuppression", {"boxes", "scores", "max", "iou", "score"}, {"selected"}, "nms");
    attrInt(m.node("Cast", {"selected"}, {"y"}, "to_float"), "to", ::onnx::TensorProto::FLOAT);
    m.output("y");
    return m;
}

//! kCorners and kScores repeated per batch and class.
std::map<std::string, HostTensor> inputs(int64_t batches, int64_t classes, std::vector<float> const& boxes = kCorners)
{
    std::vector<float> b;
    std::vector<float> s;
    for (int64_t i = 0; i < batches; ++i)
    {
        b.insert(b.end(), boxes.begin(), boxes.end());
        for (int64_t c = 0; c < classes; ++c)
        {
            s.insert(s.end(), kScores.begin(), kScores.end());
        }
    }
    return {{"boxes", {{batches, 6, 4}, b}}, {"scores", {{batches, classes, 6}, s}}};
}

TEST(OnnxNonMaxSuppression, SuppressByIouAtOpsets10And11)
{
    for (int64_t opset : {10, 11})
    {
        Harness h;
        ASSERT_TRUE(h.parse(nmsModel(1, 1, 3, opset))) << h.errors();
        auto const layers = h.layers(nvinfer1::LayerType::kNMS);
        ASSERT_EQ(layers.size(), 1U);
        auto* nms = static_cast<nvinfer1::INMSLayer*>(layers.front());
        EXPECT_EQ(nms->getIndicesType(), nvinfer1::DataType::kINT64);
        EXPECT_EQ(nms->getBoundingBoxFormat(), nvinfer1::BoundingBoxFormat::kCORNER_PAIRS);
        EXPECT_EQ(nms->getTopKBoxLimit(), 5000);
        EXPECT_EQ(nms->getNbInputs(), 5);
        EXPECT_TRUE(h.layers(nvinfer1::LayerType::kTOPK).empty()); // one class: no reordering
        auto out = h.run(inputs(1, 1));
        ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
        EXPECT_EQ(out["y"].shape, (Shape{3, 3}));
        EXPECT_EQ(out["y"].values, (std::vector<float>{0, 0, 3, 0, 0, 0, 0, 0, 5})) << "opset " << opset;
    }
}

TEST(OnnxNonMaxSuppression, CenterPointBoxes)
{
    ModelBuilder m = nmsModel(1, 1, 3);
    attrInt(*m.graph().mutable_node(0), "center_point_box", 1);
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto* nms = static_cast<nvinfer1::INMSLayer*>(h.layers(nvinfer1::LayerType::kNMS).front());
    EXPECT_EQ(nms->getBoundingBoxFormat(), nvinfer1::BoundingBoxFormat::kCENTER_SIZES);
    std::vector<float> const centers{0.5F, 0.5F, 1.0F, 1.0F, 0.5F, 0.6F, 1.0F, 1.0F, 0.5F, 0.4F, 1.0F, 1.0F, 0.5F,
        10.5F, 1.0F, 1.0F, 0.5F, 10.6F, 1.0F, 1.0F, 0.5F, 100.5F, 1.0F, 1.0F};
    auto out = h.run(inputs(1, 1, centers));
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].values, (std::vector<float>{0, 0, 3, 0, 0, 0, 0, 0, 5}));
}

TEST(OnnxNonMaxSuppression, TwoClassesComeClassByClassAndTwoBatchesBatchByBatch)
{
    Harness h;
    ASSERT_TRUE(h.parse(nmsModel(2, 2, 2))) << h.errors();
    EXPECT_EQ(h.layers(nvinfer1::LayerType::kTOPK).size(), 1U); // the reordering
    auto out = h.run(inputs(2, 2));
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].shape, (Shape{8, 3}));
    // The layer gives scores in decreasing order across classes; ONNX wants class 0's rows, then class 1's.
    EXPECT_EQ(
        out["y"].values, (std::vector<float>{0, 0, 3, 0, 0, 0, 0, 1, 3, 0, 1, 0, 1, 0, 3, 1, 0, 0, 1, 1, 3, 1, 1, 0}));
}

TEST(OnnxNonMaxSuppression, OptionalInputsLeftOutAndGivenAtRunTime)
{
    {
        // No max_output_boxes_per_class: no rows.
        ModelBuilder m(11);
        m.input("boxes", {1, 6, 4});
        m.input("scores", {1, 1, 6});
        m.node("NonMaxSuppression", {"boxes", "scores"}, {"selected"}, "nms");
        attrInt(m.node("Cast", {"selected"}, {"y"}, "to_float"), "to", ::onnx::TensorProto::FLOAT);
        m.output("y");
        Harness h;
        ASSERT_TRUE(h.parse(m)) << h.errors();
        auto out = h.run(inputs(1, 1));
        ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
        EXPECT_EQ(out["y"].shape, (Shape{0, 3}));
    }
    {
        // The IoU threshold as a graph input, no score threshold (every box is a candidate), max given.
        ModelBuilder m(11);
        m.input("boxes", {1, 6, 4});
        m.input("scores", {1, 1, 6});
        m.input("iou", {1});
        m.initializer(int64Tensor("max", {}, {10}));
        m.node("NonMaxSuppression", {"boxes", "scores", "max", "iou"}, {"selected"}, "nms");
        attrInt(m.node("Cast", {"selected"}, {"y"}, "to_float"), "to", ::onnx::TensorProto::FLOAT);
        m.output("y");
        Harness h;
        ASSERT_TRUE(h.parse(m)) << h.errors();
        auto in = inputs(1, 1);
        in["iou"] = HostTensor{{1}, {0.95F}}; // nothing overlaps that much: all six, by decreasing score
        auto out = h.run(in);
        ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
        EXPECT_EQ(out["y"].values, (std::vector<float>{0, 0, 3, 0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 4, 0, 0, 5}));
    }
}

TEST(OnnxNonMaxSuppression, Refusals)
{
    {
        ModelBuilder m = nmsModel(1, 1, 3);
        attrInt(*m.graph().mutable_node(0), "center_point_box", 2);
        Harness h;
        EXPECT_FALSE(h.parse(m));
        ASSERT_NE(h.firstError(), nullptr);
        EXPECT_EQ(h.firstError()->code(), ErrorCode::kINVALID_NODE);
        EXPECT_NE(
            std::string(h.firstError()->desc()).find("center_point_box is 2; it must be 0 or 1"), std::string::npos)
            << h.errors();
    }
    {
        ModelBuilder m(11);
        m.input("boxes", {1, 6, 4});
        m.input("scores", {1, 6});
        m.node("NonMaxSuppression", {"boxes", "scores"}, {"selected"}, "nms");
        m.output("selected", ::onnx::TensorProto::INT64);
        Harness h;
        EXPECT_FALSE(h.parse(m));
        ASSERT_NE(h.firstError(), nullptr);
        EXPECT_EQ(h.firstError()->code(), ErrorCode::kINVALID_NODE);
        EXPECT_NE(std::string(h.firstError()->desc()).find("must have rank 3"), std::string::npos) << h.errors();
    }
}

} // namespace
} // namespace kiln::onnx_test
