// SPDX-License-Identifier: Apache-2.0
// The CUDA fill kernel: kLINSPACE against the host reference bit for bit (static double and int64 parameters, and alpha
// and beta as device tensors of several types, on random shapes of rank 0 to 4); kRANDOM_UNIFORM and kRANDOM_NORMAL
// against their distributions (range, mean, deviation, the share within one deviation, no correlation between
// neighbours), reproducible from run to run, with alpha and beta static or device tensors; and the refusals, with
// their messages (these need no GPU).
#include "backends/host/fill.h"

#include "pointwise_test_util.h"

#include <cmath>

namespace kiln::cuda::test
{
namespace
{

using nvinfer1::FillOperation;

class CudaFill : public CudaKernelTest
{
protected:
    //! Fills on the host and on the device, and expects the same bytes.
    void compareLinspace(FillParams const& params, Dims const& dims, HostBuffer const* alpha, HostBuffer const* beta,
        std::string const& what)
    {
        HostBuffer expected(params.toType, dims);
        host::Status const reference = host::runFill(params, expected.tensor(),
            alpha != nullptr ? &alpha->tensor() : nullptr, beta != nullptr ? &beta->tensor() : nullptr);
        ASSERT_TRUE(reference.ok()) << what << ": " << reference.error().message;
        std::optional<DeviceBuffer> dalpha;
        std::optional<DeviceBuffer> dbeta;
        if (alpha != nullptr)
        {
            dalpha.emplace(DeviceBuffer::upload(alpha->tensor()));
            dbeta.emplace(DeviceBuffer::upload(beta->tensor()));
        }
        DeviceBuffer const dout(expected.tensor());
        Status const done = runFill(
            params, dout.tensor(), dalpha ? &dalpha->tensor() : nullptr, dbeta ? &dbeta->tensor() : nullptr, launch());
        ASSERT_TRUE(done.ok()) << what << ": " << done.error().message;
        HostBuffer actual = dout.download(mStream);
        for (int64_t i = 0; i < host::elementCount(dims); ++i)
        {
            int64_t const bytes = storageBytes(params.toType, 1);
            bool const same = std::equal(actual.bytes().begin() + i * bytes, actual.bytes().begin() + (i + 1) * bytes,
                expected.bytes().begin() + i * bytes);
            ASSERT_TRUE(same) << what << " element " << i << ": device " << host::loadFloat(actual.tensor(), i)
                              << ", host " << host::loadFloat(expected.tensor(), i);
        }
    }

    //! Random values of type and shape [count] from the device, as doubles.
    std::vector<double> draw(
        FillParams const& params, int64_t count, HostBuffer const* alpha = nullptr, HostBuffer const* beta = nullptr)
    {
        HostBuffer like(params.toType, Dims{1, {count}});
        std::optional<DeviceBuffer> dalpha;
        std::optional<DeviceBuffer> dbeta;
        if (alpha != nullptr)
        {
            dalpha.emplace(DeviceBuffer::upload(alpha->tensor()));
            dbeta.emplace(DeviceBuffer::upload(beta->tensor()));
        }
        DeviceBuffer const dout(like.tensor());
        Status const done = runFill(
            params, dout.tensor(), dalpha ? &dalpha->tensor() : nullptr, dbeta ? &dbeta->tensor() : nullptr, launch());
        EXPECT_TRUE(done.ok()) << done.error().message;
        HostBuffer const out = dout.download(mStream);
        std::vector<double> values(static_cast<std::size_t>(count));
        for (int64_t i = 0; i < count; ++i)
        {
            values[static_cast<std::size_t>(i)] = host::loadFloat(out.tensor(), i);
        }
        return values;
    }
};

//! A one-element or [n] parameter tensor of type holding values (rounded to the type as the host stores them).
HostBuffer parameter(DataType type, std::vector<double> const& values, bool scalar)
{
    HostBuffer buffer(type, scalar ? Dims{0, {}} : Dims{1, {static_cast<int64_t>(values.size())}},
        host::contains(host::kScaledTypes, type) ? 0.25F : 1.0F);
    for (std::size_t i = 0; i < values.size(); ++i)
    {
        host::storeFloat(buffer.tensor(), static_cast<int64_t>(i), values[i]);
    }
    return buffer;
}

TEST_F(CudaFill, LinspaceWithTensorParametersMatchesTheHostExactly)
{
    std::vector<DataType> const parameterTypes{
        DataType::kFLOAT, DataType::kHALF, DataType::kINT8, DataType::kINT32, DataType::kINT64, DataType::kBOOL};
    std::uniform_real_distribution<double> value(-12.0, 12.0);
    for (DataType const type : {DataType::kFLOAT, DataType::kINT32, DataType::kINT64})
    {
        for (int32_t trial = 0; trial < 40; ++trial)
        {
            Dims const dims = randomShape(mRng, 4, 2000);
            FillParams params;
            params.op = FillOperation::kLINSPACE;
            params.toType = type;
            DataType const alphaType = parameterTypes[mRng() % parameterTypes.size()];
            DataType const betaType = parameterTypes[mRng() % parameterTypes.size()];
            std::vector<double> deltas;
            for (int32_t i = 0; i < std::max(dims.nbDims, 1); ++i)
            {
                deltas.push_back(value(mRng) / 3.0);
            }
            HostBuffer const alpha = parameter(alphaType, {value(mRng)}, trial % 2 == 0);
            HostBuffer const beta = parameter(betaType, deltas, false);
            compareLinspace(params, dims, &alpha, &beta,
                std::string("kLINSPACE ") + dataTypeName(type) + " " + host::shapeString(dims) + " from "
                    + dataTypeName(alphaType) + " and " + dataTypeName(betaType));
        }
    }
}

TEST_F(CudaFill, LinspaceWithStaticParametersMatchesTheHostExactly)
{
    for (DataType const type : {DataType::kFLOAT, DataType::kINT32, DataType::kINT64})
    {
        for (Dims const& dims : {Dims{0, {}}, Dims{1, {1}}, Dims{1, {7}}, Dims{1, {3000}}})
        {
            FillParams params;
            params.op = FillOperation::kLINSPACE;
            params.toType = type;
            params.alpha = -3.1;
            params.beta = 0.1;
            compareLinspace(params, dims, nullptr, nullptr, "double parameters " + host::shapeString(dims));
            params.alpha = 1.0e12;
            params.beta = 1.0e9 / 3.0;
            compareLinspace(params, dims, nullptr, nullptr, "large double parameters " + host::shapeString(dims));
            params.alphaBetaInt64 = true;
            params.alphaInt64 = (int64_t{1} << 60) + 1; // exact in int64_t, not in double
            params.betaInt64 = -3;
            compareLinspace(params, dims, nullptr, nullptr, "int64 parameters " + host::shapeString(dims));
        }
    }
}

TEST_F(CudaFill, LinspaceLargerThanOneSweepOfTheGrid)
{
    FillParams params;
    params.op = FillOperation::kLINSPACE;
    params.toType = DataType::kFLOAT;
    HostBuffer const alpha = parameter(DataType::kFLOAT, {0.5}, true);
    HostBuffer const beta = parameter(DataType::kFLOAT, {1.0e-3, 0.25, -1.5}, false);
    compareLinspace(params, Dims{3, {5, 700, 1000}}, &alpha, &beta, "large linspace");
}

//! Mean, standard deviation, extremes, and the share of values in [low, high).
struct Statistics
{
    double mean{};
    double deviation{};
    double min{};
    double max{};
    double neighbourCorrelation{};
};

Statistics statisticsOf(std::vector<double> const& v)
{
    Statistics s{0.0, 0.0, v.front(), v.front(), 0.0};
    double sum = 0.0;
    double squares = 0.0;
    double products = 0.0;
    for (std::size_t i = 0; i < v.size(); ++i)
    {
        sum += v[i];
        squares += v[i] * v[i];
        products += i + 1 < v.size() ? v[i] * v[i + 1] : 0.0;
        s.min = std::min(s.min, v[i]);
        s.max = std::max(s.max, v[i]);
    }
    auto const n = static_cast<double>(v.size());
    s.mean = sum / n;
    double const variance = squares / n - s.mean * s.mean;
    s.deviation = std::sqrt(variance);
    s.neighbourCorrelation = (products / (n - 1.0) - s.mean * s.mean) / variance;
    return s;
}

double shareWithin(std::vector<double> const& v, double low, double high)
{
    auto const inside = std::count_if(v.begin(), v.end(), [&](double x) { return x >= low && x < high; });
    return static_cast<double>(inside) / static_cast<double>(v.size());
}

TEST_F(CudaFill, RandomUniformFollowsAlphaAndBeta)
{
    int64_t const count = int64_t{1} << 21; // more than one sweep of the grid
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        FillParams params;
        params.op = FillOperation::kRANDOM_UNIFORM;
        params.toType = type;
        params.alpha = -3.0; // minimum
        params.beta = 5.0;   // maximum
        std::vector<double> const v = draw(params, count);
        Statistics const s = statisticsOf(v);
        EXPECT_GE(s.min, -3.0) << dataTypeName(type);
        EXPECT_LE(s.max, 5.0) << dataTypeName(type);
        EXPECT_LT(s.min, -2.99) << dataTypeName(type);
        EXPECT_GT(s.max, 4.99) << dataTypeName(type);
        EXPECT_NEAR(s.mean, 1.0, 0.01) << dataTypeName(type);
        EXPECT_NEAR(s.deviation, 8.0 / std::sqrt(12.0), 0.01) << dataTypeName(type);
        EXPECT_NEAR(shareWithin(v, -3.0, -1.0), 0.25, 0.005) << dataTypeName(type);
        EXPECT_NEAR(s.neighbourCorrelation, 0.0, 0.005) << dataTypeName(type);
        EXPECT_EQ(draw(params, count), v) << "the same values from run to run";
    }
}

TEST_F(CudaFill, RandomNormalFollowsAlphaAndBeta)
{
    int64_t const count = int64_t{1} << 21;
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        FillParams params;
        params.op = FillOperation::kRANDOM_NORMAL;
        params.toType = type;
        params.alpha = 2.0; // mean
        params.beta = 0.5;  // standard deviation
        std::vector<double> const v = draw(params, count);
        Statistics const s = statisticsOf(v);
        EXPECT_NEAR(s.mean, 2.0, 0.003) << dataTypeName(type);
        EXPECT_NEAR(s.deviation, 0.5, 0.003) << dataTypeName(type);
        EXPECT_NEAR(shareWithin(v, 1.5, 2.5), 0.6827, 0.005) << dataTypeName(type);
        EXPECT_GT(s.min, 2.0 - 0.5 * 6.0) << dataTypeName(type);
        EXPECT_LT(s.max, 2.0 + 0.5 * 6.0) << dataTypeName(type);
        EXPECT_NEAR(s.neighbourCorrelation, 0.0, 0.005) << dataTypeName(type);
    }
}

TEST_F(CudaFill, RandomParametersFromDeviceTensors)
{
    int64_t const count = int64_t{1} << 20;
    FillParams params;
    params.op = FillOperation::kRANDOM_NORMAL;
    params.toType = DataType::kFLOAT;
    HostBuffer const mean = parameter(DataType::kHALF, {-4.0}, true);
    HostBuffer const deviation = parameter(DataType::kINT32, {3.0}, false);
    Statistics const normal = statisticsOf(draw(params, count, &mean, &deviation));
    EXPECT_NEAR(normal.mean, -4.0, 0.02);
    EXPECT_NEAR(normal.deviation, 3.0, 0.02);

    params.op = FillOperation::kRANDOM_UNIFORM;
    HostBuffer const low = parameter(DataType::kINT8, {10.0}, true); // code 40 at scale 0.25
    HostBuffer const high = parameter(DataType::kFLOAT, {12.0}, true);
    Statistics const uniform = statisticsOf(draw(params, count, &low, &high));
    EXPECT_GE(uniform.min, 10.0);
    EXPECT_LE(uniform.max, 12.0);
    EXPECT_NEAR(uniform.mean, 11.0, 0.01);
}

TEST_F(CudaFill, EmptyOutputsLaunchNothing)
{
    FillParams params;
    params.op = FillOperation::kRANDOM_UNIFORM;
    Status const done
        = runFill(params, HostTensor{nullptr, DataType::kFLOAT, Dims{2, {0, 4}}}, nullptr, nullptr, launch());
    EXPECT_TRUE(done.ok()) << done.error().message;
}

//! The refusals come before any CUDA call: these run without a GPU, on addresses never dereferenced.
TEST(CudaFillRefusals, NameWhatIsRefused)
{
    auto* const fake = reinterpret_cast<void*>(uintptr_t{0x10000});
    auto const expectError = [](Status const& status, std::string const& fragment) {
        ASSERT_FALSE(status.ok()) << "expected an error holding \"" << fragment << "\"";
        EXPECT_NE(status.error().message.find(fragment), std::string::npos) << status.error().message;
    };
    FillParams params;
    params.op = FillOperation::kLINSPACE;
    HostTensor const matrix{fake, DataType::kFLOAT, Dims{2, {2, 2}}};
    expectError(runFill(params, matrix, nullptr, nullptr, Launch{}), "needs a beta input with one delta per dimension");
    HostTensor const alpha{fake, DataType::kFLOAT, Dims{0, {}}};
    HostTensor const beta{fake, DataType::kFLOAT, Dims{1, {1}}};
    expectError(
        runFill(params, matrix, &alpha, &beta, Launch{}), "the beta input has shape [1]; it needs 2 element(s)");
    expectError(runFill(params, matrix, &alpha, nullptr, Launch{}), "alpha and beta are both inputs or neither");
    HostTensor const halfVector{fake, DataType::kHALF, Dims{1, {2}}};
    params.toType = DataType::kHALF;
    expectError(runFill(params, halfVector, nullptr, nullptr, Launch{}), "fill kLINSPACE: does not produce kHALF");
    params.op = FillOperation::kRANDOM_NORMAL;
    params.toType = DataType::kINT32;
    expectError(runFill(params, HostTensor{fake, DataType::kINT32, Dims{1, {2}}}, nullptr, nullptr, Launch{}),
        "fill kRANDOM_NORMAL: does not produce kINT32");
    params.toType = DataType::kFLOAT;
    expectError(runFill(params, halfVector, nullptr, nullptr, Launch{}), "the output is kHALF but toType is kFLOAT");
    params.op = FillOperation{5};
    expectError(runFill(params, matrix, nullptr, nullptr, Launch{}), "unknown FillOperation 5");
    params.op = FillOperation::kRANDOM_UNIFORM;
    HostTensor const oddAlpha{static_cast<std::byte*>(fake) + 2, DataType::kFLOAT, Dims{0, {}}};
    expectError(runFill(params, HostTensor{fake, DataType::kFLOAT, Dims{1, {2}}}, &oddAlpha, &alpha, Launch{}),
        "the alpha input's device data is not aligned to its 4-byte elements");
}

} // namespace
} // namespace kiln::cuda::test
