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
// tolerance per type. Families with variants (tactics) list them with nbTactics; launch.tactic picks one, 0 being
// the default.
#pragma once

#include "backends/host/tensor_view.h"
#include "network/params.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <span>

namespace kiln::cuda
{

using host::Status;
//! A view of a tensor in device memory: the host backend's view type, its data a device pointer.
using DeviceTensor = host::HostTensor;

class Libraries;
class PreparedCache;
class MatmulCache;

//! Where and how a kernel runs.
struct Launch
{
    cudaStream_t stream{};
    Libraries* libraries{}; //!< The cuBLASLt and cuDNN handles of the execution context (never null).
    int32_t tactic{};       //!< The variant the builder chose; 0: the family's default.
};

//! The error for a failed CUDA call: what was done and cudaGetErrorString.
Error cudaFailure(cudaError_t status, char const* what);

// ---- Pointwise (elementwise.cu, unary.cu, activation.cu, cast.cu, select.cu, fill.cu) -----------------------------

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

// ---- Data movement (shuffle.cu, slice.cu, concatenation.cu, gather.cu, reformat.cu) -------------------------------

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

// ---- Reductions and windows (reduce.cu, softmax.cu, pooling.cu) ---------------------------------------------------

Status runReduce(ReduceParams const& params, DeviceTensor const& in, DeviceTensor const& out, Launch const& launch);
Status runSoftMax(SoftMaxParams const& params, DeviceTensor const& in, DeviceTensor const& out, Launch const& launch);
Status runPooling(PoolingParams const& params, DeviceTensor const& in, DeviceTensor const& out, Launch const& launch);

// ---- Libraries (matrix_multiply.cpp with cuBLASLt, convolution.cpp with cuDNN, libraries.cpp) ---------------------

//! out = activation(op0(a) * op1(b) + bias). bias (may be null): out's rank, each extent out's or 1 (the host's
//! element-wise kSUM broadcasting), out's type, or kFLOAT when it varies along out's last axis only. activation (may
//! be null): any function host::runActivation computes on out's type. A bias along the last axis and kRELU or
//! kGELU_TANH run in cuBLASLt's epilogue; anything else in one extra pass over out.
//! The variants of such a product (cuBLASLt's heuristic results), at least 1.
int32_t nbMatrixMultiplyTactics(MatrixMultiplyParams const& params, DeviceTensor const& a, DeviceTensor const& b,
    DeviceTensor const* bias, ActivationParams const* activation, DeviceTensor const& out, Libraries& libraries);
Status runMatrixMultiply(MatrixMultiplyParams const& params, DeviceTensor const& a, DeviceTensor const& b,
    DeviceTensor const* bias, ActivationParams const* activation, DeviceTensor const& out, Launch const& launch);

//! kernel and bias: device memory of params' weights or of the layer's inputs 1 and 2 (bias may be null).
//! activation: null, or the function applied to conv + bias before the output is stored (a fused IActivationLayer,
//! computed as runActivation computes it; for kINT8 before quantizing). The tactics depend on activation: count them
//! with the same one that runs.
int32_t nbConvolutionTactics(ConvolutionParams const& params, DeviceTensor const& in, DeviceTensor const& out,
    ActivationParams const* activation, Libraries& libraries);
Status runConvolution(ConvolutionParams const& params, DeviceTensor const& in, DeviceTensor const& kernel,
    DeviceTensor const* bias, ActivationParams const* activation, DeviceTensor const& out, Launch const& launch);

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
    //! The cuDNN handle (a cudnnHandle_t) bound to stream, made on first use.
    Expected<void*> cudnn(cudaStream_t stream);
    //! At least bytes of device scratch memory, valid until the next call (the previous block is freed in stream
    //! order on stream).
    Expected<void*> workspace(int64_t bytes, cudaStream_t stream);
    //! What library-backed kernels prepared per geometry (libraries.h), freed with the context.
    PreparedCache& prepared();
    //! The prepared cuBLASLt state of the matrix multiplies run so far (matmul_cache.h), made on first use.
    MatmulCache& matmulCache();

private:
    struct State;
    std::unique_ptr<State> mState;
    std::unique_ptr<MatmulCache> mMatmulCache;
};

} // namespace kiln::cuda
