// SPDX-License-Identifier: Apache-2.0
// foldConstantReshapes (builder/fusion.h): a shuffle that only reshapes a constant becomes a constant of the new shape
// over the same weights. Exporters and importers broadcast initializers by reshaping them (an ONNX MatMul's [K, N]
// weights to [1, K, N], a bias [N] to [1, 1, N]); left as shuffles, every run copies the weights, and the bias is not
// a constant, so it cannot become the product's epilogue.
#include "builder/fusion.h"
#include "builder/fusion_graph.h"

namespace kiln
{
namespace
{

bool identity(nvinfer1::Permutation const& permutation, int32_t rank)
{
    for (int32_t i = 0; i < rank; ++i)
    {
        if (permutation.order[i] != i)
        {
            return false;
        }
    }
    return true;
}

//! The constant layer whose weights a reshape-only shuffle's output is, when layer is one; else nullptr.
LayerRecord const* reshapedConstant(EngineModel const& model, Readers const& readers, LayerRecord const& layer)
{
    auto const* shuffle = std::get_if<ShuffleParams>(&layer.params);
    if (shuffle == nullptr || !plainLayer(layer) || layer.inputs.size() != 1 || layer.outputs.size() != 1
        || readers.pinned[static_cast<std::size_t>(layer.outputs[0])])
    {
        return nullptr;
    }
    int32_t const producer = producerOf(model, layer.inputs[0]);
    if (producer < 0)
    {
        return nullptr;
    }
    LayerRecord const& source = layerAt(model, producer);
    auto const* constant = std::get_if<ConstantParams>(&source.params);
    TensorRecord const& in = tensorAt(model, layer.inputs[0]);
    TensorRecord const& out = tensorAt(model, layer.outputs[0]);
    auto const rank = static_cast<int32_t>(in.shape.size());
    if (constant == nullptr || !plainLayer(source) || source.refit[0] >= 0 || in.type != out.type
        || in.scale != out.scale || in.format != nvinfer1::TensorFormat::kLINEAR || out.format != in.format
        || !identity(shuffle->firstTranspose, rank)
        || !identity(shuffle->secondTranspose, std::max(rank, static_cast<int32_t>(out.shape.size()))))
    {
        return nullptr;
    }
    return &source;
}

} // namespace

int32_t foldConstantReshapes(EngineModel& model)
{
    Readers const readers = readersOf(model);
    int32_t folded = 0;
    for (LayerRecord& layer : model.layers)
    {
        LayerRecord const* source = reshapedConstant(model, readers, layer);
        if (source == nullptr)
        {
            continue;
        }
        TensorRecord const& out = tensorAt(model, layer.outputs[0]);
        Dims dims{static_cast<int32_t>(out.shape.size()), {}};
        int64_t volume = 1;
        bool known = dims.nbDims <= Dims::MAX_DIMS;
        for (int32_t i = 0; known && i < dims.nbDims; ++i)
        {
            std::optional<int64_t> const extent = constantExtent(model, out.shape[static_cast<std::size_t>(i)]);
            known = extent.has_value();
            dims.d[i] = extent.value_or(0);
            volume *= dims.d[i];
        }
        ConstantParams const& weights = std::get<ConstantParams>(source->params);
        if (!known || volume != weights.weights.count)
        {
            continue;
        }
        layer.type = LayerType::kCONSTANT;
        layer.params = ConstantParams{dims, weights.weights};
        layer.inputs.clear();
        ++folded;
    }
    return folded;
}

} // namespace kiln
