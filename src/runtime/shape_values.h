// SPDX-License-Identifier: Apache-2.0
// Shape values: the layers whose outputs depend only on the engine's constants, the input extents and the values of
// input shape tensors (host memory), so that the executor computes them on the host once per set of input shapes and
// reuses them on every enqueue until the inputs change, as TensorRT computes shape tensors when input shapes are set.
// A CUDA engine then never waits for the device to read such values: its enqueueV3 is capturable in a CUDA graph
// unless a shape depends on data (non-zero, NMS, plugins' size tensors, loops and if-conditionals reading device data).
//
//     std::vector<uint8_t> const candidates = shapeValueCandidates(model);   // per layer
//     // placeLayers (runtime/executor.h) keeps the candidates whose outputs the host reads, or that run on the host
//     // anyway: Placement::precomputed.
//
// A candidate is a deterministic built-in kind (shape, constant, cast, concatenation, element-wise, unary, shuffle,
// reduce, gather, identity, slice, select, a non-random fill, cumulative) outside loops and if-conditionals, without a
// fused kernel, whose outputs have extents known before execution, are kLINEAR, are no network output and are written
// in place by nothing, and whose inputs are candidates' outputs or input shape tensors (an input read only for its
// shape, as a Shape layer's, needs only extents known before execution).
#pragma once

#include "plan/engine_model.h"

#include <cstdint>
#include <vector>

namespace kiln
{

//! Per layer of model: 1 when the layer computes values from input shapes alone (see above).
std::vector<uint8_t> shapeValueCandidates(EngineModel const& model);

//! Whether a layer of this kind computes the same values from the same inputs (shape arithmetic, index comparisons, a
//! linear fill: no random fill, plugin or loop boundary) and may run on the host backend.
bool deterministicKind(LayerRecord const& layer);

//! Per layer of model: 1 when the layer is a reshape whose output is a view of its input's memory rather than a copy
//! (it runs nothing): a shuffle without transposes, its input made by a layer other than a constant and no network
//! output, its output no network output, debug or shape tensor, both of one type, scale and kLINEAR, of extents known
//! before any layer runs, the layer no shape-value candidate; none in an engine with loops, conditionals,
//! data-dependent layers or plugins.
std::vector<uint8_t> reshapeViews(EngineModel const& model);

//! Per tensor: the tensor whose memory it lives in. aliasRoots (a plugin's output written in place of an input), and
//! the output of each layer with LayerRecord::viewsInput (the builder sets it where reshapeViews allows) in its input's
//! memory.
std::vector<int32_t> memoryRoots(EngineModel const& model);

} // namespace kiln
