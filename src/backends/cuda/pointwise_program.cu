// SPDX-License-Identifier: Apache-2.0
// CUDA fused point-wise program (LayerRecord::pointwise): the rules of backends/host/pointwise_program.h, checked by
// the host's check, and one kernel that computes every step of an element in float and stores the last once. Each
// step calls the device function of its unfused kernel (elementwise.cuh, unary.cuh, activation.cuh), so a program
// computes what its chain of kernels computes on kFLOAT tensors.
//
// The kernel takes the program by value (at most kMaxPointwiseSteps steps), the inputs' pointers (at most
// kMaxPointwiseInputs) and their strides in the output's dimensions merged as pointwise.cuh merges them: output extents
// of 1 dropped, neighbouring dimensions in which every input broadcasts or not alike made one. Layer-norm's tail,
// x [8, 128, 512] with mean and variance [8, 128, 1] and gamma and beta [1, 1, 512], is then of rank 2. The index
// arithmetic is 32-bit when the output has fewer than 2^31 elements.
//
// An element's values (its inputs' elements, then the steps' results) sit in a per-thread array that the steps index
// by operand: local memory, cached. The program, read by every thread alike, stays in the parameter space
// (__grid_constant__) rather than being copied per thread.
#include "backends/cuda/activation.cuh"
#include "backends/cuda/elements.cuh"
#include "backends/cuda/elementwise.cuh"
#include "backends/cuda/kernels.h"
#include "backends/cuda/launch.cuh"
#include "backends/cuda/pointwise.cuh"
#include "backends/cuda/unary.cuh"
#include "backends/host/pointwise_program.h"

#include <array>
#include <cstdint>
#include <string>

namespace kiln::cuda
{
namespace
{

using Kind = PointwiseStep::Kind;

constexpr int32_t kMaxSteps = static_cast<int32_t>(kMaxPointwiseSteps);
constexpr int32_t kMaxInputs = static_cast<int32_t>(kMaxPointwiseInputs);
constexpr int32_t kMaxRank = nvinfer1::Dims::MAX_DIMS;

//! A step as the kernel reads it. a and b are slots of the element's values: input k at k, step s at kMaxInputs + s
//! (b is a for one-operand steps).
struct Step
{
    Kind kind;
    int32_t op;
    float alpha;
    float beta;
    int32_t a;
    int32_t b;
};

struct Program
{
    int32_t nbInputs;
    int32_t nbSteps;
    Step steps[kMaxSteps];
};

//! The merged dimensions, in index type I: the output's extents, and each input's strides (0 where it broadcasts and
//! for the inputs the program does not have).
template <typename I>
struct Layout
{
    int32_t rank;
    I extents[kMaxRank];
    I strides[kMaxInputs][kMaxRank];
};

template <DataType T>
struct InputData
{
    Storage<T> const* data[kMaxInputs];
};

__device__ __forceinline__ float evaluate(Step const& step, float a, float b)
{
    switch (step.kind)
    {
    case Kind::kELEMENTWISE: return elementwise::apply(static_cast<nvinfer1::ElementWiseOperation>(step.op), a, b);
    case Kind::kUNARY: return unary::apply(static_cast<nvinfer1::UnaryOperation>(step.op), a);
    case Kind::kACTIVATION:
        return activation::apply(static_cast<nvinfer1::ActivationType>(step.op), a, step.alpha, step.beta);
    }
    return 0.F;
}

//! The offsets of output element i in each input (the layout's strides at i's coordinates).
template <typename I>
__device__ __forceinline__ void inputOffsets(Layout<I> const& layout, I i, I (&at)[kMaxInputs])
{
    I rest = i;
#pragma unroll
    for (int32_t d = kMaxRank - 1; d > 0; --d)
    {
        if (d < layout.rank)
        {
            I const extent = layout.extents[d];
            I const quotient = rest / extent;
            I const coordinate = rest - quotient * extent;
#pragma unroll
            for (int32_t k = 0; k < kMaxInputs; ++k)
            {
                at[k] += coordinate * layout.strides[k][d];
            }
            rest = quotient;
        }
    }
    if (layout.rank > 0)
    {
#pragma unroll
        for (int32_t k = 0; k < kMaxInputs; ++k)
        {
            at[k] += rest * layout.strides[k][0];
        }
    }
}

//! out[i] = the program on the inputs' elements that output element i reads, for i below count.
template <DataType T, typename I>
__global__ void __launch_bounds__(pointwise::kBlock) pointwiseProgramKernel(__grid_constant__ Program const program,
    __grid_constant__ Layout<I> const layout, __grid_constant__ InputData<T> const inputs, Storage<T>* out, I count)
{
    awaitPrerequisites();
    allowDependents();
    float values[kMaxInputs + kMaxSteps];
    I const stride = static_cast<I>(gridDim.x) * static_cast<I>(blockDim.x);
    for (I i = static_cast<I>(blockIdx.x) * static_cast<I>(blockDim.x) + static_cast<I>(threadIdx.x); i < count;
         i += stride)
    {
        // The loops run over every dimension and input, guarded, so that they unroll and read the layout by constant
        // indices (inputOffsets).
        I at[kMaxInputs]{};
        inputOffsets(layout, i, at);
#pragma unroll
        for (int32_t k = 0; k < kMaxInputs; ++k)
        {
            if (k < program.nbInputs)
            {
                values[k] = loadFloat<T>(inputs.data[k], static_cast<int64_t>(at[k]));
            }
        }
        float result = 0.F;
        for (int32_t s = 0; s < program.nbSteps; ++s)
        {
            Step const& step = program.steps[s];
            result = evaluate(step, values[step.a], values[step.b]);
            values[kMaxInputs + s] = result;
        }
        storeFloat<T>(out, static_cast<int64_t>(i), result);
    }
}

//! 16 bytes of elements of type T.
template <DataType T>
inline constexpr int32_t kVectorOf = static_cast<int32_t>(16 / sizeof(Storage<T>));

//! The program on kVectorOf<T> neighbouring elements per step of the loop: the launch checked that the innermost merged
//! dimension is a multiple of the vector and that each input's stride in it is 1 (read as one 16-byte load, aligned)
//! or 0 (one element for the whole vector: BERT's position embeddings against the batch's, a bias). vectors is the
//! element count divided by the vector.
template <DataType T, typename I>
__global__ void __launch_bounds__(pointwise::kBlock)
    pointwiseProgramVectorKernel(__grid_constant__ Program const program, __grid_constant__ Layout<I> const layout,
        __grid_constant__ InputData<T> const inputs, Storage<T>* out, I vectors)
{
    constexpr int32_t kVector = kVectorOf<T>;
    awaitPrerequisites();
    allowDependents();
    float values[kMaxInputs + kMaxSteps];
    I const stride = static_cast<I>(gridDim.x) * static_cast<I>(blockDim.x);
    for (I v = static_cast<I>(blockIdx.x) * static_cast<I>(blockDim.x) + static_cast<I>(threadIdx.x); v < vectors;
         v += stride)
    {
        I const first = v * static_cast<I>(kVector);
        I at[kMaxInputs]{};
        inputOffsets(layout, first, at);
        uint4 loaded[kMaxInputs];
#pragma unroll
        for (int32_t k = 0; k < kMaxInputs; ++k)
        {
            if (k < program.nbInputs && layout.strides[k][layout.rank - 1] != 0)
            {
                loaded[k] = *reinterpret_cast<uint4 const*>(inputs.data[k] + at[k]);
            }
        }
        uint4 stored;
        auto const* const lanes = reinterpret_cast<Storage<T> const*>(loaded);
        for (int32_t j = 0; j < kVector; ++j)
        {
#pragma unroll
            for (int32_t k = 0; k < kMaxInputs; ++k)
            {
                if (k < program.nbInputs)
                {
                    values[k] = layout.strides[k][layout.rank - 1] != 0
                        ? loadFloat<T>(lanes + k * kVector, j)
                        : loadFloat<T>(inputs.data[k], static_cast<int64_t>(at[k]));
                }
            }
            float result = 0.F;
            for (int32_t s = 0; s < program.nbSteps; ++s)
            {
                Step const& step = program.steps[s];
                result = evaluate(step, values[step.a], values[step.b]);
                values[kMaxInputs + s] = result;
            }
            storeFloat<T>(reinterpret_cast<Storage<T>*>(&stored), j, result);
        }
        *reinterpret_cast<uint4*>(out + first) = stored;
    }
}

//! Whether the vector kernel may run: the innermost merged extent a multiple of the vector, every input contiguous or
//! broadcast in it, and every pointer read or written by vector 16-byte aligned.
template <DataType T>
bool vectorizable(pointwise::BroadcastIndex<kMaxInputs> const& map, std::span<DeviceTensor const* const> inputs,
    DeviceTensor const& out)
{
    constexpr auto kVector = static_cast<int64_t>(kVectorOf<T>);
    auto const aligned = [](void const* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
    if (map.rank < 1 || map.extents[map.rank - 1] % kVector != 0 || !aligned(out.data))
    {
        return false;
    }
    for (std::size_t k = 0; k < inputs.size(); ++k)
    {
        int64_t const inner = map.strides[k][map.rank - 1];
        if (inner != 0 && (inner != 1 || !aligned(inputs[k]->data)))
        {
            return false;
        }
    }
    return true;
}

//! The layout of map (narrowed to I).
template <typename I>
Layout<I> layoutOf(pointwise::BroadcastIndex<kMaxInputs> const& map)
{
    Layout<I> layout{};
    layout.rank = map.rank;
    for (int32_t d = 0; d < map.rank; ++d)
    {
        layout.extents[d] = static_cast<I>(map.extents[d]);
        for (int32_t k = 0; k < kMaxInputs; ++k)
        {
            layout.strides[k][d] = static_cast<I>(map.strides[k][d]);
        }
    }
    return layout;
}

template <DataType T>
void launchProgram(Program const& program, pointwise::BroadcastIndex<kMaxInputs> const& map,
    std::span<DeviceTensor const* const> inputs, DeviceTensor const& out, int64_t count, cudaStream_t stream)
{
    InputData<T> data{};
    for (std::size_t k = 0; k < inputs.size(); ++k)
    {
        data.data[k] = static_cast<Storage<T> const*>(inputs[k]->data);
    }
    auto* const typedOut = static_cast<Storage<T>*>(out.data);
    if (vectorizable<T>(map, inputs, out))
    {
        int64_t const vectors = count / kVectorOf<T>;
        if (map.narrow)
        {
            launchOverlapped<pointwiseProgramVectorKernel<T, uint32_t>>(pointwise::grid(vectors), pointwise::kBlock, 0,
                stream, program, layoutOf<uint32_t>(map), data, typedOut, static_cast<uint32_t>(vectors));
        }
        else
        {
            launchOverlapped<pointwiseProgramVectorKernel<T, uint64_t>>(pointwise::grid(vectors), pointwise::kBlock, 0,
                stream, program, layoutOf<uint64_t>(map), data, typedOut, static_cast<uint64_t>(vectors));
        }
        return;
    }
    if (map.narrow)
    {
        launchOverlapped<pointwiseProgramKernel<T, uint32_t>>(pointwise::grid(count), pointwise::kBlock, 0, stream,
            program, layoutOf<uint32_t>(map), data, typedOut, static_cast<uint32_t>(count));
    }
    else
    {
        launchOverlapped<pointwiseProgramKernel<T, uint64_t>>(pointwise::grid(count), pointwise::kBlock, 0, stream,
            program, layoutOf<uint64_t>(map), data, typedOut, static_cast<uint64_t>(count));
    }
}

Error invalid(std::string const& what)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "pointwise program: " + what};
}

//! The slot of a checked operand (Step).
int32_t slotOf(int32_t operand) noexcept
{
    return operand >= 0 ? operand : kMaxInputs + (-1 - operand);
}

} // namespace

Status runPointwiseProgram(std::span<PointwiseStep const> program, std::span<DeviceTensor const* const> inputs,
    DeviceTensor const& out, Launch const& launch)
{
    if (program.size() > kMaxPointwiseSteps)
    {
        return invalid("it has " + std::to_string(program.size()) + " steps; the CUDA kernel computes at most "
            + std::to_string(kMaxPointwiseSteps));
    }
    if (inputs.size() > kMaxPointwiseInputs)
    {
        return invalid("it has " + std::to_string(inputs.size()) + " inputs; the CUDA kernel takes at most "
            + std::to_string(kMaxPointwiseInputs));
    }
    std::array<host::TensorDesc, kMaxPointwiseInputs> descs{};
    // Inputs the program does not have: all 1, they broadcast everywhere and never stop a merge.
    std::array<nvinfer1::Dims, kMaxPointwiseInputs> dims{};
    dims.fill(nvinfer1::Dims{out.dims.nbDims, {}});
    for (nvinfer1::Dims& unused : dims)
    {
        for (int32_t d = 0; d < unused.nbDims && d < kMaxRank; ++d)
        {
            unused.d[d] = 1;
        }
    }
    for (std::size_t k = 0; k < inputs.size(); ++k)
    {
        if (inputs[k] == nullptr)
        {
            return invalid("input " + std::to_string(k) + " is missing");
        }
        descs[k] = {inputs[k]->type, inputs[k]->dims};
        dims[k] = inputs[k]->dims;
    }
    if (Status const checked
        = host::checkPointwiseProgram(program, std::span(descs).first(inputs.size()), {out.type, out.dims});
        !checked)
    {
        return checked;
    }
    for (std::size_t k = 0; k < inputs.size(); ++k)
    {
        if (pointwise::checkTensor(*inputs[k], "input").has_value())
        {
            // The message names the input: made only for a refusal.
            std::string const role = "input " + std::to_string(k);
            return invalid(pointwise::checkTensor(*inputs[k], role.c_str()).value_or(Error{}).message);
        }
    }
    if (std::optional<Error> const error = pointwise::checkTensor(out, "output"))
    {
        return invalid(error->message);
    }
    int64_t const count = host::elementCount(out.dims);
    if (count == 0)
    {
        return host::Done{};
    }

    Program steps{};
    steps.nbInputs = static_cast<int32_t>(inputs.size());
    steps.nbSteps = static_cast<int32_t>(program.size());
    for (std::size_t s = 0; s < program.size(); ++s)
    {
        PointwiseStep const& step = program[s];
        int32_t const a = slotOf(step.a);
        steps.steps[s]
            = {step.kind, step.op, step.alpha, step.beta, a, step.kind == Kind::kELEMENTWISE ? slotOf(step.b) : a};
    }
    pointwise::BroadcastIndex<kMaxInputs> const map = pointwise::broadcastIndex<kMaxInputs>(out.dims, dims);
    switch (out.type)
    {
    case DataType::kFLOAT: launchProgram<DataType::kFLOAT>(steps, map, inputs, out, count, launch.stream); break;
    case DataType::kHALF: launchProgram<DataType::kHALF>(steps, map, inputs, out, count, launch.stream); break;
    case DataType::kBF16: launchProgram<DataType::kBF16>(steps, map, inputs, out, count, launch.stream); break;
    default: return pointwise::noKernel(std::string("a pointwise program of ") + dataTypeName(out.type));
    }
    return pointwise::launched("the point-wise program kernel");
}

} // namespace kiln::cuda
