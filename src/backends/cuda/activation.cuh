// SPDX-License-Identifier: Apache-2.0
// The activation functions of backends/host/activation.h as device code, in float and in the same non-cancelling
// forms (expm1, log1p, erfc, a logistic for the tanh GELU): what activation.cu's kernel and the fused epilogue of the
// cuDNN convolution (library_staging.cu) compute.
//
//     float const y = activation::apply(nvinfer1::ActivationType::kLEAKY_RELU, x, 0.01F, 0.F);
#pragma once

#include "NvInfer.h"

#include <cuda_runtime.h>

namespace kiln::cuda::activation
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

__device__ __forceinline__ float apply(Type type, float x, float alpha, float beta)
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

//! The erf GELU for a result that is stored in a type of at most 16 bits: 0.5 x (1 + erf(x / sqrt 2)), about twice as
//! fast as the erfc form (erff is a short polynomial, erfcf an exponential and a division). Its cancellation for
//! x < -1 costs at most about 1.5e-7 absolute (half |x| times float's 6e-8 at 1), which the tail's values (below
//! 1e-3 there) and such types' resolution do not see.
__device__ __forceinline__ float geluErfNarrow(float x)
{
    return 0.5F * x * (1.F + erff(x * 0.7071067811865476F));
}

} // namespace kiln::cuda::activation
