// SPDX-License-Identifier: Apache-2.0
// IUnaryLayer: every operation, kBOOL from kISINF and kISNAN, refusals.
#include "support/api_test.h"

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::UnaryOperation;

using UnaryTest = ApiTest;

TEST_F(UnaryTest, EveryOperation)
{
    nvinfer1::ITensor* x = input("x", dims({3, -1}), DataType::kHALF);
    for (int32_t i = 0; i < nvinfer1::EnumMax<UnaryOperation>(); ++i)
    {
        auto const op = static_cast<UnaryOperation>(i);
        nvinfer1::IUnaryLayer* layer = mNetwork->addUnary(*x, op);
        ASSERT_NE(layer, nullptr) << i;
        EXPECT_EQ(layer->getOperation(), op);
        bool const test = op == UnaryOperation::kISINF || op == UnaryOperation::kISNAN;
        EXPECT_EQ(layer->getOutput(0)->getType(), test ? DataType::kBOOL : DataType::kHALF) << i;
        EXPECT_DIMS(layer->getOutput(0)->getDimensions(), {3, -1});
    }
    nvinfer1::IUnaryLayer* layer = mNetwork->addUnary(*x, UnaryOperation::kABS);
    layer->setOperation(UnaryOperation::kISNAN);
    EXPECT_EQ(layer->getOperation(), UnaryOperation::kISNAN);
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kBOOL);
    EXPECT_STREQ(mNetwork->getLayer(0)->getName(), "(Unnamed Layer* 0) [Unary]");
    expectNoError();
}

TEST_F(UnaryTest, Refusals)
{
    nvinfer1::ITensor* x = input("x", dims({3}));
    EXPECT_EQ(mNetwork->addUnary(*x, static_cast<UnaryOperation>(25)), nullptr);
    expectError({"INetworkDefinition::addUnary", "operation 25 is not a valid UnaryOperation"});
    nvinfer1::IUnaryLayer* layer = mNetwork->addUnary(*x, UnaryOperation::kEXP);
    layer->setOperation(static_cast<UnaryOperation>(99));
    expectError({"IUnaryLayer::setOperation", "operation 99"});
    EXPECT_EQ(layer->getOperation(), UnaryOperation::kEXP);
}

} // namespace
} // namespace kiln::test
