// SPDX-License-Identifier: Apache-2.0
// Attention and RotaryEmbedding (opset 23) through the public API, run on the host backend against references
// computed here on random data: 4-D and 3-D inputs, grouped-query heads, float and boolean masks, causal masking,
// interleaved and partial rotations, position ids; and each refusal with its code, message and node.
#include "checks.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace kiln::onnx_test
{
namespace
{

using nvonnxparser::ErrorCode;

//! The sizes of one attention: Q [b, qHeads, qLength, size], K [b, kvHeads, kvLength, size], V [..., vSize].
struct AttentionShape
{
    int64_t b;
    int64_t qHeads;
    int64_t kvHeads;
    int64_t qLength;
    int64_t kvLength;
    int64_t size;
    int64_t vSize;
};

//! What is added to score (b, h, i, j) before the softmax (0 or -inf for boolean masks).
using Bias = std::function<double(int64_t b, int64_t h, int64_t i, int64_t j)>;

//! softmax(Q K^T * scale + bias) V per head, [b, qHeads, qLength, vSize].
std::vector<float> referenceAttention(AttentionShape const& s, std::vector<float> const& q, std::vector<float> const& k,
    std::vector<float> const& v, double scale, Bias const& bias)
{
    std::vector<float> out;
    int64_t const group = s.qHeads / s.kvHeads;
    for (int64_t b = 0; b < s.b; ++b)
    {
        for (int64_t h = 0; h < s.qHeads; ++h)
        {
            int64_t const kvHead = h / group;
            for (int64_t i = 0; i < s.qLength; ++i)
            {
                std::vector<double> scores(static_cast<size_t>(s.kvLength));
                double top = -std::numeric_limits<double>::infinity();
                for (int64_t j = 0; j < s.kvLength; ++j)
                {
                    double dot = 0.0;
                    for (int64_t d = 0; d < s.size; ++d)
                    {
                        dot += static_cast<double>(
                                   q[static_cast<size_t>(((b * s.qHeads + h) * s.qLength + i) * s.size + d)])
                            * k[static_cast<size_t>(((b * s.kvHeads + kvHead) * s.kvLength + j) * s.size + d)];
                    }
                    scores[static_cast<size_t>(j)] = dot * scale + bias(b, h, i, j);
                    top = std::max(top, scores[static_cast<size_t>(j)]);
                }
                double total = 0.0;
                for (double& score : scores)
                {
                    score = std::exp(score - top);
                    total += score;
                }
                for (int64_t e = 0; e < s.vSize; ++e)
                {
                    double sum = 0.0;
                    for (int64_t j = 0; j < s.kvLength; ++j)
                    {
                        sum += scores[static_cast<size_t>(j)] / total
                            * v[static_cast<size_t>(((b * s.kvHeads + kvHead) * s.kvLength + j) * s.vSize + e)];
                    }
                    out.push_back(static_cast<float>(sum));
                }
            }
        }
    }
    return out;
}

//! [b, heads, length, size] as [b, length, heads * size].
std::vector<float> mergeHeads(std::vector<float> const& x, int64_t b, int64_t heads, int64_t length, int64_t size)
{
    std::vector<float> out(x.size());
    for (int64_t n = 0; n < b; ++n)
    {
        for (int64_t h = 0; h < heads; ++h)
        {
            for (int64_t t = 0; t < length; ++t)
            {
                for (int64_t d = 0; d < size; ++d)
                {
                    out[static_cast<size_t>(((n * length + t) * heads + h) * size + d)]
                        = x[static_cast<size_t>(((n * heads + h) * length + t) * size + d)];
                }
            }
        }
    }
    return out;
}

double const kMinusInfinity = -std::numeric_limits<double>::infinity();

TEST(OnnxAttention, FourDimensionalWithTheDefaultScale)
{
    AttentionShape const s{2, 2, 2, 3, 5, 8, 4};
    ModelBuilder m(23);
    m.input("q", {2, 2, 3, 8});
    m.input("k", {2, 2, 5, 8});
    m.input("v", {2, 2, 5, 4});
    m.node("Attention", {"q", "k", "v"}, {"y"}, "attention");
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    std::vector<float> const q = randomValues(96, 10);
    std::vector<float> const k = randomValues(160, 11);
    std::vector<float> const v = randomValues(80, 12);
    auto out = h.run({{"q", {{2, 2, 3, 8}, q}}, {"k", {{2, 2, 5, 8}, k}}, {"v", {{2, 2, 5, 4}, v}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].shape, (Shape{2, 2, 3, 4}));
    expectClose(out["y"].values,
        referenceAttention(s, q, k, v, 1.0 / std::sqrt(8.0), [](int64_t, int64_t, int64_t, int64_t) { return 0.0; }),
        1e-5F);
}

TEST(OnnxAttention, GroupedQueryHeadsCausalWithAScale)
{
    AttentionShape const s{1, 4, 2, 4, 4, 6, 6};
    ModelBuilder m(23);
    m.input("q", {1, 4, 4, 6});
    m.input("k", {1, 2, 4, 6});
    m.input("v", {1, 2, 4, 6});
    auto& node = m.node("Attention", {"q", "k", "v"}, {"y"}, "attention");
    attrInt(node, "is_causal", 1);
    attrFloat(node, "scale", 0.3F);
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    EXPECT_EQ(h.layers(nvinfer1::LayerType::kGATHER).size(), 2U) << "K and V heads repeated for the query groups";
    std::vector<float> const q = randomValues(96, 13);
    std::vector<float> const k = randomValues(48, 14);
    std::vector<float> const v = randomValues(48, 15);
    auto out = h.run({{"q", {{1, 4, 4, 6}, q}}, {"k", {{1, 2, 4, 6}, k}}, {"v", {{1, 2, 4, 6}, v}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    Bias const causal = [](int64_t, int64_t, int64_t i, int64_t j) { return j > i ? kMinusInfinity : 0.0; };
    expectClose(out["y"].values, referenceAttention(s, q, k, v, static_cast<double>(0.3F), causal), 1e-5F);
}

TEST(OnnxAttention, ThreeDimensionalWithAFloatMask)
{
    AttentionShape const s{2, 2, 2, 3, 4, 4, 4};
    ModelBuilder m(23);
    m.input("q", {2, 3, 8});
    m.input("k", {2, 4, 8});
    m.input("v", {2, 4, 8});
    std::vector<float> const mask = randomValues(12, 16, -2.0F, 2.0F);
    m.initializer(floatTensor("mask", {3, 4}, mask));
    auto& node = m.node("Attention", {"q", "k", "v", "mask"}, {"y"}, "attention");
    attrInt(node, "q_num_heads", 2);
    attrInt(node, "kv_num_heads", 2);
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    std::vector<float> const q = randomValues(48, 17);
    std::vector<float> const k = randomValues(64, 18);
    std::vector<float> const v = randomValues(64, 19);
    // The reference takes heads first: Q [2, 3, 2 * 4] is [2, 3, 2, 4] transposed.
    auto const split = [](std::vector<float> const& x, int64_t length) {
        std::vector<float> out(x.size());
        for (int64_t n = 0; n < 2; ++n)
            for (int64_t t = 0; t < length; ++t)
                for (int64_t head = 0; head < 2; ++head)
                    for (int64_t d = 0; d < 4; ++d)
                        out[static_cast<size_t>(((n * 2 + head) * length + t) * 4 + d)]
                            = x[static_cast<size_t>(((n * length + t) * 2 + head) * 4 + d)];
        return out;
    };
    auto out = h.run({{"q", {{2, 3, 8}, q}}, {"k", {{2, 4, 8}, k}}, {"v", {{2, 4, 8}, v}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].shape, (Shape{2, 3, 8}));
    Bias const added = [&](int64_t, int64_t, int64_t i, int64_t j) { return mask[static_cast<size_t>(i * 4 + j)]; };
    std::vector<float> const expected = referenceAttention(s, split(q, 3), split(k, 4), split(v, 4), 0.5, added);
    expectClose(out["y"].values, mergeHeads(expected, 2, 2, 3, 4), 1e-5F);
}

TEST(OnnxAttention, BooleanMaskKeepsTheTrueScores)
{
    AttentionShape const s{2, 1, 1, 2, 3, 4, 4};
    ModelBuilder m(23);
    m.input("q", {2, 1, 2, 4});
    m.input("k", {2, 1, 3, 4});
    m.input("v", {2, 1, 3, 4});
    std::vector<uint8_t> const keep{1, 0, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1};
    m.initializer(boolTensor("mask", {2, 1, 2, 3}, keep));
    m.node("Attention", {"q", "k", "v", "mask"}, {"y"}, "attention");
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    std::vector<float> const q = randomValues(16, 20);
    std::vector<float> const k = randomValues(24, 21);
    std::vector<float> const v = randomValues(24, 22);
    auto out = h.run({{"q", {{2, 1, 2, 4}, q}}, {"k", {{2, 1, 3, 4}, k}}, {"v", {{2, 1, 3, 4}, v}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    Bias const masked = [&](int64_t b, int64_t, int64_t i, int64_t j) {
        return keep[static_cast<size_t>((b * 2 + i) * 3 + j)] != 0 ? 0.0 : kMinusInfinity;
    };
    expectClose(out["y"].values, referenceAttention(s, q, k, v, 0.5, masked), 1e-5F);
}

//! Q, K, V [1, 2, 3, 4] -> Attention -> y; the caller adds inputs, outputs and attributes.
ModelBuilder attentionModel(std::vector<std::string> const& inputs, std::vector<std::string> const& outputs)
{
    ModelBuilder m(23);
    for (char const* name : {"q", "k", "v"})
    {
        m.input(name, {1, 2, 3, 4});
    }
    m.node("Attention", inputs, outputs, "attention");
    m.output("y");
    return m;
}

TEST(OnnxAttention, Refusals)
{
    {
        ModelBuilder m = attentionModel({"q", "k", "v", "", "past"}, {"y"});
        m.input("past", {1, 2, 3, 4});
        expectRefused(
            m, ErrorCode::kUNSUPPORTED_NODE_INPUT, "input past_key is not supported", "Attention", "attention");
    }
    {
        ModelBuilder m = attentionModel({"q", "k", "v"}, {"y", "present_key"});
        expectRefused(
            m, ErrorCode::kUNSUPPORTED_NODE, "output 1 (present_key) is not supported", "Attention", "attention");
    }
    {
        ModelBuilder m = attentionModel({"q", "k", "v"}, {"y", "", "", "qk"});
        expectRefused(m, ErrorCode::kUNSUPPORTED_NODE, "output 3 (qk) is not supported", "Attention", "attention");
    }
    {
        ModelBuilder m = attentionModel({"q", "k", "v"}, {"y"});
        attrFloat(*m.graph().mutable_node(0), "softcap", 30.0F);
        expectRefused(m, ErrorCode::kUNSUPPORTED_NODE_ATTR, "softcap is not supported", "Attention", "attention");
    }
    {
        ModelBuilder m = attentionModel({"q", "k", "v"}, {"y"});
        attrInt(*m.graph().mutable_node(0), "qk_matmul_output_mode", 1);
        expectRefused(
            m, ErrorCode::kUNSUPPORTED_NODE_ATTR, "qk_matmul_output_mode is not supported", "Attention", "attention");
    }
    {
        ModelBuilder m(23);
        m.input("q", {1, 3, 8});
        m.input("k", {1, 3, 8});
        m.input("v", {1, 3, 8});
        m.node("Attention", {"q", "k", "v"}, {"y"}, "attention");
        m.output("y");
        expectRefused(m, ErrorCode::kINVALID_NODE, "attribute q_num_heads must be positive", "Attention", "attention");
    }
    {
        ModelBuilder m(23);
        m.input("q", {1, 3, 2, 4});
        m.input("k", {1, 2, 2, 4});
        m.input("v", {1, 2, 2, 4});
        m.node("Attention", {"q", "k", "v"}, {"y"}, "attention");
        m.output("y");
        expectRefused(m, ErrorCode::kINVALID_NODE, "Q has 3 heads, K 2", "Attention", "attention");
    }
}

//! ONNX's reference on X [b, heads, length, size] (heads first), with cos/sin [b, length, >= rotated / 2].
std::vector<float> referenceRotary(std::vector<float> const& x, int64_t b, int64_t heads, int64_t length, int64_t size,
    int64_t rotated, bool interleaved, std::function<float(int64_t, int64_t, int64_t)> const& cos,
    std::function<float(int64_t, int64_t, int64_t)> const& sin)
{
    std::vector<float> out(x);
    int64_t const half = rotated / 2;
    for (int64_t n = 0; n < b; ++n)
        for (int64_t h = 0; h < heads; ++h)
            for (int64_t t = 0; t < length; ++t)
            {
                int64_t const base = ((n * heads + h) * length + t) * size;
                for (int64_t i = 0; i < half; ++i)
                {
                    int64_t const first = base + (interleaved ? 2 * i : i);
                    int64_t const second = base + (interleaved ? 2 * i + 1 : i + half);
                    float const x1 = x[static_cast<size_t>(first)];
                    float const x2 = x[static_cast<size_t>(second)];
                    out[static_cast<size_t>(first)] = cos(n, t, i) * x1 - sin(n, t, i) * x2;
                    out[static_cast<size_t>(second)] = sin(n, t, i) * x1 + cos(n, t, i) * x2;
                }
            }
    return out;
}

TEST(OnnxRotaryEmbedding, FourDimensionalWithPositionIds)
{
    for (int64_t interleaved : {0, 1})
    {
        for (int64_t rotated : {0, 4})
        {
            ModelBuilder m(23);
            m.input("x", {2, 2, 3, 8});
            std::vector<float> const cos = randomValues(20, 30);
            std::vector<float> const sin = randomValues(20, 31);
            std::vector<int64_t> const positions{4, 0, 2, 1, 1, 3};
            m.initializer(floatTensor("cos", {5, 4}, cos));
            m.initializer(floatTensor("sin", {5, 4}, sin));
            m.initializer(int64Tensor("positions", {2, 3}, positions));
            auto& node = m.node("RotaryEmbedding", {"x", "cos", "sin", "positions"}, {"y"}, "rotary");
            attrInt(node, "interleaved", interleaved);
            attrInt(node, "rotary_embedding_dim", rotated);
            m.output("y");
            Harness h;
            ASSERT_TRUE(h.parse(m)) << h.errors();
            std::vector<float> const x = randomValues(96, 32);
            auto out = h.run({{"x", {{2, 2, 3, 8}, x}}});
            ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
            auto const at = [&](std::vector<float> const& cache) {
                return [&](int64_t n, int64_t t, int64_t i) {
                    return cache[static_cast<size_t>(positions[static_cast<size_t>(n * 3 + t)] * 4 + i)];
                };
            };
            std::vector<float> const expected
                = referenceRotary(x, 2, 2, 3, 8, rotated == 0 ? 8 : rotated, interleaved != 0, at(cos), at(sin));
            expectClose(out["y"].values, expected, 1e-6F);
        }
    }
}

TEST(OnnxRotaryEmbedding, ThreeDimensionalWithPerTokenCaches)
{
    ModelBuilder m(23);
    m.input("x", {2, 3, 12}); // 3 heads of 4
    m.input("cos", {2, 3, 2});
    m.input("sin", {2, 3, 2});
    attrInt(m.node("RotaryEmbedding", {"x", "cos", "sin"}, {"y"}, "rotary"), "num_heads", 3);
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    std::vector<float> const x = randomValues(72, 33);
    std::vector<float> const cos = randomValues(12, 34);
    std::vector<float> const sin = randomValues(12, 35);
    auto out = h.run({{"x", {{2, 3, 12}, x}}, {"cos", {{2, 3, 2}, cos}}, {"sin", {{2, 3, 2}, sin}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].shape, (Shape{2, 3, 12}));
    // X as [2, 3, 3, 4] is heads second; the reference takes [b, heads, length, size]: view it as heads = 1 per
    // (token, head) row, length = tokens * heads, with the cache index the token.
    auto const at = [](std::vector<float> const& cache) {
        return [&cache](
                   int64_t n, int64_t row, int64_t i) { return cache[static_cast<size_t>((n * 3 + row / 3) * 2 + i)]; };
    };
    expectClose(out["y"].values, referenceRotary(x, 2, 1, 9, 4, 4, false, at(cos), at(sin)), 1e-6F);
}

TEST(OnnxRotaryEmbedding, Refusals)
{
    {
        ModelBuilder m(23);
        m.input("x", {1, 2, 3, 8});
        m.input("cos", {1, 3, 4});
        m.input("sin", {1, 3, 4});
        attrInt(m.node("RotaryEmbedding", {"x", "cos", "sin"}, {"y"}, "rotary"), "rotary_embedding_dim", 5);
        m.output("y");
        expectRefused(
            m, ErrorCode::kINVALID_NODE, "rotary_embedding_dim is 5; it must be even", "RotaryEmbedding", "rotary");
    }
    {
        ModelBuilder m(23);
        m.input("x", {1, 3, 8});
        m.input("cos", {1, 3, 4});
        m.input("sin", {1, 3, 4});
        m.node("RotaryEmbedding", {"x", "cos", "sin"}, {"y"}, "rotary");
        m.output("y");
        expectRefused(m, ErrorCode::kINVALID_NODE, "num_heads (0) must be positive", "RotaryEmbedding", "rotary");
    }
    {
        ModelBuilder m(23);
        m.input("x", {1, 2, 3, 8});
        m.initializer(floatTensor("cos", {4, 4}, std::vector<float>(16, 1.0F)));
        m.initializer(floatTensor("sin", {4, 4}, std::vector<float>(16, 0.0F)));
        m.initializer(floatTensor("positions", {1, 3}, {0, 1, 2}));
        m.node("RotaryEmbedding", {"x", "cos", "sin", "positions"}, {"y"}, "rotary");
        m.output("y");
        expectRefused(m, ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "it must be INT64", "RotaryEmbedding", "rotary");
    }
}

} // namespace
} // namespace kiln::onnx_test
