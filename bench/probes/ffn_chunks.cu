// SPDX-License-Identifier: Apache-2.0
// A probe, not part of the build: does BERT-base's feed-forward block at batch 32 run faster when its rows go through
// in chunks small enough that the intermediate [rows, 3072] stays in the H200's L2 between the kernels? kiln runs the
// block as three kernels over all 4096 rows (the up product with its bias epilogue, the erf GELU in place over its
// 25 MB result, the down product with bias and residual), and the GELU pass is bound by memory (about 15 us of the
// block's 98). Each variant below is captured in a CUDA graph and replayed; fp16 operands, float accumulation, each
// product's algorithm the fastest of cuBLASLt's first 8 heuristic results timed alone:
//
//   whole        up(4096) ; gelu(4096) ; down(4096)                              (what kiln runs)
//   chunks C     for each of C chunks of rows: up(chunk) ; gelu(chunk) ; then down(4096) once
//   blocks C     for each of C chunks of rows: up(chunk) ; gelu(chunk) ; down(chunk)
//
// It prints each variant's median time over the replays and the largest difference of its output from the whole
// block's. On a GPU machine:
//
//     nvcc -O3 -std=c++17 -arch=sm_90 bench/probes/ffn_chunks.cu -o /tmp/ffn_chunks -lcublasLt && /tmp/ffn_chunks
#include "check.h"

#include <cublasLt.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>

namespace
{

constexpr int64_t kRows = 32 * 128;
constexpr int64_t kWidth = 768;
constexpr int64_t kInner = 3072;

//! The erf GELU in place over n halves, 8 at a time (n a multiple of 8), as kiln's wide activation kernel computes it.
__global__ void geluInPlace(uint4* data, int64_t groups)
{
    for (int64_t g = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; g < groups;
         g += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        uint4 bits = data[g];
        __half2* pairs = reinterpret_cast<__half2*>(&bits);
#pragma unroll
        for (int i = 0; i < 4; ++i)
        {
            float2 v = __half22float2(pairs[i]);
            v.x = 0.5F * v.x * (1.F + erff(v.x * 0.70710678F));
            v.y = 0.5F * v.y * (1.F + erff(v.y * 0.70710678F));
            pairs[i] = __float22half2_rn(v);
        }
        data[g] = bits;
    }
}

//! One product out[rows, n] = a[rows, k] w[k, n] + bias (+ residual, read from out's own layout), row-major, cuBLASLt's
//! column-major view: out^T = w^T a^T.
struct Product
{
    cublasLtMatmulDesc_t desc{};
    cublasLtMatrixLayout_t w{}, a{}, out{};
    cublasLtMatmulAlgo_t algo{};
    int64_t rows{}, k{}, n{};
    bool residual{};
};

cublasLtHandle_t gLt;
void* gWorkspace;
constexpr size_t kWorkspace = size_t{32} << 20;

float timeOnce(cudaStream_t stream, std::function<void()> const& work, int reps)
{
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start, stream));
    for (int i = 0; i < reps; ++i)
    {
        work();
    }
    CHECK(cudaEventRecord(stop, stream));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0.F;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    return ms * 1000.F / static_cast<float>(reps);
}

void runProduct(Product const& p, half const* a, half const* w, half* out, cudaStream_t stream)
{
    float const one = 1.F;
    float const beta = p.residual ? 1.F : 0.F;
    CHECK(cublasLtMatmul(
        gLt, p.desc, &one, w, p.w, a, p.a, &beta, out, p.out, out, p.out, &p.algo, gWorkspace, kWorkspace, stream));
}

//! The product's descriptors and its fastest algorithm of cuBLASLt's first 8 for these pointers.
Product makeProduct(int64_t rows, int64_t k, int64_t n, half const* bias, bool residual, half const* a, half const* w,
    half* out, cudaStream_t stream)
{
    Product p;
    p.rows = rows;
    p.k = k;
    p.n = n;
    p.residual = residual;
    CHECK(cublasLtMatmulDescCreate(&p.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasLtEpilogue_t const epilogue = CUBLASLT_EPILOGUE_BIAS;
    CHECK(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue)));
    CHECK(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)));
    CHECK(cublasLtMatrixLayoutCreate(&p.w, CUDA_R_16F, n, k, n));
    CHECK(cublasLtMatrixLayoutCreate(&p.a, CUDA_R_16F, k, rows, k));
    CHECK(cublasLtMatrixLayoutCreate(&p.out, CUDA_R_16F, n, rows, n));
    cublasLtMatmulPreference_t preference;
    CHECK(cublasLtMatmulPreferenceCreate(&preference));
    CHECK(cublasLtMatmulPreferenceSetAttribute(
        preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &kWorkspace, sizeof(kWorkspace)));
    cublasLtMatmulHeuristicResult_t found[8];
    int count = 0;
    CHECK(cublasLtMatmulAlgoGetHeuristic(gLt, p.desc, p.w, p.a, p.out, p.out, preference, 8, found, &count));
    float best = 1e30F;
    int chosen = 0;
    for (int i = 0; i < count; ++i)
    {
        Product trial = p;
        trial.algo = found[i].algo;
        float const us = timeOnce(
            stream, [&] { runProduct(trial, a, w, out, stream); }, 20);
        if (us < best)
        {
            best = us;
            chosen = i;
        }
    }
    if (count == 0)
    {
        std::printf("no cuBLASLt algorithm for %lld x %lld x %lld\n", static_cast<long long>(rows),
            static_cast<long long>(k), static_cast<long long>(n));
        std::exit(1);
    }
    p.algo = found[chosen].algo;
    CHECK(cublasLtMatmulPreferenceDestroy(preference));
    return p;
}

//! Median of 200 replays of the graph that work captures, in microseconds.
float timeGraph(cudaStream_t stream, std::function<void()> const& work)
{
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    work();
    CHECK(cudaStreamEndCapture(stream, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int i = 0; i < 20; ++i)
    {
        CHECK(cudaGraphLaunch(exec, stream));
    }
    std::vector<float> times;
    for (int i = 0; i < 200; ++i)
    {
        times.push_back(timeOnce(
            stream, [&] { CHECK(cudaGraphLaunch(exec, stream)); }, 1));
    }
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

half* deviceRandom(int64_t count, float scale, std::mt19937& rng)
{
    std::uniform_real_distribution<float> uniform(-scale, scale);
    std::vector<half> host(static_cast<std::size_t>(count));
    for (half& v : host)
    {
        v = __float2half(uniform(rng));
    }
    half* device = nullptr;
    CHECK(cudaMalloc(&device, static_cast<size_t>(count) * sizeof(half)));
    CHECK(cudaMemcpy(device, host.data(), host.size() * sizeof(half), cudaMemcpyHostToDevice));
    return device;
}

} // namespace

int main()
{
    CHECK(cublasLtCreate(&gLt));
    CHECK(cudaMalloc(&gWorkspace, kWorkspace));
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    std::mt19937 rng(7);
    half* x = deviceRandom(kRows * kWidth, 1.F, rng);
    half* residual = deviceRandom(kRows * kWidth, 1.F, rng);
    half* wUp = deviceRandom(kWidth * kInner, 0.05F, rng);
    half* bUp = deviceRandom(kInner, 0.1F, rng);
    half* wDown = deviceRandom(kInner * kWidth, 0.03F, rng);
    half* bDown = deviceRandom(kWidth, 0.1F, rng);
    half* inner = nullptr;
    half* out = nullptr;
    half* reference = nullptr;
    CHECK(cudaMalloc(&inner, kRows * kInner * sizeof(half)));
    CHECK(cudaMalloc(&out, kRows * kWidth * sizeof(half)));
    CHECK(cudaMalloc(&reference, kRows * kWidth * sizeof(half)));
    auto const gelu = [&](half* data, int64_t count) {
        int64_t const groups = count / 8;
        geluInPlace<<<static_cast<unsigned>(std::min<int64_t>((groups + 255) / 256, 132 * 16)), 256, 0, stream>>>(
            reinterpret_cast<uint4*>(data), groups);
    };
    // The residual is the down product's C: out starts as a copy of it on every replay.
    auto const resetOut = [&] {
        CHECK(cudaMemcpyAsync(out, residual, kRows * kWidth * sizeof(half), cudaMemcpyDeviceToDevice, stream));
    };
    float const copyUs = timeGraph(stream, resetOut);

    Product const upAll = makeProduct(kRows, kWidth, kInner, bUp, false, x, wUp, inner, stream);
    Product const downAll = makeProduct(kRows, kInner, kWidth, bDown, true, inner, wDown, out, stream);
    auto const whole = [&] {
        resetOut();
        runProduct(upAll, x, wUp, inner, stream);
        gelu(inner, kRows * kInner);
        runProduct(downAll, inner, wDown, out, stream);
    };
    float const wholeUs = timeGraph(stream, whole) - copyUs;
    whole();
    CHECK(cudaMemcpyAsync(reference, out, kRows * kWidth * sizeof(half), cudaMemcpyDeviceToDevice, stream));
    CHECK(cudaStreamSynchronize(stream));
    std::vector<half> expected(static_cast<std::size_t>(kRows * kWidth));
    CHECK(cudaMemcpy(expected.data(), reference, expected.size() * sizeof(half), cudaMemcpyDeviceToHost));
    auto const difference = [&] {
        std::vector<half> got(expected.size());
        CHECK(cudaMemcpy(got.data(), out, got.size() * sizeof(half), cudaMemcpyDeviceToHost));
        float most = 0.F;
        for (std::size_t i = 0; i < got.size(); ++i)
        {
            most = std::max(most, std::fabs(__half2float(got[i]) - __half2float(expected[i])));
        }
        return most;
    };
    std::printf("whole: up + gelu + down over %lld rows: %.1f us (the residual's copy, %.1f us, taken off)\n",
        static_cast<long long>(kRows), wholeUs, copyUs);
    for (int64_t const chunks : {2, 4, 8})
    {
        int64_t const rows = kRows / chunks;
        Product const up = makeProduct(rows, kWidth, kInner, bUp, false, x, wUp, inner, stream);
        Product const down = makeProduct(rows, kInner, kWidth, bDown, true, inner, wDown, out, stream);
        auto const chunked = [&](bool downPerChunk) {
            resetOut();
            for (int64_t c = 0; c < chunks; ++c)
            {
                half* innerChunk = inner + c * rows * kInner;
                runProduct(up, x + c * rows * kWidth, wUp, innerChunk, stream);
                gelu(innerChunk, rows * kInner);
                if (downPerChunk)
                {
                    runProduct(down, innerChunk, wDown, out + c * rows * kWidth, stream);
                }
            }
            if (!downPerChunk)
            {
                runProduct(downAll, inner, wDown, out, stream);
            }
        };
        for (bool const downPerChunk : {false, true})
        {
            float const us = timeGraph(stream, [&] { chunked(downPerChunk); }) - copyUs;
            chunked(downPerChunk);
            CHECK(cudaStreamSynchronize(stream));
            std::printf("%s %lld: %.1f us (%.2f of whole), largest difference from whole %.4f\n",
                downPerChunk ? "blocks" : "chunks", static_cast<long long>(chunks), us, us / wholeUs, difference());
        }
    }
    return 0;
}
