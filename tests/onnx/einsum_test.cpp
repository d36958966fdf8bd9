// SPDX-License-Identifier: Apache-2.0
// The Einsum importer through the public API: the equations of ONNX's five Einsum node tests (spaces included) with
// FLOAT data (ONNX's tests use DOUBLE, which kiln lacks), run end to end on the host backend against sums written out
// here; and each refusal with its code and message.
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

//! Inputs named x and y (when given) -> Einsum(equation) -> z.
ModelBuilder einsumModel(std::string const& equation, std::vector<Shape> const& shapes)
{
    ModelBuilder m(12);
    std::vector<std::string> names;
    for (std::size_t i = 0; i < shapes.size(); ++i)
    {
        names.push_back(i == 0 ? "x" : "y");
        m.input(names.back(), shapes[i]);
    }
    attrString(m.node("Einsum", names, {"z"}, "einsum"), "equation", equation);
    m.output("z");
    return m;
}

std::vector<float> ramp(std::size_t count, float scale)
{
    std::vector<float> values(count);
    for (std::size_t i = 0; i < count; ++i)
    {
        values[i] = static_cast<float>(static_cast<int64_t>(i % 7) - 3) * scale;
    }
    return values;
}

//! Parses and runs the model on the inputs and returns z (empty on failure, with a test failure).
HostTensor runEinsum(ModelBuilder const& m, std::map<std::string, HostTensor> const& inputs)
{
    Harness h;
    EXPECT_TRUE(h.parse(m)) << h.errors();
    EXPECT_EQ(h.layers(nvinfer1::LayerType::kEINSUM).size(), 1U);
    auto out = h.run(inputs);
    EXPECT_EQ(out.count("z"), 1U) << h.lastFailure();
    return out["z"];
}

void expectValues(std::vector<float> const& actual, std::vector<float> const& expected)
{
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
    {
        EXPECT_NEAR(actual[i], expected[i], 1e-5F * (1.0F + std::fabs(expected[i]))) << "element " << i;
    }
}

TEST(OnnxEinsum, TheEquationsOfOnnxsNodeTests)
{
    // test_einsum_batch_diagonal: "...ii ->...i" on [3, 5, 5].
    {
        std::vector<float> const x = ramp(75, 0.5F);
        HostTensor const z = runEinsum(einsumModel("...ii ->...i", {{3, 5, 5}}), {{"x", {{3, 5, 5}, x}}});
        EXPECT_EQ(z.shape, (Shape{3, 5}));
        std::vector<float> expected;
        for (std::size_t b = 0; b < 3; ++b)
        {
            for (std::size_t i = 0; i < 5; ++i)
            {
                expected.push_back(x[b * 25 + i * 5 + i]);
            }
        }
        expectValues(z.values, expected);
    }
    // test_einsum_batch_matmul: "bij, bjk -> bik" on [5, 2, 3] and [5, 3, 4].
    {
        std::vector<float> const x = ramp(30, 0.5F);
        std::vector<float> const y = ramp(60, 0.25F);
        HostTensor const z = runEinsum(
            einsumModel("bij, bjk -> bik", {{5, 2, 3}, {5, 3, 4}}), {{"x", {{5, 2, 3}, x}}, {"y", {{5, 3, 4}, y}}});
        EXPECT_EQ(z.shape, (Shape{5, 2, 4}));
        std::vector<float> expected;
        for (std::size_t b = 0; b < 5; ++b)
        {
            for (std::size_t i = 0; i < 2; ++i)
            {
                for (std::size_t k = 0; k < 4; ++k)
                {
                    float sum = 0.F;
                    for (std::size_t j = 0; j < 3; ++j)
                    {
                        sum += x[b * 6 + i * 3 + j] * y[b * 12 + j * 4 + k];
                    }
                    expected.push_back(sum);
                }
            }
        }
        expectValues(z.values, expected);
    }
    // test_einsum_inner_prod: "i,i" on [5] and [5], a 0-D result.
    {
        std::vector<float> const x{1, 2, 3, 4, 5};
        std::vector<float> const y{0.5F, -1, 2, 0, 3};
        HostTensor const z = runEinsum(einsumModel("i,i", {{5}, {5}}), {{"x", {{5}, x}}, {"y", {{5}, y}}});
        EXPECT_EQ(z.shape, Shape{});
        expectValues(z.values, {0.5F - 2 + 6 + 0 + 15});
    }
    // test_einsum_sum: "ij->i" on [3, 4].
    {
        std::vector<float> const x = ramp(12, 1.0F);
        HostTensor const z = runEinsum(einsumModel("ij->i", {{3, 4}}), {{"x", {{3, 4}, x}}});
        EXPECT_EQ(z.shape, (Shape{3}));
        expectValues(z.values, {x[0] + x[1] + x[2] + x[3], x[4] + x[5] + x[6] + x[7], x[8] + x[9] + x[10] + x[11]});
    }
    // test_einsum_transpose: "ij->ji" on [3, 4].
    {
        std::vector<float> const x = ramp(12, 1.0F);
        HostTensor const z = runEinsum(einsumModel("ij->ji", {{3, 4}}), {{"x", {{3, 4}, x}}});
        EXPECT_EQ(z.shape, (Shape{4, 3}));
        std::vector<float> expected;
        for (std::size_t j = 0; j < 4; ++j)
        {
            for (std::size_t i = 0; i < 3; ++i)
            {
                expected.push_back(x[i * 4 + j]);
            }
        }
        expectValues(z.values, expected);
    }
}

TEST(OnnxEinsum, ImplicitOutputAndBroadcasting)
{
    // "ij,jk" is a matrix product (implicit output "ik"); "...j,...j" broadcasts [2, 3] against [3].
    std::vector<float> const x{1, 2, 3, 4, 5, 6};
    std::vector<float> const y{1, 0, 0, 1, 1, 1};
    HostTensor const product
        = runEinsum(einsumModel("ij,jk", {{2, 3}, {3, 2}}), {{"x", {{2, 3}, x}}, {"y", {{3, 2}, y}}});
    EXPECT_EQ(product.shape, (Shape{2, 2}));
    expectValues(product.values, {4, 5, 10, 11});
    HostTensor const dots
        = runEinsum(einsumModel("...j,...j", {{2, 3}, {3}}), {{"x", {{2, 3}, x}}, {"y", {{3}, {1, 10, 100}}}});
    EXPECT_EQ(dots.shape, (Shape{2}));
    expectValues(dots.values, {321, 654});
}

//! The model fails to parse with code, its first error from the Einsum node containing fragment.
void refused(ModelBuilder const& m, ErrorCode code, std::string const& fragment)
{
    expectRefused(m, code, fragment, "Einsum");
}

TEST(OnnxEinsum, Refusals)
{
    {
        ModelBuilder m(12);
        m.input("a", {2});
        m.input("b", {2});
        m.input("c", {2});
        attrString(m.node("Einsum", {"a", "b", "c"}, {"z"}, "einsum"), "equation", "i,i,i");
        m.output("z");
        refused(m, ErrorCode::kUNSUPPORTED_NODE, "Einsum has 3 inputs; kiln's Einsum layer takes one or two");
    }
    {
        ModelBuilder m(12);
        m.input("x", {2});
        m.node("Einsum", {"x"}, {"z"}, "einsum");
        m.output("z");
        refused(m, ErrorCode::kINVALID_NODE, "Einsum needs the attribute equation");
    }
    refused(einsumModel("ij->j#", {{2, 3}}), ErrorCode::kINVALID_NODE, "the equation 'ij->j#' has the character '#'");
    {
        ModelBuilder m(12);
        m.input("x", {2, 3}, ::onnx::TensorProto::INT32);
        attrString(m.node("Einsum", {"x"}, {"z"}, "einsum"), "equation", "ij->ji");
        m.output("z", ::onnx::TensorProto::INT32);
        refused(m, ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "Einsum input 0 is kINT32");
    }
    // An equation that does not fit the inputs: the layer refuses it (its message is in the log).
    {
        ModelBuilder m = einsumModel("ijk->i", {{2, 3}});
        Harness h;
        EXPECT_FALSE(h.parse(m));
        ASSERT_NE(h.firstError(), nullptr);
        EXPECT_EQ(h.firstError()->code(), ErrorCode::kUNSUPPORTED_NODE) << h.errors();
        EXPECT_NE(h.lastFailure().find("term 0 has 3 labels but input 0 has rank 2"), std::string::npos)
            << h.lastFailure();
    }
}

} // namespace
} // namespace kiln::onnx_test
