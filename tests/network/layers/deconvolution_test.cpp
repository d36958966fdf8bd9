// SPDX-License-Identifier: Apache-2.0
// IDeconvolutionLayer: parameters as given, TensorRT's defaults, the output shape under every padding mode, groups,
// dilation and 3-D, kernel and bias as tensor inputs, and every refusal with its message.
#include "support/api_test.h"

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::PaddingMode;
using nvinfer1::Weights;

class DeconvolutionTest : public ApiTest
{
protected:
    //! 3 input channels, 4 output maps, a 3x3 kernel [3, 4, 3, 3].
    nvinfer1::IDeconvolutionLayer* addDeconv(Dims const& inputShape = dims({1, 3, 8, 8}))
    {
        return mNetwork->addDeconvolutionNd(*input("x", inputShape), 4, dims({3, 3}), mKernel, mBias);
    }

    float mKernelValues[3 * 4 * 3 * 3]{};
    float mBiasValues[4]{};
    Weights mKernel{DataType::kFLOAT, mKernelValues, 3 * 4 * 3 * 3};
    Weights mBias{DataType::kFLOAT, mBiasValues, 4};
};

TEST_F(DeconvolutionTest, ParametersAndDefaults)
{
    nvinfer1::IDeconvolutionLayer* deconv = addDeconv();
    ASSERT_NE(deconv, nullptr);
    EXPECT_EQ(deconv->getType(), nvinfer1::LayerType::kDECONVOLUTION);
    EXPECT_STREQ(deconv->getName(), "(Unnamed Layer* 0) [Deconvolution]");
    EXPECT_EQ(deconv->getNbOutputMaps(), 4);
    EXPECT_DIMS(deconv->getKernelSizeNd(), {3, 3});
    EXPECT_EQ(deconv->getKernelWeights().values, mKernelValues);
    EXPECT_EQ(deconv->getKernelWeights().count, 108);
    EXPECT_EQ(deconv->getBiasWeights().values, mBiasValues);
    EXPECT_EQ(deconv->getNbGroups(), 1);
    EXPECT_DIMS(deconv->getStrideNd(), {1, 1});
    EXPECT_DIMS(deconv->getDilationNd(), {1, 1});
    EXPECT_DIMS(deconv->getPrePadding(), {0, 0});
    EXPECT_DIMS(deconv->getPostPadding(), {0, 0});
    EXPECT_DIMS(deconv->getPaddingNd(), {0, 0});
    EXPECT_EQ(deconv->getPaddingMode(), PaddingMode::kEXPLICIT_ROUND_DOWN);
    EXPECT_EQ(deconv->getNbInputs(), 1);
    EXPECT_EQ(deconv->getOutput(0)->getType(), DataType::kFLOAT);
    // (8 - 1) * 1 + 3 = 10.
    EXPECT_DIMS(deconv->getOutput(0)->getDimensions(), {1, 4, 10, 10});
    expectNoError();
}

TEST_F(DeconvolutionTest, SettersAndTheOutputShape)
{
    nvinfer1::IDeconvolutionLayer* deconv = addDeconv(dims({2, 6, 5, 4}));
    ASSERT_NE(deconv, nullptr);
    deconv->setNbOutputMaps(8);
    deconv->setNbGroups(2);
    deconv->setStrideNd(dims({2, 3}));
    deconv->setDilationNd(dims({1, 2}));
    deconv->setKernelSizeNd(dims({3, 2}));
    Weights const none{DataType::kFLOAT, nullptr, 0};
    deconv->setBiasWeights(none);
    deconv->setKernelWeights(mKernel);
    expectNoError();
    EXPECT_EQ(deconv->getNbOutputMaps(), 8);
    EXPECT_EQ(deconv->getNbGroups(), 2);
    EXPECT_DIMS(deconv->getStrideNd(), {2, 3});
    EXPECT_DIMS(deconv->getDilationNd(), {1, 2});
    EXPECT_DIMS(deconv->getKernelSizeNd(), {3, 2});
    EXPECT_EQ(deconv->getBiasWeights().values, nullptr);
    // H: (5 - 1) * 2 + 3 = 11; W: (4 - 1) * 3 + 1 + 2 * (2 - 1) = 12.
    EXPECT_DIMS(deconv->getOutput(0)->getDimensions(), {2, 8, 11, 12});
    deconv->setPaddingNd(dims({1, 2}));
    EXPECT_DIMS(deconv->getPrePadding(), {1, 2});
    EXPECT_DIMS(deconv->getPostPadding(), {1, 2});
    EXPECT_DIMS(deconv->getOutput(0)->getDimensions(), {2, 8, 9, 8});
    // Asymmetric: pre-padding trims the start, post-padding the end.
    deconv->setPrePadding(dims({0, 3}));
    deconv->setPostPadding(dims({2, 0}));
    EXPECT_DIMS(deconv->getPaddingNd(), {0, 3});
    EXPECT_DIMS(deconv->getOutput(0)->getDimensions(), {2, 8, 9, 9});
    // Nothing rounds: kEXPLICIT_ROUND_UP gives the same shape.
    deconv->setPaddingMode(PaddingMode::kEXPLICIT_ROUND_UP);
    EXPECT_EQ(deconv->getPaddingMode(), PaddingMode::kEXPLICIT_ROUND_UP);
    EXPECT_DIMS(deconv->getOutput(0)->getDimensions(), {2, 8, 9, 9});
    // SAME: min(I * S, (I - 1) * S + DK). H: DK 3 >= S 2, so 5 * 2; W: DK 3 == S 3, so 4 * 3.
    deconv->setPaddingMode(PaddingMode::kSAME_UPPER);
    EXPECT_DIMS(deconv->getOutput(0)->getDimensions(), {2, 8, 10, 12});
    deconv->setPaddingMode(PaddingMode::kSAME_LOWER);
    EXPECT_DIMS(deconv->getOutput(0)->getDimensions(), {2, 8, 10, 12});
    // W with stride 4 > DK 3: (4 - 1) * 4 + 3 = 15 < 16.
    deconv->setStrideNd(dims({2, 4}));
    EXPECT_DIMS(deconv->getOutput(0)->getDimensions(), {2, 8, 10, 15});
    expectNoError();
}

TEST_F(DeconvolutionTest, ThreeDimensionsAndDynamicExtents)
{
    nvinfer1::IDeconvolutionLayer* deconv = mNetwork->addDeconvolutionNd(
        *input("x", dims({-1, 2, 5, -1, 7})), 6, dims({1, 3, 3}), Weights{DataType::kFLOAT, nullptr, 0}, mBias);
    ASSERT_NE(deconv, nullptr);
    EXPECT_DIMS(deconv->getStrideNd(), {1, 1, 1});
    EXPECT_DIMS(deconv->getOutput(0)->getDimensions(), {-1, 6, 5, -1, 9});
    deconv->setStrideNd(dims({2, 2, 2}));
    EXPECT_DIMS(deconv->getOutput(0)->getDimensions(), {-1, 6, 9, -1, 15});
}

TEST_F(DeconvolutionTest, KernelAndBiasAsTensors)
{
    nvinfer1::IDeconvolutionLayer* deconv = mNetwork->addDeconvolutionNd(
        *input("x", dims({1, 3, 8, 8})), 4, dims({3, 3}), Weights{DataType::kFLOAT, nullptr, 0}, Weights{});
    ASSERT_NE(deconv, nullptr);
    nvinfer1::ITensor* kernel = input("kernel", dims({3, 4, 3, 3}));
    nvinfer1::ITensor* bias = input("bias", dims({4}));
    deconv->setInput(2, *bias);
    EXPECT_EQ(deconv->getNbInputs(), 3);
    EXPECT_EQ(deconv->getInput(1), nullptr); // an absent optional input
    deconv->setInput(1, *kernel);
    EXPECT_EQ(deconv->getInput(1), kernel);
    EXPECT_EQ(deconv->getInput(2), bias);
    expectNoError();
    deconv->setInput(3, *bias);
    expectError({"IDeconvolutionLayer::setInput", "input index 3 is out of range", "inputs 0 to 2"});
}

TEST_F(DeconvolutionTest, AddRefusesBadArguments)
{
    nvinfer1::ITensor* x = input("x", dims({1, 3, 8, 8}));
    EXPECT_EQ(mNetwork->addDeconvolutionNd(*x, 0, dims({3, 3}), mKernel, mBias), nullptr);
    expectError({"INetworkDefinition::addDeconvolutionNd", "nbOutputMaps is 0"});
    EXPECT_EQ(mNetwork->addDeconvolutionNd(*x, 4, dims({3}), mKernel, mBias), nullptr);
    expectError({"INetworkDefinition::addDeconvolutionNd", "kernel size [3] has 1 dimensions", "2-D or 3-D"});
    EXPECT_EQ(mNetwork->addDeconvolutionNd(*x, 4, dims({3, 0}), mKernel, mBias), nullptr);
    expectError({"extent 1 of the kernel size [3, 0] is 0"});
    EXPECT_EQ(mNetwork->addDeconvolutionNd(*x, 4, dims({3, 3}), Weights{DataType::kFLOAT, nullptr, 5}, mBias), nullptr);
    expectError({"the kernel weights are unusable", "values are null but their count is not 0"});
    EXPECT_EQ(mNetwork->addDeconvolutionNd(*x, 4, dims({3, 3}), mKernel, Weights{DataType::kFLOAT, mBiasValues, -1}),
        nullptr);
    expectError({"the bias weights are unusable", "count is negative"});
    EXPECT_EQ(mNetwork->addDeconvolutionNd(*input("flat", dims({3, 8, 8})), 4, dims({3, 3}), mKernel, mBias), nullptr);
    expectError({"input \"flat\" has shape [3, 8, 8]", "2-D deconvolution needs batch, channel and 2 spatial"});
    EXPECT_EQ(mNetwork->getNbLayers(), 0);
}

TEST_F(DeconvolutionTest, SettersRefuseBadValues)
{
    nvinfer1::IDeconvolutionLayer* deconv = addDeconv();
    deconv->setNbOutputMaps(0);
    expectError({"IDeconvolutionLayer::setNbOutputMaps", "layer \"(Unnamed Layer* 0) [Deconvolution]\"", "is 0"});
    deconv->setNbGroups(-2);
    expectError({"IDeconvolutionLayer::setNbGroups", "nbGroups is -2"});
    deconv->setKernelWeights(Weights{DataType::kFLOAT, nullptr, 3});
    expectError({"IDeconvolutionLayer::setKernelWeights", "values are null"});
    deconv->setBiasWeights(Weights{DataType::kFLOAT, nullptr, 3});
    expectError({"IDeconvolutionLayer::setBiasWeights", "values are null"});
    deconv->setStrideNd(dims({0, 1}));
    expectError({"IDeconvolutionLayer::setStrideNd", "the stride [0, 1]: extent 0 is 0", "at least 1"});
    deconv->setDilationNd(dims({1, 1, 1, 1}));
    expectError({"IDeconvolutionLayer::setDilationNd", "has 4 dimensions; expected 1 to 3"});
    deconv->setPaddingNd(dims({-1, 0}));
    expectError({"IDeconvolutionLayer::setPaddingNd", "extent 0 is -1", "at least 0"});
    deconv->setPrePadding(dims({-1}));
    expectError({"IDeconvolutionLayer::setPrePadding"});
    deconv->setPostPadding(Dims{0, {}});
    expectError({"IDeconvolutionLayer::setPostPadding", "has 0 dimensions"});
    deconv->setKernelSizeNd(dims({4}));
    expectError({"IDeconvolutionLayer::setKernelSizeNd", "expected 2 to 3"});
    deconv->setPaddingMode(static_cast<PaddingMode>(9));
    expectError({"IDeconvolutionLayer::setPaddingMode", "padding mode 9 is not a valid value"});
    EXPECT_EQ(deconv->getNbOutputMaps(), 4);
    EXPECT_EQ(deconv->getNbGroups(), 1);
    EXPECT_DIMS(deconv->getStrideNd(), {1, 1});
    EXPECT_EQ(deconv->getPaddingMode(), PaddingMode::kEXPLICIT_ROUND_DOWN);
    EXPECT_EQ(deconv->getKernelWeights().values, mKernelValues);
}

} // namespace
} // namespace kiln::test
