// SPDX-License-Identifier: Apache-2.0
// ILayer through the public API, on any kind: inputs and outputs by index, setInput (replace, append optional
// inputs, no cycles, no foreign tensors), precision and output types in weakly and strongly typed networks,
// metadata and ranks.
#include "support/api_test.h"

namespace kiln::test
{
namespace
{

using nvinfer1::ActivationType;
using nvinfer1::DataType;
using nvinfer1::LayerType;
using nvinfer1::NetworkDefinitionCreationFlag;

using LayerTest = ApiTest;

TEST_F(LayerTest, InputsAndOutputsByIndex)
{
    nvinfer1::ITensor* x = input("x", dims({4}));
    nvinfer1::ILayer* layer = mNetwork->addActivation(*x, ActivationType::kRELU);
    EXPECT_EQ(layer->getType(), LayerType::kACTIVATION);
    EXPECT_EQ(layer->getNbInputs(), 1);
    EXPECT_EQ(layer->getInput(0), x);
    EXPECT_EQ(layer->getNbOutputs(), 1);
    EXPECT_NE(layer->getOutput(0), nullptr);
    expectNoError();
    EXPECT_EQ(layer->getInput(1), nullptr);
    expectError({"IActivationLayer::getInput", "input index 1 is out of range; the layer has 1 inputs"});
    EXPECT_EQ(layer->getOutput(1), nullptr);
    expectError({"IActivationLayer::getOutput", "output index 1 is out of range"});
}

TEST_F(LayerTest, SetInputReplacesAndRefusesCyclesAndStrangers)
{
    nvinfer1::ITensor* x = input("x", dims({4}));
    nvinfer1::ITensor* z = input("z", dims({4}));
    nvinfer1::ILayer* first = mNetwork->addActivation(*x, ActivationType::kRELU);
    nvinfer1::ILayer* second = mNetwork->addActivation(*first->getOutput(0), ActivationType::kTANH);
    first->setInput(0, *z);
    expectNoError();
    EXPECT_EQ(first->getInput(0), z);

    first->setInput(0, *second->getOutput(0));
    expectError({"IActivationLayer::setInput", "is computed from this layer's outputs", "cycle"});
    first->setInput(0, *first->getOutput(0));
    expectError({"cycle"});
    first->setInput(1, *x);
    expectError({"IActivationLayer::setInput", "input index 1 is out of range", "inputs 0 to 0"});

    nvinfer1::INetworkDefinition* other = mBuilder->createNetworkV2(0);
    nvinfer1::ITensor* foreign = other->addInput("foreign", DataType::kFLOAT, dims({4}));
    first->setInput(0, *foreign);
    expectError({"ILayer::setInput", "\"foreign\" is not a tensor of this network"});
    delete other;
    EXPECT_EQ(first->getInput(0), z);
}

TEST_F(LayerTest, PrecisionAndOutputTypesInAWeaklyTypedNetwork)
{
    nvinfer1::ITensor* x = input("x", dims({4}));
    nvinfer1::ILayer* layer = mNetwork->addActivation(*x, ActivationType::kRELU);
    EXPECT_FALSE(layer->precisionIsSet());
    EXPECT_EQ(layer->getPrecision(), DataType::kFLOAT);
    layer->setPrecision(DataType::kHALF);
    EXPECT_TRUE(layer->precisionIsSet());
    EXPECT_EQ(layer->getPrecision(), DataType::kHALF);
    layer->resetPrecision();
    EXPECT_FALSE(layer->precisionIsSet());

    EXPECT_FALSE(layer->outputTypeIsSet(0));
    EXPECT_EQ(layer->getOutputType(0), DataType::kFLOAT);
    layer->setOutputType(0, DataType::kHALF);
    EXPECT_TRUE(layer->outputTypeIsSet(0));
    EXPECT_EQ(layer->getOutputType(0), DataType::kHALF);
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kHALF);
    layer->resetOutputType(0);
    EXPECT_FALSE(layer->outputTypeIsSet(0));
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kFLOAT);
    expectNoError();

    layer->setPrecision(static_cast<DataType>(99));
    expectError({"IActivationLayer::setPrecision", "data type 99 is not a valid value"});
    layer->setOutputType(1, DataType::kHALF);
    expectError({"IActivationLayer::setOutputType", "output index 1 is out of range"});
    layer->setOutputType(0, static_cast<DataType>(99));
    expectError({"IActivationLayer::setOutputType", "data type 99"});
    EXPECT_EQ(layer->getOutputType(3), DataType::kFLOAT);
    expectError({"IActivationLayer::getOutputType", "output index 3 is out of range"});
    EXPECT_FALSE(layer->outputTypeIsSet(-1));
    expectError({"IActivationLayer::outputTypeIsSet", "output index -1"});
    layer->resetOutputType(2);
    expectError({"IActivationLayer::resetOutputType", "output index 2"});
}

TEST_F(LayerTest, StronglyTypedNetworksRefusePrecisionCalls)
{
    recreate(flagBit(NetworkDefinitionCreationFlag::kSTRONGLY_TYPED));
    nvinfer1::ITensor* x = input("x", dims({4}));
    nvinfer1::ILayer* layer = mNetwork->addActivation(*x, ActivationType::kRELU);
    layer->setPrecision(DataType::kHALF);
    expectError({"IActivationLayer::setPrecision", "not allowed in a strongly typed network (kSTRONGLY_TYPED)"});
    EXPECT_FALSE(layer->precisionIsSet());
    layer->setOutputType(0, DataType::kHALF);
    expectError({"IActivationLayer::setOutputType", "not allowed in a strongly typed network"});
    EXPECT_FALSE(layer->outputTypeIsSet(0));
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kFLOAT);
}

TEST_F(LayerTest, MetadataAndRanks)
{
    nvinfer1::ILayer* layer = mNetwork->addIdentity(*input("x", dims({4})));
    EXPECT_STREQ(layer->getMetadata(), "");
    layer->setMetadata("from node 7");
    EXPECT_STREQ(layer->getMetadata(), "from node 7");
    layer->setMetadata(nullptr);
    expectError({"IIdentityLayer::setMetadata", "the metadata is null"});
    EXPECT_EQ(layer->getNbRanks(), 1);
    EXPECT_TRUE(layer->setNbRanks(1));
    EXPECT_FALSE(layer->setNbRanks(2));
    expectError({"IIdentityLayer::setNbRanks", "nbRanks is 2"});
}

} // namespace
} // namespace kiln::test
