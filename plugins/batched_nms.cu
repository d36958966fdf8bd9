// SPDX-License-Identifier: Apache-2.0
// BatchedNMSDynamic_TRT's CUDA kernels, the rules of batched_nms_math.h in five steps:
// 1. one thread per score writes its class's sort key (score descending, box ascending) or kNoCandidateKey;
// 2. cub's segmented radix sort orders each (image, class) segment;
// 3. one block per image and class runs that class's greedy selection over its first min(topK, N) candidates (flags
//    in shared memory) and writes a merge key (score descending, then class and rank) for each kept box;
// 4. the segmented sort orders each image's merge keys;
// 5. one thread per output row writes the first keepTopK of them and counts them.
// Simple rather than fast; the host implementation's results exactly, bit for bit.
#include "batched_nms.h"

#include "elements.h"

#include <cub/device/device_segmented_radix_sort.cuh>
#include <cuda_fp16.h>

#include <algorithm>

namespace kiln::plugins
{

namespace
{

constexpr int kThreads = 256;

//! Where each buffer lies in the workspace.
struct Layout
{
    size_t keysIn{};
    size_t keysOut{};
    size_t classOffsets{};
    size_t candidates{};
    size_t ranks{};
    size_t mergeIn{};
    size_t mergeOut{};
    size_t imageOffsets{};
    size_t sort{};
    size_t classSortBytes{};
    size_t imageSortBytes{};
    size_t total{};
};

Layout layoutFor(BatchedNmsParams const& p)
{
    Layout l;
    auto const take = [&l](size_t bytes) {
        size_t const at = l.total;
        l.total += (bytes + 255) / 256 * 256;
        return at;
    };
    auto const segments = static_cast<size_t>(p.batch * p.numClasses);
    size_t const scores = segments * static_cast<size_t>(p.boxes);
    size_t const kept = segments * static_cast<size_t>(p.perClass());
    l.keysIn = take(scores * sizeof(uint64_t));
    l.keysOut = take(scores * sizeof(uint64_t));
    l.classOffsets = take((segments + 1) * sizeof(int32_t));
    l.candidates = take(kept * sizeof(NmsBox));
    l.ranks = take(kept * sizeof(int32_t));
    l.mergeIn = take(kept * sizeof(uint64_t));
    l.mergeOut = take(kept * sizeof(uint64_t));
    l.imageOffsets = take((static_cast<size_t>(p.batch) + 1) * sizeof(int32_t));
    cub::DeviceSegmentedRadixSort::SortKeys(nullptr, l.classSortBytes, static_cast<uint64_t const*>(nullptr),
        static_cast<uint64_t*>(nullptr), static_cast<int>(scores), static_cast<int>(segments),
        static_cast<int32_t const*>(nullptr), static_cast<int32_t const*>(nullptr) + 1);
    cub::DeviceSegmentedRadixSort::SortKeys(nullptr, l.imageSortBytes, static_cast<uint64_t const*>(nullptr),
        static_cast<uint64_t*>(nullptr), static_cast<int>(kept), static_cast<int>(p.batch),
        static_cast<int32_t const*>(nullptr), static_cast<int32_t const*>(nullptr) + 1);
    l.sort = take(std::max(l.classSortBytes, l.imageSortBytes));
    return l;
}

__global__ void offsetsKernel(int64_t segments, int64_t length, int32_t* offsets)
{
    for (int64_t i = threadIdx.x; i <= segments; i += blockDim.x)
    {
        offsets[i] = static_cast<int32_t>(i * length);
    }
}

template <typename T>
__global__ void classKeysKernel(BatchedNmsParams p, T const* scores, uint64_t* keys)
{
    int64_t const total = p.batch * p.numClasses * p.boxes;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        int64_t const n = i % p.boxes;
        int64_t const c = (i / p.boxes) % p.numClasses;
        int64_t const image = i / (p.boxes * p.numClasses);
        float const score = DeviceLoad{}(scores[(image * p.boxes + n) * p.numClasses + c]);
        keys[i] = batchedNmsCandidate(p, score, c) ? scoreOrderKey(score, static_cast<uint32_t>(n)) : kNoCandidateKey;
    }
}

template <typename T>
__global__ void classSelectKernel(BatchedNmsParams p, T const* boxes, T const* scores, uint64_t const* sorted,
    NmsBox* candidates, int32_t* ranks, uint64_t* merge)
{
    __shared__ unsigned char suppressed[kBatchedNmsMaxTopK];
    __shared__ int32_t count;
    int64_t const segment = blockIdx.x; // image * numClasses + class
    int64_t const image = segment / p.numClasses;
    int64_t const c = segment % p.numClasses;
    int64_t const perClass = p.perClass();
    uint64_t const* keys = sorted + segment * p.boxes;
    NmsBox* box = candidates + segment * perClass;
    int32_t* rank = ranks + segment * perClass;
    uint64_t* out = merge + segment * perClass;
    if (threadIdx.x == 0)
    {
        count = 0;
    }
    __syncthreads();
    for (int64_t j = threadIdx.x; j < perClass; j += blockDim.x)
    {
        out[j] = kNoCandidateKey;
        suppressed[j] = 0;
        if (keys[j] != kNoCandidateKey)
        {
            atomicMax(&count, static_cast<int32_t>(j + 1)); // Candidates come first: count is the last one's rank + 1.
            int64_t const n = keyElement(keys[j]);
            rank[j] = static_cast<int32_t>(n);
            box[j] = batchedNmsBox(p, boxes, image, n, c, DeviceLoad{});
        }
    }
    __syncthreads();
    int32_t const m = count;
    for (int32_t i = 0; i < m; ++i)
    {
        if (suppressed[i] != 0) // Read after the previous iteration's barrier; written only for later ranks.
        {
            continue;
        }
        NmsBox const mine = box[i];
        for (int32_t j = i + 1 + static_cast<int32_t>(threadIdx.x); j < m; j += blockDim.x)
        {
            if (suppressed[j] == 0 && batchedNmsIou(p, mine, box[j]) > p.iouThreshold)
            {
                suppressed[j] = 1;
            }
        }
        if (threadIdx.x == 0)
        {
            float const score = DeviceLoad{}(scores[(image * p.boxes + rank[i]) * p.numClasses + c]);
            out[i] = scoreOrderKey(score, static_cast<uint32_t>(c * perClass + i));
        }
        __syncthreads();
    }
}

template <typename T>
__global__ void gatherKernel(BatchedNmsParams p, T const* boxes, T const* scores, uint64_t const* merged,
    int32_t const* ranks, int32_t* count, T* outBoxes, T* outScores, T* outClasses)
{
    int64_t const kept = p.keepTopK;
    int64_t const perImage = p.numClasses * p.perClass();
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < p.batch * kept;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        int64_t const image = i / kept;
        int64_t const d = i % kept;
        uint64_t const key = d < perImage ? merged[image * perImage + d] : kNoCandidateKey;
        if (key == kNoCandidateKey)
        {
            for (int k = 0; k < 4; ++k)
            {
                storeValue(outBoxes + i * 4 + k, 0.0F);
            }
            storeValue(outScores + i, 0.0F);
            storeValue(outClasses + i, -1.0F);
            continue;
        }
        uint32_t const element = keyElement(key);
        int64_t const c = element / p.perClass();
        int64_t const n = ranks[image * perImage + element];
        NmsBox const b = batchedNmsBox(p, boxes, image, n, c, DeviceLoad{});
        storeValue(outBoxes + i * 4 + 0, batchedNmsOutputCoordinate(p, b.c0));
        storeValue(outBoxes + i * 4 + 1, batchedNmsOutputCoordinate(p, b.c1));
        storeValue(outBoxes + i * 4 + 2, batchedNmsOutputCoordinate(p, b.c2));
        storeValue(outBoxes + i * 4 + 3, batchedNmsOutputCoordinate(p, b.c3));
        storeValue(outScores + i, DeviceLoad{}(scores[(image * p.boxes + n) * p.numClasses + c]));
        storeValue(outClasses + i, static_cast<float>(c));
        atomicAdd(count + image, 1);
    }
}

unsigned blocksFor(int64_t items)
{
    return static_cast<unsigned>(std::min<int64_t>(std::max<int64_t>((items + kThreads - 1) / kThreads, 1), 65535));
}

template <typename T>
cudaError_t launch(BatchedNmsParams const& p, void const* boxes, void const* scores, void* const* outputs,
    void* workspace, cudaStream_t stream)
{
    if (p.batch == 0)
    {
        return cudaSuccess;
    }
    Layout const l = layoutFor(p);
    auto* base = static_cast<char*>(workspace);
    auto* merged = reinterpret_cast<uint64_t*>(base + l.mergeOut);
    auto* ranks = reinterpret_cast<int32_t*>(base + l.ranks);
    cudaError_t status = cudaMemsetAsync(outputs[0], 0, static_cast<size_t>(p.batch) * sizeof(int32_t), stream);
    int64_t const segments = p.batch * p.numClasses;
    int64_t const total = segments * p.boxes;
    int64_t const kept = segments * p.perClass();
    if (status == cudaSuccess && total > 0)
    {
        auto* keysIn = reinterpret_cast<uint64_t*>(base + l.keysIn);
        auto* keysOut = reinterpret_cast<uint64_t*>(base + l.keysOut);
        auto* classOffsets = reinterpret_cast<int32_t*>(base + l.classOffsets);
        auto* mergeIn = reinterpret_cast<uint64_t*>(base + l.mergeIn);
        auto* imageOffsets = reinterpret_cast<int32_t*>(base + l.imageOffsets);
        offsetsKernel<<<1, kThreads, 0, stream>>>(segments, p.boxes, classOffsets);
        offsetsKernel<<<1, kThreads, 0, stream>>>(p.batch, p.numClasses * p.perClass(), imageOffsets);
        classKeysKernel<T><<<blocksFor(total), kThreads, 0, stream>>>(p, static_cast<T const*>(scores), keysIn);
        status = cudaGetLastError();
        size_t bytes = l.classSortBytes;
        if (status == cudaSuccess)
        {
            status = cub::DeviceSegmentedRadixSort::SortKeys(base + l.sort, bytes, keysIn, keysOut,
                static_cast<int>(total), static_cast<int>(segments), classOffsets, classOffsets + 1, 0, 64, stream);
        }
        if (status == cudaSuccess)
        {
            classSelectKernel<T><<<static_cast<unsigned>(segments), kThreads, 0, stream>>>(p,
                static_cast<T const*>(boxes), static_cast<T const*>(scores), keysOut,
                reinterpret_cast<NmsBox*>(base + l.candidates), ranks, mergeIn);
            status = cudaGetLastError();
        }
        bytes = l.imageSortBytes;
        if (status == cudaSuccess)
        {
            status = cub::DeviceSegmentedRadixSort::SortKeys(base + l.sort, bytes, mergeIn, merged,
                static_cast<int>(kept), static_cast<int>(p.batch), imageOffsets, imageOffsets + 1, 0, 64, stream);
        }
    }
    if (status == cudaSuccess)
    {
        gatherKernel<T><<<blocksFor(p.batch * p.keepTopK), kThreads, 0, stream>>>(p, static_cast<T const*>(boxes),
            static_cast<T const*>(scores), merged, ranks, static_cast<int32_t*>(outputs[0]),
            static_cast<T*>(outputs[1]), static_cast<T*>(outputs[2]), static_cast<T*>(outputs[3]));
        status = cudaGetLastError();
    }
    return status;
}

} // namespace

size_t batchedNmsWorkspaceSize(BatchedNmsParams const& params)
{
    return layoutFor(params).total;
}

cudaError_t launchBatchedNms(BatchedNmsParams const& params, nvinfer1::DataType type, void const* boxes,
    void const* scores, void* const* outputs, void* workspace, cudaStream_t stream)
{
    if (type == nvinfer1::DataType::kHALF)
    {
        return launch<__half>(params, boxes, scores, outputs, workspace, stream);
    }
    return launch<float>(params, boxes, scores, outputs, workspace, stream);
}

} // namespace kiln::plugins
