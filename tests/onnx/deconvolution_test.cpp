// SPDX-License-Identifier: Apache-2.0
// The ConvTranspose importer through the public API, run end to end on the host backend against ONNX's definition
// written out here: the kernel and bias as initializers (the layer's weights) or graph inputs (its tensor inputs 1 and
// 2); pads, output_padding absorbed into the post-padding or added as zeros past the full result (with the bias on
// them), output_shape, auto_pad, groups, dilations, 1-D through 2-D, a dynamic batch; and each refusal with its code
// and message.
#include "checks.h"
#include "model_builder.h"

#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

namespace kiln::onnx_test
{
namespace
{

using nvonnxparser::ErrorCode;

//! One ConvTranspose as ONNX defines it, for the reference: the input and kernel shapes, the per-axis begin padding,
//! output extents, strides and dilations.
struct Reference
{
    Shape x; //!< [N, C, spatial...]
    Shape w; //!< [C, M / group, k...]
    int64_t group{1};
    Shape strides;
    Shape dilations;
    Shape begin;  //!< pads_begin (may be negative: zeros first).
    Shape output; //!< The output's spatial extents.
};

//! ONNX's ConvTranspose: the full scatter (each x[n][c][i] adds x * w[c][m][t] at i * stride + t * dilation of map
//! group(c) * M/group + m), read at o + pads_begin for each output position o (0 outside the full result), plus bias.
std::vector<float> convTranspose(
    Reference const& r, std::vector<float> const& x, std::vector<float> const& w, std::vector<float> const& bias)
{
    std::size_t const n = r.x.size() - 2;
    int64_t const channels = r.x[1];
    int64_t const perGroup = r.w[1];
    int64_t const maps = perGroup * r.group;
    int64_t const channelsPerGroup = channels / r.group;
    auto const volume = [](Shape const& s, std::size_t from) {
        return std::accumulate(s.begin() + static_cast<std::ptrdiff_t>(from), s.end(), int64_t{1}, std::multiplies<>());
    };
    Shape const in(r.x.begin() + 2, r.x.end());
    Shape const k(r.w.begin() + 2, r.w.end());
    int64_t const inVolume = volume(r.x, 2);
    int64_t const taps = volume(r.w, 2);
    int64_t const outVolume = volume(r.output, 0);
    auto const coords = [](int64_t index, Shape const& extents) {
        Shape at(extents.size());
        for (std::size_t a = extents.size(); a-- > 0;)
        {
            at[a] = index % extents[a];
            index /= extents[a];
        }
        return at;
    };
    std::vector<float> out(static_cast<std::size_t>(r.x[0] * maps * outVolume));
    for (int64_t b = 0; b < r.x[0]; ++b)
    {
        for (int64_t map = 0; map < maps; ++map)
        {
            int64_t const g = map / perGroup;
            for (int64_t o = 0; o < outVolume; ++o)
            {
                Shape const at = coords(o, r.output);
                double sum = bias.empty() ? 0.0 : bias[static_cast<std::size_t>(map)];
                for (int64_t c = g * channelsPerGroup; c < (g + 1) * channelsPerGroup; ++c)
                {
                    for (int64_t i = 0; i < inVolume; ++i)
                    {
                        Shape const position = coords(i, in);
                        for (int64_t t = 0; t < taps; ++t)
                        {
                            Shape const tap = coords(t, k);
                            bool hit = true;
                            for (std::size_t a = 0; a < n && hit; ++a)
                            {
                                hit = position[a] * r.strides[a] + tap[a] * r.dilations[a] == at[a] + r.begin[a];
                            }
                            if (hit)
                            {
                                sum += static_cast<double>(
                                           x[static_cast<std::size_t>((b * channels + c) * inVolume + i)])
                                    * w[static_cast<std::size_t>((c * perGroup + map % perGroup) * taps + t)];
                            }
                        }
                    }
                }
                out[static_cast<std::size_t>((b * maps + map) * outVolume + o)] = static_cast<float>(sum);
            }
        }
    }
    return out;
}

//! Deterministic values: element i of count is ((i * 7) % 11 - 5) / 4.
std::vector<float> values(int64_t count, int64_t salt = 0)
{
    std::vector<float> v(static_cast<std::size_t>(count));
    for (int64_t i = 0; i < count; ++i)
    {
        v[static_cast<std::size_t>(i)] = static_cast<float>(((i + salt) * 7 % 11) - 5) / 4.F;
    }
    return v;
}

int64_t countOf(Shape const& shape)
{
    return std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
}

void expectClose(std::vector<float> const& actual, std::vector<float> const& expected)
{
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
    {
        EXPECT_NEAR(actual[i], expected[i], 1e-4F * (1.F + std::abs(expected[i]))) << "element " << i;
    }
}

::onnx::NodeProto& convTransposeNode(ModelBuilder& m)
{
    return *m.graph().mutable_node(0);
}

TEST(OnnxConvTranspose, WeightsWithOutputPaddingPastTheFullResult)
{
    // H: full 7, pads 1 and 0, output_padding 1: one zero row (plus the bias) past the full result, 7 rows. W: full
    // 6, pads 0 and 2, output_padding 1: one column trimmed (the layer's post-padding), 5 columns.
    Reference const r{{1, 2, 3, 3}, {2, 3, 3, 2}, 1, {2, 2}, {1, 1}, {1, 0}, {7, 5}};
    ModelBuilder m(11);
    m.input("x", r.x);
    m.initializer(floatTensor("w", r.w, values(countOf(r.w), 3)));
    m.initializer(floatTensor("b", {3}, {0.5F, -1.F, 2.F}));
    auto& node = m.node("ConvTranspose", {"x", "w", "b"}, {"y"}, "deconv");
    attrInts(node, "strides", {2, 2});
    attrInts(node, "pads", {1, 0, 0, 2});
    attrInts(node, "output_padding", {1, 1});
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto const layers = h.layers(nvinfer1::LayerType::kDECONVOLUTION);
    ASSERT_EQ(layers.size(), 1U);
    auto* deconv = static_cast<nvinfer1::IDeconvolutionLayer*>(layers.front());
    EXPECT_EQ(deconv->getNbOutputMaps(), 3);
    EXPECT_EQ(deconv->getKernelWeights().count, countOf(r.w));
    EXPECT_EQ(deconv->getBiasWeights().count, 0); // Added after the zeros.
    EXPECT_EQ(deconv->getPrePadding().d[0], 1);
    EXPECT_EQ(deconv->getPostPadding().d[0], 0);
    EXPECT_EQ(deconv->getPostPadding().d[1], 1);
    EXPECT_EQ(h.layers(nvinfer1::LayerType::kSLICE).size(), 1U);
    std::vector<float> const x = values(countOf(r.x));
    auto out = h.run({{"x", {r.x, x}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].shape, (Shape{1, 3, 7, 5}));
    expectClose(out["y"].values, convTranspose(r, x, values(countOf(r.w), 3), {0.5F, -1.F, 2.F}));
}

TEST(OnnxConvTranspose, OutputPaddingWithinThePaddingNeedsNoSlice)
{
    // H: full 5, pads 0 and 1, output_padding 1: 5. W: full 7 (dilation 2), pads 1 and 2: 4.
    Reference const r{{2, 1, 2, 3}, {1, 2, 2, 3}, 1, {3, 1}, {1, 2}, {0, 1}, {5, 4}};
    ModelBuilder m(11);
    m.input("x", r.x);
    m.initializer(floatTensor("w", r.w, values(countOf(r.w), 1)));
    m.initializer(floatTensor("b", {2}, {1.F, -0.25F}));
    auto& node = m.node("ConvTranspose", {"x", "w", "b"}, {"y"}, "deconv");
    attrInts(node, "strides", {3, 1});
    attrInts(node, "dilations", {1, 2});
    attrInts(node, "pads", {0, 1, 1, 2});
    attrInts(node, "output_padding", {1, 0});
    attrInts(node, "kernel_shape", {2, 3});
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto* deconv = static_cast<nvinfer1::IDeconvolutionLayer*>(h.layers(nvinfer1::LayerType::kDECONVOLUTION).front());
    EXPECT_EQ(deconv->getBiasWeights().count, 2);
    EXPECT_EQ(deconv->getPostPadding().d[0], 0); // pads_end 1 less output_padding 1
    EXPECT_EQ(deconv->getDilationNd().d[1], 2);
    EXPECT_TRUE(h.layers(nvinfer1::LayerType::kSLICE).empty());
    std::vector<float> const x = values(countOf(r.x), 5);
    auto out = h.run({{"x", {r.x, x}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].shape, (Shape{2, 2, 5, 4}));
    expectClose(out["y"].values, convTranspose(r, x, values(countOf(r.w), 1), {1.F, -0.25F}));
}

TEST(OnnxConvTranspose, OneDimensionalGroupsWithKernelAndBiasAsInputs)
{
    Reference const r{{1, 4, 5}, {4, 1, 3}, 2, {2}, {2}, {1}, {11}};
    ModelBuilder m(11);
    m.input("x", r.x);
    m.input("w", r.w);
    m.input("b", {2});
    auto& node = m.node("ConvTranspose", {"x", "w", "b"}, {"y"}, "deconv");
    attrInt(node, "group", 2);
    attrInts(node, "strides", {2});
    attrInts(node, "dilations", {2});
    attrInts(node, "pads", {1, 1});
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto* deconv = static_cast<nvinfer1::IDeconvolutionLayer*>(h.layers(nvinfer1::LayerType::kDECONVOLUTION).front());
    EXPECT_EQ(deconv->getNbGroups(), 2);
    EXPECT_EQ(deconv->getNbInputs(), 3);
    EXPECT_EQ(deconv->getKernelSizeNd().nbDims, 2);
    EXPECT_EQ(deconv->getKernelSizeNd().d[0], 1);
    std::vector<float> const x = values(countOf(r.x), 2);
    std::vector<float> const w = values(countOf(r.w), 4);
    std::vector<float> const b{0.75F, -0.5F};
    auto out = h.run({{"x", {r.x, x}}, {"w", {r.w, w}}, {"b", {{2}, b}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].shape, (Shape{1, 2, 11}));
    expectClose(out["y"].values, convTranspose(r, x, w, b));
}

TEST(OnnxConvTranspose, OutputShapeAndAutoPad)
{
    // output_shape [8, 9] of a full result 7 x 7 (stride 2, kernel 3 over 3 x 3): zeros past it on both axes.
    {
        Reference const r{{1, 1, 3, 3}, {1, 1, 3, 3}, 1, {2, 2}, {1, 1}, {0, 0}, {8, 9}};
        ModelBuilder m(11);
        m.input("x", r.x);
        m.initializer(floatTensor("w", r.w, values(9, 2)));
        auto& node = m.node("ConvTranspose", {"x", "w"}, {"y"}, "deconv");
        attrInts(node, "strides", {2, 2});
        attrInts(node, "output_shape", {8, 9});
        m.output("y");
        Harness h;
        ASSERT_TRUE(h.parse(m)) << h.errors();
        std::vector<float> const x = values(9);
        auto out = h.run({{"x", {r.x, x}}});
        ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
        EXPECT_EQ(out["y"].shape, (Shape{1, 1, 8, 9}));
        expectClose(out["y"].values, convTranspose(r, x, values(9, 2), {}));
    }
    // output_shape [5, 4] below the full 7 x 7: total 2 and 3 trimmed, the larger half at the end.
    {
        Reference const r{{1, 1, 3, 3}, {1, 1, 3, 3}, 1, {2, 2}, {1, 1}, {1, 1}, {5, 4}};
        ModelBuilder m(11);
        m.input("x", r.x);
        m.initializer(floatTensor("w", r.w, values(9, 2)));
        auto& node = m.node("ConvTranspose", {"x", "w"}, {"y"}, "deconv");
        attrInts(node, "strides", {2, 2});
        attrInts(node, "output_shape", {5, 4});
        m.output("y");
        Harness h;
        ASSERT_TRUE(h.parse(m)) << h.errors();
        std::vector<float> const x = values(9);
        auto out = h.run({{"x", {r.x, x}}});
        ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
        EXPECT_EQ(out["y"].shape, (Shape{1, 1, 5, 4}));
        expectClose(out["y"].values, convTranspose(r, x, values(9, 2), {}));
    }
    // SAME_LOWER: H with stride 3 and kernel 2 (DK < S): the output is I * S = 9, one zero past the full 8; W with
    // stride 2 and kernel 4: 2 trimmed, 1 at each end.
    {
        Reference const r{{1, 1, 3, 3}, {1, 2, 2, 4}, 1, {3, 2}, {1, 1}, {0, 1}, {9, 6}};
        ModelBuilder m(11);
        m.input("x", r.x);
        m.initializer(floatTensor("w", r.w, values(16, 6)));
        m.initializer(floatTensor("b", {2}, {1.5F, -1.F}));
        auto& node = m.node("ConvTranspose", {"x", "w", "b"}, {"y"}, "deconv");
        attrInts(node, "strides", {3, 2});
        attrString(node, "auto_pad", "SAME_LOWER");
        m.output("y");
        Harness h;
        ASSERT_TRUE(h.parse(m)) << h.errors();
        auto* deconv
            = static_cast<nvinfer1::IDeconvolutionLayer*>(h.layers(nvinfer1::LayerType::kDECONVOLUTION).front());
        EXPECT_EQ(deconv->getPaddingMode(), nvinfer1::PaddingMode::kEXPLICIT_ROUND_DOWN); // explicit, as computed
        std::vector<float> const x = values(9, 1);
        auto out = h.run({{"x", {r.x, x}}});
        ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
        EXPECT_EQ(out["y"].shape, (Shape{1, 2, 9, 6}));
        expectClose(out["y"].values, convTranspose(r, x, values(16, 6), {1.5F, -1.F}));
    }
}

TEST(OnnxConvTranspose, DynamicBatchWithZerosAdded)
{
    Reference const r{{3, 2, 2, 2}, {2, 1, 2, 2}, 1, {1, 1}, {1, 1}, {0, 0}, {4, 3}};
    ModelBuilder m(11);
    m.input("x", {-1, 2, 2, 2});
    m.initializer(floatTensor("w", r.w, values(8, 3)));
    m.initializer(floatTensor("b", {1}, {0.25F}));
    auto& node = m.node("ConvTranspose", {"x", "w", "b"}, {"y"}, "deconv");
    attrInts(node, "output_padding", {1, 0});
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    std::vector<float> const x = values(countOf(r.x), 4);
    auto out = h.run({{"x", {r.x, x}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].shape, (Shape{3, 1, 4, 3}));
    expectClose(out["y"].values, convTranspose(r, x, values(8, 3), {0.25F}));
}

//! x [1, 2, 3, 3] -> ConvTranspose with w [2, 2, 3, 3] (an initializer) -> y.
ModelBuilder refusable(Shape const& x = {1, 2, 3, 3}, Shape const& w = {2, 2, 3, 3})
{
    ModelBuilder m(11);
    m.input("x", x);
    m.initializer(floatTensor("w", w, values(countOf(w))));
    m.node("ConvTranspose", {"x", "w"}, {"y"}, "deconv");
    m.output("y");
    return m;
}

//! The model fails to parse with code, its first error from the ConvTranspose node containing fragment.
void refused(ModelBuilder const& m, ErrorCode code, std::string const& fragment)
{
    expectRefused(m, code, fragment, "ConvTranspose");
}

TEST(OnnxConvTranspose, Refusals)
{
    refused(refusable({2, 3}, {2, 3}), ErrorCode::kUNSUPPORTED_NODE_SHAPE,
        "the input has 2 dimensions; ConvTranspose takes 3-D, 4-D or 5-D inputs");
    refused(
        refusable({1, 3, 3, 3}), ErrorCode::kINVALID_NODE, "the input has 3 channels but the kernel [2,2,3,3] takes 2");
    refused(refusable({1, 2, 3, 3}, {2, 2, 3}), ErrorCode::kINVALID_NODE,
        "the kernel (input 1) has 3 dimensions; it needs as many as the input (4)");
    {
        ModelBuilder m = refusable();
        attrInt(convTransposeNode(m), "group", 4);
        refused(m, ErrorCode::kINVALID_NODE, "the kernel's 2 input channels are not a multiple of attribute group (4)");
    }
    {
        ModelBuilder m = refusable();
        attrInts(convTransposeNode(m), "kernel_shape", {3, 2});
        refused(m, ErrorCode::kINVALID_NODE, "attribute kernel_shape does not match");
    }
    {
        ModelBuilder m = refusable();
        attrString(convTransposeNode(m), "auto_pad", "SAME");
        refused(m, ErrorCode::kUNSUPPORTED_NODE_ATTR, "auto_pad 'SAME' is not one of");
    }
    {
        ModelBuilder m = refusable();
        attrInts(convTransposeNode(m), "pads", {1, 1});
        refused(m, ErrorCode::kINVALID_NODE, "attribute pads has 2 values; it needs 4");
    }
    {
        ModelBuilder m = refusable();
        attrInts(convTransposeNode(m), "strides", {1});
        refused(m, ErrorCode::kINVALID_NODE, "attribute strides has 1 values for 2 spatial dimensions");
    }
    {
        ModelBuilder m = refusable();
        attrInts(convTransposeNode(m), "output_padding", {-1, 0});
        refused(m, ErrorCode::kINVALID_NODE, "attribute output_padding has a negative value");
    }
    {
        ModelBuilder m = refusable({1, 2, -1, 3});
        attrInts(convTransposeNode(m), "output_shape", {5, 5});
        refused(m, ErrorCode::kUNSUPPORTED_NODE_DYNAMIC,
            "attribute output_shape needs the input's spatial extents at build time");
    }
    {
        ModelBuilder m(11);
        m.input("x", {1, 2, 3, 3}, ::onnx::TensorProto::INT32);
        m.initializer(floatTensor("w", {2, 2, 3, 3}, values(36)));
        m.node("ConvTranspose", {"x", "w"}, {"y"}, "deconv");
        m.output("y", ::onnx::TensorProto::INT32);
        refused(m, ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "ConvTranspose takes FLOAT, FLOAT16 and BFLOAT16");
    }
}

} // namespace
} // namespace kiln::onnx_test
