// SPDX-License-Identifier: Apache-2.0
// IPluginRegistry::loadLibrary / deregisterLibrary with plugin libraries built in the tree: the getCreators form,
// the deprecated getPluginCreators form (V2 and V3 creators), a library with no entry point, a missing file,
// conflicts with registered creators, and a library that registers itself statically.
#include "support/capture.h"
#include "support/probe_plugins.h"

#include <algorithm>
#include <memory>

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

namespace kiln::test
{
namespace
{

using Severity = nvinfer1::ILogger::Severity;
using nvinfer1::IPluginCreatorV3One;

class LibraryTest : public RegistryTest
{
};

TEST_F(LibraryTest, LoadsGetCreatorsLibraryAndGivesItTheLoggerFinderFirst)
{
    std::string const path = libraryPath("v3_library");
    auto* handle = mRegistry->loadLibrary(path.c_str());
    ASSERT_NE(handle, nullptr) << mLog.text();

    auto* first = static_cast<IPluginCreatorV3One*>(mRegistry->getCreator("LibV3First", "1", "kilnTest"));
    auto* second = static_cast<IPluginCreatorV3One*>(mRegistry->getCreator("LibV3Second", "2", "kilnTest"));
    ASSERT_NE(first, nullptr);
    ASSERT_NE(second, nullptr);
    EXPECT_STREQ(first->getInterfaceInfo().kind, "PLUGIN CREATOR_V3ONE");
    EXPECT_TRUE(mLog.has(Severity::kINFO, {"registered 2 creator(s)", path, "getCreators"}))
        << mLog.text(Severity::kINFO);

    // The library logs through the finder it was given, which finds kiln's current logger.
    std::unique_ptr<nvinfer1::IPluginV3> plugin{first->createPlugin("p", nullptr, nvinfer1::TensorRTPhase::kBUILD)};
    ASSERT_NE(plugin, nullptr);
    EXPECT_TRUE(mLog.has(Severity::kINFO, {"creating LibV3First through the library's logger finder"}));
    plugin.reset(); // its code lives in the library

    int32_t count = -1;
    mRegistry->getAllCreators(&count);
    EXPECT_EQ(count, 2);
    EXPECT_EQ(getPluginRegistry()->getCreator("LibV3First", "1", "kilnTest"), nullptr)
        << "a private registry's library stays out of the process-wide registry";

    mRegistry->deregisterLibrary(handle);
    EXPECT_EQ(mRegistry->getCreator("LibV3First", "1", "kilnTest"), nullptr);
    EXPECT_EQ(mRegistry->getAllCreators(&count), nullptr);
    EXPECT_EQ(count, 0);
    // The only complaints are the two misses above (TensorRT's registry reports a miss as an error).
    std::string const complaints = mLog.text(Severity::kWARNING);
    EXPECT_EQ(
        complaints.rfind("IPluginRegistry::getCreator: no creator is registered for plugin \"LibV3First\"", 0), 0U)
        << complaints;
    EXPECT_EQ(std::count(complaints.begin(), complaints.end(), '\n'), 2) << complaints; // one line each
}

TEST_F(LibraryTest, LoadsLegacyGetPluginCreatorsLibraryWithV2AndV3Creators)
{
    std::string const path = libraryPath("legacy_library");
    auto* handle = mRegistry->loadLibrary(path.c_str());
    ASSERT_NE(handle, nullptr) << mLog.text();
    EXPECT_TRUE(mLog.has(Severity::kINFO, {"registered 2 creator(s)", "getPluginCreators"}));

    nvinfer1::IPluginCreator* v2 = mRegistry->getPluginCreator("LegacyV2", "1", "");
    ASSERT_NE(v2, nullptr);
    EXPECT_STREQ(v2->getInterfaceInfo().kind, "PLUGIN CREATOR_V1");
    nvinfer1::IPluginV2* plugin = v2->createPlugin("p", nullptr);
    ASSERT_NE(plugin, nullptr);
    EXPECT_STREQ(plugin->getPluginType(), "LegacyV2");
    plugin->destroy();

    auto* v3 = mRegistry->getCreator("LegacyV3", "1", "");
    ASSERT_NE(v3, nullptr);
    EXPECT_STREQ(v3->getInterfaceInfo().kind, "PLUGIN CREATOR_V3ONE") << "told apart by kind, not by entry point";
    int32_t count = -1;
    nvinfer1::IPluginCreator* const* v2List = mRegistry->getPluginCreatorList(&count);
    ASSERT_EQ(count, 1);
    EXPECT_EQ(v2List[0], v2);

    mRegistry->deregisterLibrary(handle);
    EXPECT_EQ(mRegistry->getCreator("LegacyV3", "1", ""), nullptr);
}

TEST_F(LibraryTest, RefusesALibraryWithoutEntryPointsNamingTheSymbols)
{
    std::string const path = libraryPath("no_entry_library");
    EXPECT_EQ(mRegistry->loadLibrary(path.c_str()), nullptr);
    EXPECT_TRUE(mLog.has(Severity::kERROR,
        {"IPluginRegistry::loadLibrary", path, "exports neither the symbol getCreators nor getPluginCreators"}))
        << mLog.text();
}

TEST_F(LibraryTest, RefusesAMissingFileWithTheLoaderMessage)
{
    std::string const path = libraryPath("does_not_exist");
    EXPECT_EQ(mRegistry->loadLibrary(path.c_str()), nullptr);
    EXPECT_TRUE(mLog.has(Severity::kERROR, {"cannot load plugin library", path, "No such file"})) << mLog.text();

    EXPECT_EQ(mRegistry->loadLibrary(nullptr), nullptr);
    EXPECT_TRUE(mLog.has(Severity::kERROR, {"loadLibrary", "plugin library path is null"}));
    EXPECT_EQ(mRegistry->loadLibrary(""), nullptr);
    EXPECT_TRUE(mLog.has(Severity::kERROR, {"loadLibrary", "plugin library path is empty"}));
}

TEST_F(LibraryTest, LoadingALibraryTwiceFailsAndKeepsTheFirst)
{
    std::string const path = libraryPath("v3_library");
    auto* handle = mRegistry->loadLibrary(path.c_str());
    ASSERT_NE(handle, nullptr);
    EXPECT_EQ(mRegistry->loadLibrary(path.c_str()), nullptr);
    EXPECT_TRUE(mLog.has(Severity::kERROR,
        {path, "plugin \"LibV3First\" version \"1\" namespace \"kilnTest\"", "already registered",
            "nothing from the library was registered"}))
        << mLog.text();

    auto* first = static_cast<IPluginCreatorV3One*>(mRegistry->getCreator("LibV3First", "1", "kilnTest"));
    ASSERT_NE(first, nullptr) << "the first load is intact";
    std::unique_ptr<nvinfer1::IPluginV3> plugin{first->createPlugin("p", nullptr, nvinfer1::TensorRTPhase::kBUILD)};
    EXPECT_NE(plugin, nullptr);
    plugin.reset();
    mRegistry->deregisterLibrary(handle);
}

TEST_F(LibraryTest, ConflictWithARegisteredCreatorRegistersNothingFromTheLibrary)
{
    ProbeV3Creator mine{"LibV3Second", "2", "kilnTest"};
    ASSERT_TRUE(mRegistry->registerCreator(mine, "kilnTest"));
    EXPECT_EQ(mRegistry->loadLibrary(libraryPath("v3_library").c_str()), nullptr);
    EXPECT_TRUE(mLog.has(Severity::kERROR, {"plugin \"LibV3Second\" version \"2\"", "already registered"}));
    EXPECT_EQ(mRegistry->getCreator("LibV3First", "1", "kilnTest"), nullptr) << "all or nothing";
    EXPECT_EQ(mRegistry->getCreator("LibV3Second", "2", "kilnTest"), &mine);
}

TEST_F(LibraryTest, SeparateRegistriesCanEachLoadTheSameLibrary)
{
    nvinfer1::IPluginRegistry* other = kilnCreatePluginRegistry(nullptr);
    std::string const path = libraryPath("v3_library");
    auto* mine = mRegistry->loadLibrary(path.c_str());
    auto* theirs = other->loadLibrary(path.c_str());
    ASSERT_NE(mine, nullptr);
    ASSERT_NE(theirs, nullptr);
    kilnDestroyPluginRegistry(other); // unloads its reference; ours still works
    auto* creator = static_cast<IPluginCreatorV3One*>(mRegistry->getCreator("LibV3First", "1", "kilnTest"));
    ASSERT_NE(creator, nullptr);
    EXPECT_STREQ(creator->getPluginName(), "LibV3First");
    mRegistry->deregisterLibrary(mine);
}

TEST_F(LibraryTest, DeregisterLibraryRefusesAnUnknownHandle)
{
    int notAHandle = 0;
    mRegistry->deregisterLibrary(&notAHandle);
    EXPECT_TRUE(mLog.has(Severity::kERROR, {"IPluginRegistry::deregisterLibrary", "was not returned by loadLibrary"}))
        << mLog.text();

    auto* handle = mRegistry->loadLibrary(libraryPath("v3_library").c_str());
    ASSERT_NE(handle, nullptr);
    mRegistry->deregisterLibrary(handle);
    mLog.clear();
    mRegistry->deregisterLibrary(handle);
    EXPECT_TRUE(mLog.has(Severity::kERROR, {"deregistered already"}));
}

TEST_F(LibraryTest, CreatorsDeregisteredByHandBeforeTheLibraryAreFine)
{
    auto* handle = mRegistry->loadLibrary(libraryPath("v3_library").c_str());
    ASSERT_NE(handle, nullptr);
    auto* first = mRegistry->getCreator("LibV3First", "1", "kilnTest");
    ASSERT_TRUE(mRegistry->deregisterCreator(*first));
    mRegistry->deregisterLibrary(handle);
    EXPECT_EQ(mRegistry->getCreator("LibV3Second", "2", "kilnTest"), nullptr);
    // The one error is the miss itself (reported as TensorRT's registry reports it): nothing else went wrong.
    std::string const errors = mLog.text(Severity::kERROR);
    EXPECT_EQ(errors.rfind("IPluginRegistry::getCreator: no creator is registered for plugin \"LibV3Second\" version "
                           "\"2\" namespace \"kilnTest\". No creator of that name or a similar one is registered (0 "
                           "creators are).",
                  0),
        0U)
        << errors;
    EXPECT_EQ(std::count(errors.begin(), errors.end(), '\n'), 1) << errors;
}

TEST_F(LibraryTest, StaticallyRegisteringLibraryStaysMappedAfterDeregistration)
{
    auto* handle = mRegistry->loadLibrary(libraryPath("static_library").c_str());
    ASSERT_NE(handle, nullptr) << mLog.text();
    // REGISTER_TENSORRT_PLUGIN inside the library used getPluginRegistry() from libkiln.
    auto* creator = static_cast<IPluginCreatorV3One*>(getPluginRegistry()->getCreator("StaticV3", "1", ""));
    ASSERT_NE(creator, nullptr);
    int32_t count = -1;
    EXPECT_EQ(mRegistry->getAllCreators(&count), nullptr);
    EXPECT_EQ(count, 0);

    mRegistry->deregisterLibrary(handle);
    // The process-wide registry still points into the library, so its code must still be there.
    EXPECT_STREQ(creator->getPluginName(), "StaticV3");
    std::unique_ptr<nvinfer1::IPluginV3> plugin{creator->createPlugin("p", nullptr, nvinfer1::TensorRTPhase::kBUILD)};
    EXPECT_NE(plugin, nullptr);
}

} // namespace
} // namespace kiln::test

namespace kiln::test
{
namespace
{

TEST_F(LibraryTest, LibraryLinkedAgainstLibnvinferSo10SharesTheProcessRegistry)
{
    // The library needs libnvinfer.so.10, which is kiln's libkiln under TensorRT's name: the loader must map the
    // already-loaded libkiln, so the library's static registration lands in this process's registry.
    auto* handle = mRegistry->loadLibrary(libraryPath("tensorrt_linked_library").c_str());
    ASSERT_NE(handle, nullptr) << mLog.text();
    auto* creator = getPluginRegistry()->getCreator("LinkedV3", "1", "");
    ASSERT_NE(creator, nullptr) << "registered into another copy of the library?";
    EXPECT_STREQ(static_cast<nvinfer1::IPluginCreatorV3One*>(creator)->getPluginName(), "LinkedV3");
    mRegistry->deregisterLibrary(handle);
}

} // namespace
} // namespace kiln::test

#include <cstdlib>
#include <dlfcn.h>

namespace kiln::test
{
namespace
{

//! Whether the library at path is mapped into the process now.
bool isLoaded(std::string const& path)
{
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
    if (handle != nullptr)
    {
        dlclose(handle);
    }
    return handle != nullptr;
}

//! Whether this platform can unload the library at all: glibc never unloads one with STB_GNU_UNIQUE symbols,
//! which some toolchains give every library (a statically linked libstdc++, for one). Loads and unloads it once.
bool platformCanUnload(std::string const& path)
{
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr)
    {
        return false;
    }
    dlclose(handle);
    return !isLoaded(path);
}

struct BadLibraryCase
{
    char const* mode;
    std::vector<std::string> message;
};

class BadLibraryTest : public LibraryTest, public ::testing::WithParamInterface<BadLibraryCase>
{
};

TEST_P(BadLibraryTest, IsRefusedWholeWithAMessage)
{
    std::string const path = libraryPath("bad_library");
    bool const unloadable = platformCanUnload(path);
    setenv("KILN_TEST_BAD_LIBRARY", GetParam().mode, 1);
    EXPECT_EQ(mRegistry->loadLibrary(path.c_str()), nullptr);
    unsetenv("KILN_TEST_BAD_LIBRARY");
    std::vector<std::string> fragments = GetParam().message;
    fragments.push_back("IPluginRegistry::loadLibrary");
    fragments.push_back(path);
    EXPECT_TRUE(mLog.has(Severity::kERROR, fragments)) << mLog.text();
    EXPECT_EQ(mRegistry->getCreator("BadLibGood", "1", ""), nullptr) << "all or nothing";
    if (unloadable)
    {
        EXPECT_FALSE(isLoaded(path)) << "a refused library is unloaded again";
    }
}

INSTANTIATE_TEST_SUITE_P(Modes, BadLibraryTest,
    ::testing::Values(BadLibraryCase{"null-array", {"getCreators reported 2 creators but returned nullptr"}},
        BadLibraryCase{"negative-count", {"getCreators reported a negative creator count (-1)"}},
        BadLibraryCase{"null-creator", {"getCreators returned a null creator at index 1"}},
        BadLibraryCase{"unknown-kind", {"interface kind \"PLUGIN CREATOR_V7\""}},
        BadLibraryCase{"empty-name", {"plugin name (getPluginName()) is empty"}},
        BadLibraryCase{"twice", {"plugin \"BadLibGood\" version \"1\" namespace \"\"", "twice"}}),
    [](auto const& testInfo) {
        std::string name = testInfo.param.mode;
        std::replace(name.begin(), name.end(), '-', '_');
        return name;
    });

TEST_F(LibraryTest, AnUnusedLibraryIsUnmappedAtDeregistration)
{
    std::string const path = libraryPath("v3_library");
    if (!platformCanUnload(path))
    {
        GTEST_SKIP() << "this toolchain makes " << path << " impossible to unload (STB_GNU_UNIQUE symbols)";
    }
    auto* handle = mRegistry->loadLibrary(path.c_str());
    ASSERT_NE(handle, nullptr);
    EXPECT_TRUE(isLoaded(path));
    mRegistry->deregisterLibrary(handle);
    EXPECT_FALSE(isLoaded(path)) << "nothing refers into it, so it must not be pinned";
}

TEST_F(LibraryTest, ALibraryWhoseResourceIsStillStoredStaysMapped)
{
    std::string const path = libraryPath("v3_library");
    auto* handle = mRegistry->loadLibrary(path.c_str());
    ASSERT_NE(handle, nullptr);
    void* self = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
    ASSERT_NE(self, nullptr);
    auto* makeResource = reinterpret_cast<nvinfer1::IPluginResource* (*)()>(dlsym(self, "kilnTestLibraryResource"));
    ASSERT_NE(makeResource, nullptr);
    // The stored clone's code is in the library.
    ASSERT_NE(mRegistry->acquirePluginResource("fromLibrary", makeResource()), nullptr);
    dlclose(self);

    mRegistry->deregisterLibrary(handle);
    EXPECT_TRUE(isLoaded(path)) << "unmapping it would leave the stored resource's code dangling";
    EXPECT_EQ(mRegistry->releasePluginResource("fromLibrary"), 0);
}

//! A logger that uses the registry from inside log(), as an application's logger may.
class ReentrantLogger final : public nvinfer1::ILogger
{
public:
    explicit ReentrantLogger(nvinfer1::IPluginRegistry* registry)
        : mRegistry(registry)
    {
        kilnSetLogger(this);
    }
    ~ReentrantLogger() override { kilnSetLogger(nullptr); }

    void log(Severity, char const*) noexcept override
    {
        int32_t count = 0;
        mRegistry->getAllCreators(&count);
        ++mCalls;
    }

    std::atomic<int> mCalls{0};

private:
    nvinfer1::IPluginRegistry* mRegistry;
};

TEST_F(LibraryTest, ALoggerMayCallTheRegistryWhileItIsReporting)
{
    ReentrantLogger logger{mRegistry};
    std::string const path = libraryPath("v3_library");
    auto* handle = mRegistry->loadLibrary(path.c_str()); // logs its success
    ASSERT_NE(handle, nullptr);
    EXPECT_EQ(mRegistry->loadLibrary(path.c_str()), nullptr); // logs a refusal
    ProbeV3Creator duplicate{"LibV3First", "1", "kilnTest"};
    EXPECT_FALSE(mRegistry->registerCreator(duplicate, "kilnTest"));
    EXPECT_GE(logger.mCalls, 3);
    mRegistry->deregisterLibrary(handle);
}

} // namespace
} // namespace kiln::test
