// SPDX-License-Identifier: Apache-2.0
// Host reference of IMatrixMultiplyLayer: out = op0(a) * op1(b) for every combination of MatrixOperation, with batch
// broadcasting, computed in double and stored rounded once.
//
//     MatrixMultiplyParams params;                 // network/params.h
//     params.ops[1] = MatrixOperation::kTRANSPOSE;
//     // a [2, 3, 4] and b [1, 5, 4] give out [2, 3, 5]
//     Status const done = runMatrixMultiply(params, a.tensor(), b.tensor(), out.tensor());
//
// The rules (matrix_multiply.cpp lists where each was established):
// - kNONE reads the last two axes as a matrix [M, K] (input 0) or [K, N] (input 1); kTRANSPOSE the same transposed;
//   kVECTOR reads the last axis as a vector [K]. The axes before those are batch axes: both inputs need the same number
//   of batch axes, with extents equal or one of them 1 (broadcast; 1 against 0 gives 0).
// - The output is [batch..., M, N] for matrix x matrix, [batch..., M] for matrix x vector, [batch..., N] for
//   vector x matrix, [batch...] for vector x vector. K must agree.
// - Types: kFLOAT, kHALF, kBF16 and (scaled like kINT8, TensorRT lists float8) kFP8; both inputs and the output have
//   one type. Integer types are refused: TensorRT's MatrixMultiply takes float16, float32, bfloat16, float8.
#pragma once

#include "backends/host/tensor_view.h"
#include "network/params.h"

#include <span>

namespace kiln::host
{

using nvinfer1::MatrixOperation;

//! The types a matrix multiply accepts (inputs and output of one type).
inline constexpr TypeSet kMatrixMultiplyTypes = kFloatingTypes | typeSet({DataType::kFP8});

//! One operand treatment: its name and how many trailing axes it reads as the operand.
struct MatrixOpInfo
{
    MatrixOperation op;
    char const* name;   //!< "kNONE".
    int32_t matrixAxes; //!< 2 for a matrix, 1 for a vector.
    bool transposed;    //!< Whether the two axes are read transposed.
};

//! Every MatrixOperation, in enum order.
std::span<MatrixOpInfo const> matrixOps() noexcept;

//! The row of op, or nullptr for a value outside the enum.
MatrixOpInfo const* findMatrixOp(MatrixOperation op) noexcept;

//! The output's type and shape, or the error that refuses the inputs: an unknown operation, a type not accepted or
//! different types, a rank below what the operation reads, different batch ranks, non-broadcastable batch extents, or
//! inner extents that differ.
Expected<TensorDesc> inferMatrixMultiply(MatrixMultiplyParams const& params, TensorDesc const& a, TensorDesc const& b);

//! Computes the product after checking what inferMatrixMultiply checks, the output's type and shape, and each tensor's
//! data and scale. The output must not alias an input.
Status runMatrixMultiply(
    MatrixMultiplyParams const& params, HostTensor const& a, HostTensor const& b, HostTensor const& out);

} // namespace kiln::host
