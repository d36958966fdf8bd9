// Vtable slots of the registry, the callback interfaces and the hidden apiv implementation interfaces (spec
// sections 4.3, 4.10, 5.1, 5.6-5.10), Itanium ABI. IPluginRegistry uses the Itanium column (plain declaration
// order, destructor at 3-4, getAllCreatorsRecursive appended at 18). Rows with slot kNotVirtual assert that a
// wrapper method is an inline non-virtual function.

#include "NvInfer.h"
#include "slot_probe.h"

#if defined(KILN_ITANIUM_ABI)

using namespace nvinfer1;
using kiln_test::kNotVirtual;

TEST(VtableSlots, IPluginRegistry)
{
    using C = IPluginRegistry;
    KILN_EXPECT_VTABLE(IPluginRegistry, 19, 0,
        KILN_SLOT(0, C, registerCreator, bool(IPluginCreator&, AsciiChar const*) noexcept),
        KILN_SLOT(1, C, getPluginCreatorList, IPluginCreator* const*(int32_t*) const noexcept),
        KILN_SLOT(
            2, C, getPluginCreator, IPluginCreator * (AsciiChar const*, AsciiChar const*, AsciiChar const*) noexcept),
        KILN_DTOR(3), KILN_SLOT(5, C, setErrorRecorder, void(IErrorRecorder*) noexcept),
        KILN_SLOT(6, C, getErrorRecorder, IErrorRecorder * () const noexcept),
        KILN_SLOT(7, C, deregisterCreator, bool(IPluginCreator const&) noexcept),
        KILN_SLOT(8, C, isParentSearchEnabled, bool() const), KILN_SLOT(9, C, setParentSearchEnabled, void(bool)),
        KILN_SLOT(10, C, loadLibrary, void*(AsciiChar const*) noexcept),
        KILN_SLOT(11, C, deregisterLibrary, void(void*) noexcept),
        KILN_SLOT(12, C, registerCreator, bool(IPluginCreatorInterface&, AsciiChar const*) noexcept),
        KILN_SLOT(13, C, getAllCreators, IPluginCreatorInterface* const*(int32_t*) const noexcept),
        KILN_SLOT(14, C, getCreator,
            IPluginCreatorInterface * (AsciiChar const*, AsciiChar const*, AsciiChar const*) noexcept),
        KILN_SLOT(15, C, deregisterCreator, bool(IPluginCreatorInterface const&) noexcept),
        KILN_SLOT(16, C, acquirePluginResource, IPluginResource * (AsciiChar const*, IPluginResource*) noexcept),
        KILN_SLOT(17, C, releasePluginResource, int32_t(AsciiChar const*) noexcept),
        KILN_SLOT(18, C, getAllCreatorsRecursive, IPluginCreatorInterface* const*(int32_t*) noexcept));
}

TEST(VtableSlots, IPluginResourceContext)
{
    using C = IPluginResourceContext;
    KILN_EXPECT_VTABLE(IPluginResourceContext, 4, 0,
        KILN_SLOT(0, C, getGpuAllocator, IGpuAllocator * () const noexcept),
        KILN_SLOT(1, C, getErrorRecorder, IErrorRecorder * () const noexcept), KILN_DTOR(2));
}

TEST(VtableSlots, ILogger)
{
    using C = ILogger;
    KILN_EXPECT_VTABLE(
        ILogger, 3, 0, KILN_SLOT(0, C, log, void(ILogger::Severity, AsciiChar const*) noexcept), KILN_DTOR(1));
}

TEST(VtableSlots, ILoggerFinder)
{
    using C = ILoggerFinder;
    KILN_EXPECT_VTABLE(ILoggerFinder, 3, 0, KILN_SLOT(0, C, findLogger, ILogger * ()), KILN_DTOR(1));
}

TEST(VtableSlots, IGpuAllocator)
{
    using C = v_1_0::IGpuAllocator;
    KILN_EXPECT_VTABLE(v_1_0::IGpuAllocator, 9, 4, KILN_SLOT(1, C, getInterfaceInfo, InterfaceInfo() const noexcept),
        KILN_SLOT(4, C, allocate, void*(uint64_t, uint64_t, AllocatorFlags) noexcept),
        KILN_SLOT(5, C, reallocate, void*(void*, uint64_t, uint64_t) noexcept),
        KILN_SLOT(6, C, deallocate, bool(void*) noexcept),
        KILN_SLOT(7, C, allocateAsync, void*(uint64_t, uint64_t, AllocatorFlags, cudaStream_t) noexcept),
        KILN_SLOT(8, C, deallocateAsync, bool(void*, cudaStream_t) noexcept));
}

TEST(VtableSlots, IGpuAsyncAllocator)
{
    // Re-declares and overrides, adds nothing: the same nine slots.
    using C = v_1_0::IGpuAsyncAllocator;
    KILN_EXPECT_VTABLE(v_1_0::IGpuAsyncAllocator, 9, 9,
        KILN_SLOT(1, C, getInterfaceInfo, InterfaceInfo() const noexcept),
        KILN_SLOT(4, C, allocate, void*(uint64_t, uint64_t, AllocatorFlags) noexcept),
        KILN_SLOT(6, C, deallocate, bool(void*) noexcept),
        KILN_SLOT(7, C, allocateAsync, void*(uint64_t, uint64_t, AllocatorFlags, cudaStream_t) noexcept),
        KILN_SLOT(8, C, deallocateAsync, bool(void*, cudaStream_t) noexcept));
}

TEST(VtableSlots, IErrorRecorder)
{
    using C = v_1_0::IErrorRecorder;
    KILN_EXPECT_VTABLE(v_1_0::IErrorRecorder, 12, 4, KILN_SLOT(1, C, getInterfaceInfo, InterfaceInfo() const noexcept),
        KILN_SLOT(4, C, getNbErrors, int32_t() const noexcept),
        KILN_SLOT(5, C, getErrorCode, ErrorCode(int32_t) const noexcept),
        KILN_SLOT(6, C, getErrorDesc, char const*(int32_t) const noexcept),
        KILN_SLOT(7, C, hasOverflowed, bool() const noexcept), KILN_SLOT(8, C, clear, void() noexcept),
        KILN_SLOT(9, C, reportError, bool(ErrorCode, char const*) noexcept),
        KILN_SLOT(10, C, incRefCount, int32_t() noexcept), KILN_SLOT(11, C, decRefCount, int32_t() noexcept));
}

TEST(VtableSlots, IOutputAllocator)
{
    using C = v_1_0::IOutputAllocator;
    KILN_EXPECT_VTABLE(v_1_0::IOutputAllocator, 7, 4, KILN_SLOT(1, C, getInterfaceInfo, InterfaceInfo() const noexcept),
        KILN_SLOT(4, C, reallocateOutput, void*(char const*, void*, uint64_t, uint64_t) noexcept),
        KILN_SLOT(5, C, reallocateOutputAsync, void*(char const*, void*, uint64_t, uint64_t, cudaStream_t)),
        KILN_SLOT(6, C, notifyShape, void(char const*, Dims const&) noexcept));
}

TEST(VtableSlots, IStreamReader)
{
    using C = v_1_0::IStreamReader;
    KILN_EXPECT_VTABLE(v_1_0::IStreamReader, 5, 4, KILN_SLOT(1, C, getInterfaceInfo, InterfaceInfo() const noexcept),
        KILN_SLOT(4, C, read, int64_t(void*, int64_t)));
}

TEST(VtableSlots, IStreamReaderV2)
{
    using C = v_1_0::IStreamReaderV2;
    KILN_EXPECT_VTABLE(v_1_0::IStreamReaderV2, 6, 4, KILN_SLOT(1, C, getInterfaceInfo, InterfaceInfo() const noexcept),
        KILN_SLOT(4, C, read, int64_t(void*, int64_t, cudaStream_t) noexcept),
        KILN_SLOT(5, C, seek, bool(int64_t, SeekPosition) noexcept));
}

TEST(VtableSlots, IStreamWriter)
{
    using C = v_1_0::IStreamWriter;
    KILN_EXPECT_VTABLE(v_1_0::IStreamWriter, 5, 4, KILN_SLOT(1, C, getInterfaceInfo, InterfaceInfo() const noexcept),
        KILN_SLOT(4, C, write, int64_t(void const*, int64_t)));
}

TEST(VtableSlots, IDebugListener)
{
    using C = v_1_0::IDebugListener;
    KILN_EXPECT_VTABLE(v_1_0::IDebugListener, 5, 4, KILN_SLOT(1, C, getInterfaceInfo, InterfaceInfo() const noexcept),
        KILN_SLOT(4, C, processDebugTensor,
            bool(void const*, TensorLocation, DataType, Dims const&, char const*, cudaStream_t)));
}

TEST(VtableSlots, IProfiler)
{
    using C = v_1_0::IProfiler;
    KILN_EXPECT_VTABLE(
        v_1_0::IProfiler, 3, 0, KILN_SLOT(0, C, reportLayerTime, void(char const*, float) noexcept), KILN_DTOR(1));
}

TEST(VtableSlots, IProgressMonitor)
{
    using C = v_1_0::IProgressMonitor;
    KILN_EXPECT_VTABLE(v_1_0::IProgressMonitor, 7, 4, KILN_SLOT(1, C, getInterfaceInfo, InterfaceInfo() const noexcept),
        KILN_SLOT(4, C, phaseStart, void(char const*, char const*, int32_t) noexcept),
        KILN_SLOT(5, C, stepComplete, bool(char const*, int32_t) noexcept),
        KILN_SLOT(6, C, phaseFinish, void(char const*) noexcept));
}

TEST(VtableSlots, ApivVRoot)
{
    KILN_EXPECT_VTABLE(apiv::VRoot, 2, 0, KILN_DTOR(0));
}

TEST(VtableSlots, ApivVDimensionExpr)
{
    using C = apiv::VDimensionExpr;
    KILN_EXPECT_VTABLE(apiv::VDimensionExpr, 5, 2, KILN_SLOT(2, C, isConstant, bool() const),
        KILN_SLOT(3, C, getConstantValue, int64_t() const), KILN_SLOT(4, C, isSizeTensor, bool() const));
}

TEST(VtableSlots, ApivVExprBuilder)
{
    using C = apiv::VExprBuilder;
    KILN_EXPECT_VTABLE(apiv::VExprBuilder, 5, 2, KILN_SLOT(2, C, constant, IDimensionExpr const*(int64_t)),
        KILN_SLOT(
            3, C, operation, IDimensionExpr const*(DimensionOperation, IDimensionExpr const&, IDimensionExpr const&)),
        KILN_SLOT(
            4, C, declareSizeTensor, IDimensionExpr const*(int32_t, IDimensionExpr const&, IDimensionExpr const&)));
}

TEST(VtableSlots, INoCopy)
{
    KILN_EXPECT_VTABLE(INoCopy, 2, 0, KILN_DTOR(0));
}

TEST(VtableSlots, IDimensionExprIsAWrapper)
{
    // Only INoCopy's destructor is virtual; the methods are inline forwarders to mImpl.
    using C = IDimensionExpr;
    KILN_EXPECT_VTABLE(IDimensionExpr, 2, 2, KILN_SLOT(kNotVirtual, C, isConstant, bool() const noexcept),
        KILN_SLOT(kNotVirtual, C, getConstantValue, int64_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, isSizeTensor, bool() const noexcept));
}

TEST(VtableSlots, IExprBuilderIsAWrapper)
{
    using C = IExprBuilder;
    KILN_EXPECT_VTABLE(IExprBuilder, 2, 2, KILN_SLOT(kNotVirtual, C, constant, IDimensionExpr const*(int64_t) noexcept),
        KILN_SLOT(kNotVirtual, C, operation,
            IDimensionExpr const*(DimensionOperation, IDimensionExpr const&, IDimensionExpr const&) noexcept),
        KILN_SLOT(kNotVirtual, C, declareSizeTensor,
            IDimensionExpr const*(int32_t, IDimensionExpr const&, IDimensionExpr const&)));
}

#else

TEST(VtableSlots, RuntimeInterfaces)
{
    GTEST_SKIP() << "slot numbers are defined for the Itanium C++ ABI only";
}

#endif
