// SPDX-License-Identifier: Apache-2.0
// The engine under concurrent use (issue 21): threads building and serializing networks, deserializing one shared
// plan, creating contexts on one shared engine and running them, while others load and deregister a plugin library in
// the process-wide registry (a load while another thread holds the library is refused, its creators being
// registered already). Every run's outputs are checked. KILN_STRESS_THREADS (8 by default) and
// KILN_STRESS_ROUNDS (6) size it; CI runs the default under ThreadSanitizer (label tsan), and docs/reliability.md
// records a run of 64 threads:
//     KILN_STRESS_THREADS=64 KILN_STRESS_ROUNDS=20 build-thread/tests/plugin/plugin_stress_test
#include "support/capture.h"

#include "NvInfer.h"

#include <atomic>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace kiln::test
{
namespace
{

int32_t fromEnvironment(char const* name, int32_t fallback)
{
    char const* text = std::getenv(name);
    int32_t const value = text != nullptr ? std::atoi(text) : 0;
    return value > 0 ? value : fallback;
}

constexpr int32_t kWidth = 64;

//! y = relu(x) * scale + x over [4, kWidth]; the plan of it.
std::unique_ptr<nvinfer1::IHostMemory> buildPlan(nvinfer1::ILogger& logger, float scale)
{
    std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger)};
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    std::unique_ptr<nvinfer1::IBuilderConfig> config{builder->createBuilderConfig()};
    nvinfer1::ITensor* x = network->addInput("x", nvinfer1::DataType::kFLOAT, nvinfer1::Dims2{4, kWidth});
    nvinfer1::ITensor* relu = network->addActivation(*x, nvinfer1::ActivationType::kRELU)->getOutput(0);
    // The weights need to live only until the plan is built, which happens before this function returns.
    nvinfer1::ITensor* factor
        = network->addConstant(nvinfer1::Dims2{1, 1}, nvinfer1::Weights{nvinfer1::DataType::kFLOAT, &scale, 1})
              ->getOutput(0);
    nvinfer1::ITensor* scaled
        = network->addElementWise(*relu, *factor, nvinfer1::ElementWiseOperation::kPROD)->getOutput(0);
    nvinfer1::ITensor* y = network->addElementWise(*scaled, *x, nvinfer1::ElementWiseOperation::kSUM)->getOutput(0);
    y->setName("y");
    network->markOutput(*y);
    return std::unique_ptr<nvinfer1::IHostMemory>{builder->buildSerializedNetwork(*network, *config)};
}

//! Runs engine once in a new context on x = i - 100 (i the element's index) and checks y; false on any difference.
bool runAndCheck(nvinfer1::ICudaEngine& engine, float scale)
{
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine.createExecutionContext()};
    if (!context)
    {
        return false;
    }
    std::vector<float> x(4 * kWidth);
    std::vector<float> y(x.size(), -1.F);
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        x[i] = static_cast<float>(i) - 100.F;
    }
    if (!context->setTensorAddress("x", x.data()) || !context->setTensorAddress("y", y.data())
        || !context->enqueueV3(nullptr))
    {
        return false;
    }
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        float const expected = (x[i] > 0.F ? x[i] : 0.F) * scale + x[i];
        if (y[i] != expected)
        {
            return false;
        }
    }
    return true;
}

TEST_F(RegistryTest, ThreadsBuildLoadRunAndSwapLibrariesTogether)
{
    int32_t const threadCount = fromEnvironment("KILN_STRESS_THREADS", 8);
    int32_t const rounds = fromEnvironment("KILN_STRESS_ROUNDS", 6);
    std::unique_ptr<nvinfer1::IHostMemory> const plan = buildPlan(mLog, 2.F);
    ASSERT_TRUE(plan) << mLog.text();
    std::unique_ptr<nvinfer1::IRuntime> sharedRuntime{nvinfer1::createInferRuntime(mLog)};
    std::unique_ptr<nvinfer1::ICudaEngine> sharedEngine{
        sharedRuntime->deserializeCudaEngine(plan->data(), plan->size())};
    ASSERT_TRUE(sharedEngine) << mLog.text();
    std::string const library = libraryPath("v3_library");

    std::atomic<int32_t> ready{0};
    std::atomic<int32_t> failures{0};
    std::atomic<int32_t> runs{0};
    std::atomic<int32_t> loads{0}; //!< Library loads that went through (the first in time always does).
    std::vector<std::thread> threads;
    for (int32_t t = 0; t < threadCount; ++t)
    {
        threads.emplace_back([&, t] {
            // Every thread starts when all exist, so that the early ones do not finish before the late ones begin.
            ready += 1;
            while (ready.load() < threadCount)
            {
                std::this_thread::yield();
            }
            for (int32_t round = 0; round < rounds; ++round)
            {
                bool ok = true;
                switch ((t + round) % 4)
                {
                case 0: // Build, serialize, deserialize in a runtime of its own, run.
                {
                    auto const scale = static_cast<float>(3 + t % 50);
                    std::unique_ptr<nvinfer1::IHostMemory> const own = buildPlan(mLog, scale);
                    std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(mLog)};
                    std::unique_ptr<nvinfer1::ICudaEngine> engine{
                        own ? runtime->deserializeCudaEngine(own->data(), own->size()) : nullptr};
                    ok = engine && runAndCheck(*engine, scale);
                    break;
                }
                case 1: // Deserialize the shared plan through the shared runtime, run.
                {
                    std::unique_ptr<nvinfer1::ICudaEngine> engine{
                        sharedRuntime->deserializeCudaEngine(plan->data(), plan->size())};
                    ok = engine && runAndCheck(*engine, 2.F);
                    break;
                }
                case 2: // A context of the shared engine, run.
                    ok = runAndCheck(*sharedEngine, 2.F);
                    break;
                default: // Load and deregister a plugin library in the process-wide registry.
                {
                    nvinfer1::IPluginRegistry* registry = getPluginRegistry();
                    nvinfer1::IPluginRegistry::PluginLibraryHandle handle = registry->loadLibrary(library.c_str());
                    // Refused (nullptr) while another thread holds the library: its creators are registered.
                    if (handle != nullptr)
                    {
                        ok = registry->getCreator("LibV3First", "1", "kilnTest") != nullptr;
                        registry->deregisterLibrary(handle);
                        loads += 1;
                    }
                    break;
                }
                }
                failures += ok ? 0 : 1;
                runs += 1;
            }
        });
    }
    for (std::thread& thread : threads)
    {
        thread.join();
    }
    EXPECT_EQ(runs.load(), threadCount * rounds);
    EXPECT_EQ(failures.load(), 0) << mLog.text();
    EXPECT_GT(loads.load(), 0);
}

} // namespace
} // namespace kiln::test
