// SPDX-License-Identifier: Apache-2.0
// What the parser says about plugins beyond importing them: the plugin libraries the parsed network's plugins come
// from (IParser::getUsedVCPluginLibraries), the near misses named when a node's plugin is missing, and a warning for
// everything of a plugin node it ignores or passes differently from what the creator declares.
#include "model_builder.h"
#include "plugin_models.h"
#include "test_plugins.h"

#include "NvInfer.h"
#include "NvOnnxParser.h"
#include "kiln/kiln.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace kiln::onnx_test
{
namespace
{

using Severity = nvinfer1::ILogger::Severity;
using nvonnxparser::OnnxParserFlag;

std::vector<std::string> usedLibraries(Harness const& h)
{
    int64_t count = -1;
    char const* const* paths = h.mParser->getUsedVCPluginLibraries(count);
    EXPECT_GE(count, 0);
    EXPECT_EQ(paths == nullptr, count == 0);
    std::vector<std::string> listed;
    for (int64_t i = 0; paths != nullptr && i < count; ++i)
    {
        listed.emplace_back(paths[i]);
    }
    return listed;
}

//! The parser's warnings, without the "[kiln onnx] " prefix.
std::vector<std::string> warnings(Harness const& h)
{
    std::vector<std::string> found;
    for (std::string const& message : h.mLogger.find("[kiln onnx] ", Severity::kWARNING))
    {
        found.push_back(message.substr(std::string("[kiln onnx] ").size()));
    }
    return found;
}

//! A plugin library loaded into the process-wide registry for one test. kiln logs through the logger of the last
//! builder made, which an earlier test's harness may have destroyed: the library installs its own while it loads
//! and unloads.
class LoadedLibrary
{
public:
    explicit LoadedLibrary(char const* path)
    {
        kilnSetLogger(&mLogger);
        mHandle = getPluginRegistry()->loadLibrary(path);
    }
    ~LoadedLibrary()
    {
        kilnSetLogger(&mLogger);
        if (mHandle != nullptr)
        {
            getPluginRegistry()->deregisterLibrary(mHandle);
        }
        kilnSetLogger(nullptr);
    }
    LoadedLibrary(LoadedLibrary const&) = delete;
    LoadedLibrary& operator=(LoadedLibrary const&) = delete;
    bool ok() const { return mHandle != nullptr; }

private:
    CollectingLogger mLogger;
    nvinfer1::IPluginRegistry::PluginLibraryHandle mHandle{};
};

// ---- IParser::getUsedVCPluginLibraries ----

//! RoiAlign (ROIAlign_TRT) and DeformConv (ModulatedDeformConv2d): kiln's standard plugins.
ModelBuilder standardPluginModel()
{
    ModelBuilder m(19);
    m.input("X", {1, 1, 4, 4});
    m.initializer(floatTensor("rois", {1, 4}, {0.0F, 0.0F, 4.0F, 4.0F}));
    m.initializer(int64Tensor("batch", {1}, {0}));
    auto& roi = m.node("RoiAlign", {"X", "rois", "batch"}, {"R"}, "roi");
    attrInt(roi, "output_height", 1);
    attrInt(roi, "output_width", 1);
    m.initializer(floatTensor("W", {1, 1, 1, 1}, {2.0F}));
    m.initializer(floatTensor("offset", {1, 2, 4, 4}, std::vector<float>(32, 0.0F)));
    m.node("DeformConv", {"X", "W", "offset"}, {"D"}, "deform");
    m.output("R");
    m.output("D");
    return m;
}

TEST(UsedPluginLibraries, StandardPluginImportersListTheStandardPluginLibrary)
{
    Harness h;
    ASSERT_TRUE(h.parse(standardPluginModel())) << h.errors();
    std::vector<std::string> const used = usedLibraries(h);
    ASSERT_EQ(used.size(), 1U) << "both plugins come from one library, listed once";
    EXPECT_TRUE(std::filesystem::path(used[0]).is_absolute()) << used[0];
    EXPECT_TRUE(std::filesystem::exists(used[0])) << used[0];
    // It is the library loaded in the process that defines initLibNvInferPlugins.
    void* handle = dlopen(used[0].c_str(), RTLD_LAZY | RTLD_NOLOAD);
    ASSERT_NE(handle, nullptr) << used[0] << " is not loaded";
    EXPECT_NE(dlsym(handle, "initLibNvInferPlugins"), nullptr);
    dlclose(handle);
}

TEST(UsedPluginLibraries, APluginFromALoadedLibraryListsThatLibrary)
{
    LoadedLibrary library(KILN_TEST_ONNX_PLUGIN_LIBRARY);
    ASSERT_TRUE(library.ok());
    {
        ModelBuilder m = unaryModel("KTestFromLibrary");
        attrString(node(m), "plugin_namespace", "kiln.onnx.lib");
        attrFloat(node(m), "scale", 2.0F);
        Harness h;
        ASSERT_TRUE(h.parse(m)) << h.errors();
        EXPECT_EQ(usedLibraries(h), std::vector<std::string>{KILN_TEST_ONNX_PLUGIN_LIBRARY});

        // Another parser lists only what its own parse used.
        Harness again;
        ASSERT_TRUE(again.parse(unaryModel("Relu"))) << again.errors();
        EXPECT_TRUE(usedLibraries(again).empty());
    }
}

TEST(UsedPluginLibraries, APluginRegisteredByTheProgramListsNoLibrary)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KTestInProgram");
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    Harness h;
    ASSERT_TRUE(h.parse(unaryModel("KTestInProgram"))) << h.errors();
    EXPECT_TRUE(usedLibraries(h).empty());
}

// ---- A missing plugin names the near misses and the loaded plugin libraries ----

TEST(MissingPluginNearMiss, TheErrorNamesOtherVersionsSimilarNamesAndLibraries)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 otherVersion(log, "KTestNeer", "2");
    TestCreatorV3 similarName(log, "KTestNear");
    Registration first(otherVersion, "");
    Registration second(similarName, "");
    ASSERT_TRUE(first.ok() && second.ok());
    LoadedLibrary library(KILN_TEST_ONNX_PLUGIN_LIBRARY);
    ASSERT_TRUE(library.ok());

    Harness h;
    EXPECT_FALSE(h.parse(unaryModel("KTestNeer")));
    ASSERT_NE(h.firstError(), nullptr);
    std::string const desc = h.firstError()->desc();
    EXPECT_NE(desc.find("none is registered as plugin \"KTestNeer\" version \"1\" namespace \"\""), std::string::npos)
        << desc;
    EXPECT_NE(desc.find("Did you mean 'KTestNeer' version '2' namespace '' (another version) or 'KTestNear' version "
                        "'1' namespace '' (a similar name)?"),
        std::string::npos)
        << desc;
    std::size_t const libraries = desc.find("Plugin libraries loaded: ");
    ASSERT_NE(libraries, std::string::npos) << desc;
    EXPECT_NE(desc.find(KILN_TEST_ONNX_PLUGIN_LIBRARY, libraries), std::string::npos) << desc;
    // The parser probes the registry quietly: no "not found" from the registry itself.
    EXPECT_TRUE(h.mLogger.find("IPluginRegistry::getCreator").empty()) << h.mLogger.all();
}

TEST(MissingPluginNearMiss, AnOpKilnCannotImportNamesThemToo)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 otherVersion(log, "Bernoulli", "2");
    Registration reg(otherVersion, "");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m = unaryModel("Bernoulli");
    Harness h;
    EXPECT_FALSE(h.parse(m));
    ASSERT_NE(h.firstError(), nullptr);
    EXPECT_NE(std::string(h.firstError()->desc())
                  .find("plugin_namespace attribute or the parser has OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE. Did you "
                        "mean 'Bernoulli' version '2' namespace '' (another version)?"),
        std::string::npos)
        << h.errors();
}

// ---- Nothing a plugin node carries is dropped silently ----

TEST(PluginWarnings, PluginAttributesOfANodeImportedByKilnAreIgnoredWithAWarning)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 nearMiss(log, "Relu", "3", "acme");
    Registration reg(nearMiss, "acme");
    ASSERT_TRUE(reg.ok());
    {
        // Asked for a plugin (plugin_namespace), but none of that version is registered: kiln's Relu is used.
        ModelBuilder m = unaryModel("Relu");
        attrString(node(m), "plugin_version", "2");
        attrString(node(m), "plugin_namespace", "acme");
        Harness h;
        ASSERT_TRUE(h.parse(m)) << h.errors();
        EXPECT_EQ(h.layers(nvinfer1::LayerType::kACTIVATION).size(), 1U);
        std::string const why = "is ignored: no creator is registered as plugin \"Relu\" version \"2\" namespace "
                                "\"acme\" nor under namespace \"\" (the node's domain). Did you mean 'Relu' version "
                                "'3' namespace 'acme' (another version)?";
        std::vector<std::string> const all = warnings(h);
        ASSERT_EQ(all.size(), 2U) << h.mLogger.all();
        EXPECT_EQ(
            all[0].rfind("node p is imported as kiln's Relu importer; its attribute plugin_version (\"2\") " + why, 0),
            0U)
            << all[0];
        EXPECT_EQ(
            all[1].rfind(
                "node p is imported as kiln's Relu importer; its attribute plugin_namespace (\"acme\") " + why, 0),
            0U)
            << all[1];
    }
    {
        // Not asked for: without plugin_namespace or the override flag, plugin_version alone selects nothing.
        ModelBuilder m = unaryModel("Relu");
        attrString(node(m), "plugin_version", "3");
        Harness h;
        ASSERT_TRUE(h.parse(m)) << h.errors();
        EXPECT_EQ(warnings(h),
            std::vector<std::string>{"node p is imported as kiln's Relu importer; its attribute plugin_version (\"3\") "
                                     "is ignored: a plugin replaces an op kiln imports only when the node has a "
                                     "plugin_namespace attribute or the parser has "
                                     "OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE"})
            << h.mLogger.all();
    }
}

TEST(PluginWarnings, ANamespaceThatFellBackToTheDomainIsNamed)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(log, "KTestDomainWarn", "1", "com.acme");
    Registration reg(creator, "com.acme");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m = unaryModel("KTestDomainWarn", "com.acme");
    m.opset_import("com.acme", 1);
    attrString(node(m), "plugin_namespace", "other");
    attrFloat(node(m), "scale", 1.0F);
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    EXPECT_EQ(warnings(h),
        std::vector<std::string>{"node p: attribute plugin_namespace (\"other\") is ignored: no creator is registered "
                                 "under that namespace, so kiln uses the one registered under the node's domain, "
                                 "plugin \"KTestDomainWarn\" version \"1\" namespace \"com.acme\""})
        << h.mLogger.all();

    // Without the attribute, the domain is where the plugin is expected: nothing to warn about.
    ModelBuilder plain = unaryModel("KTestDomainWarn", "com.acme");
    plain.opset_import("com.acme", 1);
    attrFloat(node(plain), "scale", 1.0F);
    Harness quiet;
    ASSERT_TRUE(quiet.parse(plain)) << quiet.errors();
    EXPECT_TRUE(warnings(quiet).empty()) << quiet.mLogger.all();
}

TEST(PluginWarnings, AnAttributeThatIsNoFieldIsIgnoredWithAWarning)
{
    auto log = std::make_shared<CreatorLog>();
    TestCreatorV3 creator(
        log, "KTestUndeclared", "1", "", {{"scale", PluginFieldType::kFLOAT32}, {"count", PluginFieldType::kINT32}});
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m = unaryModel("KTestUndeclared");
    attrFloat(node(m), "scale", 1.0F);
    attrInt(node(m), "count", 2);
    attrInt(node(m), "extra", 9);
    attrString(node(m), "plugin_version", "1");  // read by the parser itself
    attrString(node(m), "plugin_namespace", ""); // so is this
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    ASSERT_EQ(log->builds.size(), 1U);
    EXPECT_EQ(log->builds[0].fieldNames(), (std::vector<std::string>{"scale", "count"}));
    EXPECT_EQ(warnings(h),
        std::vector<std::string>{
            "node p: attribute 'extra' is ignored: it is not a field of plugin \"KTestUndeclared\" "
            "version \"1\" namespace \"\" (its creator declares scale, count)"})
        << h.mLogger.all();
}

TEST(PluginWarnings, AnAttributeOfAnotherTypeThanItsFieldIsPassedAsItIsWithAWarning)
{
    auto log = std::make_shared<CreatorLog>();
    using T = PluginFieldType;
    TestCreatorV3 creator(log, "KTestTypes", "1", "",
        {{"scale", T::kFLOAT16}, {"count", T::kINT64}, {"weights", T::kFLOAT64}, {"label", T::kCHAR},
            {"any", T::kUNKNOWN}});
    Registration reg(creator, "");
    ASSERT_TRUE(reg.ok());
    ModelBuilder m = unaryModel("KTestTypes");
    attrFloat(node(m), "scale", 1.0F);
    attrInt(node(m), "count", 3);
    attrTensor(node(m), "weights", rawTensor("", ::onnx::TensorProto::DOUBLE, {2}, std::vector<double>{1.5, -2.0}));
    attrString(node(m), "label", "ok"); // the declared type: no warning
    attrInts(node(m), "any", {1, 2});   // kUNKNOWN declares no type: no warning
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    ASSERT_EQ(log->builds.size(), 1U);
    CreateCall const& call = log->builds[0];
    ASSERT_NE(call.field("count"), nullptr);
    EXPECT_EQ(call.field("count")->type, T::kINT32) << "passed as TensorRT's parser passes it";
    ASSERT_NE(call.field("weights"), nullptr);
    EXPECT_EQ(call.field("weights")->type, T::kFLOAT32);
    std::string const plugin = "plugin \"KTestTypes\" version \"1\" namespace \"\"";
    EXPECT_EQ(warnings(h),
        (std::vector<std::string>{
            "node p: attribute 'scale' (FLOAT) is passed to field 'scale' as kFLOAT32 (as is), but the creator of "
                + plugin + " declares the field kFLOAT16",
            "node p: attribute 'count' (INT) is passed to field 'count' as kINT32 (each value narrowed from int64 to "
            "int32), but the creator of "
                + plugin + " declares the field kINT64",
            "node p: attribute 'weights' (TENSOR) is passed to field 'weights' as kFLOAT32 (converted from DOUBLE to "
            "float), but the creator of "
                + plugin + " declares the field kFLOAT64"}))
        << h.mLogger.all();
}

} // namespace
} // namespace kiln::onnx_test
