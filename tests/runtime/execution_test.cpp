// SPDX-License-Identifier: Apache-2.0
// Running engines: outputs across a profile's range, weights, input shape tensors, data-dependent outputs through an
// output allocator, user-managed activation memory, two contexts on two threads, and every refusal of enqueueV3 with
// its message.
#include "models.h"

#include "backends/host/dispatch.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>
#include <thread>

namespace kiln::test
{
namespace
{

using nvinfer1::ExecutionContextAllocationStrategy;
using nvinfer1::IExecutionContext;

std::vector<float> reluAdd(std::vector<float> const& x)
{
    std::vector<float> y;
    for (float v : x)
    {
        y.push_back(std::max(v, 0.F) + v);
    }
    return y;
}

std::vector<float> ramp(int64_t count, float start)
{
    std::vector<float> values;
    for (int64_t i = 0; i < count; ++i)
    {
        values.push_back(start + static_cast<float>(i % 7) - 3.F);
    }
    return values;
}

//! Hands out a buffer and records what it was asked.
class RecordingAllocator final : public nvinfer1::IOutputAllocator
{
public:
    void* reallocateOutputAsync(
        char const* tensorName, void* currentMemory, uint64_t size, uint64_t alignment, cudaStream_t) override
    {
        calls.push_back(std::string("reallocate ") + tensorName + " " + std::to_string(size) + " align "
            + std::to_string(alignment) + (currentMemory == nullptr ? " fresh" : " again"));
        if (fail)
        {
            return nullptr;
        }
        if (size > buffer.size())
        {
            buffer.assign(size, 0.F);
        }
        return buffer.data();
    }

    void notifyShape(char const* tensorName, Dims const& dims) noexcept override
    {
        calls.push_back(std::string("notify ") + tensorName + " " + toString(dims));
    }

    std::vector<std::string> calls;
    std::vector<float> buffer; // Sized in bytes; floats keep it aligned.
    bool fail{};
};

//! The host backend, except that one layer fails.
class FailingBackend final : public Backend
{
public:
    explicit FailingBackend(std::string layer)
        : mLayer(std::move(layer))
    {
    }
    PlanBackend kind() const noexcept override { return PlanBackend::kHOST; }
    Expected<std::optional<host::TensorDesc>> checkLayer(
        LayerParams const& params, LayerQuery const& query) const noexcept override
    {
        return mHost.checkLayer(params, query);
    }
    host::Status runLayer(LayerRecord const& layer, EngineModel const& model,
        std::span<host::HostTensor const* const> inputs, std::span<host::HostTensor const> outputs,
        cudaStream_t stream) noexcept override
    {
        if (layer.name == mLayer)
        {
            return Error{nvinfer1::ErrorCode::kFAILED_EXECUTION, "the kernel gave up"};
        }
        return mHost.runLayer(layer, model, inputs, outputs, stream);
    }

private:
    std::string mLayer;
    host::HostBackend mHost;
};

//! Records layer timings.
class RecordingProfiler final : public nvinfer1::IProfiler
{
public:
    void reportLayerTime(char const* layerName, float ms) noexcept override
    {
        layers.emplace_back(layerName);
        EXPECT_GE(ms, 0.F);
    }
    std::vector<std::string> layers;
};

using Execution = RuntimeTest;

TEST_F(Execution, ReluAddAcrossTheProfile)
{
    auto engine = makeEngine(reluAddModel());
    ASSERT_NE(engine, nullptr);
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_NE(context, nullptr);
    EXPECT_FALSE(context->allInputDimensionsSpecified());
    EXPECT_EQ(toString(context->getTensorShape("y")), toString(dims({-1, 3})));
    for (int64_t n : {1, 4, 8, 3})
    {
        std::vector<float> x = ramp(n * 3, 0.5F);
        std::vector<float> y(x.size(), -99.F);
        ASSERT_TRUE(context->setInputShape("x", dims({n, 3})));
        EXPECT_TRUE(context->allInputDimensionsSpecified());
        EXPECT_EQ(toString(context->getTensorShape("y")), toString(dims({n, 3})));
        ASSERT_TRUE(context->setTensorAddress("x", x.data()));
        ASSERT_TRUE(context->setTensorAddress("y", y.data()));
        ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
        EXPECT_EQ(y, reluAdd(x)) << n;
    }
    expectNoError();
}

TEST_F(Execution, ElementWiseWithConstantWeights)
{
    auto engine = makeEngine(addConstantModel());
    ASSERT_NE(engine, nullptr);
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    std::vector<float> a{1, 2, 3, 4, 5, 6};
    std::vector<float> b{0.5F, 0.5F, 0.5F, -1, -1, -1};
    std::vector<float> y(6, 0.F);
    ASSERT_TRUE(context->setInputShape("a", dims({2, 3})));
    ASSERT_TRUE(context->setInputShape("b", dims({2, 3})));
    ASSERT_TRUE(context->setInputTensorAddress("a", a.data()));
    ASSERT_TRUE(context->setInputTensorAddress("b", b.data()));
    ASSERT_TRUE(context->setOutputTensorAddress("y", y.data()));
    EXPECT_EQ(context->getOutputTensorAddress("y"), y.data());
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    EXPECT_EQ(y, (std::vector<float>{11.5F, 22.5F, 33.5F, 13, 24, 35}));

    // executeV2 takes the addresses in I/O order for this run only.
    std::vector<float> y2(6, 0.F);
    void* bindings[] = {a.data(), a.data(), y2.data()};
    ASSERT_TRUE(context->executeV2(bindings)) << mLogger.all();
    EXPECT_EQ(y2, (std::vector<float>{12, 24, 36, 18, 30, 42}));
    EXPECT_EQ(context->getTensorAddress("b"), b.data());
    expectNoError();
    EXPECT_FALSE(context->executeV2(nullptr));
    expectError({"IExecutionContext::executeV2", "the bindings array is null"});
}

TEST_F(Execution, AssertionsAreCheckedWithTheirMessage)
{
    auto engine = makeEngine(addConstantModel());
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    std::vector<float> a(6, 1.F), b(9, 1.F), y(6, 0.F);
    ASSERT_TRUE(context->setInputShape("a", dims({2, 3})));
    ASSERT_TRUE(context->setInputShape("b", dims({3, 3})));
    context->setTensorAddress("a", a.data());
    context->setTensorAddress("b", b.data());
    context->setTensorAddress("y", y.data());
    EXPECT_FALSE(context->enqueueV3(nullptr));
    expectError({"IExecutionContext::enqueueV3", "layer 'sum' (ElementWise)",
        "assertion failed: a and b have the same number of rows"});
    EXPECT_EQ(context->inferShapes(0, nullptr), -1);
    expectError({"IExecutionContext::inferShapes", "assertion failed"});
}

TEST_F(Execution, InputShapeTensorValuesComeFromHostMemory)
{
    auto engine = makeEngine(shapeInputModel());
    ASSERT_NE(engine, nullptr);
    EXPECT_TRUE(engine->isShapeInferenceIO("n"));
    EXPECT_FALSE(engine->isShapeInferenceIO("y"));
    EXPECT_EQ(engine->getTensorLocation("n"), nvinfer1::TensorLocation::kHOST);
    EXPECT_EQ(engine->getTensorLocation("y"), nvinfer1::TensorLocation::kHOST); // a host engine
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    EXPECT_TRUE(context->allInputDimensionsSpecified()); // "n" has the fixed shape [1]
    EXPECT_EQ(toString(context->getTensorShape("y")), toString(dims({-1})));

    char const* missing[2] = {nullptr, nullptr};
    EXPECT_EQ(context->inferShapes(2, missing), 1);
    EXPECT_STREQ(missing[0], "n");

    int32_t n = 5;
    ASSERT_TRUE(context->setTensorAddress("n", &n));
    EXPECT_EQ(context->inferShapes(2, missing), 0);
    EXPECT_EQ(toString(context->getTensorShape("y")), toString(dims({5})));
    EXPECT_EQ(context->getMaxOutputSize("y"), 20);
    std::vector<float> y(10, 0.F);
    ASSERT_TRUE(context->setTensorAddress("y", y.data()));
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    EXPECT_EQ(y, (std::vector<float>{1, 3, 5, 7, 9, 0, 0, 0, 0, 0}));

    n = 3; // read again at each enqueue
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    EXPECT_EQ(y[2], 5.F);
    EXPECT_EQ(y[3], 7.F); // untouched
    expectNoError();

    n = 12;
    EXPECT_FALSE(context->enqueueV3(nullptr));
    expectError({"IExecutionContext::enqueueV3", "input shape tensor 'n' value [0] is 12",
        "outside optimization profile 0's range [1, 10]"});
    EXPECT_EQ(context->inferShapes(2, missing), -1);
    expectError({"IExecutionContext::inferShapes", "value [0] is 12"});
}

TEST_F(Execution, InferShapesWritesOutputShapeTensors)
{
    auto engine = makeEngine(shapeOutputModel());
    ASSERT_NE(engine, nullptr);
    EXPECT_TRUE(engine->isShapeInferenceIO("s"));
    EXPECT_EQ(engine->getTensorLocation("s"), nvinfer1::TensorLocation::kHOST);
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    std::vector<int64_t> s{-1, -1};
    ASSERT_TRUE(context->setTensorAddress("s", s.data()));
    ASSERT_TRUE(context->setInputShape("x", dims({5, 3})));
    EXPECT_EQ(context->inferShapes(0, nullptr), 0);
    EXPECT_EQ(s, (std::vector<int64_t>{5, 3}));

    std::vector<float> x(21, 0.F);
    s = {0, 0};
    ASSERT_TRUE(context->setInputShape("x", dims({7, 3})));
    ASSERT_TRUE(context->setTensorAddress("x", x.data()));
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    EXPECT_EQ(s, (std::vector<int64_t>{7, 3}));
    expectNoError();
}

TEST_F(Execution, DataDependentOutputGoesThroughTheOutputAllocator)
{
    auto engine = makeEngine(dataDependentModel());
    ASSERT_NE(engine, nullptr);
    EXPECT_EQ(toString(engine->getTensorShape("y")), toString(dims({-1})));
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    int32_t count = 4;
    ASSERT_TRUE(context->setTensorAddress("count", &count));
    EXPECT_EQ(toString(context->getTensorShape("y")), toString(dims({-1})));
    EXPECT_EQ(context->getMaxOutputSize("y"), -1); // no bound on a data-dependent value

    // Without an allocator the run is refused, whatever address is set.
    std::vector<float> unused(64, 0.F);
    context->setTensorAddress("y", unused.data());
    EXPECT_FALSE(context->enqueueV3(nullptr));
    expectError({"IExecutionContext::enqueueV3", "output 'y' has a data-dependent shape [-1]",
        "set an IOutputAllocator for it with setOutputAllocator"});

    RecordingAllocator allocator;
    EXPECT_FALSE(context->setOutputAllocator("count", &allocator));
    expectError({"IExecutionContext::setOutputAllocator", "'count' is an input"});
    ASSERT_TRUE(context->setOutputAllocator("y", &allocator));
    EXPECT_EQ(context->getOutputAllocator("y"), &allocator);
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    EXPECT_EQ(allocator.calls,
        (std::vector<std::string>{"reallocate y 16 align 256 again", "notify y " + toString(dims({4}))}));
    std::vector<float> const head(allocator.buffer.begin(), allocator.buffer.begin() + 4);
    EXPECT_EQ(head, (std::vector<float>{0, 1, 2, 3}));

    allocator.calls.clear();
    count = 6;
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    EXPECT_EQ(allocator.calls,
        (std::vector<std::string>{"reallocate y 24 align 256 again", "notify y " + toString(dims({6}))}));
    EXPECT_EQ(allocator.buffer[5], 5.F);
    expectNoError();

    allocator.fail = true;
    EXPECT_FALSE(context->enqueueV3(nullptr));
    expectError({"IExecutionContext::enqueueV3", "layer 'fill' (Fill)",
        "the output allocator of 'y' returned nullptr for 24 bytes"});
}

TEST_F(Execution, OutputAllocatorServesStaticOutputsToo)
{
    auto engine = makeEngine(reluAddModel());
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    RecordingAllocator allocator;
    ASSERT_TRUE(context->setOutputAllocator("y", &allocator));
    std::vector<float> x = ramp(6, 0.F);
    ASSERT_TRUE(context->setInputShape("x", dims({2, 3})));
    ASSERT_TRUE(context->setTensorAddress("x", x.data()));
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    EXPECT_EQ(allocator.calls,
        (std::vector<std::string>{"reallocate y 24 align 256 fresh", "notify y " + toString(dims({2, 3}))}));
    std::vector<float> const y(allocator.buffer.begin(), allocator.buffer.begin() + 6);
    EXPECT_EQ(y, reluAdd(x));
    expectNoError();
}

TEST_F(Execution, EnqueueRefusesWhatIsMissing)
{
    auto engine = makeEngine(reluAddModel());
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    std::vector<float> x(24, 1.F), y(24, 0.F);
    EXPECT_FALSE(context->enqueueV3(nullptr));
    expectError({"IExecutionContext::enqueueV3", "input 'x' has no shape; set one with setInputShape",
        "allows [1, 3] to [8, 3]"});
    char const* missing[1] = {nullptr};
    EXPECT_EQ(context->inferShapes(1, missing), 1);
    EXPECT_STREQ(missing[0], "x");
    EXPECT_EQ(context->inferShapes(-1, missing), -1);
    expectError({"IExecutionContext::inferShapes", "room for -1 names"});

    ASSERT_TRUE(context->setInputShape("x", dims({2, 3})));
    EXPECT_EQ(context->inferShapes(1, missing), 0);
    EXPECT_FALSE(context->enqueueV3(nullptr));
    expectError({"IExecutionContext::enqueueV3: tensor 'x' has no address; set one with setTensorAddress"});
    context->setTensorAddress("x", x.data());
    EXPECT_FALSE(context->enqueueV3(nullptr));
    expectError({"IExecutionContext::enqueueV3: tensor 'y' has no address; set one with setTensorAddress"});
    context->setTensorAddress("y", y.data());
    EXPECT_TRUE(context->enqueueV3(nullptr));
    ASSERT_TRUE(context->setTensorAddress("y", nullptr));
    EXPECT_EQ(context->getTensorAddress("y"), nullptr);
    EXPECT_FALSE(context->enqueueV3(nullptr));
    expectError({"tensor 'y' has no address"});
}

TEST_F(Execution, SetInputShapeRefusals)
{
    auto engine = makeEngine(reluAddModel());
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    EXPECT_FALSE(context->setInputShape("y", dims({2, 3})));
    expectError({"IExecutionContext::setInputShape", "tensor 'y' is an output; only inputs take a shape"});
    EXPECT_FALSE(context->setInputShape("x", dims({2})));
    expectError({"IExecutionContext::setInputShape", "input 'x' has rank 2", "the dims given, [2]",
        "optimization profile 0 allows [1, 3] to [8, 3]"});
    EXPECT_FALSE(context->setInputShape("x", dims({9, 3})));
    expectError({"IExecutionContext::setInputShape", "input 'x'", "the dims given, [9, 3]",
        "outside optimization profile 0's range [1, 3] to [8, 3]"});
    EXPECT_FALSE(context->setInputShape("x", dims({0, 3})));
    expectError({"the dims given, [0, 3]", "range [1, 3] to [8, 3]"});
    EXPECT_FALSE(context->setInputShape("x", dims({2, 4})));
    expectError({"the dims given, [2, 4], have extent 1 = 4; the engine was built with 3 there"});
    EXPECT_FALSE(context->setInputShape("nothing", dims({2, 3})));
    expectError({"IExecutionContext::setInputShape", "no input or output tensor is named 'nothing'",
        "the engine's I/O tensors: 'x', 'y'"});
    EXPECT_FALSE(context->setInputShape(nullptr, dims({2, 3})));
    expectError({"IExecutionContext::setInputShape", "the tensor name is null"});
    EXPECT_FALSE(context->allInputDimensionsSpecified());
    EXPECT_EQ(context->getTensorShape("nothing").nbDims, -1);
    expectError({"IExecutionContext::getTensorShape", "'nothing'"});
}

TEST_F(Execution, AddressRefusals)
{
    auto engine = makeEngine(reluAddModel());
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    std::vector<float> buffer(8, 0.F);
    EXPECT_FALSE(context->setInputTensorAddress("y", buffer.data()));
    expectError({"IExecutionContext::setInputTensorAddress", "tensor 'y' is an output"});
    EXPECT_FALSE(context->setOutputTensorAddress("x", buffer.data()));
    expectError({"IExecutionContext::setOutputTensorAddress", "tensor 'x' is an input"});
    auto* misaligned = reinterpret_cast<char*>(buffer.data()) + 1;
    EXPECT_FALSE(context->setTensorAddress("x", misaligned));
    expectError({"IExecutionContext::setTensorAddress", "'x' is not aligned to 4 bytes", "kFLOAT"});
    EXPECT_EQ(context->getOutputTensorAddress("x"), nullptr);
    expectError({"IExecutionContext::getOutputTensorAddress", "'x' is an input"});
    EXPECT_EQ(context->getTensorAddress("z"), nullptr);
    expectError({"IExecutionContext::getTensorAddress", "'z'"});
    EXPECT_EQ(context->getMaxOutputSize("x"), -1);
    expectError({"IExecutionContext::getMaxOutputSize", "'x' is an input"});
}

TEST_F(Execution, AFailingLayerIsNamed)
{
    auto engine = makeEngine(reluAddModel(), [] { return std::make_unique<FailingBackend>("add"); });
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    std::vector<float> x(6, 1.F), y(6, 0.F);
    context->setInputShape("x", dims({2, 3}));
    context->setTensorAddress("x", x.data());
    context->setTensorAddress("y", y.data());
    EXPECT_FALSE(context->enqueueV3(nullptr));
    expectError({"IExecutionContext::enqueueV3: layer 'add' (ElementWise) failed: the kernel gave up"});
}

TEST_F(Execution, ErrorsReachTheContextsErrorRecorder)
{
    auto engine = makeEngine(reluAddModel());
    TestErrorRecorder recorder;
    engine->setErrorRecorder(&recorder);
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    EXPECT_EQ(context->getErrorRecorder(), &recorder); // inherited
    EXPECT_FALSE(context->enqueueV3(nullptr));
    ASSERT_EQ(recorder.getNbErrors(), 1);
    EXPECT_NE(std::string(recorder.getErrorDesc(0)).find("input 'x' has no shape"), std::string::npos);
    EXPECT_EQ(recorder.getErrorCode(0), nvinfer1::ErrorCode::kINVALID_STATE);
    context.reset();
    engine->setErrorRecorder(nullptr);
    EXPECT_EQ(recorder.refCount(), 0);
    mLogger.clear();
}

TEST_F(Execution, TwoContextsOnTwoThreads)
{
    auto engine = makeEngine(reluAddModel());
    ASSERT_NE(engine, nullptr);
    std::atomic<int> failures{0};
    auto const work = [&](int64_t n, float start) {
        std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
        if (context == nullptr)
        {
            ++failures;
            return;
        }
        for (int iteration = 0; iteration < 200; ++iteration)
        {
            int64_t const rows = 1 + (n + iteration) % 8;
            std::vector<float> x = ramp(rows * 3, start + static_cast<float>(iteration));
            std::vector<float> y(x.size(), 0.F);
            bool const ok = context->setInputShape("x", dims({rows, 3})) && context->setTensorAddress("x", x.data())
                && context->setTensorAddress("y", y.data()) && context->enqueueV3(nullptr);
            if (!ok || y != reluAdd(x))
            {
                ++failures;
            }
        }
    };
    std::thread first(work, 0, -2.F);
    std::thread second(work, 3, 5.F);
    first.join();
    second.join();
    EXPECT_EQ(failures.load(), 0) << mLogger.all();
    expectNoError();
}

TEST_F(Execution, UserManagedDeviceMemory)
{
    auto engine = makeEngine(reluAddModel());
    ASSERT_EQ(engine->getDeviceMemorySizeForProfileV2(0), 256);
    std::unique_ptr<IExecutionContext> context{
        engine->createExecutionContext(ExecutionContextAllocationStrategy::kUSER_MANAGED)};
    ASSERT_NE(context, nullptr);
    EXPECT_EQ(context->getRuntimeConfig()->getExecutionContextAllocationStrategy(),
        ExecutionContextAllocationStrategy::kUSER_MANAGED);
    std::vector<float> x = ramp(6, 0.F), y(6, 0.F);
    context->setInputShape("x", dims({2, 3}));
    context->setTensorAddress("x", x.data());
    context->setTensorAddress("y", y.data());
    EXPECT_FALSE(context->enqueueV3(nullptr));
    expectError({"IExecutionContext::enqueueV3", "created without device memory (kUSER_MANAGED)",
        "give it 256 bytes with setDeviceMemoryV2"});

    auto* block = static_cast<float*>(::operator new (512, std::align_val_t{256}));
    std::fill(block, block + 128, -7.F);
    context->setDeviceMemoryV2(block, 128);
    expectError({"IExecutionContext::setDeviceMemoryV2", "128 bytes given; optimization profile 0 needs 256"});
    context->setDeviceMemoryV2(reinterpret_cast<char*>(block) + 16, 256);
    expectError({"IExecutionContext::setDeviceMemoryV2", "not aligned to 256 bytes"});
    context->setDeviceMemoryV2(block, 256);
    expectNoError();
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    EXPECT_EQ(y, reluAdd(x));
    for (std::size_t i = 0; i < 6; ++i)
    {
        EXPECT_EQ(block[i], std::max(x[i], 0.F)) << i; // relu's output "h" lives at offset 0
    }
    EXPECT_EQ(block[6], -7.F);
    ::operator delete (block, std::align_val_t{256});

    std::unique_ptr<IExecutionContext> without{engine->createExecutionContextWithoutDeviceMemory()};
    without->setInputShape("x", dims({2, 3}));
    without->setTensorAddress("x", x.data());
    without->setTensorAddress("y", y.data());
    EXPECT_FALSE(without->enqueueV3(nullptr));
    expectError({"created without device memory"});

    std::unique_ptr<IExecutionContext> owning{engine->createExecutionContext()};
    std::vector<float> memory(64);
    owning->setDeviceMemory(memory.data());
    expectError({"IExecutionContext::setDeviceMemory", "created with kSTATIC",
        "only a context created with kUSER_MANAGED takes memory"});
    EXPECT_EQ(owning->updateDeviceMemorySizeForShapes(), 0U);
    expectError({"IExecutionContext::updateDeviceMemorySizeForShapes", "setInputShape"});
    owning->setInputShape("x", dims({2, 3}));
    EXPECT_EQ(owning->updateDeviceMemorySizeForShapes(), 256U);
}

TEST_F(Execution, OnProfileChangeAndRuntimeConfig)
{
    auto engine = makeEngine(reluAddModel());
    std::unique_ptr<nvinfer1::IRuntimeConfig> config{engine->createRuntimeConfig()};
    ASSERT_NE(config, nullptr);
    EXPECT_EQ(config->getExecutionContextAllocationStrategy(), ExecutionContextAllocationStrategy::kSTATIC);
    config->setExecutionContextAllocationStrategy(ExecutionContextAllocationStrategy::kON_PROFILE_CHANGE);
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext(config.get())};
    ASSERT_NE(context, nullptr);
    std::vector<float> x = ramp(24, 1.F), y(24, 0.F);
    context->setInputShape("x", dims({8, 3}));
    context->setTensorAddress("x", x.data());
    context->setTensorAddress("y", y.data());
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    EXPECT_EQ(y, reluAdd(x));
    EXPECT_TRUE(context->setOptimizationProfileAsync(0, nullptr));
    EXPECT_EQ(context->getOptimizationProfile(), 0);
    EXPECT_FALSE(context->setOptimizationProfileAsync(1, nullptr));
    expectError({"IExecutionContext::setOptimizationProfileAsync", "optimization profile 1 does not exist",
        "the engine has 1"});
    EXPECT_EQ(engine->createExecutionContext(static_cast<ExecutionContextAllocationStrategy>(7)), nullptr);
    expectError({"ICudaEngine::createExecutionContext", "7 is no ExecutionContextAllocationStrategy"});
}

TEST_F(Execution, ProfilerHearsEveryLayer)
{
    auto engine = makeEngine(reluAddModel());
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    RecordingProfiler profiler;
    context->setProfiler(&profiler);
    EXPECT_EQ(context->getProfiler(), &profiler);
    std::vector<float> x(3, 1.F), y(3, 0.F);
    context->setInputShape("x", dims({1, 3}));
    context->setTensorAddress("x", x.data());
    context->setTensorAddress("y", y.data());
    ASSERT_TRUE(context->enqueueV3(nullptr));
    EXPECT_EQ(profiler.layers, (std::vector<std::string>{"relu", "add"}));
    context->setEnqueueEmitsProfile(false);
    EXPECT_FALSE(context->getEnqueueEmitsProfile());
    ASSERT_TRUE(context->enqueueV3(nullptr));
    EXPECT_EQ(profiler.layers.size(), 2U);
    EXPECT_TRUE(context->reportToProfiler());
    EXPECT_EQ(profiler.layers.size(), 4U);
    context->setProfiler(nullptr);
    EXPECT_FALSE(context->reportToProfiler());
    expectError({"IExecutionContext::reportToProfiler", "no profiler is set"});
}

TEST_F(Execution, ContextSettingsAreKept)
{
    auto engine = makeEngine(reluAddModel());
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    EXPECT_EQ(&context->getEngine(), engine.get());
    EXPECT_STREQ(context->getName(), "");
    context->setName("first");
    EXPECT_STREQ(context->getName(), "first");
    context->setDebugSync(true);
    EXPECT_TRUE(context->getDebugSync());
    context->setPersistentCacheLimit(4096);
    EXPECT_EQ(context->getPersistentCacheLimit(), 4096U);
    EXPECT_TRUE(context->setNvtxVerbosity(nvinfer1::ProfilingVerbosity::kDETAILED));
    EXPECT_EQ(context->getNvtxVerbosity(), nvinfer1::ProfilingVerbosity::kDETAILED);
    EXPECT_FALSE(context->setNvtxVerbosity(static_cast<nvinfer1::ProfilingVerbosity>(9)));
    expectError({"IExecutionContext::setNvtxVerbosity", "9 is no ProfilingVerbosity"});
    EXPECT_TRUE(context->setTemporaryStorageAllocator(nullptr));
    EXPECT_EQ(context->getTemporaryStorageAllocator(), nullptr);
    EXPECT_TRUE(context->setInputConsumedEvent(nullptr));
    EXPECT_EQ(context->getInputConsumedEvent(), nullptr);
    context->setAuxStreams(nullptr, 0);
    context->setAuxStreams(nullptr, 2);
    expectError({"IExecutionContext::setAuxStreams"});
    EXPECT_TRUE(context->setDebugListener(nullptr));
    EXPECT_EQ(context->getDebugListener(), nullptr);
    EXPECT_FALSE(context->setTensorDebugState("y", true));
    expectError({"IExecutionContext::setTensorDebugState", "\"y\" was not marked as a debug tensor"});
    EXPECT_FALSE(context->getDebugState("y"));
    EXPECT_TRUE(context->setAllTensorsDebugState(true));
    EXPECT_TRUE(context->setUnfusedTensorsDebugState(true));
    EXPECT_TRUE(context->getUnfusedTensorsDebugState());
    EXPECT_TRUE(context->allInputShapesSpecified());
    EXPECT_EQ(toString(context->getTensorStrides("y")), toString(dims({3, 1})));
    EXPECT_EQ(context->getTensorStrides("z").nbDims, -1);
    expectError({"IExecutionContext::getTensorStrides", "'z'"});
    expectNoError();
}

} // namespace
} // namespace kiln::test
