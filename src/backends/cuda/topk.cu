// SPDX-License-Identifier: Apache-2.0
// CUDA kernel of ITopKLayer, with the semantics of the host reference (backends/host/topk.h): exact comparisons, equal
// values in position order (the lower index first), NaN above every number, k == 0 and empty rows allowed.
//
// The input is seen as rows (every position of the axes other than the reduced one), each of n elements along the
// axis. Three steps on the stream:
// 1. keys: each element becomes an unsigned key whose ascending order is the output order (the value's bits made
//    monotonic: -0 as +0, every NaN as one value above +inf, integers with the sign bit flipped; complemented for
//    kMAX), written row after row with its position along the axis, and each row's start offset;
// 2. cub::DeviceSegmentedSort::StableSortPairs sorts every row's keys with their positions. The sort is stable, so
//    equal keys (equal values) keep their position order;
// 3. gather: the first k positions of each row give the indices and, read back from the input, the values (their
//    bits copied, so -0 and NaN payloads stay as they are).
// Keys are 32-bit for kFLOAT, kHALF, kBF16 and kINT32, 64-bit for kINT64 (fewer radix passes for the common types).
// Scratch memory (the keys and positions twice, the offsets, CUB's temporary storage) comes from the context's
// workspace. A full sort of each row is more work than selecting k of n when k is small, but it is exact for every k
// and CUB sorts small rows with warp-level sorts; the results are deterministic.
// Limits: at most 2^31 - 1 elements (CUB's offsets and the positions are 32-bit).
#include "backends/cuda/elements.cuh"
#include "backends/cuda/kernels.h"
#include "backends/cuda/scratch.cuh"
#include "backends/host/topk.h"

#include <cub/device/device_segmented_sort.cuh>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

namespace kiln::cuda
{

namespace
{

using nvinfer1::TopKOperation;

constexpr int32_t kThreads = 256;

template <DataType T>
inline constexpr bool kSelects = T == DataType::kFLOAT || T == DataType::kHALF || T == DataType::kBF16
    || T == DataType::kINT32 || T == DataType::kINT64;

//! The sort key of T: 64-bit for kINT64, 32-bit otherwise.
template <DataType T>
using Key = std::conditional_t<T == DataType::kINT64, uint64_t, uint32_t>;

//! The input as rows: row r = o * inner + i holds the elements o * n * inner + j * inner + i, j < n.
struct Rows
{
    int64_t outer{};
    int64_t n{};
    int64_t inner{};
    int64_t count{}; //!< outer * inner.
};

//! The key of element i: ascending keys are the output order (largest first for kMAX, smallest first for kMIN).
template <DataType T>
__device__ __forceinline__ Key<T> keyOf(Storage<T> const* in, int64_t i, bool largest)
{
    Key<T> ordered{};
    if constexpr (kIsFloating<T>)
    {
        float const value = loadFloat<T>(in, i); // Exact for kFLOAT, kHALF and kBF16.
        uint32_t bits = value != value ? 0x7FC00000U : __float_as_uint(value == 0.F ? 0.F : value);
        ordered = (bits & 0x80000000U) != 0 ? ~bits : bits | 0x80000000U;
    }
    else
    {
        ordered = static_cast<Key<T>>(in[i]) ^ (Key<T>{1} << (8 * sizeof(Key<T>) - 1));
    }
    return largest ? static_cast<Key<T>>(~ordered) : ordered;
}

//! Writes every element's key and position row after row (reading the input in order), and the rows' offsets.
template <DataType T>
__global__ void makeKeys(
    Storage<T> const* in, Key<T>* keys, int32_t* positions, int32_t* offsets, Rows const rows, bool const largest)
{
    int64_t const total = rows.count * rows.n;
    int64_t const step = int64_t{gridDim.x} * blockDim.x;
    for (int64_t e = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; e < total; e += step)
    {
        int64_t const o = e / (rows.n * rows.inner);
        int64_t const rest = e - o * rows.n * rows.inner;
        int64_t const j = rest / rows.inner;
        int64_t const i = rest - j * rows.inner;
        int64_t const slot = (o * rows.inner + i) * rows.n + j;
        keys[slot] = keyOf<T>(in, e, largest);
        positions[slot] = static_cast<int32_t>(j);
    }
    for (int64_t r = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; r <= rows.count; r += step)
    {
        offsets[r] = static_cast<int32_t>(r * rows.n);
    }
}

//! Writes the first k sorted positions of each row as the indices, and the elements there as the values.
template <DataType T, typename Index>
__global__ void gatherTopK(
    Storage<T> const* in, int32_t const* sorted, Rows const rows, int64_t const k, Storage<T>* values, Index* indices)
{
    int64_t const total = rows.count * k;
    int64_t const step = int64_t{gridDim.x} * blockDim.x;
    for (int64_t e = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; e < total; e += step)
    {
        // e is the output element o * k * inner + t * inner + i.
        int64_t const o = e / (k * rows.inner);
        int64_t const rest = e - o * k * rows.inner;
        int64_t const t = rest / rows.inner;
        int64_t const i = rest - t * rows.inner;
        int32_t const position = sorted[(o * rows.inner + i) * rows.n + t];
        values[e] = in[o * rows.n * rows.inner + int64_t{position} * rows.inner + i];
        indices[e] = static_cast<Index>(position);
    }
}

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "topk: " + message};
}

//! Sorts the rows' keys and gathers the top k of each, with the context's workspace as scratch memory.
template <DataType T>
Status launchTopK(TopKParams const& params, Rows const& rows, DeviceTensor const& in, DeviceTensor const& values,
    DeviceTensor const& indices, Launch const& launch)
{
    using K = Key<T>;
    int64_t const items = rows.count * rows.n;
    auto const nbItems = static_cast<int>(items);
    auto const nbRows = static_cast<int>(rows.count);
    // CUB's temporary storage for these sizes (nothing is read or launched with a null buffer).
    std::size_t tempBytes = 0;
    cudaError_t status = cub::DeviceSegmentedSort::StableSortPairs(nullptr, tempBytes, static_cast<K const*>(nullptr),
        static_cast<K*>(nullptr), static_cast<int32_t const*>(nullptr), static_cast<int32_t*>(nullptr), nbItems, nbRows,
        static_cast<int32_t const*>(nullptr), static_cast<int32_t const*>(nullptr), launch.stream);
    if (status != cudaSuccess)
    {
        return cudaFailure(status, "sizing the topk sort");
    }
    int64_t const keyBytes = scratchBytes(items * static_cast<int64_t>(sizeof(K)));
    int64_t const positionBytes = scratchBytes(items * static_cast<int64_t>(sizeof(int32_t)));
    int64_t const offsetBytes = scratchBytes((rows.count + 1) * static_cast<int64_t>(sizeof(int32_t)));
    int64_t const total
        = 2 * keyBytes + 2 * positionBytes + offsetBytes + scratchBytes(static_cast<int64_t>(tempBytes));
    Expected<void*> const block = launch.libraries->workspace(total, launch.stream);
    if (!block)
    {
        return block.error();
    }
    ScratchCarver carve(block.value());
    auto* keysIn = reinterpret_cast<K*>(carve.take(keyBytes));
    auto* keysOut = reinterpret_cast<K*>(carve.take(keyBytes));
    auto* positionsIn = reinterpret_cast<int32_t*>(carve.take(positionBytes));
    auto* positionsOut = reinterpret_cast<int32_t*>(carve.take(positionBytes));
    auto* offsets = reinterpret_cast<int32_t*>(carve.take(offsetBytes));
    void* temp = carve.take(scratchBytes(static_cast<int64_t>(tempBytes)));

    auto const* src = static_cast<Storage<T> const*>(in.data);
    bool const largest = params.op == TopKOperation::kMAX;
    makeKeys<T><<<gridStrideBlocks(std::max(items, rows.count + 1), kThreads), kThreads, 0, launch.stream>>>(
        src, keysIn, positionsIn, offsets, rows, largest);
    if ((status = cudaGetLastError()) != cudaSuccess)
    {
        return cudaFailure(status, "launching the topk key kernel");
    }
    status = cub::DeviceSegmentedSort::StableSortPairs(temp, tempBytes, keysIn, keysOut, positionsIn, positionsOut,
        nbItems, nbRows, static_cast<int32_t const*>(offsets), static_cast<int32_t const*>(offsets + 1), launch.stream);
    if (status != cudaSuccess)
    {
        return cudaFailure(status, "sorting the topk rows");
    }
    int64_t const outCount = rows.count * params.k;
    auto* dst = static_cast<Storage<T>*>(values.data);
    if (params.indicesType == DataType::kINT64)
    {
        gatherTopK<T, int64_t><<<gridStrideBlocks(outCount, kThreads), kThreads, 0, launch.stream>>>(
            src, positionsOut, rows, params.k, dst, static_cast<int64_t*>(indices.data));
    }
    else
    {
        gatherTopK<T, int32_t><<<gridStrideBlocks(outCount, kThreads), kThreads, 0, launch.stream>>>(
            src, positionsOut, rows, params.k, dst, static_cast<int32_t*>(indices.data));
    }
    if ((status = cudaGetLastError()) != cudaSuccess)
    {
        return cudaFailure(status, "launching the topk gather kernel");
    }
    return host::Done{};
}

} // namespace

Status runTopK(TopKParams const& params, DeviceTensor const& in, DeviceTensor const& values,
    DeviceTensor const& indices, Launch const& launch)
{
    Expected<host::TensorDesc> const desc = host::inferTopK(params, {in.type, in.dims});
    if (!desc)
    {
        return desc.error();
    }
    Dims const& shape = desc.value().dims;
    if (std::optional<std::string> const mismatch = host::outputMismatch(values, in.type, shape))
    {
        return invalid("output 0 (values): " + *mismatch);
    }
    if (std::optional<std::string> const mismatch = host::outputMismatch(indices, params.indicesType, shape))
    {
        return invalid("output 1 (indices): " + *mismatch);
    }
    for (auto const& [tensor, role] :
        {std::pair{&in, "input"}, std::pair{&values, "output 0 (values)"}, std::pair{&indices, "output 1 (indices)"}})
    {
        if (std::optional<Error> const error = host::checkTensor(*tensor, role))
        {
            return invalid(error->message);
        }
    }
    int32_t const axis = std::countr_zero(params.axes);
    Rows rows{1, in.dims.d[axis], 1, 0};
    for (int32_t d = 0; d < axis; ++d)
    {
        rows.outer *= in.dims.d[d];
    }
    for (int32_t d = axis + 1; d < in.dims.nbDims; ++d)
    {
        rows.inner *= in.dims.d[d];
    }
    rows.count = rows.outer * rows.inner;
    int64_t const items = host::elementCount(in.dims);
    if (items > std::numeric_limits<int32_t>::max())
    {
        return invalid("the input " + host::shapeString(in.dims) + " has " + std::to_string(items)
            + " elements; the CUDA kernel takes at most 2^31 - 1");
    }
    if (rows.count == 0 || params.k == 0)
    {
        return host::Done{}; // Empty outputs.
    }
    if (launch.libraries == nullptr)
    {
        return Error{nvinfer1::ErrorCode::kINVALID_STATE, "topk: the kernel needs the context's scratch memory"};
    }
    Status result = invalid(std::string("does not accept ") + dataTypeName(in.type) + " inputs");
    dispatchType(in.type, [&]<DataType T>() {
        if constexpr (kSelects<T>)
        {
            result = launchTopK<T>(params, rows, in, values, indices, launch);
        }
    });
    return result;
}

} // namespace kiln::cuda
