// SPDX-License-Identifier: Apache-2.0
// The host matrix multiply against explicit loops on transposed copies computed here, for every pair of
// MatrixOperations on random shapes with batch broadcasting, in FP32, FP16, BF16 and FP8; and every refusal.
#include "backends/host/matrix_multiply.h"

#include "host_test_util.h"

namespace kiln::host::test
{
namespace
{

using MOp = MatrixOperation;

static_assert(nvinfer1::EnumMax<MatrixOperation>() == 3, "a new operation needs its shapes below");

TEST(HostMatrixMultiply, TableCoversEveryOperationInOrder)
{
    ASSERT_EQ(matrixOps().size(), 3U);
    for (std::size_t i = 0; i < matrixOps().size(); ++i)
    {
        EXPECT_EQ(static_cast<std::size_t>(matrixOps()[i].op), i);
    }
    EXPECT_EQ(findMatrixOp(static_cast<MOp>(3)), nullptr);
}

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

//! The operand as a plain row-major [rows, cols] matrix for batch element b: transposed copies made element by element.
std::vector<double> plainMatrix(HostBuffer const& buffer, MOp op, int64_t b, int64_t rows, int64_t cols)
{
    std::vector<double> m(static_cast<std::size_t>(rows * cols));
    HostTensor const& t = buffer.tensor();
    for (int64_t r = 0; r < rows; ++r)
    {
        for (int64_t c = 0; c < cols; ++c)
        {
            int64_t const stored = op == MOp::kTRANSPOSE ? c * rows + r : r * cols + c;
            m[static_cast<std::size_t>(r * cols + c)]
                = decode(t.type, bytesOf(buffer), b * rows * cols + stored, t.scale);
        }
    }
    return m;
}

void runCase(std::mt19937& rng, DataType type, MOp op0, MOp op1, Dims const& batchA, Dims const& batchB, int64_t m,
    int64_t k, int64_t n)
{
    Dims batch = batchA; // equal extents, or the one that is not 1 (1 against 0 gives 0)
    for (int32_t i = 0; i < batch.nbDims; ++i)
    {
        batch.d[i] = batchA.d[i] == 1 ? batchB.d[i] : batchA.d[i];
    }
    int64_t const rowsA = op0 == MOp::kVECTOR ? 1 : m;
    int64_t const colsB = op1 == MOp::kVECTOR ? 1 : n;
    SCOPED_TRACE(::testing::Message() << dataTypeName(type) << " " << findMatrixOp(op0)->name << " x "
                                      << findMatrixOp(op1)->name << " batch " << shapeString(batch) << " m " << rowsA
                                      << " k " << k << " n " << colsB);
    float const scale = type == DataType::kFP8 ? 0.25F : 1.0F;
    HostBuffer a(type, operandShape(batchA, op0, rowsA, k), scale);
    HostBuffer b(type, operandShape(batchB, op1, k, colsB), scale);
    fillFloating(rng, a, -2.0, 2.0, false);
    fillFloating(rng, b, -2.0, 2.0, false);
    Dims outShape = batch;
    if (op0 != MOp::kVECTOR)
    {
        outShape.d[outShape.nbDims++] = rowsA;
    }
    if (op1 != MOp::kVECTOR)
    {
        outShape.d[outShape.nbDims++] = colsB;
    }
    MatrixMultiplyParams params;
    params.ops[0] = op0;
    params.ops[1] = op1;
    Expected<TensorDesc> const desc = inferMatrixMultiply(params, {type, a.tensor().dims}, {type, b.tensor().dims});
    ASSERT_TRUE(desc.ok()) << desc.error().message;
    ASSERT_TRUE(sameShape(desc.value().dims, outShape)) << shapeString(desc.value().dims);
    HostBuffer out(type, outShape, 4.0F);
    Status const done = runMatrixMultiply(params, a.tensor(), b.tensor(), out.tensor());
    ASSERT_TRUE(done.ok()) << done.error().message;
    int64_t const batches = elementCount(batch);
    for (int64_t bi = 0; bi < batches; ++bi)
    {
        std::vector<double> const x = plainMatrix(a, op0, broadcastSource(batch, batchA, bi), rowsA, k);
        std::vector<double> const y = plainMatrix(b, op1, broadcastSource(batch, batchB, bi), k, colsB);
        for (int64_t i = 0; i < rowsA; ++i)
        {
            for (int64_t j = 0; j < colsB; ++j)
            {
                double sum = 0.0;
                double magnitude = 0.0;
                for (int64_t q = 0; q < k; ++q)
                {
                    double const term
                        = x[static_cast<std::size_t>(i * k + q)] * y[static_cast<std::size_t>(q * colsB + j)];
                    sum += term;
                    magnitude += std::fabs(term);
                }
                int64_t const at = (bi * rowsA + i) * colsB + j;
                double const rounded = roundTo(type, sum, 4.0F);
                double const actual = decode(type, bytesOf(out), at, 4.0F);
                ASSERT_LE(std::fabs(actual - rounded), ulp(type, rounded, 4.0F) + 1e-12 * magnitude)
                    << "batch " << bi << " (" << i << ", " << j << ") expected " << sum;
            }
        }
    }
}

TEST(HostMatrixMultiply, RandomAgainstLoopsOnTransposedCopies)
{
    std::mt19937 rng(1234);
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kFP8})
    {
        for (int32_t trial = 0; trial < 45; ++trial)
        {
            auto const op0 = static_cast<MOp>(trial % 3);
            auto const op1 = static_cast<MOp>(trial / 3 % 3);
            Dims batch{static_cast<int32_t>(rng() % 3), {}};
            for (int32_t i = 0; i < batch.nbDims; ++i)
            {
                batch.d[i] = 1 + rng() % 3;
            }
            Dims const batchA = broadcastInput(rng, batch);
            Dims const batchB = broadcastInput(rng, batch);
            runCase(rng, type, op0, op1, batchA, batchB, 1 + rng() % 4, rng() % 5, 1 + rng() % 4);
        }
    }
}

TEST(HostMatrixMultiply, SpecialCases)
{
    std::mt19937 rng(5);
    // Vector x vector: a batch of dot products, output [batch...]; rank-1 vectors give a scalar [].
    runCase(rng, DataType::kFLOAT, MOp::kVECTOR, MOp::kVECTOR, Dims{1, {3}}, Dims{1, {1}}, 1, 4, 1);
    runCase(rng, DataType::kFLOAT, MOp::kVECTOR, MOp::kVECTOR, Dims{0, {}}, Dims{0, {}}, 1, 5, 1);
    // K == 0: every output is 0. A zero batch extent: an empty output. A zero batch extent against 1 broadcasts to 0.
    runCase(rng, DataType::kHALF, MOp::kNONE, MOp::kTRANSPOSE, Dims{1, {2}}, Dims{1, {2}}, 2, 0, 3);
    runCase(rng, DataType::kFLOAT, MOp::kNONE, MOp::kNONE, Dims{2, {0, 2}}, Dims{2, {1, 2}}, 2, 3, 2);
    // Broadcasting both ways in one shape.
    runCase(rng, DataType::kBF16, MOp::kTRANSPOSE, MOp::kNONE, Dims{2, {3, 1}}, Dims{2, {1, 2}}, 3, 4, 2);
}

TEST(HostMatrixMultiply, Refusals)
{
    MatrixMultiplyParams params;
    TensorDesc const a{DataType::kFLOAT, Dims{3, {2, 3, 4}}};
    TensorDesc const b{DataType::kFLOAT, Dims{3, {2, 4, 5}}};
    ASSERT_TRUE(inferMatrixMultiply(params, a, b).ok());
    expectError(inferMatrixMultiply(params, {DataType::kFLOAT, Dims{3, {3, 3, 4}}}, b),
        {"batch axis 0 of input 0 [3, 3, 4] and input 1 [2, 4, 5] do not broadcast (3 against 2)"});
    expectError(inferMatrixMultiply(params, a, {DataType::kFLOAT, Dims{2, {4, 5}}}),
        {"input 0 [2, 3, 4] (kNONE) has 1 batch axes but input 1 [4, 5] (kNONE) has 0"});
    expectError(inferMatrixMultiply(params, a, {DataType::kFLOAT, Dims{3, {2, 3, 5}}}),
        {"inner extents differ", "K = 4", "K = 3"});
    expectError(inferMatrixMultiply(params, {DataType::kFLOAT, Dims{1, {4}}}, {DataType::kFLOAT, Dims{1, {4}}}),
        {"input 0 [4] has rank 1 but kNONE needs rank >= 2"});
    MatrixMultiplyParams vector;
    vector.ops[1] = MOp::kVECTOR;
    expectError(inferMatrixMultiply(vector, a, {DataType::kFLOAT, Dims{0, {}}}),
        {"input 1 [] has rank 0 but kVECTOR needs rank >= 1"});
    expectError(inferMatrixMultiply(params, {DataType::kINT32, a.dims}, {DataType::kINT32, b.dims}),
        {"does not accept kINT32"});
    expectError(inferMatrixMultiply(params, a, {DataType::kHALF, b.dims}), {"different types, kFLOAT and kHALF"});
    MatrixMultiplyParams unknown;
    unknown.ops[0] = static_cast<MOp>(7);
    expectError(inferMatrixMultiply(unknown, a, b), {"unknown MatrixOperation 7 for input 0"});
    HostBuffer x(DataType::kFLOAT, a.dims);
    HostBuffer y(DataType::kFLOAT, b.dims);
    HostBuffer wrong(DataType::kFLOAT, Dims{3, {2, 3, 4}});
    expectError(runMatrixMultiply(params, x.tensor(), y.tensor(), wrong.tensor()),
        {"the output is kFLOAT [2, 3, 4] but must be kFLOAT [2, 3, 5]"});
}

} // namespace
} // namespace kiln::host::test
