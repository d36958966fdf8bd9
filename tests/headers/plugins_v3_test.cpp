// The complete V3 plugin and creator (full_v3_plugin.h) used the way the engine uses them: only through base-class
// pointers, the creator found by its kind string, capabilities through getCapabilityInterface (adjusted sub-object
// pointers, told apart by getInterfaceInfo and the build major), the plugin deleted through IPluginV3*.
// Also calls a few vtable entries raw, as an engine compiled separately would.

#include "NvInfer.h"
#include "expr_fixtures.h"
#include "full_callbacks.h"
#include "full_v3_plugin.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>

using namespace nvinfer1;
using namespace kiln_test;

namespace
{

std::ptrdiff_t byteDistance(void const* from, void const* to)
{
    return static_cast<char const*>(to) - static_cast<char const*>(from);
}

//! A descriptor of a float, linear tensor.
DynamicPluginTensorDesc linearFloat()
{
    DynamicPluginTensorDesc desc{};
    desc.desc.dims = Dims{1, {1}};
    desc.desc.type = DataType::kFLOAT;
    desc.desc.format = TensorFormat::kLINEAR;
    desc.desc.scale = 1.F;
    desc.min = desc.desc.dims;
    desc.opt = desc.desc.dims;
    desc.max = desc.desc.dims;
    return desc;
}

struct PluginDeleter
{
    void operator()(IPluginV3* plugin) const noexcept { delete plugin; }
};

using PluginPtr = std::unique_ptr<IPluginV3, PluginDeleter>;

class FullV3PluginTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        mLiveBefore = liveObjects();
        mCreator.reset(new FullV3Creator());
        IPluginCreatorInterface* const creatorInterface = mCreator.get();
        ASSERT_STREQ(creatorInterface->getInterfaceInfo().kind, "PLUGIN CREATOR_V3ONE");
        auto* const creator = static_cast<IPluginCreatorV3One*>(creatorInterface);
        PluginField const field("scale", &mScale, PluginFieldType::kFLOAT32, 1);
        PluginFieldCollection fc{};
        fc.nbFields = 1;
        fc.fields = &field;
        mPlugin.reset(creator->createPlugin(kV3PluginName, &fc, TensorRTPhase::kBUILD));
        ASSERT_NE(mPlugin, nullptr);
        EXPECT_EQ(mCreator->lastPhase(), TensorRTPhase::kBUILD);
    }

    void TearDown() override
    {
        mPlugin.reset();
        mCreator.reset();
        EXPECT_EQ(liveObjects(), mLiveBefore) << "a plugin or creator was leaked or deleted twice";
    }

    IPluginV3OneCore* core()
    {
        return static_cast<IPluginV3OneCore*>(mPlugin->getCapabilityInterface(PluginCapabilityType::kCORE));
    }

    IPluginV3OneBuildV2* build()
    {
        IPluginCapability* const capability = mPlugin->getCapabilityInterface(PluginCapabilityType::kBUILD);
        auto* const v1 = static_cast<IPluginV3OneBuild*>(capability);
        return v1->getInterfaceInfo().major == 2 ? static_cast<IPluginV3OneBuildV2*>(v1) : nullptr;
    }

    IPluginV3OneRuntime* runtime()
    {
        return static_cast<IPluginV3OneRuntime*>(mPlugin->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
    }

    int32_t mLiveBefore{0};
    float mScale{3.F};
    std::unique_ptr<FullV3Creator> mCreator;
    PluginPtr mPlugin;
};

} // namespace

TEST_F(FullV3PluginTest, CreatorThroughItsInterfaces)
{
    IPluginCreatorV3One* const creator = mCreator.get();
    InterfaceInfo const info = creator->getInterfaceInfo();
    EXPECT_STREQ(info.kind, "PLUGIN CREATOR_V3ONE");
    EXPECT_EQ(info.major, 1);
    EXPECT_EQ(info.minor, 0);
    EXPECT_EQ(creator->getAPILanguage(), APILanguage::kCPP);
    EXPECT_STREQ(creator->getPluginName(), kV3PluginName);
    EXPECT_STREQ(creator->getPluginVersion(), kV3PluginVersion);
    mCreator->setPluginNamespace("kiln.test");
    EXPECT_STREQ(creator->getPluginNamespace(), "kiln.test");
    PluginFieldCollection const* const names = creator->getFieldNames();
    ASSERT_NE(names, nullptr);
    ASSERT_EQ(names->nbFields, 1);
    EXPECT_STREQ(names->fields[0].name, "scale");
    EXPECT_EQ(names->fields[0].type, PluginFieldType::kFLOAT32);
    EXPECT_EQ(creator->createPlugin("NoSuchPlugin", nullptr, TensorRTPhase::kBUILD), nullptr);
}

TEST_F(FullV3PluginTest, CapabilitiesAreAdjustedSubObjects)
{
    IPluginV3* const plugin = mPlugin.get();
    InterfaceInfo const info = plugin->getInterfaceInfo();
    EXPECT_STREQ(info.kind, "PLUGIN");
    EXPECT_EQ(info.major, 1);
    EXPECT_EQ(info.minor, 0);

    IPluginCapability* const coreCap = plugin->getCapabilityInterface(PluginCapabilityType::kCORE);
    IPluginCapability* const buildCap = plugin->getCapabilityInterface(PluginCapabilityType::kBUILD);
    IPluginCapability* const runtimeCap = plugin->getCapabilityInterface(PluginCapabilityType::kRUNTIME);
    ASSERT_NE(coreCap, nullptr);
    ASSERT_NE(buildCap, nullptr);
    ASSERT_NE(runtimeCap, nullptr);

    // Four one-vptr interface sub-objects at offsets 0, 8, 16, 24 (spec 4.11).
    EXPECT_EQ(byteDistance(plugin, coreCap), 1 * static_cast<std::ptrdiff_t>(sizeof(void*)));
    EXPECT_EQ(byteDistance(plugin, buildCap), 2 * static_cast<std::ptrdiff_t>(sizeof(void*)));
    EXPECT_EQ(byteDistance(plugin, runtimeCap), 3 * static_cast<std::ptrdiff_t>(sizeof(void*)));

    struct Expected
    {
        IPluginCapability* capability;
        char const* kind;
        int32_t major;
    };
    Expected const table[] = {
        {coreCap, "PLUGIN_V3ONE_CORE", 1},
        {buildCap, "PLUGIN_V3ONE_BUILD", 2},
        {runtimeCap, "PLUGIN_V3ONE_RUNTIME", 1},
    };
    for (Expected const& row : table)
    {
        InterfaceInfo const capInfo = row.capability->getInterfaceInfo();
        EXPECT_STREQ(capInfo.kind, row.kind);
        EXPECT_EQ(capInfo.major, row.major) << row.kind;
        EXPECT_EQ(capInfo.minor, 0) << row.kind;
        EXPECT_EQ(row.capability->getAPILanguage(), APILanguage::kCPP) << row.kind;
    }
    EXPECT_EQ(plugin->getAPILanguage(), APILanguage::kCPP);

    auto* const full = static_cast<FullV3Plugin*>(plugin);
    EXPECT_EQ(static_cast<IPluginCapability*>(static_cast<IPluginV3OneCore*>(full)), coreCap);
    EXPECT_EQ(static_cast<IPluginCapability*>(static_cast<IPluginV3OneBuildV2*>(full)), buildCap);
    EXPECT_EQ(static_cast<IPluginCapability*>(static_cast<IPluginV3OneRuntime*>(full)), runtimeCap);
}

TEST_F(FullV3PluginTest, CoreMethods)
{
    IPluginV3OneCore* const c = core();
    ASSERT_NE(c, nullptr);
    EXPECT_STREQ(c->getPluginName(), kV3PluginName);
    EXPECT_STREQ(c->getPluginVersion(), kV3PluginVersion);
    EXPECT_STREQ(c->getPluginNamespace(), "");
}

TEST_F(FullV3PluginTest, BuildMethods)
{
    IPluginV3OneBuildV2* const b = build();
    ASSERT_NE(b, nullptr);
    auto* const full = static_cast<FullV3Plugin*>(mPlugin.get());

    DynamicPluginTensorDesc const in = linearFloat();
    DynamicPluginTensorDesc const out = linearFloat();
    EXPECT_EQ(b->configurePlugin(&in, 1, &out, 1), kV3ConfigureResult);
    EXPECT_EQ(full->lastNbInputs(), 1);
    EXPECT_EQ(full->lastNbOutputs(), 1);

    DataType const inputType = DataType::kHALF;
    DataType outputType = DataType::kFLOAT;
    EXPECT_EQ(b->getOutputDataTypes(&outputType, 1, &inputType, 1), kV3OutputDataTypesResult);
    EXPECT_EQ(outputType, DataType::kHALF);

    TestExprBuilder exprBuilder;
    DimsExprs input{};
    input.nbDims = 2;
    input.d[0] = exprBuilder.constant(5);
    input.d[1] = exprBuilder.constant(7);
    DimsExprs output{};
    EXPECT_EQ(b->getOutputShapes(&input, 1, nullptr, 0, &output, 1, exprBuilder), kV3OutputShapesResult);
    ASSERT_EQ(output.nbDims, 2);
    ASSERT_NE(output.d[0], nullptr);
    EXPECT_TRUE(output.d[0]->isConstant());
    EXPECT_EQ(output.d[0]->getConstantValue(), 10);
    EXPECT_EQ(output.d[1]->getConstantValue(), 7);

    DynamicPluginTensorDesc inOut[2] = {linearFloat(), linearFloat()};
    EXPECT_TRUE(b->supportsFormatCombination(1, inOut, 1, 1));
    inOut[1].desc.format = TensorFormat::kHWC8;
    EXPECT_FALSE(b->supportsFormatCombination(1, inOut, 1, 1));

    EXPECT_EQ(b->getNbOutputs(), kV3NbOutputs);
    EXPECT_EQ(b->getWorkspaceSize(&in, 1, &out, 1), static_cast<size_t>(kV3WorkspaceSize));
    int32_t tactics[2] = {0, 0};
    EXPECT_EQ(b->getNbTactics(), kV3NbTactics);
    EXPECT_EQ(b->getValidTactics(tactics, 2), kV3ValidTacticsResult);
    EXPECT_EQ(tactics[0], kV3FirstTactic);
    EXPECT_EQ(tactics[1], kV3SecondTactic);
    EXPECT_STREQ(b->getTimingCacheID(), "kiln-timing-cache-id");
    EXPECT_EQ(b->getFormatCombinationLimit(), kV3FormatCombinationLimit);
    EXPECT_STREQ(b->getMetadataString(), "kiln-metadata");
    EXPECT_EQ(b->getAliasedInput(0), 0);
    EXPECT_EQ(b->getAliasedInput(1), -1);
}

TEST_F(FullV3PluginTest, RuntimeMethods)
{
    IPluginV3OneRuntime* const r = runtime();
    ASSERT_NE(r, nullptr);
    auto* const full = static_cast<FullV3Plugin*>(mPlugin.get());

    EXPECT_EQ(r->setTactic(kV3SecondTactic), kV3SetTacticResult);
    EXPECT_EQ(full->tactic(), kV3SecondTactic);

    PluginTensorDesc const desc = linearFloat().desc;
    EXPECT_EQ(r->onShapeChange(&desc, 1, &desc, 1), kV3ShapeChangeResult);

    float const input = 2.F;
    float output = 0.F;
    void const* const inputs[] = {&input};
    void* const outputs[] = {&output};
    EXPECT_EQ(r->enqueue(&desc, &desc, inputs, outputs, nullptr, nullptr), kV3EnqueueResult);
    EXPECT_FLOAT_EQ(output, 6.F);

    FullPluginResourceContext context;
    PluginPtr attached(r->attachToContext(&context));
    ASSERT_NE(attached, nullptr);
    EXPECT_NE(attached.get(), mPlugin.get());
    EXPECT_EQ(static_cast<FullV3Plugin*>(attached.get())->context(), &context);
    EXPECT_STREQ(attached->getInterfaceInfo().kind, "PLUGIN");
}

TEST_F(FullV3PluginTest, SerializeThroughFieldsAndRecreateForRuntime)
{
    PluginFieldCollection const* const fields = runtime()->getFieldsToSerialize();
    ASSERT_NE(fields, nullptr);
    ASSERT_EQ(fields->nbFields, 1);
    EXPECT_STREQ(fields->fields[0].name, "scale");
    EXPECT_EQ(fields->fields[0].type, PluginFieldType::kFLOAT32);
    EXPECT_EQ(fields->fields[0].length, 1);
    EXPECT_FLOAT_EQ(*static_cast<float const*>(fields->fields[0].data), 3.F);

    PluginPtr restored(mCreator->createPlugin(kV3PluginName, fields, TensorRTPhase::kRUNTIME));
    ASSERT_NE(restored, nullptr);
    EXPECT_EQ(mCreator->lastPhase(), TensorRTPhase::kRUNTIME);
    EXPECT_FLOAT_EQ(static_cast<FullV3Plugin*>(restored.get())->scale(), 3.F);
}

TEST_F(FullV3PluginTest, CloneIsACompletePluginDeletedThroughIPluginV3)
{
    int32_t const live = liveObjects();
    IPluginV3* const copy = mPlugin->clone();
    ASSERT_NE(copy, nullptr);
    EXPECT_EQ(liveObjects(), live + 1);
    for (PluginCapabilityType type :
        {PluginCapabilityType::kCORE, PluginCapabilityType::kBUILD, PluginCapabilityType::kRUNTIME})
    {
        EXPECT_NE(copy->getCapabilityInterface(type), nullptr);
    }
    delete copy;
    EXPECT_EQ(liveObjects(), live);
}

#if defined(__GNUC__) && !defined(_WIN32) && (defined(__x86_64__) || defined(__aarch64__))

namespace
{

//! The entry at slot of the vtable of the object at self.
template <typename Fn>
Fn vtableEntry(void const* self, int32_t slot)
{
    Fn const* vtable = nullptr;
    std::memcpy(&vtable, self, sizeof(vtable));
    return vtable[slot];
}

} // namespace

TEST_F(FullV3PluginTest, RawVtableCallsLikeASeparatelyCompiledEngine)
{
    // getInterfaceInfo (slot 1) returns the 16-byte InterfaceInfo by value; getAliasedInput is slot 15 of the
    // v_2_0 build capability; setTactic slot 4 and enqueue slot 6 of the runtime capability.
    using InfoFn = InterfaceInfo (*)(void const*);
    using AliasFn = int32_t (*)(void*, int32_t);
    IPluginCapability* const b = mPlugin->getCapabilityInterface(PluginCapabilityType::kBUILD);
    InterfaceInfo const info = vtableEntry<InfoFn>(b, 1)(b);
    EXPECT_STREQ(info.kind, "PLUGIN_V3ONE_BUILD");
    EXPECT_EQ(info.major, 2);
    EXPECT_EQ(vtableEntry<AliasFn>(b, 15)(b, 0), 0);
    EXPECT_EQ(vtableEntry<AliasFn>(b, 15)(b, 4), -1);

    IPluginCapability* const r = mPlugin->getCapabilityInterface(PluginCapabilityType::kRUNTIME);
    EXPECT_EQ(vtableEntry<AliasFn>(r, 4)(r, 5), kV3SetTacticResult);
    EXPECT_EQ(static_cast<FullV3Plugin*>(mPlugin.get())->tactic(), 5);

    IPluginV3* const p = mPlugin.get();
    using CapabilityFn = IPluginCapability* (*)(void*, PluginCapabilityType);
    EXPECT_EQ(vtableEntry<CapabilityFn>(p, 4)(p, PluginCapabilityType::kRUNTIME), r);
}

#endif
