// SPDX-License-Identifier: Apache-2.0
// HannWindow, HammingWindow, BlackmanWindow and STFT (opset 17). A window whose size is known when the model is parsed
// is folded to a constant; a run-time size becomes a kLINSPACE fill of the positions and cosine terms of them. STFT is
// a convolution whose filters are the windowed DFT basis (a cosine and a negated sine row per frequency bin), strided
// by frame_step, reshaped and transposed to [batch, frames, bins, 2].
#include "onnx/importers/helpers.h"
#include "onnx/importers/importers.h"
#include "onnx/importers/shape_helpers.h"

#include "core/data_type.h"

#include <cmath>
#include <numbers>

namespace kiln::onnx_import
{

namespace
{

using nvinfer1::UnaryOperation;

//! A cosine-sum window: a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), N the size (periodic) or the size - 1.
struct CosineSum
{
    double a0;
    double a1;
    double a2;
};

constexpr CosineSum kHann{0.5, 0.5, 0.0};
constexpr CosineSum kHamming{25.0 / 46.0, 21.0 / 46.0, 0.0};
constexpr CosineSum kBlackman{0.42, 0.5, 0.08};

//! The window's values for a size known at parse time.
std::vector<double> windowValues(CosineSum const& w, int64_t size, bool periodic)
{
    auto const denominator = static_cast<double>(periodic ? size : size - 1);
    std::vector<double> values(static_cast<size_t>(size));
    for (int64_t n = 0; n < size; ++n)
    {
        double const angle = 2.0 * std::numbers::pi * static_cast<double>(n) / denominator;
        values[static_cast<size_t>(n)] = w.a0 - w.a1 * std::cos(angle) + w.a2 * std::cos(2.0 * angle);
    }
    return values;
}

//! The window from a size known only at run time: positions 0..size-1 from a kLINSPACE fill, in kFLOAT.
ITensor& windowTensor(ImportContext& ctx, CosineSum const& w, ITensor& size, bool periodic)
{
    ITensor& count
        = reshapeValue(ctx, Value::tensor(castTo(ctx, size, DataType::kINT64)), {DimPart::fixed(1)}).tensor();
    auto& fill = ctx.added(ctx.network().addFill(Dims{1, {1}}, nvinfer1::FillOperation::kLINSPACE, DataType::kFLOAT));
    fill.setInput(0, count);
    fill.setAlpha(0.0);
    fill.setBeta(1.0);
    ITensor& extent = castTo(ctx, size, DataType::kFLOAT);
    ITensor& denominator = periodic
        ? extent
        : binary(ctx, extent, scalarConstant(ctx, 1.0, DataType::kFLOAT, 0), ElementWiseOperation::kSUB);
    ITensor& step = binary(
        ctx, scalarConstant(ctx, 2.0 * std::numbers::pi, DataType::kFLOAT, 0), denominator, ElementWiseOperation::kDIV);
    ITensor& angle = binary(ctx, *fill.getOutput(0), step, ElementWiseOperation::kPROD);
    auto const term = [&](ITensor& x, double factor) -> ITensor& {
        return binary(ctx, x, scalarConstant(ctx, factor, DataType::kFLOAT, 1), ElementWiseOperation::kPROD);
    };
    ITensor& first = term(unary(ctx, angle, UnaryOperation::kCOS), w.a1);
    ITensor& window = binary(ctx, scalarConstant(ctx, w.a0, DataType::kFLOAT, 1), first, ElementWiseOperation::kSUB);
    if (w.a2 == 0.0)
    {
        return window;
    }
    ITensor& second = term(unary(ctx, term(angle, 2.0), UnaryOperation::kCOS), w.a2);
    return binary(ctx, window, second, ElementWiseOperation::kSUM);
}

Value importWindow(ImportContext& ctx, Node& node, CosineSum const& w)
{
    DataType const type = floatingTypeAttribute(node, "output_datatype", ::onnx::TensorProto::FLOAT);
    bool const periodic = node.attrs.get<int64_t>("periodic", 1) != 0;
    Value const& size = node.input(0);
    require(size.type() == DataType::kINT32 || size.type() == DataType::kINT64, ErrorCode::kUNSUPPORTED_NODE_DATATYPE,
        "input size is ", dataTypeShortName(size.type()), "; it must be INT32 or INT64");
    require(size.rank() == 0 || (size.rank() == 1 && size.shape().d[0] == 1), ErrorCode::kINVALID_NODE,
        "input size has shape ", shapeText(size.shape()), "; it must be a scalar");
    if (size.isWeights())
    {
        int64_t const n = size.weights().integer(0);
        require(n >= 0, ErrorCode::kINVALID_NODE, "input size is ", n, "; it must not be negative");
        return Value::weights(ctx.weightsFrom(type, Dims{1, {n}}, windowValues(w, n, periodic)));
    }
    return Value::tensor(castTo(ctx, windowTensor(ctx, w, ctx.tensor(size), periodic), type));
}

std::vector<Value> importHannWindow(ImportContext& ctx, Node& node)
{
    return {importWindow(ctx, node, kHann)};
}

std::vector<Value> importHammingWindow(ImportContext& ctx, Node& node)
{
    return {importWindow(ctx, node, kHamming)};
}

std::vector<Value> importBlackmanWindow(ImportContext& ctx, Node& node)
{
    return {importWindow(ctx, node, kBlackman)};
}

//! The scalar value of an optional input that must be known at parse time.
int64_t constantScalar(Node const& node, size_t i, char const* what)
{
    std::vector<int64_t> const values = constantInts(node, i, what);
    require(values.size() == 1, ErrorCode::kINVALID_NODE, "input ", i, " (", what, ") must be a scalar, not ",
        values.size(), " values");
    return values.front();
}

//! STFT of a real FP32 signal [batch, length, 1] or [batch, length]: a convolution of the signal viewed as
//! [batch, 1, 1, length] with 2 * bins filters of one row of frame_length taps, stride frame_step.
std::vector<Value> importSTFT(ImportContext& ctx, Node& node)
{
    ITensor& signal = inputTensor(ctx, node, 0);
    Dims const dims = signal.getDimensions();
    require(signal.getType() == DataType::kFLOAT, ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "input signal is ",
        dataTypeShortName(signal.getType()), "; STFT takes FP32 signals");
    require(dims.nbDims == 2 || (dims.nbDims == 3 && dims.d[2] == 1), ErrorCode::kUNSUPPORTED_NODE,
        "input signal has shape ", shapeText(dims), "; it must be real-valued: [batch, length, 1] or [batch, length]");
    int64_t const step = constantScalar(node, 1, "frame_step");
    require(step >= 1, ErrorCode::kINVALID_NODE, "frame_step is ", step, "; it must be positive");
    std::vector<double> window;
    if (node.has(2))
    {
        window = constantNumbers(node, 2, "window");
        require(node.input(2).rank() == 1, ErrorCode::kINVALID_NODE, "input window must be 1-D");
    }
    int64_t const length = node.has(3) ? constantScalar(node, 3, "frame_length") : static_cast<int64_t>(window.size());
    require(length >= 1, ErrorCode::kINVALID_NODE, "the frame length is ", length,
        "; give a positive frame_length or a window");
    require(window.empty() || static_cast<int64_t>(window.size()) == length, ErrorCode::kINVALID_NODE,
        "the window has ", window.size(), " values and frame_length is ", length, "; they must agree");
    window.resize(static_cast<size_t>(length), 1.0); // no window: a rectangular one
    bool const onesided = node.attrs.get<int64_t>("onesided", 1) != 0;
    int64_t const bins = onesided ? length / 2 + 1 : length;

    // Filter 2k is w[n] cos(2 pi k n / L) (the real part of bin k), filter 2k + 1 is -w[n] sin(2 pi k n / L).
    std::vector<double> basis(static_cast<size_t>(2 * bins * length));
    for (int64_t k = 0; k < bins; ++k)
    {
        for (int64_t n = 0; n < length; ++n)
        {
            double const angle
                = 2.0 * std::numbers::pi * static_cast<double>((k * n) % length) / static_cast<double>(length);
            double const w = window[static_cast<size_t>(n)];
            basis[static_cast<size_t>(2 * k * length + n)] = w * std::cos(angle);
            basis[static_cast<size_t>((2 * k + 1) * length + n)] = -w * std::sin(angle);
        }
    }
    ShapedWeights const filters = ctx.weightsFrom(DataType::kFLOAT, Dims{1, {2 * bins * length}}, basis);

    ITensor& planes = reshapeValue(
        ctx, Value::tensor(signal), {DimPart::copy(0), DimPart::fixed(1), DimPart::fixed(1), DimPart::fixed(-1)})
                          .tensor();
    auto& conv = ctx.added(
        ctx.network().addConvolutionNd(planes, 2 * bins, Dims{2, {1, length}}, filters.api(), nvinfer1::Weights{}));
    conv.setStrideNd(Dims{2, {1, step}});
    // [batch, 2 * bins, 1, frames] -> [batch, bins, 2, frames] -> [batch, frames, bins, 2].
    auto& shuffle = ctx.added(ctx.network().addShuffle(*conv.getOutput(0)));
    shuffle.setReshapeDimensions(Dims{4, {0, bins, 2, -1}});
    shuffle.setSecondTranspose(nvinfer1::Permutation{{0, 3, 1, 2}});
    return {output(shuffle.getOutput(0))};
}

} // namespace

void registerSignalOps(OpRegistry& registry)
{
    registry.add("HannWindow", importHannWindow);
    registry.add("HammingWindow", importHammingWindow);
    registry.add("BlackmanWindow", importBlackmanWindow);
    registry.add("STFT", importSTFT);
}

} // namespace kiln::onnx_import
