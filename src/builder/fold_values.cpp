// SPDX-License-Identifier: Apache-2.0
// foldStaticValues (builder/fusion.h): values that do not depend on the engine's inputs are computed once, at build
// time, and kept as constants. Exports compute index arithmetic, ranges and comparisons from extents that are fixed
// (a sequence length of 128 behind a dynamic batch); left as layers, they run on the host whenever the input shapes
// change, and the fusions after this pass cannot see what they are (an attention mask's `q >= 0` part that is true
// everywhere).
//
// A tensor is known when its producer is a constant layer (not refittable), or when it holds integers or booleans of
// fixed extents, at most kMostFoldedBytes, and its producer is a shape-arithmetic layer (deterministicKind:
// runtime/shape_values.h) of which shape inference tracked every value as a constant or whose inputs are known (a
// kSHAPE layer only needs its input's extents fixed): the host reference backend computes it. A known tensor that a
// layer still reads, and that is not network I/O, a debug tensor or read by a symbol, has its producer become a
// constant layer of its values; what then goes unread is removed later (removeUnreadLayers).
#include "backends/backend.h"
#include "builder/fusion.h"
#include "builder/fusion_graph.h"
#include "builder/weights_blobs.h"
#include "runtime/shape_values.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

namespace kiln
{
namespace
{

//! The largest value folded: shape arithmetic and masks' index parts, not tensors of activations' size.
constexpr int64_t kMostFoldedBytes = int64_t{64} << 10;

//! The tensor's extents when every one is a constant.
std::optional<Dims> fixedDims(EngineModel const& model, TensorRecord const& tensor)
{
    if (tensor.shape.size() > static_cast<std::size_t>(Dims::MAX_DIMS))
    {
        return std::nullopt;
    }
    Dims dims{static_cast<int32_t>(tensor.shape.size()), {}};
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        std::optional<int64_t> const extent = constantExtent(model, tensor.shape[static_cast<std::size_t>(i)]);
        if (!extent || *extent < 0)
        {
            return std::nullopt;
        }
        dims.d[i] = *extent;
    }
    return dims;
}

//! Bytes of a tensor of type and dims, when the type has whole bytes per element and the size is at most the limit.
std::optional<int64_t> foldedBytes(DataType type, Dims const& dims)
{
    int32_t const bits = dataTypeBits(type);
    if (bits <= 0 || bits % 8 != 0)
    {
        return std::nullopt;
    }
    int64_t bytes = bits / 8;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        bytes *= dims.d[i];
        if (bytes > kMostFoldedBytes)
        {
            return std::nullopt;
        }
    }
    return bytes;
}

//! A known tensor: its values (owned, or a constant layer's weights) and extents.
struct Known
{
    std::vector<uint8_t> owned;
    void const* data{};
    Dims dims{};
    bool computed{}; //!< Made by this pass (not a constant layer's own weights).
};

//! Tracked constant values of an index tensor, as its type's bytes.
std::optional<std::vector<uint8_t>> trackedValues(
    EngineModel const& model, TensorRecord const& tensor, Dims const& dims)
{
    if (!tensor.values || (tensor.type != DataType::kINT32 && tensor.type != DataType::kINT64)
        || static_cast<int64_t>(tensor.values->size()) != host::elementCount(dims))
    {
        return std::nullopt;
    }
    std::vector<uint8_t> bytes;
    for (uint32_t expr : *tensor.values)
    {
        std::optional<int64_t> const value = constantExtent(model, expr);
        if (!value)
        {
            return std::nullopt;
        }
        if (tensor.type == DataType::kINT32)
        {
            auto const narrow = static_cast<int32_t>(*value);
            bytes.insert(bytes.end(), reinterpret_cast<uint8_t const*>(&narrow),
                reinterpret_cast<uint8_t const*>(&narrow) + sizeof(narrow));
        }
        else
        {
            bytes.insert(bytes.end(), reinterpret_cast<uint8_t const*>(&*value),
                reinterpret_cast<uint8_t const*>(&*value) + sizeof(*value));
        }
    }
    return bytes;
}

} // namespace

int32_t foldStaticValues(EngineModel& model)
{
    std::unique_ptr<Backend> const host = makeHostBackend();
    std::vector<std::optional<Known>> known(model.tensors.size());
    std::vector<host::HostTensor> given;
    std::vector<host::HostTensor const*> inputs;
    for (LayerRecord const& layer : model.layers)
    {
        if (layer.outputs.size() != 1)
        {
            continue;
        }
        auto const out = static_cast<std::size_t>(layer.outputs[0]);
        TensorRecord const& record = model.tensors[out];
        std::optional<Dims> const dims = fixedDims(model, record);
        if (!dims)
        {
            continue;
        }
        std::optional<int64_t> const bytes = foldedBytes(record.type, *dims);
        if (!bytes)
        {
            continue;
        }
        // Indices, shapes and their comparisons; computed floats (a lookup in a table of weights, a scale) are left to
        // the fusions that know them.
        bool const indexLike
            = record.type == DataType::kINT32 || record.type == DataType::kINT64 || record.type == DataType::kBOOL;
        if (auto const* constant = std::get_if<ConstantParams>(&layer.params);
            constant != nullptr && layer.type == LayerType::kCONSTANT && plainLayer(layer))
        {
            if (layer.refit[0] < 0 && constant->weights.type == record.type
                && constant->weights.count == host::elementCount(*dims)
                && (constant->weights.values != nullptr || constant->weights.count == 0))
            {
                known[out] = Known{{}, constant->weights.values, *dims, false};
            }
            continue;
        }
        if (!indexLike || !deterministicKind(layer) || layer.type == LayerType::kCONSTANT || !plainLayer(layer))
        {
            continue;
        }
        if (std::optional<std::vector<uint8_t>> values = trackedValues(model, record, *dims))
        {
            known[out] = Known{std::move(*values), nullptr, *dims, true};
            known[out]->data = known[out]->owned.data();
            continue;
        }
        // Every input known; a kSHAPE layer's input needs only fixed extents.
        given.assign(layer.inputs.size(), host::HostTensor{});
        inputs.clear();
        bool ready = true;
        for (std::size_t i = 0; ready && i < layer.inputs.size(); ++i)
        {
            int32_t const input = layer.inputs[i];
            if (input == kNoTensor)
            {
                inputs.push_back(nullptr);
                continue;
            }
            auto const t = static_cast<std::size_t>(input);
            TensorRecord const& in = model.tensors[t];
            if (known[t])
            {
                given[i] = host::HostTensor{const_cast<void*>(known[t]->data), in.type, known[t]->dims, in.scale};
            }
            else if (layer.type == LayerType::kSHAPE)
            {
                std::optional<Dims> const extents = fixedDims(model, in);
                ready = extents.has_value();
                given[i] = host::HostTensor{nullptr, in.type, extents.value_or(Dims{}), in.scale};
            }
            else
            {
                ready = false;
            }
            inputs.push_back(&given[i]);
        }
        if (!ready)
        {
            continue;
        }
        Known result{std::vector<uint8_t>(static_cast<std::size_t>(*bytes)), nullptr, *dims, true};
        host::HostTensor const output{result.owned.data(), record.type, *dims, record.scale};
        if (!host->runLayer(layer, model, inputs, std::span<host::HostTensor const>(&output, 1), nullptr))
        {
            continue; // Left to run as before: its error, if it is one, comes at run time with the layer's name.
        }
        result.data = result.owned.data();
        known[out] = std::move(result);
    }

    // Producers of known tensors that a layer still needs become constant layers.
    Readers const readers = readersOf(model);
    std::vector<bool> folds(model.layers.size(), false);
    for (std::size_t t = 0; t < model.tensors.size(); ++t)
    {
        TensorRecord const& record = model.tensors[t];
        // Not network I/O, a debug tensor or values a symbol is bound from (readers.pinned): those keep their layer.
        if (!known[t] || !known[t]->computed || record.producer < 0 || readers.pinned[t])
        {
            continue;
        }
        bool const readByUnknown = std::any_of(readers.layers[t].begin(), readers.layers[t].end(), [&](int32_t reader) {
            LayerRecord const& layer = model.layers[static_cast<std::size_t>(reader)];
            return layer.outputs.size() != 1 || !known[static_cast<std::size_t>(layer.outputs[0])];
        });
        folds[static_cast<std::size_t>(record.producer)] = readByUnknown;
    }
    int32_t folded = 0;
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        if (!folds[l])
        {
            continue;
        }
        LayerRecord& layer = model.layers[l];
        auto const out = static_cast<std::size_t>(layer.outputs[0]);
        Known& value = *known[out];
        DataType const type = model.tensors[out].type;
        ConstantParams params{value.dims, nvinfer1::Weights{type, nullptr, host::elementCount(value.dims)}};
        replaceWeights(model, params.weights, type, std::move(value.owned));
        layer.type = LayerType::kCONSTANT;
        layer.params = params;
        layer.inputs.clear();
        ++folded;
    }
    return folded;
}

} // namespace kiln
