// SPDX-License-Identifier: Apache-2.0
// The CUDA convolution (kernels.h) with cuDNN's convolution API, for the host reference's cases (backends/host/
// convolution.h): NCHW and NCDHW, groups, stride, dilation, explicit padding, a bias per output map, in kFLOAT, kHALF,
// kBF16 and kINT8, always accumulating in float.
//
// - Types: kFLOAT runs cuDNN's FLOAT_CONFIG with FMA math only (no TF32), kHALF and kBF16 the PSEUDO_HALF and
//   PSEUDO_BFLOAT16 configurations (float compute, tensor cores allowed). kINT8 runs in float: the input is
//   dequantized with its scale, the output quantized with its scale (cuDNN's INT8 convolutions need NHWC, vectorized
//   channels and int32 bias scaling, which these tensors are not). A kernel whose type is not the compute type (float
//   Weights for a half convolution, a kINT8 kernel with its per-tensor scale) is converted first.
// - Padding: cuDNN pads both ends of an axis alike. An axis with pre == post, or whose extra post padding produces no
//   further output (kEXPLICIT_ROUND_UP, many kSAME cases), runs with pad = pre. Otherwise the input is copied into a
//   zero-filled buffer that holds the difference (pre - post before, or post - pre after) and cuDNN pads
//   min(pre, post).
// - Bias: added (with the INT8 quantization, when there is one) by one elementwise pass after the convolution.
// - Staged copies (padded or dequantized input, converted kernel, float output of INT8) and cuDNN's workspace share
//   Libraries::workspace.
// - Tactics: the algorithms (with their math type) that cudnnGetConvolutionForwardAlgorithm_v7 reports as supported,
//   in its order; tactic 0 is cuDNN's first choice.
// - Operands: the kernel and bias are the device tensors given (params' Weights are not read; a params.bias without a
//   bias tensor is refused). A kINT8 kernel has one scale, the tensor's: per-map kernel scales have no place in a
//   DeviceTensor yet.
#include "backends/host/convolution.h"
#include "backends/cuda/kernels.h"
#include "backends/cuda/libraries.h"
#include "backends/cuda/library_staging.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace kiln::cuda
{

namespace
{

using host::Done;

//! Where staged buffers start inside the workspace.
constexpr int64_t kStagingAlignment = 256;

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "convolution: " + message};
}

bool present(nvinfer1::Weights const& weights) noexcept
{
    return weights.count != 0 || weights.values != nullptr;
}

int64_t elementBytes(DataType type)
{
    return storageBytes(type, 1);
}

//! The convolution's geometry as cuDNN runs it.
struct Geometry
{
    int32_t nbSpatial{};
    DataType compute{}; //!< cuDNN's tensor type: the input's, or kFLOAT for kINT8.
    bool stageInput{};  //!< The input is copied (padded, or dequantized) before cuDNN reads it.
    bool empty{};       //!< The input has no elements: the output is the bias (or zeros).
    int64_t groups{};
    int64_t maps{};
    std::array<int64_t, 3> pad{};      //!< cuDNN's symmetric padding.
    std::array<int64_t, 3> stagePre{}; //!< Zeros before each axis in the staged input.
    std::array<int64_t, 3> stride{};
    std::array<int64_t, 3> dilation{};
    Dims inDims{};
    Dims stagedDims{}; //!< What cuDNN reads: inDims, or the staged copy's shape.
    Dims kernelDims{};
    Dims outDims{};
    int64_t outVolume{}; //!< Spatial elements of one output map.
};

//! Checks what the host checks (and what the device tensors need) and works out the geometry. kernel: the kernel
//! tensor, or nullptr for the shape params implies (when counting tactics).
Expected<Geometry> makeGeometry(ConvolutionParams const& params, DeviceTensor const& in, DeviceTensor const* kernel,
    DeviceTensor const* bias, DeviceTensor const* out)
{
    // The host checks a kernel tensor of the input's type; the device also takes the Weights' other types.
    ConvolutionParams tensors = params;
    tensors.kernel = {};
    tensors.bias = {};
    host::ConvolutionOperands operands;
    DeviceTensor standIn{nullptr, in.type, {}, 1.F};
    if (kernel != nullptr)
    {
        if (!host::contains(host::kConvolutionWeightTypes, kernel->type))
        {
            return invalid(std::string("a kernel of type ") + dataTypeName(kernel->type)
                + " is not supported (it takes " + host::typeSetString(host::kConvolutionWeightTypes) + ")");
        }
        standIn.dims = kernel->dims;
    }
    else if (in.dims.nbDims >= 2 && params.nbGroups >= 1 && params.kernelSize.nbDims >= 0
        && params.kernelSize.nbDims <= Dims::MAX_DIMS - 2)
    {
        standIn.dims = Dims{params.kernelSize.nbDims + 2, {params.nbOutputMaps, in.dims.d[1] / params.nbGroups}};
        std::copy_n(params.kernelSize.d, params.kernelSize.nbDims, standIn.dims.d + 2);
    }
    operands.kernel = &standIn;
    operands.bias = bias;
    if (present(params.bias) && bias == nullptr && kernel != nullptr)
    {
        return invalid("params has bias weights but no bias tensor was given");
    }
    Expected<host::TensorDesc> const inferred = host::inferConvolution(tensors, {in.type, in.dims}, operands);
    if (!inferred)
    {
        return inferred.error();
    }
    if (out != nullptr)
    {
        if (out->type != in.type || !host::sameShape(out->dims, inferred.value().dims))
        {
            return invalid(std::string("the output is ") + dataTypeName(out->type) + " " + host::shapeString(out->dims)
                + " but must be " + dataTypeName(in.type) + " " + host::shapeString(inferred.value().dims));
        }
        for (auto const& [tensor, role] : {std::pair{&in, "input 0"}, std::pair{out, "output"},
                 std::pair{kernel, "input 1 (kernel)"}, std::pair{bias, "input 2 (bias)"}})
        {
            if (tensor == nullptr)
            {
                continue;
            }
            if (std::optional<Error> const error = host::checkTensor(*tensor, role))
            {
                return invalid(error->message);
            }
        }
    }
    Expected<host::Window> const window = host::makeWindow(
        "convolution", params.kernelSize, params.stride, params.dilation, params.prePadding, params.postPadding);
    if (!window)
    {
        return window.error();
    }
    host::Window const& w = window.value();

    Geometry g;
    g.nbSpatial = w.nbSpatial;
    g.compute = in.type == DataType::kINT8 ? DataType::kFLOAT : in.type;
    g.groups = params.nbGroups;
    g.maps = params.nbOutputMaps;
    g.inDims = in.dims;
    g.stagedDims = in.dims;
    g.kernelDims = standIn.dims;
    g.outDims = inferred.value().dims;
    g.empty = host::elementCount(in.dims) == 0;
    g.stageInput = in.type != g.compute;
    g.outVolume = 1;
    for (int32_t i = 0; i < g.nbSpatial; ++i)
    {
        auto const a = static_cast<std::size_t>(i);
        int64_t const extent = in.dims.d[i + 2];
        int64_t const span = w.span(i);
        int64_t const outExtent = g.outDims.d[i + 2];
        g.stride[a] = w.stride[a];
        g.dilation[a] = w.dilation[a];
        g.outVolume *= outExtent;
        // Symmetric padding of pre gives the same first output; it suffices when it also gives as many outputs.
        int64_t const symmetric = extent + 2 * w.pre[a];
        if (symmetric >= span && (symmetric - span) / w.stride[a] + 1 == outExtent)
        {
            g.pad[a] = w.pre[a];
            continue;
        }
        int64_t const common = std::min(w.pre[a], w.post[a]);
        g.pad[a] = common;
        g.stagePre[a] = w.pre[a] - common;
        g.stagedDims.d[i + 2] = extent + (w.pre[a] - common) + (w.post[a] - common);
        g.stageInput = true;
    }
    return g;
}

cudnnDataType_t cudnnType(DataType type)
{
    switch (type)
    {
    case DataType::kHALF: return CUDNN_DATA_HALF;
    case DataType::kBF16: return CUDNN_DATA_BFLOAT16;
    default: return CUDNN_DATA_FLOAT;
    }
}

//! One tactic: an algorithm and the math type it runs with.
struct Algorithm
{
    cudnnConvolutionFwdAlgo_t algo{};
    cudnnMathType_t math{};
};

//! The cuDNN descriptors of one convolution, destroyed with it.
struct Descriptors
{
    cudnnTensorDescriptor_t x{};
    cudnnTensorDescriptor_t y{};
    cudnnFilterDescriptor_t w{};
    cudnnConvolutionDescriptor_t conv{};

    Descriptors() = default;
    Descriptors(Descriptors const&) = delete;
    Descriptors& operator=(Descriptors const&) = delete;
    ~Descriptors()
    {
        if (conv != nullptr)
        {
            static_cast<void>(cudnnDestroyConvolutionDescriptor(conv));
        }
        if (w != nullptr)
        {
            static_cast<void>(cudnnDestroyFilterDescriptor(w));
        }
        for (cudnnTensorDescriptor_t const t : {x, y})
        {
            if (t != nullptr)
            {
                static_cast<void>(cudnnDestroyTensorDescriptor(t));
            }
        }
    }
};

#define KILN_CUDNN(call, what)                                                                                         \
    do                                                                                                                 \
    {                                                                                                                  \
        if (cudnnStatus_t const status_ = (call); status_ != CUDNN_STATUS_SUCCESS)                                     \
        {                                                                                                              \
            return cudnnFailure(status_, "convolution: " what);                                                        \
        }                                                                                                              \
    } while (false)

//! dims as cuDNN's int extents, with packed row-major strides; an error when something exceeds int.
std::optional<Error> intExtents(
    Dims const& dims, std::array<int, Dims::MAX_DIMS>& extents, std::array<int, Dims::MAX_DIMS>& strides)
{
    int64_t stride = 1;
    for (int32_t i = dims.nbDims - 1; i >= 0; --i)
    {
        if (dims.d[i] > std::numeric_limits<int>::max() || stride > std::numeric_limits<int>::max())
        {
            return invalid("the shape " + host::shapeString(dims) + " has extents or strides beyond cuDNN's int range");
        }
        extents[static_cast<std::size_t>(i)] = static_cast<int>(dims.d[i]);
        strides[static_cast<std::size_t>(i)] = static_cast<int>(stride);
        stride *= dims.d[i];
    }
    return std::nullopt;
}

std::optional<Error> describe(Geometry const& g, Descriptors& d)
{
    cudnnDataType_t const type = cudnnType(g.compute);
    std::array<int, Dims::MAX_DIMS> extents{};
    std::array<int, Dims::MAX_DIMS> strides{};
    int const rank = g.nbSpatial + 2;
    KILN_CUDNN(cudnnCreateTensorDescriptor(&d.x), "cudnnCreateTensorDescriptor");
    if (std::optional<Error> error = intExtents(g.stagedDims, extents, strides))
    {
        return error;
    }
    KILN_CUDNN(cudnnSetTensorNdDescriptor(d.x, type, rank, extents.data(), strides.data()),
        "cudnnSetTensorNdDescriptor (input)");
    KILN_CUDNN(cudnnCreateTensorDescriptor(&d.y), "cudnnCreateTensorDescriptor");
    if (std::optional<Error> error = intExtents(g.outDims, extents, strides))
    {
        return error;
    }
    KILN_CUDNN(cudnnSetTensorNdDescriptor(d.y, type, rank, extents.data(), strides.data()),
        "cudnnSetTensorNdDescriptor (output)");
    KILN_CUDNN(cudnnCreateFilterDescriptor(&d.w), "cudnnCreateFilterDescriptor");
    if (std::optional<Error> error = intExtents(g.kernelDims, extents, strides))
    {
        return error;
    }
    KILN_CUDNN(
        cudnnSetFilterNdDescriptor(d.w, type, CUDNN_TENSOR_NCHW, rank, extents.data()), "cudnnSetFilterNdDescriptor");

    std::array<int, 3> pad{};
    std::array<int, 3> stride{};
    std::array<int, 3> dilation{};
    for (std::size_t a = 0; a < static_cast<std::size_t>(g.nbSpatial); ++a)
    {
        for (int64_t const value : {g.pad[a], g.stride[a], g.dilation[a]})
        {
            if (value > std::numeric_limits<int>::max())
            {
                return invalid(
                    "a padding, stride or dilation of " + std::to_string(value) + " is beyond cuDNN's int range");
            }
        }
        pad[a] = static_cast<int>(g.pad[a]);
        stride[a] = static_cast<int>(g.stride[a]);
        dilation[a] = static_cast<int>(g.dilation[a]);
    }
    KILN_CUDNN(cudnnCreateConvolutionDescriptor(&d.conv), "cudnnCreateConvolutionDescriptor");
    KILN_CUDNN(cudnnSetConvolutionNdDescriptor(d.conv, g.nbSpatial, pad.data(), stride.data(), dilation.data(),
                   CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
        "cudnnSetConvolutionNdDescriptor");
    if (g.groups > std::numeric_limits<int>::max())
    {
        return invalid(std::to_string(g.groups) + " groups are beyond cuDNN's int range");
    }
    KILN_CUDNN(cudnnSetConvolutionGroupCount(d.conv, static_cast<int>(g.groups)), "cudnnSetConvolutionGroupCount");
    KILN_CUDNN(cudnnSetConvolutionMathType(d.conv, g.compute == DataType::kFLOAT ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH),
        "cudnnSetConvolutionMathType");

    // cuDNN's output shape must be the host's (the staging above is what makes it so).
    std::array<int, Dims::MAX_DIMS> cudnnOut{};
    KILN_CUDNN(cudnnGetConvolutionNdForwardOutputDim(d.conv, d.x, d.w, rank, cudnnOut.data()),
        "cudnnGetConvolutionNdForwardOutputDim");
    for (int32_t i = 0; i < rank; ++i)
    {
        if (cudnnOut[static_cast<std::size_t>(i)] != g.outDims.d[i])
        {
            return Error{nvinfer1::ErrorCode::kINTERNAL_ERROR,
                "convolution: cuDNN's output extent " + std::to_string(cudnnOut[static_cast<std::size_t>(i)])
                    + " on axis " + std::to_string(i) + " differs from the expected shape "
                    + host::shapeString(g.outDims)};
        }
    }
    return std::nullopt;
}

//! The algorithms cuDNN's heuristic reports as supported, in its order: for kFLOAT only FMA math (each algorithm
//! once), for the 16-bit types each (algorithm, math type) pair once; never math that converts float to half.
std::optional<Error> listAlgorithms(
    cudnnHandle_t handle, Geometry const& g, Descriptors const& d, std::vector<Algorithm>& algorithms)
{
    int most = 0;
    KILN_CUDNN(
        cudnnGetConvolutionForwardAlgorithmMaxCount(handle, &most), "cudnnGetConvolutionForwardAlgorithmMaxCount");
    std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(static_cast<std::size_t>(std::max(most, 1)));
    int returned = 0;
    KILN_CUDNN(cudnnGetConvolutionForwardAlgorithm_v7(
                   handle, d.x, d.w, d.conv, d.y, static_cast<int>(perf.size()), &returned, perf.data()),
        "cudnnGetConvolutionForwardAlgorithm_v7");
    algorithms.clear();
    for (int i = 0; i < returned; ++i)
    {
        cudnnConvolutionFwdAlgoPerf_t const& p = perf[static_cast<std::size_t>(i)];
        if (p.status != CUDNN_STATUS_SUCCESS || p.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION)
        {
            continue;
        }
        Algorithm candidate{p.algo, p.mathType};
        if (g.compute == DataType::kFLOAT)
        {
            if (p.mathType == CUDNN_TENSOR_OP_MATH)
            {
                continue;
            }
            candidate.math = CUDNN_FMA_MATH;
        }
        bool const seen = std::any_of(algorithms.begin(), algorithms.end(),
            [&](Algorithm const& a) { return a.algo == candidate.algo && a.math == candidate.math; });
        if (!seen)
        {
            algorithms.push_back(candidate);
        }
    }
    if (algorithms.empty())
    {
        return cudnnFailure(
            CUDNN_STATUS_NOT_SUPPORTED, "convolution: cudnnGetConvolutionForwardAlgorithm_v7 (no algorithm)");
    }
    return std::nullopt;
}

int64_t staged(int64_t bytes)
{
    return (bytes + kStagingAlignment - 1) / kStagingAlignment * kStagingAlignment;
}

} // namespace

int32_t nbConvolutionTactics(
    ConvolutionParams const& params, DeviceTensor const& in, DeviceTensor const& out, Libraries& libraries)
{
    static_cast<void>(out);
    Expected<Geometry> const geometry = makeGeometry(params, in, nullptr, nullptr, nullptr);
    if (!geometry || geometry.value().empty || host::elementCount(geometry.value().outDims) == 0)
    {
        return 1;
    }
    Expected<void*> const handle = libraries.cudnn(nullptr);
    if (!handle)
    {
        return 1;
    }
    Descriptors d;
    std::vector<Algorithm> algorithms;
    if (describe(geometry.value(), d)
        || listAlgorithms(static_cast<cudnnHandle_t>(handle.value()), geometry.value(), d, algorithms))
    {
        return 1;
    }
    return static_cast<int32_t>(algorithms.size());
}

Status runConvolution(ConvolutionParams const& params, DeviceTensor const& in, DeviceTensor const& kernel,
    DeviceTensor const* bias, DeviceTensor const& out, Launch const& launch)
{
    Expected<Geometry> const geometry = makeGeometry(params, in, &kernel, bias, &out);
    if (!geometry)
    {
        return geometry.error();
    }
    Geometry const& g = geometry.value();
    if (launch.tactic < 0)
    {
        return invalid("tactic " + std::to_string(launch.tactic) + " is negative");
    }
    int64_t const outCount = host::elementCount(g.outDims);
    StagedBias const staging = bias == nullptr ? StagedBias{} : StagedBias{bias->data, bias->type, g.maps, g.outVolume};
    if (outCount == 0)
    {
        return Done{};
    }
    if (g.empty)
    {
        // No input channels or no input elements: every output is its bias (or zero), padding being all there is.
        if (launch.tactic != 0)
        {
            return invalid("tactic " + std::to_string(launch.tactic) + " is out of range: an empty input has 1");
        }
        return convertElements({nullptr}, {out.data, out.type, out.scale}, outCount, launch.stream, staging);
    }
    if (launch.libraries == nullptr)
    {
        return invalid("no libraries were given to the launch");
    }
    Expected<void*> const handleOr = launch.libraries->cudnn(launch.stream);
    if (!handleOr)
    {
        return handleOr.error();
    }
    auto const handle = static_cast<cudnnHandle_t>(handleOr.value());
    Descriptors d;
    std::vector<Algorithm> algorithms;
    if (std::optional<Error> error = describe(g, d))
    {
        return *error;
    }
    if (std::optional<Error> error = listAlgorithms(handle, g, d, algorithms))
    {
        return *error;
    }
    if (launch.tactic >= static_cast<int32_t>(algorithms.size()))
    {
        return invalid("tactic " + std::to_string(launch.tactic) + " is out of range: cuDNN offers "
            + std::to_string(algorithms.size()) + " for these shapes");
    }
    Algorithm const& chosen = algorithms[static_cast<std::size_t>(launch.tactic)];
    KILN_CUDNN(cudnnSetConvolutionMathType(d.conv, chosen.math), "cudnnSetConvolutionMathType");
    size_t libraryBytes = 0;
    KILN_CUDNN(cudnnGetConvolutionForwardWorkspaceSize(handle, d.x, d.w, d.conv, d.y, chosen.algo, &libraryBytes),
        "cudnnGetConvolutionForwardWorkspaceSize");

    // The workspace: staged input, staged kernel, staged output, then cuDNN's own.
    int64_t const computeBytes = elementBytes(g.compute);
    bool const stageKernel = kernel.type != g.compute;
    bool const stageOutput = out.type != g.compute;
    int64_t const inputAt = 0;
    int64_t const kernelAt = inputAt + (g.stageInput ? staged(host::elementCount(g.stagedDims) * computeBytes) : 0);
    int64_t const outputAt = kernelAt + (stageKernel ? staged(host::elementCount(g.kernelDims) * computeBytes) : 0);
    int64_t const libraryAt = outputAt + (stageOutput ? staged(outCount * computeBytes) : 0);
    Expected<void*> const workspace
        = launch.libraries->workspace(libraryAt + static_cast<int64_t>(libraryBytes), launch.stream);
    if (!workspace)
    {
        return workspace.error();
    }
    auto* const base = static_cast<std::byte*>(workspace.value());

    void const* x = in.data;
    void const* w = kernel.data;
    void* y = out.data;
    if (g.stageInput)
    {
        Status const done = padSpatial({in.data, in.type, in.scale}, g.inDims, {base + inputAt, g.compute},
            g.stagedDims, g.stagePre, launch.stream);
        if (!done)
        {
            return done.error();
        }
        x = base + inputAt;
    }
    if (stageKernel)
    {
        Status const done = convertElements({kernel.data, kernel.type, kernel.scale}, {base + kernelAt, g.compute},
            host::elementCount(g.kernelDims), launch.stream);
        if (!done)
        {
            return done.error();
        }
        w = base + kernelAt;
    }
    if (stageOutput)
    {
        y = base + outputAt;
    }
    float const alpha = 1.F;
    float const beta = 0.F;
    KILN_CUDNN(cudnnConvolutionForward(handle, &alpha, d.x, x, d.w, w, d.conv, chosen.algo,
                   libraryBytes > 0 ? base + libraryAt : nullptr, libraryBytes, &beta, d.y, y),
        "cudnnConvolutionForward");

    if (stageOutput || bias != nullptr)
    {
        return convertElements({y, g.compute}, {out.data, out.type, out.scale}, outCount, launch.stream, staging);
    }
    return Done{};
}

#undef KILN_CUDNN

} // namespace kiln::cuda
