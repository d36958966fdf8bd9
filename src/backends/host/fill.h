// SPDX-License-Identifier: Apache-2.0
// Host reference of IFillLayer: kLINSPACE, kRANDOM_UNIFORM and kRANDOM_NORMAL, one table, fillOps(), checked against
// EnumMax<FillOperation>.
//
//     FillParams params;                                   // network/params.h
//     params.op = FillOperation::kLINSPACE; params.alpha = 1.0; params.beta = 0.5;
//     // out kFLOAT [4] = {1, 1.5, 2, 2.5}
//     Status const done = runFill(params, out.tensor());
//
// The rules (fill.cpp says where each comes from):
// - kLINSPACE: out[c] = alpha + sum_i beta[i] * c[i]; output kFLOAT, kINT32 or kINT64. alpha and beta come from
//   params (alpha / beta, or alphaInt64 / betaInt64 when alphaBetaInt64), where the static beta serves a rank 0 or 1
//   output, or from the alpha input (one element) and the beta input (one element per output dimension). Integer
//   outputs compute in int64_t (wrapping) from integer parameters, floating ones in double.
// - kRANDOM_UNIFORM: uniform in [alpha, beta) (alpha the minimum, beta the maximum); kRANDOM_NORMAL: normal with mean
//   alpha and standard deviation beta. Outputs kFLOAT, kHALF or kBF16. The host draws from mt19937_64 seeded with
//   seed (default kFillSeed), 53-bit uniforms and Box-Muller normals, so the values are reproducible on every platform
//   but are not TensorRT's (its generator is unspecified).
// - The output's shape is the caller's (params.dims or input 0, resolved).
#pragma once

#include "backends/host/tensor_view.h"
#include "network/params.h"

#include <span>

namespace kiln::host
{

using nvinfer1::FillOperation;

//! The host's default random seed: "kiln" in ASCII.
inline constexpr uint64_t kFillSeed = 0x6B696C6EULL;

//! One fill operation: its name, the output types it takes and what alpha and beta mean.
struct FillOpInfo
{
    FillOperation op;
    char const* name;  //!< "kLINSPACE".
    TypeSet types;     //!< Output types.
    char const* alpha; //!< "start", "minimum", "mean".
    char const* beta;  //!< "delta per dimension", "maximum", "standard deviation".
};

//! Every FillOperation, in enum order.
std::span<FillOpInfo const> fillOps() noexcept;

//! The output's type for an output of shape dims, or the error naming the operation, type, shape or parameter.
Expected<TensorDesc> inferFill(
    FillParams const& params, Dims const& dims, HostTensor const* alpha = nullptr, HostTensor const* beta = nullptr);

//! Fills out after checking what inferFill checks (out's type must be params.toType).
Status runFill(FillParams const& params, HostTensor const& out, HostTensor const* alpha = nullptr,
    HostTensor const* beta = nullptr, uint64_t seed = kFillSeed);

} // namespace kiln::host
