// SPDX-License-Identifier: Apache-2.0
#include "onnx/importers/plugin.h"

#include "onnx/importers/helpers.h"
#include "onnx/weights.h"
#include "plugin/plugin_lookup.h"

#include <onnx/defs/schema.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <set>

namespace kiln::onnx_import
{

namespace
{

using nvinfer1::IPluginCreator;
using nvinfer1::IPluginCreatorInterface;
using nvinfer1::IPluginCreatorV3One;
using nvinfer1::PluginField;
using nvinfer1::PluginFieldCollection;
using nvinfer1::PluginFieldType;

enum class CreatorKind
{
    kV1,
    kV3One,
    kV3Quick, //!< IPluginCreatorV3Quick (tensorrt.plugin): created from the op type and namespace, with a request.
};

//! The creator's kind from its interface info; other kinds fail naming the plugin.
CreatorKind creatorKind(IPluginCreatorInterface const& creator, PluginMatch const& match)
{
    char const* kind = creator.getInterfaceInfo().kind;
    require(kind != nullptr, ErrorCode::kUNSUPPORTED_NODE, "the creator of plugin \"", match.name, "\" version \"",
        match.version, "\" namespace \"", match.pluginNamespace, "\" reports an interface kind of NULL");
    if (std::strcmp(kind, "PLUGIN CREATOR_V1") == 0)
    {
        return CreatorKind::kV1;
    }
    if (std::strcmp(kind, "PLUGIN CREATOR_V3ONE") == 0)
    {
        return CreatorKind::kV3One;
    }
    if (std::strcmp(kind, "PLUGIN CREATOR_V3QUICK") == 0)
    {
        return CreatorKind::kV3Quick;
    }
    fail(ErrorCode::kUNSUPPORTED_NODE, "the creator of plugin \"", match.name, "\" version \"", match.version,
        "\" namespace \"", match.pluginNamespace, "\" has interface kind \"", kind,
        "\"; kiln imports PLUGIN CREATOR_V1, PLUGIN CREATOR_V3ONE and PLUGIN CREATOR_V3QUICK creators");
    unreachableAfterFail();
}

//! What a Quick creator is asked for: the node's int attribute aot (non-zero kSTRICT_AOT, zero kSTRICT_JIT), else the
//! network's PREFER_*_PYTHON_PLUGINS flag (both set fails the node), else kUNKNOWN.
nvinfer1::QuickPluginCreationRequest quickRequest(ImportContext& ctx, Node const& node)
{
    using Request = nvinfer1::QuickPluginCreationRequest;
    if (node.attrs.has("aot"))
    {
        return node.attrs.get<int64_t>("aot", 0) != 0 ? Request::kSTRICT_AOT : Request::kSTRICT_JIT;
    }
    bool const preferAot = ctx.network().getFlag(nvinfer1::NetworkDefinitionCreationFlag::kPREFER_AOT_PYTHON_PLUGINS);
    bool const preferJit = ctx.network().getFlag(nvinfer1::NetworkDefinitionCreationFlag::kPREFER_JIT_PYTHON_PLUGINS);
    require(!(preferAot && preferJit), ErrorCode::kUNSUPPORTED_GRAPH, "node ", node.name(),
        ": the network has both kPREFER_AOT_PYTHON_PLUGINS and kPREFER_JIT_PYTHON_PLUGINS; a Quick plugin's creator "
        "needs one preference");
    return preferAot ? Request::kPREFER_AOT : preferJit ? Request::kPREFER_JIT : Request::kUNKNOWN;
}

//! The registered creator with exactly this name, version and namespace (the registry and its parents), or nullptr.
//! A scan of the listing, not getCreator, which would log each miss as an error.
IPluginCreatorInterface* findCreator(
    ImportContext& ctx, std::string const& name, std::string const& version, std::string const& pluginNamespace)
{
    return findCreatorQuietly(ctx.network().getBuilder().getPluginRegistry(), {name, version, pluginNamespace});
}

//! What the builder's registry holds near the plugin looked up, and the plugin libraries loaded.
std::string nearMisses(ImportContext& ctx, PluginMatch const& match)
{
    return describeNearMisses(
        ctx.network().getBuilder().getPluginRegistry(), {match.name, match.version, match.pluginNamespace});
}

//! Records the plugin library the node's creator comes from, for IParser::getUsedVCPluginLibraries.
void recordPluginLibrary(ImportContext& ctx, Node const& node, PluginMatch const& match, bool standard)
{
    std::string const library = pluginLibraryOf(*match.creator);
    std::string const plugin = concat(
        "plugin \"", match.name, "\" version \"", match.version, "\" namespace \"", match.pluginNamespace, "\"");
    if (!library.empty())
    {
        ctx.usePluginLibrary(library);
        ctx.log(Severity::kVERBOSE, concat("node ", node.name(), " needs ", plugin, ", from plugin library ", library));
    }
    else if (standard)
    {
        ctx.info("node ", node.name(), " needs ", plugin, ", whose creator is part of the program, not of a plugin ",
            "library: getUsedVCPluginLibraries does not list it");
    }
}

//! What becomes of an attribute's values on the way to its field: "as is", or the conversion.
char const* conversionOf(::onnx::AttributeProto const& attribute)
{
    using ::onnx::AttributeProto;
    switch (attribute.type())
    {
    case AttributeProto::INT:
    case AttributeProto::INTS: return "each value narrowed from int64 to int32";
    case AttributeProto::STRINGS: return "the strings joined, each ending in a NUL";
    case AttributeProto::TENSOR:
        return attribute.t().data_type() == ::onnx::TensorProto::DOUBLE ? "converted from DOUBLE to float" : "as is";
    default: return "as is";
    }
}

//! Whether the plugin of that name takes INT32 where ONNX models hold INT64: TensorRT's parser casts those inputs of
//! its nodes from INT64 to INT32 (its list of such standard plugins).
bool takesOnlyInt32(std::string const& name)
{
    static char const* const kNames[] = {"CustomQKVToContextPluginDynamic", "EfficientNMS_TRT", "EfficientNMS_ONNX_TRT",
        "EfficientNMS_Implicit_TF_TRT", "EfficientNMS_Explicit_TF_TRT", "VoxelGeneratorPlugin", "ScatterND",
        "ROIAlign_TRT", "PillarScatterPlugin", "MultiscaleDeformableAttnPlugin_TRT", "CustomEmbLayerNormPluginDynamic"};
    return std::any_of(std::begin(kNames), std::end(kNames), [&](char const* known) { return name == known; });
}

//! Attributes the parser itself reads on plugin nodes; they are not meant as plugin fields.
bool isLookupAttribute(std::string const& name)
{
    return name == "plugin_version" || name == "plugin_namespace" || name == "tensorrt_plugin_shape_input_indices";
}

//! The field of one attribute, with its bytes in storage.
PluginField makeField(ImportContext& ctx, char const* fieldName, ::onnx::AttributeProto const& attribute,
    std::vector<std::vector<std::byte>>& storage)
{
    auto store = [&](void const* data, size_t bytes) {
        storage.emplace_back(bytes);
        if (bytes != 0)
        {
            std::memcpy(storage.back().data(), data, bytes);
        }
        return static_cast<void const*>(storage.back().data());
    };
    using ::onnx::AttributeProto;
    switch (attribute.type())
    {
    case AttributeProto::FLOAT:
    {
        float value = attribute.f();
        return PluginField{fieldName, store(&value, sizeof value), PluginFieldType::kFLOAT32, 1};
    }
    case AttributeProto::INT:
    {
        int32_t value = Attributes::read<int32_t>(attribute);
        return PluginField{fieldName, store(&value, sizeof value), PluginFieldType::kINT32, 1};
    }
    case AttributeProto::STRING:
    {
        std::string const& s = attribute.s();
        void const* data = store(s.c_str(), s.size() + 1);
        return PluginField{fieldName, data, PluginFieldType::kCHAR, static_cast<int32_t>(s.size() + 1)};
    }
    case AttributeProto::FLOATS:
    {
        std::vector<float> values = Attributes::read<std::vector<float>>(attribute);
        return PluginField{fieldName, store(values.data(), values.size() * sizeof(float)), PluginFieldType::kFLOAT32,
            static_cast<int32_t>(values.size())};
    }
    case AttributeProto::INTS:
    {
        std::vector<int32_t> values = Attributes::read<std::vector<int32_t>>(attribute);
        return PluginField{fieldName, store(values.data(), values.size() * sizeof(int32_t)), PluginFieldType::kINT32,
            static_cast<int32_t>(values.size())};
    }
    case AttributeProto::STRINGS:
    {
        std::string all;
        for (std::string const& s : attribute.strings())
        {
            all += s;
            all.push_back('\0');
        }
        return PluginField{
            fieldName, store(all.data(), all.size()), PluginFieldType::kCHAR, static_cast<int32_t>(all.size())};
    }
    case AttributeProto::TENSOR:
    {
        ShapedWeights weights = importTensor(ctx, attribute.t());
        PluginFieldType type{};
        switch (weights.type)
        {
        case DataType::kFLOAT: type = PluginFieldType::kFLOAT32; break;
        case DataType::kHALF: type = PluginFieldType::kFLOAT16; break;
        case DataType::kBF16: type = PluginFieldType::kBF16; break;
        case DataType::kINT8: type = PluginFieldType::kINT8; break;
        case DataType::kINT32: type = PluginFieldType::kINT32; break;
        case DataType::kINT64: type = PluginFieldType::kINT64; break;
        default:
            fail(ErrorCode::kUNSUPPORTED_NODE_ATTR, "attribute '", attribute.name(), "' is a tensor of type ",
                onnxTypeName(attribute.t().data_type()), ", which has no plugin field type");
        }
        require(weights.count <= INT32_MAX, ErrorCode::kUNSUPPORTED_NODE_ATTR, "attribute '", attribute.name(),
            "' has too many elements for a plugin field");
        return PluginField{fieldName, weights.data, type, static_cast<int32_t>(weights.count)};
    }
    default:
        fail(ErrorCode::kUNSUPPORTED_NODE_ATTR, "attribute '", attribute.name(), "' is of type ",
            attributeTypeName(attribute.type()), ", which cannot become a plugin field");
    }
    unreachableAfterFail();
}

//! The input indices that are shape inputs (V3 only), normalised and checked.
std::set<size_t> shapeInputIndices(ImportContext& ctx, Node const& node, CreatorKind kind)
{
    std::set<size_t> indices;
    ::onnx::AttributeProto const* attribute = node.attrs.find("tensorrt_plugin_shape_input_indices");
    if (attribute == nullptr)
    {
        return indices;
    }
    if (kind == CreatorKind::kV1)
    {
        ctx.warn("node ", node.name(),
            " has shape input indices, but its plugin creator is for an IPluginV2 plugin; "
            "the indices are ignored");
        return indices;
    }
    require(attribute->type() == ::onnx::AttributeProto::INTS, ErrorCode::kUNSUPPORTED_NODE,
        "attribute tensorrt_plugin_shape_input_indices is of type ", attributeTypeName(attribute->type()),
        "; it must be INTS");
    auto const n = static_cast<int64_t>(node.inputCount());
    for (int64_t index : attribute->ints())
    {
        require(index >= -n && index < n, ErrorCode::kUNSUPPORTED_NODE, "shape input index ", index,
            " is out of range for a node with ", n, " inputs");
        auto normalised = static_cast<size_t>(index < 0 ? index + n : index);
        if (!indices.insert(normalised).second)
        {
            ctx.warn("node ", node.name(), " lists shape input index ", index, " more than once");
        }
    }
    return indices;
}

//! Loads kiln's standard plugin library and calls its initLibNvInferPlugins(nullptr, "") the first time it is called
//! in the process; returns why that failed (empty when it worked), the same answer every time. With no logger the
//! library logs through getLogger() at each message: the logger current when the library loaded (a builder's, which
//! its owner may destroy) would be kept for the rest of the process.
std::string const& loadStandardPlugins()
{
    static std::once_flag once;
    static std::string problem;
    std::call_once(once, [] {
        constexpr char const* kLibrary = "libnvinfer_plugin.so.10";
        // First beside libkiln (the build tree and an installed kiln keep them in one folder), then the library path.
        std::vector<std::string> candidates;
        Dl_info info{};
        if (dladdr(reinterpret_cast<void const*>(&getPluginRegistry), &info) != 0 && info.dli_fname != nullptr)
        {
            std::string const path = info.dli_fname;
            std::size_t const slash = path.find_last_of('/');
            if (slash != std::string::npos)
            {
                candidates.push_back(path.substr(0, slash + 1) + kLibrary);
            }
        }
        candidates.emplace_back(kLibrary);
        void* handle = nullptr;
        for (std::string const& candidate : candidates)
        {
            handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_GLOBAL);
            if (handle != nullptr)
            {
                break;
            }
            char const* error = dlerror();
            problem = error != nullptr ? error : candidate + " could not be loaded";
        }
        if (handle == nullptr)
        {
            return;
        }
        using InitFunction = bool (*)(void*, char const*);
        auto* init = reinterpret_cast<InitFunction>(dlsym(handle, "initLibNvInferPlugins"));
        if (init == nullptr)
        {
            problem = std::string(kLibrary) + " has no initLibNvInferPlugins";
            return;
        }
        problem.clear();
        init(nullptr, "");
    });
    return problem;
}

} // namespace

nvinfer1::IPluginV3Layer& addStandardPlugin(ImportContext& ctx, Node const& node, char const* name, char const* version,
    std::vector<nvinfer1::PluginField> const& fields, std::vector<nvinfer1::ITensor*> const& inputs)
{
    IPluginCreatorInterface* creator = findCreator(ctx, name, version, "");
    std::string problem;
    if (creator == nullptr)
    {
        problem = loadStandardPlugins();
        creator = findCreator(ctx, name, version, "");
    }
    PluginMatch const match{creator, name, version, "", false, ""};
    if (creator == nullptr)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE, "Plugin not found, are the plugin name, version, and namespace correct? ",
            "kiln imports ", node.proto.op_type(), " as TensorRT's standard plugin \"", name, "\" version \"", version,
            "\" namespace \"\", and no creator is registered under that name",
            problem.empty() ? std::string{} : concat(" (kiln's standard plugin library did not load: ", problem, ")"),
            ". Call initLibNvInferPlugins() before parsing, or register a creator of that name, version and "
            "namespace. ",
            nearMisses(ctx, match));
    }
    recordPluginLibrary(ctx, node, match, true);
    require(creatorKind(*creator, match) == CreatorKind::kV3One, ErrorCode::kUNSUPPORTED_NODE,
        "the creator of plugin \"", name, "\" version \"", version,
        "\" is not an IPluginCreatorV3One; TensorRT's standard ", name, " is an IPluginV3");
    PluginFieldCollection const collection{static_cast<int32_t>(fields.size()), fields.data()};
    std::string const layerName = node.name();
    nvinfer1::IPluginV3* plugin = static_cast<IPluginCreatorV3One*>(creator)->createPlugin(
        layerName.c_str(), &collection, nvinfer1::TensorRTPhase::kBUILD);
    require(plugin != nullptr, ErrorCode::kUNSUPPORTED_NODE, "Could not create the plugin: the creator of plugin \"",
        name, "\" version \"", version, "\" namespace \"\" returned nullptr from createPlugin (its error is logged)");
    ctx.keep(std::shared_ptr<void const>(
        plugin, [](void const* p) { delete static_cast<nvinfer1::IPluginV3*>(const_cast<void*>(p)); }));
    std::vector<nvinfer1::ITensor*> tensors = inputs;
    nvinfer1::IPluginV3Layer* layer
        = ctx.network().addPluginV3(tensors.data(), static_cast<int32_t>(tensors.size()), nullptr, 0, *plugin);
    require(layer != nullptr, ErrorCode::kUNSUPPORTED_NODE, "Could not add the plugin layer for plugin \"", name,
        "\" version \"", version, "\"; the network's error is logged");
    ctx.added(layer);
    return *layer;
}

PluginMatch findNodePlugin(ImportContext& ctx, ::onnx::NodeProto const& node, Attributes const& attrs, bool withDomain)
{
    PluginMatch match;
    match.name = node.op_type();
    match.version = attrs.get<std::string>("plugin_version", "1");
    match.pluginNamespace = attrs.get<std::string>("plugin_namespace", "");
    match.creator = findCreator(ctx, match.name, match.version, match.pluginNamespace);
    if (match.creator == nullptr && withDomain && node.domain() != match.pluginNamespace)
    {
        IPluginCreatorInterface* creator = findCreator(ctx, match.name, match.version, node.domain());
        if (creator != nullptr)
        {
            match.creator = creator;
            match.attributeNamespace = match.pluginNamespace;
            match.pluginNamespace = node.domain();
            match.viaDomain = true;
        }
    }
    return match;
}

std::string describeNodePluginNearMisses(ImportContext& ctx, ::onnx::NodeProto const& node, Attributes const& attrs)
{
    return nearMisses(ctx, findNodePlugin(ctx, node, attrs, false));
}

void checkPluginNode(ImportContext& ctx, ::onnx::NodeProto const& node, Attributes const& attrs)
{
    PluginMatch match = findNodePlugin(ctx, node, attrs);
    if (match.creator != nullptr)
    {
        return;
    }
    bool const onnxDomain = node.domain().empty() || node.domain() == "ai.onnx";
    if (onnxDomain && ::onnx::OpSchemaRegistry::Schema(node.op_type(), "") != nullptr)
    {
        // A standard ONNX op kiln has no importer for: say so, rather than only that no plugin was found.
        fail(ErrorCode::kUNSUPPORTED_NODE, "kiln does not support the ONNX op ", node.op_type(),
            " yet, and no plugin replaces it: no creator is registered as plugin \"", match.name, "\" version \"",
            match.version, "\" namespace \"", match.pluginNamespace,
            "\". Register a plugin of that name (it is "
            "used for nodes of this op type), or replace the node in the model. ",
            nearMisses(ctx, match));
    }
    std::string domainPart = node.domain() != match.pluginNamespace
        ? concat(" nor under namespace \"", node.domain(), "\" (the node's domain)")
        : std::string{};
    fail(ErrorCode::kINVALID_NODE, "Plugin not found, are the plugin name, version, and namespace correct? ",
        "kiln has no importer for op type ", node.op_type(), ", so it looked for a plugin creator: none is registered ",
        "as plugin \"", match.name, "\" version \"", match.version, "\" namespace \"", match.pluginNamespace, "\"",
        domainPart, ". Register the creator before parsing (REGISTER_TENSORRT_PLUGIN, ",
        "IPluginRegistry::registerCreator, or IPluginRegistry::loadLibrary on the builder's registry), or set the ",
        "node's plugin_version and plugin_namespace attributes to the creator's. ", nearMisses(ctx, match));
}

void warnIgnoredPluginAttributes(ImportContext& ctx, Node const& node, std::string const& importedAs)
{
    bool const asked
        = ctx.flag(nvonnxparser::OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE) || node.attrs.has("plugin_namespace");
    for (char const* name : {"plugin_version", "plugin_namespace"})
    {
        ::onnx::AttributeProto const* attribute = node.attrs.find(name);
        if (attribute == nullptr)
        {
            continue;
        }
        std::string why;
        if (asked)
        {
            PluginMatch const match = findNodePlugin(ctx, node.proto, node.attrs, false);
            why = concat("no creator is registered as plugin \"", match.name, "\" version \"", match.version,
                "\" namespace \"", match.pluginNamespace, "\"",
                node.proto.domain() != match.pluginNamespace
                    ? concat(" nor under namespace \"", node.proto.domain(), "\" (the node's domain)")
                    : std::string{},
                ". ", nearMisses(ctx, match));
        }
        else
        {
            why = "a plugin replaces an op kiln imports only when the node has a plugin_namespace attribute or the "
                  "parser has OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE";
        }
        ctx.warn("node ", node.name(), " is imported as ", importedAs, "; its attribute ", name, " (\"", attribute->s(),
            "\") is ignored: ", why);
    }
}

std::vector<Value> importPluginNode(ImportContext& ctx, Node& node)
{
    PluginMatch match = findNodePlugin(ctx, node.proto, node.attrs);
    if (match.creator == nullptr)
    {
        checkPluginNode(ctx, node.proto, node.attrs); // fails with the full message
    }
    std::string const described = concat(
        "plugin \"", match.name, "\" version \"", match.version, "\" namespace \"", match.pluginNamespace, "\"");
    ctx.info("importing node ", node.name(), " as ", described);
    if (match.viaDomain && node.attrs.has("plugin_namespace"))
    {
        // TensorRT's parser tries the domain only in its parse-time check, so it would fail this node at import.
        ctx.warn("node ", node.name(), ": attribute plugin_namespace (\"", match.attributeNamespace,
            "\") is ignored: no creator is registered under that namespace, so kiln uses the one registered under ",
            "the node's domain, ", described);
    }
    CreatorKind const kind = creatorKind(*match.creator, match);
    recordPluginLibrary(ctx, node, match, false);

    // Fields: only those the creator declares, in its order, from the attributes of the same names.
    PluginFieldCollection const* declared = kind == CreatorKind::kV1
        ? static_cast<IPluginCreator*>(match.creator)->getFieldNames()
        : kind == CreatorKind::kV3Quick ? static_cast<nvinfer1::IPluginCreatorV3Quick*>(match.creator)->getFieldNames()
                                        : static_cast<IPluginCreatorV3One*>(match.creator)->getFieldNames();
    std::vector<PluginField> fields;
    std::vector<std::vector<std::byte>> storage;
    std::vector<std::string> fieldNames; // in the creator's order
    for (int32_t i = 0; declared != nullptr && declared->fields != nullptr && i < declared->nbFields; ++i)
    {
        PluginField const& field = declared->fields[i];
        if (field.name == nullptr)
        {
            continue;
        }
        fieldNames.emplace_back(field.name);
        ::onnx::AttributeProto const* attribute = node.attrs.find(field.name);
        if (attribute == nullptr)
        {
            ctx.warn("node ", node.name(), ": plugin field '", field.name, "' has no attribute of that name; the ",
                "plugin gets no value for it (its creator's default, if any)");
            continue;
        }
        fields.push_back(makeField(ctx, field.name, *attribute, storage));
        // As in TensorRT's parser, the attribute's ONNX type decides the field's type, whatever the creator declares.
        if (field.type != PluginFieldType::kUNKNOWN && field.type != fields.back().type)
        {
            ctx.warn("node ", node.name(), ": attribute '", field.name, "' (", attributeTypeName(attribute->type()),
                ") is passed to field '", field.name, "' as ", fieldTypeName(fields.back().type), " (",
                conversionOf(*attribute), "), but the creator of ", described, " declares the field ",
                fieldTypeName(field.type));
        }
    }
    for (auto const& [name, attribute] : node.attrs.all())
    {
        bool const request = kind == CreatorKind::kV3Quick && name == "aot"; // JIT or AOT, read below
        if (std::find(fieldNames.begin(), fieldNames.end(), name) == fieldNames.end() && !isLookupAttribute(name)
            && !request)
        {
            std::string declaredList;
            for (std::string const& fieldName : fieldNames)
            {
                declaredList += (declaredList.empty() ? "" : ", ") + fieldName;
            }
            ctx.warn("node ", node.name(), ": attribute '", name, "' is ignored: it is not a field of ", described,
                " (its creator declares ", fieldNames.empty() ? std::string("no fields") : declaredList, ")");
        }
    }
    PluginFieldCollection collection{static_cast<int32_t>(fields.size()), fields.data()};

    std::set<size_t> const shapeIndices = shapeInputIndices(ctx, node, kind);
    std::vector<nvinfer1::ITensor*> inputs;
    std::vector<nvinfer1::ITensor*> shapeInputs;
    for (size_t i = 0; i < node.inputCount(); ++i)
    {
        nvinfer1::ITensor* tensor = node.has(i) ? &ctx.tensor(node.inputs[i]) : nullptr;
        if (tensor != nullptr && tensor->getType() == nvinfer1::DataType::kINT64 && takesOnlyInt32(match.name))
        {
            tensor = &castTo(ctx, *tensor, nvinfer1::DataType::kINT32);
        }
        (shapeIndices.count(i) != 0 ? shapeInputs : inputs).push_back(tensor);
    }

    std::string const layerName = node.name();
    nvinfer1::ILayer* layer = nullptr;
    if (kind == CreatorKind::kV1)
    {
        auto* creator = static_cast<IPluginCreator*>(match.creator);
        nvinfer1::IPluginV2* plugin = creator->createPlugin(layerName.c_str(), &collection);
        require(plugin != nullptr, ErrorCode::kUNSUPPORTED_NODE,
            "Could not create the plugin: the creator of plugin \"", match.name, "\" version \"", match.version,
            "\" namespace \"", match.pluginNamespace, "\" returned nullptr from createPlugin");
        ctx.keep(std::shared_ptr<void const>(
            plugin, [](void const* p) { static_cast<nvinfer1::IPluginV2*>(const_cast<void*>(p))->destroy(); }));
        KILN_IGNORE_DEPRECATED_BEGIN
        layer = ctx.network().addPluginV2(inputs.data(), static_cast<int32_t>(inputs.size()), *plugin);
        KILN_IGNORE_DEPRECATED_END
    }
    else
    {
        nvinfer1::IPluginV3* plugin = kind == CreatorKind::kV3Quick
            ? static_cast<nvinfer1::IPluginCreatorV3Quick*>(match.creator)
                  ->createPlugin(match.name.c_str(), match.pluginNamespace.c_str(), &collection,
                      nvinfer1::TensorRTPhase::kBUILD, quickRequest(ctx, node))
            : static_cast<IPluginCreatorV3One*>(match.creator)
                  ->createPlugin(layerName.c_str(), &collection, nvinfer1::TensorRTPhase::kBUILD);
        require(plugin != nullptr, ErrorCode::kUNSUPPORTED_NODE,
            "Could not create the plugin: the creator of plugin \"", match.name, "\" version \"", match.version,
            "\" namespace \"", match.pluginNamespace, "\" returned nullptr from createPlugin");
        ctx.keep(std::shared_ptr<void const>(
            plugin, [](void const* p) { delete static_cast<nvinfer1::IPluginV3*>(const_cast<void*>(p)); }));
        layer = ctx.network().addPluginV3(inputs.data(), static_cast<int32_t>(inputs.size()), shapeInputs.data(),
            static_cast<int32_t>(shapeInputs.size()), *plugin);
    }
    require(layer != nullptr, ErrorCode::kUNSUPPORTED_NODE, "Could not add the plugin layer for plugin \"", match.name,
        "\" version \"", match.version, "\" namespace \"", match.pluginNamespace, "\"; the network's error is logged");
    ctx.added(layer);

    int32_t const nbOutputs = layer->getNbOutputs();
    require(
        nbOutputs == node.proto.output_size() - std::count(node.proto.output().begin(), node.proto.output().end(), ""),
        ErrorCode::kINVALID_GRAPH, "plugin \"", match.name, "\" version \"", match.version, "\" namespace \"",
        match.pluginNamespace, "\" has ", nbOutputs, " outputs, but the node has ", node.outputCount());
    std::vector<Value> outputs;
    for (int32_t i = 0; i < nbOutputs; ++i)
    {
        outputs.push_back(Value::tensor(*layer->getOutput(i)));
    }
    return outputs;
}

} // namespace kiln::onnx_import
