/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * NvInferRuntimePlugin.h -- the tensor descriptor plugins receive, and the legacy (deprecated, still supported)
 * V2 plugin family: IPluginV2, IPluginV2Ext, IPluginV2IOExt and their creator IPluginCreator.
 *
 * Do not include this file directly; include NvInferRuntime.h. New plugins should implement IPluginV3 instead;
 * deriving from a V2 class compiles with a deprecation warning, as it does with TensorRT 10:
 *
 *     class MyOldPlugin : public nvinfer1::IPluginV2IOExt { ... };   // warns: deprecated
 *
 * The engine tells V2 levels apart by the top byte of getTensorRTVersion() (see PluginVersion), never by RTTI.
 */

#ifndef NV_INFER_RUNTIME_PLUGIN_H
#define NV_INFER_RUNTIME_PLUGIN_H

#define NV_INFER_INTERNAL_INCLUDE 1
#include "NvInferPluginBase.h"
#undef NV_INFER_INTERNAL_INCLUDE

namespace nvinfer1
{

enum class TensorFormat : int32_t;
namespace v_1_0
{
class IGpuAllocator;
}
using IGpuAllocator = v_1_0::IGpuAllocator;

using PluginFormat = TensorFormat; //!< The format type V2 plugins negotiate.

//! The bit that marks a plugin or creator version as implemented in Python.
static constexpr int32_t kPLUGIN_VERSION_PYTHON_BIT = 0x40;

//! What a plugin learns about one of its inputs or outputs at configuration and execution time.
struct PluginTensorDesc
{
    Dims dims;           //!< The shape (at build time -1 marks a run-time extent).
    DataType type;       //!< The element type; never kBOOL or kUINT8.
    TensorFormat format; //!< The memory layout.
    float scale;         //!< The quantization scale of INT8 and FP8 tensors.
};

KILN_IGNORE_DEPRECATED_BEGIN

//! The V2 interface level a plugin implements; the top byte of IPluginV2::getTensorRTVersion().
enum class PluginVersion : uint8_t
{
    kV2 TRT_DEPRECATED_ENUM = 0,                                                //!< IPluginV2.
    kV2_EXT TRT_DEPRECATED_ENUM = 1,                                            //!< IPluginV2Ext.
    kV2_IOEXT TRT_DEPRECATED_ENUM = 2,                                          //!< IPluginV2IOExt.
    kV2_DYNAMICEXT TRT_DEPRECATED_ENUM = 3,                                     //!< IPluginV2DynamicExt.
    kV2_DYNAMICEXT_PYTHON TRT_DEPRECATED_ENUM = kPLUGIN_VERSION_PYTHON_BIT | 3, //!< IPluginV2DynamicExt in Python.
};

//! The V2 creator level.
enum class PluginCreatorVersion : int32_t
{
    kV1 TRT_DEPRECATED_ENUM = 0,                                 //!< IPluginCreator.
    kV1_PYTHON TRT_DEPRECATED_ENUM = kPLUGIN_VERSION_PYTHON_BIT, //!< IPluginCreator in Python.
};

//! The first V2 plugin interface: implicit batch, one type and format for all tensors. Deprecated.
class TRT_DEPRECATED IPluginV2
{
public:
    //! The API level and TensorRT version the plugin was compiled against. Do not override.
    virtual int32_t getTensorRTVersion() const noexcept { return NV_TENSORRT_VERSION; }

    //! The plugin's type name; matches its creator's getPluginName().
    virtual AsciiChar const* getPluginType() const noexcept = 0;
    //! The plugin's version; matches its creator's getPluginVersion().
    virtual AsciiChar const* getPluginVersion() const noexcept = 0;
    //! The number of outputs.
    virtual int32_t getNbOutputs() const noexcept = 0;
    //! The shape of output index, without the batch dimension.
    virtual Dims getOutputDimensions(int32_t index, Dims const* inputs, int32_t nbInputDims) noexcept = 0;
    //! Whether the plugin runs with this type and format.
    virtual bool supportsFormat(DataType type, PluginFormat format) const noexcept = 0;
    //! Fixes shapes, type and format before initialize().
    virtual void configureWithFormat(Dims const* inputDims, int32_t nbInputs, Dims const* outputDims, int32_t nbOutputs,
        DataType type, PluginFormat format, int32_t maxBatchSize) noexcept = 0;
    //! Acquires execution resources; returns 0 on success.
    virtual int32_t initialize() noexcept = 0;
    //! Frees what initialize() acquired.
    virtual void terminate() noexcept = 0;
    //! Scratch bytes enqueue() needs for up to maxBatchSize.
    virtual size_t getWorkspaceSize(int32_t maxBatchSize) const noexcept = 0;
    //! Runs the layer for batchSize samples on stream; returns 0 on success.
    virtual int32_t enqueue(int32_t batchSize, void const* const* inputs, void* const* outputs, void* workspace,
        cudaStream_t stream) noexcept = 0;
    //! The number of bytes serialize() writes.
    virtual size_t getSerializationSize() const noexcept = 0;
    //! Writes getSerializationSize() bytes to buffer.
    virtual void serialize(void* buffer) const noexcept = 0;
    //! Destroys the plugin; the engine frees V2 plugins with this, never with delete.
    virtual void destroy() noexcept = 0;
    //! A copy in the same configured state; nullptr on failure.
    virtual IPluginV2* clone() const noexcept = 0;
    //! Sets the namespace the plugin reports.
    virtual void setPluginNamespace(AsciiChar const* pluginNamespace) noexcept = 0;
    //! The namespace of the plugin's creator.
    virtual AsciiChar const* getPluginNamespace() const noexcept = 0;

    IPluginV2() = default;
    virtual ~IPluginV2() noexcept = default;

protected:
    IPluginV2(IPluginV2 const&) = default;
    IPluginV2(IPluginV2&&) = default;
    IPluginV2& operator=(IPluginV2 const&) & = default;
    IPluginV2& operator=(IPluginV2&&) & = default;
};

//! IPluginV2 plus output types, per-tensor configuration and context attachment. Deprecated.
class TRT_DEPRECATED IPluginV2Ext : public IPluginV2
{
public:
    //! The type of output index given the input types.
    virtual nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept = 0;

    //! Whether an output is the same for every batch item (implicit batch only).
    TRT_DEPRECATED virtual bool isOutputBroadcastAcrossBatch(
        int32_t outputIndex, bool const* inputIsBroadcasted, int32_t nbInputs) const noexcept = 0;

    //! Whether the plugin can take an input broadcast across the batch (implicit batch only).
    TRT_DEPRECATED virtual bool canBroadcastInputAcrossBatch(int32_t inputIndex) const noexcept = 0;

    //! Fixes shapes, types and format before initialize().
    virtual void configurePlugin(Dims const* inputDims, int32_t nbInputs, Dims const* outputDims, int32_t nbOutputs,
        DataType const* inputTypes, DataType const* outputTypes, bool const* inputIsBroadcast,
        bool const* outputIsBroadcast, PluginFormat floatFormat, int32_t maxBatchSize) noexcept = 0;

    IPluginV2Ext() = default;
    ~IPluginV2Ext() override = default;

    //! Gives the plugin the execution context's handles and allocator (the handles may be null).
    virtual void attachToContext(
        cudnnContext* /*cudnn*/, cublasContext* /*cublas*/, IGpuAllocator* /*allocator*/) noexcept
    {
    }

    //! Called when the plugin leaves its execution context.
    virtual void detachFromContext() noexcept {}

    //! A copy in the same configured state; nullptr on failure.
    IPluginV2Ext* clone() const noexcept override = 0;

protected:
    IPluginV2Ext(IPluginV2Ext const&) = default;
    IPluginV2Ext(IPluginV2Ext&&) = default;
    IPluginV2Ext& operator=(IPluginV2Ext const&) & = default;
    IPluginV2Ext& operator=(IPluginV2Ext&&) & = default;

    //! Reports the kV2_EXT level.
    int32_t getTensorRTVersion() const noexcept override
    {
        return static_cast<int32_t>((static_cast<uint32_t>(PluginVersion::kV2_EXT) << 24U)
            | (static_cast<uint32_t>(NV_TENSORRT_VERSION) & 0xFFFFFFU));
    }

    //! Replaced by configurePlugin().
    void configureWithFormat(Dims const* /*inputDims*/, int32_t /*nbInputs*/, Dims const* /*outputDims*/,
        int32_t /*nbOutputs*/, DataType /*type*/, PluginFormat /*format*/, int32_t /*maxBatchSize*/) noexcept override
    {
    }
};

//! IPluginV2Ext with a type and format per tensor, negotiated position by position. Deprecated.
class TRT_DEPRECATED IPluginV2IOExt : public IPluginV2Ext
{
public:
    //! Fixes each tensor's shape, type and format before initialize().
    virtual void configurePlugin(
        PluginTensorDesc const* in, int32_t nbInput, PluginTensorDesc const* out, int32_t nbOutput) noexcept = 0;

    //! Whether inOut[pos] may have its type and format, given inOut[0..pos-1]; inputs first, then outputs.
    virtual bool supportsFormatCombination(
        int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) const noexcept = 0;

    IPluginV2IOExt() = default;
    ~IPluginV2IOExt() override = default;

protected:
    IPluginV2IOExt(IPluginV2IOExt const&) = default;
    IPluginV2IOExt(IPluginV2IOExt&&) = default;
    IPluginV2IOExt& operator=(IPluginV2IOExt const&) & = default;
    IPluginV2IOExt& operator=(IPluginV2IOExt&&) & = default;

    //! Reports the kV2_IOEXT level.
    int32_t getTensorRTVersion() const noexcept override
    {
        return static_cast<int32_t>((static_cast<uint32_t>(PluginVersion::kV2_IOEXT) << 24U)
            | (static_cast<uint32_t>(NV_TENSORRT_VERSION) & 0xFFFFFFU));
    }

private:
    // The older configuration calls are replaced; overriding them is a compile error.
    void configurePlugin(Dims const*, int32_t, Dims const*, int32_t, DataType const*, DataType const*, bool const*,
        bool const*, PluginFormat, int32_t) noexcept final
    {
    }

    bool supportsFormat(DataType, PluginFormat) const noexcept final { return false; }
};

namespace v_1_0
{
//! The factory of a V2 plugin, registered in the plugin registry. Deprecated.
class TRT_DEPRECATED IPluginCreator : public IPluginCreatorInterface
{
public:
    //! The plugin name this creator makes.
    virtual AsciiChar const* getPluginName() const noexcept = 0;
    //! The plugin version this creator makes.
    virtual AsciiChar const* getPluginVersion() const noexcept = 0;
    //! The fields createPlugin() understands.
    virtual PluginFieldCollection const* getFieldNames() noexcept = 0;
    //! A new plugin configured from fc; nullptr on failure.
    virtual IPluginV2* createPlugin(AsciiChar const* name, PluginFieldCollection const* fc) noexcept = 0;
    //! A plugin restored from the bytes its serialize() wrote; nullptr on failure.
    virtual IPluginV2* deserializePlugin(
        AsciiChar const* name, void const* serialData, size_t serialLength) noexcept = 0;
    //! Sets the namespace this creator and its plugins report.
    virtual void setPluginNamespace(AsciiChar const* pluginNamespace) noexcept = 0;
    //! The namespace this creator reports.
    virtual AsciiChar const* getPluginNamespace() const noexcept = 0;

    IPluginCreator() = default;
    ~IPluginCreator() override = default;

protected:
    IPluginCreator(IPluginCreator const&) = default;
    IPluginCreator(IPluginCreator&&) = default;
    IPluginCreator& operator=(IPluginCreator const&) & = default;
    IPluginCreator& operator=(IPluginCreator&&) & = default;

public:
    //! Reports {"PLUGIN CREATOR_V1", 1, 0}.
    InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"PLUGIN CREATOR_V1", 1, 0}; }
};
} // namespace v_1_0

using IPluginCreator = v_1_0::IPluginCreator; //!< The V2 plugin creator.

KILN_IGNORE_DEPRECATED_END

} // namespace nvinfer1

#endif // NV_INFER_RUNTIME_PLUGIN_H
