// SPDX-License-Identifier: Apache-2.0
// What the plan encoder (plan/engine_encoder.cpp) and decoder (plan/engine_decoder.cpp) share: the generated schema
// (engine.fbs) and the layout assumptions both rely on, checked at compile time. Layer parameters go through one
// writer and one reader per kind, selected by the kind list (network/layer_kinds.h); planMember() names the union
// member that holds a kind's parameters. Members keep their numbers once written: new kinds are appended to the union.
//
//     auto const member = planMember(kLayerKinds[record.params.index()].type);   // the writer's side
#pragma once

#include "network/layer_kinds.h"
#include "plan/engine_codec.h"

#include "plan/engine_generated.h"

#include <cstddef>

namespace kiln
{

//! The union member that holds the parameters of layer kind type (NONE for a kind kiln does not offer).
constexpr fb::LayerParams planMember(LayerType type) noexcept
{
    switch (type)
    {
#define KILN_PLAN_MEMBER_CASE(e, Name, tag)                                                                            \
    case LayerType::e: return fb::LayerParams::Name;
        KILN_LAYER_KINDS(KILN_PLAN_MEMBER_CASE)
#undef KILN_PLAN_MEMBER_CASE
    default: return fb::LayerParams::NONE;
    }
}

static_assert(static_cast<std::size_t>(fb::LayerParams::MAX) == kLayerKinds.size(),
    "engine.fbs: LayerParams has one member per layer kind");
// Plans keep the type numbers of LayerParams members: the first 20 are those of format 2, later kinds are appended
// (docs/plan-format.md), never inserted.
static_assert(static_cast<int>(fb::LayerParams::PluginV3) == 20 && static_cast<int>(fb::LayerParams::TopK) == 21
        && static_cast<int>(fb::LayerParams::Resize) == 22 && static_cast<int>(fb::LayerParams::Quantize) == 23
        && static_cast<int>(fb::LayerParams::Dequantize) == 24 && static_cast<int>(fb::LayerParams::Scatter) == 25
        && static_cast<int>(fb::LayerParams::Deconvolution) == 26 && static_cast<int>(fb::LayerParams::Cumulative) == 27
        && static_cast<int>(fb::LayerParams::GridSample) == 28
        && static_cast<int>(fb::LayerParams::ReverseSequence) == 29 && static_cast<int>(fb::LayerParams::Einsum) == 30
        && static_cast<int>(fb::LayerParams::NonZero) == 31 && static_cast<int>(fb::LayerParams::NMS) == 32
        && static_cast<int>(fb::LayerParams::Condition) == 33
        && static_cast<int>(fb::LayerParams::IfConditionalInput) == 34
        && static_cast<int>(fb::LayerParams::IfConditionalOutput) == 35
        && static_cast<int>(fb::LayerParams::TripLimit) == 36 && static_cast<int>(fb::LayerParams::Recurrence) == 37
        && static_cast<int>(fb::LayerParams::Iterator) == 38 && static_cast<int>(fb::LayerParams::LoopOutput) == 39,
    "engine.fbs: LayerParams members are appended after PluginV3, never inserted");

static_assert(kMaxPayloadBytes == FLATBUFFERS_MAX_BUFFER_SIZE, "kMaxPayloadBytes is FlatBuffers' limit");

} // namespace kiln
