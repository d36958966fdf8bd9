// SPDX-License-Identifier: Apache-2.0
// --inputIOFormats and --outputIOFormats: the spec syntax (io_formats.h) with its refusals, and the build-and-run
// mode binding, filling and exporting I/O tensors in the types given, on the host backend.
#include "inspect.h"
#include "io_formats.h"
#include "tool_test_support.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln_tool_test
{
namespace
{

using kiln_tool::IoFormat;
using kiln_tool::parseIoFormats;
using kiln_tool::SpecError;
using nvinfer1::DataType;
using nvinfer1::TensorFormat;

constexpr uint32_t bit(TensorFormat format)
{
    return 1U << static_cast<uint32_t>(format);
}

std::string specError(std::string const& text)
{
    try
    {
        parseIoFormats(text);
    }
    catch (SpecError const& e)
    {
        return e.what();
    }
    return "(no error)";
}

TEST(IoFormatSpecs, EachTypeNameParses)
{
    std::vector<std::pair<std::string, DataType>> const types{{"fp32", DataType::kFLOAT}, {"fp16", DataType::kHALF},
        {"bf16", DataType::kBF16}, {"int32", DataType::kINT32}, {"int64", DataType::kINT64}, {"int8", DataType::kINT8},
        {"fp8", DataType::kFP8}, {"bool", DataType::kBOOL}, {"uint8", DataType::kUINT8}};
    for (auto const& [name, type] : types)
    {
        std::vector<IoFormat> const parsed = parseIoFormats(name + ":chw");
        ASSERT_EQ(parsed.size(), 1U) << name;
        EXPECT_EQ(parsed[0].type, type) << name;
        EXPECT_EQ(parsed[0].formats, bit(TensorFormat::kLINEAR)) << name;
        EXPECT_EQ(parsed[0].text, name + ":chw");
    }
}

TEST(IoFormatSpecs, ACommaSeparatedListGivesOneSpecPerTensorInOrder)
{
    std::vector<IoFormat> const parsed = parseIoFormats("fp32:chw,int32:chw,fp16:chw+chw");
    ASSERT_EQ(parsed.size(), 3U);
    EXPECT_EQ(parsed[0].type, DataType::kFLOAT);
    EXPECT_EQ(parsed[1].type, DataType::kINT32);
    EXPECT_EQ(parsed[2].type, DataType::kHALF);
    EXPECT_EQ(parsed[2].formats, bit(TensorFormat::kLINEAR));
}

TEST(IoFormatSpecs, BadSyntaxAndUnknownNamesAreNamed)
{
    EXPECT_EQ(specError("fp16"), "'fp16' is not type:format[+format...] (e.g. fp16:chw)");
    EXPECT_EQ(specError("fp16:chw,"), "'fp16:chw,' has an empty entry");
    EXPECT_EQ(specError("half:chw"),
        "'half:chw': unknown type 'half' (types: fp32, fp16, bf16, int32, int64, int8, fp8, bool, uint8)");
    EXPECT_EQ(specError("fp16:nchw"),
        "'fp16:nchw': unknown format 'nchw' (formats: chw, chw2, chw4, hwc8, chw16, chw32, dhwc8, cdhw32, hwc, "
        "dla_linear, dla_hwc4, hwc16, dhwc)");
    EXPECT_EQ(specError("fp16:chw+"),
        "'fp16:chw+': unknown format '' (formats: chw, chw2, chw4, hwc8, chw16, chw32, "
        "dhwc8, cdhw32, hwc, dla_linear, dla_hwc4, hwc16, dhwc)");
}

//! Every format but chw is refused by name, with the reason, alone or beside chw.
class RefusedIoFormat : public testing::TestWithParam<std::string>
{
};

TEST_P(RefusedIoFormat, IsRefusedNamingItAndWhy)
{
    std::string const reason
        = " is not supported: kiln's builder gives network inputs and outputs the linear format (chw) only";
    EXPECT_EQ(specError("fp16:" + GetParam()), "'fp16:" + GetParam() + "': the format " + GetParam() + reason);
    EXPECT_EQ(specError("int8:chw+" + GetParam()), "'int8:chw+" + GetParam() + "': the format " + GetParam() + reason);
}

INSTANTIATE_TEST_SUITE_P(Trtexec, RefusedIoFormat,
    testing::Values(
        "chw2", "chw4", "hwc8", "chw16", "chw32", "dhwc8", "cdhw32", "hwc", "dla_linear", "dla_hwc4", "hwc16", "dhwc"));

TEST(IoFormatSpecs, FlagsReachTheOptionsAndTheirErrorsNameTheFlag)
{
    std::ostringstream out;
    std::ostringstream err;
    kiln_tool::ParsedOptions const parsed = kiln_tool::parseOptions(
        {"--onnx=m.onnx", "--inputIOFormats=fp16:chw,int32:chw", "--outputIOFormats=fp16:chw"}, out, err);
    ASSERT_TRUE(parsed.options.has_value()) << err.str();
    ASSERT_EQ(parsed.options->inputFormats.size(), 2U);
    EXPECT_EQ(parsed.options->inputFormats[1].type, DataType::kINT32);
    ASSERT_EQ(parsed.options->outputFormats.size(), 1U);
    EXPECT_EQ(parsed.options->outputFormats[0].type, DataType::kHALF);

    for (auto const& [flag, value] :
        {std::pair{"--inputIOFormats", "fp16:hwc8"}, std::pair{"--outputIOFormats", "x:chw"}})
    {
        std::ostringstream badOut;
        std::ostringstream badErr;
        kiln_tool::ParsedOptions const bad
            = kiln_tool::parseOptions({"--onnx=m.onnx", std::string(flag) + "=" + value}, badOut, badErr);
        EXPECT_FALSE(bad.options.has_value());
        EXPECT_EQ(bad.exitStatus, 2);
        EXPECT_NE(badErr.str().find(std::string(flag) + ": '" + value + "'"), std::string::npos) << badErr.str();
    }
}

// ---- The build-and-run mode -----------------------------------------------------------------------------------------

std::vector<std::string> quick(std::vector<std::string> args)
{
    args.push_back("--warmUp=0");
    args.push_back("--duration=0");
    return args;
}

//! IEEE half bits of value (exact for the values used here).
uint16_t half(float value)
{
    if (value == 0.0F)
    {
        return 0;
    }
    int exponent = 0;
    float const mantissa
        = std::frexp(std::fabs(value), &exponent); // value = mantissa * 2^exponent, mantissa in [0.5, 1)
    auto const bits
        = static_cast<uint16_t>(((exponent + 14) << 10) | static_cast<uint16_t>((mantissa * 2.0F - 1.0F) * 1024.0F));
    return static_cast<uint16_t>(bits | (value < 0.0F ? 0x8000U : 0U));
}

class IoFormatsRun : public testing::Test
{
protected:
    void SetUp() override { writeDenseModel(mModel); }

    std::string model() const { return mModel.string(); }

    nlohmann::json exported(std::string const& file) const
    {
        std::vector<char> const bytes = readAll(mDir / file);
        return nlohmann::json::parse(std::string(bytes.begin(), bytes.end()));
    }

    ScratchDir mDir;
    fs::path mModel = mDir / "dense.onnx";
};

TEST_F(IoFormatsRun, Fp16InputAndOutputAreBoundFilledAndExportedInFp16)
{
    // Values exact in FP16; the output is compared with the FP32 reference at FP16's precision.
    std::vector<float> const x{1.0F, 2.0F, 3.0F, 4.0F, -1.0F, 0.5F, 0.25F, -2.0F};
    std::vector<uint16_t> halves;
    for (float const v : x)
    {
        halves.push_back(half(v));
    }
    writeRaw(mDir / "x16.bin", halves);
    std::string const plan = (mDir / "dense16.plan").string();
    ToolRun const run = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4", "--inputIOFormats=fp16:chw",
        "--outputIOFormats=fp16:chw", "--loadInputs=X:" + (mDir / "x16.bin").string(),
        "--exportOutput=" + (mDir / "out.json").string(), "--saveEngine=" + plan}));
    ASSERT_EQ(run.result.exitStatus, 0) << run.err << run.out;
    EXPECT_NE(run.out.find("[I] Input(s) format: fp16:chw"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("[I] Output(s) format: fp16:chw"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("[I] Input X: 2x4 (FP16) in host memory"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("[I] Output Y: 2x3 (FP16) in host memory"), std::string::npos) << run.out;
    nlohmann::json const outputs = exported("out.json");
    std::vector<float> const expected = denseReference(x);
    ASSERT_EQ(outputs[0]["values"].size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
    {
        EXPECT_NEAR(outputs[0]["values"][i].get<double>(), expected[i], 1e-2 * (1.0 + std::fabs(expected[i])))
            << "value " << i;
    }

    // The plan keeps the types: inspect shows them, and a loaded engine binds them.
    std::ostringstream out;
    std::ostringstream err;
    ASSERT_EQ(kiln_tool::runInspect({plan, "--json"}, out, err), 0) << err.str();
    nlohmann::json const inspected = nlohmann::json::parse(out.str());
    EXPECT_EQ(inspected["tensors"][0]["type"], "FP16") << inspected["tensors"].dump();
    EXPECT_EQ(inspected["tensors"][1]["type"], "FP16") << inspected["tensors"].dump();
    ToolRun const loaded = runTool(quick({"--loadEngine=" + plan, "--shapes=X:2x4"}));
    ASSERT_EQ(loaded.result.exitStatus, 0) << loaded.err;
    EXPECT_NE(loaded.out.find("[I] Input X: 2x4 (FP16) in host memory"), std::string::npos) << loaded.out;
}

TEST_F(IoFormatsRun, EachInputAndOutputTakesItsOwnSpecInTheModelsOrder)
{
    // Inputs A (FP32 [2, 3]) and I (INT64 [2]); outputs G = Gather(A, I) and R = Relu(A). A is given in FP16, I in
    // INT32; G stays FP32 and R is exported in FP16. The engine keeps the model's order of inputs and outputs.
    ModelBuilder m;
    m.input("A", {2, 3});
    m.input("I", {2}, ::onnx::TensorProto::INT64);
    m.node("Gather", {"A", "I"}, {"G"}, "gather");
    m.node("Relu", {"A"}, {"R"}, "relu");
    m.output("G");
    m.output("R");
    m.writeTo(mDir / "two.onnx");
    std::vector<float> const a{1.0F, -2.0F, 3.0F, -0.5F, 0.25F, 4.0F};
    std::vector<uint16_t> aHalf;
    for (float const v : a)
    {
        aHalf.push_back(half(v));
    }
    writeRaw(mDir / "a.bin", aHalf);
    writeRaw(mDir / "i.bin", std::vector<int32_t>{1, 0});
    std::string const plan = (mDir / "two.plan").string();
    ToolRun const run = runTool(quick({"--onnx=" + (mDir / "two.onnx").string(), "--inputIOFormats=fp16:chw,int32:chw",
        "--outputIOFormats=fp32:chw,fp16:chw", "--loadInputs=A:" + (mDir / "a.bin").string(),
        "--loadInputs=I:" + (mDir / "i.bin").string(), "--exportOutput=" + (mDir / "out.json").string(),
        "--saveEngine=" + plan}));
    ASSERT_EQ(run.result.exitStatus, 0) << run.err;

    std::ostringstream out;
    std::ostringstream err;
    ASSERT_EQ(kiln_tool::runInspect({plan, "--json"}, out, err), 0) << err.str();
    nlohmann::json const tensors = nlohmann::json::parse(out.str())["tensors"];
    std::vector<std::pair<std::string, std::string>> io;
    for (nlohmann::json const& tensor : tensors)
    {
        io.emplace_back(tensor["name"], tensor["type"]);
    }
    EXPECT_EQ(io,
        (std::vector<std::pair<std::string, std::string>>{{"A", "FP16"}, {"I", "INT32"}, {"G", "FP32"}, {"R", "FP16"}}))
        << tensors.dump();

    nlohmann::json const outputs = exported("out.json");
    ASSERT_EQ(outputs.size(), 2U);
    EXPECT_EQ(outputs[0]["name"], "G");
    EXPECT_EQ(outputs[1]["name"], "R");
    std::vector<double> const gathered{-0.5, 0.25, 4.0, 1.0, -2.0, 3.0};
    std::vector<double> const relu{1.0, 0.0, 3.0, 0.0, 0.25, 4.0};
    for (std::size_t i = 0; i < 6; ++i)
    {
        EXPECT_EQ(outputs[0]["values"][i].get<double>(), gathered[i]) << "G " << i;
        EXPECT_EQ(outputs[1]["values"][i].get<double>(), relu[i]) << "R " << i;
    }
}

TEST_F(IoFormatsRun, LoadInputsAreCheckedAgainstTheChosenTypesSize)
{
    writeRaw(mDir / "x32.bin", std::vector<float>(8, 1.0F)); // FP32 bytes for an FP16 input: twice too many
    std::string const file = (mDir / "x32.bin").string();
    ToolRun const run = runTool(
        quick({"--onnx=" + model(), "--shapes=X:2x4", "--inputIOFormats=fp16:chw", "--loadInputs=X:" + file}));
    EXPECT_EQ(run.result.exitStatus, 1);
    EXPECT_NE(run.err.find("--loadInputs: " + file + " holds 32 bytes, but the input 'X' (FP16, 2x4) takes 16"),
        std::string::npos)
        << run.err;
}

TEST_F(IoFormatsRun, RandomInputsAreFilledInTheChosenType)
{
    ToolRun const run = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4", "--inputIOFormats=bf16:chw",
        "--exportOutput=" + (mDir / "out.json").string()}));
    ASSERT_EQ(run.result.exitStatus, 0) << run.err;
    EXPECT_NE(run.out.find("[I] Input X: 2x4 (BF16) in host memory"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("[I] Output Y: 2x3 (FP32) in host memory"), std::string::npos) << run.out;
    for (nlohmann::json const& value : exported("out.json")[0]["values"])
    {
        ASSERT_TRUE(value.is_number()) << "random BF16 inputs make finite outputs: " << value.dump();
    }
}

TEST_F(IoFormatsRun, OneSpecAppliesToEveryInput)
{
    // trtexec's broadcast: a single spec for a model of one input is the same as one per input.
    ToolRun const run = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4", "--inputIOFormats=fp16:chw"}));
    ASSERT_EQ(run.result.exitStatus, 0) << run.err;
    EXPECT_NE(run.out.find("[I] Input X: 2x4 (FP16)"), std::string::npos) << run.out;
}

TEST_F(IoFormatsRun, ACountThatMatchesNeitherTheTensorsNorOneIsAnErrorNamingTheCounts)
{
    ToolRun const inputs
        = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4", "--inputIOFormats=fp16:chw,fp16:chw"}));
    EXPECT_EQ(inputs.result.exitStatus, 1);
    EXPECT_NE(inputs.err.find("--inputIOFormats gives 2 formats, but the model has 1 input (X): give one per input, "
                              "in order, or one for all"),
        std::string::npos)
        << inputs.err;
    ToolRun const outputs
        = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4", "--outputIOFormats=fp32:chw,fp16:chw,fp16:chw"}));
    EXPECT_EQ(outputs.result.exitStatus, 1);
    EXPECT_NE(outputs.err.find("--outputIOFormats gives 3 formats, but the model has 1 output (Y)"), std::string::npos)
        << outputs.err;
}

TEST_F(IoFormatsRun, AnUnsupportedFormatIsAUsageError)
{
    ToolRun const run = runTool(quick({"--onnx=" + model(), "--shapes=X:2x4", "--inputIOFormats=fp16:hwc8"}));
    EXPECT_EQ(run.result.exitStatus, 2);
    EXPECT_NE(run.err.find("--inputIOFormats: 'fp16:hwc8': the format hwc8 is not supported: kiln's builder gives "
                           "network inputs and outputs the linear format (chw) only"),
        std::string::npos)
        << run.err;
    EXPECT_FALSE(run.result.built);
}

TEST_F(IoFormatsRun, WithLoadEngineTheFormatsHaveNoEffect)
{
    std::string const plan = (mDir / "dense.plan").string();
    ASSERT_EQ(
        runTool({"--onnx=" + model(), "--shapes=X:2x4", "--skipInference", "--saveEngine=" + plan}).result.exitStatus,
        0);
    ToolRun const run = runTool(quick({"--loadEngine=" + plan, "--inputIOFormats=fp16:chw"}));
    ASSERT_EQ(run.result.exitStatus, 0) << run.err;
    EXPECT_NE(run.err.find("--inputIOFormats has no effect with --loadEngine"), std::string::npos) << run.err;
    EXPECT_NE(run.out.find("[I] Input X: 2x4 (FP32)"), std::string::npos) << run.out;
}

} // namespace
} // namespace kiln_tool_test
