// SPDX-License-Identifier: Apache-2.0
// INonZeroLayer: the indices type as given and its default, one visible output of shape [rank, -1] (the count stays
// hidden), and every refusal with its message.
#include "support/api_test.h"

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

class NonZeroTest : public ApiTest
{
};

TEST_F(NonZeroTest, IndicesTypeAndOutput)
{
    nvinfer1::ITensor* x = input("x", dims({2, -1, 3}), DataType::kHALF);
    nvinfer1::INonZeroLayer* layer = mNetwork->addNonZero(*x, DataType::kINT64);
    ASSERT_NE(layer, nullptr);
    EXPECT_EQ(layer->getType(), nvinfer1::LayerType::kNON_ZERO);
    EXPECT_STREQ(layer->getName(), "(Unnamed Layer* 0) [NonZero]");
    EXPECT_EQ(layer->getIndicesType(), DataType::kINT64);
    ASSERT_EQ(layer->getNbInputs(), 1);
    EXPECT_EQ(layer->getInput(0), x);
    ASSERT_EQ(layer->getNbOutputs(), 1); // the count is hidden
    EXPECT_STREQ(layer->getOutput(0)->getName(), "(Unnamed Layer* 0) [NonZero]_output");
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kINT64);
    EXPECT_DIMS(layer->getOutput(0)->getDimensions(), {3, -1});

    EXPECT_TRUE(layer->setIndicesType(DataType::kINT32));
    EXPECT_EQ(layer->getIndicesType(), DataType::kINT32);
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kINT32);
    expectNoError();
}

TEST_F(NonZeroTest, TheOneArgumentFormHasInt32Indices)
{
    nvinfer1::ITensor* x = input("x", dims({4}), DataType::kBOOL);
    nvinfer1::INonZeroLayer* layer = mNetwork->addNonZero(*x);
    ASSERT_NE(layer, nullptr);
    EXPECT_EQ(layer->getIndicesType(), DataType::kINT32);
    EXPECT_DIMS(layer->getOutput(0)->getDimensions(), {1, -1});
    expectNoError();
}

TEST_F(NonZeroTest, Refusals)
{
    nvinfer1::ITensor* x = input("x", dims({2, 3}));
    EXPECT_EQ(mNetwork->addNonZero(*x, DataType::kFLOAT), nullptr);
    expectError({"INetworkDefinition::addNonZero", "the indices type kFLOAT (0) is not kINT32 or kINT64"});
    nvinfer1::ITensor* bytes = input("u", dims({2}), DataType::kUINT8);
    EXPECT_EQ(mNetwork->addNonZero(*bytes, DataType::kINT64), nullptr);
    expectError({"INetworkDefinition::addNonZero",
        "input \"u\" is kUINT8; a non-zero layer takes kFLOAT, kHALF, "
        "kBF16, kINT8, kINT32, kINT64 or kBOOL"});
    EXPECT_EQ(mNetwork->getNbLayers(), 0);

    nvinfer1::INonZeroLayer* layer = mNetwork->addNonZero(*x, DataType::kINT64);
    ASSERT_NE(layer, nullptr);
    EXPECT_FALSE(layer->setIndicesType(DataType::kHALF));
    expectError({"INonZeroLayer::setIndicesType", "layer \"(Unnamed Layer* 0) [NonZero]\"",
        "the indices type kHALF (1) is not kINT32 or kINT64"});
    EXPECT_EQ(layer->getIndicesType(), DataType::kINT64);
    EXPECT_EQ(layer->getOutput(1), nullptr);
    expectError({"INonZeroLayer::getOutput", "output index 1 is out of range; the layer has 1 outputs"});
    layer->setOutputType(1, DataType::kINT32);
    expectError({"INonZeroLayer::setOutputType", "output index 1 is out of range"});
}

} // namespace
} // namespace kiln::test
