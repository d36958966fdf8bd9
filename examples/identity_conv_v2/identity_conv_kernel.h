// SPDX-License-Identifier: Apache-2.0
// The CUDA side of IdentityConv (identity_conv_kernel.cu), compiled only when the CUDA toolkit is found.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

//! Launches a copy of bytes bytes from x to y on stream; returns the launch's status.
cudaError_t launchIdentityCopy(void const* x, void* y, int64_t bytes, cudaStream_t stream);
