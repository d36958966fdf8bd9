// SPDX-License-Identifier: Apache-2.0
// IReduceLayer: operation, axes and keepDimensions as given, output shape, refusals.
#include "support/api_test.h"

namespace kiln::test
{
namespace
{

using nvinfer1::ReduceOperation;

using ReduceTest = ApiTest;

TEST_F(ReduceTest, ParametersAndShape)
{
    nvinfer1::ITensor* x = input("x", dims({2, 3, 4}));
    nvinfer1::IReduceLayer* keep = mNetwork->addReduce(*x, ReduceOperation::kSUM, 0b110U, true);
    ASSERT_NE(keep, nullptr);
    EXPECT_STREQ(keep->getName(), "(Unnamed Layer* 0) [Reduce]");
    EXPECT_EQ(keep->getOperation(), ReduceOperation::kSUM);
    EXPECT_EQ(keep->getReduceAxes(), 0b110U);
    EXPECT_TRUE(keep->getKeepDimensions());
    EXPECT_DIMS(keep->getOutput(0)->getDimensions(), {2, 1, 1});
    nvinfer1::IReduceLayer* drop = mNetwork->addReduce(*x, ReduceOperation::kMAX, 0b001U, false);
    EXPECT_FALSE(drop->getKeepDimensions());
    EXPECT_DIMS(drop->getOutput(0)->getDimensions(), {3, 4});
    drop->setOperation(ReduceOperation::kAVG);
    drop->setReduceAxes(0b100U);
    drop->setKeepDimensions(true);
    EXPECT_EQ(drop->getOperation(), ReduceOperation::kAVG);
    EXPECT_EQ(drop->getReduceAxes(), 0b100U);
    EXPECT_DIMS(drop->getOutput(0)->getDimensions(), {2, 3, 1});
    expectNoError();
}

TEST_F(ReduceTest, Refusals)
{
    nvinfer1::ITensor* x = input("x", dims({2, 3}));
    EXPECT_EQ(mNetwork->addReduce(*x, ReduceOperation::kNONE, 1U, false), nullptr);
    expectError({"INetworkDefinition::addReduce", "operation 5 (kNONE) is only for multi-device collectives"});
    EXPECT_EQ(mNetwork->addReduce(*x, static_cast<ReduceOperation>(8), 1U, false), nullptr);
    expectError({"operation 8 is not a valid ReduceOperation"});
    EXPECT_EQ(mNetwork->addReduce(*x, ReduceOperation::kSUM, 0b100U, false), nullptr);
    expectError({"INetworkDefinition::addReduce", "the axes mask 4 names axes beyond the rank of input \"x\" [2, 3]"});
    nvinfer1::IReduceLayer* layer = mNetwork->addReduce(*x, ReduceOperation::kSUM, 1U, false);
    layer->setReduceAxes(0b1000U);
    expectError({"IReduceLayer::setReduceAxes", "the axes mask 8 names axes beyond the input's rank 2"});
    layer->setOperation(ReduceOperation::kNONE);
    expectError({"IReduceLayer::setOperation", "kNONE"});
    EXPECT_EQ(layer->getOperation(), ReduceOperation::kSUM);
    EXPECT_EQ(layer->getReduceAxes(), 1U);
}

} // namespace
} // namespace kiln::test
