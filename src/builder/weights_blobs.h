// SPDX-License-Identifier: Apache-2.0
// Rewriting the weights of an engine model's layers (builder passes that store weights in another type or layout:
// builder/layout.h's channels-last kernels, builder/precision.h's 16-bit constants and kernels). The new bytes replace
// the blob the weights point into when no other weights point into it, so the plan keeps one copy; otherwise they go
// to a new blob.
//
//     replaceWeights(model, conv.kernel, DataType::kHALF, std::move(halfBytes));
#pragma once

#include "plan/engine_model.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace kiln
{

//! Points weights at bytes (count elements of type: weights' count, or as many as given, as a kernel whose channels
//! are padded has more): in the blob weights pointed into when it was theirs alone (a convolution's or
//! deconvolution's kernel or bias, a constant's weights), else in a new blob.
void replaceWeights(EngineModel& model, nvinfer1::Weights& weights, DataType type, std::vector<uint8_t> bytes,
    std::optional<int64_t> count = std::nullopt);

} // namespace kiln
