// SPDX-License-Identifier: Apache-2.0
// Small checks and shape rules the layer kinds share: what is wrong with weights, broadcasting, window extents,
// permutations. The rules give -1 for an extent they cannot tell without symbolic inference.
#pragma once

#include "network/params.h"

#include <initializer_list>
#include <optional>
#include <string>

namespace kiln
{

//! Why weights are unusable (null values with a non-zero count, a negative count, an invalid type), or nullptr.
char const* weightsProblem(Weights const& weights) noexcept;

//! The number of elements of a static shape, or nullopt when an extent is negative or the product overflows.
std::optional<int64_t> staticVolume(Dims const& dims) noexcept;

//! The largest window size, stride, dilation and padding extent of a convolution, deconvolution or pooling: spans
//! (1 + dilation * (size - 1)) and padded extents then stay far inside int64_t, whatever a plan states.
inline constexpr int64_t kMaxWindowExtent = (int64_t{1} << 31) - 1;

//! The default axis of softmax and concatenation: max(0, rank - 3) (0 for an unknown rank).
constexpr int32_t defaultChannelAxis(int32_t rank) noexcept
{
    return rank > 3 ? rank - 3 : 0;
}

//! The broadcast of shapes of equal rank (extents of 1 stretch); unknown rank when any rank is unknown or ranks
//! differ.
Dims broadcastDims(std::initializer_list<Dims> shapes) noexcept;

//! One spatial extent of a convolution or pooling output, or -1 when input is -1.
int64_t windowOutputExtent(int64_t input, int64_t window, int64_t stride, int64_t prePadding, int64_t postPadding,
    int64_t dilation, nvinfer1::PaddingMode mode) noexcept;

//! The output shape of a convolution or pooling: batch and channels (channels given, or the input's when -2),
//! then the spatial extents.
Dims windowOutputDims(Dims const& input, int64_t channels, Dims const& window, Dims const& stride,
    Dims const& prePadding, Dims const& postPadding, Dims const& dilation, nvinfer1::PaddingMode mode) noexcept;

//! Whether the first rank entries of permutation are a permutation of 0 .. rank - 1.
bool isPermutation(nvinfer1::Permutation const& permutation, int32_t rank) noexcept;

//! dims reordered: extent i of the result is extent permutation.order[i] of dims.
Dims permuteDims(Dims const& dims, nvinfer1::Permutation const& permutation) noexcept;

//! `plugin "name" version "v" namespace "ns"`.
std::string describeIdentity(PluginIdentity const& identity);

//! Whether type is an index type (kINT32 or kINT64).
constexpr bool isIndexType(DataType type) noexcept
{
    return type == DataType::kINT32 || type == DataType::kINT64;
}

} // namespace kiln
