// SPDX-License-Identifier: Apache-2.0
// IQuantizeLayer and IDequantizeLayer: defaults, the V2 forms' output types, axis, block shape and type as given, the
// output's type and shape, the zero point (a constant of zeros, or refused and dropped), and every refusal with its
// message; shape-rule refusals at build time.
#include "support/api_test.h"

#include <cmath>
#include <memory>
#include <vector>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::LayerType;

class QuantizeTest : public ApiTest
{
protected:
    //! A constant of type holding values (kFLOAT, kINT8 or kFP8 bytes), of shape dims.
    nvinfer1::ITensor* constant(nvinfer1::Dims const& shape, std::vector<float> const& values)
    {
        mFloats.push_back(values);
        auto* layer = mNetwork->addConstant(
            shape, nvinfer1::Weights{DataType::kFLOAT, mFloats.back().data(), static_cast<int64_t>(values.size())});
        return layer != nullptr ? layer->getOutput(0) : nullptr;
    }
    nvinfer1::ITensor* int8Constant(nvinfer1::Dims const& shape, std::vector<int8_t> const& values)
    {
        mInt8s.push_back(values);
        auto* layer = mNetwork->addConstant(
            shape, nvinfer1::Weights{DataType::kINT8, mInt8s.back().data(), static_cast<int64_t>(values.size())});
        return layer != nullptr ? layer->getOutput(0) : nullptr;
    }

    //! Builds the network (x marked as an output's source is the caller's job) and expects the build to fail with
    //! every fragment in one error.
    void expectBuildError(std::vector<std::string> const& fragments)
    {
        std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
        std::unique_ptr<nvinfer1::IHostMemory> plan{mBuilder->buildSerializedNetwork(*mNetwork, *config)};
        EXPECT_EQ(plan, nullptr);
        auto const errors = mLogger.messages(nvinfer1::ILogger::Severity::kERROR);
        ASSERT_FALSE(errors.empty()) << mLogger.all();
        for (auto const& fragment : fragments)
        {
            EXPECT_NE(errors.front().find(fragment), std::string::npos) << "missing \"" << fragment << "\" in:\n"
                                                                        << mLogger.all();
        }
        mLogger.clear();
    }

    std::vector<std::vector<float>> mFloats;
    std::vector<std::vector<int8_t>> mInt8s;
};

TEST_F(QuantizeTest, QuantizeParametersAndOutput)
{
    nvinfer1::ITensor* x = input("x", dims({2, 3, 4}), DataType::kHALF);
    nvinfer1::ITensor* scale = constant(dims({}), {0.5F});
    nvinfer1::IQuantizeLayer* layer = mNetwork->addQuantize(*x, *scale);
    ASSERT_NE(layer, nullptr);
    EXPECT_EQ(layer->getType(), LayerType::kQUANTIZE);
    EXPECT_STREQ(layer->getName(), "(Unnamed Layer* 1) [Quantize]");
    EXPECT_EQ(layer->getAxis(), -1);
    EXPECT_EQ(layer->getToType(), DataType::kINT8);
    EXPECT_EQ(layer->getBlockShape().nbDims, -1);
    EXPECT_EQ(layer->getNbInputs(), 2);
    EXPECT_EQ(layer->getNbOutputs(), 1);
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kINT8);
    EXPECT_DIMS(layer->getOutput(0)->getDimensions(), {2, 3, 4});

    layer->setAxis(-2);
    layer->setToType(DataType::kFP8);
    EXPECT_TRUE(layer->setBlockShape(dims({1, -1, 2})));
    EXPECT_EQ(layer->getAxis(), -2);
    EXPECT_EQ(layer->getToType(), DataType::kFP8);
    EXPECT_DIMS(layer->getBlockShape(), {1, -1, 2});
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kFP8);
    layer->setToType(DataType::kINT4);
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kINT4);
    expectNoError();
}

TEST_F(QuantizeTest, TheV2FormsGiveTheOutputType)
{
    nvinfer1::ITensor* x = input("x", dims({4}));
    nvinfer1::ITensor* scale = constant(dims({4}), {1.F, 2.F, 3.F, 4.F});
    nvinfer1::IQuantizeLayer* q = mNetwork->addQuantize(*x, *scale, DataType::kFP8);
    ASSERT_NE(q, nullptr);
    EXPECT_EQ(q->getToType(), DataType::kFP8);
    EXPECT_EQ(q->getOutput(0)->getType(), DataType::kFP8);

    nvinfer1::IDequantizeLayer* dq = mNetwork->addDequantize(*q->getOutput(0), *scale);
    ASSERT_NE(dq, nullptr);
    EXPECT_EQ(dq->getType(), LayerType::kDEQUANTIZE);
    EXPECT_STREQ(dq->getName(), "(Unnamed Layer* 2) [Dequantize]");
    EXPECT_EQ(dq->getToType(), DataType::kFLOAT);
    EXPECT_EQ(dq->getAxis(), -1);
    EXPECT_EQ(dq->getOutput(0)->getType(), DataType::kFLOAT);
    EXPECT_DIMS(dq->getOutput(0)->getDimensions(), {4});

    nvinfer1::IDequantizeLayer* half = mNetwork->addDequantize(*q->getOutput(0), *scale, DataType::kHALF);
    ASSERT_NE(half, nullptr);
    EXPECT_EQ(half->getToType(), DataType::kHALF);
    EXPECT_EQ(half->getOutput(0)->getType(), DataType::kHALF);
    half->setToType(DataType::kBF16);
    EXPECT_EQ(half->getOutput(0)->getType(), DataType::kBF16);
    half->setAxis(0);
    EXPECT_EQ(half->getAxis(), 0);
    EXPECT_TRUE(half->setBlockShape(dims({2})));
    EXPECT_DIMS(half->getBlockShape(), {2});
    expectNoError();
}

TEST_F(QuantizeTest, AddRefusals)
{
    nvinfer1::ITensor* x = input("x", dims({2, 3}));
    nvinfer1::ITensor* ints = input("i", dims({2, 3}), DataType::kINT32);
    nvinfer1::ITensor* scale = constant(dims({}), {0.5F});
    int32_t const constants = mNetwork->getNbLayers();

    EXPECT_EQ(mNetwork->addQuantize(*ints, *scale), nullptr);
    expectError({"INetworkDefinition::addQuantize", "input \"i\" is kINT32; it must be kFLOAT, kHALF or kBF16"});
    EXPECT_EQ(mNetwork->addDequantize(*x, *scale), nullptr);
    expectError({"INetworkDefinition::addDequantize", "input \"x\" is kFLOAT; it must be kINT8, kFP8 or kINT4"});
    EXPECT_EQ(mNetwork->addQuantize(*x, *ints), nullptr);
    expectError({"INetworkDefinition::addQuantize", "scale \"i\" is kINT32; it must be kFLOAT, kHALF or kBF16"});
    EXPECT_EQ(mNetwork->addQuantize(*x, *scale, DataType::kHALF), nullptr);
    expectError({"INetworkDefinition::addQuantize", "the output type kHALF (1) is not a quantized type"});
    EXPECT_EQ(mNetwork->addQuantize(*x, *scale, DataType::kFP4), nullptr);
    expectError({"the output type kFP4 (10) is not supported yet by kiln's quantize and dequantize layers"});
    nvinfer1::ITensor* codes = input("q", dims({2, 3}), DataType::kINT8);
    EXPECT_EQ(mNetwork->addDequantize(*codes, *scale, DataType::kINT32), nullptr);
    expectError({"INetworkDefinition::addDequantize", "the output type kINT32 (3) is not kFLOAT, kHALF or kBF16"});
    nvinfer1::ITensor* cube = constant(dims({1, 1, 1}), {1.F});
    EXPECT_EQ(mNetwork->addQuantize(*x, *cube), nullptr);
    expectError({"has rank 3; a scale is 0-D (per tensor), 1-D (per axis) or of the input's rank"});
    for (float bad : {0.F, -1.F, NAN, INFINITY})
    {
        nvinfer1::ITensor* badScale = constant(dims({2}), {1.F, bad});
        EXPECT_EQ(mNetwork->addQuantize(*x, *badScale), nullptr);
        expectError({"INetworkDefinition::addQuantize", "at index 1; scales must be positive and finite"});
    }
    EXPECT_EQ(mNetwork->getNbLayers(), constants + 5); // only the constants
}

TEST_F(QuantizeTest, SetterRefusals)
{
    nvinfer1::ITensor* x = input("x", dims({2, 3}));
    nvinfer1::IQuantizeLayer* layer = mNetwork->addQuantize(*x, *constant(dims({3}), {1.F, 2.F, 3.F}));
    ASSERT_NE(layer, nullptr);
    layer->setAxis(2);
    expectError({"IQuantizeLayer::setAxis", "layer \"(Unnamed Layer* 1) [Quantize]\"",
        "axis 2 is outside [-2, 2) for the input [2, 3]"});
    layer->setAxis(-3);
    expectError({"axis -3 is outside [-2, 2)"});
    layer->setToType(DataType::kFLOAT);
    expectError({"IQuantizeLayer::setToType", "the output type kFLOAT (0) is not a quantized type"});
    layer->setToType(DataType::kUINT8);
    expectError({"IQuantizeLayer::setToType", "the output type kUINT8 (5) is not a quantized type"});
    EXPECT_FALSE(layer->setBlockShape(dims({2, 0})));
    expectError({"IQuantizeLayer::setBlockShape", "has extent 0 at axis 1"});
    EXPECT_FALSE(layer->setBlockShape(dims({2, -2})));
    expectError({"has extent -2 at axis 1; block extents are positive, or -1 for the whole axis"});
    EXPECT_FALSE(layer->setBlockShape(dims({2})));
    expectError({"has rank 1 but the input has rank 2"});
    EXPECT_EQ(layer->getAxis(), -1);
    EXPECT_EQ(layer->getToType(), DataType::kINT8);
    EXPECT_EQ(layer->getBlockShape().nbDims, -1);

    nvinfer1::IDequantizeLayer* dq = mNetwork->addDequantize(*layer->getOutput(0), *constant(dims({}), {2.F}));
    ASSERT_NE(dq, nullptr);
    dq->setToType(DataType::kINT8);
    expectError({"IDequantizeLayer::setToType", "the output type kINT8 (2) is not kFLOAT, kHALF or kBF16"});
    EXPECT_EQ(dq->getToType(), DataType::kFLOAT);
}

TEST_F(QuantizeTest, AZeroPointMustBeAConstantOfZeros)
{
    nvinfer1::ITensor* x = input("x", dims({2, 3}));
    nvinfer1::IQuantizeLayer* layer = mNetwork->addQuantize(*x, *constant(dims({3}), {1.F, 2.F, 3.F}));
    ASSERT_NE(layer, nullptr);
    layer->setAxis(1);
    layer->setInput(2, *int8Constant(dims({3}), {0, 0, 0}));
    expectNoError();
    EXPECT_EQ(layer->getNbInputs(), 3);

    layer->setInput(2, *int8Constant(dims({3}), {0, 5, 0}));
    expectError({"IQuantizeLayer::setInput", "the zero point", "holds 5 at index 1",
        "only symmetric quantization is supported, so every zero point must be 0", "input 2 is left unset"});
    EXPECT_EQ(layer->getNbInputs(), 2);

    nvinfer1::ITensor* runtime = input("z", dims({3}), DataType::kINT8);
    layer->setInput(2, *runtime);
    expectError({"the zero point \"z\" is not a build-time constant (an IConstantLayer's output)"});
    EXPECT_EQ(layer->getNbInputs(), 2);

    layer->setInput(3, *runtime);
    expectError({"IQuantizeLayer::setInput", "input index 3 is out of range", "inputs 0 to 2"});

    // A scale replaced by a constant that is not positive is reported.
    layer->setInput(1, *constant(dims({3}), {1.F, -2.F, 3.F}));
    expectError({"IQuantizeLayer::setInput", "holds -2 at index 1; scales must be positive and finite"});
}

TEST_F(QuantizeTest, TheBuildRefusesScalesThatDoNotFit)
{
    nvinfer1::ITensor* x = input("x", dims({2, 3}));
    nvinfer1::IQuantizeLayer* layer = mNetwork->addQuantize(*x, *constant(dims({2}), {1.F, 2.F}));
    ASSERT_NE(layer, nullptr);
    nvinfer1::IDequantizeLayer* dq = mNetwork->addDequantize(*layer->getOutput(0), *constant(dims({}), {1.F}));
    ASSERT_NE(dq, nullptr);
    mNetwork->markOutput(*dq->getOutput(0));
    expectBuildError({"(IQuantizeLayer)", "the 1-D scale has 2 elements but the input", "has 3 along axis 1"});

    layer->setAxis(0); // now it fits
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    std::unique_ptr<nvinfer1::IHostMemory> plan{mBuilder->buildSerializedNetwork(*mNetwork, *config)};
    EXPECT_NE(plan, nullptr) << mLogger.all();
    mLogger.clear();

    // Block scales: [2, 3] over [2, 1] needs no block shape; [1, 2] needs one (3 is not a multiple of 2).
    layer->setInput(1, *constant(dims({1, 2}), {1.F, 2.F}));
    expectBuildError({"(IQuantizeLayer)", "the scale's extent must divide the input's (or set a block shape)"});
    EXPECT_TRUE(layer->setBlockShape(dims({-1, 2})));
    plan.reset(mBuilder->buildSerializedNetwork(*mNetwork, *config));
    EXPECT_NE(plan, nullptr) << mLogger.all();
    mLogger.clear();
    EXPECT_TRUE(layer->setBlockShape(dims({1, 2})));
    expectBuildError({"(IQuantizeLayer)", "blocks of 1 need ceil(input / block) scales"});
}

TEST_F(QuantizeTest, TheBuildRefusesAZeroPointOfAnotherTypeOrShape)
{
    nvinfer1::ITensor* x = input("x", dims({2, 3}));
    nvinfer1::IQuantizeLayer* layer = mNetwork->addQuantize(*x, *constant(dims({}), {1.F}), DataType::kFP8);
    ASSERT_NE(layer, nullptr);
    mNetwork->markOutput(*layer->getOutput(0));
    layer->setInput(2, *int8Constant(dims({}), {0}));
    expectNoError();
    expectBuildError({"(IQuantizeLayer)", "the zero point (input 2) is kINT8; it must be kFP8, the quantized type"});
    layer->setToType(DataType::kINT8);
    layer->setInput(2, *int8Constant(dims({1}), {0}));
    expectBuildError({"(IQuantizeLayer)", "the zero point", "must have the scale's shape"});
}

} // namespace
} // namespace kiln::test
