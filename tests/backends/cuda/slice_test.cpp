// SPDX-License-Identifier: Apache-2.0
// The CUDA slice against the host's: every sample mode on random shapes, starts, sizes and strides (negative and 0
// included), axes (negative ones too), every element size, fill values of every type converted to the data's, empty
// and rank-0 tensors, kSTRICT_BOUNDS refusals naming the same element as the host, and the other refusals.
#include "backends/host/slice.h"

#include "movement_test_util.h"

#include <algorithm>
#include <optional>

namespace kiln::cuda::test
{
namespace
{

using nvinfer1::SampleMode;

class CudaSlice : public CudaKernelTest
{
protected:
    //! Slices random bytes of type and inDims on the host and the device (with fill, when given, in both), and
    //! compares outcomes and bytes.
    void check(
        SliceParams const& params, DataType type, Dims const& inDims, HostBuffer const* fill, std::string const& what)
    {
        HostBuffer in(type, inDims);
        randomBytes(in, mRng);
        Expected<host::TensorDesc> const desc = host::inferSlice(params, {type, inDims});
        HostBuffer expected(type, desc ? desc.value().dims : inDims);
        Status const hostStatus
            = host::runSlice(params, in.tensor(), expected.tensor(), fill != nullptr ? &fill->tensor() : nullptr);
        DeviceBuffer const din = DeviceBuffer::upload(in.tensor());
        DeviceBuffer const dout(expected.tensor());
        std::optional<DeviceBuffer> dfill;
        if (fill != nullptr)
        {
            dfill.emplace(DeviceBuffer::upload(fill->tensor()));
        }
        Status const deviceStatus
            = runSlice(params, din.tensor(), dfill ? &dfill->tensor() : nullptr, dout.tensor(), launch());
        if (sameOutcome(deviceStatus, hostStatus, what))
        {
            HostBuffer actual = dout.download(mStream);
            expectSameBytes(actual, expected, what);
        }
    }
};

TEST_F(CudaSlice, RandomSlicesInEveryModeMatchTheHost)
{
    std::vector<DataType> const types = moveTypes();
    for (int32_t trial = 0; trial < 1000; ++trial)
    {
        auto const mode = static_cast<SampleMode>(trial % 5);
        DataType const type = types[mRng() % types.size()];
        int32_t const rank = static_cast<int32_t>(mRng() % 5);
        Dims const in = randomShape(mRng, rank, 5, mode == SampleMode::kFILL || trial % 10 == 1);
        bool const useAxes = mRng() % 3 == 0;
        SliceParams params{};
        params.mode = mode;
        std::vector<int32_t> axes;
        for (int32_t i = 0; i < rank; ++i)
        {
            if (!useAxes || mRng() % 2 == 0)
            {
                axes.push_back(i);
            }
        }
        if (useAxes)
        {
            std::shuffle(axes.begin(), axes.end(), mRng);
        }
        auto const n = static_cast<int32_t>(axes.size());
        params.start = Dims{n, {}};
        params.size = Dims{n, {}};
        params.stride = Dims{n, {}};
        if (useAxes)
        {
            params.axes = Dims{n, {}};
        }
        // kSTRICT_BOUNDS stays inside most of the time; the rest checks that both refuse the same element.
        bool const inside = mode == SampleMode::kSTRICT_BOUNDS && mRng() % 4 != 0;
        for (int32_t j = 0; j < n; ++j)
        {
            int32_t const a = axes[static_cast<std::size_t>(j)];
            int64_t const d = in.d[a];
            int64_t size = static_cast<int64_t>(mRng() % 7);
            int64_t stride = static_cast<int64_t>(mRng() % 7) - 3;
            int64_t start = static_cast<int64_t>(mRng() % 16) - 6;
            if (inside && d > 0)
            {
                start = static_cast<int64_t>(mRng() % static_cast<uint64_t>(d));
                int64_t const room = stride > 0 ? (d - 1 - start) / stride + 1 : (stride < 0 ? start / -stride + 1 : 7);
                size = std::min(size, room);
            }
            if (useAxes)
            {
                params.axes.d[j] = mRng() % 2 == 0 ? a : a - rank;
            }
            params.start.d[j] = start;
            params.size.d[j] = size;
            params.stride.d[j] = stride;
        }
        std::optional<HostBuffer> fill;
        if (mode == SampleMode::kFILL && mRng() % 3 != 0)
        {
            // The data's type (bytes copied) or another one (converted as the host converts it).
            DataType const fillType = mRng() % 2 == 0 ? type : types[mRng() % types.size()];
            fill.emplace(fillType, mRng() % 2 == 0 ? Dims{0, {}} : Dims{1, {1}});
            if (fillType == type)
            {
                randomBytes(*fill, mRng);
            }
            else
            {
                randomize(*fill, mRng, -100.0, 100.0);
            }
        }
        check(params, type, in, fill ? &*fill : nullptr,
            "trial " + std::to_string(trial) + " " + host::sampleModes()[static_cast<std::size_t>(mode)].name + " "
                + describe(type, in) + " start " + host::shapeString(params.start) + " size "
                + host::shapeString(params.size) + " stride " + host::shapeString(params.stride) + " axes "
                + host::shapeString(params.axes)
                + (fill ? std::string(" fill ") + dataTypeName(fill->tensor().type) : std::string()));
    }
}

TEST_F(CudaSlice, LargeSlicesLoopOverTheGrid)
{
    // More elements than 8192 blocks of 256 threads, every element size, a reversed axis, wrapping at both ends.
    for (DataType const type : {DataType::kBOOL, DataType::kBF16, DataType::kFLOAT, DataType::kINT64})
    {
        SliceParams params{Dims{2, {3100, -50}}, Dims{2, {1500, 1500}}, Dims{2, {-2, 1}}, SampleMode::kWRAP};
        check(params, type, Dims{2, {3000, 1600}}, nullptr, std::string("large ") + dataTypeName(type));
    }
}

TEST_F(CudaSlice, ScaledFillValuesConvert)
{
    HostBuffer fill(DataType::kINT8, Dims{0, {}}, 0.5F);
    host::storeInteger(fill.tensor(), 0, 7); // quantized: 7 / 0.5 = 14
    SliceParams params{Dims{1, {-2}}, Dims{1, {8}}, Dims{1, {1}}, SampleMode::kFILL};
    check(params, DataType::kFLOAT, Dims{1, {4}}, &fill, "kINT8 fill into kFLOAT");
    check(params, DataType::kHALF, Dims{1, {4}}, &fill, "kINT8 fill into kHALF");
    check(params, DataType::kINT32, Dims{1, {4}}, &fill, "kINT8 fill into kINT32");
}

TEST_F(CudaSlice, RankZeroAndEmptyTensors)
{
    SliceParams const whole{Dims{0, {}}, Dims{0, {}}, Dims{0, {}}};
    check(whole, DataType::kINT64, Dims{0, {}}, nullptr, "rank 0");
    // An empty input gives a nonempty output only by filling.
    HostBuffer fill(DataType::kFLOAT, Dims{1, {1}});
    host::storeFloat(fill.tensor(), 0, 2.5);
    SliceParams const filled{Dims{2, {-1, 0}}, Dims{2, {3, 2}}, Dims{2, {1, 1}}, SampleMode::kFILL};
    check(filled, DataType::kHALF, Dims{2, {0, 2}}, &fill, "fill from an empty input");
    SliceParams const none{Dims{2, {0, 0}}, Dims{2, {0, 2}}, Dims{2, {1, 1}}, SampleMode::kREFLECT};
    check(none, DataType::kUINT8, Dims{2, {0, 2}}, nullptr, "empty output from an empty input");
}

TEST_F(CudaSlice, RefusesWhatTheHostRefuses)
{
    HostBuffer const in(DataType::kFLOAT, Dims{2, {2, 3}});
    HostBuffer const out(DataType::kFLOAT, Dims{2, {2, 2}});
    DeviceBuffer const din(in.tensor());
    DeviceBuffer const dout(out.tensor());
    SliceParams const strict{Dims{2, {0, 2}}, Dims{2, {2, 2}}, Dims{2, {1, 1}}};
    Status const outside = runSlice(strict, din.tensor(), nullptr, dout.tensor(), launch());
    ASSERT_FALSE(outside.ok());
    EXPECT_EQ(outside.error().message,
        "slice kSTRICT_BOUNDS: coordinate 3 (start 2 + 1 * stride 1) of axis 1 is outside the extent 3 of the input "
        "[2, 3]");
    check(strict, DataType::kFLOAT, Dims{2, {2, 3}}, nullptr, "strict bounds");
    // The first element outside is the one the host names, here on the outer axis.
    check(SliceParams{Dims{2, {1, 2}}, Dims{2, {3, 2}}, Dims{2, {-1, -2}}}, DataType::kINT32, Dims{2, {2, 3}}, nullptr,
        "strict bounds, outer axis");

    HostBuffer const twoValues(DataType::kFLOAT, Dims{1, {2}});
    SliceParams const fill{Dims{1, {0}}, Dims{1, {1}}, Dims{1, {1}}, SampleMode::kFILL};
    check(fill, DataType::kFLOAT, Dims{1, {1}}, &twoValues, "fill value of two elements");
    SliceParams const clamp{Dims{1, {0}}, Dims{1, {1}}, Dims{1, {1}}, SampleMode::kCLAMP};
    HostBuffer const oneValue(DataType::kFLOAT, Dims{1, {1}});
    check(clamp, DataType::kFLOAT, Dims{1, {1}}, &oneValue, "fill value outside kFILL");
    SliceParams const wrap{Dims{1, {0}}, Dims{1, {1}}, Dims{1, {1}}, SampleMode::kWRAP};
    check(wrap, DataType::kFLOAT, Dims{1, {0}}, nullptr, "wrap of an empty input");
    check(SliceParams{Dims{1, {0}}, Dims{1, {1}}, Dims{1, {1}}}, DataType::kFLOAT, Dims{2, {2, 3}}, nullptr,
        "one start for two axes");
    check(SliceParams{Dims{0, {}}, Dims{0, {}}, Dims{0, {}}, SampleMode{9}}, DataType::kFLOAT, Dims{0, {}}, nullptr,
        "unknown mode");
}

} // namespace
} // namespace kiln::cuda::test
