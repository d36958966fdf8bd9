// SPDX-License-Identifier: Apache-2.0
// The host point-wise program against the composition of the unfused host kernels (runElementWise, runUnary,
// runActivation) on kFLOAT temporaries, the inputs widened to kFLOAT and the last result narrowed to the program's
// type: random programs over every operation a program computes, random broadcast shapes, kFLOAT, kHALF and kBF16,
// equal element for element (a program rounds each step to float and the output once, as that chain does). Also:
// what skipping the intermediate roundings changes in kHALF, layer-norm's tail against its formula, in place, and
// every refusal with its message.
#include "backends/host/activation.h"
#include "backends/host/elementwise.h"
#include "backends/host/pointwise_program.h"
#include "backends/host/unary.h"

#include "host_test_util.h"

#include <array>
#include <memory>

namespace kiln::host::test
{
namespace
{

using Kind = PointwiseStep::Kind;
using EOp = ElementWiseOperation;
using UOp = UnaryOperation;
using AType = ActivationType;

constexpr std::array<DataType, 3> kProgramTypes{DataType::kFLOAT, DataType::kHALF, DataType::kBF16};

PointwiseStep elementWise(EOp op, int32_t a, int32_t b)
{
    return {Kind::kELEMENTWISE, static_cast<int32_t>(op), 0.F, 0.F, a, b};
}

PointwiseStep unary(UOp op, int32_t a)
{
    return {Kind::kUNARY, static_cast<int32_t>(op), 0.F, 0.F, a, 0};
}

PointwiseStep activation(AType type, int32_t a, float alpha = 0.F, float beta = 0.F)
{
    return {Kind::kACTIVATION, static_cast<int32_t>(type), alpha, beta, a, 0};
}

constexpr int32_t step(int32_t k)
{
    return pointwiseStepOperand(k);
}

//! The operations of kind that a program computes (isPointwiseOp over the kind's table).
std::vector<int32_t> programOps(Kind kind)
{
    std::size_t const size = kind == Kind::kELEMENTWISE ? elementWiseOps().size()
        : kind == Kind::kUNARY                          ? unaryOps().size()
                                                        : activations().size();
    std::vector<int32_t> ops;
    for (std::size_t op = 0; op < size; ++op)
    {
        if (isPointwiseOp(kind, static_cast<int32_t>(op)))
        {
            ops.push_back(static_cast<int32_t>(op));
        }
    }
    return ops;
}

//! A random program of nbSteps steps over nbInputs inputs: every kind and allowed operation, operands among the
//! inputs and earlier steps (the previous step half of the time, so that chains form).
std::vector<PointwiseStep> randomProgram(std::mt19937& rng, int32_t nbSteps, int32_t nbInputs)
{
    std::array<std::vector<int32_t>, 3> const ops{
        programOps(Kind::kELEMENTWISE), programOps(Kind::kUNARY), programOps(Kind::kACTIVATION)};
    std::uniform_real_distribution<float> parameter(-2.F, 2.F);
    auto const operand = [&](int32_t k) {
        if (k > 0 && rng() % 2 == 0)
        {
            return step(k - 1);
        }
        auto const v = static_cast<int32_t>(rng() % static_cast<uint32_t>(nbInputs + k));
        return v < nbInputs ? v : step(v - nbInputs);
    };
    std::vector<PointwiseStep> program;
    for (int32_t k = 0; k < nbSteps; ++k)
    {
        auto const kind = static_cast<Kind>(rng() % 3);
        std::vector<int32_t> const& choices = ops[static_cast<std::size_t>(kind)];
        PointwiseStep s{kind, choices[rng() % choices.size()], 0.F, 0.F, operand(k), 0};
        if (kind == Kind::kELEMENTWISE)
        {
            s.b = operand(k);
        }
        if (kind == Kind::kACTIVATION)
        {
            s.alpha = parameter(rng);
            s.beta = parameter(rng);
        }
        program.push_back(s);
    }
    return program;
}

std::string describe(std::vector<PointwiseStep> const& program)
{
    std::string text;
    for (PointwiseStep const& s : program)
    {
        char const* const name = s.kind == Kind::kELEMENTWISE ? findElementWiseOp(static_cast<EOp>(s.op))->name
            : s.kind == Kind::kUNARY                          ? findUnaryOp(static_cast<UOp>(s.op))->name
                                                              : findActivation(static_cast<AType>(s.op))->name;
        text += std::string(text.empty() ? "" : "; ") + name + "(" + std::to_string(s.a)
            + (s.kind == Kind::kELEMENTWISE ? ", " + std::to_string(s.b) : "") + ")";
    }
    return text;
}

//! in as a kFLOAT buffer (exact for kHALF and kBF16).
HostBuffer widened(HostTensor const& in)
{
    HostBuffer out(DataType::kFLOAT, in.dims);
    for (int64_t i = 0; i < elementCount(in); ++i)
    {
        storeFloat(out.tensor(), i, loadFloat(in, i));
    }
    return out;
}

//! The program as its chain of unfused kernels on kFLOAT temporaries, the last result broadcast to out's shape and
//! rounded to out's type.
void runUnfused(std::vector<PointwiseStep> const& program, std::vector<HostBuffer> const& inputs, HostTensor const& out)
{
    std::vector<HostBuffer> wide;
    for (HostBuffer const& in : inputs)
    {
        wide.push_back(widened(in.tensor()));
    }
    std::vector<std::unique_ptr<HostBuffer>> results;
    auto const operand = [&](int32_t v) -> HostTensor const& {
        return v >= 0 ? wide[static_cast<std::size_t>(v)].tensor()
                      : results[static_cast<std::size_t>(-1 - v)]->tensor();
    };
    for (PointwiseStep const& s : program)
    {
        HostTensor const& a = operand(s.a);
        Status status = Done{};
        if (s.kind == Kind::kELEMENTWISE)
        {
            HostTensor const& b = operand(s.b);
            results.push_back(std::make_unique<HostBuffer>(DataType::kFLOAT, broadcastShapes(a.dims, b.dims).value()));
            status = runElementWise({static_cast<EOp>(s.op)}, a, b, results.back()->tensor());
        }
        else
        {
            results.push_back(std::make_unique<HostBuffer>(DataType::kFLOAT, a.dims));
            status = s.kind == Kind::kUNARY
                ? runUnary({static_cast<UOp>(s.op)}, a, results.back()->tensor())
                : runActivation({static_cast<AType>(s.op), s.alpha, s.beta}, a, results.back()->tensor());
        }
        ASSERT_TRUE(status.ok()) << status.error().message;
    }
    HostTensor const& last = results.back()->tensor();
    BroadcastMap const map(out.dims, last.dims);
    for (int64_t i = 0; i < elementCount(out); ++i)
    {
        storeFloat(out, i, loadFloat(last, map(i)));
    }
}

//! Expects equal values element for element (NaN with NaN, zeros with their sign).
void expectSame(HostTensor const& actual, HostTensor const& expected)
{
    int failures = 0;
    for (int64_t i = 0; i < elementCount(expected) && failures < 10; ++i)
    {
        double const x = loadFloat(actual, i);
        double const y = loadFloat(expected, i);
        bool const same = (std::isnan(x) && std::isnan(y)) || (x == y && std::signbit(x) == std::signbit(y));
        if (!same)
        {
            ADD_FAILURE() << "element " << i << ": fused " << x << ", unfused " << y;
            ++failures;
        }
    }
}

std::vector<HostTensor const*> pointers(std::vector<HostBuffer> const& buffers)
{
    std::vector<HostTensor const*> views;
    for (HostBuffer const& buffer : buffers)
    {
        views.push_back(&buffer.tensor());
    }
    return views;
}

TEST(HostPointwiseProgram, EqualsTheUnfusedKernels)
{
    for (DataType const type : kProgramTypes)
    {
        for (uint32_t trial = 0; trial < 60; ++trial)
        {
            std::mt19937 rng(9100U + 1000U * static_cast<uint32_t>(type) + trial);
            Dims const outDims = randomShape(rng);
            auto const nbInputs = static_cast<int32_t>(1 + rng() % 5);
            auto const nbSteps = static_cast<int32_t>(1 + rng() % 8);
            std::vector<HostBuffer> inputs;
            for (int32_t k = 0; k < nbInputs; ++k)
            {
                inputs.emplace_back(type, broadcastInput(rng, outDims));
                fillFloating(rng, inputs.back(), -4.0, 4.0);
            }
            std::vector<PointwiseStep> const program = randomProgram(rng, nbSteps, nbInputs);
            SCOPED_TRACE(std::string(dataTypeName(type)) + " trial " + std::to_string(trial) + " "
                + shapeString(outDims) + ": " + describe(program));

            HostBuffer fused(type, outDims);
            Status const status = runPointwiseProgram(program, pointers(inputs), fused.tensor());
            ASSERT_TRUE(status.ok()) << status.error().message;
            HostBuffer unfused(type, outDims);
            runUnfused(program, inputs, unfused.tensor());
            expectSame(fused.tensor(), unfused.tensor());
        }
    }
}

TEST(HostPointwiseProgram, EveryOperationAlone)
{
    std::mt19937 rng(77);
    Dims const outDims{2, {3, 5}};
    for (Kind const kind : {Kind::kELEMENTWISE, Kind::kUNARY, Kind::kACTIVATION})
    {
        for (int32_t const op : programOps(kind))
        {
            for (DataType const type : kProgramTypes)
            {
                std::vector<HostBuffer> inputs;
                inputs.emplace_back(type, Dims{2, {3, 1}});
                inputs.emplace_back(type, Dims{2, {1, 5}});
                for (HostBuffer& in : inputs)
                {
                    fillFloating(rng, in, -3.0, 3.0);
                }
                std::vector<PointwiseStep> const program{
                    {kind, op, 0.5F, 1.5F, kind == Kind::kELEMENTWISE ? 0 : 1, kind == Kind::kELEMENTWISE ? 1 : 0}};
                SCOPED_TRACE(describe(program) + " " + dataTypeName(type));
                HostBuffer fused(type, outDims);
                Status const status = runPointwiseProgram(program, pointers(inputs), fused.tensor());
                ASSERT_TRUE(status.ok()) << status.error().message;
                HostBuffer unfused(type, outDims);
                runUnfused(program, inputs, unfused.tensor());
                expectSame(fused.tensor(), unfused.tensor());
            }
        }
    }
}

//! (x + e) - x with x = 1 and e = 2^-12 in kHALF: the unfused kernels round 1 + 2^-12 to 1 and give 0; the program
//! keeps it in float and gives 2^-12, rounded once at the end.
TEST(HostPointwiseProgram, RoundsOnceAtTheEnd)
{
    std::vector<HostBuffer> inputs;
    inputs.emplace_back(DataType::kHALF, Dims{1, {1}});
    inputs.emplace_back(DataType::kHALF, Dims{1, {1}});
    storeFloat(inputs[0].tensor(), 0, 1.0);
    storeFloat(inputs[1].tensor(), 0, std::ldexp(1.0, -12));
    std::vector<PointwiseStep> const program{elementWise(EOp::kSUM, 0, 1), elementWise(EOp::kSUB, step(0), 0)};
    HostBuffer fused(DataType::kHALF, Dims{1, {1}});
    ASSERT_TRUE(runPointwiseProgram(program, pointers(inputs), fused.tensor()).ok());
    EXPECT_EQ(loadFloat(fused.tensor(), 0), std::ldexp(1.0, -12));

    HostBuffer sum(DataType::kHALF, Dims{1, {1}});
    HostBuffer difference(DataType::kHALF, Dims{1, {1}});
    ASSERT_TRUE(runElementWise({EOp::kSUM}, inputs[0].tensor(), inputs[1].tensor(), sum.tensor()).ok());
    ASSERT_TRUE(runElementWise({EOp::kSUB}, sum.tensor(), inputs[0].tensor(), difference.tensor()).ok());
    EXPECT_EQ(loadFloat(difference.tensor(), 0), 0.0);
}

//! (x - mean) / sqrt(var + eps) * gamma + beta against the formula in double.
TEST(HostPointwiseProgram, LayerNormTail)
{
    std::vector<PointwiseStep> const program{elementWise(EOp::kSUB, 0, 1), elementWise(EOp::kSUM, 2, 3),
        unary(UOp::kSQRT, step(1)), elementWise(EOp::kDIV, step(0), step(2)), elementWise(EOp::kPROD, step(3), 4),
        elementWise(EOp::kSUM, step(4), 5)};
    Dims const outDims{3, {4, 16, 32}};
    for (DataType const type : kProgramTypes)
    {
        std::mt19937 rng(31 + static_cast<uint32_t>(type));
        std::vector<HostBuffer> inputs;
        for (Dims const& dims : {outDims, Dims{3, {4, 16, 1}}, Dims{3, {4, 16, 1}}, Dims{3, {1, 1, 1}},
                 Dims{3, {1, 1, 32}}, Dims{3, {1, 1, 32}}})
        {
            inputs.emplace_back(type, dims);
        }
        fillFloating(rng, inputs[0], -3.0, 3.0, false);
        fillFloating(rng, inputs[1], -0.5, 0.5, false);
        fillFloating(rng, inputs[2], 0.1, 2.0, false);
        storeFloat(inputs[3].tensor(), 0, 1e-5);
        fillFloating(rng, inputs[4], 0.5, 1.5, false);
        fillFloating(rng, inputs[5], -1.0, 1.0, false);
        HostBuffer out(type, outDims);
        Status const status = runPointwiseProgram(program, pointers(inputs), out.tensor());
        ASSERT_TRUE(status.ok()) << status.error().message;

        std::vector<BroadcastMap> maps;
        for (HostBuffer const& in : inputs)
        {
            maps.emplace_back(outDims, in.tensor().dims);
        }
        auto const value = [&](std::size_t k, int64_t i) { return loadFloat(inputs[k].tensor(), maps[k](i)); };
        for (int64_t i = 0; i < elementCount(outDims); ++i)
        {
            double const expected
                = (value(0, i) - value(1, i)) / std::sqrt(value(2, i) + value(3, i)) * value(4, i) + value(5, i);
            double const actual = loadFloat(out.tensor(), i);
            // A few float roundings, then the type's.
            double const bound = 1e-6 * (1.0 + std::fabs(expected)) + ulp(type, expected, 1.0F);
            ASSERT_LE(std::fabs(actual - expected), bound) << dataTypeName(type) << " element " << i;
        }
    }
}

//! The output may be an input of its shape.
TEST(HostPointwiseProgram, InPlace)
{
    std::mt19937 rng(5);
    std::vector<HostBuffer> inputs;
    inputs.emplace_back(DataType::kBF16, Dims{2, {4, 6}});
    inputs.emplace_back(DataType::kBF16, Dims{2, {4, 1}});
    fillFloating(rng, inputs[0], -2.0, 2.0);
    fillFloating(rng, inputs[1], -2.0, 2.0);
    std::vector<PointwiseStep> const program{
        elementWise(EOp::kPROD, 0, 1), activation(AType::kGELU_TANH, step(0)), elementWise(EOp::kSUM, step(1), 0)};
    HostBuffer expected(DataType::kBF16, Dims{2, {4, 6}});
    ASSERT_TRUE(runPointwiseProgram(program, pointers(inputs), expected.tensor()).ok());
    ASSERT_TRUE(runPointwiseProgram(program, pointers(inputs), inputs[0].tensor()).ok());
    expectSame(inputs[0].tensor(), expected.tensor());
}

TEST(HostPointwiseProgram, ChecksNameTheStep)
{
    Dims const shape{2, {2, 4}};
    std::vector<TensorDesc> const inputs{{DataType::kFLOAT, shape}, {DataType::kFLOAT, Dims{2, {1, 4}}}};
    TensorDesc const output{DataType::kFLOAT, shape};
    auto const check
        = [&](std::vector<PointwiseStep> const& program) { return checkPointwiseProgram(program, inputs, output); };
    PointwiseStep const sum = elementWise(EOp::kSUM, 0, 1);

    EXPECT_TRUE(check({sum, unary(UOp::kEXP, step(0)), elementWise(EOp::kPOW, step(1), step(0))}).ok());
    expectError(check({}), {"pointwise program: it has no steps"});
    expectError(check({sum, {static_cast<Kind>(3), 0, 0.F, 0.F, 0, 0}}),
        {"pointwise step 1: unknown kind 3 (kELEMENTWISE is 0, kUNARY 1, kACTIVATION 2)"});
    expectError(
        check({elementWise(static_cast<EOp>(14), 0, 1)}), {"pointwise step 0: unknown ElementWiseOperation 14"});
    expectError(check({sum, unary(static_cast<UOp>(-1), 0)}), {"pointwise step 1: unknown UnaryOperation -1"});
    expectError(check({activation(static_cast<AType>(14), 0)}), {"pointwise step 0: unknown ActivationType 14"});
    for (EOp const op : {EOp::kAND, EOp::kOR, EOp::kXOR, EOp::kEQUAL, EOp::kGREATER, EOp::kLESS})
    {
        expectError(check({sum, elementWise(op, step(0), 1)}),
            {std::string("pointwise step 1: element-wise ") + findElementWiseOp(op)->name + " is not arithmetic",
                "a program computes kSUM, kPROD, kMAX, kMIN, kSUB, kDIV, kPOW, kFLOOR_DIV"});
    }
    for (UOp const op : {UOp::kNOT, UOp::kISINF, UOp::kISNAN})
    {
        expectError(check({unary(op, 0)}),
            {std::string("pointwise step 0: unary ") + findUnaryOp(op)->name + " has no float result",
                "every unary operation but kNOT, kISINF, kISNAN"});
    }
    expectError(check({sum, elementWise(EOp::kSUM, step(0), 2)}),
        {"pointwise step 1: operand b names input 2, but the program has 2 inputs"});
    expectError(
        check({unary(UOp::kEXP, 7)}), {"pointwise step 0: operand a names input 7, but the program has 2 inputs"});
    expectError(check({sum, sum, sum, elementWise(EOp::kSUM, 0, step(4))}),
        {"pointwise step 3: operand b = -5 names step 4, which is not before it"});
    expectError(
        check({unary(UOp::kEXP, step(0))}), {"pointwise step 0: operand a = -1 names step 0, which is not before it"});
    expectError(check({sum, activation(AType::kRELU, std::numeric_limits<int32_t>::min())}),
        {"pointwise step 1: operand a = -2147483648 names step 2147483647, which is not before it"});
    expectError(check({sum, {Kind::kUNARY, static_cast<int32_t>(UOp::kSQRT), 0.F, 0.F, step(0), 2}}),
        {"pointwise step 1: kSQRT takes one operand, but b is 2 (it must be 0)"});
    expectError(check({{Kind::kACTIVATION, static_cast<int32_t>(AType::kELU), 1.F, 0.F, 0, step(0)}}),
        {"pointwise step 0: kELU takes one operand, but b is -1 (it must be 0)"});

    // Types and shapes.
    auto const checkWith = [&](std::vector<TensorDesc> const& in, TensorDesc const& out) {
        return checkPointwiseProgram(std::vector<PointwiseStep>{sum}, in, out);
    };
    for (DataType const type : allTypes())
    {
        if (!contains(kFloatingTypes, type))
        {
            expectError(checkWith({{type, shape}, {type, shape}}, {type, shape}),
                {std::string("pointwise program: the output is ") + dataTypeName(type),
                    "a program computes kFLOAT, kHALF, kBF16"});
        }
    }
    expectError(checkWith({{DataType::kFLOAT, shape}, {DataType::kHALF, shape}}, {DataType::kFLOAT, shape}),
        {"pointwise program: input 1 is kHALF but the output is kFLOAT; inputs and output share one type"});
    expectError(checkWith({{DataType::kHALF, shape}, {DataType::kHALF, shape}}, {DataType::kHALF, Dims{2, {2, -1}}}),
        {"pointwise program: the output shape [2, -1] is not a concrete shape"});
    expectError(checkWith({{DataType::kHALF, shape}, {DataType::kHALF, Dims{9, {}}}}, {DataType::kHALF, shape}),
        {"pointwise program: input 1's shape (rank 9) is not a concrete shape"});
    expectError(checkWith({{DataType::kBF16, Dims{1, {4}}}, {DataType::kBF16, shape}}, {DataType::kBF16, shape}),
        {"pointwise program: input 0 [4] has rank 1 but the output [2, 4] has rank 2"});
    expectError(checkWith({{DataType::kFLOAT, shape}, {DataType::kFLOAT, Dims{2, {2, 3}}}}, {DataType::kFLOAT, shape}),
        {"pointwise program: input 1 [2, 3] does not broadcast to the output [2, 4]: dimension 1 is 3, not 4 or 1"});
    expectError(checkWith({{DataType::kFLOAT, shape}, {DataType::kFLOAT, shape}}, {DataType::kFLOAT, Dims{2, {1, 4}}}),
        {"pointwise program: input 0 [2, 4] does not broadcast to the output [1, 4]: dimension 0 is 2, not 1 or 1"});
    // The output may be larger than every input.
    EXPECT_TRUE(checkWith(
        {{DataType::kFLOAT, Dims{2, {1, 4}}}, {DataType::kFLOAT, Dims{2, {2, 1}}}}, {DataType::kFLOAT, Dims{2, {2, 4}}})
                    .ok());
}

TEST(HostPointwiseProgram, RunChecksTheTensors)
{
    HostBuffer a(DataType::kFLOAT, Dims{2, {2, 3}});
    HostBuffer out(DataType::kFLOAT, Dims{2, {2, 3}});
    std::vector<PointwiseStep> const program{elementWise(EOp::kSUM, 0, 1)};
    std::array<HostTensor const*, 2> missing{&a.tensor(), nullptr};
    expectError(runPointwiseProgram(program, missing, out.tensor()), {"pointwise program: input 1 is missing"});
    HostTensor const noData{nullptr, DataType::kFLOAT, Dims{2, {2, 3}}};
    std::array<HostTensor const*, 2> const withoutData{&a.tensor(), &noData};
    expectError(runPointwiseProgram(program, withoutData, out.tensor()),
        {"pointwise program: input 1 of shape [2, 3] has no data"});
    std::array<HostTensor const*, 2> const both{&a.tensor(), &a.tensor()};
    expectError(runPointwiseProgram(program, both, noData), {"pointwise program: output of shape [2, 3] has no data"});
    expectError(runPointwiseProgram(std::vector<PointwiseStep>{elementWise(EOp::kSUM, 0, 2)}, both, out.tensor()),
        {"pointwise step 0: operand b names input 2, but the program has 2 inputs"});
    // Nothing is written on an error.
    storeFloat(out.tensor(), 0, 42.0);
    HostTensor const wrongType{out.tensor().data, DataType::kHALF, out.tensor().dims};
    expectError(runPointwiseProgram(program, both, wrongType), {"input 0 is kFLOAT but the output is kHALF"});
    EXPECT_EQ(loadFloat(out.tensor(), 0), 42.0);
    // An empty output computes nothing.
    HostBuffer empty(DataType::kFLOAT, Dims{2, {0, 3}});
    std::array<HostTensor const*, 2> const emptyInputs{&empty.tensor(), &a.tensor()};
    HostBuffer a1(DataType::kFLOAT, Dims{2, {1, 3}});
    std::array<HostTensor const*, 2> const broadcastEmpty{&empty.tensor(), &a1.tensor()};
    EXPECT_TRUE(runPointwiseProgram(program, broadcastEmpty, empty.tensor()).ok());
    expectError(runPointwiseProgram(program, emptyInputs, empty.tensor()),
        {"input 1 [2, 3] does not broadcast to the output [0, 3]: dimension 0 is 2, not 0 or 1"});
}

} // namespace
} // namespace kiln::host::test
