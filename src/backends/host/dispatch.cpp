// SPDX-License-Identifier: Apache-2.0
// The host backend: what a layer record must be before its kind's descriptor (layer_kinds.h) sees it, and the one
// place where an exception from a kernel becomes an error.
#include "backends/host/dispatch.h"

#include "backends/host/reformat.h"

#include "backends/host/layer_inputs.h"
#include "backends/host/layer_kinds.h"

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
        // An identity between two formats is a reformat layer (inserted around plugins that chose other formats).
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
        return runLayerKind(layer.params, inputs, outputs);
    });
}

} // namespace kiln::host
