/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * kiln/plugin_quick.h -- TensorRT's "Quick" plugin interfaces, the C++ side of the tensorrt.plugin decorator package
 * (quickly deployable plugins). TensorRT declares them for its Python bindings; they are not part of its public C++
 * API, and TensorRT's own package (and kiln's Python module, which binds them as trt.IPluginV3QuickCore, ...) is their
 * main user. kiln's engine recognises them by their interface info, as TensorRT does:
 *
 *     kCORE    "PLUGIN_V3QUICK_CORE" 1.0       IPluginV3QuickCore      name, version, namespace
 *     kBUILD   "PLUGIN_V3QUICK_BUILD" 1.0      IPluginV3QuickBuild     types, shapes, format combinations, tactics
 *     kBUILD   "PLUGIN_V3QUICKAOT_BUILD" 1.0   IPluginV3QuickAOTBuild  a compiled kernel instead of a runtime
 *     kRUNTIME "PLUGIN_V3QUICK_RUNTIME" 1.0    IPluginV3QuickRuntime   enqueue with strides, fields to serialize
 *     creator  "PLUGIN CREATOR_V3QUICK" 1.0    IPluginCreatorV3Quick   createPlugin(name, namespace, fc, phase,
 * request)
 *
 * A JIT plugin answers kCORE, kBUILD (QuickBuild) and kRUNTIME; an AOT plugin answers kCORE and kBUILD (QuickAOTBuild)
 * and has no runtime capability: the engine keeps its kernel (PTX), launch parameters and scalar arguments and
 * launches it itself (kiln/plugin_aot.h says how), so its plan runs without the plugin or its creator.
 *
 *     class AddOne : public nvinfer1::IPluginV3, public nvinfer1::IPluginV3QuickCore,
 *                    public nvinfer1::IPluginV3QuickBuild, public nvinfer1::IPluginV3QuickRuntime
 *     {
 *         nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override
 *         {
 *             if (type == nvinfer1::PluginCapabilityType::kCORE)
 *                 return static_cast<nvinfer1::IPluginV3QuickCore*>(this);
 *             // kBUILD: IPluginV3QuickBuild, kRUNTIME: IPluginV3QuickRuntime, nullptr for anything else
 *         }
 *         int32_t getSupportedFormatCombinations(nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
 *             int32_t nbOutputs, nvinfer1::PluginTensorDesc* combinations, int32_t nbCombinations) noexcept override
 *         {
 *             // nbCombinations groups of nbInputs + nbOutputs descriptors (type and format of each I/O)
 *         }
 *         // ... the other methods
 *     };
 *
 * On kiln's host backend a Quick JIT plugin runs through kiln::IPluginV3QuickHost below (a public base of the
 * plugin's class, found through RTTI), which has the signature of IPluginV3QuickRuntime::enqueue without the stream.
 *
 * The header needs C++14 and no RTTI.
 */

#ifndef KILN_PLUGIN_QUICK_H
#define KILN_PLUGIN_QUICK_H

#include "NvInferRuntime.h"

#include <cstdint>

namespace nvinfer1
{

//! The kind of an extra scalar kernel argument of an AOT Quick plugin.
enum class PluginArgType : int32_t
{
    kINT = 0, //!< An integer.
};

//! The width of an extra scalar kernel argument of an AOT Quick plugin.
enum class PluginArgDataType : int32_t
{
    kINT8 = 0,
    kINT16 = 1,
    kINT32 = 2,
};

//! A symbolic scalar: the launch parameters and extra arguments of an AOT Quick plugin. The plugin implements it.
class ISymExpr
{
public:
    //! The scalar's kind.
    virtual PluginArgType getType() const noexcept = 0;
    //! The scalar's width.
    virtual PluginArgDataType getDataType() const noexcept = 0;
    //! The expression: an IDimensionExpr const* of the exprBuilder of the getLaunchParams() call, as a void*.
    virtual void* getExpr() noexcept = 0;

protected:
    ~ISymExpr() noexcept = default; //!< Not deleted through this interface (it has no virtual destructor).
};

//! What the engine implements behind ISymExprs.
class ISymExprsImpl
{
public:
    virtual ISymExpr* getSymExpr(int32_t index) const noexcept = 0;
    virtual bool setSymExpr(int32_t index, ISymExpr* symExpr) noexcept = 0;
    virtual int32_t getNbSymExprs() const noexcept = 0;
    virtual bool setNbSymExprs(int32_t count) noexcept = 0;
    virtual ~ISymExprsImpl() noexcept = default;
};

//! A list of symbolic scalars the plugin fills (the extra kernel arguments); the engine implements it.
class ISymExprs
{
public:
    //! The expression at index, or nullptr when index is out of range or unset.
    ISymExpr* getSymExpr(int32_t index) const noexcept { return mImpl->getSymExpr(index); }
    //! Sets the expression at index; false when index is out of range.
    bool setSymExpr(int32_t index, ISymExpr* symExpr) noexcept { return mImpl->setSymExpr(index, symExpr); }
    //! The list's length.
    int32_t getNbSymExprs() const noexcept { return mImpl->getNbSymExprs(); }
    //! Sets the list's length; false when count is negative or too large.
    bool setNbSymExprs(int32_t count) noexcept { return mImpl->setNbSymExprs(count); }

protected:
    ISymExprsImpl* mImpl{nullptr};
    virtual ~ISymExprs() noexcept = default;
};

//! What an IPluginCreatorV3Quick is asked to make: a JIT or an AOT plugin.
enum class QuickPluginCreationRequest : int32_t
{
    kUNKNOWN = 0,    //!< No preference.
    kPREFER_JIT = 1, //!< JIT when the plugin has both.
    kPREFER_AOT = 2, //!< AOT when the plugin has both.
    kSTRICT_JIT = 3, //!< JIT, or fail.
    kSTRICT_AOT = 4, //!< AOT, or fail.
};

//! What the engine implements behind IKernelLaunchParams.
class IKernelLaunchParamsImpl
{
public:
    virtual ISymExpr* getGridX() noexcept = 0;
    virtual bool setGridX(ISymExpr* gridX) noexcept = 0;
    virtual ISymExpr* getGridY() noexcept = 0;
    virtual bool setGridY(ISymExpr* gridY) noexcept = 0;
    virtual ISymExpr* getGridZ() noexcept = 0;
    virtual bool setGridZ(ISymExpr* gridZ) noexcept = 0;
    virtual ISymExpr* getBlockX() noexcept = 0;
    virtual bool setBlockX(ISymExpr* blockX) noexcept = 0;
    virtual ISymExpr* getBlockY() noexcept = 0;
    virtual bool setBlockY(ISymExpr* blockY) noexcept = 0;
    virtual ISymExpr* getBlockZ() noexcept = 0;
    virtual bool setBlockZ(ISymExpr* blockZ) noexcept = 0;
    virtual ISymExpr* getSharedMem() noexcept = 0;
    virtual bool setSharedMem(ISymExpr* sharedMem) noexcept = 0;
    virtual ~IKernelLaunchParamsImpl() noexcept = default;
};

//! The launch of an AOT plugin's kernel, as symbolic scalars the plugin sets (unset: 1, and 0 shared memory bytes);
//! the engine implements it.
class IKernelLaunchParams
{
public:
    ISymExpr* getGridX() noexcept { return mImpl->getGridX(); }
    bool setGridX(ISymExpr* gridX) noexcept { return mImpl->setGridX(gridX); }
    ISymExpr* getGridY() noexcept { return mImpl->getGridY(); }
    bool setGridY(ISymExpr* gridY) noexcept { return mImpl->setGridY(gridY); }
    ISymExpr* getGridZ() noexcept { return mImpl->getGridZ(); }
    bool setGridZ(ISymExpr* gridZ) noexcept { return mImpl->setGridZ(gridZ); }
    ISymExpr* getBlockX() noexcept { return mImpl->getBlockX(); }
    bool setBlockX(ISymExpr* blockX) noexcept { return mImpl->setBlockX(blockX); }
    ISymExpr* getBlockY() noexcept { return mImpl->getBlockY(); }
    bool setBlockY(ISymExpr* blockY) noexcept { return mImpl->setBlockY(blockY); }
    ISymExpr* getBlockZ() noexcept { return mImpl->getBlockZ(); }
    bool setBlockZ(ISymExpr* blockZ) noexcept { return mImpl->setBlockZ(blockZ); }
    //! Dynamic shared memory per block, in bytes.
    ISymExpr* getSharedMem() noexcept { return mImpl->getSharedMem(); }
    bool setSharedMem(ISymExpr* sharedMem) noexcept { return mImpl->setSharedMem(sharedMem); }

protected:
    IKernelLaunchParamsImpl* mImpl{nullptr};
    virtual ~IKernelLaunchParams() noexcept = default;
};

namespace v_1_0
{

//! The core capability of a Quick plugin: {"PLUGIN_V3QUICK_CORE", 1, 0}.
class IPluginV3QuickCore : public IPluginCapability
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"PLUGIN_V3QUICK_CORE", 1, 0}; }

    virtual AsciiChar const* getPluginName() const noexcept = 0;
    virtual AsciiChar const* getPluginVersion() const noexcept = 0;
    virtual AsciiChar const* getPluginNamespace() const noexcept = 0;
};

//! The build capability of a Quick plugin: {"PLUGIN_V3QUICK_BUILD", 1, 0}. Unlike IPluginV3OneBuild it lists its
//! format combinations instead of accepting them one position at a time, learns the inputs' ranks with their types,
//! and has no workspace.
class IPluginV3QuickBuild : public IPluginCapability
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"PLUGIN_V3QUICK_BUILD", 1, 0}; }

    //! Writes the nbOutputs output types for inputs of inputTypes and inputRanks; 0 on success.
    virtual int32_t getOutputDataTypes(DataType* outputTypes, int32_t nbOutputs, DataType const* inputTypes,
        int32_t const* inputRanks, int32_t nbInputs) const noexcept = 0;

    //! Writes the outputs' extents as expressions of exprBuilder over the inputs' (as IPluginV3OneBuild); 0 on success.
    virtual int32_t getOutputShapes(DimsExprs const* inputs, int32_t nbInputs, DimsExprs const* shapeInputs,
        int32_t nbShapeInputs, DimsExprs* outputs, int32_t nbOutputs, IExprBuilder& exprBuilder) noexcept = 0;

    //! Tells the plugin the chosen types and formats and the profile's extents (as IPluginV3OneBuild); 0 on success.
    virtual int32_t configurePlugin(DynamicPluginTensorDesc const* in, int32_t nbInputs,
        DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept = 0;

    //! How many type and format combinations the plugin supports for the I/O described by inOut.
    virtual int32_t getNbSupportedFormatCombinations(
        DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept = 0;

    //! Writes those combinations, nbFormatCombinations groups of nbInputs + nbOutputs descriptors (type and format
    //! matter); called right after getNbSupportedFormatCombinations() with the same inOut. 0 on success.
    virtual int32_t getSupportedFormatCombinations(DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs, PluginTensorDesc* supportedCombinations, int32_t nbFormatCombinations) noexcept = 0;

    //! The number of outputs.
    virtual int32_t getNbOutputs() const noexcept = 0;

    //! The input that output outputIndex aliases (shares memory with), or -1.
    virtual int32_t getAliasedInput(int32_t /*outputIndex*/) noexcept { return -1; }

    //! Writes the custom tactics for the combination of the latest configurePlugin(); 0 on success.
    virtual int32_t getValidTactics(int32_t* /*tactics*/, int32_t /*nbTactics*/) noexcept { return 0; }

    //! How many custom tactics getValidTactics() writes (0: the default tactic only).
    virtual int32_t getNbTactics() noexcept { return 0; }

    //! A suffix of the plugin's timing-cache key, or nullptr.
    virtual char const* getTimingCacheID() noexcept { return nullptr; }

    //! A text describing the plugin's configuration, or nullptr.
    virtual char const* getMetadataString() noexcept { return nullptr; }
};

//! The build capability of an AOT Quick plugin: {"PLUGIN_V3QUICKAOT_BUILD", 1, 0}. The engine asks, for the chosen
//! types, formats and tactic (set with setTactic() first), for the kernel's launch and then the kernel itself.
class IPluginV3QuickAOTBuild : public IPluginV3QuickBuild
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"PLUGIN_V3QUICKAOT_BUILD", 1, 0}; }

    //! Sets the launch (grid, block, shared memory) and the extra scalar arguments as expressions of exprBuilder over
    //! the inputs' extents, for the I/O of inOut and the tactic of the latest setTactic(); 0 on success.
    virtual int32_t getLaunchParams(DimsExprs const* inputs, DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs, IKernelLaunchParams* launchParams, ISymExprs* extraArgs,
        IExprBuilder& exprBuilder) noexcept = 0;

    //! Gives the kernel's entry name and its compiled form (PTX) for the I/O of in and out and the tactic of the latest
    //! setTactic(), after getLaunchParams() for them. The strings belong to the plugin. 0 on success.
    virtual int32_t getKernel(PluginTensorDesc const* in, int32_t nbInputs, PluginTensorDesc const* out,
        int32_t nbOutputs, const char** kernelName, char** compiledKernel, int32_t* compiledKernelSize) noexcept = 0;

    //! Chooses the tactic of the next getLaunchParams() and getKernel(); 0 on success.
    virtual int32_t setTactic(int32_t /*tactic*/) noexcept { return 0; }
};

//! The runtime capability of a JIT Quick plugin: {"PLUGIN_V3QUICK_RUNTIME", 1, 0}. There is no attachToContext() nor
//! onShapeChange(): enqueue() receives the counts and each tensor's strides.
class IPluginV3QuickRuntime : public IPluginCapability
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"PLUGIN_V3QUICK_RUNTIME", 1, 0}; }

    //! Chooses the tactic of the next enqueue(); 0 on success.
    virtual int32_t setTactic(int32_t /*tactic*/) noexcept { return 0; }

    //! Runs the plugin on stream: the strides are in elements, per tensor; 0 on success.
    virtual int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, Dims const* inputStrides, Dims const* outputStrides,
        int32_t nbInputs, int32_t nbOutputs, cudaStream_t stream) noexcept = 0;

    //! The fields the plan keeps, from which the creator makes the plugin again; nullptr on failure.
    virtual PluginFieldCollection const* getFieldsToSerialize() noexcept = 0;
};

//! The creator of Quick plugins: {"PLUGIN CREATOR_V3QUICK", 1, 0}.
class IPluginCreatorV3Quick : public IPluginCreatorInterface
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"PLUGIN CREATOR_V3QUICK", 1, 0}; }

    //! A new plugin named name in nspace from fc, for phase, JIT or AOT as quickPluginCreationRequest asks; nullptr
    //! on failure. The caller owns it.
    virtual IPluginV3* createPlugin(AsciiChar const* name, AsciiChar const* nspace, PluginFieldCollection const* fc,
        TensorRTPhase phase, QuickPluginCreationRequest quickPluginCreationRequest) noexcept = 0;

    //! The fields createPlugin() takes at build time.
    virtual PluginFieldCollection const* getFieldNames() noexcept = 0;

    virtual AsciiChar const* getPluginName() const noexcept = 0;
    virtual AsciiChar const* getPluginVersion() const noexcept = 0;
    virtual AsciiChar const* getPluginNamespace() const noexcept = 0;

    IPluginCreatorV3Quick() = default;
    virtual ~IPluginCreatorV3Quick() = default;

protected:
    IPluginCreatorV3Quick(IPluginCreatorV3Quick const&) = default;
    IPluginCreatorV3Quick(IPluginCreatorV3Quick&&) = default;
    IPluginCreatorV3Quick& operator=(IPluginCreatorV3Quick const&) & = default;
    IPluginCreatorV3Quick& operator=(IPluginCreatorV3Quick&&) & = default;
};

} // namespace v_1_0

using IPluginV3QuickCore = v_1_0::IPluginV3QuickCore;         //!< kCORE of Quick plugins.
using IPluginV3QuickBuild = v_1_0::IPluginV3QuickBuild;       //!< kBUILD of JIT Quick plugins.
using IPluginV3QuickAOTBuild = v_1_0::IPluginV3QuickAOTBuild; //!< kBUILD of AOT Quick plugins.
using IPluginV3QuickRuntime = v_1_0::IPluginV3QuickRuntime;   //!< kRUNTIME of JIT Quick plugins.
using IPluginCreatorV3Quick = v_1_0::IPluginCreatorV3Quick;   //!< The creator of Quick plugins.

} // namespace nvinfer1

namespace kiln
{
namespace v_1_0
{

//! kiln's host capability of a JIT Quick plugin: runs the layer on kiln's host backend, where IPluginV3QuickRuntime's
//! enqueue() would run it on a GPU. kiln finds it as a public base of the plugin's class (RTTI) reporting
//! {"KILN_PLUGIN_V3QUICK_HOST", 1, 0}; the host backend refuses a Quick plugin without it, naming the plugin.
class IPluginV3QuickHost : public nvinfer1::IPluginCapability
{
public:
    //! Reports {"KILN_PLUGIN_V3QUICK_HOST", 1, 0}.
    nvinfer1::InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return nvinfer1::InterfaceInfo{"KILN_PLUGIN_V3QUICK_HOST", 1, 0};
    }

    //! enqueue() on host memory, finished when it returns (there is no stream), called after setTactic() as enqueue()
    //! would be; the descriptors, strides and counts are the ones enqueue() would receive. 0 on success.
    virtual int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc,
        nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs,
        nvinfer1::Dims const* inputStrides, nvinfer1::Dims const* outputStrides, int32_t nbInputs,
        int32_t nbOutputs) noexcept = 0;

protected:
    IPluginV3QuickHost() = default;
    IPluginV3QuickHost(IPluginV3QuickHost const&) = default;
    IPluginV3QuickHost(IPluginV3QuickHost&&) = default;
    IPluginV3QuickHost& operator=(IPluginV3QuickHost const&) & = default;
    IPluginV3QuickHost& operator=(IPluginV3QuickHost&&) & = default;
};

} // namespace v_1_0

using IPluginV3QuickHost = v_1_0::IPluginV3QuickHost; //!< The host capability of JIT Quick plugins.

} // namespace kiln

#endif // KILN_PLUGIN_QUICK_H
