// SPDX-License-Identifier: Apache-2.0
// `kiln check-plugin`'s checks of IPluginCreator (V1) creators and their IPluginV2-family plugins (rules:
// check_rules.cpp). The V2 level is read from the top byte of getTensorRTVersion(), as TensorRT reads it; formats and
// shapes are checked for IPluginV2IOExt and IPluginV2DynamicExt, whose supportsFormatCombination takes positions.
// Each function below runs in a child process of its own (check_plugin.cpp).
#include "check_support.h"

#include <cstring>
#include <memory>

KILN_IGNORE_DEPRECATED_BEGIN

namespace kiln_tool
{
namespace
{

using namespace nvinfer1;

constexpr char const* kLayerName = "check_plugin";

struct V2Deleter
{
    void operator()(IPluginV2* plugin) const noexcept
    {
        announce("destroy");
        plugin->destroy();
    }
};
using V2Ptr = std::unique_ptr<IPluginV2, V2Deleter>;

std::string text(char const* value)
{
    return value != nullptr ? value : "(null)";
}

//! The V2 level: 0 IPluginV2, 1 IPluginV2Ext, 2 IPluginV2IOExt, 3 IPluginV2DynamicExt (Python's bit dropped).
int32_t levelOf(IPluginV2 const& plugin)
{
    return static_cast<int32_t>((static_cast<uint32_t>(plugin.getTensorRTVersion()) >> 24) & 0x3FU);
}

char const* levelName(int32_t level)
{
    switch (level)
    {
    case 0: return "IPluginV2";
    case 1: return "IPluginV2Ext";
    case 2: return "IPluginV2IOExt";
    case 3: return "IPluginV2DynamicExt";
    }
    return "an unknown IPluginV2 level";
}

V2Ptr create(CreatorCase const& c)
{
    announce("createPlugin");
    return V2Ptr(c.creator.v2()->createPlugin(kLayerName, c.fields.collection()));
}

V2Ptr sampleCreate(CreatorCase const& c)
{
    V2Ptr plugin = create(c);
    if (plugin == nullptr)
    {
        throw StepSkipped{"createPlugin returned null this time (see create)"};
    }
    return plugin;
}

std::string identityOf(IPluginV2 const& plugin)
{
    return text(plugin.getPluginType()) + " version " + text(plugin.getPluginVersion()) + " namespace \""
        + text(plugin.getPluginNamespace()) + "\"";
}

//! What serialize writes, in a buffer of exactly getSerializationSize bytes; problem says what went wrong.
std::vector<char> serialized(IPluginV2 const& plugin, std::string& problem)
{
    announce("getSerializationSize");
    std::size_t const size = plugin.getSerializationSize();
    std::vector<char> runs[2];
    char const canaries[2] = {static_cast<char>(0xA5), static_cast<char>(0x5A)};
    for (int run = 0; run < 2; ++run)
    {
        GuardedBuffer buffer(size, 1);
        std::memset(buffer.data(), canaries[run], size);
        announce("serialize");
        std::optional<Fault> const fault = callGuarded({&buffer}, [&] { plugin.serialize(buffer.data()); });
        if (fault)
        {
            problem = std::string("serialize ") + fault->access + " byte " + std::to_string(fault->offset)
                + " of a buffer of getSerializationSize() = " + std::to_string(size) + " bytes";
            return {};
        }
        auto const* bytes = static_cast<char const*>(buffer.data());
        runs[run].assign(bytes, bytes + size);
    }
    std::size_t unwritten = 0;
    for (std::size_t b = 0; b < size; ++b)
    {
        unwritten += runs[0][b] == canaries[0] && runs[1][b] == canaries[1] ? 1 : 0;
    }
    if (unwritten > 0)
    {
        problem = "serialize left " + std::to_string(unwritten) + " of the " + std::to_string(size)
            + " bytes getSerializationSize() announces unwritten";
    }
    else if (runs[0] != runs[1])
    {
        problem = "serialize wrote different bytes on two calls";
    }
    return runs[0];
}

// ---- create, identity, serialization, clone -----------------------------------------------------------------------

Finding checkCreate(CreatorCase const& c)
{
    V2Ptr const plugin = create(c);
    std::string const call = "createPlugin(\"check_plugin\", {" + c.fields.names() + "})";
    return createFinding(c, call, plugin != nullptr);
}

std::vector<Finding> checkIdentity(CreatorCase const& c)
{
    if (c.creator.major != 1)
    {
        return {broken("identity",
            "the creator reports " + c.creator.interfaceText() + "; TensorRT loads PLUGIN CREATOR_V1 version 1 only")};
    }
    V2Ptr const plugin = sampleCreate(c);
    std::string const seen = identityOf(*plugin);
    if (seen != c.creator.identityText())
    {
        return {broken("identity", "the plugin says " + seen + ", its creator " + c.creator.identityText())};
    }
    int32_t const level = levelOf(*plugin);
    return {passed("identity",
        c.creator.interfaceText() + " creator; the plugin is an " + levelName(level) + " and reports " + seen)};
}

std::vector<Finding> checkSerializeRoundTrip(CreatorCase const& c)
{
    V2Ptr const plugin = sampleCreate(c);
    std::string problem;
    std::vector<char> const bytes = serialized(*plugin, problem);
    if (!problem.empty())
    {
        return {broken("serialize-round-trip", problem)};
    }
    announce("deserializePlugin");
    V2Ptr const restored(c.creator.v2()->deserializePlugin(kLayerName, bytes.data(), bytes.size()));
    if (restored == nullptr)
    {
        return {broken("serialize-round-trip",
            "deserializePlugin returned null for the " + std::to_string(bytes.size()) + " bytes serialize wrote")};
    }
    std::vector<char> const again = serialized(*restored, problem);
    if (!problem.empty())
    {
        return {broken("serialize-round-trip", "the deserialized plugin: " + problem)};
    }
    if (again != bytes)
    {
        std::size_t const at = static_cast<std::size_t>(
            std::mismatch(bytes.begin(), bytes.end(), again.begin(), again.end()).first - bytes.begin());
        return {broken("serialize-round-trip",
            "serialize -> deserializePlugin -> serialize changed the bytes: " + std::to_string(bytes.size())
                + " bytes, then " + std::to_string(again.size()) + ", first difference at byte " + std::to_string(at))};
    }
    return {
        passed("serialize-round-trip", std::to_string(bytes.size()) + " bytes, every one written, came back the same")};
}

std::vector<Finding> checkClone(CreatorCase const& c)
{
    V2Ptr plugin = sampleCreate(c);
    std::string problem;
    std::vector<char> const bytes = serialized(*plugin, problem);
    std::string const identity = identityOf(*plugin);
    announce("clone");
    IPluginV2* cloned = plugin->clone();
    if (cloned == nullptr)
    {
        return {broken("clone", "clone returned null")};
    }
    if (cloned == plugin.get())
    {
        return {broken("clone", "clone returned the plugin itself, not a new object")};
    }
    V2Ptr const copy(cloned);
    if (identityOf(*copy) != identity)
    {
        return {broken("clone", "the clone says " + identityOf(*copy) + ", the original " + identity)};
    }
    plugin.reset();
    std::vector<char> const copied = serialized(*copy, problem);
    if (copied != bytes)
    {
        return {broken("clone",
            "the clone serializes " + std::to_string(copied.size()) + " bytes that differ from the "
                + std::to_string(bytes.size()) + " of the original")};
    }
    return {passed("clone",
        "a new object with the same identity and the same " + std::to_string(bytes.size())
            + " serialized bytes, intact after the original was destroyed")};
}

// ---- formats and shapes (IPluginV2IOExt, IPluginV2DynamicExt) -----------------------------------------------------

//! supportsFormatCombination of an IOExt or DynamicExt plugin; null for the levels without it.
std::function<bool(int32_t, PluginTensorDesc const*, int32_t, int32_t)> formatQuery(IPluginV2& plugin)
{
    int32_t const level = levelOf(plugin);
    if (level == 2)
    {
        auto* io = static_cast<IPluginV2IOExt*>(&plugin);
        return [io](int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) {
            announce("supportsFormatCombination");
            return io->supportsFormatCombination(pos, inOut, nbInputs, nbOutputs);
        };
    }
    if (level == 3)
    {
        auto* dynamic = static_cast<IPluginV2DynamicExt*>(&plugin);
        return [dynamic](int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) {
            announce("supportsFormatCombination");
            return dynamic->supportsFormatCombination(pos, inOut, nbInputs, nbOutputs);
        };
    }
    return nullptr;
}

ShapeAnswer outputShapes(IPluginV2& plugin, std::vector<Dims> const& inputs)
{
    int32_t const nbOutputs = plugin.getNbOutputs();
    ShapeAnswer answer;
    if (levelOf(plugin) == 3)
    {
        auto& dynamic = static_cast<IPluginV2DynamicExt&>(plugin);
        ConstantExprBuilder builder;
        std::vector<DimsExprs> const in = constantShapes(inputs, builder);
        GuardedBuffer buffer(std::max<std::size_t>(in.size(), 1) * sizeof(DimsExprs), alignof(DimsExprs));
        std::copy(in.begin(), in.end(), static_cast<DimsExprs*>(buffer.data()));
        std::vector<DimsExprs> out;
        for (int32_t i = 0; i < nbOutputs; ++i)
        {
            DimsExprs shape{};
            announce("getOutputDimensions");
            std::optional<Fault> const fault = callGuarded({&buffer}, [&] {
                shape = dynamic.getOutputDimensions(
                    i, static_cast<DimsExprs const*>(buffer.data()), static_cast<int32_t>(in.size()), builder);
            });
            if (fault || shape.nbDims < 0)
            {
                answer.refused = true;
                answer.refusalText = fault
                    ? "it read inputs[" + std::to_string(fault->offset / sizeof(DimsExprs)) + "] of "
                        + std::to_string(in.size())
                    : "output " + std::to_string(i) + " came back with rank " + std::to_string(shape.nbDims);
                return answer;
            }
            out.push_back(shape);
        }
        return readShapes(out, builder);
    }
    GuardedBuffer buffer(std::max<std::size_t>(inputs.size(), 1) * sizeof(Dims), alignof(Dims));
    std::copy(inputs.begin(), inputs.end(), static_cast<Dims*>(buffer.data()));
    for (int32_t i = 0; i < nbOutputs; ++i)
    {
        Dims dims{};
        announce("getOutputDimensions");
        std::optional<Fault> const fault = callGuarded({&buffer}, [&] {
            dims = plugin.getOutputDimensions(
                i, static_cast<Dims const*>(buffer.data()), static_cast<int32_t>(inputs.size()));
        });
        if (fault || dims.nbDims < 0)
        {
            answer.refused = true;
            answer.refusalText = "output " + std::to_string(i) + " came back with rank " + std::to_string(dims.nbDims);
            return answer;
        }
        if (dims.nbDims > Dims::MAX_DIMS || std::any_of(dims.d, dims.d + dims.nbDims, [](int64_t d) { return d < 0; }))
        {
            answer.problem
                = "output " + std::to_string(i) + " has rank " + std::to_string(dims.nbDims) + " or a negative extent";
            return answer;
        }
        answer.dims.push_back(dims);
    }
    return answer;
}

ProbeResult probe(CreatorCase const& c)
{
    V2Ptr plugin = create(c);
    if (plugin == nullptr)
    {
        return {std::nullopt, "createPlugin returned null (see create)"};
    }
    int32_t const level = levelOf(*plugin);
    auto const supports = formatQuery(*plugin);
    if (!supports)
    {
        return {std::nullopt,
            std::string("an ") + levelName(level)
                + " answers supportsFormat(type, format) without positions and runs with an implicit batch: no sample "
                  "(formats and shapes are checked for IPluginV2IOExt and IPluginV2DynamicExt)"};
    }
    auto* ext = static_cast<IPluginV2Ext*>(plugin.get());
    PluginQueries queries;
    announce("getNbOutputs");
    queries.nbOutputs = plugin->getNbOutputs();
    queries.supports = [&](int32_t pos, std::vector<PluginTensorDesc> const& inOut, int32_t nbInputs) {
        GuardedBuffer buffer(inOut.size() * sizeof(PluginTensorDesc), alignof(PluginTensorDesc));
        auto* descs = static_cast<PluginTensorDesc*>(buffer.data());
        std::copy(inOut.begin(), inOut.end(), descs);
        bool answer = false;
        std::optional<Fault> const fault = callGuarded(
            {&buffer}, [&] { answer = supports(pos, descs, nbInputs, static_cast<int32_t>(inOut.size()) - nbInputs); });
        return !fault && answer;
    };
    queries.outputTypes = [&](std::vector<DataType> const& in, std::vector<DataType>& out) {
        out.clear();
        for (int32_t i = 0; i < queries.nbOutputs; ++i)
        {
            announce("getOutputDataType");
            out.push_back(ext->getOutputDataType(i, in.data(), static_cast<int32_t>(in.size())));
        }
        return true;
    };
    queries.outputShapes = [&](std::vector<Dims> const& in) { return outputShapes(*plugin, in); };
    return findSample(queries, c.options);
}

//! The plugin's supportsFormatCombination; a StepSkipped for the levels without one.
std::function<bool(int32_t, PluginTensorDesc const*, int32_t, int32_t)> requireFormatQuery(IPluginV2& plugin)
{
    auto query = formatQuery(plugin);
    if (!query)
    {
        throw StepSkipped{std::string("an ") + levelName(levelOf(plugin))
            + " has no supportsFormatCombination (it answers supportsFormat per type)"};
    }
    return query;
}

std::vector<Finding> checkFormatWithinPos(CreatorCase const& c)
{
    V2Ptr const plugin = sampleCreate(c);
    auto const supports = requireFormatQuery(*plugin);
    SampleIO const& sample = *c.sample;
    auto const nbInputs = static_cast<int32_t>(sample.inputs.size());
    auto const nbOutputs = static_cast<int32_t>(sample.outputs.size());
    std::vector<PluginTensorDesc> const inOut = sample.descriptors();
    std::optional<std::string> const read = readPastPos<PluginTensorDesc>(
        inOut, [&](int32_t pos, PluginTensorDesc const* descs) { return supports(pos, descs, nbInputs, nbOutputs); });
    if (read)
    {
        return {broken("format-within-pos", *read)};
    }
    return {passed("format-within-pos",
        "asked at positions 0 to " + std::to_string(inOut.size() - 1)
            + " with only inOut[0..pos] readable: nothing past pos was read")};
}

std::vector<Finding> checkFormatConsistent(CreatorCase const& c)
{
    V2Ptr const plugin = sampleCreate(c);
    auto const supports = requireFormatQuery(*plugin);
    announce("clone");
    IPluginV2* cloned = plugin->clone();
    V2Ptr const copy(cloned != plugin.get() ? cloned : nullptr);
    auto const other = copy != nullptr ? formatQuery(*copy) : supports;
    SampleIO const& sample = *c.sample;
    auto const nbInputs = static_cast<int32_t>(sample.inputs.size());
    auto const nbOutputs = static_cast<int32_t>(sample.outputs.size());
    auto const ask = [&](auto const& query) {
        return [&query, nbInputs, nbOutputs](
                   int32_t pos, PluginTensorDesc const* descs) { return query(pos, descs, nbInputs, nbOutputs); };
    };
    std::optional<std::string> const differs
        = inconsistentAnswer<PluginTensorDesc>(sample.descriptors(), nbInputs, ask(supports), ask(other));
    if (differs)
    {
        return {broken("format-consistent", *differs)};
    }
    return {passed("format-consistent",
        std::to_string(nbInputs + nbOutputs) + " positions x " + std::to_string(candidateTypes().size())
            + " types answered alike twice" + (copy != nullptr ? " and by a clone" : ""))};
}

std::vector<Finding> checkOutputShapes(CreatorCase const& c)
{
    SampleIO const& sample = *c.sample;
    std::string const at = "at " + sample.text();
    if (!sample.shapesProblem.empty())
    {
        return {broken("output-shapes", "getOutputDimensions " + at + ": " + sample.shapesProblem)};
    }
    V2Ptr const plugin = sampleCreate(c);
    std::vector<Dims> inputs;
    for (TensorSample const& input : sample.inputs)
    {
        inputs.push_back(input.dims);
    }
    ShapeAnswer const first = outputShapes(*plugin, inputs);
    ShapeAnswer const second = outputShapes(*plugin, inputs);
    if (!first.problem.empty() || !second.problem.empty())
    {
        return {broken("output-shapes", "getOutputDimensions " + at + ": " + first.problem + second.problem)};
    }
    if (first.refused)
    {
        return {skipped("output-shapes",
            "getOutputDimensions refused every sample tried (" + first.refusalText
                + "): give the inputs it takes with --inputs and --shapes")};
    }
    for (std::size_t o = 0; o < first.dims.size(); ++o)
    {
        if (first.dims[o].nbDims != second.dims[o].nbDims
            || !std::equal(first.dims[o].d, first.dims[o].d + first.dims[o].nbDims, second.dims[o].d))
        {
            return {broken("output-shapes", "getOutputDimensions answered differently when asked twice " + at)};
        }
    }
    return {passed("output-shapes", "getOutputDataType and getOutputDimensions " + at)};
}

std::vector<Finding> checkNotRun(CreatorCase const&)
{
    throw StepSkipped{"V2 plugins run on kiln's host backend only through a kiln::IPluginV2HostRunner registered in "
                      "the same process, which check-plugin cannot look up: enqueue not run"};
}

std::vector<Finding> checkAttach(CreatorCase const&)
{
    throw StepSkipped{"IPluginV2Ext::attachToContext returns nothing to compare; what it takes from the GPU allocator "
                      "is counted under resources-released"};
}

// ---- resources and leaks ------------------------------------------------------------------------------------------

//! A plugin's life as the engine leads it: clone, attach the clone (IPluginV2Ext and up), initialize, serialize,
//! deserialize; then terminate, detach and destroy everything.
void lifecycle(CreatorCase const& c, IGpuAllocator& allocator)
{
    V2Ptr const plugin = create(c);
    if (plugin == nullptr)
    {
        return;
    }
    announce("clone");
    IPluginV2* cloned = plugin->clone();
    V2Ptr const copy(cloned != plugin.get() ? cloned : nullptr);
    if (copy != nullptr && levelOf(*copy) >= 1)
    {
        announce("attachToContext");
        static_cast<IPluginV2Ext*>(copy.get())->attachToContext(nullptr, nullptr, &allocator);
    }
    announce("initialize");
    bool const initialized = plugin->initialize() == 0;
    std::string problem;
    std::vector<char> const bytes = serialized(*plugin, problem);
    announce("deserializePlugin");
    V2Ptr const restored(c.creator.v2()->deserializePlugin(kLayerName, bytes.data(), bytes.size()));
    if (initialized)
    {
        announce("terminate");
        plugin->terminate();
    }
    if (copy != nullptr && levelOf(*copy) >= 1)
    {
        announce("detachFromContext");
        static_cast<IPluginV2Ext*>(copy.get())->detachFromContext();
    }
}

std::vector<Finding> checkResources(CreatorCase const& c)
{
    CheckResourceContext context;
    ResourceCounting const counting;
    lifecycle(c, context.allocator());
    return {resourceFinding(counting, context.allocator())};
}

std::vector<Finding> checkLeak(CreatorCase const& c)
{
    CheckResourceContext context;
    c.fields.collection();
    LeakMeasure const measure = measureLeak([&] { lifecycle(c, context.allocator()); });
    return {leakFinding(measure,
        "createPlugin, clone, attachToContext, initialize, serialize, deserializePlugin, terminate, "
        "detachFromContext and destroy")};
}

} // namespace

FamilyChecks const& v2Checks()
{
    static FamilyChecks const checks{checkCreate, probe,
        {
            {{"identity"}, false, checkIdentity},
            {{"serialize-round-trip"}, false, checkSerializeRoundTrip},
            {{"clone"}, false, checkClone},
            {{"format-within-pos"}, true, checkFormatWithinPos},
            {{"format-consistent"}, true, checkFormatConsistent},
            {{"output-shapes"}, true, checkOutputShapes},
            {{"outputs-written", "memory-bounds"}, false, checkNotRun},
            {{"attach-to-context"}, false, checkAttach},
            {{"resources-released"}, false, checkResources},
            {{"no-leak"}, false, checkLeak},
        }};
    return checks;
}

} // namespace kiln_tool

KILN_IGNORE_DEPRECATED_END
