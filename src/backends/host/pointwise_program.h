// SPDX-License-Identifier: Apache-2.0
// Host reference of a fused point-wise program (LayerRecord::pointwise, plan/engine_model.h): for every element of
// the output, the steps in order on the inputs' elements (broadcast), the last step's result written. Each step
// computes what the unfused host kernel computes for its operation (the floating functions of elementWiseOps(),
// unaryOps() and activations()) on float operands, its result rounded to float; the output is rounded once, from the
// last step's float, to its type. So a program equals its chain of runElementWise / runUnary / runActivation on kFLOAT
// tensors, the inputs widened to kFLOAT and the last result narrowed to the output's type.
//
//     // out = (x - mean) * gamma: inputs x [2, 3], mean [2, 1], gamma [1, 3]
//     std::vector<PointwiseStep> const program{
//         {PointwiseStep::Kind::kELEMENTWISE, static_cast<int32_t>(ElementWiseOperation::kSUB), 0.F, 0.F, 0, 1},
//         {PointwiseStep::Kind::kELEMENTWISE, static_cast<int32_t>(ElementWiseOperation::kPROD), 0.F, 0.F,
//             pointwiseStepOperand(0), 2}};
//     std::array<HostTensor const*, 3> const inputs{&x, &mean, &gamma};
//     Status const done = runPointwiseProgram(program, inputs, out);
//
// The rules (checkPointwiseProgram): at least one step; each step an arithmetic element-wise operation (kSUM, kPROD,
// kMAX, kMIN, kSUB, kDIV, kPOW, kFLOOR_DIV), a unary operation with a float result (not kNOT, kISINF, kISNAN) or any
// activation; operands an input (v >= 0, below the input count) or an earlier step (v < 0: step -1 - v), b 0 unless
// the step is element-wise; inputs and output of one type, kFLOAT, kHALF or kBF16; every input of the output's rank,
// each extent the output's or 1.
#pragma once

#include "backends/host/tensor_view.h"
#include "plan/engine_model.h"

#include <span>

namespace kiln::host
{

//! Done, or the error naming the step or tensor that breaks a rule of the file comment (for inputs and output of
//! these types and shapes).
Status checkPointwiseProgram(
    std::span<PointwiseStep const> program, std::span<TensorDesc const> inputs, TensorDesc const& output);

//! The value of one checked step on operands a and b (b unused unless the step is element-wise), in double, as the
//! unfused host kernel computes it before rounding: the program rounds it to float.
double pointwiseStepValue(PointwiseStep const& step, double a, double b) noexcept;

//! Computes the program into output after checking what checkPointwiseProgram checks and each tensor's data (no
//! input may be null). output may be an input of its own shape. On an error nothing is written.
Status runPointwiseProgram(
    std::span<PointwiseStep const> program, std::span<HostTensor const* const> inputs, HostTensor const& output);

} // namespace kiln::host
