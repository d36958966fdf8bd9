// SPDX-License-Identifier: Apache-2.0
// What an application reads before it runs, end to end through the public API on the host backend: extents that are
// constants although the batch is dynamic ((N*c)/N is c) at network definition, in the built and the deserialized
// engine and in a context before its input shapes are set; a 1-D quantization scale of one element taken per tensor;
// and the engine inspector's tensor locations, which follow ICudaEngine::getTensorLocation.
#include "support/api_test.h"

#include "NvInfer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::ICudaEngine;
using nvinfer1::IExecutionContext;
using nvinfer1::ITensor;
using nvinfer1::OptProfileSelector;

class EngineShapes : public ApiTest
{
protected:
    //! The network built (with one profile: input `name` of shape `shape`, extent 0 in [1, 8]), loaded in a runtime of
    //! its own; the plan bytes are kept in mPlan.
    ICudaEngine* buildAndLoad(
        char const* name, Dims shape, nvinfer1::BuilderFlag flag = nvinfer1::BuilderFlag::kDEBUG, bool setFlag = false)
    {
        std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
        config->setProfilingVerbosity(nvinfer1::ProfilingVerbosity::kDETAILED);
        if (setFlag)
        {
            config->setFlag(flag);
        }
        if (name != nullptr)
        {
            auto* profile = mBuilder->createOptimizationProfile();
            for (auto const& [selector, batch] : {std::pair{OptProfileSelector::kMIN, 1},
                     std::pair{OptProfileSelector::kOPT, 4}, std::pair{OptProfileSelector::kMAX, 8}})
            {
                shape.d[0] = batch;
                profile->setDimensions(name, selector, shape);
            }
            config->addOptimizationProfile(profile);
        }
        std::unique_ptr<nvinfer1::IHostMemory> plan{mBuilder->buildSerializedNetwork(*mNetwork, *config)};
        if (plan == nullptr)
        {
            return nullptr;
        }
        auto const* bytes = static_cast<uint8_t const*>(plan->data());
        mPlan.assign(bytes, bytes + plan->size());
        return load();
    }

    //! mPlan deserialized in a runtime of its own.
    ICudaEngine* load()
    {
        mRuntimes.emplace_back(nvinfer1::createInferRuntime(mLogger));
        mEngines.emplace_back(mRuntimes.back()->deserializeCudaEngine(mPlan.data(), mPlan.size()));
        return mEngines.back().get();
    }

    //! Names and marks the output of layer.
    void output(nvinfer1::ILayer& layer, char const* name)
    {
        layer.getOutput(0)->setName(name);
        mNetwork->markOutput(*layer.getOutput(0));
    }

    void TearDown() override
    {
        mEngines.clear();
        mRuntimes.clear();
        ApiTest::TearDown();
    }

    std::vector<uint8_t> mPlan;
    std::vector<std::unique_ptr<nvinfer1::IRuntime>> mRuntimes;
    std::vector<std::unique_ptr<ICudaEngine>> mEngines;
};

// x [N, 3, 8, 8] -> convolution (4 filters 3x3, padding 1) -> max pooling 2x2 -> concatenation with itself on the
// channels -> reshape {0, -1}: y is [N, 8 * 4 * 4], as TensorRT reports it (the inferred extent is (N*128)/N).
TEST_F(EngineShapes, AFlattenAfterADynamicBatchReportsItsConstantExtent)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, dims({-1, 3, 8, 8}));
    std::vector<float> kernel(4 * 3 * 3 * 3, 0.F); // zero filters: each output channel is its bias
    std::vector<float> bias{1.F, -2.F, 3.5F, 0.25F};
    auto* conv = mNetwork->addConvolutionNd(*x, 4, dims({3, 3}),
        {DataType::kFLOAT, kernel.data(), static_cast<int64_t>(kernel.size())}, {DataType::kFLOAT, bias.data(), 4});
    conv->setPaddingNd(dims({1, 1}));
    auto* pool = mNetwork->addPoolingNd(*conv->getOutput(0), nvinfer1::PoolingType::kMAX, dims({2, 2}));
    pool->setStrideNd(dims({2, 2}));
    ITensor* halves[2]{pool->getOutput(0), pool->getOutput(0)};
    auto* concat = mNetwork->addConcatenation(halves, 2);
    concat->setAxis(1);
    auto* flatten = mNetwork->addShuffle(*concat->getOutput(0));
    flatten->setReshapeDimensions(dims({0, -1}));
    output(*flatten, "y");
    EXPECT_DIMS(concat->getOutput(0)->getDimensions(), {-1, 8, 4, 4});
    EXPECT_DIMS(flatten->getOutput(0)->getDimensions(), {-1, 128}) << "at network definition";

    ICudaEngine* engine = buildAndLoad("x", dims({0, 3, 8, 8}));
    ASSERT_NE(engine, nullptr) << mLogger.all();
    EXPECT_DIMS(engine->getTensorShape("y"), {-1, 128});
    ICudaEngine* again = load();
    ASSERT_NE(again, nullptr) << mLogger.all();
    EXPECT_DIMS(again->getTensorShape("y"), {-1, 128}) << "deserialized";

    std::unique_ptr<IExecutionContext> context{again->createExecutionContext()};
    EXPECT_DIMS(context->getTensorShape("y"), {-1, 128}) << "before the input shape is set";
    std::vector<float> input(2 * 3 * 8 * 8);
    std::mt19937 random(7);
    std::uniform_real_distribution<float> uniform(-1.F, 1.F);
    for (float& value : input)
    {
        value = uniform(random);
    }
    std::vector<float> y(2 * 128, -100.F);
    ASSERT_TRUE(context->setInputShape("x", dims({2, 3, 8, 8})));
    EXPECT_DIMS(context->getTensorShape("y"), {2, 128});
    ASSERT_TRUE(context->setTensorAddress("x", input.data()));
    ASSERT_TRUE(context->setTensorAddress("y", y.data()));
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    for (std::size_t i = 0; i < y.size(); ++i)
    {
        ASSERT_EQ(y[i], bias[i / 16 % 4]) << i;
    }
}

// Flatten as ONNX exporters write it, by a reshape to {-1, C*H*W} or {0, -1}: the batch stays dynamic and the rest is
// a constant, at definition and in the engine.
TEST_F(EngineShapes, FlattenByEitherReshapeKeepsTheBatchDynamic)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, dims({-1, 2, 3, 4}));
    auto* byBatch = mNetwork->addShuffle(*x);
    byBatch->setReshapeDimensions(dims({0, -1}));
    output(*byBatch, "by_batch");
    auto* byVolume = mNetwork->addShuffle(*x);
    byVolume->setReshapeDimensions(dims({-1, 24}));
    output(*byVolume, "by_volume");
    auto* transposed = mNetwork->addShuffle(*x); // [2, N, 3, 4], the batch kept by the placeholder at index 1
    transposed->setFirstTranspose(nvinfer1::Permutation{{1, 0, 2, 3}});
    transposed->setReshapeDimensions(dims({-1, 0}));
    output(*transposed, "transposed");
    EXPECT_DIMS(byBatch->getOutput(0)->getDimensions(), {-1, 24});
    EXPECT_DIMS(byVolume->getOutput(0)->getDimensions(), {-1, 24});
    EXPECT_DIMS(transposed->getOutput(0)->getDimensions(), {24, -1});

    ICudaEngine* engine = buildAndLoad("x", dims({0, 2, 3, 4}));
    ASSERT_NE(engine, nullptr) << mLogger.all();
    EXPECT_DIMS(engine->getTensorShape("by_batch"), {-1, 24});
    EXPECT_DIMS(engine->getTensorShape("by_volume"), {-1, 24});
    EXPECT_DIMS(engine->getTensorShape("transposed"), {24, -1});
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_TRUE(context->setInputShape("x", dims({5, 2, 3, 4})));
    EXPECT_DIMS(context->getTensorShape("by_batch"), {5, 24});
    EXPECT_DIMS(context->getTensorShape("by_volume"), {5, 24});
    EXPECT_DIMS(context->getTensorShape("transposed"), {24, 5});
}

// The reshape PyTorch's x.view(x.size(0), -1) exports: Shape -> Gather(0) -> Concat with [-1] -> Reshape.
TEST_F(EngineShapes, AReshapeToAShapeComputedFromShapeGatherConcatIsKnownButForTheBatch)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, dims({-1, 4, 5}));
    ITensor* shape = mNetwork->addShape(*x)->getOutput(0);
    int64_t const first[1]{0};
    int64_t const rest[1]{-1};
    ITensor* index = mNetwork->addConstant(dims({1}), {DataType::kINT64, first, 1})->getOutput(0);
    ITensor* batch = mNetwork->addGather(*shape, *index, 0)->getOutput(0);
    ITensor* minusOne = mNetwork->addConstant(dims({1}), {DataType::kINT64, rest, 1})->getOutput(0);
    ITensor* pieces[2]{batch, minusOne};
    ITensor* newShape = mNetwork->addConcatenation(pieces, 2)->getOutput(0);
    auto* reshape = mNetwork->addShuffle(*x);
    reshape->setInput(1, *newShape);
    output(*reshape, "y");
    EXPECT_DIMS(newShape->getDimensions(), {2});
    EXPECT_DIMS(reshape->getOutput(0)->getDimensions(), {-1, 20}) << "at network definition";

    ICudaEngine* engine = buildAndLoad("x", dims({0, 4, 5}));
    ASSERT_NE(engine, nullptr) << mLogger.all();
    EXPECT_DIMS(engine->getTensorShape("y"), {-1, 20});
    ICudaEngine* again = load();
    ASSERT_NE(again, nullptr) << mLogger.all();
    EXPECT_DIMS(again->getTensorShape("y"), {-1, 20});
    std::unique_ptr<IExecutionContext> context{again->createExecutionContext()};
    EXPECT_DIMS(context->getTensorShape("y"), {-1, 20});
    std::vector<float> input(3 * 20);
    for (std::size_t i = 0; i < input.size(); ++i)
    {
        input[i] = static_cast<float>(i);
    }
    std::vector<float> y(input.size(), -1.F);
    ASSERT_TRUE(context->setInputShape("x", dims({3, 4, 5})));
    EXPECT_DIMS(context->getTensorShape("y"), {3, 20});
    ASSERT_TRUE(context->setTensorAddress("x", input.data()));
    ASSERT_TRUE(context->setTensorAddress("y", y.data()));
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    EXPECT_EQ(y, input);
}

// Input [1, 8] quantized to INT8 with a constant scale of shape [1] and dequantized: TensorRT takes the one scale for
// the whole tensor. Quotients round half to even and saturate to [-128, 127].
TEST_F(EngineShapes, AOneElementScaleQuantizesPerTensor)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, dims({1, 8}));
    float const half[1]{0.5F};
    ITensor* scale = mNetwork->addConstant(dims({1}), {DataType::kFLOAT, half, 1})->getOutput(0);
    auto* quantize = mNetwork->addQuantize(*x, *scale);
    ASSERT_NE(quantize, nullptr) << mLogger.all();
    auto* dequantize = mNetwork->addDequantize(*quantize->getOutput(0), *scale);
    ASSERT_NE(dequantize, nullptr) << mLogger.all();
    output(*quantize, "codes");
    output(*dequantize, "y");

    ICudaEngine* engine = buildAndLoad(nullptr, Dims{}, nvinfer1::BuilderFlag::kINT8, true);
    ASSERT_NE(engine, nullptr) << mLogger.all();
    EXPECT_EQ(engine->getTensorDataType("codes"), DataType::kINT8);
    std::vector<float> input{0.25F, 0.75F, 1.25F, -0.75F, 63.5F, 64.5F, 100.F, -100.F};
    std::vector<int8_t> codes(8, 99);
    std::vector<float> y(8, -1.F);
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_TRUE(context->setTensorAddress("x", input.data()));
    ASSERT_TRUE(context->setTensorAddress("codes", codes.data()));
    ASSERT_TRUE(context->setTensorAddress("y", y.data()));
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    // Quotients 0.5, 1.5, 2.5, -1.5, 127, 129, 200, -200.
    EXPECT_EQ(codes, (std::vector<int8_t>{0, 2, 2, -2, 127, 127, 127, -128}));
    EXPECT_EQ(y, (std::vector<float>{0.F, 1.F, 1.F, -1.F, 63.5F, 63.5F, 63.5F, -64.F}));
}

//! The "Location" the inspector gives tensor name in text (JSON or one line), or "" when it names no such tensor.
std::string locationIn(std::string const& text, std::string const& name, bool json)
{
    std::string const key = json ? "{\"Name\": \"" + name + "\", \"Location\": \"" : "{ Name: " + name + ", Location: ";
    std::size_t const at = text.find(key);
    if (at == std::string::npos)
    {
        return "";
    }
    std::size_t const begin = at + key.size();
    return text.substr(begin, text.find_first_of("\",", begin) - begin);
}

// A host engine takes every I/O tensor in host memory (getTensorLocation says kHOST) and keeps every tensor there: the
// inspector says so, in both formats, for the data, the shape input and the tensors between layers.
TEST_F(EngineShapes, TheInspectorsLocationsFollowGetTensorLocationOnAHostEngine)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, dims({-1}));
    ITensor* newShape = mNetwork->addInput("new_shape", DataType::kINT32, dims({2}));
    auto* relu = mNetwork->addActivation(*x, nvinfer1::ActivationType::kRELU);
    relu->getOutput(0)->setName("h");
    auto* reshape = mNetwork->addShuffle(*relu->getOutput(0));
    reshape->setInput(1, *newShape);
    output(*reshape, "y");
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    config->setProfilingVerbosity(nvinfer1::ProfilingVerbosity::kDETAILED);
    auto* profile = mBuilder->createOptimizationProfile();
    int32_t const low[2]{1, 1};
    int32_t const high[2]{12, 12};
    int32_t const opt[2]{3, 4};
    for (auto const& [selector, extent, values] : {std::tuple{OptProfileSelector::kMIN, 1, low},
             std::tuple{OptProfileSelector::kOPT, 12, opt}, std::tuple{OptProfileSelector::kMAX, 144, high}})
    {
        profile->setDimensions("x", selector, dims({extent}));
        profile->setShapeValues("new_shape", selector, values, 2);
    }
    config->addOptimizationProfile(profile);
    std::unique_ptr<nvinfer1::IHostMemory> plan{mBuilder->buildSerializedNetwork(*mNetwork, *config)};
    ASSERT_NE(plan, nullptr) << mLogger.all();
    auto const* bytes = static_cast<uint8_t const*>(plan->data());
    mPlan.assign(bytes, bytes + plan->size());
    ICudaEngine* engine = load();
    ASSERT_NE(engine, nullptr) << mLogger.all();

    std::unique_ptr<nvinfer1::IEngineInspector> inspector{engine->createEngineInspector()};
    ASSERT_NE(inspector, nullptr);
    for (bool const json : {true, false})
    {
        std::string const text = inspector->getEngineInformation(
            json ? nvinfer1::LayerInformationFormat::kJSON : nvinfer1::LayerInformationFormat::kONELINE);
        for (char const* name : {"x", "new_shape", "y"})
        {
            ASSERT_EQ(engine->getTensorLocation(name), nvinfer1::TensorLocation::kHOST) << name;
            EXPECT_EQ(locationIn(text, name, json), "Host") << name << "\n" << text;
        }
        EXPECT_EQ(locationIn(text, "h", json), "Host") << text;
        EXPECT_EQ(text.find("Device"), std::string::npos) << text;
    }
    expectNoError();
}

} // namespace
} // namespace kiln::test
