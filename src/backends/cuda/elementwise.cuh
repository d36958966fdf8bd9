// SPDX-License-Identifier: Apache-2.0
// The floating element-wise operations of backends/host/elementwise.h as device code, in float: what elementwise.cu's
// kernel computes for the floating and scaled types, and what a fused point-wise program's element-wise steps compute
// (pointwise_program.cu).
//
//     float const y = elementwise::apply(nvinfer1::ElementWiseOperation::kMAX, a, b);   // maximumNumber
#pragma once

#include "NvInfer.h"

#include <cuda_runtime.h>

namespace kiln::cuda::elementwise
{

using Op = nvinfer1::ElementWiseOperation;

//! IEEE 754-2019 maximumNumber: a NaN operand yields the other; +0 is larger than -0 (the host's maxNumber).
__device__ __forceinline__ float maxNumber(float a, float b)
{
    if (isnan(a))
    {
        return b;
    }
    if (isnan(b) || a > b)
    {
        return a;
    }
    if (a == b)
    {
        return signbit(a) ? b : a;
    }
    return b;
}

//! IEEE 754-2019 minimumNumber: a NaN operand yields the other; -0 is smaller than +0.
__device__ __forceinline__ float minNumber(float a, float b)
{
    if (isnan(a))
    {
        return b;
    }
    if (isnan(b) || a < b)
    {
        return a;
    }
    if (a == b)
    {
        return signbit(a) ? a : b;
    }
    return b;
}

//! op(a, b) for floating operands; comparisons give 1 or 0; the kBOOL-only operations give 0.
__device__ __forceinline__ float apply(Op op, float a, float b)
{
    switch (op)
    {
    case Op::kSUM: return a + b;
    case Op::kPROD: return a * b;
    case Op::kMAX: return maxNumber(a, b);
    case Op::kMIN: return minNumber(a, b);
    case Op::kSUB: return a - b;
    case Op::kDIV: return a / b;
    case Op::kPOW: return powf(a, b);
    // In double, as the host: a float quotient just below an integer may round up to it and floor one higher.
    case Op::kFLOOR_DIV: return static_cast<float>(floor(static_cast<double>(a) / static_cast<double>(b)));
    case Op::kEQUAL: return a == b ? 1.F : 0.F;
    case Op::kGREATER: return a > b ? 1.F : 0.F;
    case Op::kLESS: return a < b ? 1.F : 0.F;
    case Op::kAND:
    case Op::kOR:
    case Op::kXOR: break; // kBOOL only
    }
    return 0.F;
}

} // namespace kiln::cuda::elementwise
