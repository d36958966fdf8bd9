// SPDX-License-Identifier: Apache-2.0
// Reduced precision in weakly typed networks (builder/precision.h), through the public API on the host backend: with
// kFP16 (kBF16) the layers that can compute in the 16-bit type do, the constants they read are stored in it, casts
// go where a tensor meets a reader of the other type, accuracy-sensitive sums stay kFLOAT, I/O keeps its types;
// kOBEY / kPREFER_PRECISION_CONSTRAINTS with setPrecision keep a layer where the application put it; a strongly
// typed network is left alone. The engine built with kFP16 rounds to half where the fp32 one does not.
#include "builder/build.h"
#include "builder/builder_config.h"
#include "core/logging.h"
#include "network/network.h"

#include "support/api_test.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace kiln
{
namespace
{

using nvinfer1::BuilderFlag;
using nvinfer1::DataType;
using nvinfer1::ITensor;

//! x [2, 8] -> matmul by a constant w [8, 8] -> ReLU -> sum over axis 1 -> y [2, 1]; also the ReLU's result r.
class Precision : public ::testing::Test
{
protected:
    void SetUp() override { make(0); }
    void TearDown() override
    {
        mConfig.reset();
        mNetwork.reset();
        mBuilder.reset();
        setLogger(nullptr);
    }

    void make(nvinfer1::NetworkDefinitionCreationFlags flags, bool dynamicBatch = false)
    {
        mConfig.reset();
        mNetwork.reset();
        mBuilder.reset(nvinfer1::createInferBuilder(mLogger));
        mNetwork.reset(mBuilder->createNetworkV2(flags));
        mConfig.reset(mBuilder->createBuilderConfig());
        mWeights.resize(64);
        for (std::size_t i = 0; i < mWeights.size(); ++i)
        {
            mWeights[i] = static_cast<float>(static_cast<int>(i % 7) - 3) / 8.F;
        }
        ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{2, {dynamicBatch ? -1 : 2, 8}});
        if (dynamicBatch)
        {
            nvinfer1::IOptimizationProfile* profile = mBuilder->createOptimizationProfile();
            profile->setDimensions("x", nvinfer1::OptProfileSelector::kMIN, Dims{2, {1, 8}});
            profile->setDimensions("x", nvinfer1::OptProfileSelector::kOPT, Dims{2, {2, 8}});
            profile->setDimensions("x", nvinfer1::OptProfileSelector::kMAX, Dims{2, {4, 8}});
            mConfig->addOptimizationProfile(profile);
        }
        auto* w = mNetwork->addConstant(Dims{2, {8, 8}}, Weights{DataType::kFLOAT, mWeights.data(), 64});
        w->setName("w");
        mMatmul = mNetwork->addMatrixMultiply(
            *x, nvinfer1::MatrixOperation::kNONE, *w->getOutput(0), nvinfer1::MatrixOperation::kNONE);
        mMatmul->setName("matmul");
        auto* relu = mNetwork->addActivation(*mMatmul->getOutput(0), nvinfer1::ActivationType::kRELU);
        relu->setName("relu");
        relu->getOutput(0)->setName("r");
        auto* sum = mNetwork->addReduce(*relu->getOutput(0), nvinfer1::ReduceOperation::kSUM, 2U, true);
        sum->setName("sum");
        sum->getOutput(0)->setName("y");
        mNetwork->markOutput(*relu->getOutput(0));
        mNetwork->markOutput(*sum->getOutput(0));
    }

    EngineModel built()
    {
        auto model = buildEngineModel(Network::of(*mNetwork), BuilderConfig::of(*mConfig).settings());
        EXPECT_TRUE(model.ok()) << (model.ok() ? "" : model.error().message) << mLogger.all();
        return model.ok() ? std::move(model.value()) : EngineModel{};
    }

    //! The layer named name, or nullptr.
    static LayerRecord const* layer(EngineModel const& model, std::string const& name)
    {
        auto const found = std::find_if(
            model.layers.begin(), model.layers.end(), [&](LayerRecord const& l) { return l.name == name; });
        return found == model.layers.end() ? nullptr : &*found;
    }
    static DataType outputType(EngineModel const& model, LayerRecord const& l, std::size_t index = 0)
    {
        return model.tensors[static_cast<std::size_t>(l.outputs.at(index))].type;
    }
    static DataType inputType(EngineModel const& model, LayerRecord const& l, std::size_t index)
    {
        return model.tensors[static_cast<std::size_t>(l.inputs.at(index))].type;
    }

    //! Whether a message of severity contains fragment.
    bool logged(nvinfer1::ILogger::Severity severity, std::string const& fragment) const
    {
        auto const messages = mLogger.messages(severity);
        return std::any_of(messages.begin(), messages.end(),
            [&](std::string const& m) { return m.find(fragment) != std::string::npos; });
    }

    //! Runs a serialized build on the host backend; returns r and y.
    std::pair<std::vector<float>, std::vector<float>> run(std::vector<float> const& x)
    {
        std::unique_ptr<nvinfer1::IHostMemory> plan{mBuilder->buildSerializedNetwork(*mNetwork, *mConfig)};
        EXPECT_NE(plan, nullptr) << mLogger.all();
        if (plan == nullptr)
        {
            return {};
        }
        std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(mLogger)};
        std::unique_ptr<nvinfer1::ICudaEngine> engine{runtime->deserializeCudaEngine(plan->data(), plan->size())};
        EXPECT_NE(engine, nullptr) << mLogger.all();
        std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
        std::vector<float> r(16, -1.F);
        std::vector<float> y(2, -1.F);
        EXPECT_TRUE(context->setTensorAddress("x", const_cast<float*>(x.data())));
        EXPECT_TRUE(context->setTensorAddress("r", r.data()));
        EXPECT_TRUE(context->setTensorAddress("y", y.data()));
        EXPECT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
        return {r, y};
    }

    test::TestLogger mLogger;
    std::unique_ptr<nvinfer1::IBuilder> mBuilder;
    std::unique_ptr<nvinfer1::INetworkDefinition> mNetwork;
    std::unique_ptr<nvinfer1::IBuilderConfig> mConfig;
    nvinfer1::IMatrixMultiplyLayer* mMatmul{};
    std::vector<float> mWeights;
};

TEST_F(Precision, WithoutAFlagEverythingStaysFloat)
{
    EngineModel const model = built();
    for (TensorRecord const& tensor : model.tensors)
    {
        EXPECT_EQ(tensor.type, DataType::kFLOAT) << tensor.name;
    }
    EXPECT_EQ(std::count_if(model.layers.begin(), model.layers.end(),
                  [](LayerRecord const& l) { return l.type == LayerType::kCAST; }),
        0);
}

TEST_F(Precision, Fp16ComputesTheProductAndActivationInHalfAndKeepsTheSumAndTheIoInFloat)
{
    mConfig->setFlag(BuilderFlag::kFP16);
    EngineModel const model = built();
    LayerRecord const* matmul = layer(model, "matmul");
    LayerRecord const* relu = layer(model, "relu");
    LayerRecord const* sum = layer(model, "sum");
    LayerRecord const* w = layer(model, "w");
    ASSERT_TRUE(matmul && relu && sum && w);
    // The input is cast to half before the product; the constant is stored in half.
    LayerRecord const* castIn = layer(model, "matmul input 0 to kHALF");
    ASSERT_NE(castIn, nullptr);
    EXPECT_EQ(std::get<CastParams>(castIn->params).toType, DataType::kHALF);
    EXPECT_EQ(inputType(model, *matmul, 0), DataType::kHALF);
    EXPECT_EQ(inputType(model, *matmul, 1), DataType::kHALF);
    EXPECT_EQ(std::get<ConstantParams>(w->params).weights.type, DataType::kHALF);
    EXPECT_EQ(outputType(model, *matmul), DataType::kHALF);
    // The ReLU makes a network output: it computes in half into a twin, cast to the float output after it.
    EXPECT_EQ(outputType(model, *relu), DataType::kHALF);
    LayerRecord const* castOut = layer(model, "relu output 0 to kFLOAT");
    ASSERT_NE(castOut, nullptr);
    EXPECT_EQ(model.tensors[static_cast<std::size_t>(castOut->outputs[0])].name, "r");
    EXPECT_EQ(model.tensors[static_cast<std::size_t>(castOut->outputs[0])].type, DataType::kFLOAT);
    // The sum stays float: it reads the float output the cast makes, no second cast.
    EXPECT_EQ(inputType(model, *sum, 0), DataType::kFLOAT);
    EXPECT_EQ(sum->inputs[0], castOut->outputs[0]);
    EXPECT_EQ(layer(model, "sum input 0 to kFLOAT"), nullptr);
    EXPECT_EQ(outputType(model, *sum), DataType::kFLOAT);
    for (int32_t io : model.ioTensors)
    {
        EXPECT_EQ(model.tensors[static_cast<std::size_t>(io)].type, DataType::kFLOAT);
    }
}

// BERT's last hidden state: a network output in float, also read by a layer that computes in half (the pooler). That
// reader takes the half twin the layer wrote, not the float output cast back to half.
TEST_F(Precision, AHalfReaderOfAFloatOutputReadsTheHalfTwinItCameFrom)
{
    mConfig->setFlag(BuilderFlag::kFP16);
    auto* sigmoid = mNetwork->addActivation(*mNetwork->getOutput(0), nvinfer1::ActivationType::kSIGMOID);
    sigmoid->setName("sigmoid");
    sigmoid->getOutput(0)->setName("s");
    mNetwork->markOutput(*sigmoid->getOutput(0));
    EngineModel const model = built();
    LayerRecord const* relu = layer(model, "relu");
    LayerRecord const* reader = layer(model, "sigmoid");
    ASSERT_TRUE(relu && reader);
    EXPECT_EQ(inputType(model, *reader, 0), DataType::kHALF);
    EXPECT_EQ(reader->inputs[0], relu->outputs[0]);
    EXPECT_EQ(layer(model, "sigmoid input 0 to kHALF"), nullptr);
    EXPECT_NE(layer(model, "relu output 0 to kFLOAT"), nullptr) << "r itself stays float";
}

// An input's extents read as symbols are not values read: a dynamic input is cast like a static one.
TEST_F(Precision, ADynamicInputIsCastToo)
{
    make(0, true);
    mConfig->setFlag(BuilderFlag::kFP16);
    EngineModel const model = built();
    LayerRecord const* matmul = layer(model, "matmul");
    ASSERT_NE(matmul, nullptr);
    EXPECT_NE(layer(model, "matmul input 0 to kHALF"), nullptr);
    EXPECT_EQ(inputType(model, *matmul, 0), DataType::kHALF);
    EXPECT_EQ(outputType(model, *matmul), DataType::kHALF);
}

TEST_F(Precision, Bf16AloneGivesBfloat16)
{
    mConfig->setFlag(BuilderFlag::kBF16);
    EngineModel const model = built();
    LayerRecord const* matmul = layer(model, "matmul");
    ASSERT_NE(matmul, nullptr);
    EXPECT_EQ(outputType(model, *matmul), DataType::kBF16);
    EXPECT_NE(layer(model, "matmul input 0 to kBF16"), nullptr);
}

TEST_F(Precision, ObeyedConstraintKeepsALayerInFloat)
{
    mConfig->setFlag(BuilderFlag::kFP16);
    mConfig->setFlag(BuilderFlag::kOBEY_PRECISION_CONSTRAINTS);
    mMatmul->setPrecision(DataType::kFLOAT);
    EngineModel const model = built();
    LayerRecord const* matmul = layer(model, "matmul");
    LayerRecord const* relu = layer(model, "relu");
    ASSERT_TRUE(matmul && relu);
    EXPECT_EQ(outputType(model, *matmul), DataType::kFLOAT);
    EXPECT_EQ(inputType(model, *matmul, 1), DataType::kFLOAT); // the constant stays float for its float reader
    EXPECT_EQ(outputType(model, *relu), DataType::kHALF);
}

TEST_F(Precision, WithoutAConstraintFlagSetPrecisionIsAHintTheBuilderMayOverride)
{
    mConfig->setFlag(BuilderFlag::kFP16);
    mMatmul->setPrecision(DataType::kFLOAT);
    EngineModel const model = built();
    LayerRecord const* matmul = layer(model, "matmul");
    ASSERT_NE(matmul, nullptr);
    EXPECT_EQ(outputType(model, *matmul), DataType::kHALF);
}

TEST_F(Precision, AnOutputTypeTheApplicationSetIsKeptThroughACast)
{
    mConfig->setFlag(BuilderFlag::kFP16);
    mMatmul->setOutputType(0, DataType::kFLOAT);
    mMatmul->getOutput(0)->setName("product");
    EngineModel const model = built();
    LayerRecord const* matmul = layer(model, "matmul");
    LayerRecord const* cast = layer(model, "matmul output 0 to kFLOAT");
    ASSERT_TRUE(matmul && cast);
    EXPECT_EQ(outputType(model, *matmul), DataType::kHALF);
    EXPECT_EQ(model.tensors[static_cast<std::size_t>(cast->outputs[0])].name, "product");
    EXPECT_EQ(outputType(model, *cast), DataType::kFLOAT);
}

TEST_F(Precision, AStronglyTypedNetworkIgnoresTheFlagWithAWarning)
{
    make(1U << static_cast<uint32_t>(nvinfer1::NetworkDefinitionCreationFlag::kSTRONGLY_TYPED));
    mConfig->setFlag(BuilderFlag::kFP16);
    EngineModel const model = built();
    for (TensorRecord const& tensor : model.tensors)
    {
        EXPECT_EQ(tensor.type, DataType::kFLOAT) << tensor.name;
    }
    EXPECT_TRUE(logged(nvinfer1::ILogger::Severity::kWARNING, "kFP16 is ignored: the network is strongly typed"))
        << mLogger.all();
}

TEST_F(Precision, WeightsBeyondTheHalfRangeAreClampedWithAWarning)
{
    make(0);
    // An attention mask's bias: the most negative float where masked, 0 elsewhere; added to the product.
    static float const bias[8] = {-3.4028235e38F, 0.F, -1e30F, 0.F, 0.F, 0.F, 0.F, 70000.F};
    auto* mask = mNetwork->addConstant(Dims{2, {1, 8}}, Weights{DataType::kFLOAT, bias, 8});
    mask->setName("mask");
    auto* add
        = mNetwork->addElementWise(*mMatmul->getOutput(0), *mask->getOutput(0), nvinfer1::ElementWiseOperation::kSUM);
    add->setName("masked");
    add->getOutput(0)->setName("masked");
    mNetwork->markOutput(*add->getOutput(0));
    mConfig->setFlag(BuilderFlag::kFP16);
    EngineModel const model = built();
    LayerRecord const* constant = layer(model, "mask");
    ASSERT_NE(constant, nullptr);
    Weights const& weights = std::get<ConstantParams>(constant->params).weights;
    ASSERT_EQ(weights.type, DataType::kHALF);
    auto const* bits = static_cast<uint16_t const*>(weights.values);
    EXPECT_EQ(bits[0], 0xFBFF); // -65504
    EXPECT_EQ(bits[2], 0xFBFF);
    EXPECT_EQ(bits[1], 0x0000);
    EXPECT_EQ(bits[7], 0x7BFF); // 65504
    EXPECT_TRUE(
        logged(nvinfer1::ILogger::Severity::kWARNING, "layer 'mask': 3 of 8 weights are beyond the range of kHALF"))
        << mLogger.all();
}

TEST_F(Precision, FlagsKilnDoesNotActOnAreSaidToBeIgnored)
{
    mConfig->setFlag(BuilderFlag::kINT8);
    EngineModel const model = built();
    for (TensorRecord const& tensor : model.tensors)
    {
        EXPECT_EQ(tensor.type, DataType::kFLOAT) << tensor.name;
    }
    EXPECT_TRUE(
        logged(nvinfer1::ILogger::Severity::kWARNING, "kINT8 is ignored: kiln does not choose quantized kernels"))
        << mLogger.all();
    EXPECT_TRUE(logged(nvinfer1::ILogger::Severity::kINFO, "kTF32 is set (the default)")) << mLogger.all();
}

TEST_F(Precision, TheFp16EngineRoundsToHalfWhereTheFp32EngineDoesNot)
{
    // x = e_0 * (1 + 2^-12): r[j] = relu(x0 * w[0][j]); 1 + 2^-12 is exact in float and rounds to 1 in half.
    std::vector<float> x(16, 0.F);
    x[0] = 1.F + std::ldexp(1.F, -12);
    x[8] = 1.F + std::ldexp(1.F, -12);
    auto const [r32, y32] = run(x);
    mConfig->setFlag(BuilderFlag::kFP16);
    auto const [r16, y16] = run(x);
    ASSERT_EQ(r32.size(), 16U);
    ASSERT_EQ(r16.size(), 16U);
    for (std::size_t j = 0; j < 8; ++j)
    {
        float const w = std::max(mWeights[j], 0.F);
        EXPECT_FLOAT_EQ(r32[j], x[0] * w) << j;
        EXPECT_FLOAT_EQ(r16[j], w) << j; // the input rounded to 1, the weights are exact in half
    }
    EXPECT_NE(r32, r16);
    EXPECT_NEAR(y16[0], y32[0], 1e-2F);
}

// A 16-bit convolution's kernel and bias are stored in its type (cuDNN then adds the bias in its epilogue); the
// fp16 engine computes what the fp32 engine does within half's rounding.
TEST_F(Precision, Fp16ConvolutionStoresItsKernelAndBiasInHalf)
{
    make(0);
    std::vector<float> kernel(8 * 8 * 3 * 3);
    std::vector<float> bias(8);
    for (std::size_t i = 0; i < kernel.size(); ++i)
    {
        kernel[i] = static_cast<float>(static_cast<int>(i % 5) - 2) / 16.F;
    }
    for (std::size_t i = 0; i < bias.size(); ++i)
    {
        bias[i] = static_cast<float>(i) / 4.F - 1.F;
    }
    mNetwork.reset(mBuilder->createNetworkV2(0));
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{4, {1, 8, 5, 5}});
    auto* conv = mNetwork->addConvolutionNd(*x, 8, Dims{2, {3, 3}},
        Weights{DataType::kFLOAT, kernel.data(), static_cast<int64_t>(kernel.size())},
        Weights{DataType::kFLOAT, bias.data(), static_cast<int64_t>(bias.size())});
    conv->setName("conv");
    conv->setPaddingNd(Dims{2, {1, 1}});
    mNetwork->markOutput(*conv->getOutput(0));
    mConfig->setFlag(BuilderFlag::kFP16);
    EngineModel const model = built();
    LayerRecord const* c = layer(model, "conv");
    ASSERT_NE(c, nullptr);
    auto const& params = std::get<ConvolutionParams>(c->params);
    EXPECT_EQ(params.kernel.type, DataType::kHALF);
    EXPECT_EQ(params.bias.type, DataType::kHALF);
    EXPECT_EQ(params.bias.count, 8);
    EXPECT_EQ(outputType(model, *c), DataType::kHALF);
    // Refittable layers keep their float weights (the refitter writes them as the application gives them).
    mConfig->setFlag(BuilderFlag::kREFIT);
    EngineModel const refittable = built();
    LayerRecord const* r = layer(refittable, "conv");
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(std::get<ConvolutionParams>(r->params).bias.type, DataType::kFLOAT);
}

} // namespace
} // namespace kiln
