// SPDX-License-Identifier: Apache-2.0
// The host backend's dispatch: every layer kind run through makeHostBackend()->runLayer, against values computed
// here with plain loops; the parameters read from tensor inputs (slice, shuffle, fill, convolution); the refusals
// (plugins, inputs and outputs that do not fit the kind), each with its message; and the build-time answers of
// checkLayer (outputs, refusals, answers that wait for run-time values, padding resolved as at run time).
#include "backends/host/dispatch.h"

#include "host_test_util.h"

#include <cmath>
#include <numeric>
#include <utility>

namespace kiln::host::test
{
namespace
{

using nvinfer1::ErrorCode;
using nvinfer1::PaddingMode;
using nvinfer1::SampleMode;

//! A buffer of type and dims holding values (encoded by the test's own path).
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

//! 0, 1, ..., count - 1.
std::vector<double> iota(int64_t count)
{
    std::vector<double> values(static_cast<std::size_t>(count));
    std::iota(values.begin(), values.end(), 0.0);
    return values;
}

//! Runs one layer of params's kind: input i is tensor i (or absent where nullptr), the outputs follow.
Status runLayer(
    LayerParams params, std::vector<HostTensor const*> const& inputs, std::vector<HostTensor> const& outputs)
{
    LayerRecord layer;
    layer.name = "layer";
    layer.type = layerTypeOf(params);
    for (std::size_t i = 0; i < inputs.size(); ++i)
    {
        layer.inputs.push_back(inputs[i] != nullptr ? static_cast<int32_t>(i) : kNoTensor);
    }
    for (std::size_t o = 0; o < outputs.size(); ++o)
    {
        layer.outputs.push_back(static_cast<int32_t>(inputs.size() + o));
    }
    layer.params = std::move(params);
    EngineModel const model;
    return makeHostBackend()->runLayer(layer, model, inputs, outputs, nullptr);
}

//! Runs a layer with one output and expects it to succeed.
void expectRuns(LayerParams params, std::vector<HostTensor const*> const& inputs, HostBuffer const& out)
{
    Status const done = runLayer(std::move(params), inputs, {out.tensor()});
    ASSERT_TRUE(done.ok()) << done.error().message;
}

//! Expects out to hold expected, each rounded to out's type (within one ulp, exactly for integers).
void expectValues(HostBuffer const& out, std::vector<double> const& expected)
{
    HostTensor const& t = out.tensor();
    ASSERT_EQ(elementCount(t), static_cast<int64_t>(expected.size()));
    for (std::size_t i = 0; i < expected.size(); ++i)
    {
        double const actual = decode(t.type, bytesOf(out), static_cast<int64_t>(i), t.scale);
        EXPECT_TRUE(matches(t.type, expected[i], actual, t.scale))
            << "element " << i << ": expected " << expected[i] << ", got " << actual;
    }
}

//! Expects status to be an error of code whose message holds fragment.
template <typename T>
void expectRefused(Expected<T> const& status, ErrorCode code, std::string const& fragment)
{
    expectError(status, {fragment});
    if (!status.ok())
    {
        EXPECT_EQ(status.error().code, code) << status.error().message;
    }
}

//! A 2-D convolution of one image with groups 1 and dilation 1, computed here: out[k][y][x] = bias[k] +
//! sum in[c][y * stride - pad + r][x * stride - pad + s] * w[k][c][r][s] (zero outside the input).
std::vector<double> convolve(std::vector<double> const& in, int64_t c, int64_t h, int64_t w,
    std::vector<double> const& kernel, int64_t k, int64_t r, int64_t s, std::vector<double> const& bias, int64_t stride,
    int64_t pad, int64_t oh, int64_t ow)
{
    std::vector<double> out;
    for (int64_t m = 0; m < k; ++m)
    {
        for (int64_t y = 0; y < oh; ++y)
        {
            for (int64_t x = 0; x < ow; ++x)
            {
                double sum = bias.empty() ? 0.0 : bias[static_cast<std::size_t>(m)];
                for (int64_t ch = 0; ch < c; ++ch)
                {
                    for (int64_t i = 0; i < r; ++i)
                    {
                        for (int64_t j = 0; j < s; ++j)
                        {
                            int64_t const iy = y * stride - pad + i;
                            int64_t const ix = x * stride - pad + j;
                            if (iy >= 0 && iy < h && ix >= 0 && ix < w)
                            {
                                sum += in[static_cast<std::size_t>((ch * h + iy) * w + ix)]
                                    * kernel[static_cast<std::size_t>(((m * c + ch) * r + i) * s + j)];
                            }
                        }
                    }
                }
                out.push_back(sum);
            }
        }
    }
    return out;
}

//! A 2-D convolution's parameters: K maps, an r x s window, stride, no padding, dilation 1, no weights.
ConvolutionParams convolutionParams(int64_t k, int64_t r, int64_t s, int64_t stride)
{
    ConvolutionParams params;
    params.nbOutputMaps = k;
    params.kernelSize = Dims{2, {r, s}};
    params.stride = Dims{2, {stride, stride}};
    params.prePadding = Dims{2, {0, 0}};
    params.postPadding = Dims{2, {0, 0}};
    params.dilation = Dims{2, {1, 1}};
    return params;
}

// ---- One case per kind -----------------------------------------------------------------------------------------

TEST(HostDispatch, ConvolutionWithWeights)
{
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{4, {1, 1, 4, 4}}, iota(16));
    std::vector<float> kernel{1.0F, 2.0F, 3.0F, 4.0F};
    std::vector<float> bias{0.5F};
    ConvolutionParams params = convolutionParams(1, 2, 2, 2);
    params.kernel = Weights{DataType::kFLOAT, kernel.data(), 4};
    params.bias = Weights{DataType::kFLOAT, bias.data(), 1};
    HostBuffer out(DataType::kFLOAT, Dims{4, {1, 1, 2, 2}});
    expectRuns(params, {&in.tensor()}, out);
    expectValues(out, convolve(iota(16), 1, 4, 4, {1, 2, 3, 4}, 1, 2, 2, {0.5}, 2, 0, 2, 2));
}

TEST(HostDispatch, ConvolutionResolvesSamePadding)
{
    // kSAME_UPPER with a 3x3 window and stride 1 pads one on each side: a 3x3 output of neighbourhood sums.
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{4, {1, 1, 3, 3}}, iota(9));
    std::vector<float> kernel(9, 1.0F);
    ConvolutionParams params = convolutionParams(1, 3, 3, 1);
    params.paddingMode = PaddingMode::kSAME_UPPER;
    params.kernel = Weights{DataType::kFLOAT, kernel.data(), 9};
    HostBuffer out(DataType::kFLOAT, Dims{4, {1, 1, 3, 3}});
    expectRuns(params, {&in.tensor()}, out);
    expectValues(out, convolve(iota(9), 1, 3, 3, std::vector<double>(9, 1.0), 1, 3, 3, {}, 1, 1, 3, 3));
}

TEST(HostDispatch, ConvolutionWithKernelAndBiasTensors)
{
    std::vector<double> const input{0.5, -1, 2, 3, 0, 1, -2, 4, 1.5, 1, 1, 0, -1, 2, 0.25, 3, -3, 1};
    std::vector<double> kernel(16);
    for (std::size_t i = 0; i < kernel.size(); ++i)
    {
        kernel[i] = static_cast<double>(i % 5) - 1.5;
    }
    std::vector<double> const bias{0.25, -2};
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{4, {1, 2, 3, 3}}, input);
    HostBuffer const k = tensorOf(DataType::kFLOAT, Dims{4, {2, 2, 2, 2}}, kernel);
    HostBuffer const b = tensorOf(DataType::kFLOAT, Dims{1, {2}}, bias);
    HostBuffer out(DataType::kFLOAT, Dims{4, {1, 2, 2, 2}});
    expectRuns(convolutionParams(2, 2, 2, 1), {&in.tensor(), &k.tensor(), &b.tensor()}, out);
    expectValues(out, convolve(input, 2, 3, 3, kernel, 2, 2, 2, bias, 1, 0, 2, 2));

    // The kernel tensor alone (no bias).
    HostBuffer noBias(DataType::kFLOAT, Dims{4, {1, 2, 2, 2}});
    expectRuns(convolutionParams(2, 2, 2, 1), {&in.tensor(), &k.tensor()}, noBias);
    expectValues(noBias, convolve(input, 2, 3, 3, kernel, 2, 2, 2, {}, 1, 0, 2, 2));
}

TEST(HostDispatch, ConvolutionRefusesWeightsAndTensorsTogether)
{
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{4, {1, 1, 2, 2}}, iota(4));
    HostBuffer const k = tensorOf(DataType::kFLOAT, Dims{4, {1, 1, 2, 2}}, iota(4));
    std::vector<float> weights(4, 1.0F);
    ConvolutionParams params = convolutionParams(1, 2, 2, 1);
    params.kernel = Weights{DataType::kFLOAT, weights.data(), 4};
    HostBuffer out(DataType::kFLOAT, Dims{4, {1, 1, 1, 1}});
    expectRefused(runLayer(params, {&in.tensor(), &k.tensor()}, {out.tensor()}), ErrorCode::kINVALID_ARGUMENT,
        "input 1 gives the kernel, so the kernel weights must be empty; they hold 4 values");
    // No kernel at all: the kernel says so.
    expectRefused(runLayer(convolutionParams(1, 2, 2, 1), {&in.tensor()}, {out.tensor()}), ErrorCode::kINVALID_ARGUMENT,
        "no kernel");
}

TEST(HostDispatch, DeconvolutionWithWeightsAndWithTensors)
{
    // One channel [1, 2; 3, 4], kernel [1, 10; 100, 1000], stride 2: each input element stamps the kernel, scaled,
    // into its own 2x2 block of the 4x4 result; pre-padding 1 and post-padding 0 keep rows and columns 1 to 3.
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{4, {1, 1, 2, 2}}, {1, 2, 3, 4});
    std::vector<float> kernel{1.0F, 10.0F, 100.0F, 1000.0F};
    std::vector<float> bias{0.5F};
    DeconvolutionParams params;
    params.nbOutputMaps = 1;
    params.kernelSize = Dims{2, {2, 2}};
    params.stride = Dims{2, {2, 2}};
    params.prePadding = Dims{2, {1, 1}};
    params.postPadding = Dims{2, {0, 0}};
    params.dilation = Dims{2, {1, 1}};
    params.kernel = Weights{DataType::kFLOAT, kernel.data(), 4};
    params.bias = Weights{DataType::kFLOAT, bias.data(), 1};
    HostBuffer out(DataType::kFLOAT, Dims{4, {1, 1, 3, 3}});
    expectRuns(params, {&in.tensor()}, out);
    // The full result: rows [1, 10, 2, 20], [100, 1000, 200, 2000], [3, 30, 4, 40], [300, 3000, 400, 4000].
    expectValues(out, {1000.5, 200.5, 2000.5, 30.5, 4.5, 40.5, 3000.5, 400.5, 4000.5});

    // The same with the kernel and bias as inputs 1 and 2, and kSAME_UPPER (DK 2 == S 2: nothing trimmed).
    HostBuffer const k = tensorOf(DataType::kFLOAT, Dims{4, {1, 1, 2, 2}}, {1, 10, 100, 1000});
    HostBuffer const b = tensorOf(DataType::kFLOAT, Dims{1, {1}}, {0.5});
    DeconvolutionParams tensors = params;
    tensors.kernel = Weights{};
    tensors.bias = Weights{};
    tensors.paddingMode = PaddingMode::kSAME_UPPER;
    HostBuffer same(DataType::kFLOAT, Dims{4, {1, 1, 4, 4}});
    expectRuns(tensors, {&in.tensor(), &k.tensor(), &b.tensor()}, same);
    expectValues(
        same, {1.5, 10.5, 2.5, 20.5, 100.5, 1000.5, 200.5, 2000.5, 3.5, 30.5, 4.5, 40.5, 300.5, 3000.5, 400.5, 4000.5});

    // Weights and a tensor for the same operand: refused, naming the operand.
    expectRefused(runLayer(params, {&in.tensor(), &k.tensor()}, {out.tensor()}), ErrorCode::kINVALID_ARGUMENT,
        "deconvolution: input 1 gives the kernel, so the kernel weights must be empty; they hold 4 values");
    DeconvolutionParams biasTwice = tensors;
    biasTwice.bias = params.bias;
    expectRefused(runLayer(biasTwice, {&in.tensor(), &k.tensor(), &b.tensor()}, {same.tensor()}),
        ErrorCode::kINVALID_ARGUMENT,
        "deconvolution: input 2 gives the bias, so the bias weights must be empty; they hold 1 values");
}

TEST(HostDispatch, CumulativeReadsTheAxisFromInputOne)
{
    // [2, 3] along axis -1 (1), reverse: [6, 5, 3], [15, 11, 6].
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{2, {2, 3}}, {1, 2, 3, 4, 5, 6});
    HostBuffer const axis = tensorOf(DataType::kINT32, Dims{0, {}}, {-1});
    CumulativeParams params;
    params.reverse = true;
    HostBuffer out(DataType::kFLOAT, Dims{2, {2, 3}});
    expectRuns(params, {&in.tensor(), &axis.tensor()}, out);
    expectValues(out, {6, 5, 3, 15, 11, 6});
    // Axis 0 from a kINT64 input, exclusive: [0, 0, 0], [1, 2, 3].
    HostBuffer const first = tensorOf(DataType::kINT64, Dims{0, {}}, {0});
    CumulativeParams exclusive;
    exclusive.exclusive = true;
    expectRuns(exclusive, {&in.tensor(), &first.tensor()}, out);
    expectValues(out, {0, 0, 0, 1, 2, 3});
    // An axis outside [-rank, rank - 1]; an axis that is not a 0-D index tensor.
    HostBuffer const outside = tensorOf(DataType::kINT32, Dims{0, {}}, {2});
    expectRefused(runLayer(params, {&in.tensor(), &outside.tensor()}, {out.tensor()}), ErrorCode::kINVALID_ARGUMENT,
        "cumulative: the axis (input 1) is 2; for an input of rank 2 it must be in [-2, 1]");
    HostBuffer const vector = tensorOf(DataType::kINT32, Dims{1, {1}}, {0});
    expectRefused(
        runLayer(params, {&in.tensor(), &vector.tensor()}, {out.tensor()}), ErrorCode::kINVALID_ARGUMENT, "cumulative");
}

TEST(HostDispatch, Cast)
{
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{1, {4}}, {2.75, -2.75, 0.5, 100});
    HostBuffer out(DataType::kINT32, Dims{1, {4}});
    expectRuns(kiln::CastParams{DataType::kINT32}, {&in.tensor()}, out);
    expectValues(out, {2, -2, 0, 100}); // truncated toward zero
}

TEST(HostDispatch, Activation)
{
    std::vector<double> const x{-2, -0.5, 0, 3};
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{2, {2, 2}}, x);
    HostBuffer out(DataType::kFLOAT, Dims{2, {2, 2}});
    float const alpha = 0.1F;
    expectRuns(kiln::ActivationParams{nvinfer1::ActivationType::kLEAKY_RELU, alpha, 0.F}, {&in.tensor()}, out);
    std::vector<double> expected;
    for (double const v : x)
    {
        expected.push_back(v >= 0 ? v : static_cast<double>(alpha) * v);
    }
    expectValues(out, expected);
}

TEST(HostDispatch, PoolingMax)
{
    std::vector<double> const x{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{4, {1, 1, 4, 4}}, x);
    PoolingParams params;
    params.type = nvinfer1::PoolingType::kMAX;
    params.windowSize = Dims{2, {2, 2}};
    params.stride = Dims{2, {2, 2}};
    params.prePadding = Dims{2, {0, 0}};
    params.postPadding = Dims{2, {0, 0}};
    HostBuffer out(DataType::kFLOAT, Dims{4, {1, 1, 2, 2}});
    expectRuns(params, {&in.tensor()}, out);
    std::vector<double> expected;
    for (int32_t y = 0; y < 2; ++y)
    {
        for (int32_t xo = 0; xo < 2; ++xo)
        {
            double best = -kInf;
            for (int32_t i = 0; i < 2; ++i)
            {
                for (int32_t j = 0; j < 2; ++j)
                {
                    best = std::max(best, x[static_cast<std::size_t>((2 * y + i) * 4 + 2 * xo + j)]);
                }
            }
            expected.push_back(best);
        }
    }
    expectValues(out, expected);
}

TEST(HostDispatch, PoolingResolvesSamePadding)
{
    // A 2x2 average with stride 1, kSAME_UPPER on 3x3: P = 1, pre 0, post 1; the padding is not counted.
    std::vector<double> const x{1, 2, 3, 4, 5, 6, 7, 8, 10};
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{4, {1, 1, 3, 3}}, x);
    PoolingParams params;
    params.type = nvinfer1::PoolingType::kAVERAGE;
    params.windowSize = Dims{2, {2, 2}};
    params.stride = Dims{2, {1, 1}};
    params.prePadding = Dims{2, {0, 0}};
    params.postPadding = Dims{2, {0, 0}};
    params.paddingMode = PaddingMode::kSAME_UPPER;
    HostBuffer out(DataType::kFLOAT, Dims{4, {1, 1, 3, 3}});
    expectRuns(params, {&in.tensor()}, out);
    std::vector<double> expected;
    for (int32_t y = 0; y < 3; ++y)
    {
        for (int32_t xo = 0; xo < 3; ++xo)
        {
            double sum = 0;
            int32_t count = 0;
            for (int32_t i = y; i < std::min(y + 2, 3); ++i)
            {
                for (int32_t j = xo; j < std::min(xo + 2, 3); ++j)
                {
                    sum += x[static_cast<std::size_t>(i * 3 + j)];
                    ++count;
                }
            }
            expected.push_back(sum / count);
        }
    }
    expectValues(out, expected);
}

TEST(HostDispatch, SoftMax)
{
    std::vector<double> const x{1, 2, 3, -1, 0, 0.5};
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{2, {2, 3}}, x);
    HostBuffer out(DataType::kFLOAT, Dims{2, {2, 3}});
    expectRuns(SoftMaxParams{1U << 1}, {&in.tensor()}, out);
    std::vector<double> expected;
    for (std::size_t row = 0; row < 2; ++row)
    {
        double sum = 0;
        for (std::size_t j = 0; j < 3; ++j)
        {
            sum += std::exp(x[row * 3 + j]);
        }
        for (std::size_t j = 0; j < 3; ++j)
        {
            expected.push_back(std::exp(x[row * 3 + j]) / sum);
        }
    }
    expectValues(out, expected);
}

TEST(HostDispatch, Concatenation)
{
    HostBuffer const a = tensorOf(DataType::kINT32, Dims{2, {2, 1}}, {1, 4});
    HostBuffer const b = tensorOf(DataType::kINT32, Dims{2, {2, 2}}, {2, 3, 5, 6});
    HostBuffer out(DataType::kINT32, Dims{2, {2, 3}});
    expectRuns(ConcatenationParams{1}, {&a.tensor(), &b.tensor()}, out);
    expectValues(out, {1, 2, 3, 4, 5, 6});
}

TEST(HostDispatch, ElementWiseBroadcasts)
{
    HostBuffer const a = tensorOf(DataType::kFLOAT, Dims{2, {2, 3}}, {1, 2, 3, 4, 5, 6});
    HostBuffer const b = tensorOf(DataType::kFLOAT, Dims{2, {1, 3}}, {10, 20, 30});
    HostBuffer out(DataType::kFLOAT, Dims{2, {2, 3}});
    expectRuns(kiln::ElementWiseParams{nvinfer1::ElementWiseOperation::kSUB}, {&a.tensor(), &b.tensor()}, out);
    expectValues(out, {1 - 10, 2 - 20, 3 - 30, 4 - 10, 5 - 20, 6 - 30});
}

TEST(HostDispatch, Unary)
{
    std::vector<double> const x{0.25, 1, 2, 9};
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{1, {4}}, x);
    HostBuffer out(DataType::kFLOAT, Dims{1, {4}});
    expectRuns(kiln::UnaryParams{nvinfer1::UnaryOperation::kSQRT}, {&in.tensor()}, out);
    expectValues(out, {0.5, 1, std::sqrt(2.0), 3});
}

TEST(HostDispatch, ShuffleTransposes)
{
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{2, {2, 3}}, iota(6));
    ShuffleParams params;
    params.firstTranspose.order[0] = 1;
    params.firstTranspose.order[1] = 0;
    HostBuffer out(DataType::kFLOAT, Dims{2, {3, 2}});
    expectRuns(params, {&in.tensor()}, out);
    std::vector<double> expected;
    for (int32_t i = 0; i < 3; ++i)
    {
        for (int32_t j = 0; j < 2; ++j)
        {
            expected.push_back(j * 3 + i); // out[i][j] = in[j][i]
        }
    }
    expectValues(out, expected);
}

TEST(HostDispatch, Reduce)
{
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{2, {2, 3}}, {1, 2, 3, 4, 5, 6.5});
    HostBuffer out(DataType::kFLOAT, Dims{1, {2}});
    expectRuns(ReduceParams{nvinfer1::ReduceOperation::kSUM, 1U << 1, false}, {&in.tensor()}, out);
    expectValues(out, {1 + 2 + 3, 4 + 5 + 6.5});
}

TEST(HostDispatch, Gather)
{
    HostBuffer const data = tensorOf(DataType::kFLOAT, Dims{2, {3, 2}}, {10, 11, 20, 21, 30, 31});
    HostBuffer const indices = tensorOf(DataType::kINT32, Dims{1, {2}}, {2, 0});
    HostBuffer out(DataType::kFLOAT, Dims{2, {2, 2}});
    expectRuns(GatherParams{nvinfer1::GatherMode::kDEFAULT, 0, 0}, {&data.tensor(), &indices.tensor()}, out);
    expectValues(out, {30, 31, 10, 11});
}

TEST(HostDispatch, TopKWithStaticAndTensorK)
{
    HostBuffer const data = tensorOf(DataType::kFLOAT, Dims{2, {2, 4}}, {3, 1, 4, 1, 5, 9, 2, 6});
    HostBuffer values(DataType::kFLOAT, Dims{2, {2, 2}});
    HostBuffer indices(DataType::kINT32, Dims{2, {2, 2}});
    TopKParams const params{nvinfer1::TopKOperation::kMAX, 2, 0b10U, DataType::kINT32};
    Status const done = runLayer(params, {&data.tensor()}, {values.tensor(), indices.tensor()});
    ASSERT_TRUE(done.ok()) << done.error().message;
    expectValues(values, {4, 3, 9, 6});
    expectValues(indices, {2, 0, 1, 3});

    // k from input 1, a 0-D kINT64 tensor: it replaces the parameter.
    HostBuffer const k = tensorOf(DataType::kINT64, Dims{0, {}}, {3});
    HostBuffer three(DataType::kFLOAT, Dims{2, {2, 3}});
    HostBuffer threeIndices(DataType::kINT64, Dims{2, {2, 3}});
    TopKParams const smallest{nvinfer1::TopKOperation::kMIN, 0, 0b10U, DataType::kINT64};
    Status const again = runLayer(smallest, {&data.tensor(), &k.tensor()}, {three.tensor(), threeIndices.tensor()});
    ASSERT_TRUE(again.ok()) << again.error().message;
    expectValues(three, {1, 1, 3, 2, 5, 6});
    expectValues(threeIndices, {1, 3, 0, 2, 0, 3});
}

TEST(HostDispatch, TopKRefusals)
{
    HostBuffer const data = tensorOf(DataType::kFLOAT, Dims{1, {4}}, {3, 1, 4, 1});
    HostBuffer values(DataType::kFLOAT, Dims{1, {2}});
    HostBuffer indices(DataType::kINT32, Dims{1, {2}});
    TopKParams const params{nvinfer1::TopKOperation::kMAX, 2, 1U, DataType::kINT32};
    expectRefused(runLayer(params, {&data.tensor()}, {values.tensor()}), ErrorCode::kINVALID_ARGUMENT,
        "an ITopKLayer has 2 outputs; the layer has 1");
    HostBuffer const vector = tensorOf(DataType::kINT32, Dims{1, {1}}, {2});
    expectRefused(runLayer(params, {&data.tensor(), &vector.tensor()}, {values.tensor(), indices.tensor()}),
        ErrorCode::kINVALID_ARGUMENT, "topk: input 1 (k) has shape [1]; it must be 0-D (one value)");
    HostBuffer const floating = tensorOf(DataType::kFLOAT, Dims{0, {}}, {2});
    expectRefused(runLayer(params, {&data.tensor(), &floating.tensor()}, {values.tensor(), indices.tensor()}),
        ErrorCode::kINVALID_ARGUMENT,
        "topk: input 1 (k) is kFLOAT; a value a layer reads as a parameter is kINT32 or kINT64");
    HostBuffer const negative = tensorOf(DataType::kINT32, Dims{0, {}}, {-1});
    expectRefused(runLayer(params, {&data.tensor(), &negative.tensor()}, {values.tensor(), indices.tensor()}),
        ErrorCode::kINVALID_ARGUMENT, "topk: input 1 (k) is -1; k is 0 to 2^31 - 1");
    HostBuffer const huge(DataType::kINT64, Dims{0, {}});
    encodeInteger(DataType::kINT64, static_cast<std::byte*>(huge.tensor().data), 0, int64_t{1} << 31);
    expectRefused(runLayer(params, {&data.tensor(), &huge.tensor()}, {values.tensor(), indices.tensor()}),
        ErrorCode::kINVALID_ARGUMENT, "topk: input 1 (k) is 2147483648; k is 0 to 2^31 - 1");
    HostTensor noData = huge.tensor();
    noData.data = nullptr;
    expectRefused(runLayer(params, {&data.tensor(), &noData}, {values.tensor(), indices.tensor()}),
        ErrorCode::kINVALID_ARGUMENT, "input 1 (k) of shape [] has no data");
}

// A CUDA engine's fused layers (builder/fusion.h) that run on the host backend, part by part: what the GPU kernels
// compute in one pass.
TEST(HostDispatch, FusedMatrixMultiplyScaleBiasResidualActivation)
{
    // out = relu(-2 * (a x b) + bias + residual), a [2, 3], b [3, 2], bias [1, 2], residual [2, 2].
    HostBuffer const ta = tensorOf(DataType::kFLOAT, Dims{2, {2, 3}}, {1, 2, 3, 4, 5, 6});
    HostBuffer const tb = tensorOf(DataType::kFLOAT, Dims{2, {3, 2}}, {1, 0, 0, 1, 1, -1});
    HostBuffer const bias = tensorOf(DataType::kFLOAT, Dims{2, {1, 2}}, {30, 1});
    HostBuffer const residual = tensorOf(DataType::kFLOAT, Dims{2, {2, 2}}, {1, 2, 3, 4});
    HostBuffer out(DataType::kFLOAT, Dims{2, {2, 2}});
    LayerRecord layer;
    layer.name = "mm";
    layer.type = LayerType::kMATRIX_MULTIPLY;
    layer.params = MatrixMultiplyParams{};
    layer.inputs = {0, 1, 2, 3};
    layer.outputs = {4};
    layer.scale = -2.F;
    layer.epilogue = kiln::ActivationParams{nvinfer1::ActivationType::kRELU};
    EngineModel const model;
    std::vector<HostTensor const*> const inputs{&ta.tensor(), &tb.tensor(), &bias.tensor(), &residual.tensor()};
    std::vector<HostTensor> const outputs{out.tensor()};
    Status const done = makeHostBackend()->runLayer(layer, model, inputs, outputs, nullptr);
    ASSERT_TRUE(done.ok()) << done.error().message;
    // a x b = [[4, -1], [10, -1]]; -2 * that = [[-8, 2], [-20, 2]]; + bias + residual = [[23, 5], [13, 7]].
    expectValues(out, {23, 5, 13, 7});

    // Without a bias (input 2 absent), a negative result is clipped by the ReLU.
    layer.inputs = {0, 1, kNoTensor, 3};
    std::vector<HostTensor const*> const noBias{&ta.tensor(), &tb.tensor(), nullptr, &residual.tensor()};
    Status const again = makeHostBackend()->runLayer(layer, model, noBias, outputs, nullptr);
    ASSERT_TRUE(again.ok()) << again.error().message;
    expectValues(out, {0, 4, 0, 6});
}

TEST(HostDispatch, FusedPointwiseProgramAndConvolutionEpilogue)
{
    // (x - y) * (x - y), then exp(...) clipped to [0, 5]: one layer.
    HostBuffer const x = tensorOf(DataType::kFLOAT, Dims{1, {3}}, {1, 2, 3});
    HostBuffer const y = tensorOf(DataType::kFLOAT, Dims{1, {1}}, {2});
    HostBuffer out(DataType::kFLOAT, Dims{1, {3}});
    LayerRecord layer;
    layer.name = "program";
    layer.type = LayerType::kACTIVATION;
    layer.params = kiln::ActivationParams{nvinfer1::ActivationType::kCLIP, 0.F, 5.F};
    layer.inputs = {0, 1};
    layer.outputs = {2};
    using Kind = PointwiseStep::Kind;
    layer.pointwise = {
        PointwiseStep{Kind::kELEMENTWISE, static_cast<int32_t>(nvinfer1::ElementWiseOperation::kSUB), 0, 0, 0, 1},
        PointwiseStep{Kind::kELEMENTWISE, static_cast<int32_t>(nvinfer1::ElementWiseOperation::kPROD), 0, 0, -1, -1},
        PointwiseStep{Kind::kUNARY, static_cast<int32_t>(nvinfer1::UnaryOperation::kEXP), 0, 0, -2, 0},
        PointwiseStep{Kind::kACTIVATION, static_cast<int32_t>(nvinfer1::ActivationType::kCLIP), 0.F, 5.F, -3, 0},
    };
    EngineModel const model;
    std::vector<HostTensor const*> const inputs{&x.tensor(), &y.tensor()};
    std::vector<HostTensor> const outputs{out.tensor()};
    Status const done = makeHostBackend()->runLayer(layer, model, inputs, outputs, nullptr);
    ASSERT_TRUE(done.ok()) << done.error().message;
    expectValues(out, {std::exp(1.0), 1.0, std::exp(1.0)});

    // A convolution with a fused activation: the 1x1 kernel -1 and ReLU leave only the negative inputs, negated.
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{4, {1, 1, 2, 2}}, {-1, 2, -3, 4});
    HostBuffer conv(DataType::kFLOAT, Dims{4, {1, 1, 2, 2}});
    static float const kMinusOne = -1.F;
    ConvolutionParams params;
    params.nbOutputMaps = 1;
    params.kernelSize = Dims{2, {1, 1}};
    params.kernel = Weights{DataType::kFLOAT, &kMinusOne, 1};
    LayerRecord convolution;
    convolution.name = "conv";
    convolution.type = LayerType::kCONVOLUTION;
    convolution.params = params;
    convolution.inputs = {0};
    convolution.outputs = {1};
    convolution.epilogue = kiln::ActivationParams{nvinfer1::ActivationType::kRELU};
    std::vector<HostTensor const*> const convInputs{&in.tensor()};
    std::vector<HostTensor> const convOutputs{conv.tensor()};
    Status const ran = makeHostBackend()->runLayer(convolution, model, convInputs, convOutputs, nullptr);
    ASSERT_TRUE(ran.ok()) << ran.error().message;
    expectValues(conv, {1, 0, 3, 0});
}

// A convolution with a fused residual (input 3) and activation computes what its three unfused layers compute.
TEST(HostDispatch, FusedConvolutionResidualActivationMatchesTheUnfusedLayers)
{
    // out = relu(conv(x) + bias + residual): a 2x2 kernel of stride 1 on [1, 1, 3, 3], bias -4, residual [1, 1, 2, 2].
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{4, {1, 1, 3, 3}}, iota(9));
    HostBuffer const residual = tensorOf(DataType::kFLOAT, Dims{4, {1, 1, 2, 2}}, {-20, 3, -1, 0.5});
    std::vector<float> kernel{1.0F, -1.0F, 0.5F, 1.0F};
    std::vector<float> bias{-4.0F};
    ConvolutionParams params = convolutionParams(1, 2, 2, 1);
    params.kernel = Weights{DataType::kFLOAT, kernel.data(), 4};
    params.bias = Weights{DataType::kFLOAT, bias.data(), 1};

    // The unfused layers: the convolution, the sum, the ReLU.
    HostBuffer conv(DataType::kFLOAT, Dims{4, {1, 1, 2, 2}});
    HostBuffer sum(DataType::kFLOAT, Dims{4, {1, 1, 2, 2}});
    HostBuffer expected(DataType::kFLOAT, Dims{4, {1, 1, 2, 2}});
    expectRuns(params, {&in.tensor()}, conv);
    expectRuns(
        kiln::ElementWiseParams{nvinfer1::ElementWiseOperation::kSUM}, {&conv.tensor(), &residual.tensor()}, sum);
    expectRuns(kiln::ActivationParams{nvinfer1::ActivationType::kRELU}, {&sum.tensor()}, expected);

    // The fused record: inputs x, no kernel tensor, no bias tensor, the residual.
    LayerRecord layer;
    layer.name = "conv";
    layer.type = LayerType::kCONVOLUTION;
    layer.params = params;
    layer.inputs = {0, kNoTensor, kNoTensor, 1};
    layer.outputs = {2};
    layer.epilogue = kiln::ActivationParams{nvinfer1::ActivationType::kRELU};
    HostBuffer out(DataType::kFLOAT, Dims{4, {1, 1, 2, 2}});
    EngineModel const model;
    std::vector<HostTensor const*> const inputs{&in.tensor(), nullptr, nullptr, &residual.tensor()};
    std::vector<HostTensor> const outputs{out.tensor()};
    Status const done = makeHostBackend()->runLayer(layer, model, inputs, outputs, nullptr);
    ASSERT_TRUE(done.ok()) << done.error().message;
    // conv + bias = [4.5, 6, 9, 10.5] - 4; + residual = [-19.5, 5, 4, 7]; the ReLU clips the first.
    expectValues(expected, {0, 5, 4, 7});
    expectValues(out, {0, 5, 4, 7});
}

TEST(HostDispatch, MatrixMultiply)
{
    std::vector<double> const a{1, 2, 3, 4, 5, 6};
    std::vector<double> const b{7, 8, 9, 10, 11, 12};
    HostBuffer const ta = tensorOf(DataType::kFLOAT, Dims{2, {2, 3}}, a);
    HostBuffer const tb = tensorOf(DataType::kFLOAT, Dims{2, {3, 2}}, b);
    HostBuffer out(DataType::kFLOAT, Dims{2, {2, 2}});
    MatrixMultiplyParams params;
    params.ops[0] = nvinfer1::MatrixOperation::kNONE;
    params.ops[1] = nvinfer1::MatrixOperation::kNONE;
    expectRuns(params, {&ta.tensor(), &tb.tensor()}, out);
    std::vector<double> expected;
    for (std::size_t i = 0; i < 2; ++i)
    {
        for (std::size_t j = 0; j < 2; ++j)
        {
            double sum = 0;
            for (std::size_t k = 0; k < 3; ++k)
            {
                sum += a[i * 3 + k] * b[k * 2 + j];
            }
            expected.push_back(sum);
        }
    }
    expectValues(out, expected);
}

TEST(HostDispatch, Constant)
{
    std::vector<float> values{1.5F, -2.0F, 3.25F, 0.0F};
    HostBuffer out(DataType::kFLOAT, Dims{2, {2, 2}});
    expectRuns(ConstantParams{Dims{2, {2, 2}}, Weights{DataType::kFLOAT, values.data(), 4}}, {}, out);
    expectValues(out, {1.5, -2.0, 3.25, 0.0});
}

TEST(HostDispatch, IdentityCopies)
{
    HostBuffer const in = tensorOf(DataType::kINT64, Dims{1, {3}}, {-7, 0, 123456789});
    HostBuffer out(DataType::kINT64, Dims{1, {3}});
    expectRuns(IdentityParams{}, {&in.tensor()}, out);
    expectValues(out, {-7, 0, 123456789});
}

TEST(HostDispatch, IdentityConvertsFloatToHalf)
{
    std::vector<float> const x{0.1F, 1.0F / 3.0F, -65504.0F, 70000.0F, 1e-7F};
    HostBuffer in(DataType::kFLOAT, Dims{1, {5}});
    std::memcpy(in.tensor().data, x.data(), x.size() * sizeof(float));
    HostBuffer out(DataType::kHALF, Dims{1, {5}});
    expectRuns(IdentityParams{}, {&in.tensor()}, out);
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        uint16_t bits = 0;
        std::memcpy(&bits, bytesOf(out) + i * 2, 2);
        EXPECT_EQ(bits, floatToHalf(x[i])) << "element " << i << " (" << x[i] << ")";
    }
}

TEST(HostDispatch, IdentityRequantizesInt8)
{
    // The same type with another scale converts the real values: 10 * 1 = 5 * 2.
    HostBuffer const in = tensorOf(DataType::kINT8, Dims{1, {3}}, {10, -20, 3}, 1.0F);
    HostBuffer out(DataType::kINT8, Dims{1, {3}}, 2.0F);
    expectRuns(IdentityParams{}, {&in.tensor()}, out);
    std::vector<int8_t> codes(3);
    std::memcpy(codes.data(), bytesOf(out), 3);
    EXPECT_EQ(codes, (std::vector<int8_t>{5, -10, 2})); // 1.5 rounds half to even
}

TEST(HostDispatch, SliceWithStaticParameters)
{
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{1, {6}}, iota(6));
    HostBuffer out(DataType::kFLOAT, Dims{1, {3}});
    expectRuns(SliceParams{Dims{1, {4}}, Dims{1, {3}}, Dims{1, {-2}}, SampleMode::kSTRICT_BOUNDS, kUnsetDims},
        {&in.tensor()}, out);
    expectValues(out, {4, 2, 0});
}

TEST(HostDispatch, SliceReadsStartSizeAndStrideTensors)
{
    for (DataType const type : {DataType::kINT32, DataType::kINT64})
    {
        SCOPED_TRACE(dataTypeName(type));
        HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{2, {4, 5}}, iota(20));
        HostBuffer const start = tensorOf(type, Dims{1, {2}}, {1, 0});
        HostBuffer const size = tensorOf(type, Dims{1, {2}}, {2, 3});
        HostBuffer const stride = tensorOf(type, Dims{1, {2}}, {1, 2});
        HostBuffer out(DataType::kFLOAT, Dims{2, {2, 3}});
        // The static parameters would slice something else: the tensors win.
        SliceParams const params{Dims{1, {0}}, Dims{1, {1}}, Dims{1, {1}}, SampleMode::kSTRICT_BOUNDS, kUnsetDims};
        expectRuns(params, {&in.tensor(), &start.tensor(), &size.tensor(), &stride.tensor()}, out);
        std::vector<double> expected;
        for (int32_t i = 0; i < 2; ++i)
        {
            for (int32_t j = 0; j < 3; ++j)
            {
                expected.push_back((1 + i) * 5 + 2 * j);
            }
        }
        expectValues(out, expected);
    }
}

TEST(HostDispatch, SliceReadsAxesAndFillValue)
{
    // Axes from input 5: only the last axis is sliced (columns 1 and 3).
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{2, {3, 4}}, iota(12));
    HostBuffer const axes = tensorOf(DataType::kINT64, Dims{1, {1}}, {-1});
    HostBuffer out(DataType::kFLOAT, Dims{2, {3, 2}});
    expectRuns(SliceParams{Dims{1, {1}}, Dims{1, {2}}, Dims{1, {2}}, SampleMode::kSTRICT_BOUNDS, kUnsetDims},
        {&in.tensor(), nullptr, nullptr, nullptr, nullptr, &axes.tensor()}, out);
    expectValues(out, {1, 3, 5, 7, 9, 11});

    // kFILL with the fill value from input 4.
    HostBuffer const row = tensorOf(DataType::kFLOAT, Dims{1, {3}}, {1, 2, 3});
    HostBuffer const fill = tensorOf(DataType::kFLOAT, Dims{0, {}}, {9});
    HostBuffer filled(DataType::kFLOAT, Dims{1, {5}});
    expectRuns(SliceParams{Dims{1, {-1}}, Dims{1, {5}}, Dims{1, {1}}, SampleMode::kFILL, kUnsetDims},
        {&row.tensor(), nullptr, nullptr, nullptr, &fill.tensor()}, filled);
    expectValues(filled, {9, 1, 2, 3, 9});
}

TEST(HostDispatch, SliceRefusesUnreadableParameterTensors)
{
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{1, {4}}, iota(4));
    HostBuffer out(DataType::kFLOAT, Dims{1, {2}});
    SliceParams const params{Dims{1, {0}}, Dims{1, {2}}, Dims{1, {1}}, SampleMode::kSTRICT_BOUNDS, kUnsetDims};
    HostBuffer const floating = tensorOf(DataType::kFLOAT, Dims{1, {1}}, {1});
    expectRefused(runLayer(params, {&in.tensor(), &floating.tensor()}, {out.tensor()}), ErrorCode::kINVALID_ARGUMENT,
        "slice: input 1 (start) is kFLOAT; the values a layer reads as parameters are kINT32 or kINT64");
    HostBuffer const matrix = tensorOf(DataType::kINT32, Dims{2, {1, 1}}, {2});
    expectRefused(runLayer(params, {&in.tensor(), nullptr, &matrix.tensor()}, {out.tensor()}),
        ErrorCode::kINVALID_ARGUMENT, "slice: input 2 (size) has shape [1, 1]; it must be 1-D with 0 to 8 values");
    HostBuffer const tooLong = tensorOf(DataType::kINT32, Dims{1, {9}}, iota(9));
    expectRefused(runLayer(params, {&in.tensor(), nullptr, nullptr, &tooLong.tensor()}, {out.tensor()}),
        ErrorCode::kINVALID_ARGUMENT, "input 3 (stride) has shape [9]");
}

TEST(HostDispatch, ShuffleReadsReshapeDimensionsWithPlaceholders)
{
    for (DataType const type : {DataType::kINT32, DataType::kINT64})
    {
        SCOPED_TRACE(dataTypeName(type));
        // [2, 3, 4] reshaped by {0, -1}: 0 copies the 2, -1 infers 12.
        HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{3, {2, 3, 4}}, iota(24));
        HostBuffer const shape = tensorOf(type, Dims{1, {2}}, {0, -1});
        HostBuffer out(DataType::kFLOAT, Dims{2, {2, 12}});
        expectRuns(ShuffleParams{}, {&in.tensor(), &shape.tensor()}, out);
        expectValues(out, iota(24));
        // The inferred shape must be the output's.
        HostBuffer wrong(DataType::kFLOAT, Dims{2, {12, 2}});
        expectRefused(runLayer(ShuffleParams{}, {&in.tensor(), &shape.tensor()}, {wrong.tensor()}),
            ErrorCode::kINVALID_ARGUMENT, "kFLOAT [2, 12]");
    }
}

TEST(HostDispatch, ShuffleHonoursZeroIsPlaceholder)
{
    // [0, 4] reshaped by {2, 0}: a placeholder copies the 4 (8 elements: refused), a literal 0 gives [2, 0].
    HostBuffer const in(DataType::kFLOAT, Dims{2, {0, 4}});
    HostBuffer const shape = tensorOf(DataType::kINT64, Dims{1, {2}}, {2, 0});
    HostBuffer out(DataType::kFLOAT, Dims{2, {2, 0}});
    ShuffleParams literal;
    literal.zeroIsPlaceholder = false;
    expectRuns(literal, {&in.tensor(), &shape.tensor()}, out);
    ShuffleParams placeholder;
    expectRefused(runLayer(placeholder, {&in.tensor(), &shape.tensor()}, {out.tensor()}), ErrorCode::kINVALID_ARGUMENT,
        "the element counts 0 and 8 differ");
}

TEST(HostDispatch, Shape)
{
    HostBuffer const in(DataType::kHALF, Dims{3, {2, 3, 4}});
    HostBuffer out(DataType::kINT64, Dims{1, {3}});
    expectRuns(ShapeParams{}, {&in.tensor()}, out);
    expectValues(out, {2, 3, 4});
}

TEST(HostDispatch, Select)
{
    HostBuffer const condition = tensorOf(DataType::kBOOL, Dims{2, {2, 1}}, {1, 0});
    HostBuffer const thenInput = tensorOf(DataType::kFLOAT, Dims{2, {1, 3}}, {1, 2, 3});
    HostBuffer const elseInput = tensorOf(DataType::kFLOAT, Dims{2, {2, 3}}, {10, 11, 12, 13, 14, 15});
    HostBuffer out(DataType::kFLOAT, Dims{2, {2, 3}});
    expectRuns(SelectParams{}, {&condition.tensor(), &thenInput.tensor(), &elseInput.tensor()}, out);
    expectValues(out, {1, 2, 3, 13, 14, 15});
}

TEST(HostDispatch, QuantizeAndDequantizeWithAndWithoutAZeroPoint)
{
    HostBuffer const x = tensorOf(DataType::kFLOAT, Dims{2, {2, 2}}, {1, -2.5, 3, 7});
    HostBuffer const scale = tensorOf(DataType::kFLOAT, Dims{1, {2}}, {0.5, 2});
    HostBuffer codes(DataType::kINT8, Dims{2, {2, 2}});
    expectRuns(QuantizeParams{1, Dims{-1, {}}, DataType::kINT8}, {&x.tensor(), &scale.tensor()}, codes);
    expectValues(codes, {2, -1, 6, 4}); // 1 / 0.5, -1.25 -> -1, 3 / 0.5, 3.5 -> 4
    HostBuffer const zero = tensorOf(DataType::kINT8, Dims{1, {2}}, {0, 0});
    HostBuffer back(DataType::kHALF, Dims{2, {2, 2}});
    expectRuns(
        DequantizeParams{1, Dims{-1, {}}, DataType::kHALF}, {&codes.tensor(), &scale.tensor(), &zero.tensor()}, back);
    expectValues(back, {1, -2, 3, 8});
    // Input 2 absent (nullptr) is no zero point.
    expectRuns(DequantizeParams{1, Dims{-1, {}}, DataType::kHALF}, {&codes.tensor(), &scale.tensor(), nullptr}, back);
    expectValues(back, {1, -2, 3, 8});
    expectRefused(runLayer(QuantizeParams{}, {&x.tensor()}, {codes.tensor()}), ErrorCode::kINVALID_ARGUMENT,
        "an IQuantizeLayer needs input 1 (scale); the layer does not have it");
    expectRefused(runLayer(DequantizeParams{2, Dims{-1, {}}, DataType::kFLOAT}, {&codes.tensor(), &scale.tensor()},
                      {back.tensor()}),
        ErrorCode::kINVALID_ARGUMENT, "dequantize: axis 2 is outside [-2, 2)");
}

TEST(HostDispatch, ScatterBothModes)
{
    HostBuffer const data = tensorOf(DataType::kFLOAT, Dims{2, {2, 3}}, {1, 2, 3, 4, 5, 6});
    HostBuffer const columns = tensorOf(DataType::kINT32, Dims{2, {2, 1}}, {2, -3});
    HostBuffer const values = tensorOf(DataType::kFLOAT, Dims{2, {2, 1}}, {9, 8});
    HostBuffer out(DataType::kFLOAT, Dims{2, {2, 3}});
    expectRuns(
        ScatterParams{nvinfer1::ScatterMode::kELEMENT, 1}, {&data.tensor(), &columns.tensor(), &values.tensor()}, out);
    expectValues(out, {1, 2, 9, 8, 5, 6});
    HostBuffer const rows = tensorOf(DataType::kINT64, Dims{2, {1, 1}}, {1});
    HostBuffer const row = tensorOf(DataType::kFLOAT, Dims{2, {1, 3}}, {7, 7, 7});
    expectRuns(ScatterParams{nvinfer1::ScatterMode::kND, 0}, {&data.tensor(), &rows.tensor(), &row.tensor()}, out);
    expectValues(out, {1, 2, 3, 7, 7, 7});
    expectRefused(runLayer(ScatterParams{}, {&data.tensor(), &columns.tensor()}, {out.tensor()}),
        ErrorCode::kINVALID_ARGUMENT, "an IScatterLayer needs input 2 (updates); the layer does not have it");
}

TEST(HostDispatch, GridSample)
{
    // [1, 2; 3, 4] at the center (bilinear: 2.5) and at the top-left corner (with align corners: 1).
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{4, {1, 1, 2, 2}}, {1, 2, 3, 4});
    HostBuffer const grid = tensorOf(DataType::kFLOAT, Dims{4, {1, 1, 2, 2}}, {0, 0, -1, -1});
    HostBuffer out(DataType::kFLOAT, Dims{4, {1, 1, 1, 2}});
    GridSampleParams params;
    params.alignCorners = true;
    expectRuns(params, {&in.tensor(), &grid.tensor()}, out);
    expectValues(out, {2.5, 1});
    // Without align corners the corner position is the outer edge of the corner element: a quarter of it (zeros).
    expectRuns(GridSampleParams{}, {&in.tensor(), &grid.tensor()}, out);
    expectValues(out, {2.5, 0.25});
    expectRefused(runLayer(GridSampleParams{}, {&in.tensor()}, {out.tensor()}), ErrorCode::kINVALID_ARGUMENT,
        "an IGridSampleLayer needs input 1 (grid); the layer does not have it");
}

TEST(HostDispatch, ReverseSequence)
{
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{2, {2, 3}}, {1, 2, 3, 4, 5, 6});
    HostBuffer const lengths = tensorOf(DataType::kINT64, Dims{1, {2}}, {2, 3});
    HostBuffer out(DataType::kFLOAT, Dims{2, {2, 3}});
    expectRuns(ReverseSequenceParams{0, 1}, {&in.tensor(), &lengths.tensor()}, out);
    expectValues(out, {2, 1, 3, 6, 5, 4});
    expectRefused(runLayer(ReverseSequenceParams{1, 0}, {&in.tensor(), &lengths.tensor()}, {out.tensor()}),
        ErrorCode::kINVALID_ARGUMENT,
        "reverse sequence: the lengths are kINT64 [2]; they must be kINT32 or kINT64 [3]");
}

TEST(HostDispatch, EinsumWithOneAndTwoInputs)
{
    HostBuffer const a = tensorOf(DataType::kFLOAT, Dims{2, {2, 3}}, {1, 2, 3, 4, 5, 6});
    HostBuffer const b = tensorOf(DataType::kFLOAT, Dims{2, {3, 1}}, {1, 10, 100});
    HostBuffer product(DataType::kFLOAT, Dims{2, {2, 1}});
    expectRuns(EinsumParams{"ij,jk->ik"}, {&a.tensor(), &b.tensor()}, product);
    expectValues(product, {321, 654});
    HostBuffer transposed(DataType::kFLOAT, Dims{2, {3, 2}});
    expectRuns(EinsumParams{"ij->ji"}, {&a.tensor()}, transposed);
    expectValues(transposed, {1, 4, 2, 5, 3, 6});
    expectRefused(runLayer(EinsumParams{"ij,jk->ik"}, {&a.tensor(), &b.tensor(), &b.tensor()}, {product.tensor()}),
        ErrorCode::kINVALID_ARGUMENT, "an IEinsumLayer takes at most 2 input(s); the layer has 3");
    expectRefused(runLayer(EinsumParams{"ij,jk->ik"}, {nullptr, &b.tensor()}, {product.tensor()}),
        ErrorCode::kINVALID_ARGUMENT, "an IEinsumLayer needs input 0 (first)");
}

TEST(HostDispatch, ResizeFromScalesAndFromInputOne)
{
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{2, {2, 2}}, {1, 2, 3, 4});
    ResizeParams params;
    params.mode = nvinfer1::InterpolationMode::kLINEAR;
    params.transformation = nvinfer1::ResizeCoordinateTransformation::kALIGN_CORNERS;
    params.scales = {1.F, 1.5F};
    HostBuffer scaled(DataType::kFLOAT, Dims{2, {2, 3}});
    expectRuns(params, {&in.tensor()}, scaled);
    expectValues(scaled, {1, 1.5, 2, 3, 3.5, 4});
    // Input 1 replaces the scales (and its ratio of extents the scale).
    for (DataType const type : {DataType::kINT32, DataType::kINT64})
    {
        SCOPED_TRACE(dataTypeName(type));
        HostBuffer const shape = tensorOf(type, Dims{1, {2}}, {3, 2});
        HostBuffer out(DataType::kFLOAT, Dims{2, {3, 2}});
        expectRuns(params, {&in.tensor(), &shape.tensor()}, out);
        expectValues(out, {1, 2, 2, 3, 3, 4});
    }
    HostBuffer const floating = tensorOf(DataType::kFLOAT, Dims{1, {2}}, {3, 2});
    HostBuffer out(DataType::kFLOAT, Dims{2, {3, 2}});
    expectRefused(runLayer(params, {&in.tensor(), &floating.tensor()}, {out.tensor()}), ErrorCode::kINVALID_ARGUMENT,
        "resize: input 1 (output shape) is kFLOAT; the values a layer reads as parameters are kINT32 or kINT64");
    HostBuffer const tooShort = tensorOf(DataType::kINT32, Dims{1, {1}}, {3});
    expectRefused(runLayer(params, {&in.tensor(), &tooShort.tensor()}, {out.tensor()}), ErrorCode::kINVALID_ARGUMENT,
        "resize kLINEAR: the output dimensions [3] have 1 extents but the input [2, 2] has rank 2");
}

TEST(HostDispatch, FillWithStaticParameters)
{
    FillParams params;
    params.dims = Dims{1, {4}};
    params.op = nvinfer1::FillOperation::kLINSPACE;
    params.alpha = 1.0;
    params.beta = 0.5;
    HostBuffer out(DataType::kFLOAT, Dims{1, {4}});
    expectRuns(params, {}, out);
    expectValues(out, {1, 1.5, 2, 2.5});
}

TEST(HostDispatch, FillReadsShapeAlphaAndBetaTensors)
{
    for (DataType const type : {DataType::kINT32, DataType::kINT64})
    {
        SCOPED_TRACE(dataTypeName(type));
        FillParams params;
        params.dims = kUnsetDims;
        params.op = nvinfer1::FillOperation::kLINSPACE;
        HostBuffer const shape = tensorOf(type, Dims{1, {2}}, {2, 3});
        HostBuffer const alpha = tensorOf(DataType::kFLOAT, Dims{0, {}}, {2});
        HostBuffer const beta = tensorOf(DataType::kFLOAT, Dims{1, {2}}, {10, 0.5});
        HostBuffer out(DataType::kFLOAT, Dims{2, {2, 3}});
        expectRuns(params, {&shape.tensor(), &alpha.tensor(), &beta.tensor()}, out);
        std::vector<double> expected;
        for (int32_t i = 0; i < 2; ++i)
        {
            for (int32_t j = 0; j < 3; ++j)
            {
                expected.push_back(2 + 10 * i + 0.5 * j);
            }
        }
        expectValues(out, expected);

        // The shape tensor must give the output's shape.
        HostBuffer const other = tensorOf(type, Dims{1, {2}}, {3, 2});
        expectRefused(runLayer(params, {&other.tensor(), &alpha.tensor(), &beta.tensor()}, {out.tensor()}),
            ErrorCode::kINVALID_ARGUMENT,
            "fill: the output has shape [2, 3] but the layer's shape (input 0) is [3, 2]");
    }
}

TEST(HostDispatch, FillWithStaticShapeAndTensorAlphaBeta)
{
    FillParams params;
    params.dims = Dims{1, {3}};
    params.op = nvinfer1::FillOperation::kLINSPACE;
    params.toType = DataType::kINT32;
    HostBuffer const alpha = tensorOf(DataType::kINT32, Dims{1, {1}}, {-4});
    HostBuffer const beta = tensorOf(DataType::kINT32, Dims{1, {1}}, {3});
    HostBuffer out(DataType::kINT32, Dims{1, {3}});
    expectRuns(params, {nullptr, &alpha.tensor(), &beta.tensor()}, out);
    expectValues(out, {-4, -1, 2});
}

// ---- Refusals --------------------------------------------------------------------------------------------------

TEST(HostDispatch, RefusesPluginLayers)
{
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{1, {2}}, {1, 2});
    HostBuffer out(DataType::kFLOAT, Dims{1, {2}});
    expectRefused(runLayer(PluginV2Params{}, {&in.tensor()}, {out.tensor()}), ErrorCode::kUNSUPPORTED_STATE,
        "the host backend does not run plugin layers yet (issue 4)");
    expectRefused(runLayer(PluginV3Params{}, {&in.tensor()}, {out.tensor(), out.tensor()}),
        ErrorCode::kUNSUPPORTED_STATE, "the host backend does not run plugin layers yet (issue 4)");
}

TEST(HostDispatch, RefusesWrongInputCounts)
{
    HostBuffer const a = tensorOf(DataType::kFLOAT, Dims{1, {2}}, {1, 2});
    HostBuffer out(DataType::kFLOAT, Dims{1, {2}});
    expectRefused(
        runLayer(kiln::ElementWiseParams{nvinfer1::ElementWiseOperation::kSUM}, {&a.tensor()}, {out.tensor()}),
        ErrorCode::kINVALID_ARGUMENT, "an IElementWiseLayer needs input 1 (second); the layer does not have it");
    expectRefused(
        runLayer(kiln::UnaryParams{nvinfer1::UnaryOperation::kABS}, {&a.tensor(), &a.tensor()}, {out.tensor()}),
        ErrorCode::kINVALID_ARGUMENT, "an IUnaryLayer takes at most 1 input(s); the layer has 2");
    std::vector<float> values{1.0F, 2.0F};
    expectRefused(runLayer(ConstantParams{Dims{1, {2}}, Weights{DataType::kFLOAT, values.data(), 2}}, {&a.tensor()},
                      {out.tensor()}),
        ErrorCode::kINVALID_ARGUMENT, "an IConstantLayer takes at most 0 input(s); the layer has 1");
    expectRefused(runLayer(SliceParams{}, {nullptr, &a.tensor()}, {out.tensor()}), ErrorCode::kINVALID_ARGUMENT,
        "an ISliceLayer needs input 0 (data); the layer does not have it");
    expectRefused(runLayer(ConcatenationParams{0}, {&a.tensor(), nullptr, &a.tensor()}, {out.tensor()}),
        ErrorCode::kINVALID_ARGUMENT, "an IConcatenationLayer needs input 1 (input)");
    expectRefused(runLayer(ConcatenationParams{0}, {}, {out.tensor()}), ErrorCode::kINVALID_ARGUMENT,
        "an IConcatenationLayer needs input 0 (input)");
    HostBuffer six(DataType::kFLOAT, Dims{1, {6}});
    expectRuns(ConcatenationParams{0}, {&a.tensor(), &a.tensor(), &a.tensor()}, six);
    expectValues(six, {1, 2, 1, 2, 1, 2});
}

TEST(HostDispatch, RefusesWrongOutputCounts)
{
    HostBuffer const a = tensorOf(DataType::kFLOAT, Dims{1, {2}}, {1, 2});
    HostBuffer out(DataType::kFLOAT, Dims{1, {2}});
    expectRefused(runLayer(IdentityParams{}, {&a.tensor()}, {out.tensor(), out.tensor()}), ErrorCode::kINVALID_ARGUMENT,
        "an IIdentityLayer has one output; the layer has 2");
    expectRefused(runLayer(IdentityParams{}, {&a.tensor()}, {}), ErrorCode::kINVALID_ARGUMENT,
        "an IIdentityLayer has one output; the layer has 0");
}

TEST(HostDispatch, RefusesViewsThatDoNotMatchTheLayer)
{
    HostBuffer const a = tensorOf(DataType::kFLOAT, Dims{1, {2}}, {1, 2});
    HostBuffer out(DataType::kFLOAT, Dims{1, {2}});
    EngineModel const model;
    std::unique_ptr<Backend> const backend = makeHostBackend();
    EXPECT_EQ(backend->kind(), PlanBackend::kHOST);
    std::vector<HostTensor> const outputs{out.tensor()};

    LayerRecord layer;
    layer.type = LayerType::kIDENTITY;
    layer.params = IdentityParams{};
    layer.inputs = {0, 1};
    layer.outputs = {2};
    std::vector<HostTensor const*> const one{&a.tensor()};
    expectRefused(backend->runLayer(layer, model, one, outputs, nullptr), ErrorCode::kINVALID_ARGUMENT,
        "the layer has 2 input(s) and 1 output(s) but was given 1 input and 1 output views");

    layer.inputs = {0};
    std::vector<HostTensor const*> const missing{nullptr};
    expectRefused(backend->runLayer(layer, model, missing, outputs, nullptr), ErrorCode::kINVALID_ARGUMENT,
        "input 0 is a tensor of the layer but has no view");
    layer.inputs = {kNoTensor};
    expectRefused(backend->runLayer(layer, model, one, outputs, nullptr), ErrorCode::kINVALID_ARGUMENT,
        "input 0 is absent from the layer but was given a view");

    layer.inputs = {0};
    layer.type = LayerType::kSHUFFLE;
    expectRefused(backend->runLayer(layer, model, one, outputs, nullptr), ErrorCode::kINVALID_ARGUMENT,
        "the layer is an IShuffleLayer but its parameters are an IIdentityLayer's");

    // A kernel's own error comes back unchanged.
    layer.type = LayerType::kIDENTITY;
    HostBuffer longer(DataType::kFLOAT, Dims{1, {3}});
    std::vector<HostTensor> const wrongShape{longer.tensor()};
    expectRefused(backend->runLayer(layer, model, one, wrongShape, nullptr), ErrorCode::kINVALID_ARGUMENT,
        "identity: the output has shape [3] but the input has [2]");
}

// ---- Build-time checks -----------------------------------------------------------------------------------------

using Answer = Expected<std::optional<TensorDesc>>;

//! An input of a query whose values are known only at run time. (Two overloads rather than a defaulted
//! std::optional parameter: g++ 12 at -O2 under ASan warns that moving a disengaged optional<vector> reads it.)
LayerQuery::Input queried(DataType type, Dims const& dims)
{
    LayerQuery::Input input;
    input.desc = TensorDesc{type, dims};
    return input;
}

//! An input of a query with the values the build knows.
LayerQuery::Input queried(DataType type, Dims const& dims, std::vector<int64_t> values)
{
    LayerQuery::Input input = queried(type, dims);
    input.values = std::move(values);
    return input;
}

//! What the host backend answers for a layer with params, inputs (nullopt where absent) and one output of outputType.
Answer checkLayer(LayerParams const& params, std::vector<std::optional<LayerQuery::Input>> inputs,
    DataType outputType = DataType::kFLOAT)
{
    LayerQuery query;
    query.inputs = std::move(inputs);
    query.outputTypes = {outputType};
    return makeHostBackend()->checkLayer(params, query);
}

//! Expects answer to be an output of type and dims.
void expectMakes(Answer const& answer, DataType type, Dims const& dims)
{
    ASSERT_TRUE(answer.ok()) << answer.error().message;
    ASSERT_TRUE(answer.value().has_value()) << "no answer: it waits for run-time values";
    EXPECT_EQ(answer.value()->type, type) << dataTypeName(answer.value()->type);
    EXPECT_TRUE(sameShape(answer.value()->dims, dims)) << shapeString(answer.value()->dims);
}

//! Expects answer to wait for values known only at run time.
void expectWaits(Answer const& answer)
{
    ASSERT_TRUE(answer.ok()) << answer.error().message;
    EXPECT_FALSE(answer.value().has_value()) << shapeString(answer.value()->dims);
}

TEST(HostCheck, RefusesWhatRunLayerWouldRefuse)
{
    // The kernel's own refusal.
    expectRefused(checkLayer(SoftMaxParams{1U << 1U}, {queried(DataType::kINT32, Dims{2, {1, 3}})}, DataType::kINT32),
        ErrorCode::kINVALID_ARGUMENT, "softmax: does not accept kINT32 inputs (it takes ");
    // The kind's.
    expectRefused(checkLayer(PluginV2Params{}, {queried(DataType::kFLOAT, Dims{1, {2}})}),
        ErrorCode::kUNSUPPORTED_STATE, "the host backend does not run plugin layers yet (issue 4)");
    expectRefused(checkLayer(kiln::ElementWiseParams{nvinfer1::ElementWiseOperation::kSUM},
                      {queried(DataType::kFLOAT, Dims{1, {2}}), std::nullopt}),
        ErrorCode::kINVALID_ARGUMENT, "an IElementWiseLayer needs input 1 (second); the layer does not have it");
    LayerQuery twoOutputs;
    twoOutputs.inputs = {queried(DataType::kFLOAT, Dims{1, {2}})};
    twoOutputs.outputTypes = {DataType::kFLOAT, DataType::kFLOAT};
    expectRefused(makeHostBackend()->checkLayer(IdentityParams{}, twoOutputs), ErrorCode::kINVALID_ARGUMENT,
        "an IIdentityLayer has one output; the layer has 2");
    // An input read as values that cannot be, whether or not its values are known.
    SliceParams const slice{Dims{1, {0}}, Dims{1, {2}}, Dims{1, {1}}, SampleMode::kSTRICT_BOUNDS, kUnsetDims};
    expectRefused(checkLayer(slice, {queried(DataType::kFLOAT, Dims{1, {4}}), queried(DataType::kFLOAT, Dims{1, {1}})}),
        ErrorCode::kINVALID_ARGUMENT,
        "slice: input 1 (start) is kFLOAT; the values a layer reads as parameters are kINT32 or kINT64");
    // Weights and a tensor for the same operand.
    std::vector<float> weights(4, 1.0F);
    ConvolutionParams convolution = convolutionParams(1, 2, 2, 1);
    convolution.kernel = Weights{DataType::kFLOAT, weights.data(), 4};
    expectRefused(
        checkLayer(convolution,
            {queried(DataType::kFLOAT, Dims{4, {1, 1, 2, 2}}), queried(DataType::kFLOAT, Dims{4, {1, 1, 2, 2}})}),
        ErrorCode::kINVALID_ARGUMENT, "convolution: input 1 gives the kernel, so the kernel weights must be empty");
}

TEST(HostCheck, WaitsForValuesKnownOnlyAtRunTime)
{
    SliceParams const slice{Dims{1, {0}}, Dims{1, {1}}, Dims{1, {1}}, SampleMode::kSTRICT_BOUNDS, kUnsetDims};
    Dims const row{1, {6}};
    expectWaits(
        checkLayer(slice, {queried(DataType::kFLOAT, row), std::nullopt, queried(DataType::kINT32, Dims{1, {1}})}));
    expectMakes(checkLayer(slice,
                    {queried(DataType::kFLOAT, row), std::nullopt, queried(DataType::kINT32, Dims{1, {1}}, {{4}})}),
        DataType::kFLOAT, Dims{1, {4}});

    Dims const cube{3, {2, 3, 4}};
    expectWaits(
        checkLayer(ShuffleParams{}, {queried(DataType::kFLOAT, cube), queried(DataType::kINT64, Dims{1, {2}})}));
    expectMakes(checkLayer(ShuffleParams{},
                    {queried(DataType::kFLOAT, cube), queried(DataType::kINT64, Dims{1, {2}}, {{0, -1}})}),
        DataType::kFLOAT, Dims{2, {2, 12}});

    ResizeParams resize;
    resize.scales = {2.F, 2.F, 2.F};
    expectMakes(checkLayer(resize, {queried(DataType::kFLOAT, cube)}), DataType::kFLOAT, Dims{3, {4, 6, 8}});
    expectWaits(checkLayer(resize, {queried(DataType::kFLOAT, cube), queried(DataType::kINT64, Dims{1, {3}})}));
    expectMakes(
        checkLayer(resize, {queried(DataType::kFLOAT, cube), queried(DataType::kINT64, Dims{1, {3}}, {{1, 1, 9}})}),
        DataType::kFLOAT, Dims{3, {1, 1, 9}});

    FillParams fill;
    fill.op = nvinfer1::FillOperation::kRANDOM_UNIFORM;
    fill.dims = kUnsetDims;
    expectWaits(checkLayer(fill, {queried(DataType::kINT32, Dims{1, {2}})}));
    expectMakes(
        checkLayer(fill, {queried(DataType::kINT32, Dims{1, {2}}, {{2, 3}})}), DataType::kFLOAT, Dims{2, {2, 3}});
}

TEST(HostCheck, ResolvesPaddingAsRunLayerDoes)
{
    // A 3x3 window with stride 2 on 5x5: kSAME_UPPER gives ceil(5 / 2) = 3, explicit zero padding floor(2 / 2) + 1 = 2.
    std::vector<float> weights(2 * 9, 1.0F);
    ConvolutionParams convolution = convolutionParams(2, 3, 3, 2);
    convolution.kernel = Weights{DataType::kFLOAT, weights.data(), 18};
    LayerQuery::Input const image = queried(DataType::kFLOAT, Dims{4, {1, 1, 5, 5}});
    expectMakes(checkLayer(convolution, {image}), DataType::kFLOAT, Dims{4, {1, 2, 2, 2}});
    convolution.paddingMode = PaddingMode::kSAME_UPPER;
    expectMakes(checkLayer(convolution, {image}), DataType::kFLOAT, Dims{4, {1, 2, 3, 3}});
    // The kernel as a tensor: its type and shape are enough.
    ConvolutionParams tensorKernel = convolutionParams(2, 3, 3, 2);
    tensorKernel.paddingMode = PaddingMode::kSAME_UPPER;
    expectMakes(checkLayer(tensorKernel, {image, queried(DataType::kFLOAT, Dims{4, {2, 1, 3, 3}})}), DataType::kFLOAT,
        Dims{4, {1, 2, 3, 3}});

    PoolingParams pooling;
    pooling.type = nvinfer1::PoolingType::kMAX;
    pooling.windowSize = Dims{2, {2, 2}};
    pooling.stride = Dims{2, {2, 2}};
    pooling.paddingMode = PaddingMode::kSAME_UPPER;
    expectMakes(checkLayer(pooling, {image}), DataType::kFLOAT, Dims{4, {1, 1, 3, 3}});
    // What resolvePadding refuses, named as at run time.
    pooling.stride = Dims{1, {2}};
    expectRefused(checkLayer(pooling, {image}), ErrorCode::kINVALID_ARGUMENT, "pooling: padding: stride [2] has 1");
}

TEST(HostCheck, TopKWaitsForKAndChecksTheIndicesType)
{
    auto const check
        = [](TopKParams const& params, std::vector<std::optional<LayerQuery::Input>> inputs, DataType indicesType) {
              LayerQuery query;
              query.inputs = std::move(inputs);
              query.outputTypes = {DataType::kHALF, indicesType};
              return makeHostBackend()->checkLayer(params, query);
          };
    LayerQuery::Input const data = queried(DataType::kHALF, Dims{2, {3, 5}});
    TopKParams const params{nvinfer1::TopKOperation::kMIN, 2, 0b10U, DataType::kINT64};
    expectMakes(check(params, {data}, DataType::kINT64), DataType::kHALF, Dims{2, {3, 2}});
    expectWaits(check(params, {data, queried(DataType::kINT32, Dims{0, {}})}, DataType::kINT64));
    expectMakes(check(params, {data, queried(DataType::kINT32, Dims{0, {}}, {{4}})}, DataType::kINT64), DataType::kHALF,
        Dims{2, {3, 4}});
    expectRefused(check(params, {data, queried(DataType::kINT32, Dims{0, {}}, {{4, 5}})}, DataType::kINT64),
        ErrorCode::kINVALID_ARGUMENT, "topk: input 1 (k) is 0-D but has 2 values");
    expectRefused(check(params, {data}, DataType::kINT32), ErrorCode::kINVALID_ARGUMENT,
        "topk: output 1 (indices) is kINT32 but the kernel makes kINT64 (the layer's indices type)");
    expectRefused(check(params, {queried(DataType::kBOOL, Dims{2, {3, 5}})}, DataType::kINT64),
        ErrorCode::kINVALID_ARGUMENT, "topk: does not accept kBOOL inputs");
}

TEST(HostDispatch, NonZeroWritesIndicesAndTheCount)
{
    HostBuffer const data = tensorOf(DataType::kFLOAT, Dims{2, {2, 3}}, {0, 2, 0, -1, 0, 3});
    HostBuffer indices(DataType::kINT64, Dims{2, {2, 6}}); // room for every element
    HostBuffer count(DataType::kINT64, Dims{0, {}});
    Status const done = runLayer(NonZeroParams{DataType::kINT64}, {&data.tensor()}, {indices.tensor(), count.tensor()});
    ASSERT_TRUE(done.ok()) << done.error().message;
    expectValues(count, {3});
    std::vector<int64_t> const expected{0, 1, 1, 1, 0, 2}; // rows then columns of [2, 3], compact
    for (std::size_t k = 0; k < expected.size(); ++k)
    {
        EXPECT_EQ(decodeInteger(DataType::kINT64, bytesOf(indices), static_cast<int64_t>(k)), expected[k]);
    }
    expectRefused(runLayer(NonZeroParams{DataType::kINT64}, {&data.tensor()}, {indices.tensor()}),
        ErrorCode::kINVALID_ARGUMENT, "an INonZeroLayer has 2 outputs; the layer has 1");
}

TEST(HostDispatch, NmsReadsItsScalarInputs)
{
    HostBuffer const boxes = tensorOf(DataType::kFLOAT, Dims{3, {1, 3, 4}}, {0, 0, 1, 1, 0, 0.5, 1, 1.5, 5, 5, 6, 6});
    HostBuffer const scores = tensorOf(DataType::kFLOAT, Dims{3, {1, 3, 1}}, {0.9, 0.8, 0.7});
    HostBuffer const limit = tensorOf(DataType::kINT32, Dims{0, {}}, {3});
    HostBuffer const iou = tensorOf(DataType::kFLOAT, Dims{0, {}}, {0.5});
    HostBuffer const score = tensorOf(DataType::kFLOAT, Dims{0, {}}, {0.75});
    HostBuffer rows(DataType::kINT32, Dims{2, {3, 3}});
    HostBuffer count(DataType::kINT32, Dims{0, {}});
    NMSParams const params;
    // Without thresholds: the IoU threshold 0 suppresses box 1 (IoU 1/3 with box 0); box 2 does not overlap.
    Status done
        = runLayer(params, {&boxes.tensor(), &scores.tensor(), &limit.tensor()}, {rows.tensor(), count.tensor()});
    ASSERT_TRUE(done.ok()) << done.error().message;
    expectValues(count, {2});
    EXPECT_EQ(decodeInteger(DataType::kINT32, bytesOf(rows), 5), 2);
    // The IoU threshold 0.5 keeps box 1; the score threshold 0.75 drops box 2.
    done = runLayer(params, {&boxes.tensor(), &scores.tensor(), &limit.tensor(), &iou.tensor(), &score.tensor()},
        {rows.tensor(), count.tensor()});
    ASSERT_TRUE(done.ok()) << done.error().message;
    expectValues(count, {2});
    EXPECT_EQ(decodeInteger(DataType::kINT32, bytesOf(rows), 2), 0);
    EXPECT_EQ(decodeInteger(DataType::kINT32, bytesOf(rows), 5), 1);
    expectRefused(runLayer(params, {&boxes.tensor(), &scores.tensor(), &limit.tensor(), &limit.tensor()},
                      {rows.tensor(), count.tensor()}),
        ErrorCode::kINVALID_ARGUMENT, "nms: the IoU threshold is kINT32 []; it must be a 0-D kFLOAT tensor");
}

TEST(HostCheck, NonZeroAndNmsCheckTypesButWaitForTheirCount)
{
    LayerQuery nonZero;
    nonZero.inputs = {queried(DataType::kHALF, Dims{2, {3, 5}})};
    nonZero.outputTypes = {DataType::kINT32, DataType::kINT64};
    expectWaits(makeHostBackend()->checkLayer(NonZeroParams{DataType::kINT32}, nonZero));
    expectRefused(makeHostBackend()->checkLayer(NonZeroParams{DataType::kINT64}, nonZero), ErrorCode::kINVALID_ARGUMENT,
        "non-zero: the outputs are kINT32 and kINT64 but the kernel makes kINT64");
    nonZero.inputs = {queried(DataType::kUINT8, Dims{1, {3}})};
    expectRefused(makeHostBackend()->checkLayer(NonZeroParams{DataType::kINT32}, nonZero), ErrorCode::kINVALID_ARGUMENT,
        "non-zero: does not take kUINT8 inputs");

    LayerQuery nms;
    nms.inputs = {queried(DataType::kFLOAT, Dims{3, {1, 4, 4}}), queried(DataType::kFLOAT, Dims{3, {1, 4, 2}}),
        queried(DataType::kINT32, Dims{0, {}})};
    nms.outputTypes = {DataType::kINT32, DataType::kINT32};
    expectWaits(makeHostBackend()->checkLayer(NMSParams{}, nms));
    nms.inputs[1] = queried(DataType::kFLOAT, Dims{3, {1, 5, 2}});
    expectRefused(makeHostBackend()->checkLayer(NMSParams{}, nms), ErrorCode::kINVALID_ARGUMENT,
        "nms: the boxes [1, 4, 4] and scores [1, 5, 2] do not fit");
    nms.inputs[1] = queried(DataType::kFLOAT, Dims{3, {1, 4, 2}});
    nms.inputs[2] = queried(DataType::kFLOAT, Dims{0, {}});
    expectRefused(makeHostBackend()->checkLayer(NMSParams{}, nms), ErrorCode::kINVALID_ARGUMENT,
        "nms: MaxOutputBoxesPerClass is kFLOAT []");
}

TEST(HostCheck, IdentityMakesTheOutputTypeTheNetworkAsks)
{
    LayerQuery::Input const in = queried(DataType::kFLOAT, Dims{1, {2}});
    expectMakes(checkLayer(IdentityParams{}, {in}), DataType::kFLOAT, Dims{1, {2}});
    expectMakes(checkLayer(IdentityParams{}, {in}, DataType::kHALF), DataType::kHALF, Dims{1, {2}});
}

} // namespace
} // namespace kiln::host::test
