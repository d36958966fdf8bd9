// SPDX-License-Identifier: Apache-2.0
// The kiln tool's --refit, as trtexec times a refit: the engine was built with BuilderFlag::kREFIT; once it is
// deserialized, an IRefitter lists its refittable weights (IRefitter::getAll by layer and role, getAllWeights by
// name) and gives every one of them the network's own values (IRefitter::setWeights with the network layer's kernel,
// bias or constant weights), then refitCudaEngine is timed. The engine computes what it computed before, so the
// inference that follows checks that a refit leaves it intact.
//
//     RefittableWeights const weights = refittableWeights(engine);       // a Failure when it is not refittable
//     double const ms = refitWithNetworkWeights(engine, network);        // "[I] Engine refitted in 0.2 ms." by caller
#pragma once

#include "NvInfer.h"

#include <string>
#include <vector>

namespace kiln_tool
{

//! One refittable weights of an engine: its layer and role, and its name with the type and count new values take.
struct RefittableWeights
{
    struct ByLayer
    {
        std::string layer;
        nvinfer1::WeightsRole role{};
    };
    struct ByName
    {
        std::string name;
        nvinfer1::DataType type{};
        int64_t count{};
    };
    std::vector<ByLayer> layers;
    std::vector<ByName> names;
};

//! "kKERNEL", "kBIAS", "kCONSTANT", ...
char const* roleName(nvinfer1::WeightsRole role) noexcept;

//! engine's refittable weights; a Failure when engine is not refittable (built without BuilderFlag::kREFIT).
RefittableWeights refittableWeights(nvinfer1::ICudaEngine& engine);

//! Refits engine once with network's weights, each refittable layer and role given the values the network layer of
//! that name holds; returns the milliseconds refitCudaEngine took. A Failure naming the layer when the network has no
//! such layer (or several), no such weights, or IRefitter refuses them, and when the refit fails.
double refitWithNetworkWeights(nvinfer1::ICudaEngine& engine, nvinfer1::INetworkDefinition& network);

} // namespace kiln_tool
