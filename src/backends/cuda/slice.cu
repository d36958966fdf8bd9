// SPDX-License-Identifier: Apache-2.0
// CUDA ISliceLayer: out[y] = in[start + y * stride] per axis, with every SampleMode of the host (backends/host/slice.h)
// mapping coordinates outside the input: kWRAP, kCLAMP and kREFLECT on the device, kFILL with the fill value read on
// the device (converted to the output's type there, as the host converts it), and kSTRICT_BOUNDS checked on the host
// before the launch: the coordinates along an axis are linear in y, so the host finds the first output element that
// reads outside, the one the host kernel names, without walking the output.
#include "backends/cuda/data_movement.cuh"
#include "backends/cuda/elements.cuh"
#include "backends/cuda/kernels.h"
#include "backends/host/slice.h"

#include <string>
#include <vector>

namespace kiln::cuda
{

namespace
{

using nvinfer1::SampleMode;

//! Per axis: the output extent, the first coordinate and the step of the slice, and the input's extent and stride.
struct SlicePlan
{
    int32_t rank{0};
    SampleMode mode{SampleMode::kSTRICT_BOUNDS};
    int64_t size[kMaxDims]{};
    int64_t start[kMaxDims]{};
    int64_t stride[kMaxDims]{};
    int64_t extent[kMaxDims]{};
    int64_t inStride[kMaxDims]{};
};

//! The fill value (device memory; null for 0) and how it becomes an output element.
struct FillSource
{
    void const* data{nullptr};
    DataType type{DataType::kFLOAT};
    float scale{1.F};
    DataType outType{DataType::kFLOAT};
    float outScale{1.F};
};

template <DataType T>
__device__ void readFill(FillSource const& fill, float& real, int64_t& integer)
{
    auto const* p = static_cast<Storage<T> const*>(fill.data);
    if constexpr (kIsFloating<T>)
    {
        real = loadFloat<T>(p, 0, fill.scale);
    }
    else
    {
        integer = loadInteger<T>(p, 0);
    }
}

template <DataType T, typename Word>
__device__ void writeFill(FillSource const& fill, bool floating, float real, int64_t integer, Word& word)
{
    if constexpr (sizeof(Storage<T>) == sizeof(Word))
    {
        Storage<T> value{};
        if (floating)
        {
            storeFloat<T>(&value, 0, real, fill.outScale);
        }
        else
        {
            storeInteger<T>(&value, 0, integer, fill.outScale);
        }
        memcpy(&word, &value, sizeof(Word));
    }
}

//! The fill value as an output element: its bytes when the types agree, otherwise converted as the host converts it
//! (through a float for floating and scaled types, through an int64_t for the others).
template <typename Word>
__device__ Word fillWord(FillSource const& fill)
{
    Word word = 0;
    if (fill.data == nullptr)
    {
        return word;
    }
    if (fill.type == fill.outType)
    {
        memcpy(&word, fill.data, sizeof(Word));
        return word;
    }
    float real = 0.F;
    int64_t integer = 0;
    bool const floating = fill.type == DataType::kFLOAT || fill.type == DataType::kHALF || fill.type == DataType::kBF16
        || fill.type == DataType::kINT8 || fill.type == DataType::kFP8;
    switch (fill.type)
    {
    case DataType::kFLOAT: readFill<DataType::kFLOAT>(fill, real, integer); break;
    case DataType::kHALF: readFill<DataType::kHALF>(fill, real, integer); break;
    case DataType::kBF16: readFill<DataType::kBF16>(fill, real, integer); break;
    case DataType::kINT8: readFill<DataType::kINT8>(fill, real, integer); break;
    case DataType::kFP8: readFill<DataType::kFP8>(fill, real, integer); break;
    case DataType::kINT32: readFill<DataType::kINT32>(fill, real, integer); break;
    case DataType::kINT64: readFill<DataType::kINT64>(fill, real, integer); break;
    case DataType::kUINT8: readFill<DataType::kUINT8>(fill, real, integer); break;
    case DataType::kBOOL: readFill<DataType::kBOOL>(fill, real, integer); break;
    default: break;
    }
    switch (fill.outType)
    {
    case DataType::kFLOAT: writeFill<DataType::kFLOAT>(fill, floating, real, integer, word); break;
    case DataType::kHALF: writeFill<DataType::kHALF>(fill, floating, real, integer, word); break;
    case DataType::kBF16: writeFill<DataType::kBF16>(fill, floating, real, integer, word); break;
    case DataType::kINT8: writeFill<DataType::kINT8>(fill, floating, real, integer, word); break;
    case DataType::kFP8: writeFill<DataType::kFP8>(fill, floating, real, integer, word); break;
    case DataType::kINT32: writeFill<DataType::kINT32>(fill, floating, real, integer, word); break;
    case DataType::kINT64: writeFill<DataType::kINT64>(fill, floating, real, integer, word); break;
    case DataType::kUINT8: writeFill<DataType::kUINT8>(fill, floating, real, integer, word); break;
    case DataType::kBOOL: writeFill<DataType::kBOOL>(fill, floating, real, integer, word); break;
    default: break;
    }
    return word;
}

//! The coordinate a mode reads for x outside [0, extent) (extent >= 1; kFILL and kSTRICT_BOUNDS never get here).
__device__ __forceinline__ int64_t mapOutside(SampleMode mode, int64_t x, int64_t extent)
{
    switch (mode)
    {
    case SampleMode::kWRAP:
    {
        int64_t const r = x % extent;
        return r < 0 ? r + extent : r;
    }
    case SampleMode::kREFLECT:
    {
        if (extent == 1)
        {
            return 0;
        }
        int64_t const period = 2 * extent - 2;
        int64_t const c = x < 0 ? -(x % period) : x % period;
        return c >= extent ? period - c : c;
    }
    default: return x < 0 ? 0 : extent - 1; // kCLAMP
    }
}

template <typename Word>
__global__ void sliceKernel(
    Word const* __restrict__ in, Word* __restrict__ out, int64_t count, SlicePlan plan, FillSource fill)
{
    Word const fillValue = plan.mode == SampleMode::kFILL ? fillWord<Word>(fill) : Word{0};
    for (int64_t o = firstIndex(); o < count; o += gridStride())
    {
        int64_t index = o;
        int64_t source = 0;
        bool outside = false;
#pragma unroll
        for (int32_t i = kMaxDims - 1; i >= 0; --i)
        {
            if (i < plan.rank)
            {
                int64_t const next = index / plan.size[i];
                int64_t x = plan.start[i] + (index - next * plan.size[i]) * plan.stride[i];
                index = next;
                if (x < 0 || x >= plan.extent[i])
                {
                    if (plan.mode == SampleMode::kFILL)
                    {
                        outside = true;
                    }
                    else
                    {
                        x = mapOutside(plan.mode, x, plan.extent[i]);
                    }
                }
                source += x * plan.inStride[i];
            }
        }
        out[o] = outside ? fillValue : in[source];
    }
}

Error invalid(char const* mode, std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, std::string("slice ") + mode + ": " + message};
}

//! The first y in [0, size) whose coordinate start + y * stride lies outside [0, extent), for start inside; -1 if none.
int64_t firstOutside(int64_t start, int64_t stride, int64_t size, int64_t extent) noexcept
{
    int64_t y = -1;
    if (stride > 0)
    {
        y = (extent - start - 1) / stride + 1; // the least y with start + y * stride >= extent
    }
    else if (stride < 0)
    {
        y = -(start / stride) + 1; // the least y with start + y * stride < 0
    }
    return y >= 0 && y < size ? y : -1;
}

//! The host kernel's kSTRICT_BOUNDS error for the first output element (row-major) that reads outside the input,
//! naming the first such axis of that element; nullopt when every coordinate lies inside. The output is not empty and
//! no input extent is 0.
std::optional<Error> strictBoundsError(SlicePlan const& plan, Dims const& in, char const* name)
{
    auto const error = [&](int32_t axis, int64_t y) {
        int64_t const x = plan.start[axis] + y * plan.stride[axis];
        return invalid(name,
            "coordinate " + std::to_string(x) + " (start " + std::to_string(plan.start[axis]) + " + "
                + std::to_string(y) + " * stride " + std::to_string(plan.stride[axis]) + ") of axis "
                + std::to_string(axis) + " is outside the extent " + std::to_string(plan.extent[axis])
                + " of the input " + host::shapeString(in));
    };
    // Output element 0 reads every start: the first axis whose start is outside.
    for (int32_t i = 0; i < plan.rank; ++i)
    {
        if (plan.start[i] < 0 || plan.start[i] >= plan.extent[i])
        {
            return error(i, 0);
        }
    }
    // Otherwise the first element outside has one nonzero coordinate, on the innermost axis that leaves the input.
    for (int32_t i = plan.rank - 1; i >= 0; --i)
    {
        int64_t const y = firstOutside(plan.start[i], plan.stride[i], plan.size[i], plan.extent[i]);
        if (y >= 0)
        {
            return error(i, y);
        }
    }
    return std::nullopt;
}

//! The per-axis plan of params on in (inferSlice has accepted them): axes not sliced are copied whole.
SlicePlan planOf(SliceParams const& params, Dims const& in)
{
    int32_t const rank = in.nbDims;
    SlicePlan plan;
    plan.rank = rank;
    plan.mode = params.mode;
    host::Index const strides = host::rowMajorStrides(in);
    for (int32_t i = 0; i < rank; ++i)
    {
        plan.size[i] = in.d[i];
        plan.stride[i] = 1;
        plan.extent[i] = in.d[i];
        plan.inStride[i] = strides[static_cast<std::size_t>(i)];
    }
    int32_t const n = params.axes.nbDims < 0 ? rank : params.axes.nbDims;
    for (int32_t j = 0; j < n; ++j)
    {
        int64_t const axis
            = params.axes.nbDims < 0 ? j : (params.axes.d[j] < 0 ? params.axes.d[j] + rank : params.axes.d[j]);
        plan.start[axis] = params.start.d[j];
        plan.size[axis] = params.size.d[j];
        plan.stride[axis] = params.stride.d[j];
    }
    return plan;
}

} // namespace

Status runSlice(SliceParams const& params, DeviceTensor const& in, DeviceTensor const* fillValue,
    DeviceTensor const& out, Launch const& launch)
{
    // The host kernel's checks, in its order and with its messages.
    Expected<host::TensorDesc> const desc = host::inferSlice(params, {in.type, in.dims});
    if (!desc)
    {
        return desc.error();
    }
    char const* const name = host::sampleModes()[static_cast<std::size_t>(params.mode)].name;
    if (std::optional<std::string> const mismatch = host::outputMismatch(out, in.type, desc.value().dims))
    {
        return invalid(name, *mismatch);
    }
    for (auto const& [tensor, role] : {std::pair{&in, "input"}, std::pair{&out, "output"}})
    {
        if (std::optional<Error> const error = host::checkMoveTensor(*tensor, role))
        {
            return invalid(name, error->message);
        }
    }
    bool const filling = params.mode == SampleMode::kFILL;
    if (fillValue != nullptr && !filling)
    {
        return invalid(name, "takes a fill value only in kFILL mode");
    }
    if (fillValue != nullptr)
    {
        if (std::optional<Error> const error = host::checkTensor(*fillValue, "the fill value"))
        {
            return invalid(name, error->message);
        }
        if (host::elementCount(fillValue->dims) != 1)
        {
            return invalid(
                name, "the fill value has shape " + host::shapeString(fillValue->dims) + "; it must hold one element");
        }
    }
    SlicePlan const plan = planOf(params, in.dims);
    int64_t const count = host::elementCount(out.dims);
    if (count == 0)
    {
        return host::Done{};
    }
    if (!filling)
    {
        for (int32_t i = 0; i < plan.rank; ++i)
        {
            if (in.dims.d[i] == 0)
            {
                return invalid(name,
                    "axis " + std::to_string(i) + " of the input " + host::shapeString(in.dims)
                        + " is empty; only kFILL produces a nonempty output from it");
            }
        }
    }
    if (params.mode == SampleMode::kSTRICT_BOUNDS)
    {
        if (std::optional<Error> error = strictBoundsError(plan, in.dims, name))
        {
            return std::move(*error);
        }
    }
    for (auto const& [tensor, role] :
        {std::pair{&in, "input"}, std::pair{&out, "output"}, std::pair{fillValue, "fill value"}})
    {
        if (tensor == nullptr)
        {
            continue;
        }
        if (Status aligned = checkAligned(*tensor, std::string("slice ") + name, role); !aligned)
        {
            return aligned;
        }
    }
    FillSource fill;
    if (fillValue != nullptr)
    {
        fill = FillSource{fillValue->data, fillValue->type, fillValue->scale, out.type, out.scale};
    }
    dispatchWord(host::elementBytes(in.type), [&]<typename Word>() {
        sliceKernel<Word><<<gridFor(count), kBlock, 0, launch.stream>>>(
            static_cast<Word const*>(in.data), static_cast<Word*>(out.data), count, plan, fill);
    });
    return launched("slice: kernel launch");
}

} // namespace kiln::cuda
