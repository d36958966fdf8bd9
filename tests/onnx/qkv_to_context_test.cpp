// SPDX-License-Identifier: Apache-2.0
// CustomQKVToContextPluginDynamic through the ONNX parser: a node of that op type with plugin_version "4", type_id,
// hidden_size, num_heads and has_mask as attributes and the mask index as its second input, found in the registry once
// kiln's standard plugin library is loaded, parsed, built and run on the host backend against a direct reference
// (per head softmax(Q K^T / sqrt(H)) V over the first mask-index keys).
#include "bert_plugins_support.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace kiln::onnx_test
{
namespace
{

TEST(OnnxQkvToContext, ThePluginNodeParsesBuildsAndRunsOnTheHost)
{
    ASSERT_EQ(loadStandardPluginLibrary(), "");
    int64_t const seq = 4;
    int64_t const batch = 2;
    int64_t const heads = 2;
    int64_t const headSize = 3;
    int64_t const hidden = heads * headSize;
    Shape const qkvShape{seq, batch, 3 * hidden, 1, 1};
    ModelBuilder m(17);
    m.input("qkv", qkvShape);
    m.input("mask", {batch, 1}, ::onnx::TensorProto::INT32);
    auto& node = m.node("CustomQKVToContextPluginDynamic", {"qkv", "mask"}, {"Y"}, "attention");
    attrString(node, "plugin_version", "4");
    attrInt(node, "type_id", 0);
    attrInt(node, "hidden_size", hidden);
    attrInt(node, "num_heads", heads);
    attrInt(node, "has_mask", 1);
    m.output("Y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    std::vector<float> const qkv = randomValues(static_cast<size_t>(seq * batch * 3 * hidden), 41, -1.5F, 1.5F);
    std::vector<int32_t> const mask{3, 4};
    auto outputs = h.run({{"qkv", {qkvShape, qkv}}, {"mask", {{batch, 1}, intBits(mask)}}});
    ASSERT_EQ(outputs.count("Y"), 1U) << h.lastFailure();
    EXPECT_EQ(outputs["Y"].shape, (Shape{seq, batch, hidden, 1, 1}));
    // Row (s, b) of the input holds [heads, 3, headSize]: query, key, value of each head side by side.
    auto at = [&](int64_t s, int64_t b, int64_t n, int64_t part, int64_t k) {
        return static_cast<double>(qkv[((s * batch + b) * heads + n) * 3 * headSize + part * headSize + k]);
    };
    std::vector<float> expected;
    for (int64_t s = 0; s < seq; ++s)
    {
        for (int64_t b = 0; b < batch; ++b)
        {
            for (int64_t n = 0; n < heads; ++n)
            {
                std::vector<double> p;
                for (int64_t j = 0; j < mask[b]; ++j)
                {
                    double dot = 0.0;
                    for (int64_t k = 0; k < headSize; ++k)
                    {
                        dot += at(s, b, n, 0, k) * at(j, b, n, 1, k);
                    }
                    p.push_back(dot / std::sqrt(static_cast<double>(headSize)));
                }
                double const top = *std::max_element(p.begin(), p.end());
                double total = 0.0;
                for (double& v : p)
                {
                    v = std::exp(v - top);
                    total += v;
                }
                for (int64_t k = 0; k < headSize; ++k)
                {
                    double sum = 0.0;
                    for (int64_t j = 0; j < mask[b]; ++j)
                    {
                        sum += p[j] / total * at(j, b, n, 2, k);
                    }
                    expected.push_back(static_cast<float>(sum));
                }
            }
        }
    }
    expectClose(outputs["Y"].values, expected, 1e-5F);
}

} // namespace
} // namespace kiln::onnx_test
