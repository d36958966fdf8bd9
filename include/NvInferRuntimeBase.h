/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * NvInferRuntimeBase.h -- the bottom layer of the TensorRT-compatible API: attribute and export macros, the basic
 * types (DataType, Dims64, InterfaceInfo), the versioned-interface root and the error recorder interface.
 *
 * Do not include this file directly; include NvInferRuntime.h (or NvInfer.h), which pulls it in:
 *
 *     #include "NvInferRuntime.h"
 *     nvinfer1::Dims shape{2, {3, 4}};              // Dims is an aggregate
 *     int32_t const v = getInferLibVersion();        // 101600 for kiln's TensorRT 10.16 compatibility
 *
 * When <cuda_runtime_api.h> can be found it is included, as TensorRT's headers do; otherwise (or when
 * KILN_NO_CUDA_RUNTIME_API is defined) a minimal stand-in declares the two CUDA handle types the API names,
 * cudaStream_t and cudaEvent_t, with exactly CUDA's own definitions, so including CUDA later stays valid.
 */

#ifndef NV_INFER_RUNTIME_BASE_H
#define NV_INFER_RUNTIME_BASE_H

#if !defined(NV_INFER_INTERNAL_INCLUDE)
static_assert(false, "Do not directly include this file. Include NvInferRuntime.h or NvInferPluginUtils.h");
#endif

#include "NvInferVersion.h"

#include <cstddef>
#include <cstdint>

#if !defined(KILN_NO_CUDA_RUNTIME_API) && defined(__has_include)
#if __has_include(<cuda_runtime_api.h>)
#include <cuda_runtime_api.h>
#define KILN_HAS_CUDA_RUNTIME_API 1
#endif
#endif

#if !defined(KILN_HAS_CUDA_RUNTIME_API)
// Stand-in for the CUDA runtime types named by this API; identical to CUDA's typedefs.
struct CUstream_st;
struct CUevent_st;
typedef struct CUstream_st* cudaStream_t; //!< A CUDA stream handle.
typedef struct CUevent_st* cudaEvent_t;   //!< A CUDA event handle.
#endif

//! Marks an entity as deprecated: using it warns, never fails.
#if __cplusplus >= 201402L
#define TRT_DEPRECATED [[deprecated]]
#define TRT_DEPRECATED_BECAUSE(REASON) [[deprecated(REASON)]]
// Standard attributes on enumerators arrive with C++17; before that the GNU spelling does the same job.
#if __cplusplus >= 201703L || defined(_MSC_VER)
#define TRT_DEPRECATED_ENUM TRT_DEPRECATED
#else
#define TRT_DEPRECATED_ENUM __attribute__((deprecated))
#endif
#ifdef _MSC_VER
#define TRT_DEPRECATED_API __declspec(dllexport)
#else
#define TRT_DEPRECATED_API [[deprecated]] __attribute__((visibility("default")))
#endif
#else
#ifdef _MSC_VER
#define TRT_DEPRECATED
#define TRT_DEPRECATED_API __declspec(dllexport)
#else
#define TRT_DEPRECATED __attribute__((deprecated))
#define TRT_DEPRECATED_API __attribute__((deprecated, visibility("default")))
#endif
#define TRT_DEPRECATED_BECAUSE(REASON) TRT_DEPRECATED
#define TRT_DEPRECATED_ENUM
#endif

//! Asks the compiler to warn when a result is ignored.
#if __cplusplus >= 201907L
#define TRT_NODISCARD [[nodiscard]]
#define TRT_NODISCARD_BECAUSE(REASON) [[nodiscard(REASON)]]
#elif __cplusplus >= 201603L
#define TRT_NODISCARD [[nodiscard]]
#define TRT_NODISCARD_BECAUSE(REASON) [[nodiscard]]
#else
#define TRT_NODISCARD
#define TRT_NODISCARD_BECAUSE(REASON)
#endif

//! Exports a symbol from the library that defines it; expands to nothing for users of the library.
#if defined(TENSORRT_BUILD_LIB) && !defined(_MSC_VER)
#define TENSORRTAPI __attribute__((visibility("default")))
#else
#define TENSORRTAPI
#endif

//! Legacy macro kept for source compatibility; expands to nothing.
#define TRTNOEXCEPT

// The headers use their own deprecated declarations; only users' uses should warn.
#if defined(__GNUC__)
#define KILN_IGNORE_DEPRECATED_BEGIN                                                                                   \
    _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wdeprecated-declarations\"")
#define KILN_IGNORE_DEPRECATED_END _Pragma("GCC diagnostic pop")
#elif defined(_MSC_VER)
#define KILN_IGNORE_DEPRECATED_BEGIN __pragma(warning(push)) __pragma(warning(disable : 4996))
#define KILN_IGNORE_DEPRECATED_END __pragma(warning(pop))
#else
#define KILN_IGNORE_DEPRECATED_BEGIN
#define KILN_IGNORE_DEPRECATED_END
#endif

// Opaque cuBLAS and cuDNN handle types named by IPluginV2Ext::attachToContext.
extern "C"
{
    struct cublasContext;
    struct cudnnContext;
}

//! The nvinfer1 namespace holds the whole TensorRT-compatible API.
namespace nvinfer1
{

using char_t = char;      //!< The character type of API strings.
using AsciiChar = char_t; //!< API strings are NUL-terminated ASCII.

namespace impl
{
//! Holds kVALUE, the number of enumerators, for enums that specialise it.
template <typename T>
struct EnumMaxImpl;
} // namespace impl

//! The number of enumerators of an API enum.
template <typename T>
constexpr int32_t EnumMax() noexcept
{
    return impl::EnumMaxImpl<T>::kVALUE;
}

//! Element types of tensors and weights.
enum class DataType : int32_t
{
    kFLOAT = 0, //!< 32-bit IEEE float.
    kHALF = 1,  //!< 16-bit IEEE float.
    kINT8 = 2,  //!< Signed 8-bit integer, quantized with a scale.
    kINT32 = 3, //!< Signed 32-bit integer.
    kBOOL = 4,  //!< 8-bit boolean, 0 or 1.
    kUINT8 = 5, //!< Unsigned 8-bit integer.
    kFP8 = 6,   //!< 8-bit float, E4M3.
    kBF16 = 7,  //!< bfloat16.
    kINT64 = 8, //!< Signed 64-bit integer.
    kINT4 = 9,  //!< Signed 4-bit integer, packed two per byte.
    kFP4 = 10,  //!< 4-bit float, E2M1, packed two per byte.
    kE8M0 = 11, //!< 8-bit exponent-only scale type.
};

namespace impl
{
template <>
struct EnumMaxImpl<DataType>
{
    static constexpr int32_t kVALUE = 12;
};
} // namespace impl

//! A tensor shape of up to MAX_DIMS 64-bit extents; an aggregate (write Dims{2, {3, 4}}).
class Dims64
{
public:
    static constexpr int32_t MAX_DIMS{8}; //!< The largest rank a shape may have.
    int32_t nbDims;                       //!< The rank; -1 means the rank is unknown.
    int64_t d[MAX_DIMS];                  //!< The extents; -1 marks an extent known only at run time.
};

using Dims = Dims64; //!< The shape type of the API.

//! Whether a tensor is an input or an output of an engine.
enum class TensorIOMode : int32_t
{
    kNONE = 0,   //!< Neither.
    kINPUT = 1,  //!< An engine input.
    kOUTPUT = 2, //!< An engine output.
};

namespace impl
{
template <>
struct EnumMaxImpl<TensorIOMode>
{
    static constexpr int32_t kVALUE = 3;
};
} // namespace impl

using InterfaceKind = char const*; //!< The name that identifies an interface kind.

//! Identifies an interface and its version without RTTI; an aggregate.
class InterfaceInfo
{
public:
    InterfaceKind kind; //!< The interface's kind string, compared with strcmp.
    int32_t major;      //!< Major version: a new major adds virtual methods.
    int32_t minor;      //!< Minor version.
};

//! The language an interface implementation is written in.
enum class APILanguage : int32_t
{
    kCPP = 0,    //!< C++.
    kPYTHON = 1, //!< Python, through the bindings.
};

namespace impl
{
template <>
struct EnumMaxImpl<APILanguage>
{
    static constexpr int32_t kVALUE = 2;
};
} // namespace impl

//! The root of every versioned interface: reports its kind and version so the engine can tell classes apart.
class IVersionedInterface
{
public:
    //! The implementation language; only the Python bindings override this.
    virtual APILanguage getAPILanguage() const noexcept { return APILanguage::kCPP; }

    //! The kind string and version of this interface.
    virtual InterfaceInfo getInterfaceInfo() const noexcept = 0;

    virtual ~IVersionedInterface() noexcept = default;

protected:
    IVersionedInterface() = default;
    IVersionedInterface(IVersionedInterface const&) = default;
    IVersionedInterface(IVersionedInterface&&) = default;
    IVersionedInterface& operator=(IVersionedInterface const&) & = default;
    IVersionedInterface& operator=(IVersionedInterface&&) & = default;
};

//! Error categories reported to an IErrorRecorder.
enum class ErrorCode : int32_t
{
    kSUCCESS = 0,               //!< No error.
    kUNSPECIFIED_ERROR = 1,     //!< An error that fits no other category.
    kINTERNAL_ERROR = 2,        //!< A bug inside the library.
    kINVALID_ARGUMENT = 3,      //!< An argument was out of range or malformed.
    kINVALID_CONFIG = 4,        //!< A configuration is inconsistent.
    kFAILED_ALLOCATION = 5,     //!< Memory could not be allocated.
    kFAILED_INITIALIZATION = 6, //!< A component failed to initialise.
    kFAILED_EXECUTION = 7,      //!< Execution failed.
    kFAILED_COMPUTATION = 8,    //!< A computation produced an invalid result.
    kINVALID_STATE = 9,         //!< An object was used in a state that does not allow the call.
    kUNSUPPORTED_STATE = 10,    //!< The requested state is not supported.
};

namespace impl
{
template <>
struct EnumMaxImpl<ErrorCode>
{
    static constexpr int32_t kVALUE = 11;
};
} // namespace impl

namespace v_1_0
{
//! Receives errors from the library instead of (or as well as) the logger; implemented by the application.
class IErrorRecorder : public IVersionedInterface
{
public:
    using ErrorDesc = char const*;                  //!< An error description, NUL-terminated.
    static constexpr size_t kMAX_DESC_LENGTH{127U}; //!< Descriptions longer than this may be truncated.
    using RefCount = int32_t;                       //!< Reference counts are 32-bit.

    //! Reports {"IErrorRecorder", 1, 0}.
    InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"IErrorRecorder", 1, 0}; }

    IErrorRecorder() = default;
    ~IErrorRecorder() noexcept override = default;

    //! The number of errors recorded since the last clear().
    virtual int32_t getNbErrors() const noexcept = 0;
    //! The code of error errorIdx, in [0, getNbErrors()).
    virtual ErrorCode getErrorCode(int32_t errorIdx) const noexcept = 0;
    //! The description of error errorIdx; valid until clear().
    virtual ErrorDesc getErrorDesc(int32_t errorIdx) const noexcept = 0;
    //! Whether errors were dropped because the recorder was full.
    virtual bool hasOverflowed() const noexcept = 0;
    //! Forgets every recorded error.
    virtual void clear() noexcept = 0;
    //! Records an error; returns true when the caller should treat it as fatal.
    virtual bool reportError(ErrorCode val, ErrorDesc desc) noexcept = 0;
    //! Adds a user of this recorder; returns the new count.
    virtual RefCount incRefCount() noexcept = 0;
    //! Removes a user of this recorder; returns the new count.
    virtual RefCount decRefCount() noexcept = 0;

protected:
    IErrorRecorder(IErrorRecorder const&) = default;
    IErrorRecorder(IErrorRecorder&&) = default;
    IErrorRecorder& operator=(IErrorRecorder const&) & = default;
    IErrorRecorder& operator=(IErrorRecorder&&) & = default;
};
} // namespace v_1_0

using IErrorRecorder = v_1_0::IErrorRecorder; //!< The current error recorder interface.

} // namespace nvinfer1

//! The version of the library that is loaded, packed as NV_TENSORRT_VERSION is (101600 for 10.16.0).
extern "C" TENSORRTAPI int32_t getInferLibVersion() noexcept;

#endif // NV_INFER_RUNTIME_BASE_H
