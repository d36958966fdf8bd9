// SPDX-License-Identifier: Apache-2.0
// The CUDA grid sample against the host reference: every type, interpolation, sample mode and align corners, random
// shapes and grids reaching outside the input (and half-way points nearest rounds), a larger image, positions that
// are not finite, empty tensors, and the refusals (the host's messages).
#include "backends/host/grid_sample.h"

#include "cuda_test_util.h"

#include <limits>
#include <string>

namespace kiln::cuda::test
{
namespace
{

using nvinfer1::InterpolationMode;
using nvinfer1::SampleMode;

constexpr InterpolationMode kModes[]
    = {InterpolationMode::kNEAREST, InterpolationMode::kLINEAR, InterpolationMode::kCUBIC};
constexpr SampleMode kPaddings[] = {SampleMode::kFILL, SampleMode::kCLAMP, SampleMode::kREFLECT};

class CudaGridSample : public CudaKernelTest
{
protected:
    //! A grid of type and dims: positions in [-1.6, 1.6], some on the half-way points of small inputs.
    HostBuffer grid(DataType type, Dims const& dims)
    {
        HostBuffer g(type, dims);
        randomize(g, mRng, -1.6, 1.6);
        int64_t const n = host::elementCount(dims);
        for (int64_t i = 0; i < n; ++i)
        {
            if (mRng() % 8 == 0)
            {
                host::storeFloat(g.tensor(), i, static_cast<double>(static_cast<int64_t>(mRng() % 9) - 4) / 4.0);
            }
        }
        return g;
    }

    //! Runs params on both backends and compares: the weighted sums within a few ulps of the type (the device sums in
    //! float); both read the same elements (coordinates in double on both).
    void compare(
        HostBuffer const& in, HostBuffer const& positions, GridSampleParams const& params, std::string const& what)
    {
        SCOPED_TRACE(what + " " + host::shapeString(in.tensor().dims) + " grid "
            + host::shapeString(positions.tensor().dims) + " mode " + std::to_string(static_cast<int32_t>(params.mode))
            + " padding " + std::to_string(static_cast<int32_t>(params.sampleMode))
            + (params.alignCorners ? " aligned" : ""));
        Expected<host::TensorDesc> const desc = host::inferGridSample(
            params, {in.tensor().type, in.tensor().dims}, {positions.tensor().type, positions.tensor().dims});
        ASSERT_TRUE(desc.ok()) << desc.error().message;
        HostBuffer expected(desc.value().type, desc.value().dims);
        Status const reference = host::runGridSample(params, in.tensor(), positions.tensor(), expected.tensor());
        ASSERT_TRUE(reference.ok()) << reference.error().message;
        DeviceBuffer const din = DeviceBuffer::upload(in.tensor());
        DeviceBuffer const dgrid = DeviceBuffer::upload(positions.tensor());
        DeviceBuffer const dout(expected.tensor());
        Status const done = runGridSample(params, din.tensor(), dgrid.tensor(), dout.tensor(), launch());
        ASSERT_TRUE(done.ok()) << done.error().message;
        // Cubic weights reach 1.4 in size and add up to 16 terms: a wider bound there.
        expectNear(dout.download(mStream), expected, params.mode == InterpolationMode::kCUBIC ? 4.0 : 2.0, what);
    }
};

TEST_F(CudaGridSample, RandomShapesModesAndTypes)
{
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        for (int32_t trial = 0; trial < 8; ++trial)
        {
            int64_t const n = 1 + static_cast<int64_t>(mRng() % 2);
            Dims const inDims{4,
                {n, static_cast<int64_t>(1 + mRng() % 3), static_cast<int64_t>(1 + mRng() % 6),
                    static_cast<int64_t>(1 + mRng() % 6)}};
            Dims const gridDims{4, {n, static_cast<int64_t>(1 + mRng() % 5), static_cast<int64_t>(1 + mRng() % 5), 2}};
            HostBuffer in(type, inDims);
            randomize(in, mRng, -2.0, 2.0);
            HostBuffer const positions = grid(type, gridDims);
            for (InterpolationMode const mode : kModes)
            {
                for (SampleMode const padding : kPaddings)
                {
                    for (bool const align : {false, true})
                    {
                        GridSampleParams params;
                        params.mode = mode;
                        params.sampleMode = padding;
                        params.alignCorners = align;
                        compare(in, positions, params, dataTypeName(type));
                        if (HasFatalFailure())
                        {
                            return;
                        }
                    }
                }
            }
        }
    }
}

TEST_F(CudaGridSample, ALargerImage)
{
    HostBuffer in(DataType::kFLOAT, Dims{4, {2, 5, 37, 53}});
    randomize(in, mRng, -1.0, 1.0);
    HostBuffer const positions = grid(DataType::kFLOAT, Dims{4, {2, 31, 29, 2}});
    for (InterpolationMode const mode : kModes)
    {
        GridSampleParams params;
        params.mode = mode;
        params.sampleMode = SampleMode::kREFLECT;
        compare(in, positions, params, "large");
    }
}

TEST_F(CudaGridSample, PositionsThatAreNotFiniteAndEmptyTensors)
{
    HostBuffer in(DataType::kFLOAT, Dims{4, {1, 2, 3, 3}});
    randomize(in, mRng, -1.0, 1.0);
    HostBuffer positions(DataType::kFLOAT, Dims{4, {1, 1, 3, 2}});
    double const specials[] = {std::numeric_limits<double>::quiet_NaN(), 0.0, std::numeric_limits<double>::infinity(),
        0.5, -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()};
    for (int64_t i = 0; i < 6; ++i)
    {
        host::storeFloat(positions.tensor(), i, specials[i]);
    }
    for (InterpolationMode const mode : kModes)
    {
        for (SampleMode const padding : kPaddings)
        {
            GridSampleParams params;
            params.mode = mode;
            params.sampleMode = padding;
            compare(in, positions, params, "not finite");
        }
    }
    HostBuffer emptyPlane(DataType::kHALF, Dims{4, {1, 1, 0, 3}});
    compare(emptyPlane, grid(DataType::kHALF, Dims{4, {1, 2, 2, 2}}), GridSampleParams{}, "empty plane");
    HostBuffer noChannels(DataType::kFLOAT, Dims{4, {1, 0, 3, 3}});
    compare(noChannels, grid(DataType::kFLOAT, Dims{4, {1, 2, 2, 2}}), GridSampleParams{}, "no channels");
    HostBuffer some(DataType::kFLOAT, Dims{4, {1, 1, 3, 3}});
    compare(some, grid(DataType::kFLOAT, Dims{4, {1, 0, 2, 2}}), GridSampleParams{}, "no positions");
}

TEST_F(CudaGridSample, Refusals)
{
    HostBuffer in(DataType::kFLOAT, Dims{4, {1, 1, 2, 2}});
    HostBuffer positions(DataType::kFLOAT, Dims{4, {1, 2, 2, 2}});
    DeviceBuffer const din = DeviceBuffer::upload(in.tensor());
    DeviceBuffer const dgrid = DeviceBuffer::upload(positions.tensor());
    HostBuffer out(DataType::kFLOAT, Dims{4, {1, 1, 2, 2}});
    DeviceBuffer const dout(out.tensor());
    GridSampleParams params;
    params.sampleMode = SampleMode::kWRAP;
    Status const mode = runGridSample(params, din.tensor(), dgrid.tensor(), dout.tensor(), launch());
    ASSERT_FALSE(mode.ok());
    EXPECT_NE(mode.error().message.find("grid sample: sample mode 1 is not one a grid sample takes"), std::string::npos)
        << mode.error().message;
    HostBuffer half(DataType::kHALF, Dims{4, {1, 1, 2, 2}});
    DeviceBuffer const dhalf(half.tensor());
    Status const type = runGridSample(GridSampleParams{}, din.tensor(), dgrid.tensor(), dhalf.tensor(), launch());
    ASSERT_FALSE(type.ok());
    EXPECT_NE(type.error().message.find("the output is kHALF [1, 1, 2, 2] but must be kFLOAT [1, 1, 2, 2]"),
        std::string::npos)
        << type.error().message;
}

} // namespace
} // namespace kiln::cuda::test
