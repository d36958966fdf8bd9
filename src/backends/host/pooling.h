// SPDX-License-Identifier: Apache-2.0
// Host reference of IPoolingLayer: max, average and max-average blend over 2-D and 3-D windows with stride and
// explicit padding, computed in double and stored rounded once. The pooling types are one table, poolingTypes().
//
//     PoolingParams params;                        // network/params.h
//     params.type = PoolingType::kAVERAGE;
//     params.windowSize = Dims{2, {2, 2}};
//     params.stride = Dims{2, {2, 2}};
//     Status const done = runPooling(params, in.tensor(), out.tensor()); // in [1, 3, 4, 4], out [1, 3, 2, 2]
//
// The rules (pooling.cpp lists where each was established):
// - The last 2 or 3 axes (params.windowSize's rank) are spatial; every axis before them (at least one) is pooled
//   independently. Output extents are floor((in + pre + post - window) / stride) + 1. Padding is explicit: the
//   dispatch (layer_kinds.cpp) resolves params.paddingMode with resolvePadding (window.h) first; this kernel ignores
//   paddingMode. Stride and padding of rank 0 mean all 1 and all 0. Padding must be smaller than the window on each
//   axis.
// - kMAX: the maximum of the window's elements inside the input (padding never wins); NaN is ignored unless every
//   element is NaN. kAVERAGE: the sum over the window's elements inside the input divided by the count of the window's
//   positions inside the unpadded input (averageCountExcludesPadding) or inside the padded input (otherwise).
//   kMAX_AVERAGE_BLEND: (1 - blendFactor) * max + blendFactor * average, blendFactor in [0, 1].
// - Types: kFLOAT, kHALF, kBF16 and kINT8 (scaled; the output's scale may differ); the output has the input's type.
#pragma once

#include "backends/host/tensor_view.h"
#include "backends/host/window.h"
#include "network/params.h"

#include <span>

namespace kiln::host
{

using nvinfer1::PoolingType;

//! The types pooling accepts (the output has the input's type).
inline constexpr TypeSet kPoolingTypes = typeSet({DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8});

//! One pooling type: its name and the weights of max and average in its result (blend: 1 - f and f).
struct PoolingTypeInfo
{
    PoolingType type;
    char const* name; //!< "kMAX".
    bool usesMax;
    bool usesAverage;
};

//! Every PoolingType, in enum order.
std::span<PoolingTypeInfo const> poolingTypes() noexcept;

//! The row of type, or nullptr for a value outside the enum.
PoolingTypeInfo const* findPoolingType(PoolingType type) noexcept;

//! The output's type and shape, or the error that refuses the input: an unknown pooling type, a type not accepted, a
//! rank below the window's + 1, a bad window, padding not smaller than the window, a blend factor outside [0, 1].
Expected<TensorDesc> inferPooling(PoolingParams const& params, TensorDesc const& in);

//! Computes the pooling after checking what inferPooling checks, the output's type and shape, and each tensor's data
//! and scale.
Status runPooling(PoolingParams const& params, HostTensor const& in, HostTensor const& out);

} // namespace kiln::host
