// SPDX-License-Identifier: Apache-2.0
// A probe, not part of the build: does a CUTLASS 3 Hopper GEMM (TMA, warp-specialized, wgmma) with the bias and the
// exact (erf) GELU in its epilogue run BERT-base's feed-forward product faster than cuBLASLt's product with a bias
// epilogue followed by a separate GELU pass? fp16 operands, float accumulation, out = gelu(x[M,K] w[K,N] + bias[N]),
// row-major x and out; w row-major ([K, N] as ONNX stores it, "N") or transposed ([N, K], "T").
// One configuration per compilation (-DKILN_TILE_M/N/K, -DKILN_CLUSTER_M/N, -DKILN_PINGPONG, -DKILN_B_T,
// -DKILN_NO_GELU); each run times every raster order and swizzle of CUTLASS's persistent tile scheduler and reports the
// best. Figures: docs/performance.md, "eleventh session" (no configuration beat cuBLASLt plus the separate pass at
// batch 32, so kiln has no CUTLASS kernels). On a Hopper machine, with CUTLASS's headers in $CUTLASS:
//
//     nvcc -O3 -std=c++17 -arch=sm_90a --expt-relaxed-constexpr -I$CUTLASS bench/probes/cutlass_gemm_gelu.cu \
//         -o /tmp/probe -lcublasLt && /tmp/probe
#include <cstdio>
#include <cstdlib>
#include <cublasLt.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <utility>
#include <vector>

#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/epilogue/fusion/operations.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/gemm/device/gemm_universal_adapter.h"
#include "cutlass/gemm/kernel/gemm_universal.hpp"

#ifndef KILN_TILE_M
#define KILN_TILE_M 128
#endif
#ifndef KILN_TILE_N
#define KILN_TILE_N 128
#endif
#ifndef KILN_TILE_K
#define KILN_TILE_K 64
#endif
#ifndef KILN_CLUSTER_M
#define KILN_CLUSTER_M 1
#endif
#ifndef KILN_CLUSTER_N
#define KILN_CLUSTER_N 1
#endif

using namespace cute;

using Half = cutlass::half_t;
using LayoutA = cutlass::layout::RowMajor;
#ifdef KILN_B_T
using LayoutB = cutlass::layout::ColumnMajor; // [N, K] stored: K contiguous
#else
using LayoutB = cutlass::layout::RowMajor; // [K, N] stored: N contiguous
#endif
using LayoutD = cutlass::layout::RowMajor;
using TileShape = Shape<Int<KILN_TILE_M>, Int<KILN_TILE_N>, Int<KILN_TILE_K>>;
using ClusterShape = Shape<Int<KILN_CLUSTER_M>, Int<KILN_CLUSTER_N>, _1>;
#ifdef KILN_PINGPONG
using MainSchedule = cutlass::gemm::KernelTmaWarpSpecializedPingpong;
using EpiSchedule = cutlass::epilogue::TmaWarpSpecialized;
#else
using MainSchedule = cutlass::gemm::KernelTmaWarpSpecializedCooperative;
using EpiSchedule = cutlass::epilogue::TmaWarpSpecializedCooperative;
#endif
#ifdef KILN_NO_GELU
using Fusion = cutlass::epilogue::fusion::LinCombPerColBias<Half, float, Half, Half, float>;
#else
using Fusion = cutlass::epilogue::fusion::LinCombPerColBiasEltAct<cutlass::epilogue::thread::GELU, Half, float, Half,
    Half, float>;
#endif

using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<cutlass::arch::Sm90,
    cutlass::arch::OpClassTensorOp, TileShape, ClusterShape, cutlass::epilogue::collective::EpilogueTileAuto, float,
    float, void, LayoutD, 8, Half, LayoutD, 8, EpiSchedule, Fusion>::CollectiveOp;
using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<cutlass::arch::Sm90,
    cutlass::arch::OpClassTensorOp, Half, LayoutA, 8, Half, LayoutB, 8, float, TileShape, ClusterShape,
    cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
    MainSchedule>::CollectiveOp;
using Kernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>, Mainloop, Epilogue>;
using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;

#define CUDA_CHECK(x)                                                                                                  \
    do                                                                                                                 \
    {                                                                                                                  \
        cudaError_t e_ = (x);                                                                                          \
        if (e_ != cudaSuccess)                                                                                         \
        {                                                                                                              \
            std::printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));                             \
            std::exit(1);                                                                                              \
        }                                                                                                              \
    } while (0)

__global__ void geluErf(half* x, int64_t n)
{
    int64_t i = (blockIdx.x * int64_t{blockDim.x} + threadIdx.x) * 8;
    if (i >= n)
        return;
    uint4 v = *reinterpret_cast<uint4*>(x + i);
    half2* h = reinterpret_cast<half2*>(&v);
#pragma unroll
    for (int j = 0; j < 4; ++j)
    {
        float2 f = __half22float2(h[j]);
        f.x = 0.5f * f.x * (1.f + erff(f.x * 0.70710678f));
        f.y = 0.5f * f.y * (1.f + erff(f.y * 0.70710678f));
        h[j] = __float22half2_rn(f);
    }
    *reinterpret_cast<uint4*>(x + i) = v;
}

template <typename F>
float timeIt(cudaStream_t s, F&& f, int iters = 200)
{
    for (int i = 0; i < 10; ++i)
        f();
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    cudaEventRecord(a, s);
    for (int i = 0; i < iters; ++i)
        f();
    cudaEventRecord(b, s);
    CUDA_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    return ms * 1000.f / iters;
}

float geluRef(float v)
{
    return 0.5f * v * (1.f + std::erf(v * 0.70710678f));
}

int run(int M, int K, int N, cublasLtHandle_t lt, cudaStream_t s)
{
    std::vector<half> hx(size_t(M) * K), hw(size_t(K) * N), hb(N);
    srand(1);
    for (auto& v : hx)
        v = __float2half((rand() % 2001 - 1000) / 1000.f);
    for (auto& v : hw)
        v = __float2half((rand() % 2001 - 1000) / 20000.f);
    for (auto& v : hb)
        v = __float2half((rand() % 2001 - 1000) / 1000.f);
    half *x, *w, *b, *out, *ref;
    void* ws;
    size_t const wsBytes = 32 << 20;
    CUDA_CHECK(cudaMalloc(&x, hx.size() * 2));
    CUDA_CHECK(cudaMalloc(&w, hw.size() * 2));
    CUDA_CHECK(cudaMalloc(&b, hb.size() * 2));
    CUDA_CHECK(cudaMalloc(&out, size_t(M) * N * 2));
    CUDA_CHECK(cudaMalloc(&ref, size_t(M) * N * 2));
    CUDA_CHECK(cudaMalloc(&ws, wsBytes));
    CUDA_CHECK(cudaMemcpy(x, hx.data(), hx.size() * 2, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(b, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice));
#ifdef KILN_B_T
    std::vector<half> hwt(hw.size());
    for (int k = 0; k < K; ++k)
        for (int n = 0; n < N; ++n)
            hwt[size_t(n) * K + k] = hw[size_t(k) * N + n];
    CUDA_CHECK(cudaMemcpy(w, hwt.data(), hw.size() * 2, cudaMemcpyHostToDevice));
#else
    CUDA_CHECK(cudaMemcpy(w, hw.data(), hw.size() * 2, cudaMemcpyHostToDevice));
#endif

    // cuBLASLt: out^T[N, M] = w^T x^T in column-major terms, bias epilogue along N.
    cublasLtMatmulDesc_t desc;
    cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
#ifdef KILN_B_T
    cublasOperation_t ta = CUBLAS_OP_T;
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
#endif
    cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_BIAS;
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi);
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &b, sizeof b);
    cublasLtMatrixLayout_t la, lb, lc;
#ifdef KILN_B_T
    cublasLtMatrixLayoutCreate(&la, CUDA_R_16F, K, N, K);
#else
    cublasLtMatrixLayoutCreate(&la, CUDA_R_16F, N, K, N);
#endif
    cublasLtMatrixLayoutCreate(&lb, CUDA_R_16F, K, M, K);
    cublasLtMatrixLayoutCreate(&lc, CUDA_R_16F, N, M, N);
    cublasLtMatmulPreference_t pref;
    cublasLtMatmulPreferenceCreate(&pref);
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsBytes, sizeof wsBytes);
    cublasLtMatmulHeuristicResult_t res[8];
    int found = 0;
    cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, lc, pref, 8, res, &found);
    float const one = 1.f, zero = 0.f;
    float best = 1e9f;
    for (int i = 0; i < found; ++i)
    {
        float t = timeIt(s, [&] {
            cublasLtMatmul(lt, desc, &one, w, la, x, lb, &zero, ref, lc, ref, lc, &res[i].algo, ws, wsBytes, s);
        });
        best = std::min(best, t);
    }
#ifndef KILN_NO_GELU
    int64_t const n = int64_t(M) * N;
    float const gelu = timeIt(s, [&] { geluErf<<<(n / 8 + 255) / 256, 256, 0, s>>>(ref, n); });
    // The reference: product + bias, then the pass.
    cublasLtMatmul(lt, desc, &one, w, la, x, lb, &zero, ref, lc, ref, lc, &res[0].algo, ws, wsBytes, s);
    geluErf<<<(n / 8 + 255) / 256, 256, 0, s>>>(ref, n);
#else
    float const gelu = 0.f;
    cublasLtMatmul(lt, desc, &one, w, la, x, lb, &zero, ref, lc, ref, lc, &res[0].algo, ws, wsBytes, s);
#endif

    // CUTLASS.
    using StrideA = typename Gemm::GemmKernel::StrideA;
    using StrideB = typename Gemm::GemmKernel::StrideB;
    using StrideD = typename Gemm::GemmKernel::StrideD;
    StrideA sa{};
    get<0>(sa) = K;
    get<2>(sa) = int64_t(M) * K;
    StrideB sb{};
#ifdef KILN_B_T
    get<0>(sb) = K;
#else
    get<1>(sb) = N;
#endif
    get<2>(sb) = int64_t(N) * K;
    StrideD sd{};
    get<0>(sd) = N;
    get<2>(sd) = int64_t(M) * N;
    typename Gemm::Arguments args{cutlass::gemm::GemmUniversalMode::kGemm, {M, N, K, 1},
        {reinterpret_cast<Half*>(x), sa, reinterpret_cast<Half*>(w), sb},
        {{}, nullptr, sd, reinterpret_cast<Half*>(out), sd}};
    args.epilogue.thread.alpha = 1.f;
    args.epilogue.thread.beta = 0.f;
    args.epilogue.thread.bias_ptr = reinterpret_cast<Half*>(b);
    Gemm gemm;
    size_t const need = Gemm::get_workspace_size(args);
    if (gemm.can_implement(args) != cutlass::Status::kSuccess || need > wsBytes)
    {
        std::printf("M=%d K=%d N=%d: CUTLASS cannot run this configuration\n", M, K, N);
        return 1;
    }
    if (gemm.initialize(args, ws, s) != cutlass::Status::kSuccess)
    {
        std::printf("initialize failed\n");
        return 1;
    }
    // The persistent scheduler's raster order and swizzle, every combination: the best is reported.
    using Raster = decltype(args.scheduler.raster_order);
    float cut = 1e9f;
    char const* bestRaster = "";
    int bestSwizzle = 0;
    for (auto const& [raster, rasterName] : {std::pair{Raster::Heuristic, "heuristic"},
             std::pair{Raster::AlongM, "along M"}, std::pair{Raster::AlongN, "along N"}})
    {
        for (int swizzle : {1, 2, 4, 8})
        {
            args.scheduler.raster_order = raster;
            args.scheduler.max_swizzle_size = swizzle;
            if (gemm.initialize(args, ws, s) != cutlass::Status::kSuccess)
            {
                continue;
            }
            float const t = timeIt(s, [&] { gemm.run(s); });
            if (t < cut)
            {
                cut = t;
                bestRaster = rasterName;
                bestSwizzle = swizzle;
            }
        }
    }
    args.scheduler.raster_order = Raster::Heuristic;
    args.scheduler.max_swizzle_size = 1;
    gemm.initialize(args, ws, s);
    float const plainCut = timeIt(s, [&] { gemm.run(s); });
    CUDA_CHECK(cudaStreamSynchronize(s));
    std::vector<half> ho(size_t(M) * N), hr(ho.size());
    CUDA_CHECK(cudaMemcpy(ho.data(), out, ho.size() * 2, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(hr.data(), ref, hr.size() * 2, cudaMemcpyDeviceToHost));
    double maxDiff = 0, maxRef = 0;
    for (size_t i = 0; i < ho.size(); ++i)
    {
        maxDiff = std::max(maxDiff, double(std::abs(__half2float(ho[i]) - __half2float(hr[i]))));
        maxRef = std::max(maxRef, double(std::abs(__half2float(hr[i]))));
    }
    // One exact element on the host as a sanity check of the reference itself.
    double acc = __half2float(hb[5]);
    for (int k = 0; k < K; ++k)
        acc += double(__half2float(hx[size_t(7) * K + k])) * __half2float(hw[size_t(k) * N + 5]);
#ifndef KILN_NO_GELU
    acc = geluRef(float(acc));
#endif
    std::printf(
        "M=%5d K=%4d N=%4d tile %dx%dx%d cluster %dx%d %s B%s%s: cuBLASLt %.1f us + gelu %.1f us = %.1f; "
        "CUTLASS %.1f us (default scheduler %.1f; best: raster %s, swizzle %d); max |diff| %.2e (max |ref| %.2f); "
        "host[7,5] %.4f gpu %.4f\n",
        M, K, N, KILN_TILE_M, KILN_TILE_N, KILN_TILE_K, KILN_CLUSTER_M, KILN_CLUSTER_N,
#ifdef KILN_PINGPONG
        "pingpong",
#else
        "coop",
#endif
#ifdef KILN_B_T
        "T",
#else
        "N",
#endif
#ifdef KILN_NO_GELU
        " (bias only)",
#else
        "",
#endif
        best, gelu, best + gelu, cut, plainCut, bestRaster, bestSwizzle, maxDiff, maxRef, acc,
        __half2float(ho[size_t(7) * N + 5]));
    cudaFree(x);
    cudaFree(w);
    cudaFree(b);
    cudaFree(out);
    cudaFree(ref);
    cudaFree(ws);
    return 0;
}

int main()
{
    cublasLtHandle_t lt;
    cublasLtCreate(&lt);
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    int rc = 0;
    rc |= run(4096, 768, 3072, lt, s);
    rc |= run(128, 768, 3072, lt, s);
    rc |= run(4096, 3072, 768, lt, s);
    return rc;
}
