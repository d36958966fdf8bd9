// SPDX-License-Identifier: Apache-2.0
// The CUDA kernels of the builder's fused kernels (FusedKernel in plan/engine_model.h, builder/fusion.h): a layer norm
// over the last axis, and multi-head attention that reads q, k and v with their heads interleaved ([B, S, H * D]) and
// writes the heads merged. Both compute in float and round once when they store, so they match the unfused layers'
// host results within the type's tolerance (the unfused layers round every intermediate tensor to the type).
//
// Layer norm: a warp per row when a row fits in 32 floats per lane (rows up to 1024), kept in registers between the
// mean, the variance (of the centered values: two passes, no cancellation) and the result; a block per row over
// global memory otherwise. 16-byte loads where the row's bytes allow.
//
// Attention (flash-style): a block takes 32 queries of one batch and head; the keys and values go through shared
// memory; each warp keeps the running maximum and sum of its 16 rows (online softmax) and its output accumulators.
// kHALF and kBF16 multiply on tensor cores: mma.sync m16n8k16 with the scores, probabilities and output in registers
// (attentionMma: four warps, two per 16 queries splitting the keys, merged at the end, with the keys and values copied
// 128 at a time by cp.async and read by ldmatrix; where the grid has kWideAttentionBlocks blocks of 64 queries or
// more, 64 queries per block, each warp 16 of them over every key, so that each block's keys and values serve twice
// the queries), or WMMA 16x16x16 through shared memory where the tensors are not
// 16-byte aligned (attentionWmma: two warps, 64 keys at a time); float accumulators in both. kFLOAT runs on the CUDA
// cores in float (no TF32: the unfused matrix multiplies do not use it either). An additive mask (MaskView: any of [B,
// H, Sq, Skv]'s axes broadcast by a stride of 0) is read from global memory: attentionMma stages each key tile's
// values in shared memory as floats (one row for a mask every query shares, the usual [B, 1, 1, Skv]; the block's 32
// rows otherwise), every thread's loads issued together while the keys copy, instead of each lane loading its scores'
// values one dependent load at a time (ncu: half the kernel's stall samples at batch 32); the other kernels load each
// value where they add it. A mask shared by the heads is read from L2 by all but the first. A row whose softmax sum is
// not positive (every score -inf, or NaN) gives zeros or NaN, as FusedKernel::zeroMaskedRows says.
#include "backends/cuda/elements.cuh"
#include "backends/cuda/kernels.h"
#include "backends/cuda/launch.cuh"

#include <mma.h>

#include <utility>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>

namespace kiln::cuda
{

namespace
{

constexpr uint32_t kFullMask = 0xFFFFFFFFU;
constexpr int32_t kWarp = 32;

Error invalid(std::string message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, std::move(message)};
}

__device__ __forceinline__ float warpSum(float value)
{
#pragma unroll
    for (int32_t mask = 16; mask > 0; mask /= 2)
    {
        value += __shfl_xor_sync(kFullMask, value, mask);
    }
    return value;
}

// ---- Layer norm ---------------------------------------------------------------------------------------------------

//! The most values a lane keeps in registers: rows up to 32 * 32 elements go through the warp kernel.
constexpr int32_t kNormPerLane = 32;

//! Loads kVec consecutive elements of p from element i as floats (kVec * sizeof(Storage<T>) is 16 bytes or kVec 1).
template <DataType T, int32_t kVec>
__device__ __forceinline__ void loadVector(Storage<T> const* p, int64_t i, float* values)
{
    if constexpr (kVec == 1)
    {
        values[0] = loadFloat<T>(p, i);
    }
    else
    {
        static_assert(kVec * sizeof(Storage<T>) == 16, "16-byte vectors");
        uint4 const bits = *reinterpret_cast<uint4 const*>(p + i);
        Storage<T> elements[kVec];
        memcpy(elements, &bits, sizeof(bits));
#pragma unroll
        for (int32_t e = 0; e < kVec; ++e)
        {
            values[e] = loadFloat<T>(elements, e);
        }
    }
}

template <DataType T, int32_t kVec>
__device__ __forceinline__ void storeVector(Storage<T>* p, int64_t i, float const* values)
{
    if constexpr (kVec == 1)
    {
        storeFloat<T>(p, i, values[0]);
    }
    else
    {
        Storage<T> elements[kVec];
#pragma unroll
        for (int32_t e = 0; e < kVec; ++e)
        {
            storeFloat<T>(elements, e, values[e]);
        }
        uint4 bits;
        memcpy(&bits, elements, sizeof(bits));
        *reinterpret_cast<uint4*>(p + i) = bits;
    }
}

//! One warp per row of n elements (n <= 32 * kNormPerLane). Lane l holds the vectors l, l + 32, ... of its row.
template <DataType T, int32_t kVec>
__global__ void layerNormWarp(Storage<T> const* __restrict__ in, Storage<T> const* __restrict__ gamma,
    Storage<T> const* __restrict__ beta, Storage<T>* __restrict__ out, int64_t rows, int32_t n, float epsilon)
{
    awaitPrerequisites();
    allowDependents();
    constexpr int32_t kChunks = kNormPerLane / kVec;
    int64_t const row = static_cast<int64_t>(blockIdx.x) * (blockDim.x / kWarp) + threadIdx.x / kWarp;
    int32_t const lane = static_cast<int32_t>(threadIdx.x % kWarp);
    if (row >= rows)
    {
        return;
    }
    Storage<T> const* x = in + row * n;
    float values[kChunks][kVec];
    float sum = 0.F;
#pragma unroll
    for (int32_t c = 0; c < kChunks; ++c)
    {
        int32_t const at = (c * kWarp + lane) * kVec;
        if (at < n)
        {
            loadVector<T, kVec>(x, at, values[c]);
#pragma unroll
            for (int32_t e = 0; e < kVec; ++e)
            {
                sum += values[c][e];
            }
        }
    }
    float const mean = warpSum(sum) / static_cast<float>(n);
    float squares = 0.F;
#pragma unroll
    for (int32_t c = 0; c < kChunks; ++c)
    {
        if ((c * kWarp + lane) * kVec < n)
        {
#pragma unroll
            for (int32_t e = 0; e < kVec; ++e)
            {
                values[c][e] -= mean;
                squares += values[c][e] * values[c][e];
            }
        }
    }
    float const inverse = 1.F / sqrtf(warpSum(squares) / static_cast<float>(n) + epsilon);
    Storage<T>* y = out + row * n;
#pragma unroll
    for (int32_t c = 0; c < kChunks; ++c)
    {
        int32_t const at = (c * kWarp + lane) * kVec;
        if (at < n)
        {
            float scale[kVec];
            float shift[kVec];
#pragma unroll
            for (int32_t e = 0; e < kVec; ++e)
            {
                scale[e] = 1.F;
                shift[e] = 0.F;
            }
            if (gamma != nullptr)
            {
                loadVector<T, kVec>(gamma, at, scale);
            }
            if (beta != nullptr)
            {
                loadVector<T, kVec>(beta, at, shift);
            }
#pragma unroll
            for (int32_t e = 0; e < kVec; ++e)
            {
                values[c][e] = values[c][e] * inverse * scale[e] + shift[e];
            }
            storeVector<T, kVec>(y, at, values[c]);
        }
    }
}

//! Sums value over the block (blockDim.x a multiple of 32, at most 1024); every thread gets the result.
__device__ float blockSum(float value, float* partial)
{
    value = warpSum(value);
    int32_t const warps = static_cast<int32_t>(blockDim.x) / kWarp;
    if (threadIdx.x % kWarp == 0)
    {
        partial[threadIdx.x / kWarp] = value;
    }
    __syncthreads();
    float total = 0.F;
    for (int32_t w = 0; w < warps; ++w)
    {
        total += partial[w];
    }
    __syncthreads(); // partial is written again by the next sum.
    return total;
}

//! One block per row, three passes over global memory: rows longer than the warp kernel takes.
template <DataType T>
__global__ void layerNormBlock(Storage<T> const* __restrict__ in, Storage<T> const* __restrict__ gamma,
    Storage<T> const* __restrict__ beta, Storage<T>* __restrict__ out, int32_t n, float epsilon)
{
    awaitPrerequisites();
    allowDependents();
    __shared__ float partial[kWarp];
    int64_t const row = blockIdx.x;
    Storage<T> const* x = in + row * n;
    float sum = 0.F;
    for (int32_t i = static_cast<int32_t>(threadIdx.x); i < n; i += static_cast<int32_t>(blockDim.x))
    {
        sum += loadFloat<T>(x, i);
    }
    float const mean = blockSum(sum, partial) / static_cast<float>(n);
    float squares = 0.F;
    for (int32_t i = static_cast<int32_t>(threadIdx.x); i < n; i += static_cast<int32_t>(blockDim.x))
    {
        float const centered = loadFloat<T>(x, i) - mean;
        squares += centered * centered;
    }
    float const inverse = 1.F / sqrtf(blockSum(squares, partial) / static_cast<float>(n) + epsilon);
    Storage<T>* y = out + row * n;
    for (int32_t i = static_cast<int32_t>(threadIdx.x); i < n; i += static_cast<int32_t>(blockDim.x))
    {
        float const scale = gamma != nullptr ? loadFloat<T>(gamma, i) : 1.F;
        float const shift = beta != nullptr ? loadFloat<T>(beta, i) : 0.F;
        storeFloat<T>(y, i, (loadFloat<T>(x, i) - mean) * inverse * scale + shift);
    }
}

template <DataType T>
void launchLayerNorm(void const* in, void const* gamma, void const* beta, void* out, int64_t rows, int32_t n,
    float epsilon, cudaStream_t stream)
{
    auto const* x = static_cast<Storage<T> const*>(in);
    auto const* g = static_cast<Storage<T> const*>(gamma);
    auto const* b = static_cast<Storage<T> const*>(beta);
    auto* y = static_cast<Storage<T>*>(out);
    if (n > kWarp * kNormPerLane)
    {
        launchOverlapped<layerNormBlock<T>>(static_cast<uint32_t>(rows), 256, 0, stream, x, g, b, y, n, epsilon);
        return;
    }
    constexpr int32_t kWarpsPerBlock = 4;
    auto const blocks = static_cast<uint32_t>((rows + kWarpsPerBlock - 1) / kWarpsPerBlock);
    constexpr int32_t kVec = 16 / static_cast<int32_t>(sizeof(Storage<T>));
    auto const aligned = [&](void const* p) { return p == nullptr || reinterpret_cast<uintptr_t>(p) % 16 == 0; };
    if (n % kVec == 0 && aligned(in) && aligned(gamma) && aligned(beta) && aligned(out))
    {
        launchOverlapped<layerNormWarp<T, kVec>>(
            blocks, kWarpsPerBlock * kWarp, 0, stream, x, g, b, y, rows, n, epsilon);
    }
    else
    {
        launchOverlapped<layerNormWarp<T, 1>>(blocks, kWarpsPerBlock * kWarp, 0, stream, x, g, b, y, rows, n, epsilon);
    }
}

// ---- Embedding ----------------------------------------------------------------------------------------------------

//! The output's outer axes (all but the last) a fused embedding indexes.
constexpr int32_t kEmbeddingOuter = nvinfer1::Dims::MAX_DIMS - 1;

//! What a fused embedding reads (FusedKernel::kEMBEDDING), passed by value: per lookup its table and indices, per
//! addend its data, with the strides of the output's outer coordinates in the indices and in the addends' rows (0
//! along a broadcast axis).
struct EmbeddingTerms
{
    int32_t gathers{};
    int32_t addends{};
    int32_t outer{}; //!< The output's rank less one.
    int64_t extents[kEmbeddingOuter]{};
    void const* tables[kMaxEmbeddingTerms]{};
    int64_t tableRows[kMaxEmbeddingTerms]{};
    void const* indices[kMaxEmbeddingTerms]{};
    int32_t wideIndices{}; //!< Bit k: lookup k's indices are kINT64 (else kINT32).
    int32_t wrapped{};     //!< Bit k: lookup k's negative indices count from the end.
    int64_t indexStrides[kMaxEmbeddingTerms][kEmbeddingOuter]{};
    void const* addendData[kMaxEmbeddingTerms]{};
    int64_t addendStrides[kMaxEmbeddingTerms][kEmbeddingOuter]{}; //!< In rows.
    void const* gamma{};
    void const* beta{};
    bool normalize{};
    float epsilon{};
};

//! One warp per output row of n elements (n <= 32 * kNormPerLane): the lookups' rows and the addends' rows summed in
//! float, then optionally normalized as layerNormWarp does, stored once.
template <DataType T, int32_t kVec>
__global__ void embeddingWarp(EmbeddingTerms const terms, Storage<T>* __restrict__ out, int64_t rows, int32_t n)
{
    awaitPrerequisites();
    allowDependents();
    constexpr int32_t kChunks = kNormPerLane / kVec;
    int64_t const row = static_cast<int64_t>(blockIdx.x) * (blockDim.x / kWarp) + threadIdx.x / kWarp;
    int32_t const lane = static_cast<int32_t>(threadIdx.x % kWarp);
    if (row >= rows)
    {
        return;
    }
    int64_t indexAt[kMaxEmbeddingTerms]{};
    int64_t addendAt[kMaxEmbeddingTerms]{};
    int64_t rest = row;
    for (int32_t a = terms.outer - 1; a >= 0; --a)
    {
        int64_t const coordinate = rest % terms.extents[a];
        rest /= terms.extents[a];
#pragma unroll
        for (int32_t k = 0; k < kMaxEmbeddingTerms; ++k)
        {
            indexAt[k] += coordinate * terms.indexStrides[k][a];
            addendAt[k] += coordinate * terms.addendStrides[k][a];
        }
    }
    // Each lookup's table row, or null for an index out of range (it adds zeros, as the gather kernel writes them).
    Storage<T> const* lookups[kMaxEmbeddingTerms]{};
#pragma unroll
    for (int32_t k = 0; k < kMaxEmbeddingTerms; ++k)
    {
        if (k < terms.gathers)
        {
            int64_t index = ((terms.wideIndices >> k) & 1) != 0
                ? __ldg(static_cast<int64_t const*>(terms.indices[k]) + indexAt[k])
                : static_cast<int64_t>(__ldg(static_cast<int32_t const*>(terms.indices[k]) + indexAt[k]));
            if (((terms.wrapped >> k) & 1) != 0 && index < 0)
            {
                index += terms.tableRows[k];
            }
            if (index >= 0 && index < terms.tableRows[k])
            {
                lookups[k] = static_cast<Storage<T> const*>(terms.tables[k]) + index * n;
            }
        }
    }
    float values[kChunks][kVec];
    float sum = 0.F;
#pragma unroll
    for (int32_t c = 0; c < kChunks; ++c)
    {
        int32_t const at = (c * kWarp + lane) * kVec;
#pragma unroll
        for (int32_t e = 0; e < kVec; ++e)
        {
            values[c][e] = 0.F;
        }
        if (at >= n)
        {
            continue;
        }
        float term[kVec];
#pragma unroll
        for (int32_t k = 0; k < kMaxEmbeddingTerms; ++k)
        {
            if (lookups[k] != nullptr)
            {
                loadVector<T, kVec>(lookups[k], at, term);
#pragma unroll
                for (int32_t e = 0; e < kVec; ++e)
                {
                    values[c][e] += term[e];
                }
            }
            if (k < terms.addends)
            {
                loadVector<T, kVec>(static_cast<Storage<T> const*>(terms.addendData[k]) + addendAt[k] * n, at, term);
#pragma unroll
                for (int32_t e = 0; e < kVec; ++e)
                {
                    values[c][e] += term[e];
                }
            }
        }
#pragma unroll
        for (int32_t e = 0; e < kVec; ++e)
        {
            sum += values[c][e];
        }
    }
    float inverse = 1.F;
    if (terms.normalize)
    {
        float const mean = warpSum(sum) / static_cast<float>(n);
        float squares = 0.F;
#pragma unroll
        for (int32_t c = 0; c < kChunks; ++c)
        {
            if ((c * kWarp + lane) * kVec < n)
            {
#pragma unroll
                for (int32_t e = 0; e < kVec; ++e)
                {
                    values[c][e] -= mean;
                    squares += values[c][e] * values[c][e];
                }
            }
        }
        inverse = 1.F / sqrtf(warpSum(squares) / static_cast<float>(n) + terms.epsilon);
    }
    Storage<T>* y = out + row * n;
    auto const* gamma = static_cast<Storage<T> const*>(terms.gamma);
    auto const* beta = static_cast<Storage<T> const*>(terms.beta);
#pragma unroll
    for (int32_t c = 0; c < kChunks; ++c)
    {
        int32_t const at = (c * kWarp + lane) * kVec;
        if (at >= n)
        {
            continue;
        }
        if (terms.normalize)
        {
            float scale[kVec];
            float shift[kVec];
#pragma unroll
            for (int32_t e = 0; e < kVec; ++e)
            {
                scale[e] = 1.F;
                shift[e] = 0.F;
            }
            if (gamma != nullptr)
            {
                loadVector<T, kVec>(gamma, at, scale);
            }
            if (beta != nullptr)
            {
                loadVector<T, kVec>(beta, at, shift);
            }
#pragma unroll
            for (int32_t e = 0; e < kVec; ++e)
            {
                values[c][e] = values[c][e] * inverse * scale[e] + shift[e];
            }
        }
        storeVector<T, kVec>(y, at, values[c]);
    }
}

template <DataType T>
void launchEmbedding(EmbeddingTerms const& terms, void* out, int64_t rows, int32_t n, bool vectors, cudaStream_t stream)
{
    constexpr int32_t kWarpsPerBlock = 4;
    auto const blocks = static_cast<uint32_t>((rows + kWarpsPerBlock - 1) / kWarpsPerBlock);
    constexpr int32_t kVec = 16 / static_cast<int32_t>(sizeof(Storage<T>));
    auto* y = static_cast<Storage<T>*>(out);
    if (vectors && n % kVec == 0)
    {
        launchOverlapped<embeddingWarp<T, kVec>>(blocks, kWarpsPerBlock * kWarp, 0, stream, terms, y, rows, n);
    }
    else
    {
        launchOverlapped<embeddingWarp<T, 1>>(blocks, kWarpsPerBlock * kWarp, 0, stream, terms, y, rows, n);
    }
}

// ---- Attention ----------------------------------------------------------------------------------------------------

constexpr int32_t kQueriesPerBlock = 32; //!< Two warps of 16 rows: more blocks for short sequences.
constexpr int32_t kRowsPerWarp = 16;
constexpr int32_t kKeysPerTile = 64;
constexpr int32_t kAttentionThreads = 64;

//! Where one head's rows lie: element (row, d) of head h in batch b is at base[(b * rows + row) * rowStride + h * D +
//! d].
struct HeadView
{
    int64_t rows;
    int64_t rowStride; //!< heads * D; 3 * heads * D for q, k and v packed side by side.
    int64_t outStride; //!< q's view only: the output's row stride (heads * D).
};

//! An additive mask of the scores: the value for (batch b, head h, query row, key) is data[b * batch + h * head + row *
//! rowStride + key * keyStride] (a stride 0 along a broadcast axis), of type kFLOAT, kHALF or kBF16; data null for
//! none.
struct MaskView
{
    void const* data{};
    DataType type{DataType::kFLOAT};
    int64_t batch{};
    int64_t head{};
    int64_t rowStride{};
    int64_t keyStride{};
    //! attentionMma copies its rows with cp.async: keys contiguous, and data and every row, head and batch offset
    //! 16-byte aligned.
    bool async{};
};

__device__ __forceinline__ float maskAt(MaskView const& mask, int64_t offset)
{
    switch (mask.type)
    {
    case DataType::kHALF: return __half2float(__ldg(static_cast<__half const*>(mask.data) + offset));
    case DataType::kBF16: return __bfloat162float(__ldg(static_cast<__nv_bfloat16 const*>(mask.data) + offset));
    default: return __ldg(static_cast<float const*>(mask.data) + offset);
    }
}

//! The output of a row whose softmax sum is not positive (every score -inf, or one NaN): 0 under zeroMaskedRows, NaN
//! otherwise.
__device__ __forceinline__ float deadRow(bool zeroMaskedRows)
{
    return zeroMaskedRows ? 0.F : NAN;
}

//! The online-softmax step of one warp's 16 rows over one tile of scores (scores: [16][ldS] floats, already scaled;
//! columns at or past valid are masked). Writes the probabilities to probs ([16][ldP], as P), the factor each row's
//! earlier output is multiplied by to alpha[16], and updates the running maximum and sum. Two lanes per row.
template <typename P>
__device__ __forceinline__ void onlineSoftmax(
    float const* scores, int32_t ldS, P* probs, int32_t ldP, int32_t valid, float* maximum, float* sum, float* alpha)
{
    int32_t const lane = static_cast<int32_t>(threadIdx.x % kWarp);
    int32_t const r = lane / 2;
    int32_t const half = lane % 2;
    constexpr int32_t kColumns = kKeysPerTile / 2;
    float tileMax = -INFINITY;
#pragma unroll 8
    for (int32_t j = 0; j < kColumns; ++j)
    {
        int32_t const c = half * kColumns + j;
        if (c < valid)
        {
            tileMax = fmaxf(tileMax, scores[r * ldS + c]);
        }
    }
    tileMax = fmaxf(tileMax, __shfl_xor_sync(kFullMask, tileMax, 1));
    float const previous = maximum[r];
    float const next = fmaxf(previous, tileMax);
    // A row whose values are all -inf so far keeps -inf: nothing to rescale (its sum is 0), exp(-inf - -inf) avoided.
    float const reference = next == -INFINITY ? 0.F : next;
    float const factor = previous == -INFINITY ? 0.F : expf(previous - reference);
    float tileSum = 0.F;
#pragma unroll 8
    for (int32_t j = 0; j < kColumns; ++j)
    {
        int32_t const c = half * kColumns + j;
        float const p = c < valid ? expf(scores[r * ldS + c] - reference) : 0.F;
        tileSum += p;
        if constexpr (std::is_same_v<P, float>)
        {
            probs[r * ldP + c] = p;
        }
        else if constexpr (std::is_same_v<P, __half>)
        {
            probs[r * ldP + c] = __float2half_rn(p);
        }
        else
        {
            probs[r * ldP + c] = __float2bfloat16_rn(p);
        }
    }
    tileSum += __shfl_xor_sync(kFullMask, tileSum, 1);
    __syncwarp();
    if (half == 0)
    {
        maximum[r] = next;
        sum[r] = sum[r] * factor + tileSum;
        alpha[r] = factor;
    }
    __syncwarp();
}

//! Copies rows [first, first + count) of one head (count <= tileRows) into a shared tile [tileRows][ld] of S, zeroing
//! the rows past count; kD elements per row. With vectors, 16 bytes at a time: head, rowStride and ld must keep every
//! row 16-byte aligned.
template <int32_t kD, typename S>
__device__ __forceinline__ void loadTile(
    S* tile, int32_t ld, S const* head, int64_t rowStride, int64_t first, int32_t count, int32_t tileRows, bool vectors)
{
    constexpr int32_t kVec = 16 / static_cast<int32_t>(sizeof(S));
    if (vectors)
    {
        constexpr int32_t kChunks = kD / kVec; // Per row.
        for (int32_t i = static_cast<int32_t>(threadIdx.x); i < tileRows * kChunks;
             i += static_cast<int32_t>(blockDim.x))
        {
            int32_t const r = i / kChunks;
            int32_t const c = (i % kChunks) * kVec;
            uint4 value = make_uint4(0, 0, 0, 0);
            if (r < count)
            {
                value = *reinterpret_cast<uint4 const*>(head + (first + r) * rowStride + c);
            }
            *reinterpret_cast<uint4*>(tile + r * ld + c) = value;
        }
        return;
    }
    for (int32_t i = static_cast<int32_t>(threadIdx.x); i < tileRows * kD; i += static_cast<int32_t>(blockDim.x))
    {
        int32_t const r = i / kD;
        int32_t const c = i % kD;
        tile[r * ld + c] = r < count ? head[(first + r) * rowStride + c] : S{};
    }
}

//! Tensor-core attention for 16-bit types; D a multiple of 16, at most 128. Shared memory (dynamic): Q [32][D + 8],
//! K and V [64][D + 8] (S), then per warp the scores [16][68] and output [16][D + 4] (float), the probabilities
//! [16][72] (S), and the running maximum, sum and factor of its rows.
template <typename S, int32_t kD>
__global__ void __launch_bounds__(kAttentionThreads)
    attentionWmma(S const* __restrict__ q, S const* __restrict__ k, S const* __restrict__ v, S* __restrict__ out,
        HeadView qView, HeadView kvView, float scale, MaskView mask, bool zeroMaskedRows, bool vectors)
{
    awaitPrerequisites();
    allowDependents();
    using namespace nvcuda;
    constexpr int32_t kLd = kD + 8;
    constexpr int32_t kLdScores = kKeysPerTile + 4;
    constexpr int32_t kLdProbs = kKeysPerTile + 8;
    constexpr int32_t kLdOut = kD + 4;
    extern __shared__ __align__(32) unsigned char shared[];
    S* sQ = reinterpret_cast<S*>(shared);
    S* sK = sQ + kQueriesPerBlock * kLd;
    S* sV = sK + kKeysPerTile * kLd;
    int32_t const warp = static_cast<int32_t>(threadIdx.x / kWarp);
    int32_t const lane = static_cast<int32_t>(threadIdx.x % kWarp);
    auto* perWarp = reinterpret_cast<float*>(sV + kKeysPerTile * kLd);
    constexpr int32_t kWarpFloats
        = kRowsPerWarp * kLdScores + kRowsPerWarp * kLdOut + kRowsPerWarp * kLdProbs / 2 + 3 * kRowsPerWarp;
    float* scores = perWarp + warp * kWarpFloats;
    float* acc = scores + kRowsPerWarp * kLdScores;
    S* probs = reinterpret_cast<S*>(acc + kRowsPerWarp * kLdOut);
    float* maximum = reinterpret_cast<float*>(probs + kRowsPerWarp * kLdProbs);
    float* sum = maximum + kRowsPerWarp;
    float* alpha = sum + kRowsPerWarp;

    int64_t const batch = blockIdx.z;
    int32_t const head = static_cast<int32_t>(blockIdx.y);
    int64_t const firstQuery = static_cast<int64_t>(blockIdx.x) * kQueriesPerBlock;
    auto const queries = static_cast<int32_t>(min(static_cast<int64_t>(kQueriesPerBlock), qView.rows - firstQuery));
    S const* qHead = q + (batch * qView.rows) * qView.rowStride + head * kD;
    S const* kHead = k + (batch * kvView.rows) * kvView.rowStride + head * kD;
    S const* vHead = v + (batch * kvView.rows) * kvView.rowStride + head * kD;
    int32_t const firstRow = warp * kRowsPerWarp;
    int64_t const maskRows = batch * mask.batch + head * mask.head + (firstQuery + firstRow) * mask.rowStride;

    loadTile<kD>(sQ, kLd, qHead, qView.rowStride, firstQuery, queries, kQueriesPerBlock, vectors);
    for (int32_t i = lane; i < kRowsPerWarp * kLdOut; i += kWarp)
    {
        acc[i] = 0.F;
    }
    if (lane < kRowsPerWarp)
    {
        maximum[lane] = -INFINITY;
        sum[lane] = 0.F;
    }
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, S, wmma::row_major> qFragments[kD / 16];
#pragma unroll
    for (int32_t kk = 0; kk < kD / 16; ++kk)
    {
        wmma::load_matrix_sync(qFragments[kk], sQ + warp * kRowsPerWarp * kLd + kk * 16, kLd);
    }

    for (int64_t firstKey = 0; firstKey < kvView.rows; firstKey += kKeysPerTile)
    {
        auto const keys = static_cast<int32_t>(min(static_cast<int64_t>(kKeysPerTile), kvView.rows - firstKey));
        __syncthreads(); // Every warp is done with the previous tile.
        loadTile<kD>(sK, kLd, kHead, kvView.rowStride, firstKey, keys, kKeysPerTile, vectors);
        loadTile<kD>(sV, kLd, vHead, kvView.rowStride, firstKey, keys, kKeysPerTile, vectors);
        __syncthreads();
        // Scores of the warp's 16 rows against the tile's 64 keys.
#pragma unroll
        for (int32_t n = 0; n < kKeysPerTile / 16; ++n)
        {
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
            wmma::fill_fragment(c, 0.F);
#pragma unroll
            for (int32_t kk = 0; kk < kD / 16; ++kk)
            {
                wmma::fragment<wmma::matrix_b, 16, 16, 16, S, wmma::col_major> kFragment;
                wmma::load_matrix_sync(kFragment, sK + n * 16 * kLd + kk * 16, kLd);
                wmma::mma_sync(c, qFragments[kk], kFragment, c);
            }
#pragma unroll
            for (int32_t e = 0; e < c.num_elements; ++e)
            {
                c.x[e] *= scale;
            }
            wmma::store_matrix_sync(scores + n * 16, c, kLdScores, wmma::mem_row_major);
        }
        __syncwarp();
        if (mask.data != nullptr)
        {
            for (int32_t i = lane; i < kRowsPerWarp * kKeysPerTile; i += kWarp)
            {
                int32_t const r = i / kKeysPerTile;
                int32_t const c = i % kKeysPerTile;
                if (c < keys && firstRow + r < queries)
                {
                    scores[r * kLdScores + c]
                        += maskAt(mask, maskRows + r * mask.rowStride + (firstKey + c) * mask.keyStride);
                }
            }
            __syncwarp();
        }
        onlineSoftmax(scores, kLdScores, probs, kLdProbs, keys, maximum, sum, alpha);
        for (int32_t i = lane; i < kRowsPerWarp * kD; i += kWarp)
        {
            int32_t const r = i / kD;
            acc[r * kLdOut + i % kD] *= alpha[r];
        }
        __syncwarp();
#pragma unroll
        for (int32_t n = 0; n < kD / 16; ++n)
        {
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
            wmma::load_matrix_sync(c, acc + n * 16, kLdOut, wmma::mem_row_major);
#pragma unroll
            for (int32_t kk = 0; kk < kKeysPerTile / 16; ++kk)
            {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, S, wmma::row_major> pFragment;
                wmma::fragment<wmma::matrix_b, 16, 16, 16, S, wmma::row_major> vFragment;
                wmma::load_matrix_sync(pFragment, probs + kk * 16, kLdProbs);
                wmma::load_matrix_sync(vFragment, sV + kk * 16 * kLd + n * 16, kLd);
                wmma::mma_sync(c, pFragment, vFragment, c);
            }
            wmma::store_matrix_sync(acc + n * 16, c, kLdOut, wmma::mem_row_major);
        }
        __syncwarp();
    }

    S* outHead = out + (batch * qView.rows) * qView.outStride + head * kD;
    for (int32_t i = lane; i < kRowsPerWarp * kD; i += kWarp)
    {
        int32_t const r = i / kD;
        int32_t const d = i % kD;
        if (firstRow + r < queries)
        {
            float const total = sum[r];
            float const value = total > 0.F ? acc[r * kLdOut + d] / total : deadRow(zeroMaskedRows);
            S& slot = outHead[(firstQuery + firstRow + r) * qView.outStride + d];
            if constexpr (std::is_same_v<S, __half>)
            {
                slot = __float2half_rn(value);
            }
            else
            {
                slot = __float2bfloat16_rn(value);
            }
        }
    }
}

template <typename S, int32_t kD>
constexpr int32_t wmmaSharedBytes()
{
    constexpr int32_t kLd = kD + 8;
    constexpr int32_t kWarpFloats = kRowsPerWarp * (kKeysPerTile + 4) + kRowsPerWarp * (kD + 4)
        + kRowsPerWarp * (kKeysPerTile + 8) / 2 + 3 * kRowsPerWarp;
    return (kQueriesPerBlock + 2 * kKeysPerTile) * kLd * static_cast<int32_t>(sizeof(S))
        + (kAttentionThreads / kWarp) * kWarpFloats * static_cast<int32_t>(sizeof(float));
}

// Float attention on the CUDA cores, in register tiles; D a multiple of 16, at most 128. A block of 128 threads
// takes 16 queries of one head through the keys 64 at a time:
// - scores: thread t computes rows 2 (t / 16) and 2 (t / 16) + 1 against keys t % 16 + 16 j (j < 4), from 16-byte
//   loads of Q and K rows (the K tile's rows are kFloatLd floats apart, so a quarter warp's 8 rows meet 8 bank groups);
// - online softmax: 8 threads per row, the probabilities written over the scores;
// - output: thread t keeps rows 2 (t / 16) and 2 (t / 16) + 1 of columns 4 (t % 16) + 64 c (c < ceil(D / 64)) in
//   registers and adds the tile's probabilities times V rows, again in 16-byte loads.
// Many small blocks (a short sequence still fills the GPU) and four multiply-adds per shared-memory load.
constexpr int32_t kFloatQueries = 16;
constexpr int32_t kFloatThreads = 128;
constexpr int32_t kFloatLdScores = kKeysPerTile + 8; //!< 8 rows of a warp's softmax meet distinct banks.

template <int32_t kD>
constexpr int32_t kFloatLd = kD + 4;

__device__ __forceinline__ void addDot4(float& sum, float4 const& a, float4 const& b)
{
    sum = fmaf(a.x, b.x, sum);
    sum = fmaf(a.y, b.y, sum);
    sum = fmaf(a.z, b.z, sum);
    sum = fmaf(a.w, b.w, sum);
}

__device__ __forceinline__ void addScaled4(float4& sum, float p, float4 const& v)
{
    sum.x = fmaf(p, v.x, sum.x);
    sum.y = fmaf(p, v.y, sum.y);
    sum.z = fmaf(p, v.z, sum.z);
    sum.w = fmaf(p, v.w, sum.w);
}

//! kMasked: mask is read (each thread loads the values of its scores before the products), else ignored.
template <int32_t kD, bool kMasked>
__global__ void __launch_bounds__(kFloatThreads) attentionFloat(float const* __restrict__ q,
    float const* __restrict__ k, float const* __restrict__ v, float* __restrict__ out, HeadView qView, HeadView kvView,
    float scale, MaskView mask, bool zeroMaskedRows, bool vectors)
{
    awaitPrerequisites();
    allowDependents();
    constexpr int32_t kLd = kFloatLd<kD>;
    constexpr int32_t kColumnGroups = (kD + 63) / 64; //!< Groups of 64 output columns, 4 per thread.
    extern __shared__ __align__(16) unsigned char shared[];
    auto* sQ = reinterpret_cast<float*>(shared);
    float* sK = sQ + kFloatQueries * kLd;
    float* sV = sK + kKeysPerTile * kLd;
    float* sP = sV + kKeysPerTile * kLd;
    float* maximum = sP + kFloatQueries * kFloatLdScores;
    float* sum = maximum + kFloatQueries;
    float* alpha = sum + kFloatQueries;

    auto const t = static_cast<int32_t>(threadIdx.x);
    int32_t const row = 2 * (t / 16); // The thread's rows: row and row + 1.
    int32_t const group = t % 16;     // Its keys (scores) and its columns (output).
    int64_t const batch = blockIdx.z;
    auto const head = static_cast<int32_t>(blockIdx.y);
    int64_t const firstQuery = static_cast<int64_t>(blockIdx.x) * kFloatQueries;
    auto const queries = static_cast<int32_t>(min(static_cast<int64_t>(kFloatQueries), qView.rows - firstQuery));
    float const* qHead = q + (batch * qView.rows) * qView.rowStride + head * kD;
    float const* kHead = k + (batch * kvView.rows) * kvView.rowStride + head * kD;
    float const* vHead = v + (batch * kvView.rows) * kvView.rowStride + head * kD;
    int64_t const maskRows = batch * mask.batch + head * mask.head + (firstQuery + row) * mask.rowStride;
    loadTile<kD>(sQ, kLd, qHead, qView.rowStride, firstQuery, queries, kFloatQueries, vectors);
    if (t < kFloatQueries)
    {
        maximum[t] = -INFINITY;
        sum[t] = 0.F;
    }
    float4 acc[2][kColumnGroups] = {};

    for (int64_t firstKey = 0; firstKey < kvView.rows; firstKey += kKeysPerTile)
    {
        auto const keys = static_cast<int32_t>(min(static_cast<int64_t>(kKeysPerTile), kvView.rows - firstKey));
        __syncthreads(); // Every thread is done with the previous tile.
        loadTile<kD>(sK, kLd, kHead, kvView.rowStride, firstKey, keys, kKeysPerTile, vectors);
        loadTile<kD>(sV, kLd, vHead, kvView.rowStride, firstKey, keys, kKeysPerTile, vectors);
        __syncthreads();

        // The mask's values for the thread's scores, loaded before the products (0 past the keys and the queries).
        float added[2][4] = {};
        if constexpr (kMasked)
        {
#pragma unroll
            for (int32_t i = 0; i < 2; ++i)
            {
#pragma unroll
                for (int32_t j = 0; j < 4; ++j)
                {
                    int32_t const key = group + 16 * j;
                    added[i][j] = key < keys && row + i < queries
                        ? maskAt(mask, maskRows + i * mask.rowStride + (firstKey + key) * mask.keyStride)
                        : 0.F;
                }
            }
        }
        float s[2][4] = {};
#pragma unroll 4
        for (int32_t d = 0; d < kD; d += 4)
        {
            float4 const q0 = *reinterpret_cast<float4 const*>(sQ + row * kLd + d);
            float4 const q1 = *reinterpret_cast<float4 const*>(sQ + (row + 1) * kLd + d);
#pragma unroll
            for (int32_t j = 0; j < 4; ++j)
            {
                float4 const key = *reinterpret_cast<float4 const*>(sK + (group + 16 * j) * kLd + d);
                addDot4(s[0][j], q0, key);
                addDot4(s[1][j], q1, key);
            }
        }
#pragma unroll
        for (int32_t j = 0; j < 4; ++j)
        {
            sP[row * kFloatLdScores + group + 16 * j] = fmaf(s[0][j], scale, added[0][j]);
            sP[(row + 1) * kFloatLdScores + group + 16 * j] = fmaf(s[1][j], scale, added[1][j]);
        }
        __syncthreads();

        {
            // Online softmax: row t / 8, columns t % 8 + 8 j, the 8 threads of a row in one aligned group of lanes.
            int32_t const r = t / 8;
            int32_t const part = t % 8;
            float* scores = sP + r * kFloatLdScores;
            float tileMax = -INFINITY;
#pragma unroll
            for (int32_t j = 0; j < kKeysPerTile / 8; ++j)
            {
                int32_t const c = part + 8 * j;
                tileMax = c < keys ? fmaxf(tileMax, scores[c]) : tileMax;
            }
#pragma unroll
            for (int32_t offset = 1; offset < 8; offset *= 2)
            {
                tileMax = fmaxf(tileMax, __shfl_xor_sync(kFullMask, tileMax, offset));
            }
            float const previous = maximum[r];
            float const next = fmaxf(previous, tileMax);
            // A row whose values are all -inf so far keeps -inf: nothing to rescale, exp(-inf - -inf) avoided.
            float const reference = next == -INFINITY ? 0.F : next;
            float const factor = previous == -INFINITY ? 0.F : expf(previous - reference);
            float tileSum = 0.F;
#pragma unroll
            for (int32_t j = 0; j < kKeysPerTile / 8; ++j)
            {
                int32_t const c = part + 8 * j;
                float const p = c < keys ? expf(scores[c] - reference) : 0.F;
                scores[c] = p;
                tileSum += p;
            }
#pragma unroll
            for (int32_t offset = 1; offset < 8; offset *= 2)
            {
                tileSum += __shfl_xor_sync(kFullMask, tileSum, offset);
            }
            __syncwarp();
            if (part == 0)
            {
                maximum[r] = next;
                sum[r] = sum[r] * factor + tileSum;
                alpha[r] = factor;
            }
        }
        __syncthreads();

#pragma unroll
        for (int32_t i = 0; i < 2; ++i)
        {
            float const factor = alpha[row + i];
#pragma unroll
            for (int32_t c = 0; c < kColumnGroups; ++c)
            {
                acc[i][c].x *= factor;
                acc[i][c].y *= factor;
                acc[i][c].z *= factor;
                acc[i][c].w *= factor;
            }
        }
        // Rows of V past the tile's keys are zeros and their probabilities 0: every tile sums all 64.
#pragma unroll 2
        for (int32_t key = 0; key < kKeysPerTile; key += 4)
        {
            float4 const p0 = *reinterpret_cast<float4 const*>(sP + row * kFloatLdScores + key);
            float4 const p1 = *reinterpret_cast<float4 const*>(sP + (row + 1) * kFloatLdScores + key);
            float const probs[2][4] = {{p0.x, p0.y, p0.z, p0.w}, {p1.x, p1.y, p1.z, p1.w}};
#pragma unroll
            for (int32_t kk = 0; kk < 4; ++kk)
            {
#pragma unroll
                for (int32_t c = 0; c < kColumnGroups; ++c)
                {
                    int32_t const column = 4 * group + 64 * c;
                    if (column < kD)
                    {
                        float4 const value = *reinterpret_cast<float4 const*>(sV + (key + kk) * kLd + column);
                        addScaled4(acc[0][c], probs[0][kk], value);
                        addScaled4(acc[1][c], probs[1][kk], value);
                    }
                }
            }
        }
    }

    float* outHead = out + (batch * qView.rows) * qView.outStride + head * kD;
#pragma unroll
    for (int32_t i = 0; i < 2; ++i)
    {
        if (row + i < queries)
        {
            float const total = sum[row + i];
            float* rowOut = outHead + (firstQuery + row + i) * qView.outStride;
#pragma unroll
            for (int32_t c = 0; c < kColumnGroups; ++c)
            {
                int32_t const column = 4 * group + 64 * c;
                if (column < kD)
                {
                    float const values[4] = {acc[i][c].x, acc[i][c].y, acc[i][c].z, acc[i][c].w};
                    for (int32_t e = 0; e < 4; ++e)
                    {
                        rowOut[column + e] = total > 0.F ? values[e] / total : deadRow(zeroMaskedRows);
                    }
                }
            }
        }
    }
}

template <int32_t kD>
constexpr int32_t floatSharedBytes()
{
    return ((kFloatQueries + 2 * kKeysPerTile) * kFloatLd<kD> + kFloatQueries * kFloatLdScores + 3 * kFloatQueries)
        * static_cast<int32_t>(sizeof(float));
}

//! Launches kKernel in blocks of kThreads with bytes of dynamic shared memory, opting in to most (at least bytes: the
//! most any launch of the kernel takes) past 48 KiB once per kernel and device (devices 0 to 63; others opt in on
//! every launch).
template <auto kKernel, int32_t kThreads, typename... Args>
cudaError_t launchWithSharedUpTo(dim3 grid, int32_t bytes, int32_t most, cudaStream_t stream, Args... args)
{
    static std::atomic<uint64_t> optedIn{0}; // One per kernel: kKernel is a template argument.
    int32_t device = 0;
    cudaError_t status = cudaGetDevice(&device);
    uint64_t const bit = device >= 0 && device < 64 ? uint64_t{1} << device : 0;
    if (status == cudaSuccess && (bit == 0 || (optedIn.load() & bit) == 0))
    {
        status = cudaFuncSetAttribute(kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, most);
        optedIn.fetch_or(status == cudaSuccess ? bit : 0);
    }
    if (status != cudaSuccess)
    {
        return status;
    }
    return launchOverlapped<kKernel>(grid, kThreads, static_cast<size_t>(bytes), stream, args...);
}

template <auto kKernel, int32_t kThreads = kAttentionThreads, typename... Args>
cudaError_t launchWithShared(dim3 grid, int32_t bytes, cudaStream_t stream, Args... args)
{
    return launchWithSharedUpTo<kKernel, kThreads>(grid, bytes, bytes, stream, args...);
}

// ---- Attention with its scores and output in registers (mma.sync) ------------------------------------------------
// The m16n8k16 tensor-core instruction's fragments, per lane (g = lane / 4, t = lane % 4): A (16 x 16, row-major)
// a0 = (g, 2t..2t+1), a1 = (g + 8, 2t..), a2 = (g, 2t + 8..), a3 = (g + 8, 2t + 8..); B (16 x 8, column-major)
// b0 = (2t..2t+1, g), b1 = (2t + 8.., g); C (16 x 8) c0, c1 = (g, 2t..2t+1), c2, c3 = (g + 8, 2t..2t+1). A lane holds
// two rows of each result, g and g + 8, and the scores' C fragments of two neighbouring 8-key tiles are exactly the
// probabilities' A fragment for those 16 keys, so the scores never leave the registers.

//! Two 16-bit values as one 32-bit register, the first in the low half.
template <typename S>
__device__ __forceinline__ uint32_t packPair(float low, float high)
{
    uint16_t lo = 0;
    uint16_t hi = 0;
    if constexpr (std::is_same_v<S, __half>)
    {
        lo = __half_as_ushort(__float2half_rn(low));
        hi = __half_as_ushort(__float2half_rn(high));
    }
    else
    {
        lo = __bfloat16_as_ushort(__float2bfloat16_rn(low));
        hi = __bfloat16_as_ushort(__float2bfloat16_rn(high));
    }
    return static_cast<uint32_t>(lo) | (static_cast<uint32_t>(hi) << 16);
}

//! Starts copying rows [first, first + count) of one head into a shared tile [kRows][ld] of S with cp.async, 16 bytes
//! per copy and every thread's copies in flight at once (kThreads threads); rows past count are zero-filled (a copy of
//! 0 source bytes). head, rowStride and ld keep every row 16-byte aligned. The caller commits the group and waits.
template <int32_t kD, int32_t kRows, int32_t kThreads, typename S>
__device__ __forceinline__ void copyTileAsync(
    S* tile, int32_t ld, S const* head, int64_t rowStride, int64_t first, int32_t count)
{
    constexpr int32_t kVec = 16 / static_cast<int32_t>(sizeof(S));
    constexpr int32_t kChunks = kD / kVec; // Per row.
    constexpr int32_t kCopies = kRows * kChunks;
#pragma unroll
    for (int32_t j = 0; j < (kCopies + kThreads - 1) / kThreads; ++j)
    {
        int32_t const i = j * kThreads + static_cast<int32_t>(threadIdx.x);
        if (kCopies % kThreads != 0 && i >= kCopies)
        {
            break;
        }
        int32_t const r = i / kChunks;
        int32_t const c = (i % kChunks) * kVec;
        auto const slot = static_cast<uint32_t>(__cvta_generic_to_shared(tile + r * ld + c));
        bool const live = r < count;
        S const* source = head + (live ? (first + r) * rowStride + c : 0);
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(slot), "l"(source), "r"(live ? 16 : 0));
    }
}

__device__ __forceinline__ void commitCopies()
{
    asm volatile("cp.async.commit_group;\n" ::);
}

//! Waits until at most kPending of this thread's most recent copy groups are still in flight.
template <int32_t kPending>
__device__ __forceinline__ void waitCopies()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

//! Four 8 x 8 matrices of 16-bit values from shared memory: lane l gives the address of row l % 8 of matrix l / 8, and
//! receives in r[m] the pair (row l / 4, columns 2 (l % 4)..+1) of matrix m, or with kTransposed the pair (rows
//! 2 (l % 4)..+1, column l / 4).
template <bool kTransposed>
__device__ __forceinline__ void loadMatrices(uint32_t (&r)[4], void const* row)
{
    auto const address = static_cast<uint32_t>(__cvta_generic_to_shared(row));
    if constexpr (kTransposed)
    {
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "r"(address));
    }
    else
    {
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "r"(address));
    }
}

//! c += a * b on tensor cores, float accumulators.
template <typename S>
__device__ __forceinline__ void mma16816(float (&c)[4], uint32_t const (&a)[4], uint32_t b0, uint32_t b1)
{
    if constexpr (std::is_same_v<S, __half>)
    {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                     "{%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
    else
    {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                     "{%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
}

// The register-resident kernel's block: four warps, two pairs of 16 queries; the first warp of each pair takes the
// first 64 keys of every 128, the second the other 64, and the pair merges its two partial softmaxes at the end. Short
// sequences (a batch of 1) get twice the warps on the same work, each with half the keys.
constexpr int32_t kMmaThreads = 128;

//! The blocks of attentionMma a multiprocessor must hold (its registers a thread at most: 168 at three, 128 at four).
//! Four for the wide kernel with a mask row every query shares, where ptxas spills 40 bytes a thread at 128 registers
//! and the grid (BERT's at batch 32: 768 blocks) then takes fewer waves: 18.5 against 19.3 us a layer, BERT fp16 batch
//! 32 1.662 and 1.677 against 1.690 and 1.685 ms in alternate runs (session 15, docs/performance.md); three elsewhere
//! with a head of 64 or less, where four spill 260-496 bytes (a mask row per query); one for larger heads.
constexpr int32_t mmaMinBlocks(int32_t d, bool split, bool sameRows)
{
    return d > 64 ? 1 : !split && sameRows ? 4 : 3;
}

//! The queries an attentionMma block takes: 32 in two pairs of warps that split the keys, or 64 without the split.
constexpr int32_t mmaQueries(bool split)
{
    return split ? kQueriesPerBlock : 4 * kRowsPerWarp;
}

//! The blocks of 64 queries a grid needs for attentionMma to take 64 queries per block: about four waves of the
//! largest GPUs' 132 multiprocessors at three blocks each, so that the split's extra parallelism is not missed.
constexpr int64_t kWideAttentionBlocks = 512;
constexpr int32_t kMmaKeys = 2 * kKeysPerTile; //!< Keys a block copies to shared memory at a time.
constexpr float kLog2e = 1.4426950408889634F;

//! The row length (elements of the mask's type) of the mask's tile in shared memory: eight past the keys, so that the
//! rows a warp reads together meet distinct banks, and rows stay 16-byte aligned.
constexpr int32_t kMaskLd = kMmaKeys + 8;

//! The bytes of one element of a mask of type (kFLOAT, kHALF or kBF16).
__host__ __device__ constexpr int32_t maskElementBytes(DataType type)
{
    return type == DataType::kFLOAT ? 4 : 2;
}

//! Copies the mask's values for the block's queries firstRow.. (one row when every query shares it: kSameRows) and
//! keys firstKey..+kMmaKeys to tile ([rows][kMaskLd] of M), 0 past the queries or the keys. With kAsync (keys
//! contiguous and every row 16-byte aligned: MaskView::async) as cp.async copies of 16 bytes that join the caller's
//! next commit group (the keys', so they cost no wait of their own); otherwise through registers, each thread one key
//! and eight rows of loads in flight at a time.
template <typename M, bool kSameRows, bool kAsync, int32_t kQueries>
__device__ __forceinline__ void stageMaskOf(
    M* tile, MaskView const& mask, int64_t head, int64_t firstRow, int64_t rows, int64_t firstKey, int64_t keys)
{
    constexpr int32_t kRows = kSameRows ? 1 : kQueries;
    M const* data = static_cast<M const*>(mask.data) + head;
    if constexpr (kAsync)
    {
        constexpr int32_t kVec = 16 / static_cast<int32_t>(sizeof(M));
        constexpr int32_t kChunks = kMmaKeys / kVec; // Per row.
        constexpr int32_t kCopies = kRows * kChunks;
#pragma unroll
        for (int32_t j = 0; j < (kCopies + kMmaThreads - 1) / kMmaThreads; ++j)
        {
            int32_t const i = j * kMmaThreads + static_cast<int32_t>(threadIdx.x);
            if (kCopies % kMmaThreads != 0 && i >= kCopies)
            {
                break;
            }
            int32_t const r = i / kChunks;
            int32_t const c = (i % kChunks) * kVec;
            int64_t const key = firstKey + c;
            bool const rowLive = kSameRows || firstRow + r < rows;
            int64_t const left
                = rowLive ? max(static_cast<int64_t>(0), min(static_cast<int64_t>(kVec), keys - key)) : 0;
            M const* source = left > 0 ? data + (kSameRows ? 0 : (firstRow + r) * mask.rowStride) + key : data;
            auto const slot = static_cast<uint32_t>(__cvta_generic_to_shared(tile + r * kMaskLd + c));
            // Bytes past the source's count are zero-filled.
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(slot), "l"(source),
                "r"(static_cast<int32_t>(left * static_cast<int64_t>(sizeof(M)))));
        }
    }
    else
    {
        static_assert(kMmaKeys == kMmaThreads, "a key per thread");
        constexpr int32_t kBatch = kSameRows ? 1 : 8;
        auto const c = static_cast<int32_t>(threadIdx.x);
        bool const live = firstKey + c < keys;
        M const* column = data + (firstKey + c) * mask.keyStride + (kSameRows ? 0 : firstRow * mask.rowStride);
#pragma unroll 1
        for (int32_t first = 0; first < kRows; first += kBatch)
        {
            M values[kBatch];
#pragma unroll
            for (int32_t j = 0; j < kBatch; ++j)
            {
                bool const here = live && (kSameRows || firstRow + first + j < rows);
                values[j] = here ? __ldg(column + (first + j) * mask.rowStride) : M(0.F);
            }
#pragma unroll
            for (int32_t j = 0; j < kBatch; ++j)
            {
                tile[(first + j) * kMaskLd + c] = values[j];
            }
        }
    }
}

//! stageMaskOf for kQueries rows of queries of a mask whose rows every query shares (kSameRows: mask.rowStride 0) or
//! not. kAsync: only masks whose rows copy asynchronously (the others do nothing); else only the others.
template <bool kAsync, int32_t kQueries, bool kSameRows, typename M>
__device__ __forceinline__ void stageMask(
    M* tile, MaskView const& mask, int64_t head, int64_t firstRow, int64_t rows, int64_t firstKey, int64_t keys)
{
    if (mask.async == kAsync)
    {
        stageMaskOf<M, kSameRows, kAsync, kQueries>(tile, mask, head, firstRow, rows, firstKey, keys);
    }
}

//! The scores' starting values: each lane's two rows' (row, row + 8 of rows, or row 0 of a mask every query shares)
//! values of its keys (first + n * 8 + 2t, + 1 of tile n) from the staged tile, times log2 e.
template <int32_t kTiles, typename M>
__device__ __forceinline__ void readMask(
    float (&s)[kTiles][4], M const* tile, int32_t row, bool sameRows, int32_t first)
{
#pragma unroll
    for (int32_t i = 0; i < 2; ++i)
    {
        M const* values = tile + (sameRows ? 0 : row + 8 * i) * kMaskLd + first;
#pragma unroll
        for (int32_t n = 0; n < kTiles; ++n)
        {
            float2 added{};
            if constexpr (std::is_same_v<M, __half>)
            {
                added = __half22float2(*reinterpret_cast<__half2 const*>(values + n * 8));
            }
            else if constexpr (std::is_same_v<M, __nv_bfloat16>)
            {
                added = __bfloat1622float2(*reinterpret_cast<__nv_bfloat162 const*>(values + n * 8));
            }
            else
            {
                added = *reinterpret_cast<float2 const*>(values + n * 8);
            }
            s[n][2 * i] = added.x * kLog2e;
            s[n][2 * i + 1] = added.y * kLog2e;
        }
    }
}

//! Tensor-core attention for 16-bit types with q, k and v 16-byte aligned; D a multiple of 16, at most 128. Each warp
//! keeps the scores, probabilities, running maximum and sum and output of its 16 queries over its half of the keys
//! in registers, the softmax in base 2 (log2 e folded into the scale and the mask); the block's queries once and the
//! keys and values 128 at a time are copied to shared memory with cp.async, [32 or 128][D + 8] each (rows 16-byte
//! aligned, ldmatrix reads conflict-free), and read as fragments with ldmatrix (transposed for the values). M: the
//! mask's element type (S or float; each key tile's values are staged in shared memory, stageMask), or void where
//! there is none (mask ignored). kSplit: the block's 32 queries in two pairs of warps that split the keys (above);
//! otherwise 64 queries, each warp 16 of them over all the keys, no merge (wideQueries(): the block's keys and values
//! are copied once for twice the queries, where the grid has blocks enough to fill the GPU). kSameRows: the mask's
//! rows are one every query shares (mask.rowStride 0), compiled apart from the other layout, whose staging of a block
//! of rows would otherwise take registers the common layout then spills (ptxas: 368 bytes a thread with a float mask).
template <typename S, int32_t kD, typename M, bool kSplit = true, bool kSameRows = false>
__global__ void __launch_bounds__(kMmaThreads, mmaMinBlocks(kD, kSplit, kSameRows))
    attentionMma(S const* __restrict__ q, S const* __restrict__ k, S const* __restrict__ v, S* __restrict__ out,
        HeadView qView, HeadView kvView, float scale, MaskView mask, bool zeroMaskedRows)
{
    awaitPrerequisites();
    allowDependents();
    constexpr int32_t kLd = kD + 8;
    constexpr int32_t kQueries = mmaQueries(kSplit);
    constexpr int32_t kTiles = kKeysPerTile / 8; // 8-key tiles of scores: a warp takes 64 keys at a time.
    extern __shared__ __align__(16) unsigned char shared[];
    S* sK = reinterpret_cast<S*>(shared);
    S* sV = sK + kMmaKeys * kLd;
    S* sQ = sV + kMmaKeys * kLd;
    constexpr bool kMasked = !std::is_void_v<M>;
    using MaskType = std::conditional_t<kMasked, M, float>;
    auto* sMask = reinterpret_cast<MaskType*>(sQ + kQueries * kLd); // [kQueries or 1][kMaskLd].
    int32_t const warp = static_cast<int32_t>(threadIdx.x / kWarp);
    int32_t const lane = static_cast<int32_t>(threadIdx.x % kWarp);
    int32_t const pair = kSplit ? warp % 2 : warp; // Which 16 queries of the block.
    int32_t const keyHalf = kSplit ? warp / 2 : 0; // Which 64 keys of every 128 (all of them without a split).
    int32_t const g = lane / 4;
    int32_t const t = lane % 4;
    int64_t const batch = blockIdx.z;
    int32_t const head = static_cast<int32_t>(blockIdx.y);
    int64_t const firstQuery = static_cast<int64_t>(blockIdx.x) * kQueries + pair * kRowsPerWarp;
    S const* qHead = q + (batch * qView.rows) * qView.rowStride + head * kD;
    S const* kHead = k + (batch * kvView.rows) * kvView.rowStride + head * kD;
    S const* vHead = v + (batch * kvView.rows) * kvView.rowStride + head * kD;
    int64_t const rows[2] = {firstQuery + g, firstQuery + g + 8};
    int64_t const maskHead = batch * mask.batch + head * mask.head;
    float const scaleLog2 = scale * kLog2e;
    int32_t const matrix = lane / 8; // The 8 x 8 matrix of an ldmatrix whose row this lane addresses.
    int32_t const matrixRow = lane % 8;

    float maximum[2] = {-INFINITY, -INFINITY}; // In base 2: scores times log2 e.
    float sum[2] = {0.F, 0.F};
    float o[kD / 8][4] = {};

    // The keys and values stream through one K and one V buffer in a pipeline of cp.async groups: the next keys load
    // while these values multiply, and the next values while the next scores are computed.
    auto const blockKeys
        = [&](int64_t first) { return static_cast<int32_t>(min(static_cast<int64_t>(kMmaKeys), kvView.rows - first)); };
    // The block's queries travel with the first keys; each warp then takes its A fragments of q with ldmatrix:
    // matrices rows 0..7, then 8..15 (l / 8 % 2), columns kk * 16 + 0..7, then + 8..15 (l / 16).
    int64_t const blockQuery = static_cast<int64_t>(blockIdx.x) * kQueries;
    copyTileAsync<kD, kQueries, kMmaThreads>(sQ, kLd, qHead, qView.rowStride, blockQuery,
        static_cast<int32_t>(min(static_cast<int64_t>(kQueries), qView.rows - blockQuery)));
    copyTileAsync<kD, kMmaKeys, kMmaThreads>(sK, kLd, kHead, kvView.rowStride, 0, blockKeys(0));
    if constexpr (kMasked)
    {
        stageMask<true, kQueries, kSameRows>(sMask, mask, maskHead, blockQuery, qView.rows, 0, kvView.rows);
    }
    commitCopies();
    copyTileAsync<kD, kMmaKeys, kMmaThreads>(sV, kLd, vHead, kvView.rowStride, 0, blockKeys(0));
    commitCopies();
    uint32_t qf[kD / 16][4]; // Loaded once the first copies have landed.
    auto const loadQueries = [&] {
#pragma unroll
        for (int32_t kk = 0; kk < kD / 16; ++kk)
        {
            loadMatrices<false>(
                qf[kk], sQ + (pair * kRowsPerWarp + (matrix % 2) * 8 + matrixRow) * kLd + kk * 16 + (matrix / 2) * 8);
        }
    };
    // The scores of this warp's rows and kKeysPerTile keys at keysTile (keys of them real, the rest -inf): (scale *
    // q k^T + mask) * log2 e, the mask's values from column maskColumn of the staged tile; tileMax gets each row's
    // maximum over them (within the lane's keys: the caller folds the four lanes of a row).
    auto const scoresOf
        = [&](float(&s)[kTiles][4], float(&tileMax)[2], S const* keysTile, int32_t keys, int32_t maskColumn) {
#pragma unroll
              for (int32_t n = 0; n < kTiles; ++n)
              {
#pragma unroll
                  for (int32_t e = 0; e < 4; ++e)
                  {
                      s[n][e] = 0.F;
                  }
              }
              if constexpr (kMasked)
              {
                  readMask(s, sMask, pair * kRowsPerWarp + g, kSameRows, maskColumn);
              }
              tileMax[0] = -INFINITY;
              tileMax[1] = -INFINITY;
#pragma unroll
              for (int32_t n = 0; n < kTiles; n += 2)
              {
                  float c[2][4] = {};
#pragma unroll
                  for (int32_t kk = 0; kk < kD / 16; ++kk)
                  {
                      // Matrices: keys of tile n, then n + 1 (l / 16), columns kk * 16 + 0..7, then + 8..15 (l / 8 %
                      // 2).
                      uint32_t b[4];
                      loadMatrices<false>(
                          b, keysTile + ((n + matrix / 2) * 8 + matrixRow) * kLd + kk * 16 + (matrix % 2) * 8);
                      mma16816<S>(c[0], qf[kk], b[0], b[1]);
                      mma16816<S>(c[1], qf[kk], b[2], b[3]);
                  }
#pragma unroll
                  for (int32_t h = 0; h < 2; ++h)
                  {
#pragma unroll
                      for (int32_t e = 0; e < 4; ++e)
                      {
                          int32_t const column = (n + h) * 8 + 2 * t + (e % 2);
                          s[n + h][e] = column < keys ? fmaf(c[h][e], scaleLog2, s[n + h][e]) : -INFINITY;
                          tileMax[e / 2] = fmaxf(tileMax[e / 2], s[n + h][e]);
                      }
                  }
              }
          };
    // The online softmax's step: the running maximum and sum take these scores, which become probabilities, and the
    // output so far is rescaled to the new maximum.
    auto const softmaxStep = [&](float(&s)[kTiles][4], float(&tileMax)[2]) {
        float reference[2];
        float alpha[2];
#pragma unroll
        for (int32_t i = 0; i < 2; ++i)
        {
            tileMax[i] = fmaxf(tileMax[i], __shfl_xor_sync(kFullMask, tileMax[i], 1));
            tileMax[i] = fmaxf(tileMax[i], __shfl_xor_sync(kFullMask, tileMax[i], 2));
            float const next = fmaxf(maximum[i], tileMax[i]);
            reference[i] = next == -INFINITY ? 0.F : next;
            alpha[i] = maximum[i] == -INFINITY ? 0.F : exp2f(maximum[i] - reference[i]);
            maximum[i] = next;
        }
        float rowSum[2] = {0.F, 0.F};
#pragma unroll
        for (int32_t n = 0; n < kTiles; ++n)
        {
#pragma unroll
            for (int32_t e = 0; e < 4; ++e)
            {
                s[n][e] = exp2f(s[n][e] - reference[e / 2]);
                rowSum[e / 2] += s[n][e];
            }
        }
#pragma unroll
        for (int32_t i = 0; i < 2; ++i)
        {
            rowSum[i] += __shfl_xor_sync(kFullMask, rowSum[i], 1);
            rowSum[i] += __shfl_xor_sync(kFullMask, rowSum[i], 2);
            sum[i] = sum[i] * alpha[i] + rowSum[i];
        }
#pragma unroll
        for (int32_t dn = 0; dn < kD / 8; ++dn)
        {
            o[dn][0] *= alpha[0];
            o[dn][1] *= alpha[0];
            o[dn][2] *= alpha[1];
            o[dn][3] *= alpha[1];
        }
    };
    // The probabilities (rounded to S, as the unfused layers store them) times the kKeysPerTile values at valuesTile.
    auto const addValues = [&](float const(&s)[kTiles][4], S const* valuesTile) {
#pragma unroll
        for (int32_t j = 0; j < kKeysPerTile / 16; ++j)
        {
            uint32_t const a[4] = {packPair<S>(s[2 * j][0], s[2 * j][1]), packPair<S>(s[2 * j][2], s[2 * j][3]),
                packPair<S>(s[2 * j + 1][0], s[2 * j + 1][1]), packPair<S>(s[2 * j + 1][2], s[2 * j + 1][3])};
            // Transposed matrices: keys 16 j + 0..7, then + 8..15 (l / 8 % 2), columns dn * 8, then (dn + 1) * 8.
            S const* value = valuesTile + (16 * j + (matrix % 2) * 8 + matrixRow) * kLd + (matrix / 2) * 8;
#pragma unroll
            for (int32_t dn = 0; dn < kD / 8; dn += 2)
            {
                uint32_t b[4];
                loadMatrices<true>(b, value + dn * 8);
                mma16816<S>(o[dn], a, b[0], b[1]);
                mma16816<S>(o[dn + 1], a, b[2], b[3]);
            }
        }
    };
    if constexpr (!kSplit)
    {
        // 64 queries, each warp over every key: the keys and values of a tile (and its mask values) are waited for
        // together, each half of them then goes through scores, softmax and values in turn, and the next tile is
        // copied once every warp is done (sequences of at most 128 keys, BERT's, have one tile).
        for (int64_t firstKey = 0; firstKey < kvView.rows; firstKey += kMmaKeys)
        {
            if constexpr (kMasked)
            {
                stageMask<false, kQueries, kSameRows>(
                    sMask, mask, maskHead, blockQuery, qView.rows, firstKey, kvView.rows);
            }
            waitCopies<0>();
            __syncthreads();
            if (firstKey == 0)
            {
                loadQueries();
            }
#pragma unroll 1
            for (int32_t part = 0; part < kMmaKeys / kKeysPerTile; ++part)
            {
                int64_t const partFirst = firstKey + part * kKeysPerTile;
                if (partFirst >= kvView.rows)
                {
                    break;
                }
                auto const keys
                    = static_cast<int32_t>(min(static_cast<int64_t>(kKeysPerTile), kvView.rows - partFirst));
                float s[kTiles][4];
                float tileMax[2];
                scoresOf(s, tileMax, sK + part * kKeysPerTile * kLd, keys, part * kKeysPerTile + 2 * t);
                softmaxStep(s, tileMax);
                addValues(s, sV + part * kKeysPerTile * kLd);
            }
            __syncthreads(); // Every warp is done with the keys, values and mask values: the next ones may come.
            int64_t const nextKey = firstKey + kMmaKeys;
            if (nextKey < kvView.rows)
            {
                copyTileAsync<kD, kMmaKeys, kMmaThreads>(sK, kLd, kHead, kvView.rowStride, nextKey, blockKeys(nextKey));
                copyTileAsync<kD, kMmaKeys, kMmaThreads>(sV, kLd, vHead, kvView.rowStride, nextKey, blockKeys(nextKey));
                if constexpr (kMasked)
                {
                    stageMask<true, kQueries, kSameRows>(
                        sMask, mask, maskHead, blockQuery, qView.rows, nextKey, kvView.rows);
                }
            }
            commitCopies();
        }
    }
    else
    {
        S const* myK = sK + keyHalf * kKeysPerTile * kLd;
        S const* myV = sV + keyHalf * kKeysPerTile * kLd;
        for (int64_t firstKey = 0; firstKey < kvView.rows; firstKey += kMmaKeys)
        {
            int64_t const myFirst = firstKey + keyHalf * kKeysPerTile;
            // This warp's keys of the 128 (none where fewer than 65 are left: its scores are all -inf, changing
            // nothing).
            auto const keys = static_cast<int32_t>(
                max(static_cast<int64_t>(0), min(static_cast<int64_t>(kKeysPerTile), kvView.rows - myFirst)));
            int64_t const nextKey = firstKey + kMmaKeys;
            // The mask's values of these keys in shared memory (copied with the keys, or here while the keys copy
            // where its rows do not copy 16 bytes at a time), then the scores. Each row's maximum folds over its four
            // lanes.
            if constexpr (kMasked)
            {
                stageMask<false, kQueries, kSameRows>(
                    sMask, mask, maskHead, blockQuery, qView.rows, firstKey, kvView.rows);
            }
            if (kMasked && firstKey > 0 && mask.async)
            {
                // The first keys' mask values came with them; later ones are copied here, where the scores are not
                // live (copying them with the keys costs 70 more registers), and waited for with the values.
                stageMask<true, kQueries, kSameRows>(
                    sMask, mask, maskHead, blockQuery, qView.rows, firstKey, kvView.rows);
                commitCopies();
                waitCopies<0>();
            }
            waitCopies<1>(); // These keys (the values may still be in flight), and the queries the first time.
            __syncthreads(); // Each warp reads the rows the others copied.
            if (firstKey == 0)
            {
                loadQueries();
            }
            float s[kTiles][4];
            float tileMax[2];
            scoresOf(s, tileMax, myK, keys, keyHalf * kKeysPerTile + 2 * t);
            __syncthreads(); // Every warp is done with the keys: the next ones may replace them.
            if (nextKey < kvView.rows)
            {
                copyTileAsync<kD, kMmaKeys, kMmaThreads>(sK, kLd, kHead, kvView.rowStride, nextKey, blockKeys(nextKey));
            }
            commitCopies(); // Empty after the last keys: the group count stays the same on every path.
            softmaxStep(s, tileMax);
            waitCopies<1>(); // These values (the next keys may still be in flight).
            __syncthreads();
            addValues(s, myV);
            __syncthreads(); // Every warp is done with the values.
            if (nextKey < kvView.rows)
            {
                copyTileAsync<kD, kMmaKeys, kMmaThreads>(sV, kLd, vHead, kvView.rowStride, nextKey, blockKeys(nextKey));
            }
            commitCopies();
        }
    }
    waitCopies<0>(); // Nothing left in flight (the last groups are empty) before the buffers hold the partials.
    S* outHead = out + (batch * qView.rows) * qView.outStride + head * kD;
    if constexpr (!kSplit)
    {
        // Each warp saw every key of its rows: they are final.
#pragma unroll
        for (int32_t i = 0; i < 2; ++i)
        {
            if (rows[i] < qView.rows)
            {
                bool const live = sum[i] > 0.F;
                float const inverse = live ? 1.F / sum[i] : 0.F;
                float const dead = deadRow(zeroMaskedRows);
#pragma unroll
                for (int32_t dn = 0; dn < kD / 8; ++dn)
                {
                    *reinterpret_cast<uint32_t*>(outHead + rows[i] * qView.outStride + dn * 8 + 2 * t)
                        = packPair<S>(live ? o[dn][2 * i] * inverse : dead, live ? o[dn][2 * i + 1] * inverse : dead);
                }
            }
        }
        return;
    }

    // The second warp of each pair hands its partial softmax (output, maximum and sum of its 16 rows) to the first
    // through shared memory; the first rescales both to the larger maximum, adds them and stores the rows.
    // Rows kPartialLd floats apart and pairs of floats per access: a half warp's 64-bit accesses meet distinct banks.
    constexpr int32_t kPartialLd = kD + 8;
    float* partial = reinterpret_cast<float*>(shared) + pair * (kRowsPerWarp * kPartialLd + 2 * kRowsPerWarp);
    float* const partialMaximum = partial + kRowsPerWarp * kPartialLd;
    float* const partialSum = partialMaximum + kRowsPerWarp;
    if (keyHalf == 1)
    {
#pragma unroll
        for (int32_t dn = 0; dn < kD / 8; ++dn)
        {
#pragma unroll
            for (int32_t i = 0; i < 2; ++i)
            {
                *reinterpret_cast<float2*>(partial + (g + 8 * i) * kPartialLd + dn * 8 + 2 * t)
                    = make_float2(o[dn][2 * i], o[dn][2 * i + 1]);
            }
        }
        if (t == 0)
        {
            partialMaximum[g] = maximum[0];
            partialMaximum[g + 8] = maximum[1];
            partialSum[g] = sum[0];
            partialSum[g + 8] = sum[1];
        }
    }
    __syncthreads();
    if (keyHalf == 1)
    {
        return;
    }
    float mine[2];
    float theirs[2];
#pragma unroll
    for (int32_t i = 0; i < 2; ++i)
    {
        float const other = partialMaximum[g + 8 * i];
        float const next = fmaxf(maximum[i], other);
        float const reference = next == -INFINITY ? 0.F : next;
        mine[i] = maximum[i] == -INFINITY ? 0.F : exp2f(maximum[i] - reference);
        theirs[i] = other == -INFINITY ? 0.F : exp2f(other - reference);
        sum[i] = sum[i] * mine[i] + partialSum[g + 8 * i] * theirs[i];
    }
#pragma unroll
    for (int32_t i = 0; i < 2; ++i)
    {
        if (rows[i] < qView.rows)
        {
            bool const live = sum[i] > 0.F;
            float const inverse = live ? 1.F / sum[i] : 0.F;
            float const dead = deadRow(zeroMaskedRows);
            float const* other = partial + (g + 8 * i) * kPartialLd + 2 * t;
#pragma unroll
            for (int32_t dn = 0; dn < kD / 8; ++dn)
            {
                float2 const their = *reinterpret_cast<float2 const*>(other + dn * 8);
                float const low = o[dn][2 * i] * mine[i] + their.x * theirs[i];
                float const high = o[dn][2 * i + 1] * mine[i] + their.y * theirs[i];
                *reinterpret_cast<uint32_t*>(outHead + rows[i] * qView.outStride + dn * 8 + 2 * t)
                    = packPair<S>(live ? low * inverse : dead, live ? high * inverse : dead);
            }
        }
    }
}

//! The arguments every attention kernel takes after q, k, v and out.
struct AttentionArgs
{
    HeadView qView;
    HeadView kvView;
    float scale;
    MaskView mask;
    bool zeroMaskedRows;
    bool wide{}; //!< attentionMma with 64 queries per block and no split of the keys (16-bit types, vectors).
};

//! attentionMma's shared memory with maskBytes of mask tile.
template <typename S, int32_t kD, bool kSplit>
constexpr int32_t mmaSharedBytes(int32_t maskBytes)
{
    // The partials of the merge (two warps' [16][D + 8] outputs and 16 maxima and sums) fit in the key buffer.
    static_assert(2 * (kRowsPerWarp * (kD + 8) + 2 * kRowsPerWarp) * 4 <= kMmaKeys * (kD + 8) * 2, "partials fit");
    return (2 * kMmaKeys + mmaQueries(kSplit)) * (kD + 8) * static_cast<int32_t>(sizeof(S)) + maskBytes;
}

//! Launches attentionMma<S, kD, M, kSplit, kSameRows>.
template <typename S, int32_t kD, typename M, bool kSplit, bool kSameRows>
cudaError_t launchMma(
    void const* q, void const* k, void const* v, void* out, AttentionArgs const& a, dim3 grid, cudaStream_t stream)
{
    // The mask's tile: one row when every query shares it, else the block's.
    constexpr int32_t kElement
        = std::is_void_v<M> ? 0 : static_cast<int32_t>(sizeof(std::conditional_t<std::is_void_v<M>, char, M>));
    constexpr int32_t kQueries = mmaQueries(kSplit);
    int32_t const maskRows = kSameRows ? 1 : kQueries;
    return launchWithSharedUpTo<attentionMma<S, kD, M, kSplit, kSameRows>, kMmaThreads>(grid,
        mmaSharedBytes<S, kD, kSplit>(maskRows * kMaskLd * kElement),
        mmaSharedBytes<S, kD, kSplit>(kQueries * kMaskLd * kElement), stream, static_cast<S const*>(q),
        static_cast<S const*>(k), static_cast<S const*>(v), static_cast<S*>(out), a.qView, a.kvView, a.scale, a.mask,
        a.zeroMaskedRows);
}

//! launchMma with the split the grid was made for (AttentionArgs::wide).
template <typename S, int32_t kD, typename M, bool kSameRows>
cudaError_t launchMma(
    void const* q, void const* k, void const* v, void* out, AttentionArgs const& a, dim3 grid, cudaStream_t stream)
{
    return a.wide ? launchMma<S, kD, M, false, kSameRows>(q, k, v, out, a, grid, stream)
                  : launchMma<S, kD, M, true, kSameRows>(q, k, v, out, a, grid, stream);
}

//! launchMma for the layout of a's mask (M void: none).
template <typename S, int32_t kD, typename M>
cudaError_t launchMma(
    void const* q, void const* k, void const* v, void* out, AttentionArgs const& a, dim3 grid, cudaStream_t stream)
{
    if constexpr (std::is_void_v<M>)
    {
        return launchMma<S, kD, M, false>(q, k, v, out, a, grid, stream);
    }
    else
    {
        return a.mask.rowStride == 0 ? launchMma<S, kD, M, true>(q, k, v, out, a, grid, stream)
                                     : launchMma<S, kD, M, false>(q, k, v, out, a, grid, stream);
    }
}

//! launchMma for a's mask: none, of S or of float.
template <typename S, int32_t kD, bool kMasked>
cudaError_t launchMma(
    void const* q, void const* k, void const* v, void* out, AttentionArgs const& a, dim3 grid, cudaStream_t stream)
{
    if constexpr (!kMasked)
    {
        return launchMma<S, kD, void>(q, k, v, out, a, grid, stream);
    }
    else
    {
        return a.mask.type == DataType::kFLOAT ? launchMma<S, kD, float>(q, k, v, out, a, grid, stream)
                                               : launchMma<S, kD, S>(q, k, v, out, a, grid, stream);
    }
}

template <int32_t kD, bool kMasked>
cudaError_t launchAttention(DataType type, void const* q, void const* k, void const* v, void* out,
    AttentionArgs const& a, dim3 grid, bool vectors, cudaStream_t stream)
{
    switch (type)
    {
    case DataType::kHALF:
        if (vectors)
        {
            return launchMma<__half, kD, kMasked>(q, k, v, out, a, grid, stream);
        }
        return launchWithShared<attentionWmma<__half, kD>>(grid, wmmaSharedBytes<__half, kD>(), stream,
            static_cast<__half const*>(q), static_cast<__half const*>(k), static_cast<__half const*>(v),
            static_cast<__half*>(out), a.qView, a.kvView, a.scale, a.mask, a.zeroMaskedRows, vectors);
    case DataType::kBF16:
        if (vectors)
        {
            return launchMma<__nv_bfloat16, kD, kMasked>(q, k, v, out, a, grid, stream);
        }
        return launchWithShared<attentionWmma<__nv_bfloat16, kD>>(grid, wmmaSharedBytes<__nv_bfloat16, kD>(), stream,
            static_cast<__nv_bfloat16 const*>(q), static_cast<__nv_bfloat16 const*>(k),
            static_cast<__nv_bfloat16 const*>(v), static_cast<__nv_bfloat16*>(out), a.qView, a.kvView, a.scale, a.mask,
            a.zeroMaskedRows, vectors);
    default:
        return launchWithShared<attentionFloat<kD, kMasked>, kFloatThreads>(grid, floatSharedBytes<kD>(), stream,
            static_cast<float const*>(q), static_cast<float const*>(k), static_cast<float const*>(v),
            static_cast<float*>(out), a.qView, a.kvView, a.scale, a.mask, a.zeroMaskedRows, vectors);
    }
}

//! The kernel for head size kD, type and a.mask: the register-resident kernels are compiled with and without a mask
//! (where there is none, its loads and registers cost nothing); the shared-memory one checks at run time.
template <int32_t kD>
cudaError_t launchAttention(DataType type, void const* q, void const* k, void const* v, void* out,
    AttentionArgs const& a, dim3 grid, bool vectors, cudaStream_t stream)
{
    return a.mask.data != nullptr ? launchAttention<kD, true>(type, q, k, v, out, a, grid, vectors, stream)
                                  : launchAttention<kD, false>(type, q, k, v, out, a, grid, vectors, stream);
}

//! The view of mask (null: none) for scores [batch, heads, queries, keys]: rank 4, each extent the scores' or 1, of
//! type or kFLOAT.
Expected<MaskView> maskView(DeviceTensor const* mask, DataType type, std::array<int64_t, 4> const& scores)
{
    if (mask == nullptr)
    {
        return MaskView{};
    }
    if (mask->dims.nbDims != 4 || (mask->type != type && mask->type != DataType::kFLOAT))
    {
        return invalid("a fused attention's mask has rank 4 and q's type or kFLOAT");
    }
    std::array<int64_t, 4> strides{};
    int64_t stride = 1;
    for (int32_t d = 3; d >= 0; --d)
    {
        int64_t const extent = mask->dims.d[d];
        if (extent != scores[static_cast<std::size_t>(d)] && extent != 1)
        {
            return invalid("a fused attention's mask broadcasts to [B, heads, Sq, Skv]: each extent that or 1");
        }
        strides[static_cast<std::size_t>(d)] = extent == 1 ? 0 : stride;
        stride *= extent;
    }
    MaskView view{mask->data, mask->type, strides[0], strides[1], strides[2], strides[3]};
    int64_t const element = maskElementBytes(mask->type);
    auto const aligned = [&](int64_t stride) { return stride * element % 16 == 0; };
    view.async = strides[3] == 1 && aligned(strides[0]) && aligned(strides[1]) && aligned(strides[2])
        && reinterpret_cast<uintptr_t>(mask->data) % 16 == 0;
    return view;
}

} // namespace

Status runLayerNorm(float epsilon, DeviceTensor const& in, DeviceTensor const* gamma, DeviceTensor const* beta,
    DeviceTensor const& out, Launch const& launch)
{
    if (in.type != DataType::kFLOAT && in.type != DataType::kHALF && in.type != DataType::kBF16)
    {
        return invalid("a fused layer norm takes kFLOAT, kHALF or kBF16 tensors");
    }
    if (in.dims.nbDims < 1 || out.type != in.type || out.dims.nbDims != in.dims.nbDims
        || !std::equal(in.dims.d, in.dims.d + in.dims.nbDims, out.dims.d))
    {
        return invalid("a fused layer norm's output has its input's type and shape");
    }
    int64_t const n = in.dims.d[in.dims.nbDims - 1];
    for (DeviceTensor const* affine : {gamma, beta})
    {
        if (affine != nullptr && (affine->type != in.type || host::elementCount(affine->dims) != n))
        {
            return invalid("a fused layer norm's gamma and beta have the input's type and last extent");
        }
    }
    int64_t const rows = n == 0 ? 0 : host::elementCount(in.dims) / n;
    if (rows == 0)
    {
        return host::Done{};
    }
    if (n > std::numeric_limits<int32_t>::max() || rows > std::numeric_limits<int32_t>::max())
    {
        return invalid("a fused layer norm's rows are too long or too many");
    }
    void const* g = gamma != nullptr ? gamma->data : nullptr;
    void const* b = beta != nullptr ? beta->data : nullptr;
    auto const width = static_cast<int32_t>(n);
    switch (in.type)
    {
    case DataType::kHALF:
        launchLayerNorm<DataType::kHALF>(in.data, g, b, out.data, rows, width, epsilon, launch.stream);
        break;
    case DataType::kBF16:
        launchLayerNorm<DataType::kBF16>(in.data, g, b, out.data, rows, width, epsilon, launch.stream);
        break;
    default: launchLayerNorm<DataType::kFLOAT>(in.data, g, b, out.data, rows, width, epsilon, launch.stream); break;
    }
    cudaError_t const status = cudaGetLastError();
    if (status != cudaSuccess)
    {
        return cudaFailure(status, "launching the fused layer norm kernel");
    }
    return host::Done{};
}

Status runAttention(FusedKernel const& attention, DeviceTensor const& q, DeviceTensor const& k, DeviceTensor const& v,
    DeviceTensor const* mask, DeviceTensor const& out, Launch const& launch, int64_t inputStride)
{
    int32_t const heads = attention.heads;
    if (q.type != DataType::kFLOAT && q.type != DataType::kHALF && q.type != DataType::kBF16)
    {
        return invalid("a fused attention takes kFLOAT, kHALF or kBF16 tensors");
    }
    for (DeviceTensor const* t : {&k, &v, &out})
    {
        if (t->type != q.type || t->dims.nbDims != 3)
        {
            return invalid("a fused attention's q, k, v and output are [B, S, heads * D] of one type");
        }
    }
    if (q.dims.nbDims != 3 || heads < 1 || q.dims.d[2] % heads != 0)
    {
        return invalid("a fused attention's q is [B, S, heads * D]");
    }
    int64_t const batch = q.dims.d[0];
    int64_t const width = q.dims.d[2];
    int64_t const d = width / heads;
    if (k.dims.d[0] != batch || v.dims.d[0] != batch || k.dims.d[2] != width || v.dims.d[2] != width
        || k.dims.d[1] != v.dims.d[1] || out.dims.d[0] != batch || out.dims.d[1] != q.dims.d[1]
        || out.dims.d[2] != width)
    {
        return invalid("a fused attention's k and v are [B, Skv, heads * D] and its output q's shape");
    }
    if (!fusedAttentionHeadSize(d))
    {
        return invalid("a fused attention's head size is 16, 32, 64 or 128");
    }
    Expected<MaskView> const maskOf = maskView(mask, q.type, {batch, heads, q.dims.d[1], k.dims.d[1]});
    if (!maskOf)
    {
        return maskOf.error();
    }
    if (batch == 0 || q.dims.d[1] == 0)
    {
        return host::Done{};
    }
    if (k.dims.d[1] == 0 || batch > 65535 || heads > 65535)
    {
        return invalid("a fused attention needs keys, and at most 65535 batches and heads");
    }
    int64_t const stride = inputStride > 0 ? inputStride : width;
    AttentionArgs args{HeadView{q.dims.d[1], stride, width}, HeadView{k.dims.d[1], stride, width}, attention.scale,
        maskOf.value(), attention.zeroMaskedRows};
    // The register-resident kernel (16-byte loads of q, k and v, 32-bit stores) where every row of every head starts
    // 16-byte aligned; the shared-memory one otherwise (16-bit types). Float attention loads its tiles 16 bytes at a
    // time under the same condition.
    auto const aligned = [](void const* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
    bool const vectors = aligned(q.data) && aligned(k.data) && aligned(v.data) && aligned(out.data);
    // 64 queries per block without the split of the keys where the grid still fills the GPU (BERT at batch 32: 768
    // blocks); KILN_ATTENTION_WIDE=0 or 1 forces the choice (a measuring aid).
    auto const blocksOf = [&](int64_t queries) { return (args.qView.rows + queries - 1) / queries * heads * batch; };
    static int const forced = [] {
        char const* setting = std::getenv("KILN_ATTENTION_WIDE");
        return setting == nullptr ? -1 : std::atoi(setting) != 0 ? 1 : 0;
    }();
    args.wide = q.type != DataType::kFLOAT && vectors
        && (forced >= 0 ? forced == 1 : blocksOf(mmaQueries(false)) >= kWideAttentionBlocks);
    int64_t const queriesPerBlock = q.type == DataType::kFLOAT ? kFloatQueries : mmaQueries(!args.wide);
    dim3 const grid(static_cast<uint32_t>((args.qView.rows + queriesPerBlock - 1) / queriesPerBlock),
        static_cast<uint32_t>(heads), static_cast<uint32_t>(batch));
    cudaError_t status = cudaSuccess;
    switch (d)
    {
    case 16:
        status = launchAttention<16>(q.type, q.data, k.data, v.data, out.data, args, grid, vectors, launch.stream);
        break;
    case 32:
        status = launchAttention<32>(q.type, q.data, k.data, v.data, out.data, args, grid, vectors, launch.stream);
        break;
    case 64:
        status = launchAttention<64>(q.type, q.data, k.data, v.data, out.data, args, grid, vectors, launch.stream);
        break;
    default:
        status = launchAttention<128>(q.type, q.data, k.data, v.data, out.data, args, grid, vectors, launch.stream);
        break;
    }
    if (status != cudaSuccess)
    {
        return cudaFailure(status, "launching the fused attention kernel");
    }
    return host::Done{};
}

Status runEmbedding(FusedKernel const& embedding, std::span<DeviceTensor const* const> inputs, DeviceTensor const& out,
    Launch const& launch)
{
    DataType const type = out.type;
    if (type != DataType::kFLOAT && type != DataType::kHALF && type != DataType::kBF16)
    {
        return invalid("a fused embedding writes kFLOAT, kHALF or kBF16");
    }
    int32_t const rank = out.dims.nbDims;
    auto const lookups = static_cast<std::size_t>(std::max(embedding.gathers, 0)) * 2;
    auto const affine = static_cast<std::size_t>(embedding.normalize ? std::max(embedding.normAffine, 0) : 0);
    if (rank < 1 || rank > nvinfer1::Dims::MAX_DIMS || embedding.gathers < 1 || embedding.gathers > kMaxEmbeddingTerms
        || inputs.size() < lookups + affine || inputs.size() - lookups - affine > kMaxEmbeddingTerms
        || std::find(inputs.begin(), inputs.end(), nullptr) != inputs.end())
    {
        return invalid("a fused embedding takes 1 to 4 (table, indices) pairs, at most 4 addends and its layer norm's "
                       "gamma and beta, into an output of rank 1 to 8");
    }
    int64_t const n = out.dims.d[rank - 1];
    if (n < 1 || n > kMaxEmbeddingRow)
    {
        return invalid("a fused embedding's rows hold 1 to 1024 elements");
    }
    EmbeddingTerms terms;
    terms.gathers = embedding.gathers;
    terms.addends = static_cast<int32_t>(inputs.size() - lookups - affine);
    terms.outer = rank - 1;
    std::copy(out.dims.d, out.dims.d + rank - 1, terms.extents);
    terms.wrapped = embedding.wrapped;
    terms.normalize = embedding.normalize;
    terms.epsilon = embedding.epsilon;
    bool aligned = reinterpret_cast<uintptr_t>(out.data) % 16 == 0;
    auto const align = [&](void const* p) { aligned = aligned && reinterpret_cast<uintptr_t>(p) % 16 == 0; };
    // The strides of the output's outer coordinates in a tensor of those extents or 1 (units: its outer elements).
    auto const outerStrides = [&](Dims const& dims, int64_t* strides) {
        int64_t stride = 1;
        for (int32_t a = rank - 2; a >= 0; --a)
        {
            if (dims.d[a] != out.dims.d[a] && dims.d[a] != 1)
            {
                return false;
            }
            strides[a] = dims.d[a] == 1 ? 0 : stride;
            stride *= dims.d[a];
        }
        return true;
    };
    for (int32_t k = 0; k < embedding.gathers; ++k)
    {
        DeviceTensor const& table = *inputs[2 * static_cast<std::size_t>(k)];
        DeviceTensor const& indices = *inputs[2 * static_cast<std::size_t>(k) + 1];
        if (table.type != type || table.dims.nbDims != 2 || table.dims.d[1] != n)
        {
            return invalid("a fused embedding's tables are [rows, " + std::to_string(n) + "] of its output's type");
        }
        if ((indices.type != DataType::kINT32 && indices.type != DataType::kINT64) || indices.dims.nbDims != rank - 1
            || !outerStrides(indices.dims, terms.indexStrides[k]))
        {
            return invalid("a fused embedding's indices are kINT32 or kINT64, each extent the output's or 1");
        }
        terms.tables[k] = table.data;
        terms.tableRows[k] = table.dims.d[0];
        terms.indices[k] = indices.data;
        terms.wideIndices |= indices.type == DataType::kINT64 ? 1 << k : 0;
        align(table.data);
    }
    for (int32_t j = 0; j < terms.addends; ++j)
    {
        DeviceTensor const& addend = *inputs[lookups + static_cast<std::size_t>(j)];
        if (addend.type != type || addend.dims.nbDims != rank || addend.dims.d[rank - 1] != n
            || !outerStrides(addend.dims, terms.addendStrides[j]))
        {
            return invalid("a fused embedding's addends have its output's type and rank, its last extent, and each "
                           "other extent the output's or 1");
        }
        terms.addendData[j] = addend.data;
        align(addend.data);
    }
    for (std::size_t p = 0; p < affine; ++p)
    {
        DeviceTensor const& parameter = *inputs[inputs.size() - affine + p];
        if (parameter.type != type || host::elementCount(parameter.dims) != n)
        {
            return invalid("a fused embedding's gamma and beta have its output's type and last extent");
        }
        (p == 0 ? terms.gamma : terms.beta) = parameter.data;
        align(parameter.data);
    }
    int64_t const rows = host::elementCount(out.dims) / n;
    if (rows == 0)
    {
        return host::Done{};
    }
    auto const width = static_cast<int32_t>(n);
    switch (type)
    {
    case DataType::kHALF: launchEmbedding<DataType::kHALF>(terms, out.data, rows, width, aligned, launch.stream); break;
    case DataType::kBF16: launchEmbedding<DataType::kBF16>(terms, out.data, rows, width, aligned, launch.stream); break;
    default: launchEmbedding<DataType::kFLOAT>(terms, out.data, rows, width, aligned, launch.stream); break;
    }
    cudaError_t const status = cudaGetLastError();
    if (status != cudaSuccess)
    {
        return cudaFailure(status, "launching the fused embedding kernel");
    }
    return host::Done{};
}

} // namespace kiln::cuda
