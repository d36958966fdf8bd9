// SPDX-License-Identifier: Apache-2.0
// Plans that pass the checksum, the FlatBuffers verifier and every structural check but are shaped to hurt, written
// by a hostile writer (encodePayload + writePlan) and loaded through IRuntime::deserializeCudaEngine:
// - shape expressions that are very deep (a chain of 400,000 operations) or that reuse one node at every level (their
//   text doubles per level): messages that quote them stay short, and nothing recurses per node;
// - a profile that contradicts an extent the input's shape fixes: refused at load, since applications size their
//   buffers from the profile while the runtime would use the fixed extent.
#include "models.h"

#include "plan/container.h"
#include "plan/engine_codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace kiln::test
{
namespace
{

using nvinfer1::DimensionOperation;

//! The plan a hostile writer makes: the model encoded without its checks, in a valid envelope.
std::vector<uint8_t> hostilePlan(EngineModel const& model)
{
    auto payload = encodePayload(model);
    EXPECT_TRUE(payload.ok()) << payload.error().message;
    return writePlan(PlanInfo{model.backend}, payload.ok() ? payload.value() : std::vector<uint8_t>{});
}

//! y = relu(x), x FP32 [N] with N in [1, 8], plus an assertion on `condition(n)`: an expression that the caller builds
//! from n (x's extent symbol) with maker.
template <typename MakeCondition>
EngineModel reluWithAssertion(MakeCondition const& makeCondition)
{
    ModelMaker m("hostile_expressions");
    int32_t const x = m.input("x", DataType::kFLOAT);
    uint32_t const n = m.symbol("x.d0", SymbolKind::kINPUT_EXTENT, x, 0);
    m.setShape(x, {n});
    int32_t const y = m.tensor("y", DataType::kFLOAT, {n});
    m.output(y);
    m.layer("relu", ActivationParams{nvinfer1::ActivationType::kRELU}, {x}, {y});
    m.assertion(makeCondition(m, n), "hostile", 0);
    m.range(x, Dims{1, {1}}, Dims{1, {4}}, Dims{1, {8}});
    return m.finish(0);
}

class HostilePlan : public RuntimeTest
{
protected:
    std::unique_ptr<nvinfer1::ICudaEngine> load(EngineModel const& model)
    {
        std::vector<uint8_t> const plan = hostilePlan(model);
        std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(mLogger)};
        return std::unique_ptr<nvinfer1::ICudaEngine>(runtime->deserializeCudaEngine(plan.data(), plan.size()));
    }

    //! Runs y = relu(x) for x of shape [1]; returns whether enqueueV3 succeeded.
    static bool runOnce(nvinfer1::ICudaEngine& engine)
    {
        std::unique_ptr<nvinfer1::IExecutionContext> context{engine.createExecutionContext()};
        float x = 1.F;
        float y = 0.F;
        return context != nullptr && context->setInputShape("x", dims({1})) && context->setTensorAddress("x", &x)
            && context->setTensorAddress("y", &y) && context->enqueueV3(nullptr);
    }

    //! The longest message logged so far.
    std::size_t longestMessage() const
    {
        std::size_t longest = 0;
        for (auto severity : {nvinfer1::ILogger::Severity::kERROR, nvinfer1::ILogger::Severity::kINTERNAL_ERROR,
                 nvinfer1::ILogger::Severity::kWARNING})
        {
            for (std::string const& message : mLogger.messages(severity))
            {
                longest = std::max(longest, message.size());
            }
        }
        return longest;
    }
};

// 20 expression records (a few hundred bytes of plan) make enqueueV3 log one message of about 9 MB: each record
// doubles it, so 40 records ask for terabytes (an out-of-memory kill or a hang, not an error).
TEST_F(HostilePlan, FailedAssertionMessageDoesNotGrowExponentially)
{
    constexpr int kLevels = 20;
    EngineModel model = reluWithAssertion([](ModelMaker& m, uint32_t n) {
        uint32_t e = n;
        for (int i = 0; i < kLevels; ++i)
        {
            e = m.operation(DimensionOperation::kSUM, e, e); // the same operand twice: one node, printed twice
        }
        return m.operation(DimensionOperation::kEQUAL, e, m.constant(0)); // never true
    });
    auto engine = load(model);
    ASSERT_NE(engine, nullptr) << mLogger.all();
    EXPECT_FALSE(runOnce(*engine));
    // A message that quotes an expression should stay readable (and bounded) whatever the plan holds.
    EXPECT_LT(longestMessage(), std::size_t{64} << 10U) << "the longest message has " << longestMessage() << " bytes";
}

//! A chain of 400,000 operations on n, each one using the one before.
uint32_t deepChain(ModelMaker& m, uint32_t n)
{
    uint32_t e = n;
    for (int i = 0; i < 400000; ++i)
    {
        e = m.operation(i % 2 == 0 ? DimensionOperation::kSUM : DimensionOperation::kPROD, e, n);
    }
    return e;
}

// A chain of operations, each one deeper, ending in a division by the constant 0: refused at load with a message
// that quotes the dividend (once rendered recursively, which overflowed the stack).
TEST_F(HostilePlan, ADeepChainDividedByZeroIsRefused)
{
    EngineModel model = reluWithAssertion([](ModelMaker& m, uint32_t n) {
        uint32_t const e = deepChain(m, n);
        return m.operation(DimensionOperation::kFLOOR_DIV, e, m.constant(0));
    });
    EXPECT_EQ(load(model), nullptr);
    EXPECT_LT(longestMessage(), std::size_t{4} << 10U);
}

// The same chain without the division: it loads or is refused, but a failed assertion never crashes.
TEST_F(HostilePlan, ADeepChainInAFailedAssertionIsAnError)
{
    EngineModel model = reluWithAssertion([](ModelMaker& m, uint32_t n) {
        uint32_t const e = deepChain(m, n);
        return m.operation(DimensionOperation::kEQUAL, e, m.constant(0)); // never true
    });
    auto engine = load(model);
    EXPECT_TRUE(engine == nullptr || !runOnce(*engine));
    EXPECT_LT(longestMessage(), std::size_t{4} << 10U);
}

//! y = relu(x), x FP32 of the constant shape [64], but profile 0 says x ranges over [2] to [2].
EngineModel contradictoryProfileModel()
{
    ModelMaker m("contradictory_profile");
    uint32_t const sixtyFour = m.constant(64);
    int32_t const x = m.input("x", DataType::kFLOAT, {sixtyFour});
    int32_t const y = m.tensor("y", DataType::kFLOAT, {sixtyFour});
    m.output(y);
    m.layer("relu", ActivationParams{nvinfer1::ActivationType::kRELU}, {x}, {y});
    m.range(x, Dims{1, {2}}, Dims{1, {2}}, Dims{1, {2}});
    return m.finish(0);
}

TEST_F(HostilePlan, AProfileThatContradictsAFixedExtentIsRefused)
{
    EXPECT_EQ(load(contradictoryProfileModel()), nullptr);
    expectError({"profile 0 input 0", "\"x\"", "extent 0 is fixed at 64", "kMAX 2"});
}

TEST_F(HostilePlan, APluginWritingInPlaceOfNetworkIoIsRefused)
{
    // The builder copies network I/O around aliased plugins; a plan that does not is refused before any plugin is
    // made, so no plugin can write into the application's input buffer.
    ModelMaker m("hostile_alias");
    int32_t const x = m.input("x", DataType::kFLOAT);
    m.setShape(x, {m.constant(4)});
    int32_t const y = m.tensor("y", DataType::kFLOAT, {m.constant(4)});
    m.output(y);
    PluginV3Params params;
    params.identity = PluginIdentity{"InPlace", "1", ""};
    params.nbInputs = 1;
    params.outputTypes = {DataType::kFLOAT};
    params.plan.aliasedInputs = {0};
    m.layer("in_place", LayerParams{std::move(params)}, {x}, {y});
    m.range(x, Dims{1, {4}}, Dims{1, {4}}, Dims{1, {4}});
    EXPECT_EQ(load(m.finish(0)), nullptr);
    expectError({"tensor 'y' is written in place of 'x'", "one of them is network I/O"});
}

} // namespace
} // namespace kiln::test
