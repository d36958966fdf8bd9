// SPDX-License-Identifier: Apache-2.0
// IPluginV3Layer: the network keeps a clone of the application's plugin (the application's object stays its own
// and untouched beyond identity reads and clone()), reads outputs through the clone's build capability, deletes the
// clone with the network; shape inputs follow the data inputs; and each refusal names the plugin.
#include "support/api_test.h"
#include "support/recording_plugins.h"

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

class PluginV3Test : public ApiTest
{
protected:
    std::shared_ptr<PluginFamily> mFamily = std::make_shared<PluginFamily>();
    RecordingV3Plugin mPlugin{mFamily};
};

TEST_F(PluginV3Test, TheNetworkKeepsAClone)
{
    nvinfer1::ITensor* inputs[] = {input("a", dims({2, 3}), DataType::kHALF), input("b", dims({3}))};
    nvinfer1::ITensor* shapeInputs[] = {input("s", dims({2}), DataType::kINT64)};
    nvinfer1::IPluginV3Layer* layer = mNetwork->addPluginV3(inputs, 2, shapeInputs, 1, mPlugin);
    ASSERT_NE(layer, nullptr);
    expectNoError();
    EXPECT_EQ(layer->getType(), nvinfer1::LayerType::kPLUGIN_V3);
    EXPECT_STREQ(layer->getName(), "(Unnamed Layer* 0) [PluginV3]");
    ASSERT_EQ(layer->getNbInputs(), 3);
    EXPECT_EQ(layer->getInput(0), inputs[0]);
    EXPECT_EQ(layer->getInput(1), inputs[1]);
    EXPECT_EQ(layer->getInput(2), shapeInputs[0]);
    ASSERT_EQ(layer->getNbOutputs(), 2);
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kHALF);
    EXPECT_EQ(layer->getOutput(1)->getType(), DataType::kINT32);
    EXPECT_STREQ(layer->getOutput(1)->getName(), "(Unnamed Layer* 0) [PluginV3]_output_1");
    // getDimensions() asks getOutputShapes() with the inputs' shapes; this plugin gives no shapes: unknown rank.
    EXPECT_EQ(layer->getOutput(0)->getDimensions().nbDims, -1);
    EXPECT_TRUE(shapeInputs[0]->isShapeTensor());
    EXPECT_TRUE(inputs[0]->isExecutionTensor());

    EXPECT_NE(&layer->getPlugin(), static_cast<nvinfer1::IPluginV3*>(&mPlugin));
    EXPECT_EQ(mFamily->record.clones, 1);
    EXPECT_EQ(mFamily->record.alive, 2);
    EXPECT_EQ(
        mFamily->record.callsOf("original"), (std::vector<std::string>{"getCapabilityInterface(kCORE)", "clone"}));
    // Output types come from the data inputs' types only (kHALF = 1, kFLOAT = 0).
    EXPECT_EQ(mFamily->record.callsOf("clone1"),
        (std::vector<std::string>{
            "getCapabilityInterface(kBUILD)", "getNbOutputs", "getOutputDataTypes(2; 1 0)", "getOutputShapes"}));

    // The clone is what getPlugin() returns; it goes with the network, the application's object stays.
    layer->getPlugin().getCapabilityInterface(nvinfer1::PluginCapabilityType::kRUNTIME);
    EXPECT_EQ(mFamily->record.callsOf("clone1").back(), "getCapabilityInterface(kRUNTIME)");
    delete mNetwork;
    mNetwork = nullptr;
    EXPECT_EQ(mFamily->record.alive, 1);
    EXPECT_EQ(mFamily->record.destroyed, (std::vector<std::string>{"clone1"}));
}

TEST_F(PluginV3Test, NoInputsAndNoShapeInputs)
{
    mFamily->behaviour.nbOutputs = 1;
    nvinfer1::IPluginV3Layer* layer = mNetwork->addPluginV3(nullptr, 0, nullptr, 0, mPlugin);
    ASSERT_NE(layer, nullptr);
    EXPECT_EQ(layer->getNbInputs(), 0);
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kFLOAT);
    expectNoError();
}

TEST_F(PluginV3Test, SetInputReadsTheOutputTypesAgain)
{
    nvinfer1::ITensor* inputs[] = {input("a", dims({2}))};
    nvinfer1::IPluginV3Layer* layer = mNetwork->addPluginV3(inputs, 1, nullptr, 0, mPlugin);
    ASSERT_NE(layer, nullptr);
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kFLOAT);
    layer->setInput(0, *input("h", dims({2}), DataType::kBF16));
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kBF16);
    EXPECT_EQ(mFamily->record.callsOf("clone1").back(), "getOutputDataTypes(2; 7)");
    layer->setInput(1, *inputs[0]);
    expectError({"IPluginV3Layer::setInput", "input index 1 is out of range"});
    mFamily->behaviour.outputTypesStatus = 2;
    layer->setInput(0, *inputs[0]);
    expectError({"IPluginV3Layer::setInput", "plugin \"Recording\" version \"1\" namespace \"test\"",
        "getOutputDataTypes() returned status 2", "the output types stay as they were"});
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kBF16);
}

TEST_F(PluginV3Test, ANullCloneIsRefusedNamingThePlugin)
{
    mFamily->behaviour.cloneFails = true;
    nvinfer1::ITensor* inputs[] = {input("a", dims({2}))};
    EXPECT_EQ(mNetwork->addPluginV3(inputs, 1, nullptr, 0, mPlugin), nullptr);
    expectError({"INetworkDefinition::addPluginV3", "plugin \"Recording\" version \"1\" namespace \"test\"",
        "clone() returned null"});
    EXPECT_EQ(mNetwork->getNbLayers(), 0);
}

TEST_F(PluginV3Test, APluginWithoutBuildCapabilityIsRefused)
{
    mFamily->behaviour.noBuild = true;
    EXPECT_EQ(mNetwork->addPluginV3(nullptr, 0, nullptr, 0, mPlugin), nullptr);
    expectError({"INetworkDefinition::addPluginV3", "plugin \"Recording\" version \"1\" namespace \"test\"",
        "getCapabilityInterface(kBUILD) returned null"});
    EXPECT_EQ(mFamily->record.alive, 1); // the clone was deleted
    EXPECT_EQ(mNetwork->getNbLayers(), 0);
}

TEST_F(PluginV3Test, ABuildCapabilityOfAnotherKindIsRefused)
{
    mFamily->behaviour.buildKind = "PLUGIN_V3ONE_RUNTIME";
    EXPECT_EQ(mNetwork->addPluginV3(nullptr, 0, nullptr, 0, mPlugin), nullptr);
    expectError({"the build capability reports interface \"PLUGIN_V3ONE_RUNTIME\" version 1",
        "\"PLUGIN_V3ONE_BUILD\" versions 1 and 2"});
    mFamily->behaviour.buildKind = "PLUGIN_V3ONE_BUILD";
    mFamily->behaviour.buildMajor = 3;
    EXPECT_EQ(mNetwork->addPluginV3(nullptr, 0, nullptr, 0, mPlugin), nullptr);
    expectError({"\"PLUGIN_V3ONE_BUILD\" version 3"});
    mFamily->behaviour.buildMajor = 2;
    EXPECT_NE(mNetwork->addPluginV3(nullptr, 0, nullptr, 0, mPlugin), nullptr);
    expectNoError();
    EXPECT_EQ(mFamily->record.alive, 2);
}

TEST_F(PluginV3Test, APluginWithoutCoreCapabilityIsRefused)
{
    mFamily->behaviour.noCore = true;
    EXPECT_EQ(mNetwork->addPluginV3(nullptr, 0, nullptr, 0, mPlugin), nullptr);
    expectError({"INetworkDefinition::addPluginV3", "getCapabilityInterface(kCORE) returned null"});
    EXPECT_EQ(mFamily->record.clones, 0);
}

TEST_F(PluginV3Test, BadOutputsAreRefused)
{
    mFamily->behaviour.nbOutputs = 0;
    EXPECT_EQ(mNetwork->addPluginV3(nullptr, 0, nullptr, 0, mPlugin), nullptr);
    expectError({"plugin \"Recording\"", "getNbOutputs() returned 0"});
    mFamily->behaviour.nbOutputs = 1;
    mFamily->behaviour.outputTypesStatus = 3;
    EXPECT_EQ(mNetwork->addPluginV3(nullptr, 0, nullptr, 0, mPlugin), nullptr);
    expectError({"plugin \"Recording\"", "getOutputDataTypes() returned status 3"});
    mFamily->behaviour.outputTypesStatus = 0;
    mFamily->behaviour.invalidOutputType = true;
    EXPECT_EQ(mNetwork->addPluginV3(nullptr, 0, nullptr, 0, mPlugin), nullptr);
    expectError({"plugin \"Recording\"", "getOutputDataTypes() gave output 0 the invalid type 99"});
    EXPECT_EQ(mFamily->record.alive, 1);
}

TEST_F(PluginV3Test, InputArraysAreChecked)
{
    nvinfer1::ITensor* a = input("a", dims({2}));
    nvinfer1::ITensor* s = input("s", dims({1}), DataType::kINT32);
    EXPECT_EQ(mNetwork->addPluginV3(nullptr, -1, nullptr, 0, mPlugin), nullptr);
    expectError({"INetworkDefinition::addPluginV3", "the number of inputs is -1"});
    EXPECT_EQ(mNetwork->addPluginV3(nullptr, 2, nullptr, 0, mPlugin), nullptr);
    expectError({"the inputs array is null but its count is 2"});
    nvinfer1::ITensor* withNull[] = {a, nullptr};
    EXPECT_EQ(mNetwork->addPluginV3(withNull, 2, nullptr, 0, mPlugin), nullptr);
    expectError({"the inputs[1] is null"});
    nvinfer1::ITensor* inputs[] = {a};
    EXPECT_EQ(mNetwork->addPluginV3(inputs, 1, nullptr, 1, mPlugin), nullptr);
    expectError({"the shapeInputs array is null but its count is 1"});
    nvinfer1::ITensor* shapes[] = {s};
    EXPECT_EQ(mNetwork->addPluginV3(inputs, 1, shapes, -2, mPlugin), nullptr);
    expectError({"the number of shapeInputs is -2"});
    nvinfer1::ITensor* floatShapes[] = {a};
    EXPECT_EQ(mNetwork->addPluginV3(inputs, 1, floatShapes, 1, mPlugin), nullptr);
    expectError({"shape input \"a\" has type 0 and shape [2]", "0-D or 1-D kINT32 or kINT64"});
    nvinfer1::ITensor* matrixShapes[] = {input("m", dims({2, 2}), DataType::kINT64)};
    EXPECT_EQ(mNetwork->addPluginV3(inputs, 1, matrixShapes, 1, mPlugin), nullptr);
    expectError({"shape input \"m\""});
    nvinfer1::INetworkDefinition* other = mBuilder->createNetworkV2(0);
    nvinfer1::ITensor* foreign[] = {other->addInput("foreign", DataType::kFLOAT, dims({1}))};
    EXPECT_EQ(mNetwork->addPluginV3(foreign, 1, nullptr, 0, mPlugin), nullptr);
    expectError({"the inputs[0] \"foreign\" is not a tensor of this network"});
    delete other;
    EXPECT_EQ(mFamily->record.clones, 0); // refused before cloning
    EXPECT_NE(mNetwork->addPluginV3(inputs, 1, shapes, 1, mPlugin), nullptr);
    expectNoError();
}

} // namespace
} // namespace kiln::test
