// SPDX-License-Identifier: Apache-2.0
// What the CUDA data-movement kernels share (shuffle, slice, concatenation, gather, reformat): they copy each element's
// bytes, so they are templated on the element's size (a Word of 1, 2, 4 or 8 bytes), never on its DataType; shapes
// and strides travel by value in small structs; every kernel is a grid-stride loop over int64_t indices.
//
//     Status const ready = checkAligned(in, "input");                  // data aligned to its element size
//     dispatchWord(host::elementBytes(in.type), [&]<typename Word>() {
//         copyKernel<Word><<<gridFor(count), kBlock, 0, launch.stream>>>(...);
//     });
//     return launched("shuffle");                                      // cudaGetLastError as a Status
//
// Loops over dimensions are unrolled to Dims::MAX_DIMS with a rank guard, so that arrays of kernel parameters are
// indexed by constants (a dynamic index would copy them to local memory).
#pragma once

#include "backends/cuda/kernels.h"
#include "backends/host/data_movement.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

namespace kiln::cuda
{

inline constexpr int32_t kMaxDims = nvinfer1::Dims::MAX_DIMS;
//! Threads per block of every data-movement kernel.
inline constexpr int32_t kBlock = 256;

//! Blocks for a grid-stride loop over count elements (count > 0): enough to fill a large GPU, at most 8192.
inline unsigned int gridFor(int64_t count) noexcept
{
    return static_cast<unsigned int>(std::min<int64_t>((count + kBlock - 1) / kBlock, 8192));
}

//! The first index and the stride of the calling thread's grid-stride loop.
__device__ __forceinline__ int64_t firstIndex()
{
    return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ int64_t gridStride()
{
    return static_cast<int64_t>(gridDim.x) * blockDim.x;
}

//! Calls body.template operator()<Word>() with the unsigned integer type of bytes bytes (1, 2, 4, 8); false for
//! another size.
template <typename Body>
bool dispatchWord(int64_t bytes, Body&& body)
{
    switch (bytes)
    {
    case 1: body.template operator()<uint8_t>(); return true;
    case 2: body.template operator()<uint16_t>(); return true;
    case 4: body.template operator()<uint32_t>(); return true;
    case 8: body.template operator()<uint64_t>(); return true;
    default: return false;
    }
}

//! The error for a tensor whose device data is not aligned to its element size (the kernels read whole elements).
inline Status checkAligned(host::HostTensor const& t, std::string_view family, std::string_view role)
{
    int64_t const bytes = host::elementBytes(t.type);
    if (bytes > 1 && reinterpret_cast<uintptr_t>(t.data) % static_cast<uintptr_t>(bytes) != 0)
    {
        return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
            std::string(family) + ": the " + std::string(role) + "'s device data is not aligned to its "
                + std::to_string(bytes) + "-byte elements"};
    }
    return host::Done{};
}

//! The status of the launch just made: cudaGetLastError as a cudaFailure naming what, or Done.
inline Status launched(char const* what)
{
    cudaError_t const status = cudaGetLastError();
    if (status != cudaSuccess)
    {
        return cudaFailure(status, what);
    }
    return host::Done{};
}

//! An index space of rank dimensions (row-major) and the element stride of each dimension in some tensor: offsetOf
//! maps a linear index to sum(coordinate[i] * strides[i]). Rank 0 is the identity (offset == index).
struct StridedView
{
    int32_t rank{0};
    int64_t extents[kMaxDims]{};
    int64_t strides[kMaxDims]{};
};

//! The same map with extents of 1 dropped and adjacent dimensions merged where the strides allow; rank 0 when the map
//! is the identity. The extents must be nonzero.
inline StridedView simplified(StridedView const& view) noexcept
{
    StridedView out;
    for (int32_t i = 0; i < view.rank; ++i)
    {
        if (view.extents[i] == 1)
        {
            continue;
        }
        int32_t const last = out.rank - 1;
        if (last >= 0 && out.strides[last] == view.strides[i] * view.extents[i])
        {
            out.extents[last] *= view.extents[i];
            out.strides[last] = view.strides[i];
            continue;
        }
        out.extents[out.rank] = view.extents[i];
        out.strides[out.rank] = view.strides[i];
        ++out.rank;
    }
    if (out.rank == 1 && out.strides[0] == 1)
    {
        out.rank = 0;
    }
    return out;
}

//! The offset of linear index in view (index < the product of the extents).
__device__ __forceinline__ int64_t offsetOf(StridedView const& view, int64_t index)
{
    if (view.rank == 0)
    {
        return index;
    }
    int64_t offset = 0;
#pragma unroll
    for (int32_t i = kMaxDims - 1; i >= 1; --i)
    {
        if (i < view.rank)
        {
            int64_t const next = index / view.extents[i];
            offset += (index - next * view.extents[i]) * view.strides[i];
            index = next;
        }
    }
    return offset + index * view.strides[0];
}

} // namespace kiln::cuda
