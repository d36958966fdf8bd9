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
// A thread computes one element, or where the innermost merged dimension allows, 16 or 32 bytes of neighbouring ones
// ("lanes") read and written in 16-byte vectors. It walks the steps once for all of its lanes: each step's operation
// is chosen once (no switch per element), the previous step's result stays in registers, inputs are read where a step
// takes them (at offsets from the coordinates found once per group), and only a result that a later step than the
// next one reads is saved in local memory. The program, read by
// every thread alike, stays in the parameter space (__grid_constant__) rather than being copied per thread.
#include "backends/cuda/activation.cuh"
#include "backends/cuda/elements.cuh"
#include "backends/cuda/elementwise.cuh"
#include "backends/cuda/kernels.h"
#include "backends/cuda/launch.cuh"
#include "backends/cuda/pointwise.cuh"
#include "backends/cuda/unary.cuh"
#include "backends/host/pointwise_program.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>

namespace kiln::cuda
{
namespace
{

using Kind = PointwiseStep::Kind;

constexpr int32_t kMaxSteps = static_cast<int32_t>(kMaxPointwiseSteps);
constexpr int32_t kMaxInputs = static_cast<int32_t>(kMaxPointwiseInputs);
constexpr int32_t kMaxRank = nvinfer1::Dims::MAX_DIMS;

//! Where a step's operand comes from (Step::a and b): input k (0 to kMaxInputs - 1), the previous step's result,
//! which the kernel keeps in registers (kPrevious), or an earlier step's result that its step saved in a slot
//! (kSaved + slot). Slots are reused once their value's last reader has run.
constexpr int32_t kPrevious = -1;
constexpr int32_t kSaved = kMaxInputs;

//! The slots a thread of the one-lane kernel has (one per step, so every program fits), and a thread of the wide
//! kernels: a program whose saved values need more runs one lane per thread.
constexpr int32_t kSlots = kMaxSteps;
constexpr int32_t kWideSlots = 4;

//! The slots of the kernel of L lanes.
template <int32_t L>
inline constexpr int32_t kSlotsOf = L == 1 ? kSlots : kWideSlots;

//! A step as the kernel reads it: its operands' sources, and whether a step after the next reads its result (which the
//! kernel then saves in local memory).
struct Step
{
    Kind kind;
    int32_t op;
    float alpha;
    float beta;
    int32_t a;
    int32_t b;    //!< a for one-operand steps (never read).
    int32_t save; //!< The slot that the result is saved in, or -1.
};

struct Program
{
    int32_t nbInputs;
    int32_t nbSteps;
    int32_t nbSlots;         //!< The slots that the steps save in.
    uint32_t innerBroadcast; //!< Bit k: input k has stride 0 in the innermost merged dimension.
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

//! f(std::integral_constant<int32_t, op>{}) for the runtime op in [Low, High), found by halving the range: one
//! instantiation per operation, so that a step's operation is chosen once for all of a thread's lanes and the lanes'
//! loop computes it without a switch. The host's check keeps op in range.
template <int32_t Low, int32_t High, typename F>
__device__ __forceinline__ void withOp(int32_t op, F&& f)
{
    if constexpr (High - Low == 1)
    {
        f(std::integral_constant<int32_t, Low>{});
    }
    else
    {
        constexpr int32_t kMiddle = (Low + High) / 2;
        if (op < kMiddle)
        {
            withOp<Low, kMiddle>(op, f);
        }
        else
        {
            withOp<kMiddle, High>(op, f);
        }
    }
}

//! result = step on a (and b), lane by lane.
template <int32_t L>
__device__ __forceinline__ void evaluate(Step const& step, float const (&a)[L], float const (&b)[L], float (&result)[L])
{
    switch (step.kind)
    {
    case Kind::kELEMENTWISE:
        withOp<0, nvinfer1::EnumMax<nvinfer1::ElementWiseOperation>()>(step.op, [&](auto op) {
#pragma unroll
            for (int32_t j = 0; j < L; ++j)
            {
                result[j]
                    = elementwise::apply(static_cast<nvinfer1::ElementWiseOperation>(decltype(op)::value), a[j], b[j]);
            }
        });
        return;
    case Kind::kUNARY:
        withOp<0, nvinfer1::EnumMax<nvinfer1::UnaryOperation>()>(step.op, [&](auto op) {
#pragma unroll
            for (int32_t j = 0; j < L; ++j)
            {
                result[j] = unary::apply(static_cast<nvinfer1::UnaryOperation>(decltype(op)::value), a[j]);
            }
        });
        return;
    case Kind::kACTIVATION:
        withOp<0, nvinfer1::EnumMax<nvinfer1::ActivationType>()>(step.op, [&](auto op) {
#pragma unroll
            for (int32_t j = 0; j < L; ++j)
            {
                result[j] = activation::apply(
                    static_cast<nvinfer1::ActivationType>(decltype(op)::value), a[j], step.alpha, step.beta);
            }
        });
        return;
    }
}

//! The coordinates of output element i in the merged dimensions below the layout's rank.
template <typename I>
__device__ __forceinline__ void coordinatesOf(Layout<I> const& layout, I i, I (&coordinates)[kMaxRank])
{
    I rest = i;
#pragma unroll
    for (int32_t d = kMaxRank - 1; d > 0; --d)
    {
        if (d < layout.rank)
        {
            I const extent = layout.extents[d];
            I const quotient = rest / extent;
            coordinates[d] = rest - quotient * extent;
            rest = quotient;
        }
    }
    coordinates[0] = rest;
}

//! The offset in input k of the element at coordinates (k at run time: the layout is read from the parameter space).
template <typename I>
__device__ __forceinline__ I offsetIn(Layout<I> const& layout, int32_t k, I const (&coordinates)[kMaxRank])
{
    I offset = 0;
#pragma unroll
    for (int32_t d = 0; d < kMaxRank; ++d)
    {
        if (d < layout.rank)
        {
            offset += coordinates[d] * layout.strides[k][d];
        }
    }
    return offset;
}

//! The value of operand source for the L elements from the thread's group: the previous step's result, a saved one, or
//! the input's elements at coordinates (L > 1: contiguous, read in 16-byte loads, or one element for all lanes
//! where the input broadcasts in the innermost dimension).
template <DataType T, typename I, int32_t L>
__device__ __forceinline__ void fetch(int32_t source, Program const& program, Layout<I> const& layout,
    InputData<T> const& inputs, I const (&coordinates)[kMaxRank], float const (&previous)[L],
    float const (&saved)[kSlotsOf<L>][L], float (&value)[L])
{
    if (source == kPrevious)
    {
#pragma unroll
        for (int32_t j = 0; j < L; ++j)
        {
            value[j] = previous[j];
        }
        return;
    }
    if (source >= kSaved)
    {
#pragma unroll
        for (int32_t j = 0; j < L; ++j)
        {
            value[j] = saved[source - kSaved][j];
        }
        return;
    }
    Storage<T> const* const p = inputs.data[source] + offsetIn(layout, source, coordinates);
    if constexpr (L == 1)
    {
        value[0] = loadFloat<T>(p, 0);
    }
    else if (((program.innerBroadcast >> source) & 1U) != 0)
    {
        float const x = loadFloat<T>(p, 0);
#pragma unroll
        for (int32_t j = 0; j < L; ++j)
        {
            value[j] = x;
        }
    }
    else
    {
        constexpr int32_t kLoads = L * static_cast<int32_t>(sizeof(Storage<T>)) / 16;
        uint4 loaded[kLoads];
#pragma unroll
        for (int32_t v = 0; v < kLoads; ++v)
        {
            loaded[v] = reinterpret_cast<uint4 const*>(p)[v];
        }
        Storage<T> elements[L];
        memcpy(elements, loaded, sizeof(elements));
#pragma unroll
        for (int32_t j = 0; j < L; ++j)
        {
            value[j] = loadFloat<T>(elements, j);
        }
    }
}

//! out = the program, for L neighbouring output elements per thread and step of the loop (groups: the element count
//! divided by L). L = 1 takes every layout. L > 1 needs what vectorizable checks: the innermost merged extent a
//! multiple of L, each input's stride in it 1 (read in 16-byte loads) or 0, and 16-byte aligned tensors.
//!
//! The previous step's result stays in registers, inputs are read where a step takes them (a second read of an input
//! hits the cache), and only a result that a later step than the next one reads goes to local memory. Each step's
//! operation is chosen once for the L lanes (evaluate).
template <DataType T, typename I, int32_t L>
__global__ void __launch_bounds__(pointwise::kBlock) pointwiseProgramKernel(__grid_constant__ Program const program,
    __grid_constant__ Layout<I> const layout, __grid_constant__ InputData<T> const inputs, Storage<T>* out, I groups)
{
    awaitPrerequisites();
    allowDependents();
    float saved[kSlotsOf<L>][L];
    I const stride = static_cast<I>(gridDim.x) * static_cast<I>(blockDim.x);
    for (I g = static_cast<I>(blockIdx.x) * static_cast<I>(blockDim.x) + static_cast<I>(threadIdx.x); g < groups;
         g += stride)
    {
        I const first = g * static_cast<I>(L);
        I coordinates[kMaxRank]{};
        coordinatesOf(layout, first, coordinates);
        float previous[L]{};
        for (int32_t s = 0; s < program.nbSteps; ++s)
        {
            Step const& step = program.steps[s];
            float a[L];
            float b[L];
            fetch<T, I, L>(step.a, program, layout, inputs, coordinates, previous, saved, a);
            if (step.kind == Kind::kELEMENTWISE)
            {
                fetch<T, I, L>(step.b, program, layout, inputs, coordinates, previous, saved, b);
            }
            evaluate<L>(step, a, b, previous);
            if (step.save >= 0)
            {
#pragma unroll
                for (int32_t j = 0; j < L; ++j)
                {
                    saved[step.save][j] = previous[j];
                }
            }
        }
        if constexpr (L == 1)
        {
            storeFloat<T>(out, static_cast<int64_t>(first), previous[0]);
        }
        else
        {
            Storage<T> results[L];
#pragma unroll
            for (int32_t j = 0; j < L; ++j)
            {
                storeFloat<T>(results, j, previous[j]);
            }
            constexpr int32_t kStores = L * static_cast<int32_t>(sizeof(Storage<T>)) / 16;
            uint4 stored[kStores];
            memcpy(stored, results, sizeof(results));
#pragma unroll
            for (int32_t v = 0; v < kStores; ++v)
            {
                reinterpret_cast<uint4*>(out + first)[v] = stored[v];
            }
        }
    }
}

//! The lanes of the wide kernels: 32 bytes of elements (16 of kHALF and kBF16, 8 of kFLOAT), or 16 bytes where the
//! innermost extent is a multiple of those only.
template <DataType T>
inline constexpr int32_t kVectorOf = static_cast<int32_t>(16 / sizeof(Storage<T>));
template <DataType T>
inline constexpr int32_t kWideOf = 2 * kVectorOf<T>;

//! The lanes that the kernel may run with (1 when no vector fits): the innermost merged extent a multiple of them,
//! every input contiguous or broadcast in it, every pointer read or written by vector 16-byte aligned, and the
//! program's saved values within the wide kernel's slots.
template <DataType T>
int32_t lanesFor(Program const& program, pointwise::BroadcastIndex<kMaxInputs> const& map,
    std::span<DeviceTensor const* const> inputs, DeviceTensor const& out)
{
    auto const aligned = [](void const* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
    if (map.rank < 1 || !aligned(out.data))
    {
        return 1;
    }
    for (std::size_t k = 0; k < inputs.size(); ++k)
    {
        int64_t const inner = map.strides[k][map.rank - 1];
        if (inner != 0 && (inner != 1 || !aligned(inputs[k]->data)))
        {
            return 1;
        }
    }
    int64_t const extent = map.extents[map.rank - 1];
    if (program.nbSlots > kWideSlots)
    {
        return 1;
    }
    return extent % kWideOf<T> == 0 ? kWideOf<T> : extent % kVectorOf<T> == 0 ? kVectorOf<T> : 1;
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

template <DataType T, typename I, int32_t L>
void launchLanes(Program const& program, pointwise::BroadcastIndex<kMaxInputs> const& map, InputData<T> const& data,
    Storage<T>* out, int64_t count, cudaStream_t stream)
{
    int64_t const groups = count / L;
    launchOverlapped<pointwiseProgramKernel<T, I, L>>(pointwise::grid(groups), pointwise::kBlock, 0, stream, program,
        layoutOf<I>(map), data, out, static_cast<I>(groups));
}

template <DataType T, typename I>
void launchIndexed(int32_t lanes, Program const& program, pointwise::BroadcastIndex<kMaxInputs> const& map,
    InputData<T> const& data, Storage<T>* out, int64_t count, cudaStream_t stream)
{
    if (lanes == kWideOf<T>)
    {
        launchLanes<T, I, kWideOf<T>>(program, map, data, out, count, stream);
    }
    else if (lanes == kVectorOf<T>)
    {
        launchLanes<T, I, kVectorOf<T>>(program, map, data, out, count, stream);
    }
    else
    {
        launchLanes<T, I, 1>(program, map, data, out, count, stream);
    }
}

template <DataType T>
void launchProgram(Program program, pointwise::BroadcastIndex<kMaxInputs> const& map,
    std::span<DeviceTensor const* const> inputs, DeviceTensor const& out, int64_t count, cudaStream_t stream)
{
    InputData<T> data{};
    for (std::size_t k = 0; k < inputs.size(); ++k)
    {
        data.data[k] = static_cast<Storage<T> const*>(inputs[k]->data);
        if (map.rank > 0 && map.strides[k][map.rank - 1] == 0)
        {
            program.innerBroadcast |= 1U << k;
        }
    }
    auto* const typedOut = static_cast<Storage<T>*>(out.data);
    int32_t const lanes = lanesFor<T>(program, map, inputs, out);
    if (map.narrow)
    {
        launchIndexed<T, uint32_t>(lanes, program, map, data, typedOut, count, stream);
    }
    else
    {
        launchIndexed<T, uint64_t>(lanes, program, map, data, typedOut, count, stream);
    }
}

Error invalid(std::string const& what)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "pointwise program: " + what};
}

//! The kernel's form of program: each operand's source, and the slots of the results that a step after the next one
//! reads, allocated by their values' lifetimes.
Program compile(std::span<PointwiseStep const> program, std::size_t nbInputs)
{
    auto const size = static_cast<int32_t>(program.size());
    // lastReader[e]: the last step after e + 1 that reads step e's result (-1: none, the result is not saved).
    std::array<int32_t, kMaxSteps> lastReader{};
    lastReader.fill(-1);
    for (int32_t t = 0; t < size; ++t)
    {
        PointwiseStep const& step = program[t];
        for (int32_t const operand : {step.a, step.kind == Kind::kELEMENTWISE ? step.b : step.a})
        {
            int32_t const e = -1 - operand;
            if (operand < 0 && e < t - 1)
            {
                lastReader[e] = t;
            }
        }
    }
    Program compiled{};
    compiled.nbInputs = static_cast<int32_t>(nbInputs);
    compiled.nbSteps = size;
    std::array<int32_t, kMaxSteps> slotOf{};
    std::array<int32_t, kSlots> occupant{}; // the step whose result a slot holds, or -1
    occupant.fill(-1);
    auto const sourceOf = [&](int32_t operand, int32_t t) {
        int32_t const e = -1 - operand;
        return operand >= 0 ? operand : e == t - 1 ? kPrevious : kSaved + slotOf[e];
    };
    for (int32_t t = 0; t < size; ++t)
    {
        PointwiseStep const& step = program[t];
        int32_t const a = sourceOf(step.a, t);
        int32_t const b = step.kind == Kind::kELEMENTWISE ? sourceOf(step.b, t) : a;
        int32_t save = -1;
        if (lastReader[t] >= 0)
        {
            // A slot whose value no step from t on reads (its readers fetch before t saves).
            for (int32_t slot = 0; slot < kSlots && save < 0; ++slot)
            {
                if (occupant[slot] < 0 || lastReader[occupant[slot]] <= t)
                {
                    save = slot;
                }
            }
            occupant[save] = t;
            slotOf[t] = save;
            compiled.nbSlots = std::max(compiled.nbSlots, save + 1);
        }
        compiled.steps[t] = {step.kind, step.op, step.alpha, step.beta, a, b, save};
    }
    return compiled;
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

    Program const steps = compile(program, inputs.size());
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
