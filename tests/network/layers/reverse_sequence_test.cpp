// SPDX-License-Identifier: Apache-2.0
// IReverseSequenceLayer: the axes as given and their defaults, the output's type and shape, and every refusal with its
// message.
#include "support/api_test.h"

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

class ReverseSequenceTest : public ApiTest
{
};

TEST_F(ReverseSequenceTest, ParametersAndOutput)
{
    nvinfer1::ITensor* x = input("x", dims({7, -1, 3}), DataType::kINT64);
    nvinfer1::ITensor* lengths = input("n", dims({-1}), DataType::kINT32);
    nvinfer1::IReverseSequenceLayer* layer = mNetwork->addReverseSequence(*x, *lengths);
    ASSERT_NE(layer, nullptr);
    EXPECT_EQ(layer->getType(), nvinfer1::LayerType::kREVERSE_SEQUENCE);
    EXPECT_STREQ(layer->getName(), "(Unnamed Layer* 0) [ReverseSequence]");
    // TensorRT's defaults: batch axis 1, sequence axis 0.
    EXPECT_EQ(layer->getBatchAxis(), 1);
    EXPECT_EQ(layer->getSequenceAxis(), 0);
    ASSERT_EQ(layer->getNbInputs(), 2);
    EXPECT_EQ(layer->getInput(1), lengths);
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kINT64);
    EXPECT_DIMS(layer->getOutput(0)->getDimensions(), {7, -1, 3});
    // Swapping the axes takes two calls, through a moment where both are the same: only the build insists they differ.
    layer->setBatchAxis(0);
    layer->setSequenceAxis(2);
    EXPECT_EQ(layer->getBatchAxis(), 0);
    EXPECT_EQ(layer->getSequenceAxis(), 2);
    expectNoError();
}

TEST_F(ReverseSequenceTest, Refusals)
{
    nvinfer1::ITensor* x = input("x", dims({4, 3}));
    nvinfer1::ITensor* lengths = input("n", dims({3}), DataType::kINT64);
    nvinfer1::ITensor* line = input("l", dims({4}));
    EXPECT_EQ(mNetwork->addReverseSequence(*line, *lengths), nullptr);
    expectError({"INetworkDefinition::addReverseSequence",
        "input \"l\" is [4]; a reverse sequence needs rank 2 or more (a batch axis and a sequence axis)"});
    nvinfer1::ITensor* floating = input("f", dims({3}));
    EXPECT_EQ(mNetwork->addReverseSequence(*x, *floating), nullptr);
    expectError({"the sequence lengths \"f\" are kFLOAT [3]; they must be a 1-D kINT32 or kINT64 tensor"});
    nvinfer1::ITensor* matrix = input("m", dims({3, 1}), DataType::kINT32);
    EXPECT_EQ(mNetwork->addReverseSequence(*x, *matrix), nullptr);
    expectError({"the sequence lengths \"m\" are kINT32 [3, 1]"});
    EXPECT_EQ(mNetwork->getNbLayers(), 0);

    nvinfer1::IReverseSequenceLayer* layer = mNetwork->addReverseSequence(*x, *lengths);
    ASSERT_NE(layer, nullptr);
    layer->setBatchAxis(2);
    expectError(
        {"IReverseSequenceLayer::setBatchAxis", "the batch axis is 2; for an input of rank 2 it must be in [0, 2)"});
    layer->setSequenceAxis(-1);
    expectError({"IReverseSequenceLayer::setSequenceAxis", "the sequence axis is -1"});
    EXPECT_EQ(layer->getBatchAxis(), 1);
    EXPECT_EQ(layer->getSequenceAxis(), 0);
}

} // namespace
} // namespace kiln::test
