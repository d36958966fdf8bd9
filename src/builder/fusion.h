// SPDX-License-Identifier: Apache-2.0
// The fusions a CUDA build makes before choosing kernels (builder/build.cpp calls it once every layer is recorded):
//
// - convolution + activation: the activation becomes the convolution's epilogue (LayerRecord::epilogue);
// - matrix multiply + bias + activation: an element-wise kSUM that adds a tensor to the product, without changing its
//   shape, becomes the matrix multiply's third input, and an activation after it its epilogue.
//
// A layer is absorbed only when the tensor between it and the layer before has no other reader: no other layer, no
// network output, no shape symbol. The absorbed layers are removed and the tensors between are left unmade (their
// producer -1); assertions of an absorbed layer move to the layer that absorbed it.
//
//     fuseEpilogues(model);   // model.backend == PlanBackend::kCUDA
#pragma once

#include "plan/engine_model.h"

namespace kiln
{

//! Fuses what the file comment lists into model's convolutions and matrix multiplies; returns the layers removed.
int32_t fuseEpilogues(EngineModel& model);

} // namespace kiln
