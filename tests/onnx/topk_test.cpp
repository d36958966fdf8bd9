// SPDX-License-Identifier: Apache-2.0
// The TopK importer through the public API: k as an attribute (opset 1), a constant input and a tensor known only at
// run time; axis, largest and sorted; INT64 indices; each refusal with its code and message. Models that run cast
// the indices to FLOAT so that the harness (which binds FLOAT outputs) can read them.
#include "checks.h"
#include "model_builder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kiln::onnx_test
{
namespace
{

using nvonnxparser::ErrorCode;

//! x [2, 4] -> TopK -> values, indices (cast to FLOAT as "positions"); k from kInput ("" for the attribute).
ModelBuilder topkModel(int64_t opset, std::string const& kInput, Shape const& shape = {2, 4})
{
    ModelBuilder m(opset);
    m.input("x", shape);
    std::vector<std::string> inputs{"x"};
    if (!kInput.empty())
    {
        inputs.push_back(kInput);
    }
    m.node("TopK", inputs, {"values", "indices"}, "topk");
    attrInt(m.node("Cast", {"indices"}, {"positions"}, "cast"), "to", ::onnx::TensorProto::FLOAT);
    m.output("values");
    m.output("positions");
    return m;
}

::onnx::NodeProto& topkNode(ModelBuilder& m)
{
    return *m.graph().mutable_node(0);
}

std::vector<float> const kX{3, 1, 4, 1, 5, 9, 2, 6};

TEST(OnnxTopK, ConstantKAlongTheLastAxis)
{
    ModelBuilder m = topkModel(17, "k");
    m.initializer(int64Tensor("k", {1}, {2}));
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto const layers = h.layers(nvinfer1::LayerType::kTOPK);
    ASSERT_EQ(layers.size(), 1U);
    auto* topk = static_cast<nvinfer1::ITopKLayer*>(layers.front());
    EXPECT_EQ(topk->getK(), 2);
    EXPECT_EQ(topk->getReduceAxes(), 0b10U);
    EXPECT_EQ(topk->getOperation(), nvinfer1::TopKOperation::kMAX);
    EXPECT_EQ(topk->getIndicesType(), nvinfer1::DataType::kINT64);
    auto out = h.run({{"x", {{2, 4}, kX}}});
    ASSERT_EQ(out.count("values"), 1U) << h.lastFailure();
    EXPECT_EQ(out["values"].shape, (Shape{2, 2}));
    EXPECT_EQ(out["values"].values, (std::vector<float>{4, 3, 9, 6}));
    EXPECT_EQ(out["positions"].values, (std::vector<float>{2, 0, 1, 3}));
}

TEST(OnnxTopK, KAttributeBeforeOpset10)
{
    ModelBuilder m = topkModel(9, "");
    attrInt(topkNode(m), "k", 3);
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto out = h.run({{"x", {{2, 4}, kX}}});
    ASSERT_EQ(out.count("values"), 1U) << h.lastFailure();
    EXPECT_EQ(out["values"].values, (std::vector<float>{4, 3, 1, 9, 6, 5}));
    // Ties keep their order: the 1 at position 1 before the one at 3.
    EXPECT_EQ(out["positions"].values, (std::vector<float>{2, 0, 1, 1, 3, 0}));
}

TEST(OnnxTopK, SmallestAlongAxisZeroUnsorted)
{
    ModelBuilder m = topkModel(11, "k");
    m.initializer(int64Tensor("k", {1}, {1}));
    attrInt(topkNode(m), "axis", 0);
    attrInt(topkNode(m), "largest", 0);
    attrInt(topkNode(m), "sorted", 0); // Any order is allowed; kiln's is sorted.
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto out = h.run({{"x", {{2, 4}, kX}}});
    ASSERT_EQ(out.count("values"), 1U) << h.lastFailure();
    EXPECT_EQ(out["values"].shape, (Shape{1, 4}));
    EXPECT_EQ(out["values"].values, (std::vector<float>{3, 1, 2, 1}));
    EXPECT_EQ(out["positions"].values, (std::vector<float>{0, 0, 1, 0}));
}

TEST(OnnxTopK, KKnownOnlyAtRunTime)
{
    // k is the length of z, a dynamic input: Shape(z) is [1] INT64, reshaped to 0-D for the layer's input 1.
    ModelBuilder m = topkModel(17, "k", {2, -1});
    m.input("z", {-1});
    m.node("Shape", {"z"}, {"k"}, "shape");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto* topk = static_cast<nvinfer1::ITopKLayer*>(h.layers(nvinfer1::LayerType::kTOPK).front());
    EXPECT_EQ(topk->getNbInputs(), 2);
    EXPECT_EQ(topk->getK(), -1);
    EXPECT_EQ(topk->getInput(1)->getDimensions().nbDims, 0);
    auto out = h.run({{"x", {{2, 4}, kX}}, {"z", {{3}, {0, 0, 0}}}});
    ASSERT_EQ(out.count("values"), 1U) << h.lastFailure();
    EXPECT_EQ(out["values"].shape, (Shape{2, 3}));
    EXPECT_EQ(out["values"].values, (std::vector<float>{4, 3, 1, 9, 6, 5}));
}

//! The model fails to parse with code, its first error from the TopK node containing fragment.
void refused(ModelBuilder const& m, ErrorCode code, std::string const& fragment)
{
    expectRefused(m, code, fragment, "TopK");
}

TEST(OnnxTopK, Refusals)
{
    {
        ModelBuilder m = topkModel(9, "");
        refused(m, ErrorCode::kINVALID_NODE, "the required attribute 'k' is missing (opset 9 gives k");
    }
    {
        ModelBuilder m = topkModel(17, "k");
        m.initializer(int64Tensor("k", {1}, {1}));
        attrInt(topkNode(m), "largest", 2);
        refused(m, ErrorCode::kINVALID_NODE, "largest is 2; it must be 0 or 1");
    }
    {
        ModelBuilder m = topkModel(17, "k");
        m.initializer(int64Tensor("k", {1}, {1}));
        attrInt(topkNode(m), "sorted", 3);
        refused(m, ErrorCode::kINVALID_NODE, "sorted is 3; it must be 0 or 1");
    }
    {
        ModelBuilder m = topkModel(17, "k");
        m.initializer(int64Tensor("k", {2}, {1, 2}));
        refused(m, ErrorCode::kINVALID_NODE, "input 1 (K) has 2 values; it must have one");
    }
    {
        ModelBuilder m = topkModel(17, "k");
        m.initializer(int64Tensor("k", {1}, {-1}));
        refused(m, ErrorCode::kINVALID_NODE, "k is -1; it must be at least 0");
    }
    {
        ModelBuilder m = topkModel(17, "k");
        m.initializer(int64Tensor("k", {1}, {5}));
        refused(m, ErrorCode::kINVALID_NODE, "k is 5 but the input [2,4] has only 4 elements along axis 1");
    }
    {
        ModelBuilder m = topkModel(17, "k", {2, -1});
        m.initializer(int64Tensor("k", {1}, {int64_t{1} << 31}));
        refused(m, ErrorCode::kUNSUPPORTED_NODE_INPUT, "k is 2147483648; kiln takes k up to 2^31 - 1");
    }
    {
        ModelBuilder m = topkModel(17, "k");
        m.input("k", {2}, ::onnx::TensorProto::INT64);
        refused(m, ErrorCode::kINVALID_NODE, "input 1 (K) has shape [2]; it must hold one value");
    }
    {
        ModelBuilder m(17);
        m.input("x", {2, 4}, ::onnx::TensorProto::UINT8);
        m.initializer(int64Tensor("k", {1}, {1}));
        m.node("TopK", {"x", "k"}, {"values", "indices"}, "topk");
        m.output("values", ::onnx::TensorProto::UINT8);
        m.output("indices", ::onnx::TensorProto::INT64);
        refused(m, ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "TopK takes FLOAT, FLOAT16, BFLOAT16, INT32 or INT64 inputs");
    }
    {
        ModelBuilder m = topkModel(17, "k", {});
        m.initializer(int64Tensor("k", {1}, {1}));
        refused(m, ErrorCode::kINVALID_NODE, "TopK needs an input of rank 1 or more");
    }
    {
        ModelBuilder m = topkModel(17, "k");
        m.initializer(int64Tensor("k", {1}, {1}));
        attrInt(topkNode(m), "axis", 2);
        refused(m, ErrorCode::kINVALID_NODE, "axis");
    }
}

} // namespace
} // namespace kiln::onnx_test
