// SPDX-License-Identifier: Apache-2.0
// Where the rules come from:
// - The operator reference's Fill page (docs.nvidia.com/deeplearning/tensorrt/archives/tensorrt-1060/operators/docs/
//   Fill.html): LINSPACE output = alpha + beta[0..n] . [0..n] (int32, int64, float32); RANDOM_UNIFORM
//   random(min = alpha, max = beta) and RANDOM_NORMAL normal(mean = alpha, scale = beta) (float16, float32); input 1
//   a scalar alpha, input 2 beta of shape [n] for LINSPACE, a scalar otherwise. NvInfer.h's IFillLayer: alpha is
//   "start, minimum or mean", beta "delta, maximum or standard deviation".
// - Chosen by kiln: kBF16 random outputs; the generator (mt19937_64, Box-Muller) and its seed.
#include "backends/host/fill.h"

#include "backends/host/data_movement.h"

#include <array>
#include <cmath>
#include <numbers>
#include <random>
#include <string>
#include <vector>

namespace kiln::host
{

namespace
{

using Op = FillOperation;

constexpr std::array<FillOpInfo, 3> kOps{{
    {Op::kLINSPACE, "kLINSPACE", typeSet({DataType::kFLOAT, DataType::kINT32, DataType::kINT64}), "start",
        "delta per dimension"},
    {Op::kRANDOM_UNIFORM, "kRANDOM_UNIFORM", kFloatingTypes, "minimum", "maximum"},
    {Op::kRANDOM_NORMAL, "kRANDOM_NORMAL", kFloatingTypes, "mean", "standard deviation"},
}};
static_assert(kOps.size() == static_cast<std::size_t>(nvinfer1::EnumMax<FillOperation>()),
    "kOps needs one row for every FillOperation");

constexpr bool rowsInEnumOrder() noexcept
{
    for (std::size_t i = 0; i < kOps.size(); ++i)
    {
        if (static_cast<std::size_t>(kOps[i].op) != i)
        {
            return false;
        }
    }
    return true;
}
static_assert(rowsInEnumOrder(), "kOps rows must follow the enum's order");

Error invalid(char const* op, std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, std::string("fill ") + op + ": " + message};
}

} // namespace

std::span<FillOpInfo const> fillOps() noexcept
{
    return kOps;
}

Expected<TensorDesc> inferFill(
    FillParams const& params, Dims const& dims, HostTensor const* alpha, HostTensor const* beta)
{
    auto const index = static_cast<std::size_t>(params.op);
    if (index >= kOps.size())
    {
        return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
            "fill: unknown FillOperation " + std::to_string(static_cast<int32_t>(params.op))};
    }
    FillOpInfo const& info = kOps[index];
    if (!contains(info.types, params.toType))
    {
        return invalid(info.name,
            std::string("does not produce ") + dataTypeName(params.toType) + " (it produces "
                + typeSetString(info.types) + ")");
    }
    if (!isValidShape(dims))
    {
        return invalid(info.name, "the output shape " + shapeString(dims) + " is not valid");
    }
    if ((alpha == nullptr) != (beta == nullptr))
    {
        return invalid(info.name, "alpha and beta are both inputs or neither");
    }
    if (alpha != nullptr)
    {
        int64_t const betaCount = params.op == Op::kLINSPACE ? std::max(dims.nbDims, 1) : 1;
        for (auto const& [tensor, role, expected] :
            {std::tuple{alpha, "the alpha input", int64_t{1}}, std::tuple{beta, "the beta input", betaCount}})
        {
            if (std::optional<Error> const error = checkTensor(*tensor, role))
            {
                return invalid(info.name, error->message);
            }
            if (elementCount(tensor->dims) != expected)
            {
                return invalid(info.name,
                    std::string(role) + " has shape " + shapeString(tensor->dims) + "; it needs "
                        + std::to_string(expected) + " element(s) for the output " + shapeString(dims));
            }
        }
    }
    else if (params.op == Op::kLINSPACE && dims.nbDims > 1)
    {
        return invalid(info.name,
            "a static beta is one delta; the output " + shapeString(dims)
                + " of rank above 1 needs a beta input with one delta per dimension");
    }
    return TensorDesc{params.toType, dims};
}

Status runFill(
    FillParams const& params, HostTensor const& out, HostTensor const* alpha, HostTensor const* beta, uint64_t seed)
{
    Expected<TensorDesc> const desc = inferFill(params, out.dims, alpha, beta);
    if (!desc)
    {
        return desc.error();
    }
    FillOpInfo const& info = kOps[static_cast<std::size_t>(params.op)];
    if (out.type != params.toType)
    {
        return invalid(info.name,
            std::string("the output is ") + dataTypeName(out.type) + " but toType is " + dataTypeName(params.toType));
    }
    if (std::optional<Error> const error = checkTensor(out, "output"))
    {
        return invalid(info.name, error->message);
    }
    int64_t const count = elementCount(out.dims);
    int32_t const rank = out.dims.nbDims;
    if (params.op == Op::kLINSPACE)
    {
        bool const integer = numberKind(out.type) == NumberKind::kINTEGER
            && (alpha != nullptr ? numberKind(alpha->type) != NumberKind::kFLOATING : params.alphaBetaInt64);
        std::vector<double> deltas(static_cast<std::size_t>(std::max(rank, 1)));
        std::vector<int64_t> deltasInt(deltas.size());
        for (std::size_t i = 0; i < deltas.size(); ++i)
        {
            deltas[i] = beta != nullptr ? loadFloat(*beta, static_cast<int64_t>(i)) : params.beta;
            deltasInt[i] = beta != nullptr ? loadInteger(*beta, static_cast<int64_t>(i)) : params.betaInt64;
        }
        double const start = alpha != nullptr
            ? loadFloat(*alpha, 0)
            : (params.alphaBetaInt64 ? static_cast<double>(params.alphaInt64) : params.alpha);
        int64_t const startInt = alpha != nullptr ? loadInteger(*alpha, 0) : params.alphaInt64;
        if (alpha == nullptr && params.alphaBetaInt64)
        {
            for (std::size_t i = 0; i < deltas.size(); ++i)
            {
                deltas[i] = static_cast<double>(deltasInt[i]);
            }
        }
        for (int64_t o = 0; o < count; ++o)
        {
            Index const c = coordinatesOf(out.dims, o);
            if (integer)
            {
                uint64_t value = static_cast<uint64_t>(startInt);
                for (int32_t i = 0; i < rank; ++i)
                {
                    value += static_cast<uint64_t>(deltasInt[static_cast<std::size_t>(i)])
                        * static_cast<uint64_t>(c[static_cast<std::size_t>(i)]);
                }
                storeInteger(out, o, static_cast<int64_t>(value));
            }
            else
            {
                double value = start;
                for (int32_t i = 0; i < rank; ++i)
                {
                    value += deltas[static_cast<std::size_t>(i)] * static_cast<double>(c[static_cast<std::size_t>(i)]);
                }
                storeFloat(out, o, value);
            }
        }
        return Done{};
    }
    double const a = alpha != nullptr ? loadFloat(*alpha, 0) : params.alpha;
    double const b = beta != nullptr ? loadFloat(*beta, 0) : params.beta;
    std::mt19937_64 engine(seed);
    auto const uniform = [&] { return static_cast<double>(engine() >> 11) * 0x1.0p-53; };
    for (int64_t o = 0; o < count; ++o)
    {
        if (params.op == Op::kRANDOM_UNIFORM)
        {
            storeFloat(out, o, a + (b - a) * uniform());
        }
        else
        {
            double const u1 = 1.0 - uniform(); // (0, 1]: the logarithm stays finite
            double const u2 = uniform();
            storeFloat(out, o, a + b * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2));
        }
    }
    return Done{};
}

} // namespace kiln::host
