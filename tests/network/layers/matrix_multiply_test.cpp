// SPDX-License-Identifier: Apache-2.0
// IMatrixMultiplyLayer: operations as given, output shape with batch broadcast, refusals.
#include "support/api_test.h"

namespace kiln::test
{
namespace
{

using nvinfer1::MatrixOperation;

using MatrixMultiplyTest = ApiTest;

TEST_F(MatrixMultiplyTest, OperationsAndShape)
{
    nvinfer1::ITensor* a = input("a", dims({5, 1, 2, 3}));
    nvinfer1::ITensor* b = input("b", dims({4, 3, 7}));
    nvinfer1::IMatrixMultiplyLayer* mm
        = mNetwork->addMatrixMultiply(*a, MatrixOperation::kNONE, *b, MatrixOperation::kNONE);
    ASSERT_NE(mm, nullptr);
    EXPECT_STREQ(mm->getName(), "(Unnamed Layer* 0) [Matrix Multiply]");
    EXPECT_EQ(mm->getOperation(0), MatrixOperation::kNONE);
    EXPECT_EQ(mm->getOperation(1), MatrixOperation::kNONE);
    EXPECT_DIMS(mm->getOutput(0)->getDimensions(), {5, 4, 2, 7});
    mm->setOperation(0, MatrixOperation::kTRANSPOSE);
    EXPECT_EQ(mm->getOperation(0), MatrixOperation::kTRANSPOSE);
    EXPECT_DIMS(mm->getOutput(0)->getDimensions(), {5, 4, 3, 7});
    nvinfer1::IMatrixMultiplyLayer* matrixVector = mNetwork->addMatrixMultiply(
        *input("m", dims({2, 3})), MatrixOperation::kNONE, *input("w", dims({3})), MatrixOperation::kVECTOR);
    EXPECT_DIMS(matrixVector->getOutput(0)->getDimensions(), {2});
    matrixVector->setOperation(1, MatrixOperation::kNONE);
    EXPECT_EQ(matrixVector->getOutput(0)->getDimensions().nbDims, -1); // a 1-D input is no matrix
    nvinfer1::IMatrixMultiplyLayer* vector
        = mNetwork->addMatrixMultiply(*input("v", dims({3})), MatrixOperation::kVECTOR, *b, MatrixOperation::kNONE);
    EXPECT_DIMS(vector->getOutput(0)->getDimensions(), {4, 7});
    expectNoError();
}

TEST_F(MatrixMultiplyTest, Refusals)
{
    nvinfer1::ITensor* v = input("v", dims({3}));
    EXPECT_EQ(mNetwork->addMatrixMultiply(*v, MatrixOperation::kNONE, *v, MatrixOperation::kVECTOR), nullptr);
    expectError({"INetworkDefinition::addMatrixMultiply", "input \"v\" has shape [3]; operation 0 needs rank 2"});
    EXPECT_EQ(mNetwork->addMatrixMultiply(*v, static_cast<MatrixOperation>(3), *v, MatrixOperation::kVECTOR), nullptr);
    expectError({"matrix operations 3 and 2 are not both valid MatrixOperations"});
    nvinfer1::IMatrixMultiplyLayer* mm
        = mNetwork->addMatrixMultiply(*v, MatrixOperation::kVECTOR, *v, MatrixOperation::kVECTOR);
    mm->setOperation(2, MatrixOperation::kNONE);
    expectError({"IMatrixMultiplyLayer::setOperation", "input index 2 is not 0 or 1"});
    mm->setOperation(0, static_cast<MatrixOperation>(-1));
    expectError({"IMatrixMultiplyLayer::setOperation", "matrix operation -1"});
    EXPECT_EQ(mm->getOperation(-1), MatrixOperation::kNONE);
    expectError({"IMatrixMultiplyLayer::getOperation", "input index -1"});
    EXPECT_DIMS(mm->getOutput(0)->getDimensions(), {});
}

} // namespace
} // namespace kiln::test
