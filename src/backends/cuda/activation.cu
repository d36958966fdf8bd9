// SPDX-License-Identifier: Apache-2.0
// CUDA IActivationLayer: out = f(in; alpha, beta), the functions of backends/host/activation.h in the same
// non-cancelling forms (expm1, log1p, erfc, a logistic for the tanh GELU), computed in float; kRELU on kINT32 and
// kINT64 in int64_t. One kernel per type; the function is a switch, the same for the whole grid.
#include "backends/cuda/elements.cuh"
#include "backends/cuda/kernels.h"
#include "backends/cuda/pointwise.cuh"
#include "backends/host/activation.h"

#include <string>

namespace kiln::cuda
{
namespace
{

using Type = nvinfer1::ActivationType;

//! std::max and std::min as the host calls them (the first argument wins a tie or an unordered comparison).
__device__ __forceinline__ float stdMax(float a, float b)
{
    return a < b ? b : a;
}
__device__ __forceinline__ float stdMin(float a, float b)
{
    return b < a ? b : a;
}

__device__ __forceinline__ float softplus(float x, float alpha, float beta)
{
    // log(exp(t) + 1) = t + log1p(exp(-t)) for t > 0, log1p(exp(t)) otherwise: no overflow, no cancellation.
    float const t = beta * x;
    return alpha * (t > 0.F ? t + log1pf(expf(-t)) : log1pf(expf(t)));
}

__device__ __forceinline__ float geluTanh(float x)
{
    // 0.5 * x * (1 + tanh(u)) = x / (1 + exp(-2u)), u = sqrt(2 / pi) * (x + 0.044715 * x^3)
    float const u = 0.7978845608028654F * (x + 0.044715F * x * x * x);
    return x / (1.F + expf(-2.F * u));
}

__device__ __forceinline__ float activate(Type type, float x, float alpha, float beta)
{
    switch (type)
    {
    case Type::kRELU: return isnan(x) || x > 0.F ? x : 0.F;
    case Type::kSIGMOID: return 1.F / (1.F + expf(-x));
    case Type::kTANH: return tanhf(x);
    case Type::kLEAKY_RELU: return x >= 0.F ? x : alpha * x;
    case Type::kELU: return x >= 0.F ? x : alpha * expm1f(x);
    case Type::kSELU: return x > 0.F ? beta * x : beta * alpha * expm1f(x);
    case Type::kSOFTSIGN: return x / (1.F + fabsf(x));
    case Type::kSOFTPLUS: return softplus(x, alpha, beta);
    case Type::kCLIP: return isnan(x) ? x : stdMax(alpha, stdMin(beta, x));
    case Type::kHARD_SIGMOID:
    {
        float const y = alpha * x + beta;
        return isnan(y) ? y : stdMax(0.F, stdMin(1.F, y));
    }
    case Type::kSCALED_TANH: return alpha * tanhf(beta * x);
    case Type::kTHRESHOLDED_RELU: return isnan(x) || x > alpha ? x : 0.F;
    case Type::kGELU_ERF: return 0.5F * x * erfcf(-x * 0.7071067811865476F); // 0.5 * x * (1 + erf(x / sqrt(2)))
    case Type::kGELU_TANH: return geluTanh(x);
    }
    return 0.F;
}

//! out[i] = f(in[i]) for a floating or scaled T; kRELU for an integer T.
template <DataType T>
__global__ void activationKernel(Storage<T> const* in, Storage<T>* out, int64_t count, Type type, float alpha,
    float beta, float inScale, float outScale)
{
    for (int64_t i = pointwise::firstIndex(); i < count; i += pointwise::gridStride())
    {
        if constexpr (kIsFloating<T>)
        {
            storeFloat<T>(out, i, activate(type, loadFloat<T>(in, i, inScale), alpha, beta), outScale);
        }
        else
        {
            int64_t const x = loadInteger<T>(in, i);
            storeInteger<T>(out, i, x > 0 ? x : 0);
        }
    }
}

} // namespace

Status runActivation(
    ActivationParams const& params, DeviceTensor const& in, DeviceTensor const& out, Launch const& launch)
{
    host::ActivationParams const hostParams{params.type, params.alpha, params.beta};
    Expected<host::TensorDesc> const desc = host::inferActivation(hostParams, {in.type, in.dims});
    if (!desc)
    {
        return desc.error();
    }
    host::ActivationInfo const& info = *host::findActivation(params.type);
    if (std::optional<std::string> const problem = host::shapePreservingOutputProblem(in, out, in.type))
    {
        return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, std::string(info.name) + ": " + *problem};
    }
    if (std::optional<Error> const error = pointwise::checkTensors({{&in, "input"}, {&out, "output"}}))
    {
        return Error{error->code, std::string(info.name) + ": " + error->message};
    }
    int64_t const count = host::elementCount(in.dims);
    if (count == 0)
    {
        return host::Done{};
    }
    bool ran = false;
    dispatchType(in.type, [&]<DataType T>() {
        // Floating and scaled types, and the integers of kRELU (inferActivation refused the rest).
        if constexpr (kIsFloating<T> || T == DataType::kINT32 || T == DataType::kINT64)
        {
            activationKernel<T><<<pointwise::grid(count), pointwise::kBlock, 0, launch.stream>>>(
                static_cast<Storage<T> const*>(in.data), static_cast<Storage<T>*>(out.data), count, params.type,
                params.alpha, params.beta, in.scale, out.scale);
            ran = true;
        }
    });
    if (!ran)
    {
        return pointwise::noKernel(std::string(info.name) + " of " + dataTypeName(in.type));
    }
    return pointwise::launched("the activation kernel");
}

} // namespace kiln::cuda
