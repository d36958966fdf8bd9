// SPDX-License-Identifier: Apache-2.0
// The host backend: what a layer record must be before its kind's descriptor (layer_kinds.h) sees it, and the one
// place where an exception from a kernel becomes an error.
#include "backends/host/dispatch.h"

#include "backends/host/reformat.h"

#include "backends/host/activation.h"
#include "backends/host/elementwise.h"
#include "backends/host/layer_formats.h"
#include "backends/host/layer_inputs.h"
#include "backends/host/layer_kinds.h"
#include "backends/host/pointwise_program.h"

#include <array>
#include <cstddef>

#include <exception>
#include <new>
#include <string>
#include <utility>

namespace kiln
{

std::unique_ptr<Backend> makeHostBackend()
{
    return std::make_unique<host::HostBackend>();
}

} // namespace kiln

namespace kiln::host
{
namespace
{

//! What body returns, or the error for an exception that escapes it: the entry points are noexcept.
template <typename Body>
auto guarded(Body const& body) noexcept -> decltype(body())
{
    try
    {
        return body();
    }
    catch (std::bad_alloc const&)
    {
        return Error{nvinfer1::ErrorCode::kFAILED_ALLOCATION, "the host backend ran out of host memory"};
    }
    catch (std::exception const& e)
    {
        return Error{nvinfer1::ErrorCode::kINTERNAL_ERROR, std::string("the host backend failed: ") + e.what()};
    }
}

//! The inputs a layer's kind lists, before a CUDA build's fused addends: a matrix multiply's bias and residual (inputs
//! 2 and 3), a convolution's residual (input kConvolutionResidualInput).
std::size_t listedInputs(LayerRecord const& layer)
{
    switch (layer.type)
    {
    case LayerType::kMATRIX_MULTIPLY: return std::min<std::size_t>(layer.inputs.size(), 2);
    case LayerType::kCONVOLUTION: return std::min(layer.inputs.size(), kConvolutionResidualInput);
    default: return layer.inputs.size();
    }
}

//! Whether a layer carries a CUDA build's fusions (LayerRecord: a point-wise program, an epilogue, a product scale,
//! a matrix multiply's bias or residual input, a convolution's residual input).
bool fused(LayerRecord const& layer)
{
    return !layer.pointwise.empty() || layer.epilogue || layer.scale != 1.F
        || listedInputs(layer) < layer.inputs.size();
}

//! A fused layer of a CUDA engine that runs on the host (its result is read as values): the same results, one part
//! after the other (the host rounds between the parts, the CUDA kernels do not).
Status runFused(LayerRecord const& layer, LayerParams const& params, std::span<HostTensor const* const> inputs,
    HostTensor const& out)
{
    if (!layer.pointwise.empty())
    {
        return runPointwiseProgram(layer.pointwise, inputs, out);
    }
    std::size_t const nbListed = std::min(listedInputs(layer), inputs.size());
    Status status = runLayerKind(params, inputs.first(nbListed), std::span<HostTensor const>(&out, 1));
    if (!status)
    {
        return status;
    }
    if (layer.scale != 1.F)
    {
        std::array<std::byte, sizeof(double)> storage{};
        Dims ones{out.dims.nbDims, {}};
        std::fill_n(ones.d, std::max(ones.nbDims, 0), 1);
        HostTensor const factor{storage.data(), out.type, ones, out.scale};
        storeFloat(factor, 0, layer.scale);
        status = runElementWise({nvinfer1::ElementWiseOperation::kPROD}, out, factor, out);
    }
    // The fused addends (bias, residual), in input order, before the activation.
    for (std::size_t i = nbListed; status && i < inputs.size(); ++i)
    {
        if (inputs[i] != nullptr)
        {
            status = runElementWise({nvinfer1::ElementWiseOperation::kSUM}, out, *inputs[i], out);
        }
    }
    if (status && layer.epilogue)
    {
        status = runActivation({layer.epilogue->type, layer.epilogue->alpha, layer.epilogue->beta}, out, out);
    }
    return status;
}

} // namespace

Expected<std::optional<TensorDesc>> HostBackend::checkLayer(
    LayerParams const& params, LayerQuery const& query) const noexcept
{
    return guarded([&]() -> Expected<std::optional<TensorDesc>> {
        if (params.valueless_by_exception())
        {
            return invalidArgument("the layer has no parameters");
        }
        return checkLayerKind(params, query);
    });
}

Status HostBackend::runLayer(LayerRecord const& layer, EngineModel const& model,
    std::span<HostTensor const* const> inputs, std::span<HostTensor const> outputs, cudaStream_t /*stream*/) noexcept
{
    return guarded([&]() -> Status {
        if (layer.params.valueless_by_exception())
        {
            return invalidArgument("the layer has no parameters");
        }
        LayerType const kind = layerTypeOf(layer.params);
        if (layer.type != kind)
        {
            return invalidArgument(std::string("the layer is an ") + layerClassName(layer.type)
                + " but its parameters are an " + layerClassName(kind) + "'s");
        }
        if (inputs.size() != layer.inputs.size() || outputs.size() != layer.outputs.size())
        {
            return invalidArgument("the layer has " + std::to_string(layer.inputs.size()) + " input(s) and "
                + std::to_string(layer.outputs.size()) + " output(s) but was given " + std::to_string(inputs.size())
                + " input and " + std::to_string(outputs.size()) + " output views");
        }
        for (std::size_t i = 0; i < inputs.size(); ++i)
        {
            if ((layer.inputs[i] == kNoTensor) != (inputs[i] == nullptr))
            {
                return invalidArgument("input " + std::to_string(i)
                    + (inputs[i] == nullptr ? " is a tensor of the layer but has no view"
                                            : " is absent from the layer but was given a view"));
            }
        }
        // An identity between two formats is a reformat layer (inserted around plugins that chose other formats, and
        // at the edges of channels-last chains).
        if (kind == LayerType::kIDENTITY && inputs.size() == 1 && outputs.size() == 1)
        {
            auto const formatOf = [&](int32_t tensor) {
                return tensor >= 0 && static_cast<std::size_t>(tensor) < model.tensors.size()
                    ? model.tensors[static_cast<std::size_t>(tensor)].format
                    : nvinfer1::TensorFormat::kLINEAR;
            };
            nvinfer1::TensorFormat const from = formatOf(layer.inputs[0]);
            nvinfer1::TensorFormat const to = formatOf(layer.outputs[0]);
            if (from != to)
            {
                return reformat(*inputs[0], from, outputs[0], to);
            }
        }
        auto const runLinear
            = [](LayerRecord const& linear, LayerParams const& params, std::span<HostTensor const* const> linearInputs,
                  std::span<HostTensor const> linearOutputs) -> Status {
            if (fused(linear))
            {
                if (linearOutputs.size() != 1)
                {
                    return invalidArgument("a fused layer has one output");
                }
                return runFused(linear, params, linearInputs, linearOutputs[0]);
            }
            return runLayerKind(params, linearInputs, linearOutputs);
        };
        // A layer of a channels-last chain (builder/layout.h) runs on linear copies of its tensors.
        if (hasOtherFormats(layer, model))
        {
            return runThroughLinear(layer, model, inputs, outputs, runLinear);
        }
        return runLinear(layer, layer.params, inputs, outputs);
    });
}

} // namespace kiln::host
