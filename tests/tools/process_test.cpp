// SPDX-License-Identifier: Apache-2.0
// The kiln binary as a process: exit statuses, the report on stdout and kiln's messages on stderr.
#include "tool_test_support.h"

#include <string>

namespace kiln_tool_test
{
namespace
{

TEST(ToolProcess, RunPrintsTheSummaryOnStdoutAndExitsZero)
{
    ScratchDir dir;
    writeDenseModel(dir / "dense.onnx");
    ProcessRun const run = runBinary(
        {"--onnx=" + (dir / "dense.onnx").string(), "--shapes=X:2x4", "--warmUp=0", "--duration=0", "--iterations=5"},
        dir / "stderr.txt");
    ASSERT_EQ(run.status, 0) << run.err;
    for (std::string const& label : kSummaryLabels)
    {
        EXPECT_TRUE(hasLine(run.out, label)) << label << " is not on stdout:\n" << run.out;
    }
    EXPECT_EQ(run.err.find("Performance summary"), std::string::npos) << run.err;
}

TEST(ToolProcess, KilnsMessagesGoToStderrWithSeverityTags)
{
    ScratchDir dir;
    writeDenseModel(dir / "dense.onnx");
    ProcessRun const run
        = runBinary({"--onnx=" + (dir / "dense.onnx").string(), "--shapes=X:2x4", "--skipInference", "--verbose"},
            dir / "stderr.txt");
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_NE(run.err.find("[V] "), std::string::npos) << run.err;
    EXPECT_EQ(run.out.find("[V] "), std::string::npos) << run.out;
}

TEST(ToolProcess, UnknownFlagExitsTwo)
{
    ScratchDir dir;
    ProcessRun const run = runBinary({"--onnx=m.onnx", "--noSuchFlag=3"}, dir / "stderr.txt");
    EXPECT_EQ(run.status, 2);
    EXPECT_NE(run.err.find("--noSuchFlag"), std::string::npos) << run.err;
}

TEST(ToolProcess, RefusedFlagExitsTwoNamingIt)
{
    ScratchDir dir;
    ProcessRun const run = runBinary({"--onnx=m.onnx", "--setPluginsToSerialize=libx.so"}, dir / "stderr.txt");
    EXPECT_EQ(run.status, 2);
    EXPECT_NE(
        run.err.find("--setPluginsToSerialize is not supported by kiln's command-line tool yet"), std::string::npos)
        << run.err;
}

TEST(ToolProcess, FailureExitsOne)
{
    ScratchDir dir;
    ProcessRun const run = runBinary({"--onnx=" + (dir / "missing.onnx").string()}, dir / "stderr.txt");
    EXPECT_EQ(run.status, 1);
    EXPECT_NE(run.err.find("[E] --onnx: the model "), std::string::npos) << run.err;
}

TEST(ToolProcess, HelpExitsZero)
{
    ScratchDir dir;
    ProcessRun const run = runBinary({"--help"}, dir / "stderr.txt");
    EXPECT_EQ(run.status, 0);
    EXPECT_NE(run.out.find("--onnx"), std::string::npos) << run.out;
}

} // namespace
} // namespace kiln_tool_test
