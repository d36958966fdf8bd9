// SPDX-License-Identifier: Apache-2.0
// Model-local functions (spec onnx-parser.md 1.3, 1.10, 3.7) and If with a constant condition (3.5), through the
// public API: calls once and twice in a scope of their own, ref_attr_name attributes, nested calls, which of a
// builtin op, a plugin and a function a node goes to, errors inside bodies (the calling node's index and the
// "node (function)" stack), calls with too many inputs; If branches chosen at parse time, reading outer names and
// their own initializers, and the refusal of run-time conditions, Loop and Scan.
#include "model_builder.h"
#include "test_plugins.h"

#include "NvInfer.h"
#include "NvOnnxParser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace kiln::onnx_test
{
namespace
{

using nvinfer1::LayerType;
using nvonnxparser::ErrorCode;
using nvonnxparser::OnnxParserFlag;
using Attr = ::onnx::AttributeProto;

std::vector<float> const kX{-3.0F, -2.0F, -1.0F, 1.0F, 2.0F, 3.0F};
Shape const kShape{2, 3};

template <typename F>
std::vector<float> map(std::vector<float> const& v, F f)
{
    std::vector<float> out;
    for (float x : v)
    {
        out.push_back(f(x));
    }
    return out;
}

//! Parses the model (which must succeed), builds it, runs it with x = kX and returns output name.
std::vector<float> runX(Harness& h, ModelBuilder const& m, std::string const& name = "y")
{
    EXPECT_TRUE(h.parse(m)) << h.errors();
    auto outputs = h.run({{"x", {kShape, kX}}});
    EXPECT_EQ(outputs.count(name), 1U) << h.lastFailure();
    return outputs.count(name) != 0 ? outputs[name].values : std::vector<float>{};
}

//! The local-function stack of an error.
std::vector<std::string> stackOf(nvonnxparser::IParserError const& error)
{
    std::vector<std::string> stack;
    for (int32_t i = 0; i < error.localFunctionStackSize(); ++i)
    {
        stack.emplace_back(error.localFunctionStack()[i]);
    }
    return stack;
}

bool contains(std::string const& text, std::string const& part)
{
    return text.find(part) != std::string::npos;
}

//! Every tensor name in the network.
std::set<std::string> tensorNames(Harness& h)
{
    std::set<std::string> names;
    for (int32_t i = 0; i < h.mNetwork->getNbLayers(); ++i)
    {
        nvinfer1::ILayer* layer = h.mNetwork->getLayer(i);
        for (int32_t o = 0; o < layer->getNbOutputs(); ++o)
        {
            names.insert(layer->getOutput(o)->getName());
        }
    }
    return names;
}

//! The function name(a, b) -> y: t = Add(a, b); y = Mul(t, b).
void addMulFunction(ModelBuilder& m, std::string const& name = "AddMul")
{
    ::onnx::FunctionProto& f = addFunction(m, name, {"a", "b"}, {"y"});
    addNode(f, "Add", {"a", "b"}, {"t"}, "add");
    addNode(f, "Mul", {"t", "b"}, {"y"}, "mul");
}

//! The function name(a) -> y: y = Neg(a).
void negFunction(ModelBuilder& m, std::string const& name)
{
    addNode(addFunction(m, name, {"a"}, {"y"}), "Neg", {"a"}, {"y"}, "neg");
}

//! A Constant node whose sparse_value attribute kiln refuses (kUNSUPPORTED_NODE_ATTR).
template <typename Body>
void brokenConstant(Body& body, std::string const& output)
{
    addAttr(addNode(body, "Constant", {}, {output}, "bad_constant"), "sparse_value", Attr::SPARSE_TENSOR);
}

// ---- Local functions ----

TEST(LocalFunction, CalledOnce)
{
    ModelBuilder m;
    m.input("x", kShape);
    m.initializer(floatTensor("w", kShape, {1, 2, 3, 4, 5, 6}));
    addMulFunction(m);
    m.node("AddMul", {"x", "w"}, {"y"}, "call", "kiln.test");
    m.output("y");
    Harness h;
    std::vector<float> const y = runX(h, m);
    EXPECT_EQ(y, (std::vector<float>{-2, 0, 6, 20, 35, 54}));
    EXPECT_TRUE(h.layers(LayerType::kPLUGIN_V3).empty());
    EXPECT_TRUE(h.layers(LayerType::kPLUGIN_V2).empty());
}

TEST(LocalFunction, CalledTwiceNamesDoNotClash)
{
    // The body's "t" and "y" are also top-level names: each call defines them in a scope of its own, so the
    // top-level "t" (a graph input) and "y" stay what they are.
    ModelBuilder m;
    m.input("x", kShape);
    m.input("t", kShape);
    addMulFunction(m);
    m.node("AddMul", {"x", "t"}, {"y1"}, "call1", "kiln.test");
    m.node("AddMul", {"y1", "t"}, {"y2"}, "call2", "kiln.test");
    m.node("Sub", {"y2", "t"}, {"y"}, "after");
    m.output("y1");
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    std::vector<float> const t{1, 1, 2, 2, 3, 3};
    auto out = h.run({{"x", {kShape, kX}}, {"t", {kShape, t}}});
    ASSERT_EQ(out.count("y"), 1U) << h.lastFailure();
    std::vector<float> y1;
    std::vector<float> y;
    for (size_t i = 0; i < kX.size(); ++i)
    {
        y1.push_back((kX[i] + t[i]) * t[i]);
        y.push_back((y1[i] + t[i]) * t[i] - t[i]);
    }
    EXPECT_EQ(out["y1"].values, y1);
    EXPECT_EQ(out["y"].values, y);
    // Tensors made inside a call carry the call's name.
    std::set<std::string> const names = tensorNames(h);
    EXPECT_EQ(names.count("call1/t"), 1U);
    EXPECT_EQ(names.count("call2/t"), 1U);
}

TEST(LocalFunction, BodyDoesNotSeeTheCallersNames)
{
    ModelBuilder m;
    m.input("x", kShape);
    m.input("outer", kShape);
    ::onnx::FunctionProto& f = addFunction(m, "ReadsOuter", {"a"}, {"y"});
    addNode(f, "Add", {"a", "outer"}, {"y"}, "add");
    m.node("ReadsOuter", {"x"}, {"y"}, "call", "kiln.test");
    m.output("y");
    Harness h;
    EXPECT_FALSE(h.parse(m));
    ASSERT_NE(h.firstError(), nullptr);
    EXPECT_EQ(h.firstError()->code(), ErrorCode::kINVALID_GRAPH) << h.errors();
    EXPECT_TRUE(contains(h.firstError()->desc(), "'outer'")) << h.errors();
    EXPECT_EQ(stackOf(*h.firstError()), std::vector<std::string>{"call (ReadsOuter)"});
}

TEST(LocalFunction, RefAttrNameTakesTheCallsValue)
{
    ModelBuilder m;
    m.input("x", kShape);
    ::onnx::FunctionProto& f = addFunction(m, "Leaky", {"a"}, {"y"});
    f.add_attribute("slope");
    attrRef(addNode(f, "LeakyRelu", {"a"}, {"y"}, "leaky"), "alpha", Attr::FLOAT, "slope");
    attrFloat(m.node("Leaky", {"x"}, {"y"}, "half", "kiln.test"), "slope", 0.5F);
    attrFloat(m.node("Leaky", {"x"}, {"z"}, "quarter", "kiln.test"), "slope", 0.25F);
    m.output("y");
    m.output("z");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    auto out = h.run({{"x", {kShape, kX}}});
    ASSERT_EQ(out.count("z"), 1U) << h.lastFailure();
    EXPECT_EQ(out["y"].values, map(kX, [](float v) { return v < 0 ? 0.5F * v : v; }));
    EXPECT_EQ(out["z"].values, map(kX, [](float v) { return v < 0 ? 0.25F * v : v; }));
}

TEST(LocalFunction, NestedCallPassesAttributesThrough)
{
    // Outer(a) = Inner(a, alpha = @slope) + a; Inner(a) = LeakyRelu(a, alpha = @alpha).
    ModelBuilder m;
    m.input("x", kShape);
    ::onnx::FunctionProto& inner = addFunction(m, "Inner", {"a"}, {"y"});
    inner.add_attribute("alpha");
    attrRef(addNode(inner, "LeakyRelu", {"a"}, {"y"}, "leaky"), "alpha", Attr::FLOAT, "alpha");
    ::onnx::FunctionProto& outer = addFunction(m, "Outer", {"a"}, {"y"});
    outer.add_attribute("slope");
    attrRef(addNode(outer, "Inner", {"a"}, {"t"}, "inner", "kiln.test"), "alpha", Attr::FLOAT, "slope");
    addNode(outer, "Add", {"t", "a"}, {"y"}, "add");
    attrFloat(m.node("Outer", {"x"}, {"y"}, "outer", "kiln.test"), "slope", 0.5F);
    m.output("y");
    Harness h;
    EXPECT_EQ(runX(h, m), map(kX, [](float v) { return (v < 0 ? 0.5F * v : v) + v; }));
    EXPECT_EQ(tensorNames(h).count("outer/inner/y"), 1U);
}

TEST(LocalFunction, FunctionOfAnUnusedNameIsUsed)
{
    ModelBuilder m;
    m.input("x", kShape);
    negFunction(m, "KilnTestNeg");
    m.node("KilnTestNeg", {"x"}, {"y"}, "call", "kiln.test");
    m.output("y");
    Harness h;
    EXPECT_EQ(runX(h, m), map(kX, [](float v) { return -v; }));
}

TEST(LocalFunction, BuiltinOpWinsOverAFunctionOfTheSameName)
{
    // Spec 1.3 rule 3 comes before rule 4: a local function is used only for op types with no builtin importer.
    ModelBuilder m;
    m.input("x", kShape);
    negFunction(m, "Relu");
    m.node("Relu", {"x"}, {"y"}, "call", "kiln.test");
    m.output("y");
    Harness h;
    EXPECT_EQ(runX(h, m), map(kX, [](float v) { return v < 0 ? 0.0F : v; }));
    EXPECT_TRUE(h.layers(LayerType::kUNARY).empty());
}

TEST(LocalFunction, PluginWithNamespaceAttributeWinsOverFunction)
{
    // Table 1.10: not builtin, a local function, plugin_namespace present, plugin registered: the plugin.
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KFnNamespaced", "1", "acme");
    Registration reg(creator, "acme");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m;
    m.input("x", kShape);
    negFunction(m, "KFnNamespaced");
    auto& call = m.node("KFnNamespaced", {"x"}, {"y"}, "call", "kiln.test");
    attrString(call, "plugin_namespace", "acme");
    attrFloat(call, "scale", 3.0F);
    m.output("y");
    Harness h;
    EXPECT_EQ(runX(h, m), map(kX, [](float v) { return 3.0F * v; }));
    EXPECT_EQ(log->builds.size(), 1U);
    EXPECT_EQ(h.layers(LayerType::kPLUGIN_V3).size(), 1U);
}

TEST(LocalFunction, FunctionWinsOverPluginWithoutNamespaceAttributeOrFlag)
{
    // Table 1.10: not builtin, a local function, no attribute, flag off: the function, plugin or not.
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KFnPlain", "1", "");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m;
    m.input("x", kShape);
    negFunction(m, "KFnPlain");
    attrFloat(m.node("KFnPlain", {"x"}, {"y"}, "call", "kiln.test"), "scale", 3.0F);
    m.output("y");
    Harness h;
    EXPECT_EQ(runX(h, m), map(kX, [](float v) { return -v; }));
    EXPECT_TRUE(log->builds.empty());
    EXPECT_TRUE(h.layers(LayerType::kPLUGIN_V3).empty());
}

TEST(LocalFunction, PluginOverrideFlagWinsOverFunction)
{
    // Table 1.10: not builtin, a local function, kENABLE_PLUGIN_OVERRIDE, plugin registered: the plugin.
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KFnFlagged", "1", "");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m;
    m.input("x", kShape);
    negFunction(m, "KFnFlagged");
    attrFloat(m.node("KFnFlagged", {"x"}, {"y"}, "call", "kiln.test"), "scale", 2.0F);
    m.output("y");
    Harness h;
    h.mParser->setFlag(OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE);
    EXPECT_EQ(runX(h, m), map(kX, [](float v) { return 2.0F * v; }));
    EXPECT_EQ(log->builds.size(), 1U);
}

TEST(LocalFunction, FunctionUsedWhenTheAskedPluginIsMissing)
{
    // Table 1.10: not builtin, a local function, plugin_namespace present, no such plugin: the function.
    ModelBuilder m;
    m.input("x", kShape);
    negFunction(m, "KFnNoPlugin");
    attrString(m.node("KFnNoPlugin", {"x"}, {"y"}, "call", "kiln.test"), "plugin_namespace", "nowhere");
    m.output("y");
    Harness h;
    EXPECT_EQ(runX(h, m), map(kX, [](float v) { return -v; }));
}

TEST(LocalFunction, ErrorInsideBodyNamesTheCall)
{
    ModelBuilder m;
    m.input("x", kShape);
    ::onnx::FunctionProto& f = addFunction(m, "Broken", {"a"}, {"y"});
    brokenConstant(f, "c");
    addNode(f, "Add", {"a", "c"}, {"y"}, "add");
    m.node("Relu", {"x"}, {"r"}, "first");
    m.node("Broken", {"r"}, {"y"}, "call", "kiln.test");
    m.output("y");
    Harness h;
    EXPECT_FALSE(h.parse(m));
    ASSERT_EQ(h.mParser->getNbErrors(), 1) << h.errors();
    nvonnxparser::IParserError const& e = *h.firstError();
    EXPECT_EQ(e.code(), ErrorCode::kUNSUPPORTED_NODE_ATTR) << h.errors();
    EXPECT_EQ(e.node(), 1);
    EXPECT_STREQ(e.nodeOperator(), "Constant");
    EXPECT_EQ(stackOf(e), std::vector<std::string>{"call (Broken)"});
    EXPECT_TRUE(contains(e.desc(), "sparse_value")) << e.desc();
}

TEST(LocalFunction, ErrorInsideNestedBodyListsBothCallsOutermostFirst)
{
    ModelBuilder m;
    m.input("x", kShape);
    ::onnx::FunctionProto& inner = addFunction(m, "InnerBroken", {"a"}, {"y"});
    brokenConstant(inner, "c");
    addNode(inner, "Add", {"a", "c"}, {"y"}, "add");
    ::onnx::FunctionProto& outer = addFunction(m, "OuterCaller", {"a"}, {"y"});
    addNode(outer, "Relu", {"a"}, {"r"}, "relu");
    addNode(outer, "InnerBroken", {"r"}, {"y"}, "inner", "kiln.test");
    m.node("Neg", {"x"}, {"n"}, "first");
    m.node("Neg", {"n"}, {"nn"}, "second");
    m.node("OuterCaller", {"nn"}, {"y"}, "outer", "kiln.test");
    m.output("y");
    Harness h;
    EXPECT_FALSE(h.parse(m));
    ASSERT_NE(h.firstError(), nullptr);
    nvonnxparser::IParserError const& e = *h.firstError();
    EXPECT_EQ(e.code(), ErrorCode::kUNSUPPORTED_NODE_ATTR) << h.errors();
    EXPECT_EQ(e.node(), 2);
    EXPECT_EQ(stackOf(e), (std::vector<std::string>{"outer (OuterCaller)", "inner (InnerBroken)"}));
}

TEST(LocalFunction, CallWithTooManyInputsIsRefused)
{
    ModelBuilder m;
    m.input("x", kShape);
    negFunction(m, "OneInput");
    m.node("OneInput", {"x", "x"}, {"y"}, "call", "kiln.test");
    m.output("y");
    Harness h;
    EXPECT_FALSE(h.parse(m));
    ASSERT_NE(h.firstError(), nullptr);
    EXPECT_EQ(h.firstError()->code(), ErrorCode::kINVALID_NODE) << h.errors();
    EXPECT_EQ(h.firstError()->node(), 0);
    EXPECT_STREQ(h.firstError()->nodeName(), "call");
    EXPECT_TRUE(contains(h.firstError()->desc(), "OneInput")) << h.errors();
    EXPECT_TRUE(contains(h.firstError()->desc(), "2 inputs")) << h.errors();
}

TEST(LocalFunction, RecursiveFunctionIsRefusedWithoutCrashing)
{
    ModelBuilder m;
    m.input("x", kShape);
    ::onnx::FunctionProto& f = addFunction(m, "Forever", {"a"}, {"y"});
    addNode(f, "Forever", {"a"}, {"y"}, "again", "kiln.test");
    m.node("Forever", {"x"}, {"y"}, "call", "kiln.test");
    m.output("y");
    Harness h;
    EXPECT_FALSE(h.parse(m));
    ASSERT_NE(h.firstError(), nullptr);
    EXPECT_EQ(h.firstError()->code(), ErrorCode::kUNSUPPORTED_GRAPH) << h.errors();
    EXPECT_EQ(h.firstError()->node(), 0);
    EXPECT_TRUE(contains(h.firstError()->desc(), "nests")) << h.errors();
}

// ---- If ----

//! An If node named name reading cond, with output y; fill the branches with addNode and graphOutput.
struct IfNode
{
    ::onnx::NodeProto& node;
    ::onnx::GraphProto& thenBranch;
    ::onnx::GraphProto& elseBranch;
};

template <typename Body>
IfNode addIf(Body& body, std::string const& cond, std::string const& output, std::string const& name)
{
    ::onnx::NodeProto& node = addNode(body, "If", {cond}, {output}, name);
    ::onnx::GraphProto& thenBranch = attrGraph(node, "then_branch", name + "_then");
    ::onnx::GraphProto& elseBranch = attrGraph(node, "else_branch", name + "_else");
    return {node, thenBranch, elseBranch};
}

//! x -> If(cond) { then: Neg(x); else: Relu(x) } -> y, cond an initializer of value.
ModelBuilder negOrReluModel(bool value)
{
    ModelBuilder m;
    m.input("x", kShape);
    m.initializer(boolTensor("cond", {}, {static_cast<uint8_t>(value ? 1 : 0)}));
    IfNode ifNode = addIf(m.graph(), "cond", "y", "choose");
    addNode(ifNode.thenBranch, "Neg", {"x"}, {"then_out"}, "neg");
    graphOutput(ifNode.thenBranch, "then_out");
    addNode(ifNode.elseBranch, "Relu", {"x"}, {"else_out"}, "relu");
    graphOutput(ifNode.elseBranch, "else_out");
    m.output("y");
    return m;
}

TEST(If, ConstantTrueImportsOnlyThenBranch)
{
    Harness h;
    EXPECT_EQ(runX(h, negOrReluModel(true)), map(kX, [](float v) { return -v; }));
    EXPECT_EQ(h.layers(LayerType::kUNARY).size(), 1U);
    EXPECT_TRUE(h.layers(LayerType::kACTIVATION).empty());
    EXPECT_EQ(h.mNetwork->getLayer(0)->getName(), std::string("neg"));
}

TEST(If, ConstantFalseImportsOnlyElseBranch)
{
    Harness h;
    EXPECT_EQ(runX(h, negOrReluModel(false)), map(kX, [](float v) { return v < 0 ? 0.0F : v; }));
    EXPECT_EQ(h.layers(LayerType::kACTIVATION).size(), 1U);
    EXPECT_TRUE(h.layers(LayerType::kUNARY).empty());
}

TEST(If, ConditionFromAConstantNode)
{
    ModelBuilder m;
    m.input("x", kShape);
    attrTensor(m.node("Constant", {}, {"cond"}, "make_cond"), "value", boolTensor("", {1}, {0}));
    IfNode ifNode = addIf(m.graph(), "cond", "y", "choose");
    addNode(ifNode.thenBranch, "Neg", {"x"}, {"then_out"}, "neg");
    graphOutput(ifNode.thenBranch, "then_out");
    addNode(ifNode.elseBranch, "Abs", {"x"}, {"else_out"}, "abs");
    graphOutput(ifNode.elseBranch, "else_out");
    m.output("y");
    Harness h;
    EXPECT_EQ(runX(h, m), map(kX, [](float v) { return v < 0 ? -v : v; }));
}

TEST(If, BranchReadsAnOuterTensorMadeLater)
{
    // The node that makes "sq" comes after the If in the file: the If must wait for what its branch reads.
    ModelBuilder m;
    m.input("x", kShape);
    m.initializer(boolTensor("cond", {}, {1}));
    IfNode ifNode = addIf(m.graph(), "cond", "y", "choose");
    addNode(ifNode.thenBranch, "Add", {"sq", "x"}, {"then_out"}, "add");
    graphOutput(ifNode.thenBranch, "then_out");
    addNode(ifNode.elseBranch, "Identity", {"x"}, {"else_out"}, "id");
    graphOutput(ifNode.elseBranch, "else_out");
    m.node("Mul", {"x", "x"}, {"sq"}, "square");
    m.output("y");
    Harness h;
    EXPECT_EQ(runX(h, m), map(kX, [](float v) { return v * v + v; }));
}

TEST(If, BranchWithItsOwnInitializer)
{
    ModelBuilder m;
    m.input("x", kShape);
    m.initializer(boolTensor("cond", {}, {1}));
    IfNode ifNode = addIf(m.graph(), "cond", "y", "choose");
    *ifNode.thenBranch.add_initializer() = floatTensor("bias", kShape, {10, 20, 30, 40, 50, 60});
    addNode(ifNode.thenBranch, "Add", {"x", "bias"}, {"then_out"}, "add");
    graphOutput(ifNode.thenBranch, "then_out");
    addNode(ifNode.elseBranch, "Identity", {"x"}, {"else_out"}, "id");
    graphOutput(ifNode.elseBranch, "else_out");
    m.output("y");
    Harness h;
    EXPECT_EQ(runX(h, m), (std::vector<float>{7, 18, 29, 41, 52, 63}));
}

TEST(If, BranchOutputMayBeAnOuterTensor)
{
    ModelBuilder m;
    m.input("x", kShape);
    m.initializer(boolTensor("cond", {}, {1}));
    IfNode ifNode = addIf(m.graph(), "cond", "y", "choose");
    graphOutput(ifNode.thenBranch, "x");
    addNode(ifNode.elseBranch, "Neg", {"x"}, {"else_out"}, "neg");
    graphOutput(ifNode.elseBranch, "else_out");
    m.output("y");
    Harness h;
    EXPECT_EQ(runX(h, m), kX);
}

TEST(If, NestedIfSeesNamesOfEveryEnclosingScope)
{
    // outer(true) { inner(false) { ... } else { Neg(Add(x, bias)) } }, bias an initializer of the outer branch.
    ModelBuilder m;
    m.input("x", kShape);
    m.initializer(boolTensor("yes", {}, {1}));
    m.initializer(boolTensor("no", {}, {0}));
    IfNode outer = addIf(m.graph(), "yes", "y", "outer");
    *outer.thenBranch.add_initializer() = floatTensor("bias", {1}, {100});
    IfNode inner = addIf(outer.thenBranch, "no", "inner_out", "inner");
    addNode(inner.thenBranch, "Neg", {"x"}, {"a"}, "neg");
    graphOutput(inner.thenBranch, "a");
    addNode(inner.elseBranch, "Add", {"x", "bias"}, {"t"}, "add");
    addNode(inner.elseBranch, "Neg", {"t"}, {"b"}, "neg");
    graphOutput(inner.elseBranch, "b");
    graphOutput(outer.thenBranch, "inner_out");
    addNode(outer.elseBranch, "Identity", {"x"}, {"c"}, "id");
    graphOutput(outer.elseBranch, "c");
    m.output("y");
    Harness h;
    EXPECT_EQ(runX(h, m), map(kX, [](float v) { return -(v + 100.0F); }));
    EXPECT_EQ(tensorNames(h).count("outer/then_branch/inner/else_branch/t"), 1U);
}

TEST(If, BranchNamesStayInTheBranch)
{
    ModelBuilder m;
    m.input("x", kShape);
    m.initializer(boolTensor("cond", {}, {1}));
    IfNode ifNode = addIf(m.graph(), "cond", "y", "choose");
    addNode(ifNode.thenBranch, "Neg", {"x"}, {"hidden"}, "neg");
    addNode(ifNode.thenBranch, "Abs", {"hidden"}, {"then_out"}, "abs");
    graphOutput(ifNode.thenBranch, "then_out");
    addNode(ifNode.elseBranch, "Identity", {"x"}, {"else_out"}, "id");
    graphOutput(ifNode.elseBranch, "else_out");
    m.node("Add", {"y", "hidden"}, {"z"}, "after");
    m.output("z");
    Harness h;
    EXPECT_FALSE(h.parse(m));
    ASSERT_NE(h.firstError(), nullptr);
    EXPECT_EQ(h.firstError()->code(), ErrorCode::kINVALID_GRAPH) << h.errors();
    EXPECT_STREQ(h.firstError()->nodeName(), "after");
    EXPECT_TRUE(contains(h.firstError()->desc(), "'hidden'")) << h.errors();
}

TEST(If, RunTimeConditionImportsBothBranchesIntoAConditional)
{
    // cond = c > 0, computed at run time: then Neg(Relu(x)), else Relu(x) + 1 (a branch initializer).
    ModelBuilder m;
    m.input("x", kShape);
    m.input("c", {1});
    m.initializer(floatTensor("zero", {1}, {0.0F}));
    m.node("Greater", {"c", "zero"}, {"cond"}, "compare");
    m.node("Relu", {"x"}, {"r"}, "first");
    IfNode ifNode = addIf(m.graph(), "cond", "y", "choose");
    addNode(ifNode.thenBranch, "Neg", {"r"}, {"then_out"}, "neg");
    graphOutput(ifNode.thenBranch, "then_out");
    *ifNode.elseBranch.add_initializer() = floatTensor("one", {1}, {1.0F});
    addNode(ifNode.elseBranch, "Add", {"r", "one"}, {"else_out"}, "add");
    graphOutput(ifNode.elseBranch, "else_out");
    m.output("y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    EXPECT_EQ(h.layers(LayerType::kCONDITION).size(), 1U);
    EXPECT_EQ(h.layers(LayerType::kCONDITIONAL_OUTPUT).size(), 1U);
    auto* output = static_cast<nvinfer1::IIfConditionalOutputLayer*>(h.layers(LayerType::kCONDITIONAL_OUTPUT).front());
    EXPECT_STREQ(output->getConditional()->getName(), "choose");
    auto const relu = map(kX, [](float v) { return v < 0 ? 0.0F : v; });
    for (float const c : {2.0F, -2.0F})
    {
        auto outputs = h.run({{"x", {kShape, kX}}, {"c", {{1}, {c}}}});
        ASSERT_EQ(outputs.count("y"), 1U) << h.lastFailure();
        EXPECT_EQ(outputs["y"].values,
            c > 0 ? map(relu, [](float v) { return -v; }) : map(relu, [](float v) { return v + 1.0F; }))
            << "c = " << c;
    }
}

TEST(If, RunTimeBranchesOfDifferentRanksAreRefused)
{
    ModelBuilder m;
    m.input("x", kShape);
    m.input("cond", {}, ::onnx::TensorProto::BOOL);
    IfNode ifNode = addIf(m.graph(), "cond", "y", "choose");
    graphOutput(ifNode.thenBranch, "x");
    addNode(ifNode.elseBranch, "ReduceMax", {"x"}, {"largest"}, "largest");
    attrInt(*ifNode.elseBranch.mutable_node(0), "keepdims", 0);
    graphOutput(ifNode.elseBranch, "largest");
    m.output("y");
    Harness h;
    EXPECT_FALSE(h.parse(m));
    ASSERT_NE(h.firstError(), nullptr);
    EXPECT_EQ(h.firstError()->code(), ErrorCode::kUNSUPPORTED_NODE) << h.errors();
    EXPECT_STREQ(h.firstError()->nodeOperator(), "If");
    EXPECT_TRUE(contains(h.firstError()->desc(), "must have the same rank")) << h.errors();
}

TEST(If, NonBoolConditionIsRefused)
{
    ModelBuilder m;
    m.input("x", kShape);
    m.initializer(floatTensor("cond", {}, {1.0F}));
    IfNode ifNode = addIf(m.graph(), "cond", "y", "choose");
    graphOutput(ifNode.thenBranch, "x");
    graphOutput(ifNode.elseBranch, "x");
    m.output("y");
    Harness h;
    EXPECT_FALSE(h.parse(m));
    ASSERT_NE(h.firstError(), nullptr);
    EXPECT_EQ(h.firstError()->code(), ErrorCode::kINVALID_NODE) << h.errors();
    EXPECT_TRUE(contains(h.firstError()->desc(), "BOOL")) << h.errors();
}

TEST(If, BranchesWithDifferentOutputCountsAreRefused)
{
    ModelBuilder m = negOrReluModel(true);
    ::onnx::NodeProto& node = *m.graph().mutable_node(0);
    for (auto& attribute : *node.mutable_attribute())
    {
        if (attribute.name() == "else_branch")
        {
            graphOutput(*attribute.mutable_g(), "x");
        }
    }
    Harness h;
    EXPECT_FALSE(h.parse(m));
    ASSERT_NE(h.firstError(), nullptr);
    EXPECT_EQ(h.firstError()->code(), ErrorCode::kINVALID_NODE) << h.errors();
    EXPECT_TRUE(contains(h.firstError()->desc(), "same number of outputs")) << h.errors();
}

TEST(If, ErrorInsideBranchNamesTheBranch)
{
    ModelBuilder m;
    m.input("x", kShape);
    m.initializer(boolTensor("cond", {}, {1}));
    m.node("Relu", {"x"}, {"r"}, "first");
    IfNode ifNode = addIf(m.graph(), "cond", "y", "choose");
    brokenConstant(ifNode.thenBranch, "c");
    addNode(ifNode.thenBranch, "Add", {"r", "c"}, {"then_out"}, "add");
    graphOutput(ifNode.thenBranch, "then_out");
    graphOutput(ifNode.elseBranch, "r");
    m.output("y");
    Harness h;
    EXPECT_FALSE(h.parse(m));
    ASSERT_NE(h.firstError(), nullptr);
    nvonnxparser::IParserError const& e = *h.firstError();
    EXPECT_EQ(e.code(), ErrorCode::kUNSUPPORTED_NODE_ATTR) << h.errors();
    EXPECT_EQ(e.node(), 1);
    EXPECT_STREQ(e.nodeOperator(), "Constant");
    EXPECT_EQ(stackOf(e), std::vector<std::string>{"choose (then_branch)"});
}

TEST(If, BranchThatDoesNotMakeItsOutputIsRefused)
{
    ModelBuilder m = negOrReluModel(false);
    ::onnx::NodeProto& node = *m.graph().mutable_node(0);
    for (auto& attribute : *node.mutable_attribute())
    {
        if (attribute.name() == "else_branch")
        {
            attribute.mutable_g()->mutable_output(0)->set_name("nowhere");
        }
    }
    Harness h;
    EXPECT_FALSE(h.parse(m));
    ASSERT_NE(h.firstError(), nullptr);
    nvonnxparser::IParserError const& e = *h.firstError();
    EXPECT_EQ(e.code(), ErrorCode::kINVALID_GRAPH) << h.errors();
    EXPECT_EQ(e.node(), 0);
    EXPECT_STREQ(e.nodeOperator(), "If");
    EXPECT_EQ(stackOf(e), std::vector<std::string>{"choose (else_branch)"});
    EXPECT_TRUE(contains(e.desc(), "'nowhere'")) << e.desc();
}

TEST(If, InsideAFunctionBody)
{
    // Choose(a) = If(Constant true) { Neg(a) } else { a }; an error in the branch names both the call and the
    // branch.
    for (bool broken : {false, true})
    {
        ModelBuilder m;
        m.input("x", kShape);
        ::onnx::FunctionProto& f = addFunction(m, "Choose", {"a"}, {"y"});
        attrTensor(addNode(f, "Constant", {}, {"c"}, "make_cond"), "value", boolTensor("", {}, {1}));
        IfNode ifNode = addIf(f, "c", "y", "pick");
        if (broken)
        {
            brokenConstant(ifNode.thenBranch, "k");
            addNode(ifNode.thenBranch, "Add", {"a", "k"}, {"then_out"}, "add");
        }
        else
        {
            addNode(ifNode.thenBranch, "Neg", {"a"}, {"then_out"}, "neg");
        }
        graphOutput(ifNode.thenBranch, "then_out");
        graphOutput(ifNode.elseBranch, "a");
        m.node("Choose", {"x"}, {"y"}, "call", "kiln.test");
        m.output("y");
        Harness h;
        if (!broken)
        {
            EXPECT_EQ(runX(h, m), map(kX, [](float v) { return -v; }));
            continue;
        }
        EXPECT_FALSE(h.parse(m));
        ASSERT_NE(h.firstError(), nullptr);
        EXPECT_EQ(h.firstError()->node(), 0);
        EXPECT_EQ(stackOf(*h.firstError()), (std::vector<std::string>{"call (Choose)", "pick (then_branch)"}));
    }
}

TEST(ControlFlow, LoopAndScanWithAMalformedBodyAreRefused)
{
    // Loop: M, cond, one carried value, and a body of one input (three are due); Scan: no num_scan_inputs.
    for (char const* op : {"Loop", "Scan"})
    {
        ModelBuilder m;
        m.input("x", kShape);
        m.initializer(int64Tensor("M", {}, {2}));
        m.initializer(boolTensor("go", {}, {1}));
        bool const loop = std::string(op) == "Loop";
        ::onnx::NodeProto& node
            = loop ? m.node(op, {"M", "go", "x"}, {"y"}, "looping") : m.node(op, {"x"}, {"y"}, "looping");
        ::onnx::GraphProto& body = attrGraph(node, "body", "body");
        ::onnx::ValueInfoProto& in = *body.add_input();
        in.set_name("x_in");
        in.mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::FLOAT);
        addNode(body, "Identity", {"x_in"}, {"out"}, "id");
        graphOutput(body, "out");
        m.output("y");
        Harness h;
        EXPECT_FALSE(h.parse(m)) << op;
        ASSERT_NE(h.firstError(), nullptr) << op;
        EXPECT_EQ(h.firstError()->node(), 0);
        EXPECT_TRUE(
            contains(h.firstError()->desc(), loop ? "the body has 1 inputs; 3 were expected" : "num_scan_inputs"))
            << h.errors();
        EXPECT_TRUE(h.mParser->supportsOperator(op)) << op;
    }
    Harness h;
    EXPECT_TRUE(h.mParser->supportsOperator("If"));
}

} // namespace
} // namespace kiln::onnx_test
