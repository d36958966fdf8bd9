// SPDX-License-Identifier: Apache-2.0
// ISoftMaxLayer: the default axis (rank minus 3, or 0) and its refusals.
#include "support/api_test.h"

namespace kiln::test
{
namespace
{

using SoftMaxTest = ApiTest;

TEST_F(SoftMaxTest, DefaultAxisFollowsTheRank)
{
    EXPECT_EQ(mNetwork->addSoftMax(*input("r4", dims({2, 3, 4, 5})))->getAxes(), 1U << 1U);
    EXPECT_EQ(mNetwork->addSoftMax(*input("r5", dims({2, 3, 4, 5, 6})))->getAxes(), 1U << 2U);
    EXPECT_EQ(mNetwork->addSoftMax(*input("r2", dims({2, 3})))->getAxes(), 1U);
    nvinfer1::ISoftMaxLayer* layer = mNetwork->addSoftMax(*input("x", dims({2, -1})));
    EXPECT_STREQ(layer->getName(), "(Unnamed Layer* 3) [Softmax]");
    layer->setAxes(1U << 1U);
    EXPECT_EQ(layer->getAxes(), 2U);
    EXPECT_DIMS(layer->getOutput(0)->getDimensions(), {2, -1});
    expectNoError();
}

TEST_F(SoftMaxTest, Refusals)
{
    nvinfer1::ISoftMaxLayer* layer = mNetwork->addSoftMax(*input("x", dims({2, 3})));
    layer->setAxes(3U);
    expectError({"ISoftMaxLayer::setAxes", "the axes mask 3 must have exactly one bit set"});
    layer->setAxes(0U);
    expectError({"ISoftMaxLayer::setAxes", "the axes mask 0"});
    layer->setAxes(1U << 2U);
    expectError({"ISoftMaxLayer::setAxes", "axis 2 is out of range for an input of rank 2"});
    EXPECT_EQ(layer->getAxes(), 1U);
}

} // namespace
} // namespace kiln::test
