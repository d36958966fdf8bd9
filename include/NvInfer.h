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
 * The network, builder, config and timing-cache classes are declared by the parts of kiln that implement them.
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

#endif // NV_INFER_H
