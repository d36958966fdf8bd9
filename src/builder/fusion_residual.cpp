// SPDX-License-Identifier: Apache-2.0
// Residual into convolution (builder/fusion.h, fuseConvolutionResiduals): a ResNet block's
//     y = act(conv(x) + residual)
// written as a convolution, an element-wise kSUM and an activation becomes one convolution record whose input 3 is
// the residual and whose epilogue is the activation (LayerRecord::epilogue):
//     out = act(conv(x, kernel) + bias + residual)
// A block whose sum adds two convolutions' results (the downsampling branch) fuses into the one that runs later: the
// other's result exists by then.
#include "builder/fusion.h"
#include "builder/fusion_graph.h"

#include <optional>
#include <variant>
#include <vector>

namespace kiln
{
namespace
{

//! What a convolution absorbs: the sum (and the other addend), then optionally the activation.
struct ResidualMatch
{
    int32_t sum{-1};
    int32_t residual{kNoTensor};
    int32_t activation{-1};
};

//! Whether tensor exists before layer l runs: a network input, or made by an earlier layer.
bool madeBefore(EngineModel const& model, int32_t tensor, int32_t l)
{
    TensorRecord const& record = tensorAt(model, tensor);
    return record.producer < 0 ? record.isInput : record.producer < l;
}

//! The residual pattern after convolution l, when every piece can be absorbed: the convolution computes only what its
//! kind says and nothing else reads its result; the sum adds a tensor of exactly the result's shape, type and format
//! that exists before the convolution runs; an activation follows when it is the sum's sole reader.
std::optional<ResidualMatch> matchResidual(EngineModel const& model, Readers const& readers, int32_t l)
{
    LayerRecord const& conv = layerAt(model, l);
    if (conv.type != LayerType::kCONVOLUTION || !plainLayer(conv) || conv.inputs.empty() || conv.inputs.size() > 3)
    {
        return std::nullopt;
    }
    int32_t const result = conv.outputs[0];
    TensorRecord const& out = tensorAt(model, result);
    if (!pointwiseType(out.type) || out.isShapeTensor)
    {
        return std::nullopt;
    }
    ResidualMatch match;
    match.sum = soleReader(readers, result);
    if (match.sum < 0 || elementWiseOp(layerAt(model, match.sum)) != nvinfer1::ElementWiseOperation::kSUM)
    {
        return std::nullopt;
    }
    LayerRecord const& sum = layerAt(model, match.sum);
    match.residual = sum.inputs[0] == result ? sum.inputs[1] : sum.inputs[0];
    if (match.residual == result || match.residual == kNoTensor
        || !sameTensorShape(tensorAt(model, match.residual), out)
        || !sameTensorShape(tensorAt(model, sum.outputs[0]), out) || !madeBefore(model, match.residual, l))
    {
        return std::nullopt;
    }
    int32_t const next = soleReader(readers, sum.outputs[0]);
    if (next >= 0)
    {
        LayerRecord const& activation = layerAt(model, next);
        if (std::holds_alternative<ActivationParams>(activation.params) && plainLayer(activation)
            && activation.inputs.size() == 1 && sameTensorShape(tensorAt(model, activation.outputs[0]), out))
        {
            match.activation = next;
        }
    }
    return match;
}

} // namespace

int32_t fuseConvolutionResiduals(EngineModel& model)
{
    Readers const readers = readersOf(model);
    std::vector<int32_t> absorbedInto(model.layers.size(), -1);
    bool any = false;
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        if (absorbedInto[l] >= 0)
        {
            continue;
        }
        std::optional<ResidualMatch> const match = matchResidual(model, readers, static_cast<int32_t>(l));
        if (!match || absorbedInto[static_cast<std::size_t>(match->sum)] >= 0)
        {
            continue;
        }
        any = true;
        LayerRecord& conv = model.layers[l];
        model.tensors[static_cast<std::size_t>(conv.outputs[0])].producer = -1;
        conv.inputs.resize(kConvolutionResidualInput + 1, kNoTensor);
        conv.inputs[kConvolutionResidualInput] = match->residual;
        int32_t last = match->sum;
        absorbedInto[static_cast<std::size_t>(match->sum)] = static_cast<int32_t>(l);
        if (match->activation >= 0)
        {
            conv.epilogue = std::get<ActivationParams>(layerAt(model, match->activation).params);
            absorbedInto[static_cast<std::size_t>(match->activation)] = static_cast<int32_t>(l);
            model.tensors[static_cast<std::size_t>(layerAt(model, match->sum).outputs[0])].producer = -1;
            last = match->activation;
        }
        conv.outputs = layerAt(model, last).outputs;
    }
    if (!any)
    {
        return 0;
    }
    std::vector<int32_t> sequence;
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        if (absorbedInto[l] < 0)
        {
            sequence.push_back(static_cast<int32_t>(l));
        }
    }
    auto const removed = static_cast<int32_t>(model.layers.size() - sequence.size());
    keepLayers(model, sequence, absorbedInto);
    return removed;
}

} // namespace kiln
