// SPDX-License-Identifier: Apache-2.0
// CUDA kernel of INonZeroLayer, with the semantics of the host reference (backends/host/non_zero.h). Four steps on the
// stream, each simple:
// 1. flags: flag[i] = 1 when element i is non-zero (the host's rule: a floating value that does not compare equal to
//    0, an integer or bool that is not 0), else 0;
// 2. cub::DeviceScan::ExclusiveSum turns the flags into each element's column among the non-zero ones;
// 3. one thread adds the last column and flag: n, written to the count output and to scratch memory;
// 4. scatter: each non-zero element writes its coordinates into column `column` of the [rank, n] result, row r at
//    r * n + column, reading n from scratch memory (so nothing waits for the host).
// Scratch memory (flags, columns, n, CUB's temporary storage) comes from the context's workspace. Limits: at most
// 2^31 - 1 elements (the columns and CUB's offsets are 32-bit).
#include "backends/cuda/elements.cuh"
#include "backends/cuda/kernels.h"
#include "backends/cuda/scratch.cuh"
#include "backends/host/non_zero.h"

#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

namespace kiln::cuda
{

namespace
{

constexpr int32_t kThreads = 256;

template <DataType T>
inline constexpr bool kTakes = T == DataType::kFLOAT || T == DataType::kHALF || T == DataType::kBF16
    || T == DataType::kINT8 || T == DataType::kINT32 || T == DataType::kINT64 || T == DataType::kBOOL;

//! The input's extents, for turning an element's index into its coordinates.
struct Extents
{
    int32_t rank{};
    int64_t d[nvinfer1::Dims::MAX_DIMS]{};
};

template <DataType T>
__device__ __forceinline__ bool isNonZero(Storage<T> const* in, int64_t i, float scale)
{
    if constexpr (kIsFloating<T>)
    {
        return loadFloat<T>(in, i, scale) != 0.F;
    }
    else
    {
        return loadInteger<T>(in, i) != 0;
    }
}

template <DataType T>
__global__ void flagNonZero(Storage<T> const* in, float scale, int32_t* flags, int64_t volume)
{
    int64_t const step = int64_t{gridDim.x} * blockDim.x;
    for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < volume; i += step)
    {
        flags[i] = isNonZero<T>(in, i, scale) ? 1 : 0;
    }
}

//! n = the last element's column plus its flag (0 for an empty input), into total and the count output.
template <typename Count>
__global__ void countNonZero(int32_t const* flags, int32_t const* columns, int64_t volume, int64_t* total, Count* count)
{
    int64_t const n = volume == 0 ? 0 : int64_t{columns[volume - 1]} + flags[volume - 1];
    *total = n;
    *count = static_cast<Count>(n);
}

//! Each non-zero element writes its coordinates into its column of the [rank, n] result.
template <typename Index>
__global__ void scatterCoordinates(int32_t const* flags, int32_t const* columns, int64_t const* total,
    Extents const extents, int64_t volume, Index* indices)
{
    int64_t const n = *total;
    int64_t const step = int64_t{gridDim.x} * blockDim.x;
    for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < volume; i += step)
    {
        if (flags[i] == 0)
        {
            continue;
        }
        int64_t const column = columns[i];
        int64_t rest = i;
        for (int32_t r = extents.rank - 1; r >= 0; --r)
        {
            int64_t const extent = extents.d[r];
            indices[r * n + column] = static_cast<Index>(rest % extent);
            rest /= extent;
        }
    }
}

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "non-zero: " + message};
}

template <DataType T>
Status launchNonZero(
    DeviceTensor const& in, DeviceTensor const& indices, DeviceTensor const& count, Launch const& launch)
{
    int64_t const volume = host::elementCount(in.dims);
    auto const items = static_cast<int>(std::max<int64_t>(volume, 1));
    std::size_t tempBytes = 0;
    cudaError_t status = cub::DeviceScan::ExclusiveSum(
        nullptr, tempBytes, static_cast<int32_t const*>(nullptr), static_cast<int32_t*>(nullptr), items, launch.stream);
    if (status != cudaSuccess)
    {
        return cudaFailure(status, "sizing the non-zero scan");
    }
    int64_t const flagBytes = scratchBytes(std::max<int64_t>(volume, 1) * static_cast<int64_t>(sizeof(int32_t)));
    int64_t const total = 2 * flagBytes + scratchBytes(sizeof(int64_t)) + scratchBytes(static_cast<int64_t>(tempBytes));
    Expected<void*> const block = launch.libraries->workspace(total, launch.stream);
    if (!block)
    {
        return block.error();
    }
    ScratchCarver carve(block.value());
    auto* flags = reinterpret_cast<int32_t*>(carve.take(flagBytes));
    auto* columns = reinterpret_cast<int32_t*>(carve.take(flagBytes));
    auto* n = reinterpret_cast<int64_t*>(carve.take(scratchBytes(sizeof(int64_t))));
    void* temp = carve.take(scratchBytes(static_cast<int64_t>(tempBytes)));

    if (volume > 0)
    {
        flagNonZero<T><<<gridStrideBlocks(volume, kThreads), kThreads, 0, launch.stream>>>(
            static_cast<Storage<T> const*>(in.data), in.scale, flags, volume);
        if ((status = cudaGetLastError()) != cudaSuccess)
        {
            return cudaFailure(status, "launching the non-zero flag kernel");
        }
        status
            = cub::DeviceScan::ExclusiveSum(temp, tempBytes, flags, columns, static_cast<int>(volume), launch.stream);
        if (status != cudaSuccess)
        {
            return cudaFailure(status, "scanning the non-zero flags");
        }
    }
    if (count.type == DataType::kINT64)
    {
        countNonZero<<<1, 1, 0, launch.stream>>>(flags, columns, volume, n, static_cast<int64_t*>(count.data));
    }
    else
    {
        countNonZero<<<1, 1, 0, launch.stream>>>(flags, columns, volume, n, static_cast<int32_t*>(count.data));
    }
    if ((status = cudaGetLastError()) != cudaSuccess)
    {
        return cudaFailure(status, "launching the non-zero count kernel");
    }
    if (volume == 0 || in.dims.nbDims == 0)
    {
        return host::Done{}; // no coordinates to write
    }
    Extents extents{in.dims.nbDims, {}};
    std::copy(in.dims.d, in.dims.d + in.dims.nbDims, extents.d);
    if (indices.type == DataType::kINT64)
    {
        scatterCoordinates<<<gridStrideBlocks(volume, kThreads), kThreads, 0, launch.stream>>>(
            flags, columns, n, extents, volume, static_cast<int64_t*>(indices.data));
    }
    else
    {
        scatterCoordinates<<<gridStrideBlocks(volume, kThreads), kThreads, 0, launch.stream>>>(
            flags, columns, n, extents, volume, static_cast<int32_t*>(indices.data));
    }
    if ((status = cudaGetLastError()) != cudaSuccess)
    {
        return cudaFailure(status, "launching the non-zero scatter kernel");
    }
    return host::Done{};
}

} // namespace

Status runNonZero(NonZeroParams const& params, DeviceTensor const& in, DeviceTensor const& indices,
    DeviceTensor const& count, Launch const& launch)
{
    Expected<host::TensorDesc> const room = host::inferNonZero(params, {in.type, in.dims});
    if (!room)
    {
        return room.error();
    }
    if (std::optional<std::string> const problem = host::indicesProblem(room.value(), indices))
    {
        return invalid(*problem);
    }
    if ((count.type != DataType::kINT32 && count.type != DataType::kINT64) || count.dims.nbDims != 0)
    {
        return invalid("the count is " + std::string(dataTypeName(count.type)) + " " + host::shapeString(count.dims)
            + "; it must be a 0-D kINT32 or kINT64 tensor");
    }
    for (auto const& [tensor, role] :
        {std::pair{&in, "input 0"}, std::pair{&indices, "output 0"}, std::pair{&count, "the count"}})
    {
        if (std::optional<Error> const error = host::checkTensor(*tensor, role))
        {
            return invalid(error->message);
        }
    }
    int64_t const volume = host::elementCount(in.dims);
    if (volume > std::numeric_limits<int32_t>::max())
    {
        return invalid("the input " + host::shapeString(in.dims) + " has " + std::to_string(volume)
            + " elements; the CUDA kernel takes at most 2^31 - 1");
    }
    if (launch.libraries == nullptr)
    {
        return Error{nvinfer1::ErrorCode::kINVALID_STATE, "non-zero: the kernel needs the context's scratch memory"};
    }
    Status result = invalid(std::string("does not take ") + dataTypeName(in.type) + " inputs");
    dispatchType(in.type, [&]<DataType T>() {
        if constexpr (kTakes<T>)
        {
            result = launchNonZero<T>(in, indices, count, launch);
        }
    });
    return result;
}

} // namespace kiln::cuda
