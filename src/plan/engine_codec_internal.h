// SPDX-License-Identifier: Apache-2.0
// What the plan encoder (plan/engine_encoder.cpp) and decoder (plan/engine_decoder.cpp) share: the generated schema
// (engine.fbs) and the layout assumptions both rely on, checked at compile time. Layer parameters go through one
// writer and one reader per kind, selected by the kind list (network/layer_kinds.h): union member i + 1 of the schema
// holds the parameters of kLayerKinds[i].
//
//     auto const member = static_cast<fb::LayerParams>(record.params.index() + 1);   // the writer's side
#pragma once

#include "network/layer_kinds.h"
#include "plan/engine_codec.h"

#include "plan/engine_generated.h"

#include <cstddef>

namespace kiln
{

#define KILN_PLAN_MEMBER_MATCHES_KIND(e, Name, tag)                                                                    \
    static_assert(static_cast<std::size_t>(fb::LayerParams::Name) == *layerKindIndex(LayerType::e) + 1,                \
        "engine.fbs: LayerParams member " #Name " must be member kLayerKinds index + 1");
KILN_LAYER_KINDS(KILN_PLAN_MEMBER_MATCHES_KIND)
#undef KILN_PLAN_MEMBER_MATCHES_KIND
static_assert(static_cast<std::size_t>(fb::LayerParams::MAX) == kLayerKinds.size(),
    "engine.fbs: LayerParams has one member per layer kind");

static_assert(kMaxPayloadBytes == FLATBUFFERS_MAX_BUFFER_SIZE, "kMaxPayloadBytes is FlatBuffers' limit");

} // namespace kiln
