// SPDX-License-Identifier: Apache-2.0
// --streams on the host backend: N execution contexts of one engine run at once, each on a thread of its own, each
// making --iterations queries; the summary counts the queries of all of them, and the outputs are still the model's.
#include "tool_test_support.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kiln_tool_test
{
namespace
{

class Streams : public testing::Test
{
protected:
    void SetUp() override { writeDenseModel(mModel); }

    std::string model() const { return mModel.string(); }

    ScratchDir mDir;
    fs::path mModel = mDir / "dense.onnx";
};

TEST_F(Streams, EachStreamRunsItsIterationsAndTheSummaryCountsThemAll)
{
    std::vector<float> const x{1.0F, 2.0F, 3.0F, 4.0F, -1.0F, 0.5F, 0.25F, -2.0F};
    writeRaw(mDir / "x.bin", x);
    std::string const times = (mDir / "times.json").string();
    ToolRun const run = runTool({"--onnx=" + model(), "--shapes=X:2x4", "--streams=3", "--iterations=25", "--warmUp=5",
        "--duration=0", "--loadInputs=X:" + (mDir / "x.bin").string(), "--exportOutput=" + (mDir / "out.json").string(),
        "--exportTimes=" + times});
    ASSERT_EQ(run.result.exitStatus, 0) << run.err;
    EXPECT_NE(run.out.find("[I] Streams: 3"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("[I] Starting inference on 3 streams"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("3 streams ran at once: Throughput counts the queries of all of them"), std::string::npos)
        << run.out;
    ASSERT_TRUE(run.result.summary.has_value());
    EXPECT_GE(run.result.summary->queries, 75);
    EXPECT_GT(run.result.summary->throughputQps, 0.0);
    EXPECT_NEAR(run.result.summary->throughputQps,
        static_cast<double>(run.result.summary->queries) / run.result.summary->hostWalltimeSeconds, 1e-6);

    // Every query of every stream is in the trace, in the order they started.
    std::vector<char> const timesBytes = readAll(times);
    nlohmann::json const trace = nlohmann::json::parse(std::string(timesBytes.begin(), timesBytes.end()));
    ASSERT_EQ(trace.size(), static_cast<std::size_t>(run.result.summary->queries));
    for (std::size_t i = 1; i < trace.size(); ++i)
    {
        EXPECT_LE(trace[i - 1]["startEnqMs"].get<double>(), trace[i]["startEnqMs"].get<double>()) << i;
    }

    // The outputs are the model's (the first stream's).
    std::vector<char> const outBytes = readAll(mDir / "out.json");
    nlohmann::json const outputs = nlohmann::json::parse(std::string(outBytes.begin(), outBytes.end()));
    std::vector<float> const expected = denseReference(x);
    ASSERT_EQ(outputs[0]["values"].size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
    {
        EXPECT_NEAR(outputs[0]["values"][i].get<double>(), expected[i], 1e-5) << "value " << i;
    }
}

TEST_F(Streams, DurationAppliesToEveryStream)
{
    ToolRun const run = runTool(
        {"--onnx=" + model(), "--shapes=X:2x4", "--streams=2", "--iterations=1", "--warmUp=0", "--duration=0.1"});
    ASSERT_EQ(run.result.exitStatus, 0) << run.err;
    ASSERT_TRUE(run.result.summary.has_value());
    EXPECT_GE(run.result.summary->hostWalltimeSeconds, 0.099);
    EXPECT_GT(run.result.summary->queries, 2);
}

TEST_F(Streams, OneStreamIsTheDefaultAndSaysNothingOfStreams)
{
    ToolRun const run
        = runTool({"--onnx=" + model(), "--shapes=X:2x4", "--iterations=3", "--warmUp=0", "--duration=0"});
    ASSERT_EQ(run.result.exitStatus, 0) << run.err;
    EXPECT_NE(run.out.find("[I] Streams: 1"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("[I] Starting inference\n"), std::string::npos) << run.out;
    EXPECT_EQ(run.out.find("streams ran at once"), std::string::npos) << run.out;
}

TEST_F(Streams, ProfilingAndCudaGraphFlagsWorkBesideStreams)
{
    ToolRun const run = runTool({"--onnx=" + model(), "--shapes=X:2x4", "--streams=2", "--iterations=4", "--warmUp=0",
        "--duration=0", "--dumpProfile", "--useCudaGraph"});
    ASSERT_EQ(run.result.exitStatus, 0) << run.err;
    EXPECT_NE(run.out.find("=== Profile (4 iterations ) ==="), std::string::npos) << run.out;
    EXPECT_NE(run.err.find("--useCudaGraph: a host engine has no CUDA graphs"), std::string::npos) << run.err;
}

TEST_F(Streams, ANonPositiveCountIsAUsageError)
{
    for (std::string const value : {"0", "-2"})
    {
        ToolRun const run = runTool({"--onnx=" + model(), "--streams=" + value});
        EXPECT_EQ(run.result.exitStatus, 2) << value;
        EXPECT_NE(run.err.find("--streams"), std::string::npos) << run.err;
    }
}

TEST_F(Streams, AFailureInTheStreamsEndsTheRunNamingIt)
{
    // An input shape outside the profile fails when the contexts are set up, before any stream runs.
    std::string const plan = (mDir / "dense.plan").string();
    ASSERT_EQ(
        runTool({"--onnx=" + model(), "--shapes=X:2x4", "--skipInference", "--saveEngine=" + plan}).result.exitStatus,
        0);
    ToolRun const run
        = runTool({"--loadEngine=" + plan, "--shapes=X:3x4", "--streams=2", "--warmUp=0", "--duration=0"});
    EXPECT_EQ(run.result.exitStatus, 1);
    EXPECT_NE(run.err.find("setInputShape('X', 3x4) failed"), std::string::npos) << run.err;
    EXPECT_NE(run.out.find("&&&& FAILED kiln"), std::string::npos) << run.out;
}

} // namespace
} // namespace kiln_tool_test
