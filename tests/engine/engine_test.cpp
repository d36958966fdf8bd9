// SPDX-License-Identifier: Apache-2.0
// End to end through the public API: build a network, serialize it, deserialize the plan in a fresh runtime, run it
// on the host backend and compare with values computed here; dynamic shapes across a profile's range; two contexts
// at once; and the refusals: a shape outside the profile, a missing tensor address, damaged plans.
#include "support/api_test.h"

#include "NvInfer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::ICudaEngine;
using nvinfer1::IExecutionContext;
using nvinfer1::IHostMemory;
using nvinfer1::IRuntime;
using nvinfer1::ITensor;
using nvinfer1::OptProfileSelector;

//! CRC-64/XZ, written here independently of kiln's, to fix up header checksums like a hostile writer would.
uint64_t crc64(uint8_t const* data, std::size_t size)
{
    uint64_t crc = ~uint64_t{0};
    for (std::size_t i = 0; i < size; ++i)
    {
        crc ^= data[i];
        for (int bit = 0; bit < 8; ++bit)
        {
            crc = (crc >> 1) ^ (0xC96C5795D7870F42ULL & (0 - (crc & 1)));
        }
    }
    return ~crc;
}

void storeLittle(uint8_t* at, uint64_t value, int bytes)
{
    for (int i = 0; i < bytes; ++i)
    {
        at[i] = static_cast<uint8_t>(value >> (8 * i));
    }
}

class EngineTest : public ApiTest
{
protected:
    //! Builds the network made so far with config and returns the plan bytes (empty on failure).
    std::vector<uint8_t> build(nvinfer1::IBuilderConfig& config)
    {
        std::unique_ptr<IHostMemory> plan{mBuilder->buildSerializedNetwork(*mNetwork, config)};
        if (plan == nullptr)
        {
            return {};
        }
        auto const* bytes = static_cast<uint8_t const*>(plan->data());
        return std::vector<uint8_t>(bytes, bytes + plan->size());
    }

    //! A config with one profile for input `name`: extent 0 in [1, maxBatch], the rest as given.
    std::unique_ptr<nvinfer1::IBuilderConfig> batchConfig(
        char const* name, Dims shape, int64_t optBatch, int64_t maxBatch)
    {
        std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
        auto* profile = mBuilder->createOptimizationProfile();
        shape.d[0] = 1;
        profile->setDimensions(name, OptProfileSelector::kMIN, shape);
        shape.d[0] = optBatch;
        profile->setDimensions(name, OptProfileSelector::kOPT, shape);
        shape.d[0] = maxBatch;
        profile->setDimensions(name, OptProfileSelector::kMAX, shape);
        config->addOptimizationProfile(profile);
        return config;
    }

    //! Loads plan in a runtime of its own (kept alive by the fixture).
    ICudaEngine* load(std::vector<uint8_t> const& plan)
    {
        mRuntimes.emplace_back(nvinfer1::createInferRuntime(mLogger));
        mEngines.emplace_back(mRuntimes.back()->deserializeCudaEngine(plan.data(), plan.size()));
        return mEngines.back().get();
    }

    //! y = relu(x) * w + x over x [N, 4], w a constant [1, 4]; profile N in [1, 8].
    std::vector<uint8_t> buildReluScale()
    {
        ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, dims({-1, 4}));
        auto* relu = mNetwork->addActivation(*x, nvinfer1::ActivationType::kRELU);
        auto* w = mNetwork->addConstant(dims({1, 4}), nvinfer1::Weights{DataType::kFLOAT, mScale, 4});
        auto* product
            = mNetwork->addElementWise(*relu->getOutput(0), *w->getOutput(0), nvinfer1::ElementWiseOperation::kPROD);
        auto* sum = mNetwork->addElementWise(*product->getOutput(0), *x, nvinfer1::ElementWiseOperation::kSUM);
        sum->getOutput(0)->setName("y");
        mNetwork->markOutput(*sum->getOutput(0));
        auto config = batchConfig("x", dims({-1, 4}), 4, 8);
        return build(*config);
    }

    static std::vector<float> reluScale(std::vector<float> const& x, float const* scale)
    {
        std::vector<float> y(x.size());
        for (std::size_t i = 0; i < x.size(); ++i)
        {
            y[i] = std::max(x[i], 0.F) * scale[i % 4] + x[i];
        }
        return y;
    }

    //! Runs the relu-scale engine at batch n in context and checks the result.
    static void runReluScale(IExecutionContext& context, int64_t n, std::mt19937& random, float const* scale)
    {
        std::uniform_real_distribution<float> uniform(-2.F, 2.F);
        std::vector<float> x(static_cast<std::size_t>(n * 4));
        std::generate(x.begin(), x.end(), [&] { return uniform(random); });
        std::vector<float> y(x.size(), NAN);
        ASSERT_TRUE(context.setInputShape("x", dims({n, 4})));
        ASSERT_TRUE(context.setTensorAddress("x", x.data()));
        ASSERT_TRUE(context.setTensorAddress("y", y.data()));
        ASSERT_TRUE(context.enqueueV3(nullptr));
        EXPECT_DIMS(context.getTensorShape("y"), {n, 4});
        EXPECT_EQ(y, reluScale(x, scale)) << "batch " << n;
    }

    float mScale[4]{0.5F, -1.F, 2.F, 0.25F};
    std::vector<std::unique_ptr<IRuntime>> mRuntimes;
    std::vector<std::unique_ptr<ICudaEngine>> mEngines;

    void TearDown() override
    {
        mEngines.clear();
        mRuntimes.clear();
        ApiTest::TearDown();
    }
};

TEST_F(EngineTest, BuildSerializeDeserializeRunAcrossTheProfile)
{
    std::vector<uint8_t> const plan = buildReluScale();
    ASSERT_FALSE(plan.empty()) << mLogger.all();
    // The builder and its network are gone before the plan is loaded: the plan carries everything.
    delete mNetwork;
    mNetwork = nullptr;
    float const scale[4]{mScale[0], mScale[1], mScale[2], mScale[3]};
    std::fill(std::begin(mScale), std::end(mScale), 0.F);

    ICudaEngine* engine = load(plan);
    ASSERT_NE(engine, nullptr) << mLogger.all();
    ASSERT_EQ(engine->getNbIOTensors(), 2);
    EXPECT_STREQ(engine->getIOTensorName(0), "x");
    EXPECT_STREQ(engine->getIOTensorName(1), "y");
    EXPECT_EQ(engine->getTensorIOMode("x"), nvinfer1::TensorIOMode::kINPUT);
    EXPECT_EQ(engine->getTensorIOMode("y"), nvinfer1::TensorIOMode::kOUTPUT);
    EXPECT_DIMS(engine->getTensorShape("x"), {-1, 4});
    EXPECT_EQ(engine->getNbOptimizationProfiles(), 1);
    EXPECT_DIMS(engine->getProfileShape("x", 0, OptProfileSelector::kMAX), {8, 4});

    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_NE(context, nullptr);
    std::mt19937 random(7);
    for (int64_t n = 1; n <= 8; ++n)
    {
        runReluScale(*context, n, random, scale);
    }
    EXPECT_TRUE(mLogger.messages(nvinfer1::ILogger::Severity::kERROR).empty()) << mLogger.all();

    // serialize() gives a plan that loads and runs the same.
    std::unique_ptr<IHostMemory> again{engine->serialize()};
    ASSERT_NE(again, nullptr);
    auto const* bytes = static_cast<uint8_t const*>(again->data());
    ICudaEngine* reloaded = load(std::vector<uint8_t>(bytes, bytes + again->size()));
    ASSERT_NE(reloaded, nullptr) << mLogger.all();
    std::unique_ptr<IExecutionContext> second{reloaded->createExecutionContext()};
    runReluScale(*second, 5, random, scale);
}

TEST_F(EngineTest, TwoContextsRunAtOnceFromTwoThreads)
{
    ICudaEngine* engine = load(buildReluScale());
    ASSERT_NE(engine, nullptr) << mLogger.all();
    auto work = [&](int64_t n, unsigned seed) {
        std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
        ASSERT_NE(context, nullptr);
        std::mt19937 random(seed);
        for (int i = 0; i < 50; ++i)
        {
            runReluScale(*context, (n + i) % 8 + 1, random, mScale);
        }
    };
    std::thread first(work, 1, 1U);
    std::thread second(work, 4, 2U);
    first.join();
    second.join();
}

TEST_F(EngineTest, AShapeOutsideTheProfileIsRefused)
{
    ICudaEngine* engine = load(buildReluScale());
    ASSERT_NE(engine, nullptr) << mLogger.all();
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    mLogger.clear();
    EXPECT_FALSE(context->setInputShape("x", dims({9, 4})));
    expectError({"setInputShape", "'x'", "9"});
    EXPECT_FALSE(context->setInputShape("x", dims({2, 5})));
    expectError({"setInputShape", "'x'"});
    EXPECT_FALSE(context->setInputShape("x", dims({2})));
    expectError({"setInputShape", "'x'"});
    EXPECT_FALSE(context->setInputShape("nosuch", dims({2, 4})));
    expectError({"nosuch"});
}

TEST_F(EngineTest, AMissingTensorAddressIsRefused)
{
    ICudaEngine* engine = load(buildReluScale());
    ASSERT_NE(engine, nullptr) << mLogger.all();
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    std::vector<float> x(8, 1.F);
    ASSERT_TRUE(context->setInputShape("x", dims({2, 4})));
    ASSERT_TRUE(context->setTensorAddress("x", x.data()));
    mLogger.clear();
    EXPECT_FALSE(context->enqueueV3(nullptr));
    expectError({"enqueueV3", "'y'", "address"});
}

TEST_F(EngineTest, AnInputShapeNotSetIsRefused)
{
    ICudaEngine* engine = load(buildReluScale());
    ASSERT_NE(engine, nullptr) << mLogger.all();
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    std::vector<float> buffer(8);
    ASSERT_TRUE(context->setTensorAddress("x", buffer.data()));
    ASSERT_TRUE(context->setTensorAddress("y", buffer.data()));
    mLogger.clear();
    EXPECT_FALSE(context->enqueueV3(nullptr));
    expectError({"enqueueV3", "'x'"});
}

class DamagedPlanTest : public EngineTest
{
protected:
    void SetUp() override
    {
        EngineTest::SetUp();
        mPlan = buildReluScale();
        ASSERT_GT(mPlan.size(), 64U) << mLogger.all();
        mLogger.clear();
    }

    //! Expects plan to be refused with an error containing fragment, and nothing to crash.
    void expectRefused(std::vector<uint8_t> const& plan, std::string const& fragment)
    {
        std::unique_ptr<IRuntime> runtime{nvinfer1::createInferRuntime(mLogger)};
        std::unique_ptr<ICudaEngine> engine{runtime->deserializeCudaEngine(plan.data(), plan.size())};
        EXPECT_EQ(engine, nullptr);
        auto const errors = mLogger.messages(nvinfer1::ILogger::Severity::kERROR);
        ASSERT_FALSE(errors.empty()) << "no error for a plan that should contain \"" << fragment << "\"";
        EXPECT_NE(errors.back().find(fragment), std::string::npos) << mLogger.all();
        mLogger.clear();
    }

    std::vector<uint8_t> mPlan;
};

TEST_F(DamagedPlanTest, TruncatedPlansAreRefused)
{
    for (std::size_t size :
        {std::size_t{1}, std::size_t{7}, std::size_t{63}, std::size_t{64}, mPlan.size() / 2, mPlan.size() - 1})
    {
        expectRefused(std::vector<uint8_t>(mPlan.begin(), mPlan.begin() + static_cast<std::ptrdiff_t>(size)),
            size < 8        ? "not a kiln plan"
                : size < 64 ? "header"
                            : "truncated");
    }
}

TEST_F(DamagedPlanTest, FlippedBitsAreRefused)
{
    std::mt19937 random(3);
    for (int i = 0; i < 64; ++i)
    {
        std::vector<uint8_t> plan = mPlan;
        std::size_t const byte = 8 + random() % (plan.size() - 8);
        plan[byte] ^= static_cast<uint8_t>(1U << (random() % 8));
        expectRefused(plan, "corrupted");
    }
}

TEST_F(DamagedPlanTest, AnotherFormatVersionIsRefused)
{
    std::vector<uint8_t> plan = mPlan;
    storeLittle(plan.data() + 8, 2, 4); // format major 2
    storeLittle(plan.data() + 56, crc64(plan.data(), 56), 8);
    expectRefused(plan, "version");
}

TEST_F(DamagedPlanTest, AForeignFileIsRefused)
{
    std::vector<uint8_t> plan = mPlan;
    std::memcpy(plan.data(), "ftrtNOPE", 8);
    expectRefused(plan, "not a kiln plan");
}

// The seed texts' way of handing a shape to a layer as an execution tensor: a zero-stride slice of an empty constant
// whose size comes from a shape tensor, giving an empty tensor [0, P, Q].
TEST_F(EngineTest, TheEmptyTensorTrickCarriesAShape)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, dims({-1, -1}));
    ITensor* pq = mNetwork->addShape(*x)->getOutput(0); // INT64 [P, Q]
    ITensor* c011
        = mNetwork->addConstant(dims({0, 1, 1}), nvinfer1::Weights{DataType::kFLOAT, nullptr, 0})->getOutput(0);
    static int64_t const zero = 0;
    ITensor* z = mNetwork->addConstant(dims({1}), nvinfer1::Weights{DataType::kINT64, &zero, 1})->getOutput(0);
    ITensor* parts[] = {z, pq};
    auto* zpq = mNetwork->addConcatenation(parts, 2);
    zpq->setAxis(0);
    Dims const z3 = dims({0, 0, 0});
    auto* slice = mNetwork->addSlice(*c011, z3, z3, z3);
    slice->setInput(2, *zpq->getOutput(0));
    ITensor* dummy = slice->getOutput(0);
    dummy->setName("dummy");
    mNetwork->markOutput(*dummy);
    // The dummy's shape, read back as values: [0, P, Q].
    ITensor* shape = mNetwork->addShape(*dummy)->getOutput(0);
    shape->setName("shape");
    mNetwork->markOutput(*shape);

    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    auto* profile = mBuilder->createOptimizationProfile();
    profile->setDimensions("x", OptProfileSelector::kMIN, dims({1, 1}));
    profile->setDimensions("x", OptProfileSelector::kOPT, dims({3, 4}));
    profile->setDimensions("x", OptProfileSelector::kMAX, dims({8, 8}));
    config->addOptimizationProfile(profile);
    ICudaEngine* engine = load(build(*config));
    ASSERT_NE(engine, nullptr) << mLogger.all();

    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    std::vector<float> input(3 * 5);
    int64_t values[3]{-1, -1, -1};
    float empty[1];
    ASSERT_TRUE(context->setInputShape("x", dims({3, 5})));
    EXPECT_DIMS(context->getTensorShape("dummy"), {0, 3, 5});
    ASSERT_TRUE(context->setTensorAddress("x", input.data()));
    ASSERT_TRUE(context->setTensorAddress("dummy", empty));
    ASSERT_TRUE(context->setTensorAddress("shape", values));
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    EXPECT_EQ(values[0], 0);
    EXPECT_EQ(values[1], 3);
    EXPECT_EQ(values[2], 5);
}

// A reshape whose dims come from a shape input tensor, and a slice whose size does: values given at run time.
TEST_F(EngineTest, ShapeTensorInputsDriveAReshape)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, dims({-1}));
    ITensor* newShape = mNetwork->addInput("new_shape", DataType::kINT32, dims({2}));
    auto* reshape = mNetwork->addShuffle(*x);
    reshape->setInput(1, *newShape);
    reshape->getOutput(0)->setName("y");
    mNetwork->markOutput(*reshape->getOutput(0));

    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    auto* profile = mBuilder->createOptimizationProfile();
    profile->setDimensions("x", OptProfileSelector::kMIN, dims({1}));
    profile->setDimensions("x", OptProfileSelector::kOPT, dims({12}));
    profile->setDimensions("x", OptProfileSelector::kMAX, dims({144}));
    int32_t const low[2]{1, 1};
    int32_t const high[2]{12, 12};
    int32_t const opt[2]{3, 4};
    profile->setShapeValues("new_shape", OptProfileSelector::kMIN, low, 2);
    profile->setShapeValues("new_shape", OptProfileSelector::kOPT, opt, 2);
    profile->setShapeValues("new_shape", OptProfileSelector::kMAX, high, 2);
    config->addOptimizationProfile(profile);
    ICudaEngine* engine = load(build(*config));
    ASSERT_NE(engine, nullptr) << mLogger.all();
    EXPECT_TRUE(engine->isShapeInferenceIO("new_shape"));
    EXPECT_EQ(engine->getTensorLocation("new_shape"), nvinfer1::TensorLocation::kHOST);

    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    for (auto const& [rows, columns] : {std::pair{3, 4}, std::pair{6, 2}, std::pair{1, 12}, std::pair{2, 3}})
    {
        std::vector<float> input(static_cast<std::size_t>(rows * columns));
        for (std::size_t i = 0; i < input.size(); ++i)
        {
            input[i] = static_cast<float>(i);
        }
        int32_t const shape[2]{rows, columns};
        std::vector<float> output(input.size(), NAN);
        ASSERT_TRUE(context->setInputShape("x", dims({rows * columns})));
        ASSERT_TRUE(context->setInputTensorAddress("new_shape", shape));
        ASSERT_TRUE(context->setTensorAddress("x", input.data()));
        ASSERT_TRUE(context->setTensorAddress("y", output.data()));
        EXPECT_DIMS(context->getTensorShape("y"), {rows, columns});
        ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
        EXPECT_EQ(output, input);
    }
    // A value outside the profile's range is refused.
    int32_t const tooBig[2]{1, 13};
    ASSERT_TRUE(context->setInputShape("x", dims({13})));
    ASSERT_TRUE(context->setInputTensorAddress("new_shape", tooBig));
    mLogger.clear();
    EXPECT_FALSE(context->enqueueV3(nullptr));
    EXPECT_FALSE(mLogger.messages(nvinfer1::ILogger::Severity::kERROR).empty());
}

} // namespace
} // namespace kiln::test
