// SPDX-License-Identifier: Apache-2.0
// Element access the standard plugins share between their host implementations and their CUDA kernels: a float from a
// kFLOAT or kHALF element (HostLoad in C++ sources, DeviceLoad in CUDA ones), and in CUDA code a float stored into one.
//
//     float const v = HostLoad{}(static_cast<uint16_t const*>(x)[i]);     // host: kHALF as its bit pattern
//     storeValue(&y[i], DeviceLoad{}(x[i]) * 2.F);                       // device: float or __half
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#include <cuda_fp16.h>
#else
#include "core/float_convert.h"
#endif

namespace kiln::plugins
{

#ifndef __CUDACC__
//! A float from a host element: kFLOAT as is, kHALF from its bit pattern.
struct HostLoad
{
    float operator()(float v) const noexcept { return v; }
    float operator()(uint16_t v) const noexcept { return halfToFloat(v); }
};
#else
//! A float from a device element.
struct DeviceLoad
{
    __host__ __device__ float operator()(float v) const noexcept { return v; }
    __host__ __device__ float operator()(__half v) const noexcept { return __half2float(v); }
};

__host__ __device__ inline void storeValue(float* out, float v)
{
    *out = v;
}
__host__ __device__ inline void storeValue(__half* out, float v)
{
    *out = __float2half(v);
}
#endif

} // namespace kiln::plugins
