// SPDX-License-Identifier: Apache-2.0
#include "plan/refit.h"

#include "core/data_type.h"
#include "core/float_convert.h"
#include "plan/model_support.h"

#include <algorithm>
#include <cstring>
#include <variant>

namespace kiln
{
namespace
{

using nvinfer1::WeightsRole;

//! Element index of floating-point weights bytes of type as a float.
float loadFloat(uint8_t const* bytes, DataType type, int64_t index) noexcept
{
    if (type == DataType::kFLOAT)
    {
        float value{};
        std::memcpy(&value, bytes + index * 4, sizeof(value));
        return value;
    }
    uint16_t bits{};
    std::memcpy(&bits, bytes + index * 2, sizeof(bits));
    return type == DataType::kHALF ? halfToFloat(bits) : bf16ToFloat(bits);
}

//! Stores value, rounded to nearest even, as element index of an array of type.
void storeFloat(uint8_t* bytes, DataType type, int64_t index, float value) noexcept
{
    if (type == DataType::kFLOAT)
    {
        std::memcpy(bytes + index * 4, &value, sizeof(value));
        return;
    }
    uint16_t const bits = type == DataType::kHALF ? floatToHalf(value) : floatToBf16(value);
    std::memcpy(bytes + index * 2, &bits, sizeof(bits));
}

bool floating(DataType type) noexcept
{
    return type == DataType::kFLOAT || type == DataType::kHALF || type == DataType::kBF16;
}

//! Whether layer is a convolution whose tensors are channels-last, so that its kernel is stored KRSC.
bool kernelIsChannelsLast(EngineModel const& model, LayerRecord const& layer) noexcept
{
    auto const* conv = std::get_if<ConvolutionParams>(&layer.params);
    if (conv == nullptr || layer.inputs.empty() || !inRange(layer.inputs[0], model.tensors.size()))
    {
        return false;
    }
    return model.tensors[static_cast<std::size_t>(layer.inputs[0])].format != nvinfer1::TensorFormat::kLINEAR
        && conv->kernel.count > 0;
}

//! The spatial taps of a convolution's kernel (the product of its kernel extents).
int64_t kernelTaps(ConvolutionParams const& params) noexcept
{
    int64_t taps = 1;
    for (int32_t i = 0; i < params.kernelSize.nbDims; ++i)
    {
        taps *= params.kernelSize.d[i];
    }
    return taps;
}

//! The channels per map and tap a channels-last convolution's stored kernel of storedCount elements holds when they
//! are as many as those of a source kernel of sourceCount or more (its input's padded channels); 0 when the stored
//! kernel cannot be the source's padded.
int64_t paddedKernelChannels(LayerRecord const& layer, int64_t storedCount, int64_t sourceCount) noexcept
{
    auto const& params = std::get<ConvolutionParams>(layer.params);
    int64_t const perChannel = params.nbOutputMaps * kernelTaps(params);
    if (perChannel <= 0 || storedCount % perChannel != 0 || sourceCount % perChannel != 0 || storedCount < sourceCount)
    {
        return 0;
    }
    return storedCount / perChannel;
}

} // namespace

Weights const* weightsField(LayerParams const& params, int32_t slot) noexcept
{
    if (auto const* conv = std::get_if<ConvolutionParams>(&params))
    {
        return slot == 0 ? &conv->kernel : slot == 1 ? &conv->bias : nullptr;
    }
    if (auto const* deconv = std::get_if<DeconvolutionParams>(&params))
    {
        return slot == 0 ? &deconv->kernel : slot == 1 ? &deconv->bias : nullptr;
    }
    if (auto const* constant = std::get_if<ConstantParams>(&params))
    {
        return slot == 0 ? &constant->weights : nullptr;
    }
    return nullptr;
}

std::optional<WeightsRole> weightsRoleOf(LayerParams const& params, int32_t slot) noexcept
{
    if (weightsField(params, slot) == nullptr)
    {
        return std::nullopt;
    }
    if (std::holds_alternative<ConstantParams>(params))
    {
        return WeightsRole::kCONSTANT;
    }
    return slot == 0 ? WeightsRole::kKERNEL : WeightsRole::kBIAS;
}

char const* weightsRoleName(WeightsRole role) noexcept
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
    return "(no WeightsRole)";
}

std::vector<uint8_t> kernelChannelsLast(
    ConvolutionParams const& params, Weights const& kernel, DataType type, int64_t storedChannels)
{
    int64_t const spatial = kernelTaps(params);
    int64_t const maps = params.nbOutputMaps;
    int64_t const channels = maps * spatial > 0 ? kernel.count / (maps * spatial) : 0;
    int64_t const stored = std::max(storedChannels, channels);
    int64_t const size = dataTypeBits(type) / 8;
    auto const* from = static_cast<uint8_t const*>(kernel.values);
    std::vector<uint8_t> bytes(static_cast<std::size_t>(storageBytes(type, maps * spatial * stored))); // zeros
    for (int64_t k = 0; k < maps; ++k)
    {
        for (int64_t c = 0; c < channels; ++c)
        {
            for (int64_t s = 0; s < spatial; ++s)
            {
                int64_t const source = (k * channels + c) * spatial + s;
                int64_t const target = (k * spatial + s) * stored + c;
                if (kernel.type == type)
                {
                    std::memcpy(bytes.data() + target * size, from + source * size, static_cast<std::size_t>(size));
                }
                else
                {
                    storeFloat(bytes.data(), type, target, loadFloat(from, kernel.type, source));
                }
            }
        }
    }
    return bytes;
}

Expected<std::vector<uint8_t>> storedWeights(
    EngineModel const& model, LayerRecord const& layer, int32_t slot, Weights const& source)
{
    Weights const* stored = weightsField(layer.params, slot);
    bool const channelsLast = slot == 0 && stored != nullptr && kernelIsChannelsLast(model, layer);
    // A channels-last kernel may store more channels than the source has (padded, as its input is: builder/layout.h).
    int64_t const storedChannels = channelsLast ? paddedKernelChannels(layer, stored->count, source.count) : 0;
    if (stored == nullptr || (stored->count != source.count && storedChannels == 0))
    {
        return Error{nvinfer1::ErrorCode::kINTERNAL_ERROR,
            cat("layer \"", layer.name, "\" stores no weights of ", source.count, " elements in slot ", slot)};
    }
    if (channelsLast)
    {
        if (!floating(source.type) || !floating(stored->type))
        {
            return Error{nvinfer1::ErrorCode::kUNSUPPORTED_STATE,
                cat("layer \"", layer.name, "\" stores its kernel channels-last in ", dataTypeName(stored->type),
                    ", which cannot be made from ", dataTypeName(source.type))};
        }
        return kernelChannelsLast(std::get<ConvolutionParams>(layer.params), source, stored->type, storedChannels);
    }
    auto const* from = static_cast<uint8_t const*>(source.values);
    if (stored->type == source.type)
    {
        return std::vector<uint8_t>(from, from + storageBytes(source.type, source.count));
    }
    if (!floating(source.type) || !floating(stored->type))
    {
        return Error{nvinfer1::ErrorCode::kUNSUPPORTED_STATE,
            cat("layer \"", layer.name, "\" stores its weights in ", dataTypeName(stored->type),
                ", which cannot be made from ", dataTypeName(source.type))};
    }
    std::vector<uint8_t> bytes(static_cast<std::size_t>(storageBytes(stored->type, source.count)));
    for (int64_t i = 0; i < source.count; ++i)
    {
        storeFloat(bytes.data(), stored->type, i, loadFloat(from, source.type, i));
    }
    return bytes;
}

std::vector<bool> refittableBlobs(EngineModel const& model)
{
    BlobFinder const blobs(model.weights);
    std::vector<int32_t> refittable(model.weights.size(), 0); // 1: refittable weights only; -1: others too.
    for (LayerRecord const& layer : model.layers)
    {
        for (int32_t slot = 0; slot < kRefitSlots; ++slot)
        {
            Weights const* field = weightsField(layer.params, slot);
            if (field == nullptr || field->count <= 0)
            {
                continue;
            }
            auto const place = blobs.find(*field);
            if (!place)
            {
                continue;
            }
            int32_t& mark = refittable[static_cast<std::size_t>(place->blob)];
            mark = layer.refit[static_cast<std::size_t>(slot)] >= 0 && mark >= 0 ? 1 : -1;
        }
    }
    std::vector<bool> result(model.weights.size());
    for (std::size_t b = 0; b < result.size(); ++b)
    {
        result[b] = refittable[b] > 0;
    }
    return result;
}

std::optional<std::string> refitProblem(EngineModel const& model)
{
    RefitRecord const& refit = model.refit;
    if (refit.mode != RefitRecord::Mode::kNONE && refit.mode != RefitRecord::Mode::kREFIT
        && refit.mode != RefitRecord::Mode::kIDENTICAL)
    {
        return cat("the refit mode is ", static_cast<int32_t>(refit.mode), "; modes are 0 to 2");
    }
    if (refit.mode == RefitRecord::Mode::kNONE && (!refit.weights.empty() || refit.strip))
    {
        return std::string("an engine that is not refittable lists refittable weights");
    }
    for (std::size_t e = 0; e < refit.weights.size(); ++e)
    {
        RefitWeightsRecord const& entry = refit.weights[e];
        if (entry.layer.empty() || !isValidEnum(entry.role) || entry.role == WeightsRole::kANY
            || !isValidEnum(entry.type) || entry.count <= 0)
        {
            return cat("refittable weights ", e, " (layer \"", entry.layer, "\", ", weightsRoleName(entry.role),
                ") need a layer name, a role other than kANY, a valid type and a positive count");
        }
    }
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        LayerRecord const& layer = model.layers[l];
        for (int32_t slot = 0; slot < kRefitSlots; ++slot)
        {
            int32_t const entry = layer.refit[static_cast<std::size_t>(slot)];
            if (entry == -1)
            {
                continue;
            }
            Weights const* field = weightsField(layer.params, slot);
            if (!inRange(entry, refit.weights.size()) || field == nullptr)
            {
                return cat(layerText(model, l), ": weights slot ", slot, " refers to refittable weights ", entry,
                    ", but the layer has no such weights or the engine lists ", refit.weights.size());
            }
            int64_t const count = refit.weights[static_cast<std::size_t>(entry)].count;
            bool const padded = slot == 0 && kernelIsChannelsLast(model, layer)
                && paddedKernelChannels(layer, field->count, count) != 0;
            if (field->count != count && !padded)
            {
                return cat(layerText(model, l), ": weights slot ", slot, " holds ", field->count,
                    " elements, but refittable weights ", entry, " have ",
                    refit.weights[static_cast<std::size_t>(entry)].count);
            }
        }
    }
    std::vector<bool> const refittable = refittableBlobs(model);
    for (std::size_t b = 0; b < model.weights.size(); ++b)
    {
        if (model.weights[b].stripped && !refittable[b])
        {
            return cat("weights blob ", b, " was left out of the plan, but weights that cannot be refitted use it");
        }
    }
    return std::nullopt;
}

} // namespace kiln
