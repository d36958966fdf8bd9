// SPDX-License-Identifier: Apache-2.0
// The arithmetic of DisentangledAttention_TRT (DeBERTa's disentangled attention with log-bucketed relative positions,
// the algorithm TensorRT's plugin compiles by default), shared by its host implementation
// (disentangled_attention.cpp) and its CUDA kernel (disentangled_attention.cu). For the output [BN, S, S] (BN batches
// times heads, S the sequence length) at (i, j, k):
//     index = relativeIndex(j - k)
//     out[i, j, k] = (c2c[i, j, k] + c2p[i, j, index] + p2c[i, k, index]) * factor
// where c2p and p2c are [BN, S, 2 * span]. relativeIndex(d): with mid = span / 2, the bucket is d when |d| <= mid,
// else sign(d) * (mid + ceil((log|d| - log mid) * (mid - 1) / (log(S - 1) - log mid) * (1 - 1e-7))); the index is
// bucket + span clamped to [0, 2 * span - 1]. All in float on both sides (TensorRT's FP16 kernel adds and scales in
// half); a bucket that is not a number (span 1: mid 0) or beyond +-2 * span is held to the clamp, so that the
// conversion to an integer is always defined.
#pragma once

#include "core/integer_math.h"

#include <math.h>

#include <cstdint>

namespace kiln::plugins
{

//! The attributes of one DisentangledAttention_TRT plugin and the extents of one run.
struct DisentangledAttentionParams
{
    int32_t span{};
    float factor{};
    int64_t groups{}; //!< BN, batches times heads.
    int64_t seq{};

    //! Elements of the output [BN, S, S].
    KILN_HOST_DEVICE int64_t outputCount() const noexcept { return groups * seq * seq; }
};

//! The column of c2p and p2c that relative distance delta (row minus column) reads.
KILN_HOST_DEVICE inline int64_t disentangledIndex(int64_t delta, int32_t span, int64_t seq) noexcept
{
    int64_t const mid = span / 2;
    int64_t bucket = delta;
    if (delta < -mid || delta > mid)
    {
        float const logMid = logf(static_cast<float>(mid));
        float const step = static_cast<float>(mid - 1) / (logf(static_cast<float>(seq - 1)) - logMid) * (1.0F - 1e-7F);
        float const distance = static_cast<float>(delta < 0 ? -delta : delta);
        float magnitude = ceilf((logf(distance) - logMid) * step) + static_cast<float>(mid);
        float const limit = 2.0F * static_cast<float>(span);
        magnitude = magnitude == magnitude ? fminf(fmaxf(magnitude, -limit), limit) : limit;
        auto const whole = static_cast<int64_t>(magnitude);
        bucket = delta < 0 ? -whole : whole;
    }
    int64_t const index = bucket + span;
    int64_t const last = 2 * static_cast<int64_t>(span) - 1;
    return index < 0 ? 0 : (index > last ? last : index);
}

//! The output element at index of [BN, S, S]; load(T) gives a float.
template <typename T, typename Load>
KILN_HOST_DEVICE float disentangledAttentionValue(
    DisentangledAttentionParams const& p, T const* c2c, T const* c2p, T const* p2c, int64_t index, Load load) noexcept
{
    int64_t const k = index % p.seq;
    int64_t const j = index / p.seq % p.seq;
    int64_t const i = index / (p.seq * p.seq);
    int64_t const width = 2 * static_cast<int64_t>(p.span);
    int64_t const column = disentangledIndex(j - k, p.span, p.seq);
    float const sum
        = load(c2c[index]) + load(c2p[(i * p.seq + j) * width + column]) + load(p2c[(i * p.seq + k) * width + column]);
    return sum * p.factor;
}

} // namespace kiln::plugins
