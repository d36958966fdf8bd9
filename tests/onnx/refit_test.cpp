// SPDX-License-Identifier: Apache-2.0
// Refitting an engine built from an ONNX model by initializer names: the parser names the weights it gives a Conv
// layer and the constant layers it makes after their initializers, so that IRefitter::setNamedWeights finds them;
// the refitted engine computes what an engine built from the model with the new initializers computes.
#include "checks.h"
#include "model_builder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace kiln::onnx_test
{
namespace
{

//! y = Conv(x, w, b) + shift: x [1, 2, 5, 5], w [3, 2, 3, 3], b [3], shift [1, 3, 1, 1].
ModelBuilder convModel(std::vector<float> const& w, std::vector<float> const& b, std::vector<float> const& shift)
{
    ModelBuilder m(13);
    m.input("x", {1, 2, 5, 5});
    m.initializer(floatTensor("w", {3, 2, 3, 3}, w));
    m.initializer(floatTensor("b", {3}, b));
    m.initializer(floatTensor("shift", {1, 3, 1, 1}, shift));
    auto& conv = m.node("Conv", {"x", "w", "b"}, {"c"}, "conv");
    attrInts(conv, "pads", {1, 1, 1, 1});
    m.node("Add", {"c", "shift"}, {"y"}, "add");
    m.output("y");
    return m;
}

TEST(OnnxRefit, InitializerNamesRefitTheEngine)
{
    std::vector<float> const w1 = randomValues(54, 1);
    std::vector<float> const b1 = randomValues(3, 2);
    std::vector<float> const s1 = randomValues(3, 3);
    std::vector<float> const w2 = randomValues(54, 4);
    std::vector<float> const b2 = randomValues(3, 5);
    std::vector<float> const s2 = randomValues(3, 6);
    std::vector<float> const x = randomValues(50, 7);

    CollectingLogger logger;
    std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger)};
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    std::unique_ptr<nvonnxparser::IParser> parser{nvonnxparser::createParser(*network, logger)};
    std::string const bytes = convModel(w1, b1, s1).bytes();
    ASSERT_TRUE(parser->parse(bytes.data(), bytes.size())) << logger.all();
    std::unique_ptr<nvinfer1::IBuilderConfig> config{builder->createBuilderConfig()};
    config->setFlag(nvinfer1::BuilderFlag::kREFIT);
    std::unique_ptr<nvinfer1::IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
    ASSERT_NE(plan, nullptr) << logger.all();
    std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(logger)};
    std::unique_ptr<nvinfer1::ICudaEngine> engine{runtime->deserializeCudaEngine(plan->data(), plan->size())};
    ASSERT_NE(engine, nullptr) << logger.all();

    std::unique_ptr<nvinfer1::IRefitter> refitter{nvinfer1::createInferRefitter(*engine, logger)};
    ASSERT_NE(refitter, nullptr) << logger.all();
    int32_t const count = refitter->getAllWeights(0, nullptr);
    std::vector<char const*> names(static_cast<std::size_t>(std::max(count, 0)));
    refitter->getAllWeights(count, names.data());
    std::vector<std::string> sorted(names.begin(), names.end());
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, (std::vector<std::string>{"b", "shift", "w"}));
    EXPECT_TRUE(refitter->setNamedWeights("w", nvinfer1::Weights{nvinfer1::DataType::kFLOAT, w2.data(), 54}));
    EXPECT_TRUE(refitter->setNamedWeights("b", nvinfer1::Weights{nvinfer1::DataType::kFLOAT, b2.data(), 3}));
    EXPECT_TRUE(refitter->setNamedWeights("shift", nvinfer1::Weights{nvinfer1::DataType::kFLOAT, s2.data(), 3}));
    ASSERT_TRUE(refitter->refitCudaEngine()) << logger.all();

    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_NE(context, nullptr);
    std::vector<float> y(75, -1.F);
    ASSERT_TRUE(context->setTensorAddress("x", const_cast<float*>(x.data())));
    ASSERT_TRUE(context->setTensorAddress("y", y.data()));
    ASSERT_TRUE(context->enqueueV3(nullptr)) << logger.all();

    Harness reference;
    ASSERT_TRUE(reference.parse(convModel(w2, b2, s2))) << reference.errors();
    auto out = reference.run({{"x", {{1, 2, 5, 5}, x}}});
    ASSERT_EQ(out.count("y"), 1U) << reference.lastFailure();
    expectClose(y, out["y"].values, 1e-6F);
}

} // namespace
} // namespace kiln::onnx_test
