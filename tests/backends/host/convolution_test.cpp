// SPDX-License-Identifier: Apache-2.0
// The host convolution against a textbook sum over the receptive field computed here, on random 2-D and 3-D shapes,
// groups, strides, dilations and padding (larger than the kernel too), in FP32, FP16, BF16 and INT8 with scales; the
// kernel as Weights or as a tensor; special cases; and every refusal with its message.
#include "backends/host/convolution.h"

#include "host_test_util.h"

#include <algorithm>
#include <numeric>

namespace kiln::host::test
{
namespace
{

//! One convolution to run: the shapes and the window, and how the operands are given.
struct Case
{
    DataType type{DataType::kFLOAT};
    int32_t nbSpatial{2};
    int64_t batch{1};
    int64_t channels{1};
    int64_t maps{1};
    int64_t groups{1};
    std::vector<int64_t> in, kernel, stride, dilation, pre, post;
    bool bias{false};
    bool kernelAsTensor{false};
    bool perMapScales{false};
};

Dims toDims(std::vector<int64_t> const& v)
{
    Dims d{static_cast<int32_t>(v.size()), {}};
    std::copy(v.begin(), v.end(), d.d);
    return d;
}

//! The receptive-field sum, written out: out[n][k][o...] = bias[k] + sum over c in k's group and every kernel tap of
//! in[n][c][o * stride - pre + tap * dilation] * w[k][c][tap], skipping taps that fall in the padding.
std::vector<double> textbook(Case const& c, std::vector<double> const& x, std::vector<double> const& w,
    std::vector<double> const& b, std::vector<int64_t> const& out, std::vector<double>& magnitude)
{
    auto const volume = [](std::vector<int64_t> const& e) {
        return std::accumulate(e.begin(), e.end(), int64_t{1}, std::multiplies<>());
    };
    int64_t const perGroup = c.channels / c.groups;
    int64_t const outVolume = volume(out);
    int64_t const kVolume = volume(c.kernel);
    std::vector<double> result(static_cast<std::size_t>(c.batch * c.maps * outVolume));
    magnitude.assign(result.size(), 0.0);
    auto const coords = [](int64_t index, std::vector<int64_t> const& extents) {
        std::vector<int64_t> at(extents.size());
        for (std::size_t i = extents.size(); i-- > 0;)
        {
            at[i] = index % extents[i];
            index /= extents[i];
        }
        return at;
    };
    for (int64_t n = 0; n < c.batch; ++n)
    {
        for (int64_t k = 0; k < c.maps; ++k)
        {
            int64_t const g = k / (c.maps / c.groups);
            for (int64_t o = 0; o < outVolume; ++o)
            {
                std::vector<int64_t> const oAt = coords(o, out);
                double sum = c.bias ? b[static_cast<std::size_t>(k)] : 0.0;
                double mag = std::fabs(sum);
                for (int64_t ci = 0; ci < perGroup; ++ci)
                {
                    for (int64_t t = 0; t < kVolume; ++t)
                    {
                        std::vector<int64_t> const tap = coords(t, c.kernel);
                        int64_t inIndex = n * c.channels + g * perGroup + ci;
                        bool inside = true;
                        for (std::size_t a = 0; a < tap.size(); ++a)
                        {
                            int64_t const pos = oAt[a] * c.stride[a] - c.pre[a] + tap[a] * c.dilation[a];
                            inside = inside && pos >= 0 && pos < c.in[a];
                            inIndex = inIndex * c.in[a] + pos;
                        }
                        if (inside)
                        {
                            double const term = x[static_cast<std::size_t>(inIndex)]
                                * w[static_cast<std::size_t>((k * perGroup + ci) * kVolume + t)];
                            sum += term;
                            mag += std::fabs(term);
                        }
                    }
                }
                result[static_cast<std::size_t>((n * c.maps + k) * outVolume + o)] = sum;
                magnitude[static_cast<std::size_t>((n * c.maps + k) * outVolume + o)] = mag;
            }
        }
    }
    return result;
}

//! Runs c with random values and compares with the textbook sum: one ulp of the output type after rounding (one
//! quantization step for kINT8), plus double-rounding slack far below that.
void runCase(std::mt19937& rng, Case const& c)
{
    SCOPED_TRACE(::testing::Message() << dataTypeName(c.type) << " " << c.nbSpatial << "-D groups " << c.groups << " C "
                                      << c.channels << " K " << c.maps);
    bool const int8 = c.type == DataType::kINT8;
    std::vector<int64_t> inShape{c.batch, c.channels};
    inShape.insert(inShape.end(), c.in.begin(), c.in.end());
    HostBuffer input(c.type, toDims(inShape), int8 ? randomScale(rng) : 1.0F);
    fillFloating(rng, input, -2.0, 2.0, false);

    ConvolutionParams params;
    params.nbOutputMaps = c.maps;
    params.nbGroups = c.groups;
    params.kernelSize = toDims(c.kernel);
    params.stride = toDims(c.stride);
    params.dilation = toDims(c.dilation);
    params.prePadding = toDims(c.pre);
    params.postPadding = toDims(c.post);

    int64_t const kVolume = std::accumulate(c.kernel.begin(), c.kernel.end(), int64_t{1}, std::multiplies<>());
    int64_t const kCount = c.maps * (c.channels / c.groups) * kVolume;
    std::vector<int64_t> kShape{c.maps, c.channels / c.groups};
    kShape.insert(kShape.end(), c.kernel.begin(), c.kernel.end());
    ConvolutionOperands operands;
    HostBuffer kernelTensor(c.type, toDims(kShape), int8 ? randomScale(rng) : 1.0F);
    std::vector<float> kernelFloats(static_cast<std::size_t>(kCount));
    std::vector<int8_t> kernelCodes(static_cast<std::size_t>(kCount));
    std::vector<double> w(static_cast<std::size_t>(kCount));
    if (int8)
    {
        for (int64_t m = 0; m < (c.perMapScales ? c.maps : 1); ++m)
        {
            operands.kernelScales.push_back(randomScale(rng) / 4.0F);
        }
    }
    if (c.kernelAsTensor)
    {
        fillFloating(rng, kernelTensor, -1.0, 1.0, false);
        operands.kernel = &kernelTensor.tensor();
        if (!int8 || !c.perMapScales)
        {
            operands.kernelScales.clear();
        }
    }
    int64_t const perMap = kCount / c.maps;
    for (int64_t i = 0; i < kCount; ++i)
    {
        auto const s = static_cast<std::size_t>(i);
        float const scale = operands.kernelScales.empty()
            ? kernelTensor.tensor().scale
            : operands.kernelScales[operands.kernelScales.size() == 1 ? 0 : static_cast<std::size_t>(i / perMap)];
        if (c.kernelAsTensor)
        {
            w[s] = int8 ? dequantizeInt8(static_cast<int8_t>(bytesOf(kernelTensor)[i]), scale)
                        : decode(c.type, bytesOf(kernelTensor), i, 1.0F);
        }
        else if (int8)
        {
            kernelCodes[s] = static_cast<int8_t>(static_cast<int32_t>(rng() % 256) - 128);
            w[s] = dequantizeInt8(kernelCodes[s], scale);
        }
        else
        {
            kernelFloats[s] = std::uniform_real_distribution<float>(-1.0F, 1.0F)(rng);
            w[s] = kernelFloats[s];
        }
    }
    if (!c.kernelAsTensor)
    {
        params.kernel = int8 ? Weights{DataType::kINT8, kernelCodes.data(), kCount}
                             : Weights{DataType::kFLOAT, kernelFloats.data(), kCount};
    }
    std::vector<float> biasFloats(static_cast<std::size_t>(c.maps));
    std::vector<double> b(biasFloats.size());
    for (std::size_t k = 0; k < biasFloats.size(); ++k)
    {
        biasFloats[k] = std::uniform_real_distribution<float>(-1.0F, 1.0F)(rng);
        b[k] = biasFloats[k];
    }
    if (c.bias)
    {
        params.bias = Weights{DataType::kFLOAT, biasFloats.data(), c.maps};
    }

    std::vector<int64_t> out;
    for (std::size_t a = 0; a < c.in.size(); ++a)
    {
        int64_t const span = 1 + c.dilation[a] * (c.kernel[a] - 1);
        out.push_back((c.in[a] + c.pre[a] + c.post[a] - span) / c.stride[a] + 1);
    }
    std::vector<int64_t> outShape{c.batch, c.maps};
    outShape.insert(outShape.end(), out.begin(), out.end());
    Expected<TensorDesc> const desc = inferConvolution(params, {c.type, input.tensor().dims}, operands);
    ASSERT_TRUE(desc.ok()) << desc.error().message;
    ASSERT_TRUE(sameShape(desc.value().dims, toDims(outShape))) << shapeString(desc.value().dims);

    std::vector<double> x(static_cast<std::size_t>(elementCount(input.tensor())));
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        x[i] = decode(c.type, bytesOf(input), static_cast<int64_t>(i), input.tensor().scale);
    }
    std::vector<double> magnitude;
    std::vector<double> const expected = textbook(c, x, w, b, out, magnitude);
    // An INT8 output scale that keeps most results inside [-128, 127] steps.
    double largest = 0.0;
    for (double const e : expected)
    {
        largest = std::max(largest, std::fabs(e));
    }
    float const outputScale = int8 ? static_cast<float>(std::max(largest / 100.0, 1e-3)) : 1.0F;
    HostBuffer output(c.type, toDims(outShape), outputScale);
    Status const done = runConvolution(params, input.tensor(), output.tensor(), operands);
    ASSERT_TRUE(done.ok()) << done.error().message;
    for (std::size_t i = 0; i < expected.size(); ++i)
    {
        double const rounded = roundTo(c.type, expected[i], output.tensor().scale);
        double const actual = decode(c.type, bytesOf(output), static_cast<int64_t>(i), output.tensor().scale);
        double const tolerance = ulp(c.type, rounded, output.tensor().scale) + 1e-12 * magnitude[i];
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
    c.nbSpatial = rng() % 3 == 0 ? 3 : 2;
    c.groups = pick(rng, 1, 3);
    c.channels = c.groups * pick(rng, 1, 2);
    c.maps = c.groups * pick(rng, 1, 2);
    c.batch = pick(rng, 1, 2);
    for (int32_t a = 0; a < c.nbSpatial; ++a)
    {
        c.kernel.push_back(pick(rng, 1, 3));
        c.stride.push_back(pick(rng, 1, 2));
        c.dilation.push_back(pick(rng, 1, 2));
        c.pre.push_back(pick(rng, 0, 3));
        c.post.push_back(pick(rng, 0, 3));
        int64_t const span = 1 + c.dilation.back() * (c.kernel.back() - 1);
        c.in.push_back(std::max<int64_t>(pick(rng, 1, c.nbSpatial == 3 ? 3 : 5), span - c.pre.back() - c.post.back()));
    }
    c.bias = rng() % 2 == 0;
    c.kernelAsTensor = rng() % 3 == 0;
    c.perMapScales = rng() % 2 == 0;
    return c;
}

TEST(HostConvolution, RandomAgainstTextbookSum)
{
    std::mt19937 rng(20260501);
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8})
    {
        for (int32_t trial = 0; trial < 40; ++trial)
        {
            runCase(rng, randomCase(rng, type));
        }
    }
}

Case square(int64_t channels, int64_t maps, int64_t groups, int64_t kernel, int64_t in)
{
    Case c;
    c.channels = channels;
    c.maps = maps;
    c.groups = groups;
    c.in = {in, in};
    c.kernel = {kernel, kernel};
    c.stride = {1, 1};
    c.dilation = {1, 1};
    c.pre = {0, 0};
    c.post = {0, 0};
    return c;
}

TEST(HostConvolution, SpecialCases)
{
    std::mt19937 rng(7);
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kINT8})
    {
        Case depthwise = square(4, 4, 4, 3, 5); // groups == channels
        depthwise.type = type;
        depthwise.bias = true;
        runCase(rng, depthwise);
        Case dilated = square(2, 3, 1, 3, 7);
        dilated.type = type;
        dilated.dilation = {2, 3};
        runCase(rng, dilated);
        Case padded = square(2, 2, 1, 2, 3); // padding larger than the kernel
        padded.type = type;
        padded.pre = {4, 3};
        padded.post = {3, 5};
        padded.stride = {2, 1};
        runCase(rng, padded);
        Case pointwise = square(3, 5, 1, 1, 4); // 1x1
        pointwise.type = type;
        runCase(rng, pointwise);
        Case empty = square(2, 2, 1, 3, 4); // batch 0: an empty output
        empty.type = type;
        empty.batch = 0;
        runCase(rng, empty);
        Case volume = square(2, 4, 2, 2, 3); // 3-D
        volume.type = type;
        volume.nbSpatial = 3;
        volume.in = {3, 4, 2};
        volume.kernel = {2, 1, 2};
        volume.stride = {1, 2, 1};
        volume.dilation = {1, 1, 1};
        volume.pre = {1, 0, 2};
        volume.post = {0, 1, 0};
        volume.kernelAsTensor = true;
        runCase(rng, volume);
    }
}

TEST(HostConvolution, BiasAndKernelAsTensorsAndHalfWeights)
{
    // out = 0.5 * x + bias, from kHALF Weights, with the bias as a tensor.
    HostBuffer input(DataType::kFLOAT, Dims{4, {1, 1, 1, 2}});
    HostBuffer bias(DataType::kFLOAT, Dims{1, {1}});
    HostBuffer output(DataType::kFLOAT, Dims{4, {1, 1, 1, 2}});
    encode(DataType::kFLOAT, static_cast<std::byte*>(input.tensor().data), 0, 3.0, 1.0F);
    encode(DataType::kFLOAT, static_cast<std::byte*>(input.tensor().data), 1, -1.0, 1.0F);
    encode(DataType::kFLOAT, static_cast<std::byte*>(bias.tensor().data), 0, 0.25, 1.0F);
    uint16_t const half = floatToHalf(0.5F);
    ConvolutionParams params;
    params.nbOutputMaps = 1;
    params.kernelSize = Dims{2, {1, 1}};
    params.kernel = Weights{DataType::kHALF, &half, 1};
    ConvolutionOperands operands;
    operands.bias = &bias.tensor();
    ASSERT_TRUE(runConvolution(params, input.tensor(), output.tensor(), operands).ok());
    EXPECT_EQ(decode(DataType::kFLOAT, bytesOf(output), 0, 1.0F), 1.75);
    EXPECT_EQ(decode(DataType::kFLOAT, bytesOf(output), 1, 1.0F), -0.25);
}

TEST(HostConvolution, Refusals)
{
    std::vector<float> kernel(400, 0.5F);
    ConvolutionParams params;
    params.nbOutputMaps = 8;
    params.nbGroups = 4;
    params.kernelSize = Dims{2, {3, 3}};
    params.kernel = Weights{DataType::kFLOAT, kernel.data(), 8 * 2 * 9};
    TensorDesc const input{DataType::kFLOAT, Dims{4, {1, 8, 5, 5}}};
    ASSERT_TRUE(inferConvolution(params, input).ok());

    expectError(inferConvolution(params, {DataType::kFLOAT, Dims{4, {1, 6, 5, 5}}}),
        {"the input has 6 channels", "not divisible by 4 groups"});
    ConvolutionParams wrongCount = params;
    wrongCount.kernel.count = 50;
    expectError(inferConvolution(wrongCount, input),
        {"hold 50 values", "8 output maps x 2 input channels per group (8 channels / 4 groups)", "need 144"});
    // A kernel tensor whose channels per group do not match the input: names both counts and the group count.
    ConvolutionParams tensorKernel = params;
    tensorKernel.kernel = Weights{DataType::kFLOAT, nullptr, 0};
    HostBuffer k(DataType::kFLOAT, Dims{4, {8, 3, 3, 3}});
    expectError(inferConvolution(tensorKernel, input, {&k.tensor(), nullptr, {}}),
        {"the input has 8 channels", "3 input channels per group x 4 groups = 12"});
    HostBuffer kBadShape(DataType::kFLOAT, Dims{4, {8, 2, 3, 2}});
    expectError(inferConvolution(tensorKernel, input, {&kBadShape.tensor(), nullptr, {}}),
        {"the kernel tensor [8, 2, 3, 2] must be [8, C/groups, [3, 3]]"});
    expectError(inferConvolution(tensorKernel, input), {"no kernel"});
    ConvolutionParams oddMaps = params;
    oddMaps.nbOutputMaps = 6;
    expectError(inferConvolution(oddMaps, input), {"nbOutputMaps 6 is not divisible by 4 groups"});
    expectError(inferConvolution(params, {DataType::kFLOAT, Dims{3, {8, 5, 5}}}),
        {"has rank 3", "2-D convolution needs rank 4"});
    expectError(inferConvolution(params, {DataType::kINT32, input.dims}), {"does not accept kINT32"});
    ConvolutionParams badStride = params;
    badStride.stride = Dims{2, {1, 0}};
    expectError(inferConvolution(badStride, input), {"stride [1, 0] needs every extent in [1, 2147483647]"});
    ConvolutionParams badRank = params;
    badRank.dilation = Dims{3, {1, 1, 1}};
    expectError(inferConvolution(badRank, input), {"dilation [1, 1, 1] has 3 extents but the window has 2"});
    expectError(inferConvolution(params, {DataType::kFLOAT, Dims{4, {1, 8, 2, 5}}}),
        {"padded input extent 2", "shorter than the window's span 3"});
    ConvolutionParams badBias = params;
    badBias.bias = Weights{DataType::kFLOAT, kernel.data(), 7};
    expectError(inferConvolution(badBias, input), {"the bias weights hold 7 values but there are 8 output maps"});
    ConvolutionParams intBias = params;
    intBias.bias = Weights{DataType::kINT32, kernel.data(), 8};
    expectError(inferConvolution(intBias, input), {"bias weights of type kINT32"});
    std::vector<int8_t> codes(144);
    ConvolutionParams int8Kernel = params;
    int8Kernel.kernel = Weights{DataType::kINT8, codes.data(), 144};
    expectError(inferConvolution(int8Kernel, input), {"a kINT8 kernel needs 1 or 8 kernel scales", "not 0"});
    expectError(inferConvolution(int8Kernel, input, {nullptr, nullptr, {1.0F, -1.0F}}), {"needs 1 or 8 kernel scales"});

    HostBuffer in(DataType::kFLOAT, input.dims);
    HostBuffer wrongOut(DataType::kFLOAT, Dims{4, {1, 8, 5, 5}});
    expectError(runConvolution(params, in.tensor(), wrongOut.tensor()),
        {"the output is kFLOAT [1, 8, 5, 5] but must be kFLOAT [1, 8, 3, 3]"});
    HostBuffer halfOut(DataType::kHALF, Dims{4, {1, 8, 3, 3}});
    expectError(runConvolution(params, in.tensor(), halfOut.tensor()), {"the output is kHALF"});
    HostTensor noData = in.tensor();
    noData.data = nullptr;
    HostBuffer out(DataType::kFLOAT, Dims{4, {1, 8, 3, 3}});
    EXPECT_FALSE(runConvolution(params, noData, out.tensor()).ok());
    ConvolutionParams noValues = params;
    noValues.kernel.values = nullptr;
    expectError(
        runConvolution(noValues, in.tensor(), out.tensor()), {"the kernel weights have 144 values but no data"});
}

} // namespace
} // namespace kiln::host::test
