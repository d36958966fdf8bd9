// SPDX-License-Identifier: Apache-2.0
// The cuDNN convolution (backends/cuda/convolution.cpp) against the host reference, with every tactic, on random 2-D
// and 3-D shapes with groups, strides, dilations, asymmetric padding (both the cases cuDNN's symmetric padding covers
// and those that need a padded copy) and bias, in FP32, FP16, BF16 and INT8; kernels of another type than the input;
// empty inputs and outputs; a fused activation against the host convolution followed by the host activation; layers
// large enough for tensor cores; channels-last layouts (kHWC8, kDHWC8 with KRSC kernels; a stem's 3 input channels
// padded to 8) against the host's linear convolution through the host reformat kernel; a fused residual against the
// host's convolution, sum and activation; the per-geometry cache (a repeated run prepares nothing new); and the
// refusals with their messages.
#include "cuda_test_util.h"

#include "backends/cuda/libraries.h"
#include "backends/host/activation.h"
#include "backends/host/convolution.h"
#include "backends/host/elementwise.h"
#include "backends/host/reformat.h"

#include <chrono>
#include <cstdio>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace kiln::cuda::test
{
namespace
{

//! One convolution: shapes, window, and the operands' types.
struct Case
{
    DataType type{DataType::kFLOAT};
    int64_t batch{1};
    int64_t channels{1};
    int64_t maps{1};
    int64_t groups{1};
    std::vector<int64_t> in, kernel, stride, dilation, pre, post;
    bool bias{false};
    std::optional<DataType> kernelType; //!< The kernel tensor's type when not the input's.
    DataType biasType{DataType::kFLOAT};
    std::optional<ActivationParams> activation; //!< A fused activation.
    float int8OutScale{0.1F};                   //!< The output's scale for kINT8.
    bool channelsLast{false};                   //!< Input and output in kHWC8 (kDHWC8 for 3-D), the kernel KRSC.
    bool residual{false}; //!< A fused residual of the output's type, shape and format, added before the activation.
};

using Extents = std::vector<int64_t>;

//! A case with the input's type for the kernel and a float bias (when bias).
Case make(DataType type, int64_t batch, int64_t channels, int64_t maps, int64_t groups, Extents in, Extents kernel,
    Extents stride, Extents dilation, Extents pre, Extents post, bool bias)
{
    Case c;
    c.type = type;
    c.batch = batch;
    c.channels = channels;
    c.maps = maps;
    c.groups = groups;
    c.in = std::move(in);
    c.kernel = std::move(kernel);
    c.stride = std::move(stride);
    c.dilation = std::move(dilation);
    c.pre = std::move(pre);
    c.post = std::move(post);
    c.bias = bias;
    return c;
}

Dims toDims(std::vector<int64_t> const& v)
{
    Dims d{static_cast<int32_t>(v.size()), {}};
    std::copy(v.begin(), v.end(), d.d);
    return d;
}

std::string describe(Case const& c)
{
    auto const list = [](std::vector<int64_t> const& v) { return host::shapeString(toDims(v)); };
    return std::string(dataTypeName(c.type)) + " N " + std::to_string(c.batch) + " C " + std::to_string(c.channels)
        + " K " + std::to_string(c.maps) + " G " + std::to_string(c.groups) + " in " + list(c.in) + " kernel "
        + list(c.kernel) + " stride " + list(c.stride) + " dilation " + list(c.dilation) + " pre " + list(c.pre)
        + " post " + list(c.post) + (c.bias ? " bias" : "")
        + (c.kernelType ? std::string(" kernel type ") + dataTypeName(*c.kernelType) : "")
        + (c.activation ? std::string(" activation ") + host::findActivation(c.activation->type)->name + " "
                    + std::to_string(c.activation->alpha) + " " + std::to_string(c.activation->beta)
                        : "")
        + (c.channelsLast ? " channels-last" : "");
}

//! A copy of t (kLINEAR) laid out in format, through the host reformat kernel.
HostBuffer reformatted(HostTensor const& t, nvinfer1::TensorFormat from, nvinfer1::TensorFormat to)
{
    HostBuffer copy(t.type, t.dims, t.scale);
    Status const done = host::reformat(t, from, copy.tensor(), to);
    EXPECT_TRUE(done.ok()) << done.error().message;
    return copy;
}

//! A copy of a [K, C, spatial...] kernel whose elements are KRSC ([K, spatial..., C'] in memory), its dims [K, C',
//! spatial...]: C' = storedChannels (0: C), the channels a padded channels-last input stores, the extra ones zero.
HostBuffer channelsLastKernel(HostTensor const& kernel, int64_t storedChannels = 0)
{
    int64_t const maps = kernel.dims.d[0];
    int64_t const channels = kernel.dims.d[1];
    int64_t const stored = std::max(storedChannels, channels);
    Dims dims = kernel.dims;
    dims.d[1] = stored;
    HostBuffer krsc(kernel.type, dims, kernel.scale);
    int64_t const count = host::elementCount(kernel);
    int64_t const spatial = maps * channels == 0 ? 0 : count / (maps * channels);
    auto const size = static_cast<std::size_t>(storageBytes(kernel.type, 1));
    auto const* from = static_cast<std::byte const*>(kernel.data);
    auto* to = static_cast<std::byte*>(krsc.tensor().data);
    for (int64_t k = 0; k < maps; ++k)
    {
        for (int64_t c = 0; c < channels; ++c)
        {
            for (int64_t s = 0; s < spatial; ++s)
            {
                std::memcpy(to + static_cast<std::size_t>((k * spatial + s) * stored + c) * size,
                    from + static_cast<std::size_t>((k * channels + c) * spatial + s) * size, size);
            }
        }
    }
    return krsc;
}

//! The channels-last format of a convolution with nbSpatial axes.
nvinfer1::TensorFormat channelsLastFormat(std::size_t nbSpatial)
{
    return nbSpatial == 3 ? nvinfer1::TensorFormat::kDHWC8 : nvinfer1::TensorFormat::kHWC8;
}

//! The tolerance factor for reductions of length r: as the matrix multiply test argues, float accumulation loses
//! about u * r (u = 2^-24) for products of inputs in [-2, 2] and [-1, 1]. cuDNN's FFT and Winograd algorithms
//! transform the operands in float and lose more: on an H200 the worst float tactic erred by 12.5 times the plain
//! kFLOAT tolerance at r = 288, where 64 * u * r allows 110 times. FloatIsNotComputedInTf32 checks separately that no
//! tactic rounds its operands to TF32, which a tolerance this wide would not notice at large r.
double reductionExtra(DataType type, int64_t r)
{
    return 1.0 + 64.0 * std::ldexp(1.0, -24) * static_cast<double>(r) / tolerance(type);
}

class CudaConvolution : public CudaKernelTest
{
protected:
    //! The tactics of the last check(): every one of them ran and matched the host.
    ConvolutionTacticCounts mCounts;

    //! One convolution on the device, with every tactic, against the host reference.
    void check(Case const& c)
    {
        SCOPED_TRACE(describe(c));
        bool const int8 = c.type == DataType::kINT8;
        DataType const kernelType = c.kernelType.value_or(c.type);
        ConvolutionParams params;
        params.nbOutputMaps = c.maps;
        params.nbGroups = c.groups;
        params.kernelSize = toDims(c.kernel);
        params.stride = toDims(c.stride);
        params.dilation = toDims(c.dilation);
        params.prePadding = toDims(c.pre);
        params.postPadding = toDims(c.post);

        std::vector<int64_t> inShape{c.batch, c.channels};
        inShape.insert(inShape.end(), c.in.begin(), c.in.end());
        std::vector<int64_t> kernelShape{c.maps, c.groups == 0 ? 0 : c.channels / c.groups};
        kernelShape.insert(kernelShape.end(), c.kernel.begin(), c.kernel.end());
        HostBuffer input(c.type, toDims(inShape), int8 ? 0.05F : 1.0F);
        HostBuffer kernel(kernelType, toDims(kernelShape), kernelType == DataType::kINT8 ? 0.02F : 1.0F);
        HostBuffer bias(c.biasType, Dims{1, {c.maps}});
        randomize(input, mRng, -2.0, 2.0);
        randomize(kernel, mRng, -1.0, 1.0);
        randomize(bias, mRng, -1.0, 1.0);
        if (kernelType == DataType::kFLOAT && (c.type == DataType::kHALF || c.type == DataType::kBF16))
        {
            // An engine converts float weights to the convolution's type before cuDNN reads them; the host computes
            // with the weights as given. Values the type holds exactly make both read the same weights.
            HostBuffer rounded(c.type, kernel.tensor().dims);
            for (int64_t i = 0; i < host::elementCount(kernel.tensor().dims); ++i)
            {
                host::storeFloat(rounded.tensor(), i, host::loadFloat(kernel.tensor(), i));
                host::storeFloat(kernel.tensor(), i, host::loadFloat(rounded.tensor(), i));
            }
        }

        // The host takes a kernel tensor of the input's type, and other types as Weights (kINT8 with its scale).
        host::ConvolutionOperands operands;
        ConvolutionParams hostParams = params;
        if (kernelType == c.type)
        {
            operands.kernel = &kernel.tensor();
        }
        else
        {
            hostParams.kernel
                = nvinfer1::Weights{kernelType, kernel.tensor().data, host::elementCount(kernel.tensor().dims)};
            if (kernelType == DataType::kINT8)
            {
                operands.kernelScales = {kernel.tensor().scale};
            }
        }
        operands.bias = c.bias ? &bias.tensor() : nullptr;
        Expected<host::TensorDesc> const desc
            = host::inferConvolution(hostParams, {c.type, input.tensor().dims}, operands);
        ASSERT_TRUE(desc.ok()) << desc.error().message;
        HostBuffer expected(c.type, desc.value().dims, int8 ? c.int8OutScale : 1.0F);
        Status const reference = host::runConvolution(hostParams, input.tensor(), expected.tensor(), operands);
        ASSERT_TRUE(reference.ok()) << reference.error().message;
        // A residual: the host's sum layer after the convolution (each rounded to the type), before the activation.
        HostBuffer residual(c.type, desc.value().dims, expected.tensor().scale);
        // The host rounds the convolution before adding the residual, the device does not: where the sum cancels, they
        // differ by up to half an ulp of the convolution's largest value, beyond the tolerance relative to the sum.
        double residualExtra = 0.0;
        if (c.residual)
        {
            double largest = 0.0;
            for (int64_t i = 0; i < host::elementCount(expected.tensor()); ++i)
            {
                largest = std::max(largest, std::fabs(host::loadFloat(expected.tensor(), i)));
            }
            double const unit = c.type == DataType::kHALF ? 0x1p-11 : c.type == DataType::kBF16 ? 0x1p-8 : 0x1p-24;
            residualExtra = unit * largest / tolerance(c.type);
            randomize(residual, mRng, -2.0, 2.0);
            Status const added = host::runElementWise(
                {nvinfer1::ElementWiseOperation::kSUM}, expected.tensor(), residual.tensor(), expected.tensor());
            ASSERT_TRUE(added.ok()) << added.error().message;
        }
        ActivationParams const* activation = c.activation ? &*c.activation : nullptr;
        if (activation != nullptr)
        {
            // The host's layers: the convolution's output (rounded to its type), then the activation on it.
            Status const activated = host::runActivation(
                {activation->type, activation->alpha, activation->beta}, expected.tensor(), expected.tensor());
            ASSERT_TRUE(activated.ok()) << activated.error().message;
        }

        // A channels-last run reads the input in kHWC8 (kDHWC8) and the kernel KRSC, and writes its output in the same
        // format, which the host reformat kernel turns back to kLINEAR before comparing.
        nvinfer1::TensorFormat const format
            = c.channelsLast ? channelsLastFormat(c.in.size()) : nvinfer1::TensorFormat::kLINEAR;
        ConvolutionLayout const layout{format, format, c.channelsLast, format};
        // The input as its format stores it: kHWC8 pads a channel count that is not a multiple of 8 (the stem's 3),
        // and the kernel then has as many channels (kernels.h, ConvolutionLayout).
        FormattedBuffer const deviceInput = formatted(input.tensor(), format);
        Expected<host::FormatLayout> const stored = host::formatLayout(format, c.type, input.tensor().dims);
        ASSERT_TRUE(stored.ok()) << stored.error().message;
        int64_t const storedChannels = c.groups > 0 ? stored.value().paddedChannels / c.groups : 0;
        DeviceBuffer const dresidual
            = DeviceBuffer::upload(reformatted(residual.tensor(), nvinfer1::TensorFormat::kLINEAR, format).tensor());
        HostTensor const* const shortcut = c.residual ? &dresidual.tensor() : nullptr;
        HostBuffer const deviceKernel = c.channelsLast
            ? channelsLastKernel(kernel.tensor(), storedChannels)
            : reformatted(kernel.tensor(), nvinfer1::TensorFormat::kLINEAR, nvinfer1::TensorFormat::kLINEAR);
        DeviceBuffer const dinStorage = DeviceBuffer::upload(deviceInput.storage.tensor());
        HostTensor const din{dinStorage.tensor().data, c.type, input.tensor().dims, input.tensor().scale};
        DeviceBuffer const dkernel = DeviceBuffer::upload(deviceKernel.tensor());
        DeviceBuffer const dbias = DeviceBuffer::upload(bias.tensor());
        DeviceBuffer const dout(expected.tensor());
        mCounts = countConvolutionTactics(
            params, din, c.bias ? &dbias.tensor() : nullptr, dout.tensor(), activation, *mLibraries, layout, shortcut);
        int32_t const tactics = mCounts.legacy + mCounts.graph + mCounts.narrowed;
        EXPECT_EQ(tactics,
            nbConvolutionTactics(params, din, c.bias ? &dbias.tensor() : nullptr, dout.tensor(), activation,
                *mLibraries, layout, shortcut));
        EXPECT_GE(tactics, 1);
        EXPECT_LE(tactics, 48); // 16 of the legacy API, 8 of the graph API, as many again on narrowed channels
        // Each variant has its own name (what the plan records): the legacy ones first, then the graph ones, then the
        // narrowed ones.
        TacticNames const names = convolutionTacticNames(
            params, din, c.bias ? &dbias.tensor() : nullptr, dout.tensor(), activation, *mLibraries, layout, shortcut);
        ASSERT_EQ(static_cast<int32_t>(names.size()), tactics);
        std::set<std::string> const distinct(names.begin(), names.end());
        EXPECT_EQ(distinct.size(), names.size())
            << ::testing::PrintToString(std::vector<std::string>(names.begin(), names.end()));
        for (int32_t t = 0; t < tactics; ++t)
        {
            std::string const prefix = t < mCounts.legacy ? "cudnn forward algo "
                : t < mCounts.legacy + mCounts.graph      ? "cudnn graph engine "
                                                          : "input channels narrowed from 8 to 4: cudnn ";
            if (names[0] != "kiln default convolution") // An empty problem's one variant.
            {
                EXPECT_EQ(names[static_cast<std::size_t>(t)].rfind(prefix, 0), 0U)
                    << "tactic " << t << ": " << names[static_cast<std::size_t>(t)];
            }
        }
        int64_t const reduction = std::accumulate(
            c.kernel.begin(), c.kernel.end(), c.groups == 0 ? int64_t{0} : c.channels / c.groups, std::multiplies<>());
        int64_t const bytes = storageBytes(c.type, host::elementCount(expected.tensor()));
        for (int32_t tactic = 0; tactic < tactics; ++tactic)
        {
            // NaN everywhere first (0xFF bytes in the floating types), so that an element left unwritten fails.
            ASSERT_EQ(cudaMemsetAsync(dout.tensor().data, 0xFF, static_cast<size_t>(bytes), mStream), cudaSuccess);
            Status const done = runConvolution(params, din, dkernel.tensor(), c.bias ? &dbias.tensor() : nullptr,
                activation, dout.tensor(), launch(tactic), layout, shortcut);
            ASSERT_TRUE(done.ok()) << "tactic " << tactic << ": " << done.error().message;
            HostBuffer const result = dout.download(mStream);
            expectNear(reformatted(result.tensor(), format, nvinfer1::TensorFormat::kLINEAR), expected,
                int8 ? 1.0 : reductionExtra(c.type, reduction) + residualExtra, "tactic " + std::to_string(tactic));
        }
    }

    int64_t draw(int64_t lo, int64_t hi)
    {
        return lo + static_cast<int64_t>(mRng() % static_cast<uint64_t>(hi - lo + 1));
    }

    //! A random case of type with nbSpatial axes; padding drawn independently before and after.
    Case randomCase(DataType type, int32_t nbSpatial)
    {
        Case c;
        c.type = type;
        c.batch = draw(1, 2);
        c.groups = draw(1, 3);
        c.channels = c.groups * draw(1, 4);
        c.maps = c.groups * draw(1, 3);
        c.bias = mRng() % 2 == 0;
        for (int32_t i = 0; i < nbSpatial; ++i)
        {
            int64_t const k = draw(1, nbSpatial == 2 ? 5 : 3);
            int64_t const d = draw(1, 2);
            int64_t const pre = draw(0, 3);
            int64_t const post = draw(0, 3);
            int64_t const span = 1 + d * (k - 1);
            c.kernel.push_back(k);
            c.dilation.push_back(d);
            c.stride.push_back(draw(1, 3));
            c.pre.push_back(pre);
            c.post.push_back(post);
            c.in.push_back(std::max<int64_t>(1, span - pre - post + draw(0, nbSpatial == 2 ? 9 : 4)));
        }
        return c;
    }
};

constexpr DataType kTypes[] = {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8};

TEST_F(CudaConvolution, Random2dEveryTypeEveryTactic)
{
    for (DataType const type : kTypes)
    {
        for (int32_t trial = 0; trial < 12; ++trial)
        {
            check(randomCase(type, 2));
            if (HasFatalFailure())
            {
                return;
            }
        }
    }
}

TEST_F(CudaConvolution, Random3dEveryTypeEveryTactic)
{
    for (DataType const type : kTypes)
    {
        for (int32_t trial = 0; trial < 6; ++trial)
        {
            check(randomCase(type, 3));
            if (HasFatalFailure())
            {
                return;
            }
        }
    }
}

TEST_F(CudaConvolution, AsymmetricPadding)
{
    for (DataType const type : kTypes)
    {
        // kSAME_UPPER of a 3x3 stride-2 window on an even input: pre 0, post 1, and the post padding makes an output,
        // so the input is copied with a zero row and column after it.
        check(make(type, 1, 3, 4, 1, {8, 6}, {3, 3}, {2, 2}, {1, 1}, {0, 0}, {1, 1}, true));
        // pre > post with an output that symmetric padding would add: a copy with zeros before.
        check(make(type, 2, 2, 3, 1, {5, 7}, {3, 2}, {1, 1}, {1, 1}, {2, 1}, {0, 0}, false));
        // pre < post where the extra post padding makes no output (kEXPLICIT_ROUND_UP's kind): no copy.
        check(make(type, 1, 2, 2, 1, {7, 7}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {2, 2}, true));
        // Padding wider than the kernel, different on every side, with dilation and groups.
        check(make(type, 1, 4, 4, 2, {6, 5}, {2, 3}, {1, 2}, {2, 1}, {3, 0}, {1, 4}, true));
        // 3-D with one symmetric, one copied and one uncopied axis.
        check(make(type, 1, 2, 2, 1, {4, 6, 5}, {3, 3, 2}, {1, 2, 1}, {1, 1, 1}, {1, 0, 2}, {1, 1, 0}, true));
    }
}

TEST_F(CudaConvolution, GroupsAndLargerShapes)
{
    for (DataType const type : kTypes)
    {
        // Depthwise 3x3.
        check(make(type, 2, 8, 8, 8, {9, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true));
        // A ResNet-like layer, large enough for tensor-core and FFT algorithms.
        check(make(type, 2, 32, 64, 1, {14, 14}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true));
        // A 1x1 convolution with stride.
        check(make(type, 1, 16, 32, 1, {10, 10}, {1, 1}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, false));
    }
}

TEST_F(CudaConvolution, KernelsOfAnotherType)
{
    // Float weights for 16-bit and INT8 convolutions, INT8 weights (per-tensor scale) for float and INT8 ones.
    Case c = make(DataType::kHALF, 1, 4, 6, 2, {7, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true);
    c.kernelType = DataType::kFLOAT;
    for (DataType const type : {DataType::kHALF, DataType::kBF16, DataType::kINT8})
    {
        c.type = type;
        check(c);
    }
    c.kernelType = DataType::kINT8;
    c.type = DataType::kFLOAT;
    check(c);
    // A half bias for a float convolution, a bfloat16 one for a half convolution.
    Case b = make(DataType::kFLOAT, 1, 3, 5, 1, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true);
    b.biasType = DataType::kHALF;
    check(b);
    b.type = DataType::kHALF;
    b.biasType = DataType::kBF16;
    check(b);
}

TEST_F(CudaConvolution, EmptyInputsAndOutputs)
{
    for (DataType const type : kTypes)
    {
        // No input channels: every output is its bias.
        check(make(type, 2, 0, 3, 1, {4, 4}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true));
        // An input of extent 0 padded to 2: outputs from padding alone.
        check(make(type, 1, 2, 2, 1, {0, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 0}, {1, 0}, true));
        // No batch: an empty output.
        check(make(type, 0, 2, 2, 1, {4, 4}, {3, 3}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, true));
    }
}

TEST_F(CudaConvolution, FloatIsNotComputedInTf32)
{
    // 1 + 2^-12 is a float but rounds to 1 in TF32 (10 fraction bits): a TF32 sum of 72 such products misses
    // 72 * 2^-11, 3.5e-2, where the float tolerance allows 1e-5 * (1 + 72). Every tactic must compute in float.
    ConvolutionParams params;
    params.nbOutputMaps = 4;
    params.kernelSize = Dims{2, {3, 3}};
    HostBuffer input(DataType::kFLOAT, Dims{4, {1, 8, 6, 6}});
    HostBuffer kernel(DataType::kFLOAT, Dims{4, {4, 8, 3, 3}});
    for (HostBuffer* t : {&input, &kernel})
    {
        for (int64_t i = 0; i < host::elementCount(t->tensor()); ++i)
        {
            host::storeFloat(t->tensor(), i, 1.0 + std::ldexp(1.0, -12));
        }
    }
    host::ConvolutionOperands operands;
    operands.kernel = &kernel.tensor();
    HostBuffer expected(DataType::kFLOAT, Dims{4, {1, 4, 4, 4}});
    ASSERT_TRUE(host::runConvolution(params, input.tensor(), expected.tensor(), operands).ok());
    DeviceBuffer const din = DeviceBuffer::upload(input.tensor());
    DeviceBuffer const dkernel = DeviceBuffer::upload(kernel.tensor());
    DeviceBuffer const dout(expected.tensor());
    int32_t const tactics = nbConvolutionTactics(params, din.tensor(), nullptr, dout.tensor(), nullptr, *mLibraries);
    for (int32_t tactic = 0; tactic < tactics; ++tactic)
    {
        Status const done
            = runConvolution(params, din.tensor(), dkernel.tensor(), nullptr, nullptr, dout.tensor(), launch(tactic));
        ASSERT_TRUE(done.ok()) << done.error().message;
        expectNear(dout.download(mStream), expected, 1.0, "tactic " + std::to_string(tactic));
    }
}

TEST_F(CudaConvolution, RefusesWhatTheHostRefuses)
{
    ConvolutionParams params;
    params.nbOutputMaps = 4;
    params.nbGroups = 2;
    params.kernelSize = Dims{2, {3, 3}};
    HostBuffer input(DataType::kFLOAT, Dims{4, {1, 5, 6, 6}});
    HostBuffer kernel(DataType::kFLOAT, Dims{4, {4, 2, 3, 3}});
    HostBuffer output(DataType::kFLOAT, Dims{4, {1, 4, 4, 4}});
    DeviceBuffer const din = DeviceBuffer::upload(input.tensor());
    DeviceBuffer const dkernel = DeviceBuffer::upload(kernel.tensor());
    DeviceBuffer const dout(output.tensor());
    Status const groups
        = runConvolution(params, din.tensor(), dkernel.tensor(), nullptr, nullptr, dout.tensor(), launch());
    ASSERT_FALSE(groups.ok());
    EXPECT_NE(groups.error().message.find("convolution: the input has 5 channels, not divisible by 2 groups"),
        std::string::npos)
        << groups.error().message;
    EXPECT_EQ(nbConvolutionTactics(params, din.tensor(), nullptr, dout.tensor(), nullptr, *mLibraries), 1);

    HostBuffer input4(DataType::kFLOAT, Dims{4, {1, 4, 6, 6}});
    DeviceBuffer const din4 = DeviceBuffer::upload(input4.tensor());
    int32_t const tactics = nbConvolutionTactics(params, din4.tensor(), nullptr, dout.tensor(), nullptr, *mLibraries);
    EXPECT_GE(tactics, 1);
    Status const tactic
        = runConvolution(params, din4.tensor(), dkernel.tensor(), nullptr, nullptr, dout.tensor(), launch(tactics));
    ASSERT_FALSE(tactic.ok());
    EXPECT_NE(tactic.error().message.find("tactic " + std::to_string(tactics) + " is out of range"), std::string::npos)
        << tactic.error().message;

    std::vector<float> biasValues(4, 1.F);
    ConvolutionParams withBias = params;
    withBias.bias = nvinfer1::Weights{DataType::kFLOAT, biasValues.data(), 4};
    Status const bias
        = runConvolution(withBias, din4.tensor(), dkernel.tensor(), nullptr, nullptr, dout.tensor(), launch());
    ASSERT_FALSE(bias.ok());
    EXPECT_NE(bias.error().message.find("params has bias weights but no bias tensor was given"), std::string::npos)
        << bias.error().message;

    HostBuffer ints(DataType::kINT32, Dims{4, {4, 2, 3, 3}});
    DeviceBuffer const dints = DeviceBuffer::upload(ints.tensor());
    Status const type
        = runConvolution(params, din4.tensor(), dints.tensor(), nullptr, nullptr, dout.tensor(), launch());
    ASSERT_FALSE(type.ok());
    EXPECT_NE(type.error().message.find("a kernel of type kINT32 is not supported"), std::string::npos)
        << type.error().message;

    HostBuffer wrong(DataType::kFLOAT, Dims{4, {1, 4, 3, 3}});
    DeviceBuffer const dwrong(wrong.tensor());
    Status const shape
        = runConvolution(params, din4.tensor(), dkernel.tensor(), nullptr, nullptr, dwrong.tensor(), launch());
    ASSERT_FALSE(shape.ok());
    EXPECT_NE(shape.error().message.find("the output is kFLOAT [1, 4, 3, 3] but must be kFLOAT [1, 4, 4, 4]"),
        std::string::npos)
        << shape.error().message;

    ActivationParams const unknown{static_cast<nvinfer1::ActivationType>(99), 0.F, 0.F};
    Status const function
        = runConvolution(params, din4.tensor(), dkernel.tensor(), nullptr, &unknown, dout.tensor(), launch());
    ASSERT_FALSE(function.ok());
    EXPECT_NE(function.error().message.find("convolution: the fused activation: unknown ActivationType 99"),
        std::string::npos)
        << function.error().message;
}

//! Activations with their parameters: ReLU (which cuDNN can fuse) and functions only the elementwise pass computes.
std::vector<ActivationParams> fusedActivations()
{
    using Type = nvinfer1::ActivationType;
    return {{Type::kRELU, 0.F, 0.F}, {Type::kLEAKY_RELU, 0.1F, 0.F}, {Type::kSIGMOID, 0.F, 0.F},
        {Type::kTANH, 0.F, 0.F}, {Type::kCLIP, -0.5F, 0.75F}, {Type::kSELU, 1.6732632F, 1.050701F},
        {Type::kGELU_ERF, 0.F, 0.F}, {Type::kELU, 1.F, 0.F}};
}

TEST_F(CudaConvolution, FusedActivationEveryTypeEveryTactic)
{
    for (DataType const type : kTypes)
    {
        for (ActivationParams const& activation : fusedActivations())
        {
            // With a bias of the input's type (which cuDNN can fuse), with a float one, and without.
            // kINT8: the host quantizes between its two layers, saturating at 128 steps, where the fused kernel
            // applies the activation to the float sum; an output scale no sum reaches 128 steps of (|sum| < 24)
            // leaves only the rounding, within one step.
            Case c = make(type, 2, 8, 16, 1, {9, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true);
            c.activation = activation;
            c.int8OutScale = 0.25F;
            c.biasType = type == DataType::kINT8 ? DataType::kFLOAT : type;
            check(c);
            c.biasType = DataType::kFLOAT;
            check(c);
            Case plain = make(type, 1, 4, 6, 2, {7, 6}, {3, 2}, {2, 1}, {1, 2}, {0, 1}, {1, 0}, false);
            plain.activation = activation;
            plain.int8OutScale = 0.25F;
            check(plain);
            // An empty input: the activation of the bias.
            Case empty = make(type, 1, 0, 3, 1, {4, 4}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true);
            empty.activation = activation;
            check(empty);
            if (HasFatalFailure())
            {
                return;
            }
        }
    }
}

TEST_F(CudaConvolution, TensorCoreLayers)
{
    // 16-bit layers with channel counts tensor cores take, with every tactic (tensor-core math among them): the
    // products are exact in float and summed in float, so the reduction tolerance of the other tests holds.
    for (DataType const type : {DataType::kHALF, DataType::kBF16})
    {
        Case c = make(type, 2, 64, 64, 1, {28, 28}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true);
        c.biasType = type;
        check(c);
        c.activation = ActivationParams{nvinfer1::ActivationType::kRELU, 0.F, 0.F};
        check(c);
        check(make(type, 1, 32, 64, 1, {16, 16}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, false));
    }
}

TEST_F(CudaConvolution, ChannelsLastEveryTactic)
{
    // kHWC8 / kDHWC8 with output channel counts that are multiples of 8, the kernel KRSC; input channels that are not
    // (a stem's 3) padded by the format and the kernel alike.
    using Type = nvinfer1::ActivationType;
    for (DataType const type : {DataType::kHALF, DataType::kBF16})
    {
        // A ResNet-like layer with a bias of the data's type and ReLU (cuDNN's fused epilogue), with a float bias and
        // ReLU (the elementwise pass), and with neither.
        Case c = make(type, 2, 64, 64, 1, {14, 14}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true);
        c.channelsLast = true;
        c.biasType = type;
        c.activation = ActivationParams{Type::kRELU, 0.F, 0.F};
        check(c);
        // cuDNN's graph API offers engines for it, which run the bias and ReLU in the graph (convolution_graph.h).
        EXPECT_GE(mCounts.graph, 1) << "no graph-API tactic for a channels-last " << dataTypeName(type)
                                    << " convolution with bias and ReLU";
        c.biasType = DataType::kFLOAT;
        check(c);
        c.activation.reset();
        c.bias = false;
        check(c);
        // Another activation (the elementwise pass), a 1x1 convolution with stride, dilation.
        Case leaky = make(type, 1, 16, 32, 1, {9, 7}, {3, 3}, {1, 1}, {2, 1}, {2, 1}, {2, 1}, true);
        leaky.channelsLast = true;
        leaky.activation = ActivationParams{Type::kLEAKY_RELU, 0.1F, 0.F};
        check(leaky);
        Case pointwise = make(type, 2, 32, 16, 1, {10, 10}, {1, 1}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, true);
        pointwise.channelsLast = true;
        check(pointwise);
        // Padding cuDNN cannot express symmetrically: a padded copy of [N, H, W, C], zeros after and before.
        Case upper = make(type, 1, 8, 16, 1, {8, 6}, {3, 3}, {2, 2}, {1, 1}, {0, 0}, {1, 1}, true);
        upper.channelsLast = true;
        upper.activation = ActivationParams{Type::kRELU, 0.F, 0.F};
        check(upper);
        Case before = make(type, 2, 16, 8, 1, {5, 7}, {3, 2}, {1, 1}, {1, 1}, {2, 1}, {0, 0}, false);
        before.channelsLast = true;
        check(before);
        // Float kernel weights (converted to the data's type before cuDNN reads them).
        Case weights = make(type, 1, 16, 24, 1, {7, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true);
        weights.channelsLast = true;
        weights.kernelType = DataType::kFLOAT;
        check(weights);
        // Groups whose channels per group are multiples of 8.
        Case grouped = make(type, 2, 32, 16, 2, {9, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true);
        grouped.channelsLast = true;
        grouped.activation = ActivationParams{Type::kRELU, 0.F, 0.F};
        check(grouped);
        // 3-D in kDHWC8, with a padded copy on one axis.
        Case volume = make(type, 1, 8, 16, 1, {4, 6, 5}, {3, 3, 2}, {1, 2, 1}, {1, 1, 1}, {1, 0, 1}, {1, 1, 0}, true);
        volume.channelsLast = true;
        volume.activation = ActivationParams{Type::kRELU, 0.F, 0.F};
        check(volume);
        // A ResNet stem: 3 input channels that kHWC8 pads to 8, the kernel KRSC with 8 channels (the 5 extra zero),
        // stride 2 and padding 3; and 12 channels padded to 16 with a padded copy.
        Case stem = make(type, 2, 3, 64, 1, {30, 30}, {7, 7}, {2, 2}, {1, 1}, {3, 3}, {3, 3}, true);
        stem.channelsLast = true;
        stem.biasType = type;
        stem.activation = ActivationParams{Type::kRELU, 0.F, 0.F};
        check(stem);
        // Its input and kernel narrowed to 4 channels offer cuDNN's kernels for images more tactics (every one
        // checked).
        EXPECT_GE(mCounts.narrowed, 1) << "no tactic on 4 channels for a " << dataTypeName(type) << " stem";
        // The same with float kernel weights (converted, then narrowed) and 4 channels without a bias.
        stem.kernelType = DataType::kFLOAT;
        check(stem);
        Case four = make(type, 1, 4, 16, 1, {11, 9}, {3, 3}, {2, 1}, {1, 1}, {1, 1}, {1, 1}, false);
        four.channelsLast = true;
        check(four);
        EXPECT_GE(mCounts.narrowed, 1) << "no tactic on 4 channels for a " << dataTypeName(type) << " 4-channel input";
        // Five channels are not narrowed.
        Case five = make(type, 1, 5, 16, 1, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, false);
        five.channelsLast = true;
        check(five);
        EXPECT_EQ(mCounts.narrowed, 0);
        Case twelve = make(type, 1, 12, 16, 1, {9, 8}, {3, 3}, {2, 2}, {1, 1}, {0, 0}, {1, 1}, false);
        twelve.channelsLast = true;
        check(twelve);
        // No input channels: every output is its bias, channels innermost.
        Case empty = make(type, 2, 0, 16, 1, {4, 4}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true);
        empty.channelsLast = true;
        check(empty);
        if (HasFatalFailure())
        {
            return;
        }
    }
}

TEST_F(CudaConvolution, FusedResidualEveryTypeEveryTactic)
{
    // out = activation(conv + bias + residual) (builder/fusion.h: a ResNet block's shortcut as input 3): every tactic
    // against the host's convolution, sum and activation. Legacy tactics add it as cuDNN's z (with a bias of the
    // compute type) or in the pass; graph tactics in the graph (with no bias or one of the compute type, and ReLU or
    // no activation), or in the pass.
    using Type = nvinfer1::ActivationType;
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        for (bool const channelsLast : {false, true})
        {
            if (channelsLast && type == DataType::kFLOAT)
            {
                continue;
            }
            Case c = make(type, 2, 16, 32, 1, {10, 10}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true);
            c.channelsLast = channelsLast;
            c.residual = true;
            c.biasType = type;
            c.activation = ActivationParams{Type::kRELU, 0.F, 0.F};
            check(c);
            if (type != DataType::kFLOAT && channelsLast)
            {
                // cuDNN 9 runs conv + bias + add + ReLU channels-last in its runtime-fusion engines (NCHW gets none on
                // the H200: there the residual runs in the legacy API's fused call or the pass, checked above).
                EXPECT_GE(mCounts.graph, 1) << "no graph-API tactic for a channels-last " << dataTypeName(type)
                                            << " convolution with bias, residual and ReLU";
            }
            c.biasType = DataType::kFLOAT; // The pass adds the bias and the residual.
            check(c);
            c.bias = false; // No bias: in the graph, or in the pass.
            check(c);
            c.activation.reset();
            check(c);
            c.activation = ActivationParams{Type::kSIGMOID, 0.F, 0.F}; // Only the pass computes it.
            c.bias = true;
            c.biasType = type;
            check(c);
            // A 1x1 convolution of stride 2 (a downsampling shortcut) and an empty input (bias + residual).
            Case shortcut = make(type, 2, 16, 32, 1, {9, 9}, {1, 1}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, true);
            shortcut.channelsLast = channelsLast;
            shortcut.residual = true;
            shortcut.biasType = type;
            shortcut.activation = ActivationParams{Type::kRELU, 0.F, 0.F};
            check(shortcut);
            Case empty = make(type, 1, 0, 8, 1, {4, 4}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true);
            empty.residual = true;
            empty.activation = ActivationParams{Type::kRELU, 0.F, 0.F};
            check(empty);
            if (HasFatalFailure())
            {
                return;
            }
        }
    }
}

TEST_F(CudaConvolution, ChannelsLastRefusals)
{
    using nvinfer1::TensorFormat;
    ConvolutionParams params;
    params.nbOutputMaps = 16;
    params.kernelSize = Dims{2, {3, 3}};
    params.prePadding = Dims{2, {1, 1}};
    params.postPadding = Dims{2, {1, 1}};
    // A convolution of the given input channels, groups and maps (the buffers large enough for padded channels).
    auto const refusedWith = [&](DataType type, int64_t channels, int64_t groups, int64_t maps,
                                 ConvolutionLayout const& layout, std::string const& message) {
        ConvolutionParams shaped = params;
        shaped.nbGroups = groups;
        shaped.nbOutputMaps = maps;
        HostBuffer input(type, Dims{4, {1, (channels + 7) / 8 * 8, 6, 6}});
        HostBuffer kernel(type, Dims{4, {maps, (channels + 7) / 8 * 8 / groups, 3, 3}});
        HostBuffer output(type, Dims{4, {1, maps, 6, 6}});
        DeviceBuffer const din = DeviceBuffer::upload(input.tensor());
        DeviceBuffer const dkernel = DeviceBuffer::upload(kernel.tensor());
        DeviceBuffer const dout(output.tensor());
        HostTensor in = din.tensor();
        in.dims.d[1] = channels;
        Status const done
            = runConvolution(shaped, in, dkernel.tensor(), nullptr, nullptr, dout.tensor(), launch(), layout);
        ASSERT_FALSE(done.ok()) << message;
        EXPECT_NE(done.error().message.find(message), std::string::npos) << done.error().message;
        EXPECT_EQ(nbConvolutionTactics(shaped, in, nullptr, dout.tensor(), nullptr, *mLibraries, layout), 1);
    };
    auto const refused = [&](DataType type, int64_t channels, ConvolutionLayout const& layout,
                             std::string const& message) { refusedWith(type, channels, 1, 16, layout, message); };
    ConvolutionLayout const hwc8{TensorFormat::kHWC8, TensorFormat::kHWC8, true};
    refused(DataType::kFLOAT, 16, hwc8, "convolution: kHWC8 takes kHALF and kBF16 tensors, not kFLOAT");
    refusedWith(DataType::kHALF, 16, 1, 12, hwc8,
        "convolution: kHWC8 needs an output channel count that is a multiple of 8 (no padded channels), but the "
        "output has 12");
    refusedWith(DataType::kHALF, 12, 2, 16, hwc8,
        "convolution: kHWC8 pads the input's 12 channels to 16; a convolution of padded channels takes one group, not "
        "2");
    refused(DataType::kHALF, 16, {TensorFormat::kLINEAR, TensorFormat::kHWC8, true},
        "convolution: the input is in format kLINEAR but the output in kHWC8; they must share one format");
    refused(DataType::kHALF, 16, {TensorFormat::kCHW16, TensorFormat::kCHW16, false},
        "convolution: the input is in format kCHW16; a 2-D convolution takes kLINEAR or kHWC8");
    refused(DataType::kHALF, 16, {TensorFormat::kDHWC8, TensorFormat::kDHWC8, true},
        "convolution: the input is in format kDHWC8; a 2-D convolution takes kLINEAR or kHWC8");
    refused(DataType::kHALF, 16, {TensorFormat::kHWC8, TensorFormat::kHWC8, false},
        "convolution: a kHWC8 convolution reads its kernel channels-last (KRSC, as the builder stores kernel "
        "weights), but the kernel given is KCRS");
    refused(DataType::kHALF, 16, {TensorFormat::kLINEAR, TensorFormat::kLINEAR, true},
        "convolution: a kLINEAR convolution reads a KCRS kernel, but the kernel given is KRSC");
}

TEST_F(CudaConvolution, RepeatedRunsPrepareNothingNew)
{
    ConvolutionParams params;
    params.nbOutputMaps = 8;
    params.kernelSize = Dims{2, {3, 3}};
    params.prePadding = Dims{2, {1, 1}};
    params.postPadding = Dims{2, {1, 1}};
    HostBuffer input(DataType::kHALF, Dims{4, {1, 8, 10, 10}});
    HostBuffer kernel(DataType::kHALF, Dims{4, {8, 8, 3, 3}});
    HostBuffer output(DataType::kHALF, Dims{4, {1, 8, 10, 10}});
    HostBuffer input2(DataType::kHALF, Dims{4, {2, 8, 10, 10}});
    HostBuffer output2(DataType::kHALF, Dims{4, {2, 8, 10, 10}});
    DeviceBuffer const din = DeviceBuffer::upload(input.tensor());
    DeviceBuffer const din2 = DeviceBuffer::upload(input2.tensor());
    DeviceBuffer const dkernel = DeviceBuffer::upload(kernel.tensor());
    DeviceBuffer const dout(output.tensor());
    DeviceBuffer const dout2(output2.tensor());
    ActivationParams const relu{nvinfer1::ActivationType::kRELU, 0.F, 0.F};
    PreparedCache& cache = mLibraries->prepared();
    EXPECT_EQ(cache.size(), 0U);
    int32_t const tactics = nbConvolutionTactics(params, din.tensor(), nullptr, dout.tensor(), &relu, *mLibraries);
    EXPECT_EQ(cache.size(), 1U);
    for (int32_t tactic = 0; tactic < tactics; ++tactic)
    {
        ASSERT_TRUE(
            runConvolution(params, din.tensor(), dkernel.tensor(), nullptr, &relu, dout.tensor(), launch(tactic)).ok());
        EXPECT_EQ(cache.size(), 1U) << "tactic " << tactic;
    }
    // Another batch is another geometry; without the activation the tactics differ, so that is one too.
    ASSERT_TRUE(runConvolution(params, din2.tensor(), dkernel.tensor(), nullptr, &relu, dout2.tensor(), launch()).ok());
    EXPECT_EQ(cache.size(), 2U);
    ASSERT_TRUE(runConvolution(params, din.tensor(), dkernel.tensor(), nullptr, nullptr, dout.tensor(), launch()).ok());
    EXPECT_EQ(cache.size(), 3U);
    ASSERT_TRUE(runConvolution(params, din.tensor(), dkernel.tensor(), nullptr, &relu, dout.tensor(), launch()).ok());
    EXPECT_EQ(cache.size(), 3U);
    EXPECT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
}

TEST_F(CudaConvolution, CacheIsBounded)
{
    ConvolutionParams params;
    params.nbOutputMaps = 2;
    params.kernelSize = Dims{2, {1, 1}};
    HostBuffer kernel(DataType::kFLOAT, Dims{4, {2, 2, 1, 1}});
    DeviceBuffer const dkernel = DeviceBuffer::upload(kernel.tensor());
    for (int64_t width = 1; width <= static_cast<int64_t>(PreparedCache::kCapacity) + 6; ++width)
    {
        HostBuffer input(DataType::kFLOAT, Dims{4, {1, 2, 1, width}});
        DeviceBuffer const din = DeviceBuffer::upload(input.tensor());
        DeviceBuffer const dout(input.tensor());
        ASSERT_TRUE(
            runConvolution(params, din.tensor(), dkernel.tensor(), nullptr, nullptr, dout.tensor(), launch()).ok());
        EXPECT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
    }
    EXPECT_EQ(mLibraries->prepared().size(), PreparedCache::kCapacity);
}

// Not a check: the GPU time of every tactic and the host time of a steady-state run on a ResNet layer
// ([8, 64, 56, 56] 3x3 64 -> 64, pad 1, bias, ReLU), in NCHW and (16-bit types) NHWC. Run with
// --gtest_also_run_disabled_tests.
TEST_F(CudaConvolution, DISABLED_TimesEveryTacticOnAResNetLayer)
{
    for (DataType const type : {DataType::kHALF, DataType::kFLOAT, DataType::kBF16})
    {
        ConvolutionParams params;
        params.nbOutputMaps = 64;
        params.kernelSize = Dims{2, {3, 3}};
        params.prePadding = Dims{2, {1, 1}};
        params.postPadding = Dims{2, {1, 1}};
        HostBuffer input(type, Dims{4, {8, 64, 56, 56}});
        HostBuffer kernel(type, Dims{4, {64, 64, 3, 3}});
        HostBuffer bias(type, Dims{1, {64}});
        randomize(input, mRng, -2.0, 2.0);
        randomize(kernel, mRng, -1.0, 1.0);
        randomize(bias, mRng, -1.0, 1.0);
        DeviceBuffer const din = DeviceBuffer::upload(input.tensor());
        DeviceBuffer const dkernel = DeviceBuffer::upload(kernel.tensor());
        DeviceBuffer const dbias = DeviceBuffer::upload(bias.tensor());
        DeviceBuffer const dout(input.tensor());
        ActivationParams const relu{nvinfer1::ActivationType::kRELU, 0.F, 0.F};
        // NCHW, then (16-bit types) NHWC: the values are random either way, only the time counts.
        bool const sixteen = type != DataType::kFLOAT;
        for (int32_t variant = 0; variant < (sixteen ? 4 : 2); ++variant)
        {
            ActivationParams const* activation = variant % 2 == 0 ? nullptr : &relu;
            bool const channelsLast = variant >= 2;
            nvinfer1::TensorFormat const format
                = channelsLast ? nvinfer1::TensorFormat::kHWC8 : nvinfer1::TensorFormat::kLINEAR;
            ConvolutionLayout const layout{format, format, channelsLast};
            int32_t const tactics = nbConvolutionTactics(
                params, din.tensor(), &dbias.tensor(), dout.tensor(), activation, *mLibraries, layout);
            cudaEvent_t start{};
            cudaEvent_t stop{};
            ASSERT_EQ(cudaEventCreate(&start), cudaSuccess);
            ASSERT_EQ(cudaEventCreate(&stop), cudaSuccess);
            for (int32_t tactic = 0; tactic < tactics; ++tactic)
            {
                auto const run = [&] {
                    return runConvolution(params, din.tensor(), dkernel.tensor(), &dbias.tensor(), activation,
                        dout.tensor(), launch(tactic), layout);
                };
                ASSERT_TRUE(run().ok());
                ASSERT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
                constexpr int kRuns = 20;
                auto const host0 = std::chrono::steady_clock::now();
                ASSERT_EQ(cudaEventRecord(start, mStream), cudaSuccess);
                for (int i = 0; i < kRuns; ++i)
                {
                    ASSERT_TRUE(run().ok());
                }
                ASSERT_EQ(cudaEventRecord(stop, mStream), cudaSuccess);
                auto const host1 = std::chrono::steady_clock::now();
                ASSERT_EQ(cudaEventSynchronize(stop), cudaSuccess);
                float ms = 0.F;
                ASSERT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
                double const hostUs = std::chrono::duration<double, std::micro>(host1 - host0).count() / kRuns;
                std::printf("%s %s %s tactic %2d: GPU %.4f ms, host %.1f us per run\n", dataTypeName(type),
                    channelsLast ? "NHWC" : "NCHW", activation != nullptr ? "bias+relu" : "bias     ", tactic,
                    ms / kRuns, hostUs);
            }
            static_cast<void>(cudaEventDestroy(start));
            static_cast<void>(cudaEventDestroy(stop));
        }
    }
}

} // namespace
} // namespace kiln::cuda::test
