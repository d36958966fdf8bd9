// SPDX-License-Identifier: Apache-2.0
#include "check_plugin.h"

#include "check_rules.h"
#include "check_support.h"
#include "logger.h"
#include "sandbox.h"
#include "specs.h"

#include "kiln/kiln.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

namespace kiln_tool
{
namespace
{

using nlohmann::json;

//! What check-plugin reports of one creator.
struct CreatorReport
{
    LibraryCreator creator;
    std::string sample; //!< The sample configuration found, or empty.
    std::vector<Finding> findings;
};

//! The whole report: one producer (checkLibrary), two faces (printReport, reportJson).
struct CheckReport
{
    std::string library;
    std::string source;
    std::vector<Finding> libraryFindings;
    std::vector<CreatorReport> creators;

    int32_t count(Verdict verdict) const
    {
        int32_t n = 0;
        for (Finding const& f : libraryFindings)
        {
            n += f.verdict == verdict ? 1 : 0;
        }
        for (CreatorReport const& c : creators)
        {
            for (Finding const& f : c.findings)
            {
                n += f.verdict == verdict ? 1 : 0;
            }
        }
        return n;
    }
};

struct CheckOptions
{
    std::string library;
    std::vector<std::string> creators; //!< --creator: only these (by name); all when empty.
    SampleOptions sample;
    int32_t timeoutSeconds{30};
};

std::size_t ruleOrder(std::string const& id)
{
    std::span<Rule const> const rules = checkRules();
    auto const found = std::find_if(rules.begin(), rules.end(), [&](Rule const& r) { return r.id == id; });
    return static_cast<std::size_t>(found - rules.begin());
}

void sortFindings(std::vector<Finding>& findings)
{
    std::stable_sort(findings.begin(), findings.end(),
        [](Finding const& a, Finding const& b) { return ruleOrder(a.rule) < ruleOrder(b.rule); });
}

//! Forwards a child's log lines to the tool's logger (err), as if the plugin had logged in this process.
void relayLogs(ChildOutcome const& outcome, std::ostream& err)
{
    for (std::string const& line : outcome.logs)
    {
        err << line << "\n";
    }
}

//! How a child that did not finish ended, for a broken finding: "killed by SIGSEGV (...) in enqueueHost".
std::string endingText(ChildOutcome const& outcome)
{
    return outcome.ending + (outcome.lastCall.empty() ? "" : " in " + outcome.lastCall);
}

//! Runs one step in a child: a finding for each of its rules. A crash breaks the first rule still undecided and
//! leaves the others skipped.
std::vector<Finding> runStep(CreatorCase const& c, std::vector<std::string_view> const& rules,
    std::function<std::vector<Finding>(CreatorCase const&)> const& run, CheckOptions const& options, std::ostream& err)
{
    ChildOutcome const outcome = runInChild(
        [&](ChildChannel const& channel) {
            std::vector<Finding> findings;
            try
            {
                findings = run(c);
            }
            catch (StepSkipped const& skip)
            {
                for (std::string_view const rule : rules)
                {
                    findings.push_back(skipped(std::string(rule), skip.why));
                }
            }
            for (Finding const& finding : findings)
            {
                channel.send(json{{"finding", finding.toJson()}});
            }
        },
        options.timeoutSeconds);
    relayLogs(outcome, err);
    std::vector<Finding> findings;
    for (json const& message : outcome.messages)
    {
        if (message.contains("finding"))
        {
            findings.push_back(Finding::fromJson(message["finding"]));
        }
    }
    bool crashed = !outcome.completed;
    for (std::string_view const rule : rules)
    {
        bool const decided
            = std::any_of(findings.begin(), findings.end(), [&](Finding const& f) { return f.rule == rule; });
        if (decided)
        {
            continue;
        }
        if (crashed)
        {
            findings.push_back(broken(std::string(rule), "the plugin " + endingText(outcome) + " during this check"));
            crashed = false; // the rules after it were not reached
        }
        else
        {
            findings.push_back(skipped(std::string(rule),
                outcome.completed ? "not decided (a check-plugin bug: please report it)"
                                  : "not reached: the plugin " + endingText(outcome) + " earlier in the same step"));
        }
    }
    return findings;
}

std::vector<std::string_view> rulesFor(LibraryCreator const& creator)
{
    uint32_t const scope = creator.isV3() ? kSCOPE_V3 : kSCOPE_V2;
    std::vector<std::string_view> ids;
    for (Rule const& rule : checkRules())
    {
        if ((rule.scope & scope) != 0)
        {
            ids.push_back(rule.id);
        }
    }
    return ids;
}

CreatorReport checkCreator(LibraryCreator const& creator, CheckOptions const& options, std::ostream& err)
{
    CreatorReport report;
    report.creator = creator;
    if (!creator.isV3() && !creator.isV2())
    {
        report.findings.push_back(broken("identity",
            "the creator reports " + creator.interfaceText()
                + ": neither PLUGIN CREATOR_V3ONE nor PLUGIN CREATOR_V1, so no registry can use it"));
        return report;
    }
    FamilyChecks const& family = creator.isV3() ? v3Checks() : v2Checks();
    CreatorCase c;
    c.creator = creator;
    c.options = options.sample;
    nvinfer1::PluginFieldCollection const* declared
        = creator.isV3() ? creator.v3()->getFieldNames() : creator.v2()->getFieldNames();
    c.fields = sampleFields(declared, options.sample.fields, c.missingFields);

    std::vector<Finding>& findings = report.findings;
    std::vector<Finding> const created = runStep(
        c, {"create"}, [&](CreatorCase const& each) { return std::vector<Finding>{family.create(each)}; }, options,
        err);
    findings.insert(findings.end(), created.begin(), created.end());
    if (created.front().verdict != Verdict::kPASSED)
    {
        for (std::string_view const rule : rulesFor(creator))
        {
            if (rule != "create")
            {
                findings.push_back(
                    skipped(std::string(rule), "no plugin to check: createPlugin gave none (see create)"));
            }
        }
        return report;
    }

    ChildOutcome const probed = runInChild(
        [&](ChildChannel const& channel) {
            ProbeResult const result = family.probe(c);
            channel.send(result.sample ? json{{"sample", result.sample->toJson()}} : json{{"noSample", result.why}});
        },
        options.timeoutSeconds);
    for (json const& message : probed.messages)
    {
        if (message.contains("sample"))
        {
            c.sample = SampleIO::fromJson(message["sample"]);
        }
        else if (message.contains("noSample"))
        {
            c.noSample = message["noSample"].get<std::string>();
        }
    }
    // Probing asks about inputs the plugin may not take; what it logs then matters only when nothing was found.
    if (!probed.completed || !c.sample)
    {
        relayLogs(probed, err);
    }
    if (!probed.completed)
    {
        c.sample.reset();
        c.noSample = "looking for sample inputs crashed the plugin (see sample-inputs)";
        findings.push_back(broken(
            "sample-inputs", "the plugin " + endingText(probed) + " while check-plugin looked for inputs it accepts"));
    }
    else if (c.sample)
    {
        report.sample = c.sample->text();
        findings.push_back(passed("sample-inputs", "found " + report.sample));
    }
    else
    {
        findings.push_back(skipped("sample-inputs", c.noSample));
        c.noSample = "no sample inputs: " + c.noSample;
    }

    for (CheckStep const& step : family.steps)
    {
        if (step.needsSample && !c.sample)
        {
            for (std::string_view const rule : step.rules)
            {
                findings.push_back(skipped(std::string(rule), c.noSample));
            }
            continue;
        }
        std::vector<Finding> const stepFindings = runStep(c, step.rules, step.run, options, err);
        findings.insert(findings.end(), stepFindings.begin(), stepFindings.end());
    }
    sortFindings(findings);
    return report;
}

//! The registry-load rule: a private registry (kilnCreatePluginRegistry) loads and unloads the library.
Finding checkRegistryLoad(PluginLibrary const& library, CheckOptions const& options, std::ostream& err)
{
    if (library.source == "static registration")
    {
        return skipped("registry-load",
            "the library registers its creators from static initializers (no getCreators or getPluginCreators); "
            "IPluginRegistry::loadLibrary does not load such libraries (kiln --staticPlugins does)");
    }
    ChildOutcome const outcome = runInChild(
        [&](ChildChannel const& channel) {
            nvinfer1::IPluginRegistry* registry = kilnCreatePluginRegistry(nullptr);
            announce("IPluginRegistry::loadLibrary");
            void* handle = registry != nullptr ? registry->loadLibrary(library.path.c_str()) : nullptr;
            int32_t count = 0;
            if (handle != nullptr)
            {
                registry->getAllCreators(&count);
                announce("IPluginRegistry::deregisterLibrary");
                registry->deregisterLibrary(handle);
            }
            kilnDestroyPluginRegistry(registry);
            channel.send(json{{"loaded", handle != nullptr}, {"creators", count}});
        },
        options.timeoutSeconds);
    if (!outcome.completed)
    {
        relayLogs(outcome, err);
        return broken("registry-load", "the library " + endingText(outcome));
    }
    json const result = outcome.messages.empty() ? json::object() : outcome.messages.front();
    if (!result.value("loaded", false))
    {
        std::string said;
        for (std::string const& line : outcome.logs)
        {
            said += (said.empty() ? "" : "; ") + line;
        }
        return broken(
            "registry-load", "IPluginRegistry::loadLibrary refused it" + (said.empty() ? std::string() : ": " + said));
    }
    relayLogs(outcome, err);
    return passed("registry-load",
        "IPluginRegistry::loadLibrary registered " + counted(result.value("creators", 0U), "creator") + " through "
            + library.source + ", and deregisterLibrary unloaded them");
}

CheckReport checkLibrary(PluginLibrary const& library, CheckOptions const& options, std::ostream& err)
{
    CheckReport report;
    report.library = library.path;
    report.source = library.source;
    report.libraryFindings.push_back(checkRegistryLoad(library, options, err));
    for (LibraryCreator const& creator : library.creators)
    {
        if (options.creators.empty()
            || std::find(options.creators.begin(), options.creators.end(), creator.name) != options.creators.end())
        {
            report.creators.push_back(checkCreator(creator, options, err));
        }
    }
    return report;
}

json reportJson(CheckReport const& report)
{
    json library = json::array();
    for (Finding const& finding : report.libraryFindings)
    {
        library.push_back(finding.toJson());
    }
    json creators = json::array();
    for (CreatorReport const& c : report.creators)
    {
        json findings = json::array();
        for (Finding const& finding : c.findings)
        {
            findings.push_back(finding.toJson());
        }
        creators.push_back({{"name", c.creator.name}, {"version", c.creator.version},
            {"namespace", c.creator.pluginNamespace}, {"interface", c.creator.interfaceText()},
            {"sample", c.sample.empty() ? json(nullptr) : json(c.sample)}, {"findings", findings}});
    }
    return {{"kind", "check-plugin"}, {"library", report.library}, {"creatorsFrom", report.source},
        {"libraryFindings", library}, {"creators", creators}, {"passed", report.count(Verdict::kPASSED)},
        {"broken", report.count(Verdict::kBROKEN)}, {"skipped", report.count(Verdict::kSKIPPED)}};
}

void printFinding(Finding const& finding, std::ostream& out)
{
    std::string const verdict
        = finding.verdict == Verdict::kBROKEN ? "BROKEN" : std::string(verdictName(finding.verdict));
    out << "  " << verdict << std::string(9 - verdict.size(), ' ') << finding.rule << ": " << finding.detail << "\n";
}

void printReport(CheckReport const& report, std::ostream& out)
{
    out << "Plugin library " << report.library << ": " << counted(report.creators.size(), "creator")
        << " checked, from " << report.source << "\n";
    for (Finding const& finding : report.libraryFindings)
    {
        printFinding(finding, out);
    }
    for (CreatorReport const& c : report.creators)
    {
        out << "Creator " << c.creator.identityText() << " (" << c.creator.interfaceText() << ")\n";
        for (Finding const& finding : c.findings)
        {
            printFinding(finding, out);
        }
    }
    for (Finding const& finding : report.libraryFindings)
    {
        if (finding.verdict == Verdict::kBROKEN)
        {
            out << "Broken: the library " << report.library << ": " << finding.rule << ": " << finding.detail << "\n";
        }
    }
    for (CreatorReport const& c : report.creators)
    {
        for (Finding const& finding : c.findings)
        {
            if (finding.verdict == Verdict::kBROKEN)
            {
                out << "Broken: " << c.creator.identityText() << ": " << finding.rule << ": " << finding.detail << "\n";
            }
        }
    }
    out << "Summary: " << report.count(Verdict::kPASSED) << " passed, " << report.count(Verdict::kBROKEN) << " broken, "
        << report.count(Verdict::kSKIPPED) << " skipped\n";
}

void printRules(std::ostream& out)
{
    for (Rule const& rule : checkRules())
    {
        std::string scope;
        for (auto const& [bit, name] :
            {std::pair{kSCOPE_LIBRARY, "library"}, std::pair{kSCOPE_V3, "V3"}, std::pair{kSCOPE_V2, "V2"}})
        {
            if ((rule.scope & bit) != 0)
            {
                scope += (scope.empty() ? "" : ", ") + std::string(name);
            }
        }
        out << rule.id << " (" << scope << "): " << rule.what << "\n";
    }
}

//! "2x3x8x8,3x1x1x1" as shapes ("" a scalar); a SpecError names the bad part.
std::vector<nvinfer1::Dims> parseShapes(std::string const& text)
{
    std::vector<nvinfer1::Dims> shapes;
    std::size_t start = 0;
    while (start <= text.size())
    {
        std::size_t const end = std::min(text.find(',', start), text.size());
        std::string const item = text.substr(start, end - start);
        ShapeMap const parsed = parseShapeList("input:" + item);
        shapes.push_back(parsed.begin()->second);
        start = end + 1;
    }
    return shapes;
}

} // namespace

int runCheckPlugin(std::vector<std::string> const& args, std::ostream& out, std::ostream& err)
{
    LoggerScope const scope(err, Severity::kWARNING);
    CLI::App app("kiln check-plugin: proves a plugin library's creators keep the plugin contract, without a GPU where "
                 "it can (see --list-rules)",
        "kiln check-plugin");
    CheckOptions options;
    bool asJson = false;
    bool listRules = false;
    std::vector<std::string> fields;
    std::string shapes;
    int32_t nbInputs = 0;
    app.add_option("library", options.library, "The plugin library (.so) to check");
    app.add_flag("--json", asJson, "One JSON object on stdout instead of text");
    app.add_flag("--list-rules", listRules, "Print the rules checked and exit");
    app.add_option("--creator", options.creators, "Check only the creator of this name (repeatable)")
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->allow_extra_args(false);
    app.add_option("--field", fields,
           "NAME=VALUES: a field's value for createPlugin, e.g. group=3 or pads=0,0,0,0 (repeatable; needed for "
           "fields declared without data)")
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->allow_extra_args(false);
    app.add_option("--inputs", nbInputs, "The plugin's input count (else 1 to 4 are tried)")->check(CLI::Range(0, 64));
    app.add_option("--shapes", shapes, "Every input's shape, comma-separated: 2x3x8x8,3x1x1x1 (sets the input count)");
    app.add_option("--timeout", options.timeoutSeconds, "Seconds each check may run before it counts as hung")
        ->check(CLI::Range(1, 3600));
    std::vector<char const*> argv{"kiln check-plugin"};
    for (std::string const& arg : args)
    {
        argv.push_back(arg.c_str());
    }
    try
    {
        app.parse(static_cast<int>(argv.size()), argv.data());
        if (listRules)
        {
            printRules(out);
            return 0;
        }
        if (options.library.empty())
        {
            throw CLI::RequiredError("library");
        }
        for (std::string const& field : fields)
        {
            std::size_t const equals = field.find('=');
            if (equals == std::string::npos || equals == 0)
            {
                throw CLI::ValidationError("--field", "'" + field + "' is not NAME=VALUES");
            }
            options.sample.fields[field.substr(0, equals)] = field.substr(equals + 1);
        }
        if (app.count("--inputs") > 0)
        {
            options.sample.nbInputs = nbInputs;
        }
        if (!shapes.empty())
        {
            options.sample.shapes = parseShapes(shapes);
            if (options.sample.nbInputs
                && *options.sample.nbInputs != static_cast<int32_t>(options.sample.shapes.size()))
            {
                throw CLI::ValidationError("--shapes",
                    "gives " + std::to_string(options.sample.shapes.size()) + " shapes but --inputs says "
                        + std::to_string(*options.sample.nbInputs));
            }
        }
    }
    catch (CLI::ParseError const& e)
    {
        return app.exit(e, out, err) == 0 ? 0 : 2;
    }
    catch (SpecError const& e)
    {
        err << "--shapes: " << e.what() << "\n";
        return 2;
    }
    try
    {
        kilnSetLogger(&logger());
        PluginLibrary const library = openPluginLibrary(options.library, "check-plugin");
        // Usage checked against the library: --creator names and --field names must exist.
        std::set<std::string> declared;
        std::set<std::string> names;
        for (LibraryCreator const& creator : library.creators)
        {
            names.insert(creator.name);
            nvinfer1::PluginFieldCollection const* fc = creator.isV3() ? creator.v3()->getFieldNames()
                : creator.isV2()                                       ? creator.v2()->getFieldNames()
                                                                       : nullptr;
            for (int32_t i = 0; fc != nullptr && fc->fields != nullptr && i < fc->nbFields; ++i)
            {
                if (fc->fields[i].name != nullptr)
                {
                    declared.insert(fc->fields[i].name);
                }
            }
        }
        for (std::string const& name : options.creators)
        {
            if (names.count(name) == 0)
            {
                err << "--creator: " << options.library << " has no creator named " << name << "\n";
                return 2;
            }
        }
        for (auto const& [name, value] : options.sample.fields)
        {
            if (declared.count(name) == 0)
            {
                err << "--field " << name << ": no creator of " << options.library
                    << " declares such a field (getFieldNames)\n";
                return 2;
            }
        }
        CheckReport const report = checkLibrary(library, options, err);
        if (asJson)
        {
            out << reportJson(report).dump(2) << "\n";
        }
        else
        {
            printReport(report, out);
        }
        return report.count(Verdict::kBROKEN) > 0 ? 1 : 0;
    }
    catch (SpecError const& e)
    {
        err << e.what() << "\n";
        return 2;
    }
    catch (std::exception const& e)
    {
        logger().error(e.what());
        return 1;
    }
}

} // namespace kiln_tool
