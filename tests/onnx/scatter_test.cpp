// SPDX-License-Identifier: Apache-2.0
// The ScatterElements, Scatter and ScatterND importers through the public API: the layers they make, constant and
// run-time indices, negative axes and indices, and the refusals (reductions, indices of another type, a tuple length
// known only at run time). ONNX's own node tests of these ops run in the conformance suite.
#include "model_builder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kiln::onnx_test
{
namespace
{

using nvonnxparser::ErrorCode;

TEST(OnnxScatter, ElementsWithANegativeAxisAndConstantIndices)
{
    ModelBuilder m(13);
    m.input("data", {2, 3});
    m.input("updates", {2, 2});
    m.initializer(int64Tensor("indices", {2, 2}, {2, 0, -1, 1}));
    attrInt(m.node("ScatterElements", {"data", "indices", "updates"}, {"y"}, "scatter"), "axis", -1);
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto const layers = h.layers(nvinfer1::LayerType::kSCATTER);
    ASSERT_EQ(layers.size(), 1U);
    auto* scatter = static_cast<nvinfer1::IScatterLayer*>(layers.front());
    EXPECT_EQ(scatter->getMode(), nvinfer1::ScatterMode::kELEMENT);
    EXPECT_EQ(scatter->getAxis(), 1);
    auto out = h.run({{"data", {{2, 3}, {0, 0, 0, 0, 0, 0}}}, {"updates", {{2, 2}, {1, 2, 3, 4}}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].values, (std::vector<float>{2, 0, 1, 0, 4, 3}));
}

TEST(OnnxScatter, TheOldScatterIsScatterElements)
{
    ModelBuilder m(9);
    m.input("data", {3});
    m.input("updates", {1});
    m.initializer(int32Tensor("indices", {1}, {1}));
    m.node("Scatter", {"data", "indices", "updates"}, {"y"}, "scatter");
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto out = h.run({{"data", {{3}, {1, 2, 3}}}, {"updates", {{1}, {9}}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].values, (std::vector<float>{1, 9, 3}));
}

TEST(OnnxScatter, NdWithIndicesComputedAtRunTime)
{
    // The indices come from a Cast of a FLOAT input: known only at run time.
    ModelBuilder m(16);
    m.input("data", {3, 2});
    m.input("rows", {2, 1});
    m.input("updates", {2, 2});
    attrInt(m.node("Cast", {"rows"}, {"indices"}, "cast"), "to", ::onnx::TensorProto::INT64);
    attrString(m.node("ScatterND", {"data", "indices", "updates"}, {"y"}, "scatter"), "reduction", "none");
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto* scatter = static_cast<nvinfer1::IScatterLayer*>(h.layers(nvinfer1::LayerType::kSCATTER).front());
    EXPECT_EQ(scatter->getMode(), nvinfer1::ScatterMode::kND);
    auto out = h.run(
        {{"data", {{3, 2}, {1, 2, 3, 4, 5, 6}}}, {"rows", {{2, 1}, {2, -3}}}, {"updates", {{2, 2}, {7, 8, 9, 10}}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].values, (std::vector<float>{9, 10, 3, 4, 7, 8}));
}

//! Parses m, expects it to fail with code and a first error from op containing fragment.
void expectRefused(ModelBuilder const& m, ErrorCode code, std::string const& fragment, char const* op)
{
    Harness h;
    EXPECT_FALSE(h.parse(m));
    nvonnxparser::IParserError const* error = h.firstError();
    ASSERT_NE(error, nullptr);
    EXPECT_EQ(error->code(), code) << h.errors();
    EXPECT_NE(std::string(error->desc()).find(fragment), std::string::npos) << h.errors();
    EXPECT_STREQ(error->nodeOperator(), op) << h.errors();
}

TEST(OnnxScatter, Refusals)
{
    {
        ModelBuilder m(16);
        m.input("data", {3});
        m.input("updates", {1});
        m.initializer(int64Tensor("indices", {1, 1}, {1}));
        attrString(m.node("ScatterND", {"data", "indices", "updates"}, {"y"}, "scatter"), "reduction", "add");
        m.output("y");
        expectRefused(m, ErrorCode::kUNSUPPORTED_NODE_ATTR,
            "reduction is 'add'; kiln's scatter layer (like TensorRT's) only replaces elements", "ScatterND");
    }
    {
        ModelBuilder m(13);
        m.input("data", {3});
        m.input("indices", {1});
        m.input("updates", {1});
        m.node("ScatterElements", {"data", "indices", "updates"}, {"y"}, "scatter");
        m.output("y");
        expectRefused(m, ErrorCode::kUNSUPPORTED_NODE_DATATYPE,
            "ScatterElements's indices are kFLOAT; they must be INT32 or INT64", "ScatterElements");
    }
    {
        ModelBuilder m(13);
        m.input("data", {3});
        m.input("indices", {1, -1}, ::onnx::TensorProto::INT64);
        m.input("updates", {1});
        m.node("ScatterND", {"data", "indices", "updates"}, {"y"}, "scatter");
        m.output("y");
        expectRefused(m, ErrorCode::kUNSUPPORTED_NODE,
            "must have a last extent (the index tuple's length) known when the model is parsed", "ScatterND");
    }
    {
        ModelBuilder m(13);
        m.input("data", {3});
        m.input("updates", {1}, ::onnx::TensorProto::INT32);
        m.initializer(int64Tensor("indices", {1}, {0}));
        m.node("ScatterElements", {"data", "indices", "updates"}, {"y"}, "scatter");
        m.output("y");
        expectRefused(m, ErrorCode::kINVALID_NODE, "ScatterElements's updates are kINT32 but its data is kFLOAT",
            "ScatterElements");
    }
}

} // namespace
} // namespace kiln::onnx_test
