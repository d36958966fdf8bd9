// SPDX-License-Identifier: Apache-2.0
// The CUDA reverse sequence against the host reference, exactly (elements are copies): types of every element size,
// both length types, random shapes, axis pairs and lengths (negative and too long ones too), a large tensor, empty
// tensors, and the refusals (the host's messages).
#include "backends/host/reverse_sequence.h"

#include "cuda_test_util.h"

#include <algorithm>
#include <string>

namespace kiln::cuda::test
{
namespace
{

class CudaReverseSequence : public CudaKernelTest
{
protected:
    void compare(
        HostBuffer const& in, HostBuffer const& lengths, ReverseSequenceParams const& params, std::string const& what)
    {
        SCOPED_TRACE(what + " " + host::shapeString(in.tensor().dims) + " batch axis "
            + std::to_string(params.batchAxis) + " sequence axis " + std::to_string(params.sequenceAxis));
        HostBuffer expected(in.tensor().type, in.tensor().dims);
        Status const reference = host::runReverseSequence(params, in.tensor(), lengths.tensor(), expected.tensor());
        ASSERT_TRUE(reference.ok()) << reference.error().message;
        DeviceBuffer const din = DeviceBuffer::upload(in.tensor());
        DeviceBuffer const dlengths = DeviceBuffer::upload(lengths.tensor());
        DeviceBuffer const dout(expected.tensor());
        Status const done = runReverseSequence(params, din.tensor(), dlengths.tensor(), dout.tensor(), launch());
        ASSERT_TRUE(done.ok()) << done.error().message;
        HostBuffer actual = dout.download(mStream);
        ASSERT_TRUE(host::sameShape(actual.tensor().dims, expected.tensor().dims));
        auto const a = actual.bytes();
        auto const e = expected.bytes();
        ASSERT_EQ(a.size(), e.size());
        EXPECT_TRUE(std::equal(a.begin(), a.end(), e.begin())) << what << ": the bytes differ";
    }

    HostBuffer lengthsFor(DataType type, int64_t batch, int64_t extent)
    {
        HostBuffer lengths(type, Dims{1, {batch}});
        for (int64_t b = 0; b < batch; ++b)
        {
            host::storeInteger(
                lengths.tensor(), b, static_cast<int64_t>(mRng() % static_cast<uint64_t>(extent + 3)) - 1);
        }
        return lengths;
    }
};

TEST_F(CudaReverseSequence, RandomShapesAxesAndTypes)
{
    for (DataType const type : {DataType::kUINT8, DataType::kHALF, DataType::kFLOAT, DataType::kINT64, DataType::kBOOL})
    {
        for (int32_t trial = 0; trial < 12; ++trial)
        {
            Dims dims{static_cast<int32_t>(2 + mRng() % 3), {}};
            for (int32_t i = 0; i < dims.nbDims; ++i)
            {
                dims.d[i] = static_cast<int64_t>(1 + mRng() % 6);
            }
            ReverseSequenceParams params;
            params.batchAxis = static_cast<int32_t>(mRng() % static_cast<uint64_t>(dims.nbDims));
            do
            {
                params.sequenceAxis = static_cast<int32_t>(mRng() % static_cast<uint64_t>(dims.nbDims));
            } while (params.sequenceAxis == params.batchAxis);
            HostBuffer in(type, dims);
            randomize(in, mRng, -100.0, 100.0);
            HostBuffer const lengths = lengthsFor(mRng() % 2 == 0 ? DataType::kINT32 : DataType::kINT64,
                dims.d[params.batchAxis], dims.d[params.sequenceAxis]);
            compare(in, lengths, params, dataTypeName(type));
            if (HasFatalFailure())
            {
                return;
            }
        }
    }
}

TEST_F(CudaReverseSequence, LargeAndEmptyTensors)
{
    HostBuffer big(DataType::kHALF, Dims{3, {300, 64, 33}});
    randomize(big, mRng, -1.0, 1.0);
    compare(big, lengthsFor(DataType::kINT64, 64, 300), ReverseSequenceParams{1, 0}, "large");
    HostBuffer empty(DataType::kFLOAT, Dims{2, {0, 3}});
    compare(empty, lengthsFor(DataType::kINT32, 3, 0), ReverseSequenceParams{1, 0}, "empty");
}

TEST_F(CudaReverseSequence, Refusals)
{
    HostBuffer in(DataType::kFLOAT, Dims{2, {2, 3}});
    HostBuffer lengths(DataType::kINT32, Dims{1, {3}});
    DeviceBuffer const din = DeviceBuffer::upload(in.tensor());
    DeviceBuffer const dlengths = DeviceBuffer::upload(lengths.tensor());
    DeviceBuffer const dout(in.tensor());
    Status const same = runReverseSequence({0, 0}, din.tensor(), dlengths.tensor(), dout.tensor(), launch());
    ASSERT_FALSE(same.ok());
    EXPECT_NE(same.error().message.find("reverse sequence: the batch axis and the sequence axis are both 0"),
        std::string::npos)
        << same.error().message;
    HostBuffer half(DataType::kHALF, Dims{2, {2, 3}});
    DeviceBuffer const dhalf(half.tensor());
    Status const type = runReverseSequence({1, 0}, din.tensor(), dlengths.tensor(), dhalf.tensor(), launch());
    ASSERT_FALSE(type.ok());
    EXPECT_NE(type.error().message.find("the output is kHALF [2, 3] but must be kFLOAT [2, 3]"), std::string::npos)
        << type.error().message;
}

} // namespace
} // namespace kiln::cuda::test
