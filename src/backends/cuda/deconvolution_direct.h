// SPDX-License-Identifier: Apache-2.0
// kiln's own deconvolution kernel (deconvolution.cu), the variant deconvolution.cpp runs where cuDNN cannot and lists
// last among the tactics: one thread per output element gathers, as the host reference does (backends/host/
// deconvolution.cpp), the input elements whose kernel taps land on it, summing in float.
//
//     Status const done = runDeconvolutionDirect(geometry, in, kernel, bias, out, stream);   // device memory
#pragma once

#include "backends/cuda/kernels.h"
#include "backends/host/deconvolution.h"

namespace kiln::cuda
{

//! out = the deconvolution of in (g's geometry, checked by host::deconvolutionGeometry) with kernel ([C, K/G,
//! spatial...], any floating type) and bias ([K], any floating type; may be null). in and out: kFLOAT, kHALF or kBF16,
//! one type. Launched on stream.
Status runDeconvolutionDirect(host::DeconvolutionGeometry const& g, DeviceTensor const& in, DeviceTensor const& kernel,
    DeviceTensor const* bias, DeviceTensor const& out, cudaStream_t stream);

} // namespace kiln::cuda
