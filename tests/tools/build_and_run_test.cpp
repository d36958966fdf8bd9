// SPDX-License-Identifier: Apache-2.0
// The build-and-run mode in-process (kiln_tool::buildAndRun), on the host backend: building and running a model,
// saving and loading engines, shapes, precisions, timing, inputs and outputs, plugins and the failures that name
// their cause.
#include "gpu.h"
#include "tool_test_support.h"

#ifdef KILN_TOOL_TEST_JSON
#include <nlohmann/json.hpp>
#endif

#include <cmath>
#include <string>
#include <vector>

namespace kiln_tool_test
{
namespace
{

//! The flags every run here takes: no warm-up and no minimum duration, so that a run takes milliseconds.
std::vector<std::string> quick(std::vector<std::string> args)
{
    args.push_back("--warmUp=0");
    args.push_back("--duration=0");
    return args;
}

class BuildAndRun : public testing::Test
{
protected:
    void SetUp() override { writeDenseModel(mModel); }

    std::string model() const { return mModel.string(); }

    ScratchDir mDir;
    fs::path mModel = mDir / "dense.onnx";
};

TEST_F(BuildAndRun, OnnxBuildsRunsAndPrintsEverySummaryLabel)
{
    ToolRun const run = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4"}));
    ASSERT_EQ(run.result.exitStatus, 0) << run.err;
    EXPECT_TRUE(run.result.built);
    ASSERT_TRUE(run.result.summary.has_value());
    for (std::string const& label : kSummaryLabels)
    {
        EXPECT_TRUE(hasLine(run.out, label)) << "no line starts with '[I] " << label << "' in\n" << run.out;
    }
    EXPECT_NE(run.out.find("Engine built in "), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("&&&& PASSED kiln"), std::string::npos) << run.out;
    // The report is on out; nothing of it on err.
    EXPECT_EQ(run.err.find("Performance summary"), std::string::npos) << run.err;
}

TEST_F(BuildAndRun, SaveEngineThenLoadEngineDoesNotBuild)
{
    std::string const plan = (mDir / "dense.plan").string();
    ToolRun const save = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4", "--saveEngine=" + plan}));
    ASSERT_EQ(save.result.exitStatus, 0) << save.err;
    ASSERT_TRUE(fs::exists(plan));
    EXPECT_GT(fs::file_size(plan), 0U);
    EXPECT_NE(save.out.find("Engine saved to " + plan), std::string::npos) << save.out;

    ToolRun const load = runTool(quick({"--loadEngine=" + plan, "--shapes=X:2x4"}));
    ASSERT_EQ(load.result.exitStatus, 0) << load.err;
    EXPECT_FALSE(load.result.built);
    EXPECT_EQ(load.out.find("Engine built in"), std::string::npos) << load.out;
    EXPECT_NE(load.out.find("Engine deserialized in"), std::string::npos) << load.out;
    EXPECT_TRUE(load.result.summary.has_value());
    EXPECT_TRUE(hasLine(load.out, "=== Performance summary ===")) << load.out;
}

TEST_F(BuildAndRun, LoadEngineOfAMissingFileFails)
{
    ToolRun const run = runTool(quick({"--loadEngine=" + (mDir / "none.plan").string()}));
    EXPECT_EQ(run.result.exitStatus, 1);
    EXPECT_NE(run.err.find("--loadEngine: cannot open " + (mDir / "none.plan").string()), std::string::npos) << run.err;
    EXPECT_NE(run.out.find("&&&& FAILED kiln"), std::string::npos) << run.out;
}

TEST_F(BuildAndRun, SkipInferencePrintsNoPerformanceSummary)
{
    std::string const plan = (mDir / "dense.plan").string();
    ToolRun const build = runTool({"--onnx=" + model(), "--shapes=X:2x4", "--saveEngine=" + plan, "--skipInference"});
    ASSERT_EQ(build.result.exitStatus, 0) << build.err;
    EXPECT_TRUE(fs::exists(plan));
    EXPECT_FALSE(build.result.summary.has_value());
    EXPECT_EQ(build.out.find("Performance summary"), std::string::npos) << build.out;
    EXPECT_EQ(build.out.find("Starting inference"), std::string::npos) << build.out;

    ToolRun const load = runTool({"--loadEngine=" + plan, "--skipInference"});
    ASSERT_EQ(load.result.exitStatus, 0) << load.err;
    EXPECT_NE(load.out.find("Engine deserialized in"), std::string::npos) << load.out;
    EXPECT_EQ(load.out.find("Performance summary"), std::string::npos) << load.out;
}

TEST_F(BuildAndRun, MinOptMaxShapesBuildAProfileAndShapesPicksTheRunShape)
{
    std::string const plan = (mDir / "dense.plan").string();
    ToolRun const build = runTool(quick({"--onnx=" + model(), "--minShapes=X:1x4", "--optShapes=X:3x4",
        "--maxShapes=X:8x4", "--shapes=X:5x4", "--saveEngine=" + plan}));
    ASSERT_EQ(build.result.exitStatus, 0) << build.err;
    EXPECT_NE(build.out.find("Input X: 5x4"), std::string::npos) << build.out;
    EXPECT_NE(build.out.find("Output Y: 5x3"), std::string::npos) << build.out;

    // A loaded engine runs at --shapes, else at the profile's opt shape; beyond the profile's max it fails.
    ToolRun const atOpt = runTool(quick({"--loadEngine=" + plan}));
    ASSERT_EQ(atOpt.result.exitStatus, 0) << atOpt.err;
    EXPECT_NE(atOpt.out.find("Input X: 3x4"), std::string::npos) << atOpt.out;
    ToolRun const at8 = runTool(quick({"--loadEngine=" + plan, "--shapes=X:8x4"}));
    ASSERT_EQ(at8.result.exitStatus, 0) << at8.err;
    EXPECT_NE(at8.out.find("Input X: 8x4"), std::string::npos) << at8.out;
    ToolRun const beyond = runTool(quick({"--loadEngine=" + plan, "--shapes=X:9x4"}));
    EXPECT_EQ(beyond.result.exitStatus, 1);
    EXPECT_NE(beyond.err.find("setInputShape('X', 9x4) failed"), std::string::npos) << beyond.err;
}

TEST_F(BuildAndRun, QuotedShapeNamesAreAccepted)
{
    ToolRun const run = runTool(quick({"--onnx=" + model(), "--shapes='X':2x4"}));
    EXPECT_EQ(run.result.exitStatus, 0) << run.err;
}

TEST_F(BuildAndRun, DynamicInputWithoutShapesIsRefusedNamingIt)
{
    ToolRun const run = runTool(quick({"--onnx=" + model()}));
    EXPECT_EQ(run.result.exitStatus, 1);
    EXPECT_NE(run.err.find("the input 'X' has a dynamic shape (-1x4) and no shape was given for it"), std::string::npos)
        << run.err;
}

TEST_F(BuildAndRun, ShapesOfATensorThatIsNotAnInputAreRefused)
{
    ToolRun const run = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4,Z:1x1"}));
    EXPECT_EQ(run.result.exitStatus, 1);
    EXPECT_NE(run.err.find("--shapes names 'Z', which is not an input of the model (inputs: X)"), std::string::npos)
        << run.err;
}

TEST_F(BuildAndRun, Fp16ChangesTheEngine)
{
    std::string const fp32 = (mDir / "fp32.plan").string();
    std::string const fp16 = (mDir / "fp16.plan").string();
    ToolRun const plain = runTool({"--onnx=" + model(), "--shapes=X:2x4", "--skipInference", "--saveEngine=" + fp32});
    ToolRun const half
        = runTool({"--onnx=" + model(), "--shapes=X:2x4", "--skipInference", "--fp16", "--saveEngine=" + fp16});
    ASSERT_EQ(plain.result.exitStatus, 0) << plain.err;
    ASSERT_EQ(half.result.exitStatus, 0) << half.err;
    EXPECT_NE(readAll(fp32), readAll(fp16));
    EXPECT_NE(half.out.find("Precision: FP32+FP16"), std::string::npos) << half.out;
    // kiln says which layers it moved to half precision.
    EXPECT_NE(half.err.find("compute in reduced precision"), std::string::npos) << half.err;
    EXPECT_EQ(plain.err.find("compute in reduced precision"), std::string::npos) << plain.err;
}

TEST_F(BuildAndRun, IterationsRunsAtLeastThatManyQueries)
{
    ToolRun const run = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4", "--iterations=37", "--avgRuns=10"}));
    ASSERT_EQ(run.result.exitStatus, 0) << run.err;
    ASSERT_TRUE(run.result.summary.has_value());
    EXPECT_GE(run.result.summary->queries, 37);
    EXPECT_NE(run.out.find("Timing trace has " + std::to_string(run.result.summary->queries) + " queries over"),
        std::string::npos)
        << run.out;
    // Three full groups of ten.
    std::size_t groups = 0;
    for (std::size_t at = run.out.find("Average on 10 runs - GPU latency: "); at != std::string::npos;
         at = run.out.find("Average on 10 runs - GPU latency: ", at + 1))
    {
        ++groups;
    }
    EXPECT_EQ(groups, static_cast<std::size_t>(run.result.summary->queries / 10)) << run.out;
}

TEST_F(BuildAndRun, DurationKeepsRunningPastTheIterations)
{
    ToolRun const run
        = runTool({"--onnx=" + model(), "--shapes=X:2x4", "--iterations=1", "--warmUp=0", "--duration=0.2"});
    ASSERT_EQ(run.result.exitStatus, 0) << run.err;
    ASSERT_TRUE(run.result.summary.has_value());
    EXPECT_GE(run.result.summary->hostWalltimeSeconds, 0.19);
    EXPECT_GT(run.result.summary->queries, 1);
}

TEST_F(BuildAndRun, ExportOutputWritesTheModelsValuesForLoadedInputs)
{
    std::vector<float> const x{1.0F, 2.0F, 3.0F, 4.0F, -1.0F, 0.5F, 0.25F, -2.0F, 0.0F, 0.0F, 1.0F, 0.0F};
    writeRaw(mDir / "x.bin", x);
    std::string const json = (mDir / "out.json").string();
    ToolRun const run = runTool(quick({"--onnx=" + model(), "--shapes=X:3x4",
        "--loadInputs=X:" + (mDir / "x.bin").string(), "--exportOutput=" + json}));
    ASSERT_EQ(run.result.exitStatus, 0) << run.err;
    ASSERT_TRUE(fs::exists(json));
    std::vector<char> const bytes = readAll(json);
    std::string const text(bytes.begin(), bytes.end());
    EXPECT_EQ(text.rfind("[\n  { \"name\" : \"Y\"\n  , \"dimensions\" : \"3x3\"\n  , \"values\" : [ ", 0), 0U) << text;
#ifdef KILN_TOOL_TEST_JSON
    nlohmann::json const outputs = nlohmann::json::parse(text);
    ASSERT_TRUE(outputs.is_array());
    ASSERT_EQ(outputs.size(), 1U);
    EXPECT_EQ(outputs[0]["name"], "Y");
    EXPECT_EQ(outputs[0]["dimensions"], "3x3");
    std::vector<float> const expected = denseReference(x);
    ASSERT_EQ(outputs[0]["values"].size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
    {
        EXPECT_NEAR(outputs[0]["values"][i].get<double>(), expected[i], 1e-5) << "value " << i;
    }
#else
    GTEST_SKIP() << "nlohmann/json is not installed: the JSON's values are not checked";
#endif
}

TEST_F(BuildAndRun, LoadInputsOfTheWrongSizeIsRefused)
{
    writeRaw(mDir / "short.bin", std::vector<float>(7, 1.0F));
    std::string const file = (mDir / "short.bin").string();
    ToolRun const run = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4", "--loadInputs=X:" + file}));
    EXPECT_EQ(run.result.exitStatus, 1);
    EXPECT_NE(run.err.find("--loadInputs: " + file + " holds 28 bytes, but the input 'X' (FP32, 2x4) takes 32"),
        std::string::npos)
        << run.err;
}

TEST_F(BuildAndRun, LoadInputsOfATensorThatIsNotAnInputIsRefused)
{
    writeRaw(mDir / "x.bin", std::vector<float>(8, 1.0F));
    ToolRun const run
        = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4", "--loadInputs=Q:" + (mDir / "x.bin").string()}));
    EXPECT_EQ(run.result.exitStatus, 1);
    EXPECT_NE(
        run.err.find("--loadInputs names 'Q', which is not an input of the engine (inputs: X)"), std::string::npos)
        << run.err;
}

TEST_F(BuildAndRun, BackendCudaWithoutAUsableGpuFailsClearly)
{
    ToolRun const run = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4", "--backend=cuda"}));
    if (run.result.exitStatus == 0)
    {
        GTEST_SKIP() << "a GPU is usable here: --backend=cuda ran";
    }
    EXPECT_EQ(run.result.exitStatus, 1);
    EXPECT_NE(run.err.find("--backend=cuda: "), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("--backend=host runs on kiln's host backend"), std::string::npos) << run.err;
    EXPECT_FALSE(run.result.built);
}

TEST_F(BuildAndRun, BackendHostIsEchoed)
{
    ToolRun const run = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4", "--backend=host"}));
    ASSERT_EQ(run.result.exitStatus, 0) << run.err;
    EXPECT_NE(run.out.find("[I] Backend: host (--backend)"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("Host engine: \"GPU Compute Time\" is the host's time"), std::string::npos) << run.out;
}

TEST_F(BuildAndRun, UseCudaGraphOnAHostEngineRunsPlainlyWithANote)
{
    ToolRun const run = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4", "--useCudaGraph"}));
    ASSERT_EQ(run.result.exitStatus, 0) << run.err;
    EXPECT_NE(run.err.find("[W] --useCudaGraph: a host engine has no CUDA graphs; running enqueueV3 plainly"),
        std::string::npos)
        << run.err;
}

TEST_F(BuildAndRun, StaticPluginsOfAMissingFileFailsNamingIt)
{
    std::string const missing = (mDir / "libnothing.so").string();
    ToolRun const run = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4", "--staticPlugins=" + missing}));
    EXPECT_EQ(run.result.exitStatus, 1);
    EXPECT_NE(run.err.find("--staticPlugins: the plugin library " + missing + " does not exist"), std::string::npos)
        << run.err;
}

//! The plugin model run on x = [1, -2, 3.5, 0.25] with extra flags; the exported output's text.
class PluginModel : public BuildAndRun
{
protected:
    ToolRun run(std::string const& extra)
    {
        writePluginModel(mDir / "plugin.onnx");
        writeRaw(mDir / "x.bin", std::vector<float>{1.0F, -2.0F, 3.5F, 0.25F});
        std::vector<std::string> args{"--onnx=" + (mDir / "plugin.onnx").string(), "--shapes=X:1x4",
            "--loadInputs=X:" + (mDir / "x.bin").string(), "--exportOutput=" + (mDir / "out.json").string()};
        if (!extra.empty())
        {
            args.push_back(extra);
        }
        return runTool(quick(args));
    }

    std::string exported() const
    {
        std::vector<char> const bytes = readAll(mDir / "out.json");
        return std::string(bytes.begin(), bytes.end());
    }
};

TEST_F(PluginModel, FailsToParseWithoutItsLibrary)
{
    ToolRun const without = run("");
    EXPECT_EQ(without.result.exitStatus, 1);
    EXPECT_NE(without.err.find("[E] ONNX parser: node 0 'double' (KilnToolDouble): "), std::string::npos)
        << without.err;
}

TEST_F(PluginModel, RunsWithStaticPlugins)
{
    ToolRun const with = run("--staticPlugins=" + std::string(KILN_TOOL_TEST_PLUGINS));
    ASSERT_EQ(with.result.exitStatus, 0) << with.err;
    EXPECT_NE(exported().find("\"values\" : [ 2, -4, 7, 0.5 ]"), std::string::npos) << exported();
}

TEST_F(PluginModel, RunsWithDynamicPlugins)
{
    ToolRun const with = run("--dynamicPlugins=" + std::string(KILN_TOOL_TEST_PLUGINS));
    ASSERT_EQ(with.result.exitStatus, 0) << with.err;
    EXPECT_NE(exported().find("\"values\" : [ 2, -4, 7, 0.5 ]"), std::string::npos) << exported();
}

TEST_F(BuildAndRun, DynamicPluginsThatAreNotAPluginLibraryFailNamingIt)
{
    // A library without getCreators: loadLibrary refuses it, and the tool names the file.
    writeRaw(mDir / "libfake.so", std::vector<char>{'n', 'o', 't', ' ', 'E', 'L', 'F'});
    std::string const fake = (mDir / "libfake.so").string();
    ToolRun const run = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4", "--dynamicPlugins=" + fake}));
    EXPECT_EQ(run.result.exitStatus, 1);
    EXPECT_NE(run.err.find("--dynamicPlugins: IPluginRegistry::loadLibrary could not load the plugin library " + fake),
        std::string::npos)
        << run.err;
}

TEST_F(BuildAndRun, TimingCacheFileIsWrittenAndReadBack)
{
    std::string const cache = (mDir / "timing.cache").string();
    ToolRun const first
        = runTool({"--onnx=" + model(), "--shapes=X:2x4", "--skipInference", "--timingCacheFile=" + cache});
    ASSERT_EQ(first.result.exitStatus, 0) << first.err;
    EXPECT_NE(first.out.find("No timing cache in " + cache + " yet"), std::string::npos) << first.out;
    ASSERT_TRUE(fs::exists(cache));
    ToolRun const second
        = runTool({"--onnx=" + model(), "--shapes=X:2x4", "--skipInference", "--timingCacheFile=" + cache});
    ASSERT_EQ(second.result.exitStatus, 0) << second.err;
    EXPECT_NE(second.out.find("bytes of timing cache from " + cache), std::string::npos) << second.out;
}

TEST_F(BuildAndRun, BuildOptionsAreAcceptedAndEchoed)
{
    ToolRun const run = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4", "--memPoolSize=workspace:64M",
        "--builderOptimizationLevel=2", "--noTF32", "--bf16"}));
    ASSERT_EQ(run.result.exitStatus, 0) << run.err;
    EXPECT_NE(run.out.find("[I] Memory Pools: workspace: 64 MiB"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("[I] Optimization Level: 2"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("[I] TF32: Disabled"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("[I] Precision: FP32+BF16"), std::string::npos) << run.out;
    // They reach the builder, which says what it does not apply yet.
    std::string const all = run.out + run.err;
    EXPECT_NE(all.find("kWORKSPACE = 67108864 bytes is recorded but not applied"), std::string::npos) << all;
}

TEST_F(BuildAndRun, DeviceOnTheHostBackendSaysItHasNoEffect)
{
    // The tests run with KILN_BACKEND=host: no device is selected, and the tool says so rather than ignoring the flag.
    ToolRun const run = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4", "--device=1"}));
    ASSERT_EQ(run.result.exitStatus, 0) << run.err;
    std::string const all = run.out + run.err;
    EXPECT_NE(all.find("--device has no effect"), std::string::npos) << all;
    ToolRun const plain = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4"}));
    EXPECT_EQ((plain.out + plain.err).find("--device"), std::string::npos) << plain.out << plain.err;
}

TEST_F(BuildAndRun, NoTF32ReachesTheBuilder)
{
    // kiln's builder says that kTF32 (set by default) changes nothing in its kernels; cleared, it has nothing to say.
    char const* const note = "kTF32 is set (the default)";
    ToolRun const with = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4"}));
    ASSERT_EQ(with.result.exitStatus, 0) << with.err;
    EXPECT_NE(with.err.find(note), std::string::npos) << with.err;
    ToolRun const without = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4", "--noTF32"}));
    ASSERT_EQ(without.result.exitStatus, 0) << without.err;
    EXPECT_EQ(without.err.find(note), std::string::npos) << without.err;
}

TEST_F(BuildAndRun, WarmUpRunsQueriesBeforeTimingThem)
{
    ToolRun const none = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4"}));
    ASSERT_EQ(none.result.exitStatus, 0) << none.err;
    EXPECT_NE(none.out.find("[I] Warmup completed 0 queries"), std::string::npos) << none.out;
    std::vector<std::string> args{"--onnx=" + model(), "--shapes=X:2x4", "--duration=0", "--warmUp=30"};
    ToolRun const some = runTool(args);
    ASSERT_EQ(some.result.exitStatus, 0) << some.err;
    std::size_t const at = some.out.find("[I] Warmup completed ");
    ASSERT_NE(at, std::string::npos) << some.out;
    EXPECT_GT(std::stoll(some.out.substr(at + 21)), 0) << some.out;
}

TEST_F(BuildAndRun, QuantizedPrecisionsReachTheBuilderWhichSaysWhatItDoesNotDo)
{
    // kiln has no implicit quantization: --int8 and --fp8 set the builder flags, and the builder says they choose no
    // quantized kernels (Q/DQ layers do); --best sets every precision.
    for (auto const& [flag, echoed, warned] :
        {std::tuple{"--int8", "FP32+INT8", "kINT8 is ignored"}, std::tuple{"--fp8", "FP32+FP8", "kFP8 is ignored"},
            std::tuple{"--best", "FP32+FP16+BF16+INT8+FP8", "kINT8 is ignored"}})
    {
        ToolRun const run = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4", flag}));
        ASSERT_EQ(run.result.exitStatus, 0) << flag << ": " << run.err;
        EXPECT_NE(run.out.find(std::string("[I] Precision: ") + echoed), std::string::npos) << flag << ": " << run.out;
        std::string const all = run.out + run.err;
        EXPECT_NE(all.find(warned), std::string::npos) << flag << ": " << all;
    }
    ToolRun const plain = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4"}));
    EXPECT_EQ((plain.out + plain.err).find("is ignored"), std::string::npos) << plain.out << plain.err;
}

TEST_F(BuildAndRun, NoDataTransfersLeavesTheCopiesOutOfEachQuery)
{
    if (std::string const why = kiln_tool::gpu::unusableReason(); !why.empty())
    {
        GTEST_SKIP() << "a CUDA engine is needed: " << why;
    }
    ToolRun const with = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4", "--backend=cuda"}));
    ASSERT_EQ(with.result.exitStatus, 0) << with.err;
    EXPECT_EQ(with.out.find("--noDataTransfers: H2D and D2H are zero"), std::string::npos) << with.out;
    EXPECT_EQ(with.out.find("[I] H2D Latency: min = 0 ms"), std::string::npos) << with.out;
    ToolRun const without
        = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4", "--backend=cuda", "--noDataTransfers"}));
    ASSERT_EQ(without.result.exitStatus, 0) << without.err;
    EXPECT_NE(without.out.find("[I] Data transfers: Disabled"), std::string::npos) << without.out;
    EXPECT_NE(without.out.find("--noDataTransfers: H2D and D2H are zero"), std::string::npos) << without.out;
    EXPECT_NE(without.out.find("[I] H2D Latency: min = 0 ms, max = 0 ms"), std::string::npos) << without.out;
}

TEST_F(BuildAndRun, ReportingFlagsWriteTimesProfileAndLayerInformation)
{
    std::string const times = (mDir / "times.json").string();
    std::string const profile = (mDir / "profile.json").string();
    std::string const layers = (mDir / "layers.json").string();
    auto const readText = [](std::string const& path) {
        std::vector<char> const bytes = readAll(path);
        return std::string(bytes.begin(), bytes.end());
    };
    ToolRun const run = runTool(
        quick({"--onnx=" + model(), "--shapes=X:2x4", "--iterations=7", "--exportTimes=" + times, "--dumpProfile",
            "--exportProfile=" + profile, "--separateProfileRun", "--dumpLayerInfo", "--exportLayerInfo=" + layers}));
    ASSERT_EQ(run.result.exitStatus, 0) << run.err;
    ASSERT_TRUE(run.result.summary.has_value());

    // Each timed query, with trtexec's keys; the latency is the sum of the phases.
    nlohmann::json const trace = nlohmann::json::parse(readText(times));
    ASSERT_TRUE(trace.is_array());
    EXPECT_GE(trace.size(), 7U);
    for (nlohmann::json const& query : trace)
    {
        for (char const* key : {"startEnqMs", "endEnqMs", "startH2dMs", "endH2dMs", "startComputeMs", "endComputeMs",
                 "startD2hMs", "endD2hMs", "h2dMs", "computeMs", "d2hMs", "latencyMs"})
        {
            ASSERT_TRUE(query.contains(key)) << key << ": " << query.dump();
        }
        EXPECT_NEAR(query["latencyMs"].get<double>(),
            query["h2dMs"].get<double>() + query["computeMs"].get<double>() + query["d2hMs"].get<double>(), 1e-9);
        EXPECT_LE(query["startComputeMs"].get<double>(), query["endComputeMs"].get<double>());
    }

    // The profile: a count, then each layer the engine reported, whose shares make 100%.
    nlohmann::json const layerTimes = nlohmann::json::parse(readText(profile));
    ASSERT_TRUE(layerTimes.is_array());
    ASSERT_GE(layerTimes.size(), 2U);
    EXPECT_EQ(layerTimes[0]["count"], 7);
    double percent = 0.0;
    for (std::size_t i = 1; i < layerTimes.size(); ++i)
    {
        EXPECT_FALSE(layerTimes[i]["name"].get<std::string>().empty());
        EXPECT_GE(layerTimes[i]["averageMs"].get<double>(), 0.0);
        percent += layerTimes[i]["percentage"].get<double>();
    }
    EXPECT_NEAR(percent, 100.0, 1e-3);
    EXPECT_NE(run.out.find("[I] === Profile (7 iterations ) ==="), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("   Total\n"), std::string::npos) << run.out;

    // The inspector's report: one line per layer printed, the engine as JSON.
    nlohmann::json const info = nlohmann::json::parse(readText(layers));
    ASSERT_TRUE(info.contains("Layers")) << info.dump();
    EXPECT_EQ(info["Layers"].size(), layerTimes.size() - 1) << info.dump();
    EXPECT_NE(run.out.find("[I] Layer Information:"), std::string::npos) << run.out;
}

TEST_F(BuildAndRun, ReportsThatNeedInferenceSayTheyHaveNoEffectWithoutIt)
{
    std::string const layers = (mDir / "layers.json").string();
    ToolRun const run = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4", "--skipInference", "--dumpProfile",
        "--exportTimes=" + (mDir / "t.json").string(), "--exportLayerInfo=" + layers}));
    ASSERT_EQ(run.result.exitStatus, 0) << run.err;
    EXPECT_NE(run.err.find("--dumpProfile has no effect with --skipInference"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("--exportTimes has no effect with --skipInference"), std::string::npos) << run.err;
    EXPECT_FALSE(fs::exists(mDir / "t.json"));
    EXPECT_TRUE(fs::exists(layers)) << "the layer report needs no inference";

    ToolRun const alone = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4", "--separateProfileRun"}));
    ASSERT_EQ(alone.result.exitStatus, 0) << alone.err;
    EXPECT_NE(alone.err.find("--separateProfileRun has no effect without --dumpProfile or --exportProfile"),
        std::string::npos)
        << alone.err;
}

TEST_F(BuildAndRun, NoBuilderCacheBuildsWithoutATimingCache)
{
    std::string const cache = (mDir / "cache.bin").string();
    ToolRun const run = runTool(
        {"--onnx=" + model(), "--shapes=X:2x4", "--skipInference", "--noBuilderCache", "--timingCacheFile=" + cache});
    ASSERT_EQ(run.result.exitStatus, 0) << run.err;
    EXPECT_NE(run.out.find("[I] Timing Cache: Disabled (--noBuilderCache)"), std::string::npos) << run.out;
    EXPECT_NE(run.err.find("--timingCacheFile has no effect with --noBuilderCache"), std::string::npos) << run.err;
    EXPECT_FALSE(fs::exists(cache)) << "no timing cache was used, so none is saved";
    ToolRun const with
        = runTool({"--onnx=" + model(), "--shapes=X:2x4", "--skipInference", "--timingCacheFile=" + cache});
    ASSERT_EQ(with.result.exitStatus, 0) << with.err;
    EXPECT_NE(with.out.find("[I] Timing Cache: Enabled"), std::string::npos) << with.out;
    EXPECT_TRUE(fs::exists(cache));
}

TEST_F(BuildAndRun, StronglyTypedBuildsAStronglyTypedNetwork)
{
    ToolRun const run = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4", "--stronglyTyped"}));
    ASSERT_EQ(run.result.exitStatus, 0) << run.err;
    EXPECT_NE(run.out.find("[I] Precision: Strongly typed"), std::string::npos) << run.out;
}

TEST_F(BuildAndRun, ParserErrorsNameTheNodeAndFail)
{
    writeBrokenModel(mDir / "broken.onnx");
    ToolRun const run = runTool(quick({"--onnx=" + (mDir / "broken.onnx").string()}));
    EXPECT_EQ(run.result.exitStatus, 1);
    EXPECT_NE(run.err.find("[E] ONNX parser: node 1 'mystery_node' (NoSuchOperator): "), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("failed to parse the ONNX model"), std::string::npos) << run.err;
}

TEST_F(BuildAndRun, MissingModelFileFailsNamingIt)
{
    std::string const missing = (mDir / "missing.onnx").string();
    ToolRun const run = runTool(quick({"--onnx=" + missing}));
    EXPECT_EQ(run.result.exitStatus, 1);
    EXPECT_NE(run.err.find("--onnx: the model " + missing + " does not exist"), std::string::npos) << run.err;
}

TEST_F(BuildAndRun, InferenceFlagsWithSkipInferenceAreReportedAsUnused)
{
    ToolRun const run = runTool({"--onnx=" + model(), "--shapes=X:2x4", "--skipInference", "--iterations=5",
        "--exportOutput=" + (mDir / "out.json").string()});
    ASSERT_EQ(run.result.exitStatus, 0) << run.err;
    EXPECT_NE(run.err.find("[W] --iterations has no effect with --skipInference"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("[W] --exportOutput has no effect with --skipInference"), std::string::npos) << run.err;
    EXPECT_FALSE(fs::exists(mDir / "out.json"));
}

TEST_F(BuildAndRun, BuildFlagsWithLoadEngineAreReportedAsUnused)
{
    std::string const plan = (mDir / "dense.plan").string();
    ASSERT_EQ(
        runTool({"--onnx=" + model(), "--shapes=X:2x4", "--skipInference", "--saveEngine=" + plan}).result.exitStatus,
        0);
    ToolRun const run = runTool(quick({"--loadEngine=" + plan, "--fp16"}));
    ASSERT_EQ(run.result.exitStatus, 0) << run.err;
    EXPECT_NE(run.err.find("[W] --fp16 has no effect with --loadEngine"), std::string::npos) << run.err;
}

} // namespace
} // namespace kiln_tool_test
