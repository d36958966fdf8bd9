// SPDX-License-Identifier: Apache-2.0
// Loop and Scan as ILoop, the way TensorRT's parser builds them. The body is imported in a scope of its own
// ("<node>/body/") that sees the outer names, its inputs bound to the loop's boundary layers.
//
// Loop (opsets 11 to 16; no sequences): M becomes a kCOUNT trip limit, cond a recurrence whose next value is the
// body's cond_out and which limits the loop as kWHILE; the iteration number is a recurrence from 0 counting up; each
// loop-carried value is a recurrence whose final value is a kLAST_VALUE output; each scan output a kCONCATENATE output
// along axis 0 whose length is M (refused without M, as TensorRT does).
//
// Scan: the trip count is the extent of the first scan input along its axis; scan inputs become iterators
// (scan_input_axes, scan_input_directions), states recurrences with kLAST_VALUE outputs, scan outputs kCONCATENATE or
// kREVERSE outputs (scan_output_directions) along scan_output_axes. Opset 8's batched Scan is taken for a batch of 1
// without sequence_lens (the batch axis removed around the loop); other batches are refused.
#include "onnx/importers/helpers.h"
#include "onnx/importers/importers.h"
#include "onnx/importers/shape_helpers.h"
#include "onnx/model_importer.h"

#include "core/data_type.h"

#include <limits>

namespace kiln::onnx_import
{

namespace
{

using Graph = ::onnx::GraphProto;

//! Imports body in its own scope, its inputs bound to inputs; its output values.
std::vector<Value> importBody(ImportContext& ctx, Node& node, Graph const& body, std::vector<ITensor*> const& inputs)
{
    require(body.input_size() == static_cast<int>(inputs.size()), ErrorCode::kINVALID_NODE, "the body has ",
        body.input_size(), " inputs; ", inputs.size(), " were expected");
    struct Guard
    {
        ImportContext& ctx;
        ~Guard()
        {
            ctx.popScope();
            ctx.functionStack().pop_back();
        }
    };
    ctx.pushScope(true, node.name() + "/body/");
    ctx.functionStack().push_back(node.name() + " (body)");
    Guard guard{ctx};
    for (std::size_t i = 0; i < inputs.size(); ++i)
    {
        ctx.define(body.input(static_cast<int>(i)).name(), Value::tensor(*inputs[i]));
    }
    return importSubgraph(ctx, body, node.index);
}

//! A 0-D tensor of value: a one-element tensor of another rank reshaped.
ITensor& scalarOf(ImportContext& ctx, Value const& value)
{
    ITensor& tensor = ctx.tensor(value);
    return tensor.getDimensions().nbDims == 0 ? tensor : ctx.tensor(reshapeValue(ctx, value, {}));
}

//! Adds a recurrence starting at initial; sets its name after the node.
nvinfer1::IRecurrenceLayer& recurrence(ImportContext& ctx, nvinfer1::ILoop& loop, ITensor& initial)
{
    return ctx.added(loop.addRecurrence(initial));
}

std::vector<Value> importLoop(ImportContext& ctx, Node& node)
{
    Graph const& body = *node.attrs.required<Graph const*>("body");
    nvinfer1::ILoop* loop = ctx.network().addLoop();
    require(loop != nullptr, ErrorCode::kINTERNAL_ERROR, "the network refused addLoop");
    loop->setName(node.name().c_str());

    // M: a count, unless it is absent or a constant too large to be one.
    ITensor* count = nullptr;
    if (node.has(0))
    {
        Value const& m = node.input(0);
        bool const unbounded = m.isWeights() && m.weights().count == 1
            && m.weights().number(0) >= static_cast<double>(std::numeric_limits<int32_t>::max());
        if (!unbounded)
        {
            count = &scalarOf(ctx, m);
            require(count->getType() == DataType::kINT64 || count->getType() == DataType::kINT32,
                ErrorCode::kINVALID_NODE, "M (input 0) must be INT64, not ", dataTypeName(count->getType()));
            ctx.added(loop->addTripLimit(*count, nvinfer1::TripLimit::kCOUNT));
        }
    }
    // cond: a recurrence of the body's cond_out, limiting the loop while true.
    nvinfer1::IRecurrenceLayer* condition = nullptr;
    ITensor* conditionIn = nullptr;
    if (node.has(1))
    {
        condition = &recurrence(ctx, *loop, scalarOf(ctx, node.input(1)));
        conditionIn = condition->getOutput(0);
        ctx.added(loop->addTripLimit(*conditionIn, nvinfer1::TripLimit::kWHILE));
    }
    else
    {
        conditionIn = &scalarConstant(ctx, 1, DataType::kBOOL, 0);
    }
    require(count != nullptr || condition != nullptr, ErrorCode::kUNSUPPORTED_NODE,
        "the loop has neither a trip count (M) nor a condition: it would never end");
    // The iteration number, 0, 1, ...
    nvinfer1::IRecurrenceLayer& iteration = recurrence(ctx, *loop, scalarConstant(ctx, 0, DataType::kINT64, 0));
    iteration.setInput(1,
        binary(ctx, *iteration.getOutput(0), scalarConstant(ctx, 1, DataType::kINT64, 0),
            nvinfer1::ElementWiseOperation::kSUM));
    // The loop-carried values.
    std::size_t const nbCarried = node.inputCount() > 2 ? node.inputCount() - 2 : 0;
    std::vector<nvinfer1::IRecurrenceLayer*> carried;
    std::vector<ITensor*> bodyInputs{iteration.getOutput(0), conditionIn};
    for (std::size_t i = 0; i < nbCarried; ++i)
    {
        carried.push_back(&recurrence(ctx, *loop, ctx.tensor(node.input(2 + i))));
        bodyInputs.push_back(carried.back()->getOutput(0));
    }
    std::vector<Value> const outputs = importBody(ctx, node, body, bodyInputs);
    require(outputs.size() >= 1 + nbCarried, ErrorCode::kINVALID_NODE, "the body has ", outputs.size(),
        " outputs; it needs cond_out and one per loop-carried value (", nbCarried, ")");
    if (condition != nullptr)
    {
        condition->setInput(1, scalarOf(ctx, outputs[0]));
    }
    std::vector<Value> results;
    for (std::size_t i = 0; i < nbCarried; ++i)
    {
        carried[i]->setInput(1, ctx.tensor(outputs[1 + i]));
        auto& last = ctx.added(loop->addLoopOutput(*carried[i]->getOutput(0), nvinfer1::LoopOutput::kLAST_VALUE));
        results.push_back(Value::tensor(*last.getOutput(0)));
    }
    std::size_t const nbScans = outputs.size() - 1 - nbCarried;
    require(nbScans == 0 || count != nullptr, ErrorCode::kUNSUPPORTED_NODE,
        "the loop has scan outputs but no trip count (M): the length of a scan output must be known before the loop "
        "runs");
    if (nbScans != 0 && condition != nullptr)
    {
        ctx.warn("Loop ", node.name(),
            ": it has a condition and scan outputs; where the condition ends the loop "
            "before M iterations, the scan outputs keep M rows, the last ones undefined");
    }
    for (std::size_t k = 0; k < nbScans; ++k)
    {
        auto& scan = ctx.added(
            loop->addLoopOutput(ctx.tensor(outputs[1 + nbCarried + k]), nvinfer1::LoopOutput::kCONCATENATE, 0));
        scan.setInput(1, *count);
        results.push_back(Value::tensor(*scan.getOutput(0)));
    }
    return results;
}

//! An axis attribute in [-rank, rank) made non-negative.
int32_t axisIn(int64_t axis, int32_t rank, char const* what)
{
    require(
        axis >= -rank && axis < rank, ErrorCode::kINVALID_NODE, what, " ", axis, " is out of range for rank ", rank);
    return static_cast<int32_t>(axis < 0 ? axis + rank : axis);
}

std::vector<Value> importScan(ImportContext& ctx, Node& node)
{
    // Opset 8: input 0 is sequence_lens (absent here), every tensor has a leading batch axis (of extent 1 here), and
    // the scan runs over axis 1; the body sees neither axis.
    bool const opset8 = ctx.opset() < 9;
    std::size_t const first = opset8 ? 1 : 0;
    require(!opset8 || !node.has(0), ErrorCode::kUNSUPPORTED_NODE,
        "opset 8's Scan with sequence_lens (input 0) is not supported by kiln");
    Graph const& body = *node.attrs.required<Graph const*>("body");
    auto const nbScanInputs = static_cast<std::size_t>(node.attrs.required<int64_t>("num_scan_inputs"));
    require(nbScanInputs >= 1 && first + nbScanInputs <= node.inputCount(), ErrorCode::kINVALID_NODE,
        "num_scan_inputs is ", nbScanInputs, "; the node has ", node.inputCount(), " inputs");
    std::size_t const nbStates = node.inputCount() - first - nbScanInputs;
    auto const listed = [&](char const* name, std::size_t count) {
        std::vector<int64_t> values = node.attrs.get<std::vector<int64_t>>(name, std::vector<int64_t>(count, 0));
        require(values.size() == count, ErrorCode::kINVALID_NODE, name, " has ", values.size(), " entries; ", count,
            " were expected");
        return values;
    };
    std::size_t const nbScanOutputs = node.outputCount() - nbStates;
    std::vector<int64_t> const inputAxes = listed("scan_input_axes", nbScanInputs);
    std::vector<int64_t> const inputDirections = listed(opset8 ? "directions" : "scan_input_directions", nbScanInputs);
    std::vector<int64_t> const outputAxes = listed("scan_output_axes", nbScanOutputs);
    std::vector<int64_t> const outputDirections = listed("scan_output_directions", nbScanOutputs);
    std::vector<Value> inputs;
    for (std::size_t i = first; i < node.inputCount(); ++i)
    {
        Value const& value = node.input(i);
        if (opset8)
        {
            require(value.shape().nbDims >= 1 && value.shape().d[0] == 1, ErrorCode::kUNSUPPORTED_NODE,
                "opset 8's Scan runs over a batch; kiln takes a batch of 1 (input ", i, " has ",
                value.shape().nbDims >= 1 ? value.shape().d[0] : -1, ")");
        }
        inputs.push_back(opset8 ? squeezeAxis(ctx, value, 0) : value);
    }

    nvinfer1::ILoop* loop = ctx.network().addLoop();
    require(loop != nullptr, ErrorCode::kINTERNAL_ERROR, "the network refused addLoop");
    loop->setName(node.name().c_str());
    // The trip count: the first scan input's extent along its axis.
    Value const& scanned0 = inputs[nbStates];
    int32_t const firstAxis = axisIn(inputAxes[0], scanned0.shape().nbDims, "scan_input_axes[0]");
    ITensor& count = ctx.tensor(reshapeValue(ctx, pick(ctx, shapeValue(ctx, scanned0), {firstAxis}), {}));
    ctx.added(loop->addTripLimit(count, nvinfer1::TripLimit::kCOUNT));

    std::vector<nvinfer1::IRecurrenceLayer*> states;
    std::vector<ITensor*> bodyInputs;
    for (std::size_t i = 0; i < nbStates; ++i)
    {
        states.push_back(&recurrence(ctx, *loop, ctx.tensor(inputs[i])));
        bodyInputs.push_back(states.back()->getOutput(0));
    }
    for (std::size_t j = 0; j < nbScanInputs; ++j)
    {
        Value const& scanned = inputs[nbStates + j];
        int32_t const axis = axisIn(inputAxes[j], scanned.shape().nbDims, "a scan_input_axes entry");
        auto& iterator = ctx.added(loop->addIterator(ctx.tensor(scanned), axis, inputDirections[j] == 1));
        bodyInputs.push_back(iterator.getOutput(0));
    }
    std::vector<Value> const outputs = importBody(ctx, node, body, bodyInputs);
    require(outputs.size() == nbStates + nbScanOutputs, ErrorCode::kINVALID_NODE, "the body has ", outputs.size(),
        " outputs; the node has ", node.outputCount());
    std::vector<Value> results;
    for (std::size_t i = 0; i < nbStates; ++i)
    {
        states[i]->setInput(1, ctx.tensor(outputs[i]));
        auto& last = ctx.added(loop->addLoopOutput(*states[i]->getOutput(0), nvinfer1::LoopOutput::kLAST_VALUE));
        results.push_back(Value::tensor(*last.getOutput(0)));
    }
    for (std::size_t k = 0; k < nbScanOutputs; ++k)
    {
        ITensor& value = ctx.tensor(outputs[nbStates + k]);
        int32_t const axis = axisIn(outputAxes[k], value.getDimensions().nbDims + 1, "a scan_output_axes entry");
        auto const kind
            = outputDirections[k] == 1 ? nvinfer1::LoopOutput::kREVERSE : nvinfer1::LoopOutput::kCONCATENATE;
        auto& scan = ctx.added(loop->addLoopOutput(value, kind, axis));
        scan.setInput(1, count);
        results.push_back(Value::tensor(*scan.getOutput(0)));
    }
    if (opset8)
    {
        for (Value& result : results)
        {
            result = unsqueezeAxis(ctx, result, 0);
        }
    }
    return results;
}

} // namespace

void registerLoopOps(OpRegistry& registry)
{
    registry.add("Loop", importLoop);
    registry.add("Scan", importScan);
}

} // namespace kiln::onnx_import
