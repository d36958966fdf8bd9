// SPDX-License-Identifier: Apache-2.0
// The V3 plugin layer. The network keeps its own clone of the application's plugin (made with clone(), deleted
// through IPluginV3* with the network) and reads the outputs through the clone's build capability, found with
// getCapabilityInterface(kBUILD) and recognised by its interface kind "PLUGIN_V3ONE_BUILD", never by RTTI. Data
// inputs come first among the layer's inputs, then the shape inputs (which only getOutputShapes sees).
#include "network/checks.h"
#include "network/network.h"

#include <cstring>

namespace kiln
{

using nvinfer1::IPluginV3OneBuild;
using nvinfer1::PluginCapabilityType;

namespace
{

constexpr char const* kCoreKind = "PLUGIN_V3ONE_CORE";
constexpr char const* kBuildKind = "PLUGIN_V3ONE_BUILD";

bool hasKind(nvinfer1::IPluginCapability const& capability, char const* kind, int32_t minMajor, int32_t maxMajor)
{
    nvinfer1::InterfaceInfo const info = capability.getInterfaceInfo();
    return info.kind != nullptr && std::strcmp(info.kind, kind) == 0 && info.major >= minMajor
        && info.major <= maxMajor;
}

//! The output types the build capability gives for the data inputs' types.
Expected<std::vector<DataType>> readOutputTypes(
    IPluginV3OneBuild& build, int32_t nbOutputs, std::vector<DataType> const& inputTypes)
{
    std::vector<DataType> types(static_cast<std::size_t>(nbOutputs), DataType::kFLOAT);
    int32_t const status
        = build.getOutputDataTypes(types.data(), nbOutputs, inputTypes.data(), static_cast<int32_t>(inputTypes.size()));
    if (status != 0)
    {
        return Error{
            nvinfer1::ErrorCode::kINVALID_ARGUMENT, "getOutputDataTypes() returned status " + std::to_string(status)};
    }
    for (std::size_t i = 0; i < types.size(); ++i)
    {
        if (!isValidEnum(types[i]))
        {
            return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
                "getOutputDataTypes() gave output " + std::to_string(i) + " the invalid type "
                    + std::to_string(static_cast<int32_t>(types[i]))};
        }
    }
    return types;
}

} // namespace

template <>
class KindImpl<LayerType::kPLUGIN_V3> final : public nvinfer1::apiv::VPluginV3Layer, public KindBase
{
public:
    using KindBase::KindBase;

    nvinfer1::IPluginV3& getPlugin() noexcept override { return *p().plugin; }

    bool isShapeInput(int32_t index) const noexcept { return index >= p().nbInputs; }
    DataType outputType(int32_t index) const noexcept
    {
        auto const& types = p().outputTypes;
        return index >= 0 && index < static_cast<int32_t>(types.size()) ? types[static_cast<std::size_t>(index)]
                                                                        : DataType::kFLOAT;
    }
    //! Plugin output shapes come from getOutputShapes(), which the builder calls.
    Dims outputDims(int32_t /*index*/) const noexcept { return kUnsetDims; }
    void inputChanged(int32_t index) noexcept
    {
        PluginV3Params& params = p();
        if (index >= params.nbInputs)
        {
            return;
        }
        mLayer.reporter().guard("ILayer::setInput", 0, [&] {
            std::vector<DataType> inputTypes;
            for (int32_t i = 0; i < params.nbInputs; ++i)
            {
                inputTypes.push_back(inputType(i));
            }
            auto types = readOutputTypes(*params.build, static_cast<int32_t>(params.outputTypes.size()), inputTypes);
            if (!types)
            {
                mLayer.fail("setInput", describeIdentity(params.identity), ": ", types.error().message,
                    "; the output types stay as they were");
                return 0;
            }
            params.outputTypes = std::move(types.value());
            return 0;
        });
    }

private:
    PluginV3Params& p() const noexcept { return mLayer.paramsAs<PluginV3Params>(); }
};

namespace
{

nvinfer1::IPluginV3Layer* addPluginV3Layer(Network& network, nvinfer1::ITensor* const* inputs, int32_t nbInputs,
    nvinfer1::ITensor* const* shapeInputs, int32_t nbShapeInputs, nvinfer1::IPluginV3& plugin)
{
    constexpr char const* kWhere = "INetworkDefinition::addPluginV3";
    auto data = network.ownAll(inputs, nbInputs, kWhere, "inputs");
    auto shapes = data ? network.ownAll(shapeInputs, nbShapeInputs, kWhere, "shapeInputs") : std::nullopt;
    if (!shapes)
    {
        return nullptr;
    }
    for (Tensor const* shape : *shapes)
    {
        if (!isIndexType(shape->type()) || shape->dims().nbDims > 1)
        {
            return network.fail(kWhere, "shape input ", quotedText(shape->name()), " has type ", shape->type(),
                " and shape ", shape->dims(), "; shape inputs are 0-D or 1-D kINT32 or kINT64 tensors");
        }
    }

    nvinfer1::IPluginCapability* core = plugin.getCapabilityInterface(PluginCapabilityType::kCORE);
    if (core == nullptr || !hasKind(*core, kCoreKind, 1, 1))
    {
        return network.fail(kWhere, "the plugin has no core capability: getCapabilityInterface(kCORE) returned ",
            core == nullptr ? "null" : "an interface that does not report \"PLUGIN_V3ONE_CORE\" version 1");
    }
    auto* identityOf = static_cast<nvinfer1::IPluginV3OneCore*>(core);
    char const* name = identityOf->getPluginName();
    char const* version = identityOf->getPluginVersion();
    char const* pluginNamespace = identityOf->getPluginNamespace();
    PluginIdentity identity{name != nullptr ? name : "", version != nullptr ? version : "",
        pluginNamespace != nullptr ? pluginNamespace : ""};
    std::string const described = describePlugin(name, version, pluginNamespace);

    std::unique_ptr<nvinfer1::IPluginV3> clone{plugin.clone()};
    if (clone == nullptr)
    {
        return network.fail(kWhere, described, ": clone() returned null; the network keeps a clone of the plugin");
    }
    nvinfer1::IPluginCapability* build = clone->getCapabilityInterface(PluginCapabilityType::kBUILD);
    if (build == nullptr)
    {
        return network.fail(
            kWhere, described, ": the plugin has no build capability: getCapabilityInterface(kBUILD) returned null");
    }
    if (!hasKind(*build, kBuildKind, 1, 2))
    {
        nvinfer1::InterfaceInfo const info = build->getInterfaceInfo();
        return network.fail(kWhere, described, ": the build capability reports interface ", quotedText(info.kind),
            " version ", info.major, "; kiln accepts \"PLUGIN_V3ONE_BUILD\" versions 1 and 2");
    }
    auto* buildCapability = static_cast<IPluginV3OneBuild*>(build);
    int32_t const nbOutputs = buildCapability->getNbOutputs();
    if (nbOutputs < 1)
    {
        return network.fail(
            kWhere, described, ": getNbOutputs() returned ", nbOutputs, "; a plugin layer has at least one output");
    }
    std::vector<DataType> inputTypes;
    for (Tensor const* tensor : *data)
    {
        inputTypes.push_back(tensor->type());
    }
    auto types = readOutputTypes(*buildCapability, nbOutputs, inputTypes);
    if (!types)
    {
        return network.fail(kWhere, described, ": ", types.error().message);
    }

    PluginV3Params params;
    params.plugin = std::move(clone);
    params.build = buildCapability;
    params.identity = std::move(identity);
    params.nbInputs = nbInputs;
    params.nbShapeInputs = nbShapeInputs;
    params.outputTypes = std::move(types.value());
    std::vector<Tensor*> all = std::move(*data);
    all.insert(all.end(), shapes->begin(), shapes->end());
    return &network.addLayer<LayerType::kPLUGIN_V3>(std::move(all), std::move(params), nbOutputs);
}

} // namespace

nvinfer1::IPluginV3Layer* NetworkApi::addPluginV3(nvinfer1::ITensor* const* inputs, int32_t nbInputs,
    nvinfer1::ITensor* const* shapeInputs, int32_t nbShapeInputs, nvinfer1::IPluginV3& plugin) noexcept
{
    return mNetwork.reporter().guard("INetworkDefinition::addPluginV3", static_cast<nvinfer1::IPluginV3Layer*>(nullptr),
        [&] { return addPluginV3Layer(mNetwork, inputs, nbInputs, shapeInputs, nbShapeInputs, plugin); });
}

} // namespace kiln
