// SPDX-License-Identifier: Apache-2.0
// GELU from primitive layers (builder/fusion_gelu.cpp, fuseGelu) on networks made through the public API and built for
// the host backend, which runs the fusion too: each exporter form becomes one activation of kGELU_ERF or kGELU_TANH;
// a constant too far from its value, a tensor between that something else reads or that is a network output, or a
// second x leave the layers as they are; a product, bias and GELU become the product with a GELU epilogue.
#include "builder/build.h"
#include "builder/fusion.h"
#include "support/api_test.h"
#include "support/fusion_patterns.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace kiln
{
namespace
{

using nvinfer1::ActivationType;
using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::ITensor;
using test::GeluForm;

class GeluFusion : public test::ApiTest
{
protected:
    EngineModel build()
    {
        std::unique_ptr<Backend> const backend = makeHostBackend();
        std::unique_ptr<nvinfer1::IBuilderConfig> const config{mBuilder->createBuilderConfig()};
        auto model = buildEngineModel(Network::of(*mNetwork), BuilderConfig::of(*config).settings(), *backend);
        EXPECT_TRUE(model.ok()) << (model.ok() ? std::string() : model.error().message);
        return model.ok() ? std::move(model.value()) : EngineModel{};
    }

    ITensor* output(ITensor* t, char const* name)
    {
        t->setName(name);
        mNetwork->markOutput(*t);
        return t;
    }

    //! The GELU activations of model, in order.
    static std::vector<ActivationType> gelus(EngineModel const& model)
    {
        std::vector<ActivationType> found;
        for (LayerRecord const& layer : model.layers)
        {
            auto const* params = std::get_if<ActivationParams>(&layer.params);
            if (params != nullptr
                && (params->type == ActivationType::kGELU_ERF || params->type == ActivationType::kGELU_TANH))
            {
                found.push_back(params->type);
            }
        }
        return found;
    }

    test::ScalarWeights mScalars;
};

struct FormCase
{
    GeluForm form;
    DataType type;
    ActivationType expected;
};

class GeluForms : public GeluFusion, public ::testing::WithParamInterface<FormCase>
{
};

TEST_P(GeluForms, BecomeOneActivation)
{
    FormCase const c = GetParam();
    ITensor* x = mNetwork->addInput("x", c.type, Dims{2, {4, 8}});
    output(test::primitiveGelu(*mNetwork, *x, c.form, mScalars), "y");
    EngineModel const model = build();
    ASSERT_EQ(model.layers.size(), 1U) << "the activation alone: the other layers and their constants are gone";
    LayerRecord const& layer = model.layers[0];
    EXPECT_EQ(layer.type, nvinfer1::LayerType::kACTIVATION);
    ASSERT_EQ(gelus(model), std::vector<ActivationType>{c.expected});
    ASSERT_EQ(layer.inputs.size(), 1U);
    EXPECT_EQ(model.tensors[static_cast<std::size_t>(layer.inputs[0])].name, "x");
    EXPECT_EQ(model.tensors[static_cast<std::size_t>(layer.outputs[0])].name, "y");
}

INSTANTIATE_TEST_SUITE_P(Exporters, GeluForms,
    ::testing::Values(FormCase{GeluForm::kERF, DataType::kFLOAT, ActivationType::kGELU_ERF},
        FormCase{GeluForm::kERF, DataType::kHALF, ActivationType::kGELU_ERF},
        FormCase{GeluForm::kERF_HALF_FIRST, DataType::kFLOAT, ActivationType::kGELU_ERF},
        FormCase{GeluForm::kERF_HALF_FIRST, DataType::kBF16, ActivationType::kGELU_ERF},
        FormCase{GeluForm::kTANH_POW, DataType::kFLOAT, ActivationType::kGELU_TANH},
        FormCase{GeluForm::kTANH_POW, DataType::kHALF, ActivationType::kGELU_TANH},
        FormCase{GeluForm::kTANH_PRODUCTS, DataType::kFLOAT, ActivationType::kGELU_TANH}));

TEST_F(GeluFusion, ScalarsTheParserBroadcastWithAReshapeAreSeenOnceTheReshapesAreFolded)
{
    // The ONNX parser broadcasts a 0-D Constant node (the exporters' sqrt(2), 1 and 0.5) to its operand's rank with
    // a reshape: the host build, which folds no reshapes, keeps the layers; a CUDA build folds the reshapes first
    // (build.cpp), after which the chain is one GELU.
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{2, {4, 8}});
    auto const scalar = [&](float value) {
        auto* constant = mNetwork->addConstant(Dims{0, {}}, mScalars(value, DataType::kFLOAT));
        auto* reshape = mNetwork->addShuffle(*constant->getOutput(0));
        reshape->setReshapeDimensions(Dims{2, {1, 1}});
        return reshape->getOutput(0);
    };
    using Op = nvinfer1::ElementWiseOperation;
    ITensor* d = mNetwork->addElementWise(*x, *scalar(1.4142135F), Op::kDIV)->getOutput(0);
    ITensor* e = mNetwork->addUnary(*d, nvinfer1::UnaryOperation::kERF)->getOutput(0);
    ITensor* a = mNetwork->addElementWise(*e, *scalar(1.F), Op::kSUM)->getOutput(0);
    ITensor* m = mNetwork->addElementWise(*x, *a, Op::kPROD)->getOutput(0);
    output(mNetwork->addElementWise(*m, *scalar(0.5F), Op::kPROD)->getOutput(0), "y");
    EngineModel model = build();
    EXPECT_TRUE(gelus(model).empty()) << "the scalars are reshapes, not constants";
    EXPECT_EQ(foldConstantReshapes(model), 3);
    EXPECT_EQ(fuseGelu(model), 4);
    EXPECT_EQ(gelus(model), std::vector<ActivationType>{ActivationType::kGELU_ERF});
}

TEST_F(GeluFusion, AConstantTooFarFromItsValueStopsIt)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{2, {4, 8}});
    output(test::primitiveGelu(*mNetwork, *x, GeluForm::kERF, mScalars, 1.4143F), "near");
    ITensor* x2 = mNetwork->addInput("x2", DataType::kFLOAT, Dims{2, {4, 8}});
    output(test::primitiveGelu(*mNetwork, *x2, GeluForm::kERF, mScalars, 1.4142137F), "within");
    EngineModel const model = build();
    EXPECT_EQ(gelus(model), std::vector<ActivationType>{ActivationType::kGELU_ERF})
        << "1.4143 is 6e-5 away from sqrt 2 in float; 1.4142137 is two float steps away, within the tolerance";
}

TEST_F(GeluFusion, AnInnerTensorReadElsewhereOrAnOutputStopsIt)
{
    // kERF's layers: constant, div, erf, constant, sum, prod, constant, prod.
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{2, {4, 8}});
    output(test::primitiveGelu(*mNetwork, *x, GeluForm::kERF, mScalars), "y");
    ITensor* erf = mNetwork->getLayer(2)->getOutput(0);
    output(mNetwork->addUnary(*erf, nvinfer1::UnaryOperation::kABS)->getOutput(0), "read");
    ITensor* x2 = mNetwork->addInput("x2", DataType::kFLOAT, Dims{2, {4, 8}});
    output(test::primitiveGelu(*mNetwork, *x2, GeluForm::kTANH_POW, mScalars), "y2");
    int32_t const tanhLayers = mNetwork->getNbLayers();
    output(mNetwork->getLayer(tanhLayers - 4)->getOutput(0), "middle"); // 1 + tanh(...)
    EXPECT_TRUE(gelus(build()).empty());
}

TEST_F(GeluFusion, TwoDifferentXsStopIt)
{
    using Op = nvinfer1::ElementWiseOperation;
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{2, {4, 8}});
    ITensor* other = mNetwork->addInput("other", DataType::kFLOAT, Dims{2, {4, 8}});
    Dims const ones{2, {1, 1}};
    auto const constant
        = [&](float value) { return mNetwork->addConstant(ones, mScalars(value, DataType::kFLOAT))->getOutput(0); };
    auto* d = mNetwork->addElementWise(*other, *constant(1.4142135F), Op::kDIV)->getOutput(0);
    auto* e = mNetwork->addUnary(*d, nvinfer1::UnaryOperation::kERF)->getOutput(0);
    auto* s = mNetwork->addElementWise(*e, *constant(1.F), Op::kSUM)->getOutput(0);
    auto* m = mNetwork->addElementWise(*x, *s, Op::kPROD)->getOutput(0);
    output(mNetwork->addElementWise(*m, *constant(0.5F), Op::kPROD)->getOutput(0), "y");
    EXPECT_TRUE(gelus(build()).empty());
}

TEST_F(GeluFusion, AProductWithBiasAndGeluTakesItAsItsEpilogue)
{
    // x [4, 16] times w [16, 32] plus b [1, 32], then each GELU form; the CUDA build's epilogue fusion follows.
    std::vector<float> weights(16 * 32, 0.25F);
    std::vector<float> bias(32, 0.5F);
    for (GeluForm const form : {GeluForm::kERF, GeluForm::kTANH_PRODUCTS})
    {
        std::string const name = form == GeluForm::kERF ? "erf" : "tanh";
        ITensor* x = mNetwork->addInput(("x" + name).c_str(), DataType::kFLOAT, Dims{2, {4, 16}});
        auto* w = mNetwork->addConstant(Dims{2, {16, 32}}, {DataType::kFLOAT, weights.data(), 16 * 32})->getOutput(0);
        auto* b = mNetwork->addConstant(Dims{2, {1, 32}}, {DataType::kFLOAT, bias.data(), 32})->getOutput(0);
        auto* product
            = mNetwork->addMatrixMultiply(*x, nvinfer1::MatrixOperation::kNONE, *w, nvinfer1::MatrixOperation::kNONE)
                  ->getOutput(0);
        auto* biased = mNetwork->addElementWise(*product, *b, nvinfer1::ElementWiseOperation::kSUM)->getOutput(0);
        output(test::primitiveGelu(*mNetwork, *biased, form, mScalars), name.c_str());
    }
    EngineModel model = build();
    model.backend = PlanBackend::kCUDA;
    fuseEpilogues(model);
    std::vector<ActivationType> epilogues;
    for (LayerRecord const& layer : model.layers)
    {
        if (layer.type == nvinfer1::LayerType::kMATRIX_MULTIPLY)
        {
            ASSERT_TRUE(layer.epilogue.has_value()) << layer.name;
            EXPECT_EQ(layer.inputs.size(), 3U) << "the bias";
            epilogues.push_back(layer.epilogue->type);
        }
    }
    EXPECT_EQ(epilogues, (std::vector<ActivationType>{ActivationType::kGELU_ERF, ActivationType::kGELU_TANH}));
    EXPECT_TRUE(gelus(model).empty()) << "no activation layer is left";
}

} // namespace
} // namespace kiln
