// SPDX-License-Identifier: Apache-2.0
// ICumulativeLayer: operation, exclusive and reverse as given and their defaults, the axis as input 1, the output's
// type and shape, and every refusal with its message.
#include "support/api_test.h"

namespace kiln::test
{
namespace
{

using nvinfer1::CumulativeOperation;
using nvinfer1::DataType;

class CumulativeTest : public ApiTest
{
protected:
    //! A 0-D constant axis of type.
    nvinfer1::ITensor* axis(int64_t value, DataType type = DataType::kINT32)
    {
        mAxis32 = static_cast<int32_t>(value);
        mAxis64 = value;
        nvinfer1::Weights const weights
            = type == DataType::kINT32 ? nvinfer1::Weights{type, &mAxis32, 1} : nvinfer1::Weights{type, &mAxis64, 1};
        return mNetwork->addConstant(dims({}), weights)->getOutput(0);
    }

    int32_t mAxis32{};
    int64_t mAxis64{};
};

TEST_F(CumulativeTest, ParametersAndOutput)
{
    nvinfer1::ITensor* x = input("x", dims({2, -1, 3}), DataType::kHALF);
    nvinfer1::ITensor* a = axis(-2);
    nvinfer1::ICumulativeLayer* layer = mNetwork->addCumulative(*x, *a, CumulativeOperation::kSUM, true, false);
    ASSERT_NE(layer, nullptr);
    EXPECT_EQ(layer->getType(), nvinfer1::LayerType::kCUMULATIVE);
    EXPECT_STREQ(layer->getName(), "(Unnamed Layer* 1) [Cumulative]");
    EXPECT_EQ(layer->getOperation(), CumulativeOperation::kSUM);
    EXPECT_TRUE(layer->getExclusive());
    EXPECT_FALSE(layer->getReverse());
    ASSERT_EQ(layer->getNbInputs(), 2);
    EXPECT_EQ(layer->getInput(0), x);
    EXPECT_EQ(layer->getInput(1), a);
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kHALF);
    EXPECT_DIMS(layer->getOutput(0)->getDimensions(), {2, -1, 3});

    layer->setExclusive(false);
    layer->setReverse(true);
    EXPECT_TRUE(layer->setOperation(CumulativeOperation::kSUM));
    EXPECT_FALSE(layer->getExclusive());
    EXPECT_TRUE(layer->getReverse());
    nvinfer1::ITensor* other = axis(0, DataType::kINT64);
    layer->setInput(1, *other);
    EXPECT_EQ(layer->getInput(1), other);
    expectNoError();
}

TEST_F(CumulativeTest, AddRefusals)
{
    nvinfer1::ITensor* x = input("x", dims({2, 3}));
    nvinfer1::ITensor* a = axis(1);
    EXPECT_EQ(mNetwork->addCumulative(*x, *a, static_cast<CumulativeOperation>(1), false, false), nullptr);
    expectError({"INetworkDefinition::addCumulative", "operation 1 is not a valid CumulativeOperation"});
    nvinfer1::ITensor* scalar = input("s", dims({}));
    EXPECT_EQ(mNetwork->addCumulative(*scalar, *a, CumulativeOperation::kSUM, false, false), nullptr);
    expectError({"INetworkDefinition::addCumulative", "input \"s\" has rank 0"});
    nvinfer1::ITensor* flags = input("b", dims({4}), DataType::kBOOL);
    EXPECT_EQ(mNetwork->addCumulative(*flags, *a, CumulativeOperation::kSUM, false, false), nullptr);
    expectError({"input \"b\" is kBOOL; a cumulative operation takes kFLOAT, kHALF, kBF16, kINT32 or kINT64"});
    nvinfer1::ITensor* vector = input("v", dims({1}), DataType::kINT32);
    EXPECT_EQ(mNetwork->addCumulative(*x, *vector, CumulativeOperation::kSUM, false, false), nullptr);
    expectError({"the axis \"v\" is kINT32 [1]; it must be a 0-D kINT32 or kINT64 tensor"});
    nvinfer1::ITensor* floating = input("f", dims({}));
    EXPECT_EQ(mNetwork->addCumulative(*x, *floating, CumulativeOperation::kSUM, false, false), nullptr);
    expectError({"the axis \"f\" is kFLOAT []"});
    EXPECT_EQ(mNetwork->getNbLayers(), 1); // The axis constant.
}

TEST_F(CumulativeTest, SetterRefusals)
{
    nvinfer1::ITensor* x = input("x", dims({4}));
    nvinfer1::ICumulativeLayer* layer = mNetwork->addCumulative(*x, *axis(0), CumulativeOperation::kSUM, false, true);
    ASSERT_NE(layer, nullptr);
    EXPECT_FALSE(layer->setOperation(static_cast<CumulativeOperation>(-1)));
    expectError({"ICumulativeLayer::setOperation", "layer \"(Unnamed Layer* 1) [Cumulative]\"",
        "operation -1 is not a valid value"});
    EXPECT_EQ(layer->getOperation(), CumulativeOperation::kSUM);
    layer->setInput(2, *x);
    expectError({"ICumulativeLayer::setInput", "input index 2 is out of range"});
}

} // namespace
} // namespace kiln::test
