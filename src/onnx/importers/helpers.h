// SPDX-License-Identifier: Apache-2.0
// Building blocks the op importers share: inputs as tensors, axes, broadcasting to a common rank, casts, constants
// and shape tensors. Each adds layers named after the node being imported.
//
//     nvinfer1::ITensor& x = inputTensor(ctx, node, 0);
//     int32_t axis = normalizeAxis(node.attrs.get<int64_t>("axis", 1), x.getDimensions().nbDims);
//     auto [a, b] = broadcastPair(ctx, inputTensor(ctx, node, 0), inputTensor(ctx, node, 1));
#pragma once

#include "onnx/op_registry.h"

#include <string>
#include <utility>
#include <vector>

namespace kiln::onnx_import
{

using nvinfer1::ITensor;

//! Input i of the node as a tensor (weights become a constant layer).
ITensor& inputTensor(ImportContext& ctx, Node const& node, size_t i);

//! The output of a layer the network added (named after the node), as the node's value.
Value output(ITensor* tensor);

//! axis in [-rank, rank) made non-negative; otherwise fails with kINVALID_NODE naming the attribute.
int32_t normalizeAxis(int64_t axis, int32_t rank, char const* what = "axis");

//! The tensor with rank dimensions: 1s prepended as numpy broadcasting does (no layer when it has them already).
ITensor& expandRank(ImportContext& ctx, ITensor& tensor, int32_t rank);

//! Both tensors at the rank of the larger one, for element-wise layers (which broadcast dimensions of 1).
std::pair<ITensor*, ITensor*> broadcastPair(ImportContext& ctx, ITensor& a, ITensor& b);

//! The tensor converted to type (no layer when it has that type). kUINT8 goes through kFLOAT where kiln casts it
//! only to and from floating types; a kINT8 result holds plain integers (scale 1).
ITensor& castTo(ImportContext& ctx, ITensor& tensor, DataType type);

//! Whether type is kFLOAT, kHALF or kBF16.
bool isFloating(DataType type);

//! The floating type an element-type attribute (an ONNX TensorProto code, fallback when absent) names; DOUBLE
//! computes in kFLOAT. Other types fail with kUNSUPPORTED_NODE_ATTR naming the attribute.
DataType floatingTypeAttribute(Node const& node, char const* name, int64_t fallback);

//! Input 0, which must be floating point; otherwise fails with kUNSUPPORTED_NODE_DATATYPE naming the op and type.
ITensor& floatingInput(ImportContext& ctx, Node const& node);

//! op(x): an IUnaryLayer.
ITensor& unary(ImportContext& ctx, ITensor& x, nvinfer1::UnaryOperation op);

//! a op b with numpy broadcasting: an IElementWiseLayer.
ITensor& binary(ImportContext& ctx, ITensor& a, ITensor& b, nvinfer1::ElementWiseOperation op);

//! Row-major strides, in elements, of a tensor of shape dims.
std::vector<int64_t> stridesOf(Dims const& dims);

//! dims for messages: "[2,3]".
std::string shapeText(Dims const& dims);

//! A constant of type holding value, of rank rank with every dimension 1 (ready to broadcast).
ITensor& scalarConstant(ImportContext& ctx, double value, DataType type, int32_t rank);

//! A 1-D INT64 constant.
ITensor& int64Constant(ImportContext& ctx, std::vector<int64_t> const& values);

//! An INT64 constant of shape holding values.
ITensor& int64Constant(ImportContext& ctx, std::vector<int64_t> const& values, Dims const& shape);

//! The row-major positions of the elements within the axes of the mask (the trailing axes from some axis on, or one
//! axis), as INT64 shaped to broadcast against x. Static extents give a constant; one run-time axis, an IFillLayer
//! ramp.
ITensor& axisPositions(ImportContext& ctx, ITensor& x, uint32_t axes);

//! The shape of tensor as a 1-D INT64 tensor (IShapeLayer).
ITensor& shapeOf(ImportContext& ctx, ITensor& tensor);

//! Whether every dimension is known at build time.
bool isStatic(Dims const& dims);

//! The values of a node input that must be known at parse time (an initializer or Constant output), as int64s;
//! fails naming what the input is for otherwise.
std::vector<int64_t> constantInts(Node const& node, size_t i, char const* what);

//! The same, as doubles.
std::vector<double> constantNumbers(Node const& node, size_t i, char const* what);

//! Dims from int64 values.
Dims toDims(std::vector<int64_t> const& values);

} // namespace kiln::onnx_import
