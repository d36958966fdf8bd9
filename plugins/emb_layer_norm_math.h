// SPDX-License-Identifier: Apache-2.0
// The arithmetic of CustomEmbLayerNormPluginDynamic, shared by its host implementation (emb_layer_norm.cpp) and its
// CUDA kernels (emb_layer_norm.cu). Sequence-first: the ids, segments and mask are [S, B] (row s * B + b).
// - One embedding row (s, b): word[ids] + token_type[segments] + position[s], layer-normalised (biased variance plus
//   kBertLayerNormEpsilon; two passes, in float), scaled by gamma, shifted by beta. A word or segment id outside its
//   table, or a position past the position table, gives the zero vector (so the row is beta), as TensorRT's kernel
//   does for the ids (it reads past the position table; kiln does not).
// - The mask index of batch b: the position of the first zero in column b of the mask, or S when there is none (the
//   number of valid tokens of a mask that is ones then zeros).
#pragma once

#include "core/integer_math.h"

#include <math.h>

#include <cstdint>

namespace kiln::plugins
{

//! The extents of one CustomEmbLayerNormPluginDynamic run and of its tables (rows of ld floats).
struct EmbLayerNormParams
{
    int64_t seq{};
    int64_t batch{};
    int32_t ld{};
    int64_t wordRows{};
    int64_t tokenRows{};
    int64_t positionRows{};
};

//! The weights of one plugin (device or host pointers, floats).
struct EmbLayerNormWeights
{
    float const* word{};
    float const* token{};
    float const* position{};
    float const* gamma{};
    float const* beta{};
};

//! Writes row (s * B + b) of the embedded output out; store(T*, float) stores one element.
template <typename T, typename Store>
KILN_HOST_DEVICE void embLayerNormRow(EmbLayerNormParams const& p, int32_t const* ids, int32_t const* segments,
    EmbLayerNormWeights const& w, T* out, int64_t row, float epsilon, Store store) noexcept
{
    int64_t const s = row / p.batch;
    int64_t const word = ids[row];
    int64_t const token = segments[row];
    bool const valid = word >= 0 && word < p.wordRows && token >= 0 && token < p.tokenRows && s < p.positionRows;
    auto value = [&](int32_t i) {
        return valid ? w.word[word * p.ld + i] + w.token[token * p.ld + i] + w.position[s * p.ld + i] : 0.0F;
    };
    float sum = 0.0F;
    for (int32_t i = 0; i < p.ld; ++i)
    {
        sum += value(i);
    }
    float const mean = sum / static_cast<float>(p.ld);
    float squares = 0.0F;
    for (int32_t i = 0; i < p.ld; ++i)
    {
        float const d = value(i) - mean;
        squares += d * d;
    }
    float const scale = 1.0F / sqrtf(squares / static_cast<float>(p.ld) + epsilon);
    int64_t const base = row * p.ld;
    for (int32_t i = 0; i < p.ld; ++i)
    {
        store(out + base + i, w.gamma[i] * ((value(i) - mean) * scale) + w.beta[i]);
    }
}

//! The mask index of batch b from the mask [S, B].
KILN_HOST_DEVICE inline int32_t embMaskIndex(EmbLayerNormParams const& p, int32_t const* mask, int64_t b) noexcept
{
    for (int64_t s = 0; s < p.seq; ++s)
    {
        if (mask[s * p.batch + b] == 0)
        {
            return static_cast<int32_t>(s);
        }
    }
    return static_cast<int32_t>(p.seq);
}

} // namespace kiln::plugins
