// SPDX-License-Identifier: Apache-2.0
// The CUDA side of PadPlugin (pad_kernel.cu), compiled only when the CUDA toolkit is found.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

//! Launches y[p][side][side] = x[p][height][width] padded with zeros, for planes p = N * C, on stream.
//! Returns the launch's status.
cudaError_t launchPad(
    float const* x, float* y, int64_t planes, int64_t height, int64_t width, int64_t side, cudaStream_t stream);
