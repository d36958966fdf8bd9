// SPDX-License-Identifier: Apache-2.0
// Parsing is linear in the model's size: a chain of 200 transformer-style blocks (LayerNormalization, a product, a
// residual addition and a reshape to a computed shape) on a dynamic batch parses, builds and runs on the host backend.
// Each tensor's shape is computed once: before, every query walked each path back to the inputs, which doubles at
// every residual addition (2^200 here), and a 12-layer BERT never finished parsing. The parse has a deadline, so a
// regression fails here rather than hanging the suite.
#include "checks.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <string>
#include <vector>

namespace kiln::onnx_test
{
namespace
{

constexpr int kBlocks = 200;
constexpr int64_t kWidth = 8;

//! x [-1, 4, 8] through kBlocks of x = Reshape(x + LayerNormalization(x) W_i, Shape(x)).
ModelBuilder blockChain(std::vector<std::vector<float>>& weights)
{
    ModelBuilder m(17);
    m.input("x0", {-1, 4, kWidth});
    m.initializer(floatTensor("scale", {kWidth}, std::vector<float>(kWidth, 1.0F)));
    m.initializer(floatTensor("bias", {kWidth}, std::vector<float>(kWidth, 0.0F)));
    for (int i = 0; i < kBlocks; ++i)
    {
        std::string const x = "x" + std::to_string(i);
        std::string const b = "b" + std::to_string(i) + "_";
        weights.push_back(randomValues(kWidth * kWidth, static_cast<uint32_t>(i) + 1, -0.1F, 0.1F));
        m.initializer(floatTensor(b + "w", {kWidth, kWidth}, weights.back()));
        attrFloat(m.node("LayerNormalization", {x, "scale", "bias"}, {b + "norm"}, b + "ln"), "epsilon", 1e-5F);
        m.node("MatMul", {b + "norm", b + "w"}, {b + "mm"}, b + "matmul");
        m.node("Add", {x, b + "mm"}, {b + "sum"}, b + "residual");
        m.node("Shape", {x}, {b + "shape"}, b + "shape");
        m.node("Reshape", {b + "sum", b + "shape"}, {"x" + std::to_string(i + 1)}, b + "reshape");
    }
    m.output("x" + std::to_string(kBlocks));
    return m;
}

//! The same chain on the host, in double.
std::vector<float> reference(std::vector<float> x, std::vector<std::vector<float>> const& weights)
{
    std::size_t const rows = x.size() / kWidth;
    for (auto const& w : weights)
    {
        std::vector<float> next(x.size());
        for (std::size_t r = 0; r < rows; ++r)
        {
            float const* row = &x[r * kWidth];
            double mean = 0.0;
            double variance = 0.0;
            for (int64_t i = 0; i < kWidth; ++i)
            {
                mean += row[i] / static_cast<double>(kWidth);
            }
            for (int64_t i = 0; i < kWidth; ++i)
            {
                variance += (row[i] - mean) * (row[i] - mean) / static_cast<double>(kWidth);
            }
            for (int64_t j = 0; j < kWidth; ++j)
            {
                double sum = 0.0;
                for (int64_t i = 0; i < kWidth; ++i)
                {
                    sum += (row[i] - mean) / std::sqrt(variance + 1e-5) * w[static_cast<std::size_t>(i * kWidth + j)];
                }
                next[r * kWidth + static_cast<std::size_t>(j)] = static_cast<float>(row[j] + sum);
            }
        }
        x = std::move(next);
    }
    return x;
}

TEST(OnnxModelSize, TwoHundredNormalizationAndResidualBlocksParseBuildAndRun)
{
    std::vector<std::vector<float>> weights;
    ModelBuilder const m = blockChain(weights);
    std::string const bytes = m.bytes();
    Harness h;
    // Generous even for the sanitizer builds (a fraction of a second in a release build); the old exponential walk
    // would never finish.
    auto parsed = std::async(std::launch::async, [&] { return h.parse(bytes); });
    if (parsed.wait_for(std::chrono::seconds(120)) != std::future_status::ready)
    {
        std::fprintf(stderr, "OnnxModelSize: parsing %d blocks took more than 120 s\n", kBlocks);
        std::_Exit(1); // the parse cannot be stopped; a hung test would only time out later
    }
    ASSERT_TRUE(parsed.get()) << h.errors();
    std::vector<float> const x = randomValues(2 * 4 * kWidth, 11);
    auto out = h.run({{"x0", {{2, 4, kWidth}, x}}});
    std::string const last = "x" + std::to_string(kBlocks);
    ASSERT_EQ(out.count(last), 1U) << h.lastFailure();
    EXPECT_EQ(out[last].shape, (Shape{2, 4, kWidth}));
    expectClose(out[last].values, reference(x, weights), 1e-3F);
}

} // namespace
} // namespace kiln::onnx_test
