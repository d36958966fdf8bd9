// SPDX-License-Identifier: Apache-2.0
// `kiln check-plugin`'s V3 rules on the plugin objects' life: create, identity, capabilities, fields round trip,
// clone, attachToContext, resources released, no leak.
#include "check_v3.h"

#include <cstring>

namespace kiln_tool::check_v3
{
// ---- create, identity, capabilities ------------------------------------------------------------------------------

Finding checkCreate(CreatorCase const& c)
{
    V3Ptr const plugin = create(c, TensorRTPhase::kBUILD, c.fields.collection());
    std::string const call = "createPlugin(\"check_plugin\", {" + c.fields.names() + "}, kBUILD)";
    return createFinding(c, call, plugin != nullptr);
}

std::vector<Finding> checkIdentity(CreatorCase const& c)
{
    LibraryCreator const& creator = c.creator;
    if (creator.major != 1)
    {
        return {broken("identity",
            "the creator reports " + creator.interfaceText() + "; TensorRT loads PLUGIN CREATOR_V3ONE version 1 only")};
    }
    V3Ptr plugin = sampleCreate(c);
    InterfaceInfo const info = plugin->getInterfaceInfo();
    if (info.kind == nullptr || std::strcmp(info.kind, "PLUGIN") != 0 || info.major != 1)
    {
        return {
            broken("identity", "the plugin reports " + infoText(info) + ", where an IPluginV3 reports \"PLUGIN\" 1")};
    }
    Capabilities const caps = capabilitiesOf(*plugin);
    if (caps.core == nullptr)
    {
        throw StepSkipped{"no usable core capability: " + caps.problem + " (see capabilities)"};
    }
    std::string const seen = identityOf(*caps.core);
    if (seen != creator.identityText())
    {
        return {broken(
            "identity", "the plugin's core capability says " + seen + ", its creator " + creator.identityText())};
    }
    return {passed("identity", creator.interfaceText() + " creator; the plugin reports \"PLUGIN\" 1.0 and " + seen)};
}

std::vector<Finding> checkCapabilities(CreatorCase const& c)
{
    V3Ptr plugin = sampleCreate(c);
    Capabilities const caps = capabilitiesOf(*plugin);
    if (!caps.problem.empty())
    {
        return {broken("capabilities", caps.problem)};
    }
    return {passed(
        "capabilities", caps.seen + (caps.host == nullptr ? "; no host capability (kiln::IPluginV3OneHost)" : ""))};
}

// ---- fields and clone -------------------------------------------------------------------------------------------

std::vector<Finding> checkFieldsRoundTrip(CreatorCase const& c)
{
    V3Ptr plugin = sampleCreate(c);
    Capabilities const caps = usableCapabilities(*plugin);
    std::string problem;
    FieldSet const serialized = serializedFields(*caps.runtime, problem);
    if (!problem.empty())
    {
        return {broken("fields-round-trip", problem)};
    }
    V3Ptr restored = create(c, TensorRTPhase::kRUNTIME, serialized.collection());
    if (restored == nullptr)
    {
        return {broken("fields-round-trip",
            "createPlugin(kRUNTIME) returned null for the fields getFieldsToSerialize gave (" + serialized.names()
                + ")")};
    }
    Capabilities const restoredCaps = usableCapabilities(*restored, "the kRUNTIME plugin's");
    FieldSet const again = serializedFields(*restoredCaps.runtime, problem);
    if (!problem.empty())
    {
        return {broken("fields-round-trip", "the plugin createPlugin(kRUNTIME) made: " + problem)};
    }
    if (std::optional<std::string> const changed = fieldDifference(serialized, again))
    {
        return {broken("fields-round-trip",
            "getFieldsToSerialize -> createPlugin(kRUNTIME) -> getFieldsToSerialize changed the fields: " + *changed)};
    }
    return {passed("fields-round-trip",
        counted(serialized.fields().size(), "field") + " (" + serialized.names() + ") came back the same")};
}

std::vector<Finding> checkClone(CreatorCase const& c)
{
    V3Ptr plugin = sampleCreate(c);
    Capabilities const caps = usableCapabilities(*plugin);
    std::string problem;
    FieldSet const original = serializedFields(*caps.runtime, problem);
    int32_t const nbOutputs = caps.build->getNbOutputs();
    std::string const identity = identityOf(*caps.core);
    announce("clone");
    IPluginV3* cloned = plugin->clone();
    if (cloned == nullptr)
    {
        return {broken("clone", "clone returned null")};
    }
    if (cloned == plugin.get())
    {
        return {broken("clone", "clone returned the plugin itself, not a new object")};
    }
    V3Ptr const copy(cloned);
    Capabilities const copyCaps = capabilitiesOf(*copy);
    if (copyCaps.core == nullptr || copyCaps.build == nullptr || copyCaps.runtime == nullptr)
    {
        return {broken("clone", "the clone's capabilities: " + copyCaps.problem)};
    }
    if (identityOf(*copyCaps.core) != identity)
    {
        return {broken("clone", "the clone says " + identityOf(*copyCaps.core) + ", the original " + identity)};
    }
    if (copyCaps.build->getNbOutputs() != nbOutputs)
    {
        return {broken("clone",
            "the clone has " + std::to_string(copyCaps.build->getNbOutputs()) + " outputs, the original "
                + std::to_string(nbOutputs))};
    }
    plugin.reset(); // the clone must not depend on the original
    FieldSet const copied = serializedFields(*copyCaps.runtime, problem);
    if (!problem.empty())
    {
        return {broken("clone", "the clone's " + problem)};
    }
    if (std::optional<std::string> const changed = fieldDifference(original, copied))
    {
        return {broken("clone", "the clone's fields differ from the original's: " + *changed)};
    }
    return {passed("clone",
        "a new object with the same identity, " + counted(static_cast<std::size_t>(nbOutputs), "output")
            + " and fields (" + original.names() + "), intact after the original was deleted")};
}

// ---- contexts, resources, leaks -----------------------------------------------------------------------------------

std::vector<Finding> checkAttach(CreatorCase const& c)
{
    V3Ptr plugin = sampleCreate(c);
    Capabilities const caps = usableCapabilities(*plugin);
    std::string problem;
    FieldSet const fields = serializedFields(*caps.runtime, problem);
    std::string const identity = identityOf(*caps.core);
    CheckResourceContext first;
    CheckResourceContext second;
    bool self = false;
    V3Ptr a = attach(*plugin, *caps.runtime, first, &self);
    if (self)
    {
        return {broken("attach-to-context",
            "attachToContext returned the plugin itself, not a new object (the engine destroys both)")};
    }
    if (a == nullptr)
    {
        return {broken("attach-to-context", "attachToContext returned null")};
    }
    Capabilities const aCaps = capabilitiesOf(*a);
    if (aCaps.core == nullptr || aCaps.runtime == nullptr)
    {
        return {broken("attach-to-context", "the attached object's capabilities: " + aCaps.problem)};
    }
    if (identityOf(*aCaps.core) != identity)
    {
        return {broken(
            "attach-to-context", "the attached object says " + identityOf(*aCaps.core) + ", the plugin " + identity)};
    }
    std::string attachedProblem;
    FieldSet const attachedFields = serializedFields(*aCaps.runtime, attachedProblem);
    if (std::optional<std::string> const changed = fieldDifference(fields, attachedFields))
    {
        return {broken("attach-to-context", "the attached object's fields differ from the plugin's: " + *changed)};
    }
    V3Ptr b = attach(*plugin, *caps.runtime, second, &self);
    if (self || b == nullptr || b.get() == a.get())
    {
        IPluginV3* const same = b.release();
        return {broken("attach-to-context",
            std::string("a second context got ")
                + (self                   ? "the plugin itself"
                        : same == nullptr ? "null"
                                          : "the first context's object"))};
    }
    a.reset();
    b.reset();
    FieldSet const after = serializedFields(*caps.runtime, problem);
    if (std::optional<std::string> const changed = fieldDifference(fields, after))
    {
        return {
            broken("attach-to-context", "destroying the attached objects changed the plugin's fields: " + *changed)};
    }
    return {passed("attach-to-context",
        "each of two contexts got an object of its own with the plugin's identity and fields; both destroyed before "
        "the plugin")};
}

std::vector<Finding> checkResources(CreatorCase const& c)
{
    CheckResourceContext context;
    ResourceCounting const counting;
    {
        V3Ptr plugin = sampleCreate(c);
        Capabilities const caps = usableCapabilities(*plugin);
        announce("clone");
        IPluginV3* cloned = plugin->clone();
        V3Ptr const copy(cloned != plugin.get() ? cloned : nullptr);
        V3Ptr const attached = attach(*plugin, *caps.runtime, context);
        std::string problem;
        FieldSet const fields = serializedFields(*caps.runtime, problem);
        V3Ptr const restored = create(c, TensorRTPhase::kRUNTIME, fields.collection());
    }
    return {resourceFinding(counting, context.allocator())};
}

std::vector<Finding> checkLeak(CreatorCase const& c)
{
    CheckResourceContext context;
    PluginFieldCollection const* fields = c.fields.collection();
    LeakMeasure const measure = measureLeak([&] {
        V3Ptr plugin = create(c, TensorRTPhase::kBUILD, fields);
        if (plugin == nullptr)
        {
            return;
        }
        Capabilities const caps = capabilitiesOf(*plugin);
        announce("clone");
        IPluginV3* cloned = plugin->clone();
        V3Ptr const copy(cloned != plugin.get() ? cloned : nullptr);
        if (caps.runtime == nullptr)
        {
            return;
        }
        V3Ptr const attached = attach(*plugin, *caps.runtime, context);
        std::string problem;
        FieldSet const serialized = serializedFields(*caps.runtime, problem);
        V3Ptr const restored = create(c, TensorRTPhase::kRUNTIME, serialized.collection());
    });
    return {leakFinding(measure,
        "createPlugin(kBUILD), clone, attachToContext, getFieldsToSerialize, createPlugin(kRUNTIME) and delete")};
}

} // namespace kiln_tool::check_v3
