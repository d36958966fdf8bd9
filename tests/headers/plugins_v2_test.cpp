// The complete V2 plugins and creator (full_v2_plugins.h, full_v2_legacy.h) used the way the engine uses them:
// the creator recognised by "PLUGIN CREATOR_V1", the level read from the top byte of getTensorRTVersion() before
// any static_cast, every method called through base pointers, the hidden implicit-batch methods reaching the
// headers' private `final` bodies, and every plugin freed with destroy().

#include "NvInfer.h"
#include "expr_fixtures.h"
#include "full_callbacks.h"
#include "full_v2_plugins.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>

using namespace nvinfer1;
using namespace kiln_test;

namespace
{

struct Destroyer
{
    void operator()(IPluginV2* plugin) const noexcept { plugin->destroy(); }
};

using V2Ptr = std::unique_ptr<IPluginV2, Destroyer>;

//! The level a V2 plugin reports: the top byte of getTensorRTVersion() (spec 6.5).
uint32_t levelOf(IPluginV2 const& plugin)
{
    return static_cast<uint32_t>(plugin.getTensorRTVersion()) >> 24U;
}

uint32_t versionBitsOf(IPluginV2 const& plugin)
{
    return static_cast<uint32_t>(plugin.getTensorRTVersion()) & 0xFFFFFFU;
}

PluginTensorDesc linear(DataType type, TensorFormat format = TensorFormat::kLINEAR)
{
    PluginTensorDesc desc{};
    desc.dims = Dims{2, {4, 8}};
    desc.type = type;
    desc.format = format;
    desc.scale = 1.F;
    return desc;
}

class FullV2PluginTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        mLiveBefore = liveObjects();
        IPluginCreatorInterface* const creatorInterface = &mCreator;
        InterfaceInfo const info = creatorInterface->getInterfaceInfo();
        ASSERT_STREQ(info.kind, "PLUGIN CREATOR_V1");
        EXPECT_EQ(info.major, 1);
        EXPECT_EQ(info.minor, 0);
        EXPECT_EQ(creatorInterface->getAPILanguage(), APILanguage::kCPP);
        mV2Creator = static_cast<IPluginCreator*>(creatorInterface);
        mV2Creator->setPluginNamespace("kiln.v2");
    }

    void TearDown() override { EXPECT_EQ(liveObjects(), mLiveBefore) << "a plugin was leaked or destroyed twice"; }

    V2Ptr create(int32_t level, int32_t value)
    {
        PluginField const fields[] = {
            PluginField("level", &level, PluginFieldType::kINT32, 1),
            PluginField("value", &value, PluginFieldType::kINT32, 1),
        };
        PluginFieldCollection fc{};
        fc.nbFields = 2;
        fc.fields = fields;
        return V2Ptr(mV2Creator->createPlugin("plugin", &fc));
    }

    int32_t mLiveBefore{0};
    FullV2Creator mCreator;
    IPluginCreator* mV2Creator{nullptr};
};

} // namespace

TEST_F(FullV2PluginTest, CreatorMethods)
{
    EXPECT_STREQ(mV2Creator->getPluginName(), "KilnFullV2Dynamic");
    EXPECT_STREQ(mV2Creator->getPluginVersion(), kV2PluginVersion);
    EXPECT_STREQ(mV2Creator->getPluginNamespace(), "kiln.v2");
    PluginFieldCollection const* const names = mV2Creator->getFieldNames();
    ASSERT_NE(names, nullptr);
    ASSERT_EQ(names->nbFields, 2);
    EXPECT_STREQ(names->fields[0].name, "level");
    EXPECT_STREQ(names->fields[1].name, "value");
}

TEST_F(FullV2PluginTest, LevelIsTheTopByteOfTheVersion)
{
    uint32_t const compiledVersion = static_cast<uint32_t>(NV_TENSORRT_VERSION) & 0xFFFFFFU;
    for (int32_t level = 0; level <= 3; ++level)
    {
        V2Ptr plugin = create(level, 0);
        ASSERT_NE(plugin, nullptr);
        EXPECT_EQ(levelOf(*plugin), static_cast<uint32_t>(level)) << "level " << level;
        EXPECT_EQ(versionBitsOf(*plugin), compiledVersion) << "level " << level;
        EXPECT_STREQ(plugin->getPluginNamespace(), "kiln.v2");
    }
    // A bare IPluginV2 reports NV_TENSORRT_VERSION itself.
    V2Ptr bare = create(0, 0);
    EXPECT_EQ(bare->getTensorRTVersion(), static_cast<int32_t>(NV_TENSORRT_VERSION));
    EXPECT_EQ(static_cast<uint32_t>(PluginVersion::kV2_EXT), 1U);
    EXPECT_EQ(static_cast<uint32_t>(PluginVersion::kV2_IOEXT), 2U);
    EXPECT_EQ(static_cast<uint32_t>(PluginVersion::kV2_DYNAMICEXT), 3U);
}

TEST_F(FullV2PluginTest, DynamicExtMethods)
{
    V2Ptr plugin = create(3, 5);
    ASSERT_EQ(levelOf(*plugin), 3U);
    auto* const p = static_cast<IPluginV2DynamicExt*>(plugin.get());

    EXPECT_STREQ(p->getPluginType(), "KilnFullV2Dynamic");
    EXPECT_STREQ(p->getPluginVersion(), kV2PluginVersion);
    EXPECT_EQ(p->getNbOutputs(), kV2NbOutputs);
    EXPECT_EQ(p->initialize(), kV2InitializeResult);

    DataType const inputType = DataType::kHALF;
    EXPECT_EQ(p->getOutputDataType(0, &inputType, 1), DataType::kHALF);
    EXPECT_EQ(p->getOutputDataType(0, nullptr, 0), DataType::kINT8);

    TestExprBuilder exprBuilder;
    DimsExprs input{};
    input.nbDims = 1;
    input.d[0] = exprBuilder.constant(10);
    DimsExprs const output = p->getOutputDimensions(1, &input, 1, exprBuilder);
    ASSERT_EQ(output.nbDims, 1);
    EXPECT_EQ(output.d[0]->getConstantValue(), 11);

    PluginTensorDesc inOut[2] = {linear(DataType::kFLOAT), linear(DataType::kFLOAT, TensorFormat::kCHW32)};
    EXPECT_TRUE(p->supportsFormatCombination(0, inOut, 1, 1));
    EXPECT_FALSE(p->supportsFormatCombination(1, inOut, 1, 1));

    DynamicPluginTensorDesc dynamic[3]{};
    p->configurePlugin(dynamic, 2, dynamic + 2, 1);
    EXPECT_EQ(static_cast<FullV2DynamicPlugin*>(p)->configured(), 21);
    EXPECT_EQ(p->getWorkspaceSize(inOut, 1, inOut + 1, 1), static_cast<size_t>(kV2DynamicWorkspaceSize + 2));

    float const in = 1.5F;
    float out = 0.F;
    void const* const inputs[] = {&in};
    void* const outputs[] = {&out};
    EXPECT_EQ(p->enqueue(inOut, inOut + 1, inputs, outputs, nullptr, nullptr), kV2DynamicEnqueueResult);
    EXPECT_FLOAT_EQ(out, 6.5F);

    FullGpuAllocator allocator;
    p->attachToContext(nullptr, nullptr, &allocator);
    EXPECT_EQ(static_cast<FullV2DynamicPlugin*>(p)->allocator(), &allocator);
    p->detachFromContext();
    EXPECT_EQ(static_cast<FullV2DynamicPlugin*>(p)->allocator(), nullptr);
    p->terminate();

    V2Ptr copy(p->clone());
    ASSERT_NE(copy, nullptr);
    EXPECT_EQ(levelOf(*copy), 3U);
}

TEST_F(FullV2PluginTest, DynamicExtHiddenMethodsAreTheHeadersFinalBodies)
{
    // What an engine that does not check the level would reach through the old slots (spec 6.4).
    V2Ptr plugin = create(3, 0);
    IPluginV2* const base = plugin.get();
    Dims const in{1, {3}};
    EXPECT_EQ(base->getOutputDimensions(0, &in, 1).nbDims, -1);
    EXPECT_FALSE(base->supportsFormat(DataType::kFLOAT, TensorFormat::kLINEAR));
    EXPECT_EQ(base->getWorkspaceSize(8), 0U);
    EXPECT_EQ(base->enqueue(1, nullptr, nullptr, nullptr, nullptr), 1);

    auto* const ext = static_cast<IPluginV2Ext*>(base);
    bool const broadcast[] = {true};
    EXPECT_FALSE(ext->isOutputBroadcastAcrossBatch(0, broadcast, 1));
    EXPECT_TRUE(ext->canBroadcastInputAcrossBatch(0));
    ext->configurePlugin(&in, 1, &in, 1, nullptr, nullptr, nullptr, nullptr, TensorFormat::kLINEAR, 1);
    EXPECT_EQ(static_cast<FullV2DynamicPlugin*>(base)->configured(), 0);
}

TEST_F(FullV2PluginTest, SerializeAndDeserialize)
{
    V2Ptr plugin = create(3, 42);
    size_t const size = plugin->getSerializationSize();
    ASSERT_EQ(size, static_cast<size_t>(kV2SerializationSize));
    unsigned char buffer[16]{};
    plugin->serialize(buffer);
    V2Ptr restored(mV2Creator->deserializePlugin("plugin", buffer, size));
    ASSERT_NE(restored, nullptr);
    ASSERT_EQ(levelOf(*restored), 3U);
    EXPECT_EQ(static_cast<FullV2DynamicPlugin*>(restored.get())->value(), 42);
    EXPECT_STREQ(restored->getPluginNamespace(), "kiln.v2");
}

TEST_F(FullV2PluginTest, IOExtMethods)
{
    V2Ptr plugin = create(2, 0);
    ASSERT_EQ(levelOf(*plugin), 2U);
    auto* const p = static_cast<IPluginV2IOExt*>(plugin.get());
    auto* const full = static_cast<FullV2IOExtPlugin*>(p);

    EXPECT_STREQ(p->getPluginType(), "KilnFullV2IOExt");
    Dims const in{2, {3, 4}};
    EXPECT_EQ(p->getOutputDimensions(0, &in, 1).d[1], 4);
    EXPECT_EQ(p->getWorkspaceSize(6), static_cast<size_t>(kV2WorkspaceSize + 6));
    EXPECT_EQ(p->enqueue(3, nullptr, nullptr, nullptr, nullptr), kV2EnqueueResult + 3);
    EXPECT_EQ(p->getOutputDataType(0, nullptr, 0), DataType::kINT32);
    bool const broadcast[] = {false, true};
    EXPECT_TRUE(p->isOutputBroadcastAcrossBatch(1, broadcast, 2));
    EXPECT_TRUE(p->canBroadcastInputAcrossBatch(1));

    PluginTensorDesc const descs[2] = {linear(DataType::kINT8, TensorFormat::kCHW4), linear(DataType::kFLOAT)};
    p->configurePlugin(descs, 1, descs + 1, 1);
    EXPECT_EQ(full->configured(), 11);
    EXPECT_TRUE(p->supportsFormatCombination(0, descs, 1, 1));
    EXPECT_FALSE(p->supportsFormatCombination(1, descs, 1, 1));

    // The private `final` bodies of IPluginV2IOExt (spec 6.3).
    IPluginV2* const base = p;
    EXPECT_FALSE(base->supportsFormat(DataType::kINT8, TensorFormat::kCHW4));
    static_cast<IPluginV2Ext*>(p)->configurePlugin(
        &in, 1, &in, 1, nullptr, nullptr, nullptr, nullptr, TensorFormat::kLINEAR, 1);
    EXPECT_EQ(full->configured(), 11);

    FullGpuAllocator allocator;
    p->attachToContext(nullptr, nullptr, &allocator);
    EXPECT_EQ(full->allocator(), &allocator);
    p->detachFromContext();
    EXPECT_EQ(full->allocator(), nullptr);

    V2Ptr copy(p->clone());
    EXPECT_EQ(levelOf(*copy), 2U);
}

TEST_F(FullV2PluginTest, ExtAndBareMethods)
{
    V2Ptr ext = create(1, 0);
    ASSERT_EQ(levelOf(*ext), 1U);
    auto* const e = static_cast<IPluginV2Ext*>(ext.get());
    EXPECT_STREQ(e->getPluginType(), "KilnFullV2Ext");
    EXPECT_TRUE(e->supportsFormat(DataType::kHALF, TensorFormat::kLINEAR));
    EXPECT_TRUE(e->canBroadcastInputAcrossBatch(0));
    Dims const in{1, {2}};
    e->configurePlugin(&in, 1, &in, 1, nullptr, nullptr, nullptr, nullptr, TensorFormat::kLINEAR, 8);
    EXPECT_EQ(static_cast<FullV2ExtPlugin*>(e)->configured(), 10);
    V2Ptr extCopy(e->clone());
    EXPECT_EQ(levelOf(*extCopy), 1U);

    V2Ptr bare = create(0, 0);
    ASSERT_EQ(levelOf(*bare), 0U);
    EXPECT_STREQ(bare->getPluginType(), "KilnFullV2");
    EXPECT_TRUE(bare->supportsFormat(DataType::kFLOAT, TensorFormat::kLINEAR));
    bare->configureWithFormat(&in, 1, &in, 1, DataType::kFLOAT, TensorFormat::kLINEAR, 4);
    EXPECT_EQ(static_cast<FullV2Plugin*>(bare.get())->configured(), 6);
    EXPECT_EQ(bare->initialize(), kV2InitializeResult);
    bare->terminate();
    V2Ptr bareCopy(bare->clone());
    EXPECT_EQ(levelOf(*bareCopy), 0U);
}
