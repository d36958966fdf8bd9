// SPDX-License-Identifier: Apache-2.0
#include "io_formats.h"

#include "logger.h"
#include "specs.h"
#include "values.h"

#include <algorithm>
#include <array>

namespace kiln_tool
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::TensorFormat;

struct TypeName
{
    std::string_view name;
    DataType type;
};

//! trtexec's type names.
constexpr std::array<TypeName, 9> kTypes{{
    {"fp32", DataType::kFLOAT},
    {"fp16", DataType::kHALF},
    {"bf16", DataType::kBF16},
    {"int32", DataType::kINT32},
    {"int64", DataType::kINT64},
    {"int8", DataType::kINT8},
    {"fp8", DataType::kFP8},
    {"bool", DataType::kBOOL},
    {"uint8", DataType::kUINT8},
}};

struct FormatName
{
    std::string_view name;
    TensorFormat format;
    bool builderGivesIo; //!< kiln's builder can give a network input or output this format.
};

//! trtexec's format names, and whether kiln's builder gives network I/O tensors the format: it binds them in kLINEAR
//! only (src/builder/build.cpp refuses allowed formats without kLINEAR; no reformat is inserted at the boundary).
constexpr std::array<FormatName, 13> kFormats{{
    {"chw", TensorFormat::kLINEAR, true},
    {"chw2", TensorFormat::kCHW2, false},
    {"chw4", TensorFormat::kCHW4, false},
    {"hwc8", TensorFormat::kHWC8, false},
    {"chw16", TensorFormat::kCHW16, false},
    {"chw32", TensorFormat::kCHW32, false},
    {"dhwc8", TensorFormat::kDHWC8, false},
    {"cdhw32", TensorFormat::kCDHW32, false},
    {"hwc", TensorFormat::kHWC, false},
    {"dla_linear", TensorFormat::kDLA_LINEAR, false},
    {"dla_hwc4", TensorFormat::kDLA_HWC4, false},
    {"hwc16", TensorFormat::kHWC16, false},
    {"dhwc", TensorFormat::kDHWC, false},
}};

template <typename Table>
std::string namesOf(Table const& table)
{
    std::string names;
    for (auto const& row : table)
    {
        names += (names.empty() ? "" : ", ") + std::string(row.name);
    }
    return names;
}

IoFormat parseOne(std::string_view entry)
{
    std::size_t const colon = entry.find(':');
    if (colon == std::string_view::npos)
    {
        throw SpecError("'" + std::string(entry) + "' is not type:format[+format...] (e.g. fp16:chw)");
    }
    std::string_view const typeText = entry.substr(0, colon);
    auto const type = std::find_if(kTypes.begin(), kTypes.end(), [&](TypeName const& t) { return t.name == typeText; });
    if (type == kTypes.end())
    {
        throw SpecError("'" + std::string(entry) + "': unknown type '" + std::string(typeText)
            + "' (types: " + namesOf(kTypes) + ")");
    }
    IoFormat io{type->type, 0U, std::string(entry)};
    std::string_view rest = entry.substr(colon + 1);
    while (true)
    {
        std::size_t const plus = rest.find('+');
        std::string_view const formatText = rest.substr(0, plus);
        auto const format
            = std::find_if(kFormats.begin(), kFormats.end(), [&](FormatName const& f) { return f.name == formatText; });
        if (format == kFormats.end())
        {
            throw SpecError("'" + std::string(entry) + "': unknown format '" + std::string(formatText)
                + "' (formats: " + namesOf(kFormats) + ")");
        }
        if (!format->builderGivesIo)
        {
            throw SpecError("'" + std::string(entry) + "': the format " + std::string(format->name)
                + " is not supported: kiln's builder gives network inputs and outputs the linear format (chw) only");
        }
        io.formats |= 1U << static_cast<uint32_t>(format->format);
        if (plus == std::string_view::npos)
        {
            break;
        }
        rest = rest.substr(plus + 1);
    }
    return io;
}

//! "1 input (X)", "2 outputs (Y, Z)".
std::string countText(std::vector<nvinfer1::ITensor*> const& tensors, char const* kind)
{
    std::string names;
    for (nvinfer1::ITensor const* tensor : tensors)
    {
        names += (names.empty() ? "" : ", ") + std::string(tensor->getName());
    }
    return std::to_string(tensors.size()) + " " + kind + (tensors.size() == 1 ? "" : "s") + " (" + names + ")";
}

//! The spec of tensor i of a side with count tensors; a Failure naming both counts when they do not fit.
IoFormat const* specFor(std::vector<nvinfer1::ITensor*> const& tensors, std::vector<IoFormat> const& specs,
    std::size_t i, char const* flag, char const* kind)
{
    if (specs.empty())
    {
        return nullptr;
    }
    if (specs.size() != 1 && specs.size() != tensors.size())
    {
        throw Failure(std::string(flag) + " gives " + std::to_string(specs.size()) + " formats, but the model has "
            + countText(tensors, kind) + ": give one per " + kind + ", in order, or one for all");
    }
    return specs.size() == 1 ? &specs.front() : &specs[i];
}

//! A cast of tensor to type, named for the flag; a Failure when the network refuses it.
nvinfer1::ITensor& castTo(nvinfer1::INetworkDefinition& network, nvinfer1::ITensor& tensor, DataType type,
    std::string const& name, char const* flag)
{
    nvinfer1::ICastLayer* cast = network.addCast(tensor, type);
    if (cast == nullptr)
    {
        throw Failure(std::string(flag) + ": casting '" + tensor.getName() + "' to " + std::string(typeName(type))
            + " failed (kiln's error above says why)");
    }
    cast->setName(name.c_str());
    return *cast->getOutput(0);
}

void setAllowed(nvinfer1::ITensor& tensor, IoFormat const& spec, bool stronglyTyped, char const* flag, char const* kind)
{
    if (tensor.getType() != spec.type)
    {
        tensor.setType(spec.type);
    }
    tensor.setAllowedFormats(spec.formats);
    if (tensor.getType() != spec.type || tensor.getAllowedFormats() != spec.formats)
    {
        throw Failure(std::string(flag) + ": the " + kind + " '" + tensor.getName() + "' cannot take '" + spec.text
            + "' (kiln's error above says why)");
    }
    // An INT8 tensor of a weakly typed network needs a dynamic range: [-127, 127], scale 1, so that its values are
    // the integers the cast converts (a strongly typed network has no dynamic ranges: its casts convert the values).
    if (spec.type == DataType::kINT8 && !stronglyTyped)
    {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" // TensorRT 10 deprecates it; trtexec still sets them
        bool const ranged = tensor.setDynamicRange(-127.0F, 127.0F);
#pragma GCC diagnostic pop
        if (!ranged)
        {
            throw Failure(std::string(flag) + ": the " + kind + " '" + tensor.getName()
                + "' refused the dynamic range [-127, 127] an INT8 tensor needs (kiln's error above says why)");
        }
    }
    logger().verbose(std::string(flag) + ": the " + kind + " '" + tensor.getName() + "' is " + spec.text);
}

//! Each input takes its spec's type; where that is not the model's, a cast back to the model's type feeds the layers
//! that read it.
void applyToInputs(nvinfer1::INetworkDefinition& network, std::vector<IoFormat> const& specs)
{
    bool const strong = network.getFlag(nvinfer1::NetworkDefinitionCreationFlag::kSTRONGLY_TYPED);
    std::vector<nvinfer1::ITensor*> inputs;
    for (int32_t i = 0; i < network.getNbInputs(); ++i)
    {
        inputs.push_back(network.getInput(i));
    }
    for (std::size_t i = 0; i < inputs.size(); ++i)
    {
        IoFormat const* spec = specFor(inputs, specs, i, "--inputIOFormats", "input");
        if (spec == nullptr)
        {
            return;
        }
        nvinfer1::ITensor& input = *inputs[i];
        DataType const modelType = input.getType();
        if (modelType != spec->type)
        {
            std::vector<std::pair<nvinfer1::ILayer*, int32_t>> readers;
            for (int32_t l = 0; l < network.getNbLayers(); ++l)
            {
                nvinfer1::ILayer* layer = network.getLayer(l);
                for (int32_t j = 0; j < layer->getNbInputs(); ++j)
                {
                    if (layer->getInput(j) == &input)
                    {
                        readers.emplace_back(layer, j);
                    }
                }
            }
            setAllowed(input, *spec, strong, "--inputIOFormats", "input");
            nvinfer1::ITensor& cast = castTo(network, input, modelType,
                std::string(input.getName()) + " from " + std::string(typeName(spec->type)) + " (--inputIOFormats)",
                "--inputIOFormats");
            for (auto const& [layer, j] : readers)
            {
                layer->setInput(j, cast);
            }
            continue;
        }
        setAllowed(input, *spec, strong, "--inputIOFormats", "input");
    }
}

//! Each output takes its spec's type; where that is not the model's, a cast to it becomes the output, under the
//! output's name. The outputs are marked again in their order, so that the engine's order is the model's.
void applyToOutputs(nvinfer1::INetworkDefinition& network, std::vector<IoFormat> const& specs)
{
    bool const strong = network.getFlag(nvinfer1::NetworkDefinitionCreationFlag::kSTRONGLY_TYPED);
    std::vector<nvinfer1::ITensor*> outputs;
    for (int32_t i = 0; i < network.getNbOutputs(); ++i)
    {
        outputs.push_back(network.getOutput(i));
    }
    if (specs.empty())
    {
        return;
    }
    std::vector<nvinfer1::ITensor*> marked = outputs;
    for (std::size_t i = 0; i < outputs.size(); ++i)
    {
        IoFormat const& spec = *specFor(outputs, specs, i, "--outputIOFormats", "output");
        nvinfer1::ITensor& output = *outputs[i];
        if (output.getType() != spec.type)
        {
            std::string const name = output.getName();
            output.setName((name + " (" + std::string(typeName(output.getType())) + ")").c_str());
            marked[i] = &castTo(network, output, spec.type,
                name + " to " + std::string(typeName(spec.type)) + " (--outputIOFormats)", "--outputIOFormats");
            marked[i]->setName(name.c_str());
        }
    }
    for (nvinfer1::ITensor* output : outputs)
    {
        network.unmarkOutput(*output);
    }
    for (std::size_t i = 0; i < marked.size(); ++i)
    {
        network.markOutput(*marked[i]);
        IoFormat const& spec = *specFor(outputs, specs, i, "--outputIOFormats", "output");
        setAllowed(*marked[i], spec, strong, "--outputIOFormats", "output");
    }
}

} // namespace

std::vector<IoFormat> parseIoFormats(std::string_view text)
{
    std::vector<IoFormat> formats;
    std::size_t start = 0;
    while (start <= text.size())
    {
        std::size_t const end = std::min(text.find(',', start), text.size());
        std::string_view const entry = text.substr(start, end - start);
        if (entry.empty())
        {
            throw SpecError("'" + std::string(text) + "' has an empty entry");
        }
        formats.push_back(parseOne(entry));
        start = end + 1;
    }
    return formats;
}

std::string_view formatName(TensorFormat format) noexcept
{
    auto const known
        = std::find_if(kFormats.begin(), kFormats.end(), [&](FormatName const& f) { return f.format == format; });
    return known != kFormats.end() ? known->name : "format";
}

void applyIoFormats(
    nvinfer1::INetworkDefinition& network, std::vector<IoFormat> const& inputs, std::vector<IoFormat> const& outputs)
{
    applyToInputs(network, inputs);
    applyToOutputs(network, outputs);
}

} // namespace kiln_tool
