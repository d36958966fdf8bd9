// SPDX-License-Identifier: Apache-2.0
// The V2 plugin layer (IPluginV2 to IPluginV2DynamicExt). The level is the top byte of getTensorRTVersion(): 0
// IPluginV2, 1 Ext, 2 IOExt, 3 DynamicExt (0x43: a DynamicExt written in Python). The network keeps its own
// clone and destroys it with destroy(); output types come from IPluginV2Ext::getOutputDataType at level 1 and up,
// else they are the first input's type.
#include "network/checks.h"
#include "network/network.h"
#include "network/shape_rules.h"

#include <algorithm>
#include <optional>

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
    //! What getOutputDimensions() gives for the inputs' shapes as the network knows them so far (TensorRT asks the
    //! plugin while the network is defined): constants, -1 for extents that depend on dynamic input extents; an
    //! unknown rank when the network's shapes cannot be inferred yet.
    Dims outputDims(int32_t index) const noexcept { return inferredOutputDims(index); }
    void inputChanged(int32_t /*index*/) noexcept
    {
        PluginV2Params& params = edit();
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
    PluginV2Params const& p() const noexcept { return mLayer.paramsAs<PluginV2Params>(); }
    //! The parameters, to change: the layer's outputs are then computed again (Layer::editParams).
    PluginV2Params& edit() noexcept { return mLayer.editParams<PluginV2Params>(); }
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

// The symbolic shape rule (network/shape_rules.h).
Expected<std::vector<SymbolicTensor>> inferOutputShapes(PluginV2Params const& params, ShapeRuleContext& context)
{
    std::string const who = describeIdentity(params.identity);
    int32_t const nbOutputs = context.nbOutputs();
    std::vector<SymbolicTensor> results;
    if (params.level == 3)
    {
        // IPluginV2DynamicExt: symbolic, one output at a time.
        std::vector<nvinfer1::DimsExprs> inputs;
        for (int32_t i = 0; i < context.nbInputs(); ++i)
        {
            SymbolicTensor const& input = context.input(i);
            if (!input.present() || input.rank() > Dims::MAX_DIMS)
            {
                return context.error(
                    who, ": input ", i, " is missing or has more than ", Dims::MAX_DIMS, " dimensions");
            }
            nvinfer1::DimsExprs dims{input.rank(), {}};
            for (int32_t d = 0; d < input.rank(); ++d)
            {
                dims.d[d] = (*input.shape)[static_cast<std::size_t>(d)];
            }
            inputs.push_back(dims);
        }
        auto& plugin = static_cast<nvinfer1::IPluginV2DynamicExt&>(*params.plugin);
        for (int32_t o = 0; o < nbOutputs; ++o)
        {
            PluginExprBuilder builder(context.exprs(), context.layerName());
            nvinfer1::DimsExprs const dims
                = plugin.getOutputDimensions(o, inputs.data(), static_cast<int32_t>(inputs.size()), builder);
            if (!builder.errors().empty())
            {
                return context.error(who, ": getOutputDimensions(", o, "): ", builder.errors().front());
            }
            if (!builder.sizeTensors().empty())
            {
                return context.error(
                    who, ": getOutputDimensions(", o, ") declared a size tensor; only V3 plugins have size tensors");
            }
            if (dims.nbDims < 0 || dims.nbDims > Dims::MAX_DIMS)
            {
                return context.error(who, ": getOutputDimensions(", o, ") returned ", dims.nbDims,
                    " dimensions; outputs have 0 to ", Dims::MAX_DIMS);
            }
            SymbolicDims out;
            for (int32_t d = 0; d < dims.nbDims; ++d)
            {
                DimExpr const* node = context.exprs().find(dims.d[d]);
                if (node == nullptr)
                {
                    return context.error(who, ": getOutputDimensions(", o, ") gave extent ", d,
                        " an expression that is neither an input's nor made by the IExprBuilder");
                }
                out.push_back(node);
            }
            results.push_back(SymbolicTensor{std::move(out), std::nullopt, {}});
        }
        return context.finish(std::move(results));
    }
    // IPluginV2, Ext and IOExt: Dims-based getOutputDimensions on the extents after the leading batch dimension,
    // which must be build-time constants; the outputs get input 0's batch extent in front.
    std::vector<Dims> inputs;
    for (int32_t i = 0; i < context.nbInputs(); ++i)
    {
        SymbolicTensor const& input = context.input(i);
        if (input.rank() < 1)
        {
            return context.error(who, ": input ", i, " has ", input.rank(), " dimensions; a V2 plugin of level ",
                params.level, " sees inputs with a leading batch dimension");
        }
        Dims dims{input.rank() - 1, {}};
        for (int32_t d = 1; d < input.rank(); ++d)
        {
            DimExpr const* extent = (*input.shape)[static_cast<std::size_t>(d)];
            if (!isConstantExpr(extent, &dims.d[d - 1]))
            {
                return context.error(who, ": extent ", d, " of input ", i, " is ", context.str(extent),
                    "; a V2 plugin without dynamic shapes (level ", params.level,
                    ") needs build-time extents after the batch dimension");
            }
        }
        inputs.push_back(dims);
    }
    DimExpr const* batch = context.nbInputs() > 0 ? context.input(0).shape->front() : context.constant(1);
    for (int32_t o = 0; o < nbOutputs; ++o)
    {
        Dims const dims = params.plugin->getOutputDimensions(o, inputs.data(), static_cast<int32_t>(inputs.size()));
        if (dims.nbDims < 0 || dims.nbDims >= Dims::MAX_DIMS)
        {
            return context.error(who, ": getOutputDimensions(", o, ") returned ", dims.nbDims, " dimensions; 0 to ",
                Dims::MAX_DIMS - 1, " are possible after the batch dimension");
        }
        SymbolicDims out{batch};
        for (int32_t d = 0; d < dims.nbDims; ++d)
        {
            if (dims.d[d] < 0)
            {
                return context.error(who, ": getOutputDimensions(", o, ") returned ", dims, "; extents are at least 0");
            }
            out.push_back(context.constant(dims.d[d]));
        }
        results.push_back(SymbolicTensor{std::move(out), std::nullopt, {}});
    }
    return context.finish(std::move(results));
}

} // namespace kiln
