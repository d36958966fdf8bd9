// SPDX-License-Identifier: Apache-2.0
// ISliceLayer: start, size and stride as given, kSTRICT_BOUNDS by default, tensor inputs for each parameter,
// axes, output shape, refusals; and the empty-tensor trick (a zero-stride slice of an empty constant).
#include "support/api_test.h"

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::SampleMode;

using SliceTest = ApiTest;

TEST_F(SliceTest, ParametersAndDefaults)
{
    nvinfer1::ISliceLayer* slice
        = mNetwork->addSlice(*input("x", dims({4, 5, 6})), dims({0, 1, 2}), dims({2, 2, 2}), dims({1, 2, -1}));
    ASSERT_NE(slice, nullptr);
    EXPECT_STREQ(slice->getName(), "(Unnamed Layer* 0) [Slice]");
    EXPECT_DIMS(slice->getStart(), {0, 1, 2});
    EXPECT_DIMS(slice->getSize(), {2, 2, 2});
    EXPECT_DIMS(slice->getStride(), {1, 2, -1});
    EXPECT_EQ(slice->getMode(), SampleMode::kSTRICT_BOUNDS);
    EXPECT_EQ(slice->getAxes().nbDims, -1);
    EXPECT_DIMS(slice->getOutput(0)->getDimensions(), {2, 2, 2});
    slice->setMode(SampleMode::kREFLECT);
    slice->setStart(dims({1}));
    slice->setSize(dims({3}));
    slice->setStride(dims({1}));
    slice->setAxes(dims({-2}));
    EXPECT_EQ(slice->getMode(), SampleMode::kREFLECT);
    EXPECT_DIMS(slice->getAxes(), {-2});
    EXPECT_DIMS(slice->getOutput(0)->getDimensions(), {4, 3, 6});
    expectNoError();
}

TEST_F(SliceTest, ParametersFromTensors)
{
    nvinfer1::ISliceLayer* slice
        = mNetwork->addSlice(*input("x", dims({4, 5})), dims({0, 0}), dims({2, 2}), dims({1, 1}));
    nvinfer1::ITensor* start = input("start", dims({2}), DataType::kINT64);
    nvinfer1::ITensor* size = input("size", dims({2}), DataType::kINT64);
    nvinfer1::ITensor* fill = input("fill", dims({}));
    slice->setInput(2, *size);
    EXPECT_EQ(slice->getSize().nbDims, -1);
    EXPECT_DIMS(slice->getStart(), {0, 0});
    EXPECT_EQ(slice->getInput(1), nullptr);
    EXPECT_DIMS(slice->getOutput(0)->getDimensions(), {-1, -1});
    slice->setInput(1, *start);
    slice->setInput(4, *fill);
    slice->setMode(SampleMode::kFILL);
    EXPECT_EQ(slice->getStart().nbDims, -1);
    EXPECT_EQ(slice->getNbInputs(), 5);
    EXPECT_TRUE(size->isShapeTensor());
    EXPECT_FALSE(fill->isShapeTensor());
    slice->setSize(dims({1, 1}));
    EXPECT_DIMS(slice->getSize(), {1, 1});
    EXPECT_EQ(slice->getInput(2), nullptr);
    EXPECT_EQ(slice->getNbInputs(), 5);
    expectNoError();
    slice->setInput(6, *start);
    expectError({"ISliceLayer::setInput", "input index 6 is out of range", "inputs 0 to 5"});
}

TEST_F(SliceTest, EmptyTensorTrick)
{
    // A shape tensor reaches a layer as the zero-stride slice of an empty constant: the slice's size input is the
    // shape and its output has that many elements, none read.
    nvinfer1::IConstantLayer* empty = mNetwork->addConstant(dims({0}), nvinfer1::Weights{DataType::kFLOAT, nullptr, 0});
    ASSERT_NE(empty, nullptr);
    EXPECT_DIMS(empty->getOutput(0)->getDimensions(), {0});
    nvinfer1::ISliceLayer* slice = mNetwork->addSlice(*empty->getOutput(0), dims({0}), dims({0}), dims({0}));
    ASSERT_NE(slice, nullptr);
    nvinfer1::ITensor* shape = input("shape", dims({1}), DataType::kINT32);
    slice->setInput(2, *shape);
    EXPECT_DIMS(slice->getStride(), {0});
    EXPECT_TRUE(shape->isShapeTensor());
    expectNoError();
}

TEST_F(SliceTest, Refusals)
{
    nvinfer1::ITensor* x = input("x", dims({4, 5}));
    EXPECT_EQ(mNetwork->addSlice(*x, dims({0, 0}), dims({1}), dims({1, 1})), nullptr);
    expectError({"INetworkDefinition::addSlice", "start [0, 0], size [1] and stride [1, 1] differ in rank"});
    EXPECT_EQ(mNetwork->addSlice(*x, dims({0, 0}), dims({1, -1}), dims({1, 1})), nullptr);
    expectError({"extent 1 of the size [1, -1] is negative"});
    EXPECT_EQ(mNetwork->addSlice(*x, nvinfer1::Dims{9, {}}, dims({1}), dims({1})), nullptr);
    expectError({"one has 9"});
    nvinfer1::ISliceLayer* slice = mNetwork->addSlice(*x, dims({0, 0}), dims({1, 1}), dims({1, 1}));
    slice->setSize(dims({1, -4}));
    expectError({"ISliceLayer::setSize", "extent 1 is -4"});
    slice->setStart(nvinfer1::Dims{-3, {}});
    expectError({"ISliceLayer::setStart", "has -3 dimensions"});
    slice->setStride(nvinfer1::Dims{10, {}});
    expectError({"ISliceLayer::setStride"});
    slice->setMode(static_cast<SampleMode>(5));
    expectError({"ISliceLayer::setMode", "sample mode 5"});
    slice->setAxes(dims({0, 0}));
    expectError({"ISliceLayer::setAxes", "axis 0 of [0, 0] is out of range or repeated"});
    slice->setAxes(dims({2}));
    expectError({"ISliceLayer::setAxes", "axis 2 of [2]"});
    EXPECT_DIMS(slice->getSize(), {1, 1});
    EXPECT_EQ(slice->getAxes().nbDims, -1);
}

} // namespace
} // namespace kiln::test
