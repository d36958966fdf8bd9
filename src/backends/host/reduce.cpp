// SPDX-License-Identifier: Apache-2.0
// Where the rules come from:
// - NvInfer.h's IReduceLayer documentation: the operation, the axes bit mask (bit i for axis i), keepDimensions.
// - Types: the operator reference's Reduce page (docs.nvidia.com/deeplearning/tensorrt/latest/_static/operators/
//   Reduce.html) lists int8, int32, int64, float16, float32, bfloat16.
// - ReduceOperation::kNONE exists for multi-device collectives (NvInfer.h: "No reduction (for collectives that need
//   none)"); a reduce layer has nothing to compute with it, so it is refused.
// - Not documented by TensorRT, chosen by kiln and stated in reduce.h: NaN handling of kMAX / kMIN (as the element-wise
//   layer), integer wrap-around, integer kAVG truncation, empty reductions.
#include "backends/host/reduce.h"

#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace kiln::host
{

namespace
{

using Op = ReduceOperation;

constexpr double kInf = std::numeric_limits<double>::infinity();

int64_t wrapAdd(int64_t a, int64_t b) noexcept
{
    return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

int64_t wrapMul(int64_t a, int64_t b) noexcept
{
    return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

double maxNumber(double acc, double x) noexcept
{
    return std::isnan(x) ? acc : (std::isnan(acc) || x > acc ? x : acc);
}

double minNumber(double acc, double x) noexcept
{
    return std::isnan(x) ? acc : (std::isnan(acc) || x < acc ? x : acc);
}

constexpr std::array<ReduceOpInfo, 6> kOps{{
    {Op::kSUM, "kSUM", true, 0.0, [](double acc, double x) { return acc + x; }, wrapAdd},
    {Op::kPROD, "kPROD", true, 1.0, [](double acc, double x) { return acc * x; }, wrapMul},
    {Op::kMAX, "kMAX", true, -kInf, maxNumber, [](int64_t acc, int64_t x) { return x > acc ? x : acc; }},
    {Op::kMIN, "kMIN", true, kInf, minNumber, [](int64_t acc, int64_t x) { return x < acc ? x : acc; }},
    {Op::kAVG, "kAVG", true, 0.0, [](double acc, double x) { return acc + x; }, wrapAdd},
    {Op::kNONE, "kNONE", false, 0.0, nullptr, nullptr},
}};
static_assert(kOps.size() == static_cast<std::size_t>(nvinfer1::EnumMax<ReduceOperation>()),
    "kOps needs one row for every ReduceOperation");

constexpr bool rowsInEnumOrder() noexcept
{
    for (std::size_t i = 0; i < kOps.size(); ++i)
    {
        if (static_cast<std::size_t>(kOps[i].op) != i || kOps[i].supported != (kOps[i].floating != nullptr))
        {
            return false;
        }
    }
    return true;
}
static_assert(rowsInEnumOrder(), "kOps rows must follow the enum's order and compute what they support");

Error invalid(std::string const& name, std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "reduce " + name + ": " + message};
}

//! The start of an integer fold for type: 0, 1, the lowest or the highest value.
int64_t integerInit(Op op, DataType type) noexcept
{
    bool const wide = type == DataType::kINT64;
    switch (op)
    {
    case Op::kPROD: return 1;
    case Op::kMAX: return wide ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int32_t>::min();
    case Op::kMIN: return wide ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int32_t>::max();
    default: return 0;
    }
}

} // namespace

std::span<ReduceOpInfo const> reduceOps() noexcept
{
    return kOps;
}

ReduceOpInfo const* findReduceOp(ReduceOperation op) noexcept
{
    auto const index = static_cast<std::size_t>(op);
    return index < kOps.size() ? &kOps[index] : nullptr;
}

Expected<TensorDesc> inferReduce(ReduceParams const& params, TensorDesc const& in)
{
    ReduceOpInfo const* info = findReduceOp(params.op);
    if (info == nullptr)
    {
        return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
            "unknown ReduceOperation " + std::to_string(static_cast<int32_t>(params.op))};
    }
    if (!info->supported)
    {
        return invalid(info->name, "is not a reduction a reduce layer computes (it is for collectives)");
    }
    if (!contains(kReduceTypes, in.type))
    {
        return invalid(info->name,
            std::string("does not accept ") + dataTypeName(in.type) + " inputs (it takes " + typeSetString(kReduceTypes)
                + ")");
    }
    if (!isValidShape(in.dims))
    {
        return invalid(info->name, "the input shape " + shapeString(in.dims) + " is not valid");
    }
    if (in.dims.nbDims < 32 && (params.axes >> in.dims.nbDims) != 0)
    {
        return invalid(info->name,
            "axes mask " + std::to_string(params.axes) + " names an axis outside the input " + shapeString(in.dims)
                + " of rank " + std::to_string(in.dims.nbDims));
    }
    Dims out{0, {}};
    for (int32_t i = 0; i < in.dims.nbDims; ++i)
    {
        bool const reduced = (params.axes >> i & 1U) != 0;
        if (!reduced || params.keepDimensions)
        {
            out.d[out.nbDims++] = reduced ? 1 : in.dims.d[i];
        }
    }
    return TensorDesc{in.type, out};
}

Status runReduce(ReduceParams const& params, HostTensor const& in, HostTensor const& out)
{
    Expected<TensorDesc> const desc = inferReduce(params, {in.type, in.dims});
    if (!desc)
    {
        return desc.error();
    }
    ReduceOpInfo const& info = *findReduceOp(params.op);
    if (out.type != in.type || !sameShape(out.dims, desc.value().dims))
    {
        return invalid(info.name,
            std::string("the output is ") + dataTypeName(out.type) + " " + shapeString(out.dims) + " but must be "
                + dataTypeName(in.type) + " " + shapeString(desc.value().dims));
    }
    for (auto const& [tensor, role] : {std::pair{&in, "input"}, std::pair{&out, "output"}})
    {
        if (std::optional<Error> const error = checkTensor(*tensor, role))
        {
            return invalid(info.name, error->message);
        }
    }
    // Each output element folds the input elements whose kept coordinates match. Walk the input once, mapping each
    // element to its output element (the kept axes' coordinates, row-major).
    int32_t const rank = in.dims.nbDims;
    int64_t const inCount = elementCount(in.dims);
    int64_t const outCount = elementCount(out.dims);
    int64_t reducedCount = 1;
    for (int32_t i = 0; i < rank; ++i)
    {
        reducedCount *= (params.axes >> i & 1U) != 0 ? in.dims.d[i] : 1;
    }
    auto const outputIndex = [&](int64_t index) {
        int64_t result = 0;
        int64_t stride = 1;
        for (int32_t i = rank - 1; i >= 0; --i)
        {
            int64_t const coordinate = index % in.dims.d[i];
            index /= in.dims.d[i];
            if ((params.axes >> i & 1U) == 0)
            {
                result += coordinate * stride;
                stride *= in.dims.d[i];
            }
        }
        return result;
    };
    bool const average = params.op == Op::kAVG;
    if (numberKind(in.type) == NumberKind::kFLOATING)
    {
        // The first element starts each fold (so that kMAX of all NaN is NaN); an empty fold keeps floatingInit.
        std::vector<double> acc(static_cast<std::size_t>(outCount), info.floatingInit);
        std::vector<bool> started(static_cast<std::size_t>(outCount), false);
        for (int64_t i = 0; i < inCount; ++i)
        {
            auto const o = static_cast<std::size_t>(outputIndex(i));
            double const x = loadFloat(in, i);
            acc[o] = started[o] ? info.floating(acc[o], x) : x;
            started[o] = true;
        }
        for (int64_t o = 0; o < outCount; ++o)
        {
            double const value = acc[static_cast<std::size_t>(o)];
            storeFloat(out, o, average ? value / static_cast<double>(reducedCount) : value);
        }
        return Done{};
    }
    if (average && reducedCount == 0 && outCount > 0)
    {
        return invalid(
            info.name, "the average of an empty integer reduction is undefined (input " + shapeString(in.dims) + ")");
    }
    // kINT32 sums are exact in int64_t (below 2^32 elements); a kINT64 sum that overflows wraps before kAVG divides.
    std::vector<int64_t> acc(static_cast<std::size_t>(outCount), integerInit(params.op, in.type));
    for (int64_t i = 0; i < inCount; ++i)
    {
        int64_t& slot = acc[static_cast<std::size_t>(outputIndex(i))];
        slot = info.integer(slot, loadInteger(in, i));
    }
    for (int64_t o = 0; o < outCount; ++o)
    {
        int64_t const value = acc[static_cast<std::size_t>(o)];
        storeInteger(out, o, average ? value / reducedCount : value);
    }
    return Done{};
}

} // namespace kiln::host
