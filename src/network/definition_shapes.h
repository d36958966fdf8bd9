// SPDX-License-Identifier: Apache-2.0
// A layer's output shapes as the network definition reports them (ITensor::getDimensions), through the layer's symbolic
// rule (network/shape_rules.h) rather than its Dims-level one, for the kinds whose outputs depend on shape-tensor
// values: a reshape to a shape computed by Shape -> Gather -> Concatenation knows every extent but the batch.
//
//     ExprContext exprs;
//     auto outputs = inferFromDefinition(shuffle, exprs);   // outputs.value()[0].shape: [x.d0, 20]
//
// Each input is taken as the definition reports it (Tensor::dims, each -1 extent a symbol of that tensor and axis, so
// the same unknown extent met twice is one symbol), except a small index tensor that a layer computes from shapes or
// values (Shape, Constant, Gather, Concatenation, element-wise, ...): that layer's rule is followed back, a few layers
// at most, for the values. The work is that of the few layers followed, plus one Tensor::dims per other input.
#pragma once

#include "network/layer.h"
#include "network/shape_rules.h"

namespace kiln
{

//! The outputs of layer from its inputs as the definition knows them (see above); an error when the rule refuses.
Expected<std::vector<SymbolicTensor>> inferFromDefinition(Layer const& layer, ExprContext& exprs);

} // namespace kiln
