// SPDX-License-Identifier: Apache-2.0
// ITopKLayer: operation, k, axis and indices type as given, both outputs' types and shapes, k from input 1, refusals.
#include "support/api_test.h"

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::TopKOperation;

using TopKTest = ApiTest;

TEST_F(TopKTest, ParametersAndOutputs)
{
    nvinfer1::ITensor* x = input("x", dims({2, 5, 3}), DataType::kHALF);
    nvinfer1::ITopKLayer* layer = mNetwork->addTopK(*x, TopKOperation::kMAX, 2, 0b010U);
    ASSERT_NE(layer, nullptr);
    EXPECT_EQ(layer->getType(), nvinfer1::LayerType::kTOPK);
    EXPECT_STREQ(layer->getName(), "(Unnamed Layer* 0) [TopK]");
    EXPECT_EQ(layer->getOperation(), TopKOperation::kMAX);
    EXPECT_EQ(layer->getK(), 2);
    EXPECT_EQ(layer->getReduceAxes(), 0b010U);
    EXPECT_EQ(layer->getIndicesType(), DataType::kINT32);
    ASSERT_EQ(layer->getNbOutputs(), 2);
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kHALF);
    EXPECT_EQ(layer->getOutput(1)->getType(), DataType::kINT32);
    EXPECT_DIMS(layer->getOutput(0)->getDimensions(), {2, 2, 3});
    EXPECT_DIMS(layer->getOutput(1)->getDimensions(), {2, 2, 3});

    layer->setOperation(TopKOperation::kMIN);
    layer->setReduceAxes(0b100U);
    layer->setK(3);
    EXPECT_TRUE(layer->setIndicesType(DataType::kINT64));
    EXPECT_EQ(layer->getOperation(), TopKOperation::kMIN);
    EXPECT_EQ(layer->getReduceAxes(), 0b100U);
    EXPECT_EQ(layer->getK(), 3);
    EXPECT_EQ(layer->getIndicesType(), DataType::kINT64);
    EXPECT_EQ(layer->getOutput(1)->getType(), DataType::kINT64);
    EXPECT_DIMS(layer->getOutput(0)->getDimensions(), {2, 5, 3});
    expectNoError();
}

TEST_F(TopKTest, TheV2FormGivesTheIndicesType)
{
    nvinfer1::ITensor* x = input("x", dims({4}), DataType::kINT32);
    nvinfer1::ITopKLayer* layer = mNetwork->addTopK(*x, TopKOperation::kMIN, 0, 1U, DataType::kINT64);
    ASSERT_NE(layer, nullptr);
    EXPECT_EQ(layer->getIndicesType(), DataType::kINT64);
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kINT32);
    EXPECT_EQ(layer->getOutput(1)->getType(), DataType::kINT64);
    EXPECT_DIMS(layer->getOutput(0)->getDimensions(), {0});
    expectNoError();
}

TEST_F(TopKTest, KFromInputOne)
{
    nvinfer1::ITensor* x = input("x", dims({3, -1}));
    // Any k passes while the axis' extent is known only at run time.
    nvinfer1::ITopKLayer* layer = mNetwork->addTopK(*x, TopKOperation::kMAX, 100, 0b10U);
    ASSERT_NE(layer, nullptr);
    EXPECT_DIMS(layer->getOutput(0)->getDimensions(), {3, 100});
    nvinfer1::ITensor* k = input("k", dims({}), DataType::kINT32);
    layer->setInput(1, *k);
    EXPECT_EQ(layer->getNbInputs(), 2);
    EXPECT_EQ(layer->getK(), -1);
    EXPECT_DIMS(layer->getOutput(0)->getDimensions(), {3, -1});
    EXPECT_DIMS(layer->getOutput(1)->getDimensions(), {3, -1});
    layer->setK(4);
    EXPECT_EQ(layer->getNbInputs(), 1);
    EXPECT_EQ(layer->getK(), 4);
    EXPECT_DIMS(layer->getOutput(0)->getDimensions(), {3, 4});
    layer->setInput(2, *k);
    expectError({"ITopKLayer::setInput", "input index 2 is out of range", "inputs 0 to 1"});
}

TEST_F(TopKTest, AddRefusals)
{
    nvinfer1::ITensor* x = input("x", dims({2, 3}));
    EXPECT_EQ(mNetwork->addTopK(*x, static_cast<TopKOperation>(2), 1, 1U), nullptr);
    expectError({"INetworkDefinition::addTopK", "operation 2 is not a valid TopKOperation"});
    EXPECT_EQ(mNetwork->addTopK(*x, TopKOperation::kMAX, 1, 0U), nullptr);
    expectError({"INetworkDefinition::addTopK", "the axes mask 0 must have exactly one bit set (the axis)",
        "(input \"x\" [2, 3])"});
    EXPECT_EQ(mNetwork->addTopK(*x, TopKOperation::kMAX, 1, 0b11U), nullptr);
    expectError({"the axes mask 3 must have exactly one bit set"});
    EXPECT_EQ(mNetwork->addTopK(*x, TopKOperation::kMAX, 1, 0b100U), nullptr);
    expectError({"the axes mask 4 names an axis at or beyond the input's rank"});
    EXPECT_EQ(mNetwork->addTopK(*x, TopKOperation::kMAX, -1, 1U), nullptr);
    expectError({"INetworkDefinition::addTopK", "k is -1; it must be at least 0"});
    EXPECT_EQ(mNetwork->addTopK(*x, TopKOperation::kMAX, 4, 0b10U), nullptr);
    expectError({"INetworkDefinition::addTopK", "k is 4 but input \"x\" [2, 3] has only 3 elements along the axis"});
    EXPECT_EQ(mNetwork->addTopK(*x, TopKOperation::kMAX, 1, 1U, DataType::kFLOAT), nullptr);
    expectError({"INetworkDefinition::addTopK", "the indices type kFLOAT (0) is not kINT32 or kINT64"});
    nvinfer1::ITensor* scalar = input("s", dims({}));
    EXPECT_EQ(mNetwork->addTopK(*scalar, TopKOperation::kMAX, 1, 1U), nullptr);
    expectError({"the axes mask 1 names an axis at or beyond the input's rank", "(input \"s\" [])"});
    EXPECT_EQ(mNetwork->getNbLayers(), 0);
}

TEST_F(TopKTest, SetterRefusals)
{
    nvinfer1::ITensor* x = input("x", dims({2, 3}));
    nvinfer1::ITopKLayer* layer = mNetwork->addTopK(*x, TopKOperation::kMAX, 3, 0b10U);
    ASSERT_NE(layer, nullptr);
    layer->setOperation(static_cast<TopKOperation>(-1));
    expectError(
        {"ITopKLayer::setOperation", "layer \"(Unnamed Layer* 0) [TopK]\"", "operation -1 is not a valid value"});
    layer->setK(-2);
    expectError({"ITopKLayer::setK", "k is -2; it must be at least 0"});
    layer->setK(4);
    expectError({"ITopKLayer::setK", "k is 4 but the input [2, 3] has only 3 elements along the axis"});
    layer->setReduceAxes(0b11U);
    expectError(
        {"ITopKLayer::setReduceAxes", "the axes mask 3 must have exactly one bit set", "(the input is [2, 3])"});
    layer->setReduceAxes(0b100U);
    expectError({"ITopKLayer::setReduceAxes", "the axes mask 4 names an axis at or beyond the input's rank"});
    layer->setReduceAxes(0b01U);
    expectError({"ITopKLayer::setReduceAxes",
        "the axes mask 1 names an axis of 2 elements in the input [2, 3], fewer than k (3)"});
    EXPECT_FALSE(layer->setIndicesType(DataType::kBOOL));
    expectError({"ITopKLayer::setIndicesType", "the indices type kBOOL (4) is not kINT32 or kINT64"});
    EXPECT_EQ(layer->getOperation(), TopKOperation::kMAX);
    EXPECT_EQ(layer->getK(), 3);
    EXPECT_EQ(layer->getReduceAxes(), 0b10U);
    EXPECT_EQ(layer->getIndicesType(), DataType::kINT32);
}

} // namespace
} // namespace kiln::test
