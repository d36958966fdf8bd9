// SPDX-License-Identifier: Apache-2.0
// IFillLayer: shape, operation and output type as given; alpha 0 and beta 1 by default; double and int64 forms;
// parameters from tensor inputs; refusals.
#include "support/api_test.h"

#include <cmath>
#include <cstdint>
#include <limits>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::FillOperation;

using FillTest = ApiTest;

TEST_F(FillTest, ParametersAndDefaults)
{
    nvinfer1::IFillLayer* fill = mNetwork->addFill(dims({2, 3}), FillOperation::kLINSPACE, DataType::kINT32);
    ASSERT_NE(fill, nullptr);
    EXPECT_STREQ(fill->getName(), "(Unnamed Layer* 0) [Fill]");
    EXPECT_DIMS(fill->getDimensions(), {2, 3});
    EXPECT_EQ(fill->getOperation(), FillOperation::kLINSPACE);
    EXPECT_EQ(fill->getToType(), DataType::kINT32);
    EXPECT_EQ(fill->getAlpha(), 0.0);
    EXPECT_EQ(fill->getBeta(), 1.0);
    EXPECT_FALSE(fill->isAlphaBetaInt64());
    EXPECT_EQ(fill->getOutput(0)->getType(), DataType::kINT32);
    EXPECT_DIMS(fill->getOutput(0)->getDimensions(), {2, 3});

    fill->setAlphaInt64(5);
    fill->setBetaInt64(-2);
    EXPECT_TRUE(fill->isAlphaBetaInt64());
    EXPECT_EQ(fill->getAlphaInt64(), 5);
    EXPECT_EQ(fill->getBetaInt64(), -2);
    fill->setAlpha(0.5);
    fill->setBeta(2.5);
    EXPECT_FALSE(fill->isAlphaBetaInt64());
    EXPECT_EQ(fill->getAlpha(), 0.5);
    EXPECT_EQ(fill->getBeta(), 2.5);
    fill->setToType(DataType::kHALF);
    fill->setOperation(FillOperation::kRANDOM_NORMAL);
    fill->setDimensions(dims({4}));
    EXPECT_EQ(fill->getToType(), DataType::kHALF);
    EXPECT_EQ(fill->getOperation(), FillOperation::kRANDOM_NORMAL);
    EXPECT_DIMS(fill->getOutput(0)->getDimensions(), {4});
    EXPECT_EQ(mNetwork->addFill(dims({1}), FillOperation::kRANDOM_UNIFORM)->getToType(), DataType::kFLOAT);
    expectNoError();
}

// Found by fuzzing the ONNX parser (issue 21): a double beyond int64's range converted to the int64 form was undefined
// behaviour. It saturates; NaN gives 0.
TEST_F(FillTest, DoublesBeyondInt64SaturateInTheirInt64Form)
{
    nvinfer1::IFillLayer* fill = mNetwork->addFill(dims({2}), FillOperation::kLINSPACE, DataType::kINT64);
    ASSERT_NE(fill, nullptr);
    fill->setAlpha(1.68e22);
    fill->setBeta(-5.19e33);
    EXPECT_EQ(fill->getAlpha(), 1.68e22);
    EXPECT_EQ(fill->getAlphaInt64(), std::numeric_limits<int64_t>::max());
    EXPECT_EQ(fill->getBetaInt64(), std::numeric_limits<int64_t>::min());
    fill->setAlpha(std::nan(""));
    fill->setBeta(-7.9);
    EXPECT_EQ(fill->getAlphaInt64(), 0);
    EXPECT_EQ(fill->getBetaInt64(), -7);
    expectNoError();
}

TEST_F(FillTest, ParametersFromTensors)
{
    nvinfer1::IFillLayer* fill = mNetwork->addFill(dims({2}), FillOperation::kLINSPACE, DataType::kFLOAT);
    nvinfer1::ITensor* shape = input("shape", dims({3}), DataType::kINT32);
    fill->setInput(0, *shape);
    EXPECT_EQ(fill->getDimensions().nbDims, -1);
    EXPECT_DIMS(fill->getOutput(0)->getDimensions(), {-1, -1, -1});
    EXPECT_TRUE(shape->isShapeTensor());
    fill->setInput(1, *input("alpha", dims({})));
    fill->setInput(2, *input("beta", dims({3})));
    EXPECT_EQ(fill->getAlpha(), -1.0);
    EXPECT_EQ(fill->getBeta(), -1.0);
    EXPECT_EQ(fill->getAlphaInt64(), -1);
    EXPECT_EQ(fill->getBetaInt64(), -1);
    fill->setAlpha(1.0);
    EXPECT_EQ(fill->getAlpha(), 1.0);
    EXPECT_EQ(fill->getInput(1), nullptr);
    EXPECT_EQ(fill->getNbInputs(), 3);
    expectNoError();
}

TEST_F(FillTest, Refusals)
{
    EXPECT_EQ(mNetwork->addFill(dims({-1}), FillOperation::kLINSPACE, DataType::kFLOAT), nullptr);
    expectError({"INetworkDefinition::addFill", "the dimensions [-1] are not a static shape", "setInput(0)"});
    EXPECT_EQ(mNetwork->addFill(dims({2}), static_cast<FillOperation>(3), DataType::kFLOAT), nullptr);
    expectError({"fill operation 3 is not a valid FillOperation"});
    EXPECT_EQ(mNetwork->addFill(dims({2}), FillOperation::kLINSPACE, static_cast<DataType>(20)), nullptr);
    expectError({"output type 20 is not a valid DataType"});
    EXPECT_EQ(mNetwork->addFill(dims({2}), FillOperation::kLINSPACE, DataType::kBOOL), nullptr);
    expectError({"INetworkDefinition::addFill", "a fill produces kFLOAT, kHALF, kINT32 or kINT64"});
    EXPECT_EQ(mNetwork->addFill(dims({2}), FillOperation::kRANDOM_UNIFORM, DataType::kINT32), nullptr);
    expectError({"random fills produce kFLOAT or kHALF"});
    nvinfer1::IFillLayer* fill = mNetwork->addFill(dims({2}), FillOperation::kLINSPACE, DataType::kINT64);
    fill->setOperation(FillOperation::kRANDOM_NORMAL);
    expectError({"IFillLayer::setOperation", "random fills produce kFLOAT or kHALF"});
    fill->setToType(DataType::kINT8);
    expectError({"IFillLayer::setToType", "a fill produces"});
    fill->setDimensions(dims({2, -2}));
    expectError({"IFillLayer::setDimensions", "extent 1 is -2"});
    fill->setOperation(static_cast<FillOperation>(-1));
    expectError({"IFillLayer::setOperation", "fill operation -1"});
    EXPECT_EQ(fill->getOperation(), FillOperation::kLINSPACE);
    EXPECT_EQ(fill->getToType(), DataType::kINT64);
}

} // namespace
} // namespace kiln::test
