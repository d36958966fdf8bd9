// SPDX-License-Identifier: Apache-2.0
// The CUDA convolution (kernels.h) with cuDNN's convolution API, for the host reference's cases (backends/host/
// convolution.h): NCHW and NCDHW, groups, stride, dilation, explicit padding, a bias per output map, in kFLOAT, kHALF,
// kBF16 and kINT8, always accumulating in float.
//
// - Layouts (ConvolutionLayout): kLINEAR tensors are NCHW / NCDHW with a KCRS kernel. kHALF and kBF16 tensors whose
//   output channel count is a multiple of 8 may instead be kHWC8 (2-D) or kDHWC8 (3-D), which are then exactly NHWC /
//   NDHWC; they run with cuDNN's NHWC tensor and filter descriptors (CUDNN_TENSOR_NHWC), the kernel KRSC, as cuDNN's
//   tensor-core kernels read them without transposing anything. An input whose channel count is not a multiple of 8
//   (a network's first convolution, 3 colour channels) is stored padded to the next multiple with zero channels; the
//   convolution runs on the stored channels (one group), with a kernel padded alike (ConvolutionLayout). The input and
//   the output share one format. Everything below holds in both layouts: the bias of the epilogue pass varies along the
//   innermost axis of a channels-last output, and a padded copy pads the spatial axes of [N, spatial..., C].
// - Types: kFLOAT runs cuDNN's FLOAT_CONFIG with FMA math only (no TF32), kHALF and kBF16 the PSEUDO_HALF and
//   PSEUDO_BFLOAT16 configurations (float compute, tensor cores allowed). kINT8 runs in float: the input is
//   dequantized with its scale, the output quantized with its scale (cuDNN's INT8 convolutions need NHWC, vectorized
//   channels and int32 bias scaling, which these tensors are not). A kernel whose type is not the compute type (float
//   Weights for a half convolution, a kINT8 kernel with its per-tensor scale) is converted first.
// - Padding: cuDNN pads both ends of an axis alike. An axis with pre == post, or whose extra post padding produces no
//   further output (kEXPLICIT_ROUND_UP, many kSAME cases), runs with pad = pre. Otherwise the input is copied into a
//   zero-filled buffer that holds the difference (pre - post before, or post - pre after) and cuDNN pads
//   min(pre, post).
// - Epilogue: bias and a fused activation (out = activation(conv + bias), as runActivation computes it; for kINT8
//   before quantizing) run in one elementwise pass after the convolution (library_staging.h), or inside cuDNN's
//   cudnnConvolutionBiasActivationForward for the tactics that ask for it where it is exact: kRELU (NaN propagated,
//   as the host's kRELU does) or bias alone (CUDNN_ACTIVATION_IDENTITY, which cuDNN runs with
//   IMPLICIT_PRECOMP_GEMM only), a bias tensor of the compute type and an output that is not staged. When a run
//   does not meet those conditions (no bias, a bias of another type) or cuDNN refuses, the tactic takes the pass.
// - Residual (a ResNet block's shortcut, fused by the builder: builder/fusion.h): a tensor of the output's type, shape
//   and format added after the bias, before the activation: out = activation(conv + bias + residual). The pass adds
//   it; a fused legacy tactic passes it as cuDNN's z with alpha2 = 1 (z has y's descriptor); a graph tactic adds it
//   in the graph (convolution_graph.h).
// - Staged copies (padded or dequantized input, converted kernel, float output of INT8) and cuDNN's workspace share
//   Libraries::workspace.
// - Tactics: the (algorithm, math type) pairs that cudnnGetConvolutionForwardAlgorithm_v7 reports as supported, in
//   its order, at most kMaxAlgorithms: kFLOAT with FMA math only (never TF32), kHALF and kBF16 queried with tensor-core
//   math (CUDNN_TENSOR_OP_MATH; also CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION for kHALF, whose data are already half),
//   and their default-math entries. Then the same algorithms with cuDNN's fused epilogue where one applies. Then, for
//   kHALF and kBF16, the engine configurations of cuDNN's graph API (convolution_graph.h), with the bias, the residual
//   and a ReLU in the graph when the run's bias is absent or has the compute type and the activation is ReLU or none
//   (the graph's tactics differ with and without a residual, and are listed for the run's): the legacy API does not
//   reach every engine the graph API does (on Hopper, channels-last FP16 convolutions ran ~1.4x slower through it
//   than PyTorch's through the graph API). A graph tactic whose plan cuDNN refuses to finalize, or whose pointers are
//   less than 16-byte aligned, runs tactic 0 instead. Tactic 0 is the legacy API's first choice; the builder times
//   the rest. Last, for a channels-last input of at most 4 channels that the format pads to 8 (a network's stem of 3
//   colour channels), the same two lists again on the input and kernel narrowed to 4 channels in the workspace
//   (narrowed(), library_staging.h's narrowChannels): cuDNN's kernels made for 4-channel images are reached only so.
//   On an H200, ResNet-50's stem at batch 256 ran 1229 us in the best 8-channel kernel and ResNet-50 fp16 went from
//   8.13 to 7.23 ms with the narrowed tactics and the padded reformat (docs/performance.md, seventh session).
// - Prepared state: descriptors (one convolution descriptor per math type), the tactics and their workspace sizes are
//   made once per geometry and kept in Libraries::prepared(), so a steady-state run makes no descriptor or heuristic
//   call: only the convolution and its epilogue (and cudnnSetStream when the stream changed).
// - Operands: the kernel and bias are the device tensors given (params' Weights are not read; a params.bias without a
//   bias tensor is refused). A kINT8 kernel has one scale, the tensor's: per-map kernel scales have no place in a
//   DeviceTensor yet.
#include "backends/host/convolution.h"
#include "backends/cuda/convolution_graph.h"
#include "backends/cuda/kernels.h"
#include "backends/cuda/libraries.h"
#include "backends/cuda/library_staging.h"
#include "backends/host/activation.h"
#include "backends/host/reformat.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <memory>
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
//! The most (algorithm, math type) pairs kept from cuDNN's heuristic, the most legacy tactics in all (with their fused
//! twins), and the most engine configurations kept from the graph API's heuristic.
constexpr std::size_t kMaxAlgorithms = 10;
constexpr std::size_t kMaxTactics = 16;
constexpr std::size_t kMaxGraphTactics = 8;
//! The channel count that narrowed() gives a stem's padded input: cuDNN has kernels made for images of 4 channels
//! (on Hopper, a ResNet-50 stem ran 3x faster in them than as the 8 channels kHWC8 stores).
constexpr int64_t kNarrowChannels = 4;
//! Element 0 of the convolution's PreparedCache keys.
constexpr int64_t kConvolutionFamily = 1;

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
    DataType compute{};  //!< cuDNN's tensor type: the input's, or kFLOAT for kINT8.
    bool stageInput{};   //!< The input is copied (padded, or dequantized) before cuDNN reads it.
    bool empty{};        //!< The input has no elements: the output is the bias (or zeros).
    bool channelsLast{}; //!< The input, output and kernel are [N, spatial..., C] in memory (kHWC8, kDHWC8).
    int64_t groups{};
    int64_t maps{};
    std::array<int64_t, 3> pad{};      //!< cuDNN's symmetric padding.
    std::array<int64_t, 3> stagePre{}; //!< Zeros before each axis in the staged input.
    std::array<int64_t, 3> stride{};
    std::array<int64_t, 3> dilation{};
    //! A channels-last input of at most kNarrowChannels channels whose format pads them further (a stem's 3 colour
    //! channels stored as 8), one group, no padded copy: narrowed() offers more tactics (one key more in the cache).
    bool narrowable{};
    //! 0, or (narrowed()) the channels each input position stores, of which cuDNN reads the first stagedDims.d[1].
    int64_t narrowFrom{};
    Dims inDims{};
    Dims stagedDims{}; //!< What cuDNN reads: inDims, or the staged copy's shape.
    Dims kernelDims{};
    Dims outDims{};
    int64_t outVolume{}; //!< Spatial elements of one output map.
};

//! Whether layout runs a convolution of type from inDims to outDims (shapes the host accepted) channels-last, or the
//! error that refuses it: a format other than kLINEAR and the rank's channels-last format, two formats, a kernel layout
//! that is not the tensors', a channels-last type other than kHALF and kBF16, or an output channel count that is not a
//! multiple of 8 (inDims: the input as stored, its channels padded; storedInput).
Expected<bool> channelsLast(ConvolutionLayout const& layout, DataType type, Dims const& inDims, Dims const& outDims)
{
    using nvinfer1::TensorFormat;
    bool const volumetric = inDims.nbDims == 5;
    TensorFormat const natural = volumetric ? TensorFormat::kDHWC8 : TensorFormat::kHWC8;
    std::string const naturalName = host::formatName(natural);
    for (auto const& [format, role] : {std::pair{layout.input, "input"}, std::pair{layout.output, "output"}})
    {
        if (format != TensorFormat::kLINEAR && format != natural)
        {
            return invalid(std::string("the ") + role + " is in format " + host::formatName(format) + "; a "
                + (volumetric ? "3-D" : "2-D") + " convolution takes kLINEAR or " + naturalName);
        }
    }
    if (layout.input != layout.output)
    {
        return invalid(std::string("the input is in format ") + host::formatName(layout.input) + " but the output in "
            + host::formatName(layout.output) + "; they must share one format");
    }
    bool const last = layout.input == natural;
    if (layout.kernelChannelsLast != last)
    {
        return invalid(last ? "a " + naturalName
                    + " convolution reads its kernel channels-last (KRSC, as the builder stores kernel weights), but "
                      "the kernel given is KCRS"
                            : std::string("a kLINEAR convolution reads a KCRS kernel, but the kernel given is KRSC"));
    }
    if (!last)
    {
        return false;
    }
    if (type != DataType::kHALF && type != DataType::kBF16)
    {
        return invalid(naturalName + " takes kHALF and kBF16 tensors, not " + dataTypeName(type));
    }
    if (outDims.d[1] % 8 != 0)
    {
        return invalid(naturalName + " needs an output channel count that is a multiple of 8 (no padded channels), "
            + "but the output has " + std::to_string(outDims.d[1]));
    }
    return true;
}

//! The input as cuDNN reads it: given, or for a channels-last input whose channels its format pads (kHWC8 stores 3
//! channels as 8) the tensor the format stores, [N, padded channels, spatial...], whose extra channels are zero; or the
//! error that refuses padded channels with groups.
Expected<DeviceTensor> storedInput(
    ConvolutionParams const& params, DeviceTensor const& given, ConvolutionLayout const& layout)
{
    using nvinfer1::TensorFormat;
    bool const volumetric = given.dims.nbDims == 5;
    if (layout.input != (volumetric ? TensorFormat::kDHWC8 : TensorFormat::kHWC8) || given.dims.nbDims < 2)
    {
        return given;
    }
    Expected<host::FormatLayout> const stored = host::formatLayout(layout.input, given.type, given.dims);
    if (!stored || stored.value().paddedChannels == given.dims.d[1])
    {
        return given; // channelsLast() names what is wrong with the format
    }
    if (params.nbGroups != 1)
    {
        return invalid(std::string(host::formatName(layout.input)) + " pads the input's "
            + std::to_string(given.dims.d[1]) + " channels to " + std::to_string(stored.value().paddedChannels)
            + "; a convolution of padded channels takes one group, not " + std::to_string(params.nbGroups));
    }
    DeviceTensor padded = given;
    padded.dims.d[1] = stored.value().paddedChannels;
    return padded;
}

//! Checks what the host checks (and what the device tensors and the layout need) and works out the geometry. kernel:
//! the kernel tensor, or nullptr for the shape params implies (when counting tactics).
Expected<Geometry> makeGeometry(ConvolutionParams const& params, DeviceTensor const& given, DeviceTensor const* kernel,
    DeviceTensor const* bias, DeviceTensor const* out, ConvolutionLayout const& layout)
{
    Expected<DeviceTensor> const stored = storedInput(params, given, layout);
    if (!stored)
    {
        return stored.error();
    }
    DeviceTensor const& in = stored.value();
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
        if (std::optional<std::string> const mismatch = host::outputMismatch(*out, in.type, inferred.value().dims))
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
    Expected<host::Window> const window = host::makeWindow(
        "convolution", params.kernelSize, params.stride, params.dilation, params.prePadding, params.postPadding);
    if (!window)
    {
        return window.error();
    }
    host::Window const& w = window.value();
    Expected<bool> const last = channelsLast(layout, in.type, in.dims, inferred.value().dims);
    if (!last)
    {
        return last.error();
    }

    Geometry g;
    g.channelsLast = last.value();
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
    g.narrowable = g.channelsLast && !g.empty && g.groups == 1 && given.dims.d[1] <= kNarrowChannels
        && in.dims.d[1] > kNarrowChannels;
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
    g.narrowable = g.narrowable && !g.stageInput;
    return g;
}

//! The narrowable geometry g (a channels-last input of C <= kNarrowChannels channels stored as more) run on
//! kNarrowChannels channels: its input and kernel narrowed into the workspace (narrowChannels: the first
//! kNarrowChannels of each position's stored channels, the extra ones zero as the format keeps them) before cuDNN
//! reads them. The same products: the channels dropped are zero in both.
Geometry narrowed(Geometry const& g)
{
    Geometry n = g;
    n.narrowable = false;
    n.narrowFrom = g.stagedDims.d[1];
    n.stagedDims.d[1] = kNarrowChannels;
    n.kernelDims.d[1] = kNarrowChannels;
    n.stageInput = true;
    return n;
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

//! Which epilogue cuDNN could fuse: none (another activation, or a staged output), the bias alone, or bias and ReLU.
enum class Fusable : int64_t
{
    kNONE,
    kBIAS,
    kBIAS_RELU,
};

Fusable fusable(DataType inType, ActivationParams const* activation)
{
    if (inType == DataType::kINT8)
    {
        return Fusable::kNONE; // The output is staged in float and quantized by the pass.
    }
    if (activation == nullptr)
    {
        return Fusable::kBIAS;
    }
    return activation->type == nvinfer1::ActivationType::kRELU ? Fusable::kBIAS_RELU : Fusable::kNONE;
}

//! A run's bias as cuDNN sees it: none, of the compute type (cuDNN can add it), or of another type (the pass adds it).
enum class BiasKind : int64_t
{
    kNONE,
    kFUSABLE,
    kOTHER,
};

BiasKind biasKind(Geometry const& g, DeviceTensor const* bias)
{
    if (bias == nullptr)
    {
        return BiasKind::kNONE;
    }
    return bias->type == g.compute ? BiasKind::kFUSABLE : BiasKind::kOTHER;
}

//! One tactic: an algorithm, the math type it runs with, whether cuDNN fuses the epilogue, and its workspace; or an
//! engine configuration of the graph API (graph >= 0, its index in Plan::graph).
struct Tactic
{
    cudnnConvolutionFwdAlgo_t algo{};
    cudnnMathType_t math{};
    bool fused{};
    size_t workspaceBytes{};
    int32_t graph{-1};
};

constexpr std::size_t kMathTypes = 4; //!< CUDNN_DEFAULT_MATH .. CUDNN_FMA_MATH, the index of Plan::conv.

//! The prepared state of one geometry: cuDNN's descriptors, one convolution descriptor per math type used, and the
//! tactics. Destroys the descriptors with it.
struct Plan final : Prepared
{
    cudnnTensorDescriptor_t x{};
    cudnnTensorDescriptor_t y{};
    cudnnTensorDescriptor_t bias{}; //!< [1, K, 1...] of the compute type, for fused tactics.
    cudnnFilterDescriptor_t w{};
    cudnnActivationDescriptor_t activation{}; //!< For fused tactics.
    std::array<cudnnConvolutionDescriptor_t, kMathTypes> conv{};
    std::vector<Tactic> tactics;
    std::vector<std::string> names; //!< The tactics' names (TacticNames), in the same order.
    bool fusedRefused{};            //!< cuDNN refused a fused run once: fused tactics take the elementwise pass since.
    std::unique_ptr<GraphConvolution> graph; //!< The graph API's tactics, for kHALF and kBF16.
    bool graphEpilogue{}; //!< The graph computes the bias, the residual and the activation (no pass after it).
    //! For a narrowable geometry, the plan of its narrowed() twin, whose tactics follow this one's (null when cuDNN
    //! plans none); names then lists both.
    std::unique_ptr<Plan> narrow;

    //! Tactics of this plan and its narrowed twin.
    std::size_t size() const noexcept { return tactics.size() + (narrow ? narrow->tactics.size() : 0); }

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
        if (activation != nullptr)
        {
            static_cast<void>(cudnnDestroyActivationDescriptor(activation));
        }
        if (w != nullptr)
        {
            static_cast<void>(cudnnDestroyFilterDescriptor(w));
        }
        for (cudnnTensorDescriptor_t const t : {x, y, bias})
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

//! The descriptor of an [N, C, spatial...] tensor, packed NCHW, or NHWC when channelsLast (C innermost, then the
//! spatial axes in order; every stride is at most the NCHW batch stride that intExtents checked).
std::optional<Error> tensorDescriptor(
    cudnnTensorDescriptor_t& descriptor, cudnnDataType_t type, Dims const& dims, bool channelsLast)
{
    std::array<int, Dims::MAX_DIMS> extents{};
    std::array<int, Dims::MAX_DIMS> strides{};
    if (std::optional<Error> error = intExtents(dims, extents, strides))
    {
        return error;
    }
    if (channelsLast)
    {
        int64_t stride = dims.d[1];
        strides[1] = 1;
        for (int32_t i = dims.nbDims - 1; i >= 2; --i)
        {
            strides[static_cast<std::size_t>(i)] = static_cast<int>(stride);
            stride *= dims.d[i];
        }
        strides[0] = static_cast<int>(stride);
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
            "convolution: cuDNN reported the unknown math type " + std::to_string(static_cast<int>(math))};
    }
    if (plan.conv[index] != nullptr)
    {
        return std::nullopt;
    }
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
    if (g.groups > std::numeric_limits<int>::max())
    {
        return invalid(std::to_string(g.groups) + " groups are beyond cuDNN's int range");
    }
    cudnnConvolutionDescriptor_t& conv = plan.conv[index];
    KILN_CUDNN(cudnnCreateConvolutionDescriptor(&conv), "cudnnCreateConvolutionDescriptor");
    KILN_CUDNN(cudnnSetConvolutionNdDescriptor(conv, g.nbSpatial, pad.data(), stride.data(), dilation.data(),
                   CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
        "cudnnSetConvolutionNdDescriptor");
    KILN_CUDNN(cudnnSetConvolutionGroupCount(conv, static_cast<int>(g.groups)), "cudnnSetConvolutionGroupCount");
    KILN_CUDNN(cudnnSetConvolutionMathType(conv, math), "cudnnSetConvolutionMathType");
    return std::nullopt;
}

//! The math type the heuristic is asked with: FMA for kFLOAT (no TF32), tensor-core math for the 16-bit types.
cudnnMathType_t queryMath(Geometry const& g)
{
    return g.compute == DataType::kFLOAT ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH;
}

//! The tensor, filter and first convolution descriptors, checked against the host's output shape.
std::optional<Error> describe(Geometry const& g, Plan& plan)
{
    cudnnDataType_t const type = cudnnType(g.compute);
    int const rank = g.nbSpatial + 2;
    if (std::optional<Error> error = tensorDescriptor(plan.x, type, g.stagedDims, g.channelsLast))
    {
        return error;
    }
    if (std::optional<Error> error = tensorDescriptor(plan.y, type, g.outDims, g.channelsLast))
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
    // The extents are KCRS in both layouts; the format says how the elements lie (KRSC for NHWC).
    KILN_CUDNN(cudnnSetFilterNdDescriptor(
                   plan.w, type, g.channelsLast ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, rank, extents.data()),
        "cudnnSetFilterNdDescriptor");
    cudnnMathType_t const math = queryMath(g);
    if (std::optional<Error> error = convolutionDescriptor(g, math, plan))
    {
        return error;
    }

    // cuDNN's output shape must be the host's (the staging above is what makes it so).
    std::array<int, Dims::MAX_DIMS> cudnnOut{};
    KILN_CUDNN(cudnnGetConvolutionNdForwardOutputDim(
                   plan.conv[static_cast<std::size_t>(math)], plan.x, plan.w, rank, cudnnOut.data()),
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

//! Whether a math type may run the geometry: kFLOAT only without tensor cores (cuDNN's default math would allow
//! TF32, so it becomes FMA), kHALF any, kBF16 any but the conversion (which would round bfloat16 to half).
std::optional<cudnnMathType_t> allowedMath(Geometry const& g, cudnnMathType_t math)
{
    if (g.compute == DataType::kFLOAT)
    {
        if (math == CUDNN_TENSOR_OP_MATH || math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION)
        {
            return std::nullopt;
        }
        return CUDNN_FMA_MATH;
    }
    if (g.compute == DataType::kBF16 && math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION)
    {
        return std::nullopt;
    }
    return math;
}

//! The legacy API's tactics: the heuristic's supported (algorithm, math type) pairs in its order (each once, at most
//! kMaxAlgorithms, each with its workspace size), then their fused twins where cuDNN can fuse the epilogue.
std::optional<Error> listLegacyTactics(cudnnHandle_t handle, Geometry const& g, Fusable fuse, Plan& plan)
{
    int most = 0;
    KILN_CUDNN(
        cudnnGetConvolutionForwardAlgorithmMaxCount(handle, &most), "cudnnGetConvolutionForwardAlgorithmMaxCount");
    std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(static_cast<std::size_t>(std::max(most, 1)));
    int returned = 0;
    KILN_CUDNN(cudnnGetConvolutionForwardAlgorithm_v7(handle, plan.x, plan.w,
                   plan.conv[static_cast<std::size_t>(queryMath(g))], plan.y, static_cast<int>(perf.size()), &returned,
                   perf.data()),
        "cudnnGetConvolutionForwardAlgorithm_v7");
    plan.tactics.clear();
    for (int i = 0; i < returned && plan.tactics.size() < kMaxAlgorithms; ++i)
    {
        cudnnConvolutionFwdAlgoPerf_t const& p = perf[static_cast<std::size_t>(i)];
        std::optional<cudnnMathType_t> const math = allowedMath(g, p.mathType);
        if (p.status != CUDNN_STATUS_SUCCESS || !math)
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
        cudnnStatus_t const sized = cudnnGetConvolutionForwardWorkspaceSize(
            handle, plan.x, plan.w, plan.conv[static_cast<std::size_t>(*math)], plan.y, p.algo, &bytes);
        if (sized == CUDNN_STATUS_NOT_SUPPORTED)
        {
            continue;
        }
        KILN_CUDNN(sized, "cudnnGetConvolutionForwardWorkspaceSize");
        plan.tactics.push_back(Tactic{p.algo, *math, false, bytes});
    }
    if (plan.tactics.empty())
    {
        return cudnnFailure(
            CUDNN_STATUS_NOT_SUPPORTED, "convolution: cudnnGetConvolutionForwardAlgorithm_v7 (no algorithm)");
    }
    if (fuse == Fusable::kNONE)
    {
        return std::nullopt;
    }
    std::size_t const algorithms = plan.tactics.size();
    for (std::size_t i = 0; i < algorithms && plan.tactics.size() < kMaxTactics; ++i)
    {
        Tactic twin = plan.tactics[i];
        // cuDNN fuses a bias alone (the identity activation) with IMPLICIT_PRECOMP_GEMM only.
        if (fuse == Fusable::kBIAS && twin.algo != CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM)
        {
            continue;
        }
        twin.fused = true;
        plan.tactics.push_back(twin);
    }
    if (plan.tactics.size() == algorithms)
    {
        return std::nullopt;
    }
    std::array<int, Dims::MAX_DIMS> biasDims{};
    std::array<int, Dims::MAX_DIMS> biasStrides{};
    std::fill_n(biasDims.begin(), g.nbSpatial + 2, 1);
    std::fill_n(biasStrides.begin(), g.nbSpatial + 2, 1);
    if (g.maps > std::numeric_limits<int>::max())
    {
        return invalid(std::to_string(g.maps) + " output maps are beyond cuDNN's int range");
    }
    biasDims[1] = static_cast<int>(g.maps);
    KILN_CUDNN(cudnnCreateTensorDescriptor(&plan.bias), "cudnnCreateTensorDescriptor");
    KILN_CUDNN(cudnnSetTensorNdDescriptor(
                   plan.bias, cudnnType(g.compute), g.nbSpatial + 2, biasDims.data(), biasStrides.data()),
        "cudnnSetTensorNdDescriptor (bias)");
    KILN_CUDNN(cudnnCreateActivationDescriptor(&plan.activation), "cudnnCreateActivationDescriptor");
    KILN_CUDNN(
        cudnnSetActivationDescriptor(plan.activation,
            fuse == Fusable::kBIAS_RELU ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY, CUDNN_PROPAGATE_NAN, 0.0),
        "cudnnSetActivationDescriptor");
    return std::nullopt;
}

//! The packed strides of an [N, C, spatial...] tensor (or a [K, C/G, spatial...] kernel) as cuDNN's graph API takes
//! them: NCHW, or NHWC when channelsLast (axis 1 innermost, then the spatial axes in order).
std::array<int64_t, 5> packedStrides(Dims const& dims, bool channelsLast)
{
    std::array<int64_t, 5> strides{};
    int64_t stride = 1;
    if (channelsLast)
    {
        strides[1] = 1;
        stride = dims.d[1];
    }
    for (int32_t i = dims.nbDims - 1; i >= (channelsLast ? 2 : 0); --i)
    {
        strides[static_cast<std::size_t>(i)] = stride;
        stride *= dims.d[i];
    }
    if (channelsLast)
    {
        strides[0] = stride;
    }
    return strides;
}

std::array<int64_t, 5> extents(Dims const& dims)
{
    std::array<int64_t, 5> values{};
    std::copy_n(dims.d, dims.nbDims, values.begin());
    return values;
}

//! The graph API's tactics, after the legacy ones: its engine configurations for the 16-bit types (kFLOAT stays with
//! the legacy API, whose FMA math type is how kiln refuses TF32), with the bias, the residual and a ReLU in the graph
//! when the epilogue fits it (no bias or one of the compute type, ReLU or no activation). A graph cuDNN cannot
//! describe adds no tactic.
void listGraphTactics(
    cudnnHandle_t handle, Geometry const& g, DataType inType, BiasKind bias, bool residual, Fusable fuse, Plan& plan)
{
    if (inType != g.compute || (g.compute != DataType::kHALF && g.compute != DataType::kBF16))
    {
        return;
    }
    GraphConvolutionProblem problem{};
    problem.type = cudnnType(g.compute);
    problem.nbSpatial = g.nbSpatial;
    problem.xDims = extents(g.stagedDims);
    problem.xStrides = packedStrides(g.stagedDims, g.channelsLast);
    problem.wDims = extents(g.kernelDims);
    problem.wStrides = packedStrides(g.kernelDims, g.channelsLast);
    problem.yDims = extents(g.outDims);
    problem.yStrides = packedStrides(g.outDims, g.channelsLast);
    problem.pad = g.pad;
    problem.stride = g.stride;
    problem.dilation = g.dilation;
    bool const fuseEpilogue = fuse != Fusable::kNONE && bias != BiasKind::kOTHER;
    problem.bias = fuseEpilogue && bias == BiasKind::kFUSABLE;
    problem.residual = fuseEpilogue && residual;
    problem.relu = fuseEpilogue && fuse == Fusable::kBIAS_RELU;
    Expected<std::unique_ptr<GraphConvolution>> made = GraphConvolution::make(handle, problem, kMaxGraphTactics);
    if (!made)
    {
        return;
    }
    for (std::size_t i = 0; i < made.value()->size(); ++i)
    {
        Tactic tactic{};
        tactic.graph = static_cast<int32_t>(i);
        plan.tactics.push_back(tactic);
    }
    plan.graph = std::move(made.value());
    plan.graphEpilogue = fuseEpilogue;
}

//! Every tactic: the legacy API's, then the graph API's.
std::optional<Error> listTactics(
    cudnnHandle_t handle, Geometry const& g, DataType inType, Fusable fuse, BiasKind bias, bool residual, Plan& plan)
{
    if (std::optional<Error> error = listLegacyTactics(handle, g, fuse, plan))
    {
        return error;
    }
    listGraphTactics(handle, g, inType, bias, residual, fuse, plan);
    plan.names.clear();
    for (Tactic const& tactic : plan.tactics)
    {
        plan.names.push_back(tactic.graph >= 0 ? plan.graph->name(static_cast<std::size_t>(tactic.graph))
                                               : "cudnn forward algo " + std::to_string(tactic.algo) + " math "
                    + std::to_string(tactic.math) + (tactic.fused ? " fused" : ""));
    }
    return std::nullopt;
}

//! The cache key: everything the plan depends on.
PreparedCache::Key planKey(Geometry const& g, DataType inType, Fusable fuse, BiasKind bias, bool residual)
{
    PreparedCache::Key key{};
    std::size_t at = 0;
    auto const put = [&](int64_t value) { key[at++] = value; };
    put(kConvolutionFamily);
    put(static_cast<int64_t>(inType));
    put(static_cast<int64_t>(g.compute));
    put(static_cast<int64_t>(fuse));
    put(static_cast<int64_t>(bias));
    put(residual ? 1 : 0);
    put(g.channelsLast ? 1 : 0);
    put(g.narrowable ? 1 : 0);
    put(g.narrowFrom);
    put(g.nbSpatial);
    put(g.groups);
    for (Dims const* dims : {&g.stagedDims, &g.kernelDims, &g.outDims})
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
        put(g.stride[a]);
        put(g.dilation[a]);
    }
    return key;
}

//! The plan of g from libraries' cache, prepared and stored on the first request.
Expected<Plan*> findPlan(Libraries& libraries, cudnnHandle_t handle, Geometry const& g, DataType inType, Fusable fuse,
    BiasKind bias, bool residual)
{
    PreparedCache::Key const key = planKey(g, inType, fuse, bias, residual);
    PreparedCache& cache = libraries.prepared();
    if (Prepared* const found = cache.find(key))
    {
        return static_cast<Plan*>(found);
    }
    auto plan = std::make_unique<Plan>();
    if (std::optional<Error> error = describe(g, *plan))
    {
        return *error;
    }
    if (std::optional<Error> error = listTactics(handle, g, inType, fuse, bias, residual, *plan))
    {
        return *error;
    }
    if (g.narrowable)
    {
        Geometry const n = narrowed(g);
        auto twin = std::make_unique<Plan>();
        if (!describe(n, *twin) && !listTactics(handle, n, inType, fuse, bias, residual, *twin))
        {
            for (std::string const& name : twin->names)
            {
                plan->names.push_back("input channels narrowed from " + std::to_string(n.narrowFrom) + " to "
                    + std::to_string(kNarrowChannels) + ": " + name);
            }
            plan->narrow = std::move(twin);
        }
    }
    return static_cast<Plan*>(cache.insert(key, std::move(plan)));
}

int64_t staged(int64_t bytes)
{
    return (bytes + kStagingAlignment - 1) / kStagingAlignment * kStagingAlignment;
}

//! The zero-padded copy of the input as padSpatial takes it: [N, C, spatial...] as they are for NCHW; for NHWC the same
//! memory seen as [N, 1, spatial...] whose last axis runs over the C channels of each position, padded by C elements
//! per padded position (its elements are (w, c) at w * C + c, moved to (w + pre) * C + c).
struct StagedPadding
{
    Dims inDims;
    Dims outDims;
    std::array<int64_t, 3> pre{};
};
StagedPadding stagedPadding(Geometry const& g)
{
    StagedPadding padding{g.inDims, g.stagedDims, g.stagePre};
    if (g.channelsLast)
    {
        int64_t const channels = g.inDims.d[1];
        auto const last = static_cast<std::size_t>(g.nbSpatial - 1);
        padding.inDims.d[1] = 1;
        padding.outDims.d[1] = 1;
        padding.inDims.d[g.nbSpatial + 1] *= channels;
        padding.outDims.d[g.nbSpatial + 1] *= channels;
        padding.pre[last] *= channels;
    }
    return padding;
}

//! The activation as the staging pass takes it (none for nullptr).
StagedActivation stagedActivation(ActivationParams const* activation)
{
    return activation == nullptr ? StagedActivation{}
                                 : StagedActivation{true, activation->type, activation->alpha, activation->beta};
}

//! The plan of a convolution's problem, or nullptr for an empty problem or one cuDNN cannot plan (its one variant).
Plan* planOf(ConvolutionParams const& params, DeviceTensor const& in, DeviceTensor const* bias,
    ActivationParams const* activation, Libraries& libraries, ConvolutionLayout const& layout, bool residual)
{
    Expected<Geometry> const geometry = makeGeometry(params, in, nullptr, nullptr, nullptr, layout);
    if (!geometry || geometry.value().empty || host::elementCount(geometry.value().outDims) == 0)
    {
        return nullptr;
    }
    // Planning only: the handle keeps the stream a run bound it to (binding the legacy stream here, between a run's
    // binding and its launches, broke the capture of a blocking stream).
    Expected<void*> const handle = libraries.planningCudnn();
    if (!handle)
    {
        return nullptr;
    }
    Geometry const& g = geometry.value();
    Expected<Plan*> const plan = findPlan(libraries, static_cast<cudnnHandle_t>(handle.value()), g, in.type,
        fusable(in.type, activation), biasKind(g, bias), residual);
    return plan ? plan.value() : nullptr;
}

} // namespace

ConvolutionTacticCounts countConvolutionTactics(ConvolutionParams const& params, DeviceTensor const& in,
    DeviceTensor const* bias, DeviceTensor const& out, ActivationParams const* activation, Libraries& libraries,
    ConvolutionLayout const& layout, DeviceTensor const* residual)
{
    static_cast<void>(out);
    Plan const* const plan = planOf(params, in, bias, activation, libraries, layout, residual != nullptr);
    if (plan == nullptr)
    {
        return {};
    }
    auto const graph = static_cast<int32_t>(plan->graph ? plan->graph->size() : 0);
    auto const narrowed = static_cast<int32_t>(plan->narrow ? plan->narrow->tactics.size() : 0);
    return {static_cast<int32_t>(plan->tactics.size()) - graph, graph, narrowed};
}

TacticNames convolutionTacticNames(ConvolutionParams const& params, DeviceTensor const& in, DeviceTensor const* bias,
    DeviceTensor const& out, ActivationParams const* activation, Libraries& libraries, ConvolutionLayout const& layout,
    DeviceTensor const* residual)
{
    static_cast<void>(out);
    static std::string const kOnly[1] = {"kiln default convolution"};
    Plan const* const plan = planOf(params, in, bias, activation, libraries, layout, residual != nullptr);
    return plan == nullptr ? TacticNames(kOnly) : TacticNames(plan->names);
}

int32_t nbConvolutionTactics(ConvolutionParams const& params, DeviceTensor const& in, DeviceTensor const* bias,
    DeviceTensor const& out, ActivationParams const* activation, Libraries& libraries, ConvolutionLayout const& layout,
    DeviceTensor const* residual)
{
    return static_cast<int32_t>(
        convolutionTacticNames(params, in, bias, out, activation, libraries, layout, residual).size());
}

Status runConvolution(ConvolutionParams const& params, DeviceTensor const& in, DeviceTensor const& kernel,
    DeviceTensor const* bias, ActivationParams const* activation, DeviceTensor const& out, Launch const& launch,
    ConvolutionLayout const& layout, DeviceTensor const* residual)
{
    Expected<Geometry> const geometry = makeGeometry(params, in, &kernel, bias, &out, layout);
    if (!geometry)
    {
        return geometry.error();
    }
    Geometry g = geometry.value();
    if (launch.tactic < 0)
    {
        return invalid("tactic " + std::to_string(launch.tactic) + " is negative");
    }
    if (activation != nullptr)
    {
        Expected<host::TensorDesc> const accepted = host::inferActivation(
            host::ActivationParams{activation->type, activation->alpha, activation->beta}, {out.type, out.dims});
        if (!accepted)
        {
            return invalid("the fused activation: " + accepted.error().message);
        }
    }
    if (residual != nullptr)
    {
        if (std::optional<std::string> const mismatch = host::outputMismatch(*residual, out.type, g.outDims))
        {
            return invalid("the residual, like the output: " + *mismatch);
        }
        if (layout.residual != layout.output)
        {
            return invalid(std::string("the residual is in format ") + host::formatName(layout.residual)
                + "; it must be in the output's, " + host::formatName(layout.output));
        }
        if (std::optional<Error> const error = host::checkTensor(*residual, "the residual"))
        {
            return invalid(error->message);
        }
    }
    int64_t const outCount = host::elementCount(g.outDims);
    // The bias varies along the channel axis: innermost channels-last, outside the spatial axes otherwise.
    StagedBias const staging = bias == nullptr
        ? StagedBias{}
        : StagedBias{bias->data, bias->type, g.maps, g.channelsLast ? int64_t{1} : g.outVolume};
    StagedActivation const epilogue = stagedActivation(activation);
    StagedElements const shortcut
        = residual == nullptr ? StagedElements{} : StagedElements{residual->data, residual->type, residual->scale};
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
        return convertElements(
            {nullptr}, {out.data, out.type, out.scale}, outCount, launch.stream, staging, epilogue, shortcut);
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
    Expected<Plan*> const planOr = findPlan(
        *launch.libraries, handle, g, in.type, fusable(in.type, activation), biasKind(g, bias), residual != nullptr);
    if (!planOr)
    {
        return planOr.error();
    }
    if (static_cast<std::size_t>(launch.tactic) >= planOr.value()->size())
    {
        return invalid("tactic " + std::to_string(launch.tactic) + " is out of range: cuDNN offers "
            + std::to_string(planOr.value()->size()) + " for these shapes");
    }
    auto tactic = static_cast<std::size_t>(launch.tactic);
    Plan* runs = planOr.value();
    if (tactic >= runs->tactics.size())
    {
        // A tactic of the narrowed twin: cuDNN reads kNarrowChannels of the input's and the kernel's channels.
        tactic -= runs->tactics.size();
        runs = runs->narrow.get();
        g = narrowed(g);
    }
    Plan& plan = *runs;
    Tactic const* chosen = &plan.tactics[tactic];
    size_t libraryBytes = chosen->workspaceBytes;
    bool const narrowKernel = g.narrowFrom > 0;
    bool const convertKernel = kernel.type != g.compute;
    bool const stageKernel = convertKernel || narrowKernel;
    bool const stageOutput = out.type != g.compute;
    if (chosen->graph >= 0)
    {
        // A graph tactic cuDNN refuses to finalize, or pointers less aligned than its graph says (staged buffers are
        // aligned), run the legacy API's first choice instead.
        auto const index = static_cast<std::size_t>(chosen->graph);
        Expected<std::size_t> const prepared = plan.graph->prepare(handle, index);
        bool const aligned = plan.graph->aligned({g.stageInput ? nullptr : in.data, stageKernel ? nullptr : kernel.data,
            bias != nullptr ? bias->data : nullptr, out.data, residual != nullptr ? residual->data : nullptr});
        if (prepared && aligned && !stageOutput)
        {
            libraryBytes = prepared.value();
        }
        else
        {
            chosen = &plan.tactics.front();
            libraryBytes = chosen->workspaceBytes;
        }
    }

    // The workspace: staged input, staged kernel (and the converted kernel it is narrowed from), staged output, then
    // cuDNN's own.
    int64_t const computeBytes = elementBytes(g.compute);
    int64_t const inputAt = 0;
    int64_t const kernelAt = inputAt + (g.stageInput ? staged(host::elementCount(g.stagedDims) * computeBytes) : 0);
    int64_t const wideKernelAt = kernelAt + (stageKernel ? staged(host::elementCount(g.kernelDims) * computeBytes) : 0);
    int64_t const outputAt
        = wideKernelAt + (narrowKernel && convertKernel ? staged(host::elementCount(kernel.dims) * computeBytes) : 0);
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
    if (g.stageInput && g.narrowFrom > 0)
    {
        Status const done = narrowChannels(in.data, base + inputAt, host::elementCount(g.inDims) / g.narrowFrom,
            g.narrowFrom, g.stagedDims.d[1], computeBytes, launch.stream);
        if (!done)
        {
            return done.error();
        }
        x = base + inputAt;
    }
    else if (g.stageInput)
    {
        StagedPadding const padding = stagedPadding(g);
        Status const done = padSpatial({in.data, in.type, in.scale}, padding.inDims, {base + inputAt, g.compute},
            padding.outDims, padding.pre, launch.stream);
        if (!done)
        {
            return done.error();
        }
        x = base + inputAt;
    }
    if (convertKernel)
    {
        std::byte* const converted = base + (narrowKernel ? wideKernelAt : kernelAt);
        Status const done = convertElements({kernel.data, kernel.type, kernel.scale}, {converted, g.compute},
            host::elementCount(kernel.dims), launch.stream);
        if (!done)
        {
            return done.error();
        }
        w = converted;
    }
    if (narrowKernel)
    {
        Status const done = narrowChannels(w, base + kernelAt, host::elementCount(kernel.dims) / g.narrowFrom,
            g.narrowFrom, g.kernelDims.d[1], computeBytes, launch.stream);
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
    void* const libraryWorkspace = libraryBytes > 0 ? base + libraryAt : nullptr;
    if (chosen->graph >= 0)
    {
        GraphConvolution& graph = *plan.graph;
        GraphConvolutionProblem const& problem = graph.problem();
        if (std::optional<Error> failed = graph.run(handle, static_cast<std::size_t>(chosen->graph),
                {x, w, problem.bias ? bias->data : nullptr, y, problem.residual ? residual->data : nullptr},
                libraryWorkspace))
        {
            return *failed;
        }
        if (plan.graphEpilogue)
        {
            return Done{}; // The bias, the residual and the activation ran in the graph.
        }
        return stageOutput || bias != nullptr || activation != nullptr || residual != nullptr
            ? convertElements(
                {y, g.compute}, {out.data, out.type, out.scale}, outCount, launch.stream, staging, epilogue, shortcut)
            : Status{Done{}};
    }
    cudnnConvolutionDescriptor_t const conv = plan.conv[static_cast<std::size_t>(chosen->math)];
    float const alpha = 1.F;
    float const beta = 0.F;
    if (chosen->fused && !plan.fusedRefused && !stageOutput && bias != nullptr && bias->type == g.compute)
    {
        // y = act(conv + alpha2 * z + bias): z the residual with alpha2 = 1 (it has y's type, shape and layout), or
        // z = y with alpha2 = 0 (cuDNN reads no z then).
        float const alpha2 = residual != nullptr ? 1.F : 0.F;
        void const* const z = residual != nullptr ? residual->data : y;
        cudnnStatus_t const status
            = cudnnConvolutionBiasActivationForward(handle, &alpha, plan.x, x, plan.w, w, conv, chosen->algo,
                libraryWorkspace, libraryBytes, &alpha2, plan.y, z, plan.bias, bias->data, plan.activation, plan.y, y);
        if (status == CUDNN_STATUS_SUCCESS)
        {
            return Done{};
        }
        if (status != CUDNN_STATUS_NOT_SUPPORTED)
        {
            return cudnnFailure(status, "convolution: cudnnConvolutionBiasActivationForward");
        }
        plan.fusedRefused = true;
    }
    KILN_CUDNN(cudnnConvolutionForward(handle, &alpha, plan.x, x, plan.w, w, conv, chosen->algo, libraryWorkspace,
                   libraryBytes, &beta, plan.y, y),
        "cudnnConvolutionForward");

    if (stageOutput || bias != nullptr || activation != nullptr || residual != nullptr)
    {
        return convertElements(
            {y, g.compute}, {out.data, out.type, out.scale}, outCount, launch.stream, staging, epilogue, shortcut);
    }
    return Done{};
}

#undef KILN_CUDNN

} // namespace kiln::cuda
