// SPDX-License-Identifier: Apache-2.0
// What the pointwise CUDA kernels share (elementwise.cu, unary.cu, activation.cu, cast.cu, select.cu, fill.cu): the
// shape of a grid-stride launch, the device form of broadcasting (host::BroadcastMap for several inputs at once), and
// the status of a launch.
//
//     pointwise::BroadcastIndex<2> const map = pointwise::broadcastIndex<2>(out.dims, {a.dims, b.dims});
//     kernel<<<pointwise::grid(count), pointwise::kBlock, 0, launch.stream>>>(..., count, map);
//     return pointwise::launched("the element-wise kernel");
//
//     // in the kernel:
//     for (int64_t i = pointwise::firstIndex(); i < count; i += pointwise::gridStride())
//     {
//         int64_t at[2];
//         map(i, at); // at[0]: the element of a that output element i reads; at[1]: b's
//     }
//
// Packs: a kernel whose tensors allow it handles kLanes consecutive elements per thread with one load and one store
// of a Pack (16 bytes of kFLOAT, 8 of kHALF and kBF16), so that a memory-bound kernel issues few, wide accesses:
//
//     if (pointwise::packable<T>(count, {in.data, out.data})) { ... pointwise::loadPack<T>(in, group, lanes) ... }
//
// Broadcasting merges what it can before the launch: output extents of 1 are dropped, and neighbouring dimensions in
// which every input either broadcasts or not alike become one. Same-shaped inputs are then one dimension and cost no
// division; a bias [1, C, 1, 1] against [N, C, H, W] costs two.
#pragma once

#include "backends/cuda/elements.cuh"
#include "backends/cuda/kernels.h"

#include <array>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <utility>

namespace kiln::cuda::pointwise
{

//! Threads per block of the pointwise kernels.
inline constexpr int32_t kBlock = 256;
//! At most this many blocks (a few waves on any GPU); each thread then strides over the rest.
inline constexpr int64_t kMaxBlocks = 4096;

//! The blocks of a grid-stride loop over n > 0 elements.
inline unsigned int grid(int64_t n) noexcept
{
    int64_t const blocks = (n + kBlock - 1) / kBlock;
    return static_cast<unsigned int>(blocks < kMaxBlocks ? blocks : kMaxBlocks);
}

//! The first element of the calling thread in a grid-stride loop.
__device__ __forceinline__ int64_t firstIndex()
{
    return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

//! The stride of a grid-stride loop.
__device__ __forceinline__ int64_t gridStride()
{
    return static_cast<int64_t>(gridDim.x) * blockDim.x;
}

//! Done, or the error of the launch just made (what names the kernel).
inline Status launched(char const* what)
{
    cudaError_t const status = cudaGetLastError();
    if (status != cudaSuccess)
    {
        return cudaFailure(status, what);
    }
    return host::Done{};
}

//! The error for what the host accepts but no kernel here was built for (a type table out of step with the host's).
inline Error noKernel(std::string const& what)
{
    return Error{nvinfer1::ErrorCode::kINTERNAL_ERROR, what + ": the CUDA backend has no kernel for this case"};
}

//! Why a kernel cannot read or write tensor (named by its role): what host::checkTensor finds, or device data not
//! aligned to its elements; std::nullopt when it can.
inline std::optional<Error> checkTensor(DeviceTensor const& tensor, char const* role)
{
    if (std::optional<Error> error = host::checkTensor(tensor, role))
    {
        return error;
    }
    auto const bytes = static_cast<uintptr_t>(dataTypeBits(tensor.type) / 8);
    if (bytes > 1 && reinterpret_cast<uintptr_t>(tensor.data) % bytes != 0)
    {
        return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
            std::string(role) + "'s device data is not aligned to its " + std::to_string(bytes) + "-byte elements"};
    }
    return std::nullopt;
}

//! The first problem checkTensor finds among tensors, each named by its role.
inline std::optional<Error> checkTensors(std::initializer_list<std::pair<DeviceTensor const*, char const*>> tensors)
{
    for (auto const& [tensor, role] : tensors)
    {
        if (std::optional<Error> error = checkTensor(*tensor, role))
        {
            return error;
        }
    }
    return std::nullopt;
}

//! Elements a packed point-wise kernel handles per thread and group.
inline constexpr int32_t kLanes = 4;

//! kLanes consecutive elements of T, aligned to their size: one memory access.
template <DataType T>
struct alignas(sizeof(Storage<T>) * kLanes) Pack
{
    Storage<T> at[kLanes];
};

//! Whether count elements (a multiple of kLanes) at each of pointers may be read and written as Packs.
template <DataType T>
bool packable(int64_t count, std::initializer_list<void const*> pointers) noexcept
{
    bool aligned = count % kLanes == 0;
    for (void const* p : pointers)
    {
        aligned = aligned && reinterpret_cast<uintptr_t>(p) % sizeof(Pack<T>) == 0;
    }
    return aligned;
}

//! The kLanes elements of group g (elements g * kLanes on) of a floating or scaled p, as floats.
template <DataType T>
__device__ __forceinline__ void loadPack(Storage<T> const* p, int64_t g, float (&lanes)[kLanes], float scale = 1.F)
{
    Pack<T> const pack = reinterpret_cast<Pack<T> const*>(p)[g];
#pragma unroll
    for (int32_t e = 0; e < kLanes; ++e)
    {
        lanes[e] = loadFloat<T>(pack.at, e, scale);
    }
}

//! Stores lanes as the kLanes elements of group g of p.
template <DataType T>
__device__ __forceinline__ void storePack(Storage<T>* p, int64_t g, float const (&lanes)[kLanes], float scale = 1.F)
{
    Pack<T> pack;
#pragma unroll
    for (int32_t e = 0; e < kLanes; ++e)
    {
        storeFloat<T>(pack.at, e, lanes[e], scale);
    }
    reinterpret_cast<Pack<T>*>(p)[g] = pack;
}

//! out = f(in) element by element over groups Packs of a floating or scaled T: the body of a packed kernel of one input
//! of the output's shape (activation.cu, unary.cu).
template <DataType T, typename F>
__device__ __forceinline__ void mapPacks(
    Storage<T> const* in, Storage<T>* out, int64_t groups, float inScale, float outScale, F const& f)
{
    for (int64_t g = firstIndex(); g < groups; g += gridStride())
    {
        float lanes[kLanes];
        loadPack<T>(in, g, lanes, inScale);
#pragma unroll
        for (int32_t e = 0; e < kLanes; ++e)
        {
            lanes[e] = f(lanes[e]);
        }
        storePack<T>(out, g, lanes, outScale);
    }
}

//! Maps an output element's linear index to the linear index each of N inputs reads (host::BroadcastMap's rule). Also
//! callable on the host, where tests compare it with host::BroadcastMap.
template <int N>
struct BroadcastIndex
{
    int32_t rank{};                                 //!< Merged dimensions.
    bool narrow{};                                  //!< Fewer than 2^31 output elements: 32-bit index arithmetic.
    int64_t extents[nvinfer1::Dims::MAX_DIMS]{};    //!< Merged output extents.
    int64_t strides[N][nvinfer1::Dims::MAX_DIMS]{}; //!< Per input and dimension: its stride, 0 where it broadcasts.

    __host__ __device__ __forceinline__ void operator()(int64_t index, int64_t (&at)[N]) const
    {
        if (narrow)
        {
            walk<uint32_t>(index, at);
        }
        else
        {
            walk<uint64_t>(index, at);
        }
    }

    // Loops run over every dimension, guarded by the rank, so that they unroll and index the parameters by constants
    // (a dynamic index would copy them to local memory).
    template <typename I>
    __host__ __device__ __forceinline__ void walk(int64_t index, int64_t (&at)[N]) const
    {
#pragma unroll
        for (int k = 0; k < N; ++k)
        {
            at[k] = 0;
        }
        auto rest = static_cast<I>(index);
#pragma unroll
        for (int32_t d = nvinfer1::Dims::MAX_DIMS - 1; d > 0; --d)
        {
            if (d < rank)
            {
                auto const extent = static_cast<I>(extents[d]);
                I const quotient = rest / extent;
                auto const coordinate = static_cast<int64_t>(rest - quotient * extent);
#pragma unroll
                for (int k = 0; k < N; ++k)
                {
                    at[k] += coordinate * strides[k][d];
                }
                rest = quotient;
            }
        }
        if (rank > 0) // the outermost coordinate needs no remainder: index < the element count
        {
#pragma unroll
            for (int k = 0; k < N; ++k)
            {
                at[k] += static_cast<int64_t>(rest) * strides[k][0];
            }
        }
    }
};

//! The broadcasting of inputs (each of out's rank, every extent out's or 1) to out.
template <int N>
BroadcastIndex<N> broadcastIndex(nvinfer1::Dims const& out, std::array<nvinfer1::Dims, N> const& inputs)
{
    BroadcastIndex<N> map;
    bool reads[N][nvinfer1::Dims::MAX_DIMS]{}; // per input and merged dimension: whether it has the extent (not 1)
    for (int32_t d = 0; d < out.nbDims; ++d)
    {
        if (out.d[d] == 1)
        {
            continue;
        }
        bool same = map.rank > 0;
        for (int k = 0; k < N; ++k)
        {
            same = same && (inputs[k].d[d] != 1) == reads[k][map.rank - 1];
        }
        if (same)
        {
            map.extents[map.rank - 1] *= out.d[d];
            continue;
        }
        for (int k = 0; k < N; ++k)
        {
            reads[k][map.rank] = inputs[k].d[d] != 1;
        }
        map.extents[map.rank++] = out.d[d];
    }
    for (int k = 0; k < N; ++k)
    {
        int64_t stride = 1;
        for (int32_t m = map.rank - 1; m >= 0; --m)
        {
            map.strides[k][m] = reads[k][m] ? stride : 0;
            stride *= reads[k][m] ? map.extents[m] : 1;
        }
    }
    map.narrow = host::elementCount(out) <= std::numeric_limits<int32_t>::max();
    return map;
}

} // namespace kiln::cuda::pointwise
