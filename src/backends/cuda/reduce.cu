// SPDX-License-Identifier: Apache-2.0
// CUDA kernels of IReduceLayer, with the semantics of the host reference (backends/host/reduce.h): every operation the
// layer takes over any axes mask, floating and kINT8 types folded in float, kINT32 and kINT64 in int64_t (wrapping
// as the host does), empty reductions giving the host's values.
//
// The input's axes are first merged into runs of reduced and kept axes (extents of 1 dropped). Two kernels read them:
// - rows: when the innermost axis is reduced (over at least 8 elements), 8 to 1024 threads fold each output's
//   elements, neighbouring lanes reading neighbouring elements, then shuffles (and shared memory across warps);
// - columns: otherwise, neighbouring lanes take neighbouring outputs (reading neighbouring elements when the innermost
//   axis is kept), threadIdx.y splits each output's elements, folded through shared memory.
// Too few outputs to fill the GPU (a whole tensor to one value): blockIdx.y splits each output's elements as well, the
// parts' raw folds go to the context's workspace, and a second kernel folds them. Each thread keeps four loads in
// flight. Sums and products accumulate in float per thread, then in a tree: the error grows about as sqrt(n) float
// roundings (the tests' tolerance says so). The split is fixed by the shapes, so results are deterministic.
#include "backends/cuda/elements.cuh"
#include "backends/cuda/kernels.h"
#include "backends/host/reduce.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace kiln::cuda
{

namespace
{

using Op = nvinfer1::ReduceOperation;

constexpr int32_t kMaxAxes = nvinfer1::Dims::MAX_DIMS;
constexpr int64_t kMaxBlocks = 65535;
constexpr int64_t kTargetBlocks = 1024; //!< Enough blocks to fill a GPU several times over.
constexpr int64_t kMinChunk = 8192;     //!< The fewest elements worth a block of their own.
constexpr uint32_t kFullMask = 0xFFFFFFFFU;

//! Runs of axes of one kind, innermost first: each run's extent and the input's stride of its innermost axis.
struct Axes
{
    int32_t nb{};
    int64_t extent[kMaxAxes]{};
    int64_t stride[kMaxAxes]{};
};

//! The input seen as kept and reduced runs: output o folds in[offset(kept, o) + offset(reduced, r)] for every r.
struct Shape
{
    Axes kept;
    Axes reduced;
    int64_t outCount{1};
    int64_t reducedCount{1};
};

//! The operation and the values it starts from.
struct Fold
{
    Op op{};
    int64_t count{};        //!< Elements folded into each output.
    float identity{};       //!< Each thread's start: 0, 1, or NaN for kMAX and kMIN (fmaxf and fminf ignore NaN).
    float empty{};          //!< The floating result of an empty reduction (the host's floatingInit).
    int64_t integerStart{}; //!< The integer start and empty result (0, 1, the type's lowest or highest value).
};

template <DataType T>
inline constexpr bool kReduces = T == DataType::kFLOAT || T == DataType::kHALF || T == DataType::kBF16
    || T == DataType::kINT8 || T == DataType::kINT32 || T == DataType::kINT64;

//! The accumulator: float for floating and scaled types, int64_t for integers.
template <DataType T>
using Acc = std::conditional_t<kIsFloating<T>, float, int64_t>;

//! The input offset of index, row-major over axes.
__device__ __forceinline__ int64_t offsetOf(Axes const& axes, int64_t index)
{
    if (axes.nb == 1)
    {
        return index * axes.stride[0];
    }
    int64_t offset = 0;
#pragma unroll
    for (int32_t i = 0; i < kMaxAxes; ++i)
    {
        if (i < axes.nb)
        {
            offset += index % axes.extent[i] * axes.stride[i];
            index /= axes.extent[i];
        }
    }
    return offset;
}

__device__ __forceinline__ float combine(Op op, float a, float b)
{
    switch (op)
    {
    case Op::kPROD: return a * b;
    case Op::kMAX: return fmaxf(a, b);
    case Op::kMIN: return fminf(a, b);
    default: return a + b;
    }
}

__device__ __forceinline__ int64_t combine(Op op, int64_t a, int64_t b)
{
    switch (op)
    {
    case Op::kPROD: return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
    case Op::kMAX: return a > b ? a : b;
    case Op::kMIN: return a < b ? a : b;
    default: return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
    }
}

template <DataType T>
__device__ __forceinline__ Acc<T> start(Fold const& fold)
{
    if constexpr (kIsFloating<T>)
    {
        return fold.identity;
    }
    else
    {
        return fold.integerStart;
    }
}

template <DataType T>
__device__ __forceinline__ Acc<T> load(Storage<T> const* in, int64_t i, float scale)
{
    if constexpr (kIsFloating<T>)
    {
        return loadFloat<T>(in, i, scale);
    }
    else
    {
        return loadInteger<T>(in, i);
    }
}

//! Writes an output's folded value: the empty result when nothing was folded, divided by the count for kAVG.
template <DataType T>
__device__ __forceinline__ void storeResult(Storage<T>* out, int64_t o, Acc<T> acc, Fold const& fold, float scale)
{
    if constexpr (kIsFloating<T>)
    {
        float value = fold.count == 0 ? fold.empty : acc;
        if (fold.op == Op::kAVG)
        {
            value /= static_cast<float>(fold.count); // 0 / 0 is NaN for an empty reduction, as on the host.
        }
        storeFloat<T>(out, o, value, scale);
    }
    else
    {
        int64_t value = fold.count == 0 ? fold.integerStart : acc;
        if (fold.op == Op::kAVG && fold.count > 0)
        {
            value /= fold.count; // Truncated toward zero; an empty integer kAVG was refused.
        }
        storeInteger<T>(out, o, value);
    }
}

//! Folds the elements r = first, first + step, ... below end of the output at input offset base into acc, with four
//! loads in flight at a time (one at a time leaves the memory system idle: too few bytes in flight per SM).
template <DataType T>
__device__ __forceinline__ Acc<T> foldElements(Storage<T> const* in, Shape const& shape, int64_t base, int64_t first,
    int64_t end, int64_t step, Op op, float scale, Acc<T> acc)
{
    int64_t r = first;
    if (shape.reduced.nb <= 1)
    {
        // One run (or none: only r = 0, at offset 0): no division per element, nothing between the loads.
        int64_t const stride = shape.reduced.nb == 1 ? shape.reduced.stride[0] : 0;
        int64_t const jump = step * stride;
        for (; r + 3 * step < end; r += 4 * step)
        {
            int64_t const i = base + r * stride;
            Acc<T> const a = load<T>(in, i, scale);
            Acc<T> const b = load<T>(in, i + jump, scale);
            Acc<T> const c = load<T>(in, i + 2 * jump, scale);
            Acc<T> const d = load<T>(in, i + 3 * jump, scale);
            acc = combine(op, acc, combine(op, combine(op, a, b), combine(op, c, d)));
        }
    }
    else
    {
        for (; r + 3 * step < end; r += 4 * step)
        {
            Acc<T> const a = load<T>(in, base + offsetOf(shape.reduced, r), scale);
            Acc<T> const b = load<T>(in, base + offsetOf(shape.reduced, r + step), scale);
            Acc<T> const c = load<T>(in, base + offsetOf(shape.reduced, r + 2 * step), scale);
            Acc<T> const d = load<T>(in, base + offsetOf(shape.reduced, r + 3 * step), scale);
            acc = combine(op, acc, combine(op, combine(op, a, b), combine(op, c, d)));
        }
    }
    for (; r < end; r += step)
    {
        acc = combine(op, acc, load<T>(in, base + offsetOf(shape.reduced, r), scale));
    }
    return acc;
}

//! Folds value over aligned groups of width lanes (a power of 2 up to 32); every lane of a group gets the result.
//! Every lane of the warp must call it.
template <typename A>
__device__ __forceinline__ A groupFold(Op op, A value, uint32_t width)
{
    for (uint32_t mask = width / 2; mask > 0; mask /= 2)
    {
        value = combine(op, value, __shfl_xor_sync(kFullMask, value, mask));
    }
    return value;
}

//! The elements [begin, end) of each output that block row blockIdx.y folds: all of them, or one part of a split.
struct Part
{
    int64_t begin;
    int64_t end;
};

__device__ __forceinline__ Part partOf(int64_t count, int64_t chunk)
{
    int64_t const begin = int64_t{blockIdx.y} * chunk;
    return Part{begin, min(begin + chunk, count)};
}

//! Stores an output's fold: the result, or the raw accumulator of part blockIdx.y when the reduction is split.
template <DataType T>
__device__ __forceinline__ void finish(
    Storage<T>* out, Acc<T>* partials, int64_t o, Acc<T> acc, Fold const& fold, float scale)
{
    if (partials != nullptr)
    {
        partials[o * gridDim.y + blockIdx.y] = acc;
    }
    else
    {
        storeResult<T>(out, o, acc, fold, scale);
    }
}

//! One output per row of blockDim.x threads (a power of 2: within a warp, or whole warps), blockDim.y rows per block;
//! blockIdx.y takes a chunk of each row's elements when gridDim.y > 1 (partials then receives the raw folds).
template <DataType T>
__global__ void reduceRows(Storage<T> const* in, Storage<T>* out, Acc<T>* partials, Shape const shape, int64_t chunk,
    Fold const fold, float inScale, float outScale)
{
    using A = Acc<T>;
    __shared__ A partial[32];
    int32_t const warpsPerRow = static_cast<int32_t>(blockDim.x / 32);
    int32_t const warp = static_cast<int32_t>(threadIdx.x / 32);
    int32_t const slot = static_cast<int32_t>(threadIdx.y) * warpsPerRow;
    Part const part = partOf(shape.reducedCount, chunk);
    // Every thread runs every iteration (the bound is uniform over the block), so the shuffles and barriers below are
    // reached by all.
    for (int64_t first = int64_t{blockIdx.x} * blockDim.y; first < shape.outCount;
         first += int64_t{gridDim.x} * blockDim.y)
    {
        int64_t const o = first + threadIdx.y;
        bool const active = o < shape.outCount;
        A acc = start<T>(fold);
        if (active)
        {
            acc = foldElements<T>(in, shape, offsetOf(shape.kept, o), part.begin + threadIdx.x, part.end, blockDim.x,
                fold.op, inScale, acc);
        }
        acc = groupFold(fold.op, acc, min(blockDim.x, 32U));
        if (warpsPerRow > 1)
        {
            if (threadIdx.x % 32 == 0)
            {
                partial[slot + warp] = acc;
            }
            __syncthreads();
            acc = partial[slot];
            for (int32_t w = 1; w < warpsPerRow; ++w)
            {
                acc = combine(fold.op, acc, partial[slot + w]);
            }
            __syncthreads(); // partial is written again by the next iteration.
        }
        if (active && threadIdx.x == 0)
        {
            finish<T>(out, partials, o, acc, fold, outScale);
        }
    }
}

//! One output per lane of 32 (blockDim.x == 32); threadIdx.y splits each output's elements, blockIdx.y takes a chunk
//! of them when gridDim.y > 1 (partials then receives the raw folds).
template <DataType T>
__global__ void reduceColumns(Storage<T> const* in, Storage<T>* out, Acc<T>* partials, Shape const shape, int64_t chunk,
    Fold const fold, float inScale, float outScale)
{
    using A = Acc<T>;
    __shared__ A partial[32][32];
    Part const part = partOf(shape.reducedCount, chunk);
    for (int64_t first = int64_t{blockIdx.x} * 32; first < shape.outCount; first += int64_t{gridDim.x} * 32)
    {
        int64_t const o = first + threadIdx.x;
        bool const active = o < shape.outCount;
        A acc = start<T>(fold);
        if (active)
        {
            acc = foldElements<T>(in, shape, offsetOf(shape.kept, o), part.begin + threadIdx.y, part.end, blockDim.y,
                fold.op, inScale, acc);
        }
        partial[threadIdx.y][threadIdx.x] = acc;
        __syncthreads();
        if (active && threadIdx.y == 0)
        {
            for (uint32_t y = 1; y < blockDim.y; ++y)
            {
                acc = combine(fold.op, acc, partial[y][threadIdx.x]);
            }
            finish<T>(out, partials, o, acc, fold, outScale);
        }
        __syncthreads(); // partial is written again by the next iteration.
    }
}

//! The second pass of a split reduction: folds each output's parts raw folds, a warp per output, 8 per block.
template <DataType T>
__global__ void reduceParts(
    Acc<T> const* partials, int64_t parts, Storage<T>* out, int64_t outCount, Fold const fold, float outScale)
{
    for (int64_t first = int64_t{blockIdx.x} * blockDim.y; first < outCount; first += int64_t{gridDim.x} * blockDim.y)
    {
        int64_t const o = first + threadIdx.y;
        Acc<T> acc = start<T>(fold);
        for (int64_t p = threadIdx.x; o < outCount && p < parts; p += 32)
        {
            acc = combine(fold.op, acc, partials[o * parts + p]);
        }
        acc = groupFold(fold.op, acc, 32);
        if (o < outCount && threadIdx.x == 0)
        {
            storeResult<T>(out, o, acc, fold, outScale);
        }
    }
}

//! Merges the input's axes into runs of reduced and kept axes, dropping extents of 1.
Shape makeShape(Dims const& dims, uint32_t axes)
{
    Shape shape;
    int64_t stride = 1;
    int32_t previous = -1; // The kind (0 kept, 1 reduced) of the last run started.
    for (int32_t i = dims.nbDims - 1; i >= 0; --i)
    {
        int64_t const extent = dims.d[i];
        bool const reduced = (axes >> i & 1U) != 0;
        (reduced ? shape.reducedCount : shape.outCount) *= extent;
        if (extent != 1)
        {
            Axes& run = reduced ? shape.reduced : shape.kept;
            if (previous == static_cast<int32_t>(reduced))
            {
                run.extent[run.nb - 1] *= extent;
            }
            else
            {
                run.extent[run.nb] = extent;
                run.stride[run.nb] = stride;
                ++run.nb;
            }
            previous = static_cast<int32_t>(reduced);
        }
        stride *= extent;
    }
    return shape;
}

//! How the kernels run: which kernel, its block, and the blocks along x (outputs) and y (parts of each output's
//! elements).
struct Plan
{
    bool rows{};
    dim3 block;
    int64_t blocks{};
    int64_t parts{1};
    int64_t chunk{}; //!< Elements of each output per part.
};

Plan makePlan(Shape const& shape)
{
    Plan plan;
    int64_t const n = shape.reducedCount;
    plan.rows = shape.reduced.nb > 0 && shape.reduced.stride[0] == 1 && shape.reduced.extent[0] >= 8;
    if (plan.rows)
    {
        uint32_t const threadsPerRow = n < 64 ? 8 : (n <= 512 ? 32 : (n <= 8192 ? 256 : 1024));
        uint32_t const rowsPerBlock = std::max(1U, 256U / threadsPerRow);
        plan.block = dim3(threadsPerRow, rowsPerBlock);
        plan.blocks = (shape.outCount + rowsPerBlock - 1) / rowsPerBlock;
    }
    else
    {
        plan.blocks = (shape.outCount + 31) / 32;
        // Few outputs: more threads split each one's elements.
        plan.block
            = dim3(32, static_cast<uint32_t>(std::min<int64_t>(std::max<int64_t>(n, 1), plan.blocks < 512 ? 32 : 8)));
    }
    // Too few blocks to fill the GPU, each with many elements: blockIdx.y splits each output's elements too.
    if (plan.blocks < kTargetBlocks / 4 && n >= 2 * kMinChunk)
    {
        plan.parts = std::min((kTargetBlocks + plan.blocks - 1) / plan.blocks, n / kMinChunk);
    }
    plan.chunk = (n + plan.parts - 1) / plan.parts;
    plan.blocks = std::min(plan.blocks, kMaxBlocks);
    return plan;
}

template <DataType T>
void launchReduce(Shape const& shape, Plan const& plan, Fold const& fold, void* workspace, DeviceTensor const& in,
    DeviceTensor const& out, cudaStream_t stream)
{
    auto const* src = static_cast<Storage<T> const*>(in.data);
    auto* dst = static_cast<Storage<T>*>(out.data);
    auto* partials = static_cast<Acc<T>*>(workspace);
    dim3 const grid(static_cast<uint32_t>(plan.blocks), static_cast<uint32_t>(plan.parts));
    if (plan.rows)
    {
        reduceRows<T>
            <<<grid, plan.block, 0, stream>>>(src, dst, partials, shape, plan.chunk, fold, in.scale, out.scale);
    }
    else
    {
        reduceColumns<T>
            <<<grid, plan.block, 0, stream>>>(src, dst, partials, shape, plan.chunk, fold, in.scale, out.scale);
    }
    if (partials != nullptr)
    {
        int64_t const blocks = std::min(kMaxBlocks, (shape.outCount + 7) / 8);
        reduceParts<T><<<static_cast<uint32_t>(blocks), dim3(32, 8), 0, stream>>>(
            partials, plan.parts, dst, shape.outCount, fold, out.scale);
    }
}

Error invalid(char const* name, std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, std::string("reduce ") + name + ": " + message};
}

} // namespace

Status runReduce(ReduceParams const& params, DeviceTensor const& in, DeviceTensor const& out, Launch const& launch)
{
    Expected<host::TensorDesc> const desc = host::inferReduce(params, {in.type, in.dims});
    if (!desc)
    {
        return desc.error();
    }
    host::ReduceOpInfo const& info = *host::findReduceOp(params.op);
    if (std::optional<std::string> const mismatch = host::outputMismatch(out, in.type, desc.value().dims))
    {
        return invalid(info.name, *mismatch);
    }
    for (auto const& [tensor, role] : {std::pair{&in, "input"}, std::pair{&out, "output"}})
    {
        if (std::optional<Error> const error = host::checkTensor(*tensor, role))
        {
            return invalid(info.name, error->message);
        }
    }
    Shape const shape = makeShape(in.dims, params.axes);
    bool const integer = host::numberKind(in.type) != host::NumberKind::kFLOATING;
    if (integer && params.op == Op::kAVG && shape.reducedCount == 0 && shape.outCount > 0)
    {
        return invalid(info.name,
            "the average of an empty integer reduction is undefined (input " + host::shapeString(in.dims) + ")");
    }
    if (shape.outCount == 0)
    {
        return host::Done{};
    }
    bool const wide = in.type == DataType::kINT64;
    Fold fold{params.op, shape.reducedCount, 0.F, static_cast<float>(info.floatingInit), 0};
    switch (params.op)
    {
    case Op::kPROD:
        fold.identity = 1.F;
        fold.integerStart = 1;
        break;
    case Op::kMAX:
        fold.identity = std::numeric_limits<float>::quiet_NaN();
        fold.integerStart = wide ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int32_t>::min();
        break;
    case Op::kMIN:
        fold.identity = std::numeric_limits<float>::quiet_NaN();
        fold.integerStart = wide ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int32_t>::max();
        break;
    default: break;
    }
    Plan const plan = makePlan(shape);
    void* workspace = nullptr;
    if (plan.parts > 1 && launch.libraries != nullptr)
    {
        int64_t const bytes = shape.outCount * plan.parts * (integer ? 8 : 4);
        Expected<void*> const block = launch.libraries->workspace(bytes, launch.stream);
        if (!block)
        {
            return block.error();
        }
        workspace = block.value();
    }
    // Without libraries (never so in an engine) a split runs as one pass: each block folds every part in turn.
    Plan const used = workspace != nullptr ? plan : Plan{plan.rows, plan.block, plan.blocks, 1, shape.reducedCount};
    dispatchType(in.type, [&]<DataType T>() {
        if constexpr (kReduces<T>)
        {
            launchReduce<T>(shape, used, fold, workspace, in, out, launch.stream);
        }
    });
    cudaError_t const status = cudaGetLastError();
    if (status != cudaSuccess)
    {
        return cudaFailure(status, "launching the reduce kernel");
    }
    return host::Done{};
}

} // namespace kiln::cuda
