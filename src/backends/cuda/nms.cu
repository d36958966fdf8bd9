// SPDX-License-Identifier: Apache-2.0
// CUDA kernel of INMSLayer, with the semantics of the host reference (backends/host/nms.h): the same candidate order,
// the same IoU computed the same way (host::nmsIoU, one rounding per operation), so the selections agree exactly.
// Correctness over speed; four steps on the stream:
// 1. keys: each (batch, class, box) candidate gets a 32-bit key whose ascending order is decreasing score (the score's
//    bits made monotonic, -0 as +0, then complemented); candidates at or below the score threshold, and NaN scores,
//    get the largest key. They are written batch by batch in class-then-box order with their position class * N + box;
// 2. cub::DeviceSegmentedSort::StableSortPairs sorts each batch's keys with their positions. The sort is stable, so
//    equal scores keep class-then-box order, as on the host;
// 3. select: one block per batch item walks its first min(TopK box limit, C * N) sorted candidates in order (a loop all
//    threads take together); the threads compare a candidate with the boxes already selected in the batch item in
//    parallel (only those of its class count), and thread 0 appends it when none overlaps more than the IoU threshold
//    and its class is not full;
// 4. emit: one block turns the per-batch counts into row offsets (one thread), writes the total to the count output,
//    then writes every batch item's (batch, class, box) rows from its offset.
// Scratch memory comes from the context's workspace. Limits: at most 2^31 - 1 candidates (CUB's offsets and the
// positions are 32-bit).
#include "backends/cuda/elements.cuh"
#include "backends/cuda/kernels.h"
#include "backends/cuda/scratch.cuh"

#include <cub/device/device_segmented_sort.cuh>

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
//! The key of a candidate that is not considered.
constexpr uint32_t kNoCandidate = 0xFFFFFFFFU;

//! The geometry of the inputs.
struct Geometry
{
    int64_t batches{};
    int64_t boxes{};   //!< N.
    int64_t classes{}; //!< C.
    bool perClassBoxes{};
    bool centerSizes{};
    int64_t considered{}; //!< min(TopK box limit, C * N): the sorted candidates each batch item walks.
};

template <DataType T>
__device__ __forceinline__ host::NMSBox loadBox(
    Storage<T> const* boxes, Geometry const& g, int64_t b, int64_t box, int64_t cls)
{
    int64_t const first = ((b * g.boxes + box) * (g.perClassBoxes ? g.classes : 1) + (g.perClassBoxes ? cls : 0)) * 4;
    float c[4];
    for (int64_t k = 0; k < 4; ++k)
    {
        c[k] = loadFloat<T>(boxes, first + k);
    }
    return host::nmsBox(c, g.centerSizes);
}

//! Each candidate's key and position, batch by batch, and the batches' start offsets.
template <DataType T>
__global__ void makeNmsKeys(Storage<T> const* scores, Geometry const g, float const threshold, uint32_t* keys,
    int32_t* positions, int32_t* offsets)
{
    int64_t const perBatch = g.classes * g.boxes;
    int64_t const total = g.batches * perBatch;
    int64_t const step = int64_t{gridDim.x} * blockDim.x;
    for (int64_t e = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; e < total; e += step)
    {
        int64_t const b = e / perBatch;
        int64_t const p = e - b * perBatch;
        int64_t const cls = p / g.boxes;
        int64_t const box = p - cls * g.boxes;
        float const score = loadFloat<T>(scores, (b * g.boxes + box) * g.classes + cls);
        uint32_t key = kNoCandidate;
        if (score > threshold)
        {
            uint32_t const bits = __float_as_uint(score == 0.F ? 0.F : score);
            uint32_t const ordered = (bits & 0x80000000U) != 0 ? ~bits : bits | 0x80000000U;
            key = ~ordered; // ascending keys: decreasing scores; never kNoCandidate for a number
        }
        keys[e] = key;
        positions[e] = static_cast<int32_t>(p);
    }
    for (int64_t b = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; b <= g.batches; b += step)
    {
        offsets[b] = static_cast<int32_t>(b * perBatch);
    }
}

//! Block b walks batch item b's sorted candidates; selected[b * considered + s] gets the position of its s-th
//! selection, chosen[b] their number. classCounts (batches * classes, zeroed) counts the selections per class.
template <DataType T>
__global__ void selectBoxes(Storage<T> const* boxes, Geometry const g, uint32_t const* keys, int32_t const* positions,
    int64_t const maxPerClass, float const iouThreshold, int32_t* selected, int32_t* classCounts, int64_t* chosen)
{
    __shared__ int64_t nbSelected;
    int64_t const b = blockIdx.x;
    int64_t const perBatch = g.classes * g.boxes;
    uint32_t const* batchKeys = keys + b * perBatch;
    int32_t const* batchPositions = positions + b * perBatch;
    int32_t* batchSelected = selected + b * g.considered;
    int32_t* batchCounts = classCounts + b * g.classes;
    if (threadIdx.x == 0)
    {
        nbSelected = 0;
    }
    __syncthreads();
    for (int64_t t = 0; t < g.considered; ++t)
    {
        if (batchKeys[t] == kNoCandidate)
        {
            break; // the same for every thread: no candidate from here on
        }
        int32_t const p = batchPositions[t];
        int64_t const cls = p / g.boxes;
        bool const full = batchCounts[cls] >= maxPerClass; // the same for every thread
        int suppressed = 0;
        if (!full)
        {
            host::NMSBox const box = loadBox<T>(boxes, g, b, p - cls * g.boxes, cls);
            for (int64_t s = threadIdx.x; s < nbSelected; s += blockDim.x)
            {
                int32_t const q = batchSelected[s];
                if (q / g.boxes == cls
                    && host::nmsIoU(box, loadBox<T>(boxes, g, b, q - cls * g.boxes, cls)) > iouThreshold)
                {
                    suppressed = 1;
                }
            }
        }
        // Every thread has read nbSelected and the class count before thread 0 changes them.
        int const anySuppressed = __syncthreads_or(suppressed);
        if (threadIdx.x == 0 && !full && anySuppressed == 0)
        {
            batchSelected[nbSelected] = p;
            nbSelected = nbSelected + 1;
            batchCounts[cls] = batchCounts[cls] + 1;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0)
    {
        chosen[b] = nbSelected;
    }
}

//! One block: the rows' offsets (thread 0), the total into count, then every batch item's rows.
template <typename Index, typename Count>
__global__ void emitRows(
    int32_t const* selected, int64_t const* chosen, Geometry const g, int64_t* rowOffsets, Index* rows, Count* count)
{
    if (threadIdx.x == 0)
    {
        int64_t offset = 0;
        for (int64_t b = 0; b < g.batches; ++b)
        {
            rowOffsets[b] = offset;
            offset += chosen[b];
        }
        *count = static_cast<Count>(offset);
    }
    __syncthreads();
    for (int64_t b = 0; b < g.batches; ++b)
    {
        for (int64_t s = threadIdx.x; s < chosen[b]; s += blockDim.x)
        {
            int64_t const p = selected[b * g.considered + s];
            int64_t const row = rowOffsets[b] + s;
            int64_t const cls = p / g.boxes;
            rows[row * 3] = static_cast<Index>(b);
            rows[row * 3 + 1] = static_cast<Index>(cls);
            rows[row * 3 + 2] = static_cast<Index>(p - cls * g.boxes);
        }
    }
}

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "nms: " + message};
}

template <typename Index, typename Count>
void launchEmit(int32_t const* selected, int64_t const* chosen, Geometry const& g, int64_t* rowOffsets,
    DeviceTensor const& rows, DeviceTensor const& count, cudaStream_t stream)
{
    emitRows<Index, Count><<<1, kThreads, 0, stream>>>(
        selected, chosen, g, rowOffsets, static_cast<Index*>(rows.data), static_cast<Count*>(count.data));
}

template <DataType T>
Status launchNMS(Geometry const& g, host::NMSScalars const& scalars, DeviceTensor const& boxes,
    DeviceTensor const& scores, DeviceTensor const& selectedRows, DeviceTensor const& count, Launch const& launch)
{
    int64_t const items = g.batches * g.classes * g.boxes;
    auto const nbItems = static_cast<int>(items);
    auto const nbSegments = static_cast<int>(g.batches);
    std::size_t tempBytes = 0;
    cudaError_t status = cub::DeviceSegmentedSort::StableSortPairs(nullptr, tempBytes,
        static_cast<uint32_t const*>(nullptr), static_cast<uint32_t*>(nullptr), static_cast<int32_t const*>(nullptr),
        static_cast<int32_t*>(nullptr), nbItems, nbSegments, static_cast<int32_t const*>(nullptr),
        static_cast<int32_t const*>(nullptr), launch.stream);
    if (status != cudaSuccess)
    {
        return cudaFailure(status, "sizing the nms sort");
    }
    int64_t const itemBytes = scratchBytes(std::max<int64_t>(items, 1) * static_cast<int64_t>(sizeof(int32_t)));
    int64_t const offsetBytes = scratchBytes((g.batches + 1) * static_cast<int64_t>(sizeof(int32_t)));
    int64_t const selectedBytes
        = scratchBytes(std::max<int64_t>(g.batches * g.considered, 1) * static_cast<int64_t>(sizeof(int32_t)));
    int64_t const classBytes = scratchBytes(g.batches * g.classes * static_cast<int64_t>(sizeof(int32_t)));
    int64_t const batchBytes = scratchBytes((g.batches + 1) * static_cast<int64_t>(sizeof(int64_t)));
    int64_t const total = 4 * itemBytes + offsetBytes + selectedBytes + classBytes + 2 * batchBytes
        + scratchBytes(static_cast<int64_t>(tempBytes));
    Expected<void*> const block = launch.libraries->workspace(total, launch.stream);
    if (!block)
    {
        return block.error();
    }
    ScratchCarver carve(block.value());
    auto* keysIn = reinterpret_cast<uint32_t*>(carve.take(itemBytes));
    auto* keysOut = reinterpret_cast<uint32_t*>(carve.take(itemBytes));
    auto* positionsIn = reinterpret_cast<int32_t*>(carve.take(itemBytes));
    auto* positionsOut = reinterpret_cast<int32_t*>(carve.take(itemBytes));
    auto* offsets = reinterpret_cast<int32_t*>(carve.take(offsetBytes));
    auto* selected = reinterpret_cast<int32_t*>(carve.take(selectedBytes));
    auto* classCounts = reinterpret_cast<int32_t*>(carve.take(classBytes));
    auto* chosen = reinterpret_cast<int64_t*>(carve.take(batchBytes));
    auto* rowOffsets = reinterpret_cast<int64_t*>(carve.take(batchBytes));
    void* temp = carve.take(scratchBytes(static_cast<int64_t>(tempBytes)));

    auto const* boxData = static_cast<Storage<T> const*>(boxes.data);
    auto const* scoreData = static_cast<Storage<T> const*>(scores.data);
    makeNmsKeys<T><<<gridStrideBlocks(std::max(items, g.batches + 1), kThreads), kThreads, 0, launch.stream>>>(
        scoreData, g, scalars.scoreThreshold, keysIn, positionsIn, offsets);
    if ((status = cudaGetLastError()) != cudaSuccess)
    {
        return cudaFailure(status, "launching the nms key kernel");
    }
    status = cub::DeviceSegmentedSort::StableSortPairs(temp, tempBytes, keysIn, keysOut, positionsIn, positionsOut,
        nbItems, nbSegments, static_cast<int32_t const*>(offsets), static_cast<int32_t const*>(offsets + 1),
        launch.stream);
    if (status != cudaSuccess)
    {
        return cudaFailure(status, "sorting the nms candidates");
    }
    status = cudaMemsetAsync(classCounts, 0, static_cast<std::size_t>(classBytes), launch.stream);
    if (status != cudaSuccess)
    {
        return cudaFailure(status, "clearing the nms class counts");
    }
    selectBoxes<T><<<static_cast<uint32_t>(g.batches), kThreads, 0, launch.stream>>>(
        boxData, g, keysOut, positionsOut, scalars.maxPerClass, scalars.iouThreshold, selected, classCounts, chosen);
    if ((status = cudaGetLastError()) != cudaSuccess)
    {
        return cudaFailure(status, "launching the nms selection kernel");
    }
    bool const wide = selectedRows.type == DataType::kINT64;
    bool const wideCount = count.type == DataType::kINT64;
    if (wide && wideCount)
    {
        launchEmit<int64_t, int64_t>(selected, chosen, g, rowOffsets, selectedRows, count, launch.stream);
    }
    else if (wide)
    {
        launchEmit<int64_t, int32_t>(selected, chosen, g, rowOffsets, selectedRows, count, launch.stream);
    }
    else if (wideCount)
    {
        launchEmit<int32_t, int64_t>(selected, chosen, g, rowOffsets, selectedRows, count, launch.stream);
    }
    else
    {
        launchEmit<int32_t, int32_t>(selected, chosen, g, rowOffsets, selectedRows, count, launch.stream);
    }
    if ((status = cudaGetLastError()) != cudaSuccess)
    {
        return cudaFailure(status, "launching the nms output kernel");
    }
    return host::Done{};
}

//! Writes a zero count (an input without candidates).
Status writeZeroCount(DeviceTensor const& count, Launch const& launch)
{
    std::size_t const bytes = count.type == DataType::kINT64 ? sizeof(int64_t) : sizeof(int32_t);
    cudaError_t const status = cudaMemsetAsync(count.data, 0, bytes, launch.stream);
    return status == cudaSuccess ? Status{host::Done{}} : Status{cudaFailure(status, "clearing the nms count")};
}

} // namespace

Status runNMS(NMSParams const& params, DeviceTensor const& boxes, DeviceTensor const& scores,
    host::NMSScalars const& scalars, DeviceTensor const& selected, DeviceTensor const& count, Launch const& launch)
{
    Expected<host::TensorDesc> const desc
        = host::inferNMS(params, {boxes.type, boxes.dims}, {scores.type, scores.dims});
    if (!desc)
    {
        return desc.error();
    }
    Geometry g;
    g.batches = scores.dims.d[0];
    g.boxes = scores.dims.d[1];
    g.classes = scores.dims.d[2];
    g.perClassBoxes = boxes.dims.nbDims == 4;
    g.centerSizes = params.format == nvinfer1::BoundingBoxFormat::kCENTER_SIZES;
    g.considered = std::min<int64_t>(params.topKBoxLimit, g.classes * g.boxes);
    int64_t const rows = g.batches * g.classes * std::min(g.boxes, scalars.maxPerClass);
    if (std::optional<std::string> const problem = host::nmsOutputProblem(params, rows, selected, count))
    {
        return invalid(*problem);
    }
    for (auto const& [tensor, role] : {std::pair{&boxes, "input 0"}, std::pair{&scores, "input 1"},
             std::pair{&selected, "output 0"}, std::pair{&count, "output 1"}})
    {
        if (std::optional<Error> const error = host::checkTensor(*tensor, role))
        {
            return invalid(error->message);
        }
    }
    int64_t const items = g.batches * g.classes * g.boxes;
    if (items > std::numeric_limits<int32_t>::max() || g.batches > std::numeric_limits<int32_t>::max())
    {
        return invalid("the scores " + host::shapeString(scores.dims) + " have " + std::to_string(items)
            + " candidates; the CUDA kernel takes at most 2^31 - 1");
    }
    if (items == 0 || scalars.maxPerClass == 0)
    {
        return writeZeroCount(count, launch);
    }
    if (launch.libraries == nullptr)
    {
        return Error{nvinfer1::ErrorCode::kINVALID_STATE, "nms: the kernel needs the context's scratch memory"};
    }
    if (boxes.type == DataType::kHALF)
    {
        return launchNMS<DataType::kHALF>(g, scalars, boxes, scores, selected, count, launch);
    }
    return launchNMS<DataType::kFLOAT>(g, scalars, boxes, scores, selected, count, launch);
}

} // namespace kiln::cuda
