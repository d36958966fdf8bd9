// SPDX-License-Identifier: Apache-2.0
// Host reference of IConvolutionLayer: 2-D and 3-D cross-correlation with groups, stride, dilation, explicit padding
// and bias, computed in double and stored rounded once to the output type.
//
//     ConvolutionParams params;                    // network/params.h: what the network stores
//     params.nbOutputMaps = 8;
//     params.kernelSize = Dims{2, {3, 3}};
//     params.kernel = Weights{DataType::kFLOAT, kernel.data(), 8 * 4 * 3 * 3};
//     Status const done = runConvolution(params, input.tensor(), output.tensor()); // input [N, 4, H, W]
//
// The rules (convolution.cpp lists where each was established):
// - The input is [N, C, spatial...] with 2 or 3 spatial axes (params.kernelSize's rank); the output is [N, K, out...]
//   with K = nbOutputMaps and out = floor((in + pre + post - (1 + dilation * (kernel - 1))) / stride) + 1.
// - Padding is explicit: the dispatch (layer_kinds.cpp) resolves params.paddingMode with resolvePadding (window.h)
//   first; this kernel reads prePadding and postPadding and ignores paddingMode. Stride, dilation and padding of rank
//   0 mean all 1, all 1 and all 0.
// - Groups G divide C and K. The kernel is KCRS (KCDRS for 3-D) with C/G input channels: params.kernel (count
//   K * C/G * prod(kernelSize)) or, when params.kernel is empty, operands.kernel, a tensor of that shape. The bias is
//   params.bias (K values), or operands.bias (a tensor [K]), or none.
// - Types: kFLOAT, kHALF, kBF16 and kINT8; the output has the input's type. Kernel weights may be kFLOAT, kHALF,
//   kBF16 or kINT8 (with operands.kernelScales); a kernel tensor has the input's type; the bias is kFLOAT, kHALF or
//   kBF16.
// - INT8 is TensorRT's quantized convolution in real numbers: input q * inputScale, kernel q * kernelScale[k] (one
//   scale per tensor or per output map, as TensorRT quantizes weights per output channel), the bias real, and the
//   output round-half-even(y / outputScale) saturated to [-128, 127]. A GPU kernel that accumulates sum(qx * qw) in
//   int32 and requantizes by inputScale * kernelScale[k] / outputScale agrees to one quantization step.
#pragma once

#include "backends/host/tensor_view.h"
#include "backends/host/window.h"
#include "network/params.h"

#include <span>
#include <vector>

namespace kiln::host
{

//! The types a convolution's input and output may have (the output has the input's type).
inline constexpr TypeSet kConvolutionTypes
    = typeSet({DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8});
//! The types of kernel Weights (kINT8 needs kernelScales).
inline constexpr TypeSet kConvolutionWeightTypes = kConvolutionTypes;
//! The types of bias Weights and bias tensors.
inline constexpr TypeSet kConvolutionBiasTypes = kFloatingTypes;

//! The spatial ranks a convolution supports: 2-D and 3-D.
inline constexpr std::array<int32_t, 2> kConvolutionSpatialRanks{2, 3};

//! What a convolution reads besides params and its input, when the network gives it as tensors.
struct ConvolutionOperands
{
    HostTensor const* kernel{nullptr}; //!< Input 1: [K, C/G, spatial...], used when params.kernel is empty.
    HostTensor const* bias{nullptr};   //!< Input 2: [K], used when params.bias is empty; none when both are absent.
    //! Scales of a kINT8 kernel: empty (a tensor's own scale), 1 (per tensor) or K (per output map). params.h has no
    //! place for them yet.
    std::vector<float> kernelScales;
};

//! The output's type and shape, or the error that refuses them: an input that is not [N, C, spatial...] of a supported
//! type, a bad window, groups that do not divide C or K, a kernel or bias of the wrong count, shape or type.
Expected<TensorDesc> inferConvolution(
    ConvolutionParams const& params, TensorDesc const& input, ConvolutionOperands const& operands = {});

//! Computes the convolution after checking everything inferConvolution checks, that out has the inferred type and
//! shape, and each tensor's data and scale.
Status runConvolution(ConvolutionParams const& params, HostTensor const& input, HostTensor const& output,
    ConvolutionOperands const& operands = {});

} // namespace kiln::host
