// SPDX-License-Identifier: Apache-2.0
// The one kernel interface, whatever the backend: the builder asks it whether it runs a layer (checkLayer), the
// runtime's executor has it run the layer (runLayer). The host backend (backends/host/dispatch.h) runs the reference
// kernels on host memory; the CUDA backend (issue 5) will run its kernels on a stream.
//
//     std::unique_ptr<Backend> backend = makeHostBackend();
//     auto made = backend->checkLayer(layer.params, query);   // at build time: the output's type and shape
//     Status status = backend->runLayer(model.layers[i], model, inputs, outputs, stream);
//
// At run time the executor has already evaluated every shape: each input and output view carries its concrete dims,
// type, quantization scale and data (memory of the backend's kind). Inputs whose values a layer reads as parameters
// (slice start/size/stride, a reshape's dims, a fill's shape, alpha and beta) are shape tensors or small tensors the
// backend reads itself. At build time only the types and shapes at a profile's points are known, with the values of
// the shape tensors the build could compute.
#pragma once

#include "backends/host/tensor_view.h"
#include "plan/engine_model.h"

#include "NvInferRuntime.h"

#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace kiln
{

//! One layer at one point of an optimization profile, as the build knows it: what Backend::checkLayer is asked.
struct LayerQuery
{
    //! An input: its type and shape, and its values when the build knows them (shape tensors it could evaluate).
    struct Input
    {
        host::TensorDesc desc;
        std::optional<std::vector<int64_t>> values;
    };

    std::vector<std::optional<Input>> inputs; //!< One per input of the layer; nullopt for an absent optional input.
    std::vector<DataType> outputTypes;        //!< One per output: the type the network gives it (setOutputType).
};

class Backend
{
public:
    virtual ~Backend() = default;

    //! The plans this backend runs.
    virtual PlanBackend kind() const noexcept = 0;

    //! What the kernel of a layer with params makes of the inputs query describes: its one output's type and shape;
    //! an error that says why the backend cannot run the layer (the caller adds the layer, profile and point); or
    //! nullopt when the answer depends on values known only at run time (an input read as values that the build
    //! could not evaluate).
    virtual Expected<std::optional<host::TensorDesc>> checkLayer(
        LayerParams const& params, LayerQuery const& query) const noexcept = 0;

    //! Runs layer. inputs has one entry per layer.inputs (nullptr for an absent optional input), outputs one per
    //! layer.outputs. An error says what is wrong; the caller adds the layer's name.
    virtual host::Status runLayer(LayerRecord const& layer, EngineModel const& model,
        std::span<host::HostTensor const* const> inputs, std::span<host::HostTensor const> outputs,
        cudaStream_t stream) noexcept = 0;

    //! The memory of the backend's kind that already holds what a constant layer would write (the engine's uploaded
    //! weights, when they have the output's type and shape), for the executor to read instead of running the layer;
    //! null when the layer must run.
    virtual void const* constantData(LayerRecord const& /*layer*/, EngineModel const& /*model*/) const noexcept
    {
        return nullptr;
    }

    //! Called when a run of the engine's layers on stream ends (its work queued, successful or not): what the backend
    //! keeps across runs must no longer depend on stream, which the application may destroy before the next run.
    virtual void finishRun(cudaStream_t /*stream*/) noexcept {}
};

//! The host reference backend.
std::unique_ptr<Backend> makeHostBackend();

} // namespace kiln
