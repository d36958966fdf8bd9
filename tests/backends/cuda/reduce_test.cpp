// SPDX-License-Identifier: Apache-2.0
// The CUDA reduction against the host reference: every operation on every accepted type, over fixed shapes that take
// each kernel and launch shape (long rows, non-innermost and multiple axes, grids larger than one pass), random shapes
// and axes masks with keepDimensions on and off, rank 0 and 1, empty tensors, special values, and the refusals (the
// same messages as the host's).
//
// Tolerance: floating kSUM, kPROD and kAVG fold in float on the device and in double on the host. The float error of
// a fold of n values grows about as sqrt(n) roundings of the partial results (each thread folds its share, then a
// tree), so those compare within tolerance(type) * (1 + sqrt(n) / 8): for n = 4096 about 9e-5 near 0 in kFLOAT, a few
// times the expected error and far below what a wrong element would give. kMAX and kMIN pick an element (exact); kINT8
// compares within one quantization step; integers exactly.
#include "backends/host/reduce.h"

#include "cuda_test_util.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

namespace kiln::cuda::test
{
namespace
{

using Op = nvinfer1::ReduceOperation;

constexpr std::array kOps{Op::kSUM, Op::kPROD, Op::kMAX, Op::kMIN, Op::kAVG};
constexpr std::array kTypes{
    DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8, DataType::kINT32, DataType::kINT64};

struct Case
{
    Dims dims;
    uint32_t axes;
};

class CudaReduce : public CudaKernelTest
{
protected:
    //! Reduces a random input on both backends and compares (or compares the refusals).
    void check(Op op, DataType type, Dims const& dims, uint32_t axes, bool keep)
    {
        std::ostringstream what;
        what << host::findReduceOp(op)->name << " " << dataTypeName(type) << " " << host::shapeString(dims) << " axes "
             << axes << " keep " << keep;
        SCOPED_TRACE(what.str());
        int64_t count = 1;
        for (int32_t i = 0; i < dims.nbDims; ++i)
        {
            count *= (axes >> i & 1U) != 0 ? dims.d[i] : 1;
        }
        HostBuffer in(type, dims, 0.125F);
        bool const integer = type == DataType::kINT32 || type == DataType::kINT64;
        if (integer)
        {
            double const range = op == Op::kMAX || op == Op::kMIN ? 1000.0 : 5.0;
            randomize(in, mRng, -range, range);
        }
        else if (op == Op::kPROD)
        {
            // Products of long rows stay in range when the factors' logarithms average about 0.
            randomize(in, mRng, count > 64 ? 0.97 : 0.5, count > 64 ? 1.03 : 2.0);
        }
        else
        {
            randomize(in, mRng, -2.0, 2.0);
        }
        compare(op, type, in, dims, axes, keep, count);
    }

    //! Reduces in on both backends and compares.
    void compare(Op op, DataType type, HostBuffer const& in, Dims const& dims, uint32_t axes, bool keep, int64_t count)
    {
        ReduceParams const params{op, axes, keep};
        Expected<host::TensorDesc> const desc = host::inferReduce(params, {type, dims});
        ASSERT_TRUE(desc.ok()) << desc.error().message;
        float outScale = 0.02F;
        if (op == Op::kSUM)
        {
            outScale = 0.05F * static_cast<float>(1.0 + std::sqrt(static_cast<double>(count)));
        }
        else if (op == Op::kPROD)
        {
            outScale = 0.05F;
        }
        HostBuffer expected(type, desc.value().dims, type == DataType::kINT8 ? outScale : 1.0F);
        Status const hostDone = host::runReduce(params, in.tensor(), expected.tensor());
        DeviceBuffer const din = DeviceBuffer::upload(in.tensor());
        DeviceBuffer const dout(expected.tensor());
        Status const done = cuda::runReduce(params, din.tensor(), dout.tensor(), launch());
        if (!hostDone)
        {
            ASSERT_FALSE(done.ok());
            EXPECT_EQ(done.error().message, hostDone.error().message);
            return;
        }
        ASSERT_TRUE(done.ok()) << done.error().message;
        bool const folds = op == Op::kSUM || op == Op::kPROD || op == Op::kAVG;
        bool const plainFloating = type == DataType::kFLOAT || type == DataType::kHALF || type == DataType::kBF16;
        double const extra
            = folds && plainFloating ? 1.0 + std::sqrt(static_cast<double>(std::max<int64_t>(count, 1))) / 8.0 : 1.0;
        expectNear(dout.download(mStream), expected, extra);
    }
};

TEST_F(CudaReduce, FixedShapesEveryOperationAndType)
{
    std::vector<Case> const cases{
        {Dims{1, {4096}}, 0b1},           // one long row: a block of 256 threads
        {Dims{2, {3, 20000}}, 0b10},      // longer rows: blocks of 1024 threads, 2 parts each
        {Dims{2, {37, 300}}, 0b10},       // a warp per row, 37 rows (not a multiple of 8)
        {Dims{2, {5, 7}}, 0b10},          // rows shorter than 8: the column kernel
        {Dims{3, {7, 300, 9}}, 0b010},    // a middle axis
        {Dims{3, {2000, 3, 5}}, 0b001},   // the outermost axis, few outputs: 32 threads split each
        {Dims{4, {2, 3, 4, 5}}, 0b1010},  // two separate runs, innermost reduced
        {Dims{4, {2, 3, 4, 5}}, 0b0101},  // two separate runs, innermost kept
        {Dims{4, {2, 3, 4, 5}}, 0b1111},  // everything
        {Dims{4, {2, 3, 4, 5}}, 0b0110},  // two neighbours merged
        {Dims{4, {6, 1, 40, 1}}, 0b0110}, // extents of 1 dropped around a run
        {Dims{4, {6, 1, 40, 1}}, 0b1011}, // a run merged across an extent of 1
        {Dims{3, {64, 33, 17}}, 0b101},   // rows over two runs
        {Dims{3, {300, 4, 40}}, 0b101},   // 12000 elements per output over two runs
        {Dims{2, {3, 4}}, 0b00},          // no axis: a copy
        {Dims{0, {}}, 0b0},               // rank 0
        {Dims{1, {1}}, 0b1},              // rank 1, one element
        {Dims{1, {5}}, 0b1},              // rank 1 to rank 0
        {Dims{2, {4, 33}}, 0b11},         // everything, rows
        {Dims{2, {999, 12}}, 0b10},       // short rows: 8 threads per row
        {Dims{2, {999, 40}}, 0b10},       // short rows: 8 threads per row
        {Dims{1, {1 << 20}}, 0b1},        // one output: split over 128 blocks, then a second pass
        {Dims{2, {5, 100000}}, 0b10},     // few long rows, split
        {Dims{2, {300000, 3}}, 0b01},     // few long columns, split
        {Dims{3, {3, 40000, 2}}, 0b010},  // split over a middle axis
    };
    for (Case const& c : cases)
    {
        for (DataType const type : kTypes)
        {
            for (Op const op : kOps)
            {
                check(op, type, c.dims, c.axes, (c.axes & 1U) != 0);
                check(op, type, c.dims, c.axes, (c.axes & 1U) == 0);
            }
        }
    }
}

TEST_F(CudaReduce, EmptyTensors)
{
    // A reduction over an extent of 0 gives the host's empty values (integer kAVG refused with the host's message);
    // an output of 0 elements launches nothing.
    std::vector<Case> const cases{
        {Dims{2, {0, 5}}, 0b01},
        {Dims{2, {0, 5}}, 0b10},
        {Dims{3, {4, 0, 3}}, 0b010},
        {Dims{3, {4, 0, 3}}, 0b111},
        {Dims{1, {0}}, 0b1},
        {Dims{1, {0}}, 0b0},
    };
    for (Case const& c : cases)
    {
        for (DataType const type : kTypes)
        {
            for (Op const op : kOps)
            {
                check(op, type, c.dims, c.axes, false);
                check(op, type, c.dims, c.axes, true);
            }
        }
    }
}

TEST_F(CudaReduce, GridsLargerThanOnePass)
{
    // More outputs than the capped grid takes at once: both kernels loop over their outputs.
    check(Op::kSUM, DataType::kFLOAT, Dims{2, {2200000, 8}}, 0b10, false); // rows: 68750 blocks of 32 rows
    check(Op::kMAX, DataType::kINT32, Dims{2, {2200000, 8}}, 0b10, false);
    check(Op::kSUM, DataType::kHALF, Dims{2, {2200000, 2}}, 0b10, false); // columns: 68750 tiles of 32
    check(Op::kMIN, DataType::kINT64, Dims{2, {2, 2200000}}, 0b01, true);
}

TEST_F(CudaReduce, RandomShapesAndAxes)
{
    std::uniform_int_distribution<int32_t> rank(0, 5);
    std::uniform_int_distribution<int64_t> extent(1, 12);
    for (DataType const type : kTypes)
    {
        for (Op const op : kOps)
        {
            for (int32_t trial = 0; trial < 12; ++trial)
            {
                Dims dims{rank(mRng), {}};
                int64_t elements = 1;
                for (int32_t i = 0; i < dims.nbDims; ++i)
                {
                    dims.d[i] = mRng() % 50 == 0 ? 0 : (elements > 4000 ? 1 : extent(mRng));
                    elements *= std::max<int64_t>(dims.d[i], 1);
                }
                uint32_t const axes = dims.nbDims == 0 ? 0U : static_cast<uint32_t>(mRng() % (1U << dims.nbDims));
                check(op, type, dims, axes, mRng() % 2 == 0);
            }
        }
    }
}

TEST_F(CudaReduce, SpecialValues)
{
    // Rows of 40: one NaN, all NaN, with -inf, with +inf and NaN, with +inf and -inf; along both kernels' axes.
    constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
    constexpr double kInf = std::numeric_limits<double>::infinity();
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        for (bool const innermost : {true, false})
        {
            Dims const dims = innermost ? Dims{2, {5, 40}} : Dims{2, {40, 5}};
            HostBuffer in(type, dims);
            randomize(in, mRng, -2.0, 2.0);
            auto const at = [&](int64_t row, int64_t j) { return innermost ? row * 40 + j : j * 5 + row; };
            host::storeFloat(in.tensor(), at(0, 17), kNan);
            for (int64_t j = 0; j < 40; ++j)
            {
                host::storeFloat(in.tensor(), at(1, j), kNan);
            }
            host::storeFloat(in.tensor(), at(2, 3), -kInf);
            host::storeFloat(in.tensor(), at(3, 0), kInf);
            host::storeFloat(in.tensor(), at(3, 39), kNan);
            host::storeFloat(in.tensor(), at(4, 10), kInf);
            host::storeFloat(in.tensor(), at(4, 20), -kInf);
            for (Op const op : kOps)
            {
                SCOPED_TRACE(::testing::Message() << "innermost " << innermost);
                compare(op, type, in, dims, innermost ? 0b10U : 0b01U, false, 40);
            }
        }
    }
}

TEST_F(CudaReduce, SpecialValuesInSplitReductions)
{
    // Rows of 40000 fold in 4 parts: a row of NaN, and a row with one NaN, through both passes.
    constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
    for (DataType const type : {DataType::kFLOAT, DataType::kBF16})
    {
        HostBuffer in(type, Dims{2, {2, 40000}});
        randomize(in, mRng, -2.0, 2.0);
        for (int64_t j = 0; j < 40000; ++j)
        {
            host::storeFloat(in.tensor(), j, kNan);
        }
        host::storeFloat(in.tensor(), 40000 + 31000, kNan);
        for (Op const op : kOps)
        {
            compare(op, type, in, in.tensor().dims, 0b10U, false, 40000);
        }
    }
}

TEST_F(CudaReduce, RefusalsNameTheProblem)
{
    auto const refused
        = [&](ReduceParams const& params, HostTensor const& in, HostTensor const& out, std::string const& part) {
              Status const done = cuda::runReduce(params, in, out, launch());
              ASSERT_FALSE(done.ok()) << part;
              EXPECT_NE(done.error().message.find(part), std::string::npos) << done.error().message;
              EXPECT_EQ(done.error().message, host::runReduce(params, in, out).error().message);
          };
    HostBuffer const in(DataType::kFLOAT, Dims{2, {3, 4}});
    DeviceBuffer const din(in.tensor());
    DeviceBuffer const dout(HostBuffer(DataType::kFLOAT, Dims{1, {3}}).tensor());
    refused(ReduceParams{Op::kNONE, 0b10, false}, din.tensor(), dout.tensor(),
        "reduce kNONE: is not a reduction a reduce layer computes");
    refused(ReduceParams{Op::kSUM, 0b100, false}, din.tensor(), dout.tensor(), "names an axis outside the input");
    refused(ReduceParams{Op::kSUM, 0b01, false}, din.tensor(), dout.tensor(),
        "reduce kSUM: the output is kFLOAT [3] but must be kFLOAT [4]");
    HostTensor boolean = din.tensor();
    boolean.type = DataType::kBOOL;
    refused(ReduceParams{Op::kMAX, 0b10, false}, boolean, dout.tensor(), "does not accept kBOOL inputs");
    HostBuffer const empty(DataType::kINT32, Dims{2, {3, 0}});
    DeviceBuffer const dempty(empty.tensor());
    DeviceBuffer const dcounts(HostBuffer(DataType::kINT32, Dims{1, {3}}).tensor());
    refused(ReduceParams{Op::kAVG, 0b10, false}, dempty.tensor(), dcounts.tensor(),
        "the average of an empty integer reduction is undefined");
}

} // namespace
} // namespace kiln::cuda::test
