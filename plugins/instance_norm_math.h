// SPDX-License-Identifier: Apache-2.0
// The arithmetic of InstanceNormalization_TRT and GroupNormalizationPlugin, shared by the host implementation
// (instance_norm.cpp) and the CUDA kernel (instance_norm.cu) that both plugins run. X, in NCHW order, is cut into
// segments of consecutive elements: one channel's plane for instance normalization, the planes of a group of
// consecutive channels for group normalization. Each segment is normalized by its own mean and (biased) variance,
// y = (x - mean) / sqrt(variance + epsilon) * scale[c] + bias[c] with c the element's channel, then, with relu set, a
// leaky ReLU (y < 0 becomes y * alpha). Both sides compute the statistics in two passes (the mean, then the mean of the
// squared deviations), accumulating in double on the host and in float on the device.
#pragma once

#include "core/integer_math.h"

#include <math.h>

#include <cstdint>

namespace kiln::plugins
{

//! One normalization run: the fields and the extents.
struct NormParams
{
    float epsilon{0.0F};
    bool relu{false};
    float alpha{0.0F};
    int64_t segments{};    //!< N * C (instance) or N * num_groups (group).
    int64_t segmentSize{}; //!< Elements per segment.
    int64_t channels{};    //!< C.
    int64_t planeSize{};   //!< Elements per channel plane (the product of the spatial extents).

    //! The channel of the element at index of X.
    KILN_HOST_DEVICE int64_t channelOf(int64_t index) const noexcept { return index / planeSize % channels; }
    //! Elements of X.
    KILN_HOST_DEVICE int64_t count() const noexcept { return segments * segmentSize; }
};

//! The normalized, scaled and shifted value of x, and the leaky ReLU when relu is set.
KILN_HOST_DEVICE inline float normalizedValue(
    float x, float mean, float invStd, float scale, float bias, bool relu, float alpha) noexcept
{
    float const y = (x - mean) * invStd * scale + bias;
    return relu && y < 0.0F ? y * alpha : y;
}

//! 1 / sqrt(variance + epsilon).
KILN_HOST_DEVICE inline float inverseDeviation(float variance, float epsilon) noexcept
{
    return 1.0F / sqrtf(variance + epsilon);
}

} // namespace kiln::plugins
