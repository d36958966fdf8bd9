// SPDX-License-Identifier: Apache-2.0
#include "check_rules.h"

namespace kiln_tool
{
namespace
{

constexpr uint32_t kBOTH = kSCOPE_V3 | kSCOPE_V2;

constexpr Rule kRules[] = {
    {"registry-load", kSCOPE_LIBRARY,
        "IPluginRegistry::loadLibrary accepts the library (a private registry, kilnCreatePluginRegistry)"},
    {"create", kBOTH,
        "createPlugin (kBUILD for V3) with the declared fields' data and --field values returns a plugin"},
    {"identity", kBOTH,
        "the creator reports its interface (PLUGIN CREATOR_V3ONE or PLUGIN CREATOR_V1, version 1) and the plugin "
        "(PLUGIN 1 for V3) the creator's name, version and namespace"},
    {"capabilities", kSCOPE_V3,
        "getCapabilityInterface(kCORE, kBUILD, kRUNTIME) returns PLUGIN_V3ONE_CORE 1, PLUGIN_V3ONE_BUILD 1 or 2 and "
        "PLUGIN_V3ONE_RUNTIME 1, and a host capability found through RTTI reports KILN_PLUGIN_V3ONE_HOST 1"},
    {"fields-round-trip", kSCOPE_V3,
        "getFieldsToSerialize, then createPlugin(kRUNTIME) with those fields, gives a plugin that serializes the same "
        "fields"},
    {"serialize-round-trip", kSCOPE_V2,
        "serialize writes exactly getSerializationSize bytes, and deserializePlugin of them serializes the same bytes"},
    {"clone", kBOTH,
        "clone returns a new object with the same identity and the same fields (V2: serialized bytes), which outlives "
        "the original"},
    {"sample-inputs", kBOTH,
        "a sample configuration is found (inputs, linear types, shapes; --inputs, --shapes) without crashing the "
        "plugin"},
    {"format-within-pos", kBOTH,
        "supportsFormatCombination(pos) reads only inOut[0..pos] (the array ends at an inaccessible page)"},
    {"format-consistent", kBOTH,
        "supportsFormatCombination answers the same question the same way, twice and on a clone, for every candidate "
        "type"},
    {"output-shapes", kBOTH,
        "getOutputDataTypes and getOutputShapes (V2: getOutputDimensions) succeed at the sample and write every "
        "output with a rank of 0 to 8 and extents the IExprBuilder made, never negative"},
    {"outputs-written", kBOTH,
        "enqueueHost (kiln's host capability) writes every byte of every output (two runs with different canary "
        "bytes)"},
    {"memory-bounds", kBOTH,
        "enqueueHost reads and writes nothing past the ends of its inputs, outputs and workspace, and leaves its "
        "inputs unchanged"},
    {"attach-to-context", kBOTH,
        "attachToContext returns a new object per context (not the plugin itself) with the same identity and fields, "
        "destroyable before the plugin"},
    {"resources-released", kBOTH,
        "after every object is destroyed, each registry resource acquired (acquirePluginResource) is released, and "
        "the context's GPU allocator has nothing outstanding"},
    {"no-leak", kBOTH,
        "create, clone, attach, serialize, re-create and destroy, repeated, leave no more live C++ allocations than "
        "they started with"},
};

} // namespace

std::string_view verdictName(Verdict verdict) noexcept
{
    switch (verdict)
    {
    case Verdict::kPASSED: return "passed";
    case Verdict::kBROKEN: return "broken";
    case Verdict::kSKIPPED: return "skipped";
    }
    return "unknown";
}

nlohmann::json Finding::toJson() const
{
    return {{"rule", rule}, {"verdict", std::string(verdictName(verdict))}, {"detail", detail}};
}

Finding Finding::fromJson(nlohmann::json const& value)
{
    std::string const verdict = value.value("verdict", "");
    return {value.value("rule", ""),
        verdict == "passed"       ? Verdict::kPASSED
            : verdict == "broken" ? Verdict::kBROKEN
                                  : Verdict::kSKIPPED,
        value.value("detail", "")};
}

std::span<Rule const> checkRules() noexcept
{
    return kRules;
}

Finding createFinding(CreatorCase const& c, std::string const& call, bool created)
{
    if (created)
    {
        return passed("create", call + " returned a plugin");
    }
    if (!c.missingFields.empty())
    {
        std::string missing;
        for (std::string const& name : c.missingFields)
        {
            missing += (missing.empty() ? "" : ", ") + name;
        }
        return skipped("create",
            call + " returned null; the declared fields " + missing
                + " have no default data: give their values with --field NAME=VALUES");
    }
    return broken("create", call + " returned null with every declared field given");
}

} // namespace kiln_tool
