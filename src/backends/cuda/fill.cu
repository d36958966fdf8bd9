// SPDX-License-Identifier: Apache-2.0
// CUDA IFillLayer, the rules of backends/host/fill.h:
// - kLINSPACE exactly as the host computes it: alpha + sum_i beta[i] * c[i] in double (each product and sum rounded
//   once, in the host's order), or in wrapping int64_t from integer parameters.
// - kRANDOM_UNIFORM and kRANDOM_NORMAL from a counter-based generator (Philox-4x32-10 keyed by host::kFillSeed, the
//   element's index as the counter), so each element is drawn independently of the launch shape; a 24-bit uniform, or
//   a Box-Muller normal, computed in float. The values are not the host's (mt19937_64), only their distribution.
// alpha and beta, when the layer has them as inputs, are device tensors read by the kernel itself.
#include "backends/cuda/elements.cuh"
#include "backends/cuda/kernels.h"
#include "backends/cuda/pointwise.cuh"
#include "backends/host/fill.h"

#include <string>

namespace kiln::cuda
{
namespace
{

using Op = nvinfer1::FillOperation;

//! An optional alpha or beta input on the device.
struct ScalarInput
{
    void const* data{}; //!< nullptr when absent.
    DataType type{};
    float scale{1.F};
};

//! Element i of a parameter tensor read both ways, as the host's loadFloat and loadInteger read it.
struct Scalar
{
    double real;
    int64_t integer;
};

template <DataType T>
__device__ __forceinline__ Scalar scalarOf(void const* data, int64_t i, float scale)
{
    auto const* const p = static_cast<Storage<T> const*>(data);
    int64_t const integer = loadInteger<T>(p, i, scale);
    if constexpr (kIsFloating<T>)
    {
        return Scalar{static_cast<double>(loadFloat<T>(p, i, scale)), integer};
    }
    else
    {
        return Scalar{static_cast<double>(integer), integer}; // to nearest, as the host's static_cast
    }
}

__device__ Scalar readScalar(ScalarInput const& input, int64_t i)
{
    switch (input.type)
    {
    case DataType::kFLOAT: return scalarOf<DataType::kFLOAT>(input.data, i, input.scale);
    case DataType::kHALF: return scalarOf<DataType::kHALF>(input.data, i, input.scale);
    case DataType::kBF16: return scalarOf<DataType::kBF16>(input.data, i, input.scale);
    case DataType::kINT8: return scalarOf<DataType::kINT8>(input.data, i, input.scale);
    case DataType::kFP8: return scalarOf<DataType::kFP8>(input.data, i, input.scale);
    case DataType::kINT32: return scalarOf<DataType::kINT32>(input.data, i, input.scale);
    case DataType::kINT64: return scalarOf<DataType::kINT64>(input.data, i, input.scale);
    case DataType::kUINT8: return scalarOf<DataType::kUINT8>(input.data, i, input.scale);
    case DataType::kBOOL: return scalarOf<DataType::kBOOL>(input.data, i, input.scale);
    default: return Scalar{0.0, 0};
    }
}

//! The host's truncateSaturate: value truncated toward zero, saturated to I's range, NaN to 0.
template <typename I>
__device__ __forceinline__ I truncateSaturate(double value)
{
    constexpr double low = static_cast<double>(std::numeric_limits<I>::min());
    constexpr double high = static_cast<double>(std::numeric_limits<I>::max()); // 2^63 for int64_t
    if (value != value)
    {
        return 0;
    }
    if (value <= low)
    {
        return std::numeric_limits<I>::min();
    }
    if (value >= high)
    {
        return std::numeric_limits<I>::max();
    }
    return static_cast<I>(value); // truncates
}

//! What a linspace kernel needs besides the output.
struct LinspaceArgs
{
    int32_t rank{};
    int64_t extents[nvinfer1::Dims::MAX_DIMS]{};
    bool integer{};         //!< Wrapping int64_t arithmetic (an integer output from integer parameters).
    ScalarInput alpha;      //!< The start, one element; absent: start and startInteger.
    ScalarInput beta;       //!< One delta per dimension; absent: delta and deltaInteger for each.
    double start{};         //!< The static start, as a double.
    int64_t startInteger{}; //!< The static start, as an integer.
    double delta{};         //!< The static delta, as a double.
    int64_t deltaInteger{}; //!< The static delta, as an integer.
};

// Loops run over every dimension, guarded by the rank, so that they unroll and keep their arrays in registers.
template <DataType T>
__global__ void linspaceKernel(Storage<T>* out, int64_t count, LinspaceArgs args)
{
    constexpr int32_t kMax = nvinfer1::Dims::MAX_DIMS;
    double start = args.start;
    int64_t startInteger = args.startInteger;
    if (args.alpha.data != nullptr)
    {
        Scalar const s = readScalar(args.alpha, 0);
        start = s.real;
        startInteger = s.integer;
    }
    double deltas[kMax]{};
    int64_t deltaIntegers[kMax]{};
#pragma unroll
    for (int32_t d = 0; d < kMax; ++d)
    {
        if (d < args.rank)
        {
            Scalar const s
                = args.beta.data != nullptr ? readScalar(args.beta, d) : Scalar{args.delta, args.deltaInteger};
            deltas[d] = s.real;
            deltaIntegers[d] = s.integer;
        }
    }
    for (int64_t o = pointwise::firstIndex(); o < count; o += pointwise::gridStride())
    {
        int64_t coordinates[kMax]{};
        int64_t rest = o;
#pragma unroll
        for (int32_t d = kMax - 1; d >= 0; --d)
        {
            if (d < args.rank)
            {
                coordinates[d] = rest % args.extents[d];
                rest /= args.extents[d];
            }
        }
        if (args.integer)
        {
            auto value = static_cast<uint64_t>(startInteger);
#pragma unroll
            for (int32_t d = 0; d < kMax; ++d)
            {
                if (d < args.rank)
                {
                    value += static_cast<uint64_t>(deltaIntegers[d]) * static_cast<uint64_t>(coordinates[d]);
                }
            }
            storeInteger<T>(out, o, static_cast<int64_t>(value));
            continue;
        }
        double value = start;
#pragma unroll
        for (int32_t d = 0; d < kMax; ++d)
        {
            if (d < args.rank)
            {
                // In the host's order, each step rounded: no fused multiply-add (the host does not use one either).
                value = __dadd_rn(value, __dmul_rn(deltas[d], static_cast<double>(coordinates[d])));
            }
        }
        if constexpr (T == DataType::kFLOAT)
        {
            out[o] = __double2float_rn(value);
        }
        else
        {
            out[o] = truncateSaturate<Storage<T>>(value);
        }
    }
}

//! The high 32 bits of a * b.
__host__ __device__ __forceinline__ uint32_t mulhi(uint32_t a, uint32_t b)
{
    return static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32U);
}

//! Philox-4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011): four random words for
//! counter under key.
__host__ __device__ __forceinline__ uint4 philox(uint4 counter, uint2 key)
{
    for (int round = 0; round < 10; ++round)
    {
        uint32_t const hi0 = mulhi(0xD2511F53U, counter.x);
        uint32_t const lo0 = 0xD2511F53U * counter.x;
        uint32_t const hi1 = mulhi(0xCD9E8D57U, counter.z);
        uint32_t const lo1 = 0xCD9E8D57U * counter.z;
        counter = make_uint4(hi1 ^ counter.y ^ key.x, lo1, hi0 ^ counter.w ^ key.y, lo0);
        key.x += 0x9E3779B9U;
        key.y += 0xBB67AE85U;
    }
    return counter;
}

//! A uniform float in [0, 1) from the top 24 bits of word.
__device__ __forceinline__ float unitUniform(uint32_t word)
{
    return static_cast<float>(word >> 8U) * 0x1p-24F;
}

template <DataType T>
__global__ void randomKernel(Storage<T>* out, int64_t count, bool normal, ScalarInput alpha, ScalarInput beta,
    double staticAlpha, double staticBeta, uint64_t seed)
{
    auto const a = static_cast<float>(alpha.data != nullptr ? readScalar(alpha, 0).real : staticAlpha);
    auto const b = static_cast<float>(beta.data != nullptr ? readScalar(beta, 0).real : staticBeta);
    uint2 const key = make_uint2(static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32U));
    for (int64_t i = pointwise::firstIndex(); i < count; i += pointwise::gridStride())
    {
        uint4 const words = philox(make_uint4(static_cast<uint32_t>(i), static_cast<uint32_t>(i >> 32), 0, 0), key);
        float value = 0.F;
        if (normal)
        {
            float const u1 = 1.F - unitUniform(words.x); // (0, 1]: the logarithm stays finite
            float const u2 = unitUniform(words.y);
            value = a + b * sqrtf(-2.F * logf(u1)) * cospif(2.F * u2);
        }
        else
        {
            value = a + (b - a) * unitUniform(words.x);
        }
        storeFloat<T>(out, i, value);
    }
}

Error invalid(Op op, std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
        std::string("fill ") + host::fillOps()[static_cast<std::size_t>(op)].name + ": " + message};
}

ScalarInput inputOf(DeviceTensor const* tensor)
{
    return tensor == nullptr ? ScalarInput{} : ScalarInput{tensor->data, tensor->type, tensor->scale};
}

} // namespace

Status runFill(FillParams const& params, DeviceTensor const& out, DeviceTensor const* alpha, DeviceTensor const* beta,
    Launch const& launch)
{
    Expected<host::TensorDesc> const desc = host::inferFill(params, out.dims, alpha, beta);
    if (!desc)
    {
        return desc.error();
    }
    if (out.type != params.toType)
    {
        return invalid(params.op,
            std::string("the output is ") + dataTypeName(out.type) + " but toType is " + dataTypeName(params.toType));
    }
    for (auto const& [tensor, role] :
        {std::pair{&out, "output"}, std::pair{alpha, "the alpha input"}, std::pair{beta, "the beta input"}})
    {
        std::optional<Error> const error = tensor != nullptr ? pointwise::checkTensor(*tensor, role) : std::nullopt;
        if (error)
        {
            return invalid(params.op, error->message);
        }
    }
    int64_t const count = host::elementCount(out.dims);
    if (count == 0)
    {
        return host::Done{};
    }
    if (params.op == Op::kLINSPACE)
    {
        LinspaceArgs args;
        args.rank = out.dims.nbDims;
        for (int32_t d = 0; d < args.rank; ++d)
        {
            args.extents[d] = out.dims.d[d];
        }
        args.integer = host::numberKind(out.type) == host::NumberKind::kINTEGER
            && (alpha != nullptr ? host::numberKind(alpha->type) != host::NumberKind::kFLOATING
                                 : params.alphaBetaInt64);
        args.alpha = inputOf(alpha);
        args.beta = inputOf(beta);
        args.start = params.alphaBetaInt64 ? static_cast<double>(params.alphaInt64) : params.alpha;
        args.startInteger = params.alphaInt64;
        args.delta = params.alphaBetaInt64 ? static_cast<double>(params.betaInt64) : params.beta;
        args.deltaInteger = params.betaInt64;
        bool ran = false;
        dispatchType(out.type, [&]<DataType T>() {
            if constexpr (T == DataType::kFLOAT || T == DataType::kINT32 || T == DataType::kINT64)
            {
                linspaceKernel<T><<<pointwise::grid(count), pointwise::kBlock, 0, launch.stream>>>(
                    static_cast<Storage<T>*>(out.data), count, args);
                ran = true;
            }
        });
        if (!ran)
        {
            return pointwise::noKernel(std::string("fill kLINSPACE of ") + dataTypeName(out.type));
        }
        return pointwise::launched("the linspace fill kernel");
    }
    bool ran = false;
    dispatchType(out.type, [&]<DataType T>() {
        if constexpr (T == DataType::kFLOAT || T == DataType::kHALF || T == DataType::kBF16)
        {
            randomKernel<T><<<pointwise::grid(count), pointwise::kBlock, 0, launch.stream>>>(
                static_cast<Storage<T>*>(out.data), count, params.op == Op::kRANDOM_NORMAL, inputOf(alpha),
                inputOf(beta), params.alpha, params.beta, host::kFillSeed);
            ran = true;
        }
    });
    if (!ran)
    {
        return pointwise::noKernel(std::string("fill of random ") + dataTypeName(out.type));
    }
    return pointwise::launched("the random fill kernel");
}

} // namespace kiln::cuda
