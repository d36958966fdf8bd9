// SPDX-License-Identifier: Apache-2.0
// The nvonnxparser API itself (spec onnx-parser.md 1.10, 3.8): parser flags and their defaults, errors and
// clearErrors, supportsOperator, supportsModelV2 and its node partition, the library version, refusing a second
// parse into a non-empty network, createONNXConfig, and a small builtin model parsed, built and run on the host.
#include "model_builder.h"

#include "NvInfer.h"
#include "NvOnnxConfig.h"
#include "NvOnnxParser.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace kiln::onnx_test
{
namespace
{

using nvonnxparser::ErrorCode;
using nvonnxparser::OnnxParserFlag;
using nvonnxparser::OnnxParserFlags;

OnnxParserFlags bit(OnnxParserFlag flag)
{
    return 1U << static_cast<uint32_t>(flag);
}

//! x [2, 3] -> Relu -> y.
ModelBuilder reluModel()
{
    ModelBuilder m;
    m.input("x", {2, 3});
    m.node("Relu", {"x"}, {"y"}, "relu");
    m.output("y");
    return m;
}

TEST(ParserApi, CreateParserGivesAParser)
{
    Harness h;
    ASSERT_NE(h.mBuilder, nullptr);
    ASSERT_NE(h.mNetwork, nullptr);
    ASSERT_NE(h.mParser, nullptr);
    EXPECT_EQ(h.mParser->getNbErrors(), 0);
    EXPECT_EQ(h.mParser->getError(0), nullptr);
    EXPECT_EQ(h.mParser->getError(-1), nullptr);
}

TEST(ParserApi, LibraryVersionIsTheHeaders)
{
    EXPECT_EQ(getNvOnnxParserVersion(), NV_ONNX_PARSER_VERSION);
}

TEST(ParserApi, FlagsDefaultToNativeInstanceNormOnly)
{
    Harness h;
    nvonnxparser::IParser& p = *h.mParser;
    EXPECT_EQ(p.getFlags(), bit(OnnxParserFlag::kNATIVE_INSTANCENORM));
    EXPECT_TRUE(p.getFlag(OnnxParserFlag::kNATIVE_INSTANCENORM));
    for (OnnxParserFlag flag :
        {OnnxParserFlag::kENABLE_UINT8_AND_ASYMMETRIC_QUANTIZATION_DLA, OnnxParserFlag::kREPORT_CAPABILITY_DLA,
            OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE, OnnxParserFlag::kADJUST_FOR_DLA})
    {
        EXPECT_FALSE(p.getFlag(flag)) << static_cast<int>(flag);
    }
}

TEST(ParserApi, SetClearAndReplaceFlags)
{
    Harness h;
    nvonnxparser::IParser& p = *h.mParser;
    p.setFlag(OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE);
    EXPECT_TRUE(p.getFlag(OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE));
    EXPECT_EQ(p.getFlags(), bit(OnnxParserFlag::kNATIVE_INSTANCENORM) | bit(OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE));
    p.setFlag(OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE); // idempotent
    EXPECT_EQ(p.getFlags(), bit(OnnxParserFlag::kNATIVE_INSTANCENORM) | bit(OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE));
    p.clearFlag(OnnxParserFlag::kNATIVE_INSTANCENORM);
    EXPECT_FALSE(p.getFlag(OnnxParserFlag::kNATIVE_INSTANCENORM));
    EXPECT_EQ(p.getFlags(), bit(OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE));
    p.clearFlag(OnnxParserFlag::kREPORT_CAPABILITY_DLA); // clearing a clear flag changes nothing
    EXPECT_EQ(p.getFlags(), bit(OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE));
    p.setFlags(bit(OnnxParserFlag::kREPORT_CAPABILITY_DLA) | bit(OnnxParserFlag::kADJUST_FOR_DLA));
    EXPECT_EQ(p.getFlags(), bit(OnnxParserFlag::kREPORT_CAPABILITY_DLA) | bit(OnnxParserFlag::kADJUST_FOR_DLA));
    EXPECT_TRUE(p.getFlag(OnnxParserFlag::kREPORT_CAPABILITY_DLA));
    EXPECT_FALSE(p.getFlag(OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE));
    p.setFlags(0);
    EXPECT_EQ(p.getFlags(), 0U);
}

TEST(ParserApi, SupportsOperator)
{
    Harness h;
    for (char const* op : {"Conv", "Relu", "Add", "MatMul", "Identity"})
    {
        EXPECT_TRUE(h.mParser->supportsOperator(op)) << op;
    }
    for (char const* op : {"NoSuchOp", "", "conv", "FallbackPluginImporter"})
    {
        EXPECT_FALSE(h.mParser->supportsOperator(op)) << op;
    }
    EXPECT_FALSE(h.mParser->supportsOperator(nullptr));
}

TEST(ParserApi, ParsesAndRunsABuiltinModel)
{
    Harness h;
    ASSERT_TRUE(h.parse(reluModel())) << h.errors();
    EXPECT_EQ(h.mParser->getNbErrors(), 0);
    ASSERT_EQ(h.mNetwork->getNbInputs(), 1);
    ASSERT_EQ(h.mNetwork->getNbOutputs(), 1);
    EXPECT_STREQ(h.mNetwork->getInput(0)->getName(), "x");
    EXPECT_STREQ(h.mNetwork->getOutput(0)->getName(), "y");
    EXPECT_EQ(h.layers(nvinfer1::LayerType::kACTIVATION).size(), 1U);
    auto out = h.run({{"x", {{2, 3}, {-1, 2, -3, 4, -5, 6}}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].values, (std::vector<float>{0, 2, 0, 4, 0, 6}));
}

TEST(ParserApi, ErrorsAccumulateAndClear)
{
    Harness h;
    EXPECT_FALSE(h.mParser->parse(nullptr, 0));
    int const first = h.mParser->getNbErrors();
    EXPECT_GE(first, 1);
    ASSERT_NE(h.mParser->getError(0), nullptr);
    EXPECT_EQ(h.mParser->getError(0)->code(), ErrorCode::kMODEL_DESERIALIZE_FAILED);
    EXPECT_EQ(h.mParser->getError(0)->node(), -1);
    EXPECT_STREQ(h.mParser->getError(0)->nodeName(), "");
    EXPECT_STREQ(h.mParser->getError(0)->nodeOperator(), "");
    EXPECT_EQ(h.mParser->getError(0)->localFunctionStackSize(), 0);
    EXPECT_EQ(h.mParser->getError(first), nullptr);
    std::string const garbage = "not a model";
    EXPECT_FALSE(h.parse(garbage));
    EXPECT_GT(h.mParser->getNbErrors(), first);
    h.mParser->clearErrors();
    EXPECT_EQ(h.mParser->getNbErrors(), 0);
    EXPECT_EQ(h.mParser->getError(0), nullptr);
    // The network is still empty, so a good model parses now.
    EXPECT_TRUE(h.parse(reluModel())) << h.errors();
    EXPECT_EQ(h.mParser->getNbErrors(), 0);
}

TEST(ParserApi, SecondParseIntoANonEmptyNetworkIsRefused)
{
    Harness h;
    ASSERT_TRUE(h.parse(reluModel())) << h.errors();
    int32_t const layers = h.mNetwork->getNbLayers();
    EXPECT_FALSE(h.parse(reluModel()));
    ASSERT_EQ(h.mParser->getNbErrors(), 1);
    EXPECT_NE(std::string(h.mParser->getError(0)->desc()).find("non-empty network"), std::string::npos) << h.errors();
    EXPECT_EQ(h.mNetwork->getNbLayers(), layers); // nothing added
    EXPECT_EQ(h.mNetwork->getNbInputs(), 1);
}

TEST(ParserApi, SupportsModelV2PartitionsSupportedAndUnsupportedNodes)
{
    // Relu (supported) -> KTestNoSuchPlugin (no plugin registered) -> Sigmoid -> Tanh.
    ModelBuilder m;
    m.input("x", {2, 3});
    m.node("Relu", {"x"}, {"a"}, "relu");
    m.node("KTestNoSuchPlugin", {"a"}, {"b"}, "unknown");
    m.node("Sigmoid", {"b"}, {"c"}, "sigmoid");
    m.node("Tanh", {"c"}, {"y"}, "tanh");
    m.output("y");
    std::string const bytes = m.bytes();
    Harness h;
    EXPECT_FALSE(h.mParser->supportsModelV2(bytes.data(), bytes.size()));
    ASSERT_EQ(h.mParser->getNbSubgraphs(), 3);
    std::vector<std::vector<int64_t>> nodes;
    std::vector<bool> supported;
    for (int64_t i = 0; i < h.mParser->getNbSubgraphs(); ++i)
    {
        int64_t length = -1;
        int64_t* list = h.mParser->getSubgraphNodes(i, length);
        ASSERT_NE(list, nullptr);
        nodes.emplace_back(list, list + length);
        supported.push_back(h.mParser->isSubgraphSupported(i));
    }
    EXPECT_EQ(nodes, (std::vector<std::vector<int64_t>>{{0}, {1}, {2, 3}}));
    EXPECT_EQ(supported, (std::vector<bool>{true, false, true}));
    EXPECT_FALSE(h.mParser->isSubgraphSupported(3));
    int64_t length = -1;
    EXPECT_EQ(h.mParser->getSubgraphNodes(3, length), nullptr);
    EXPECT_EQ(length, 0);
    // supportsModelV2 adds nothing to the network.
    EXPECT_EQ(h.mNetwork->getNbLayers(), 0);
    EXPECT_EQ(h.mNetwork->getNbInputs(), 0);
}

TEST(ParserApi, SupportsModelV2OnASupportedModel)
{
    std::string const bytes = reluModel().bytes();
    Harness h;
    EXPECT_TRUE(h.mParser->supportsModelV2(bytes.data(), bytes.size())) << h.errors();
    ASSERT_EQ(h.mParser->getNbSubgraphs(), 1);
    EXPECT_TRUE(h.mParser->isSubgraphSupported(0));
    int64_t length = 0;
    int64_t* list = h.mParser->getSubgraphNodes(0, length);
    ASSERT_EQ(length, 1);
    EXPECT_EQ(list[0], 0);
    // The network is untouched, so the same parser can then parse.
    EXPECT_TRUE(h.parse(bytes)) << h.errors();
}

TEST(ParserApi, SupportsModelV2OnBytesThatAreNotAModel)
{
    Harness h;
    std::string const garbage(64, '\xff');
    EXPECT_FALSE(h.mParser->supportsModelV2(garbage.data(), garbage.size()));
    EXPECT_GE(h.mParser->getNbErrors(), 1);
    EXPECT_EQ(h.mParser->getNbSubgraphs(), 0);
}

TEST(ParserApi, ParseFromFileOfAMissingFileFails)
{
    Harness h;
    EXPECT_FALSE(h.mParser->parseFromFile("/nonexistent/kiln/model.onnx", 0));
    ASSERT_EQ(h.mParser->getNbErrors(), 1);
    EXPECT_NE(std::string(h.mParser->getError(0)->desc()).find("/nonexistent/kiln/model.onnx"), std::string::npos);
    EXPECT_FALSE(h.mParser->parseFromFile(nullptr, 0));
    EXPECT_EQ(h.mParser->getNbErrors(), 2);
}

TEST(ParserApi, GetLayerOutputTensorFindsLayersByName)
{
    Harness h;
    ASSERT_TRUE(h.parse(reluModel())) << h.errors();
    auto activations = h.layers(nvinfer1::LayerType::kACTIVATION);
    ASSERT_EQ(activations.size(), 1U);
    EXPECT_EQ(h.mParser->getLayerOutputTensor(activations[0]->getName(), 0), activations[0]->getOutput(0));
    EXPECT_EQ(h.mParser->getLayerOutputTensor(activations[0]->getName(), 1), nullptr);
    EXPECT_EQ(h.mParser->getLayerOutputTensor("no such layer", 0), nullptr);
    EXPECT_EQ(h.mParser->getLayerOutputTensor(nullptr, 0), nullptr);
}

TEST(OnnxConfig, SettersRoundTrip)
{
    std::unique_ptr<nvonnxparser::IOnnxConfig> config{nvonnxparser::createONNXConfig()};
    ASSERT_NE(config, nullptr);
    EXPECT_EQ(config->getModelDtype(), nvinfer1::DataType::kFLOAT);
    EXPECT_STREQ(config->getModelFileName(), "");
    EXPECT_FALSE(config->getPrintLayerInfo());

    config->setModelDtype(nvinfer1::DataType::kHALF);
    EXPECT_EQ(config->getModelDtype(), nvinfer1::DataType::kHALF);
    std::string name = "model.onnx";
    config->setModelFileName(name.c_str());
    name = "changed";
    EXPECT_STREQ(config->getModelFileName(), "model.onnx"); // copied
    config->setTextFileName("report.txt");
    EXPECT_STREQ(config->getTextFileName(), "report.txt");
    config->setFullTextFileName("full.txt");
    EXPECT_STREQ(config->getFullTextFileName(), "full.txt");
    config->setPrintLayerInfo(true);
    EXPECT_TRUE(config->getPrintLayerInfo());

    auto const warning = static_cast<nvonnxparser::IOnnxConfig::Verbosity>(nvinfer1::ILogger::Severity::kWARNING);
    config->setVerbosityLevel(warning);
    EXPECT_EQ(config->getVerbosityLevel(), warning);
    config->addVerbosity();
    EXPECT_EQ(config->getVerbosityLevel(), warning + 1);
    config->reduceVerbosity();
    config->reduceVerbosity();
    EXPECT_EQ(config->getVerbosityLevel(), warning - 1);
}

} // namespace
} // namespace kiln::onnx_test
