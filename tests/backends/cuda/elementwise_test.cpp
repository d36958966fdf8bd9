// SPDX-License-Identifier: Apache-2.0
// The CUDA element-wise kernel against the host reference: every operation on every type it accepts, random shapes of
// rank 0 to 5 with broadcasting and empty tensors, random values with special ones; every pair of special values;
// integer edges; in place; a tensor larger than one sweep of the grid; integer division by zero (0 on the device);
// and the refusals, with their messages (these need no GPU).
#include "backends/host/elementwise.h"

#include "pointwise_test_util.h"

namespace kiln::cuda::test
{
namespace
{

using Op = nvinfer1::ElementWiseOperation;

std::vector<Op> allOps()
{
    std::vector<Op> ops;
    for (host::ElementWiseOpInfo const& info : host::elementWiseOps())
    {
        ops.push_back(info.op);
    }
    return ops;
}

bool isComparison(Op op)
{
    return op == Op::kEQUAL || op == Op::kGREATER || op == Op::kLESS;
}

class CudaElementWise : public CudaKernelTest
{
protected:
    //! Runs op on a and b on the host and on the device, and compares the outputs (out's type, shape and scale).
    void compare(Op op, HostBuffer const& a, HostBuffer const& b, HostBuffer&& expected, std::string const& what)
    {
        host::Status const reference = host::runElementWise({op}, a.tensor(), b.tensor(), expected.tensor());
        ASSERT_TRUE(reference.ok()) << what << ": " << reference.error().message;
        DeviceBuffer const da = DeviceBuffer::upload(a.tensor());
        DeviceBuffer const db = DeviceBuffer::upload(b.tensor());
        DeviceBuffer const dout(expected.tensor());
        Status const done = runElementWise(ElementWiseParams{op}, da.tensor(), db.tensor(), dout.tensor(), launch());
        ASSERT_TRUE(done.ok()) << what << ": " << done.error().message;
        expectNear(dout.download(mStream), expected, 1.0, what);
    }

    //! Runs op on equal-length vectors of values stored as type (integers exactly) and compares with the host.
    void compareValues(Op op, DataType type, std::vector<double> const& x, std::vector<double> const& y)
    {
        Dims const shape{1, {static_cast<int64_t>(x.size())}};
        HostBuffer a(type, shape);
        HostBuffer b(type, shape);
        for (std::size_t i = 0; i < x.size(); ++i)
        {
            auto const index = static_cast<int64_t>(i);
            if (host::numberKind(type) == host::NumberKind::kFLOATING)
            {
                host::storeFloat(a.tensor(), index, x[i]);
                host::storeFloat(b.tensor(), index, y[i]);
            }
            else
            {
                host::storeInteger(a.tensor(), index, std::llround(x[i]));
                host::storeInteger(b.tensor(), index, std::llround(y[i]));
            }
        }
        DataType const outType = host::findElementWiseOp(op)->boolOutput ? DataType::kBOOL : type;
        compare(op, a, b, HostBuffer(outType, shape),
            std::string(host::findElementWiseOp(op)->name) + " " + dataTypeName(type));
    }
};

class CudaElementWiseRandom : public CudaElementWise, public ::testing::WithParamInterface<Op>
{
};

TEST_P(CudaElementWiseRandom, MatchesTheHost)
{
    Op const op = GetParam();
    host::ElementWiseOpInfo const& info = *host::findElementWiseOp(op);
    for (DataType const type : hostTypes())
    {
        if (!host::contains(info.inputs, type))
        {
            continue;
        }
        for (int32_t trial = 0; trial < 10; ++trial)
        {
            Dims const full = randomShape(mRng);
            Dims const aDims = broadcastInput(mRng, full);
            Dims const bDims = broadcastInput(mRng, full);
            Dims const outDims = broadcastOf({aDims, bDims});
            float const aScale = randomScale(mRng, type);
            // Comparisons of equal values need equal scales.
            float const bScale = isComparison(op) ? aScale : randomScale(mRng, type);
            HostBuffer a(type, aDims, aScale);
            HostBuffer b(type, bDims, bScale);
            bool const integerKind = host::numberKind(type) != host::NumberKind::kFLOATING;
            // Integral values now and then, so that comparisons meet equal operands.
            bool const integral = isComparison(op) && trial % 2 == 0;
            fillRandom(a, mRng, integral ? -3.0 : -4.0, integral ? 3.0 : 4.0, true, integral);
            fillRandom(b, mRng, integral ? -3.0 : -4.0, integral ? 3.0 : 4.0, true, integral);
            if (integerKind && (op == Op::kDIV || op == Op::kFLOOR_DIV || op == Op::kPOW))
            {
                // Defined operands only (the host refuses the rest): no zero divisor, exponents -3..12, no 0 base.
                for (int64_t i = 0; i < host::elementCount(bDims); ++i)
                {
                    int64_t v = host::loadInteger(b.tensor(), i);
                    v = op == Op::kPOW ? (v % 16 + 16) % 16 - 3 : (v == 0 ? 1 : v);
                    host::storeInteger(b.tensor(), i, v);
                }
                for (int64_t i = 0; op == Op::kPOW && i < host::elementCount(aDims); ++i)
                {
                    if (host::loadInteger(a.tensor(), i) == 0)
                    {
                        host::storeInteger(a.tensor(), i, 2);
                    }
                }
            }
            DataType const outType = info.boolOutput ? DataType::kBOOL : type;
            compare(op, a, b, HostBuffer(outType, outDims, randomScale(mRng, outType)),
                std::string(info.name) + " " + describe(a.tensor()) + " and " + describe(b.tensor()) + " trial "
                    + std::to_string(trial));
        }
    }
}

INSTANTIATE_TEST_SUITE_P(EveryOperation, CudaElementWiseRandom, ::testing::ValuesIn(allOps()),
    [](::testing::TestParamInfo<Op> const& param) {
        return std::string(host::findElementWiseOp(param.param)->name).substr(1);
    });

TEST_F(CudaElementWise, EveryPairOfSpecialValues)
{
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        double const inf = std::numeric_limits<double>::infinity();
        double const tiny = type == DataType::kHALF ? std::ldexp(1.0, -24) : std::ldexp(1.0, -133);
        double const big = type == DataType::kHALF ? 65504.0 : 3.0e38;
        std::vector<double> const specials{
            0.0, -0.0, inf, -inf, std::nan(""), 1.0, -1.0, tiny, -tiny, big, -big, 2.5, -7.0};
        std::vector<double> x;
        std::vector<double> y;
        for (double const p : specials)
        {
            for (double const q : specials)
            {
                x.push_back(p);
                y.push_back(q);
            }
        }
        for (host::ElementWiseOpInfo const& info : host::elementWiseOps())
        {
            if (host::contains(info.inputs, type))
            {
                compareValues(info.op, type, x, y);
            }
        }
    }
}

TEST_F(CudaElementWise, IntegerEdges)
{
    for (DataType const type : {DataType::kINT32, DataType::kINT64})
    {
        bool const wide = type == DataType::kINT64;
        auto const lowest
            = static_cast<double>(wide ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int32_t>::min());
        // 2^62 stands for a large int64_t (INT64_MAX does not survive a double); INT32_MAX is exact.
        double const highest = wide ? std::ldexp(1.0, 62) : std::numeric_limits<int32_t>::max();
        std::vector<double> const values{lowest, highest, -7, -2, -1, 0, 1, 2, 3, 31, 40, 63, 64};
        for (host::ElementWiseOpInfo const& info : host::elementWiseOps())
        {
            if (!host::contains(info.inputs, type))
            {
                continue;
            }
            std::vector<double> x;
            std::vector<double> y;
            for (double const p : values)
            {
                for (double const q : values)
                {
                    bool const refused = (info.op == Op::kDIV || info.op == Op::kFLOOR_DIV) ? q == 0.0
                        : info.op == Op::kPOW                                               ? p == 0.0 && q < 0.0
                                                                                            : false;
                    if (!refused)
                    {
                        x.push_back(p);
                        y.push_back(q);
                    }
                }
            }
            compareValues(info.op, type, x, y);
        }
    }
}

TEST_F(CudaElementWise, LogicalOperationsOnEveryPair)
{
    for (Op const op : {Op::kAND, Op::kOR, Op::kXOR})
    {
        compareValues(op, DataType::kBOOL, {0, 0, 1, 1}, {0, 1, 0, 1});
    }
}

TEST_F(CudaElementWise, InPlaceAndBroadcastOnBothSides)
{
    // [2, 1, 3] against [1, 4, 1], and a [4, 5] written over its own first input.
    HostBuffer a(DataType::kFLOAT, Dims{3, {2, 1, 3}});
    HostBuffer b(DataType::kFLOAT, Dims{3, {1, 4, 1}});
    fillRandom(a, mRng, -2.0, 2.0, false);
    fillRandom(b, mRng, -2.0, 2.0, false);
    compare(Op::kSUB, a, b, HostBuffer(DataType::kFLOAT, Dims{3, {2, 4, 3}}), "outer difference");

    HostBuffer x(DataType::kINT32, Dims{2, {4, 5}});
    HostBuffer y(DataType::kINT32, Dims{2, {4, 1}});
    fillRandom(x, mRng, -50.0, 50.0);
    fillRandom(y, mRng, -50.0, 50.0);
    HostBuffer expected(DataType::kINT32, x.tensor().dims);
    ASSERT_TRUE(host::runElementWise({Op::kPROD}, x.tensor(), y.tensor(), expected.tensor()).ok());
    DeviceBuffer const dx = DeviceBuffer::upload(x.tensor());
    DeviceBuffer const dy = DeviceBuffer::upload(y.tensor());
    Status const done = runElementWise(ElementWiseParams{Op::kPROD}, dx.tensor(), dy.tensor(), dx.tensor(), launch());
    ASSERT_TRUE(done.ok()) << done.error().message;
    expectNear(dx.download(mStream), expected, 1.0, "in place");
}

TEST_F(CudaElementWise, LargerThanOneSweepOfTheGrid)
{
    // 3 * 1024 * 1000 elements, more than the grid's threads: each thread strides over several.
    HostBuffer a(DataType::kHALF, Dims{3, {3, 1024, 1000}});
    HostBuffer b(DataType::kHALF, Dims{3, {1, 1024, 1}});
    fillRandom(a, mRng, -8.0, 8.0, false);
    fillRandom(b, mRng, -8.0, 8.0, false);
    compare(Op::kPROD, a, b, HostBuffer(DataType::kHALF, a.tensor().dims), "large kPROD");
}

TEST_F(CudaElementWise, EmptyOutputsLaunchNothing)
{
    HostTensor const a{nullptr, DataType::kFLOAT, Dims{2, {0, 3}}};
    HostTensor const b{nullptr, DataType::kFLOAT, Dims{2, {0, 1}}};
    Status const done = runElementWise(ElementWiseParams{Op::kSUM}, a, b, a, launch());
    EXPECT_TRUE(done.ok()) << done.error().message;
    EXPECT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
}

//! The host refuses integer division by zero and 0 to a negative power after reading the values; a kernel cannot
//! report that without waiting, so those elements are 0 and the others are computed.
TEST_F(CudaElementWise, UndefinedIntegerElementsAreZero)
{
    for (DataType const type : {DataType::kINT32, DataType::kINT64})
    {
        for (Op const op : {Op::kDIV, Op::kFLOOR_DIV, Op::kPOW})
        {
            Dims const shape{1, {4}};
            HostBuffer x(type, shape);
            HostBuffer y(type, shape);
            std::vector<int64_t> const xs{-7, 7, 0, 9};
            std::vector<int64_t> const ys{2, 1, op == Op::kPOW ? -2 : 0, 3};
            for (int64_t i = 0; i < 4; ++i)
            {
                host::storeInteger(x.tensor(), i, xs[static_cast<std::size_t>(i)]);
                host::storeInteger(y.tensor(), i, ys[static_cast<std::size_t>(i)]);
            }
            HostBuffer scratch(type, shape);
            EXPECT_FALSE(host::runElementWise({op}, x.tensor(), y.tensor(), scratch.tensor()).ok());
            DeviceBuffer const dx = DeviceBuffer::upload(x.tensor());
            DeviceBuffer const dy = DeviceBuffer::upload(y.tensor());
            DeviceBuffer const dout(scratch.tensor());
            ASSERT_TRUE(runElementWise(ElementWiseParams{op}, dx.tensor(), dy.tensor(), dout.tensor(), launch()).ok());
            HostBuffer const out = dout.download(mStream);
            std::vector<int64_t> const expected = op == Op::kPOW ? std::vector<int64_t>{49, 7, 0, 729}
                : op == Op::kDIV                                 ? std::vector<int64_t>{-3, 7, 0, 3}
                                                                 : std::vector<int64_t>{-4, 7, 0, 3};
            for (int64_t i = 0; i < 4; ++i)
            {
                EXPECT_EQ(host::loadInteger(out.tensor(), i), expected[static_cast<std::size_t>(i)])
                    << host::findElementWiseOp(op)->name << " " << dataTypeName(type) << " element " << i;
            }
        }
    }
}

//! The refusals come before any CUDA call: these run without a GPU, on addresses never dereferenced.
TEST(CudaElementWiseRefusals, NameWhatIsRefused)
{
    auto* const fake = reinterpret_cast<void*>(uintptr_t{0x10000});
    Dims const s23{2, {2, 3}};
    auto const run = [&](Op op, HostTensor const& a, HostTensor const& b, HostTensor const& out) {
        return runElementWise(ElementWiseParams{op}, a, b, out, Launch{});
    };
    auto const expectError = [](Status const& status, std::string const& fragment) {
        ASSERT_FALSE(status.ok()) << "expected an error holding \"" << fragment << "\"";
        EXPECT_NE(status.error().message.find(fragment), std::string::npos) << status.error().message;
    };
    HostTensor const f{fake, DataType::kFLOAT, s23};
    HostTensor const u8{fake, DataType::kUINT8, s23};
    expectError(run(Op::kSUM, u8, u8, u8), "kSUM: does not accept kUINT8 inputs");
    expectError(run(Op::kAND, f, f, HostTensor{fake, DataType::kBOOL, s23}), "kAND: does not accept kFLOAT inputs");
    expectError(run(Op::kSUM, f, HostTensor{fake, DataType::kHALF, s23}, f),
        "kSUM: inputs have different types, kFLOAT and kHALF");
    expectError(run(Op::kSUM, f, HostTensor{fake, DataType::kFLOAT, Dims{2, {4, 3}}}, f), "do not broadcast");
    expectError(run(Op::kEQUAL, f, f, f), "kEQUAL: the output is kFLOAT but must be kBOOL");
    expectError(run(Op::kSUM, f, f, HostTensor{fake, DataType::kFLOAT, Dims{2, {1, 3}}}),
        "the output has shape [1, 3] but inputs [2, 3] and [2, 3] broadcast to [2, 3]");
    expectError(run(Op::kSUM, HostTensor{nullptr, DataType::kFLOAT, s23}, f, f), "input 0 of shape [2, 3] has no data");
    HostTensor badScale{fake, DataType::kINT8, s23, -1.0F};
    expectError(run(Op::kSUM, HostTensor{fake, DataType::kINT8, s23}, badScale, HostTensor{fake, DataType::kINT8, s23}),
        "a quantization scale must be positive and finite");
    HostTensor const misaligned{static_cast<std::byte*>(fake) + 2, DataType::kFLOAT, s23};
    expectError(run(Op::kSUM, f, misaligned, f), "input 1's device data is not aligned to its 4-byte elements");
    expectError(run(static_cast<Op>(99), f, f, f), "unknown ElementWiseOperation 99");
}

} // namespace
} // namespace kiln::cuda::test
