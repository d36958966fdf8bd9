// SPDX-License-Identifier: Apache-2.0
// The CUDA build's fused kernels (builder/fusion.h: fuseLayerNorms, fuseAttention) on networks made through the public
// API: which layers become one fused layer, with which inputs and numbers, what is left alone, and the fused layers'
// way through a plan. The build is asked for a CUDA engine through a backend that checks layers as the host does, so
// no GPU is needed; the kernels themselves are tested against the host in tests/engine/cuda_engine_test.cpp.
#include "backends/backend.h"
#include "backends/host/layer_kinds.h"
#include "builder/build.h"
#include "builder/fusion.h"
#include "builder/fusion_graph.h"
#include "builder/layout.h"
#include "model_builder.h"
#include "plan/engine_codec.h"
#include "runtime/shape_values.h"
#include "support/api_test.h"
#include "support/fusion_patterns.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace kiln
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::ITensor;
using test::exportedAttention;
using test::primitiveAttention;
using test::primitiveLayerNorm;
using test::residualBlocks;
using test::ScalarWeights;

//! The transpose {0, 2, 1, 3} that splits heads and merges them (the entries past rank 4 left 0).
nvinfer1::Permutation headSwap()
{
    nvinfer1::Permutation swap{};
    swap.order[1] = 2;
    swap.order[2] = 1;
    swap.order[3] = 3;
    return swap;
}

//! The names of a layer's input tensors ("" for an absent one).
std::vector<std::string> inputNames(EngineModel const& model, LayerRecord const& layer)
{
    std::vector<std::string> names;
    for (int32_t t : layer.inputs)
    {
        names.push_back(t == kNoTensor ? std::string() : model.tensors[static_cast<std::size_t>(t)].name);
    }
    return names;
}

//! A CUDA backend that checks layers as the host backend does and runs nothing: what a CUDA build asks at build time.
class CheckingBackend final : public Backend
{
public:
    explicit CheckingBackend(PlanBackend kind)
        : mKind(kind)
    {
    }
    PlanBackend kind() const noexcept override { return mKind; }
    Expected<std::optional<host::TensorDesc>> checkLayer(
        LayerParams const& params, LayerQuery const& query) const noexcept override
    {
        return host::checkLayerKind(params, query);
    }
    host::Status runLayer(LayerRecord const& /*layer*/, EngineModel const& /*model*/,
        std::span<host::HostTensor const* const> /*inputs*/, std::span<host::HostTensor const> /*outputs*/,
        cudaStream_t /*stream*/) noexcept override
    {
        return Error{nvinfer1::ErrorCode::kINTERNAL_ERROR, "this backend only checks layers"};
    }

private:
    PlanBackend mKind;
};

class FusedKernels : public test::ApiTest
{
protected:
    void SetUp() override
    {
        ApiTest::SetUp();
        mConfig.reset(mBuilder->createBuilderConfig());
        ASSERT_NE(mConfig, nullptr);
    }
    void TearDown() override
    {
        mConfig.reset();
        ApiTest::TearDown();
    }

    EngineModel build(PlanBackend kind = PlanBackend::kCUDA)
    {
        CheckingBackend const backend(kind);
        auto model = buildEngineModel(Network::of(*mNetwork), BuilderConfig::of(*mConfig).settings(), backend);
        EXPECT_TRUE(model.ok()) << (model.ok() ? std::string() : model.error().message);
        return model.ok() ? std::move(model.value()) : EngineModel{};
    }

    //! A profile for the named inputs, each from its shape at batch 1 (kMIN) to batch 4 (kOPT and kMAX).
    void addBatchProfile(std::initializer_list<std::pair<char const*, Dims>> inputs)
    {
        auto* profile = mBuilder->createOptimizationProfile();
        for (auto const& [name, one] : inputs)
        {
            Dims four = one;
            four.d[0] = 4;
            profile->setDimensions(name, nvinfer1::OptProfileSelector::kMIN, one);
            profile->setDimensions(name, nvinfer1::OptProfileSelector::kOPT, four);
            profile->setDimensions(name, nvinfer1::OptProfileSelector::kMAX, four);
        }
        mConfig->addOptimizationProfile(profile);
    }

    ITensor* constant(Dims dims, DataType type = DataType::kFLOAT)
    {
        int64_t count = 1;
        for (int32_t d = 0; d < dims.nbDims; ++d)
        {
            count *= dims.d[d];
        }
        mStorage.emplace_back(static_cast<std::size_t>(count * 4), 0x3C);
        // Each constant of its own value (its first byte the count so far): equal ones would merge (fusion_cse.cpp).
        mStorage.back().front() = static_cast<uint8_t>(mStorage.size());
        return mNetwork->addConstant(dims, nvinfer1::Weights{type, mStorage.back().data(), count})->getOutput(0);
    }

    ITensor* output(ITensor* t, char const* name)
    {
        t->setName(name);
        mNetwork->markOutput(*t);
        return t;
    }

    //! The model for the host, then made a CUDA model and put through the CUDA build's fusions up to fuseAttention:
    //! for networks whose unfused matrix multiplies a CUDA build would time on a GPU.
    int32_t attentionLayersFused()
    {
        EngineModel model = build(PlanBackend::kHOST);
        model.backend = PlanBackend::kCUDA;
        fuseEpilogues(model);
        return fuseAttention(model);
    }

    //! model written to a plan and read back (an empty model where either fails).
    static EngineModel throughAPlan(EngineModel const& model)
    {
        auto const plan = encodeEngine(model);
        EXPECT_TRUE(plan.ok()) << plan.error().message;
        if (!plan.ok())
        {
            return {};
        }
        auto loaded = decodeEngine(plan.value().data(), plan.value().size());
        EXPECT_TRUE(loaded.ok()) << loaded.error().message;
        return loaded.ok() ? std::move(loaded.value()) : EngineModel{};
    }

    static std::vector<LayerRecord const*> fusedLayers(EngineModel const& model)
    {
        std::vector<LayerRecord const*> fused;
        for (LayerRecord const& layer : model.layers)
        {
            if (layer.fused)
            {
                fused.push_back(&layer);
            }
        }
        return fused;
    }

    std::unique_ptr<nvinfer1::IBuilderConfig> mConfig;
    std::vector<std::vector<uint8_t>> mStorage;
    ScalarWeights mScalars;
};

TEST_F(FusedKernels, ALayerNormWithGammaAndBetaBecomesOneLayer)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{3, {4, 6, 64}});
    ITensor* gamma = constant(Dims{3, {1, 1, 64}});
    ITensor* beta = constant(Dims{3, {1, 1, 64}});
    output(primitiveLayerNorm(*mNetwork, *x, 1e-5F, gamma, beta, mScalars), "y");
    EngineModel const model = build();
    std::vector<LayerRecord const*> const fused = fusedLayers(model);
    ASSERT_EQ(fused.size(), 1U);
    LayerRecord const& norm = *fused.front();
    EXPECT_EQ(norm.type, nvinfer1::LayerType::kREDUCE);
    ASSERT_EQ(norm.fused->kind, FusedKernel::Kind::kLAYER_NORM);
    EXPECT_FLOAT_EQ(norm.fused->epsilon, 1e-5F);
    ASSERT_EQ(norm.inputs.size(), 3U);
    EXPECT_EQ(model.tensors[static_cast<std::size_t>(norm.inputs[0])].name, "x");
    EXPECT_EQ(norm.inputs[1], model.layers[0].outputs[0]) << "gamma, made by the first constant layer";
    EXPECT_EQ(norm.inputs[2], model.layers[1].outputs[0]) << "beta";
    EXPECT_EQ(model.tensors[static_cast<std::size_t>(norm.outputs[0])].name, "y");
    // gamma and beta, then the norm: the epsilon constant is gone, and so are the eight other layers.
    EXPECT_EQ(model.layers.size(), 3U);

    // Through a plan and back.
    auto const plan = encodeEngine(model);
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    auto const loaded = decodeEngine(plan.value().data(), plan.value().size());
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    ASSERT_EQ(loaded.value().layers.size(), model.layers.size());
    EXPECT_EQ(loaded.value().layers[2].fused, norm.fused);
    EXPECT_EQ(loaded.value().layers[2].inputs, norm.inputs);
}

TEST_F(FusedKernels, ALayerNormWithoutBetaOrGammaTakesFewerInputs)
{
    ITensor* x = mNetwork->addInput("x", DataType::kHALF, Dims{2, {5, 33}});
    output(primitiveLayerNorm(*mNetwork, *x, 1e-3F, nullptr, nullptr, mScalars), "plain");
    ITensor* x2 = mNetwork->addInput("x2", DataType::kHALF, Dims{2, {5, 33}});
    output(primitiveLayerNorm(*mNetwork, *x2, 1e-3F, constant(Dims{2, {1, 33}}, DataType::kHALF), nullptr, mScalars),
        "scaled");
    EngineModel const model = build();
    std::vector<LayerRecord const*> const fused = fusedLayers(model);
    ASSERT_EQ(fused.size(), 2U);
    EXPECT_EQ(fused[0]->inputs.size(), 1U);
    EXPECT_EQ(fused[1]->inputs.size(), 2U);
    EXPECT_NEAR(fused[0]->fused->epsilon, 1e-3F, 1e-6F) << "the half constant's value";
}

TEST_F(FusedKernels, ALayerNormWrittenWithAReciprocalFusesToo)
{
    // The ONNX parser's LayerNormalization: c * recip(sqrt(var + eps)), then * gamma + beta.
    using nvinfer1::ElementWiseOperation;
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{2, {4, 16}});
    auto* mean = mNetwork->addReduce(*x, nvinfer1::ReduceOperation::kAVG, 1U << 1, true)->getOutput(0);
    auto* c = mNetwork->addElementWise(*x, *mean, ElementWiseOperation::kSUB)->getOutput(0);
    auto* squared = mNetwork->addElementWise(*c, *c, ElementWiseOperation::kPROD)->getOutput(0);
    auto* variance = mNetwork->addReduce(*squared, nvinfer1::ReduceOperation::kAVG, 1U << 1, true)->getOutput(0);
    auto* eps = mNetwork->addConstant(Dims{2, {1, 1}}, mScalars(1e-6F, DataType::kFLOAT))->getOutput(0);
    auto* padded = mNetwork->addElementWise(*variance, *eps, ElementWiseOperation::kSUM)->getOutput(0);
    auto* deviation = mNetwork->addUnary(*padded, nvinfer1::UnaryOperation::kSQRT)->getOutput(0);
    auto* inverse = mNetwork->addUnary(*deviation, nvinfer1::UnaryOperation::kRECIP)->getOutput(0);
    auto* normalized = mNetwork->addElementWise(*inverse, *c, ElementWiseOperation::kPROD)->getOutput(0);
    auto* scaled = mNetwork->addElementWise(*normalized, *constant(Dims{2, {1, 16}}), ElementWiseOperation::kPROD);
    output(scaled->getOutput(0), "y");
    EngineModel const model = build();
    std::vector<LayerRecord const*> const fused = fusedLayers(model);
    ASSERT_EQ(fused.size(), 1U);
    EXPECT_EQ(fused[0]->inputs.size(), 2U) << "x and gamma";
    EXPECT_FLOAT_EQ(fused[0]->fused->epsilon, 1e-6F);
    EXPECT_EQ(model.layers.size(), 2U) << "gamma's constant and the norm";
}

TEST_F(FusedKernels, LeavesALayerNormWhoseInnerTensorIsReadElsewhere)
{
    // The centered values are also an output: they must be stored, so the pattern is not one kernel.
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{2, {4, 16}});
    ITensor* y = primitiveLayerNorm(*mNetwork, *x, 1e-5F, nullptr, nullptr, mScalars);
    output(y, "y");
    auto* mean = mNetwork->getLayer(0)->getOutput(0);
    ASSERT_EQ(mNetwork->getLayer(0)->getType(), nvinfer1::LayerType::kREDUCE);
    auto* centered = mNetwork->getLayer(1)->getOutput(0);
    output(centered, "centered");
    static_cast<void>(mean);
    EXPECT_TRUE(fusedLayers(build()).empty());
}

TEST_F(FusedKernels, HostEnginesKeepThePrimitiveLayers)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{2, {4, 16}});
    output(primitiveLayerNorm(*mNetwork, *x, 1e-5F, nullptr, nullptr, mScalars), "y");
    ITensor* q = mNetwork->addInput("q", DataType::kFLOAT, Dims{3, {2, 8, 64}});
    output(primitiveAttention(*mNetwork, *q, *q, *q, 2, 0.125F, mScalars), "o");
    EXPECT_TRUE(fusedLayers(build(PlanBackend::kHOST)).empty());
}

//! BERT's embeddings through the public API: word ids wrapped as the ONNX parser wraps negative indices, type ids,
//! position ids [1, S]; the sum of the three lookups and a primitive layer norm. Returns the layer norm's output.
ITensor* bertEmbeddings(nvinfer1::INetworkDefinition& network, std::vector<std::vector<uint8_t>>& storage,
    ScalarWeights& scalars, ITensor* words, ITensor* types)
{
    auto const constant = [&](Dims dims, DataType type, int64_t count, uint8_t fill) {
        storage.emplace_back(static_cast<std::size_t>(count * 4), fill);
        return network.addConstant(dims, nvinfer1::Weights{type, storage.back().data(), count})->getOutput(0);
    };
    auto const integer = [&](int32_t value) {
        storage.emplace_back(sizeof(value));
        std::memcpy(storage.back().data(), &value, sizeof(value));
        return network.addConstant(Dims{2, {1, 1}}, nvinfer1::Weights{DataType::kINT32, storage.back().data(), 1})
            ->getOutput(0);
    };
    auto* negative = network.addElementWise(*words, *integer(0), nvinfer1::ElementWiseOperation::kLESS)->getOutput(0);
    auto* shifted = network.addElementWise(*words, *integer(100), nvinfer1::ElementWiseOperation::kSUM)->getOutput(0);
    ITensor* wrapped = network.addSelect(*negative, *shifted, *words)->getOutput(0);
    ITensor* positions = constant(Dims{2, {1, 8}}, DataType::kINT32, 8, 0);
    auto* word = network.addGather(*constant(Dims{2, {100, 32}}, DataType::kFLOAT, 3200, 0x31), *wrapped, 0);
    word->setName("word");
    auto* type = network.addGather(*constant(Dims{2, {2, 32}}, DataType::kFLOAT, 64, 0x32), *types, 0);
    auto* position = network.addGather(*constant(Dims{2, {16, 32}}, DataType::kFLOAT, 512, 0x33), *positions, 0);
    ITensor* sum
        = network.addElementWise(*word->getOutput(0), *type->getOutput(0), nvinfer1::ElementWiseOperation::kSUM)
              ->getOutput(0);
    sum = network.addElementWise(*sum, *position->getOutput(0), nvinfer1::ElementWiseOperation::kSUM)->getOutput(0);
    ITensor* gamma = constant(Dims{3, {1, 1, 32}}, DataType::kFLOAT, 32, 0x34);
    ITensor* beta = constant(Dims{3, {1, 1, 32}}, DataType::kFLOAT, 32, 0x35);
    return test::primitiveLayerNorm(network, *sum, 1e-12F, gamma, beta, scalars);
}

TEST_F(FusedKernels, EmbeddingLookupsTheirSumAndLayerNormBecomeOneLayer)
{
    ITensor* words = mNetwork->addInput("words", DataType::kINT32, Dims{2, {4, 8}});
    ITensor* types = mNetwork->addInput("types", DataType::kINT32, Dims{2, {4, 8}});
    output(bertEmbeddings(*mNetwork, mStorage, mScalars, words, types), "y");
    EngineModel const model = build();
    std::vector<LayerRecord const*> const fused = fusedLayers(model);
    ASSERT_EQ(fused.size(), 1U);
    LayerRecord const& embedding = *fused.front();
    ASSERT_EQ(embedding.fused->kind, FusedKernel::Kind::kEMBEDDING);
    EXPECT_EQ(embedding.type, nvinfer1::LayerType::kGATHER);
    EXPECT_EQ(embedding.name, "word");
    EXPECT_EQ(embedding.fused->gathers, 3);
    EXPECT_EQ(embedding.fused->wrapped, 1) << "only the word ids were wrapped";
    EXPECT_TRUE(embedding.fused->normalize);
    EXPECT_EQ(embedding.fused->normAffine, 2);
    EXPECT_FLOAT_EQ(embedding.fused->epsilon, 1e-12F);
    std::vector<std::string> const names = inputNames(model, embedding);
    ASSERT_EQ(names.size(), 8U);
    EXPECT_EQ(names[1], "words") << "the wrap is fused: the raw ids are read";
    EXPECT_EQ(names[3], "types");
    EXPECT_EQ(model.tensors[static_cast<std::size_t>(embedding.outputs[0])].name, "y");
    // Nothing else runs: the wrap's comparison, sum and select, the other gathers, the sums and the norm are gone.
    for (LayerRecord const& layer : model.layers)
    {
        EXPECT_TRUE(layer.type == nvinfer1::LayerType::kCONSTANT || &layer == &embedding) << layer.name << " is left";
    }
    EngineModel const loaded = throughAPlan(model);
    std::vector<LayerRecord const*> const again = fusedLayers(loaded);
    ASSERT_EQ(again.size(), 1U);
    EXPECT_EQ(*again.front()->fused, *embedding.fused);
    EXPECT_EQ(again.front()->inputs, embedding.inputs);
}

TEST_F(FusedKernels, AnEmbeddingWithoutLayerNormKeepsItsSumAndAddends)
{
    // One lookup of unwrapped ids plus a network input: the sum is the fused layer's output, the input an addend.
    ITensor* ids = mNetwork->addInput("ids", DataType::kINT64, Dims{2, {4, 8}});
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{3, {4, 8, 32}});
    auto* lookup = mNetwork->addGather(*constant(Dims{2, {10, 32}}), *ids, 0);
    output(
        mNetwork->addElementWise(*lookup->getOutput(0), *x, nvinfer1::ElementWiseOperation::kSUM)->getOutput(0), "y");
    EngineModel const model = build();
    std::vector<LayerRecord const*> const fused = fusedLayers(model);
    ASSERT_EQ(fused.size(), 1U);
    EXPECT_EQ(fused.front()->fused->kind, FusedKernel::Kind::kEMBEDDING);
    EXPECT_EQ(fused.front()->fused->gathers, 1);
    EXPECT_EQ(fused.front()->fused->wrapped, 0);
    EXPECT_FALSE(fused.front()->fused->normalize);
    std::vector<std::string> const names = inputNames(model, *fused.front());
    ASSERT_EQ(names.size(), 3U);
    EXPECT_EQ(names[1], "ids");
    EXPECT_EQ(names[2], "x");
}

TEST_F(FusedKernels, LeavesLookupsReadElsewhereOrOfComputedTables)
{
    // A lookup whose rows are also an output, and a lookup of a table the network computes: neither fuses.
    ITensor* ids = mNetwork->addInput("ids", DataType::kINT32, Dims{2, {4, 8}});
    ITensor* table = mNetwork->addInput("table", DataType::kFLOAT, Dims{2, {10, 32}});
    auto* shared = mNetwork->addGather(*constant(Dims{2, {10, 32}}), *ids, 0);
    output(shared->getOutput(0), "rows");
    auto* computed = mNetwork->addGather(*table, *ids, 0);
    output(
        mNetwork->addElementWise(*shared->getOutput(0), *computed->getOutput(0), nvinfer1::ElementWiseOperation::kSUM)
            ->getOutput(0),
        "y");
    EngineModel const model = build();
    for (LayerRecord const& layer : model.layers)
    {
        EXPECT_FALSE(layer.fused && layer.fused->kind == FusedKernel::Kind::kEMBEDDING) << layer.name;
    }
}

TEST_F(FusedKernels, APlanWithAMalformedEmbeddingIsRefused)
{
    ITensor* words = mNetwork->addInput("words", DataType::kINT32, Dims{2, {4, 8}});
    ITensor* types = mNetwork->addInput("types", DataType::kINT32, Dims{2, {4, 8}});
    output(bertEmbeddings(*mNetwork, mStorage, mScalars, words, types), "y");
    EngineModel model = build();
    auto const embedding = std::find_if(model.layers.begin(), model.layers.end(),
        [](LayerRecord const& layer) { return layer.fused && layer.fused->kind == FusedKernel::Kind::kEMBEDDING; });
    ASSERT_NE(embedding, model.layers.end());
    // The writer checks the model as the reader does.
    embedding->fused->gathers = 5; // More lookups than the kernel takes.
    auto plan = encodeEngine(model);
    ASSERT_FALSE(plan.ok());
    EXPECT_NE(plan.error().message.find("fused embedding of 5 lookups"), std::string::npos) << plan.error().message;
    embedding->fused->gathers = 3;
    embedding->fused->wrapped = 8; // A lookup 3 of 3.
    plan = encodeEngine(model);
    ASSERT_FALSE(plan.ok());
    EXPECT_NE(plan.error().message.find("wrapped lookups 8 of 3"), std::string::npos) << plan.error().message;
    embedding->fused->wrapped = 1;
    EXPECT_TRUE(encodeEngine(model).ok());
}

TEST_F(FusedKernels, AttentionBecomesOneLayerReadingTheHeadsInPlace)
{
    ITensor* q = mNetwork->addInput("q", DataType::kHALF, Dims{3, {2, 10, 64}});
    ITensor* k = mNetwork->addInput("k", DataType::kHALF, Dims{3, {2, 7, 64}});
    ITensor* v = mNetwork->addInput("v", DataType::kHALF, Dims{3, {2, 7, 64}});
    output(primitiveAttention(*mNetwork, *q, *k, *v, 4, 0.25F, mScalars), "o");
    EngineModel const model = build();
    ASSERT_EQ(model.layers.size(), 1U) << "splits, scores, scale, softmax, context and merge are one layer";
    LayerRecord const& attention = model.layers[0];
    EXPECT_EQ(attention.type, nvinfer1::LayerType::kMATRIX_MULTIPLY);
    ASSERT_TRUE(attention.fused.has_value());
    EXPECT_EQ(attention.fused->kind, FusedKernel::Kind::kATTENTION);
    EXPECT_EQ(attention.fused->heads, 4);
    EXPECT_FLOAT_EQ(attention.fused->scale, 0.25F);
    EXPECT_EQ(inputNames(model, attention), (std::vector<std::string>{"q", "k", "v"}));
    EXPECT_EQ(model.tensors[static_cast<std::size_t>(attention.outputs[0])].name, "o");

    EngineModel const loaded = throughAPlan(model);
    ASSERT_EQ(loaded.layers.size(), 1U);
    EXPECT_EQ(loaded.layers[0].fused, attention.fused);
}

TEST_F(FusedKernels, AttentionAsTheOnnxParserWritesItFusesToo)
{
    // Reshape and Transpose as two shuffle layers each, the scores divided by sqrt(D) rather than multiplied.
    ITensor* q = mNetwork->addInput("q", DataType::kHALF, Dims{3, {2, 10, 128}});
    nvinfer1::Permutation const swap = headSwap();
    auto const split = [&](ITensor* t) {
        auto* reshape = mNetwork->addShuffle(*t);
        reshape->setReshapeDimensions(Dims{4, {2, 10, 2, 64}});
        auto* transpose = mNetwork->addShuffle(*reshape->getOutput(0));
        transpose->setFirstTranspose(swap);
        return transpose->getOutput(0);
    };
    auto* k = mNetwork->addInput("k", DataType::kHALF, Dims{3, {2, 10, 128}});
    auto* v = mNetwork->addInput("v", DataType::kHALF, Dims{3, {2, 10, 128}});
    auto* scores = mNetwork
                       ->addMatrixMultiply(*split(q), nvinfer1::MatrixOperation::kNONE, *split(k),
                           nvinfer1::MatrixOperation::kTRANSPOSE)
                       ->getOutput(0);
    auto* root = mNetwork->addConstant(Dims{4, {1, 1, 1, 1}}, mScalars(8.F, DataType::kHALF))->getOutput(0);
    auto* divided = mNetwork->addElementWise(*scores, *root, nvinfer1::ElementWiseOperation::kDIV)->getOutput(0);
    auto* softmax = mNetwork->addSoftMax(*divided);
    softmax->setAxes(1U << 3);
    auto* context = mNetwork
                        ->addMatrixMultiply(*softmax->getOutput(0), nvinfer1::MatrixOperation::kNONE, *split(v),
                            nvinfer1::MatrixOperation::kNONE)
                        ->getOutput(0);
    auto* transpose = mNetwork->addShuffle(*context);
    transpose->setFirstTranspose(swap);
    auto* reshape = mNetwork->addShuffle(*transpose->getOutput(0));
    reshape->setReshapeDimensions(Dims{3, {2, 10, 128}});
    output(reshape->getOutput(0), "o");
    EngineModel const model = build();
    ASSERT_EQ(model.layers.size(), 1U)
        << "six reshape/transpose pairs' layers, the scores, softmax and context are one";
    ASSERT_TRUE(model.layers[0].fused.has_value());
    EXPECT_EQ(model.layers[0].fused->heads, 2);
    EXPECT_FLOAT_EQ(model.layers[0].fused->scale, 0.125F) << "the division folded as a factor";
}

TEST_F(FusedKernels, DynamicBatchAndSequenceStillFuse)
{
    ITensor* q = mNetwork->addInput("q", DataType::kFLOAT, Dims{3, {-1, -1, 128}});
    output(primitiveAttention(*mNetwork, *q, *q, *q, 2, 0.125F, mScalars), "o");
    auto* profile = mBuilder->createOptimizationProfile();
    profile->setDimensions("q", nvinfer1::OptProfileSelector::kMIN, Dims{3, {1, 1, 128}});
    profile->setDimensions("q", nvinfer1::OptProfileSelector::kOPT, Dims{3, {2, 16, 128}});
    profile->setDimensions("q", nvinfer1::OptProfileSelector::kMAX, Dims{3, {4, 64, 128}});
    mConfig->addOptimizationProfile(profile);
    EngineModel const model = build();
    // q feeds all three splits: one layer reading q three times.
    ASSERT_EQ(fusedLayers(model).size(), 1U);
    EXPECT_EQ(fusedLayers(model).front()->fused->heads, 2);
}

TEST_F(FusedKernels, TheAttentionPassAloneFusesWhatItShould)
{
    // The control of the two tests below: the same path fuses a head size the kernel has (six layers absorbed).
    ITensor* q = mNetwork->addInput("q", DataType::kFLOAT, Dims{3, {2, 8, 64}});
    output(primitiveAttention(*mNetwork, *q, *q, *q, 4, 0.125F, mScalars), "o"); // D = 16
    EXPECT_EQ(attentionLayersFused(), 6);
}

TEST_F(FusedKernels, LeavesAttentionWithAHeadSizeTheKernelLacks)
{
    ITensor* q = mNetwork->addInput("q", DataType::kFLOAT, Dims{3, {2, 8, 48}});
    output(primitiveAttention(*mNetwork, *q, *q, *q, 4, 0.125F, mScalars), "o"); // D = 12
    EXPECT_EQ(attentionLayersFused(), 0);
}

TEST_F(FusedKernels, LeavesAttentionWhoseProbabilitiesAreAnOutput)
{
    ITensor* q = mNetwork->addInput("q", DataType::kFLOAT, Dims{3, {2, 8, 64}});
    output(primitiveAttention(*mNetwork, *q, *q, *q, 4, 0.125F, mScalars), "o");
    for (int32_t l = 0; l < mNetwork->getNbLayers(); ++l)
    {
        if (mNetwork->getLayer(l)->getType() == nvinfer1::LayerType::kSOFTMAX)
        {
            output(mNetwork->getLayer(l)->getOutput(0), "probabilities");
        }
    }
    EXPECT_EQ(attentionLayersFused(), 0);
}

//! Attention as transformers exports it: q, k, v [2, 12, 128] of type in 2 heads (D = 64); a mask input [2, 1, 12, 12]
//! when masked.
class ExportedAttention : public FusedKernels
{
protected:
    ITensor* attention(DataType type, bool masked, bool guarded, Dims maskShape = Dims{4, {2, 1, 12, 12}})
    {
        ITensor* q = mNetwork->addInput("q", type, Dims{3, {2, 12, 128}});
        ITensor* k = mNetwork->addInput("k", type, Dims{3, {2, 12, 128}});
        ITensor* v = mNetwork->addInput("v", type, Dims{3, {2, 12, 128}});
        mMask = masked ? mNetwork->addInput("mask", type, maskShape) : nullptr;
        return output(exportedAttention(*mNetwork, *q, *k, *v, 2, mMask, guarded, mScalars), "o");
    }
    //! The float attention, masked and guarded as asked, becomes one layer: q, k, v (and the mask) in, masked rows
    //! zeros where guarded.
    void expectOneFusedLayer(bool masked, bool guarded)
    {
        attention(DataType::kFLOAT, masked, guarded);
        EngineModel const model = build();
        ASSERT_EQ(model.layers.size(), 1U);
        ASSERT_TRUE(model.layers[0].fused.has_value());
        EXPECT_EQ(model.layers[0].fused->zeroMaskedRows, guarded);
        std::vector<std::string> expected{"q", "k", "v"};
        if (masked)
        {
            expected.emplace_back("mask");
        }
        EXPECT_EQ(inputNames(model, model.layers[0]), expected);
    }

    //! Marks the result of the network's first layer of type as an output.
    void outputFirst(nvinfer1::LayerType type, char const* name)
    {
        for (int32_t l = 0; l < mNetwork->getNbLayers(); ++l)
        {
            if (mNetwork->getLayer(l)->getType() == type)
            {
                output(mNetwork->getLayer(l)->getOutput(0), name);
                return;
            }
        }
        ADD_FAILURE() << "no layer of type " << static_cast<int32_t>(type);
    }
    ITensor* mMask{};
};

TEST_F(ExportedAttention, TheMaskedAndGuardedFormBecomesOneLayer)
{
    attention(DataType::kHALF, true, true);
    EngineModel const model = build();
    ASSERT_EQ(model.layers.size(), 1U) << "splits, scales, scores, mask sum, softmax, guard, context and merge";
    LayerRecord const& fused = model.layers[0];
    ASSERT_TRUE(fused.fused.has_value());
    EXPECT_EQ(fused.fused->kind, FusedKernel::Kind::kATTENTION);
    EXPECT_EQ(fused.fused->heads, 2);
    EXPECT_NEAR(fused.fused->scale, 0.125F, 1e-4F) << "the two factors 64^-1/4 (in half)";
    EXPECT_TRUE(fused.fused->zeroMaskedRows);
    EXPECT_EQ(inputNames(model, fused), (std::vector<std::string>{"q", "k", "v", "mask"}));
    EXPECT_EQ(model.tensors[static_cast<std::size_t>(fused.outputs[0])].name, "o");

    EngineModel const loaded = throughAPlan(model);
    ASSERT_EQ(loaded.layers.size(), 1U);
    EXPECT_EQ(loaded.layers[0].fused, fused.fused);
    EXPECT_EQ(loaded.layers[0].inputs, fused.inputs);
}

TEST_F(ExportedAttention, WithoutTheGuardMaskedRowsStayNaN)
{
    expectOneFusedLayer(true, false);
}

TEST_F(ExportedAttention, WithoutAMaskTheGuardStillFuses)
{
    expectOneFusedLayer(false, true);
}

TEST_F(ExportedAttention, AMaskOfOneRowPerBatchBroadcasts)
{
    attention(DataType::kFLOAT, true, true, Dims{4, {2, 1, 1, 12}});
    EngineModel const model = build();
    ASSERT_EQ(fusedLayers(model).size(), 1U);
    EXPECT_EQ(inputNames(model, *fusedLayers(model).front()).back(), "mask");
}

TEST_F(ExportedAttention, AMaskReadElsewhereIsOnlyRead)
{
    attention(DataType::kFLOAT, true, true);
    auto* doubled = mNetwork->addElementWise(*mMask, *mMask, nvinfer1::ElementWiseOperation::kSUM);
    output(doubled->getOutput(0), "doubled");
    EngineModel const model = build();
    ASSERT_EQ(fusedLayers(model).size(), 1U);
    EXPECT_EQ(inputNames(model, *fusedLayers(model).front()).back(), "mask");
}

TEST_F(ExportedAttention, AMaskMadeInTheNetworkAndAnOutputFusesToo)
{
    ITensor* q = mNetwork->addInput("q", DataType::kFLOAT, Dims{3, {2, 12, 128}});
    // The mask made in the network (and a network output) rather than given.
    auto* difference = mNetwork->addElementWise(*q, *q, nvinfer1::ElementWiseOperation::kSUB)->getOutput(0);
    auto* shaped = mNetwork->addShuffle(*difference);
    shaped->setReshapeDimensions(Dims{4, {2, 1, 12, 128}});
    auto* mask
        = mNetwork
              ->addSlice(*shaped->getOutput(0), Dims{4, {0, 0, 0, 0}}, Dims{4, {2, 1, 12, 12}}, Dims{4, {1, 1, 1, 1}})
              ->getOutput(0);
    output(mask, "mask");
    output(exportedAttention(*mNetwork, *q, *q, *q, 2, mask, true, mScalars), "o");
    EngineModel model = build(PlanBackend::kHOST);
    model.backend = PlanBackend::kCUDA;
    // Without fuseEpilogues the sum stays a layer of its own (fuseEpilogues would make the mask the scores' bias).
    EXPECT_EQ(fuseAttention(model), 15) << "3 reshapes, 3 transposes, 2 scales, the scores, the sum, the softmax, "
                                           "isnan, select and the merge's 2; the context holds the fusion";
    ASSERT_EQ(fusedLayers(model).size(), 1U);
    EXPECT_EQ(inputNames(model, *fusedLayers(model).front()).back(), "mask");
}

//! BERT's padding mask as transformers exports it (test::exportedPaddingMask) on an attention of batch 2 and S = 12
//! keys, the constant [1, 1, S, 1] true everywhere or not: the CUDA build's layers and the fused attention's mask. (Of
//! a batch known only at run time, the ONNX parser's Expand keeps its select(extents == 1, ...) form: BERT's export,
//! measured on the GPU in bench/models, has it.)
class ExportedPaddingMask : public ExportedAttention
{
protected:
    //! half: q in kHALF and the float mask cast to it (the cast is narrowed with the select).
    EngineModel build(bool allTrue, bool half = false)
    {
        DataType const type = half ? DataType::kHALF : DataType::kFLOAT;
        ITensor* q = mNetwork->addInput("q", type, Dims{3, {2, 12, 128}});
        ITensor* pad = mNetwork->addInput("pad", DataType::kFLOAT, Dims{4, {2, 1, 1, 12}});
        ITensor* mask
            = test::exportedPaddingMask(*mNetwork, *pad, DataType::kFLOAT, allTrue, mScalars, mIntegers, mBools);
        if (half)
        {
            mask = mNetwork->addCast(*mask, DataType::kHALF)->getOutput(0);
        }
        output(exportedAttention(*mNetwork, *q, *q, *q, 2, mask, true, mScalars), "o");
        return FusedKernels::build();
    }
    //! The fused attention's mask extents (-1 for one that is not a constant); empty without one attention.
    static std::vector<int64_t> maskExtents(EngineModel const& model)
    {
        std::vector<LayerRecord const*> const fused = fusedLayers(model);
        if (fused.size() != 1 || fused[0]->inputs.size() != 4)
        {
            return {};
        }
        std::vector<int64_t> extents;
        for (uint32_t e : model.tensors[static_cast<std::size_t>(fused[0]->inputs[3])].shape)
        {
            extents.push_back(constantExtent(model, e).value_or(-1));
        }
        return extents;
    }
    static int32_t layersOfType(EngineModel const& model, LayerType type)
    {
        return static_cast<int32_t>(std::count_if(
            model.layers.begin(), model.layers.end(), [&](LayerRecord const& l) { return l.type == type; }));
    }
    std::deque<std::vector<int64_t>> mIntegers;
    std::deque<std::vector<uint8_t>> mBools;
};

TEST_F(ExportedPaddingMask, ItsIdenticalRowsBecomeOneRowTheAttentionBroadcasts)
{
    // Fixed extents: foldStaticValues makes the Expand's sizes and strides constants; the slice of stride 0 over the
    // And's one row, and the And with the constant true everywhere, are stepped over; both go unread.
    EngineModel const model = build(true);
    EXPECT_EQ(maskExtents(model), (std::vector<int64_t>{2, 1, 1, 12}));
    EXPECT_EQ(layersOfType(model, LayerType::kSLICE), 0);
    EXPECT_EQ(layersOfType(model, LayerType::kELEMENTWISE), 1) << "the comparison alone";
    EXPECT_EQ(layersOfType(model, LayerType::kSHAPE), 0);
}

TEST_F(ExportedPaddingMask, ACastOfItIsNarrowedWithIt)
{
    // The select in float and a cast to the attention's kHALF: both tensors take the narrower extents.
    EngineModel const model = build(true, true);
    EXPECT_EQ(maskExtents(model), (std::vector<int64_t>{2, 1, 1, 12}));
    EXPECT_EQ(layersOfType(model, LayerType::kSLICE), 0);
    int32_t const cast = producerOf(model, fusedLayers(model).front()->inputs[3]);
    ASSERT_GE(cast, 0);
    LayerRecord const& castLayer = model.layers[static_cast<std::size_t>(cast)];
    ASSERT_EQ(castLayer.type, LayerType::kCAST);
    std::vector<uint32_t> const& selected = model.tensors[static_cast<std::size_t>(castLayer.inputs[0])].shape;
    ASSERT_EQ(selected.size(), 4U);
    EXPECT_EQ(constantExtent(model, selected[2]), 1) << "the select's output is narrowed too";
}

TEST_F(ExportedPaddingMask, AMaskReadBesidesTheAttentionKeepsItsRows)
{
    // The mask is also a network output: its extents are the network's to keep.
    ITensor* q = mNetwork->addInput("q", DataType::kFLOAT, Dims{3, {2, 12, 128}});
    ITensor* pad = mNetwork->addInput("pad", DataType::kFLOAT, Dims{4, {2, 1, 1, 12}});
    ITensor* mask = test::exportedPaddingMask(*mNetwork, *pad, DataType::kFLOAT, true, mScalars, mIntegers, mBools);
    output(exportedAttention(*mNetwork, *q, *q, *q, 2, mask, true, mScalars), "o");
    output(mask, "mask");
    EngineModel const model = FusedKernels::build();
    EXPECT_EQ(maskExtents(model), (std::vector<int64_t>{2, 1, 12, 12}));
}

TEST_F(ExportedPaddingMask, WithAQueryMaskedItKeepsItsRows)
{
    // One false value in the constant: the And makes rows that differ, so the mask stays [B, 1, S, S] (the slice of
    // the identity Expand is still stepped over).
    EngineModel const model = build(false);
    EXPECT_EQ(maskExtents(model), (std::vector<int64_t>{2, 1, 12, 12}));
    EXPECT_EQ(layersOfType(model, LayerType::kSLICE), 0);
}

TEST_F(FusedKernels, ReshapesOfMadeTensorsAreViewsAndOthersCopies)
{
    // x [2, 6]: a = x + x; views: a reshaped [2, 2, 3] (read by a sum). Copies: a transposed, a constant reshaped, a
    // reshape whose output is a network output, and a reshape of the network input.
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{2, {2, 6}});
    ITensor* a = mNetwork->addElementWise(*x, *x, nvinfer1::ElementWiseOperation::kSUM)->getOutput(0);
    auto const reshape = [&](ITensor& t, Dims shape, char const* name) {
        auto* shuffle = mNetwork->addShuffle(t);
        shuffle->setReshapeDimensions(shape);
        shuffle->setName(name);
        return shuffle->getOutput(0);
    };
    ITensor* view = reshape(*a, Dims{3, {2, 2, 3}}, "view");
    output(mNetwork->addElementWise(*view, *view, nvinfer1::ElementWiseOperation::kSUM)->getOutput(0), "doubled");
    auto* transpose = mNetwork->addShuffle(*a);
    nvinfer1::Permutation swap{};
    swap.order[0] = 1;
    swap.order[1] = 0;
    transpose->setFirstTranspose(swap);
    transpose->setName("transpose");
    output(
        mNetwork
            ->addElementWise(*transpose->getOutput(0), *transpose->getOutput(0), nvinfer1::ElementWiseOperation::kSUM)
            ->getOutput(0),
        "transposed");
    ITensor* constantView = reshape(*constant(Dims{2, {2, 6}}), Dims{3, {2, 2, 3}}, "of a constant");
    output(mNetwork->addElementWise(*constantView, *view, nvinfer1::ElementWiseOperation::kSUM)->getOutput(0), "c");
    output(reshape(*a, Dims{3, {2, 3, 2}}, "an output"), "reshaped");
    ITensor* ofInput = reshape(*x, Dims{3, {2, 3, 2}}, "of the input");
    output(mNetwork->addElementWise(*ofInput, *ofInput, nvinfer1::ElementWiseOperation::kSUM)->getOutput(0), "d");
    EngineModel model = build(PlanBackend::kHOST);
    std::vector<uint8_t> const views = reshapeViews(model);
    std::vector<int32_t> const roots = memoryRoots(model);
    std::vector<std::string> viewed;
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        if (views[l] != 0)
        {
            viewed.push_back(model.layers[l].name);
            LayerRecord const& layer = model.layers[l];
            EXPECT_EQ(roots[static_cast<std::size_t>(layer.outputs[0])], layer.inputs[0]) << layer.name;
        }
    }
    EXPECT_EQ(viewed, (std::vector<std::string>{"view"}));

    // The build marks the view in the plan (format 4.8); the reader keeps the mark, and refuses it on a transpose.
    auto const named = [&](char const* name) {
        return std::find_if(
            model.layers.begin(), model.layers.end(), [&](LayerRecord const& layer) { return layer.name == name; });
    };
    ASSERT_NE(named("view"), model.layers.end());
    EXPECT_TRUE(named("view")->viewsInput);
    EXPECT_FALSE(named("transpose")->viewsInput);
    EngineModel const loaded = throughAPlan(model);
    ASSERT_EQ(loaded.layers.size(), model.layers.size());
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        EXPECT_EQ(loaded.layers[l].viewsInput, model.layers[l].viewsInput) << model.layers[l].name;
    }
    named("transpose")->viewsInput = true;
    auto const plan = encodeEngine(model);
    ASSERT_FALSE(plan.ok());
    EXPECT_NE(plan.error().message.find("views its input, but only a shuffle without transposes"), std::string::npos)
        << plan.error().message;
}

TEST_F(FusedKernels, ValuesOfFixedExtentsAreFoldedAndOthersLeft)
{
    // x [-1, 6]: a range over its fixed extent (Shape, Gather of index 1, Fill) compared with -1 and a range over its
    // batch. The first becomes one constant of its values; the batch's stays computed.
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{2, {-1, 6}});
    ITensor* extents = mNetwork->addShape(*x)->getOutput(0);
    auto const index = [&](int64_t i, Dims dims) {
        mStorage.emplace_back(sizeof(int64_t));
        std::memcpy(mStorage.back().data(), &i, sizeof(i));
        return mNetwork->addConstant(dims, nvinfer1::Weights{DataType::kINT64, mStorage.back().data(), 1})
            ->getOutput(0);
    };
    auto const range = [&](int64_t axis) -> ITensor* {
        auto* gather = mNetwork->addGather(*extents, *index(axis, Dims{0, {}}), 0);
        EXPECT_NE(gather, nullptr) << mLogger.all();
        if (gather == nullptr)
        {
            return nullptr;
        }
        auto* asVector = mNetwork->addShuffle(*gather->getOutput(0));
        asVector->setReshapeDimensions(Dims{1, {1}});
        auto* fill = mNetwork->addFill(Dims{1, {0}}, nvinfer1::FillOperation::kLINSPACE, DataType::kINT64);
        EXPECT_NE(fill, nullptr) << mLogger.all();
        if (fill == nullptr)
        {
            return nullptr;
        }
        fill->setInput(0, *asVector->getOutput(0));
        fill->setAlphaInt64(0);
        fill->setBetaInt64(1);
        return fill->getOutput(0);
    };
    ITensor* columnRange = range(1);
    ITensor* batchRange = range(0);
    ASSERT_NE(columnRange, nullptr);
    ASSERT_NE(batchRange, nullptr);
    ITensor* columns
        = mNetwork->addElementWise(*columnRange, *index(-1, Dims{1, {1}}), nvinfer1::ElementWiseOperation::kGREATER)
              ->getOutput(0);
    auto* row = mNetwork->addShuffle(*columns);
    row->setReshapeDimensions(Dims{2, {1, 6}});
    ITensor* zero = constant(Dims{2, {1, 1}});
    output(mNetwork->addSelect(*row->getOutput(0), *x, *zero)->getOutput(0), "y");
    output(mNetwork->addCast(*batchRange, DataType::kINT32)->getOutput(0), "batch");
    auto* profile = mBuilder->createOptimizationProfile();
    profile->setDimensions("x", nvinfer1::OptProfileSelector::kMIN, Dims{2, {1, 6}});
    profile->setDimensions("x", nvinfer1::OptProfileSelector::kOPT, Dims{2, {2, 6}});
    profile->setDimensions("x", nvinfer1::OptProfileSelector::kMAX, Dims{2, {4, 6}});
    mConfig->addOptimizationProfile(profile);
    EngineModel const model = build();
    int32_t fills = 0;
    LayerRecord const* select = nullptr;
    for (LayerRecord const& layer : model.layers)
    {
        fills += layer.type == LayerType::kFILL ? 1 : 0;
        select = layer.type == LayerType::kSELECT ? &layer : select;
    }
    EXPECT_EQ(fills, 1) << "the batch's range alone";
    ASSERT_NE(select, nullptr);
    int32_t const condition = producerOf(model, select->inputs[0]);
    ASSERT_GE(condition, 0);
    LayerRecord const& folded = model.layers[static_cast<std::size_t>(condition)];
    ASSERT_EQ(folded.type, LayerType::kCONSTANT) << folded.name;
    auto const& values = std::get<ConstantParams>(folded.params);
    EXPECT_EQ(values.weights.type, DataType::kBOOL);
    ASSERT_EQ(values.weights.count, 6);
    auto const* bits = static_cast<uint8_t const*>(values.weights.values);
    EXPECT_TRUE(std::all_of(bits, bits + 6, [](uint8_t b) { return b == 1; }));
    EXPECT_EQ(host::elementCount(values.dims), 6);
}

TEST_F(ExportedAttention, ProbabilitiesReadElsewhereAreNotFused)
{
    attention(DataType::kFLOAT, true, true);
    outputFirst(nvinfer1::LayerType::kSOFTMAX, "probabilities");
    EXPECT_EQ(attentionLayersFused(), 0);
}

TEST_F(ExportedAttention, GuardedProbabilitiesReadElsewhereAreNotFused)
{
    attention(DataType::kFLOAT, true, true);
    outputFirst(nvinfer1::LayerType::kSELECT, "guarded");
    EXPECT_EQ(attentionLayersFused(), 0);
}

TEST_F(ExportedAttention, ScaledQueriesReadElsewhereAreNotFused)
{
    attention(DataType::kFLOAT, true, true);
    outputFirst(nvinfer1::LayerType::kELEMENTWISE, "scaled"); // q times D^-1/4
    EXPECT_EQ(attentionLayersFused(), 0);
}

TEST_F(FusedKernels, ScaleFactorsBeforeTheSplitAndDivisionsFoldIntoTheScale)
{
    // q multiplied before its split, k divided between its reshape and its transpose, the scores divided once more;
    // keys split to [B, H, S, D] and transposed by the product.
    using nvinfer1::ElementWiseOperation;
    ITensor* q = mNetwork->addInput("q", DataType::kFLOAT, Dims{3, {2, 10, 128}});
    ITensor* k = mNetwork->addInput("k", DataType::kFLOAT, Dims{3, {2, 10, 128}});
    ITensor* v = mNetwork->addInput("v", DataType::kFLOAT, Dims{3, {2, 10, 128}});
    auto const scalar = [&](float value, int32_t rank) {
        Dims dims{rank, {1, 1, 1, 1}};
        return mNetwork->addConstant(dims, mScalars(value, DataType::kFLOAT))->getOutput(0);
    };
    nvinfer1::Permutation const swap = headSwap();
    auto const reshape = [&](ITensor* t) {
        auto* layer = mNetwork->addShuffle(*t);
        layer->setReshapeDimensions(Dims{4, {2, 10, 2, 64}});
        return layer->getOutput(0);
    };
    auto const transpose = [&](ITensor* t) {
        auto* layer = mNetwork->addShuffle(*t);
        layer->setFirstTranspose(swap);
        return layer->getOutput(0);
    };
    ITensor* scaledQ = mNetwork->addElementWise(*scalar(0.5F, 3), *q, ElementWiseOperation::kPROD)->getOutput(0);
    ITensor* q4 = transpose(reshape(scaledQ));
    ITensor* k4
        = transpose(mNetwork->addElementWise(*reshape(k), *scalar(4.F, 4), ElementWiseOperation::kDIV)->getOutput(0));
    auto* scores
        = mNetwork->addMatrixMultiply(*q4, nvinfer1::MatrixOperation::kNONE, *k4, nvinfer1::MatrixOperation::kTRANSPOSE)
              ->getOutput(0);
    auto* divided = mNetwork->addElementWise(*scores, *scalar(2.F, 4), ElementWiseOperation::kDIV)->getOutput(0);
    auto* softmax = mNetwork->addSoftMax(*divided);
    softmax->setAxes(1U << 3);
    auto* context = mNetwork
                        ->addMatrixMultiply(*softmax->getOutput(0), nvinfer1::MatrixOperation::kNONE,
                            *transpose(reshape(v)), nvinfer1::MatrixOperation::kNONE)
                        ->getOutput(0);
    auto* merge = mNetwork->addShuffle(*context);
    merge->setFirstTranspose(swap);
    merge->setReshapeDimensions(Dims{3, {2, 10, 128}});
    output(merge->getOutput(0), "o");
    EngineModel const model = build();
    ASSERT_EQ(model.layers.size(), 1U);
    ASSERT_TRUE(model.layers[0].fused.has_value());
    EXPECT_FLOAT_EQ(model.layers[0].fused->scale, 0.5F / 4.F / 2.F);
    EXPECT_EQ(inputNames(model, model.layers[0]), (std::vector<std::string>{"q", "k", "v"}));
}

TEST_F(FusedKernels, AnAttentionPlanWithoutTheNewFieldsLoadsAsBefore)
{
    // A plan of an attention without mask or guard holds neither a fourth input nor zero_masked_rows (its default is
    // not written), so it is the plan an earlier kiln wrote; it loads with masked rows NaN, as before.
    ITensor* q = mNetwork->addInput("q", DataType::kFLOAT, Dims{3, {2, 8, 64}});
    output(primitiveAttention(*mNetwork, *q, *q, *q, 4, 0.125F, mScalars), "o");
    EngineModel model = build();
    ASSERT_EQ(model.layers.size(), 1U);
    EXPECT_FALSE(model.layers[0].fused->zeroMaskedRows);
    EngineModel const loaded = throughAPlan(model);
    ASSERT_EQ(loaded.layers.size(), 1U);
    EXPECT_EQ(loaded.layers[0].inputs.size(), 3U);
    EXPECT_FALSE(loaded.layers[0].fused->zeroMaskedRows);

    // A fused attention of 5 inputs is refused by name.
    model.layers[0].inputs.push_back(model.layers[0].inputs[0]);
    model.layers[0].inputs.push_back(model.layers[0].inputs[0]);
    auto const refused = encodeEngine(model);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("3 or 4 inputs (q, k, v, mask)"), std::string::npos)
        << refused.error().message;
}

//! The ONNX parser's Attention (opset 23) on 3-D Q, K, V [2, 8, 64] with 4 heads, parsed into network. The parser
//! holds the network's weights: keep it until the network is built (as TensorRT's parser must be kept).
std::unique_ptr<nvonnxparser::IParser> parseOnnxAttention(
    nvinfer1::INetworkDefinition& network, nvinfer1::ILogger& logger, bool causal)
{
    onnx_test::ModelBuilder m(23);
    for (char const* name : {"q", "k", "v"})
    {
        m.input(name, {2, 8, 64});
    }
    auto& node = m.node("Attention", {"q", "k", "v"}, {"o"}, "attention");
    onnx_test::attrInt(node, "q_num_heads", 4);
    onnx_test::attrInt(node, "kv_num_heads", 4);
    onnx_test::attrInt(node, "is_causal", causal ? 1 : 0);
    m.output("o");
    std::unique_ptr<nvonnxparser::IParser> parser{nvonnxparser::createParser(network, logger)};
    std::string const bytes = m.bytes();
    EXPECT_TRUE(parser->parse(bytes.data(), bytes.size()));
    return parser;
}

//! The attention of one layer of BERT as transformers exports it (ONNX opset 17, the SDPA path; as in a real export of
//! bert-base, with D 64 and 2 heads of width 128): projections with their bias, head splits whose shapes come from
//! Shape, Gather, Unsqueeze and Concat of the input (a dynamic batch), q and k each times D^-1/4, the scores plus
//! Where(mask, 0, -inf) (a BOOL mask input; or a FLOAT one, added as it is), the softmax, the NaN guard
//! Where(IsNaN(p), 0, p), the context and the head merge.
onnx_test::ModelBuilder exportedAttentionModel(bool boolMask, bool paddingMask = false)
{
    using onnx_test::floatTensor;
    using onnx_test::int64Tensor;
    onnx_test::ModelBuilder m(17);
    m.input("x", {-1, 12, 128});
    if (paddingMask)
    {
        // transformers' padding mask (masking_utils, the SDPA path): attention_mask [B, S] as bool [B, 1, 1, S],
        // And-ed with queries >= 0 over a range of the sequence length ([1, 1, S, 1], true everywhere), expanded to
        // the shape it has.
        m.input("attention_mask", {-1, 12}, ::onnx::TensorProto::INT64);
        onnx_test::attrInt(m.node("Cast", {"attention_mask"}, {"keep"}), "to", ::onnx::TensorProto::BOOL);
        m.initializer(int64Tensor("mask_axes", {2}, {1, 2}));
        m.node("Unsqueeze", {"keep", "mask_axes"}, {"keep4"});
        m.initializer(int64Tensor("range_start", {}, {0}));
        m.initializer(int64Tensor("range_step", {}, {1}));
        m.initializer(int64Tensor("length_index", {}, {1}));
        m.node("Shape", {"x"}, {"x_shape"});
        m.node("Gather", {"x_shape", "length_index"}, {"queries_count"});
        m.node("Range", {"range_start", "queries_count", "range_step"}, {"queries"});
        m.initializer(int64Tensor("query_axes", {3}, {0, 1, 3}));
        m.node("Unsqueeze", {"queries", "query_axes"}, {"queries4"});
        m.node("GreaterOrEqual", {"queries4", "range_start"}, {"queries_valid"});
        m.node("And", {"queries_valid", "keep4"}, {"both"});
        m.node("Shape", {"both"}, {"both_shape"});
        m.node("Expand", {"both", "both_shape"}, {"mask"});
    }
    else
    {
        m.input("mask", {-1, 1, 12, 12}, boolMask ? ::onnx::TensorProto::BOOL : ::onnx::TensorProto::FLOAT);
    }
    std::vector<float> const weights(128 * 128, 0.01F);
    std::vector<float> const bias(128, 0.1F);
    for (char const* name : {"q", "k", "v"})
    {
        std::string const n = name;
        m.initializer(floatTensor("W" + n, {128, 128}, weights));
        m.initializer(floatTensor("b" + n, {128}, bias));
        m.node("MatMul", {"x", "W" + n}, {n + "_mm"});
        m.node("Add", {"b" + n, n + "_mm"}, {n + "_flat"});
    }
    m.initializer(int64Tensor("zero", {}, {0}));
    m.initializer(int64Tensor("one", {}, {1}));
    m.initializer(int64Tensor("axes", {1}, {0}));
    m.initializer(int64Tensor("minus_one", {1}, {-1}));
    m.initializer(int64Tensor("head_size", {1}, {64}));
    m.node("Shape", {"x"}, {"shape"});
    m.node("Gather", {"shape", "zero"}, {"batch"});
    m.node("Gather", {"shape", "one"}, {"length"});
    m.node("Unsqueeze", {"batch", "axes"}, {"batch1"});
    m.node("Unsqueeze", {"length", "axes"}, {"length1"});
    onnx_test::attrInt(m.node("Concat", {"batch1", "length1", "minus_one", "head_size"}, {"split_shape"}), "axis", 0);
    auto const split = [&](std::string const& n, std::vector<int64_t> const& perm) {
        m.node("Reshape", {n + "_flat", "split_shape"}, {n + "_heads"});
        onnx_test::attrInts(m.node("Transpose", {n + "_heads"}, {n + "4"}), "perm", perm);
    };
    split("q", {0, 2, 1, 3});
    split("k", {0, 2, 3, 1});
    split("v", {0, 2, 1, 3});
    float const root = 1.F / std::sqrt(std::sqrt(64.F));
    m.initializer(floatTensor("c6", {}, {root}));
    m.initializer(floatTensor("c7", {}, {root}));
    m.node("Mul", {"q4", "c6"}, {"qs"});
    m.node("Mul", {"k4", "c7"}, {"ks"});
    m.node("MatMul", {"qs", "ks"}, {"scores"});
    m.initializer(floatTensor("c8", {1}, {0.F}));
    m.initializer(floatTensor("c9", {1}, {-std::numeric_limits<float>::infinity()}));
    if (boolMask || paddingMask)
    {
        m.node("Where", {"mask", "c8", "c9"}, {"additive"});
    }
    m.node("Add", {"scores", boolMask || paddingMask ? "additive" : "mask"}, {"masked"});
    onnx_test::attrInt(m.node("Softmax", {"masked"}, {"p"}), "axis", -1);
    m.node("IsNaN", {"p"}, {"nan"});
    m.initializer(floatTensor("c10", {1}, {0.F}));
    m.node("Where", {"nan", "c10", "p"}, {"p2"});
    m.node("MatMul", {"p2", "v4"}, {"context"});
    onnx_test::attrInts(m.node("Transpose", {"context"}, {"merged4"}), "perm", {0, 2, 1, 3});
    onnx_test::attrInt(m.node("Concat", {"batch1", "length1", "minus_one"}, {"merge_shape"}), "axis", 0);
    m.node("Reshape", {"merged4", "merge_shape"}, {"o"});
    m.output("o");
    return m;
}

//! exportedAttentionModel(true) parsed into network; the parser holds the weights.
std::unique_ptr<nvonnxparser::IParser> parseExportedAttention(
    nvinfer1::INetworkDefinition& network, nvinfer1::ILogger& logger)
{
    std::unique_ptr<nvonnxparser::IParser> parser{nvonnxparser::createParser(network, logger)};
    std::string const bytes = exportedAttentionModel(true).bytes();
    EXPECT_TRUE(parser->parse(bytes.data(), bytes.size()));
    return parser;
}

TEST(ExportedAttentionOnTheHost, AFullyMaskedRowGivesZerosThroughTheGuard)
{
    // The unfused layers on the host backend, the reference the fused kernel is compared with on a GPU
    // (tests/engine/cuda_engine_test.cpp): query 3 sees no key (every score -inf), so its softmax row is NaN and the
    // guard makes it zeros; query 5 sees keys 0 to 5 only, an ordinary row.
    onnx_test::Harness harness;
    ASSERT_TRUE(harness.parse(exportedAttentionModel(false))) << harness.errors();
    float const infinity = std::numeric_limits<float>::infinity();
    std::vector<float> mask(12 * 12, 0.F);
    for (int32_t key = 0; key < 12; ++key)
    {
        mask[static_cast<std::size_t>(3 * 12 + key)] = -infinity;
        mask[static_cast<std::size_t>(5 * 12 + key)] = key > 5 ? -infinity : 0.F;
    }
    std::vector<float> x(12 * 128);
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        x[i] = static_cast<float>(i % 17) * 0.1F - 0.8F;
    }
    auto const outputs = harness.run({{"x", {{1, 12, 128}, x}}, {"mask", {{1, 1, 12, 12}, mask}}});
    ASSERT_EQ(outputs.count("o"), 1U) << harness.lastFailure();
    std::vector<float> const& o = outputs.at("o").values;
    ASSERT_EQ(o.size(), 12U * 128U);
    for (std::size_t row = 0; row < 12; ++row)
    {
        for (std::size_t c = 0; c < 128; ++c)
        {
            float const value = o[row * 128 + c];
            if (row == 3)
            {
                EXPECT_EQ(value, 0.F) << "column " << c;
            }
            else
            {
                EXPECT_TRUE(std::isfinite(value)) << "row " << row << " column " << c;
            }
        }
    }
}

TEST_F(FusedKernels, OnnxAttentionAsTransformersExportsItFuses)
{
    auto const parser = parseExportedAttention(*mNetwork, mLogger);
    addBatchProfile({{"x", Dims{3, {1, 12, 128}}}, {"mask", Dims{4, {1, 1, 12, 12}}}});
    EngineModel model = build(PlanBackend::kHOST);
    model.backend = PlanBackend::kCUDA;
    foldConstantReshapes(model);
    fuseEpilogues(model);
    fuseAttention(model);
    std::vector<LayerRecord const*> const fused = fusedLayers(model);
    ASSERT_EQ(fused.size(), 1U);
    LayerRecord const& attention = *fused.front();
    EXPECT_EQ(attention.fused->heads, 2);
    EXPECT_NEAR(attention.fused->scale, 0.125F, 1e-6F);
    EXPECT_TRUE(attention.fused->zeroMaskedRows);
    ASSERT_EQ(attention.inputs.size(), 4U);
    // q, k and v: the three projections with their bias folded; the mask: the Where's result.
    for (std::size_t i = 0; i < 3; ++i)
    {
        LayerRecord const& projection = model.layers[static_cast<std::size_t>(producerOf(model, attention.inputs[i]))];
        EXPECT_EQ(projection.type, nvinfer1::LayerType::kMATRIX_MULTIPLY);
        EXPECT_EQ(projection.inputs.size(), 3U) << "the bias folded";
    }
    EXPECT_EQ(model.layers[static_cast<std::size_t>(producerOf(model, attention.inputs[3]))].type,
        nvinfer1::LayerType::kSELECT);
    EXPECT_EQ(model.tensors[static_cast<std::size_t>(attention.outputs[0])].name, "o");
    for (LayerRecord const& layer : model.layers)
    {
        EXPECT_NE(layer.type, nvinfer1::LayerType::kSOFTMAX) << layer.name;
        EXPECT_NE(layer.type, nvinfer1::LayerType::kUNARY) << layer.name;
    }
}

TEST_F(FusedKernels, OnnxPaddingMaskAsTransformersExportsItIsNarrowed)
{
    // Through the ONNX parser, the batch known only at run time: the queries' range folds to a constant true
    // everywhere (foldStaticValues), the Expand keeps the parser's select(extents == 1, ...) form over kSHAPE, and the
    // Where that makes the mask reads the [B, 1, 1, S] padding mask itself (narrowAttentionMasks).
    onnx_test::ModelBuilder const onnx = exportedAttentionModel(true, true);
    std::unique_ptr<nvonnxparser::IParser> parser{nvonnxparser::createParser(*mNetwork, mLogger)};
    std::string const bytes = onnx.bytes();
    ASSERT_TRUE(parser->parse(bytes.data(), bytes.size()));
    addBatchProfile({{"x", Dims{3, {1, 12, 128}}}, {"attention_mask", Dims{2, {1, 12}}}});
    EngineModel model = build(PlanBackend::kHOST);
    model.backend = PlanBackend::kCUDA;
    foldConstantReshapes(model);
    EXPECT_GT(foldStaticValues(model), 0);
    fuseEpilogues(model);
    fuseAttention(model);
    EXPECT_EQ(narrowAttentionMasks(model), 1);
    removeUnreadLayers(model);
    std::vector<LayerRecord const*> const fused = fusedLayers(model);
    ASSERT_EQ(fused.size(), 1U);
    ASSERT_EQ(fused.front()->inputs.size(), 4U);
    std::vector<uint32_t> const& mask = model.tensors[static_cast<std::size_t>(fused.front()->inputs[3])].shape;
    ASSERT_EQ(mask.size(), 4U);
    EXPECT_FALSE(constantExtent(model, mask[0]).has_value()) << "the batch";
    EXPECT_EQ(constantExtent(model, mask[1]), 1);
    EXPECT_EQ(constantExtent(model, mask[2]), 1) << "one row for every query";
    EXPECT_EQ(constantExtent(model, mask[3]), 12);
    for (LayerRecord const& layer : model.layers)
    {
        EXPECT_NE(layer.type, nvinfer1::LayerType::kSLICE) << layer.name << ": the Expand";
        EXPECT_NE(layer.type, nvinfer1::LayerType::kFILL) << layer.name << ": the queries' range";
        EXPECT_NE(elementWiseOp(layer), nvinfer1::ElementWiseOperation::kAND) << layer.name;
    }
}

TEST_F(FusedKernels, OnnxAttentionOfThreeDimensionalInputsFuses)
{
    // Splits of q, k and v, the scores (with the scale folded in), the softmax and the merge: six layers absorbed.
    auto const parser = parseOnnxAttention(*mNetwork, mLogger, false);
    EXPECT_EQ(attentionLayersFused(), 6);
}

TEST_F(FusedKernels, OnnxCausalAttentionStaysComposed)
{
    auto const parser = parseOnnxAttention(*mNetwork, mLogger, true);
    EXPECT_EQ(attentionLayersFused(), 0);
}

TEST_F(FusedKernels, APlanWithABrokenFusedKernelIsRefused)
{
    ITensor* q = mNetwork->addInput("q", DataType::kFLOAT, Dims{3, {2, 8, 64}});
    output(primitiveAttention(*mNetwork, *q, *q, *q, 4, 0.125F, mScalars), "o");
    EngineModel model = build();
    ASSERT_EQ(model.layers.size(), 1U);
    // The writer checks the model as the reader does: neither takes a fused kernel that cannot run.
    model.layers[0].fused->heads = 0;
    auto const plan = encodeEngine(model);
    ASSERT_FALSE(plan.ok());
    EXPECT_NE(plan.error().message.find("fused attention with 0 heads"), std::string::npos) << plan.error().message;

    model.layers[0].fused->heads = 4;
    model.backend = PlanBackend::kHOST;
    auto const hostPlan = encodeEngine(model);
    ASSERT_FALSE(hostPlan.ok());
    EXPECT_NE(hostPlan.error().message.find("only CUDA engines have them"), std::string::npos)
        << hostPlan.error().message;
}

TEST_F(FusedKernels, ReshapedConstantsBecomeConstantsAndTheBiasThenFusesIntoTheProduct)
{
    // x [2, 4, 8] times W [8, 8] plus b [8], broadcast by reshapes as the ONNX importer broadcasts initializers.
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{3, {2, 4, 8}});
    nvinfer1::IShuffleLayer* w = mNetwork->addShuffle(*constant(Dims{2, {8, 8}}));
    w->setReshapeDimensions(Dims{3, {1, 8, 8}});
    nvinfer1::IShuffleLayer* b = mNetwork->addShuffle(*constant(Dims{1, {8}}));
    b->setReshapeDimensions(Dims{3, {1, 1, 8}});
    // A reshape with a transpose moves data: it stays a shuffle.
    nvinfer1::IShuffleLayer* t = mNetwork->addShuffle(*constant(Dims{2, {8, 8}}));
    t->setFirstTranspose(nvinfer1::Permutation{{1, 0}});
    t->setReshapeDimensions(Dims{3, {1, 8, 8}});
    auto* product = mNetwork->addMatrixMultiply(
        *x, nvinfer1::MatrixOperation::kNONE, *w->getOutput(0), nvinfer1::MatrixOperation::kNONE);
    auto* sum
        = mNetwork->addElementWise(*product->getOutput(0), *b->getOutput(0), nvinfer1::ElementWiseOperation::kSUM);
    auto* second = mNetwork->addMatrixMultiply(
        *sum->getOutput(0), nvinfer1::MatrixOperation::kNONE, *t->getOutput(0), nvinfer1::MatrixOperation::kNONE);
    second->setName("second");
    output(second->getOutput(0), "y");
    EngineModel model = build(PlanBackend::kHOST);
    model.backend = PlanBackend::kCUDA;
    EXPECT_EQ(foldConstantReshapes(model), 2);
    int32_t shuffles = 0;
    for (LayerRecord const& layer : model.layers)
    {
        shuffles += layer.type == nvinfer1::LayerType::kSHUFFLE ? 1 : 0;
        if (auto const* folded = std::get_if<ConstantParams>(&layer.params); folded && folded->dims.nbDims == 3)
        {
            EXPECT_TRUE(layer.inputs.empty());
            EXPECT_EQ(folded->dims.d[0], 1);
            EXPECT_EQ(folded->weights.count, folded->dims.d[1] * folded->dims.d[2]);
        }
    }
    EXPECT_EQ(shuffles, 1) << "the transposing reshape";
    fuseEpilogues(model);
    removeUnreadLayers(model);
    auto const first = std::find_if(model.layers.begin(), model.layers.end(), [](LayerRecord const& layer) {
        return layer.type == nvinfer1::LayerType::kMATRIX_MULTIPLY && layer.name != "second";
    });
    ASSERT_NE(first, model.layers.end());
    ASSERT_EQ(first->inputs.size(), 3U) << "the bias became the product's third input";
    EXPECT_EQ(
        model.layers[static_cast<std::size_t>(model.tensors[static_cast<std::size_t>(first->inputs[2])].producer)].type,
        nvinfer1::LayerType::kCONSTANT);
    EXPECT_TRUE(encodeEngine(model).ok());
}

//! The layers of model whose names contain text.
int32_t layersNamed(EngineModel const& model, std::string const& text)
{
    return static_cast<int32_t>(std::count_if(model.layers.begin(), model.layers.end(),
        [&](LayerRecord const& layer) { return layer.name.find(text) != std::string::npos; }));
}

TEST_F(FusedKernels, ResidualBlocksFuseIntoConvolutionsAndRunChannelsLastBetweenThePoolings)
{
    // Two ResNet-like blocks in half, made for the host, then put through a CUDA build's fusions and layouts (a CUDA
    // build would time the convolutions on a GPU).
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{4, {2, 16, 8, 8}});
    ITensor* h = mNetwork->addCast(*x, DataType::kHALF)->getOutput(0);
    std::vector<std::vector<float>> weights;
    ITensor* y = residualBlocks(*mNetwork, *h, [&](int64_t count) {
        weights.emplace_back(static_cast<std::size_t>(count), 0.25F);
        return nvinfer1::Weights{DataType::kFLOAT, weights.back().data(), count};
    });
    output(mNetwork->addCast(*y, DataType::kFLOAT)->getOutput(0), "y");
    EngineModel model = build(PlanBackend::kHOST);
    model.backend = PlanBackend::kCUDA;
    fuseEpilogues(model);
    EXPECT_EQ(fuseConvolutionResiduals(model), 4) << "two sums and two ReLUs";
    fusePointwise(model);
    for (LayerRecord const& layer : model.layers)
    {
        EXPECT_NE(layer.type, nvinfer1::LayerType::kELEMENTWISE) << layer.name;
        EXPECT_NE(layer.type, nvinfer1::LayerType::kACTIVATION) << layer.name;
    }
    // Block 1's sum fuses into its last convolution, block 2's into the shortcut's (it runs after b2c2).
    for (char const* const name : {"b1c3", "b2ds"})
    {
        auto const conv = std::find_if(
            model.layers.begin(), model.layers.end(), [&](LayerRecord const& layer) { return layer.name == name; });
        ASSERT_NE(conv, model.layers.end()) << name;
        ASSERT_EQ(conv->inputs.size(), kConvolutionResidualInput + 1) << name;
        EXPECT_TRUE(conv->epilogue.has_value()) << name;
    }
    // Channels-last from the first pooling to the second: a reformat at each end and none inside.
    EXPECT_EQ(chooseConvolutionLayouts(model), 6);
    EXPECT_EQ(layersNamed(model, "to kHWC8"), 1);
    EXPECT_EQ(layersNamed(model, "from kHWC8"), 1);
}

} // namespace
} // namespace kiln
