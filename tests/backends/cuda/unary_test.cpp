// SPDX-License-Identifier: Apache-2.0
// The CUDA unary kernel against the host reference: every operation on every type it accepts, random shapes of rank 0
// to 5 with empty tensors, random values with special ones; special values and rounding ties; integer edges; in place;
// and the refusals, with their messages (these need no GPU).
#include "backends/host/unary.h"

#include "pointwise_test_util.h"

namespace kiln::cuda::test
{
namespace
{

using Op = nvinfer1::UnaryOperation;

std::vector<Op> allOps()
{
    std::vector<Op> ops;
    for (host::UnaryOpInfo const& info : host::unaryOps())
    {
        ops.push_back(info.op);
    }
    return ops;
}

class CudaUnary : public CudaKernelTest
{
protected:
    //! Runs op on in on the host and on the device, and compares the outputs (expected's type, shape and scale).
    void compare(Op op, HostBuffer const& in, HostBuffer&& expected, std::string const& what)
    {
        host::Status const reference = host::runUnary({op}, in.tensor(), expected.tensor());
        ASSERT_TRUE(reference.ok()) << what << ": " << reference.error().message;
        DeviceBuffer const din = DeviceBuffer::upload(in.tensor());
        DeviceBuffer const dout(expected.tensor());
        Status const done = runUnary(UnaryParams{op}, din.tensor(), dout.tensor(), launch());
        ASSERT_TRUE(done.ok()) << what << ": " << done.error().message;
        expectNear(dout.download(mStream), expected, 1.0, what);
    }

    //! op on values stored as type (at scale 1), compared with the host.
    void compareValues(Op op, DataType type, std::vector<double> const& x)
    {
        HostBuffer in(type, Dims{1, {static_cast<int64_t>(x.size())}});
        for (std::size_t i = 0; i < x.size(); ++i)
        {
            host::storeFloat(in.tensor(), static_cast<int64_t>(i), x[i]);
        }
        host::UnaryOpInfo const& info = *host::findUnaryOp(op);
        compare(op, in, HostBuffer(info.boolOutput ? DataType::kBOOL : type, in.tensor().dims),
            std::string(info.name) + " " + dataTypeName(type));
    }
};

class CudaUnaryRandom : public CudaUnary, public ::testing::WithParamInterface<Op>
{
};

TEST_P(CudaUnaryRandom, MatchesTheHost)
{
    Op const op = GetParam();
    host::UnaryOpInfo const& info = *host::findUnaryOp(op);
    for (DataType const type : hostTypes())
    {
        if (!host::contains(info.inputs, type))
        {
            continue;
        }
        for (int32_t trial = 0; trial < 10; ++trial)
        {
            HostBuffer in(type, randomShape(mRng), randomScale(mRng, type));
            fillRandom(in, mRng, -4.0, 4.0);
            DataType const outType = info.boolOutput ? DataType::kBOOL : type;
            compare(op, in, HostBuffer(outType, in.tensor().dims, randomScale(mRng, outType)),
                std::string(info.name) + " " + describe(in.tensor()) + " trial " + std::to_string(trial));
        }
    }
}

INSTANTIATE_TEST_SUITE_P(
    EveryOperation, CudaUnaryRandom, ::testing::ValuesIn(allOps()), [](::testing::TestParamInfo<Op> const& param) {
        return std::string(host::findUnaryOp(param.param)->name).substr(1);
    });

TEST_F(CudaUnary, SpecialValuesAndTies)
{
    double const inf = std::numeric_limits<double>::infinity();
    std::vector<double> const x{0.0, -0.0, inf, -inf, std::nan(""), 1.0, -1.0, 0.5, 1.5, 2.5, -0.5, -2.5, 2.4999998,
        4194304.5, 4194305.5, -0.4, 89.0, 12.0, std::ldexp(1.0, -149), std::ldexp(-1.0, -24), 1000.5, 1001.5, 65504.0};
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        for (host::UnaryOpInfo const& info : host::unaryOps())
        {
            if (host::contains(info.inputs, type))
            {
                compareValues(info.op, type, x);
            }
        }
    }
}

TEST_F(CudaUnary, ScaledInputsAndOutputs)
{
    // INT8 codes at one scale in, another out: saturation, ties and NaN (0) on the way out.
    HostBuffer in(DataType::kINT8, Dims{1, {256}}, 0.25F);
    for (int64_t i = 0; i < 256; ++i)
    {
        in.bytes()[static_cast<std::size_t>(i)] = static_cast<std::byte>(i); // every code
    }
    for (Op const op : {Op::kEXP, Op::kLOG, Op::kSQRT, Op::kNEG, Op::kABS, Op::kROUND, Op::kRECIP, Op::kSIGN})
    {
        compare(op, in, HostBuffer(DataType::kINT8, in.tensor().dims, 0.5F), host::findUnaryOp(op)->name);
    }
    // Every FP8 code, NaN included, classified.
    HostBuffer codes(DataType::kFP8, Dims{1, {256}}, 2.0F);
    for (int64_t i = 0; i < 256; ++i)
    {
        codes.bytes()[static_cast<std::size_t>(i)] = static_cast<std::byte>(i);
    }
    compare(Op::kISNAN, codes, HostBuffer(DataType::kBOOL, codes.tensor().dims), "kISNAN kFP8");
    compare(Op::kISINF, codes, HostBuffer(DataType::kBOOL, codes.tensor().dims), "kISINF kFP8");
    compare(Op::kFLOOR, codes, HostBuffer(DataType::kFP8, codes.tensor().dims, 0.5F), "kFLOOR kFP8");
}

TEST_F(CudaUnary, IntegerEdgesInPlace)
{
    for (DataType const type : {DataType::kINT32, DataType::kINT64})
    {
        bool const wide = type == DataType::kINT64;
        std::vector<int64_t> const x{wide ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int32_t>::min(),
            wide ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int32_t>::max(), -5, 0, 7};
        for (Op const op : {Op::kABS, Op::kSIGN})
        {
            HostBuffer in(type, Dims{1, {5}});
            for (int64_t i = 0; i < 5; ++i)
            {
                host::storeInteger(in.tensor(), i, x[static_cast<std::size_t>(i)]);
            }
            HostBuffer expected(type, in.tensor().dims);
            ASSERT_TRUE(host::runUnary({op}, in.tensor(), expected.tensor()).ok());
            DeviceBuffer const din = DeviceBuffer::upload(in.tensor());
            Status const done = runUnary(UnaryParams{op}, din.tensor(), din.tensor(), launch());
            ASSERT_TRUE(done.ok()) << done.error().message;
            expectNear(din.download(mStream), expected, 1.0, host::findUnaryOp(op)->name);
        }
    }
    HostBuffer flags(DataType::kBOOL, Dims{2, {2, 2}});
    fillRandom(flags, mRng, 0.0, 1.0);
    compare(Op::kNOT, flags, HostBuffer(DataType::kBOOL, flags.tensor().dims), "kNOT");
}

//! The refusals come before any CUDA call: these run without a GPU, on addresses never dereferenced.
TEST(CudaUnaryRefusals, NameWhatIsRefused)
{
    auto* const fake = reinterpret_cast<void*>(uintptr_t{0x10000});
    Dims const shape{2, {2, 3}};
    auto const expectError = [](Status const& status, std::string const& fragment) {
        ASSERT_FALSE(status.ok()) << "expected an error holding \"" << fragment << "\"";
        EXPECT_NE(status.error().message.find(fragment), std::string::npos) << status.error().message;
    };
    auto const run = [](Op op, HostTensor const& in, HostTensor const& out) {
        return runUnary(UnaryParams{op}, in, out, Launch{});
    };
    HostTensor const i32{fake, DataType::kINT32, shape};
    HostTensor const half{fake, DataType::kHALF, shape};
    expectError(run(Op::kNEG, i32, i32), "kNEG: does not accept kINT32 input");
    expectError(run(Op::kEXP, HostTensor{fake, DataType::kBOOL, shape}, half), "kEXP: does not accept kBOOL input");
    expectError(run(Op::kISNAN, HostTensor{fake, DataType::kINT8, shape}, HostTensor{fake, DataType::kBOOL, shape}),
        "kISNAN: does not accept kINT8 input");
    expectError(run(Op::kISNAN, half, half), "kISNAN: the output is kHALF but must be kBOOL");
    expectError(run(Op::kEXP, half, HostTensor{fake, DataType::kHALF, Dims{2, {3, 2}}}),
        "kEXP: the output has shape [3, 2] but the input has shape [2, 3]");
    expectError(
        run(Op::kEXP, HostTensor{nullptr, DataType::kHALF, shape}, half), "kEXP: input of shape [2, 3] has no data");
    expectError(run(Op::kEXP, HostTensor{static_cast<std::byte*>(fake) + 1, DataType::kHALF, shape}, half),
        "kEXP: input's device data is not aligned to its 2-byte elements");
    expectError(run(static_cast<Op>(25), half, half), "unknown UnaryOperation 25");
}

} // namespace
} // namespace kiln::cuda::test
