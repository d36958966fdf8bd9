// SPDX-License-Identifier: Apache-2.0
// The CUDA side of BarPlugin (bar_kernel.cu), compiled only when the CUDA toolkit is found.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

//! Launches BarPlugin on stream. x is [n, 3, h, w] (FP16 when half, else FP32); the pixels whose values summed over
//! the batch and the channels are positive are selected, in row-major order; their number k goes to *count and
//! y [repeats, 3, n, k] receives y[r][c][i][j] = (r + 1) * x[i][c][pixel j]. positions is h * w int32 scratch.
//! Returns the launches' status.
cudaError_t launchBar(void const* x, void* y, int32_t* count, int32_t* positions, bool half, int64_t n, int64_t h,
    int64_t w, int64_t repeats, cudaStream_t stream);
