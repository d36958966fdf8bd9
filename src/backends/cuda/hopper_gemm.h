// SPDX-License-Identifier: Apache-2.0
// Products with their epilogue in one kernel on Hopper (compute capability 9.0), from CUTLASS 3's warp-specialized
// TMA/wgmma kernels: out[M, N] = activation(a[M, K] b + bias[N]) with a and out row-major, b stored [K, N] (as ONNX
// stores a weight), 16-bit operands and output, float accumulation and epilogue. cuBLASLt's own epilogues cover the
// bias, ReLU and the tanh GELU; these kernels add what it lacks, the exact (erf) GELU of BERT-style feed-forward
// layers, which otherwise costs a separate pass over the product.
//
// matrix_multiply.cpp offers the variants that accept a product after cuBLASLt's tactics, and the builder times them
// like any other. Each variant is compiled in its own file (hopper_gemm_*.cu, with CUTLASS's headers, for sm_90a
// only); without CUTLASS or without sm_90 among the build's architectures, variants() is empty.
//
//     hopper::Problem problem{DataType::kHALF, m, n, k, a, b, bias, out, nvinfer1::ActivationType::kGELU_ERF};
//     for (hopper::Variant const& v : hopper::variants()) if (v.accepts(problem)) ...;   // names for the tactics
//     Status done = variant.run(problem, libraries, stream);
#pragma once

#include "backends/cuda/kernels.h"

#include <NvInfer.h>

#include <cstdint>
#include <span>

namespace kiln::cuda::hopper
{

//! One product as the kernels see it.
struct Problem
{
    DataType type{};    //!< Of a, b, bias and out: kHALF or kBF16.
    int64_t m{};        //!< Rows of a and out.
    int64_t n{};        //!< Columns of b and out.
    int64_t k{};        //!< Columns of a, rows of b.
    void const* a{};    //!< [M, K], row-major.
    void const* b{};    //!< [K, N], row-major.
    void const* bias{}; //!< [N], or null for none.
    void* out{};        //!< [M, N], row-major.
    bool activation{};  //!< Whether the activation below follows the bias.
    nvinfer1::ActivationType activationType{};
};

//! One compiled kernel configuration.
struct Variant
{
    char const* name;                        //!< Its tactic name: "cutlass sm90 ...".
    DataType type;                           //!< The type it computes in.
    bool bias;                               //!< Whether it adds a bias (it needs one then).
    bool activation;                         //!< Whether it applies activationType.
    nvinfer1::ActivationType activationType; //!< Its activation, when it has one.
    //! Enqueues the product on stream. Its prepared launch parameters (TMA descriptors) are kept per problem and
    //! pointers in libraries.prepared(), so a repeated run only launches.
    Status (*run)(Problem const& problem, Libraries& libraries, cudaStream_t stream);
};

//! Every compiled variant (empty in a build without them).
std::span<Variant const> variants() noexcept;

//! Whether variant computes problem: its type, bias and activation, and the alignment its loads and stores need
//! (16-byte aligned pointers, N and K multiples of 8).
bool accepts(Variant const& variant, Problem const& problem) noexcept;

//! Whether the current device runs the variants (compute capability exactly 9.0: sm_90a code runs nowhere else).
bool deviceRunsVariants() noexcept;

} // namespace kiln::cuda::hopper
