// SPDX-License-Identifier: Apache-2.0
// V2 plugins (IPluginV2, IPluginV2Ext, IPluginV2IOExt, IPluginV2DynamicExt) inside engines, through the public API
// only, with recording plugins that log every call (support/recording_v2.h), each test run at every level: the build
// protocol (clone, supportsFormat or supportsFormatCombination position by position, the level's configure call with
// dims without the batch dimension below IPluginV2DynamicExt, getWorkspaceSize, initialize/terminate around the timed
// run, getSerializationSize/serialize), the runtime protocol (deserializePlugin with the serialized bytes, initialize,
// clone + attachToContext + initialize per context, IPluginV2DynamicExt's configurePlugin on a shape change only,
// the host runner's enqueueHost), correct outputs at two batch sizes, other formats timed and reformatted, every object
// destroyed, and every failure with its message.
#include "support/api_test.h"
#include "support/probe_plugins.h" // tests/plugin/support
#include "support/recording_v2.h"

#include "NvInfer.h"
#include "kiln/plugin_host.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::OptProfileSelector;
using Calls = std::vector<std::string>;

class PluginV2EngineTest : public ApiTest, public ::testing::WithParamInterface<int32_t>
{
protected:
    void SetUp() override
    {
        ApiTest::SetUp();
        mJournal = std::make_shared<Journal>();
        mCreator = std::make_unique<RecordingV2Creator>(mJournal, level());
        mRunner = std::make_unique<RecordingV2Runner>(level());
        ASSERT_TRUE(getPluginRegistry()->registerCreator(*mCreator, kRecordingNamespace));
        ASSERT_TRUE(kilnRegisterPluginV2HostRunner(name(), kRecordingV2Version, kRecordingNamespace, mRunner.get()));
    }
    void TearDown() override
    {
        getPluginRegistry()->deregisterCreator(*mCreator);
        kilnDeregisterPluginV2HostRunner(name(), kRecordingV2Version, kRecordingNamespace);
        mRuntime.reset();
        ApiTest::TearDown();
        EXPECT_EQ(mJournal->alive(), 0) << "plugin objects were not destroyed";
    }

    int32_t level() const { return GetParam(); }
    char const* name() const { return kRecordingV2Names[static_cast<std::size_t>(level())]; }
    //! `plugin "RecordingV2IOExt" version "1" namespace "kiln.test"`.
    std::string described() const
    {
        return std::string("plugin \"") + name() + "\" version \"1\" namespace \"" + kRecordingNamespace + "\"";
    }

    //! x [-1, 4] -> the plugin (scale 2) -> y. The user's object is destroyed once the layer holds its clone.
    void network()
    {
        nvinfer1::ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{2, {-1, 4}});
        addPlugin({x});
    }
    //! x [-1, 3, 2, 2] -> the plugin, which takes kLINEAR and kHWC: two combinations to time; a profile with batch
    //! 1 / 2 / 3.
    std::unique_ptr<nvinfer1::IBuilderConfig> networkWithAChoice()
    {
        mJournal->script.formats = {nvinfer1::TensorFormat::kLINEAR, nvinfer1::TensorFormat::kHWC};
        nvinfer1::ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{4, {-1, 3, 2, 2}});
        addPlugin({x});
        std::unique_ptr<nvinfer1::IBuilderConfig> made{mBuilder->createBuilderConfig()};
        auto* range = mBuilder->createOptimizationProfile();
        range->setDimensions("x", OptProfileSelector::kMIN, Dims{4, {1, 3, 2, 2}});
        range->setDimensions("x", OptProfileSelector::kOPT, Dims{4, {2, 3, 2, 2}});
        range->setDimensions("x", OptProfileSelector::kMAX, Dims{4, {3, 3, 2, 2}});
        made->addOptimizationProfile(range);
        return made;
    }
    nvinfer1::IPluginV2Layer* addPlugin(std::vector<nvinfer1::ITensor*> inputs)
    {
        float const scale = 2.0F;
        nvinfer1::PluginField field{"scale", &scale, nvinfer1::PluginFieldType::kFLOAT32, 1};
        nvinfer1::PluginFieldCollection fields{1, &field};
        nvinfer1::IPluginV2* plugin = mCreator->createPlugin("user", &fields);
        auto* layer = mNetwork->addPluginV2(inputs.data(), static_cast<int32_t>(inputs.size()), *plugin);
        plugin->destroy();
        EXPECT_NE(layer, nullptr) << mLogger.all();
        if (layer != nullptr)
        {
            layer->setName("plugin0");
            layer->getOutput(0)->setName("y");
            mNetwork->markOutput(*layer->getOutput(0));
        }
        return layer;
    }

    nvinfer1::IOptimizationProfile* profile(int64_t minN, int64_t optN, int64_t maxN)
    {
        auto* made = mBuilder->createOptimizationProfile();
        made->setDimensions("x", OptProfileSelector::kMIN, Dims{2, {minN, 4}});
        made->setDimensions("x", OptProfileSelector::kOPT, Dims{2, {optN, 4}});
        made->setDimensions("x", OptProfileSelector::kMAX, Dims{2, {maxN, 4}});
        return made;
    }

    //! A config with one profile: batch 1 / 2 / 3.
    std::unique_ptr<nvinfer1::IBuilderConfig> config()
    {
        std::unique_ptr<nvinfer1::IBuilderConfig> made{mBuilder->createBuilderConfig()};
        made->addOptimizationProfile(profile(1, 2, 3));
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
    std::vector<uint8_t> build()
    {
        auto made = config();
        return build(*made);
    }

    std::unique_ptr<nvinfer1::ICudaEngine> load(std::vector<uint8_t> const& plan)
    {
        if (mRuntime == nullptr)
        {
            mRuntime.reset(nvinfer1::createInferRuntime(mLogger));
        }
        return std::unique_ptr<nvinfer1::ICudaEngine>{mRuntime->deserializeCudaEngine(plan.data(), plan.size())};
    }

    //! Runs context on x of shape [n, 4] filled with 1, 2, 3...; returns y (or nothing when the run fails).
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
        if (!context.enqueueV3(nullptr))
        {
            return {};
        }
        return y;
    }

    //! The configure call of the level for an I/O of [batch, 4] with maxBatchSize (levels 0 to 2) or the profile
    //! 1 / 2 / 3 (level 3).
    std::string configured(int32_t maxBatch = 3) const
    {
        std::string const max = std::to_string(maxBatch);
        switch (level())
        {
        case 0: return "configureWithFormat((4) -> (4),0/0," + max + ")";
        case 1: return "configurePlugin((4):0:- -> (4):0:-,0," + max + ")";
        case 2: return "configurePlugin(0/0(4) -> 0/0(4))";
        default: return "configurePlugin(0/0(-1,4)[(1,4)(2,4)(3,4)] -> 0/0(-1,4)[(1,4)(2,4)(3,4)])";
        }
    }
    //! The format queries of the level for one kLINEAR FLOAT input and output.
    Calls formatQueries() const
    {
        if (level() < 2)
        {
            return {"supportsFormat(0/0)"};
        }
        std::string const dims = level() == 2 ? "(4)" : "(-1,4)";
        return {"supportsFormatCombination(0,1,1,0/0" + dims + ")", "supportsFormatCombination(1,1,1,0/0" + dims + ")"};
    }
    std::string workspaceQuery(int32_t maxBatch = 3) const
    {
        return level() < 3 ? "getWorkspaceSize(" + std::to_string(maxBatch) + ")"
                           : "getWorkspaceSize(0/0(3,4) -> 0/0(3,4))";
    }

    std::shared_ptr<Journal> mJournal;
    std::unique_ptr<RecordingV2Creator> mCreator;
    std::unique_ptr<RecordingV2Runner> mRunner;
    std::unique_ptr<nvinfer1::IRuntime> mRuntime;
};

Calls operator+(Calls a, Calls const& b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

TEST_P(PluginV2EngineTest, BuildFollowsTheProtocol)
{
    network();
    auto const plan = build();
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    expectNoError();

    // The user's object is only cloned; the network's clone is queried and cloned, never configured; the builder
    // works on a clone of the network's clone and destroys it.
    EXPECT_EQ(mJournal->calls("user1"), (Calls{"clone()", "destroy()"}));
    Calls const network = mJournal->methods("user1.1");
    EXPECT_EQ(std::count(network.begin(), network.end(), "clone"), 1);
    for (char const* method : {"initialize", "configurePlugin", "configureWithFormat", "serialize", "destroy"})
    {
        EXPECT_EQ(std::count(network.begin(), network.end(), method), 0) << method;
    }
    // One combination: nothing to choose, so the clone is neither attached, initialized nor run (as TensorRT).
    Calls const expected
        = formatQueries() + Calls{configured(), workspaceQuery(), "getSerializationSize()", "serialize()", "destroy()"};
    EXPECT_EQ(mJournal->calls("user1.1.1"), expected);
    // Only the network's clone outlives the build; it goes with the network.
    EXPECT_EQ(mJournal->alive(), 1);
    delete mNetwork;
    mNetwork = nullptr;
    EXPECT_EQ(mJournal->calls("user1.1").back(), "destroy()");
    EXPECT_EQ(mJournal->alive(), 0);
}

TEST_P(PluginV2EngineTest, MaxBatchSizeAndConfigurationCoverEveryProfile)
{
    network();
    std::unique_ptr<nvinfer1::IBuilderConfig> made{mBuilder->createBuilderConfig()};
    made->addOptimizationProfile(profile(1, 2, 3));
    made->addOptimizationProfile(profile(4, 5, 6));
    ASSERT_FALSE(build(*made).empty()) << mLogger.all();
    Calls const tail{"getSerializationSize()", "serialize()", "destroy()"};
    if (level() < 3)
    {
        // One configuration for every profile: maxBatchSize is the largest batch.
        Calls const expected = formatQueries() + Calls{configured(6), workspaceQuery(6)} + tail;
        EXPECT_EQ(mJournal->calls("user1.1.1"), expected);
        return;
    }
    // IPluginV2DynamicExt: configured and sized per profile.
    std::string const second = "configurePlugin(0/0(-1,4)[(4,4)(5,4)(6,4)] -> 0/0(-1,4)[(4,4)(5,4)(6,4)])";
    std::string const secondWorkspace = "getWorkspaceSize(0/0(6,4) -> 0/0(6,4))";
    Calls const expected = formatQueries() + Calls{configured(), workspaceQuery(), second, secondWorkspace} + tail;
    EXPECT_EQ(mJournal->calls("user1.1.1"), expected);
}

TEST_P(PluginV2EngineTest, WithAChoiceTheAttachedCloneIsTimedAndDetached)
{
    auto made = networkWithAChoice();
    made->setTacticSources(made->getTacticSources() | (1U << static_cast<uint32_t>(nvinfer1::TacticSource::kCUBLAS)));
    ASSERT_FALSE(build(*made).empty()) << mLogger.all();
    Calls const calls = mJournal->methods("user1.1.1");
    auto const first
        = [&](char const* method) { return std::find(calls.begin(), calls.end(), method) - calls.begin(); };
    auto const last = [&](char const* method) {
        return static_cast<std::ptrdiff_t>(calls.size()) - 1
            - (std::find(calls.rbegin(), calls.rend(), method) - calls.rbegin());
    };
    EXPECT_EQ(std::count(calls.begin(), calls.end(), "enqueueHost"), 2);
    EXPECT_EQ(std::count(calls.begin(), calls.end(), "initialize"), 2);
    if (level() >= 1)
    {
        // Attached before it is first configured for timing, as a context's clone is before it runs; on the host
        // backend there are no cuDNN or cuBLAS handles to give (kCUBLAS is allowed, but there is no GPU library).
        EXPECT_EQ(std::count(calls.begin(), calls.end(), "attachToContext"), 1);
        EXPECT_LT(first("attachToContext"), first("initialize"));
        EXPECT_EQ(mJournal->callsNamed("user1.1.1", "attachToContext"), (Calls{"attachToContext(null,null,null)"}));
        // Detached when timing is over, before the record is made.
        EXPECT_EQ(std::count(calls.begin(), calls.end(), "detachFromContext"), 1);
        EXPECT_GT(first("detachFromContext"), last("terminate"));
        EXPECT_LT(first("detachFromContext"), first("serialize"));
    }
    else
    {
        EXPECT_EQ(std::count(calls.begin(), calls.end(), "attachToContext"), 0);
    }
}

TEST_P(PluginV2EngineTest, OutputsHaveTheirShapeWhileTheNetworkIsDefined)
{
    // As TensorRT, the network asks the plugin for its output dimensions (and types) when the layer is added, so the
    // layers after it see a shape: here a convolution, which needs its input's rank.
    nvinfer1::ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{4, {1, 3, 4, 4}});
    auto* layer = addPlugin({x});
    ASSERT_NE(layer, nullptr);
    Dims const dims = layer->getOutput(0)->getDimensions();
    ASSERT_EQ(dims.nbDims, 4) << mLogger.all();
    EXPECT_EQ(std::vector<int64_t>(dims.d, dims.d + 4), (std::vector<int64_t>{1, 3, 4, 4}));
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kFLOAT);
    EXPECT_FALSE(mJournal->callsNamed("user1.1", "getOutputDimensions").empty());
    std::vector<float> const kernel(2 * 3 * 3 * 3, 0.5F);
    auto* conv = mNetwork->addConvolutionNd(*layer->getOutput(0), 2, Dims{2, {3, 3}},
        nvinfer1::Weights{DataType::kFLOAT, kernel.data(), static_cast<int64_t>(kernel.size())}, nvinfer1::Weights{});
    ASSERT_NE(conv, nullptr) << mLogger.all();
    Dims const convolved = conv->getOutput(0)->getDimensions();
    ASSERT_EQ(convolved.nbDims, 4);
    EXPECT_EQ(std::vector<int64_t>(convolved.d, convolved.d + 4), (std::vector<int64_t>{1, 2, 2, 2}));
    expectNoError();
}

TEST_P(PluginV2EngineTest, RuntimeFollowsTheProtocol)
{
    network();
    auto const plan = build();
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    delete mNetwork;
    mNetwork = nullptr;
    mJournal->clear();

    auto engine = load(plan);
    ASSERT_NE(engine, nullptr) << mLogger.all();
    // The creator restores the engine's plugin from the bytes serialize() wrote (the scale given at creation and the
    // extent the build configured), named after the layer; the engine's object is initialized.
    EXPECT_EQ(mJournal->calls("creator"), (Calls{"deserializePlugin(plugin0,12 bytes,scale=2.000000,extent=4)"}));
    EXPECT_EQ(mJournal->calls("runtime1"), (Calls{"initialize()"}));

    // Each context: a clone, attached (IPluginV2Ext and up; on the host backend without cuDNN or cuBLAS handles) and
    // initialized.
    std::unique_ptr<nvinfer1::IExecutionContext> first{engine->createExecutionContext()};
    std::unique_ptr<nvinfer1::IExecutionContext> second{engine->createExecutionContext()};
    ASSERT_NE(first, nullptr) << mLogger.all();
    ASSERT_NE(second, nullptr) << mLogger.all();
    EXPECT_EQ(mJournal->calls("runtime1"), (Calls{"initialize()", "clone()", "clone()"}));
    Calls const attached = level() >= 1 ? Calls{"attachToContext(null,null,null)"} : Calls{};

    // Correct outputs at two batch sizes; IPluginV2DynamicExt hears of each new shape through configurePlugin.
    for (int64_t n : {2, 2, 3})
    {
        std::vector<float> const y = run(*first, n);
        ASSERT_EQ(y.size(), static_cast<std::size_t>(n * 4)) << mLogger.all();
        for (std::size_t i = 0; i < y.size(); ++i)
        {
            EXPECT_EQ(y[i], 2.0F * static_cast<float>(i + 1)) << "batch " << n << ", element " << i;
        }
    }
    run(*second, 1);
    auto const shaped = [&](int64_t n) {
        std::string const dims = "(" + std::to_string(n) + ",4)";
        return level() == 3 ? Calls{"configurePlugin(0/0" + dims + "[" + dims + dims + dims + "] -> 0/0" + dims + "["
                   + dims + dims + dims + "])"}
                            : Calls{};
    };
    auto const ran = [](int64_t n) {
        std::string const dims = "(" + std::to_string(n) + ",4)";
        return Calls{"enqueueHost(0/0" + dims + " -> 0/0" + dims + ",workspace)"};
    };
    EXPECT_EQ(mJournal->calls("runtime1.1"),
        attached + Calls{"initialize()"} + shaped(2) + ran(2) + ran(2) + shaped(3) + ran(3));
    EXPECT_EQ(mJournal->calls("runtime1.2"), attached + Calls{"initialize()"} + shaped(1) + ran(1));

    // A context's clone is detached, terminated and destroyed with the context; the engine's object with the engine.
    Calls const detached = level() >= 1 ? Calls{"detachFromContext()"} : Calls{};
    first.reset();
    Calls const last = mJournal->calls("runtime1.1");
    EXPECT_EQ(Calls(last.end() - static_cast<std::ptrdiff_t>(detached.size()) - 2, last.end()),
        (detached + Calls{"terminate()", "destroy()"}));
    second.reset();
    EXPECT_EQ(mJournal->alive(), 1);
    engine.reset();
    EXPECT_EQ(mJournal->calls("runtime1"), (Calls{"initialize()", "clone()", "clone()", "terminate()", "destroy()"}));
    EXPECT_EQ(mJournal->alive(), 0);
    // Never the plugin's own enqueue on the host backend.
    EXPECT_EQ(mJournal->count("enqueue"), 0);
}

TEST_P(PluginV2EngineTest, OtherFormatsAreTimedAndReformatted)
{
    // The plugin also takes kHWC (channels last, unpadded): both combinations are configured and timed, and whichever
    // wins, the engine reformats around the plugin so that y = 2 * x.
    auto made = networkWithAChoice();
    auto const plan = build(*made);
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    std::string const hwc = std::to_string(static_cast<int32_t>(nvinfer1::TensorFormat::kHWC));
    Calls const timed = mJournal->callsNamed("user1.1.1", "enqueueHost");
    EXPECT_EQ(timed,
        (Calls{"enqueueHost(0/0(2,3,2,2) -> 0/0(2,3,2,2),workspace)",
            "enqueueHost(0/" + hwc + "(2,3,2,2) -> 0/" + hwc + "(2,3,2,2),workspace)"}));
    Calls const initialized = mJournal->callsNamed("user1.1.1", "initialize");
    EXPECT_EQ(initialized.size(), 2U);

    auto engine = load(plan);
    ASSERT_NE(engine, nullptr) << mLogger.all();
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_NE(context, nullptr) << mLogger.all();
    std::vector<float> input(24);
    for (std::size_t i = 0; i < input.size(); ++i)
    {
        input[i] = static_cast<float>(i + 1);
    }
    std::vector<float> y(input.size(), -1.0F);
    ASSERT_TRUE(context->setInputShape("x", Dims{4, {2, 3, 2, 2}}));
    ASSERT_TRUE(context->setTensorAddress("x", input.data()));
    ASSERT_TRUE(context->setTensorAddress("y", y.data()));
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    for (std::size_t i = 0; i < y.size(); ++i)
    {
        EXPECT_EQ(y[i], 2.0F * input[i]) << i;
    }
}

// ---- Failures -------------------------------------------------------------------------------------------------------

TEST_P(PluginV2EngineTest, WithoutAHostRunnerABuildWithAChoiceIsRefusedByName)
{
    auto made = networkWithAChoice();
    ASSERT_TRUE(kilnDeregisterPluginV2HostRunner(name(), kRecordingV2Version, kRecordingNamespace));
    EXPECT_TRUE(build(*made).empty());
    expectError({"layer 'plugin0' (IPluginV2Layer)", described() + " cannot run on kiln's host backend",
        "no kiln::IPluginV2HostRunner is registered for it",
        std::string("kilnRegisterPluginV2HostRunner(\"") + name() + "\", \"1\", \"kiln.test\", &runner)"});
    Calls const calls = mJournal->methods("user1.1.1");
    EXPECT_EQ(std::count(calls.begin(), calls.end(), "initialize"), 0);
    EXPECT_EQ(calls.back(), "destroy");
}

TEST_P(PluginV2EngineTest, WithoutAHostRunnerItBuildsAndLoadsAndOnlyTheContextIsRefused)
{
    // Nothing to choose, so nothing runs at build time; a host runner is needed only to run the plugin.
    ASSERT_TRUE(kilnDeregisterPluginV2HostRunner(name(), kRecordingV2Version, kRecordingNamespace));
    network();
    auto const plan = build();
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    auto engine = load(plan);
    ASSERT_NE(engine, nullptr) << mLogger.all();
    expectNoError();
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    EXPECT_EQ(context, nullptr);
    expectError({"ICudaEngine::createExecutionContext", "layer 'plugin0'",
        described() + " cannot run on kiln's host backend", "kilnRegisterPluginV2HostRunner"});
    EXPECT_EQ(mJournal->count("enqueueHost"), 0);
}

TEST_P(PluginV2EngineTest, AMissingCreatorAtLoadSaysHowToRegisterIt)
{
    network();
    auto const plan = build();
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    getPluginRegistry()->deregisterCreator(*mCreator);
    EXPECT_EQ(load(plan), nullptr);
    expectError(
        {"IRuntime::deserializeCudaEngine", "layer 'plugin0'", "no creator of " + described() + " is registered",
            "register its IPluginCreator", "registerCreator(creator, \"kiln.test\")", "loadLibrary"});
    ASSERT_TRUE(getPluginRegistry()->registerCreator(*mCreator, kRecordingNamespace));
}

TEST_P(PluginV2EngineTest, AMissingCreatorAtLoadNamesTheNearMissAndTheLoadedLibraries)
{
    network();
    auto const plan = build();
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    getPluginRegistry()->deregisterCreator(*mCreator);
    ProbeV3Creator nearMiss{name(), "1", "kiln.tests"}; // one letter away from the namespace asked for
    ASSERT_TRUE(getPluginRegistry()->registerCreator(nearMiss, "kiln.tests"));
    auto* library = getPluginRegistry()->loadLibrary(KILN_TEST_PLUGIN_LIBRARY);
    ASSERT_NE(library, nullptr) << mLogger.all();
    mLogger.clear();

    EXPECT_EQ(load(plan), nullptr);
    expectError(
        {"IRuntime::deserializeCudaEngine", "layer 'plugin0'", "no creator of " + described() + " is registered",
            "Did you mean '" + std::string(name()) + "' version '1' namespace 'kiln.tests' (another namespace)?",
            std::string("Plugin libraries loaded: "), KILN_TEST_PLUGIN_LIBRARY});

    getPluginRegistry()->deregisterLibrary(library);
    getPluginRegistry()->deregisterCreator(nearMiss);
    ASSERT_TRUE(getPluginRegistry()->registerCreator(*mCreator, kRecordingNamespace));
}

TEST_P(PluginV2EngineTest, ANullDeserializePluginEndsTheLoad)
{
    network();
    auto const plan = build();
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    mJournal->script.failing = {"deserializePlugin"};
    EXPECT_EQ(load(plan), nullptr);
    expectError({"layer 'plugin0'", "the creator of " + described(),
        "returned null from deserializePlugin(\"plugin0\", 12 serialized bytes)"});
}

TEST_P(PluginV2EngineTest, AFailingInitializeEndsTheBuild)
{
    auto made = networkWithAChoice();
    mJournal->script.failing = {"initialize"};
    EXPECT_TRUE(build(*made).empty());
    expectError({"layer 'plugin0' (IPluginV2Layer)", described(),
        "initialize() returned status 1 after configuring the formats (kFLOAT kLINEAR, kFLOAT kLINEAR)"});
    // Not terminated (it never initialized), but detached and destroyed.
    Calls const calls = mJournal->calls("user1.1.1");
    Calls const end
        = level() >= 1 ? Calls{"initialize()", "detachFromContext()", "destroy()"} : Calls{"initialize()", "destroy()"};
    ASSERT_GE(calls.size(), end.size());
    EXPECT_EQ(Calls(calls.end() - static_cast<std::ptrdiff_t>(end.size()), calls.end()), end);
}

TEST_P(PluginV2EngineTest, AFailingInitializeEndsTheLoad)
{
    network();
    auto const plan = build();
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    mJournal->script.failing = {"initialize"};
    EXPECT_EQ(load(plan), nullptr);
    expectError({"IRuntime::deserializeCudaEngine", "layer 'plugin0'", described(),
        "initialize() returned status 1 on the engine's plugin"});
    EXPECT_EQ(mJournal->calls("runtime1"), (Calls{"initialize()", "destroy()"}));
}

TEST_P(PluginV2EngineTest, AFailingCloneEndsTheBuild)
{
    network();
    mJournal->script.failing = {"clone"};
    EXPECT_TRUE(build().empty());
    expectError({"layer 'plugin0'", described(), "clone() returned null; the builder works on a clone"});
}

TEST_P(PluginV2EngineTest, AFailingCloneEndsTheContext)
{
    network();
    auto engine = load(build());
    ASSERT_NE(engine, nullptr) << mLogger.all();
    mJournal->script.failing = {"clone"};
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    EXPECT_EQ(context, nullptr);
    expectError({"ICudaEngine::createExecutionContext", "layer 'plugin0'", described(),
        "clone() returned null; each execution context runs a clone of the engine's plugin"});
}

TEST_P(PluginV2EngineTest, AFailingEnqueueWhileTimingEndsTheBuild)
{
    auto made = networkWithAChoice();
    mJournal->script.failing = {"enqueueHost"};
    EXPECT_TRUE(build(*made).empty());
    expectError({"layer 'plugin0'", described(),
        "the host runner's enqueueHost() returned status 1 while timing the formats (kFLOAT kLINEAR, kFLOAT kLINEAR) "
        "at optimization profile 0"});
    // Terminated after the failed run, detached, then destroyed.
    Calls const calls = mJournal->calls("user1.1.1");
    Calls end{"enqueueHost(0/0(2,3,2,2) -> 0/0(2,3,2,2),workspace)", "terminate()"};
    end = end + (level() >= 1 ? Calls{"detachFromContext()", "destroy()"} : Calls{"destroy()"});
    ASSERT_GE(calls.size(), end.size());
    EXPECT_EQ(Calls(calls.end() - static_cast<std::ptrdiff_t>(end.size()), calls.end()), end);
}

TEST_P(PluginV2EngineTest, AFailingEnqueueFailsTheRunNamingThePlugin)
{
    network();
    auto engine = load(build());
    ASSERT_NE(engine, nullptr) << mLogger.all();
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_NE(context, nullptr);
    mJournal->script.failing = {"enqueueHost"};
    EXPECT_TRUE(run(*context, 1).empty());
    expectError({"IExecutionContext::enqueueV3", "layer 'plugin0'", described(),
        "the host runner's enqueueHost() returned status 1"});
}

TEST_P(PluginV2EngineTest, AnOversizedSerializationEndsTheBuild)
{
    network();
    mJournal->script.failing = {"getSerializationSize"};
    EXPECT_TRUE(build().empty());
    expectError({"layer 'plugin0'", described(),
        "getSerializationSize() returned 1073741825 bytes; kiln keeps at most 1 GiB per plugin"});
}

TEST_P(PluginV2EngineTest, FormatsNobodyAcceptsEndTheBuild)
{
    mJournal->script.formats = {nvinfer1::TensorFormat::kCHW32};
    network();
    EXPECT_TRUE(build().empty());
    if (level() < 2)
    {
        expectError({"layer 'plugin0'", described(),
            "supportsFormat() accepted no format for the layer's types: it refused kFLOAT kLINEAR",
            "gives all its inputs and outputs one format"});
        return;
    }
    expectError({"layer 'plugin0'", described(), "supportsFormatCombination() accepted no combination",
        "position 0 (input 0 'x', kFLOAT", "formats tried: kLINEAR"});
}

INSTANTIATE_TEST_SUITE_P(
    Levels, PluginV2EngineTest, ::testing::Values(0, 1, 2, 3), [](::testing::TestParamInfo<int32_t> const& suite) {
        return std::string(kRecordingV2Names[static_cast<std::size_t>(suite.param)]);
    });

// ---- Level-specific and registration checks
// --------------------------------------------------------------------------

class PluginV2Level0Test : public PluginV2EngineTest
{
};

TEST_P(PluginV2Level0Test, MixedTypesAreRefusedForAnIPluginV2)
{
    nvinfer1::ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{2, {-1, 4}});
    nvinfer1::ITensor* z = mNetwork->addInput("z", DataType::kHALF, Dims{2, {2, 4}});
    ASSERT_NE(addPlugin({x, z}), nullptr);
    EXPECT_TRUE(build().empty());
    expectError({"layer 'plugin0'", described(),
        "an IPluginV2 gives all its inputs and outputs one type (configureWithFormat), but they have the types kFLOAT "
        "and kHALF"});
}

INSTANTIATE_TEST_SUITE_P(Level0, PluginV2Level0Test, ::testing::Values(0));

//! A runner that reports another interface.
class ForeignRunner final : public kiln::IPluginV2HostRunner
{
public:
    nvinfer1::InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return nvinfer1::InterfaceInfo{"SOMETHING_ELSE", 1, 0};
    }
    int32_t enqueueHost(nvinfer1::IPluginV2&, nvinfer1::PluginTensorDesc const*, nvinfer1::PluginTensorDesc const*,
        void const* const*, void* const*, void*) noexcept override
    {
        return 0;
    }
};

TEST(PluginV2HostRunner, InterfaceInfo)
{
    RecordingV2Runner runner(0);
    nvinfer1::IVersionedInterface const& versioned = runner;
    nvinfer1::InterfaceInfo const info = versioned.getInterfaceInfo();
    EXPECT_STREQ(info.kind, "KILN_PLUGIN_V2_HOST_RUNNER");
    EXPECT_EQ(info.major, 1);
    EXPECT_EQ(info.minor, 0);
    EXPECT_TRUE((std::is_same_v<kiln::IPluginV2HostRunner, kiln::v_1_0::IPluginV2HostRunner>));
}

class PluginV2RegistrationTest : public ApiTest
{
};

TEST_F(PluginV2RegistrationTest, RefusalsAreLoggedByName)
{
    RecordingV2Runner runner(0);
    ASSERT_TRUE(kilnRegisterPluginV2HostRunner("Reg", "1", nullptr, &runner));
    expectNoError();
    EXPECT_FALSE(kilnRegisterPluginV2HostRunner("Reg", "1", "", &runner));
    expectError({"kilnRegisterPluginV2HostRunner", "plugin \"Reg\" version \"1\" namespace \"\"",
        "a runner is registered for it already"});
    EXPECT_FALSE(kilnRegisterPluginV2HostRunner("Reg", "2", "", nullptr));
    expectError({"kilnRegisterPluginV2HostRunner", "plugin \"Reg\" version \"2\"", "the runner is null"});
    EXPECT_FALSE(kilnRegisterPluginV2HostRunner(nullptr, "1", "", &runner));
    expectError({"kilnRegisterPluginV2HostRunner", "the plugin name is null"});
    EXPECT_FALSE(kilnRegisterPluginV2HostRunner("Reg", nullptr, "", &runner));
    expectError({"kilnRegisterPluginV2HostRunner", "the plugin version is null"});
    ForeignRunner foreign;
    EXPECT_FALSE(kilnRegisterPluginV2HostRunner("Reg", "3", "", &foreign));
    expectError({"kilnRegisterPluginV2HostRunner", "reports interface \"SOMETHING_ELSE\" version 1",
        "\"KILN_PLUGIN_V2_HOST_RUNNER\" version 1"});
    EXPECT_TRUE(kilnDeregisterPluginV2HostRunner("Reg", "1", ""));
    expectNoError();
    EXPECT_FALSE(kilnDeregisterPluginV2HostRunner("Reg", "1", nullptr));
    expectError({"kilnDeregisterPluginV2HostRunner", "plugin \"Reg\" version \"1\" namespace \"\"",
        "no runner is registered for it"});
}

} // namespace
} // namespace kiln::test
