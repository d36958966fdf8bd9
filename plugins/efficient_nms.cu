// SPDX-License-Identifier: Apache-2.0
// EfficientNMS_TRT's CUDA kernels, the rules of efficient_nms_math.h in four steps:
// 1. one thread per score writes its sort key (nms_math.h's scoreOrderKey) or kNoCandidateKey, and counts its image's
//    candidates;
// 2. cub's segmented radix sort orders each image's keys (the keys are unique: score descending, element ascending);
// 3. one block per image decodes its first kEfficientNmsMaxCandidates candidates into the workspace, then runs the
//    greedy selection: candidate by candidate, the block's threads mark the later candidates it suppresses (flags in
//    shared memory) and thread 0 writes it out;
// 4. for the ONNX variant, one thread gathers the images' rows in image order and pads them.
// Simple rather than fast (TensorRT's kernel keeps boxes in registers and skips the sort's empty tail); the host
// implementation's results exactly, bit for bit.
#include "efficient_nms.h"

#include "elements.h"

#include <cub/device/device_segmented_radix_sort.cuh>
#include <cuda_fp16.h>

#include <algorithm>
#include <utility>

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
    size_t counts{};
    size_t offsets{};
    size_t candidates{};
    size_t perClass{};
    size_t rows{};
    size_t rowCounts{};
    size_t sort{};
    size_t sortBytes{};
    size_t total{};
};

Layout layoutFor(EfficientNmsParams const& p)
{
    Layout l;
    auto const take = [&l](size_t bytes) {
        size_t const at = l.total;
        l.total += (bytes + 255) / 256 * 256;
        return at;
    };
    auto const batch = static_cast<size_t>(p.batch);
    size_t const scores = batch * static_cast<size_t>(p.elements());
    l.keysIn = take(scores * sizeof(uint64_t));
    l.keysOut = take(scores * sizeof(uint64_t));
    l.counts = take(batch * sizeof(int32_t));
    l.offsets = take((batch + 1) * sizeof(int32_t));
    l.candidates = take(batch * kEfficientNmsMaxCandidates * sizeof(NmsBox));
    l.perClass = take(batch * static_cast<size_t>(p.classes) * sizeof(int32_t));
    l.rows = take(p.onnxIndices ? batch * static_cast<size_t>(p.maxOutputBoxes) * 3 * sizeof(int32_t) : 0);
    l.rowCounts = take(batch * sizeof(int32_t));
    cub::DeviceSegmentedRadixSort::SortKeys(nullptr, l.sortBytes, static_cast<uint64_t const*>(nullptr),
        static_cast<uint64_t*>(nullptr), static_cast<int>(scores), static_cast<int>(batch),
        static_cast<int32_t const*>(nullptr), static_cast<int32_t const*>(nullptr) + 1);
    l.sort = take(l.sortBytes);
    return l;
}

__global__ void offsetsKernel(int64_t batch, int64_t elements, int32_t* offsets)
{
    for (int64_t i = threadIdx.x; i <= batch; i += blockDim.x)
    {
        offsets[i] = static_cast<int32_t>(i * elements);
    }
}

template <typename T>
__global__ void keysKernel(EfficientNmsParams p, T const* scores, uint64_t* keys, int32_t* counts)
{
    int64_t const total = p.batch * p.elements();
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        int64_t const element = i % p.elements();
        float const score = DeviceLoad{}(scores[i]);
        if (efficientNmsCandidate(p, score, element))
        {
            keys[i] = scoreOrderKey(score, static_cast<uint32_t>(element));
            atomicAdd(counts + i / p.elements(), 1);
        }
        else
        {
            keys[i] = kNoCandidateKey;
        }
    }
}

struct Outputs
{
    int32_t* numDetections;
    void* boxes;
    void* scores;
    int32_t* classes;
    int32_t* rows; //!< The ONNX variant: each image's rows, at image * max_output_boxes.
    int32_t* rowCounts;
};

template <typename T>
__global__ void selectKernel(EfficientNmsParams p, T const* boxes, T const* scores, T const* anchors,
    uint64_t const* sorted, int32_t const* counts, NmsBox* candidates, int32_t* perClass, Outputs out)
{
    __shared__ unsigned char suppressed[kEfficientNmsMaxCandidates];
    __shared__ int32_t written;
    int64_t const image = blockIdx.x;
    int64_t const elements = p.elements();
    uint64_t const* keys = sorted + image * elements;
    int32_t const n = min(counts[image], kEfficientNmsMaxCandidates);
    NmsBox* box = candidates + image * kEfficientNmsMaxCandidates;
    for (int32_t j = threadIdx.x; j < n; j += blockDim.x)
    {
        box[j] = efficientNmsBox(p, boxes, anchors, image, keyElement(keys[j]), DeviceLoad{});
        suppressed[j] = 0;
    }
    if (threadIdx.x == 0)
    {
        written = 0;
    }
    __syncthreads();
    int64_t const kept = p.maxOutputBoxes;
    for (int32_t i = 0; i < n; ++i)
    {
        bool const skip = suppressed[i] != 0;
        int32_t const done = written;
        __syncthreads(); // Everyone has read the state this iteration starts from.
        if (skip)
        {
            continue;
        }
        if (done >= kept)
        {
            break;
        }
        int64_t const element = keyElement(keys[i]);
        int64_t const cls = element % p.classes;
        NmsBox const mine = box[i];
        for (int32_t j = i + 1 + static_cast<int32_t>(threadIdx.x); j < n; j += blockDim.x)
        {
            if (suppressed[j] == 0 && (p.classAgnostic || keyElement(keys[j]) % p.classes == cls)
                && intersectionOverUnion(mine, box[j]) >= p.iouThreshold)
            {
                suppressed[j] = 1;
            }
        }
        if (threadIdx.x == 0)
        {
            bool write = true;
            if (p.maxOutputBoxesPerClass >= 0)
            {
                write = perClass[image * p.classes + cls]++ < p.maxOutputBoxesPerClass;
            }
            if (write)
            {
                int64_t const slot = image * kept + done;
                if (p.onnxIndices)
                {
                    out.rows[slot * 3 + 0] = static_cast<int32_t>(image);
                    out.rows[slot * 3 + 1] = static_cast<int32_t>(cls);
                    out.rows[slot * 3 + 2] = static_cast<int32_t>(element / p.classes);
                }
                else
                {
                    T* b = static_cast<T*>(out.boxes) + slot * 4;
                    storeValue(b + 0, mine.c0);
                    storeValue(b + 1, mine.c1);
                    storeValue(b + 2, mine.c2);
                    storeValue(b + 3, mine.c3);
                    float const raw = DeviceLoad{}(scores[image * elements + element]);
                    storeValue(static_cast<T*>(out.scores) + slot, efficientNmsOutputScore(p, raw));
                    out.classes[slot] = static_cast<int32_t>(cls);
                }
                written = done + 1;
            }
        }
        __syncthreads();
    }
    if (threadIdx.x == 0)
    {
        if (p.onnxIndices)
        {
            out.rowCounts[image] = written;
        }
        else
        {
            out.numDetections[image] = written;
        }
    }
}

//! Gathers the ONNX variant's rows image by image and pads the rest with the last row (-1 when there is none).
__global__ void onnxRowsKernel(int64_t batch, int64_t kept, int32_t const* rows, int32_t const* rowCounts, int32_t* out)
{
    int64_t next = 0;
    for (int64_t image = 0; image < batch; ++image)
    {
        for (int32_t r = 0; r < rowCounts[image]; ++r, ++next)
        {
            for (int k = 0; k < 3; ++k)
            {
                out[next * 3 + k] = rows[(image * kept + r) * 3 + k];
            }
        }
    }
    for (int64_t r = next; r < batch * kept; ++r)
    {
        for (int k = 0; k < 3; ++k)
        {
            out[r * 3 + k] = next == 0 ? -1 : out[(next - 1) * 3 + k];
        }
    }
}

template <typename T>
cudaError_t launch(EfficientNmsParams const& p, void const* boxes, void const* scores, void const* anchors,
    void* const* outputs, void* workspace, cudaStream_t stream)
{
    Layout const l = layoutFor(p);
    auto* base = static_cast<char*>(workspace);
    int64_t const kept = p.maxOutputBoxes;
    Outputs out{};
    cudaError_t status = cudaSuccess;
    if (p.onnxIndices)
    {
        out.rows = reinterpret_cast<int32_t*>(base + l.rows);
        out.rowCounts = reinterpret_cast<int32_t*>(base + l.rowCounts);
        status = cudaMemsetAsync(out.rowCounts, 0, static_cast<size_t>(p.batch) * sizeof(int32_t), stream);
    }
    else
    {
        out.numDetections = static_cast<int32_t*>(outputs[0]);
        out.boxes = outputs[1];
        out.scores = outputs[2];
        out.classes = static_cast<int32_t*>(outputs[3]);
        size_t const slots = static_cast<size_t>(p.batch * kept);
        for (auto const& [ptr, bytes] :
            {std::pair<void*, size_t>{outputs[0], p.batch * sizeof(int32_t)}, {outputs[1], slots * 4 * sizeof(T)},
                {outputs[2], slots * sizeof(T)}, {outputs[3], slots * sizeof(int32_t)}})
        {
            if (status == cudaSuccess)
            {
                status = cudaMemsetAsync(ptr, 0, bytes, stream);
            }
        }
    }
    int64_t const total = p.batch * p.elements();
    if (status == cudaSuccess && total > 0)
    {
        auto* keysIn = reinterpret_cast<uint64_t*>(base + l.keysIn);
        auto* keysOut = reinterpret_cast<uint64_t*>(base + l.keysOut);
        auto* counts = reinterpret_cast<int32_t*>(base + l.counts);
        auto* offsets = reinterpret_cast<int32_t*>(base + l.offsets);
        auto* perClass = reinterpret_cast<int32_t*>(base + l.perClass);
        status = cudaMemsetAsync(counts, 0, static_cast<size_t>(p.batch) * sizeof(int32_t), stream);
        if (status == cudaSuccess)
        {
            status = cudaMemsetAsync(perClass, 0, static_cast<size_t>(p.batch * p.classes) * sizeof(int32_t), stream);
        }
        if (status == cudaSuccess)
        {
            offsetsKernel<<<1, kThreads, 0, stream>>>(p.batch, p.elements(), offsets);
            auto const blocks = static_cast<unsigned>(std::min<int64_t>((total + kThreads - 1) / kThreads, 65535));
            keysKernel<T><<<blocks, kThreads, 0, stream>>>(p, static_cast<T const*>(scores), keysIn, counts);
            status = cudaGetLastError();
        }
        if (status == cudaSuccess)
        {
            size_t sortBytes = l.sortBytes;
            status = cub::DeviceSegmentedRadixSort::SortKeys(base + l.sort, sortBytes, keysIn, keysOut,
                static_cast<int>(total), static_cast<int>(p.batch), offsets, offsets + 1, 0, 64, stream);
        }
        if (status == cudaSuccess)
        {
            selectKernel<T><<<static_cast<unsigned>(p.batch), kThreads, 0, stream>>>(p, static_cast<T const*>(boxes),
                static_cast<T const*>(scores), static_cast<T const*>(anchors), keysOut, counts,
                reinterpret_cast<NmsBox*>(base + l.candidates), perClass, out);
            status = cudaGetLastError();
        }
    }
    if (status == cudaSuccess && p.onnxIndices)
    {
        onnxRowsKernel<<<1, 1, 0, stream>>>(p.batch, kept, out.rows, out.rowCounts, static_cast<int32_t*>(outputs[0]));
        status = cudaGetLastError();
    }
    return status;
}

} // namespace

size_t efficientNmsWorkspaceSize(EfficientNmsParams const& params, nvinfer1::DataType /*type*/)
{
    return layoutFor(params).total;
}

cudaError_t launchEfficientNms(EfficientNmsParams const& params, nvinfer1::DataType type, void const* boxes,
    void const* scores, void const* anchors, void* const* outputs, void* workspace, cudaStream_t stream)
{
    if (type == nvinfer1::DataType::kHALF)
    {
        return launch<__half>(params, boxes, scores, anchors, outputs, workspace, stream);
    }
    return launch<float>(params, boxes, scores, anchors, outputs, workspace, stream);
}

} // namespace kiln::plugins
