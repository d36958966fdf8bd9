// SPDX-License-Identifier: Apache-2.0
// ISelectLayer: three inputs, the then-input's type, broadcast shape, refusals.
#include "support/api_test.h"

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

using SelectTest = ApiTest;

TEST_F(SelectTest, InputsTypeAndShape)
{
    nvinfer1::ITensor* condition = input("c", dims({2, 1}), DataType::kBOOL);
    nvinfer1::ISelectLayer* select = mNetwork->addSelect(
        *condition, *input("t", dims({1, 3}), DataType::kHALF), *input("e", dims({2, 3}), DataType::kHALF));
    ASSERT_NE(select, nullptr);
    EXPECT_STREQ(select->getName(), "(Unnamed Layer* 0) [Select]");
    EXPECT_EQ(select->getNbInputs(), 3);
    EXPECT_EQ(select->getInput(0), condition);
    EXPECT_EQ(select->getOutput(0)->getType(), DataType::kHALF);
    EXPECT_DIMS(select->getOutput(0)->getDimensions(), {2, 3});
    expectNoError();
}

TEST_F(SelectTest, Refusals)
{
    nvinfer1::ITensor* x = input("x", dims({2}));
    EXPECT_EQ(mNetwork->addSelect(*x, *x, *x), nullptr);
    expectError({"INetworkDefinition::addSelect", "condition \"x\" has type 0; a condition is kBOOL"});
    nvinfer1::ITensor* c = input("c", dims({2}), DataType::kBOOL);
    EXPECT_EQ(mNetwork->addSelect(*c, *x, *input("y", dims({2, 2}))), nullptr);
    expectError({"INetworkDefinition::addSelect", "input \"y\" has rank 2 but another input has rank 1"});
}

} // namespace
} // namespace kiln::test
