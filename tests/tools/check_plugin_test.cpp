// SPDX-License-Identifier: Apache-2.0
// `kiln check-plugin` (kiln_tool::runCheckPlugin and the binary): it passes the plugin libraries that keep the
// contract (the tests' own, the examples'), catches each planted violation (check_plugin_subject.cpp: one library per
// broken rule) naming the creator and the rule with exit status 1, survives a plugin that crashes, lists its rules
// as docs/cli.md does, and refuses bad usage with exit status 2.
#include "check_plugin.h"
#include "check_rules.h"
#include "tool_test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace kiln_tool_test
{
namespace
{

using nlohmann::json;

struct CheckRun
{
    int status{-1};
    std::string out;
    std::string err;
};

CheckRun check(std::vector<std::string> const& args)
{
    std::ostringstream out;
    std::ostringstream err;
    CheckRun run;
    run.status = kiln_tool::runCheckPlugin(args, out, err);
    run.out = out.str();
    run.err = err.str();
    return run;
}

std::string subject(std::string const& name)
{
    return std::string(KILN_CHECK_SUBJECTS_DIR) + "/libkiln_check_" + name + ".so";
}

//! The findings of every creator in a --json report, with the creator's name.
std::vector<std::pair<std::string, json>> findingsOf(json const& report)
{
    std::vector<std::pair<std::string, json>> findings;
    for (json const& creator : report["creators"])
    {
        for (json const& finding : creator["findings"])
        {
            findings.emplace_back(creator["name"].get<std::string>(), finding);
        }
    }
    for (json const& finding : report["libraryFindings"])
    {
        findings.emplace_back("", finding);
    }
    return findings;
}

//! The rules of findings with verdict.
std::vector<std::string> rulesWith(json const& report, std::string const& verdict)
{
    std::vector<std::string> rules;
    for (auto const& [creator, finding] : findingsOf(report))
    {
        if (finding["verdict"] == verdict)
        {
            rules.push_back(finding["rule"].get<std::string>());
        }
    }
    return rules;
}

TEST(CheckPlugin, TheTestsPluginLibrariesPassEveryRule)
{
    for (std::string const& library : {subject("none"), std::string(KILN_TOOL_TEST_PLUGINS)})
    {
        CheckRun const run = check({library, "--json"});
        ASSERT_EQ(run.status, 0) << library << "\n" << run.out << run.err;
        json const report = json::parse(run.out);
        EXPECT_EQ(report["broken"], 0) << run.out;
        EXPECT_EQ(report["skipped"], 0) << run.out;
        // Every V3 rule and the library's: nothing left out.
        EXPECT_EQ(report["passed"], 15) << run.out;
    }
}

TEST(CheckPlugin, AV2LibraryPassesWhatItCanAndSaysWhyTheRestIsSkipped)
{
    CheckRun const run = check({subject("v2_none"), "--json"});
    ASSERT_EQ(run.status, 0) << run.out << run.err;
    json const report = json::parse(run.out);
    EXPECT_EQ(report["creatorsFrom"], "getPluginCreators");
    ASSERT_EQ(report["creators"].size(), 1U);
    EXPECT_EQ(report["creators"][0]["name"], "KilnCheckScaleV2");
    EXPECT_EQ(report["creators"][0]["interface"], "PLUGIN CREATOR_V1 1.0");
    EXPECT_EQ(rulesWith(report, "broken"), std::vector<std::string>{});
    EXPECT_EQ(rulesWith(report, "skipped"),
        (std::vector<std::string>{"outputs-written", "memory-bounds", "attach-to-context"}));
    for (auto const& [creator, finding] : findingsOf(report))
    {
        EXPECT_FALSE(finding["detail"].get<std::string>().empty()) << finding.dump();
    }
}

#if defined(KILN_EXAMPLE_PLUGINS) && defined(KILN_IDENTITY_CONV_PLUGIN)
TEST(CheckPlugin, TheExamplesPluginLibrariesPass)
{
    CheckRun const scale = check({KILN_EXAMPLE_PLUGINS, "--json"});
    ASSERT_EQ(scale.status, 0) << scale.out << scale.err;
    json const scaleReport = json::parse(scale.out);
    EXPECT_EQ(scaleReport["broken"], 0);
    // ScalePlugin has the host capability: its enqueueHost runs, so every rule is checked.
    EXPECT_EQ(scaleReport["skipped"], 0) << scale.out;
    EXPECT_EQ(rulesWith(scaleReport, "skipped"), std::vector<std::string>{});

    // IdentityConv declares its fields without data: given with --field, every rule passes.
    CheckRun const identity = check({KILN_IDENTITY_CONV_PLUGIN, "--field=kernel_shape=1,1", "--field=strides=1,1",
        "--field=pads=0,0,0,0", "--field=group=3", "--json"});
    ASSERT_EQ(identity.status, 0) << identity.out << identity.err;
    json const identityReport = json::parse(identity.out);
    EXPECT_EQ(identityReport["broken"], 0) << identity.out;
    EXPECT_EQ(identityReport["skipped"], 0) << identity.out;
    EXPECT_EQ(identityReport["creators"][0]["sample"], "2 inputs FP32 2x3x4x5, FP32 2x3x4x5 -> 1 output FP32 2x3x4x5");

    // Without them it cannot make a plugin: nothing is broken, and the report says what to give.
    CheckRun const bare = check({KILN_IDENTITY_CONV_PLUGIN});
    EXPECT_EQ(bare.status, 0) << bare.out;
    EXPECT_NE(bare.out.find("skipped  create: createPlugin(\"check_plugin\", {no fields}, kBUILD) returned null; the "
                            "declared fields kernel_shape, strides, pads, group have no default data: give their "
                            "values with --field NAME=VALUES"),
        std::string::npos)
        << bare.out;
}
#endif

//! A library with one planted violation: the rule it breaks and words the finding must hold.
struct Planted
{
    std::string library; //!< After libkiln_check_.
    std::string creator;
    std::string rule;
    std::string says;
};

std::ostream& operator<<(std::ostream& os, Planted const& planted)
{
    return os << planted.library;
}

class CheckPluginViolation : public testing::TestWithParam<Planted>
{
};

TEST_P(CheckPluginViolation, IsTheOnlyRuleBrokenAndTheReportNamesTheCreatorAndTheRule)
{
    Planted const& planted = GetParam();
    CheckRun const run = check({subject(planted.library), "--json"});
    ASSERT_EQ(run.status, 1) << run.out << run.err;
    json const report = json::parse(run.out);
    EXPECT_EQ(report["broken"], 1) << run.out;
    std::vector<std::pair<std::string, json>> broken;
    for (auto const& entry : findingsOf(report))
    {
        if (entry.second["verdict"] == "broken")
        {
            broken.push_back(entry);
        }
    }
    ASSERT_EQ(broken.size(), 1U) << run.out;
    EXPECT_EQ(broken[0].first, planted.creator);
    EXPECT_EQ(broken[0].second["rule"], planted.rule);
    EXPECT_NE(broken[0].second["detail"].get<std::string>().find(planted.says), std::string::npos)
        << broken[0].second.dump();

    CheckRun const text = check({subject(planted.library)});
    EXPECT_EQ(text.status, 1);
    std::string const line = "Broken: " + planted.creator + " version 1 namespace \"\": " + planted.rule + ": ";
    EXPECT_NE(text.out.find(line), std::string::npos) << line << "\n" << text.out;
}

INSTANTIATE_TEST_SUITE_P(Planted, CheckPluginViolation,
    testing::Values(Planted{"fields_round_trip", "KilnCheckScale", "fields-round-trip",
                        "field \"scale\" was 2 (kFLOAT32 x 1), is 1 (kFLOAT32 x 1)"},
        Planted{"clone", "KilnCheckScale", "clone", "the clone's fields differ from the original's: field \"scale\""},
        Planted{"identity", "KilnCheckScale", "identity",
            "the plugin's core capability says KilnCheckScaleRenamed version 1 namespace \"\""},
        Planted{"capabilities", "KilnCheckScale", "capabilities",
            "getCapabilityInterface(kBUILD) returned an interface reporting \"PLUGIN_V3ONE_CORE\" 1.0"},
        Planted{"sample_inputs", "KilnCheckScale", "sample-inputs",
            "was killed by SIGSEGV (Segmentation fault) in "
            "getOutputShapes"},
        Planted{"format_within_pos", "KilnCheckScale", "format-within-pos",
            "supportsFormatCombination(pos=0) read inOut[1], past inOut[0..0]"},
        Planted{"format_consistent", "KilnCheckScale", "format-consistent",
            "supportsFormatCombination(pos=0, input 0, FP16 linear) answered"},
        Planted{"output_shapes", "KilnCheckScale", "output-shapes", "left output 1 unwritten"},
        Planted{"outputs_written", "KilnCheckScale", "outputs-written",
            "output 0 (FP32 2x3x4x5, 480 bytes): 240 bytes never written, the first at byte 240"},
        Planted{"outputs_written_crash", "KilnCheckScale", "outputs-written",
            "was killed by SIGSEGV (Segmentation fault) in enqueueHost"},
        Planted{"memory_bounds", "KilnCheckScale", "memory-bounds", "enqueueHost wrote byte 480 of output 0"},
        Planted{"memory_bounds_input", "KilnCheckScale", "memory-bounds", "enqueueHost changed input 0"},
        Planted{"attach_to_context", "KilnCheckScale", "attach-to-context", "returned the plugin itself"},
        Planted{"resources_released", "KilnCheckScale", "resources-released",
            "registry resource \"kiln_check.scratch\" acquired 1, released 0"},
        Planted{"no_leak", "KilnCheckScale", "no-leak", "more live allocations than before"},
        Planted{"v2_serialize_round_trip", "KilnCheckScaleV2", "serialize-round-trip",
            "serialize -> deserializePlugin -> serialize changed the bytes"}),
    [](testing::TestParamInfo<Planted> const& planted) { return planted.param.library; });

TEST(CheckPlugin, TheBinaryReportsAPluginThatCrashesAndGoesOn)
{
    ScratchDir dir;
    ProcessRun const run = runBinary({"check-plugin", subject("outputs_written_crash")}, dir / "stderr.txt");
    EXPECT_EQ(run.status, 1) << run.out << run.err;
    EXPECT_NE(run.out.find("Broken: KilnCheckScale version 1 namespace \"\": outputs-written: the plugin was killed "
                           "by SIGSEGV (Segmentation fault) in enqueueHost during this check"),
        std::string::npos)
        << run.out;
    // The rules after the crash were still checked.
    EXPECT_NE(run.out.find("passed   no-leak: "), std::string::npos) << run.out;
    ProcessRun const good = runBinary({"check-plugin", subject("none")}, dir / "stderr.txt");
    EXPECT_EQ(good.status, 0) << good.out << good.err;
    EXPECT_NE(good.out.find("Summary: 15 passed, 0 broken, 0 skipped"), std::string::npos) << good.out;
}

TEST(CheckPlugin, ALibraryThatRegistersFromStaticInitializersIsCheckedToo)
{
    // In a process of its own: the registrations happen once per process, when the library first loads.
    ScratchDir dir;
    ProcessRun const run = runBinary({"check-plugin", subject("static"), "--json"}, dir / "stderr.txt");
    ASSERT_EQ(run.status, 0) << run.out << run.err;
    json const report = json::parse(run.out);
    EXPECT_EQ(report["creatorsFrom"], "static registration");
    ASSERT_EQ(report["creators"].size(), 1U);
    EXPECT_EQ(report["creators"][0]["name"], "KilnCheckScale");
    EXPECT_EQ(report["passed"], 14) << run.out;
    EXPECT_EQ(rulesWith(report, "skipped"), std::vector<std::string>{"registry-load"});
}

TEST(CheckPlugin, ListsItsRulesAsTheDocsDo)
{
    CheckRun const run = check({"--list-rules"});
    ASSERT_EQ(run.status, 0) << run.err;
    std::ifstream file(KILN_CLI_DOC);
    std::string const doc((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    ASSERT_FALSE(doc.empty());
    for (kiln_tool::Rule const& rule : kiln_tool::checkRules())
    {
        EXPECT_NE(run.out.find(std::string(rule.id) + " ("), std::string::npos) << rule.id;
        EXPECT_NE(doc.find("| `" + std::string(rule.id) + "` |"), std::string::npos)
            << "docs/cli.md does not list the rule " << rule.id;
    }
}

TEST(CheckPlugin, BadUsageAndFilesAreRefused)
{
    EXPECT_EQ(check({}).status, 2);
    EXPECT_EQ(check({subject("none"), "--noSuchFlag"}).status, 2);
    CheckRun const badField = check({subject("none"), "--field=scale"});
    EXPECT_EQ(badField.status, 2);
    CheckRun const unknownField = check({subject("none"), "--field=gain=2"});
    EXPECT_EQ(unknownField.status, 2);
    EXPECT_NE(unknownField.err.find("--field gain: no creator"), std::string::npos) << unknownField.err;
    CheckRun const badValue = check({subject("none"), "--field=scale=two"});
    EXPECT_EQ(badValue.status, 2);
    EXPECT_NE(badValue.err.find("'two' is not a number"), std::string::npos) << badValue.err;
    CheckRun const unknownCreator = check({subject("none"), "--creator=Nobody"});
    EXPECT_EQ(unknownCreator.status, 2);
    EXPECT_NE(unknownCreator.err.find("no creator named Nobody"), std::string::npos) << unknownCreator.err;
    CheckRun const badShapes = check({subject("none"), "--shapes=2xq"});
    EXPECT_EQ(badShapes.status, 2);
    CheckRun const missing = check({"/nonexistent/libnothing.so"});
    EXPECT_EQ(missing.status, 1);
    EXPECT_NE(missing.err.find("cannot load /nonexistent/libnothing.so"), std::string::npos) << missing.err;
}

TEST(CheckPlugin, GivenFieldsAndShapesAreUsed)
{
    CheckRun const run = check(
        {subject("fields_round_trip"), "--field=scale=1", "--shapes=4x4", "--creator=KilnCheckScale", "--json"});
    // With the value the runtime phase falls back to, the planted violation cannot show.
    ASSERT_EQ(run.status, 0) << run.out << run.err;
    json const report = json::parse(run.out);
    EXPECT_EQ(report["creators"][0]["sample"], "1 input FP32 4x4 -> 1 output FP32 4x4");
}

} // namespace
} // namespace kiln_tool_test
