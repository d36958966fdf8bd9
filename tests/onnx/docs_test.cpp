// SPDX-License-Identifier: Apache-2.0
// docs/onnx-parser.md's list of supported ops is the parser's: every op it lists has an importer
// (IParser::supportsOperator), every ONNX op (libonnx's schemas, default domain) with an importer is listed, and the
// count it states is the list's length.
#include "NvInfer.h"
#include "NvOnnxParser.h"

#include <gtest/gtest.h>
#include <onnx/defs/schema.h>

#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>

namespace
{

class NullLogger : public nvinfer1::ILogger
{
    void log(Severity, char const*) noexcept override {}
};

//! The words of the "## Supported ops" section, and the count its first line states.
std::set<std::string> documentedOps(int& statedCount)
{
    std::ifstream in(KILN_SOURCE_DIR "/docs/onnx-parser.md");
    std::stringstream text;
    text << in.rdbuf();
    std::string const doc = text.str();
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

} // namespace
