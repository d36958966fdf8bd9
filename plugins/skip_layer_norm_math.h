// SPDX-License-Identifier: Apache-2.0
// The arithmetic of CustomSkipLayerNormPluginDynamic, shared by its host implementation (skip_layer_norm.cpp) and its
// CUDA kernel (skip_layer_norm.cu): one row of ld elements of input + skip (+ bias), normalised to zero mean and unit
// variance (biased, over the row, plus kBertLayerNormEpsilon), then scaled by gamma and shifted by beta. Both sides
// compute in float with the same operations: the mean, then the mean of the squared deviations (two passes, where
// TensorRT's kernels take E[x^2] - mean^2 in one), then the outputs.
#pragma once

#include "core/integer_math.h"

#include <math.h>

#include <cstdint>

namespace kiln::plugins
{

//! The extents of one CustomSkipLayerNormPluginDynamic run: rows of ld elements (rows = S * B).
struct SkipLayerNormParams
{
    int64_t rows{};
    int32_t ld{};
};

//! Writes row of out from in, skip and the per-element gamma, beta and bias (nullptr: none); load(T) gives a float and
//! store(T*, float) stores one.
template <typename T, typename Load, typename Store>
KILN_HOST_DEVICE void skipLayerNormRow(SkipLayerNormParams const& p, T const* in, T const* skip, float const* gamma,
    float const* beta, float const* bias, T* out, int64_t row, float epsilon, Load load, Store store) noexcept
{
    int64_t const base = row * p.ld;
    auto value = [&](int32_t i) {
        float const v = load(in[base + i]) + load(skip[base + i]);
        return bias != nullptr ? v + bias[i] : v;
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
    for (int32_t i = 0; i < p.ld; ++i)
    {
        store(out + base + i, gamma[i] * ((value(i) - mean) * scale) + beta[i]);
    }
}

} // namespace kiln::plugins
