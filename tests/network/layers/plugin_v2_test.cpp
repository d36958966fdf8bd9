// SPDX-License-Identifier: Apache-2.0
// IPluginV2Layer: the level read from getTensorRTVersion(), a clone kept and destroyed with destroy(), output types
// from getOutputDataType at level 1 and up (else the first input's), and refusals naming the plugin.
#include "support/api_test.h"
#include "support/recording_plugins.h"

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

class PluginV2Test : public ApiTest
{
protected:
    std::shared_ptr<PluginFamily> mFamily = std::make_shared<PluginFamily>();
};

TEST_F(PluginV2Test, DynamicExtPluginsAreCloned)
{
    RecordingV2DynamicPlugin plugin{mFamily};
    nvinfer1::ITensor* inputs[] = {input("a", dims({2}), DataType::kHALF)};
    nvinfer1::IPluginV2Layer* layer = mNetwork->addPluginV2(inputs, 1, plugin);
    ASSERT_NE(layer, nullptr);
    expectNoError();
    EXPECT_EQ(layer->getType(), nvinfer1::LayerType::kPLUGIN_V2);
    EXPECT_STREQ(layer->getName(), "(Unnamed Layer* 0) [PluginV2DynamicExt]");
    EXPECT_NE(&layer->getPlugin(), static_cast<nvinfer1::IPluginV2*>(&plugin));
    ASSERT_EQ(layer->getNbOutputs(), 2);
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kHALF);
    EXPECT_EQ(layer->getOutput(1)->getType(), DataType::kINT32);
    EXPECT_EQ(mFamily->record.callsOf("original"), (std::vector<std::string>{"clone"}));
    EXPECT_EQ(mFamily->record.callsOf("clone1"),
        (std::vector<std::string>{"getNbOutputs", "getOutputDataType(0)", "getOutputDataType(1)"}));
    delete mNetwork;
    mNetwork = nullptr;
    EXPECT_EQ(mFamily->record.callsOf("clone1").back(), "destroy");
    EXPECT_EQ(mFamily->record.alive, 1);
}

TEST_F(PluginV2Test, EveryLevel)
{
    nvinfer1::ITensor* inputs[] = {input("a", dims({2}), DataType::kINT8)};
    RecordingV2Plugin level0{mFamily};
    RecordingV2ExtPlugin level1{mFamily};
    RecordingV2IOExtPlugin level2{mFamily};
    nvinfer1::IPluginV2Layer* layer0 = mNetwork->addPluginV2(inputs, 1, level0);
    nvinfer1::IPluginV2Layer* layer1 = mNetwork->addPluginV2(inputs, 1, level1);
    nvinfer1::IPluginV2Layer* layer2 = mNetwork->addPluginV2(inputs, 1, level2);
    ASSERT_TRUE(layer0 != nullptr && layer1 != nullptr && layer2 != nullptr);
    EXPECT_STREQ(layer0->getName(), "(Unnamed Layer* 0) [PluginV2]");
    EXPECT_STREQ(layer1->getName(), "(Unnamed Layer* 1) [PluginV2Ext]");
    EXPECT_STREQ(layer2->getName(), "(Unnamed Layer* 2) [PluginV2IOExt]");
    // Level 0 has no getOutputDataType: every output has the first input's type.
    EXPECT_EQ(layer0->getOutput(1)->getType(), DataType::kINT8);
    EXPECT_EQ(layer1->getOutput(1)->getType(), DataType::kINT32);
    EXPECT_EQ(layer2->getOutput(1)->getType(), DataType::kINT32);
    EXPECT_EQ(mFamily->record.clones, 3);
    expectNoError();
}

TEST_F(PluginV2Test, PythonDynamicExtLevel)
{
    // 0x43: an IPluginV2DynamicExt implemented in Python.
    mFamily->behaviour.v2VersionOverride = static_cast<int32_t>((0x43U << 24U) | NV_TENSORRT_VERSION);
    RecordingV2DynamicPlugin plugin{mFamily};
    nvinfer1::IPluginV2Layer* layer = mNetwork->addPluginV2(nullptr, 0, plugin);
    ASSERT_NE(layer, nullptr);
    EXPECT_STREQ(layer->getName(), "(Unnamed Layer* 0) [PluginV2DynamicExt]");
    EXPECT_EQ(layer->getOutput(1)->getType(), DataType::kINT32);
}

TEST_F(PluginV2Test, Refusals)
{
    RecordingV2Plugin plugin{mFamily};
    mFamily->behaviour.v2VersionOverride = static_cast<int32_t>((5U << 24U) | NV_TENSORRT_VERSION);
    EXPECT_EQ(mNetwork->addPluginV2(nullptr, 0, plugin), nullptr);
    expectError({"INetworkDefinition::addPluginV2", "plugin \"RecordingV2\" version \"2\" namespace \"testV2\"",
        "reports API level 5"});
    mFamily->behaviour.v2VersionOverride = 0;
    mFamily->behaviour.cloneFails = true;
    EXPECT_EQ(mNetwork->addPluginV2(nullptr, 0, plugin), nullptr);
    expectError({"plugin \"RecordingV2\" version \"2\" namespace \"testV2\"", "clone() returned null"});
    mFamily->behaviour.cloneFails = false;
    mFamily->behaviour.nbOutputs = -1;
    EXPECT_EQ(mNetwork->addPluginV2(nullptr, 0, plugin), nullptr);
    expectError({"getNbOutputs() returned -1"});
    EXPECT_EQ(mFamily->record.alive, 1); // the refused clone was destroyed (with destroy())
    EXPECT_EQ(mFamily->record.callsOf("clone1").back(), "destroy");
    RecordingV2DynamicPlugin dynamic{mFamily};
    mFamily->behaviour.nbOutputs = 1;
    mFamily->behaviour.invalidOutputType = true;
    EXPECT_EQ(mNetwork->addPluginV2(nullptr, 0, dynamic), nullptr);
    expectError({"INetworkDefinition::addPluginV2", "getOutputDataType(0) returned the invalid type 99"});
    EXPECT_EQ(mNetwork->addPluginV2(nullptr, 1, plugin), nullptr);
    expectError({"INetworkDefinition::addPluginV2", "the inputs array is null but its count is 1"});
    EXPECT_EQ(mNetwork->getNbLayers(), 0);
}

} // namespace
} // namespace kiln::test
