// Sizes, alignments and member offsets of the plain structs and wrapper objects plugins share with the engine
// (spec sections 2.1, 2.2, 4.10, 9.4; measured there on x86-64 Linux, valid for any LP64 target).

#include "NvInfer.h"
#include "expr_fixtures.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

using namespace nvinfer1;

#define KILN_EXPECT_SIZE(Type, size, align)                                                                            \
    do                                                                                                                 \
    {                                                                                                                  \
        EXPECT_EQ(sizeof(Type), static_cast<size_t>(size)) << "sizeof(" #Type ")";                                     \
        EXPECT_EQ(alignof(Type), static_cast<size_t>(align)) << "alignof(" #Type ")";                                  \
    } while (false)

#define KILN_EXPECT_OFFSET(Type, member, offset)                                                                       \
    EXPECT_EQ(offsetof(Type, member), static_cast<size_t>(offset)) << "offsetof(" #Type ", " #member ")"

#define KILN_EXPECT_MEMBER_TYPE(Type, member, MemberType)                                                              \
    EXPECT_TRUE((std::is_same_v<decltype(Type::member), MemberType>)) << #Type "::" #member " is not " #MemberType

TEST(Layout, Dims64)
{
    static_assert(sizeof(void*) == 8, "the spec's layouts are for LP64 targets");
    EXPECT_TRUE((std::is_same_v<Dims, Dims64>));
    EXPECT_EQ(Dims64::MAX_DIMS, 8);
    EXPECT_TRUE((std::is_same_v<decltype(Dims64::MAX_DIMS), int32_t const>));
    KILN_EXPECT_SIZE(Dims64, 72, 8);
    KILN_EXPECT_OFFSET(Dims64, nbDims, 0);
    KILN_EXPECT_OFFSET(Dims64, d, 8);
    KILN_EXPECT_MEMBER_TYPE(Dims64, nbDims, int32_t);
    KILN_EXPECT_MEMBER_TYPE(Dims64, d, int64_t[8]);
    EXPECT_TRUE(std::is_standard_layout_v<Dims64>);
    EXPECT_TRUE(std::is_trivially_copyable_v<Dims64>);
}

TEST(Layout, LegacyDimsAddNoData)
{
    KILN_EXPECT_SIZE(Dims2, 72, 8);
    KILN_EXPECT_SIZE(Dims3, 72, 8);
    KILN_EXPECT_SIZE(Dims4, 72, 8);
    KILN_EXPECT_SIZE(DimsHW, 72, 8);
    EXPECT_TRUE((std::is_base_of_v<Dims, Dims2>));
    EXPECT_TRUE((std::is_base_of_v<Dims2, DimsHW>));
    EXPECT_TRUE((std::is_base_of_v<Dims2, Dims3>));
    EXPECT_TRUE((std::is_base_of_v<Dims3, Dims4>));
}

TEST(Layout, InterfaceInfo)
{
    KILN_EXPECT_SIZE(InterfaceInfo, 16, 8);
    KILN_EXPECT_OFFSET(InterfaceInfo, kind, 0);
    KILN_EXPECT_OFFSET(InterfaceInfo, major, 8);
    KILN_EXPECT_OFFSET(InterfaceInfo, minor, 12);
    KILN_EXPECT_MEMBER_TYPE(InterfaceInfo, kind, InterfaceKind);
    KILN_EXPECT_MEMBER_TYPE(InterfaceInfo, major, int32_t);
    KILN_EXPECT_MEMBER_TYPE(InterfaceInfo, minor, int32_t);
    EXPECT_TRUE(std::is_trivially_copyable_v<InterfaceInfo>);
}

TEST(Layout, PluginTensorDesc)
{
    KILN_EXPECT_SIZE(PluginTensorDesc, 88, 8);
    KILN_EXPECT_OFFSET(PluginTensorDesc, dims, 0);
    KILN_EXPECT_OFFSET(PluginTensorDesc, type, 72);
    KILN_EXPECT_OFFSET(PluginTensorDesc, format, 76);
    KILN_EXPECT_OFFSET(PluginTensorDesc, scale, 80);
    KILN_EXPECT_MEMBER_TYPE(PluginTensorDesc, dims, Dims);
    KILN_EXPECT_MEMBER_TYPE(PluginTensorDesc, type, DataType);
    KILN_EXPECT_MEMBER_TYPE(PluginTensorDesc, format, TensorFormat);
    KILN_EXPECT_MEMBER_TYPE(PluginTensorDesc, scale, float);
}

TEST(Layout, DynamicPluginTensorDesc)
{
    KILN_EXPECT_SIZE(DynamicPluginTensorDesc, 304, 8);
    KILN_EXPECT_OFFSET(DynamicPluginTensorDesc, desc, 0);
    KILN_EXPECT_OFFSET(DynamicPluginTensorDesc, min, 88);
    KILN_EXPECT_OFFSET(DynamicPluginTensorDesc, max, 160);
    KILN_EXPECT_OFFSET(DynamicPluginTensorDesc, opt, 232);
    KILN_EXPECT_MEMBER_TYPE(DynamicPluginTensorDesc, desc, PluginTensorDesc);
    KILN_EXPECT_MEMBER_TYPE(DynamicPluginTensorDesc, min, Dims);
}

TEST(Layout, DimsExprs)
{
    KILN_EXPECT_SIZE(DimsExprs, 72, 8);
    KILN_EXPECT_OFFSET(DimsExprs, nbDims, 0);
    KILN_EXPECT_OFFSET(DimsExprs, d, 8);
    KILN_EXPECT_MEMBER_TYPE(DimsExprs, d, IDimensionExpr const * [Dims::MAX_DIMS]);
}

TEST(Layout, PluginField)
{
    KILN_EXPECT_SIZE(PluginField, 24, 8);
    KILN_EXPECT_OFFSET(PluginField, name, 0);
    KILN_EXPECT_OFFSET(PluginField, data, 8);
    KILN_EXPECT_OFFSET(PluginField, type, 16);
    KILN_EXPECT_OFFSET(PluginField, length, 20);
    KILN_EXPECT_MEMBER_TYPE(PluginField, name, AsciiChar const*);
    KILN_EXPECT_MEMBER_TYPE(PluginField, data, void const*);
    KILN_EXPECT_MEMBER_TYPE(PluginField, type, PluginFieldType);
    KILN_EXPECT_MEMBER_TYPE(PluginField, length, int32_t);
}

TEST(Layout, PluginFieldCollection)
{
    KILN_EXPECT_SIZE(PluginFieldCollection, 16, 8);
    KILN_EXPECT_OFFSET(PluginFieldCollection, nbFields, 0);
    KILN_EXPECT_OFFSET(PluginFieldCollection, fields, 8);
    KILN_EXPECT_MEMBER_TYPE(PluginFieldCollection, nbFields, int32_t);
    KILN_EXPECT_MEMBER_TYPE(PluginFieldCollection, fields, PluginField const*);
}

TEST(Layout, Weights)
{
    KILN_EXPECT_SIZE(Weights, 24, 8);
    KILN_EXPECT_OFFSET(Weights, type, 0);
    KILN_EXPECT_OFFSET(Weights, values, 8);
    KILN_EXPECT_OFFSET(Weights, count, 16);
    KILN_EXPECT_MEMBER_TYPE(Weights, values, void const*);
    KILN_EXPECT_MEMBER_TYPE(Weights, count, int64_t);
}

TEST(Layout, TimingCacheKeyAndValue)
{
    KILN_EXPECT_SIZE(TimingCacheKey, 16, 1);
    KILN_EXPECT_MEMBER_TYPE(TimingCacheKey, data, uint8_t[16]);
    KILN_EXPECT_SIZE(TimingCacheValue, 16, 8);
    KILN_EXPECT_OFFSET(TimingCacheValue, tacticHash, 0);
    KILN_EXPECT_OFFSET(TimingCacheValue, timingMSec, 8);
    KILN_EXPECT_MEMBER_TYPE(TimingCacheValue, tacticHash, uint64_t);
    KILN_EXPECT_MEMBER_TYPE(TimingCacheValue, timingMSec, float);
    EXPECT_EQ(TimingCacheValue::kINVALID_TACTIC_HASH, UINT64_MAX);
    EXPECT_TRUE((std::is_same_v<decltype(TimingCacheValue::kINVALID_TACTIC_HASH), uint64_t const>));
    EXPECT_TRUE((std::is_same_v<TimingCacheKey, v_1_0::TimingCacheKey>));
    EXPECT_TRUE((std::is_same_v<TimingCacheValue, v_1_0::TimingCacheValue>));
}

TEST(Layout, ExpressionWrappersAreVptrPlusImpl)
{
    // [vptr][apiv::V... * mImpl]: 16 bytes, mImpl at 8 (spec 4.10, 9.4).
    KILN_EXPECT_SIZE(IDimensionExpr, 16, 8);
    KILN_EXPECT_SIZE(IExprBuilder, 16, 8);
    KILN_EXPECT_SIZE(INoCopy, 8, 8);
    kiln_test::TestDimensionExpr const expr;
    kiln_test::TestExprBuilder const builder;
    EXPECT_EQ(expr.implOffset(), 8);
    EXPECT_EQ(builder.implOffset(), 8);
    EXPECT_TRUE(std::is_polymorphic_v<IDimensionExpr>);
    EXPECT_TRUE(std::is_polymorphic_v<IExprBuilder>);
}

TEST(Layout, InterfacesAreOneVptr)
{
    KILN_EXPECT_SIZE(IVersionedInterface, 8, 8);
    KILN_EXPECT_SIZE(IPluginV3, 8, 8);
    KILN_EXPECT_SIZE(IPluginV3OneCore, 8, 8);
    KILN_EXPECT_SIZE(IPluginV3OneBuild, 8, 8);
    KILN_EXPECT_SIZE(IPluginV3OneBuildV2, 8, 8);
    KILN_EXPECT_SIZE(IPluginV3OneRuntime, 8, 8);
    KILN_EXPECT_SIZE(IPluginCreatorV3One, 8, 8);
    KILN_EXPECT_SIZE(IPluginCreator, 8, 8);
    KILN_EXPECT_SIZE(IPluginV2, 8, 8);
    KILN_EXPECT_SIZE(IPluginV2DynamicExt, 8, 8);
    KILN_EXPECT_SIZE(IPluginRegistry, 8, 8);
    KILN_EXPECT_SIZE(IPluginResourceContext, 8, 8);
    KILN_EXPECT_SIZE(ILogger, 8, 8);
    KILN_EXPECT_SIZE(IGpuAllocator, 8, 8);
    KILN_EXPECT_SIZE(IErrorRecorder, 8, 8);
}
