// SPDX-License-Identifier: Apache-2.0
// Ahead-of-time (AOT) kernels in engines on the host backend (plugin/aot_kernel.h, runtime/plugin_runtime_aot.cpp): a
// V3 plugin with kiln's AOT build capability builds into an engine that keeps its kernel name, PTX and symbolic launch
// values instead of the plugin; the plan loads in the same and in a fresh runtime with no creator registered anywhere;
// its expressions evaluate right for several input shapes; the inspector shows the kernel; running on the host
// backend fails with a message naming the plugin; every refusal at build and at load names what is wrong.
#include "support/aot_plugin.h"
#include "support/api_test.h"

#include "plan/container.h"
#include "plan/engine_codec.h"
#include "plugin/aot_kernel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

class AotKernelEngineTest : public ApiTest
{
protected:
    //! x [-1, 8] -> the AOT plugin -> y, with rows from 1 (kMIN) to 16 (kMAX); the serialized plan, or empty.
    std::vector<uint8_t> buildPlan(AotBehaviour behaviour = {})
    {
        nvinfer1::ITensor* x = input("x", dims({-1, 8}));
        AotScalePlugin plugin(std::move(behaviour));
        nvinfer1::ITensor* inputs[] = {x};
        auto* layer = mNetwork->addPluginV3(inputs, 1, nullptr, 0, plugin);
        EXPECT_NE(layer, nullptr) << mLogger.all();
        if (layer == nullptr)
        {
            return {};
        }
        layer->setName("scale");
        layer->getOutput(0)->setName("y");
        mNetwork->markOutput(*layer->getOutput(0));
        std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
        auto* profile = mBuilder->createOptimizationProfile();
        profile->setDimensions("x", nvinfer1::OptProfileSelector::kMIN, dims({1, 8}));
        profile->setDimensions("x", nvinfer1::OptProfileSelector::kOPT, dims({4, 8}));
        profile->setDimensions("x", nvinfer1::OptProfileSelector::kMAX, dims({16, 8}));
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

    //! The plan's AOT record (decoded through the plan reader).
    static AotKernelRecord recordOf(std::vector<uint8_t> const& plan)
    {
        auto model = decodeEngine(plan.data(), plan.size());
        EXPECT_TRUE(model.ok()) << (model.ok() ? "" : model.error().message);
        for (LayerRecord const& layer : model.value().layers)
        {
            if (auto const* v3 = std::get_if<PluginV3Params>(&layer.params); v3 != nullptr && v3->plan.aot)
            {
                return *v3->plan.aot;
            }
        }
        ADD_FAILURE() << "the plan has no AOT kernel";
        return {};
    }

    //! The plan of the model decoded from plan with edit applied, written without the writer's checks.
    static std::vector<uint8_t> hostileCopy(
        std::vector<uint8_t> const& plan, std::function<void(AotKernelRecord&, PluginV3Params&)> const& edit)
    {
        auto model = decodeEngine(plan.data(), plan.size());
        EXPECT_TRUE(model.ok());
        for (LayerRecord& layer : model.value().layers)
        {
            if (auto* v3 = std::get_if<PluginV3Params>(&layer.params); v3 != nullptr && v3->plan.aot)
            {
                edit(*v3->plan.aot, *v3);
            }
        }
        auto payload = encodePayload(model.value());
        EXPECT_TRUE(payload.ok()) << (payload.ok() ? "" : payload.error().message);
        return writePlan(PlanInfo{model.value().backend}, payload.value());
    }

    //! Expects load(plan) to fail with an error holding every fragment.
    void expectRefused(std::vector<uint8_t> const& plan, std::vector<std::string> const& fragments)
    {
        mLogger.clear();
        EXPECT_EQ(load(plan), nullptr);
        auto const errors = mLogger.messages(nvinfer1::ILogger::Severity::kERROR);
        ASSERT_FALSE(errors.empty()) << mLogger.all();
        for (std::string const& fragment : fragments)
        {
            EXPECT_NE(errors.back().find(fragment), std::string::npos) << "missing \"" << fragment << "\" in:\n"
                                                                       << mLogger.all();
        }
    }
};

TEST_F(AotKernelEngineTest, BuildsSerializesAndLoadsWithoutAnyCreator)
{
    std::vector<uint8_t> const plan = buildPlan();
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    // No creator named AotScale exists in the process: the engine needs none.
    EXPECT_EQ(getPluginRegistry()->getCreator(kAotPluginName, "1", kAotPluginNamespace), nullptr);
    auto engine = load(plan);
    ASSERT_NE(engine, nullptr) << mLogger.all();
    EXPECT_EQ(engine->getNbIOTensors(), 2);

    // A fresh runtime, with the builder gone, loads it too.
    delete mNetwork;
    mNetwork = nullptr;
    delete mBuilder;
    mBuilder = nullptr;
    std::unique_ptr<nvinfer1::IRuntime> fresh{nvinfer1::createInferRuntime(mLogger)};
    std::unique_ptr<nvinfer1::ICudaEngine> again{fresh->deserializeCudaEngine(plan.data(), plan.size())};
    ASSERT_NE(again, nullptr) << mLogger.all();

    std::unique_ptr<nvinfer1::IEngineInspector> inspector{again->createEngineInspector()};
    ASSERT_NE(inspector, nullptr);
    std::string const json = inspector->getEngineInformation(nvinfer1::LayerInformationFormat::kJSON);
    EXPECT_NE(json.find("\"LayerType\": \"AotKernel\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"KernelName\": \"scale_rows\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"ScalarArguments\": 2"), std::string::npos) << json;
    std::string const line = inspector->getLayerInformation(0, nvinfer1::LayerInformationFormat::kONELINE);
    EXPECT_NE(line.find("AOT kernel 'scale_rows' (2 scalar arguments"), std::string::npos) << line;
    EXPECT_NE(line.find("namespace \"kiln_test_aot\""), std::string::npos) << line;
}

TEST_F(AotKernelEngineTest, ThePlanKeepsTheKernelAndItsExpressionsEvaluateForEachShape)
{
    std::string const ptx = ".version 8.0\n.target sm_90\n.address_size 64\n// kernel text\n";
    std::vector<uint8_t> const plan = buildPlan(AotBehaviour{.ptx = ptx});
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    AotKernelRecord const record = recordOf(plan);
    EXPECT_EQ(record.kernelName, "scale_rows");
    EXPECT_EQ(record.ptx, ptx);
    ASSERT_EQ(record.scalars.size(), 2U);

    std::mt19937 random(19);
    std::uniform_int_distribution<int64_t> rows(1, 16);
    for (int64_t r : {int64_t{1}, int64_t{16}, rows(random), rows(random), rows(random)})
    {
        Dims const shape{2, {r, 8}};
        auto launch = evaluateAotKernel(record, std::span<Dims const>(&shape, 1));
        ASSERT_TRUE(launch.ok()) << launch.error().message;
        int64_t const n = r * 8;
        EXPECT_EQ(launch.value().grid[0], static_cast<uint32_t>((n + 127) / 128)) << r;
        EXPECT_EQ(launch.value().grid[1], 1U);
        EXPECT_EQ(launch.value().grid[2], 1U);
        EXPECT_EQ(launch.value().block[0], 128U);
        EXPECT_EQ(launch.value().block[1], 1U);
        EXPECT_EQ(launch.value().sharedMemory, 32U);
        EXPECT_EQ(launch.value().scalars, (std::vector<int32_t>{static_cast<int32_t>(n), 8}));
    }
    // Empty inputs give an empty grid: nothing to launch. Shapes that give launches CUDA refuses are errors.
    Dims const empty{2, {0, 8}};
    auto nothing = evaluateAotKernel(record, std::span<Dims const>(&empty, 1));
    ASSERT_TRUE(nothing.ok()) << nothing.error().message;
    EXPECT_TRUE(nothing.value().empty());
    Dims const negative{2, {-256, 8}};
    auto refused = evaluateAotKernel(record, std::span<Dims const>(&negative, 1));
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("grid_x is -16 for these shapes"), std::string::npos)
        << refused.error().message;

    // Each limit of a launch, on the record with one value replaced by a new constant node.
    struct Limit
    {
        std::size_t value; //!< kAotLaunchValues + s: scalar s.
        int64_t constant;
        std::string fragment;
    };
    std::vector<Limit> const limits{
        {static_cast<std::size_t>(kAOT_BLOCK_X), 2048, "block_x is 2048 for these shapes; CUDA takes 1 to 1024"},
        {static_cast<std::size_t>(kAOT_BLOCK_Z), 0, "block_z is 0"},
        {static_cast<std::size_t>(kAOT_GRID_Y), 65536, "grid_y is 65536"},
        {static_cast<std::size_t>(kAOT_BLOCK_Y), 16, "a block of 2048 threads"},
        {static_cast<std::size_t>(kAOT_SHARED_MEMORY), -1, "shared_mem is -1 bytes"},
        {kAotLaunchValues + 1, int64_t{1} << 40, "scalar argument 1 is 1099511627776 for these shapes, outside int32"},
    };
    Dims const shape{2, {3, 8}};
    for (Limit const& limit : limits)
    {
        AotKernelRecord changed = record;
        changed.nodes.push_back(AotExprNode{AotExprNode::Kind::kCONSTANT, limit.constant});
        auto const node = static_cast<uint32_t>(changed.nodes.size() - 1);
        if (limit.value < kAotLaunchValues)
        {
            changed.launch[limit.value] = node;
        }
        else
        {
            changed.scalars[limit.value - kAotLaunchValues] = node;
        }
        auto const result = evaluateAotKernel(changed, std::span<Dims const>(&shape, 1));
        ASSERT_FALSE(result.ok()) << limit.fragment;
        EXPECT_NE(result.error().message.find(limit.fragment), std::string::npos) << result.error().message;
    }
    // A division by zero for these shapes.
    AotKernelRecord divided = record;
    divided.nodes.push_back(AotExprNode{AotExprNode::Kind::kCONSTANT, 0});
    divided.nodes.push_back(
        AotExprNode{AotExprNode::Kind::kOPERATION, 0, 0, 0, nvinfer1::DimensionOperation::kFLOOR_DIV,
            divided.launch[kAOT_GRID_X], static_cast<uint32_t>(divided.nodes.size() - 1)});
    divided.launch[kAOT_GRID_X] = static_cast<uint32_t>(divided.nodes.size() - 1);
    auto const byZero = evaluateAotKernel(divided, std::span<Dims const>(&shape, 1));
    ASSERT_FALSE(byZero.ok());
    EXPECT_NE(byZero.error().message.find("divides by zero or overflows"), std::string::npos) << byZero.error().message;
}

TEST_F(AotKernelEngineTest, TheFirstTacticIsKeptWithoutTiming)
{
    std::vector<uint8_t> const plan = buildPlan();
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    auto model = decodeEngine(plan.data(), plan.size());
    ASSERT_TRUE(model.ok());
    auto const& v3 = std::get<PluginV3Params>(model.value().layers[0].params);
    EXPECT_EQ(v3.plan.tactic, 7);
    EXPECT_TRUE(v3.plan.fields.empty());
    EXPECT_EQ(v3.identity.name, kAotPluginName);
    EXPECT_EQ(v3.identity.pluginNamespace, kAotPluginNamespace);
}

TEST_F(AotKernelEngineTest, RunningOnTheHostBackendNamesThePluginAndTheCudaBackend)
{
    std::vector<uint8_t> const plan = buildPlan();
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    auto engine = load(plan);
    ASSERT_NE(engine, nullptr) << mLogger.all();
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_NE(context, nullptr) << mLogger.all();
    std::vector<float> x(3 * 8, 1.F);
    std::vector<float> y(3 * 8, 0.F);
    ASSERT_TRUE(context->setInputShape("x", dims({3, 8})));
    ASSERT_TRUE(context->setTensorAddress("x", x.data()));
    ASSERT_TRUE(context->setTensorAddress("y", y.data()));
    mLogger.clear();
    EXPECT_FALSE(context->enqueueV3(nullptr));
    expectError({"layer 'scale'", "plugin \"AotScale\" version \"1\" namespace \"kiln_test_aot\"",
        "ahead-of-time (AOT) kernel ('scale_rows', PTX)", "only the CUDA backend runs"});
}

TEST_F(AotKernelEngineTest, BuildRefusalsNameThePlugin)
{
    struct Case
    {
        AotBehaviour behaviour;
        std::string fragment;
    };
    std::vector<Case> const cases{
        {AotBehaviour{.status = 3}, "getAotKernel() returned status 3 for tactic 7"},
        {AotBehaviour{.noName = true}, "getAotKernel(): getAotKernel() gave no kernel name"},
        {AotBehaviour{.foreignExpression = true},
            "scalar argument 1 is not an expression of the IExprBuilder getAotKernel() received"},
        {AotBehaviour{.ptx = ""}, "gave no PTX"},
    };
    for (Case const& c : cases)
    {
        recreate(0);
        mLogger.clear();
        EXPECT_TRUE(buildPlan(c.behaviour).empty()) << c.fragment;
        auto const errors = mLogger.messages(nvinfer1::ILogger::Severity::kERROR);
        ASSERT_FALSE(errors.empty()) << c.fragment;
        EXPECT_NE(errors.back().find(c.fragment), std::string::npos) << mLogger.all();
        EXPECT_NE(
            errors.back().find("plugin \"AotScale\" version \"1\" namespace \"kiln_test_aot\""), std::string::npos)
            << mLogger.all();
    }
    mLogger.clear();
}

TEST_F(AotKernelEngineTest, CorruptKernelRecordsAreRefusedAtLoad)
{
    std::vector<uint8_t> const plan = buildPlan();
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    using Edit = std::function<void(AotKernelRecord&, PluginV3Params&)>;
    struct Case
    {
        Edit edit;
        std::vector<std::string> fragments;
    };
    std::vector<Case> const cases{
        {[](AotKernelRecord& a, PluginV3Params&) { a.kernelName.clear(); }, {"name must be 1 to 1023 bytes"}},
        {[](AotKernelRecord& a, PluginV3Params&) { a.ptx.clear(); }, {"has no PTX"}},
        {[](AotKernelRecord& a, PluginV3Params&) { a.launch[3] = 999; }, {"block_x refers to expression 999"}},
        {[](AotKernelRecord& a, PluginV3Params&) { a.scalars[1] = 500; },
            {"scalar argument 1 refers to expression 500"}},
        {[](AotKernelRecord& a, PluginV3Params&) {
             a.nodes.push_back(AotExprNode{AotExprNode::Kind::kEXTENT, 0, 2, 0});
         },
            {"extent 0 of data input 2, which the layer does not have"}},
        {[](AotKernelRecord& a, PluginV3Params&) {
             a.nodes.push_back(
                 AotExprNode{AotExprNode::Kind::kOPERATION, 0, 0, 0, nvinfer1::DimensionOperation::kSUM, 0, 77});
         },
            {"operands must come first"}},
        {[](AotKernelRecord& a, PluginV3Params&) {
             a.nodes.push_back(
                 AotExprNode{AotExprNode::Kind::kOPERATION, 0, 0, 0, static_cast<nvinfer1::DimensionOperation>(42)});
         },
            {"unknown operation 42"}},
        {[](AotKernelRecord& a, PluginV3Params&) { a.nodes.push_back(AotExprNode{static_cast<AotExprNode::Kind>(9)}); },
            {"unknown kind 9"}},
        {[](AotKernelRecord&, PluginV3Params& p) {
             p.plan.fields.push_back(PluginFieldRecord{"k", nvinfer1::PluginFieldType::kINT32, 1, {1, 0, 0, 0}});
         },
            {"is an AOT kernel with plugin fields"}},
    };
    for (Case const& c : cases)
    {
        std::vector<std::string> fragments = c.fragments;
        fragments.push_back("plugin \"AotScale\" version \"1\" namespace \"kiln_test_aot\"");
        expectRefused(hostileCopy(plan, c.edit), fragments);
    }
    mLogger.clear();
}

// The reader wants all 7 launch values: a payload whose launch vector lost one (its length patched from 7 to 6, the
// envelope's checksums made again) is refused, naming the kernel.
TEST_F(AotKernelEngineTest, AKernelWithoutAllItsLaunchValuesIsRefusedAtLoad)
{
    std::vector<uint8_t> const plan = buildPlan();
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    AotKernelRecord const record = recordOf(plan);
    auto view = readPlan(plan.data(), plan.size());
    ASSERT_TRUE(view.ok());
    std::vector<uint8_t> payload(view.value().payload.begin(), view.value().payload.end());
    // The FlatBuffers vector: its uint32 length, then the values.
    std::vector<uint32_t> pattern{static_cast<uint32_t>(kAotLaunchValues)};
    pattern.insert(pattern.end(), record.launch.begin(), record.launch.end());
    std::vector<uint8_t> bytes(pattern.size() * sizeof(uint32_t));
    std::memcpy(bytes.data(), pattern.data(), bytes.size());
    auto const found = std::search(payload.begin(), payload.end(), bytes.begin(), bytes.end());
    ASSERT_NE(found, payload.end());
    *found = 6;
    expectRefused(writePlan(view.value().info, payload), {"the AOT kernel 'scale_rows' has 6 launch values"});
    mLogger.clear();
}

} // namespace
} // namespace kiln::test
