// SPDX-License-Identifier: Apache-2.0
// The CUDA side of BarPlugin (bar_kernel.cu), compiled only when the CUDA toolkit is found.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

//! Launches BarPlugin on stream: y0 receives the bytes0 bytes of x0 then the bytes1 bytes of x1 (the inputs
//! concatenated along their first dimension), and y1 a copy of x0. Returns the launch's status.
cudaError_t launchBar(
    void const* x0, int64_t bytes0, void const* x1, int64_t bytes1, void* y0, void* y1, cudaStream_t stream);
