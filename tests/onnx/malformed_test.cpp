// SPDX-License-Identifier: Apache-2.0
// Malformed ONNX input never crashes the parser and always leaves an IParserError (spec onnx-parser.md 1.3, 3.1-3.3):
// empty, truncated, foreign and random bytes; a node input nobody produces; a cycle; initializers whose data does
// not fit their shape; external data outside the model's folder, and valid external data run end to end; and graph
// inputs of an element type kiln lacks.
#include "model_builder.h"

#include "NvInfer.h"
#include "NvOnnxParser.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace kiln::onnx_test
{
namespace
{

namespace fs = std::filesystem;
using nvonnxparser::ErrorCode;

//! x [2, 3] + w (an initializer) -> Relu -> y.
ModelBuilder addReluModel()
{
    ModelBuilder m;
    m.input("x", {2, 3});
    m.initializer(floatTensor("w", {2, 3}, {1, -2, 3, -4, 5, -6}));
    m.node("Add", {"x", "w"}, {"s"}, "add");
    m.node("Relu", {"s"}, {"y"}, "relu");
    m.output("y");
    return m;
}

//! The model's bytes with the graph field written last, so that every strict prefix lacks a complete graph.
std::string graphLastBytes(ModelBuilder const& builder)
{
    ModelBuilder copy = builder;
    ::onnx::GraphProto const graph = copy.proto().graph();
    copy.proto().clear_graph();
    std::string bytes = copy.bytes();
    std::string const graphBytes = graph.SerializeAsString();
    bytes.push_back(static_cast<char>((7 << 3) | 2)); // field 7 (graph), length-delimited
    for (uint64_t n = graphBytes.size();; n >>= 7)
    {
        uint8_t const byte = n & 0x7F;
        if (n < 0x80)
        {
            bytes.push_back(static_cast<char>(byte));
            break;
        }
        bytes.push_back(static_cast<char>(byte | 0x80));
    }
    return bytes + graphBytes;
}

//! Parses bytes in a fresh parser; expects a failure with at least one error record and returns the first code.
ErrorCode expectRefused(std::string const& bytes, std::string const& what)
{
    Harness h;
    bool const parsed = h.mParser->parse(bytes.data(), bytes.size());
    EXPECT_FALSE(parsed) << what;
    EXPECT_GE(h.mParser->getNbErrors(), 1) << what;
    if (h.mParser->getNbErrors() == 0)
    {
        return ErrorCode::kSUCCESS;
    }
    nvonnxparser::IParserError const* e = h.mParser->getError(0);
    EXPECT_NE(e->desc(), nullptr);
    EXPECT_GT(std::string(e->desc()).size(), 0U) << what;
    return e->code();
}

// Every input a fuzzing run found to crash the parser or to reach undefined behaviour (tests/onnx/fuzz_regressions,
// named for what it hit) parses to an answer: true, or false with an error. The sanitizer stages of the tests catch
// undefined behaviour as it happens.
TEST(Malformed, WhatFuzzingFoundParsesWithoutCrashing)
{
    std::vector<std::filesystem::path> files;
    for (auto const& entry : std::filesystem::directory_iterator(KILN_TEST_ONNX_FUZZ_REGRESSIONS))
    {
        files.push_back(entry.path());
    }
    ASSERT_FALSE(files.empty());
    for (std::filesystem::path const& file : files)
    {
        std::ifstream in(file, std::ios::binary);
        std::string const bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        Harness h;
        bool const parsed = h.mParser->parse(bytes.data(), bytes.size());
        EXPECT_TRUE(parsed || h.mParser->getNbErrors() > 0) << file.filename();
    }
}

TEST(Malformed, EmptyBytes)
{
    EXPECT_EQ(expectRefused("", "empty"), ErrorCode::kMODEL_DESERIALIZE_FAILED);
    Harness h;
    EXPECT_FALSE(h.mParser->parse(nullptr, 10));
    ASSERT_EQ(h.mParser->getNbErrors(), 1);
    EXPECT_EQ(h.mParser->getError(0)->code(), ErrorCode::kMODEL_DESERIALIZE_FAILED);
}

TEST(Malformed, TruncatedModelAtEveryCut)
{
    std::string const bytes = graphLastBytes(addReluModel());
    ASSERT_GT(bytes.size(), 100U);
    {
        Harness whole;
        ASSERT_TRUE(whole.parse(bytes)) << whole.errors(); // the reordered model itself is fine
    }
    std::vector<size_t> cuts;
    for (size_t cut = 1; cut < 16; ++cut)
    {
        cuts.push_back(cut);
    }
    for (size_t cut = 16; cut < bytes.size(); cut += 7)
    {
        cuts.push_back(cut);
    }
    cuts.push_back(bytes.size() - 1);
    for (size_t cut : cuts)
    {
        ErrorCode const code = expectRefused(bytes.substr(0, cut), "cut at " + std::to_string(cut));
        EXPECT_NE(code, ErrorCode::kSUCCESS) << cut;
    }
}

TEST(Malformed, TruncatedInsideTheGraphOfANormallySerializedModel)
{
    // Serialized normally, the graph (field 7) comes before opset_import (field 8). Every cut up to the graph's
    // last byte must fail; what parses after it is a model without opset_import.
    ModelBuilder m = addReluModel();
    std::string const bytes = m.bytes();
    std::string const graph = m.proto().graph().SerializeAsString();
    size_t const graphEnd = bytes.find(graph) + graph.size();
    ASSERT_NE(bytes.find(graph), std::string::npos);
    for (size_t cut = 1; cut < graphEnd; cut += 5)
    {
        expectRefused(bytes.substr(0, cut), "cut at " + std::to_string(cut));
    }
    for (size_t cut = graphEnd; cut < bytes.size(); ++cut)
    {
        Harness h; // must not crash, and a failure must say why
        std::string const prefix = bytes.substr(0, cut);
        if (!h.parse(prefix))
        {
            EXPECT_GE(h.mParser->getNbErrors(), 1) << cut;
        }
    }
}

TEST(Malformed, BytesOfAnotherProtobufMessage)
{
    ModelBuilder m = addReluModel();
    std::string const graph = m.proto().graph().SerializeAsString();
    std::string const tensor = m.proto().graph().initializer(0).SerializeAsString();
    std::string const node = m.proto().graph().node(0).SerializeAsString();
    ::onnx::ValueInfoProto const& info = m.proto().graph().input(0);
    std::string const valueInfo = info.SerializeAsString();
    for (auto const& [what, bytes] : std::vector<std::pair<std::string, std::string>>{
             {"GraphProto", graph}, {"TensorProto", tensor}, {"NodeProto", node}, {"ValueInfoProto", valueInfo}})
    {
        expectRefused(bytes, what);
    }
}

TEST(Malformed, RandomBytes)
{
    std::mt19937 random(20240611);
    for (size_t size : {1U, 2U, 3U, 8U, 17U, 64U, 255U, 1024U, 4096U})
    {
        for (int round = 0; round < 8; ++round)
        {
            std::string bytes(size, '\0');
            for (char& c : bytes)
            {
                c = static_cast<char>(random() & 0xFF);
            }
            expectRefused(bytes, "random " + std::to_string(size) + "/" + std::to_string(round));
        }
    }
    // A valid model with bytes flipped must not crash (whether it parses depends on which bytes).
    std::string const model = addReluModel().bytes();
    for (int round = 0; round < 64; ++round)
    {
        std::string damaged = model;
        for (int flip = 0; flip < 3; ++flip)
        {
            damaged[random() % damaged.size()] = static_cast<char>(random() & 0xFF);
        }
        Harness h;
        if (!h.parse(damaged))
        {
            EXPECT_GE(h.mParser->getNbErrors(), 1) << round;
        }
    }
}

TEST(Malformed, ModelWithoutAGraph)
{
    ModelBuilder m = addReluModel();
    m.proto().clear_graph();
    expectRefused(m.bytes(), "no graph");
}

TEST(Malformed, ModelWithoutIrVersion)
{
    // Every ONNX model has an ir_version; a message without one is another protobuf message, or damaged.
    ModelBuilder m = addReluModel();
    m.proto().clear_ir_version();
    expectRefused(m.bytes(), "no ir_version");
}

TEST(Malformed, NodeInputThatNothingProduces)
{
    ModelBuilder m;
    m.input("x", {2, 3});
    m.node("Relu", {"x"}, {"a"}, "ok");
    m.node("Add", {"a", "ghost"}, {"y"}, "haunted");
    m.output("y");
    Harness h;
    EXPECT_FALSE(h.parse(m));
    ASSERT_GE(h.mParser->getNbErrors(), 1);
    nvonnxparser::IParserError const* e = h.mParser->getError(0);
    EXPECT_EQ(e->code(), ErrorCode::kINVALID_GRAPH) << h.errors();
    EXPECT_EQ(e->node(), 1);
    EXPECT_STREQ(e->nodeName(), "haunted");
    EXPECT_STREQ(e->nodeOperator(), "Add");
    EXPECT_NE(std::string(e->desc()).find("ghost"), std::string::npos) << h.errors();
}

TEST(Malformed, CycleBetweenTwoNodes)
{
    ModelBuilder m;
    m.input("x", {2, 3});
    m.node("Add", {"x", "b"}, {"a"}, "first");
    m.node("Relu", {"a"}, {"b"}, "second");
    m.output("b");
    Harness h;
    EXPECT_FALSE(h.parse(m));
    ASSERT_GE(h.mParser->getNbErrors(), 1);
    nvonnxparser::IParserError const* e = h.mParser->getError(0);
    EXPECT_EQ(e->code(), ErrorCode::kINVALID_GRAPH) << h.errors();
    EXPECT_TRUE(std::string(e->nodeName()) == "first" || std::string(e->nodeName()) == "second") << h.errors();
    EXPECT_TRUE(e->node() == 0 || e->node() == 1) << h.errors();
    EXPECT_EQ(h.mNetwork->getNbLayers(), 0);
}

TEST(Malformed, NodeReadingItsOwnOutput)
{
    ModelBuilder m;
    m.input("x", {2, 3});
    m.node("Add", {"x", "a"}, {"a"}, "self");
    m.output("a");
    Harness h;
    EXPECT_FALSE(h.parse(m));
    ASSERT_GE(h.mParser->getNbErrors(), 1);
    EXPECT_EQ(h.mParser->getError(0)->code(), ErrorCode::kINVALID_GRAPH) << h.errors();
    EXPECT_STREQ(h.mParser->getError(0)->nodeName(), "self");
}

TEST(Malformed, InitializerRawDataOfTheWrongSize)
{
    for (size_t bytes : {size_t{0}, size_t{4}, size_t{23}, size_t{25}, size_t{48}})
    {
        SCOPED_TRACE(bytes);
        ModelBuilder m = addReluModel();
        std::string raw(bytes, '\x01');
        m.graph().mutable_initializer(0)->set_raw_data(raw); // w is [2, 3] FLOAT: 24 bytes
        Harness h;
        EXPECT_FALSE(h.parse(m));
        ASSERT_GE(h.mParser->getNbErrors(), 1);
        nvonnxparser::IParserError const* e = h.mParser->getError(0);
        EXPECT_EQ(e->code(), ErrorCode::kINVALID_VALUE) << h.errors();
        EXPECT_NE(std::string(e->desc()).find("'w'"), std::string::npos) << h.errors();
    }
}

TEST(Malformed, InitializerTypedDataOfTheWrongCount)
{
    ModelBuilder m = addReluModel();
    ::onnx::TensorProto& w = *m.graph().mutable_initializer(0);
    w.clear_raw_data();
    w.add_float_data(1.0F); // one value for six elements
    Harness h;
    EXPECT_FALSE(h.parse(m));
    ASSERT_NE(h.firstError(), nullptr);
    EXPECT_EQ(h.firstError()->code(), ErrorCode::kINVALID_VALUE) << h.errors();
}

TEST(Malformed, InitializerWithANegativeDimension)
{
    ModelBuilder m = addReluModel();
    m.graph().mutable_initializer(0)->set_dims(0, -2);
    Harness h;
    EXPECT_FALSE(h.parse(m));
    ASSERT_NE(h.firstError(), nullptr);
    EXPECT_EQ(h.firstError()->code(), ErrorCode::kINVALID_VALUE) << h.errors();
}

TEST(Malformed, StringGraphInputIsRefused)
{
    ModelBuilder m;
    m.input("text", {2}, ::onnx::TensorProto::STRING);
    m.node("Identity", {"text"}, {"y"}, "id");
    m.output("y", ::onnx::TensorProto::STRING);
    Harness h;
    EXPECT_FALSE(h.parse(m));
    ASSERT_GE(h.mParser->getNbErrors(), 1);
    nvonnxparser::IParserError const* e = h.mParser->getError(0);
    EXPECT_EQ(e->code(), ErrorCode::kUNSUPPORTED_NODE) << h.errors();
    EXPECT_STREQ(e->file(), "text"); // graph-input errors name the input in file()
    EXPECT_EQ(e->node(), -1);
    EXPECT_NE(std::string(e->desc()).find("STRING"), std::string::npos) << h.errors();
}

TEST(Malformed, StringInitializerIsRefused)
{
    ModelBuilder m = addReluModel();
    ::onnx::TensorProto& w = *m.graph().mutable_initializer(0);
    w.clear_raw_data();
    w.set_data_type(::onnx::TensorProto::STRING);
    for (int i = 0; i < 6; ++i)
    {
        w.add_string_data("s");
    }
    Harness h;
    EXPECT_FALSE(h.parse(m));
    ASSERT_NE(h.firstError(), nullptr);
    EXPECT_EQ(h.firstError()->code(), ErrorCode::kUNSUPPORTED_NODE_DATATYPE) << h.errors();
}

// ---- External data ----

//! A fresh folder under the temp directory, removed at the end.
class ExternalData : public ::testing::Test
{
protected:
    void SetUp() override
    {
        std::random_device seed;
        mDir = fs::temp_directory_path()
            / ("kiln_onnx_test_" + std::to_string(::getpid()) + "_" + std::to_string(seed()));
        fs::create_directories(mDir / "model");
    }
    void TearDown() override
    {
        std::error_code ignored;
        fs::remove_all(mDir, ignored);
    }

    static void writeFile(fs::path const& path, void const* data, size_t size)
    {
        std::ofstream out(path, std::ios::binary);
        out.write(static_cast<char const*>(data), static_cast<std::streamsize>(size));
    }

    //! addReluModel with w stored externally: location, and optional offset and length keys.
    static ModelBuilder externalModel(
        std::string const& location, std::string const& offset = "", std::string const& length = "")
    {
        ModelBuilder m = addReluModel();
        ::onnx::TensorProto& w = *m.graph().mutable_initializer(0);
        w.clear_raw_data();
        w.set_data_location(::onnx::TensorProto::EXTERNAL);
        auto add = [&](char const* key, std::string const& value) {
            auto* entry = w.add_external_data();
            entry->set_key(key);
            entry->set_value(value);
        };
        add("location", location);
        if (!offset.empty())
        {
            add("offset", offset);
        }
        if (!length.empty())
        {
            add("length", length);
        }
        return m;
    }

    fs::path mDir;
};

TEST_F(ExternalData, ValidFileRunsEndToEnd)
{
    // w's six floats at offset 8 of weights.bin, after 8 bytes of padding.
    std::vector<float> file{99, 99, 10, -20, 30, -40, 50, -60};
    writeFile(mDir / "model" / "weights.bin", file.data(), file.size() * sizeof(float));
    ModelBuilder m = externalModel("weights.bin", "8", "24");
    fs::path const model = mDir / "model" / "model.onnx";
    m.writeTo(model);
    Harness h;
    ASSERT_TRUE(h.mParser->parseFromFile(model.c_str(), 0)) << h.errors();
    auto out = h.run({{"x", {{2, 3}, {1, 1, 1, 1, 1, 1}}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].values, (std::vector<float>{11, 0, 31, 0, 51, 0}));
}

TEST_F(ExternalData, WholeFileWithoutOffsetOrLength)
{
    std::vector<float> file{1, 2, 3, 4, 5, 6};
    fs::create_directories(mDir / "model" / "data");
    writeFile(mDir / "model" / "data" / "w.bin", file.data(), file.size() * sizeof(float));
    fs::path const model = mDir / "model" / "model.onnx";
    externalModel("data/w.bin").writeTo(model);
    Harness h;
    ASSERT_TRUE(h.mParser->parseFromFile(model.c_str(), 0)) << h.errors();
    auto out = h.run({{"x", {{2, 3}, {0, 0, 0, 0, 0, 0}}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].values, file);
}

TEST_F(ExternalData, ModelPathArgumentOfParseLocatesTheFile)
{
    std::vector<float> file{1, 2, 3, 4, 5, 6};
    writeFile(mDir / "model" / "w.bin", file.data(), file.size() * sizeof(float));
    std::string const bytes = externalModel("w.bin").bytes();
    fs::path const model = mDir / "model" / "model.onnx"; // never written: only its folder matters
    Harness h;
    EXPECT_TRUE(h.parse(bytes, model.c_str())) << h.errors();
}

TEST_F(ExternalData, LocationsOutsideTheModelFolderAreRefused)
{
    // A file that exists just outside the model's folder: only the location check can refuse it.
    std::vector<float> file{1, 2, 3, 4, 5, 6};
    writeFile(mDir / "x.bin", file.data(), file.size() * sizeof(float));
    fs::path const model = mDir / "model" / "model.onnx";
    for (std::string const& location :
        {std::string("../x.bin"), std::string("sub/../../x.bin"), (mDir / "x.bin").string()})
    {
        SCOPED_TRACE(location);
        externalModel(location).writeTo(model);
        Harness h;
        EXPECT_FALSE(h.mParser->parseFromFile(model.c_str(), 0));
        ASSERT_GE(h.mParser->getNbErrors(), 1);
        nvonnxparser::IParserError const* e = h.mParser->getError(0);
        EXPECT_EQ(e->code(), ErrorCode::kINVALID_VALUE) << h.errors();
        EXPECT_NE(std::string(e->desc()).find(location), std::string::npos) << h.errors();
    }
}

TEST_F(ExternalData, BadExternalDataIsRefused)
{
    std::vector<float> file{1, 2, 3, 4, 5, 6};
    writeFile(mDir / "model" / "w.bin", file.data(), file.size() * sizeof(float));
    fs::path const model = mDir / "model" / "model.onnx";
    struct Case
    {
        char const* what;
        ModelBuilder m;
    };
    std::vector<Case> cases;
    cases.push_back({"missing file", externalModel("nothere.bin")});
    cases.push_back({"offset past the end", externalModel("w.bin", "100")});
    cases.push_back({"length past the end", externalModel("w.bin", "4", "24")});
    cases.push_back({"too short for the shape", externalModel("w.bin", "0", "20")});
    cases.push_back({"negative offset", externalModel("w.bin", "-4")});
    cases.push_back({"offset not a number", externalModel("w.bin", "four")});
    cases.push_back({"no location", externalModel("")});
    ModelBuilder unknownKey = externalModel("w.bin");
    auto* entry = unknownKey.graph().mutable_initializer(0)->add_external_data();
    entry->set_key("compression");
    entry->set_value("zstd");
    cases.push_back({"unknown key", unknownKey});
    for (Case& c : cases)
    {
        SCOPED_TRACE(c.what);
        c.m.writeTo(model);
        Harness h;
        EXPECT_FALSE(h.mParser->parseFromFile(model.c_str(), 0));
        ASSERT_GE(h.mParser->getNbErrors(), 1);
        EXPECT_EQ(h.mParser->getError(0)->code(), ErrorCode::kINVALID_VALUE) << h.errors();
    }
}

} // namespace
} // namespace kiln::onnx_test
