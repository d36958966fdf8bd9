// SPDX-License-Identifier: Apache-2.0
// The Resize and Upsample importers through the public API: how ONNX's attributes map onto IResizeLayer, scales and
// constant sizes, sizes computed at run time (a shape tensor, with and without the axes attribute), Resize-10 and
// Upsample-7/9, and each refusal with its code and message. (ONNX's own resize and upsample node tests run in
// kiln_onnx_conformance.)
#include "model_builder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace kiln::onnx_test
{
namespace
{

using nvinfer1::InterpolationMode;
using nvinfer1::ResizeCoordinateTransformation;
using nvinfer1::ResizeRoundMode;
using nvinfer1::ResizeSelector;
using nvonnxparser::ErrorCode;

//! x [1, 1, 2, 2] -> Resize(x, roi, scales, sizes) -> y, with the scales or sizes as initializers ("" when omitted).
ModelBuilder resizeModel(std::vector<float> const& scales, std::vector<int64_t> const& sizes, int64_t opset = 13)
{
    ModelBuilder m(opset);
    m.input("x", {1, 1, 2, 2});
    std::vector<std::string> inputs{"x", "", scales.empty() ? "" : "scales"};
    if (!scales.empty())
    {
        m.initializer(floatTensor("scales", {static_cast<int64_t>(scales.size())}, scales));
    }
    if (!sizes.empty())
    {
        inputs.push_back("sizes");
        m.initializer(int64Tensor("sizes", {static_cast<int64_t>(sizes.size())}, sizes));
    }
    m.node("Resize", inputs, {"y"}, "resize");
    m.output("y");
    return m;
}

::onnx::NodeProto& resizeNode(ModelBuilder& m)
{
    return *m.graph().mutable_node(m.graph().node_size() - 1);
}

nvinfer1::IResizeLayer* theResize(Harness const& h)
{
    auto const layers = h.layers(nvinfer1::LayerType::kRESIZE);
    return layers.size() == 1 ? static_cast<nvinfer1::IResizeLayer*>(layers.front()) : nullptr;
}

std::vector<float> const kX{1, 2, 3, 4};

TEST(OnnxResize, ScalesMapOntoTheLayer)
{
    ModelBuilder m = resizeModel({1, 1, 2, 2}, {});
    attrString(resizeNode(m), "mode", "linear");
    attrString(resizeNode(m), "coordinate_transformation_mode", "pytorch_half_pixel");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    nvinfer1::IResizeLayer* resize = theResize(h);
    ASSERT_NE(resize, nullptr);
    EXPECT_EQ(resize->getResizeMode(), InterpolationMode::kLINEAR);
    EXPECT_EQ(resize->getCoordinateTransformation(), ResizeCoordinateTransformation::kHALF_PIXEL);
    EXPECT_EQ(resize->getSelectorForSinglePixel(), ResizeSelector::kUPPER);
    EXPECT_EQ(resize->getNearestRounding(), ResizeRoundMode::kHALF_DOWN); // round_prefer_floor
    std::vector<float> scales(4);
    ASSERT_EQ(resize->getScales(4, scales.data()), 4);
    EXPECT_EQ(scales, (std::vector<float>{1, 1, 2, 2}));
    auto out = h.run({{"x", {{1, 1, 2, 2}, kX}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].shape, (Shape{1, 1, 4, 4}));
    EXPECT_EQ(out["y"].values,
        (std::vector<float>{
            1, 1.25F, 1.75F, 2, 1.5F, 1.75F, 2.25F, 2.5F, 2.5F, 2.75F, 3.25F, 3.5F, 3, 3.25F, 3.75F, 4}));
}

TEST(OnnxResize, NearestModesAndTransformations)
{
    struct Case
    {
        char const* transformation;
        char const* nearestMode;
        ResizeCoordinateTransformation expected;
        ResizeRoundMode rounding;
    };
    for (Case const& c :
        {Case{"align_corners", "floor", ResizeCoordinateTransformation::kALIGN_CORNERS, ResizeRoundMode::kFLOOR},
            Case{"asymmetric", "ceil", ResizeCoordinateTransformation::kASYMMETRIC, ResizeRoundMode::kCEIL},
            Case{"half_pixel", "round_prefer_ceil", ResizeCoordinateTransformation::kHALF_PIXEL,
                ResizeRoundMode::kHALF_UP},
            // round((x + 0.5) / scale), rounded half down, is ceil of the half-pixel coordinate; floored, it rounds
            // that coordinate half up.
            Case{"tf_half_pixel_for_nn", "round_prefer_floor", ResizeCoordinateTransformation::kHALF_PIXEL,
                ResizeRoundMode::kCEIL},
            Case{"tf_half_pixel_for_nn", "floor", ResizeCoordinateTransformation::kHALF_PIXEL,
                ResizeRoundMode::kHALF_UP}})
    {
        SCOPED_TRACE(std::string(c.transformation) + " " + c.nearestMode);
        ModelBuilder m = resizeModel({}, {1, 1, 3, 3});
        attrString(resizeNode(m), "coordinate_transformation_mode", c.transformation);
        attrString(resizeNode(m), "nearest_mode", c.nearestMode);
        Harness h;
        ASSERT_TRUE(h.parse(m)) << h.errors();
        nvinfer1::IResizeLayer* resize = theResize(h);
        ASSERT_NE(resize, nullptr);
        EXPECT_EQ(resize->getResizeMode(), InterpolationMode::kNEAREST);
        EXPECT_EQ(resize->getCoordinateTransformation(), c.expected);
        EXPECT_EQ(resize->getNearestRounding(), c.rounding);
        EXPECT_EQ(resize->getSelectorForSinglePixel(), ResizeSelector::kFORMULA);
        EXPECT_EQ(resize->getScales(0, nullptr), -1);
        nvinfer1::Dims const out = resize->getOutputDimensions();
        ASSERT_EQ(out.nbDims, 4);
        EXPECT_EQ(out.d[2], 3);
    }
}

TEST(OnnxResize, CubicSettings)
{
    ModelBuilder m = resizeModel({1, 1, 2, 2}, {}, 11);
    attrString(resizeNode(m), "mode", "cubic");
    attrFloat(resizeNode(m), "cubic_coeff_a", -0.5F);
    attrInt(resizeNode(m), "exclude_outside", 1);
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    nvinfer1::IResizeLayer* resize = theResize(h);
    ASSERT_NE(resize, nullptr);
    EXPECT_EQ(resize->getResizeMode(), InterpolationMode::kCUBIC);
    EXPECT_EQ(resize->getCubicCoeff(), -0.5F);
    EXPECT_TRUE(resize->getExcludeOutside());
}

TEST(OnnxResize, SizesComputedAtRunTime)
{
    // y takes the spatial size of "like", whose extents are known only at run time (an FPN's upsample-to-match).
    ModelBuilder m(13);
    m.input("x", {1, 1, 2, 2});
    m.input("like", {1, 1, -1, -1});
    m.node("Shape", {"like"}, {"shape"}, "shape");
    m.node("Resize", {"x", "", "", "shape"}, {"y"}, "resize");
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    nvinfer1::IResizeLayer* resize = theResize(h);
    ASSERT_NE(resize, nullptr);
    EXPECT_EQ(resize->getNbInputs(), 2);
    auto out = h.run({{"x", {{1, 1, 2, 2}, kX}}, {"like", {{1, 1, 3, 4}, std::vector<float>(12, 0.F)}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].shape, (Shape{1, 1, 3, 4}));
    // Nearest, half-pixel, rounding half down: rows at -1/6, 1/2 (a tie, rounded down), 7/6 read 0, 0, 1; columns
    // at -1/4, 1/4, 3/4, 5/4 read 0, 0, 1, 1.
    EXPECT_EQ(out["y"].values, (std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4}));
}

TEST(OnnxResize, AxesPickTheResizedExtents)
{
    // Opset 18's axes: sizes for axes 3 and 2 (in that order), the others kept; run-time and constant sizes.
    ModelBuilder m(13);
    m.input("x", {1, 1, 2, 2});
    m.input("hw", {2}, ::onnx::TensorProto::INT64);
    m.node("Resize", {"x", "", "", "hw"}, {"y"}, "resize");
    attrInts(resizeNode(m), "axes", {3, -2});
    m.initializer(int64Tensor("wh", {2}, {6, 4}));
    m.node("Resize", {"x", "", "", "wh"}, {"z"}, "fixed");
    attrInts(resizeNode(m), "axes", {3, 2});
    m.output("y");
    m.output("z");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto const layers = h.layers(nvinfer1::LayerType::kRESIZE);
    ASSERT_EQ(layers.size(), 2U);
    nvinfer1::Dims const fixed = static_cast<nvinfer1::IResizeLayer*>(layers[1])->getOutputDimensions();
    ASSERT_EQ(fixed.nbDims, 4);
    EXPECT_EQ(std::vector<int64_t>(fixed.d, fixed.d + 4), (std::vector<int64_t>{1, 1, 4, 6}));
    EXPECT_EQ(layers[0]->getNbInputs(), 2);
}

TEST(OnnxResize, Opset10AndUpsampleFloorAsymmetricCoordinates)
{
    for (int64_t const opset : {7, 9, 10})
    {
        SCOPED_TRACE(opset);
        ModelBuilder m(opset);
        m.input("x", {1, 1, 2, 2});
        std::string const op = opset == 10 ? "Resize" : "Upsample";
        if (opset == 7)
        {
            attrFloats(m.node(op, {"x"}, {"y"}, "up"), "scales", {1, 1, 2, 1.5F});
        }
        else
        {
            m.initializer(floatTensor("scales", {4}, {1, 1, 2, 1.5F}));
            m.node(op, {"x", "scales"}, {"y"}, "up");
        }
        m.output("y");
        Harness h;
        ASSERT_TRUE(h.parse(m)) << h.errors();
        nvinfer1::IResizeLayer* resize = theResize(h);
        ASSERT_NE(resize, nullptr);
        EXPECT_EQ(resize->getCoordinateTransformation(), ResizeCoordinateTransformation::kASYMMETRIC);
        EXPECT_EQ(resize->getNearestRounding(), ResizeRoundMode::kFLOOR);
        auto out = h.run({{"x", {{1, 1, 2, 2}, kX}}});
        ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
        EXPECT_EQ(out["y"].shape, (Shape{1, 1, 4, 3}));
        EXPECT_EQ(out["y"].values, (std::vector<float>{1, 1, 2, 1, 1, 2, 3, 3, 4, 3, 3, 4}));
    }
}

//! Parses m and expects it to fail with code and a message that contains text.
void expectRefused(ModelBuilder const& m, ErrorCode code, std::string const& text)
{
    Harness h;
    ASSERT_FALSE(h.parse(m));
    nvonnxparser::IParserError const* error = h.firstError();
    ASSERT_NE(error, nullptr);
    EXPECT_EQ(error->code(), code) << h.errors();
    EXPECT_NE(std::string(error->desc()).find(text), std::string::npos) << h.errors();
}

TEST(OnnxResize, RefusesAttributesItCannotHonour)
{
    struct Case
    {
        char const* name;
        char const* value;
        std::string message;
    };
    for (Case const& c : {
             Case{"mode", "bilinear", "attribute mode is 'bilinear'; it must be nearest, linear or cubic"},
             Case{"coordinate_transformation_mode", "tf_crop_and_resize",
                 "attribute coordinate_transformation_mode tf_crop_and_resize is not supported"},
             Case{"coordinate_transformation_mode", "half_pixel_symmetric",
                 "attribute coordinate_transformation_mode half_pixel_symmetric is not supported"},
             Case{"coordinate_transformation_mode", "sideways",
                 "attribute coordinate_transformation_mode is 'sideways'; it must be half_pixel, pytorch_half_pixel, "
                 "align_corners, asymmetric or tf_half_pixel_for_nn"},
             Case{"nearest_mode", "round_to_even",
                 "attribute nearest_mode is 'round_to_even'; it must be round_prefer_floor, round_prefer_ceil, floor "
                 "or ceil"},
             Case{"keep_aspect_ratio_policy", "not_larger",
                 "attribute keep_aspect_ratio_policy is 'not_larger'; only stretch is supported"},
         })
    {
        SCOPED_TRACE(c.name);
        ModelBuilder m = resizeModel({1, 1, 2, 2}, {});
        attrString(resizeNode(m), c.name, c.value);
        expectRefused(m, ErrorCode::kUNSUPPORTED_NODE_ATTR, c.message);
    }
    ModelBuilder antialias = resizeModel({1, 1, 2, 2}, {});
    attrInt(resizeNode(antialias), "antialias", 1);
    expectRefused(antialias, ErrorCode::kUNSUPPORTED_NODE_ATTR,
        "attribute antialias is 1; kiln resizes without an antialiasing filter");
    ModelBuilder linearTf = resizeModel({1, 1, 2, 2}, {});
    attrString(resizeNode(linearTf), "mode", "linear");
    attrString(resizeNode(linearTf), "coordinate_transformation_mode", "tf_half_pixel_for_nn");
    expectRefused(linearTf, ErrorCode::kUNSUPPORTED_NODE_ATTR,
        "attribute coordinate_transformation_mode tf_half_pixel_for_nn is supported with mode nearest only");
    ModelBuilder ceilTf = resizeModel({1, 1, 2, 2}, {});
    attrString(resizeNode(ceilTf), "coordinate_transformation_mode", "tf_half_pixel_for_nn");
    attrString(resizeNode(ceilTf), "nearest_mode", "ceil");
    expectRefused(ceilTf, ErrorCode::kUNSUPPORTED_NODE_ATTR,
        "attribute nearest_mode ceil is not supported with coordinate_transformation_mode tf_half_pixel_for_nn");
    ModelBuilder coefficient = resizeModel({1, 1, 2, 2}, {});
    attrFloat(resizeNode(coefficient), "cubic_coeff_a", std::numeric_limits<float>::infinity());
    expectRefused(coefficient, ErrorCode::kINVALID_NODE, "attribute cubic_coeff_a is inf; it must be finite");
    ModelBuilder exclude = resizeModel({1, 1, 2, 2}, {});
    attrInt(resizeNode(exclude), "exclude_outside", 2);
    expectRefused(exclude, ErrorCode::kINVALID_NODE, "attribute exclude_outside is 2; it must be 0 or 1");
    ModelBuilder oldCubic = resizeModel({1, 1, 2, 2}, {}, 10);
    resizeNode(oldCubic).clear_input();
    resizeNode(oldCubic).add_input("x");
    resizeNode(oldCubic).add_input("scales");
    attrString(resizeNode(oldCubic), "mode", "cubic");
    expectRefused(oldCubic, ErrorCode::kUNSUPPORTED_NODE_ATTR, "attribute mode is 'cubic'; it must be nearest, linear");
    ModelBuilder upsample(7);
    upsample.input("x", {1, 1, 2, 2});
    upsample.node("Upsample", {"x"}, {"y"}, "up");
    upsample.output("y");
    expectRefused(upsample, ErrorCode::kINVALID_NODE, "the required attribute 'scales' is missing");
}

TEST(OnnxResize, RefusesScalesAndSizesItCannotUse)
{
    expectRefused(resizeModel({1, 1, 2, 2}, {1, 1, 4, 4}), ErrorCode::kINVALID_NODE,
        "exactly one of scales (input 2) and sizes (input 3) must be given");
    expectRefused(resizeModel({}, {}), ErrorCode::kINVALID_NODE,
        "exactly one of scales (input 2) and sizes (input 3) must be given");
    expectRefused(resizeModel({1, 2}, {}), ErrorCode::kINVALID_NODE, "scales has 2 values for 4 resized axes");
    expectRefused(resizeModel({1, 1, -2, 2}, {}), ErrorCode::kINVALID_NODE,
        "scales value 2 is -2; scales must be positive and finite");
    expectRefused(resizeModel({}, {1, 1, 4}), ErrorCode::kINVALID_NODE,
        "sizes (input 3) has shape [3]; it must hold 4 values (one per resized axis)");
    expectRefused(
        resizeModel({}, {1, 1, -4, 4}), ErrorCode::kINVALID_NODE, "sizes value 2 is -4; sizes are at least 0");

    // Scales known only at run time.
    ModelBuilder runtimeScales(13);
    runtimeScales.input("x", {1, 1, 2, 2});
    runtimeScales.input("s", {4});
    runtimeScales.node("Resize", {"x", "", "s"}, {"y"}, "resize");
    runtimeScales.output("y");
    expectRefused(
        runtimeScales, ErrorCode::kUNSUPPORTED_NODE_INPUT, "input 2 (scales) must be known when the model is parsed");
    // Sizes of a floating type.
    ModelBuilder floatSizes(13);
    floatSizes.input("x", {1, 1, 2, 2});
    floatSizes.input("s", {4});
    floatSizes.node("Resize", {"x", "", "", "s"}, {"y"}, "resize");
    floatSizes.output("y");
    expectRefused(
        floatSizes, ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "sizes (input 3) has type float32; it must be INT64");
    // Linear resizing of integers.
    ModelBuilder integers(13);
    integers.input("x", {1, 1, 2, 2}, ::onnx::TensorProto::INT32);
    integers.initializer(floatTensor("scales", {4}, {1, 1, 2, 2}));
    attrString(integers.node("Resize", {"x", "", "scales"}, {"y"}, "resize"), "mode", "linear");
    integers.output("y", ::onnx::TensorProto::INT32);
    expectRefused(integers, ErrorCode::kUNSUPPORTED_NODE_DATATYPE,
        "the input has type int32; linear and cubic resizing take floating-point inputs");
    // Resize-10 without its scales.
    ModelBuilder noScales(10);
    noScales.input("x", {1, 1, 2, 2});
    noScales.node("Resize", {"x"}, {"y"}, "resize");
    noScales.output("y");
    expectRefused(noScales, ErrorCode::kINVALID_NODE, "the scales (input 1) must be given");
    // Axes out of range, and repeated.
    ModelBuilder outside = resizeModel({2, 2}, {});
    attrInts(resizeNode(outside), "axes", {2, 4});
    expectRefused(
        outside, ErrorCode::kINVALID_NODE, "attribute axes value 4 is out of range for an input of 4 dimensions");
    ModelBuilder repeated = resizeModel({2, 2}, {});
    attrInts(resizeNode(repeated), "axes", {2, -2});
    expectRefused(repeated, ErrorCode::kINVALID_NODE, "axis -2 is repeated in axes");
    // Upsample's scales: one per axis.
    ModelBuilder upsample(9);
    upsample.input("x", {1, 1, 2, 2});
    upsample.initializer(floatTensor("scales", {2}, {2, 2}));
    upsample.node("Upsample", {"x", "scales"}, {"y"}, "up");
    upsample.output("y");
    expectRefused(upsample, ErrorCode::kINVALID_NODE, "scales (input 1) has 2 values for 4 resized axes");
}

} // namespace
} // namespace kiln::onnx_test
