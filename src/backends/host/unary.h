// SPDX-License-Identifier: Apache-2.0
// Host reference of IUnaryLayer: out = op(in) for every UnaryOperation, computed in double (floating and scaled
// types) or int64_t (integer and bool types). The operations are one table, unaryOps(), that the kernel, the support
// check and the tests all read.
//
//     HostBuffer in(DataType::kHALF, Dims{1, {4}}), out(DataType::kBOOL, Dims{1, {4}});
//     Status const done = runUnary({UnaryOperation::kISNAN}, in.tensor(), out.tensor());
//
// The rules (unary.cpp lists where each was established):
// - kNOT takes and produces kBOOL. kABS and kSIGN take kFLOAT, kHALF, kBF16, kINT8, kFP8, kINT32, kINT64. kISINF and
//   kISNAN take kFLOAT, kHALF, kBF16, kFP8 and produce kBOOL. Every other operation takes kFLOAT, kHALF, kBF16, kINT8
//   and kFP8 (kiln's extension, scaled like kINT8). The output has the input's type unless it is kBOOL.
// - Floating operations are the C++ <cmath> functions in double, the result rounded once to the output type: kRECIP is
//   1 / x, kROUND rounds half to even (-0.5 gives -0), kSIGN gives -1, +1, or x itself for ±0 and NaN.
// - Integer kABS wraps: |INT_MIN| is INT_MIN (two's complement), as GPU integer negation does.
#pragma once

#include "backends/host/tensor_view.h"

#include "NvInfer.h"

#include <span>

namespace kiln::host
{

using nvinfer1::UnaryOperation;

//! The parameters of a unary kernel.
struct UnaryParams
{
    UnaryOperation op{UnaryOperation::kEXP};
};

//! One operation: its name, the input types it accepts, its output type, and how it computes.
struct UnaryOpInfo
{
    UnaryOperation op;
    char const* name;              //!< "kEXP".
    TypeSet inputs;                //!< The input types accepted.
    bool boolOutput;               //!< Output kBOOL (kISINF, kISNAN, kNOT); otherwise the input type.
    double (*floating)(double x);  //!< For floating and scaled inputs; nullptr when none are accepted.
    int64_t (*integer)(int64_t x); //!< For integer and bool inputs; nullptr when none are accepted.
};

//! Every operation, in enum order: one row for each UnaryOperation.
std::span<UnaryOpInfo const> unaryOps() noexcept;

//! The row of op, or nullptr for a value outside the enum.
UnaryOpInfo const* findUnaryOp(UnaryOperation op) noexcept;

//! The output's type and shape for input in, or the error that refuses it (an unknown operation, an input type the
//! operation does not accept, an invalid shape).
Expected<TensorDesc> inferUnary(UnaryParams const& params, TensorDesc const& in);

//! Computes out = op(in) after checking what inferUnary checks, that out has the inferred type and shape, and each
//! tensor's data and scale. out may be in when the types match.
Status runUnary(UnaryParams const& params, HostTensor const& in, HostTensor const& out);

} // namespace kiln::host
