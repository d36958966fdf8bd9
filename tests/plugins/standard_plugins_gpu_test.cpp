// SPDX-License-Identifier: Apache-2.0
// The CUDA kernels of ROIAlign_TRT and ModulatedDeformConv2d against their host implementations, on seeded random
// shapes and values, FP32 and FP16 (label gpu; skips without a usable GPU, as tests/backends/cuda does).
#include "core/float_convert.h"
#include "deform_conv.h"
#include "roi_align.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace kiln::plugins
{
namespace
{

using nvinfer1::DataType;

class StandardPluginsGpu : public ::testing::Test
{
protected:
    void SetUp() override
    {
        int count = 0;
        cudaError_t const status = cudaGetDeviceCount(&count);
        if (status != cudaSuccess || count == 0)
        {
            static_cast<void>(cudaGetLastError());
            GTEST_SKIP() << "no usable GPU: " << (status != cudaSuccess ? cudaGetErrorString(status) : "no devices");
        }
        ASSERT_EQ(cudaStreamCreate(&mStream), cudaSuccess);
    }
    void TearDown() override
    {
        for (void* p : mDevice)
        {
            static_cast<void>(cudaFree(p));
        }
        if (mStream != nullptr)
        {
            EXPECT_EQ(cudaStreamDestroy(mStream), cudaSuccess);
        }
    }

    //! Random host bytes of n elements of type (kFLOAT or kHALF) in [lo, hi).
    std::vector<uint8_t> random(DataType type, size_t n, float lo, float hi)
    {
        std::uniform_real_distribution<float> uniform(lo, hi);
        std::vector<uint8_t> bytes(n * (type == DataType::kHALF ? 2 : 4));
        for (size_t i = 0; i < n; ++i)
        {
            float const v = uniform(mRng);
            if (type == DataType::kHALF)
            {
                uint16_t const h = floatToHalf(v);
                std::memcpy(bytes.data() + 2 * i, &h, 2);
            }
            else
            {
                std::memcpy(bytes.data() + 4 * i, &v, 4);
            }
        }
        return bytes;
    }
    void* upload(void const* data, size_t bytes)
    {
        void* p = nullptr;
        EXPECT_EQ(cudaMalloc(&p, bytes == 0 ? 1 : bytes), cudaSuccess);
        EXPECT_EQ(cudaMemcpy(p, data, bytes, cudaMemcpyHostToDevice), cudaSuccess);
        mDevice.push_back(p);
        return p;
    }
    template <typename V>
    void* upload(std::vector<V> const& v)
    {
        return upload(v.data(), v.size() * sizeof(V));
    }
    //! Compares n device elements of type at device with host, within the type's tolerance.
    void compare(DataType type, void const* device, std::vector<uint8_t> const& host, size_t n)
    {
        ASSERT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
        std::vector<uint8_t> got(host.size());
        ASSERT_EQ(cudaMemcpy(got.data(), device, got.size(), cudaMemcpyDeviceToHost), cudaSuccess);
        double const tolerance = type == DataType::kHALF ? 4e-3 : 1e-4;
        int failures = 0;
        for (size_t i = 0; i < n && failures < 10; ++i)
        {
            double a = 0;
            double e = 0;
            if (type == DataType::kHALF)
            {
                uint16_t x = 0;
                uint16_t y = 0;
                std::memcpy(&x, got.data() + 2 * i, 2);
                std::memcpy(&y, host.data() + 2 * i, 2);
                a = halfToFloat(x);
                e = halfToFloat(y);
            }
            else
            {
                float x = 0;
                float y = 0;
                std::memcpy(&x, got.data() + 4 * i, 4);
                std::memcpy(&y, host.data() + 4 * i, 4);
                a = x;
                e = y;
            }
            if (!(std::fabs(a - e) <= tolerance * (1.0 + std::fabs(e))))
            {
                ADD_FAILURE() << "element " << i << ": device " << a << ", host " << e;
                ++failures;
            }
        }
    }

    cudaStream_t mStream{};
    std::vector<void*> mDevice;
    std::mt19937_64 mRng{20261122};
};

TEST_F(StandardPluginsGpu, RoiAlignMatchesTheHost)
{
    for (int trial = 0; trial < 24; ++trial)
    {
        DataType const type = trial % 2 == 0 ? DataType::kFLOAT : DataType::kHALF;
        RoiAlignParams p;
        p.batch = 1 + static_cast<int64_t>(mRng() % 3);
        p.channels = 1 + static_cast<int64_t>(mRng() % 5);
        p.height = 1 + static_cast<int64_t>(mRng() % 12);
        p.width = 1 + static_cast<int64_t>(mRng() % 12);
        p.rois = static_cast<int64_t>(mRng() % 6);
        p.outputHeight = 1 + static_cast<int32_t>(mRng() % 4);
        p.outputWidth = 1 + static_cast<int32_t>(mRng() % 4);
        p.samplingRatio = static_cast<int32_t>(mRng() % 3);
        p.spatialScale = trial % 3 == 0 ? 0.5F : 1.0F;
        p.halfPixel = trial % 4 < 2;
        p.maxMode = trial % 5 == 0;
        SCOPED_TRACE(trial);
        std::vector<uint8_t> const x
            = random(type, static_cast<size_t>(p.batch * p.channels * p.height * p.width), -2.0F, 2.0F);
        std::vector<uint8_t> const rois = random(type, static_cast<size_t>(p.rois * 4), -3.0F, 16.0F);
        std::vector<int32_t> batch;
        for (int64_t r = 0; r < p.rois; ++r)
        {
            batch.push_back(static_cast<int32_t>(mRng() % static_cast<uint64_t>(p.batch)));
        }
        size_t const n = static_cast<size_t>(p.outputCount());
        std::vector<uint8_t> expected(n * (type == DataType::kHALF ? 2 : 4));
        runRoiAlignHost(p, type, x.data(), rois.data(), batch.data(), expected.data());
        void* y = upload(std::vector<uint8_t>(expected.size()));
        ASSERT_EQ(
            launchRoiAlign(p, type, upload(x), upload(rois), static_cast<int32_t const*>(upload(batch)), y, mStream),
            cudaSuccess);
        compare(type, y, expected, n);
    }
}

TEST_F(StandardPluginsGpu, DeformConvMatchesTheHost)
{
    for (int trial = 0; trial < 16; ++trial)
    {
        DataType const type = trial % 2 == 0 ? DataType::kFLOAT : DataType::kHALF;
        DeformConvParams p;
        p.group = 1 + static_cast<int32_t>(mRng() % 2);
        p.deformableGroup = 1 + static_cast<int32_t>(mRng() % 2);
        p.strideH = 1 + static_cast<int32_t>(mRng() % 2);
        p.strideW = 1 + static_cast<int32_t>(mRng() % 2);
        p.padH = static_cast<int32_t>(mRng() % 2);
        p.padW = static_cast<int32_t>(mRng() % 2);
        p.dilationH = 1 + static_cast<int32_t>(mRng() % 2);
        p.dilationW = 1;
        p.batch = 1 + static_cast<int64_t>(mRng() % 2);
        p.channels = 4;
        p.height = 4 + static_cast<int64_t>(mRng() % 6);
        p.width = 4 + static_cast<int64_t>(mRng() % 6);
        p.outChannels = 2 * p.group;
        p.kernelH = 1 + static_cast<int64_t>(mRng() % 3);
        p.kernelW = 1 + static_cast<int64_t>(mRng() % 3);
        p.outHeight = (p.height + 2 * p.padH - ((p.kernelH - 1) * p.dilationH + 1)) / p.strideH + 1;
        p.outWidth = (p.width + 2 * p.padW - ((p.kernelW - 1) * p.dilationW + 1)) / p.strideW + 1;
        p.hasBias = trial % 3 != 0;
        SCOPED_TRACE(trial);
        int64_t const taps = p.kernelH * p.kernelW;
        int64_t const outPlane = p.outHeight * p.outWidth;
        auto const x = random(type, static_cast<size_t>(p.batch * p.channels * p.height * p.width), -1.0F, 1.0F);
        auto const offset
            = random(type, static_cast<size_t>(p.batch * p.deformableGroup * taps * 2 * outPlane), -2.0F, 2.0F);
        auto const mask = random(type, static_cast<size_t>(p.batch * p.deformableGroup * taps * outPlane), 0.0F, 1.0F);
        auto const weight
            = random(type, static_cast<size_t>(p.outChannels * (p.channels / p.group) * taps), -1.0F, 1.0F);
        auto const bias = random(type, static_cast<size_t>(p.outChannels), -1.0F, 1.0F);
        size_t const n = static_cast<size_t>(p.outputCount());
        std::vector<uint8_t> expected(n * (type == DataType::kHALF ? 2 : 4));
        runDeformConvHost(p, type, x.data(), offset.data(), mask.data(), weight.data(),
            p.hasBias ? bias.data() : nullptr, expected.data());
        void* y = upload(std::vector<uint8_t>(expected.size()));
        ASSERT_EQ(launchDeformConv(p, type, upload(x), upload(offset), upload(mask), upload(weight),
                      p.hasBias ? upload(bias) : nullptr, y, mStream),
            cudaSuccess);
        compare(type, y, expected, n);
    }
}

} // namespace
} // namespace kiln::plugins
