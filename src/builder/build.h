// SPDX-License-Identifier: Apache-2.0
// The build step: a network definition and a config become an EngineModel (plan/engine_model.h).
//
//     Expected<EngineModel> model = buildEngineModel(Network::of(definition), BuilderConfig::of(config).settings());
//
// It orders the layers, infers every shape symbolically, checks the shapes against every optimization profile,
// resolves each tensor's type and format, asks the backend (Backend::checkLayer) whether it runs every layer at the
// profile's kMIN, kOPT and kMAX shapes, keeps the weights (copied, or borrowed for a plan), and plans activation
// memory per profile. The first error names the layer, tensor or profile concerned.
#pragma once

#include "backends/backend.h"
#include "builder/builder_config.h"
#include "core/error.h"
#include "network/network.h"
#include "plan/engine_model.h"

#include <string>

namespace kiln
{

//! The backend builds are for: KILN_BACKEND ("host" or "cuda") when set, else the CUDA backend where a GPU can be
//! used and cuDNN and cuBLASLt load, else the host (with a warning naming the library where only a library is
//! missing). The error says why KILN_BACKEND cannot be followed.
Expected<PlanBackend> chosenBackend();

//! The identity of the timing caches of builds for backend: the backend, kiln's version, and for CUDA the device's
//! name and compute capability ("kiln cuda NVIDIA H100 80GB HBM3 sm_90 0.1.0"), so timings of one device are never
//! taken for another's.
std::string timingCacheIdentity(PlanBackend backend);

//! How a built model holds the network's weights.
enum class ModelWeights
{
    //! Copies them: the model outlives the network (an engine made from it, tests).
    kCOPY,
    //! Borrows them (WeightsBlob::borrowed), for a model that is written as a plan before the network can change or
    //! go: the weights are then copied once, into the plan. Weights that share bytes with weights borrowed before are
    //! copied, so that borrowed blobs never overlap (every address in a blob names one blob).
    kBORROW,
};

//! The model of network for the backend chosenBackend() gives.
Expected<EngineModel> buildEngineModel(
    Network const& network, BuildSettings const& settings, ModelWeights weights = ModelWeights::kCOPY);

//! The model of network for backend, which checks every layer; the model's backend is backend.kind().
Expected<EngineModel> buildEngineModel(Network const& network, BuildSettings const& settings, Backend const& backend,
    ModelWeights weights = ModelWeights::kCOPY);

} // namespace kiln
