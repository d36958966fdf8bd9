// SPDX-License-Identifier: Apache-2.0
// Host reference of IReduceLayer: out = op over the axes in a bit mask, for every ReduceOperation that the layer
// takes, computed in double (floating and scaled types) or int64_t (integer types). The operations are one table,
// reduceOps(), that the kernel, the support check and the tests all read.
//
//     ReduceParams params{ReduceOperation::kMAX, 0b101, true};   // network/params.h
//     // in [2, 3, 4] gives out [1, 3, 1]; keepDimensions false gives [3]
//     Status const done = runReduce(params, in.tensor(), out.tensor());
//
// The rules (reduce.cpp lists where each was established):
// - Bit i of axes reduces axis i; bits at or above the rank are refused. axes == 0 reduces nothing (a copy).
//   keepDimensions keeps reduced axes with extent 1; otherwise they are removed.
// - Types: kFLOAT, kHALF, kBF16, kINT8 (scaled) and kINT32, kINT64; the output has the input's type (kINT8 scales may
//   differ). kNONE (a collectives-only value) is refused.
// - Floating: kSUM, kPROD, kAVG in double; kMAX and kMIN ignore NaN unless every element is NaN (as kMAX / kMIN of the
//   element-wise layer). An empty reduction gives 0 (kSUM), 1 (kPROD), -inf (kMAX), +inf (kMIN), NaN (kAVG).
// - Integer: kSUM and kPROD wrap around in the output type; kAVG is the exact sum divided by the count truncated
//   toward zero (as integer kDIV); kMAX / kMIN of an empty reduction give the type's lowest / highest value; kAVG of an
//   empty integer reduction is refused.
#pragma once

#include "backends/host/tensor_view.h"
#include "network/params.h"

#include <span>

namespace kiln::host
{

using nvinfer1::ReduceOperation;

//! The types a reduction accepts.
inline constexpr TypeSet kReduceTypes = kFloatingTypes | typeSet({DataType::kINT8, DataType::kINT32, DataType::kINT64});

//! One operation: its name, whether the layer takes it, and how it folds values.
struct ReduceOpInfo
{
    ReduceOperation op;
    char const* name;                           //!< "kSUM".
    bool supported;                             //!< false for kNONE.
    double floatingInit;                        //!< The floating fold's start (and empty result, before kAVG divides).
    double (*floating)(double acc, double x);   //!< nullptr when unsupported.
    int64_t (*integer)(int64_t acc, int64_t x); //!< nullptr when unsupported.
};

//! Every ReduceOperation, in enum order.
std::span<ReduceOpInfo const> reduceOps() noexcept;

//! The row of op, or nullptr for a value outside the enum.
ReduceOpInfo const* findReduceOp(ReduceOperation op) noexcept;

//! The output's type and shape, or the error that refuses the input: an unknown or unsupported operation, a type
//! not accepted, an invalid shape, axes outside the rank.
Expected<TensorDesc> inferReduce(ReduceParams const& params, TensorDesc const& in);

//! Computes the reduction after checking what inferReduce checks, the output's type and shape, and each tensor's data
//! and scale.
Status runReduce(ReduceParams const& params, HostTensor const& in, HostTensor const& out);

} // namespace kiln::host
