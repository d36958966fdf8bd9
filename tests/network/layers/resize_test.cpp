// SPDX-License-Identifier: Apache-2.0
// IResizeLayer: TensorRT's defaults; output dimensions, scales and input 1, each dropping the others; the output
// shape before symbolic inference; every setting; refusals.
#include "support/api_test.h"

#include <cmath>
#include <limits>
#include <vector>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::InterpolationMode;
using nvinfer1::ResizeCoordinateTransformation;
using nvinfer1::ResizeRoundMode;
using nvinfer1::ResizeSelector;

using ResizeTest = ApiTest;

TEST_F(ResizeTest, Defaults)
{
    nvinfer1::ITensor* x = input("x", dims({1, 3, 4, 5}), DataType::kHALF);
    nvinfer1::IResizeLayer* resize = mNetwork->addResize(*x);
    ASSERT_NE(resize, nullptr);
    EXPECT_EQ(resize->getType(), nvinfer1::LayerType::kRESIZE);
    EXPECT_STREQ(resize->getName(), "(Unnamed Layer* 0) [Resize]");
    EXPECT_EQ(resize->getNbInputs(), 1);
    EXPECT_EQ(resize->getResizeMode(), InterpolationMode::kNEAREST);
    EXPECT_EQ(resize->getCoordinateTransformation(), ResizeCoordinateTransformation::kASYMMETRIC);
    EXPECT_EQ(resize->getSelectorForSinglePixel(), ResizeSelector::kFORMULA);
    EXPECT_EQ(resize->getNearestRounding(), ResizeRoundMode::kFLOOR);
    EXPECT_EQ(resize->getCubicCoeff(), -0.75F);
    EXPECT_FALSE(resize->getExcludeOutside());
    EXPECT_EQ(resize->getOutputDimensions().nbDims, -1);
    EXPECT_EQ(resize->getScales(0, nullptr), -1);
    EXPECT_EQ(resize->getOutput(0)->getType(), DataType::kHALF);
    EXPECT_DIMS(resize->getOutput(0)->getDimensions(), {1, 3, 4, 5}); // Nothing set: the input's shape.
    expectNoError();
}

TEST_F(ResizeTest, Settings)
{
    nvinfer1::IResizeLayer* resize = mNetwork->addResize(*input("x", dims({2, 2})));
    resize->setResizeMode(InterpolationMode::kCUBIC);
    resize->setCoordinateTransformation(ResizeCoordinateTransformation::kHALF_PIXEL);
    resize->setSelectorForSinglePixel(ResizeSelector::kUPPER);
    resize->setNearestRounding(ResizeRoundMode::kHALF_DOWN);
    resize->setCubicCoeff(-0.5F);
    resize->setExcludeOutside(true);
    EXPECT_EQ(resize->getResizeMode(), InterpolationMode::kCUBIC);
    EXPECT_EQ(resize->getCoordinateTransformation(), ResizeCoordinateTransformation::kHALF_PIXEL);
    EXPECT_EQ(resize->getSelectorForSinglePixel(), ResizeSelector::kUPPER);
    EXPECT_EQ(resize->getNearestRounding(), ResizeRoundMode::kHALF_DOWN);
    EXPECT_EQ(resize->getCubicCoeff(), -0.5F);
    EXPECT_TRUE(resize->getExcludeOutside());
    nvinfer1::ResizeMode const old = InterpolationMode::kLINEAR; // The older name of the enum.
    resize->setResizeMode(old);
    EXPECT_EQ(resize->getResizeMode(), InterpolationMode::kLINEAR);
    expectNoError();
}

TEST_F(ResizeTest, ScalesAndOutputDimensionsReplaceEachOther)
{
    nvinfer1::ITensor* x = input("x", dims({1, 3, -1, 5}));
    nvinfer1::IResizeLayer* resize = mNetwork->addResize(*x);
    std::vector<float> const scales{1.F, 1.F, 2.F, 0.6F};
    resize->setScales(scales.data(), 4);
    EXPECT_EQ(resize->getOutputDimensions().nbDims, -1);
    EXPECT_EQ(resize->getScales(0, nullptr), 4);
    std::vector<float> read(4, 0.F);
    EXPECT_EQ(resize->getScales(3, read.data()), 4); // Too small: nothing copied.
    EXPECT_EQ(read, std::vector<float>(4, 0.F));
    EXPECT_EQ(resize->getScales(4, read.data()), 4);
    EXPECT_EQ(read, scales);
    // floor(5 * 0.6f) is 3; the run-time extent stays unknown until symbolic inference.
    EXPECT_DIMS(resize->getOutput(0)->getDimensions(), {1, 3, -1, 3});

    resize->setOutputDimensions(dims({1, 3, 8, 10}));
    EXPECT_DIMS(resize->getOutputDimensions(), {1, 3, 8, 10});
    EXPECT_EQ(resize->getScales(4, read.data()), -1);
    EXPECT_DIMS(resize->getOutput(0)->getDimensions(), {1, 3, 8, 10});

    resize->setScales(scales.data(), 4);
    EXPECT_EQ(resize->getOutputDimensions().nbDims, -1);
    EXPECT_EQ(resize->getScales(0, nullptr), 4);
    expectNoError();
}

TEST_F(ResizeTest, ShapeTensorInput)
{
    nvinfer1::ITensor* x = input("x", dims({2, 3, 4}));
    nvinfer1::IResizeLayer* resize = mNetwork->addResize(*x);
    std::vector<float> const scales{1.F, 2.F, 2.F};
    resize->setScales(scales.data(), 3);
    nvinfer1::ITensor* shape = input("shape", dims({3}), DataType::kINT32);
    resize->setInput(1, *shape);
    EXPECT_TRUE(shape->isShapeTensor());
    EXPECT_EQ(resize->getNbInputs(), 2);
    EXPECT_EQ(resize->getOutputDimensions().nbDims, -1);
    EXPECT_EQ(resize->getScales(0, nullptr), -1); // Input 1 wins.
    EXPECT_DIMS(resize->getOutput(0)->getDimensions(), {-1, -1, -1});
    resize->setOutputDimensions(dims({2, 6, 8})); // Drops input 1.
    EXPECT_EQ(resize->getNbInputs(), 1);
    EXPECT_DIMS(resize->getOutput(0)->getDimensions(), {2, 6, 8});
    resize->setInput(1, *shape);
    resize->setScales(scales.data(), 3); // So do scales.
    EXPECT_EQ(resize->getNbInputs(), 1);
    EXPECT_DIMS(resize->getOutput(0)->getDimensions(), {2, 6, 8});
    expectNoError();
}

TEST_F(ResizeTest, Refusals)
{
    nvinfer1::INetworkDefinition* other = mBuilder->createNetworkV2(0);
    nvinfer1::ITensor* foreign = other->addInput("foreign", DataType::kFLOAT, dims({2}));
    EXPECT_EQ(mNetwork->addResize(*foreign), nullptr);
    expectError({"INetworkDefinition::addResize", "the input \"foreign\" is not a tensor of this network"});
    delete other;
    nvinfer1::IResizeLayer* resize = mNetwork->addResize(*input("x", dims({1, 2, 3})));
    std::vector<float> const good{1.F, 2.F, 2.F};
    resize->setScales(good.data(), 3);
    expectNoError();

    resize->setOutputDimensions(dims({1, -2, 3}));
    expectError({"IResizeLayer::setOutputDimensions", "extent 1 is -2"});
    resize->setOutputDimensions(dims({2, 4}));
    expectError(
        {"IResizeLayer::setOutputDimensions", "the output dimensions [2, 4] have 2 extents; the input has rank 3"});
    resize->setScales(good.data(), 0);
    expectError({"IResizeLayer::setScales", "nbScales is 0; it must be 1 to 8"});
    resize->setScales(good.data(), 9);
    expectError({"IResizeLayer::setScales", "nbScales is 9"});
    resize->setScales(nullptr, 3);
    expectError({"IResizeLayer::setScales", "scales is null but nbScales is 3"});
    resize->setScales(good.data(), 2);
    expectError({"IResizeLayer::setScales", "2 scales for an input of rank 3; give one per input axis"});
    for (float const bad : {0.F, -1.F, std::numeric_limits<float>::infinity(), std::nanf("")})
    {
        std::vector<float> const scales{1.F, bad, 1.F};
        resize->setScales(scales.data(), 3);
        expectError({"IResizeLayer::setScales", "scale 1 is", "; scales must be positive and finite"});
    }
    resize->setResizeMode(static_cast<InterpolationMode>(3));
    expectError({"IResizeLayer::setResizeMode", "interpolation mode 3 is not a valid value"});
    resize->setCoordinateTransformation(static_cast<ResizeCoordinateTransformation>(-1));
    expectError({"IResizeLayer::setCoordinateTransformation", "coordinate transformation -1 is not a valid value"});
    resize->setSelectorForSinglePixel(static_cast<ResizeSelector>(2));
    expectError({"IResizeLayer::setSelectorForSinglePixel", "selector 2 is not a valid value"});
    resize->setNearestRounding(static_cast<ResizeRoundMode>(4));
    expectError({"IResizeLayer::setNearestRounding", "rounding mode 4 is not a valid value"});
    resize->setCubicCoeff(std::numeric_limits<float>::infinity());
    expectError({"IResizeLayer::setCubicCoeff", "the cubic coefficient is inf; it must be finite"});
    resize->setInput(2, *input("extra", dims({3}), DataType::kINT32));
    expectError({"setInput", "input index 2 is out of range; this layer takes inputs 0 to 1"});

    // Nothing changed.
    EXPECT_EQ(resize->getScales(0, nullptr), 3);
    EXPECT_EQ(resize->getResizeMode(), InterpolationMode::kNEAREST);
    EXPECT_EQ(resize->getCoordinateTransformation(), ResizeCoordinateTransformation::kASYMMETRIC);
    EXPECT_EQ(resize->getSelectorForSinglePixel(), ResizeSelector::kFORMULA);
    EXPECT_EQ(resize->getNearestRounding(), ResizeRoundMode::kFLOOR);
    EXPECT_EQ(resize->getCubicCoeff(), -0.75F);
    EXPECT_DIMS(resize->getOutput(0)->getDimensions(), {1, 4, 6});
}

} // namespace
} // namespace kiln::test
