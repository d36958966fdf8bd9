// SPDX-License-Identifier: Apache-2.0
// Host reference of IActivationLayer: out = f(in; alpha, beta) for every ActivationType, computed in double (the float
// parameters widened exactly) and rounded once to the output type. The functions are one table, activations(), that
// the kernel, the support check and the tests all read.
//
//     HostBuffer in(DataType::kFLOAT, Dims{1, {8}}), out(DataType::kFLOAT, Dims{1, {8}});
//     Status const done = runActivation({ActivationType::kLEAKY_RELU, 0.01F}, in.tensor(), out.tensor());
//
// The functions, as TensorRT's NvInfer.h defines them (activation.cpp says where):
//     kRELU              max(x, 0)
//     kSIGMOID           1 / (1 + exp(-x))
//     kTANH              tanh(x)
//     kLEAKY_RELU        x >= 0 ? x : alpha * x
//     kELU               x >= 0 ? x : alpha * (exp(x) - 1)
//     kSELU              x > 0 ? beta * x : beta * (alpha * exp(x) - alpha)
//     kSOFTSIGN          x / (1 + |x|)
//     kSOFTPLUS          alpha * log(exp(beta * x) + 1)
//     kCLIP              max(alpha, min(beta, x))
//     kHARD_SIGMOID      max(0, min(1, alpha * x + beta))
//     kSCALED_TANH       alpha * tanh(beta * x)
//     kTHRESHOLDED_RELU  x > alpha ? x : 0
//     kGELU_ERF          0.5 * x * (1 + erf(x / sqrt(2)))
//     kGELU_TANH         0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
// Types: kFLOAT, kHALF, kBF16, kINT8 (scaled) and kFP8 (kiln's extension, scaled); kRELU also takes kINT32 and kINT64.
// The output has the input's type (a scaled output uses its own scale). A NaN input gives NaN for every function.
#pragma once

#include "backends/host/tensor_view.h"

#include "NvInfer.h"

#include <span>

namespace kiln::host
{

using nvinfer1::ActivationType;

//! The parameters of an activation kernel: the function and its alpha and beta (as IActivationLayer holds them;
//! functions that do not use one ignore it).
struct ActivationParams
{
    ActivationType type{ActivationType::kRELU};
    float alpha{0.0F};
    float beta{0.0F};
};

//! One function: its name, which parameters it uses, the input types it accepts, and how it computes.
struct ActivationInfo
{
    ActivationType type;
    char const* name; //!< "kRELU".
    bool usesAlpha;
    bool usesBeta;
    TypeSet inputs; //!< The input types accepted; the output has the input's type.
    double (*floating)(double x, double alpha, double beta); //!< For floating and scaled inputs.
    int64_t (*integer)(int64_t x);                           //!< For integer inputs; nullptr when none are accepted.
};

//! Every function, in enum order: one row for each ActivationType.
std::span<ActivationInfo const> activations() noexcept;

//! The row of type, or nullptr for a value outside the enum.
ActivationInfo const* findActivation(ActivationType type) noexcept;

//! The output's type and shape for input in, or the error that refuses it (an unknown function, an input type it
//! does not accept, an invalid shape).
Expected<TensorDesc> inferActivation(ActivationParams const& params, TensorDesc const& in);

//! Computes out = f(in) after checking what inferActivation checks, that out has in's type and shape, and each
//! tensor's data and scale. out may be in.
Status runActivation(ActivationParams const& params, HostTensor const& in, HostTensor const& out);

} // namespace kiln::host
