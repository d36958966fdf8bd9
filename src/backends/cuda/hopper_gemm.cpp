// SPDX-License-Identifier: Apache-2.0
// The table of hopper_gemm.h's compiled variants (each defined in its own hopper_gemm_*.cu), and their checks.
#include "backends/cuda/hopper_gemm.h"

#include <cuda_runtime_api.h>

#include <limits>

namespace kiln::cuda::hopper
{

#if KILN_HOPPER_GEMM
Status runHalfGeluErfCooperative128x128(Problem const& problem, Libraries& libraries, cudaStream_t stream);
Status runHalfGeluErfCooperative128x256(Problem const& problem, Libraries& libraries, cudaStream_t stream);
Status runHalfGeluErfPingpong64x128(Problem const& problem, Libraries& libraries, cudaStream_t stream);

namespace
{
using nvinfer1::ActivationType;
constexpr Variant kVariants[] = {
    {"cutlass sm90 half bias+gelu_erf cooperative 128x128x64", DataType::kHALF, true, true, ActivationType::kGELU_ERF,
        &runHalfGeluErfCooperative128x128},
    {"cutlass sm90 half bias+gelu_erf cooperative 128x256x64", DataType::kHALF, true, true, ActivationType::kGELU_ERF,
        &runHalfGeluErfCooperative128x256},
    {"cutlass sm90 half bias+gelu_erf pingpong 64x128x64", DataType::kHALF, true, true, ActivationType::kGELU_ERF,
        &runHalfGeluErfPingpong64x128},
};
} // namespace

std::span<Variant const> variants() noexcept
{
    return kVariants;
}
#else
std::span<Variant const> variants() noexcept
{
    return {};
}
#endif

bool accepts(Variant const& variant, Problem const& problem) noexcept
{
    constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
    auto const aligned = [](void const* pointer) { return reinterpret_cast<uintptr_t>(pointer) % 16 == 0; };
    bool const sameActivation = variant.activation == problem.activation
        && (!variant.activation || variant.activationType == problem.activationType);
    return variant.type == problem.type && variant.bias == (problem.bias != nullptr) && sameActivation && problem.m > 0
        && problem.n > 0 && problem.k > 0 && problem.m <= kMax && problem.n <= kMax && problem.k <= kMax
        && problem.n % 8 == 0 && problem.k % 8 == 0 && aligned(problem.a) && aligned(problem.b) && aligned(problem.out)
        && (problem.bias == nullptr || aligned(problem.bias));
}

bool deviceRunsVariants() noexcept
{
    int device = 0;
    int major = 0;
    int minor = 0;
    return cudaGetDevice(&device) == cudaSuccess
        && cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess
        && cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) == cudaSuccess && major == 9
        && minor == 0;
}

} // namespace kiln::cuda::hopper
