// SPDX-License-Identifier: Apache-2.0
// Tensor elements of each DataType as the kiln tool handles them: names and sizes, seeded random fills in the type's
// range (trtexec's: [-1, 1] for floating types, [-128, 127] for integers, 0 or 1 for booleans), and reading an
// element as a double for --exportOutput.
#pragma once

#include "NvInferRuntime.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace kiln_tool
{

//! trtexec's name of type: "FP32", "FP16", "INT32", ...
std::string_view typeName(nvinfer1::DataType type) noexcept;

//! The bytes of count elements of type (packed 4-bit types take half a byte each, rounded up).
std::size_t byteCount(nvinfer1::DataType type, int64_t count) noexcept;

//! count elements of type at data, random from seed.
void fillRandom(void* data, nvinfer1::DataType type, int64_t count, uint32_t seed);

//! Element index of type at data as a double; a Failure for the packed and scale types (kINT4, kFP4, kE8M0).
double readValue(void const* data, nvinfer1::DataType type, int64_t index);

} // namespace kiln_tool
