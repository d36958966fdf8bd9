// SPDX-License-Identifier: Apache-2.0
// narrowAttentionMasks (builder/fusion.h): a fused attention's additive mask built wider than its values need is
// built at the width they have, and the attention broadcasts it. transformers' exports make BERT's padding mask
// [B, 1, 1, S] and then widen it to [B, 1, S, S], all of whose rows are the same:
//
//     keep = And(queriesValid, padding)        queriesValid: [1, 1, S, 1], true everywhere (a constant once
//                                              foldStaticValues has computed it); padding: [B, 1, 1, S]
//     keep = Expand(keep, shape)               ONNX Expand: a broadcast to the shape it already has
//     mask = Where(keep, 0, -inf)              read by every layer's attention
//
// The mask (or the one cast that makes it) must be read by fused attentions alone and made by a select whose two other
// operands are constants of one element. The walk starts at the select's condition and steps over broadcasts (a slice
// of stride 0 on axes of extent 1 and 1 elsewhere, from 0: the ONNX parser's Expand, fixed or of a shape known at run
// time) and over Ands with a constant true everywhere. The select then reads what the walk reached, and the mask takes
// its extents, which are the old mask's or 1 wherever the broadcasts stepped over were valid (the attention checks
// them at run time as it does any mask's). The kernels then stage one row of mask values per block instead of one per
// query, and the And and the broadcast go unread (removeUnreadLayers).
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

//! The parameters of the plain, not refittable constant layer that makes tensor, when one does and holds its values.
ConstantParams const* plainConstantOf(EngineModel const& model, int32_t tensor)
{
    int32_t const producer = tensor == kNoTensor ? -1 : producerOf(model, tensor);
    if (producer < 0)
    {
        return nullptr;
    }
    LayerRecord const& layer = layerAt(model, producer);
    auto const* constant = std::get_if<ConstantParams>(&layer.params);
    bool const usable = constant != nullptr && layer.type == LayerType::kCONSTANT && plainLayer(layer)
        && layer.refit[0] < 0 && (constant->weights.count == 0 || constant->weights.values != nullptr);
    return usable ? constant : nullptr;
}

//! The values of a plain, not refittable constant of kINT32 or kINT64 elements.
std::optional<std::vector<int64_t>> constantIntegers(EngineModel const& model, int32_t tensor)
{
    ConstantParams const* constant = plainConstantOf(model, tensor);
    if (constant == nullptr)
    {
        return std::nullopt;
    }
    std::vector<int64_t> values(static_cast<std::size_t>(constant->weights.count));
    for (std::size_t i = 0; i < values.size(); ++i)
    {
        if (constant->weights.type == DataType::kINT64)
        {
            std::memcpy(&values[i], static_cast<int64_t const*>(constant->weights.values) + i, sizeof(int64_t));
        }
        else if (constant->weights.type == DataType::kINT32)
        {
            int32_t value = 0;
            std::memcpy(&value, static_cast<int32_t const*>(constant->weights.values) + i, sizeof(int32_t));
            values[i] = value;
        }
        else
        {
            return std::nullopt;
        }
    }
    return values;
}

//! Whether tensor is a plain, not refittable kBOOL constant that is true everywhere.
bool constantTrue(EngineModel const& model, int32_t tensor)
{
    ConstantParams const* constant = plainConstantOf(model, tensor);
    if (constant == nullptr || constant->weights.type != DataType::kBOOL || constant->weights.count <= 0)
    {
        return false;
    }
    auto const* values = static_cast<uint8_t const*>(constant->weights.values);
    return std::all_of(values, values + constant->weights.count, [](uint8_t v) { return v != 0; });
}

//! Whether every value of a constant integer tensor is value.
bool constantAll(EngineModel const& model, int32_t tensor, int64_t value)
{
    std::optional<std::vector<int64_t>> const values = constantIntegers(model, tensor);
    return values && !values->empty()
        && std::all_of(values->begin(), values->end(), [&](int64_t v) { return v == value; });
}

//! The plain select layer that makes tensor, or nullptr.
LayerRecord const* selectMaking(EngineModel const& model, int32_t tensor)
{
    int32_t const producer = tensor == kNoTensor ? -1 : producerOf(model, tensor);
    if (producer < 0)
    {
        return nullptr;
    }
    LayerRecord const& layer = layerAt(model, producer);
    return layer.type == LayerType::kSELECT && plainLayer(layer) && layer.inputs.size() == 3 ? &layer : nullptr;
}

//! Whether the select sel computes select(extents == 1, a, extents) over the tensor extents (the ONNX parser's form).
bool selectOnUnitExtents(EngineModel const& model, LayerRecord const& sel, int32_t extents)
{
    int32_t const equal = producerOf(model, sel.inputs[0]);
    if (equal < 0 || elementWiseOp(layerAt(model, equal)) != nvinfer1::ElementWiseOperation::kEQUAL)
    {
        return false;
    }
    LayerRecord const& compare = layerAt(model, equal);
    return (compare.inputs[0] == extents && constantAll(model, compare.inputs[1], 1))
        || (compare.inputs[1] == extents && constantAll(model, compare.inputs[0], 1));
}

//! Input i of layer, kNoTensor past its inputs.
int32_t inputOf(LayerRecord const& layer, std::size_t i)
{
    return i < layer.inputs.size() ? layer.inputs[i] : kNoTensor;
}

//! A slice's starts, sizes or strides (index 1, 2 or 3) when fixed: its parameters' where the input is absent, a
//! constant's values where it is one.
std::optional<std::vector<int64_t>> fixedSliceValues(
    EngineModel const& model, LayerRecord const& slice, Dims const& fromParams, std::size_t input)
{
    int32_t const tensor = inputOf(slice, input);
    if (tensor == kNoTensor)
    {
        return std::vector<int64_t>(fromParams.d, fromParams.d + std::max(fromParams.nbDims, 0));
    }
    return constantIntegers(model, tensor);
}

//! The input of the slice that makes tensor when the slice is a broadcast of it: starts 0, and on each axis a stride
//! of 0 over an extent of 1 or a stride of 1 over the whole extent. Either fixed (parameters or constants), or as the
//! ONNX parser writes Expand of a shape known only at run time: strides select(extents == 1, 0, 1) and sizes
//! select(extents == 1, target, extents) over the input's own extents (kSHAPE of it). kNoTensor for any other layer.
int32_t broadcastSource(EngineModel const& model, int32_t tensor)
{
    int32_t const producer = producerOf(model, tensor);
    if (producer < 0)
    {
        return kNoTensor;
    }
    LayerRecord const& slice = layerAt(model, producer);
    auto const* params = std::get_if<SliceParams>(&slice.params);
    if (slice.type != LayerType::kSLICE || params == nullptr || !plainLayer(slice) || slice.inputs.empty()
        || slice.inputs.size() > 4 || params->mode != nvinfer1::SampleMode::kSTRICT_BOUNDS
        || params->axes.nbDims != kUnsetDims.nbDims)
    {
        return kNoTensor;
    }
    int32_t const x = slice.inputs[0];
    std::vector<uint32_t> const& extents = tensorAt(model, x).shape;
    auto const rank = extents.size();
    std::optional<std::vector<int64_t>> const starts = fixedSliceValues(model, slice, params->start, 1);
    if (!starts || starts->size() != rank
        || std::any_of(starts->begin(), starts->end(), [](int64_t s) { return s != 0; }))
    {
        return kNoTensor;
    }
    std::optional<std::vector<int64_t>> const sizes = fixedSliceValues(model, slice, params->size, 2);
    std::optional<std::vector<int64_t>> const strides = fixedSliceValues(model, slice, params->stride, 3);
    if (sizes && strides && sizes->size() == rank && strides->size() == rank)
    {
        for (std::size_t i = 0; i < rank; ++i)
        {
            std::optional<int64_t> const extent = constantExtent(model, extents[i]);
            bool const repeated = (*strides)[i] == 0 && extent == 1;
            bool const whole = (*strides)[i] == 1 && extent == (*sizes)[i];
            if (!repeated && !whole)
            {
                return kNoTensor;
            }
        }
        return x;
    }
    LayerRecord const* size = selectMaking(model, inputOf(slice, 2));
    LayerRecord const* stride = selectMaking(model, inputOf(slice, 3));
    if (size == nullptr || stride == nullptr || size->inputs[0] != stride->inputs[0]
        || !constantAll(model, stride->inputs[1], 0) || !constantAll(model, stride->inputs[2], 1))
    {
        return kNoTensor;
    }
    // The condition is extents == 1 over x's own extents, which are also the sizes where it is false.
    int32_t const shape = size->inputs[2];
    int32_t const shapeLayer = producerOf(model, shape);
    if (shapeLayer < 0 || layerAt(model, shapeLayer).type != LayerType::kSHAPE
        || layerAt(model, shapeLayer).inputs.size() != 1 || layerAt(model, shapeLayer).inputs[0] != x
        || !selectOnUnitExtents(model, *size, shape))
    {
        return kNoTensor;
    }
    return x;
}

//! What tensor narrows to through one step of the walk (the broadcast's input, the And's other operand), when its
//! producer is one; kNoTensor otherwise. Other readers of the tensors stepped over keep reading them as they are.
int32_t narrowerOf(EngineModel const& model, int32_t tensor)
{
    if (int32_t const source = broadcastSource(model, tensor); source != kNoTensor)
    {
        return source;
    }
    int32_t const producer = producerOf(model, tensor);
    if (producer < 0 || elementWiseOp(layerAt(model, producer)) != nvinfer1::ElementWiseOperation::kAND)
    {
        return kNoTensor;
    }
    LayerRecord const& both = layerAt(model, producer);
    for (int32_t i = 0; i < 2; ++i)
    {
        if (constantTrue(model, both.inputs[static_cast<std::size_t>(i)]))
        {
            return both.inputs[static_cast<std::size_t>(1 - i)];
        }
    }
    return kNoTensor;
}

//! Whether every reader of tensor is a fused attention that reads it as its mask (input 3 of 4).
bool readByAttentionsAlone(EngineModel const& model, Readers const& readers, int32_t tensor)
{
    std::vector<int32_t> const& readersOfMask = readers.layers[static_cast<std::size_t>(tensor)];
    return !readersOfMask.empty() && std::all_of(readersOfMask.begin(), readersOfMask.end(), [&](int32_t l) {
        LayerRecord const& layer = layerAt(model, l);
        return layer.fused && layer.fused->kind == FusedKernel::Kind::kATTENTION && layer.inputs.size() == 4
            && layer.inputs[3] == tensor && std::count(layer.inputs.begin(), layer.inputs.end(), tensor) == 1;
    });
}

//! Whether tensor has one element (every extent a constant 1).
bool oneElement(EngineModel const& model, int32_t tensor)
{
    std::vector<uint32_t> const& shape = tensorAt(model, tensor).shape;
    return std::all_of(shape.begin(), shape.end(), [&](uint32_t e) { return constantExtent(model, e) == 1; });
}

} // namespace

int32_t narrowAttentionMasks(EngineModel& model)
{
    Readers const readers = readersOf(model);
    int32_t narrowed = 0;
    for (std::size_t t = 0; t < model.tensors.size(); ++t)
    {
        auto const mask = static_cast<int32_t>(t);
        int32_t const producer = producerOf(model, mask);
        if (producer < 0 || readers.pinned[t] || !readByAttentionsAlone(model, readers, mask))
        {
            continue;
        }
        // The mask, or a cast of it (a network that computes in a 16-bit type casts the select's float result).
        std::vector<int32_t> reshaped{mask};
        LayerRecord const& made = layerAt(model, producer);
        if (made.type == LayerType::kCAST && plainLayer(made) && made.inputs.size() == 1
            && soleReader(readers, made.inputs[0]) == producer
            && !readers.pinned[static_cast<std::size_t>(made.inputs[0])])
        {
            reshaped.push_back(made.inputs[0]);
        }
        int32_t const selectLayer = producerOf(model, reshaped.back());
        LayerRecord const* select = selectMaking(model, reshaped.back());
        if (select == nullptr || !oneElement(model, select->inputs[1]) || !oneElement(model, select->inputs[2]))
        {
            continue;
        }
        int32_t condition = select->inputs[0];
        for (int32_t next = narrowerOf(model, condition); next != kNoTensor; next = narrowerOf(model, condition))
        {
            condition = next;
        }
        if (condition == select->inputs[0])
        {
            continue;
        }
        // Each step broadcasts, so each extent of the narrower condition is the mask's or 1 wherever the network's
        // broadcast rules hold (the attention checks the mask's extents at run time, as it does any mask's); the
        // rank must be the mask's.
        std::vector<uint32_t> const narrow = tensorAt(model, condition).shape;
        if (narrow.size() != model.tensors[t].shape.size())
        {
            continue;
        }
        model.layers[static_cast<std::size_t>(selectLayer)].inputs[0] = condition;
        for (int32_t const r : reshaped)
        {
            model.tensors[static_cast<std::size_t>(r)].shape = narrow;
        }
        ++narrowed;
    }
    return narrowed;
}

} // namespace kiln
