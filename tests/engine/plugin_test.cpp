// SPDX-License-Identifier: Apache-2.0
// V3 plugins inside engines, through the public API only, with a recording plugin that logs every call: the build
// protocol (clone, capabilities, formats asked position by position, configurePlugin before the tactics, each tactic
// timed, the fields serialized), the runtime protocol (createPlugin(kRUNTIME) with those fields, setTactic,
// attachToContext once per context, onShapeChange when shapes change, enqueueHost), the timing cache (identical
// instances timed once, a rebuild with the saved cache times nothing), data-dependent outputs through size tensors,
// and every failure with its message and no plugin object left behind.
#include "support/api_test.h"
#include "support/probe_plugins.h" // tests/plugin/support
#include "support/recording_v3.h"
#include "support/tensorrt_only_v3.h"

#include "NvInfer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::OptProfileSelector;

class PluginEngineTest : public ApiTest
{
protected:
    void SetUp() override
    {
        ApiTest::SetUp();
        mJournal = std::make_shared<Journal>();
        mCreator = std::make_unique<RecordingCreator>(mJournal);
        ASSERT_TRUE(getPluginRegistry()->registerCreator(*mCreator, kRecordingNamespace));
    }
    void TearDown() override
    {
        getPluginRegistry()->deregisterCreator(*mCreator);
        ApiTest::TearDown();
        EXPECT_EQ(mJournal->alive(), 0) << "plugin objects were not deleted";
    }

    //! A plugin made by the creator for the build phase (scale 2).
    std::unique_ptr<nvinfer1::IPluginV3> userPlugin()
    {
        float const scale = 2.0F;
        nvinfer1::PluginField field{"scale", &scale, nvinfer1::PluginFieldType::kFLOAT32, 1};
        nvinfer1::PluginFieldCollection fields{1, &field};
        return std::unique_ptr<nvinfer1::IPluginV3>{
            mCreator->createPlugin("user", &fields, nvinfer1::TensorRTPhase::kBUILD)};
    }

    //! x [-1, 4] -> count plugin layers in a chain -> y; a profile with batch 1 / 2 / 3.
    nvinfer1::ITensor* chain(int32_t count = 1, Dims const& input = Dims{2, {-1, 4}})
    {
        nvinfer1::ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, input);
        for (int32_t i = 0; i < count; ++i)
        {
            auto plugin = userPlugin();
            auto* layer = mNetwork->addPluginV3(&x, 1, nullptr, 0, *plugin);
            EXPECT_NE(layer, nullptr) << mLogger.all();
            layer->setName(("plugin" + std::to_string(i)).c_str());
            x = layer->getOutput(0);
        }
        x->setName("y");
        mNetwork->markOutput(*x);
        return x;
    }

    std::unique_ptr<nvinfer1::IBuilderConfig> config(int64_t minN = 1, int64_t optN = 2, int64_t maxN = 3)
    {
        std::unique_ptr<nvinfer1::IBuilderConfig> made{mBuilder->createBuilderConfig()};
        auto* profile = mBuilder->createOptimizationProfile();
        nvinfer1::ITensor* input = mNetwork->getInput(0);
        Dims shape = input->getDimensions();
        auto const at = [&](int64_t n) {
            Dims dims = shape;
            dims.d[0] = n;
            return dims;
        };
        profile->setDimensions(input->getName(), OptProfileSelector::kMIN, at(minN));
        profile->setDimensions(input->getName(), OptProfileSelector::kOPT, at(optN));
        profile->setDimensions(input->getName(), OptProfileSelector::kMAX, at(maxN));
        made->addOptimizationProfile(profile);
        return made;
    }

    std::vector<uint8_t> build(nvinfer1::IBuilderConfig& config)
    {
        std::unique_ptr<nvinfer1::IHostMemory> plan{mBuilder->buildSerializedNetwork(*mNetwork, config)};
        if (plan == nullptr)
        {
            return {};
        }
        auto const* bytes = static_cast<uint8_t const*>(plan->data());
        return {bytes, bytes + plan->size()};
    }

    std::unique_ptr<nvinfer1::ICudaEngine> load(std::vector<uint8_t> const& plan)
    {
        if (mRuntime == nullptr)
        {
            mRuntime.reset(nvinfer1::createInferRuntime(mLogger));
        }
        return std::unique_ptr<nvinfer1::ICudaEngine>{mRuntime->deserializeCudaEngine(plan.data(), plan.size())};
    }

    //! Runs context on x of shape [n, 4] filled with 1, 2, 3...; returns y.
    std::vector<float> run(nvinfer1::IExecutionContext& context, int64_t n)
    {
        std::vector<float> x(static_cast<std::size_t>(n * 4));
        for (std::size_t i = 0; i < x.size(); ++i)
        {
            x[i] = static_cast<float>(i + 1);
        }
        std::vector<float> y(x.size(), -1.0F);
        EXPECT_TRUE(context.setInputShape("x", Dims{2, {n, 4}}));
        EXPECT_TRUE(context.setTensorAddress("x", x.data()));
        EXPECT_TRUE(context.setTensorAddress("y", y.data()));
        EXPECT_TRUE(context.enqueueV3(nullptr)) << mLogger.all();
        return y;
    }

    std::shared_ptr<Journal> mJournal;
    std::unique_ptr<RecordingCreator> mCreator;
    std::unique_ptr<nvinfer1::IRuntime> mRuntime;
};

TEST_F(PluginEngineTest, BuildFollowsTheProtocol)
{
    chain();
    auto made = config();
    auto const plan = build(*made);
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    expectNoError();

    // The user's object is only read and cloned; the network's clone answers the network; the builder works on a
    // clone of the network's clone.
    EXPECT_EQ(mJournal->methods("user1"), (std::vector<std::string>{"getCapabilityInterface", "clone"}));
    EXPECT_EQ(mJournal->methods("clone1"),
        (std::vector<std::string>{"getCapabilityInterface", "getOutputDataTypes", "getOutputShapes", "clone"}));
    // One combination and no custom tactics: nothing to choose, so nothing runs and nothing is attached (TensorRT
    // does not run such a plugin either). kiln's host capability is never asked for: it is found as a base class.
    std::vector<std::string> const expected{"getCapabilityInterface(kCORE)", "getCapabilityInterface(kBUILD)",
        "getCapabilityInterface(kRUNTIME)", "supportsFormatCombination(0,1,1,0/0(-1,4))",
        "supportsFormatCombination(1,1,1,0/0(-1,4))",
        "configurePlugin(0/0(-1,4)[(1,4)(2,4)(3,4)] -> 0/0(-1,4)[(1,4)(2,4)(3,4)])", "getTimingCacheID()",
        "getNbTactics()", "getWorkspaceSize(0/0(-1,4)[(1,4)(2,4)(3,4)])",
        "configurePlugin(0/0(-1,4)[(1,4)(2,4)(3,4)] -> 0/0(-1,4)[(1,4)(2,4)(3,4)])",
        "getWorkspaceSize(0/0(-1,4)[(1,4)(2,4)(3,4)])", "getFieldsToSerialize()"};
    EXPECT_EQ(mJournal->calls("clone2"), expected);
    EXPECT_EQ(mJournal->count("enqueueHost"), 0);
    EXPECT_EQ(mJournal->count("attachToContext"), 0);
    // Only the network's clone outlives the build; it goes with the network.
    delete mNetwork;
    mNetwork = nullptr;
    EXPECT_EQ(mJournal->alive(), 0);
}

TEST_F(PluginEngineTest, TheInspectorNamesEachPluginLayersCreator)
{
    // What a process that loads the plan must have registered: name, version, namespace and interface per layer.
    chain(2);
    auto made = config();
    auto const plan = build(*made);
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    auto engine = load(plan);
    ASSERT_NE(engine, nullptr) << mLogger.all();
    std::unique_ptr<nvinfer1::IEngineInspector> inspector{engine->createEngineInspector()};
    ASSERT_NE(inspector, nullptr);
    std::string const json = inspector->getEngineInformation(nvinfer1::LayerInformationFormat::kJSON);
    std::string const plugin
        = R"("Plugin": {"Name": "Recording", "Version": "1", "Namespace": "kiln.test", "Interface": "IPluginV3", "Language": "C++"})";
    std::size_t const first = json.find(plugin);
    ASSERT_NE(first, std::string::npos) << json;
    EXPECT_NE(json.find(plugin, first + 1), std::string::npos) << json; // Both layers.
    std::string const line = inspector->getLayerInformation(0, nvinfer1::LayerInformationFormat::kONELINE);
    EXPECT_NE(line.find(R"(Plugin: Recording version 1 namespace "kiln.test" (IPluginV3, C++))"), std::string::npos)
        << line;
}

TEST_F(PluginEngineTest, RuntimeFollowsTheProtocol)
{
    chain();
    auto made = config();
    auto const plan = build(*made);
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    mJournal->clear();

    auto engine = load(plan);
    ASSERT_NE(engine, nullptr) << mLogger.all();
    // The creator makes the engine's plugin from the serialized fields, named after the layer; no custom tactics:
    // setTactic(0).
    EXPECT_EQ(mJournal->calls("creator"), (std::vector<std::string>{"createPlugin(plugin0,scale=2.000000,kRUNTIME)"}));
    EXPECT_EQ(mJournal->calls("runtime1"),
        (std::vector<std::string>{
            "getCapabilityInterface(kCORE)", "getCapabilityInterface(kRUNTIME)", "setTactic(0)"}));

    // One attachToContext per context, each with a resource context of its own.
    std::unique_ptr<nvinfer1::IExecutionContext> first{engine->createExecutionContext()};
    std::unique_ptr<nvinfer1::IExecutionContext> second{engine->createExecutionContext()};
    ASSERT_NE(first, nullptr);
    ASSERT_NE(second, nullptr);
    auto const attached = mJournal->callsNamed("runtime1", "attachToContext");
    ASSERT_EQ(attached.size(), 2U);
    EXPECT_NE(attached[0], attached[1]);
    EXPECT_EQ(attached[0].find("attachToContext(0)"), std::string::npos);

    // onShapeChange before the first enqueue and whenever the shapes change, not otherwise.
    std::vector<float> y = run(*first, 2);
    for (std::size_t i = 0; i < y.size(); ++i)
    {
        EXPECT_EQ(y[i], 2.0F * static_cast<float>(i + 1)) << i;
    }
    run(*first, 2);
    y = run(*first, 3);
    EXPECT_EQ(y.back(), 24.0F);
    run(*second, 1);
    EXPECT_EQ(mJournal->calls("ctx1"),
        (std::vector<std::string>{"getCapabilityInterface(kCORE)", "getCapabilityInterface(kRUNTIME)",
            "onShapeChange(0/0(2,4) -> 0/0(2,4))", "enqueueHost(0/0(2,4) -> 0/0(2,4),workspace)",
            "enqueueHost(0/0(2,4) -> 0/0(2,4),workspace)", "onShapeChange(0/0(3,4) -> 0/0(3,4))",
            "enqueueHost(0/0(3,4) -> 0/0(3,4),workspace)"}));
    EXPECT_EQ(mJournal->methods("ctx2"),
        (std::vector<std::string>{"getCapabilityInterface", "getCapabilityInterface", "onShapeChange", "enqueueHost"}));
    first.reset();
    second.reset();
    engine.reset();
    delete mNetwork;
    mNetwork = nullptr;
    EXPECT_EQ(mJournal->alive(), 0);
}

TEST_F(PluginEngineTest, EveryTacticIsTimedAndTheChoiceReachesTheRuntime)
{
    mJournal->script.tactics = {7, 3};
    chain();
    auto made = config();
    TestErrorRecorder recorder;
    mBuilder->setErrorRecorder(&recorder);
    auto const plan = build(*made);
    mBuilder->setErrorRecorder(nullptr);
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    // configurePlugin before getValidTactics; each tactic set, shaped and run.
    auto const methods = mJournal->methods("clone2");
    auto const configured = std::find(methods.begin(), methods.end(), "configurePlugin");
    auto const tactics = std::find(methods.begin(), methods.end(), "getValidTactics");
    ASSERT_NE(tactics, methods.end());
    EXPECT_LT(configured - methods.begin(), tactics - methods.begin());
    // The tactics are timed on the clone attachToContext() gave, as an execution context runs it: configured for the
    // formats, then each tactic set, shaped and run.
    EXPECT_EQ(mJournal->callsNamed("clone2", "attachToContext").size(), 1U);
    EXPECT_EQ(mJournal->callsNamed("clone2", "setTactic").size(), 0U);
    EXPECT_EQ(mJournal->calls("ctx1"),
        (std::vector<std::string>{"getCapabilityInterface(kCORE)", "getCapabilityInterface(kBUILD)",
            "getCapabilityInterface(kRUNTIME)",
            "configurePlugin(0/0(-1,4)[(1,4)(2,4)(3,4)] -> 0/0(-1,4)[(1,4)(2,4)(3,4)])", "setTactic(7)",
            "onShapeChange(0/0(2,4) -> 0/0(2,4))", "enqueueHost(0/0(2,4) -> 0/0(2,4),workspace)", "setTactic(3)",
            "onShapeChange(0/0(2,4) -> 0/0(2,4))", "enqueueHost(0/0(2,4) -> 0/0(2,4),workspace)"}));
    // The build's resource context: the builder's error recorder; the attached clone is gone with the build.
    ASSERT_EQ(mJournal->recorders.size(), 1U);
    EXPECT_EQ(mJournal->recorders[0], &recorder);
    EXPECT_EQ(mJournal->alive(), 1); // the network's clone

    auto engine = load(plan);
    ASSERT_NE(engine, nullptr) << mLogger.all();
    auto const set = mJournal->callsNamed("runtime1", "setTactic");
    ASSERT_EQ(set.size(), 1U);
    int32_t const chosen = set[0] == "setTactic(7)" ? 7 : 3;
    EXPECT_TRUE(set[0] == "setTactic(7)" || set[0] == "setTactic(3)") << set[0];
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_NE(context, nullptr);
    std::vector<float> const y = run(*context, 1);
    EXPECT_EQ(y[0], 2.0F + static_cast<float>(chosen)); // the attached clone kept the tactic
}

TEST_F(PluginEngineTest, IdenticalInstancesWithATimingCacheIdAreTimedOnce)
{
    mJournal->script.tactics = {1, 2};
    mJournal->script.timingCacheId = "scale=2";
    chain(3);
    auto made = config();
    std::unique_ptr<nvinfer1::ITimingCache> cache{made->createTimingCache(nullptr, 0)};
    ASSERT_NE(cache, nullptr);
    ASSERT_TRUE(made->setTimingCache(*cache, false));
    ASSERT_FALSE(build(*made).empty()) << mLogger.all();
    EXPECT_EQ(mJournal->count("enqueueHost"), 2); // two tactics, timed for the first instance only

    // A second build with the saved cache times nothing.
    std::unique_ptr<nvinfer1::IHostMemory> saved{cache->serialize()};
    ASSERT_NE(saved, nullptr);
    auto again = config();
    std::unique_ptr<nvinfer1::ITimingCache> restored{again->createTimingCache(saved->data(), saved->size())};
    ASSERT_NE(restored, nullptr) << mLogger.all();
    ASSERT_TRUE(again->setTimingCache(*restored, false));
    mJournal->clear();
    ASSERT_FALSE(build(*again).empty()) << mLogger.all();
    EXPECT_EQ(mJournal->count("enqueueHost"), 0);
    EXPECT_EQ(mJournal->count("getFieldsToSerialize"), 3);
}

TEST_F(PluginEngineTest, WithoutATimingCacheIdEachInstanceIsTimed)
{
    mJournal->script.tactics = {1, 2};
    chain(3);
    auto made = config();
    ASSERT_FALSE(build(*made).empty()) << mLogger.all();
    EXPECT_EQ(mJournal->count("enqueueHost"), 6);
}

TEST_F(PluginEngineTest, DisablingTheTimingCacheTimesEveryInstance)
{
    mJournal->script.tactics = {1, 2};
    mJournal->script.timingCacheId = "scale=2";
    chain(3);
    auto made = config();
    made->setFlag(nvinfer1::BuilderFlag::kDISABLE_TIMING_CACHE);
    ASSERT_FALSE(build(*made).empty()) << mLogger.all();
    EXPECT_EQ(mJournal->count("enqueueHost"), 6);
}

TEST_F(PluginEngineTest, AMissWithErrorOnTimingCacheMissEndsTheBuild)
{
    mJournal->script.tactics = {1, 2};
    mJournal->script.timingCacheId = "scale=2";
    chain();
    auto made = config();
    made->setFlag(nvinfer1::BuilderFlag::kERROR_ON_TIMING_CACHE_MISS);
    EXPECT_TRUE(build(*made).empty());
    expectError({"layer 'plugin0'", "\"Recording\"", "timing cache has no entry", "kERROR_ON_TIMING_CACHE_MISS"});
}

TEST_F(PluginEngineTest, SizeTensorOutputsAreDeliveredAndUsedDownstream)
{
    mJournal->script.mode = Mode::kCOMPACT;
    nvinfer1::ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{1, {-1}});
    auto plugin = userPlugin();
    auto* layer = mNetwork->addPluginV3(&x, 1, nullptr, 0, *plugin);
    ASSERT_NE(layer, nullptr) << mLogger.all();
    // A layer after the data-dependent output: y = relu(compact) (a no-op on positive values, but it runs).
    auto* relu = mNetwork->addActivation(*layer->getOutput(0), nvinfer1::ActivationType::kRELU);
    relu->getOutput(0)->setName("y");
    mNetwork->markOutput(*relu->getOutput(0));
    layer->getOutput(0)->setName("compact");
    mNetwork->markOutput(*layer->getOutput(0));
    auto made = config(1, 4, 8);
    auto const plan = build(*made);
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    // configurePlugin sees the size-dependent output's bounds: 0, the optimum N / 2 and the upper bound N.
    auto const configured = mJournal->callsNamed("clone2", "configurePlugin");
    ASSERT_FALSE(configured.empty());
    EXPECT_EQ(configured[0], "configurePlugin(0/0(-1)[(1)(4)(8)] -> 0/0(-1)[(0)(2)(8)] 8/0()[()()()])");

    auto engine = load(plan);
    ASSERT_NE(engine, nullptr) << mLogger.all();
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_NE(context, nullptr);
    std::vector<float> input{3.0F, -1.0F, 0.0F, 5.0F, 7.0F, -2.0F};
    // Both outputs into buffers of the upper bound (N elements).
    std::vector<float> y(input.size(), -9.0F);
    std::vector<float> compact(input.size(), -9.0F);
    ASSERT_TRUE(context->setInputShape("x", Dims{1, {6}}));
    ASSERT_TRUE(context->setTensorAddress("x", input.data()));
    ASSERT_TRUE(context->setTensorAddress("y", y.data()));
    ASSERT_TRUE(context->setTensorAddress("compact", compact.data()));
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    Dims const shape = context->getTensorShape("y");
    ASSERT_EQ(shape.nbDims, 1);
    EXPECT_EQ(shape.d[0], 3);
    EXPECT_EQ(std::vector<float>(y.begin(), y.begin() + 3), (std::vector<float>{3.0F, 5.0F, 7.0F}));
    EXPECT_EQ(std::vector<float>(compact.begin(), compact.begin() + 3), (std::vector<float>{3.0F, 5.0F, 7.0F}));
    // The plugin saw the size-dependent extent as a wildcard.
    auto const ran = mJournal->callsNamed("ctx1", "enqueueHost");
    ASSERT_EQ(ran.size(), 1U);
    EXPECT_EQ(ran[0], "enqueueHost(0/0(6) -> 0/0(-1) 8/0(),workspace)");
}

TEST_F(PluginEngineTest, AFormatOtherThanLinearGetsReformatLayers)
{
    // The plugin takes and gives kCHW32 only (channels padded to 32); the builder reformats around it.
    mJournal->script.formats = {nvinfer1::TensorFormat::kCHW32};
    nvinfer1::ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{4, {-1, 3, 2, 2}});
    auto plugin = userPlugin();
    auto* layer = mNetwork->addPluginV3(&x, 1, nullptr, 0, *plugin);
    ASSERT_NE(layer, nullptr);
    layer->setName("plugin0");
    layer->getOutput(0)->setName("y");
    mNetwork->markOutput(*layer->getOutput(0));
    auto made = config(1, 2, 2);
    auto const plan = build(*made);
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    auto const configured = mJournal->callsNamed("clone2", "configurePlugin");
    ASSERT_FALSE(configured.empty());
    EXPECT_EQ(configured[0],
        "configurePlugin(0/5(-1,3,2,2)[(1,3,2,2)(2,3,2,2)(2,3,2,2)] -> 0/5(-1,3,2,2)[(1,3,2,2)(2,3,2,2)(2,3,2,2)])");

    auto engine = load(plan);
    ASSERT_NE(engine, nullptr) << mLogger.all();
    EXPECT_EQ(engine->getNbLayers(), 3); // reformat, plugin, reformat
    EXPECT_EQ(engine->getTensorFormat("y"), nvinfer1::TensorFormat::kLINEAR);
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_NE(context, nullptr);
    std::vector<float> in(24);
    for (std::size_t i = 0; i < in.size(); ++i)
    {
        in[i] = static_cast<float>(i) - 5.0F;
    }
    std::vector<float> out(24, -1.0F);
    ASSERT_TRUE(context->setInputShape("x", Dims{4, {2, 3, 2, 2}}));
    ASSERT_TRUE(context->setTensorAddress("x", in.data()));
    ASSERT_TRUE(context->setTensorAddress("y", out.data()));
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    for (std::size_t i = 0; i < in.size(); ++i)
    {
        EXPECT_EQ(out[i], 2.0F * in[i]) << i;
    }
    // The plugin saw its tensors in kCHW32.
    auto const ran = mJournal->callsNamed("ctx1", "enqueueHost");
    ASSERT_EQ(ran.size(), 1U);
    EXPECT_EQ(ran[0], "enqueueHost(0/5(2,3,2,2) -> 0/5(2,3,2,2),workspace)");
}

TEST_F(PluginEngineTest, EveryAcceptedCombinationIsConfiguredAndTimed)
{
    mJournal->script.formats = {nvinfer1::TensorFormat::kLINEAR, nvinfer1::TensorFormat::kCHW32};
    nvinfer1::ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{4, {-1, 3, 2, 2}});
    auto plugin = userPlugin();
    auto* layer = mNetwork->addPluginV3(&x, 1, nullptr, 0, *plugin);
    ASSERT_NE(layer, nullptr);
    mNetwork->markOutput(*layer->getOutput(0));
    auto made = config(1, 2, 2);
    ASSERT_FALSE(build(*made).empty()) << mLogger.all();
    // Position 1 is asked only after position 0 accepted a format, never before.
    std::vector<std::string> positions;
    for (std::string const& call : mJournal->callsNamed("clone2", "supportsFormatCombination"))
    {
        positions.push_back(call.substr(26, 1));
    }
    ASSERT_GE(positions.size(), 1U);
    EXPECT_EQ(positions.front(), "0");
    // kFLOAT of rank 4 with 3 channels may be kLINEAR, kCHW32 or kHWC: position 0 is asked about each, position 1
    // about each after every format position 0 accepted.
    EXPECT_EQ(positions, (std::vector<std::string>{"0", "1", "1", "1", "0", "1", "1", "1", "0"}));
    // Two combinations (the output follows the input's format), each configured and timed once, then the chosen
    // one configured again.
    EXPECT_EQ(mJournal->callsNamed("clone2", "configurePlugin").size(), 3U);
    EXPECT_EQ(mJournal->callsNamed("ctx1", "configurePlugin").size(), 2U);
    EXPECT_EQ(mJournal->callsNamed("ctx1", "enqueueHost").size(), 2U);
}

TEST_F(PluginEngineTest, AliasedOutputsAreWrittenInPlaceWithCopiesAtTheBoundary)
{
    mJournal->script.aliasOutput = 0;
    chain(2);
    auto made = config();
    made->setPreviewFeature(nvinfer1::PreviewFeature::kALIASED_PLUGIN_IO_10_03, true);
    auto const plan = build(*made);
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    EXPECT_EQ(mJournal->callsNamed("clone3", "getAliasedInput"), (std::vector<std::string>{"getAliasedInput(0)"}));

    auto engine = load(plan);
    ASSERT_NE(engine, nullptr) << mLogger.all();
    // A copy of the network input before the first plugin, none between the plugins (the first one's output is
    // the second one's alone), a copy into the network output after the second.
    EXPECT_EQ(engine->getNbLayers(), 4);
    EXPECT_EQ(engine->getAliasedInputTensor("y"), nullptr);
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_NE(context, nullptr);
    std::vector<float> const y = run(*context, 2);
    for (std::size_t i = 0; i < y.size(); ++i)
    {
        EXPECT_EQ(y[i], 4.0F * static_cast<float>(i + 1)) << i;
    }
    for (std::string const id : {"ctx1", "ctx2"})
    {
        auto const ran = mJournal->callsNamed(id, "enqueueHost");
        ASSERT_EQ(ran.size(), 1U) << id;
        EXPECT_NE(ran[0].find("in place"), std::string::npos) << ran[0];
    }
}

// An output that aliases its input shares its memory, so it has its format: of the combinations the plugin accepts
// (kLINEAR and kHWC at each position, independently), only those that agree there are configured, timed and chosen.
TEST_F(PluginEngineTest, AnAliasedOutputGetsItsInputsFormat)
{
    mJournal->script.aliasOutput = 0;
    mJournal->script.formats = {nvinfer1::TensorFormat::kLINEAR, nvinfer1::TensorFormat::kHWC};
    mJournal->script.anyOutputFormat = true;
    chain();
    auto made = config();
    made->setPreviewFeature(nvinfer1::PreviewFeature::kALIASED_PLUGIN_IO_10_03, true);
    ASSERT_FALSE(build(*made).empty()) << mLogger.all();
    // "configurePlugin(<type>/<format>(dims)[...] -> <type>/<format>(dims)[...])": the format of each side.
    auto const format
        = [](std::string const& side) { return side.substr(side.find('/'), side.find('(') - side.find('/')); };
    std::vector<std::string> const configured = mJournal->callsNamed("clone2", "configurePlugin");
    ASSERT_GE(configured.size(), 2U);
    for (std::string const& call : configured)
    {
        std::size_t const arrow = call.find(" -> ");
        ASSERT_NE(arrow, std::string::npos) << call;
        EXPECT_EQ(format(call.substr(std::string("configurePlugin(").size(), arrow)), format(call.substr(arrow + 4)))
            << call;
    }
}

TEST_F(PluginEngineTest, WithoutThePreviewFeatureNothingIsAliased)
{
    mJournal->script.aliasOutput = 0;
    chain();
    auto made = config();
    ASSERT_FALSE(build(*made).empty()) << mLogger.all();
    EXPECT_EQ(mJournal->count("getAliasedInput"), 0);
}

// TensorRT's quickly_deployable_plugins inplace_add (qdp_runner.py): two plugins whose output aliases their input,
// built with kFP16 and kALIASED_PLUGIN_IO_10_03; the plugin takes kFLOAT in Script::formats and kHALF in
// Script::halfFormats.
class PluginTypesTest : public PluginEngineTest
{
protected:
    //! x FLOAT [-1, 3, 2, 2] -> two aliasing plugins (scale 2) -> y, built with kFP16 and the aliasing preview; runs
    //! it at N = 2 on x = 1, 2, 3... and returns y (empty when the build fails).
    std::vector<float> inplaceChain()
    {
        mJournal->script.aliasOutput = 0;
        chain(2, Dims{4, {-1, 3, 2, 2}});
        auto made = config();
        made->setFlag(nvinfer1::BuilderFlag::kFP16);
        made->setPreviewFeature(nvinfer1::PreviewFeature::kALIASED_PLUGIN_IO_10_03, true);
        auto const plan = build(*made);
        if (plan.empty())
        {
            return {};
        }
        auto engine = load(plan);
        EXPECT_NE(engine, nullptr) << mLogger.all();
        if (engine == nullptr)
        {
            return {};
        }
        EXPECT_EQ(engine->getTensorDataType("x"), DataType::kFLOAT);
        EXPECT_EQ(engine->getTensorDataType("y"), DataType::kFLOAT);
        std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
        std::vector<float> x0(2 * 3 * 2 * 2);
        for (std::size_t i = 0; i < x0.size(); ++i)
        {
            x0[i] = static_cast<float>(i + 1);
        }
        std::vector<float> y(x0.size(), -1.0F);
        EXPECT_TRUE(context->setInputShape("x", Dims{4, {2, 3, 2, 2}}));
        EXPECT_TRUE(context->setTensorAddress("x", x0.data()));
        EXPECT_TRUE(context->setTensorAddress("y", y.data()));
        EXPECT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
        return y;
    }

    //! y = 4 x for x = 1, 2, 3...
    static void expectQuadrupled(std::vector<float> const& y)
    {
        ASSERT_EQ(y.size(), 24U);
        for (std::size_t i = 0; i < y.size(); ++i)
        {
            EXPECT_EQ(y[i], 4.0F * static_cast<float>(i + 1)) << "at " << i;
        }
    }

    //! "type/format -> type/format" of every configurePlugin() call any plugin object heard (types and formats as
    //! numbers).
    std::set<std::string> configuredTypes() const
    {
        std::set<std::string> result;
        for (std::string const& entry : mJournal->log())
        {
            std::string const call = entry.substr(entry.find(':') + 1);
            if (call.rfind("configurePlugin(", 0) != 0)
            {
                continue;
            }
            std::string io;
            for (std::size_t at = call.find('('); at != std::string::npos; at = call.find(' ', at + 1))
            {
                std::size_t const start = at + 1;
                std::size_t const slash = call.find('/', start);
                std::size_t const end = call.find('(', slash);
                if (slash == std::string::npos || end == std::string::npos)
                {
                    break;
                }
                io += (io.empty() ? "" : " ") + call.substr(start, end - start);
                at = call.find(']', end);
            }
            result.insert(io);
        }
        return result;
    }
};

// The inplace_add sample's autotune with FP16 left out: kFLOAT in kLINEAR is refused, so the plugin takes x in kHWC
// through a reformat, which keeps kFLOAT under kFP16 (it was lowered to kHALF, which kHWC does not hold).
TEST_F(PluginTypesTest, AReformatForAPluginKeepsTheTypeItNegotiated)
{
    mJournal->script.formats = {nvinfer1::TensorFormat::kHWC};
    std::vector<float> const y = inplaceChain();
    ASSERT_FALSE(y.empty()) << mLogger.all();
    expectQuadrupled(y);
    EXPECT_EQ(configuredTypes(), (std::set<std::string>{"0/8 -> 0/8"})); // kFLOAT kHWC both sides
}

// With kFP16 a plugin's kFLOAT I/O may take kHALF: a plugin that takes only kHALF builds in a kFLOAT network, with
// casts at its boundary, and the network's tensors keep their types.
TEST_F(PluginTypesTest, WithFp16APluginMayTakeHalf)
{
    mJournal->script.noFloat = true;
    mJournal->script.halfFormats = {nvinfer1::TensorFormat::kLINEAR};
    std::vector<float> const y = inplaceChain();
    ASSERT_FALSE(y.empty()) << mLogger.all();
    expectQuadrupled(y);
    EXPECT_EQ(configuredTypes(), (std::set<std::string>{"1/0 -> 1/0"})); // kHALF kLINEAR
    std::vector<std::string> const ran = mJournal->callsNamed("ctx1", "enqueueHost");
    ASSERT_EQ(ran.size(), 1U);
    EXPECT_EQ(ran[0], "enqueueHost(1/0(2,3,2,2) -> 1/0(2,3,2,2),workspace,in place)");
}

// The sample's autotune: kFLOAT in kLINEAR and kHWC, kHALF in kLINEAR. Every candidate is timed and whichever wins
// computes the right values, an aliased output in its input's type and format.
TEST_F(PluginTypesTest, TheInplaceAddSampleBuildsAndRuns)
{
    mJournal->script.formats = {nvinfer1::TensorFormat::kLINEAR, nvinfer1::TensorFormat::kHWC};
    mJournal->script.halfFormats = {nvinfer1::TensorFormat::kLINEAR};
    std::vector<float> const y = inplaceChain();
    ASSERT_FALSE(y.empty()) << mLogger.all();
    expectQuadrupled(y);
    EXPECT_EQ(configuredTypes(), (std::set<std::string>{"0/0 -> 0/0", "0/8 -> 0/8", "1/0 -> 1/0"}));
    // Timed as it runs: the aliased output in its input's memory.
    int32_t runs = 0;
    for (std::string const& entry : mJournal->log())
    {
        if (entry.find(":enqueueHost(") != std::string::npos)
        {
            ++runs;
            EXPECT_NE(entry.find(",in place)"), std::string::npos) << entry;
        }
    }
    EXPECT_GT(runs, 2);
}

// Without kFP16 the types are the network's: the kHALF-only plugin finds no combination, and the message says why.
TEST_F(PluginTypesTest, WithoutFp16TheNetworksTypesStay)
{
    mJournal->script.noFloat = true;
    mJournal->script.halfFormats = {nvinfer1::TensorFormat::kLINEAR};
    chain();
    auto made = config();
    EXPECT_TRUE(build(*made).empty());
    expectError({"plugin0", "supportsFormatCombination() accepted no combination", "kFLOAT",
        "kFP16 or kBF16 let a plugin take a reduced type"});
}

TEST_F(PluginEngineTest, ShapeInputsReachOnlyGetOutputShapes)
{
    nvinfer1::ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{2, {-1, 4}});
    nvinfer1::ITensor* s = mNetwork->addInput("s", DataType::kINT32, Dims{1, {1}});
    auto plugin = userPlugin();
    auto* layer = mNetwork->addPluginV3(&x, 1, &s, 1, *plugin);
    ASSERT_NE(layer, nullptr) << mLogger.all();
    layer->setName("plugin0");
    layer->getOutput(0)->setName("y");
    mNetwork->markOutput(*layer->getOutput(0));
    std::unique_ptr<nvinfer1::IBuilderConfig> made{mBuilder->createBuilderConfig()};
    auto* profile = mBuilder->createOptimizationProfile();
    profile->setDimensions("x", OptProfileSelector::kMIN, Dims{2, {1, 4}});
    profile->setDimensions("x", OptProfileSelector::kOPT, Dims{2, {2, 4}});
    profile->setDimensions("x", OptProfileSelector::kMAX, Dims{2, {3, 4}});
    int64_t const values[3] = {1, 5, 9};
    profile->setShapeValuesV2("s", OptProfileSelector::kMIN, &values[0], 1);
    profile->setShapeValuesV2("s", OptProfileSelector::kOPT, &values[1], 1);
    profile->setShapeValuesV2("s", OptProfileSelector::kMAX, &values[2], 1);
    made->addOptimizationProfile(profile);
    auto const plan = build(*made);
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    EXPECT_EQ(mJournal->callsNamed("clone1", "getOutputShapes"), (std::vector<std::string>{"getOutputShapes(1,1,1)"}));
    auto const configured = mJournal->callsNamed("clone2", "configurePlugin");
    ASSERT_FALSE(configured.empty());
    EXPECT_EQ(configured[0], "configurePlugin(0/0(-1,4)[(1,4)(2,4)(3,4)] -> 0/0(-1,4)[(1,4)(2,4)(3,4)])");

    auto engine = load(plan);
    ASSERT_NE(engine, nullptr) << mLogger.all();
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_NE(context, nullptr);
    int32_t const shapeValue = 7;
    ASSERT_TRUE(context->setInputShape("s", Dims{1, {1}}));
    ASSERT_TRUE(context->setTensorAddress("s", const_cast<int32_t*>(&shapeValue)));
    std::vector<float> const y = run(*context, 2);
    EXPECT_EQ(y[7], 16.0F);
    auto const ran = mJournal->callsNamed("ctx1", "enqueueHost");
    ASSERT_EQ(ran.size(), 1U);
    EXPECT_EQ(ran[0], "enqueueHost(0/0(2,4) -> 0/0(2,4),workspace)");
}

TEST_F(PluginEngineTest, TheResourceContextGivesTheRuntimesAllocator)
{
    chain();
    auto made = config();
    auto const plan = build(*made);
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    class Allocator final : public nvinfer1::IGpuAsyncAllocator
    {
    public:
        void* allocateAsync(uint64_t, uint64_t, nvinfer1::AllocatorFlags, cudaStream_t) noexcept override
        {
            return nullptr;
        }
        bool deallocateAsync(void*, cudaStream_t) noexcept override { return false; }
    } allocator;
    mRuntime.reset(nvinfer1::createInferRuntime(mLogger));
    mRuntime->setGpuAllocator(&allocator);
    auto engine = load(plan);
    ASSERT_NE(engine, nullptr) << mLogger.all();
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_NE(context, nullptr);
    EXPECT_EQ(mJournal->allocators, (std::vector<nvinfer1::IGpuAllocator*>{&allocator}));
}

TEST_F(PluginEngineTest, TheBuilderSaysWhatItDid)
{
    mJournal->script.tactics = {7, 3};
    nvinfer1::ITensor* x = chain();
    x->setName("chained");
    mNetwork->unmarkOutput(*x);
    auto* relu = mNetwork->addActivation(*x, nvinfer1::ActivationType::kRELU);
    relu->setName("relu");
    relu->getOutput(0)->setName("y");
    mNetwork->markOutput(*relu->getOutput(0));
    auto made = config();
    ASSERT_FALSE(build(*made).empty()) << mLogger.all();
    auto const has = [&](nvinfer1::ILogger::Severity severity, std::vector<std::string> const& fragments) {
        for (std::string const& message : mLogger.messages(severity))
        {
            if (std::all_of(fragments.begin(), fragments.end(),
                    [&](std::string const& fragment) { return message.find(fragment) != std::string::npos; }))
            {
                return true;
            }
        }
        return false;
    };
    using Severity = nvinfer1::ILogger::Severity;
    // kINFO: what is built, the memory planned, the time taken.
    EXPECT_TRUE(has(Severity::kINFO, {"building network", "host backend", "2 layers", "1 optimization profile"}))
        << mLogger.all();
    EXPECT_TRUE(has(Severity::kINFO, {"2 layers", "weights", "activation memory", "profile 0"})) << mLogger.all();
    EXPECT_TRUE(has(Severity::kINFO, {"engine built in", " s"})) << mLogger.all();
    // kVERBOSE: each plugin tactic's timing and the choice, each layer with its formats.
    std::string const plugin = "layer 'plugin0' (IPluginV3Layer): plugin \"Recording\"";
    EXPECT_TRUE(has(Severity::kVERBOSE,
        {plugin,
            "tactic 7 with formats (kFLOAT kLINEAR, kFLOAT kLINEAR) at "
            "optimization profile 0: ",
            " ms"}))
        << mLogger.all();
    EXPECT_TRUE(has(Severity::kVERBOSE, {plugin, "chose tactic ", " of 2 candidates"})) << mLogger.all();
    EXPECT_TRUE(has(
        Severity::kVERBOSE, {"layer 'relu' (IActivationLayer): 'chained' (kFLOAT kLINEAR) -> 'y' (kFLOAT kLINEAR)"}))
        << mLogger.all();
}

// Failures.

TEST_F(PluginEngineTest, AFailingConfigurePluginEndsTheBuild)
{
    chain();
    mJournal->script.failing = {"configurePlugin"};
    auto made = config();
    EXPECT_TRUE(build(*made).empty());
    expectError({"layer 'plugin0' (IPluginV3Layer)", "plugin \"Recording\" version \"1\" namespace \"kiln.test\"",
        "configurePlugin() returned status 1"});
}

TEST_F(PluginEngineTest, AFailingCloneEndsTheBuild)
{
    chain();
    mJournal->script.failing = {"clone"};
    auto made = config();
    EXPECT_TRUE(build(*made).empty());
    expectError({"layer 'plugin0'", "\"Recording\"", "clone() returned null"});
}

TEST_F(PluginEngineTest, AFailingEnqueueWhileTimingEndsTheBuild)
{
    mJournal->script.tactics = {5, 6};
    chain();
    mJournal->script.failing = {"enqueueHost"};
    auto made = config();
    EXPECT_TRUE(build(*made).empty());
    expectError({"layer 'plugin0'", "\"Recording\"", "enqueueHost() returned status 1 while timing tactic 5"});
}

TEST_F(PluginEngineTest, ANullAttachToContextWhileTimingEndsTheBuild)
{
    mJournal->script.tactics = {5, 6};
    chain();
    mJournal->script.failing = {"attachToContext"};
    auto made = config();
    EXPECT_TRUE(build(*made).empty());
    expectError({"layer 'plugin0'", "\"Recording\"", "attachToContext() returned null; the builder times the clone"});
}

TEST_F(PluginEngineTest, NothingToChooseRunsNothingEvenWithATimingCacheMissRefused)
{
    // One combination, no tactics: no timing, so no timing-cache look-up either.
    mJournal->script.timingCacheId = "scale=2";
    chain();
    auto made = config();
    made->setFlag(nvinfer1::BuilderFlag::kERROR_ON_TIMING_CACHE_MISS);
    EXPECT_FALSE(build(*made).empty()) << mLogger.all();
    EXPECT_EQ(mJournal->count("enqueueHost"), 0);
    EXPECT_EQ(mJournal->count("setTactic"), 0);
}

TEST_F(PluginEngineTest, InvalidTacticsEndTheBuild)
{
    mJournal->script.tactics = {4, 4};
    chain();
    auto made = config();
    EXPECT_TRUE(build(*made).empty());
    expectError({"layer 'plugin0'", "getValidTactics() gave the tactic 4 twice"});
}

TEST_F(PluginEngineTest, ATensorRTOnlyPluginBuildsAndLoadsOnTheHostAndOnlyRunningItIsRefused)
{
    // A plugin written for TensorRT alone, which asserts on any capability type TensorRT never sends.
    TensorRTOnlyCreator creator;
    ASSERT_TRUE(getPluginRegistry()->registerCreator(creator, "kiln.test"));
    outOfContractCalls() = 0;
    nvinfer1::ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{2, {-1, 4}});
    std::unique_ptr<nvinfer1::IPluginV3> plugin{creator.createPlugin("trt", nullptr, nvinfer1::TensorRTPhase::kBUILD)};
    auto* layer = mNetwork->addPluginV3(&x, 1, nullptr, 0, *plugin);
    ASSERT_NE(layer, nullptr) << mLogger.all();
    layer->setName("trt0");
    layer->getOutput(0)->setName("y");
    mNetwork->markOutput(*layer->getOutput(0));
    auto made = config();
    // Nothing to choose: the host backend builds it without running it, and loads it.
    auto const plan = build(*made);
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    auto engine = load(plan);
    ASSERT_NE(engine, nullptr) << mLogger.all();
    expectNoError();
    // Running it is what needs kiln's host capability: the context is refused, naming the plugin.
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    EXPECT_EQ(context, nullptr);
    expectError({"ICudaEngine::createExecutionContext", "layer 'trt0'",
        "plugin \"TensorRTOnly\" version \"1\" namespace \"kiln.test\" cannot run on kiln's host backend",
        "kiln::IPluginV3OneHost", "kilnRegisterPluginV3Host()"});
    // Never a capability type outside TensorRT's contract.
    EXPECT_EQ(outOfContractCalls(), 0);
    engine.reset();
    getPluginRegistry()->deregisterCreator(creator);
}

TEST_F(PluginEngineTest, FormatsNobodyAcceptsEndTheBuildNamingThePosition)
{
    mJournal->script.formats = {nvinfer1::TensorFormat::kCHW32};
    chain();
    auto made = config();
    EXPECT_TRUE(build(*made).empty());
    expectError(
        {"layer 'plugin0'", "supportsFormatCombination() accepted no combination", "position 0 (input 0 'x', kFLOAT"});
}

TEST_F(PluginEngineTest, AMissingCreatorAtLoadSaysHowToRegisterIt)
{
    chain();
    auto made = config();
    auto const plan = build(*made);
    ASSERT_FALSE(plan.empty());
    getPluginRegistry()->deregisterCreator(*mCreator);
    EXPECT_EQ(load(plan), nullptr);
    expectError({"IRuntime::deserializeCudaEngine", "layer 'plugin0'",
        "no creator of plugin \"Recording\" version \"1\" namespace \"kiln.test\" is registered",
        "registerCreator(creator, \"kiln.test\")"});
    ASSERT_TRUE(getPluginRegistry()->registerCreator(*mCreator, kRecordingNamespace));
}

TEST_F(PluginEngineTest, AMissingCreatorAtLoadNamesTheNearMissAndTheLoadedLibraries)
{
    chain();
    auto made = config();
    auto const plan = build(*made);
    ASSERT_FALSE(plan.empty());
    getPluginRegistry()->deregisterCreator(*mCreator);
    ProbeV3Creator nearMiss{"Recording", "2", kRecordingNamespace};
    ASSERT_TRUE(getPluginRegistry()->registerCreator(nearMiss, kRecordingNamespace));
    auto* library = getPluginRegistry()->loadLibrary(KILN_TEST_PLUGIN_LIBRARY);
    ASSERT_NE(library, nullptr) << mLogger.all();
    mLogger.clear();

    EXPECT_EQ(load(plan), nullptr);
    expectError({"IRuntime::deserializeCudaEngine", "layer 'plugin0'",
        "no creator of plugin \"Recording\" version \"1\" namespace \"kiln.test\" is registered",
        "Did you mean 'Recording' version '2' namespace 'kiln.test' (another version)?",
        std::string("Plugin libraries loaded: "), KILN_TEST_PLUGIN_LIBRARY});

    getPluginRegistry()->deregisterLibrary(library);
    getPluginRegistry()->deregisterCreator(nearMiss);
    ASSERT_TRUE(getPluginRegistry()->registerCreator(*mCreator, kRecordingNamespace));
}

TEST_F(PluginEngineTest, ANullCreatePluginAtLoadEndsTheLoad)
{
    chain();
    auto made = config();
    auto const plan = build(*made);
    ASSERT_FALSE(plan.empty());
    mJournal->script.failing = {"createPlugin"};
    EXPECT_EQ(load(plan), nullptr);
    expectError({"layer 'plugin0'", "returned null from createPlugin(\"plugin0\", 1 serialized fields"});
}

TEST_F(PluginEngineTest, ANullAttachToContextEndsTheContext)
{
    chain();
    auto made = config();
    auto engine = load(build(*made));
    ASSERT_NE(engine, nullptr);
    mJournal->script.failing = {"attachToContext"};
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    EXPECT_EQ(context, nullptr);
    expectError({"ICudaEngine::createExecutionContext", "layer 'plugin0'", "attachToContext() returned null"});
}

TEST_F(PluginEngineTest, AFailingEnqueueFailsTheRunNamingThePlugin)
{
    chain();
    auto made = config();
    auto engine = load(build(*made));
    ASSERT_NE(engine, nullptr);
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_NE(context, nullptr);
    mJournal->script.failing = {"enqueueHost"};
    std::vector<float> x(4, 1.0F);
    std::vector<float> y(4);
    ASSERT_TRUE(context->setInputShape("x", Dims{2, {1, 4}}));
    ASSERT_TRUE(context->setTensorAddress("x", x.data()));
    ASSERT_TRUE(context->setTensorAddress("y", y.data()));
    EXPECT_FALSE(context->enqueueV3(nullptr));
    expectError(
        {"IExecutionContext::enqueueV3", "layer 'plugin0'", "\"Recording\"", "enqueueHost() returned status 1"});
}

} // namespace
} // namespace kiln::test
