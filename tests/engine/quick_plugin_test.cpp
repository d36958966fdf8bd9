// SPDX-License-Identifier: Apache-2.0
// Quick plugins (TensorRT's IPluginV3Quick* interfaces, include/kiln/plugin_quick.h) in engines on the host backend:
// - a JIT Quick plugin in C++ is built (its two tactics timed through kiln::IPluginV3QuickHost), serialized, loaded
//   in a fresh runtime through its IPluginCreatorV3Quick (created with kRUNTIME and a kSTRICT_JIT request, from its
//   own name and namespace) and run; the output is checked against the same sum computed here;
// - the registry holds Quick creators: found by name, version and namespace, listed, refused by getPluginCreator;
// - an AOT Quick plugin builds into an engine that keeps its kernel, PTX and symbolic launch, which loads without
//   any creator; the engine never asks it for a runtime capability;
// - each refusal names the plugin and what came back (a wrong capability kind, a failing combination list, a null
//   createPlugin(), a failing enqueueHost(), an extra argument that is not int32).
#include "support/api_test.h"
#include "support/quick_plugins.h"

#include "plan/engine_codec.h"
#include "plugin/aot_kernel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace kiln::test
{
namespace
{

using nvinfer1::OptProfileSelector;

class QuickPluginTest : public ApiTest
{
protected:
    void SetUp() override
    {
        ApiTest::SetUp();
        mLog = std::make_shared<QuickLog>();
    }
    void TearDown() override
    {
        if (mCreator != nullptr)
        {
            getPluginRegistry()->deregisterCreator(*mCreator);
        }
        ApiTest::TearDown();
    }

    void registerCreator(QuickBehaviour behaviour = {})
    {
        mCreator = std::make_unique<QuickAddCreator>(mLog, behaviour);
        ASSERT_TRUE(getPluginRegistry()->registerCreator(*mCreator, kQuickNamespace)) << mLogger.all();
    }

    //! x [-1, 4] -> plugin -> y, rows 1 to 8; the plan, or empty (the logger says why).
    std::vector<uint8_t> buildPlan(nvinfer1::IPluginV3& plugin)
    {
        nvinfer1::ITensor* x = input("x", dims({-1, 4}));
        nvinfer1::ITensor* inputs[] = {x};
        auto* layer = mNetwork->addPluginV3(inputs, 1, nullptr, 0, plugin);
        if (layer == nullptr)
        {
            return {};
        }
        layer->setName("quick");
        layer->getOutput(0)->setName("y");
        mNetwork->markOutput(*layer->getOutput(0));
        std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
        auto* profile = mBuilder->createOptimizationProfile();
        profile->setDimensions("x", OptProfileSelector::kMIN, dims({1, 4}));
        profile->setDimensions("x", OptProfileSelector::kOPT, dims({3, 4}));
        profile->setDimensions("x", OptProfileSelector::kMAX, dims({8, 4}));
        config->addOptimizationProfile(profile);
        std::unique_ptr<nvinfer1::IHostMemory> plan{mBuilder->buildSerializedNetwork(*mNetwork, *config)};
        if (plan == nullptr)
        {
            return {};
        }
        auto const* bytes = static_cast<uint8_t const*>(plan->data());
        return {bytes, bytes + plan->size()};
    }

    std::unique_ptr<nvinfer1::ICudaEngine> load(std::vector<uint8_t> const& plan)
    {
        std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(mLogger)};
        return std::unique_ptr<nvinfer1::ICudaEngine>{runtime->deserializeCudaEngine(plan.data(), plan.size())};
    }

    //! Expects an error since the last check holding every fragment (any number of errors).
    void expectErrorWith(std::vector<std::string> const& fragments)
    {
        std::string const all = mLogger.all();
        for (std::string const& fragment : fragments)
        {
            EXPECT_NE(all.find(fragment), std::string::npos) << "missing \"" << fragment << "\" in:\n" << all;
        }
        mLogger.clear();
    }

    std::shared_ptr<QuickLog> mLog;
    std::unique_ptr<QuickAddCreator> mCreator;
};

TEST_F(QuickPluginTest, JitBuildsSavesLoadsAndRunsOnTheHost)
{
    registerCreator();
    std::vector<uint8_t> plan;
    {
        QuickAddPlugin plugin(1.5F, mLog);
        plan = buildPlan(plugin);
    }
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    // getOutputDataTypes() learned the input's rank; the two tactics were timed through the host capability.
    ASSERT_FALSE(mLog->ranksSeen.empty());
    EXPECT_TRUE(std::all_of(mLog->ranksSeen.begin(), mLog->ranksSeen.end(), [](int32_t r) { return r == 2; }));
    EXPECT_GT(mLog->hostRuns, 0);
    EXPECT_NE(std::find(mLog->tacticsSet.begin(), mLog->tacticsSet.end(), 1), mLog->tacticsSet.end());
    EXPECT_NE(std::find(mLog->tacticsSet.begin(), mLog->tacticsSet.end(), 2), mLog->tacticsSet.end());
    auto model = decodeEngine(plan.data(), plan.size());
    ASSERT_TRUE(model.ok());
    auto const& v3 = std::get<PluginV3Params>(model.value().layers[0].params);
    EXPECT_EQ(v3.identity.name, kQuickName);
    ASSERT_EQ(v3.plan.fields.size(), 1U);
    int32_t const chosen = v3.plan.tactic;
    EXPECT_TRUE(chosen == 1 || chosen == 2) << chosen;

    // A fresh runtime makes the plugin through the Quick creator, from its own name and namespace, as JIT.
    delete mNetwork;
    mNetwork = nullptr;
    mLog->tacticsSet.clear();
    auto engine = load(plan);
    ASSERT_NE(engine, nullptr) << mLogger.all();
    ASSERT_EQ(mLog->phases.size(), 1U);
    EXPECT_EQ(mLog->phases[0], nvinfer1::TensorRTPhase::kRUNTIME);
    EXPECT_EQ(mLog->requests[0], nvinfer1::QuickPluginCreationRequest::kSTRICT_JIT);
    EXPECT_EQ(mLog->createdNames[0], std::string(kQuickNamespace) + "::" + kQuickName);
    EXPECT_EQ(mLog->tacticsSet, std::vector<int32_t>{chosen});

    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_NE(context, nullptr) << mLogger.all();
    std::mt19937 random(23);
    std::uniform_real_distribution<float> values(-3.F, 3.F);
    for (int64_t rows : {int64_t{3}, int64_t{1}, int64_t{8}})
    {
        std::vector<float> x(static_cast<std::size_t>(rows * 4));
        for (float& v : x)
        {
            v = values(random);
        }
        std::vector<float> y(x.size(), 0.F);
        ASSERT_TRUE(context->setInputShape("x", dims({rows, 4})));
        ASSERT_TRUE(context->setTensorAddress("x", x.data()));
        ASSERT_TRUE(context->setTensorAddress("y", y.data()));
        mLog->hostRuns = 0;
        ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
        EXPECT_EQ(mLog->hostRuns, 1);
        EXPECT_EQ(mLog->lastInputStrides, (std::vector<int64_t>{4, 1}));
        for (std::size_t i = 0; i < x.size(); ++i)
        {
            ASSERT_FLOAT_EQ(y[i], x[i] + 1.5F) << "rows " << rows << " element " << i;
        }
    }
}

TEST_F(QuickPluginTest, TheRegistryFindsListsAndDropsQuickCreators)
{
    registerCreator();
    nvinfer1::IPluginRegistry* registry = getPluginRegistry();
    nvinfer1::IPluginCreatorInterface* found = registry->getCreator(kQuickName, "1", kQuickNamespace);
    ASSERT_EQ(found, mCreator.get());
    EXPECT_STREQ(found->getInterfaceInfo().kind, "PLUGIN CREATOR_V3QUICK");
    int32_t count = 0;
    nvinfer1::IPluginCreatorInterface* const* all = registry->getAllCreators(&count);
    EXPECT_NE(std::find(all, all + count, found), all + count);
    // A V2 look-up does not give it.
    EXPECT_EQ(registry->getPluginCreator(kQuickName, "1", kQuickNamespace), nullptr);
    // The same key twice is refused; a deregistered creator is gone.
    QuickAddCreator twin(mLog);
    mLogger.clear();
    EXPECT_FALSE(registry->registerCreator(twin, kQuickNamespace));
    expectErrorWith({"QuickAdd"});
    EXPECT_TRUE(registry->deregisterCreator(*mCreator));
    mCreator.reset();
    EXPECT_EQ(registry->getCreator(kQuickName, "1", kQuickNamespace), nullptr);
}

TEST_F(QuickPluginTest, AWrongRuntimeKindNamesThePluginAndTheKind)
{
    QuickAddPlugin plugin(1.F, mLog, QuickBehaviour{.runtimeIsOneKind = true});
    EXPECT_TRUE(buildPlan(plugin).empty());
    expectErrorWith({"layer 'quick'", "plugin \"QuickAdd\" version \"1\" namespace \"kiln_test_quick\"",
        "getCapabilityInterface(kRUNTIME) returned an interface reporting \"PLUGIN_V3QUICK_CORE\"",
        "\"PLUGIN_V3QUICK_RUNTIME\""});
}

TEST_F(QuickPluginTest, AFailingCombinationListNamesThePlugin)
{
    QuickAddPlugin plugin(1.F, mLog, QuickBehaviour{.combinationsStatus = -1});
    EXPECT_TRUE(buildPlan(plugin).empty());
    expectErrorWith({"plugin \"QuickAdd\" version \"1\" namespace \"kiln_test_quick\"",
        "getSupportedFormatCombinations() returned status -1"});
    QuickAddPlugin none(1.F, mLog, QuickBehaviour{.nbCombinations = 0});
    recreate(0);
    EXPECT_TRUE(buildPlan(none).empty());
    expectErrorWith({"getNbSupportedFormatCombinations() returned 0"});
}

TEST_F(QuickPluginTest, ANullCreatePluginAtLoadNamesThePluginAndTheRequest)
{
    std::vector<uint8_t> plan;
    {
        QuickAddPlugin plugin(1.F, mLog);
        plan = buildPlan(plugin);
    }
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    // No creator registered: the error says which plugin and how to register one.
    mLogger.clear();
    EXPECT_EQ(load(plan), nullptr);
    expectErrorWith({"layer 'quick'", "no creator of plugin \"QuickAdd\" version \"1\" namespace \"kiln_test_quick\""});
    registerCreator(QuickBehaviour{.createNull = true});
    EXPECT_EQ(load(plan), nullptr);
    expectErrorWith({"the creator of plugin \"QuickAdd\" version \"1\" namespace \"kiln_test_quick\" returned null",
        "TensorRTPhase::kRUNTIME, QuickPluginCreationRequest::kSTRICT_JIT"});
}

TEST_F(QuickPluginTest, AFailingEnqueueHostFailsTheRunNamingThePlugin)
{
    registerCreator(QuickBehaviour{.enqueueStatus = 5});
    std::vector<uint8_t> plan;
    {
        QuickAddPlugin plugin(1.F, mLog); // succeeds while the builder times it
        plan = buildPlan(plugin);
    }
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    auto engine = load(plan);
    ASSERT_NE(engine, nullptr) << mLogger.all();
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_NE(context, nullptr) << mLogger.all();
    std::vector<float> x(4, 1.F);
    std::vector<float> y(4, 0.F);
    ASSERT_TRUE(context->setInputShape("x", dims({1, 4})));
    ASSERT_TRUE(context->setTensorAddress("x", x.data()));
    ASSERT_TRUE(context->setTensorAddress("y", y.data()));
    mLogger.clear();
    EXPECT_FALSE(context->enqueueV3(nullptr));
    expectErrorWith({"layer 'quick'", "plugin \"QuickAdd\" version \"1\" namespace \"kiln_test_quick\"",
        "enqueueHost() returned status 5"});
}

TEST_F(QuickPluginTest, AnAotQuickPluginKeepsItsKernelAndIsNeverAskedForARuntime)
{
    std::string const ptx = "// add_k's PTX; the host backend never loads it\n";
    std::vector<uint8_t> plan;
    {
        QuickAotPlugin plugin(ptx, mLog);
        plan = buildPlan(plugin);
    }
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    EXPECT_EQ(mLog->runtimeAsks, 0);
    EXPECT_EQ(mLog->tacticsSet, std::vector<int32_t>{0}); // setTactic() before getLaunchParams()
    auto model = decodeEngine(plan.data(), plan.size());
    ASSERT_TRUE(model.ok());
    auto const& v3 = std::get<PluginV3Params>(model.value().layers[0].params);
    ASSERT_TRUE(v3.plan.aot.has_value());
    EXPECT_EQ(v3.plan.aot->kernelName, "add_k");
    EXPECT_EQ(v3.plan.aot->ptx, ptx);
    EXPECT_EQ(v3.plan.aot->scalars.size(), 1U);
    EXPECT_TRUE(v3.plan.fields.empty());
    Dims const shape{2, {5, 4}};
    auto launch = evaluateAotKernel(*v3.plan.aot, std::span<Dims const>(&shape, 1));
    ASSERT_TRUE(launch.ok()) << launch.error().message;
    EXPECT_EQ(launch.value().grid[0], 1U);
    EXPECT_EQ(launch.value().block[0], 256U);
    EXPECT_EQ(launch.value().block[1], 1U);
    EXPECT_EQ(launch.value().sharedMemory, 0U);
    EXPECT_EQ(launch.value().scalars, std::vector<int32_t>{20});
    // No creator of QuickAddAot exists: the plan loads all the same.
    auto engine = load(plan);
    EXPECT_NE(engine, nullptr) << mLogger.all();
    EXPECT_EQ(mLog->runtimeAsks, 0);
}

TEST_F(QuickPluginTest, AnAotExtraArgumentThatIsNotInt32IsRefused)
{
    QuickAotPlugin plugin("// PTX\n", mLog, QuickBehaviour{.int16Argument = true});
    EXPECT_TRUE(buildPlan(plugin).empty());
    expectErrorWith({"plugin \"QuickAddAot\" version \"1\" namespace \"kiln_test_quick\"",
        "extra argument 0 is kINT16; kiln's AOT kernels take int32 scalar arguments"});
}

} // namespace
} // namespace kiln::test
