// SPDX-License-Identifier: Apache-2.0
#include "runtime/inspector.h"

#include "backends/host/reformat.h"
#include "plugin/aot_kernel.h"

#include "network/layer_kinds.h"
#include "runtime/context.h"
#include "runtime/executor.h"

#include <cstdio>
#include <utility>
#include <variant>

namespace kiln
{
namespace
{

using nvinfer1::Dims;
using nvinfer1::ErrorCode;
using nvinfer1::LayerInformationFormat;

std::string jsonString(std::string const& text)
{
    std::string out = "\"";
    for (char const c : text)
    {
        switch (c)
        {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20)
            {
                char buffer[8];
                std::snprintf(buffer, sizeof(buffer), "\\u%04x", static_cast<unsigned>(c));
                out += buffer;
            }
            else
            {
                out += c;
            }
        }
    }
    return out + "\"";
}

std::string dimsList(Dims const& dims)
{
    std::string out = "[";
    for (int32_t j = 0; j < dims.nbDims; ++j)
    {
        out += j == 0 ? "" : ",";
        out += std::to_string(dims.d[j]);
    }
    return out + "]";
}

} // namespace

EngineInspector::EngineInspector(Engine const& engine)
    : mEngine(engine)
{
    mImpl = &mImplObject;
    mReporter.setRecorder(engine.reporter().recorder());
}

bool EngineInspector::Impl::setExecutionContext(nvinfer1::IExecutionContext const* context) noexcept
{
    if (context != nullptr && &context->getEngine() != &mInspector.mEngine)
    {
        mInspector.mReporter.error(ErrorCode::kINVALID_ARGUMENT,
            "IEngineInspector::setExecutionContext: the context belongs to another engine");
        return false;
    }
    mInspector.mContext = context;
    return true;
}

nvinfer1::IExecutionContext const* EngineInspector::Impl::getExecutionContext() const noexcept
{
    return mInspector.mContext;
}

char const* EngineInspector::Impl::getLayerInformation(int32_t layerIndex, LayerInformationFormat format) const noexcept
{
    constexpr char const* kWhere = "IEngineInspector::getLayerInformation";
    auto const nbLayers = static_cast<int32_t>(mInspector.mEngine.program().model().layers.size());
    if (layerIndex < 0 || layerIndex >= nbLayers)
    {
        mInspector.mReporter.error(
            ErrorCode::kINVALID_ARGUMENT, kWhere, ": layer index ", layerIndex, " is outside [0, ", nbLayers, ")");
        return nullptr;
    }
    if (!checkFormat(kWhere, format))
    {
        return nullptr;
    }
    return mInspector.mReporter.guard(kWhere, static_cast<char const*>(nullptr), [&] {
        mInspector.mText = mInspector.describe(static_cast<std::size_t>(layerIndex), format, mInspector.shapes());
        return mInspector.mText.c_str();
    });
}

char const* EngineInspector::Impl::getEngineInformation(LayerInformationFormat format) const noexcept
{
    constexpr char const* kWhere = "IEngineInspector::getEngineInformation";
    if (!checkFormat(kWhere, format))
    {
        return nullptr;
    }
    return mInspector.mReporter.guard(kWhere, static_cast<char const*>(nullptr), [&] {
        mInspector.mText = mInspector.describeEngine(format);
        return mInspector.mText.c_str();
    });
}

void EngineInspector::Impl::setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept
{
    mInspector.mReporter.setRecorder(recorder);
}

nvinfer1::IErrorRecorder* EngineInspector::Impl::getErrorRecorder() const noexcept
{
    return mInspector.mReporter.recorder();
}

bool EngineInspector::Impl::checkFormat(char const* method, LayerInformationFormat format) const noexcept
{
    if (!isValidEnum(format))
    {
        mInspector.mReporter.error(ErrorCode::kINVALID_ARGUMENT, method, ": ", format, " is no LayerInformationFormat");
        return false;
    }
    return true;
}

std::vector<Dims> EngineInspector::shapes() const
{
    if (mContext != nullptr)
    {
        return ExecutionContext::of(*mContext).knownShapes();
    }
    std::vector<Dims> result;
    for (std::size_t t = 0; t < mEngine.program().model().tensors.size(); ++t)
    {
        result.push_back(mEngine.program().staticShape(static_cast<int32_t>(t)));
    }
    return result;
}

std::string EngineInspector::describeTensor(
    int32_t index, LayerInformationFormat format, std::vector<Dims> const& shapes) const
{
    TensorRecord const& tensor = mEngine.program().model().tensors[static_cast<std::size_t>(index)];
    // Where the tensor lives as the engine runs: an I/O tensor where the application gives it
    // (ICudaEngine::getTensorLocation), another where its layer writes it (a host engine's tensors, and a CUDA engine's
    // shape arithmetic, in host memory).
    EngineProgram const& program = mEngine.program();
    Side const side = tensor.isInput || tensor.isOutput ? program.ioSide(index) : program.tensorSide(index);
    std::string const location = side == Side::kHOST ? "Host" : "Device";
    // A tensor of a channels-last chain (builder/layout.h) says its format, as the plugins' chosen formats do.
    std::string const formatText = tensor.format == nvinfer1::TensorFormat::kLINEAR
        ? linearFormatDescription(tensor.type)
        : host::formatDescription(tensor.type, tensor.format);
    Dims const& dims = shapes[static_cast<std::size_t>(index)];
    if (format == LayerInformationFormat::kJSON)
    {
        return "{\"Name\": " + jsonString(tensor.name) + ", \"Location\": \"" + location
            + "\", \"Dimensions\": " + dimsList(dims) + ", \"Format/Datatype\": " + jsonString(formatText) + "}";
    }
    return "{ Name: " + tensor.name + ", Location: " + location + ", Dimensions: " + dimsList(dims)
        + ", Format/Datatype: " + formatText + " }";
}

std::string EngineInspector::describeTensors(
    std::vector<int32_t> const& tensors, LayerInformationFormat format, std::vector<Dims> const& shapes) const
{
    std::string text = "[";
    bool first = true;
    for (int32_t t : tensors)
    {
        if (t == kNoTensor)
        {
            continue;
        }
        text += first ? "" : ", ";
        text += describeTensor(t, format, shapes);
        first = false;
    }
    return text + "]";
}

std::string EngineInspector::describe(
    std::size_t layerIndex, LayerInformationFormat format, std::vector<Dims> const& shapes) const
{
    LayerRecord const& layer = mEngine.program().model().layers[layerIndex];
    // A fused kernel (builder/fusion.h) is named for what it computes, not for the kind of the layer that holds it.
    std::string type = layerKindTag(layer.type);
    if (layer.fused)
    {
        type = layer.fused->kind == FusedKernel::Kind::kATTENTION ? "Attention"
            : layer.fused->kind == FusedKernel::Kind::kEMBEDDING  ? "Embedding"
                                                                  : "LayerNorm";
    }
    // The builder's choice among the kernel's variants, where it had several to time (CUDA engines).
    bool const tactic = !layer.tacticName.empty();
    // A plugin layer's creator: what a process that loads the plan must have registered.
    PluginIdentity const* plugin = nullptr;
    char const* pluginInterface = nullptr;
    char const* pluginLanguage = "C++";
    // An ahead-of-time kernel that stands for a V3 plugin: what the engine launches itself.
    AotKernelRecord const* aot = nullptr;
    if (auto const* v3 = std::get_if<PluginV3Params>(&layer.params))
    {
        plugin = &v3->identity;
        pluginInterface = "IPluginV3";
        pluginLanguage = v3->plan.language == nvinfer1::APILanguage::kPYTHON ? "Python" : "C++";
        if (v3->plan.aot)
        {
            aot = &*v3->plan.aot;
            type = "AotKernel";
        }
    }
    else if (auto const* v2 = std::get_if<PluginV2Params>(&layer.params))
    {
        plugin = &v2->identity;
        pluginInterface = "IPluginV2";
    }
    if (format == LayerInformationFormat::kJSON)
    {
        std::string const pluginText = plugin == nullptr
            ? std::string()
            : ", \"Plugin\": {\"Name\": " + jsonString(plugin->name) + ", \"Version\": " + jsonString(plugin->version)
                + ", \"Namespace\": " + jsonString(plugin->pluginNamespace) + ", \"Interface\": \"" + pluginInterface
                + "\", \"Language\": \"" + pluginLanguage + "\"}"
                + (aot == nullptr ? std::string()
                                  : ", \"AotKernel\": {\"KernelName\": " + jsonString(aot->kernelName)
                            + ", \"ScalarArguments\": " + std::to_string(aot->scalars.size())
                            + ", \"PtxBytes\": " + std::to_string(aot->ptx.size()) + "}");
        return "{\"Name\": " + jsonString(layer.name) + ", \"LayerType\": " + jsonString(type)
            + ", \"Inputs\": " + describeTensors(layer.inputs, format, shapes) + ", \"Outputs\": "
            + describeTensors(layer.outputs, format, shapes) + ", \"Metadata\": " + jsonString(layer.metadata)
            + (tactic ? ", \"TacticName\": " + jsonString(layer.tacticName) : std::string()) + pluginText + "}";
    }
    std::string const pluginText = plugin == nullptr ? std::string()
                                                     : ", Plugin: " + plugin->name + " version " + plugin->version
            + " namespace \"" + plugin->pluginNamespace + "\" (" + pluginInterface + ", " + pluginLanguage + ")"
            + (aot == nullptr ? std::string() : ", " + describeAotKernel(*aot));
    return "Name: " + layer.name + ", LayerType: " + type + ", Inputs: " + describeTensors(layer.inputs, format, shapes)
        + ", Outputs: " + describeTensors(layer.outputs, format, shapes) + ", Metadata: " + layer.metadata
        + (tactic ? ", TacticName: " + layer.tacticName : std::string()) + pluginText;
}

std::string EngineInspector::describePluginLibraries() const
{
    std::vector<PluginLibraryRecord> const& libraries = mEngine.program().model().pluginLibraries;
    PlanLibraries const* use = mEngine.planLibraries();
    std::string text = "[";
    for (std::size_t l = 0; l < libraries.size(); ++l)
    {
        PluginLibraryRecord const& library = libraries[l];
        PlanLibraries::Status const* status = use != nullptr && l < use->status().size() ? &use->status()[l] : nullptr;
        char checksum[19];
        std::snprintf(checksum, sizeof(checksum), "0x%016llx", static_cast<unsigned long long>(library.checksum));
        text += l == 0 ? "{" : ", {";
        text += "\"Name\": " + jsonString(library.name) + ", \"Bytes\": " + std::to_string(library.bytes.size())
            + ", \"Checksum\": \"" + checksum
            + "\", \"Loaded\": " + (status != nullptr && status->loaded ? "true" : "false") + ", \"Creators\": [";
        for (std::size_t c = 0; c < library.creators.size(); ++c)
        {
            PluginCreatorRecord const& creator = library.creators[c];
            bool const fromPlan = status != nullptr && c < status->creators.size()
                && status->creators[c] == PlanLibraries::Source::kPLAN;
            text += (c == 0 ? "{" : ", {") + std::string("\"Name\": ") + jsonString(creator.identity.name)
                + ", \"Version\": " + jsonString(creator.identity.version)
                + ", \"Namespace\": " + jsonString(creator.identity.pluginNamespace) + ", \"Interface\": \""
                + (creator.kind == PluginCreatorRecord::Kind::kV2 ? "IPluginV2" : "IPluginV3")
                + "\", \"UsedCreator\": \"" + (fromPlan ? "plan" : "registered") + "\"}";
        }
        text += "]}";
    }
    return text + "]";
}

std::string EngineInspector::describeEngine(LayerInformationFormat format) const
{
    EngineProgram const& program = mEngine.program();
    std::vector<Dims> const shapes = this->shapes();
    std::size_t const nbLayers = program.model().layers.size();
    std::string text;
    if (format == LayerInformationFormat::kJSON)
    {
        text = "{\"Layers\": [";
        for (std::size_t l = 0; l < nbLayers; ++l)
        {
            text += l == 0 ? "" : ", ";
            text += describe(l, format, shapes);
        }
        text += "], \"Bindings\": [";
        for (std::size_t p = 0; p < program.ioTensors().size(); ++p)
        {
            auto const t = static_cast<std::size_t>(program.ioTensors()[p].tensor);
            text += p == 0 ? "" : ", ";
            text += jsonString(program.model().tensors[t].name);
        }
        text += "]";
        if (!program.model().pluginLibraries.empty())
        {
            text += ", \"PluginLibraries\": " + describePluginLibraries();
        }
        return text + "}";
    }
    for (std::size_t l = 0; l < nbLayers; ++l)
    {
        text += describe(l, format, shapes) + "\n";
    }
    return text;
}

} // namespace kiln
