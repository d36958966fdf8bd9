/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * NvInferRuntime.h -- the runtime-side API: symbolic dimension expressions, the V3 plugin capability interfaces
 * (core, build, runtime), IPluginV2DynamicExt, IPluginCreatorV3One, the logger, the GPU allocators, the
 * output allocator, stream readers/writers, the registry entry point and static plugin registration.
 *
 * A V3 plugin is one class with four bases; the engine asks it for each capability:
 *
 *     class PadPlugin : public nvinfer1::IPluginV3, public nvinfer1::IPluginV3OneCore,
 *                       public nvinfer1::IPluginV3OneBuild, public nvinfer1::IPluginV3OneRuntime { ... };
 *
 *     class PadPluginCreator : public nvinfer1::IPluginCreatorV3One { ... };
 *     REGISTER_TENSORRT_PLUGIN(PadPluginCreator);   // registers in getPluginRegistry() under namespace ""
 *
 * It also declares the runtime classes an application uses to run a plan (IHostMemory, IRuntime, ICudaEngine,
 * IExecutionContext, IOptimizationProfile, IRuntimeConfig, ISerializationConfig, IEngineInspector, IRefitter),
 * createInferRuntime() and createInferRefitter(). They are wrappers: [vptr][apiv::V<Name>* mImpl] with inline methods
 * that forward to the implementation interfaces of NvInferImpl.h. Objects the user owns have public destructors:
 *
 *     std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(logger)};
 *     std::unique_ptr<nvinfer1::ICudaEngine> engine{runtime->deserializeCudaEngine(plan, planSize)};
 *     std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
 */

#ifndef NV_INFER_RUNTIME_H
#define NV_INFER_RUNTIME_H

#include "NvInferImpl.h"
#define NV_INFER_INTERNAL_INCLUDE 1
#include "NvInferPluginBase.h"
#undef NV_INFER_INTERNAL_INCLUDE
#include "NvInferRuntimeCommon.h"

namespace nvinfer1
{

KILN_IGNORE_DEPRECATED_BEGIN

//! Base of the library-owned API objects: not copyable or movable.
class INoCopy
{
protected:
    INoCopy() = default;
    virtual ~INoCopy() = default;
    INoCopy(INoCopy const& other) = delete;
    INoCopy& operator=(INoCopy const& other) = delete;
    INoCopy(INoCopy&& other) = delete;
    INoCopy& operator=(INoCopy&& other) = delete;
};

//! What an engine is built for.
enum class EngineCapability : int32_t
{
    kSTANDARD = 0,       //!< Any layer, any backend.
    kSAFETY = 1,         //!< The safety-certified subset.
    kDLA_STANDALONE = 2, //!< DLA loadables.
};

template <>
constexpr inline int32_t EnumMax<EngineCapability>() noexcept
{
    return 3;
}

//! An array of weights. Does not own the values.
class Weights
{
public:
    DataType type;      //!< The element type.
    void const* values; //!< The values.
    int64_t count;      //!< The number of values.
};

//! A block of host memory the library allocated for the user (a serialized engine or timing cache). Delete it with
//! delete when done.
class IHostMemory : public INoCopy
{
public:
    virtual ~IHostMemory() noexcept = default;

    //! The bytes.
    void* data() const noexcept { return mImpl->data(); }

    //! The number of bytes.
    std::size_t size() const noexcept { return mImpl->size(); }

    //! The element type of the block (kUINT8 for serialized engines).
    DataType type() const noexcept { return mImpl->type(); }

protected:
    apiv::VHostMemory* mImpl;
};

//! Operations on dimension expressions.
enum class DimensionOperation : int32_t
{
    kSUM = 0,       //!< first + second.
    kPROD = 1,      //!< first * second.
    kMAX = 2,       //!< The larger of the two.
    kMIN = 3,       //!< The smaller of the two.
    kSUB = 4,       //!< first - second.
    kEQUAL = 5,     //!< 1 if equal, else 0.
    kLESS = 6,      //!< 1 if first < second, else 0.
    kFLOOR_DIV = 7, //!< first / second rounded down.
    kCEIL_DIV = 8,  //!< first / second rounded up.
};

template <>
constexpr inline int32_t EnumMax<DimensionOperation>() noexcept
{
    return 9;
}

//! Where a tensor's data lives.
enum class TensorLocation : int32_t
{
    kDEVICE = 0, //!< Device memory.
    kHOST = 1,   //!< Host memory.
};

template <>
constexpr inline int32_t EnumMax<TensorLocation>() noexcept
{
    return 2;
}

//! A dimension as a symbolic expression over input extents and shape values. Owned by the library.
class IDimensionExpr : public INoCopy
{
public:
    //! Whether the value is known at build time.
    bool isConstant() const noexcept { return mImpl->isConstant(); }

    //! The value if isConstant(), else the smallest int64_t.
    int64_t getConstantValue() const noexcept { return mImpl->getConstantValue(); }

protected:
    apiv::VDimensionExpr* mImpl;
    virtual ~IDimensionExpr() noexcept = default;

public:
    //! Whether this expression is the value of a size tensor (from IExprBuilder::declareSizeTensor).
    bool isSizeTensor() const noexcept { return mImpl->isSizeTensor(); }
};

//! Makes dimension expressions for plugins' output shapes. Owned by the library; valid during the call only.
class IExprBuilder : public INoCopy
{
public:
    //! The expression for a constant.
    IDimensionExpr const* constant(int64_t value) noexcept { return mImpl->constant(value); }

    //! The expression op(first, second); nullptr for an invalid op.
    IDimensionExpr const* operation(
        DimensionOperation op, IDimensionExpr const& first, IDimensionExpr const& second) noexcept
    {
        return mImpl->operation(op, first, second);
    }

protected:
    apiv::VExprBuilder* mImpl;
    virtual ~IExprBuilder() noexcept = default;

public:
    //! Declares output outputIndex a 0-D size tensor whose value is an extent with optimum opt and bound upper;
    //! returns that extent for use in other outputs' shapes.
    IDimensionExpr const* declareSizeTensor(int32_t outputIndex, IDimensionExpr const& opt, IDimensionExpr const& upper)
    {
        return mImpl->declareSizeTensor(outputIndex, opt, upper);
    }
};

//! A shape whose extents are dimension expressions.
class DimsExprs
{
public:
    int32_t nbDims;                          //!< The rank.
    IDimensionExpr const* d[Dims::MAX_DIMS]; //!< The extents; owned by the IExprBuilder.
};

//! A tensor descriptor at build time: the descriptor plus the optimization profile's bounds.
struct DynamicPluginTensorDesc
{
    PluginTensorDesc desc; //!< The descriptor; run-time extents are -1.
    Dims min;              //!< The profile's smallest shape.
    Dims max;              //!< The profile's largest shape.
    Dims opt;              //!< The profile's optimum shape.
};

//! The V2 plugin for dynamic shapes: symbolic output shapes and per-tensor descriptors. Deprecated in favour of
//! IPluginV3. Destroy with destroy(); its destructor is protected.
class TRT_DEPRECATED IPluginV2DynamicExt : public nvinfer1::IPluginV2Ext
{
public:
    //! A copy in the same configured state; nullptr on failure.
    IPluginV2DynamicExt* clone() const noexcept override = 0;

    //! The shape of output outputIndex as expressions over the inputs' shapes.
    virtual DimsExprs getOutputDimensions(
        int32_t outputIndex, DimsExprs const* inputs, int32_t nbInputs, IExprBuilder& exprBuilder) noexcept = 0;

    //! The most format combinations the builder tries.
    static constexpr int32_t kFORMAT_COMBINATION_LIMIT = 100;

    //! Whether inOut[pos] may have its type and format, given inOut[0..pos-1]; inputs first, then outputs.
    virtual bool supportsFormatCombination(
        int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept = 0;

    //! Fixes types and formats; in[i].min/max/opt are the profile's bounds.
    virtual void configurePlugin(DynamicPluginTensorDesc const* in, int32_t nbInputs,
        DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept = 0;

    //! Scratch bytes enqueue() needs for these tensors.
    virtual size_t getWorkspaceSize(PluginTensorDesc const* inputs, int32_t nbInputs, PluginTensorDesc const* outputs,
        int32_t nbOutputs) const noexcept = 0;

    //! Runs the layer on stream; returns 0 on success.
    virtual int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept = 0;

protected:
    //! Reports the kV2_DYNAMICEXT level.
    int32_t getTensorRTVersion() const noexcept override
    {
        return (static_cast<int32_t>(PluginVersion::kV2_DYNAMICEXT) << 24 | (NV_TENSORRT_VERSION & 0xFFFFFF));
    }

    virtual ~IPluginV2DynamicExt() noexcept {}

private:
    // The implicit-batch methods are replaced; overriding them is a compile error.
    Dims getOutputDimensions(int32_t /*index*/, Dims const* /*inputs*/, int32_t /*nbInputDims*/) noexcept final
    {
        return Dims{-1, {}};
    }

    TRT_DEPRECATED bool isOutputBroadcastAcrossBatch(
        int32_t /*outputIndex*/, bool const* /*inputIsBroadcasted*/, int32_t /*nbInputs*/) const noexcept final
    {
        return false;
    }

    TRT_DEPRECATED bool canBroadcastInputAcrossBatch(int32_t /*inputIndex*/) const noexcept final { return true; }

    bool supportsFormat(DataType /*type*/, PluginFormat /*format*/) const noexcept final { return false; }

    void configurePlugin(Dims const* /*inputDims*/, int32_t /*nbInputs*/, Dims const* /*outputDims*/,
        int32_t /*nbOutputs*/, DataType const* /*inputTypes*/, DataType const* /*outputTypes*/,
        bool const* /*inputIsBroadcast*/, bool const* /*outputIsBroadcast*/, PluginFormat /*floatFormat*/,
        int32_t /*maxBatchSize*/) noexcept final
    {
    }

    size_t getWorkspaceSize(int32_t /*maxBatchSize*/) const noexcept final { return 0; }

    int32_t enqueue(int32_t /*batchSize*/, void const* const* /*inputs*/, void* const* /*outputs*/, void* /*workspace*/,
        cudaStream_t /*stream*/) noexcept final
    {
        return 1;
    }
};

namespace v_1_0
{
//! Reads a serialized engine piece by piece; implemented by the application.
class IStreamReader : public IVersionedInterface
{
public:
    ~IStreamReader() override = default;
    IStreamReader() = default;

    //! Reports {"IStreamReader", 1, 0}.
    InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"IStreamReader", 1, 0}; }

    //! Reads up to nbBytes into destination; returns the number read.
    virtual int64_t read(void* destination, int64_t nbBytes) = 0;

protected:
    IStreamReader(IStreamReader const&) = default;
    IStreamReader(IStreamReader&&) = default;
    IStreamReader& operator=(IStreamReader const&) & = default;
    IStreamReader& operator=(IStreamReader&&) & = default;
};
} // namespace v_1_0

using IStreamReader = v_1_0::IStreamReader; //!< The stream reader interface.

//! Origins for IStreamReaderV2::seek.
enum class SeekPosition : int32_t
{
    kSET = 0, //!< From the start.
    kCUR = 1, //!< From the current position.
    kEND = 2, //!< From the end.
};

namespace v_1_0
{
//! Reads a serialized engine, possibly straight into device memory; implemented by the application.
class IStreamReaderV2 : public IVersionedInterface
{
public:
    ~IStreamReaderV2() override = default;
    IStreamReaderV2() = default;

    //! Reports {"IStreamReaderV2", 1, 0}.
    InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"IStreamReaderV2", 1, 0}; }

    //! Reads up to nbBytes into destination (host or device memory), ordered on stream; returns the number read.
    virtual int64_t read(void* destination, int64_t nbBytes, cudaStream_t stream) noexcept = 0;

    //! Moves the read position; returns true on success.
    virtual bool seek(int64_t offset, SeekPosition where) noexcept = 0;

protected:
    IStreamReaderV2(IStreamReaderV2 const&) = default;
    IStreamReaderV2(IStreamReaderV2&&) = default;
    IStreamReaderV2& operator=(IStreamReaderV2 const&) & = default;
    IStreamReaderV2& operator=(IStreamReaderV2&&) & = default;
};

//! Receives a serialized engine piece by piece; implemented by the application.
class IStreamWriter : public IVersionedInterface
{
public:
    ~IStreamWriter() override = default;
    IStreamWriter() = default;

    //! Reports {"IStreamWriter", 1, 0}.
    InterfaceInfo getInterfaceInfo() const noexcept final { return InterfaceInfo{"IStreamWriter", 1, 0}; }

    //! Writes nbBytes from data; returns the number written.
    virtual int64_t write(void const* data, int64_t nbBytes) = 0;

protected:
    IStreamWriter(IStreamWriter const&) = default;
    IStreamWriter(IStreamWriter&&) = default;
    IStreamWriter& operator=(IStreamWriter const&) & = default;
    IStreamWriter& operator=(IStreamWriter&&) & = default;
};
} // namespace v_1_0

using IStreamReaderV2 = v_1_0::IStreamReaderV2; //!< The stream reader interface with seek and device reads.
using IStreamWriter = v_1_0::IStreamWriter;     //!< The stream writer interface.

//! What an execution context offers the plugins attached to it. A distinct object per context.
class IPluginResourceContext
{
public:
    //! The context's GPU allocator.
    virtual IGpuAllocator* getGpuAllocator() const noexcept = 0;
    //! The context's error recorder.
    virtual IErrorRecorder* getErrorRecorder() const noexcept = 0;
    virtual ~IPluginResourceContext() noexcept = default;

protected:
    IPluginResourceContext() = default;
    IPluginResourceContext(IPluginResourceContext const&) = default;
    IPluginResourceContext(IPluginResourceContext&&) = default;
    IPluginResourceContext& operator=(IPluginResourceContext const&) & = default;
    IPluginResourceContext& operator=(IPluginResourceContext&&) & = default;
};

namespace v_1_0
{
//! A V3 plugin's identity: name, version and namespace, equal to its creator's.
class IPluginV3OneCore : public IPluginCapability
{
public:
    //! Reports {"PLUGIN_V3ONE_CORE", 1, 0}.
    InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"PLUGIN_V3ONE_CORE", 1, 0}; }

    //! The plugin's name (at most 1024 bytes with the NUL).
    virtual AsciiChar const* getPluginName() const noexcept = 0;
    //! The plugin's version.
    virtual AsciiChar const* getPluginVersion() const noexcept = 0;
    //! The plugin's namespace.
    virtual AsciiChar const* getPluginNamespace() const noexcept = 0;

protected:
    IPluginV3OneCore() = default;
    IPluginV3OneCore(IPluginV3OneCore const&) = default;
    IPluginV3OneCore(IPluginV3OneCore&&) = default;
    IPluginV3OneCore& operator=(IPluginV3OneCore const&) & = default;
    IPluginV3OneCore& operator=(IPluginV3OneCore&&) & = default;
};

//! What a V3 plugin tells the builder: outputs, formats, workspace, tactics.
class IPluginV3OneBuild : public IPluginCapability
{
public:
    //! The default of getFormatCombinationLimit().
    static constexpr int32_t kDEFAULT_FORMAT_COMBINATION_LIMIT = 100;

    //! Reports {"PLUGIN_V3ONE_BUILD", 1, 0}.
    InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"PLUGIN_V3ONE_BUILD", 1, 0}; }

    //! Fixes types and formats for a profile; in[i].min/opt/max are its bounds. Non-zero stops the build.
    virtual int32_t configurePlugin(DynamicPluginTensorDesc const* in, int32_t nbInputs,
        DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept = 0;

    //! Writes the nbOutputs output types given the input types; returns 0 on success.
    virtual int32_t getOutputDataTypes(
        DataType* outputTypes, int32_t nbOutputs, const DataType* inputTypes, int32_t nbInputs) const noexcept = 0;

    //! Writes the output shapes as expressions over input shapes and shape-input values; returns 0 on success.
    virtual int32_t getOutputShapes(DimsExprs const* inputs, int32_t nbInputs, DimsExprs const* shapeInputs,
        int32_t nbShapeInputs, DimsExprs* outputs, int32_t nbOutputs, IExprBuilder& exprBuilder) noexcept = 0;

    //! Whether inOut[pos] may have its type and format, given inOut[0..pos-1]; inputs first, then outputs.
    virtual bool supportsFormatCombination(
        int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept = 0;

    //! The number of outputs.
    virtual int32_t getNbOutputs() const noexcept = 0;

    //! Scratch bytes enqueue() needs for these tensors.
    virtual size_t getWorkspaceSize(DynamicPluginTensorDesc const* /*inputs*/, int32_t /*nbInputs*/,
        DynamicPluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept
    {
        return 0;
    }

    //! Writes up to nbTactics custom tactics (unique, non-zero) for the current configuration; returns 0 on success.
    virtual int32_t getValidTactics(int32_t* /*tactics*/, int32_t /*nbTactics*/) noexcept { return 0; }

    //! The number of custom tactics.
    virtual int32_t getNbTactics() noexcept { return 0; }

    //! The creation-state part of the timing-cache key; nullptr turns timing caching off for this plugin.
    virtual char const* getTimingCacheID() noexcept { return nullptr; }

    //! The most format combinations the builder tries.
    virtual int32_t getFormatCombinationLimit() noexcept { return kDEFAULT_FORMAT_COMBINATION_LIMIT; }

    //! Free text recorded with the layer in the engine, or nullptr.
    virtual char const* getMetadataString() noexcept { return nullptr; }

protected:
    IPluginV3OneBuild() = default;
    IPluginV3OneBuild(IPluginV3OneBuild const&) = default;
    IPluginV3OneBuild(IPluginV3OneBuild&&) = default;
    IPluginV3OneBuild& operator=(IPluginV3OneBuild const&) & = default;
    IPluginV3OneBuild& operator=(IPluginV3OneBuild&&) & = default;
};

//! What a V3 plugin does at run time: tactic, shape changes, execution, context attachment, serialization.
class IPluginV3OneRuntime : public IPluginCapability
{
public:
    //! Reports {"PLUGIN_V3ONE_RUNTIME", 1, 0}.
    InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"PLUGIN_V3ONE_RUNTIME", 1, 0}; }

    //! Selects the tactic to run with (0 is the default tactic); returns 0 on success.
    virtual int32_t setTactic(int32_t /*tactic*/) noexcept { return 0; }

    //! Tells the plugin the concrete shapes of the next enqueue(); returns 0 on success.
    virtual int32_t onShapeChange(
        PluginTensorDesc const* in, int32_t nbInputs, PluginTensorDesc const* out, int32_t nbOutputs) noexcept = 0;

    //! Runs the layer on stream; returns 0 on success.
    virtual int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept = 0;

    //! A clone of the whole plugin bound to an execution context's resources; nullptr on failure.
    virtual IPluginV3* attachToContext(IPluginResourceContext* context) noexcept = 0;

    //! The fields that createPlugin(..., kRUNTIME) receives when the engine is deserialized.
    virtual PluginFieldCollection const* getFieldsToSerialize() noexcept = 0;

protected:
    IPluginV3OneRuntime() = default;
    IPluginV3OneRuntime(IPluginV3OneRuntime const&) = default;
    IPluginV3OneRuntime(IPluginV3OneRuntime&&) = default;
    IPluginV3OneRuntime& operator=(IPluginV3OneRuntime const&) & = default;
    IPluginV3OneRuntime& operator=(IPluginV3OneRuntime&&) & = default;
};
} // namespace v_1_0

namespace v_2_0
{
//! The V3 build capability, second version: adds input/output aliasing.
class IPluginV3OneBuild : public v_1_0::IPluginV3OneBuild
{
public:
    //! Reports {"PLUGIN_V3ONE_BUILD", 2, 0}.
    InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"PLUGIN_V3ONE_BUILD", 2, 0}; }

    //! The input that output outputIndex writes in place, or -1; asked only with kALIASED_PLUGIN_IO_10_03 on.
    virtual int32_t getAliasedInput(int32_t /*outputIndex*/) noexcept { return -1; }
};
} // namespace v_2_0

using IPluginV3OneCore = v_1_0::IPluginV3OneCore;       //!< The V3 core capability.
using IPluginV3OneBuild = v_1_0::IPluginV3OneBuild;     //!< The V3 build capability.
using IPluginV3OneRuntime = v_1_0::IPluginV3OneRuntime; //!< The V3 runtime capability.
using IPluginV3OneBuildV2 = v_2_0::IPluginV3OneBuild;   //!< The V3 build capability with aliasing.

namespace v_1_0
{
//! Receives per-layer timings from an execution context; implemented by the application.
class IProfiler
{
public:
    //! Reports that layerName took ms milliseconds.
    virtual void reportLayerTime(char const* layerName, float ms) noexcept = 0;
    virtual ~IProfiler() noexcept {}
};
} // namespace v_1_0

using IProfiler = v_1_0::IProfiler; //!< The profiler interface.

//! The role of a set of weights in a layer.
enum class WeightsRole : int32_t
{
    kKERNEL = 0,   //!< Convolution or matrix kernel.
    kBIAS = 1,     //!< Bias.
    kSHIFT = 2,    //!< Scale-layer shift.
    kSCALE = 3,    //!< Scale-layer scale.
    kCONSTANT = 4, //!< Constant-layer values.
    kANY = 5,      //!< Any role.
};

template <>
constexpr inline int32_t EnumMax<WeightsRole>() noexcept
{
    return 6;
}

//! The kind of device a layer runs on.
enum class DeviceType : int32_t
{
    kGPU = 0, //!< The GPU.
    kDLA = 1, //!< A deep-learning accelerator.
};

template <>
constexpr inline int32_t EnumMax<DeviceType>() noexcept
{
    return 2;
}

//! What the runtime may do with temporary files.
enum class TempfileControlFlag : int32_t
{
    kALLOW_IN_MEMORY_FILES = 0, //!< Anonymous in-memory files.
    kALLOW_TEMPORARY_FILES = 1, //!< Files in the temporary directory.
};

template <>
constexpr inline int32_t EnumMax<TempfileControlFlag>() noexcept
{
    return 2;
}

using TempfileControlFlags = uint32_t; //!< A bit mask of TempfileControlFlag.

//! Memory layouts of tensors. Vector formats pack a group of channels together.
enum class TensorFormat : int32_t
{
    kLINEAR = 0,     //!< Row-major.
    kCHW2 = 1,       //!< Channels in vectors of 2, vector dimension third-to-last.
    kHWC8 = 2,       //!< Channels last, padded to a multiple of 8.
    kCHW4 = 3,       //!< Channels in vectors of 4.
    kCHW16 = 4,      //!< Channels in vectors of 16.
    kCHW32 = 5,      //!< Channels in vectors of 32.
    kDHWC8 = 6,      //!< Channels last over depth, height, width, padded to a multiple of 8.
    kCDHW32 = 7,     //!< Channels in vectors of 32, vector dimension fourth-to-last.
    kHWC = 8,        //!< Channels last, unpadded.
    kDLA_LINEAR = 9, //!< DLA planar.
    kDLA_HWC4 = 10,  //!< DLA image format.
    kHWC16 = 11,     //!< Channels last, padded to a multiple of 16.
    kDHWC = 12,      //!< Channels last over depth, height, width, unpadded.
};

template <>
constexpr inline int32_t EnumMax<TensorFormat>() noexcept
{
    return 13;
}

using TensorFormats = uint32_t; //!< A bit mask of TensorFormat.

//! How an execution context gets its activation memory.
enum class ExecutionContextAllocationStrategy : int32_t
{
    kSTATIC = 0,            //!< Enough for every profile, allocated with the context.
    kON_PROFILE_CHANGE = 1, //!< Enough for the selected profile, reallocated when it changes.
    kUSER_MANAGED = 2,      //!< Supplied by the user with setDeviceMemory.
};

template <>
constexpr inline int32_t EnumMax<ExecutionContextAllocationStrategy>() noexcept
{
    return 3;
}

//! Properties of memory asked of an IGpuAllocator.
enum class AllocatorFlag : int32_t
{
    kRESIZABLE = 0, //!< The memory may later be grown with reallocate().
};

template <>
constexpr inline int32_t EnumMax<AllocatorFlag>() noexcept
{
    return 1;
}

using AllocatorFlags = uint32_t; //!< A bit mask of AllocatorFlag.

//! Receives the library's messages; implemented by the application.
class ILogger
{
public:
    //! How severe a message is.
    enum class Severity : int32_t
    {
        kINTERNAL_ERROR = 0, //!< A bug inside the library; the state may be unusable.
        kERROR = 1,          //!< An error the application must handle.
        kWARNING = 2,        //!< Something suspicious that did not stop the call.
        kINFO = 3,           //!< Information.
        kVERBOSE = 4,        //!< Details for debugging.
    };

    //! Receives one message; may be called from several threads at once.
    virtual void log(Severity severity, AsciiChar const* msg) noexcept = 0;

    ILogger() = default;
    virtual ~ILogger() = default;

protected:
    ILogger(ILogger const&) = default;
    ILogger(ILogger&&) = default;
    ILogger& operator=(ILogger const&) & = default;
    ILogger& operator=(ILogger&&) & = default;
};

template <>
constexpr inline int32_t EnumMax<ILogger::Severity>() noexcept
{
    return 5;
}

namespace v_1_0
{
//! Allocates device memory for the library; implemented by the application or by the library's default.
class IGpuAllocator : public IVersionedInterface
{
public:
    //! size bytes aligned to alignment, or nullptr. Deprecated: implement allocateAsync.
    TRT_DEPRECATED virtual void* allocate(
        uint64_t const size, uint64_t const alignment, AllocatorFlags const flags) noexcept = 0;

    ~IGpuAllocator() override = default;
    IGpuAllocator() = default;

    //! Grows a kRESIZABLE block to newSize bytes, moving it if needed; nullptr when unsupported or on failure.
    virtual void* reallocate(void* const /*baseAddr*/, uint64_t /*alignment*/, uint64_t /*newSize*/) noexcept
    {
        return nullptr;
    }

    //! Frees memory from allocate(); returns true on success. Deprecated: implement deallocateAsync.
    TRT_DEPRECATED virtual bool deallocate(void* const memory) noexcept = 0;

    //! size bytes aligned to alignment, ordered on stream, or nullptr.
    virtual void* allocateAsync(
        uint64_t const size, uint64_t const alignment, AllocatorFlags const flags, cudaStream_t /*stream*/) noexcept
    {
        return allocate(size, alignment, flags);
    }

    //! Frees memory ordered on stream; returns true on success.
    virtual bool deallocateAsync(void* const memory, cudaStream_t /*stream*/) noexcept { return deallocate(memory); }

    //! Reports {"IGpuAllocator", 1, 0}.
    InterfaceInfo getInterfaceInfo() const noexcept override { return {"IGpuAllocator", 1, 0}; }

protected:
    IGpuAllocator(IGpuAllocator const&) = default;
    IGpuAllocator(IGpuAllocator&&) = default;
    IGpuAllocator& operator=(IGpuAllocator const&) & = default;
    IGpuAllocator& operator=(IGpuAllocator&&) & = default;
};
} // namespace v_1_0

//! Which end of an optimization profile's range.
enum class OptProfileSelector : int32_t
{
    kMIN = 0, //!< The smallest shape or value.
    kOPT = 1, //!< The shape or value to optimize for.
    kMAX = 2, //!< The largest shape or value.
};

template <>
constexpr inline int32_t EnumMax<OptProfileSelector>() noexcept
{
    return 3;
}

//! Libraries the builder may draw tactics from.
enum class TacticSource : int32_t
{
    kCUBLAS TRT_DEPRECATED_ENUM = 0,    //!< cuBLAS.
    kCUBLAS_LT TRT_DEPRECATED_ENUM = 1, //!< cuBLASLt.
    kCUDNN TRT_DEPRECATED_ENUM = 2,     //!< cuDNN.
    kEDGE_MASK_CONVOLUTIONS = 3,        //!< Edge-mask convolution kernels.
    kJIT_CONVOLUTIONS = 4,              //!< Just-in-time compiled convolutions.
};

template <>
constexpr inline int32_t EnumMax<TacticSource>() noexcept
{
    return 5;
}

using TacticSources = uint32_t; //!< A bit mask of TacticSource.

//! How much layer detail an engine records.
enum class ProfilingVerbosity : int32_t
{
    kLAYER_NAMES_ONLY = 0, //!< Layer names.
    kNONE = 1,             //!< Nothing.
    kDETAILED = 2,         //!< Names, tactics, formats and parameters.
};

template <>
constexpr inline int32_t EnumMax<ProfilingVerbosity>() noexcept
{
    return 3;
}

//! Options of engine serialization.
enum class SerializationFlag : int32_t
{
    kEXCLUDE_WEIGHTS = 0,      //!< Leave refittable weights out.
    kEXCLUDE_LEAN_RUNTIME = 1, //!< Leave the embedded lean runtime out.
    kINCLUDE_REFIT = 2,        //!< Keep refit information.
};

template <>
constexpr inline int32_t EnumMax<SerializationFlag>() noexcept
{
    return 3;
}

using SerializationFlags = uint32_t; //!< A bit mask of SerializationFlag.

//! Engine statistics that can be queried.
enum class EngineStat : int32_t
{
    kTOTAL_WEIGHTS_SIZE = 0,    //!< Bytes of all weights.
    kSTRIPPED_WEIGHTS_SIZE = 1, //!< Bytes of the weights left in a stripped plan.
};

template <>
constexpr inline int32_t EnumMax<EngineStat>() noexcept
{
    return 2;
}

namespace v_1_0
{
//! Provides memory for outputs whose size is known only at run time; implemented by the application.
class IOutputAllocator : public IVersionedInterface
{
public:
    //! Reports {"IOutputAllocator", 1, 0}.
    InterfaceInfo getInterfaceInfo() const noexcept override { return {"IOutputAllocator", 1, 0}; }

    //! A buffer of at least size bytes for tensorName, or nullptr. Deprecated: implement reallocateOutputAsync.
    TRT_DEPRECATED virtual void* reallocateOutput(
        char const* /*tensorName*/, void* /*currentMemory*/, uint64_t /*size*/, uint64_t /*alignment*/) noexcept
    {
        return nullptr;
    }

    //! A buffer of at least size bytes for tensorName, ordered on stream, or nullptr.
    virtual void* reallocateOutputAsync(
        char const* tensorName, void* currentMemory, uint64_t size, uint64_t alignment, cudaStream_t /*stream*/)
    {
        return reallocateOutput(tensorName, currentMemory, size, alignment);
    }

    //! Tells the final shape of tensorName.
    virtual void notifyShape(char const* tensorName, Dims const& dims) noexcept = 0;
};

//! Receives tensors marked for debugging as they are computed; implemented by the application.
class IDebugListener : public IVersionedInterface
{
public:
    //! Reports {"IDebugListener", 1, 0}.
    InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"IDebugListener", 1, 0}; }

    //! Receives one tensor's data; returns true on success.
    virtual bool processDebugTensor(void const* addr, TensorLocation location, DataType type, Dims const& shape,
        char const* name, cudaStream_t stream)
        = 0;

    ~IDebugListener() override = default;
};
} // namespace v_1_0

using IGpuAllocator = v_1_0::IGpuAllocator;       //!< The GPU allocator interface.
using IOutputAllocator = v_1_0::IOutputAllocator; //!< The output allocator interface.
using IDebugListener = v_1_0::IDebugListener;     //!< The debug listener interface.

//! Deserializes engines. Create it with createInferRuntime(); delete it only after the engines it made.
class IRuntime : public INoCopy
{
public:
    virtual ~IRuntime() noexcept = default;

    //! Selects the DLA core engines run on (-1, the default, for none).
    void setDLACore(int32_t dlaCore) noexcept { mImpl->setDLACore(dlaCore); }

    //! The DLA core set with setDLACore(), or -1.
    int32_t getDLACore() const noexcept { return mImpl->getDLACore(); }

    //! The number of DLA cores available; 0 without DLA.
    int32_t getNbDLACores() const noexcept { return mImpl->getNbDLACores(); }

    //! The allocator for all device memory this runtime and its engines take; nullptr restores the default.
    void setGpuAllocator(IGpuAllocator* allocator) noexcept { mImpl->setGpuAllocator(allocator); }

    //! Sends errors to recorder as well as to the logger; engines made afterwards inherit it. nullptr detaches.
    void setErrorRecorder(IErrorRecorder* recorder) noexcept { mImpl->setErrorRecorder(recorder); }

    //! The recorder set with setErrorRecorder(), or nullptr.
    IErrorRecorder* getErrorRecorder() const noexcept { return mImpl->getErrorRecorder(); }

    //! An engine from a serialized plan in host memory, or nullptr.
    ICudaEngine* deserializeCudaEngine(void const* blob, std::size_t size) noexcept
    {
        return mImpl->deserializeCudaEngine(blob, size);
    }

    //! An engine read from streamReader, or nullptr. Deprecated: use the IStreamReaderV2 overload.
    TRT_DEPRECATED ICudaEngine* deserializeCudaEngine(IStreamReader& streamReader)
    {
        return mImpl->deserializeCudaEngine(streamReader);
    }

    //! An engine read from streamReader, which may read straight into device memory, or nullptr.
    ICudaEngine* deserializeCudaEngine(IStreamReaderV2& streamReader)
    {
        return mImpl->deserializeCudaEngineV2(streamReader);
    }

    //! The logger given to createInferRuntime().
    ILogger* getLogger() const noexcept { return mImpl->getLogger(); }

    //! Allows up to maxThreads threads (at least 1, the default, which is the calling thread).
    bool setMaxThreads(int32_t maxThreads) noexcept { return mImpl->setMaxThreads(maxThreads); }

    //! The thread limit set with setMaxThreads().
    int32_t getMaxThreads() const noexcept { return mImpl->getMaxThreads(); }

    //! The directory for temporary files; nullptr (the default) lets the library choose.
    void setTemporaryDirectory(char const* path) noexcept { return mImpl->setTemporaryDirectory(path); }

    //! The directory set with setTemporaryDirectory(), or nullptr.
    char const* getTemporaryDirectory() const noexcept { return mImpl->getTemporaryDirectory(); }

    //! Which kinds of temporary files the runtime may create (default: all).
    void setTempfileControlFlags(TempfileControlFlags flags) noexcept { return mImpl->setTempfileControlFlags(flags); }

    //! The flags set with setTempfileControlFlags().
    TempfileControlFlags getTempfileControlFlags() const noexcept { return mImpl->getTempfileControlFlags(); }

    //! This runtime's plugin registry.
    IPluginRegistry& getPluginRegistry() noexcept { return mImpl->getPluginRegistry(); }

    //! A runtime loaded from the lean runtime library at path, for version-compatible plans; nullptr on failure.
    IRuntime* loadRuntime(char const* path) noexcept { return mImpl->loadRuntime(path); }

    //! Whether plans with embedded host code may be deserialized (default false).
    void setEngineHostCodeAllowed(bool allowed) noexcept { return mImpl->setEngineHostCodeAllowed(allowed); }

    //! The setting of setEngineHostCodeAllowed().
    bool getEngineHostCodeAllowed() const noexcept { return mImpl->getEngineHostCodeAllowed(); }

protected:
    apiv::VRuntime* mImpl;
};

//! Replaces the weights of an engine built refittable (BuilderFlag::kREFIT, kREFIT_IDENTICAL, kREFIT_INDIVIDUAL or
//! kSTRIP_PLAN) without building it again. Made by createInferRefitter() for one engine, which must outlive it.
//! Give new weights by layer and role (setWeights) or by name (setNamedWeights: the name given with
//! INetworkDefinition::setWeightsName, e.g. an ONNX initializer's), then call refitCudaEngine(). New weights must
//! have the type and count of getWeightsPrototype(); their memory must stay valid until the refit returns.
//!
//!     std::unique_ptr<nvinfer1::IRefitter> refitter{nvinfer1::createInferRefitter(*engine, logger)};
//!     refitter->setNamedWeights("conv1.weight", newKernel);
//!     bool const done = refitter->refitCudaEngine();
class IRefitter : public INoCopy
{
public:
    virtual ~IRefitter() noexcept = default;

    //! Gives new weights for the weights of role in layer layerName; false (with an error naming both) when the layer
    //! has no refittable weights of that role, or the type or count differs from the build's.
    bool setWeights(char const* layerName, WeightsRole role, Weights weights) noexcept
    {
        return mImpl->setWeights(layerName, role, weights);
    }

    //! Copies the weights given since the last refit into the engine; false when weights are missing or one fails.
    //! No execution context of the engine may run meanwhile.
    bool refitCudaEngine() noexcept { return mImpl->refitCudaEngine(); }

    //! The number of weights that must still be given before refitCudaEngine() can succeed; the first size of them
    //! are written to layerNames and roles (either may be null when size is 0).
    int32_t getMissing(int32_t size, char const** layerNames, WeightsRole* roles) noexcept
    {
        return mImpl->getMissing(size, layerNames, roles);
    }

    //! The number of refittable weights; the first size of them are written to layerNames and roles.
    int32_t getAll(int32_t size, char const** layerNames, WeightsRole* roles) noexcept
    {
        return mImpl->getAll(size, layerNames, roles);
    }

    //! Deprecated (explicit quantization): sets the dynamic range of tensorName.
    TRT_DEPRECATED bool setDynamicRange(char const* tensorName, float min, float max) noexcept
    {
        return mImpl->setDynamicRange(tensorName, min, max);
    }

    //! Deprecated (explicit quantization): the lower end of tensorName's dynamic range.
    TRT_DEPRECATED float getDynamicRangeMin(char const* tensorName) const noexcept
    {
        return mImpl->getDynamicRangeMin(tensorName);
    }

    //! Deprecated (explicit quantization): the upper end of tensorName's dynamic range.
    TRT_DEPRECATED float getDynamicRangeMax(char const* tensorName) const noexcept
    {
        return mImpl->getDynamicRangeMax(tensorName);
    }

    //! Deprecated (explicit quantization): the number of tensors with a dynamic range; the first size names.
    TRT_DEPRECATED int32_t getTensorsWithDynamicRange(int32_t size, char const** tensorNames) const noexcept
    {
        return mImpl->getTensorsWithDynamicRange(size, tensorNames);
    }

    //! Sends errors to recorder as well as to the logger; nullptr detaches.
    void setErrorRecorder(IErrorRecorder* recorder) noexcept { mImpl->setErrorRecorder(recorder); }

    //! The recorder set with setErrorRecorder(), or nullptr.
    IErrorRecorder* getErrorRecorder() const noexcept { return mImpl->getErrorRecorder(); }

    //! Gives new values, in host memory, for the weights called name; false (with an error naming them) for an
    //! unknown name, or a type or count that differs from getWeightsPrototype(name).
    bool setNamedWeights(char const* name, Weights weights) noexcept { return mImpl->setNamedWeights(name, weights); }

    //! The number of named weights that must still be given; the first size names are written to weightsNames.
    int32_t getMissingWeights(int32_t size, char const** weightsNames) noexcept
    {
        return mImpl->getMissingWeights(size, weightsNames);
    }

    //! The number of refittable named weights; the first size names are written to weightsNames.
    int32_t getAllWeights(int32_t size, char const** weightsNames) noexcept
    {
        return mImpl->getAllWeights(size, weightsNames);
    }

    //! The logger given to createInferRefitter().
    ILogger* getLogger() const noexcept { return mImpl->getLogger(); }

    //! Allows up to maxThreads threads for a refit (at least 1).
    bool setMaxThreads(int32_t maxThreads) noexcept { return mImpl->setMaxThreads(maxThreads); }

    //! The thread limit set with setMaxThreads().
    int32_t getMaxThreads() const noexcept { return mImpl->getMaxThreads(); }

    //! setNamedWeights() with the values in location's memory (kDEVICE: device memory of the engine's device).
    bool setNamedWeights(char const* name, Weights weights, TensorLocation location) noexcept
    {
        return mImpl->setNamedWeightsWithLocation(name, weights, location);
    }

    //! The weights given for name since the last refit, or empty weights (values nullptr, count 0).
    Weights getNamedWeights(char const* weightsName) const noexcept { return mImpl->getNamedWeights(weightsName); }

    //! Where the weights given for weightsName live; kHOST when none were given.
    TensorLocation getWeightsLocation(char const* weightsName) const noexcept
    {
        return mImpl->getWeightsLocation(weightsName);
    }

    //! Forgets the weights given for weightsName; false when none were given.
    bool unsetNamedWeights(char const* weightsName) noexcept { return mImpl->unsetNamedWeights(weightsName); }

    //! Whether a refit checks the new weights' values (finite floats) first; on by default.
    void setWeightsValidation(bool weightsValidation) noexcept { mImpl->setWeightsValidation(weightsValidation); }

    //! The setting of setWeightsValidation().
    bool getWeightsValidation() const noexcept { return mImpl->getWeightsValidation(); }

    //! refitCudaEngine() with the copies to the device ordered on stream; the weights given must stay valid until
    //! the stream has run them.
    bool refitCudaEngineAsync(cudaStream_t stream) noexcept { return mImpl->refitCudaEngineAsync(stream); }

    //! The type and count new weights for weightsName must have (values nullptr); count -1 for an unknown name.
    Weights getWeightsPrototype(char const* weightsName) const noexcept
    {
        return mImpl->getWeightsPrototype(weightsName);
    }

protected:
    apiv::VRefitter* mImpl;
};

//! The shape ranges (and shape-tensor value ranges) one engine profile supports. Made by IBuilder and owned by it.
class IOptimizationProfile : public INoCopy
{
public:
    //! Sets the smallest, optimum or largest shape of input inputName; false on an inconsistency.
    bool setDimensions(char const* inputName, OptProfileSelector select, Dims const& dims) noexcept
    {
        return mImpl->setDimensions(inputName, select, dims);
    }

    //! The shape set with setDimensions(), or Dims{-1, {}}.
    Dims getDimensions(char const* inputName, OptProfileSelector select) const noexcept
    {
        return mImpl->getDimensions(inputName, select);
    }

    //! Sets 32-bit values of shape input inputName. Deprecated: use setShapeValuesV2.
    TRT_DEPRECATED bool setShapeValues(
        char const* inputName, OptProfileSelector select, int32_t const* values, int32_t nbValues) noexcept
    {
        return mImpl->setShapeValues(inputName, select, values, nbValues);
    }

    //! The number of shape values set for inputName, or -1.
    int32_t getNbShapeValues(char const* inputName) const noexcept { return mImpl->getNbShapeValues(inputName); }

    //! The 32-bit values set with setShapeValues(), or nullptr. Deprecated: use getShapeValuesV2.
    TRT_DEPRECATED int32_t const* getShapeValues(char const* inputName, OptProfileSelector select) const noexcept
    {
        return mImpl->getShapeValues(inputName, select);
    }

    //! Extra weight memory this profile may use, as a fraction in [0, 1] of the unconstrained amount.
    bool setExtraMemoryTarget(float target) noexcept { return mImpl->setExtraMemoryTarget(target); }

    //! The target set with setExtraMemoryTarget() (default 1).
    float getExtraMemoryTarget() const noexcept { return mImpl->getExtraMemoryTarget(); }

    //! Whether the profile is consistent enough to add to a builder config.
    bool isValid() const noexcept { return mImpl->isValid(); }

    //! Sets the smallest, optimum or largest values of shape input inputName (nbValues elements, row-major).
    bool setShapeValuesV2(
        char const* inputName, OptProfileSelector select, int64_t const* values, int32_t nbValues) noexcept
    {
        return mImpl->setShapeValuesV2(inputName, select, values, nbValues);
    }

    //! The values set with setShapeValuesV2(), or nullptr.
    int64_t const* getShapeValuesV2(char const* inputName, OptProfileSelector select) const noexcept
    {
        return mImpl->getShapeValuesV2(inputName, select);
    }

protected:
    apiv::VOptimizationProfile* mImpl;
    virtual ~IOptimizationProfile() noexcept = default;
};

//! Options of ICudaEngine::serializeWithConfig(). Made by ICudaEngine::createSerializationConfig(); delete when done.
class ISerializationConfig : public INoCopy
{
public:
    virtual ~ISerializationConfig() noexcept = default;

    //! Replaces all flags.
    bool setFlags(SerializationFlags serializationFlags) noexcept { return mImpl->setFlags(serializationFlags); }

    //! The flags as a bit mask.
    SerializationFlags getFlags() const noexcept { return mImpl->getFlags(); }

    //! Turns one flag off.
    bool clearFlag(SerializationFlag serializationFlag) noexcept { return mImpl->clearFlag(serializationFlag); }

    //! Turns one flag on.
    bool setFlag(SerializationFlag serializationFlag) noexcept { return mImpl->setFlag(serializationFlag); }

    //! Whether one flag is on.
    bool getFlag(SerializationFlag serializationFlag) const noexcept { return mImpl->getFlag(serializationFlag); }

protected:
    apiv::VSerializationConfig* mImpl;
};

//! Options of execution-context creation. Made by ICudaEngine::createRuntimeConfig(); delete when done.
class IRuntimeConfig : public INoCopy
{
public:
    virtual ~IRuntimeConfig() noexcept = default;

    //! How contexts made with this config get their activation memory (default kSTATIC).
    void setExecutionContextAllocationStrategy(ExecutionContextAllocationStrategy strategy) noexcept
    {
        return mImpl->setExecutionContextAllocationStrategy(strategy);
    }

    //! The strategy set with setExecutionContextAllocationStrategy().
    ExecutionContextAllocationStrategy getExecutionContextAllocationStrategy() const noexcept
    {
        return mImpl->getExecutionContextAllocationStrategy();
    }

protected:
    apiv::VRuntimeConfig* mImpl;
};

//! A built network, ready to run. Tensors are named by the names of the network's inputs and outputs. Delete it after
//! its execution contexts and before the runtime that made it.
class ICudaEngine : public INoCopy
{
public:
    virtual ~ICudaEngine() noexcept = default;

    //! The shape of I/O tensor tensorName, -1 for run-time extents, or Dims{-1, {}} for an unknown name.
    Dims getTensorShape(char const* tensorName) const noexcept { return mImpl->getTensorShape(tensorName); }

    //! The element type of I/O tensor tensorName.
    DataType getTensorDataType(char const* tensorName) const noexcept { return mImpl->getTensorDataType(tensorName); }

    //! The number of layers of the optimized engine.
    int32_t getNbLayers() const noexcept { return mImpl->getNbLayers(); }

    //! The engine as a plan.
    IHostMemory* serialize() const noexcept { return mImpl->serialize(); }

    //! A new execution context using profile 0, with activation memory obtained as strategy says.
    IExecutionContext* createExecutionContext(
        ExecutionContextAllocationStrategy strategy = ExecutionContextAllocationStrategy::kSTATIC) noexcept
    {
        return mImpl->createExecutionContext(strategy);
    }

    //! Whether I/O tensor tensorName lives in device or host memory (kiln: host memory for every I/O tensor of an
    //! engine built for its host backend).
    TensorLocation getTensorLocation(char const* tensorName) const noexcept
    {
        return mImpl->getTensorLocation(tensorName);
    }

    //! Whether tensorName is an input whose values shapes depend on, or an output computed by inferShapes().
    bool isShapeInferenceIO(char const* tensorName) const noexcept { return mImpl->isShapeInferenceIO(tensorName); }

    //! Whether tensorName is an input, an output or neither.
    TensorIOMode getTensorIOMode(char const* tensorName) const noexcept { return mImpl->getTensorIOMode(tensorName); }

    //! The input that output tensorName must share memory with, or nullptr.
    TRT_NODISCARD char const* getAliasedInputTensor(char const* tensorName) const noexcept
    {
        return mImpl->getAliasedInputTensor(tensorName);
    }

    //! A context without activation memory. Deprecated: use createExecutionContext(kUSER_MANAGED).
    TRT_DEPRECATED IExecutionContext* createExecutionContextWithoutDeviceMemory() noexcept
    {
        return mImpl->createExecutionContextWithoutDeviceMemory();
    }

    //! A new execution context configured by runtimeConfig.
    IExecutionContext* createExecutionContext(IRuntimeConfig* runtimeConfig) noexcept
    {
        return mImpl->createExecutionContextWithRuntimeConfig(runtimeConfig);
    }

    //! A new runtime config, owned by the caller.
    IRuntimeConfig* createRuntimeConfig() noexcept { return mImpl->createRuntimeConfig(); }

    //! The largest activation memory over all profiles. Deprecated: use getDeviceMemorySizeV2.
    TRT_DEPRECATED size_t getDeviceMemorySize() const noexcept { return mImpl->getDeviceMemorySize(); }

    //! The activation memory of one profile. Deprecated: use getDeviceMemorySizeForProfileV2.
    TRT_DEPRECATED size_t getDeviceMemorySizeForProfile(int32_t profileIndex) const noexcept
    {
        return mImpl->getDeviceMemorySizeForProfile(profileIndex);
    }

    //! The largest device memory a context needs over all profiles, weight-streaming scratch included.
    int64_t getDeviceMemorySizeV2() const noexcept { return mImpl->getDeviceMemorySizeV2(); }

    //! The device memory a context needs for one profile.
    int64_t getDeviceMemorySizeForProfileV2(int32_t profileIndex) const noexcept
    {
        return mImpl->getDeviceMemorySizeForProfileV2(profileIndex);
    }

    //! Whether the engine can be refitted.
    bool isRefittable() const noexcept { return mImpl->isRefittable(); }

    //! Bytes per vector component of tensorName in profile 0, or -1 if not vectorized.
    int32_t getTensorBytesPerComponent(char const* tensorName) const noexcept
    {
        return mImpl->getTensorBytesPerComponent(tensorName);
    }

    //! Bytes per vector component of tensorName in a profile, or -1 if not vectorized.
    int32_t getTensorBytesPerComponent(char const* tensorName, int32_t profileIndex) const noexcept
    {
        return mImpl->getTensorBytesPerComponentV2(tensorName, profileIndex);
    }

    //! Components per vector of tensorName in profile 0, or -1 if not vectorized.
    int32_t getTensorComponentsPerElement(char const* tensorName) const noexcept
    {
        return mImpl->getTensorComponentsPerElement(tensorName);
    }

    //! Components per vector of tensorName in a profile, or -1 if not vectorized.
    int32_t getTensorComponentsPerElement(char const* tensorName, int32_t profileIndex) const noexcept
    {
        return mImpl->getTensorComponentsPerElementV2(tensorName, profileIndex);
    }

    //! The memory layout of tensorName in profile 0.
    TensorFormat getTensorFormat(char const* tensorName) const noexcept { return mImpl->getTensorFormat(tensorName); }

    //! The memory layout of tensorName in a profile.
    TensorFormat getTensorFormat(char const* tensorName, int32_t profileIndex) const noexcept
    {
        return mImpl->getTensorFormatV2(tensorName, profileIndex);
    }

    //! A readable description of the layout of tensorName in profile 0.
    char const* getTensorFormatDesc(char const* tensorName) const noexcept
    {
        return mImpl->getTensorFormatDesc(tensorName);
    }

    //! A readable description of the layout of tensorName in a profile.
    char const* getTensorFormatDesc(char const* tensorName, int32_t profileIndex) const noexcept
    {
        return mImpl->getTensorFormatDescV2(tensorName, profileIndex);
    }

    //! The vectorized dimension of tensorName in profile 0, or -1.
    int32_t getTensorVectorizedDim(char const* tensorName) const noexcept
    {
        return mImpl->getTensorVectorizedDim(tensorName);
    }

    //! The vectorized dimension of tensorName in a profile, or -1.
    int32_t getTensorVectorizedDim(char const* tensorName, int32_t profileIndex) const noexcept
    {
        return mImpl->getTensorVectorizedDimV2(tensorName, profileIndex);
    }

    //! The name of the network the engine was built from.
    char const* getName() const noexcept { return mImpl->getName(); }

    //! The number of optimization profiles (at least 1).
    int32_t getNbOptimizationProfiles() const noexcept { return mImpl->getNbOptimizationProfiles(); }

    //! The smallest, optimum or largest shape of input tensorName in a profile, or Dims{-1, {}}.
    Dims getProfileShape(char const* tensorName, int32_t profileIndex, OptProfileSelector select) const noexcept
    {
        return mImpl->getProfileShape(tensorName, profileIndex, select);
    }

    //! 32-bit shape-input values of a profile, or nullptr. Deprecated: use getProfileTensorValuesV2.
    TRT_DEPRECATED int32_t const* getProfileTensorValues(
        char const* tensorName, int32_t profileIndex, OptProfileSelector select) const noexcept
    {
        return mImpl->getProfileTensorValues(tensorName, profileIndex, select);
    }

    //! The capability the engine was built for.
    EngineCapability getEngineCapability() const noexcept { return mImpl->getEngineCapability(); }

    //! Sends errors to recorder as well as to the logger; contexts made afterwards inherit it. nullptr detaches.
    void setErrorRecorder(IErrorRecorder* recorder) noexcept { return mImpl->setErrorRecorder(recorder); }

    //! The recorder set with setErrorRecorder(), or nullptr.
    IErrorRecorder* getErrorRecorder() const noexcept { return mImpl->getErrorRecorder(); }

    //! Always false. Deprecated: there is no implicit batch dimension in TensorRT 10.
    TRT_DEPRECATED bool hasImplicitBatchDimension() const noexcept { return mImpl->hasImplicitBatchDimension(); }

    //! The tactic sources the engine needs.
    TacticSources getTacticSources() const noexcept { return mImpl->getTacticSources(); }

    //! The profiling verbosity the engine was built with.
    ProfilingVerbosity getProfilingVerbosity() const noexcept { return mImpl->getProfilingVerbosity(); }

    //! A new inspector of this engine's layers, owned by the caller.
    IEngineInspector* createEngineInspector() const noexcept { return mImpl->createEngineInspector(); }

    //! The number of I/O tensors.
    int32_t getNbIOTensors() const noexcept { return mImpl->getNbIOTensors(); }

    //! The name of I/O tensor index, in [0, getNbIOTensors()).
    char const* getIOTensorName(int32_t index) const noexcept { return mImpl->getIOTensorName(index); }

    //! The hardware compatibility level the engine was built with.
    HardwareCompatibilityLevel getHardwareCompatibilityLevel() const noexcept
    {
        return mImpl->getHardwareCompatibilityLevel();
    }

    //! The number of auxiliary streams the engine uses.
    int32_t getNbAuxStreams() const noexcept { return mImpl->getNbAuxStreams(); }

    //! A new serialization config, owned by the caller.
    ISerializationConfig* createSerializationConfig() noexcept { return mImpl->createSerializationConfig(); }

    //! The engine as a plan, serialized as config says.
    IHostMemory* serializeWithConfig(ISerializationConfig& config) const noexcept
    {
        return mImpl->serializeWithConfig(config);
    }

    //! Limits device memory for streamed weights. Deprecated: use setWeightStreamingBudgetV2.
    TRT_DEPRECATED bool setWeightStreamingBudget(int64_t gpuMemoryBudget) noexcept
    {
        return mImpl->setWeightStreamingBudget(gpuMemoryBudget);
    }

    //! The budget set with setWeightStreamingBudget(). Deprecated: use getWeightStreamingBudgetV2.
    TRT_DEPRECATED int64_t getWeightStreamingBudget() const noexcept { return mImpl->getWeightStreamingBudget(); }

    //! The smallest budget weight streaming works with. Deprecated: the V2 budget may be 0.
    TRT_DEPRECATED int64_t getMinimumWeightStreamingBudget() const noexcept
    {
        return mImpl->getMinimumWeightStreamingBudget();
    }

    //! Bytes of all weights that can be streamed.
    int64_t getStreamableWeightsSize() const noexcept { return mImpl->getStreamableWeightsSize(); }

    //! Limits the device memory weights occupy; streaming is off when the budget covers them all.
    bool setWeightStreamingBudgetV2(int64_t gpuMemoryBudget) noexcept
    {
        return mImpl->setWeightStreamingBudgetV2(gpuMemoryBudget);
    }

    //! The budget set with setWeightStreamingBudgetV2().
    int64_t getWeightStreamingBudgetV2() const noexcept { return mImpl->getWeightStreamingBudgetV2(); }

    //! A budget the library picks from the free device memory.
    int64_t getWeightStreamingAutomaticBudget() const noexcept { return mImpl->getWeightStreamingAutomaticBudget(); }

    //! Scratch bytes each context needs for the current budget.
    int64_t getWeightStreamingScratchMemorySize() const noexcept
    {
        return mImpl->getWeightStreamingScratchMemorySize();
    }

    //! Whether name was marked as a debug tensor at build time.
    bool isDebugTensor(char const* name) const noexcept { return mImpl->isDebugTensor(name); }

    //! The shape-input values of a profile, or nullptr.
    int64_t const* getProfileTensorValuesV2(
        char const* tensorName, int32_t profileIndex, OptProfileSelector select) const noexcept
    {
        return mImpl->getProfileTensorValuesV2(tensorName, profileIndex, select);
    }

    //! One engine statistic, or -1 when it does not apply.
    int64_t getEngineStat(EngineStat stat) const noexcept { return mImpl->getEngineStat(stat); }

protected:
    apiv::VCudaEngine* mImpl;
};

//! Runs an engine: one set of tensor addresses and input shapes, one profile at a time. Made by
//! ICudaEngine::createExecutionContext(); delete it before the engine.
class IExecutionContext : public INoCopy
{
public:
    virtual ~IExecutionContext() noexcept = default;

    //! Whether executeV2() logs after each kernel.
    void setDebugSync(bool sync) noexcept { mImpl->setDebugSync(sync); }

    //! The setting of setDebugSync().
    bool getDebugSync() const noexcept { return mImpl->getDebugSync(); }

    //! Receives per-layer timings; nullptr detaches.
    void setProfiler(IProfiler* profiler) noexcept { mImpl->setProfiler(profiler); }

    //! The profiler set with setProfiler(), or nullptr.
    IProfiler* getProfiler() const noexcept { return mImpl->getProfiler(); }

    //! The engine this context runs.
    ICudaEngine const& getEngine() const noexcept { return mImpl->getEngine(); }

    //! Names the context (copied).
    void setName(char const* name) noexcept { mImpl->setName(name); }

    //! The name set with setName().
    char const* getName() const noexcept { return mImpl->getName(); }

    //! Supplies activation memory. Superseded by setDeviceMemoryV2 (which also covers weight-streaming scratch).
    void setDeviceMemory(void* memory) noexcept { mImpl->setDeviceMemory(memory); }

    //! Supplies size bytes of activation memory.
    void setDeviceMemoryV2(void* memory, int64_t size) noexcept { return mImpl->setDeviceMemoryV2(memory, size); }

    //! The strides, in elements, of I/O tensor tensorName, or Dims{-1, {}}.
    Dims getTensorStrides(char const* tensorName) const noexcept { return mImpl->getTensorStrides(tensorName); }

    //! The selected optimization profile.
    int32_t getOptimizationProfile() const noexcept { return mImpl->getOptimizationProfile(); }

    //! Sets the run-time shape of input tensorName.
    bool setInputShape(char const* tensorName, Dims const& dims) noexcept
    {
        return mImpl->setInputShape(tensorName, dims);
    }

    //! The shape of I/O tensor tensorName given the shapes set so far; -1 where still unknown.
    Dims getTensorShape(char const* tensorName) const noexcept { return mImpl->getTensorShape(tensorName); }

    //! Whether every run-time input extent has been set.
    bool allInputDimensionsSpecified() const noexcept { return mImpl->allInputDimensionsSpecified(); }

    //! Always true in TensorRT 10. Deprecated.
    TRT_DEPRECATED bool allInputShapesSpecified() const noexcept { return mImpl->allInputShapesSpecified(); }

    //! Sends errors to recorder as well as to the logger; nullptr detaches.
    void setErrorRecorder(IErrorRecorder* recorder) noexcept { mImpl->setErrorRecorder(recorder); }

    //! The recorder set with setErrorRecorder(), or nullptr.
    IErrorRecorder* getErrorRecorder() const noexcept { return mImpl->getErrorRecorder(); }

    //! Runs synchronously with bindings[i] the address of I/O tensor i.
    bool executeV2(void* const* bindings) noexcept { return mImpl->executeV2(bindings); }

    //! Selects a profile; copies it may need are ordered on stream.
    bool setOptimizationProfileAsync(int32_t profileIndex, cudaStream_t stream) noexcept
    {
        return mImpl->setOptimizationProfileAsync(profileIndex, stream);
    }

    //! Whether enqueueV3() reports layer timings itself (default) or leaves it to reportToProfiler().
    void setEnqueueEmitsProfile(bool enqueueEmitsProfile) noexcept
    {
        mImpl->setEnqueueEmitsProfile(enqueueEmitsProfile);
    }

    //! The setting of setEnqueueEmitsProfile().
    bool getEnqueueEmitsProfile() const noexcept { return mImpl->getEnqueueEmitsProfile(); }

    //! Reports the timings of the last enqueueV3() to the profiler.
    bool reportToProfiler() const noexcept { return mImpl->reportToProfiler(); }

    //! Sets the address of I/O tensor tensorName (nullptr resets it).
    bool setTensorAddress(char const* tensorName, void* data) noexcept
    {
        return mImpl->setTensorAddress(tensorName, data);
    }

    //! The address of I/O tensor tensorName, or nullptr.
    void const* getTensorAddress(char const* tensorName) const noexcept { return mImpl->getTensorAddress(tensorName); }

    //! Sets the address of output tensorName.
    bool setOutputTensorAddress(char const* tensorName, void* data) noexcept
    {
        return mImpl->setOutputTensorAddress(tensorName, data);
    }

    //! Sets the address of input tensorName to read-only memory.
    bool setInputTensorAddress(char const* tensorName, void const* data) noexcept
    {
        return mImpl->setInputTensorAddress(tensorName, data);
    }

    //! The address of output tensorName, or nullptr.
    void* getOutputTensorAddress(char const* tensorName) const noexcept
    {
        return mImpl->getOutputTensorAddress(tensorName);
    }

    //! Computes shapes and shape outputs; returns 0, the number of under-specified inputs (names written to
    //! tensorNames, at most nbMaxNames), or -1.
    int32_t inferShapes(int32_t nbMaxNames, char const** tensorNames) noexcept
    {
        return mImpl->inferShapes(nbMaxNames, tensorNames);
    }

    //! Recomputes the activation memory for the current input shapes; returns the bytes, or 0 on error.
    size_t updateDeviceMemorySizeForShapes() noexcept { return mImpl->updateDeviceMemorySizeForShapes(); }

    //! An event recorded once the inputs may be reused; nullptr removes it.
    bool setInputConsumedEvent(cudaEvent_t event) noexcept { return mImpl->setInputConsumedEvent(event); }

    //! The event set with setInputConsumedEvent(), or nullptr.
    cudaEvent_t getInputConsumedEvent() const noexcept { return mImpl->getInputConsumedEvent(); }

    //! Provides memory for output tensorName when its size is known; nullptr removes it.
    bool setOutputAllocator(char const* tensorName, IOutputAllocator* outputAllocator) noexcept
    {
        return mImpl->setOutputAllocator(tensorName, outputAllocator);
    }

    //! The allocator set for output tensorName, or nullptr.
    IOutputAllocator* getOutputAllocator(char const* tensorName) const noexcept
    {
        return mImpl->getOutputAllocator(tensorName);
    }

    //! An upper bound in bytes of output tensorName for the current shapes, or -1.
    int64_t getMaxOutputSize(char const* tensorName) const noexcept { return mImpl->getMaxOutputSize(tensorName); }

    //! The allocator for temporary memory enqueueV3() cannot size in advance; nullptr restores the default.
    bool setTemporaryStorageAllocator(IGpuAllocator* allocator) noexcept
    {
        return mImpl->setTemporaryStorageAllocator(allocator);
    }

    //! The allocator set with setTemporaryStorageAllocator(), or nullptr.
    IGpuAllocator* getTemporaryStorageAllocator() const noexcept { return mImpl->getTemporaryStorageAllocator(); }

    //! Enqueues the engine on stream.
    bool enqueueV3(cudaStream_t stream) noexcept { return mImpl->enqueueV3(stream); }

    //! The L2 bytes this context may keep persistent (default 0).
    void setPersistentCacheLimit(size_t size) noexcept { mImpl->setPersistentCacheLimit(size); }

    //! The limit set with setPersistentCacheLimit().
    size_t getPersistentCacheLimit() const noexcept { return mImpl->getPersistentCacheLimit(); }

    //! The detail of NVTX ranges; at most the engine's profiling verbosity.
    bool setNvtxVerbosity(ProfilingVerbosity verbosity) noexcept { return mImpl->setNvtxVerbosity(verbosity); }

    //! The setting of setNvtxVerbosity().
    ProfilingVerbosity getNvtxVerbosity() const noexcept { return mImpl->getNvtxVerbosity(); }

    //! Streams for the engine's auxiliary streams in the next enqueueV3().
    void setAuxStreams(cudaStream_t* auxStreams, int32_t nbStreams) noexcept
    {
        mImpl->setAuxStreams(auxStreams, nbStreams);
    }

    //! Receives the debug tensors; nullptr detaches.
    bool setDebugListener(IDebugListener* listener) noexcept { return mImpl->setDebugListener(listener); }

    //! The listener set with setDebugListener(), or nullptr.
    IDebugListener* getDebugListener() noexcept { return mImpl->getDebugListener(); }

    //! Turns reporting of debug tensor name on or off.
    bool setTensorDebugState(char const* name, bool flag) noexcept { return mImpl->setTensorDebugState(name, flag); }

    //! Whether debug tensor name is reported.
    bool getDebugState(char const* name) const noexcept { return mImpl->getDebugState(name); }

    //! The runtime config the context was created with.
    IRuntimeConfig* getRuntimeConfig() const noexcept { return mImpl->getRuntimeConfig(); }

    //! Turns reporting of every debug tensor on or off.
    bool setAllTensorsDebugState(bool flag) noexcept { return mImpl->setAllTensorsDebugState(flag); }

    //! Turns reporting of the unfused tensors on or off.
    bool setUnfusedTensorsDebugState(bool flag) noexcept { return mImpl->setUnfusedTensorsDebugState(flag); }

    //! The setting of setUnfusedTensorsDebugState().
    bool getUnfusedTensorsDebugState() const noexcept { return mImpl->getUnfusedTensorsDebugState(); }

    //! The NCCL communicator (an initialized ncclComm_t) multi-device layers use; it must outlive the context.
    bool setCommunicator(void* communicator) noexcept { return mImpl->setCommunicator(communicator); }

protected:
    apiv::VExecutionContext* mImpl;
};

//! How IEngineInspector formats layer information.
enum class LayerInformationFormat : int32_t
{
    kONELINE = 0, //!< One line per layer.
    kJSON = 1,    //!< JSON.
};

template <>
constexpr inline int32_t EnumMax<LayerInformationFormat>() noexcept
{
    return 2;
}

//! Describes an engine's layers, with concrete shapes when a context is attached. Made by
//! ICudaEngine::createEngineInspector(); delete when done.
class IEngineInspector : public INoCopy
{
public:
    virtual ~IEngineInspector() noexcept = default;

    //! Takes shapes and formats from context (nullptr detaches).
    bool setExecutionContext(IExecutionContext const* context) noexcept { return mImpl->setExecutionContext(context); }

    //! The context set with setExecutionContext(), or nullptr.
    IExecutionContext const* getExecutionContext() const noexcept { return mImpl->getExecutionContext(); }

    //! One layer's description; valid until the next call.
    char const* getLayerInformation(int32_t layerIndex, LayerInformationFormat format) const noexcept
    {
        return mImpl->getLayerInformation(layerIndex, format);
    }

    //! Every layer's description; valid until the next call.
    char const* getEngineInformation(LayerInformationFormat format) const noexcept
    {
        return mImpl->getEngineInformation(format);
    }

    //! Sends errors to recorder as well as to the logger; nullptr detaches.
    void setErrorRecorder(IErrorRecorder* recorder) noexcept { mImpl->setErrorRecorder(recorder); }

    //! The recorder set with setErrorRecorder(), or nullptr.
    IErrorRecorder* getErrorRecorder() const noexcept { return mImpl->getErrorRecorder(); }

protected:
    apiv::VEngineInspector* mImpl;
};

KILN_IGNORE_DEPRECATED_END

} // namespace nvinfer1

//! The process-wide plugin registry.
extern "C" TENSORRTAPI nvinfer1::IPluginRegistry* getPluginRegistry() noexcept;

//! The library's logger: the one given to the most recent builder or runtime, or a default that prints
//! warnings and errors to stderr.
extern "C" TENSORRTAPI nvinfer1::ILogger* getLogger() noexcept;

//! The library's runtime factory behind createInferRuntime(): logger is an ILogger*, version NV_TENSORRT_VERSION;
//! returns an IRuntime*, or nullptr.
extern "C" TENSORRTAPI void* createInferRuntime_INTERNAL(void* logger, int32_t version) noexcept;

//! The library's refitter factory behind createInferRefitter(): engine is an ICudaEngine*, logger an ILogger*,
//! version NV_TENSORRT_VERSION; returns an IRefitter*, or nullptr.
extern "C" TENSORRTAPI void* createInferRefitter_INTERNAL(void* engine, void* logger, int32_t version) noexcept;

namespace nvinfer1
{
// An unnamed namespace: each translation unit has its own copy, tied to the header version it was compiled with.
namespace
{

//! A new runtime that logs to logger; delete it when done. nullptr on failure.
inline IRuntime* createInferRuntime(ILogger& logger) noexcept
{
    return static_cast<IRuntime*>(createInferRuntime_INTERNAL(&logger, NV_TENSORRT_VERSION));
}

//! A new refitter for engine that logs to logger; delete it before the engine. nullptr (with an error) when the
//! engine was not built refittable.
inline IRefitter* createInferRefitter(ICudaEngine& engine, ILogger& logger) noexcept
{
    return static_cast<IRefitter*>(createInferRefitter_INTERNAL(&engine, &logger, NV_TENSORRT_VERSION));
}

} // namespace
} // namespace nvinfer1

namespace nvinfer1
{

KILN_IGNORE_DEPRECATED_BEGIN

//! Registers a default-constructed T in the process-wide registry under namespace "" when constructed.
template <typename T>
class PluginRegistrar
{
public:
    PluginRegistrar() { getPluginRegistry()->registerCreator(instance, ""); }

private:
    T instance{};
};

KILN_IGNORE_DEPRECATED_END

} // namespace nvinfer1

//! Registers creator class `name` when the library or program that contains it is loaded.
#define REGISTER_TENSORRT_PLUGIN(name)                                                                                 \
    static nvinfer1::PluginRegistrar<name> pluginRegistrar##name {}

namespace nvinfer1
{

KILN_IGNORE_DEPRECATED_BEGIN

//! Finds the logger of the library that loaded a plugin library; given to its setLoggerFinder entry point.
class ILoggerFinder
{
public:
    //! The current logger; call it from the thread that runs the plugin method.
    virtual ILogger* findLogger() = 0;

protected:
    virtual ~ILoggerFinder() = default;
};

namespace v_1_0
{
//! A GPU allocator whose only required methods are the stream-ordered ones.
class IGpuAsyncAllocator : public IGpuAllocator
{
public:
    IGpuAsyncAllocator() = default;
    ~IGpuAsyncAllocator() override = default;

    //! size bytes aligned to alignment, ordered on stream, or nullptr.
    void* allocateAsync(uint64_t const size, uint64_t const alignment, AllocatorFlags const flags,
        cudaStream_t /*stream*/) noexcept override = 0;

    //! Frees memory ordered on stream; returns true on success.
    bool deallocateAsync(void* const memory, cudaStream_t /*stream*/) noexcept override = 0;

    //! Forwards to allocateAsync on the default stream.
    TRT_DEPRECATED void* allocate(
        uint64_t const size, uint64_t const alignment, AllocatorFlags const flags) noexcept override
    {
        return allocateAsync(size, alignment, flags, nullptr);
    }

    //! Forwards to deallocateAsync on the default stream.
    TRT_DEPRECATED bool deallocate(void* const memory) noexcept override { return deallocateAsync(memory, nullptr); }

    //! Reports {"IGpuAllocator", 1, 0}.
    InterfaceInfo getInterfaceInfo() const noexcept override { return {"IGpuAllocator", 1, 0}; }

protected:
    IGpuAsyncAllocator(IGpuAsyncAllocator const&) = default;
    IGpuAsyncAllocator(IGpuAsyncAllocator&&) = default;
    IGpuAsyncAllocator& operator=(IGpuAsyncAllocator const&) & = default;
    IGpuAsyncAllocator& operator=(IGpuAsyncAllocator&&) & = default;
};

//! The factory of a V3 plugin, registered in the plugin registry.
class IPluginCreatorV3One : public IPluginCreatorInterface
{
public:
    //! Reports {"PLUGIN CREATOR_V3ONE", 1, 0}.
    InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"PLUGIN CREATOR_V3ONE", 1, 0}; }

    //! A new plugin from fc: attributes for kBUILD, getFieldsToSerialize() output for kRUNTIME. nullptr on failure.
    virtual IPluginV3* createPlugin(
        AsciiChar const* name, PluginFieldCollection const* fc, TensorRTPhase phase) noexcept = 0;

    //! The fields createPlugin() understands at build time.
    virtual PluginFieldCollection const* getFieldNames() noexcept = 0;

    //! The plugin name this creator makes.
    virtual AsciiChar const* getPluginName() const noexcept = 0;
    //! The plugin version this creator makes.
    virtual AsciiChar const* getPluginVersion() const noexcept = 0;
    //! The namespace this creator reports.
    virtual AsciiChar const* getPluginNamespace() const noexcept = 0;

    IPluginCreatorV3One() = default;
    virtual ~IPluginCreatorV3One() = default;

protected:
    IPluginCreatorV3One(IPluginCreatorV3One const&) = default;
    IPluginCreatorV3One(IPluginCreatorV3One&&) = default;
    IPluginCreatorV3One& operator=(IPluginCreatorV3One const&) & = default;
    IPluginCreatorV3One& operator=(IPluginCreatorV3One&&) & = default;
};
} // namespace v_1_0

using IGpuAsyncAllocator = v_1_0::IGpuAsyncAllocator;   //!< The stream-ordered GPU allocator interface.
using IPluginCreatorV3One = v_1_0::IPluginCreatorV3One; //!< The V3 plugin creator.

KILN_IGNORE_DEPRECATED_END

} // namespace nvinfer1

extern "C"
{
    //! The major version of the loaded library's TensorRT compatibility (10).
    TENSORRTAPI int32_t getInferLibMajorVersion() noexcept;
    //! The minor version (16).
    TENSORRTAPI int32_t getInferLibMinorVersion() noexcept;
    //! The patch version (0).
    TENSORRTAPI int32_t getInferLibPatchVersion() noexcept;
    //! The build number (72).
    TENSORRTAPI int32_t getInferLibBuildVersion() noexcept;
}

#endif // NV_INFER_RUNTIME_H
