// SPDX-License-Identifier: Apache-2.0
// The V3 plugin layer. The network keeps its own clone of the application's plugin (made with clone(), deleted
// through IPluginV3* with the network) and reads the outputs through the clone's build capability, found with
// getCapabilityInterface(kBUILD) and recognised by its interface kind "PLUGIN_V3ONE_BUILD", never by RTTI; a Quick
// plugin's ("PLUGIN_V3QUICK_BUILD" or "PLUGIN_V3QUICKAOT_BUILD") through an adapter the layer keeps
// (plugin/plugin_quick.h). Data inputs come first among the layer's inputs, then the shape inputs (which only
// getOutputShapes sees).
#include "network/checks.h"
#include "network/network.h"
#include "network/shape_inference.h"
#include "network/shape_rules.h"
#include "plugin/plugin_quick.h"

#include <algorithm>
#include <optional>

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
    //! What getOutputShapes() gives for the inputs' shapes as the network knows them so far: extents that are
    //! constants, -1 for those that depend on dynamic input extents (as TensorRT reports plugin outputs). An unknown
    //! rank when the network's shapes cannot be inferred yet.
    Dims outputDims(int32_t index) const noexcept { return inferredOutputDims(index); }
    void inputChanged(int32_t index) noexcept
    {
        PluginV3Params& params = edit();
        if (index >= params.nbInputs)
        {
            return;
        }
        mLayer.reporter().guard("ILayer::setInput", 0, [&] {
            std::vector<DataType> inputTypes;
            std::vector<int32_t> ranks;
            for (int32_t i = 0; i < params.nbInputs; ++i)
            {
                inputTypes.push_back(inputType(i));
                ranks.push_back(inputDims(i).nbDims);
            }
            if (params.quick != nullptr)
            {
                params.quick->setInputRanks(std::move(ranks));
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
    PluginV3Params const& p() const noexcept { return mLayer.paramsAs<PluginV3Params>(); }
    //! The parameters, to change: the layer's outputs are then computed again (Layer::editParams).
    PluginV3Params& edit() noexcept { return mLayer.editParams<PluginV3Params>(); }
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
    bool const quickCore = core != nullptr && isQuickKind(core->getInterfaceInfo(), kQuickCoreKind);
    if (core == nullptr || (!quickCore && !hasKind(*core, kCoreKind, 1, 1)))
    {
        return network.fail(kWhere, "the plugin has no core capability: getCapabilityInterface(kCORE) returned ",
            core == nullptr ? "null"
                            : "an interface that reports neither \"PLUGIN_V3ONE_CORE\" nor \"PLUGIN_V3QUICK_CORE\" "
                              "version 1");
    }
    char const* name = nullptr;
    char const* version = nullptr;
    char const* pluginNamespace = nullptr;
    if (quickCore)
    {
        auto const* identityOf = static_cast<nvinfer1::IPluginV3QuickCore const*>(core);
        name = identityOf->getPluginName();
        version = identityOf->getPluginVersion();
        pluginNamespace = identityOf->getPluginNamespace();
    }
    else
    {
        auto const* identityOf = static_cast<nvinfer1::IPluginV3OneCore const*>(core);
        name = identityOf->getPluginName();
        version = identityOf->getPluginVersion();
        pluginNamespace = identityOf->getPluginNamespace();
    }
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
    nvinfer1::InterfaceInfo const buildInfo = build->getInterfaceInfo();
    std::shared_ptr<QuickAdapters> quick;
    IPluginV3OneBuild* buildCapability = nullptr;
    if (isQuickKind(buildInfo, kQuickBuildKind) || isQuickKind(buildInfo, kQuickAotBuildKind))
    {
        quick = std::make_shared<QuickAdapters>(*clone, "INetworkDefinition::addPluginV3: " + described);
        buildCapability = quick->build(*static_cast<nvinfer1::IPluginV3QuickBuild*>(build));
        std::vector<int32_t> ranks;
        for (Tensor const* tensor : *data)
        {
            ranks.push_back(tensor->dims().nbDims);
        }
        quick->setInputRanks(std::move(ranks));
    }
    else if (hasKind(*build, kBuildKind, 1, 2))
    {
        buildCapability = static_cast<IPluginV3OneBuild*>(build);
    }
    else
    {
        return network.fail(kWhere, described, ": the build capability reports interface ", quotedText(buildInfo.kind),
            " version ", buildInfo.major,
            "; kiln accepts \"PLUGIN_V3ONE_BUILD\" versions 1 and 2, \"PLUGIN_V3QUICK_BUILD\" and "
            "\"PLUGIN_V3QUICKAOT_BUILD\"");
    }
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
    params.quick = std::move(quick);
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

// The symbolic shape rule (network/shape_rules.h).
namespace
{

//! dims as plugins see them; nullopt above Dims::MAX_DIMS extents.
std::optional<nvinfer1::DimsExprs> toDimsExprs(SymbolicDims const& dims) noexcept
{
    if (dims.size() > static_cast<std::size_t>(Dims::MAX_DIMS))
    {
        return std::nullopt;
    }
    nvinfer1::DimsExprs result{};
    result.nbDims = static_cast<int32_t>(dims.size());
    for (std::size_t i = 0; i < dims.size(); ++i)
    {
        result.d[i] = dims[i];
    }
    return result;
}

//! The nodes behind what a plugin returned for output index, or the error.
Expected<SymbolicDims> fromDimsExprs(ShapeRuleContext& context, std::string const& who, char const* method,
    nvinfer1::DimsExprs const& dims, int32_t index)
{
    if (dims.nbDims < 0 || dims.nbDims > Dims::MAX_DIMS)
    {
        return context.error(who, ": ", method, " gave output ", index, " ", dims.nbDims,
            " dimensions; outputs have 0 to ", Dims::MAX_DIMS);
    }
    SymbolicDims result;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        DimExpr const* node = context.exprs().find(dims.d[i]);
        if (node == nullptr)
        {
            return context.error(who, ": ", method, " gave extent ", i, " of output ", index,
                " an expression that is neither an input's nor made by the IExprBuilder");
        }
        result.push_back(node);
    }
    return result;
}

} // namespace

Expected<std::vector<SymbolicTensor>> inferOutputShapes(PluginV3Params const& params, ShapeRuleContext& context)
{
    std::string const who = describeIdentity(params.identity);
    std::vector<nvinfer1::DimsExprs> inputs;
    std::vector<nvinfer1::DimsExprs> shapeInputs;
    for (int32_t i = 0; i < context.nbInputs(); ++i)
    {
        SymbolicTensor const& input = context.input(i);
        bool const isShape = i >= params.nbInputs;
        if (!input.present() || (isShape && !input.values))
        {
            return context.error(who, ": the ", isShape ? "values of shape input " : "shape of input ",
                isShape ? i - params.nbInputs : i, " are not known symbolically");
        }
        auto dims = toDimsExprs(isShape ? *input.values : *input.shape);
        if (!dims)
        {
            return context.error(who, ": input ", i, " has more than ", Dims::MAX_DIMS,
                isShape ? " values; getOutputShapes() sees at most that many" : " dimensions");
        }
        (isShape ? shapeInputs : inputs).push_back(*dims);
    }
    int32_t const nbOutputs = context.nbOutputs();
    std::vector<nvinfer1::DimsExprs> outputs(static_cast<std::size_t>(nbOutputs), nvinfer1::DimsExprs{-1, {}});
    PluginExprBuilder builder(context.exprs(), context.layerName());
    int32_t const status = params.build->getOutputShapes(inputs.data(), static_cast<int32_t>(inputs.size()),
        shapeInputs.data(), static_cast<int32_t>(shapeInputs.size()), outputs.data(), nbOutputs, builder);
    if (!builder.errors().empty())
    {
        std::string joined;
        for (std::string const& error : builder.errors())
        {
            joined += (joined.empty() ? "" : "; ") + error;
        }
        return context.error(who, ": getOutputShapes(): ", joined);
    }
    if (status != 0)
    {
        return context.error(who, ": getOutputShapes() returned status ", status);
    }
    std::vector<SymbolicTensor> results;
    for (int32_t i = 0; i < nbOutputs; ++i)
    {
        auto dims = fromDimsExprs(context, who, "getOutputShapes()", outputs[static_cast<std::size_t>(i)], i);
        if (!dims)
        {
            return dims.error();
        }
        results.push_back(SymbolicTensor{std::move(dims.value()), std::nullopt, {}});
    }
    // A size tensor is a 0-D output whose one value is its size-tensor symbol.
    for (auto const& [index, symbol] : builder.sizeTensors())
    {
        if (index < 0 || index >= nbOutputs)
        {
            return context.error(
                who, ": declareSizeTensor() named output ", index, "; the plugin has ", nbOutputs, " outputs");
        }
        SymbolicTensor& output = results[static_cast<std::size_t>(index)];
        if (!output.shape->empty())
        {
            return context.error(who, ": output ", index, " is declared a size tensor but has shape ",
                context.str(*output.shape), "; a size tensor is 0-D");
        }
        output.values = SymbolicDims{symbol};
    }
    return context.finish(std::move(results));
}

} // namespace kiln
