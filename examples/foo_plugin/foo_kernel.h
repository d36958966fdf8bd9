// SPDX-License-Identifier: Apache-2.0
// The CUDA side of FooPlugin and its shared weights (foo_kernel.cu), compiled only when the CUDA toolkit is found.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

//! Launches y[r][i] = scale * x[r][i] + w[i] over rows x width elements on stream with custom tactic 1 (one thread
//! per element) or 2 (one thread per four consecutive elements). Returns the launch's status.
cudaError_t launchFoo(float const* x, float* y, float const* w, float scale, int64_t rows, int64_t width,
    int32_t tactic, cudaStream_t stream);

//! A device copy of count floats, or nullptr when there is no GPU (or the copy failed).
float* uploadWeights(float const* host, int64_t count);

//! Frees what uploadWeights() returned; false on a CUDA error.
bool freeWeights(float* device);
