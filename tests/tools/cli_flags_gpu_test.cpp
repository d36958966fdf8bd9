// SPDX-License-Identifier: Apache-2.0
// --streams, --refit and --inputIOFormats/--outputIOFormats on CUDA engines (ctest label gpu). Each test
// skips, saying why, where no GPU is usable (no CUDA in this build, no device, no driver).
#include "gpu.h"
#include "tool_test_support.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <string>
#include <vector>

namespace kiln_tool_test
{
namespace
{

class CudaFlags : public testing::Test
{
protected:
    void SetUp() override
    {
        if (std::string const why = kiln_tool::gpu::unusableReason(); !why.empty())
        {
            GTEST_SKIP() << "a CUDA engine is needed: " << why;
        }
        writeDenseModel(mModel);
        writeRaw(mDir / "x.bin", mX);
    }

    //! The dense model on the CUDA backend at X:2x4 with the fixed inputs and extra flags.
    ToolRun run(std::vector<std::string> const& extra, std::string const& outputs)
    {
        std::vector<std::string> args{"--onnx=" + mModel.string(), "--shapes=X:2x4", "--backend=cuda", "--warmUp=0",
            "--duration=0", "--exportOutput=" + (mDir / outputs).string()};
        if (extra.empty() || extra.front().rfind("--inputIOFormats", 0) != 0)
        {
            args.push_back("--loadInputs=X:" + (mDir / "x.bin").string());
        }
        args.insert(args.end(), extra.begin(), extra.end());
        return runTool(args);
    }

    nlohmann::json outputs(std::string const& file) const
    {
        std::vector<char> const bytes = readAll(mDir / file);
        return nlohmann::json::parse(std::string(bytes.begin(), bytes.end()));
    }

    void expectModelOutputs(std::string const& file, double tolerance) const
    {
        nlohmann::json const exported = outputs(file);
        std::vector<float> const expected = denseReference(mX);
        ASSERT_EQ(exported[0]["values"].size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i)
        {
            EXPECT_NEAR(exported[0]["values"][i].get<double>(), expected[i], tolerance) << "value " << i;
        }
    }

    ScratchDir mDir;
    fs::path mModel = mDir / "dense.onnx";
    std::vector<float> const mX{1.0F, 2.0F, 3.0F, 4.0F, -1.0F, 0.5F, 0.25F, -2.0F};
};

TEST_F(CudaFlags, StreamsRunContextsOnTheirOwnStreamsAndCountEveryQuery)
{
    ToolRun const result = run({"--streams=4", "--iterations=50"}, "out.json");
    ASSERT_EQ(result.result.exitStatus, 0) << result.err;
    EXPECT_NE(result.out.find("[I] Starting inference on 4 streams"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("in device memory"), std::string::npos) << result.out;
    ASSERT_TRUE(result.result.summary.has_value());
    EXPECT_GE(result.result.summary->queries, 200);
    expectModelOutputs("out.json", 1e-4);
}

TEST_F(CudaFlags, StreamsWithCudaGraphsAndNoDataTransfers)
{
    ToolRun const result = run({"--streams=2", "--iterations=20", "--useCudaGraph", "--noDataTransfers"}, "out.json");
    ASSERT_EQ(result.result.exitStatus, 0) << result.err;
    ASSERT_TRUE(result.result.summary.has_value());
    EXPECT_GE(result.result.summary->queries, 40);
    expectModelOutputs("out.json", 1e-4);
}

TEST_F(CudaFlags, RefitKeepsTheOutputs)
{
    ToolRun const refitted = run({"--refit"}, "refit.json");
    ASSERT_EQ(refitted.result.exitStatus, 0) << refitted.err;
    EXPECT_NE(refitted.out.find("[I] Engine refitted in "), std::string::npos) << refitted.out;
    ToolRun const plain = run({}, "plain.json");
    ASSERT_EQ(plain.result.exitStatus, 0) << plain.err;
    EXPECT_EQ(outputs("refit.json"), outputs("plain.json"));
    expectModelOutputs("refit.json", 1e-4);
}

TEST_F(CudaFlags, Fp16InputAndOutputOnTheDevice)
{
    ToolRun const result = run({"--inputIOFormats=fp16:chw", "--outputIOFormats=fp16:chw"}, "out.json");
    ASSERT_EQ(result.result.exitStatus, 0) << result.err;
    EXPECT_NE(result.out.find("[I] Input X: 2x4 (FP16) in device memory"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("[I] Output Y: 2x3 (FP16) in device memory"), std::string::npos) << result.out;
    for (nlohmann::json const& value : outputs("out.json")[0]["values"])
    {
        ASSERT_TRUE(value.is_number()) << value.dump();
    }
}

} // namespace
} // namespace kiln_tool_test
