// SPDX-License-Identifier: Apache-2.0
// The floating unary operations of backends/host/unary.h as device code, in float with CUDA's math functions: what
// unary.cu's kernel computes for the floating and scaled types, and what a fused point-wise program's unary steps
// compute (pointwise_program.cu).
//
//     float const y = unary::apply(nvinfer1::UnaryOperation::kROUND, x);   // to nearest, ties to even
#pragma once

#include "NvInfer.h"

#include <cuda_runtime.h>

namespace kiln::cuda::unary
{

using Op = nvinfer1::UnaryOperation;

//! op(x) for a floating operand; kISINF and kISNAN give 1 or 0; kNOT (kBOOL only) gives 0.
__device__ __forceinline__ float apply(Op op, float x)
{
    switch (op)
    {
    case Op::kEXP: return expf(x);
    case Op::kLOG: return logf(x);
    case Op::kSQRT: return sqrtf(x);
    case Op::kRECIP: return 1.F / x;
    case Op::kABS: return fabsf(x);
    case Op::kNEG: return -x;
    case Op::kSIN: return sinf(x);
    case Op::kCOS: return cosf(x);
    case Op::kTAN: return tanf(x);
    case Op::kSINH: return sinhf(x);
    case Op::kCOSH: return coshf(x);
    case Op::kASIN: return asinf(x);
    case Op::kACOS: return acosf(x);
    case Op::kATAN: return atanf(x);
    case Op::kASINH: return asinhf(x);
    case Op::kACOSH: return acoshf(x);
    case Op::kATANH: return atanhf(x);
    case Op::kCEIL: return ceilf(x);
    case Op::kFLOOR: return floorf(x);
    case Op::kERF: return erff(x);
    case Op::kSIGN: return x > 0.F ? 1.F : (x < 0.F ? -1.F : x); // ±0 and NaN stay
    case Op::kROUND: return rintf(x);                            // to nearest, ties to even
    case Op::kISINF: return isinf(x) ? 1.F : 0.F;
    case Op::kISNAN: return isnan(x) ? 1.F : 0.F;
    case Op::kNOT: break; // kBOOL only
    }
    return 0.F;
}

} // namespace kiln::cuda::unary
