// SPDX-License-Identifier: Apache-2.0
// Refitting an engine built from an ONNX model by initializer names: the parser names the weights it gives a Conv
// layer and the constant layers it makes after their initializers, so that IRefitter::setNamedWeights finds them, and
// the parser refitter (createParserRefitter) gives them from a model; the refitted engine computes what an engine
// built from the model with the new initializers computes.
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

//! An engine of convModel(w, b, shift) built with flags, its runtime, and what it computes for an input.
class RefitEngine
{
public:
    RefitEngine(ModelBuilder const& model, nvinfer1::BuilderFlags flags)
    {
        std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(mLogger)};
        std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
        std::unique_ptr<nvonnxparser::IParser> parser{nvonnxparser::createParser(*network, mLogger)};
        std::string const bytes = model.bytes();
        EXPECT_TRUE(parser->parse(bytes.data(), bytes.size())) << mLogger.all();
        std::unique_ptr<nvinfer1::IBuilderConfig> config{builder->createBuilderConfig()};
        config->setFlags(flags);
        std::unique_ptr<nvinfer1::IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
        EXPECT_NE(plan, nullptr) << mLogger.all();
        mRuntime.reset(nvinfer1::createInferRuntime(mLogger));
        if (plan != nullptr)
        {
            mEngine.reset(mRuntime->deserializeCudaEngine(plan->data(), plan->size()));
        }
        EXPECT_NE(mEngine, nullptr) << mLogger.all();
    }

    nvinfer1::ICudaEngine& engine() { return *mEngine; }
    CollectingLogger& logger() { return mLogger; }
    //! The refitter of the latest parserRefitter().
    nvinfer1::IRefitter& refitter() { return *mRefitter; }

    //! A parser refitter over a refitter of the engine (kept here); null after a failure.
    std::unique_ptr<nvonnxparser::IParserRefitter> parserRefitter()
    {
        mRefitter.reset(nvinfer1::createInferRefitter(*mEngine, mLogger));
        EXPECT_NE(mRefitter, nullptr) << mLogger.all();
        std::unique_ptr<nvonnxparser::IParserRefitter> made{
            mRefitter != nullptr ? nvonnxparser::createParserRefitter(*mRefitter, mLogger) : nullptr};
        EXPECT_NE(made, nullptr) << mLogger.all();
        return made;
    }

    //! y for x, or nothing when the run fails.
    std::vector<float> run(std::vector<float> const& x)
    {
        std::unique_ptr<nvinfer1::IExecutionContext> context{mEngine->createExecutionContext()};
        std::vector<float> y(75, -1.F);
        bool const ran = context != nullptr && context->setTensorAddress("x", const_cast<float*>(x.data()))
            && context->setTensorAddress("y", y.data()) && context->enqueueV3(nullptr);
        return ran ? y : std::vector<float>{};
    }

private:
    CollectingLogger mLogger;
    std::unique_ptr<nvinfer1::IRuntime> mRuntime;
    std::unique_ptr<nvinfer1::ICudaEngine> mEngine;
    std::unique_ptr<nvinfer1::IRefitter> mRefitter;
};

//! What the model computes for x (an engine built from it).
std::vector<float> reference(ModelBuilder const& model, std::vector<float> const& x)
{
    Harness h;
    EXPECT_TRUE(h.parse(model)) << h.errors();
    auto out = h.run({{"x", {{1, 2, 5, 5}, x}}});
    EXPECT_EQ(out.count("y"), 1U) << h.lastFailure();
    return out["y"].values;
}

constexpr nvinfer1::BuilderFlags flag(nvinfer1::BuilderFlag flag)
{
    return 1U << static_cast<uint32_t>(flag);
}

TEST(OnnxRefit, ParserRefitterRefitsFromAModel)
{
    ModelBuilder const before = convModel(randomValues(54, 1), randomValues(3, 2), randomValues(3, 3));
    ModelBuilder const after = convModel(randomValues(54, 4), randomValues(3, 5), randomValues(3, 6));
    std::vector<float> const x = randomValues(50, 7);
    RefitEngine built(before, flag(nvinfer1::BuilderFlag::kREFIT));
    ASSERT_TRUE(built.run(x).size() == 75U);
    std::unique_ptr<nvonnxparser::IParserRefitter> parserRefitter = built.parserRefitter();
    ASSERT_NE(parserRefitter, nullptr);
    std::string const bytes = after.bytes();
    EXPECT_TRUE(parserRefitter->refitFromBytes(bytes.data(), bytes.size())) << built.logger().all();
    EXPECT_EQ(parserRefitter->getNbErrors(), 0);
    expectClose(built.run(x), reference(after, x), 1e-6F);

    // loadModelProto, loadInitializer (new bias values), refitModelProto.
    std::vector<float> const bias = randomValues(3, 8);
    std::string const original = before.bytes();
    ASSERT_TRUE(parserRefitter->loadModelProto(original.data(), original.size()));
    ASSERT_TRUE(parserRefitter->loadInitializer("b", bias.data(), bias.size() * sizeof(float)));
    EXPECT_TRUE(parserRefitter->refitModelProto()) << built.logger().all();
    ModelBuilder const biased = convModel(randomValues(54, 1), bias, randomValues(3, 3));
    expectClose(built.run(x), reference(biased, x), 1e-6F);
}

TEST(OnnxRefit, ParserRefitterFillsAStrippedEngine)
{
    ModelBuilder const model = convModel(randomValues(54, 1), randomValues(3, 2), randomValues(3, 3));
    std::vector<float> const x = randomValues(50, 7);
    RefitEngine built(model, flag(nvinfer1::BuilderFlag::kSTRIP_PLAN));
    EXPECT_TRUE(built.run(x).empty()); // Refused until refitted.
    std::unique_ptr<nvonnxparser::IParserRefitter> parserRefitter = built.parserRefitter();
    ASSERT_NE(parserRefitter, nullptr);
    std::string const bytes = model.bytes();
    EXPECT_TRUE(parserRefitter->refitFromBytes(bytes.data(), bytes.size())) << built.logger().all();
    expectClose(built.run(x), reference(model, x), 1e-6F);
}

TEST(OnnxRefit, ParserRefitterRefusesAModelWithoutTheEnginesWeights)
{
    ModelBuilder const model = convModel(randomValues(54, 1), randomValues(3, 2), randomValues(3, 3));
    RefitEngine built(model, flag(nvinfer1::BuilderFlag::kREFIT));
    std::unique_ptr<nvonnxparser::IParserRefitter> parserRefitter = built.parserRefitter();
    ASSERT_NE(parserRefitter, nullptr);
    ModelBuilder other = convModel(randomValues(54, 1), randomValues(3, 2), randomValues(3, 3));
    other.graph().mutable_initializer(2)->set_name("offset");
    other.graph().mutable_node(1)->set_input(1, "offset");
    std::string const bytes = other.bytes();
    EXPECT_FALSE(parserRefitter->refitFromBytes(bytes.data(), bytes.size()));
    ASSERT_EQ(parserRefitter->getNbErrors(), 1);
    EXPECT_EQ(parserRefitter->getError(0)->code(), nvonnxparser::ErrorCode::kREFIT_FAILED);
    EXPECT_NE(std::string(parserRefitter->getError(0)->desc()).find("'shift'"), std::string::npos)
        << parserRefitter->getError(0)->desc();
    parserRefitter->clearErrors();
    EXPECT_EQ(parserRefitter->getNbErrors(), 0);
}

TEST(OnnxRefit, ParserRefitterWithdrawsWhatItGaveWhenTheRefitFails)
{
    // The values a parser refitter gives point into the model it read, which is gone once the call returns: after a
    // refused model the refitter holds none of them, so a later refitCudaEngine reads nothing freed.
    ModelBuilder const model = convModel(randomValues(54, 1), randomValues(3, 2), randomValues(3, 3));
    std::vector<float> const x = randomValues(50, 7);
    RefitEngine built(model, flag(nvinfer1::BuilderFlag::kREFIT));
    std::vector<float> const before = built.run(x);
    std::unique_ptr<nvonnxparser::IParserRefitter> parserRefitter = built.parserRefitter();
    ASSERT_NE(parserRefitter, nullptr);
    ModelBuilder wrong(13); // w and b fit (and come first), shift has one value too many.
    wrong.input("x", {1, 2, 5, 5});
    wrong.initializer(floatTensor("w", {3, 2, 3, 3}, randomValues(54, 4)));
    wrong.initializer(floatTensor("b", {3}, randomValues(3, 5)));
    wrong.initializer(floatTensor("shift", {1, 4, 1, 1}, randomValues(4, 6)));
    std::string const bytes = wrong.bytes();
    EXPECT_FALSE(parserRefitter->refitFromBytes(bytes.data(), bytes.size()));
    EXPECT_EQ(built.refitter().getNamedWeights("w").values, nullptr);
    EXPECT_EQ(built.refitter().getNamedWeights("b").values, nullptr);
    EXPECT_TRUE(built.refitter().refitCudaEngine()) << built.logger().all();
    expectClose(built.run(x), before, 0.F);
}

TEST(OnnxRefit, TensorsTheEngineCannotRefitByNameAreNamedInAWarning)
{
    // An initializer the engine holds no weights of that name for keeps its built value: the refit says so.
    ModelBuilder const model = convModel(randomValues(54, 1), randomValues(3, 2), randomValues(3, 3));
    RefitEngine built(model, flag(nvinfer1::BuilderFlag::kREFIT));
    std::unique_ptr<nvonnxparser::IParserRefitter> parserRefitter = built.parserRefitter();
    ASSERT_NE(parserRefitter, nullptr);
    ModelBuilder extra = convModel(randomValues(54, 1), randomValues(3, 2), randomValues(3, 3));
    extra.initializer(floatTensor("unused_table", {2}, {1.F, 2.F}));
    std::string const bytes = extra.bytes();
    EXPECT_TRUE(parserRefitter->refitFromBytes(bytes.data(), bytes.size())) << built.logger().all();
    auto const warned
        = built.logger().find("keep the values the engine was built with", nvinfer1::ILogger::Severity::kWARNING);
    ASSERT_EQ(warned.size(), 1U) << built.logger().all();
    EXPECT_NE(warned[0].find("'unused_table'"), std::string::npos) << warned[0];
    EXPECT_NE(warned[0].find("IRefitter::setWeights"), std::string::npos) << warned[0];
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
