// SPDX-License-Identifier: Apache-2.0
// CUDA kernels of ISoftMaxLayer, with the semantics of the host reference (backends/host/softmax.h): along one axis,
// out = exp(x - max) / sum(exp(x - max)), computed in float and stored rounded once. Three passes over each row (the
// maximum, the sum, the result); IEEE arithmetic gives the host's special values by itself: a NaN makes exp NaN and
// so the sum, a +inf maximum gives inf - inf, a row of -inf gives -inf - -inf.
//
// The tensor is seen as [outer, extent, inner] around the axis. Two kernels:
// - rows (inner == 1, the axis innermost): a warp or a whole block takes each row, neighbouring lanes reading
//   neighbouring elements, folding with shuffles (and shared memory across warps);
// - columns (inner > 1): neighbouring lanes take neighbouring columns (neighbouring elements), threadIdx.y splits the
//   axis, folded through shared memory.
// Each pass keeps four loads in flight per thread. Each thread reads and writes the same elements in every pass, so out
// may be in.
#include "backends/cuda/elements.cuh"
#include "backends/cuda/kernels.h"
#include "backends/host/softmax.h"

#include <algorithm>
#include <bit>
#include <optional>
#include <string>
#include <utility>

namespace kiln::cuda
{

namespace
{

constexpr int64_t kMaxBlocks = 65535;
constexpr uint32_t kFullMask = 0xFFFFFFFFU;

struct Max
{
    __device__ __forceinline__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

struct Add
{
    __device__ __forceinline__ float operator()(float a, float b) const { return a + b; }
};

template <DataType T>
inline constexpr bool kSoftMaxes = T == DataType::kFLOAT || T == DataType::kHALF || T == DataType::kBF16;

//! Folds value over the blockDim.x threads of a row (a multiple of 32); every thread of the row gets the result.
//! partial: shared memory for one value per warp of the block. Every thread of the block must call it.
template <typename F>
__device__ __forceinline__ float rowFold(float value, F f, float* partial)
{
#pragma unroll
    for (int32_t mask = 16; mask > 0; mask /= 2)
    {
        value = f(value, __shfl_xor_sync(kFullMask, value, mask));
    }
    int32_t const warpsPerRow = static_cast<int32_t>(blockDim.x / 32);
    if (warpsPerRow > 1)
    {
        int32_t const slot = static_cast<int32_t>(threadIdx.y) * warpsPerRow;
        if (threadIdx.x % 32 == 0)
        {
            partial[slot + static_cast<int32_t>(threadIdx.x / 32)] = value;
        }
        __syncthreads();
        value = partial[slot];
        for (int32_t w = 1; w < warpsPerRow; ++w)
        {
            value = f(value, partial[slot + w]);
        }
        __syncthreads(); // partial is written again by the next fold.
    }
    return value;
}

//! The elements one thread visits along the axis: in[base + j * stride] for j = first, first + step, ... below end.
//! Each pass takes four of them at a time, so that four loads are in flight together.
struct Line
{
    int64_t base;
    int64_t stride;
    int64_t first;
    int64_t end;
    int64_t step;
};

template <DataType T>
__device__ __forceinline__ float lineMax(Storage<T> const* in, Line const& l)
{
    float maximum = -INFINITY;
    int64_t j = l.first;
    for (; j + 3 * l.step < l.end; j += 4 * l.step)
    {
        float const a = loadFloat<T>(in, l.base + j * l.stride);
        float const b = loadFloat<T>(in, l.base + (j + l.step) * l.stride);
        float const c = loadFloat<T>(in, l.base + (j + 2 * l.step) * l.stride);
        float const d = loadFloat<T>(in, l.base + (j + 3 * l.step) * l.stride);
        maximum = fmaxf(maximum, fmaxf(fmaxf(a, b), fmaxf(c, d)));
    }
    for (; j < l.end; j += l.step)
    {
        maximum = fmaxf(maximum, loadFloat<T>(in, l.base + j * l.stride));
    }
    return maximum;
}

template <DataType T>
__device__ __forceinline__ float lineSum(Storage<T> const* in, Line const& l, float maximum)
{
    float sum = 0.F;
    int64_t j = l.first;
    for (; j + 3 * l.step < l.end; j += 4 * l.step)
    {
        float const a = loadFloat<T>(in, l.base + j * l.stride);
        float const b = loadFloat<T>(in, l.base + (j + l.step) * l.stride);
        float const c = loadFloat<T>(in, l.base + (j + 2 * l.step) * l.stride);
        float const d = loadFloat<T>(in, l.base + (j + 3 * l.step) * l.stride);
        sum += (expf(a - maximum) + expf(b - maximum)) + (expf(c - maximum) + expf(d - maximum));
    }
    for (; j < l.end; j += l.step)
    {
        sum += expf(loadFloat<T>(in, l.base + j * l.stride) - maximum);
    }
    return sum;
}

//! Writes the results of the thread's elements (loading each before storing any of four: out may be in).
template <DataType T>
__device__ __forceinline__ void lineWrite(
    Storage<T> const* in, Storage<T>* out, Line const& l, float maximum, float sum)
{
    int64_t j = l.first;
    for (; j + 3 * l.step < l.end; j += 4 * l.step)
    {
        int64_t const i = l.base + j * l.stride;
        int64_t const s = l.step * l.stride;
        float const a = loadFloat<T>(in, i);
        float const b = loadFloat<T>(in, i + s);
        float const c = loadFloat<T>(in, i + 2 * s);
        float const d = loadFloat<T>(in, i + 3 * s);
        storeFloat<T>(out, i, expf(a - maximum) / sum);
        storeFloat<T>(out, i + s, expf(b - maximum) / sum);
        storeFloat<T>(out, i + 2 * s, expf(c - maximum) / sum);
        storeFloat<T>(out, i + 3 * s, expf(d - maximum) / sum);
    }
    for (; j < l.end; j += l.step)
    {
        int64_t const i = l.base + j * l.stride;
        storeFloat<T>(out, i, expf(loadFloat<T>(in, i) - maximum) / sum);
    }
}

//! Softmax of rows of extent contiguous elements: blockDim.x threads per row, blockDim.y rows per block.
template <DataType T>
__global__ void softMaxRows(Storage<T> const* in, Storage<T>* out, int64_t rows, int64_t extent)
{
    __shared__ float partial[32];
    // Every thread runs every iteration (the bound is uniform over the block), so rowFold's barriers are reached by
    // all.
    for (int64_t first = int64_t{blockIdx.x} * blockDim.y; first < rows; first += int64_t{gridDim.x} * blockDim.y)
    {
        int64_t const row = first + threadIdx.y;
        int64_t const end = row < rows ? extent : 0; // Threads past the last row fold nothing.
        Line const line{row * extent, 1, threadIdx.x, end, blockDim.x};
        float const maximum = rowFold(lineMax<T>(in, line), Max{}, partial);
        float const sum = rowFold(lineSum<T>(in, line, maximum), Add{}, partial);
        lineWrite<T>(in, out, line, maximum, sum);
    }
}

//! Folds value over the blockDim.y threads of a column (threadIdx.x); every thread of the column gets the result.
//! Every thread of the block must call it.
template <typename F>
__device__ __forceinline__ float columnFold(float value, F f, float (*partial)[32])
{
    partial[threadIdx.y][threadIdx.x] = value;
    __syncthreads();
    value = partial[0][threadIdx.x];
    for (uint32_t y = 1; y < blockDim.y; ++y)
    {
        value = f(value, partial[y][threadIdx.x]);
    }
    __syncthreads(); // partial is written again by the next fold.
    return value;
}

//! Softmax along the middle axis of [outer, extent, inner]: one column (outer, inner) per lane of 32
//! (blockDim.x == 32), threadIdx.y splitting the axis.
template <DataType T>
__global__ void softMaxColumns(Storage<T> const* in, Storage<T>* out, int64_t columns, int64_t extent, int64_t inner)
{
    __shared__ float partial[32][32];
    for (int64_t first = int64_t{blockIdx.x} * 32; first < columns; first += int64_t{gridDim.x} * 32)
    {
        int64_t const column = first + threadIdx.x;
        int64_t const end = column < columns ? extent : 0; // Threads past the last column fold nothing.
        Line const line{column / inner * extent * inner + column % inner, inner, threadIdx.y, end, blockDim.y};
        float const maximum = columnFold(lineMax<T>(in, line), Max{}, partial);
        float const sum = columnFold(lineSum<T>(in, line, maximum), Add{}, partial);
        lineWrite<T>(in, out, line, maximum, sum);
    }
}

template <DataType T>
void launchSoftMax(
    int64_t outer, int64_t extent, int64_t inner, DeviceTensor const& in, DeviceTensor const& out, cudaStream_t stream)
{
    auto const* src = static_cast<Storage<T> const*>(in.data);
    auto* dst = static_cast<Storage<T>*>(out.data);
    if (inner == 1)
    {
        uint32_t const threadsPerRow = extent <= 1024 ? 32 : (extent <= 8192 ? 256 : 1024);
        uint32_t const rowsPerBlock = std::max(1U, 256U / threadsPerRow);
        int64_t const blocks = std::min(kMaxBlocks, (outer + rowsPerBlock - 1) / rowsPerBlock);
        softMaxRows<T>
            <<<static_cast<uint32_t>(blocks), dim3(threadsPerRow, rowsPerBlock), 0, stream>>>(src, dst, outer, extent);
        return;
    }
    int64_t const columns = outer * inner;
    int64_t const tiles = (columns + 31) / 32;
    // Few columns: more threads split each one's axis.
    int64_t const splits = std::min<int64_t>(extent, tiles < 512 ? 32 : 8);
    softMaxColumns<T>
        <<<static_cast<uint32_t>(std::min(kMaxBlocks, tiles)), dim3(32, static_cast<uint32_t>(splits)), 0, stream>>>(
            src, dst, columns, extent, inner);
}

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "softmax: " + message};
}

} // namespace

Status runSoftMax(SoftMaxParams const& params, DeviceTensor const& in, DeviceTensor const& out, Launch const& launch)
{
    Expected<host::TensorDesc> const desc = host::inferSoftMax(params, {in.type, in.dims});
    if (!desc)
    {
        return desc.error();
    }
    if (std::optional<std::string> const mismatch = host::outputMismatch(out, in.type, in.dims))
    {
        return invalid(*mismatch);
    }
    for (auto const& [tensor, role] : {std::pair{&in, "input"}, std::pair{&out, "output"}})
    {
        if (std::optional<Error> const error = host::checkTensor(*tensor, role))
        {
            return invalid(error->message);
        }
    }
    int32_t const axis = std::countr_zero(params.axes);
    int64_t outer = 1;
    int64_t inner = 1;
    for (int32_t i = 0; i < in.dims.nbDims; ++i)
    {
        (i < axis ? outer : inner) *= i == axis ? 1 : in.dims.d[i];
    }
    int64_t const extent = in.dims.d[axis];
    if (outer * extent * inner == 0)
    {
        return host::Done{};
    }
    dispatchType(in.type, [&]<DataType T>() {
        if constexpr (kSoftMaxes<T>)
        {
            launchSoftMax<T>(outer, extent, inner, in, out, launch.stream);
        }
    });
    cudaError_t const status = cudaGetLastError();
    if (status != cudaSuccess)
    {
        return cudaFailure(status, "launching the softmax kernel");
    }
    return host::Done{};
}

} // namespace kiln::cuda
