// SPDX-License-Identifier: Apache-2.0
// The CUDA activation kernel against the host reference: every function on every type it accepts with random alpha
// and beta, random shapes of rank 0 to 5 with empty tensors, random values with special ones; large, tiny and NaN
// inputs; kRELU on integers; in place; and the refusals, with their messages (these need no GPU).
#include "backends/host/activation.h"

#include "pointwise_test_util.h"

namespace kiln::cuda::test
{
namespace
{

using Type = nvinfer1::ActivationType;

std::vector<Type> allFunctions()
{
    std::vector<Type> types;
    for (host::ActivationInfo const& info : host::activations())
    {
        types.push_back(info.type);
    }
    return types;
}

class CudaActivation : public CudaKernelTest
{
protected:
    //! Runs params on in on the host and on the device, and compares the outputs (expected's type, shape and scale).
    void compare(ActivationParams const& params, HostBuffer const& in, HostBuffer&& expected, std::string const& what)
    {
        host::Status const reference = host::runActivation(
            host::ActivationParams{params.type, params.alpha, params.beta}, in.tensor(), expected.tensor());
        ASSERT_TRUE(reference.ok()) << what << ": " << reference.error().message;
        DeviceBuffer const din = DeviceBuffer::upload(in.tensor());
        DeviceBuffer const dout(expected.tensor());
        Status const done = runActivation(params, din.tensor(), dout.tensor(), launch());
        ASSERT_TRUE(done.ok()) << what << ": " << done.error().message;
        expectNear(dout.download(mStream), expected, 1.0, what);
    }
};

class CudaActivationRandom : public CudaActivation, public ::testing::WithParamInterface<Type>
{
};

TEST_P(CudaActivationRandom, MatchesTheHost)
{
    Type const type = GetParam();
    host::ActivationInfo const& info = *host::findActivation(type);
    std::uniform_real_distribution<float> parameter(-1.5F, 1.5F);
    for (DataType const dataType : hostTypes())
    {
        if (!host::contains(info.inputs, dataType))
        {
            continue;
        }
        for (int32_t trial = 0; trial < 10; ++trial)
        {
            ActivationParams const params{type, parameter(mRng), parameter(mRng)};
            HostBuffer in(dataType, randomShape(mRng), randomScale(mRng, dataType));
            fillRandom(in, mRng, -4.0, 4.0);
            compare(params, in, HostBuffer(dataType, in.tensor().dims, randomScale(mRng, dataType)),
                std::string(info.name) + " " + describe(in.tensor()) + " alpha " + std::to_string(params.alpha)
                    + " beta " + std::to_string(params.beta) + " trial " + std::to_string(trial));
        }
    }
}

INSTANTIATE_TEST_SUITE_P(EveryFunction, CudaActivationRandom, ::testing::ValuesIn(allFunctions()),
    [](::testing::TestParamInfo<Type> const& param) {
        return std::string(host::findActivation(param.param)->name).substr(1);
    });

TEST_F(CudaActivation, LargeTinyAndNanInputs)
{
    double const inf = std::numeric_limits<double>::infinity();
    std::vector<double> const x{0.0, -0.0, inf, -inf, std::nan(""), 1.0, -1.0, 1000.0, -1000.0, 60000.0, -60000.0,
        std::ldexp(1.0, -149), 3.0e38, -3.0e38, 0.25, -2.0};
    for (DataType const dataType : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        HostBuffer in(dataType, Dims{1, {static_cast<int64_t>(x.size())}});
        for (std::size_t i = 0; i < x.size(); ++i)
        {
            host::storeFloat(in.tensor(), static_cast<int64_t>(i), x[i]);
        }
        for (host::ActivationInfo const& info : host::activations())
        {
            compare(ActivationParams{info.type, 0.5F, 0.75F}, in, HostBuffer(dataType, in.tensor().dims),
                std::string(info.name) + " " + dataTypeName(dataType));
        }
    }
}

TEST_F(CudaActivation, ReluOnIntegersInPlace)
{
    for (DataType const dataType : {DataType::kINT32, DataType::kINT64})
    {
        HostBuffer in(dataType, Dims{3, {2, 3, 7}});
        fillRandom(in, mRng, -20.0, 20.0);
        HostBuffer expected(dataType, in.tensor().dims);
        ASSERT_TRUE(host::runActivation({Type::kRELU}, in.tensor(), expected.tensor()).ok());
        DeviceBuffer const din = DeviceBuffer::upload(in.tensor());
        Status const done = runActivation(ActivationParams{Type::kRELU}, din.tensor(), din.tensor(), launch());
        ASSERT_TRUE(done.ok()) << done.error().message;
        expectNear(din.download(mStream), expected, 1.0, dataTypeName(dataType));
    }
}

//! The refusals come before any CUDA call: these run without a GPU, on addresses never dereferenced.
TEST(CudaActivationRefusals, NameWhatIsRefused)
{
    auto* const fake = reinterpret_cast<void*>(uintptr_t{0x10000});
    Dims const shape{1, {4}};
    auto const expectError = [](Status const& status, std::string const& fragment) {
        ASSERT_FALSE(status.ok()) << "expected an error holding \"" << fragment << "\"";
        EXPECT_NE(status.error().message.find(fragment), std::string::npos) << status.error().message;
    };
    auto const run = [](Type type, HostTensor const& in, HostTensor const& out) {
        return runActivation(ActivationParams{type, 0.F, 0.F}, in, out, Launch{});
    };
    HostTensor const f{fake, DataType::kFLOAT, shape};
    HostTensor const i32{fake, DataType::kINT32, shape};
    expectError(run(Type::kSIGMOID, i32, i32), "kSIGMOID: does not accept kINT32 input");
    expectError(run(Type::kRELU, HostTensor{fake, DataType::kUINT8, shape}, HostTensor{fake, DataType::kUINT8, shape}),
        "kRELU: does not accept kUINT8 input");
    expectError(
        run(Type::kTANH, f, HostTensor{fake, DataType::kHALF, shape}), "kTANH: the output is kHALF but must be kFLOAT");
    expectError(run(Type::kTANH, f, HostTensor{fake, DataType::kFLOAT, Dims{1, {5}}}),
        "kTANH: the output has shape [5] but the input has shape [4]");
    HostTensor const badScale{fake, DataType::kFP8, shape, std::numeric_limits<float>::infinity()};
    expectError(
        run(Type::kRELU, HostTensor{fake, DataType::kFP8, shape}, badScale), "kRELU: output (kFP8) has scale inf");
    expectError(run(static_cast<Type>(-3), f, f), "unknown ActivationType -3");
}

} // namespace
} // namespace kiln::cuda::test
