// SPDX-License-Identifier: Apache-2.0
// Host references of the layers that copy without computing: IConstantLayer (the weights into the output) and
// IShapeLayer (the input's extents). IIdentityLayer is cast.h's runCast: a cast to the same type copies.
//
//     ConstantParams params{Dims{1, {3}}, Weights{DataType::kFLOAT, values, 3}};   // network/params.h
//     Status const done = runConstant(params, out.tensor());
//
// The rules (NvInfer.h's IConstantLayer and IShapeLayer; network/layers/constant.cpp and shape.cpp):
// - Constant: the output has the weights' type and params.dims; weights.count equals the element count. The bytes are
//   copied as they are, so every weights type moves, the packed kINT4 and kFP4 included (their storage is
//   storageBytes(type, count), packed two to a byte).
// - Shape: the output is kINT64 [rank] holding the input's extents ([0] for a rank-0 input); the input's type and data
//   are not read.
#pragma once

#include "backends/host/tensor_view.h"
#include "network/params.h"

namespace kiln::host
{

//! The constant's output type and shape, or the error naming the weights' type, count or dims.
Expected<TensorDesc> inferConstant(ConstantParams const& params);

//! Copies the weights into out after checking what inferConstant checks and out's type and shape.
Status runConstant(ConstantParams const& params, HostTensor const& out);

//! The shape layer's output: kINT64 [rank of in].
Expected<TensorDesc> inferShape(ShapeParams const& params, TensorDesc const& in);

//! Writes in's extents into out (kINT64 [rank]).
Status runShape(ShapeParams const& params, TensorDesc const& in, HostTensor const& out);

} // namespace kiln::host
