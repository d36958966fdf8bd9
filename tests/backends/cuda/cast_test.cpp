// SPDX-License-Identifier: Apache-2.0
// The CUDA cast kernel against the host reference: every pair castSupported allows, on random shapes of rank 0 to 5
// with empty tensors, small and large random values with special ones, scales on both ends; edges of truncation,
// saturation, wrap-around and rounding; in place; and the refusals, with their messages (these need no GPU).
#include "backends/host/cast.h"

#include "pointwise_test_util.h"

namespace kiln::cuda::test
{
namespace
{

class CudaCast : public CudaKernelTest
{
protected:
    //! Casts in on the host and on the device into expected's type, shape and scale, and compares the outputs.
    void compare(HostBuffer const& in, HostBuffer&& expected, std::string const& what)
    {
        host::Status const reference = host::runCast({expected.tensor().type}, in.tensor(), expected.tensor());
        ASSERT_TRUE(reference.ok()) << what << ": " << reference.error().message;
        DeviceBuffer const din = DeviceBuffer::upload(in.tensor());
        DeviceBuffer const dout(expected.tensor());
        Status const done = runCast(din.tensor(), dout.tensor(), launch());
        ASSERT_TRUE(done.ok()) << what << ": " << done.error().message;
        expectNear(dout.download(mStream), expected, 1.0, what);
    }

    //! Casts values stored in from (floating values rounded to it, integers exact) to every type it casts to.
    void compareToEveryType(DataType from, std::vector<double> const& values, float outScale = 1.0F)
    {
        HostBuffer in(from, Dims{1, {static_cast<int64_t>(values.size())}});
        for (std::size_t i = 0; i < values.size(); ++i)
        {
            if (host::numberKind(from) == host::NumberKind::kFLOATING)
            {
                host::storeFloat(in.tensor(), static_cast<int64_t>(i), values[i]);
            }
            else
            {
                host::storeInteger(in.tensor(), static_cast<int64_t>(i), static_cast<int64_t>(values[i]));
            }
        }
        for (DataType const to : hostTypes())
        {
            if (host::castSupported(from, to))
            {
                compare(in, HostBuffer(to, in.tensor().dims, host::contains(host::kScaledTypes, to) ? outScale : 1.0F),
                    std::string(dataTypeName(from)) + " -> " + dataTypeName(to));
            }
        }
    }
};

class CudaCastRandom : public CudaCast, public ::testing::WithParamInterface<DataType>
{
};

TEST_P(CudaCastRandom, MatchesTheHost)
{
    DataType const from = GetParam();
    for (DataType const to : hostTypes())
    {
        if (!host::castSupported(from, to))
        {
            continue;
        }
        for (int32_t trial = 0; trial < 8; ++trial)
        {
            HostBuffer in(from, randomShape(mRng), randomScale(mRng, from));
            bool const small = trial % 2 == 0;
            double const range = small ? 300.0 : (from == DataType::kHALF ? 60000.0 : 3.0e9);
            fillRandom(in, mRng, -range, range);
            compare(in, HostBuffer(to, in.tensor().dims, randomScale(mRng, to)),
                describe(in.tensor()) + " -> " + dataTypeName(to) + " trial " + std::to_string(trial));
        }
    }
}

INSTANTIATE_TEST_SUITE_P(EverySourceType, CudaCastRandom, ::testing::ValuesIn(hostTypes()),
    [](::testing::TestParamInfo<DataType> const& param) { return std::string(dataTypeName(param.param)).substr(1); });

TEST_F(CudaCast, FloatingEdges)
{
    double const inf = std::numeric_limits<double>::infinity();
    std::vector<double> const values{0.0, -0.0, std::nan(""), inf, -inf, 1.2, -2.7, -0.5, 2.5, 3.5, 127.6, 255.9, 300.0,
        -1000.0, 3.0e9, -3.0e9, 2147483520.0, 1.0e19, -1.0e19, -0x1p63, 65519.0, -65520.0, 70000.0, 0x1p-25,
        3 * 0x1p-26, 1.0 + 0x1p-11, 1.0 + 0x1p-8, 1.0 + 3 * 0x1p-8, 3.0e38, 17.0, 448.0, std::ldexp(1.0, -149)};
    for (DataType const from : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        compareToEveryType(from, values);
        compareToEveryType(from, values, 0.5F);
    }
}

TEST_F(CudaCast, WholeVectorsOfFloatingTypes)
{
    // Counts that are multiples of eight: between kFLOAT, kHALF and kBF16 the cast runs eight elements at a time in
    // 16-byte accesses (cast.cu, castWideKernel). The floating edges repeated to 8 x 33 values, then 8 x 4099 random
    // ones, at output scales 1 and 0.5; the host's rounding and saturation for each.
    double const inf = std::numeric_limits<double>::infinity();
    std::vector<double> const edges{0.0, -0.0, std::nan(""), inf, -inf, 1.2, -2.7, -0.5, 2.5, 3.5, 127.6, 255.9, 300.0,
        -1000.0, 3.0e9, -3.0e9, 65519.0, -65520.0, 70000.0, 0x1p-25, 3 * 0x1p-26, 1.0 + 0x1p-11, 1.0 + 0x1p-8,
        1.0 + 3 * 0x1p-8, 3.0e38, 17.0, 448.0, std::ldexp(1.0, -149), 1.0e-40, -1.0e-30, 0.1, -0.3, 6.5e4};
    std::vector<double> repeated;
    for (int32_t k = 0; k < 8; ++k)
    {
        repeated.insert(repeated.end(), edges.begin(), edges.end());
    }
    ASSERT_EQ(repeated.size() % 8, 0U);
    std::uniform_real_distribution<double> uniform(-7.0e4, 7.0e4);
    std::vector<double> random(8 * 4099);
    for (double& value : random)
    {
        value = uniform(mRng);
    }
    for (DataType const from : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        for (std::vector<double> const* values : {&repeated, &random})
        {
            compareToEveryType(from, *values);
            compareToEveryType(from, *values, 0.5F);
        }
    }
}

TEST_F(CudaCast, IntegerEdges)
{
    std::vector<double> const values{0, 1, -1, 5, 17, 255, 257, 300, -300, 65519, 65520, -65520, (1 << 24) + 1,
        (1 << 24) + 3, 2147483647.0, -2147483648.0, 0x1p31, 0x1p32 + 5, -0x1p31 - 1, 0x1p60 + 0x1p37, -0x1p63};
    compareToEveryType(DataType::kINT64, values);
    compareToEveryType(DataType::kINT32, {0, 1, -1, 17, 255, 257, -300, 65520, (1 << 24) + 1, 2147483647.0});
    compareToEveryType(DataType::kUINT8, {0, 1, 17, 200, 255});
    compareToEveryType(DataType::kBOOL, {0, 1});

    // 2^60 + 2^36 + 1 is just above a float midpoint: rounded once, it goes up.
    HostBuffer in(DataType::kINT64, Dims{0, {}});
    host::storeInteger(in.tensor(), 0, (int64_t{1} << 60) + (int64_t{1} << 36) + 1);
    compare(in, HostBuffer(DataType::kFLOAT, in.tensor().dims), "rounded once");
}

TEST_F(CudaCast, ScaledEnds)
{
    // Every INT8 and FP8 code, through every target at another scale.
    for (DataType const from : {DataType::kINT8, DataType::kFP8})
    {
        HostBuffer in(from, Dims{2, {16, 16}}, 0.25F);
        for (std::size_t i = 0; i < 256; ++i)
        {
            in.bytes()[i] = static_cast<std::byte>(i);
        }
        for (DataType const to : hostTypes())
        {
            if (host::castSupported(from, to))
            {
                compare(in, HostBuffer(to, in.tensor().dims, 0.5F),
                    std::string(dataTypeName(from)) + " codes -> " + dataTypeName(to));
            }
        }
    }
}

TEST_F(CudaCast, InPlaceBetweenTypesOfOneSize)
{
    HostBuffer in(DataType::kFLOAT, Dims{2, {3, 5}});
    fillRandom(in, mRng, -1.0e6, 1.0e6);
    HostBuffer expected(DataType::kINT32, in.tensor().dims);
    ASSERT_TRUE(host::runCast({DataType::kINT32}, in.tensor(), expected.tensor()).ok());
    DeviceBuffer const din = DeviceBuffer::upload(in.tensor());
    HostTensor asInt = din.tensor();
    asInt.type = DataType::kINT32;
    Status const done = runCast(din.tensor(), asInt, launch());
    ASSERT_TRUE(done.ok()) << done.error().message;
    HostBuffer out = din.download(mStream);
    HostBuffer actual(DataType::kINT32, in.tensor().dims);
    std::copy(out.bytes().begin(), out.bytes().end(), actual.bytes().begin());
    expectNear(actual, expected, 1.0, "kFLOAT -> kINT32 in place");
}

//! The refusals come before any CUDA call: these run without a GPU, on addresses never dereferenced.
TEST(CudaCastRefusals, NameWhatIsRefused)
{
    auto* const fake = reinterpret_cast<void*>(uintptr_t{0x10000});
    Dims const shape{1, {3}};
    auto const expectError = [](Status const& status, std::string const& fragment) {
        ASSERT_FALSE(status.ok()) << "expected an error holding \"" << fragment << "\"";
        EXPECT_NE(status.error().message.find(fragment), std::string::npos) << status.error().message;
    };
    HostTensor const f{fake, DataType::kFLOAT, shape};
    expectError(runCast(HostTensor{fake, DataType::kUINT8, shape}, HostTensor{fake, DataType::kINT32, shape}, Launch{}),
        "cast from kUINT8 to kINT32: not supported");
    expectError(
        runCast(f, HostTensor{fake, DataType::kINT4, shape}, Launch{}), "cast from kFLOAT to kINT4: not supported");
    expectError(runCast(f, HostTensor{fake, DataType::kHALF, Dims{1, {4}}}, Launch{}),
        "cast from kFLOAT to kHALF: the output has shape [4] but the input has shape [3]");
    expectError(
        runCast(HostTensor{nullptr, DataType::kFLOAT, shape}, HostTensor{fake, DataType::kHALF, shape}, Launch{}),
        "cast from kFLOAT to kHALF: input of shape [3] has no data");
    expectError(runCast(HostTensor{fake, DataType::kINT8, shape, 0.0F}, f, Launch{}),
        "cast from kINT8 to kFLOAT: input (kINT8) has scale 0; a quantization scale must be positive and finite");
    expectError(runCast(f, HostTensor{static_cast<std::byte*>(fake) + 4, DataType::kINT64, shape}, Launch{}),
        "output's device data is not aligned to its 8-byte elements");
}

} // namespace
} // namespace kiln::cuda::test
