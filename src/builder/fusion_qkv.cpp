// SPDX-License-Identifier: Apache-2.0
// Packed q, k and v (builder/fusion.h, fuseQkvProducts): a fused attention whose q, k and v are three products of one
// tensor by constant weights (a transformer layer's projections, each [.., E] x [E, N] + bias [N]) reads them from one
// product by the three weights side by side, [.., E] x [E, 3N] + [3N]: one cuBLASLt call of three times the width in
// place of three, and FusedKernel::packedQkv tells the attention that its input 0 holds q, k and v in that order along
// the last axis.
//
// What is fused, each q, k, v:
// - made by a matrix multiply read by the attention alone (no other layer, no network output, no shape symbol), all
//   three with the same first operand, operations, product scale and output type, no activation and no residual;
// - the second operand a constant matrix read by that product alone (not refittable), of one type for the three,
//   [E, N] (kNONE) or [N, E] (kTRANSPOSE), maybe behind leading extents of 1;
// - a bias of all three or of none, each a constant read by its product alone, of N elements, with one shape.
// The query's product takes the packed weights and bias (its constants are rewritten in place, their blobs replaced:
// builder/weights_blobs.h) and its output becomes [.., 3N]; the key's and the value's products are removed, and their
// constants, unread, go with removeUnreadLayers.
#include "backends/host/tensor_view.h"
#include "builder/fusion.h"
#include "builder/fusion_graph.h"
#include "builder/weights_blobs.h"
#include "core/data_type.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <vector>

namespace kiln
{
namespace
{

//! The constant layer that makes tensor, when that layer's result is read by one layer alone and is not refittable.
LayerRecord* soleConstant(EngineModel& model, Readers const& readers, int32_t tensor)
{
    int32_t const producer = producerOf(model, tensor);
    if (producer < 0 || soleReader(readers, tensor) < 0)
    {
        return nullptr;
    }
    LayerRecord& layer = model.layers[static_cast<std::size_t>(producer)];
    auto const* constant = std::get_if<ConstantParams>(&layer.params);
    bool const refittable = std::any_of(layer.refit.begin(), layer.refit.end(), [](int32_t e) { return e >= 0; });
    if (constant == nullptr || !plainLayer(layer) || refittable || constant->weights.values == nullptr
        || dataTypeBits(constant->weights.type) % 8 != 0)
    {
        return nullptr;
    }
    return &layer;
}

//! Whether dims are a matrix, maybe behind leading extents of 1 (the parser gives weights the rank of the product).
bool matrixDims(Dims const& dims)
{
    return dims.nbDims >= 2 && std::all_of(dims.d, dims.d + dims.nbDims - 2, [](int64_t e) { return e == 1; });
}

//! The layers of one packable projection.
struct Projection
{
    int32_t product{-1};
    LayerRecord* weights{};
    LayerRecord* bias{};
};

//! The projection that makes tensor for the attention at reader, if it can be packed.
std::optional<Projection> projectionOf(EngineModel& model, Readers const& readers, int32_t tensor, int32_t reader)
{
    int32_t const product = producerOf(model, tensor);
    if (product < 0 || soleReader(readers, tensor) != reader)
    {
        return std::nullopt;
    }
    LayerRecord const& layer = model.layers[static_cast<std::size_t>(product)];
    if (!std::holds_alternative<MatrixMultiplyParams>(layer.params) || layer.fused || !layer.pointwise.empty()
        || layer.epilogue || layer.outputs.size() != 1 || layer.inputs.size() < 2 || layer.inputs.size() > 3)
    {
        return std::nullopt;
    }
    Projection projection{product, soleConstant(model, readers, layer.inputs[1]), nullptr};
    if (projection.weights == nullptr
        || std::get<ConstantParams>(projection.weights->params).weights.count
            != host::elementCount(std::get<ConstantParams>(projection.weights->params).dims)
        || !matrixDims(std::get<ConstantParams>(projection.weights->params).dims))
    {
        return std::nullopt;
    }
    if (layer.inputs.size() == 3)
    {
        projection.bias = soleConstant(model, readers, layer.inputs[2]);
        if (projection.bias == nullptr)
        {
            return std::nullopt;
        }
    }
    return projection;
}

//! Whether the three projections agree in everything but their weights' values.
bool packable(EngineModel const& model, std::array<Projection, 3> const& p)
{
    LayerRecord const& q = model.layers[static_cast<std::size_t>(p[0].product)];
    auto const& qParams = std::get<MatrixMultiplyParams>(q.params);
    auto const& qWeights = std::get<ConstantParams>(p[0].weights->params);
    TensorRecord const& qOut = tensorAt(model, q.outputs[0]);
    for (Projection const& other : p)
    {
        LayerRecord const& layer = model.layers[static_cast<std::size_t>(other.product)];
        auto const& params = std::get<MatrixMultiplyParams>(layer.params);
        auto const& weights = std::get<ConstantParams>(other.weights->params);
        TensorRecord const& out = tensorAt(model, layer.outputs[0]);
        bool const sameBias = (other.bias == nullptr) == (p[0].bias == nullptr)
            && (other.bias == nullptr
                || (host::sameShape(std::get<ConstantParams>(other.bias->params).dims,
                        std::get<ConstantParams>(p[0].bias->params).dims)
                    && std::get<ConstantParams>(other.bias->params).weights.type
                        == std::get<ConstantParams>(p[0].bias->params).weights.type));
        if (layer.inputs[0] != q.inputs[0] || params.ops[0] != qParams.ops[0] || params.ops[1] != qParams.ops[1]
            || layer.scale != q.scale || layer.inputs.size() != q.inputs.size()
            || !host::sameShape(weights.dims, qWeights.dims) || weights.weights.type != qWeights.weights.type
            || !sameTensorShape(out, qOut) || !sameBias)
        {
            return false;
        }
    }
    // The packed axis is the product's last: the weights' columns (kNONE) or rows (kTRANSPOSE), and the bias's count.
    bool const transposed = qParams.ops[1] == nvinfer1::MatrixOperation::kTRANSPOSE;
    if (qParams.ops[1] != nvinfer1::MatrixOperation::kNONE && !transposed)
    {
        return false;
    }
    int64_t const n = qWeights.dims.d[qWeights.dims.nbDims - (transposed ? 2 : 1)];
    std::optional<int64_t> const width = constantExtent(model, qOut.shape.back());
    return width == n && (p[0].bias == nullptr || std::get<ConstantParams>(p[0].bias->params).weights.count == n);
}

//! The three constants' bytes side by side along their last axis when it is contiguous (rows: kNONE weights [E, N]
//! give [E, 3N] row by row; kTRANSPOSE weights [N, E] and biases simply follow one another).
std::vector<uint8_t> packed(std::array<LayerRecord*, 3> const& constants, int64_t rows)
{
    auto const& first = std::get<ConstantParams>(constants[0]->params).weights;
    auto const bytes = static_cast<int64_t>(dataTypeBits(first.type) / 8) * first.count;
    int64_t const rowBytes = bytes / rows;
    std::vector<uint8_t> out(static_cast<std::size_t>(3 * bytes));
    for (int64_t r = 0; r < rows; ++r)
    {
        for (std::size_t c = 0; c < constants.size(); ++c)
        {
            auto const* source
                = static_cast<uint8_t const*>(std::get<ConstantParams>(constants[c]->params).weights.values);
            std::memcpy(out.data() + (r * 3 + static_cast<int64_t>(c)) * rowBytes, source + r * rowBytes,
                static_cast<std::size_t>(rowBytes));
        }
    }
    return out;
}

//! The index of an expression for the constant value (an existing one, or one appended).
uint32_t constantExpr(EngineModel& model, int64_t value)
{
    for (std::size_t e = 0; e < model.exprs.size(); ++e)
    {
        if (model.exprs[e].kind == DimExpr::Kind::kCONSTANT && model.exprs[e].value == value)
        {
            return static_cast<uint32_t>(e);
        }
    }
    ExprRecord record;
    record.kind = DimExpr::Kind::kCONSTANT;
    record.value = value;
    model.exprs.push_back(record);
    return static_cast<uint32_t>(model.exprs.size() - 1);
}

//! Rewrites a constant layer in place as the three constants packed along the last axis (dims' last extent tripled,
//! or the one before it for kTRANSPOSE weights), and its output's shape to match; the output joins widened.
void packConstant(
    EngineModel& model, std::array<LayerRecord*, 3> const& constants, bool leading, std::vector<WidenedTensor>& widened)
{
    auto& params = std::get<ConstantParams>(constants[0]->params);
    int32_t const axis = params.dims.nbDims - (leading ? 2 : 1);
    int64_t rows = 1;
    for (int32_t d = 0; d < axis; ++d)
    {
        rows *= params.dims.d[d];
    }
    std::vector<uint8_t> bytes = packed(constants, rows);
    DataType const type = params.weights.type;
    int64_t const count = 3 * params.weights.count;
    params.dims.d[axis] *= 3;
    replaceWeights(model, params.weights, type, std::move(bytes), count);
    TensorRecord& out = model.tensors[static_cast<std::size_t>(constants[0]->outputs[0])];
    out.shape[static_cast<std::size_t>(axis)] = constantExpr(model, params.dims.d[axis]);
    widened.push_back(WidenedTensor{constants[0]->outputs[0], axis, 3});
}

} // namespace

int32_t fuseQkvProducts(EngineModel& model, std::vector<WidenedTensor>& widened)
{
    std::vector<uint8_t> removed(model.layers.size(), 0);
    int32_t fused = 0;
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        LayerRecord& attention = model.layers[l];
        if (!attention.fused || attention.fused->kind != FusedKernel::Kind::kATTENTION || attention.fused->packedQkv
            || attention.inputs.size() < 3)
        {
            continue;
        }
        Readers const readers = readersOf(model);
        std::array<Projection, 3> projections{};
        bool found = attention.inputs[0] != attention.inputs[1] && attention.inputs[1] != attention.inputs[2]
            && attention.inputs[0] != attention.inputs[2];
        for (std::size_t i = 0; found && i < 3; ++i)
        {
            auto const projection = projectionOf(model, readers, attention.inputs[i], static_cast<int32_t>(l));
            found = projection.has_value();
            projections[i] = projection.value_or(Projection{});
        }
        if (!found || !packable(model, projections))
        {
            continue;
        }
        bool const transposed
            = std::get<MatrixMultiplyParams>(model.layers[static_cast<std::size_t>(projections[0].product)].params)
                  .ops[1]
            == nvinfer1::MatrixOperation::kTRANSPOSE;
        packConstant(
            model, {projections[0].weights, projections[1].weights, projections[2].weights}, transposed, widened);
        if (projections[0].bias != nullptr)
        {
            packConstant(model, {projections[0].bias, projections[1].bias, projections[2].bias}, false, widened);
        }
        TensorRecord& qkv = model.tensors[static_cast<std::size_t>(attention.inputs[0])];
        qkv.shape.back() = constantExpr(model, 3 * *constantExtent(model, qkv.shape.back()));
        widened.push_back(WidenedTensor{attention.inputs[0], static_cast<int32_t>(qkv.shape.size()) - 1, 3});
        std::vector<int32_t> inputs{attention.inputs[0]};
        inputs.insert(inputs.end(), attention.inputs.begin() + 3, attention.inputs.end());
        attention.inputs = std::move(inputs);
        attention.fused->packedQkv = true;
        removed[static_cast<std::size_t>(projections[1].product)] = 1;
        removed[static_cast<std::size_t>(projections[2].product)] = 1;
        ++fused;
    }
    if (fused == 0)
    {
        return 0;
    }
    std::vector<int32_t> sequence;
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        if (removed[l] == 0)
        {
            sequence.push_back(static_cast<int32_t>(l));
        }
    }
    auto const count = static_cast<int32_t>(model.layers.size() - sequence.size());
    keepLayers(model, sequence, std::vector<int32_t>(model.layers.size(), -1));
    return count;
}

} // namespace kiln
