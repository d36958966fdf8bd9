// SPDX-License-Identifier: Apache-2.0
// The host backend's layer kinds: one descriptor per kind (layer_kinds.cpp), holding the inputs the kind takes, how
// its parameters are completed from inputs (values read as parameters, padding resolved against the input), and the
// kernel's infer and run. The two entry points below pick the descriptor with std::visit, so a kind added to
// KILN_LAYER_KINDS without one does not compile; HostBackend (dispatch.h) calls them.
#pragma once

#include "backends/backend.h"
#include "backends/host/layer_inputs.h"

#include <optional>
#include <span>

namespace kiln::host
{

//! Runs a layer with params on views: checks that the views fit the kind, completes the parameters, runs the kernel.
Status runLayerKind(
    LayerParams const& params, std::span<HostTensor const* const> inputs, std::span<HostTensor const> outputs);

//! What the kernel of params' kind reads of input index (the last role of a variadic kind repeats; kDATA for plugin
//! kinds, whose inputs are all data).
InputUse inputUse(LayerParams const& params, std::size_t index) noexcept;

//! For a layer of the built-in kind P: checks the run-time views against the kind (their count, the required inputs,
//! the kind's outputs) and completes params as the kernels take them (explicit padding, values read from kVALUES
//! inputs, which are in host memory). What another backend runs a built-in kind with; instantiated for every built-in
//! kind.
template <typename P>
Expected<P> prepareRun(P const& params, std::span<HostTensor const* const> inputs, std::span<HostTensor const> outputs);

//! Backend::checkLayer for a layer with params: the same fit and completion as runLayerKind, then the kernel's infer.
Expected<std::optional<TensorDesc>> checkLayerKind(LayerParams const& params, LayerQuery const& query);

} // namespace kiln::host
