// SPDX-License-Identifier: Apache-2.0
// The Loop and Scan importers through the public API, run end to end on the host backend: a counted Loop with a
// loop-carried value, the iteration number and a scan output; a Loop ended by its condition; a Scan with a reversed
// scan input and a scan output along axis 1; and the refusals (a scan output without a trip count, opset 8's Scan).
#include "model_builder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kiln::onnx_test
{
namespace
{

//! A graph input of a body (element type only, as ONNX bodies often declare them).
void bodyInput(::onnx::GraphProto& body, std::string const& name, int32_t type)
{
    ::onnx::ValueInfoProto& info = *body.add_input();
    info.set_name(name);
    info.mutable_type()->mutable_tensor_type()->set_elem_type(type);
}

TEST(Loop, CountedLoopCarriesAValueAndStacksAScanOutput)
{
    // y = x; for i in 0..2: y = y * 2 + i; scan output: y after each iteration.
    ModelBuilder m(13);
    m.input("x", {2});
    m.initializer(int64Tensor("M", {}, {3}));
    ::onnx::NodeProto& loop = m.node("Loop", {"M", "", "x"}, {"y", "scan"}, "loop");
    ::onnx::GraphProto& body = attrGraph(loop, "body", "loop_body");
    bodyInput(body, "i", ::onnx::TensorProto::INT64);
    bodyInput(body, "cond_in", ::onnx::TensorProto::BOOL);
    bodyInput(body, "y_in", ::onnx::TensorProto::FLOAT);
    *body.add_initializer() = floatTensor("two", {}, {2.0F});
    addNode(body, "Mul", {"y_in", "two"}, {"doubled"}, "double");
    attrInt(addNode(body, "Cast", {"i"}, {"i_float"}, "cast"), "to", ::onnx::TensorProto::FLOAT);
    addNode(body, "Add", {"doubled", "i_float"}, {"y_out"}, "add");
    addNode(body, "Identity", {"cond_in"}, {"cond_out"}, "keep");
    graphOutput(body, "cond_out", ::onnx::TensorProto::BOOL);
    graphOutput(body, "y_out");
    graphOutput(body, "y_out");
    m.output("y");
    m.output("scan");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    EXPECT_EQ(h.layers(nvinfer1::LayerType::kRECURRENCE).size(), 2U); // the iteration number and y
    auto outputs = h.run({{"x", {{2}, {1.0F, -1.0F}}}});
    ASSERT_EQ(outputs.count("y"), 1U) << h.lastFailure();
    // 1 -> 2 -> 5 -> 12; -1 -> -2 -> -3 -> -4.
    EXPECT_EQ(outputs["y"].values, (std::vector<float>{12.0F, -4.0F}));
    EXPECT_EQ(outputs["scan"].shape, (std::vector<int64_t>{3, 2}));
    EXPECT_EQ(outputs["scan"].values, (std::vector<float>{2.0F, -2.0F, 5.0F, -3.0F, 12.0F, -4.0F}));
}

TEST(Loop, ConditionEndsTheLoop)
{
    // while (y < 100) y = y * 3, with no trip count.
    ModelBuilder m(13);
    m.input("x", {1});
    m.initializer(boolTensor("go", {}, {1}));
    ::onnx::NodeProto& loop = m.node("Loop", {"", "go", "x"}, {"y"}, "loop");
    ::onnx::GraphProto& body = attrGraph(loop, "body", "loop_body");
    bodyInput(body, "i", ::onnx::TensorProto::INT64);
    bodyInput(body, "cond_in", ::onnx::TensorProto::BOOL);
    bodyInput(body, "y_in", ::onnx::TensorProto::FLOAT);
    *body.add_initializer() = floatTensor("three", {}, {3.0F});
    *body.add_initializer() = floatTensor("limit", {1}, {100.0F});
    addNode(body, "Mul", {"y_in", "three"}, {"y_out"}, "triple");
    addNode(body, "Less", {"y_out", "limit"}, {"cond_out"}, "compare");
    graphOutput(body, "cond_out", ::onnx::TensorProto::BOOL);
    graphOutput(body, "y_out");
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto outputs = h.run({{"x", {{1}, {2.0F}}}});
    ASSERT_EQ(outputs.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(outputs["y"].values, (std::vector<float>{162.0F})); // 2, 6, 18, 54, 162
}

TEST(Loop, AScanOutputWithoutATripCountIsRefused)
{
    ModelBuilder m(13);
    m.input("x", {1});
    m.input("go", {}, ::onnx::TensorProto::BOOL);
    ::onnx::NodeProto& loop = m.node("Loop", {"", "go", "x"}, {"y", "scan"}, "loop");
    ::onnx::GraphProto& body = attrGraph(loop, "body", "loop_body");
    bodyInput(body, "i", ::onnx::TensorProto::INT64);
    bodyInput(body, "cond_in", ::onnx::TensorProto::BOOL);
    bodyInput(body, "y_in", ::onnx::TensorProto::FLOAT);
    addNode(body, "Identity", {"cond_in"}, {"cond_out"}, "keep");
    addNode(body, "Neg", {"y_in"}, {"y_out"}, "neg");
    graphOutput(body, "cond_out", ::onnx::TensorProto::BOOL);
    graphOutput(body, "y_out");
    graphOutput(body, "y_out");
    m.output("y");
    m.output("scan");
    Harness h;
    EXPECT_FALSE(h.parse(m));
    ASSERT_NE(h.firstError(), nullptr);
    EXPECT_EQ(h.firstError()->code(), nvonnxparser::ErrorCode::kUNSUPPORTED_NODE) << h.errors();
    EXPECT_NE(std::string(h.firstError()->desc()).find("no trip count"), std::string::npos) << h.errors();
}

TEST(Scan, ReversedInputAndOutputAlongAxisOne)
{
    // Running sums over the rows of x [3, 2] read backwards; the sums stacked along axis 1.
    ModelBuilder m(11);
    m.input("initial", {2});
    m.input("x", {3, 2});
    ::onnx::NodeProto& scan = m.node("Scan", {"initial", "x"}, {"sum", "sums"}, "scan");
    attrInt(scan, "num_scan_inputs", 1);
    attrInts(scan, "scan_input_directions", {1});
    attrInts(scan, "scan_output_axes", {1});
    ::onnx::GraphProto& body = attrGraph(scan, "body", "scan_body");
    bodyInput(body, "sum_in", ::onnx::TensorProto::FLOAT);
    bodyInput(body, "row", ::onnx::TensorProto::FLOAT);
    addNode(body, "Add", {"sum_in", "row"}, {"sum_out"}, "add");
    addNode(body, "Identity", {"sum_out"}, {"scan_out"}, "copy");
    graphOutput(body, "sum_out");
    graphOutput(body, "scan_out");
    m.output("sum");
    m.output("sums");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto outputs = h.run({{"initial", {{2}, {0.0F, 0.5F}}}, {"x", {{3, 2}, {1, 2, 10, 20, 100, 200}}}});
    ASSERT_EQ(outputs.count("sum"), 1U) << h.lastFailure();
    EXPECT_EQ(outputs["sum"].values, (std::vector<float>{111.0F, 222.5F}));
    EXPECT_EQ(outputs["sums"].shape, (std::vector<int64_t>{2, 3}));
    // Rows read 2, 1, 0: sums [100, 200.5], [110, 220.5], [111, 222.5], stacked along axis 1.
    EXPECT_EQ(outputs["sums"].values, (std::vector<float>{100.0F, 110.0F, 111.0F, 200.5F, 220.5F, 222.5F}));
}

} // namespace
} // namespace kiln::onnx_test
