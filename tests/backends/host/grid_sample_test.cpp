// SPDX-License-Identifier: Apache-2.0
// The host grid sample against ONNX's reference values (grid_sample_golden.py beside this file prints them), and
// against an oracle written here after ONNX's reference implementation (one-axis interpolations of whole rows, then of
// the row results) on random shapes, grids reaching outside the input, every mode, padding and align corners, in
// FP32, FP16 and BF16; nearest ties; grids that are not finite; empty tensors; and every refusal with its message.
#include "backends/host/grid_sample.h"

#include "host_test_util.h"

#include <cmath>

namespace kiln::host::test
{
namespace
{

using nvinfer1::InterpolationMode;
using nvinfer1::SampleMode;

// ---- The oracle: ONNX's reference implementation (onnx/reference/ops/op_grid_sample.py), restated ---------------

double reflect(double x, double low, double high)
{
    double const range = high - low;
    if (range <= 0.0)
    {
        return low;
    }
    if (x < low)
    {
        double const dx = low - x;
        auto const n = static_cast<int64_t>(dx / range);
        double const r = dx - static_cast<double>(n) * range;
        return n % 2 == 0 ? low + r : high - r;
    }
    if (x > high)
    {
        double const dx = x - high;
        auto const n = static_cast<int64_t>(dx / range);
        double const r = dx - static_cast<double>(n) * range;
        return n % 2 == 0 ? high - r : low + r;
    }
    return x;
}

struct Border
{
    double low;
    double high;
};

//! The element of a line at integer index i under the padding mode.
double pixelAt(std::vector<double> const& line, int64_t i, Border border, SampleMode padding)
{
    auto const d = static_cast<int64_t>(line.size());
    if (padding == SampleMode::kFILL)
    {
        return i >= 0 && i < d ? line[static_cast<std::size_t>(i)] : 0.0;
    }
    if (padding == SampleMode::kCLAMP)
    {
        return line[static_cast<std::size_t>(std::clamp<int64_t>(i, 0, d - 1))];
    }
    auto const r = static_cast<int64_t>(reflect(static_cast<double>(i), border.low, border.high));
    return line[static_cast<std::size_t>(r)];
}

std::array<double, 4> cubicCoefficients(double x)
{
    double const a = -0.75;
    x = std::fabs(x);
    return {((a * (x + 1) - 5 * a) * (x + 1) + 8 * a) * (x + 1) - 4 * a, ((a + 2) * x - (a + 3)) * x * x + 1,
        ((a + 2) * (1 - x) - (a + 3)) * (1 - x) * (1 - x) + 1,
        ((a * (2 - x) - 5 * a) * (2 - x) + 8 * a) * (2 - x) - 4 * a};
}

//! One-axis interpolation of line at coordinate x.
double interpolate(std::vector<double> const& line, double x, Border border, SampleMode padding, InterpolationMode mode)
{
    auto const x0 = static_cast<int64_t>(std::floor(x));
    double const t = x - static_cast<double>(x0);
    if (mode == InterpolationMode::kLINEAR)
    {
        return (1 - t) * pixelAt(line, x0, border, padding) + t * pixelAt(line, x0 + 1, border, padding);
    }
    std::array<double, 4> const c = cubicCoefficients(t);
    double sum = 0.0;
    for (int64_t k = 0; k < 4; ++k)
    {
        sum += c[static_cast<std::size_t>(k)] * pixelAt(line, x0 - 1 + k, border, padding);
    }
    return sum;
}

//! The value at normalized (nx, ny) of a plane (rows of equal length).
double oracle(std::vector<std::vector<double>> const& plane, double nx, double ny, GridSampleParams const& params)
{
    auto const height = static_cast<int64_t>(plane.size());
    auto const width = static_cast<int64_t>(plane.front().size());
    auto const denormalize = [&](double n, int64_t d) {
        return params.alignCorners ? (n + 1) / 2.0 * static_cast<double>(d - 1)
                                   : ((n + 1) * static_cast<double>(d) - 1) / 2.0;
    };
    auto const borderOf = [&](int64_t d) {
        return params.alignCorners ? Border{0.0, static_cast<double>(d) - 1.0}
                                   : Border{-0.5, static_cast<double>(d) - 0.5};
    };
    double coordinates[2] = {denormalize(ny, height), denormalize(nx, width)};
    int64_t const extents[2] = {height, width};
    for (int32_t i = 0; i < 2; ++i)
    {
        double& v = coordinates[i];
        if (params.mode == InterpolationMode::kNEAREST)
        {
            v = std::nearbyint(v);
        }
        Border const border = borderOf(extents[i]);
        if (v < border.low || v > border.high)
        {
            if (params.sampleMode == SampleMode::kCLAMP)
            {
                v = std::clamp(v, 0.0, static_cast<double>(extents[i] - 1));
            }
            else if (params.sampleMode == SampleMode::kREFLECT)
            {
                v = reflect(v, border.low, border.high);
            }
        }
    }
    if (params.mode == InterpolationMode::kNEAREST)
    {
        auto const row = static_cast<int64_t>(coordinates[0]);
        std::vector<double> column(static_cast<std::size_t>(height));
        for (int64_t h = 0; h < height; ++h)
        {
            column[static_cast<std::size_t>(h)] = pixelAt(plane[static_cast<std::size_t>(h)],
                static_cast<int64_t>(coordinates[1]), borderOf(width), params.sampleMode);
        }
        return pixelAt(column, row, borderOf(height), params.sampleMode);
    }
    std::vector<double> rows(static_cast<std::size_t>(height));
    for (int64_t h = 0; h < height; ++h)
    {
        rows[static_cast<std::size_t>(h)] = interpolate(
            plane[static_cast<std::size_t>(h)], coordinates[1], borderOf(width), params.sampleMode, params.mode);
    }
    return interpolate(rows, coordinates[0], borderOf(height), params.sampleMode, params.mode);
}

// ---- Helpers ----------------------------------------------------------------------------------------------------

HostBuffer filled(DataType type, Dims const& dims, std::vector<double> const& values)
{
    HostBuffer buffer(type, dims);
    for (std::size_t i = 0; i < values.size(); ++i)
    {
        encode(type, static_cast<std::byte*>(buffer.tensor().data), static_cast<int64_t>(i), values[i], 1.0F);
    }
    return buffer;
}

std::vector<double> decoded(HostBuffer const& buffer)
{
    std::vector<double> values(static_cast<std::size_t>(elementCount(buffer.tensor())));
    for (std::size_t i = 0; i < values.size(); ++i)
    {
        values[i] = decode(buffer.tensor().type, bytesOf(buffer), static_cast<int64_t>(i), 1.0F);
    }
    return values;
}

GridSampleParams paramsOf(InterpolationMode mode, SampleMode padding, bool align)
{
    GridSampleParams params;
    params.mode = mode;
    params.sampleMode = padding;
    params.alignCorners = align;
    return params;
}

constexpr InterpolationMode kModes[]
    = {InterpolationMode::kNEAREST, InterpolationMode::kLINEAR, InterpolationMode::kCUBIC};
constexpr SampleMode kPaddings[] = {SampleMode::kFILL, SampleMode::kCLAMP, SampleMode::kREFLECT};

// ---- Tests ------------------------------------------------------------------------------------------------------

TEST(HostGridSample, OnnxReferenceValues)
{
    // x = [[1, 2, 3], [4, 5, 6]] ([1, 1, 2, 3]); grid [1, 2, 4, 2]; rows in the order grid_sample_golden.py prints
    // them: nearest, linear, cubic x zeros, border, reflection x align_corners 0, 1.
    static std::vector<std::vector<double>> const kGolden{
        {1.0, 2.0, 0.0, 0.0, 0.0, 6.0, 0.0, 0.0},
        {1.0, 2.0, 6.0, 0.0, 0.0, 6.0, 0.0, 0.0},
        {1.0, 2.0, 6.0, 4.0, 3.0, 6.0, 6.0, 2.0},
        {1.0, 2.0, 6.0, 4.0, 3.0, 6.0, 6.0, 2.0},
        {1.0, 2.0, 6.0, 5.0, 2.0, 6.0, 4.0, 5.0},
        {1.0, 2.0, 6.0, 5.0, 2.0, 6.0, 4.0, 5.0},
        {0.25, 3.5, 1.5, 0.0, 0.0, 5.0, 0.0, 0.0},
        {1.0, 3.5, 6.0, 0.8849998712539673, 0.23999977111816406, 4.375, 0.0, 0.0},
        {1.0, 3.5, 6.0, 3.3999998569488525, 3.0, 5.0, 6.0, 1.7000000476837158},
        {1.0, 3.5, 6.0, 2.9499998092651367, 3.0, 4.375, 6.0, 1.7999999523162842},
        {1.0, 3.5, 6.0, 3.950000047683716, 2.1499996185302734, 5.0, 4.100000381469727, 4.699999809265137},
        {1.0, 3.5, 6.0, 3.6499998569488525, 2.6999998092651367, 4.375, 4.099999904632568, 4.65000057220459},
        {0.0625, 4.15625, 1.6875, -0.32409989833831787, -0.0032380593474954367, 6.4792633056640625, 0.0, 0.0},
        {1.0, 4.15625, 6.0, 0.9224516153335571, 0.18464963138103485, 5.8397064208984375, -0.40969815850257874,
            -0.05929384380578995},
        {0.625, 3.5, 6.375, 3.4720003604888916, 3.0, 5.12890625, 6.0, 1.610750675201416},
        {1.0, 3.5, 6.0, 3.001188039779663, 3.0, 4.5126953125, 6.0, 1.7280004024505615},
        {0.25, 3.5, 6.75, 3.9260947704315186, 2.006469488143921, 5.12890625, 4.54774808883667, 5.150750637054443},
        {1.0, 3.5, 6.0, 3.7182517051696777, 2.461500644683838, 4.73828125, 4.12399959564209, 4.682248592376709},
    };
    HostBuffer const x = filled(DataType::kFLOAT, Dims{4, {1, 1, 2, 3}}, {1, 2, 3, 4, 5, 6});
    HostBuffer const grid = filled(DataType::kFLOAT, Dims{4, {1, 2, 4, 2}},
        {-1.0, -1.0, 0.0, 0.0, 1.0, 1.0, -1.7, 0.3, 1.9, -1.4, 0.5, 0.25, 2.6, 1.2, -0.2, -3.1});
    std::size_t row = 0;
    for (InterpolationMode const mode : kModes)
    {
        for (SampleMode const padding : kPaddings)
        {
            for (bool const align : {false, true})
            {
                SCOPED_TRACE(::testing::Message() << "mode " << static_cast<int32_t>(mode) << " padding "
                                                  << static_cast<int32_t>(padding) << " align " << align);
                HostBuffer out(DataType::kFLOAT, Dims{4, {1, 1, 2, 4}});
                Status const done
                    = runGridSample(paramsOf(mode, padding, align), x.tensor(), grid.tensor(), out.tensor());
                ASSERT_TRUE(done.ok()) << done.error().message;
                std::vector<double> const actual = decoded(out);
                std::vector<double> const& expected = kGolden[row++];
                for (std::size_t i = 0; i < expected.size(); ++i)
                {
                    // The reference computes in float: a few ulps of float.
                    EXPECT_NEAR(actual[i], expected[i], 4e-6 * std::max(1.0, std::fabs(expected[i])))
                        << "element " << i;
                }
            }
        }
    }
}

TEST(HostGridSample, RandomAgainstTheOracle)
{
    std::mt19937 rng(2026121);
    std::uniform_real_distribution<double> position(-1.7, 1.7);
    std::uniform_real_distribution<double> value(-2.0, 2.0);
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        for (int32_t trial = 0; trial < 40; ++trial)
        {
            int64_t const n = 1 + static_cast<int64_t>(rng() % 2);
            int64_t const c = 1 + static_cast<int64_t>(rng() % 3);
            int64_t const h = 1 + static_cast<int64_t>(rng() % 5);
            int64_t const w = 1 + static_cast<int64_t>(rng() % 5);
            int64_t const ho = 1 + static_cast<int64_t>(rng() % 4);
            int64_t const wo = 1 + static_cast<int64_t>(rng() % 4);
            std::vector<double> xs(static_cast<std::size_t>(n * c * h * w));
            for (double& v : xs)
            {
                v = roundTo(type, value(rng), 1.0F);
            }
            std::vector<double> gs(static_cast<std::size_t>(n * ho * wo * 2));
            for (double& v : gs)
            {
                // Some positions on the half-way points nearest rounds to even.
                v = roundTo(type,
                    rng() % 8 == 0 ? static_cast<double>(static_cast<int64_t>(rng() % 9) - 4) / 4.0 : position(rng),
                    1.0F);
            }
            HostBuffer const x = filled(type, Dims{4, {n, c, h, w}}, xs);
            HostBuffer const grid = filled(type, Dims{4, {n, ho, wo, 2}}, gs);
            for (InterpolationMode const mode : kModes)
            {
                for (SampleMode const padding : kPaddings)
                {
                    for (bool const align : {false, true})
                    {
                        SCOPED_TRACE(::testing::Message()
                            << dataTypeName(type) << " trial " << trial << " [" << n << ", " << c << ", " << h << ", "
                            << w << "] -> [" << ho << ", " << wo << "] mode " << static_cast<int32_t>(mode)
                            << " padding " << static_cast<int32_t>(padding) << " align " << align);
                        GridSampleParams const params = paramsOf(mode, padding, align);
                        HostBuffer out(type, Dims{4, {n, c, ho, wo}});
                        Status const done = runGridSample(params, x.tensor(), grid.tensor(), out.tensor());
                        ASSERT_TRUE(done.ok()) << done.error().message;
                        std::vector<double> const actual = decoded(out);
                        for (int64_t b = 0; b < n; ++b)
                        {
                            for (int64_t k = 0; k < c; ++k)
                            {
                                std::vector<std::vector<double>> plane(static_cast<std::size_t>(h));
                                for (int64_t r = 0; r < h; ++r)
                                {
                                    for (int64_t q = 0; q < w; ++q)
                                    {
                                        plane[static_cast<std::size_t>(r)].push_back(
                                            xs[static_cast<std::size_t>(((b * c + k) * h + r) * w + q)]);
                                    }
                                }
                                for (int64_t p = 0; p < ho * wo; ++p)
                                {
                                    auto const at = static_cast<std::size_t>((b * ho * wo + p) * 2);
                                    double const expected = oracle(plane, gs[at], gs[at + 1], params);
                                    double const got = actual[static_cast<std::size_t>((b * c + k) * ho * wo + p)];
                                    // The oracle sums in another order: a few ulps of double, then one rounding.
                                    EXPECT_LE(std::fabs(got - roundTo(type, expected, 1.0F)),
                                        ulp(type, expected, 1.0F) + 1e-12 * (1.0 + std::fabs(expected)))
                                        << "n " << b << " c " << k << " position " << p << ": expected " << expected
                                        << ", got " << got;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

TEST(HostGridSample, NearestRoundsHalfWayToEvenAndCornersAlign)
{
    // A row of 4: without align corners x = ((n + 1) * 4 - 1) / 2, so n = -0.5 gives 0.5 (rounds to 0), n = 0 gives
    // 1.5 (rounds to 2), n = 0.5 gives 2.5 (rounds to 2). With align corners, n = 1 is the last element's center.
    HostBuffer const x = filled(DataType::kFLOAT, Dims{4, {1, 1, 1, 4}}, {10, 20, 30, 40});
    HostBuffer const grid = filled(DataType::kFLOAT, Dims{4, {1, 1, 4, 2}}, {-0.5, 0, 0, 0, 0.5, 0, 1, 0});
    HostBuffer out(DataType::kFLOAT, Dims{4, {1, 1, 1, 4}});
    ASSERT_TRUE(runGridSample(
        paramsOf(InterpolationMode::kNEAREST, SampleMode::kFILL, false), x.tensor(), grid.tensor(), out.tensor())
                    .ok());
    EXPECT_EQ(decoded(out), (std::vector<double>{10, 30, 30, 0})); // n = 1 gives 3.5, which rounds to 4: outside.
    ASSERT_TRUE(runGridSample(
        paramsOf(InterpolationMode::kNEAREST, SampleMode::kFILL, true), x.tensor(), grid.tensor(), out.tensor())
                    .ok());
    // Align corners: x = (n + 1) / 2 * 3: 0.75 -> 1, 1.5 -> 2, 2.25 -> 2, 3 -> 3.
    EXPECT_EQ(decoded(out), (std::vector<double>{20, 30, 30, 40}));
}

TEST(HostGridSample, PositionsThatAreNotFiniteReadTheEdges)
{
    // NaN and infinities are taken as far outside the input: zeros read 0, border the edge element, reflection some
    // element; none reads outside the input.
    HostBuffer const x = filled(DataType::kFLOAT, Dims{4, {1, 1, 2, 2}}, {1, 2, 3, 4});
    HostBuffer const grid = filled(DataType::kFLOAT, Dims{4, {1, 1, 3, 2}}, {kNan, 0, kInf, 0, -kInf, kNan});
    for (InterpolationMode const mode : kModes)
    {
        for (SampleMode const padding : kPaddings)
        {
            HostBuffer out(DataType::kFLOAT, Dims{4, {1, 1, 1, 3}});
            ASSERT_TRUE(runGridSample(paramsOf(mode, padding, false), x.tensor(), grid.tensor(), out.tensor()).ok());
            for (double const v : decoded(out))
            {
                EXPECT_TRUE(std::isfinite(v)) << static_cast<int32_t>(mode) << " " << static_cast<int32_t>(padding);
                if (padding == SampleMode::kFILL)
                {
                    EXPECT_EQ(v, 0.0);
                }
            }
        }
    }
}

TEST(HostGridSample, EmptyTensors)
{
    GridSampleParams const params;
    // No output positions, no channels, and an input plane without elements (everything reads 0).
    for (auto const& [in, grid] : {std::pair{Dims{4, {1, 2, 3, 3}}, Dims{4, {1, 0, 2, 2}}},
             std::pair{Dims{4, {2, 0, 3, 3}}, Dims{4, {2, 2, 2, 2}}},
             std::pair{Dims{4, {1, 1, 0, 3}}, Dims{4, {1, 1, 2, 2}}}})
    {
        for (SampleMode const padding : kPaddings)
        {
            GridSampleParams p = params;
            p.sampleMode = padding;
            HostBuffer const x(DataType::kFLOAT, in);
            HostBuffer const g(DataType::kFLOAT, grid);
            Expected<TensorDesc> const desc = inferGridSample(p, {DataType::kFLOAT, in}, {DataType::kFLOAT, grid});
            ASSERT_TRUE(desc.ok()) << desc.error().message;
            HostBuffer out(DataType::kFLOAT, desc.value().dims);
            ASSERT_TRUE(runGridSample(p, x.tensor(), g.tensor(), out.tensor()).ok());
            for (double const v : decoded(out))
            {
                EXPECT_EQ(v, 0.0);
            }
        }
    }
}

TEST(HostGridSample, Refusals)
{
    TensorDesc const in{DataType::kFLOAT, Dims{4, {1, 2, 3, 3}}};
    TensorDesc const grid{DataType::kFLOAT, Dims{4, {1, 4, 5, 2}}};
    GridSampleParams params;
    Expected<TensorDesc> const desc = inferGridSample(params, in, grid);
    ASSERT_TRUE(desc.ok());
    EXPECT_TRUE(sameShape(desc.value().dims, Dims{4, {1, 2, 4, 5}}));
    params.sampleMode = SampleMode::kWRAP;
    expectError(inferGridSample(params, in, grid),
        {"grid sample: sample mode 1 is not one a grid sample takes (kFILL, kCLAMP or kREFLECT)"});
    params = GridSampleParams{};
    params.mode = static_cast<InterpolationMode>(3);
    expectError(inferGridSample(params, in, grid), {"interpolation mode 3 is not an InterpolationMode"});
    params = GridSampleParams{};
    expectError(inferGridSample(params, {DataType::kINT32, in.dims}, {DataType::kINT32, grid.dims}),
        {"the input is kINT32 and the grid kINT32; a grid sample takes two tensors of one type"});
    expectError(inferGridSample(params, in, {DataType::kHALF, grid.dims}), {"the input is kFLOAT and the grid kHALF"});
    expectError(inferGridSample(params, {DataType::kFLOAT, Dims{5, {1, 2, 3, 3, 3}}}, grid),
        {"must be concrete 4-D shapes [N, C, H, W] and [N, H_out, W_out, 2]"});
    expectError(inferGridSample(params, in, {DataType::kFLOAT, Dims{4, {2, 4, 5, 2}}}),
        {"the grid [2, 4, 5, 2] must be [N, H_out, W_out, 2] for the input [1, 2, 3, 3]"});
    expectError(inferGridSample(params, in, {DataType::kFLOAT, Dims{4, {1, 4, 5, 3}}}), {"the grid [1, 4, 5, 3]"});
    HostBuffer const x(DataType::kFLOAT, in.dims);
    HostBuffer const g(DataType::kFLOAT, grid.dims);
    HostBuffer wrong(DataType::kFLOAT, Dims{4, {1, 2, 5, 4}});
    expectError(runGridSample(params, x.tensor(), g.tensor(), wrong.tensor()),
        {"the output is kFLOAT [1, 2, 5, 4] but must be kFLOAT [1, 2, 4, 5]"});
    HostBuffer out(DataType::kFLOAT, Dims{4, {1, 2, 4, 5}});
    HostTensor missing = g.tensor();
    missing.data = nullptr;
    expectError(runGridSample(params, x.tensor(), missing, out.tensor()), {"grid sample: ", "grid"});
}

} // namespace
} // namespace kiln::host::test
