// SPDX-License-Identifier: Apache-2.0
// The V2 plugin layer (IPluginV2 to IPluginV2DynamicExt). The level is the top byte of getTensorRTVersion(): 0
// IPluginV2, 1 Ext, 2 IOExt, 3 DynamicExt (0x43: a DynamicExt written in Python). The network keeps its own
// clone and destroys it with destroy(); output types come from IPluginV2Ext::getOutputDataType at level 1 and up,
// else they are the first input's type.
#include "network/checks.h"
#include "network/network.h"

namespace kiln
{

namespace
{

constexpr int32_t kPythonDynamicExtLevel = 0x43;

//! The default-name tag of each level: "(Unnamed Layer* 3) [PluginV2DynamicExt]".
constexpr char const* kLevelTags[] = {"PluginV2", "PluginV2Ext", "PluginV2IOExt", "PluginV2DynamicExt"};

//! The output types of a V2 plugin of level for the given input types.
Expected<std::vector<DataType>> readOutputTypes(
    nvinfer1::IPluginV2 const& plugin, int32_t level, int32_t nbOutputs, std::vector<DataType> const& inputTypes)
{
    std::vector<DataType> types(
        static_cast<std::size_t>(nbOutputs), inputTypes.empty() ? DataType::kFLOAT : inputTypes.front());
    if (level == 0)
    {
        return types;
    }
    auto const& ext = static_cast<nvinfer1::IPluginV2Ext const&>(plugin);
    for (int32_t i = 0; i < nbOutputs; ++i)
    {
        DataType const type = ext.getOutputDataType(i, inputTypes.data(), static_cast<int32_t>(inputTypes.size()));
        if (!isValidEnum(type))
        {
            return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
                "getOutputDataType(" + std::to_string(i) + ") returned the invalid type "
                    + std::to_string(static_cast<int32_t>(type))};
        }
        types[static_cast<std::size_t>(i)] = type;
    }
    return types;
}

} // namespace

template <>
class KindImpl<LayerType::kPLUGIN_V2> final : public nvinfer1::apiv::VPluginV2Layer, public KindBase
{
public:
    using KindBase::KindBase;

    nvinfer1::IPluginV2& getPlugin() noexcept override { return *p().plugin; }

    DataType outputType(int32_t index) const noexcept
    {
        auto const& types = p().outputTypes;
        return index >= 0 && index < static_cast<int32_t>(types.size()) ? types[static_cast<std::size_t>(index)]
                                                                        : DataType::kFLOAT;
    }
    //! Plugin output shapes come from the plugin, which the builder asks.
    Dims outputDims(int32_t /*index*/) const noexcept { return kUnsetDims; }
    void inputChanged(int32_t /*index*/) noexcept
    {
        PluginV2Params& params = p();
        mLayer.reporter().guard("ILayer::setInput", 0, [&] {
            std::vector<DataType> inputTypes;
            for (int32_t i = 0; i < static_cast<int32_t>(mLayer.inputs().size()); ++i)
            {
                inputTypes.push_back(inputType(i));
            }
            auto types = readOutputTypes(
                *params.plugin, params.level, static_cast<int32_t>(params.outputTypes.size()), inputTypes);
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
    PluginV2Params& p() const noexcept { return mLayer.paramsAs<PluginV2Params>(); }
};

namespace
{

nvinfer1::IPluginV2Layer* addPluginV2Layer(
    Network& network, nvinfer1::ITensor* const* inputs, int32_t nbInputs, nvinfer1::IPluginV2& plugin)
{
    constexpr char const* kWhere = "INetworkDefinition::addPluginV2";
    auto data = network.ownAll(inputs, nbInputs, kWhere, "inputs");
    if (!data)
    {
        return nullptr;
    }
    char const* name = plugin.getPluginType();
    char const* version = plugin.getPluginVersion();
    char const* pluginNamespace = plugin.getPluginNamespace();
    PluginIdentity identity{name != nullptr ? name : "", version != nullptr ? version : "",
        pluginNamespace != nullptr ? pluginNamespace : ""};
    std::string const described = describePlugin(name, version, pluginNamespace);

    auto const encoded = static_cast<uint32_t>(plugin.getTensorRTVersion());
    int32_t level = static_cast<int32_t>(encoded >> 24U);
    level = level == kPythonDynamicExtLevel ? 3 : level;
    if (level > 3)
    {
        return network.fail(kWhere, described, ": getTensorRTVersion() reports API level ", level,
            "; V2 plugins are levels 0 (IPluginV2) to 3 (IPluginV2DynamicExt)");
    }
    std::unique_ptr<nvinfer1::IPluginV2, PluginV2Deleter> clone{plugin.clone()};
    if (clone == nullptr)
    {
        return network.fail(kWhere, described, ": clone() returned null; the network keeps a clone of the plugin");
    }
    int32_t const nbOutputs = clone->getNbOutputs();
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
    auto types = readOutputTypes(*clone, level, nbOutputs, inputTypes);
    if (!types)
    {
        return network.fail(kWhere, described, ": ", types.error().message);
    }
    PluginV2Params params;
    params.plugin = std::move(clone);
    params.level = level;
    params.identity = std::move(identity);
    params.outputTypes = std::move(types.value());
    return &network.addLayer<LayerType::kPLUGIN_V2>(std::move(*data), std::move(params), nbOutputs, kLevelTags[level]);
}

} // namespace

nvinfer1::IPluginV2Layer* NetworkApi::addPluginV2(
    nvinfer1::ITensor* const* inputs, int32_t nbInputs, nvinfer1::IPluginV2& plugin) noexcept
{
    return mNetwork.reporter().guard("INetworkDefinition::addPluginV2", static_cast<nvinfer1::IPluginV2Layer*>(nullptr),
        [&] { return addPluginV2Layer(mNetwork, inputs, nbInputs, plugin); });
}

} // namespace kiln
