// SPDX-License-Identifier: Apache-2.0
// INMSLayer: the format, TopK box limit and indices type as given and their defaults, the optional threshold inputs,
// the two outputs' types and shapes, and every refusal with its message.
#include "support/api_test.h"

namespace kiln::test
{
namespace
{

using nvinfer1::BoundingBoxFormat;
using nvinfer1::DataType;

class NMSTest : public ApiTest
{
protected:
    void SetUp() override
    {
        ApiTest::SetUp();
        mBoxes = input("boxes", dims({2, 10, 4}));
        mScores = input("scores", dims({2, 10, 3}));
        mLimit = input("limit", dims({}), DataType::kINT32);
    }

    nvinfer1::ITensor* mBoxes{};
    nvinfer1::ITensor* mScores{};
    nvinfer1::ITensor* mLimit{};
};

TEST_F(NMSTest, ParametersInputsAndOutputs)
{
    nvinfer1::INMSLayer* layer = mNetwork->addNMS(*mBoxes, *mScores, *mLimit, DataType::kINT64);
    ASSERT_NE(layer, nullptr);
    EXPECT_EQ(layer->getType(), nvinfer1::LayerType::kNMS);
    EXPECT_STREQ(layer->getName(), "(Unnamed Layer* 0) [NMS]");
    EXPECT_EQ(layer->getBoundingBoxFormat(), BoundingBoxFormat::kCORNER_PAIRS);
    EXPECT_EQ(layer->getTopKBoxLimit(), 5000);
    EXPECT_EQ(layer->getIndicesType(), DataType::kINT64);
    ASSERT_EQ(layer->getNbInputs(), 3);
    ASSERT_EQ(layer->getNbOutputs(), 2);
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kINT64);
    EXPECT_DIMS(layer->getOutput(0)->getDimensions(), {-1, 3});
    EXPECT_EQ(layer->getOutput(1)->getType(), DataType::kINT32);
    EXPECT_DIMS(layer->getOutput(1)->getDimensions(), {});

    layer->setBoundingBoxFormat(BoundingBoxFormat::kCENTER_SIZES);
    layer->setTopKBoxLimit(100);
    EXPECT_TRUE(layer->setIndicesType(DataType::kINT32));
    EXPECT_EQ(layer->getBoundingBoxFormat(), BoundingBoxFormat::kCENTER_SIZES);
    EXPECT_EQ(layer->getTopKBoxLimit(), 100);
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kINT32);

    // The score threshold alone leaves the IoU threshold absent.
    nvinfer1::ITensor* score = input("score", dims({}));
    layer->setInput(4, *score);
    ASSERT_EQ(layer->getNbInputs(), 5);
    EXPECT_EQ(layer->getInput(3), nullptr);
    EXPECT_EQ(layer->getInput(4), score);
    nvinfer1::ITensor* iou = input("iou", dims({}));
    layer->setInput(3, *iou);
    EXPECT_EQ(layer->getInput(3), iou);
    expectNoError();
}

TEST_F(NMSTest, TheThreeArgumentFormHasInt32Indices)
{
    nvinfer1::ITensor* perClass = input("perClass", dims({1, 10, 3, 4}), DataType::kHALF);
    nvinfer1::ITensor* scores = input("s16", dims({1, 10, 3}), DataType::kHALF);
    nvinfer1::INMSLayer* layer = mNetwork->addNMS(*perClass, *scores, *mLimit);
    ASSERT_NE(layer, nullptr);
    EXPECT_EQ(layer->getIndicesType(), DataType::kINT32);
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kINT32);
    expectNoError();
}

TEST_F(NMSTest, AddRefusals)
{
    nvinfer1::ITensor* ints = input("i", dims({2, 10, 4}), DataType::kINT32);
    EXPECT_EQ(mNetwork->addNMS(*ints, *mScores, *mLimit, DataType::kINT32), nullptr);
    expectError({"INetworkDefinition::addNMS", "the boxes must be kFLOAT or kHALF"});
    nvinfer1::ITensor* half = input("h", dims({2, 10, 3}), DataType::kHALF);
    EXPECT_EQ(mNetwork->addNMS(*mBoxes, *half, *mLimit, DataType::kINT32), nullptr);
    expectError({"the scores must have the boxes' type"});
    nvinfer1::ITensor* five = input("five", dims({2, 10, 5}));
    EXPECT_EQ(mNetwork->addNMS(*five, *mScores, *mLimit, DataType::kINT32), nullptr);
    expectError({"the boxes' last extent must be 4"});
    nvinfer1::ITensor* flat = input("flat", dims({2, 40}));
    EXPECT_EQ(mNetwork->addNMS(*flat, *mScores, *mLimit, DataType::kINT32), nullptr);
    expectError({"the boxes must have rank 3"});
    nvinfer1::ITensor* vector = input("v", dims({1}), DataType::kINT32);
    EXPECT_EQ(mNetwork->addNMS(*mBoxes, *mScores, *vector, DataType::kINT32), nullptr);
    expectError({"maxOutputBoxesPerClass \"v\" is kINT32 [1]; it must be a 0-D kINT32 (or kINT64) tensor"});
    EXPECT_EQ(mNetwork->addNMS(*mBoxes, *mScores, *mLimit, DataType::kHALF), nullptr);
    expectError({"the indices type kHALF (1) is not kINT32 or kINT64"});
    EXPECT_EQ(mNetwork->getNbLayers(), 0);
}

TEST_F(NMSTest, SetterRefusals)
{
    nvinfer1::INMSLayer* layer = mNetwork->addNMS(*mBoxes, *mScores, *mLimit, DataType::kINT32);
    ASSERT_NE(layer, nullptr);
    layer->setBoundingBoxFormat(static_cast<BoundingBoxFormat>(2));
    expectError({"INMSLayer::setBoundingBoxFormat", "layer \"(Unnamed Layer* 0) [NMS]\"", "format 2 is not a valid"});
    EXPECT_EQ(layer->getBoundingBoxFormat(), BoundingBoxFormat::kCORNER_PAIRS);
    layer->setTopKBoxLimit(5001);
    expectError({"INMSLayer::setTopKBoxLimit", "the limit is 5001; it must be 1 to 5000"});
    layer->setTopKBoxLimit(0);
    expectError({"the limit is 0; it must be 1 to 5000"});
    EXPECT_EQ(layer->getTopKBoxLimit(), 5000);
    EXPECT_FALSE(layer->setIndicesType(DataType::kBOOL));
    expectError({"INMSLayer::setIndicesType", "the indices type kBOOL"});
    EXPECT_EQ(layer->getIndicesType(), DataType::kINT32);
    layer->setInput(5, *mLimit);
    expectError({"INMSLayer::setInput", "input index 5 is out of range"});
}

} // namespace
} // namespace kiln::test
