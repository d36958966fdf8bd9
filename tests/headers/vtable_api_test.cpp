// Vtable slots of the builder, network, layer and runtime API (TensorRT 10.16 NvInfer.h / NvInferRuntime.h /
// NvInferImpl.h), Itanium ABI, in the style of vtable_runtime_test.cpp.
//
// The wrappers (IRuntime, ICudaEngine, INetworkDefinition, the layers, ...) have only INoCopy's destructor in their
// vtable (slots 0-1) and inline non-virtual methods, with two exceptions TensorRT has had since 8.x:
// IBuilderConfig::setAvgTimingIterations and INetworkDefinition::getBuilder are virtual and sit in slot 2, right
// after the destructor's two entries. Every wrapper method is listed with its full signature (const and noexcept
// as in TensorRT), so a changed signature fails to compile here.
//
// The hidden apiv interfaces follow the member order of TensorRT 10.16's NvInferImpl.h; their tables below pin that
// order. Binary compatibility of these interfaces with applications built against TensorRT is not yet verified.

#include "NvInfer.h"
#include "slot_probe.h"

#include <cstddef>

#if defined(KILN_ITANIUM_ABI)

using namespace nvinfer1;
using kiln_test::kNotVirtual;

// ---------------------------------------------------------------------------------------------------------------
// The wrappers.

TEST(VtableSlots, StrayVirtualsFollowTheDestructor)
{
    // TensorRT declares exactly two wrapper methods virtual; both land right after the destructor's D1 and D0.
    EXPECT_EQ(kiln_test::slotCount<IBuilderConfig>(), 3);
    EXPECT_EQ((kiln_test::slotOf<void(int32_t) noexcept, IBuilderConfig>(&IBuilderConfig::setAvgTimingIterations)), 2);
    EXPECT_EQ(kiln_test::slotCount<INetworkDefinition>(), 3);
    EXPECT_EQ((kiln_test::slotOf<IBuilder&() const noexcept, INetworkDefinition>(&INetworkDefinition::getBuilder)), 2);
    // Every other wrapper has only the destructor.
    EXPECT_EQ(kiln_test::slotCount<IBuilder>(), 2);
    EXPECT_EQ(kiln_test::slotCount<IRuntime>(), 2);
    EXPECT_EQ(kiln_test::slotCount<ILayer>(), 2);
    EXPECT_EQ(kiln_test::slotCount<IConvolutionLayer>(), 2);
}

TEST(VtableSlots, IHostMemoryIsAWrapper)
{
    using C = IHostMemory;
    KILN_EXPECT_VTABLE(IHostMemory, 2, 0, KILN_DTOR(0), KILN_SLOT(kNotVirtual, C, data, void*() const noexcept),
        KILN_SLOT(kNotVirtual, C, size, std::size_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, type, DataType() const noexcept));
}

TEST(VtableSlots, IRuntimeIsAWrapper)
{
    using C = IRuntime;
    KILN_EXPECT_VTABLE(IRuntime, 2, 0, KILN_DTOR(0), KILN_SLOT(kNotVirtual, C, setDLACore, void(int32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getDLACore, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, getNbDLACores, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, setGpuAllocator, void(IGpuAllocator*) noexcept),
        KILN_SLOT(kNotVirtual, C, setErrorRecorder, void(IErrorRecorder*) noexcept),
        KILN_SLOT(kNotVirtual, C, getErrorRecorder, IErrorRecorder * () const noexcept),
        KILN_SLOT(kNotVirtual, C, deserializeCudaEngine, ICudaEngine * (void const*, std::size_t) noexcept),
        KILN_SLOT(kNotVirtual, C, deserializeCudaEngine, ICudaEngine * (IStreamReader&)),
        KILN_SLOT(kNotVirtual, C, deserializeCudaEngine, ICudaEngine * (IStreamReaderV2&)),
        KILN_SLOT(kNotVirtual, C, getLogger, ILogger * () const noexcept),
        KILN_SLOT(kNotVirtual, C, setMaxThreads, bool(int32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getMaxThreads, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, setTemporaryDirectory, void(char const*) noexcept),
        KILN_SLOT(kNotVirtual, C, getTemporaryDirectory, char const*() const noexcept),
        KILN_SLOT(kNotVirtual, C, setTempfileControlFlags, void(TempfileControlFlags) noexcept),
        KILN_SLOT(kNotVirtual, C, getTempfileControlFlags, TempfileControlFlags() const noexcept),
        KILN_SLOT(kNotVirtual, C, getPluginRegistry, IPluginRegistry & () noexcept),
        KILN_SLOT(kNotVirtual, C, loadRuntime, IRuntime * (char const*) noexcept),
        KILN_SLOT(kNotVirtual, C, setEngineHostCodeAllowed, void(bool) noexcept),
        KILN_SLOT(kNotVirtual, C, getEngineHostCodeAllowed, bool() const noexcept));
}

TEST(VtableSlots, IRefitterIsAWrapper)
{
    using C = IRefitter;
    KILN_EXPECT_VTABLE(IRefitter, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, setWeights, bool(char const*, WeightsRole, Weights) noexcept),
        KILN_SLOT(kNotVirtual, C, refitCudaEngine, bool() noexcept),
        KILN_SLOT(kNotVirtual, C, getMissing, int32_t(int32_t, char const**, WeightsRole*) noexcept),
        KILN_SLOT(kNotVirtual, C, getAll, int32_t(int32_t, char const**, WeightsRole*) noexcept),
        KILN_SLOT(kNotVirtual, C, setDynamicRange, bool(char const*, float, float) noexcept),
        KILN_SLOT(kNotVirtual, C, getDynamicRangeMin, float(char const*) const noexcept),
        KILN_SLOT(kNotVirtual, C, getDynamicRangeMax, float(char const*) const noexcept),
        KILN_SLOT(kNotVirtual, C, getTensorsWithDynamicRange, int32_t(int32_t, char const**) const noexcept),
        KILN_SLOT(kNotVirtual, C, setErrorRecorder, void(IErrorRecorder*) noexcept),
        KILN_SLOT(kNotVirtual, C, getErrorRecorder, IErrorRecorder * () const noexcept),
        KILN_SLOT(kNotVirtual, C, setNamedWeights, bool(char const*, Weights) noexcept),
        KILN_SLOT(kNotVirtual, C, getMissingWeights, int32_t(int32_t, char const**) noexcept),
        KILN_SLOT(kNotVirtual, C, getAllWeights, int32_t(int32_t, char const**) noexcept),
        KILN_SLOT(kNotVirtual, C, getLogger, ILogger * () const noexcept),
        KILN_SLOT(kNotVirtual, C, setMaxThreads, bool(int32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getMaxThreads, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, setNamedWeights, bool(char const*, Weights, TensorLocation) noexcept),
        KILN_SLOT(kNotVirtual, C, getNamedWeights, Weights(char const*) const noexcept),
        KILN_SLOT(kNotVirtual, C, getWeightsLocation, TensorLocation(char const*) const noexcept),
        KILN_SLOT(kNotVirtual, C, unsetNamedWeights, bool(char const*) noexcept),
        KILN_SLOT(kNotVirtual, C, setWeightsValidation, void(bool) noexcept),
        KILN_SLOT(kNotVirtual, C, getWeightsValidation, bool() const noexcept),
        KILN_SLOT(kNotVirtual, C, refitCudaEngineAsync, bool(cudaStream_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getWeightsPrototype, Weights(char const*) const noexcept));
}

TEST(VtableSlots, IOptimizationProfileIsAWrapper)
{
    using C = IOptimizationProfile;
    KILN_EXPECT_VTABLE(IOptimizationProfile, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, setDimensions, bool(char const*, OptProfileSelector, Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getDimensions, Dims(char const*, OptProfileSelector) const noexcept),
        KILN_SLOT(
            kNotVirtual, C, setShapeValues, bool(char const*, OptProfileSelector, int32_t const*, int32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getNbShapeValues, int32_t(char const*) const noexcept),
        KILN_SLOT(kNotVirtual, C, getShapeValues, int32_t const*(char const*, OptProfileSelector) const noexcept),
        KILN_SLOT(kNotVirtual, C, setExtraMemoryTarget, bool(float) noexcept),
        KILN_SLOT(kNotVirtual, C, getExtraMemoryTarget, float() const noexcept),
        KILN_SLOT(kNotVirtual, C, isValid, bool() const noexcept),
        KILN_SLOT(
            kNotVirtual, C, setShapeValuesV2, bool(char const*, OptProfileSelector, int64_t const*, int32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getShapeValuesV2, int64_t const*(char const*, OptProfileSelector) const noexcept));
}

TEST(VtableSlots, ISerializationConfigIsAWrapper)
{
    using C = ISerializationConfig;
    KILN_EXPECT_VTABLE(ISerializationConfig, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, setFlags, bool(SerializationFlags) noexcept),
        KILN_SLOT(kNotVirtual, C, getFlags, SerializationFlags() const noexcept),
        KILN_SLOT(kNotVirtual, C, clearFlag, bool(SerializationFlag) noexcept),
        KILN_SLOT(kNotVirtual, C, setFlag, bool(SerializationFlag) noexcept),
        KILN_SLOT(kNotVirtual, C, getFlag, bool(SerializationFlag) const noexcept));
}

TEST(VtableSlots, IRuntimeConfigIsAWrapper)
{
    using C = IRuntimeConfig;
    KILN_EXPECT_VTABLE(IRuntimeConfig, 2, 0, KILN_DTOR(0),
        KILN_SLOT(
            kNotVirtual, C, setExecutionContextAllocationStrategy, void(ExecutionContextAllocationStrategy) noexcept),
        KILN_SLOT(kNotVirtual, C, getExecutionContextAllocationStrategy,
            ExecutionContextAllocationStrategy() const noexcept));
}

TEST(VtableSlots, ICudaEngineIsAWrapper)
{
    using C = ICudaEngine;
    KILN_EXPECT_VTABLE(ICudaEngine, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, getTensorShape, Dims(char const*) const noexcept),
        KILN_SLOT(kNotVirtual, C, getTensorDataType, DataType(char const*) const noexcept),
        KILN_SLOT(kNotVirtual, C, getNbLayers, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, serialize, IHostMemory * () const noexcept),
        KILN_SLOT(
            kNotVirtual, C, createExecutionContext, IExecutionContext * (ExecutionContextAllocationStrategy) noexcept),
        KILN_SLOT(kNotVirtual, C, getTensorLocation, TensorLocation(char const*) const noexcept),
        KILN_SLOT(kNotVirtual, C, isShapeInferenceIO, bool(char const*) const noexcept),
        KILN_SLOT(kNotVirtual, C, getTensorIOMode, TensorIOMode(char const*) const noexcept),
        KILN_SLOT(kNotVirtual, C, getAliasedInputTensor, char const*(char const*) const noexcept),
        KILN_SLOT(kNotVirtual, C, createExecutionContextWithoutDeviceMemory, IExecutionContext * () noexcept),
        KILN_SLOT(kNotVirtual, C, createExecutionContext, IExecutionContext * (IRuntimeConfig*) noexcept),
        KILN_SLOT(kNotVirtual, C, createRuntimeConfig, IRuntimeConfig * () noexcept),
        KILN_SLOT(kNotVirtual, C, getDeviceMemorySize, size_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, getDeviceMemorySizeForProfile, size_t(int32_t) const noexcept),
        KILN_SLOT(kNotVirtual, C, getDeviceMemorySizeV2, int64_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, getDeviceMemorySizeForProfileV2, int64_t(int32_t) const noexcept),
        KILN_SLOT(kNotVirtual, C, isRefittable, bool() const noexcept),
        KILN_SLOT(kNotVirtual, C, getTensorBytesPerComponent, int32_t(char const*) const noexcept),
        KILN_SLOT(kNotVirtual, C, getTensorBytesPerComponent, int32_t(char const*, int32_t) const noexcept),
        KILN_SLOT(kNotVirtual, C, getTensorComponentsPerElement, int32_t(char const*) const noexcept),
        KILN_SLOT(kNotVirtual, C, getTensorComponentsPerElement, int32_t(char const*, int32_t) const noexcept),
        KILN_SLOT(kNotVirtual, C, getTensorFormat, TensorFormat(char const*) const noexcept),
        KILN_SLOT(kNotVirtual, C, getTensorFormat, TensorFormat(char const*, int32_t) const noexcept),
        KILN_SLOT(kNotVirtual, C, getTensorFormatDesc, char const*(char const*) const noexcept),
        KILN_SLOT(kNotVirtual, C, getTensorFormatDesc, char const*(char const*, int32_t) const noexcept),
        KILN_SLOT(kNotVirtual, C, getTensorVectorizedDim, int32_t(char const*) const noexcept),
        KILN_SLOT(kNotVirtual, C, getTensorVectorizedDim, int32_t(char const*, int32_t) const noexcept),
        KILN_SLOT(kNotVirtual, C, getName, char const*() const noexcept),
        KILN_SLOT(kNotVirtual, C, getNbOptimizationProfiles, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, getProfileShape, Dims(char const*, int32_t, OptProfileSelector) const noexcept),
        KILN_SLOT(kNotVirtual, C, getProfileTensorValues,
            int32_t const*(char const*, int32_t, OptProfileSelector) const noexcept),
        KILN_SLOT(kNotVirtual, C, getEngineCapability, EngineCapability() const noexcept),
        KILN_SLOT(kNotVirtual, C, setErrorRecorder, void(IErrorRecorder*) noexcept),
        KILN_SLOT(kNotVirtual, C, getErrorRecorder, IErrorRecorder * () const noexcept),
        KILN_SLOT(kNotVirtual, C, hasImplicitBatchDimension, bool() const noexcept),
        KILN_SLOT(kNotVirtual, C, getTacticSources, TacticSources() const noexcept),
        KILN_SLOT(kNotVirtual, C, getProfilingVerbosity, ProfilingVerbosity() const noexcept),
        KILN_SLOT(kNotVirtual, C, createEngineInspector, IEngineInspector * () const noexcept),
        KILN_SLOT(kNotVirtual, C, getNbIOTensors, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, getIOTensorName, char const*(int32_t) const noexcept),
        KILN_SLOT(kNotVirtual, C, getHardwareCompatibilityLevel, HardwareCompatibilityLevel() const noexcept),
        KILN_SLOT(kNotVirtual, C, getNbAuxStreams, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, createSerializationConfig, ISerializationConfig * () noexcept),
        KILN_SLOT(kNotVirtual, C, serializeWithConfig, IHostMemory * (ISerializationConfig&) const noexcept),
        KILN_SLOT(kNotVirtual, C, setWeightStreamingBudget, bool(int64_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getWeightStreamingBudget, int64_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, getMinimumWeightStreamingBudget, int64_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, getStreamableWeightsSize, int64_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, setWeightStreamingBudgetV2, bool(int64_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getWeightStreamingBudgetV2, int64_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, getWeightStreamingAutomaticBudget, int64_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, getWeightStreamingScratchMemorySize, int64_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, isDebugTensor, bool(char const*) const noexcept),
        KILN_SLOT(kNotVirtual, C, getProfileTensorValuesV2,
            int64_t const*(char const*, int32_t, OptProfileSelector) const noexcept),
        KILN_SLOT(kNotVirtual, C, getEngineStat, int64_t(EngineStat) const noexcept));
}

TEST(VtableSlots, IExecutionContextIsAWrapper)
{
    using C = IExecutionContext;
    KILN_EXPECT_VTABLE(IExecutionContext, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, setDebugSync, void(bool) noexcept),
        KILN_SLOT(kNotVirtual, C, getDebugSync, bool() const noexcept),
        KILN_SLOT(kNotVirtual, C, setProfiler, void(IProfiler*) noexcept),
        KILN_SLOT(kNotVirtual, C, getProfiler, IProfiler * () const noexcept),
        KILN_SLOT(kNotVirtual, C, getEngine, ICudaEngine const&() const noexcept),
        KILN_SLOT(kNotVirtual, C, setName, void(char const*) noexcept),
        KILN_SLOT(kNotVirtual, C, getName, char const*() const noexcept),
        KILN_SLOT(kNotVirtual, C, setDeviceMemory, void(void*) noexcept),
        KILN_SLOT(kNotVirtual, C, setDeviceMemoryV2, void(void*, int64_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getTensorStrides, Dims(char const*) const noexcept),
        KILN_SLOT(kNotVirtual, C, getOptimizationProfile, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, setInputShape, bool(char const*, Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getTensorShape, Dims(char const*) const noexcept),
        KILN_SLOT(kNotVirtual, C, allInputDimensionsSpecified, bool() const noexcept),
        KILN_SLOT(kNotVirtual, C, allInputShapesSpecified, bool() const noexcept),
        KILN_SLOT(kNotVirtual, C, setErrorRecorder, void(IErrorRecorder*) noexcept),
        KILN_SLOT(kNotVirtual, C, getErrorRecorder, IErrorRecorder * () const noexcept),
        KILN_SLOT(kNotVirtual, C, executeV2, bool(void* const*) noexcept),
        KILN_SLOT(kNotVirtual, C, setOptimizationProfileAsync, bool(int32_t, cudaStream_t) noexcept),
        KILN_SLOT(kNotVirtual, C, setEnqueueEmitsProfile, void(bool) noexcept),
        KILN_SLOT(kNotVirtual, C, getEnqueueEmitsProfile, bool() const noexcept),
        KILN_SLOT(kNotVirtual, C, reportToProfiler, bool() const noexcept),
        KILN_SLOT(kNotVirtual, C, setTensorAddress, bool(char const*, void*) noexcept),
        KILN_SLOT(kNotVirtual, C, getTensorAddress, void const*(char const*) const noexcept),
        KILN_SLOT(kNotVirtual, C, setOutputTensorAddress, bool(char const*, void*) noexcept),
        KILN_SLOT(kNotVirtual, C, setInputTensorAddress, bool(char const*, void const*) noexcept),
        KILN_SLOT(kNotVirtual, C, getOutputTensorAddress, void*(char const*) const noexcept),
        KILN_SLOT(kNotVirtual, C, inferShapes, int32_t(int32_t, char const**) noexcept),
        KILN_SLOT(kNotVirtual, C, updateDeviceMemorySizeForShapes, size_t() noexcept),
        KILN_SLOT(kNotVirtual, C, setInputConsumedEvent, bool(cudaEvent_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getInputConsumedEvent, cudaEvent_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, setOutputAllocator, bool(char const*, IOutputAllocator*) noexcept),
        KILN_SLOT(kNotVirtual, C, getOutputAllocator, IOutputAllocator * (char const*) const noexcept),
        KILN_SLOT(kNotVirtual, C, getMaxOutputSize, int64_t(char const*) const noexcept),
        KILN_SLOT(kNotVirtual, C, setTemporaryStorageAllocator, bool(IGpuAllocator*) noexcept),
        KILN_SLOT(kNotVirtual, C, getTemporaryStorageAllocator, IGpuAllocator * () const noexcept),
        KILN_SLOT(kNotVirtual, C, enqueueV3, bool(cudaStream_t) noexcept),
        KILN_SLOT(kNotVirtual, C, setPersistentCacheLimit, void(size_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getPersistentCacheLimit, size_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, setNvtxVerbosity, bool(ProfilingVerbosity) noexcept),
        KILN_SLOT(kNotVirtual, C, getNvtxVerbosity, ProfilingVerbosity() const noexcept),
        KILN_SLOT(kNotVirtual, C, setAuxStreams, void(cudaStream_t*, int32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, setDebugListener, bool(IDebugListener*) noexcept),
        KILN_SLOT(kNotVirtual, C, getDebugListener, IDebugListener * () noexcept),
        KILN_SLOT(kNotVirtual, C, setTensorDebugState, bool(char const*, bool) noexcept),
        KILN_SLOT(kNotVirtual, C, getDebugState, bool(char const*) const noexcept),
        KILN_SLOT(kNotVirtual, C, getRuntimeConfig, IRuntimeConfig * () const noexcept),
        KILN_SLOT(kNotVirtual, C, setAllTensorsDebugState, bool(bool) noexcept),
        KILN_SLOT(kNotVirtual, C, setUnfusedTensorsDebugState, bool(bool) noexcept),
        KILN_SLOT(kNotVirtual, C, getUnfusedTensorsDebugState, bool() const noexcept),
        KILN_SLOT(kNotVirtual, C, setCommunicator, bool(void*) noexcept));
}

TEST(VtableSlots, IEngineInspectorIsAWrapper)
{
    using C = IEngineInspector;
    KILN_EXPECT_VTABLE(IEngineInspector, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, setExecutionContext, bool(IExecutionContext const*) noexcept),
        KILN_SLOT(kNotVirtual, C, getExecutionContext, IExecutionContext const*() const noexcept),
        KILN_SLOT(kNotVirtual, C, getLayerInformation, char const*(int32_t, LayerInformationFormat) const noexcept),
        KILN_SLOT(kNotVirtual, C, getEngineInformation, char const*(LayerInformationFormat) const noexcept),
        KILN_SLOT(kNotVirtual, C, setErrorRecorder, void(IErrorRecorder*) noexcept),
        KILN_SLOT(kNotVirtual, C, getErrorRecorder, IErrorRecorder * () const noexcept));
}

TEST(VtableSlots, ITensorIsAWrapper)
{
    using C = ITensor;
    KILN_EXPECT_VTABLE(ITensor, 2, 0, KILN_DTOR(0), KILN_SLOT(kNotVirtual, C, setName, void(char const*) noexcept),
        KILN_SLOT(kNotVirtual, C, getName, char const*() const noexcept),
        KILN_SLOT(kNotVirtual, C, setDimensions, void(Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getDimensions, Dims() const noexcept),
        KILN_SLOT(kNotVirtual, C, setType, void(DataType) noexcept),
        KILN_SLOT(kNotVirtual, C, getType, DataType() const noexcept),
        KILN_SLOT(kNotVirtual, C, setDynamicRange, bool(float, float) noexcept),
        KILN_SLOT(kNotVirtual, C, isNetworkInput, bool() const noexcept),
        KILN_SLOT(kNotVirtual, C, isNetworkOutput, bool() const noexcept),
        KILN_SLOT(kNotVirtual, C, setBroadcastAcrossBatch, void(bool) noexcept),
        KILN_SLOT(kNotVirtual, C, getBroadcastAcrossBatch, bool() const noexcept),
        KILN_SLOT(kNotVirtual, C, getLocation, TensorLocation() const noexcept),
        KILN_SLOT(kNotVirtual, C, setLocation, void(TensorLocation) noexcept),
        KILN_SLOT(kNotVirtual, C, dynamicRangeIsSet, bool() const noexcept),
        KILN_SLOT(kNotVirtual, C, resetDynamicRange, void() noexcept),
        KILN_SLOT(kNotVirtual, C, getDynamicRangeMin, float() const noexcept),
        KILN_SLOT(kNotVirtual, C, getDynamicRangeMax, float() const noexcept),
        KILN_SLOT(kNotVirtual, C, setAllowedFormats, void(TensorFormats) noexcept),
        KILN_SLOT(kNotVirtual, C, getAllowedFormats, TensorFormats() const noexcept),
        KILN_SLOT(kNotVirtual, C, isShapeTensor, bool() const noexcept),
        KILN_SLOT(kNotVirtual, C, isExecutionTensor, bool() const noexcept),
        KILN_SLOT(kNotVirtual, C, setDimensionName, void(int32_t, char const*) noexcept),
        KILN_SLOT(kNotVirtual, C, getDimensionName, char const*(int32_t) const noexcept));
}

TEST(VtableSlots, ILayerIsAWrapper)
{
    using C = ILayer;
    KILN_EXPECT_VTABLE(ILayer, 2, 0, KILN_DTOR(0), KILN_SLOT(kNotVirtual, C, getType, LayerType() const noexcept),
        KILN_SLOT(kNotVirtual, C, setName, void(char const*) noexcept),
        KILN_SLOT(kNotVirtual, C, getName, char const*() const noexcept),
        KILN_SLOT(kNotVirtual, C, getNbInputs, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, getInput, ITensor * (int32_t) const noexcept),
        KILN_SLOT(kNotVirtual, C, getNbOutputs, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, getOutput, ITensor * (int32_t) const noexcept),
        KILN_SLOT(kNotVirtual, C, setInput, void(int32_t, ITensor&) noexcept),
        KILN_SLOT(kNotVirtual, C, setPrecision, void(DataType) noexcept),
        KILN_SLOT(kNotVirtual, C, getPrecision, DataType() const noexcept),
        KILN_SLOT(kNotVirtual, C, precisionIsSet, bool() const noexcept),
        KILN_SLOT(kNotVirtual, C, resetPrecision, void() noexcept),
        KILN_SLOT(kNotVirtual, C, setOutputType, void(int32_t, DataType) noexcept),
        KILN_SLOT(kNotVirtual, C, getOutputType, DataType(int32_t) const noexcept),
        KILN_SLOT(kNotVirtual, C, outputTypeIsSet, bool(int32_t) const noexcept),
        KILN_SLOT(kNotVirtual, C, resetOutputType, void(int32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, setMetadata, void(char const*) noexcept),
        KILN_SLOT(kNotVirtual, C, getMetadata, char const*() const noexcept),
        KILN_SLOT(kNotVirtual, C, setNbRanks, bool(int32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getNbRanks, int32_t() const noexcept));
}

TEST(VtableSlots, IConvolutionLayerIsAWrapper)
{
    using C = IConvolutionLayer;
    KILN_EXPECT_VTABLE(IConvolutionLayer, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, setNbOutputMaps, void(int64_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getNbOutputMaps, int64_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, setNbGroups, void(int64_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getNbGroups, int64_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, setKernelWeights, void(Weights) noexcept),
        KILN_SLOT(kNotVirtual, C, getKernelWeights, Weights() const noexcept),
        KILN_SLOT(kNotVirtual, C, setBiasWeights, void(Weights) noexcept),
        KILN_SLOT(kNotVirtual, C, getBiasWeights, Weights() const noexcept),
        KILN_SLOT(kNotVirtual, C, setPrePadding, void(Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getPrePadding, Dims() const noexcept),
        KILN_SLOT(kNotVirtual, C, setPostPadding, void(Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getPostPadding, Dims() const noexcept),
        KILN_SLOT(kNotVirtual, C, setPaddingMode, void(PaddingMode) noexcept),
        KILN_SLOT(kNotVirtual, C, getPaddingMode, PaddingMode() const noexcept),
        KILN_SLOT(kNotVirtual, C, setKernelSizeNd, void(Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getKernelSizeNd, Dims() const noexcept),
        KILN_SLOT(kNotVirtual, C, setStrideNd, void(Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getStrideNd, Dims() const noexcept),
        KILN_SLOT(kNotVirtual, C, setPaddingNd, void(Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getPaddingNd, Dims() const noexcept),
        KILN_SLOT(kNotVirtual, C, setDilationNd, void(Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getDilationNd, Dims() const noexcept));
}

TEST(VtableSlots, IDeconvolutionLayerIsAWrapper)
{
    using C = IDeconvolutionLayer;
    KILN_EXPECT_VTABLE(IDeconvolutionLayer, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, setNbOutputMaps, void(int64_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getNbOutputMaps, int64_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, setNbGroups, void(int64_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getNbGroups, int64_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, setKernelWeights, void(Weights) noexcept),
        KILN_SLOT(kNotVirtual, C, getKernelWeights, Weights() const noexcept),
        KILN_SLOT(kNotVirtual, C, setBiasWeights, void(Weights) noexcept),
        KILN_SLOT(kNotVirtual, C, getBiasWeights, Weights() const noexcept),
        KILN_SLOT(kNotVirtual, C, setPrePadding, void(Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getPrePadding, Dims() const noexcept),
        KILN_SLOT(kNotVirtual, C, setPostPadding, void(Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getPostPadding, Dims() const noexcept),
        KILN_SLOT(kNotVirtual, C, setPaddingMode, void(PaddingMode) noexcept),
        KILN_SLOT(kNotVirtual, C, getPaddingMode, PaddingMode() const noexcept),
        KILN_SLOT(kNotVirtual, C, setKernelSizeNd, void(Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getKernelSizeNd, Dims() const noexcept),
        KILN_SLOT(kNotVirtual, C, setStrideNd, void(Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getStrideNd, Dims() const noexcept),
        KILN_SLOT(kNotVirtual, C, setPaddingNd, void(Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getPaddingNd, Dims() const noexcept),
        KILN_SLOT(kNotVirtual, C, setDilationNd, void(Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getDilationNd, Dims() const noexcept));
}

TEST(VtableSlots, IActivationLayerIsAWrapper)
{
    using C = IActivationLayer;
    KILN_EXPECT_VTABLE(IActivationLayer, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, setActivationType, void(ActivationType) noexcept),
        KILN_SLOT(kNotVirtual, C, getActivationType, ActivationType() const noexcept),
        KILN_SLOT(kNotVirtual, C, setAlpha, void(float) noexcept),
        KILN_SLOT(kNotVirtual, C, setBeta, void(float) noexcept),
        KILN_SLOT(kNotVirtual, C, getAlpha, float() const noexcept),
        KILN_SLOT(kNotVirtual, C, getBeta, float() const noexcept));
}

TEST(VtableSlots, IPoolingLayerIsAWrapper)
{
    using C = IPoolingLayer;
    KILN_EXPECT_VTABLE(IPoolingLayer, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, setPoolingType, void(PoolingType) noexcept),
        KILN_SLOT(kNotVirtual, C, getPoolingType, PoolingType() const noexcept),
        KILN_SLOT(kNotVirtual, C, setBlendFactor, void(float) noexcept),
        KILN_SLOT(kNotVirtual, C, getBlendFactor, float() const noexcept),
        KILN_SLOT(kNotVirtual, C, setAverageCountExcludesPadding, void(bool) noexcept),
        KILN_SLOT(kNotVirtual, C, getAverageCountExcludesPadding, bool() const noexcept),
        KILN_SLOT(kNotVirtual, C, setPrePadding, void(Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getPrePadding, Dims() const noexcept),
        KILN_SLOT(kNotVirtual, C, setPostPadding, void(Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getPostPadding, Dims() const noexcept),
        KILN_SLOT(kNotVirtual, C, setPaddingMode, void(PaddingMode) noexcept),
        KILN_SLOT(kNotVirtual, C, getPaddingMode, PaddingMode() const noexcept),
        KILN_SLOT(kNotVirtual, C, setWindowSizeNd, void(Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getWindowSizeNd, Dims() const noexcept),
        KILN_SLOT(kNotVirtual, C, setStrideNd, void(Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getStrideNd, Dims() const noexcept),
        KILN_SLOT(kNotVirtual, C, setPaddingNd, void(Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getPaddingNd, Dims() const noexcept));
}

TEST(VtableSlots, ISoftMaxLayerIsAWrapper)
{
    using C = ISoftMaxLayer;
    KILN_EXPECT_VTABLE(ISoftMaxLayer, 2, 0, KILN_DTOR(0), KILN_SLOT(kNotVirtual, C, setAxes, void(uint32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getAxes, uint32_t() const noexcept));
}

TEST(VtableSlots, IConcatenationLayerIsAWrapper)
{
    using C = IConcatenationLayer;
    KILN_EXPECT_VTABLE(IConcatenationLayer, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, setAxis, void(int32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getAxis, int32_t() const noexcept));
}

TEST(VtableSlots, IElementWiseLayerIsAWrapper)
{
    using C = IElementWiseLayer;
    KILN_EXPECT_VTABLE(IElementWiseLayer, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, setOperation, void(ElementWiseOperation) noexcept),
        KILN_SLOT(kNotVirtual, C, getOperation, ElementWiseOperation() const noexcept));
}

TEST(VtableSlots, IGatherLayerIsAWrapper)
{
    using C = IGatherLayer;
    KILN_EXPECT_VTABLE(IGatherLayer, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, setGatherAxis, void(int32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getGatherAxis, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, setNbElementWiseDims, void(int32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getNbElementWiseDims, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, setMode, void(GatherMode) noexcept),
        KILN_SLOT(kNotVirtual, C, getMode, GatherMode() const noexcept));
}

TEST(VtableSlots, IPluginV2LayerIsAWrapper)
{
    using C = IPluginV2Layer;
    KILN_EXPECT_VTABLE(
        IPluginV2Layer, 2, 0, KILN_DTOR(0), KILN_SLOT(kNotVirtual, C, getPlugin, IPluginV2 & () noexcept));
}

TEST(VtableSlots, IPluginV3LayerIsAWrapper)
{
    using C = IPluginV3Layer;
    KILN_EXPECT_VTABLE(
        IPluginV3Layer, 2, 0, KILN_DTOR(0), KILN_SLOT(kNotVirtual, C, getPlugin, IPluginV3 & () noexcept));
}

TEST(VtableSlots, IUnaryLayerIsAWrapper)
{
    using C = IUnaryLayer;
    KILN_EXPECT_VTABLE(IUnaryLayer, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, setOperation, void(UnaryOperation) noexcept),
        KILN_SLOT(kNotVirtual, C, getOperation, UnaryOperation() const noexcept));
}

TEST(VtableSlots, IReduceLayerIsAWrapper)
{
    using C = IReduceLayer;
    KILN_EXPECT_VTABLE(IReduceLayer, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, setOperation, void(ReduceOperation) noexcept),
        KILN_SLOT(kNotVirtual, C, getOperation, ReduceOperation() const noexcept),
        KILN_SLOT(kNotVirtual, C, setReduceAxes, void(uint32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getReduceAxes, uint32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, setKeepDimensions, void(bool) noexcept),
        KILN_SLOT(kNotVirtual, C, getKeepDimensions, bool() const noexcept));
}

TEST(VtableSlots, ITopKLayerIsAWrapper)
{
    using C = ITopKLayer;
    KILN_EXPECT_VTABLE(ITopKLayer, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, setOperation, void(TopKOperation) noexcept),
        KILN_SLOT(kNotVirtual, C, getOperation, TopKOperation() const noexcept),
        KILN_SLOT(kNotVirtual, C, setK, void(int32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getK, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, setReduceAxes, void(uint32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getReduceAxes, uint32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, setIndicesType, bool(DataType) noexcept),
        KILN_SLOT(kNotVirtual, C, getIndicesType, DataType() const noexcept));
}

TEST(VtableSlots, INonZeroLayerIsAWrapper)
{
    using C = INonZeroLayer;
    KILN_EXPECT_VTABLE(INonZeroLayer, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, setIndicesType, bool(DataType) noexcept),
        KILN_SLOT(kNotVirtual, C, getIndicesType, DataType() const noexcept));
}

TEST(VtableSlots, INMSLayerIsAWrapper)
{
    using C = INMSLayer;
    KILN_EXPECT_VTABLE(INMSLayer, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, setBoundingBoxFormat, void(BoundingBoxFormat) noexcept),
        KILN_SLOT(kNotVirtual, C, getBoundingBoxFormat, BoundingBoxFormat() const noexcept),
        KILN_SLOT(kNotVirtual, C, setTopKBoxLimit, void(int32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getTopKBoxLimit, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, setInput, void(int32_t, ITensor&) noexcept),
        KILN_SLOT(kNotVirtual, C, setIndicesType, bool(DataType) noexcept),
        KILN_SLOT(kNotVirtual, C, getIndicesType, DataType() const noexcept));
}

TEST(VtableSlots, IShuffleLayerIsAWrapper)
{
    using C = IShuffleLayer;
    KILN_EXPECT_VTABLE(IShuffleLayer, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, setFirstTranspose, void(Permutation) noexcept),
        KILN_SLOT(kNotVirtual, C, getFirstTranspose, Permutation() const noexcept),
        KILN_SLOT(kNotVirtual, C, setReshapeDimensions, void(Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getReshapeDimensions, Dims() const noexcept),
        KILN_SLOT(kNotVirtual, C, setSecondTranspose, void(Permutation) noexcept),
        KILN_SLOT(kNotVirtual, C, getSecondTranspose, Permutation() const noexcept),
        KILN_SLOT(kNotVirtual, C, setZeroIsPlaceholder, void(bool) noexcept),
        KILN_SLOT(kNotVirtual, C, getZeroIsPlaceholder, bool() const noexcept));
}

TEST(VtableSlots, ISliceLayerIsAWrapper)
{
    using C = ISliceLayer;
    KILN_EXPECT_VTABLE(ISliceLayer, 2, 0, KILN_DTOR(0), KILN_SLOT(kNotVirtual, C, setStart, void(Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getStart, Dims() const noexcept),
        KILN_SLOT(kNotVirtual, C, setSize, void(Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getSize, Dims() const noexcept),
        KILN_SLOT(kNotVirtual, C, setStride, void(Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getStride, Dims() const noexcept),
        KILN_SLOT(kNotVirtual, C, setMode, void(SampleMode) noexcept),
        KILN_SLOT(kNotVirtual, C, getMode, SampleMode() const noexcept),
        KILN_SLOT(kNotVirtual, C, setAxes, void(Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getAxes, Dims() const noexcept));
}

TEST(VtableSlots, IShapeLayerIsAWrapper)
{
    KILN_EXPECT_VTABLE(IShapeLayer, 2, 0, KILN_DTOR(0));
}

TEST(VtableSlots, IMatrixMultiplyLayerIsAWrapper)
{
    using C = IMatrixMultiplyLayer;
    KILN_EXPECT_VTABLE(IMatrixMultiplyLayer, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, setOperation, void(int32_t, MatrixOperation) noexcept),
        KILN_SLOT(kNotVirtual, C, getOperation, MatrixOperation(int32_t) const noexcept));
}

TEST(VtableSlots, IIdentityLayerIsAWrapper)
{
    KILN_EXPECT_VTABLE(IIdentityLayer, 2, 0, KILN_DTOR(0));
}

TEST(VtableSlots, ICastLayerIsAWrapper)
{
    using C = ICastLayer;
    KILN_EXPECT_VTABLE(ICastLayer, 2, 0, KILN_DTOR(0), KILN_SLOT(kNotVirtual, C, setToType, void(DataType) noexcept),
        KILN_SLOT(kNotVirtual, C, getToType, DataType() const noexcept));
}

TEST(VtableSlots, IQuantizeLayerIsAWrapper)
{
    using C = IQuantizeLayer;
    KILN_EXPECT_VTABLE(IQuantizeLayer, 2, 0, KILN_DTOR(0), KILN_SLOT(kNotVirtual, C, getAxis, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, setAxis, void(int32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, setBlockShape, bool(Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getBlockShape, Dims() const noexcept),
        KILN_SLOT(kNotVirtual, C, setToType, void(DataType) noexcept),
        KILN_SLOT(kNotVirtual, C, getToType, DataType() const noexcept));
}

TEST(VtableSlots, IDequantizeLayerIsAWrapper)
{
    using C = IDequantizeLayer;
    KILN_EXPECT_VTABLE(IDequantizeLayer, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, getAxis, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, setAxis, void(int32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, setBlockShape, bool(Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getBlockShape, Dims() const noexcept),
        KILN_SLOT(kNotVirtual, C, setToType, void(DataType) noexcept),
        KILN_SLOT(kNotVirtual, C, getToType, DataType() const noexcept));
}

TEST(VtableSlots, IScatterLayerIsAWrapper)
{
    using C = IScatterLayer;
    KILN_EXPECT_VTABLE(IScatterLayer, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, setMode, void(ScatterMode) noexcept),
        KILN_SLOT(kNotVirtual, C, getMode, ScatterMode() const noexcept),
        KILN_SLOT(kNotVirtual, C, setAxis, void(int32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getAxis, int32_t() const noexcept));
}

TEST(VtableSlots, IEinsumLayerIsAWrapper)
{
    using C = IEinsumLayer;
    KILN_EXPECT_VTABLE(IEinsumLayer, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, setEquation, bool(char const*) noexcept),
        KILN_SLOT(kNotVirtual, C, getEquation, char const*() const noexcept));
}

TEST(VtableSlots, IGridSampleLayerIsAWrapper)
{
    using C = IGridSampleLayer;
    KILN_EXPECT_VTABLE(IGridSampleLayer, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, setInterpolationMode, void(InterpolationMode) noexcept),
        KILN_SLOT(kNotVirtual, C, getInterpolationMode, InterpolationMode() const noexcept),
        KILN_SLOT(kNotVirtual, C, setAlignCorners, void(bool) noexcept),
        KILN_SLOT(kNotVirtual, C, getAlignCorners, bool() const noexcept),
        KILN_SLOT(kNotVirtual, C, setSampleMode, bool(SampleMode) noexcept),
        KILN_SLOT(kNotVirtual, C, getSampleMode, SampleMode() const noexcept));
}

TEST(VtableSlots, IReverseSequenceLayerIsAWrapper)
{
    using C = IReverseSequenceLayer;
    KILN_EXPECT_VTABLE(IReverseSequenceLayer, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, setBatchAxis, void(int32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getBatchAxis, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, setSequenceAxis, void(int32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getSequenceAxis, int32_t() const noexcept));
}

TEST(VtableSlots, IConstantLayerIsAWrapper)
{
    using C = IConstantLayer;
    KILN_EXPECT_VTABLE(IConstantLayer, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, setWeights, void(Weights) noexcept),
        KILN_SLOT(kNotVirtual, C, getWeights, Weights() const noexcept),
        KILN_SLOT(kNotVirtual, C, setDimensions, void(Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getDimensions, Dims() const noexcept));
}

TEST(VtableSlots, IResizeLayerIsAWrapper)
{
    using C = IResizeLayer;
    KILN_EXPECT_VTABLE(IResizeLayer, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, setOutputDimensions, void(Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getOutputDimensions, Dims() const noexcept),
        KILN_SLOT(kNotVirtual, C, setScales, void(float const*, int32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getScales, int32_t(int32_t, float*) const noexcept),
        KILN_SLOT(kNotVirtual, C, setResizeMode, void(InterpolationMode) noexcept),
        KILN_SLOT(kNotVirtual, C, getResizeMode, InterpolationMode() const noexcept),
        KILN_SLOT(kNotVirtual, C, setCoordinateTransformation, void(ResizeCoordinateTransformation) noexcept),
        KILN_SLOT(kNotVirtual, C, getCoordinateTransformation, ResizeCoordinateTransformation() const noexcept),
        KILN_SLOT(kNotVirtual, C, setSelectorForSinglePixel, void(ResizeSelector) noexcept),
        KILN_SLOT(kNotVirtual, C, getSelectorForSinglePixel, ResizeSelector() const noexcept),
        KILN_SLOT(kNotVirtual, C, setNearestRounding, void(ResizeRoundMode) noexcept),
        KILN_SLOT(kNotVirtual, C, getNearestRounding, ResizeRoundMode() const noexcept),
        KILN_SLOT(kNotVirtual, C, setCubicCoeff, void(float) noexcept),
        KILN_SLOT(kNotVirtual, C, getCubicCoeff, float() const noexcept),
        KILN_SLOT(kNotVirtual, C, setExcludeOutside, void(bool) noexcept),
        KILN_SLOT(kNotVirtual, C, getExcludeOutside, bool() const noexcept));
}

TEST(VtableSlots, ISelectLayerIsAWrapper)
{
    KILN_EXPECT_VTABLE(ISelectLayer, 2, 0, KILN_DTOR(0));
}

TEST(VtableSlots, ICumulativeLayerIsAWrapper)
{
    using C = ICumulativeLayer;
    KILN_EXPECT_VTABLE(ICumulativeLayer, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, setOperation, bool(CumulativeOperation) noexcept),
        KILN_SLOT(kNotVirtual, C, getOperation, CumulativeOperation() const noexcept),
        KILN_SLOT(kNotVirtual, C, setExclusive, void(bool) noexcept),
        KILN_SLOT(kNotVirtual, C, getExclusive, bool() const noexcept),
        KILN_SLOT(kNotVirtual, C, setReverse, void(bool) noexcept),
        KILN_SLOT(kNotVirtual, C, getReverse, bool() const noexcept));
}

TEST(VtableSlots, IFillLayerIsAWrapper)
{
    using C = IFillLayer;
    KILN_EXPECT_VTABLE(IFillLayer, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, setDimensions, void(Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, getDimensions, Dims() const noexcept),
        KILN_SLOT(kNotVirtual, C, setOperation, void(FillOperation) noexcept),
        KILN_SLOT(kNotVirtual, C, getOperation, FillOperation() const noexcept),
        KILN_SLOT(kNotVirtual, C, setAlpha, void(double) noexcept),
        KILN_SLOT(kNotVirtual, C, getAlpha, double() const noexcept),
        KILN_SLOT(kNotVirtual, C, setBeta, void(double) noexcept),
        KILN_SLOT(kNotVirtual, C, getBeta, double() const noexcept),
        KILN_SLOT(kNotVirtual, C, setAlphaInt64, void(int64_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getAlphaInt64, int64_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, setBetaInt64, void(int64_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getBetaInt64, int64_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, isAlphaBetaInt64, bool() const noexcept),
        KILN_SLOT(kNotVirtual, C, setToType, void(DataType) noexcept),
        KILN_SLOT(kNotVirtual, C, getToType, DataType() const noexcept));
}

TEST(VtableSlots, INetworkDefinitionIsAWrapper)
{
    using C = INetworkDefinition;
    KILN_EXPECT_VTABLE(INetworkDefinition, 3, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, addInput, ITensor * (char const*, DataType, Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, markOutput, void(ITensor&) noexcept),
        KILN_SLOT(kNotVirtual, C, markDebug, bool(ITensor&) noexcept),
        KILN_SLOT(kNotVirtual, C, unmarkDebug, bool(ITensor&) noexcept),
        KILN_SLOT(kNotVirtual, C, isDebugTensor, bool(ITensor const&) const noexcept),
        KILN_SLOT(kNotVirtual, C, markUnfusedTensorsAsDebugTensors, bool() noexcept),
        KILN_SLOT(kNotVirtual, C, unmarkUnfusedTensorsAsDebugTensors, bool() noexcept),
        KILN_SLOT(kNotVirtual, C, addActivation, IActivationLayer * (ITensor&, ActivationType) noexcept),
        KILN_SLOT(kNotVirtual, C, addSoftMax, ISoftMaxLayer * (ITensor&) noexcept),
        KILN_SLOT(kNotVirtual, C, addConcatenation, IConcatenationLayer * (ITensor* const*, int32_t) noexcept),
        KILN_SLOT(
            kNotVirtual, C, addElementWise, IElementWiseLayer * (ITensor&, ITensor&, ElementWiseOperation) noexcept),
        KILN_SLOT(kNotVirtual, C, addUnary, IUnaryLayer * (ITensor&, UnaryOperation) noexcept),
        KILN_SLOT(kNotVirtual, C, addShuffle, IShuffleLayer * (ITensor&) noexcept),
        KILN_SLOT(kNotVirtual, C, getNbLayers, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, getLayer, ILayer * (int32_t) const noexcept),
        KILN_SLOT(kNotVirtual, C, getNbInputs, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, getInput, ITensor * (int32_t) const noexcept),
        KILN_SLOT(kNotVirtual, C, getNbOutputs, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, getOutput, ITensor * (int32_t) const noexcept),
        KILN_SLOT(kNotVirtual, C, addReduce, IReduceLayer * (ITensor&, ReduceOperation, uint32_t, bool) noexcept),
        KILN_SLOT(kNotVirtual, C, addTopK, ITopKLayer * (ITensor&, TopKOperation, int32_t, uint32_t) noexcept),
        KILN_SLOT(
            kNotVirtual, C, addTopK, ITopKLayer * (ITensor&, TopKOperation, int32_t, uint32_t, DataType) noexcept),
        KILN_SLOT(kNotVirtual, C, addGather, IGatherLayer * (ITensor&, ITensor&, int32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, addGatherV2, IGatherLayer * (ITensor&, ITensor&, GatherMode) noexcept),
        KILN_SLOT(kNotVirtual, C, addMatrixMultiply,
            IMatrixMultiplyLayer * (ITensor&, MatrixOperation, ITensor&, MatrixOperation) noexcept),
        KILN_SLOT(kNotVirtual, C, addNonZero, INonZeroLayer * (ITensor&) noexcept),
        KILN_SLOT(kNotVirtual, C, addNonZero, INonZeroLayer * (ITensor&, DataType) noexcept),
        KILN_SLOT(kNotVirtual, C, addConstant, IConstantLayer * (Dims const&, Weights) noexcept),
        KILN_SLOT(kNotVirtual, C, addIdentity, IIdentityLayer * (ITensor&) noexcept),
        KILN_SLOT(kNotVirtual, C, addCast, ICastLayer * (ITensor&, DataType) noexcept),
        KILN_SLOT(kNotVirtual, C, removeTensor, void(ITensor&) noexcept),
        KILN_SLOT(kNotVirtual, C, unmarkOutput, void(ITensor&) noexcept),
        KILN_SLOT(kNotVirtual, C, addPluginV2, IPluginV2Layer * (ITensor* const*, int32_t, IPluginV2&) noexcept),
        KILN_SLOT(kNotVirtual, C, addPluginV3,
            IPluginV3Layer * (ITensor* const*, int32_t, ITensor* const*, int32_t, IPluginV3&) noexcept),
        KILN_SLOT(kNotVirtual, C, addSlice, ISliceLayer * (ITensor&, Dims const&, Dims const&, Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, setName, void(char const*) noexcept),
        KILN_SLOT(kNotVirtual, C, getName, char const*() const noexcept),
        KILN_SLOT(kNotVirtual, C, addShape, IShapeLayer * (ITensor&) noexcept),
        KILN_SLOT(kNotVirtual, C, hasImplicitBatchDimension, bool() const noexcept),
        KILN_SLOT(kNotVirtual, C, getFlags, NetworkDefinitionCreationFlags() const noexcept),
        KILN_SLOT(kNotVirtual, C, getFlag, bool(NetworkDefinitionCreationFlag) const noexcept),
        KILN_SLOT(kNotVirtual, C, markOutputForShapes, bool(ITensor&) noexcept),
        KILN_SLOT(kNotVirtual, C, unmarkOutputForShapes, bool(ITensor&) noexcept),
        KILN_SLOT(kNotVirtual, C, addConvolutionNd,
            IConvolutionLayer * (ITensor&, int64_t, Dims const&, Weights, Weights) noexcept),
        KILN_SLOT(kNotVirtual, C, addPoolingNd, IPoolingLayer * (ITensor&, PoolingType, Dims const&) noexcept),
        KILN_SLOT(kNotVirtual, C, addDeconvolutionNd,
            IDeconvolutionLayer * (ITensor&, int64_t, Dims const&, Weights, Weights) noexcept),
        KILN_SLOT(kNotVirtual, C, addResize, IResizeLayer * (ITensor&) noexcept),
        KILN_SLOT(kNotVirtual, C, addSelect, ISelectLayer * (ITensor&, ITensor&, ITensor&) noexcept),
        KILN_SLOT(kNotVirtual, C, addCumulative,
            ICumulativeLayer * (ITensor&, ITensor&, CumulativeOperation, bool, bool) noexcept),
        KILN_SLOT(kNotVirtual, C, addFill, IFillLayer * (Dims const&, FillOperation) noexcept),
        KILN_SLOT(kNotVirtual, C, addFill, IFillLayer * (Dims const&, FillOperation, DataType) noexcept),
        KILN_SLOT(kNotVirtual, C, setWeightsName, bool(Weights, char const*) noexcept),
        KILN_SLOT(kNotVirtual, C, setErrorRecorder, void(IErrorRecorder*) noexcept),
        KILN_SLOT(kNotVirtual, C, getErrorRecorder, IErrorRecorder * () const noexcept),
        KILN_SLOT(kNotVirtual, C, addScatter, IScatterLayer * (ITensor&, ITensor&, ITensor&, ScatterMode) noexcept),
        KILN_SLOT(kNotVirtual, C, addEinsum, IEinsumLayer * (ITensor* const*, int32_t, char const*) noexcept),
        KILN_SLOT(kNotVirtual, C, addGridSample, IGridSampleLayer * (ITensor&, ITensor&) noexcept),
        KILN_SLOT(kNotVirtual, C, addReverseSequence, IReverseSequenceLayer * (ITensor&, ITensor&) noexcept),
        KILN_SLOT(kNotVirtual, C, addNMS, INMSLayer * (ITensor&, ITensor&, ITensor&) noexcept),
        KILN_SLOT(kNotVirtual, C, addNMS, INMSLayer * (ITensor&, ITensor&, ITensor&, DataType) noexcept),
        KILN_SLOT(kNotVirtual, C, addDequantize, IDequantizeLayer * (ITensor&, ITensor&) noexcept),
        KILN_SLOT(kNotVirtual, C, addQuantize, IQuantizeLayer * (ITensor&, ITensor&) noexcept),
        KILN_SLOT(kNotVirtual, C, addQuantize, IQuantizeLayer * (ITensor&, ITensor&, DataType) noexcept),
        KILN_SLOT(kNotVirtual, C, addDequantize, IDequantizeLayer * (ITensor&, ITensor&, DataType) noexcept),
        KILN_SLOT(2, C, getBuilder, IBuilder & () const noexcept),
        KILN_SLOT(kNotVirtual, C, markWeightsRefittable, bool(char const*) noexcept),
        KILN_SLOT(kNotVirtual, C, unmarkWeightsRefittable, bool(char const*) noexcept),
        KILN_SLOT(kNotVirtual, C, areWeightsMarkedRefittable, bool(char const*) const noexcept));
}

TEST(VtableSlots, ITimingCacheIsAWrapper)
{
    using C = ITimingCache;
    KILN_EXPECT_VTABLE(ITimingCache, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, serialize, nvinfer1::IHostMemory * () const noexcept),
        KILN_SLOT(kNotVirtual, C, combine, bool(ITimingCache const&, bool) noexcept),
        KILN_SLOT(kNotVirtual, C, reset, bool() noexcept),
        KILN_SLOT(kNotVirtual, C, queryKeys, int64_t(TimingCacheKey*, int64_t) const noexcept),
        KILN_SLOT(kNotVirtual, C, query, TimingCacheValue(TimingCacheKey const&) const noexcept),
        KILN_SLOT(kNotVirtual, C, update, bool(TimingCacheKey const&, TimingCacheValue const&) noexcept));
}

TEST(VtableSlots, IBuilderConfigIsAWrapper)
{
    using C = IBuilderConfig;
    KILN_EXPECT_VTABLE(IBuilderConfig, 3, 0, KILN_DTOR(0),
        KILN_SLOT(2, C, setAvgTimingIterations, void(int32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getAvgTimingIterations, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, setEngineCapability, void(EngineCapability) noexcept),
        KILN_SLOT(kNotVirtual, C, getEngineCapability, EngineCapability() const noexcept),
        KILN_SLOT(kNotVirtual, C, setInt8Calibrator, void(IInt8Calibrator*) noexcept),
        KILN_SLOT(kNotVirtual, C, getInt8Calibrator, IInt8Calibrator * () const noexcept),
        KILN_SLOT(kNotVirtual, C, setFlags, void(BuilderFlags) noexcept),
        KILN_SLOT(kNotVirtual, C, getFlags, BuilderFlags() const noexcept),
        KILN_SLOT(kNotVirtual, C, clearFlag, void(BuilderFlag) noexcept),
        KILN_SLOT(kNotVirtual, C, setFlag, void(BuilderFlag) noexcept),
        KILN_SLOT(kNotVirtual, C, getFlag, bool(BuilderFlag) const noexcept),
        KILN_SLOT(kNotVirtual, C, setDeviceType, void(ILayer const*, DeviceType) noexcept),
        KILN_SLOT(kNotVirtual, C, getDeviceType, DeviceType(ILayer const*) const noexcept),
        KILN_SLOT(kNotVirtual, C, isDeviceTypeSet, bool(ILayer const*) const noexcept),
        KILN_SLOT(kNotVirtual, C, resetDeviceType, void(ILayer const*) noexcept),
        KILN_SLOT(kNotVirtual, C, canRunOnDLA, bool(ILayer const*) const noexcept),
        KILN_SLOT(kNotVirtual, C, setDLACore, void(int32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getDLACore, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, setDefaultDeviceType, void(DeviceType) noexcept),
        KILN_SLOT(kNotVirtual, C, getDefaultDeviceType, DeviceType() const noexcept),
        KILN_SLOT(kNotVirtual, C, reset, void() noexcept),
        KILN_SLOT(kNotVirtual, C, setProfileStream, void(const cudaStream_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getProfileStream, cudaStream_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, addOptimizationProfile, int32_t(IOptimizationProfile const*) noexcept),
        KILN_SLOT(kNotVirtual, C, getNbOptimizationProfiles, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, setProfilingVerbosity, void(ProfilingVerbosity) noexcept),
        KILN_SLOT(kNotVirtual, C, getProfilingVerbosity, ProfilingVerbosity() const noexcept),
        KILN_SLOT(kNotVirtual, C, setAlgorithmSelector, void(IAlgorithmSelector*) noexcept),
        KILN_SLOT(kNotVirtual, C, getAlgorithmSelector, IAlgorithmSelector * () const noexcept),
        KILN_SLOT(kNotVirtual, C, setCalibrationProfile, bool(IOptimizationProfile const*) noexcept),
        KILN_SLOT(kNotVirtual, C, getCalibrationProfile, IOptimizationProfile const*() noexcept),
        KILN_SLOT(kNotVirtual, C, setQuantizationFlags, void(QuantizationFlags) noexcept),
        KILN_SLOT(kNotVirtual, C, getQuantizationFlags, QuantizationFlags() const noexcept),
        KILN_SLOT(kNotVirtual, C, clearQuantizationFlag, void(QuantizationFlag) noexcept),
        KILN_SLOT(kNotVirtual, C, setQuantizationFlag, void(QuantizationFlag) noexcept),
        KILN_SLOT(kNotVirtual, C, getQuantizationFlag, bool(QuantizationFlag) const noexcept),
        KILN_SLOT(kNotVirtual, C, setTacticSources, bool(TacticSources) noexcept),
        KILN_SLOT(kNotVirtual, C, getTacticSources, TacticSources() const noexcept),
        KILN_SLOT(
            kNotVirtual, C, createTimingCache, nvinfer1::ITimingCache * (void const*, std::size_t) const noexcept),
        KILN_SLOT(kNotVirtual, C, setTimingCache, bool(ITimingCache const&, bool) noexcept),
        KILN_SLOT(kNotVirtual, C, getTimingCache, nvinfer1::ITimingCache const*() const noexcept),
        KILN_SLOT(kNotVirtual, C, setMemoryPoolLimit, void(MemoryPoolType, std::size_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getMemoryPoolLimit, std::size_t(MemoryPoolType) const noexcept),
        KILN_SLOT(kNotVirtual, C, setPreviewFeature, void(PreviewFeature, bool) noexcept),
        KILN_SLOT(kNotVirtual, C, getPreviewFeature, bool(PreviewFeature) const noexcept),
        KILN_SLOT(kNotVirtual, C, setBuilderOptimizationLevel, void(int32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getBuilderOptimizationLevel, int32_t() noexcept),
        KILN_SLOT(kNotVirtual, C, setHardwareCompatibilityLevel, void(HardwareCompatibilityLevel) noexcept),
        KILN_SLOT(kNotVirtual, C, getHardwareCompatibilityLevel, HardwareCompatibilityLevel() const noexcept),
        KILN_SLOT(kNotVirtual, C, setPluginsToSerialize, void(char const* const*, int32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getPluginToSerialize, char const*(int32_t) const noexcept),
        KILN_SLOT(kNotVirtual, C, getNbPluginsToSerialize, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, setMaxAuxStreams, void(int32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getMaxAuxStreams, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, setProgressMonitor, void(IProgressMonitor*) noexcept),
        KILN_SLOT(kNotVirtual, C, getProgressMonitor, IProgressMonitor * () const noexcept),
        KILN_SLOT(kNotVirtual, C, setRuntimePlatform, void(RuntimePlatform) noexcept),
        KILN_SLOT(kNotVirtual, C, getRuntimePlatform, RuntimePlatform() const noexcept),
        KILN_SLOT(kNotVirtual, C, setMaxNbTactics, void(int32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getMaxNbTactics, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, setTilingOptimizationLevel, bool(TilingOptimizationLevel) noexcept),
        KILN_SLOT(kNotVirtual, C, getTilingOptimizationLevel, TilingOptimizationLevel() const noexcept),
        KILN_SLOT(kNotVirtual, C, setL2LimitForTiling, bool(int64_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getL2LimitForTiling, int64_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, setRemoteAutoTuningConfig, bool(char const*) noexcept),
        KILN_SLOT(kNotVirtual, C, getRemoteAutoTuningConfig, char const*() const noexcept));
}

TEST(VtableSlots, IBuilderIsAWrapper)
{
    using C = IBuilder;
    KILN_EXPECT_VTABLE(IBuilder, 2, 0, KILN_DTOR(0),
        KILN_SLOT(kNotVirtual, C, platformHasFastFp16, bool() const noexcept),
        KILN_SLOT(kNotVirtual, C, platformHasFastInt8, bool() const noexcept),
        KILN_SLOT(kNotVirtual, C, getMaxDLABatchSize, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, getNbDLACores, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, setGpuAllocator, void(IGpuAllocator*) noexcept),
        KILN_SLOT(kNotVirtual, C, createBuilderConfig, nvinfer1::IBuilderConfig * () noexcept),
        KILN_SLOT(
            kNotVirtual, C, createNetworkV2, nvinfer1::INetworkDefinition * (NetworkDefinitionCreationFlags) noexcept),
        KILN_SLOT(kNotVirtual, C, createOptimizationProfile, nvinfer1::IOptimizationProfile * () noexcept),
        KILN_SLOT(kNotVirtual, C, setErrorRecorder, void(IErrorRecorder*) noexcept),
        KILN_SLOT(kNotVirtual, C, getErrorRecorder, IErrorRecorder * () const noexcept),
        KILN_SLOT(kNotVirtual, C, reset, void() noexcept),
        KILN_SLOT(kNotVirtual, C, platformHasTf32, bool() const noexcept),
        KILN_SLOT(kNotVirtual, C, buildSerializedNetwork,
            nvinfer1::IHostMemory * (INetworkDefinition&, IBuilderConfig&) noexcept),
        KILN_SLOT(kNotVirtual, C, buildSerializedNetworkToStream,
            bool(INetworkDefinition&, IBuilderConfig&, IStreamWriter&) noexcept),
        KILN_SLOT(kNotVirtual, C, buildSerializedNetwork,
            nvinfer1::IHostMemory * (INetworkDefinition&, IBuilderConfig&, IHostMemory*&) noexcept),
        KILN_SLOT(kNotVirtual, C, buildEngineWithConfig,
            nvinfer1::ICudaEngine * (INetworkDefinition&, IBuilderConfig&) noexcept),
        KILN_SLOT(
            kNotVirtual, C, isNetworkSupported, bool(INetworkDefinition const&, IBuilderConfig const&) const noexcept),
        KILN_SLOT(kNotVirtual, C, getLogger, ILogger * () const noexcept),
        KILN_SLOT(kNotVirtual, C, setMaxThreads, bool(int32_t) noexcept),
        KILN_SLOT(kNotVirtual, C, getMaxThreads, int32_t() const noexcept),
        KILN_SLOT(kNotVirtual, C, getPluginRegistry, IPluginRegistry & () noexcept));
}

// ---------------------------------------------------------------------------------------------------------------
// The implementation interfaces behind them.

TEST(VtableSlots, ApivVHostMemory)
{
    using C = apiv::VHostMemory;
    KILN_EXPECT_VTABLE(apiv::VHostMemory, 5, 0, KILN_DTOR(0), KILN_SLOT(2, C, data, void*() const noexcept),
        KILN_SLOT(3, C, size, std::size_t() const noexcept), KILN_SLOT(4, C, type, DataType() const noexcept));
}

TEST(VtableSlots, ApivVRuntime)
{
    using C = apiv::VRuntime;
    KILN_EXPECT_VTABLE(apiv::VRuntime, 24, 0, KILN_DTOR(0), KILN_SLOT(2, C, getPImpl, IRuntime * () noexcept),
        KILN_SLOT(3, C, deserializeCudaEngine, nvinfer1::ICudaEngine * (void const*, std::size_t) noexcept),
        KILN_SLOT(4, C, deserializeCudaEngine, nvinfer1::ICudaEngine * (IStreamReader&) noexcept),
        KILN_SLOT(5, C, setDLACore, void(int32_t) noexcept), KILN_SLOT(6, C, getDLACore, int32_t() const noexcept),
        KILN_SLOT(7, C, getNbDLACores, int32_t() const noexcept),
        KILN_SLOT(8, C, setGpuAllocator, void(IGpuAllocator*) noexcept),
        KILN_SLOT(9, C, setErrorRecorder, void(IErrorRecorder*) noexcept),
        KILN_SLOT(10, C, getErrorRecorder, IErrorRecorder * () const noexcept),
        KILN_SLOT(11, C, getLogger, ILogger * () const noexcept),
        KILN_SLOT(12, C, setMaxThreads, bool(int32_t) noexcept),
        KILN_SLOT(13, C, getMaxThreads, int32_t() const noexcept),
        KILN_SLOT(14, C, setTemporaryDirectory, void(char const*) noexcept),
        KILN_SLOT(15, C, getTemporaryDirectory, char const*() const noexcept),
        KILN_SLOT(16, C, setTempfileControlFlags, void(TempfileControlFlags) noexcept),
        KILN_SLOT(17, C, getTempfileControlFlags, TempfileControlFlags() const noexcept),
        KILN_SLOT(18, C, getPluginRegistry, IPluginRegistry & () noexcept),
        KILN_SLOT(19, C, setPluginRegistryParent, void(IPluginRegistry*) noexcept),
        KILN_SLOT(20, C, loadRuntime, IRuntime * (char const*) noexcept),
        KILN_SLOT(21, C, setEngineHostCodeAllowed, void(bool) noexcept),
        KILN_SLOT(22, C, getEngineHostCodeAllowed, bool() const noexcept),
        KILN_SLOT(23, C, deserializeCudaEngineV2, nvinfer1::ICudaEngine * (IStreamReaderV2&) noexcept));
}

TEST(VtableSlots, ApivVRefitter)
{
    using C = apiv::VRefitter;
    KILN_EXPECT_VTABLE(apiv::VRefitter, 27, 0, KILN_DTOR(0), KILN_SLOT(2, C, getPImpl, IRefitter * () noexcept),
        KILN_SLOT(3, C, setWeights, bool(char const*, WeightsRole, Weights) noexcept),
        KILN_SLOT(4, C, refitCudaEngine, bool() noexcept),
        KILN_SLOT(5, C, getMissing, int32_t(int32_t, char const**, WeightsRole*) noexcept),
        KILN_SLOT(6, C, getAll, int32_t(int32_t, char const**, WeightsRole*) noexcept),
        KILN_SLOT(7, C, setDynamicRange, bool(char const*, float, float) noexcept),
        KILN_SLOT(8, C, getDynamicRangeMin, float(char const*) const noexcept),
        KILN_SLOT(9, C, getDynamicRangeMax, float(char const*) const noexcept),
        KILN_SLOT(10, C, getTensorsWithDynamicRange, int32_t(int32_t, char const**) const noexcept),
        KILN_SLOT(11, C, setErrorRecorder, void(IErrorRecorder*) noexcept),
        KILN_SLOT(12, C, getErrorRecorder, IErrorRecorder * () const noexcept),
        KILN_SLOT(13, C, setNamedWeights, bool(char const*, Weights) noexcept),
        KILN_SLOT(14, C, getMissingWeights, int32_t(int32_t, char const**) noexcept),
        KILN_SLOT(15, C, getAllWeights, int32_t(int32_t, char const**) noexcept),
        KILN_SLOT(16, C, getLogger, ILogger * () const noexcept),
        KILN_SLOT(17, C, setMaxThreads, bool(int32_t) noexcept),
        KILN_SLOT(18, C, getMaxThreads, int32_t() const noexcept),
        KILN_SLOT(19, C, setNamedWeightsWithLocation, bool(char const*, Weights, TensorLocation) noexcept),
        KILN_SLOT(20, C, getNamedWeights, Weights(char const*) const noexcept),
        KILN_SLOT(21, C, getWeightsLocation, TensorLocation(char const*) const noexcept),
        KILN_SLOT(22, C, unsetNamedWeights, bool(char const*) noexcept),
        KILN_SLOT(23, C, setWeightsValidation, void(bool) noexcept),
        KILN_SLOT(24, C, getWeightsValidation, bool() const noexcept),
        KILN_SLOT(25, C, refitCudaEngineAsync, bool(cudaStream_t) noexcept),
        KILN_SLOT(26, C, getWeightsPrototype, Weights(char const*) const noexcept));
}

TEST(VtableSlots, ApivVOptimizationProfile)
{
    using C = apiv::VOptimizationProfile;
    KILN_EXPECT_VTABLE(apiv::VOptimizationProfile, 12, 0, KILN_DTOR(0),
        KILN_SLOT(2, C, setDimensions, bool(char const*, OptProfileSelector, Dims const&) noexcept),
        KILN_SLOT(3, C, getDimensions, Dims(char const*, OptProfileSelector) const noexcept),
        KILN_SLOT(4, C, setShapeValues, bool(char const*, OptProfileSelector, int32_t const*, int32_t) noexcept),
        KILN_SLOT(5, C, getNbShapeValues, int32_t(char const*) const noexcept),
        KILN_SLOT(6, C, getShapeValues, int32_t const*(char const*, OptProfileSelector) const noexcept),
        KILN_SLOT(7, C, setExtraMemoryTarget, bool(float) noexcept),
        KILN_SLOT(8, C, getExtraMemoryTarget, float() const noexcept), KILN_SLOT(9, C, isValid, bool() const noexcept),
        KILN_SLOT(10, C, setShapeValuesV2, bool(char const*, OptProfileSelector, int64_t const*, int32_t) noexcept),
        KILN_SLOT(11, C, getShapeValuesV2, int64_t const*(char const*, OptProfileSelector) const noexcept));
}

TEST(VtableSlots, ApivVCudaEngine)
{
    using C = apiv::VCudaEngine;
    KILN_EXPECT_VTABLE(apiv::VCudaEngine, 59, 0, KILN_DTOR(0), KILN_SLOT(2, C, getPImpl, ICudaEngine * () noexcept),
        KILN_SLOT(3, C, getNbLayers, int32_t() const noexcept),
        KILN_SLOT(4, C, serialize, IHostMemory * () const noexcept),
        KILN_SLOT(5, C, createExecutionContext, IExecutionContext * (ExecutionContextAllocationStrategy) noexcept),
        KILN_SLOT(6, C, createExecutionContextWithoutDeviceMemory, IExecutionContext * () noexcept),
        KILN_SLOT(7, C, getDeviceMemorySize, size_t() const noexcept),
        KILN_SLOT(8, C, isRefittable, bool() const noexcept), KILN_SLOT(9, C, getName, char const*() const noexcept),
        KILN_SLOT(10, C, getNbOptimizationProfiles, int32_t() const noexcept),
        KILN_SLOT(
            11, C, getProfileTensorValues, int32_t const*(char const*, int32_t, OptProfileSelector) const noexcept),
        KILN_SLOT(12, C, getEngineCapability, EngineCapability() const noexcept),
        KILN_SLOT(13, C, setErrorRecorder, void(IErrorRecorder*) noexcept),
        KILN_SLOT(14, C, getErrorRecorder, IErrorRecorder * () const noexcept),
        KILN_SLOT(15, C, hasImplicitBatchDimension, bool() const noexcept),
        KILN_SLOT(16, C, getTacticSources, TacticSources() const noexcept),
        KILN_SLOT(17, C, getProfilingVerbosity, ProfilingVerbosity() const noexcept),
        KILN_SLOT(18, C, createEngineInspector, IEngineInspector * () const noexcept),
        KILN_SLOT(19, C, getTensorShape, Dims(char const*) const noexcept),
        KILN_SLOT(20, C, getTensorDataType, DataType(char const*) const noexcept),
        KILN_SLOT(21, C, getTensorLocation, TensorLocation(char const*) const noexcept),
        KILN_SLOT(22, C, isShapeInferenceIO, bool(char const*) const noexcept),
        KILN_SLOT(23, C, getTensorIOMode, TensorIOMode(char const*) const noexcept),
        KILN_SLOT(24, C, getTensorBytesPerComponent, int32_t(char const*) const noexcept),
        KILN_SLOT(25, C, getTensorComponentsPerElement, int32_t(char const*) const noexcept),
        KILN_SLOT(26, C, getTensorFormat, TensorFormat(char const*) const noexcept),
        KILN_SLOT(27, C, getTensorFormatDesc, char const*(char const*) const noexcept),
        KILN_SLOT(28, C, getTensorVectorizedDim, int32_t(char const*) const noexcept),
        KILN_SLOT(29, C, getProfileShape, Dims(char const*, int32_t, OptProfileSelector) const noexcept),
        KILN_SLOT(30, C, getNbIOTensors, int32_t() const noexcept),
        KILN_SLOT(31, C, getIOTensorName, char const*(int32_t) const noexcept),
        KILN_SLOT(32, C, getHardwareCompatibilityLevel, HardwareCompatibilityLevel() const noexcept),
        KILN_SLOT(33, C, getNbAuxStreams, int32_t() const noexcept),
        KILN_SLOT(34, C, getTensorBytesPerComponentV2, int32_t(char const*, int32_t) const noexcept),
        KILN_SLOT(35, C, getTensorComponentsPerElementV2, int32_t(char const*, int32_t) const noexcept),
        KILN_SLOT(36, C, getTensorFormatV2, TensorFormat(char const*, int32_t) const noexcept),
        KILN_SLOT(37, C, getTensorFormatDescV2, char const*(char const*, int32_t) const noexcept),
        KILN_SLOT(38, C, getTensorVectorizedDimV2, int32_t(char const*, int32_t) const noexcept),
        KILN_SLOT(39, C, createSerializationConfig, ISerializationConfig * () noexcept),
        KILN_SLOT(40, C, serializeWithConfig, IHostMemory * (ISerializationConfig&) const noexcept),
        KILN_SLOT(41, C, getDeviceMemorySizeForProfile, size_t(int32_t) const noexcept),
        KILN_SLOT(42, C, createRefitter, IRefitter * (ILogger&) noexcept),
        KILN_SLOT(43, C, setWeightStreamingBudget, bool(int64_t) noexcept),
        KILN_SLOT(44, C, getWeightStreamingBudget, int64_t() const noexcept),
        KILN_SLOT(45, C, getMinimumWeightStreamingBudget, int64_t() const noexcept),
        KILN_SLOT(46, C, getStreamableWeightsSize, int64_t() const noexcept),
        KILN_SLOT(47, C, isDebugTensor, bool(char const*) const noexcept),
        KILN_SLOT(48, C, setWeightStreamingBudgetV2, bool(int64_t) noexcept),
        KILN_SLOT(49, C, getWeightStreamingBudgetV2, int64_t() const noexcept),
        KILN_SLOT(50, C, getWeightStreamingAutomaticBudget, int64_t() const noexcept),
        KILN_SLOT(51, C, getWeightStreamingScratchMemorySize, int64_t() const noexcept),
        KILN_SLOT(52, C, getDeviceMemorySizeV2, int64_t() const noexcept),
        KILN_SLOT(53, C, getDeviceMemorySizeForProfileV2, int64_t(int32_t) const noexcept),
        KILN_SLOT(
            54, C, getProfileTensorValuesV2, int64_t const*(char const*, int32_t, OptProfileSelector) const noexcept),
        KILN_SLOT(55, C, createExecutionContextWithRuntimeConfig, IExecutionContext * (IRuntimeConfig*) noexcept),
        KILN_SLOT(56, C, createRuntimeConfig, IRuntimeConfig * () noexcept),
        KILN_SLOT(57, C, getEngineStat, int64_t(EngineStat) const noexcept),
        KILN_SLOT(58, C, getAliasedInputTensor, char const*(char const*) const noexcept));
}

TEST(VtableSlots, ApivVExecutionContext)
{
    using C = apiv::VExecutionContext;
    KILN_EXPECT_VTABLE(apiv::VExecutionContext, 54, 0, KILN_DTOR(0),
        KILN_SLOT(2, C, getPImpl, IExecutionContext * () noexcept), KILN_SLOT(3, C, setDebugSync, void(bool) noexcept),
        KILN_SLOT(4, C, getDebugSync, bool() const noexcept), KILN_SLOT(5, C, setProfiler, void(IProfiler*) noexcept),
        KILN_SLOT(6, C, getProfiler, IProfiler * () const noexcept),
        KILN_SLOT(7, C, getEngine, ICudaEngine const&() const noexcept),
        KILN_SLOT(8, C, setName, void(char const*) noexcept), KILN_SLOT(9, C, getName, char const*() const noexcept),
        KILN_SLOT(10, C, setDeviceMemory, void(void*) noexcept),
        KILN_SLOT(11, C, getOptimizationProfile, int32_t() const noexcept),
        KILN_SLOT(12, C, allInputDimensionsSpecified, bool() const noexcept),
        KILN_SLOT(13, C, allInputShapesSpecified, bool() const noexcept),
        KILN_SLOT(14, C, setErrorRecorder, void(IErrorRecorder*) noexcept),
        KILN_SLOT(15, C, getErrorRecorder, IErrorRecorder * () const noexcept),
        KILN_SLOT(16, C, executeV2, bool(void* const*) noexcept),
        KILN_SLOT(17, C, setOptimizationProfileAsync, bool(int32_t, cudaStream_t) noexcept),
        KILN_SLOT(18, C, setEnqueueEmitsProfile, void(bool) noexcept),
        KILN_SLOT(19, C, getEnqueueEmitsProfile, bool() const noexcept),
        KILN_SLOT(20, C, reportToProfiler, bool() const noexcept),
        KILN_SLOT(21, C, setInputShape, bool(char const*, Dims const&) noexcept),
        KILN_SLOT(22, C, getTensorShape, Dims(char const*) const noexcept),
        KILN_SLOT(23, C, getTensorStrides, Dims(char const*) const noexcept),
        KILN_SLOT(24, C, setTensorAddress, bool(char const*, void*) noexcept),
        KILN_SLOT(25, C, getTensorAddress, void const*(char const*) const noexcept),
        KILN_SLOT(26, C, setInputTensorAddress, bool(char const*, void const*) noexcept),
        KILN_SLOT(27, C, setOutputTensorAddress, bool(char const*, void*) noexcept),
        KILN_SLOT(28, C, inferShapes, int32_t(int32_t, char const**) noexcept),
        KILN_SLOT(29, C, setInputConsumedEvent, bool(cudaEvent_t) noexcept),
        KILN_SLOT(30, C, getInputConsumedEvent, cudaEvent_t() const noexcept),
        KILN_SLOT(31, C, getOutputTensorAddress, void*(char const*) const noexcept),
        KILN_SLOT(32, C, setOutputAllocator, bool(char const*, IOutputAllocator*) noexcept),
        KILN_SLOT(33, C, getOutputAllocator, IOutputAllocator * (char const*) noexcept),
        KILN_SLOT(34, C, getMaxOutputSize, int64_t(char const*) const noexcept),
        KILN_SLOT(35, C, setTemporaryStorageAllocator, bool(IGpuAllocator*) noexcept),
        KILN_SLOT(36, C, getTemporaryStorageAllocator, IGpuAllocator * () const noexcept),
        KILN_SLOT(37, C, enqueueV3, bool(cudaStream_t) noexcept),
        KILN_SLOT(38, C, setPersistentCacheLimit, void(size_t) noexcept),
        KILN_SLOT(39, C, getPersistentCacheLimit, size_t() const noexcept),
        KILN_SLOT(40, C, setNvtxVerbosity, bool(ProfilingVerbosity) noexcept),
        KILN_SLOT(41, C, getNvtxVerbosity, ProfilingVerbosity() const noexcept),
        KILN_SLOT(42, C, setAuxStreams, void(cudaStream_t*, int32_t) noexcept),
        KILN_SLOT(43, C, setDebugListener, bool(IDebugListener*) noexcept),
        KILN_SLOT(44, C, getDebugListener, IDebugListener * () noexcept),
        KILN_SLOT(45, C, setTensorDebugState, bool(char const*, bool) noexcept),
        KILN_SLOT(46, C, getDebugState, bool(char const*) const noexcept),
        KILN_SLOT(47, C, setAllTensorsDebugState, bool(bool) noexcept),
        KILN_SLOT(48, C, updateDeviceMemorySizeForShapes, size_t() noexcept),
        KILN_SLOT(49, C, setDeviceMemoryV2, void(void*, int64_t) noexcept),
        KILN_SLOT(50, C, getRuntimeConfig, IRuntimeConfig * () const noexcept),
        KILN_SLOT(51, C, setUnfusedTensorsDebugState, bool(bool) noexcept),
        KILN_SLOT(52, C, getUnfusedTensorsDebugState, bool() const noexcept),
        KILN_SLOT(53, C, setCommunicator, bool(void*) noexcept));
}

TEST(VtableSlots, ApivVEngineInspector)
{
    using C = apiv::VEngineInspector;
    KILN_EXPECT_VTABLE(apiv::VEngineInspector, 9, 0, KILN_DTOR(0),
        KILN_SLOT(2, C, getPImpl, IEngineInspector * () noexcept),
        KILN_SLOT(3, C, setExecutionContext, bool(IExecutionContext const*) noexcept),
        KILN_SLOT(4, C, getExecutionContext, IExecutionContext const*() const noexcept),
        KILN_SLOT(5, C, getLayerInformation, char const*(int32_t, LayerInformationFormat) const noexcept),
        KILN_SLOT(6, C, getEngineInformation, char const*(LayerInformationFormat) const noexcept),
        KILN_SLOT(7, C, setErrorRecorder, void(IErrorRecorder*) noexcept),
        KILN_SLOT(8, C, getErrorRecorder, IErrorRecorder * () const noexcept));
}

TEST(VtableSlots, ApivVTensor)
{
    using C = apiv::VTensor;
    KILN_EXPECT_VTABLE(apiv::VTensor, 25, 0, KILN_DTOR(0), KILN_SLOT(2, C, setName, void(char const*) noexcept),
        KILN_SLOT(3, C, getName, char const*() const noexcept),
        KILN_SLOT(4, C, setDimensions, void(Dims const&) noexcept),
        KILN_SLOT(5, C, getDimensions, Dims() const noexcept), KILN_SLOT(6, C, setType, void(DataType) noexcept),
        KILN_SLOT(7, C, getType, DataType() const noexcept),
        KILN_SLOT(8, C, setDynamicRange, bool(float, float) noexcept),
        KILN_SLOT(9, C, isNetworkInput, bool() const noexcept),
        KILN_SLOT(10, C, isNetworkOutput, bool() const noexcept),
        KILN_SLOT(11, C, setBroadcastAcrossBatch, void(bool) noexcept),
        KILN_SLOT(12, C, getBroadcastAcrossBatch, bool() const noexcept),
        KILN_SLOT(13, C, getLocation, TensorLocation() const noexcept),
        KILN_SLOT(14, C, setLocation, void(TensorLocation) noexcept),
        KILN_SLOT(15, C, dynamicRangeIsSet, bool() const noexcept),
        KILN_SLOT(16, C, resetDynamicRange, void() noexcept),
        KILN_SLOT(17, C, getDynamicRangeMin, float() const noexcept),
        KILN_SLOT(18, C, getDynamicRangeMax, float() const noexcept),
        KILN_SLOT(19, C, setAllowedFormats, void(TensorFormats) noexcept),
        KILN_SLOT(20, C, getAllowedFormats, TensorFormats() const noexcept),
        KILN_SLOT(21, C, isShapeTensor, bool() const noexcept),
        KILN_SLOT(22, C, isExecutionTensor, bool() const noexcept),
        KILN_SLOT(23, C, setDimensionName, void(int32_t, char const*) noexcept),
        KILN_SLOT(24, C, getDimensionName, char const*(int32_t) const noexcept));
}

TEST(VtableSlots, ApivVLayer)
{
    using C = apiv::VLayer;
    KILN_EXPECT_VTABLE(apiv::VLayer, 22, 0, KILN_DTOR(0), KILN_SLOT(2, C, getType, LayerType() const noexcept),
        KILN_SLOT(3, C, setName, void(char const*) noexcept), KILN_SLOT(4, C, getName, char const*() const noexcept),
        KILN_SLOT(5, C, getNbInputs, int32_t() const noexcept),
        KILN_SLOT(6, C, getInput, ITensor * (int32_t) const noexcept),
        KILN_SLOT(7, C, getNbOutputs, int32_t() const noexcept),
        KILN_SLOT(8, C, getOutput, ITensor * (int32_t) const noexcept),
        KILN_SLOT(9, C, setInput, void(int32_t, ITensor&) noexcept),
        KILN_SLOT(10, C, setPrecision, void(DataType) noexcept),
        KILN_SLOT(11, C, getPrecision, DataType() const noexcept),
        KILN_SLOT(12, C, precisionIsSet, bool() const noexcept), KILN_SLOT(13, C, resetPrecision, void() noexcept),
        KILN_SLOT(14, C, setOutputType, void(int32_t, DataType) noexcept),
        KILN_SLOT(15, C, getOutputType, DataType(int32_t) const noexcept),
        KILN_SLOT(16, C, outputTypeIsSet, bool(int32_t) const noexcept),
        KILN_SLOT(17, C, resetOutputType, void(int32_t) noexcept),
        KILN_SLOT(18, C, setMetadata, void(char const*) noexcept),
        KILN_SLOT(19, C, getMetadata, char const*() const noexcept),
        KILN_SLOT(20, C, setNbRanks, bool(int32_t) noexcept), KILN_SLOT(21, C, getNbRanks, int32_t() const noexcept));
}

TEST(VtableSlots, ApivVConvolutionLayer)
{
    using C = apiv::VConvolutionLayer;
    KILN_EXPECT_VTABLE(apiv::VConvolutionLayer, 24, 0, KILN_DTOR(0),
        KILN_SLOT(2, C, setNbOutputMaps, void(int64_t) noexcept),
        KILN_SLOT(3, C, getNbOutputMaps, int64_t() const noexcept),
        KILN_SLOT(4, C, setNbGroups, void(int64_t) noexcept), KILN_SLOT(5, C, getNbGroups, int64_t() const noexcept),
        KILN_SLOT(6, C, setKernelWeights, void(Weights) noexcept),
        KILN_SLOT(7, C, getKernelWeights, Weights() const noexcept),
        KILN_SLOT(8, C, setBiasWeights, void(Weights) noexcept),
        KILN_SLOT(9, C, getBiasWeights, Weights() const noexcept),
        KILN_SLOT(10, C, setPrePadding, void(Dims const&) noexcept),
        KILN_SLOT(11, C, getPrePadding, Dims() const noexcept),
        KILN_SLOT(12, C, setPostPadding, void(Dims const&) noexcept),
        KILN_SLOT(13, C, getPostPadding, Dims() const noexcept),
        KILN_SLOT(14, C, setPaddingMode, void(PaddingMode) noexcept),
        KILN_SLOT(15, C, getPaddingMode, PaddingMode() const noexcept),
        KILN_SLOT(16, C, setKernelSizeNd, void(Dims const&) noexcept),
        KILN_SLOT(17, C, getKernelSizeNd, Dims() const noexcept),
        KILN_SLOT(18, C, setStrideNd, void(Dims const&) noexcept), KILN_SLOT(19, C, getStrideNd, Dims() const noexcept),
        KILN_SLOT(20, C, setPaddingNd, void(Dims const&) noexcept),
        KILN_SLOT(21, C, getPaddingNd, Dims() const noexcept),
        KILN_SLOT(22, C, setDilationNd, void(Dims const&) noexcept),
        KILN_SLOT(23, C, getDilationNd, Dims() const noexcept));
}

TEST(VtableSlots, ApivVDeconvolutionLayer)
{
    using C = apiv::VDeconvolutionLayer;
    KILN_EXPECT_VTABLE(apiv::VDeconvolutionLayer, 24, 0, KILN_DTOR(0),
        KILN_SLOT(2, C, setNbOutputMaps, void(int64_t) noexcept),
        KILN_SLOT(3, C, getNbOutputMaps, int64_t() const noexcept),
        KILN_SLOT(4, C, setNbGroups, void(int64_t) noexcept), KILN_SLOT(5, C, getNbGroups, int64_t() const noexcept),
        KILN_SLOT(6, C, setKernelWeights, void(Weights) noexcept),
        KILN_SLOT(7, C, getKernelWeights, Weights() const noexcept),
        KILN_SLOT(8, C, setBiasWeights, void(Weights) noexcept),
        KILN_SLOT(9, C, getBiasWeights, Weights() const noexcept),
        KILN_SLOT(10, C, setPrePadding, void(Dims const&) noexcept),
        KILN_SLOT(11, C, getPrePadding, Dims() const noexcept),
        KILN_SLOT(12, C, setPostPadding, void(Dims const&) noexcept),
        KILN_SLOT(13, C, getPostPadding, Dims() const noexcept),
        KILN_SLOT(14, C, setPaddingMode, void(PaddingMode) noexcept),
        KILN_SLOT(15, C, getPaddingMode, PaddingMode() const noexcept),
        KILN_SLOT(16, C, setKernelSizeNd, void(Dims const&) noexcept),
        KILN_SLOT(17, C, getKernelSizeNd, Dims() const noexcept),
        KILN_SLOT(18, C, setStrideNd, void(Dims const&) noexcept), KILN_SLOT(19, C, getStrideNd, Dims() const noexcept),
        KILN_SLOT(20, C, setPaddingNd, void(Dims const&) noexcept),
        KILN_SLOT(21, C, getPaddingNd, Dims() const noexcept),
        KILN_SLOT(22, C, setDilationNd, void(Dims const&) noexcept),
        KILN_SLOT(23, C, getDilationNd, Dims() const noexcept));
}

TEST(VtableSlots, ApivVActivationLayer)
{
    using C = apiv::VActivationLayer;
    KILN_EXPECT_VTABLE(apiv::VActivationLayer, 8, 0, KILN_DTOR(0),
        KILN_SLOT(2, C, setActivationType, void(ActivationType) noexcept),
        KILN_SLOT(3, C, getActivationType, ActivationType() const noexcept),
        KILN_SLOT(4, C, setAlpha, void(float) noexcept), KILN_SLOT(5, C, setBeta, void(float) noexcept),
        KILN_SLOT(6, C, getAlpha, float() const noexcept), KILN_SLOT(7, C, getBeta, float() const noexcept));
}

TEST(VtableSlots, ApivVPoolingLayer)
{
    using C = apiv::VPoolingLayer;
    KILN_EXPECT_VTABLE(apiv::VPoolingLayer, 20, 0, KILN_DTOR(0),
        KILN_SLOT(2, C, setPoolingType, void(PoolingType) noexcept),
        KILN_SLOT(3, C, getPoolingType, PoolingType() const noexcept),
        KILN_SLOT(4, C, setBlendFactor, void(float) noexcept), KILN_SLOT(5, C, getBlendFactor, float() const noexcept),
        KILN_SLOT(6, C, setAverageCountExcludesPadding, void(bool) noexcept),
        KILN_SLOT(7, C, getAverageCountExcludesPadding, bool() const noexcept),
        KILN_SLOT(8, C, setPrePadding, void(Dims const&) noexcept),
        KILN_SLOT(9, C, getPrePadding, Dims() const noexcept),
        KILN_SLOT(10, C, setPostPadding, void(Dims const&) noexcept),
        KILN_SLOT(11, C, getPostPadding, Dims() const noexcept),
        KILN_SLOT(12, C, setPaddingMode, void(PaddingMode) noexcept),
        KILN_SLOT(13, C, getPaddingMode, PaddingMode() const noexcept),
        KILN_SLOT(14, C, setWindowSizeNd, void(Dims const&) noexcept),
        KILN_SLOT(15, C, getWindowSizeNd, Dims() const noexcept),
        KILN_SLOT(16, C, setStrideNd, void(Dims const&) noexcept), KILN_SLOT(17, C, getStrideNd, Dims() const noexcept),
        KILN_SLOT(18, C, setPaddingNd, void(Dims const&) noexcept),
        KILN_SLOT(19, C, getPaddingNd, Dims() const noexcept));
}

TEST(VtableSlots, ApivVSoftMaxLayer)
{
    using C = apiv::VSoftMaxLayer;
    KILN_EXPECT_VTABLE(apiv::VSoftMaxLayer, 4, 0, KILN_DTOR(0), KILN_SLOT(2, C, setAxes, void(uint32_t) noexcept),
        KILN_SLOT(3, C, getAxes, uint32_t() const noexcept));
}

TEST(VtableSlots, ApivVConcatenationLayer)
{
    using C = apiv::VConcatenationLayer;
    KILN_EXPECT_VTABLE(apiv::VConcatenationLayer, 4, 0, KILN_DTOR(0), KILN_SLOT(2, C, setAxis, void(int32_t) noexcept),
        KILN_SLOT(3, C, getAxis, int32_t() const noexcept));
}

TEST(VtableSlots, ApivVElementWiseLayer)
{
    using C = apiv::VElementWiseLayer;
    KILN_EXPECT_VTABLE(apiv::VElementWiseLayer, 4, 0, KILN_DTOR(0),
        KILN_SLOT(2, C, setOperation, void(ElementWiseOperation) noexcept),
        KILN_SLOT(3, C, getOperation, ElementWiseOperation() const noexcept));
}

TEST(VtableSlots, ApivVGatherLayer)
{
    using C = apiv::VGatherLayer;
    KILN_EXPECT_VTABLE(apiv::VGatherLayer, 8, 0, KILN_DTOR(0), KILN_SLOT(2, C, setGatherAxis, void(int32_t) noexcept),
        KILN_SLOT(3, C, getGatherAxis, int32_t() const noexcept),
        KILN_SLOT(4, C, setNbElementWiseDims, void(int32_t) noexcept),
        KILN_SLOT(5, C, getNbElementWiseDims, int32_t() const noexcept),
        KILN_SLOT(6, C, setMode, void(GatherMode) noexcept), KILN_SLOT(7, C, getMode, GatherMode() const noexcept));
}

TEST(VtableSlots, ApivVPluginV2Layer)
{
    using C = apiv::VPluginV2Layer;
    KILN_EXPECT_VTABLE(apiv::VPluginV2Layer, 3, 0, KILN_DTOR(0), KILN_SLOT(2, C, getPlugin, IPluginV2 & () noexcept));
}

TEST(VtableSlots, ApivVPluginV3Layer)
{
    using C = apiv::VPluginV3Layer;
    KILN_EXPECT_VTABLE(apiv::VPluginV3Layer, 3, 0, KILN_DTOR(0), KILN_SLOT(2, C, getPlugin, IPluginV3 & () noexcept));
}

TEST(VtableSlots, ApivVUnaryLayer)
{
    using C = apiv::VUnaryLayer;
    KILN_EXPECT_VTABLE(apiv::VUnaryLayer, 4, 0, KILN_DTOR(0),
        KILN_SLOT(2, C, setOperation, void(UnaryOperation) noexcept),
        KILN_SLOT(3, C, getOperation, UnaryOperation() const noexcept));
}

TEST(VtableSlots, ApivVReduceLayer)
{
    using C = apiv::VReduceLayer;
    KILN_EXPECT_VTABLE(apiv::VReduceLayer, 8, 0, KILN_DTOR(0),
        KILN_SLOT(2, C, setOperation, void(ReduceOperation) noexcept),
        KILN_SLOT(3, C, getOperation, ReduceOperation() const noexcept),
        KILN_SLOT(4, C, setReduceAxes, void(uint32_t) noexcept),
        KILN_SLOT(5, C, getReduceAxes, uint32_t() const noexcept),
        KILN_SLOT(6, C, setKeepDimensions, void(bool) noexcept),
        KILN_SLOT(7, C, getKeepDimensions, bool() const noexcept));
}

TEST(VtableSlots, ApivVTopKLayer)
{
    using C = apiv::VTopKLayer;
    KILN_EXPECT_VTABLE(apiv::VTopKLayer, 10, 0, KILN_DTOR(0),
        KILN_SLOT(2, C, setOperation, void(TopKOperation) noexcept),
        KILN_SLOT(3, C, getOperation, TopKOperation() const noexcept), KILN_SLOT(4, C, setK, void(int32_t) noexcept),
        KILN_SLOT(5, C, getK, int32_t() const noexcept), KILN_SLOT(6, C, setReduceAxes, void(uint32_t) noexcept),
        KILN_SLOT(7, C, getReduceAxes, uint32_t() const noexcept),
        KILN_SLOT(8, C, setIndicesType, bool(DataType) noexcept),
        KILN_SLOT(9, C, getIndicesType, DataType() const noexcept));
}

TEST(VtableSlots, ApivVNonZeroLayer)
{
    using C = apiv::VNonZeroLayer;
    KILN_EXPECT_VTABLE(apiv::VNonZeroLayer, 4, 0, KILN_DTOR(0),
        KILN_SLOT(2, C, setIndicesType, bool(DataType) noexcept),
        KILN_SLOT(3, C, getIndicesType, DataType() const noexcept));
}

TEST(VtableSlots, ApivVNMSLayer)
{
    using C = apiv::VNMSLayer;
    KILN_EXPECT_VTABLE(apiv::VNMSLayer, 8, 0, KILN_DTOR(0),
        KILN_SLOT(2, C, setBoundingBoxFormat, void(BoundingBoxFormat) noexcept),
        KILN_SLOT(3, C, getBoundingBoxFormat, BoundingBoxFormat() const noexcept),
        KILN_SLOT(4, C, setTopKBoxLimit, void(int32_t) noexcept),
        KILN_SLOT(5, C, getTopKBoxLimit, int32_t() const noexcept),
        KILN_SLOT(6, C, setIndicesType, bool(DataType) noexcept),
        KILN_SLOT(7, C, getIndicesType, DataType() const noexcept));
}

TEST(VtableSlots, ApivVShuffleLayer)
{
    using C = apiv::VShuffleLayer;
    KILN_EXPECT_VTABLE(apiv::VShuffleLayer, 10, 0, KILN_DTOR(0),
        KILN_SLOT(2, C, setFirstTranspose, void(Permutation const&) noexcept),
        KILN_SLOT(3, C, getFirstTranspose, Permutation const&() const noexcept),
        KILN_SLOT(4, C, setReshapeDimensions, void(Dims const&) noexcept),
        KILN_SLOT(5, C, getReshapeDimensions, Dims() const noexcept),
        KILN_SLOT(6, C, setSecondTranspose, void(Permutation const&) noexcept),
        KILN_SLOT(7, C, getSecondTranspose, Permutation const&() const noexcept),
        KILN_SLOT(8, C, setZeroIsPlaceholder, void(bool) noexcept),
        KILN_SLOT(9, C, getZeroIsPlaceholder, bool() const noexcept));
}

TEST(VtableSlots, ApivVSliceLayer)
{
    using C = apiv::VSliceLayer;
    KILN_EXPECT_VTABLE(apiv::VSliceLayer, 12, 0, KILN_DTOR(0), KILN_SLOT(2, C, setStart, void(Dims const&) noexcept),
        KILN_SLOT(3, C, getStart, Dims() const noexcept), KILN_SLOT(4, C, setSize, void(Dims const&) noexcept),
        KILN_SLOT(5, C, getSize, Dims() const noexcept), KILN_SLOT(6, C, setStride, void(Dims const&) noexcept),
        KILN_SLOT(7, C, getStride, Dims() const noexcept), KILN_SLOT(8, C, setMode, void(SampleMode) noexcept),
        KILN_SLOT(9, C, getMode, SampleMode() const noexcept), KILN_SLOT(10, C, setAxes, void(Dims const&) noexcept),
        KILN_SLOT(11, C, getAxes, Dims() const noexcept));
}

TEST(VtableSlots, ApivVShapeLayer)
{
    KILN_EXPECT_VTABLE(apiv::VShapeLayer, 2, 0, KILN_DTOR(0));
}

TEST(VtableSlots, ApivVMatrixMultiplyLayer)
{
    using C = apiv::VMatrixMultiplyLayer;
    KILN_EXPECT_VTABLE(apiv::VMatrixMultiplyLayer, 4, 0, KILN_DTOR(0),
        KILN_SLOT(2, C, setOperation, void(int32_t, MatrixOperation) noexcept),
        KILN_SLOT(3, C, getOperation, MatrixOperation(int32_t) const noexcept));
}

TEST(VtableSlots, ApivVIdentityLayer)
{
    KILN_EXPECT_VTABLE(apiv::VIdentityLayer, 2, 0, KILN_DTOR(0));
}

TEST(VtableSlots, ApivVCastLayer)
{
    using C = apiv::VCastLayer;
    KILN_EXPECT_VTABLE(apiv::VCastLayer, 4, 0, KILN_DTOR(0), KILN_SLOT(2, C, setToType, void(DataType) noexcept),
        KILN_SLOT(3, C, getToType, DataType() const noexcept));
}

TEST(VtableSlots, ApivVQuantizeLayer)
{
    // TensorRT 10.0's four slots, then the block-shape pair that came later in 10.x.
    using C = apiv::VQuantizeLayer;
    KILN_EXPECT_VTABLE(apiv::VQuantizeLayer, 8, 0, KILN_DTOR(0), KILN_SLOT(2, C, getAxis, int32_t() const noexcept),
        KILN_SLOT(3, C, setAxis, void(int32_t) noexcept), KILN_SLOT(4, C, getToType, DataType() const noexcept),
        KILN_SLOT(5, C, setToType, void(DataType) noexcept), KILN_SLOT(6, C, setBlockShape, bool(Dims const&) noexcept),
        KILN_SLOT(7, C, getBlockShape, Dims() const noexcept));
}

TEST(VtableSlots, ApivVDequantizeLayer)
{
    using C = apiv::VDequantizeLayer;
    KILN_EXPECT_VTABLE(apiv::VDequantizeLayer, 8, 0, KILN_DTOR(0), KILN_SLOT(2, C, getAxis, int32_t() const noexcept),
        KILN_SLOT(3, C, setAxis, void(int32_t) noexcept), KILN_SLOT(4, C, getToType, DataType() const noexcept),
        KILN_SLOT(5, C, setToType, void(DataType) noexcept), KILN_SLOT(6, C, setBlockShape, bool(Dims const&) noexcept),
        KILN_SLOT(7, C, getBlockShape, Dims() const noexcept));
}

TEST(VtableSlots, ApivVScatterLayer)
{
    using C = apiv::VScatterLayer;
    KILN_EXPECT_VTABLE(apiv::VScatterLayer, 6, 0, KILN_DTOR(0), KILN_SLOT(2, C, setMode, void(ScatterMode) noexcept),
        KILN_SLOT(3, C, getMode, ScatterMode() const noexcept), KILN_SLOT(4, C, setAxis, void(int32_t) noexcept),
        KILN_SLOT(5, C, getAxis, int32_t() const noexcept));
}

TEST(VtableSlots, ApivVConstantLayer)
{
    using C = apiv::VConstantLayer;
    KILN_EXPECT_VTABLE(apiv::VConstantLayer, 6, 0, KILN_DTOR(0), KILN_SLOT(2, C, setWeights, void(Weights) noexcept),
        KILN_SLOT(3, C, getWeights, Weights() const noexcept),
        KILN_SLOT(4, C, setDimensions, void(Dims const&) noexcept),
        KILN_SLOT(5, C, getDimensions, Dims() const noexcept));
}

TEST(VtableSlots, ApivVResizeLayer)
{
    using C = apiv::VResizeLayer;
    KILN_EXPECT_VTABLE(apiv::VResizeLayer, 18, 0, KILN_DTOR(0),
        KILN_SLOT(2, C, setOutputDimensions, void(Dims const&) noexcept),
        KILN_SLOT(3, C, getOutputDimensions, Dims() const noexcept),
        KILN_SLOT(4, C, setScales, void(float const*, int32_t) noexcept),
        KILN_SLOT(5, C, getScales, int32_t(int32_t, float*) const noexcept),
        KILN_SLOT(6, C, setResizeMode, void(InterpolationMode) noexcept),
        KILN_SLOT(7, C, getResizeMode, InterpolationMode() const noexcept),
        KILN_SLOT(8, C, setCoordinateTransformation, void(ResizeCoordinateTransformation) noexcept),
        KILN_SLOT(9, C, getCoordinateTransformation, ResizeCoordinateTransformation() const noexcept),
        KILN_SLOT(10, C, setSelectorForSinglePixel, void(ResizeSelector) noexcept),
        KILN_SLOT(11, C, getSelectorForSinglePixel, ResizeSelector() const noexcept),
        KILN_SLOT(12, C, setNearestRounding, void(ResizeRoundMode) noexcept),
        KILN_SLOT(13, C, getNearestRounding, ResizeRoundMode() const noexcept),
        KILN_SLOT(14, C, setCubicCoeff, void(float) noexcept), KILN_SLOT(15, C, getCubicCoeff, float() const noexcept),
        KILN_SLOT(16, C, setExcludeOutside, void(bool) noexcept),
        KILN_SLOT(17, C, getExcludeOutside, bool() const noexcept));
}

TEST(VtableSlots, ApivLoop)
{
    using C = apiv::VLoop;
    KILN_EXPECT_VTABLE(apiv::VLoop, 8, 0, KILN_DTOR(0),
        KILN_SLOT(2, C, addRecurrence, IRecurrenceLayer * (ITensor&) noexcept),
        KILN_SLOT(3, C, addTripLimit, ITripLimitLayer * (ITensor&, TripLimit) noexcept),
        KILN_SLOT(4, C, addIterator, IIteratorLayer * (ITensor&, int32_t, bool) noexcept),
        KILN_SLOT(5, C, addLoopOutput, ILoopOutputLayer * (ITensor&, LoopOutput, int32_t) noexcept),
        KILN_SLOT(6, C, setName, void(char const*) noexcept), KILN_SLOT(7, C, getName, char const*() const noexcept));
    using B = apiv::VLoopBoundaryLayer;
    KILN_EXPECT_VTABLE(
        apiv::VLoopBoundaryLayer, 3, 0, KILN_DTOR(0), KILN_SLOT(2, B, getLoop, ILoop * () const noexcept));
    KILN_EXPECT_VTABLE(apiv::VRecurrenceLayer, 2, 0, KILN_DTOR(0));
    using O = apiv::VLoopOutputLayer;
    KILN_EXPECT_VTABLE(apiv::VLoopOutputLayer, 5, 0, KILN_DTOR(0),
        KILN_SLOT(2, O, getLoopOutput, LoopOutput() const noexcept), KILN_SLOT(3, O, setAxis, void(int32_t) noexcept),
        KILN_SLOT(4, O, getAxis, int32_t() const noexcept));
    using T = apiv::VTripLimitLayer;
    KILN_EXPECT_VTABLE(
        apiv::VTripLimitLayer, 3, 0, KILN_DTOR(0), KILN_SLOT(2, T, getTripLimit, TripLimit() const noexcept));
    using I = apiv::VIteratorLayer;
    KILN_EXPECT_VTABLE(apiv::VIteratorLayer, 6, 0, KILN_DTOR(0), KILN_SLOT(2, I, setAxis, void(int32_t) noexcept),
        KILN_SLOT(3, I, getAxis, int32_t() const noexcept), KILN_SLOT(4, I, setReverse, void(bool) noexcept),
        KILN_SLOT(5, I, getReverse, bool() const noexcept));
}

TEST(VtableSlots, ApivIfConditional)
{
    using C = apiv::VIfConditional;
    KILN_EXPECT_VTABLE(apiv::VIfConditional, 7, 0, KILN_DTOR(0),
        KILN_SLOT(2, C, setCondition, IConditionLayer * (ITensor&) noexcept),
        KILN_SLOT(3, C, addInput, IIfConditionalInputLayer * (ITensor&) noexcept),
        KILN_SLOT(4, C, addOutput, IIfConditionalOutputLayer * (ITensor&, ITensor&) noexcept),
        KILN_SLOT(5, C, setName, void(char const*) noexcept), KILN_SLOT(6, C, getName, char const*() const noexcept));
    using B = apiv::VConditionalBoundaryLayer;
    KILN_EXPECT_VTABLE(apiv::VConditionalBoundaryLayer, 3, 0, KILN_DTOR(0),
        KILN_SLOT(2, B, getConditional, IIfConditional * () const noexcept));
    KILN_EXPECT_VTABLE(apiv::VConditionLayer, 2, 0, KILN_DTOR(0));
    KILN_EXPECT_VTABLE(apiv::VConditionalInputLayer, 2, 0, KILN_DTOR(0));
    KILN_EXPECT_VTABLE(apiv::VConditionalOutputLayer, 2, 0, KILN_DTOR(0));
}

TEST(VtableSlots, ApivVSelectLayer)
{
    KILN_EXPECT_VTABLE(apiv::VSelectLayer, 2, 0, KILN_DTOR(0));
}

TEST(VtableSlots, ApivVCumulativeLayer)
{
    using C = apiv::VCumulativeLayer;
    KILN_EXPECT_VTABLE(apiv::VCumulativeLayer, 8, 0, KILN_DTOR(0),
        KILN_SLOT(2, C, setOperation, bool(CumulativeOperation) noexcept),
        KILN_SLOT(3, C, getOperation, CumulativeOperation() const noexcept),
        KILN_SLOT(4, C, setExclusive, void(bool) noexcept), KILN_SLOT(5, C, getExclusive, bool() const noexcept),
        KILN_SLOT(6, C, setReverse, void(bool) noexcept), KILN_SLOT(7, C, getReverse, bool() const noexcept));
}

TEST(VtableSlots, ApivVEinsumLayer)
{
    using C = apiv::VEinsumLayer;
    KILN_EXPECT_VTABLE(apiv::VEinsumLayer, 4, 0, KILN_DTOR(0), KILN_SLOT(2, C, setEquation, bool(char const*) noexcept),
        KILN_SLOT(3, C, getEquation, char const*() const noexcept));
}

TEST(VtableSlots, ApivVGridSampleLayer)
{
    using C = apiv::VGridSampleLayer;
    KILN_EXPECT_VTABLE(apiv::VGridSampleLayer, 8, 0, KILN_DTOR(0),
        KILN_SLOT(2, C, setInterpolationMode, void(InterpolationMode) noexcept),
        KILN_SLOT(3, C, getInterpolationMode, InterpolationMode() const noexcept),
        KILN_SLOT(4, C, setAlignCorners, void(bool) noexcept), KILN_SLOT(5, C, getAlignCorners, bool() const noexcept),
        KILN_SLOT(6, C, setSampleMode, bool(SampleMode) noexcept),
        KILN_SLOT(7, C, getSampleMode, SampleMode() const noexcept));
}

TEST(VtableSlots, ApivVReverseSequenceLayer)
{
    using C = apiv::VReverseSequenceLayer;
    KILN_EXPECT_VTABLE(apiv::VReverseSequenceLayer, 6, 0, KILN_DTOR(0),
        KILN_SLOT(2, C, setBatchAxis, void(int32_t) noexcept), KILN_SLOT(3, C, getBatchAxis, int32_t() const noexcept),
        KILN_SLOT(4, C, setSequenceAxis, void(int32_t) noexcept),
        KILN_SLOT(5, C, getSequenceAxis, int32_t() const noexcept));
}

TEST(VtableSlots, ApivVFillLayer)
{
    using C = apiv::VFillLayer;
    KILN_EXPECT_VTABLE(apiv::VFillLayer, 17, 0, KILN_DTOR(0),
        KILN_SLOT(2, C, setDimensions, void(Dims const&) noexcept),
        KILN_SLOT(3, C, getDimensions, Dims() const noexcept),
        KILN_SLOT(4, C, setOperation, void(FillOperation) noexcept),
        KILN_SLOT(5, C, getOperation, FillOperation() const noexcept), KILN_SLOT(6, C, setAlpha, void(double) noexcept),
        KILN_SLOT(7, C, getAlpha, double() const noexcept), KILN_SLOT(8, C, setBeta, void(double) noexcept),
        KILN_SLOT(9, C, getBeta, double() const noexcept), KILN_SLOT(10, C, setAlphaInt64, void(int64_t) noexcept),
        KILN_SLOT(11, C, getAlphaInt64, int64_t() const noexcept),
        KILN_SLOT(12, C, setBetaInt64, void(int64_t) noexcept),
        KILN_SLOT(13, C, getBetaInt64, int64_t() const noexcept),
        KILN_SLOT(14, C, isAlphaBetaInt64, bool() const noexcept),
        KILN_SLOT(15, C, getToType, DataType() const noexcept), KILN_SLOT(16, C, setToType, void(DataType) noexcept));
}

TEST(VtableSlots, ApivVNetworkDefinition)
{
    using C = apiv::VNetworkDefinition;
    KILN_EXPECT_VTABLE(apiv::VNetworkDefinition, 91, 0, KILN_DTOR(0),
        KILN_SLOT(2, C, addInput, ITensor * (char const*, DataType, Dims const&) noexcept),
        KILN_SLOT(3, C, markOutput, void(ITensor&) noexcept),
        KILN_SLOT(4, C, addActivation, IActivationLayer * (ITensor&, ActivationType) noexcept),
        KILN_SLOT(5, C, addLRN, ILRNLayer * (ITensor&, int64_t, float, float, float) noexcept),
        KILN_SLOT(6, C, addScale, IScaleLayer * (ITensor&, ScaleMode, Weights, Weights, Weights) noexcept),
        KILN_SLOT(7, C, addSoftMax, ISoftMaxLayer * (ITensor&) noexcept),
        KILN_SLOT(8, C, addConcatenation, IConcatenationLayer * (ITensor* const*, int32_t) noexcept),
        KILN_SLOT(9, C, addElementWise, IElementWiseLayer * (ITensor&, ITensor&, ElementWiseOperation) noexcept),
        KILN_SLOT(10, C, addUnary, IUnaryLayer * (ITensor&, UnaryOperation) noexcept),
        KILN_SLOT(11, C, addShuffle, IShuffleLayer * (ITensor&) noexcept),
        KILN_SLOT(12, C, getNbLayers, int32_t() const noexcept),
        KILN_SLOT(13, C, getLayer, ILayer * (int32_t) const noexcept),
        KILN_SLOT(14, C, getNbInputs, int32_t() const noexcept),
        KILN_SLOT(15, C, getInput, ITensor * (int32_t) const noexcept),
        KILN_SLOT(16, C, getNbOutputs, int32_t() const noexcept),
        KILN_SLOT(17, C, getOutput, ITensor * (int32_t) const noexcept),
        KILN_SLOT(18, C, addReduce, IReduceLayer * (ITensor&, ReduceOperation, uint32_t, bool) noexcept),
        KILN_SLOT(19, C, addTopK, ITopKLayer * (ITensor&, TopKOperation, int32_t, uint32_t) noexcept),
        KILN_SLOT(20, C, addGather, IGatherLayer * (ITensor&, ITensor&, int32_t) noexcept),
        KILN_SLOT(21, C, addRaggedSoftMax, IRaggedSoftMaxLayer * (ITensor&, ITensor&) noexcept),
        KILN_SLOT(22, C, addMatrixMultiply,
            IMatrixMultiplyLayer * (ITensor&, MatrixOperation, ITensor&, MatrixOperation) noexcept),
        KILN_SLOT(23, C, addConstant, IConstantLayer * (Dims const&, Weights) noexcept),
        KILN_SLOT(24, C, addIdentity, IIdentityLayer * (ITensor&) noexcept),
        KILN_SLOT(25, C, removeTensor, void(ITensor&) noexcept),
        KILN_SLOT(26, C, unmarkOutput, void(ITensor&) noexcept),
        KILN_SLOT(27, C, addPluginV2, IPluginV2Layer * (ITensor* const*, int32_t, IPluginV2&) noexcept),
        KILN_SLOT(28, C, addPluginV3,
            IPluginV3Layer * (ITensor* const*, int32_t, ITensor* const*, int32_t, IPluginV3&) noexcept),
        KILN_SLOT(29, C, addSlice, ISliceLayer * (ITensor&, Dims const&, Dims const&, Dims const&) noexcept),
        KILN_SLOT(30, C, setName, void(char const*) noexcept), KILN_SLOT(31, C, getName, char const*() const noexcept),
        KILN_SLOT(32, C, addShape, IShapeLayer * (ITensor&) noexcept),
        KILN_SLOT(33, C, hasImplicitBatchDimension, bool() const noexcept),
        KILN_SLOT(34, C, markOutputForShapes, bool(ITensor&) noexcept),
        KILN_SLOT(35, C, unmarkOutputForShapes, bool(ITensor&) noexcept),
        KILN_SLOT(36, C, addParametricReLU, IParametricReLULayer * (ITensor&, ITensor&) noexcept),
        KILN_SLOT(
            37, C, addConvolutionNd, IConvolutionLayer * (ITensor&, int64_t, Dims const&, Weights, Weights) noexcept),
        KILN_SLOT(38, C, addPoolingNd, IPoolingLayer * (ITensor&, PoolingType, Dims const&) noexcept),
        KILN_SLOT(39, C, addDeconvolutionNd,
            IDeconvolutionLayer * (ITensor&, int64_t, Dims const&, Weights, Weights) noexcept),
        KILN_SLOT(40, C, addScaleNd, IScaleLayer * (ITensor&, ScaleMode, Weights, Weights, Weights, int32_t) noexcept),
        KILN_SLOT(41, C, addResize, IResizeLayer * (ITensor&) noexcept), KILN_SLOT(42, C, addLoop, ILoop * () noexcept),
        KILN_SLOT(43, C, addSelect, ISelectLayer * (ITensor&, ITensor&, ITensor&) noexcept),
        KILN_SLOT(44, C, addFill, IFillLayer * (Dims const&, FillOperation) noexcept),
        KILN_SLOT(45, C, addPaddingNd, IPaddingLayer * (ITensor&, Dims const&, Dims const&) noexcept),
        KILN_SLOT(46, C, setWeightsName, bool(Weights, char const*) noexcept),
        KILN_SLOT(47, C, setErrorRecorder, void(IErrorRecorder*) noexcept),
        KILN_SLOT(48, C, getErrorRecorder, IErrorRecorder * () const noexcept),
        KILN_SLOT(49, C, addDequantize, IDequantizeLayer * (ITensor&, ITensor&) noexcept),
        KILN_SLOT(50, C, addQuantize, IQuantizeLayer * (ITensor&, ITensor&) noexcept),
        KILN_SLOT(51, C, addGatherV2, IGatherLayer * (ITensor&, ITensor&, GatherMode) noexcept),
        KILN_SLOT(52, C, addIfConditional, IIfConditional * () noexcept),
        KILN_SLOT(53, C, addScatter, IScatterLayer * (ITensor&, ITensor&, ITensor&, ScatterMode) noexcept),
        KILN_SLOT(54, C, addEinsum, IEinsumLayer * (ITensor* const*, int32_t, char const*) noexcept),
        KILN_SLOT(55, C, addAssertion, IAssertionLayer * (ITensor&, char const*) noexcept),
        KILN_SLOT(56, C, addOneHot, IOneHotLayer * (ITensor&, ITensor&, ITensor&, int32_t) noexcept),
        KILN_SLOT(57, C, addNonZero, INonZeroLayer * (ITensor&) noexcept),
        KILN_SLOT(58, C, addGridSample, IGridSampleLayer * (ITensor&, ITensor&) noexcept),
        KILN_SLOT(59, C, addNMS, INMSLayer * (ITensor&, ITensor&, ITensor&) noexcept),
        KILN_SLOT(60, C, addReverseSequence, IReverseSequenceLayer * (ITensor&, ITensor&) noexcept),
        KILN_SLOT(61, C, addNormalization, INormalizationLayer * (ITensor&, ITensor&, ITensor&, uint32_t) noexcept),
        KILN_SLOT(62, C, addCast, ICastLayer * (ITensor&, DataType) noexcept),
        KILN_SLOT(63, C, getBuilder, IBuilder & () const noexcept),
        KILN_SLOT(64, C, getFlags, NetworkDefinitionCreationFlags() const noexcept),
        KILN_SLOT(65, C, getFlag, bool(NetworkDefinitionCreationFlag) const noexcept),
        KILN_SLOT(66, C, addQuantizeV2, IQuantizeLayer * (ITensor&, ITensor&, DataType) noexcept),
        KILN_SLOT(67, C, addDequantizeV2, IDequantizeLayer * (ITensor&, ITensor&, DataType) noexcept),
        KILN_SLOT(68, C, addFillV2, IFillLayer * (Dims const&, FillOperation, DataType) noexcept),
        KILN_SLOT(69, C, markDebug, bool(ITensor&) noexcept), KILN_SLOT(70, C, unmarkDebug, bool(ITensor&) noexcept),
        KILN_SLOT(71, C, isDebugTensor, bool(ITensor const&) const noexcept),
        KILN_SLOT(72, C, markWeightsRefittable, bool(char const*) noexcept),
        KILN_SLOT(73, C, unmarkWeightsRefittable, bool(char const*) noexcept),
        KILN_SLOT(74, C, areWeightsMarkedRefittable, bool(char const*) const noexcept),
        KILN_SLOT(75, C, addSqueeze, ISqueezeLayer * (ITensor&, ITensor&) noexcept),
        KILN_SLOT(76, C, addUnsqueeze, IUnsqueezeLayer * (ITensor&, ITensor&) noexcept),
        KILN_SLOT(77, C, addDynamicQuantize,
            IDynamicQuantizeLayer * (ITensor&, int32_t, int32_t, DataType, DataType) noexcept),
        KILN_SLOT(
            78, C, addCumulative, ICumulativeLayer * (ITensor&, ITensor&, CumulativeOperation, bool, bool) noexcept),
        KILN_SLOT(79, C, markUnfusedTensorsAsDebugTensors, bool() noexcept),
        KILN_SLOT(80, C, unmarkUnfusedTensorsAsDebugTensors, bool() noexcept),
        KILN_SLOT(81, C, addTopKV2, ITopKLayer * (ITensor&, TopKOperation, int32_t, uint32_t, DataType) noexcept),
        KILN_SLOT(82, C, addNonZeroV2, INonZeroLayer * (ITensor&, DataType) noexcept),
        KILN_SLOT(83, C, addNMSV2, INMSLayer * (ITensor&, ITensor&, ITensor&, DataType) noexcept),
        KILN_SLOT(
            84, C, addAttention, IAttention * (ITensor&, ITensor&, ITensor&, AttentionNormalizationOp, bool) noexcept),
        KILN_SLOT(
            85, C, addRotaryEmbedding, IRotaryEmbeddingLayer * (ITensor&, ITensor&, ITensor&, bool, int32_t) noexcept),
        KILN_SLOT(
            86, C, addDynamicQuantizeV2, IDynamicQuantizeLayer * (ITensor&, Dims const&, DataType, DataType) noexcept),
        KILN_SLOT(87, C, addKVCacheUpdate, IKVCacheUpdateLayer * (ITensor&, ITensor&, ITensor&, KVCacheMode) noexcept),
        KILN_SLOT(88, C, addNormalizationV2, INormalizationLayer * (ITensor&, ITensor&, ITensor&, uint32_t) noexcept),
        KILN_SLOT(89, C, addMoE, IMoELayer * (ITensor&, ITensor&, ITensor&) noexcept),
        KILN_SLOT(90, C, addDistCollective,
            IDistCollectiveLayer
                * (ITensor&, CollectiveOperation, ReduceOperation, int64_t, int64_t*, int64_t) noexcept));
}

TEST(VtableSlots, ApivVTimingCache)
{
    using C = apiv::VTimingCache;
    KILN_EXPECT_VTABLE(apiv::VTimingCache, 8, 0, KILN_DTOR(0),
        KILN_SLOT(2, C, serialize, nvinfer1::IHostMemory * () const noexcept),
        KILN_SLOT(3, C, combine, bool(ITimingCache const&, bool) noexcept), KILN_SLOT(4, C, reset, bool() noexcept),
        KILN_SLOT(5, C, queryKeys, int64_t(TimingCacheKey*, int64_t) const noexcept),
        KILN_SLOT(6, C, query, TimingCacheValue(TimingCacheKey const&) const noexcept),
        KILN_SLOT(7, C, update, bool(TimingCacheKey const&, TimingCacheValue const&) noexcept));
}

TEST(VtableSlots, ApivVBuilderConfig)
{
    using C = apiv::VBuilderConfig;
    KILN_EXPECT_VTABLE(apiv::VBuilderConfig, 68, 0, KILN_DTOR(0),
        KILN_SLOT(2, C, setAvgTimingIterations, void(int32_t) noexcept),
        KILN_SLOT(3, C, getAvgTimingIterations, int32_t() const noexcept),
        KILN_SLOT(4, C, setEngineCapability, void(EngineCapability) noexcept),
        KILN_SLOT(5, C, getEngineCapability, EngineCapability() const noexcept),
        KILN_SLOT(6, C, setInt8Calibrator, void(IInt8Calibrator*) noexcept),
        KILN_SLOT(7, C, getInt8Calibrator, IInt8Calibrator * () const noexcept),
        KILN_SLOT(8, C, setFlags, void(BuilderFlags) noexcept),
        KILN_SLOT(9, C, getFlags, BuilderFlags() const noexcept),
        KILN_SLOT(10, C, clearFlag, void(BuilderFlag) noexcept), KILN_SLOT(11, C, setFlag, void(BuilderFlag) noexcept),
        KILN_SLOT(12, C, getFlag, bool(BuilderFlag) const noexcept),
        KILN_SLOT(13, C, setDeviceType, void(ILayer const*, DeviceType) noexcept),
        KILN_SLOT(14, C, getDeviceType, DeviceType(ILayer const*) const noexcept),
        KILN_SLOT(15, C, isDeviceTypeSet, bool(ILayer const*) const noexcept),
        KILN_SLOT(16, C, resetDeviceType, void(ILayer const*) noexcept),
        KILN_SLOT(17, C, canRunOnDLA, bool(ILayer const*) const noexcept),
        KILN_SLOT(18, C, setDLACore, void(int32_t) noexcept), KILN_SLOT(19, C, getDLACore, int32_t() const noexcept),
        KILN_SLOT(20, C, setDefaultDeviceType, void(DeviceType) noexcept),
        KILN_SLOT(21, C, getDefaultDeviceType, DeviceType() const noexcept), KILN_SLOT(22, C, reset, void() noexcept),
        KILN_SLOT(23, C, setProfileStream, void(const cudaStream_t) noexcept),
        KILN_SLOT(24, C, getProfileStream, cudaStream_t() const noexcept),
        KILN_SLOT(25, C, addOptimizationProfile, int32_t(IOptimizationProfile const*) noexcept),
        KILN_SLOT(26, C, getNbOptimizationProfiles, int32_t() const noexcept),
        KILN_SLOT(27, C, setProfilingVerbosity, void(ProfilingVerbosity) noexcept),
        KILN_SLOT(28, C, getProfilingVerbosity, ProfilingVerbosity() const noexcept),
        KILN_SLOT(29, C, setAlgorithmSelector, void(IAlgorithmSelector*) noexcept),
        KILN_SLOT(30, C, getAlgorithmSelector, IAlgorithmSelector * () const noexcept),
        KILN_SLOT(31, C, setCalibrationProfile, bool(IOptimizationProfile const*) noexcept),
        KILN_SLOT(32, C, getCalibrationProfile, IOptimizationProfile const*() noexcept),
        KILN_SLOT(33, C, setQuantizationFlags, void(QuantizationFlags) noexcept),
        KILN_SLOT(34, C, getQuantizationFlags, QuantizationFlags() const noexcept),
        KILN_SLOT(35, C, clearQuantizationFlag, void(QuantizationFlag) noexcept),
        KILN_SLOT(36, C, setQuantizationFlag, void(QuantizationFlag) noexcept),
        KILN_SLOT(37, C, getQuantizationFlag, bool(QuantizationFlag) const noexcept),
        KILN_SLOT(38, C, setTacticSources, bool(TacticSources) noexcept),
        KILN_SLOT(39, C, getTacticSources, TacticSources() const noexcept),
        KILN_SLOT(40, C, createTimingCache, nvinfer1::ITimingCache * (void const*, std::size_t) const noexcept),
        KILN_SLOT(41, C, setTimingCache, bool(ITimingCache const&, bool) noexcept),
        KILN_SLOT(42, C, getTimingCache, nvinfer1::ITimingCache const*() const noexcept),
        KILN_SLOT(43, C, setMemoryPoolLimit, void(MemoryPoolType, std::size_t) noexcept),
        KILN_SLOT(44, C, getMemoryPoolLimit, std::size_t(MemoryPoolType) const noexcept),
        KILN_SLOT(45, C, setPreviewFeature, void(PreviewFeature, bool) noexcept),
        KILN_SLOT(46, C, getPreviewFeature, bool(PreviewFeature) const noexcept),
        KILN_SLOT(47, C, setBuilderOptimizationLevel, void(int32_t) noexcept),
        KILN_SLOT(48, C, getBuilderOptimizationLevel, int32_t() const noexcept),
        KILN_SLOT(49, C, setHardwareCompatibilityLevel, void(HardwareCompatibilityLevel) noexcept),
        KILN_SLOT(50, C, getHardwareCompatibilityLevel, HardwareCompatibilityLevel() const noexcept),
        KILN_SLOT(51, C, setPluginsToSerialize, void(char const* const*, int32_t) noexcept),
        KILN_SLOT(52, C, getPluginToSerialize, char const*(int32_t) const noexcept),
        KILN_SLOT(53, C, getNbPluginsToSerialize, int32_t() const noexcept),
        KILN_SLOT(54, C, setMaxAuxStreams, void(int32_t) noexcept),
        KILN_SLOT(55, C, getMaxAuxStreams, int32_t() const noexcept),
        KILN_SLOT(56, C, setProgressMonitor, void(IProgressMonitor*) noexcept),
        KILN_SLOT(57, C, getProgressMonitor, IProgressMonitor * () const noexcept),
        KILN_SLOT(58, C, setRuntimePlatform, void(RuntimePlatform) noexcept),
        KILN_SLOT(59, C, getRuntimePlatform, RuntimePlatform() const noexcept),
        KILN_SLOT(60, C, setMaxNbTactics, void(int32_t) noexcept),
        KILN_SLOT(61, C, getMaxNbTactics, int32_t() const noexcept),
        KILN_SLOT(62, C, setTilingOptimizationLevel, bool(TilingOptimizationLevel) noexcept),
        KILN_SLOT(63, C, getTilingOptimizationLevel, TilingOptimizationLevel() const noexcept),
        KILN_SLOT(64, C, setL2LimitForTiling, bool(int64_t) noexcept),
        KILN_SLOT(65, C, getL2LimitForTiling, int64_t() const noexcept),
        KILN_SLOT(66, C, setRemoteAutoTuningConfig, bool(char const*) noexcept),
        KILN_SLOT(67, C, getRemoteAutoTuningConfig, char const*() const noexcept));
}

TEST(VtableSlots, ApivVSerializationConfig)
{
    using C = apiv::VSerializationConfig;
    KILN_EXPECT_VTABLE(apiv::VSerializationConfig, 7, 0, KILN_DTOR(0),
        KILN_SLOT(2, C, setFlags, bool(SerializationFlags) noexcept),
        KILN_SLOT(3, C, getFlags, SerializationFlags() const noexcept),
        KILN_SLOT(4, C, clearFlag, bool(SerializationFlag) noexcept),
        KILN_SLOT(5, C, setFlag, bool(SerializationFlag) noexcept),
        KILN_SLOT(6, C, getFlag, bool(SerializationFlag) const noexcept));
}

TEST(VtableSlots, ApivVBuilder)
{
    using C = apiv::VBuilder;
    KILN_EXPECT_VTABLE(apiv::VBuilder, 23, 0, KILN_DTOR(0), KILN_SLOT(2, C, platformHasFastFp16, bool() const noexcept),
        KILN_SLOT(3, C, platformHasFastInt8, bool() const noexcept),
        KILN_SLOT(4, C, getMaxDLABatchSize, int32_t() const noexcept),
        KILN_SLOT(5, C, getNbDLACores, int32_t() const noexcept),
        KILN_SLOT(6, C, setGpuAllocator, void(IGpuAllocator*) noexcept),
        KILN_SLOT(7, C, createBuilderConfig, nvinfer1::IBuilderConfig * () noexcept),
        KILN_SLOT(8, C, createNetworkV2, nvinfer1::INetworkDefinition * (NetworkDefinitionCreationFlags) noexcept),
        KILN_SLOT(9, C, createOptimizationProfile, nvinfer1::IOptimizationProfile * () noexcept),
        KILN_SLOT(10, C, setErrorRecorder, void(IErrorRecorder*) noexcept),
        KILN_SLOT(11, C, getErrorRecorder, IErrorRecorder * () const noexcept),
        KILN_SLOT(12, C, reset, void() noexcept), KILN_SLOT(13, C, platformHasTf32, bool() const noexcept),
        KILN_SLOT(
            14, C, buildSerializedNetwork, nvinfer1::IHostMemory * (INetworkDefinition&, IBuilderConfig&) noexcept),
        KILN_SLOT(15, C, isNetworkSupported, bool(INetworkDefinition const&, IBuilderConfig const&) const noexcept),
        KILN_SLOT(16, C, getLogger, ILogger * () const noexcept),
        KILN_SLOT(17, C, setMaxThreads, bool(int32_t) noexcept),
        KILN_SLOT(18, C, getMaxThreads, int32_t() const noexcept),
        KILN_SLOT(19, C, getPluginRegistry, IPluginRegistry & () noexcept),
        KILN_SLOT(20, C, buildEngineWithConfig, ICudaEngine * (INetworkDefinition&, IBuilderConfig&) noexcept),
        KILN_SLOT(
            21, C, buildSerializedNetworkToStream, bool(INetworkDefinition&, IBuilderConfig&, IStreamWriter&) noexcept),
        KILN_SLOT(22, C, buildSerializedNetworkWithKernelText,
            nvinfer1::IHostMemory * (INetworkDefinition&, IBuilderConfig&, IHostMemory*&) noexcept));
}

TEST(VtableSlots, ApivVRuntimeConfig)
{
    using C = apiv::VRuntimeConfig;
    KILN_EXPECT_VTABLE(apiv::VRuntimeConfig, 5, 0, KILN_DTOR(0),
        KILN_SLOT(2, C, getPImpl, IRuntimeConfig * () noexcept),
        KILN_SLOT(3, C, setExecutionContextAllocationStrategy, void(ExecutionContextAllocationStrategy) noexcept),
        KILN_SLOT(4, C, getExecutionContextAllocationStrategy, ExecutionContextAllocationStrategy() const noexcept));
}

#else

TEST(VtableSlots, BuilderRuntimeApi)
{
    GTEST_SKIP() << "slot numbers are defined for the Itanium C++ ABI only";
}

#endif
