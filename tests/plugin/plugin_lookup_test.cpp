// SPDX-License-Identifier: Apache-2.0
// src/plugin/plugin_lookup: the quiet look-up, the library a creator's code lives in, the plugin libraries loaded,
// the edit distance and the near-miss text that the registry, the ONNX parser and the runtime append to "not found".
#include "plugin/plugin_lookup.h"

#include "support/capture.h"
#include "support/probe_plugins.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace kiln::test
{
namespace
{

using Severity = nvinfer1::ILogger::Severity;

//! A private registry and a capturing logger (RegistryTest's) under this file's name.
class PluginLookup : public RegistryTest
{
};

TEST(EditDistance, CountsInsertionsDeletionsAndSubstitutionsIgnoringCase)
{
    EXPECT_EQ(editDistance("kitten", "sitting"), 3U);
    EXPECT_EQ(editDistance("", "abc"), 3U);
    EXPECT_EQ(editDistance("abc", ""), 3U);
    EXPECT_EQ(editDistance("Pad", "Padd"), 1U);
    EXPECT_EQ(editDistance("ROIAlign_TRT", "roialign_trt"), 0U);
    EXPECT_EQ(editDistance("ROIAlign_TRT", "RoiAlign"), 4U);
}

TEST_F(PluginLookup, FindsQuietlyWhatGetCreatorFinds)
{
    ProbeV3Creator v3{"Pad", "1", "acme"};
    ProbeV2Creator v2{"Legacy", "2", ""};
    ASSERT_TRUE(mRegistry->registerCreator(v3, "acme"));
    ASSERT_TRUE(mRegistry->registerCreator(v2, ""));
    EXPECT_EQ(findCreatorQuietly(*mRegistry, {"Pad", "1", "acme"}), &v3);
    EXPECT_EQ(findCreatorQuietly(*mRegistry, {"Legacy", "2", ""}), &v2);
    EXPECT_EQ(findCreatorQuietly(*mRegistry, {"Pad", "1", ""}), nullptr);
    EXPECT_EQ(mLog.text(Severity::kWARNING), "") << "a quiet miss logs nothing";

    std::vector<RegisteredCreator> const listed = listCreators(*mRegistry);
    ASSERT_EQ(listed.size(), 2U);
    EXPECT_EQ(listed[0].key, (PluginKey{"Pad", "1", "acme"}));
    EXPECT_EQ(listed[1].key, (PluginKey{"Legacy", "2", ""}));
}

TEST_F(PluginLookup, TheLibraryOfACreatorIsWhereItsCodeIs)
{
    ProbeV3Creator inProgram{"Pad", "1", ""};
    EXPECT_EQ(pluginLibraryOf(inProgram), "") << "the program itself is no plugin library";

    std::string const path = libraryPath("v3_library");
    auto* handle = mRegistry->loadLibrary(path.c_str());
    ASSERT_NE(handle, nullptr) << mLog.text();
    auto* fromLibrary = findCreatorQuietly(*mRegistry, {"LibV3First", "1", "kilnTest"});
    ASSERT_NE(fromLibrary, nullptr);
    EXPECT_EQ(pluginLibraryOf(*fromLibrary), path);

    std::vector<std::string> const loaded = loadedPluginLibraries(listCreators(*mRegistry));
    EXPECT_NE(std::find(loaded.begin(), loaded.end(), path), loaded.end()) << "a library holding creators";
    Dl_info kilnLibrary{};
    ASSERT_NE(dladdr(reinterpret_cast<void const*>(&getPluginRegistry), &kilnLibrary), 0);
    ASSERT_NE(kilnLibrary.dli_fname, nullptr);
    for (std::string const& library : loaded)
    {
        EXPECT_NE(library, kilnLibrary.dli_fname) << "kiln's engine library is no plugin library";
        EXPECT_EQ(library.find("libnvinfer.so"), std::string::npos) << "kiln's engine library is no plugin library";
    }
    mRegistry->deregisterLibrary(handle);
}

TEST_F(PluginLookup, ALibraryExportingGetCreatorsIsListedWithoutRegisteredCreators)
{
    // A library that exports getCreators counts as a plugin library, whether or not the creators given include its
    // own.
    std::string const path = libraryPath("v3_library");
    auto* handle = mRegistry->loadLibrary(path.c_str());
    ASSERT_NE(handle, nullptr) << mLog.text();
    std::vector<std::string> const loaded = loadedPluginLibraries({});
    EXPECT_NE(std::find(loaded.begin(), loaded.end(), path), loaded.end());
    mRegistry->deregisterLibrary(handle);
}

TEST_F(PluginLookup, NearMissesAreOrderedAndCapped)
{
    std::vector<std::unique_ptr<ProbeV3Creator>> creators;
    for (char const* version : {"2", "3", "4", "5", "6", "7"})
    {
        creators.push_back(std::make_unique<ProbeV3Creator>("Scale", version, ""));
        ASSERT_TRUE(mRegistry->registerCreator(*creators.back(), ""));
    }
    creators.push_back(std::make_unique<ProbeV3Creator>("Scaler", "1", ""));
    ASSERT_TRUE(mRegistry->registerCreator(*creators.back(), ""));
    std::string const text = describeNearMisses(*mRegistry, {"Scale", "1", ""});
    EXPECT_EQ(text.rfind("Did you mean 'Scale' version '2' namespace '' (another version) or 'Scale' version '3' "
                         "namespace '' (another version) or 'Scale' version '4' namespace '' (another version) or "
                         "'Scale' version '5' namespace '' (another version) or 'Scale' version '6' namespace '' "
                         "(another version) (2 more)?",
                  0),
        0U)
        << text;
    EXPECT_EQ(text.find("Scaler"), std::string::npos) << "the most distant ones are the ones left out";
}

TEST_F(PluginLookup, NearMissesSayWhenNothingIsNear)
{
    std::string const text = describeNearMisses(*mRegistry, {"Scale", "1", ""});
    EXPECT_EQ(text.rfind("No creator of that name or a similar one is registered (0 creators are).", 0), 0U) << text;
}

} // namespace
} // namespace kiln::test
