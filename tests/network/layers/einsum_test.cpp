// SPDX-License-Identifier: Apache-2.0
// IEinsumLayer: the equation as given, the inputs, the output's type and shape (explicit and implicit outputs, "...",
// broadcasting, unknown extents), setEquation, and every refusal with its message.
#include "support/api_test.h"

#include <string>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

class EinsumTest : public ApiTest
{
};

TEST_F(EinsumTest, ParametersAndOutput)
{
    nvinfer1::ITensor* a = input("a", dims({2, -1, 3}), DataType::kBF16);
    nvinfer1::ITensor* b = input("b", dims({2, 3, 5}), DataType::kBF16);
    nvinfer1::ITensor* operands[] = {a, b};
    std::string equation = "bij,bjk->bik";
    nvinfer1::IEinsumLayer* layer = mNetwork->addEinsum(operands, 2, equation.c_str());
    ASSERT_NE(layer, nullptr);
    equation = "overwritten"; // The layer keeps its own copy.
    EXPECT_EQ(layer->getType(), nvinfer1::LayerType::kEINSUM);
    EXPECT_STREQ(layer->getName(), "(Unnamed Layer* 0) [Einsum]");
    EXPECT_STREQ(layer->getEquation(), "bij,bjk->bik");
    ASSERT_EQ(layer->getNbInputs(), 2);
    EXPECT_EQ(layer->getInput(0), a);
    EXPECT_EQ(layer->getInput(1), b);
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kBF16);
    EXPECT_DIMS(layer->getOutput(0)->getDimensions(), {2, -1, 5});

    EXPECT_TRUE(layer->setEquation("bij,bjk"));
    EXPECT_STREQ(layer->getEquation(), "bij,bjk");
    // Implicit: the labels that appear once (i, k), in alphabetical order; b appears twice, so it is summed.
    EXPECT_DIMS(layer->getOutput(0)->getDimensions(), {-1, 5});
    EXPECT_TRUE(layer->setEquation("bij,bjk->kb"));
    EXPECT_DIMS(layer->getOutput(0)->getDimensions(), {5, 2});
    expectNoError();
}

TEST_F(EinsumTest, OneInputEllipsisAndBroadcasting)
{
    nvinfer1::ITensor* x = input("x", dims({3, 5, 5}));
    nvinfer1::IEinsumLayer* diagonal = mNetwork->addEinsum(&x, 1, "...ii ->...i");
    ASSERT_NE(diagonal, nullptr);
    EXPECT_DIMS(diagonal->getOutput(0)->getDimensions(), {3, 5});
    nvinfer1::IEinsumLayer* trace = mNetwork->addEinsum(&x, 1, "bii");
    ASSERT_NE(trace, nullptr);
    EXPECT_DIMS(trace->getOutput(0)->getDimensions(), {3});
    nvinfer1::ITensor* p = input("p", dims({2, 1, 4, 6}));
    nvinfer1::ITensor* q = input("q", dims({7, 6, 3}));
    nvinfer1::ITensor* both[] = {p, q};
    nvinfer1::IEinsumLayer* product = mNetwork->addEinsum(both, 2, "...ij,...jk->...ik");
    ASSERT_NE(product, nullptr);
    EXPECT_DIMS(product->getOutput(0)->getDimensions(), {2, 7, 4, 3});
    expectNoError();
}

TEST_F(EinsumTest, Refusals)
{
    nvinfer1::ITensor* a = input("a", dims({2, 3}));
    nvinfer1::ITensor* b = input("b", dims({3, 4}));
    nvinfer1::ITensor* h = input("h", dims({3, 4}), DataType::kHALF);
    nvinfer1::ITensor* i = input("i", dims({3, 4}), DataType::kINT32);
    nvinfer1::ITensor* three[] = {a, b, b};
    EXPECT_EQ(mNetwork->addEinsum(three, 3, "ij,jk,kl->il"), nullptr);
    expectError({"INetworkDefinition::addEinsum", "nbInputs is 3; kiln's Einsum takes one or two inputs"});
    EXPECT_EQ(mNetwork->addEinsum(three, 0, ""), nullptr);
    expectError({"nbInputs is 0"});
    EXPECT_EQ(mNetwork->addEinsum(three, 2, nullptr), nullptr);
    expectError({"the equation is null"});
    nvinfer1::ITensor* mixed[] = {a, h};
    EXPECT_EQ(mNetwork->addEinsum(mixed, 2, "ij,jk->ik"), nullptr);
    expectError({"input \"h\" is kHALF; an Einsum takes inputs of one type, kFLOAT, kHALF or kBF16"});
    EXPECT_EQ(mNetwork->addEinsum(&i, 1, "ij->ji"), nullptr);
    expectError({"input \"i\" is kINT32"});
    nvinfer1::ITensor* pair[] = {a, b};
    EXPECT_EQ(mNetwork->addEinsum(pair, 2, "ij->ji"), nullptr);
    expectError(
        {"the equation \"ij->ji\" does not fit the inputs: the equation has 1 input term but there are 2 inputs"});
    EXPECT_EQ(mNetwork->addEinsum(pair, 2, "ijk,jk->ik"), nullptr);
    expectError({"term 0 has 3 labels but input 0 has rank 2"});
    EXPECT_EQ(mNetwork->addEinsum(pair, 2, "ij,jk->i#"), nullptr);
    expectError({"the output term has the character '#'"});
    EXPECT_EQ(mNetwork->getNbLayers(), 0);

    nvinfer1::IEinsumLayer* layer = mNetwork->addEinsum(pair, 2, "ij,jk->ik");
    ASSERT_NE(layer, nullptr);
    EXPECT_FALSE(layer->setEquation("ij->ij"));
    expectError({"IEinsumLayer::setEquation", "layer \"(Unnamed Layer* 0) [Einsum]\"",
        "the equation \"ij->ij\" does not fit the inputs"});
    EXPECT_FALSE(layer->setEquation(nullptr));
    expectError({"IEinsumLayer::setEquation", "the equation is null"});
    EXPECT_STREQ(layer->getEquation(), "ij,jk->ik");
}

} // namespace
} // namespace kiln::test
