// SPDX-License-Identifier: Apache-2.0
// IConcatenationLayer: inputs, the default axis, output shape, and refusals (empty, null, foreign, mixed ranks,
// axis out of range).
#include "support/api_test.h"

namespace kiln::test
{
namespace
{

using ConcatenationTest = ApiTest;

TEST_F(ConcatenationTest, InputsAxisAndShape)
{
    nvinfer1::ITensor* inputs[] = {input("a", dims({1, 2, 4, 4})), input("b", dims({1, 3, 4, 4}))};
    nvinfer1::IConcatenationLayer* concat = mNetwork->addConcatenation(inputs, 2);
    ASSERT_NE(concat, nullptr);
    EXPECT_STREQ(concat->getName(), "(Unnamed Layer* 0) [Concatenation]");
    EXPECT_EQ(concat->getNbInputs(), 2);
    EXPECT_EQ(concat->getInput(1), inputs[1]);
    EXPECT_EQ(concat->getAxis(), 1);
    EXPECT_DIMS(concat->getOutput(0)->getDimensions(), {1, 5, 4, 4});
    concat->setAxis(3);
    EXPECT_EQ(concat->getAxis(), 3);
    EXPECT_DIMS(concat->getOutput(0)->getDimensions(), {1, 2, 4, 8});
    nvinfer1::ITensor* one[] = {input("c", dims({7}))};
    EXPECT_EQ(mNetwork->addConcatenation(one, 1)->getAxis(), 0);
    expectNoError();
}

TEST_F(ConcatenationTest, Refusals)
{
    nvinfer1::ITensor* a = input("a", dims({2, 2}));
    EXPECT_EQ(mNetwork->addConcatenation(nullptr, 0), nullptr);
    expectError({"INetworkDefinition::addConcatenation", "nbInputs is 0; a concatenation needs at least one input"});
    EXPECT_EQ(mNetwork->addConcatenation(nullptr, 2), nullptr);
    expectError({"INetworkDefinition::addConcatenation", "the inputs array is null but its count is 2"});
    nvinfer1::ITensor* withNull[] = {a, nullptr};
    EXPECT_EQ(mNetwork->addConcatenation(withNull, 2), nullptr);
    expectError({"INetworkDefinition::addConcatenation", "the inputs[1] is null"});
    nvinfer1::ITensor* mixed[] = {a, input("b", dims({2, 2, 2}))};
    EXPECT_EQ(mNetwork->addConcatenation(mixed, 2), nullptr);
    expectError({"input \"b\" has rank 3 but \"a\" has rank 2"});
    nvinfer1::ITensor* one[] = {a};
    nvinfer1::IConcatenationLayer* concat = mNetwork->addConcatenation(one, 1);
    concat->setAxis(2);
    expectError({"IConcatenationLayer::setAxis", "axis 2 is out of range for inputs of rank 2"});
    concat->setAxis(-1);
    expectError({"IConcatenationLayer::setAxis", "axis -1"});
    EXPECT_EQ(concat->getAxis(), 0);
}

} // namespace
} // namespace kiln::test
