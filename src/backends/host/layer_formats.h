// SPDX-License-Identifier: Apache-2.0
// Host reference of layers whose tensors are not all kLINEAR: the convolutions and poolings a build runs channels-last
// (builder/layout.h). The host kernels compute on linear tensors, so such a layer runs on linear copies: each input in
// another format is reformatted (reformat.h) into a linear buffer, each such output is computed into one and then
// reformatted into place (padding written as zero, as the CUDA kernels leave it). A channels-last convolution stores
// its kernel KRSC with its channels padded as its input's (refit.h, kernelChannelsLast); the copy reads it back into
// the KCRS [K, C / groups, spatial...] the host convolution takes. So a host engine built with the CUDA build's
// layouts computes what the linear engine computes, and is the reference for the CUDA kernels of every format.
//
//     if (hasOtherFormats(layer, model))
//         return runThroughLinear(layer, model, inputs, outputs, [](LayerRecord const& layer, LayerParams const&
//         params,
//             auto in, auto out) { return runLayerKind(params, in, out); });
#pragma once

#include "backends/host/tensor_view.h"
#include "plan/engine_model.h"

#include <functional>
#include <span>

namespace kiln::host
{

//! Whether layer reads or writes a tensor of model in a format other than kLINEAR.
bool hasOtherFormats(LayerRecord const& layer, EngineModel const& model) noexcept;

//! Runs a layer on linear tensors: the layer, the parameters to run it with (the layer's, or a copy whose kernel is
//! linear), its inputs and outputs.
using LinearRun = std::function<Status(LayerRecord const& layer, LayerParams const& params,
    std::span<HostTensor const* const> inputs, std::span<HostTensor const> outputs)>;

//! Runs layer (whose inputs and outputs are laid out in their formats in model) through run on linear copies, as the
//! file comment says; run's error, or a reformat's.
Status runThroughLinear(LayerRecord const& layer, EngineModel const& model, std::span<HostTensor const* const> inputs,
    std::span<HostTensor const> outputs, LinearRun const& run);

} // namespace kiln::host
