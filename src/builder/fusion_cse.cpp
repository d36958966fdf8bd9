// SPDX-License-Identifier: Apache-2.0
// Duplicate layers merged (builder/fusion.h, mergeDuplicateLayers): a layer that computes exactly what an earlier
// layer computes (the same kind, the same parameters field by field, the same input tensors, outputs of the same types,
// formats and shapes) has its readers read the earlier layer's outputs instead, and removeUnreadLayers then drops it.
// Exporters repeat what a model computes once: transformers' BERT builds the same mask select, from the same mask and
// two constants of the same values, in each of its 12 layers, 12 kernels per run where one is needed.
//
// Layers are visited in order, so a chain of duplicates merges link by link (two equal constants first, then the
// selects that read them). Not merged:
// - plugins, loops and conditionals (and every layer inside one), assertions, random fills (each draws its own
//   values), layers with assertions, layers that a fusion changed, refittable constants;
// - a layer whose outputs are network outputs or shape symbols, or are read by a plugin (which may write its input in
//   place);
// - constants of more than kMaxComparedWeightsBytes (a model's weight matrices: they cost nothing per run, and are
//   never equal anyway).
#include "builder/fusion.h"
#include "builder/fusion_graph.h"
#include "network/layer_kinds.h"
#include "plan/model_support.h"
#include "plan/params_fields.h"

#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace kiln
{
namespace
{

constexpr int64_t kMaxComparedWeightsBytes = int64_t{64} << 10;

bool pluginKind(LayerType type)
{
    return type == LayerType::kPLUGIN || type == LayerType::kPLUGIN_V2 || type == LayerType::kPLUGIN_V3;
}

//! Appends the fields of one layer's parameters to a key: equal keys, equal parameters. Weights go in by value (their
//! bytes, at most kMaxComparedWeightsBytes). comparable turns false for a field it cannot compare.
class ParamsKey
{
public:
    explicit ParamsKey(std::string& key)
        : mKey(key)
    {
    }

    [[nodiscard]] bool comparable() const { return mComparable; }

    template <typename T>
    void operator()(char const* /*name*/, T const& value)
    {
        if constexpr (std::is_same_v<T, nvinfer1::Weights>)
        {
            int64_t const bytes = value.count > 0 ? weightsBytes(value.type, value.count) : 0;
            if (bytes < 0 || bytes > kMaxComparedWeightsBytes || (bytes > 0 && value.values == nullptr))
            {
                mComparable = false;
                return;
            }
            append(value.type);
            append(value.count);
            mKey.append(static_cast<char const*>(value.values), static_cast<std::size_t>(bytes));
        }
        else if constexpr (std::is_same_v<T, nvinfer1::Dims>)
        {
            append(value.nbDims);
            for (int32_t i = 0; i < value.nbDims && i < nvinfer1::Dims::MAX_DIMS; ++i)
            {
                append(value.d[i]);
            }
        }
        else if constexpr (std::is_same_v<T, nvinfer1::Permutation>)
        {
            mKey.append(reinterpret_cast<char const*>(value.order), sizeof(value.order));
        }
        else if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T>)
        {
            append(value); // Floats by their bits: -0 and 0 differ (a conservative miss), NaNs of one pattern match.
        }
        else
        {
            mComparable = false;
        }
    }

private:
    template <typename T>
    void append(T const& value)
    {
        mKey.append(reinterpret_cast<char const*>(&value), sizeof(value));
    }

    std::string& mKey;
    bool mComparable{true};
};

//! Whether layer l may be merged into an earlier equal layer, or stand for later ones: what the file comment lists.
bool mergeable(EngineModel const& model, Readers const& readers, std::vector<uint8_t> const& excluded, std::size_t l)
{
    LayerRecord const& layer = model.layers[l];
    if (excluded[l] != 0 || !plainLayer(layer) || layer.outputs.empty() || layer.refit != std::array<int32_t, 2>{-1, -1}
        || pluginKind(layer.type) || isLoopOrConditionalBoundary(layer.type) || layer.type == LayerType::kASSERTION)
    {
        return false;
    }
    if (auto const* fill = std::get_if<FillParams>(&layer.params);
        fill != nullptr && fill->op != nvinfer1::FillOperation::kLINSPACE)
    {
        return false; // kRANDOM_UNIFORM and kRANDOM_NORMAL draw new values per layer.
    }
    for (int32_t output : layer.outputs)
    {
        auto const t = static_cast<std::size_t>(output);
        if (readers.pinned[t])
        {
            return false;
        }
        for (int32_t reader : readers.layers[t])
        {
            if (pluginKind(model.layers[static_cast<std::size_t>(reader)].type))
            {
                return false;
            }
        }
    }
    return true;
}

//! The key of layer l (its inputs already redirected): kind, parameters, inputs and its outputs' types, scales,
//! formats and shapes; nullopt when a field cannot be compared.
std::optional<std::string> layerKey(EngineModel const& model, LayerRecord const& layer)
{
    std::string key;
    auto const append = [&](auto const& value) { key.append(reinterpret_cast<char const*>(&value), sizeof(value)); };
    append(layer.type);
    append(layer.params.index());
    bool comparable = true;
    std::visit(
        [&](auto const& params) {
            ParamsKey fields(key);
            forEachField(params, fields);
            comparable = fields.comparable();
        },
        layer.params);
    if (!comparable)
    {
        return std::nullopt;
    }
    append(layer.inputs.size());
    for (int32_t input : layer.inputs)
    {
        append(input);
    }
    append(layer.outputs.size());
    for (int32_t output : layer.outputs)
    {
        TensorRecord const& tensor = model.tensors[static_cast<std::size_t>(output)];
        append(tensor.type);
        append(tensor.scale);
        append(tensor.format);
        append(tensor.isShapeTensor);
        append(tensor.shape.size());
        for (uint32_t extent : tensor.shape)
        {
            append(extent);
        }
        append(tensor.values.has_value());
        if (tensor.values)
        {
            append(tensor.values->size());
            for (uint32_t value : *tensor.values)
            {
                append(value);
            }
        }
    }
    return key;
}

} // namespace

int32_t mergeDuplicateLayers(EngineModel& model)
{
    std::optional<std::vector<uint8_t>> const fixed = fixedLayers(model);
    if (!fixed)
    {
        return 0;
    }
    Readers const readers = readersOf(model);
    // Each tensor's stand-in: itself, or the same output of the earlier layer its producer duplicates.
    std::vector<int32_t> standIn(model.tensors.size());
    for (std::size_t t = 0; t < standIn.size(); ++t)
    {
        standIn[t] = static_cast<int32_t>(t);
    }
    std::unordered_map<std::string, int32_t> first; // Key -> the first layer with it.
    int32_t merged = 0;
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        LayerRecord& layer = model.layers[l];
        for (int32_t& input : layer.inputs)
        {
            if (input != kNoTensor)
            {
                input = standIn[static_cast<std::size_t>(input)];
            }
        }
        if (!mergeable(model, readers, fixed.value(), l))
        {
            continue;
        }
        std::optional<std::string> key = layerKey(model, layer);
        if (!key)
        {
            continue;
        }
        auto const [at, added] = first.emplace(std::move(*key), static_cast<int32_t>(l));
        if (added)
        {
            continue;
        }
        LayerRecord const& earlier = model.layers[static_cast<std::size_t>(at->second)];
        for (std::size_t o = 0; o < layer.outputs.size(); ++o)
        {
            standIn[static_cast<std::size_t>(layer.outputs[o])] = earlier.outputs[o];
        }
        ++merged;
    }
    return merged;
}

} // namespace kiln
