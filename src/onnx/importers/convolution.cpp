// SPDX-License-Identifier: Apache-2.0
// Conv: 2-D and 3-D convolutions (1-D through a reshape to 2-D), with groups, strides, dilations, explicit pads and
// auto_pad. The kernel and bias are weights when the model holds them, else tensor inputs.
#include "onnx/importers/helpers.h"
#include "onnx/importers/importers.h"

namespace kiln::onnx_import
{

namespace
{

using nvinfer1::PaddingMode;

void checkConv(ImportContext&, ::onnx::NodeProto const&, Attributes const& attrs)
{
    std::string autoPad = attrs.get<std::string>("auto_pad", "NOTSET");
    require(autoPad == "NOTSET" || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER" || autoPad == "VALID",
        ErrorCode::kUNSUPPORTED_NODE_ATTR, "auto_pad '", autoPad,
        "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
    require(attrs.get<int64_t>("group", 1) >= 1, ErrorCode::kINVALID_NODE, "attribute group must be at least 1");
}

//! Dims of n spatial values from an attribute (fallback when absent).
Dims spatial(Attributes const& attrs, char const* name, int32_t n, int64_t fallback)
{
    std::vector<int64_t> values = attrs.get<std::vector<int64_t>>(name, std::vector<int64_t>(size_t(n), fallback));
    require(values.size() == static_cast<size_t>(n), ErrorCode::kINVALID_NODE, "attribute ", name, " has ",
        values.size(), " values for ", n, " spatial dimensions");
    return toDims(values);
}

//! A 1-D convolution's operand [N, C, L] as [N, C, 1, L].
ITensor& addHeight(ImportContext& ctx, ITensor& tensor)
{
    auto& reshape = ctx.added(ctx.network().addShuffle(tensor));
    reshape.setReshapeDimensions(Dims{4, {0, 0, 1, -1}});
    return *reshape.getOutput(0);
}

//! d with a leading extent first when the convolution is a 1-D one run as 2-D.
Dims widen(Dims const& d, bool oneD, int64_t first)
{
    return oneD ? Dims{2, {first, d.d[0]}} : d;
}

//! Checks the kernel against the input and the kernel_shape attribute.
void checkKernel(Node const& node, Dims const& input, Dims const& kernel, int64_t groups)
{
    int32_t const rank = input.nbDims;
    require(kernel.nbDims == rank, ErrorCode::kINVALID_NODE, "the kernel (input 1) has ", kernel.nbDims,
        " dimensions; it needs as many as the input (", rank, ")");
    require(isStatic(kernel), ErrorCode::kUNSUPPORTED_NODE_DYNAMIC,
        "the kernel's (input 1) shape must be known at build time");
    require(kernel.d[0] % groups == 0, ErrorCode::kINVALID_NODE, "the kernel has ", kernel.d[0],
        " output maps, not a multiple of attribute group (", groups, ")");
    require(input.d[1] < 0 || input.d[1] == kernel.d[1] * groups, ErrorCode::kINVALID_NODE, "the input has ",
        input.d[1], " channels but the kernel takes ", kernel.d[1], " per group for ", groups, " groups");
    std::vector<int64_t> const shape = node.attrs.get<std::vector<int64_t>>("kernel_shape", {});
    for (size_t i = 0; i < shape.size(); ++i)
    {
        require(shape.size() == static_cast<size_t>(rank - 2) && shape[i] == kernel.d[i + 2], ErrorCode::kINVALID_NODE,
            "attribute kernel_shape does not match the kernel's (input 1) spatial shape");
    }
}

//! Padding from auto_pad or pads.
void setPadding(nvinfer1::IConvolutionLayer& conv, Attributes const& attrs, int32_t spatialDims, bool oneD)
{
    std::string const autoPad = attrs.get<std::string>("auto_pad", "NOTSET");
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER")
    {
        conv.setPaddingMode(autoPad == "SAME_UPPER" ? PaddingMode::kSAME_UPPER : PaddingMode::kSAME_LOWER);
        return;
    }
    if (autoPad == "VALID")
    {
        return; // no padding: the layer's default
    }
    std::vector<int64_t> pads
        = attrs.get<std::vector<int64_t>>("pads", std::vector<int64_t>(size_t(2 * spatialDims), 0));
    require(pads.size() == static_cast<size_t>(2 * spatialDims), ErrorCode::kINVALID_NODE, "attribute pads has ",
        pads.size(), " values; it needs ", 2 * spatialDims);
    Dims pre{spatialDims, {}};
    Dims post{spatialDims, {}};
    for (int32_t i = 0; i < spatialDims; ++i)
    {
        pre.d[i] = pads[static_cast<size_t>(i)];
        post.d[i] = pads[static_cast<size_t>(i + spatialDims)];
    }
    conv.setPrePadding(widen(pre, oneD, 0));
    conv.setPostPadding(widen(post, oneD, 0));
}

std::vector<Value> importConv(ImportContext& ctx, Node& node)
{
    ITensor* x = &inputTensor(ctx, node, 0);
    Value const& kernel = node.input(1);
    // A plugin's output has no rank until the build; the kernel's rank is the input's.
    int32_t const rank = x->getDimensions().nbDims >= 0 ? x->getDimensions().nbDims : kernel.rank();
    require(rank >= 3 && rank <= 5, ErrorCode::kUNSUPPORTED_NODE_SHAPE, "the input has ", rank,
        " dimensions; Conv takes 3-D, 4-D or 5-D inputs");
    int64_t const groups = node.attrs.get<int64_t>("group", 1);
    Dims const kernelShape = kernel.shape();
    checkKernel(node, x->getDimensions(), kernelShape, groups);
    int32_t const spatialDims = rank - 2;

    // 1-D convolutions run as 2-D ones over a height of 1.
    bool const oneD = spatialDims == 1;
    if (oneD)
    {
        x = &addHeight(ctx, *x);
    }
    Dims kernelSize{spatialDims, {}};
    for (int32_t i = 0; i < spatialDims; ++i)
    {
        kernelSize.d[i] = kernelShape.d[2 + i];
    }
    nvinfer1::Weights kernelWeights{DataType::kFLOAT, nullptr, 0};
    nvinfer1::Weights biasWeights{DataType::kFLOAT, nullptr, 0};
    bool const biasIsWeights = node.has(2) && node.input(2).isWeights();
    if (kernel.isWeights())
    {
        kernelWeights = kernel.weights().api();
    }
    if (biasIsWeights)
    {
        biasWeights = node.input(2).weights().api();
    }
    auto& conv = ctx.added(
        ctx.network().addConvolutionNd(*x, kernelShape.d[0], widen(kernelSize, oneD, 1), kernelWeights, biasWeights));
    if (kernel.isWeights())
    {
        ctx.nameWeights(kernel.weights());
    }
    if (biasIsWeights)
    {
        ctx.nameWeights(node.input(2).weights());
    }
    if (!kernel.isWeights())
    {
        ITensor& k = ctx.tensor(kernel);
        conv.setInput(1, oneD ? addHeight(ctx, k) : k);
    }
    if (node.has(2) && !biasIsWeights)
    {
        conv.setInput(2, ctx.tensor(node.input(2)));
    }

    Attributes const& attrs = node.attrs;
    conv.setStrideNd(widen(spatial(attrs, "strides", spatialDims, 1), oneD, 1));
    conv.setDilationNd(widen(spatial(attrs, "dilations", spatialDims, 1), oneD, 1));
    conv.setNbGroups(groups);
    setPadding(conv, attrs, spatialDims, oneD);
    ITensor* y = conv.getOutput(0);
    if (oneD)
    {
        auto& reshape = ctx.added(ctx.network().addShuffle(*y));
        reshape.setReshapeDimensions(Dims{3, {0, 0, -1}});
        y = reshape.getOutput(0);
    }
    return {output(y)};
}

} // namespace

void registerConvolutionOps(OpRegistry& registry)
{
    registry.add("Conv", importConv, checkConv);
}

} // namespace kiln::onnx_import
