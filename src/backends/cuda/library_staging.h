// SPDX-License-Identifier: Apache-2.0
// The copies that stage tensors around the cuBLASLt and cuDNN calls (library_staging.cu): a tensor in another type
// (FP8 operands as half for cuBLASLt, INT8 convolutions computed in float), with a bias per channel added and an
// activation applied on the way (a convolution's epilogue), and an [N, C, spatial...] tensor zero-padded for cuDNN,
// which pads symmetrically only. The conversion also adds a residual of the output's layout (a convolution's fused
// shortcut) before the activation. They take the floating and scaled types (kFLOAT, kHALF, kBF16, kINT8, kFP8) and read
// and write elements as elements.cuh does.
//
//     // float result [N, K, H, W] plus bias [K], quantized into an INT8 output:
//     Status const done = convertElements({result, DataType::kFLOAT}, {out.data, DataType::kINT8, out.scale},
//         n * k * h * w, stream, StagedBias{bias.data, bias.type, k, h * w});
#pragma once

#include "backends/host/tensor_view.h"

#include "NvInfer.h"

#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>

namespace kiln::cuda
{

//! Elements in device memory: where, their type and their quantization scale (kINT8, kFP8).
struct StagedElements
{
    void const* data{};
    nvinfer1::DataType type{nvinfer1::DataType::kFLOAT};
    float scale{1.F};
};

//! A bias per channel: element i of a tensor [..., channels, inner] gets data[(i / inner) % channels].
struct StagedBias
{
    void const* data{};
    nvinfer1::DataType type{nvinfer1::DataType::kFLOAT};
    int64_t channels{1};
    int64_t inner{1};
};

//! An activation applied after the bias: one of backends/host/activation.h's functions (activation.cuh), or none.
struct StagedActivation
{
    bool present{};
    nvinfer1::ActivationType type{nvinfer1::ActivationType::kRELU};
    float alpha{};
    float beta{};
};

//! out[i] = activation(in[i] (+ bias) (+ residual[i])) for count elements, computed in float and rounded once to out's
//! type (a scaled out is quantized after the activation). in.data null reads zeros; residual.data null adds nothing
//! (a residual is laid out as out, a convolution's fused shortcut). in and out may be the same memory (the same type).
//! Launched on stream.
host::Status convertElements(StagedElements const& in, StagedElements const& out, int64_t count, cudaStream_t stream,
    StagedBias const& bias = {}, StagedActivation const& activation = {}, StagedElements const& residual = {});

//! Writes out, an [N, C, padded...] tensor, from in, an [N, C, extents...] tensor (nbSpatial 2 or 3): in's element at
//! spatial position p lands at p + pre, converted to out's type; every other element of out is zero.
host::Status padSpatial(StagedElements const& in, nvinfer1::Dims const& inDims, StagedElements const& out,
    nvinfer1::Dims const& outDims, std::array<int64_t, 3> const& pre, cudaStream_t stream);

//! Copies the first `narrow` elements of each of `rows` rows of `wide` elements (in) into rows of `narrow` elements
//! (out, packed): a channels-last tensor whose format pads its channels (kHWC8 stores 3 colour channels as 8) rewritten
//! with fewer padded channels, for cuDNN kernels made for 4. elementBytes: 1, 2, 4 or 8; 0 < narrow <= wide.
host::Status narrowChannels(
    void const* in, void* out, int64_t rows, int64_t wide, int64_t narrow, int64_t elementBytes, cudaStream_t stream);

} // namespace kiln::cuda
