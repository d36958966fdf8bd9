// SPDX-License-Identifier: Apache-2.0
// The ScatterElements, Scatter and ScatterND importers through the public API: the layers they make, constant and
// run-time indices, negative axes and indices, and the refusals (reductions, indices of another type, a tuple length
// known only at run time). ONNX's own node tests of these ops run in the conformance suite. TensorScatter (opset 24)
// against a reference on random caches: starts from an initializer, at run time and none, and its refusals.
#include "checks.h"
#include "model_builder.h"

#include <gtest/gtest.h>

#include <map>
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

//! past_cache [2, 2, 6, 3] with update [2, 2, 2, 3] written at starts[b] along axis 2.
std::vector<float> referenceTensorScatter(
    std::vector<float> const& cache, std::vector<float> const& update, std::vector<int64_t> const& starts)
{
    std::vector<float> out(cache);
    for (int64_t b = 0; b < 2; ++b)
        for (int64_t h = 0; h < 2; ++h)
            for (int64_t i = 0; i < 2; ++i)
                for (int64_t d = 0; d < 3; ++d)
                {
                    int64_t const row = starts[static_cast<size_t>(b)] + i;
                    out[static_cast<size_t>(((b * 2 + h) * 6 + row) * 3 + d)]
                        = update[static_cast<size_t>(((b * 2 + h) * 2 + i) * 3 + d)];
                }
    return out;
}

//! TensorScatter(past_cache, update[, starts]) with the caches as graph inputs; nodeInputs names the node's inputs.
ModelBuilder tensorScatterModel(std::vector<std::string> const& nodeInputs, Shape const& cacheShape = {2, 2, 6, 3})
{
    ModelBuilder m(24);
    m.input("cache", cacheShape);
    m.input("update", {2, 2, 2, 3});
    m.node("TensorScatter", nodeInputs, {"present"}, "kv_update");
    m.output("present");
    return m;
}

TEST(OnnxTensorScatter, WritesEachBatchItemAtItsStart)
{
    std::vector<float> const cache = randomValues(72, 40);
    std::vector<float> const update = randomValues(24, 41);
    std::map<std::string, HostTensor> const inputs{
        {"cache", {{2, 2, 6, 3}, cache}}, {"update", {{2, 2, 2, 3}, update}}};
    {
        ModelBuilder m = tensorScatterModel({"cache", "update", "starts"});
        m.initializer(int64Tensor("starts", {2}, {1, 4}));
        Harness h;
        ASSERT_TRUE(h.parse(m)) << h.errors();
        EXPECT_EQ(h.layers(nvinfer1::LayerType::kSCATTER).size(), 1U);
        auto out = h.run(inputs);
        ASSERT_EQ(out.count("present"), 1U) << h.lastFailure();
        EXPECT_EQ(out["present"].values, referenceTensorScatter(cache, update, {1, 4}));
    }
    {
        ModelBuilder m = tensorScatterModel({"cache", "update"});
        Harness h;
        ASSERT_TRUE(h.parse(m)) << h.errors();
        auto out = h.run(inputs);
        ASSERT_EQ(out.count("present"), 1U) << h.lastFailure();
        EXPECT_EQ(out["present"].values, referenceTensorScatter(cache, update, {0, 0}));
    }
}

TEST(OnnxTensorScatter, StartsComputedAtRunTime)
{
    ModelBuilder m = tensorScatterModel({"cache", "update", "starts"});
    m.input("positions", {2});
    attrInt(m.node("Cast", {"positions"}, {"starts"}, "to_int64"), "to", ::onnx::TensorProto::INT64);
    // The Cast must come first in the graph's node list.
    m.graph().mutable_node()->SwapElements(0, 1);
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    std::vector<float> const cache = randomValues(72, 42);
    std::vector<float> const update = randomValues(24, 43);
    auto out = h.run(
        {{"cache", {{2, 2, 6, 3}, cache}}, {"update", {{2, 2, 2, 3}, update}}, {"positions", {{2}, {3.0F, 0.0F}}}});
    ASSERT_EQ(out.count("present"), 1U) << h.lastFailure();
    EXPECT_EQ(out["present"].values, referenceTensorScatter(cache, update, {3, 0}));
}

TEST(OnnxTensorScatter, Refusals)
{
    {
        ModelBuilder m = tensorScatterModel({"cache", "update"});
        attrString(*m.graph().mutable_node(0), "mode", "circular");
        expectRefused(m, ErrorCode::kUNSUPPORTED_NODE_ATTR, "mode is 'circular'; only 'linear' is supported",
            "TensorScatter", "kv_update");
    }
    {
        ModelBuilder m = tensorScatterModel({"cache", "update"});
        attrInt(*m.graph().mutable_node(0), "axis", 1);
        expectRefused(m, ErrorCode::kUNSUPPORTED_NODE_ATTR, "axis is 1; only -2", "TensorScatter", "kv_update");
    }
    {
        ModelBuilder m(24);
        m.input("cache", {2, 6, 3});
        m.input("update", {2, 2, 3});
        m.node("TensorScatter", {"cache", "update"}, {"present"}, "kv_update");
        m.output("present");
        expectRefused(m, ErrorCode::kUNSUPPORTED_NODE, "both must be 4-D", "TensorScatter", "kv_update");
    }
}

} // namespace
} // namespace kiln::onnx_test
