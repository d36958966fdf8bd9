// SPDX-License-Identifier: Apache-2.0
// The CUDA backend: Backend (backends/backend.h) over kiln's CUDA kernels (backends/cuda/kernels.h). At build time it
// answers as the host backend does (the CUDA kernels take what the host kernels take), so a plan built for either
// backend has the same layers and shapes; at run time it completes each layer's parameters as the host does
// (host::prepareRun) and launches the layer's kernel on the context's stream, without waiting for it.
//
//     auto weights = cuda::DeviceWeights::upload(model).value();     // once per engine
//     std::unique_ptr<Backend> backend = cuda::makeCudaBackend(weights);   // once per context
//     Status done = backend->runLayer(layer, model, inputs, outputs, stream);   // device views; async on stream
//
// Shape layers, and layers whose results are only read as values (a reshape's dimensions, a slice's start), run on
// the host backend in a CUDA engine: the executor decides where each layer runs (runtime/executor.h).
#pragma once

#include "backends/backend.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>

namespace kiln::cuda
{

//! Whether a GPU can be used now (cudaGetDeviceCount finds one).
bool gpuUsable() noexcept;

//! Loads cuDNN and cuBLASLt, the libraries the CUDA backend runs on (library_loader.h), the first time it is asked;
//! the error names the library that could not be loaded and why.
std::optional<Error> loadBackendLibraries();

//! Whether a GPU can be used now and the libraries the CUDA backend needs load (they are opened only where there is a
//! GPU, so a machine without one never loads them).
bool cudaBackendAvailable();

//! The weights of an engine in device memory, uploaded once and shared by every context of the engine.
class DeviceWeights
{
public:
    //! Copies every weights blob of model to the current device (synchronously). The error names the size.
    static Expected<std::shared_ptr<DeviceWeights const>> upload(EngineModel const& model);
    ~DeviceWeights();
    DeviceWeights(DeviceWeights const&) = delete;
    DeviceWeights& operator=(DeviceWeights const&) = delete;

    //! The device address of hostValues, an address inside one of the model's blobs; nullptr for any other.
    void const* find(void const* hostValues) const noexcept;

    //! The bytes on the device.
    int64_t bytes() const noexcept { return mBytes; }

    //! Copies the host bytes of blob, one of the model's blobs (rewritten in place by a refit, runtime/refitter.h), to
    //! its device copy, ordered on stream; the engine's contexts read the new values from then on. The error names
    //! the size.
    std::optional<Error> refresh(WeightsBlob const& blob, cudaStream_t stream) const;

private:
    DeviceWeights() = default;
    void* mBlock{};
    int64_t mBytes{};
    //! Host start of each blob -> (its size, its device address).
    std::map<std::byte const*, std::pair<int64_t, std::byte*>> mBlobs;
};

//! A CUDA backend for one execution context (its libraries' handles and scratch memory are its own).
std::unique_ptr<Backend> makeCudaBackend(std::shared_ptr<DeviceWeights const> weights);

//! Choices of variants by problem (tacticProblemText), kept across layers and builds: the build's timing cache. lookup
//! gives the index in names of the variant recorded for problem, if any; record keeps a layer's choice and its time;
//! with errorOnMiss a problem lookup does not know is an error instead of timed (BuilderFlag::
//! kERROR_ON_TIMING_CACHE_MISS).
struct TacticMemo
{
    std::function<std::optional<int32_t>(std::string const& problem, std::span<std::string const> names)> lookup;
    std::function<std::optional<Error>(std::string const& problem, std::string const& name, float milliseconds)> record;
    bool errorOnMiss{};
};

//! Times every variant of model's convolutions and matrix multiplies on the GPU, on buffers of values in [-1, 1] at the
//! shapes optShape gives (the first profile's kOPT; a tensor without one keeps its layer at the default variant), and
//! records the fastest in each layer's tactic. A variant that fails is passed over. With memo, a layer whose problem
//! memo knows takes the variant recorded there untimed (so identical layers are timed once), and every layer timed
//! records its choice there.
std::optional<Error> chooseTactics(EngineModel& model,
    std::function<std::optional<Dims>(int32_t tensor)> const& optShape, int32_t iterations,
    TacticMemo const* memo = nullptr);

//! A CUDA backend for building: checkLayer only (runLayer refuses).
std::unique_ptr<Backend> makeCudaBuildBackend();

} // namespace kiln::cuda
