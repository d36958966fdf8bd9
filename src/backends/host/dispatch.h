// SPDX-License-Identifier: Apache-2.0
// The host backend: Backend (backends/backend.h) over the host reference kernels. For a layer's kind it reads the
// parameters a layer takes from tensor inputs (slice start, size, stride and axes, a reshape's dimensions, a fill's
// shape) into a copy of its parameters; checkLayer then asks the kernel's infer what it makes, runLayer runs the
// kernel on host memory.
//
//     std::unique_ptr<Backend> backend = makeHostBackend();
//     auto const made = backend->checkLayer(params, query);   // at build time
//     Status const done = backend->runLayer(layer, model, inputs, outputs, nullptr);   // the stream is not used
//
// What each kind reads (layer_kinds.cpp holds one descriptor per kind: its inputs, which are required, how its
// parameters are completed, its infer and its run):
// - Inputs read as values are 1-D kINT32 or kINT64 tensors of at most Dims::MAX_DIMS elements. At build time, where
//   their values are unknown, checkLayer answers nullopt.
// - Convolution and pooling resolve their padding mode (window.h's resolvePadding) against the input's extents, so
//   the kernels see explicit padding whatever the mode.
// - Identity copies bytes when the output has the input's type (and scale), and casts otherwise.
// - Plugin layers are refused (issue 4).
// A layer whose inputs or outputs do not fit its kind (a count, a missing required input, a type or parameters of
// another kind) is refused with an error; the kernels check the rest.
#pragma once

#include "backends/backend.h"

namespace kiln::host
{

//! The host reference backend. Stateless: one instance may check and run any number of layers.
class HostBackend final : public Backend
{
public:
    PlanBackend kind() const noexcept override { return PlanBackend::kHOST; }

    //! What the host kernel of a layer with params makes at build time (Backend::checkLayer).
    Expected<std::optional<TensorDesc>> checkLayer(
        LayerParams const& params, LayerQuery const& query) const noexcept override;

    //! Runs layer with its host kernel; inputs and outputs are host memory. stream is ignored.
    Status runLayer(LayerRecord const& layer, EngineModel const& model, std::span<HostTensor const* const> inputs,
        std::span<HostTensor const> outputs, cudaStream_t stream) noexcept override;
};

} // namespace kiln::host
