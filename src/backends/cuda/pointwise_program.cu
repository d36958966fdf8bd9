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
// Registers, not local memory: before the launch the program's values (its inputs, then its steps' results) are given
// slots, as a register allocator would: input k starts in slot k, and each step's result takes the lowest slot free
// once its operands are read (a value's slot is free after its last reader). A thread holds its slots in registers and
// reaches them through a switch on the slot, each case of which names its slot by a constant, so the steps, read by
// every thread alike from the parameter space (__grid_constant__), run as uniform branches. A program that needs more
// than kSlots values at once runs in the same kernel with one slot per value (kMaxInputs + kMaxSteps), indexed at run
// time: local memory, as every program did before.
//
// Each thread computes kLanes consecutive output elements (pointwise.cuh), so each step's branches serve four
// elements. When the innermost merged dimension is a multiple of kLanes and every pointer is aligned to a Pack, the
// group's elements share their outer coordinates: one index computation, a Pack load per input that reads the
// innermost dimension (one element repeated for an input that broadcasts along it) and one Pack store; otherwise each
// lane computes its own index and loads and stores one element.
#include "backends/cuda/activation.cuh"
#include "backends/cuda/elements.cuh"
#include "backends/cuda/elementwise.cuh"
#include "backends/cuda/kernels.h"
#include "backends/cuda/pointwise.cuh"
#include "backends/cuda/unary.cuh"
#include "backends/host/pointwise_program.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace kiln::cuda
{
namespace
{

using Kind = PointwiseStep::Kind;

constexpr int32_t kMaxSteps = static_cast<int32_t>(kMaxPointwiseSteps);
constexpr int32_t kMaxInputs = static_cast<int32_t>(kMaxPointwiseInputs);
constexpr int32_t kMaxRank = nvinfer1::Dims::MAX_DIMS;
constexpr int32_t kLanes = pointwise::kLanes;
//! Slots of the register kernel; one per value (never short) for the local-memory one.
constexpr int32_t kSlots = 8;
constexpr int32_t kValueSlots = kMaxInputs + kMaxSteps;
static_assert(kSlots >= kMaxInputs, "every input starts in its own slot");

//! A step as the kernel reads it: slots a and b (b is a for one-operand steps) in, slot out.
struct Step
{
    Kind kind;
    int32_t op;
    float alpha;
    float beta;
    int32_t a;
    int32_t b;
    int32_t out;
};

struct Program
{
    int32_t nbInputs;
    int32_t nbSteps;
    int32_t result; //!< The slot of the last step's result.
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

//! One value of the kLanes elements of a thread.
struct Lanes
{
    float at[kLanes];
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

//! Slot s of slots: a switch whose cases index by constants (registers) for kSlots, an index otherwise.
template <int32_t N>
__device__ __forceinline__ Lanes read(Lanes const (&slots)[N], int32_t s)
{
    if constexpr (N == kSlots)
    {
        switch (s)
        {
        case 0: return slots[0];
        case 1: return slots[1];
        case 2: return slots[2];
        case 3: return slots[3];
        case 4: return slots[4];
        case 5: return slots[5];
        case 6: return slots[6];
        default: return slots[7];
        }
    }
    else
    {
        return slots[s];
    }
}

template <int32_t N>
__device__ __forceinline__ void write(Lanes (&slots)[N], int32_t s, Lanes const& value)
{
    if constexpr (N == kSlots)
    {
        switch (s)
        {
        case 0: slots[0] = value; break;
        case 1: slots[1] = value; break;
        case 2: slots[2] = value; break;
        case 3: slots[3] = value; break;
        case 4: slots[4] = value; break;
        case 5: slots[5] = value; break;
        case 6: slots[6] = value; break;
        default: slots[7] = value; break;
        }
    }
    else
    {
        slots[s] = value;
    }
}

//! The linear index of the element each input reads for output element i. The loops run over every dimension and
//! input, guarded, so that they unroll and read the layout by constant indices.
template <typename I>
__device__ __forceinline__ void inputOffsets(Layout<I> const& layout, I i, I (&at)[kMaxInputs])
{
#pragma unroll
    for (int32_t k = 0; k < kMaxInputs; ++k)
    {
        at[k] = 0;
    }
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
    if (layout.rank > 0) // the outermost coordinate needs no remainder: i < count
    {
#pragma unroll
        for (int32_t k = 0; k < kMaxInputs; ++k)
        {
            at[k] += rest * layout.strides[k][0];
        }
    }
}

//! out[i] = the program on the inputs' elements that output element i reads, for i below count; each thread takes
//! groups of kLanes elements, N slots, Packs when packed (count a multiple of kLanes then).
template <DataType T, typename I, int32_t N, bool packed>
__global__ void __launch_bounds__(pointwise::kBlock) pointwiseProgramKernel(__grid_constant__ Program const program,
    __grid_constant__ Layout<I> const layout, __grid_constant__ InputData<T> const inputs, Storage<T>* out, I count)
{
    I const groups = (count + kLanes - 1) / kLanes;
    I const stride = static_cast<I>(gridDim.x) * static_cast<I>(blockDim.x);
    for (I g = static_cast<I>(blockIdx.x) * static_cast<I>(blockDim.x) + static_cast<I>(threadIdx.x); g < groups;
         g += stride)
    {
        I const first = g * kLanes;
        Lanes slots[N];
        if constexpr (packed)
        {
            I at[kMaxInputs];
            inputOffsets(layout, first, at);
#pragma unroll
            for (int32_t k = 0; k < kMaxInputs; ++k)
            {
                if (k >= program.nbInputs)
                {
                    continue;
                }
                if (layout.strides[k][layout.rank - 1] != 0) // reads the innermost dimension: at[k] is a Pack's
                {
                    pointwise::loadPack<T>(inputs.data[k], static_cast<int64_t>(at[k] / kLanes), slots[k].at);
                }
                else
                {
                    float const value = loadFloat<T>(inputs.data[k], static_cast<int64_t>(at[k]));
#pragma unroll
                    for (int32_t e = 0; e < kLanes; ++e)
                    {
                        slots[k].at[e] = value;
                    }
                }
            }
        }
        else
        {
#pragma unroll
            for (int32_t e = 0; e < kLanes; ++e)
            {
                // Lanes past the end compute on the last element again; only the lanes below count are stored.
                I const i = first + static_cast<I>(e) < count ? first + static_cast<I>(e) : count - 1;
                I at[kMaxInputs];
                inputOffsets(layout, i, at);
#pragma unroll
                for (int32_t k = 0; k < kMaxInputs; ++k)
                {
                    if (k < program.nbInputs)
                    {
                        slots[k].at[e] = loadFloat<T>(inputs.data[k], static_cast<int64_t>(at[k]));
                    }
                }
            }
        }
        for (int32_t s = 0; s < program.nbSteps; ++s)
        {
            Step const& step = program.steps[s];
            Lanes const a = read(slots, step.a);
            Lanes const b = read(slots, step.b);
            Lanes result;
#pragma unroll
            for (int32_t e = 0; e < kLanes; ++e)
            {
                result.at[e] = evaluate(step, a.at[e], b.at[e]);
            }
            write(slots, step.out, result);
        }
        Lanes const result = read(slots, program.result);
        if constexpr (packed)
        {
            pointwise::storePack<T>(out, static_cast<int64_t>(g), result.at);
        }
        else
        {
#pragma unroll
            for (int32_t e = 0; e < kLanes; ++e)
            {
                if (first + static_cast<I>(e) < count)
                {
                    storeFloat<T>(out, static_cast<int64_t>(first + static_cast<I>(e)), result.at[e]);
                }
            }
        }
    }
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

//! The value index of a checked operand: input k is k, step s nbInputs + s.
int32_t valueOf(int32_t operand, int32_t nbInputs) noexcept
{
    return operand >= 0 ? operand : nbInputs + (-1 - operand);
}

//! The kernel's program for checked steps on nbInputs inputs, its values in at most slots slots (see the file
//! comment); nullopt when more values than that live at once.
std::optional<Program> allocateSlots(std::span<PointwiseStep const> steps, int32_t nbInputs, int32_t slots)
{
    auto const nbSteps = static_cast<int32_t>(steps.size());
    // The last step that reads each value (the last step's result is read after the last step).
    std::array<int32_t, kValueSlots> lastRead{};
    lastRead.fill(-1);
    for (int32_t s = 0; s < nbSteps; ++s)
    {
        PointwiseStep const& step = steps[static_cast<std::size_t>(s)];
        lastRead[static_cast<std::size_t>(valueOf(step.a, nbInputs))] = s;
        if (step.kind == Kind::kELEMENTWISE)
        {
            lastRead[static_cast<std::size_t>(valueOf(step.b, nbInputs))] = s;
        }
    }
    lastRead[static_cast<std::size_t>(nbInputs + nbSteps - 1)] = nbSteps;
    std::array<int32_t, kValueSlots> slotOf{};
    std::array<bool, kValueSlots> busy{};
    for (int32_t k = 0; k < nbInputs; ++k)
    {
        slotOf[static_cast<std::size_t>(k)] = k;
        busy[static_cast<std::size_t>(k)] = lastRead[static_cast<std::size_t>(k)] >= 0;
    }
    Program program{};
    program.nbInputs = nbInputs;
    program.nbSteps = nbSteps;
    for (int32_t s = 0; s < nbSteps; ++s)
    {
        PointwiseStep const& step = steps[static_cast<std::size_t>(s)];
        auto const a = static_cast<std::size_t>(valueOf(step.a, nbInputs));
        auto const b = step.kind == Kind::kELEMENTWISE ? static_cast<std::size_t>(valueOf(step.b, nbInputs)) : a;
        for (std::size_t const value : {a, b})
        {
            if (lastRead[value] == s)
            {
                busy[static_cast<std::size_t>(slotOf[value])] = false;
            }
        }
        auto const free = std::find(busy.begin(), busy.begin() + slots, false);
        if (free == busy.begin() + slots)
        {
            return std::nullopt;
        }
        auto const value = static_cast<std::size_t>(nbInputs + s);
        slotOf[value] = static_cast<int32_t>(free - busy.begin());
        *free = lastRead[value] > s;
        program.steps[s] = {step.kind, step.op, step.alpha, step.beta, slotOf[a], slotOf[b], slotOf[value]};
    }
    program.result = slotOf[static_cast<std::size_t>(nbInputs + nbSteps - 1)];
    return program;
}

template <DataType T, typename I, int32_t N, bool packed>
void launchWith(Program const& program, Layout<I> const& layout, InputData<T> const& data, Storage<T>* out,
    int64_t count, cudaStream_t stream)
{
    pointwiseProgramKernel<T, I, N, packed>
        <<<pointwise::grid((count + kLanes - 1) / kLanes), pointwise::kBlock, 0, stream>>>(
            program, layout, data, out, static_cast<I>(count));
}

template <DataType T, typename I>
void launchIndexed(Program const& program, bool registers, bool packed,
    pointwise::BroadcastIndex<kMaxInputs> const& map, InputData<T> const& data, Storage<T>* out, int64_t count,
    cudaStream_t stream)
{
    Layout<I> const layout = layoutOf<I>(map);
    if (!registers)
    {
        launchWith<T, I, kValueSlots, false>(program, layout, data, out, count, stream);
    }
    else if (packed)
    {
        launchWith<T, I, kSlots, true>(program, layout, data, out, count, stream);
    }
    else
    {
        launchWith<T, I, kSlots, false>(program, layout, data, out, count, stream);
    }
}

template <DataType T>
void launchProgram(Program const& program, bool registers, pointwise::BroadcastIndex<kMaxInputs> const& map,
    std::span<DeviceTensor const* const> inputs, DeviceTensor const& out, int64_t count, cudaStream_t stream)
{
    InputData<T> data{};
    // Packs when the innermost merged extent is a multiple of kLanes and every pointer is aligned to a Pack.
    bool packed = map.rank > 0 && map.extents[map.rank - 1] % kLanes == 0 && pointwise::packable<T>(count, {out.data});
    for (std::size_t k = 0; k < inputs.size(); ++k)
    {
        data.data[k] = static_cast<Storage<T> const*>(inputs[k]->data);
        packed = packed && pointwise::packable<T>(count, {inputs[k]->data});
    }
    auto* const typedOut = static_cast<Storage<T>*>(out.data);
    if (map.narrow)
    {
        launchIndexed<T, uint32_t>(program, registers, packed, map, data, typedOut, count, stream);
    }
    else
    {
        launchIndexed<T, uint64_t>(program, registers, packed, map, data, typedOut, count, stream);
    }
}

Error invalid(std::string const& what)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "pointwise program: " + what};
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

    auto const nbInputs = static_cast<int32_t>(inputs.size());
    std::optional<Program> const inRegisters = allocateSlots(program, nbInputs, kSlots);
    Program const steps = inRegisters ? *inRegisters : *allocateSlots(program, nbInputs, kValueSlots);
    bool const registers = inRegisters.has_value();
    pointwise::BroadcastIndex<kMaxInputs> const map = pointwise::broadcastIndex<kMaxInputs>(out.dims, dims);
    switch (out.type)
    {
    case DataType::kFLOAT:
        launchProgram<DataType::kFLOAT>(steps, registers, map, inputs, out, count, launch.stream);
        break;
    case DataType::kHALF:
        launchProgram<DataType::kHALF>(steps, registers, map, inputs, out, count, launch.stream);
        break;
    case DataType::kBF16:
        launchProgram<DataType::kBF16>(steps, registers, map, inputs, out, count, launch.stream);
        break;
    default: return pointwise::noKernel(std::string("a pointwise program of ") + dataTypeName(out.type));
    }
    return pointwise::launched("the point-wise program kernel");
}

} // namespace kiln::cuda
