// SPDX-License-Identifier: Apache-2.0
// IRefitter end to end through the public API, on the backend KILN_BACKEND names: engines built refittable
// (BuilderFlag::kREFIT, kREFIT_INDIVIDUAL, kSTRIP_PLAN) are refitted with new weights, by layer and role and by name,
// and must then compute what an engine built with the new weights computes. The network has two FP16 convolutions in
// a chain (which a CUDA build runs channels-last, with its kernels stored KRSC in FP16; the first reads 3 channels,
// which kHWC8 pads to 8, so its stored kernel has 8 channels too), a matrix multiply by a
// constant, a scalar factor (which a CUDA build folds into the product when it may) and a bias. Also: the listings
// (getAll, getAllWeights, getMissing), the refusals (unknown layer, role or name, wrong count or type, an engine not
// built refittable), stripped plans that refuse to run until refitted, and refitting a deserialized engine.
//
// The same file builds engine_refit_test (host backend, label engine) and, with KILN_REFIT_TEST_CUDA,
// engine_refit_cuda_test (CUDA backend, label gpu; skipped without a usable GPU).
#include "support/api_test.h"

#include "NvInfer.h"

#if KILN_REFIT_TEST_CUDA
#include <cuda_runtime_api.h>
#endif
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace kiln::test
{
namespace
{

using nvinfer1::BuilderFlag;
using nvinfer1::DataType;
using nvinfer1::ICudaEngine;
using nvinfer1::IRefitter;
using nvinfer1::WeightsRole;

//! The weights of the test network, all float.
struct NetworkWeights
{
    std::vector<float> conv1Kernel; //!< [8, 3, 3, 3], named "conv1.weight".
    std::vector<float> conv1Bias;   //!< [8], named "conv1.bias".
    std::vector<float> conv2Kernel; //!< [8, 8, 3, 3], named "conv2.weight".
    std::vector<float> conv2Bias;   //!< [8], unnamed.
    std::vector<float> fcWeight;    //!< [288, 4], named "fc.weight".
    std::vector<float> scale;       //!< [1, 1], unnamed (layer "scale").
    std::vector<float> fcBias;      //!< [1, 4], named "fc.bias".
};

std::vector<float> randomValues(std::mt19937& random, std::size_t count, float range)
{
    std::uniform_real_distribution<float> uniform(-range, range);
    std::vector<float> values(count);
    std::generate(values.begin(), values.end(), [&] { return uniform(random); });
    return values;
}

NetworkWeights randomWeights(uint32_t seed)
{
    std::mt19937 random(seed);
    NetworkWeights w;
    w.conv1Kernel = randomValues(random, 8 * 3 * 9, 0.25F);
    w.conv1Bias = randomValues(random, 8, 0.5F);
    w.conv2Kernel = randomValues(random, 8 * 8 * 9, 0.25F);
    w.conv2Bias = randomValues(random, 8, 0.5F);
    w.fcWeight = randomValues(random, 288 * 4, 0.1F);
    w.scale = {1.5F + static_cast<float>(seed % 7) * 0.25F};
    w.fcBias = randomValues(random, 4, 1.F);
    return w;
}

nvinfer1::Weights weightsOf(std::vector<float> const& values)
{
    return nvinfer1::Weights{DataType::kFLOAT, values.data(), static_cast<int64_t>(values.size())};
}

constexpr uint32_t bit(BuilderFlag flag)
{
    return 1U << static_cast<uint32_t>(flag);
}

bool gpuUsable()
{
#if KILN_REFIT_TEST_CUDA
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess)
    {
        static_cast<void>(cudaGetLastError());
        return false;
    }
    return count > 0;
#else
    return true;
#endif
}

class RefitTest : public ApiTest
{
protected:
    void SetUp() override
    {
        if (!gpuUsable())
        {
            GTEST_SKIP() << "no usable GPU";
        }
        ApiTest::SetUp();
        mInput = randomValues(mRandom, 3 * 36, 1.F);
    }

    void TearDown() override
    {
        mEngines.clear();
        mRuntimes.clear();
        ApiTest::TearDown();
    }

    //! A new network computing y = (conv2(relu(conv1(half(x)))) as float, reshaped [1, 288]) * fc * scale + bias with
    //! weights w (which must outlive the build); marks individual as refittable (kREFIT_INDIVIDUAL).
    void define(NetworkWeights const& w, std::vector<char const*> const& individual = {})
    {
        recreate(0);
        auto* x = mNetwork->addInput("x", DataType::kFLOAT, dims({1, 3, 6, 6}));
        auto* half = mNetwork->addCast(*x, DataType::kHALF);
        auto* conv1 = mNetwork->addConvolutionNd(
            *half->getOutput(0), 8, dims({3, 3}), weightsOf(w.conv1Kernel), weightsOf(w.conv1Bias));
        conv1->setName("conv1");
        conv1->setPaddingNd(dims({1, 1}));
        auto* relu = mNetwork->addActivation(*conv1->getOutput(0), nvinfer1::ActivationType::kRELU);
        auto* conv2 = mNetwork->addConvolutionNd(
            *relu->getOutput(0), 8, dims({3, 3}), weightsOf(w.conv2Kernel), weightsOf(w.conv2Bias));
        conv2->setName("conv2");
        conv2->setPaddingNd(dims({1, 1}));
        auto* wide = mNetwork->addCast(*conv2->getOutput(0), DataType::kFLOAT);
        auto* flat = mNetwork->addShuffle(*wide->getOutput(0));
        flat->setReshapeDimensions(dims({1, 288}));
        auto* fc = mNetwork->addConstant(dims({288, 4}), weightsOf(w.fcWeight));
        fc->setName("fc");
        auto* product = mNetwork->addMatrixMultiply(
            *flat->getOutput(0), nvinfer1::MatrixOperation::kNONE, *fc->getOutput(0), nvinfer1::MatrixOperation::kNONE);
        auto* scale = mNetwork->addConstant(dims({1, 1}), weightsOf(w.scale));
        scale->setName("scale");
        auto* scaled = mNetwork->addElementWise(
            *product->getOutput(0), *scale->getOutput(0), nvinfer1::ElementWiseOperation::kPROD);
        auto* bias = mNetwork->addConstant(dims({1, 4}), weightsOf(w.fcBias));
        bias->setName("bias");
        auto* y = mNetwork->addElementWise(
            *scaled->getOutput(0), *bias->getOutput(0), nvinfer1::ElementWiseOperation::kSUM);
        y->getOutput(0)->setName("y");
        mNetwork->markOutput(*y->getOutput(0));
        ASSERT_TRUE(mNetwork->setWeightsName(weightsOf(w.conv1Kernel), "conv1.weight"));
        ASSERT_TRUE(mNetwork->setWeightsName(weightsOf(w.conv1Bias), "conv1.bias"));
        ASSERT_TRUE(mNetwork->setWeightsName(weightsOf(w.conv2Kernel), "conv2.weight"));
        ASSERT_TRUE(mNetwork->setWeightsName(weightsOf(w.fcWeight), "fc.weight"));
        ASSERT_TRUE(mNetwork->setWeightsName(weightsOf(w.fcBias), "fc.bias"));
        for (char const* name : individual)
        {
            ASSERT_TRUE(mNetwork->markWeightsRefittable(name));
        }
    }

    //! The plan of the network with weights w built with flags (empty on failure).
    std::vector<uint8_t> build(
        NetworkWeights const& w, nvinfer1::BuilderFlags flags, std::vector<char const*> const& individual = {})
    {
        define(w, individual);
        std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
        config->setFlags(flags);
        std::unique_ptr<nvinfer1::IHostMemory> plan{mBuilder->buildSerializedNetwork(*mNetwork, *config)};
        if (plan == nullptr)
        {
            ADD_FAILURE() << mLogger.all();
            return {};
        }
        auto const* bytes = static_cast<uint8_t const*>(plan->data());
        return std::vector<uint8_t>(bytes, bytes + plan->size());
    }

    //! The engine of plan, in a runtime of its own (both kept by the fixture).
    ICudaEngine* load(std::vector<uint8_t> const& plan)
    {
        mRuntimes.emplace_back(nvinfer1::createInferRuntime(mLogger));
        mEngines.emplace_back(mRuntimes.back()->deserializeCudaEngine(plan.data(), plan.size()));
        EXPECT_NE(mEngines.back(), nullptr) << mLogger.all();
        return mEngines.back().get();
    }

    //! A refitter of the engine of the network with weights w built with flags (the engine kept by the fixture);
    //! null, with a failure, when any step fails.
    std::unique_ptr<IRefitter> refitterFor(NetworkWeights const& w, nvinfer1::BuilderFlags flags)
    {
        ICudaEngine* engine = load(build(w, flags));
        std::unique_ptr<IRefitter> refitter{
            engine != nullptr ? nvinfer1::createInferRefitter(*engine, mLogger) : nullptr};
        EXPECT_NE(refitter, nullptr) << mLogger.all();
        return refitter;
    }

    //! Runs engine on the fixture's input; y, or nothing when the enqueue fails.
    std::vector<float> run(ICudaEngine& engine)
    {
        std::unique_ptr<nvinfer1::IExecutionContext> context{engine.createExecutionContext()};
        EXPECT_NE(context, nullptr) << mLogger.all();
        if (context == nullptr)
        {
            return {};
        }
        std::vector<float> y(4, NAN);
        void* xAddress = mInput.data();
        void* yAddress = y.data();
        bool const device = engine.getTensorLocation("x") == nvinfer1::TensorLocation::kDEVICE;
#if KILN_REFIT_TEST_CUDA
        if (device)
        {
            EXPECT_EQ(cudaMalloc(&xAddress, mInput.size() * sizeof(float)), cudaSuccess);
            EXPECT_EQ(cudaMalloc(&yAddress, y.size() * sizeof(float)), cudaSuccess);
            EXPECT_EQ(cudaMemcpy(xAddress, mInput.data(), mInput.size() * sizeof(float), cudaMemcpyHostToDevice),
                cudaSuccess);
        }
#else
        EXPECT_FALSE(device);
#endif
        EXPECT_TRUE(context->setTensorAddress("x", xAddress));
        EXPECT_TRUE(context->setTensorAddress("y", yAddress));
        bool const ran = context->enqueueV3(nullptr);
#if KILN_REFIT_TEST_CUDA
        if (device)
        {
            EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
            EXPECT_EQ(cudaMemcpy(y.data(), yAddress, y.size() * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
            EXPECT_EQ(cudaFree(xAddress), cudaSuccess);
            EXPECT_EQ(cudaFree(yAddress), cudaSuccess);
        }
#endif
        return ran ? y : std::vector<float>{};
    }

    //! Expects what two engines computed to agree: exactly on the host backend; on the GPU, where the two builds may
    //! time other kernel variants, to FP16's precision.
    static void expectSame(std::vector<float> const& actual, std::vector<float> const& expected)
    {
        ASSERT_EQ(actual.size(), expected.size());
        for (std::size_t i = 0; i < actual.size(); ++i)
        {
#if KILN_REFIT_TEST_CUDA
            EXPECT_NEAR(actual[i], expected[i], 2e-2 * (1.0 + std::fabs(expected[i]))) << "element " << i;
#else
            EXPECT_EQ(actual[i], expected[i]) << "element " << i;
#endif
        }
    }

    //! The values of w for the weights of role in layer.
    static std::vector<float> const& valuesOf(NetworkWeights const& w, std::string const& layer, WeightsRole role)
    {
        if (layer == "conv1" || layer == "conv2")
        {
            bool const first = layer == "conv1";
            return role == WeightsRole::kKERNEL ? (first ? w.conv1Kernel : w.conv2Kernel)
                                                : (first ? w.conv1Bias : w.conv2Bias);
        }
        return layer == "fc" ? w.fcWeight : layer == "scale" ? w.scale : w.fcBias;
    }

    //! Gives refitter every weights of w: the named ones by name, the others by layer and role.
    static void giveAll(IRefitter& refitter, NetworkWeights const& w)
    {
        EXPECT_TRUE(refitter.setNamedWeights("conv1.weight", weightsOf(w.conv1Kernel)));
        EXPECT_TRUE(refitter.setNamedWeights("conv1.bias", weightsOf(w.conv1Bias)));
        EXPECT_TRUE(refitter.setWeights("conv2", WeightsRole::kKERNEL, weightsOf(w.conv2Kernel)));
        EXPECT_TRUE(refitter.setWeights("conv2", WeightsRole::kBIAS, weightsOf(w.conv2Bias)));
        EXPECT_TRUE(refitter.setNamedWeights("fc.weight", weightsOf(w.fcWeight), nvinfer1::TensorLocation::kHOST));
        EXPECT_TRUE(refitter.setWeights("scale", WeightsRole::kCONSTANT, weightsOf(w.scale)));
        EXPECT_TRUE(refitter.setNamedWeights("fc.bias", weightsOf(w.fcBias)));
    }

    std::mt19937 mRandom{20261128};
    std::vector<float> mInput;
    std::vector<std::unique_ptr<nvinfer1::IRuntime>> mRuntimes;
    std::vector<std::unique_ptr<ICudaEngine>> mEngines;
};

TEST_F(RefitTest, RefittedEngineComputesWhatAnEngineBuiltWithTheNewWeightsComputes)
{
    NetworkWeights const before = randomWeights(1);
    NetworkWeights const after = randomWeights(2);
    ICudaEngine* refittable = load(build(before, bit(BuilderFlag::kREFIT)));
    ICudaEngine* reference = load(build(after, 0));
    ICudaEngine* original = load(build(before, 0));
    ASSERT_TRUE(refittable != nullptr && reference != nullptr && original != nullptr);
    EXPECT_TRUE(refittable->isRefittable());
    EXPECT_FALSE(reference->isRefittable());
    std::vector<float> const expected = run(*reference);
    expectSame(run(*refittable), run(*original));

    std::unique_ptr<IRefitter> refitter{nvinfer1::createInferRefitter(*refittable, mLogger)};
    ASSERT_NE(refitter, nullptr) << mLogger.all();
    EXPECT_EQ(refitter->getLogger(), &mLogger);
    giveAll(*refitter, after);
    EXPECT_EQ(refitter->getNamedWeights("fc.bias").values, after.fcBias.data());
    EXPECT_EQ(refitter->getWeightsLocation("fc.bias"), nvinfer1::TensorLocation::kHOST);
    EXPECT_TRUE(refitter->refitCudaEngine()) << mLogger.all();
    std::vector<float> const refitted = run(*refittable);
    expectSame(refitted, expected);
    // What was given is used up by the refit.
    EXPECT_EQ(refitter->getNamedWeights("fc.bias").values, nullptr);

    // Refitting one weights alone (the scalar factor) changes what it scales, and back again.
    NetworkWeights doubled = after;
    doubled.scale[0] *= 2.F;
    EXPECT_TRUE(refitter->setWeights("scale", WeightsRole::kCONSTANT, weightsOf(doubled.scale)));
    EXPECT_TRUE(refitter->refitCudaEngineAsync(nullptr)) << mLogger.all();
#if KILN_REFIT_TEST_CUDA
    EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
#endif
    std::vector<float> const twice = run(*refittable);
    ASSERT_EQ(twice.size(), refitted.size());
    for (std::size_t i = 0; i < twice.size(); ++i)
    {
        EXPECT_NEAR(
            twice[i] - after.fcBias[i], 2.F * (refitted[i] - after.fcBias[i]), 1e-4 + 1e-5 * std::fabs(twice[i]));
    }
    EXPECT_TRUE(refitter->setWeights("scale", WeightsRole::kCONSTANT, weightsOf(after.scale)));
    EXPECT_TRUE(refitter->refitCudaEngine());
    expectSame(run(*refittable), expected);
#if KILN_REFIT_TEST_CUDA
    // New values in device memory (TensorLocation::kDEVICE) are read from there: a bias one higher everywhere.
    std::vector<float> higher = after.fcBias;
    std::for_each(higher.begin(), higher.end(), [](float& v) { v += 1.F; });
    void* device = nullptr;
    ASSERT_EQ(cudaMalloc(&device, higher.size() * sizeof(float)), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(device, higher.data(), higher.size() * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_TRUE(refitter->setNamedWeights(
        "fc.bias", nvinfer1::Weights{DataType::kFLOAT, device, 4}, nvinfer1::TensorLocation::kDEVICE));
    EXPECT_EQ(refitter->getWeightsLocation("fc.bias"), nvinfer1::TensorLocation::kDEVICE);
    EXPECT_TRUE(refitter->refitCudaEngine()) << mLogger.all();
    EXPECT_EQ(cudaFree(device), cudaSuccess);
    std::vector<float> const raised = run(*refittable);
    ASSERT_EQ(raised.size(), refitted.size());
    for (std::size_t i = 0; i < raised.size(); ++i)
    {
        EXPECT_NEAR(raised[i], refitted[i] + 1.F, 1e-4 + 1e-5 * std::fabs(raised[i]));
    }
#endif
    expectNoError();
}

TEST_F(RefitTest, ListsTheRefittableWeights)
{
    NetworkWeights const w = randomWeights(3);
    std::unique_ptr<IRefitter> refitter = refitterFor(w, bit(BuilderFlag::kREFIT));
    ASSERT_NE(refitter, nullptr);

    int32_t const count = refitter->getAll(0, nullptr, nullptr);
    ASSERT_EQ(count, 7);
    std::vector<char const*> layers(static_cast<std::size_t>(count));
    std::vector<WeightsRole> roles(static_cast<std::size_t>(count));
    EXPECT_EQ(refitter->getAll(count, layers.data(), roles.data()), count);
    std::vector<std::string> listed;
    for (int32_t i = 0; i < count; ++i)
    {
        listed.push_back(std::string(layers[static_cast<std::size_t>(i)]) + " "
            + std::to_string(static_cast<int32_t>(roles[static_cast<std::size_t>(i)])));
    }
    std::sort(listed.begin(), listed.end());
    EXPECT_EQ(
        listed, (std::vector<std::string>{"bias 4", "conv1 0", "conv1 1", "conv2 0", "conv2 1", "fc 4", "scale 4"}));

    int32_t const named = refitter->getAllWeights(0, nullptr);
    ASSERT_EQ(named, 5);
    std::vector<char const*> names(static_cast<std::size_t>(named));
    EXPECT_EQ(refitter->getAllWeights(2, names.data()), named); // A shorter array gets the first ones.
    EXPECT_EQ(refitter->getAllWeights(named, names.data()), named);
    std::vector<std::string> sorted(names.begin(), names.end());
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, (std::vector<std::string>{"conv1.bias", "conv1.weight", "conv2.weight", "fc.bias", "fc.weight"}));

    // Nothing is missing from an engine whose plan holds its weights.
    EXPECT_EQ(refitter->getMissing(0, nullptr, nullptr), 0);
    EXPECT_EQ(refitter->getMissingWeights(0, nullptr), 0);

    nvinfer1::Weights const prototype = refitter->getWeightsPrototype("fc.weight");
    EXPECT_EQ(prototype.type, DataType::kFLOAT);
    EXPECT_EQ(prototype.count, 288 * 4);
    EXPECT_EQ(prototype.values, nullptr);
    expectNoError();

    // Refitting with nothing given changes nothing and succeeds.
    EXPECT_TRUE(refitter->refitCudaEngine());
    expectNoError();

    // Every weights is refittable, so a stripped plan would hold none of them.
    EXPECT_EQ(mEngines.back()->getEngineStat(nvinfer1::EngineStat::kSTRIPPED_WEIGHTS_SIZE), 0);
    EXPECT_GT(mEngines.back()->getEngineStat(nvinfer1::EngineStat::kTOTAL_WEIGHTS_SIZE), 6500);
}

TEST_F(RefitTest, RefusalsNameTheLayerOrWeights)
{
    NetworkWeights const w = randomWeights(4);
    std::unique_ptr<IRefitter> refitter = refitterFor(w, bit(BuilderFlag::kREFIT));
    ASSERT_NE(refitter, nullptr);
    TestErrorRecorder recorder;
    refitter->setErrorRecorder(&recorder);
    EXPECT_EQ(refitter->getErrorRecorder(), &recorder);

    EXPECT_FALSE(refitter->setWeights("nowhere", WeightsRole::kKERNEL, weightsOf(w.conv1Kernel)));
    expectError({"IRefitter::setWeights", "\"nowhere\"", "no refittable weights of role kKERNEL"});
    EXPECT_FALSE(refitter->setWeights("conv1", WeightsRole::kCONSTANT, weightsOf(w.conv1Kernel)));
    expectError({"IRefitter::setWeights", "\"conv1\"", "kCONSTANT", "kKERNEL, kBIAS"});
    EXPECT_FALSE(refitter->setWeights("conv1", WeightsRole::kKERNEL, weightsOf(w.conv1Bias)));
    expectError({"IRefitter::setWeights", "layer \"conv1\", kKERNEL", "216 elements of kFLOAT", "have 8 elements"});
    std::vector<int32_t> integers(216);
    EXPECT_FALSE(refitter->setNamedWeights("conv1.weight", nvinfer1::Weights{DataType::kINT32, integers.data(), 216}));
    expectError({"IRefitter::setNamedWeights", "weights \"conv1.weight\"", "216 elements of kFLOAT", "kINT32"});
    EXPECT_FALSE(refitter->setNamedWeights("conv9.weight", weightsOf(w.conv1Kernel)));
    expectError({"IRefitter::setNamedWeights", "no refittable weights called \"conv9.weight\""});
    EXPECT_FALSE(refitter->setNamedWeights(nullptr, weightsOf(w.conv1Kernel)));
    expectError({"IRefitter::setNamedWeights", "name is null"});
    EXPECT_FALSE(refitter->setNamedWeights("fc.bias", nvinfer1::Weights{DataType::kFLOAT, nullptr, 4}));
    expectError({"IRefitter::setNamedWeights", "\"fc.bias\"", "null"});
    EXPECT_EQ(refitter->getWeightsPrototype("nothing").count, -1);
    expectError({"IRefitter::getWeightsPrototype", "\"nothing\""});
    EXPECT_FALSE(refitter->unsetNamedWeights("fc.bias"));
    expectError({"IRefitter::unsetNamedWeights", "\"fc.bias\"", "no values were given"});
    EXPECT_FALSE(refitter->setMaxThreads(0));
    expectError({"IRefitter::setMaxThreads", "at least 1"});
    EXPECT_TRUE(refitter->setMaxThreads(4)); // Kept, and said to be unused.
    EXPECT_EQ(refitter->getMaxThreads(), 4);
    auto const warned = mLogger.messages(nvinfer1::ILogger::Severity::kWARNING);
    ASSERT_FALSE(warned.empty());
    EXPECT_NE(warned.back().find("kiln refits on one thread"), std::string::npos) << warned.back();
    EXPECT_EQ(refitter->getAll(-1, nullptr, nullptr), -1);
    expectError({"IRefitter::getAll", "size is -1"});
    EXPECT_EQ(recorder.getNbErrors(), 11);

    // Given values can be taken back before a refit.
    EXPECT_TRUE(refitter->setNamedWeights("fc.bias", weightsOf(w.fcBias)));
    EXPECT_TRUE(refitter->unsetNamedWeights("fc.bias"));
    EXPECT_EQ(refitter->getNamedWeights("fc.bias").count, 0);
    expectNoError();
    refitter->setErrorRecorder(nullptr);

#if KILN_REFIT_TEST_CUDA
    // The CUDA engine keeps the chained convolutions' kernels in FP16: values FP16 cannot hold are refused while the
    // refitter validates weights, and the engine is left as it was.
    EXPECT_TRUE(refitter->getWeightsValidation());
    std::vector<float> huge = w.conv2Kernel;
    huge[5] = 1e6F;
    EXPECT_TRUE(refitter->setNamedWeights("conv2.weight", weightsOf(huge)));
    EXPECT_FALSE(refitter->refitCudaEngine());
    expectError({"IRefitter::refitCudaEngine", "\"conv2.weight\"", "value 5", "kHALF", "unchanged"});
    refitter->setWeightsValidation(false);
    EXPECT_TRUE(refitter->setNamedWeights("conv2.weight", weightsOf(w.conv2Kernel)));
    EXPECT_TRUE(refitter->refitCudaEngine());
    expectNoError();
#endif

    // An engine built without a refit flag has no refitter.
    ICudaEngine* fixed = load(build(w, 0));
    ASSERT_NE(fixed, nullptr);
    EXPECT_FALSE(fixed->isRefittable());
    EXPECT_EQ(nvinfer1::createInferRefitter(*fixed, mLogger), nullptr);
    expectError({"createInferRefitter", "not refittable", "kREFIT"});
}

TEST_F(RefitTest, StrippedPlanRunsOnlyOnceRefitted)
{
    NetworkWeights const w = randomWeights(5);
    std::vector<uint8_t> const full = build(w, bit(BuilderFlag::kREFIT));
    std::vector<uint8_t> const stripped = build(w, bit(BuilderFlag::kREFIT) | bit(BuilderFlag::kSTRIP_PLAN));
    ASSERT_FALSE(full.empty());
    ASSERT_FALSE(stripped.empty());
    // The weights take 9300 bytes as floats, about 7000 where a CUDA build keeps the convolution kernels in FP16.
    EXPECT_LT(stripped.size() + 6500, full.size()) << stripped.size() << " vs " << full.size();
    ICudaEngine* reference = load(full);
    ICudaEngine* engine = load(stripped);
    ASSERT_TRUE(reference != nullptr && engine != nullptr);
    EXPECT_TRUE(engine->isRefittable());

    EXPECT_TRUE(run(*engine).empty());
    expectError({"enqueueV3", "kSTRIP_PLAN", "refit"});

    std::unique_ptr<IRefitter> refitter{nvinfer1::createInferRefitter(*engine, mLogger)};
    ASSERT_NE(refitter, nullptr);
    EXPECT_EQ(refitter->getMissing(0, nullptr, nullptr), 7);
    EXPECT_EQ(refitter->getMissingWeights(0, nullptr), 5);
    EXPECT_TRUE(refitter->setNamedWeights("fc.weight", weightsOf(w.fcWeight)));
    EXPECT_EQ(refitter->getMissing(0, nullptr, nullptr), 6);
    EXPECT_EQ(refitter->getMissingWeights(0, nullptr), 4);
    EXPECT_FALSE(refitter->refitCudaEngine());
    expectError({"IRefitter::refitCudaEngine", "6 refittable weights", "kSTRIP_PLAN"});

    giveAll(*refitter, w);
    EXPECT_EQ(refitter->getMissing(0, nullptr, nullptr), 0);
    EXPECT_TRUE(refitter->refitCudaEngine()) << mLogger.all();
    EXPECT_EQ(refitter->getMissing(0, nullptr, nullptr), 0);
    expectSame(run(*engine), run(*reference));

    // Serialized again, the engine leaves its refittable weights out as it was built to, unless asked otherwise.
    std::unique_ptr<nvinfer1::IHostMemory> again{engine->serialize()};
    ASSERT_NE(again, nullptr);
    EXPECT_EQ(again->size(), stripped.size());
    std::unique_ptr<nvinfer1::ISerializationConfig> config{engine->createSerializationConfig()};
    EXPECT_TRUE(config->getFlag(nvinfer1::SerializationFlag::kEXCLUDE_WEIGHTS)); // As the engine was built.
    config->clearFlag(nvinfer1::SerializationFlag::kEXCLUDE_WEIGHTS);
    std::unique_ptr<nvinfer1::IHostMemory> whole{engine->serializeWithConfig(*config)};
    ASSERT_NE(whole, nullptr);
    auto const* bytes = static_cast<uint8_t const*>(whole->data());
    ICudaEngine* loaded = load(std::vector<uint8_t>(bytes, bytes + whole->size()));
    ASSERT_NE(loaded, nullptr);
    expectSame(run(*loaded), run(*reference));
    expectNoError();
}

TEST_F(RefitTest, StripPlanAloneAssumesIdenticalWeights)
{
    NetworkWeights const w = randomWeights(6);
    ICudaEngine* reference = load(build(w, 0));
    ICudaEngine* engine = load(build(w, bit(BuilderFlag::kSTRIP_PLAN)));
    ASSERT_TRUE(reference != nullptr && engine != nullptr);
    std::unique_ptr<IRefitter> refitter{nvinfer1::createInferRefitter(*engine, mLogger)};
    ASSERT_NE(refitter, nullptr);
    // A CUDA build may fold the scalar factor into the product (the weights are assumed identical): then it is not
    // missing, as nothing holds it.
    int32_t const missing = refitter->getMissing(0, nullptr, nullptr);
    EXPECT_GE(missing, 6);
    std::vector<char const*> layers(static_cast<std::size_t>(missing));
    std::vector<WeightsRole> roles(static_cast<std::size_t>(missing));
    refitter->getMissing(missing, layers.data(), roles.data());
    for (int32_t i = 0; i < missing; ++i)
    {
        auto const at = static_cast<std::size_t>(i);
        EXPECT_TRUE(refitter->setWeights(layers[at], roles[at], weightsOf(valuesOf(w, layers[at], roles[at]))));
    }
    EXPECT_EQ(refitter->getMissing(0, nullptr, nullptr), 0);
    EXPECT_TRUE(refitter->refitCudaEngine()) << mLogger.all();
    expectSame(run(*engine), run(*reference));
    expectNoError();
}

TEST_F(RefitTest, DeserializedRefittableEngineRefitsAndSerializesTheNewWeights)
{
    NetworkWeights const before = randomWeights(7);
    NetworkWeights const after = randomWeights(8);
    ICudaEngine* engine = load(build(before, bit(BuilderFlag::kREFIT)));
    ICudaEngine* reference = load(build(after, 0));
    ASSERT_TRUE(engine != nullptr && reference != nullptr);
    {
        std::unique_ptr<IRefitter> refitter{
            engine != nullptr ? nvinfer1::createInferRefitter(*engine, mLogger) : nullptr};
        ASSERT_NE(refitter, nullptr);
        giveAll(*refitter, after);
        ASSERT_TRUE(refitter->refitCudaEngine());
    }
    std::unique_ptr<nvinfer1::IHostMemory> plan{engine->serialize()};
    ASSERT_NE(plan, nullptr);
    auto const* bytes = static_cast<uint8_t const*>(plan->data());
    ICudaEngine* loaded = load(std::vector<uint8_t>(bytes, bytes + plan->size()));
    ASSERT_NE(loaded, nullptr);
    EXPECT_TRUE(loaded->isRefittable());
    expectSame(run(*loaded), run(*reference));
    expectNoError();
}

TEST_F(RefitTest, RefitIndividualKeepsOnlyTheMarkedWeightsRefittable)
{
    NetworkWeights const before = randomWeights(9);
    NetworkWeights after = before;
    after.fcWeight = randomWeights(10).fcWeight;
    ICudaEngine* engine = load(build(before, bit(BuilderFlag::kREFIT_INDIVIDUAL), {"fc.weight"}));
    ICudaEngine* reference = load(build(after, 0));
    ASSERT_TRUE(engine != nullptr && reference != nullptr);
    std::unique_ptr<IRefitter> refitter{nvinfer1::createInferRefitter(*engine, mLogger)};
    ASSERT_NE(refitter, nullptr);
    EXPECT_EQ(refitter->getAll(0, nullptr, nullptr), 1);
    EXPECT_EQ(refitter->getAllWeights(0, nullptr), 1);
    EXPECT_FALSE(refitter->setNamedWeights("conv1.weight", weightsOf(after.conv1Kernel)));
    expectError({"IRefitter::setNamedWeights", "\"conv1.weight\""});
    EXPECT_TRUE(refitter->setWeights("fc", WeightsRole::kCONSTANT, weightsOf(after.fcWeight)));
    EXPECT_TRUE(refitter->refitCudaEngine());
    expectSame(run(*engine), run(*reference));
    expectNoError();
}

TEST_F(RefitTest, BuilderPluginRegistryIsTheProcessRegistryForStandardEngines)
{
    EXPECT_EQ(getBuilderPluginRegistry(nvinfer1::EngineCapability::kSTANDARD), getPluginRegistry());
    EXPECT_EQ(getBuilderPluginRegistry(nvinfer1::EngineCapability::kSAFETY), nullptr);
    expectError({"getBuilderPluginRegistry", "kSTANDARD"});
}

} // namespace
} // namespace kiln::test
