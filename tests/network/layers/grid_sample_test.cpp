// SPDX-License-Identifier: Apache-2.0
// IGridSampleLayer: the modes and align corners as given and their defaults, the output's type and shape, and every
// refusal with its message.
#include "support/api_test.h"

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::InterpolationMode;
using nvinfer1::SampleMode;

class GridSampleTest : public ApiTest
{
};

TEST_F(GridSampleTest, ParametersAndOutput)
{
    nvinfer1::ITensor* x = input("x", dims({-1, 3, 8, 9}), DataType::kHALF);
    nvinfer1::ITensor* grid = input("grid", dims({2, 5, 6, 2}), DataType::kHALF);
    nvinfer1::IGridSampleLayer* layer = mNetwork->addGridSample(*x, *grid);
    ASSERT_NE(layer, nullptr);
    EXPECT_EQ(layer->getType(), nvinfer1::LayerType::kGRID_SAMPLE);
    EXPECT_STREQ(layer->getName(), "(Unnamed Layer* 0) [GridSample]");
    // TensorRT's defaults: bilinear, corners not aligned, zeros outside (kFILL).
    EXPECT_EQ(layer->getInterpolationMode(), InterpolationMode::kLINEAR);
    EXPECT_FALSE(layer->getAlignCorners());
    EXPECT_EQ(layer->getSampleMode(), SampleMode::kFILL);
    ASSERT_EQ(layer->getNbInputs(), 2);
    EXPECT_EQ(layer->getInput(0), x);
    EXPECT_EQ(layer->getInput(1), grid);
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kHALF);
    EXPECT_DIMS(layer->getOutput(0)->getDimensions(), {2, 3, 5, 6});

    layer->setInterpolationMode(InterpolationMode::kCUBIC);
    layer->setAlignCorners(true);
    EXPECT_TRUE(layer->setSampleMode(SampleMode::kREFLECT));
    EXPECT_EQ(layer->getInterpolationMode(), InterpolationMode::kCUBIC);
    EXPECT_TRUE(layer->getAlignCorners());
    EXPECT_EQ(layer->getSampleMode(), SampleMode::kREFLECT);
    EXPECT_TRUE(layer->setSampleMode(SampleMode::kCLAMP));
    EXPECT_EQ(layer->getSampleMode(), SampleMode::kCLAMP);
    layer->setInterpolationMode(InterpolationMode::kNEAREST);
    EXPECT_EQ(layer->getInterpolationMode(), InterpolationMode::kNEAREST);
    expectNoError();
}

TEST_F(GridSampleTest, AddRefusals)
{
    nvinfer1::ITensor* x = input("x", dims({1, 3, 8, 9}));
    nvinfer1::ITensor* grid = input("grid", dims({1, 5, 6, 2}));
    nvinfer1::ITensor* ints = input("i", dims({1, 3, 8, 9}), DataType::kINT32);
    EXPECT_EQ(mNetwork->addGridSample(*ints, *grid), nullptr);
    expectError(
        {"INetworkDefinition::addGridSample", "input \"i\" is kINT32; a grid sample takes kFLOAT, kHALF or kBF16"});
    nvinfer1::ITensor* halfGrid = input("h", dims({1, 5, 6, 2}), DataType::kHALF);
    EXPECT_EQ(mNetwork->addGridSample(*x, *halfGrid), nullptr);
    expectError({"the grid \"h\" is kHALF but the input \"x\" is kFLOAT; they must be one type"});
    nvinfer1::ITensor* volume = input("v", dims({1, 3, 4, 8, 9}));
    EXPECT_EQ(mNetwork->addGridSample(*volume, *grid), nullptr);
    expectError({"the input \"v\" is [1, 3, 4, 8, 9] and the grid \"grid\" is [1, 5, 6, 2]",
        "a grid sample takes a 4-D input [N, C, H, W] and a 4-D grid [N, H_out, W_out, 2]"});
    EXPECT_EQ(mNetwork->getNbLayers(), 0);
}

TEST_F(GridSampleTest, SetterRefusals)
{
    nvinfer1::IGridSampleLayer* layer
        = mNetwork->addGridSample(*input("x", dims({1, 1, 2, 2})), *input("g", dims({1, 1, 1, 2})));
    ASSERT_NE(layer, nullptr);
    for (SampleMode const mode : {SampleMode::kSTRICT_BOUNDS, SampleMode::kWRAP, static_cast<SampleMode>(7)})
    {
        EXPECT_FALSE(layer->setSampleMode(mode));
        expectError({"IGridSampleLayer::setSampleMode", "layer \"(Unnamed Layer* 0) [GridSample]\"",
            "is not one a grid sample takes (kFILL, kCLAMP or kREFLECT)"});
    }
    EXPECT_EQ(layer->getSampleMode(), SampleMode::kFILL);
    layer->setInterpolationMode(static_cast<InterpolationMode>(3));
    expectError({"IGridSampleLayer::setInterpolationMode", "interpolation mode 3 is not a valid value"});
    EXPECT_EQ(layer->getInterpolationMode(), InterpolationMode::kLINEAR);
}

} // namespace
} // namespace kiln::test
