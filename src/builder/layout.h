// SPDX-License-Identifier: Apache-2.0
// The convolution layouts of a CUDA build (builder/build.cpp calls it after the fusions, before the activation memory
// is planned and the tactics are timed). cuDNN's tensor-core FP16 and BF16 convolutions read and write NHWC; given
// NCHW tensors they transpose them on every call. So chains of such convolutions, with the poolings between them (a
// ResNet's stem, max pooling and blocks), run channels-last, as TensorRT runs them (kHWC8), with reformat layers where
// a chain meets a neighbour that needs kLINEAR.
//
// - An eligible convolution: a kCONVOLUTION layer (with or without a fused activation) whose input 0 and output are
//   both kHALF or both kBF16, kLINEAR, of rank 4 (2-D) or 5 (3-D), with a constant output channel extent that is a
//   multiple of 8 and a constant input channel extent; its kernel weights (not a kernel tensor) of kFLOAT, kHALF or
//   kBF16; and one group (cuDNN's NHWC kernels for grouped convolutions are not yet checked on a GPU here). A fused
//   residual (input kConvolutionResidualInput, builder/fusion.h) has the output's type and is kLINEAR too. Input
//   channels that are not a multiple of 8 (a network's first convolution: 3 colour channels) are padded: kHWC8
//   stores roundUp(C, 8) channels, the extra ones zero (the reformat from kLINEAR writes them), and the kernel is
//   stored with as many channels, the extra ones zero, so the convolution runs on the padded channels as cuDNN's
//   NHWC tensor-core kernels need (backends/cuda/kernels.h, ConvolutionLayout).
// - An eligible pooling: a kPOOLING layer without fusions whose input and output are both kHALF or both kBF16,
//   kLINEAR, of rank 4 with a 2-D window or rank 5 with a 3-D one, with a constant channel extent (padded channels
//   pool to zero). Eligible convolutions and poolings are the links of chains.
// - An interior tensor: made by a link and read only by links, as a convolution's input 0 or fused residual or a
//   pooling's input; not a network input or output; no shape symbol reads its values. So a ResNet whose blocks end
//   in a convolution with the shortcut fused (each block's output read by the next block's first convolutions and by
//   its last one's residual) runs channels-last from its first convolution (the stem, through its max pooling) to
//   its last block.
// - The rule: links joined by interior tensors form chains, and only a chain of at least two links, one of them a
//   convolution or more, runs channels-last. A lone convolution between linear neighbours stays kLINEAR: its two
//   reformats would cost about what NHWC saves it. A convolution and its pooling gain twice (cuDNN's NHWC kernels,
//   and a pooling that reads 16-byte vectors of channels), so they share the reformats: a ResNet stem (a 7x7
//   convolution of 3 channels and a 3x3 max pooling, 2.6 ms and 1.06 ms of ResNet-50 at batch 256 in NCHW on an H200)
//   runs channels-last even alone. Poolings without a convolution stay kLINEAR.
// - In a chosen chain the interior tensors become kHWC8 (kDHWC8). An input (input 0, or a fused residual, which must
//   be in the output's format) that is not interior gets a channels-last twin, made by a reformat layer (an identity
//   between the two formats) placed before the first chosen link that reads it; an output that is not interior is
//   written to a channels-last twin that a reformat layer right after the link rewrites into the original tensor (a
//   chosen link that reads the original reads the twin instead). Names follow the reformats around plugins
//   (build.cpp): layers "<layer> input 0 to kHWC8" (input 3 for a residual) and "<layer> output 0 from kHWC8",
//   tensors "<tensor> (kHWC8)".
// - A chosen convolution's kernel weights are stored KRSC ([K, spatial..., C] in memory, C padded to a multiple of 8
//   as its input is) in the convolution's data type, the layout in which the CUDA convolution reads the kernel of
//   channels-last tensors (backends/cuda/kernels.h, ConvolutionLayout); a blob that no other weights point into is
//   rewritten in place. The host backend runs such layers too (backends/host/layer_formats.h), so a host engine built
//   with LayoutScope::kANY_BACKEND is the reference of a CUDA engine's layouts.
//
//     std::vector<int32_t> twins;
//     int32_t const convolutions = chooseConvolutionLayouts(model, &twins);   // model.backend == PlanBackend::kCUDA
//     // model.tensors[size before + i] is a twin of model.tensors[twins[i]]: the same shapes, another format
#pragma once

#include "plan/engine_model.h"

#include <cstdint>
#include <vector>

namespace kiln
{

//! Which engines the pass rewrites: CUDA engines only (their cuDNN convolutions gain), or host engines too (the
//! reference of the layouts, for tests; KILN_CHANNELS_LAST=1 asks it of a host build: builder/build.cpp).
enum class LayoutScope : int32_t
{
    kCUDA_ONLY,
    kANY_BACKEND,
};

//! Chooses channels-last layouts for model's convolution chains as the file comment says (nothing for a host engine
//! unless scope says so); returns the number of convolutions that run channels-last. twins (may be null) receives, for
//! each tensor the pass appends to model.tensors, in order, the index of the tensor whose shapes it has.
int32_t chooseConvolutionLayouts(
    EngineModel& model, std::vector<int32_t>* twins = nullptr, LayoutScope scope = LayoutScope::kCUDA_ONLY);

} // namespace kiln
