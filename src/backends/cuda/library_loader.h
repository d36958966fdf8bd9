// SPDX-License-Identifier: Apache-2.0
// cuDNN, cuBLASLt and cuBLAS, opened when kiln first needs them, so that libnvinfer records no dependency on them and
// a machine without them (a CPU-only runner) uses the host backend of a CUDA-enabled kiln. library_loader.cpp defines
// every library function kiln calls, under its own name and with the signature of the library's header; each one
// forwards to the function dlopen found, opening its library on the first call. The rest of kiln calls the libraries as
// if it were linked with them, and asks loadLibrary first where a missing library should be reported by name.
//
//     if (std::optional<Error> missing = loadLibrary(GpuLibrary::kCUDNN)) { return *missing; }   // names the file
//     cudnnCreate(&handle);                                  // cuDNN's own function, through the loaded library
//
// A function of a library that could not be loaded returns CUDNN_STATUS_NOT_INITIALIZED or
// CUBLAS_STATUS_NOT_INITIALIZED (a name or message text: one saying that the library is not loaded).
#pragma once

#include "core/error.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::cuda
{

//! The libraries kiln opens on first need.
enum class GpuLibrary : int32_t
{
    kCUDNN,     //!< convolution and deconvolution (the CUDA backend)
    kCUBLAS_LT, //!< matrix multiply (the CUDA backend)
    kCUBLAS,    //!< the handle V2 plugins receive when TacticSource::kCUBLAS is on (plugin/v2_handles.h)
};

//! What dlopen is given for library: the value of its variable (KILN_CUDNN_LIBRARY, KILN_CUBLASLT_LIBRARY,
//! KILN_CUBLAS_LIBRARY) when set and not empty, else the soname of the major version kiln was built against
//! (libcudnn.so.9, libcublasLt.so.13, libcublas.so.13), found by the dynamic loader's search.
std::string libraryFile(GpuLibrary library);

//! The functions kiln calls from library (the names loadLibrary resolves), in one list's order.
std::vector<char const*> libraryFunctions(GpuLibrary library);

//! Opens library with dlopen(RTLD_NOW | RTLD_LOCAL) and resolves every function kiln calls from it, on the first call
//! for that library in the process (thread-safe); later calls give the first one's result. The library stays loaded
//! until the process exits. The error names the library, the file, dlerror()'s reason and the variable that chooses
//! another file.
std::optional<Error> loadLibrary(GpuLibrary library);

//! dlopen(file, RTLD_NOW | RTLD_LOCAL), then the address of each of functions, in their order (loadLibrary's step,
//! for any file; the handle is never closed). The error names library (its name for people: "cuDNN"), file and
//! dlerror()'s reason, or the first function the file lacks.
Expected<std::vector<void*>> openLibrary(
    std::string_view library, std::string const& file, std::span<char const* const> functions);

} // namespace kiln::cuda
