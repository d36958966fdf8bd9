// SPDX-License-Identifier: Apache-2.0
// RandomUniform, RandomNormal, RandomUniformLike and RandomNormalLike through the public API: the fill layer they
// become, the output's shape and type, the range and the rough mean and variance of many samples, the ignored seed,
// and the refusals.
#include "checks.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace kiln::onnx_test
{
namespace
{

using nvonnxparser::ErrorCode;

struct Moments
{
    double mean;
    double variance;
};

Moments momentsOf(std::vector<float> const& values)
{
    double sum = 0.0;
    double squares = 0.0;
    for (float v : values)
    {
        sum += v;
        squares += static_cast<double>(v) * v;
    }
    double const n = static_cast<double>(values.size());
    return {sum / n, squares / n - (sum / n) * (sum / n)};
}

TEST(OnnxRandom, UniformInItsRangeWithItsMoments)
{
    ModelBuilder m(17);
    auto& node = m.node("RandomUniform", {}, {"y"}, "uniform");
    attrInts(node, "shape", {200, 250});
    attrFloat(node, "low", -2.0F);
    attrFloat(node, "high", 4.0F);
    attrFloat(node, "seed", 3.0F);
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto const fills = h.layers(nvinfer1::LayerType::kFILL);
    ASSERT_EQ(fills.size(), 1U);
    auto* fill = static_cast<nvinfer1::IFillLayer*>(fills.front());
    EXPECT_EQ(fill->getOperation(), nvinfer1::FillOperation::kRANDOM_UNIFORM);
    EXPECT_EQ(fill->getOutput(0)->getType(), nvinfer1::DataType::kFLOAT);
    EXPECT_FALSE(h.mLogger.find("seed attribute is ignored", nvinfer1::ILogger::Severity::kWARNING).empty())
        << h.mLogger.all();
    auto out = h.run({});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].shape, (Shape{200, 250}));
    auto const [low, high] = std::minmax_element(out["y"].values.begin(), out["y"].values.end());
    EXPECT_GE(*low, -2.0F);
    EXPECT_LT(*high, 4.0F);
    Moments const moments = momentsOf(out["y"].values);
    EXPECT_NEAR(moments.mean, 1.0, 0.05);
    EXPECT_NEAR(moments.variance, 36.0 / 12.0, 0.1);
}

TEST(OnnxRandom, NormalWithItsMeanAndScale)
{
    ModelBuilder m(17);
    auto& node = m.node("RandomNormal", {}, {"y"}, "normal");
    attrInts(node, "shape", {100, 500});
    attrFloat(node, "mean", 3.0F);
    attrFloat(node, "scale", 0.5F);
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    EXPECT_TRUE(h.mLogger.find("seed").empty()) << "no seed, no warning";
    auto out = h.run({});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].shape, (Shape{100, 500}));
    Moments const moments = momentsOf(out["y"].values);
    EXPECT_NEAR(moments.mean, 3.0, 0.02);
    EXPECT_NEAR(moments.variance, 0.25, 0.02);
}

TEST(OnnxRandom, LikeTakesTheInputsShapeAtRunTime)
{
    for (std::string const op : {"RandomUniformLike", "RandomNormalLike"})
    {
        ModelBuilder m(17);
        m.input("x", {-1, 100});
        m.node(op, {"x"}, {"y"}, "like");
        m.output("y");
        Harness h;
        ASSERT_TRUE(h.parse(m)) << h.errors();
        auto out = h.run({{"x", {{300, 100}, std::vector<float>(30000, 0.0F)}}});
        ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
        EXPECT_EQ(out["y"].shape, (Shape{300, 100})) << op;
        Moments const moments = momentsOf(out["y"].values);
        bool const uniform = op == "RandomUniformLike";
        EXPECT_NEAR(moments.mean, uniform ? 0.5 : 0.0, 0.03) << op;
        EXPECT_NEAR(moments.variance, uniform ? 1.0 / 12.0 : 1.0, uniform ? 0.01 : 0.05) << op;
        if (uniform)
        {
            EXPECT_GE(*std::min_element(out["y"].values.begin(), out["y"].values.end()), 0.0F);
            EXPECT_LT(*std::max_element(out["y"].values.begin(), out["y"].values.end()), 1.0F);
        }
    }
}

TEST(OnnxRandom, LikeWithAStaticShapeAndADtype)
{
    ModelBuilder m(17);
    m.input("x", {4, 8}, ::onnx::TensorProto::FLOAT);
    auto& node = m.node("RandomNormalLike", {"x"}, {"r"}, "like");
    attrInt(node, "dtype", ::onnx::TensorProto::FLOAT16);
    attrInt(m.node("Cast", {"r"}, {"r32"}, "cast"), "to", ::onnx::TensorProto::FLOAT);
    m.node("Add", {"r32", "x"}, {"y"}, "add");
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto const fills = h.layers(nvinfer1::LayerType::kFILL);
    ASSERT_EQ(fills.size(), 1U);
    EXPECT_EQ(fills.front()->getOutput(0)->getType(), nvinfer1::DataType::kHALF);
    auto out = h.run({{"x", {{4, 8}, std::vector<float>(32, 0.0F)}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].shape, (Shape{4, 8}));
}

TEST(OnnxRandom, Refusals)
{
    {
        ModelBuilder m(17);
        auto& node = m.node("RandomUniform", {}, {"y"}, "uniform");
        attrInts(node, "shape", {2, 2});
        attrInt(node, "dtype", ::onnx::TensorProto::INT32);
        m.output("y");
        expectRefused(m, ErrorCode::kUNSUPPORTED_NODE_ATTR, "attribute dtype 6 is not a floating-point type",
            "RandomUniform", "uniform");
    }
    {
        ModelBuilder m(17);
        m.input("x", {2, 2}, ::onnx::TensorProto::INT32);
        m.node("RandomNormalLike", {"x"}, {"y"}, "like");
        m.output("y");
        expectRefused(m, ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "the input has type int32", "RandomNormalLike", "like");
    }
    {
        ModelBuilder m(17);
        attrInts(m.node("RandomNormal", {}, {"y"}, "normal"), "shape", {2, -1});
        m.output("y");
        expectRefused(m, ErrorCode::kINVALID_NODE, "extents must not be negative", "RandomNormal", "normal");
    }
}

} // namespace
} // namespace kiln::onnx_test
