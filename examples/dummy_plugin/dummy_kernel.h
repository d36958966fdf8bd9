// SPDX-License-Identifier: Apache-2.0
// The CUDA side of DummyPlugin (dummy_kernel.cu), compiled only when the CUDA toolkit is found.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

//! Launches y[r][i] = b * (x[r][i] * v[i] + s) + a over rows x width elements on stream, where v (width floats) is
//! passed by value in the kernel's parameters (at most 64 values). Returns the launch's status.
cudaError_t launchDummy(float const* x, float* y, float const* v, int64_t rows, int64_t width, int32_t s, int32_t a,
    float b, cudaStream_t stream);
