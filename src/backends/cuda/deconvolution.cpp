// SPDX-License-Identifier: Apache-2.0
// The CUDA deconvolution (kernels.h) for the host reference's cases (backends/host/deconvolution.h): NCHW and NCDHW,
// groups, stride, dilation, padding, a bias per output map, in kFLOAT, kHALF and kBF16, accumulating in float.
//
// - cuDNN: a deconvolution is the backward-data pass of the convolution it inverts. The deconvolution's input is that
//   convolution's output gradient dy [N, C, in...], its kernel [C, K/G, spatial...] is the convolution's filter
//   (C output maps of K/G channels each, G groups), its output the input gradient dx [N, K, out...]; with
//   CUDNN_CROSS_CORRELATION and padding p, dx[j] sums dy[i] * w[t] over i * stride - p + t * dilation == j, which is
//   the deconvolution trimmed by p at the start.
// - Padding: cuDNN trims both ends alike and accepts dx extents E with floor((E + 2p - span) / stride) + 1 == in. An
//   axis whose pre-padding B and post-padding A have 0 <= B - A < stride runs with p = B into the output itself.
//   Otherwise cuDNN writes the deconvolution trimmed by p = min(B, A) at both ends into a staged buffer, and the output
//   is its window starting at B - p (library_staging.h's padSpatial with a negative offset: a crop).
// - Types: kFLOAT with FMA math only (no TF32), kHALF and kBF16 with float compute (cuDNN's PSEUDO_HALF and
//   PSEUDO_BFLOAT16 configurations). Kernel weights of another floating type than the input's are converted first.
// - Bias: added in one elementwise pass over the output after cuDNN (library_staging.h's convertElements).
// - Tactics: cudnnGetConvolutionBackwardDataAlgorithm_v7's supported (algorithm, math type) pairs in its order, at most
//   kMaxAlgorithms, then kiln's direct kernel (deconvolution_direct.h), always the last; when cuDNN offers nothing (or
//   the shapes exceed its int range) the direct kernel is the only tactic; a cuDNN tactic that cuDNN then refuses to
//   run (CUDNN_STATUS_NOT_SUPPORTED) runs the direct kernel instead. Descriptors, tactics and workspace sizes are
//   prepared once per geometry in Libraries::prepared().
// - An input without elements (no batch, channels or positions) gives the bias (or zeros) everywhere.
#include "backends/host/deconvolution.h"
#include "backends/cuda/deconvolution_direct.h"
#include "backends/cuda/kernels.h"
#include "backends/cuda/libraries.h"
#include "backends/cuda/library_staging.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kiln::cuda
{

namespace
{

using host::Done;

//! Where staged buffers start inside the workspace.
constexpr int64_t kStagingAlignment = 256;
//! The most (algorithm, math type) pairs kept from cuDNN's heuristic.
constexpr std::size_t kMaxAlgorithms = 8;
//! Element 0 of the deconvolution's PreparedCache keys (convolution.cpp uses 1).
constexpr int64_t kDeconvolutionFamily = 2;

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "deconvolution: " + message};
}

bool present(nvinfer1::Weights const& weights) noexcept
{
    return weights.count != 0 || weights.values != nullptr;
}

//! The deconvolution as cuDNN runs it.
struct Geometry
{
    host::DeconvolutionGeometry host; //!< Shapes and resolved padding, as the host computes them.
    DataType type{};                  //!< The input's and output's type: cuDNN's tensor type.
    bool empty{};                     //!< The input has no elements: the output is the bias (or zeros).
    bool stageOutput{};               //!< cuDNN writes a staged buffer, which is cropped into the output.
    std::array<int64_t, 3> pad{};     //!< cuDNN's symmetric padding.
    std::array<int64_t, 3> crop{};    //!< Where the output starts in cuDNN's result, per spatial axis.
    Dims inDims{};
    Dims kernelDims{};
    Dims resultDims{}; //!< What cuDNN writes: the output's shape, or the staged buffer's.
};

//! Checks what the host checks (the kernel may be Weights of any floating type) and works out the geometry. kernel:
//! the kernel tensor, or nullptr for the shape params implies (when counting tactics).
Expected<Geometry> makeGeometry(DeconvolutionParams const& params, DeviceTensor const& in, DeviceTensor const* kernel,
    DeviceTensor const* bias, DeviceTensor const* out)
{
    // The host checks a kernel tensor of the input's type; the device also takes Weights of the other floating types.
    DeconvolutionParams tensors = params;
    tensors.kernel = {};
    tensors.bias = {};
    DeviceTensor standIn{nullptr, in.type, {}, 1.F};
    if (kernel != nullptr)
    {
        if (!host::contains(host::kDeconvolutionTypes, kernel->type))
        {
            return invalid(std::string("a kernel of type ") + dataTypeName(kernel->type)
                + " is not supported (it takes " + host::typeSetString(host::kDeconvolutionTypes) + ")");
        }
        standIn.dims = kernel->dims;
    }
    else if (in.dims.nbDims >= 2 && params.nbGroups >= 1 && params.kernelSize.nbDims >= 0
        && params.kernelSize.nbDims <= Dims::MAX_DIMS - 2)
    {
        standIn.dims = Dims{params.kernelSize.nbDims + 2, {in.dims.d[1], params.nbOutputMaps / params.nbGroups}};
        std::copy_n(params.kernelSize.d, params.kernelSize.nbDims, standIn.dims.d + 2);
    }
    if (present(params.bias) && bias == nullptr && kernel != nullptr)
    {
        return invalid("params has bias weights but no bias tensor was given");
    }
    Expected<host::DeconvolutionGeometry> const shaped
        = host::deconvolutionGeometry(tensors, {in.type, in.dims}, host::DeconvolutionOperands{&standIn, bias});
    if (!shaped)
    {
        return shaped.error();
    }
    if (out != nullptr)
    {
        if (std::optional<std::string> const mismatch = host::outputMismatch(*out, in.type, shaped.value().outputDims))
        {
            return invalid(*mismatch);
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

    Geometry g;
    g.host = shaped.value();
    g.type = in.type;
    g.empty = host::elementCount(in.dims) == 0;
    g.inDims = in.dims;
    g.kernelDims = g.host.kernelDims;
    g.resultDims = g.host.outputDims;
    for (int32_t i = 0; i < g.host.nbSpatial; ++i)
    {
        auto const a = static_cast<std::size_t>(i);
        int64_t const pre = g.host.pre[a];
        int64_t const post = g.host.post[a];
        int64_t const stride = g.host.stride[a];
        if (pre >= post && pre - post < stride)
        {
            g.pad[a] = pre; // cuDNN's extent for p = pre is the output's own.
            continue;
        }
        int64_t const common = std::min(pre, post);
        int64_t const span = 1 + g.host.dilation[a] * (g.host.kernel[a] - 1);
        g.pad[a] = common;
        g.crop[a] = pre - common;
        g.resultDims.d[i + 2] = (g.host.in[a] - 1) * stride + span - 2 * common;
        g.stageOutput = true;
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

//! One cuDNN tactic: an algorithm, the math type it runs with, and its workspace.
struct Tactic
{
    cudnnConvolutionBwdDataAlgo_t algo{};
    cudnnMathType_t math{};
    size_t workspaceBytes{};
};

constexpr std::size_t kMathTypes = 4; //!< CUDNN_DEFAULT_MATH .. CUDNN_FMA_MATH, the index of Plan::conv.

//! The prepared state of one geometry: cuDNN's descriptors (one convolution descriptor per math type used) and the
//! tactics cuDNN offers; problem says why there are none. Destroys the descriptors with it.
struct Plan final : Prepared
{
    cudnnTensorDescriptor_t dy{}; //!< The deconvolution's input.
    cudnnTensorDescriptor_t dx{}; //!< cuDNN's result.
    cudnnFilterDescriptor_t w{};
    std::array<cudnnConvolutionDescriptor_t, kMathTypes> conv{};
    std::vector<Tactic> tactics;
    std::vector<std::string> names; //!< The tactics' names (TacticNames), then the direct kernel's; made on request.
    std::optional<Error> problem;   //!< Why cuDNN runs nothing here (tactics is then empty).

    Plan() = default;
    ~Plan() override
    {
        for (cudnnConvolutionDescriptor_t const c : conv)
        {
            if (c != nullptr)
            {
                static_cast<void>(cudnnDestroyConvolutionDescriptor(c));
            }
        }
        if (w != nullptr)
        {
            static_cast<void>(cudnnDestroyFilterDescriptor(w));
        }
        for (cudnnTensorDescriptor_t const t : {dy, dx})
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
            return cudnnFailure(status_, "deconvolution: " what);                                                      \
        }                                                                                                              \
    } while (false)

//! dims as cuDNN's int extents with packed row-major strides; an error when something exceeds int.
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
    if (stride > std::numeric_limits<int>::max())
    {
        return invalid("the shape " + host::shapeString(dims) + " has more elements than cuDNN's int range");
    }
    return std::nullopt;
}

//! A packed NCHW (NCDHW) tensor descriptor.
std::optional<Error> tensorDescriptor(cudnnTensorDescriptor_t& descriptor, cudnnDataType_t type, Dims const& dims)
{
    std::array<int, Dims::MAX_DIMS> extents{};
    std::array<int, Dims::MAX_DIMS> strides{};
    if (std::optional<Error> error = intExtents(dims, extents, strides))
    {
        return error;
    }
    KILN_CUDNN(cudnnCreateTensorDescriptor(&descriptor), "cudnnCreateTensorDescriptor");
    KILN_CUDNN(cudnnSetTensorNdDescriptor(descriptor, type, dims.nbDims, extents.data(), strides.data()),
        "cudnnSetTensorNdDescriptor");
    return std::nullopt;
}

//! plan.conv[math], made on first use.
std::optional<Error> convolutionDescriptor(Geometry const& g, cudnnMathType_t math, Plan& plan)
{
    auto const index = static_cast<std::size_t>(math);
    if (index >= kMathTypes)
    {
        return Error{nvinfer1::ErrorCode::kINTERNAL_ERROR,
            "deconvolution: cuDNN reported the unknown math type " + std::to_string(static_cast<int>(math))};
    }
    if (plan.conv[index] != nullptr)
    {
        return std::nullopt;
    }
    std::array<int, 3> pad{};
    std::array<int, 3> stride{};
    std::array<int, 3> dilation{};
    for (std::size_t a = 0; a < static_cast<std::size_t>(g.host.nbSpatial); ++a)
    {
        for (int64_t const value : {g.pad[a], g.host.stride[a], g.host.dilation[a]})
        {
            if (value > std::numeric_limits<int>::max())
            {
                return invalid(
                    "a padding, stride or dilation of " + std::to_string(value) + " is beyond cuDNN's int range");
            }
        }
        pad[a] = static_cast<int>(g.pad[a]);
        stride[a] = static_cast<int>(g.host.stride[a]);
        dilation[a] = static_cast<int>(g.host.dilation[a]);
    }
    if (g.host.groups > std::numeric_limits<int>::max())
    {
        return invalid(std::to_string(g.host.groups) + " groups are beyond cuDNN's int range");
    }
    cudnnConvolutionDescriptor_t& conv = plan.conv[index];
    KILN_CUDNN(cudnnCreateConvolutionDescriptor(&conv), "cudnnCreateConvolutionDescriptor");
    KILN_CUDNN(cudnnSetConvolutionNdDescriptor(conv, g.host.nbSpatial, pad.data(), stride.data(), dilation.data(),
                   CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
        "cudnnSetConvolutionNdDescriptor");
    KILN_CUDNN(cudnnSetConvolutionGroupCount(conv, static_cast<int>(g.host.groups)), "cudnnSetConvolutionGroupCount");
    KILN_CUDNN(cudnnSetConvolutionMathType(conv, math), "cudnnSetConvolutionMathType");
    return std::nullopt;
}

//! The math type the heuristic is asked with: FMA for kFLOAT (no TF32), tensor-core math for the 16-bit types.
cudnnMathType_t queryMath(Geometry const& g)
{
    return g.type == DataType::kFLOAT ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH;
}

//! Whether a math type may run the geometry: kFLOAT only without tensor cores (FMA), kHALF any, kBF16 any but the
//! conversion (which would round bfloat16 to half).
std::optional<cudnnMathType_t> allowedMath(Geometry const& g, cudnnMathType_t math)
{
    if (g.type == DataType::kFLOAT)
    {
        if (math == CUDNN_TENSOR_OP_MATH || math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION)
        {
            return std::nullopt;
        }
        return CUDNN_FMA_MATH;
    }
    if (g.type == DataType::kBF16 && math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION)
    {
        return std::nullopt;
    }
    return math;
}

//! Whether an algorithm keeps the type's precision: ALGO_0 accumulates with atomic additions into the output, which
//! for kHALF and kBF16 rounds every partial sum to the 16-bit type (on the H100 it erred by up to 0.1 on kBF16 results
//! near 1, and past the tolerance on kHALF, in a 64-channel 3x3 deconvolution; its order also varies from run to run).
bool precise(Geometry const& g, cudnnConvolutionBwdDataAlgo_t algo)
{
    bool const sixteenBit = g.type == DataType::kHALF || g.type == DataType::kBF16;
    return !sixteenBit || algo != CUDNN_CONVOLUTION_BWD_DATA_ALGO_0;
}

//! The descriptors, checked: the forward convolution of cuDNN's result with the filter must give the input's shape.
std::optional<Error> describe(Geometry const& g, Plan& plan)
{
    cudnnDataType_t const type = cudnnType(g.type);
    int const rank = g.host.nbSpatial + 2;
    if (std::optional<Error> error = tensorDescriptor(plan.dy, type, g.inDims))
    {
        return error;
    }
    if (std::optional<Error> error = tensorDescriptor(plan.dx, type, g.resultDims))
    {
        return error;
    }
    std::array<int, Dims::MAX_DIMS> extents{};
    std::array<int, Dims::MAX_DIMS> strides{};
    if (std::optional<Error> error = intExtents(g.kernelDims, extents, strides))
    {
        return error;
    }
    KILN_CUDNN(cudnnCreateFilterDescriptor(&plan.w), "cudnnCreateFilterDescriptor");
    // [C, K/G, spatial...]: the convolution's [output maps, input channels per group, spatial...].
    KILN_CUDNN(cudnnSetFilterNdDescriptor(plan.w, type, CUDNN_TENSOR_NCHW, rank, extents.data()),
        "cudnnSetFilterNdDescriptor");
    if (std::optional<Error> error = convolutionDescriptor(g, queryMath(g), plan))
    {
        return error;
    }
    std::array<int, Dims::MAX_DIMS> forward{};
    KILN_CUDNN(cudnnGetConvolutionNdForwardOutputDim(
                   plan.conv[static_cast<std::size_t>(queryMath(g))], plan.dx, plan.w, rank, forward.data()),
        "cudnnGetConvolutionNdForwardOutputDim");
    for (int32_t i = 0; i < rank; ++i)
    {
        if (forward[static_cast<std::size_t>(i)] != g.inDims.d[i])
        {
            return Error{nvinfer1::ErrorCode::kINTERNAL_ERROR,
                "deconvolution: cuDNN's convolution of " + host::shapeString(g.resultDims) + " gives extent "
                    + std::to_string(forward[static_cast<std::size_t>(i)]) + " on axis " + std::to_string(i)
                    + ", not the input's " + host::shapeString(g.inDims)};
        }
    }
    return std::nullopt;
}

//! The heuristic's supported (algorithm, math type) pairs in its order, each once, with their workspace sizes.
std::optional<Error> listTactics(cudnnHandle_t handle, Geometry const& g, Plan& plan)
{
    int most = 0;
    KILN_CUDNN(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(handle, &most),
        "cudnnGetConvolutionBackwardDataAlgorithmMaxCount");
    std::vector<cudnnConvolutionBwdDataAlgoPerf_t> perf(static_cast<std::size_t>(std::max(most, 1)));
    int returned = 0;
    KILN_CUDNN(cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, plan.w, plan.dy,
                   plan.conv[static_cast<std::size_t>(queryMath(g))], plan.dx, static_cast<int>(perf.size()), &returned,
                   perf.data()),
        "cudnnGetConvolutionBackwardDataAlgorithm_v7");
    for (int i = 0; i < returned && plan.tactics.size() < kMaxAlgorithms; ++i)
    {
        cudnnConvolutionBwdDataAlgoPerf_t const& p = perf[static_cast<std::size_t>(i)];
        std::optional<cudnnMathType_t> const math = allowedMath(g, p.mathType);
        if (p.status != CUDNN_STATUS_SUCCESS || !math || !precise(g, p.algo))
        {
            continue;
        }
        bool const seen = std::any_of(plan.tactics.begin(), plan.tactics.end(),
            [&](Tactic const& t) { return t.algo == p.algo && t.math == *math; });
        if (seen)
        {
            continue;
        }
        if (std::optional<Error> error = convolutionDescriptor(g, *math, plan))
        {
            return error;
        }
        size_t bytes = 0;
        cudnnStatus_t const sized = cudnnGetConvolutionBackwardDataWorkspaceSize(
            handle, plan.w, plan.dy, plan.conv[static_cast<std::size_t>(*math)], plan.dx, p.algo, &bytes);
        if (sized != CUDNN_STATUS_SUCCESS)
        {
            continue;
        }
        plan.tactics.push_back(Tactic{p.algo, *math, bytes});
    }
    return std::nullopt;
}

//! The cache key: everything the plan depends on.
PreparedCache::Key planKey(Geometry const& g)
{
    PreparedCache::Key key{};
    std::size_t at = 0;
    auto const put = [&](int64_t value) { key[at++] = value; };
    put(kDeconvolutionFamily);
    put(static_cast<int64_t>(g.type));
    put(g.host.nbSpatial);
    put(g.host.groups);
    for (Dims const* dims : {&g.inDims, &g.kernelDims, &g.resultDims})
    {
        put(dims->nbDims);
        for (int32_t i = 0; i < 5; ++i)
        {
            put(i < dims->nbDims ? dims->d[i] : 0);
        }
    }
    for (std::size_t a = 0; a < 3; ++a)
    {
        put(g.pad[a]);
        put(g.host.stride[a]);
        put(g.host.dilation[a]);
    }
    return key;
}

//! The plan of g from libraries' cache, prepared and stored on the first request. A geometry cuDNN cannot run gets a
//! plan without tactics (and the reason), so that it is asked once.
Expected<Plan*> findPlan(Libraries& libraries, cudnnHandle_t handle, Geometry const& g)
{
    PreparedCache::Key const key = planKey(g);
    PreparedCache& cache = libraries.prepared();
    if (Prepared* const found = cache.find(key))
    {
        return static_cast<Plan*>(found);
    }
    auto plan = std::make_unique<Plan>();
    plan->problem = describe(g, *plan);
    if (!plan->problem)
    {
        plan->problem = listTactics(handle, g, *plan);
    }
    if (plan->problem)
    {
        plan->tactics.clear();
    }
    return static_cast<Plan*>(cache.insert(key, std::move(plan)));
}

//! The number of cuDNN tactics for g (0 when cuDNN cannot run it, or g needs none: an empty input or output).
int32_t cudnnTactics(Libraries& libraries, Geometry const& g, Plan** plan)
{
    if (g.empty || host::elementCount(g.host.outputDims) == 0)
    {
        return 0;
    }
    Expected<void*> const handle = libraries.planningCudnn(); // Planning: the handle keeps the stream a run bound.
    if (!handle)
    {
        return 0;
    }
    Expected<Plan*> const found = findPlan(libraries, static_cast<cudnnHandle_t>(handle.value()), g);
    if (!found)
    {
        return 0;
    }
    if (plan != nullptr)
    {
        *plan = found.value();
    }
    return static_cast<int32_t>(found.value()->tactics.size());
}

int64_t staged(int64_t bytes)
{
    return (bytes + kStagingAlignment - 1) / kStagingAlignment * kStagingAlignment;
}

//! Runs cuDNN's tactic chosen of plan into out, then adds the bias.
Status runCudnn(Geometry const& g, Plan const& plan, Tactic const& chosen, DeviceTensor const& in,
    DeviceTensor const& kernel, DeviceTensor const* bias, DeviceTensor const& out, Launch const& launch)
{
    Expected<void*> const handleOr = launch.libraries->cudnn(launch.stream);
    if (!handleOr)
    {
        return handleOr.error();
    }
    auto const handle = static_cast<cudnnHandle_t>(handleOr.value());
    // The workspace: the converted kernel, the staged result, then cuDNN's own.
    int64_t const elementBytes = storageBytes(g.type, 1);
    bool const stageKernel = kernel.type != g.type;
    int64_t const kernelAt = 0;
    int64_t const resultAt = kernelAt + (stageKernel ? staged(host::elementCount(g.kernelDims) * elementBytes) : 0);
    int64_t const libraryAt = resultAt + (g.stageOutput ? staged(host::elementCount(g.resultDims) * elementBytes) : 0);
    Expected<void*> const workspace
        = launch.libraries->workspace(libraryAt + static_cast<int64_t>(chosen.workspaceBytes), launch.stream);
    if (!workspace)
    {
        return workspace.error();
    }
    auto* const base = static_cast<std::byte*>(workspace.value());
    void const* w = kernel.data;
    if (stageKernel)
    {
        Status const done = convertElements({kernel.data, kernel.type, kernel.scale}, {base + kernelAt, g.type},
            host::elementCount(g.kernelDims), launch.stream);
        if (!done)
        {
            return done.error();
        }
        w = base + kernelAt;
    }
    void* const result = g.stageOutput ? static_cast<void*>(base + resultAt) : out.data;
    void* const libraryWorkspace = chosen.workspaceBytes > 0 ? base + libraryAt : nullptr;
    float const alpha = 1.F;
    float const beta = 0.F;
    cudnnStatus_t const status = cudnnConvolutionBackwardData(handle, &alpha, plan.w, w, plan.dy, in.data,
        plan.conv[static_cast<std::size_t>(chosen.math)], chosen.algo, libraryWorkspace, chosen.workspaceBytes, &beta,
        plan.dx, result);
    if (status == CUDNN_STATUS_NOT_SUPPORTED)
    {
        // An algorithm the heuristic offered but cuDNN refuses to run: the direct kernel computes the same.
        return runDeconvolutionDirect(g.host, in, kernel, bias, out, launch.stream);
    }
    KILN_CUDNN(status, "cudnnConvolutionBackwardData");
    if (g.stageOutput)
    {
        std::array<int64_t, 3> const shift{-g.crop[0], -g.crop[1], -g.crop[2]};
        Status const done = padSpatial(
            {result, g.type}, g.resultDims, {out.data, out.type, out.scale}, out.dims, shift, launch.stream);
        if (!done)
        {
            return done.error();
        }
    }
    if (bias == nullptr)
    {
        return Done{};
    }
    // The bias varies along the channel axis, outside the spatial axes.
    int64_t spatial = 1;
    for (int32_t i = 2; i < out.dims.nbDims; ++i)
    {
        spatial *= out.dims.d[i];
    }
    return convertElements({out.data, out.type, out.scale}, {out.data, out.type, out.scale},
        host::elementCount(out.dims), launch.stream, StagedBias{bias->data, bias->type, g.host.maps, spatial});
}

} // namespace

TacticNames deconvolutionTacticNames(DeconvolutionParams const& params, DeviceTensor const& in, Libraries& libraries)
{
    static std::string const kDirect = "kiln direct deconvolution";
    static std::string const kOnly[1] = {kDirect};
    Expected<Geometry> const geometry = makeGeometry(params, in, nullptr, nullptr, nullptr);
    Plan* plan = nullptr;
    if (!geometry || cudnnTactics(libraries, geometry.value(), &plan) == 0 || plan == nullptr)
    {
        return kOnly;
    }
    if (plan->names.size() != plan->tactics.size() + 1)
    {
        plan->names.clear();
        for (Tactic const& tactic : plan->tactics)
        {
            plan->names.push_back(
                "cudnn backward-data algo " + std::to_string(tactic.algo) + " math " + std::to_string(tactic.math));
        }
        plan->names.push_back(kDirect);
    }
    return plan->names;
}

int32_t nbDeconvolutionTactics(DeconvolutionParams const& params, DeviceTensor const& in, Libraries& libraries)
{
    return static_cast<int32_t>(deconvolutionTacticNames(params, in, libraries).size());
}

Status runDeconvolution(DeconvolutionParams const& params, DeviceTensor const& in, DeviceTensor const& kernel,
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
    int64_t const outCount = host::elementCount(g.host.outputDims);
    if (outCount == 0)
    {
        return Done{};
    }
    if (g.empty)
    {
        // No batch, channels or input positions: every output is its bias (or zero).
        int64_t spatial = 1;
        for (int32_t i = 2; i < out.dims.nbDims; ++i)
        {
            spatial *= out.dims.d[i];
        }
        StagedBias const staging
            = bias == nullptr ? StagedBias{} : StagedBias{bias->data, bias->type, g.host.maps, spatial};
        return convertElements({nullptr}, {out.data, out.type, out.scale}, outCount, launch.stream, staging);
    }
    if (launch.libraries == nullptr)
    {
        return invalid("no libraries were given to the launch");
    }
    Plan* plan = nullptr;
    int32_t const algorithms = cudnnTactics(*launch.libraries, g, &plan);
    if (launch.tactic > algorithms)
    {
        return invalid("tactic " + std::to_string(launch.tactic) + " is out of range: there are "
            + std::to_string(algorithms + 1) + " for these shapes");
    }
    if (launch.tactic == algorithms)
    {
        return runDeconvolutionDirect(g.host, in, kernel, bias, out, launch.stream);
    }
    return runCudnn(g, *plan, plan->tactics[static_cast<std::size_t>(launch.tactic)], in, kernel, bias, out, launch);
}

#undef KILN_CUDNN

} // namespace kiln::cuda
