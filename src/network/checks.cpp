// SPDX-License-Identifier: Apache-2.0
#include "network/checks.h"

#include "network/report.h"

#include "core/error.h"

#include <algorithm>

namespace kiln
{

char const* weightsProblem(Weights const& weights) noexcept
{
    if (!isValidEnum(weights.type))
    {
        return "their type is not a valid DataType";
    }
    if (weights.count < 0)
    {
        return "their count is negative";
    }
    if (weights.count > 0 && weights.values == nullptr)
    {
        return "their values are null but their count is not 0";
    }
    return nullptr;
}

std::optional<int64_t> staticVolume(Dims const& dims) noexcept
{
    if (dims.nbDims < 0 || dims.nbDims > Dims::MAX_DIMS)
    {
        return std::nullopt;
    }
    int64_t volume = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        if (dims.d[i] < 0 || __builtin_mul_overflow(volume, dims.d[i], &volume))
        {
            return std::nullopt;
        }
    }
    return volume;
}

Dims broadcastDims(std::initializer_list<Dims> shapes) noexcept
{
    int32_t rank = -2;
    for (Dims const& shape : shapes)
    {
        if (shape.nbDims < 0 || (rank != -2 && shape.nbDims != rank))
        {
            return kUnsetDims;
        }
        rank = shape.nbDims;
    }
    if (rank < 0)
    {
        return kUnsetDims;
    }
    Dims result = filledDims(rank, 1);
    for (int32_t i = 0; i < rank; ++i)
    {
        bool unknown = false;
        for (Dims const& shape : shapes)
        {
            int64_t const extent = shape.d[i];
            if (extent == -1)
            {
                unknown = true;
            }
            else if (extent != 1)
            {
                result.d[i] = extent;
            }
        }
        // An unknown extent broadcast with 1s stays unknown; with a known extent other than 1 it must equal it.
        if (unknown && result.d[i] == 1)
        {
            result.d[i] = -1;
        }
    }
    return result;
}

int64_t windowOutputExtent(int64_t input, int64_t window, int64_t stride, int64_t prePadding, int64_t postPadding,
    int64_t dilation, nvinfer1::PaddingMode mode) noexcept
{
    if (input < 0 || window < 1 || stride < 1 || dilation < 1)
    {
        return -1;
    }
    using nvinfer1::PaddingMode;
    if (mode == PaddingMode::kSAME_UPPER || mode == PaddingMode::kSAME_LOWER)
    {
        return (input + stride - 1) / stride;
    }
    int64_t const span = input + prePadding + postPadding - dilation * (window - 1) - 1;
    if (span < 0)
    {
        return 0;
    }
    bool const roundUp = mode == PaddingMode::kEXPLICIT_ROUND_UP;
    return (roundUp ? (span + stride - 1) / stride : span / stride) + 1;
}

Dims windowOutputDims(Dims const& input, int64_t channels, Dims const& window, Dims const& stride,
    Dims const& prePadding, Dims const& postPadding, Dims const& dilation, nvinfer1::PaddingMode mode) noexcept
{
    if (input.nbDims < 0)
    {
        return kUnsetDims;
    }
    Dims result = input;
    if (input.nbDims >= 2 && channels != -2)
    {
        result.d[1] = channels;
    }
    int32_t const spatial = window.nbDims;
    int32_t const first = input.nbDims - spatial;
    bool const consistent = first >= 0 && stride.nbDims == spatial && prePadding.nbDims == spatial
        && postPadding.nbDims == spatial && dilation.nbDims == spatial;
    for (int32_t i = 0; i < spatial && first >= 0; ++i)
    {
        result.d[first + i] = consistent ? windowOutputExtent(input.d[first + i], window.d[i], stride.d[i],
                                  prePadding.d[i], postPadding.d[i], dilation.d[i], mode)
                                         : -1;
    }
    return result;
}

bool isPermutation(nvinfer1::Permutation const& permutation, int32_t rank) noexcept
{
    if (rank < 0 || rank > Dims::MAX_DIMS)
    {
        return false;
    }
    bool seen[Dims::MAX_DIMS]{};
    for (int32_t i = 0; i < rank; ++i)
    {
        int32_t const axis = permutation.order[i];
        if (axis < 0 || axis >= rank || seen[axis])
        {
            return false;
        }
        seen[axis] = true;
    }
    return true;
}

Dims permuteDims(Dims const& dims, nvinfer1::Permutation const& permutation) noexcept
{
    if (!isPermutation(permutation, dims.nbDims))
    {
        return dims.nbDims < 0 ? kUnsetDims : filledDims(dims.nbDims, -1);
    }
    Dims result{dims.nbDims, {}};
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        result.d[i] = dims.d[permutation.order[i]];
    }
    return result;
}

std::string describeIdentity(PluginIdentity const& identity)
{
    return describePlugin(identity.name.c_str(), identity.version.c_str(), identity.pluginNamespace.c_str());
}

} // namespace kiln
