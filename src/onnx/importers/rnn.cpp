// SPDX-License-Identifier: Apache-2.0
// RNN, GRU and LSTM on top of ILoop, as TensorRT's parser builds them: per direction one loop over the sequence (an
// iterator over X's axis 0, reversed for the reverse direction), the hidden state (and LSTM's cell) a recurrence, the
// gates matrix multiplies of x_t and h_{t-1} with the direction's W and R (inputs, sliced per direction and gate),
// Y a kCONCATENATE output (kREVERSE for the reverse direction, so Y is in time order) and Y_h (Y_c) kLAST_VALUE
// outputs; the directions of a bidirectional node are concatenated.
//
// What kiln takes: layout 0, and layout 1 through transposes; activations Sigmoid, Tanh and Relu (the defaults:
// RNN Tanh; GRU Sigmoid, Tanh; LSTM Sigmoid, Tanh, Tanh), the same in both directions; linear_before_reset (GRU);
// peepholes P (LSTM); initial_h and initial_c. sequence_lens is honoured for the forward direction (a sequence's
// steps past its length leave the state as it was and give zeros in Y); with the reverse direction it is refused, as
// are clip, input_forget = 1 and a batch whose size is known only at run time without initial_h.
#include "onnx/importers/helpers.h"
#include "onnx/importers/importers.h"
#include "onnx/importers/shape_helpers.h"

#include "core/data_type.h"

#include <string>
#include <vector>

namespace kiln::onnx_import
{

namespace
{

using nvinfer1::ActivationType;
using nvinfer1::ElementWiseOperation;

enum class Cell
{
    kRNN,
    kGRU,
    kLSTM,
};

//! The gates of each cell, in ONNX's order within W and R: RNN one; GRU z, r, h; LSTM i, o, f, c.
int32_t gatesOf(Cell cell) noexcept
{
    return cell == Cell::kRNN ? 1 : cell == Cell::kGRU ? 3 : 4;
}

ActivationType activationNamed(std::string const& name)
{
    if (name == "Sigmoid")
    {
        return ActivationType::kSIGMOID;
    }
    if (name == "Tanh")
    {
        return ActivationType::kTANH;
    }
    require(name == "Relu", ErrorCode::kUNSUPPORTED_NODE_ATTR, "activation ", name,
        " is not supported by kiln's RNN import (Sigmoid, Tanh and Relu are)");
    return ActivationType::kRELU;
}

ITensor& activate(ImportContext& ctx, ITensor& x, ActivationType type)
{
    return *ctx.added(ctx.network().addActivation(x, type)).getOutput(0);
}

//! tensor[index] along axis 0, that axis removed.
ITensor& pickFirst(ImportContext& ctx, ITensor& tensor, int64_t index)
{
    auto& slice = addSliceOf(
        ctx, tensor, int64Value(ctx, {index}), int64Value(ctx, {1}), int64Value(ctx, {1}), std::vector<int64_t>{0});
    return ctx.tensor(squeezeAxis(ctx, Value::tensor(*slice.getOutput(0)), 0));
}

//! Columns [from, from + count) of a 2-D tensor (axis 1).
ITensor& columns(ImportContext& ctx, ITensor& tensor, int64_t from, int64_t count)
{
    return *addSliceOf(
        ctx, tensor, int64Value(ctx, {from}), int64Value(ctx, {count}), int64Value(ctx, {1}), std::vector<int64_t>{1})
                .getOutput(0);
}

//! a @ b^T.
ITensor& timesTransposed(ImportContext& ctx, ITensor& a, ITensor& b)
{
    return *ctx.added(ctx.network().addMatrixMultiply(
                          a, nvinfer1::MatrixOperation::kNONE, b, nvinfer1::MatrixOperation::kTRANSPOSE))
                .getOutput(0);
}

ITensor& add(ImportContext& ctx, ITensor& a, ITensor& b)
{
    return binary(ctx, a, b, ElementWiseOperation::kSUM);
}

ITensor& mul(ImportContext& ctx, ITensor& a, ITensor& b)
{
    return binary(ctx, a, b, ElementWiseOperation::kPROD);
}

//! What one direction gives: Y_d [seq, batch, H], Y_h [batch, H], Y_c [batch, H] (LSTM).
struct DirectionOutputs
{
    ITensor* y{};
    ITensor* h{};
    ITensor* c{};
};

struct RnnSetup
{
    Cell cell{};
    int64_t hidden{};
    std::vector<ActivationType> activations; //!< This direction's.
    bool linearBeforeReset{};
};

DirectionOutputs direction(ImportContext& ctx, Node const& node, RnnSetup const& setup, ITensor& x, int64_t d,
    bool reverse, ITensor& seqLength, ITensor& h0, ITensor* c0, ITensor* lengths)
{
    int64_t const h = setup.hidden;
    int32_t const gates = gatesOf(setup.cell);
    ITensor& w = pickFirst(ctx, inputTensor(ctx, node, 1), d); // [gates * H, input]
    ITensor& r = pickFirst(ctx, inputTensor(ctx, node, 2), d); // [gates * H, H]
    ITensor* wb = nullptr;
    ITensor* rb = nullptr;
    if (node.has(3))
    {
        ITensor& b = ctx.tensor(reshapeValue(ctx, Value::tensor(pickFirst(ctx, inputTensor(ctx, node, 3), d)),
            {DimPart::fixed(1), DimPart::fixed(2 * gates * h)}));
        wb = &columns(ctx, b, 0, gates * h);
        rb = &columns(ctx, b, gates * h, gates * h);
    }
    ITensor* peepholes = nullptr;
    if (setup.cell == Cell::kLSTM && node.has(7))
    {
        peepholes = &ctx.tensor(reshapeValue(ctx, Value::tensor(pickFirst(ctx, inputTensor(ctx, node, 7), d)),
            {DimPart::fixed(1), DimPart::fixed(3 * h)}));
    }

    nvinfer1::ILoop* loop = ctx.network().addLoop();
    require(loop != nullptr, ErrorCode::kINTERNAL_ERROR, "the network refused addLoop");
    loop->setName((node.name() + (reverse ? "/reverse" : "/forward")).c_str());
    ctx.added(loop->addTripLimit(seqLength, nvinfer1::TripLimit::kCOUNT));
    ITensor& xt = *ctx.added(loop->addIterator(x, 0, reverse)).getOutput(0); // [batch, input]
    auto& hidden = ctx.added(loop->addRecurrence(h0));
    ITensor& hPrev = *hidden.getOutput(0);
    nvinfer1::IRecurrenceLayer* cell = c0 != nullptr ? &ctx.added(loop->addRecurrence(*c0)) : nullptr;

    ITensor* xw = &timesTransposed(ctx, xt, w); // [batch, gates * H]
    ITensor* hr = &timesTransposed(ctx, hPrev, r);
    if (wb != nullptr)
    {
        xw = &add(ctx, *xw, *wb);
    }
    auto const gate = [&](ITensor& t, int32_t g) -> ITensor& { return columns(ctx, t, g * h, h); };
    auto const rbGate = [&](int32_t g) -> ITensor* { return rb == nullptr ? nullptr : &columns(ctx, *rb, g * h, h); };
    auto const plusBias = [&](ITensor& t, int32_t g) -> ITensor& {
        ITensor* bias = rbGate(g);
        return bias == nullptr ? t : add(ctx, t, *bias);
    };
    ITensor* hNext = nullptr;
    ITensor* cNext = nullptr;
    switch (setup.cell)
    {
    case Cell::kRNN:
        hNext = &activate(ctx, plusBias(add(ctx, gate(*xw, 0), gate(*hr, 0)), 0), setup.activations[0]);
        break;
    case Cell::kGRU:
    {
        ITensor& z = activate(ctx, plusBias(add(ctx, gate(*xw, 0), gate(*hr, 0)), 0), setup.activations[0]);
        ITensor& rg = activate(ctx, plusBias(add(ctx, gate(*xw, 1), gate(*hr, 1)), 1), setup.activations[0]);
        ITensor* candidate = nullptr;
        if (setup.linearBeforeReset)
        {
            candidate = &add(ctx, gate(*xw, 2), mul(ctx, rg, plusBias(gate(*hr, 2), 2)));
        }
        else
        {
            ITensor& rows = *addSliceOf(
                ctx, r, int64Value(ctx, {2 * h}), int64Value(ctx, {h}), int64Value(ctx, {1}), std::vector<int64_t>{0})
                                 .getOutput(0);
            candidate = &plusBias(add(ctx, gate(*xw, 2), timesTransposed(ctx, mul(ctx, rg, hPrev), rows)), 2);
        }
        ITensor& hTilde = activate(ctx, *candidate, setup.activations[1]);
        // h = (1 - z) * h~ + z * h_prev = h~ + z * (h_prev - h~)
        hNext = &add(ctx, hTilde, mul(ctx, z, binary(ctx, hPrev, hTilde, ElementWiseOperation::kSUB)));
        break;
    }
    case Cell::kLSTM:
    {
        ITensor& cPrev = *cell->getOutput(0);
        auto const peep = [&](int32_t p, ITensor& c) -> ITensor* {
            return peepholes == nullptr ? nullptr : &mul(ctx, columns(ctx, *peepholes, p * h, h), c);
        };
        auto const gateSum = [&](int32_t g, ITensor* peeped) -> ITensor& {
            ITensor& sum = plusBias(add(ctx, gate(*xw, g), gate(*hr, g)), g);
            return peeped == nullptr ? sum : add(ctx, sum, *peeped);
        };
        ITensor& i = activate(ctx, gateSum(0, peep(0, cPrev)), setup.activations[0]);
        ITensor& f = activate(ctx, gateSum(2, peep(2, cPrev)), setup.activations[0]);
        ITensor& c = activate(ctx, gateSum(3, nullptr), setup.activations[1]);
        cNext = &add(ctx, mul(ctx, f, cPrev), mul(ctx, i, c));
        ITensor& o = activate(ctx, gateSum(1, peep(1, *cNext)), setup.activations[0]);
        hNext = &mul(ctx, o, activate(ctx, *cNext, setup.activations[2]));
        break;
    }
    }
    ITensor* yStep = hNext;
    if (lengths != nullptr)
    {
        // Steps past a sequence's length keep its state and give zeros: mask [batch, 1] = t < length.
        auto& counter = ctx.added(loop->addRecurrence(scalarConstant(ctx, 0, DataType::kINT32, 0)));
        counter.setInput(1, add(ctx, *counter.getOutput(0), scalarConstant(ctx, 1, DataType::kINT32, 0)));
        ITensor& mask = ctx.tensor(
            reshapeValue(ctx, Value::tensor(binary(ctx, *counter.getOutput(0), *lengths, ElementWiseOperation::kLESS)),
                {DimPart::copy(0), DimPart::fixed(1)}));
        auto const select = [&](ITensor& yes, ITensor& no) -> ITensor& {
            return *ctx.added(ctx.network().addSelect(mask, yes, no)).getOutput(0);
        };
        yStep = &select(*hNext, mul(ctx, *hNext, scalarConstant(ctx, 0, DataType::kFLOAT, 2)));
        hNext = &select(*hNext, hPrev);
        if (cNext != nullptr)
        {
            cNext = &select(*cNext, *cell->getOutput(0));
        }
    }
    hidden.setInput(1, *hNext);
    if (cell != nullptr)
    {
        cell->setInput(1, *cNext);
    }
    DirectionOutputs out;
    auto& y = ctx.added(
        loop->addLoopOutput(*yStep, reverse ? nvinfer1::LoopOutput::kREVERSE : nvinfer1::LoopOutput::kCONCATENATE, 0));
    y.setInput(1, seqLength);
    out.y = y.getOutput(0);
    out.h = ctx.added(loop->addLoopOutput(hPrev, nvinfer1::LoopOutput::kLAST_VALUE)).getOutput(0);
    if (cell != nullptr)
    {
        out.c = ctx.added(loop->addLoopOutput(*cell->getOutput(0), nvinfer1::LoopOutput::kLAST_VALUE)).getOutput(0);
    }
    return out;
}

ITensor& concat(ImportContext& ctx, std::vector<ITensor*> const& parts, int32_t axis)
{
    if (parts.size() == 1)
    {
        return *parts.front();
    }
    auto& layer = ctx.added(ctx.network().addConcatenation(parts.data(), static_cast<int32_t>(parts.size())));
    layer.setAxis(axis);
    return *layer.getOutput(0);
}

std::vector<Value> importRnn(ImportContext& ctx, Node& node, Cell cell)
{
    RnnSetup setup;
    setup.cell = cell;
    setup.hidden = node.attrs.required<int64_t>("hidden_size");
    std::string const directionName = node.attrs.get<std::string>("direction", "forward");
    require(directionName == "forward" || directionName == "reverse" || directionName == "bidirectional",
        ErrorCode::kINVALID_NODE, "direction ", directionName, " is not forward, reverse or bidirectional");
    int32_t const nbDirections = directionName == "bidirectional" ? 2 : 1;
    int64_t const layout = node.attrs.get<int64_t>("layout", 0);
    require(layout == 0 || layout == 1, ErrorCode::kINVALID_NODE, "layout ", layout, " is not 0 or 1");
    require(!node.attrs.has("clip"), ErrorCode::kUNSUPPORTED_NODE_ATTR, "clip is not supported by kiln");
    require(node.attrs.get<int64_t>("input_forget", 0) == 0, ErrorCode::kUNSUPPORTED_NODE_ATTR,
        "input_forget must be 0 (as in TensorRT)");
    setup.linearBeforeReset = node.attrs.get<int64_t>("linear_before_reset", 0) != 0;
    std::vector<std::string> defaults = cell == Cell::kRNN ? std::vector<std::string>{"Tanh"}
        : cell == Cell::kGRU                               ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                           : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
    std::vector<std::string> names = node.attrs.get<std::vector<std::string>>("activations", {});
    std::size_t const perDirection = defaults.size();
    if (names.empty())
    {
        names = defaults;
    }
    require(names.size() == perDirection || names.size() == perDirection * static_cast<std::size_t>(nbDirections),
        ErrorCode::kINVALID_NODE, "activations has ", names.size(), " entries; ", perDirection, " per direction");
    for (std::size_t i = perDirection; i < names.size(); ++i)
    {
        require(names[i] == names[i - perDirection], ErrorCode::kUNSUPPORTED_NODE_ATTR,
            "the activations of the two directions must be the same (as in TensorRT)");
    }
    for (std::size_t i = 0; i < perDirection; ++i)
    {
        setup.activations.push_back(activationNamed(names[i]));
    }

    ITensor* x = &floatingInput(ctx, node);
    require(x->getDimensions().nbDims == 3, ErrorCode::kINVALID_NODE, "X must have rank 3, not ",
        x->getDimensions().nbDims);
    if (layout == 1)
    {
        x = &ctx.tensor(transposeValue(ctx, Value::tensor(*x), {1, 0, 2}));
    }
    Dims const xDims = x->getDimensions(); // [seq, batch, input]
    ITensor& seqLength = ctx.tensor(reshapeValue(ctx, pick(ctx, shapeValue(ctx, Value::tensor(*x)), {0}), {}));
    ITensor* lengths = nullptr;
    if (node.has(4))
    {
        require(directionName == "forward", ErrorCode::kUNSUPPORTED_NODE,
            "sequence_lens is supported by kiln for the forward direction only");
        lengths = &castTo(ctx, inputTensor(ctx, node, 4), DataType::kINT32);
    }
    auto const initial = [&](std::size_t input, int64_t d) -> ITensor* {
        if (node.has(input))
        {
            ITensor* state = &inputTensor(ctx, node, input);
            if (layout == 1)
            {
                state = &ctx.tensor(transposeValue(ctx, Value::tensor(*state), {1, 0, 2}));
            }
            return &pickFirst(ctx, *state, d);
        }
        require(xDims.d[1] >= 0, ErrorCode::kUNSUPPORTED_NODE,
            "the batch size is known only at run time and the initial state is not given");
        Dims const shape{2, {xDims.d[1], setup.hidden}};
        return &ctx.tensor(Value::weights(ctx.weightsFrom(
            DataType::kFLOAT, shape, std::vector<double>(static_cast<std::size_t>(xDims.d[1] * setup.hidden), 0.0))));
    };
    std::vector<ITensor*> ys;
    std::vector<ITensor*> hs;
    std::vector<ITensor*> cs;
    for (int32_t d = 0; d < nbDirections; ++d)
    {
        bool const reverse = directionName == "reverse" || d == 1;
        DirectionOutputs const out = direction(ctx, node, setup, *x, d, reverse, seqLength, *initial(5, d),
            cell == Cell::kLSTM ? initial(6, d) : nullptr, lengths);
        ys.push_back(&ctx.tensor(unsqueezeAxis(ctx, Value::tensor(*out.y), 1)));
        hs.push_back(&ctx.tensor(unsqueezeAxis(ctx, Value::tensor(*out.h), 0)));
        if (out.c != nullptr)
        {
            cs.push_back(&ctx.tensor(unsqueezeAxis(ctx, Value::tensor(*out.c), 0)));
        }
    }
    ITensor* y = &concat(ctx, ys, 1);  // [seq, dirs, batch, H]
    ITensor* yh = &concat(ctx, hs, 0); // [dirs, batch, H]
    ITensor* yc = cs.empty() ? nullptr : &concat(ctx, cs, 0);
    if (layout == 1)
    {
        y = &ctx.tensor(transposeValue(ctx, Value::tensor(*y), {2, 0, 1, 3}));
        yh = &ctx.tensor(transposeValue(ctx, Value::tensor(*yh), {1, 0, 2}));
        if (yc != nullptr)
        {
            yc = &ctx.tensor(transposeValue(ctx, Value::tensor(*yc), {1, 0, 2}));
        }
    }
    std::vector<Value> outputs{Value::tensor(*y), Value::tensor(*yh)};
    if (yc != nullptr)
    {
        outputs.push_back(Value::tensor(*yc));
    }
    return outputs;
}

} // namespace

void registerRnnOps(OpRegistry& registry)
{
    registry.add("RNN", [](ImportContext& ctx, Node& node) { return importRnn(ctx, node, Cell::kRNN); });
    registry.add("GRU", [](ImportContext& ctx, Node& node) { return importRnn(ctx, node, Cell::kGRU); });
    registry.add("LSTM", [](ImportContext& ctx, Node& node) { return importRnn(ctx, node, Cell::kLSTM); });
}

} // namespace kiln::onnx_import
