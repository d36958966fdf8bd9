// Vtable slots of the legacy V2 plugin family (spec sections 6.1-6.4), Itanium ABI. Protected overrides are reached
// through small helper classes that re-publish them; the private `final` overrides of IPluginV2IOExt and
// IPluginV2DynamicExt through the base that declares them public. The totals prove those overrides reuse the base
// slots (IPluginV2DynamicExt: 30 slots), and the destructor sits after the 17 IPluginV2 methods.

#include "NvInfer.h"
#include "slot_probe.h"

#if defined(KILN_ITANIUM_ABI)

using namespace nvinfer1;

namespace
{

// Re-publish protected members so their addresses can be taken.
struct V2ExtProtected : IPluginV2Ext
{
    using IPluginV2Ext::configureWithFormat;
    using IPluginV2Ext::getTensorRTVersion;
};

struct V2IOExtProtected : IPluginV2IOExt
{
    using IPluginV2IOExt::getTensorRTVersion;
};

struct V2DynamicExtProtected : IPluginV2DynamicExt
{
    using IPluginV2DynamicExt::getTensorRTVersion;
};

} // namespace

TEST(VtableSlots, IPluginV2)
{
    using C = IPluginV2;
    KILN_EXPECT_VTABLE(IPluginV2, 19, 0, KILN_SLOT(0, C, getTensorRTVersion, int32_t() const noexcept),
        KILN_SLOT(1, C, getPluginType, AsciiChar const*() const noexcept),
        KILN_SLOT(2, C, getPluginVersion, AsciiChar const*() const noexcept),
        KILN_SLOT(3, C, getNbOutputs, int32_t() const noexcept),
        KILN_SLOT(4, C, getOutputDimensions, Dims(int32_t, Dims const*, int32_t) noexcept),
        KILN_SLOT(5, C, supportsFormat, bool(DataType, PluginFormat) const noexcept),
        KILN_SLOT(6, C, configureWithFormat,
            void(Dims const*, int32_t, Dims const*, int32_t, DataType, PluginFormat, int32_t) noexcept),
        KILN_SLOT(7, C, initialize, int32_t() noexcept), KILN_SLOT(8, C, terminate, void() noexcept),
        KILN_SLOT(9, C, getWorkspaceSize, size_t(int32_t) const noexcept),
        KILN_SLOT(10, C, enqueue, int32_t(int32_t, void const* const*, void* const*, void*, cudaStream_t) noexcept),
        KILN_SLOT(11, C, getSerializationSize, size_t() const noexcept),
        KILN_SLOT(12, C, serialize, void(void*) const noexcept), KILN_SLOT(13, C, destroy, void() noexcept),
        KILN_SLOT(14, C, clone, IPluginV2 * () const noexcept),
        KILN_SLOT(15, C, setPluginNamespace, void(AsciiChar const*) noexcept),
        KILN_SLOT(16, C, getPluginNamespace, AsciiChar const*() const noexcept), KILN_DTOR(17));
}

TEST(VtableSlots, IPluginV2Ext)
{
    using C = IPluginV2Ext;
    KILN_EXPECT_VTABLE(IPluginV2Ext, 25, 19, KILN_SLOT(0, V2ExtProtected, getTensorRTVersion, int32_t() const noexcept),
        KILN_SLOT(6, V2ExtProtected, configureWithFormat,
            void(Dims const*, int32_t, Dims const*, int32_t, DataType, PluginFormat, int32_t) noexcept),
        KILN_SLOT(14, C, clone, IPluginV2Ext * () const noexcept),
        KILN_SLOT(19, C, getOutputDataType, DataType(int32_t, DataType const*, int32_t) const noexcept),
        KILN_SLOT(20, C, isOutputBroadcastAcrossBatch, bool(int32_t, bool const*, int32_t) const noexcept),
        KILN_SLOT(21, C, canBroadcastInputAcrossBatch, bool(int32_t) const noexcept),
        KILN_SLOT(22, C, configurePlugin,
            void(Dims const*, int32_t, Dims const*, int32_t, DataType const*, DataType const*, bool const*, bool const*,
                PluginFormat, int32_t) noexcept),
        KILN_SLOT(23, C, attachToContext, void(cudnnContext*, cublasContext*, IGpuAllocator*) noexcept),
        KILN_SLOT(24, C, detachFromContext, void() noexcept));
}

TEST(VtableSlots, IPluginV2IOExt)
{
    using C = IPluginV2IOExt;
    KILN_EXPECT_VTABLE(IPluginV2IOExt, 27, 25,
        KILN_SLOT(0, V2IOExtProtected, getTensorRTVersion, int32_t() const noexcept),
        // Private `final` overrides, reached through the base that declares them public.
        KILN_SLOT(5, IPluginV2, supportsFormat, bool(DataType, PluginFormat) const noexcept),
        KILN_SLOT(22, IPluginV2Ext, configurePlugin,
            void(Dims const*, int32_t, Dims const*, int32_t, DataType const*, DataType const*, bool const*, bool const*,
                PluginFormat, int32_t) noexcept),
        KILN_SLOT(
            25, C, configurePlugin, void(PluginTensorDesc const*, int32_t, PluginTensorDesc const*, int32_t) noexcept),
        KILN_SLOT(
            26, C, supportsFormatCombination, bool(int32_t, PluginTensorDesc const*, int32_t, int32_t) const noexcept));
}

TEST(VtableSlots, IPluginV2DynamicExt)
{
    using C = IPluginV2DynamicExt;
    KILN_EXPECT_VTABLE(IPluginV2DynamicExt, 30, 25,
        KILN_SLOT(0, V2DynamicExtProtected, getTensorRTVersion, int32_t() const noexcept),
        // Private `final` overrides, reached through the base that declares them public.
        KILN_SLOT(4, IPluginV2, getOutputDimensions, Dims(int32_t, Dims const*, int32_t) noexcept),
        KILN_SLOT(5, IPluginV2, supportsFormat, bool(DataType, PluginFormat) const noexcept),
        KILN_SLOT(9, IPluginV2, getWorkspaceSize, size_t(int32_t) const noexcept),
        KILN_SLOT(
            10, IPluginV2, enqueue, int32_t(int32_t, void const* const*, void* const*, void*, cudaStream_t) noexcept),
        KILN_SLOT(20, IPluginV2Ext, isOutputBroadcastAcrossBatch, bool(int32_t, bool const*, int32_t) const noexcept),
        KILN_SLOT(21, IPluginV2Ext, canBroadcastInputAcrossBatch, bool(int32_t) const noexcept),
        KILN_SLOT(22, IPluginV2Ext, configurePlugin,
            void(Dims const*, int32_t, Dims const*, int32_t, DataType const*, DataType const*, bool const*, bool const*,
                PluginFormat, int32_t) noexcept),
        // Covariant clone reuses slot 14.
        KILN_SLOT(14, C, clone, IPluginV2DynamicExt * () const noexcept),
        KILN_SLOT(25, C, getOutputDimensions, DimsExprs(int32_t, DimsExprs const*, int32_t, IExprBuilder&) noexcept),
        KILN_SLOT(26, C, supportsFormatCombination, bool(int32_t, PluginTensorDesc const*, int32_t, int32_t) noexcept),
        KILN_SLOT(27, C, configurePlugin,
            void(DynamicPluginTensorDesc const*, int32_t, DynamicPluginTensorDesc const*, int32_t) noexcept),
        KILN_SLOT(28, C, getWorkspaceSize,
            size_t(PluginTensorDesc const*, int32_t, PluginTensorDesc const*, int32_t) const noexcept),
        KILN_SLOT(29, C, enqueue,
            int32_t(PluginTensorDesc const*, PluginTensorDesc const*, void const* const*, void* const*, void*,
                cudaStream_t) noexcept));
}

#else

TEST(VtableSlots, V2Family)
{
    GTEST_SKIP() << "slot numbers are defined for the Itanium C++ ABI only";
}

#endif
