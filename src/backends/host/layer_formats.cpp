// SPDX-License-Identifier: Apache-2.0
#include "backends/host/layer_formats.h"

#include "backends/host/reformat.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

namespace kiln::host
{
namespace
{

using nvinfer1::TensorFormat;

TensorFormat formatOf(EngineModel const& model, int32_t tensor) noexcept
{
    return tensor >= 0 && static_cast<std::size_t>(tensor) < model.tensors.size()
        ? model.tensors[static_cast<std::size_t>(tensor)].format
        : TensorFormat::kLINEAR;
}

//! A channels-last convolution's kernel, stored KRSC with stored.count / (K * taps) channels per map and tap, read
//! back into KCRS with the input's channels / groups (the stored ones beyond them are padding).
std::vector<std::byte> kernelFromChannelsLast(ConvolutionParams const& params, int64_t channelsPerGroup)
{
    int64_t taps = 1;
    for (int32_t i = 0; i < params.kernelSize.nbDims; ++i)
    {
        taps *= params.kernelSize.d[i];
    }
    int64_t const maps = params.nbOutputMaps;
    int64_t const stored = maps * taps > 0 ? params.kernel.count / (maps * taps) : 0;
    int64_t const size = storageBytes(params.kernel.type, 1);
    int64_t const channels = std::min(channelsPerGroup, stored);
    std::vector<std::byte> bytes(static_cast<std::size_t>(maps * channels * taps * size));
    auto const* from = static_cast<std::byte const*>(params.kernel.values);
    for (int64_t k = 0; k < maps; ++k)
    {
        for (int64_t c = 0; c < channels; ++c)
        {
            for (int64_t s = 0; s < taps; ++s)
            {
                std::memcpy(bytes.data() + ((k * channels + c) * taps + s) * size,
                    from + ((k * taps + s) * stored + c) * size, static_cast<std::size_t>(size));
            }
        }
    }
    return bytes;
}

} // namespace

bool hasOtherFormats(LayerRecord const& layer, EngineModel const& model) noexcept
{
    for (std::vector<int32_t> const* tensors : {&layer.inputs, &layer.outputs})
    {
        for (int32_t const tensor : *tensors)
        {
            if (formatOf(model, tensor) != TensorFormat::kLINEAR)
            {
                return true;
            }
        }
    }
    return false;
}

Status runThroughLinear(LayerRecord const& layer, EngineModel const& model, std::span<HostTensor const* const> inputs,
    std::span<HostTensor const> outputs, LinearRun const& run)
{
    std::vector<std::optional<HostBuffer>> linearInputs(inputs.size());
    std::vector<HostTensor const*> inputViews(inputs.begin(), inputs.end());
    for (std::size_t i = 0; i < inputs.size(); ++i)
    {
        TensorFormat const format = formatOf(model, layer.inputs[i]);
        if (inputs[i] == nullptr || format == TensorFormat::kLINEAR)
        {
            continue;
        }
        HostTensor const& in = *inputs[i];
        linearInputs[i].emplace(in.type, in.dims, in.scale);
        if (Status status = reformat(in, format, linearInputs[i]->tensor(), TensorFormat::kLINEAR); !status)
        {
            return status;
        }
        inputViews[i] = &linearInputs[i]->tensor();
    }
    std::vector<std::optional<HostBuffer>> linearOutputs(outputs.size());
    std::vector<HostTensor> outputViews(outputs.begin(), outputs.end());
    for (std::size_t o = 0; o < outputs.size(); ++o)
    {
        if (formatOf(model, layer.outputs[o]) != TensorFormat::kLINEAR)
        {
            linearOutputs[o].emplace(outputs[o].type, outputs[o].dims, outputs[o].scale);
            outputViews[o] = linearOutputs[o]->tensor();
        }
    }
    // A channels-last convolution's kernel, read back into KCRS for a copy of its parameters.
    std::optional<LayerParams> params;
    std::vector<std::byte> kernel;
    auto const* conv = std::get_if<ConvolutionParams>(&layer.params);
    if (conv != nullptr && conv->kernel.count > 0 && !inputs.empty() && inputs[0] != nullptr
        && formatOf(model, layer.inputs[0]) != TensorFormat::kLINEAR && inputs[0]->dims.nbDims > 1
        && conv->nbGroups > 0)
    {
        ConvolutionParams linear = *conv;
        kernel = kernelFromChannelsLast(*conv, inputs[0]->dims.d[1] / conv->nbGroups);
        linear.kernel.values = kernel.data();
        linear.kernel.count = static_cast<int64_t>(kernel.size()) / storageBytes(conv->kernel.type, 1);
        params.emplace(std::in_place_type<ConvolutionParams>, linear);
    }
    Status status = run(layer, params ? *params : layer.params, inputViews, outputViews);
    for (std::size_t o = 0; status && o < outputs.size(); ++o)
    {
        if (linearOutputs[o])
        {
            status = reformat(
                linearOutputs[o]->tensor(), TensorFormat::kLINEAR, outputs[o], formatOf(model, layer.outputs[o]));
        }
    }
    return status;
}

} // namespace kiln::host
