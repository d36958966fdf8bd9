// SPDX-License-Identifier: Apache-2.0
// ONNX tensors as parse-time weights: element types, in-model data (raw_data or the typed fields) and external data
// files (memory-mapped, never outside the model's folder).
//
//     ShapedWeights w = importTensor(ctx, initializer);          // fails with a message naming the initializer
//     std::optional<DataType> t = dataTypeFromOnnx(TensorProto::FLOAT16);   // DataType::kHALF
#pragma once

#include "onnx/context.h"

#include <optional>

namespace kiln::onnx_import
{

//! The kiln type of an ONNX element type (TensorProto::DataType), or nullopt for types kiln lacks. DOUBLE maps to
//! kFLOAT (values are converted, with a warning).
std::optional<DataType> dataTypeFromOnnx(int32_t onnxType) noexcept;

//! The name of an ONNX element type, for messages ("FLOAT16").
char const* onnxTypeName(int32_t onnxType) noexcept;

//! The tensor as weights. Data stays where it is when it can (raw_data of the kept model, a mapped file); DOUBLE
//! becomes FLOAT, the typed fields are converted. Fails naming the tensor when its type, shape, size or location
//! is unusable.
ShapedWeights importTensor(ImportContext& ctx, ::onnx::TensorProto const& tensor);

} // namespace kiln::onnx_import
