// SPDX-License-Identifier: Apache-2.0
// The CUDA resize against the host reference: kNEAREST on every element size (bytes compared exactly: both sides map
// coordinates with the same double arithmetic), kLINEAR and kCUBIC in kFLOAT, kHALF, kBF16 and kINT8 (within a
// tolerance), on random shapes of rank 1 to 5 with random scales or output dimensions, every coordinate
// transformation, selector and rounding, exclude-outside and cubic coefficients; ONNX's coordinate ties; empty
// tensors; a grid larger than one pass; and the refusals (the host's messages).
//
// Tolerance: interpolated values are sums of at most 4^k products of weights in [-0.75, 1.25] with the inputs (in
// [-4, 4]): the device's float weights and sums stay within a few float ulp of the host's double result, so
// tolerance(type) with a factor of 8 for kFLOAT (none for the narrower types, whose rounding dominates).
#include "backends/host/resize.h"

#include "movement_test_util.h"

#include <iterator>
#include <sstream>
#include <vector>

namespace kiln::cuda::test
{
namespace
{

using nvinfer1::InterpolationMode;
using nvinfer1::ResizeCoordinateTransformation;
using nvinfer1::ResizeRoundMode;
using nvinfer1::ResizeSelector;

std::string describe(ResizeParams const& params, DataType type, Dims const& in)
{
    std::ostringstream what;
    what << host::resizeKernelName(params) << " " << dataTypeName(type) << " " << host::shapeString(in)
         << " transformation " << static_cast<int>(params.transformation) << " selector "
         << static_cast<int>(params.selector) << " rounding " << static_cast<int>(params.rounding) << " cubic "
         << params.cubicCoeff << " exclude " << params.excludeOutside << " out " << host::shapeString(params.outputDims)
         << " scales";
    for (float const scale : params.scales)
    {
        what << " " << scale;
    }
    return what.str();
}

class CudaResize : public CudaKernelTest
{
protected:
    //! Resizes in on both backends and compares: bytes for kNEAREST, values within the tolerance otherwise.
    void compare(ResizeParams const& params, HostBuffer& in, float outScale = 0.05F)
    {
        std::string const what = describe(params, in.tensor().type, in.tensor().dims);
        SCOPED_TRACE(what);
        Expected<host::TensorDesc> const desc = host::inferResize(params, {in.tensor().type, in.tensor().dims});
        ASSERT_TRUE(desc.ok()) << desc.error().message;
        bool const nearest = params.mode == InterpolationMode::kNEAREST;
        HostBuffer expected(in.tensor().type, desc.value().dims, nearest ? in.tensor().scale : outScale);
        Status const hostDone = host::runResize(params, in.tensor(), expected.tensor());
        ASSERT_TRUE(hostDone.ok()) << hostDone.error().message;
        DeviceBuffer const din = DeviceBuffer::upload(in.tensor());
        DeviceBuffer const dout(expected.tensor());
        Status const done = cuda::runResize(params, din.tensor(), dout.tensor(), launch());
        ASSERT_TRUE(done.ok()) << done.error().message;
        HostBuffer actual = dout.download(mStream);
        if (nearest)
        {
            expectSameBytes(actual, expected, what);
        }
        else
        {
            expectNear(actual, expected, in.tensor().type == DataType::kFLOAT ? 8.0 : 1.0, what);
        }
    }

    //! Random parameters for an input of shape in: output dimensions or scales, every setting drawn at random.
    ResizeParams randomParams(InterpolationMode mode, Dims const& in)
    {
        ResizeParams params;
        params.mode = mode;
        params.transformation = static_cast<ResizeCoordinateTransformation>(mRng() % 3);
        params.selector = static_cast<ResizeSelector>(mRng() % 2);
        params.rounding = static_cast<ResizeRoundMode>(mRng() % 4);
        params.cubicCoeff = mRng() % 2 == 0 ? -0.75F : -0.5F;
        params.excludeOutside = mRng() % 3 == 0;
        static constexpr float kScales[] = {0.5F, 0.6F, 0.75F, 1.F, 1.25F, 1.5F, 2.F, 2.5F, 3.F, 1.F / 3.F};
        bool const byScales = mRng() % 2 == 0;
        if (byScales)
        {
            for (int32_t i = 0; i < in.nbDims; ++i)
            {
                params.scales.push_back(kScales[mRng() % std::size(kScales)]);
            }
        }
        else
        {
            params.outputDims = in;
            for (int32_t i = 0; i < in.nbDims; ++i)
            {
                params.outputDims.d[i] = in.d[i] == 0 ? 0 : 1 + static_cast<int64_t>(mRng() % 9);
            }
        }
        return params;
    }
};

TEST_F(CudaResize, RandomNearestResizesMatchTheHostExactly)
{
    std::vector<DataType> const types = moveTypes();
    for (int32_t trial = 0; trial < 400; ++trial)
    {
        DataType const type = types[mRng() % types.size()];
        Dims const in = randomShape(mRng, 1 + static_cast<int32_t>(mRng() % 5), 6, trial % 10 == 3);
        HostBuffer buffer(type, in);
        randomBytes(buffer, mRng);
        compare(randomParams(InterpolationMode::kNEAREST, in), buffer);
    }
}

TEST_F(CudaResize, RandomLinearAndCubicResizesMatchTheHost)
{
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8})
    {
        for (int32_t trial = 0; trial < 120; ++trial)
        {
            auto const mode = trial % 2 == 0 ? InterpolationMode::kLINEAR : InterpolationMode::kCUBIC;
            // Cubic gathers 4^k taps: up to 3 resized axes keep it quick.
            int32_t const rank = 1 + static_cast<int32_t>(mRng() % (mode == InterpolationMode::kCUBIC ? 3 : 5));
            Dims const in = randomShape(mRng, rank, 6, trial % 10 == 7);
            HostBuffer buffer(type, in, 0.05F);
            randomize(buffer, mRng, -4.0, 4.0);
            compare(randomParams(mode, in), buffer);
        }
    }
}

TEST_F(CudaResize, CoordinateTiesRoundAsOnTheHost)
{
    // Asymmetric 3 -> 6 and half-pixel 4 -> 8 put source coordinates exactly on halves: each rounding mode must pick
    // the host's element.
    HostBuffer in(DataType::kINT32, Dims{2, {3, 4}});
    for (int64_t i = 0; i < 12; ++i)
    {
        host::storeInteger(in.tensor(), i, i);
    }
    for (int32_t r = 0; r < 4; ++r)
    {
        for (auto const transformation : {ResizeCoordinateTransformation::kASYMMETRIC,
                 ResizeCoordinateTransformation::kHALF_PIXEL, ResizeCoordinateTransformation::kALIGN_CORNERS})
        {
            ResizeParams params;
            params.rounding = static_cast<ResizeRoundMode>(r);
            params.transformation = transformation;
            params.scales = {2.F, 2.F};
            compare(params, in);
            params.scales.clear();
            params.outputDims = Dims{2, {7, 9}};
            compare(params, in);
        }
    }
}

TEST_F(CudaResize, EmptyTensorsAndAxesOfOne)
{
    for (InterpolationMode const mode :
        {InterpolationMode::kNEAREST, InterpolationMode::kLINEAR, InterpolationMode::kCUBIC})
    {
        ResizeParams params;
        params.mode = mode;
        params.outputDims = Dims{3, {0, 4, 5}};
        HostBuffer empty(DataType::kFLOAT, Dims{3, {0, 2, 2}});
        compare(params, empty);
        params.outputDims = Dims{3, {2, 0, 5}};
        HostBuffer row(DataType::kFLOAT, Dims{3, {1, 2, 1}});
        randomize(row, mRng, -4.0, 4.0);
        compare(params, row);
        params.outputDims = Dims{3, {3, 2, 6}}; // Axes of input extent 1 broadcast.
        compare(params, row);
    }
}

TEST_F(CudaResize, GridLargerThanOnePass)
{
    // 8192 blocks of 256 threads cover 2M outputs per pass; 2 x 1200 x 1200 needs more than one.
    HostBuffer in(DataType::kHALF, Dims{3, {2, 600, 600}});
    randomize(in, mRng, -4.0, 4.0);
    for (InterpolationMode const mode : {InterpolationMode::kNEAREST, InterpolationMode::kLINEAR})
    {
        ResizeParams params;
        params.mode = mode;
        params.transformation = ResizeCoordinateTransformation::kHALF_PIXEL;
        params.scales = {1.F, 2.F, 2.F};
        compare(params, in);
    }
}

TEST_F(CudaResize, RefusalsNameTheProblem)
{
    auto const refused
        = [&](ResizeParams const& params, HostTensor const& in, HostTensor const& out, std::string const& part) {
              Status const done = cuda::runResize(params, in, out, launch());
              ASSERT_FALSE(done.ok()) << part;
              EXPECT_NE(done.error().message.find(part), std::string::npos) << done.error().message;
              Status const host = host::runResize(params, in, out);
              ASSERT_FALSE(host.ok()) << part;
              EXPECT_EQ(done.error().message, host.error().message);
          };
    DeviceBuffer const in(HostBuffer(DataType::kFLOAT, Dims{2, {2, 3}}).tensor());
    DeviceBuffer const out(HostBuffer(DataType::kFLOAT, Dims{2, {4, 6}}).tensor());
    ResizeParams params;
    params.mode = InterpolationMode::kLINEAR;
    params.scales = {2.F, 2.F};
    ResizeParams wrong = params;
    wrong.scales = {2.F, 3.F};
    refused(wrong, in.tensor(), out.tensor(), "resize kLINEAR: the output is kFLOAT [4, 6] but must be kFLOAT [4, 9]");
    ResizeParams unknown = params;
    unknown.mode = static_cast<InterpolationMode>(7);
    refused(unknown, in.tensor(), out.tensor(), "resize: unknown InterpolationMode 7");
    HostTensor integer = in.tensor();
    integer.type = DataType::kINT32;
    HostTensor integerOut = out.tensor();
    integerOut.type = DataType::kINT32;
    refused(params, integer, integerOut, "resize kLINEAR: does not take kINT32 inputs");
    // The device reads whole elements: data must be aligned to them (the host has no such rule).
    ResizeParams nearest;
    nearest.scales = {2.F, 2.F};
    HostTensor misaligned = in.tensor();
    misaligned.data = static_cast<std::byte*>(misaligned.data) + 1;
    Status const unaligned = cuda::runResize(nearest, misaligned, out.tensor(), launch());
    ASSERT_FALSE(unaligned.ok());
    EXPECT_EQ(
        unaligned.error().message, "resize kNEAREST: the input's device data is not aligned to its 4-byte elements");
    ResizeParams rank = params;
    rank.scales = {2.F};
    refused(rank, in.tensor(), out.tensor(), "resize kLINEAR: 1 scales for the input [2, 3]; give one per input axis");
}

} // namespace
} // namespace kiln::cuda::test
