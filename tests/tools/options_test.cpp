// SPDX-License-Identifier: Apache-2.0
// The kiln tool's options: the value syntaxes of trtexec's flags (specs.h), the flag table (parseOptions) and usage
// errors, each checked by its message.
#include "options.h"
#include "specs.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace kiln_tool_test
{
namespace
{

using kiln_tool::MemoryPool;
using kiln_tool::ParsedOptions;
using kiln_tool::ShapeMap;
using kiln_tool::SpecError;
using nvinfer1::MemoryPoolType;

struct Parsed
{
    ParsedOptions parsed;
    std::string out;
    std::string err;
};

Parsed parse(std::vector<std::string> const& args)
{
    std::ostringstream out;
    std::ostringstream err;
    Parsed result{kiln_tool::parseOptions(args, out, err), {}, {}};
    result.out = out.str();
    result.err = err.str();
    return result;
}

std::string shapeText(ShapeMap const& shapes, std::string const& name)
{
    auto const found = shapes.find(name);
    return found == shapes.end() ? "<none>" : kiln_tool::dimsText(found->second);
}

TEST(ToolSpecs, ShapeListsSplitAtCommasAndTheLastColon)
{
    ShapeMap const shapes = kiln_tool::parseShapeList("x:1x3x224x224,ids:8x128,scalar:");
    EXPECT_EQ(shapeText(shapes, "x"), "1x3x224x224");
    EXPECT_EQ(shapeText(shapes, "ids"), "8x128");
    ASSERT_EQ(shapes.count("scalar"), 1U);
    EXPECT_EQ(shapes.at("scalar").nbDims, 0);
}

TEST(ToolSpecs, QuotedNamesMayHoldColonsAndCommas)
{
    ShapeMap const shapes = kiln_tool::parseShapeList("'input:0':1x3,'a,b':2x2,plain:0x4");
    EXPECT_EQ(shapeText(shapes, "input:0"), "1x3");
    EXPECT_EQ(shapeText(shapes, "a,b"), "2x2");
    EXPECT_EQ(shapeText(shapes, "plain"), "0x4");
}

TEST(ToolSpecs, ALaterShapeForANameWins)
{
    EXPECT_EQ(shapeText(kiln_tool::parseShapeList("x:1x2,x:3x4"), "x"), "3x4");
}

TEST(ToolSpecs, MalformedShapeListsSayWhatIsWrong)
{
    auto const message = [](char const* text) {
        try
        {
            kiln_tool::parseShapeList(text);
        }
        catch (SpecError const& e)
        {
            return std::string(e.what());
        }
        return std::string("<accepted>");
    };
    EXPECT_EQ(message("x1x2"), "'x1x2' is not name:AxBxC");
    EXPECT_EQ(
        message("x:1xax2"), "'x:1xax2': 'a' is not an extent (a non-negative integer; extents are separated by 'x')");
    EXPECT_EQ(
        message("x:1x-2"), "'x:1x-2': '-2' is not an extent (a non-negative integer; extents are separated by 'x')");
    EXPECT_EQ(message("x:1x2,,y:3"), "'x:1x2,,y:3' has an empty entry");
    EXPECT_EQ(message("'x:1x2"), "''x:1x2' has an unclosed quote");
    EXPECT_EQ(message("'x'1x2"), "''x'1x2' is not name:AxBxC: a quoted name must be followed by ':'");
    EXPECT_EQ(message("x:1x1x1x1x1x1x1x1x1"), "'x:1x1x1x1x1x1x1x1x1' has more than 8 extents");
}

TEST(ToolSpecs, MemoryPoolsTakeTrtexecsUnits)
{
    std::vector<MemoryPool> const pools = kiln_tool::parseMemoryPools(
        "workspace:1024M,tacticSharedMem:48K,dlaSRAM:1.5G,dlaLocalDRAM:512B,dlaGlobalDRAM:2");
    ASSERT_EQ(pools.size(), 5U);
    EXPECT_EQ(pools[0].pool, MemoryPoolType::kWORKSPACE);
    EXPECT_EQ(pools[0].bytes, 1024ULL << 20);
    EXPECT_EQ(pools[1].pool, MemoryPoolType::kTACTIC_SHARED_MEMORY);
    EXPECT_EQ(pools[1].bytes, 48ULL << 10);
    EXPECT_EQ(pools[2].pool, MemoryPoolType::kDLA_MANAGED_SRAM);
    EXPECT_EQ(pools[2].bytes, 3ULL << 29);
    EXPECT_EQ(pools[3].pool, MemoryPoolType::kDLA_LOCAL_DRAM);
    EXPECT_EQ(pools[3].bytes, 512U);
    EXPECT_EQ(pools[4].pool, MemoryPoolType::kDLA_GLOBAL_DRAM);
    EXPECT_EQ(pools[4].bytes, 2ULL << 20); // M when no unit
}

TEST(ToolSpecs, MalformedMemoryPoolsSayWhatIsWrong)
{
    EXPECT_THROW(
        {
            try
            {
                kiln_tool::parseMemoryPools("scratch:1G");
            }
            catch (SpecError const& e)
            {
                EXPECT_STREQ(e.what(),
                    "'scratch:1G': unknown pool 'scratch' (pools: workspace, dlaSRAM, dlaLocalDRAM, dlaGlobalDRAM, "
                    "tacticSharedMem)");
                throw;
            }
        },
        SpecError);
    EXPECT_THROW(kiln_tool::parseMemoryPools("workspace:12T"), SpecError);
    EXPECT_THROW(kiln_tool::parseMemoryPools("workspace:-1M"), SpecError);
    EXPECT_THROW(kiln_tool::parseMemoryPools("workspace"), SpecError);
}

TEST(ToolSpecs, NamedFilesSplitAtTheFirstColon)
{
    std::vector<kiln_tool::NamedFile> const files = kiln_tool::parseNamedFiles("x:/data/x.bin,'in:0':c:/y.bin");
    ASSERT_EQ(files.size(), 2U);
    EXPECT_EQ(files[0].name, "x");
    EXPECT_EQ(files[0].path, "/data/x.bin");
    EXPECT_EQ(files[1].name, "in:0");
    EXPECT_EQ(files[1].path, "c:/y.bin");
    EXPECT_THROW(kiln_tool::parseNamedFiles("x:"), SpecError);
}

TEST(ToolOptions, BothSpellingsOfValuesWork)
{
    Parsed const a = parse({"--onnx=m.onnx", "--iterations=7", "--shapes=x:1x2"});
    Parsed const b = parse({"--onnx", "m.onnx", "--iterations", "7", "--shapes", "x:1x2"});
    for (Parsed const* p : {&a, &b})
    {
        ASSERT_TRUE(p->parsed.options.has_value()) << p->err;
        EXPECT_EQ(p->parsed.options->onnx, "m.onnx");
        EXPECT_EQ(p->parsed.options->iterations, 7);
        EXPECT_EQ(shapeText(p->parsed.options->shapes, "x"), "1x2");
    }
}

TEST(ToolOptions, DefaultsAreTrtexecs)
{
    Parsed const p = parse({"--onnx=m.onnx"});
    ASSERT_TRUE(p.parsed.options.has_value()) << p.err;
    EXPECT_EQ(p.parsed.options->iterations, 10);
    EXPECT_DOUBLE_EQ(p.parsed.options->durationSeconds, 3.0);
    EXPECT_DOUBLE_EQ(p.parsed.options->warmUpMs, 200.0);
    EXPECT_EQ(p.parsed.options->avgRuns, 10);
    EXPECT_FALSE(p.parsed.options->fp16);
    EXPECT_FALSE(p.parsed.options->builderOptimizationLevel.has_value());
}

TEST(ToolOptions, AFlagGivenTwiceTakesItsLastValue)
{
    Parsed const p = parse({"--onnx=m.onnx", "--iterations=5", "--iterations", "7", "--shapes=x:1x2", "--shapes=y:3"});
    ASSERT_TRUE(p.parsed.options.has_value()) << p.err;
    EXPECT_EQ(p.parsed.options->iterations, 7);
    EXPECT_EQ(shapeText(p.parsed.options->shapes, "x"), "1x2"); // list flags merge
    EXPECT_EQ(shapeText(p.parsed.options->shapes, "y"), "3");
}

TEST(ToolOptions, BestEnablesEveryPrecision)
{
    Parsed const p = parse({"--onnx=m.onnx", "--best"});
    ASSERT_TRUE(p.parsed.options.has_value()) << p.err;
    EXPECT_TRUE(p.parsed.options->fp16 && p.parsed.options->bf16 && p.parsed.options->int8 && p.parsed.options->fp8);
}

TEST(ToolOptions, PluginFlagsRepeat)
{
    Parsed const p = parse({"--onnx=m.onnx", "--staticPlugins=a.so", "--staticPlugins=b.so", "--dynamicPlugins=c.so"});
    ASSERT_TRUE(p.parsed.options.has_value()) << p.err;
    EXPECT_EQ(p.parsed.options->staticPlugins, (std::vector<std::string>{"a.so", "b.so"}));
    EXPECT_EQ(p.parsed.options->dynamicPlugins, (std::vector<std::string>{"c.so"}));
}

TEST(ToolOptions, PluginsIsTheDeprecatedSpellingOfStaticPlugins)
{
    Parsed const p = parse({"--onnx=m.onnx", "--staticPlugins=a.so", "--plugins=b.so", "--plugins", "c.so"});
    ASSERT_TRUE(p.parsed.options.has_value()) << p.err;
    EXPECT_EQ(p.parsed.options->staticPlugins, (std::vector<std::string>{"a.so", "b.so", "c.so"}));
}

TEST(ToolOptions, RefitStreamsAndIoFormatsAreAccepted)
{
    Parsed const p = parse({"--onnx=m.onnx", "--refit", "--streams", "4", "--inputIOFormats=fp16:chw",
        "--outputIOFormats=int32:chw,fp32:chw"});
    ASSERT_TRUE(p.parsed.options.has_value()) << p.err;
    EXPECT_TRUE(p.parsed.options->refit);
    EXPECT_EQ(p.parsed.options->streams, 4);
    EXPECT_EQ(p.parsed.options->inputFormats.size(), 1U);
    EXPECT_EQ(p.parsed.options->outputFormats.size(), 2U);
    Parsed const plain = parse({"--onnx=m.onnx"});
    ASSERT_TRUE(plain.parsed.options.has_value()) << plain.err;
    EXPECT_FALSE(plain.parsed.options->refit);
    EXPECT_EQ(plain.parsed.options->streams, 1);
    EXPECT_TRUE(plain.parsed.options->inputFormats.empty());
}

TEST(ToolOptions, HelpExitsZeroAndListsTheFlags)
{
    Parsed const p = parse({"--help"});
    EXPECT_FALSE(p.parsed.options.has_value());
    EXPECT_EQ(p.parsed.exitStatus, 0);
    for (char const* flag :
        {"--onnx", "--saveEngine", "--loadEngine", "--shapes", "--minShapes", "--fp16", "--best", "--memPoolSize",
            "--iterations", "--duration", "--warmUp", "--avgRuns", "--useCudaGraph", "--loadInputs", "--exportOutput",
            "--backend", "--staticPlugins", "--refit", "--streams", "--setPluginsToSerialize", "--allowEngineHostCode"})
    {
        EXPECT_NE(p.out.find(flag), std::string::npos) << flag << " is not in the help:\n" << p.out;
    }
}

TEST(ToolOptions, UnknownFlagsAreUsageErrors)
{
    Parsed const p = parse({"--onnx=m.onnx", "--noSuchFlag"});
    EXPECT_FALSE(p.parsed.options.has_value());
    EXPECT_EQ(p.parsed.exitStatus, 2);
    EXPECT_NE(p.err.find("--noSuchFlag"), std::string::npos) << p.err;
}

TEST(ToolOptions, BadValuesAreUsageErrorsNamingTheFlag)
{
    struct Case
    {
        std::vector<std::string> args;
        std::string message;
    };
    std::vector<Case> const cases{
        {{"--onnx=m.onnx", "--iterations=0"}, "--iterations"},
        {{"--onnx=m.onnx", "--duration=-1"}, "--duration"},
        {{"--onnx=m.onnx", "--builderOptimizationLevel=6"}, "--builderOptimizationLevel"},
        {{"--onnx=m.onnx", "--backend=tpu"}, "--backend"},
        {{"--onnx=m.onnx", "--shapes=x:1xy"}, "--shapes: 'x:1xy': 'y' is not an extent"},
        {{"--onnx=m.onnx", "--maxShapes=x"}, "--maxShapes: 'x' is not name:AxBxC"},
        {{"--onnx=m.onnx", "--memPoolSize=workspace:1X"}, "--memPoolSize: 'workspace:1X'"},
        {{"--onnx=m.onnx", "--loadInputs=x"}, "--loadInputs: 'x' is not name:file"},
        {{}, "give a model with --onnx=FILE or an engine with --loadEngine=FILE"},
        {{"--onnx=m.onnx", "--loadEngine=m.plan"}, "--onnx and --loadEngine exclude each other"},
        {{"--loadEngine=m.plan", "--saveEngine=n.plan"}, "--saveEngine saves a built engine"},
        {{"--onnx=m.onnx", "--stronglyTyped", "--fp16"}, "--stronglyTyped excludes --fp16"},
    };
    for (Case const& c : cases)
    {
        Parsed const p = parse(c.args);
        EXPECT_FALSE(p.parsed.options.has_value()) << c.message;
        EXPECT_EQ(p.parsed.exitStatus, 2) << c.message;
        EXPECT_NE(p.err.find(c.message), std::string::npos) << "expected '" << c.message << "' in: " << p.err;
    }
}

TEST(ToolOptions, PluginsToSerializeAndEngineHostCode)
{
    Parsed const p = parse({"--onnx=m.onnx", "--setPluginsToSerialize=liba.so", "--setPluginsToSerialize", "libb.so"});
    ASSERT_TRUE(p.parsed.options.has_value()) << p.err;
    EXPECT_EQ(p.parsed.options->pluginsToSerialize, (std::vector<std::string>{"liba.so", "libb.so"}));
    EXPECT_FALSE(p.parsed.options->allowEngineHostCode);
    Parsed const loaded = parse({"--loadEngine=m.plan", "--allowEngineHostCode"});
    ASSERT_TRUE(loaded.parsed.options.has_value()) << loaded.err;
    EXPECT_TRUE(loaded.parsed.options->allowEngineHostCode);
    EXPECT_TRUE(loaded.parsed.options->pluginsToSerialize.empty());
}

} // namespace
} // namespace kiln_tool_test
