// SPDX-License-Identifier: Apache-2.0
// DeformConv and RoiAlign imported as TensorRT's standard plugins (kiln's standard plugin library, loaded by the
// parser when no creator is registered): DeformConv with zero offsets and no mask equals Conv on the same inputs (2-D,
// and 1-D through the reshape to 2-D); RoiAlign's batch indices INT64 cast to INT32 and its plugin layer; and the
// refusals with their codes and messages.
#include "checks.h"
#include "model_builder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace kiln::onnx_test
{
namespace
{

using nvonnxparser::ErrorCode;

std::vector<float> ramp(size_t n, float scale)
{
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i)
    {
        v[i] = std::sin(static_cast<float>(i) * scale);
    }
    return v;
}

TEST(OnnxDeformConv, ZeroOffsetsEqualConv)
{
    for (bool oneD : {false, true})
    {
        SCOPED_TRACE(oneD ? "1-D" : "2-D");
        Shape const x = oneD ? Shape{1, 2, 7} : Shape{1, 2, 5, 6};
        Shape const w = oneD ? Shape{3, 2, 3} : Shape{3, 2, 3, 2};
        int64_t const taps = oneD ? 3 : 6;
        Shape const out = oneD ? Shape{1, 3, 7} : Shape{1, 3, 5, 7};
        Shape const offset{1, 2 * taps, out[2], oneD ? 1 : out[3]};
        ModelBuilder m(19);
        m.input("X", x);
        m.initializer(floatTensor("W", w, ramp(static_cast<size_t>(3 * 2 * taps), 0.7F)));
        m.initializer(floatTensor("B", {3}, {0.5F, -1.0F, 0.25F}));
        Shape offsetShape = offset;
        if (oneD)
        {
            offsetShape.pop_back();
        }
        int64_t offsetCount = 1;
        for (int64_t e : offsetShape)
        {
            offsetCount *= e;
        }
        m.initializer(floatTensor("offset", offsetShape, std::vector<float>(static_cast<size_t>(offsetCount), 0.0F)));
        auto& deform = m.node("DeformConv", {"X", "W", "offset", "B"}, {"Y"}, "deform");
        auto& conv = m.node("Conv", {"X", "W", "B"}, {"Z"}, "conv");
        for (auto* node : {&deform, &conv})
        {
            attrInts(*node, "pads", oneD ? std::vector<int64_t>{1, 1} : std::vector<int64_t>{1, 1, 1, 1});
        }
        m.output("Y");
        m.output("Z");
        Harness h;
        ASSERT_TRUE(h.parse(m)) << h.errors();
        EXPECT_EQ(h.layers(nvinfer1::LayerType::kPLUGIN_V3).size(), 1U);
        size_t count = 1;
        for (int64_t e : x)
        {
            count *= static_cast<size_t>(e);
        }
        auto outputs = h.run({{"X", {x, ramp(count, 0.3F)}}});
        ASSERT_EQ(outputs.count("Y"), 1U) << h.lastFailure();
        EXPECT_EQ(outputs["Y"].shape, out);
        ASSERT_EQ(outputs["Y"].values.size(), outputs["Z"].values.size());
        for (size_t i = 0; i < outputs["Z"].values.size(); ++i)
        {
            EXPECT_NEAR(outputs["Y"].values[i], outputs["Z"].values[i], 1e-5F) << i;
        }
    }
}

TEST(OnnxDeformConv, Refusals)
{
    {
        ModelBuilder m(19);
        m.input("X", {1, 1, 4, 4});
        m.input("W", {1, 1, 2, 2});
        m.input("offset", {1, 8, 4, 4});
        attrInts(m.node("DeformConv", {"X", "W", "offset"}, {"Y"}, "deform"), "pads", {0, 1, 1, 1});
        m.output("Y");
        expectRefused(
            m, ErrorCode::kUNSUPPORTED_NODE, "pads for the beginning and end along each spatial axis must be the same");
    }
    {
        ModelBuilder m(19);
        m.input("X", {1, 1, 2, 2, 2});
        m.input("W", {1, 1, 1, 1, 1});
        m.input("offset", {1, 3, 2, 2, 2});
        m.node("DeformConv", {"X", "W", "offset"}, {"Y"}, "deform");
        m.output("Y");
        expectRefused(m, ErrorCode::kUNSUPPORTED_NODE, "input must have 1D or 2D spatial dimensions");
    }
}

TEST(OnnxRoiAlign, Int64BatchIndicesAreCastAndThePluginRuns)
{
    ModelBuilder m(16);
    m.input("X", {1, 1, 4, 4});
    m.initializer(floatTensor("rois", {1, 4}, {0.0F, 0.0F, 4.0F, 4.0F}));
    m.initializer(int64Tensor("batch", {1}, {0}));
    auto& node = m.node("RoiAlign", {"X", "rois", "batch"}, {"Y"}, "roi");
    attrInt(node, "output_height", 1);
    attrInt(node, "output_width", 1);
    attrInt(node, "sampling_ratio", 2);
    m.output("Y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto const plugins = h.layers(nvinfer1::LayerType::kPLUGIN_V3);
    ASSERT_EQ(plugins.size(), 1U);
    EXPECT_EQ(plugins.front()->getInput(2)->getType(), nvinfer1::DataType::kINT32);
    std::vector<float> x(16);
    for (size_t i = 0; i < x.size(); ++i)
    {
        x[i] = static_cast<float>(i);
    }
    auto outputs = h.run({{"X", {{1, 1, 4, 4}, x}}});
    ASSERT_EQ(outputs.count("Y"), 1U) << h.lastFailure();
    // half_pixel: the box is [-0.5, 3.5]^2, samples at 0.5 and 2.5 on each axis: the mean of the bilinear values is
    // the value at the centre, 1.5 * 4 + 1.5 = 7.5.
    ASSERT_EQ(outputs["Y"].values.size(), 1U);
    EXPECT_NEAR(outputs["Y"].values[0], 7.5F, 1e-5F);
}

TEST(OnnxRoiAlign, BadModeIsRefused)
{
    ModelBuilder m(16);
    m.input("X", {1, 1, 4, 4});
    m.input("rois", {1, 4});
    m.input("batch", {1}, ::onnx::TensorProto::INT64);
    attrString(m.node("RoiAlign", {"X", "rois", "batch"}, {"Y"}, "roi"), "mode", "median");
    m.output("Y");
    expectRefused(m, ErrorCode::kINVALID_NODE, "attribute mode is 'median'; it must be avg or max");
}

} // namespace
} // namespace kiln::onnx_test
