// SPDX-License-Identifier: Apache-2.0
// Plans that pass the checksum, the FlatBuffers verifier and every structural check but are shaped to hurt, written
// by a hostile writer (encodePayload + writePlan) and loaded through IRuntime::deserializeCudaEngine:
// - shape expressions that are very deep (a chain of 400,000 operations) or that reuse one node at every level (their
//   text doubles per level): messages that quote them stay short, and nothing recurses per node;
// - a profile that contradicts an extent the input's shape fixes: refused at load, since applications size their
//   buffers from the profile while the runtime would use the fixed extent;
// - the four kinds of crash a fuzzing campaign found (issue 21): an activation block far larger than the tensors need,
//   a constant whose dimensions multiply past 2^63, a convolution whose kernel count overflows, and a window whose
//   span overflows: each refused at load, naming the field;
// - offsets that put two tensors live at the same time in the same bytes (found by the in-tree plan fuzz target).
#include "models.h"

#include "plan/container.h"
#include "plan/engine_codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
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

//! y = relu(relu(x)), x FP32 [N] with N in [1, 8]: the tensor between lives at offset 0 of an activation block of the
//! given size (32 bytes, 256 aligned, is what it needs).
EngineModel twoRelus(int64_t activationBytes)
{
    ModelMaker m("hostile_activation");
    int32_t const x = m.input("x", DataType::kFLOAT);
    uint32_t const n = m.symbol("x.d0", SymbolKind::kINPUT_EXTENT, x, 0);
    m.setShape(x, {n});
    int32_t const h = m.tensor("h", DataType::kFLOAT, {n});
    int32_t const y = m.tensor("y", DataType::kFLOAT, {n});
    m.output(y);
    m.layer("relu1", ActivationParams{nvinfer1::ActivationType::kRELU}, {x}, {h});
    m.layer("relu2", ActivationParams{nvinfer1::ActivationType::kRELU}, {h}, {y});
    m.place(h, 0);
    m.range(x, Dims{1, {1}}, Dims{1, {4}}, Dims{1, {8}});
    return m.finish(activationBytes);
}

// Fuzzing found plans whose activation size was 4 GiB to 1 EiB for a model of a few bytes: they loaded, and
// createExecutionContext tried to allocate the block (an abort under AddressSanitizer, gigabytes reserved otherwise).
TEST_F(HostilePlan, AnActivationBlockFarLargerThanTheTensorsNeedIsRefused)
{
    for (int64_t const bytes : {int64_t{4} << 30, int64_t{1} << 60})
    {
        EXPECT_EQ(load(twoRelus(bytes)), nullptr) << bytes;
        expectError({"optimization profile 0", "activation block of " + std::to_string(bytes) + " bytes",
            "need at most 256 bytes"});
    }
    EngineModel stated = twoRelus(256);
    stated.deviceMemorySize = int64_t{1} << 40; // the engine's size alone
    EXPECT_EQ(load(stated), nullptr);
    expectError({"device memory size is 1099511627776 bytes", "largest optimization profile needs 256"});
    auto engine = load(twoRelus(256));
    ASSERT_NE(engine, nullptr) << mLogger.all();
    EXPECT_TRUE(runOnce(*engine));
}

// Fuzzing found a plan whose concatenation wrote its output over its own input (ASan: memcpy-param-overlap): the
// plan's offsets put two tensors live at the same time in the same bytes. Three ReLUs in a row: h1 and h2 are both
// live at relu2, so they must not share bytes; h1 and h3 may (h1 is dead once relu2 has run).
TEST_F(HostilePlan, TensorsLiveTogetherInTheSameBytesAreRefused)
{
    auto const threeRelus = [](int64_t h2Offset, int64_t h3Offset, int64_t block) {
        ModelMaker m("hostile_offsets");
        int32_t const x = m.input("x", DataType::kFLOAT);
        uint32_t const n = m.symbol("x.d0", SymbolKind::kINPUT_EXTENT, x, 0);
        m.setShape(x, {n});
        int32_t const h1 = m.tensor("h1", DataType::kFLOAT, {n});
        int32_t const h2 = m.tensor("h2", DataType::kFLOAT, {n});
        int32_t const h3 = m.tensor("h3", DataType::kFLOAT, {n});
        int32_t const y = m.tensor("y", DataType::kFLOAT, {n});
        m.output(y);
        m.layer("relu1", ActivationParams{nvinfer1::ActivationType::kRELU}, {x}, {h1});
        m.layer("relu2", ActivationParams{nvinfer1::ActivationType::kRELU}, {h1}, {h2});
        m.layer("relu3", ActivationParams{nvinfer1::ActivationType::kRELU}, {h2}, {h3});
        m.layer("relu4", ActivationParams{nvinfer1::ActivationType::kRELU}, {h3}, {y});
        m.place(h1, 0);
        m.place(h2, h2Offset);
        m.place(h3, h3Offset);
        m.range(x, Dims{1, {1}}, Dims{1, {4}}, Dims{1, {8}});
        return m.finish(block);
    };
    EXPECT_EQ(load(threeRelus(0, 256, 512)), nullptr);
    expectError({"optimization profile 0 places tensors 'h1' and 'h2', live at the same time, in overlapping bytes"});
    EXPECT_EQ(load(threeRelus(128, 256, 512)), nullptr) << "a partial overlap";
    expectError({"'h1' and 'h2'", "[0, 256) and [128, 384)"});
    EXPECT_EQ(load(threeRelus(256, 512, 512)), nullptr) << "h3 past the block";
    expectError({"places tensor 'h3' of 256 bytes at offset 512, past its activation block of 512 bytes"});
    EXPECT_EQ(load(threeRelus(0, 0, 128)), nullptr) << "h1 larger than the whole block";
    expectError({"places tensor 'h1' of 256 bytes at offset 0, past its activation block of 128 bytes"});
    EXPECT_EQ(load(threeRelus(256, 0, 384)), nullptr) << "h2 starts inside the block and ends past it";
    expectError({"places tensor 'h2' of 256 bytes at offset 256, past its activation block of 384 bytes"});
    auto engine = load(threeRelus(256, 0, 512));
    ASSERT_NE(engine, nullptr) << "h1 and h3 never live together: " << mLogger.all();
    EXPECT_TRUE(runOnce(*engine));
}

// Fuzzing found a plan whose shape-tensor input had fewer profile values than the profile's shape for it holds: loading
// read past them (ASan: SEGV in readShapeValue, through the activation check's binding of the kMAX values).
TEST_F(HostilePlan, AShapeInputWithTooFewProfileValuesIsRefused)
{
    // n: an INT32 shape-tensor input of extent k in [1, 2] whose values give y's length; the profile's values are one
    // per selector, which fills kMIN's and kOPT's shape [1] but not kMAX's [2].
    auto const model = [](Dims max) {
        ModelMaker m("hostile_shape_input");
        int32_t const n = m.input("n", DataType::kINT32);
        uint32_t const k = m.symbol("n.d0", SymbolKind::kINPUT_EXTENT, n, 0);
        m.setShape(n, {k});
        uint32_t const length = m.symbol("n.v0", SymbolKind::kSHAPE_VALUE, n, 0);
        int32_t const y = m.tensor("y", DataType::kFLOAT, {length});
        m.output(y);
        linspaceOfLength(m, n, y);
        m.range(n, Dims{1, {1}}, Dims{1, {1}}, max, {1}, {4}, {10});
        EngineModel made = m.finish(0);
        made.tensors[static_cast<std::size_t>(n)].isShapeTensor = true;
        return made;
    };
    EXPECT_EQ(load(model(Dims{1, {2}})), nullptr);
    expectError({"optimization profile 0 gives input 'n' 1 values at kMAX for its shape [2]"});
}

// A constant whose dimensions multiply past 2^63 (here to exactly 2^64, which wrapped to the 0 values it holds).
TEST_F(HostilePlan, AConstantWhoseDimensionsOverflowIsRefused)
{
    ModelMaker m("hostile_constant");
    int64_t const big = int64_t{1} << 32;
    int32_t const x = m.input("x", DataType::kFLOAT, {m.constant(1)});
    int32_t const c = m.tensor("c", DataType::kFLOAT, {m.constant(big), m.constant(big)});
    int32_t const y = m.tensor("y", DataType::kFLOAT, {m.constant(1)});
    m.output(y);
    m.layer("huge", ConstantParams{Dims{2, {big, big}}, Weights{DataType::kFLOAT, nullptr, 0}}, {}, {c});
    m.layer("relu", ActivationParams{nvinfer1::ActivationType::kRELU}, {x}, {y});
    m.range(x, Dims{1, {1}}, Dims{1, {1}}, Dims{1, {1}});
    EXPECT_EQ(load(m.finish(0)), nullptr);
    expectError({"huge", "[4294967296, 4294967296]", "more elements than a 64-bit count holds"});
}

//! y = conv(x) with x FP32 [1, 4, 8, 8]: the parameters as given, kernelValues ones as the kernel, the output's shape
//! as given.
EngineModel hostileConvolution(ConvolutionParams params, int64_t kernelValues, std::vector<int64_t> const& outShape)
{
    ModelMaker m("hostile_convolution");
    int32_t const x = m.input("x", DataType::kFLOAT, {m.constant(1), m.constant(4), m.constant(8), m.constant(8)});
    std::vector<uint32_t> shape;
    for (int64_t e : outShape)
    {
        shape.push_back(m.constant(e));
    }
    int32_t const y = m.tensor("y", DataType::kFLOAT, shape);
    m.output(y);
    params.kernel = m.weights(std::vector<float>(static_cast<std::size_t>(kernelValues), 1.F));
    m.layer("conv", LayerParams{std::move(params)}, {x}, {y});
    m.range(x, Dims{4, {1, 4, 8, 8}}, Dims{4, {1, 4, 8, 8}}, Dims{4, {1, 4, 8, 8}});
    return m.finish(0);
}

// Output maps x input channels x window past 2^63: 2^62 + 1 maps of 4 channels and a 1x1 window wrapped to 4, the
// kernel's 4 values, so the count check passed.
TEST_F(HostilePlan, AConvolutionWhoseKernelCountOverflowsIsRefused)
{
    int64_t const maps = (int64_t{1} << 62) + 1;
    ConvolutionParams params;
    params.nbOutputMaps = maps;
    params.kernelSize = Dims{2, {1, 1}};
    EXPECT_EQ(load(hostileConvolution(params, 4, {1, maps, 8, 8})), nullptr);
    expectError({"\"conv\"", "has 4 kernel values, not a multiple of 4611686018427387905 output maps"});
}

// A window whose span (1 + dilation * (size - 1)) overflows: size 2 and dilation 2^63 - 1.
TEST_F(HostilePlan, AConvolutionWindowWhoseSpanOverflowsIsRefused)
{
    ConvolutionParams params;
    params.nbOutputMaps = 1;
    params.kernelSize = Dims{2, {2, 1}};
    params.dilation = Dims{2, {std::numeric_limits<int64_t>::max(), 1}};
    EXPECT_EQ(load(hostileConvolution(params, 8, {1, 1, 8, 8})), nullptr);
    expectError({"\"conv\"", "has dilation extent 0 of 9223372036854775807", "window extents are 1 to 2147483647"});
}

} // namespace
} // namespace kiln::test
