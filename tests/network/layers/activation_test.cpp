// SPDX-License-Identifier: Apache-2.0
// IActivationLayer: every ActivationType, alpha and beta (default 0), type and shape of the output.
#include "support/api_test.h"

namespace kiln::test
{
namespace
{

using nvinfer1::ActivationType;
using nvinfer1::DataType;

using ActivationTest = ApiTest;

TEST_F(ActivationTest, EveryFunctionWithDefaults)
{
    nvinfer1::ITensor* x = input("x", dims({2, -1}), DataType::kHALF);
    for (int32_t i = 0; i < nvinfer1::EnumMax<ActivationType>(); ++i)
    {
        auto const type = static_cast<ActivationType>(i);
        nvinfer1::IActivationLayer* layer = mNetwork->addActivation(*x, type);
        ASSERT_NE(layer, nullptr) << i;
        EXPECT_EQ(layer->getActivationType(), type);
        EXPECT_EQ(layer->getAlpha(), 0.F);
        EXPECT_EQ(layer->getBeta(), 0.F);
        EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kHALF);
        EXPECT_DIMS(layer->getOutput(0)->getDimensions(), {2, -1});
    }
    expectNoError();
}

TEST_F(ActivationTest, Setters)
{
    nvinfer1::IActivationLayer* layer = mNetwork->addActivation(*input("x", dims({3})), ActivationType::kRELU);
    layer->setActivationType(ActivationType::kCLIP);
    layer->setAlpha(-1.F);
    layer->setBeta(6.F);
    EXPECT_EQ(layer->getActivationType(), ActivationType::kCLIP);
    EXPECT_EQ(layer->getAlpha(), -1.F);
    EXPECT_EQ(layer->getBeta(), 6.F);
    expectNoError();
}

TEST_F(ActivationTest, Refusals)
{
    nvinfer1::ITensor* x = input("x", dims({3}));
    EXPECT_EQ(mNetwork->addActivation(*x, static_cast<ActivationType>(14)), nullptr);
    expectError({"INetworkDefinition::addActivation", "activation type 14 is not a valid ActivationType"});
    nvinfer1::IActivationLayer* layer = mNetwork->addActivation(*x, ActivationType::kRELU);
    layer->setActivationType(static_cast<ActivationType>(-3));
    expectError({"IActivationLayer::setActivationType", "activation type -3 is not a valid value"});
    EXPECT_EQ(layer->getActivationType(), ActivationType::kRELU);
}

} // namespace
} // namespace kiln::test
