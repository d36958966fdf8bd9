// SPDX-License-Identifier: Apache-2.0
// The CUDA deconvolution (backends/cuda/deconvolution.cpp: cuDNN's backward-data algorithms and kiln's direct kernel)
// against the host reference, with every tactic, on random 2-D and 3-D shapes with groups, strides, dilations,
// asymmetric padding (axes cuDNN's symmetric padding covers and axes that need the staged crop), the SAME modes and
// bias, in FP32, FP16 and BF16; kernels and biases of another type than the input; inputs without elements; layers
// large enough for tensor cores; the tactic count; and the refusals with their messages.
#include "cuda_test_util.h"

#include "backends/host/deconvolution.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kiln::cuda::test
{
namespace
{

using nvinfer1::PaddingMode;

//! One deconvolution: shapes, window, padding mode and the operands' types.
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
    std::optional<DataType> kernelType; //!< The kernel's type when not the input's (Weights on the host).
    DataType biasType{DataType::kFLOAT};
};

using Extents = std::vector<int64_t>;

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
        + " post " + list(c.post) + " mode " + std::to_string(static_cast<int32_t>(c.mode)) + (c.bias ? " bias" : "")
        + (c.kernelType ? std::string(" kernel type ") + dataTypeName(*c.kernelType) : "");
}

//! As the convolution test argues: float accumulation of r products loses about u * r, and cuDNN's transforming
//! algorithms more; this allows 64 u r on top of the type's tolerance.
double reductionExtra(DataType type, int64_t r)
{
    return 1.0 + 64.0 * std::ldexp(1.0, -24) * static_cast<double>(r) / tolerance(type);
}

class CudaDeconvolution : public CudaKernelTest
{
protected:
    DeconvolutionParams paramsOf(Case const& c) const
    {
        DeconvolutionParams params;
        params.nbOutputMaps = c.maps;
        params.nbGroups = c.groups;
        params.kernelSize = toDims(c.kernel);
        params.stride = toDims(c.stride);
        params.dilation = toDims(c.dilation);
        params.prePadding = toDims(c.pre);
        params.postPadding = toDims(c.post);
        params.paddingMode = c.mode;
        return params;
    }

    //! One deconvolution on the device, with every tactic, against the host reference.
    void check(Case const& c)
    {
        SCOPED_TRACE(describe(c));
        DataType const kernelType = c.kernelType.value_or(c.type);
        DeconvolutionParams const params = paramsOf(c);
        std::vector<int64_t> inShape{c.batch, c.channels};
        inShape.insert(inShape.end(), c.in.begin(), c.in.end());
        std::vector<int64_t> kernelShape{c.channels, c.maps / c.groups};
        kernelShape.insert(kernelShape.end(), c.kernel.begin(), c.kernel.end());
        HostBuffer input(c.type, toDims(inShape));
        HostBuffer kernel(kernelType, toDims(kernelShape));
        HostBuffer bias(c.biasType, Dims{1, {c.maps}});
        randomize(input, mRng, -2.0, 2.0);
        randomize(kernel, mRng, -1.0, 1.0);
        randomize(bias, mRng, -1.0, 1.0);

        // The host takes a kernel tensor of the input's type, and other types as Weights.
        host::DeconvolutionOperands operands;
        DeconvolutionParams hostParams = params;
        if (kernelType == c.type)
        {
            operands.kernel = &kernel.tensor();
        }
        else
        {
            hostParams.kernel
                = nvinfer1::Weights{kernelType, kernel.tensor().data, host::elementCount(kernel.tensor().dims)};
        }
        operands.bias = c.bias ? &bias.tensor() : nullptr;
        Expected<host::TensorDesc> const desc
            = host::inferDeconvolution(hostParams, {c.type, input.tensor().dims}, operands);
        ASSERT_TRUE(desc.ok()) << desc.error().message;
        HostBuffer expected(c.type, desc.value().dims);
        Status const reference = host::runDeconvolution(hostParams, input.tensor(), expected.tensor(), operands);
        ASSERT_TRUE(reference.ok()) << reference.error().message;

        DeviceBuffer const din = DeviceBuffer::upload(input.tensor());
        DeviceBuffer const dkernel = DeviceBuffer::upload(kernel.tensor());
        DeviceBuffer const dbias = DeviceBuffer::upload(bias.tensor());
        DeviceBuffer const dout(expected.tensor());
        int32_t const tactics = nbDeconvolutionTactics(params, din.tensor(), *mLibraries);
        EXPECT_GE(tactics, 1);
        EXPECT_LE(tactics, 9);
        TacticNames const names = deconvolutionTacticNames(params, din.tensor(), *mLibraries);
        ASSERT_EQ(static_cast<int32_t>(names.size()), tactics);
        EXPECT_EQ(names.back(), "kiln direct deconvolution");
        for (int32_t t = 0; t + 1 < tactics; ++t)
        {
            EXPECT_EQ(names[static_cast<std::size_t>(t)].rfind("cudnn backward-data algo ", 0), 0U);
        }
        int64_t const reduction = std::accumulate(
            c.kernel.begin(), c.kernel.end(), c.groups == 0 ? int64_t{0} : c.channels / c.groups, std::multiplies<>());
        int64_t const bytes = storageBytes(c.type, host::elementCount(expected.tensor()));
        for (int32_t tactic = 0; tactic < tactics; ++tactic)
        {
            // NaN everywhere first (0xFF bytes in the floating types), so that an element left unwritten fails.
            ASSERT_EQ(cudaMemsetAsync(dout.tensor().data, 0xFF, static_cast<size_t>(bytes), mStream), cudaSuccess);
            Status const done = runDeconvolution(params, din.tensor(), dkernel.tensor(),
                c.bias ? &dbias.tensor() : nullptr, dout.tensor(), launch(tactic));
            ASSERT_TRUE(done.ok()) << "tactic " << tactic << " of " << tactics << ": " << done.error().message;
            HostBuffer const result = dout.download(mStream);
            // The bias is added to a result already rounded to the output's type: one more rounding.
            expectNear(result, expected, reductionExtra(c.type, reduction) + (c.bias ? 1.0 : 0.0),
                "tactic " + std::to_string(tactic) + " of " + std::to_string(tactics));
        }
        // Past the last tactic: refused (an input or output without elements runs no tactic at all).
        if (host::elementCount(input.tensor()) == 0 || host::elementCount(expected.tensor()) == 0)
        {
            return;
        }
        Status const beyond = runDeconvolution(
            params, din.tensor(), dkernel.tensor(), c.bias ? &dbias.tensor() : nullptr, dout.tensor(), launch(tactics));
        EXPECT_FALSE(beyond.ok());
    }

    int64_t draw(int64_t lo, int64_t hi)
    {
        return lo + static_cast<int64_t>(mRng() % static_cast<uint64_t>(hi - lo + 1));
    }

    //! A random case of type with nbSpatial axes; padding drawn independently before and after, leaving at least one
    //! output element per axis.
    Case randomCase(DataType type, int32_t nbSpatial)
    {
        Case c;
        c.type = type;
        c.batch = draw(1, 2);
        c.groups = draw(1, 3);
        c.channels = c.groups * draw(1, 4);
        c.maps = c.groups * draw(1, 3);
        c.bias = mRng() % 2 == 0;
        static constexpr PaddingMode kModes[] = {PaddingMode::kEXPLICIT_ROUND_DOWN, PaddingMode::kEXPLICIT_ROUND_UP,
            PaddingMode::kSAME_UPPER, PaddingMode::kSAME_LOWER};
        c.mode = kModes[mRng() % 4];
        for (int32_t i = 0; i < nbSpatial; ++i)
        {
            int64_t const k = draw(1, nbSpatial == 2 ? 5 : 3);
            int64_t const d = draw(1, 2);
            int64_t const s = draw(1, 3);
            int64_t const in = draw(1, nbSpatial == 2 ? 9 : 4);
            int64_t const full = (in - 1) * s + 1 + d * (k - 1);
            int64_t const pre = draw(0, std::min<int64_t>(4, full - 1));
            int64_t const post = draw(0, std::min<int64_t>(4, full - 1 - pre));
            c.kernel.push_back(k);
            c.dilation.push_back(d);
            c.stride.push_back(s);
            c.pre.push_back(pre);
            c.post.push_back(post);
            c.in.push_back(in);
        }
        return c;
    }
};

constexpr DataType kTypes[] = {DataType::kFLOAT, DataType::kHALF, DataType::kBF16};

TEST_F(CudaDeconvolution, Random2dEveryTypeEveryTactic)
{
    for (DataType const type : kTypes)
    {
        for (int32_t trial = 0; trial < 16; ++trial)
        {
            check(randomCase(type, 2));
            if (HasFatalFailure())
            {
                return;
            }
        }
    }
}

TEST_F(CudaDeconvolution, Random3dEveryTypeEveryTactic)
{
    for (DataType const type : kTypes)
    {
        for (int32_t trial = 0; trial < 8; ++trial)
        {
            check(randomCase(type, 3));
            if (HasFatalFailure())
            {
                return;
            }
        }
    }
}

TEST_F(CudaDeconvolution, PaddingCuDnnCoversAndPaddingThatIsCropped)
{
    for (DataType const type : kTypes)
    {
        // Symmetric padding: cuDNN's own.
        check(make(type, 1, 3, 4, 1, {5, 6}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, true));
        // pre - post in [0, stride): cuDNN with pad = pre writes the output itself.
        check(make(type, 2, 2, 3, 1, {4, 5}, {4, 3}, {2, 3}, {1, 1}, {2, 2}, {1, 0}, false));
        // post > pre, and pre - post >= stride: a staged result cropped into the output.
        check(make(type, 1, 2, 2, 1, {5, 4}, {3, 3}, {1, 2}, {1, 1}, {0, 3}, {2, 0}, true));
        // Padding wider than the kernel, with dilation and groups.
        check(make(type, 1, 4, 6, 2, {6, 5}, {2, 3}, {3, 2}, {2, 1}, {3, 0}, {1, 4}, true));
        // 3-D with one symmetric, one cuDNN-only and one cropped axis.
        check(make(type, 1, 2, 2, 1, {3, 4, 3}, {3, 3, 2}, {1, 2, 1}, {1, 1, 1}, {1, 1, 0}, {1, 0, 2}, true));
    }
}

TEST_F(CudaDeconvolution, SameModes)
{
    for (DataType const type : kTypes)
    {
        for (PaddingMode const mode : {PaddingMode::kSAME_UPPER, PaddingMode::kSAME_LOWER})
        {
            // DK 3 > S 2: P = 1 (the ONNX autopad_same case); DK 4 > S 2: P = 2; DK 2 < S 3: nothing trimmed.
            Case c = make(type, 1, 2, 3, 1, {3, 4}, {3, 4}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, true);
            c.mode = mode;
            check(c);
            Case wide = make(type, 1, 1, 2, 1, {4, 3}, {2, 1}, {3, 1}, {1, 1}, {0, 0}, {0, 0}, false);
            wide.mode = mode;
            check(wide);
        }
    }
}

TEST_F(CudaDeconvolution, GroupsKernelTypesAndLargerShapes)
{
    for (DataType const type : kTypes)
    {
        // Depthwise 4x4 stride 2 (an upsampling head).
        check(make(type, 2, 8, 8, 8, {9, 9}, {4, 4}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, true));
        // A decoder layer large enough for tensor-core algorithms.
        check(make(type, 2, 64, 32, 1, {14, 14}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {0, 0}, true));
        // float kernel weights and a half bias for a 16-bit deconvolution (converted on the device).
        Case converted = make(type, 1, 4, 4, 1, {5, 5}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, true);
        converted.kernelType = type == DataType::kFLOAT ? DataType::kHALF : DataType::kFLOAT;
        converted.biasType = DataType::kHALF;
        check(converted);
    }
}

TEST_F(CudaDeconvolution, InputsWithoutElements)
{
    // No batch: nothing to write. No channels: the bias everywhere.
    check(make(DataType::kFLOAT, 0, 2, 2, 1, {3, 3}, {3, 3}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, true));
    check(make(DataType::kHALF, 1, 0, 2, 1, {3, 3}, {3, 3}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, true));
}

TEST_F(CudaDeconvolution, Refusals)
{
    Case const c = make(DataType::kFLOAT, 1, 4, 4, 2, {3, 3}, {3, 3}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, false);
    DeconvolutionParams const params = paramsOf(c);
    HostBuffer input(DataType::kFLOAT, Dims{4, {1, 4, 3, 3}});
    HostBuffer kernel(DataType::kFLOAT, Dims{4, {4, 2, 3, 3}});
    HostBuffer output(DataType::kFLOAT, Dims{4, {1, 4, 5, 5}});
    DeviceBuffer const din = DeviceBuffer::upload(input.tensor());
    DeviceBuffer const dkernel = DeviceBuffer::upload(kernel.tensor());
    DeviceBuffer const dout(output.tensor());
    EXPECT_TRUE(runDeconvolution(params, din.tensor(), dkernel.tensor(), nullptr, dout.tensor(), launch()).ok());

    HostBuffer wrongOutput(DataType::kFLOAT, Dims{4, {1, 4, 3, 3}});
    DeviceBuffer const dwrong(wrongOutput.tensor());
    Status const shape = runDeconvolution(params, din.tensor(), dkernel.tensor(), nullptr, dwrong.tensor(), launch());
    ASSERT_FALSE(shape.ok());
    EXPECT_NE(shape.error().message.find("the output is kFLOAT [1, 4, 3, 3] but must be kFLOAT [1, 4, 5, 5]"),
        std::string::npos)
        << shape.error().message;
    HostBuffer convolutionKernel(DataType::kFLOAT, Dims{4, {4, 1, 3, 3}}); // [K, C/G, ...]: the convolution's
    DeviceBuffer const dconvolution = DeviceBuffer::upload(convolutionKernel.tensor());
    Status const layout
        = runDeconvolution(params, din.tensor(), dconvolution.tensor(), nullptr, dout.tensor(), launch());
    ASSERT_FALSE(layout.ok());
    EXPECT_NE(layout.error().message.find("the kernel tensor [4, 1, 3, 3] must be [4, 2, 3, 3]"), std::string::npos)
        << layout.error().message;
    HostBuffer intKernel(DataType::kINT32, Dims{4, {4, 2, 3, 3}});
    DeviceBuffer const dint = DeviceBuffer::upload(intKernel.tensor());
    Status const type = runDeconvolution(params, din.tensor(), dint.tensor(), nullptr, dout.tensor(), launch());
    ASSERT_FALSE(type.ok());
    EXPECT_NE(type.error().message.find("deconvolution: a kernel of type kINT32 is not supported"), std::string::npos)
        << type.error().message;
    Status const negative
        = runDeconvolution(params, din.tensor(), dkernel.tensor(), nullptr, dout.tensor(), launch(-1));
    ASSERT_FALSE(negative.ok());
    EXPECT_NE(negative.error().message.find("tactic -1 is negative"), std::string::npos);
}

} // namespace
} // namespace kiln::cuda::test
