// SPDX-License-Identifier: Apache-2.0
// `kiln inspect` (kiln_tool::runInspect): a plan with a plugin (its tensors, profile, memory, layers and plugin
// inventory), ONNX models (parsed, and refused with the node named), a plugin library (its creators and fields), in
// text and as JSON; and its usage errors.
#include "inspect.h"
#include "tool_test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

namespace kiln_tool_test
{
namespace
{

using nlohmann::json;

struct InspectRun
{
    int status{-1};
    std::string out;
    std::string err;
};

InspectRun inspect(std::vector<std::string> const& args)
{
    std::ostringstream out;
    std::ostringstream err;
    InspectRun run;
    run.status = kiln_tool::runInspect(args, out, err);
    run.out = out.str();
    run.err = err.str();
    return run;
}

std::string const kPlugins = std::string("--staticPlugins=") + KILN_TOOL_TEST_PLUGINS;

class Inspect : public testing::Test
{
protected:
    //! A plan of the plugin model (X [N, 4], N in 1..3, opt 2), built with the test plugin library.
    std::string pluginPlan()
    {
        writePluginModel(mDir / "plugin.onnx");
        std::string const plan = (mDir / "plugin.plan").string();
        ToolRun const built = runTool({"--onnx=" + (mDir / "plugin.onnx").string(), "--minShapes=X:1x4",
            "--optShapes=X:2x4", "--maxShapes=X:3x4", "--saveEngine=" + plan, "--skipInference", kPlugins});
        EXPECT_EQ(built.result.exitStatus, 0) << built.err;
        return plan;
    }

    ScratchDir mDir;
};

TEST_F(Inspect, APlanListsItsTensorsProfilesMemoryLayersAndPluginInventory)
{
    std::string const plan = pluginPlan();
    InspectRun const run = inspect({plan, kPlugins, "--json"});
    ASSERT_EQ(run.status, 0) << run.err;
    json const r = json::parse(run.out);
    EXPECT_EQ(r["kind"], "plan");
    ASSERT_EQ(r["tensors"].size(), 2U);
    EXPECT_EQ(r["tensors"][0]["name"], "X");
    EXPECT_EQ(r["tensors"][0]["mode"], "input");
    EXPECT_EQ(r["tensors"][0]["type"], "FP32");
    EXPECT_EQ(r["tensors"][0]["shape"], json::array({-1, 4}));
    ASSERT_EQ(r["profiles"].size(), 1U);
    json const& input = r["profiles"][0]["inputs"][0];
    EXPECT_EQ(input["min"], json::array({1, 4}));
    EXPECT_EQ(input["opt"], json::array({2, 4}));
    EXPECT_EQ(input["max"], json::array({3, 4}));
    EXPECT_GE(r["deviceMemoryBytes"].get<int64_t>(), 0);
    ASSERT_EQ(r["plugins"].size(), 1U);
    json const& plugin = r["plugins"][0];
    EXPECT_EQ(plugin["name"], "KilnToolDouble");
    EXPECT_EQ(plugin["version"], "1");
    EXPECT_EQ(plugin["namespace"], "");
    EXPECT_EQ(plugin["interface"], "IPluginV3");
    EXPECT_EQ(plugin["libraryInPlan"], false);
    EXPECT_EQ(plugin["layers"].size(), 1U);
    ASSERT_FALSE(r["layerDetails"].empty());

    InspectRun const text = inspect({plan, kPlugins});
    ASSERT_EQ(text.status, 0) << text.err;
    for (char const* line : {"  input X: FP32 -1x4, ", "    X: min 1x4, opt 2x4, max 3x4",
             "  KilnToolDouble version 1 namespace \"\" (IPluginV3), 1 layers; its library does not travel"})
    {
        EXPECT_NE(text.out.find(line), std::string::npos) << line << "\n" << text.out;
    }
}

TEST_F(Inspect, APlanWhosePluginLibraryIsNotLoadedIsRefusedSayingWhatItNeeds)
{
    std::string const plan = pluginPlan();
    // The library stays loaded in this process once loaded; a fresh process shows the refusal.
    ProcessRun const run = runBinary({"inspect", plan}, mDir / "stderr.txt");
    EXPECT_EQ(run.status, 1);
    EXPECT_NE(run.err.find("KilnToolDouble"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("is not a plan kiln can load"), std::string::npos) << run.err;
}

TEST_F(Inspect, AnOnnxModelListsItsIoLayersAndPluginNodes)
{
    writeDenseModel(mDir / "dense.onnx");
    InspectRun const run = inspect({(mDir / "dense.onnx").string(), "--json"});
    ASSERT_EQ(run.status, 0) << run.err;
    json const r = json::parse(run.out);
    EXPECT_EQ(r["kind"], "onnx");
    EXPECT_EQ(r["inputs"][0]["name"], "X");
    EXPECT_EQ(r["inputs"][0]["shape"], json::array({-1, 4}));
    EXPECT_EQ(r["outputs"][0]["name"], "Y");
    EXPECT_EQ(r["layersByType"]["kMATRIX_MULTIPLY"], 1);
    EXPECT_EQ(r["layersByType"]["kACTIVATION"], 1);
    EXPECT_TRUE(r["plugins"].empty());

    writePluginModel(mDir / "plugin.onnx");
    InspectRun const withPlugin = inspect({(mDir / "plugin.onnx").string(), kPlugins});
    ASSERT_EQ(withPlugin.status, 0) << withPlugin.err;
    EXPECT_NE(
        withPlugin.out.find("KilnToolDouble version 1 namespace \"\" (IPluginV3), nodes: double"), std::string::npos)
        << withPlugin.out;
    EXPECT_NE(withPlugin.out.find("  kPLUGIN_V3: 1"), std::string::npos) << withPlugin.out;
}

TEST_F(Inspect, AModelTheParserRefusesListsItsErrorsWithTheirNodes)
{
    writeBrokenModel(mDir / "broken.onnx");
    InspectRun const run = inspect({(mDir / "broken.onnx").string(), "--json"});
    EXPECT_EQ(run.status, 1);
    json const r = json::parse(run.out);
    EXPECT_EQ(r["parsed"], false);
    ASSERT_FALSE(r["errors"].empty());
    EXPECT_EQ(r["errors"][0]["nodeName"], "mystery_node");
    EXPECT_EQ(r["errors"][0]["operator"], "NoSuchOperator");
}

TEST_F(Inspect, APluginLibraryListsItsCreatorsAndTheirFields)
{
    InspectRun const run = inspect({KILN_TOOL_TEST_PLUGINS, "--json"});
    ASSERT_EQ(run.status, 0) << run.err;
    json const r = json::parse(run.out);
    EXPECT_EQ(r["kind"], "library");
    EXPECT_NE(std::find(r["entryPoints"].begin(), r["entryPoints"].end(), "getCreators"), r["entryPoints"].end());
    EXPECT_EQ(r["creatorsFrom"], "getCreators");
    ASSERT_EQ(r["creators"].size(), 1U);
    EXPECT_EQ(r["creators"][0]["name"], "KilnToolDouble");
    EXPECT_EQ(r["creators"][0]["interface"], "PLUGIN CREATOR_V3ONE 1.0");
    InspectRun const text = inspect({KILN_TOOL_TEST_PLUGINS});
    EXPECT_NE(text.out.find("KilnToolDouble version 1 namespace \"\" (PLUGIN CREATOR_V3ONE 1.0)"), std::string::npos)
        << text.out;
}

TEST_F(Inspect, BadFilesAndFlagsAreRefused)
{
    writeRaw(mDir / "garbage.plan", std::vector<char>{'n', 'o', 'p', 'e'});
    InspectRun const garbage = inspect({(mDir / "garbage.plan").string()});
    EXPECT_EQ(garbage.status, 1);
    EXPECT_NE(garbage.err.find("is not a plan kiln can load"), std::string::npos) << garbage.err;
    InspectRun const missing = inspect({(mDir / "missing.plan").string()});
    EXPECT_EQ(missing.status, 1);
    EXPECT_NE(missing.err.find("missing.plan"), std::string::npos) << missing.err;
    EXPECT_EQ(inspect({}).status, 2);
    EXPECT_EQ(inspect({"x.plan", "--noSuchFlag"}).status, 2);
    ProcessRun const viaBinary = runBinary({"inspect", "--help"}, mDir / "stderr.txt");
    EXPECT_EQ(viaBinary.status, 0);
    EXPECT_NE(viaBinary.out.find("--json"), std::string::npos) << viaBinary.out;
}

} // namespace
} // namespace kiln_tool_test
