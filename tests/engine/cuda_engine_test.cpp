// SPDX-License-Identifier: Apache-2.0
// Engines on the CUDA backend, end to end through the public API: each network is built twice, for the host backend
// (the reference) and for the CUDA backend (KILN_BACKEND), run on the same random inputs, and the GPU's outputs
// compared with the host's. Also: a plugin whose enqueue runs on the stream with a device workspace, shape tensors
// computed on the host inside a CUDA engine, enqueueV3 captured into a CUDA graph, and the application's GPU
// allocator, and an engine with shape values (BERT's position subgraph) captured in CUDA graphs at two lengths.
// Skipped without a usable GPU (label gpu).
#include "support/api_test.h"
#include "support/fusion_patterns.h"
#include "support/gpu.h"
#include "support/shape_values_network.h"

#include "NvInfer.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <string>
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
using nvinfer1::INetworkDefinition;
using nvinfer1::IRuntime;
using nvinfer1::ITensor;

int64_t volume(Dims const& dims)
{
    int64_t n = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        n *= dims.d[i];
    }
    return n;
}

//! One float tensor's values.
using Values = std::vector<float>;

//! A GPU allocator that counts what it gives and takes back.
class CountingAllocator final : public nvinfer1::IGpuAllocator
{
public:
    void* allocate(uint64_t size, uint64_t /*alignment*/, nvinfer1::AllocatorFlags /*flags*/) noexcept override
    {
        void* memory = nullptr;
        if (cudaMalloc(&memory, size) != cudaSuccess)
        {
            return nullptr;
        }
        ++mAllocated;
        return memory;
    }
    bool deallocate(void* memory) noexcept override
    {
        ++mFreed;
        return cudaFree(memory) == cudaSuccess;
    }
    int32_t mAllocated{};
    int32_t mFreed{};
};

class CudaEngine : public ApiTest
{
protected:
    void SetUp() override
    {
        if (!gpuUsable())
        {
            GTEST_SKIP() << "no usable GPU";
        }
        ApiTest::SetUp();
        ASSERT_EQ(cudaStreamCreate(&mStream), cudaSuccess);
    }
    void TearDown() override
    {
        if (mStream != nullptr)
        {
            EXPECT_EQ(cudaStreamDestroy(mStream), cudaSuccess);
        }
        ApiTest::TearDown();
        unsetenv("KILN_BACKEND");
    }

    //! The plan of the network made so far, built for backend ("host" or "cuda").
    std::vector<uint8_t> build(char const* backend, nvinfer1::IBuilderConfig* config = nullptr)
    {
        setenv("KILN_BACKEND", backend, 1);
        std::unique_ptr<nvinfer1::IBuilderConfig> own;
        if (config == nullptr)
        {
            own.reset(mBuilder->createBuilderConfig());
            config = own.get();
        }
        std::unique_ptr<nvinfer1::IHostMemory> plan{mBuilder->buildSerializedNetwork(*mNetwork, *config)};
        EXPECT_NE(plan, nullptr) << mLogger.all();
        if (plan == nullptr)
        {
            return {};
        }
        auto const* bytes = static_cast<uint8_t const*>(plan->data());
        return {bytes, bytes + plan->size()};
    }

    ICudaEngine* load(std::vector<uint8_t> const& plan, nvinfer1::IGpuAllocator* allocator = nullptr)
    {
        mRuntimes.emplace_back(nvinfer1::createInferRuntime(mLogger));
        if (allocator != nullptr)
        {
            mRuntimes.back()->setGpuAllocator(allocator);
        }
        mEngines.emplace_back(mRuntimes.back()->deserializeCudaEngine(plan.data(), plan.size()));
        EXPECT_NE(mEngines.back(), nullptr) << mLogger.all();
        return mEngines.back().get();
    }

    //! Runs engine on the host backend's memory: inputs in the engine's input order, outputs read back.
    std::vector<Values> runHost(ICudaEngine& engine, std::vector<Dims> const& shapes, std::vector<Values> const& inputs)
    {
        std::unique_ptr<IExecutionContext> context{engine.createExecutionContext()};
        std::vector<Values> outputs;
        bind(
            engine, *context, shapes, inputs, [](void* p) { return p; }, outputs);
        EXPECT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
        return outputs;
    }

    //! Runs engine on the GPU: inputs copied to device memory, enqueueV3 on the stream, outputs copied back.
    std::vector<Values> runDevice(ICudaEngine& engine, std::vector<Dims> const& shapes,
        std::vector<Values> const& inputs, IExecutionContext* context = nullptr)
    {
        std::unique_ptr<IExecutionContext> own;
        if (context == nullptr)
        {
            own.reset(engine.createExecutionContext());
            context = own.get();
        }
        EXPECT_NE(context, nullptr) << mLogger.all();
        std::vector<Values> outputs;
        std::vector<std::pair<void*, Values*>> downloads;
        std::vector<void*> allocations;
        auto toDevice = [&](void* host) { return host; };
        bind(engine, *context, shapes, inputs, toDevice, outputs);
        // Move every address to device memory.
        for (int32_t i = 0; i < engine.getNbIOTensors(); ++i)
        {
            char const* name = engine.getIOTensorName(i);
            void* host = const_cast<void*>(context->getTensorAddress(name));
            Dims const shape = context->getTensorShape(name);
            std::size_t const bytes = static_cast<std::size_t>(std::max<int64_t>(volume(shape), 1)) * sizeof(float);
            void* device = nullptr;
            EXPECT_EQ(cudaMalloc(&device, bytes), cudaSuccess);
            allocations.push_back(device);
            if (engine.getTensorIOMode(name) == nvinfer1::TensorIOMode::kINPUT)
            {
                EXPECT_EQ(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice), cudaSuccess);
            }
            else
            {
                downloads.emplace_back(device, &outputs[static_cast<std::size_t>(i - mNbInputs)]);
            }
            EXPECT_TRUE(context->setTensorAddress(name, device));
        }
        for (int32_t run = 0; run < mEnqueues; ++run)
        {
            EXPECT_TRUE(context->enqueueV3(mStream)) << mLogger.all();
        }
        EXPECT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
        for (auto& [device, values] : downloads)
        {
            EXPECT_EQ(cudaMemcpy(values->data(), device, values->size() * sizeof(float), cudaMemcpyDeviceToHost),
                cudaSuccess);
        }
        for (void* p : allocations)
        {
            EXPECT_EQ(cudaFree(p), cudaSuccess);
        }
        return outputs;
    }

    //! Sets the input shapes and host addresses of the inputs, and sizes the outputs (host addresses too).
    template <typename Map>
    void bind(ICudaEngine& engine, IExecutionContext& context, std::vector<Dims> const& shapes,
        std::vector<Values> const& inputs, Map const& /*map*/, std::vector<Values>& outputs)
    {
        mNbInputs = 0;
        for (int32_t i = 0; i < engine.getNbIOTensors(); ++i)
        {
            char const* name = engine.getIOTensorName(i);
            if (engine.getTensorIOMode(name) == nvinfer1::TensorIOMode::kINPUT)
            {
                auto const k = static_cast<std::size_t>(mNbInputs++);
                EXPECT_TRUE(context.setInputShape(name, shapes[k]));
                EXPECT_TRUE(context.setTensorAddress(name, const_cast<float*>(inputs[k].data())));
            }
        }
        outputs.clear();
        outputs.reserve(static_cast<std::size_t>(engine.getNbIOTensors()));
        for (int32_t i = 0; i < engine.getNbIOTensors(); ++i)
        {
            char const* name = engine.getIOTensorName(i);
            if (engine.getTensorIOMode(name) == nvinfer1::TensorIOMode::kOUTPUT)
            {
                Dims const shape = context.getTensorShape(name);
                outputs.emplace_back(static_cast<std::size_t>(std::max<int64_t>(volume(shape), 0)), 0.F);
                EXPECT_TRUE(context.setTensorAddress(name, outputs.back().data()));
            }
        }
    }

    //! Builds the network for both backends, runs both on random inputs of shapes, and compares.
    void expectSameOnBothBackends(std::vector<Dims> const& shapes, float tolerance = 1e-4F)
    {
        std::vector<Values> inputs;
        std::uniform_real_distribution<float> uniform(-1.F, 1.F);
        for (Dims const& shape : shapes)
        {
            Values values(static_cast<std::size_t>(volume(shape)));
            for (float& v : values)
            {
                v = uniform(mRng);
            }
            inputs.push_back(std::move(values));
        }
        expectSameOnBothBackends(shapes, inputs, tolerance);
    }

    //! The network built for both backends and run on the given inputs (each as many 4-byte elements as its shape:
    //! floats, or the bits of kINT32 values), the GPU's outputs within tolerance of the host's.
    void expectSameOnBothBackends(std::vector<Dims> const& shapes, std::vector<Values> const& inputs, float tolerance)
    {
        std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
        if (mReducedFlag)
        {
            config->setFlag(*mReducedFlag); // Both backends choose the same reduced-precision layers.
        }
        auto const hostPlan = build("host", config.get());
        auto const cudaPlan = build("cuda", config.get());
        ASSERT_FALSE(hostPlan.empty());
        ASSERT_FALSE(cudaPlan.empty());
        ICudaEngine* hostEngine = load(hostPlan);
        ICudaEngine* cudaEngine = load(cudaPlan);
        ASSERT_NE(hostEngine, nullptr);
        ASSERT_NE(cudaEngine, nullptr);
        auto const expected = runHost(*hostEngine, shapes, inputs);
        auto const actual = runDevice(*cudaEngine, shapes, inputs);
        ASSERT_EQ(actual.size(), expected.size());
        for (std::size_t o = 0; o < expected.size(); ++o)
        {
            ASSERT_EQ(actual[o].size(), expected[o].size()) << "output " << o;
            int failures = 0;
            for (std::size_t i = 0; i < expected[o].size() && failures < 10; ++i)
            {
                float const bound = tolerance * (1.F + std::fabs(expected[o][i]));
                if (!(std::fabs(actual[o][i] - expected[o][i]) <= bound))
                {
                    ADD_FAILURE() << "output " << o << " element " << i << ": GPU " << actual[o][i] << ", host "
                                  << expected[o][i];
                    ++failures;
                }
            }
        }
    }

    void halfConvolutionChain(bool channelsLast);
    void residualBlocksMatchTheHost(DataType type);
    void resnetStemMatchesTheHost(DataType type);
    void compareChannelsLastChain(
        ITensor& y, Dims const& shape, DataType type, std::string const& first, std::string const& last);

    //! The shape values network (support/shape_values_network.h) built for the host and the CUDA backend.
    std::pair<ICudaEngine*, ICudaEngine*> shapeValuesEngines()
    {
        addShapeValuesNetwork(*mNetwork);
        std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
        auto* profile = mBuilder->createOptimizationProfile();
        shapeValuesProfile(*profile);
        config->addOptimizationProfile(profile);
        ICudaEngine* hostEngine = load(build("host", config.get()));
        return {hostEngine, load(build("cuda", config.get()))};
    }

    cudaStream_t mStream{};
    std::mt19937 mRng{7};
    //! A builder flag for expectSameOnBothBackends' builds (BuilderFlag::kFP16 or kBF16), or none.
    std::optional<nvinfer1::BuilderFlag> mReducedFlag;
    //! How many times runDevice enqueues before it synchronizes and reads the outputs (from the second on, the
    //! executor replays its layers from a graph: executor.h, "Replay").
    int32_t mEnqueues{1};
    int32_t mNbInputs{};
    std::vector<std::unique_ptr<IRuntime>> mRuntimes;
    std::vector<std::unique_ptr<ICudaEngine>> mEngines;
    std::vector<std::vector<float>> mWeights;

    nvinfer1::Weights weights(std::size_t count)
    {
        std::uniform_real_distribution<float> uniform(-0.5F, 0.5F);
        mWeights.emplace_back(count);
        for (float& v : mWeights.back())
        {
            v = uniform(mRng);
        }
        return nvinfer1::Weights{DataType::kFLOAT, mWeights.back().data(), static_cast<int64_t>(count)};
    }
};

TEST_F(CudaEngine, PointwiseLayersMatchTheHost)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{2, {8, 33}});
    auto* relu = mNetwork->addActivation(*x, nvinfer1::ActivationType::kSIGMOID);
    auto* w = mNetwork->addConstant(Dims{2, {1, 33}}, weights(33));
    auto* product
        = mNetwork->addElementWise(*relu->getOutput(0), *w->getOutput(0), nvinfer1::ElementWiseOperation::kPROD);
    auto* sum = mNetwork->addElementWise(*product->getOutput(0), *x, nvinfer1::ElementWiseOperation::kSUM);
    auto* exp = mNetwork->addUnary(*sum->getOutput(0), nvinfer1::UnaryOperation::kEXP);
    exp->getOutput(0)->setName("y");
    mNetwork->markOutput(*exp->getOutput(0));
    expectSameOnBothBackends({Dims{2, {8, 33}}});
}

TEST_F(CudaEngine, ConvolutionPoolingMatrixMultiplySoftMaxMatchTheHost)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{4, {2, 3, 16, 16}});
    auto* conv = mNetwork->addConvolutionNd(*x, 8, Dims{2, {3, 3}}, weights(8 * 3 * 3 * 3), weights(8));
    conv->setPaddingNd(Dims{2, {1, 1}});
    auto* relu = mNetwork->addActivation(*conv->getOutput(0), nvinfer1::ActivationType::kRELU);
    auto* pool = mNetwork->addPoolingNd(*relu->getOutput(0), nvinfer1::PoolingType::kMAX, Dims{2, {2, 2}});
    pool->setStrideNd(Dims{2, {2, 2}});
    auto* flat = mNetwork->addShuffle(*pool->getOutput(0));
    flat->setReshapeDimensions(Dims{2, {2, 8 * 8 * 8}});
    auto* fc = mNetwork->addConstant(Dims{2, {8 * 8 * 8, 10}}, weights(8 * 8 * 8 * 10));
    auto* mm = mNetwork->addMatrixMultiply(
        *flat->getOutput(0), nvinfer1::MatrixOperation::kNONE, *fc->getOutput(0), nvinfer1::MatrixOperation::kNONE);
    auto* softmax = mNetwork->addSoftMax(*mm->getOutput(0));
    softmax->setAxes(1U << 1);
    softmax->getOutput(0)->setName("probabilities");
    mNetwork->markOutput(*softmax->getOutput(0));
    expectSameOnBothBackends({Dims{4, {2, 3, 16, 16}}}, 1e-3F);
}

TEST_F(CudaEngine, DeconvolutionsMatchTheHost)
{
    // A decoder's upsamplings: a stride-2 deconvolution with weights, bias and asymmetric padding (timed tactics);
    // then a grouped one whose kernel and bias are constant tensors (inputs 1 and 2), in kSAME_UPPER.
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{4, {2, 6, 5, 7}});
    auto* up = mNetwork->addDeconvolutionNd(*x, 4, Dims{2, {4, 3}}, weights(6 * 4 * 4 * 3), weights(4));
    up->setStrideNd(Dims{2, {2, 2}});
    up->setPrePadding(Dims{2, {1, 0}});
    up->setPostPadding(Dims{2, {2, 1}});
    auto* relu = mNetwork->addActivation(*up->getOutput(0), nvinfer1::ActivationType::kRELU);
    auto* kernel = mNetwork->addConstant(Dims{4, {4, 3, 3, 3}}, weights(4 * 3 * 3 * 3));
    auto* bias = mNetwork->addConstant(Dims{1, {6}}, weights(6));
    auto* grouped = mNetwork->addDeconvolutionNd(*relu->getOutput(0), 6, Dims{2, {3, 3}},
        nvinfer1::Weights{DataType::kFLOAT, nullptr, 0}, nvinfer1::Weights{DataType::kFLOAT, nullptr, 0});
    grouped->setInput(1, *kernel->getOutput(0));
    grouped->setInput(2, *bias->getOutput(0));
    grouped->setNbGroups(2);
    grouped->setStrideNd(Dims{2, {2, 3}});
    grouped->setDilationNd(Dims{2, {1, 2}});
    grouped->setPaddingMode(nvinfer1::PaddingMode::kSAME_UPPER);
    grouped->getOutput(0)->setName("y");
    mNetwork->markOutput(*grouped->getOutput(0));
    expectSameOnBothBackends({Dims{4, {2, 6, 5, 7}}}, 1e-3F);
}

TEST_F(CudaEngine, GridSampleReverseSequenceAndEinsumMatchTheHost)
{
    // A bicubic, reflecting grid sample of x at the grid's positions ([2, 3, 5, 7]), its last axis reversed per channel
    // by constant lengths, then a contraction of the two over the last axis.
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{4, {2, 3, 9, 11}});
    ITensor* grid = mNetwork->addInput("grid", DataType::kFLOAT, Dims{4, {2, 5, 7, 2}});
    auto* sample = mNetwork->addGridSample(*x, *grid);
    sample->setInterpolationMode(nvinfer1::InterpolationMode::kCUBIC);
    ASSERT_TRUE(sample->setSampleMode(nvinfer1::SampleMode::kREFLECT));
    static int32_t const lengths[] = {5, 2, 9};
    auto* lens = mNetwork->addConstant(Dims{1, {3}}, nvinfer1::Weights{DataType::kINT32, lengths, 3});
    auto* reversed = mNetwork->addReverseSequence(*sample->getOutput(0), *lens->getOutput(0));
    reversed->setBatchAxis(1);
    reversed->setSequenceAxis(3);
    ITensor* operands[] = {reversed->getOutput(0), sample->getOutput(0)};
    auto* einsum = mNetwork->addEinsum(operands, 2, "bchw,bcgw->bhgc");
    einsum->getOutput(0)->setName("y");
    mNetwork->markOutput(*einsum->getOutput(0));
    expectSameOnBothBackends({Dims{4, {2, 3, 9, 11}}, Dims{4, {2, 5, 7, 2}}}, 1e-4F);
}

TEST_F(CudaEngine, CumulativeSumsMatchTheHost)
{
    // Prefix sums along the middle axis (a constant axis, read on the host), then reverse exclusive ones along the
    // last.
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{3, {2, 50, 7}});
    static int32_t const middle = 1;
    static int64_t const last = -1;
    auto* first = mNetwork->addConstant(Dims{0, {}}, nvinfer1::Weights{DataType::kINT32, &middle, 1});
    auto* second = mNetwork->addConstant(Dims{0, {}}, nvinfer1::Weights{DataType::kINT64, &last, 1});
    auto* forward
        = mNetwork->addCumulative(*x, *first->getOutput(0), nvinfer1::CumulativeOperation::kSUM, false, false);
    auto* backward = mNetwork->addCumulative(
        *forward->getOutput(0), *second->getOutput(0), nvinfer1::CumulativeOperation::kSUM, true, true);
    backward->getOutput(0)->setName("y");
    mNetwork->markOutput(*backward->getOutput(0));
    expectSameOnBothBackends({Dims{3, {2, 50, 7}}}, 1e-4F);
}

TEST_F(CudaEngine, FusedMatrixMultiplyBiasActivationMatchesTheUnfusedHost)
{
    // x [2, 16, 64] · w [1, 64, 48] + b [1, 1, 48], GELU, then · w2 + b2 and ReLU: the CUDA build fuses each bias
    // and activation into its matrix multiply; the host build runs them as separate layers.
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{3, {2, 16, 64}});
    ITensor* h = x;
    int64_t in = 64;
    for (auto const& [out, activation] : {std::pair{int64_t{48}, nvinfer1::ActivationType::kGELU_TANH},
             std::pair{int64_t{8}, nvinfer1::ActivationType::kRELU}})
    {
        auto* w = mNetwork->addConstant(Dims{3, {1, in, out}}, weights(static_cast<std::size_t>(in * out)));
        auto* mm = mNetwork->addMatrixMultiply(
            *h, nvinfer1::MatrixOperation::kNONE, *w->getOutput(0), nvinfer1::MatrixOperation::kNONE);
        auto* b = mNetwork->addConstant(Dims{3, {1, 1, out}}, weights(static_cast<std::size_t>(out)));
        auto* sum = mNetwork->addElementWise(*mm->getOutput(0), *b->getOutput(0), nvinfer1::ElementWiseOperation::kSUM);
        h = mNetwork->addActivation(*sum->getOutput(0), activation)->getOutput(0);
        in = out;
    }
    h->setName("y");
    mNetwork->markOutput(*h);
    expectSameOnBothBackends({Dims{3, {2, 16, 64}}}, 1e-4F);
}

TEST_F(CudaEngine, AContextRunsOnANewStreamAfterItsOldStreamIsDestroyedAndIsCapturedThere)
{
    // A convolution whose padding cuDNN cannot express (a padded copy in the libraries' scratch block) run on one
    // stream, that stream destroyed, then a run of the same context on another: nothing the context keeps may still
    // name the first stream (the kiln tool's timed run and then its profiling run did this on BERT, and the second
    // failed with cudaErrorContextIsDestroyed).
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{4, {1, 4, 9, 9}});
    auto* conv = mNetwork->addConvolutionNd(*x, 8, Dims{2, {3, 3}}, weights(8 * 4 * 3 * 3), nvinfer1::Weights{});
    conv->setPrePadding(Dims{2, {0, 0}});
    conv->setPostPadding(Dims{2, {1, 1}});
    conv->getOutput(0)->setName("y");
    mNetwork->markOutput(*conv->getOutput(0));
    auto const plan = build("cuda");
    ASSERT_FALSE(plan.empty());
    ICudaEngine* engine = load(plan);
    ASSERT_NE(engine, nullptr);
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    Values input(4 * 9 * 9);
    std::uniform_real_distribution<float> uniform(-1.F, 1.F);
    for (float& v : input)
    {
        v = uniform(mRng);
    }
    std::vector<Values> const first = runDevice(*engine, {Dims{4, {1, 4, 9, 9}}}, {input}, context.get());
    ASSERT_EQ(cudaStreamDestroy(mStream), cudaSuccess);
    mStream = nullptr;
    ASSERT_EQ(cudaStreamCreate(&mStream), cudaSuccess);
    std::vector<Values> const second = runDevice(*engine, {Dims{4, {1, 4, 9, 9}}}, {input}, context.get());
    EXPECT_EQ(first, second) << mLogger.all();

    // Then a run captured into a graph on the new stream after a plain run there (what CUDA-graph benchmarks do): the
    // capture may not wait for the plain run's work outside it (cudaErrorStreamCaptureIsolation broke that once).
    ASSERT_EQ(first.size(), 1U);
    std::size_t const inBytes = input.size() * sizeof(float);
    std::size_t const outBytes = first[0].size() * sizeof(float);
    void* xDevice = nullptr;
    void* yDevice = nullptr;
    ASSERT_EQ(cudaMalloc(&xDevice, inBytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&yDevice, outBytes), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(xDevice, input.data(), inBytes, cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_TRUE(context->setTensorAddress("x", xDevice));
    EXPECT_TRUE(context->setTensorAddress("y", yDevice));
    EXPECT_TRUE(context->enqueueV3(mStream)) << mLogger.all();
    cudaGraph_t graph{};
    ASSERT_EQ(cudaStreamBeginCapture(mStream, cudaStreamCaptureModeGlobal), cudaSuccess);
    bool const enqueued = context->enqueueV3(mStream);
    cudaError_t const ended = cudaStreamEndCapture(mStream, &graph);
    EXPECT_TRUE(enqueued) << "enqueueV3 inside the capture: " << mLogger.all();
    ASSERT_EQ(ended, cudaSuccess) << cudaGetErrorString(ended);
    cudaGraphExec_t exec{};
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    ASSERT_EQ(cudaMemset(yDevice, 0, outBytes), cudaSuccess);
    EXPECT_EQ(cudaGraphLaunch(exec, mStream), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
    Values replayed(first[0].size());
    EXPECT_EQ(cudaMemcpy(replayed.data(), yDevice, outBytes, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(replayed, first[0]);
    EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
    EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
    EXPECT_EQ(cudaFree(xDevice), cudaSuccess);
    EXPECT_EQ(cudaFree(yDevice), cudaSuccess);
}

TEST_F(CudaEngine, ReduceConcatSliceGatherMatchTheHost)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{3, {4, 6, 10}});
    auto* mean = mNetwork->addReduce(*x, nvinfer1::ReduceOperation::kAVG, 1U << 2, true);
    auto* centered = mNetwork->addElementWise(*x, *mean->getOutput(0), nvinfer1::ElementWiseOperation::kSUB);
    auto* slice
        = mNetwork->addSlice(*centered->getOutput(0), Dims{3, {0, 1, 0}}, Dims{3, {4, 4, 10}}, Dims{3, {1, 1, 1}});
    ITensor* parts[] = {slice->getOutput(0), x};
    auto* concat = mNetwork->addConcatenation(parts, 2);
    concat->setAxis(1);
    static int32_t const kIndices[] = {3, 0, 2};
    auto* indices = mNetwork->addConstant(Dims{1, {3}}, nvinfer1::Weights{DataType::kINT32, kIndices, 3});
    auto* gather = mNetwork->addGather(*concat->getOutput(0), *indices->getOutput(0), 0);
    auto* transpose = mNetwork->addShuffle(*gather->getOutput(0));
    transpose->setFirstTranspose(nvinfer1::Permutation{{2, 0, 1}});
    transpose->getOutput(0)->setName("y");
    mNetwork->markOutput(*transpose->getOutput(0));
    expectSameOnBothBackends({Dims{3, {4, 6, 10}}});
}

TEST_F(CudaEngine, QuantizeAndDequantizeMatchTheHost)
{
    // Fake quantization (quantize then dequantize) to INT8 per channel, FP8 per tensor and INT4 per block: the
    // dequantized values are the same floats on both backends, so the tolerance is 0.
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{4, {2, 3, 8, 8}});
    auto const positive = [this](std::vector<float> values) {
        mWeights.push_back(std::move(values));
        return nvinfer1::Weights{
            DataType::kFLOAT, mWeights.back().data(), static_cast<int64_t>(mWeights.back().size())};
    };
    ITensor* channel = mNetwork->addConstant(Dims{1, {3}}, positive({0.01F, 0.02F, 0.005F}))->getOutput(0);
    ITensor* tensor = mNetwork->addConstant(Dims{0, {}}, positive({0.003F}))->getOutput(0);
    std::vector<float> blocks(2 * 3 * 4 * 8);
    for (std::size_t i = 0; i < blocks.size(); ++i)
    {
        blocks[i] = 0.05F + 0.01F * static_cast<float>(i % 7);
    }
    ITensor* block = mNetwork->addConstant(Dims{4, {2, 3, 4, 8}}, positive(blocks))->getOutput(0);

    auto* q8 = mNetwork->addQuantize(*x, *channel);
    q8->setAxis(1);
    auto* dq8 = mNetwork->addDequantize(*q8->getOutput(0), *channel);
    dq8->setAxis(-3);
    auto* qf = mNetwork->addQuantize(*x, *tensor, DataType::kFP8);
    auto* dqf = mNetwork->addDequantize(*qf->getOutput(0), *tensor);
    auto* q4 = mNetwork->addQuantize(*x, *block, DataType::kINT4); // blocks of [1, 1, 2, 1]
    auto* dq4 = mNetwork->addDequantize(*q4->getOutput(0), *block);
    char const* const names[] = {"int8", "fp8", "int4"};
    nvinfer1::IDequantizeLayer* const layers[] = {dq8, dqf, dq4};
    for (int32_t i = 0; i < 3; ++i)
    {
        layers[i]->getOutput(0)->setName(names[i]);
        mNetwork->markOutput(*layers[i]->getOutput(0));
    }
    expectSameOnBothBackends({Dims{4, {2, 3, 8, 8}}}, 0.F);
}

// A constant scale of shape [1] on an input [1, 8] is the tensor's one scale (TensorRT's per-tensor scale) on the GPU
// too.
TEST_F(CudaEngine, QuantizeWithAOneElementScaleMatchesTheHost)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{2, {1, 8}});
    mWeights.push_back({0.004F});
    ITensor* scale = mNetwork->addConstant(Dims{1, {1}}, nvinfer1::Weights{DataType::kFLOAT, mWeights.back().data(), 1})
                         ->getOutput(0);
    auto* quantize = mNetwork->addQuantize(*x, *scale);
    ASSERT_NE(quantize, nullptr) << mLogger.all();
    auto* dequantize = mNetwork->addDequantize(*quantize->getOutput(0), *scale);
    dequantize->getOutput(0)->setName("y");
    mNetwork->markOutput(*dequantize->getOutput(0));
    expectSameOnBothBackends({Dims{2, {1, 8}}}, 0.F);
}

TEST_F(CudaEngine, ScatterMatchesTheHost)
{
    // Rows 3 and 0 of x replaced by u (kND), then columns written along axis 1 (kELEMENT, distinct per row).
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{2, {4, 5}});
    ITensor* u = mNetwork->addInput("u", DataType::kFLOAT, Dims{2, {2, 5}});
    static int64_t rows[] = {3, -4};
    static int32_t columns[] = {4, 0, -2, 1, 2, 0, 1, 2, 3, -1};
    ITensor* rowIndices = mNetwork->addConstant(Dims{2, {2, 1}}, {DataType::kINT64, rows, 2})->getOutput(0);
    ITensor* columnIndices = mNetwork->addConstant(Dims{2, {2, 5}}, {DataType::kINT32, columns, 10})->getOutput(0);
    auto* nd = mNetwork->addScatter(*x, *rowIndices, *u, nvinfer1::ScatterMode::kND);
    auto* element = mNetwork->addScatter(*nd->getOutput(0), *columnIndices, *u, nvinfer1::ScatterMode::kELEMENT);
    element->setAxis(-1);
    element->getOutput(0)->setName("y");
    mNetwork->markOutput(*element->getOutput(0));
    expectSameOnBothBackends({Dims{2, {4, 5}}, Dims{2, {2, 5}}}, 0.F);
}

//! Gives data-dependent outputs memory on the host or the GPU, and keeps the shape it is told.
class SideAllocator final : public nvinfer1::IOutputAllocator
{
public:
    explicit SideAllocator(bool device)
        : mDevice(device)
    {
    }
    ~SideAllocator() override { release(); }
    SideAllocator(SideAllocator const&) = delete;
    SideAllocator& operator=(SideAllocator const&) = delete;
    void* reallocateOutputAsync(char const* /*tensorName*/, void* /*currentMemory*/, uint64_t size,
        uint64_t /*alignment*/, cudaStream_t /*stream*/) noexcept override
    {
        if (size > mBytes)
        {
            release();
            mBytes = size;
            if (mDevice)
            {
                static_cast<void>(cudaMalloc(&mMemory, size));
            }
            else
            {
                mMemory = std::malloc(size);
            }
        }
        return mMemory;
    }
    void notifyShape(char const* /*tensorName*/, Dims const& dims) noexcept override { mShape = dims; }

    //! The first bytes of the memory, on the host.
    std::vector<uint8_t> contents(std::size_t bytes) const
    {
        std::vector<uint8_t> out(bytes);
        if (bytes != 0 && mDevice)
        {
            EXPECT_EQ(cudaMemcpy(out.data(), mMemory, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
        }
        else if (bytes != 0)
        {
            std::memcpy(out.data(), mMemory, bytes);
        }
        return out;
    }

    Dims mShape{-1, {}};

private:
    void release()
    {
        if (mMemory != nullptr)
        {
            if (mDevice)
            {
                static_cast<void>(cudaFree(mMemory));
            }
            else
            {
                std::free(mMemory);
            }
        }
        mMemory = nullptr;
        mBytes = 0;
    }
    bool mDevice;
    void* mMemory{};
    uint64_t mBytes{};
};

TEST_F(CudaEngine, NonZeroAndNmsMatchTheHost)
{
    // A mask's non-zero positions, the elements there gathered (kND), and NMS over clustered boxes: data-dependent
    // outputs through output allocators, the NMS count at an address.
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{2, {4, 37}});
    auto* nonZero = mNetwork->addNonZero(*x, DataType::kINT64);
    auto* transpose = mNetwork->addShuffle(*nonZero->getOutput(0));
    transpose->setFirstTranspose(nvinfer1::Permutation{{1, 0}});
    auto* gather = mNetwork->addGatherV2(*x, *transpose->getOutput(0), nvinfer1::GatherMode::kND);
    ITensor* boxes = mNetwork->addInput("boxes", DataType::kFLOAT, Dims{3, {2, 300, 4}});
    ITensor* scores = mNetwork->addInput("scores", DataType::kFLOAT, Dims{3, {2, 300, 5}});
    static int32_t limit = 20;
    static float thresholds[] = {0.5F, 0.2F};
    auto* nms = mNetwork->addNMS(*boxes, *scores,
        *mNetwork->addConstant(Dims{0, {}}, {DataType::kINT32, &limit, 1})->getOutput(0), DataType::kINT32);
    nms->setInput(3, *mNetwork->addConstant(Dims{0, {}}, {DataType::kFLOAT, &thresholds[0], 1})->getOutput(0));
    nms->setInput(4, *mNetwork->addConstant(Dims{0, {}}, {DataType::kFLOAT, &thresholds[1], 1})->getOutput(0));
    char const* const names[] = {"indices", "values", "selected", "count"};
    ITensor* const outputs[] = {nonZero->getOutput(0), gather->getOutput(0), nms->getOutput(0), nms->getOutput(1)};
    for (int32_t i = 0; i < 4; ++i)
    {
        outputs[i]->setName(names[i]);
        mNetwork->markOutput(*outputs[i]);
    }

    std::uniform_real_distribution<float> uniform(0.F, 1.F);
    Values mask(4 * 37);
    for (float& v : mask)
    {
        v = uniform(mRng) < 0.5F ? 0.F : uniform(mRng) - 0.5F;
    }
    Values boxData(2 * 300 * 4);
    for (std::size_t b = 0; b < boxData.size(); b += 4)
    {
        boxData[b] = uniform(mRng) * 10.F;
        boxData[b + 1] = uniform(mRng) * 10.F;
        boxData[b + 2] = boxData[b] + 0.5F + uniform(mRng) * 2.F;
        boxData[b + 3] = boxData[b + 1] + 0.5F + uniform(mRng) * 2.F;
    }
    Values scoreData(2 * 300 * 5);
    for (float& v : scoreData)
    {
        v = std::floor(uniform(mRng) * 50.F) / 50.F; // many ties
    }
    std::vector<Values const*> const inputs{&mask, &boxData, &scoreData};
    char const* const inputNames[] = {"x", "boxes", "scores"};

    struct Run
    {
        std::vector<std::vector<uint8_t>> bytes; //!< Per output in names' order.
        std::vector<Dims> shapes;
    };
    auto const run = [&](char const* backend) {
        Run result;
        bool const device = std::string(backend) == "cuda";
        ICudaEngine* engine = load(build(backend));
        EXPECT_NE(engine, nullptr);
        if (engine == nullptr)
        {
            return result;
        }
        std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
        std::vector<void*> deviceCopies;
        for (int32_t i = 0; i < 3; ++i)
        {
            void* address = const_cast<float*>(inputs[i]->data());
            if (device)
            {
                std::size_t const bytes = inputs[i]->size() * sizeof(float);
                EXPECT_EQ(cudaMalloc(&address, bytes), cudaSuccess);
                EXPECT_EQ(cudaMemcpy(address, inputs[i]->data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
                deviceCopies.push_back(address);
            }
            EXPECT_TRUE(context->setTensorAddress(inputNames[i], address));
        }
        std::vector<std::unique_ptr<SideAllocator>> allocators;
        for (int32_t o = 0; o < 3; ++o)
        {
            allocators.push_back(std::make_unique<SideAllocator>(device));
            EXPECT_TRUE(context->setOutputAllocator(names[o], allocators.back().get()));
        }
        SideAllocator count(device);
        void* countAddress = count.reallocateOutputAsync("count", nullptr, 4, 4, nullptr);
        EXPECT_TRUE(context->setTensorAddress("count", countAddress));
        EXPECT_TRUE(context->enqueueV3(mStream)) << mLogger.all();
        EXPECT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
        std::size_t const elementBytes[] = {8, 4, 4};
        for (int32_t o = 0; o < 3; ++o)
        {
            Dims const shape = allocators[static_cast<std::size_t>(o)]->mShape;
            EXPECT_TRUE(sameDims(context->getTensorShape(names[o]), shape)) << toString(shape);
            result.shapes.push_back(shape);
            result.bytes.push_back(allocators[static_cast<std::size_t>(o)]->contents(
                static_cast<std::size_t>(volume(shape)) * elementBytes[o]));
        }
        result.bytes.push_back(count.contents(4));
        for (void* p : deviceCopies)
        {
            EXPECT_EQ(cudaFree(p), cudaSuccess);
        }
        return result;
    };
    Run const expected = run("host");
    Run const actual = run("cuda");
    ASSERT_EQ(expected.bytes.size(), 4U);
    ASSERT_EQ(actual.bytes.size(), 4U);
    for (std::size_t o = 0; o < 4; ++o)
    {
        SCOPED_TRACE(names[o]);
        if (o < 3)
        {
            EXPECT_EQ(std::vector<int64_t>(actual.shapes[o].d, actual.shapes[o].d + actual.shapes[o].nbDims),
                std::vector<int64_t>(expected.shapes[o].d, expected.shapes[o].d + expected.shapes[o].nbDims));
        }
        EXPECT_EQ(actual.bytes[o], expected.bytes[o]); // indices, copies of elements and counts: exact
    }
    EXPECT_GT(expected.shapes[2].d[0], 0); // some boxes were selected
}

// An if-conditional whose condition the GPU computes (sum(x) > 0): the condition layer copies it to the host (one
// stream synchronisation), only the chosen branch runs, and the output copies its value. Random inputs take both
// branches; the second output (the condition as a float) shows which one ran, on both backends.
TEST_F(CudaEngine, IfConditionalMatchesTheHost)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{2, {4, 8}});
    ITensor* sum = mNetwork->addReduce(*x, nvinfer1::ReduceOperation::kSUM, 3U, false)->getOutput(0);
    static float const zero = 0.F;
    ITensor* origin = mNetwork->addConstant(Dims{0, {}}, nvinfer1::Weights{DataType::kFLOAT, &zero, 1})->getOutput(0);
    ITensor* flag = mNetwork->addElementWise(*sum, *origin, nvinfer1::ElementWiseOperation::kGREATER)->getOutput(0);
    nvinfer1::IIfConditional* conditional = mNetwork->addIfConditional();
    ASSERT_NE(conditional->setCondition(*flag), nullptr);
    ITensor* in = conditional->addInput(*x)->getOutput(0);
    ITensor* onTrue = mNetwork->addActivation(*in, nvinfer1::ActivationType::kSIGMOID)->getOutput(0);
    ITensor* negated = mNetwork->addUnary(*in, nvinfer1::UnaryOperation::kNEG)->getOutput(0);
    ITensor* onFalse = mNetwork->addSoftMax(*negated)->getOutput(0);
    auto* out = conditional->addOutput(*onTrue, *onFalse);
    ASSERT_NE(out, nullptr);
    mNetwork->markOutput(*out->getOutput(0));
    mNetwork->markOutput(*mNetwork->addCast(*flag, DataType::kFLOAT)->getOutput(0));
    for (int draw = 0; draw < 6; ++draw)
    {
        expectSameOnBothBackends({Dims{2, {4, 8}}});
    }
}

// A loop over the rows of x [6, 8] on the GPU: a recurrence h = tanh(h + row) (double buffered), its values stacked
// along axis 1 (the stack transposed into place by the shuffle kernel) and reversed along axis 0, and its last value;
// a kWHILE limit (h's first element below 10, read back each iteration) next to the kCOUNT one.
TEST_F(CudaEngine, LoopMatchesTheHost)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{2, {6, 8}});
    static int32_t const six = 6;
    static float const ten = 10.F;
    ITensor* count = mNetwork->addConstant(Dims{0, {}}, nvinfer1::Weights{DataType::kINT32, &six, 1})->getOutput(0);
    ITensor* limit = mNetwork->addConstant(Dims{1, {1}}, nvinfer1::Weights{DataType::kFLOAT, &ten, 1})->getOutput(0);
    ITensor* h0 = mNetwork->addConstant(Dims{1, {8}}, weights(8))->getOutput(0);
    nvinfer1::ILoop* loop = mNetwork->addLoop();
    ASSERT_NE(loop->addTripLimit(*count, nvinfer1::TripLimit::kCOUNT), nullptr);
    nvinfer1::IRecurrenceLayer* h = loop->addRecurrence(*h0);
    ITensor* row = loop->addIterator(*x)->getOutput(0);
    ITensor* sum = mNetwork->addElementWise(*h->getOutput(0), *row, nvinfer1::ElementWiseOperation::kSUM)->getOutput(0);
    ITensor* next = mNetwork->addActivation(*sum, nvinfer1::ActivationType::kTANH)->getOutput(0);
    h->setInput(1, *next);
    auto* first = mNetwork->addSlice(*h->getOutput(0), Dims{1, {0}}, Dims{1, {1}}, Dims{1, {1}});
    ITensor* below
        = mNetwork->addElementWise(*first->getOutput(0), *limit, nvinfer1::ElementWiseOperation::kLESS)->getOutput(0);
    auto* scalar = mNetwork->addShuffle(*below);
    scalar->setReshapeDimensions(Dims{0, {}});
    ASSERT_NE(loop->addTripLimit(*scalar->getOutput(0), nvinfer1::TripLimit::kWHILE), nullptr);
    auto* stacked = loop->addLoopOutput(*next, nvinfer1::LoopOutput::kCONCATENATE, 1);
    stacked->setInput(1, *count);
    auto* reversed = loop->addLoopOutput(*row, nvinfer1::LoopOutput::kREVERSE, 0);
    reversed->setInput(1, *count);
    auto* last = loop->addLoopOutput(*h->getOutput(0), nvinfer1::LoopOutput::kLAST_VALUE);
    for (auto* out : {stacked, reversed, last})
    {
        mNetwork->markOutput(*out->getOutput(0));
    }
    expectSameOnBothBackends({Dims{2, {6, 8}}});
}

TEST_F(CudaEngine, ResizeMatchesTheHost)
{
    // An FPN's upsamplings: nearest by scales, linear to another tensor's spatial size (input 1, a shape tensor
    // computed on the host), cubic to fixed dimensions.
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{4, {1, 3, 5, 7}});
    ITensor* like = mNetwork->addInput("like", DataType::kFLOAT, Dims{4, {1, 3, 9, 4}});
    auto* nearest = mNetwork->addResize(*x);
    float const scales[] = {1.F, 1.F, 2.F, 2.F};
    nearest->setScales(scales, 4);
    auto* linear = mNetwork->addResize(*x);
    linear->setResizeMode(nvinfer1::InterpolationMode::kLINEAR);
    linear->setCoordinateTransformation(nvinfer1::ResizeCoordinateTransformation::kHALF_PIXEL);
    linear->setInput(1, *mNetwork->addShape(*like)->getOutput(0));
    auto* cubic = mNetwork->addResize(*x);
    cubic->setResizeMode(nvinfer1::InterpolationMode::kCUBIC);
    cubic->setCoordinateTransformation(nvinfer1::ResizeCoordinateTransformation::kALIGN_CORNERS);
    cubic->setOutputDimensions(Dims{4, {1, 3, 8, 11}});
    char const* const names[] = {"nearest", "linear", "cubic"};
    nvinfer1::IResizeLayer* const layers[] = {nearest, linear, cubic};
    for (int32_t i = 0; i < 3; ++i)
    {
        layers[i]->getOutput(0)->setName(names[i]);
        mNetwork->markOutput(*layers[i]->getOutput(0));
    }
    expectSameOnBothBackends({Dims{4, {1, 3, 5, 7}}, Dims{4, {1, 3, 9, 4}}});
}

TEST_F(CudaEngine, ShapeTensorsAreComputedOnTheHostInsideACudaEngine)
{
    // y = reshape(x, [shape(x)[0] * shape(x)[1], -1]) with a dynamic batch: the reshape's dimensions come from a
    // Shape layer and integer arithmetic, which run on the host; the data stays on the GPU.
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{3, {-1, 4, 5}});
    auto* shape = mNetwork->addShape(*x);
    static int32_t const kFirstTwo[] = {0, 1};
    auto* which = mNetwork->addConstant(Dims{1, {2}}, nvinfer1::Weights{DataType::kINT32, kFirstTwo, 2});
    auto* two = mNetwork->addGather(*shape->getOutput(0), *which->getOutput(0), 0);
    auto* product = mNetwork->addReduce(*two->getOutput(0), nvinfer1::ReduceOperation::kPROD, 1U, true);
    static int64_t const kRest[] = {-1};
    auto* rest = mNetwork->addConstant(Dims{1, {1}}, nvinfer1::Weights{DataType::kINT64, kRest, 1});
    ITensor* dims[] = {product->getOutput(0), rest->getOutput(0)};
    auto* concat = mNetwork->addConcatenation(dims, 2);
    auto* reshape = mNetwork->addShuffle(*x);
    reshape->setInput(1, *concat->getOutput(0));
    auto* scaled = mNetwork->addActivation(*reshape->getOutput(0), nvinfer1::ActivationType::kTANH);
    scaled->getOutput(0)->setName("y");
    mNetwork->markOutput(*scaled->getOutput(0));
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    auto* profile = mBuilder->createOptimizationProfile();
    profile->setDimensions("x", nvinfer1::OptProfileSelector::kMIN, Dims{3, {1, 4, 5}});
    profile->setDimensions("x", nvinfer1::OptProfileSelector::kOPT, Dims{3, {3, 4, 5}});
    profile->setDimensions("x", nvinfer1::OptProfileSelector::kMAX, Dims{3, {6, 4, 5}});
    config->addOptimizationProfile(profile);
    auto const plan = build("cuda", config.get());
    ASSERT_FALSE(plan.empty());
    ICudaEngine* engine = load(plan);
    ASSERT_NE(engine, nullptr);
    Values x3(3 * 4 * 5);
    for (std::size_t i = 0; i < x3.size(); ++i)
    {
        x3[i] = static_cast<float>(i) / 30.F - 1.F;
    }
    auto const outputs = runDevice(*engine, {Dims{3, {3, 4, 5}}}, {x3});
    ASSERT_EQ(outputs.size(), 1U);
    ASSERT_EQ(outputs[0].size(), x3.size());
    for (std::size_t i = 0; i < x3.size(); ++i)
    {
        EXPECT_NEAR(outputs[0][i], std::tanh(x3[i]), 1e-5F) << i;
    }
}

// getTensorLocation: a CUDA engine takes its I/O in device memory but shape tensors; a host engine of the same network
// takes all of it in host memory.
//! Copies each debug tensor it is handed from device memory, on the stream it is given.
class DeviceDebugListener final : public nvinfer1::IDebugListener
{
public:
    bool processDebugTensor(void const* addr, nvinfer1::TensorLocation location, DataType type, Dims const& shape,
        char const* name, cudaStream_t stream) override
    {
        int64_t count = 1;
        for (int32_t d = 0; d < shape.nbDims; ++d)
        {
            count *= shape.d[d];
        }
        Values values(static_cast<std::size_t>(count));
        bool const copied = location == nvinfer1::TensorLocation::kDEVICE && type == DataType::kFLOAT
            && cudaMemcpyAsync(values.data(), addr, values.size() * sizeof(float), cudaMemcpyDeviceToHost, stream)
                == cudaSuccess
            && cudaStreamSynchronize(stream) == cudaSuccess;
        names.emplace_back(name);
        received.push_back(copied ? values : Values{});
        return true;
    }

    std::vector<std::string> names;
    std::vector<Values> received;
};

TEST_F(CudaEngine, DebugTensorsReachTheListenerInDeviceMemoryOnEveryRun)
{
    // GELU from primitive layers, its sum 1 + erf(x / sqrt 2) marked debug: no fusion absorbs the sum, and the
    // listener gets it in device memory on the run's stream, on every run (replay is off while it listens).
    ScalarWeights scalars;
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{2, {2, 3}});
    ITensor* y = primitiveGelu(*mNetwork, *x, GeluForm::kERF, scalars);
    y->setName("y");
    mNetwork->markOutput(*y);
    ASSERT_TRUE(markGeluSumAsDebug(*mNetwork));
    ICudaEngine* engine = load(build("cuda"));
    ASSERT_NE(engine, nullptr);
    EXPECT_TRUE(engine->isDebugTensor("gelu_sum"));
    Values const in{-2.F, -0.5F, 0.F, 0.25F, 1.F, 3.F};
    std::size_t const bytes = in.size() * sizeof(float);
    void* dx = nullptr;
    void* dy = nullptr;
    ASSERT_EQ(cudaMalloc(&dx, bytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&dy, bytes), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(dx, in.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_TRUE(context->setTensorAddress("x", dx));
    ASSERT_TRUE(context->setTensorAddress("y", dy));
    DeviceDebugListener listener;
    ASSERT_TRUE(context->setDebugListener(&listener));
    ASSERT_TRUE(context->setTensorDebugState("gelu_sum", true));
    for (int32_t run = 0; run < 4; ++run)
    {
        ASSERT_TRUE(context->enqueueV3(mStream)) << mLogger.all();
        ASSERT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
    }
    ASSERT_EQ(listener.names.size(), 4U);
    for (std::size_t r = 0; r < listener.names.size(); ++r)
    {
        EXPECT_EQ(listener.names[r], "gelu_sum");
        ASSERT_EQ(listener.received[r].size(), in.size()) << "run " << r;
        for (std::size_t i = 0; i < in.size(); ++i)
        {
            EXPECT_NEAR(listener.received[r][i], 1.F + std::erf(in[i] / std::sqrt(2.F)), 1e-5F) << r << " " << i;
        }
    }
    Values out(in.size());
    ASSERT_EQ(cudaMemcpy(out.data(), dy, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    for (std::size_t i = 0; i < in.size(); ++i)
    {
        EXPECT_NEAR(out[i], 0.5F * in[i] * (1.F + std::erf(in[i] / std::sqrt(2.F))), 1e-5F) << i;
    }
    ASSERT_TRUE(context->setTensorDebugState("gelu_sum", false));
    ASSERT_TRUE(context->enqueueV3(mStream)) << mLogger.all();
    ASSERT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
    EXPECT_EQ(listener.names.size(), 4U);
    EXPECT_EQ(cudaFree(dx), cudaSuccess);
    EXPECT_EQ(cudaFree(dy), cudaSuccess);
}

TEST_F(CudaEngine, TensorLocationIsDeviceButForShapeTensorsAndHostOnAHostEngine)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{1, {-1}});
    ITensor* newShape = mNetwork->addInput("new_shape", DataType::kINT32, Dims{1, {2}});
    auto* reshape = mNetwork->addShuffle(*x);
    reshape->setInput(1, *newShape);
    reshape->getOutput(0)->setName("y");
    mNetwork->markOutput(*reshape->getOutput(0));
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    auto* profile = mBuilder->createOptimizationProfile();
    profile->setDimensions("x", nvinfer1::OptProfileSelector::kMIN, Dims{1, {1}});
    profile->setDimensions("x", nvinfer1::OptProfileSelector::kOPT, Dims{1, {12}});
    profile->setDimensions("x", nvinfer1::OptProfileSelector::kMAX, Dims{1, {144}});
    int32_t const low[2]{1, 1};
    int32_t const opt[2]{3, 4};
    int32_t const high[2]{12, 12};
    profile->setShapeValues("new_shape", nvinfer1::OptProfileSelector::kMIN, low, 2);
    profile->setShapeValues("new_shape", nvinfer1::OptProfileSelector::kOPT, opt, 2);
    profile->setShapeValues("new_shape", nvinfer1::OptProfileSelector::kMAX, high, 2);
    config->addOptimizationProfile(profile);
    ICudaEngine* cudaEngine = load(build("cuda", config.get()));
    ICudaEngine* hostEngine = load(build("host", config.get()));
    ASSERT_NE(cudaEngine, nullptr);
    ASSERT_NE(hostEngine, nullptr);
    EXPECT_EQ(cudaEngine->getTensorLocation("x"), nvinfer1::TensorLocation::kDEVICE);
    EXPECT_EQ(cudaEngine->getTensorLocation("new_shape"), nvinfer1::TensorLocation::kHOST);
    EXPECT_EQ(cudaEngine->getTensorLocation("y"), nvinfer1::TensorLocation::kDEVICE);
    for (char const* name : {"x", "new_shape", "y"})
    {
        EXPECT_EQ(hostEngine->getTensorLocation(name), nvinfer1::TensorLocation::kHOST) << name;
    }
    // The inspector says the same of each engine's I/O tensors, in both formats.
    for (ICudaEngine* engine : {cudaEngine, hostEngine})
    {
        std::unique_ptr<nvinfer1::IEngineInspector> inspector{engine->createEngineInspector()};
        std::string const json = inspector->getEngineInformation(nvinfer1::LayerInformationFormat::kJSON);
        std::string const oneLine = inspector->getEngineInformation(nvinfer1::LayerInformationFormat::kONELINE);
        for (std::string const name : {"x", "new_shape", "y"})
        {
            bool const host = engine->getTensorLocation(name.c_str()) == nvinfer1::TensorLocation::kHOST;
            std::string const where = host ? "Host" : "Device";
            EXPECT_NE(json.find("{\"Name\": \"" + name + "\", \"Location\": \"" + where + "\""), std::string::npos)
                << name << "\n"
                << json;
            EXPECT_NE(oneLine.find("{ Name: " + name + ", Location: " + where + ","), std::string::npos) << name << "\n"
                                                                                                         << oneLine;
        }
    }
}

TEST_F(CudaEngine, EnqueueIsCapturedInACudaGraphAndUsesTheApplicationsAllocator)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{2, {4, 64}});
    auto* w = mNetwork->addConstant(Dims{2, {64, 32}}, weights(64 * 32));
    auto* mm = mNetwork->addMatrixMultiply(
        *x, nvinfer1::MatrixOperation::kNONE, *w->getOutput(0), nvinfer1::MatrixOperation::kNONE);
    auto* relu = mNetwork->addActivation(*mm->getOutput(0), nvinfer1::ActivationType::kRELU);
    relu->getOutput(0)->setName("y");
    mNetwork->markOutput(*relu->getOutput(0));
    auto const plan = build("cuda");
    ASSERT_FALSE(plan.empty());
    CountingAllocator allocator;
    ICudaEngine* engine = load(plan, &allocator);
    ASSERT_NE(engine, nullptr);
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_NE(context, nullptr);
    EXPECT_GT(allocator.mAllocated, 0) << "the context's device memory comes from the runtime's allocator";

    void* input = nullptr;
    void* output = nullptr;
    ASSERT_EQ(cudaMalloc(&input, 4 * 64 * sizeof(float)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&output, 4 * 32 * sizeof(float)), cudaSuccess);
    std::vector<float> values(4 * 64);
    for (std::size_t i = 0; i < values.size(); ++i)
    {
        values[i] = std::sin(static_cast<float>(i));
    }
    ASSERT_EQ(cudaMemcpy(input, values.data(), values.size() * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_TRUE(context->setInputShape("x", Dims{2, {4, 64}}));
    ASSERT_TRUE(context->setTensorAddress("x", input));
    ASSERT_TRUE(context->setTensorAddress("y", output));
    // Once outside a graph (libraries make their handles), then captured.
    ASSERT_TRUE(context->enqueueV3(mStream)) << mLogger.all();
    ASSERT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
    std::vector<float> direct(4 * 32);
    ASSERT_EQ(cudaMemcpy(direct.data(), output, direct.size() * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemset(output, 0, direct.size() * sizeof(float)), cudaSuccess);

    cudaGraph_t graph{};
    ASSERT_EQ(cudaStreamBeginCapture(mStream, cudaStreamCaptureModeGlobal), cudaSuccess);
    bool const enqueued = context->enqueueV3(mStream);
    ASSERT_EQ(cudaStreamEndCapture(mStream, &graph), cudaSuccess);
    ASSERT_TRUE(enqueued) << mLogger.all();
    cudaGraphExec_t exec{};
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(exec, mStream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
    std::vector<float> replayed(4 * 32);
    ASSERT_EQ(
        cudaMemcpy(replayed.data(), output, replayed.size() * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(replayed, direct);
    EXPECT_GT(*std::max_element(direct.begin(), direct.end()), 0.F);
    EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
    EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
    EXPECT_EQ(cudaFree(input), cudaSuccess);
    EXPECT_EQ(cudaFree(output), cudaSuccess);
    context.reset();
    mEngines.clear();
    EXPECT_EQ(allocator.mFreed, allocator.mAllocated) << "everything the allocator gave is given back";
}

//! The shape values network (support/shape_values_network.h) on the GPU: a context with device buffers for the
//! longest x, captured into CUDA graphs.
class ShapeValuesGraph
{
public:
    ShapeValuesGraph(ICudaEngine& engine, cudaStream_t stream)
        : mContext(engine.createExecutionContext())
        , mStream(stream)
    {
        std::size_t const bytes = static_cast<std::size_t>(kShapeValuesMaxLength) * sizeof(float);
        EXPECT_EQ(cudaMalloc(&mX, bytes), cudaSuccess);
        EXPECT_EQ(cudaMalloc(&mY, bytes), cudaSuccess);
    }
    ~ShapeValuesGraph()
    {
        mContext.reset();
        EXPECT_EQ(cudaFree(mX), cudaSuccess);
        EXPECT_EQ(cudaFree(mY), cudaSuccess);
        EXPECT_EQ(cudaFree(mOtherY), cudaSuccess);
    }
    ShapeValuesGraph(ShapeValuesGraph const&) = delete;
    ShapeValuesGraph& operator=(ShapeValuesGraph const&) = delete;

    IExecutionContext& context() { return *mContext; }

    //! Sets x's shape and values (x[j] = sin(j + length)) and the addresses; returns x.
    Values setInput(int64_t length)
    {
        Values x(static_cast<std::size_t>(length));
        for (std::size_t j = 0; j < x.size(); ++j)
        {
            x[j] = std::sin(static_cast<float>(j) + static_cast<float>(length));
        }
        EXPECT_EQ(cudaMemcpy(mX, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
        EXPECT_EQ(cudaMemset(mY, 0, static_cast<std::size_t>(kShapeValuesMaxLength) * sizeof(float)), cudaSuccess);
        EXPECT_TRUE(mContext->setInputShape("x", Dims{2, {1, length}}));
        EXPECT_TRUE(mContext->setTensorAddress("x", mX));
        EXPECT_TRUE(mContext->setTensorAddress("y", mY));
        return x;
    }

    //! Captures enqueueV3 into a graph, launches it twice, and returns y. False in ok when capture or launch failed.
    Values captureAndReplay(int64_t length, std::string const& log, bool& ok)
    {
        ok = false;
        cudaGraph_t graph{};
        EXPECT_EQ(cudaStreamBeginCapture(mStream, cudaStreamCaptureModeGlobal), cudaSuccess);
        bool const enqueued = mContext->enqueueV3(mStream);
        cudaError_t const ended = cudaStreamEndCapture(mStream, &graph);
        EXPECT_TRUE(enqueued) << "enqueueV3 inside the capture: " << log;
        EXPECT_EQ(ended, cudaSuccess) << cudaGetErrorString(ended);
        Values y(static_cast<std::size_t>(length), 0.F);
        if (!enqueued || ended != cudaSuccess)
        {
            static_cast<void>(cudaGetLastError());
            return y;
        }
        cudaGraphExec_t exec{};
        EXPECT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
        // Twice: a replay must not depend on what the capture did once.
        for (int32_t k = 0; k < 2; ++k)
        {
            EXPECT_EQ(cudaMemset(mY, 0, y.size() * sizeof(float)), cudaSuccess);
            EXPECT_EQ(cudaGraphLaunch(exec, mStream), cudaSuccess);
            EXPECT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
        }
        EXPECT_EQ(cudaMemcpy(y.data(), mY, y.size() * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
        EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
        EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
        ok = true;
        return y;
    }

    //! Writes x's values (its shape and address stay).
    void overwriteInput(Values const& x)
    {
        EXPECT_EQ(cudaMemcpy(mX, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
    }

    //! Points y at memory of the context's own choosing (the first call) or back at the original (the second).
    void swapOutput()
    {
        if (mOtherY == nullptr)
        {
            EXPECT_EQ(
                cudaMalloc(&mOtherY, static_cast<std::size_t>(kShapeValuesMaxLength) * sizeof(float)), cudaSuccess);
        }
        std::swap(mY, mOtherY);
        EXPECT_TRUE(mContext->setTensorAddress("y", mY));
    }

    //! enqueueV3 outside any graph; returns y.
    Values enqueue(int64_t length, std::string const& log)
    {
        Values y(static_cast<std::size_t>(length), 0.F);
        EXPECT_TRUE(mContext->enqueueV3(mStream)) << log;
        EXPECT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
        EXPECT_EQ(cudaMemcpy(y.data(), mY, y.size() * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
        return y;
    }

private:
    std::unique_ptr<IExecutionContext> mContext;
    cudaStream_t mStream{};
    void* mX{};
    void* mY{};
    void* mOtherY{};
};

void expectNear(Values const& actual, Values const& expected, char const* what)
{
    ASSERT_EQ(actual.size(), expected.size()) << what;
    for (std::size_t j = 0; j < expected.size(); ++j)
    {
        EXPECT_NEAR(actual[j], expected[j], 1e-5F * (1.F + std::fabs(expected[j]))) << what << " element " << j;
    }
}

TEST_F(CudaEngine, IdenticalLayersAreTimedOnceAndACachedBuildTimesNone)
{
    // Two matrix multiplies of one problem ([256, 512] x [512, 512] in float, weights of their own): the build's
    // timing cache (the config's here) keeps the first one's choice, which the second takes untimed; a second build
    // with that cache times neither; a build with an empty cache under kERROR_ON_TIMING_CACHE_MISS fails, naming the
    // layer. Each engine computes what the host's does.
    std::vector<float> weights(2 * 512 * 512);
    for (std::size_t i = 0; i < weights.size(); ++i)
    {
        weights[i] = static_cast<float>(static_cast<int32_t>(i * 7919 % 255) - 127) / 2048.F;
    }
    ITensor* y = mNetwork->addInput("x", DataType::kFLOAT, Dims{2, {256, 512}});
    for (int32_t k = 0; k < 2; ++k)
    {
        auto* w = mNetwork->addConstant(
            Dims{2, {512, 512}}, nvinfer1::Weights{DataType::kFLOAT, weights.data() + k * 512 * 512, 512 * 512});
        auto* product = mNetwork->addMatrixMultiply(
            *y, nvinfer1::MatrixOperation::kNONE, *w->getOutput(0), nvinfer1::MatrixOperation::kNONE);
        product->setName(k == 0 ? "first" : "second");
        y = product->getOutput(0);
    }
    mNetwork->markOutput(*y);
    auto const count = [&](char const* text) {
        std::vector<std::string> const verbose = mLogger.messages(nvinfer1::ILogger::Severity::kVERBOSE);
        return std::count_if(
            verbose.begin(), verbose.end(), [&](std::string const& m) { return m.find(text) != std::string::npos; });
    };
    setenv("KILN_BACKEND", "cuda", 1); // The caches are the CUDA builds' (their identity names the device).
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    std::unique_ptr<nvinfer1::ITimingCache> cache{config->createTimingCache(nullptr, 0)};
    ASSERT_NE(cache, nullptr);
    ASSERT_TRUE(config->setTimingCache(*cache, false));
    std::vector<uint8_t> const first = build("cuda", config.get());
    ASSERT_FALSE(first.empty());
    if (count("chose tactic ") == 0)
    {
        GTEST_SKIP() << "cuBLASLt offers one variant for this product here: nothing to time";
    }
    EXPECT_EQ(count("chose tactic "), 2) << mLogger.all();
    EXPECT_EQ(count("layer 'second': tactic "), 1) << "only its choice, untimed: " << mLogger.all();
    EXPECT_EQ(count(" from the timing cache"), 1) << mLogger.all();

    std::vector<uint8_t> const second = build("cuda", config.get());
    ASSERT_FALSE(second.empty());
    EXPECT_EQ(count(" from the timing cache"), 3) << "both layers of the second build: " << mLogger.all();

    std::unique_ptr<nvinfer1::IBuilderConfig> strict{mBuilder->createBuilderConfig()};
    std::unique_ptr<nvinfer1::ITimingCache> empty{strict->createTimingCache(nullptr, 0)};
    ASSERT_TRUE(strict->setTimingCache(*empty, false));
    strict->setFlag(nvinfer1::BuilderFlag::kERROR_ON_TIMING_CACHE_MISS);
    std::unique_ptr<nvinfer1::IHostMemory> refused{mBuilder->buildSerializedNetwork(*mNetwork, *strict)};
    EXPECT_EQ(refused, nullptr);
    EXPECT_NE(mLogger.all().find("layer 'first': the timing cache has no choice among its"), std::string::npos)
        << mLogger.all();

    std::vector<uint8_t> const host = build("host");
    Values input(256 * 512);
    for (std::size_t i = 0; i < input.size(); ++i)
    {
        input[i] = static_cast<float>(static_cast<int32_t>(i * 104729 % 201) - 100) / 100.F;
    }
    ICudaEngine* hostEngine = load(host);
    ASSERT_NE(hostEngine, nullptr);
    auto const expected = runHost(*hostEngine, {Dims{2, {256, 512}}}, {input});
    for (std::vector<uint8_t> const* plan : {&first, &second})
    {
        ICudaEngine* engine = load(*plan);
        ASSERT_NE(engine, nullptr);
        auto const actual = runDevice(*engine, {Dims{2, {256, 512}}}, {input});
        ASSERT_EQ(actual.size(), 1U);
        ASSERT_EQ(expected.size(), 1U);
        ASSERT_EQ(actual[0].size(), expected[0].size());
        for (std::size_t j = 0; j < expected[0].size(); ++j)
        {
            ASSERT_NEAR(actual[0][j], expected[0][j], 1e-3F * (1.F + std::fabs(expected[0][j]))) << "element " << j;
        }
    }
}

TEST_F(CudaEngine, ConvolutionAndProductVariantsAreTimedByTheirLatencyInACudaGraph)
{
    // The builder times each variant's runs captured in a CUDA graph with an event record node after each run
    // (cuda_backend.cpp, timeTactic). A variant whose runs cannot be captured (a synchronisation or an allocation
    // inside a library call) is timed back to back instead, where cuBLASLt's kernels overlap the next copy of
    // themselves and small cuDNN convolutions time the host, and is chosen only where no variant could be captured.
    // Here a float convolution and a matrix multiply each have variants timed in a graph, each chose one of those,
    // and the engine computes what the host's does.
    if (char const* setting = std::getenv("KILN_TACTIC_LATENCY"); setting != nullptr && std::string(setting) == "0")
    {
        GTEST_SKIP() << "KILN_TACTIC_LATENCY=0: every variant is timed back to back";
    }
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{4, {2, 16, 32, 32}});
    auto* conv = mNetwork->addConvolutionNd(*x, 16, Dims{2, {3, 3}}, weights(16 * 16 * 3 * 3), weights(16));
    conv->setPaddingNd(Dims{2, {1, 1}});
    conv->setName("conv");
    auto* flat = mNetwork->addShuffle(*conv->getOutput(0));
    flat->setReshapeDimensions(Dims{2, {2 * 16, 32 * 32}});
    auto* w = mNetwork->addConstant(Dims{2, {32 * 32, 256}}, weights(32 * 32 * 256));
    auto* product = mNetwork->addMatrixMultiply(
        *flat->getOutput(0), nvinfer1::MatrixOperation::kNONE, *w->getOutput(0), nvinfer1::MatrixOperation::kNONE);
    product->setName("product");
    mNetwork->markOutput(*product->getOutput(0));
    expectSameOnBothBackends({Dims{4, {2, 16, 32, 32}}}, 1e-3F);
    // Per layer: each timed variant's name and whether it was timed in a graph, and the chosen variant's name.
    std::map<std::string, std::map<std::string, bool>> timed;
    std::map<std::string, std::string> chosen;
    for (std::string const& message : mLogger.messages(nvinfer1::ILogger::Severity::kVERBOSE))
    {
        for (std::string const layer : {"conv", "product"})
        {
            std::string const timing = "layer '" + layer + "': tactic ";
            std::string const choice = "layer '" + layer + "': chose tactic ";
            std::size_t const ms = message.rfind(" ms (");
            if (message.starts_with(timing) && ms != std::string::npos)
            {
                std::string const name = message.substr(timing.size(), message.rfind(": ", ms) - timing.size());
                timed[layer][name] = message.find(" ms (latency, in a CUDA graph)") != std::string::npos;
            }
            else if (message.starts_with(choice))
            {
                chosen[layer] = message.substr(choice.size(), message.rfind(" of ") - choice.size());
            }
        }
    }
    if (timed.empty())
    {
        GTEST_SKIP() << "cuDNN and cuBLASLt offer one variant each here: nothing to time";
    }
    for (auto const& [layer, variants] : timed)
    {
        EXPECT_TRUE(std::any_of(variants.begin(), variants.end(), [](auto const& v) { return v.second; }))
            << "no variant of layer '" << layer << "' was timed in a graph: " << mLogger.all();
        auto const found = variants.find(chosen[layer]);
        ASSERT_NE(found, variants.end()) << "layer '" << layer << "' chose '" << chosen[layer]
                                         << "': " << mLogger.all();
        EXPECT_TRUE(found->second) << "layer '" << layer << "' chose a variant timed back to back: " << mLogger.all();
    }
}

TEST_F(CudaEngine, ShapeValuesLeaveEnqueueCapturableInACudaGraph)
{
    // BERT's position subgraph: a folded Range constant read as a slice start on the host and as data on the GPU,
    // shape arithmetic read as a slice size and a reshape's dimensions and as data. Before shape values were computed
    // on the host, enqueueV3 copied them from the device and synchronised: the capture failed.
    auto const [hostEngine, cudaEngine] = shapeValuesEngines();
    ASSERT_NE(hostEngine, nullptr);
    ASSERT_NE(cudaEngine, nullptr);
    ShapeValuesGraph gpu(*cudaEngine, mStream);
    Values const x = gpu.setInput(6);
    auto const expected = runHost(*hostEngine, {Dims{2, {1, 6}}}, {x});
    ASSERT_EQ(expected.size(), 1U);
    expectNear(expected[0], shapeValuesReference(x), "the host engine");
    // Once outside a graph, then captured and replayed.
    expectNear(gpu.enqueue(6, mLogger.all()), expected[0], "enqueueV3");
    bool ok = false;
    Values const replayed = gpu.captureAndReplay(6, mLogger.all(), ok);
    ASSERT_TRUE(ok) << mLogger.all();
    expectNear(replayed, expected[0], "the replayed graph");
}

TEST_F(CudaEngine, RepeatedEnqueuesReplayTheLayersFromAGraphOfTheContexts)
{
    // executor.h, "Replay": the second enqueueV3 with the same inputs, addresses and memory captures the layers; later
    // ones launch that graph, which reads the inputs' current values; another output address or shape runs directly.
    auto const [hostEngine, cudaEngine] = shapeValuesEngines();
    ASSERT_NE(hostEngine, nullptr);
    ASSERT_NE(cudaEngine, nullptr);
    constexpr char const* kCaptured = "its layers are captured in a CUDA graph";
    auto const captures = [&] {
        std::vector<std::string> const verbose = mLogger.messages(nvinfer1::ILogger::Severity::kVERBOSE);
        return std::count_if(verbose.begin(), verbose.end(),
            [&](std::string const& m) { return m.find(kCaptured) != std::string::npos; });
    };
    ShapeValuesGraph gpu(*cudaEngine, mStream);
    Values x = gpu.setInput(6);
    auto const check = [&](Values const& input, char const* what) {
        auto const expected = runHost(*hostEngine, {Dims{2, {1, static_cast<int64_t>(input.size())}}}, {input});
        ASSERT_EQ(expected.size(), 1U);
        expectNear(gpu.enqueue(static_cast<int64_t>(input.size()), mLogger.all()), expected[0], what);
    };
    check(x, "the first enqueueV3");
    EXPECT_EQ(captures(), 0) << "one run is no pattern yet";
    check(x, "the second enqueueV3 (run, then captured)");
    EXPECT_EQ(captures(), 1) << mLogger.all();
    for (int32_t k = 0; k < 3; ++k)
    {
        for (float& v : x)
        {
            v = v * 0.5F + static_cast<float>(k); // The graph reads x's memory as it is at each launch.
        }
        gpu.overwriteInput(x);
        check(x, "a replayed enqueueV3");
    }
    EXPECT_EQ(captures(), 1) << "replays capture nothing";
    // Another output address: a direct run into the new memory, captured again on the next one.
    gpu.swapOutput();
    check(x, "enqueueV3 into another output");
    check(x, "enqueueV3 into another output, again");
    EXPECT_EQ(captures(), 2);
    gpu.swapOutput();
    check(x, "enqueueV3 back into the first output");
    // Another shape: the shape values change, and so does the graph.
    for (int32_t k = 0; k < 3; ++k)
    {
        check(gpu.setInput(11), "enqueueV3 with another shape");
    }
    EXPECT_EQ(captures(), 3) << "captured on the second run of the new shape, replayed on the third";
}

TEST_F(CudaEngine, EnqueueReplayIsOffWithAProfilerAndWhenTheEnvironmentSaysSo)
{
    auto const [hostEngine, cudaEngine] = shapeValuesEngines();
    ASSERT_NE(hostEngine, nullptr);
    ASSERT_NE(cudaEngine, nullptr);
    auto const captured = [&] { return mLogger.all().find("its layers are captured in a CUDA graph"); };
    {
        setenv("KILN_ENQUEUE_GRAPH", "0", 1);
        ShapeValuesGraph gpu(*cudaEngine, mStream);
        unsetenv("KILN_ENQUEUE_GRAPH");
        Values const x = gpu.setInput(6);
        auto const expected = runHost(*hostEngine, {Dims{2, {1, 6}}}, {x});
        ASSERT_EQ(expected.size(), 1U);
        for (int32_t k = 0; k < 3; ++k)
        {
            expectNear(gpu.enqueue(6, mLogger.all()), expected[0], "enqueueV3 without replay");
        }
        EXPECT_EQ(captured(), std::string::npos) << mLogger.all();
    }
    struct Layers final : nvinfer1::IProfiler
    {
        void reportLayerTime(char const* /*layerName*/, float /*ms*/) noexcept override { ++reports; }
        int32_t reports{};
    } profiler;
    ShapeValuesGraph gpu(*cudaEngine, mStream);
    gpu.context().setProfiler(&profiler);
    Values const x = gpu.setInput(6);
    for (int32_t k = 0; k < 3; ++k)
    {
        gpu.enqueue(6, mLogger.all());
    }
    EXPECT_EQ(captured(), std::string::npos) << "a profiler wants every layer's time: " << mLogger.all();
    EXPECT_GT(profiler.reports, 0);
}

TEST_F(CudaEngine, ChangingTheInputShapeBetweenGraphCapturesGivesTheNewShapesResults)
{
    auto const [hostEngine, cudaEngine] = shapeValuesEngines();
    ASSERT_NE(hostEngine, nullptr);
    ASSERT_NE(cudaEngine, nullptr);
    ShapeValuesGraph gpu(*cudaEngine, mStream);
    for (int64_t const length : std::initializer_list<int64_t>{5, 11, 2, kShapeValuesMaxLength})
    {
        SCOPED_TRACE("S = " + std::to_string(length));
        Values const x = gpu.setInput(length);
        auto const expected = runHost(*hostEngine, {Dims{2, {1, length}}}, {x});
        ASSERT_EQ(expected.size(), 1U);
        // The first length warms the context up outside a graph; the others are captured right after setInputShape,
        // which computed the new shape values (the graph holds their copy to the device).
        if (length == 5)
        {
            expectNear(gpu.enqueue(length, mLogger.all()), expected[0], "enqueueV3");
        }
        bool ok = false;
        Values const replayed = gpu.captureAndReplay(length, mLogger.all(), ok);
        ASSERT_TRUE(ok) << mLogger.all();
        expectNear(replayed, expected[0], "the replayed graph");
        // And a plain enqueue after the graph agrees.
        expectNear(gpu.enqueue(length, mLogger.all()), expected[0], "enqueueV3 after the graph");
    }
}

//! x (float) -> half -> three 3x3 convolutions 16 -> 32 -> 32 -> 16 with bias and ReLU -> float, built for both
//! backends and compared. With channelsLast the CUDA build runs the chain in kHWC8 (builder/layout.h: a reformat at
//! each end, the kernels KRSC); the host build runs the layers as they are. The weights are multiples of 2^-13 in
//! [-1/16, 1/16]: half holds them exactly (the CUDA engine rounds float weights to the layer's type, the host computes
//! with them as given), and the activations stay near 1, where the relative tolerance means what it says (with weights
//! in [-0.5, 0.5] they grew to ~10, where one half ulp of an intermediate value is 0.008 and moves the result by 0.02).
void CudaEngine::halfConvolutionChain(bool channelsLast)
{
    setenv("KILN_CHANNELS_LAST", channelsLast ? "1" : "0", 1);
    struct Unset
    {
        ~Unset() { unsetenv("KILN_CHANNELS_LAST"); }
    } const unset;
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{4, {2, 16, 12, 12}});
    ITensor* h = mNetwork->addCast(*x, DataType::kHALF)->getOutput(0);
    int64_t channels = 16;
    int32_t index = 0;
    auto const exact = [&](std::size_t count) {
        nvinfer1::Weights const w = weights(count);
        for (float& v : mWeights.back())
        {
            v = std::round(v * 1024.F) / 8192.F;
        }
        return w;
    };
    for (int64_t const maps : {32, 32, 16})
    {
        auto const count = static_cast<std::size_t>(maps * channels * 9);
        auto* conv = mNetwork->addConvolutionNd(*h, maps, Dims{2, {3, 3}}, exact(count), exact(maps));
        conv->setPaddingNd(Dims{2, {1, 1}});
        conv->setName(("conv" + std::to_string(index++)).c_str());
        h = mNetwork->addActivation(*conv->getOutput(0), nvinfer1::ActivationType::kRELU)->getOutput(0);
        channels = maps;
    }
    auto* y = mNetwork->addCast(*h, DataType::kFLOAT);
    y->getOutput(0)->setName("y");
    mNetwork->markOutput(*y->getOutput(0));
    expectSameOnBothBackends({Dims{4, {2, 16, 12, 12}}}, 1e-2F);
    ASSERT_EQ(mEngines.size(), 2U);
    std::unique_ptr<nvinfer1::IEngineInspector> inspector{mEngines[1]->createEngineInspector()};
    ASSERT_NE(inspector, nullptr);
    std::string const layers = inspector->getEngineInformation(nvinfer1::LayerInformationFormat::kONELINE);
    bool const reformatted = layers.find("Name: conv0 input 0 to kHWC8,") != std::string::npos
        && layers.find("Name: conv2 output 0 from kHWC8,") != std::string::npos;
    EXPECT_EQ(reformatted, channelsLast) << layers;
}

TEST_F(CudaEngine, HalfConvolutionChainRunsChannelsLastAndMatchesTheHost)
{
    halfConvolutionChain(true);
}

TEST_F(CudaEngine, HalfConvolutionChainInNchwMatchesTheHost)
{
    halfConvolutionChain(false);
}

//! Makes y (of type) the float output "y", builds the network for both backends and compares them on x of shape; then
//! expects the CUDA engine to run one channels-last chain (in a 16-bit type) from a reformat before layer first to one
//! after layer last, and no other reformat into or out of kHWC8 (none at all in kFLOAT).
void CudaEngine::compareChannelsLastChain(
    ITensor& y, Dims const& shape, DataType type, std::string const& first, std::string const& last)
{
    ITensor* out = type == DataType::kFLOAT ? &y : mNetwork->addCast(y, DataType::kFLOAT)->getOutput(0);
    out->setName("y");
    mNetwork->markOutput(*out);
    expectSameOnBothBackends({shape}, type == DataType::kFLOAT ? 1e-4F : 1e-2F);
    ASSERT_EQ(mEngines.size(), 2U);
    std::unique_ptr<nvinfer1::IEngineInspector> inspector{mEngines[1]->createEngineInspector()};
    ASSERT_NE(inspector, nullptr);
    std::string const layers = inspector->getEngineInformation(nvinfer1::LayerInformationFormat::kONELINE);
    bool const channelsLast = type != DataType::kFLOAT;
    EXPECT_EQ(layers.find("Name: " + first + " input 0 to kHWC8,") != std::string::npos, channelsLast) << layers;
    EXPECT_EQ(layers.find("Name: " + last + " output 0 from kHWC8,") != std::string::npos, channelsLast) << layers;
    EXPECT_EQ(layers.find(" to kHWC8,"), layers.rfind(" to kHWC8,")) << "one reformat into kHWC8 at most: " << layers;
    EXPECT_EQ(layers.find(" from kHWC8,"), layers.rfind(" from kHWC8,")) << "one back at most: " << layers;
}

//! Two ResNet-like blocks (support/fusion_patterns.h, residualBlocks) in type, strongly typed with weights of type: x
//! (float) -> type -> max pooling -> block 1 (identity shortcut) -> block 2 (downsampling shortcut) -> max pooling ->
//! float, built for both backends and compared. The CUDA build folds each block's sum and ReLU into a convolution
//! (builder/fusion.h, input 3) and, in kHALF, runs the poolings and the blocks in kHWC8 with one reformat before the
//! first pooling and one after the second (builder/layout.h). The weights are multiples of 2^-13 in [-1/16, 1/16],
//! which half holds exactly.
void CudaEngine::residualBlocksMatchTheHost(DataType type)
{
    ApiTest::recreate(1U << static_cast<uint32_t>(nvinfer1::NetworkDefinitionCreationFlag::kSTRONGLY_TYPED));
    Dims const shape{4, {2, 16, 12, 12}};
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, shape);
    ITensor* h = type == DataType::kFLOAT ? x : mNetwork->addCast(*x, type)->getOutput(0);
    test::ScalarWeights arrays;
    ITensor* y = test::residualBlocks(*mNetwork, *h, [&](int64_t count) {
        weights(static_cast<std::size_t>(count));
        for (float& v : mWeights.back())
        {
            v = std::round(v * 1024.F) / 8192.F;
        }
        return arrays(mWeights.back(), type);
    });
    // The poolings join the chain (builder/layout.h): reformats before the first and after the second.
    compareChannelsLastChain(*y, shape, type, "pool", "pool2");
}

TEST_F(CudaEngine, HalfResidualBlocksRunChannelsLastFusedAndMatchTheHost)
{
    residualBlocksMatchTheHost(DataType::kHALF);
}

TEST_F(CudaEngine, FloatResidualBlocksRunFusedAndMatchTheHost)
{
    residualBlocksMatchTheHost(DataType::kFLOAT);
}

//! A ResNet's edge in type, weakly typed: x [4, 3, 30, 30] (float) -> type -> the stem (7x7 of stride 2, 3 -> 64
//! channels, padding 3, bias, ReLU) -> 3x3 max pooling of stride 2, padding 1 -> 3x3 convolution 64 -> 64 (ReLU) ->
//! 3x3 average pooling of stride 1, padding 1 (padding counted) -> 1x1 convolution 64 -> 64 -> float, built for both
//! backends and compared. In kHALF the CUDA build runs it all in kHWC8 (builder/layout.h): x's reformat pads 3 channels
//! to 8, the stem's kernel is KRSC with 8 channels (backends/cuda/convolution.cpp), the poolings pool vectors of 8
//! channels (pooling.cu); one reformat at each edge. kFLOAT stays kLINEAR (kHWC8 holds 16-bit types). The weights are
//! multiples of 2^-13 in [-1/16, 1/16], which half holds exactly.
void CudaEngine::resnetStemMatchesTheHost(DataType type)
{
    Dims const shape{4, {4, 3, 30, 30}};
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, shape);
    ITensor* h = type == DataType::kFLOAT ? x : mNetwork->addCast(*x, type)->getOutput(0);
    auto const exact = [&](int64_t count) {
        nvinfer1::Weights const w = weights(static_cast<std::size_t>(count));
        for (float& v : mWeights.back())
        {
            v = std::round(v * 1024.F) / 8192.F;
        }
        return w;
    };
    auto const conv = [&](ITensor& in, int64_t size, int64_t stride, bool relu, char const* name) {
        int64_t const channels = in.getDimensions().d[1];
        auto* layer
            = mNetwork->addConvolutionNd(in, 64, Dims{2, {size, size}}, exact(64 * channels * size * size), exact(64));
        layer->setStrideNd(Dims{2, {stride, stride}});
        layer->setPaddingNd(Dims{2, {size / 2, size / 2}});
        layer->setName(name);
        ITensor* out = layer->getOutput(0);
        return relu ? mNetwork->addActivation(*out, nvinfer1::ActivationType::kRELU)->getOutput(0) : out;
    };
    auto const pool = [&](ITensor& in, nvinfer1::PoolingType kind, int64_t stride, char const* name) {
        auto* layer = mNetwork->addPoolingNd(in, kind, Dims{2, {3, 3}});
        layer->setStrideNd(Dims{2, {stride, stride}});
        layer->setPaddingNd(Dims{2, {1, 1}});
        layer->setAverageCountExcludesPadding(false);
        layer->setName(name);
        return layer->getOutput(0);
    };
    h = conv(*h, 7, 2, true, "stem");
    h = pool(*h, nvinfer1::PoolingType::kMAX, 2, "maxpool");
    h = conv(*h, 3, 1, true, "c1");
    h = pool(*h, nvinfer1::PoolingType::kAVERAGE, 1, "avgpool");
    h = conv(*h, 1, 1, false, "c2");
    compareChannelsLastChain(*h, shape, type, "stem", "c2");
}

TEST_F(CudaEngine, HalfResnetStemRunsChannelsLastPaddedAndMatchesTheHost)
{
    resnetStemMatchesTheHost(DataType::kHALF);
}

TEST_F(CudaEngine, FloatResnetStemStaysLinearAndMatchesTheHost)
{
    resnetStemMatchesTheHost(DataType::kFLOAT);
}

//! How many times text occurs in haystack.
int32_t occurrences(std::string const& haystack, std::string const& text)
{
    int32_t count = 0;
    for (std::size_t at = haystack.find(text); at != std::string::npos; at = haystack.find(text, at + 1))
    {
        ++count;
    }
    return count;
}

//! The engine's layers, one line each, from its inspector.
std::string engineLayers(ICudaEngine& engine)
{
    std::unique_ptr<nvinfer1::IEngineInspector> inspector{engine.createEngineInspector()};
    if (inspector == nullptr)
    {
        return {};
    }
    char const* text = inspector->getEngineInformation(nvinfer1::LayerInformationFormat::kONELINE);
    return text == nullptr ? std::string() : std::string(text);
}

// The plan records the variant the builder timed fastest by its name (cuBLASLt's algorithm configuration), and the
// loaded engine's inspector shows it.
TEST_F(CudaEngine, ThePlanNamesTheChosenVariant)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{2, {64, 128}});
    auto* w = mNetwork->addConstant(Dims{2, {128, 96}}, weights(128 * 96));
    auto* mm = mNetwork->addMatrixMultiply(
        *x, nvinfer1::MatrixOperation::kNONE, *w->getOutput(0), nvinfer1::MatrixOperation::kNONE);
    mm->setName("product");
    mm->getOutput(0)->setName("y");
    mNetwork->markOutput(*mm->getOutput(0));
    auto const plan = build("cuda");
    ASSERT_FALSE(plan.empty());
    ICudaEngine* engine = load(plan);
    ASSERT_NE(engine, nullptr);
    std::string const layers = engineLayers(*engine);
    EXPECT_NE(layers.find("TacticName: cublasLt algo "), std::string::npos) << layers;
}

//! A test per float type: the fused kernels against the host's unfused layers, computed in that type (float inputs
//! and outputs, cast at both ends); the tolerance per type.
class CudaFusedKernels : public CudaEngine, public ::testing::WithParamInterface<DataType>
{
protected:
    ITensor* typed(ITensor* t)
    {
        return GetParam() == DataType::kFLOAT ? t : mNetwork->addCast(*t, GetParam())->getOutput(0);
    }
    void output(ITensor* t, char const* name)
    {
        if (t->getType() != DataType::kFLOAT)
        {
            t = mNetwork->addCast(*t, DataType::kFLOAT)->getOutput(0);
        }
        t->setName(name);
        mNetwork->markOutput(*t);
    }
    float tolerance() const
    {
        switch (GetParam())
        {
        case DataType::kHALF: return 1e-2F;
        case DataType::kBF16: return 4e-2F;
        default: return 1e-4F;
        }
    }
    //! A constant of the test's type, values in [0.5, 1.5) or [-0.5, 0.5).
    ITensor* vector(int64_t n, bool aroundOne)
    {
        nvinfer1::Weights w = weights(static_cast<std::size_t>(n));
        if (aroundOne)
        {
            for (float& v : mWeights.back())
            {
                v += 1.F;
            }
        }
        return typed(mNetwork->addConstant(Dims{3, {1, 1, n}}, w)->getOutput(0));
    }
    test::ScalarWeights mScalars;
    std::vector<std::unique_ptr<int32_t>> mIndexWeights;
    std::vector<int32_t> mPositions;
    std::deque<std::vector<int64_t>> mIntegers;
    std::deque<std::vector<uint8_t>> mBools;
};

TEST_P(CudaFusedKernels, LayerNormMatchesTheUnfusedHost)
{
    // Rows of 512 (16-byte vectors), 33 (one element at a time) and 1500 (a block per row), with and without gamma and
    // beta; each pattern is one fused layer in the CUDA engine.
    std::vector<Dims> shapes;
    int32_t index = 0;
    for (int64_t const n : {512, 33, 1500})
    {
        Dims const shape{3, {2, 5, n}};
        std::string const name = "x" + std::to_string(index);
        ITensor* x = typed(mNetwork->addInput(name.c_str(), DataType::kFLOAT, shape));
        shapes.push_back(shape);
        bool const affine = n != 33;
        ITensor* y = test::primitiveLayerNorm(
            *mNetwork, *x, 1e-5F, affine ? vector(n, true) : nullptr, affine ? vector(n, false) : nullptr, mScalars);
        output(y, ("y" + std::to_string(index++)).c_str());
    }
    expectSameOnBothBackends(shapes, tolerance());
    ASSERT_EQ(mEngines.size(), 2U);
    std::string const layers = engineLayers(*mEngines[1]);
    EXPECT_EQ(occurrences(layers, "LayerType: LayerNorm"), 3) << layers;
}

TEST_P(CudaFusedKernels, EmbeddingsMatchTheUnfusedHost)
{
    // BERT's embeddings as its ONNX export gives them: word ids wrapped as the parser wraps ONNX's negative indices
    // (select(i < 0, i + rows, i)), type ids, position ids [1, S] broadcast over the batch, the three rows summed and
    // layer-normalized (rows of 64: 16-byte vectors); and one lookup plus an addend input without a layer norm (rows of
    // 33: one element at a time). A weakly typed network with float tables, built with the type's flag: the tables
    // become the reduced type after the fusion. Each pattern is one fused layer in the CUDA engine.
    if (GetParam() != DataType::kFLOAT)
    {
        mReducedFlag = GetParam() == DataType::kHALF ? nvinfer1::BuilderFlag::kFP16 : nvinfer1::BuilderFlag::kBF16;
    }
    constexpr int64_t kBatch = 2;
    constexpr int64_t kTokens = 9;
    constexpr int32_t kWords = 50;
    auto const table = [&](int64_t rows, int64_t width) {
        return mNetwork->addConstant(Dims{2, {rows, width}}, weights(static_cast<std::size_t>(rows * width)))
            ->getOutput(0);
    };
    auto const integer = [&](int32_t value) {
        mIndexWeights.push_back(std::make_unique<int32_t>(value));
        return mNetwork
            ->addConstant(Dims{2, {1, 1}}, nvinfer1::Weights{DataType::kINT32, mIndexWeights.back().get(), 1})
            ->getOutput(0);
    };
    Dims const ids{2, {kBatch, kTokens}};
    ITensor* words = mNetwork->addInput("words", DataType::kINT32, ids);
    ITensor* types = mNetwork->addInput("types", DataType::kINT32, ids);
    ITensor* more = mNetwork->addInput("more", DataType::kINT32, ids);
    Dims const addendShape{3, {kBatch, kTokens, 33}};
    ITensor* addend = mNetwork->addInput("addend", DataType::kFLOAT, addendShape);
    auto* negative = mNetwork->addElementWise(*words, *integer(0), nvinfer1::ElementWiseOperation::kLESS)->getOutput(0);
    auto* shifted
        = mNetwork->addElementWise(*words, *integer(kWords), nvinfer1::ElementWiseOperation::kSUM)->getOutput(0);
    ITensor* wrapped = mNetwork->addSelect(*negative, *shifted, *words)->getOutput(0);
    auto const lookup
        = [&](ITensor* data, ITensor* indices) { return mNetwork->addGather(*data, *indices, 0)->getOutput(0); };
    mPositions.resize(kTokens);
    std::iota(mPositions.begin(), mPositions.end(), 0);
    ITensor* positions
        = mNetwork->addConstant(Dims{2, {1, kTokens}}, nvinfer1::Weights{DataType::kINT32, mPositions.data(), kTokens})
              ->getOutput(0);
    constexpr int64_t kWidth = 64;
    ITensor* sum = mNetwork
                       ->addElementWise(*lookup(table(kWords, kWidth), wrapped), *lookup(table(3, kWidth), types),
                           nvinfer1::ElementWiseOperation::kSUM)
                       ->getOutput(0);
    sum = mNetwork->addElementWise(*sum, *lookup(table(16, kWidth), positions), nvinfer1::ElementWiseOperation::kSUM)
              ->getOutput(0);
    auto const affine = [&](bool aroundOne) {
        nvinfer1::Weights w = weights(kWidth);
        for (float& v : mWeights.back())
        {
            v += aroundOne ? 1.F : 0.F;
        }
        return mNetwork->addConstant(Dims{3, {1, 1, kWidth}}, w)->getOutput(0);
    };
    output(test::primitiveLayerNorm(*mNetwork, *sum, 1e-5F, affine(true), affine(false), mScalars), "y0");
    output(mNetwork->addElementWise(*lookup(table(20, 33), more), *addend, nvinfer1::ElementWiseOperation::kSUM)
               ->getOutput(0),
        "y1");

    std::vector<Dims> const shapes{ids, ids, ids, addendShape};
    std::vector<Values> inputs;
    auto const indices = [&](int32_t low, int32_t high) {
        std::uniform_int_distribution<int32_t> pick(low, high - 1);
        Values values(static_cast<std::size_t>(kBatch * kTokens));
        for (float& v : values)
        {
            int32_t const index = pick(mRng);
            std::memcpy(&v, &index, sizeof(index)); // The harness copies 4 bytes per element.
        }
        return values;
    };
    inputs.push_back(indices(-kWords, kWords));
    inputs.push_back(indices(0, 3));
    inputs.push_back(indices(0, 20));
    Values extra(static_cast<std::size_t>(volume(addendShape)));
    std::uniform_real_distribution<float> uniform(-1.F, 1.F);
    for (float& v : extra)
    {
        v = uniform(mRng);
    }
    inputs.push_back(std::move(extra));
    expectSameOnBothBackends(shapes, inputs, tolerance());
    ASSERT_EQ(mEngines.size(), 2U);
    std::string const layers = engineLayers(*mEngines[1]);
    EXPECT_EQ(occurrences(layers, "LayerType: Embedding"), 2) << layers;
    EXPECT_EQ(occurrences(layers, "LayerType: Select"), 0) << "the wrap is fused\n" << layers;
}

TEST_P(CudaFusedKernels, AttentionMatchesTheUnfusedHost)
{
    // Head sizes 16, 32, 64 and 128 (heads 8, 4, 2 and 1 of width 128); 70 queries and 130 keys, so that the last
    // tile of each is partial.
    std::vector<Dims> shapes;
    int32_t index = 0;
    for (int32_t const heads : {8, 4, 2, 1})
    {
        std::string const suffix = std::to_string(index);
        Dims const queries{3, {2, 70, 128}};
        Dims const keys{3, {2, 130, 128}};
        ITensor* q = typed(mNetwork->addInput(("q" + suffix).c_str(), DataType::kFLOAT, queries));
        ITensor* k = typed(mNetwork->addInput(("k" + suffix).c_str(), DataType::kFLOAT, keys));
        ITensor* v = typed(mNetwork->addInput(("v" + suffix).c_str(), DataType::kFLOAT, keys));
        shapes.insert(shapes.end(), {queries, keys, keys});
        float const scale = 1.F / std::sqrt(static_cast<float>(128 / heads));
        output(test::primitiveAttention(*mNetwork, *q, *k, *v, heads, scale, mScalars), ("o" + suffix).c_str());
        ++index;
    }
    expectSameOnBothBackends(shapes, tolerance());
    ASSERT_EQ(mEngines.size(), 2U);
    std::string const layers = engineLayers(*mEngines[1]);
    EXPECT_EQ(occurrences(layers, "LayerType: Attention"), 4) << layers;
}

TEST_P(CudaFusedKernels, PackedQkvProjectionsMatchTheHost)
{
    // A transformer layer's projections of one x [2, 24, 64]: three products by constant weights plus biases, then
    // attention (4 heads of 16 with [1, 64, 64] weights, kNONE; 2 heads of 32, kTRANSPOSE), as the ONNX parser gives a
    // MatMul's weights the rank of its other operand. The CUDA engine
    // packs each triple into one product of width 192 that the attention reads (FusedKernel::packedQkv). A weakly
    // typed network, built with the type's flag (float constants, as an exported model's), on both backends.
    if (GetParam() != DataType::kFLOAT)
    {
        mReducedFlag = GetParam() == DataType::kHALF ? nvinfer1::BuilderFlag::kFP16 : nvinfer1::BuilderFlag::kBF16;
    }
    Dims const shape{3, {2, 24, 64}};
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, shape);
    for (int32_t const heads : {4, 2})
    {
        bool const transposed = heads == 2;
        std::array<ITensor*, 3> qkv{};
        for (std::size_t i = 0; i < qkv.size(); ++i)
        {
            std::string const name = std::string(1, "qkv"[i]) + std::to_string(heads);
            ITensor* w = mNetwork->addConstant(Dims{3, {1, 64, 64}}, weights(64 * 64))->getOutput(0);
            auto* product = mNetwork->addMatrixMultiply(*x, nvinfer1::MatrixOperation::kNONE, *w,
                transposed ? nvinfer1::MatrixOperation::kTRANSPOSE : nvinfer1::MatrixOperation::kNONE);
            product->setName(name.c_str());
            ITensor* bias = mNetwork->addConstant(Dims{3, {1, 1, 64}}, weights(64))->getOutput(0);
            qkv[i] = mNetwork->addElementWise(*product->getOutput(0), *bias, nvinfer1::ElementWiseOperation::kSUM)
                         ->getOutput(0);
        }
        float const scale = 1.F / std::sqrt(static_cast<float>(64 / heads));
        ITensor* o = test::primitiveAttention(*mNetwork, *qkv[0], *qkv[1], *qkv[2], heads, scale, mScalars);
        o->setName(("o" + std::to_string(heads)).c_str());
        mNetwork->markOutput(*o);
    }
    expectSameOnBothBackends({shape}, tolerance());
    ASSERT_EQ(mEngines.size(), 2U);
    std::string const layers = engineLayers(*mEngines[1]);
    EXPECT_EQ(occurrences(layers, "LayerType: Attention"), 2) << layers;
    for (char const* gone : {"Name: k4,", "Name: v4,", "Name: k2,", "Name: v2,"})
    {
        EXPECT_EQ(layers.find(gone), std::string::npos) << gone << " is packed into the query's product\n" << layers;
    }
    EXPECT_NE(layers.find("Name: q4,"), std::string::npos) << layers;
}

TEST_P(CudaFusedKernels, GeluFormsMatchTheHost)
{
    // Each exporter form (one activation once built: builder/fusion_gelu.cpp) on rows of 256 (packed, four elements per
    // thread) and 33 (one element at a time), then the erf and the tanh form after a product and a bias (the product's
    // epilogue: the tanh form in cuBLASLt's GELU epilogue, the erf form in the activation kernel after it).
    std::vector<Dims> shapes;
    int32_t index = 0;
    for (test::GeluForm const form : {test::GeluForm::kERF, test::GeluForm::kERF_HALF_FIRST, test::GeluForm::kTANH_POW,
             test::GeluForm::kTANH_PRODUCTS})
    {
        for (int64_t const n : {256, 33})
        {
            Dims const shape{2, {6, n}};
            std::string const suffix = std::to_string(index++);
            ITensor* x = typed(mNetwork->addInput(("x" + suffix).c_str(), DataType::kFLOAT, shape));
            shapes.push_back(shape);
            output(test::primitiveGelu(*mNetwork, *x, form, mScalars), ("y" + suffix).c_str());
        }
    }
    for (test::GeluForm const form : {test::GeluForm::kERF, test::GeluForm::kTANH_PRODUCTS})
    {
        std::string const suffix = std::to_string(index++);
        Dims const shape{2, {8, 64}};
        ITensor* x = typed(mNetwork->addInput(("x" + suffix).c_str(), DataType::kFLOAT, shape));
        shapes.push_back(shape);
        ITensor* w = typed(mNetwork->addConstant(Dims{2, {64, 96}}, weights(64 * 96))->getOutput(0));
        ITensor* product
            = mNetwork->addMatrixMultiply(*x, nvinfer1::MatrixOperation::kNONE, *w, nvinfer1::MatrixOperation::kNONE)
                  ->getOutput(0);
        ITensor* bias = typed(mNetwork->addConstant(Dims{2, {1, 96}}, weights(96))->getOutput(0));
        ITensor* biased = mNetwork->addElementWise(*product, *bias, nvinfer1::ElementWiseOperation::kSUM)->getOutput(0);
        output(test::primitiveGelu(*mNetwork, *biased, form, mScalars), ("y" + suffix).c_str());
    }
    expectSameOnBothBackends(shapes, tolerance());
}

TEST_P(CudaFusedKernels, PointwiseProgramsWithBroadcastsMatchTheHost)
{
    // x * a + b, then a ReLU and a sigmoid times x: one program of five steps over x [4, 8, n] with a [1, 8, 1] and
    // b [1, 1, n]; n = 64 runs packed (a broadcast along the innermost dimension, b read along it), n = 33 does not.
    // Then a program of eight inputs that all live to the end: more values at once than the kernel's registers.
    using Op = nvinfer1::ElementWiseOperation;
    std::vector<Dims> shapes;
    int32_t index = 0;
    for (int64_t const n : {64, 33})
    {
        std::string const suffix = std::to_string(index++);
        Dims const shape{3, {4, 8, n}};
        ITensor* x = typed(mNetwork->addInput(("x" + suffix).c_str(), DataType::kFLOAT, shape));
        ITensor* a = typed(mNetwork->addInput(("a" + suffix).c_str(), DataType::kFLOAT, Dims{3, {1, 8, 1}}));
        ITensor* b = typed(mNetwork->addInput(("b" + suffix).c_str(), DataType::kFLOAT, Dims{3, {1, 1, n}}));
        shapes.insert(shapes.end(), {shape, Dims{3, {1, 8, 1}}, Dims{3, {1, 1, n}}});
        ITensor* scaled = mNetwork->addElementWise(*x, *a, Op::kPROD)->getOutput(0);
        ITensor* shifted = mNetwork->addElementWise(*scaled, *b, Op::kSUM)->getOutput(0);
        ITensor* relu = mNetwork->addActivation(*shifted, nvinfer1::ActivationType::kRELU)->getOutput(0);
        ITensor* gate = mNetwork->addActivation(*x, nvinfer1::ActivationType::kSIGMOID)->getOutput(0);
        output(mNetwork->addElementWise(*relu, *gate, Op::kPROD)->getOutput(0), ("y" + suffix).c_str());
    }
    // (x0 + ... + x7) * (x0 * x0 + ... + x7 * x7): every input is read again after the first sum.
    std::vector<ITensor*> xs;
    for (int32_t k = 0; k < 8; ++k)
    {
        Dims const shape{2, {3, 40}};
        xs.push_back(typed(mNetwork->addInput(("v" + std::to_string(k)).c_str(), DataType::kFLOAT, shape)));
        shapes.push_back(shape);
    }
    ITensor* sum = xs[0];
    ITensor* squares = mNetwork->addElementWise(*xs[0], *xs[0], Op::kPROD)->getOutput(0);
    for (std::size_t k = 1; k < xs.size(); ++k)
    {
        sum = mNetwork->addElementWise(*sum, *xs[k], Op::kSUM)->getOutput(0);
    }
    for (std::size_t k = 1; k < xs.size(); ++k)
    {
        ITensor* square = mNetwork->addElementWise(*xs[k], *xs[k], Op::kPROD)->getOutput(0);
        squares = mNetwork->addElementWise(*squares, *square, Op::kSUM)->getOutput(0);
    }
    output(mNetwork->addElementWise(*sum, *squares, Op::kPROD)->getOutput(0), "wide");
    expectSameOnBothBackends(shapes, 2.F * tolerance());
}

TEST_P(CudaFusedKernels, MaskedAttentionAsTransformersExportsItMatchesTheUnfusedHost)
{
    // The transformers export's form (test::exportedAttention): BERT's shapes (D 64, 128 queries and keys, a mask
    // [B, 1, S, S] with the NaN guard), then 70 queries and 130 keys (partial tiles) of D 32 with a mask [B, 1, 1, Skv]
    // and no guard, the first form again with partial tiles (the mask's rows past the queries and keys), and the
    // second with rows of 136 keys (16-byte aligned: copied with cp.async, one row for every query). Each mask
    // is select(m > -0.5, 0, -inf) of a random input m (a quarter of the keys masked); the row masks also mask every
    // key of query 5 (a constant -inf row added), which the guard makes zeros.
    using nvinfer1::ElementWiseOperation;
    struct Case
    {
        int32_t heads;
        int64_t queries;
        int64_t keys;
        bool rowMask; //!< [B, 1, Sq, Skv] with a fully masked row; else [B, 1, 1, Skv].
    };
    std::vector<Dims> shapes;
    int32_t index = 0;
    for (Case const c :
        {Case{2, 128, 128, true}, Case{4, 70, 130, false}, Case{2, 70, 130, true}, Case{2, 40, 136, false}})
    {
        std::string const suffix = std::to_string(index++);
        Dims const queries{3, {2, c.queries, 128}};
        Dims const keys{3, {2, c.keys, 128}};
        Dims const maskShape{4, {2, 1, c.rowMask ? c.queries : 1, c.keys}};
        ITensor* q = typed(mNetwork->addInput(("q" + suffix).c_str(), DataType::kFLOAT, queries));
        ITensor* k = typed(mNetwork->addInput(("k" + suffix).c_str(), DataType::kFLOAT, keys));
        ITensor* v = typed(mNetwork->addInput(("v" + suffix).c_str(), DataType::kFLOAT, keys));
        ITensor* m = mNetwork->addInput(("m" + suffix).c_str(), DataType::kFLOAT, maskShape);
        shapes.insert(shapes.end(), {queries, keys, keys, maskShape});
        auto const scalar = [&](float value) {
            return mNetwork->addConstant(Dims{4, {1, 1, 1, 1}}, mScalars(value, DataType::kFLOAT))->getOutput(0);
        };
        float const infinity = std::numeric_limits<float>::infinity();
        auto* kept = mNetwork->addElementWise(*m, *scalar(-0.5F), ElementWiseOperation::kGREATER)->getOutput(0);
        ITensor* mask = mNetwork->addSelect(*kept, *scalar(0.F), *scalar(-infinity))->getOutput(0);
        if (c.rowMask)
        {
            std::vector<float> rows(static_cast<std::size_t>(c.queries), 0.F);
            rows[5] = -infinity;
            auto* masked = mNetwork->addConstant(Dims{4, {1, 1, c.queries, 1}}, mScalars(rows, DataType::kFLOAT));
            mask = mNetwork->addElementWise(*mask, *masked->getOutput(0), ElementWiseOperation::kSUM)->getOutput(0);
        }
        output(test::exportedAttention(*mNetwork, *q, *k, *v, c.heads, typed(mask), c.rowMask, mScalars),
            ("o" + suffix).c_str());
    }
    expectSameOnBothBackends(shapes, tolerance());
    ASSERT_EQ(mEngines.size(), 2U);
    std::string const layers = engineLayers(*mEngines[1]);
    EXPECT_EQ(occurrences(layers, "LayerType: Attention"), 4) << layers;
}

TEST_P(CudaFusedKernels, AttentionOfManyBlocksMatchesTheUnfusedHost)
{
    // Grids of at least kWideAttentionBlocks blocks of 64 queries (96 batches, 2 heads of 64, 130 queries: 576), where
    // the 16-bit kernel takes 64 queries per block without splitting the keys (fused.cu, attentionMma<..., false>):
    // partial tiles of queries and keys, a mask [B, 1, Sq, Skv] with a fully masked row and the NaN guard (the block's
    // 64 rows staged), and a mask [B, 1, 1, Skv] of rows of 136 keys (copied with cp.async).
    using nvinfer1::ElementWiseOperation;
    struct Case
    {
        int64_t keys;
        bool rowMask;
    };
    std::vector<Dims> shapes;
    int32_t index = 0;
    for (Case const c : {Case{130, true}, Case{136, false}})
    {
        std::string const suffix = std::to_string(index++);
        Dims const queries{3, {96, 130, 128}};
        Dims const keys{3, {96, c.keys, 128}};
        Dims const maskShape{4, {96, 1, c.rowMask ? 130 : 1, c.keys}};
        ITensor* q = typed(mNetwork->addInput(("q" + suffix).c_str(), DataType::kFLOAT, queries));
        ITensor* k = typed(mNetwork->addInput(("k" + suffix).c_str(), DataType::kFLOAT, keys));
        ITensor* v = typed(mNetwork->addInput(("v" + suffix).c_str(), DataType::kFLOAT, keys));
        ITensor* m = mNetwork->addInput(("m" + suffix).c_str(), DataType::kFLOAT, maskShape);
        shapes.insert(shapes.end(), {queries, keys, keys, maskShape});
        auto const scalar = [&](float value) {
            return mNetwork->addConstant(Dims{4, {1, 1, 1, 1}}, mScalars(value, DataType::kFLOAT))->getOutput(0);
        };
        float const infinity = std::numeric_limits<float>::infinity();
        auto* kept = mNetwork->addElementWise(*m, *scalar(-0.5F), ElementWiseOperation::kGREATER)->getOutput(0);
        ITensor* mask = mNetwork->addSelect(*kept, *scalar(0.F), *scalar(-infinity))->getOutput(0);
        if (c.rowMask)
        {
            std::vector<float> rows(130, 0.F);
            rows[5] = -infinity;
            auto* masked = mNetwork->addConstant(Dims{4, {1, 1, 130, 1}}, mScalars(rows, DataType::kFLOAT));
            mask = mNetwork->addElementWise(*mask, *masked->getOutput(0), ElementWiseOperation::kSUM)->getOutput(0);
        }
        output(test::exportedAttention(*mNetwork, *q, *k, *v, 2, typed(mask), c.rowMask, mScalars),
            ("o" + suffix).c_str());
    }
    expectSameOnBothBackends(shapes, tolerance());
    ASSERT_EQ(mEngines.size(), 2U);
    std::string const layers = engineLayers(*mEngines[1]);
    EXPECT_EQ(occurrences(layers, "LayerType: Attention"), 2) << layers;
}

TEST_P(CudaFusedKernels, APaddingMaskAsTransformersExportsItMatchesTheUnfusedHost)
{
    // BERT's padding mask as transformers exports it (test::exportedPaddingMask: pad > -0.5, And-ed with a constant
    // [1, 1, S, 1] true everywhere, expanded to the shape it has, select(keep, 0, -inf)), 130 keys in 2 heads of 64:
    // the CUDA build narrows the mask to [B, 1, 1, S] (builder/fusion_mask.cpp) and the attention broadcasts its one
    // row per batch; with one query masked in the constant the mask keeps its rows. Both against the host's layers.
    std::vector<Dims> shapes;
    for (bool const allTrue : {true, false})
    {
        std::string const suffix = allTrue ? "0" : "1";
        Dims const queries{3, {3, 130, 128}};
        Dims const padShape{4, {3, 1, 1, 130}};
        ITensor* q = typed(mNetwork->addInput(("q" + suffix).c_str(), DataType::kFLOAT, queries));
        ITensor* k = typed(mNetwork->addInput(("k" + suffix).c_str(), DataType::kFLOAT, queries));
        ITensor* v = typed(mNetwork->addInput(("v" + suffix).c_str(), DataType::kFLOAT, queries));
        ITensor* pad = mNetwork->addInput(("pad" + suffix).c_str(), DataType::kFLOAT, padShape);
        shapes.insert(shapes.end(), {queries, queries, queries, padShape});
        ITensor* mask = test::exportedPaddingMask(*mNetwork, *pad, GetParam(), allTrue, mScalars, mIntegers, mBools);
        output(test::exportedAttention(*mNetwork, *q, *k, *v, 2, mask, true, mScalars), ("o" + suffix).c_str());
    }
    expectSameOnBothBackends(shapes, tolerance());
    ASSERT_EQ(mEngines.size(), 2U);
    std::string const layers = engineLayers(*mEngines[1]);
    EXPECT_EQ(occurrences(layers, "LayerType: Attention"), 2) << layers;
    EXPECT_EQ(occurrences(layers, "LayerType: Slice"), 0) << "the Expands are stepped over: " << layers;
}

TEST_P(CudaFusedKernels, ChainsOfOverlappedLaunchesMatchTheUnfusedHost)
{
    // kiln's own kernels launch overlapped with the kernel before them (backends/cuda/launch.cuh: programmatic
    // dependent launch on Hopper); each waits for its prerequisite before it touches memory. A chain where every
    // layer norm, erf GELU and point-wise program reads the one before it (and the first input, so each program reads
    // a tensor written two kernels earlier), run three times back to back (the later runs replayed from a graph): a
    // kernel that read its input before the wait would read stale or partly written rows.
    constexpr int64_t kRows = 512;
    constexpr int64_t kWidth = 768;
    constexpr int32_t kRounds = 6;
    Dims const shape{3, {8, kRows / 8, kWidth}};
    ITensor* x = typed(mNetwork->addInput("x", DataType::kFLOAT, shape));
    ITensor* y = x;
    auto const scalar = [&](float value) {
        return typed(mNetwork->addConstant(Dims{3, {1, 1, 1}}, mScalars(value, DataType::kFLOAT))->getOutput(0));
    };
    for (int32_t round = 0; round < kRounds; ++round)
    {
        y = test::primitiveLayerNorm(*mNetwork, *y, 1e-5F, vector(kWidth, true), vector(kWidth, false), mScalars);
        y = mNetwork->addActivation(*y, nvinfer1::ActivationType::kGELU_ERF)->getOutput(0);
        y = mNetwork->addElementWise(*y, *scalar(0.75F), nvinfer1::ElementWiseOperation::kPROD)->getOutput(0);
        y = mNetwork->addElementWise(*y, *x, nvinfer1::ElementWiseOperation::kSUM)->getOutput(0);
    }
    output(y, "y");
    mEnqueues = 3;
    expectSameOnBothBackends({shape}, 2.F * tolerance());
    ASSERT_EQ(mEngines.size(), 2U);
    std::string const layers = engineLayers(*mEngines[1]);
    EXPECT_EQ(occurrences(layers, "LayerType: LayerNorm"), kRounds) << layers;
}

INSTANTIATE_TEST_SUITE_P(Types, CudaFusedKernels, ::testing::Values(DataType::kFLOAT, DataType::kHALF, DataType::kBF16),
    [](::testing::TestParamInfo<DataType> const& param) {
        switch (param.param)
        {
        case DataType::kHALF: return std::string("Half");
        case DataType::kBF16: return std::string("BF16");
        default: return std::string("Float");
        }
    });

} // namespace
} // namespace kiln::test
