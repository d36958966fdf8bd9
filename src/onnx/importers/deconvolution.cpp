// SPDX-License-Identifier: Apache-2.0
// ConvTranspose onto IDeconvolutionLayer: 2-D and 3-D (1-D through a reshape to 2-D, as Conv), with groups, strides,
// dilations, pads, auto_pad, output_padding and output_shape. The kernel [C, M / group, k...] and the bias [M] are
// weights when the model holds them, else tensor inputs 1 and 2.
//
// The output of each spatial axis, from ONNX's ConvTranspose definition (I input extent, S stride, DK = 1 + dilation *
// (k - 1), F = (I - 1) * S + DK the full result): F trimmed by pads_begin at the start and by pads_end - output_padding
// at the end. The importer works out that begin and end per axis:
// - output_shape given (pads are then ignored): total = F + output_padding - output_shape. With auto_pad SAME_UPPER,
//   begin = floor(total / 2); with SAME_LOWER, begin = total - floor(total / 2) (the operator's definition and ONNX's
//   reference implementation). Without auto_pad, begin = floor(total / 2) for a total >= 0 (the larger half at the
//   end, as ONNX Runtime and TensorRT's parser split it; the operator's text says the other way round) and 0 for a
//   negative total (every zero at the end, as ONNX's reference implementation and ONNX Runtime have it).
// - auto_pad SAME_UPPER or SAME_LOWER: the output is I * S, so total = DK - S + output_padding, whatever I is
//   (TensorRT's own SAME modes give min(I * S, F), which differs when DK < S: the importer sets explicit padding);
// - otherwise pads (all 0 for VALID or when absent): begin = pads_begin, end = pads_end - output_padding.
// A begin or end below 0 asks for more than F: the layer trims nothing there, and a kFILL slice adds the zeros (the
// bias is then added after the slice, so that the added elements get it too).
#include "onnx/importers/helpers.h"
#include "onnx/importers/importers.h"

namespace kiln::onnx_import
{

namespace
{

void checkConvTranspose(ImportContext&, ::onnx::NodeProto const&, Attributes const& attrs)
{
    std::string const autoPad = attrs.get<std::string>("auto_pad", "NOTSET");
    require(autoPad == "NOTSET" || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER" || autoPad == "VALID",
        ErrorCode::kUNSUPPORTED_NODE_ATTR, "auto_pad '", autoPad,
        "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
    require(attrs.get<int64_t>("group", 1) >= 1, ErrorCode::kINVALID_NODE, "attribute group must be at least 1");
}

//! n spatial values of an attribute (fallback when absent).
std::vector<int64_t> spatial(Attributes const& attrs, char const* name, int32_t n, int64_t fallback)
{
    std::vector<int64_t> values = attrs.get<std::vector<int64_t>>(name, std::vector<int64_t>(size_t(n), fallback));
    require(values.size() == static_cast<size_t>(n), ErrorCode::kINVALID_NODE, "attribute ", name, " has ",
        values.size(), " values for ", n, " spatial dimensions");
    return values;
}

//! A 1-D deconvolution's operand [A, B, L] as [A, B, 1, L].
ITensor& addHeight(ImportContext& ctx, ITensor& tensor)
{
    auto& reshape = ctx.added(ctx.network().addShuffle(tensor));
    reshape.setReshapeDimensions(Dims{4, {0, 0, 1, -1}});
    return *reshape.getOutput(0);
}

//! The spatial values as the layer's Dims: with a leading value first when a 1-D deconvolution runs as 2-D.
Dims layerDims(std::vector<int64_t> const& values, bool oneD, int64_t first)
{
    Dims dims{static_cast<int32_t>(values.size()), {}};
    for (size_t i = 0; i < values.size(); ++i)
    {
        dims.d[i] = values[i];
    }
    return oneD ? Dims{2, {first, dims.d[0]}} : dims;
}

//! a floor-divided by 2 (as ONNX's reference computes it, also for negative a).
int64_t halfDown(int64_t a)
{
    return a >= 0 ? a / 2 : -((-a + 1) / 2);
}

//! What each spatial axis trims at its start (begin) and end; negative values ask for zeros added there.
struct Trim
{
    std::vector<int64_t> begin;
    std::vector<int64_t> end;
};

Trim trimOf(Node const& node, Dims const& input, std::vector<int64_t> const& kernel)
{
    Attributes const& attrs = node.attrs;
    auto const n = static_cast<int32_t>(kernel.size());
    std::vector<int64_t> const strides = spatial(attrs, "strides", n, 1);
    std::vector<int64_t> const dilations = spatial(attrs, "dilations", n, 1);
    std::vector<int64_t> const outputPadding = spatial(attrs, "output_padding", n, 0);
    std::string const autoPad = attrs.get<std::string>("auto_pad", "NOTSET");
    bool const same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
    for (int32_t i = 0; i < n; ++i)
    {
        require(strides[size_t(i)] >= 1 && dilations[size_t(i)] >= 1, ErrorCode::kINVALID_NODE,
            "strides and dilations must be at least 1");
        require(
            outputPadding[size_t(i)] >= 0, ErrorCode::kINVALID_NODE, "attribute output_padding has a negative value");
    }
    Trim trim{std::vector<int64_t>(static_cast<size_t>(n)), std::vector<int64_t>(static_cast<size_t>(n))};
    auto const span = [&](int32_t i) { return 1 + dilations[size_t(i)] * (kernel[size_t(i)] - 1); };
    // ONNX's pads of total padding split, as trims of F (the end's pads less output_padding).
    auto const split = [&](int32_t i, int64_t total, bool upper) {
        int64_t const half = halfDown(total);
        trim.begin[size_t(i)] = upper ? half : total - half;
        trim.end[size_t(i)] = total - trim.begin[size_t(i)] - outputPadding[size_t(i)];
    };
    if (attrs.has("output_shape"))
    {
        std::vector<int64_t> shape = attrs.get<std::vector<int64_t>>("output_shape", {});
        // The shape may list the batch and channel extents too.
        if (shape.size() == size_t(n) + 2)
        {
            shape.erase(shape.begin(), shape.begin() + 2);
        }
        require(shape.size() == size_t(n), ErrorCode::kINVALID_NODE, "attribute output_shape has ", shape.size(),
            " values for ", n, " spatial dimensions");
        for (int32_t i = 0; i < n; ++i)
        {
            int64_t const extent = input.d[i + 2];
            require(extent >= 0, ErrorCode::kUNSUPPORTED_NODE_DYNAMIC, "attribute output_shape needs the input's ",
                "spatial extents at build time; extent ", i + 2, " of ", shapeText(input),
                " is known only at run time");
            int64_t const full = (extent - 1) * strides[size_t(i)] + span(i);
            int64_t const total = full + outputPadding[size_t(i)] - shape[size_t(i)];
            if (same)
            {
                split(i, total, autoPad == "SAME_UPPER");
                continue;
            }
            // Without auto_pad: the smaller half first; a negative total all at the end.
            trim.begin[size_t(i)] = total < 0 ? 0 : total / 2;
            trim.end[size_t(i)] = total - trim.begin[size_t(i)] - outputPadding[size_t(i)];
        }
        return trim;
    }
    if (same)
    {
        for (int32_t i = 0; i < n; ++i)
        {
            split(i, span(i) - strides[size_t(i)] + outputPadding[size_t(i)], autoPad == "SAME_UPPER");
        }
        return trim;
    }
    std::vector<int64_t> const pads = autoPad == "VALID"
        ? std::vector<int64_t>(size_t(2 * n), 0)
        : attrs.get<std::vector<int64_t>>("pads", std::vector<int64_t>(size_t(2 * n), 0));
    require(pads.size() == size_t(2 * n), ErrorCode::kINVALID_NODE, "attribute pads has ", pads.size(),
        " values; it needs ", 2 * n);
    for (int32_t i = 0; i < n; ++i)
    {
        require(pads[size_t(i)] >= 0 && pads[size_t(i + n)] >= 0, ErrorCode::kINVALID_NODE,
            "attribute pads has a negative value");
        trim.begin[size_t(i)] = pads[size_t(i)];
        trim.end[size_t(i)] = pads[size_t(i + n)] - outputPadding[size_t(i)];
    }
    return trim;
}

//! y with zeros added at the start (before) and end (after) of its trailing spatial axes: a kFILL slice.
ITensor& zeroPadded(
    ImportContext& ctx, ITensor& y, std::vector<int64_t> const& before, std::vector<int64_t> const& after)
{
    Dims const dims = y.getDimensions();
    int32_t const first = dims.nbDims - static_cast<int32_t>(before.size());
    Dims start{dims.nbDims, {}};
    Dims size = dims;
    Dims stride{dims.nbDims, {}};
    std::vector<int64_t> growth(static_cast<size_t>(dims.nbDims), 0);
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        bool const spatialAxis = i >= first;
        start.d[i] = spatialAxis ? -before[size_t(i - first)] : 0;
        growth[size_t(i)] = spatialAxis ? before[size_t(i - first)] + after[size_t(i - first)] : 0;
        // An extent known only at run time: 0 here, the run-time size below replaces it.
        size.d[i] = size.d[i] < 0 ? 0 : size.d[i] + growth[size_t(i)];
        stride.d[i] = 1;
    }
    auto& slice = ctx.added(ctx.network().addSlice(y, start, size, stride));
    slice.setMode(nvinfer1::SampleMode::kFILL);
    if (!isStatic(dims))
    {
        // The size from the output's run-time shape.
        slice.setInput(
            2, binary(ctx, shapeOf(ctx, y), int64Constant(ctx, growth), nvinfer1::ElementWiseOperation::kSUM));
    }
    return *slice.getOutput(0);
}

//! y + bias (node input 2, [M]) along y's axis 1.
ITensor& addBias(ImportContext& ctx, Node const& node, ITensor& y)
{
    int32_t const rank = y.getDimensions().nbDims;
    Dims shape{rank, {}};
    for (int32_t i = 0; i < rank; ++i)
    {
        shape.d[i] = 1;
    }
    shape.d[1] = -1;
    ITensor& bias = inputTensor(ctx, node, 2);
    auto& reshape = ctx.added(ctx.network().addShuffle(bias));
    reshape.setReshapeDimensions(shape);
    return binary(ctx, y, *reshape.getOutput(0), nvinfer1::ElementWiseOperation::kSUM);
}

std::vector<Value> importConvTranspose(ImportContext& ctx, Node& node)
{
    ITensor* x = &inputTensor(ctx, node, 0);
    require(isFloating(x->getType()), ErrorCode::kUNSUPPORTED_NODE_DATATYPE,
        "ConvTranspose takes FLOAT, FLOAT16 and BFLOAT16 inputs");
    Value const& kernel = node.input(1);
    // A plugin's output has no rank until the build; the kernel's rank is the input's.
    int32_t const rank = x->getDimensions().nbDims >= 0 ? x->getDimensions().nbDims : kernel.rank();
    require(rank >= 3 && rank <= 5, ErrorCode::kUNSUPPORTED_NODE_SHAPE, "the input has ", rank,
        " dimensions; ConvTranspose takes 3-D, 4-D or 5-D inputs");
    int64_t const groups = node.attrs.get<int64_t>("group", 1);
    Dims const kernelShape = kernel.shape();
    Dims const input = x->getDimensions();
    require(kernelShape.nbDims == rank, ErrorCode::kINVALID_NODE, "the kernel (input 1) has ", kernelShape.nbDims,
        " dimensions; it needs as many as the input (", rank, ")");
    require(isStatic(kernelShape), ErrorCode::kUNSUPPORTED_NODE_DYNAMIC,
        "the kernel's (input 1) shape must be known at build time");
    require(input.nbDims < 0 || input.d[1] < 0 || input.d[1] == kernelShape.d[0], ErrorCode::kINVALID_NODE,
        "the input has ", input.d[1], " channels but the kernel ", shapeText(kernelShape), " takes ", kernelShape.d[0]);
    require(kernelShape.d[0] % groups == 0, ErrorCode::kINVALID_NODE, "the kernel's ", kernelShape.d[0],
        " input channels are not a multiple of attribute group (", groups, ")");
    int32_t const spatialDims = rank - 2;
    auto const count = static_cast<size_t>(spatialDims);
    std::vector<int64_t> kernelSize(count);
    for (int32_t i = 0; i < spatialDims; ++i)
    {
        kernelSize[size_t(i)] = kernelShape.d[i + 2];
    }
    std::vector<int64_t> const declared = node.attrs.get<std::vector<int64_t>>("kernel_shape", {});
    require(declared.empty() || declared == kernelSize, ErrorCode::kINVALID_NODE,
        "attribute kernel_shape does not match the kernel's (input 1) spatial shape ", shapeText(kernelShape));
    int64_t const maps = kernelShape.d[1] * groups;
    Trim const trim = trimOf(node, input, kernelSize);
    std::vector<int64_t> layerPre(count);
    std::vector<int64_t> layerPost(count);
    std::vector<int64_t> addBefore(count);
    std::vector<int64_t> addAfter(count);
    bool adds = false;
    for (size_t i = 0; i < count; ++i)
    {
        layerPre[i] = std::max<int64_t>(trim.begin[i], 0);
        layerPost[i] = std::max<int64_t>(trim.end[i], 0);
        addBefore[i] = layerPre[i] - trim.begin[i];
        addAfter[i] = layerPost[i] - trim.end[i];
        adds = adds || addBefore[i] != 0 || addAfter[i] != 0;
    }

    // 1-D deconvolutions run as 2-D ones over a height of 1.
    bool const oneD = spatialDims == 1;
    if (oneD)
    {
        x = &addHeight(ctx, *x);
    }
    bool const hasBias = node.has(2);
    bool const biasIsWeights = hasBias && node.input(2).isWeights();
    nvinfer1::Weights kernelWeights{DataType::kFLOAT, nullptr, 0};
    nvinfer1::Weights biasWeights{DataType::kFLOAT, nullptr, 0};
    if (kernel.isWeights())
    {
        kernelWeights = kernel.weights().api();
    }
    // With zeros added after the layer, the bias is added after them.
    if (biasIsWeights && !adds)
    {
        biasWeights = node.input(2).weights().api();
    }
    auto& layer = ctx.added(
        ctx.network().addDeconvolutionNd(*x, maps, layerDims(kernelSize, oneD, 1), kernelWeights, biasWeights));
    if (kernel.isWeights())
    {
        ctx.nameWeights(kernel.weights());
    }
    if (biasIsWeights && !adds)
    {
        ctx.nameWeights(node.input(2).weights());
    }
    if (!kernel.isWeights())
    {
        ITensor& k = ctx.tensor(kernel);
        layer.setInput(1, oneD ? addHeight(ctx, k) : k);
    }
    if (hasBias && !biasIsWeights && !adds)
    {
        layer.setInput(2, ctx.tensor(node.input(2)));
    }
    Attributes const& attrs = node.attrs;
    layer.setStrideNd(layerDims(spatial(attrs, "strides", spatialDims, 1), oneD, 1));
    layer.setDilationNd(layerDims(spatial(attrs, "dilations", spatialDims, 1), oneD, 1));
    layer.setNbGroups(groups);
    layer.setPrePadding(layerDims(layerPre, oneD, 0));
    layer.setPostPadding(layerDims(layerPost, oneD, 0));
    ITensor* y = layer.getOutput(0);
    if (adds)
    {
        y = &zeroPadded(ctx, *y, addBefore, addAfter);
        if (hasBias)
        {
            y = &addBias(ctx, node, *y);
        }
    }
    if (oneD)
    {
        auto& reshape = ctx.added(ctx.network().addShuffle(*y));
        reshape.setReshapeDimensions(Dims{3, {0, 0, -1}});
        y = reshape.getOutput(0);
    }
    return {output(y)};
}

} // namespace

void registerDeconvolutionOps(OpRegistry& registry)
{
    registry.add("ConvTranspose", importConvTranspose, checkConvTranspose);
}

} // namespace kiln::onnx_import
