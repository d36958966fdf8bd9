// SPDX-License-Identifier: Apache-2.0
// The host deconvolution against a scatter written out here (each input element adds the kernel, times its value, to
// the full untrimmed result, which the padding then trims), on random 2-D and 3-D shapes, groups, strides, dilations,
// asymmetric and SAME padding, in FP32, FP16 and BF16; the kernel and bias as Weights or as tensors; hand-computed
// cases; and every refusal with its message.
#include "backends/host/deconvolution.h"

#include "host_test_util.h"

#include <algorithm>
#include <numeric>

namespace kiln::host::test
{
namespace
{

using nvinfer1::PaddingMode;

//! One deconvolution to run: the shapes and the window, and how the operands are given.
struct Case
{
    DataType type{DataType::kFLOAT};
    int64_t batch{1};
    int64_t channels{1};
    int64_t maps{1};
    int64_t groups{1};
    std::vector<int64_t> in, kernel, stride, dilation, pre, post;
    PaddingMode mode{PaddingMode::kEXPLICIT_ROUND_DOWN};
    bool bias{false};
    bool kernelAsTensor{false};
    bool biasAsTensor{false};
};

Dims toDims(std::vector<int64_t> const& v)
{
    Dims d{static_cast<int32_t>(v.size()), {}};
    std::copy(v.begin(), v.end(), d.d);
    return d;
}

int64_t volumeOf(std::vector<int64_t> const& e)
{
    return std::accumulate(e.begin(), e.end(), int64_t{1}, std::multiplies<>());
}

std::vector<int64_t> coords(int64_t index, std::vector<int64_t> const& extents)
{
    std::vector<int64_t> at(extents.size());
    for (std::size_t i = extents.size(); i-- > 0;)
    {
        at[i] = index % extents[i];
        index /= extents[i];
    }
    return at;
}

//! The padding the test expects per axis, from TensorRT's formulas: explicit as given; SAME trims max(DK - S, 0),
//! half (rounded down) at the start for kSAME_UPPER, at the end for kSAME_LOWER.
void padding(Case const& c, std::size_t a, int64_t& pre, int64_t& post)
{
    if (c.mode != PaddingMode::kSAME_UPPER && c.mode != PaddingMode::kSAME_LOWER)
    {
        pre = c.pre[a];
        post = c.post[a];
        return;
    }
    int64_t const span = 1 + c.dilation[a] * (c.kernel[a] - 1);
    int64_t const total = std::max<int64_t>(span - c.stride[a], 0);
    int64_t const smaller = total / 2;
    pre = c.mode == PaddingMode::kSAME_UPPER ? smaller : total - smaller;
    post = total - pre;
}

//! The output extents: the full result (in - 1) * stride + span less the padding.
std::vector<int64_t> outputExtents(Case const& c)
{
    std::vector<int64_t> out;
    for (std::size_t a = 0; a < c.in.size(); ++a)
    {
        int64_t pre = 0;
        int64_t post = 0;
        padding(c, a, pre, post);
        out.push_back((c.in[a] - 1) * c.stride[a] + 1 + c.dilation[a] * (c.kernel[a] - 1) - pre - post);
    }
    return out;
}

//! The scatter: every input element x[n][c][i] adds x * w[c][k'][t] to full[n][g * K/G + k'][i * stride + t *
//! dilation] for each map k' of its group g and tap t; the output is full trimmed by the padding, plus the bias.
std::vector<double> scatter(Case const& c, std::vector<double> const& x, std::vector<double> const& w,
    std::vector<double> const& b, std::vector<int64_t> const& out, std::vector<double>& magnitude)
{
    std::size_t const n = c.in.size();
    std::vector<int64_t> full(n);
    std::vector<int64_t> pre(n);
    for (std::size_t a = 0; a < n; ++a)
    {
        full[a] = (c.in[a] - 1) * c.stride[a] + 1 + c.dilation[a] * (c.kernel[a] - 1);
        int64_t post = 0;
        padding(c, a, pre[a], post);
    }
    int64_t const fullVolume = volumeOf(full);
    int64_t const inVolume = volumeOf(c.in);
    int64_t const taps = volumeOf(c.kernel);
    int64_t const mapsPerGroup = c.maps / c.groups;
    int64_t const channelsPerGroup = c.channels / c.groups;
    std::vector<double> sums(static_cast<std::size_t>(c.batch * c.maps * fullVolume), 0.0);
    std::vector<double> sizes(sums.size(), 0.0);
    for (int64_t batch = 0; batch < c.batch; ++batch)
    {
        for (int64_t channel = 0; channel < c.channels; ++channel)
        {
            int64_t const group = channel / channelsPerGroup;
            for (int64_t i = 0; i < inVolume; ++i)
            {
                std::vector<int64_t> const at = coords(i, c.in);
                double const value = x[static_cast<std::size_t>((batch * c.channels + channel) * inVolume + i)];
                for (int64_t t = 0; t < taps; ++t)
                {
                    std::vector<int64_t> const tap = coords(t, c.kernel);
                    int64_t position = 0;
                    for (std::size_t a = 0; a < n; ++a)
                    {
                        position = position * full[a] + at[a] * c.stride[a] + tap[a] * c.dilation[a];
                    }
                    for (int64_t m = 0; m < mapsPerGroup; ++m)
                    {
                        double const term
                            = value * w[static_cast<std::size_t>((channel * mapsPerGroup + m) * taps + t)];
                        auto const target = static_cast<std::size_t>(
                            (batch * c.maps + group * mapsPerGroup + m) * fullVolume + position);
                        sums[target] += term;
                        sizes[target] += std::fabs(term);
                    }
                }
            }
        }
    }
    int64_t const outVolume = volumeOf(out);
    std::vector<double> result(static_cast<std::size_t>(c.batch * c.maps * outVolume));
    magnitude.assign(result.size(), 0.0);
    for (int64_t plane = 0; plane < c.batch * c.maps; ++plane)
    {
        double const bias = c.bias ? b[static_cast<std::size_t>(plane % c.maps)] : 0.0;
        for (int64_t o = 0; o < outVolume; ++o)
        {
            std::vector<int64_t> const at = coords(o, out);
            int64_t position = 0;
            for (std::size_t a = 0; a < n; ++a)
            {
                position = position * full[a] + at[a] + pre[a];
            }
            auto const source = static_cast<std::size_t>(plane * fullVolume + position);
            result[static_cast<std::size_t>(plane * outVolume + o)] = sums[source] + bias;
            magnitude[static_cast<std::size_t>(plane * outVolume + o)] = sizes[source] + std::fabs(bias);
        }
    }
    return result;
}

//! Runs c with random values and compares with the scatter: one ulp of the output type after rounding, plus
//! double-rounding slack far below that.
void runCase(std::mt19937& rng, Case const& c)
{
    SCOPED_TRACE(::testing::Message() << dataTypeName(c.type) << " " << c.in.size() << "-D groups " << c.groups << " C "
                                      << c.channels << " K " << c.maps << " mode " << static_cast<int32_t>(c.mode));
    std::vector<int64_t> inShape{c.batch, c.channels};
    inShape.insert(inShape.end(), c.in.begin(), c.in.end());
    HostBuffer input(c.type, toDims(inShape));
    fillFloating(rng, input, -2.0, 2.0, false);

    DeconvolutionParams params;
    params.nbOutputMaps = c.maps;
    params.nbGroups = c.groups;
    params.kernelSize = toDims(c.kernel);
    params.stride = toDims(c.stride);
    params.dilation = toDims(c.dilation);
    params.prePadding = toDims(c.pre);
    params.postPadding = toDims(c.post);
    params.paddingMode = c.mode;

    int64_t const kCount = c.channels * (c.maps / c.groups) * volumeOf(c.kernel);
    std::vector<int64_t> kShape{c.channels, c.maps / c.groups};
    kShape.insert(kShape.end(), c.kernel.begin(), c.kernel.end());
    DeconvolutionOperands operands;
    HostBuffer kernelTensor(c.type, toDims(kShape));
    std::vector<float> kernelFloats(static_cast<std::size_t>(kCount));
    std::vector<double> w(static_cast<std::size_t>(kCount));
    if (c.kernelAsTensor)
    {
        fillFloating(rng, kernelTensor, -1.0, 1.0, false);
        operands.kernel = &kernelTensor.tensor();
    }
    for (int64_t i = 0; i < kCount; ++i)
    {
        auto const s = static_cast<std::size_t>(i);
        if (c.kernelAsTensor)
        {
            w[s] = decode(c.type, bytesOf(kernelTensor), i, 1.0F);
        }
        else
        {
            kernelFloats[s] = std::uniform_real_distribution<float>(-1.0F, 1.0F)(rng);
            w[s] = kernelFloats[s];
        }
    }
    if (!c.kernelAsTensor)
    {
        params.kernel = Weights{DataType::kFLOAT, kernelFloats.data(), kCount};
    }
    HostBuffer biasTensor(DataType::kFLOAT, Dims{1, {c.maps}});
    std::vector<float> biasFloats(static_cast<std::size_t>(c.maps));
    std::vector<double> b(biasFloats.size());
    for (std::size_t k = 0; k < biasFloats.size(); ++k)
    {
        biasFloats[k] = std::uniform_real_distribution<float>(-1.0F, 1.0F)(rng);
        b[k] = biasFloats[k];
        encode(
            DataType::kFLOAT, static_cast<std::byte*>(biasTensor.tensor().data), static_cast<int64_t>(k), b[k], 1.0F);
    }
    if (c.bias && c.biasAsTensor)
    {
        operands.bias = &biasTensor.tensor();
    }
    else if (c.bias)
    {
        params.bias = Weights{DataType::kFLOAT, biasFloats.data(), c.maps};
    }

    std::vector<int64_t> const out = outputExtents(c);
    std::vector<int64_t> outShape{c.batch, c.maps};
    outShape.insert(outShape.end(), out.begin(), out.end());
    Expected<TensorDesc> const desc = inferDeconvolution(params, {c.type, input.tensor().dims}, operands);
    ASSERT_TRUE(desc.ok()) << desc.error().message;
    ASSERT_TRUE(sameShape(desc.value().dims, toDims(outShape))) << shapeString(desc.value().dims);
    EXPECT_EQ(desc.value().type, c.type);

    std::vector<double> x(static_cast<std::size_t>(elementCount(input.tensor())));
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        x[i] = decode(c.type, bytesOf(input), static_cast<int64_t>(i), 1.0F);
    }
    std::vector<double> magnitude;
    std::vector<double> const expected = scatter(c, x, w, b, out, magnitude);
    HostBuffer output(c.type, toDims(outShape));
    Status const done = runDeconvolution(params, input.tensor(), output.tensor(), operands);
    ASSERT_TRUE(done.ok()) << done.error().message;
    for (std::size_t i = 0; i < expected.size(); ++i)
    {
        double const rounded = roundTo(c.type, expected[i], 1.0F);
        double const actual = decode(c.type, bytesOf(output), static_cast<int64_t>(i), 1.0F);
        double const tolerance = ulp(c.type, rounded, 1.0F) + 1e-12 * magnitude[i];
        ASSERT_LE(std::fabs(actual - rounded), tolerance) << "element " << i << " expected " << expected[i];
    }
}

int64_t pick(std::mt19937& rng, int64_t low, int64_t high)
{
    return std::uniform_int_distribution<int64_t>(low, high)(rng);
}

Case randomCase(std::mt19937& rng, DataType type)
{
    Case c;
    c.type = type;
    int32_t const nbSpatial = rng() % 3 == 0 ? 3 : 2;
    c.groups = pick(rng, 1, 3);
    c.channels = c.groups * pick(rng, 1, 2);
    c.maps = c.groups * pick(rng, 1, 2);
    c.batch = pick(rng, 1, 2);
    static constexpr PaddingMode kModes[] = {PaddingMode::kEXPLICIT_ROUND_DOWN, PaddingMode::kEXPLICIT_ROUND_UP,
        PaddingMode::kSAME_UPPER, PaddingMode::kSAME_LOWER};
    c.mode = kModes[rng() % 4];
    for (int32_t a = 0; a < nbSpatial; ++a)
    {
        c.kernel.push_back(pick(rng, 1, 3));
        c.stride.push_back(pick(rng, 1, 3));
        c.dilation.push_back(pick(rng, 1, 2));
        c.in.push_back(pick(rng, 1, nbSpatial == 3 ? 3 : 5));
        // Padding that leaves at least one output element.
        int64_t const full = (c.in.back() - 1) * c.stride.back() + 1 + c.dilation.back() * (c.kernel.back() - 1);
        c.pre.push_back(pick(rng, 0, std::min<int64_t>(3, full - 1)));
        c.post.push_back(pick(rng, 0, std::min<int64_t>(3, full - 1 - c.pre.back())));
    }
    c.bias = rng() % 2 == 0;
    c.kernelAsTensor = rng() % 3 == 0;
    c.biasAsTensor = rng() % 2 == 0;
    return c;
}

TEST(HostDeconvolution, RandomAgainstScatter)
{
    std::mt19937 rng(20261122);
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        for (int32_t trial = 0; trial < 60; ++trial)
        {
            runCase(rng, randomCase(rng, type));
        }
    }
}

Case square(int64_t channels, int64_t maps, int64_t groups, int64_t kernel, int64_t in, int64_t stride)
{
    Case c;
    c.channels = channels;
    c.maps = maps;
    c.groups = groups;
    c.in = {in, in};
    c.kernel = {kernel, kernel};
    c.stride = {stride, stride};
    c.dilation = {1, 1};
    c.pre = {0, 0};
    c.post = {0, 0};
    return c;
}

TEST(HostDeconvolution, SpecialCases)
{
    std::mt19937 rng(11);
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF})
    {
        Case depthwise = square(4, 4, 4, 3, 4, 2); // groups == channels == maps
        depthwise.type = type;
        depthwise.bias = true;
        runCase(rng, depthwise);
        Case fanOut = square(2, 6, 2, 2, 3, 2); // 3 maps per group
        fanOut.type = type;
        runCase(rng, fanOut);
        Case dilated = square(2, 3, 1, 3, 4, 1);
        dilated.type = type;
        dilated.dilation = {2, 3};
        runCase(rng, dilated);
        Case asymmetric = square(1, 2, 1, 3, 3, 3); // more trimmed at the end than at the start, and the reverse
        asymmetric.type = type;
        asymmetric.pre = {0, 4};
        asymmetric.post = {5, 1};
        runCase(rng, asymmetric);
        Case strideBeyondKernel = square(2, 2, 1, 2, 3, 4); // gaps of zeros (plus the bias) between taps
        strideBeyondKernel.type = type;
        strideBeyondKernel.bias = true;
        runCase(rng, strideBeyondKernel);
        strideBeyondKernel.mode = PaddingMode::kSAME_UPPER; // DK < S: nothing trimmed, output (I - 1) * S + DK
        runCase(rng, strideBeyondKernel);
        Case same = square(1, 1, 1, 4, 3, 2);
        same.type = type;
        same.mode = PaddingMode::kSAME_LOWER;
        runCase(rng, same);
        Case empty = square(2, 2, 1, 3, 4, 1); // batch 0: an empty output
        empty.type = type;
        empty.batch = 0;
        runCase(rng, empty);
        Case noChannels = square(0, 2, 1, 3, 2, 1); // no input channels: the bias everywhere
        noChannels.type = type;
        noChannels.bias = true;
        noChannels.kernelAsTensor = true; // [0, 2, 3, 3]
        runCase(rng, noChannels);
        Case volume = square(2, 4, 2, 2, 3, 1); // 3-D
        volume.type = type;
        volume.in = {3, 2, 2};
        volume.kernel = {2, 1, 3};
        volume.stride = {1, 2, 3};
        volume.dilation = {1, 1, 2};
        volume.pre = {1, 0, 2};
        volume.post = {0, 1, 0};
        volume.kernelAsTensor = true;
        volume.bias = true;
        volume.biasAsTensor = true;
        runCase(rng, volume);
    }
}

TEST(HostDeconvolution, HandComputed)
{
    // x = [1, 2] (1 x 2), kernel [1, 10] (1 x 2), stride 2: full = [1, 10, 2, 20]; pre 1, post 0 gives [10, 2, 20],
    // plus bias 0.5. Kernel weights kHALF, bias kBF16.
    HostBuffer input(DataType::kFLOAT, Dims{4, {1, 1, 1, 2}});
    encode(DataType::kFLOAT, static_cast<std::byte*>(input.tensor().data), 0, 1.0, 1.0F);
    encode(DataType::kFLOAT, static_cast<std::byte*>(input.tensor().data), 1, 2.0, 1.0F);
    uint16_t const kernel[2] = {floatToHalf(1.0F), floatToHalf(10.0F)};
    uint16_t const bias = floatToBf16(0.5F);
    DeconvolutionParams params;
    params.nbOutputMaps = 1;
    params.kernelSize = Dims{2, {1, 2}};
    params.stride = Dims{2, {1, 2}};
    params.prePadding = Dims{2, {0, 1}};
    params.postPadding = Dims{2, {0, 0}};
    params.dilation = Dims{2, {1, 1}};
    params.kernel = Weights{DataType::kHALF, kernel, 2};
    params.bias = Weights{DataType::kBF16, &bias, 1};
    HostBuffer output(DataType::kFLOAT, Dims{4, {1, 1, 1, 3}});
    Status const done = runDeconvolution(params, input.tensor(), output.tensor());
    ASSERT_TRUE(done.ok()) << done.error().message;
    EXPECT_EQ(decode(DataType::kFLOAT, bytesOf(output), 0, 1.0F), 10.5);
    EXPECT_EQ(decode(DataType::kFLOAT, bytesOf(output), 1, 1.0F), 2.5);
    EXPECT_EQ(decode(DataType::kFLOAT, bytesOf(output), 2, 1.0F), 20.5);
}

TEST(HostDeconvolution, RankZeroWindowMembersMeanDefaults)
{
    // Stride, dilation and padding of rank 0: all 1, all 1, all 0 (as the convolution takes them).
    std::vector<float> kernel(2 * 3 * 2 * 2, 1.0F);
    DeconvolutionParams params;
    params.nbOutputMaps = 3;
    params.kernelSize = Dims{2, {2, 2}};
    params.kernel = Weights{DataType::kFLOAT, kernel.data(), 24};
    Expected<TensorDesc> const desc = inferDeconvolution(params, {DataType::kHALF, Dims{4, {1, 2, 4, 5}}});
    ASSERT_TRUE(desc.ok()) << desc.error().message;
    EXPECT_TRUE(sameShape(desc.value().dims, Dims{4, {1, 3, 5, 6}})) << shapeString(desc.value().dims);
}

TEST(HostDeconvolution, Refusals)
{
    std::vector<float> kernel(400, 0.5F);
    DeconvolutionParams params;
    params.nbOutputMaps = 8;
    params.nbGroups = 4;
    params.kernelSize = Dims{2, {3, 3}};
    params.kernel = Weights{DataType::kFLOAT, kernel.data(), 8 * 2 * 9};
    TensorDesc const input{DataType::kFLOAT, Dims{4, {1, 8, 5, 5}}};
    ASSERT_TRUE(inferDeconvolution(params, input).ok()) << inferDeconvolution(params, input).error().message;

    expectError(inferDeconvolution(params, {DataType::kFLOAT, Dims{4, {1, 6, 5, 5}}}),
        {"the input has 6 channels", "not divisible by 4 groups"});
    DeconvolutionParams wrongCount = params;
    wrongCount.kernel.count = 50;
    expectError(inferDeconvolution(wrongCount, input),
        {"hold 50 values", "8 input channels x 2 output maps per group (8 maps / 4 groups)", "need 144"});
    DeconvolutionParams tensorKernel = params;
    tensorKernel.kernel = Weights{DataType::kFLOAT, nullptr, 0};
    HostBuffer k(DataType::kFLOAT, Dims{4, {8, 2, 3, 3}});
    EXPECT_TRUE(inferDeconvolution(tensorKernel, input, {&k.tensor(), nullptr}).ok());
    HostBuffer kBadShape(DataType::kFLOAT, Dims{4, {8, 1, 3, 3}}); // KCRS, the convolution's layout
    expectError(inferDeconvolution(tensorKernel, input, {&kBadShape.tensor(), nullptr}),
        {"the kernel tensor [8, 1, 3, 3] must be [8, 2, 3, 3]"});
    HostBuffer kHalf(DataType::kHALF, Dims{4, {8, 2, 3, 3}});
    expectError(inferDeconvolution(tensorKernel, input, {&kHalf.tensor(), nullptr}),
        {"the kernel tensor is kHALF but the input is kFLOAT"});
    expectError(inferDeconvolution(tensorKernel, input), {"no kernel"});
    DeconvolutionParams oddMaps = params;
    oddMaps.nbOutputMaps = 6;
    expectError(inferDeconvolution(oddMaps, input), {"nbOutputMaps 6 is not divisible by 4 groups"});
    DeconvolutionParams noMaps = params;
    noMaps.nbOutputMaps = 0;
    expectError(inferDeconvolution(noMaps, input), {"nbOutputMaps 0 and nbGroups 4 must both be >= 1"});
    expectError(inferDeconvolution(params, {DataType::kFLOAT, Dims{3, {8, 5, 5}}}),
        {"has rank 3", "2-D deconvolution needs rank 4"});
    expectError(inferDeconvolution(params, {DataType::kINT8, input.dims}), {"does not accept kINT8"});
    DeconvolutionParams badStride = params;
    badStride.stride = Dims{2, {1, 0}};
    expectError(
        inferDeconvolution(badStride, input), {"deconvolution: stride [1, 0] needs every extent in [1, 2147483647]"});
    DeconvolutionParams badRank = params;
    badRank.dilation = Dims{3, {1, 1, 1}};
    expectError(inferDeconvolution(badRank, input), {"dilation [1, 1, 1] has 3 extents but the window has 2"});
    DeconvolutionParams badWindow = params;
    badWindow.kernelSize = Dims{1, {3}};
    expectError(inferDeconvolution(badWindow, input), {"the window [3] needs 2 or 3 spatial extents"});
    DeconvolutionParams trimmed = params;
    trimmed.prePadding = Dims{2, {4, 0}};
    trimmed.postPadding = Dims{2, {3, 0}};
    expectError(inferDeconvolution(trimmed, input),
        {"spatial axis 0: the output extent 0", "((5 - 1) * stride 1 + span 3 - padding 4 - 3)",
            "the padding trims the whole axis"});
    DeconvolutionParams badMode = params;
    badMode.paddingMode = static_cast<PaddingMode>(7);
    expectError(inferDeconvolution(badMode, input), {"padding mode 7 is not valid"});
    DeconvolutionParams badBias = params;
    badBias.bias = Weights{DataType::kFLOAT, kernel.data(), 7};
    expectError(inferDeconvolution(badBias, input), {"the bias weights hold 7 values but there are 8 output maps"});
    DeconvolutionParams intBias = params;
    intBias.bias = Weights{DataType::kINT32, kernel.data(), 8};
    expectError(inferDeconvolution(intBias, input), {"bias weights of type kINT32"});
    DeconvolutionParams int8Kernel = params;
    int8Kernel.kernel = Weights{DataType::kINT8, kernel.data(), 144};
    expectError(inferDeconvolution(int8Kernel, input), {"kernel weights of type kINT8 are not supported"});
    HostBuffer biasWrong(DataType::kFLOAT, Dims{2, {1, 8}});
    expectError(
        inferDeconvolution(params, input, {nullptr, &biasWrong.tensor()}), {"the bias tensor [1, 8] must be [8]"});

    HostBuffer in(DataType::kFLOAT, input.dims);
    HostBuffer wrongOut(DataType::kFLOAT, Dims{4, {1, 8, 5, 5}});
    expectError(runDeconvolution(params, in.tensor(), wrongOut.tensor()),
        {"the output is kFLOAT [1, 8, 5, 5] but must be kFLOAT [1, 8, 7, 7]"});
    HostBuffer out(DataType::kFLOAT, Dims{4, {1, 8, 7, 7}});
    DeconvolutionParams noData = params;
    noData.bias = Weights{DataType::kFLOAT, nullptr, 8};
    expectError(runDeconvolution(noData, in.tensor(), out.tensor()), {"the bias weights have 8 values but no data"});
    ASSERT_TRUE(runDeconvolution(params, in.tensor(), out.tensor()).ok());
}

} // namespace
} // namespace kiln::host::test
