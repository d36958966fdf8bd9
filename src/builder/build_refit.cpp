// SPDX-License-Identifier: Apache-2.0
// The refittable weights of a build (builder/build_passes.h, plan/refit.h).
#include "builder/build_passes.h"

#include "core/logging.h"
#include "plan/refit.h"

#include <string>

namespace kiln
{
namespace
{

using nvinfer1::BuilderFlag;

RefitRecord::Mode refitMode(BuildSettings const& settings) noexcept
{
    // kREFIT wins over kREFIT_IDENTICAL: refitting any values is always correct, folding only for identical ones.
    if (hasFlag(settings, BuilderFlag::kREFIT) || hasFlag(settings, BuilderFlag::kREFIT_INDIVIDUAL))
    {
        return RefitRecord::Mode::kREFIT;
    }
    if (hasFlag(settings, BuilderFlag::kREFIT_IDENTICAL) || hasFlag(settings, BuilderFlag::kSTRIP_PLAN))
    {
        return RefitRecord::Mode::kIDENTICAL;
    }
    return RefitRecord::Mode::kNONE;
}

} // namespace

RefitTagger::RefitTagger(Network const& network, BuildSettings const& settings, RefitRecord& refit)
    : mNetwork(network)
    , mRefit(refit)
    , mIndividual(hasFlag(settings, BuilderFlag::kREFIT_INDIVIDUAL) && !hasFlag(settings, BuilderFlag::kREFIT))
{
    mRefit.mode = refitMode(settings);
    mRefit.strip = hasFlag(settings, BuilderFlag::kSTRIP_PLAN) && mRefit.mode != RefitRecord::Mode::kNONE;
}

void RefitTagger::tag(Layer const& layer, LayerRecord& record)
{
    if (mRefit.mode == RefitRecord::Mode::kNONE)
    {
        return;
    }
    for (int32_t slot = 0; slot < kRefitSlots; ++slot)
    {
        Weights const* weights = weightsField(layer.params(), slot);
        if (weights == nullptr || weights->count <= 0 || weights->values == nullptr)
        {
            continue;
        }
        char const* const name = mNetwork.weightsName(weights->values);
        if (mIndividual && (name == nullptr || !mNetwork.isWeightsRefittable(name)))
        {
            continue;
        }
        record.refit[static_cast<std::size_t>(slot)] = static_cast<int32_t>(mRefit.weights.size());
        mRefit.weights.push_back(RefitWeightsRecord{layer.name(), *weightsRoleOf(layer.params(), slot),
            name != nullptr ? std::string(name) : std::string(), weights->type, weights->count});
    }
}

void finishRefit(EngineModel& model)
{
    if (model.refit.weights.empty())
    {
        return;
    }
    std::vector<int32_t> uses(model.refit.weights.size(), 0);
    for (LayerRecord& layer : model.layers)
    {
        bool const shapeValues = layer.type == LayerType::kCONSTANT && layer.outputs.size() == 1
            && model.tensors[static_cast<std::size_t>(layer.outputs[0])].values.has_value();
        if (shapeValues && layer.refit[0] >= 0)
        {
            RefitWeightsRecord const& entry = model.refit.weights[static_cast<std::size_t>(layer.refit[0])];
            log(entry.name.empty() ? Severity::kINFO : Severity::kWARNING,
                "constant layer \"" + layer.name + "\""
                    + (entry.name.empty() ? "" : " (weights \"" + entry.name + "\")")
                    + ": its values are shape values the engine was built for, so they are not refittable");
            layer.refit[0] = -1;
        }
        for (int32_t const entry : layer.refit)
        {
            if (entry >= 0)
            {
                ++uses[static_cast<std::size_t>(entry)];
            }
        }
    }
    std::vector<int32_t> renumbered(uses.size(), -1);
    std::vector<RefitWeightsRecord> kept;
    for (std::size_t e = 0; e < uses.size(); ++e)
    {
        if (uses[e] > 0)
        {
            renumbered[e] = static_cast<int32_t>(kept.size());
            kept.push_back(std::move(model.refit.weights[e]));
        }
    }
    model.refit.weights = std::move(kept);
    for (LayerRecord& layer : model.layers)
    {
        for (int32_t& entry : layer.refit)
        {
            entry = entry >= 0 ? renumbered[static_cast<std::size_t>(entry)] : -1;
        }
    }
}

} // namespace kiln
