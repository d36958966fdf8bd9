// SPDX-License-Identifier: Apache-2.0
// Host reference of IScatterLayer: out = data, then each element of updates written where the indices say
// (network/layers/scatter.cpp gives the two modes' rules).
//
//     ScatterParams params{ScatterMode::kND, 0};   // network/params.h
//     // data kFLOAT [4, 3], indices kINT64 [2, 1], updates kFLOAT [2, 3] gives out kFLOAT [4, 3]
//     Status const done = runScatter(params, data.tensor(), indices.tensor(), updates.tensor(), out.tensor());
//
// The rules: data and updates of one type, any type the host moves (elements are copied as bytes); indices kINT32 or
// kINT64. A negative index i stands for i + extent; an index still outside [0, extent) skips its update. Updates are
// written in row-major order, so where indices repeat the last one is kept. out may be data (in place).
#pragma once

#include "backends/host/tensor_view.h"
#include "network/params.h"

#include <array>

namespace kiln::host
{

//! Where the updates go, computed once from the shapes (what the CUDA kernel takes too).
struct ScatterGeometry
{
    nvinfer1::ScatterMode mode{};
    int32_t rank{0};                                //!< kELEMENT: the updates' rank (the data's).
    std::array<int64_t, Dims::MAX_DIMS> extents{};  //!< kELEMENT: the updates' extents.
    std::array<int64_t, Dims::MAX_DIMS> strides{};  //!< The data's row-major strides.
    std::array<int64_t, Dims::MAX_DIMS> dataDims{}; //!< The data's extents.
    int32_t axis{0};                                //!< kELEMENT: the axis, non-negative.
    int32_t tupleLength{0};                         //!< kND: k.
    int64_t sliceSize{1};                           //!< kND: the elements one index tuple addresses.
    int64_t updates{0};                             //!< The number of update elements.
};

//! The output's type and shape (the data's), or the error that refuses the layer: a data type the host does not
//! move, indices that are not kINT32 or kINT64, updates of another type, shapes that do not fit the mode.
Expected<TensorDesc> inferScatter(
    ScatterParams const& params, TensorDesc const& data, TensorDesc const& indices, TensorDesc const& updates);

//! The geometry of a scatter whose shapes inferScatter accepted.
ScatterGeometry scatterGeometry(
    ScatterParams const& params, Dims const& data, Dims const& indices, Dims const& updates);

//! The data element update element u goes to, or -1 when its index is out of range; index(i) reads element i of the
//! indices.
template <typename ReadIndex>
int64_t scatterTarget(ScatterGeometry const& g, int64_t u, ReadIndex const& index) noexcept
{
    auto const wrap = [](int64_t i, int64_t extent) { return i < 0 ? i + extent : i; };
    if (g.mode == nvinfer1::ScatterMode::kELEMENT)
    {
        int64_t target = 0;
        int64_t rest = u;
        for (int32_t d = g.rank - 1; d >= 0; --d)
        {
            auto const a = static_cast<std::size_t>(d);
            int64_t coordinate = rest % g.extents[a];
            rest /= g.extents[a];
            if (d == g.axis)
            {
                coordinate = wrap(index(u), g.dataDims[a]);
                if (coordinate < 0 || coordinate >= g.dataDims[a])
                {
                    return -1;
                }
            }
            target += coordinate * g.strides[a];
        }
        return target;
    }
    int64_t const tuple = u / g.sliceSize;
    int64_t target = u % g.sliceSize;
    for (int32_t j = 0; j < g.tupleLength; ++j)
    {
        auto const a = static_cast<std::size_t>(j);
        int64_t const coordinate = wrap(index(tuple * g.tupleLength + j), g.dataDims[a]);
        if (coordinate < 0 || coordinate >= g.dataDims[a])
        {
            return -1;
        }
        target += coordinate * g.strides[a];
    }
    return target;
}

//! Computes out = scatter(data) after checking what inferScatter checks, out's type and shape, and each tensor's data.
Status runScatter(ScatterParams const& params, HostTensor const& data, HostTensor const& indices,
    HostTensor const& updates, HostTensor const& out);

} // namespace kiln::host
