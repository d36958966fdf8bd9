// SPDX-License-Identifier: Apache-2.0
// The loader of library_loader.h: one list of every cuDNN, cuBLASLt and cuBLAS function kiln calls, from which come the
// names dlsym resolves and a definition of each function under its own name that forwards to the resolved one.
#include "backends/cuda/library_loader.h"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cudnn.h>
#include <dlfcn.h>

#include <array>
#include <cstddef>
#include <cstdlib>

// X(library, result, name, parameters, arguments): the functions kiln calls, with the signatures of the libraries'
// headers (a definition below that differs from its header's declaration does not compile: C functions are not
// overloaded). A function missing here leaves libnvinfer with an undefined symbol, which its link (--no-undefined)
// refuses.
#define KILN_GPU_LIBRARY_FUNCTIONS(X)                                                                                  \
    X(kCUDNN, cudnnStatus_t, cudnnCreate, (cudnnHandle_t * handle), (handle))                                          \
    X(kCUDNN, cudnnStatus_t, cudnnDestroy, (cudnnHandle_t handle), (handle))                                           \
    X(kCUDNN, cudnnStatus_t, cudnnSetStream, (cudnnHandle_t handle, cudaStream_t stream), (handle, stream))            \
    X(kCUDNN, char const*, cudnnGetErrorString, (cudnnStatus_t status), (status))                                      \
    X(kCUDNN, cudnnStatus_t, cudnnBackendCreateDescriptor,                                                             \
        (cudnnBackendDescriptorType_t type, cudnnBackendDescriptor_t * descriptor), (type, descriptor))                \
    X(kCUDNN, cudnnStatus_t, cudnnBackendDestroyDescriptor, (cudnnBackendDescriptor_t descriptor), (descriptor))       \
    X(kCUDNN, cudnnStatus_t, cudnnBackendFinalize, (cudnnBackendDescriptor_t descriptor), (descriptor))                \
    X(kCUDNN, cudnnStatus_t, cudnnBackendSetAttribute,                                                                 \
        (cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,      \
            int64_t count, void const* elements),                                                                      \
        (descriptor, name, type, count, elements))                                                                     \
    X(kCUDNN, cudnnStatus_t, cudnnBackendGetAttribute,                                                                 \
        (cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,      \
            int64_t requested, int64_t * count, void* elements),                                                       \
        (descriptor, name, type, requested, count, elements))                                                          \
    X(kCUDNN, cudnnStatus_t, cudnnBackendExecute,                                                                      \
        (cudnnHandle_t handle, cudnnBackendDescriptor_t plan, cudnnBackendDescriptor_t pack), (handle, plan, pack))    \
    X(kCUDNN, cudnnStatus_t, cudnnCreateTensorDescriptor, (cudnnTensorDescriptor_t * descriptor), (descriptor))        \
    X(kCUDNN, cudnnStatus_t, cudnnDestroyTensorDescriptor, (cudnnTensorDescriptor_t descriptor), (descriptor))         \
    X(kCUDNN, cudnnStatus_t, cudnnSetTensorNdDescriptor,                                                               \
        (cudnnTensorDescriptor_t descriptor, cudnnDataType_t type, int nbDims, int const* dims, int const* strides),   \
        (descriptor, type, nbDims, dims, strides))                                                                     \
    X(kCUDNN, cudnnStatus_t, cudnnCreateFilterDescriptor, (cudnnFilterDescriptor_t * descriptor), (descriptor))        \
    X(kCUDNN, cudnnStatus_t, cudnnDestroyFilterDescriptor, (cudnnFilterDescriptor_t descriptor), (descriptor))         \
    X(kCUDNN, cudnnStatus_t, cudnnSetFilterNdDescriptor,                                                               \
        (cudnnFilterDescriptor_t descriptor, cudnnDataType_t type, cudnnTensorFormat_t format, int nbDims,             \
            int const* dims),                                                                                          \
        (descriptor, type, format, nbDims, dims))                                                                      \
    X(kCUDNN, cudnnStatus_t, cudnnCreateActivationDescriptor, (cudnnActivationDescriptor_t * descriptor),              \
        (descriptor))                                                                                                  \
    X(kCUDNN, cudnnStatus_t, cudnnDestroyActivationDescriptor, (cudnnActivationDescriptor_t descriptor), (descriptor)) \
    X(kCUDNN, cudnnStatus_t, cudnnSetActivationDescriptor,                                                             \
        (cudnnActivationDescriptor_t descriptor, cudnnActivationMode_t mode, cudnnNanPropagation_t nan,                \
            double coefficient),                                                                                       \
        (descriptor, mode, nan, coefficient))                                                                          \
    X(kCUDNN, cudnnStatus_t, cudnnCreateConvolutionDescriptor, (cudnnConvolutionDescriptor_t * descriptor),            \
        (descriptor))                                                                                                  \
    X(kCUDNN, cudnnStatus_t, cudnnDestroyConvolutionDescriptor, (cudnnConvolutionDescriptor_t descriptor),             \
        (descriptor))                                                                                                  \
    X(kCUDNN, cudnnStatus_t, cudnnSetConvolutionNdDescriptor,                                                          \
        (cudnnConvolutionDescriptor_t descriptor, int nbSpatial, int const* padding, int const* strides,               \
            int const* dilations, cudnnConvolutionMode_t mode, cudnnDataType_t computeType),                           \
        (descriptor, nbSpatial, padding, strides, dilations, mode, computeType))                                       \
    X(kCUDNN, cudnnStatus_t, cudnnSetConvolutionGroupCount, (cudnnConvolutionDescriptor_t descriptor, int groups),     \
        (descriptor, groups))                                                                                          \
    X(kCUDNN, cudnnStatus_t, cudnnSetConvolutionMathType,                                                              \
        (cudnnConvolutionDescriptor_t descriptor, cudnnMathType_t math), (descriptor, math))                           \
    X(kCUDNN, cudnnStatus_t, cudnnGetConvolutionNdForwardOutputDim,                                                    \
        (cudnnConvolutionDescriptor_t convolution, cudnnTensorDescriptor_t input, cudnnFilterDescriptor_t filter,      \
            int nbDims, int* dims),                                                                                    \
        (convolution, input, filter, nbDims, dims))                                                                    \
    X(kCUDNN, cudnnStatus_t, cudnnGetConvolutionForwardAlgorithmMaxCount, (cudnnHandle_t handle, int* count),          \
        (handle, count))                                                                                               \
    X(kCUDNN, cudnnStatus_t, cudnnGetConvolutionForwardAlgorithm_v7,                                                   \
        (cudnnHandle_t handle, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,                                   \
            cudnnConvolutionDescriptor_t convolution, cudnnTensorDescriptor_t y, int requested, int* returned,         \
            cudnnConvolutionFwdAlgoPerf_t* results),                                                                   \
        (handle, x, w, convolution, y, requested, returned, results))                                                  \
    X(kCUDNN, cudnnStatus_t, cudnnGetConvolutionForwardWorkspaceSize,                                                  \
        (cudnnHandle_t handle, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,                                   \
            cudnnConvolutionDescriptor_t convolution, cudnnTensorDescriptor_t y, cudnnConvolutionFwdAlgo_t algorithm,  \
            size_t * bytes),                                                                                           \
        (handle, x, w, convolution, y, algorithm, bytes))                                                              \
    X(kCUDNN, cudnnStatus_t, cudnnConvolutionForward,                                                                  \
        (cudnnHandle_t handle, void const* alpha, cudnnTensorDescriptor_t xDesc, void const* x,                        \
            cudnnFilterDescriptor_t wDesc, void const* w, cudnnConvolutionDescriptor_t convolution,                    \
            cudnnConvolutionFwdAlgo_t algorithm, void* workspace, size_t workspaceBytes, void const* beta,             \
            cudnnTensorDescriptor_t yDesc, void* y),                                                                   \
        (handle, alpha, xDesc, x, wDesc, w, convolution, algorithm, workspace, workspaceBytes, beta, yDesc, y))        \
    X(kCUDNN, cudnnStatus_t, cudnnConvolutionBiasActivationForward,                                                    \
        (cudnnHandle_t handle, void const* alpha1, cudnnTensorDescriptor_t xDesc, void const* x,                       \
            cudnnFilterDescriptor_t wDesc, void const* w, cudnnConvolutionDescriptor_t convolution,                    \
            cudnnConvolutionFwdAlgo_t algorithm, void* workspace, size_t workspaceBytes, void const* alpha2,           \
            cudnnTensorDescriptor_t zDesc, void const* z, cudnnTensorDescriptor_t biasDesc, void const* bias,          \
            cudnnActivationDescriptor_t activation, cudnnTensorDescriptor_t yDesc, void* y),                           \
        (handle, alpha1, xDesc, x, wDesc, w, convolution, algorithm, workspace, workspaceBytes, alpha2, zDesc, z,      \
            biasDesc, bias, activation, yDesc, y))                                                                     \
    X(kCUDNN, cudnnStatus_t, cudnnGetConvolutionBackwardDataAlgorithmMaxCount, (cudnnHandle_t handle, int* count),     \
        (handle, count))                                                                                               \
    X(kCUDNN, cudnnStatus_t, cudnnGetConvolutionBackwardDataAlgorithm_v7,                                              \
        (cudnnHandle_t handle, cudnnFilterDescriptor_t w, cudnnTensorDescriptor_t dy,                                  \
            cudnnConvolutionDescriptor_t convolution, cudnnTensorDescriptor_t dx, int requested, int* returned,        \
            cudnnConvolutionBwdDataAlgoPerf_t* results),                                                               \
        (handle, w, dy, convolution, dx, requested, returned, results))                                                \
    X(kCUDNN, cudnnStatus_t, cudnnGetConvolutionBackwardDataWorkspaceSize,                                             \
        (cudnnHandle_t handle, cudnnFilterDescriptor_t w, cudnnTensorDescriptor_t dy,                                  \
            cudnnConvolutionDescriptor_t convolution, cudnnTensorDescriptor_t dx,                                      \
            cudnnConvolutionBwdDataAlgo_t algorithm, size_t * bytes),                                                  \
        (handle, w, dy, convolution, dx, algorithm, bytes))                                                            \
    X(kCUDNN, cudnnStatus_t, cudnnConvolutionBackwardData,                                                             \
        (cudnnHandle_t handle, void const* alpha, cudnnFilterDescriptor_t wDesc, void const* w,                        \
            cudnnTensorDescriptor_t dyDesc, void const* dy, cudnnConvolutionDescriptor_t convolution,                  \
            cudnnConvolutionBwdDataAlgo_t algorithm, void* workspace, size_t workspaceBytes, void const* beta,         \
            cudnnTensorDescriptor_t dxDesc, void* dx),                                                                 \
        (handle, alpha, wDesc, w, dyDesc, dy, convolution, algorithm, workspace, workspaceBytes, beta, dxDesc, dx))    \
    X(kCUBLAS_LT, cublasStatus_t, cublasLtCreate, (cublasLtHandle_t * handle), (handle))                               \
    X(kCUBLAS_LT, cublasStatus_t, cublasLtDestroy, (cublasLtHandle_t handle), (handle))                                \
    X(kCUBLAS_LT, char const*, cublasLtGetStatusName, (cublasStatus_t status), (status))                               \
    X(kCUBLAS_LT, char const*, cublasLtGetStatusString, (cublasStatus_t status), (status))                             \
    X(kCUBLAS_LT, cublasStatus_t, cublasLtMatmulDescCreate,                                                            \
        (cublasLtMatmulDesc_t * descriptor, cublasComputeType_t compute, cudaDataType_t scale),                        \
        (descriptor, compute, scale))                                                                                  \
    X(kCUBLAS_LT, cublasStatus_t, cublasLtMatmulDescDestroy, (cublasLtMatmulDesc_t descriptor), (descriptor))          \
    X(kCUBLAS_LT, cublasStatus_t, cublasLtMatmulDescSetAttribute,                                                      \
        (cublasLtMatmulDesc_t descriptor, cublasLtMatmulDescAttributes_t attribute, void const* value, size_t bytes),  \
        (descriptor, attribute, value, bytes))                                                                         \
    X(kCUBLAS_LT, cublasStatus_t, cublasLtMatrixLayoutCreate,                                                          \
        (cublasLtMatrixLayout_t * layout, cudaDataType type, uint64_t rows, uint64_t columns, int64_t leading),        \
        (layout, type, rows, columns, leading))                                                                        \
    X(kCUBLAS_LT, cublasStatus_t, cublasLtMatrixLayoutDestroy, (cublasLtMatrixLayout_t layout), (layout))              \
    X(kCUBLAS_LT, cublasStatus_t, cublasLtMatrixLayoutSetAttribute,                                                    \
        (cublasLtMatrixLayout_t layout, cublasLtMatrixLayoutAttribute_t attribute, void const* value, size_t bytes),   \
        (layout, attribute, value, bytes))                                                                             \
    X(kCUBLAS_LT, cublasStatus_t, cublasLtMatmulPreferenceCreate, (cublasLtMatmulPreference_t * preference),           \
        (preference))                                                                                                  \
    X(kCUBLAS_LT, cublasStatus_t, cublasLtMatmulPreferenceDestroy, (cublasLtMatmulPreference_t preference),            \
        (preference))                                                                                                  \
    X(kCUBLAS_LT, cublasStatus_t, cublasLtMatmulPreferenceSetAttribute,                                                \
        (cublasLtMatmulPreference_t preference, cublasLtMatmulPreferenceAttributes_t attribute, void const* value,     \
            size_t bytes),                                                                                             \
        (preference, attribute, value, bytes))                                                                         \
    X(kCUBLAS_LT, cublasStatus_t, cublasLtMatmulAlgoGetHeuristic,                                                      \
        (cublasLtHandle_t handle, cublasLtMatmulDesc_t operation, cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,  \
            cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d, cublasLtMatmulPreference_t preference, int requested,  \
            cublasLtMatmulHeuristicResult_t* results, int* returned),                                                  \
        (handle, operation, a, b, c, d, preference, requested, results, returned))                                     \
    X(kCUBLAS_LT, cublasStatus_t, cublasLtMatmulAlgoConfigGetAttribute,                                                \
        (cublasLtMatmulAlgo_t const* algorithm, cublasLtMatmulAlgoConfigAttributes_t attribute, void* value,           \
            size_t bytes, size_t* written),                                                                            \
        (algorithm, attribute, value, bytes, written))                                                                 \
    X(kCUBLAS_LT, cublasStatus_t, cublasLtMatmulAlgoConfigSetAttribute,                                                \
        (cublasLtMatmulAlgo_t * algorithm, cublasLtMatmulAlgoConfigAttributes_t attribute, void const* value,          \
            size_t bytes),                                                                                             \
        (algorithm, attribute, value, bytes))                                                                          \
    X(kCUBLAS_LT, cublasStatus_t, cublasLtMatmulAlgoCapGetAttribute,                                                   \
        (cublasLtMatmulAlgo_t const* algorithm, cublasLtMatmulAlgoCapAttributes_t attribute, void* value,              \
            size_t bytes, size_t* written),                                                                            \
        (algorithm, attribute, value, bytes, written))                                                                 \
    X(kCUBLAS_LT, cublasStatus_t, cublasLtMatmulAlgoCheck,                                                             \
        (cublasLtHandle_t handle, cublasLtMatmulDesc_t operation, cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,  \
            cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d, cublasLtMatmulAlgo_t const* algorithm,                 \
            cublasLtMatmulHeuristicResult_t* result),                                                                  \
        (handle, operation, a, b, c, d, algorithm, result))                                                            \
    X(kCUBLAS_LT, cublasStatus_t, cublasLtMatmul,                                                                      \
        (cublasLtHandle_t handle, cublasLtMatmulDesc_t operation, void const* alpha, void const* a,                    \
            cublasLtMatrixLayout_t aDesc, void const* b, cublasLtMatrixLayout_t bDesc, void const* beta,               \
            void const* c, cublasLtMatrixLayout_t cDesc, void* d, cublasLtMatrixLayout_t dDesc,                        \
            cublasLtMatmulAlgo_t const* algorithm, void* workspace, size_t workspaceBytes, cudaStream_t stream),       \
        (handle, operation, alpha, a, aDesc, b, bDesc, beta, c, cDesc, d, dDesc, algorithm, workspace, workspaceBytes, \
            stream))                                                                                                   \
    X(kCUBLAS, cublasStatus_t, cublasCreate_v2, (cublasHandle_t * handle), (handle))                                   \
    X(kCUBLAS, cublasStatus_t, cublasDestroy_v2, (cublasHandle_t handle), (handle))                                    \
    X(kCUBLAS, cublasStatus_t, cublasSetStream_v2, (cublasHandle_t handle, cudaStream_t stream), (handle, stream))     \
    X(kCUBLAS, char const*, cublasGetStatusName, (cublasStatus_t status), (status))

#define KILN_TEXT(token) KILN_TEXT_OF(token)
#define KILN_TEXT_OF(token) #token

namespace kiln::cuda
{

namespace
{

//! Who a library is for people, the variable that names its file, the soname of the major version of the headers
//! kiln was built with, and the text its name and message functions give while it is not loaded.
struct LibraryInfo
{
    char const* name;
    char const* variable;
    char const* soname;
    char const* notLoaded;
};

//! By GpuLibrary.
constexpr std::array<LibraryInfo, 3> kLibraries{{
    {"cuDNN", "KILN_CUDNN_LIBRARY", "libcudnn.so." KILN_TEXT(CUDNN_MAJOR), "(cuDNN is not loaded)"},
    {"cuBLASLt", "KILN_CUBLASLT_LIBRARY", "libcublasLt.so." KILN_TEXT(CUBLAS_VER_MAJOR), "(cuBLASLt is not loaded)"},
    {"cuBLAS", "KILN_CUBLAS_LIBRARY", "libcublas.so." KILN_TEXT(CUBLAS_VER_MAJOR), "(cuBLAS is not loaded)"},
}};

LibraryInfo const& info(GpuLibrary library)
{
    return kLibraries[static_cast<std::size_t>(library)];
}

//! The list's rows, numbered in its order.
enum class Function : std::size_t
{
#define KILN_FUNCTION_ENUMERATOR(library, result, name, parameters, arguments) name,
    KILN_GPU_LIBRARY_FUNCTIONS(KILN_FUNCTION_ENUMERATOR)
#undef KILN_FUNCTION_ENUMERATOR
};

struct FunctionRow
{
    GpuLibrary library;
    char const* name;
};

#define KILN_FUNCTION_ROW(library, result, name, parameters, arguments) FunctionRow{GpuLibrary::library, #name},
constexpr std::array kFunctions{KILN_GPU_LIBRARY_FUNCTIONS(KILN_FUNCTION_ROW)};
#undef KILN_FUNCTION_ROW

//! One library once loadLibrary has tried it: the error, or the address of each of its functions by row (null in the
//! other libraries' rows).
struct Loaded
{
    std::optional<Error> error;
    std::array<void*, kFunctions.size()> addresses{};
};

//! The rows of library's functions, in the list's order.
std::vector<std::size_t> rowsOf(GpuLibrary library)
{
    std::vector<std::size_t> rows;
    for (std::size_t row = 0; row < kFunctions.size(); ++row)
    {
        if (kFunctions[row].library == library)
        {
            rows.push_back(row);
        }
    }
    return rows;
}

Loaded load(GpuLibrary library)
{
    std::vector<std::size_t> const rows = rowsOf(library);
    Loaded loaded;
    Expected<std::vector<void*>> const opened
        = openLibrary(info(library).name, libraryFile(library), libraryFunctions(library));
    if (!opened)
    {
        loaded.error = Error{opened.error().code,
            opened.error().message + " (set " + info(library).variable
                + " to the library's path, or add its folder to LD_LIBRARY_PATH)"};
        return loaded;
    }
    for (std::size_t i = 0; i < rows.size(); ++i)
    {
        loaded.addresses[rows[i]] = opened.value()[i];
    }
    return loaded;
}

//! Library L, loaded by the first call (a function-local static: thread-safe, and nothing runs before it is asked for).
template <GpuLibrary L>
Loaded const& loaded()
{
    static Loaded const library = load(L);
    return library;
}

//! The address of function, of library L, or null when L could not be loaded.
template <GpuLibrary L>
void* address(Function function)
{
    return loaded<L>().addresses[static_cast<std::size_t>(function)];
}

//! What a function of a library that could not be loaded returns.
template <typename Result>
Result notLoaded(GpuLibrary library) noexcept;

template <>
cudnnStatus_t notLoaded<cudnnStatus_t>(GpuLibrary) noexcept
{
    return CUDNN_STATUS_NOT_INITIALIZED;
}

template <>
cublasStatus_t notLoaded<cublasStatus_t>(GpuLibrary) noexcept
{
    return CUBLAS_STATUS_NOT_INITIALIZED;
}

template <>
char const* notLoaded<char const*>(GpuLibrary library) noexcept
{
    return info(library).notLoaded;
}

} // namespace

std::string libraryFile(GpuLibrary library)
{
    char const* const chosen = std::getenv(info(library).variable);
    return chosen != nullptr && *chosen != '\0' ? std::string(chosen) : std::string(info(library).soname);
}

std::vector<char const*> libraryFunctions(GpuLibrary library)
{
    std::vector<char const*> names;
    for (std::size_t const row : rowsOf(library))
    {
        names.push_back(kFunctions[row].name);
    }
    return names;
}

std::optional<Error> loadLibrary(GpuLibrary library)
{
    switch (library)
    {
    case GpuLibrary::kCUDNN: return loaded<GpuLibrary::kCUDNN>().error;
    case GpuLibrary::kCUBLAS_LT: return loaded<GpuLibrary::kCUBLAS_LT>().error;
    case GpuLibrary::kCUBLAS: return loaded<GpuLibrary::kCUBLAS>().error;
    }
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
        "loadLibrary: no library number " + std::to_string(static_cast<int32_t>(library))};
}

Expected<std::vector<void*>> openLibrary(
    std::string_view library, std::string const& file, std::span<char const* const> functions)
{
    std::string const what = "cannot load " + std::string(library) + " from " + quoted(file.c_str()) + ": ";
    static_cast<void>(dlerror()); // dlerror() reports the last failure of this thread: forget any earlier one.
    void* const handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr)
    {
        char const* const reason = dlerror();
        return Error{
            nvinfer1::ErrorCode::kFAILED_INITIALIZATION, what + (reason != nullptr ? reason : "dlopen failed")};
    }
    std::vector<void*> addresses;
    addresses.reserve(functions.size());
    for (char const* const function : functions)
    {
        void* const address = dlsym(handle, function);
        if (address == nullptr)
        {
            char const* const reason = dlerror();
            static_cast<void>(dlclose(handle));
            return Error{nvinfer1::ErrorCode::kFAILED_INITIALIZATION,
                what + "it has no function " + function + (reason != nullptr ? " (" + std::string(reason) + ")" : "")};
        }
        addresses.push_back(address);
    }
    return addresses;
}

} // namespace kiln::cuda

// The functions of the list, hidden inside kiln: each forwards to the loaded library's, or returns notLoaded's value.
#define KILN_FORWARD(library, result, name, parameters, arguments)                                                     \
    extern "C" __attribute__((visibility("hidden"))) result name parameters                                            \
    {                                                                                                                  \
        using Forwarded = result(*) parameters;                                                                        \
        void* const address = kiln::cuda::address<kiln::cuda::GpuLibrary::library>(kiln::cuda::Function::name);        \
        if (address == nullptr)                                                                                        \
        {                                                                                                              \
            return kiln::cuda::notLoaded<result>(kiln::cuda::GpuLibrary::library);                                     \
        }                                                                                                              \
        return reinterpret_cast<Forwarded>(address) arguments;                                                         \
    }
KILN_GPU_LIBRARY_FUNCTIONS(KILN_FORWARD)
#undef KILN_FORWARD
