// SPDX-License-Identifier: Apache-2.0
// The cuBLASLt matrix multiply (backends/cuda/matrix_multiply.cpp) against the host reference, with every tactic, on
// random shapes and values: every pair of MatrixOperations, batch axes broadcast either way (also alternating, which
// takes host loops), vectors, K = 0 and empty outputs, in FP32, FP16, BF16 and FP8; its refusals with their
// messages; bias and activation fused (cuBLASLt's epilogue or an extra pass) against the host's matrix multiply,
// element-wise kSUM and activation; the plan cache; and the Libraries' handles and workspace.
#include "cuda_test_util.h"

#include "backends/cuda/matmul_cache.h"
#include "backends/host/activation.h"
#include "backends/host/elementwise.h"
#include "backends/host/matrix_multiply.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

namespace kiln::cuda::test
{
namespace
{

using MOp = nvinfer1::MatrixOperation;

//! The stored shape of an operand: [batch..., rows, cols] for kNONE, [batch..., cols, rows] for kTRANSPOSE,
//! [batch..., rows * cols] (one of them 1) for kVECTOR.
Dims operandShape(Dims const& batch, MOp op, int64_t rows, int64_t cols)
{
    Dims d = batch;
    if (op == MOp::kVECTOR)
    {
        d.d[d.nbDims++] = rows * cols;
        return d;
    }
    d.d[d.nbDims++] = op == MOp::kTRANSPOSE ? cols : rows;
    d.d[d.nbDims++] = op == MOp::kTRANSPOSE ? rows : cols;
    return d;
}

//! The tolerance factor for a reduction of length k. Products of inputs in [-2, 2] have an rms near 1.33 and the
//! partial sums grow like sqrt(k), so float accumulation in any order loses about u * k * 1.33 (u = 2^-24) in
//! absolute terms; allowing 8 * u * k on top of the type's own tolerance keeps a margin of about 6 standard
//! deviations. It matters for kFLOAT only: the 16-bit and FP8 results' rounding dominates.
double reductionExtra(DataType type, int64_t k)
{
    return 1.0 + 8.0 * std::ldexp(1.0, -24) * static_cast<double>(k) / tolerance(type);
}

class CudaMatrixMultiply : public CudaKernelTest
{
protected:
    //! One product on the device, with every tactic, against the host reference; the tactics' names to names.
    void check(DataType type, MOp op0, MOp op1, Dims const& batchA, Dims const& batchB, int64_t m, int64_t k, int64_t n,
        TacticNames* tacticNames = nullptr)
    {
        int64_t const rowsA = op0 == MOp::kVECTOR ? 1 : m;
        int64_t const colsB = op1 == MOp::kVECTOR ? 1 : n;
        SCOPED_TRACE(::testing::Message()
            << dataTypeName(type) << " " << host::findMatrixOp(op0)->name << " x " << host::findMatrixOp(op1)->name
            << " batch " << host::shapeString(batchA) << " / " << host::shapeString(batchB) << " m " << rowsA << " k "
            << k << " n " << colsB);
        float const scale = type == DataType::kFP8 ? 0.25F : 1.0F;
        float const outScale = type == DataType::kFP8 ? 4.0F : 1.0F;
        HostBuffer a(type, operandShape(batchA, op0, rowsA, k), scale);
        HostBuffer b(type, operandShape(batchB, op1, k, colsB), scale);
        randomize(a, mRng, -2.0, 2.0);
        randomize(b, mRng, -2.0, 2.0);
        MatrixMultiplyParams params;
        params.ops[0] = op0;
        params.ops[1] = op1;
        Expected<host::TensorDesc> const desc
            = host::inferMatrixMultiply(params, {type, a.tensor().dims}, {type, b.tensor().dims});
        ASSERT_TRUE(desc.ok()) << desc.error().message;
        HostBuffer expected(type, desc.value().dims, outScale);
        Status const reference = host::runMatrixMultiply(params, a.tensor(), b.tensor(), expected.tensor());
        ASSERT_TRUE(reference.ok()) << reference.error().message;

        DeviceBuffer const da = DeviceBuffer::upload(a.tensor());
        DeviceBuffer const db = DeviceBuffer::upload(b.tensor());
        DeviceBuffer const dout(expected.tensor());
        int32_t const tactics
            = nbMatrixMultiplyTactics(params, da.tensor(), db.tensor(), MatmulEpilogue{}, dout.tensor(), *mLibraries);
        EXPECT_GE(tactics, 1);
        // Each of cuBLASLt's variants by its configuration: distinct names, what the plan records.
        TacticNames const names
            = matrixMultiplyTacticNames(params, da.tensor(), db.tensor(), MatmulEpilogue{}, dout.tensor(), *mLibraries);
        ASSERT_EQ(static_cast<int32_t>(names.size()), tactics);
        EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
        for (std::string const& name : names)
        {
            EXPECT_TRUE(name.empty() ? tactics == 1 : name.rfind("cublasLt algo ", 0) == 0) << name;
        }
        if (tacticNames != nullptr)
        {
            *tacticNames = names;
        }
        int64_t const bytes = storageBytes(type, host::elementCount(expected.tensor()));
        for (int32_t tactic = 0; tactic < tactics; ++tactic)
        {
            // NaN everywhere first (0xFF bytes in every floating type), so that an element left unwritten fails.
            ASSERT_EQ(cudaMemsetAsync(dout.tensor().data, 0xFF, static_cast<size_t>(bytes), mStream), cudaSuccess);
            Status const done
                = runMatrixMultiply(params, da.tensor(), db.tensor(), MatmulEpilogue{}, dout.tensor(), launch(tactic));
            ASSERT_TRUE(done.ok()) << "tactic " << tactic << ": " << done.error().message;
            expectNear(dout.download(mStream), expected, reductionExtra(type, k), "tactic " + std::to_string(tactic));
        }
    }

    //! Batch extents of an operand for the output's batch: each axis its extent or (at random) 1.
    Dims broadcastInput(Dims const& batch)
    {
        Dims d = batch;
        for (int32_t i = 0; i < d.nbDims; ++i)
        {
            if (mRng() % 3 == 0)
            {
                d.d[i] = 1;
            }
        }
        return d;
    }
};

constexpr DataType kTypes[] = {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kFP8};

TEST_F(CudaMatrixMultiply, RandomShapesEveryOperationEveryTactic)
{
    for (DataType const type : kTypes)
    {
        for (int32_t trial = 0; trial < 27; ++trial)
        {
            auto const op0 = static_cast<MOp>(trial % 3);
            auto const op1 = static_cast<MOp>(trial / 3 % 3);
            Dims batch{static_cast<int32_t>(mRng() % 3), {}};
            for (int32_t i = 0; i < batch.nbDims; ++i)
            {
                batch.d[i] = 1 + static_cast<int64_t>(mRng() % 4);
            }
            Dims const batchA = broadcastInput(batch);
            Dims const batchB = broadcastInput(batch);
            // Small shapes, and every third trial one large enough for tensor-core tiles and split-K.
            bool const large = trial % 3 == 2;
            int64_t const m = large ? 64 + static_cast<int64_t>(mRng() % 80) : 1 + static_cast<int64_t>(mRng() % 9);
            int64_t const k = large ? 100 + static_cast<int64_t>(mRng() % 200) : 1 + static_cast<int64_t>(mRng() % 17);
            int64_t const n = large ? 48 + static_cast<int64_t>(mRng() % 80) : 1 + static_cast<int64_t>(mRng() % 9);
            check(type, op0, op1, batchA, batchB, m, k, n);
            if (HasFatalFailure())
            {
                return;
            }
        }
    }
}

TEST_F(CudaMatrixMultiply, AlignedShapesEveryType)
{
    // Extents that are multiples of 16, the shapes the fastest kernels take.
    for (DataType const type : kTypes)
    {
        check(type, MOp::kNONE, MOp::kNONE, Dims{1, {2}}, Dims{1, {2}}, 128, 64, 96);
        check(type, MOp::kNONE, MOp::kTRANSPOSE, Dims{0, {}}, Dims{0, {}}, 256, 128, 64);
        check(type, MOp::kTRANSPOSE, MOp::kNONE, Dims{1, {3}}, Dims{1, {1}}, 32, 160, 48);
    }
}

TEST_F(CudaMatrixMultiply, LargeProductsAddTileVariantsThatMatchTheHost)
{
    // 2^31 multiply-adds in a 16-bit type: besides cuBLASLt's heuristic results (at most 8 for such a product on an
    // H200), variants of its first choice in other tiles, clusters and custom options (matrix_multiply.cpp,
    // addVariants); every one computes the product.
    int32_t device = 0;
    int32_t major = 0;
    ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
    ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), cudaSuccess);
    TacticNames names;
    check(DataType::kHALF, MOp::kNONE, MOp::kNONE, Dims{0, {}}, Dims{0, {}}, 4096, 512, 1024, &names);
    if (major == 9)
    {
        EXPECT_GT(names.size(), 8U);
    }
}

TEST_F(CudaMatrixMultiply, BatchBroadcasting)
{
    // One operand broadcast over every batch axis (stride 0 in cuBLASLt's batch).
    check(DataType::kFLOAT, MOp::kNONE, MOp::kNONE, Dims{2, {2, 3}}, Dims{2, {1, 1}}, 5, 7, 6);
    check(DataType::kHALF, MOp::kTRANSPOSE, MOp::kTRANSPOSE, Dims{2, {1, 1}}, Dims{2, {4, 2}}, 5, 7, 6);
    // Broadcasting alternating across axes: host loops of batched calls.
    check(DataType::kFLOAT, MOp::kNONE, MOp::kNONE, Dims{2, {3, 1}}, Dims{2, {1, 2}}, 4, 5, 3);
    check(DataType::kBF16, MOp::kTRANSPOSE, MOp::kNONE, Dims{3, {2, 1, 3}}, Dims{3, {1, 4, 3}}, 3, 9, 2);
    check(DataType::kFP8, MOp::kNONE, MOp::kTRANSPOSE, Dims{3, {1, 2, 1}}, Dims{3, {2, 1, 3}}, 6, 5, 4);
    // Equal batches of rank 3 (merged into one strided batch).
    check(DataType::kHALF, MOp::kNONE, MOp::kNONE, Dims{3, {2, 3, 2}}, Dims{3, {2, 3, 2}}, 8, 16, 8);
}

TEST_F(CudaMatrixMultiply, VectorsAndDegenerateShapes)
{
    // Vector x vector: dot products, output [batch...]; rank-1 vectors give a scalar [].
    check(DataType::kFLOAT, MOp::kVECTOR, MOp::kVECTOR, Dims{1, {3}}, Dims{1, {1}}, 1, 40, 1);
    check(DataType::kFLOAT, MOp::kVECTOR, MOp::kVECTOR, Dims{0, {}}, Dims{0, {}}, 1, 33, 1);
    check(DataType::kHALF, MOp::kNONE, MOp::kVECTOR, Dims{1, {2}}, Dims{1, {2}}, 70, 50, 1);
    check(DataType::kBF16, MOp::kVECTOR, MOp::kTRANSPOSE, Dims{1, {1}}, Dims{1, {3}}, 1, 50, 70);
    // K == 0: zeros. Zero batch extents (also 0 against 1): an empty output.
    check(DataType::kHALF, MOp::kNONE, MOp::kTRANSPOSE, Dims{1, {2}}, Dims{1, {2}}, 2, 0, 3);
    check(DataType::kFP8, MOp::kNONE, MOp::kNONE, Dims{0, {}}, Dims{0, {}}, 3, 0, 3);
    check(DataType::kFLOAT, MOp::kNONE, MOp::kNONE, Dims{2, {0, 2}}, Dims{2, {1, 2}}, 2, 3, 2);
    // M or N of 1 as matrices.
    check(DataType::kFLOAT, MOp::kNONE, MOp::kNONE, Dims{0, {}}, Dims{0, {}}, 1, 20, 1);
}

TEST_F(CudaMatrixMultiply, FloatIsNotComputedInTf32)
{
    // 1 + 2^-12 is a float but rounds to 1 in TF32 (10 fraction bits): a TF32 product of K such values misses
    // K * 2^-11, 3e-2 for K = 64, where the float tolerance allows 1e-5 * (1 + 64). Every tactic must be exact float.
    MatrixMultiplyParams params;
    HostBuffer a(DataType::kFLOAT, Dims{2, {4, 64}});
    HostBuffer b(DataType::kFLOAT, Dims{2, {64, 8}});
    for (HostBuffer* t : {&a, &b})
    {
        for (int64_t i = 0; i < host::elementCount(t->tensor()); ++i)
        {
            host::storeFloat(t->tensor(), i, 1.0 + std::ldexp(1.0, -12));
        }
    }
    HostBuffer expected(DataType::kFLOAT, Dims{2, {4, 8}});
    ASSERT_TRUE(host::runMatrixMultiply(params, a.tensor(), b.tensor(), expected.tensor()).ok());
    DeviceBuffer const da = DeviceBuffer::upload(a.tensor());
    DeviceBuffer const db = DeviceBuffer::upload(b.tensor());
    DeviceBuffer const dout(expected.tensor());
    int32_t const tactics
        = nbMatrixMultiplyTactics(params, da.tensor(), db.tensor(), MatmulEpilogue{}, dout.tensor(), *mLibraries);
    for (int32_t tactic = 0; tactic < tactics; ++tactic)
    {
        Status const done
            = runMatrixMultiply(params, da.tensor(), db.tensor(), MatmulEpilogue{}, dout.tensor(), launch(tactic));
        ASSERT_TRUE(done.ok()) << done.error().message;
        expectNear(dout.download(mStream), expected, 1.0, "tactic " + std::to_string(tactic));
    }
}

TEST_F(CudaMatrixMultiply, RefusesWhatTheHostRefuses)
{
    MatrixMultiplyParams params;
    HostBuffer a(DataType::kFLOAT, Dims{3, {2, 3, 4}});
    HostBuffer b(DataType::kFLOAT, Dims{3, {2, 5, 5}});
    HostBuffer out(DataType::kFLOAT, Dims{3, {2, 3, 5}});
    DeviceBuffer const da = DeviceBuffer::upload(a.tensor());
    DeviceBuffer const db = DeviceBuffer::upload(b.tensor());
    DeviceBuffer const dout(out.tensor());
    Status const mismatched
        = runMatrixMultiply(params, da.tensor(), db.tensor(), MatmulEpilogue{}, dout.tensor(), launch());
    ASSERT_FALSE(mismatched.ok());
    EXPECT_NE(mismatched.error().message.find("matrix multiply: inner extents differ"), std::string::npos)
        << mismatched.error().message;
    EXPECT_EQ(
        nbMatrixMultiplyTactics(params, da.tensor(), db.tensor(), MatmulEpilogue{}, dout.tensor(), *mLibraries), 1);

    HostBuffer b2(DataType::kFLOAT, Dims{3, {2, 4, 5}});
    DeviceBuffer const db2 = DeviceBuffer::upload(b2.tensor());
    HostBuffer wrong(DataType::kFLOAT, Dims{3, {2, 3, 4}});
    DeviceBuffer const dwrong(wrong.tensor());
    Status const shape
        = runMatrixMultiply(params, da.tensor(), db2.tensor(), MatmulEpilogue{}, dwrong.tensor(), launch());
    ASSERT_FALSE(shape.ok());
    EXPECT_NE(
        shape.error().message.find("the output is kFLOAT [2, 3, 4] but must be kFLOAT [2, 3, 5]"), std::string::npos)
        << shape.error().message;

    int32_t const tactics
        = nbMatrixMultiplyTactics(params, da.tensor(), db2.tensor(), MatmulEpilogue{}, dout.tensor(), *mLibraries);
    Status const tactic
        = runMatrixMultiply(params, da.tensor(), db2.tensor(), MatmulEpilogue{}, dout.tensor(), launch(tactics));
    ASSERT_FALSE(tactic.ok());
    EXPECT_NE(tactic.error().message.find("tactic " + std::to_string(tactics) + " is out of range"), std::string::npos)
        << tactic.error().message;

    HostBuffer ints(DataType::kINT32, Dims{2, {2, 2}});
    DeviceBuffer const dints = DeviceBuffer::upload(ints.tensor());
    Status const type
        = runMatrixMultiply(params, dints.tensor(), dints.tensor(), MatmulEpilogue{}, dints.tensor(), launch());
    ASSERT_FALSE(type.ok());
    EXPECT_NE(type.error().message.find("does not accept kINT32"), std::string::npos) << type.error().message;

    HostTensor missing = da.tensor();
    missing.data = nullptr;
    Status const data = runMatrixMultiply(params, missing, db2.tensor(), MatmulEpilogue{}, dout.tensor(), launch());
    ASSERT_FALSE(data.ok());
    EXPECT_NE(data.error().message.find("matrix multiply: input 0 of shape [2, 3, 4] has no data"), std::string::npos)
        << data.error().message;
}

//! The bias shapes of the fused tests, for an output [batch..., M, N].
enum class BiasShape
{
    kNONE,
    kCOLUMN,      //!< [1..., 1, N]: one value per column (cuBLASLt's bias epilogue).
    kCOLUMN_FP32, //!< The same in kFLOAT whatever the output's type.
    kFULL,        //!< The output's shape.
    kONE,         //!< [1..., 1, 1]: one value for every element.
    kROW,         //!< [1..., M, 1]: one value per row (an extra pass).
};

constexpr char const* kBiasNames[]
    = {"no bias", "column bias", "kFLOAT column bias", "full bias", "[1, ..., 1] bias", "row bias"};

class CudaFusedMatrixMultiply : public CudaKernelTest
{
protected:
    //! activation(a * b + bias) on the device, with every tactic, against the host's matrix multiply, element-wise kSUM
    //! and activation, each rounded to the output's type.
    //! productScale and residual: the fusions of a scalar multiplication and of a residual sum (cuBLASLt's alpha
    //! and C), checked against the host's product, times the scale, plus bias and residual, then the activation.
    void check(DataType type, MOp op0, MOp op1, Dims const& batch, int64_t m, int64_t k, int64_t n, BiasShape shape,
        host::ActivationType const* activation, float productScale = 1.F, bool residual = false)
    {
        SCOPED_TRACE(::testing::Message()
            << dataTypeName(type) << " " << host::findMatrixOp(op0)->name << " x " << host::findMatrixOp(op1)->name
            << " batch " << host::shapeString(batch) << " m " << m << " k " << k << " n " << n << ", "
            << kBiasNames[static_cast<int>(shape)] << ", "
            << (activation == nullptr ? "no activation" : host::findActivation(*activation)->name));
        float const scale = type == DataType::kFP8 ? 0.25F : 1.0F;
        float const outScale = type == DataType::kFP8 ? 4.0F : 1.0F;
        int64_t const rowsA = op0 == MOp::kVECTOR ? 1 : m;
        int64_t const colsB = op1 == MOp::kVECTOR ? 1 : n;
        HostBuffer a(type, operandShape(batch, op0, rowsA, k), scale);
        Dims batchB = batch;
        std::fill_n(batchB.d, mSharedB ? batchB.nbDims : 0, 1);
        HostBuffer b(type, operandShape(batchB, op1, k, colsB), scale);
        randomize(a, mRng, -2.0, 2.0);
        randomize(b, mRng, -2.0, 2.0);
        MatrixMultiplyParams params;
        params.ops[0] = op0;
        params.ops[1] = op1;
        Expected<host::TensorDesc> const desc
            = host::inferMatrixMultiply(params, {type, a.tensor().dims}, {type, b.tensor().dims});
        ASSERT_TRUE(desc.ok()) << desc.error().message;
        Dims const outDims = desc.value().dims;
        HostBuffer expected(type, outDims, outScale);
        ASSERT_TRUE(host::runMatrixMultiply(params, a.tensor(), b.tensor(), expected.tensor()).ok());
        if (productScale != 1.F)
        {
            Dims ones{outDims.nbDims, {}};
            std::fill_n(ones.d, ones.nbDims, 1);
            HostBuffer factor(type, ones, outScale);
            host::storeFloat(factor.tensor(), 0, productScale);
            ASSERT_TRUE(host::runElementWise(
                {nvinfer1::ElementWiseOperation::kPROD}, expected.tensor(), factor.tensor(), expected.tensor())
                            .ok());
        }

        // The bias: every axis 1 but those the shape keeps.
        Dims biasDims = outDims;
        int32_t const rank = outDims.nbDims;
        for (int32_t i = 0; i < rank; ++i)
        {
            bool const last = i == rank - 1;
            bool const beforeLast = i == rank - 2;
            bool const keep = shape == BiasShape::kFULL
                || ((shape == BiasShape::kCOLUMN || shape == BiasShape::kCOLUMN_FP32) && last)
                || (shape == BiasShape::kROW && beforeLast);
            biasDims.d[i] = keep ? outDims.d[i] : 1;
        }
        DataType const biasType = shape == BiasShape::kCOLUMN_FP32 ? DataType::kFLOAT : type;
        HostBuffer bias(biasType, biasDims, outScale);
        randomize(bias, mRng, -2.0, 2.0);
        if (shape != BiasShape::kNONE)
        {
            // The host adds in the output's type: a kFLOAT bias converted (rounded) first.
            HostBuffer converted(type, biasDims, outScale);
            for (int64_t i = 0; i < host::elementCount(biasDims); ++i)
            {
                host::storeFloat(converted.tensor(), i, host::loadFloat(bias.tensor(), i));
            }
            ASSERT_TRUE(host::runElementWise(
                {nvinfer1::ElementWiseOperation::kSUM}, expected.tensor(), converted.tensor(), expected.tensor())
                            .ok());
        }
        HostBuffer residualValues(type, outDims, outScale);
        randomize(residualValues, mRng, -2.0, 2.0);
        if (residual)
        {
            ASSERT_TRUE(host::runElementWise(
                {nvinfer1::ElementWiseOperation::kSUM}, expected.tensor(), residualValues.tensor(), expected.tensor())
                            .ok());
        }
        ActivationParams act;
        if (activation != nullptr)
        {
            act.type = *activation;
            ASSERT_TRUE(
                host::runActivation({act.type, act.alpha, act.beta}, expected.tensor(), expected.tensor()).ok());
        }

        DeviceBuffer const da = DeviceBuffer::upload(a.tensor());
        DeviceBuffer const db = DeviceBuffer::upload(b.tensor());
        DeviceBuffer const dbias = DeviceBuffer::upload(bias.tensor());
        DeviceBuffer const dresidual = DeviceBuffer::upload(residualValues.tensor());
        DeviceTensor const* const residualArg = residual ? &dresidual.tensor() : nullptr;
        DeviceBuffer const dout(expected.tensor());
        DeviceTensor const* const biasArg = shape == BiasShape::kNONE ? nullptr : &dbias.tensor();
        ActivationParams const* const actArg = activation == nullptr ? nullptr : &act;
        int32_t const tactics = nbMatrixMultiplyTactics(params, da.tensor(), db.tensor(),
            MatmulEpilogue{biasArg, residualArg, productScale, actArg}, dout.tensor(), *mLibraries);
        EXPECT_GE(tactics, 1);
        int64_t const bytes = storageBytes(type, host::elementCount(outDims));
        // The fused epilogue skips the host's roundings after the product and after each sum: up to a unit more each.
        double const extra = (residual ? 3.0 : 2.0) * reductionExtra(type, k);
        for (int32_t tactic = 0; tactic < tactics; ++tactic)
        {
            ASSERT_EQ(cudaMemsetAsync(dout.tensor().data, 0xFF, static_cast<size_t>(bytes), mStream), cudaSuccess);
            Status const done = runMatrixMultiply(params, da.tensor(), db.tensor(),
                MatmulEpilogue{biasArg, residualArg, productScale, actArg}, dout.tensor(), launch(tactic));
            ASSERT_TRUE(done.ok()) << "tactic " << tactic << ": " << done.error().message;
            expectNear(dout.download(mStream), expected, extra, "tactic " + std::to_string(tactic));
        }
    }

    bool mSharedB{}; //!< b is [1, ..., 1, K, N]: one weight shared by every product of the batch.
};

constexpr host::ActivationType kFusedActivations[] = {host::ActivationType::kRELU, host::ActivationType::kGELU_TANH,
    host::ActivationType::kGELU_ERF, host::ActivationType::kSIGMOID};

TEST_F(CudaFusedMatrixMultiply, BiasAndActivationEveryTypeEveryTactic)
{
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        for (int32_t b = 0; b <= static_cast<int32_t>(BiasShape::kROW); ++b)
        {
            for (int32_t f = -1; f < 4; ++f)
            {
                host::ActivationType const* const activation
                    = f < 0 ? nullptr : &kFusedActivations[static_cast<std::size_t>(f)];
                auto const shape = static_cast<BiasShape>(b);
                // Aligned extents (the fused kernels' usual case), a batch, and odd extents with transposes.
                check(type, MOp::kNONE, MOp::kNONE, Dims{0, {}}, 64, 96, 128, shape, activation);
                check(type, MOp::kNONE, MOp::kNONE, Dims{1, {2}}, 37, 70, 48, shape, activation);
                check(type, MOp::kTRANSPOSE, MOp::kTRANSPOSE, Dims{1, {3}}, 9, 13, 7, shape, activation);
                if (HasFatalFailure())
                {
                    return;
                }
            }
        }
    }
}

// x [B, S, K] times a weight [1, K, N], as a transformer's projections: the batch folds into the rows of one product
// where a is not transposed. Bias, activation, scale and residual still line up with the folded rows.
TEST_F(CudaFusedMatrixMultiply, SharedWeightEveryTypeEveryTactic)
{
    mSharedB = true;
    auto const gelu = host::ActivationType::kGELU_TANH;
    auto const relu = host::ActivationType::kRELU;
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        check(type, MOp::kNONE, MOp::kNONE, Dims{2, {2, 3}}, 37, 48, 70, BiasShape::kCOLUMN, &gelu, 1.F, true);
        check(type, MOp::kNONE, MOp::kTRANSPOSE, Dims{1, {4}}, 16, 32, 24, BiasShape::kFULL, &relu, 0.5F);
        check(type, MOp::kNONE, MOp::kNONE, Dims{1, {3}}, 5, 9, 6, BiasShape::kROW, nullptr);
        check(type, MOp::kTRANSPOSE, MOp::kNONE, Dims{1, {3}}, 9, 13, 7, BiasShape::kCOLUMN, &relu);
    }
}

TEST_F(CudaFusedMatrixMultiply, VectorsFp8AndEmptySums)
{
    host::ActivationType const relu = host::ActivationType::kRELU;
    host::ActivationType const gelu = host::ActivationType::kGELU_TANH;
    // Matrix x vector: the output's last axis is M, the bias runs in an extra pass.
    check(DataType::kHALF, MOp::kNONE, MOp::kVECTOR, Dims{1, {2}}, 40, 30, 1, BiasShape::kCOLUMN, &relu);
    check(DataType::kFLOAT, MOp::kVECTOR, MOp::kNONE, Dims{1, {2}}, 1, 30, 40, BiasShape::kCOLUMN, &gelu);
    // FP8 (staged): the bias and the activation after the quantized result, as the host rounds.
    check(DataType::kFP8, MOp::kNONE, MOp::kNONE, Dims{1, {2}}, 16, 32, 24, BiasShape::kCOLUMN, &relu);
    check(DataType::kFP8, MOp::kNONE, MOp::kTRANSPOSE, Dims{0, {}}, 5, 9, 6, BiasShape::kFULL, &gelu);
    // K == 0: activation(bias).
    check(DataType::kBF16, MOp::kNONE, MOp::kNONE, Dims{0, {}}, 4, 0, 6, BiasShape::kCOLUMN_FP32, &gelu);
    check(DataType::kHALF, MOp::kNONE, MOp::kNONE, Dims{1, {2}}, 4, 0, 6, BiasShape::kFULL, &relu);
}

TEST_F(CudaFusedMatrixMultiply, ScaleAndResidualEveryTypeEveryTactic)
{
    host::ActivationType const relu = host::ActivationType::kRELU;
    host::ActivationType const gelu = host::ActivationType::kGELU_TANH;
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        // Attention's scores (a scale alone), a projection with a residual, and everything at once.
        check(type, MOp::kNONE, MOp::kTRANSPOSE, Dims{2, {2, 3}}, 32, 16, 32, BiasShape::kNONE, nullptr, 0.125F);
        check(type, MOp::kNONE, MOp::kNONE, Dims{1, {2}}, 64, 96, 128, BiasShape::kNONE, nullptr, 1.F, true);
        check(type, MOp::kNONE, MOp::kNONE, Dims{1, {2}}, 37, 70, 48, BiasShape::kCOLUMN, &gelu, 0.5F, true);
        check(type, MOp::kTRANSPOSE, MOp::kNONE, Dims{0, {}}, 9, 13, 7, BiasShape::kFULL, &relu, -2.F, true);
        if (HasFatalFailure())
        {
            return;
        }
    }
    // Staged FP8 adds the residual after quantizing; an empty sum is the bias and residual alone.
    check(DataType::kFP8, MOp::kNONE, MOp::kNONE, Dims{1, {2}}, 16, 32, 24, BiasShape::kCOLUMN, &relu, 2.F, true);
    check(DataType::kHALF, MOp::kNONE, MOp::kNONE, Dims{1, {2}}, 4, 0, 6, BiasShape::kFULL, &relu, 3.F, true);
}

TEST_F(CudaFusedMatrixMultiply, RefusesBiasesThatDoNotBroadcast)
{
    MatrixMultiplyParams params;
    HostBuffer a(DataType::kHALF, Dims{2, {3, 4}});
    HostBuffer b(DataType::kHALF, Dims{2, {4, 5}});
    HostBuffer out(DataType::kHALF, Dims{2, {3, 5}});
    DeviceBuffer const da = DeviceBuffer::upload(a.tensor());
    DeviceBuffer const db = DeviceBuffer::upload(b.tensor());
    DeviceBuffer const dout(out.tensor());
    HostBuffer wrongShape(DataType::kHALF, Dims{2, {1, 4}});
    DeviceBuffer const dwrongShape = DeviceBuffer::upload(wrongShape.tensor());
    Status const shape = runMatrixMultiply(
        params, da.tensor(), db.tensor(), MatmulEpilogue{&dwrongShape.tensor()}, dout.tensor(), launch());
    ASSERT_FALSE(shape.ok());
    EXPECT_NE(shape.error().message.find("matrix multiply: the bias is kHALF [1, 4] but must broadcast to the output "
                                         "kHALF [3, 5]"),
        std::string::npos)
        << shape.error().message;
    HostBuffer rank(DataType::kHALF, Dims{1, {5}});
    DeviceBuffer const drank = DeviceBuffer::upload(rank.tensor());
    Status const ranked
        = runMatrixMultiply(params, da.tensor(), db.tensor(), MatmulEpilogue{&drank.tensor()}, dout.tensor(), launch());
    ASSERT_FALSE(ranked.ok());
    EXPECT_NE(ranked.error().message.find("(another rank)"), std::string::npos) << ranked.error().message;
    HostBuffer fullFloat(DataType::kFLOAT, Dims{2, {3, 5}});
    DeviceBuffer const dfullFloat = DeviceBuffer::upload(fullFloat.tensor());
    Status const typed = runMatrixMultiply(
        params, da.tensor(), db.tensor(), MatmulEpilogue{&dfullFloat.tensor()}, dout.tensor(), launch());
    ASSERT_FALSE(typed.ok());
    EXPECT_NE(typed.error().message.find("of the output's type, or kFLOAT along the last axis only"), std::string::npos)
        << typed.error().message;
}

TEST_F(CudaFusedMatrixMultiply, RepeatedRunsReuseOnePlan)
{
    MatrixMultiplyParams params;
    HostBuffer a(DataType::kHALF, Dims{3, {2, 64, 32}});
    HostBuffer b(DataType::kHALF, Dims{3, {2, 32, 48}});
    HostBuffer out(DataType::kHALF, Dims{3, {2, 64, 48}});
    HostBuffer bias(DataType::kHALF, Dims{3, {1, 1, 48}});
    randomize(a, mRng, -2.0, 2.0);
    randomize(b, mRng, -2.0, 2.0);
    randomize(bias, mRng, -2.0, 2.0);
    DeviceBuffer const da = DeviceBuffer::upload(a.tensor());
    DeviceBuffer const db = DeviceBuffer::upload(b.tensor());
    DeviceBuffer const dbias = DeviceBuffer::upload(bias.tensor());
    DeviceBuffer const dout(out.tensor());
    ActivationParams const gelu{host::ActivationType::kGELU_TANH};
    MatmulCache const& cache = mLibraries->matmulCache();
    ASSERT_TRUE(runMatrixMultiply(
        params, da.tensor(), db.tensor(), MatmulEpilogue{&dbias.tensor(), nullptr, 1.F, &gelu}, dout.tensor(), launch())
                    .ok());
    std::size_t const entries = cache.size();
    int64_t const misses = cache.misses();
    EXPECT_EQ(entries, 1U);
    for (int32_t run = 0; run < 3; ++run)
    {
        ASSERT_TRUE(runMatrixMultiply(params, da.tensor(), db.tensor(),
            MatmulEpilogue{&dbias.tensor(), nullptr, 1.F, &gelu}, dout.tensor(), launch())
                        .ok());
    }
    EXPECT_EQ(cache.size(), entries);
    EXPECT_EQ(cache.misses(), misses);
    // Another bias of the same alignment: the same plan, pointing at the new bias.
    DeviceBuffer const dbias2 = DeviceBuffer::upload(bias.tensor());
    ASSERT_TRUE(runMatrixMultiply(params, da.tensor(), db.tensor(),
        MatmulEpilogue{&dbias2.tensor(), nullptr, 1.F, &gelu}, dout.tensor(), launch())
                    .ok());
    EXPECT_EQ(cache.size(), entries);
    // Another epilogue is another problem.
    ASSERT_TRUE(runMatrixMultiply(params, da.tensor(), db.tensor(), MatmulEpilogue{}, dout.tensor(), launch()).ok());
    EXPECT_EQ(cache.size(), entries + 1);

    // Bounded: more problems than the capacity keep kCapacity plans. The first pass over kCapacity new problems
    // describes each (misses); the second finds each (hits): the host time per enqueue of both is printed.
    auto const capacity = static_cast<int64_t>(MatmulCache::kCapacity);
    HostBuffer big(DataType::kHALF, Dims{3, {2, capacity + 8, 32}});
    HostBuffer bigOut(DataType::kHALF, Dims{3, {2, capacity + 8, 48}});
    DeviceBuffer const dbig = DeviceBuffer::upload(big.tensor());
    DeviceBuffer const dbigOut(bigOut.tensor());
    auto const runRows = [&](int64_t m) {
        HostTensor small = dbig.tensor();
        small.dims = Dims{3, {2, m, 32}};
        HostTensor smallOut = dbigOut.tensor();
        smallOut.dims = Dims{3, {2, m, 48}};
        return runMatrixMultiply(params, small, db.tensor(), MatmulEpilogue{}, smallOut, launch()).ok();
    };
    ASSERT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
    double microseconds[2]{};
    for (double& spent : microseconds)
    {
        auto const start = std::chrono::steady_clock::now();
        for (int64_t m = 1; m <= capacity; ++m)
        {
            ASSERT_TRUE(runRows(m));
        }
        spent = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count()
            / static_cast<double>(capacity);
        ASSERT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
    }
    EXPECT_EQ(cache.size(), MatmulCache::kCapacity);
    std::printf("host time per runMatrixMultiply enqueue: %.1f us described (cache miss), %.1f us cached (hit)\n",
        microseconds[0], microseconds[1]);
    for (int64_t m = capacity + 1; m <= capacity + 8; ++m)
    {
        ASSERT_TRUE(runRows(m));
    }
    EXPECT_EQ(cache.size(), MatmulCache::kCapacity);
}

TEST_F(CudaMatrixMultiply, LibrariesGiveHandlesAndGrowingWorkspace)
{
    Expected<void*> const lt = mLibraries->cublasLt();
    ASSERT_TRUE(lt.ok()) << lt.error().message;
    EXPECT_NE(lt.value(), nullptr);
    Expected<void*> const again = mLibraries->cublasLt();
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again.value(), lt.value());
    Expected<void*> const dnn = mLibraries->cudnn(mStream);
    ASSERT_TRUE(dnn.ok()) << dnn.error().message;
    EXPECT_NE(dnn.value(), nullptr);

    Expected<void*> const small = mLibraries->workspace(1000, mStream);
    ASSERT_TRUE(small.ok()) << small.error().message;
    ASSERT_NE(small.value(), nullptr);
    ASSERT_EQ(cudaMemsetAsync(small.value(), 1, 1000, mStream), cudaSuccess);
    Expected<void*> const same = mLibraries->workspace(500, mStream);
    ASSERT_TRUE(same.ok());
    EXPECT_EQ(same.value(), small.value());
    int64_t const large = int64_t{3} << 20 | 5;
    Expected<void*> const grown = mLibraries->workspace(large, mStream);
    ASSERT_TRUE(grown.ok()) << grown.error().message;
    ASSERT_EQ(cudaMemsetAsync(grown.value(), 2, static_cast<size_t>(large), mStream), cudaSuccess);
    // Another stream: ordered after the first one's work on the block.
    cudaStream_t other{};
    ASSERT_EQ(cudaStreamCreate(&other), cudaSuccess);
    Expected<void*> const moved = mLibraries->workspace(large, other);
    ASSERT_TRUE(moved.ok()) << moved.error().message;
    EXPECT_EQ(moved.value(), grown.value());
    ASSERT_EQ(cudaMemsetAsync(moved.value(), 3, static_cast<size_t>(large), other), cudaSuccess);
    // Back on mStream, after the other stream's memset; then the block holds 3s.
    Expected<void*> const back = mLibraries->workspace(16, mStream);
    ASSERT_TRUE(back.ok()) << back.error().message;
    std::vector<uint8_t> bytes(static_cast<std::size_t>(large));
    ASSERT_EQ(cudaMemcpyAsync(bytes.data(), back.value(), bytes.size(), cudaMemcpyDeviceToHost, mStream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
    EXPECT_EQ(bytes.front(), 3);
    EXPECT_EQ(bytes.back(), 3);
    EXPECT_EQ(cudaStreamSynchronize(other), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(other), cudaSuccess);

    Expected<void*> const negative = mLibraries->workspace(-1, mStream);
    ASSERT_FALSE(negative.ok());
    EXPECT_NE(negative.error().message.find("negative"), std::string::npos) << negative.error().message;
}

} // namespace
} // namespace kiln::cuda::test
