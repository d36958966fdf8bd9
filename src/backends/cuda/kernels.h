// SPDX-License-Identifier: Apache-2.0
// The CUDA backend's kernels, one function per layer family, in the host reference kernels' shape
// (backends/host/<family>.h): the same parameters, already completed by the layer's descriptor (explicit padding,
// values read from inputs), and the same tensor views, whose data are device pointers. Each launches its work on
// launch.stream and returns without waiting for it; an error says why the kernel cannot run (a type, a shape, a CUDA
// or library error) and the caller adds the layer's name.
//
//     Status const done = cuda::runElementWise(params, a, b, out, launch);   // a, b, out: device memory
//
// The kernels accept what the host kernels accept (the builder has run the host infer on the same shapes), and
// compute in float where the host computes in double (int64_t for integers), so results match the host within a
// tolerance per type. Families with variants (tactics) list them by name (TacticNames); launch.tactic picks one by
// its index, 0 being the default.
#pragma once

#include "backends/host/nms.h"
#include "backends/host/tensor_view.h"
#include "network/params.h"
#include "plan/engine_model.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace kiln::cuda
{

using host::Status;
//! A view of a tensor in device memory: the host backend's view type, its data a device pointer.
using DeviceTensor = host::HostTensor;

class Libraries;
class PreparedCache;
class MatmulCache;

//! The variants of a kernel family for one problem, in tactic order, each named for what it runs: cuDNN's algorithm
//! and math type, the graph API's engine and knob choices, cuBLASLt's algorithm configuration, or kiln's own kernel.
//! The same library version names the same variant the same way, wherever its heuristic lists it: the builder records
//! the chosen name in the plan and the engine runs that variant (chosenTactic, plan/engine_model.h). The names live in
//! the libraries' prepared state (or are static), valid while it is.
using TacticNames = std::span<std::string const>;

//! Where and how a kernel runs.
struct Launch
{
    cudaStream_t stream{};
    Libraries* libraries{}; //!< The cuBLASLt and cuDNN handles of the execution context (never null).
    int32_t tactic{};       //!< The variant the builder chose; 0: the family's default.
};

//! The error for a failed CUDA call: what was done and cudaGetErrorString.
Error cudaFailure(cudaError_t status, char const* what);

// ---- Pointwise (elementwise.cu, unary.cu, activation.cu, cast.cu, select.cu, fill.cu, pointwise_program.cu) ------

Status runElementWise(ElementWiseParams const& params, DeviceTensor const& a, DeviceTensor const& b,
    DeviceTensor const& out, Launch const& launch);
Status runUnary(UnaryParams const& params, DeviceTensor const& in, DeviceTensor const& out, Launch const& launch);
Status runActivation(
    ActivationParams const& params, DeviceTensor const& in, DeviceTensor const& out, Launch const& launch);
//! Cast, and identity between tensors of different types or scales (the host's identity casts then too).
Status runCast(DeviceTensor const& in, DeviceTensor const& out, Launch const& launch);
Status runSelect(DeviceTensor const& condition, DeviceTensor const& thenInput, DeviceTensor const& elseInput,
    DeviceTensor const& out, Launch const& launch);
//! alpha and beta: the optional input tensors (device memory; nullptr when absent).
Status runFill(FillParams const& params, DeviceTensor const& out, DeviceTensor const* alpha, DeviceTensor const* beta,
    Launch const& launch);
//! A fused point-wise program (LayerRecord::pointwise; the rules and results of host::runPointwiseProgram) in one
//! kernel: at most kMaxPointwiseSteps steps over at most kMaxPointwiseInputs inputs (plan/engine_model.h).
Status runPointwiseProgram(std::span<PointwiseStep const> program, std::span<DeviceTensor const* const> inputs,
    DeviceTensor const& out, Launch const& launch);

// ---- Data movement (shuffle.cu, slice.cu, concatenation.cu, gather.cu, reformat.cu, resize.cu, grid_sample.cu,
//      reverse_sequence.cu) -------------------------------------------------------------------------------------------

Status runShuffle(ShuffleParams const& params, DeviceTensor const& in, DeviceTensor const& out, Launch const& launch);
Status runSlice(SliceParams const& params, DeviceTensor const& in, DeviceTensor const* fillValue,
    DeviceTensor const& out, Launch const& launch);
Status runConcatenation(ConcatenationParams const& params, std::span<DeviceTensor const> inputs,
    DeviceTensor const& out, Launch const& launch);
Status runGather(GatherParams const& params, DeviceTensor const& data, DeviceTensor const& indices,
    DeviceTensor const& out, Launch const& launch);
//! Rewrites src (in srcFormat) as dst (in dstFormat): any pair of the formats backends/host/reformat.h knows.
Status runReformat(DeviceTensor const& src, nvinfer1::TensorFormat srcFormat, DeviceTensor const& dst,
    nvinfer1::TensorFormat dstFormat, Launch const& launch);
//! out = data with updates written at indices (backends/host/scatter.h); out may be data.
Status runScatter(ScatterParams const& params, DeviceTensor const& data, DeviceTensor const& indices,
    DeviceTensor const& updates, DeviceTensor const& out, Launch const& launch);
//! params.outputDims holds input 1's values when the layer has it (host::prepareRun reads them).
Status runResize(ResizeParams const& params, DeviceTensor const& in, DeviceTensor const& out, Launch const& launch);
//! out[n, c, h, w] = in[n, c] sampled at grid[n, h, w] (backends/host/grid_sample.h).
Status runGridSample(GridSampleParams const& params, DeviceTensor const& in, DeviceTensor const& grid,
    DeviceTensor const& out, Launch const& launch);
//! out = in with each batch's first lengths[b] elements along the sequence axis reversed
//! (backends/host/reverse_sequence.h); lengths in device memory.
Status runReverseSequence(ReverseSequenceParams const& params, DeviceTensor const& in, DeviceTensor const& lengths,
    DeviceTensor const& out, Launch const& launch);

// ---- Quantization (quantize.cu) ----------------------------------------------------------------------------------

//! zeroPoint: the optional input 2 (device memory; nullptr when absent). out holds the codes (kINT4 packed).
Status runQuantize(QuantizeParams const& params, DeviceTensor const& in, DeviceTensor const& scale,
    DeviceTensor const* zeroPoint, DeviceTensor const& out, Launch const& launch);
Status runDequantize(DequantizeParams const& params, DeviceTensor const& in, DeviceTensor const& scale,
    DeviceTensor const* zeroPoint, DeviceTensor const& out, Launch const& launch);

// ---- Reductions and windows (reduce.cu, softmax.cu, pooling.cu, topk.cu, cumulative.cu, einsum.cu) ------------------

Status runReduce(ReduceParams const& params, DeviceTensor const& in, DeviceTensor const& out, Launch const& launch);
//! params.k is k however the layer gives it (host::prepareRun reads input 1 into it). Needs launch.libraries for its
//! scratch memory.
Status runTopK(TopKParams const& params, DeviceTensor const& in, DeviceTensor const& values,
    DeviceTensor const& indices, Launch const& launch);
Status runSoftMax(SoftMaxParams const& params, DeviceTensor const& in, DeviceTensor const& out, Launch const& launch);
//! format: the input's and the output's, kLINEAR or (kHALF and kBF16, 16-byte aligned) the window's channels-last one,
//! kHWC8 for a 2-D window over a rank-4 tensor, kDHWC8 for a 3-D one over rank 5 (builder/layout.h).
Status runPooling(PoolingParams const& params, DeviceTensor const& in, DeviceTensor const& out, Launch const& launch,
    nvinfer1::TensorFormat format = nvinfer1::TensorFormat::kLINEAR);
//! params.axis is the axis, read from input 1 by host::prepareRun.
Status runCumulative(
    CumulativeParams const& params, DeviceTensor const& in, DeviceTensor const& out, Launch const& launch);
//! One or two inputs (backends/host/einsum.h): one thread per output element sums over the summed labels.
Status runEinsum(
    EinsumParams const& params, std::span<DeviceTensor const> inputs, DeviceTensor const& out, Launch const& launch);

// ---- Data-dependent shapes (non_zero.cu, nms.cu) ------------------------------------------------------------------

//! The coordinates of in's non-zero elements (backends/host/non_zero.h): indices has room for every element
//! ([rank, at least volume]) and gets [rank, n] compactly from its start; count (0-D kINT32 or kINT64, device memory)
//! gets n. Needs launch.libraries for its scratch memory; at most 2^31 - 1 elements.
Status runNonZero(NonZeroParams const& params, DeviceTensor const& in, DeviceTensor const& indices,
    DeviceTensor const& count, Launch const& launch);
//! Non-maximum suppression (backends/host/nms.h): scalars are inputs 2 to 4 as the host read them; selected has room
//! for every row the layer can make and gets the rows compactly from its start; count (device memory) gets their
//! number. Needs launch.libraries for its scratch memory; at most 2^31 - 1 (batch, box, class) candidates.
Status runNMS(NMSParams const& params, DeviceTensor const& boxes, DeviceTensor const& scores,
    host::NMSScalars const& scalars, DeviceTensor const& selected, DeviceTensor const& count, Launch const& launch);

// ---- Fused kernels (fused.cu; FusedKernel in plan/engine_model.h) -----------------------------------------------

//! out = (in - mean) / sqrt(variance + epsilon) * gamma + beta over every row of in's last axis; gamma and beta may be
//! null (1 and 0), else they hold one value per element of the last axis. kFLOAT, kHALF, kBF16.
Status runLayerNorm(float epsilon, DeviceTensor const& in, DeviceTensor const* gamma, DeviceTensor const* beta,
    DeviceTensor const& out, Launch const& launch);
//! attention (FusedKernel::kATTENTION: its heads, scale and zeroMaskedRows) per batch and head h:
//! out[b, :, h] = softmax(scale * q[b, :, h] k[b, :, h]^T + mask[b, h]) v[b, :, h], where q is [B, Sq, heads * D], k
//! and v [B, Skv, heads * D] and out q's shape; D as fusedAttentionHeadSize. kFLOAT, kHALF, kBF16. mask may be null;
//! else rank 4, each extent [B, heads, Sq, Skv]'s or 1 (broadcast), of q's type or kFLOAT. inputStride: the elements
//! between rows of q, k and v when they are views into a wider tensor (3 * heads * D for q, k and v packed side by
//! side: FusedKernel::packedQkv); 0 for heads * D.
Status runAttention(FusedKernel const& attention, DeviceTensor const& q, DeviceTensor const& k, DeviceTensor const& v,
    DeviceTensor const* mask, DeviceTensor const& out, Launch const& launch, int64_t inputStride = 0);

//! A fused embedding (FusedKernel::kEMBEDDING; inputs as it lists them): per row of out's last axis, the lookups'
//! table rows and the addends' rows summed in float, then optionally layer-normalized, stored once.
Status runEmbedding(FusedKernel const& embedding, std::span<DeviceTensor const* const> inputs, DeviceTensor const& out,
    Launch const& launch);

// ---- Libraries (matrix_multiply.cpp: cuBLASLt; convolution.cpp, deconvolution.cpp: cuDNN; libraries.cpp) ------------

//! What a matrix multiply computes after the product (LayerRecord's fusions):
//!     out = activation(scale * op0(a) * op1(b) + bias + residual)
struct MatmulEpilogue
{
    //! May be null. out's rank, each extent out's or 1 (the host's element-wise kSUM broadcasting), out's type, or
    //! kFLOAT when it varies along out's last axis only.
    DeviceTensor const* bias{};
    //! May be null. out's type and shape: cuBLASLt's C, added with beta 1.
    DeviceTensor const* residual{};
    float scale{1.F}; //!< cuBLASLt's alpha (times the operands' scales for kFP8).
    //! May be null: any function host::runActivation computes on out's type.
    ActivationParams const* activation{};
};

//! out = the product with epilogue. A bias along the last axis and kRELU or kGELU_TANH run in cuBLASLt's epilogue,
//! the residual as its C; anything else in one extra pass over out per part.
//! The variants of such a product (cuBLASLt's heuristic results), at least 1.
TacticNames matrixMultiplyTacticNames(MatrixMultiplyParams const& params, DeviceTensor const& a, DeviceTensor const& b,
    MatmulEpilogue const& epilogue, DeviceTensor const& out, Libraries& libraries);
int32_t nbMatrixMultiplyTactics(MatrixMultiplyParams const& params, DeviceTensor const& a, DeviceTensor const& b,
    MatmulEpilogue const& epilogue, DeviceTensor const& out, Libraries& libraries);
Status runMatrixMultiply(MatrixMultiplyParams const& params, DeviceTensor const& a, DeviceTensor const& b,
    MatmulEpilogue const& epilogue, DeviceTensor const& out, Launch const& launch);

//! How a convolution's tensors lie in memory (builder/layout.h chooses it). The input and the output share one format:
//! kLINEAR (NCHW, NCDHW), or channels-last for kHALF and kBF16 tensors whose output channel count is a multiple of 8:
//! kHWC8 for a 2-D convolution (NHWC), kDHWC8 for a 3-D one (NDHWC). A channels-last convolution reads its kernel
//! channels-last too: [K, spatial..., C/G] in memory (KRSC), its dims still [K, C/G, spatial...], as the builder stores
//! the kernel weights of such a layer. An input of C channels, C not a multiple of 8 (one group), is stored with
//! roundUp(C, 8) channels, the extra ones zero, as the format pads them; its kernel then has roundUp(C, 8) channels too
//! (dims [K, roundUp(C, 8), spatial...], the extra ones zero), and the convolution runs on the padded channels.
struct ConvolutionLayout
{
    nvinfer1::TensorFormat input{nvinfer1::TensorFormat::kLINEAR};
    nvinfer1::TensorFormat output{nvinfer1::TensorFormat::kLINEAR};
    bool kernelChannelsLast{}; //!< The kernel's elements are KRSC (true exactly when the formats are channels-last).
    //! A fused residual's format (LayerRecord::epilogue): the output's.
    nvinfer1::TensorFormat residual{nvinfer1::TensorFormat::kLINEAR};
};

//! kernel and bias: device memory of params' weights or of the layer's inputs 1 and 2 (bias may be null).
//! residual: null, or a tensor of out's type, shape and format (the layer's input kConvolutionResidualInput, a fused
//! shortcut) added after the bias. activation: null, or the function applied to conv + bias + residual before the
//! output is stored (a fused IActivationLayer, computed as runActivation computes it; for kINT8 before quantizing).
//! The tactics depend on activation, layout, the bias and whether there is a residual: count them with the same ones
//! that run.
TacticNames convolutionTacticNames(ConvolutionParams const& params, DeviceTensor const& in, DeviceTensor const* bias,
    DeviceTensor const& out, ActivationParams const* activation, Libraries& libraries,
    ConvolutionLayout const& layout = {}, DeviceTensor const* residual = nullptr);
int32_t nbConvolutionTactics(ConvolutionParams const& params, DeviceTensor const& in, DeviceTensor const* bias,
    DeviceTensor const& out, ActivationParams const* activation, Libraries& libraries,
    ConvolutionLayout const& layout = {}, DeviceTensor const* residual = nullptr);
//! Where a convolution's tactics come from: cuDNN's legacy API (tactic 0 and those after it, or kiln's one variant for
//! an empty problem), then cuDNN's graph API (the next graph ones), for kHALF and kBF16; then, for a channels-last
//! input of at most 4 channels that its format pads to 8 (a stem's colour channels), the same two APIs' tactics on the
//! input and kernel narrowed to 4 channels in the workspace (the last narrowed ones).
struct ConvolutionTacticCounts
{
    int32_t legacy{1};
    int32_t graph{};
    int32_t narrowed{};
};
ConvolutionTacticCounts countConvolutionTactics(ConvolutionParams const& params, DeviceTensor const& in,
    DeviceTensor const* bias, DeviceTensor const& out, ActivationParams const* activation, Libraries& libraries,
    ConvolutionLayout const& layout = {}, DeviceTensor const* residual = nullptr);
Status runConvolution(ConvolutionParams const& params, DeviceTensor const& in, DeviceTensor const& kernel,
    DeviceTensor const* bias, ActivationParams const* activation, DeviceTensor const& out, Launch const& launch,
    ConvolutionLayout const& layout = {}, DeviceTensor const* residual = nullptr);

//! A deconvolution (deconvolution.cpp and deconvolution.cu), with host::runDeconvolution's semantics and checks.
//! kernel and bias: device memory of params' weights (any floating type) or of the layer's inputs 1 and 2 (bias may be
//! null). The variants: cuDNN's backward-data algorithms for these shapes in its heuristic's order (none when cuDNN
//! cannot run them), then kiln's direct kernel, always the last one. Tactic 0 is cuDNN's first choice where there is
//! one.
TacticNames deconvolutionTacticNames(DeconvolutionParams const& params, DeviceTensor const& in, Libraries& libraries);
int32_t nbDeconvolutionTactics(DeconvolutionParams const& params, DeviceTensor const& in, Libraries& libraries);
Status runDeconvolution(DeconvolutionParams const& params, DeviceTensor const& in, DeviceTensor const& kernel,
    DeviceTensor const* bias, DeviceTensor const& out, Launch const& launch);

//! The library handles, scratch memory and prepared per-geometry state of one execution context, made on first use. Not
//! thread-safe (one per context, like the context).
class Libraries
{
public:
    Libraries();
    ~Libraries();
    Libraries(Libraries const&) = delete;
    Libraries& operator=(Libraries const&) = delete;

    //! The cuBLASLt handle (a cublasLtHandle_t), made on first use.
    Expected<void*> cublasLt();
    //! The cuDNN handle (a cudnnHandle_t) bound to stream, made on first use. Binding it to another stream records
    //! an event on the one it had (cudnnSetStream), which a stream capture may forbid: code that only plans (lists
    //! algorithms, sizes workspaces) takes planningCudnn() instead, and a run binds its own stream before its capture
    //! begins or inside it, never a third one.
    Expected<void*> cudnn(cudaStream_t stream);
    //! The cuDNN handle for planning, made on first use and left on whatever stream it is bound to.
    Expected<void*> planningCudnn();
    //! At least bytes of device scratch memory, valid until the next call (the previous block is freed in stream
    //! order on stream). Grown while stream is captured into a graph, the block is allocated outside the graph and the
    //! previous one kept until the libraries go (the graph may use it).
    Expected<void*> workspace(int64_t bytes, cudaStream_t stream);
    //! Ends a run on stream: the work queued there that may still use the scratch block is fenced by an event, so that
    //! a later request from any stream waits for it without naming stream again (which may be destroyed by then).
    //! Nothing for a stream being captured into a graph (its work runs when the graph does).
    void finishRun(cudaStream_t stream) noexcept;
    //! What library-backed kernels prepared per geometry (libraries.h), freed with the context.
    PreparedCache& prepared();
    //! The prepared cuBLASLt state of the matrix multiplies run so far (matmul_cache.h), made on first use.
    MatmulCache& matmulCache();

private:
    struct State;
    static Expected<void*> growInCapture(State& s, int64_t bytes);
    std::unique_ptr<State> mState;
    std::unique_ptr<MatmulCache> mMatmulCache;
};

} // namespace kiln::cuda
