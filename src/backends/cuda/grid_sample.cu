// SPDX-License-Identifier: Apache-2.0
// CUDA IGridSampleLayer, with the semantics of the host reference (backends/host/grid_sample.h): one thread per output
// element (a grid-stride loop) reads its position from the grid, maps it with network/grid_sample_math.h, the code the
// host runs (coordinates in double on both sides, so both read the same elements), and sums the taps' weighted
// elements in float (the host in double).
#include "backends/cuda/data_movement.cuh"
#include "backends/cuda/elements.cuh"
#include "backends/cuda/kernels.h"
#include "backends/host/grid_sample.h"
#include "network/grid_sample_math.h"

#include <optional>
#include <string>
#include <utility>

namespace kiln::cuda
{

namespace
{

using nvinfer1::InterpolationMode;
using nvinfer1::SampleMode;

//! What every thread needs: the shapes, the two axes, and the layer's settings.
struct GridSamplePlan
{
    int64_t channels{0};
    int64_t width{0};
    int64_t plane{0};     //!< height * width.
    int64_t positions{0}; //!< H_out * W_out.
    GridAxis rows{};
    GridAxis columns{};
    bool alignCorners{};
    InterpolationMode mode{};
    SampleMode sampleMode{};
};

template <DataType T>
inline constexpr bool kSamples = T == DataType::kFLOAT || T == DataType::kHALF || T == DataType::kBF16;

template <DataType T>
__global__ void gridSampleKernel(Storage<T> const* __restrict__ in, Storage<T> const* __restrict__ grid,
    Storage<T>* __restrict__ out, int64_t count, GridSamplePlan plan)
{
    for (int64_t o = firstIndex(); o < count; o += gridStride())
    {
        int64_t const p = o % plan.positions;
        int64_t const planeIndex = o / plan.positions; // n * channels + c
        int64_t const n = planeIndex / plan.channels;
        int64_t const at = (n * plan.positions + p) * 2;
        double const x = gridSourceCoordinate(
            static_cast<double>(loadFloat<T>(grid, at)), plan.columns, plan.alignCorners, plan.mode, plan.sampleMode);
        double const y = gridSourceCoordinate(
            static_cast<double>(loadFloat<T>(grid, at + 1)), plan.rows, plan.alignCorners, plan.mode, plan.sampleMode);
        GridTaps<float> const columns = gridTaps<float>(x, plan.columns, plan.mode, plan.sampleMode);
        GridTaps<float> const rows = gridTaps<float>(y, plan.rows, plan.mode, plan.sampleMode);
        Storage<T> const* source = in + planeIndex * plan.plane;
        float const value = gridSampleValue<float>(
            rows, columns, [&](int64_t r, int64_t k) { return loadFloat<T>(source, r * plan.width + k); });
        storeFloat<T>(out, o, value);
    }
}

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "grid sample: " + message};
}

} // namespace

Status runGridSample(GridSampleParams const& params, DeviceTensor const& in, DeviceTensor const& grid,
    DeviceTensor const& out, Launch const& launch)
{
    // The host kernel's checks, in its order and with its messages.
    Expected<host::TensorDesc> const desc = host::inferGridSample(params, {in.type, in.dims}, {grid.type, grid.dims});
    if (!desc)
    {
        return desc.error();
    }
    if (std::optional<std::string> const mismatch = host::outputMismatch(out, desc.value().type, desc.value().dims))
    {
        return invalid(*mismatch);
    }
    for (auto const& [tensor, role] : {std::pair{&in, "input"}, std::pair{&grid, "grid"}, std::pair{&out, "output"}})
    {
        if (std::optional<Error> const error = host::checkTensor(*tensor, role))
        {
            return invalid(error->message);
        }
    }
    int64_t const count = host::elementCount(out.dims);
    if (count == 0)
    {
        return host::Done{};
    }
    GridSamplePlan plan;
    plan.channels = in.dims.d[1];
    plan.width = in.dims.d[3];
    plan.plane = in.dims.d[2] * in.dims.d[3];
    plan.positions = grid.dims.d[1] * grid.dims.d[2];
    plan.rows = gridAxis(in.dims.d[2], params.alignCorners);
    plan.columns = gridAxis(in.dims.d[3], params.alignCorners);
    plan.alignCorners = params.alignCorners;
    plan.mode = params.mode;
    plan.sampleMode = params.sampleMode;
    dispatchType(in.type, [&]<DataType T>() {
        if constexpr (kSamples<T>)
        {
            gridSampleKernel<T><<<gridFor(count), kBlock, 0, launch.stream>>>(static_cast<Storage<T> const*>(in.data),
                static_cast<Storage<T> const*>(grid.data), static_cast<Storage<T>*>(out.data), count, plan);
        }
    });
    return launched("grid sample: kernel launch");
}

} // namespace kiln::cuda
