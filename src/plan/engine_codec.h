// SPDX-License-Identifier: Apache-2.0
// The plan payload: an EngineModel encoded as a FlatBuffers table (schema: src/plan/engine.fbs) inside the plan
// envelope (plan/container.h). Decoding trusts nothing: the envelope is checked, then the FlatBuffers verifier
// checks every offset, then every index, enum, count and size of the model is checked before the model is used.
//
//     std::vector<uint8_t> plan = encodeEngine(model).value();
//     Expected<EngineModel> loaded = decodeEngine(plan.data(), plan.size());   // refuses a damaged plan clearly
#pragma once

#include "core/error.h"
#include "plan/engine_model.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace kiln
{

//! A payload is shorter than this: it is one FlatBuffers buffer, whose offsets are signed 32-bit.
inline constexpr uint64_t kMaxPayloadBytes = (uint64_t{1} << 31U) - 1U;

//! A plan file in memory, in the buffer the encoder wrote it to: bytes stay valid while owner lives.
struct PlanBytes
{
    std::shared_ptr<void const> owner;
    std::span<uint8_t const> bytes;
};

//! Which weights a plan holds: every one, or all but the refittable ones (plan/refit.h: BuilderFlag::kSTRIP_PLAN,
//! SerializationFlag::kEXCLUDE_WEIGHTS). Weights a model lacks (WeightsBlob::stripped) are left out in any case.
enum class PlanWeights
{
    kAS_BUILT, //!< As the build said: refittable weights left out when the model says kSTRIP_PLAN.
    kALL,
    kNOT_REFITTABLE,
};

//! The whole plan file (envelope and payload) for model. An error for an inconsistent model (modelProblem: weights
//! that point outside model.weights, an index out of range, ...) and for what the format cannot hold (a plugin layer
//! before issue 4, a payload over 2 GiB).
Expected<std::vector<uint8_t>> encodeEngine(EngineModel const& model, PlanWeights weights = PlanWeights::kAS_BUILT);

//! encodeEngine's plan file left where the encoder wrote it, with no copy: the weights are copied once, from the
//! model's blobs into the plan. What buildSerializedNetwork and ICudaEngine::serialize hand out.
Expected<PlanBytes> encodePlan(EngineModel const& model, PlanWeights weights = PlanWeights::kAS_BUILT);

//! The model of a plan file held in memory; never reads outside [data, data + size) and copies what it keeps.
Expected<EngineModel> decodeEngine(void const* data, std::size_t size);

//! The FlatBuffers payload alone (no envelope), without checking the model first: what encodeEngine writes after
//! modelProblem passes. An error only for what the format cannot hold. For tests and tools that need a payload of an
//! inconsistent model (a hostile writer); everything else uses encodeEngine.
Expected<std::vector<uint8_t>> encodePayload(EngineModel const& model);

} // namespace kiln
