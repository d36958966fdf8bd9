// SPDX-License-Identifier: Apache-2.0
// IConstantLayer: weights kept as given (not copied), their type is the output type, empty constants, refusals.
#include "support/api_test.h"

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::Weights;

using ConstantTest = ApiTest;

TEST_F(ConstantTest, WeightsAndShape)
{
    int64_t values[6] = {1, 2, 3, 4, 5, 6};
    nvinfer1::IConstantLayer* constant = mNetwork->addConstant(dims({2, 3}), Weights{DataType::kINT64, values, 6});
    ASSERT_NE(constant, nullptr);
    EXPECT_STREQ(constant->getName(), "(Unnamed Layer* 0) [Constant]");
    EXPECT_EQ(constant->getNbInputs(), 0);
    EXPECT_EQ(constant->getWeights().values, values);
    EXPECT_EQ(constant->getWeights().count, 6);
    EXPECT_EQ(constant->getWeights().type, DataType::kINT64);
    EXPECT_DIMS(constant->getDimensions(), {2, 3});
    EXPECT_EQ(constant->getOutput(0)->getType(), DataType::kINT64);
    EXPECT_DIMS(constant->getOutput(0)->getDimensions(), {2, 3});
    int32_t other[3] = {7, 8, 9};
    constant->setWeights(Weights{DataType::kINT32, other, 3});
    constant->setDimensions(dims({3}));
    EXPECT_EQ(constant->getWeights().values, other);
    EXPECT_EQ(constant->getOutput(0)->getType(), DataType::kINT32);
    EXPECT_DIMS(constant->getOutput(0)->getDimensions(), {3});
    EXPECT_NE(mNetwork->addConstant(dims({}), Weights{DataType::kFLOAT, values, 1}), nullptr);
    EXPECT_NE(mNetwork->addConstant(dims({2, 0}), Weights{DataType::kHALF, nullptr, 0}), nullptr);
    expectNoError();
}

TEST_F(ConstantTest, Refusals)
{
    float values[4]{};
    EXPECT_EQ(mNetwork->addConstant(dims({2, 3}), Weights{DataType::kFLOAT, values, 4}), nullptr);
    expectError({"INetworkDefinition::addConstant", "the weights have 4 values but the dimensions [2, 3] hold 6"});
    EXPECT_EQ(mNetwork->addConstant(dims({-1, 4}), Weights{DataType::kFLOAT, values, 4}), nullptr);
    expectError({"INetworkDefinition::addConstant", "the dimensions [-1, 4] are not a static shape"});
    EXPECT_EQ(mNetwork->addConstant(nvinfer1::Dims{9, {}}, Weights{DataType::kFLOAT, values, 4}), nullptr);
    expectError({"the dimensions have rank 9"});
    EXPECT_EQ(mNetwork->addConstant(dims({4}), Weights{DataType::kFLOAT, nullptr, 4}), nullptr);
    expectError({"INetworkDefinition::addConstant", "the weights are unusable", "values are null"});
    nvinfer1::IConstantLayer* constant = mNetwork->addConstant(dims({4}), Weights{DataType::kFLOAT, values, 4});
    constant->setWeights(Weights{static_cast<DataType>(40), values, 4});
    expectError({"IConstantLayer::setWeights", "type is not a valid DataType"});
    constant->setDimensions(dims({-1}));
    expectError({"IConstantLayer::setDimensions", "extent 0 is -1"});
    constant->setInput(0, *input("x", dims({1})));
    expectError({"IConstantLayer::setInput", "input index 0 is out of range; this layer takes no inputs"});
    EXPECT_DIMS(constant->getDimensions(), {4});
}

} // namespace
} // namespace kiln::test
