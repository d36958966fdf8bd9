// SPDX-License-Identifier: Apache-2.0
// The CUDA point-wise program against the host reference (host::runPointwiseProgram): random programs over every
// operation a program computes, 1 to 8 inputs, random broadcast shapes of rank 1 to 5, kFLOAT, kHALF and kBF16; every
// operation alone on special values; layer-norm's tail; merged and unmerged broadcast patterns; in place; 64-bit
// indices; and the refusals, with their messages (these need no GPU).
//
// The tolerance of an element is the type's (tolerance()) plus the spread that the program itself gives to errors of
// the device's size: the host evaluates the element again with each step's result, and each activation's argument,
// moved by 2^-19 relative (16 float ulps and more, above what CUDA's float functions are off by), with several
// patterns of signs. A chain that cancels or a step that jumps (kFLOOR, kSIGN, kTHRESHOLDED_RELU...) near the element's
// value widens its tolerance; an element whose class (NaN, an infinity) the moves change is not compared.
#include "backends/host/activation.h"
#include "backends/host/elementwise.h"
#include "backends/host/pointwise_program.h"
#include "backends/host/unary.h"

#include "pointwise_test_util.h"

#include <memory>
#include <set>
#include <utility>

namespace kiln::cuda::test
{
namespace
{

using Kind = PointwiseStep::Kind;
using EOp = nvinfer1::ElementWiseOperation;
using UOp = nvinfer1::UnaryOperation;
using AType = nvinfer1::ActivationType;
using Program = std::vector<PointwiseStep>;

constexpr std::array<DataType, 3> kProgramTypes{DataType::kFLOAT, DataType::kHALF, DataType::kBF16};

PointwiseStep elementWise(EOp op, int32_t a, int32_t b)
{
    return {Kind::kELEMENTWISE, static_cast<int32_t>(op), 0.F, 0.F, a, b};
}

PointwiseStep unaryStep(UOp op, int32_t a)
{
    return {Kind::kUNARY, static_cast<int32_t>(op), 0.F, 0.F, a, 0};
}

constexpr int32_t step(int32_t k)
{
    return pointwiseStepOperand(k);
}

//! The operations of kind that a program computes.
std::vector<int32_t> programOps(Kind kind)
{
    std::size_t const size = kind == Kind::kELEMENTWISE ? host::elementWiseOps().size()
        : kind == Kind::kUNARY                          ? host::unaryOps().size()
                                                        : host::activations().size();
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

char const* opName(PointwiseStep const& s)
{
    switch (s.kind)
    {
    case Kind::kELEMENTWISE: return host::findElementWiseOp(static_cast<EOp>(s.op))->name;
    case Kind::kUNARY: return host::findUnaryOp(static_cast<UOp>(s.op))->name;
    case Kind::kACTIVATION: return host::findActivation(static_cast<AType>(s.op))->name;
    }
    return "?";
}

std::string describe(Program const& program)
{
    std::string text;
    for (PointwiseStep const& s : program)
    {
        text += std::string(text.empty() ? "" : "; ") + opName(s) + "(" + std::to_string(s.a)
            + (s.kind == Kind::kELEMENTWISE ? ", " + std::to_string(s.b) : "") + ")";
    }
    return text;
}

//! A random program of nbSteps steps over nbInputs inputs: every kind and allowed operation, operands among the
//! inputs and earlier steps (the previous step half of the time, so that chains form).
Program randomProgram(std::mt19937_64& rng, int32_t nbSteps, int32_t nbInputs)
{
    std::array<std::vector<int32_t>, 3> const ops{
        programOps(Kind::kELEMENTWISE), programOps(Kind::kUNARY), programOps(Kind::kACTIVATION)};
    std::uniform_real_distribution<float> parameter(-2.F, 2.F);
    auto const operand = [&](int32_t k) {
        if (k > 0 && rng() % 2 == 0)
        {
            return step(k - 1);
        }
        auto const v = static_cast<int32_t>(rng() % static_cast<uint64_t>(nbInputs + k));
        return v < nbInputs ? v : step(v - nbInputs);
    };
    Program program;
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

//! A random shape of rank 1 to 5.
Dims randomOutputShape(std::mt19937_64& rng, int64_t maxCount = 1024)
{
    Dims dims = randomShape(rng, 5, maxCount);
    while (dims.nbDims == 0)
    {
        dims = randomShape(rng, 5, maxCount);
    }
    return dims;
}

std::vector<HostTensor const*> viewsOf(std::vector<HostBuffer> const& buffers)
{
    std::vector<HostTensor const*> views;
    for (HostBuffer const& buffer : buffers)
    {
        views.push_back(&buffer.tensor());
    }
    return views;
}

//! The relative move of the sensitivity evaluation: 16 float ulps at least.
constexpr double kMove = 1.0 / (1 << 19);

//! The program on one element's input values, each step rounded to float as the host rounds it; with signs, each
//! activation's argument and each step's result moved by kMove times the sign (-1, 0 or +1) drawn for it.
float evaluate(Program const& program, std::vector<double> const& inputs, std::vector<int8_t> const* signs)
{
    std::vector<double> values = inputs;
    for (std::size_t s = 0; s < program.size(); ++s)
    {
        PointwiseStep const& st = program[s];
        auto const at = [&](int32_t v) {
            return values[v >= 0 ? static_cast<std::size_t>(v) : inputs.size() + static_cast<std::size_t>(-1 - v)];
        };
        double a = at(st.a);
        double const b = st.kind == Kind::kELEMENTWISE ? at(st.b) : 0.0;
        double moveResult = 0.0;
        if (signs != nullptr)
        {
            if (st.kind == Kind::kACTIVATION)
            {
                a *= 1.0 + kMove * (*signs)[2 * s];
            }
            moveResult = kMove * (*signs)[2 * s + 1];
        }
        double const v = host::pointwiseStepValue(st, a, b);
        values.push_back(static_cast<float>(v * (1.0 + moveResult)));
    }
    return static_cast<float>(values.back());
}

enum class Class
{
    kFINITE,
    kNAN,
    kPLUS_INF,
    kMINUS_INF
};

Class classOf(double v)
{
    if (std::isnan(v))
    {
        return Class::kNAN;
    }
    if (std::isinf(v))
    {
        return v > 0 ? Class::kPLUS_INF : Class::kMINUS_INF;
    }
    return Class::kFINITE;
}

//! How many elements were compared and how many skipped as unstable.
struct Counts
{
    int64_t compared{};
    int64_t unstable{};
};

//! Expects the device's result (actual) to match the host's (expected) within the type's tolerance plus the program's
//! spread at each element (the file comment).
Counts expectWithinSpread(Program const& program, std::vector<HostBuffer> const& inputs, HostBuffer const& expected,
    HostBuffer const& actual, std::string const& what)
{
    HostTensor const& e = expected.tensor();
    HostTensor const& a = actual.tensor();
    std::vector<host::BroadcastMap> maps;
    for (HostBuffer const& in : inputs)
    {
        maps.emplace_back(e.dims, in.tensor().dims);
    }
    // Sign patterns: all +, all -, then random ones (the same for every element).
    std::mt19937_64 rng(program.size() * 131 + inputs.size());
    std::vector<std::vector<int8_t>> patterns;
    for (int32_t p = 0; p < 6; ++p)
    {
        std::vector<int8_t> signs(2 * program.size());
        for (int8_t& sign : signs)
        {
            sign = p == 0 ? 1 : (p == 1 ? -1 : static_cast<int8_t>(rng() % 2 == 0 ? 1 : -1));
        }
        patterns.push_back(std::move(signs));
    }
    Counts counts;
    int failures = 0;
    std::vector<double> values(inputs.size());
    for (int64_t i = 0; i < host::elementCount(e) && failures < 10; ++i)
    {
        for (std::size_t k = 0; k < inputs.size(); ++k)
        {
            values[k] = host::loadFloat(inputs[k].tensor(), maps[k](i));
        }
        double const y = host::loadFloat(e, i);
        double const x = host::loadFloat(a, i);
        float const exact = evaluate(program, values, nullptr);
        // The test's evaluation is the host's.
        std::array<std::byte, 4> scratch{};
        HostTensor const rounded{scratch.data(), e.type, Dims{1, {1}}};
        host::storeFloat(rounded, 0, exact);
        double const check = host::loadFloat(rounded, 0);
        if (!((std::isnan(check) && std::isnan(y)) || check == y))
        {
            ADD_FAILURE() << what << " element " << i << ": the test evaluates " << check << ", the host " << y;
            return counts;
        }

        double spread = 0.0;
        bool stable = true;
        for (std::vector<int8_t> const& signs : patterns)
        {
            float const moved = evaluate(program, values, &signs);
            if (classOf(moved) != classOf(exact))
            {
                stable = false;
                break;
            }
            if (classOf(exact) == Class::kFINITE)
            {
                spread = std::max(spread, std::fabs(static_cast<double>(moved) - static_cast<double>(exact)));
            }
        }
        if (!stable)
        {
            ++counts.unstable;
            continue;
        }
        ++counts.compared;
        if (std::isnan(y) || std::isinf(y))
        {
            if (!((std::isnan(x) && std::isnan(y)) || x == y))
            {
                ADD_FAILURE() << what << " element " << i << ": device " << x << ", host " << y;
                ++failures;
            }
            continue;
        }
        double const bound = tolerance(e.type) * (1.0 + std::fabs(y)) + 2.0 * spread;
        if (!(std::fabs(x - y) <= bound))
        {
            ADD_FAILURE() << what << " element " << i << ": device " << x << ", host " << y << " (tolerance " << bound
                          << ", of which spread " << spread << ")";
            ++failures;
        }
    }
    return counts;
}

class CudaPointwiseProgram : public CudaKernelTest
{
protected:
    //! Runs program on inputs on the host and on the device into an output of type and outDims, and compares them.
    Counts compare(Program const& program, std::vector<HostBuffer> const& inputs, DataType type, Dims const& outDims,
        std::string const& what)
    {
        HostBuffer expected(type, outDims);
        host::Status const reference = host::runPointwiseProgram(program, viewsOf(inputs), expected.tensor());
        EXPECT_TRUE(reference.ok()) << what << ": " << reference.error().message;
        if (!reference.ok())
        {
            return {};
        }
        std::vector<DeviceBuffer> device;
        device.reserve(inputs.size());
        std::vector<HostTensor const*> views;
        for (HostBuffer const& in : inputs)
        {
            device.push_back(DeviceBuffer::upload(in.tensor()));
            views.push_back(&device.back().tensor());
        }
        DeviceBuffer const out(expected.tensor());
        Status const done = runPointwiseProgram(program, views, out.tensor(), launch());
        EXPECT_TRUE(done.ok()) << what << ": " << done.error().message;
        if (!done.ok())
        {
            return {};
        }
        return expectWithinSpread(program, inputs, expected, out.download(mStream), what);
    }

    //! Random inputs of type that broadcast to outDims.
    std::vector<HostBuffer> randomInputs(DataType type, Dims const& outDims, int32_t nbInputs)
    {
        std::vector<HostBuffer> inputs;
        for (int32_t k = 0; k < nbInputs; ++k)
        {
            inputs.emplace_back(type, broadcastInput(mRng, outDims));
            fillRandom(inputs.back(), mRng, -4.0, 4.0);
        }
        return inputs;
    }
};

TEST_F(CudaPointwiseProgram, RandomProgramsMatchTheHost)
{
    std::set<std::pair<Kind, int32_t>> seen;
    Counts total;
    for (DataType const type : kProgramTypes)
    {
        for (int32_t trial = 0; trial < 60; ++trial)
        {
            Dims const outDims = randomOutputShape(mRng);
            auto const nbInputs = static_cast<int32_t>(1 + mRng() % kMaxPointwiseInputs);
            auto const nbSteps
                = trial % 10 == 9 ? static_cast<int32_t>(kMaxPointwiseSteps) : static_cast<int32_t>(1 + mRng() % 10);
            std::vector<HostBuffer> const inputs = randomInputs(type, outDims, nbInputs);
            Program const program = randomProgram(mRng, nbSteps, nbInputs);
            for (PointwiseStep const& s : program)
            {
                seen.insert({s.kind, s.op});
            }
            std::string inputShapes;
            for (HostBuffer const& in : inputs)
            {
                inputShapes += " " + host::shapeString(in.tensor().dims);
            }
            Counts const counts = compare(program, inputs, type, outDims,
                std::string(dataTypeName(type)) + " trial " + std::to_string(trial) + ", output "
                    + host::shapeString(outDims) + ", inputs" + inputShapes + ": " + describe(program));
            total.compared += counts.compared;
            total.unstable += counts.unstable;
        }
    }
    for (Kind const kind : {Kind::kELEMENTWISE, Kind::kUNARY, Kind::kACTIVATION})
    {
        for (int32_t const op : programOps(kind))
        {
            EXPECT_TRUE(seen.contains({kind, op}))
                << "no random program computed " << opName(PointwiseStep{kind, op, 0.F, 0.F, 0, 0});
        }
    }
    EXPECT_GT(total.compared, 0);
    RecordProperty("compared", std::to_string(total.compared));
    RecordProperty("unstable", std::to_string(total.unstable));
}

//! Random programs on shapes whose innermost extent is a multiple of 8 (and of 4 only, which kFLOAT runs four lanes
//! wide): the wide kernels, with inputs contiguous or broadcast in the innermost dimension, and programs of up to
//! kMaxPointwiseSteps steps whose saved results reuse slots, or need more than the wide kernel has and run one lane
//! per thread.
TEST_F(CudaPointwiseProgram, RandomProgramsInVectors)
{
    std::array<int64_t, 6> const inner{8, 16, 24, 64, 4, 12};
    Counts total;
    for (DataType const type : kProgramTypes)
    {
        for (int32_t trial = 0; trial < 48; ++trial)
        {
            int64_t const columns = inner[static_cast<std::size_t>(trial) % inner.size()];
            Dims const outDims = trial % 2 == 0 ? Dims{2, {static_cast<int64_t>(1 + mRng() % 40), columns}}
                                                : Dims{3, {static_cast<int64_t>(1 + mRng() % 5), 3, columns}};
            auto const nbInputs = static_cast<int32_t>(1 + mRng() % kMaxPointwiseInputs);
            auto const nbSteps
                = trial % 4 == 3 ? static_cast<int32_t>(kMaxPointwiseSteps) : static_cast<int32_t>(1 + mRng() % 12);
            std::vector<HostBuffer> const inputs = randomInputs(type, outDims, nbInputs);
            Program const program = randomProgram(mRng, nbSteps, nbInputs);
            Counts const counts = compare(program, inputs, type, outDims,
                std::string(dataTypeName(type)) + " trial " + std::to_string(trial) + ", output "
                    + host::shapeString(outDims) + ": " + describe(program));
            total.compared += counts.compared;
        }
    }
    EXPECT_GT(total.compared, 0);
}

//! Each operation alone, on broadcast inputs with special values: the device computes the operation it is asked.
TEST_F(CudaPointwiseProgram, EveryOperationAlone)
{
    for (Kind const kind : {Kind::kELEMENTWISE, Kind::kUNARY, Kind::kACTIVATION})
    {
        for (int32_t const op : programOps(kind))
        {
            for (DataType const type : kProgramTypes)
            {
                std::vector<HostBuffer> inputs;
                inputs.emplace_back(type, Dims{2, {37, 1}});
                inputs.emplace_back(type, Dims{2, {1, 29}});
                for (HostBuffer& in : inputs)
                {
                    fillRandom(in, mRng, -3.0, 3.0);
                }
                bool const binary = kind == Kind::kELEMENTWISE;
                Program const program{{kind, op, 0.75F, 1.25F, binary ? 0 : 1, binary ? 1 : 0}};
                compare(program, inputs, type, Dims{2, {37, 29}}, describe(program) + " " + dataTypeName(type));
            }
        }
    }
}

//! (x - mean) / sqrt(var + eps) * gamma + beta, x [8, 128, 512], mean and var [8, 128, 1], eps [1, 1, 1], gamma and
//! beta [1, 1, 512]: the merged layout has rank 2.
TEST_F(CudaPointwiseProgram, LayerNormTail)
{
    Program const program{elementWise(EOp::kSUB, 0, 1), elementWise(EOp::kSUM, 2, 3), unaryStep(UOp::kSQRT, step(1)),
        elementWise(EOp::kDIV, step(0), step(2)), elementWise(EOp::kPROD, step(3), 4),
        elementWise(EOp::kSUM, step(4), 5)};
    Dims const outDims{3, {8, 128, 512}};
    for (DataType const type : kProgramTypes)
    {
        std::vector<HostBuffer> inputs;
        for (Dims const& dims : {outDims, Dims{3, {8, 128, 1}}, Dims{3, {8, 128, 1}}, Dims{3, {1, 1, 1}},
                 Dims{3, {1, 1, 512}}, Dims{3, {1, 1, 512}}})
        {
            inputs.emplace_back(type, dims);
        }
        fillRandom(inputs[0], mRng, -3.0, 3.0, false);
        fillRandom(inputs[1], mRng, -0.5, 0.5, false);
        fillRandom(inputs[2], mRng, 0.05, 2.0, false);
        host::storeFloat(inputs[3].tensor(), 0, 1e-5);
        fillRandom(inputs[4], mRng, 0.5, 1.5, false);
        fillRandom(inputs[5], mRng, -1.0, 1.0, false);
        Counts const counts = compare(program, inputs, type, outDims, std::string("layer norm ") + dataTypeName(type));
        EXPECT_EQ(counts.unstable, 0);
        EXPECT_EQ(counts.compared, host::elementCount(outDims));
    }
}

//! Broadcast patterns that merge and that do not: extents of 1 in the output, inputs of all 1, an output larger
//! than every input, alternating patterns, rank 5, and those of the 16-byte vector kernel.
TEST_F(CudaPointwiseProgram, BroadcastPatterns)
{
    struct Case
    {
        Dims out;
        std::vector<Dims> inputs;
    };
    std::vector<Case> const cases{
        {Dims{5, {2, 3, 4, 5, 6}}, {Dims{5, {2, 3, 4, 5, 6}}, Dims{5, {2, 3, 4, 5, 6}}}},
        {Dims{5, {2, 3, 4, 5, 6}}, {Dims{5, {1, 3, 1, 5, 1}}, Dims{5, {2, 1, 4, 1, 6}}, Dims{5, {1, 1, 1, 1, 1}}}},
        {Dims{4, {1, 7, 1, 9}}, {Dims{4, {1, 7, 1, 1}}, Dims{4, {1, 1, 1, 9}}}},
        {Dims{3, {6, 1, 10}}, {Dims{3, {1, 1, 1}}, Dims{3, {6, 1, 1}}}},
        {Dims{2, {33, 65}}, {Dims{2, {1, 65}}, Dims{2, {1, 65}}, Dims{2, {33, 1}}}},
        {Dims{1, {1}}, {Dims{1, {1}}}},
        // Vectors of 16 bytes (innermost extent a multiple of 8): BERT's embeddings (word + token + position), and an
        // input broadcast along the innermost dimension.
        {Dims{3, {4, 16, 24}}, {Dims{3, {4, 16, 24}}, Dims{3, {4, 16, 24}}, Dims{3, {1, 16, 24}}}},
        {Dims{3, {3, 5, 32}}, {Dims{3, {3, 5, 32}}, Dims{3, {3, 5, 1}}, Dims{3, {1, 1, 32}}}},
        {Dims{3, {4, 0, 5}}, {Dims{3, {4, 1, 5}}, Dims{3, {4, 0, 1}}}},
        {Dims{4, {3, 5, 7, 11}},
            {Dims{4, {3, 5, 7, 11}}, Dims{4, {3, 5, 1, 1}}, Dims{4, {1, 1, 7, 11}}, Dims{4, {3, 1, 7, 1}},
                Dims{4, {1, 5, 1, 11}}, Dims{4, {1, 1, 1, 11}}, Dims{4, {3, 1, 1, 1}}, Dims{4, {1, 5, 7, 1}}}},
    };
    for (DataType const type : kProgramTypes)
    {
        for (Case const& c : cases)
        {
            auto const nbInputs = static_cast<int32_t>(c.inputs.size());
            std::vector<HostBuffer> inputs;
            for (Dims const& dims : c.inputs)
            {
                inputs.emplace_back(type, dims);
                fillRandom(inputs.back(), mRng, -2.0, 2.0, false);
            }
            // The sum of every input, then a product with the first: every input's index is used.
            Program program;
            for (int32_t k = 1; k < nbInputs; ++k)
            {
                program.push_back(elementWise(EOp::kSUM, k == 1 ? 0 : step(k - 2), k));
            }
            program.push_back(elementWise(EOp::kPROD, program.empty() ? 0 : step(nbInputs - 2), 0));
            compare(program, inputs, type, c.out, std::string(dataTypeName(type)) + " " + host::shapeString(c.out));
        }
    }
}

//! The output may be an input of its own shape; the inputs may be one tensor twice.
TEST_F(CudaPointwiseProgram, InPlaceAndRepeatedInputs)
{
    HostBuffer x(DataType::kHALF, Dims{2, {64, 48}});
    HostBuffer scale(DataType::kHALF, Dims{2, {64, 1}});
    fillRandom(x, mRng, -2.0, 2.0);
    fillRandom(scale, mRng, -2.0, 2.0);
    Program const program{elementWise(EOp::kPROD, 0, 1),
        {Kind::kACTIVATION, static_cast<int32_t>(AType::kGELU_ERF), 0.F, 0.F, step(0), 0},
        elementWise(EOp::kSUM, step(1), 2)};
    std::array<HostTensor const*, 3> const hostInputs{&x.tensor(), &scale.tensor(), &x.tensor()};
    HostBuffer expected(DataType::kHALF, x.tensor().dims);
    ASSERT_TRUE(host::runPointwiseProgram(program, hostInputs, expected.tensor()).ok());

    DeviceBuffer const dx = DeviceBuffer::upload(x.tensor());
    DeviceBuffer const dscale = DeviceBuffer::upload(scale.tensor());
    std::array<HostTensor const*, 3> const deviceInputs{&dx.tensor(), &dscale.tensor(), &dx.tensor()};
    Status const done = runPointwiseProgram(program, deviceInputs, dx.tensor(), launch());
    ASSERT_TRUE(done.ok()) << done.error().message;
    std::vector<HostBuffer> inputs;
    inputs.push_back(std::move(x));
    inputs.push_back(std::move(scale));
    HostBuffer xAgain(DataType::kHALF, inputs[0].tensor().dims);
    std::copy(inputs[0].bytes().begin(), inputs[0].bytes().end(), xAgain.bytes().begin());
    inputs.push_back(std::move(xAgain));
    expectWithinSpread(program, inputs, expected, dx.download(mStream), "in place");
}

//! More than 2^31 output elements: the 64-bit index arithmetic. a [65536, 1] + b [1, 32769], checked at a sample of
//! elements (the sum of two small integers, exact in kHALF).
TEST_F(CudaPointwiseProgram, SixtyFourBitIndices)
{
    Dims const outDims{2, {65536, 32769}};
    int64_t const count = host::elementCount(outDims);
    std::size_t const outBytes = static_cast<std::size_t>(count) * 2;
    std::size_t freeBytes = 0;
    std::size_t totalBytes = 0;
    ASSERT_EQ(cudaMemGetInfo(&freeBytes, &totalBytes), cudaSuccess);
    if (freeBytes < outBytes + (std::size_t{1} << 30))
    {
        GTEST_SKIP() << "needs " << outBytes << " bytes of device memory, " << freeBytes << " free";
    }
    HostBuffer a(DataType::kHALF, Dims{2, {65536, 1}});
    HostBuffer b(DataType::kHALF, Dims{2, {1, 32769}});
    for (int64_t i = 0; i < 65536; ++i)
    {
        host::storeFloat(a.tensor(), i, static_cast<double>(i % 61) * 8.0);
    }
    for (int64_t j = 0; j < 32769; ++j)
    {
        host::storeFloat(b.tensor(), j, static_cast<double>(j % 7));
    }
    DeviceBuffer const da = DeviceBuffer::upload(a.tensor());
    DeviceBuffer const db = DeviceBuffer::upload(b.tensor());
    // Not a DeviceBuffer: that would size itself with a host buffer of the same 4 GiB.
    void* outData = nullptr;
    ASSERT_EQ(cudaMalloc(&outData, outBytes), cudaSuccess);
    std::unique_ptr<void, void (*)(void*)> const owner(outData, [](void* p) { static_cast<void>(cudaFree(p)); });
    HostTensor const out{outData, DataType::kHALF, outDims};
    std::array<HostTensor const*, 2> const inputs{&da.tensor(), &db.tensor()};
    Program const program{elementWise(EOp::kSUM, 0, 1)};
    Status const done = runPointwiseProgram(program, inputs, out, launch());
    ASSERT_TRUE(done.ok()) << done.error().message;
    ASSERT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
    std::vector<int64_t> samples{0, 1, 32768, 32769, count / 2, (int64_t{1} << 31) - 1, int64_t{1} << 31,
        (int64_t{1} << 31) + 12345, count - 2, count - 1};
    for (int64_t i = 0; i < count; i += 7919 * 4099)
    {
        samples.push_back(i);
    }
    for (int64_t const i : samples)
    {
        uint16_t bits = 0;
        ASSERT_EQ(
            cudaMemcpy(&bits, static_cast<std::byte const*>(outData) + i * 2, 2, cudaMemcpyDeviceToHost), cudaSuccess);
        HostTensor const element{&bits, DataType::kHALF, Dims{1, {1}}};
        double const expected = static_cast<double>((i / 32769) % 61) * 8.0 + static_cast<double>(i % 32769 % 7);
        EXPECT_EQ(host::loadFloat(element, 0), expected) << "element " << i;
    }
}

//! The refusals come before any CUDA call: these run without a GPU, on addresses never dereferenced.
TEST(CudaPointwiseProgramRefusals, NameWhatIsRefused)
{
    auto* const fake = reinterpret_cast<void*>(uintptr_t{0x10000});
    Dims const shape{2, {2, 3}};
    HostTensor const x{fake, DataType::kFLOAT, shape};
    auto const expectError = [](Status const& status, std::string const& fragment) {
        ASSERT_FALSE(status.ok()) << "expected an error holding \"" << fragment << "\"";
        EXPECT_NE(status.error().message.find(fragment), std::string::npos) << status.error().message;
    };
    auto const run = [](Program const& program, std::vector<HostTensor const*> const& inputs, HostTensor const& out) {
        return runPointwiseProgram(program, inputs, out, Launch{});
    };
    Program const sum{elementWise(EOp::kSUM, 0, 1)};

    Program tooLong(kMaxPointwiseSteps + 1, unaryStep(UOp::kNEG, 0));
    expectError(run(tooLong, {&x}, x), "pointwise program: it has 33 steps; the CUDA kernel computes at most 32");
    Program longest(kMaxPointwiseSteps, unaryStep(UOp::kNEG, 0));
    std::vector<HostTensor const*> const nine(kMaxPointwiseInputs + 1, &x);
    expectError(run(sum, nine, x), "pointwise program: it has 9 inputs; the CUDA kernel takes at most 8");
    expectError(run(sum, {&x, nullptr}, x), "pointwise program: input 1 is missing");
    expectError(run(Program{elementWise(EOp::kSUM, 0, step(1))}, {&x, &x}, x),
        "pointwise step 0: operand b = -2 names step 1, which is not before it");
    expectError(run(Program{elementWise(EOp::kEQUAL, 0, 1)}, {&x, &x}, x),
        "pointwise step 0: element-wise kEQUAL is not arithmetic");
    expectError(run(Program{unaryStep(UOp::kISINF, 0)}, {&x}, x), "pointwise step 0: unary kISINF has no float result");
    HostTensor const i8{fake, DataType::kINT8, shape};
    expectError(run(sum, {&i8, &i8}, i8), "pointwise program: the output is kINT8");
    HostTensor const half{fake, DataType::kHALF, shape};
    expectError(run(sum, {&x, &half}, x), "pointwise program: input 1 is kHALF but the output is kFLOAT");
    HostTensor const wide{fake, DataType::kFLOAT, Dims{2, {2, 4}}};
    expectError(run(sum, {&x, &wide}, x), "pointwise program: input 1 [2, 4] does not broadcast to the output [2, 3]");
    HostTensor const noData{nullptr, DataType::kFLOAT, shape};
    expectError(run(sum, {&x, &noData}, x), "pointwise program: input 1 of shape [2, 3] has no data");
    HostTensor const misaligned{static_cast<std::byte*>(fake) + 2, DataType::kFLOAT, shape};
    expectError(run(sum, {&x, &misaligned}, x),
        "pointwise program: input 1's device data is not aligned to its 4-byte elements");
    expectError(run(sum, {&x, &x}, misaligned),
        "pointwise program: output's device data is not aligned to its 4-byte elements");
    // An empty output launches nothing (and so needs no GPU).
    HostTensor const empty{fake, DataType::kFLOAT, Dims{2, {0, 3}}};
    HostTensor const row{fake, DataType::kFLOAT, Dims{2, {1, 3}}};
    EXPECT_TRUE(run(longest, {&row}, empty).ok());
}

} // namespace
} // namespace kiln::cuda::test
