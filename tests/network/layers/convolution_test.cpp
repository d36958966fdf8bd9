// SPDX-License-Identifier: Apache-2.0
// IConvolutionLayer: parameters as given, TensorRT's defaults, output shape, kernel and bias as tensor inputs, and
// every refusal with its message.
#include "support/api_test.h"

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::PaddingMode;
using nvinfer1::Weights;

class ConvolutionTest : public ApiTest
{
protected:
    nvinfer1::IConvolutionLayer* addConv(Dims const& inputShape = dims({1, 3, 8, 8}))
    {
        return mNetwork->addConvolutionNd(*input("x", inputShape), 4, dims({3, 3}), mKernel, mBias);
    }

    float mKernelValues[4 * 3 * 3 * 3]{};
    float mBiasValues[4]{};
    Weights mKernel{DataType::kFLOAT, mKernelValues, 4 * 3 * 3 * 3};
    Weights mBias{DataType::kFLOAT, mBiasValues, 4};
};

TEST_F(ConvolutionTest, ParametersAndDefaults)
{
    nvinfer1::IConvolutionLayer* conv = addConv();
    ASSERT_NE(conv, nullptr);
    EXPECT_EQ(conv->getType(), nvinfer1::LayerType::kCONVOLUTION);
    EXPECT_STREQ(conv->getName(), "(Unnamed Layer* 0) [Convolution]");
    EXPECT_EQ(conv->getNbOutputMaps(), 4);
    EXPECT_DIMS(conv->getKernelSizeNd(), {3, 3});
    EXPECT_EQ(conv->getKernelWeights().values, mKernelValues);
    EXPECT_EQ(conv->getKernelWeights().count, 108);
    EXPECT_EQ(conv->getBiasWeights().values, mBiasValues);
    EXPECT_EQ(conv->getNbGroups(), 1);
    EXPECT_DIMS(conv->getStrideNd(), {1, 1});
    EXPECT_DIMS(conv->getDilationNd(), {1, 1});
    EXPECT_DIMS(conv->getPrePadding(), {0, 0});
    EXPECT_DIMS(conv->getPostPadding(), {0, 0});
    EXPECT_DIMS(conv->getPaddingNd(), {0, 0});
    EXPECT_EQ(conv->getPaddingMode(), PaddingMode::kEXPLICIT_ROUND_DOWN);
    EXPECT_EQ(conv->getOutput(0)->getType(), DataType::kFLOAT);
    EXPECT_DIMS(conv->getOutput(0)->getDimensions(), {1, 4, 6, 6});
    expectNoError();
}

TEST_F(ConvolutionTest, Setters)
{
    nvinfer1::IConvolutionLayer* conv = addConv();
    conv->setNbOutputMaps(8);
    conv->setNbGroups(2);
    conv->setStrideNd(dims({2, 2}));
    conv->setPaddingNd(dims({1, 1}));
    conv->setDilationNd(dims({1, 2}));
    conv->setKernelSizeNd(dims({3, 5}));
    conv->setPaddingMode(PaddingMode::kEXPLICIT_ROUND_UP);
    Weights const none{DataType::kFLOAT, nullptr, 0};
    conv->setBiasWeights(none);
    conv->setKernelWeights(mKernel);
    expectNoError();
    EXPECT_EQ(conv->getNbOutputMaps(), 8);
    EXPECT_EQ(conv->getNbGroups(), 2);
    EXPECT_DIMS(conv->getStrideNd(), {2, 2});
    EXPECT_DIMS(conv->getPrePadding(), {1, 1});
    EXPECT_DIMS(conv->getPostPadding(), {1, 1});
    EXPECT_DIMS(conv->getDilationNd(), {1, 2});
    EXPECT_DIMS(conv->getKernelSizeNd(), {3, 5});
    EXPECT_EQ(conv->getPaddingMode(), PaddingMode::kEXPLICIT_ROUND_UP);
    EXPECT_EQ(conv->getBiasWeights().values, nullptr);
    conv->setPrePadding(dims({0, 1}));
    conv->setPostPadding(dims({2, 3}));
    EXPECT_DIMS(conv->getPaddingNd(), {0, 1});
    // H: (8 + 0 + 2 - 2 - 1) / 2 rounded up + 1 = 5; W: (8 + 1 + 3 - 8 - 1) / 2 rounded up + 1 = 3.
    EXPECT_DIMS(conv->getOutput(0)->getDimensions(), {1, 8, 5, 3});
    conv->setPaddingMode(PaddingMode::kSAME_UPPER);
    EXPECT_DIMS(conv->getOutput(0)->getDimensions(), {1, 8, 4, 4});
}

TEST_F(ConvolutionTest, ThreeDimensionsAndDynamicExtents)
{
    nvinfer1::IConvolutionLayer* conv = mNetwork->addConvolutionNd(
        *input("x", dims({-1, 2, 5, -1, 7})), 6, dims({1, 3, 3}), Weights{DataType::kFLOAT, nullptr, 0}, mBias);
    ASSERT_NE(conv, nullptr);
    EXPECT_DIMS(conv->getStrideNd(), {1, 1, 1});
    EXPECT_DIMS(conv->getOutput(0)->getDimensions(), {-1, 6, 5, -1, 5});
}

TEST_F(ConvolutionTest, KernelAndBiasAsTensors)
{
    nvinfer1::IConvolutionLayer* conv = mNetwork->addConvolutionNd(
        *input("x", dims({1, 3, 8, 8})), 4, dims({3, 3}), Weights{DataType::kFLOAT, nullptr, 0}, Weights{});
    ASSERT_NE(conv, nullptr);
    nvinfer1::ITensor* kernel = input("kernel", dims({4, 3, 3, 3}));
    nvinfer1::ITensor* bias = input("bias", dims({4}));
    conv->setInput(2, *bias);
    EXPECT_EQ(conv->getNbInputs(), 3);
    EXPECT_EQ(conv->getInput(1), nullptr); // an absent optional input
    conv->setInput(1, *kernel);
    EXPECT_EQ(conv->getInput(1), kernel);
    EXPECT_EQ(conv->getInput(2), bias);
    expectNoError();
    conv->setInput(3, *bias);
    expectError({"IConvolutionLayer::setInput", "input index 3 is out of range", "inputs 0 to 2"});
}

TEST_F(ConvolutionTest, AddRefusesBadArguments)
{
    nvinfer1::ITensor* x = input("x", dims({1, 3, 8, 8}));
    EXPECT_EQ(mNetwork->addConvolutionNd(*x, 0, dims({3, 3}), mKernel, mBias), nullptr);
    expectError({"INetworkDefinition::addConvolutionNd", "nbOutputMaps is 0"});
    EXPECT_EQ(mNetwork->addConvolutionNd(*x, 4, dims({3}), mKernel, mBias), nullptr);
    expectError({"INetworkDefinition::addConvolutionNd", "kernel size [3] has 1 dimensions", "2-D or 3-D"});
    EXPECT_EQ(mNetwork->addConvolutionNd(*x, 4, dims({3, 0}), mKernel, mBias), nullptr);
    expectError({"extent 1 of the kernel size [3, 0] is 0"});
    EXPECT_EQ(mNetwork->addConvolutionNd(*x, 4, dims({3, 3}), Weights{DataType::kFLOAT, nullptr, 5}, mBias), nullptr);
    expectError({"the kernel weights are unusable", "values are null but their count is not 0"});
    EXPECT_EQ(
        mNetwork->addConvolutionNd(*x, 4, dims({3, 3}), mKernel, Weights{DataType::kFLOAT, mBiasValues, -1}), nullptr);
    expectError({"the bias weights are unusable", "count is negative"});
    EXPECT_EQ(
        mNetwork->addConvolutionNd(*x, 4, dims({3, 3}), Weights{static_cast<DataType>(77), mKernelValues, 1}, mBias),
        nullptr);
    expectError({"the kernel weights are unusable", "type is not a valid DataType"});
    EXPECT_EQ(mNetwork->addConvolutionNd(*input("flat", dims({3, 8, 8})), 4, dims({3, 3}), mKernel, mBias), nullptr);
    expectError({"input \"flat\" has shape [3, 8, 8]", "2-D convolution needs batch, channel and 2 spatial"});
    EXPECT_EQ(mNetwork->getNbLayers(), 0);
}

TEST_F(ConvolutionTest, SettersRefuseBadValues)
{
    nvinfer1::IConvolutionLayer* conv = addConv();
    conv->setNbOutputMaps(0);
    expectError({"IConvolutionLayer::setNbOutputMaps", "layer \"(Unnamed Layer* 0) [Convolution]\"", "is 0"});
    conv->setNbGroups(-2);
    expectError({"IConvolutionLayer::setNbGroups", "nbGroups is -2"});
    conv->setKernelWeights(Weights{DataType::kFLOAT, nullptr, 3});
    expectError({"IConvolutionLayer::setKernelWeights", "values are null"});
    conv->setBiasWeights(Weights{DataType::kFLOAT, nullptr, 3});
    expectError({"IConvolutionLayer::setBiasWeights", "values are null"});
    conv->setStrideNd(dims({0, 1}));
    expectError({"IConvolutionLayer::setStrideNd", "the stride [0, 1]: extent 0 is 0", "at least 1"});
    conv->setDilationNd(dims({1, 1, 1, 1}));
    expectError({"IConvolutionLayer::setDilationNd", "has 4 dimensions; expected 1 to 3"});
    conv->setPaddingNd(dims({-1, 0}));
    expectError({"IConvolutionLayer::setPaddingNd", "extent 0 is -1", "at least 0"});
    conv->setPrePadding(dims({-1}));
    expectError({"IConvolutionLayer::setPrePadding"});
    conv->setPostPadding(Dims{0, {}});
    expectError({"IConvolutionLayer::setPostPadding", "has 0 dimensions"});
    conv->setKernelSizeNd(dims({4}));
    expectError({"IConvolutionLayer::setKernelSizeNd", "expected 2 to 3"});
    conv->setPaddingMode(static_cast<PaddingMode>(9));
    expectError({"IConvolutionLayer::setPaddingMode", "padding mode 9 is not a valid value"});
    EXPECT_EQ(conv->getNbOutputMaps(), 4);
    EXPECT_EQ(conv->getNbGroups(), 1);
    EXPECT_DIMS(conv->getStrideNd(), {1, 1});
    EXPECT_EQ(conv->getPaddingMode(), PaddingMode::kEXPLICIT_ROUND_DOWN);
}

} // namespace
} // namespace kiln::test
