// SPDX-License-Identifier: Apache-2.0
#include "inspect.h"

#include "engine_build.h"
#include "field_set.h"
#include "files.h"
#include "logger.h"
#include "options.h"
#include "plugin_library.h"
#include "refit.h"
#include "specs.h"
#include "values.h"

#include "NvInfer.h"
#include "NvOnnxParser.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <memory>
#include <tuple>

namespace kiln_tool
{
namespace
{

using nlohmann::json;
using namespace nvinfer1;

json dimsJson(Dims const& dims)
{
    json list = json::array();
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        list.push_back(dims.d[i]);
    }
    return list;
}

std::string text(json const& value)
{
    return value.is_string() ? value.get<std::string>() : value.dump();
}

//! "a x b x c" of a JSON list of extents ("scalar" for none).
std::string shapeText(json const& dims)
{
    if (dims.empty())
    {
        return "scalar";
    }
    std::string shape;
    for (json const& extent : dims)
    {
        shape += (shape.empty() ? "" : "x") + text(extent);
    }
    return shape;
}

//! Adds a plugin creator to inventory (keyed by name, version, namespace), counting the layer that needs it.
void addToInventory(json& inventory, std::string const& name, std::string const& version,
    std::string const& pluginNamespace, std::string const& interface, std::string const& layer)
{
    for (json& entry : inventory)
    {
        if (entry["name"] == name && entry["version"] == version && entry["namespace"] == pluginNamespace)
        {
            entry["layers"].push_back(layer);
            return;
        }
    }
    inventory.push_back({{"name", name}, {"version", version}, {"namespace", pluginNamespace}, {"interface", interface},
        {"layers", json::array({layer})}});
}

// ---- Plans ------------------------------------------------------------------------------------------------------

json inspectPlan(std::string const& path, bool allowEngineHostCode)
{
    std::vector<char> const plan = readFile(path, "inspect");
    std::unique_ptr<IRuntime> const runtime{createInferRuntime(logger())};
    if (runtime != nullptr)
    {
        runtime->setEngineHostCodeAllowed(allowEngineHostCode);
    }
    std::unique_ptr<ICudaEngine> const engine{
        runtime != nullptr ? runtime->deserializeCudaEngine(plan.data(), plan.size()) : nullptr};
    if (engine == nullptr)
    {
        throw Failure("inspect: " + path
            + " is not a plan kiln can load (kiln's error above says why; a plan with plugins needs their libraries: "
              "--staticPlugins, or --allowEngineHostCode for libraries the plan carries)");
    }
    json result{{"kind", "plan"}, {"file", path}, {"bytes", plan.size()}, {"name", engine->getName()},
        {"layers", engine->getNbLayers()}};

    json tensors = json::array();
    for (int32_t i = 0; i < engine->getNbIOTensors(); ++i)
    {
        char const* name = engine->getIOTensorName(i);
        bool const input = engine->getTensorIOMode(name) == TensorIOMode::kINPUT;
        tensors.push_back({{"name", name}, {"mode", input ? "input" : "output"},
            {"type", std::string(typeName(engine->getTensorDataType(name)))},
            {"shape", dimsJson(engine->getTensorShape(name))}, {"format", engine->getTensorFormatDesc(name)},
            {"location", engine->getTensorLocation(name) == TensorLocation::kDEVICE ? "device" : "host"},
            {"shapeTensor", engine->isShapeInferenceIO(name)}});
    }
    result["tensors"] = tensors;

    json profiles = json::array();
    for (int32_t p = 0; p < engine->getNbOptimizationProfiles(); ++p)
    {
        json inputs = json::array();
        for (json const& tensor : tensors)
        {
            if (tensor["mode"] != "input")
            {
                continue;
            }
            std::string const name = tensor["name"];
            inputs.push_back(
                {{"name", name}, {"min", dimsJson(engine->getProfileShape(name.c_str(), p, OptProfileSelector::kMIN))},
                    {"opt", dimsJson(engine->getProfileShape(name.c_str(), p, OptProfileSelector::kOPT))},
                    {"max", dimsJson(engine->getProfileShape(name.c_str(), p, OptProfileSelector::kMAX))}});
        }
        profiles.push_back(
            {{"index", p}, {"deviceMemoryBytes", engine->getDeviceMemorySizeForProfileV2(p)}, {"inputs", inputs}});
    }
    result["profiles"] = profiles;
    result["deviceMemoryBytes"] = engine->getDeviceMemorySizeV2();
    result["refittable"] = engine->isRefittable();
    json refittable = json::array();
    if (engine->isRefittable())
    {
        for (RefittableWeights::ByName const& weights : refittableWeights(*engine).names)
        {
            refittable.push_back(
                {{"name", weights.name}, {"type", std::string(typeName(weights.type))}, {"count", weights.count}});
        }
    }
    result["refittableWeights"] = refittable;

    std::unique_ptr<IEngineInspector> const inspector{engine->createEngineInspector()};
    char const* information
        = inspector != nullptr ? inspector->getEngineInformation(LayerInformationFormat::kJSON) : nullptr;
    json layers = json::array();
    json inventory = json::array();
    json libraries = json::array();
    if (information != nullptr)
    {
        json const described = json::parse(information, nullptr, /*allow_exceptions=*/false);
        if (described.is_object() && described.contains("Layers"))
        {
            layers = described["Layers"];
        }
        // The plugin libraries the plan carries (--setPluginsToSerialize), as the engine inspector lists them.
        if (described.is_object() && described.contains("PluginLibraries"))
        {
            for (json const& library : described["PluginLibraries"])
            {
                json creators = json::array();
                for (json const& creator : library.value("Creators", json::array()))
                {
                    creators.push_back({{"name", creator.value("Name", "")}, {"version", creator.value("Version", "")},
                        {"namespace", creator.value("Namespace", "")}, {"interface", creator.value("Interface", "")},
                        {"usedCreator", creator.value("UsedCreator", "")}});
                }
                libraries.push_back({{"name", library.value("Name", "")}, {"bytes", library.value("Bytes", 0)},
                    {"checksum", library.value("Checksum", "")}, {"loaded", library.value("Loaded", false)},
                    {"creators", creators}});
            }
        }
    }
    for (json const& layer : layers)
    {
        if (layer.contains("Plugin"))
        {
            json const& plugin = layer["Plugin"];
            addToInventory(inventory, plugin.value("Name", ""), plugin.value("Version", ""),
                plugin.value("Namespace", ""), plugin.value("Interface", ""), layer.value("Name", ""));
        }
    }
    for (json& entry : inventory)
    {
        // Which library the plan carries for the creator, if any.
        entry["libraryInPlan"] = false;
        for (json const& library : libraries)
        {
            for (json const& creator : library["creators"])
            {
                if (creator["name"] == entry["name"] && creator["version"] == entry["version"]
                    && creator["namespace"] == entry["namespace"])
                {
                    entry["libraryInPlan"] = true;
                    entry["library"] = library["name"];
                }
            }
        }
    }
    result["layerDetails"] = layers;
    result["plugins"] = inventory;
    result["pluginLibraries"] = libraries;
    return result;
}

void printPlan(json const& r, std::ostream& out)
{
    out << "Plan " << text(r["file"]) << ": " << text(r["bytes"]) << " bytes, engine '" << text(r["name"]) << "', "
        << text(r["layers"]) << " layers\n";
    out << "I/O tensors:\n";
    for (json const& t : r["tensors"])
    {
        out << "  " << text(t["mode"]) << " " << text(t["name"]) << ": " << text(t["type"]) << " "
            << shapeText(t["shape"]) << ", " << text(t["format"]) << ", " << text(t["location"]) << " memory"
            << (t["shapeTensor"].get<bool>() ? ", shape tensor" : "") << "\n";
    }
    out << "Optimization profiles: " << r["profiles"].size() << "\n";
    for (json const& p : r["profiles"])
    {
        out << "  profile " << text(p["index"]) << " (device memory " << text(p["deviceMemoryBytes"]) << " bytes)\n";
        for (json const& input : p["inputs"])
        {
            out << "    " << text(input["name"]) << ": min " << shapeText(input["min"]) << ", opt "
                << shapeText(input["opt"]) << ", max " << shapeText(input["max"]) << "\n";
        }
    }
    out << "Device memory: " << text(r["deviceMemoryBytes"]) << " bytes (the largest profile's)\n";
    if (r["refittable"].get<bool>())
    {
        out << "Refittable: yes (BuilderFlag::kREFIT), " << r["refittableWeights"].size() << " weights\n";
        for (json const& weights : r["refittableWeights"])
        {
            out << "  " << text(weights["name"]) << ": " << text(weights["count"]) << " values of "
                << text(weights["type"]) << "\n";
        }
    }
    else
    {
        out << "Refittable: no (built without BuilderFlag::kREFIT)\n";
    }
    out << "Plugins: " << (r["plugins"].empty() ? "none" : std::to_string(r["plugins"].size()) + " creator(s)") << "\n";
    for (json const& p : r["plugins"])
    {
        out << "  " << text(p["name"]) << " version " << text(p["version"]) << " namespace \"" << text(p["namespace"])
            << "\" (" << text(p["interface"]) << "), " << p["layers"].size() << " layers; "
            << (p["libraryInPlan"].get<bool>()
                       ? "its library travels in the plan: " + text(p["library"])
                       : std::string("its library does not travel in the plan: load it with --staticPlugins"))
            << "\n";
    }
    if (!r["pluginLibraries"].empty())
    {
        out << "Plugin libraries in the plan: " << r["pluginLibraries"].size() << "\n";
        for (json const& library : r["pluginLibraries"])
        {
            out << "  " << text(library["name"]) << ": " << text(library["bytes"]) << " bytes, CRC-64 "
                << text(library["checksum"]) << ", "
                << (library["loaded"].get<bool>() ? "loaded (--allowEngineHostCode)"
                                                  : "not loaded (its creators were registered already)")
                << "\n";
            for (json const& creator : library["creators"])
            {
                out << "    " << text(creator["name"]) << " version " << text(creator["version"]) << " namespace \""
                    << text(creator["namespace"]) << "\" (" << text(creator["interface"]) << "), creator used: "
                    << (creator["usedCreator"] == "plan" ? "the library's" : "one registered already") << "\n";
            }
        }
    }
    out << "Layers:\n";
    for (json const& layer : r["layerDetails"])
    {
        out << "  " << layer.value("Name", "") << " [" << layer.value("LayerType", "") << "]";
        if (layer.contains("TacticName"))
        {
            out << " tactic " << text(layer["TacticName"]);
        }
        out << "\n";
        for (char const* side : {"Inputs", "Outputs"})
        {
            for (json const& tensor : layer.value(side, json::array()))
            {
                out << "    " << (side[0] == 'I' ? "in  " : "out ") << tensor.value("Name", "") << ": "
                    << shapeText(tensor.value("Dimensions", json::array())) << " "
                    << tensor.value("Format/Datatype", "") << "\n";
            }
        }
    }
}

// ---- ONNX models ------------------------------------------------------------------------------------------------

//! The LayerType's enumerator name ("kCONVOLUTION").
std::string layerTypeName(LayerType type)
{
    static std::map<LayerType, std::string> const names{{LayerType::kCONVOLUTION, "kCONVOLUTION"},
        {LayerType::kCAST, "kCAST"}, {LayerType::kACTIVATION, "kACTIVATION"}, {LayerType::kPOOLING, "kPOOLING"},
        {LayerType::kLRN, "kLRN"}, {LayerType::kSCALE, "kSCALE"}, {LayerType::kSOFTMAX, "kSOFTMAX"},
        {LayerType::kDECONVOLUTION, "kDECONVOLUTION"}, {LayerType::kCONCATENATION, "kCONCATENATION"},
        {LayerType::kELEMENTWISE, "kELEMENTWISE"}, {LayerType::kPLUGIN, "kPLUGIN"}, {LayerType::kUNARY, "kUNARY"},
        {LayerType::kPADDING, "kPADDING"}, {LayerType::kSHUFFLE, "kSHUFFLE"}, {LayerType::kREDUCE, "kREDUCE"},
        {LayerType::kTOPK, "kTOPK"}, {LayerType::kGATHER, "kGATHER"}, {LayerType::kMATRIX_MULTIPLY, "kMATRIX_MULTIPLY"},
        {LayerType::kRAGGED_SOFTMAX, "kRAGGED_SOFTMAX"}, {LayerType::kCONSTANT, "kCONSTANT"},
        {LayerType::kIDENTITY, "kIDENTITY"}, {LayerType::kPLUGIN_V2, "kPLUGIN_V2"}, {LayerType::kSLICE, "kSLICE"},
        {LayerType::kSHAPE, "kSHAPE"}, {LayerType::kPARAMETRIC_RELU, "kPARAMETRIC_RELU"},
        {LayerType::kRESIZE, "kRESIZE"}, {LayerType::kTRIP_LIMIT, "kTRIP_LIMIT"},
        {LayerType::kRECURRENCE, "kRECURRENCE"}, {LayerType::kITERATOR, "kITERATOR"},
        {LayerType::kLOOP_OUTPUT, "kLOOP_OUTPUT"}, {LayerType::kSELECT, "kSELECT"}, {LayerType::kFILL, "kFILL"},
        {LayerType::kQUANTIZE, "kQUANTIZE"}, {LayerType::kDEQUANTIZE, "kDEQUANTIZE"},
        {LayerType::kCONDITION, "kCONDITION"}, {LayerType::kCONDITIONAL_INPUT, "kCONDITIONAL_INPUT"},
        {LayerType::kCONDITIONAL_OUTPUT, "kCONDITIONAL_OUTPUT"}, {LayerType::kSCATTER, "kSCATTER"},
        {LayerType::kEINSUM, "kEINSUM"}, {LayerType::kASSERTION, "kASSERTION"}, {LayerType::kONE_HOT, "kONE_HOT"},
        {LayerType::kNON_ZERO, "kNON_ZERO"}, {LayerType::kGRID_SAMPLE, "kGRID_SAMPLE"}, {LayerType::kNMS, "kNMS"},
        {LayerType::kREVERSE_SEQUENCE, "kREVERSE_SEQUENCE"}, {LayerType::kNORMALIZATION, "kNORMALIZATION"},
        {LayerType::kPLUGIN_V3, "kPLUGIN_V3"}, {LayerType::kSQUEEZE, "kSQUEEZE"}, {LayerType::kUNSQUEEZE, "kUNSQUEEZE"},
        {LayerType::kCUMULATIVE, "kCUMULATIVE"}, {LayerType::kDYNAMIC_QUANTIZE, "kDYNAMIC_QUANTIZE"},
        {LayerType::kATTENTION_INPUT, "kATTENTION_INPUT"}, {LayerType::kATTENTION_OUTPUT, "kATTENTION_OUTPUT"},
        {LayerType::kROTARY_EMBEDDING, "kROTARY_EMBEDDING"}, {LayerType::kKVCACHE_UPDATE, "kKVCACHE_UPDATE"},
        {LayerType::kMOE, "kMOE"}, {LayerType::kDIST_COLLECTIVE, "kDIST_COLLECTIVE"}};
    auto const found = names.find(type);
    return found != names.end() ? found->second : "LayerType " + std::to_string(static_cast<int32_t>(type));
}

json inspectOnnx(std::string const& path)
{
    std::unique_ptr<IBuilder> const builder{createInferBuilder(logger())};
    std::unique_ptr<INetworkDefinition> const network{builder != nullptr ? builder->createNetworkV2(0) : nullptr};
    std::unique_ptr<nvonnxparser::IParser> const parser{
        network != nullptr ? nvonnxparser::createParser(*network, logger()) : nullptr};
    if (parser == nullptr)
    {
        throw Failure("inspect: creating a network and the ONNX parser failed");
    }
    if (!std::filesystem::exists(path))
    {
        throw Failure("inspect: " + path + " does not exist");
    }
    json result{{"kind", "onnx"}, {"file", path}};
    bool const parsed = parser->parseFromFile(path.c_str(), static_cast<int>(ILogger::Severity::kERROR));
    result["parsed"] = parsed;
    json errors = json::array();
    for (int32_t i = 0; i < parser->getNbErrors(); ++i)
    {
        nvonnxparser::IParserError const* error = parser->getError(i);
        errors.push_back({{"node", error->node()}, {"nodeName", error->nodeName()}, {"operator", error->nodeOperator()},
            {"description", error->desc()}});
    }
    result["errors"] = errors;
    if (!parsed)
    {
        return result;
    }
    json inputs = json::array();
    for (int32_t i = 0; i < network->getNbInputs(); ++i)
    {
        ITensor const* tensor = network->getInput(i);
        inputs.push_back({{"name", tensor->getName()}, {"type", std::string(typeName(tensor->getType()))},
            {"shape", dimsJson(tensor->getDimensions())}});
    }
    json outputs = json::array();
    for (int32_t i = 0; i < network->getNbOutputs(); ++i)
    {
        ITensor const* tensor = network->getOutput(i);
        outputs.push_back({{"name", tensor->getName()}, {"type", std::string(typeName(tensor->getType()))},
            {"shape", dimsJson(tensor->getDimensions())}});
    }
    result["inputs"] = inputs;
    result["outputs"] = outputs;
    std::map<std::string, int32_t> byType;
    json inventory = json::array();
    for (int32_t l = 0; l < network->getNbLayers(); ++l)
    {
        ILayer* layer = network->getLayer(l);
        ++byType[layerTypeName(layer->getType())];
        if (layer->getType() == LayerType::kPLUGIN_V3)
        {
            IPluginV3& plugin = static_cast<IPluginV3Layer*>(layer)->getPlugin();
            auto const* core
                = static_cast<IPluginV3OneCore const*>(plugin.getCapabilityInterface(PluginCapabilityType::kCORE));
            if (core != nullptr)
            {
                addToInventory(inventory, core->getPluginName(), core->getPluginVersion(), core->getPluginNamespace(),
                    "IPluginV3", layer->getName());
            }
        }
        else if (layer->getType() == LayerType::kPLUGIN_V2)
        {
            IPluginV2& plugin = static_cast<IPluginV2Layer*>(layer)->getPlugin();
            addToInventory(inventory, plugin.getPluginType(), plugin.getPluginVersion(), plugin.getPluginNamespace(),
                "IPluginV2", layer->getName());
        }
    }
    json layers = json::object();
    for (auto const& [type, count] : byType)
    {
        layers[type] = count;
    }
    result["layerCount"] = network->getNbLayers();
    result["layersByType"] = layers;
    result["plugins"] = inventory;
    json libraries = json::array();
    int64_t nbLibraries = 0;
    char const* const* used = parser->getUsedVCPluginLibraries(nbLibraries);
    for (int64_t i = 0; used != nullptr && i < nbLibraries; ++i)
    {
        libraries.push_back(used[i]);
    }
    result["pluginLibrariesUsed"] = libraries;
    return result;
}

void printOnnx(json const& r, std::ostream& out)
{
    out << "ONNX model " << text(r["file"]) << ": " << (r["parsed"].get<bool>() ? "parsed" : "refused by the parser")
        << "\n";
    for (json const& e : r["errors"])
    {
        out << "  error: node " << text(e["node"]) << " '" << text(e["nodeName"]) << "' (" << text(e["operator"])
            << "): " << text(e["description"]) << "\n";
    }
    if (!r["parsed"].get<bool>())
    {
        return;
    }
    for (char const* side : {"inputs", "outputs"})
    {
        out << (side[0] == 'i' ? "Inputs:\n" : "Outputs:\n");
        for (json const& t : r[side])
        {
            out << "  " << text(t["name"]) << ": " << text(t["type"]) << " " << shapeText(t["shape"]) << "\n";
        }
    }
    out << "Layers: " << text(r["layerCount"]) << "\n";
    for (auto const& [type, count] : r["layersByType"].items())
    {
        out << "  " << type << ": " << text(count) << "\n";
    }
    out << "Plugins: " << (r["plugins"].empty() ? "none" : std::to_string(r["plugins"].size()) + " creator(s)") << "\n";
    for (json const& p : r["plugins"])
    {
        out << "  " << text(p["name"]) << " version " << text(p["version"]) << " namespace \"" << text(p["namespace"])
            << "\" (" << text(p["interface"]) << "), nodes:";
        for (json const& layer : p["layers"])
        {
            out << " " << text(layer);
        }
        out << "\n";
    }
    for (json const& library : r["pluginLibrariesUsed"])
    {
        out << "Plugin library used: " << text(library) << "\n";
    }
}

// ---- Plugin libraries -------------------------------------------------------------------------------------------

json fieldsJson(PluginFieldCollection const* fields)
{
    json list = json::array();
    for (int32_t i = 0; fields != nullptr && i < fields->nbFields; ++i)
    {
        PluginField const& field = fields->fields[i];
        list.push_back({{"name", field.name != nullptr ? field.name : ""},
            {"type", std::string(fieldTypeName(field.type))}, {"length", field.length}});
    }
    return list;
}

//! A creator's name, version, namespace and fields (IPluginCreatorV3One and IPluginCreator answer alike).
json creatorJson(LibraryCreator const& creator, PluginFieldCollection const* fields)
{
    return {{"name", creator.name}, {"version", creator.version}, {"namespace", creator.pluginNamespace},
        {"fields", fieldsJson(fields)}};
}

json inspectLibrary(std::string const& path)
{
    PluginLibrary const library = openPluginLibrary(path, "inspect");
    json result{
        {"kind", "library"}, {"file", path}, {"entryPoints", library.entryPoints}, {"creatorsFrom", library.source}};
    json creators = json::array();
    for (LibraryCreator const& creator : library.creators)
    {
        json entry{{"interface", creator.interfaceText()}};
        if (IPluginCreatorV3One* v3 = creator.v3())
        {
            entry.update(creatorJson(creator, v3->getFieldNames()));
        }
        else if (IPluginCreator* v2 = creator.v2())
        {
            entry.update(creatorJson(creator, v2->getFieldNames()));
        }
        creators.push_back(entry);
    }
    result["creators"] = creators;
    return result;
}

void printLibrary(json const& r, std::ostream& out)
{
    out << "Plugin library " << text(r["file"]) << "\n";
    out << "Entry points:";
    for (json const& symbol : r["entryPoints"])
    {
        out << " " << text(symbol);
    }
    out << "\nCreators: " << r["creators"].size() << " (" << text(r["creatorsFrom"]) << ")\n";
    for (json const& c : r["creators"])
    {
        out << "  " << c.value("name", "?") << " version " << c.value("version", "?") << " namespace \""
            << c.value("namespace", "") << "\" (" << text(c["interface"]) << ")\n";
        for (json const& field : c.value("fields", json::array()))
        {
            out << "    field " << text(field["name"]) << ": " << text(field["type"]) << " x " << text(field["length"])
                << "\n";
        }
    }
}

//! What path holds: "onnx" by its extension, "library" for an ELF file, else "plan".
std::string kindOf(std::string const& path)
{
    if (std::filesystem::path(path).extension() == ".onnx")
    {
        return "onnx";
    }
    std::vector<char> const head = readFile(path, "inspect");
    if (head.size() >= 4 && head[0] == 0x7F && head[1] == 'E' && head[2] == 'L' && head[3] == 'F')
    {
        return "library";
    }
    return "plan";
}

} // namespace

int runInspect(std::vector<std::string> const& args, std::ostream& out, std::ostream& err)
{
    LoggerScope const scope(err, Severity::kWARNING);
    CLI::App app("kiln inspect: what a plan, an ONNX model (.onnx) or a plugin library holds", "kiln inspect");
    std::string file;
    bool asJson = false;
    Options options;
    app.add_option("file", file, "A plan, an ONNX model (.onnx) or a plugin library (.so)")->required();
    app.add_flag("--json", asJson, "One JSON object on stdout instead of text");
    app.add_option("--staticPlugins", options.staticPlugins, "Plugin library to load first (repeatable)")
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->allow_extra_args(false);
    app.add_option("--dynamicPlugins", options.dynamicPlugins, "Plugin library to load first (repeatable)")
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->allow_extra_args(false);
    app.add_flag("--allowEngineHostCode", options.allowEngineHostCode,
        "Let a plan's plugin libraries load (IRuntime::setEngineHostCodeAllowed); without it a plan whose libraries' "
        "creators are not registered is refused, naming them");
    std::vector<char const*> argv{"kiln inspect"};
    for (std::string const& arg : args)
    {
        argv.push_back(arg.c_str());
    }
    try
    {
        app.parse(static_cast<int>(argv.size()), argv.data());
    }
    catch (CLI::ParseError const& e)
    {
        return app.exit(e, out, err) == 0 ? 0 : 2;
    }
    try
    {
        loadPlugins(options);
        std::string const kind = kindOf(file);
        json const result = kind == "onnx" ? inspectOnnx(file)
            : kind == "library"            ? inspectLibrary(file)
                                           : inspectPlan(file, options.allowEngineHostCode);
        if (asJson)
        {
            out << result.dump(2) << "\n";
        }
        else if (kind == "onnx")
        {
            printOnnx(result, out);
        }
        else if (kind == "library")
        {
            printLibrary(result, out);
        }
        else
        {
            printPlan(result, out);
        }
        return kind == "onnx" && !result["parsed"].get<bool>() ? 1 : 0;
    }
    catch (std::exception const& e)
    {
        logger().error(e.what());
        return 1;
    }
}

} // namespace kiln_tool
