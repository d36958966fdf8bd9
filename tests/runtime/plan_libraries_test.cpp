// SPDX-License-Identifier: Apache-2.0
// Plans that carry their plugin libraries (IBuilderConfig::setPluginsToSerialize), through libkiln's public API. The
// plans are built here, where the example IdentityConv library (examples/onnx_identity_conv's sources, built here under
// its file name) is loaded for the build as TensorRT's documentation says; they are loaded in kiln_plan_library_child
// (plan_libraries_child.cpp), a process that never loaded the library: with host code allowed it runs from an in-memory
// file and its creator is deregistered after the engine; without it, or with the library's bytes corrupted, the plan is
// refused with a message that names the library; a creator the application registered is used instead of the library's,
// and the log says so. Builds that cannot carry a library fail, naming it.
#include "support/api_test.h"
#include "support/hostile_crc64.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

namespace kiln::test
{
namespace
{

namespace fs = std::filesystem;
using namespace nvinfer1;

constexpr char const* kLibrary = KILN_IDENTITY_CONV_PLUGIN;
constexpr char const* kLibraryName = "libkiln_identity_conv_plugin.so";

void storeLittle(uint8_t* at, uint64_t value)
{
    for (int i = 0; i < 8; ++i)
    {
        at[i] = static_cast<uint8_t>(value >> (8 * i));
    }
}

std::vector<uint8_t> readBytes(fs::path const& path)
{
    std::ifstream file(path, std::ios::binary);
    return std::vector<uint8_t>{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

void writeBytes(fs::path const& path, void const* data, std::size_t size)
{
    std::ofstream file(path, std::ios::binary);
    file.write(static_cast<char const*>(data), static_cast<std::streamsize>(size));
}

//! Where needle starts in haystack, or -1.
int64_t find(std::vector<uint8_t> const& haystack, std::vector<uint8_t> const& needle)
{
    auto const at = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end());
    return at == haystack.end() ? -1 : at - haystack.begin();
}

struct ChildRun
{
    int status{-1};
    std::string output; //!< stdout and stderr
};

//! kiln_plan_library_child with args, its output captured.
ChildRun runChild(std::vector<std::string> const& args)
{
    std::string command = std::string("'") + KILN_PLAN_LIBRARY_CHILD + "'";
    for (std::string const& arg : args)
    {
        command += " '" + arg + "'";
    }
    command += " 2>&1";
    ChildRun run;
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr)
    {
        return run;
    }
    char buffer[4096];
    std::size_t count = 0;
    while ((count = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0)
    {
        run.output.append(buffer, count);
    }
    int const status = pclose(pipe);
    run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return run;
}

std::size_t occurrences(std::string const& text, std::string const& part)
{
    std::size_t count = 0;
    for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
    {
        ++count;
    }
    return count;
}

//! How many lines of /proc/self/maps name path.
std::size_t mappedFrom(std::string const& path)
{
    std::ifstream maps("/proc/self/maps");
    std::size_t count = 0;
    for (std::string line; std::getline(maps, line);)
    {
        count += line.find(path) != std::string::npos ? 1 : 0;
    }
    return count;
}

#define EXPECT_CONTAINS(text, part)                                                                                    \
    EXPECT_NE((text).find(part), std::string::npos) << "missing: " << (part) << "\n" << (text)

//! The IdentityConv library loaded for builds, once per process, as an application building with it would.
void loadLibraryForBuilds()
{
    static bool const loaded = getPluginRegistry()->loadLibrary(kLibrary) != nullptr;
    ASSERT_TRUE(loaded);
}

class PlanLibraries : public ApiTest
{
protected:
    void SetUp() override
    {
        ApiTest::SetUp();
        loadLibraryForBuilds();
        testing::TestInfo const* test = testing::UnitTest::GetInstance()->current_test_info();
        mDir = fs::temp_directory_path() / ("kiln_plan_libraries_" + std::to_string(getpid()) + "_" + test->name());
        fs::remove_all(mDir);
        fs::create_directories(mDir);
    }
    void TearDown() override
    {
        fs::remove_all(mDir);
        ApiTest::TearDown();
    }

    //! The plan of X [2, 3, 8, 8] -> IdentityConv -> Y carrying libraries; empty when the build fails.
    std::vector<uint8_t> buildPlan(std::vector<std::string> const& libraries)
    {
        int32_t const kernelShape[] = {1, 1};
        int32_t const strides[] = {1, 1};
        int32_t const pads[] = {0, 0, 0, 0};
        int32_t const group = 3;
        PluginField const attributes[] = {PluginField("kernel_shape", kernelShape, PluginFieldType::kINT32, 2),
            PluginField("strides", strides, PluginFieldType::kINT32, 2),
            PluginField("pads", pads, PluginFieldType::kINT32, 4),
            PluginField("group", &group, PluginFieldType::kINT32, 1)};
        PluginFieldCollection const fields{4, attributes};
        auto* creator = static_cast<IPluginCreatorV3One*>(getPluginRegistry()->getCreator("IdentityConv", "1", ""));
        EXPECT_NE(creator, nullptr);
        if (creator == nullptr)
        {
            return {};
        }
        std::unique_ptr<IPluginV3> plugin{creator->createPlugin("identity_conv", &fields, TensorRTPhase::kBUILD)};
        static float const ones[] = {1.0F, 1.0F, 1.0F};
        ITensor* x = mNetwork->addInput("X", DataType::kFLOAT, dims({2, 3, 8, 8}));
        ITensor* w = mNetwork->addConstant(dims({3, 1, 1, 1}), Weights{DataType::kFLOAT, ones, 3})->getOutput(0);
        ITensor* inputs[] = {x, w};
        IPluginV3Layer* layer = mNetwork->addPluginV3(inputs, 2, nullptr, 0, *plugin);
        EXPECT_NE(layer, nullptr);
        if (layer == nullptr)
        {
            return {};
        }
        layer->getOutput(0)->setName("Y");
        mNetwork->markOutput(*layer->getOutput(0));
        std::unique_ptr<IBuilderConfig> config{mBuilder->createBuilderConfig()};
        std::vector<char const*> paths;
        for (std::string const& library : libraries)
        {
            paths.push_back(library.c_str());
        }
        config->setPluginsToSerialize(paths.data(), static_cast<int32_t>(paths.size()));
        std::unique_ptr<IHostMemory> plan{mBuilder->buildSerializedNetwork(*mNetwork, *config)};
        if (plan == nullptr)
        {
            return {};
        }
        auto const* bytes = static_cast<uint8_t const*>(plan->data());
        return std::vector<uint8_t>(bytes, bytes + plan->size());
    }

    //! plan written to the scratch folder, for a child.
    std::string save(std::vector<uint8_t> const& plan, std::string const& name = "model.plan")
    {
        fs::path const path = mDir / name;
        writeBytes(path, plan.data(), plan.size());
        return path.string();
    }

    fs::path mDir;
};

TEST_F(PlanLibraries, ThePlanCarriesTheLibraryWithItsCreators)
{
    std::vector<uint8_t> const plan = buildPlan({kLibrary});
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    EXPECT_GE(find(plan, readBytes(kLibrary)), 0) << "the library's bytes are in the plan";
    EXPECT_CONTAINS(mLogger.all(),
        std::string("the plan carries plugin library \"") + kLibraryName
            + "\" (plugin \"IdentityConv\" version \"1\" namespace \"\")");
    mLogger.clear();

    // Here the application registered IdentityConv (it built with it): no host code is needed, nothing is loaded.
    std::unique_ptr<IRuntime> runtime{createInferRuntime(mLogger)};
    std::unique_ptr<ICudaEngine> engine{runtime->deserializeCudaEngine(plan.data(), plan.size())};
    ASSERT_NE(engine, nullptr) << mLogger.all();
    std::string const log = mLogger.all();
    EXPECT_CONTAINS(log,
        "plugin \"IdentityConv\" version \"1\" namespace \"\": the creator registered before the "
        "engine was loaded (by the application) is used, not the one of the plan's plugin library \""
            + std::string(kLibraryName) + "\"");
    EXPECT_CONTAINS(log,
        std::string("the plan's plugin library \"") + kLibraryName
            + "\" is not loaded: every creator it provides is registered already");

    std::unique_ptr<IEngineInspector> inspector{engine->createEngineInspector()};
    std::string const json = inspector->getEngineInformation(LayerInformationFormat::kJSON);
    EXPECT_CONTAINS(json,
        std::string("\"PluginLibraries\": [{\"Name\": \"") + kLibraryName
            + "\", \"Bytes\": " + std::to_string(readBytes(kLibrary).size()) + ", \"Checksum\": \"0x");
    EXPECT_CONTAINS(json,
        "\"Loaded\": false, \"Creators\": [{\"Name\": \"IdentityConv\", \"Version\": \"1\", "
        "\"Namespace\": \"\", \"Interface\": \"IPluginV3\", \"UsedCreator\": \"registered\"}]}]");

    // The engine serialized again still carries the library.
    std::unique_ptr<IHostMemory> again{engine->serialize()};
    ASSERT_NE(again, nullptr);
    auto const* bytes = static_cast<uint8_t const*>(again->data());
    EXPECT_GE(find(std::vector<uint8_t>(bytes, bytes + again->size()), readBytes(kLibrary)), 0);
}

TEST_F(PlanLibraries, RunsInAProcessThatNeverLoadedTheLibrary)
{
    std::vector<uint8_t> const plan = buildPlan({kLibrary});
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    ChildRun const run = runChild({"run", save(plan)});
    EXPECT_EQ(run.status, 0) << run.output;
    EXPECT_CONTAINS(run.output, "CHILD OK");
    EXPECT_CONTAINS(run.output, std::string("loaded the plan's plugin library \"") + kLibraryName + "\"");
    EXPECT_CONTAINS(run.output, "from an in-memory file");
    EXPECT_CONTAINS(run.output,
        std::string("plugin \"IdentityConv\" version \"1\" namespace \"\": registered the "
                    "creator of the plan's plugin library \"")
            + kLibraryName + "\"");
    EXPECT_CONTAINS(run.output, "\"Loaded\": true");
    EXPECT_CONTAINS(run.output, "\"UsedCreator\": \"plan\"");
    EXPECT_CONTAINS(run.output,
        std::string("the plan's plugin library \"") + kLibraryName
            + "\" is no longer used by any engine: its 1 creator(s) deregistered and the library closed");
}

TEST_F(PlanLibraries, WithoutHostCodeTheRuntimeRefusesNamingTheLibraryAndTheSetting)
{
    std::vector<uint8_t> const plan = buildPlan({kLibrary});
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    ChildRun const run = runChild({"refuse", save(plan)});
    EXPECT_EQ(run.status, 0) << run.output;
    EXPECT_CONTAINS(run.output, "CHILD OK");
    EXPECT_CONTAINS(run.output,
        std::string("IRuntime::deserializeCudaEngine: network \"Unnamed Network 0\": the plan carries plugin libraries "
                    "whose creators are not registered: \"")
            + kLibraryName + "\" (plugin \"IdentityConv\" version \"1\" namespace \"\")");
    EXPECT_CONTAINS(run.output, "call IRuntime::setEngineHostCodeAllowed(true) to allow it");
}

TEST_F(PlanLibraries, ACorruptedLibraryIsRefusedBeforeItIsLoaded)
{
    std::vector<uint8_t> plan = buildPlan({kLibrary});
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    // One bit of the library flipped; the plan's payload and header checksums fixed up, as a hostile writer would.
    int64_t const at = find(plan, readBytes(kLibrary));
    ASSERT_GE(at, 0);
    plan[static_cast<std::size_t>(at) + 1000] ^= 0x04;
    storeLittle(plan.data() + 32, hostileCrc64(plan.data() + 64, plan.size() - 64));
    storeLittle(plan.data() + 56, hostileCrc64(plan.data(), 56));

    std::string const expected = std::string("plugin library 0 (\"") + kLibraryName + "\") is corrupted: its "
        + std::to_string(readBytes(kLibrary).size()) + " bytes have the CRC-64 ";
    ChildRun const run = runChild({"corrupted", save(plan)});
    EXPECT_EQ(run.status, 0) << run.output;
    EXPECT_CONTAINS(run.output, "CHILD OK");
    EXPECT_CONTAINS(run.output, expected);

    // Also where the application registered the creator: a plan that lies is refused whatever it would need.
    std::unique_ptr<IRuntime> runtime{createInferRuntime(mLogger)};
    runtime->setEngineHostCodeAllowed(true);
    EXPECT_EQ(runtime->deserializeCudaEngine(plan.data(), plan.size()), nullptr);
    expectError({"IRuntime::deserializeCudaEngine: cannot load the plan: plan payload: ", expected});
}

TEST_F(PlanLibraries, TheApplicationsCreatorTakesPrecedenceAndTheLogSaysSo)
{
    std::vector<uint8_t> const plan = buildPlan({kLibrary});
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    ChildRun const run = runChild({"app-first", save(plan)});
    EXPECT_EQ(run.status, 0) << run.output;
    EXPECT_CONTAINS(run.output, "CHILD OK");
    EXPECT_CONTAINS(run.output,
        "plugin \"IdentityConv\" version \"1\" namespace \"\": the creator registered before "
        "the engine was loaded (by the application) is used");
    EXPECT_CONTAINS(run.output, "\"UsedCreator\": \"registered\"");
    EXPECT_EQ(run.output.find("loaded the plan's plugin library"), std::string::npos) << run.output;
}

TEST_F(PlanLibraries, EnginesShareOneLoadAndTheLastDeregistersTheCreators)
{
    std::vector<uint8_t> const plan = buildPlan({kLibrary});
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    ChildRun const run = runChild({"two-engines", save(plan)});
    EXPECT_EQ(run.status, 0) << run.output;
    EXPECT_CONTAINS(run.output, "CHILD OK");
    EXPECT_EQ(occurrences(run.output, "loaded the plan's plugin library"), 1U) << run.output;
    EXPECT_CONTAINS(run.output, "of a plan loaded before is used (the two engines share it)");
    EXPECT_EQ(occurrences(run.output, "deregistered and the library closed"), 1U) << run.output;
}

TEST_F(PlanLibraries, ThreadsLoadingAndDestroyingEnginesAtOnceLeaveNothingBehind)
{
    std::vector<uint8_t> const plan = buildPlan({kLibrary});
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    ChildRun const run = runChild({"threads", save(plan)});
    EXPECT_EQ(run.status, 0) << run.output;
    EXPECT_CONTAINS(run.output, "CHILD OK");
    EXPECT_EQ(occurrences(run.output, "loaded the plan's plugin library"),
        occurrences(run.output, "deregistered and the library closed"))
        << run.output;
}

TEST_F(PlanLibraries, ATemporaryFileWhenInMemoryFilesAreNotAllowedRemovedOnceLoaded)
{
    std::vector<uint8_t> const plan = buildPlan({kLibrary});
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    std::string const path = save(plan);
    fs::path const temporary = mDir / "temporary";
    fs::create_directories(temporary);
    ChildRun const run = runChild({"temp-files", path, temporary.string()});
    EXPECT_EQ(run.status, 0) << run.output;
    EXPECT_CONTAINS(run.output, "CHILD OK");
    EXPECT_CONTAINS(run.output, "from a removed temporary file");
    EXPECT_TRUE(fs::is_empty(temporary));

    ChildRun const none = runChild({"no-files", path});
    EXPECT_EQ(none.status, 0) << none.output;
    EXPECT_CONTAINS(none.output,
        "the runtime's TempfileControlFlags allow neither in-memory files "
        "(kALLOW_IN_MEMORY_FILES) nor temporary files (kALLOW_TEMPORARY_FILES)");
}

TEST_F(PlanLibraries, CreatorsRegisteredAndCarriedMixInOneEngine)
{
    // The plan also carries a library of two creators no layer uses and nobody registered: with host code allowed it
    // is loaded and they are registered for the engine's life, while IdentityConv stays the application's.
    std::string const other = KILN_TEST_V3_LIBRARY;
    std::vector<uint8_t> const plan = buildPlan({kLibrary, other});
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    auto const registered = [](char const* name, char const* version) {
        int32_t count = 0;
        IPluginCreatorInterface* const* creators = getPluginRegistry()->getAllCreators(&count);
        for (int32_t i = 0; i < count && creators != nullptr; ++i)
        {
            auto* v3 = static_cast<IPluginCreatorV3One*>(creators[i]);
            if (std::string(creators[i]->getInterfaceInfo().kind) == "PLUGIN CREATOR_V3ONE"
                && std::string(v3->getPluginName()) == name && std::string(v3->getPluginVersion()) == version)
            {
                return true;
            }
        }
        return false;
    };
    ASSERT_FALSE(registered("LibV3First", "1"));
    // The build loaded the library from its file to list its creators and closed it again: where it is gone now, the
    // platform unloads it (glibc keeps libraries with STB_GNU_UNIQUE symbols, which some toolchains always make).
    void* stillLoaded = dlopen(other.c_str(), RTLD_NOW | RTLD_NOLOAD);
    bool const unloadable = stillLoaded == nullptr;
    if (stillLoaded != nullptr)
    {
        dlclose(stillLoaded);
    }
    std::unique_ptr<IRuntime> runtime{createInferRuntime(mLogger)};
    EXPECT_EQ(runtime->deserializeCudaEngine(plan.data(), plan.size()), nullptr);
    expectError({"the plan carries plugin libraries whose creators are not registered: \"libkiln_test_v3_library.so\" "
                 "(plugin \"LibV3First\" version \"1\" namespace \"kilnTest\", plugin \"LibV3Second\" version \"2\" "
                 "namespace \"kilnTest\")"});
    runtime->setEngineHostCodeAllowed(true);
    std::unique_ptr<ICudaEngine> engine{runtime->deserializeCudaEngine(plan.data(), plan.size())};
    ASSERT_NE(engine, nullptr) << mLogger.all();
    EXPECT_TRUE(registered("LibV3First", "1"));
    EXPECT_TRUE(registered("LibV3Second", "2"));
    std::unique_ptr<IEngineInspector> inspector{engine->createEngineInspector()};
    std::string const json = inspector->getEngineInformation(LayerInformationFormat::kJSON);
    EXPECT_CONTAINS(json, "\"Name\": \"libkiln_test_v3_library.so\"");
    EXPECT_EQ(occurrences(json, "\"UsedCreator\": \"plan\""), 2U) << json;
    EXPECT_EQ(occurrences(json, "\"UsedCreator\": \"registered\""), 1U) << json;
    EXPECT_GT(mappedFrom("memfd:kiln:libkiln_test_v3_library.so"), 0U);
    engine.reset();
    EXPECT_FALSE(registered("LibV3First", "1"));
    EXPECT_FALSE(registered("LibV3Second", "2"));
    if (unloadable)
    {
        EXPECT_EQ(mappedFrom("memfd:kiln:libkiln_test_v3_library.so"), 0U) << "the library is unmapped";
    }
}

TEST_F(PlanLibraries, BuildsThatCannotCarryALibraryFailNamingIt)
{
    std::string const missing = (mDir / "libmissing.so").string();
    EXPECT_TRUE(buildPlan({missing}).empty());
    expectError(
        {"IBuilderConfig::setPluginsToSerialize: plugin library \"" + missing + "\" does not exist or is not a file"});

    recreate(0);
    std::string const noEntry = KILN_TEST_NO_ENTRY_LIBRARY;
    EXPECT_TRUE(buildPlan({noEntry}).empty());
    expectError({"plugin library \"" + noEntry + "\" cannot be carried: ",
        "exports neither the symbol getCreators nor getPluginCreators"});

    recreate(0);
    fs::path const text = mDir / "libtext.so";
    writeBytes(text, "not a library", 13);
    EXPECT_TRUE(buildPlan({text.string()}).empty());
    expectError({"plugin library \"" + text.string() + "\" cannot be loaded to list its creators"});

    // Two libraries of one file name: a plan names what it carries by file name.
    recreate(0);
    fs::create_directories(mDir / "copy");
    fs::copy_file(kLibrary, mDir / "copy" / kLibraryName);
    std::string const copy = (mDir / "copy" / kLibraryName).string();
    EXPECT_TRUE(buildPlan({kLibrary, copy}).empty());
    expectError({"plugin library \"" + copy + "\" has the file name of \"" + kLibrary + "\""});
}

} // namespace
} // namespace kiln::test
