// SPDX-License-Identifier: Apache-2.0
// The CUDA side of ScalePlugin (scale_kernel.cu), compiled into the library only when the CUDA toolkit is found.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

//! Launches y[i] = scale * x[i] for count floats on stream. Returns the launch's status.
cudaError_t launchScale(float const* x, float* y, int64_t count, float scale, cudaStream_t stream);
