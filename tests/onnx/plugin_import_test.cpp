// SPDX-License-Identifier: Apache-2.0
// How the ONNX parser imports nodes as plugin layers (spec onnx-parser.md 1.2-1.11): the registry look-up by op type,
// plugin_version, plugin_namespace and the node's domain; V2 against V3 creators; attributes as plugin fields;
// initializer inputs as constants; tensorrt_plugin_shape_input_indices; plugins that override builtin ops; the error
// for a missing plugin; and plugin models built and run end to end on the host backend.
#include "model_builder.h"
#include "plugin_models.h"
#include "test_plugins.h"

#include "NvInfer.h"
#include "NvOnnxParser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace kiln::onnx_test
{
namespace
{

using nvinfer1::LayerType;
using nvonnxparser::ErrorCode;
using nvonnxparser::OnnxParserFlag;

std::vector<float> iota(size_t n, float start = 1.0F)
{
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i)
    {
        v[i] = start + static_cast<float>(i);
    }
    return v;
}

std::vector<float> scaled(std::vector<float> v, float scale)
{
    for (float& x : v)
    {
        x *= scale;
    }
    return v;
}

// ---- 1. Look-up by (op_type, plugin_version, plugin_namespace), then the node's domain ----

TEST(PluginLookup, DefaultsAreVersionOneAndEmptyNamespace)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KTestDefault", "1", "");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m = unaryModel("KTestDefault");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    ASSERT_EQ(log->builds.size(), 1U);
    EXPECT_EQ(log->builds[0].name, "p"); // createPlugin gets the node's name
    EXPECT_EQ(h.layers(LayerType::kPLUGIN_V3).size(), 1U);
}

TEST(PluginLookup, ExplicitVersionAndNamespaceAttributes)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KTestExplicit", "2", "acme");
    Registration reg(creator, "acme");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m = unaryModel("KTestExplicit");
    attrString(node(m), "plugin_version", "2");
    attrString(node(m), "plugin_namespace", "acme");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    EXPECT_EQ(log->builds.size(), 1U);
    EXPECT_EQ(h.layers(LayerType::kPLUGIN_V3).size(), 1U);
}

TEST(PluginLookup, AnotherVersionDoesNotMatch)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KTestVersioned", "2", "");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    {
        // No plugin_version: "1" is looked up, and only "1".
        ModelBuilder m = unaryModel("KTestVersioned");
        Harness h;
        EXPECT_FALSE(h.parse(m));
        ASSERT_NE(h.firstError(), nullptr);
        EXPECT_EQ(h.firstError()->code(), ErrorCode::kINVALID_NODE);
        EXPECT_NE(std::string(h.firstError()->desc()).find("version \"1\""), std::string::npos) << h.errors();
    }
    {
        ModelBuilder m = unaryModel("KTestVersioned");
        attrString(node(m), "plugin_version", "3");
        Harness h;
        EXPECT_FALSE(h.parse(m));
        ASSERT_NE(h.firstError(), nullptr);
        EXPECT_EQ(h.firstError()->code(), ErrorCode::kINVALID_NODE);
    }
    {
        ModelBuilder m = unaryModel("KTestVersioned");
        attrString(node(m), "plugin_version", "2");
        Harness h;
        EXPECT_TRUE(h.parse(m)) << h.errors();
    }
    EXPECT_EQ(log->builds.size(), 1U);
}

TEST(PluginLookup, AnotherNamespaceDoesNotMatch)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KTestSpaced", "1", "acme");
    Registration reg(creator, "acme");
    ASSERT_TRUE(reg.ok());
    {
        ModelBuilder m = unaryModel("KTestSpaced"); // namespace "" and domain ""
        Harness h;
        EXPECT_FALSE(h.parse(m));
        ASSERT_NE(h.firstError(), nullptr);
        EXPECT_EQ(h.firstError()->code(), ErrorCode::kINVALID_NODE);
    }
    {
        ModelBuilder m = unaryModel("KTestSpaced", "other.domain");
        attrString(node(m), "plugin_namespace", "acm");
        Harness h;
        EXPECT_FALSE(h.parse(m));
        ASSERT_NE(h.firstError(), nullptr);
        EXPECT_EQ(h.firstError()->code(), ErrorCode::kINVALID_NODE);
    }
    EXPECT_TRUE(log->builds.empty());
}

TEST(PluginLookup, NameMustMatchExactly)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KTestExact", "1", "");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    for (char const* op : {"KTestExac", "ktestexact", "KTestExact2"})
    {
        ModelBuilder m = unaryModel(op);
        Harness h;
        EXPECT_FALSE(h.parse(m)) << op;
        ASSERT_NE(h.firstError(), nullptr) << op;
        EXPECT_EQ(h.firstError()->code(), ErrorCode::kINVALID_NODE) << op;
    }
    EXPECT_TRUE(log->builds.empty());
}

TEST(PluginLookup, NodeDomainIsTheFallbackNamespace)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KTestDomain", "1", "com.acme");
    Registration reg(creator, "com.acme");
    ASSERT_TRUE(reg.ok());
    {
        ModelBuilder m = unaryModel("KTestDomain", "com.acme");
        m.opset_import("com.acme", 1);
        Harness h;
        ASSERT_TRUE(h.parse(m)) << h.errors();
        EXPECT_EQ(h.layers(LayerType::kPLUGIN_V3).size(), 1U);
    }
    {
        // kiln tries the domain whenever the attribute's namespace finds nothing.
        ModelBuilder m = unaryModel("KTestDomain", "com.acme");
        attrString(node(m), "plugin_namespace", "wrong");
        Harness h;
        ASSERT_TRUE(h.parse(m)) << h.errors();
        EXPECT_EQ(h.layers(LayerType::kPLUGIN_V3).size(), 1U);
    }
    EXPECT_EQ(log->builds.size(), 2U);
}

TEST(PluginLookup, AttributeNamespaceComesBeforeTheDomain)
{
    auto logA = std::make_shared<CreatorLog>();
    auto logB = std::make_shared<CreatorLog>();
    TestCreatorV3 creatorA(logA, "KTestTwice", "1", "a");
    TestCreatorV3 creatorB(logB, "KTestTwice", "1", "b");
    Registration regA(creatorA, "a");
    Registration regB(creatorB, "b");
    ASSERT_TRUE(regA.ok());
    ASSERT_TRUE(regB.ok());
    ModelBuilder m = unaryModel("KTestTwice", "b");
    attrString(node(m), "plugin_namespace", "a");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    EXPECT_EQ(logA->builds.size(), 1U);
    EXPECT_EQ(logB->builds.size(), 0U);
}

// ---- 2. V2 and V3 creators ----

TEST(PluginKinds, V2CreatorMakesAPluginV2Layer)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV2 creator(log, "KTestV2Kind");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m = unaryModel("KTestV2Kind");
    attrFloat(node(m), "scale", 2.5F);
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    EXPECT_EQ(h.layers(LayerType::kPLUGIN_V2).size(), 1U);
    EXPECT_EQ(h.layers(LayerType::kPLUGIN_V3).size(), 0U);
    ASSERT_EQ(log->builds.size(), 1U);
    EXPECT_EQ(log->builds[0].name, "p");
    ASSERT_NE(log->builds[0].field("scale"), nullptr);
    EXPECT_EQ(log->builds[0].field("scale")->as<float>(), std::vector<float>{2.5F});
}

TEST(PluginKinds, V3CreatorMakesAPluginV3Layer)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KTestV3Kind");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m = unaryModel("KTestV3Kind");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    EXPECT_EQ(h.layers(LayerType::kPLUGIN_V3).size(), 1U);
    EXPECT_EQ(h.layers(LayerType::kPLUGIN_V2).size(), 0U);
    ASSERT_EQ(log->builds.size(), 1U);
    EXPECT_FALSE(log->builds[0].runtime); // created for the build phase
    EXPECT_STREQ(h.layers(LayerType::kPLUGIN_V3)[0]->getName(), "p");
}

TEST(PluginKinds, UnnamedNodeIsNamedAfterItsFirstOutput)
{
    for (bool v2 : {false, true})
    {
        SCOPED_TRACE(v2 ? "V2" : "V3");
        auto log = std::make_shared<CreatorLog>();
        TestCreatorV3 creatorV3(log, "KTestUnnamed");
        TestCreatorV2 creatorV2(log, "KTestUnnamed");
        Registration reg(v2 ? static_cast<nvinfer1::IPluginCreatorInterface&>(creatorV2) : creatorV3, "");
        ASSERT_TRUE(reg.ok());
        ModelBuilder m = unaryModel("KTestUnnamed", "", "");
        Harness h;
        ASSERT_TRUE(h.parse(m)) << h.errors();
        ASSERT_EQ(log->builds.size(), 1U);
        EXPECT_EQ(log->builds[0].name, "node_of_y");
    }
}

TEST(PluginKinds, V3PluginRunsEndToEnd)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KTestV3Run");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m = unaryModel("KTestV3Run");
    attrFloat(node(m), "scale", 3.0F);
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto out = h.run({{"x", {{2, 3}, iota(6)}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].shape, (Shape{2, 3}));
    EXPECT_EQ(out["y"].values, scaled(iota(6), 3.0F));
    EXPECT_GE(log->runtimeCreates, 1);
    EXPECT_GE(log->hostRuns, 1);
}

TEST(PluginKinds, V2PluginRunsEndToEnd)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV2 creator(log, "KTestV2Run");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    TestRunnerV2 runner;
    ASSERT_TRUE(kilnRegisterPluginV2HostRunner("KTestV2Run", "1", "", &runner));
    ModelBuilder m = unaryModel("KTestV2Run");
    attrFloat(node(m), "scale", -2.0F);
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto out = h.run({{"x", {{2, 3}, iota(6)}}});
    kilnDeregisterPluginV2HostRunner("KTestV2Run", "1", "");
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].values, scaled(iota(6), -2.0F));
    EXPECT_GE(log->hostRuns, 1);
}

TEST(PluginKinds, AV2PluginBetweenTwoConvolutionsHasItsShapeForTheSecond)
{
    // Conv -> custom V2 node -> Conv: the second convolution needs its input's rank when it is added, which the V2
    // plugin's getOutputDimensions gives at once (as in TensorRT).
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV2 creator(log, "KTestV2Between");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    TestRunnerV2 runner;
    ASSERT_TRUE(kilnRegisterPluginV2HostRunner("KTestV2Between", "1", "", &runner));
    ModelBuilder m;
    m.input("x", {1, 1, 5, 5});
    m.initializer(floatTensor("w", {1, 1, 3, 3}, std::vector<float>(9, 1.0F)));
    m.node("Conv", {"x", "w"}, {"a"}, "conv1");
    attrFloat(m.node("KTestV2Between", {"a"}, {"b"}, "p"), "scale", 2.0F);
    m.node("Conv", {"b", "w"}, {"y"}, "conv2");
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto out = h.run({{"x", {{1, 1, 5, 5}, std::vector<float>(25, 1.0F)}}});
    kilnDeregisterPluginV2HostRunner("KTestV2Between", "1", "");
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    // 3x3 sums of ones are 9 (a 3x3 result); doubled, 18; the second convolution's one window sums nine of them.
    EXPECT_EQ(out["y"].shape, (Shape{1, 1, 1, 1}));
    EXPECT_EQ(out["y"].values, std::vector<float>{162.0F});
}

// ---- 3. Attributes as plugin fields ----

TEST(PluginFields, EachAttributeTypeBecomesItsFieldType)
{
    auto log = std::make_shared<CreatorLog>();
    using T = PluginFieldType;
    TestCreatorV3 creator(log, "KTestFields", "1", "",
        {{"f", T::kFLOAT32}, {"i", T::kINT32}, {"s", T::kCHAR}, {"fs", T::kFLOAT32}, {"is", T::kINT32},
            {"ss", T::kCHAR}, {"t_f32", T::kFLOAT32}, {"t_f32_typed", T::kFLOAT32}, {"t_i64", T::kINT64},
            {"t_i32", T::kINT32}, {"t_f16", T::kFLOAT16}, {"t_i8", T::kINT8}, {"t_f64", T::kFLOAT32},
            {"t_bf16", T::kBF16}});
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m = unaryModel("KTestFields");
    ::onnx::NodeProto& n = node(m);
    attrFloat(n, "f", 0.25F);
    attrInt(n, "i", -42);
    attrString(n, "s", "hello");
    attrFloats(n, "fs", {0.5F, 1.5F, -2.0F});
    attrInts(n, "is", {1, -2, 3});
    attrStrings(n, "ss", {"ab", "", "c"});
    attrTensor(n, "t_f32", floatTensor("", {2, 2}, {1.0F, 2.0F, 3.0F, 4.0F}));
    ::onnx::TensorProto typed;
    typed.set_data_type(::onnx::TensorProto::FLOAT);
    typed.add_dims(2);
    typed.add_float_data(7.0F);
    typed.add_float_data(-7.0F);
    attrTensor(n, "t_f32_typed", typed);
    attrTensor(n, "t_i64", int64Tensor("", {3}, {1, -2, int64_t{1} << 40}));
    attrTensor(n, "t_i32", int32Tensor("", {2}, {7, -7}));
    attrTensor(n, "t_f16", rawTensor("", ::onnx::TensorProto::FLOAT16, {2}, std::vector<uint16_t>{0x3C00, 0xC000}));
    attrTensor(n, "t_i8", rawTensor("", ::onnx::TensorProto::INT8, {3}, std::vector<int8_t>{1, -1, 127}));
    attrTensor(n, "t_f64", rawTensor("", ::onnx::TensorProto::DOUBLE, {2}, std::vector<double>{1.5, -2.25}));
    attrTensor(n, "t_bf16", rawTensor("", ::onnx::TensorProto::BFLOAT16, {1}, std::vector<uint16_t>{0x3F80}));
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    ASSERT_EQ(log->builds.size(), 1U);
    CreateCall const& call = log->builds[0];
    ASSERT_EQ(call.fields.size(), 14U);

    auto check = [&](char const* name, T type, int32_t length) -> FieldRecord const* {
        FieldRecord const* f = call.field(name);
        EXPECT_NE(f, nullptr) << name;
        if (f != nullptr)
        {
            EXPECT_EQ(f->type, type) << name;
            EXPECT_EQ(f->length, length) << name;
            EXPECT_FALSE(f->nullData) << name;
        }
        return f;
    };
    if (auto f = check("f", T::kFLOAT32, 1))
    {
        EXPECT_EQ(f->as<float>(), std::vector<float>{0.25F});
    }
    if (auto f = check("i", T::kINT32, 1))
    {
        EXPECT_EQ(f->as<int32_t>(), std::vector<int32_t>{-42});
    }
    if (auto f = check("s", T::kCHAR, 6)) // "hello" and its NUL
    {
        EXPECT_EQ(f->chars(), std::string("hello", 6));
    }
    if (auto f = check("fs", T::kFLOAT32, 3))
    {
        EXPECT_EQ(f->as<float>(), (std::vector<float>{0.5F, 1.5F, -2.0F}));
    }
    if (auto f = check("is", T::kINT32, 3))
    {
        EXPECT_EQ(f->as<int32_t>(), (std::vector<int32_t>{1, -2, 3}));
    }
    if (auto f = check("ss", T::kCHAR, 6)) // "ab\0" "\0" "c\0"
    {
        EXPECT_EQ(f->chars(), std::string("ab\0\0c\0", 6));
    }
    if (auto f = check("t_f32", T::kFLOAT32, 4))
    {
        EXPECT_EQ(f->as<float>(), (std::vector<float>{1.0F, 2.0F, 3.0F, 4.0F}));
    }
    if (auto f = check("t_f32_typed", T::kFLOAT32, 2))
    {
        EXPECT_EQ(f->as<float>(), (std::vector<float>{7.0F, -7.0F}));
    }
    if (auto f = check("t_i64", T::kINT64, 3))
    {
        EXPECT_EQ(f->as<int64_t>(), (std::vector<int64_t>{1, -2, int64_t{1} << 40}));
    }
    if (auto f = check("t_i32", T::kINT32, 2))
    {
        EXPECT_EQ(f->as<int32_t>(), (std::vector<int32_t>{7, -7}));
    }
    if (auto f = check("t_f16", T::kFLOAT16, 2))
    {
        EXPECT_EQ(f->as<uint16_t>(), (std::vector<uint16_t>{0x3C00, 0xC000}));
    }
    if (auto f = check("t_i8", T::kINT8, 3))
    {
        EXPECT_EQ(f->as<int8_t>(), (std::vector<int8_t>{1, -1, 127}));
    }
    if (auto f = check("t_f64", T::kFLOAT32, 2)) // DOUBLE tensors arrive as FLOAT
    {
        EXPECT_EQ(f->as<float>(), (std::vector<float>{1.5F, -2.25F}));
    }
    if (auto f = check("t_bf16", T::kBF16, 1))
    {
        EXPECT_EQ(f->as<uint16_t>(), std::vector<uint16_t>{0x3F80});
    }
}

TEST(PluginFields, OnlyDeclaredFieldsInTheCreatorsOrder)
{
    for (bool v2 : {false, true})
    {
        SCOPED_TRACE(v2 ? "V2 creator" : "V3 creator");
        auto log = std::make_shared<CreatorLog>();
        std::vector<Declared> declared{{"c", PluginFieldType::kINT32}, {"a", PluginFieldType::kFLOAT32},
            {"missing", PluginFieldType::kFLOAT32}, {"b", PluginFieldType::kCHAR}};
        std::string const name = v2 ? "KTestOrderV2" : "KTestOrderV3";
        TestCreatorV3 creatorV3(log, name, "1", "", declared);
        TestCreatorV2 creatorV2(log, name, "1", "", declared);
        Registration reg(v2 ? static_cast<nvinfer1::IPluginCreatorInterface&>(creatorV2) : creatorV3, "");
        ASSERT_TRUE(reg.ok());
        ModelBuilder m = unaryModel(name);
        ::onnx::NodeProto& n = node(m);
        attrFloat(n, "a", 1.0F);
        attrString(n, "b", "bee");
        attrInt(n, "c", 3);
        attrInt(n, "extra", 9);               // not declared: not passed
        attrString(n, "plugin_version", "1"); // not declared either
        Harness h;
        ASSERT_TRUE(h.parse(m)) << h.errors();
        ASSERT_EQ(log->builds.size(), 1U);
        EXPECT_EQ(log->builds[0].fieldNames(), (std::vector<std::string>{"c", "a", "b"}));
        ASSERT_NE(log->builds[0].field("c"), nullptr);
        EXPECT_EQ(log->builds[0].field("c")->as<int32_t>(), std::vector<int32_t>{3});
        ASSERT_NE(log->builds[0].field("b"), nullptr);
        EXPECT_EQ(log->builds[0].field("b")->chars(), std::string("bee", 4));
        // The declared field without an attribute is skipped with a warning naming it.
        EXPECT_FALSE(h.mLogger.find("missing", nvinfer1::ILogger::Severity::kWARNING).empty()) << h.mLogger.all();
    }
}

TEST(PluginFields, CreatorWithoutFieldsGetsNone)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KTestNoFields", "1", "", {});
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m = unaryModel("KTestNoFields");
    attrFloat(node(m), "scale", 2.0F);
    attrInts(node(m), "dims", {1, 2});
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    ASSERT_EQ(log->builds.size(), 1U);
    EXPECT_TRUE(log->builds[0].fields.empty());
}

TEST(PluginFields, UndeclaredAttributeOfAnyTypeIsIgnored)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KTestIgnoreGraph");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m = unaryModel("KTestIgnoreGraph");
    addAttr(node(m), "body", ::onnx::AttributeProto::GRAPH).mutable_g()->set_name("g");
    attrTensor(node(m), "mask", rawTensor("", ::onnx::TensorProto::BOOL, {2}, std::vector<uint8_t>{1, 0}));
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    ASSERT_EQ(log->builds.size(), 1U);
    EXPECT_TRUE(log->builds[0].fields.empty()); // "scale" is declared but absent
}

TEST(PluginFields, DeclaredFieldOfAnUnsupportedAttributeTypeIsAnError)
{
    // kiln refuses what TensorRT silently passes as an empty kFLOAT16 field.
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KTestBadField", "1", "", {{"body", PluginFieldType::kUNKNOWN}});
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m = unaryModel("KTestBadField");
    addAttr(node(m), "body", ::onnx::AttributeProto::GRAPH).mutable_g()->set_name("g");
    Harness h;
    EXPECT_FALSE(h.parse(m));
    ASSERT_NE(h.firstError(), nullptr);
    EXPECT_EQ(h.firstError()->code(), ErrorCode::kUNSUPPORTED_NODE_ATTR) << h.errors();
    EXPECT_NE(std::string(h.firstError()->desc()).find("body"), std::string::npos) << h.errors();
    EXPECT_EQ(h.firstError()->node(), 0);
    EXPECT_TRUE(log->builds.empty());
}

TEST(PluginFields, DeclaredTensorFieldOfAnUnsupportedElementTypeIsAnError)
{
    for (int32_t type : {::onnx::TensorProto::BOOL, ::onnx::TensorProto::UINT8})
    {
        SCOPED_TRACE(type);
        auto log = std::make_shared<CreatorLog>();
        TestCreatorV3 creator(log, "KTestBadTensor", "1", "", {{"mask", PluginFieldType::kUNKNOWN}});
        Registration reg(creator, "");
        ASSERT_TRUE(reg.ok());
        ModelBuilder m = unaryModel("KTestBadTensor");
        attrTensor(node(m), "mask", rawTensor("", type, {2}, std::vector<uint8_t>{1, 0}));
        Harness h;
        EXPECT_FALSE(h.parse(m));
        ASSERT_NE(h.firstError(), nullptr);
        EXPECT_EQ(h.firstError()->code(), ErrorCode::kUNSUPPORTED_NODE_ATTR) << h.errors();
        EXPECT_TRUE(log->builds.empty());
    }
}

// ---- 4. Initializer inputs ----

TEST(PluginInputs, InitializerInputBecomesAConstantLayer)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KTestConstIn");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m;
    m.input("x", {2, 3});
    std::vector<float> const w{10, 20, 30, 40, 50, 60};
    m.initializer(floatTensor("w", {2, 3}, w));
    attrFloat(m.node("KTestConstIn", {"x", "w"}, {"y"}, "p"), "scale", 2.0F);
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto plugins = h.layers(LayerType::kPLUGIN_V3);
    ASSERT_EQ(plugins.size(), 1U);
    ASSERT_EQ(plugins[0]->getNbInputs(), 2);
    EXPECT_STREQ(plugins[0]->getInput(0)->getName(), "x");
    nvinfer1::ILayer* producer = h.producer(plugins[0]->getInput(1));
    ASSERT_NE(producer, nullptr);
    ASSERT_EQ(producer->getType(), LayerType::kCONSTANT);
    nvinfer1::Weights const weights = static_cast<nvinfer1::IConstantLayer*>(producer)->getWeights();
    EXPECT_EQ(weights.type, nvinfer1::DataType::kFLOAT);
    ASSERT_EQ(weights.count, 6);
    ASSERT_NE(weights.values, nullptr);
    EXPECT_EQ(
        std::vector<float>(static_cast<float const*>(weights.values), static_cast<float const*>(weights.values) + 6),
        w);
    EXPECT_EQ(h.mNetwork->getNbInputs(), 1); // the initializer is not a network input

    auto out = h.run({{"x", {{2, 3}, iota(6)}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    std::vector<float> expected = scaled(iota(6), 2.0F);
    for (size_t i = 0; i < expected.size(); ++i)
    {
        expected[i] += w[i];
    }
    EXPECT_EQ(out["y"].values, expected);
}

TEST(PluginInputs, OneInitializerReadByTwoPluginsIsOneConstant)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KTestConstShared");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m;
    m.input("x", {2, 3});
    m.initializer(floatTensor("w", {2, 3}, {1, 2, 3, 4, 5, 6}));
    m.node("KTestConstShared", {"x", "w"}, {"a"}, "p1");
    m.node("KTestConstShared", {"a", "w"}, {"y"}, "p2");
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto plugins = h.layers(LayerType::kPLUGIN_V3);
    ASSERT_EQ(plugins.size(), 2U);
    EXPECT_EQ(plugins[0]->getInput(1), plugins[1]->getInput(1));
    EXPECT_EQ(h.layers(LayerType::kCONSTANT).size(), 1U);
    auto out = h.run({{"x", {{2, 3}, {0, 0, 0, 0, 0, 0}}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].values, (std::vector<float>{2, 4, 6, 8, 10, 12})); // (0 + w) + w
}

TEST(PluginInputs, V2PluginGetsTheConstantToo)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV2 creator(log, "KTestConstInV2");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m;
    m.input("x", {2, 3});
    m.initializer(floatTensor("w", {2, 3}, {1, 1, 1, 1, 1, 1}));
    m.node("KTestConstInV2", {"x", "w"}, {"y"}, "p");
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto plugins = h.layers(LayerType::kPLUGIN_V2);
    ASSERT_EQ(plugins.size(), 1U);
    ASSERT_EQ(plugins[0]->getNbInputs(), 2);
    nvinfer1::ILayer* producer = h.producer(plugins[0]->getInput(1));
    ASSERT_NE(producer, nullptr);
    EXPECT_EQ(producer->getType(), LayerType::kCONSTANT);
}

// ---- 5. tensorrt_plugin_shape_input_indices ----

//! x [3] and the INT64 initializer s = [2, 3] into a V3 plugin "KTestShapeIn" with the given inputs order.
ModelBuilder shapeModel(std::vector<std::string> const& inputs, std::string const& op = "KTestShapeIn")
{
    ModelBuilder m;
    m.input("x", {3});
    m.initializer(int64Tensor("s", {2}, {2, 3}));
    m.node(op, inputs, {"y"}, "p");
    m.output("y");
    return m;
}

TEST(PluginShapeInputs, IndicesMoveInputsToShapeInputs)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KTestShapeIn");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    for (int64_t index : {int64_t{0}, int64_t{-2}})
    {
        SCOPED_TRACE(index);
        ModelBuilder m = shapeModel({"s", "x"});
        attrInts(node(m), "tensorrt_plugin_shape_input_indices", {index});
        Harness h;
        ASSERT_TRUE(h.parse(m)) << h.errors();
        auto plugins = h.layers(LayerType::kPLUGIN_V3);
        ASSERT_EQ(plugins.size(), 1U);
        ASSERT_EQ(plugins[0]->getNbInputs(), 2);
        // Data inputs first, then shape inputs.
        EXPECT_STREQ(plugins[0]->getInput(0)->getName(), "x");
        EXPECT_STREQ(plugins[0]->getInput(1)->getName(), "s");
        EXPECT_TRUE(plugins[0]->getInput(1)->isShapeTensor());
        // The network's shape inference asks the plugin with one data and one shape input.
        nvinfer1::Dims const dims = plugins[0]->getOutput(0)->getDimensions();
        EXPECT_EQ(log->lastNbInputs, 1);
        EXPECT_EQ(log->lastNbShapeInputs, 1);
        EXPECT_EQ(dims.nbDims, 2);
    }
}

TEST(PluginShapeInputs, DuplicateIndexWarnsAndCountsOnce)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KTestShapeIn");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m = shapeModel({"x", "s"});
    attrInts(node(m), "tensorrt_plugin_shape_input_indices", {1, -1});
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto plugins = h.layers(LayerType::kPLUGIN_V3);
    ASSERT_EQ(plugins.size(), 1U);
    ASSERT_EQ(plugins[0]->getNbInputs(), 2);
    EXPECT_STREQ(plugins[0]->getInput(1)->getName(), "s");
    EXPECT_TRUE(plugins[0]->getInput(1)->isShapeTensor());
    EXPECT_EQ(h.mLogger.find("more than once", nvinfer1::ILogger::Severity::kWARNING).size(), 1U) << h.mLogger.all();
}

TEST(PluginShapeInputs, WithoutIndicesEveryInputIsData)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KTestShapeIn");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m = shapeModel({"x", "s"});
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto plugins = h.layers(LayerType::kPLUGIN_V3);
    ASSERT_EQ(plugins.size(), 1U);
    ASSERT_EQ(plugins[0]->getNbInputs(), 2);
    EXPECT_STREQ(plugins[0]->getInput(1)->getName(), "s");
    EXPECT_FALSE(plugins[0]->getInput(1)->isShapeTensor());
}

TEST(PluginShapeInputs, OutOfRangeIndexIsAnError)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KTestShapeIn");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    for (int64_t index : {int64_t{2}, int64_t{-3}, int64_t{100}})
    {
        SCOPED_TRACE(index);
        ModelBuilder m = shapeModel({"x", "s"});
        attrInts(node(m), "tensorrt_plugin_shape_input_indices", {1, index});
        Harness h;
        EXPECT_FALSE(h.parse(m));
        ASSERT_NE(h.firstError(), nullptr);
        EXPECT_EQ(h.firstError()->code(), ErrorCode::kUNSUPPORTED_NODE) << h.errors();
        EXPECT_NE(std::string(h.firstError()->desc()).find(std::to_string(index)), std::string::npos) << h.errors();
        EXPECT_EQ(h.firstError()->node(), 0);
        EXPECT_TRUE(h.layers(LayerType::kPLUGIN_V3).empty());
    }
}

TEST(PluginShapeInputs, AttributeMustBeInts)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KTestShapeIn");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    for (int variant = 0; variant < 3; ++variant)
    {
        SCOPED_TRACE(variant);
        ModelBuilder m = shapeModel({"x", "s"});
        char const* name = "tensorrt_plugin_shape_input_indices";
        if (variant == 0)
        {
            attrInt(node(m), name, 1);
        }
        else if (variant == 1)
        {
            attrFloats(node(m), name, {1.0F});
        }
        else
        {
            attrString(node(m), name, "1");
        }
        Harness h;
        EXPECT_FALSE(h.parse(m));
        ASSERT_NE(h.firstError(), nullptr);
        EXPECT_EQ(h.firstError()->code(), ErrorCode::kUNSUPPORTED_NODE) << h.errors();
        EXPECT_NE(std::string(h.firstError()->desc()).find("INTS"), std::string::npos) << h.errors();
    }
}

TEST(PluginShapeInputs, V2PluginIgnoresIndicesWithAWarning)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV2 creator(log, "KTestShapeInV2");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m;
    m.input("x", {2, 3});
    m.initializer(floatTensor("w", {2, 3}, {1, 1, 1, 1, 1, 1}));
    m.node("KTestShapeInV2", {"x", "w"}, {"y"}, "p");
    attrInts(node(m), "tensorrt_plugin_shape_input_indices", {1});
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto plugins = h.layers(LayerType::kPLUGIN_V2);
    ASSERT_EQ(plugins.size(), 1U);
    EXPECT_EQ(plugins[0]->getNbInputs(), 2);
    EXPECT_FALSE(h.mLogger.find("shape input", nvinfer1::ILogger::Severity::kWARNING).empty()) << h.mLogger.all();
}

TEST(PluginShapeInputs, ConstantShapeInputRunsEndToEnd)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KTestShapeIn");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m = shapeModel({"x", "s"});
    attrInts(node(m), "tensorrt_plugin_shape_input_indices", {-1});
    attrFloat(node(m), "scale", 2.0F);
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto out = h.run({{"x", {{3}, {1, 2, 3}}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].shape, (Shape{2, 3})); // the shape input's values
    EXPECT_EQ(out["y"].values, (std::vector<float>{2, 4, 6, 2, 4, 6}));
}

TEST(PluginShapeInputs, RuntimeShapeInputRunsEndToEnd)
{
    // y's shape is Shape(x), known only at run time.
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KTestShapeIn");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m;
    m.input("x", {-1, 3});
    m.node("Shape", {"x"}, {"s"}, "shape");
    m.node("KTestShapeIn", {"s", "x"}, {"y"}, "p");
    attrInts(node(m, 1), "tensorrt_plugin_shape_input_indices", {0});
    attrFloat(node(m, 1), "scale", 0.5F);
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto out = h.run({{"x", {{4, 3}, iota(12)}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].shape, (Shape{4, 3}));
    EXPECT_EQ(out["y"].values, scaled(iota(12), 0.5F));
}

// ---- 6. Plugins named like builtin ops ----

class PluginOverride : public ::testing::Test
{
protected:
    //! Parses x -> Relu -> y; returns whether the Relu became the plugin (and checks it became exactly one thing).
    bool parsesAsPlugin(ModelBuilder const& m, bool overrideFlag = false)
    {
        Harness h;
        if (overrideFlag)
        {
            h.mParser->setFlag(OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE);
        }
        bool const parsed = h.parse(m);
        EXPECT_TRUE(parsed) << h.errors();
        size_t const plugins = h.layers(LayerType::kPLUGIN_V3).size();
        auto activations = h.layers(LayerType::kACTIVATION);
        EXPECT_EQ(plugins + activations.size(), 1U);
        if (!activations.empty())
        {
            EXPECT_EQ(static_cast<nvinfer1::IActivationLayer*>(activations[0])->getActivationType(),
                nvinfer1::ActivationType::kRELU);
        }
        return plugins == 1;
    }
    std::shared_ptr<CreatorLog> mLog{std::make_shared<CreatorLog>()};
};

TEST_F(PluginOverride, BuiltinWinsWithoutAttributeOrFlag)
{
    TestCreatorV3 creator(mLog, "Relu");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    EXPECT_FALSE(parsesAsPlugin(unaryModel("Relu")));
    EXPECT_TRUE(mLog->builds.empty());
}

TEST_F(PluginOverride, PresentPluginNamespaceAttributeSelectsThePlugin)
{
    TestCreatorV3 creator(mLog, "Relu");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m = unaryModel("Relu");
    attrString(node(m), "plugin_namespace", ""); // present, even empty
    EXPECT_TRUE(parsesAsPlugin(m));
    EXPECT_EQ(mLog->builds.size(), 1U);
}

TEST_F(PluginOverride, NamedPluginNamespaceAttributeSelectsThePlugin)
{
    TestCreatorV3 creator(mLog, "Relu", "1", "acme");
    Registration reg(creator, "acme");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m = unaryModel("Relu");
    attrString(node(m), "plugin_namespace", "acme");
    EXPECT_TRUE(parsesAsPlugin(m));
    // Without the attribute, the same model gets the builtin.
    EXPECT_FALSE(parsesAsPlugin(unaryModel("Relu")));
    EXPECT_EQ(mLog->builds.size(), 1U);
}

TEST_F(PluginOverride, OverrideFlagSelectsThePluginWithoutAttribute)
{
    TestCreatorV3 creator(mLog, "Relu");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    EXPECT_TRUE(parsesAsPlugin(unaryModel("Relu"), true));
    EXPECT_EQ(mLog->builds.size(), 1U);
}

TEST_F(PluginOverride, AttributeWithoutARegisteredPluginFallsBackToTheBuiltin)
{
    ModelBuilder m = unaryModel("Relu");
    attrString(node(m), "plugin_namespace", "nobody");
    EXPECT_FALSE(parsesAsPlugin(m));
    EXPECT_FALSE(parsesAsPlugin(unaryModel("Relu"), true));
}

TEST_F(PluginOverride, AnotherVersionIsNotAnOverride)
{
    TestCreatorV3 creator(mLog, "Relu", "2", "");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m = unaryModel("Relu");
    attrString(node(m), "plugin_namespace", "");
    EXPECT_FALSE(parsesAsPlugin(m));
    attrString(node(m), "plugin_version", "2");
    EXPECT_TRUE(parsesAsPlugin(m));
    EXPECT_EQ(mLog->builds.size(), 1U);
}

TEST_F(PluginOverride, DomainFallbackAppliesToOverridesToo)
{
    TestCreatorV3 creator(mLog, "Relu", "1", "com.acme");
    Registration reg(creator, "com.acme");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m = unaryModel("Relu", "com.acme");
    m.opset_import("com.acme", 1);
    attrString(node(m), "plugin_namespace", "");
    EXPECT_TRUE(parsesAsPlugin(m));
    EXPECT_EQ(mLog->builds.size(), 1U);
}

TEST_F(PluginOverride, OverriddenReluRunsThePlugin)
{
    TestCreatorV3 creator(mLog, "Relu");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m = unaryModel("Relu");
    attrFloat(node(m), "scale", -1.0F); // a Relu never gives negative values; this plugin does
    Harness h;
    h.mParser->setFlag(OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE);
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto out = h.run({{"x", {{2, 3}, iota(6)}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].values, scaled(iota(6), -1.0F));
}

// ---- Other plugin-path failures ----

TEST(PluginErrors, VersionAndNamespaceAttributesMustBeStrings)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KTestStringAttrs");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    for (char const* attr : {"plugin_version", "plugin_namespace"})
    {
        SCOPED_TRACE(attr);
        ModelBuilder m = unaryModel("KTestStringAttrs");
        attrInt(node(m), attr, 1);
        Harness h;
        EXPECT_FALSE(h.parse(m));
        ASSERT_NE(h.firstError(), nullptr);
        EXPECT_EQ(h.firstError()->code(), ErrorCode::kUNSUPPORTED_NODE_ATTR) << h.errors();
        EXPECT_NE(std::string(h.firstError()->desc()).find(attr), std::string::npos) << h.errors();
    }
    EXPECT_TRUE(log->builds.empty());
}

TEST(PluginErrors, CreatorReturningNullIsAnError)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KTestNullPlugin");
    creator.failCreate = true;
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m = unaryModel("KTestNullPlugin");
    Harness h;
    EXPECT_FALSE(h.parse(m));
    ASSERT_NE(h.firstError(), nullptr);
    EXPECT_EQ(h.firstError()->code(), ErrorCode::kUNSUPPORTED_NODE) << h.errors();
    EXPECT_NE(std::string(h.firstError()->desc()).find("KTestNullPlugin"), std::string::npos) << h.errors();
    EXPECT_EQ(h.firstError()->node(), 0);
    EXPECT_EQ(log->builds.size(), 1U);
}

TEST(PluginErrors, NodeWithMoreOutputsThanThePlugin)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KTestOneOutput");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m;
    m.input("x", {2, 3});
    m.node("KTestOneOutput", {"x"}, {"y", "z"}, "two");
    m.output("y");
    Harness h;
    EXPECT_FALSE(h.parse(m));
    ASSERT_NE(h.firstError(), nullptr);
    EXPECT_EQ(h.firstError()->code(), ErrorCode::kINVALID_GRAPH) << h.errors();
    EXPECT_STREQ(h.firstError()->nodeName(), "two");
}

TEST(PluginErrors, OmittedOptionalOutputIsFine)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KTestOneOutput");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m;
    m.input("x", {2, 3});
    m.node("KTestOneOutput", {"x"}, {"y", ""}, "p");
    m.output("y");
    Harness h;
    EXPECT_TRUE(h.parse(m)) << h.errors();
    EXPECT_EQ(h.layers(LayerType::kPLUGIN_V3).size(), 1U);
}

// Disabled: TensorRT 10 passes an omitted optional input to a plugin as nullptr, and the parser does, but kiln's
// INetworkDefinition::addPluginV3 refuses null inputs (src/network/layers/plugin_v3.cpp). Enable it with that fix.
TEST(PluginInputs, DISABLED_OmittedOptionalInputReachesThePluginAsNull)
{
    // TensorRT passes an omitted ("") input to addPluginV3 as nullptr (supported since 10.0).
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KTestOptionalIn");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m;
    m.input("x", {2, 3});
    m.node("KTestOptionalIn", {"x", ""}, {"y"}, "p");
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors() << h.mLogger.all();
    auto plugins = h.layers(LayerType::kPLUGIN_V3);
    ASSERT_EQ(plugins.size(), 1U);
    ASSERT_EQ(plugins[0]->getNbInputs(), 2);
    EXPECT_STREQ(plugins[0]->getInput(0)->getName(), "x");
    EXPECT_EQ(plugins[0]->getInput(1), nullptr);
}

// ---- 7. A missing plugin ----

TEST(MissingPlugin, ErrorNamesTheNodeAndWhatWasLookedUp)
{
    // The plugin node comes first in graph.node() but second in topological order: node() is the index in the file.
    ModelBuilder m;
    m.input("x", {2, 3});
    ::onnx::NodeProto& p = m.node("KTestNowhere", {"r"}, {"y"}, "mystery", "dom.ain");
    attrString(p, "plugin_version", "3");
    attrString(p, "plugin_namespace", "ns");
    m.node("Relu", {"x"}, {"r"}, "relu");
    m.output("y");
    Harness h;
    EXPECT_FALSE(h.parse(m));
    ASSERT_EQ(h.mParser->getNbErrors(), 1) << h.errors();
    nvonnxparser::IParserError const* e = h.mParser->getError(0);
    EXPECT_EQ(e->code(), ErrorCode::kINVALID_NODE);
    EXPECT_EQ(e->node(), 0);
    EXPECT_STREQ(e->nodeName(), "mystery");
    EXPECT_STREQ(e->nodeOperator(), "KTestNowhere");
    std::string const desc = e->desc();
    for (char const* part : {"KTestNowhere", "\"3\"", "\"ns\"", "\"dom.ain\"", "Register", "registerCreator"})
    {
        EXPECT_NE(desc.find(part), std::string::npos) << "missing " << part << " in: " << desc;
    }
    EXPECT_GT(std::strlen(e->func()), 0U);
    EXPECT_GT(std::strlen(e->file()), 0U);
    EXPECT_TRUE(h.layers(LayerType::kPLUGIN_V3).empty());
    EXPECT_TRUE(h.layers(LayerType::kPLUGIN_V2).empty());
}

TEST(MissingPlugin, DefaultsAreNamedInTheError)
{
    ModelBuilder m = unaryModel("KTestNowhere", "", "n0");
    Harness h;
    EXPECT_FALSE(h.parse(m));
    ASSERT_NE(h.firstError(), nullptr);
    EXPECT_EQ(h.firstError()->code(), ErrorCode::kINVALID_NODE);
    std::string const desc = h.firstError()->desc();
    EXPECT_NE(desc.find("version \"1\""), std::string::npos) << desc;
    EXPECT_NE(desc.find("namespace \"\""), std::string::npos) << desc;
}

TEST(MissingPlugin, EveryMissingPluginIsReported)
{
    ModelBuilder m;
    m.input("x", {2, 3});
    m.node("KTestNowhereA", {"x"}, {"a"}, "first");
    m.node("Relu", {"a"}, {"b"}, "relu");
    m.node("KTestNowhereB", {"b"}, {"y"}, "second");
    m.output("y");
    Harness h;
    EXPECT_FALSE(h.parse(m));
    ASSERT_EQ(h.mParser->getNbErrors(), 2) << h.errors();
    EXPECT_EQ(h.mParser->getError(0)->node(), 0);
    EXPECT_STREQ(h.mParser->getError(0)->nodeOperator(), "KTestNowhereA");
    EXPECT_EQ(h.mParser->getError(1)->node(), 2);
    EXPECT_STREQ(h.mParser->getError(1)->nodeName(), "second");
}

TEST(MissingPlugin, RegisteringTheCreatorMakesTheSameModelParse)
{
    ModelBuilder m = unaryModel("KTestLate");
    {
        Harness h;
        EXPECT_FALSE(h.parse(m));
        EXPECT_EQ(h.mParser->getNbErrors(), 1);
    }
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KTestLate");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    Harness h;
    EXPECT_TRUE(h.parse(m)) << h.errors();
    EXPECT_EQ(h.mParser->getNbErrors(), 0);
}

} // namespace
} // namespace kiln::onnx_test
