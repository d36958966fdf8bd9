// SPDX-License-Identifier: Apache-2.0
#include "builder/weights_blobs.h"

#include <span>

namespace kiln
{
namespace
{

//! Whether pointer lies in blob's bytes.
bool within(WeightsBlob const& blob, void const* pointer)
{
    auto const* p = static_cast<uint8_t const*>(pointer);
    std::span<uint8_t const> const bytes = blob.view();
    return pointer != nullptr && p >= bytes.data() && p < bytes.data() + bytes.size();
}

//! How many weights fields of model's layers point into blob.
int32_t referencesTo(EngineModel const& model, WeightsBlob const& blob)
{
    int32_t references = 0;
    for (LayerRecord const& layer : model.layers)
    {
        if (auto const* conv = std::get_if<ConvolutionParams>(&layer.params))
        {
            references += (within(blob, conv->kernel.values) ? 1 : 0) + (within(blob, conv->bias.values) ? 1 : 0);
        }
        else if (auto const* deconv = std::get_if<DeconvolutionParams>(&layer.params))
        {
            references += (within(blob, deconv->kernel.values) ? 1 : 0) + (within(blob, deconv->bias.values) ? 1 : 0);
        }
        else if (auto const* constant = std::get_if<ConstantParams>(&layer.params))
        {
            references += within(blob, constant->weights.values) ? 1 : 0;
        }
    }
    return references;
}

//! The blob whose bytes start at values and that only one weights field of the model points into, or nullptr.
WeightsBlob* ownBlob(EngineModel& model, void const* values)
{
    for (WeightsBlob& blob : model.weights)
    {
        if (!blob.view().empty() && blob.view().data() == values)
        {
            return referencesTo(model, blob) == 1 ? &blob : nullptr;
        }
    }
    return nullptr;
}

} // namespace

void replaceWeights(EngineModel& model, nvinfer1::Weights& weights, DataType type, std::vector<uint8_t> bytes,
    std::optional<int64_t> count)
{
    WeightsBlob* blob = ownBlob(model, weights.values);
    if (blob == nullptr)
    {
        model.weights.emplace_back();
        blob = &model.weights.back();
    }
    int64_t const elements = count.value_or(weights.count);
    *blob = WeightsBlob{type, elements, std::move(bytes)};
    weights = nvinfer1::Weights{type, blob->bytes.data(), elements};
}

} // namespace kiln
