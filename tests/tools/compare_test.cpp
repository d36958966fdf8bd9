// SPDX-License-Identifier: Apache-2.0
// `kiln compare` (kiln_tool::runCompare and the binary): the identity_conv example against its stored output, a
// deliberately wrong plugin caught, tolerances, missing outputs and shapes that differ, runners skipped with their
// reasons, ONNX Runtime where it imports, the cuda runner where a GPU is usable, usage errors, and the help against
// docs/cli.md. Tests that need ONNX Runtime or a GPU skip, saying why, where they are missing.
#include "compare.h"
#include "gpu.h"
#include "tool_test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace kiln_tool_test
{
namespace
{

using nlohmann::json;

struct CompareRun
{
    int status{-1};
    std::string out;
    std::string err;
};

CompareRun compare(std::vector<std::string> const& args)
{
    std::ostringstream out;
    std::ostringstream err;
    CompareRun run;
    run.status = kiln_tool::runCompare(args, out, err).exitStatus;
    run.out = out.str();
    run.err = err.str();
    return run;
}

bool contains(std::string const& text, std::string const& part)
{
    return text.find(part) != std::string::npos;
}

//! The Python interpreter the onnxruntime runner uses by default.
std::string python()
{
    char const* given = std::getenv("KILN_PYTHON");
    return given != nullptr && *given != '\0' ? given : "python3";
}

//! Empty when python() imports onnxruntime and numpy; else why not.
std::string onnxRuntimeMissing()
{
    std::string const command = shellQuoted(python()) + " -c 'import onnxruntime, numpy' >/dev/null 2>&1";
    return std::system(command.c_str()) == 0
        ? std::string()
        : "'" + python() + "' cannot import onnxruntime and numpy (set KILN_PYTHON)";
}

//! An output file in --exportOutput's layout with one entry per (name, dimensions, values).
struct FileOutput
{
    std::string name;
    std::string dimensions;
    std::vector<double> values;
};

void writeOutputs(fs::path const& path, std::vector<FileOutput> const& outputs)
{
    json list = json::array();
    for (FileOutput const& output : outputs)
    {
        list.push_back({{"name", output.name}, {"dimensions", output.dimensions}, {"values", output.values}});
    }
    std::ofstream(path) << list.dump(2);
}

std::string const kIdentityConvDir = KILN_IDENTITY_CONV_DIR;
std::string const kIdentityConvArgs[] = {kIdentityConvDir + "/identity_conv.onnx", "--shapes=X:2x3x8x8",
    "--loadInputs=X:" + kIdentityConvDir + "/input_X_2x3x8x8.bin",
    "--loadOutputs=" + kIdentityConvDir + "/expected_Y_2x3x8x8.json", "--runners=host"};

//! `kiln compare` on the identity_conv example with a plugin library, as a process of its own (two libraries that
//! register IdentityConv cannot share one).
ProcessRun compareIdentityConv(
    std::string const& library, ScratchDir const& dir, std::vector<std::string> const& extra = {})
{
    std::vector<std::string> args{"compare"};
    args.insert(args.end(), std::begin(kIdentityConvArgs), std::end(kIdentityConvArgs));
    args.push_back("--staticPlugins=" + library);
    args.insert(args.end(), extra.begin(), extra.end());
    return runBinary(args, dir / "stderr.txt");
}

#ifdef KILN_IDENTITY_CONV_PLUGIN
TEST(Compare, TheIdentityConvExampleOnTheHostMatchesItsStoredOutput)
{
    ScratchDir dir;
    ProcessRun const run = compareIdentityConv(KILN_IDENTITY_CONV_PLUGIN, dir);
    ASSERT_EQ(run.status, 0) << run.out << run.err;
    EXPECT_TRUE(contains(run.out, "Reference: file (--loadOutputs)")) << run.out;
    EXPECT_TRUE(contains(run.out, "Output Y (FP32 2x3x8x8) against file:")) << run.out;
    EXPECT_TRUE(contains(run.out, "PASSED: 1 comparison within tolerance")) << run.out;
}
#endif

#ifdef KILN_IDENTITY_CONV_STATIC_PLUGIN
TEST(Compare, ASelfRegisteringPluginLibraryServesStaticPlugins)
{
    // trtexec's --staticPlugins form: a library without entry points whose creator registers as it loads.
    ScratchDir dir;
    ProcessRun const run = compareIdentityConv(KILN_IDENTITY_CONV_STATIC_PLUGIN, dir);
    ASSERT_EQ(run.status, 0) << run.out << run.err;
    EXPECT_TRUE(contains(run.out, "PASSED: 1 comparison within tolerance")) << run.out;
}
#endif

TEST(Compare, ADeliberatelyWrongPluginIsCaughtNamingTheOutputTheWorstIndexAndTheError)
{
    ScratchDir dir;
    ProcessRun const run = compareIdentityConv(KILN_WRONG_IDENTITY_CONV, dir);
    EXPECT_EQ(run.status, 1) << run.out << run.err;
    // The planted mistake: element [0, 0, 4, 5] (the stored output's -19.375) is off by 0.5.
    EXPECT_TRUE(contains(run.out, "host at [0, 0, 4, 5]: -18.875 where file has -19.375 (|error| 0.5 > tolerance"))
        << run.out;
    EXPECT_TRUE(
        contains(run.out, "Y (host vs file): 1 of 384 elements over tolerance, max abs error 0.5 at [0, 0, 4, 5]"))
        << run.out;

    ProcessRun const asJson = compareIdentityConv(KILN_WRONG_IDENTITY_CONV, dir, {"--json"});
    EXPECT_EQ(asJson.status, 1) << asJson.err;
    json const report = json::parse(asJson.out);
    EXPECT_EQ(report["passed"], false);
    ASSERT_EQ(report["comparisons"].size(), 1U);
    json const& c = report["comparisons"][0];
    EXPECT_EQ(c["output"], "Y");
    EXPECT_EQ(c["runner"], "host");
    EXPECT_EQ(c["reference"], "file");
    EXPECT_EQ(c["worstIndex"], json::array({0, 0, 4, 5}));
    EXPECT_DOUBLE_EQ(c["maxAbsError"].get<double>(), 0.5);
    EXPECT_EQ(c["overTolerance"], 1);
    EXPECT_EQ(c["elements"], 384);
}

class CompareDense : public testing::Test
{
protected:
    void SetUp() override
    {
        writeDenseModel(mDir / "dense.onnx");
        writeRaw(mDir / "x.bin", kX);
        mY = denseReference(kX);
    }

    //! runCompare on the dense model with X from the file, the host runner only and args.
    CompareRun run(std::vector<std::string> const& args)
    {
        std::vector<std::string> all{
            model(), "--shapes=X:2x4", "--loadInputs=X:" + (mDir / "x.bin").string(), "--runners=host"};
        all.insert(all.end(), args.begin(), args.end());
        return compare(all);
    }

    std::string model() const { return (mDir / "dense.onnx").string(); }
    std::string file(std::string const& name) const { return (mDir / name).string(); }

    // Y for this X: [1.1625, 0.925, 0 (clipped), 1.6, 0 (clipped), 0 (clipped)].
    std::vector<float> const kX{0.5F, 0.25F, 0.75F, 1.0F, 1.0F, 0.5F, 0.25F, 0.75F};
    std::vector<float> mY;
    ScratchDir mDir;
};

TEST_F(CompareDense, TheReferenceComputedHereMatches)
{
    writeOutputs(mDir / "y.json", {{"Y", "2x3", std::vector<double>(mY.begin(), mY.end())}});
    CompareRun const r = run({"--loadOutputs=" + file("y.json")});
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_TRUE(contains(r.out,
        "Tolerance: |runner - reference| <= atol + rtol * |reference|, atol 1e-05, rtol 1e-05 "
        "(the defaults for FP32)"))
        << r.out;
}

TEST_F(CompareDense, AResultWithinAtolOrRtolPassesAndOutsideFails)
{
    // Element [1, 0] off by 1e-3, |reference| there above 0.5.
    ASSERT_GT(mY[3], 0.5F);
    std::vector<double> off(mY.begin(), mY.end());
    off[3] += 1e-3;
    writeOutputs(mDir / "off.json", {{"Y", "2x3", off}});
    std::string const load = "--loadOutputs=" + file("off.json");

    CompareRun const strict = run({load});
    EXPECT_EQ(strict.status, 1) << strict.out;
    EXPECT_TRUE(contains(strict.out, "1 of 6 elements over tolerance, max abs error 0.001 at [1, 0]")) << strict.out;

    EXPECT_EQ(run({load, "--atol=2e-3"}).status, 0);
    CompareRun const justOutside = run({load, "--atol=5e-4", "--rtol=0"});
    EXPECT_EQ(justOutside.status, 1);
    EXPECT_TRUE(contains(justOutside.out, "atol 0.0005, rtol 0 (--atol and --rtol)")) << justOutside.out;
    double const relative = 1e-3 / off[3];
    EXPECT_EQ(run({load, "--atol=0", "--rtol=" + std::to_string(relative * 1.5)}).status, 0);
    EXPECT_EQ(run({load, "--atol=0", "--rtol=" + std::to_string(relative * 0.5)}).status, 1);
}

TEST_F(CompareDense, PrecisionFlagsPickTheirDefaultTolerances)
{
    writeOutputs(mDir / "y.json", {{"Y", "2x3", std::vector<double>(mY.begin(), mY.end())}});
    CompareRun const fp16 = run({"--loadOutputs=" + file("y.json"), "--fp16", "--json"});
    json const report = json::parse(fp16.out);
    EXPECT_EQ(report["atol"], 1e-2);
    EXPECT_EQ(report["rtol"], 1e-2);
    EXPECT_EQ(report["toleranceWhy"], "the defaults for --fp16");
    CompareRun const bf16 = run({"--loadOutputs=" + file("y.json"), "--bf16", "--atol=0.1", "--json"});
    json const mixed = json::parse(bf16.out);
    EXPECT_EQ(mixed["atol"], 0.1);
    EXPECT_EQ(mixed["rtol"], 5e-2);
    EXPECT_EQ(mixed["toleranceWhy"], "--atol; rtol the default for --bf16");
}

TEST_F(CompareDense, AShapeThatDiffersIsAMismatchWithAClearMessage)
{
    writeOutputs(mDir / "shape.json", {{"Y", "3x2", std::vector<double>(mY.begin(), mY.end())}});
    CompareRun const r = run({"--loadOutputs=" + file("shape.json")});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.out, "Y (host vs file): the shape is 2x3 in host but 3x2 in file")) << r.out;
}

TEST_F(CompareDense, AnOutputMissingOnEitherSideIsAMismatchWithAClearMessage)
{
    writeOutputs(mDir / "other.json", {{"Z", "2x3", std::vector<double>(mY.begin(), mY.end())}});
    CompareRun const r = run({"--loadOutputs=" + file("other.json")});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.out,
        "Z (host vs file): the --loadOutputs file has the output 'Z' but host does not (it "
        "has: Y)"))
        << r.out;
    EXPECT_TRUE(contains(r.out,
        "Y (host vs file): host has the output 'Y' but the --loadOutputs file does not (it "
        "has: Z)"))
        << r.out;
}

TEST_F(CompareDense, AMalformedOutputFileFailsNamingIt)
{
    writeOutputs(mDir / "short.json", {{"Y", "2x3", {1.0, 2.0}}});
    CompareRun const r = run({"--loadOutputs=" + file("short.json")});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err,
        "--loadOutputs: " + file("short.json")
            + ": entry 0 ('Y'): 2 values for the "
              "dimensions 2x3, which hold 6"))
        << r.err;
}

TEST_F(CompareDense, RandomInputsComeFromTheSeedAsInTheBuildAndRunMode)
{
    // The build-and-run mode's output with its random inputs (seed 1) is what compare gets with the default seed.
    ToolRun const exported = runTool({"--onnx=" + model(), "--shapes=X:2x4", "--warmUp=0", "--duration=0",
        "--iterations=1", "--exportOutput=" + file("seed1.json")});
    ASSERT_EQ(exported.result.exitStatus, 0) << exported.err;
    std::vector<std::string> const args{
        model(), "--shapes=X:2x4", "--runners=host", "--loadOutputs=" + file("seed1.json"), "--json"};
    CompareRun const same = compare(args);
    EXPECT_EQ(same.status, 0) << same.out;
    EXPECT_EQ(json::parse(same.out)["inputs"][0]["source"], "random (seed 1)");
    std::vector<std::string> seeded = args;
    seeded.push_back("--seed=7");
    CompareRun const other = compare(seeded);
    EXPECT_EQ(other.status, 1) << other.out;
    EXPECT_EQ(json::parse(other.out)["inputs"][0]["source"], "random (seed 7)");
}

TEST_F(CompareDense, RunnersThatCannotRunAreReportedAsSkippedWithTheReason)
{
    writeOutputs(mDir / "y.json", {{"Y", "2x3", std::vector<double>(mY.begin(), mY.end())}});
    std::string const missing = file("no_such_python");
    CompareRun const r = compare({model(), "--shapes=X:2x4", "--loadInputs=X:" + file("x.bin"),
        "--loadOutputs=" + file("y.json"), "--python=" + missing});
    EXPECT_TRUE(contains(r.out, "onnxruntime  skipped: cannot run the Python interpreter '" + missing + "'")) << r.out;
    if (std::string const noGpu = kiln_tool::gpu::unusableReason(); !noGpu.empty())
    {
        EXPECT_TRUE(contains(r.out, "cuda         skipped: " + noGpu)) << r.out;
        EXPECT_EQ(r.status, 0) << r.out; // runners skipped by default do not fail; host against the file passed
    }
    EXPECT_TRUE(contains(r.out, "host         ran: kiln's host backend")) << r.out;

    // A runner named in --runners that cannot run fails the comparison.
    CompareRun const asked = compare({model(), "--shapes=X:2x4", "--loadInputs=X:" + file("x.bin"),
        "--loadOutputs=" + file("y.json"), "--python=" + missing, "--runners=host,onnxruntime"});
    EXPECT_EQ(asked.status, 1);
    EXPECT_TRUE(contains(asked.out, "onnxruntime was asked for with --runners but did not run: cannot run the Python"))
        << asked.out;
}

TEST_F(CompareDense, OnnxRuntimeThatDoesNotImportIsReportedAsSkippedWithPythonsError)
{
    // A Python whose numpy and onnxruntime raise ImportError, whatever is installed.
    fs::create_directories(mDir / "hidden");
    std::ofstream(mDir / "hidden" / "numpy.py") << "raise ImportError('hidden by the test')\n";
    std::ofstream(mDir / "hidden" / "onnxruntime.py") << "raise ImportError('hidden by the test')\n";
    fs::path const wrapper = mDir / "python";
    std::ofstream(wrapper) << "#!/bin/sh\nPYTHONPATH=" << shellQuoted((mDir / "hidden").string()) << " exec "
                           << shellQuoted(python()) << " \"$@\"\n";
    fs::permissions(wrapper, fs::perms::owner_all);
    if (std::system((shellQuoted(wrapper.string()) + " -c pass >/dev/null 2>&1").c_str()) != 0)
    {
        GTEST_SKIP() << "no Python interpreter here (" << python() << ")";
    }
    CompareRun const r = run({"--runners=host,onnxruntime", "--python=" + wrapper.string()});
    EXPECT_TRUE(contains(r.out,
        "onnxruntime  skipped: '" + wrapper.string()
            + "' cannot import onnxruntime and numpy (ImportError: hidden by the test)"))
        << r.out;
}

TEST_F(CompareDense, HostAgainstOnnxRuntime)
{
    if (std::string const why = onnxRuntimeMissing(); !why.empty())
    {
        GTEST_SKIP() << why;
    }
    CompareRun const r = compare({model(), "--shapes=X:2x4", "--runners=host,onnxruntime", "--json"});
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    json const report = json::parse(r.out);
    EXPECT_EQ(report["reference"], "onnxruntime");
    ASSERT_EQ(report["comparisons"].size(), 1U);
    EXPECT_EQ(report["comparisons"][0]["output"], "Y");
    EXPECT_EQ(report["comparisons"][0]["runner"], "host");
    EXPECT_EQ(report["comparisons"][0]["type"], "FP32");
    EXPECT_LE(report["comparisons"][0]["maxAbsError"].get<double>(), 1e-5);
}

TEST(Compare, OnnxRuntimeRefusingAPluginNodeIsReportedAsSkippedWithItsReason)
{
    if (std::string const why = onnxRuntimeMissing(); !why.empty())
    {
        GTEST_SKIP() << why;
    }
    ScratchDir dir;
    writePluginModel(dir / "plugin.onnx");
    CompareRun const r = compare({(dir / "plugin.onnx").string(), "--shapes=X:2x4",
        std::string("--staticPlugins=") + KILN_TOOL_TEST_PLUGINS, "--runners=host,onnxruntime", "--json"});
    EXPECT_EQ(r.status, 1) << r.out; // onnxruntime was asked for and could not run
    json const report = json::parse(r.out);
    json const& ort = report["runners"][1];
    EXPECT_EQ(ort["name"], "onnxruntime");
    EXPECT_EQ(ort["status"], "skipped");
    EXPECT_TRUE(contains(ort["detail"].get<std::string>(), "cannot load the model")) << ort["detail"];
    EXPECT_TRUE(contains(ort["detail"].get<std::string>(), "KilnToolDouble")) << ort["detail"];
}

TEST(Compare, CudaAgainstHostWhereAGpuIsUsable)
{
    if (std::string const why = kiln_tool::gpu::unusableReason(); !why.empty())
    {
        GTEST_SKIP() << why;
    }
    ScratchDir dir;
    writeDenseModel(dir / "dense.onnx");
    CompareRun const r = compare({(dir / "dense.onnx").string(), "--shapes=X:2x4", "--runners=cuda,host", "--json"});
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    json const report = json::parse(r.out);
    EXPECT_EQ(report["reference"], "host");
    EXPECT_EQ(report["comparisons"][0]["runner"], "cuda");
}

TEST(Compare, UsageErrorsExitTwo)
{
    CompareRun const unknown = compare({"m.onnx", "--runners=host,tensorflow"});
    EXPECT_EQ(unknown.status, 2);
    EXPECT_TRUE(contains(unknown.err, "--runners")) << unknown.err;
    EXPECT_TRUE(contains(unknown.err, "tensorflow")) << unknown.err;
    CompareRun const file = compare({"m.onnx", "--reference=file"});
    EXPECT_EQ(file.status, 2);
    EXPECT_TRUE(contains(file.err, "--reference=file compares with a --loadOutputs file; none was given")) << file.err;
    CompareRun const notRun = compare({"m.onnx", "--runners=host", "--reference=cuda"});
    EXPECT_EQ(notRun.status, 2);
    EXPECT_TRUE(contains(notRun.err, "--reference=cuda is not among --runners")) << notRun.err;
    EXPECT_EQ(compare({}).status, 2); // no model
    EXPECT_EQ(compare({"m.onnx", "--atol=-1"}).status, 2);
    EXPECT_EQ(compare({"m.onnx", "--shapes=X:2xq"}).status, 2);

    ScratchDir dir;
    ProcessRun const binary = runBinary({"compare", "m.onnx", "--runners=bogus"}, dir / "stderr.txt");
    EXPECT_EQ(binary.status, 2);
    EXPECT_TRUE(contains(binary.err, "bogus")) << binary.err;
}

TEST(Compare, AModelThatCannotBeReadFailsEveryKilnRunner)
{
    ScratchDir dir;
    CompareRun const r = compare({(dir / "missing.onnx").string(), "--runners=host"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.out, "host  failed: --onnx: the model ")) << r.out;
}

TEST(Compare, EveryFlagOfTheHelpIsInTheDocs)
{
    CompareRun const help = compare({"--help"});
    ASSERT_EQ(help.status, 0);
    std::ifstream file(KILN_CLI_DOC);
    std::string const doc((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    std::size_t const section = doc.find("## `kiln compare MODEL`");
    ASSERT_NE(section, std::string::npos) << "docs/cli.md has no `kiln compare MODEL` section";
    std::string const text = doc.substr(section);
    std::istringstream lines(help.out);
    int flags = 0;
    for (std::string line; std::getline(lines, line);)
    {
        std::size_t const start = line.find("--");
        if (start == std::string::npos || line.find_first_not_of(' ') != start)
        {
            continue;
        }
        std::string const flag = line.substr(start, line.find_first_of(" =,", start) - start);
        if (flag == "--help")
        {
            continue;
        }
        ++flags;
        EXPECT_TRUE(contains(text, "`" + flag)) << "docs/cli.md's compare section does not name " << flag;
    }
    EXPECT_GE(flags, 15);
}

} // namespace
} // namespace kiln_tool_test
