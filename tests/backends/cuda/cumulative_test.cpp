// SPDX-License-Identifier: Apache-2.0
// The CUDA cumulative sum against the host reference: every type it takes, every exclusive/reverse combination, random
// shapes and axes (the innermost one, one in the middle, the outermost), long lines, integer wrap-around, empty
// tensors, and the refusals (the host's messages).
#include "backends/host/cumulative.h"

#include "cuda_test_util.h"

#include <string>

namespace kiln::cuda::test
{
namespace
{

using nvinfer1::CumulativeOperation;

class CudaCumulative : public CudaKernelTest
{
protected:
    //! Runs params on in with both backends and compares: floating types within a few ulps of the output type (the
    //! device rounds the same double sum through float), integers exactly.
    void compare(HostBuffer const& in, CumulativeParams const& params, std::string const& what)
    {
        SCOPED_TRACE(what + " " + host::shapeString(in.tensor().dims) + " axis " + std::to_string(params.axis)
            + (params.exclusive ? " exclusive" : "") + (params.reverse ? " reverse" : ""));
        HostBuffer expected(in.tensor().type, in.tensor().dims);
        Status const reference = host::runCumulative(params, in.tensor(), expected.tensor());
        ASSERT_TRUE(reference.ok()) << reference.error().message;
        DeviceBuffer const din = DeviceBuffer::upload(in.tensor());
        DeviceBuffer const dout(expected.tensor());
        Status const done = runCumulative(params, din.tensor(), dout.tensor(), launch());
        ASSERT_TRUE(done.ok()) << done.error().message;
        expectNear(dout.download(mStream), expected, 1.0, what);
    }
};

TEST_F(CudaCumulative, RandomShapesAxesAndTypes)
{
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT32, DataType::kINT64})
    {
        for (int32_t trial = 0; trial < 20; ++trial)
        {
            Dims dims{static_cast<int32_t>(1 + mRng() % 4), {}};
            for (int32_t i = 0; i < dims.nbDims; ++i)
            {
                dims.d[i] = static_cast<int64_t>(1 + mRng() % 9);
            }
            HostBuffer in(type, dims);
            randomize(in, mRng, -20.0, 20.0);
            CumulativeParams params;
            params.axis = static_cast<int32_t>(mRng() % static_cast<uint64_t>(dims.nbDims));
            params.exclusive = mRng() % 2 == 0;
            params.reverse = mRng() % 2 == 0;
            compare(in, params, dataTypeName(type));
            if (HasFatalFailure())
            {
                return;
            }
        }
    }
}

TEST_F(CudaCumulative, LongLinesAndManyLines)
{
    for (int32_t variant = 0; variant < 4; ++variant)
    {
        bool const exclusive = (variant & 1) != 0;
        bool const reverse = (variant & 2) != 0;
        // One line of 10000 elements; 3 x 4096 lines of 7 along the middle axis.
        HostBuffer one(DataType::kFLOAT, Dims{1, {10000}});
        randomize(one, mRng, -1.0, 1.0);
        compare(one, {CumulativeOperation::kSUM, exclusive, reverse, 0}, "one long line");
        HostBuffer many(DataType::kHALF, Dims{3, {3, 7, 4096}});
        randomize(many, mRng, -1.0, 1.0);
        compare(many, {CumulativeOperation::kSUM, exclusive, reverse, 1}, "many lines");
        HostBuffer ints(DataType::kINT64, Dims{2, {5000, 3}});
        randomize(ints, mRng, -1000.0, 1000.0);
        compare(ints, {CumulativeOperation::kSUM, exclusive, reverse, 0}, "integers");
    }
}

TEST_F(CudaCumulative, IntegersWrapAroundAndEmptyTensors)
{
    HostBuffer big(DataType::kINT32, Dims{1, {4}});
    for (int64_t i = 0; i < 4; ++i)
    {
        host::storeInteger(big.tensor(), i, 2000000000);
    }
    compare(big, {CumulativeOperation::kSUM, false, false, 0}, "wrap");
    HostBuffer empty(DataType::kFLOAT, Dims{2, {0, 3}});
    compare(empty, {CumulativeOperation::kSUM, false, false, 1}, "empty");
    HostBuffer noLines(DataType::kFLOAT, Dims{2, {3, 0}});
    compare(noLines, {CumulativeOperation::kSUM, true, false, 0}, "no lines");
}

TEST_F(CudaCumulative, Refusals)
{
    HostBuffer in(DataType::kFLOAT, Dims{2, {2, 3}});
    DeviceBuffer const din = DeviceBuffer::upload(in.tensor());
    DeviceBuffer const dout(in.tensor());
    Status const axis
        = runCumulative({CumulativeOperation::kSUM, false, false, 2}, din.tensor(), dout.tensor(), launch());
    ASSERT_FALSE(axis.ok());
    EXPECT_NE(axis.error().message.find("cumulative: the axis 2 is outside [0, 2)"), std::string::npos)
        << axis.error().message;
    HostBuffer half(DataType::kHALF, Dims{2, {2, 3}});
    DeviceBuffer const dhalf(half.tensor());
    Status const type
        = runCumulative({CumulativeOperation::kSUM, false, false, 0}, din.tensor(), dhalf.tensor(), launch());
    ASSERT_FALSE(type.ok());
    EXPECT_NE(type.error().message.find("the output is kHALF [2, 3] but must be kFLOAT [2, 3]"), std::string::npos)
        << type.error().message;
}

} // namespace
} // namespace kiln::cuda::test
