// SPDX-License-Identifier: Apache-2.0
// DisentangledAttention_TRT through the ONNX parser: a node of that op type with plugin_version "2" and span and
// factor as attributes (as TensorRT's DeBERTa demo writes it), found in the registry once kiln's standard plugin
// library is loaded, parsed, built and run on the host backend against a direct reference; and the refusal of a factor
// outside (0, 1).
#include "bert_plugins_support.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace kiln::onnx_test
{
namespace
{

using nvonnxparser::ErrorCode;

ModelBuilder disentangledModel(int64_t groups, int64_t seq, int64_t span, float factor)
{
    ModelBuilder m(17);
    m.input("c2c", {groups, seq, seq});
    m.input("c2p", {groups, seq, 2 * span});
    m.input("p2c", {groups, seq, 2 * span});
    auto& node = m.node("DisentangledAttention_TRT", {"c2c", "c2p", "p2c"}, {"Y"}, "deberta");
    attrString(node, "plugin_version", "2");
    attrInt(node, "span", span);
    attrFloat(node, "factor", factor);
    m.output("Y");
    return m;
}

TEST(OnnxDisentangledAttention, ThePluginNodeParsesBuildsAndRunsOnTheHost)
{
    ASSERT_EQ(loadStandardPluginLibrary(), "");
    // span 8 covers every distance of a sequence of 5 (mid 4), so the index is (j - k) + span, no log bucket.
    int64_t const groups = 2;
    int64_t const seq = 5;
    int64_t const span = 8;
    Harness h;
    ASSERT_TRUE(h.parse(disentangledModel(groups, seq, span, 0.25F))) << h.errors();
    std::vector<float> const c2c = randomValues(static_cast<size_t>(groups * seq * seq), 51);
    std::vector<float> const c2p = randomValues(static_cast<size_t>(groups * seq * 2 * span), 52);
    std::vector<float> const p2c = randomValues(static_cast<size_t>(groups * seq * 2 * span), 53);
    auto outputs = h.run({{"c2c", {{groups, seq, seq}, c2c}}, {"c2p", {{groups, seq, 2 * span}, c2p}},
        {"p2c", {{groups, seq, 2 * span}, p2c}}});
    ASSERT_EQ(outputs.count("Y"), 1U) << h.lastFailure();
    std::vector<float> expected;
    for (int64_t i = 0; i < groups; ++i)
    {
        for (int64_t j = 0; j < seq; ++j)
        {
            for (int64_t k = 0; k < seq; ++k)
            {
                int64_t const column = j - k + span;
                expected.push_back((c2c[(i * seq + j) * seq + k] + c2p[(i * seq + j) * 2 * span + column]
                                       + p2c[(i * seq + k) * 2 * span + column])
                    * 0.25F);
            }
        }
    }
    expectClose(outputs["Y"].values, expected, 1e-5F);
}

TEST(OnnxDisentangledAttention, AFactorOutsideZeroToOneIsRefused)
{
    ASSERT_EQ(loadStandardPluginLibrary(), "");
    expectRefused(disentangledModel(1, 4, 2, 1.5F), ErrorCode::kUNSUPPORTED_NODE,
        "the creator of plugin \"DisentangledAttention_TRT\" version \"2\" namespace \"\" returned nullptr",
        "DisentangledAttention_TRT", "deberta");
}

} // namespace
} // namespace kiln::onnx_test
