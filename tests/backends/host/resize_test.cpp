// SPDX-License-Identifier: Apache-2.0
// The host resize against expectations computed here: hand-worked grids for each coordinate transformation, every
// nearest rounding, the kUPPER selector, linear and cubic interpolation (ONNX's published examples), exclude-outside,
// N-D separable interpolation against an axis-by-axis reference written in the test, the types, and every refusal.
#include "backends/host/resize.h"

#include "host_test_util.h"

#include <algorithm>
#include <array>
#include <functional>
#include <numeric>
#include <vector>

namespace kiln::host::test
{
namespace
{

using nvinfer1::InterpolationMode;
using nvinfer1::ResizeCoordinateTransformation;
using nvinfer1::ResizeRoundMode;
using nvinfer1::ResizeSelector;

HostBuffer tensorOf(DataType type, Dims const& dims, std::vector<double> const& values, float scale = 1.0F)
{
    HostBuffer buffer(type, dims, scale);
    EXPECT_EQ(static_cast<int64_t>(values.size()), elementCount(dims));
    for (std::size_t i = 0; i < values.size(); ++i)
    {
        encode(type, static_cast<std::byte*>(buffer.tensor().data), static_cast<int64_t>(i), values[i], scale);
    }
    return buffer;
}

std::vector<double> iota(int64_t count, double first = 0.0)
{
    std::vector<double> values(static_cast<std::size_t>(count));
    std::iota(values.begin(), values.end(), first);
    return values;
}

ResizeParams paramsOf(InterpolationMode mode, ResizeCoordinateTransformation transformation)
{
    ResizeParams params;
    params.mode = mode;
    params.transformation = transformation;
    return params;
}

//! Runs the resize into a fresh output of the inferred shape (and scale) and returns the values.
std::vector<double> resized(ResizeParams const& params, HostBuffer const& in, float outScale = 1.0F)
{
    Expected<TensorDesc> const desc = inferResize(params, {in.tensor().type, in.tensor().dims});
    EXPECT_TRUE(desc.ok()) << desc.error().message;
    if (!desc.ok())
    {
        return {};
    }
    HostBuffer out(desc.value().type, desc.value().dims, outScale);
    Status const done = runResize(params, in.tensor(), out.tensor());
    EXPECT_TRUE(done.ok()) << done.error().message;
    std::vector<double> values;
    for (int64_t i = 0; i < elementCount(out.tensor()); ++i)
    {
        values.push_back(decode(out.tensor().type, bytesOf(out), i, out.tensor().scale));
    }
    return values;
}

void expectClose(std::vector<double> const& actual, std::vector<double> const& expected, double tolerance = 1e-6)
{
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
    {
        EXPECT_NEAR(actual[i], expected[i], tolerance) << "element " << i;
    }
}

TEST(HostResize, NearestRoundsAsEachModeSays)
{
    // Asymmetric, 3 -> 4 by sizes: source coordinates 0, 0.75, 1.5, 2.25.
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{1, {3}}, {10, 20, 30});
    ResizeParams params = paramsOf(InterpolationMode::kNEAREST, ResizeCoordinateTransformation::kASYMMETRIC);
    params.outputDims = Dims{1, {4}};
    std::array<std::pair<ResizeRoundMode, std::vector<double>>, 4> const cases{{
        {ResizeRoundMode::kHALF_UP, {10, 20, 30, 30}}, {ResizeRoundMode::kHALF_DOWN, {10, 20, 20, 30}},
        {ResizeRoundMode::kFLOOR, {10, 10, 20, 30}},
        {ResizeRoundMode::kCEIL, {10, 20, 30, 30}}, // ceil(2.25) = 3, clamped to 2
    }};
    for (auto const& [rounding, expected] : cases)
    {
        SCOPED_TRACE(static_cast<int>(rounding));
        params.rounding = rounding;
        EXPECT_EQ(resized(params, in), expected);
    }
    // Ties: 3 -> 6, coordinates 0, 0.5, 1, 1.5, 2, 2.5.
    params.outputDims = Dims{1, {6}};
    params.rounding = ResizeRoundMode::kHALF_UP;
    EXPECT_EQ(resized(params, in), (std::vector<double>{10, 20, 20, 30, 30, 30}));
    params.rounding = ResizeRoundMode::kHALF_DOWN;
    EXPECT_EQ(resized(params, in), (std::vector<double>{10, 10, 20, 20, 30, 30}));
}

TEST(HostResize, NearestUpsampleAndDownsampleByScales)
{
    // ONNX's Resize examples: 2x2 nearest upsampled by 2 x 3 (asymmetric, floor), 2x4 downsampled by 0.6 (half-pixel,
    // rounding half down).
    HostBuffer const small = tensorOf(DataType::kFLOAT, Dims{4, {1, 1, 2, 2}}, {1, 2, 3, 4});
    ResizeParams params = paramsOf(InterpolationMode::kNEAREST, ResizeCoordinateTransformation::kASYMMETRIC);
    params.scales = {1.F, 1.F, 2.F, 3.F};
    EXPECT_EQ(resized(params, small),
        (std::vector<double>{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4}));
    HostBuffer const wide = tensorOf(DataType::kFLOAT, Dims{4, {1, 1, 2, 4}}, iota(8, 1));
    params = paramsOf(InterpolationMode::kNEAREST, ResizeCoordinateTransformation::kHALF_PIXEL);
    params.rounding = ResizeRoundMode::kHALF_DOWN;
    params.scales = {1.F, 1.F, 0.6F, 0.6F};
    EXPECT_EQ(resized(params, wide), (std::vector<double>{1, 3}));
}

TEST(HostResize, LinearInEveryTransformation)
{
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{2, {2, 2}}, {1, 2, 3, 4});
    ResizeParams params = paramsOf(InterpolationMode::kLINEAR, ResizeCoordinateTransformation::kHALF_PIXEL);
    params.scales = {2.F, 2.F};
    // ONNX's upsample_scales_linear: edges repeat outside the input.
    expectClose(resized(params, in), {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4});
    params.transformation = ResizeCoordinateTransformation::kALIGN_CORNERS;
    double const third = 1.0 / 3.0;
    std::vector<double> expected;
    for (int y = 0; y < 4; ++y)
    {
        for (int x = 0; x < 4; ++x)
        {
            expected.push_back(1 + x * third + 2 * y * third);
        }
    }
    expectClose(resized(params, in), expected);
    params.transformation = ResizeCoordinateTransformation::kASYMMETRIC;
    expectClose(resized(params, in), {1, 1.5, 2, 2, 2, 2.5, 3, 3, 3, 3.5, 4, 4, 3, 3.5, 4, 4});
    // Downsampling with scales: the scale divides the coordinate (ONNX's downsample_scales_linear and its
    // align_corners variant, where the resized length is 4 * 0.6 = 2.4, not 2).
    HostBuffer const wide = tensorOf(DataType::kFLOAT, Dims{2, {2, 4}}, iota(8, 1));
    params.scales = {0.6F, 0.6F};
    params.transformation = ResizeCoordinateTransformation::kHALF_PIXEL;
    expectClose(resized(params, wide), {2.6666667, 4.3333333});
    params.transformation = ResizeCoordinateTransformation::kALIGN_CORNERS;
    expectClose(resized(params, wide), {1, 3.1428571});
}

TEST(HostResize, UpperSelectorReadsTheFirstElementOfAnAxisOfOne)
{
    // 4 -> 1 with half-pixel: the formula's coordinate is 1.5; kUPPER reads coordinate 0 instead.
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{2, {4, 4}}, iota(16, 1));
    ResizeParams params = paramsOf(InterpolationMode::kLINEAR, ResizeCoordinateTransformation::kHALF_PIXEL);
    params.outputDims = Dims{2, {3, 1}};
    expectClose(resized(params, in), {3.1666667, 8.5, 13.8333333});
    params.selector = ResizeSelector::kUPPER;
    // ONNX's downsample_sizes_linear_pytorch_half_pixel.
    expectClose(resized(params, in), {1.6666667, 7, 12.3333333});
}

//! The cubic convolution kernel, written out for the test.
double keys(double d, double a)
{
    d = std::fabs(d);
    if (d <= 1)
    {
        return (a + 2) * d * d * d - (a + 3) * d * d + 1;
    }
    return d < 2 ? a * d * d * d - 5 * a * d * d + 8 * a * d - 4 * a : 0.0;
}

//! 1-D cubic resize of values at the source coordinates, edges repeated or (exclude) outside taps dropped.
std::vector<double> cubic1d(
    std::vector<double> const& values, std::vector<double> const& coordinates, double a, bool exclude)
{
    auto const n = static_cast<int64_t>(values.size());
    std::vector<double> out;
    for (double const c : coordinates)
    {
        auto const f = static_cast<int64_t>(std::floor(c));
        double sum = 0;
        double weights = 0;
        for (int64_t i = f - 1; i <= f + 2; ++i)
        {
            bool const inside = i >= 0 && i < n;
            double const w = exclude && !inside ? 0.0 : keys(c - static_cast<double>(i), a);
            sum += w * values[static_cast<std::size_t>(std::clamp<int64_t>(i, 0, n - 1))];
            weights += w;
        }
        out.push_back(exclude ? sum / weights : sum);
    }
    return out;
}

TEST(HostResize, CubicWithCoefficientAndExcludeOutside)
{
    std::vector<double> const values{1, 4, 2, 8, 5};
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{1, {5}}, values);
    ResizeParams params = paramsOf(InterpolationMode::kCUBIC, ResizeCoordinateTransformation::kHALF_PIXEL);
    params.scales = {1.6F};
    std::vector<double> coordinates;
    for (int x = 0; x < 8; ++x)
    {
        coordinates.push_back((x + 0.5) / static_cast<double>(1.6F) - 0.5);
    }
    expectClose(resized(params, in), cubic1d(values, coordinates, -0.75, false));
    params.cubicCoeff = -0.5F;
    params.excludeOutside = true;
    expectClose(resized(params, in), cubic1d(values, coordinates, -0.5, true));
    // ONNX's upsample_scales_cubic_asymmetric, first row: 4x4 by 2, asymmetric.
    HostBuffer const grid = tensorOf(DataType::kFLOAT, Dims{2, {4, 4}}, iota(16, 1));
    params = paramsOf(InterpolationMode::kCUBIC, ResizeCoordinateTransformation::kASYMMETRIC);
    params.scales = {2.F, 2.F};
    std::vector<double> const out = resized(params, grid);
    ASSERT_EQ(out.size(), 64U);
    expectClose(std::vector<double>(out.begin(), out.begin() + 8), {1, 1.40625, 2, 2.5, 3, 3.59375, 4, 4.09375});
}

//! An N-D linear or nearest resize done axis by axis with intermediate tensors: the separable definition.
std::vector<double> separable(std::vector<double> values, Dims in, Dims const& out, ResizeParams const& params)
{
    for (int32_t a = 0; a < in.nbDims; ++a)
    {
        Dims next = in;
        next.d[a] = out.d[a];
        int64_t outer = 1;
        int64_t inner = 1;
        for (int32_t i = 0; i < a; ++i)
        {
            outer *= in.d[i];
        }
        for (int32_t i = a + 1; i < in.nbDims; ++i)
        {
            inner *= in.d[i];
        }
        int64_t const n = in.d[a];
        int64_t const m = out.d[a];
        std::vector<double> result(static_cast<std::size_t>(outer * m * inner));
        for (int64_t o = 0; o < outer; ++o)
        {
            for (int64_t x = 0; x < m; ++x)
            {
                // Half-pixel by sizes (params.scales unused here).
                double const c = (static_cast<double>(x) + 0.5) * static_cast<double>(n) / static_cast<double>(m) - 0.5;
                for (int64_t i = 0; i < inner; ++i)
                {
                    auto const at = [&](int64_t k) {
                        return values[static_cast<std::size_t>((o * n + std::clamp<int64_t>(k, 0, n - 1)) * inner + i)];
                    };
                    double value = 0;
                    if (params.mode == InterpolationMode::kNEAREST)
                    {
                        value = at(static_cast<int64_t>(std::floor(c + 0.5))); // kHALF_UP
                    }
                    else
                    {
                        double const f = std::floor(c);
                        value = (1 - (c - f)) * at(static_cast<int64_t>(f)) + (c - f) * at(static_cast<int64_t>(f) + 1);
                    }
                    result[static_cast<std::size_t>((o * m + x) * inner + i)] = value;
                }
            }
        }
        values = std::move(result);
        in = next;
    }
    return values;
}

TEST(HostResize, NdMatchesAxisByAxis)
{
    std::mt19937 rng(7);
    std::uniform_int_distribution<int64_t> extent(1, 5);
    for (int32_t trial = 0; trial < 30; ++trial)
    {
        int32_t const rank = 1 + trial % 5;
        Dims in{rank, {}};
        Dims out{rank, {}};
        for (int32_t i = 0; i < rank; ++i)
        {
            in.d[i] = extent(rng);
            out.d[i] = extent(rng) + (trial % 2 == 0 ? 2 : 0);
        }
        std::uniform_real_distribution<double> uniform(-3, 3);
        std::vector<double> values(static_cast<std::size_t>(elementCount(in)));
        for (double& v : values)
        {
            v = static_cast<double>(static_cast<float>(uniform(rng)));
        }
        HostBuffer const buffer = tensorOf(DataType::kFLOAT, in, values);
        for (InterpolationMode const mode : {InterpolationMode::kNEAREST, InterpolationMode::kLINEAR})
        {
            SCOPED_TRACE(shapeString(in) + " -> " + shapeString(out)
                + (mode == InterpolationMode::kLINEAR ? " linear" : " nearest"));
            ResizeParams params = paramsOf(mode, ResizeCoordinateTransformation::kHALF_PIXEL);
            params.rounding = ResizeRoundMode::kHALF_UP;
            params.outputDims = out;
            expectClose(resized(params, buffer), separable(values, in, out, params), 1e-5);
        }
    }
}

TEST(HostResize, Types)
{
    // Nearest moves any type, bytes unchanged.
    for (DataType const type : {DataType::kINT32, DataType::kINT64, DataType::kUINT8, DataType::kBOOL, DataType::kFP8})
    {
        SCOPED_TRACE(dataTypeName(type));
        HostBuffer const in = tensorOf(type, Dims{1, {3}}, {1, 0, 1});
        ResizeParams params = paramsOf(InterpolationMode::kNEAREST, ResizeCoordinateTransformation::kASYMMETRIC);
        params.scales = {2.F};
        EXPECT_EQ(resized(params, in), (std::vector<double>{1, 1, 0, 0, 1, 1}));
    }
    // Linear in kHALF and kINT8 (requantized to the output's scale).
    HostBuffer const half = tensorOf(DataType::kHALF, Dims{1, {2}}, {1, 2});
    ResizeParams params = paramsOf(InterpolationMode::kLINEAR, ResizeCoordinateTransformation::kALIGN_CORNERS);
    params.outputDims = Dims{1, {5}};
    EXPECT_EQ(resized(params, half), (std::vector<double>{1, 1.25, 1.5, 1.75, 2}));
    HostBuffer const quantized = tensorOf(DataType::kINT8, Dims{1, {2}}, {10, 20}, 0.5F);
    EXPECT_EQ(resized(params, quantized, 0.25F), (std::vector<double>{10, 12.5, 15, 17.5, 20}));
}

TEST(HostResize, AnAxisOfOneBroadcastsAndEmptyOutputsRun)
{
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{2, {1, 2}}, {5, 7});
    ResizeParams params = paramsOf(InterpolationMode::kCUBIC, ResizeCoordinateTransformation::kHALF_PIXEL);
    params.outputDims = Dims{2, {3, 2}};
    EXPECT_EQ(resized(params, in), (std::vector<double>{5, 7, 5, 7, 5, 7}));
    params.outputDims = Dims{2, {0, 2}};
    EXPECT_EQ(resized(params, in), std::vector<double>{});
    HostBuffer const empty = tensorOf(DataType::kFLOAT, Dims{2, {0, 2}}, {});
    params.outputDims = Dims{2, {0, 4}};
    EXPECT_EQ(resized(params, empty), std::vector<double>{});
}

TEST(HostResize, RefusalsNameTheProblem)
{
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{2, {2, 3}}, iota(6));
    TensorDesc const desc{DataType::kFLOAT, Dims{2, {2, 3}}};
    auto const refused = [&](ResizeParams const& params, std::string const& message, TensorDesc const* d = nullptr) {
        Expected<TensorDesc> const result = inferResize(params, d != nullptr ? *d : desc);
        ASSERT_FALSE(result.ok()) << message;
        EXPECT_EQ(result.error().message, message);
        EXPECT_EQ(result.error().code, nvinfer1::ErrorCode::kINVALID_ARGUMENT);
    };
    ResizeParams params;
    params.mode = static_cast<InterpolationMode>(3);
    refused(params, "resize: unknown InterpolationMode 3");
    params = ResizeParams{};
    params.transformation = static_cast<ResizeCoordinateTransformation>(3);
    refused(params, "resize kNEAREST: unknown ResizeCoordinateTransformation 3");
    params = ResizeParams{};
    params.selector = static_cast<ResizeSelector>(-1);
    refused(params, "resize kNEAREST: unknown ResizeSelector -1");
    params = ResizeParams{};
    params.rounding = static_cast<ResizeRoundMode>(4);
    refused(params, "resize kNEAREST: unknown ResizeRoundMode 4");
    params = ResizeParams{};
    params.cubicCoeff = kNan;
    refused(params, "resize kNEAREST: the cubic coefficient is nan; it must be finite");
    params = paramsOf(InterpolationMode::kLINEAR, ResizeCoordinateTransformation::kHALF_PIXEL);
    TensorDesc const integers{DataType::kINT32, Dims{2, {2, 3}}};
    refused(params, "resize kLINEAR: does not take kINT32 inputs (it takes kFLOAT, kHALF, kINT8, kBF16)", &integers);
    TensorDesc const negative{DataType::kFLOAT, Dims{2, {2, -1}}};
    refused(params, "resize kLINEAR: the input shape [2, -1] is not valid", &negative);
    params.outputDims = Dims{1, {4}};
    refused(params, "resize kLINEAR: the output dimensions [4] have 1 extents but the input [2, 3] has rank 2");
    params.outputDims = Dims{2, {4, -1}};
    refused(params, "resize kLINEAR: the output dimensions [4, -1] are not a shape");
    params.outputDims = kUnsetDims;
    params.scales = {2.F};
    refused(params, "resize kLINEAR: 1 scales for the input [2, 3]; give one per input axis");
    params.scales = {2.F, 0.F};
    refused(params, "resize kLINEAR: scale 1 is 0; scales must be positive and finite");
    params.scales = {2.F, 1e30F};
    TensorDesc const huge{DataType::kFLOAT, Dims{2, {2, int64_t{1} << 40}}};
    refused(params, "resize kLINEAR: axis 1: extent 1099511627776 times scale 1e+30 does not fit in 64 bits", &huge);
    params.scales.clear();
    params.outputDims = Dims{2, {2, 4}};
    TensorDesc const empty{DataType::kFLOAT, Dims{2, {2, 0}}};
    refused(params, "resize kLINEAR: axis 1 of the input [2, 0] is empty but its output extent is 4", &empty);

    // What runResize checks beyond inferResize: the output and the tensors.
    HostBuffer wrong(DataType::kFLOAT, Dims{2, {2, 5}});
    Status const mismatch = runResize(params, in.tensor(), wrong.tensor());
    ASSERT_FALSE(mismatch.ok());
    EXPECT_EQ(mismatch.error().message, "resize kLINEAR: the output is kFLOAT [2, 5] but must be kFLOAT [2, 4]");
    HostBuffer out(DataType::kFLOAT, Dims{2, {2, 4}});
    HostTensor missing = in.tensor();
    missing.data = nullptr;
    Status const noData = runResize(params, missing, out.tensor());
    ASSERT_FALSE(noData.ok());
    EXPECT_NE(noData.error().message.find("resize kLINEAR: "), std::string::npos) << noData.error().message;
    EXPECT_NE(noData.error().message.find("input"), std::string::npos) << noData.error().message;
    params.mode = InterpolationMode::kNEAREST;
    Status const noDataNearest = runResize(params, missing, out.tensor());
    ASSERT_FALSE(noDataNearest.ok());
    EXPECT_NE(noDataNearest.error().message.find("resize kNEAREST: "), std::string::npos)
        << noDataNearest.error().message;
    EXPECT_EQ(runResize(params, in.tensor(), wrong.tensor()).error().message,
        "resize kNEAREST: the output is kFLOAT [2, 5] but must be kFLOAT [2, 4]");
}

} // namespace
} // namespace kiln::host::test
