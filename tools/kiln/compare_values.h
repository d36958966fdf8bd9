// SPDX-License-Identifier: Apache-2.0
// The tensors `kiln compare` compares, in one form whatever produced them: a name, a type name, extents and every
// element as a double (kiln's outputs read with readValue, ONNX Runtime's written as float64, a --loadOutputs file's
// JSON numbers). Also the inputs every runner is given, as raw bytes, and the reading of --loadOutputs files: the
// JSON array --exportOutput writes (trtexec's layout), where null stands for a value that was not finite.
//
//     std::vector<TensorValues> const expected = readOutputsJson("expected.json");   // [{name, dimensions, values}]
//     TensorValues const actual = valuesOf(ioTensor);                                 // an engine's output
//     indexText(unflatten(37, actual.dims));                                           // "[0, 0, 4, 5]"
#pragma once

#include "tensors.h"

#include "NvInferRuntime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln_tool
{

struct TensorValues
{
    std::string name;
    std::string type;          //!< kiln's type name ("FP32", "INT64", ...); empty when unknown (a --loadOutputs file).
    std::vector<int64_t> dims; //!< Empty for a scalar.
    std::vector<double> values;
    //! Elements a --loadOutputs file holds as null: some non-finite value, which one unknown. Empty: none.
    std::vector<bool> unknownNonFinite;
};

//! An input as every runner gets it: the bytes of its elements, with where they came from.
struct InputTensor
{
    std::string name;
    nvinfer1::DataType type{};
    std::vector<int64_t> dims;
    std::vector<char> bytes;
    std::string source; //!< "random (seed 3)" or the --loadInputs file.
};

//! tensor's extents as a list.
std::vector<int64_t> dimsOf(nvinfer1::Dims const& dims);

//! The element count of dims (1 for a scalar).
int64_t elementCount(std::vector<int64_t> const& dims);

//! dims as trtexec writes them: "2x3x8x8"; "scalar" for none.
std::string shapeText(std::vector<int64_t> const& dims);

//! The multi-dimensional index of flat (row-major) element index in dims.
std::vector<int64_t> unflatten(int64_t index, std::vector<int64_t> const& dims);

//! "[0, 2, 5]" ("[]" for a scalar's element).
std::string indexText(std::vector<int64_t> const& index);

//! The values of an I/O tensor's host copy.
TensorValues valuesOf(IoTensor const& tensor);

//! The bytes of an input tensor's host copy.
InputTensor inputOf(IoTensor const& tensor, std::string source);

//! The outputs in a --loadOutputs file (trtexec's --exportOutput layout); a Failure naming the file and the entry
//! when it is not that layout, or when an entry's values do not fill its dimensions.
std::vector<TensorValues> readOutputsJson(std::string const& path);

} // namespace kiln_tool
