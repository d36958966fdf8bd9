// SPDX-License-Identifier: Apache-2.0
// CUDA IResizeLayer, with the semantics of the host reference (backends/host/resize.h). One thread per output element
// (a grid-stride loop) maps its coordinates axis by axis to source coordinates with network/resize_math.h, the code
// the host runs, in double on both sides: the nearest indices are the host's exactly.
// - kNEAREST copies the element's bytes (templated on the element size, as the data-movement kernels are).
// - kLINEAR and kCUBIC gather 2 or 4 taps per interpolated axis (copied axes and axes of input extent 1 have one) and
//   sum every combination of taps, weighted by the product of the axes' weights, in float (the host in double). Taps of
//   weight 0 are skipped on both sides.
#include "backends/cuda/data_movement.cuh"
#include "backends/cuda/elements.cuh"
#include "backends/cuda/kernels.h"
#include "backends/host/resize.h"
#include "network/resize_math.h"

#include <optional>
#include <string>
#include <utility>

namespace kiln::cuda
{

namespace
{

using nvinfer1::InterpolationMode;

//! What every thread needs: the shapes, the input's strides, and per axis its kind and scale (0: the extents give the
//! ratio), then the layer's interpolation settings.
struct ResizePlan
{
    int32_t rank{0};
    int64_t outExtents[kMaxDims]{};
    int64_t inExtents[kMaxDims]{};
    int64_t inStrides[kMaxDims]{};
    float scales[kMaxDims]{};
    ResizeAxisKind kinds[kMaxDims]{};
    InterpolationMode mode{};
    nvinfer1::ResizeCoordinateTransformation transformation{};
    nvinfer1::ResizeSelector selector{};
    nvinfer1::ResizeRoundMode rounding{};
    float cubicCoeff{};
    bool excludeOutside{};
};

template <DataType T>
inline constexpr bool kInterpolates
    = T == DataType::kFLOAT || T == DataType::kHALF || T == DataType::kBF16 || T == DataType::kINT8;

//! The taps of output coordinate x on axis i.
__device__ __forceinline__ ResizeTaps<float> axisTaps(ResizePlan const& plan, int32_t i, int64_t x)
{
    ResizeTaps<float> taps;
    if (plan.kinds[i] == ResizeAxisKind::kINTERPOLATE)
    {
        double const c = resizeSourceCoordinate(
            x, plan.inExtents[i], plan.outExtents[i], plan.scales[i], plan.transformation, plan.selector);
        return resizeTaps<float>(c, plan.inExtents[i], plan.mode, plan.rounding, plan.cubicCoeff, plan.excludeOutside);
    }
    taps.index[0] = plan.kinds[i] == ResizeAxisKind::kCOPY ? x : 0;
    return taps;
}

template <typename Word>
__global__ void resizeNearest(Word const* __restrict__ in, Word* __restrict__ out, int64_t count, ResizePlan plan)
{
    for (int64_t o = firstIndex(); o < count; o += gridStride())
    {
        int64_t rest = o;
        int64_t source = 0;
#pragma unroll
        for (int32_t i = kMaxDims - 1; i >= 0; --i)
        {
            if (i < plan.rank)
            {
                int64_t const next = rest / plan.outExtents[i];
                int64_t const x = rest - next * plan.outExtents[i];
                rest = next;
                source += axisTaps(plan, i, x).index[0] * plan.inStrides[i];
            }
        }
        out[o] = in[source];
    }
}

template <DataType T>
__global__ void resizeInterpolate(Storage<T> const* __restrict__ in, Storage<T>* __restrict__ out, int64_t count,
    ResizePlan plan, float inScale, float outScale)
{
    for (int64_t o = firstIndex(); o < count; o += gridStride())
    {
        ResizeTaps<float> taps[kMaxDims];
        int64_t rest = o;
        int64_t combinations = 1;
#pragma unroll
        for (int32_t i = kMaxDims - 1; i >= 0; --i)
        {
            if (i < plan.rank)
            {
                int64_t const next = rest / plan.outExtents[i];
                int64_t const x = rest - next * plan.outExtents[i];
                rest = next;
                taps[i] = axisTaps(plan, i, x);
                combinations *= taps[i].count;
            }
        }
        float sum = 0.F;
        for (int64_t k = 0; k < combinations; ++k)
        {
            int64_t digits = k;
            int64_t source = 0;
            float weight = 1.F;
            for (int32_t i = plan.rank - 1; i >= 0; --i)
            {
                int32_t const count = taps[i].count;
                auto const digit = static_cast<int32_t>(digits % count);
                digits /= count;
                source += taps[i].index[digit] * plan.inStrides[i];
                weight *= taps[i].weight[digit];
            }
            if (weight != 0.F)
            {
                sum += weight * loadFloat<T>(in, source, inScale);
            }
        }
        storeFloat<T>(out, o, sum, outScale);
    }
}

Error invalid(ResizeParams const& params, std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, host::resizeKernelName(params) + ": " + message};
}

} // namespace

Status runResize(ResizeParams const& params, DeviceTensor const& in, DeviceTensor const& out, Launch const& launch)
{
    // The host kernel's checks, in its order and with its messages.
    Expected<host::TensorDesc> const desc = host::inferResize(params, {in.type, in.dims});
    if (!desc)
    {
        return desc.error();
    }
    if (std::optional<std::string> const mismatch = host::outputMismatch(out, in.type, desc.value().dims))
    {
        return invalid(params, *mismatch);
    }
    bool const nearest = params.mode == InterpolationMode::kNEAREST;
    for (auto const& [tensor, role] : {std::pair{&in, "input"}, std::pair{&out, "output"}})
    {
        std::optional<Error> const error
            = nearest ? host::checkMoveTensor(*tensor, role) : host::checkTensor(*tensor, role);
        if (error)
        {
            return invalid(params, error->message);
        }
    }
    int64_t const count = host::elementCount(out.dims);
    if (count == 0)
    {
        return host::Done{};
    }
    ResizePlan plan;
    plan.rank = in.dims.nbDims;
    host::Index const strides = host::rowMajorStrides(in.dims);
    for (int32_t i = 0; i < plan.rank; ++i)
    {
        plan.inExtents[i] = in.dims.d[i];
        plan.outExtents[i] = out.dims.d[i];
        plan.inStrides[i] = strides[static_cast<std::size_t>(i)];
        plan.scales[i] = host::resizeAxisScale(params, i);
        plan.kinds[i] = resizeAxisKind(in.dims.d[i], out.dims.d[i], plan.scales[i]);
    }
    plan.mode = params.mode;
    plan.transformation = params.transformation;
    plan.selector = params.selector;
    plan.rounding = params.rounding;
    plan.cubicCoeff = params.cubicCoeff;
    plan.excludeOutside = params.excludeOutside;
    if (nearest)
    {
        for (auto const& [tensor, role] : {std::pair{&in, "input"}, std::pair{&out, "output"}})
        {
            if (Status aligned = checkAligned(*tensor, host::resizeKernelName(params), role); !aligned)
            {
                return aligned;
            }
        }
        dispatchWord(host::elementBytes(in.type), [&]<typename Word>() {
            resizeNearest<Word><<<gridFor(count), kBlock, 0, launch.stream>>>(
                static_cast<Word const*>(in.data), static_cast<Word*>(out.data), count, plan);
        });
    }
    else
    {
        dispatchType(in.type, [&]<DataType T>() {
            if constexpr (kInterpolates<T>)
            {
                resizeInterpolate<T>
                    <<<gridFor(count), kBlock, 0, launch.stream>>>(static_cast<Storage<T> const*>(in.data),
                        static_cast<Storage<T>*>(out.data), count, plan, in.scale, out.scale);
            }
        });
    }
    return launched("resize: kernel launch");
}

} // namespace kiln::cuda
