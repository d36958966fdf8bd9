// SPDX-License-Identifier: Apache-2.0
// hopper_gemm.h's variant "cutlass sm90 half bias+gelu_erf cooperative 128x256x64" (its own file: see hopper_gemm.cuh).
#include "backends/cuda/hopper_gemm.cuh"

namespace kiln::cuda::hopper
{

Status runHalfGeluErfCooperative128x256(Problem const& problem, Libraries& libraries, cudaStream_t stream)
{
    using Tile = cute::Shape<cute::Int<128>, cute::Int<256>, cute::_64>;
    using Cluster = cute::Shape<cute::_1, cute::_1, cute::_1>;
    return Kernel<cutlass::half_t, Tile, Cluster, Schedule::kCooperative, cutlass::epilogue::thread::GELU>::run(
        problem, libraries, stream);
}

} // namespace kiln::cuda::hopper
