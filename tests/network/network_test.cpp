// SPDX-License-Identifier: Apache-2.0
// INetworkDefinition through the public API: inputs, outputs, access by index, names, flags, tensor removal,
// debug tensors, weight names and error recorders, and the refusals of each with their messages.
#include "support/api_test.h"

#include <cmath>
#include <cstring>

namespace kiln::test
{
namespace
{

using nvinfer1::ActivationType;
using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::ILogger;
using nvinfer1::NetworkDefinitionCreationFlag;
using nvinfer1::Weights;

using NetworkTest = ApiTest;

TEST_F(NetworkTest, AddInputKeepsNameTypeAndShape)
{
    nvinfer1::ITensor* x = input("x", dims({-1, 3, 224, 224}), DataType::kHALF);
    ASSERT_NE(x, nullptr);
    EXPECT_STREQ(x->getName(), "x");
    EXPECT_EQ(x->getType(), DataType::kHALF);
    EXPECT_DIMS(x->getDimensions(), {-1, 3, 224, 224});
    EXPECT_TRUE(x->isNetworkInput());
    EXPECT_FALSE(x->isNetworkOutput());
    EXPECT_EQ(mNetwork->getNbInputs(), 1);
    EXPECT_EQ(mNetwork->getInput(0), x);
    EXPECT_EQ(mNetwork->getNbLayers(), 0);
    EXPECT_EQ(mNetwork->getNbOutputs(), 0);
    EXPECT_NE(input("scalar", dims({})), nullptr);
    expectNoError();
}

TEST_F(NetworkTest, AddInputRefusesBadArguments)
{
    EXPECT_EQ(mNetwork->addInput(nullptr, DataType::kFLOAT, dims({1})), nullptr);
    expectError({"INetworkDefinition::addInput", "the input name is null"});
    EXPECT_EQ(mNetwork->addInput("", DataType::kFLOAT, dims({1})), nullptr);
    expectError({"INetworkDefinition::addInput", "the input name is empty"});
    EXPECT_EQ(mNetwork->addInput("x", static_cast<DataType>(42), dims({1})), nullptr);
    expectError({"input \"x\"", "data type 42 is not a valid DataType"});
    EXPECT_EQ(mNetwork->addInput("x", DataType::kFLOAT, Dims{9, {}}), nullptr);
    expectError({"input \"x\"", "rank 9", "0 to 8 dimensions"});
    EXPECT_EQ(mNetwork->addInput("x", DataType::kFLOAT, Dims{-1, {}}), nullptr);
    expectError({"input \"x\"", "rank -1"});
    EXPECT_EQ(mNetwork->addInput("x", DataType::kFLOAT, dims({2, -2})), nullptr);
    expectError({"input \"x\"", "extent 1 of [2, -2] is -2", "-1 (set at run time) or at least 0"});
    ASSERT_NE(input("x", dims({1})), nullptr);
    EXPECT_EQ(input("x", dims({2})), nullptr);
    expectError({"INetworkDefinition::addInput", "already called \"x\"", "must be unique"});
    EXPECT_EQ(mNetwork->getNbInputs(), 1);
}

TEST_F(NetworkTest, MarkAndUnmarkOutputs)
{
    nvinfer1::ITensor* x = input("x", dims({4}));
    nvinfer1::ITensor* y = mNetwork->addActivation(*x, ActivationType::kRELU)->getOutput(0);
    mNetwork->markOutput(*y);
    expectNoError();
    EXPECT_TRUE(y->isNetworkOutput());
    ASSERT_EQ(mNetwork->getNbOutputs(), 1);
    EXPECT_EQ(mNetwork->getOutput(0), y);

    mNetwork->markOutput(*y);
    EXPECT_EQ(mNetwork->getNbOutputs(), 1);
    EXPECT_EQ(mLogger.messages(ILogger::Severity::kWARNING).size(), 1U);
    mLogger.clear();

    mNetwork->unmarkOutput(*y);
    expectNoError();
    EXPECT_FALSE(y->isNetworkOutput());
    EXPECT_EQ(mNetwork->getNbOutputs(), 0);

    mNetwork->unmarkOutput(*y);
    expectError({"INetworkDefinition::unmarkOutput", "is not a network output"});
}

TEST_F(NetworkTest, AnInputCannotBeAnOutput)
{
    nvinfer1::ITensor* x = input("x", dims({4}));
    mNetwork->markOutput(*x);
    expectError({"INetworkDefinition::markOutput", "tensor \"x\" is a network input", "identity layer"});
    EXPECT_FALSE(x->isNetworkOutput());
    EXPECT_FALSE(mNetwork->markOutputForShapes(*x));
    expectError({"INetworkDefinition::markOutputForShapes", "tensor \"x\" is a network input"});
}

TEST_F(NetworkTest, OutputNamesMustDifferFromOtherInputAndOutputNames)
{
    nvinfer1::ITensor* x = input("x", dims({4}));
    nvinfer1::ITensor* y = mNetwork->addIdentity(*x)->getOutput(0);
    y->setName("x");
    expectNoError(); // not an output yet
    mNetwork->markOutput(*y);
    expectError({"INetworkDefinition::markOutput", "already called \"x\""});
    y->setName("y");
    mNetwork->markOutput(*y);
    expectNoError();
    y->setName("x");
    expectError({"ITensor::setName", "tensor \"y\"", "already called \"x\""});
    EXPECT_STREQ(y->getName(), "y");
}

TEST_F(NetworkTest, ShapeOutputs)
{
    nvinfer1::ITensor* x = input("x", dims({2, 3}));
    nvinfer1::ITensor* shape = mNetwork->addShape(*x)->getOutput(0);
    EXPECT_TRUE(mNetwork->markOutputForShapes(*shape));
    expectNoError();
    EXPECT_TRUE(shape->isNetworkOutput());
    EXPECT_TRUE(shape->isShapeTensor());
    ASSERT_EQ(mNetwork->getNbOutputs(), 1);
    EXPECT_EQ(mNetwork->getOutput(0), shape);

    EXPECT_FALSE(mNetwork->markOutputForShapes(*shape));
    expectError({"INetworkDefinition::markOutputForShapes", "is already an output"});
    mNetwork->markOutput(*shape);
    expectError({"INetworkDefinition::markOutput", "already a shape output"});
    mNetwork->unmarkOutput(*shape);
    expectError({"INetworkDefinition::unmarkOutput", "it is a shape output"});

    nvinfer1::ITensor* other = mNetwork->addShape(*x)->getOutput(0);
    other->setName(shape->getName());
    EXPECT_FALSE(mNetwork->markOutputForShapes(*other));
    expectError({"INetworkDefinition::markOutputForShapes", "another network input or output is already called"});

    EXPECT_TRUE(mNetwork->unmarkOutputForShapes(*shape));
    EXPECT_EQ(mNetwork->getNbOutputs(), 0);
    EXPECT_FALSE(mNetwork->unmarkOutputForShapes(*shape));
    expectError({"INetworkDefinition::unmarkOutputForShapes", "is not a shape output"});
}

TEST_F(NetworkTest, AccessByIndexRefusesOutOfRange)
{
    input("x", dims({1}));
    EXPECT_EQ(mNetwork->getInput(1), nullptr);
    expectError({"INetworkDefinition::getInput", "input index 1 is out of range", "1 inputs"});
    EXPECT_EQ(mNetwork->getInput(-1), nullptr);
    expectError({"input index -1"});
    EXPECT_EQ(mNetwork->getOutput(0), nullptr);
    expectError({"INetworkDefinition::getOutput", "output index 0 is out of range"});
    EXPECT_EQ(mNetwork->getLayer(0), nullptr);
    expectError({"INetworkDefinition::getLayer", "layer index 0 is out of range", "0 layers"});
}

TEST_F(NetworkTest, LayersAreKeptInOrderWithDefaultNames)
{
    nvinfer1::ITensor* x = input("x", dims({4}));
    nvinfer1::ILayer* first = mNetwork->addActivation(*x, ActivationType::kRELU);
    nvinfer1::ILayer* second = mNetwork->addUnary(*first->getOutput(0), nvinfer1::UnaryOperation::kEXP);
    ASSERT_EQ(mNetwork->getNbLayers(), 2);
    EXPECT_EQ(mNetwork->getLayer(0), first);
    EXPECT_EQ(mNetwork->getLayer(1), second);
    EXPECT_STREQ(first->getName(), "(Unnamed Layer* 0) [Activation]");
    EXPECT_STREQ(second->getName(), "(Unnamed Layer* 1) [Unary]");
    EXPECT_STREQ(first->getOutput(0)->getName(), "(Unnamed Layer* 0) [Activation]_output");
    EXPECT_EQ(second->getInput(0), first->getOutput(0));
    second->setName("exp");
    EXPECT_STREQ(second->getName(), "exp");
    EXPECT_STREQ(second->getOutput(0)->getName(), "(Unnamed Layer* 1) [Unary]_output");
    second->setName(nullptr);
    expectError({"IUnaryLayer::setName", "layer \"exp\"", "the name is null"});
}

TEST_F(NetworkTest, NameAndFlags)
{
    EXPECT_STREQ(mNetwork->getName(), "Unnamed Network 0");
    mNetwork->setName("resnet");
    EXPECT_STREQ(mNetwork->getName(), "resnet");
    mNetwork->setName(nullptr);
    expectError({"INetworkDefinition::setName", "the name is null"});
    EXPECT_EQ(mNetwork->getFlags(), 0U);
    EXPECT_FALSE(mNetwork->getFlag(NetworkDefinitionCreationFlag::kSTRONGLY_TYPED));
    EXPECT_FALSE(mNetwork->hasImplicitBatchDimension());
    EXPECT_EQ(&mNetwork->getBuilder(), mBuilder);

    recreate(flagBit(NetworkDefinitionCreationFlag::kSTRONGLY_TYPED));
    EXPECT_STREQ(mNetwork->getName(), "Unnamed Network 1");
    EXPECT_EQ(mNetwork->getFlags(), flagBit(NetworkDefinitionCreationFlag::kSTRONGLY_TYPED));
    EXPECT_TRUE(mNetwork->getFlag(NetworkDefinitionCreationFlag::kSTRONGLY_TYPED));
    EXPECT_FALSE(mNetwork->getFlag(static_cast<NetworkDefinitionCreationFlag>(7)));
    expectError({"INetworkDefinition::getFlag", "flag 7 is not a valid NetworkDefinitionCreationFlag"});
}

TEST_F(NetworkTest, TensorsOfAnotherNetworkAreRefused)
{
    nvinfer1::INetworkDefinition* other = mBuilder->createNetworkV2(0);
    nvinfer1::ITensor* foreign = other->addInput("foreign", DataType::kFLOAT, dims({4}));
    EXPECT_EQ(mNetwork->addActivation(*foreign, ActivationType::kRELU), nullptr);
    expectError({"INetworkDefinition::addActivation", "the input \"foreign\" is not a tensor of this network"});
    mNetwork->markOutput(*foreign);
    expectError({"INetworkDefinition::markOutput", "\"foreign\" is not a tensor of this network"});
    delete other;
}

TEST_F(NetworkTest, RemoveTensor)
{
    nvinfer1::ITensor* unused = input("unused", dims({1}));
    nvinfer1::ITensor* x = input("x", dims({4}));
    nvinfer1::ILayer* relu = mNetwork->addActivation(*x, ActivationType::kRELU);

    mNetwork->removeTensor(*x);
    expectError({"INetworkDefinition::removeTensor", "tensor \"x\" is input 0 of layer", "[Activation]"});
    mNetwork->removeTensor(*relu->getOutput(0));
    expectError({"INetworkDefinition::removeTensor", "is output 0 of layer"});

    mNetwork->removeTensor(*unused);
    expectNoError();
    ASSERT_EQ(mNetwork->getNbInputs(), 1);
    EXPECT_EQ(mNetwork->getInput(0), x);
    EXPECT_EQ(mNetwork->addIdentity(*unused), nullptr);
    expectError({"INetworkDefinition::addIdentity", "the input \"unused\" was removed from the network"});
    EXPECT_NE(input("unused", dims({1})), nullptr); // the name is free again
}

TEST_F(NetworkTest, DebugTensors)
{
    nvinfer1::ITensor* x = input("x", dims({4}));
    EXPECT_FALSE(mNetwork->isDebugTensor(*x));
    EXPECT_TRUE(mNetwork->markDebug(*x));
    EXPECT_TRUE(mNetwork->isDebugTensor(*x));
    EXPECT_TRUE(mNetwork->unmarkDebug(*x));
    EXPECT_FALSE(mNetwork->isDebugTensor(*x));
    EXPECT_TRUE(mNetwork->markUnfusedTensorsAsDebugTensors());
    EXPECT_TRUE(mNetwork->unmarkUnfusedTensorsAsDebugTensors());
    expectNoError();
}

TEST_F(NetworkTest, WeightsNamesAndRefitMarks)
{
    float values[4] = {1, 2, 3, 4};
    Weights const weights{DataType::kFLOAT, values, 4};
    float other[1] = {0};
    EXPECT_FALSE(mNetwork->setWeightsName(weights, "w"));
    expectError({"INetworkDefinition::setWeightsName", "no layer of the network uses these weights"});
    EXPECT_FALSE(mNetwork->setWeightsName(Weights{DataType::kFLOAT, nullptr, 0}, "w"));
    expectError({"INetworkDefinition::setWeightsName", "no values to name"});

    ASSERT_NE(mNetwork->addConstant(dims({4}), weights), nullptr);
    ASSERT_NE(mNetwork->addConstant(dims({1}), Weights{DataType::kFLOAT, other, 1}), nullptr);
    EXPECT_TRUE(mNetwork->setWeightsName(weights, "w"));
    EXPECT_FALSE(mNetwork->setWeightsName(Weights{DataType::kFLOAT, other, 1}, "w"));
    expectError({"INetworkDefinition::setWeightsName", "other weights are already called \"w\""});

    EXPECT_FALSE(mNetwork->areWeightsMarkedRefittable("w"));
    EXPECT_TRUE(mNetwork->markWeightsRefittable("w"));
    EXPECT_TRUE(mNetwork->areWeightsMarkedRefittable("w"));
    EXPECT_TRUE(mNetwork->unmarkWeightsRefittable("w"));
    EXPECT_FALSE(mNetwork->areWeightsMarkedRefittable("w"));
    expectNoError();
    EXPECT_FALSE(mNetwork->markWeightsRefittable("nothing"));
    expectError({"INetworkDefinition::markWeightsRefittable", "no weights are called \"nothing\""});
    EXPECT_FALSE(mNetwork->unmarkWeightsRefittable("w"));
    expectError({"INetworkDefinition::unmarkWeightsRefittable", "weights \"w\" are not marked refittable"});
}

TEST_F(NetworkTest, ErrorsReachTheErrorRecorder)
{
    TestErrorRecorder recorder;
    mNetwork->setErrorRecorder(&recorder);
    EXPECT_EQ(mNetwork->getErrorRecorder(), &recorder);
    EXPECT_EQ(recorder.refCount(), 1);
    std::string const longName(300, 'n');
    EXPECT_EQ(mNetwork->getInput(5), nullptr);
    mNetwork->setName(nullptr);
    ASSERT_EQ(recorder.getNbErrors(), 2);
    EXPECT_EQ(recorder.getErrorCode(0), nvinfer1::ErrorCode::kINVALID_ARGUMENT);
    EXPECT_NE(std::strstr(recorder.getErrorDesc(0), "input index 5"), nullptr);
    input(longName.c_str(), dims({1}));
    input(longName.c_str(), dims({1}));
    ASSERT_EQ(recorder.getNbErrors(), 3);
    EXPECT_EQ(std::strlen(recorder.getErrorDesc(2)), nvinfer1::IErrorRecorder::kMAX_DESC_LENGTH);
    mNetwork->setErrorRecorder(nullptr);
    EXPECT_EQ(recorder.refCount(), 0);
    mLogger.clear();
}

TEST_F(NetworkTest, NetworksStartWithTheBuildersErrorRecorder)
{
    TestErrorRecorder recorder;
    mBuilder->setErrorRecorder(&recorder);
    nvinfer1::INetworkDefinition* network = mBuilder->createNetworkV2(0);
    EXPECT_EQ(network->getErrorRecorder(), &recorder);
    EXPECT_EQ(recorder.refCount(), 2);
    delete network;
    EXPECT_EQ(recorder.refCount(), 1);
    mBuilder->setErrorRecorder(nullptr);
    EXPECT_EQ(recorder.refCount(), 0);
}

} // namespace
} // namespace kiln::test
