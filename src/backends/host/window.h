// SPDX-License-Identifier: Apache-2.0
// The sliding window that convolution and pooling share: resolving a PaddingMode to explicit padding, checking a
// window's extents, and the output extent each spatial axis gets.
//
//     Expected<ExplicitPadding> const padding = resolvePadding(PaddingMode::kSAME_UPPER, Dims{2, {5, 5}},
//         Dims{2, {3, 3}}, Dims{2, {2, 2}}, Dims{2, {1, 1}}, Dims{2, {0, 0}}, Dims{2, {0, 0}});
//     // padding.value().pre == [1, 1], post == [1, 1]: output ceil(5 / 2) = 3
//
// TensorRT's formulas (NvInfer.h's PaddingMode documentation; I input extent, B pre-padding, A post-padding, S stride,
// D dilation, F window, M = I + B + A, DK = 1 + D * (F - 1)):
// - kEXPLICIT_ROUND_DOWN: O = floor((M - DK) / S) + 1.
// - kEXPLICIT_ROUND_UP: O = ceil((M - DK) / S) + 1; resolved as extra post-padding so that rounding down gives O.
// - kSAME_UPPER: O = ceil(I / S); P = floor((I - 1) / S) * S + DK - I; B = floor(P / 2); A = P - B.
// - kSAME_LOWER: the same P; A = floor(P / 2); B = P - A.
// Kernels take resolved padding and always round down. A negative P (a stride larger than the window) resolves to no
// padding, which gives the same O.
#pragma once

#include "backends/host/tensor_view.h"
#include "network/checks.h"

#include "NvInfer.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kiln::host
{

using nvinfer1::PaddingMode;

//! Explicit padding, one extent per spatial axis.
struct ExplicitPadding
{
    Dims pre{};
    Dims post{};
};

//! A window checked and resolved: nbSpatial extents in each member (2 or 3).
struct Window
{
    int32_t nbSpatial{};
    std::array<int64_t, 3> size{};
    std::array<int64_t, 3> stride{};
    std::array<int64_t, 3> dilation{};
    std::array<int64_t, 3> pre{};
    std::array<int64_t, 3> post{};

    //! The extent the window covers on axis i: 1 + dilation * (size - 1).
    int64_t span(int32_t i) const noexcept { return 1 + dilation[i] * (size[i] - 1); }
};

//! Checks and resolves a window: size has 2 or 3 extents, each >= 1; stride and dilation have as many extents, each
//! >= 1, or rank 0 for all 1; pre and post as many extents >= 0, or rank 0 for all 0. The error names what (the
//! layer kind, "convolution") and the member.
Expected<Window> makeWindow(std::string_view what, Dims const& size, Dims const& stride, Dims const& dilation,
    Dims const& pre, Dims const& post);

//! The output extent of axis i for an input extent: floor((input + pre + post - span) / stride) + 1, or the error
//! naming both when the padded input is shorter than the window.
Expected<int64_t> windowOutputExtent(std::string_view what, Window const& window, int32_t i, int64_t input);

//! Explicit padding equivalent to mode for the given input extents (one per spatial axis), as the file comment says.
//! prePadding and postPadding are the explicit padding of the explicit modes (ignored by the SAME modes). The window's
//! members are checked as makeWindow checks them.
Expected<ExplicitPadding> resolvePadding(PaddingMode mode, Dims const& inputExtents, Dims const& windowSize,
    Dims const& stride, Dims const& dilation, Dims const& prePadding, Dims const& postPadding);

//! What a convolution or deconvolution run refuses in its operands, as the message: an input, output, kernel or bias
//! tensor (kernelTensor and biasTensor may be null: the weights are used) that host::checkTensor refuses, named by its
//! role, or weights with a count but no values.
std::optional<std::string> filterOperandsProblem(HostTensor const& input, HostTensor const& output,
    HostTensor const* kernelTensor, HostTensor const* biasTensor, nvinfer1::Weights const& kernel,
    nvinfer1::Weights const& bias);

} // namespace kiln::host
