// SPDX-License-Identifier: Apache-2.0
// Embeddings fused (builder/fusion.h, fuseEmbeddings): table lookups summed, with other rows added and an optional
// layer norm after them, become one kernel (FusedKernel::kEMBEDDING) that reads each table row once and writes the
// result once. transformers' BERT export computes its embeddings as
//
//     word = Gather(word_table, select(ids < 0, ids + 30522, ids))      the importer's wrap of ONNX's negative indices
//     type = Gather(type_table, select(tt < 0, tt + 2, tt))
//     position = Gather(position_table, position_ids)
//     x = LayerNorm(word + type + position)
//
// eleven kernels at batch 32 (three per wrap, a gather each, the sum, the layer norm; the intermediate sums of
// [B, S, 768] written and read back); one fused kernel at the end.
//
// The pattern, found from each tree of element-wise kSUMs (plain layers, every inner sum read only by the tree):
// - a leaf made by a plain kDEFAULT gather along axis 0 without element-wise dimensions, of a constant table [rows, H]
//   (a float type, kLINEAR, H at most kMaxEmbeddingRow), read only by the tree, is a lookup; its indices, when a plain
//   select(i < 0, i + rows, i) read only by the lookup made them (the ONNX parser's wrap), become i with the lookup's
//   bit in FusedKernel::wrapped;
// - any other leaf of the tree's type and rank, its last extent H, is an addend (the kernel checks at run time that
//   each of its other extents is the output's or 1);
// - a fused layer norm (fuseLayerNorms) that alone reads the tree's sum is absorbed with its gamma and beta.
// At least one lookup and at most kMaxEmbeddingTerms lookups and addends; every tensor kLINEAR and of one float type.
// Layers inside loops or conditionals stay; the assertions of the layers absorbed (the broadcast of the word and type
// ids' batch extents) move to the fused layer.
#include "builder/fusion.h"
#include "builder/fusion_graph.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

namespace kiln
{
namespace
{

using nvinfer1::ElementWiseOperation;

//! The value of a one-element integer constant (kINT32 or kINT64); nullopt for any other tensor.
std::optional<int64_t> integerScalar(EngineModel const& model, int32_t tensor)
{
    int32_t const producer = producerOf(model, tensor);
    if (producer < 0)
    {
        return std::nullopt;
    }
    auto const* constant = std::get_if<ConstantParams>(&layerAt(model, producer).params);
    if (constant == nullptr || constant->weights.count != 1 || constant->weights.values == nullptr)
    {
        return std::nullopt;
    }
    if (constant->weights.type == DataType::kINT64)
    {
        int64_t value{};
        std::memcpy(&value, constant->weights.values, sizeof(value));
        return value;
    }
    if (constant->weights.type == DataType::kINT32)
    {
        int32_t value{};
        std::memcpy(&value, constant->weights.values, sizeof(value));
        return value;
    }
    return std::nullopt;
}

class EmbeddingMatcher
{
public:
    EmbeddingMatcher(EngineModel const& model, Readers const& readers, std::vector<uint8_t> const& fixed)
        : mModel(model)
        , mReaders(readers)
        , mFixed(fixed)
    {
    }

    //! The fusion rooted at sum layer root (the last sum of its tree), or nullopt.
    std::optional<KernelFusion> match(int32_t root)
    {
        LayerRecord const& top = layerAt(mModel, root);
        if (!isSum(root))
        {
            return std::nullopt;
        }
        int32_t const sum = top.outputs[0];
        TensorRecord const& result = tensorAt(mModel, sum);
        // The root is the last sum: no sum of the same tree reads it.
        if (int32_t const reader = soleReader(mReaders, sum); reader >= 0 && isSum(reader) && sameTyped(sum, reader))
        {
            return std::nullopt;
        }
        if (result.shape.empty() || !pointwiseType(result.type) || result.format != nvinfer1::TensorFormat::kLINEAR)
        {
            return std::nullopt;
        }
        int64_t const width = constantExtent(mModel, result.shape.back()).value_or(0);
        if (width < 1 || width > kMaxEmbeddingRow)
        {
            return std::nullopt;
        }
        mType = result.type;
        mRank = result.shape.size();
        mWidth = width;
        KernelFusion fusion;
        std::vector<int32_t> leaves;
        collect(root, fusion.absorbed, leaves);
        std::vector<int32_t> distinct = leaves;
        std::sort(distinct.begin(), distinct.end());
        if (std::adjacent_find(distinct.begin(), distinct.end()) != distinct.end())
        {
            return std::nullopt; // x + x: not an embedding
        }
        std::vector<int32_t> tables;
        std::vector<int32_t> addends;
        int32_t wrapped = 0;
        int32_t holder = -1;
        for (int32_t leaf : leaves)
        {
            int32_t const gather = lookupLayer(leaf);
            if (gather < 0)
            {
                if (!addendTensor(leaf))
                {
                    return std::nullopt;
                }
                addends.push_back(leaf);
                continue;
            }
            LayerRecord const& lookup = layerAt(mModel, gather);
            int32_t indices = lookup.inputs[1];
            if (std::optional<std::vector<int32_t>> const wrap = wrapLayers(indices, lookup.inputs[0]))
            {
                wrapped |= 1 << (tables.size() / 2);
                indices = layerAt(mModel, wrap->back()).inputs[2];
                fusion.absorbed.insert(fusion.absorbed.end(), wrap->begin(), wrap->end());
            }
            tables.push_back(lookup.inputs[0]);
            tables.push_back(indices);
            if (holder < 0)
            {
                holder = gather;
            }
            else
            {
                fusion.absorbed.push_back(gather);
            }
        }
        auto const gathers = static_cast<int32_t>(tables.size() / 2);
        if (gathers < 1 || gathers > kMaxEmbeddingTerms || addends.size() > kMaxEmbeddingTerms)
        {
            return std::nullopt;
        }
        fusion.layer = holder;
        fusion.position = root;
        fusion.output = sum;
        fusion.inputs = tables;
        fusion.inputs.insert(fusion.inputs.end(), addends.begin(), addends.end());
        fusion.kernel.kind = FusedKernel::Kind::kEMBEDDING;
        fusion.kernel.gathers = gathers;
        fusion.kernel.wrapped = wrapped;
        // A fused layer norm that alone reads the sum.
        int32_t const norm = soleReader(mReaders, sum);
        if (norm >= 0 && mFixed[static_cast<std::size_t>(norm)] == 0)
        {
            LayerRecord const& layer = layerAt(mModel, norm);
            if (layer.fused && layer.fused->kind == FusedKernel::Kind::kLAYER_NORM && layer.inputs.size() <= 3
                && layer.inputs.front() == sum && layer.outputs.size() == 1
                && sameTensorShape(tensorAt(mModel, layer.outputs[0]), result))
            {
                fusion.absorbed.push_back(norm);
                fusion.position = norm;
                fusion.output = layer.outputs[0];
                fusion.kernel.normalize = true;
                fusion.kernel.epsilon = layer.fused->epsilon;
                fusion.kernel.normAffine = static_cast<int32_t>(layer.inputs.size()) - 1;
                fusion.inputs.insert(fusion.inputs.end(), layer.inputs.begin() + 1, layer.inputs.end());
            }
        }
        // The holder (the first lookup) is one of the layers the fusion takes; the root sum is absorbed like the
        // others.
        return fusion;
    }

private:
    bool isSum(int32_t layer) const
    {
        return layer >= 0 && mFixed[static_cast<std::size_t>(layer)] == 0
            && elementWiseOp(layerAt(mModel, layer)) == ElementWiseOperation::kSUM;
    }

    //! Whether tensor is of the tree's kind (type, kLINEAR) and its sole reader is layer.
    bool sameTyped(int32_t tensor, int32_t layer) const
    {
        TensorRecord const& t = tensorAt(mModel, tensor);
        return t.type == tensorAt(mModel, layerAt(mModel, layer).outputs[0]).type
            && t.format == nvinfer1::TensorFormat::kLINEAR && soleReader(mReaders, tensor) == layer;
    }

    //! The sums of the tree under layer (absorbed, layer included) and its leaves, in input order.
    void collect(int32_t layer, std::vector<int32_t>& absorbed, std::vector<int32_t>& leaves) const
    {
        absorbed.push_back(layer);
        for (int32_t input : layerAt(mModel, layer).inputs)
        {
            int32_t const producer = producerOf(mModel, input);
            if (isSum(producer) && sameTyped(input, layer) && tensorAt(mModel, input).shape.size() == mRank)
            {
                collect(producer, absorbed, leaves);
            }
            else
            {
                leaves.push_back(input);
            }
        }
    }

    //! The gather that made leaf when it is a lookup the kernel takes; -1 otherwise.
    int32_t lookupLayer(int32_t leaf) const
    {
        int32_t const gather = producerOf(mModel, leaf);
        if (gather < 0 || mFixed[static_cast<std::size_t>(gather)] != 0 || !plainLayer(layerAt(mModel, gather)))
        {
            return -1;
        }
        LayerRecord const& layer = layerAt(mModel, gather);
        auto const* params = std::get_if<GatherParams>(&layer.params);
        if (params == nullptr || params->mode != nvinfer1::GatherMode::kDEFAULT || params->axis != 0
            || params->nbElementWiseDims != 0 || layer.inputs.size() != 2 || soleReader(mReaders, leaf) < 0)
        {
            return -1;
        }
        int32_t const table = layer.inputs[0];
        TensorRecord const& data = tensorAt(mModel, table);
        TensorRecord const& indices = tensorAt(mModel, layer.inputs[1]);
        int32_t const made = producerOf(mModel, table);
        bool const constant = made >= 0 && std::holds_alternative<ConstantParams>(layerAt(mModel, made).params);
        std::optional<int64_t> const width
            = data.shape.size() == 2 ? constantExtent(mModel, data.shape[1]) : std::nullopt;
        bool const index = indices.type == DataType::kINT32 || indices.type == DataType::kINT64;
        if (!constant || data.type != mType || data.format != nvinfer1::TensorFormat::kLINEAR || width != mWidth
            || !index || indices.format != nvinfer1::TensorFormat::kLINEAR || indices.shape.size() + 1 != mRank
            || tensorAt(mModel, leaf).type != mType)
        {
            return -1;
        }
        return gather;
    }

    //! Whether leaf may be an addend: the tree's type, kLINEAR, its rank, the last extent the rows' width.
    bool addendTensor(int32_t leaf) const
    {
        TensorRecord const& t = tensorAt(mModel, leaf);
        return t.type == mType && t.format == nvinfer1::TensorFormat::kLINEAR && t.shape.size() == mRank
            && constantExtent(mModel, t.shape.back()) == mWidth;
    }

    //! The layers of select(i < 0, i + rows, i) that made indices, the select last, when the lookup alone reads them
    //! and rows is table's first extent; nullopt otherwise.
    std::optional<std::vector<int32_t>> wrapLayers(int32_t indices, int32_t table) const
    {
        int32_t const select = producerOf(mModel, indices);
        if (select < 0 || mFixed[static_cast<std::size_t>(select)] != 0 || !plainLayer(layerAt(mModel, select))
            || !std::holds_alternative<SelectParams>(layerAt(mModel, select).params)
            || layerAt(mModel, select).inputs.size() != 3 || soleReader(mReaders, indices) < 0)
        {
            return std::nullopt;
        }
        std::vector<int32_t> const& operands = layerAt(mModel, select).inputs;
        int32_t const raw = operands[2];
        int32_t const less = producerOf(mModel, operands[0]);
        int32_t const plus = producerOf(mModel, operands[1]);
        auto const soleRead = [&](int32_t tensor) { return soleReader(mReaders, tensor) == select; };
        if (less < 0 || plus < 0 || mFixed[static_cast<std::size_t>(less)] != 0
            || mFixed[static_cast<std::size_t>(plus)] != 0 || !soleRead(operands[0]) || !soleRead(operands[1])
            || elementWiseOp(layerAt(mModel, less)) != ElementWiseOperation::kLESS
            || elementWiseOp(layerAt(mModel, plus)) != ElementWiseOperation::kSUM)
        {
            return std::nullopt;
        }
        std::vector<int32_t> const& compared = layerAt(mModel, less).inputs;
        std::vector<int32_t> const& added = layerAt(mModel, plus).inputs;
        std::optional<int64_t> const rows = constantExtent(mModel, tensorAt(mModel, table).shape[0]);
        int32_t const offset = added[0] == raw ? added[1] : added[0];
        if (compared[0] != raw || integerScalar(mModel, compared[1]) != 0 || (added[0] != raw && added[1] != raw)
            || !rows || integerScalar(mModel, offset) != *rows
            || tensorAt(mModel, raw).type != tensorAt(mModel, indices).type
            || !sameTensorShape(tensorAt(mModel, raw), tensorAt(mModel, indices)))
        {
            return std::nullopt;
        }
        return std::vector<int32_t>{less, plus, select};
    }

    EngineModel const& mModel;
    Readers const& mReaders;
    std::vector<uint8_t> const& mFixed;
    DataType mType{DataType::kFLOAT};
    std::size_t mRank{};
    int64_t mWidth{};
};

} // namespace

int32_t fuseEmbeddings(EngineModel& model)
{
    std::optional<std::vector<uint8_t>> const fixed = fixedLayers(model, true);
    if (!fixed)
    {
        return 0;
    }
    Readers const readers = readersOf(model);
    EmbeddingMatcher matcher(model, readers, *fixed);
    std::vector<KernelFusion> fusions;
    std::vector<bool> taken(model.layers.size(), false);
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        std::optional<KernelFusion> fusion = matcher.match(static_cast<int32_t>(l));
        if (!fusion)
        {
            continue;
        }
        std::vector<int32_t> layers = fusion->absorbed;
        layers.push_back(fusion->layer);
        if (std::any_of(layers.begin(), layers.end(), [&](int32_t a) { return taken[static_cast<std::size_t>(a)]; }))
        {
            continue;
        }
        for (int32_t a : layers)
        {
            taken[static_cast<std::size_t>(a)] = true;
        }
        fusions.push_back(std::move(*fusion));
    }
    return applyKernelFusions(model, fusions);
}

} // namespace kiln
