// SPDX-License-Identifier: Apache-2.0
// The host fill: kLINSPACE against alpha + sum beta[i] * c[i] computed here; the random operations against loose
// statistics of alpha and beta as TensorRT defines them (uniform [alpha, beta), normal mean alpha, deviation beta).
#include "backends/host/fill.h"

#include "movement_test_util.h"

namespace kiln::host::test
{
namespace
{

using nvinfer1::FillOperation;

TEST(HostFill, LinspaceWithDeltaPerDimension)
{
    std::mt19937 rng(601);
    for (DataType const type : {DataType::kFLOAT, DataType::kINT32, DataType::kINT64})
    {
        for (int32_t trial = 0; trial < 30; ++trial)
        {
            Dims const dims = shapeOfRank(rng, static_cast<int32_t>(rng() % 4), 4, true);
            FillParams params;
            params.op = FillOperation::kLINSPACE;
            params.toType = type;
            bool const integer = type != DataType::kFLOAT;
            HostBuffer alpha(integer ? DataType::kINT64 : DataType::kFLOAT, Dims{0, {}});
            HostBuffer beta(integer ? DataType::kINT64 : DataType::kFLOAT, Dims{1, {std::max(dims.nbDims, 1)}});
            std::vector<double> deltas;
            double const start = integer ? static_cast<double>(rng() % 21) - 10 : (rng() % 100) * 0.25 - 12.0;
            encode(alpha.tensor().type, alpha.bytes().data(), 0, start, 1.0F);
            for (int32_t i = 0; i < std::max(dims.nbDims, 1); ++i)
            {
                deltas.push_back(integer ? static_cast<double>(rng() % 11) - 5 : (rng() % 40) * 0.5 - 10.0);
                encode(beta.tensor().type, beta.bytes().data(), i, deltas.back(), 1.0F);
            }
            HostBuffer out(type, dims);
            Status const done = runFill(params, out.tensor(), &alpha.tensor(), &beta.tensor());
            ASSERT_TRUE(done.ok()) << done.error().message;
            for (int64_t o = 0; o < elementCount(dims); ++o)
            {
                std::vector<int64_t> const c = coords(dims, o);
                double expected = start;
                for (std::size_t i = 0; i < c.size(); ++i)
                {
                    expected += deltas[i] * static_cast<double>(c[i]);
                }
                ASSERT_EQ(decode(type, bytesOf(out), o, 1.0F), expected) << dataTypeName(type) << " " << o;
            }
        }
    }
}

TEST(HostFill, StaticLinspaceDoubleAndInt64)
{
    FillParams params;
    params.op = FillOperation::kLINSPACE;
    params.alpha = 1.0;
    params.beta = 0.5;
    HostBuffer out(DataType::kFLOAT, Dims{1, {4}});
    ASSERT_TRUE(runFill(params, out.tensor()).ok());
    EXPECT_EQ(decode(DataType::kFLOAT, bytesOf(out), 3, 1.0F), 2.5);
    params.toType = DataType::kINT64;
    params.alphaBetaInt64 = true;
    params.alphaInt64 = (int64_t{1} << 60) + 1; // exact in int64_t, not in double
    params.betaInt64 = 3;
    HostBuffer wide(DataType::kINT64, Dims{1, {3}});
    ASSERT_TRUE(runFill(params, wide.tensor()).ok());
    EXPECT_EQ(decodeInteger(DataType::kINT64, bytesOf(wide), 2), (int64_t{1} << 60) + 7);
}

TEST(HostFill, RandomStatisticsFollowAlphaAndBeta)
{
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        int64_t const n = 20000;
        HostBuffer out(type, Dims{1, {n}});
        FillParams params;
        params.toType = type;
        params.op = FillOperation::kRANDOM_UNIFORM;
        params.alpha = -3.0; // minimum
        params.beta = 5.0;   // maximum
        ASSERT_TRUE(runFill(params, out.tensor()).ok());
        double sum = 0.0;
        double low = kInf;
        double high = -kInf;
        for (int64_t i = 0; i < n; ++i)
        {
            double const v = decode(type, bytesOf(out), i, 1.0F);
            sum += v;
            low = std::min(low, v);
            high = std::max(high, v);
        }
        EXPECT_GE(low, -3.0);
        EXPECT_LE(high, 5.0);
        EXPECT_LT(low, -2.9);
        EXPECT_GT(high, 4.9);
        EXPECT_NEAR(sum / n, 1.0, 0.1) << dataTypeName(type);
        params.op = FillOperation::kRANDOM_NORMAL;
        params.alpha = 2.0; // mean
        params.beta = 0.5;  // standard deviation
        ASSERT_TRUE(runFill(params, out.tensor()).ok());
        double s1 = 0.0;
        double s2 = 0.0;
        for (int64_t i = 0; i < n; ++i)
        {
            double const v = decode(type, bytesOf(out), i, 1.0F);
            s1 += v;
            s2 += v * v;
        }
        double const mean = s1 / n;
        EXPECT_NEAR(mean, 2.0, 0.03) << dataTypeName(type);
        EXPECT_NEAR(std::sqrt(s2 / n - mean * mean), 0.5, 0.03) << dataTypeName(type);
    }
}

TEST(HostFill, RandomIsDeterministicPerSeed)
{
    FillParams params;
    params.op = FillOperation::kRANDOM_UNIFORM;
    HostBuffer a(DataType::kFLOAT, Dims{1, {16}});
    HostBuffer b(DataType::kFLOAT, Dims{1, {16}});
    ASSERT_TRUE(runFill(params, a.tensor()).ok());
    ASSERT_TRUE(runFill(params, b.tensor(), nullptr, nullptr, kFillSeed).ok());
    EXPECT_TRUE(std::equal(a.bytes().begin(), a.bytes().end(), b.bytes().begin()));
    ASSERT_TRUE(runFill(params, b.tensor(), nullptr, nullptr, kFillSeed + 1).ok());
    EXPECT_FALSE(std::equal(a.bytes().begin(), a.bytes().end(), b.bytes().begin()));
}

TEST(HostFill, RefusalsNameTheOperation)
{
    FillParams params;
    params.op = FillOperation::kLINSPACE;
    expectError(inferFill(params, Dims{2, {2, 2}}), {"kLINSPACE", "[2, 2]", "beta input"});
    params.toType = DataType::kHALF;
    expectError(inferFill(params, Dims{1, {2}}), {"kLINSPACE: does not produce kHALF"});
    params.op = FillOperation::kRANDOM_NORMAL;
    params.toType = DataType::kINT32;
    expectError(inferFill(params, Dims{1, {2}}), {"kRANDOM_NORMAL: does not produce kINT32"});
    params.op = FillOperation{5};
    expectError(inferFill(params, Dims{1, {2}}), {"unknown FillOperation 5"});
    params.op = FillOperation::kLINSPACE;
    params.toType = DataType::kFLOAT;
    HostBuffer alpha(DataType::kFLOAT, Dims{0, {}});
    HostBuffer beta(DataType::kFLOAT, Dims{1, {1}});
    expectError(inferFill(params, Dims{2, {2, 2}}, &alpha.tensor(), &beta.tensor()),
        {"beta input has shape [1]", "needs 2", "[2, 2]"});
    expectError(inferFill(params, Dims{1, {2}}, &alpha.tensor(), nullptr), {"both inputs or neither"});
    HostBuffer out(DataType::kINT32, Dims{1, {2}});
    expectError(runFill(params, out.tensor()), {"output is kINT32", "toType is kFLOAT"});
}

} // namespace
} // namespace kiln::host::test
