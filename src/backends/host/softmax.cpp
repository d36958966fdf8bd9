// SPDX-License-Identifier: Apache-2.0
// Where the rules come from:
// - NvInfer.h's ISoftMaxLayer documentation (TensorRT 10): "Softmax along one axis", the axis given as a bit mask with
//   exactly one bit set (setAxes).
// - Types: the operator reference's SoftMax page (docs.nvidia.com/deeplearning/tensorrt/latest/_static/operators/
//   SoftMax.html) lists float16, float32, bfloat16 (kINT8 is not listed, so it is refused).
#include "backends/host/softmax.h"

#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace kiln::host
{

namespace
{

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "softmax: " + message};
}

} // namespace

Expected<TensorDesc> inferSoftMax(SoftMaxParams const& params, TensorDesc const& in)
{
    if (!contains(kSoftMaxTypes, in.type))
    {
        return invalid(std::string("does not accept ") + dataTypeName(in.type) + " inputs (it takes "
            + typeSetString(kSoftMaxTypes) + ")");
    }
    if (!isValidShape(in.dims) || in.dims.nbDims < 1)
    {
        return invalid("the input " + shapeString(in.dims) + " needs rank >= 1");
    }
    if (std::popcount(params.axes) != 1)
    {
        return invalid("axes mask " + std::to_string(params.axes) + " must have exactly one bit set");
    }
    int32_t const axis = std::countr_zero(params.axes);
    if (axis >= in.dims.nbDims)
    {
        return invalid("axis " + std::to_string(axis) + " (mask " + std::to_string(params.axes)
            + ") is outside the input " + shapeString(in.dims) + " of rank " + std::to_string(in.dims.nbDims));
    }
    return TensorDesc{in.type, in.dims};
}

Status runSoftMax(SoftMaxParams const& params, HostTensor const& in, HostTensor const& out)
{
    Expected<TensorDesc> const desc = inferSoftMax(params, {in.type, in.dims});
    if (!desc)
    {
        return desc.error();
    }
    if (out.type != in.type || !sameShape(out.dims, in.dims))
    {
        return invalid(std::string("the output is ") + dataTypeName(out.type) + " " + shapeString(out.dims)
            + " but must be " + dataTypeName(in.type) + " " + shapeString(in.dims));
    }
    for (auto const& [tensor, role] : {std::pair{&in, "input"}, std::pair{&out, "output"}})
    {
        if (std::optional<Error> const error = checkTensor(*tensor, role))
        {
            return invalid(error->message);
        }
    }
    if (elementCount(in.dims) == 0)
    {
        return Done{}; // No rows (the outer and inner counts may still be large: no loop over them).
    }
    int32_t const axis = std::countr_zero(params.axes);
    int64_t outer = 1;
    int64_t inner = 1;
    for (int32_t i = 0; i < in.dims.nbDims; ++i)
    {
        (i < axis ? outer : inner) *= i == axis ? 1 : in.dims.d[i];
    }
    int64_t const extent = in.dims.d[axis];
    std::vector<double> row(static_cast<std::size_t>(extent));
    for (int64_t o = 0; o < outer; ++o)
    {
        for (int64_t i = 0; i < inner; ++i)
        {
            int64_t const base = o * extent * inner + i;
            double maximum = -std::numeric_limits<double>::infinity();
            bool nan = false;
            for (int64_t j = 0; j < extent; ++j)
            {
                double const x = loadFloat(in, base + j * inner);
                row[static_cast<std::size_t>(j)] = x;
                nan = nan || std::isnan(x);
                maximum = x > maximum ? x : maximum;
            }
            double sum = 0.0;
            for (double& x : row)
            {
                x = nan ? std::numeric_limits<double>::quiet_NaN() : std::exp(x - maximum);
                sum += x;
            }
            for (int64_t j = 0; j < extent; ++j)
            {
                storeFloat(out, base + j * inner, row[static_cast<std::size_t>(j)] / sum);
            }
        }
    }
    return Done{};
}

} // namespace kiln::host
