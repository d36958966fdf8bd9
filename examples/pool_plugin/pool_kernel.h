// SPDX-License-Identifier: Apache-2.0
// The CUDA side of PoolPlugin (pool_kernel.cu), compiled only when the CUDA toolkit is found.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

//! The element types PoolPlugin reads and writes (input and output share one).
enum class PoolElement : int32_t
{
    kFLOAT,
    kHALF,
    kBF16,
    kFP8, //!< E4M3; real value = stored value * scale.
    kINT8 //!< real value = stored value * scale.
};

//! One pooling: planes = N * C images of height x width, non-overlapping windows (the stride is the window).
struct PoolShape
{
    int64_t planes;
    int64_t height;
    int64_t width;
    int64_t windowHeight;
    int64_t windowWidth;
    bool average;   //!< Average pooling; max pooling otherwise.
    float inScale;  //!< The input's quantization scale (kFP8, kINT8).
    float outScale; //!< The output's quantization scale (kFP8, kINT8).
};

//! Launches the pooling on stream, one thread per output element; returns the launch's status.
cudaError_t launchPool(void const* x, void* y, PoolElement type, PoolShape const& shape, cudaStream_t stream);
