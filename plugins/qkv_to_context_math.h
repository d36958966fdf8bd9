// SPDX-License-Identifier: Apache-2.0
// The arithmetic of CustomQKVToContextPluginDynamic, shared by its host implementation (qkv_to_context.cpp) and its
// CUDA kernel (qkv_to_context.cu): one element of the attention context, computed in float with the same operations
// on both sides.
//
// The packed input is [S, B, 3 * E, 1, 1] with E = N * H (N heads of H elements); within one row (s, b) the 3 * E
// values are [N, 3, H]: head n's query, key and value lie side by side (TensorRT's README: the QKV weights are
// reshaped to [E, 3, N, H] and transposed to [E, N, 3, H]). The output [S, B, E, 1, 1] holds [N, H] per row. For
// query s, head n, batch b:
//     score(j) = dot(Q[s, b, n], K[j, b, n]) / sqrt(H)          for the keys j < valid(b)
//     out[s, b, n, :] = sum_j softmax(score)(j) * V[j, b, n, :]
// valid(b) is the mask index of batch b (CustomEmbLayerNormPluginDynamic's unfused format: the number of leading
// valid tokens) clamped to [0, S], or S without a mask. Chosen by kiln: a batch with no valid key (mask index 0 or
// less) gives a zero context (TensorRT's softmax over no element is not defined).
#pragma once

#include "core/integer_math.h"

#include <math.h>

#include <cstdint>

namespace kiln::plugins
{

//! The attributes of one CustomQKVToContextPluginDynamic plugin and the extents of one run.
struct QkvToContextParams
{
    int64_t seq{};
    int64_t batch{};
    int32_t heads{};
    int32_t headSize{};

    //! Elements of the output [S, B, N * H, 1, 1].
    KILN_HOST_DEVICE int64_t outputCount() const noexcept
    {
        return seq * batch * static_cast<int64_t>(heads) * headSize;
    }
};

//! The output element at index of [S, B, N * H]; mask is the [B] mask index (nullptr: none); load(T) gives a float.
template <typename T, typename Load>
KILN_HOST_DEVICE float qkvToContextValue(
    QkvToContextParams const& p, T const* qkv, int32_t const* mask, int64_t index, Load load) noexcept
{
    int64_t const hidden = static_cast<int64_t>(p.heads) * p.headSize;
    int64_t const h = index % p.headSize;
    int64_t const n = index / p.headSize % p.heads;
    int64_t const b = index / hidden % p.batch;
    int64_t const s = index / (hidden * p.batch);
    int64_t valid = p.seq;
    if (mask != nullptr)
    {
        int64_t const m = mask[b];
        valid = m < 0 ? 0 : (m > p.seq ? p.seq : m);
    }
    if (valid == 0)
    {
        return 0.0F;
    }
    float const scale = 1.0F / sqrtf(static_cast<float>(p.headSize));
    int64_t const headOffset = n * 3 * p.headSize;
    T const* query = qkv + (s * p.batch + b) * 3 * hidden + headOffset;
    auto score = [&](int64_t j) {
        T const* key = qkv + (j * p.batch + b) * 3 * hidden + headOffset + p.headSize;
        float dot = 0.0F;
        for (int32_t k = 0; k < p.headSize; ++k)
        {
            dot += load(query[k]) * load(key[k]);
        }
        return dot * scale;
    };
    float largest = score(0);
    for (int64_t j = 1; j < valid; ++j)
    {
        largest = fmaxf(largest, score(j));
    }
    float total = 0.0F;
    float weighted = 0.0F;
    for (int64_t j = 0; j < valid; ++j)
    {
        float const e = expf(score(j) - largest);
        total += e;
        weighted += e * load(qkv[(j * p.batch + b) * 3 * hidden + headOffset + 2 * p.headSize + h]);
    }
    return weighted / total;
}

} // namespace kiln::plugins
