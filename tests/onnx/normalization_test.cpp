// SPDX-License-Identifier: Apache-2.0
// ImageScaler, LpNormalization and RMSNormalization through the public API, run on the host backend against
// references computed here on random data; and each refusal with its code, message and node.
#include "checks.h"

#include <cmath>
#include <vector>

namespace kiln::onnx_test
{
namespace
{

using nvonnxparser::ErrorCode;

TEST(OnnxImageScaler, ScalesAndAddsABiasPerChannel)
{
    ModelBuilder m(9);
    m.input("x", {2, 3, 2, 2});
    auto& node = m.node("ImageScaler", {"x"}, {"y"}, "scaler");
    attrFloat(node, "scale", 0.5F);
    attrFloats(node, "bias", {1.0F, -2.0F, 3.0F});
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    std::vector<float> const x = randomValues(24, 1);
    auto out = h.run({{"x", {{2, 3, 2, 2}, x}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    std::vector<float> expected(x.size());
    float const bias[] = {1.0F, -2.0F, 3.0F};
    for (size_t i = 0; i < x.size(); ++i)
    {
        expected[i] = x[i] * 0.5F + bias[(i / 4) % 3];
    }
    expectClose(out["y"].values, expected, 1e-6F);
}

TEST(OnnxImageScaler, Refusals)
{
    ModelBuilder m(9);
    m.input("x", {1, 3, 2, 2});
    attrFloats(m.node("ImageScaler", {"x"}, {"y"}, "scaler"), "bias", {1.0F, 2.0F});
    m.output("y");
    expectRefused(m, ErrorCode::kINVALID_NODE, "bias has 2 values; the input has 3 channels", "ImageScaler", "scaler");

    ModelBuilder flat(9);
    flat.input("x", {3, 2});
    flat.node("ImageScaler", {"x"}, {"y"}, "scaler");
    flat.output("y");
    expectRefused(flat, ErrorCode::kINVALID_NODE, "it must be 4-D (NCHW)", "ImageScaler", "scaler");
}

//! x [3, 4, 5] -> LpNormalization(axis, p) -> y, against x / ||x||_p along the axis.
void checkLpNormalization(int64_t axis, int64_t p)
{
    ModelBuilder m(17);
    m.input("x", {3, 4, 5});
    auto& node = m.node("LpNormalization", {"x"}, {"y"}, "norm");
    attrInt(node, "axis", axis);
    attrInt(node, "p", p);
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    std::vector<float> const x = randomValues(60, 2);
    auto out = h.run({{"x", {{3, 4, 5}, x}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    int64_t const extents[] = {3, 4, 5};
    int64_t const strides[] = {20, 5, 1};
    int64_t const a = axis < 0 ? axis + 3 : axis;
    std::vector<float> expected(x.size());
    for (int64_t i = 0; i < 60; ++i)
    {
        int64_t const base = i - (i / strides[a] % extents[a]) * strides[a];
        double norm = 0.0;
        for (int64_t j = 0; j < extents[a]; ++j)
        {
            double const v = x[static_cast<size_t>(base + j * strides[a])];
            norm += p == 1 ? std::fabs(v) : v * v;
        }
        norm = p == 1 ? norm : std::sqrt(norm);
        expected[static_cast<size_t>(i)] = static_cast<float>(x[static_cast<size_t>(i)] / norm);
    }
    expectClose(out["y"].values, expected, 1e-5F);
}

TEST(OnnxLpNormalization, L1AndL2AlongAnAxis)
{
    checkLpNormalization(-1, 2);
    checkLpNormalization(1, 1);
    checkLpNormalization(0, 2);
}

TEST(OnnxLpNormalization, RefusesOtherP)
{
    ModelBuilder m(17);
    m.input("x", {3, 4});
    attrInt(m.node("LpNormalization", {"x"}, {"y"}, "norm"), "p", 3);
    m.output("y");
    expectRefused(
        m, ErrorCode::kUNSUPPORTED_NODE_ATTR, "attribute p is 3; it must be 1 or 2", "LpNormalization", "norm");
}

//! x [2, 3, 4] -> RMSNormalization(axis) with scale of shape scaleShape -> y.
void checkRMSNormalization(int64_t axis, Shape const& scaleShape)
{
    ModelBuilder m(23);
    m.input("x", {2, 3, 4});
    int64_t scaleCount = 1;
    for (int64_t extent : scaleShape)
    {
        scaleCount *= extent;
    }
    std::vector<float> const scale = randomValues(static_cast<size_t>(scaleCount), 3, 0.5F, 2.0F);
    m.initializer(floatTensor("scale", scaleShape, scale));
    auto& node = m.node("RMSNormalization", {"x", "scale"}, {"y"}, "rms");
    attrInt(node, "axis", axis);
    attrFloat(node, "epsilon", 1e-3F);
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    std::vector<float> const x = randomValues(24, 4);
    auto out = h.run({{"x", {{2, 3, 4}, x}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    int64_t const group = axis == 1 || axis == -2 ? 12 : 4; // elements normalized together
    std::vector<float> expected(x.size());
    for (int64_t start = 0; start < 24; start += group)
    {
        double squares = 0.0;
        for (int64_t i = start; i < start + group; ++i)
        {
            squares += static_cast<double>(x[static_cast<size_t>(i)]) * x[static_cast<size_t>(i)];
        }
        double const rms = std::sqrt(squares / static_cast<double>(group) + 1e-3);
        for (int64_t i = start; i < start + group; ++i)
        {
            float const s = scale[static_cast<size_t>((i - start) % scaleCount)];
            expected[static_cast<size_t>(i)] = static_cast<float>(x[static_cast<size_t>(i)] / rms * s);
        }
    }
    expectClose(out["y"].values, expected, 1e-5F);
}

TEST(OnnxRMSNormalization, NormalizesTheTrailingAxesAndScales)
{
    checkRMSNormalization(-1, {4});
    checkRMSNormalization(1, {3, 4});
    checkRMSNormalization(1, {4}); // scale broadcast over the normalized axes
}

TEST(OnnxRMSNormalization, RefusesAnIntegerStashType)
{
    ModelBuilder m(23);
    m.input("x", {2, 4});
    m.initializer(floatTensor("scale", {4}, {1, 1, 1, 1}));
    attrInt(m.node("RMSNormalization", {"x", "scale"}, {"y"}, "rms"), "stash_type", ::onnx::TensorProto::INT64);
    m.output("y");
    expectRefused(m, ErrorCode::kUNSUPPORTED_NODE_ATTR, "attribute stash_type 7 is not a floating-point type",
        "RMSNormalization", "rms");
}

} // namespace
} // namespace kiln::onnx_test

namespace kiln::onnx_test
{
namespace
{

// PyTorch's half models export LayerNormalization with a float X (after a Cast) and half scale and bias: the output
// is in X's type, the scale and bias are cast to it (they used to meet X in one kPROD, which the builder refused).
TEST(OnnxLayerNormalization, HalfScaleAndBiasOnAFloatInputAreCastToTheInputsType)
{
    ModelBuilder m(17);
    m.input("x", {2, 3, 4});
    // 0.5, 1, 1.5, -2 and 0.25, 0, -0.25, 1 as IEEE half bits: exact in both types.
    m.initializer(
        rawTensor("scale", ::onnx::TensorProto::FLOAT16, {4}, std::vector<uint16_t>{0x3800, 0x3C00, 0x3E00, 0xC000}));
    m.initializer(
        rawTensor("bias", ::onnx::TensorProto::FLOAT16, {4}, std::vector<uint16_t>{0x3400, 0x0000, 0xB400, 0x3C00}));
    attrFloat(m.node("LayerNormalization", {"x", "scale", "bias"}, {"y"}, "norm"), "epsilon", 1e-5F);
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    std::vector<float> const x = randomValues(24, 5);
    auto out = h.run({{"x", {{2, 3, 4}, x}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    float const scale[] = {0.5F, 1.0F, 1.5F, -2.0F};
    float const bias[] = {0.25F, 0.0F, -0.25F, 1.0F};
    std::vector<float> expected(x.size());
    for (size_t row = 0; row < 6; ++row)
    {
        float mean = 0.0F;
        for (size_t i = 0; i < 4; ++i)
        {
            mean += x[row * 4 + i] / 4.0F;
        }
        float variance = 0.0F;
        for (size_t i = 0; i < 4; ++i)
        {
            variance += (x[row * 4 + i] - mean) * (x[row * 4 + i] - mean) / 4.0F;
        }
        for (size_t i = 0; i < 4; ++i)
        {
            expected[row * 4 + i] = (x[row * 4 + i] - mean) / std::sqrt(variance + 1e-5F) * scale[i] + bias[i];
        }
    }
    expectClose(out["y"].values, expected, 1e-4F);
}

} // namespace
} // namespace kiln::onnx_test
