// SPDX-License-Identifier: Apache-2.0
// The CUDA softmax against the host reference in kFLOAT, kHALF and kBF16: fixed shapes that take each kernel and
// launch shape (long rows, strided axes, grids larger than one pass), random shapes and axes, rank 1, empty tensors,
// special values (NaN, infinities, large values), in place, and the refusals (the host's messages).
//
// Tolerance: tolerance(type) with no extra factor. The device computes in float: exp to about 2 ulp, a sum whose
// relative error stays near sqrt(n) float roundings (far below 1e-5 for the rows here), so every result is within a
// few float ulp of the host's, and results are at most 1.
#include "backends/host/softmax.h"

#include "cuda_test_util.h"

#include <algorithm>
#include <array>
#include <limits>
#include <sstream>
#include <utility>
#include <vector>

namespace kiln::cuda::test
{
namespace
{

constexpr std::array kTypes{DataType::kFLOAT, DataType::kHALF, DataType::kBF16};

class CudaSoftMax : public CudaKernelTest
{
protected:
    //! Softmax of a random input along axis on both backends, compared.
    void check(DataType type, Dims const& dims, int32_t axis, double lo = -8.0, double hi = 8.0)
    {
        HostBuffer in(type, dims);
        randomize(in, mRng, lo, hi);
        compare(in, axis);
    }

    //! Softmax of in along axis on both backends, compared.
    void compare(HostBuffer const& in, int32_t axis)
    {
        std::ostringstream what;
        what << dataTypeName(in.tensor().type) << " " << host::shapeString(in.tensor().dims) << " axis " << axis;
        SCOPED_TRACE(what.str());
        SoftMaxParams const params{1U << axis};
        HostBuffer expected(in.tensor().type, in.tensor().dims);
        Status const hostDone = host::runSoftMax(params, in.tensor(), expected.tensor());
        ASSERT_TRUE(hostDone.ok()) << hostDone.error().message;
        DeviceBuffer const din = DeviceBuffer::upload(in.tensor());
        DeviceBuffer const dout(expected.tensor());
        Status const done = cuda::runSoftMax(params, din.tensor(), dout.tensor(), launch());
        ASSERT_TRUE(done.ok()) << done.error().message;
        expectNear(dout.download(mStream), expected);
    }
};

struct Case
{
    Dims dims;
    int32_t axis;
};

TEST_F(CudaSoftMax, FixedShapes)
{
    std::vector<Case> const cases{
        {Dims{1, {4096}}, 0},       // one long row: a block of 256 threads
        {Dims{2, {3, 4096}}, 1},    // long rows
        {Dims{2, {2, 20000}}, 1},   // longer rows: blocks of 1024 threads
        {Dims{2, {37, 1000}}, 1},   // a warp per row, 37 rows (not a multiple of 8)
        {Dims{2, {9, 5}}, 1},       // rows shorter than a warp
        {Dims{2, {5, 7}}, 0},       // strided: 7 columns
        {Dims{3, {2, 1000, 3}}, 1}, // strided, few columns: 32 threads split each
        {Dims{3, {4, 300, 70}}, 1}, // strided, more columns than a tile
        {Dims{4, {2, 3, 4, 5}}, 0}, {Dims{4, {2, 3, 4, 5}}, 1}, {Dims{4, {2, 3, 4, 5}}, 2}, {Dims{4, {2, 3, 4, 5}}, 3},
        {Dims{1, {1}}, 0},    // rank 1, one element
        {Dims{2, {6, 1}}, 1}, // rows of one element
        {Dims{2, {1, 6}}, 0}, // columns of one element
    };
    for (DataType const type : kTypes)
    {
        for (Case const& c : cases)
        {
            check(type, c.dims, c.axis);
        }
    }
}

TEST_F(CudaSoftMax, EmptyTensors)
{
    for (DataType const type : kTypes)
    {
        check(type, Dims{2, {0, 4}}, 1);
        check(type, Dims{2, {4, 0}}, 1);
        check(type, Dims{2, {4, 0}}, 0);
        check(type, Dims{1, {0}}, 0);
    }
}

TEST_F(CudaSoftMax, GridsLargerThanOnePass)
{
    check(DataType::kFLOAT, Dims{2, {600000, 4}}, 1); // rows: 75000 blocks of 8 rows
    check(DataType::kHALF, Dims{2, {4, 2200000}}, 0); // columns: 68750 tiles of 32
}

TEST_F(CudaSoftMax, RandomShapesAndAxes)
{
    std::uniform_int_distribution<int32_t> rank(1, 5);
    std::uniform_int_distribution<int64_t> extent(1, 12);
    for (DataType const type : kTypes)
    {
        for (int32_t trial = 0; trial < 40; ++trial)
        {
            Dims dims{rank(mRng), {}};
            int64_t elements = 1;
            for (int32_t i = 0; i < dims.nbDims; ++i)
            {
                dims.d[i] = mRng() % 50 == 0 ? 0 : (elements > 4000 ? 1 : extent(mRng));
                elements *= std::max<int64_t>(dims.d[i], 1);
            }
            check(type, dims, static_cast<int32_t>(mRng() % static_cast<uint64_t>(dims.nbDims)));
        }
    }
}

TEST_F(CudaSoftMax, LargeValuesAreStable)
{
    for (DataType const type : kTypes)
    {
        check(type, Dims{2, {4, 100}}, 1, 1000.0, 3000.0);
        check(type, Dims{2, {100, 4}}, 0, -3000.0, -1000.0);
    }
}

TEST_F(CudaSoftMax, SpecialValues)
{
    // Rows of 40: one NaN, all -inf, one -inf, one +inf, two +inf; along both kernels' axes.
    constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
    constexpr double kInf = std::numeric_limits<double>::infinity();
    for (DataType const type : kTypes)
    {
        for (bool const innermost : {true, false})
        {
            Dims const dims = innermost ? Dims{2, {5, 40}} : Dims{2, {40, 5}};
            HostBuffer in(type, dims);
            randomize(in, mRng, -4.0, 4.0);
            auto const at = [&](int64_t row, int64_t j) { return innermost ? row * 40 + j : j * 5 + row; };
            host::storeFloat(in.tensor(), at(0, 17), kNan);
            for (int64_t j = 0; j < 40; ++j)
            {
                host::storeFloat(in.tensor(), at(1, j), -kInf);
            }
            host::storeFloat(in.tensor(), at(2, 3), -kInf);
            host::storeFloat(in.tensor(), at(3, 0), kInf);
            host::storeFloat(in.tensor(), at(4, 10), kInf);
            host::storeFloat(in.tensor(), at(4, 20), kInf);
            SCOPED_TRACE(::testing::Message() << "innermost " << innermost);
            compare(in, innermost ? 1 : 0);
        }
    }
}

TEST_F(CudaSoftMax, InPlace)
{
    for (auto const& [dims, axis] : {std::pair{Dims{2, {7, 3000}}, 1}, std::pair{Dims{3, {3, 500, 9}}, 1}})
    {
        HostBuffer in(DataType::kFLOAT, dims);
        randomize(in, mRng, -8.0, 8.0);
        SoftMaxParams const params{1U << axis};
        HostBuffer expected(DataType::kFLOAT, dims);
        ASSERT_TRUE(host::runSoftMax(params, in.tensor(), expected.tensor()).ok());
        DeviceBuffer const data = DeviceBuffer::upload(in.tensor());
        Status const done = cuda::runSoftMax(params, data.tensor(), data.tensor(), launch());
        ASSERT_TRUE(done.ok()) << done.error().message;
        expectNear(data.download(mStream), expected, 1.0, host::shapeString(dims));
    }
}

TEST_F(CudaSoftMax, RefusalsNameTheProblem)
{
    auto const refused
        = [&](SoftMaxParams const& params, HostTensor const& in, HostTensor const& out, std::string const& part) {
              Status const done = cuda::runSoftMax(params, in, out, launch());
              ASSERT_FALSE(done.ok()) << part;
              EXPECT_NE(done.error().message.find(part), std::string::npos) << done.error().message;
              EXPECT_EQ(done.error().message, host::runSoftMax(params, in, out).error().message);
          };
    DeviceBuffer const data(HostBuffer(DataType::kFLOAT, Dims{2, {3, 4}}).tensor());
    DeviceBuffer const other(HostBuffer(DataType::kFLOAT, Dims{2, {4, 3}}).tensor());
    DeviceBuffer const scaled(HostBuffer(DataType::kINT8, Dims{2, {3, 4}}).tensor());
    refused(SoftMaxParams{0b11}, data.tensor(), data.tensor(), "softmax: axes mask 3 must have exactly one bit set");
    refused(SoftMaxParams{0b100}, data.tensor(), data.tensor(), "axis 2 (mask 4) is outside the input [3, 4]");
    refused(SoftMaxParams{0b1}, scaled.tensor(), scaled.tensor(), "softmax: does not accept kINT8 inputs");
    refused(SoftMaxParams{0b1}, data.tensor(), other.tensor(),
        "softmax: the output is kFLOAT [4, 3] but must be kFLOAT [3, 4]");
    HostTensor scalar = data.tensor();
    scalar.dims = Dims{0, {}};
    refused(SoftMaxParams{0b1}, scalar, scalar, "needs rank >= 1");
}

} // namespace
} // namespace kiln::cuda::test
