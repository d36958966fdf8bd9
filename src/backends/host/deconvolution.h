// SPDX-License-Identifier: Apache-2.0
// Host reference of IDeconvolutionLayer: 2-D and 3-D transposed convolution with groups, stride, dilation, padding
// (explicit or SAME) and bias, computed in double and stored rounded once to the output type.
//
//     DeconvolutionParams params;                  // network/params.h: what the network stores
//     params.nbOutputMaps = 8;
//     params.kernelSize = Dims{2, {3, 3}};
//     params.stride = Dims{2, {2, 2}};
//     params.kernel = Weights{DataType::kFLOAT, kernel.data(), 4 * 8 * 3 * 3};
//     Status const done = runDeconvolution(params, input.tensor(), output.tensor()); // [N, 4, H, W] -> [N, 8, ...]
//
// The rules (network/deconvolution_math.h has the per-axis arithmetic, network/layers/deconvolution.cpp the sources):
// - The input is [N, C, spatial...] with 2 or 3 spatial axes (params.kernelSize's rank); the output is [N, K, out...]
//   with K = nbOutputMaps and out = (in - 1) * stride + 1 + dilation * (kernel - 1) - pre - post, the padding being
//   params' explicit padding or what params.paddingMode resolves to (the SAME modes do not depend on the input).
//   Stride, dilation and padding of rank 0 mean all 1, all 1 and all 0. Every output extent must be at least 1.
// - Groups G divide C and K. The kernel is [C, K/G, spatial...] (CKRS): input channel c of group g = c / (C/G)
//   reaches output maps g * K/G ... (g + 1) * K/G - 1. It is params.kernel (count C * K/G * prod(kernelSize)) or,
//   when params.kernel is empty, operands.kernel, a tensor of that shape. The bias is params.bias (K values), or
//   operands.bias (a tensor [K]), or none.
// - out[n, k, o] = bias[k] + sum over c of group(k), taps t, and input positions i with
//   i * stride + t * dilation == o + pre (per axis) of in[n, c, i] * kernel[c, k mod K/G, t].
// - Types: kFLOAT, kHALF and kBF16; the output has the input's type. Kernel weights and bias may be any of the three;
//   a kernel tensor has the input's type.
#pragma once

#include "backends/host/tensor_view.h"
#include "network/params.h"

#include <array>

namespace kiln::host
{

//! The types a deconvolution's input, output and weights may have (the output has the input's type).
inline constexpr TypeSet kDeconvolutionTypes = kFloatingTypes;

//! What a deconvolution reads besides params and its input, when the network gives it as tensors.
struct DeconvolutionOperands
{
    HostTensor const* kernel{nullptr}; //!< Input 1: [C, K/G, spatial...], used when params.kernel is empty.
    HostTensor const* bias{nullptr};   //!< Input 2: [K], used when params.bias is empty; none when both are absent.
};

//! A deconvolution's geometry, checked: what the host and CUDA kernels compute with. Padding is resolved.
struct DeconvolutionGeometry
{
    int32_t nbSpatial{};
    int64_t batch{};
    int64_t channels{}; //!< C.
    int64_t maps{};     //!< K.
    int64_t groups{};
    std::array<int64_t, 3> in{};
    std::array<int64_t, 3> out{};
    std::array<int64_t, 3> kernel{};
    std::array<int64_t, 3> stride{};
    std::array<int64_t, 3> dilation{};
    std::array<int64_t, 3> pre{};  //!< Trimmed at the start (resolved from the padding mode).
    std::array<int64_t, 3> post{}; //!< Trimmed at the end.
    Dims outputDims{};
    Dims kernelDims{}; //!< [C, K/G, spatial...].
};

//! The geometry, or the error that refuses it: an input that is not [N, C, spatial...] of a supported type, a bad
//! window, groups that do not divide C or K, a kernel or bias of the wrong count, shape or type, an output extent
//! below 1.
Expected<DeconvolutionGeometry> deconvolutionGeometry(
    DeconvolutionParams const& params, TensorDesc const& input, DeconvolutionOperands const& operands = {});

//! The output's type and shape, or the error deconvolutionGeometry gives.
Expected<TensorDesc> inferDeconvolution(
    DeconvolutionParams const& params, TensorDesc const& input, DeconvolutionOperands const& operands = {});

//! Computes the deconvolution after checking everything inferDeconvolution checks, that out has the inferred type and
//! shape, and each tensor's data.
Status runDeconvolution(DeconvolutionParams const& params, HostTensor const& input, HostTensor const& output,
    DeconvolutionOperands const& operands = {});

} // namespace kiln::host
