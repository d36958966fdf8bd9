// The bodies the headers give to non-pure virtuals and inline wrappers, checked against the spec's "default -> X"
// entries (sections 4.5-4.7, 4.10, 5.8, 5.10, 6.2, 6.4). The minimal fixtures override only the pure methods,
// so every call below lands in a header-provided body.

#include "NvInfer.h"
#include "expr_fixtures.h"
#include "minimal_fixtures.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <utility>

using namespace nvinfer1;
using namespace kiln_test;

TEST(HeaderDefaults, PluginV3OneBuild)
{
    MinimalV3Plugin<IPluginV3OneBuild> plugin;
    IPluginV3OneBuild* const build = &plugin;
    DynamicPluginTensorDesc const desc{};
    int32_t tactics[4] = {9, 9, 9, 9};
    EXPECT_EQ(build->getWorkspaceSize(&desc, 1, &desc, 1), 0U);
    EXPECT_EQ(build->getValidTactics(tactics, 4), 0);
    EXPECT_EQ(tactics[0], 9);
    EXPECT_EQ(build->getNbTactics(), 0);
    EXPECT_EQ(build->getTimingCacheID(), nullptr);
    EXPECT_EQ(build->getFormatCombinationLimit(), 100);
    EXPECT_EQ(IPluginV3OneBuild::kDEFAULT_FORMAT_COMBINATION_LIMIT, 100);
    EXPECT_EQ(build->getMetadataString(), nullptr);
    InterfaceInfo const info = build->getInterfaceInfo();
    EXPECT_STREQ(info.kind, "PLUGIN_V3ONE_BUILD");
    EXPECT_EQ(info.major, 1);
    EXPECT_EQ(build->getAPILanguage(), APILanguage::kCPP);
}

TEST(HeaderDefaults, PluginV3OneBuildV2AliasesNothing)
{
    MinimalV3Plugin<IPluginV3OneBuildV2> plugin;
    IPluginV3OneBuildV2* const build = &plugin;
    EXPECT_EQ(build->getAliasedInput(0), -1);
    EXPECT_EQ(build->getAliasedInput(3), -1);
    EXPECT_EQ(build->getFormatCombinationLimit(), 100);
    EXPECT_EQ(build->getInterfaceInfo().major, 2);
}

TEST(HeaderDefaults, PluginV3OneRuntime)
{
    MinimalV3Plugin<IPluginV3OneBuild> plugin;
    IPluginV3OneRuntime* const runtime = &plugin;
    EXPECT_EQ(runtime->setTactic(5), 0);
    EXPECT_EQ(runtime->getAPILanguage(), APILanguage::kCPP);
}

TEST(HeaderDefaults, PluginV2DynamicExt)
{
    int32_t const live = liveObjects();
    IPluginV2* const plugin = new MinimalV2DynamicPlugin();
    auto* const dynamic = static_cast<IPluginV2DynamicExt*>(plugin);
    EXPECT_EQ(static_cast<uint32_t>(plugin->getTensorRTVersion()) >> 24U, 3U);
    dynamic->attachToContext(nullptr, nullptr, nullptr);
    dynamic->detachFromContext();
    EXPECT_EQ(IPluginV2DynamicExt::kFORMAT_COMBINATION_LIMIT, 100);
    plugin->destroy();
    EXPECT_EQ(liveObjects(), live);
}

TEST(HeaderDefaults, GpuAllocatorForwardsAsyncCallsToTheSynchronousOnes)
{
    MinimalGpuAllocator allocator;
    IGpuAllocator* const base = &allocator;
    EXPECT_EQ(base->reallocate(nullptr, 16, 64), nullptr);
    AllocatorFlags const resizable = 1U << static_cast<uint32_t>(AllocatorFlag::kRESIZABLE);
    void* const memory = base->allocateAsync(32, 16, resizable, nullptr);
    EXPECT_NE(memory, nullptr);
    EXPECT_EQ(allocator.allocations(), 1);
    EXPECT_EQ(allocator.lastFlags(), resizable);
    EXPECT_TRUE(base->deallocateAsync(memory, nullptr));
    EXPECT_EQ(allocator.deallocations(), 1);
    InterfaceInfo const info = base->getInterfaceInfo();
    EXPECT_STREQ(info.kind, "IGpuAllocator");
}

TEST(HeaderDefaults, GpuAsyncAllocatorForwardsSynchronousCallsWithTheNullStream)
{
    MinimalGpuAsyncAllocator allocator;
    IGpuAllocator* const base = &allocator;
    void* const memory = base->allocate(32, 16, 0U);
    EXPECT_NE(memory, nullptr);
    EXPECT_EQ(allocator.calls(), 1);
    EXPECT_EQ(allocator.lastStream(), nullptr);
    int marker = 0;
    auto* const stream = reinterpret_cast<cudaStream_t>(&marker);
    EXPECT_TRUE(base->deallocateAsync(memory, stream));
    EXPECT_EQ(allocator.lastStream(), stream);
    EXPECT_TRUE(base->deallocate(memory));
    EXPECT_EQ(allocator.calls(), 3);
    EXPECT_EQ(allocator.lastStream(), nullptr);
    EXPECT_EQ(base->reallocate(memory, 16, 128), nullptr);
    EXPECT_STREQ(base->getInterfaceInfo().kind, "IGpuAllocator");
}

TEST(HeaderDefaults, OutputAllocator)
{
    MinimalOutputAllocator minimal;
    IOutputAllocator* const base = &minimal;
    EXPECT_EQ(base->reallocateOutput("t", nullptr, 16, 16), nullptr);
    EXPECT_EQ(base->reallocateOutputAsync("t", nullptr, 16, 16, nullptr), nullptr);

    LegacyOutputAllocator legacy;
    IOutputAllocator* const legacyBase = &legacy;
    EXPECT_EQ(legacyBase->reallocateOutputAsync("t", nullptr, 16, 16, nullptr), legacy.block());
    EXPECT_EQ(legacyBase->reallocateOutputAsync("t", nullptr, 4096, 16, nullptr), nullptr);
}

TEST(HeaderDefaults, DimensionExprForwardsToItsImplementation)
{
    TestDimensionExpr const five(true, 5, false);
    IDimensionExpr const& expr = five;
    EXPECT_TRUE(expr.isConstant());
    EXPECT_EQ(expr.getConstantValue(), 5);
    EXPECT_FALSE(expr.isSizeTensor());

    TestDimensionExpr const unknown(false, 0, true);
    IDimensionExpr const& runtimeExpr = unknown;
    EXPECT_FALSE(runtimeExpr.isConstant());
    EXPECT_EQ(runtimeExpr.getConstantValue(), std::numeric_limits<int64_t>::min());
    EXPECT_TRUE(runtimeExpr.isSizeTensor());

    EXPECT_TRUE(noexcept(expr.isConstant()));
    EXPECT_TRUE(noexcept(expr.getConstantValue()));
    EXPECT_TRUE(noexcept(expr.isSizeTensor()));
}

TEST(HeaderDefaults, ExprBuilderForwardsToItsImplementation)
{
    TestExprBuilder builderObject;
    IExprBuilder& builder = builderObject;
    IDimensionExpr const* const seven = builder.constant(7);
    IDimensionExpr const* const two = builder.constant(2);
    ASSERT_NE(seven, nullptr);
    EXPECT_EQ(seven->getConstantValue(), 7);

    struct Row
    {
        DimensionOperation op;
        int64_t expected;
    };
    Row const rows[] = {
        {DimensionOperation::kSUM, 9},
        {DimensionOperation::kPROD, 14},
        {DimensionOperation::kMAX, 7},
        {DimensionOperation::kMIN, 2},
        {DimensionOperation::kSUB, 5},
        {DimensionOperation::kEQUAL, 0},
        {DimensionOperation::kLESS, 0},
        {DimensionOperation::kFLOOR_DIV, 3},
        {DimensionOperation::kCEIL_DIV, 4},
    };
    for (Row const& row : rows)
    {
        IDimensionExpr const* const result = builder.operation(row.op, *seven, *two);
        ASSERT_NE(result, nullptr) << static_cast<int32_t>(row.op);
        EXPECT_EQ(result->getConstantValue(), row.expected) << static_cast<int32_t>(row.op);
    }
    EXPECT_EQ(builder.operation(static_cast<DimensionOperation>(EnumMax<DimensionOperation>()), *seven, *two), nullptr);

    IDimensionExpr const* const extent = builder.declareSizeTensor(1, *seven, *builder.constant(100));
    ASSERT_NE(extent, nullptr);
    EXPECT_TRUE(extent->isSizeTensor());
    EXPECT_FALSE(extent->isConstant());
    EXPECT_EQ(builderObject.implementation().lastSizeTensorOutput(), 1);
    EXPECT_EQ(builderObject.implementation().lastSizeTensorOpt(), 7);
    EXPECT_EQ(builderObject.implementation().lastSizeTensorUpper(), 100);

    EXPECT_TRUE(noexcept(builder.constant(1)));
    EXPECT_TRUE(noexcept(builder.operation(DimensionOperation::kSUM, *seven, *two)));
    EXPECT_FALSE(noexcept(builder.declareSizeTensor(0, *seven, *two))) << "spec 4.10: not noexcept";
}
