// SPDX-License-Identifier: Apache-2.0
// The kiln binary as a process: exit statuses, the report on stdout and kiln's messages on stderr.
#include "tool_test_support.h"

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

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

#ifdef KILN_IDENTITY_CONV_PLUGIN
//! The example IdentityConv model built by one kiln process into a plan that carries the plugin's library
//! (--setPluginsToSerialize), then run and inspected by others that never load it themselves.
TEST(ToolProcess, APlanCarriesItsPluginLibraryToOtherProcesses)
{
    ScratchDir dir;
    std::string const folder = KILN_IDENTITY_CONV_DIR;
    std::string const plan = (dir / "identity_conv.plan").string();
    ProcessRun const build = runBinary({"--onnx=" + folder + "/identity_conv.onnx",
                                           std::string("--setPluginsToSerialize=") + KILN_IDENTITY_CONV_PLUGIN,
                                           "--shapes=X:2x3x8x8", "--saveEngine=" + plan, "--skipInference"},
        dir / "build.txt");
    ASSERT_EQ(build.status, 0) << build.err;

    std::vector<std::string> const runArgs{"--loadEngine=" + plan, "--shapes=X:2x3x8x8",
        "--loadInputs=X:" + folder + "/input_X_2x3x8x8.bin", "--exportOutput=" + (dir / "Y.json").string(),
        "--iterations=2", "--duration=0", "--warmUp=0"};
    ProcessRun const refused = runBinary(runArgs, dir / "refused.txt");
    EXPECT_EQ(refused.status, 1);
    EXPECT_NE(refused.err.find("the plan carries plugin libraries whose creators are not registered: "
                               "\"libkiln_identity_conv_plugin.so\" (plugin \"IdentityConv\" version \"1\""),
        std::string::npos)
        << refused.err;
    EXPECT_NE(refused.err.find("IRuntime::setEngineHostCodeAllowed(true)"), std::string::npos) << refused.err;

    std::vector<std::string> allowed = runArgs;
    allowed.push_back("--allowEngineHostCode");
    ProcessRun const run = runBinary(allowed, dir / "run.txt");
    ASSERT_EQ(run.status, 0) << run.err;
    std::ifstream produced(dir / "Y.json");
    std::ifstream expected(folder + "/expected_Y_2x3x8x8.json");
    std::string const y{std::istreambuf_iterator<char>(produced), std::istreambuf_iterator<char>()};
    std::string const reference{std::istreambuf_iterator<char>(expected), std::istreambuf_iterator<char>()};
    EXPECT_FALSE(reference.empty());
    EXPECT_EQ(y, reference);

    ProcessRun const inspect = runBinary({"inspect", plan, "--allowEngineHostCode"}, dir / "inspect.txt");
    ASSERT_EQ(inspect.status, 0) << inspect.err;
    EXPECT_NE(inspect.out.find("its library travels in the plan: libkiln_identity_conv_plugin.so"), std::string::npos)
        << inspect.out;
    EXPECT_NE(
        inspect.out.find("Plugin libraries in the plan: 1\n  libkiln_identity_conv_plugin.so: "), std::string::npos)
        << inspect.out;
    EXPECT_NE(inspect.out.find("loaded (--allowEngineHostCode)"), std::string::npos) << inspect.out;
    EXPECT_NE(inspect.out.find("IdentityConv version 1 namespace \"\" (IPluginV3), creator used: the library's"),
        std::string::npos)
        << inspect.out;
    ProcessRun const inspectRefused = runBinary({"inspect", plan}, dir / "inspect_refused.txt");
    EXPECT_EQ(inspectRefused.status, 1);
    EXPECT_NE(inspectRefused.err.find("libkiln_identity_conv_plugin.so"), std::string::npos) << inspectRefused.err;
    EXPECT_NE(inspectRefused.err.find("--allowEngineHostCode for libraries the plan carries"), std::string::npos)
        << inspectRefused.err;
}
#endif

TEST(ToolProcess, ABuildThatCannotCarryALibraryFails)
{
    ScratchDir dir;
    writeDenseModel(dir / "dense.onnx");
    ProcessRun const run = runBinary({"--onnx=" + (dir / "dense.onnx").string(), "--shapes=X:2x4",
                                         "--setPluginsToSerialize=" + (dir / "libmissing.so").string()},
        dir / "stderr.txt");
    EXPECT_EQ(run.status, 1);
    EXPECT_NE(run.err.find("--setPluginsToSerialize: the plugin library "), std::string::npos) << run.err;
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
