// SPDX-License-Identifier: Apache-2.0
// The reductions walk each line along the axis once, keeping the running sum: out[j] takes the sum before or after
// adding element j (exclusive or inclusive), walking j up (forward) or down (reverse). Integer sums wrap around in
// int64_t (never undefined overflow).
#include "backends/host/cumulative.h"

#include <string>

namespace kiln::host
{

namespace
{

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "cumulative: " + message};
}

//! The number of elements before, along and after the axis of dims.
struct Lines
{
    int64_t outer{1};
    int64_t extent{1};
    int64_t inner{1};
};

//! a + b: wrapping around for integers (as two's complement hardware adds), in double for floating values.
int64_t add(int64_t a, int64_t b) noexcept
{
    return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
double add(double a, double b) noexcept
{
    return a + b;
}

Lines linesOf(Dims const& dims, int32_t axis)
{
    Lines lines;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        (i < axis ? lines.outer : i == axis ? lines.extent : lines.inner) *= dims.d[i];
    }
    return lines;
}

//! Walks every line: out[index] = running before (exclusive) or after (inclusive) adding element index, through
//! load(index) and store(index, running). Each element is read before its output is written, so in may be out.
template <typename Value, typename Load, typename Store>
void walk(CumulativeParams const& params, Lines const& lines, Load const& load, Store const& store)
{
    for (int64_t o = 0; o < lines.outer; ++o)
    {
        for (int64_t i = 0; i < lines.inner; ++i)
        {
            Value running{};
            for (int64_t step = 0; step < lines.extent; ++step)
            {
                int64_t const j = params.reverse ? lines.extent - 1 - step : step;
                int64_t const index = (o * lines.extent + j) * lines.inner + i;
                Value const value = load(index);
                if (params.exclusive)
                {
                    store(index, running);
                }
                running = add(running, value);
                if (!params.exclusive)
                {
                    store(index, running);
                }
            }
        }
    }
}

} // namespace

Expected<TensorDesc> inferCumulative(CumulativeParams const& params, TensorDesc const& in)
{
    if (params.op != nvinfer1::CumulativeOperation::kSUM)
    {
        return invalid(
            "operation " + std::to_string(static_cast<int32_t>(params.op)) + " is not a CumulativeOperation");
    }
    if (!contains(kCumulativeTypes, in.type))
    {
        return invalid(std::string("does not accept ") + dataTypeName(in.type) + " inputs (it takes "
            + typeSetString(kCumulativeTypes) + ")");
    }
    if (!isValidShape(in.dims) || in.dims.nbDims < 1)
    {
        return invalid("the input " + shapeString(in.dims) + " needs rank 1 or more");
    }
    if (params.axis < 0 || params.axis >= in.dims.nbDims)
    {
        return invalid("the axis " + std::to_string(params.axis) + " is outside [0, " + std::to_string(in.dims.nbDims)
            + ") for the input " + shapeString(in.dims));
    }
    return in;
}

Status runCumulative(CumulativeParams const& params, HostTensor const& in, HostTensor const& out)
{
    Expected<TensorDesc> const desc = inferCumulative(params, {in.type, in.dims});
    if (!desc)
    {
        return desc.error();
    }
    if (std::optional<std::string> const mismatch = outputMismatch(out, in.type, in.dims))
    {
        return invalid(*mismatch);
    }
    for (auto const& [tensor, role] : {std::pair{&in, "input 0"}, std::pair{&out, "output"}})
    {
        if (std::optional<Error> const error = checkTensor(*tensor, role))
        {
            return invalid(error->message);
        }
    }
    if (elementCount(in.dims) == 0)
    {
        return Done{}; // No lines (the outer and inner counts may still be large: no loop over them).
    }
    Lines const lines = linesOf(in.dims, params.axis);
    if (numberKind(in.type) == NumberKind::kINTEGER)
    {
        walk<int64_t>(
            params, lines, [&](int64_t index) { return loadInteger(in, index); },
            [&](int64_t index, int64_t running) { storeInteger(out, index, running); });
    }
    else
    {
        walk<double>(
            params, lines, [&](int64_t index) { return loadFloat(in, index); },
            [&](int64_t index, double running) { storeFloat(out, index, running); });
    }
    return Done{};
}

} // namespace kiln::host
