// SPDX-License-Identifier: Apache-2.0
// A probe, not part of the build: does cuDNN's graph API run BERT-base's feed-forward product with its bias and the
// exact (erf) GELU fused, faster than cuBLASLt's product with a bias epilogue plus a separate GELU pass? It times every
// engine configuration cuDNN's heuristics (modes A and fallback) list for matmul + bias (+ GELU_FWD), in fp16 with
// float accumulation, against cuBLASLt with the bias epilogue, with the GELU_BIAS epilogue (the tanh form) and with
// the bias epilogue plus a naive erf pass, for BERT-base's product shapes at batch 32 (M = 32 x 128) and batch 1.
// Figures: docs/performance.md, "eighth session". On a GPU machine:
//
//     nvcc -O2 -arch=sm_90 bench/probes/cudnn_matmul_gelu.cu -o /tmp/cudnn_matmul_gelu -lcudnn -lcublasLt
//     /tmp/cudnn_matmul_gelu
#include <cstdio>
#include <cstdlib>
#include <cublasLt.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <vector>
#define CK(x)                                                                                                          \
    do                                                                                                                 \
    {                                                                                                                  \
        cudnnStatus_t s_ = (x);                                                                                        \
        if (s_ != CUDNN_STATUS_SUCCESS)                                                                                \
        {                                                                                                              \
            printf("  %s:%d %s -> %s\n", __FILE__, __LINE__, #x, cudnnGetErrorString(s_));                             \
            return nullptr;                                                                                            \
        }                                                                                                              \
    } while (0)
typedef cudnnBackendDescriptor_t D;
static D mk(cudnnBackendDescriptorType_t t)
{
    D d;
    cudnnBackendCreateDescriptor(t, &d);
    return d;
}
static D tensor(int64_t id, cudnnDataType_t type, int64_t const* dims, int64_t const* strides, bool virt)
{
    D d = mk(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    int64_t al = 16;
    CK(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type));
    CK(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 3, dims));
    CK(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 3, strides));
    CK(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &id));
    CK(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &al));
    CK(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &virt));
    CK(cudnnBackendFinalize(d));
    return d;
}
static D pw(cudnnPointwiseMode_t mode, D x, D b, D y)
{
    D f = mk(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    cudnnDataType_t p = CUDNN_DATA_FLOAT;
    CK(cudnnBackendSetAttribute(f, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode));
    CK(cudnnBackendSetAttribute(f, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &p));
    CK(cudnnBackendFinalize(f));
    D o = mk(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    CK(cudnnBackendSetAttribute(o, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &f));
    CK(cudnnBackendSetAttribute(o, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x));
    if (b)
        CK(cudnnBackendSetAttribute(o, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b));
    CK(cudnnBackendSetAttribute(o, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y));
    CK(cudnnBackendFinalize(o));
    return o;
}
static D matmul(D a, D b, D c)
{
    D m = mk(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
    cudnnDataType_t p = CUDNN_DATA_FLOAT;
    CK(cudnnBackendSetAttribute(m, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &p));
    CK(cudnnBackendFinalize(m));
    D o = mk(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
    CK(cudnnBackendSetAttribute(o, CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &a));
    CK(cudnnBackendSetAttribute(o, CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b));
    CK(cudnnBackendSetAttribute(o, CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c));
    CK(cudnnBackendSetAttribute(o, CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &m));
    CK(cudnnBackendFinalize(o));
    return o;
}
static float timeIt(cudaStream_t s, int iters, void (*fn)(void*), void* arg)
{
    for (int i = 0; i < 5; ++i)
        fn(arg);
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    cudaEventRecord(a, s);
    for (int i = 0; i < iters; ++i)
        fn(arg);
    cudaEventRecord(b, s);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    return ms * 1000.f / iters;
}
struct Run
{
    cudnnHandle_t h;
    D plan;
    D pack;
};
static void runCudnn(void* p)
{
    Run* r = (Run*)p;
    cudnnBackendExecute(r->h, r->plan, r->pack);
}
__global__ void geluErf(half* y, int64_t n)
{
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n)
    {
        float v = __half2float(y[i]);
        y[i] = __float2half(0.5f * v * (1.f + erff(v * 0.70710678f)));
    }
}
struct Lt
{
    cublasLtHandle_t h;
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, lc;
    cublasLtMatmulHeuristicResult_t r;
    void *A, *B, *C, *ws;
    size_t wsb;
    cudaStream_t s;
    int64_t n;
    bool gelu;
};
static void runLt(void* p)
{
    Lt* l = (Lt*)p;
    float one = 1, zero = 0;
    cublasLtMatmul(
        l->h, l->op, &one, l->B, l->lb, l->A, l->la, &zero, l->C, l->lc, l->C, l->lc, &l->r.algo, l->ws, l->wsb, l->s);
    if (l->gelu)
        geluErf<<<(l->n + 255) / 256, 256, 0, l->s>>>((half*)l->C, l->n);
}
int main(int argc, char** argv)
{
    cudnnHandle_t h;
    cudnnCreate(&h);
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudnnSetStream(h, s);
    int shapes[][3] = {{4096, 768, 3072}, {128, 768, 3072}, {4096, 3072, 768}, {4096, 768, 768}};
    for (auto& sh : shapes)
    {
        int64_t M = sh[0], K = sh[1], N = sh[2];
        void *A, *B, *bias, *Y, *ws;
        size_t wsb = 256 << 20;
        cudaMalloc(&A, M * K * 2);
        cudaMalloc(&B, K * N * 2);
        cudaMalloc(&bias, N * 2);
        cudaMalloc(&Y, M * N * 2);
        cudaMalloc(&ws, wsb);
        cudaMemset(A, 0, M * K * 2);
        cudaMemset(B, 0, K * N * 2);
        cudaMemset(bias, 0, N * 2);
        for (int variant = 0; variant < 3; ++variant)
        { // 0: matmul+bias+gelu, 1: matmul+bias, 2: matmul+bias+gelu with B transposed ([N,K] row-major)
            int64_t ad[3] = {1, M, K}, as[3] = {M * K, K, 1};
            int64_t bd[3] = {1, K, N}, bs[3] = {K * N, N, 1};
            if (variant == 2)
            {
                bs[1] = 1;
                bs[2] = K;
            }
            int64_t cd[3] = {1, M, N}, cs[3] = {M * N, N, 1};
            int64_t bid[3] = {1, 1, N}, bis[3] = {N, N, 1};
            D ta = tensor(1, CUDNN_DATA_HALF, ad, as, false), tb = tensor(2, CUDNN_DATA_HALF, bd, bs, false);
            D tbias = tensor(3, CUDNN_DATA_HALF, bid, bis, false), ty = tensor(4, CUDNN_DATA_HALF, cd, cs, false);
            D tc = tensor(5, CUDNN_DATA_FLOAT, cd, cs, true),
              td = variant == 1 ? ty : tensor(6, CUDNN_DATA_FLOAT, cd, cs, true);
            std::vector<D> ops{matmul(ta, tb, tc), pw(CUDNN_POINTWISE_ADD, tc, tbias, td)};
            if (variant != 1)
                ops.push_back(pw(CUDNN_POINTWISE_GELU_FWD, td, nullptr, ty));
            bool bad = false;
            for (D o : ops)
                if (!o)
                    bad = true;
            if (bad)
            {
                printf("M%ld K%ld N%ld variant %d: graph not described\n", M, K, N, variant);
                continue;
            }
            D g = mk(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
            cudnnBackendSetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
            cudnnBackendSetAttribute(
                g, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, ops.size(), ops.data());
            cudnnStatus_t gs = cudnnBackendFinalize(g);
            if (gs)
            {
                printf("M%ld K%ld N%ld variant %d: graph finalize %s\n", M, K, N, variant, cudnnGetErrorString(gs));
                continue;
            }
            for (cudnnBackendHeurMode_t mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK})
            {
                D heur = mk(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
                cudnnBackendSetAttribute(
                    heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g);
                cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
                cudnnStatus_t hs = cudnnBackendFinalize(heur);
                int64_t n = 0;
                cudnnBackendGetAttribute(
                    heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &n, nullptr);
                printf("M%ld K%ld N%ld variant %d heur %d: %s, %ld configurations\n", M, K, N, variant, (int)mode,
                    cudnnGetErrorString(hs), n);
                std::vector<D> cfg(n);
                for (auto& c : cfg)
                    c = mk(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
                int64_t got = 0;
                if (n)
                    cudnnBackendGetAttribute(
                        heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, n, &got, cfg.data());
                for (int64_t i = 0; i < got && i < 12; ++i)
                {
                    D eng = mk(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
                    int64_t cnt, idx = -1;
                    cudnnBackendGetAttribute(
                        cfg[i], CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cnt, &eng);
                    cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &cnt, &idx);
                    D plan = mk(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
                    cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
                    cudnnBackendSetAttribute(
                        plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg[i]);
                    cudnnStatus_t ps = cudnnBackendFinalize(plan);
                    if (ps)
                    {
                        printf("   engine %ld: plan %s\n", idx, cudnnGetErrorString(ps));
                        continue;
                    }
                    int64_t wb = 0;
                    cudnnBackendGetAttribute(
                        plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &cnt, &wb);
                    D pack = mk(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
                    int64_t ids[4] = {1, 2, 3, 4};
                    void* ptrs[4] = {A, B, bias, Y};
                    cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 4, ids);
                    cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 4, ptrs);
                    cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws);
                    cudnnBackendFinalize(pack);
                    Run r{h, plan, pack};
                    cudnnStatus_t es = cudnnBackendExecute(h, plan, pack);
                    cudaError_t ce = cudaStreamSynchronize(s);
                    if (es || ce)
                    {
                        printf("   engine %ld: execute %s %s\n", idx, cudnnGetErrorString(es), cudaGetErrorString(ce));
                        continue;
                    }
                    printf("   engine %ld (workspace %ld): %.1f us\n", idx, wb, timeIt(s, 50, runCudnn, &r));
                }
            }
        }
        // cuBLASLt: D[M,N] row-major = A[M,K] x B[K,N]; column-major view: D^T[N,M] = B^T[N,K] x A^T[K,M]
        for (int e = 0; e < 3; ++e)
        {
            Lt l{};
            cublasLtCreate(&l.h);
            l.A = A;
            l.B = B;
            l.C = Y;
            l.ws = ws;
            l.wsb = 32 << 20;
            l.s = s;
            l.n = M * N;
            l.gelu = e == 2;
            cublasLtMatmulDescCreate(&l.op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
            cublasLtEpilogue_t ep = e == 1 ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_BIAS;
            cublasLtMatmulDescSetAttribute(l.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &ep, sizeof(ep));
            cublasLtMatmulDescSetAttribute(l.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias));
            cudaDataType_t bt = CUDA_R_16F;
            cublasLtMatmulDescSetAttribute(l.op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, sizeof(bt));
            cublasLtMatrixLayoutCreate(&l.lb, CUDA_R_16F, N, K, N);
            cublasLtMatrixLayoutCreate(&l.la, CUDA_R_16F, K, M, K);
            cublasLtMatrixLayoutCreate(&l.lc, CUDA_R_16F, N, M, N);
            cublasLtMatmulPreference_t pref;
            cublasLtMatmulPreferenceCreate(&pref);
            cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &l.wsb, sizeof(l.wsb));
            int got = 0;
            cublasLtMatmulAlgoGetHeuristic(l.h, l.op, l.lb, l.la, l.lc, l.lc, pref, 1, &l.r, &got);
            printf("cuBLASLt M%ld K%ld N%ld %s: %.1f us\n", M, K, N,
                e == 0       ? "bias"
                    : e == 1 ? "gelu_bias (tanh)"
                             : "bias + erf pass",
                got ? timeIt(s, 50, runLt, &l) : -1.f);
        }
        cudaFree(A);
        cudaFree(B);
        cudaFree(bias);
        cudaFree(Y);
        cudaFree(ws);
    }
    return 0;
}
