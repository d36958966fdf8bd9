// SPDX-License-Identifier: Apache-2.0
// `kiln check-plugin`'s checks of IPluginCreatorV3One creators and their IPluginV3 plugins (rules: check_rules.cpp):
// the helpers check_v3.h declares, and the steps in the order check_plugin.cpp runs them.
#include "check_v3.h"

#include <cstring>

namespace kiln_tool
{
namespace check_v3
{

constexpr char const* kLayerName = "check_plugin";

namespace
{

std::string text(char const* value)
{
    return value != nullptr ? value : "(null)";
}

//! Whether plugin's class has type information (the Itanium ABI keeps it just before the vtable's functions).
bool hasTypeInformation(IPluginV3 const& plugin) noexcept
{
    void const* const* vtable = nullptr;
    std::memcpy(static_cast<void*>(&vtable), static_cast<void const*>(&plugin), sizeof(vtable));
    return vtable != nullptr && vtable[-1] != nullptr;
}

} // namespace

std::string infoText(InterfaceInfo const& info)
{
    return "\"" + text(info.kind) + "\" " + std::to_string(info.major) + "." + std::to_string(info.minor);
}

V3Ptr create(CreatorCase const& c, TensorRTPhase phase, PluginFieldCollection const* fields)
{
    announce(phase == TensorRTPhase::kBUILD ? "createPlugin(kBUILD)" : "createPlugin(kRUNTIME)");
    return V3Ptr(c.creator.v3()->createPlugin(kLayerName, fields, phase));
}

//! The plugin createPlugin(kBUILD) makes from the case's fields; a StepSkipped when there is none.
V3Ptr sampleCreate(CreatorCase const& c)
{
    V3Ptr plugin = create(c, TensorRTPhase::kBUILD, c.fields.collection());
    if (plugin == nullptr)
    {
        throw StepSkipped{"createPlugin(kBUILD) returned null this time (see create)"};
    }
    return plugin;
}

Capabilities capabilitiesOf(IPluginV3& plugin)
{
    Capabilities caps;
    struct Wanted
    {
        PluginCapabilityType type;
        char const* name;
        char const* kind;
        int32_t maxMajor;
    };
    for (Wanted const& wanted : {Wanted{PluginCapabilityType::kCORE, "kCORE", "PLUGIN_V3ONE_CORE", 1},
             Wanted{PluginCapabilityType::kBUILD, "kBUILD", "PLUGIN_V3ONE_BUILD", 2},
             Wanted{PluginCapabilityType::kRUNTIME, "kRUNTIME", "PLUGIN_V3ONE_RUNTIME", 1}})
    {
        announce("getCapabilityInterface");
        IPluginCapability* capability = plugin.getCapabilityInterface(wanted.type);
        if (capability == nullptr)
        {
            caps.problem = caps.problem.empty()
                ? std::string("getCapabilityInterface(") + wanted.name + ") returned null"
                : caps.problem;
            continue;
        }
        InterfaceInfo const info = capability->getInterfaceInfo();
        caps.seen += (caps.seen.empty() ? "" : ", ") + infoText(info);
        bool const right = info.kind != nullptr && std::strcmp(info.kind, wanted.kind) == 0 && info.major >= 1
            && info.major <= wanted.maxMajor;
        if (!right)
        {
            caps.problem = caps.problem.empty() ? std::string("getCapabilityInterface(") + wanted.name
                    + ") returned an interface reporting " + infoText(info) + ", where TensorRT needs \"" + wanted.kind
                    + "\" " + (wanted.maxMajor == 1 ? "1" : "1 or 2")
                                                : caps.problem;
            continue;
        }
        switch (wanted.type)
        {
        case PluginCapabilityType::kCORE: caps.core = static_cast<IPluginV3OneCore*>(capability); break;
        case PluginCapabilityType::kBUILD: caps.build = static_cast<IPluginV3OneBuild*>(capability); break;
        case PluginCapabilityType::kRUNTIME: caps.runtime = static_cast<IPluginV3OneRuntime*>(capability); break;
        }
    }
    // kiln's own way to find the host capability (src/plugin/host_capability.cpp): a public base found through
    // RTTI. check-plugin never passes kiln::kPLUGIN_CAPABILITY_HOST, which a TensorRT-only plugin may not expect.
    if (hasTypeInformation(plugin))
    {
        if (auto* host = dynamic_cast<kiln::IPluginV3OneHost*>(&plugin))
        {
            InterfaceInfo const info = host->getInterfaceInfo();
            caps.seen += ", " + infoText(info) + " (kiln::IPluginV3OneHost, found through RTTI)";
            if (info.kind != nullptr && std::strcmp(info.kind, "KILN_PLUGIN_V3ONE_HOST") == 0 && info.major == 1)
            {
                caps.host = host;
            }
            else if (caps.problem.empty())
            {
                caps.problem = "its kiln::IPluginV3OneHost base reports " + infoText(info)
                    + ", where kiln needs \"KILN_PLUGIN_V3ONE_HOST\" 1";
            }
        }
    }
    return caps;
}

//! plugin's capabilities; a StepSkipped when one is unusable.
Capabilities usableCapabilities(IPluginV3& plugin, char const* whose)
{
    Capabilities caps = capabilitiesOf(plugin);
    if (caps.core == nullptr || caps.build == nullptr || caps.runtime == nullptr)
    {
        throw StepSkipped{std::string(whose) + " capabilities are unusable: " + caps.problem + " (see capabilities)"};
    }
    return caps;
}

//! A copy of what plugin's getFieldsToSerialize returns; problem says what is wrong with it.
FieldSet serializedFields(IPluginV3OneRuntime& runtime, std::string& problem)
{
    announce("getFieldsToSerialize");
    PluginFieldCollection const* fields = runtime.getFieldsToSerialize();
    if (fields == nullptr)
    {
        problem = "getFieldsToSerialize returned null";
        return {};
    }
    FieldSet copy = FieldSet::copyOf(fields);
    if (!copy.problems().empty())
    {
        problem = "getFieldsToSerialize returned a malformed field: " + copy.problems().front();
    }
    return copy;
}

//! attachToContext(context) as an owned object; nullptr when it returned null or the plugin itself (which is not
//! deleted twice: self says so).
V3Ptr attach(IPluginV3& plugin, IPluginV3OneRuntime& runtime, IPluginResourceContext& context, bool* self)
{
    announce("attachToContext");
    IPluginV3* attached = runtime.attachToContext(&context);
    if (self != nullptr)
    {
        *self = attached == &plugin;
    }
    return V3Ptr(attached == &plugin ? nullptr : attached);
}

std::string identityOf(IPluginV3OneCore const& core)
{
    return text(core.getPluginName()) + " version " + text(core.getPluginVersion()) + " namespace \""
        + text(core.getPluginNamespace()) + "\"";
}
} // namespace check_v3

FamilyChecks const& v3Checks()
{
    using namespace check_v3;
    static FamilyChecks const checks{checkCreate, probe,
        {
            {{"identity"}, false, checkIdentity},
            {{"capabilities"}, false, checkCapabilities},
            {{"fields-round-trip"}, false, checkFieldsRoundTrip},
            {{"clone"}, false, checkClone},
            {{"format-within-pos"}, true, checkFormatWithinPos},
            {{"format-consistent"}, true, checkFormatConsistent},
            {{"output-shapes"}, true, checkOutputShapes},
            {{"outputs-written", "memory-bounds"}, true, checkEnqueue},
            {{"attach-to-context"}, false, checkAttach},
            {{"resources-released"}, false, checkResources},
            {{"no-leak"}, false, checkLeak},
        }};
    return checks;
}

} // namespace kiln_tool
