// SPDX-License-Identifier: Apache-2.0
// Slice, Pad, Tile and Expand onto ISliceLayer (sample modes kFILL, kCLAMP, kREFLECT and kWRAP for Pad and Tile,
// stride 0 for Expand). Extents known at parse time give static slices; others are computed as shape tensors.
#include "onnx/importers/importers.h"
#include "onnx/importers/shape_helpers.h"

#include <algorithm>
#include <limits>

namespace kiln::onnx_import
{

namespace
{

using nvinfer1::SampleMode;

//! The operands of Slice for the sliced axes; starts and ends may be tensors.
struct SliceArgs
{
    std::vector<int64_t> axes;  //!< Normalised.
    std::vector<int64_t> steps; //!< One per axis.
    Value starts;
    Value ends;
};

SliceArgs sliceArgs(ImportContext& ctx, Node const& node)
{
    int32_t const rank = node.input(0).rank();
    SliceArgs args;
    std::vector<int64_t> axes;
    size_t count = 0;
    if (ctx.opset() < 10)
    {
        std::vector<int64_t> starts = node.attrs.required<std::vector<int64_t>>("starts");
        std::vector<int64_t> ends = node.attrs.required<std::vector<int64_t>>("ends");
        require(starts.size() == ends.size(), ErrorCode::kINVALID_NODE, "starts has ", starts.size(),
            " values and ends ", ends.size());
        args.starts = int64Value(ctx, starts);
        args.ends = int64Value(ctx, ends);
        count = starts.size();
        axes = node.attrs.get<std::vector<int64_t>>("axes", {});
    }
    else
    {
        args.starts = node.input(1);
        args.ends = node.input(2);
        count = static_cast<size_t>(knownLength(args.starts, "starts (input 1)"));
        require(knownLength(args.ends, "ends (input 2)") == static_cast<int32_t>(count), ErrorCode::kINVALID_NODE,
            "starts and ends differ in length");
        if (node.has(3))
        {
            axes = constantInts(node, 3, "axes");
        }
        if (node.has(4))
        {
            args.steps = constantInts(node, 4, "steps");
        }
    }
    if (axes.empty())
    {
        for (size_t i = 0; i < count; ++i)
        {
            axes.push_back(static_cast<int64_t>(i));
        }
    }
    require(axes.size() == count, ErrorCode::kINVALID_NODE, "axes has ", axes.size(), " values and starts ", count);
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    for (int64_t axis : axes)
    {
        int32_t const a = normalizeAxis(axis, rank, "axes value");
        require(!seen[static_cast<size_t>(a)], ErrorCode::kINVALID_NODE, "axis ", axis, " is repeated in axes");
        seen[static_cast<size_t>(a)] = true;
        args.axes.push_back(a);
    }
    if (args.steps.empty())
    {
        args.steps.assign(count, 1);
    }
    require(args.steps.size() == count, ErrorCode::kINVALID_NODE, "steps has ", args.steps.size(),
        " values and starts ", count);
    for (int64_t step : args.steps)
    {
        require(step != 0, ErrorCode::kINVALID_NODE, "a step is 0");
    }
    return args;
}

//! ONNX's clamping of one axis of extent d: the first index read and the number of elements.
std::pair<int64_t, int64_t> clampAxis(int64_t start, int64_t end, int64_t step, int64_t d)
{
    if (d == 0)
    {
        return {0, 0};
    }
    start = start < 0 ? start + d : start;
    end = end < 0 ? end + d : end;
    if (step > 0)
    {
        start = std::clamp<int64_t>(start, 0, d);
        end = std::clamp<int64_t>(end, 0, d);
        return {start, end > start ? (end - start + step - 1) / step : 0};
    }
    start = std::clamp<int64_t>(start, 0, d - 1);
    end = std::clamp<int64_t>(end, -1, d - 1);
    return {start, start > end ? (start - end - step - 1) / -step : 0};
}

//! Slice of weights: element c reads start + c * step on the sliced axes.
Value sliceWeights(ImportContext& ctx, ShapedWeights const& w, SliceArgs const& args, std::vector<int64_t> const& start,
    std::vector<int64_t> const& size)
{
    Dims shape = w.shape;
    std::vector<int64_t> first(static_cast<size_t>(shape.nbDims), 0);
    std::vector<int64_t> step(static_cast<size_t>(shape.nbDims), 1);
    for (size_t i = 0; i < args.axes.size(); ++i)
    {
        auto const a = static_cast<size_t>(args.axes[i]);
        shape.d[a] = size[i];
        first[a] = start[i];
        step[a] = args.steps[i];
    }
    std::vector<int64_t> const strides = stridesOf(w.shape);
    return Value::weights(remapWeights(ctx, w, shape, [&](Coords const& c) {
        int64_t index = 0;
        for (size_t i = 0; i < strides.size(); ++i)
        {
            index += (first[i] + c[i] * step[i]) * strides[i];
        }
        return index;
    }));
}

//! Start and size of a slice computed at run time from the input's extents, starts and ends.
std::pair<ITensor*, ITensor*> dynamicWindow(ImportContext& ctx, ITensor& x, SliceArgs const& args)
{
    using Op = ElementWiseOperation;
    ITensor& d = ctx.tensor(pick(ctx, shapeValue(ctx, Value::tensor(x)), args.axes));
    std::vector<int64_t> neg;
    std::vector<int64_t> adjust;
    for (int64_t step : args.steps)
    {
        neg.push_back(step < 0 ? 1 : 0);
        adjust.push_back(step < 0 ? step + 1 : step - 1);
    }
    ITensor& last = binary(ctx, d, int64Constant(ctx, neg), Op::kSUB);
    ITensor& zero = int64Constant(ctx, {0});
    auto const normalise = [&](Value const& v, ITensor& low) -> ITensor& {
        // Limit to +-2^62 first, so that adding the extent cannot overflow.
        constexpr int64_t kLimit = int64_t{1} << 62;
        ITensor* t = &castTo(ctx, ctx.tensor(v), DataType::kINT64);
        t = &binary(ctx, *t, int64Constant(ctx, {kLimit}), Op::kMIN);
        t = &binary(ctx, *t, int64Constant(ctx, {-kLimit}), Op::kMAX);
        ITensor& negative = binary(ctx, *t, zero, Op::kLESS);
        ITensor& wrapped = binary(ctx, *t, d, Op::kSUM);
        t = ctx.added(ctx.network().addSelect(negative, wrapped, *t)).getOutput(0);
        t = &binary(ctx, *t, low, Op::kMAX);
        return binary(ctx, *t, last, Op::kMIN);
    };
    std::vector<int64_t> minusNeg;
    for (int64_t n : neg)
    {
        minusNeg.push_back(-n);
    }
    ITensor& start = normalise(args.starts, zero);
    ITensor& end = normalise(args.ends, int64Constant(ctx, minusNeg));
    ITensor& span = binary(ctx, binary(ctx, end, start, Op::kSUB), int64Constant(ctx, adjust), Op::kSUM);
    ITensor& count = binary(ctx, span, int64Constant(ctx, args.steps), Op::kFLOOR_DIV);
    return {&start, &binary(ctx, count, zero, Op::kMAX)};
}

std::vector<Value> importSlice(ImportContext& ctx, Node& node)
{
    Value const& data = node.input(0);
    SliceArgs const args = sliceArgs(ctx, node);
    Dims const dims = data.shape();
    bool known = args.starts.isWeights() && args.ends.isWeights();
    for (int64_t axis : args.axes)
    {
        known = known && dims.d[axis] >= 0;
    }
    if (known)
    {
        std::vector<int64_t> const starts = integers(args.starts.weights());
        std::vector<int64_t> const ends = integers(args.ends.weights());
        std::vector<int64_t> start;
        std::vector<int64_t> size;
        for (size_t i = 0; i < args.axes.size(); ++i)
        {
            auto [s, n] = clampAxis(starts[i], ends[i], args.steps[i], dims.d[args.axes[i]]);
            start.push_back(s);
            size.push_back(n);
        }
        if (foldable(data))
        {
            return {sliceWeights(ctx, data.weights(), args, start, size)};
        }
        auto& slice = addSliceOf(ctx, ctx.tensor(data), int64Value(ctx, start), int64Value(ctx, size),
            int64Value(ctx, args.steps), args.axes);
        return {output(slice.getOutput(0))};
    }
    ITensor& x = ctx.tensor(data);
    auto [start, size] = dynamicWindow(ctx, x, args);
    auto& slice
        = addSliceOf(ctx, x, Value::tensor(*start), Value::tensor(*size), int64Value(ctx, args.steps), args.axes);
    return {output(slice.getOutput(0))};
}

//! The slice sample mode of a Pad mode.
SampleMode padMode(std::string const& mode)
{
    if (mode == "constant")
    {
        return SampleMode::kFILL;
    }
    if (mode == "edge")
    {
        return SampleMode::kCLAMP;
    }
    if (mode == "reflect")
    {
        return SampleMode::kREFLECT;
    }
    if (mode == "wrap")
    {
        return SampleMode::kWRAP;
    }
    fail(ErrorCode::kUNSUPPORTED_NODE_ATTR, "mode '", mode, "' is not constant, edge, reflect or wrap");
    unreachableAfterFail();
}

void checkPad(ImportContext&, ::onnx::NodeProto const&, Attributes const& attrs)
{
    padMode(attrs.get<std::string>("mode", "constant"));
}

void checkTile(ImportContext& ctx, ::onnx::NodeProto const&, Attributes const&)
{
    require(ctx.opset() >= 6, ErrorCode::kUNSUPPORTED_NODE, "Tile before opset 6 (tiles and axis inputs) is not ",
        "supported");
}

std::vector<Value> importPad(ImportContext& ctx, Node& node)
{
    using Op = ElementWiseOperation;
    Value const& data = node.input(0);
    int32_t const rank = data.rank();
    SampleMode const mode = padMode(node.attrs.get<std::string>("mode", "constant"));
    bool const inputs = ctx.opset() >= 11;
    Value pads = inputs
        ? node.input(1)
        : int64Value(ctx, node.attrs.get<std::vector<int64_t>>(ctx.opset() < 2 ? "paddings" : "pads", {}));
    std::vector<int64_t> axes;
    if (inputs && node.has(3))
    {
        for (int64_t axis : constantInts(node, 3, "axes"))
        {
            axes.push_back(normalizeAxis(axis, rank, "axes value"));
        }
    }
    else
    {
        for (int32_t i = 0; i < rank; ++i)
        {
            axes.push_back(i);
        }
    }
    auto const n = static_cast<int64_t>(axes.size());
    require(knownLength(pads, "pads") == 2 * n, ErrorCode::kINVALID_NODE, "pads has ", pads.shape().d[0],
        " values; it needs ", 2 * n);
    ITensor& x = ctx.tensor(data);
    Dims const dims = x.getDimensions();
    bool known = pads.isWeights();
    for (int64_t axis : axes)
    {
        known = known && dims.d[axis] >= 0;
    }
    Value start;
    Value size;
    if (known)
    {
        std::vector<int64_t> const p = integers(pads.weights());
        std::vector<int64_t> first;
        std::vector<int64_t> extent;
        for (int64_t i = 0; i < n; ++i)
        {
            first.push_back(-p[static_cast<size_t>(i)]);
            extent.push_back(
                dims.d[axes[static_cast<size_t>(i)]] + p[static_cast<size_t>(i)] + p[static_cast<size_t>(i + n)]);
            require(extent.back() >= 0, ErrorCode::kINVALID_NODE, "the pads crop axis ", axes[static_cast<size_t>(i)],
                " below an extent of 0");
        }
        start = int64Value(ctx, first);
        size = int64Value(ctx, extent);
    }
    else
    {
        ITensor& all = castTo(ctx, ctx.tensor(pads), DataType::kINT64);
        std::vector<int64_t> begins;
        std::vector<int64_t> ends;
        for (int64_t i = 0; i < n; ++i)
        {
            begins.push_back(i);
            ends.push_back(i + n);
        }
        ITensor& begin = pick(ctx, Value::tensor(all), begins).tensor();
        ITensor& end = pick(ctx, Value::tensor(all), ends).tensor();
        Value const extents = pick(ctx, shapeValue(ctx, Value::tensor(x)), axes);
        ITensor& grown = binary(ctx, ctx.tensor(extents), binary(ctx, begin, end, Op::kSUM), Op::kSUM);
        start = Value::tensor(binary(ctx, int64Constant(ctx, {0}), begin, Op::kSUB));
        size = Value::tensor(grown);
    }
    auto& slice
        = addSliceOf(ctx, x, start, size, int64Value(ctx, std::vector<int64_t>(static_cast<size_t>(n), 1)), axes);
    slice.setMode(mode);
    if (mode == SampleMode::kFILL)
    {
        if (inputs && node.has(2))
        {
            slice.setInput(4, ctx.tensor(node.input(2)));
        }
        else if (!inputs && node.attrs.get<float>("value", 0.0F) != 0.0F)
        {
            slice.setInput(4, scalarConstant(ctx, node.attrs.get<float>("value", 0.0F), DataType::kFLOAT, 0));
        }
    }
    return {output(slice.getOutput(0))};
}

std::vector<Value> importTile(ImportContext& ctx, Node& node)
{
    Value const& data = node.input(0);
    Value const& repeats = node.input(1);
    Dims const dims = data.shape();
    require(knownLength(repeats, "repeats") == dims.nbDims, ErrorCode::kINVALID_NODE, "repeats has ",
        repeats.shape().d[0], " values for an input of ", dims.nbDims, " dimensions");
    std::vector<int64_t> const zeros(static_cast<size_t>(dims.nbDims), 0);
    std::vector<int64_t> const ones(static_cast<size_t>(dims.nbDims), 1);
    Value size;
    if (repeats.isWeights() && isStatic(dims))
    {
        std::vector<int64_t> const r = integers(repeats.weights());
        Dims out = dims;
        for (int32_t i = 0; i < dims.nbDims; ++i)
        {
            require(r[static_cast<size_t>(i)] >= 0, ErrorCode::kINVALID_NODE, "repeats value ", i, " is negative");
            out.d[i] *= r[static_cast<size_t>(i)];
        }
        if (foldable(data) && volume(out) <= volume(dims) * 16)
        {
            std::vector<int64_t> const strides = stridesOf(dims);
            return {Value::weights(remapWeights(ctx, data.weights(), out, [&](Coords const& c) {
                int64_t index = 0;
                for (size_t i = 0; i < strides.size(); ++i)
                {
                    index += c[i] % dims.d[i] * strides[i];
                }
                return index;
            }))};
        }
        size = int64Value(ctx, std::vector<int64_t>(out.d, out.d + out.nbDims));
    }
    else
    {
        ITensor& r = castTo(ctx, ctx.tensor(repeats), DataType::kINT64);
        size = Value::tensor(binary(ctx, ctx.tensor(shapeValue(ctx, data)), r, ElementWiseOperation::kPROD));
    }
    auto& slice = addSliceOf(ctx, ctx.tensor(data), int64Value(ctx, zeros), size, int64Value(ctx, ones));
    slice.setMode(SampleMode::kWRAP);
    return {output(slice.getOutput(0))};
}

std::vector<Value> importExpand(ImportContext& ctx, Node& node)
{
    using Op = ElementWiseOperation;
    Value const& data = node.input(0);
    Value const& shape = node.input(1);
    int32_t const length = knownLength(shape, "shape");
    int32_t const rank = std::max(data.rank(), length);
    require(rank <= Dims::MAX_DIMS, ErrorCode::kUNSUPPORTED_NODE_SHAPE, "the output would have ", rank, " dimensions");
    Dims in = data.shape();
    Dims wide{rank, {}};
    for (int32_t i = 0; i < rank; ++i)
    {
        int32_t const j = i - (rank - in.nbDims);
        wide.d[i] = j < 0 ? 1 : in.d[j];
    }
    if (shape.isWeights() && isStatic(in))
    {
        std::vector<int64_t> const s = integers(shape.weights());
        Dims out = wide;
        std::vector<int64_t> stride;
        for (int32_t i = 0; i < rank; ++i)
        {
            int32_t const j = i - (rank - length);
            int64_t const want = j < 0 ? 1 : s[static_cast<size_t>(j)];
            require(want == wide.d[i] || want == 1 || wide.d[i] == 1, ErrorCode::kINVALID_NODE, "dimension ", i,
                " of extent ", wide.d[i], " cannot be broadcast to ", want);
            out.d[i] = wide.d[i] == 1 ? want : wide.d[i];
            stride.push_back(wide.d[i] == 1 ? 0 : 1);
        }
        if (foldable(data) && volume(out) * 8 <= kFoldBytes)
        {
            std::vector<int64_t> const strides = stridesOf(wide);
            return {Value::weights(remapWeights(ctx, data.weights(), out, [&](Coords const& c) {
                int64_t index = 0;
                for (size_t i = 0; i < strides.size(); ++i)
                {
                    index += c[i] * stride[i] * strides[i];
                }
                return index;
            }))};
        }
        ITensor& x = expandRank(ctx, ctx.tensor(data), rank);
        auto& slice = addSliceOf(ctx, x, int64Value(ctx, std::vector<int64_t>(static_cast<size_t>(rank), 0)),
            int64Value(ctx, std::vector<int64_t>(out.d, out.d + rank)), int64Value(ctx, stride));
        return {output(slice.getOutput(0))};
    }
    ITensor& x = expandRank(ctx, ctx.tensor(data), rank);
    ITensor* target = &castTo(ctx, ctx.tensor(shape), DataType::kINT64);
    if (length < rank)
    {
        std::array<ITensor*, 2> pieces{
            &int64Constant(ctx, std::vector<int64_t>(static_cast<size_t>(rank - length), 1)), target};
        target = ctx.added(ctx.network().addConcatenation(pieces.data(), 2)).getOutput(0);
    }
    ITensor& extents = ctx.tensor(shapeValue(ctx, Value::tensor(x)));
    ITensor& isOne = binary(ctx, extents, int64Constant(ctx, {1}), Op::kEQUAL);
    ITensor& size = *ctx.added(ctx.network().addSelect(isOne, *target, extents)).getOutput(0);
    ITensor& stride = *ctx.added(ctx.network().addSelect(isOne,
                                     int64Constant(ctx, std::vector<int64_t>(static_cast<size_t>(rank), 0)),
                                     int64Constant(ctx, std::vector<int64_t>(static_cast<size_t>(rank), 1))))
                           .getOutput(0);
    auto& slice = addSliceOf(ctx, x, int64Value(ctx, std::vector<int64_t>(static_cast<size_t>(rank), 0)),
        Value::tensor(size), Value::tensor(stride));
    return {output(slice.getOutput(0))};
}

} // namespace

void registerSliceOps(OpRegistry& registry)
{
    registry.add("Slice", importSlice);
    registry.add("Pad", importPad, checkPad);
    registry.add("Tile", importTile, checkTile);
    registry.add("Expand", importExpand);
}

} // namespace kiln::onnx_import
