// SPDX-License-Identifier: Apache-2.0
// The convolution layouts of a CUDA build (builder/build.cpp calls it after the fusions, before the activation memory
// is planned and the tactics are timed). cuDNN's tensor-core FP16 and BF16 convolutions read and write NHWC; given
// NCHW tensors they transpose them on every call. So chains of such convolutions run channels-last, as TensorRT runs
// them (kHWC8), with reformat layers where a chain meets a neighbour that needs kLINEAR.
//
// - An eligible convolution: a kCONVOLUTION layer (with or without a fused activation) whose input 0 and output are
//   both kHALF or both kBF16, kLINEAR, of rank 4 (2-D) or 5 (3-D), with constant channel extents that are multiples
//   of 8, so that kHWC8 (kDHWC8 for 3-D) pads no channel and takes the tensor's linear bytes; its kernel weights
//   (not a kernel tensor) of kFLOAT, kHALF or kBF16; and one group (cuDNN's NHWC kernels for grouped convolutions are
//   not yet checked on a GPU here). A fused residual (input kConvolutionResidualInput, builder/fusion.h) has the
//   output's type and is kLINEAR too.
// - An interior tensor: made by an eligible convolution and read only by eligible convolutions, as their input 0 or
//   their fused residual; not a network input or output; no shape symbol reads its values. So a ResNet whose blocks
//   end in a convolution with the shortcut fused (each block's output read by the next block's first convolutions and
//   by its last one's residual) runs channels-last from its first block to its last.
// - The rule: eligible convolutions linked by interior tensors form chains, and only a chain of at least two
//   convolutions (one interior tensor or more) runs channels-last. A lone convolution between linear neighbours stays
//   kLINEAR: its two reformats would cost about what NHWC saves it.
// - In a chosen chain the interior tensors become kHWC8 (kDHWC8). An input (input 0, or a fused residual, which must
//   be in the output's format) that is not interior gets a channels-last twin, made by a reformat layer (an identity
//   between the two formats) placed before the first chosen convolution that reads it; an output that is not interior
//   is written to a channels-last twin that a reformat layer right after the convolution rewrites into the original
//   tensor (a chosen convolution that reads the original reads the twin instead). Names follow the reformats around
//   plugins (build.cpp): layers "<conv> input 0 to kHWC8" (input 3 for a residual) and
//   "<conv> output 0 from kHWC8", tensors "<tensor> (kHWC8)".
// - A chosen convolution's kernel weights are stored KRSC ([K, spatial..., C] in memory) in the convolution's data
//   type, the layout in which the CUDA convolution reads the kernel of channels-last tensors
//   (backends/cuda/kernels.h, ConvolutionLayout); a blob that no other weights point into is rewritten in place.
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

//! Chooses channels-last layouts for model's convolution chains as the file comment says (nothing for a host engine);
//! returns the number of convolutions that run channels-last. twins (may be null) receives, for each tensor the pass
//! appends to model.tensors, in order, the index of the tensor whose shapes it has.
int32_t chooseConvolutionLayouts(EngineModel& model, std::vector<int32_t>* twins = nullptr);

} // namespace kiln
