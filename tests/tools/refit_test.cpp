// SPDX-License-Identifier: Apache-2.0
// --refit on the host backend: the engine is built with BuilderFlag::kREFIT (inspect shows it, and shows an engine
// built without it as not refittable), refitted once with the model's own weights through IRefitter before inference,
// and computes what it computed before.
#include "inspect.h"
#include "logger.h"
#include "refit.h"
#include "tool_test_support.h"

#include <nlohmann/json.hpp>

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace kiln_tool_test
{
namespace
{

std::vector<std::string> quick(std::vector<std::string> args)
{
    args.push_back("--warmUp=0");
    args.push_back("--duration=0");
    return args;
}

//! Y = Conv(X, K, C) with X [1, 2, 3, 3], a 1x1 kernel K [3, 2, 1, 1] and a bias C [3]: kKERNEL and kBIAS weights.
void writeConvModel(fs::path const& path)
{
    ModelBuilder m;
    m.input("X", {1, 2, 3, 3});
    m.initializer(kiln::onnx_test::floatTensor("K", {3, 2, 1, 1}, {1.0F, 0.5F, -1.0F, 2.0F, 0.25F, 0.75F}));
    m.initializer(kiln::onnx_test::floatTensor("C", {3}, {0.5F, -0.5F, 1.0F}));
    m.node("Conv", {"X", "K", "C"}, {"Y"}, "conv");
    m.output("Y");
    m.writeTo(path);
}

nlohmann::json inspectJson(std::string const& plan)
{
    std::ostringstream out;
    std::ostringstream err;
    EXPECT_EQ(kiln_tool::runInspect({plan, "--json"}, out, err), 0) << err.str();
    return nlohmann::json::parse(out.str());
}

std::string inspectText(std::string const& plan)
{
    std::ostringstream out;
    std::ostringstream err;
    EXPECT_EQ(kiln_tool::runInspect({plan}, out, err), 0) << err.str();
    return out.str();
}

std::string fileText(fs::path const& path)
{
    std::vector<char> const bytes = readAll(path);
    return std::string(bytes.begin(), bytes.end());
}

class Refit : public testing::Test
{
protected:
    void SetUp() override { writeDenseModel(mModel); }

    std::string model() const { return mModel.string(); }

    //! The dense model built (with extra flags) and run on fixed inputs; the exported outputs' text.
    ToolRun run(std::vector<std::string> const& extra, std::string const& outputs)
    {
        writeRaw(mDir / "x.bin", mX);
        std::vector<std::string> args{"--onnx=" + model(), "--shapes=X:3x4",
            "--loadInputs=X:" + (mDir / "x.bin").string(), "--exportOutput=" + (mDir / outputs).string()};
        args.insert(args.end(), extra.begin(), extra.end());
        return runTool(quick(args));
    }

    ScratchDir mDir;
    fs::path mModel = mDir / "dense.onnx";
    std::vector<float> const mX{1.0F, 2.0F, 3.0F, 4.0F, -1.0F, 0.5F, 0.25F, -2.0F, 0.0F, 0.0F, 1.0F, 0.0F};
};

TEST_F(Refit, ARefittableEngineIsRefittedOnceWithItsOwnWeightsAndComputesTheSame)
{
    std::string const plan = (mDir / "refit.plan").string();
    ToolRun const refitted = run({"--refit", "--saveEngine=" + plan}, "refitted.json");
    ASSERT_EQ(refitted.result.exitStatus, 0) << refitted.err;
    EXPECT_NE(refitted.out.find("[I] Refit: Enabled"), std::string::npos) << refitted.out;
    EXPECT_NE(refitted.out.find("[I] Refittable weights: 2 by name, 2 by layer and role"), std::string::npos)
        << refitted.out;
    EXPECT_NE(refitted.out.find("[I] Engine refitted in "), std::string::npos) << refitted.out;
    ASSERT_TRUE(refitted.result.summary.has_value());
    ASSERT_TRUE(refitted.result.summary->refitMs.has_value());
    EXPECT_GE(*refitted.result.summary->refitMs, 0.0);
    EXPECT_TRUE(hasLine(refitted.out, "Refit Time: ")) << refitted.out;

    // The refitted engine's outputs are the model's, and the same as an engine that was never refitted.
    nlohmann::json const outputs = nlohmann::json::parse(fileText(mDir / "refitted.json"));
    std::vector<float> const expected = denseReference(mX);
    ASSERT_EQ(outputs[0]["values"].size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
    {
        EXPECT_NEAR(outputs[0]["values"][i].get<double>(), expected[i], 1e-5) << "value " << i;
    }
    ToolRun const plain = run({}, "plain.json");
    ASSERT_EQ(plain.result.exitStatus, 0) << plain.err;
    EXPECT_EQ(fileText(mDir / "refitted.json"), fileText(mDir / "plain.json"));
    EXPECT_EQ(plain.out.find("refitted"), std::string::npos) << plain.out;
    EXPECT_FALSE(plain.result.summary->refitMs.has_value());

    // The saved plan is refittable, and lists its weights.
    nlohmann::json const inspected = inspectJson(plan);
    EXPECT_TRUE(inspected["refittable"].get<bool>());
    std::vector<std::string> names;
    for (nlohmann::json const& weights : inspected["refittableWeights"])
    {
        names.push_back(weights["name"]);
    }
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"B", "W"})) << inspected["refittableWeights"].dump();
    EXPECT_NE(inspectText(plan).find("Refittable: yes (BuilderFlag::kREFIT), 2 weights"), std::string::npos);
}

TEST_F(Refit, WithoutRefitTheEngineIsNotRefittable)
{
    std::string const plan = (mDir / "plain.plan").string();
    ToolRun const build = runTool({"--onnx=" + model(), "--shapes=X:2x4", "--skipInference", "--saveEngine=" + plan});
    ASSERT_EQ(build.result.exitStatus, 0) << build.err;
    EXPECT_NE(build.out.find("[I] Refit: Disabled"), std::string::npos) << build.out;
    nlohmann::json const inspected = inspectJson(plan);
    EXPECT_FALSE(inspected["refittable"].get<bool>());
    EXPECT_TRUE(inspected["refittableWeights"].empty());
    EXPECT_NE(inspectText(plan).find("Refittable: no (built without BuilderFlag::kREFIT)"), std::string::npos);

    // --refit on a loaded engine that is not refittable is a failure that says so.
    ToolRun const refit = runTool(quick({"--loadEngine=" + plan, "--refit"}));
    EXPECT_EQ(refit.result.exitStatus, 1);
    EXPECT_NE(refit.err.find("--refit: the engine is not refittable (it was built without --refit, "
                             "BuilderFlag::kREFIT)"),
        std::string::npos)
        << refit.err;
}

TEST_F(Refit, ALoadedRefittableEngineListsItsWeightsAndSaysTheRefitNeedsTheNetwork)
{
    std::string const plan = (mDir / "refit.plan").string();
    ASSERT_EQ(runTool({"--onnx=" + model(), "--shapes=X:2x4", "--refit", "--skipInference", "--saveEngine=" + plan})
                  .result.exitStatus,
        0);
    ToolRun const load = runTool(quick({"--loadEngine=" + plan, "--refit", "--verbose"}));
    ASSERT_EQ(load.result.exitStatus, 0) << load.err;
    EXPECT_NE(load.out.find("[I] Refittable weights: 2 by name"), std::string::npos) << load.out;
    EXPECT_NE(load.err.find("[V] Refittable weights 'W': 12 values of FP32"), std::string::npos) << load.err;
    EXPECT_NE(load.err.find("[W] --refit: a loaded engine comes without the network"), std::string::npos) << load.err;
    EXPECT_EQ(load.err.find("--refit has no effect with --loadEngine"), std::string::npos) << load.err;
    EXPECT_EQ(load.out.find("Engine refitted in"), std::string::npos) << load.out;
}

TEST_F(Refit, ConvolutionKernelAndBiasAreRefittedAndListedWithVerbose)
{
    writeConvModel(mDir / "conv.onnx");
    std::vector<float> x(18);
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        x[i] = static_cast<float>(i) * 0.25F - 2.0F;
    }
    writeRaw(mDir / "x.bin", x);
    std::vector<std::string> const args{
        "--onnx=" + (mDir / "conv.onnx").string(), "--loadInputs=X:" + (mDir / "x.bin").string()};
    std::vector<std::string> refitArgs = args;
    refitArgs.insert(refitArgs.end(), {"--refit", "--verbose", "--exportOutput=" + (mDir / "refit.json").string()});
    std::vector<std::string> plainArgs = args;
    plainArgs.push_back("--exportOutput=" + (mDir / "plain.json").string());

    ToolRun const refitted = runTool(quick(refitArgs));
    ASSERT_EQ(refitted.result.exitStatus, 0) << refitted.err;
    EXPECT_NE(refitted.err.find("[V] Refittable layer 'conv': kKERNEL"), std::string::npos) << refitted.err;
    EXPECT_NE(refitted.err.find("[V] Refittable layer 'conv': kBIAS"), std::string::npos) << refitted.err;
    EXPECT_NE(refitted.out.find("[I] Engine refitted in "), std::string::npos) << refitted.out;
    ToolRun const plain = runTool(quick(plainArgs));
    ASSERT_EQ(plain.result.exitStatus, 0) << plain.err;
    EXPECT_EQ(fileText(mDir / "refit.json"), fileText(mDir / "plain.json"));
    // Output channel 0 at the first pixel: K[0] x0 + K[1] x9 + C[0].
    nlohmann::json const outputs = nlohmann::json::parse(fileText(mDir / "refit.json"));
    EXPECT_NEAR(outputs[0]["values"][0].get<double>(), 1.0 * x[0] + 0.5 * x[9] + 0.5, 1e-5);
}

//! y = x + c, with c a constant layer called "c" of the values given, built refittable on the host backend.
struct AddNetwork
{
    explicit AddNetwork(std::vector<float> const& c)
        : values(c)
    {
        builder.reset(nvinfer1::createInferBuilder(kiln_tool::logger()));
        network.reset(builder->createNetworkV2(0));
        nvinfer1::ITensor* x = network->addInput("x", nvinfer1::DataType::kFLOAT, nvinfer1::Dims{1, {2}});
        nvinfer1::IConstantLayer* constant = network->addConstant(
            nvinfer1::Dims{1, {2}}, nvinfer1::Weights{nvinfer1::DataType::kFLOAT, values.data(), 2});
        constant->setName("c");
        network->markOutput(
            *network->addElementWise(*x, *constant->getOutput(0), nvinfer1::ElementWiseOperation::kSUM)->getOutput(0));
    }

    std::vector<float> values;
    std::unique_ptr<nvinfer1::IBuilder> builder;
    std::unique_ptr<nvinfer1::INetworkDefinition> network;
};

TEST(RefitModule, GivesTheEngineTheValuesTheNetworkHolds)
{
    // The engine is built from c = [1, 2] and refitted from a network of the same layers with c = [10, 20]: it then
    // computes with the second network's values, so the refit gave it the network's weights.
    AddNetwork built({1.0F, 2.0F});
    std::unique_ptr<nvinfer1::IBuilderConfig> config{built.builder->createBuilderConfig()};
    config->setFlag(nvinfer1::BuilderFlag::kREFIT);
    std::unique_ptr<nvinfer1::IHostMemory> plan{built.builder->buildSerializedNetwork(*built.network, *config)};
    ASSERT_NE(plan, nullptr);
    std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(kiln_tool::logger())};
    std::unique_ptr<nvinfer1::ICudaEngine> engine{runtime->deserializeCudaEngine(plan->data(), plan->size())};
    ASSERT_NE(engine, nullptr);
    kiln_tool::RefittableWeights const weights = kiln_tool::refittableWeights(*engine);
    ASSERT_EQ(weights.layers.size(), 1U);
    EXPECT_EQ(weights.layers[0].layer, "c");
    EXPECT_STREQ(kiln_tool::roleName(weights.layers[0].role), "kCONSTANT");

    AddNetwork other({10.0F, 20.0F});
    EXPECT_GE(kiln_tool::refitWithNetworkWeights(*engine, *other.network), 0.0);
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    alignas(256) std::array<float, 64> x{0.5F, -0.5F};
    alignas(256) std::array<float, 64> y{};
    ASSERT_TRUE(context->setTensorAddress(engine->getIOTensorName(0), x.data()));
    ASSERT_TRUE(context->setTensorAddress(engine->getIOTensorName(1), y.data()));
    ASSERT_TRUE(context->enqueueV3(nullptr));
    EXPECT_FLOAT_EQ(y[0], 10.5F);
    EXPECT_FLOAT_EQ(y[1], 19.5F);

    // A network without the engine's refittable layer is refused, naming it.
    AddNetwork renamed({1.0F, 2.0F});
    renamed.network->getLayer(0)->setName("d");
    try
    {
        kiln_tool::refitWithNetworkWeights(*engine, *renamed.network);
        ADD_FAILURE() << "a network without the layer 'c' was accepted";
    }
    catch (kiln_tool::Failure const& e)
    {
        EXPECT_STREQ(e.what(), "--refit: the engine's refittable layer 'c' is not a layer of the network");
    }
}

TEST_F(Refit, SkipInferenceStillRefits)
{
    ToolRun const run = runTool({"--onnx=" + model(), "--shapes=X:2x4", "--refit", "--skipInference"});
    ASSERT_EQ(run.result.exitStatus, 0) << run.err;
    EXPECT_NE(run.out.find("[I] Engine refitted in "), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("Skipped inference"), std::string::npos) << run.out;
}

} // namespace
} // namespace kiln_tool_test
