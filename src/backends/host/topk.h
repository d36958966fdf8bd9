// SPDX-License-Identifier: Apache-2.0
// Host reference of ITopKLayer: along one axis, the k largest (kMAX) or smallest (kMIN) elements, sorted (largest or
// smallest first), and their indices along the axis.
//
//     TopKParams params{TopKOperation::kMAX, 2, 1U << 1, DataType::kINT32};   // network/params.h
//     // in kFLOAT [2, 5] gives values kFLOAT [2, 2] and indices kINT32 [2, 2]
//     Status const done = runTopK(params, in.tensor(), values.tensor(), indices.tensor());
//
// The rules (topk.cpp lists where each was established):
// - axes has exactly one bit, below the input's rank; 0 <= k <= the axis' extent (k == 0 gives empty outputs). params.k
//   is k however the layer gives it (the layer's descriptor reads input 1 into it).
// - Types: kFLOAT, kHALF, kBF16, kINT32, kINT64; values have the input's type, indices params.indicesType (kINT32 or
//   kINT64; an axis longer than INT32_MAX elements needs kINT64).
// - Order: values compare exactly (floating ones as numbers: -0 equals +0; integers as integers). Equal values keep
//   their order along the axis (the lower index first). NaN compares above every number and equal to NaN: kMAX puts
//   NaNs first, kMIN last.
#pragma once

#include "backends/host/tensor_view.h"
#include "network/params.h"

namespace kiln::host
{

//! The types TopK takes.
inline constexpr TypeSet kTopKTypes = kFloatingTypes | typeSet({DataType::kINT32, DataType::kINT64});

//! The type and shape of output 0 (the values); output 1 (the indices) has that shape and params.indicesType. The
//! error refuses an invalid operation, an axes mask without exactly one axis of the input, a type not taken, a k
//! outside [0, the axis' extent], or an indices type other than kINT32 and kINT64.
Expected<TensorDesc> inferTopK(TopKParams const& params, TensorDesc const& in);

//! Computes the top k after checking what inferTopK checks, the outputs' types and shapes, and each tensor's data.
Status runTopK(TopKParams const& params, HostTensor const& in, HostTensor const& values, HostTensor const& indices);

} // namespace kiln::host
