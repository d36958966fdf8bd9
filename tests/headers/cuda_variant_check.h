// Compile-matrix helper: fails the translation unit when the CUDA variant it was built for is not the one the
// headers used. KILN_EXPECT_REAL_CUDA: the real <cuda_runtime_api.h> must have been included (CUDART_VERSION).
// KILN_NO_CUDA_RUNTIME_API: the stand-in must have been used. Either way cudaStream_t and cudaEvent_t must be
// CUDA's own pointer types, so code that later includes CUDA still agrees with the headers.

#ifndef KILN_TESTS_HEADERS_CUDA_VARIANT_CHECK_H
#define KILN_TESTS_HEADERS_CUDA_VARIANT_CHECK_H

#include <type_traits>

#if defined(KILN_EXPECT_REAL_CUDA) && !defined(CUDART_VERSION)
#error "the real <cuda_runtime_api.h> was expected, but the headers used their stand-in"
#endif

#if defined(KILN_NO_CUDA_RUNTIME_API) && defined(CUDART_VERSION)
#error "KILN_NO_CUDA_RUNTIME_API was given, but the real CUDA runtime header was included"
#endif

static_assert(std::is_same<cudaStream_t, CUstream_st*>::value, "cudaStream_t must be CUstream_st*");
static_assert(std::is_same<cudaEvent_t, CUevent_st*>::value, "cudaEvent_t must be CUevent_st*");

#endif // KILN_TESTS_HEADERS_CUDA_VARIANT_CHECK_H
