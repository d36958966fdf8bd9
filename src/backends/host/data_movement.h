// SPDX-License-Identifier: Apache-2.0
// What the host data-movement kernels share (gather, slice, shuffle, concatenation, select, copies): they never
// compute on elements, they copy each element's bytes, so every host type moves the same way and kINT8 / kFP8 scales
// pass through untouched (input and output must have the same type; the output's scale is the caller's business).
//
//     int64_t const strides[8] = ...;   rowMajorStrides(dims, strides);
//     copyElement(out, o, in, i);       // out element o = in element i, byte for byte
//
// Packed types (kINT4, kFP4) have no byte per element and are refused by checkMoveTensor, except where a kernel says
// otherwise (constant copies whole storage).
#pragma once

#include "backends/host/tensor_view.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace kiln::host
{

//! The types the data-movement kernels copy: every host type (element bytes, type-agnostic).
inline constexpr TypeSet kMoveTypes = kHostTypes;

//! Coordinates or strides of a shape, Dims::MAX_DIMS wide.
using Index = std::array<int64_t, Dims::MAX_DIMS>;

//! Row-major element strides of dims (the last axis has stride 1).
Index rowMajorStrides(Dims const& dims) noexcept;

//! The coordinates of linear element index in dims (row-major).
Index coordinatesOf(Dims const& dims, int64_t index) noexcept;

//! Bytes per element of a byte-addressable type (0 for the packed kINT4 and kFP4).
int64_t elementBytes(DataType type) noexcept;

//! Copies element srcIndex of src into element dstIndex of dst (same element size, as checkMoveTensor ensures).
void copyElement(HostTensor const& dst, int64_t dstIndex, HostTensor const& src, int64_t srcIndex) noexcept;

//! checkTensor for a moved tensor: a type in kMoveTypes, a concrete shape, data when it has elements, a valid scale.
//! The error names the tensor as role.
std::optional<Error> checkMoveTensor(HostTensor const& tensor, std::string_view role);

//! Reads element index of an kINT32 or kINT64 tensor (other types read through loadInteger).
int64_t loadIndex(HostTensor const& t, int64_t index) noexcept;

} // namespace kiln::host
