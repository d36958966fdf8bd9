// SPDX-License-Identifier: Apache-2.0
#include "refit.h"

#include "logger.h"

#include <chrono>
#include <memory>
#include <optional>

namespace kiln_tool
{
namespace
{

using nvinfer1::LayerType;
using nvinfer1::Weights;
using nvinfer1::WeightsRole;

std::unique_ptr<nvinfer1::IRefitter> makeRefitter(nvinfer1::ICudaEngine& engine)
{
    if (!engine.isRefittable())
    {
        throw Failure("--refit: the engine is not refittable (it was built without --refit, BuilderFlag::kREFIT)");
    }
    std::unique_ptr<nvinfer1::IRefitter> refitter{nvinfer1::createInferRefitter(engine, logger())};
    if (refitter == nullptr)
    {
        throw Failure("--refit: createInferRefitter failed (kiln's error above says why)");
    }
    return refitter;
}

//! The weights of role that layer holds in the network; nullopt when its kind has no weights of that role.
std::optional<Weights> networkWeights(nvinfer1::ILayer& layer, WeightsRole role)
{
    switch (layer.getType())
    {
    case LayerType::kCONVOLUTION:
    {
        auto& conv = static_cast<nvinfer1::IConvolutionLayer&>(layer);
        return role == WeightsRole::kKERNEL ? std::optional(conv.getKernelWeights())
            : role == WeightsRole::kBIAS    ? std::optional(conv.getBiasWeights())
                                            : std::nullopt;
    }
    case LayerType::kDECONVOLUTION:
    {
        auto& deconv = static_cast<nvinfer1::IDeconvolutionLayer&>(layer);
        return role == WeightsRole::kKERNEL ? std::optional(deconv.getKernelWeights())
            : role == WeightsRole::kBIAS    ? std::optional(deconv.getBiasWeights())
                                            : std::nullopt;
    }
    case LayerType::kCONSTANT:
        return role == WeightsRole::kCONSTANT
            ? std::optional(static_cast<nvinfer1::IConstantLayer&>(layer).getWeights())
            : std::nullopt;
    default: return std::nullopt;
    }
}

//! The network's layer called name; a Failure when there is none, or several (IRefitter::setWeights could not tell
//! them apart either).
nvinfer1::ILayer& layerNamed(nvinfer1::INetworkDefinition& network, std::string const& name)
{
    nvinfer1::ILayer* found = nullptr;
    for (int32_t i = 0; i < network.getNbLayers(); ++i)
    {
        nvinfer1::ILayer* layer = network.getLayer(i);
        if (name == layer->getName())
        {
            if (found != nullptr)
            {
                throw Failure("--refit: several layers of the network are called '" + name
                    + "'; the refit by layer name cannot tell them apart");
            }
            found = layer;
        }
    }
    if (found == nullptr)
    {
        throw Failure("--refit: the engine's refittable layer '" + name + "' is not a layer of the network");
    }
    return *found;
}

} // namespace

char const* roleName(WeightsRole role) noexcept
{
    switch (role)
    {
    case WeightsRole::kKERNEL: return "kKERNEL";
    case WeightsRole::kBIAS: return "kBIAS";
    case WeightsRole::kSHIFT: return "kSHIFT";
    case WeightsRole::kSCALE: return "kSCALE";
    case WeightsRole::kCONSTANT: return "kCONSTANT";
    case WeightsRole::kANY: return "kANY";
    }
    return "unknown role";
}

RefittableWeights refittableWeights(nvinfer1::ICudaEngine& engine)
{
    std::unique_ptr<nvinfer1::IRefitter> const refitter = makeRefitter(engine);
    RefittableWeights weights;
    int32_t const count = refitter->getAll(0, nullptr, nullptr);
    std::vector<char const*> layers(static_cast<std::size_t>(std::max(count, 0)));
    std::vector<WeightsRole> roles(layers.size());
    if (count < 0 || refitter->getAll(count, layers.data(), roles.data()) != count)
    {
        throw Failure("--refit: IRefitter::getAll failed (kiln's error above says why)");
    }
    for (std::size_t i = 0; i < layers.size(); ++i)
    {
        weights.layers.push_back({layers[i], roles[i]});
    }
    int32_t const named = refitter->getAllWeights(0, nullptr);
    std::vector<char const*> names(static_cast<std::size_t>(std::max(named, 0)));
    if (named < 0 || refitter->getAllWeights(named, names.data()) != named)
    {
        throw Failure("--refit: IRefitter::getAllWeights failed (kiln's error above says why)");
    }
    for (char const* name : names)
    {
        Weights const prototype = refitter->getWeightsPrototype(name);
        weights.names.push_back({name, prototype.type, prototype.count});
    }
    return weights;
}

double refitWithNetworkWeights(nvinfer1::ICudaEngine& engine, nvinfer1::INetworkDefinition& network)
{
    std::unique_ptr<nvinfer1::IRefitter> const refitter = makeRefitter(engine);
    for (RefittableWeights::ByLayer const& entry : refittableWeights(engine).layers)
    {
        std::string const what
            = "the " + std::string(roleName(entry.role)) + " weights of the layer '" + entry.layer + "'";
        std::optional<Weights> const weights = networkWeights(layerNamed(network, entry.layer), entry.role);
        if (!weights || weights->count == 0)
        {
            throw Failure("--refit: the network has no values for " + what + ", which the engine has as refittable");
        }
        if (!refitter->setWeights(entry.layer.c_str(), entry.role, *weights))
        {
            throw Failure("--refit: IRefitter::setWeights refused " + what + " (kiln's error above says why)");
        }
    }
    if (int32_t const missing = refitter->getMissing(0, nullptr, nullptr); missing != 0)
    {
        throw Failure(
            "--refit: " + std::to_string(missing) + " refittable weights were not given (IRefitter::getMissing)");
    }
    auto const start = std::chrono::steady_clock::now();
    if (!refitter->refitCudaEngine())
    {
        throw Failure("--refit: IRefitter::refitCudaEngine failed (kiln's error above says why)");
    }
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

} // namespace kiln_tool
