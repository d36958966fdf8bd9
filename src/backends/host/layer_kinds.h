// SPDX-License-Identifier: Apache-2.0
// The host backend's layer kinds: one descriptor per kind (layer_kinds.cpp), holding the inputs the kind takes, how
// its parameters are completed from inputs (values read as parameters, padding resolved against the input), and the
// kernel's infer and run. The two entry points below pick the descriptor with std::visit, so a kind added to
// KILN_LAYER_KINDS without one does not compile; HostBackend (dispatch.h) calls them.
#pragma once

#include "backends/backend.h"

#include <optional>
#include <span>

namespace kiln::host
{

//! Runs a layer with params on views: checks that the views fit the kind, completes the parameters, runs the kernel.
Status runLayerKind(
    LayerParams const& params, std::span<HostTensor const* const> inputs, std::span<HostTensor const> outputs);

//! Backend::checkLayer for a layer with params: the same fit and completion as runLayerKind, then the kernel's infer.
Expected<std::optional<TensorDesc>> checkLayerKind(LayerParams const& params, LayerQuery const& query);

} // namespace kiln::host
