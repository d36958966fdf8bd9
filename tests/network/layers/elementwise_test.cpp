// SPDX-License-Identifier: Apache-2.0
// IElementWiseLayer: every operation, kBOOL outputs of comparisons, broadcast shapes, refusals.
#include "support/api_test.h"

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;

using ElementWiseTest = ApiTest;

TEST_F(ElementWiseTest, EveryOperationAndItsOutputType)
{
    nvinfer1::ITensor* a = input("a", dims({2, 1, 5}), DataType::kINT32);
    nvinfer1::ITensor* b = input("b", dims({2, 3, 1}), DataType::kINT32);
    for (int32_t i = 0; i < nvinfer1::EnumMax<ElementWiseOperation>(); ++i)
    {
        auto const op = static_cast<ElementWiseOperation>(i);
        nvinfer1::IElementWiseLayer* layer = mNetwork->addElementWise(*a, *b, op);
        ASSERT_NE(layer, nullptr) << i;
        EXPECT_EQ(layer->getOperation(), op);
        bool const comparison = op == ElementWiseOperation::kEQUAL || op == ElementWiseOperation::kGREATER
            || op == ElementWiseOperation::kLESS;
        EXPECT_EQ(layer->getOutput(0)->getType(), comparison ? DataType::kBOOL : DataType::kINT32) << i;
        EXPECT_DIMS(layer->getOutput(0)->getDimensions(), {2, 3, 5});
    }
    EXPECT_STREQ(mNetwork->getLayer(0)->getName(), "(Unnamed Layer* 0) [ElementWise]");
    expectNoError();
}

TEST_F(ElementWiseTest, SetOperationChangesTheOutputType)
{
    nvinfer1::IElementWiseLayer* layer
        = mNetwork->addElementWise(*input("a", dims({-1, 4})), *input("b", dims({1, 4})), ElementWiseOperation::kSUM);
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kFLOAT);
    EXPECT_DIMS(layer->getOutput(0)->getDimensions(), {-1, 4});
    layer->setOperation(ElementWiseOperation::kLESS);
    EXPECT_EQ(layer->getOperation(), ElementWiseOperation::kLESS);
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kBOOL);
}

TEST_F(ElementWiseTest, Refusals)
{
    nvinfer1::ITensor* a = input("a", dims({2, 3}));
    EXPECT_EQ(mNetwork->addElementWise(*a, *a, static_cast<ElementWiseOperation>(14)), nullptr);
    expectError({"INetworkDefinition::addElementWise", "operation 14 is not a valid ElementWiseOperation"});
    EXPECT_EQ(mNetwork->addElementWise(*a, *input("b", dims({3})), ElementWiseOperation::kSUM), nullptr);
    expectError({"inputs \"a\" [2, 3] and \"b\" [3] differ in rank"});
    nvinfer1::IElementWiseLayer* layer = mNetwork->addElementWise(*a, *a, ElementWiseOperation::kSUM);
    layer->setOperation(static_cast<ElementWiseOperation>(-1));
    expectError({"IElementWiseLayer::setOperation", "operation -1 is not a valid value"});
}

} // namespace
} // namespace kiln::test
