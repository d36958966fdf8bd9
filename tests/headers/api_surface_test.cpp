// The API surface around the interfaces: version macros (spec 1.3), typedefs and versioned-namespace aliases
// (1.5, 9.3), the C entry points' exact types (5.4), aggregates and constructors (2.1, 2.2, 9.3), the legacy Dims
// helpers, base classes, and access rules that reproduce TensorRT's compile errors (9.3). Access is probed with
// SFINAE, which honours access checking.

#include "NvInfer.h"
#include "NvInferPlugin.h"

#include <gtest/gtest.h>

#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

using namespace nvinfer1;

TEST(ApiSurface, VersionMacros)
{
    EXPECT_EQ(NV_TENSORRT_MAJOR, 10);
    EXPECT_EQ(NV_TENSORRT_MINOR, 16);
    EXPECT_EQ(NV_TENSORRT_PATCH, 0);
    EXPECT_EQ(NV_TENSORRT_BUILD, 72);
    EXPECT_EQ(TRT_MAJOR_ENTERPRISE, 10);
    EXPECT_EQ(TRT_MINOR_ENTERPRISE, 16);
    EXPECT_EQ(TRT_PATCH_ENTERPRISE, 0);
    EXPECT_EQ(TRT_BUILD_ENTERPRISE, 72);
    EXPECT_EQ(NV_TENSORRT_LWS_MAJOR, 0);
    EXPECT_EQ(NV_TENSORRT_LWS_MINOR, 0);
    EXPECT_EQ(NV_TENSORRT_LWS_PATCH, 0);
    EXPECT_EQ(NV_TENSORRT_RELEASE_TYPE_EARLY_ACCESS, 0);
    EXPECT_EQ(NV_TENSORRT_RELEASE_TYPE_RELEASE_CANDIDATE, 1);
    EXPECT_EQ(NV_TENSORRT_RELEASE_TYPE_GENERAL_AVAILABILITY, 2);
    EXPECT_EQ(NV_TENSORRT_RELEASE_TYPE, NV_TENSORRT_RELEASE_TYPE_GENERAL_AVAILABILITY);
    EXPECT_EQ(NV_TENSORRT_VERSION_INT(1, 2, 3), 10203L);
    EXPECT_TRUE((std::is_same_v<decltype(NV_TENSORRT_VERSION_INT(1, 2, 3)), long>));
    EXPECT_EQ(NV_TENSORRT_VERSION, 101600L);
    EXPECT_TRUE((std::is_same_v<decltype(NV_TENSORRT_VERSION), long>));
#if !(NV_TENSORRT_MAJOR >= 10)
    ADD_FAILURE() << "NV_TENSORRT_MAJOR must be usable in #if";
#endif
}

TEST(ApiSurface, TypedefsAndVersionedNamespaces)
{
    EXPECT_TRUE((std::is_same_v<char_t, char>));
    EXPECT_TRUE((std::is_same_v<AsciiChar, char>));
    EXPECT_TRUE((std::is_same_v<InterfaceKind, char const*>));
    EXPECT_TRUE((std::is_same_v<PluginFormat, TensorFormat>));
    EXPECT_TRUE((std::is_same_v<IPluginRegistry::PluginLibraryHandle, void*>));
    EXPECT_TRUE((std::is_same_v<IErrorRecorder::ErrorDesc, char const*>));
    EXPECT_TRUE((std::is_same_v<IErrorRecorder::RefCount, int32_t>));
    EXPECT_EQ(IErrorRecorder::kMAX_DESC_LENGTH, 127U);
    EXPECT_TRUE((std::is_same_v<decltype(IErrorRecorder::kMAX_DESC_LENGTH), size_t const>));

    EXPECT_TRUE((std::is_same_v<IErrorRecorder, v_1_0::IErrorRecorder>));
    EXPECT_TRUE((std::is_same_v<IGpuAllocator, v_1_0::IGpuAllocator>));
    EXPECT_TRUE((std::is_same_v<IGpuAsyncAllocator, v_1_0::IGpuAsyncAllocator>));
    EXPECT_TRUE((std::is_same_v<IStreamReader, v_1_0::IStreamReader>));
    EXPECT_TRUE((std::is_same_v<IStreamReaderV2, v_1_0::IStreamReaderV2>));
    EXPECT_TRUE((std::is_same_v<IStreamWriter, v_1_0::IStreamWriter>));
    EXPECT_TRUE((std::is_same_v<IProfiler, v_1_0::IProfiler>));
    EXPECT_TRUE((std::is_same_v<IOutputAllocator, v_1_0::IOutputAllocator>));
    EXPECT_TRUE((std::is_same_v<IDebugListener, v_1_0::IDebugListener>));
    EXPECT_TRUE((std::is_same_v<IProgressMonitor, v_1_0::IProgressMonitor>));
    EXPECT_TRUE((std::is_same_v<IPluginResource, v_1_0::IPluginResource>));
    EXPECT_TRUE((std::is_same_v<IPluginCreatorInterface, v_1_0::IPluginCreatorInterface>));
    EXPECT_TRUE((std::is_same_v<IPluginV3, v_1_0::IPluginV3>));
    EXPECT_TRUE((std::is_same_v<IPluginCapability, v_1_0::IPluginCapability>));
    EXPECT_TRUE((std::is_same_v<IPluginCreator, v_1_0::IPluginCreator>));
    EXPECT_TRUE((std::is_same_v<IPluginV3OneCore, v_1_0::IPluginV3OneCore>));
    EXPECT_TRUE((std::is_same_v<IPluginV3OneBuild, v_1_0::IPluginV3OneBuild>));
    EXPECT_TRUE((std::is_same_v<IPluginV3OneRuntime, v_1_0::IPluginV3OneRuntime>));
    EXPECT_TRUE((std::is_same_v<IPluginCreatorV3One, v_1_0::IPluginCreatorV3One>));
    EXPECT_TRUE((std::is_same_v<IPluginV3OneBuildV2, v_2_0::IPluginV3OneBuild>));
}

TEST(ApiSurface, CEntryPointTypes)
{
    EXPECT_TRUE((std::is_same_v<decltype(&getInferLibVersion), int32_t (*)() noexcept>));
    EXPECT_TRUE((std::is_same_v<decltype(&getInferLibMajorVersion), int32_t (*)() noexcept>));
    EXPECT_TRUE((std::is_same_v<decltype(&getInferLibMinorVersion), int32_t (*)() noexcept>));
    EXPECT_TRUE((std::is_same_v<decltype(&getInferLibPatchVersion), int32_t (*)() noexcept>));
    EXPECT_TRUE((std::is_same_v<decltype(&getInferLibBuildVersion), int32_t (*)() noexcept>));
    EXPECT_TRUE((std::is_same_v<decltype(&getPluginRegistry), IPluginRegistry* (*)() noexcept>));
    EXPECT_TRUE((std::is_same_v<decltype(&getLogger), ILogger* (*)() noexcept>));
    // initLibNvInferPlugins has no noexcept (spec 5.4).
    EXPECT_TRUE((std::is_same_v<decltype(&initLibNvInferPlugins), bool (*)(void*, char const*)>));
}

TEST(ApiSurface, DimsIsAnAggregate)
{
    EXPECT_TRUE(std::is_aggregate_v<Dims64>);
    Dims const unknown{-1, {}};
    EXPECT_EQ(unknown.nbDims, -1);
    EXPECT_EQ(unknown.d[0], 0);
    Dims const matrix{2, {3, 4}};
    EXPECT_EQ(matrix.nbDims, 2);
    EXPECT_EQ(matrix.d[1], 4);
    EXPECT_EQ(matrix.d[7], 0);
    Dims zero{};
    EXPECT_EQ(zero.nbDims, 0);
    zero.d[Dims::MAX_DIMS - 1] = int64_t{1} << 40;
    EXPECT_EQ(zero.d[7], int64_t{1} << 40);
}

TEST(ApiSurface, LegacyDimsConstructors)
{
    Dims2 const d2(5, 6);
    EXPECT_EQ(d2.nbDims, 2);
    EXPECT_EQ(d2.d[0], 5);
    EXPECT_EQ(d2.d[1], 6);
    for (int32_t i = 2; i < Dims::MAX_DIMS; ++i)
    {
        EXPECT_EQ(d2.d[i], 0) << i;
    }
    Dims2 const d2Zero;
    EXPECT_EQ(d2Zero.nbDims, 2);
    EXPECT_EQ(d2Zero.d[0], 0);

    Dims3 const d3(1, 2, 3);
    EXPECT_EQ(d3.nbDims, 3);
    EXPECT_EQ(d3.d[2], 3);
    EXPECT_EQ(d3.d[3], 0);
    EXPECT_EQ(Dims3().nbDims, 3);

    Dims4 const d4(1, 3, 224, 224);
    EXPECT_EQ(d4.nbDims, 4);
    EXPECT_EQ(d4.d[3], 224);
    EXPECT_EQ(d4.d[4], 0);
    Dims4 const d4Zero;
    EXPECT_EQ(d4Zero.nbDims, 4);
    EXPECT_EQ(d4Zero.d[3], 0);

    DimsHW hw(7, 9);
    EXPECT_EQ(hw.nbDims, 2);
    EXPECT_EQ(hw.h(), 7);
    EXPECT_EQ(hw.w(), 9);
    hw.h() = 11;
    hw.w() = 13;
    EXPECT_EQ(hw.d[0], 11);
    EXPECT_EQ(hw.d[1], 13);
    DimsHW const& constHw = hw;
    EXPECT_TRUE((std::is_same_v<decltype(constHw.h()), int64_t>));
    EXPECT_TRUE((std::is_same_v<decltype(hw.h()), int64_t&>));
    EXPECT_EQ(DimsHW().nbDims, 2);

    Dims const asDims = d4; // slicing to Dims is the intended use
    EXPECT_EQ(asDims.nbDims, 4);
    EXPECT_TRUE((std::is_constructible_v<Dims2, int64_t, int64_t>));
    EXPECT_TRUE((std::is_constructible_v<Dims3, int64_t, int64_t, int64_t>));
    EXPECT_TRUE((std::is_constructible_v<Dims4, int64_t, int64_t, int64_t, int64_t>));
}

TEST(ApiSurface, PluginFieldConstructor)
{
    EXPECT_FALSE(std::is_aggregate_v<PluginField>);
    EXPECT_TRUE(std::is_nothrow_default_constructible_v<PluginField>);
    EXPECT_TRUE((std::is_nothrow_constructible_v<PluginField, char const*, void const*, PluginFieldType, int32_t>));
    PluginField const empty;
    EXPECT_EQ(empty.name, nullptr);
    EXPECT_EQ(empty.data, nullptr);
    EXPECT_EQ(empty.type, PluginFieldType::kUNKNOWN);
    EXPECT_EQ(empty.length, 0);

    int32_t rowOrder = 1;
    PluginField const full("rowOrder", &rowOrder, PluginFieldType::kINT32, 1);
    EXPECT_STREQ(full.name, "rowOrder");
    EXPECT_EQ(full.data, &rowOrder);
    EXPECT_EQ(full.type, PluginFieldType::kINT32);
    EXPECT_EQ(full.length, 1);

    PluginField const named("onlyName");
    EXPECT_STREQ(named.name, "onlyName");
    EXPECT_EQ(named.type, PluginFieldType::kUNKNOWN);

    std::vector<PluginField> fields;
    fields.emplace_back("a", &rowOrder, PluginFieldType::kINT32, 1);
    fields.emplace_back();
    EXPECT_EQ(fields.size(), 2U);

    PluginFieldCollection const collection{};
    EXPECT_EQ(collection.nbFields, 0);
    EXPECT_EQ(collection.fields, nullptr);
    PluginFieldCollection assigned;
    EXPECT_EQ(assigned.nbFields, 0) << "default member initialisers {} (spec 2.2)";
    EXPECT_EQ(assigned.fields, nullptr);
    assigned.nbFields = static_cast<int32_t>(fields.size());
    assigned.fields = fields.data();
    EXPECT_EQ(assigned.fields[0].data, &rowOrder);
}

TEST(ApiSurface, OtherAggregates)
{
    EXPECT_TRUE(std::is_aggregate_v<PluginTensorDesc>);
    EXPECT_TRUE(std::is_aggregate_v<DynamicPluginTensorDesc>);
    EXPECT_TRUE(std::is_aggregate_v<DimsExprs>);
    EXPECT_TRUE(std::is_aggregate_v<Weights>);
    EXPECT_TRUE(std::is_aggregate_v<PluginFieldCollection>);
    EXPECT_TRUE(std::is_aggregate_v<TimingCacheKey>);
    Weights const weights{DataType::kFLOAT, nullptr, 0};
    EXPECT_EQ(weights.count, 0);
    EXPECT_EQ(IPluginV3OneBuild::kDEFAULT_FORMAT_COMBINATION_LIMIT, 100);
    EXPECT_EQ(IPluginV2DynamicExt::kFORMAT_COMBINATION_LIMIT, 100);
}

TEST(ApiSurface, Inheritance)
{
    EXPECT_TRUE((std::is_base_of_v<IVersionedInterface, IPluginV3>));
    EXPECT_TRUE((std::is_base_of_v<IPluginCapability, IPluginV3OneCore>));
    EXPECT_TRUE((std::is_base_of_v<IPluginCapability, IPluginV3OneBuild>));
    EXPECT_TRUE((std::is_base_of_v<IPluginV3OneBuild, IPluginV3OneBuildV2>));
    EXPECT_TRUE((std::is_base_of_v<IPluginCapability, IPluginV3OneRuntime>));
    EXPECT_TRUE((std::is_base_of_v<IPluginCreatorInterface, IPluginCreatorV3One>));
    EXPECT_TRUE((std::is_base_of_v<IPluginCreatorInterface, IPluginCreator>));
    EXPECT_TRUE((std::is_base_of_v<IVersionedInterface, IPluginResource>));
    EXPECT_TRUE((std::is_base_of_v<IVersionedInterface, IErrorRecorder>));
    EXPECT_TRUE((std::is_base_of_v<IGpuAllocator, IGpuAsyncAllocator>));
    EXPECT_TRUE((std::is_base_of_v<IPluginV2, IPluginV2Ext>));
    EXPECT_TRUE((std::is_base_of_v<IPluginV2Ext, IPluginV2IOExt>));
    EXPECT_TRUE((std::is_base_of_v<IPluginV2Ext, IPluginV2DynamicExt>));
    EXPECT_FALSE((std::is_base_of_v<IPluginV2IOExt, IPluginV2DynamicExt>));
    EXPECT_TRUE((std::is_base_of_v<INoCopy, IDimensionExpr>));
    EXPECT_TRUE((std::is_base_of_v<INoCopy, IExprBuilder>));
    EXPECT_TRUE((std::is_base_of_v<apiv::VRoot, apiv::VDimensionExpr>));
    EXPECT_TRUE((std::is_base_of_v<apiv::VRoot, apiv::VExprBuilder>));
    // Not versioned in 10.x (spec 4.3, 5.1, 5.6, 5.7, 6).
    EXPECT_FALSE((std::is_base_of_v<IVersionedInterface, ILogger>));
    EXPECT_FALSE((std::is_base_of_v<IVersionedInterface, ILoggerFinder>));
    EXPECT_FALSE((std::is_base_of_v<IVersionedInterface, IPluginRegistry>));
    EXPECT_FALSE((std::is_base_of_v<IVersionedInterface, IPluginResourceContext>));
    EXPECT_FALSE((std::is_base_of_v<IVersionedInterface, IPluginV2>));
    EXPECT_FALSE((std::is_base_of_v<IVersionedInterface, IProfiler>));
}

namespace
{

template <typename T, typename = void>
struct CanDelete : std::false_type
{
};

template <typename T>
struct CanDelete<T, std::void_t<decltype(delete std::declval<T*>())>> : std::true_type
{
};

template <typename T, typename = void>
struct CanCallTensorRTVersion : std::false_type
{
};

template <typename T>
struct CanCallTensorRTVersion<T, std::void_t<decltype(std::declval<T const&>().getTensorRTVersion())>> : std::true_type
{
};

template <typename T, typename = void>
struct CanCallOldEnqueue : std::false_type
{
};

template <typename T>
struct CanCallOldEnqueue<T,
    std::void_t<decltype(std::declval<T&>().enqueue(int32_t{1}, static_cast<void const* const*>(nullptr),
        static_cast<void* const*>(nullptr), static_cast<void*>(nullptr), cudaStream_t{}))>> : std::true_type
{
};

} // namespace

TEST(ApiSurface, DestructorAccess)
{
    // Public: delete through these pointers is how plugins and applications free them.
    EXPECT_TRUE(CanDelete<IVersionedInterface>::value);
    EXPECT_TRUE(CanDelete<IPluginV3>::value);
    EXPECT_TRUE(CanDelete<IPluginCreatorV3One>::value);
    EXPECT_TRUE(CanDelete<IPluginResource>::value);
    EXPECT_TRUE(CanDelete<IPluginV2>::value);
    EXPECT_TRUE(CanDelete<ILogger>::value);
    EXPECT_TRUE(CanDelete<IProfiler>::value);
    EXPECT_TRUE(CanDelete<IPluginResourceContext>::value);
    // Protected (spec 9.3).
    EXPECT_FALSE(CanDelete<IPluginV2DynamicExt>::value);
    EXPECT_FALSE(CanDelete<IPluginRegistry>::value);
    EXPECT_FALSE(CanDelete<ILoggerFinder>::value);
    EXPECT_FALSE(CanDelete<IDimensionExpr>::value);
    EXPECT_FALSE(CanDelete<IExprBuilder>::value);
    EXPECT_FALSE(CanDelete<INoCopy>::value);
}

TEST(ApiSurface, ProtectedAndPrivateMembers)
{
    // getTensorRTVersion is public in IPluginV2 (the engine reads the level there), protected below it.
    EXPECT_TRUE(CanCallTensorRTVersion<IPluginV2>::value);
    EXPECT_FALSE(CanCallTensorRTVersion<IPluginV2Ext>::value);
    EXPECT_FALSE(CanCallTensorRTVersion<IPluginV2IOExt>::value);
    EXPECT_FALSE(CanCallTensorRTVersion<IPluginV2DynamicExt>::value);
    // The implicit-batch enqueue is callable on IPluginV2 and IPluginV2IOExt, not on IPluginV2DynamicExt.
    EXPECT_TRUE(CanCallOldEnqueue<IPluginV2>::value);
    EXPECT_TRUE(CanCallOldEnqueue<IPluginV2IOExt>::value);
    EXPECT_FALSE(CanCallOldEnqueue<IPluginV2DynamicExt>::value);
    // Copying library-owned objects is not possible.
    EXPECT_FALSE(std::is_copy_constructible_v<IPluginRegistry>);
    EXPECT_FALSE(std::is_copy_assignable_v<IPluginRegistry>);
    EXPECT_FALSE(std::is_copy_assignable_v<INoCopy>);
}
