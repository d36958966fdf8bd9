// SPDX-License-Identifier: Apache-2.0
// ICastLayer: the output type is toType; refusals.
#include "support/api_test.h"

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

using CastTest = ApiTest;

TEST_F(CastTest, OutputTypeIsToType)
{
    nvinfer1::ICastLayer* cast = mNetwork->addCast(*input("x", dims({2, 3})), DataType::kINT64);
    ASSERT_NE(cast, nullptr);
    EXPECT_STREQ(cast->getName(), "(Unnamed Layer* 0) [Cast]");
    EXPECT_EQ(cast->getToType(), DataType::kINT64);
    EXPECT_EQ(cast->getOutput(0)->getType(), DataType::kINT64);
    EXPECT_DIMS(cast->getOutput(0)->getDimensions(), {2, 3});
    cast->setToType(DataType::kBF16);
    EXPECT_EQ(cast->getToType(), DataType::kBF16);
    EXPECT_EQ(cast->getOutput(0)->getType(), DataType::kBF16);
    expectNoError();
}

TEST_F(CastTest, Refusals)
{
    nvinfer1::ITensor* x = input("x", dims({2}));
    EXPECT_EQ(mNetwork->addCast(*x, static_cast<DataType>(12)), nullptr);
    expectError({"INetworkDefinition::addCast", "data type 12 is not a valid DataType"});
    nvinfer1::ICastLayer* cast = mNetwork->addCast(*x, DataType::kHALF);
    cast->setToType(static_cast<DataType>(-2));
    expectError({"ICastLayer::setToType", "data type -2"});
    EXPECT_EQ(cast->getToType(), DataType::kHALF);
}

} // namespace
} // namespace kiln::test
