// SPDX-License-Identifier: Apache-2.0
// The GridSample importer through the public API: every mode (opset 16's names and opset 20's), padding mode and
// align_corners, run end to end on the host backend against ONNX's reference values (the values of
// tests/backends/host/grid_sample_golden.py); a grid of another floating type; and each refusal with its code and
// message.
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

//! X [1, 1, 2, 3] and Grid [1, 2, 4, 2] -> GridSample -> Y.
ModelBuilder gridSampleModel(int64_t opset = 16, Shape const& xShape = {1, 1, 2, 3})
{
    ModelBuilder m(opset);
    m.input("X", xShape);
    m.input("Grid", {1, 2, 4, 2});
    m.node("GridSample", {"X", "Grid"}, {"Y"}, "grid_sample");
    m.output("Y");
    return m;
}

::onnx::NodeProto& gridSampleNode(ModelBuilder& m)
{
    return *m.graph().mutable_node(0);
}

std::vector<float> const kX{1, 2, 3, 4, 5, 6};
std::vector<float> const kGrid{
    -1.0F, -1.0F, 0.0F, 0.0F, 1.0F, 1.0F, -1.7F, 0.3F, 1.9F, -1.4F, 0.5F, 0.25F, 2.6F, 1.2F, -0.2F, -3.1F};

struct Variant
{
    char const* mode;
    char const* padding;
    int64_t align;
    nvinfer1::InterpolationMode layerMode;
    nvinfer1::SampleMode layerPadding;
    std::vector<float> expected; //!< ONNX's reference implementation.
};

std::vector<Variant> const& variants()
{
    using nvinfer1::InterpolationMode;
    using nvinfer1::SampleMode;
    static std::vector<Variant> const kVariants{
        {"nearest", "zeros", 0, InterpolationMode::kNEAREST, SampleMode::kFILL, {1, 2, 0, 0, 0, 6, 0, 0}},
        {"nearest", "reflection", 1, InterpolationMode::kNEAREST, SampleMode::kREFLECT, {1, 2, 6, 5, 2, 6, 4, 5}},
        {"bilinear", "zeros", 1, InterpolationMode::kLINEAR, SampleMode::kFILL,
            {1.0F, 3.5F, 6.0F, 0.8849998712539673F, 0.23999977111816406F, 4.375F, 0.0F, 0.0F}},
        {"bilinear", "border", 0, InterpolationMode::kLINEAR, SampleMode::kCLAMP,
            {1.0F, 3.5F, 6.0F, 3.3999998569488525F, 3.0F, 5.0F, 6.0F, 1.7000000476837158F}},
        {"bilinear", "reflection", 0, InterpolationMode::kLINEAR, SampleMode::kREFLECT,
            {1.0F, 3.5F, 6.0F, 3.950000047683716F, 2.1499996185302734F, 5.0F, 4.100000381469727F, 4.699999809265137F}},
        {"bicubic", "zeros", 0, InterpolationMode::kCUBIC, SampleMode::kFILL,
            {0.0625F, 4.15625F, 1.6875F, -0.32409989833831787F, -0.0032380593474954367F, 6.4792633056640625F, 0.0F,
                0.0F}},
        {"bicubic", "border", 1, InterpolationMode::kCUBIC, SampleMode::kCLAMP,
            {1.0F, 3.5F, 6.0F, 3.001188039779663F, 3.0F, 4.5126953125F, 6.0F, 1.7280004024505615F}},
        {"bicubic", "reflection", 0, InterpolationMode::kCUBIC, SampleMode::kREFLECT,
            {0.25F, 3.5F, 6.75F, 3.9260947704315186F, 2.006469488143921F, 5.12890625F, 4.54774808883667F,
                5.150750637054443F}},
    };
    return kVariants;
}

void expectValues(std::vector<float> const& actual, std::vector<float> const& expected)
{
    expectClose(actual, expected, 4e-6F);
}

TEST(OnnxGridSample, EveryModePaddingAndAlignment)
{
    for (Variant const& v : variants())
    {
        SCOPED_TRACE(std::string(v.mode) + " " + v.padding + " align " + std::to_string(v.align));
        ModelBuilder m = gridSampleModel();
        attrString(gridSampleNode(m), "mode", v.mode);
        attrString(gridSampleNode(m), "padding_mode", v.padding);
        attrInt(gridSampleNode(m), "align_corners", v.align);
        Harness h;
        ASSERT_TRUE(h.parse(m)) << h.errors();
        auto const layers = h.layers(nvinfer1::LayerType::kGRID_SAMPLE);
        ASSERT_EQ(layers.size(), 1U);
        auto* sample = static_cast<nvinfer1::IGridSampleLayer*>(layers.front());
        EXPECT_EQ(sample->getInterpolationMode(), v.layerMode);
        EXPECT_EQ(sample->getSampleMode(), v.layerPadding);
        EXPECT_EQ(sample->getAlignCorners(), v.align != 0);
        auto out = h.run({{"X", {{1, 1, 2, 3}, kX}}, {"Grid", {{1, 2, 4, 2}, kGrid}}});
        ASSERT_EQ(out.count("Y"), 1U) << h.lastFailure();
        EXPECT_EQ(out["Y"].shape, (Shape{1, 1, 2, 4}));
        expectValues(out["Y"].values, v.expected);
    }
}

TEST(OnnxGridSample, DefaultsAndOpset20Names)
{
    // No attributes: bilinear, zeros, corners not aligned.
    {
        ModelBuilder m = gridSampleModel();
        Harness h;
        ASSERT_TRUE(h.parse(m)) << h.errors();
        auto out = h.run({{"X", {{1, 1, 2, 3}, kX}}, {"Grid", {{1, 2, 4, 2}, kGrid}}});
        ASSERT_EQ(out.count("Y"), 1U) << h.lastFailure();
        expectValues(out["Y"].values, {0.25F, 3.5F, 1.5F, 0.0F, 0.0F, 5.0F, 0.0F, 0.0F});
    }
    // Opset 20: "linear" and "cubic".
    for (auto const& [name, expected] : {std::pair{"linear", std::vector<float>{0.25F, 3.5F, 1.5F, 0, 0, 5, 0, 0}},
             std::pair{"cubic",
                 std::vector<float>{0.0625F, 4.15625F, 1.6875F, -0.32409989833831787F, -0.0032380593474954367F,
                     6.4792633056640625F, 0.0F, 0.0F}}})
    {
        ModelBuilder m = gridSampleModel(20);
        attrString(gridSampleNode(m), "mode", name);
        Harness h;
        ASSERT_TRUE(h.parse(m)) << h.errors();
        auto out = h.run({{"X", {{1, 1, 2, 3}, kX}}, {"Grid", {{1, 2, 4, 2}, kGrid}}});
        ASSERT_EQ(out.count("Y"), 1U) << h.lastFailure();
        expectValues(out["Y"].values, expected);
    }
}

TEST(OnnxGridSample, AGridOfAnotherFloatingTypeIsCast)
{
    // X in FLOAT16 (cast from the FLOAT input), the grid FLOAT: the grid becomes FLOAT16 too.
    ModelBuilder m(16);
    m.input("X", {1, 1, 2, 3});
    m.input("Grid", {1, 2, 4, 2});
    attrInt(m.node("Cast", {"X"}, {"Xh"}, "to_half"), "to", ::onnx::TensorProto::FLOAT16);
    m.node("GridSample", {"Xh", "Grid"}, {"Yh"}, "grid_sample");
    attrInt(m.node("Cast", {"Yh"}, {"Y"}, "to_float"), "to", ::onnx::TensorProto::FLOAT);
    m.output("Y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto const layers = h.layers(nvinfer1::LayerType::kGRID_SAMPLE);
    ASSERT_EQ(layers.size(), 1U);
    EXPECT_EQ(layers.front()->getInput(1)->getType(), nvinfer1::DataType::kHALF);
    auto out = h.run({{"X", {{1, 1, 2, 3}, kX}}, {"Grid", {{1, 2, 4, 2}, kGrid}}});
    ASSERT_EQ(out.count("Y"), 1U) << h.lastFailure();
    std::vector<float> const expected{0.25F, 3.5F, 1.5F, 0, 0, 5, 0, 0};
    for (std::size_t i = 0; i < expected.size(); ++i)
    {
        EXPECT_NEAR(out["Y"].values[i], expected[i], 5e-3F * (1.0F + std::fabs(expected[i]))) << i;
    }
}

//! The model fails to parse with code, its first error from the GridSample node containing fragment.
void refused(ModelBuilder const& m, ErrorCode code, std::string const& fragment)
{
    expectRefused(m, code, fragment, "GridSample");
}

TEST(OnnxGridSample, Refusals)
{
    {
        ModelBuilder m(16);
        m.input("X", {1, 1, 2, 2, 2});
        m.input("Grid", {1, 2, 2, 2, 3});
        m.node("GridSample", {"X", "Grid"}, {"Y"}, "grid_sample");
        m.output("Y");
        refused(m, ErrorCode::kUNSUPPORTED_NODE,
            "X has rank 5; kiln's grid sample takes a 4-D input [N, C, H, W] (5-D, volumetric, GridSample is not "
            "supported)");
    }
    {
        ModelBuilder m = gridSampleModel();
        attrString(gridSampleNode(m), "mode", "area");
        refused(m, ErrorCode::kUNSUPPORTED_NODE_ATTR, "attribute mode is 'area'");
    }
    {
        ModelBuilder m = gridSampleModel();
        attrString(gridSampleNode(m), "padding_mode", "wrap");
        refused(m, ErrorCode::kUNSUPPORTED_NODE_ATTR,
            "attribute padding_mode is 'wrap'; it must be zeros, border or reflection");
    }
    {
        ModelBuilder m = gridSampleModel();
        attrInt(gridSampleNode(m), "align_corners", 2);
        refused(m, ErrorCode::kINVALID_NODE, "attribute align_corners is 2; it must be 0 or 1");
    }
    {
        ModelBuilder m(16);
        m.input("X", {1, 1, 2, 3}, ::onnx::TensorProto::INT32);
        m.input("Grid", {1, 2, 4, 2});
        m.node("GridSample", {"X", "Grid"}, {"Y"}, "grid_sample");
        m.output("Y", ::onnx::TensorProto::INT32);
        refused(m, ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "GridSample takes FLOAT, FLOAT16 or BFLOAT16 X and grid");
    }
    {
        ModelBuilder m(16);
        m.input("X", {1, 1, 2, 3});
        m.input("Grid", {2, 4, 2});
        m.node("GridSample", {"X", "Grid"}, {"Y"}, "grid_sample");
        m.output("Y");
        refused(m, ErrorCode::kINVALID_NODE, "the grid has shape [2,4,2]; for a 4-D input it must be");
    }
}

} // namespace
} // namespace kiln::onnx_test
