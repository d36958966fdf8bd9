// SPDX-License-Identifier: Apache-2.0
// Host reference of IGatherLayer in its three modes, one table, gatherModes(), checked against EnumMax<GatherMode>.
//
//     GatherParams params{GatherMode::kDEFAULT, 1, 0};   // network/params.h
//     // data [2, 5], indices [3] = {4, 0, 4} gives out [2, 3]: out[a][j] = data[a][indices[j]]
//     Status const done = runGather(params, data.tensor(), indices.tensor(), out.tensor());
//
// The rules (gather.cpp says where each comes from); r is the data's rank, q the indices', k nbElementWiseDims:
// - kDEFAULT (ONNX Gather): out = data[:axis] + indices[k:] + data[axis + 1:];
//   out[a.., j.., b..] = data[a.., indices[(a0 if k == 1), j..], b..]. k is 0 or 1, at most axis and q; with k == 1
//   the data's and the indices' first extents must be equal.
// - kELEMENT (ONNX GatherElements): q == r, k == 0, out has the indices' shape;
//   out[c] = data[c with c[axis] = indices[c]]. Each non-axis extent of the indices is at most the data's.
// - kND (ONNX GatherND): m = the indices' last extent, 1 <= m <= r - k, k < q; out = indices[:q - 1] + data[k + m:];
//   out[j.., b..] = data[(j0 if k == 1), indices[j.., 0..m-1], b..]. axis is ignored.
// - Indices are kINT32 or kINT64 and must lie in [0, extent): TensorRT documents 0 <= I < d and does not wrap negative
//   indices (the ONNX parser adds the wrap itself); kiln refuses a negative or too large index, naming it and the
//   extent, where TensorRT's result is undefined.
// - Data: any host type (bytes are copied); the output has the data's type.
#pragma once

#include "backends/host/tensor_view.h"
#include "network/params.h"

#include <span>

namespace kiln::host
{

using nvinfer1::GatherMode;

//! The index types a gather takes.
inline constexpr TypeSet kGatherIndexTypes = typeSet({DataType::kINT32, DataType::kINT64});

//! One gather mode: its name and its ONNX counterpart.
struct GatherModeInfo
{
    GatherMode mode;
    char const* name; //!< "kDEFAULT".
    char const* onnx; //!< "Gather".
};

//! Every GatherMode, in enum order.
std::span<GatherModeInfo const> gatherModes() noexcept;

//! The output's type and shape, or the error that refuses the inputs (unknown mode, types, ranks, axis, k, extents).
Expected<TensorDesc> inferGather(GatherParams const& params, TensorDesc const& data, TensorDesc const& indices);

//! Gathers after checking what inferGather checks, the output's type and shape, each tensor's data, and every index.
Status runGather(GatherParams const& params, HostTensor const& data, HostTensor const& indices, HostTensor const& out);

} // namespace kiln::host
