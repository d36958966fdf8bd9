// SPDX-License-Identifier: Apache-2.0
// What the library-backed kernels (matrix_multiply.cpp with cuBLASLt, convolution.cpp with cuDNN) share besides the
// Libraries class of kernels.h: the errors for failed library calls, with the library's own name and text for the
// status.
//
//     cublasStatus_t const status = cublasLtMatmul(...);
//     if (status != CUBLAS_STATUS_SUCCESS) { return cublasFailure(status, "matrix multiply: cublasLtMatmul"); }
#pragma once

#include "core/error.h"

#include <cublasLt.h>
#include <cudnn.h>

#include <cstdint>
#include <initializer_list>

namespace kiln::cuda
{

//! The error for a failed cuBLASLt call: what was done, cublasLtGetStatusName and cublasLtGetStatusString.
Error cublasFailure(cublasStatus_t status, char const* what);

//! The error for a failed cuDNN call: what was done and cudnnGetErrorString.
Error cudnnFailure(cudnnStatus_t status, char const* what);

//! The alignment in bytes (a power of two, at most 256) that address and every offset share; 256 for nullptr.
uint32_t commonAlignment(void const* address, std::initializer_list<int64_t> offsets) noexcept;

} // namespace kiln::cuda
