// SPDX-License-Identifier: Apache-2.0
// The one kernel interface: what the runtime's executor calls to run a layer, whatever the backend. The host
// backend (backends/host/dispatch.h) runs the reference kernels on host memory; the CUDA backend (issue 5) will run
// its kernels on a stream.
//
//     std::unique_ptr<Backend> backend = makeHostBackend();
//     Status status = backend->runLayer(model.layers[i], model, inputs, outputs, stream);
//
// The executor has already evaluated every shape: each input and output view carries its concrete dims, type,
// quantization scale and data (memory of the backend's kind). Inputs whose values a layer reads as parameters
// (slice start/size/stride, a reshape's dims, a fill's shape, alpha and beta) are shape tensors or small tensors the
// backend reads itself.
#pragma once

#include "backends/host/tensor_view.h"
#include "plan/engine_model.h"

#include "NvInferRuntime.h"

#include <memory>
#include <span>

namespace kiln
{

class Backend
{
public:
    virtual ~Backend() = default;

    //! The plans this backend runs.
    virtual PlanBackend kind() const noexcept = 0;

    //! Runs layer. inputs has one entry per layer.inputs (nullptr for an absent optional input), outputs one per
    //! layer.outputs. An error says what is wrong; the caller adds the layer's name.
    virtual host::Status runLayer(LayerRecord const& layer, EngineModel const& model,
        std::span<host::HostTensor const* const> inputs, std::span<host::HostTensor const> outputs,
        cudaStream_t stream) noexcept = 0;
};

//! The host reference backend.
std::unique_ptr<Backend> makeHostBackend();

} // namespace kiln
