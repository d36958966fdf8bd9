// SPDX-License-Identifier: Apache-2.0
// gtest checks the ONNX importer tests share: seeded random data, element-wise comparison with a tolerance, and a
// refused model's first error (its code, a fragment of its message, and the node it names).
//
//     std::vector<float> x = randomValues(24, 7);
//     expectClose(out["y"].values, expected, 1e-5F);
//     expectRefused(m, ErrorCode::kUNSUPPORTED_NODE_ATTR, "p is 3", "LpNormalization", "norm");
#pragma once

#include "model_builder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace kiln::onnx_test
{

//! count values uniform in [low, high) from a generator seeded with seed.
inline std::vector<float> randomValues(size_t count, uint32_t seed, float low = -1.0F, float high = 1.0F)
{
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> uniform(low, high);
    std::vector<float> values(count);
    for (float& v : values)
    {
        v = uniform(random);
    }
    return values;
}

//! Every element within tolerance * max(1, |expected|) of expected.
inline void expectClose(std::vector<float> const& actual, std::vector<float> const& expected, float tolerance)
{
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i)
    {
        EXPECT_NEAR(actual[i], expected[i], tolerance * std::max(1.0F, std::fabs(expected[i]))) << "element " << i;
    }
}

//! The model fails to parse; the first error has code and contains fragment, and names the node's op type and name
//! where they are given.
inline void expectRefused(ModelBuilder const& m, nvonnxparser::ErrorCode code, std::string const& fragment,
    char const* opType = nullptr, char const* nodeName = nullptr)
{
    Harness h;
    EXPECT_FALSE(h.parse(m));
    nvonnxparser::IParserError const* error = h.firstError();
    ASSERT_NE(error, nullptr);
    EXPECT_EQ(error->code(), code) << h.errors();
    EXPECT_NE(std::string(error->desc()).find(fragment), std::string::npos) << h.errors();
    if (opType != nullptr)
    {
        EXPECT_STREQ(opType, error->nodeOperator()) << h.errors();
    }
    if (nodeName != nullptr)
    {
        EXPECT_STREQ(nodeName, error->nodeName()) << h.errors();
    }
}

} // namespace kiln::onnx_test
