// SPDX-License-Identifier: Apache-2.0
// The CUDA matrix multiply (kernels.h) with cuBLASLt, for the host reference's every case (backends/host/
// matrix_multiply.h): kNONE, kTRANSPOSE and kVECTOR operands, batch axes with broadcasting, in kFLOAT, kHALF, kBF16
// and kFP8, always accumulating in float (CUBLAS_COMPUTE_32F: no TF32, no half accumulation).
//
// Row-major tensors as cuBLASLt's column-major matrices: a row-major [R, C] block is the column-major [C, R] matrix,
// its transpose, so out = op0(a) * op1(b) is computed as out^T = op1(b)^T * op0(a)^T, with cuBLASLt's A the stored b
// and its B the stored a. A vector operand is a matrix with one row (input 0) or one column (input 1).
//
// Batches: the batch axes are merged where the strides of a, b and out allow (a broadcast axis has stride 0 in the
// operand that broadcasts); the innermost merged axis is cuBLASLt's strided batch, and any others are host loops of
// cuBLASLt calls (only when broadcasting alternates between the operands across axes, [3, 1] against [1, 2]).
//
// kFP8: cuBLASLt's FP8 GEMMs need a transposed A, a plain B and 16-byte aligned leading dimensions, which the host's
// shapes do not promise. So FP8 operands are staged as half (every E4M3 value is exact in half), multiplied in float
// into a float result with alpha = scale(a) * scale(b), and quantized to the output's scale (library_staging.cu).
//
// Epilogue: out = activation(product + bias). A bias along the output's last axis (N, the rows of cuBLASLt's
// column-major D, whose bias epilogue runs along D's rows) of out's type, and kRELU or kGELU_TANH after it or alone,
// run in cuBLASLt's epilogue (CUBLASLT_EPILOGUE_BIAS, RELU, RELU_BIAS, GELU, GELU_BIAS). Anything else, or an epilogue
// no algorithm offers, runs as one pass per part over out in place: the bias (a per-last-axis copy with bias, or the
// element-wise kSUM), then cuda::runActivation.
//
// Cache: the descriptors, layouts, preference and heuristic results of each problem (the Gemm's geometry, the
// pointers' alignment classes, the epilogue) are kept in Libraries::matmulCache() (matmul_cache.h), so that a run of a
// problem seen before makes no descriptor or heuristic call (a new bias pointer of the same alignment resets one
// attribute).
//
// Tactics: the first results of cublasLtMatmulAlgoGetHeuristic for the shapes, types and the pointers' alignment
// (tacticCount: 8, or 32 for products of at least 2^31 multiply-adds); tactic 0 is cuBLASLt's first choice. A product
// of at least 2^31 multiply-adds in 16-bit types also gets variants of that choice in other tiles (addVariants).
#include "backends/host/matrix_multiply.h"
#include "backends/cuda/kernels.h"
#include "backends/cuda/libraries.h"
#include "backends/cuda/library_staging.h"
#include "backends/cuda/matmul_cache.h"
#include "backends/host/activation.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace kiln::cuda
{

namespace
{

using host::Done;
using host::MatrixOpInfo;
using nvinfer1::MatrixOperation;

//! How many heuristic results become tactics: kFewTactics, or kManyTactics for a product of at least kManyTacticsWork
//! multiply-adds. (cuBLASLt 13.1 on an H200 returns no more than 8 for BERT-base's products, bench/probes/
//! matmul_search.cu: what a large product gains are the variants, addVariants.)
constexpr int32_t kFewTactics = 8;
constexpr int32_t kManyTactics = 32;
constexpr int64_t kManyTacticsWork = int64_t{1} << 31;
//! addVariants: the most variants of a large product's first heuristic result, the least wave efficiency (waves over
//! whole waves) a variant must have, and the custom options tried besides the first result's own.
constexpr std::size_t kMaxVariants = 256;
constexpr float kMinWaveEfficiency = 0.9F;
constexpr uint32_t kVariantOptions[] = {0, 1, 3};
//! The most workspace a tactic may need (what cuBLASLt's documentation recommends for Hopper).
constexpr uint64_t kMaxWorkspace = uint64_t{32} << 20;
//! Where staged buffers start inside the workspace.
constexpr int64_t kStagingAlignment = 256;

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "matrix multiply: " + message};
}

//! A batch axis (or several merged): its extent and the element strides of a, b and out along it.
struct BatchAxis
{
    int64_t extent{1};
    int64_t a{};
    int64_t b{};
    int64_t out{};
};

//! The product's geometry and how cuBLASLt computes it.
struct Gemm
{
    DataType type{};
    bool stagedFp8{};             //!< FP8 operands staged as half, the result staged as float.
    cudaDataType_t operandType{}; //!< The type cuBLASLt reads a and b in.
    cudaDataType_t resultType{};  //!< The type cuBLASLt writes the result in.
    int64_t operandBytes{};       //!< Bytes per element of operandType.
    int64_t resultBytes{};        //!< Bytes per element of resultType.
    MatrixOpInfo const* op[2]{};
    int64_t m{1};
    int64_t n{1};
    int64_t k{};
    int64_t countA{};
    int64_t countB{};
    int64_t countOut{};
    BatchAxis inner;              //!< cuBLASLt's strided batch.
    std::vector<BatchAxis> loops; //!< Host loops around it, outermost first.
};

//! KILN_MATMUL_TACTICS=<n> (a measuring aid): n candidates for every product instead of tacticCount's choice; 0 when
//! unset or not a count from 1 to 64.
int32_t tacticCountSetting()
{
    static int32_t const setting = [] {
        char const* text = std::getenv("KILN_MATMUL_TACTICS");
        int32_t const n = text == nullptr ? 0 : std::atoi(text);
        return n >= 1 && n <= 64 ? n : 0;
    }();
    return setting;
}

//! Whether KILN_MATMUL_VARIANTS leaves addVariants on (anything but "0"; a measuring aid), read once.
bool variantsAllowed()
{
    static bool const allowed = [] {
        char const* setting = std::getenv("KILN_MATMUL_VARIANTS");
        return setting == nullptr || std::strcmp(setting, "0") != 0;
    }();
    return allowed;
}

int32_t tacticCount(Gemm const& g)
{
    if (int32_t const forced = tacticCountSetting(); forced > 0)
    {
        return forced;
    }
    int64_t batch = g.inner.extent;
    for (BatchAxis const& loop : g.loops)
    {
        batch *= loop.extent;
    }
    // In double: the product of four extents may pass int64_t's range.
    double const work
        = static_cast<double>(g.m) * static_cast<double>(g.n) * static_cast<double>(g.k) * static_cast<double>(batch);
    return work >= static_cast<double>(kManyTacticsWork) ? kManyTactics : kFewTactics;
}

//! Checks the tensors as the host does and works out the product's geometry.
Expected<Gemm> makeGemm(MatrixMultiplyParams const& params, DeviceTensor const& a, DeviceTensor const& b,
    DeviceTensor const* out, bool checkData)
{
    Expected<host::TensorDesc> const inferred = host::inferMatrixMultiply(params, {a.type, a.dims}, {b.type, b.dims});
    if (!inferred)
    {
        return inferred.error();
    }
    host::TensorDesc const& expected = inferred.value();
    if (std::optional<std::string> const mismatch
        = out != nullptr ? host::outputMismatch(*out, expected.type, expected.dims) : std::nullopt)
    {
        return invalid(*mismatch);
    }
    if (checkData)
    {
        for (auto const& [tensor, role] :
            {std::pair{&a, "input 0"}, std::pair{&b, "input 1"}, std::pair{out, "output"}})
        {
            if (std::optional<Error> const error = host::checkTensor(*tensor, role))
            {
                return invalid(error->message);
            }
        }
    }

    Gemm g;
    g.type = a.type;
    g.op[0] = host::findMatrixOp(params.ops[0]);
    g.op[1] = host::findMatrixOp(params.ops[1]);
    switch (g.type)
    {
    case DataType::kFLOAT: g.operandType = g.resultType = CUDA_R_32F; break;
    case DataType::kHALF: g.operandType = g.resultType = CUDA_R_16F; break;
    case DataType::kBF16: g.operandType = g.resultType = CUDA_R_16BF; break;
    case DataType::kFP8:
        g.stagedFp8 = true;
        g.operandType = CUDA_R_16F;
        g.resultType = CUDA_R_32F;
        break;
    default: return invalid(std::string("has no cuBLASLt mapping for ") + dataTypeName(g.type));
    }
    g.operandBytes = g.operandType == CUDA_R_32F ? 4 : 2;
    g.resultBytes = g.resultType == CUDA_R_32F ? 4 : 2;

    auto const last = [](Dims const& d, int32_t back) { return d.d[d.nbDims - back]; };
    if (g.op[0]->matrixAxes == 2)
    {
        g.m = g.op[0]->transposed ? last(a.dims, 1) : last(a.dims, 2);
        g.k = g.op[0]->transposed ? last(a.dims, 2) : last(a.dims, 1);
    }
    else
    {
        g.k = last(a.dims, 1);
    }
    if (g.op[1]->matrixAxes == 2)
    {
        g.n = g.op[1]->transposed ? last(b.dims, 2) : last(b.dims, 1);
    }
    g.countA = host::elementCount(a.dims);
    g.countB = host::elementCount(b.dims);
    g.countOut = host::elementCount(expected.dims);

    // Batch axes: the output's extent and each tensor's stride (0 where an operand broadcasts). Axes of extent 1 drop
    // out; neighbours merge when the outer stride is the inner one times the inner extent in all three tensors.
    int32_t const batchRank = a.dims.nbDims - g.op[0]->matrixAxes;
    int64_t strideA = (g.op[0]->matrixAxes == 2 ? g.m : 1) * g.k;
    int64_t strideB = (g.op[1]->matrixAxes == 2 ? g.n : 1) * g.k;
    int64_t strideOut = g.m * g.n;
    std::vector<BatchAxis> axes; // innermost first while collecting
    for (int32_t i = batchRank - 1; i >= 0; --i)
    {
        int64_t const extentA = a.dims.d[i];
        int64_t const extentB = b.dims.d[i];
        int64_t const extent = extentA == 1 ? extentB : extentA;
        if (extent != 1)
        {
            BatchAxis const axis{extent, extentA == 1 ? 0 : strideA, extentB == 1 ? 0 : strideB, strideOut};
            if (!axes.empty() && axes.back().a * axes.back().extent == axis.a
                && axes.back().b * axes.back().extent == axis.b && axes.back().out * axes.back().extent == axis.out)
            {
                axes.back().extent *= extent;
            }
            else
            {
                axes.push_back(axis);
            }
        }
        strideA *= extentA;
        strideB *= extentB;
        strideOut *= extent;
    }
    // a [.., B, M, K] times a b that every one of the B products shares (a weight [K, N]): when a's and out's rows run
    // on across the axis, it folds into M, one product of B * M rows that cuBLASLt picks its kernels for as for any
    // tall 2-D product, instead of a batch of B short ones.
    if (!axes.empty() && g.op[0]->matrixAxes == 2 && !g.op[0]->transposed && axes.front().b == 0
        && axes.front().a == g.m * g.k && axes.front().out == g.m * g.n)
    {
        g.m *= axes.front().extent;
        axes.erase(axes.begin());
    }
    if (!axes.empty())
    {
        g.inner = axes.front();
        g.loops.assign(axes.rbegin(), axes.rend() - 1);
    }
    if (g.inner.extent > std::numeric_limits<int32_t>::max())
    {
        return invalid("a batch of " + std::to_string(g.inner.extent) + " products is more than cuBLASLt takes");
    }
    return g;
}

//! Whether the product has nothing for cuBLASLt to do: no output, or K == 0 (the output is zeros).
bool trivial(Gemm const& g)
{
    return g.countOut == 0 || g.k == 0;
}

//! Where the product reads and writes, for the alignment the heuristic may assume.
struct Pointers
{
    void const* a{};
    void const* b{};
    void const* out{};
    void const* c{}; //!< cuBLASLt's C: a fused residual, or out.
};

#define KILN_CUBLAS(call, what)                                                                                        \
    do                                                                                                                 \
    {                                                                                                                  \
        if (cublasStatus_t const status_ = (call); status_ != CUBLAS_STATUS_SUCCESS)                                   \
        {                                                                                                              \
            return cublasFailure(status_, "matrix multiply: " what);                                                   \
        }                                                                                                              \
    } while (false)

//! A layout of rows x cols with leading dimension ld, batched as the inner batch axis says.
std::optional<Error> makeLayout(cublasLtMatrixLayout_t& layout, cudaDataType_t type, int64_t rows, int64_t cols,
    int64_t ld, int64_t batch, int64_t stride)
{
    KILN_CUBLAS(cublasLtMatrixLayoutCreate(
                    &layout, type, static_cast<uint64_t>(rows), static_cast<uint64_t>(cols), std::max<int64_t>(ld, 1)),
        "cublasLtMatrixLayoutCreate");
    if (batch > 1)
    {
        auto const count = static_cast<int32_t>(batch);
        KILN_CUBLAS(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)),
            "setting the batch count");
        KILN_CUBLAS(cublasLtMatrixLayoutSetAttribute(
                        layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof(stride)),
            "setting the batch stride");
    }
    return std::nullopt;
}

//! What runs after the product: the bias and the activation, and the part of them cuBLASLt's epilogue can take.
struct Epilogue
{
    DeviceTensor const* bias{};                          //!< Null for none.
    DeviceTensor const* residual{};                      //!< Null for none.
    float scale{1.F};                                    //!< The product's factor.
    ActivationParams const* activation{};                //!< Null for none.
    bool residualFuses{};                                //!< The residual is cuBLASLt's C (beta 1).
    bool lastAxisBias{};                                 //!< bias is 1 in every axis but the last.
    cublasLtEpilogue_t fused{CUBLASLT_EPILOGUE_DEFAULT}; //!< What cuBLASLt may compute of it.
};

//! Checks bias and activation against out (of type and shape desc) and picks the epilogue cuBLASLt can fuse.
Expected<Epilogue> makeEpilogue(
    Gemm const& g, host::TensorDesc const& desc, MatmulEpilogue const& extras, bool checkData)
{
    DeviceTensor const* const bias = extras.bias;
    ActivationParams const* const activation = extras.activation;
    Epilogue e{bias, extras.residual, extras.scale, activation};
    if (!std::isfinite(extras.scale))
    {
        return invalid("the product's scale " + std::to_string(extras.scale) + " is not finite");
    }
    if (DeviceTensor const* const residual = extras.residual)
    {
        if (residual->type != desc.type || !host::sameShape(residual->dims, desc.dims))
        {
            return invalid("the residual is " + std::string(dataTypeName(residual->type)) + " "
                + host::shapeString(residual->dims) + " but must be of the output's type and shape "
                + dataTypeName(desc.type) + " " + host::shapeString(desc.dims));
        }
        if (checkData)
        {
            if (std::optional<Error> const error = host::checkTensor(*residual, "residual"))
            {
                return invalid(error->message);
            }
        }
        // cuBLASLt adds C (beta 1) before its epilogue's bias and activation; a staged FP8 result adds it afterwards.
        e.residualFuses = !g.stagedFp8;
    }
    if (bias != nullptr)
    {
        // Made only for a refusal: a run that passes builds no string.
        auto const problem = [&] {
            return "the bias is " + std::string(dataTypeName(bias->type)) + " " + host::shapeString(bias->dims)
                + " but must broadcast to the output " + dataTypeName(desc.type) + " " + host::shapeString(desc.dims);
        };
        if (bias->dims.nbDims != desc.dims.nbDims)
        {
            return invalid(problem() + " (another rank)");
        }
        e.lastAxisBias = true;
        for (int32_t i = 0; i < desc.dims.nbDims; ++i)
        {
            if (bias->dims.d[i] != desc.dims.d[i] && bias->dims.d[i] != 1)
            {
                return invalid(problem());
            }
            e.lastAxisBias = e.lastAxisBias && (i == desc.dims.nbDims - 1 || bias->dims.d[i] == 1);
        }
        if (bias->type != desc.type && !(bias->type == DataType::kFLOAT && e.lastAxisBias))
        {
            return invalid(problem() + " (of the output's type, or kFLOAT along the last axis only)");
        }
        if (checkData)
        {
            if (std::optional<Error> const error = host::checkTensor(*bias, "bias"))
            {
                return invalid(error->message);
            }
        }
    }
    if (activation != nullptr)
    {
        Expected<host::TensorDesc> const checked
            = host::inferActivation({activation->type, activation->alpha, activation->beta}, {desc.type, desc.dims});
        if (!checked)
        {
            return invalid("the activation: " + checked.error().message);
        }
    }

    // cuBLASLt's bias runs along the rows of its column-major D, the N columns of the row-major output (only the last
    // axis when op1 is a matrix), in D's type (cublasLt.h, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE). Its activation
    // follows the bias, so it fuses only when the bias fuses too or there is none. FP8 results are staged: no fusion.
    bool const biasFuses = bias != nullptr && !g.stagedFp8 && e.lastAxisBias && g.op[1]->matrixAxes == 2
        && bias->type == desc.type && bias->dims.nbDims > 0 && bias->dims.d[bias->dims.nbDims - 1] == g.n;
    bool const relu = activation != nullptr && activation->type == nvinfer1::ActivationType::kRELU;
    bool const gelu = activation != nullptr && activation->type == nvinfer1::ActivationType::kGELU_TANH;
    bool const activationFuses = !g.stagedFp8 && (relu || gelu) && (bias == nullptr || biasFuses);
    if (biasFuses)
    {
        e.fused = !activationFuses ? CUBLASLT_EPILOGUE_BIAS
            : relu                 ? CUBLASLT_EPILOGUE_RELU_BIAS
                                   : CUBLASLT_EPILOGUE_GELU_BIAS;
    }
    else if (activationFuses)
    {
        e.fused = relu ? CUBLASLT_EPILOGUE_RELU : CUBLASLT_EPILOGUE_GELU;
    }
    return e;
}

bool hasBias(cublasLtEpilogue_t epilogue)
{
    return (epilogue & CUBLASLT_EPILOGUE_BIAS) != 0;
}

//! cuBLASLt's algorithm as its configuration's attributes, which cublasLtMatmulAlgoInit and
//! cublasLtMatmulAlgoConfigSetAttribute would make it again from: "cublasLt algo 6 tile 18 stages 9 splitK 1 ...".
std::string algorithmName(cublasLtMatmulAlgo_t const& algo)
{
    struct Attribute
    {
        cublasLtMatmulAlgoConfigAttributes_t id;
        char const* name;
    };
    static constexpr Attribute kAttributes[] = {{CUBLASLT_ALGO_CONFIG_ID, "algo"},
        {CUBLASLT_ALGO_CONFIG_TILE_ID, "tile"}, {CUBLASLT_ALGO_CONFIG_STAGES_ID, "stages"},
        {CUBLASLT_ALGO_CONFIG_SPLITK_NUM, "splitK"}, {CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, "reduction"},
        {CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, "swizzle"}, {CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, "custom"},
        {CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, "inner"}, {CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, "cluster"}};
    std::string name = "cublasLt";
    for (Attribute const& attribute : kAttributes)
    {
        // cuBLASLt takes exactly the attribute's size (2 or 4 bytes), which a first call without a buffer gives; the
        // value lands at the start of a zeroed 8-byte one.
        uint64_t value = 0;
        size_t size = 0;
        if (cublasLtMatmulAlgoConfigGetAttribute(&algo, attribute.id, nullptr, 0, &size) == CUBLAS_STATUS_SUCCESS
            && size <= sizeof(value)
            && cublasLtMatmulAlgoConfigGetAttribute(&algo, attribute.id, &value, size, &size) == CUBLAS_STATUS_SUCCESS)
        {
            name += std::string(" ") + attribute.name + " " + std::to_string(value);
        }
    }
    return name;
}

//! Appends to d.results variants of its first (the heuristic's first choice): the same algorithm and stages with every
//! tile the algorithm offers, in clusters of 1x1x1 and 2x1x1, with the first's custom option and kVariantOptions (those
//! the algorithm has), where cublasLtMatmulAlgoCheck accepts them within kMaxWorkspace and their grid fills whole
//! waves of the GPU to kMinWaveEfficiency (the check's wavesCount); the most efficient kMaxVariants of them (ties:
//! fewer waves, then the order of the tile list). The heuristic ranks few tiles; for BERT-base's products at batch 32
//! tiles it leaves out fill the multiprocessors in fuller waves, 8 to 10% faster for the q/k/v and attention-output
//! products on an H200 (bench/probes/matmul_search.cu: 128x144 and 64x192, custom options 1 and 3). The list depends
//! only on the problem, the device and cuBLASLt's version, as tactics must; the build's timing cache times each
//! problem's list once however many layers share it.
void addVariants(cublasLtHandle_t handle, MatmulPlan& d)
{
    cublasLtMatmulAlgo_t const first = d.results.front().algo;
    size_t bytes = 0;
    if (cublasLtMatmulAlgoCapGetAttribute(&first, CUBLASLT_ALGO_CAP_TILE_IDS, nullptr, 0, &bytes)
            != CUBLAS_STATUS_SUCCESS
        || bytes == 0)
    {
        return;
    }
    std::vector<uint32_t> tiles(bytes / sizeof(uint32_t));
    int32_t optionMax = 0;
    uint32_t ownOption = 0;
    if (cublasLtMatmulAlgoCapGetAttribute(&first, CUBLASLT_ALGO_CAP_TILE_IDS, tiles.data(), bytes, &bytes)
            != CUBLAS_STATUS_SUCCESS
        || cublasLtMatmulAlgoCapGetAttribute(
               &first, CUBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX, &optionMax, sizeof(optionMax), &bytes)
            != CUBLAS_STATUS_SUCCESS
        || cublasLtMatmulAlgoConfigGetAttribute(
               &first, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &ownOption, sizeof(ownOption), &bytes)
            != CUBLAS_STATUS_SUCCESS)
    {
        return;
    }
    std::vector<uint32_t> options{ownOption};
    for (uint32_t const option : kVariantOptions)
    {
        if (static_cast<int64_t>(option) <= optionMax && option != ownOption)
        {
            options.push_back(option);
        }
    }
    struct Variant
    {
        cublasLtMatmulHeuristicResult_t result;
        float efficiency;
    };
    std::vector<Variant> variants;
    for (uint32_t const tile : tiles)
    {
        for (uint16_t const cluster : {uint16_t{CUBLASLT_CLUSTER_SHAPE_1x1x1}, uint16_t{CUBLASLT_CLUSTER_SHAPE_2x1x1}})
        {
            for (uint32_t const option : options)
            {
                cublasLtMatmulAlgo_t algo = first;
                cublasLtMatmulHeuristicResult_t checked{};
                if (tile == CUBLASLT_MATMUL_TILE_UNDEFINED
                    || cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof(tile))
                        != CUBLAS_STATUS_SUCCESS
                    || cublasLtMatmulAlgoConfigSetAttribute(
                           &algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &cluster, sizeof(cluster))
                        != CUBLAS_STATUS_SUCCESS
                    || cublasLtMatmulAlgoConfigSetAttribute(
                           &algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &option, sizeof(option))
                        != CUBLAS_STATUS_SUCCESS
                    || cublasLtMatmulAlgoCheck(handle, d.op, d.first, d.second, d.result, d.result, &algo, &checked)
                        != CUBLAS_STATUS_SUCCESS
                    || checked.workspaceSize > kMaxWorkspace || !(checked.wavesCount > 0.F))
                {
                    continue;
                }
                float const efficiency = checked.wavesCount / std::ceil(checked.wavesCount);
                if (efficiency >= kMinWaveEfficiency)
                {
                    checked.algo = algo;
                    checked.state = CUBLAS_STATUS_SUCCESS;
                    variants.push_back(Variant{checked, efficiency});
                }
            }
        }
    }
    std::stable_sort(variants.begin(), variants.end(), [](Variant const& x, Variant const& y) {
        return x.efficiency != y.efficiency ? x.efficiency > y.efficiency
                                            : std::ceil(x.result.wavesCount) < std::ceil(y.result.wavesCount);
    });
    variants.resize(std::min(variants.size(), kMaxVariants));
    for (Variant const& variant : variants)
    {
        d.results.push_back(variant.result);
    }
}

//! The descriptors of g with epilogue (its bias at bias) and the heuristic's results (at most tacticCount(g), each
//! usable), for operands at pointers, and for a large product (kManyTacticsWork) in 16-bit types their variants
//! (addVariants). When no algorithm computes the epilogue, the plan is for the plain product
//! (plan.epilogue says which).
std::optional<Error> describe(cublasLtHandle_t handle, Gemm const& g, Pointers const& at, cublasLtEpilogue_t epilogue,
    void const* bias, MatmulPlan& d)
{
    KILN_CUBLAS(cublasLtMatmulDescCreate(&d.op, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
    // cuBLASLt's A (m = N rows of the result, k = K): op1(b)^T. Stored b is [K, N] (kNONE: the column-major N x K
    // matrix itself), [N, K] (kTRANSPOSE: K x N, transposed) or [K] (kVECTOR: K x 1, transposed).
    bool const bPlain = g.op[1]->matrixAxes == 2 && !g.op[1]->transposed;
    cublasOperation_t const transA = bPlain ? CUBLAS_OP_N : CUBLAS_OP_T;
    // cuBLASLt's B (K x M): op0(a)^T. Stored a is [M, K] (kNONE: K x M itself), [K, M] (kTRANSPOSE: M x K, transposed)
    // or [K] (kVECTOR: K x 1 itself).
    bool const aTransposed = g.op[0]->matrixAxes == 2 && g.op[0]->transposed;
    cublasOperation_t const transB = aTransposed ? CUBLAS_OP_T : CUBLAS_OP_N;
    KILN_CUBLAS(
        cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_TRANSA, &transA, sizeof(transA)), "setting TRANSA");
    KILN_CUBLAS(
        cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_TRANSB, &transB, sizeof(transB)), "setting TRANSB");

    int64_t const batch = g.inner.extent;
    if (std::optional<Error> error = bPlain ? makeLayout(d.first, g.operandType, g.n, g.k, g.n, batch, g.inner.b)
                                            : makeLayout(d.first, g.operandType, g.k, g.n, g.k, batch, g.inner.b))
    {
        return error;
    }
    if (std::optional<Error> error = aTransposed ? makeLayout(d.second, g.operandType, g.m, g.k, g.m, batch, g.inner.a)
                                                 : makeLayout(d.second, g.operandType, g.k, g.m, g.k, batch, g.inner.a))
    {
        return error;
    }
    if (std::optional<Error> error = makeLayout(d.result, g.resultType, g.n, g.m, g.n, batch, g.inner.out))
    {
        return error;
    }

    // The alignment every call's pointers share: the base, the batch stride and every host loop's stride.
    auto const aligned = [&g](void const* base, int64_t bytes, int64_t BatchAxis::*member) {
        uint32_t alignment = commonAlignment(base, {g.inner.*member * bytes});
        for (BatchAxis const& loop : g.loops)
        {
            alignment = std::min(alignment, commonAlignment(base, {loop.*member * bytes}));
        }
        return alignment;
    };
    uint32_t const alignFirst = aligned(at.b, g.operandBytes, &BatchAxis::b);
    uint32_t const alignSecond = aligned(at.a, g.operandBytes, &BatchAxis::a);
    uint32_t const alignResult = aligned(at.out, g.resultBytes, &BatchAxis::out);
    uint32_t const alignC = aligned(at.c, g.resultBytes, &BatchAxis::out);
    uint64_t const workspace = kMaxWorkspace;
    KILN_CUBLAS(cublasLtMatmulPreferenceCreate(&d.preference), "cublasLtMatmulPreferenceCreate");
    for (auto const& [attribute, value] : {std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, alignFirst},
             std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, alignSecond},
             std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, alignC},
             std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, alignResult}})
    {
        KILN_CUBLAS(cublasLtMatmulPreferenceSetAttribute(d.preference, attribute, &value, sizeof(value)),
            "setting an alignment preference");
    }
    KILN_CUBLAS(cublasLtMatmulPreferenceSetAttribute(
                    d.preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof(workspace)),
        "setting the workspace preference");
    // Split-K partial sums stay in float (the compute type), never in a 16-bit output type.
    uint32_t const reductions = CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
    KILN_CUBLAS(cublasLtMatmulPreferenceSetAttribute(
                    d.preference, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &reductions, sizeof(reductions)),
        "setting the reduction preference");

    // The fused epilogue first; the plain product when no algorithm computes it.
    for (cublasLtEpilogue_t const tried : {epilogue, CUBLASLT_EPILOGUE_DEFAULT})
    {
        void const* const triedBias = hasBias(tried) ? bias : nullptr;
        KILN_CUBLAS(cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &tried, sizeof(tried)),
            "setting the epilogue");
        KILN_CUBLAS(
            cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &triedBias, sizeof(triedBias)),
            "setting the bias pointer");
        int32_t const wanted = tacticCount(g);
        std::vector<cublasLtMatmulHeuristicResult_t> found(static_cast<std::size_t>(wanted));
        int returned = 0;
        cublasStatus_t const status = cublasLtMatmulAlgoGetHeuristic(
            handle, d.op, d.first, d.second, d.result, d.result, d.preference, wanted, found.data(), &returned);
        if (status != CUBLAS_STATUS_SUCCESS && status != CUBLAS_STATUS_NOT_SUPPORTED)
        {
            return cublasFailure(status, "matrix multiply: cublasLtMatmulAlgoGetHeuristic");
        }
        d.results.clear();
        for (int i = 0; status == CUBLAS_STATUS_SUCCESS && i < returned; ++i)
        {
            if (found[static_cast<std::size_t>(i)].state == CUBLAS_STATUS_SUCCESS)
            {
                d.results.push_back(found[static_cast<std::size_t>(i)]);
            }
        }
        d.epilogue = tried;
        d.bias = triedBias;
        if (!d.results.empty() || tried == CUBLASLT_EPILOGUE_DEFAULT)
        {
            break;
        }
    }
    if (d.results.empty())
    {
        return cublasFailure(
            CUBLAS_STATUS_NOT_SUPPORTED, "matrix multiply: cublasLtMatmulAlgoGetHeuristic (no algorithm)");
    }
    bool const sixteenBits
        = (g.operandType == CUDA_R_16F || g.operandType == CUDA_R_16BF) && g.resultType == g.operandType;
    if (sixteenBits && tacticCountSetting() == 0 && tacticCount(g) == kManyTactics && variantsAllowed())
    {
        addVariants(handle, d);
    }
    // Named by their configurations; one the heuristic lists twice is one tactic.
    std::vector<cublasLtMatmulHeuristicResult_t> distinct;
    d.names.clear();
    for (cublasLtMatmulHeuristicResult_t const& result : d.results)
    {
        std::string name = algorithmName(result.algo);
        if (std::find(d.names.begin(), d.names.end(), name) == d.names.end())
        {
            d.names.push_back(std::move(name));
            distinct.push_back(result);
        }
    }
    d.results = std::move(distinct);
    return std::nullopt;
}

//! The cached plan of g with epilogue e for operands at pointers, described and kept on a miss.
Expected<MatmulPlan*> planFor(
    cublasLtHandle_t handle, MatmulCache& cache, Gemm const& g, Pointers const& at, Epilogue const& e)
{
    void const* const bias = hasBias(e.fused) ? e.bias->data : nullptr;
    auto const aligned = [&g](void const* base, int64_t bytes, int64_t BatchAxis::*member) -> int64_t {
        uint32_t alignment = commonAlignment(base, {g.inner.*member * bytes});
        for (BatchAxis const& loop : g.loops)
        {
            alignment = std::min(alignment, commonAlignment(base, {loop.*member * bytes}));
        }
        return alignment;
    };
    MatmulCache::Key const key{static_cast<int64_t>(g.type), static_cast<int64_t>(g.op[0]->op),
        static_cast<int64_t>(g.op[1]->op), g.m, g.n, g.k, g.inner.extent, g.inner.a, g.inner.b, g.inner.out,
        aligned(at.a, g.operandBytes, &BatchAxis::a), aligned(at.b, g.operandBytes, &BatchAxis::b),
        aligned(at.out, g.resultBytes, &BatchAxis::out), aligned(at.c, g.resultBytes, &BatchAxis::out),
        static_cast<int64_t>(e.fused), bias == nullptr ? 0 : static_cast<int64_t>(commonAlignment(bias, {}))};
    if (MatmulPlan* const plan = cache.find(key))
    {
        // Another bias of the same alignment: the one attribute that changes between runs of one problem.
        if (hasBias(plan->epilogue) && plan->bias != bias)
        {
            KILN_CUBLAS(
                cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)),
                "setting the bias pointer");
            plan->bias = bias;
        }
        return plan;
    }
    auto made = std::make_unique<MatmulPlan>();
    if (std::optional<Error> error = describe(handle, g, at, e.fused, bias, *made))
    {
        return *error;
    }
    return &cache.insert(key, std::move(made));
}

//! Applies what the epilogue left to do (done: what cuBLASLt computed; residualDone: whether it added the residual)
//! to out in place: the bias, the residual, then the activation.
Status finish(
    Epilogue const& e, cublasLtEpilogue_t done, bool residualDone, DeviceTensor const& out, Launch const& launch)
{
    if (e.bias != nullptr && !hasBias(done))
    {
        DeviceTensor const& bias = *e.bias;
        bool const plainBias
            = bias.type == DataType::kFLOAT || bias.type == DataType::kHALF || bias.type == DataType::kBF16;
        if (e.lastAxisBias && plainBias)
        {
            // A bias along the last axis (or one value): a copy of out onto itself adding bias[i % channels].
            int64_t const channels = bias.dims.nbDims == 0 ? 1 : bias.dims.d[bias.dims.nbDims - 1];
            Status const added = convertElements({out.data, out.type, out.scale}, {out.data, out.type, out.scale},
                host::elementCount(out.dims), launch.stream, StagedBias{bias.data, bias.type, channels, 1});
            if (!added)
            {
                return Error{added.error().code, "matrix multiply: adding the bias: " + added.error().message};
            }
        }
        else
        {
            // Any broadcast of out's type: the element-wise sum, out in place (it reads element i of out only for
            // element i).
            Status const added = runElementWise({nvinfer1::ElementWiseOperation::kSUM}, out, bias, out, launch);
            if (!added)
            {
                return Error{added.error().code, "matrix multiply: adding the bias: " + added.error().message};
            }
        }
    }
    if (e.residual != nullptr && !residualDone)
    {
        Status const added = runElementWise({nvinfer1::ElementWiseOperation::kSUM}, out, *e.residual, out, launch);
        if (!added)
        {
            return Error{added.error().code, "matrix multiply: adding the residual: " + added.error().message};
        }
    }
    bool const activationDone = done == CUBLASLT_EPILOGUE_RELU || done == CUBLASLT_EPILOGUE_RELU_BIAS
        || done == CUBLASLT_EPILOGUE_GELU || done == CUBLASLT_EPILOGUE_GELU_BIAS;
    if (e.activation != nullptr && !activationDone)
    {
        Status const activated = runActivation(*e.activation, out, out, launch);
        if (!activated)
        {
            return Error{activated.error().code, "matrix multiply: the activation: " + activated.error().message};
        }
    }
    return Done{};
}

//! Bytes rounded up to the staging alignment.
int64_t staged(int64_t bytes)
{
    return (bytes + kStagingAlignment - 1) / kStagingAlignment * kStagingAlignment;
}

//! Where the staged operands and result sit in the workspace (FP8 only), and where cuBLASLt's own workspace starts.
struct Staging
{
    int64_t a{};
    int64_t b{};
    int64_t out{};
    int64_t library{};
};

Staging stagingLayout(Gemm const& g)
{
    Staging s;
    if (g.stagedFp8)
    {
        s.b = s.a + staged(g.countA * g.operandBytes);
        s.out = s.b + staged(g.countB * g.operandBytes);
        s.library = s.out + staged(g.countOut * g.resultBytes);
    }
    return s;
}

//! The pointers the heuristic sees: the tensors', or the staging buffers' (256-byte aligned) for FP8.
Pointers pointersOf(Gemm const& g, DeviceTensor const& a, DeviceTensor const& b, DeviceTensor const& out)
{
    if (g.stagedFp8)
    {
        return {};
    }
    return {a.data, b.data, out.data, out.data};
}

//! pointersOf, with C at the residual when cuBLASLt adds it.
Pointers pointersOf(
    Gemm const& g, DeviceTensor const& a, DeviceTensor const& b, DeviceTensor const& out, Epilogue const& e)
{
    Pointers at = pointersOf(g, a, b, out);
    if (e.residualFuses)
    {
        at.c = e.residual->data;
    }
    return at;
}

} // namespace

TacticNames matrixMultiplyTacticNames(MatrixMultiplyParams const& params, DeviceTensor const& a, DeviceTensor const& b,
    MatmulEpilogue const& extras, DeviceTensor const& out, Libraries& libraries)
{
    // An empty product, or one cuBLASLt cannot plan, has its one unnamed variant (the run reports why it fails).
    static std::string const kOnly[1];
    Expected<Gemm> const gemm = makeGemm(params, a, b, &out, false);
    if (!gemm || trivial(gemm.value()))
    {
        return kOnly;
    }
    Expected<Epilogue> const epilogue = makeEpilogue(gemm.value(), {out.type, out.dims}, extras, false);
    if (!epilogue)
    {
        return kOnly;
    }
    Expected<void*> const handle = libraries.cublasLt();
    if (!handle)
    {
        return kOnly;
    }
    Expected<MatmulPlan*> const plan = planFor(static_cast<cublasLtHandle_t>(handle.value()), libraries.matmulCache(),
        gemm.value(), pointersOf(gemm.value(), a, b, out, epilogue.value()), epilogue.value());
    if (!plan)
    {
        return kOnly;
    }
    return plan.value()->names;
}

int32_t nbMatrixMultiplyTactics(MatrixMultiplyParams const& params, DeviceTensor const& a, DeviceTensor const& b,
    MatmulEpilogue const& extras, DeviceTensor const& out, Libraries& libraries)
{
    return static_cast<int32_t>(matrixMultiplyTacticNames(params, a, b, extras, out, libraries).size());
}

Status runMatrixMultiply(MatrixMultiplyParams const& params, DeviceTensor const& a, DeviceTensor const& b,
    MatmulEpilogue const& extras, DeviceTensor const& out, Launch const& launch)
{
    Expected<Gemm> const planned = makeGemm(params, a, b, &out, true);
    if (!planned)
    {
        return planned.error();
    }
    Gemm const& g = planned.value();
    Expected<Epilogue> const checked = makeEpilogue(g, {out.type, out.dims}, extras, true);
    if (!checked)
    {
        return checked.error();
    }
    Epilogue const& e = checked.value();
    if (launch.tactic < 0)
    {
        return invalid("tactic " + std::to_string(launch.tactic) + " is negative");
    }
    if (g.countOut == 0)
    {
        return Done{};
    }
    if (g.k == 0)
    {
        // Empty sums: every product is 0, whose bits are all zero in every floating type; then bias and activation.
        if (cudaError_t const status
            = cudaMemsetAsync(out.data, 0, static_cast<size_t>(storageBytes(out.type, g.countOut)), launch.stream);
            status != cudaSuccess)
        {
            return cudaFailure(status, "matrix multiply: cudaMemsetAsync");
        }
        return finish(e, CUBLASLT_EPILOGUE_DEFAULT, false, out, launch);
    }
    if (launch.libraries == nullptr)
    {
        return invalid("no libraries were given to the launch");
    }
    Expected<void*> const handle = launch.libraries->cublasLt();
    if (!handle)
    {
        return handle.error();
    }
    Expected<MatmulPlan*> const found = planFor(static_cast<cublasLtHandle_t>(handle.value()),
        launch.libraries->matmulCache(), g, pointersOf(g, a, b, out, e), e);
    if (!found)
    {
        return found.error();
    }
    MatmulPlan const& d = *found.value();
    if (launch.tactic >= static_cast<int32_t>(d.results.size()))
    {
        return invalid("tactic " + std::to_string(launch.tactic) + " is out of range: cuBLASLt offers "
            + std::to_string(d.results.size()) + " for these shapes");
    }
    cublasLtMatmulHeuristicResult_t const& chosen = d.results[static_cast<std::size_t>(launch.tactic)];

    Staging const staging = stagingLayout(g);
    int64_t const libraryBytes = static_cast<int64_t>(chosen.workspaceSize);
    Expected<void*> const workspace = launch.libraries->workspace(staging.library + libraryBytes, launch.stream);
    if (!workspace)
    {
        return workspace.error();
    }
    auto* const base = static_cast<std::byte*>(workspace.value());
    void const* first = b.data;
    void const* second = a.data;
    void* result = out.data;
    float alpha = e.scale;
    if (g.stagedFp8)
    {
        first = base + staging.b;
        second = base + staging.a;
        result = base + staging.out;
        alpha *= a.scale * b.scale;
        for (auto const& [tensor, at, count] :
            {std::tuple{&a, staging.a, g.countA}, std::tuple{&b, staging.b, g.countB}})
        {
            Status const done = convertElements(
                {tensor->data, DataType::kFP8, 1.F}, {base + at, DataType::kHALF}, count, launch.stream);
            if (!done)
            {
                return done.error();
            }
        }
    }
    float const beta = e.residualFuses ? 1.F : 0.F;
    void* const libraryWorkspace = libraryBytes > 0 ? base + staging.library : nullptr;

    // The host loops (an odometer over g.loops), each one strided-batched cuBLASLt call.
    std::vector<int64_t> index(g.loops.size(), 0);
    while (true)
    {
        int64_t offsetA = 0;
        int64_t offsetB = 0;
        int64_t offsetOut = 0;
        for (std::size_t i = 0; i < g.loops.size(); ++i)
        {
            offsetA += index[i] * g.loops[i].a;
            offsetB += index[i] * g.loops[i].b;
            offsetOut += index[i] * g.loops[i].out;
        }
        auto const* const firstAt = static_cast<std::byte const*>(first) + offsetB * g.operandBytes;
        auto const* const secondAt = static_cast<std::byte const*>(second) + offsetA * g.operandBytes;
        auto* const resultAt = static_cast<std::byte*>(result) + offsetOut * g.resultBytes;
        void const* const cAt = e.residualFuses
            ? static_cast<std::byte const*>(e.residual->data) + offsetOut * g.resultBytes
            : static_cast<void const*>(resultAt);
        KILN_CUBLAS(cublasLtMatmul(static_cast<cublasLtHandle_t>(handle.value()), d.op, &alpha, firstAt, d.first,
                        secondAt, d.second, &beta, cAt, d.result, resultAt, d.result, &chosen.algo, libraryWorkspace,
                        chosen.workspaceSize, launch.stream),
            "cublasLtMatmul");
        std::size_t axis = g.loops.size();
        while (axis > 0 && ++index[axis - 1] == g.loops[axis - 1].extent)
        {
            index[--axis] = 0;
        }
        if (axis == 0)
        {
            break;
        }
    }

    if (g.stagedFp8)
    {
        Status const quantized = convertElements(
            {result, DataType::kFLOAT}, {out.data, DataType::kFP8, out.scale}, g.countOut, launch.stream);
        if (!quantized)
        {
            return quantized.error();
        }
    }
    return finish(e, d.epilogue, e.residualFuses, out, launch);
}

#undef KILN_CUBLAS

} // namespace kiln::cuda
