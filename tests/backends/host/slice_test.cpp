// SPDX-License-Identifier: Apache-2.0
// The host slice against the operator reference's formulas computed here, for every sample mode, negative strides,
// axes, zero extents and every refusal.
#include "backends/host/slice.h"

#include "movement_test_util.h"

#include <cstdlib>
#include <limits>

namespace kiln::host::test
{
namespace
{

using nvinfer1::SampleMode;

//! The input coordinate a mode reads for x, or -1 for the fill value (the Slice page's formulas, written again).
int64_t sourceCoordinate(SampleMode mode, int64_t x, int64_t d)
{
    bool const inside = x >= 0 && x < d;
    switch (mode)
    {
    case SampleMode::kSTRICT_BOUNDS: return x;
    case SampleMode::kWRAP: return ((x % d) + d) % d;
    case SampleMode::kCLAMP: return std::min(std::max<int64_t>(x, 0), d - 1);
    case SampleMode::kFILL: return inside ? x : -1;
    case SampleMode::kREFLECT:
    {
        if (d == 1)
        {
            return 0;
        }
        int64_t const c = std::llabs(x) % (2 * d - 2);
        return c >= d ? 2 * d - 2 - c : c;
    }
    }
    return -2;
}

TEST(HostSlice, EveryModeMatchesTheOperatorReference)
{
    std::mt19937 rng(201);
    for (int32_t trial = 0; trial < 600; ++trial)
    {
        auto const mode = static_cast<SampleMode>(trial % 5);
        DataType const type = moveTypes()[rng() % moveTypes().size()];
        int32_t const rank = 1 + static_cast<int32_t>(rng() % 3);
        Dims const in = shapeOfRank(rng, rank, 5);
        bool const useAxes = rng() % 3 == 0;
        SliceParams params{};
        params.mode = mode;
        std::vector<int32_t> axes;
        for (int32_t i = 0; i < rank; ++i)
        {
            if (!useAxes || rng() % 2 == 0)
            {
                axes.push_back(i);
            }
        }
        auto const n = static_cast<int32_t>(axes.size());
        params.start = Dims{n, {}};
        params.size = Dims{n, {}};
        params.stride = Dims{n, {}};
        if (useAxes)
        {
            params.axes = Dims{n, {}};
        }
        Dims out = in;
        for (int32_t j = 0; j < n; ++j)
        {
            int32_t const a = axes[static_cast<std::size_t>(j)];
            int64_t const d = in.d[a];
            int64_t size = static_cast<int64_t>(rng() % 6);
            int64_t stride = static_cast<int64_t>(rng() % 5) - 2;
            int64_t start = static_cast<int64_t>(rng() % 12) - 4;
            if (mode == SampleMode::kSTRICT_BOUNDS)
            {
                // In bounds: start in [0, d), the last coordinate too.
                start = static_cast<int64_t>(rng() % d);
                stride = stride == 0 ? 0 : (stride > 0 ? 1 : -1);
                int64_t const room = stride > 0 ? d - start : (stride < 0 ? start + 1 : 6);
                size = std::min(size, room);
            }
            if (useAxes)
            {
                // A negative axis counts from the end.
                params.axes.d[j] = rng() % 2 == 0 ? a : a - rank;
            }
            params.start.d[j] = start;
            params.size.d[j] = size;
            params.stride.d[j] = stride;
            out.d[a] = size;
        }
        HostBuffer input(type, in);
        HostBuffer output(type, out);
        randomBytes(rng, input);
        HostBuffer fill(type, Dims{0, {}});
        randomBytes(rng, fill);
        bool const withFill = mode == SampleMode::kFILL && rng() % 2 == 0;
        Status const done = runSlice(params, input.tensor(), output.tensor(), withFill ? &fill.tensor() : nullptr);
        ASSERT_TRUE(done.ok()) << done.error().message;
        HostBuffer zero(type, Dims{0, {}});
        for (int64_t o = 0; o < elementCount(out); ++o)
        {
            std::vector<int64_t> y = coords(out, o);
            bool filled = false;
            for (int32_t j = 0; j < n; ++j)
            {
                auto const a = static_cast<std::size_t>(axes[static_cast<std::size_t>(j)]);
                int64_t const x = params.start.d[j] + y[a] * params.stride.d[j];
                y[a] = sourceCoordinate(mode, x, in.d[a]);
                filled = filled || y[a] == -1;
            }
            if (filled)
            {
                ASSERT_TRUE(sameElement(output, o, withFill ? fill : zero, 0)) << "fill at " << o;
            }
            else
            {
                ASSERT_TRUE(sameElement(output, o, input, linear(in, y)))
                    << sampleModes()[static_cast<std::size_t>(mode)].name << " in " << shapeString(in) << " o " << o;
            }
        }
    }
}

TEST(HostSlice, NegativeStrideReverses)
{
    HostBuffer in(DataType::kINT32, Dims{1, {6}});
    for (int64_t i = 0; i < 6; ++i)
    {
        encodeInteger(DataType::kINT32, in.bytes().data(), i, i);
    }
    HostBuffer out(DataType::kINT32, Dims{1, {3}});
    ASSERT_TRUE(runSlice({Dims{1, {4}}, Dims{1, {3}}, Dims{1, {-2}}}, in.tensor(), out.tensor()).ok());
    EXPECT_EQ(decodeInteger(DataType::kINT32, bytesOf(out), 0), 4);
    EXPECT_EQ(decodeInteger(DataType::kINT32, bytesOf(out), 1), 2);
    EXPECT_EQ(decodeInteger(DataType::kINT32, bytesOf(out), 2), 0);
}

TEST(HostSlice, FillConvertsTheFillValueAndFillsAnEmptyInput)
{
    HostBuffer in(DataType::kFLOAT, Dims{1, {0}});
    HostBuffer out(DataType::kFLOAT, Dims{1, {2}});
    HostBuffer fill(DataType::kINT32, Dims{1, {1}});
    encodeInteger(DataType::kINT32, fill.bytes().data(), 0, 7);
    SliceParams params{Dims{1, {0}}, Dims{1, {2}}, Dims{1, {1}}, SampleMode::kFILL};
    ASSERT_TRUE(runSlice(params, in.tensor(), out.tensor(), &fill.tensor()).ok());
    EXPECT_EQ(decode(DataType::kFLOAT, bytesOf(out), 1, 1.0F), 7.0);
}

TEST(HostSlice, RefusalsNameTheProblem)
{
    HostBuffer in(DataType::kFLOAT, Dims{2, {2, 3}});
    HostBuffer out(DataType::kFLOAT, Dims{2, {2, 2}});
    SliceParams strict{Dims{2, {0, 2}}, Dims{2, {2, 2}}, Dims{2, {1, 1}}};
    expectError(runSlice(strict, in.tensor(), out.tensor()),
        {"kSTRICT_BOUNDS", "coordinate 3", "axis 1", "extent 3", "[2, 3]"});
    expectError(inferSlice({Dims{1, {0}}, Dims{1, {1}}, Dims{1, {1}}}, {DataType::kFLOAT, Dims{2, {2, 3}}}),
        {"the start [0] needs one entry per sliced axis (2)"});
    expectError(inferSlice({Dims{2, {0, 0}}, Dims{2, {1, -1}}, Dims{2, {1, 1}}}, {DataType::kFLOAT, Dims{2, {2, 3}}}),
        {"size of axis 1 is -1"});
    SliceParams repeated{Dims{2, {0, 0}}, Dims{2, {1, 1}}, Dims{2, {1, 1}}, SampleMode::kWRAP, Dims{2, {1, -1}}};
    expectError(inferSlice(repeated, {DataType::kFLOAT, Dims{2, {2, 3}}}), {"axis -1 is out of range or repeated"});
    expectError(inferSlice({Dims{0, {}}, Dims{0, {}}, Dims{0, {}}, SampleMode{9}}, {DataType::kFLOAT, Dims{0, {}}}),
        {"unknown SampleMode 9"});
    expectError(inferSlice({Dims{0, {}}, Dims{0, {}}, Dims{0, {}}}, {DataType::kFP4, Dims{0, {}}}), {"kFP4"});
    HostBuffer empty(DataType::kFLOAT, Dims{1, {0}});
    HostBuffer one(DataType::kFLOAT, Dims{1, {1}});
    expectError(runSlice({Dims{1, {0}}, Dims{1, {1}}, Dims{1, {1}}, SampleMode::kWRAP}, empty.tensor(), one.tensor()),
        {"kWRAP", "axis 0", "[0] is empty"});
    HostBuffer fill(DataType::kFLOAT, Dims{1, {2}});
    expectError(runSlice({Dims{1, {0}}, Dims{1, {1}}, Dims{1, {1}}, SampleMode::kFILL}, one.tensor(), one.tensor(),
                    &fill.tensor()),
        {"fill value has shape [2]"});
    expectError(runSlice({Dims{1, {0}}, Dims{1, {1}}, Dims{1, {1}}, SampleMode::kCLAMP}, one.tensor(), one.tensor(),
                    &one.tensor()),
        {"only in kFILL"});
    expectError(runSlice({Dims{1, {0}}, Dims{1, {1}}, Dims{1, {1}}}, one.tensor(), empty.tensor()),
        {"output is kFLOAT [0]", "kFLOAT [1]"});
    // Coordinates past int64: a stride of 2^62 + 1 over 3 elements (kWRAP took them modulo the extent after they
    // overflowed), and a start near 2^63.
    int64_t const stride = (int64_t{1} << 62) + 1;
    expectError(inferSlice({Dims{1, {0}}, Dims{1, {3}}, Dims{1, {stride}}, SampleMode::kWRAP},
                    {DataType::kFLOAT, Dims{1, {3}}}),
        {"axis 0: start 0 + (3 - 1) * stride 4611686018427387905 passes a 64-bit coordinate"});
    int64_t const start = std::numeric_limits<int64_t>::max() - 1;
    expectError(inferSlice({Dims{1, {start}}, Dims{1, {3}}, Dims{1, {1}}, SampleMode::kCLAMP},
                    {DataType::kFLOAT, Dims{1, {3}}}),
        {"passes a 64-bit coordinate"});
}

} // namespace
} // namespace kiln::host::test
