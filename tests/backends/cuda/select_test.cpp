// SPDX-License-Identifier: Apache-2.0
// The CUDA select kernel against the host reference: every type, random shapes of rank 0 to 5 with the condition and
// both inputs broadcast and empty tensors, random bytes (a condition byte other than 0 or 1 is true); and the
// refusals, with their messages (these need no GPU).
#include "backends/host/select.h"

#include "pointwise_test_util.h"

namespace kiln::cuda::test
{
namespace
{

class CudaSelect : public CudaKernelTest
{
};

//! Random bytes in every element of t (any bit pattern: select copies bytes).
void randomBytes(HostBuffer& t, std::mt19937_64& rng)
{
    for (std::byte& b : t.bytes())
    {
        b = static_cast<std::byte>(rng() % 256);
    }
}

TEST_F(CudaSelect, MatchesTheHost)
{
    for (int32_t trial = 0; trial < 200; ++trial)
    {
        DataType const type = hostTypes()[static_cast<std::size_t>(trial) % hostTypes().size()];
        Dims const full = randomShape(mRng);
        HostBuffer condition(DataType::kBOOL, broadcastInput(mRng, full));
        HostBuffer thenInput(type, broadcastInput(mRng, full));
        HostBuffer elseInput(type, broadcastInput(mRng, full));
        randomBytes(condition, mRng);
        randomBytes(thenInput, mRng);
        randomBytes(elseInput, mRng);
        Dims const outDims = broadcastOf({condition.tensor().dims, thenInput.tensor().dims, elseInput.tensor().dims});
        HostBuffer expected(type, outDims);
        std::string const what
            = describe(condition.tensor()) + ", " + describe(thenInput.tensor()) + ", " + describe(elseInput.tensor());
        host::Status const reference
            = host::runSelect({}, condition.tensor(), thenInput.tensor(), elseInput.tensor(), expected.tensor());
        ASSERT_TRUE(reference.ok()) << what << ": " << reference.error().message;

        DeviceBuffer const dc = DeviceBuffer::upload(condition.tensor());
        DeviceBuffer const dt = DeviceBuffer::upload(thenInput.tensor());
        DeviceBuffer const de = DeviceBuffer::upload(elseInput.tensor());
        DeviceBuffer const dout(expected.tensor());
        Status const done = runSelect(dc.tensor(), dt.tensor(), de.tensor(), dout.tensor(), launch());
        ASSERT_TRUE(done.ok()) << what << ": " << done.error().message;
        HostBuffer actual = dout.download(mStream);
        // Byte for byte: NaN payloads and out-of-range bools are copied, not compared as values.
        EXPECT_TRUE(std::equal(actual.bytes().begin(), actual.bytes().end(), expected.bytes().begin())) << what;
    }
}

TEST_F(CudaSelect, LargerThanOneSweepOfTheGrid)
{
    HostBuffer condition(DataType::kBOOL, Dims{2, {2048, 1}});
    HostBuffer thenInput(DataType::kINT64, Dims{2, {1, 1000}});
    HostBuffer elseInput(DataType::kINT64, Dims{2, {2048, 1000}});
    randomBytes(condition, mRng);
    randomBytes(thenInput, mRng);
    randomBytes(elseInput, mRng);
    HostBuffer expected(DataType::kINT64, elseInput.tensor().dims);
    ASSERT_TRUE(
        host::runSelect({}, condition.tensor(), thenInput.tensor(), elseInput.tensor(), expected.tensor()).ok());
    DeviceBuffer const dc = DeviceBuffer::upload(condition.tensor());
    DeviceBuffer const dt = DeviceBuffer::upload(thenInput.tensor());
    DeviceBuffer const de = DeviceBuffer::upload(elseInput.tensor());
    DeviceBuffer const dout(expected.tensor());
    ASSERT_TRUE(runSelect(dc.tensor(), dt.tensor(), de.tensor(), dout.tensor(), launch()).ok());
    expectNear(dout.download(mStream), expected, 1.0, "large select");
}

//! The refusals come before any CUDA call: these run without a GPU, on addresses never dereferenced.
TEST(CudaSelectRefusals, NameWhatIsRefused)
{
    auto* const fake = reinterpret_cast<void*>(uintptr_t{0x10000});
    auto const expectError = [](Status const& status, std::string const& fragment) {
        ASSERT_FALSE(status.ok()) << "expected an error holding \"" << fragment << "\"";
        EXPECT_NE(status.error().message.find(fragment), std::string::npos) << status.error().message;
    };
    HostTensor const b{fake, DataType::kBOOL, Dims{2, {2, 1}}};
    HostTensor const f{fake, DataType::kFLOAT, Dims{2, {1, 3}}};
    HostTensor const out{fake, DataType::kFLOAT, Dims{2, {2, 3}}};
    expectError(runSelect(f, f, f, out, Launch{}), "select: the condition is kFLOAT; it must be kBOOL");
    expectError(runSelect(b, f, HostTensor{fake, DataType::kHALF, Dims{2, {1, 3}}}, out, Launch{}),
        "the then input is kFLOAT and the else input kHALF");
    expectError(runSelect(b, HostTensor{fake, DataType::kFLOAT, Dims{2, {3, 3}}}, f, out, Launch{}),
        "the condition and the then input do not broadcast");
    expectError(runSelect(b, f, f, HostTensor{fake, DataType::kFLOAT, Dims{2, {1, 3}}}, Launch{}),
        "the output is kFLOAT [1, 3] but must be kFLOAT [2, 3]");
    expectError(runSelect(b, HostTensor{fake, DataType::kINT4, Dims{2, {1, 3}}},
                    HostTensor{fake, DataType::kINT4, Dims{2, {1, 3}}}, out, Launch{}),
        "kINT4");
    expectError(
        runSelect(b, f, f, HostTensor{static_cast<std::byte*>(fake) + 2, DataType::kFLOAT, Dims{2, {2, 3}}}, Launch{}),
        "select: output's device data is not aligned to its 4-byte elements");
}

} // namespace
} // namespace kiln::cuda::test
