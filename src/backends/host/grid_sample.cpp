// SPDX-License-Identifier: Apache-2.0
// One pass over the output positions: the grid's (x, y) at [n, h, w] gives the taps of each axis once, then every
// channel sums its plane's elements with network/grid_sample_math.h's gridSampleValue.
#include "backends/host/grid_sample.h"

#include "network/grid_sample_math.h"

#include <string>
#include <utility>

namespace kiln::host
{

namespace
{

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "grid sample: " + message};
}

//! Whether mode is one a grid sample takes.
bool isSampleMode(nvinfer1::SampleMode mode) noexcept
{
    return mode == nvinfer1::SampleMode::kFILL || mode == nvinfer1::SampleMode::kCLAMP
        || mode == nvinfer1::SampleMode::kREFLECT;
}

} // namespace

Expected<TensorDesc> inferGridSample(GridSampleParams const& params, TensorDesc const& in, TensorDesc const& grid)
{
    auto const mode = static_cast<int32_t>(params.mode);
    if (mode < 0 || mode >= nvinfer1::EnumMax<nvinfer1::InterpolationMode>())
    {
        return invalid("interpolation mode " + std::to_string(mode) + " is not an InterpolationMode");
    }
    if (!isSampleMode(params.sampleMode))
    {
        return invalid("sample mode " + std::to_string(static_cast<int32_t>(params.sampleMode))
            + " is not one a grid sample takes (kFILL, kCLAMP or kREFLECT)");
    }
    if (!contains(kGridSampleTypes, in.type) || grid.type != in.type)
    {
        return invalid(std::string("the input is ") + dataTypeName(in.type) + " and the grid " + dataTypeName(grid.type)
            + "; a grid sample takes two tensors of one type (" + typeSetString(kGridSampleTypes) + ")");
    }
    if (!isValidShape(in.dims) || !isValidShape(grid.dims) || in.dims.nbDims != 4 || grid.dims.nbDims != 4)
    {
        return invalid("the input " + shapeString(in.dims) + " and the grid " + shapeString(grid.dims)
            + " must be concrete 4-D shapes [N, C, H, W] and [N, H_out, W_out, 2]");
    }
    if (grid.dims.d[0] != in.dims.d[0] || grid.dims.d[3] != 2)
    {
        return invalid("the grid " + shapeString(grid.dims) + " must be [N, H_out, W_out, 2] for the input "
            + shapeString(in.dims));
    }
    return TensorDesc{in.type, Dims{4, {in.dims.d[0], in.dims.d[1], grid.dims.d[1], grid.dims.d[2]}}};
}

Status runGridSample(
    GridSampleParams const& params, HostTensor const& in, HostTensor const& grid, HostTensor const& out)
{
    Expected<TensorDesc> const desc = inferGridSample(params, {in.type, in.dims}, {grid.type, grid.dims});
    if (!desc)
    {
        return desc.error();
    }
    if (std::optional<std::string> const mismatch = outputMismatch(out, desc.value().type, desc.value().dims))
    {
        return invalid(*mismatch);
    }
    for (auto const& [tensor, role] : {std::pair{&in, "input"}, std::pair{&grid, "grid"}, std::pair{&out, "output"}})
    {
        if (std::optional<Error> const error = checkTensor(*tensor, role))
        {
            return invalid(error->message);
        }
    }
    int64_t const batch = in.dims.d[0];
    int64_t const channels = in.dims.d[1];
    int64_t const height = in.dims.d[2];
    int64_t const width = in.dims.d[3];
    int64_t const positions = grid.dims.d[1] * grid.dims.d[2];
    GridAxis const rowAxis = gridAxis(height, params.alignCorners);
    GridAxis const columnAxis = gridAxis(width, params.alignCorners);
    for (int64_t n = 0; n < batch; ++n)
    {
        for (int64_t p = 0; p < positions; ++p)
        {
            int64_t const at = (n * positions + p) * 2;
            double const x = gridSourceCoordinate(
                loadFloat(grid, at), columnAxis, params.alignCorners, params.mode, params.sampleMode);
            double const y = gridSourceCoordinate(
                loadFloat(grid, at + 1), rowAxis, params.alignCorners, params.mode, params.sampleMode);
            GridTaps<double> const columns = gridTaps<double>(x, columnAxis, params.mode, params.sampleMode);
            GridTaps<double> const rows = gridTaps<double>(y, rowAxis, params.mode, params.sampleMode);
            for (int64_t c = 0; c < channels; ++c)
            {
                int64_t const plane = (n * channels + c) * height * width;
                double const value = gridSampleValue<double>(
                    rows, columns, [&](int64_t r, int64_t k) { return loadFloat(in, plane + r * width + k); });
                storeFloat(out, (n * channels + c) * positions + p, value);
            }
        }
    }
    return Done{};
}

} // namespace kiln::host
