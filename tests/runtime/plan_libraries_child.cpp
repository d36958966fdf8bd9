// SPDX-License-Identifier: Apache-2.0
// The process plan_libraries_test.cpp starts to load a plan that carries its plugin library: a program that never
// loaded that library (it links libkiln only), as a deployment would be. It prints every log message to stdout
// ("[I] ...", "[E] ..."), then "CHILD OK" and exits 0 when what MODE expects happened, or "CHILD FAILED: why" and 1.
//
//     kiln_plan_library_child MODE PLAN [DIR]
//
// Modes, on a plan of X [2, 3, 8, 8] -> IdentityConv (examples/identity_conv) -> Y:
//   run          host code allowed: the engine loads the library from an in-memory file, runs (Y = X), lists the
//                library in its inspector; after the engine is destroyed the creator is gone from the registry
//   two-engines  two engines of the plan share one load; the first destroyed, the second still runs; after the second
//                the creator is gone
//   refuse       host code not allowed: refused, nothing loaded
//   corrupted    the plan's library bytes do not match their checksum: refused, nothing loaded
//   app-first    the application registered IdentityConv itself (compiled into this program): its creator is used,
//                the library is not loaded, and it stays registered after the engine
//   threads      eight threads each load, run and destroy engines of the plan twenty times at once; afterwards the
//                creator is gone
//   temp-files   in-memory files not allowed, temporary files in DIR allowed: runs, and DIR is empty afterwards
//   no-files     neither kind of file allowed: refused
#include "identity_conv.h"

#include "NvInfer.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace nvinfer1;

namespace
{

class PrintingLogger final : public ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        char const tags[] = {'F', 'E', 'W', 'I', 'V'};
        auto const index = static_cast<std::size_t>(severity);
        std::printf("[%c] %s\n", index < sizeof(tags) ? tags[index] : '?', msg);
        std::fflush(stdout);
        if (severity <= Severity::kERROR)
        {
            errors += std::string(msg) + "\n";
        }
    }
    std::string errors;
};

PrintingLogger gLogger;

int fail(std::string const& why)
{
    std::printf("CHILD FAILED: %s\n", why.c_str());
    return 1;
}

//! Whether the registry holds a creator of IdentityConv version "1" (asked without getCreator's error for a miss).
bool identityConvRegistered()
{
    int32_t count = 0;
    IPluginCreatorInterface* const* creators = getPluginRegistry()->getAllCreators(&count);
    for (int32_t i = 0; i < count && creators != nullptr; ++i)
    {
        if (std::strcmp(creators[i]->getInterfaceInfo().kind, "PLUGIN CREATOR_V3ONE") == 0)
        {
            auto* v3 = static_cast<IPluginCreatorV3One*>(creators[i]);
            if (std::strcmp(v3->getPluginName(), "IdentityConv") == 0 && std::strcmp(v3->getPluginVersion(), "1") == 0)
            {
                return true;
            }
        }
    }
    return false;
}

//! The lines of /proc/self/maps that name the library's in-memory file or a kiln temporary file.
std::vector<std::string> libraryMappings()
{
    std::ifstream maps("/proc/self/maps");
    std::vector<std::string> found;
    for (std::string line; std::getline(maps, line);)
    {
        if (line.find("memfd:kiln:libkiln_identity_conv_plugin.so") != std::string::npos
            || line.find("/kiln-plugin-") != std::string::npos)
        {
            found.push_back(line);
        }
    }
    return found;
}

//! The distinct files (in-memory or removed) the library is mapped from.
std::size_t libraryFiles()
{
    std::vector<std::string> inodes;
    for (std::string const& line : libraryMappings())
    {
        // address perms offset device inode path: the inode names the file.
        char address[64], perms[8], offset[32], device[16];
        unsigned long inode = 0;
        if (std::sscanf(line.c_str(), "%63s %7s %31s %15s %lu", address, perms, offset, device, &inode) == 5)
        {
            std::string const id = std::string(device) + ":" + std::to_string(inode);
            if (std::find(inodes.begin(), inodes.end(), id) == inodes.end())
            {
                inodes.push_back(id);
            }
        }
    }
    return inodes.size();
}

//! Runs engine once on X = 0, 0.5, 1, ...; an empty string when Y equals X.
std::string runIdentity(ICudaEngine& engine)
{
    std::unique_ptr<IExecutionContext> context{engine.createExecutionContext()};
    if (context == nullptr)
    {
        return "createExecutionContext failed";
    }
    std::vector<float> x(2 * 3 * 8 * 8);
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        x[i] = 0.5F * static_cast<float>(i) - 17.0F;
    }
    std::vector<float> y(x.size(), -1.0F);
    if (!context->setTensorAddress("X", x.data()) || !context->setTensorAddress("Y", y.data())
        || !context->enqueueV3(nullptr))
    {
        return "the run failed";
    }
    return y == x ? std::string() : std::string("Y differs from X");
}

std::vector<char> readFile(char const* path)
{
    std::ifstream file(path, std::ios::binary);
    return std::vector<char>{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 3)
    {
        std::fprintf(stderr, "usage: kiln_plan_library_child MODE PLAN [DIR]\n");
        return 2;
    }
    std::string const mode = argv[1];
    std::vector<char> const plan = readFile(argv[2]);
    if (plan.empty())
    {
        return fail(std::string("cannot read ") + argv[2]);
    }
    std::unique_ptr<IRuntime> runtime{createInferRuntime(gLogger)};
    if (identityConvRegistered())
    {
        return fail("IdentityConv is registered before anything was loaded");
    }
    if (mode == "app-first" && !getPluginRegistry()->registerCreator(identityConvCreator(), ""))
    {
        return fail("registering the application's IdentityConv failed");
    }
    bool const refused = mode == "refuse" || mode == "corrupted" || mode == "no-files";
    runtime->setEngineHostCodeAllowed(mode != "refuse");
    if (mode == "temp-files" || mode == "no-files")
    {
        runtime->setTempfileControlFlags(
            mode == "temp-files" ? 1U << static_cast<uint32_t>(TempfileControlFlag::kALLOW_TEMPORARY_FILES) : 0U);
        if (argc > 3)
        {
            runtime->setTemporaryDirectory(argv[3]);
        }
    }

    if (mode == "threads")
    {
        std::atomic<int> failures{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < 8; ++t)
        {
            threads.emplace_back([&] {
                for (int i = 0; i < 20; ++i)
                {
                    std::unique_ptr<ICudaEngine> engine{runtime->deserializeCudaEngine(plan.data(), plan.size())};
                    if (engine == nullptr || !runIdentity(*engine).empty())
                    {
                        ++failures;
                    }
                }
            });
        }
        for (std::thread& thread : threads)
        {
            thread.join();
        }
        if (failures.load() != 0 || identityConvRegistered())
        {
            return fail(std::to_string(failures.load()) + " loads or runs failed, or IdentityConv is still registered");
        }
        std::printf("CHILD OK\n");
        return 0;
    }

    std::unique_ptr<ICudaEngine> engine{runtime->deserializeCudaEngine(plan.data(), plan.size())};
    if (refused)
    {
        if (engine != nullptr)
        {
            return fail("the plan was loaded");
        }
        if (!libraryMappings().empty() || identityConvRegistered())
        {
            return fail("the refused plan's library was loaded or registered");
        }
        std::printf("REFUSED WITH: %s", gLogger.errors.c_str());
        std::printf("CHILD OK\n");
        return 0;
    }
    if (engine == nullptr)
    {
        return fail("deserializeCudaEngine failed");
    }
    if (!identityConvRegistered())
    {
        return fail("IdentityConv is not registered while the engine lives");
    }
    std::size_t const files = libraryFiles();
    if (files != (mode == "app-first" ? 0U : 1U))
    {
        return fail("the library is mapped from " + std::to_string(files) + " files");
    }
    if (mode == "run" || mode == "app-first")
    {
        std::unique_ptr<IEngineInspector> inspector{engine->createEngineInspector()};
        char const* json = inspector->getEngineInformation(LayerInformationFormat::kJSON);
        std::printf("INSPECTOR: %s\n", json != nullptr ? json : "(null)");
    }
    if (mode == "temp-files" && argc > 3 && !std::filesystem::is_empty(argv[3]))
    {
        return fail("the temporary directory is not empty");
    }
    if (auto problem = runIdentity(*engine); !problem.empty())
    {
        return fail(problem);
    }
    if (mode == "two-engines")
    {
        std::unique_ptr<ICudaEngine> second{runtime->deserializeCudaEngine(plan.data(), plan.size())};
        if (second == nullptr || libraryFiles() != 1)
        {
            return fail("the second engine did not load, or loaded the library again");
        }
        engine.reset();
        if (!identityConvRegistered())
        {
            return fail("IdentityConv was deregistered while the second engine uses it");
        }
        if (auto problem = runIdentity(*second); !problem.empty())
        {
            return fail("after the first engine was destroyed: " + problem);
        }
    }
    engine.reset();
    bool const stillRegistered = identityConvRegistered();
    if (stillRegistered != (mode == "app-first"))
    {
        return fail(stillRegistered ? "IdentityConv is still registered after the engine was destroyed"
                                    : "the application's IdentityConv was deregistered");
    }
    std::printf("MAPPINGS AFTER: %zu\n", libraryMappings().size());
    std::printf("CHILD OK\n");
    return 0;
}
