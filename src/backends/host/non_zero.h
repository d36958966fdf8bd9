// SPDX-License-Identifier: Apache-2.0
// Host reference of INonZeroLayer: the coordinates of the input's non-zero elements.
//
//     NonZeroParams params{DataType::kINT64};   // network/params.h
//     // in kFLOAT [2, 3] holding 2 non-zero elements: indices kINT64 [2, 6] (room for all 6), count kINT64 []
//     Status const done = runNonZero(params, in.tensor(), indices.tensor(), count.tensor());
//     // indices now hold [2, 2] in row-major order (their first 4 elements), count holds 2
//
// The rules: the input is kFLOAT, kHALF, kBF16, kINT8, kINT32, kINT64 or kBOOL (kNonZeroTypes); an element is
// non-zero when it does not compare equal to 0 (so NaN is non-zero, -0 is not; a kINT8 element when its code is not 0).
// The indices are params.indicesType (kINT32 or kINT64) and have room for every element: shape [rank, c] with c at
// least the volume (the executor places them at the count's upper bound; a 0-D input has [0, 1]). The kernel writes the
// n non-zero elements' coordinates compactly as a [rank, n] tensor, row r holding coordinate r of each element,
// elements in row-major order, and n into count (a 0-D kINT32 or kINT64 tensor). The executor then gives the indices
// the shape [rank, n].
#pragma once

#include "backends/host/tensor_view.h"
#include "network/params.h"

#include <optional>
#include <string>

namespace kiln::host
{

//! The input types a non-zero layer takes.
inline constexpr TypeSet kNonZeroTypes
    = kFloatingTypes | typeSet({DataType::kINT8, DataType::kINT32, DataType::kINT64, DataType::kBOOL});

//! The indices' type and the shape with room for every element, [rank, volume]; the error refuses an input type not
//! taken, a shape that is not concrete, or an indices type other than kINT32 and kINT64.
Expected<TensorDesc> inferNonZero(NonZeroParams const& params, TensorDesc const& in);

//! Why indices cannot hold the result whose room inferNonZero gave (the type, [rank, at least volume]), or nullopt.
std::optional<std::string> indicesProblem(TensorDesc const& room, HostTensor const& indices);

//! Whether element index of in is non-zero (the rule above).
bool isNonZeroElement(HostTensor const& in, int64_t index) noexcept;

//! Writes the coordinates of in's non-zero elements into indices (compactly, [rank, n]) and n into count, after
//! checking what inferNonZero checks, indicesProblem, that count is 0-D kINT32 or kINT64, and each tensor's data.
Status runNonZero(
    NonZeroParams const& params, HostTensor const& in, HostTensor const& indices, HostTensor const& count);

} // namespace kiln::host
