// SPDX-License-Identifier: Apache-2.0
// The arithmetic of MultiscaleDeformableAttnPlugin_TRT (Deformable DETR's multi-scale deformable attention), shared by
// its host implementation (ms_deform_attn.cpp) and its CUDA kernel (ms_deform_attn.cu). For batch n, query q, head m
// and channel d:
//     Y[n, q, m, d] = sum over levels l and points p of A[n, q, m, l, p] * V_l(n, m, d; x, y)
// with (x, y) = sampling_locations[n, q, m, l, p] (normalized: 0 and 1 are the level's outer edges) and V_l the
// level's map of value, [H_l, W_l] = spatial_shapes[l], its rows starting at level_start_index[l] in value's S axis,
// sampled bilinearly at pixel (x * W_l - 0.5, y * H_l - 0.5) with zeros outside the map (a sample at or beyond one
// pixel outside reads 0). Everything is computed in float. Chosen by kiln: a level whose shape or start index does not
// fit inside S (data, which may be anything) contributes 0 rather than read outside value.
#pragma once

#include "core/integer_math.h"

#include <math.h>

#include <cstdint>

namespace kiln::plugins
{

//! The extents of one run: value [N, S, M, D], spatial_shapes [L, 2], level_start_index [L], sampling_locations
//! [N, Lq, M, L, P, 2], attention_weights [N, Lq, M, L, P], Y [N, Lq, M, D].
struct MsDeformAttnParams
{
    int64_t batch{};
    int64_t spatialSize{};
    int64_t heads{};
    int64_t channels{};
    int64_t levels{};
    int64_t queries{};
    int64_t points{};

    //! Elements of Y.
    KILN_HOST_DEVICE int64_t outputCount() const noexcept { return batch * queries * heads * channels; }
};

//! Y's element at index; load(T) gives a float.
template <typename T, typename Load>
KILN_HOST_DEVICE float msDeformAttnValue(MsDeformAttnParams const& p, T const* value, int32_t const* shapes,
    int32_t const* starts, T const* locations, T const* weights, int64_t index, Load load) noexcept
{
    int64_t const d = index % p.channels;
    int64_t const m = index / p.channels % p.heads;
    int64_t const q = index / (p.channels * p.heads) % p.queries;
    int64_t const n = index / (p.channels * p.heads * p.queries);
    // The (l, p) pairs of (n, q, m), consecutive in attention_weights and, by pairs, in sampling_locations.
    int64_t const pairs = ((n * p.queries + q) * p.heads + m) * p.levels * p.points;
    float sum = 0.0F;
    for (int64_t l = 0; l < p.levels; ++l)
    {
        int64_t const height = shapes[2 * l];
        int64_t const width = shapes[2 * l + 1];
        int64_t const start = starts[l];
        if (height <= 0 || width <= 0 || start < 0 || start > p.spatialSize || height > p.spatialSize
            || width > p.spatialSize || height * width > p.spatialSize - start)
        {
            continue;
        }
        // value[n, start + row * width + column, m, d]
        auto at = [&](int64_t row, int64_t column) {
            return load(value[((n * p.spatialSize + start + row * width + column) * p.heads + m) * p.channels + d]);
        };
        for (int64_t k = 0; k < p.points; ++k)
        {
            int64_t const pair = pairs + l * p.points + k;
            float const x = load(locations[2 * pair]) * static_cast<float>(width) - 0.5F;
            float const y = load(locations[2 * pair + 1]) * static_cast<float>(height) - 0.5F;
            if (!(y > -1.0F && x > -1.0F && y < static_cast<float>(height) && x < static_cast<float>(width)))
            {
                continue;
            }
            float const y0f = floorf(y);
            float const x0f = floorf(x);
            auto const y0 = static_cast<int64_t>(y0f);
            auto const x0 = static_cast<int64_t>(x0f);
            float const ly = y - y0f;
            float const lx = x - x0f;
            float sample = 0.0F;
            if (y0 >= 0 && x0 >= 0)
            {
                sample += (1.0F - ly) * (1.0F - lx) * at(y0, x0);
            }
            if (y0 >= 0 && x0 + 1 < width)
            {
                sample += (1.0F - ly) * lx * at(y0, x0 + 1);
            }
            if (y0 + 1 < height && x0 >= 0)
            {
                sample += ly * (1.0F - lx) * at(y0 + 1, x0);
            }
            if (y0 + 1 < height && x0 + 1 < width)
            {
                sample += ly * lx * at(y0 + 1, x0 + 1);
            }
            sum += load(weights[pair]) * sample;
        }
    }
    return sum;
}

} // namespace kiln::plugins
