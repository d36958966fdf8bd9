// SPDX-License-Identifier: Apache-2.0
// End to end through the public API: build a network, serialize it, deserialize the plan in a fresh runtime, run it
// on the host backend and compare with values computed here; dynamic shapes across a profile's range; two contexts
// at once; GELU written with primitive layers (fused into one activation by the build) against the same layers left
// unfused; and the refusals: a shape outside the profile, a missing tensor address, damaged plans.
#include "support/api_test.h"
#include "support/fusion_patterns.h"
#include "support/hostile_crc64.h"

#include "NvInfer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
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
        addReluScale();
        auto config = batchConfig("x", dims({-1, 4}), 4, 8);
        return build(*config);
    }

    //! Adds the layers of y = relu(x) * w + x to the network.
    void addReluScale()
    {
        ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, dims({-1, 4}));
        auto* relu = mNetwork->addActivation(*x, nvinfer1::ActivationType::kRELU);
        auto* w = mNetwork->addConstant(dims({1, 4}), nvinfer1::Weights{DataType::kFLOAT, mScale, 4});
        auto* product
            = mNetwork->addElementWise(*relu->getOutput(0), *w->getOutput(0), nvinfer1::ElementWiseOperation::kPROD);
        auto* sum = mNetwork->addElementWise(*product->getOutput(0), *x, nvinfer1::ElementWiseOperation::kSUM);
        sum->getOutput(0)->setName("y");
        mNetwork->markOutput(*sum->getOutput(0));
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

TEST_F(EngineTest, ReshapesBetweenLayersReadTheirInputsMemory)
{
    // a = x * x; r = a reshaped [N, 2, 3] (a view of a's memory: runtime/shape_values.h, reshapeViews); s = r + r;
    // p = s * s; q = p + r; y = q reshaped [N, 6] (a copy: y is the network's output) = 4 x^4 + x^2. a's last direct
    // reader is the reshape, so only r's reads keep its memory from going to s or p; at every batch of the profile.
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, dims({-1, 6}));
    ITensor* a = mNetwork->addElementWise(*x, *x, nvinfer1::ElementWiseOperation::kPROD)->getOutput(0);
    auto* r = mNetwork->addShuffle(*a);
    r->setReshapeDimensions(dims({-1, 2, 3}));
    ITensor* view = r->getOutput(0);
    ITensor* s = mNetwork->addElementWise(*view, *view, nvinfer1::ElementWiseOperation::kSUM)->getOutput(0);
    ITensor* p = mNetwork->addElementWise(*s, *s, nvinfer1::ElementWiseOperation::kPROD)->getOutput(0);
    ITensor* q = mNetwork->addElementWise(*p, *view, nvinfer1::ElementWiseOperation::kSUM)->getOutput(0);
    auto* y = mNetwork->addShuffle(*q);
    y->setReshapeDimensions(dims({-1, 6}));
    y->getOutput(0)->setName("y");
    mNetwork->markOutput(*y->getOutput(0));
    auto config = batchConfig("x", dims({-1, 6}), 4, 8);
    ICudaEngine* engine = load(build(*config));
    ASSERT_NE(engine, nullptr) << mLogger.all();
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_NE(context, nullptr);
    std::mt19937 random(3);
    std::uniform_real_distribution<float> uniform(-2.F, 2.F);
    for (int64_t const n : {8, 1, 5, 5})
    {
        std::vector<float> in(static_cast<std::size_t>(n * 6));
        std::generate(in.begin(), in.end(), [&] { return uniform(random); });
        std::vector<float> out(in.size(), NAN);
        ASSERT_TRUE(context->setInputShape("x", dims({n, 6})));
        ASSERT_TRUE(context->setTensorAddress("x", in.data()));
        ASSERT_TRUE(context->setTensorAddress("y", out.data()));
        ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
        for (std::size_t i = 0; i < in.size(); ++i)
        {
            float const square = in[i] * in[i];
            EXPECT_FLOAT_EQ(out[i], 4.F * square * square + square) << "batch " << n << " element " << i;
        }
    }
}

TEST_F(EngineTest, AContextSwitchesBetweenTwoProfiles)
{
    addReluScale();
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    for (auto const& [low, high] : {std::pair{1, 4}, std::pair{16, 64}})
    {
        auto* profile = mBuilder->createOptimizationProfile();
        profile->setDimensions("x", OptProfileSelector::kMIN, dims({low, 4}));
        profile->setDimensions("x", OptProfileSelector::kOPT, dims({high, 4}));
        profile->setDimensions("x", OptProfileSelector::kMAX, dims({high, 4}));
        config->addOptimizationProfile(profile);
    }
    ICudaEngine* engine = load(build(*config));
    ASSERT_NE(engine, nullptr) << mLogger.all();
    ASSERT_EQ(engine->getNbOptimizationProfiles(), 2);
    EXPECT_DIMS(engine->getProfileShape("x", 1, OptProfileSelector::kMIN), {16, 4});
    // The larger profile needs more activation memory, and the engine reports the larger of the two.
    EXPECT_GE(engine->getDeviceMemorySizeV2(), engine->getDeviceMemorySizeForProfileV2(0));
    EXPECT_EQ(engine->getDeviceMemorySizeV2(), engine->getDeviceMemorySizeForProfileV2(1));

    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    std::mt19937 random(11);
    runReluScale(*context, 3, random, mScale);
    mLogger.clear();
    EXPECT_FALSE(context->setInputShape("x", dims({32, 4})));
    expectError({"setInputShape", "'x'"});
    ASSERT_TRUE(context->setOptimizationProfileAsync(1, nullptr));
    EXPECT_EQ(context->getOptimizationProfile(), 1);
    runReluScale(*context, 32, random, mScale);
    runReluScale(*context, 64, random, mScale);
    EXPECT_FALSE(context->setOptimizationProfileAsync(2, nullptr));
    ASSERT_TRUE(context->setOptimizationProfileAsync(0, nullptr));
    runReluScale(*context, 4, random, mScale);
}

TEST_F(EngineTest, AProfileThatContradictsAFixedExtentIsRefused)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, dims({-1, 4}));
    mNetwork->markOutput(*mNetwork->addIdentity(*x)->getOutput(0));
    auto config = batchConfig("x", dims({-1, 3}), 2, 4);
    mLogger.clear();
    EXPECT_TRUE(build(*config).empty());
    expectError({"buildSerializedNetwork", "profile 0", "'x'", "extent 1 is fixed at 4"});
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
    storeLittle(plan.data() + 8, 999, 4); // a format major this kiln does not read
    storeLittle(plan.data() + 56, hostileCrc64(plan.data(), 56), 8);
    expectRefused(plan, "version");
}

TEST_F(DamagedPlanTest, AForeignFileIsRefused)
{
    std::vector<uint8_t> plan = mPlan;
    std::memcpy(plan.data(), "ftrtNOPE", 8);
    expectRefused(plan, "not a kiln plan");
}

//! One host type end to end: an input of the type, a layer computing in it, an output of the type.
struct TypeCase
{
    DataType type;
    nvinfer1::UnaryOperation op;
    std::vector<uint8_t> input;    //!< Four elements' bytes, little-endian.
    std::vector<uint8_t> expected; //!< The output's bytes.
};

std::vector<uint8_t> halves(std::initializer_list<uint16_t> values)
{
    std::vector<uint8_t> bytes;
    for (uint16_t const value : values)
    {
        bytes.push_back(static_cast<uint8_t>(value));
        bytes.push_back(static_cast<uint8_t>(value >> 8));
    }
    return bytes;
}

template <typename T>
std::vector<uint8_t> bytesOf(std::initializer_list<T> values)
{
    std::vector<uint8_t> bytes(values.size() * sizeof(T));
    std::memcpy(bytes.data(), values.begin(), bytes.size());
    return bytes;
}

// The encodings below are written out by hand: |-2.5| = 2.5 and the other values are exact in every format.
TEST_F(EngineTest, EveryHostTypeRunsEndToEnd)
{
    using nvinfer1::UnaryOperation;
    std::vector<TypeCase> const cases{
        {DataType::kFLOAT, UnaryOperation::kABS, bytesOf<float>({1.F, -2.5F, 1.5F, -0.75F}),
            bytesOf<float>({1.F, 2.5F, 1.5F, 0.75F})},
        {DataType::kHALF, UnaryOperation::kABS, halves({0x3C00, 0xC100, 0x3E00, 0xBA00}),
            halves({0x3C00, 0x4100, 0x3E00, 0x3A00})},
        {DataType::kBF16, UnaryOperation::kABS, halves({0x3F80, 0xC020, 0x3FC0, 0xBF40}),
            halves({0x3F80, 0x4020, 0x3FC0, 0x3F40})},
        // Dynamic range 127: scale 1, so the stored integers are the values.
        {DataType::kINT8, UnaryOperation::kABS, bytesOf<int8_t>({-3, 5, -127, 0}), bytesOf<int8_t>({3, 5, 127, 0})},
        // E4M3 with dynamic range 448: scale 1. 1.0 = 0x38, -2.5 = 0xC2, 1.5 = 0x3C, -0.75 = 0xB4.
        {DataType::kFP8, UnaryOperation::kABS, {0x38, 0xC2, 0x3C, 0xB4}, {0x38, 0x42, 0x3C, 0x34}},
        {DataType::kINT32, UnaryOperation::kABS, bytesOf<int32_t>({-7, 0, 2147483647, -2147483647}),
            bytesOf<int32_t>({7, 0, 2147483647, 2147483647})},
        {DataType::kINT64, UnaryOperation::kABS, bytesOf<int64_t>({-7, 1LL << 40, -(1LL << 50), 3}),
            bytesOf<int64_t>({7, 1LL << 40, 1LL << 50, 3})},
        {DataType::kBOOL, UnaryOperation::kNOT, {1, 0, 0, 1}, {0, 1, 1, 0}},
    };
    for (TypeCase const& c : cases)
    {
        SCOPED_TRACE(static_cast<int32_t>(c.type));
        recreate(0);
        ITensor* x = mNetwork->addInput("x", c.type, dims({4}));
        auto* unary = mNetwork->addUnary(*x, c.op);
        ITensor* y = unary->getOutput(0);
        y->setName("y");
        mNetwork->markOutput(*y);
        float const range = c.type == DataType::kINT8 ? 127.F : 448.F;
        if (c.type == DataType::kINT8 || c.type == DataType::kFP8)
        {
            x->setDynamicRange(-range, range);
            y->setDynamicRange(-range, range);
        }
        std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
        ICudaEngine* engine = load(build(*config));
        ASSERT_NE(engine, nullptr) << mLogger.all();
        EXPECT_EQ(engine->getTensorDataType("y"), c.type);
        std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
        std::vector<uint8_t> input = c.input;
        std::vector<uint8_t> output(c.expected.size(), 0xEE);
        ASSERT_TRUE(context->setTensorAddress("x", input.data()));
        ASSERT_TRUE(context->setTensorAddress("y", output.data()));
        ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
        EXPECT_EQ(output, c.expected);
    }
}

// The CUDA build's channels-last layouts (builder/layout.h) on the host backend (KILN_CHANNELS_LAST=1 asks a host
// build for them), against the same network built kLINEAR: x [2, 3, 20, 20] -> half -> a ResNet stem (7x7 of stride 2,
// 3 -> 16 channels, padding 3) -> 3x3 max pooling of stride 2, padding 1 -> 3x3 convolution 16 -> 16 -> 3x3 average
// pooling of stride 1, padding 1 (padding counted) -> 3x3 convolution 16 -> 16 -> float. The channels-last engine
// reformats x into kHWC8 (3 channels padded to 8), runs every layer between in kHWC8 (the stem's kernel KRSC with 8
// channels) and reformats the result back: one reformat at each edge. The host runs each layer on linear copies, so
// both engines compute the same values; the weights are multiples of 1/64 below 1/2, which half holds exactly (the
// channels-last kernels are stored in half).
TEST_F(EngineTest, ChannelsLastLayoutsOnTheHostMatchLinear)
{
    Dims const shape = dims({2, 3, 20, 20});
    // Both builds make the same weights: the n-th weights of a build are the same values.
    std::vector<std::vector<float>> weights;
    std::size_t made = 0;
    auto const weightsOf = [&](int64_t count) {
        weights.emplace_back(static_cast<std::size_t>(count));
        ++made;
        for (std::size_t i = 0; i < weights.back().size(); ++i)
        {
            weights.back()[i] = static_cast<float>(static_cast<int64_t>((i * 37 + made * 11) % 61) - 30) / 64.F / 4.F;
        }
        return nvinfer1::Weights{DataType::kFLOAT, weights.back().data(), count};
    };
    auto const buildWith = [&](char const* channelsLast) {
        setenv("KILN_CHANNELS_LAST", channelsLast, 1);
        made = 0;
        recreate(0);
        ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, shape);
        ITensor* h = mNetwork->addCast(*x, DataType::kHALF)->getOutput(0);
        auto const conv = [&](ITensor& in, int64_t size, int64_t stride, char const* name) {
            int64_t const channels = in.getDimensions().d[1];
            auto* layer = mNetwork->addConvolutionNd(
                in, 16, Dims{2, {size, size}}, weightsOf(16 * channels * size * size), weightsOf(16));
            layer->setStrideNd(Dims{2, {stride, stride}});
            layer->setPaddingNd(Dims{2, {size / 2, size / 2}});
            layer->setName(name);
            return layer->getOutput(0);
        };
        auto const pool = [&](ITensor& in, nvinfer1::PoolingType type, int64_t stride, char const* name) {
            auto* layer = mNetwork->addPoolingNd(in, type, Dims{2, {3, 3}});
            layer->setStrideNd(Dims{2, {stride, stride}});
            layer->setPaddingNd(Dims{2, {1, 1}});
            layer->setAverageCountExcludesPadding(false);
            layer->setName(name);
            return layer->getOutput(0);
        };
        h = conv(*h, 7, 2, "stem");
        h = pool(*h, nvinfer1::PoolingType::kMAX, 2, "maxpool");
        h = conv(*h, 3, 1, "c1");
        h = pool(*h, nvinfer1::PoolingType::kAVERAGE, 1, "avgpool");
        h = conv(*h, 3, 1, "c2");
        auto* y = mNetwork->addCast(*h, DataType::kFLOAT);
        y->getOutput(0)->setName("y");
        mNetwork->markOutput(*y->getOutput(0));
        std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
        std::vector<uint8_t> plan = build(*config);
        unsetenv("KILN_CHANNELS_LAST");
        return plan;
    };
    std::vector<uint8_t> const linearPlan = buildWith("0");
    std::vector<uint8_t> const channelsLastPlan = buildWith("1");
    ASSERT_FALSE(linearPlan.empty()) << mLogger.all();
    ASSERT_FALSE(channelsLastPlan.empty()) << mLogger.all();

    std::vector<float> x(static_cast<std::size_t>(2 * 3 * 20 * 20));
    std::mt19937 random(7);
    std::uniform_real_distribution<float> uniform(-1.F, 1.F);
    std::generate(x.begin(), x.end(), [&] { return uniform(random); });
    std::vector<std::string> layers;
    auto const run = [&](std::vector<uint8_t> const& plan) {
        ICudaEngine* engine = load(plan);
        EXPECT_NE(engine, nullptr);
        std::vector<float> y(2 * 16 * 5 * 5, NAN);
        if (engine == nullptr)
        {
            return y;
        }
        std::unique_ptr<nvinfer1::IEngineInspector> inspector{engine->createEngineInspector()};
        layers.emplace_back(inspector->getEngineInformation(nvinfer1::LayerInformationFormat::kONELINE));
        std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
        EXPECT_TRUE(context->setTensorAddress("x", x.data()));
        EXPECT_TRUE(context->setTensorAddress("y", y.data()));
        EXPECT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
        EXPECT_DIMS(context->getTensorShape("y"), {2, 16, 5, 5});
        return y;
    };
    std::vector<float> const linear = run(linearPlan);
    std::vector<float> const channelsLast = run(channelsLastPlan);
    EXPECT_EQ(channelsLast, linear);
    EXPECT_TRUE(std::none_of(linear.begin(), linear.end(), [](float v) { return std::isnan(v); }));

    ASSERT_EQ(layers.size(), 2U);
    EXPECT_EQ(layers[0].find("kHWC8"), std::string::npos) << layers[0];
    std::string const& chosen = layers[1];
    EXPECT_NE(chosen.find("Name: stem input 0 to kHWC8,"), std::string::npos) << chosen;
    EXPECT_NE(chosen.find("Name: c2 output 0 from kHWC8,"), std::string::npos) << chosen;
    EXPECT_EQ(chosen.find(" to kHWC8,"), chosen.rfind(" to kHWC8,")) << "one reformat into kHWC8: " << chosen;
    EXPECT_EQ(chosen.find(" from kHWC8,"), chosen.rfind(" from kHWC8,")) << "one back: " << chosen;
    // The inspector says the format of the tensors between.
    EXPECT_NE(chosen.find("Name: maxpool, LayerType: Pooling, Inputs: [{ Name: "), std::string::npos) << chosen;
    EXPECT_NE(chosen.find("Format/Datatype: Channels last FP16 format, channels padded to a multiple of 8 (kHWC8) }"),
        std::string::npos)
        << chosen;
}

// Explicit quantization in a weakly typed network: the kINT8, kFP8 and kINT4 tensors that quantize layers make and
// dequantize layers read hold codes, so none needs a dynamic range; the plan round trip keeps the layers' parameters.
TEST_F(EngineTest, QuantizeAndDequantizeRunEndToEnd)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, dims({2, 3}));
    float perChannel[] = {0.5F, 1.F, 2.F};
    float perTensor[] = {0.25F};
    ITensor* channelScale = mNetwork->addConstant(dims({3}), {DataType::kFLOAT, perChannel, 3})->getOutput(0);
    ITensor* tensorScale = mNetwork->addConstant(dims({}), {DataType::kFLOAT, perTensor, 1})->getOutput(0);

    auto* q = mNetwork->addQuantize(*x, *channelScale);
    q->setAxis(1);
    auto* dq = mNetwork->addDequantize(*q->getOutput(0), *channelScale);
    dq->setAxis(-1);
    auto* q8 = mNetwork->addQuantize(*x, *tensorScale, DataType::kFP8);
    auto* dq8 = mNetwork->addDequantize(*q8->getOutput(0), *tensorScale, DataType::kHALF);
    auto* q4 = mNetwork->addQuantize(*x, *channelScale, DataType::kINT4);
    q4->setAxis(1);
    auto* dq4 = mNetwork->addDequantize(*q4->getOutput(0), *channelScale);
    dq4->setAxis(1);
    std::pair<nvinfer1::ILayer*, char const*> const outputs[]
        = {{q, "codes"}, {dq, "y"}, {q8, "fp8"}, {dq8, "y8"}, {q4, "int4"}, {dq4, "y4"}};
    for (auto const& [layer, name] : outputs)
    {
        layer->getOutput(0)->setName(name);
        mNetwork->markOutput(*layer->getOutput(0));
    }
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    ICudaEngine* engine = load(build(*config));
    ASSERT_NE(engine, nullptr) << mLogger.all();
    EXPECT_EQ(engine->getTensorDataType("codes"), DataType::kINT8);
    EXPECT_EQ(engine->getTensorDataType("fp8"), DataType::kFP8);
    EXPECT_EQ(engine->getTensorDataType("int4"), DataType::kINT4);
    EXPECT_EQ(engine->getTensorDataType("y8"), DataType::kHALF);

    std::vector<float> input{1.25F, -3.F, 5.F, 100.F, 0.75F, -300.F};
    std::vector<int8_t> codes(6), int4(3);
    std::vector<uint8_t> fp8(6);
    std::vector<float> y(6), y4(6);
    std::vector<uint16_t> y8(6);
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_TRUE(context->setTensorAddress("x", input.data()));
    for (auto const& [name, data] : std::initializer_list<std::pair<char const*, void*>>{{"codes", codes.data()},
             {"y", y.data()}, {"fp8", fp8.data()}, {"y8", y8.data()}, {"int4", int4.data()}, {"y4", y4.data()}})
    {
        ASSERT_TRUE(context->setTensorAddress(name, data));
    }
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    // x / [0.5, 1, 2] per column: 2.5 -> 2, -3, 2.5 -> 2; 200 -> 127, 0.75 -> 1, -150.
    EXPECT_EQ(codes, (std::vector<int8_t>{2, -3, 2, 127, 1, -128}));
    EXPECT_EQ(y, (std::vector<float>{1.F, -3.F, 4.F, 63.5F, 1.F, -256.F}));
    // x / 0.25 in E4M3: 5 (0x4A), -12 (0xD4), 20 (0x5A), 400 (the tie of 384 and 416: the even 384, 0x7C), 3 (0x44),
    // -1200 (saturated: -448, 0xFE).
    std::vector<uint8_t> const expectedFp8{0x4A, 0xD4, 0x5A, 0x7C, 0x44, 0xFE};
    EXPECT_EQ(fp8, expectedFp8);
    // INT4 [-8, 7]: 2.5 -> 2, -3, 2.5 -> 2; 200 -> 7, 0.75 -> 1, -150 -> -8; packed low nibble first.
    EXPECT_EQ(
        int4, (std::vector<int8_t>{static_cast<int8_t>(0xD2), static_cast<int8_t>(0x72), static_cast<int8_t>(0x81)}));
    EXPECT_EQ(y4, (std::vector<float>{1.F, -3.F, 4.F, 3.5F, 1.F, -16.F}));
    EXPECT_EQ(y8[0], 0x3D00); // 1.25 in half
}

// A grid sample of an input at positions another input gives (ONNX's reference values: grid_sample_golden.py), the
// rows of the result reversed by lengths given as an input, and an Einsum of the two: built, written, loaded and run.
TEST_F(EngineTest, GridSampleReverseSequenceAndEinsumRunEndToEnd)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, dims({1, 1, 2, 3}));
    ITensor* grid = mNetwork->addInput("grid", DataType::kFLOAT, dims({1, 2, 4, 2}));
    ITensor* lengths = mNetwork->addInput("lengths", DataType::kINT64, dims({2}));
    auto* sample = mNetwork->addGridSample(*x, *grid);
    ASSERT_TRUE(sample->setSampleMode(nvinfer1::SampleMode::kCLAMP));
    auto* rows = mNetwork->addShuffle(*sample->getOutput(0));
    rows->setReshapeDimensions(dims({2, 4}));
    auto* reversed = mNetwork->addReverseSequence(*rows->getOutput(0), *lengths);
    reversed->setBatchAxis(0);
    reversed->setSequenceAxis(1);
    ITensor* operands[] = {reversed->getOutput(0), rows->getOutput(0)};
    auto* einsum = mNetwork->addEinsum(operands, 2, "ij,ij->i");
    std::pair<nvinfer1::ILayer*, char const*> const outputs[] = {{sample, "y"}, {reversed, "r"}, {einsum, "e"}};
    for (auto const& [layer, name] : outputs)
    {
        layer->getOutput(0)->setName(name);
        mNetwork->markOutput(*layer->getOutput(0));
    }
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    ICudaEngine* engine = load(build(*config));
    ASSERT_NE(engine, nullptr) << mLogger.all();

    std::vector<float> in{1, 2, 3, 4, 5, 6};
    std::vector<float> positions{
        -1.0F, -1.0F, 0.0F, 0.0F, 1.0F, 1.0F, -1.7F, 0.3F, 1.9F, -1.4F, 0.5F, 0.25F, 2.6F, 1.2F, -0.2F, -3.1F};
    std::vector<int64_t> lens{4, 2};
    std::vector<float> y(8), r(8), e(2);
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    for (auto const& [name, data] : std::initializer_list<std::pair<char const*, void*>>{{"x", in.data()},
             {"grid", positions.data()}, {"lengths", lens.data()}, {"y", y.data()}, {"r", r.data()}, {"e", e.data()}})
    {
        ASSERT_TRUE(context->setTensorAddress(name, data)) << name;
    }
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    // ONNX's reference, bilinear with padding "border", corners not aligned.
    std::vector<float> const expected{1.0F, 3.5F, 6.0F, 3.4F, 3.0F, 5.0F, 6.0F, 1.7F};
    for (std::size_t i = 0; i < expected.size(); ++i)
    {
        EXPECT_NEAR(y[i], expected[i], 1e-5F) << i;
    }
    // Row 0 reversed whole, row 1 its first two.
    std::vector<float> const reversedRows{y[3], y[2], y[1], y[0], y[5], y[4], y[6], y[7]};
    EXPECT_EQ(r, reversedRows);
    for (std::size_t i = 0; i < 2; ++i)
    {
        float dot = 0.F;
        for (std::size_t j = 0; j < 4; ++j)
        {
            dot += reversedRows[i * 4 + j] * y[i * 4 + j];
        }
        EXPECT_NEAR(e[i], dot, 1e-4F) << i;
    }
}

// A scatter whose indices are an input: rows of the data replaced (kND), then single elements (kELEMENT, axis 1).
TEST_F(EngineTest, ScatterRunsEndToEnd)
{
    ITensor* data = mNetwork->addInput("data", DataType::kFLOAT, dims({3, 4}));
    ITensor* rows = mNetwork->addInput("rows", DataType::kINT64, dims({2, 1}));
    ITensor* values = mNetwork->addInput("values", DataType::kFLOAT, dims({2, 4}));
    auto* nd = mNetwork->addScatter(*data, *rows, *values, nvinfer1::ScatterMode::kND);
    int32_t columns[] = {3, -4, 0, 1, 2, 3, -1, 0}; // per row of [2, 4]: targets along axis 1
    ITensor* columnIndices = mNetwork->addConstant(dims({2, 4}), {DataType::kINT32, columns, 8})->getOutput(0);
    ITensor* slice = mNetwork->addSlice(*values, dims({0, 0}), dims({2, 4}), dims({1, 1}))->getOutput(0);
    auto* element = mNetwork->addScatter(*nd->getOutput(0), *columnIndices, *slice, nvinfer1::ScatterMode::kELEMENT);
    element->setAxis(1);
    element->getOutput(0)->setName("y");
    mNetwork->markOutput(*element->getOutput(0));
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    ICudaEngine* engine = load(build(*config));
    ASSERT_NE(engine, nullptr) << mLogger.all();
    std::vector<float> in{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    std::vector<int64_t> rowIndices{2, -3}; // rows 2 and 0
    std::vector<float> update{20, 21, 22, 23, 30, 31, 32, 33};
    std::vector<float> y(12);
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_TRUE(context->setTensorAddress("data", in.data()));
    ASSERT_TRUE(context->setTensorAddress("rows", rowIndices.data()));
    ASSERT_TRUE(context->setTensorAddress("values", update.data()));
    ASSERT_TRUE(context->setTensorAddress("y", y.data()));
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    // After kND: row 0 = 30..33, row 1 = 4..7, row 2 = 20..23. Then kELEMENT: update row 0 (20..23) to columns 3, 0,
    // 0, 1 of row 0 (the last write to column 0 wins: 22), update row 1 (30..33) to columns 2, 3, 3, 0 of row 1.
    EXPECT_EQ(y, (std::vector<float>{22, 23, 32, 20, 33, 5, 30, 32, 20, 21, 22, 23}));
}

//! Gives each output the memory it asks for and keeps the shape it is told.
class GrowingAllocator final : public nvinfer1::IOutputAllocator
{
public:
    void* reallocateOutputAsync(char const* /*tensorName*/, void* /*currentMemory*/, uint64_t size,
        uint64_t /*alignment*/, cudaStream_t /*stream*/) noexcept override
    {
        ++mCalls;
        if (size > mMemory.size())
        {
            mMemory.assign(static_cast<std::size_t>(size), 0.F);
        }
        return mMemory.data();
    }
    void notifyShape(char const* /*tensorName*/, Dims const& dims) noexcept override { mShape = dims; }

    std::vector<float> mMemory;
    Dims mShape{-1, {}};
    int32_t mCalls{};
};

// An output whose size depends on the values of an input: a fill whose shape is the largest of the input's values.
// The input is a kFLOAT execution tensor, so no profile can give its values: they are known only while running.
TEST_F(EngineTest, ADataDependentOutputGoesThroughTheOutputAllocator)
{
    ITensor* counts = mNetwork->addInput("counts", DataType::kFLOAT, dims({3}));
    ITensor* integers = mNetwork->addCast(*counts, DataType::kINT32)->getOutput(0);
    auto* largest = mNetwork->addReduce(*integers, nvinfer1::ReduceOperation::kMAX, 1U, true); // [1]
    auto* fill = mNetwork->addFill(dims({1}), nvinfer1::FillOperation::kLINSPACE, DataType::kFLOAT);
    fill->setInput(0, *largest->getOutput(0));
    fill->setAlpha(10.0);
    fill->setBeta(0.5);
    fill->getOutput(0)->setName("ramp");
    mNetwork->markOutput(*fill->getOutput(0));
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    ICudaEngine* engine = load(build(*config));
    ASSERT_NE(engine, nullptr) << mLogger.all();
    EXPECT_DIMS(engine->getTensorShape("ramp"), {-1});

    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    float values[3]{2.F, 5.F, 3.F};
    ASSERT_TRUE(context->setTensorAddress("counts", values));
    // Not known before running, and refused without an allocator.
    EXPECT_DIMS(context->getTensorShape("ramp"), {-1});
    mLogger.clear();
    EXPECT_FALSE(context->enqueueV3(nullptr));
    expectError({"'ramp'", "IOutputAllocator"});

    GrowingAllocator allocator;
    ASSERT_TRUE(context->setOutputAllocator("ramp", &allocator));
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    EXPECT_DIMS(allocator.mShape, {5});
    EXPECT_GE(allocator.mMemory.size(), 5U);
    EXPECT_EQ(std::vector<float>(allocator.mMemory.begin(), allocator.mMemory.begin() + 5),
        (std::vector<float>{10.F, 10.5F, 11.F, 11.5F, 12.F}));

    values[1] = 1.F;
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    EXPECT_DIMS(allocator.mShape, {3});
    EXPECT_EQ(std::vector<float>(allocator.mMemory.begin(), allocator.mMemory.begin() + 3),
        (std::vector<float>{10.F, 10.5F, 11.F}));
}

// A non-zero layer whose output feeds other layers: its transpose gathers the non-zero elements (kND), and a shape
// layer reads its shape. The count is known only once the non-zero layer has run; the gathered values are a
// data-dependent output with an output allocator, the shape an ordinary one.
TEST_F(EngineTest, NonZeroFeedsAGatherAndAShape)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, dims({-1, 4}));
    auto* nonZero = mNetwork->addNonZero(*x, DataType::kINT64);
    ASSERT_NE(nonZero, nullptr);
    auto* transpose = mNetwork->addShuffle(*nonZero->getOutput(0));
    transpose->setFirstTranspose(nvinfer1::Permutation{{1, 0}});
    auto* gather = mNetwork->addGatherV2(*x, *transpose->getOutput(0), nvinfer1::GatherMode::kND);
    gather->getOutput(0)->setName("values");
    mNetwork->markOutput(*gather->getOutput(0));
    auto* shape = mNetwork->addShape(*nonZero->getOutput(0));
    shape->getOutput(0)->setName("shape");
    mNetwork->markOutput(*shape->getOutput(0));
    auto config = batchConfig("x", dims({-1, 4}), 2, 4);
    ICudaEngine* engine = load(build(*config));
    ASSERT_NE(engine, nullptr) << mLogger.all();

    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    GrowingAllocator allocator;
    ASSERT_TRUE(context->setOutputAllocator("values", &allocator));
    std::vector<int64_t> shapeOut(2, -1);
    ASSERT_TRUE(context->setTensorAddress("shape", shapeOut.data()));
    std::vector<float> in{0, 1.5F, 0, -2, 0, 0, 0, 0, 3, 0, 0, 4};
    ASSERT_TRUE(context->setInputShape("x", dims({3, 4})));
    ASSERT_TRUE(context->setTensorAddress("x", in.data()));
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    EXPECT_DIMS(allocator.mShape, {4});
    EXPECT_EQ(std::vector<float>(allocator.mMemory.begin(), allocator.mMemory.begin() + 4),
        (std::vector<float>{1.5F, -2.F, 3.F, 4.F}));
    EXPECT_EQ(shapeOut, (std::vector<int64_t>{2, 4}));

    // Another batch, no non-zero element at all.
    std::vector<float> zeros(8, 0.F);
    ASSERT_TRUE(context->setInputShape("x", dims({2, 4})));
    ASSERT_TRUE(context->setTensorAddress("x", zeros.data()));
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    EXPECT_DIMS(allocator.mShape, {0});
    EXPECT_EQ(shapeOut, (std::vector<int64_t>{2, 0}));
}

// A non-zero layer's output as a network output: through an output allocator, or at an address with room for the
// upper bound (getMaxOutputSize), the shape then read with getTensorShape after the enqueue, as TensorRT allows.
TEST_F(EngineTest, NonZeroOutputThroughTheAllocatorOrAnAddressAndGetTensorShape)
{
    ITensor* x = mNetwork->addInput("x", DataType::kINT32, dims({2, 3}));
    auto* nonZero = mNetwork->addNonZero(*x, DataType::kINT32);
    nonZero->getOutput(0)->setName("indices");
    mNetwork->markOutput(*nonZero->getOutput(0));
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    ICudaEngine* engine = load(build(*config));
    ASSERT_NE(engine, nullptr) << mLogger.all();
    EXPECT_DIMS(engine->getTensorShape("indices"), {2, -1});
    EXPECT_EQ(engine->getTensorDataType("indices"), DataType::kINT32);
    EXPECT_EQ(engine->getNbIOTensors(), 2); // the hidden count is no I/O tensor

    std::vector<int32_t> in{0, 7, 0, -1, 0, 2};
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_TRUE(context->setTensorAddress("x", in.data()));
    EXPECT_EQ(context->getMaxOutputSize("indices"), 2 * 6 * 4); // [2, volume] of kINT32
    std::vector<int32_t> out(12, -1);
    ASSERT_TRUE(context->setTensorAddress("indices", out.data()));
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    EXPECT_DIMS(context->getTensorShape("indices"), {2, 3});
    EXPECT_EQ(std::vector<int32_t>(out.begin(), out.begin() + 6), (std::vector<int32_t>{0, 1, 1, 1, 0, 2}));

    // The same through an output allocator, which is told the shape.
    class Int32Allocator final : public nvinfer1::IOutputAllocator
    {
    public:
        void* reallocateOutputAsync(char const*, void*, uint64_t size, uint64_t, cudaStream_t) noexcept override
        {
            mMemory.assign(static_cast<std::size_t>(size / 4 + 1), -1);
            return mMemory.data();
        }
        void notifyShape(char const*, Dims const& dims) noexcept override { mShape = dims; }
        std::vector<int32_t> mMemory;
        Dims mShape{-1, {}};
    } allocator;
    ASSERT_TRUE(context->setOutputAllocator("indices", &allocator));
    in = {5, 0, 0, 0, 0, 0};
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    EXPECT_DIMS(allocator.mShape, {2, 1});
    EXPECT_EQ(
        std::vector<int32_t>(allocator.mMemory.begin(), allocator.mMemory.begin() + 2), (std::vector<int32_t>{0, 0}));
    EXPECT_DIMS(context->getTensorShape("indices"), {2, 1});
}

// ONNX's NonMaxSuppression example (suppress_by_IOU) through INMSLayer: both outputs, the rows through an allocator.
TEST_F(EngineTest, NmsRunsEndToEnd)
{
    ITensor* boxes = mNetwork->addInput("boxes", DataType::kFLOAT, dims({1, 6, 4}));
    ITensor* scores = mNetwork->addInput("scores", DataType::kFLOAT, dims({1, 6, 1}));
    int32_t limit = 3;
    float iou = 0.5F;
    ITensor* limitTensor = mNetwork->addConstant(dims({}), {DataType::kINT32, &limit, 1})->getOutput(0);
    ITensor* iouTensor = mNetwork->addConstant(dims({}), {DataType::kFLOAT, &iou, 1})->getOutput(0);
    auto* nms = mNetwork->addNMS(*boxes, *scores, *limitTensor, DataType::kINT64);
    ASSERT_NE(nms, nullptr);
    nms->setInput(3, *iouTensor);
    nms->getOutput(0)->setName("selected");
    nms->getOutput(1)->setName("count");
    mNetwork->markOutput(*nms->getOutput(0));
    mNetwork->markOutput(*nms->getOutput(1));
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    ICudaEngine* engine = load(build(*config));
    ASSERT_NE(engine, nullptr) << mLogger.all();
    EXPECT_DIMS(engine->getTensorShape("selected"), {-1, 3});

    std::vector<float> boxData{0.0F, 0.0F, 1.0F, 1.0F, 0.0F, 0.1F, 1.0F, 1.1F, 0.0F, -0.1F, 1.0F, 0.9F, 0.0F, 10.0F,
        1.0F, 11.0F, 0.0F, 10.1F, 1.0F, 11.1F, 0.0F, 100.0F, 1.0F, 101.0F};
    std::vector<float> scoreData{0.9F, 0.75F, 0.6F, 0.95F, 0.5F, 0.3F};
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_TRUE(context->setTensorAddress("boxes", boxData.data()));
    ASSERT_TRUE(context->setTensorAddress("scores", scoreData.data()));
    EXPECT_EQ(context->getMaxOutputSize("selected"), 3 * 3 * 8); // B * C * min(N, 3) rows
    class Int64Allocator final : public nvinfer1::IOutputAllocator
    {
    public:
        void* reallocateOutputAsync(char const*, void*, uint64_t size, uint64_t, cudaStream_t) noexcept override
        {
            mMemory.assign(static_cast<std::size_t>(size / 8 + 1), -1);
            return mMemory.data();
        }
        void notifyShape(char const*, Dims const& dims) noexcept override { mShape = dims; }
        std::vector<int64_t> mMemory;
        Dims mShape{-1, {}};
    } allocator;
    ASSERT_TRUE(context->setOutputAllocator("selected", &allocator));
    int32_t count = -1;
    ASSERT_TRUE(context->setTensorAddress("count", &count));
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    EXPECT_EQ(count, 3);
    EXPECT_DIMS(allocator.mShape, {3, 3});
    EXPECT_EQ(std::vector<int64_t>(allocator.mMemory.begin(), allocator.mMemory.begin() + 9),
        (std::vector<int64_t>{0, 0, 3, 0, 0, 0, 0, 0, 5}));
}

// NMS thresholds given at run time: an IoU threshold outside [0, 1] fails the enqueue with a message naming the layer.
TEST_F(EngineTest, NmsRefusesAnIouThresholdOutsideZeroToOne)
{
    ITensor* boxes = mNetwork->addInput("boxes", DataType::kFLOAT, dims({1, 2, 4}));
    ITensor* scores = mNetwork->addInput("scores", DataType::kFLOAT, dims({1, 2, 1}));
    ITensor* iou = mNetwork->addInput("iou", DataType::kFLOAT, dims({}));
    int32_t limit = 2;
    auto* nms = mNetwork->addNMS(*boxes, *scores,
        *mNetwork->addConstant(dims({}), {DataType::kINT32, &limit, 1})->getOutput(0), DataType::kINT32);
    nms->setName("suppress");
    nms->setInput(3, *iou);
    nms->getOutput(1)->setName("count");
    mNetwork->markOutput(*nms->getOutput(1));
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    ICudaEngine* engine = load(build(*config));
    ASSERT_NE(engine, nullptr) << mLogger.all();
    std::vector<float> boxData{0, 0, 1, 1, 0, 0, 1, 1};
    std::vector<float> scoreData{0.5F, 0.25F};
    float threshold = 1.5F;
    int32_t count = -1;
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_TRUE(context->setTensorAddress("boxes", boxData.data()));
    ASSERT_TRUE(context->setTensorAddress("scores", scoreData.data()));
    ASSERT_TRUE(context->setTensorAddress("iou", &threshold));
    ASSERT_TRUE(context->setTensorAddress("count", &count));
    mLogger.clear();
    EXPECT_FALSE(context->enqueueV3(nullptr));
    expectError({"'suppress'", "the IoU threshold is 1.5", "it must lie in [0, 1]"});
    threshold = 0.5F; // identical boxes: the second is suppressed
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    EXPECT_EQ(count, 1);
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
    // A host engine takes every I/O tensor in host memory.
    EXPECT_EQ(engine->getTensorLocation("x"), nvinfer1::TensorLocation::kHOST);
    EXPECT_EQ(engine->getTensorLocation("y"), nvinfer1::TensorLocation::kHOST);

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

// An if-conditional whose branches give outputs of different shapes: the true branch exp(x) [2, 3], the false branch
// a gather of x's rows [1, 3]. Only the chosen branch runs: an index out of range fails the gather only when the false
// branch is chosen. The output's shape follows the branch taken, through the output allocator.
TEST_F(EngineTest, IfConditionalRunsOnlyTheChosenBranch)
{
    ITensor* flag = mNetwork->addInput("flag", DataType::kBOOL, dims({}));
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, dims({2, 3}));
    ITensor* index = mNetwork->addInput("index", DataType::kINT32, dims({1}));
    nvinfer1::IIfConditional* conditional = mNetwork->addIfConditional();
    ASSERT_NE(conditional->setCondition(*flag), nullptr);
    ITensor* in = conditional->addInput(*x)->getOutput(0);
    ITensor* onTrue = mNetwork->addUnary(*in, nvinfer1::UnaryOperation::kEXP)->getOutput(0);
    ITensor* onFalse = mNetwork->addGather(*in, *index, 0)->getOutput(0);
    auto* out = conditional->addOutput(*onTrue, *onFalse);
    ASSERT_NE(out, nullptr);
    out->getOutput(0)->setName("y");
    mNetwork->markOutput(*out->getOutput(0));
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    ICudaEngine* engine = load(build(*config));
    ASSERT_NE(engine, nullptr) << mLogger.all();
    EXPECT_DIMS(engine->getTensorShape("y"), {-1, 3});

    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    GrowingAllocator allocator;
    ASSERT_TRUE(context->setOutputAllocator("y", &allocator));
    std::vector<float> xs{0.5F, -1.F, 2.F, 3.F, -4.F, 0.25F};
    bool chosen = true;
    int32_t row = 7; // out of range: the gather fails if it runs
    ASSERT_TRUE(context->setTensorAddress("flag", &chosen));
    ASSERT_TRUE(context->setTensorAddress("x", xs.data()));
    ASSERT_TRUE(context->setTensorAddress("index", &row));
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    EXPECT_DIMS(allocator.mShape, {2, 3});
    for (std::size_t i = 0; i < xs.size(); ++i)
    {
        EXPECT_FLOAT_EQ(allocator.mMemory[i], std::exp(xs[i])) << i;
    }

    chosen = false;
    row = 1;
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    EXPECT_DIMS(allocator.mShape, {1, 3});
    EXPECT_EQ(std::vector<float>(allocator.mMemory.begin(), allocator.mMemory.begin() + 3),
        (std::vector<float>{3.F, -4.F, 0.25F}));

    // The false branch does run when it is chosen.
    row = 7;
    mLogger.clear();
    EXPECT_FALSE(context->enqueueV3(nullptr));
    EXPECT_FALSE(mLogger.messages(nvinfer1::ILogger::Severity::kERROR).empty());
}

// Conditionals nested in a branch, with outputs of one shape at a plain address: outer ? (inner ? exp(x) : -x) : |x|.
TEST_F(EngineTest, NestedIfConditionals)
{
    ITensor* outerFlag = mNetwork->addInput("outer", DataType::kBOOL, dims({}));
    ITensor* innerFlag = mNetwork->addInput("inner", DataType::kBOOL, dims({}));
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, dims({4}));
    nvinfer1::IIfConditional* outer = mNetwork->addIfConditional();
    outer->setName("outer");
    nvinfer1::IIfConditional* inner = mNetwork->addIfConditional();
    inner->setName("inner");
    ASSERT_NE(outer->setCondition(*outerFlag), nullptr);
    ASSERT_NE(inner->setCondition(*innerFlag), nullptr);
    auto* innerOut = inner->addOutput(*mNetwork->addUnary(*x, nvinfer1::UnaryOperation::kEXP)->getOutput(0),
        *mNetwork->addUnary(*x, nvinfer1::UnaryOperation::kNEG)->getOutput(0));
    auto* outerOut = outer->addOutput(
        *innerOut->getOutput(0), *mNetwork->addUnary(*x, nvinfer1::UnaryOperation::kABS)->getOutput(0));
    outerOut->getOutput(0)->setName("y");
    mNetwork->markOutput(*outerOut->getOutput(0));
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    ICudaEngine* engine = load(build(*config));
    ASSERT_NE(engine, nullptr) << mLogger.all();
    EXPECT_DIMS(engine->getTensorShape("y"), {4});

    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    std::vector<float> xs{-1.5F, 0.F, 2.F, -0.25F};
    std::vector<float> y(4, NAN);
    bool a = true;
    bool b = true;
    ASSERT_TRUE(context->setTensorAddress("outer", &a));
    ASSERT_TRUE(context->setTensorAddress("inner", &b));
    ASSERT_TRUE(context->setTensorAddress("x", xs.data()));
    ASSERT_TRUE(context->setTensorAddress("y", y.data()));
    for (bool const outerValue : {true, false})
    {
        for (bool const innerValue : {true, false})
        {
            a = outerValue;
            b = innerValue;
            ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
            for (std::size_t i = 0; i < xs.size(); ++i)
            {
                float const expected = !a ? std::fabs(xs[i]) : b ? std::exp(xs[i]) : -xs[i];
                EXPECT_FLOAT_EQ(y[i], expected) << "outer " << a << " inner " << b << " element " << i;
            }
        }
    }
}

// A conditional without a condition, or one whose branches differ in type, is refused by the build with a message
// that names the layer.
TEST_F(EngineTest, AnIfConditionalWithoutAConditionIsRefusedByTheBuild)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, dims({4}));
    nvinfer1::IIfConditional* conditional = mNetwork->addIfConditional();
    auto* out = conditional->addOutput(*x, *x);
    out->setName("choice");
    mNetwork->markOutput(*out->getOutput(0));
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    mLogger.clear();
    EXPECT_TRUE(build(*config).empty());
    expectError({"'choice'", "has no condition"});
}

// A counted loop over the rows of x [4, 3]: sum (a recurrence) += row (an iterator); the running sums stacked along
// axis 0 (kCONCATENATE), the rows iterated backwards stacked along axis 1 (kREVERSE of a reversed iterator gives them
// in order again), and the last sum (kLAST_VALUE).
TEST_F(EngineTest, ACountedLoopIteratesRecursAndStacks)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, dims({4, 3}));
    static int32_t const four = 4;
    static float const zeros[3]{0.F, 0.F, 0.F};
    ITensor* count = mNetwork->addConstant(dims({}), nvinfer1::Weights{DataType::kINT32, &four, 1})->getOutput(0);
    ITensor* zero = mNetwork->addConstant(dims({3}), nvinfer1::Weights{DataType::kFLOAT, zeros, 3})->getOutput(0);
    nvinfer1::ILoop* loop = mNetwork->addLoop();
    ASSERT_NE(loop, nullptr);
    ASSERT_NE(loop->addTripLimit(*count, nvinfer1::TripLimit::kCOUNT), nullptr);
    ITensor* row = loop->addIterator(*x)->getOutput(0);
    ITensor* backwards = loop->addIterator(*x, 0, true)->getOutput(0);
    nvinfer1::IRecurrenceLayer* sum = loop->addRecurrence(*zero);
    ITensor* next
        = mNetwork->addElementWise(*sum->getOutput(0), *row, nvinfer1::ElementWiseOperation::kSUM)->getOutput(0);
    sum->setInput(1, *next);
    auto* running = loop->addLoopOutput(*next, nvinfer1::LoopOutput::kCONCATENATE, 0);
    running->setInput(1, *count);
    auto* columns = loop->addLoopOutput(*backwards, nvinfer1::LoopOutput::kREVERSE, 1);
    columns->setInput(1, *count);
    auto* total = loop->addLoopOutput(*sum->getOutput(0), nvinfer1::LoopOutput::kLAST_VALUE);
    running->getOutput(0)->setName("running");
    columns->getOutput(0)->setName("columns");
    total->getOutput(0)->setName("total");
    for (auto* out : {running, columns, total})
    {
        mNetwork->markOutput(*out->getOutput(0));
    }
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    ICudaEngine* engine = load(build(*config));
    ASSERT_NE(engine, nullptr) << mLogger.all();
    EXPECT_DIMS(engine->getTensorShape("running"), {4, 3});
    EXPECT_DIMS(engine->getTensorShape("columns"), {3, 4});
    EXPECT_DIMS(engine->getTensorShape("total"), {3});

    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    std::vector<float> xs{1, 2, 3, 10, 20, 30, 100, 200, 300, 1000, 2000, 3000};
    std::vector<float> runningOut(12, NAN);
    std::vector<float> columnsOut(12, NAN);
    std::vector<float> totalOut(3, NAN);
    ASSERT_TRUE(context->setTensorAddress("x", xs.data()));
    ASSERT_TRUE(context->setTensorAddress("running", runningOut.data()));
    ASSERT_TRUE(context->setTensorAddress("columns", columnsOut.data()));
    ASSERT_TRUE(context->setTensorAddress("total", totalOut.data()));
    for (int run = 0; run < 2; ++run) // a second run starts from the initial value again
    {
        ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
        EXPECT_EQ(runningOut, (std::vector<float>{1, 2, 3, 11, 22, 33, 111, 222, 333, 1111, 2222, 3333}));
        // Column j holds x's column j: row 3 came first, and kREVERSE put it last.
        EXPECT_EQ(columnsOut, (std::vector<float>{1, 10, 100, 1000, 2, 20, 200, 2000, 3, 30, 300, 3000}));
        EXPECT_EQ(totalOut, (std::vector<float>{1111, 2222, 3333}));
    }
}

// A while loop: i from 0 while i < 5, doubling a value and swapping two recurrences each iteration (double buffering:
// each reads the other's value of the iteration before).
TEST_F(EngineTest, AWhileLoopStopsOnItsConditionAndRecurrencesSwap)
{
    ITensor* start = mNetwork->addInput("start", DataType::kFLOAT, dims({1}));
    static int32_t const zeroValue = 0;
    static int32_t const one = 1;
    static int32_t const five = 5;
    static float const a0 = 1.F;
    static float const b0 = 2.F;
    auto constant = [&](void const* value, DataType type) {
        return mNetwork->addConstant(dims({}), nvinfer1::Weights{type, value, 1})->getOutput(0);
    };
    nvinfer1::ILoop* loop = mNetwork->addLoop();
    nvinfer1::IRecurrenceLayer* i = loop->addRecurrence(*constant(&zeroValue, DataType::kINT32));
    ITensor* more = mNetwork
                        ->addElementWise(
                            *i->getOutput(0), *constant(&five, DataType::kINT32), nvinfer1::ElementWiseOperation::kLESS)
                        ->getOutput(0);
    ASSERT_NE(loop->addTripLimit(*more, nvinfer1::TripLimit::kWHILE), nullptr);
    i->setInput(1,
        *mNetwork
             ->addElementWise(*i->getOutput(0), *constant(&one, DataType::kINT32), nvinfer1::ElementWiseOperation::kSUM)
             ->getOutput(0));
    nvinfer1::IRecurrenceLayer* value = loop->addRecurrence(*start);
    value->setInput(1,
        *mNetwork->addElementWise(*value->getOutput(0), *value->getOutput(0), nvinfer1::ElementWiseOperation::kSUM)
             ->getOutput(0));
    nvinfer1::IRecurrenceLayer* a = loop->addRecurrence(*constant(&a0, DataType::kFLOAT));
    nvinfer1::IRecurrenceLayer* b = loop->addRecurrence(*constant(&b0, DataType::kFLOAT));
    a->setInput(1, *b->getOutput(0));
    b->setInput(1, *a->getOutput(0));
    auto* doubled = loop->addLoopOutput(*value->getOutput(0), nvinfer1::LoopOutput::kLAST_VALUE);
    auto* lastA = loop->addLoopOutput(*a->getOutput(0), nvinfer1::LoopOutput::kLAST_VALUE);
    auto* iterations = loop->addLoopOutput(*i->getOutput(0), nvinfer1::LoopOutput::kLAST_VALUE);
    doubled->getOutput(0)->setName("doubled");
    lastA->getOutput(0)->setName("a");
    iterations->getOutput(0)->setName("i");
    for (auto* out : {doubled, lastA, iterations})
    {
        mNetwork->markOutput(*out->getOutput(0));
    }
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    ICudaEngine* engine = load(build(*config));
    ASSERT_NE(engine, nullptr) << mLogger.all();
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    float in = 3.F;
    float out = NAN;
    float aOut = NAN;
    int32_t iOut = -1;
    ASSERT_TRUE(context->setTensorAddress("start", &in));
    ASSERT_TRUE(context->setTensorAddress("doubled", &out));
    ASSERT_TRUE(context->setTensorAddress("a", &aOut));
    ASSERT_TRUE(context->setTensorAddress("i", &iOut));
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    EXPECT_EQ(iOut, 5);
    EXPECT_EQ(out, 3.F * 32.F);
    EXPECT_EQ(aOut, 2.F); // five swaps: a ends with b's initial value
}

// A loop without a trip limit, or a kLAST_VALUE output of something other than a recurrence, is refused.
TEST_F(EngineTest, LoopRefusals)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, dims({2}));
    nvinfer1::ILoop* loop = mNetwork->addLoop();
    loop->setName("forever");
    EXPECT_EQ(loop->addLoopOutput(*x, nvinfer1::LoopOutput::kLAST_VALUE), nullptr);
    expectError({"ILoop::addLoopOutput", "loop \"forever\"", "reads the output of a recurrence"});
    EXPECT_EQ(loop->addTripLimit(*x, nvinfer1::TripLimit::kCOUNT), nullptr);
    expectError({"ILoop::addTripLimit", "it must be a 0-D kINT32 or kINT64 tensor"});
    EXPECT_EQ(loop->addIterator(*x, 1), nullptr);
    expectError({"ILoop::addIterator", "axis 1 is out of range"});
    nvinfer1::IRecurrenceLayer* r = loop->addRecurrence(*x);
    r->setInput(1, *mNetwork->addUnary(*r->getOutput(0), nvinfer1::UnaryOperation::kNEG)->getOutput(0));
    auto* out = loop->addLoopOutput(*r->getOutput(0), nvinfer1::LoopOutput::kLAST_VALUE);
    mNetwork->markOutput(*out->getOutput(0));
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    mLogger.clear();
    EXPECT_TRUE(build(*config).empty());
    expectError({"no trip limit"});
}

// The network of the CUDA engine test LoopMatchesTheHost, here against values computed directly: h = tanh(h + row)
// over the rows of x [6, 8], stacked along axis 1, the rows reversed along axis 0, the last h; a kWHILE limit on a
// slice of h next to the kCOUNT one.
TEST_F(EngineTest, ALoopStacksAlongAnInnerAxisUnderTwoTripLimits)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, dims({6, 8}));
    static int32_t const six = 6;
    static float const ten = 10.F;
    static float const start[8]{0.1F, -0.2F, 0.3F, -0.4F, 0.5F, -0.6F, 0.7F, -0.8F};
    ITensor* count = mNetwork->addConstant(dims({}), nvinfer1::Weights{DataType::kINT32, &six, 1})->getOutput(0);
    ITensor* limit = mNetwork->addConstant(dims({1}), nvinfer1::Weights{DataType::kFLOAT, &ten, 1})->getOutput(0);
    ITensor* h0 = mNetwork->addConstant(dims({8}), nvinfer1::Weights{DataType::kFLOAT, start, 8})->getOutput(0);
    nvinfer1::ILoop* loop = mNetwork->addLoop();
    ASSERT_NE(loop->addTripLimit(*count, nvinfer1::TripLimit::kCOUNT), nullptr);
    nvinfer1::IRecurrenceLayer* h = loop->addRecurrence(*h0);
    ITensor* row = loop->addIterator(*x)->getOutput(0);
    ITensor* sum = mNetwork->addElementWise(*h->getOutput(0), *row, nvinfer1::ElementWiseOperation::kSUM)->getOutput(0);
    ITensor* next = mNetwork->addActivation(*sum, nvinfer1::ActivationType::kTANH)->getOutput(0);
    h->setInput(1, *next);
    auto* first = mNetwork->addSlice(*h->getOutput(0), dims({0}), dims({1}), dims({1}));
    ITensor* below
        = mNetwork->addElementWise(*first->getOutput(0), *limit, nvinfer1::ElementWiseOperation::kLESS)->getOutput(0);
    auto* scalar = mNetwork->addShuffle(*below);
    scalar->setReshapeDimensions(dims({}));
    ASSERT_NE(loop->addTripLimit(*scalar->getOutput(0), nvinfer1::TripLimit::kWHILE), nullptr);
    auto* stacked = loop->addLoopOutput(*next, nvinfer1::LoopOutput::kCONCATENATE, 1);
    stacked->setInput(1, *count);
    auto* reversed = loop->addLoopOutput(*row, nvinfer1::LoopOutput::kREVERSE, 0);
    reversed->setInput(1, *count);
    auto* last = loop->addLoopOutput(*h->getOutput(0), nvinfer1::LoopOutput::kLAST_VALUE);
    stacked->getOutput(0)->setName("stacked");
    reversed->getOutput(0)->setName("reversed");
    last->getOutput(0)->setName("last");
    for (auto* out : {stacked, reversed, last})
    {
        mNetwork->markOutput(*out->getOutput(0));
    }
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    ICudaEngine* engine = load(build(*config));
    ASSERT_NE(engine, nullptr) << mLogger.all();
    EXPECT_DIMS(engine->getTensorShape("stacked"), {8, 6});

    std::vector<float> xs(48);
    for (std::size_t i = 0; i < xs.size(); ++i)
    {
        xs[i] = static_cast<float>(static_cast<int>(i % 7) - 3) * 0.25F;
    }
    std::vector<float> stackedOut(48, NAN);
    std::vector<float> reversedOut(48, NAN);
    std::vector<float> lastOut(8, NAN);
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_TRUE(context->setTensorAddress("x", xs.data()));
    ASSERT_TRUE(context->setTensorAddress("stacked", stackedOut.data()));
    ASSERT_TRUE(context->setTensorAddress("reversed", reversedOut.data()));
    ASSERT_TRUE(context->setTensorAddress("last", lastOut.data()));
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    std::vector<float> state(start, start + 8);
    for (int t = 0; t < 6; ++t)
    {
        for (int j = 0; j < 8; ++j)
        {
            state[j] = std::tanh(state[j] + xs[t * 8 + j]);
            EXPECT_NEAR(stackedOut[j * 6 + t], state[j], 1e-6F) << "t " << t << " j " << j;
            EXPECT_EQ(reversedOut[(5 - t) * 8 + j], xs[t * 8 + j]);
        }
    }
    for (int j = 0; j < 8; ++j)
    {
        EXPECT_NEAR(lastOut[j], state[j], 1e-6F);
    }
}

// A loop whose body holds another loop is refused by the build, naming a layer of the inner loop.
TEST_F(EngineTest, NestedLoopsAreRefused)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, dims({2}));
    static int32_t const two = 2;
    ITensor* count = mNetwork->addConstant(dims({}), nvinfer1::Weights{DataType::kINT32, &two, 1})->getOutput(0);
    nvinfer1::ILoop* outer = mNetwork->addLoop();
    outer->addTripLimit(*count, nvinfer1::TripLimit::kCOUNT);
    nvinfer1::IRecurrenceLayer* a = outer->addRecurrence(*x);
    nvinfer1::ILoop* inner = mNetwork->addLoop();
    inner->addTripLimit(*count, nvinfer1::TripLimit::kCOUNT);
    nvinfer1::IRecurrenceLayer* b = inner->addRecurrence(*a->getOutput(0)); // starts from the outer loop's value
    b->setInput(1, *mNetwork->addUnary(*b->getOutput(0), nvinfer1::UnaryOperation::kNEG)->getOutput(0));
    auto* innerOut = inner->addLoopOutput(*b->getOutput(0), nvinfer1::LoopOutput::kLAST_VALUE);
    a->setInput(1, *innerOut->getOutput(0));
    auto* out = outer->addLoopOutput(*a->getOutput(0), nvinfer1::LoopOutput::kLAST_VALUE);
    mNetwork->markOutput(*out->getOutput(0));
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    mLogger.clear();
    EXPECT_TRUE(build(*config).empty());
    expectError({"a loop inside another loop is not supported yet by kiln"});
}

// Each GELU form twice from the same x: once as written (the build makes it one activation, builder/fusion_gelu.cpp),
// once with its 1 + erf / 1 + tanh tensor also an output (which keeps every layer); both against the formula here.
TEST_F(EngineTest, GeluWrittenWithPrimitivesMatchesTheUnfusedLayers)
{
    ScalarWeights scalars;
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, dims({3, 40}));
    std::vector<std::string> names;
    for (GeluForm const form :
        {GeluForm::kERF, GeluForm::kERF_HALF_FIRST, GeluForm::kTANH_POW, GeluForm::kTANH_PRODUCTS})
    {
        for (bool const fused : {true, false})
        {
            ITensor* y = primitiveGelu(*mNetwork, *x, form, scalars);
            names.push_back(std::to_string(static_cast<int>(form)) + (fused ? "fused" : "kept"));
            y->setName(names.back().c_str());
            mNetwork->markOutput(*y);
            if (!fused)
            {
                // The sum 1 + ...: the layer before the last two (prod, prod) and the 0.5 constant in every form.
                nvinfer1::ILayer* sum = nullptr;
                for (int32_t l = mNetwork->getNbLayers() - 1; l >= 0 && sum == nullptr; --l)
                {
                    auto* elementwise = dynamic_cast<nvinfer1::IElementWiseLayer*>(mNetwork->getLayer(l));
                    if (elementwise != nullptr && elementwise->getOperation() == nvinfer1::ElementWiseOperation::kSUM)
                    {
                        sum = elementwise;
                    }
                }
                ASSERT_NE(sum, nullptr);
                names.push_back(names.back() + "_sum");
                sum->getOutput(0)->setName(names.back().c_str());
                mNetwork->markOutput(*sum->getOutput(0));
            }
        }
    }
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    ICudaEngine* engine = load(build(*config));
    ASSERT_NE(engine, nullptr) << mLogger.all();

    std::vector<float> in(3 * 40);
    for (std::size_t i = 0; i < in.size(); ++i)
    {
        in[i] = -6.F + 12.F * static_cast<float>(i) / static_cast<float>(in.size() - 1);
    }
    std::vector<std::vector<float>> results(names.size(), std::vector<float>(in.size()));
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_TRUE(context->setTensorAddress("x", in.data()));
    for (std::size_t o = 0; o < names.size(); ++o)
    {
        ASSERT_TRUE(context->setTensorAddress(names[o].c_str(), results[o].data())) << names[o];
    }
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    for (std::size_t o = 0; o < names.size(); o += 3) // fused, kept, kept's sum
    {
        bool const tanh = o >= 6;
        for (std::size_t i = 0; i < in.size(); ++i)
        {
            double const v = in[i];
            double const expected = tanh ? 0.5 * v * (1.0 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)))
                                         : 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
            EXPECT_NEAR(results[o][i], expected, 1e-5 * (1.0 + std::fabs(expected))) << names[o] << " " << v;
            EXPECT_NEAR(results[o][i], results[o + 1][i], 1e-5F * (1.F + std::fabs(results[o][i])))
                << names[o] << " against " << names[o + 1] << " at " << v;
        }
    }
}

} // namespace
} // namespace kiln::test
