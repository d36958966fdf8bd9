/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * NvInfer.h -- the main header of the TensorRT-compatible API: everything in NvInferRuntime.h plus the
 * build-side enums (builder flags, preview features, memory pools, network creation flags), the progress
 * monitor and the timing-cache key types. Applications and plugins usually include only this file:
 *
 *     #include "NvInfer.h"
 *     using namespace nvinfer1;
 *     static_assert(NV_TENSORRT_MAJOR == 10, "kiln implements the TensorRT 10 API");
 *
 * It also declares the classes an application builds a plan with: IBuilder (from createInferBuilder()), IBuilderConfig,
 * INetworkDefinition with ITensor and the layer classes, and ITimingCache. Like the runtime classes they are
 * wrappers whose inline methods forward to NvInferImpl.h's implementation interfaces; only the layers kiln offers
 * so far have classes and add* methods:
 *
 *     std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger)};
 *     std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(
 *         1U << static_cast<uint32_t>(nvinfer1::NetworkDefinitionCreationFlag::kSTRONGLY_TYPED))};
 *     nvinfer1::ITensor* x = network->addInput("x", nvinfer1::DataType::kFLOAT, nvinfer1::Dims{2, {-1, 16}});
 *     network->markOutput(*network->addActivation(*x, nvinfer1::ActivationType::kRELU)->getOutput(0));
 */

#ifndef NV_INFER_H
#define NV_INFER_H

#include "NvInferLegacyDims.h"
#include "NvInferRuntime.h"

namespace nvinfer1
{

KILN_IGNORE_DEPRECATED_BEGIN

//! Options of network creation; combine as (1U << static_cast<uint32_t>(flag)).
enum class NetworkDefinitionCreationFlag : int32_t
{
    kEXPLICIT_BATCH TRT_DEPRECATED_ENUM = 0, //!< Ignored: every network has an explicit batch.
    kSTRONGLY_TYPED = 1,                     //!< Tensor types follow the network, not builder precision flags.
    kPREFER_JIT_PYTHON_PLUGINS = 2,          //!< Prefer just-in-time Python plugin implementations.
    kPREFER_AOT_PYTHON_PLUGINS = 3,          //!< Prefer ahead-of-time Python plugin implementations.
};

template <>
constexpr inline int32_t EnumMax<NetworkDefinitionCreationFlag>() noexcept
{
    return 4;
}

using NetworkDefinitionCreationFlags = uint32_t; //!< A bit mask of NetworkDefinitionCreationFlag.

//! Builder options; combine as (1U << static_cast<uint32_t>(flag)).
enum class BuilderFlag : int32_t
{
    kFP16 TRT_DEPRECATED_ENUM = 0,                          //!< Allow FP16 kernels.
    kINT8 TRT_DEPRECATED_ENUM = 1,                          //!< Allow INT8 kernels.
    kDEBUG = 2,                                             //!< Synchronize after each layer.
    kGPU_FALLBACK = 3,                                      //!< Fall back to the GPU from DLA.
    kREFIT = 4,                                             //!< Make weights refittable.
    kDISABLE_TIMING_CACHE = 5,                              //!< Do not use a timing cache.
    kTF32 = 6,                                              //!< Allow TF32 math for FP32.
    kSPARSE_WEIGHTS = 7,                                    //!< Allow structured-sparsity kernels.
    kSAFETY_SCOPE TRT_DEPRECATED_ENUM = 8,                  //!< Restrict to the safety scope.
    kOBEY_PRECISION_CONSTRAINTS TRT_DEPRECATED_ENUM = 9,    //!< Layer precisions are requirements.
    kPREFER_PRECISION_CONSTRAINTS TRT_DEPRECATED_ENUM = 10, //!< Layer precisions are preferences.
    kDIRECT_IO TRT_DEPRECATED_ENUM = 11,                    //!< No reformatting at engine I/O.
    kREJECT_EMPTY_ALGORITHMS TRT_DEPRECATED_ENUM = 12,      //!< Fail when an algorithm selector rejects all.
    kVERSION_COMPATIBLE = 13,                               //!< Build a version-compatible engine.
    kEXCLUDE_LEAN_RUNTIME = 14,                             //!< Do not embed the lean runtime.
    kFP8 TRT_DEPRECATED_ENUM = 15,                          //!< Allow FP8 kernels.
    kERROR_ON_TIMING_CACHE_MISS = 16,                       //!< Fail when a tactic is not in the timing cache.
    kBF16 TRT_DEPRECATED_ENUM = 17,                         //!< Allow BF16 kernels.
    kDISABLE_COMPILATION_CACHE = 18,                        //!< Do not cache compiled kernels.
    kSTRIP_PLAN = 19,                                       //!< Leave refittable weights out of the plan.
    kWEIGHTLESS TRT_DEPRECATED_ENUM = kSTRIP_PLAN,          //!< Old name of kSTRIP_PLAN.
    kREFIT_IDENTICAL = 20,                                  //!< Refit only with identical weights.
    kWEIGHT_STREAMING = 21,                                 //!< Allow streaming weights from host memory.
    kINT4 TRT_DEPRECATED_ENUM = 22,                         //!< Allow INT4 weight-only kernels.
    kREFIT_INDIVIDUAL = 23,                                 //!< Choose refittable weights one by one.
    kSTRICT_NANS = 24,                                      //!< Keep NaN semantics exact.
    kMONITOR_MEMORY = 25,                                   //!< Track memory during the build.
    kFP4 TRT_DEPRECATED_ENUM = 26,                          //!< Allow FP4 kernels.
    kEDITABLE_TIMING_CACHE = 27,                            //!< Allow editing the timing cache.
    kDISTRIBUTIVE_INDEPENDENCE = 28,                        //!< Keep results independent of batch distribution.
};

template <>
constexpr inline int32_t EnumMax<BuilderFlag>() noexcept
{
    return 29;
}

using BuilderFlags = uint32_t; //!< A bit mask of BuilderFlag.

//! Memory pools whose size the builder config limits.
enum class MemoryPoolType : int32_t
{
    kWORKSPACE = 0,            //!< Scratch memory of layers and plugins.
    kDLA_MANAGED_SRAM = 1,     //!< DLA SRAM.
    kDLA_LOCAL_DRAM = 2,       //!< DLA local DRAM.
    kDLA_GLOBAL_DRAM = 3,      //!< DLA global DRAM.
    kTACTIC_DRAM = 4,          //!< Device memory used while timing tactics.
    kTACTIC_SHARED_MEMORY = 5, //!< Shared memory per block available to tactics.
};

template <>
constexpr inline int32_t EnumMax<MemoryPoolType>() noexcept
{
    return 6;
}

//! Features that are not yet stable; enable with IBuilderConfig::setPreviewFeature.
enum class PreviewFeature : int32_t
{
    kPROFILE_SHARING_0806 TRT_DEPRECATED_ENUM = 0, //!< Always on.
    kALIASED_PLUGIN_IO_10_03 = 1,                  //!< Lets plugins write an output in place of an input.
    kRUNTIME_ACTIVATION_RESIZE_10_10 = 2,          //!< Lets activation memory be resized for shapes.
    kMULTIDEVICE_RUNTIME_10_16 = 3,                //!< Multi-device layers.
};

template <>
constexpr inline int32_t EnumMax<PreviewFeature>() noexcept
{
    return 4;
}

//! Which GPUs an engine may run on besides the one it was built on.
enum class HardwareCompatibilityLevel : int32_t
{
    kNONE = 0,                    //!< Only the build GPU's architecture.
    kAMPERE_PLUS = 1,             //!< Ampere and later.
    kSAME_COMPUTE_CAPABILITY = 2, //!< GPUs of the same compute capability.
};

template <>
constexpr inline int32_t EnumMax<HardwareCompatibilityLevel>() noexcept
{
    return 3;
}

//! The platform an engine will run on.
enum class RuntimePlatform : int32_t
{
    kSAME_AS_BUILD = 0, //!< The build platform.
    kWINDOWS_AMD64 = 1, //!< Windows on x86-64.
};

template <>
constexpr inline int32_t EnumMax<RuntimePlatform>() noexcept
{
    return 2;
}

//! How hard the builder searches for tiled kernels.
enum class TilingOptimizationLevel : int32_t
{
    kNONE = 0,     //!< No tiling search.
    kFAST = 1,     //!< A quick search.
    kMODERATE = 2, //!< A moderate search.
    kFULL = 3,     //!< An exhaustive search.
};

template <>
constexpr inline int32_t EnumMax<TilingOptimizationLevel>() noexcept
{
    return 4;
}

namespace v_1_0
{
//! Receives build progress and may cancel the build; implemented by the application.
class IProgressMonitor : public IVersionedInterface
{
public:
    IProgressMonitor() = default;
    ~IProgressMonitor() noexcept override = default;

    //! Reports {"IProgressMonitor", 1, 0}.
    InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"IProgressMonitor", 1, 0}; }

    //! A phase with nbSteps steps begins inside parentPhase (nullptr at top level).
    virtual void phaseStart(char const* phaseName, char const* parentPhase, int32_t nbSteps) noexcept = 0;

    //! Step step of phaseName is done; return false to cancel the build.
    virtual bool stepComplete(char const* phaseName, int32_t step) noexcept = 0;

    //! phaseName has ended.
    virtual void phaseFinish(char const* phaseName) noexcept = 0;

protected:
    IProgressMonitor(IProgressMonitor const&) = default;
    IProgressMonitor(IProgressMonitor&&) = default;
    IProgressMonitor& operator=(IProgressMonitor const&) & = default;
    IProgressMonitor& operator=(IProgressMonitor&&) & = default;
};

//! The key of one timing-cache entry.
struct TimingCacheKey
{
    uint8_t data[16]; //!< An opaque 128-bit hash.
};

//! The value of one timing-cache entry: the chosen tactic and its time.
struct TimingCacheValue
{
    static constexpr uint64_t kINVALID_TACTIC_HASH = UINT64_MAX; //!< Marks an entry with no tactic.
    uint64_t tacticHash;                                         //!< The tactic's hash.
    float timingMSec;                                            //!< Its time in milliseconds.
};
} // namespace v_1_0

using IProgressMonitor = v_1_0::IProgressMonitor; //!< The progress monitor interface.
using TimingCacheKey = v_1_0::TimingCacheKey;     //!< A timing-cache key.
using TimingCacheValue = v_1_0::TimingCacheValue; //!< A timing-cache value.

KILN_IGNORE_DEPRECATED_END

} // namespace nvinfer1

namespace nvinfer1
{

KILN_IGNORE_DEPRECATED_BEGIN

using QuantizationFlags = uint32_t; //!< A bit mask of QuantizationFlag.

//! Options of implicit INT8 quantization. Deprecated with implicit quantization.
enum class QuantizationFlag : int32_t
{
    kCALIBRATE_BEFORE_FUSION TRT_DEPRECATED_ENUM = 0, //!< Calibrate before layer fusion.
};

template <>
constexpr inline int32_t EnumMax<QuantizationFlag>() noexcept
{
    return 1;
}

//! The kind of a layer, as ILayer::getType() reports it. kiln declares the classes of only some kinds so far.
enum class LayerType : int32_t
{
    kCONVOLUTION = 0,         //!< IConvolutionLayer.
    kCAST = 1,                //!< ICastLayer.
    kACTIVATION = 2,          //!< IActivationLayer.
    kPOOLING = 3,             //!< IPoolingLayer.
    kLRN = 4,                 //!< Local response normalization.
    kSCALE = 5,               //!< Scale, shift and power.
    kSOFTMAX = 6,             //!< ISoftMaxLayer.
    kDECONVOLUTION = 7,       //!< IDeconvolutionLayer.
    kCONCATENATION = 8,       //!< IConcatenationLayer.
    kELEMENTWISE = 9,         //!< IElementWiseLayer.
    kPLUGIN = 10,             //!< The legacy IPlugin layer.
    kUNARY = 11,              //!< IUnaryLayer.
    kPADDING = 12,            //!< Padding.
    kSHUFFLE = 13,            //!< IShuffleLayer.
    kREDUCE = 14,             //!< IReduceLayer.
    kTOPK = 15,               //!< Top-K.
    kGATHER = 16,             //!< IGatherLayer.
    kMATRIX_MULTIPLY = 17,    //!< IMatrixMultiplyLayer.
    kRAGGED_SOFTMAX = 18,     //!< Softmax over ragged sequences.
    kCONSTANT = 19,           //!< IConstantLayer.
    kIDENTITY = 20,           //!< IIdentityLayer.
    kPLUGIN_V2 = 21,          //!< IPluginV2Layer.
    kSLICE = 22,              //!< ISliceLayer.
    kSHAPE = 23,              //!< IShapeLayer.
    kPARAMETRIC_RELU = 24,    //!< Parametric ReLU.
    kRESIZE = 25,             //!< Resize.
    kTRIP_LIMIT = 26,         //!< Loop trip limit.
    kRECURRENCE = 27,         //!< Loop recurrence.
    kITERATOR = 28,           //!< Loop iterator.
    kLOOP_OUTPUT = 29,        //!< Loop output.
    kSELECT = 30,             //!< ISelectLayer.
    kFILL = 31,               //!< IFillLayer.
    kQUANTIZE = 32,           //!< Quantize.
    kDEQUANTIZE = 33,         //!< Dequantize.
    kCONDITION = 34,          //!< Condition of an if-conditional.
    kCONDITIONAL_INPUT = 35,  //!< Input of an if-conditional.
    kCONDITIONAL_OUTPUT = 36, //!< Output of an if-conditional.
    kSCATTER = 37,            //!< Scatter.
    kEINSUM = 38,             //!< IEinsumLayer.
    kASSERTION = 39,          //!< Assertion.
    kONE_HOT = 40,            //!< One-hot.
    kNON_ZERO = 41,           //!< INonZeroLayer.
    kGRID_SAMPLE = 42,        //!< IGridSampleLayer.
    kNMS = 43,                //!< INMSLayer.
    kREVERSE_SEQUENCE = 44,   //!< IReverseSequenceLayer.
    kNORMALIZATION = 45,      //!< Normalization.
    kPLUGIN_V3 = 46,          //!< IPluginV3Layer.
    kSQUEEZE = 47,            //!< Squeeze.
    kUNSQUEEZE = 48,          //!< Unsqueeze.
    kCUMULATIVE = 49,         //!< ICumulativeLayer.
    kDYNAMIC_QUANTIZE = 50,   //!< Dynamic quantize.
    kATTENTION_INPUT = 51,    //!< Input of an attention block.
    kATTENTION_OUTPUT = 52,   //!< Output of an attention block.
    kROTARY_EMBEDDING = 53,   //!< Rotary position embedding.
    kKVCACHE_UPDATE = 54,     //!< KV-cache update.
    kMOE = 55,                //!< Mixture of experts.
    kDIST_COLLECTIVE = 56,    //!< Multi-device collective.
};

template <>
constexpr inline int32_t EnumMax<LayerType>() noexcept
{
    return 57;
}

//! The functions of IActivationLayer.
enum class ActivationType : int32_t
{
    kRELU = 0,              //!< max(x, 0).
    kSIGMOID = 1,           //!< 1 / (1 + exp(-x)).
    kTANH = 2,              //!< tanh(x).
    kLEAKY_RELU = 3,        //!< x if x >= 0, else alpha * x.
    kELU = 4,               //!< x if x >= 0, else alpha * (exp(x) - 1).
    kSELU = 5,              //!< beta * x if x > 0, else beta * alpha * (exp(x) - 1).
    kSOFTSIGN = 6,          //!< x / (1 + |x|).
    kSOFTPLUS = 7,          //!< alpha * log(exp(beta * x) + 1).
    kCLIP = 8,              //!< x clamped to [alpha, beta].
    kHARD_SIGMOID = 9,      //!< alpha * x + beta clamped to [0, 1].
    kSCALED_TANH = 10,      //!< alpha * tanh(beta * x).
    kTHRESHOLDED_RELU = 11, //!< x if x > alpha, else 0.
    kGELU_ERF = 12,         //!< GELU with the error function.
    kGELU_TANH = 13,        //!< GELU with the tanh approximation.
};

namespace impl
{
template <>
struct EnumMaxImpl<ActivationType>
{
    static constexpr int32_t kVALUE = 14;
};
} // namespace impl

//! A tensor of a network definition. Owned by the network.
class ITensor : public INoCopy
{
public:
    //! Names the tensor (copied); I/O tensor names must be unique.
    void setName(char const* name) noexcept { mImpl->setName(name); }

    //! The tensor's name.
    char const* getName() const noexcept { return mImpl->getName(); }

    //! Sets the shape of a network input; other shapes are inferred.
    void setDimensions(Dims const& dimensions) noexcept { mImpl->setDimensions(dimensions); }

    //! The shape, -1 where an extent is known only at run time.
    Dims getDimensions() const noexcept { return mImpl->getDimensions(); }

    //! Sets the element type of a network input or output. Deprecated: strongly typed networks infer types.
    TRT_DEPRECATED void setType(DataType type) noexcept { mImpl->setType(type); }

    //! The element type.
    DataType getType() const noexcept { return mImpl->getType(); }

    //! Sets a symmetric INT8 range. Deprecated: use explicit quantization.
    TRT_DEPRECATED bool setDynamicRange(float min, float max) noexcept { return mImpl->setDynamicRange(min, max); }

    //! Whether the tensor is a network input.
    bool isNetworkInput() const noexcept { return mImpl->isNetworkInput(); }

    //! Whether the tensor is a network output.
    bool isNetworkOutput() const noexcept { return mImpl->isNetworkOutput(); }

    //! Has no effect. Deprecated: there is no implicit batch dimension in TensorRT 10.
    TRT_DEPRECATED void setBroadcastAcrossBatch(bool broadcastAcrossBatch) noexcept
    {
        mImpl->setBroadcastAcrossBatch(broadcastAcrossBatch);
    }

    //! Always false. Deprecated: there is no implicit batch dimension in TensorRT 10.
    TRT_DEPRECATED bool getBroadcastAcrossBatch() const noexcept { return mImpl->getBroadcastAcrossBatch(); }

    //! Where the tensor's data lives.
    TensorLocation getLocation() const noexcept { return mImpl->getLocation(); }

    //! Sets where the tensor's data lives. Deprecated: always kDEVICE in TensorRT 10.
    TRT_DEPRECATED void setLocation(TensorLocation location) noexcept { mImpl->setLocation(location); }

    //! Whether setDynamicRange() was called. Deprecated: use explicit quantization.
    TRT_DEPRECATED bool dynamicRangeIsSet() const noexcept { return mImpl->dynamicRangeIsSet(); }

    //! Undoes setDynamicRange().
    void resetDynamicRange() noexcept { mImpl->resetDynamicRange(); }

    //! The lower end of the dynamic range, or NaN.
    float getDynamicRangeMin() const noexcept { return mImpl->getDynamicRangeMin(); }

    //! The upper end of the dynamic range, or NaN.
    float getDynamicRangeMax() const noexcept { return mImpl->getDynamicRangeMax(); }

    //! Restricts the formats of an I/O tensor to a bit mask of TensorFormat (default: all).
    void setAllowedFormats(TensorFormats formats) noexcept { mImpl->setAllowedFormats(formats); }

    //! The formats set with setAllowedFormats().
    TensorFormats getAllowedFormats() const noexcept { return mImpl->getAllowedFormats(); }

    //! Whether the tensor takes part in shape calculations; reliable once the network is complete.
    bool isShapeTensor() const noexcept { return mImpl->isShapeTensor(); }

    //! Whether the tensor's values are computed at run time; reliable once the network is complete.
    bool isExecutionTensor() const noexcept { return mImpl->isExecutionTensor(); }

    //! Names extent index of an input (copied); extents with the same name are equal at run time. nullptr clears.
    void setDimensionName(int32_t index, char const* name) noexcept { mImpl->setDimensionName(index, name); }

    //! The name of extent index, or nullptr.
    char const* getDimensionName(int32_t index) const noexcept { return mImpl->getDimensionName(index); }

protected:
    apiv::VTensor* mImpl;
    virtual ~ITensor() noexcept = default;
};

//! The base of every layer of a network definition. Owned by the network. Its methods forward to mLayer; those of
//! the derived layer classes to their own mImpl.
class ILayer : public INoCopy
{
public:
    //! The kind of layer.
    LayerType getType() const noexcept { return mLayer->getType(); }

    //! Names the layer (copied).
    void setName(char const* name) noexcept { mLayer->setName(name); }

    //! The layer's name.
    char const* getName() const noexcept { return mLayer->getName(); }

    //! The number of inputs.
    int32_t getNbInputs() const noexcept { return mLayer->getNbInputs(); }

    //! Input index, or nullptr when out of range or an absent optional input.
    ITensor* getInput(int32_t index) const noexcept { return mLayer->getInput(index); }

    //! The number of outputs.
    int32_t getNbOutputs() const noexcept { return mLayer->getNbOutputs(); }

    //! Output index, or nullptr.
    ITensor* getOutput(int32_t index) const noexcept { return mLayer->getOutput(index); }

    //! Replaces input index by tensor; layers with optional inputs also append.
    void setInput(int32_t index, ITensor& tensor) noexcept { return mLayer->setInput(index, tensor); }

    //! Asks for a compute precision in a weakly typed network. Deprecated: use strong typing.
    TRT_DEPRECATED void setPrecision(DataType dataType) noexcept { mLayer->setPrecision(dataType); }

    //! The compute precision.
    DataType getPrecision() const noexcept { return mLayer->getPrecision(); }

    //! Whether setPrecision() was called. Deprecated: use strong typing.
    TRT_DEPRECATED bool precisionIsSet() const noexcept { return mLayer->precisionIsSet(); }

    //! Undoes setPrecision(). Deprecated: use strong typing.
    TRT_DEPRECATED void resetPrecision() noexcept { mLayer->resetPrecision(); }

    //! Asks for an output type in a weakly typed network. Deprecated: use strong typing.
    TRT_DEPRECATED void setOutputType(int32_t index, DataType dataType) noexcept
    {
        mLayer->setOutputType(index, dataType);
    }

    //! The type of output index.
    DataType getOutputType(int32_t index) const noexcept { return mLayer->getOutputType(index); }

    //! Whether setOutputType() was called for output index. Deprecated: use strong typing.
    TRT_DEPRECATED bool outputTypeIsSet(int32_t index) const noexcept { return mLayer->outputTypeIsSet(index); }

    //! Undoes setOutputType() for output index. Deprecated: use strong typing.
    TRT_DEPRECATED void resetOutputType(int32_t index) noexcept { return mLayer->resetOutputType(index); }

    //! Attaches free text (copied), reported by the engine inspector at kDETAILED verbosity.
    void setMetadata(char const* metadata) noexcept { mLayer->setMetadata(metadata); }

    //! The text set with setMetadata(), or "".
    char const* getMetadata() const noexcept { return mLayer->getMetadata(); }

    //! The number of ranks of a multi-device layer; 1 for every other layer.
    bool setNbRanks(int32_t nbRanks) noexcept { return mLayer->setNbRanks(nbRanks); }

    //! The number set with setNbRanks() (default 1).
    int32_t getNbRanks() const noexcept { return mLayer->getNbRanks(); }

protected:
    virtual ~ILayer() noexcept = default;
    apiv::VLayer* mLayer;
};

//! How convolution and pooling windows are padded; takes precedence over explicit pre/post padding.
enum class PaddingMode : int32_t
{
    kEXPLICIT_ROUND_DOWN = 0, //!< Explicit padding, output size rounded down.
    kEXPLICIT_ROUND_UP = 1,   //!< Explicit padding, output size rounded up.
    kSAME_UPPER = 2,          //!< Output size ceil(input / stride); any odd padding goes at the end.
    kSAME_LOWER = 3,          //!< Output size ceil(input / stride); any odd padding goes at the start.
};

namespace impl
{
template <>
struct EnumMaxImpl<PaddingMode>
{
    static constexpr int32_t kVALUE = 4;
};
} // namespace impl

//! A 2-D or 3-D convolution. Inputs: data, and optionally the kernel (1) and bias (2) as tensors.
class IConvolutionLayer : public ILayer
{
public:
    //! The number of output channels.
    void setNbOutputMaps(int64_t nbOutputMaps) noexcept { mImpl->setNbOutputMaps(nbOutputMaps); }

    //! The number of output channels.
    int64_t getNbOutputMaps() const noexcept { return mImpl->getNbOutputMaps(); }

    //! The number of groups (default 1).
    void setNbGroups(int64_t nbGroups) noexcept { mImpl->setNbGroups(nbGroups); }

    //! The number of groups.
    int64_t getNbGroups() const noexcept { return mImpl->getNbGroups(); }

    //! The kernel, in GKCRS order.
    void setKernelWeights(Weights weights) noexcept { mImpl->setKernelWeights(weights); }

    //! The kernel.
    Weights getKernelWeights() const noexcept { return mImpl->getKernelWeights(); }

    //! The per-output-channel bias; empty weights for none.
    void setBiasWeights(Weights weights) noexcept { mImpl->setBiasWeights(weights); }

    //! The bias.
    Weights getBiasWeights() const noexcept { return mImpl->getBiasWeights(); }

    //! Zero padding before the data in each spatial dimension.
    void setPrePadding(Dims const& padding) noexcept { mImpl->setPrePadding(padding); }

    //! The padding before the data.
    Dims getPrePadding() const noexcept { return mImpl->getPrePadding(); }

    //! Zero padding after the data in each spatial dimension.
    void setPostPadding(Dims const& padding) noexcept { mImpl->setPostPadding(padding); }

    //! The padding after the data.
    Dims getPostPadding() const noexcept { return mImpl->getPostPadding(); }

    //! The padding mode (default kEXPLICIT_ROUND_DOWN).
    void setPaddingMode(PaddingMode paddingMode) noexcept { mImpl->setPaddingMode(paddingMode); }

    //! The padding mode.
    PaddingMode getPaddingMode() const noexcept { return mImpl->getPaddingMode(); }

    //! The kernel's spatial extents.
    void setKernelSizeNd(Dims const& kernelSize) noexcept { mImpl->setKernelSizeNd(kernelSize); }

    //! The kernel's spatial extents.
    Dims getKernelSizeNd() const noexcept { return mImpl->getKernelSizeNd(); }

    //! The stride (default all 1).
    void setStrideNd(Dims const& stride) noexcept { mImpl->setStrideNd(stride); }

    //! The stride.
    Dims getStrideNd() const noexcept { return mImpl->getStrideNd(); }

    //! Symmetric zero padding (default all 0).
    void setPaddingNd(Dims const& padding) noexcept { mImpl->setPaddingNd(padding); }

    //! The padding; the pre-padding when asymmetric.
    Dims getPaddingNd() const noexcept { return mImpl->getPaddingNd(); }

    //! The dilation (default all 1).
    void setDilationNd(Dims const& dilation) noexcept { mImpl->setDilationNd(dilation); }

    //! The dilation.
    Dims getDilationNd() const noexcept { return mImpl->getDilationNd(); }

    //! Input 0 is the data, 1 the kernel and 2 the bias (their weights must then be empty).
    using ILayer::setInput;

protected:
    virtual ~IConvolutionLayer() noexcept = default;
    apiv::VConvolutionLayer* mImpl;
};

//! An element-wise activation function.
class IActivationLayer : public ILayer
{
public:
    //! The function.
    void setActivationType(ActivationType type) noexcept { mImpl->setActivationType(type); }

    //! The function.
    ActivationType getActivationType() const noexcept { return mImpl->getActivationType(); }

    //! The alpha parameter of the functions that have one.
    void setAlpha(float alpha) noexcept { mImpl->setAlpha(alpha); }

    //! The beta parameter of the functions that have one.
    void setBeta(float beta) noexcept { mImpl->setBeta(beta); }

    //! The alpha parameter.
    float getAlpha() const noexcept { return mImpl->getAlpha(); }

    //! The beta parameter.
    float getBeta() const noexcept { return mImpl->getBeta(); }

protected:
    virtual ~IActivationLayer() noexcept = default;
    apiv::VActivationLayer* mImpl;
};

//! The reductions of IPoolingLayer.
enum class PoolingType : int32_t
{
    kMAX = 0,               //!< The maximum of the window.
    kAVERAGE = 1,           //!< The average of the window.
    kMAX_AVERAGE_BLEND = 2, //!< (1 - blendFactor) * max + blendFactor * average.
};

namespace impl
{
template <>
struct EnumMaxImpl<PoolingType>
{
    static constexpr int32_t kVALUE = 3;
};
} // namespace impl

//! A 2-D or 3-D pooling window.
class IPoolingLayer : public ILayer
{
public:
    //! The reduction.
    void setPoolingType(PoolingType type) noexcept { mImpl->setPoolingType(type); }

    //! The reduction.
    PoolingType getPoolingType() const noexcept { return mImpl->getPoolingType(); }

    //! The blend factor of kMAX_AVERAGE_BLEND, in [0, 1] (default 0).
    void setBlendFactor(float blendFactor) noexcept { mImpl->setBlendFactor(blendFactor); }

    //! The blend factor.
    float getBlendFactor() const noexcept { return mImpl->getBlendFactor(); }

    //! Whether averages count only elements inside the unpadded input (default true).
    void setAverageCountExcludesPadding(bool exclusive) noexcept { mImpl->setAverageCountExcludesPadding(exclusive); }

    //! The setting of setAverageCountExcludesPadding().
    bool getAverageCountExcludesPadding() const noexcept { return mImpl->getAverageCountExcludesPadding(); }

    //! Padding before the data in each spatial dimension.
    void setPrePadding(Dims const& padding) noexcept { mImpl->setPrePadding(padding); }

    //! The padding before the data.
    Dims getPrePadding() const noexcept { return mImpl->getPrePadding(); }

    //! Padding after the data in each spatial dimension.
    void setPostPadding(Dims const& padding) noexcept { mImpl->setPostPadding(padding); }

    //! The padding after the data.
    Dims getPostPadding() const noexcept { return mImpl->getPostPadding(); }

    //! The padding mode (default kEXPLICIT_ROUND_DOWN).
    void setPaddingMode(PaddingMode paddingMode) noexcept { mImpl->setPaddingMode(paddingMode); }

    //! The padding mode.
    PaddingMode getPaddingMode() const noexcept { return mImpl->getPaddingMode(); }

    //! The window's spatial extents.
    void setWindowSizeNd(Dims const& windowSize) noexcept { mImpl->setWindowSizeNd(windowSize); }

    //! The window's spatial extents.
    Dims getWindowSizeNd() const noexcept { return mImpl->getWindowSizeNd(); }

    //! The stride (default all 1).
    void setStrideNd(Dims const& stride) noexcept { mImpl->setStrideNd(stride); }

    //! The stride.
    Dims getStrideNd() const noexcept { return mImpl->getStrideNd(); }

    //! Symmetric padding (default all 0).
    void setPaddingNd(Dims const& padding) noexcept { mImpl->setPaddingNd(padding); }

    //! The padding; the pre-padding when asymmetric.
    Dims getPaddingNd() const noexcept { return mImpl->getPaddingNd(); }

protected:
    virtual ~IPoolingLayer() noexcept = default;
    apiv::VPoolingLayer* mImpl;
};

//! Softmax along one axis.
class ISoftMaxLayer : public ILayer
{
public:
    //! The axis, as a bit mask with one bit set (bit i for axis i).
    void setAxes(uint32_t axes) noexcept { mImpl->setAxes(axes); }

    //! The axis bit mask.
    uint32_t getAxes() const noexcept { return mImpl->getAxes(); }

protected:
    virtual ~ISoftMaxLayer() noexcept = default;
    apiv::VSoftMaxLayer* mImpl;
};

//! Concatenates its inputs along one axis.
class IConcatenationLayer : public ILayer
{
public:
    //! The axis (default: the rank minus 3, or 0).
    void setAxis(int32_t axis) noexcept { mImpl->setAxis(axis); }

    //! The axis.
    int32_t getAxis() const noexcept { return mImpl->getAxis(); }

protected:
    virtual ~IConcatenationLayer() noexcept = default;
    apiv::VConcatenationLayer* mImpl;
};

//! A 2-D or 3-D deconvolution (transposed convolution): each input element scatters the kernel, scaled by its value,
//! into the output at its position times the stride; the pre- and post-padding then trim the output's ends. An output
//! extent is (I - 1) * S + 1 + D * (F - 1) - B - A for input extent I, stride S, dilation D, kernel extent F and
//! padding B (pre) and A (post); kSAME_UPPER and kSAME_LOWER give min(I * S, (I - 1) * S + 1 + D * (F - 1)).
//! Inputs: data, and optionally the kernel (1) and bias (2) as tensors.
class IDeconvolutionLayer : public ILayer
{
public:
    //! The number of output channels.
    void setNbOutputMaps(int64_t nbOutputMaps) noexcept { mImpl->setNbOutputMaps(nbOutputMaps); }

    //! The number of output channels.
    int64_t getNbOutputMaps() const noexcept { return mImpl->getNbOutputMaps(); }

    //! The number of groups (default 1); it divides the input channels and the output maps.
    void setNbGroups(int64_t nbGroups) noexcept { mImpl->setNbGroups(nbGroups); }

    //! The number of groups.
    int64_t getNbGroups() const noexcept { return mImpl->getNbGroups(); }

    //! The kernel, [C, K / groups, spatial...] for C input channels and K output maps (CKRS order).
    void setKernelWeights(Weights weights) noexcept { mImpl->setKernelWeights(weights); }

    //! The kernel.
    Weights getKernelWeights() const noexcept { return mImpl->getKernelWeights(); }

    //! The per-output-channel bias; empty weights for none.
    void setBiasWeights(Weights weights) noexcept { mImpl->setBiasWeights(weights); }

    //! The bias.
    Weights getBiasWeights() const noexcept { return mImpl->getBiasWeights(); }

    //! What is trimmed from the start of the output in each spatial dimension.
    void setPrePadding(Dims const& padding) noexcept { mImpl->setPrePadding(padding); }

    //! The pre-padding.
    Dims getPrePadding() const noexcept { return mImpl->getPrePadding(); }

    //! What is trimmed from the end of the output in each spatial dimension.
    void setPostPadding(Dims const& padding) noexcept { mImpl->setPostPadding(padding); }

    //! The post-padding.
    Dims getPostPadding() const noexcept { return mImpl->getPostPadding(); }

    //! The padding mode (default kEXPLICIT_ROUND_DOWN; both explicit modes give the same output).
    void setPaddingMode(PaddingMode paddingMode) noexcept { mImpl->setPaddingMode(paddingMode); }

    //! The padding mode.
    PaddingMode getPaddingMode() const noexcept { return mImpl->getPaddingMode(); }

    //! The kernel's spatial extents.
    void setKernelSizeNd(Dims const& kernelSize) noexcept { mImpl->setKernelSizeNd(kernelSize); }

    //! The kernel's spatial extents.
    Dims getKernelSizeNd() const noexcept { return mImpl->getKernelSizeNd(); }

    //! The stride (default all 1).
    void setStrideNd(Dims const& stride) noexcept { mImpl->setStrideNd(stride); }

    //! The stride.
    Dims getStrideNd() const noexcept { return mImpl->getStrideNd(); }

    //! Symmetric padding (default all 0).
    void setPaddingNd(Dims const& padding) noexcept { mImpl->setPaddingNd(padding); }

    //! The padding; the pre-padding when asymmetric.
    Dims getPaddingNd() const noexcept { return mImpl->getPaddingNd(); }

    //! The dilation (default all 1).
    void setDilationNd(Dims const& dilation) noexcept { mImpl->setDilationNd(dilation); }

    //! The dilation.
    Dims getDilationNd() const noexcept { return mImpl->getDilationNd(); }

    //! Input 0 is the data, 1 the kernel and 2 the bias (their weights must then be empty).
    using ILayer::setInput;

protected:
    virtual ~IDeconvolutionLayer() noexcept = default;
    apiv::VDeconvolutionLayer* mImpl;
};

//! The binary operations of IElementWiseLayer. kAND, kOR and kXOR take kBOOL inputs.
enum class ElementWiseOperation : int32_t
{
    kSUM = 0,       //!< a + b.
    kPROD = 1,      //!< a * b.
    kMAX = 2,       //!< max(a, b).
    kMIN = 3,       //!< min(a, b).
    kSUB = 4,       //!< a - b.
    kDIV = 5,       //!< a / b.
    kPOW = 6,       //!< a to the power b.
    kFLOOR_DIV = 7, //!< a / b rounded down.
    kAND = 8,       //!< a and b.
    kOR = 9,        //!< a or b.
    kXOR = 10,      //!< a xor b.
    kEQUAL = 11,    //!< a == b.
    kGREATER = 12,  //!< a > b.
    kLESS = 13,     //!< a < b.
};

namespace impl
{
template <>
struct EnumMaxImpl<ElementWiseOperation>
{
    static constexpr int32_t kVALUE = 14;
};
} // namespace impl

//! A binary operation on two inputs of equal rank, broadcasting extents of 1.
class IElementWiseLayer : public ILayer
{
public:
    //! The operation.
    void setOperation(ElementWiseOperation op) noexcept { return mImpl->setOperation(op); }

    //! The operation.
    ElementWiseOperation getOperation() const noexcept { return mImpl->getOperation(); }

protected:
    apiv::VElementWiseLayer* mImpl;
    virtual ~IElementWiseLayer() noexcept = default;
};

//! The forms of IGatherLayer.
enum class GatherMode : int32_t
{
    kDEFAULT = 0, //!< ONNX Gather.
    kELEMENT = 1, //!< ONNX GatherElements.
    kND = 2,      //!< ONNX GatherND.
};

template <>
constexpr inline int32_t EnumMax<GatherMode>() noexcept
{
    return 3;
}

//! Gathers elements of the data input (0) at the indices input (1).
class IGatherLayer : public ILayer
{
public:
    //! The axis of kDEFAULT and kELEMENT (default 0).
    void setGatherAxis(int32_t axis) noexcept { mImpl->setGatherAxis(axis); }

    //! The axis.
    int32_t getGatherAxis() const noexcept { return mImpl->getGatherAxis(); }

    //! The number of leading dimensions handled element-wise (default 0).
    void setNbElementWiseDims(int32_t elementWiseDims) noexcept { mImpl->setNbElementWiseDims(elementWiseDims); }

    //! The number of element-wise dimensions.
    int32_t getNbElementWiseDims() const noexcept { return mImpl->getNbElementWiseDims(); }

    //! The form.
    void setMode(GatherMode mode) noexcept { mImpl->setMode(mode); }

    //! The form.
    GatherMode getMode() const noexcept { return mImpl->getMode(); }

protected:
    apiv::VGatherLayer* mImpl;
    virtual ~IGatherLayer() noexcept = default;
};

//! The layer of a V2 plugin. Deprecated: use IPluginV3Layer.
class TRT_DEPRECATED IPluginV2Layer : public ILayer
{
public:
    //! The plugin.
    IPluginV2& getPlugin() noexcept { return mImpl->getPlugin(); }

protected:
    apiv::VPluginV2Layer* mImpl;
    virtual ~IPluginV2Layer() noexcept = default;
};

//! The layer of a V3 plugin.
class IPluginV3Layer : public ILayer
{
public:
    //! The plugin.
    IPluginV3& getPlugin() noexcept { return mImpl->getPlugin(); }

protected:
    apiv::VPluginV3Layer* mImpl;
    virtual ~IPluginV3Layer() noexcept = default;
};

//! The operations of IUnaryLayer. kNOT takes kBOOL; kSIGN and kABS also integers; the rest floating point.
enum class UnaryOperation : int32_t
{
    kEXP = 0,    //!< exp(x).
    kLOG = 1,    //!< Natural logarithm.
    kSQRT = 2,   //!< Square root.
    kRECIP = 3,  //!< 1 / x.
    kABS = 4,    //!< |x|.
    kNEG = 5,    //!< -x.
    kSIN = 6,    //!< Sine.
    kCOS = 7,    //!< Cosine.
    kTAN = 8,    //!< Tangent.
    kSINH = 9,   //!< Hyperbolic sine.
    kCOSH = 10,  //!< Hyperbolic cosine.
    kASIN = 11,  //!< Arc sine.
    kACOS = 12,  //!< Arc cosine.
    kATAN = 13,  //!< Arc tangent.
    kASINH = 14, //!< Inverse hyperbolic sine.
    kACOSH = 15, //!< Inverse hyperbolic cosine.
    kATANH = 16, //!< Inverse hyperbolic tangent.
    kCEIL = 17,  //!< Round up.
    kFLOOR = 18, //!< Round down.
    kERF = 19,   //!< Error function.
    kNOT = 20,   //!< Logical not.
    kSIGN = 21,  //!< -1, 0 or 1.
    kROUND = 22, //!< Round half to even.
    kISINF = 23, //!< Whether x is an infinity.
    kISNAN = 24, //!< Whether x is a NaN.
};

template <>
constexpr inline int32_t EnumMax<UnaryOperation>() noexcept
{
    return 25;
}

//! A unary operation.
class IUnaryLayer : public ILayer
{
public:
    //! The operation.
    void setOperation(UnaryOperation op) noexcept { mImpl->setOperation(op); }

    //! The operation.
    UnaryOperation getOperation() const noexcept { return mImpl->getOperation(); }

protected:
    apiv::VUnaryLayer* mImpl;
    virtual ~IUnaryLayer() noexcept = default;
};

//! The reductions of IReduceLayer (and of multi-device collectives).
enum class ReduceOperation : int32_t
{
    kSUM = 0,  //!< Sum.
    kPROD = 1, //!< Product.
    kMAX = 2,  //!< Maximum.
    kMIN = 3,  //!< Minimum.
    kAVG = 4,  //!< Average.
    kNONE = 5, //!< No reduction (for collectives that need none).
};

template <>
constexpr inline int32_t EnumMax<ReduceOperation>() noexcept
{
    return 6;
}

//! A reduction over a set of axes.
class IReduceLayer : public ILayer
{
public:
    //! The reduction.
    void setOperation(ReduceOperation op) noexcept { mImpl->setOperation(op); }

    //! The reduction.
    ReduceOperation getOperation() const noexcept { return mImpl->getOperation(); }

    //! The axes, as a bit mask (bit i for axis i).
    void setReduceAxes(uint32_t reduceAxes) noexcept { mImpl->setReduceAxes(reduceAxes); }

    //! The axes bit mask.
    uint32_t getReduceAxes() const noexcept { return mImpl->getReduceAxes(); }

    //! Whether reduced axes stay as extents of 1.
    void setKeepDimensions(bool keepDimensions) noexcept { mImpl->setKeepDimensions(keepDimensions); }

    //! Whether reduced axes stay.
    bool getKeepDimensions() const noexcept { return mImpl->getKeepDimensions(); }

protected:
    apiv::VReduceLayer* mImpl;
    virtual ~IReduceLayer() noexcept = default;
};

//! Which elements ITopKLayer keeps.
enum class TopKOperation : int32_t
{
    kMAX = 0, //!< The k largest, largest first.
    kMIN = 1, //!< The k smallest, smallest first.
};

template <>
constexpr inline int32_t EnumMax<TopKOperation>() noexcept
{
    return 2;
}

//! The k largest or smallest elements along one axis: output 0 the values (the input's type), output 1 their indices
//! along the axis (kINT32 unless setIndicesType says kINT64). Equal values keep their order (the lower index first).
//! Input 1, when set, gives k at run time: a 0-D kINT32 or kINT64 shape tensor.
class ITopKLayer : public ILayer
{
public:
    //! Largest or smallest.
    void setOperation(TopKOperation op) noexcept { mImpl->setOperation(op); }

    //! Largest or smallest.
    TopKOperation getOperation() const noexcept { return mImpl->getOperation(); }

    //! How many elements to keep, at most the axis' extent; drops input 1.
    void setK(int32_t k) noexcept { mImpl->setK(k); }

    //! k, or -1 when input 1 gives it.
    int32_t getK() const noexcept { return mImpl->getK(); }

    //! The axis, as a bit mask with one bit (bit i for axis i).
    void setReduceAxes(uint32_t reduceAxes) noexcept { mImpl->setReduceAxes(reduceAxes); }

    //! The axis bit mask.
    uint32_t getReduceAxes() const noexcept { return mImpl->getReduceAxes(); }

    //! The type of output 1: kINT32 or kINT64; false (and no change) for another type.
    bool setIndicesType(DataType type) noexcept { return mImpl->setIndicesType(type); }

    //! The type of output 1 (default kINT32).
    DataType getIndicesType() const noexcept { return mImpl->getIndicesType(); }

    //! Inputs: 0 the data, 1 k (a 0-D kINT32 or kINT64 shape tensor) in place of the static k.
    using ILayer::setInput;

protected:
    apiv::VTopKLayer* mImpl;
    virtual ~ITopKLayer() noexcept = default;
};

//! A permutation of dimensions: output dimension order[i] is input dimension i.
struct Permutation
{
    int32_t order[Dims::MAX_DIMS]; //!< The permutation.
};

//! Transpose, reshape, transpose. An optional second input (1) gives the reshape dimensions at run time.
class IShuffleLayer : public ILayer
{
public:
    //! The permutation before the reshape (default identity).
    void setFirstTranspose(Permutation permutation) noexcept { mImpl->setFirstTranspose(permutation); }

    //! The permutation before the reshape.
    Permutation getFirstTranspose() const noexcept { return mImpl->getFirstTranspose(); }

    //! The reshape dimensions; 0 copies an input extent (see setZeroIsPlaceholder) and one -1 is inferred.
    void setReshapeDimensions(Dims const& dimensions) noexcept { mImpl->setReshapeDimensions(dimensions); }

    //! The reshape dimensions, or nbDims == -1 when input 1 gives them.
    Dims getReshapeDimensions() const noexcept { return mImpl->getReshapeDimensions(); }

    //! Input 0 is the data, input 1 the reshape dimensions as a 1-D Int32 or Int64 tensor.
    using ILayer::setInput;

    //! The permutation after the reshape (default identity).
    void setSecondTranspose(Permutation permutation) noexcept { mImpl->setSecondTranspose(permutation); }

    //! The permutation after the reshape.
    Permutation getSecondTranspose() const noexcept { return mImpl->getSecondTranspose(); }

    //! Whether 0 in the reshape dimensions copies the input extent (default true) or means a zero extent.
    void setZeroIsPlaceholder(bool zeroIsPlaceholder) noexcept
    {
        return mImpl->setZeroIsPlaceholder(zeroIsPlaceholder);
    }

    //! The setting of setZeroIsPlaceholder().
    bool getZeroIsPlaceholder() const noexcept { return mImpl->getZeroIsPlaceholder(); }

protected:
    apiv::VShuffleLayer* mImpl;
    virtual ~IShuffleLayer() noexcept = default;
};

//! How ISliceLayer and IGridSampleLayer treat coordinates outside the input.
enum class SampleMode : int32_t
{
    kSTRICT_BOUNDS = 0, //!< They are an error.
    kWRAP = 1,          //!< They wrap around.
    kCLAMP = 2,         //!< They are clamped to the edge.
    kFILL = 3,          //!< They read the fill value (input 4).
    kREFLECT = 4,       //!< They reflect at the edge.
};

template <>
constexpr inline int32_t EnumMax<SampleMode>() noexcept
{
    return 5;
}

//! Copies a strided window of the input. Inputs 1-5 may give start, size, stride, fill value and axes as tensors.
class ISliceLayer : public ILayer
{
public:
    //! The start coordinates.
    void setStart(Dims const& start) noexcept { mImpl->setStart(start); }

    //! The start, or nbDims == -1 when input 1 gives it.
    Dims getStart() const noexcept { return mImpl->getStart(); }

    //! The output extents.
    void setSize(Dims const& size) noexcept { return mImpl->setSize(size); }

    //! The output extents, or nbDims == -1 when input 2 gives them.
    Dims getSize() const noexcept { return mImpl->getSize(); }

    //! The strides (any sign).
    void setStride(Dims const& stride) noexcept { mImpl->setStride(stride); }

    //! The strides, or nbDims == -1 when input 3 gives them.
    Dims getStride() const noexcept { return mImpl->getStride(); }

    //! The out-of-bounds mode.
    void setMode(SampleMode mode) noexcept { mImpl->setMode(mode); }

    //! The out-of-bounds mode.
    SampleMode getMode() const noexcept { return mImpl->getMode(); }

    //! Inputs: 0 data, 1 start, 2 size, 3 stride, 4 fill value (kFILL only), 5 axes.
    using ILayer::setInput;

    //! The axes start, size and stride apply to (default: all, in order).
    void setAxes(Dims const& axes) noexcept { mImpl->setAxes(axes); }

    //! The axes, or nbDims == -1 when input 5 gives them.
    Dims getAxes() const noexcept { return mImpl->getAxes(); }

protected:
    apiv::VSliceLayer* mImpl;
    virtual ~ISliceLayer() noexcept = default;
};

//! The shape of its input as a 1-D Int64 tensor.
class IShapeLayer : public ILayer
{
protected:
    apiv::VShapeLayer* mImpl;
    virtual ~IShapeLayer() noexcept = default;
};

//! How IResizeLayer computes an output element from the input elements near its source coordinate.
enum class InterpolationMode : int32_t
{
    kNEAREST = 0, //!< The nearest element (IResizeLayer::setNearestRounding says how ties and fractions round).
    kLINEAR = 1,  //!< Linear interpolation per resized axis (bilinear, trilinear, ...).
    kCUBIC = 2,   //!< Cubic interpolation per resized axis (IResizeLayer::setCubicCoeff).
};

namespace impl
{
template <>
struct EnumMaxImpl<InterpolationMode>
{
    static constexpr int32_t kVALUE = 3;
};
} // namespace impl

//! The older name of InterpolationMode.
using ResizeMode = InterpolationMode;

//! How IResizeLayer maps an output coordinate x of an axis to a source coordinate in the input, for an input extent
//! `in` and an output extent `out` (`in / out` is 1 / scale when the layer has scales).
enum class ResizeCoordinateTransformation : int32_t
{
    kALIGN_CORNERS = 0, //!< x * (in - 1) / (out - 1): the corner elements line up.
    kASYMMETRIC = 1,    //!< x * in / out.
    kHALF_PIXEL = 2,    //!< (x + 0.5) * in / out - 0.5: element centers line up.
};

namespace impl
{
template <>
struct EnumMaxImpl<ResizeCoordinateTransformation>
{
    static constexpr int32_t kVALUE = 3;
};
} // namespace impl

//! Which source coordinate IResizeLayer uses on an axis whose output extent is 1.
enum class ResizeSelector : int32_t
{
    kFORMULA = 0, //!< The coordinate transformation's formula.
    kUPPER = 1,   //!< Coordinate 0: the upper-left element.
};

namespace impl
{
template <>
struct EnumMaxImpl<ResizeSelector>
{
    static constexpr int32_t kVALUE = 2;
};
} // namespace impl

//! How kNEAREST resizing rounds a source coordinate to an input index.
enum class ResizeRoundMode : int32_t
{
    kHALF_UP = 0,   //!< To the nearest index; halves round up.
    kHALF_DOWN = 1, //!< To the nearest index; halves round down.
    kFLOOR = 2,     //!< Down.
    kCEIL = 3,      //!< Up.
};

namespace impl
{
template <>
struct EnumMaxImpl<ResizeRoundMode>
{
    static constexpr int32_t kVALUE = 4;
};
} // namespace impl

//! Resizes its input: output extent i is given by setOutputDimensions(), by floor(input extent i * scale i) with
//! setScales(), or by input 1 (a 1-D kINT32 or kINT64 shape tensor of one extent per axis) at run time; the last one
//! set wins. Every axis whose extent or scale changes is interpolated (nearest, linear or cubic), axis by axis; source
//! indices outside the input are clamped to its edge. Defaults: kNEAREST, kASYMMETRIC, kFORMULA, kFLOOR, cubic
//! coefficient -0.75, exclude-outside off.
class IResizeLayer : public ILayer
{
public:
    //! The output shape (one extent per input axis); drops the scales and input 1.
    void setOutputDimensions(Dims const& dimensions) noexcept { return mImpl->setOutputDimensions(dimensions); }

    //! The output shape, or nbDims == -1 when scales or input 1 give it (or nothing was set: the input's shape).
    Dims getOutputDimensions() const noexcept { return mImpl->getOutputDimensions(); }

    //! nbScales positive scales, one per input axis; drops the output dimensions and input 1.
    void setScales(float const* scales, int32_t nbScales) noexcept { mImpl->setScales(scales, nbScales); }

    //! The number of scales set (-1 when there are none, or input 1 gives the output shape); copies them to scales
    //! when size is that number and scales is not null.
    int32_t getScales(int32_t size, float* scales) const noexcept { return mImpl->getScales(size, scales); }

    //! The interpolation.
    void setResizeMode(InterpolationMode interpolationMode) noexcept { mImpl->setResizeMode(interpolationMode); }

    //! The interpolation (default kNEAREST).
    InterpolationMode getResizeMode() const noexcept { return mImpl->getResizeMode(); }

    //! How output coordinates map to input coordinates.
    void setCoordinateTransformation(ResizeCoordinateTransformation coordTransform) noexcept
    {
        mImpl->setCoordinateTransformation(coordTransform);
    }

    //! How output coordinates map to input coordinates (default kASYMMETRIC).
    ResizeCoordinateTransformation getCoordinateTransformation() const noexcept
    {
        return mImpl->getCoordinateTransformation();
    }

    //! The source coordinate of an axis resized to one element.
    void setSelectorForSinglePixel(ResizeSelector selector) noexcept { mImpl->setSelectorForSinglePixel(selector); }

    //! The source coordinate of an axis resized to one element (default kFORMULA).
    ResizeSelector getSelectorForSinglePixel() const noexcept { return mImpl->getSelectorForSinglePixel(); }

    //! How kNEAREST rounds.
    void setNearestRounding(ResizeRoundMode value) noexcept { mImpl->setNearestRounding(value); }

    //! How kNEAREST rounds (default kFLOOR).
    ResizeRoundMode getNearestRounding() const noexcept { return mImpl->getNearestRounding(); }

    //! The coefficient A of kCUBIC's kernel (a finite value).
    void setCubicCoeff(float A) noexcept { mImpl->setCubicCoeff(A); }

    //! The coefficient A of kCUBIC's kernel (default -0.75).
    float getCubicCoeff() const noexcept { return mImpl->getCubicCoeff(); }

    //! Whether samples outside the input get weight 0 (the others renormalized) instead of the edge's value.
    void setExcludeOutside(bool excludeFlag) noexcept { mImpl->setExcludeOutside(excludeFlag); }

    //! Whether samples outside the input get weight 0 (default false).
    bool getExcludeOutside() const noexcept { return mImpl->getExcludeOutside(); }

    //! Inputs: 0 the data, 1 the output shape (a 1-D kINT32 or kINT64 shape tensor), which replaces the output
    //! dimensions and scales.
    using ILayer::setInput;

protected:
    virtual ~IResizeLayer() noexcept = default;
    apiv::VResizeLayer* mImpl;
};

//! How IMatrixMultiplyLayer treats each input.
enum class MatrixOperation : int32_t
{
    kNONE = 0,      //!< A matrix (or a batch of matrices in the last two dimensions).
    kTRANSPOSE = 1, //!< A matrix, transposed.
    kVECTOR = 2,    //!< A vector (or a batch of vectors in the last dimension).
};

template <>
constexpr inline int32_t EnumMax<MatrixOperation>() noexcept
{
    return 3;
}

//! A (batched) matrix product of op0(input 0) and op1(input 1), broadcasting batch extents of 1.
class IMatrixMultiplyLayer : public ILayer
{
public:
    //! How input index (0 or 1) is treated.
    void setOperation(int32_t index, MatrixOperation op) noexcept { mImpl->setOperation(index, op); }

    //! How input index is treated.
    MatrixOperation getOperation(int32_t index) const noexcept { return mImpl->getOperation(index); }

protected:
    apiv::VMatrixMultiplyLayer* mImpl;
    virtual ~IMatrixMultiplyLayer() noexcept = default;
};

//! The positions of the non-zero elements of its input (true ones for kBOOL), as ONNX NonZero gives them: for an input
//! of shape [L1, ..., Lm], output 0 has shape [m, n], n the number of non-zero elements, each column the coordinates
//! of one of them, the columns in row-major order of the elements. n is known only once the layer has run (a
//! data-dependent shape; at most the input's volume). The input is kFLOAT, kHALF, kBF16, kINT8, kINT32, kINT64 or
//! kBOOL; the indices are kINT32 or kINT64.
class INonZeroLayer : public ILayer
{
public:
    //! The type of output 0: kINT32 or kINT64; false (and no change) for another type.
    bool setIndicesType(DataType type) noexcept { return mImpl->setIndicesType(type); }

    //! The type of output 0 (default kINT32, or what addNonZero was given).
    DataType getIndicesType() const noexcept { return mImpl->getIndicesType(); }

protected:
    virtual ~INonZeroLayer() noexcept = default;
    apiv::VNonZeroLayer* mImpl;
};

//! Copies its input (in a weakly typed network it may also convert the type).
class IIdentityLayer : public ILayer
{
protected:
    apiv::VIdentityLayer* mImpl;
    virtual ~IIdentityLayer() noexcept = default;
};

//! Converts its input to another element type.
class ICastLayer : public ILayer
{
public:
    //! The output type.
    void setToType(DataType toType) noexcept { mImpl->setToType(toType); }

    //! The output type.
    DataType getToType() const noexcept { return mImpl->getToType(); }

protected:
    apiv::VCastLayer* mImpl;
    virtual ~ICastLayer() noexcept = default;
};

//! A constant tensor made of weights.
class IConstantLayer : public ILayer
{
public:
    //! The values; their type is the output type.
    void setWeights(Weights weights) noexcept { mImpl->setWeights(weights); }

    //! The values.
    Weights getWeights() const noexcept { return mImpl->getWeights(); }

    //! The output shape.
    void setDimensions(Dims const& dimensions) noexcept { mImpl->setDimensions(dimensions); }

    //! The output shape.
    Dims getDimensions() const noexcept { return mImpl->getDimensions(); }

protected:
    apiv::VConstantLayer* mImpl;
    virtual ~IConstantLayer() noexcept = default;
};

//! Element-wise condition ? then : else over three broadcast inputs.
class ISelectLayer : public ILayer
{
protected:
    virtual ~ISelectLayer() noexcept = default;
    apiv::VSelectLayer* mImpl;
};

//! What IFillLayer generates.
enum class FillOperation : int32_t
{
    kLINSPACE = 0,       //!< alpha + sum of beta[i] * index[i].
    kRANDOM_UNIFORM = 1, //!< Uniform random values in [alpha, beta].
    kRANDOM_NORMAL = 2,  //!< Normal random values, mean alpha, standard deviation beta.
};

template <>
constexpr inline int32_t EnumMax<FillOperation>() noexcept
{
    return 3;
}

//! Generates a tensor. Inputs 0-2 may give the shape, alpha and beta as tensors.
class IFillLayer : public ILayer
{
public:
    //! The output shape.
    void setDimensions(Dims const& dimensions) noexcept { mImpl->setDimensions(dimensions); }

    //! The output shape, or nbDims == -1 when input 0 gives it.
    Dims getDimensions() const noexcept { return mImpl->getDimensions(); }

    //! What to generate.
    void setOperation(FillOperation op) noexcept { mImpl->setOperation(op); }

    //! What to generate.
    FillOperation getOperation() const noexcept { return mImpl->getOperation(); }

    //! The first parameter as a double (start, minimum or mean).
    void setAlpha(double alpha) noexcept { mImpl->setAlpha(alpha); }

    //! The first parameter, or -1 when input 1 gives it.
    double getAlpha() const noexcept { return mImpl->getAlpha(); }

    //! The second parameter as a double (delta, maximum or standard deviation).
    void setBeta(double beta) noexcept { mImpl->setBeta(beta); }

    //! The second parameter, or -1 when input 2 gives it.
    double getBeta() const noexcept { return mImpl->getBeta(); }

    //! Inputs: 0 shape, 1 alpha, 2 beta; 1 and 2 both or neither.
    using ILayer::setInput;

    //! The first parameter as an int64_t.
    void setAlphaInt64(int64_t alpha) noexcept { mImpl->setAlphaInt64(alpha); }

    //! The first parameter as an int64_t, or -1 when input 1 gives it.
    int64_t getAlphaInt64() const noexcept { return mImpl->getAlphaInt64(); }

    //! The second parameter as an int64_t.
    void setBetaInt64(int64_t beta) noexcept { mImpl->setBetaInt64(beta); }

    //! The second parameter as an int64_t, or -1 when input 2 gives it.
    int64_t getBetaInt64() const noexcept { return mImpl->getBetaInt64(); }

    //! Whether alpha and beta are int64_t rather than double.
    bool isAlphaBetaInt64() const noexcept { return mImpl->isAlphaBetaInt64(); }

    //! The output type (kFLOAT, kHALF, kINT32 or kINT64).
    void setToType(DataType toType) noexcept { mImpl->setToType(toType); }

    //! The output type (default kFLOAT).
    DataType getToType() const noexcept { return mImpl->getToType(); }

protected:
    virtual ~IFillLayer() noexcept = default;
    apiv::VFillLayer* mImpl;
};

//! Quantizes its input: output = saturate(round-half-even(input / scale) + zeroPt), saturated to the output type's
//! range (kINT8 [-128, 127], kINT4 [-8, 7]; kFP8 rounds to nearest E4M3 and saturates at +-448). Input 0 the data
//! (kFLOAT, kHALF or kBF16), input 1 the scale (kFLOAT, kHALF or kBF16, positive): a scalar for one scale, a 1-D tensor
//! for one scale per index of the axis (setAxis), or a tensor of the input's rank for one scale per block (the block
//! shape follows from the two shapes, or from setBlockShape). Input 2, optional, the zero point: the scale's shape, the
//! output type, and zero (only symmetric quantization is supported). Q/DQ tensors hold their codes: no dynamic range.
class IQuantizeLayer : public ILayer
{
public:
    //! The quantization axis of a 1-D scale (negative counts from the last axis; default -1).
    int32_t getAxis() const noexcept { return mImpl->getAxis(); }

    //! The quantization axis of a 1-D scale, in [-rank, rank); ignored by scalar and block scales.
    void setAxis(int32_t axis) noexcept { mImpl->setAxis(axis); }

    //! The output type: kINT8 (the default), kFP8 or kINT4.
    void setToType(DataType toType) noexcept { mImpl->setToType(toType); }

    //! The output type.
    DataType getToType() const noexcept { return mImpl->getToType(); }

    //! The extents of one block of a block scale, one per input axis (-1: the whole axis); false (and no change) for
    //! an extent below -1, zero, or a rank that differs from the input's.
    bool setBlockShape(Dims const& blockShape) noexcept { return mImpl->setBlockShape(blockShape); }

    //! The block shape, or nbDims == -1 when none is set (the scale's shape then divides the input's).
    Dims getBlockShape() const noexcept { return mImpl->getBlockShape(); }

    //! Inputs: 0 the data, 1 the scale, 2 the zero point.
    using ILayer::setInput;

protected:
    virtual ~IQuantizeLayer() noexcept = default;
    apiv::VQuantizeLayer* mImpl;
};

//! Dequantizes its input: output = (input - zeroPt) * scale, rounded to the output type. Input 0 the data (kINT8, kFP8
//! or kINT4), input 1 the scale and input 2 the zero point, as for IQuantizeLayer (the zero point has the input's
//! type).
class IDequantizeLayer : public ILayer
{
public:
    //! The quantization axis of a 1-D scale (negative counts from the last axis; default -1).
    int32_t getAxis() const noexcept { return mImpl->getAxis(); }

    //! The quantization axis of a 1-D scale, in [-rank, rank); ignored by scalar and block scales.
    void setAxis(int32_t axis) noexcept { mImpl->setAxis(axis); }

    //! The output type: kFLOAT (the default), kHALF or kBF16.
    void setToType(DataType toType) noexcept { mImpl->setToType(toType); }

    //! The output type.
    DataType getToType() const noexcept { return mImpl->getToType(); }

    //! The extents of one block of a block scale, as IQuantizeLayer::setBlockShape.
    bool setBlockShape(Dims const& blockShape) noexcept { return mImpl->setBlockShape(blockShape); }

    //! The block shape, or nbDims == -1 when none is set.
    Dims getBlockShape() const noexcept { return mImpl->getBlockShape(); }

    //! Inputs: 0 the data, 1 the scale, 2 the zero point.
    using ILayer::setInput;

protected:
    virtual ~IDequantizeLayer() noexcept = default;
    apiv::VDequantizeLayer* mImpl;
};

//! How IScatterLayer reads its indices.
enum class ScatterMode : int32_t
{
    kELEMENT = 0, //!< Each index replaces the axis coordinate of its own position (ONNX ScatterElements).
    kND = 1,      //!< Each index tuple (the last axis of indices) addresses a slice of the data (ONNX ScatterND).
};

namespace impl
{
template <>
struct EnumMaxImpl<ScatterMode>
{
    static constexpr int32_t kVALUE = 2;
};
} // namespace impl

//! Writes updates into a copy of data at positions the indices give; output 0 has the data's type and shape.
//! kELEMENT: indices and updates have the data's rank and one shape; the element of updates at position p goes to p
//! with its coordinate along the axis replaced by indices[p]. kND: the last extent k of indices (a build-time
//! constant, 1 to the data's rank) is the length of each index tuple; updates have shape indices.shape[:-1] +
//! data.shape[k:]. Indices are kINT32 or kINT64; negative ones count from the end of their axis. An update whose
//! index is out of range is skipped; where indices repeat, one of the updates is kept.
class IScatterLayer : public ILayer
{
public:
    //! How the indices are read.
    void setMode(ScatterMode mode) noexcept { mImpl->setMode(mode); }

    //! How the indices are read.
    ScatterMode getMode() const noexcept { return mImpl->getMode(); }

    //! The axis of kELEMENT, in [-rank, rank) (negative from the last axis; default 0). kND ignores it.
    void setAxis(int32_t axis) noexcept { mImpl->setAxis(axis); }

    //! The axis of kELEMENT.
    int32_t getAxis() const noexcept { return mImpl->getAxis(); }

protected:
    apiv::VScatterLayer* mImpl;
    virtual ~IScatterLayer() noexcept = default;
};

//! A sum of products over the inputs' elements, written as an Einstein summation equation: one term of subscript
//! labels (letters a-z, A-Z) per input, separated by commas, each naming the input's axes in order; "..." stands for
//! the axes no letter names (at most once per term; they broadcast across inputs, aligned from the last). A label
//! repeated in one term takes the diagonal; a label shared by several terms multiplies those axes together; a label
//! left out of the output is summed over. "->" followed by a term gives the output's axes (explicit mode); without it
//! the output has the "..." axes, then the labels that appear exactly once, in ASCII order (implicit mode).
//! Example: "ij,jk->ik" (and "ij,jk") is a matrix product. kiln takes one or two inputs of one type (kFLOAT, kHALF or
//! kBF16); the output has that type.
class IEinsumLayer : public ILayer
{
public:
    //! Sets the equation (copied); false (and no change) for one that is not well formed or does not fit the inputs.
    bool setEquation(char const* equation) noexcept { return mImpl->setEquation(equation); }

    //! The equation.
    char const* getEquation() const noexcept { return mImpl->getEquation(); }

protected:
    virtual ~IEinsumLayer() noexcept = default;
    apiv::VEinsumLayer* mImpl;
};

//! Samples input 0 ([N, C, H, W]) at the positions grid (input 1, [N, H_out, W_out, 2], the input's type) gives; the
//! output is [N, C, H_out, W_out] of the input's type. grid[n, h, w] holds (x, y), normalized: -1 and 1 are the
//! centers of the edge elements with align corners, else their outer edges; x runs along W, y along H. The sample
//! mode says what positions outside the input read: kFILL zeros, kCLAMP the nearest edge element, kREFLECT the input
//! mirrored at its edges. Types: kFLOAT, kHALF, kBF16.
class IGridSampleLayer : public ILayer
{
public:
    //! How the elements around a position combine: kNEAREST, kLINEAR (bilinear) or kCUBIC (bicubic).
    void setInterpolationMode(InterpolationMode mode) noexcept { mImpl->setInterpolationMode(mode); }

    //! The interpolation (default kLINEAR).
    InterpolationMode getInterpolationMode() const noexcept { return mImpl->getInterpolationMode(); }

    //! Whether -1 and 1 are the centers of the edge elements (true) or their outer edges (false).
    void setAlignCorners(bool alignCorners) noexcept { mImpl->setAlignCorners(alignCorners); }

    //! Whether corners align (default false).
    bool getAlignCorners() const noexcept { return mImpl->getAlignCorners(); }

    //! What positions outside the input read: kFILL, kCLAMP or kREFLECT; false (and no change) for another mode.
    bool setSampleMode(SampleMode mode) noexcept { return mImpl->setSampleMode(mode); }

    //! The sample mode (default kFILL).
    SampleMode getSampleMode() const noexcept { return mImpl->getSampleMode(); }

protected:
    virtual ~IGridSampleLayer() noexcept = default;
    apiv::VGridSampleLayer* mImpl;
};

//! Reverses sequences of different lengths: for each index b of the batch axis, the first sequenceLens[b] elements
//! along the sequence axis are reversed and the rest copied. Input 1 (sequenceLens) is a 1-D kINT32 or kINT64 tensor
//! of the batch axis' extent; lengths are clamped to [0, the sequence axis' extent]. The output has the input's type
//! and shape; the input has rank 2 or more and any type.
class IReverseSequenceLayer : public ILayer
{
public:
    //! The batch axis, in [0, rank) and not the sequence axis.
    void setBatchAxis(int32_t batchAxis) noexcept { mImpl->setBatchAxis(batchAxis); }

    //! The batch axis (default 1).
    int32_t getBatchAxis() const noexcept { return mImpl->getBatchAxis(); }

    //! The sequence axis, in [0, rank) and not the batch axis.
    void setSequenceAxis(int32_t sequenceAxis) noexcept { mImpl->setSequenceAxis(sequenceAxis); }

    //! The sequence axis (default 0).
    int32_t getSequenceAxis() const noexcept { return mImpl->getSequenceAxis(); }

protected:
    virtual ~IReverseSequenceLayer() noexcept = default;
    apiv::VReverseSequenceLayer* mImpl;
};

//! How INMSLayer reads its boxes.
enum class BoundingBoxFormat : int32_t
{
    kCORNER_PAIRS = 0, //!< (x1, y1, x2, y2): any two diagonal corners.
    kCENTER_SIZES = 1, //!< (x_center, y_center, width, height).
};

template <>
constexpr inline int32_t EnumMax<BoundingBoxFormat>() noexcept
{
    return 2;
}

//! Non-maximum suppression per batch item and class. Per batch item, the (box, class) candidates whose score exceeds
//! the score threshold are ordered by decreasing score and only the first getTopKBoxLimit() are considered; going down
//! that order, a candidate is selected unless it overlaps a box already selected in its class with an IoU above the IoU
//! threshold, until its class has MaxOutputBoxesPerClass boxes.
//!
//! Inputs: 0 the boxes, kFLOAT or kHALF, [batch, boxes, 4] (one box for every class) or [batch, boxes, classes, 4];
//! 1 the scores, the boxes' type, [batch, boxes, classes]; 2 MaxOutputBoxesPerClass, a 0-D kINT32 tensor; 3 the IoU
//! threshold, a 0-D kFLOAT tensor in [0, 1] (optional, default 0); 4 the score threshold, a 0-D kFLOAT tensor
//! (optional, default 0).
//! Outputs: 0 the selected indices, [NumOutputBoxes, 3] rows of (batch, class, box), kINT32 or kINT64, by increasing
//! batch, then decreasing score; 1 NumOutputBoxes, a 0-D kINT32 tensor. NumOutputBoxes is known only once the layer has
//! run (a data-dependent shape); it is at most batch * classes * min(boxes, MaxOutputBoxesPerClass) when
//! MaxOutputBoxesPerClass is a build-time constant, else batch * classes * boxes.
class INMSLayer : public ILayer
{
public:
    //! How the boxes are given (default kCORNER_PAIRS).
    void setBoundingBoxFormat(BoundingBoxFormat fmt) noexcept { mImpl->setBoundingBoxFormat(fmt); }

    //! How the boxes are given.
    BoundingBoxFormat getBoundingBoxFormat() const noexcept { return mImpl->getBoundingBoxFormat(); }

    //! How many of a batch item's highest-scoring candidates are considered (default and largest 5000).
    void setTopKBoxLimit(int32_t limit) noexcept { mImpl->setTopKBoxLimit(limit); }

    //! How many of a batch item's highest-scoring candidates are considered.
    int32_t getTopKBoxLimit() const noexcept { return mImpl->getTopKBoxLimit(); }

    //! Inputs: 0 the boxes, 1 the scores, 2 MaxOutputBoxesPerClass, 3 the IoU threshold and 4 the score threshold
    //! (the last two optional: setting input 4 alone leaves input 3 absent).
    using ILayer::setInput;

    //! The type of output 0: kINT32 or kINT64; false (and no change) for another type.
    bool setIndicesType(DataType type) noexcept { return mImpl->setIndicesType(type); }

    //! The type of output 0 (default kINT32, or what addNMS was given).
    DataType getIndicesType() const noexcept { return mImpl->getIndicesType(); }

protected:
    apiv::VNMSLayer* mImpl;
    virtual ~INMSLayer() noexcept = default;
};

//! The reductions of ICumulativeLayer.
enum class CumulativeOperation : int32_t
{
    kSUM = 0, //!< Prefix sums.
};

namespace impl
{
template <>
struct EnumMaxImpl<CumulativeOperation>
{
    static constexpr int32_t kVALUE = 1;
};
} // namespace impl

//! Successive reductions along one axis; the output has the input's type and shape. For a line x of n elements along
//! the axis, output j reduces x[0..j] (forward, inclusive), x[0..j-1] (forward, exclusive), x[j..n-1] (reverse,
//! inclusive) or x[j+1..n-1] (reverse, exclusive); an empty range gives the operation's identity (0 for kSUM).
//! Input 1 is the axis: a 0-D kINT32 or kINT64 tensor whose value is known at build time, in [-rank, rank - 1].
class ICumulativeLayer : public ILayer
{
public:
    //! The reduction; false (and no change) for a value that is not a CumulativeOperation.
    bool setOperation(CumulativeOperation op) noexcept { return mImpl->setOperation(op); }

    //! The reduction (default kSUM).
    CumulativeOperation getOperation() const noexcept { return mImpl->getOperation(); }

    //! Whether output j leaves element j out of its reduction.
    void setExclusive(bool exclusive) noexcept { mImpl->setExclusive(exclusive); }

    //! Whether the reduction is exclusive (default false).
    bool getExclusive() const noexcept { return mImpl->getExclusive(); }

    //! Whether the reduction runs from the end of the axis to its start.
    void setReverse(bool reverse) noexcept { mImpl->setReverse(reverse); }

    //! Whether the reduction runs backward (default false).
    bool getReverse() const noexcept { return mImpl->getReverse(); }

protected:
    apiv::VCumulativeLayer* mImpl;
    virtual ~ICumulativeLayer() noexcept = default;
};

//! How an ITripLimitLayer limits the iterations of its loop.
enum class TripLimit : int32_t
{
    kCOUNT = 0, //!< A 0-D kINT32 or kINT64 shape tensor, computed outside the loop: the number of iterations.
    kWHILE = 1, //!< A 0-D kBOOL tensor, computed in the loop: whether the next iteration runs.
};

namespace impl
{
template <>
struct EnumMaxImpl<TripLimit>
{
    static constexpr int32_t kVALUE = 2;
};
} // namespace impl

//! What an ILoopOutputLayer gives of its input.
enum class LoopOutput : int32_t
{
    kLAST_VALUE = 0,  //!< The value after the last iteration (the input is a recurrence's output).
    kCONCATENATE = 1, //!< The values of every iteration, stacked along a new axis in iteration order.
    kREVERSE = 2,     //!< As kCONCATENATE, in reverse iteration order.
};

namespace impl
{
template <>
struct EnumMaxImpl<LoopOutput>
{
    static constexpr int32_t kVALUE = 3;
};
} // namespace impl

//! The layers that mark the boundary of a loop: its trip limits, iterators, recurrences and outputs.
class ILoopBoundaryLayer : public ILayer
{
public:
    //! The loop this layer belongs to.
    ILoop* getLoop() const noexcept { return mBoundary->getLoop(); }

protected:
    virtual ~ILoopBoundaryLayer() noexcept = default;
    apiv::VLoopBoundaryLayer* mBoundary;
};

//! A value carried from one iteration to the next: input 0 its value before the first iteration (from outside the
//! loop), input 1 its next value (computed in the loop, set with setInput(1, ...)); output 0 its current value.
class IRecurrenceLayer : public ILoopBoundaryLayer
{
public:
    using ILayer::setInput;

protected:
    virtual ~IRecurrenceLayer() noexcept = default;
    apiv::VRecurrenceLayer* mImpl;
};

//! An output of a loop: for kLAST_VALUE the final value of a recurrence; for kCONCATENATE and kREVERSE the values of
//! every iteration stacked along a new axis, whose length is input 1 (a 0-D kINT32 or kINT64 shape tensor computed
//! outside the loop, set with setInput(1, ...)).
class ILoopOutputLayer : public ILoopBoundaryLayer
{
public:
    //! The kind of output.
    LoopOutput getLoopOutput() const noexcept { return mImpl->getLoopOutput(); }

    //! The axis of the new dimension (kCONCATENATE and kREVERSE).
    void setAxis(int32_t axis) noexcept { mImpl->setAxis(axis); }

    //! The axis of the new dimension (default 0).
    int32_t getAxis() const noexcept { return mImpl->getAxis(); }

    using ILayer::setInput;

protected:
    virtual ~ILoopOutputLayer() noexcept = default;
    apiv::VLoopOutputLayer* mImpl;
};

//! A limit of the iterations of a loop (see TripLimit). It has no outputs.
class ITripLimitLayer : public ILoopBoundaryLayer
{
public:
    //! The kind of limit.
    TripLimit getTripLimit() const noexcept { return mImpl->getTripLimit(); }

protected:
    virtual ~ITripLimitLayer() noexcept = default;
    apiv::VTripLimitLayer* mImpl;
};

//! Iterates over an axis of its input: at iteration i its output is the input's slice i along the axis (from the end
//! when reversed), the axis removed.
class IIteratorLayer : public ILoopBoundaryLayer
{
public:
    //! The axis iterated over.
    void setAxis(int32_t axis) noexcept { mImpl->setAxis(axis); }

    //! The axis iterated over (default 0).
    int32_t getAxis() const noexcept { return mImpl->getAxis(); }

    //! Whether the iteration runs from the end of the axis.
    void setReverse(bool reverse) noexcept { mImpl->setReverse(reverse); }

    //! Whether the iteration runs from the end (default false).
    bool getReverse() const noexcept { return mImpl->getReverse(); }

protected:
    virtual ~IIteratorLayer() noexcept = default;
    apiv::VIteratorLayer* mImpl;
};

//! Builds a loop: a part of the network that runs repeatedly.
//!
//!     ILoop* loop = network->addLoop();
//!     loop->addTripLimit(*count, TripLimit::kCOUNT);                 // a 0-D shape tensor
//!     IRecurrenceLayer* sum = loop->addRecurrence(*zero);
//!     ITensor* x = loop->addIterator(*sequence)->getOutput(0);      // row i of sequence
//!     ITensor* next = network->addElementWise(*sum->getOutput(0), *x, ElementWiseOperation::kSUM)->getOutput(0);
//!     sum->setInput(1, *next);
//!     ITensor* total = loop->addLoopOutput(*sum->getOutput(0), LoopOutput::kLAST_VALUE)->getOutput(0);
//!
//! A layer belongs to the loop when it reads (directly or not) a recurrence's or an iterator's output; the loop's
//! outputs are the only way out of it.
class ILoop : public INoCopy
{
public:
    //! Adds a recurrence whose value before the first iteration is initialValue; nullptr on error.
    IRecurrenceLayer* addRecurrence(ITensor& initialValue) noexcept { return mImpl->addRecurrence(initialValue); }

    //! Adds a limit of the iterations (at most one of each kind); nullptr on error.
    ITripLimitLayer* addTripLimit(ITensor& tensor, TripLimit limit) noexcept
    {
        return mImpl->addTripLimit(tensor, limit);
    }

    //! Adds an iterator over axis of tensor (from the end when reverse); nullptr on error.
    IIteratorLayer* addIterator(ITensor& tensor, int32_t axis = 0, bool reverse = false) noexcept
    {
        return mImpl->addIterator(tensor, axis, reverse);
    }

    //! Adds an output of the loop (see LoopOutput); nullptr on error.
    ILoopOutputLayer* addLoopOutput(ITensor& tensor, LoopOutput outputKind, int32_t axis = 0) noexcept
    {
        return mImpl->addLoopOutput(tensor, outputKind, axis);
    }

    //! Names the loop (its messages use the name).
    void setName(char const* name) noexcept { mImpl->setName(name); }

    //! The loop's name.
    char const* getName() const noexcept { return mImpl->getName(); }

protected:
    virtual ~ILoop() noexcept = default;
    apiv::VLoop* mImpl;
};

//! The layers that mark the boundary of an if-conditional: its condition, its inputs and its outputs.
class IIfConditionalBoundaryLayer : public ILayer
{
public:
    //! The conditional this layer belongs to.
    IIfConditional* getConditional() const noexcept { return mBoundary->getConditional(); }

protected:
    virtual ~IIfConditionalBoundaryLayer() noexcept = default;
    apiv::VConditionalBoundaryLayer* mBoundary;
};

//! The condition of an if-conditional: a 0-D kBOOL tensor, its one input. It has no outputs.
class IConditionLayer : public IIfConditionalBoundaryLayer
{
public:
protected:
    virtual ~IConditionLayer() noexcept = default;
    apiv::VConditionLayer* mImpl;
};

//! An output of an if-conditional: input 0 the true branch's value, input 1 the false branch's; its output is the value
//! of the branch the condition chose. Both have the same type and rank.
class IIfConditionalOutputLayer : public IIfConditionalBoundaryLayer
{
public:
protected:
    virtual ~IIfConditionalOutputLayer() noexcept = default;
    apiv::VConditionalOutputLayer* mImpl;
};

//! An input of an if-conditional: its output is its input, for the branches to read.
class IIfConditionalInputLayer : public IIfConditionalBoundaryLayer
{
public:
protected:
    virtual ~IIfConditionalInputLayer() noexcept = default;
    apiv::VConditionalInputLayer* mImpl;
};

//! Builds a part of the network that runs one of two branches, chosen at run time by a 0-D kBOOL condition:
//!
//!     IIfConditional* cond = network->addIfConditional();
//!     cond->setCondition(*flag);
//!     ITensor* x = cond->addInput(*input)->getOutput(0);
//!     ITensor* t = network->addUnary(*x, UnaryOperation::kEXP)->getOutput(0);   // the true branch
//!     ITensor* f = network->addUnary(*x, UnaryOperation::kABS)->getOutput(0);   // the false branch
//!     ITensor* y = cond->addOutput(*t, *f)->getOutput(0);
//!
//! A layer belongs to a branch when the branch's outputs are all that read it; only the chosen branch's layers run.
class IIfConditional : public INoCopy
{
public:
    //! Sets the condition, a 0-D kBOOL tensor (once); nullptr on error.
    IConditionLayer* setCondition(ITensor& condition) noexcept { return mImpl->setCondition(condition); }

    //! Adds an output: trueSubgraphOutput when the condition holds, else falseSubgraphOutput; nullptr on error.
    IIfConditionalOutputLayer* addOutput(ITensor& trueSubgraphOutput, ITensor& falseSubgraphOutput) noexcept
    {
        return mImpl->addOutput(trueSubgraphOutput, falseSubgraphOutput);
    }

    //! Adds an input: a layer whose output is input, for the branches to read; nullptr on error.
    IIfConditionalInputLayer* addInput(ITensor& input) noexcept { return mImpl->addInput(input); }

    //! Names the conditional (its messages use the name).
    void setName(char const* name) noexcept { mImpl->setName(name); }

    //! The conditional's name.
    char const* getName() const noexcept { return mImpl->getName(); }

protected:
    virtual ~IIfConditional() noexcept = default;
    apiv::VIfConditional* mImpl;
};

//! A network to build: inputs, layers and outputs. Made by IBuilder::createNetworkV2(); delete it before the
//! builder. It owns its tensors and layers. Only the add* methods of the layers kiln declares are here.
class INetworkDefinition : public INoCopy
{
public:
    virtual ~INetworkDefinition() noexcept = default;

    //! Adds input name with type and shape (-1 for extents given at run time); nullptr on error.
    ITensor* addInput(char const* name, DataType type, Dims const& dimensions) noexcept
    {
        return mImpl->addInput(name, type, dimensions);
    }

    //! Makes tensor a network output.
    void markOutput(ITensor& tensor) noexcept { mImpl->markOutput(tensor); }

    //! Makes tensor a debug tensor, reported to IDebugListener at run time.
    bool markDebug(ITensor& tensor) noexcept { return mImpl->markDebug(tensor); }

    //! Undoes markDebug().
    bool unmarkDebug(ITensor& tensor) noexcept { return mImpl->unmarkDebug(tensor); }

    //! Whether tensor is marked as a debug tensor.
    bool isDebugTensor(ITensor const& tensor) const noexcept { return mImpl->isDebugTensor(tensor); }

    //! Makes every tensor that survives fusion a debug tensor, without preventing fusion.
    bool markUnfusedTensorsAsDebugTensors() noexcept { return mImpl->markUnfusedTensorsAsDebugTensors(); }

    //! Undoes markUnfusedTensorsAsDebugTensors().
    bool unmarkUnfusedTensorsAsDebugTensors() noexcept { return mImpl->unmarkUnfusedTensorsAsDebugTensors(); }

    //! Adds an activation; set alpha and beta on the layer where the function has them.
    IActivationLayer* addActivation(ITensor& input, ActivationType type) noexcept
    {
        return mImpl->addActivation(input, type);
    }

    //! Adds a softmax.
    ISoftMaxLayer* addSoftMax(ITensor& input) noexcept { return mImpl->addSoftMax(input); }

    //! Adds a concatenation of nbInputs tensors.
    IConcatenationLayer* addConcatenation(ITensor* const* inputs, int32_t nbInputs) noexcept
    {
        return mImpl->addConcatenation(inputs, nbInputs);
    }

    //! Adds a binary element-wise operation.
    IElementWiseLayer* addElementWise(ITensor& input1, ITensor& input2, ElementWiseOperation op) noexcept
    {
        return mImpl->addElementWise(input1, input2, op);
    }

    //! Adds a unary operation.
    IUnaryLayer* addUnary(ITensor& input, UnaryOperation operation) noexcept
    {
        return mImpl->addUnary(input, operation);
    }

    //! Adds a shuffle (transpose, reshape, transpose).
    IShuffleLayer* addShuffle(ITensor& input) noexcept { return mImpl->addShuffle(input); }

    //! The number of layers.
    int32_t getNbLayers() const noexcept { return mImpl->getNbLayers(); }

    //! Layer index, or nullptr.
    ILayer* getLayer(int32_t index) const noexcept { return mImpl->getLayer(index); }

    //! The number of inputs.
    int32_t getNbInputs() const noexcept { return mImpl->getNbInputs(); }

    //! Input index, or nullptr.
    ITensor* getInput(int32_t index) const noexcept { return mImpl->getInput(index); }

    //! The number of outputs, shape outputs included.
    int32_t getNbOutputs() const noexcept { return mImpl->getNbOutputs(); }

    //! Output index, or nullptr.
    ITensor* getOutput(int32_t index) const noexcept { return mImpl->getOutput(index); }

    //! Adds a reduction over the axes in the bit mask reduceAxes.
    IReduceLayer* addReduce(
        ITensor& input, ReduceOperation operation, uint32_t reduceAxes, bool keepDimensions) noexcept
    {
        return mImpl->addReduce(input, operation, reduceAxes, keepDimensions);
    }

    //! Adds a top-k along the one axis of the bit mask reduceAxes; its indices are kINT32.
    ITopKLayer* addTopK(ITensor& input, TopKOperation op, int32_t k, uint32_t reduceAxes) noexcept
    {
        return mImpl->addTopK(input, op, k, reduceAxes);
    }

    //! Adds a top-k whose indices (output 1) are indicesType: kINT32 or kINT64.
    ITopKLayer* addTopK(ITensor& input, TopKOperation op, int32_t k, uint32_t reduceAxes, DataType indicesType) noexcept
    {
        return mImpl->addTopKV2(input, op, k, reduceAxes, indicesType);
    }

    //! Adds a kDEFAULT gather along axis.
    IGatherLayer* addGather(ITensor& data, ITensor& indices, int32_t axis) noexcept
    {
        return mImpl->addGather(data, indices, axis);
    }

    //! Adds a gather of the given form along axis 0.
    IGatherLayer* addGatherV2(ITensor& data, ITensor& indices, GatherMode mode) noexcept
    {
        return mImpl->addGatherV2(data, indices, mode);
    }

    //! Adds a matrix multiplication.
    IMatrixMultiplyLayer* addMatrixMultiply(
        ITensor& input0, MatrixOperation op0, ITensor& input1, MatrixOperation op1) noexcept
    {
        return mImpl->addMatrixMultiply(input0, op0, input1, op1);
    }

    //! Adds a non-zero layer whose indices are kINT32. Deprecated: use the overload with an indices type.
    TRT_DEPRECATED INonZeroLayer* addNonZero(ITensor& input) noexcept { return mImpl->addNonZero(input); }

    //! Adds a non-zero layer whose indices (output 0) are indicesType: kINT32 or kINT64.
    INonZeroLayer* addNonZero(ITensor& input, DataType indicesType) noexcept
    {
        return mImpl->addNonZeroV2(input, indicesType);
    }

    //! Adds a constant of the given shape made of weights (which must outlive the build).
    IConstantLayer* addConstant(Dims const& dimensions, Weights weights) noexcept
    {
        return mImpl->addConstant(dimensions, weights);
    }

    //! Adds an identity.
    IIdentityLayer* addIdentity(ITensor& input) noexcept { return mImpl->addIdentity(input); }

    //! Adds a cast to toType.
    ICastLayer* addCast(ITensor& input, DataType toType) noexcept { return mImpl->addCast(input, toType); }

    //! Removes a tensor that no layer uses.
    void removeTensor(ITensor& tensor) noexcept { mImpl->removeTensor(tensor); }

    //! Undoes markOutput().
    void unmarkOutput(ITensor& tensor) noexcept { mImpl->unmarkOutput(tensor); }

    //! Adds a V2 plugin layer. Deprecated: use addPluginV3.
    TRT_DEPRECATED IPluginV2Layer* addPluginV2(ITensor* const* inputs, int32_t nbInputs, IPluginV2& plugin) noexcept
    {
        return mImpl->addPluginV2(inputs, nbInputs, plugin);
    }

    //! Adds a V3 plugin layer with nbInputs inputs and nbShapeInputs shape inputs (nullptr, 0 for none).
    IPluginV3Layer* addPluginV3(ITensor* const* inputs, int32_t nbInputs, ITensor* const* shapeInputs,
        int32_t nbShapeInputs, IPluginV3& plugin) noexcept
    {
        return mImpl->addPluginV3(inputs, nbInputs, shapeInputs, nbShapeInputs, plugin);
    }

    //! Adds a slice.
    ISliceLayer* addSlice(ITensor& input, Dims const& start, Dims const& size, Dims const& stride) noexcept
    {
        return mImpl->addSlice(input, start, size, stride);
    }

    //! Names the network (copied); the engine reports it.
    void setName(char const* name) noexcept { mImpl->setName(name); }

    //! The network's name.
    char const* getName() const noexcept { return mImpl->getName(); }

    //! Adds a shape layer.
    IShapeLayer* addShape(ITensor& input) noexcept { return mImpl->addShape(input); }

    //! Always false. Deprecated: there is no implicit batch dimension in TensorRT 10.
    TRT_DEPRECATED bool hasImplicitBatchDimension() const noexcept { return mImpl->hasImplicitBatchDimension(); }

    //! The creation flags.
    NetworkDefinitionCreationFlags getFlags() const noexcept { return mImpl->getFlags(); }

    //! Whether a creation flag is set.
    bool getFlag(NetworkDefinitionCreationFlag networkDefinitionCreationFlag) const noexcept
    {
        return mImpl->getFlag(networkDefinitionCreationFlag);
    }

    //! Makes tensor a shape output, computed by IExecutionContext::inferShapes(); false if already an output.
    bool markOutputForShapes(ITensor& tensor) noexcept { return mImpl->markOutputForShapes(tensor); }

    //! Undoes markOutputForShapes().
    bool unmarkOutputForShapes(ITensor& tensor) noexcept { return mImpl->unmarkOutputForShapes(tensor); }

    //! Adds a 2-D or 3-D convolution with nbOutputMaps output channels; empty biasWeights for no bias.
    IConvolutionLayer* addConvolutionNd(ITensor& input, int64_t nbOutputMaps, Dims const& kernelSize,
        Weights kernelWeights, Weights biasWeights) noexcept
    {
        return mImpl->addConvolutionNd(input, nbOutputMaps, kernelSize, kernelWeights, biasWeights);
    }

    //! Adds a 2-D or 3-D deconvolution with nbOutputMaps output channels; empty biasWeights for no bias.
    IDeconvolutionLayer* addDeconvolutionNd(ITensor& input, int64_t nbOutputMaps, Dims const& kernelSize,
        Weights kernelWeights, Weights biasWeights) noexcept
    {
        return mImpl->addDeconvolutionNd(input, nbOutputMaps, kernelSize, kernelWeights, biasWeights);
    }

    //! Adds a 2-D or 3-D pooling.
    IPoolingLayer* addPoolingNd(ITensor& input, PoolingType type, Dims const& windowSize) noexcept
    {
        return mImpl->addPoolingNd(input, type, windowSize);
    }

    //! Adds a resize of input (until set otherwise: nearest, to the input's shape).
    IResizeLayer* addResize(ITensor& input) noexcept { return mImpl->addResize(input); }

    //! Adds an element-wise select.
    //! Adds a loop (see ILoop); nullptr on error.
    ILoop* addLoop() noexcept { return mImpl->addLoop(); }

    //! Adds an if-conditional (see IIfConditional); nullptr on error.
    IIfConditional* addIfConditional() noexcept { return mImpl->addIfConditional(); }

    ISelectLayer* addSelect(ITensor& condition, ITensor& thenInput, ITensor& elseInput) noexcept
    {
        return mImpl->addSelect(condition, thenInput, elseInput);
    }

    //! Adds a cumulative operation of input along the axis that axis holds (a 0-D kINT32 or kINT64 tensor known at
    //! build time).
    ICumulativeLayer* addCumulative(
        ITensor& input, ITensor& axis, CumulativeOperation operation, bool exclusive, bool reverse) noexcept
    {
        return mImpl->addCumulative(input, axis, operation, exclusive, reverse);
    }

    //! Adds a fill with a kFLOAT output. Deprecated: use the overload with an output type.
    TRT_DEPRECATED IFillLayer* addFill(Dims const& dimensions, FillOperation op) noexcept
    {
        return mImpl->addFill(dimensions, op);
    }

    //! Adds a fill with output type outputType.
    IFillLayer* addFill(Dims const& dimensions, FillOperation op, DataType outputType) noexcept
    {
        return mImpl->addFillV2(dimensions, op, outputType);
    }

    //! Names every current use of weights (for refitting); nullptr clears the name.
    bool setWeightsName(Weights weights, char const* name) noexcept { return mImpl->setWeightsName(weights, name); }

    //! Sends errors to recorder as well as to the logger; nullptr detaches.
    void setErrorRecorder(IErrorRecorder* recorder) noexcept { mImpl->setErrorRecorder(recorder); }

    //! The recorder set with setErrorRecorder(), or nullptr.
    IErrorRecorder* getErrorRecorder() const noexcept { return mImpl->getErrorRecorder(); }

    //! Adds a scatter of updates into data at indices (the axis of kELEMENT: 0 until set).
    IScatterLayer* addScatter(ITensor& data, ITensor& indices, ITensor& updates, ScatterMode mode) noexcept
    {
        return mImpl->addScatter(data, indices, updates, mode);
    }

    //! Adds an Einstein summation of nbInputs tensors (kiln: one or two) by equation (copied).
    IEinsumLayer* addEinsum(ITensor* const* inputs, int32_t nbInputs, char const* equation) noexcept
    {
        return mImpl->addEinsum(inputs, nbInputs, equation);
    }

    //! Adds a grid sample of input ([N, C, H, W]) at the positions of grid ([N, H_out, W_out, 2]); until set otherwise
    //! bilinear, corners not aligned, zeros outside (kFILL).
    IGridSampleLayer* addGridSample(ITensor& input, ITensor& grid) noexcept
    {
        return mImpl->addGridSample(input, grid);
    }

    //! Adds a reversal of the sequences of input whose lengths sequenceLens holds (batch axis 1 and sequence axis 0
    //! until set otherwise).
    IReverseSequenceLayer* addReverseSequence(ITensor& input, ITensor& sequenceLens) noexcept
    {
        return mImpl->addReverseSequence(input, sequenceLens);
    }

    //! Adds a non-maximum suppression whose indices are kINT32. Deprecated: use the overload with an indices type.
    TRT_DEPRECATED INMSLayer* addNMS(ITensor& boxes, ITensor& scores, ITensor& maxOutputBoxesPerClass) noexcept
    {
        return mImpl->addNMS(boxes, scores, maxOutputBoxesPerClass);
    }

    //! Adds a non-maximum suppression whose selected indices (output 0) are indicesType: kINT32 or kINT64.
    INMSLayer* addNMS(ITensor& boxes, ITensor& scores, ITensor& maxOutputBoxesPerClass, DataType indicesType) noexcept
    {
        return mImpl->addNMSV2(boxes, scores, maxOutputBoxesPerClass, indicesType);
    }

    //! Adds a dequantize of input by scale to kFLOAT.
    IDequantizeLayer* addDequantize(ITensor& input, ITensor& scale) noexcept
    {
        return mImpl->addDequantize(input, scale);
    }

    //! Adds a quantize of input by scale to kINT8.
    IQuantizeLayer* addQuantize(ITensor& input, ITensor& scale) noexcept { return mImpl->addQuantize(input, scale); }

    //! Adds a quantize of input by scale to outputType (kINT8, kFP8 or kINT4).
    IQuantizeLayer* addQuantize(ITensor& input, ITensor& scale, DataType outputType) noexcept
    {
        return mImpl->addQuantizeV2(input, scale, outputType);
    }

    //! Adds a dequantize of input by scale to outputType (kFLOAT, kHALF or kBF16).
    IDequantizeLayer* addDequantize(ITensor& input, ITensor& scale, DataType outputType) noexcept
    {
        return mImpl->addDequantizeV2(input, scale, outputType);
    }

    //! The builder that made this network. Virtual, unlike the rest: its slot follows the destructor's two.
    virtual IBuilder& getBuilder() const noexcept { return mImpl->getBuilder(); }

    //! Makes weights name individually refittable (with BuilderFlag::kREFIT_INDIVIDUAL).
    bool markWeightsRefittable(char const* name) noexcept { return mImpl->markWeightsRefittable(name); }

    //! Undoes markWeightsRefittable().
    bool unmarkWeightsRefittable(char const* name) noexcept { return mImpl->unmarkWeightsRefittable(name); }

    //! Whether weights name are marked refittable.
    bool areWeightsMarkedRefittable(char const* name) const noexcept { return mImpl->areWeightsMarkedRefittable(name); }

protected:
    apiv::VNetworkDefinition* mImpl;
};

//! Timings of tactics, shared by builds. Made by IBuilderConfig::createTimingCache(); delete it after the builds
//! that use it.
class ITimingCache : public INoCopy
{
public:
    virtual ~ITimingCache() noexcept = default;

    //! The cache as bytes.
    nvinfer1::IHostMemory* serialize() const noexcept { return mImpl->serialize(); }

    //! Adds the entries of inputCache that this one lacks; ignoreMismatch allows a cache from another device.
    bool combine(ITimingCache const& inputCache, bool ignoreMismatch) noexcept
    {
        return mImpl->combine(inputCache, ignoreMismatch);
    }

    //! Removes every entry.
    bool reset() noexcept { return mImpl->reset(); }

    //! Writes up to capacity keys to keyBuffer (may be nullptr); returns the number of entries, or -1.
    int64_t queryKeys(TimingCacheKey* keyBuffer, int64_t capacity) const noexcept
    {
        return mImpl->queryKeys(keyBuffer, capacity);
    }

    //! The value of key, or an invalid value.
    TimingCacheValue query(TimingCacheKey const& key) const noexcept { return mImpl->query(key); }

    //! Replaces the value of an existing key (a NaN time removes it); needs BuilderFlag::kEDITABLE_TIMING_CACHE.
    bool update(TimingCacheKey const& key, TimingCacheValue const& value) noexcept { return mImpl->update(key, value); }

protected:
    apiv::VTimingCache* mImpl;
};

//! The options of one build. Made by IBuilder::createBuilderConfig(); delete it before the builder.
class IBuilderConfig : public INoCopy
{
public:
    virtual ~IBuilderConfig() noexcept = default;

    //! The number of runs averaged when timing a tactic. Virtual, unlike the rest: its slot follows the destructor's.
    virtual void setAvgTimingIterations(int32_t avgTiming) noexcept { mImpl->setAvgTimingIterations(avgTiming); }

    //! The setting of setAvgTimingIterations() (default 1).
    int32_t getAvgTimingIterations() const noexcept { return mImpl->getAvgTimingIterations(); }

    //! The capability to build for (default kSTANDARD).
    void setEngineCapability(EngineCapability capability) noexcept { mImpl->setEngineCapability(capability); }

    //! The capability to build for.
    EngineCapability getEngineCapability() const noexcept { return mImpl->getEngineCapability(); }

    //! The INT8 calibrator. Deprecated: use explicit quantization.
    TRT_DEPRECATED void setInt8Calibrator(IInt8Calibrator* calibrator) noexcept
    {
        mImpl->setInt8Calibrator(calibrator);
    }

    //! The INT8 calibrator. Deprecated: use explicit quantization.
    TRT_DEPRECATED IInt8Calibrator* getInt8Calibrator() const noexcept { return mImpl->getInt8Calibrator(); }

    //! Replaces all builder flags.
    void setFlags(BuilderFlags builderFlags) noexcept { mImpl->setFlags(builderFlags); }

    //! The builder flags as a bit mask (by default only kTF32 is set, as in TensorRT).
    BuilderFlags getFlags() const noexcept { return mImpl->getFlags(); }

    //! Turns one flag off.
    void clearFlag(BuilderFlag builderFlag) noexcept { mImpl->clearFlag(builderFlag); }

    //! Turns one flag on.
    void setFlag(BuilderFlag builderFlag) noexcept { mImpl->setFlag(builderFlag); }

    //! Whether one flag is on.
    bool getFlag(BuilderFlag builderFlag) const noexcept { return mImpl->getFlag(builderFlag); }

    //! The device layer must run on.
    void setDeviceType(ILayer const* layer, DeviceType deviceType) noexcept { mImpl->setDeviceType(layer, deviceType); }

    //! The device layer runs on.
    DeviceType getDeviceType(ILayer const* layer) const noexcept { return mImpl->getDeviceType(layer); }

    //! Whether setDeviceType() was called for layer.
    bool isDeviceTypeSet(ILayer const* layer) const noexcept { return mImpl->isDeviceTypeSet(layer); }

    //! Undoes setDeviceType() for layer.
    void resetDeviceType(ILayer const* layer) noexcept { mImpl->resetDeviceType(layer); }

    //! Whether layer can run on DLA.
    bool canRunOnDLA(ILayer const* layer) const noexcept { return mImpl->canRunOnDLA(layer); }

    //! The DLA core to build for (default -1).
    void setDLACore(int32_t dlaCore) noexcept { mImpl->setDLACore(dlaCore); }

    //! The DLA core, or -1.
    int32_t getDLACore() const noexcept { return mImpl->getDLACore(); }

    //! The device of layers without setDeviceType() (default kGPU).
    void setDefaultDeviceType(DeviceType deviceType) noexcept { mImpl->setDefaultDeviceType(deviceType); }

    //! The default device.
    DeviceType getDefaultDeviceType() const noexcept { return mImpl->getDefaultDeviceType(); }

    //! Restores every default.
    void reset() noexcept { mImpl->reset(); }

    //! The stream tactics are timed on.
    void setProfileStream(const cudaStream_t stream) noexcept { return mImpl->setProfileStream(stream); }

    //! The stream set with setProfileStream(), or nullptr.
    cudaStream_t getProfileStream() const noexcept { return mImpl->getProfileStream(); }

    //! Adds a valid profile; returns its index, or -1. Needed when the network has run-time shapes.
    int32_t addOptimizationProfile(IOptimizationProfile const* profile) noexcept
    {
        return mImpl->addOptimizationProfile(profile);
    }

    //! The number of profiles added.
    int32_t getNbOptimizationProfiles() const noexcept { return mImpl->getNbOptimizationProfiles(); }

    //! How much layer detail the engine records (default kLAYER_NAMES_ONLY).
    void setProfilingVerbosity(ProfilingVerbosity verbosity) noexcept { mImpl->setProfilingVerbosity(verbosity); }

    //! The profiling verbosity.
    ProfilingVerbosity getProfilingVerbosity() const noexcept { return mImpl->getProfilingVerbosity(); }

    //! The algorithm selector. Deprecated: use an editable timing cache.
    TRT_DEPRECATED void setAlgorithmSelector(IAlgorithmSelector* selector) noexcept
    {
        mImpl->setAlgorithmSelector(selector);
    }

    //! The algorithm selector. Deprecated: use an editable timing cache.
    TRT_DEPRECATED IAlgorithmSelector* getAlgorithmSelector() const noexcept { return mImpl->getAlgorithmSelector(); }

    //! The profile used for INT8 calibration. Deprecated: use explicit quantization.
    TRT_DEPRECATED bool setCalibrationProfile(IOptimizationProfile const* profile) noexcept
    {
        return mImpl->setCalibrationProfile(profile);
    }

    //! The calibration profile, or nullptr. Deprecated: use explicit quantization.
    TRT_DEPRECATED IOptimizationProfile const* getCalibrationProfile() noexcept
    {
        return mImpl->getCalibrationProfile();
    }

    //! Replaces the quantization flags. Deprecated: use explicit quantization.
    TRT_DEPRECATED void setQuantizationFlags(QuantizationFlags flags) noexcept { mImpl->setQuantizationFlags(flags); }

    //! The quantization flags. Deprecated: use explicit quantization.
    TRT_DEPRECATED QuantizationFlags getQuantizationFlags() const noexcept { return mImpl->getQuantizationFlags(); }

    //! Turns one quantization flag off. Deprecated: use explicit quantization.
    TRT_DEPRECATED void clearQuantizationFlag(QuantizationFlag flag) noexcept { mImpl->clearQuantizationFlag(flag); }

    //! Turns one quantization flag on. Deprecated: use explicit quantization.
    TRT_DEPRECATED void setQuantizationFlag(QuantizationFlag flag) noexcept { mImpl->setQuantizationFlag(flag); }

    //! Whether one quantization flag is on. Deprecated: use explicit quantization.
    TRT_DEPRECATED bool getQuantizationFlag(QuantizationFlag flag) const noexcept
    {
        return mImpl->getQuantizationFlag(flag);
    }

    //! The tactic sources the builder may use; false if the mask is invalid.
    bool setTacticSources(TacticSources tacticSources) noexcept { return mImpl->setTacticSources(tacticSources); }

    //! The tactic sources.
    TacticSources getTacticSources() const noexcept { return mImpl->getTacticSources(); }

    //! A timing cache from size bytes of a serialized one (size 0: a new, empty cache), owned by the caller.
    nvinfer1::ITimingCache* createTimingCache(void const* blob, std::size_t size) const noexcept
    {
        return mImpl->createTimingCache(blob, size);
    }

    //! Uses cache for this build; ignoreMismatch accepts a cache from another device.
    bool setTimingCache(ITimingCache const& cache, bool ignoreMismatch) noexcept
    {
        return mImpl->setTimingCache(cache, ignoreMismatch);
    }

    //! The cache set with setTimingCache(), or nullptr.
    nvinfer1::ITimingCache const* getTimingCache() const noexcept { return mImpl->getTimingCache(); }

    //! Limits a memory pool to poolSize bytes.
    void setMemoryPoolLimit(MemoryPoolType pool, std::size_t poolSize) noexcept
    {
        mImpl->setMemoryPoolLimit(pool, poolSize);
    }

    //! The limit of a memory pool, or its default.
    std::size_t getMemoryPoolLimit(MemoryPoolType pool) const noexcept { return mImpl->getMemoryPoolLimit(pool); }

    //! Turns a preview feature on or off.
    void setPreviewFeature(PreviewFeature feature, bool enable) noexcept { mImpl->setPreviewFeature(feature, enable); }

    //! Whether a preview feature is on.
    bool getPreviewFeature(PreviewFeature feature) const noexcept { return mImpl->getPreviewFeature(feature); }

    //! How hard the builder searches, 0 to 5 (default 3).
    void setBuilderOptimizationLevel(int32_t level) noexcept { mImpl->setBuilderOptimizationLevel(level); }

    //! The optimization level. Not const, as in TensorRT.
    int32_t getBuilderOptimizationLevel() noexcept { return mImpl->getBuilderOptimizationLevel(); }

    //! Which other GPUs the engine must run on (default kNONE).
    void setHardwareCompatibilityLevel(HardwareCompatibilityLevel hardwareCompatibilityLevel) noexcept
    {
        mImpl->setHardwareCompatibilityLevel(hardwareCompatibilityLevel);
    }

    //! The hardware compatibility level.
    HardwareCompatibilityLevel getHardwareCompatibilityLevel() const noexcept
    {
        return mImpl->getHardwareCompatibilityLevel();
    }

    //! Plugin libraries to embed in a version-compatible plan (paths unique).
    void setPluginsToSerialize(char const* const* paths, int32_t nbPaths) noexcept
    {
        mImpl->setPluginsToSerialize(paths, nbPaths);
    }

    //! Path index of the plugin libraries to embed.
    char const* getPluginToSerialize(int32_t index) const noexcept { return mImpl->getPluginToSerialize(index); }

    //! The number of plugin libraries to embed.
    int32_t getNbPluginsToSerialize() const noexcept { return mImpl->getNbPluginsToSerialize(); }

    //! The most auxiliary streams the engine may use (0: single stream).
    void setMaxAuxStreams(int32_t nbStreams) noexcept { mImpl->setMaxAuxStreams(nbStreams); }

    //! The setting of setMaxAuxStreams().
    int32_t getMaxAuxStreams() const noexcept { return mImpl->getMaxAuxStreams(); }

    //! Receives build progress and may cancel; nullptr detaches.
    void setProgressMonitor(IProgressMonitor* monitor) noexcept { return mImpl->setProgressMonitor(monitor); }

    //! The monitor set with setProgressMonitor(), or nullptr.
    IProgressMonitor* getProgressMonitor() const noexcept { return mImpl->getProgressMonitor(); }

    //! The platform the engine will run on (default kSAME_AS_BUILD).
    void setRuntimePlatform(RuntimePlatform runtimePlatform) noexcept { mImpl->setRuntimePlatform(runtimePlatform); }

    //! The target platform.
    RuntimePlatform getRuntimePlatform() const noexcept { return mImpl->getRuntimePlatform(); }

    //! The most tactics timed per choice (default -1: the builder decides).
    void setMaxNbTactics(int32_t maxNbTactics) noexcept { mImpl->setMaxNbTactics(maxNbTactics); }

    //! The setting of setMaxNbTactics().
    int32_t getMaxNbTactics() const noexcept { return mImpl->getMaxNbTactics(); }

    //! How hard the builder searches for tiled kernels (default kNONE).
    bool setTilingOptimizationLevel(TilingOptimizationLevel level) noexcept
    {
        return mImpl->setTilingOptimizationLevel(level);
    }

    //! The tiling optimization level.
    TilingOptimizationLevel getTilingOptimizationLevel() const noexcept { return mImpl->getTilingOptimizationLevel(); }

    //! The L2 bytes tiled kernels may use.
    bool setL2LimitForTiling(int64_t size) noexcept { return mImpl->setL2LimitForTiling(size); }

    //! The setting of setL2LimitForTiling().
    int64_t getL2LimitForTiling() const noexcept { return mImpl->getL2LimitForTiling(); }

    //! The configuration string of remote auto-tuning (kSAFETY builds only).
    bool setRemoteAutoTuningConfig(char const* config) noexcept { return mImpl->setRemoteAutoTuningConfig(config); }

    //! The remote auto-tuning configuration, or nullptr.
    char const* getRemoteAutoTuningConfig() const noexcept { return mImpl->getRemoteAutoTuningConfig(); }

protected:
    apiv::VBuilderConfig* mImpl;
};

//! Builds engines from networks. Create it with createInferBuilder(); delete it only after its networks and configs.
class IBuilder : public INoCopy
{
public:
    virtual ~IBuilder() noexcept = default;

    //! Whether the GPU has fast FP16. Deprecated: ask CUDA.
    TRT_DEPRECATED bool platformHasFastFp16() const noexcept { return mImpl->platformHasFastFp16(); }

    //! Whether the GPU has fast INT8. Deprecated: ask CUDA.
    TRT_DEPRECATED bool platformHasFastInt8() const noexcept { return mImpl->platformHasFastInt8(); }

    //! The largest batch DLA supports.
    int32_t getMaxDLABatchSize() const noexcept { return mImpl->getMaxDLABatchSize(); }

    //! The number of DLA cores.
    int32_t getNbDLACores() const noexcept { return mImpl->getNbDLACores(); }

    //! The allocator for device memory of builds and the engines they make; nullptr restores the default.
    void setGpuAllocator(IGpuAllocator* allocator) noexcept { mImpl->setGpuAllocator(allocator); }

    //! A new builder config, owned by the caller.
    nvinfer1::IBuilderConfig* createBuilderConfig() noexcept { return mImpl->createBuilderConfig(); }

    //! A new network, owned by the caller; flags is a bit mask of NetworkDefinitionCreationFlag.
    nvinfer1::INetworkDefinition* createNetworkV2(NetworkDefinitionCreationFlags flags) noexcept
    {
        return mImpl->createNetworkV2(flags);
    }

    //! A new optimization profile, owned by the builder.
    nvinfer1::IOptimizationProfile* createOptimizationProfile() noexcept { return mImpl->createOptimizationProfile(); }

    //! Sends errors to recorder as well as to the logger; nullptr detaches.
    void setErrorRecorder(IErrorRecorder* recorder) noexcept { mImpl->setErrorRecorder(recorder); }

    //! The recorder set with setErrorRecorder(), or nullptr.
    IErrorRecorder* getErrorRecorder() const noexcept { return mImpl->getErrorRecorder(); }

    //! Restores the builder's defaults.
    void reset() noexcept { mImpl->reset(); }

    //! Whether the GPU has TF32. Deprecated: ask CUDA.
    TRT_DEPRECATED bool platformHasTf32() const noexcept { return mImpl->platformHasTf32(); }

    //! Builds network as config says and returns the plan, or nullptr.
    nvinfer1::IHostMemory* buildSerializedNetwork(INetworkDefinition& network, IBuilderConfig& config) noexcept
    {
        return mImpl->buildSerializedNetwork(network, config);
    }

    //! Builds network and writes the plan to writer.
    bool buildSerializedNetworkToStream(
        INetworkDefinition& network, IBuilderConfig& config, IStreamWriter& writer) noexcept
    {
        return mImpl->buildSerializedNetworkToStream(network, config, writer);
    }

    //! Builds network; kernelText receives the generated kernel source of a safety build, or nullptr.
    nvinfer1::IHostMemory* buildSerializedNetwork(
        INetworkDefinition& network, IBuilderConfig& config, IHostMemory*& kernelText) noexcept
    {
        return mImpl->buildSerializedNetworkWithKernelText(network, config, kernelText);
    }

    //! Builds network into an engine directly, or nullptr.
    nvinfer1::ICudaEngine* buildEngineWithConfig(INetworkDefinition& network, IBuilderConfig& config) noexcept
    {
        return mImpl->buildEngineWithConfig(network, config);
    }

    //! Whether network fits the restrictions of config (a quick check, not a build).
    bool isNetworkSupported(INetworkDefinition const& network, IBuilderConfig const& config) const noexcept
    {
        return mImpl->isNetworkSupported(network, config);
    }

    //! The logger given to createInferBuilder().
    ILogger* getLogger() const noexcept { return mImpl->getLogger(); }

    //! Allows up to maxThreads threads (default 1).
    bool setMaxThreads(int32_t maxThreads) noexcept { return mImpl->setMaxThreads(maxThreads); }

    //! The thread limit.
    int32_t getMaxThreads() const noexcept { return mImpl->getMaxThreads(); }

    //! This builder's plugin registry.
    IPluginRegistry& getPluginRegistry() noexcept { return mImpl->getPluginRegistry(); }

protected:
    apiv::VBuilder* mImpl;
};

KILN_IGNORE_DEPRECATED_END

} // namespace nvinfer1

//! The library's builder factory behind createInferBuilder(): logger is an ILogger*, version NV_TENSORRT_VERSION;
//! returns an IBuilder*, or nullptr.
extern "C" TENSORRTAPI void* createInferBuilder_INTERNAL(void* logger, int32_t version) noexcept;

//! The plugin registry builders use for engines of capability: the process-wide registry (getPluginRegistry()) for
//! EngineCapability::kSTANDARD; nullptr, with an error logged, for kSAFETY and kDLA_STANDALONE, which kiln does not
//! build.
extern "C" TENSORRTAPI nvinfer1::IPluginRegistry* getBuilderPluginRegistry(
    nvinfer1::EngineCapability capability) noexcept;

namespace nvinfer1
{
// An unnamed namespace: each translation unit has its own copy, tied to the header version it was compiled with.
namespace
{

//! A new builder that logs to logger; delete it when done. nullptr on failure.
inline IBuilder* createInferBuilder(ILogger& logger) noexcept
{
    return static_cast<IBuilder*>(createInferBuilder_INTERNAL(&logger, NV_TENSORRT_VERSION));
}

} // namespace
} // namespace nvinfer1

#endif // NV_INFER_H
