// SPDX-License-Identifier: Apache-2.0
// kiln's standard plugin library on the host: initLibNvInferPlugins registers ROIAlign_TRT "2" and
// ModulatedDeformConv2d "2" under the namespace it is given (twice is harmless); each plugin's host implementation
// against a direct reference written here from ONNX's definitions, on seeded random data and edge cases (boxes partly
// outside the image, adaptive sampling, max mode, output_half_pixel; zero offsets and unit masks equal a plain
// convolution, random offsets and masks, groups and offset groups, FP16); the creators' refusals; and engines with
// both plugins built, serialized, deserialized (the plugins restored from their fields) and run on the host backend.
#include "NvInferPlugin.h"
#include "core/float_convert.h"
#include "deform_conv.h"
#include "host_engine_support.h"
#include "kiln/plugin_host.h"
#include "roi_align.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace kiln::plugins
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::PluginField;
using nvinfer1::PluginFieldCollection;
using nvinfer1::PluginFieldType;

using CollectingLogger = test::PluginLog; // warnings and errors, one per line (host_engine_support.h)

CollectingLogger& logger()
{
    static CollectingLogger instance;
    return instance;
}

std::vector<float> randomValues(std::mt19937_64& rng, size_t n, float lo, float hi)
{
    std::uniform_real_distribution<float> uniform(lo, hi);
    std::vector<float> values(n);
    for (float& v : values)
    {
        v = uniform(rng);
    }
    return values;
}

// ---- ROIAlign: a direct reference, in double, from ONNX's definition ----

double bilinearOnnx(std::vector<float> const& x, int64_t plane, int64_t h, int64_t w, double y, double xx, double& w1,
    double& w2, double& w3, double& w4, int64_t pos[4])
{
    w1 = w2 = w3 = w4 = 0.0;
    pos[0] = pos[1] = pos[2] = pos[3] = 0;
    if (y < -1.0 || y > static_cast<double>(h) || xx < -1.0 || xx > static_cast<double>(w))
    {
        return 0.0;
    }
    y = std::max(y, 0.0);
    xx = std::max(xx, 0.0);
    auto yl = static_cast<int64_t>(y);
    auto xl = static_cast<int64_t>(xx);
    int64_t yh = yl + 1;
    int64_t xh = xl + 1;
    if (yl >= h - 1)
    {
        yl = yh = h - 1;
        y = static_cast<double>(yl);
    }
    if (xl >= w - 1)
    {
        xl = xh = w - 1;
        xx = static_cast<double>(xl);
    }
    double const ly = y - static_cast<double>(yl);
    double const lx = xx - static_cast<double>(xl);
    w1 = (1 - ly) * (1 - lx);
    w2 = (1 - ly) * lx;
    w3 = ly * (1 - lx);
    w4 = ly * lx;
    pos[0] = plane + yl * w + xl;
    pos[1] = plane + yl * w + xh;
    pos[2] = plane + yh * w + xl;
    pos[3] = plane + yh * w + xh;
    return w1 * x[pos[0]] + w2 * x[pos[1]] + w3 * x[pos[2]] + w4 * x[pos[3]];
}

std::vector<float> roiAlignReference(RoiAlignParams const& p, std::vector<float> const& x,
    std::vector<float> const& rois, std::vector<int32_t> const& batch)
{
    std::vector<float> y(static_cast<size_t>(p.outputCount()));
    double const shift = p.halfPixel ? 0.5 : 0.0;
    for (int64_t r = 0; r < p.rois; ++r)
    {
        double const sw = rois[r * 4 + 0] * static_cast<double>(p.spatialScale) - shift;
        double const sh = rois[r * 4 + 1] * static_cast<double>(p.spatialScale) - shift;
        double rw = rois[r * 4 + 2] * static_cast<double>(p.spatialScale) - shift - sw;
        double rh = rois[r * 4 + 3] * static_cast<double>(p.spatialScale) - shift - sh;
        if (!p.halfPixel)
        {
            rw = std::max(rw, 1.0);
            rh = std::max(rh, 1.0);
        }
        double const bh = rh / p.outputHeight;
        double const bw = rw / p.outputWidth;
        int64_t const gh = p.samplingRatio > 0 ? p.samplingRatio : static_cast<int64_t>(std::ceil(bh));
        int64_t const gw = p.samplingRatio > 0 ? p.samplingRatio : static_cast<int64_t>(std::ceil(bw));
        double const count = static_cast<double>(std::max<int64_t>(gh * gw, 1));
        for (int64_t c = 0; c < p.channels; ++c)
        {
            int64_t const plane = (batch[r] * p.channels + c) * p.height * p.width;
            for (int64_t ph = 0; ph < p.outputHeight; ++ph)
            {
                for (int64_t pw = 0; pw < p.outputWidth; ++pw)
                {
                    double sum = 0.0;
                    double largest = 0.0;
                    bool first = true;
                    for (int64_t iy = 0; iy < gh; ++iy)
                    {
                        for (int64_t ix = 0; ix < gw; ++ix)
                        {
                            double const yy = sh + ph * bh + (iy + 0.5) * bh / gh;
                            double const xx = sw + pw * bw + (ix + 0.5) * bw / gw;
                            double w[4];
                            int64_t pos[4];
                            sum += bilinearOnnx(x, plane, p.height, p.width, yy, xx, w[0], w[1], w[2], w[3], pos);
                            double v = w[0] * x[pos[0]];
                            for (int k = 1; k < 4; ++k)
                            {
                                v = std::max(v, w[k] * x[pos[k]]);
                            }
                            largest = first ? v : std::max(largest, v);
                            first = false;
                        }
                    }
                    y[((r * p.channels + c) * p.outputHeight + ph) * p.outputWidth + pw]
                        = static_cast<float>(p.maxMode ? largest : sum / count);
                }
            }
        }
    }
    return y;
}

void expectClose(std::vector<float> const& actual, std::vector<float> const& expected, double tolerance)
{
    ASSERT_EQ(actual.size(), expected.size());
    int failures = 0;
    for (size_t i = 0; i < expected.size() && failures < 10; ++i)
    {
        if (!(std::fabs(actual[i] - expected[i]) <= tolerance * (1.0 + std::fabs(expected[i]))))
        {
            ADD_FAILURE() << "element " << i << ": " << actual[i] << ", expected " << expected[i];
            ++failures;
        }
    }
}

struct RoiCase
{
    RoiAlignParams params;
    std::vector<float> rois; //!< Empty: random boxes, some partly or wholly outside the image.
};

TEST(RoiAlignHost, MatchesTheDirectReference)
{
    std::mt19937_64 rng(20261122);
    std::vector<RoiCase> cases;
    for (bool halfPixel : {true, false})
    {
        for (bool maxMode : {false, true})
        {
            for (int32_t sampling : {0, 1, 2, 3})
            {
                RoiAlignParams p;
                p.halfPixel = halfPixel;
                p.maxMode = maxMode;
                p.samplingRatio = sampling;
                p.outputHeight = 2 + sampling % 2;
                p.outputWidth = 3;
                p.spatialScale = sampling == 2 ? 0.5F : 1.0F;
                p.batch = 2;
                p.channels = 3;
                p.height = 7;
                p.width = 9;
                p.rois = 5;
                cases.push_back({p, {}});
            }
        }
    }
    // Fixed boxes: partly outside, wholly outside, empty, and reversed (malformed).
    RoiAlignParams fixed = cases.front().params;
    fixed.rois = 4;
    cases.push_back({fixed,
        {-3.0F, -2.0F, 4.0F, 3.0F, 20.0F, 20.0F, 30.0F, 25.0F, 2.0F, 2.0F, 2.0F, 2.0F, 5.0F, 5.0F, 1.0F, 2.0F}});
    fixed.halfPixel = false;
    cases.push_back({fixed, cases.back().rois});
    for (RoiCase const& c : cases)
    {
        RoiAlignParams const& p = c.params;
        SCOPED_TRACE("half_pixel " + std::to_string(p.halfPixel) + " max " + std::to_string(p.maxMode)
            + " sampling_ratio " + std::to_string(p.samplingRatio));
        std::vector<float> const x
            = randomValues(rng, static_cast<size_t>(p.batch * p.channels * p.height * p.width), -2.0F, 2.0F);
        std::vector<float> rois = c.rois;
        if (rois.empty())
        {
            std::vector<float> const corners = randomValues(rng, static_cast<size_t>(p.rois * 4), -4.0F, 14.0F);
            for (int64_t r = 0; r < p.rois; ++r)
            {
                rois.push_back(std::min(corners[r * 4], corners[r * 4 + 2]));
                rois.push_back(std::min(corners[r * 4 + 1], corners[r * 4 + 3]));
                rois.push_back(std::max(corners[r * 4], corners[r * 4 + 2]));
                rois.push_back(std::max(corners[r * 4 + 1], corners[r * 4 + 3]));
            }
        }
        std::vector<int32_t> batch;
        for (int64_t r = 0; r < p.rois; ++r)
        {
            batch.push_back(static_cast<int32_t>(r % p.batch));
        }
        std::vector<float> y(static_cast<size_t>(p.outputCount()), -7.0F);
        runRoiAlignHost(p, DataType::kFLOAT, x.data(), rois.data(), batch.data(), y.data());
        expectClose(y, roiAlignReference(p, x, rois, batch), 1e-5);
    }
}

// Boxes are data: one of height 1e30, or of NaN or infinite coordinates, holds the adaptive grid to kMaxSamplingGrid a
// side (a hostile plan's fuzzed box once ran for minutes); a NaN extent takes no samples; no conversion is undefined.
TEST(RoiAlignHost, HugeAndNonFiniteBoxesKeepTheAdaptiveGridBounded)
{
    EXPECT_EQ(adaptiveGrid(2.5F), 3);
    EXPECT_EQ(adaptiveGrid(-4.0F), 0);
    EXPECT_EQ(adaptiveGrid(1e30F), kMaxSamplingGrid);
    EXPECT_EQ(adaptiveGrid(std::numeric_limits<float>::infinity()), kMaxSamplingGrid);
    EXPECT_EQ(adaptiveGrid(-std::numeric_limits<float>::infinity()), 0);
    EXPECT_EQ(adaptiveGrid(std::numeric_limits<float>::quiet_NaN()), 0);

    RoiAlignParams p;
    p.batch = 1;
    p.channels = 1;
    p.height = 4;
    p.width = 4;
    p.rois = 3;
    p.outputHeight = 2;
    p.outputWidth = 2;
    std::vector<float> const x(16, 1.0F);
    float const nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> const rois{0.0F, 0.0F, 1e30F, 1e30F, nan, nan, nan, nan, -1e30F, -1e30F, 1e30F, 1e30F};
    std::vector<int32_t> const batch{0, 0, 0};
    std::vector<float> y(static_cast<size_t>(p.outputCount()), -7.0F);
    runRoiAlignHost(p, DataType::kFLOAT, x.data(), rois.data(), batch.data(), y.data());
    for (float v : y)
    {
        EXPECT_NE(v, -7.0F) << "every output is written";
    }
}

TEST(RoiAlignHost, Fp16AndABatchIndexOutOfRange)
{
    std::mt19937_64 rng(7);
    RoiAlignParams p;
    p.batch = 1;
    p.channels = 2;
    p.height = 5;
    p.width = 6;
    p.rois = 2;
    p.outputHeight = 2;
    p.outputWidth = 2;
    std::vector<float> const x = randomValues(rng, 60, -1.0F, 1.0F);
    std::vector<float> const rois{0.5F, 0.5F, 4.0F, 3.5F, 1.0F, 0.0F, 5.0F, 4.0F};
    std::vector<int32_t> const batch{0, 3}; // 3 is outside [0, N): that box gives 0.
    std::vector<uint16_t> xh;
    std::vector<uint16_t> roish;
    std::vector<float> xr;
    std::vector<float> roisr;
    for (float v : x)
    {
        xh.push_back(floatToHalf(v));
        xr.push_back(halfToFloat(xh.back()));
    }
    for (float v : rois)
    {
        roish.push_back(floatToHalf(v));
        roisr.push_back(halfToFloat(roish.back()));
    }
    std::vector<uint16_t> yh(static_cast<size_t>(p.outputCount()));
    runRoiAlignHost(p, DataType::kHALF, xh.data(), roish.data(), batch.data(), yh.data());
    std::vector<float> y;
    for (uint16_t v : yh)
    {
        y.push_back(halfToFloat(v));
    }
    std::vector<int32_t> const firstOnly{0, 0};
    std::vector<float> expected = roiAlignReference(p, xr, roisr, firstOnly);
    std::fill(expected.begin() + 8, expected.end(), 0.0F);
    expectClose(y, expected, 2e-3);
}

// ---- ModulatedDeformConv2d: direct loops ----

double sampleZero(std::vector<float> const& x, int64_t plane, int64_t h, int64_t w, double y, double xx)
{
    if (y <= -1 || y >= h || xx <= -1 || xx >= w)
    {
        return 0.0;
    }
    auto const y0 = static_cast<int64_t>(std::floor(y));
    auto const x0 = static_cast<int64_t>(std::floor(xx));
    double value = 0.0;
    for (int64_t dy = 0; dy < 2; ++dy)
    {
        for (int64_t dx = 0; dx < 2; ++dx)
        {
            int64_t const r = y0 + dy;
            int64_t const c = x0 + dx;
            double const weight = (dy == 0 ? 1 - (y - y0) : y - y0) * (dx == 0 ? 1 - (xx - x0) : xx - x0);
            if (r >= 0 && r < h && c >= 0 && c < w)
            {
                value += weight * x[plane + r * w + c];
            }
        }
    }
    return value;
}

//! The deformable convolution by its definition; with offsets all 0 and masks all 1 it is a plain convolution.
std::vector<float> deformReference(DeformConvParams const& p, std::vector<float> const& x,
    std::vector<float> const& offset, std::vector<float> const& mask, std::vector<float> const& weight,
    std::vector<float> const& bias)
{
    std::vector<float> y(static_cast<size_t>(p.outputCount()));
    int64_t const cg = p.channels / p.group;
    int64_t const og = p.outChannels / p.group;
    int64_t const taps = p.kernelH * p.kernelW;
    for (int64_t n = 0; n < p.batch; ++n)
    {
        for (int64_t o = 0; o < p.outChannels; ++o)
        {
            for (int64_t oy = 0; oy < p.outHeight; ++oy)
            {
                for (int64_t ox = 0; ox < p.outWidth; ++ox)
                {
                    double sum = bias.empty() ? 0.0 : bias[o];
                    for (int64_t l = 0; l < cg; ++l)
                    {
                        int64_t const c = o / og * cg + l;
                        int64_t const d = c / (p.channels / p.deformableGroup);
                        for (int64_t kh = 0; kh < p.kernelH; ++kh)
                        {
                            for (int64_t kw = 0; kw < p.kernelW; ++kw)
                            {
                                int64_t const k = kh * p.kernelW + kw;
                                auto at = [&](int64_t channel) {
                                    return ((n * p.deformableGroup * taps * 2 + channel) * p.outHeight + oy)
                                        * p.outWidth
                                        + ox;
                                };
                                double const dy = offset[at(d * taps * 2 + 2 * k)];
                                double const dx = offset[at(d * taps * 2 + 2 * k + 1)];
                                double const m = mask[((n * p.deformableGroup * taps + d * taps + k) * p.outHeight + oy)
                                        * p.outWidth
                                    + ox];
                                double const v = sampleZero(x, (n * p.channels + c) * p.height * p.width, p.height,
                                    p.width, oy * p.strideH - p.padH + kh * p.dilationH + dy,
                                    ox * p.strideW - p.padW + kw * p.dilationW + dx);
                                sum += weight[((o * cg + l) * p.kernelH + kh) * p.kernelW + kw] * m * v;
                            }
                        }
                    }
                    y[((n * p.outChannels + o) * p.outHeight + oy) * p.outWidth + ox] = static_cast<float>(sum);
                }
            }
        }
    }
    return y;
}

//! A plain grouped convolution (no offsets, no masks), written on its own.
std::vector<float> plainConvolution(DeformConvParams const& p, std::vector<float> const& x,
    std::vector<float> const& weight, std::vector<float> const& bias)
{
    std::vector<float> y(static_cast<size_t>(p.outputCount()));
    int64_t const cg = p.channels / p.group;
    for (int64_t n = 0; n < p.batch; ++n)
    {
        for (int64_t o = 0; o < p.outChannels; ++o)
        {
            for (int64_t oy = 0; oy < p.outHeight; ++oy)
            {
                for (int64_t ox = 0; ox < p.outWidth; ++ox)
                {
                    double sum = bias.empty() ? 0.0 : bias[o];
                    for (int64_t l = 0; l < cg; ++l)
                    {
                        int64_t const c = o / (p.outChannels / p.group) * cg + l;
                        for (int64_t kh = 0; kh < p.kernelH; ++kh)
                        {
                            for (int64_t kw = 0; kw < p.kernelW; ++kw)
                            {
                                int64_t const iy = oy * p.strideH - p.padH + kh * p.dilationH;
                                int64_t const ix = ox * p.strideW - p.padW + kw * p.dilationW;
                                if (iy >= 0 && iy < p.height && ix >= 0 && ix < p.width)
                                {
                                    sum += weight[((o * cg + l) * p.kernelH + kh) * p.kernelW + kw]
                                        * x[((n * p.channels + c) * p.height + iy) * p.width + ix];
                                }
                            }
                        }
                    }
                    y[((n * p.outChannels + o) * p.outHeight + oy) * p.outWidth + ox] = static_cast<float>(sum);
                }
            }
        }
    }
    return y;
}

DeformConvParams deformParams(int32_t stride, int32_t pad, int32_t dilation, int32_t group, int32_t offsetGroup)
{
    DeformConvParams p;
    p.strideH = stride;
    p.strideW = 1;
    p.padH = pad;
    p.padW = 1;
    p.dilationH = dilation;
    p.dilationW = 1;
    p.group = group;
    p.deformableGroup = offsetGroup;
    p.batch = 2;
    p.channels = 4;
    p.height = 6;
    p.width = 7;
    p.outChannels = 2 * group;
    p.kernelH = 3;
    p.kernelW = 2;
    p.outHeight = (p.height + 2 * p.padH - ((p.kernelH - 1) * p.dilationH + 1)) / p.strideH + 1;
    p.outWidth = (p.width + 2 * p.padW - ((p.kernelW - 1) * p.dilationW + 1)) / p.strideW + 1;
    return p;
}

struct DeformData
{
    std::vector<float> x, offset, mask, weight, bias;
};

DeformData deformData(DeformConvParams const& p, std::mt19937_64& rng, bool plain)
{
    int64_t const taps = p.kernelH * p.kernelW;
    int64_t const outPlane = p.outHeight * p.outWidth;
    DeformData d;
    d.x = randomValues(rng, static_cast<size_t>(p.batch * p.channels * p.height * p.width), -1.0F, 1.0F);
    d.offset = plain
        ? std::vector<float>(static_cast<size_t>(p.batch * p.deformableGroup * taps * 2 * outPlane), 0.0F)
        : randomValues(rng, static_cast<size_t>(p.batch * p.deformableGroup * taps * 2 * outPlane), -2.5F, 2.5F);
    d.mask = plain ? std::vector<float>(static_cast<size_t>(p.batch * p.deformableGroup * taps * outPlane), 1.0F)
                   : randomValues(rng, static_cast<size_t>(p.batch * p.deformableGroup * taps * outPlane), 0.0F, 1.0F);
    d.weight = randomValues(rng, static_cast<size_t>(p.outChannels * (p.channels / p.group) * taps), -1.0F, 1.0F);
    if (p.hasBias)
    {
        d.bias = randomValues(rng, static_cast<size_t>(p.outChannels), -1.0F, 1.0F);
    }
    return d;
}

TEST(DeformConvHost, ZeroOffsetsAndUnitMasksAreAPlainConvolution)
{
    std::mt19937_64 rng(11);
    for (auto [stride, pad, dilation, group] : {std::array{1, 0, 1, 1}, std::array{2, 1, 1, 2}, std::array{1, 2, 2, 4}})
    {
        DeformConvParams p = deformParams(stride, pad, dilation, group, 1);
        p.hasBias = group != 1;
        DeformData const d = deformData(p, rng, true);
        std::vector<float> y(static_cast<size_t>(p.outputCount()));
        runDeformConvHost(p, DataType::kFLOAT, d.x.data(), d.offset.data(), d.mask.data(), d.weight.data(),
            p.hasBias ? d.bias.data() : nullptr, y.data());
        expectClose(y, plainConvolution(p, d.x, d.weight, d.bias), 1e-5);
    }
}

TEST(DeformConvHost, RandomOffsetsAndMasksMatchTheDirectLoop)
{
    std::mt19937_64 rng(12);
    for (auto [stride, pad, dilation, group, offsetGroup] :
        {std::array{1, 0, 1, 1, 1}, std::array{2, 1, 1, 2, 2}, std::array{1, 1, 2, 1, 4}, std::array{1, 2, 1, 4, 2}})
    {
        DeformConvParams p = deformParams(stride, pad, dilation, group, offsetGroup);
        p.hasBias = offsetGroup != 1;
        DeformData const d = deformData(p, rng, false);
        std::vector<float> y(static_cast<size_t>(p.outputCount()));
        runDeformConvHost(p, DataType::kFLOAT, d.x.data(), d.offset.data(), d.mask.data(), d.weight.data(),
            p.hasBias ? d.bias.data() : nullptr, y.data());
        expectClose(y, deformReference(p, d.x, d.offset, d.mask, d.weight, d.bias), 1e-5);
    }
}

// ---- Registration and creators ----

nvinfer1::IPluginCreatorV3One* creator(char const* name, char const* ns)
{
    return static_cast<nvinfer1::IPluginCreatorV3One*>(getPluginRegistry()->getCreator(name, "2", ns));
}

TEST(StandardPlugins, InitRegistersTheCreatorsUnderTheNamespaceAndTwiceIsHarmless)
{
    EXPECT_TRUE(initLibNvInferPlugins(&logger(), "kiln_test_ns"));
    for (char const* name : {"ROIAlign_TRT", "ModulatedDeformConv2d"})
    {
        nvinfer1::IPluginCreatorV3One* found = creator(name, "kiln_test_ns");
        ASSERT_NE(found, nullptr) << name;
        EXPECT_STREQ(found->getInterfaceInfo().kind, "PLUGIN CREATOR_V3ONE");
        EXPECT_STREQ(found->getPluginNamespace(), "kiln_test_ns");
        EXPECT_STREQ(found->getPluginVersion(), "2");
    }
    int32_t before = 0;
    getPluginRegistry()->getAllCreators(&before);
    logger().mMessages.clear();
    EXPECT_TRUE(initLibNvInferPlugins(&logger(), "kiln_test_ns"));
    int32_t after = 0;
    getPluginRegistry()->getAllCreators(&after);
    EXPECT_EQ(before, after);
    EXPECT_EQ(logger().mMessages, "") << "a second call must be quiet";
    EXPECT_TRUE(initLibNvInferPlugins(nullptr, ""));
    EXPECT_NE(creator("ROIAlign_TRT", ""), nullptr);
}

TEST(StandardPlugins, CreatorsDeclareTensorRTsFieldsAndRefuseBadOnes)
{
    ASSERT_TRUE(initLibNvInferPlugins(&logger(), ""));
    nvinfer1::IPluginCreatorV3One* roi = creator("ROIAlign_TRT", "");
    ASSERT_NE(roi, nullptr);
    PluginFieldCollection const* declared = roi->getFieldNames();
    ASSERT_EQ(declared->nbFields, 6);
    EXPECT_STREQ(declared->fields[0].name, "coordinate_transformation_mode");
    EXPECT_EQ(declared->fields[5].type, PluginFieldType::kFLOAT32);
    int32_t const badMode = 2;
    PluginField const modeField{"mode", &badMode, PluginFieldType::kINT32, 1};
    PluginFieldCollection const bad{1, &modeField};
    logger().mMessages.clear();
    EXPECT_EQ(roi->createPlugin("r", &bad, nvinfer1::TensorRTPhase::kBUILD), nullptr);
    EXPECT_NE(
        logger().mMessages.find("ROIAlign_TRT plugin: mode is 2; it must be 1 (avg) or 0 (max)"), std::string::npos)
        << logger().mMessages;
    float const scale = 2.0F;
    PluginField const wrongType{"output_height", &scale, PluginFieldType::kFLOAT32, 1};
    PluginFieldCollection const wrong{1, &wrongType};
    logger().mMessages.clear();
    EXPECT_EQ(roi->createPlugin("r", &wrong, nvinfer1::TensorRTPhase::kBUILD), nullptr);
    EXPECT_NE(logger().mMessages.find("field output_height must be kINT32"), std::string::npos) << logger().mMessages;
    int32_t const tooFine = kMaxSamplingGrid + 1;
    PluginField const samplingField{"sampling_ratio", &tooFine, PluginFieldType::kINT32, 1};
    PluginFieldCollection const fine{1, &samplingField};
    logger().mMessages.clear();
    EXPECT_EQ(roi->createPlugin("r", &fine, nvinfer1::TensorRTPhase::kRUNTIME), nullptr);
    EXPECT_NE(logger().mMessages.find("sampling_ratio is 513; it must be 0 (adaptive) to 512"), std::string::npos)
        << logger().mMessages;

    nvinfer1::IPluginCreatorV3One* deform = creator("ModulatedDeformConv2d", "");
    ASSERT_NE(deform, nullptr);
    EXPECT_EQ(deform->getFieldNames()->nbFields, 5);
    int32_t const zeroGroup = 0;
    PluginField const groupField{"group", &zeroGroup, PluginFieldType::kINT32, 1};
    PluginFieldCollection const badGroup{1, &groupField};
    logger().mMessages.clear();
    EXPECT_EQ(deform->createPlugin("d", &badGroup, nvinfer1::TensorRTPhase::kBUILD), nullptr);
    EXPECT_NE(logger().mMessages.find("ModulatedDeformConv2d plugin: group and deformable_group must be positive"),
        std::string::npos)
        << logger().mMessages;
}

//! A plugin tensor description of dims (float, linear).
nvinfer1::PluginTensorDesc describe(nvinfer1::Dims const& dims, DataType type = DataType::kFLOAT)
{
    nvinfer1::PluginTensorDesc desc{};
    desc.dims = dims;
    desc.type = type;
    desc.format = nvinfer1::TensorFormat::kLINEAR;
    return desc;
}

TEST(StandardPlugins, RunsWhoseShapesDisagreeWithTheFieldsAreRefused)
{
    // What a corrupted plan gives a plugin (found by fuzzing plans, issue 21): an output shorter than its fields
    // imply. The run is refused with a message, and the output is left alone.
    ASSERT_TRUE(initLibNvInferPlugins(&logger(), ""));
    int32_t const height = 2;
    int32_t const width = 3;
    PluginField const roiFields[] = {
        {"output_height", &height, PluginFieldType::kINT32, 1}, {"output_width", &width, PluginFieldType::kINT32, 1}};
    PluginFieldCollection const roiCollection{2, roiFields};
    std::unique_ptr<nvinfer1::IPluginV3> roi{
        creator("ROIAlign_TRT", "")->createPlugin("roi", &roiCollection, nvinfer1::TensorRTPhase::kRUNTIME)};
    ASSERT_NE(roi, nullptr);
    auto* roiHost = static_cast<kiln::IPluginV3OneHost*>(roi->getCapabilityInterface(kiln::kPLUGIN_CAPABILITY_HOST));
    ASSERT_NE(roiHost, nullptr);
    std::vector<float> x(1 * 2 * 4 * 4, 1.F);
    std::vector<float> boxes{0.F, 0.F, 3.F, 3.F};
    std::vector<int32_t> batch{0};
    std::vector<float> y(1 * 2 * 2 * 2, -7.F); // [1, 2, 2, 2]: one row short of [1, 2, 2, 3].
    nvinfer1::PluginTensorDesc const roiInputs[] = {describe(nvinfer1::Dims{4, {1, 2, 4, 4}}),
        describe(nvinfer1::Dims{2, {1, 4}}), describe(nvinfer1::Dims{1, {1}}, DataType::kINT32)};
    nvinfer1::PluginTensorDesc const shortOutput = describe(nvinfer1::Dims{4, {1, 2, 2, 2}});
    void const* roiData[] = {x.data(), boxes.data(), batch.data()};
    void* roiOut[] = {y.data()};
    logger().mMessages.clear();
    EXPECT_NE(roiHost->enqueueHost(roiInputs, &shortOutput, roiData, roiOut, nullptr), 0);
    EXPECT_NE(logger().mMessages.find("ROIAlign_TRT plugin: the tensors of this run do not have the shapes"),
        std::string::npos)
        << logger().mMessages;
    EXPECT_EQ(y, std::vector<float>(y.size(), -7.F)) << "nothing written";

    // A deformable convolution whose output is larger than its offsets and masks.
    PluginFieldCollection const none{0, nullptr};
    std::unique_ptr<nvinfer1::IPluginV3> deform{
        creator("ModulatedDeformConv2d", "")->createPlugin("deform", &none, nvinfer1::TensorRTPhase::kRUNTIME)};
    ASSERT_NE(deform, nullptr);
    auto* deformHost
        = static_cast<kiln::IPluginV3OneHost*>(deform->getCapabilityInterface(kiln::kPLUGIN_CAPABILITY_HOST));
    ASSERT_NE(deformHost, nullptr);
    std::vector<float> input(1 * 1 * 3 * 3, 1.F);
    std::vector<float> offsets(1 * 2 * 1 * 1, 0.F);
    std::vector<float> masks(1 * 1 * 1 * 1, 1.F);
    std::vector<float> kernel(1, 1.F);
    std::vector<float> out(1 * 1 * 3 * 3, -7.F);
    // X [1, 1, 3, 3] and a 1x1 kernel give Y [1, 1, 3, 3]; offsets and masks of one position only.
    nvinfer1::PluginTensorDesc const deformInputs[]
        = {describe(nvinfer1::Dims{4, {1, 1, 3, 3}}), describe(nvinfer1::Dims{4, {1, 2, 1, 1}}),
            describe(nvinfer1::Dims{4, {1, 1, 1, 1}}), describe(nvinfer1::Dims{4, {1, 1, 1, 1}})};
    nvinfer1::PluginTensorDesc const deformOutput = describe(nvinfer1::Dims{4, {1, 1, 3, 3}});
    void const* deformData[] = {input.data(), offsets.data(), masks.data(), kernel.data()};
    void* deformOut[] = {out.data()};
    logger().mMessages.clear();
    EXPECT_NE(deformHost->enqueueHost(deformInputs, &deformOutput, deformData, deformOut, nullptr), 0);
    EXPECT_NE(logger().mMessages.find("ModulatedDeformConv2d plugin: the tensors of this run do not have the shapes"),
        std::string::npos)
        << logger().mMessages;
    EXPECT_EQ(out, std::vector<float>(out.size(), -7.F)) << "nothing written";
}

// ---- Engines with the plugins: build, serialize, deserialize, run on the host backend ----

struct EngineRun
{
    std::vector<float> output;
    std::string failure;
};

//! Builds network (already filled), serializes, deserializes, runs with the bound inputs; returns output "Y".
EngineRun buildAndRun(nvinfer1::IBuilder& builder, nvinfer1::INetworkDefinition& network,
    std::vector<std::pair<char const*, void*>> const& inputs, size_t outputCount)
{
    EngineRun run;
    std::unique_ptr<nvinfer1::IBuilderConfig> config{builder.createBuilderConfig()};
    std::unique_ptr<nvinfer1::IHostMemory> plan{builder.buildSerializedNetwork(network, *config)};
    if (plan == nullptr)
    {
        run.failure = "build failed: " + logger().mMessages;
        return run;
    }
    std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(logger())};
    std::unique_ptr<nvinfer1::ICudaEngine> engine{runtime->deserializeCudaEngine(plan->data(), plan->size())};
    if (engine == nullptr)
    {
        run.failure = "deserialize failed: " + logger().mMessages;
        return run;
    }
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    for (auto const& [name, data] : inputs)
    {
        context->setTensorAddress(name, data);
    }
    run.output.assign(outputCount, -9.0F);
    context->setTensorAddress("Y", run.output.data());
    if (!context->enqueueV3(nullptr))
    {
        run.failure = "enqueue failed: " + logger().mMessages;
    }
    return run;
}

TEST(StandardPluginEngines, RoiAlignSerializesDeserializesAndRuns)
{
    ASSERT_TRUE(initLibNvInferPlugins(&logger(), ""));
    std::mt19937_64 rng(3);
    RoiAlignParams p;
    p.batch = 2;
    p.channels = 3;
    p.height = 6;
    p.width = 5;
    p.rois = 3;
    p.outputHeight = 2;
    p.outputWidth = 3;
    p.samplingRatio = 0;
    p.maxMode = true;
    p.spatialScale = 0.5F;
    std::vector<float> x = randomValues(rng, 180, -1.0F, 1.0F);
    std::vector<float> rois{0.0F, 0.0F, 8.0F, 10.0F, -2.0F, 3.0F, 6.0F, 14.0F, 1.0F, 1.0F, 3.0F, 2.0F};
    std::vector<int32_t> batch{1, 0, 1};
    std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger())};
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    nvinfer1::ITensor* inputs[] = {network->addInput("X", DataType::kFLOAT, nvinfer1::Dims{4, {2, 3, 6, 5}}),
        network->addInput("rois", DataType::kFLOAT, nvinfer1::Dims{2, {3, 4}}),
        network->addInput("batch", DataType::kINT32, nvinfer1::Dims{1, {3}})};
    int32_t const mode = 0;
    int32_t const height = 2;
    int32_t const width = 3;
    float const scale = 0.5F;
    PluginField const fields[] = {{"mode", &mode, PluginFieldType::kINT32, 1},
        {"output_height", &height, PluginFieldType::kINT32, 1}, {"output_width", &width, PluginFieldType::kINT32, 1},
        {"spatial_scale", &scale, PluginFieldType::kFLOAT32, 1}};
    PluginFieldCollection const fc{4, fields};
    std::unique_ptr<nvinfer1::IPluginV3> plugin{
        creator("ROIAlign_TRT", "")->createPlugin("roi", &fc, nvinfer1::TensorRTPhase::kBUILD)};
    ASSERT_NE(plugin, nullptr);
    nvinfer1::IPluginV3Layer* layer = network->addPluginV3(inputs, 3, nullptr, 0, *plugin);
    ASSERT_NE(layer, nullptr);
    layer->getOutput(0)->setName("Y");
    network->markOutput(*layer->getOutput(0));
    EngineRun const run = buildAndRun(*builder, *network,
        {{"X", x.data()}, {"rois", rois.data()}, {"batch", batch.data()}}, static_cast<size_t>(p.outputCount()));
    ASSERT_EQ(run.failure, "");
    expectClose(run.output, roiAlignReference(p, x, rois, batch), 1e-5);
}

TEST(StandardPluginEngines, DeformConvSerializesDeserializesAndRuns)
{
    ASSERT_TRUE(initLibNvInferPlugins(&logger(), ""));
    std::mt19937_64 rng(4);
    DeformConvParams p = deformParams(2, 1, 1, 2, 2);
    p.hasBias = true;
    DeformData d = deformData(p, rng, false);
    std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger())};
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    int64_t const taps = p.kernelH * p.kernelW;
    nvinfer1::ITensor* inputs[]
        = {network->addInput("X", DataType::kFLOAT, nvinfer1::Dims{4, {p.batch, p.channels, p.height, p.width}}),
            network->addInput("offset", DataType::kFLOAT,
                nvinfer1::Dims{4, {p.batch, 2 * p.deformableGroup * taps, p.outHeight, p.outWidth}}),
            network->addInput("mask", DataType::kFLOAT,
                nvinfer1::Dims{4, {p.batch, p.deformableGroup * taps, p.outHeight, p.outWidth}}),
            network->addInput(
                "W", DataType::kFLOAT, nvinfer1::Dims{4, {p.outChannels, p.channels / p.group, p.kernelH, p.kernelW}}),
            network->addInput("B", DataType::kFLOAT, nvinfer1::Dims{1, {p.outChannels}})};
    int32_t const stride[] = {p.strideH, p.strideW};
    int32_t const padding[] = {p.padH, p.padW};
    int32_t const dilation[] = {p.dilationH, p.dilationW};
    PluginField const fields[]
        = {{"stride", stride, PluginFieldType::kINT32, 2}, {"padding", padding, PluginFieldType::kINT32, 2},
            {"dilation", dilation, PluginFieldType::kINT32, 2}, {"group", &p.group, PluginFieldType::kINT32, 1},
            {"deformable_group", &p.deformableGroup, PluginFieldType::kINT32, 1}};
    PluginFieldCollection const fc{5, fields};
    std::unique_ptr<nvinfer1::IPluginV3> plugin{
        creator("ModulatedDeformConv2d", "")->createPlugin("deform", &fc, nvinfer1::TensorRTPhase::kBUILD)};
    ASSERT_NE(plugin, nullptr);
    nvinfer1::IPluginV3Layer* layer = network->addPluginV3(inputs, 5, nullptr, 0, *plugin);
    ASSERT_NE(layer, nullptr);
    layer->getOutput(0)->setName("Y");
    network->markOutput(*layer->getOutput(0));
    EngineRun const run = buildAndRun(*builder, *network,
        {{"X", d.x.data()}, {"offset", d.offset.data()}, {"mask", d.mask.data()}, {"W", d.weight.data()},
            {"B", d.bias.data()}},
        static_cast<size_t>(p.outputCount()));
    ASSERT_EQ(run.failure, "");
    expectClose(run.output, deformReference(p, d.x, d.offset, d.mask, d.weight, d.bias), 1e-5);
}

} // namespace
} // namespace kiln::plugins
