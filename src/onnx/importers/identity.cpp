// SPDX-License-Identifier: Apache-2.0
// Identity and Dropout (at inference, an identity whose optional mask output is all true): the input's value passes
// through, weights staying weights.
#include "onnx/importers/importers.h"
#include "onnx/importers/shape_helpers.h"

namespace kiln::onnx_import
{

namespace
{

std::vector<Value> importIdentity(ImportContext&, Node& node)
{
    return {node.input(0)};
}

//! A tensor of type shaped like value, every element 1 (true).
Value onesLike(ImportContext& ctx, Value const& value, DataType type)
{
    Dims const dims = value.shape();
    if (value.isWeights() || dims.nbDims == 0)
    {
        return Value::weights(ctx.weightsFrom(type, dims, std::vector<double>(static_cast<size_t>(volume(dims)), 1.0)));
    }
    Dims ones{dims.nbDims, {}};
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        ones.d[i] = 1;
    }
    ITensor& one = ctx.tensor(Value::weights(ctx.weightsFrom(type, ones, {1.0})));
    return output(&broadcastTo(ctx, one, shapeValue(ctx, value)));
}

std::vector<Value> importDropout(ImportContext& ctx, Node& node)
{
    int64_t const opset = ctx.opset();
    if (opset < 7 && node.attrs.get<int64_t>("is_test", 0) == 0)
    {
        ctx.warn("Dropout with is_test 0 imported for inference: it passes its input through");
    }
    if (opset >= 12 && node.has(2))
    {
        // In training mode a ratio of 0 still drops nothing.
        Value const& training = node.input(2);
        bool const inference
            = training.isWeights() && training.weights().count == 1 && training.weights().number(0) == 0.0;
        bool const keepsAll = node.has(1) && node.input(1).isWeights() && node.input(1).weights().count == 1
            && node.input(1).weights().number(0) == 0.0;
        require(inference || keepsAll, ErrorCode::kUNSUPPORTED_NODE_INPUT,
            "training_mode (input 2) must be an initializer or Constant that is false (or ratio a constant 0); kiln "
            "imports inference only");
    }
    std::vector<Value> outputs{node.input(0)};
    if (node.outputCount() > 1 && !node.proto.output(1).empty())
    {
        // Before opset 10 the mask has the input's type.
        outputs.push_back(onesLike(ctx, node.input(0), opset < 10 ? node.input(0).type() : DataType::kBOOL));
    }
    return outputs;
}

} // namespace

void registerIdentityOps(OpRegistry& registry)
{
    registry.add("Identity", importIdentity);
    registry.add("Dropout", importDropout);
}

} // namespace kiln::onnx_import
