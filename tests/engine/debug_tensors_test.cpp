// SPDX-License-Identifier: Apache-2.0
// Debug tensors end to end through the public API on the host backend: INetworkDefinition::markDebug survives the
// build (an intermediate tensor of a GELU written with primitive layers stops the GELU fusion from absorbing it, and a
// tensor no output reads is still computed), ICudaEngine::isDebugTensor answers from the plan before and after a
// serialization round trip, and IExecutionContext hands a debug tensor to its IDebugListener after the layer that
// makes it exactly when the tensor's state is on; a listener that fails fails the run, naming the tensor.
#include "support/api_test.h"
#include "support/fusion_patterns.h"

#include "NvInfer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
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
using nvinfer1::ITensor;
using nvinfer1::TensorLocation;

//! What one processDebugTensor call gave, its values copied (host memory on the host backend).
struct Received
{
    std::string name;
    TensorLocation location{};
    DataType type{};
    Dims shape{};
    std::vector<float> values;
    cudaStream_t stream{};
};

class RecordingListener final : public nvinfer1::IDebugListener
{
public:
    bool processDebugTensor(void const* addr, TensorLocation location, DataType type, Dims const& shape,
        char const* name, cudaStream_t stream) override
    {
        Received call{name, location, type, shape, {}, stream};
        int64_t count = 1;
        for (int32_t d = 0; d < shape.nbDims; ++d)
        {
            count *= shape.d[d];
        }
        auto const* values = static_cast<float const*>(addr);
        call.values.assign(values, values + count);
        calls.push_back(std::move(call));
        return accept;
    }

    std::vector<Received> calls;
    bool accept{true};
};

class DebugTensors : public ApiTest
{
protected:
    //! y = gelu(x) over x [2, 3] written with primitive layers (the exporters' erf form), its sum 1 + erf(x / sqrt 2)
    //! named "gelu_sum" and marked debug; and "unread" = relu(x), marked debug and read by nothing.
    void addNetwork()
    {
        ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, dims({2, 3}));
        ITensor* y = primitiveGelu(*mNetwork, *x, GeluForm::kERF, mScalars);
        y->setName("y");
        mNetwork->markOutput(*y);
        ASSERT_TRUE(markGeluSumAsDebug(*mNetwork));
        ITensor* unread = mNetwork->addActivation(*x, nvinfer1::ActivationType::kRELU)->getOutput(0);
        unread->setName("unread");
        ASSERT_TRUE(mNetwork->markDebug(*unread));
    }

    std::vector<uint8_t> build()
    {
        std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
        std::unique_ptr<IHostMemory> plan{mBuilder->buildSerializedNetwork(*mNetwork, *config)};
        if (plan == nullptr)
        {
            return {};
        }
        auto const* bytes = static_cast<uint8_t const*>(plan->data());
        return std::vector<uint8_t>(bytes, bytes + plan->size());
    }

    ICudaEngine* load(std::vector<uint8_t> const& plan)
    {
        mRuntime.reset(nvinfer1::createInferRuntime(mLogger));
        mEngine.reset(mRuntime->deserializeCudaEngine(plan.data(), plan.size()));
        return mEngine.get();
    }

    //! Runs context on mIn into mOut.
    bool run(IExecutionContext& context)
    {
        return context.setTensorAddress("x", mIn.data()) && context.setTensorAddress("y", mOut.data())
            && context.enqueueV3(nullptr);
    }

    static float gelu(float x) { return 0.5F * x * (1.F + std::erf(x / std::sqrt(2.F))); }

    ScalarWeights mScalars;
    std::unique_ptr<nvinfer1::IRuntime> mRuntime;
    std::unique_ptr<ICudaEngine> mEngine;
    std::vector<float> mIn{-2.F, -0.5F, 0.F, 0.25F, 1.F, 3.F};
    std::vector<float> mOut = std::vector<float>(6, -1.F);
};

TEST_F(DebugTensors, EngineKnowsItsDebugTensorsBeforeAndAfterARoundTrip)
{
    addNetwork();
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    std::unique_ptr<ICudaEngine> built{mBuilder->buildEngineWithConfig(*mNetwork, *config)};
    ASSERT_NE(built, nullptr) << mLogger.all();
    ICudaEngine* loaded = load(build());
    ASSERT_NE(loaded, nullptr) << mLogger.all();
    for (ICudaEngine* engine : {built.get(), loaded})
    {
        EXPECT_EQ(engine->getNbLayers(), 9); // The GELU left unfused: its sum is observed.
        EXPECT_TRUE(engine->isDebugTensor("gelu_sum"));
        EXPECT_TRUE(engine->isDebugTensor("unread"));
        EXPECT_FALSE(engine->isDebugTensor("y"));
        EXPECT_FALSE(engine->isDebugTensor("x"));
        EXPECT_FALSE(engine->isDebugTensor("nothing"));
        EXPECT_FALSE(engine->isDebugTensor(nullptr));
        EXPECT_EQ(engine->getNbIOTensors(), 2); // Debug tensors are not I/O tensors.
    }
    expectNoError();
}

TEST_F(DebugTensors, UnmarkedTensorsAreNotDebugTensors)
{
    addNetwork();
    for (int32_t l = 0; l < mNetwork->getNbLayers(); ++l)
    {
        ITensor* out = mNetwork->getLayer(l)->getOutput(0);
        if (out != nullptr && mNetwork->isDebugTensor(*out))
        {
            ASSERT_TRUE(mNetwork->unmarkDebug(*out));
        }
    }
    ICudaEngine* engine = load(build());
    ASSERT_NE(engine, nullptr) << mLogger.all();
    EXPECT_FALSE(engine->isDebugTensor("gelu_sum"));
    EXPECT_FALSE(engine->isDebugTensor("unread"));
    // Unmarked, the sum is absorbed by the GELU fusion (one activation) and the unread ReLU is not built.
    EXPECT_EQ(engine->getNbLayers(), 1) << mLogger.all();
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    EXPECT_FALSE(context->setTensorDebugState("gelu_sum", true));
    expectError({"IExecutionContext::setTensorDebugState", "\"gelu_sum\" was not marked as a debug tensor"});
}

TEST_F(DebugTensors, StatesAreKeptPerContext)
{
    addNetwork();
    ICudaEngine* engine = load(build());
    ASSERT_NE(engine, nullptr) << mLogger.all();
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    std::unique_ptr<IExecutionContext> other{engine->createExecutionContext()};
    EXPECT_FALSE(context->getDebugState("gelu_sum"));
    EXPECT_TRUE(context->setTensorDebugState("gelu_sum", true));
    EXPECT_TRUE(context->getDebugState("gelu_sum"));
    EXPECT_FALSE(context->getDebugState("unread"));
    EXPECT_FALSE(other->getDebugState("gelu_sum"));
    EXPECT_TRUE(context->setAllTensorsDebugState(true));
    EXPECT_TRUE(context->getDebugState("unread"));
    EXPECT_TRUE(context->setAllTensorsDebugState(false));
    EXPECT_FALSE(context->getDebugState("gelu_sum"));
    EXPECT_FALSE(context->getDebugState("unread"));
    expectNoError();

    EXPECT_FALSE(context->setTensorDebugState("y", true));
    expectError({"IExecutionContext::setTensorDebugState", "\"y\" was not marked as a debug tensor"});
    EXPECT_FALSE(context->setTensorDebugState("nothing", false));
    expectError({"\"nothing\" was not marked as a debug tensor"});
    EXPECT_FALSE(context->getDebugState("y"));
    EXPECT_FALSE(context->getDebugState(nullptr));
}

TEST_F(DebugTensors, ListenerHearsTheTensorsWhoseStateIsOn)
{
    addNetwork();
    ICudaEngine* engine = load(build());
    ASSERT_NE(engine, nullptr) << mLogger.all();
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    RecordingListener listener;

    // States on but no listener: the run goes as usual.
    ASSERT_TRUE(context->setAllTensorsDebugState(true));
    ASSERT_TRUE(run(*context)) << mLogger.all();
    for (std::size_t i = 0; i < mIn.size(); ++i)
    {
        EXPECT_NEAR(mOut[i], gelu(mIn[i]), 1e-5F) << i;
    }

    // A listener, states off: nothing is handed over.
    ASSERT_TRUE(context->setAllTensorsDebugState(false));
    ASSERT_TRUE(context->setDebugListener(&listener));
    EXPECT_EQ(context->getDebugListener(), &listener);
    ASSERT_TRUE(run(*context)) << mLogger.all();
    EXPECT_TRUE(listener.calls.empty());

    // One state on: that tensor only, once per run, with its values, shape, type, name and the run's stream.
    ASSERT_TRUE(context->setTensorDebugState("gelu_sum", true));
    ASSERT_TRUE(run(*context)) << mLogger.all();
    ASSERT_EQ(listener.calls.size(), 1U);
    Received const& sum = listener.calls[0];
    EXPECT_EQ(sum.name, "gelu_sum");
    EXPECT_EQ(sum.location, TensorLocation::kHOST);
    EXPECT_EQ(sum.type, DataType::kFLOAT);
    EXPECT_DIMS(sum.shape, {2, 3});
    EXPECT_EQ(sum.stream, nullptr);
    ASSERT_EQ(sum.values.size(), mIn.size());
    for (std::size_t i = 0; i < mIn.size(); ++i)
    {
        EXPECT_NEAR(sum.values[i], 1.F + std::erf(mIn[i] / std::sqrt(2.F)), 1e-5F) << i;
        EXPECT_NEAR(mOut[i], gelu(mIn[i]), 1e-5F) << i; // The GELU around it still computes the same.
    }

    // Every state on: the unread tensor too (computed although no output reads it).
    listener.calls.clear();
    ASSERT_TRUE(context->setAllTensorsDebugState(true));
    ASSERT_TRUE(run(*context)) << mLogger.all();
    ASSERT_EQ(listener.calls.size(), 2U);
    std::vector<Received> unread;
    for (Received const& call : listener.calls)
    {
        if (call.name == "unread")
        {
            unread.push_back(call);
        }
    }
    ASSERT_EQ(unread.size(), 1U);
    EXPECT_DIMS(unread[0].shape, {2, 3});
    for (std::size_t i = 0; i < mIn.size(); ++i)
    {
        EXPECT_EQ(unread[0].values[i], std::max(mIn[i], 0.F)) << i;
    }

    // The listener removed: nothing more.
    listener.calls.clear();
    ASSERT_TRUE(context->setDebugListener(nullptr));
    ASSERT_TRUE(run(*context)) << mLogger.all();
    EXPECT_TRUE(listener.calls.empty());
    expectNoError();
}

TEST_F(DebugTensors, AFailingListenerFailsTheRunNamingTheTensor)
{
    addNetwork();
    ICudaEngine* engine = load(build());
    ASSERT_NE(engine, nullptr) << mLogger.all();
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    RecordingListener listener;
    listener.accept = false;
    ASSERT_TRUE(context->setDebugListener(&listener));
    ASSERT_TRUE(context->setTensorDebugState("gelu_sum", true));
    EXPECT_FALSE(run(*context));
    expectError({"IExecutionContext::enqueueV3", "debug tensor 'gelu_sum'", "processDebugTensor returned false"});
    EXPECT_EQ(listener.calls.size(), 1U);
}

} // namespace
} // namespace kiln::test
