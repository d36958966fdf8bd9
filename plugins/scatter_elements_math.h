// SPDX-License-Identifier: Apache-2.0
// The arithmetic of ScatterElements, shared by its host implementation (scatter_elements.cpp) and its CUDA kernel
// (scatter_elements.cu). ONNX's ScatterElements: Y starts as a copy of data; each element of updates, at position
// (i0, ..., i(r-1)) of updates (whose shape is indices'), goes to the position of Y with the axis coordinate replaced
// by the index at the same position of indices, where it replaces the value (none) or combines with it (add, mul,
// min, max). A negative index counts from the end of the axis (index + extent). Chosen by kiln: an index outside
// [-extent, extent) (an error in ONNX) skips its update. TensorRT's plugin also accepts "mean", which its kernel
// computes as add (it never divides); kiln does the same. Integers wrap around in add and mul; kHALF combines in float
// and rounds once per update.
#pragma once

#include "core/integer_math.h"

#include <math.h>

#include <cstdint>
#include <type_traits>

namespace kiln::plugins
{

enum class ScatterReduction : int32_t
{
    kNONE,
    kADD,
    kMUL,
    kMIN,
    kMAX,
    kMEAN, //!< TensorRT's name for what its kernel computes as kADD.
};

//! The most dimensions a tensor has (TensorRT's Dims::MAX_DIMS).
inline constexpr int32_t kScatterMaxRank = 8;

//! The fields of one ScatterElements plugin and the extents of one run.
struct ScatterParams
{
    ScatterReduction reduction{ScatterReduction::kADD};
    int32_t axis{}; //!< In [0, rank) once the rank is known.
    int32_t rank{};
    int64_t dataDims[kScatterMaxRank]{};    //!< data's (and Y's) extents.
    int64_t updatesDims[kScatterMaxRank]{}; //!< updates' (and indices') extents.

    //! Elements of updates.
    KILN_HOST_DEVICE int64_t updatesCount() const noexcept
    {
        int64_t count = 1;
        for (int32_t i = 0; i < rank; ++i)
        {
            count *= updatesDims[i];
        }
        return count;
    }
    //! Elements of data.
    KILN_HOST_DEVICE int64_t dataCount() const noexcept
    {
        int64_t count = 1;
        for (int32_t i = 0; i < rank; ++i)
        {
            count *= dataDims[i];
        }
        return count;
    }
};

//! The element of Y that update element e goes to, given its index (from indices[e]); -1 when the index is outside
//! [-extent, extent).
KILN_HOST_DEVICE inline int64_t scatterTarget(ScatterParams const& p, int64_t e, int64_t index) noexcept
{
    int64_t const extent = p.dataDims[p.axis];
    if (index < -extent || index >= extent)
    {
        return -1;
    }
    if (index < 0)
    {
        index += extent;
    }
    int64_t target = 0;
    int64_t stride = 1;
    for (int32_t d = p.rank - 1; d >= 0; --d)
    {
        int64_t const coordinate = d == p.axis ? index : e % p.updatesDims[d];
        e /= p.updatesDims[d];
        target += coordinate * stride;
        stride *= p.dataDims[d];
    }
    return target;
}

//! The type integer arithmetic wraps around in: the unsigned one of an integer type, else the type itself.
template <typename T, bool = std::is_integral_v<T>>
struct WrappingType
{
    using type = T;
};
template <typename T>
struct WrappingType<T, true>
{
    using type = std::make_unsigned_t<T>;
};

//! old combined with update by the reduction (none: update). Integer add and mul wrap around.
template <typename T>
KILN_HOST_DEVICE T scatterCombine(ScatterReduction reduction, T old, T update) noexcept
{
    using Wide = typename WrappingType<T>::type;
    switch (reduction)
    {
    case ScatterReduction::kADD:
    case ScatterReduction::kMEAN: return static_cast<T>(static_cast<Wide>(old) + static_cast<Wide>(update));
    case ScatterReduction::kMUL: return static_cast<T>(static_cast<Wide>(old) * static_cast<Wide>(update));
    case ScatterReduction::kMIN: return update < old ? update : old;
    case ScatterReduction::kMAX: return update > old ? update : old;
    case ScatterReduction::kNONE: break;
    }
    return update;
}

} // namespace kiln::plugins
