// SPDX-License-Identifier: Apache-2.0
// The rules `kiln check-plugin` proves of a plugin library's creators: one table (checkRules()) that orders the
// report, feeds `kiln check-plugin --list-rules` and docs/cli.md's list (a test compares them), and the findings each
// rule ends in (passed, broken with what was seen, or skipped with the reason).
//
// The checks themselves are per plugin family (check_v3*.cpp, check_v2.cpp): a create step, a probe for sample inputs
// (plugin_sample.h), and steps that each decide one or more rules. check_plugin.cpp runs every step in a child
// process of its own (sandbox.h), so that a plugin that crashes or hangs breaks the rule being checked, not the tool.
#pragma once

#include "field_set.h"
#include "plugin_library.h"
#include "plugin_sample.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln_tool
{

enum class Verdict
{
    kPASSED,
    kBROKEN,
    kSKIPPED,
};

//! "passed", "broken", "skipped".
std::string_view verdictName(Verdict verdict) noexcept;

//! What one rule came to for one creator (or for the library).
struct Finding
{
    std::string rule;
    Verdict verdict{};
    std::string detail; //!< What was seen (passed, broken) or why it was not checked (skipped).

    nlohmann::json toJson() const;
    static Finding fromJson(nlohmann::json const& value);
};

inline Finding passed(std::string rule, std::string detail)
{
    return {std::move(rule), Verdict::kPASSED, std::move(detail)};
}
inline Finding broken(std::string rule, std::string detail)
{
    return {std::move(rule), Verdict::kBROKEN, std::move(detail)};
}
inline Finding skipped(std::string rule, std::string detail)
{
    return {std::move(rule), Verdict::kSKIPPED, std::move(detail)};
}

//! Which plugins a rule applies to.
enum RuleScope : uint32_t
{
    kSCOPE_LIBRARY = 1U,
    kSCOPE_V3 = 2U,
    kSCOPE_V2 = 4U,
};

struct Rule
{
    std::string_view id;
    uint32_t scope{}; //!< RuleScope bits.
    std::string_view what;
};

//! Every rule, in report order.
std::span<Rule const> checkRules() noexcept;

//! Thrown by a step that cannot check its rules (no plugin, no usable capability...): each is skipped with why.
struct StepSkipped
{
    std::string why;
};

//! One creator under test, as every step sees it.
struct CreatorCase
{
    LibraryCreator creator;
    FieldSet fields;                        //!< What createPlugin gets (field_set.h: sampleFields).
    std::vector<std::string> missingFields; //!< Declared fields without a value.
    SampleOptions options;
    std::optional<SampleIO> sample; //!< Set for the steps after the probe, when it found one.
    std::string noSample;           //!< Why there is none.
};

//! The "create" rule's finding for either family: call is the createPlugin call as text, created whether it returned
//! a plugin. A null from a creator whose declared fields had no data is skipped, naming them.
Finding createFinding(CreatorCase const& c, std::string const& call, bool created);

//! A step: the rules it decides (in order) and how, run in a child process.
struct CheckStep
{
    std::vector<std::string_view> rules;
    bool needsSample{};
    std::function<std::vector<Finding>(CreatorCase const&)> run;
};

//! One plugin family's checks: create (the "create" rule), the probe ("sample-inputs"), the other steps.
struct FamilyChecks
{
    std::function<Finding(CreatorCase const&)> create;
    std::function<ProbeResult(CreatorCase const&)> probe;
    std::vector<CheckStep> steps;
};

FamilyChecks const& v3Checks();
FamilyChecks const& v2Checks();

} // namespace kiln_tool
