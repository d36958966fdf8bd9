// SPDX-License-Identifier: Apache-2.0
// The figures the docs state are the code's, and each is stated once in one form:
// - docs/onnx-parser.md's list of supported ops is the parser's: every op it lists has an importer
//   (IParser::supportsOperator), every ONNX op (libonnx's schemas, default domain) with an importer is listed, and the
//   count it states is the list's length; the README states the same count;
// - docs/onnx-conformance.md (kiln_onnx_conformance --report) agrees with itself (its summary counts its rows), and
//   docs/onnx-parser.md's node row and the README's "P of T pass, F fails" are its summary, with every failed test
//   named in both;
// - the README's number of built-in layer kinds is the length of the one list of layer kinds
//   (src/network/layer_kinds.h) less the two plugin kinds, and docs/architecture.md's split of that list is the same.
#include "NvInfer.h"
#include "NvOnnxParser.h"
#include "network/layer_kinds.h"

#include <gtest/gtest.h>
#include <onnx/defs/schema.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace
{

class NullLogger : public nvinfer1::ILogger
{
    void log(Severity, char const*) noexcept override {}
};

//! The text of a file under the source tree ("docs/onnx-parser.md"), or "" when it cannot be read.
std::string readDoc(std::string const& relative)
{
    std::ifstream in(std::string(KILN_SOURCE_DIR "/") + relative);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

//! The numbers captured by pattern's groups at its first match in text; empty when it does not match.
std::vector<int> figures(std::string const& text, std::string const& pattern)
{
    std::smatch match;
    if (!std::regex_search(text, match, std::regex(pattern)))
    {
        return {};
    }
    std::vector<int> numbers;
    for (size_t i = 1; i < match.size(); ++i)
    {
        numbers.push_back(std::stoi(match[static_cast<int>(i)].str()));
    }
    return numbers;
}

//! How many matches of pattern text holds.
int occurrences(std::string const& text, std::string const& pattern)
{
    std::regex const re(pattern);
    return static_cast<int>(std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

//! The words of the "## Supported ops" section, and the count its first line states.
std::set<std::string> documentedOps(int& statedCount)
{
    std::string const doc = readDoc("docs/onnx-parser.md");
    size_t const start = doc.find("## Supported ops");
    size_t const end = doc.find("\n## ", start + 1);
    std::string const section = doc.substr(start, end - start);
    // "<count> op types" on the section's first text line.
    size_t const phrase = section.find(" op types");
    size_t const digits = section.find_last_not_of("0123456789", phrase - 1) + 1;
    statedCount
        = phrase != std::string::npos && digits < phrase ? std::stoi(section.substr(digits, phrase - digits)) : -1;
    std::set<std::string> ops;
    std::istringstream lines(section);
    std::string line;
    while (std::getline(lines, line))
    {
        if (line.empty() || line[0] == '#' || line.find("op types") != std::string::npos)
        {
            continue;
        }
        std::istringstream words(line);
        for (std::string word; words >> word;)
        {
            ops.insert(word);
        }
    }
    return ops;
}

TEST(OnnxParserDocs, SupportedOpsListIsTheParsers)
{
    NullLogger logger;
    std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger)};
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    std::unique_ptr<nvonnxparser::IParser> parser{nvonnxparser::createParser(*network, logger)};
    int stated = 0;
    std::set<std::string> const documented = documentedOps(stated);
    ASSERT_GT(documented.size(), 100U);
    EXPECT_EQ(stated, static_cast<int>(documented.size())) << "the count in docs/onnx-parser.md is stale";
    for (std::string const& op : documented)
    {
        EXPECT_TRUE(parser->supportsOperator(op.c_str())) << op << " is listed but has no importer";
    }
    for (onnx::OpSchema const& schema : onnx::OpSchemaRegistry::get_all_schemas())
    {
        if (schema.domain().empty() && documented.count(schema.Name()) == 0)
        {
            EXPECT_FALSE(parser->supportsOperator(schema.Name().c_str()))
                << schema.Name() << " has an importer but docs/onnx-parser.md does not list it";
        }
    }
}

TEST(OnnxParserDocs, TheReadmeStatesTheListsCount)
{
    int stated = 0;
    std::set<std::string> const documented = documentedOps(stated);
    std::string const readme = readDoc("README.md");
    EXPECT_EQ(figures(readme, R"((\d+) ONNX op types)"), std::vector<int>{static_cast<int>(documented.size())})
        << "README.md's count of ONNX op types differs from docs/onnx-parser.md's list";
    EXPECT_EQ(occurrences(readme, R"(\d+ ONNX op types)"), 1) << "README.md states the count once";
    // docs/architecture.md points to the list instead of repeating its count.
    EXPECT_EQ(occurrences(readDoc("docs/architecture.md"), R"(\d+ (ONNX )?op types)"), 0);
}

//! docs/onnx-conformance.md: its summary row (passed, failed, unsupported, crashed, total), and its per-test rows.
struct ConformanceReport
{
    std::vector<int> summary;
    std::map<std::string, int> rowsPerResult;
    std::vector<std::string> failed;
    int rows{0};
};

ConformanceReport readConformanceReport()
{
    std::string const doc = readDoc("docs/onnx-conformance.md");
    ConformanceReport report;
    report.summary = figures(doc,
        R"(\| passed \| failed \| unsupported \| crashed \| total \|\n\|---\|---\|---\|---\|---\|\n)"
        R"(\| (\d+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|)");
    std::regex const row(R"(\n\| (test_\w+) \| (passed|failed|unsupported|crashed) \|)");
    for (auto it = std::sregex_iterator(doc.begin(), doc.end(), row); it != std::sregex_iterator(); ++it)
    {
        ++report.rows;
        ++report.rowsPerResult[(*it)[2].str()];
        if ((*it)[2].str() == "failed")
        {
            report.failed.push_back((*it)[1].str());
        }
    }
    return report;
}

TEST(OnnxParserDocs, TheConformanceReportCountsItsRows)
{
    ConformanceReport report = readConformanceReport();
    ASSERT_EQ(report.summary.size(), 5U) << "docs/onnx-conformance.md has no summary row";
    EXPECT_EQ(report.summary,
        (std::vector<int>{report.rowsPerResult["passed"], report.rowsPerResult["failed"],
            report.rowsPerResult["unsupported"], report.rowsPerResult["crashed"], report.rows}));
    EXPECT_GT(report.rows, 900);
}

TEST(OnnxParserDocs, TheParserPageAndTheReadmeStateTheReportsFigures)
{
    ConformanceReport const report = readConformanceReport();
    ASSERT_EQ(report.summary.size(), 5U);
    int const passed = report.summary[0];
    int const failed = report.summary[1];
    int const unsupported = report.summary[2];
    int const crashed = report.summary[3];
    int const total = report.summary[4];

    std::string const parserPage = readDoc("docs/onnx-parser.md");
    EXPECT_EQ(figures(parserPage, R"(\| node \((\d+)\) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|)"),
        (std::vector<int>{total, passed, failed, unsupported, crashed}))
        << "docs/onnx-parser.md's node row differs from docs/onnx-conformance.md";
    EXPECT_EQ(figures(parserPage, R"(libonnx-testdata` \(ONNX 1\.12, (\d+) tests\))"), std::vector<int>{total});

    std::string const readme = readDoc("README.md");
    EXPECT_EQ(figures(readme, R"(ONNX's node test suite: (\d+) of (\d+) pass, (\d+) fails?)"),
        (std::vector<int>{passed, total, failed}))
        << "README.md's conformance figures differ from docs/onnx-conformance.md";
    EXPECT_EQ(crashed, 0) << "README.md says none crash";
    for (std::string const& test : report.failed)
    {
        EXPECT_NE(readme.find("`" + test + "`"), std::string::npos) << "README.md does not name the failure " << test;
        EXPECT_NE(parserPage.find("`" + test + "`"), std::string::npos)
            << "docs/onnx-parser.md does not name the failure " << test;
    }
}

TEST(ReadmeFigures, LayerKindsAreTheListsLength)
{
    auto const plugins = static_cast<int>(
        std::count_if(kiln::kLayerKinds.begin(), kiln::kLayerKinds.end(), [](kiln::LayerKindInfo const& kind) {
            return kind.type == nvinfer1::LayerType::kPLUGIN_V2 || kind.type == nvinfer1::LayerType::kPLUGIN_V3;
        }));
    auto const all = static_cast<int>(kiln::kLayerKinds.size());
    EXPECT_EQ(plugins, 2);
    EXPECT_EQ(figures(readDoc("README.md"), R"((\d+) built-in layer kinds)"), std::vector<int>{all - plugins})
        << "README.md's count of built-in layer kinds differs from src/network/layer_kinds.h";
    EXPECT_EQ(figures(readDoc("docs/architecture.md"), R"((\d+) layer kinds \((\d+) built-in, (\d+) plugin\))"),
        (std::vector<int>{all, all - plugins, plugins}))
        << "docs/architecture.md's count of layer kinds differs from src/network/layer_kinds.h";
}

} // namespace
