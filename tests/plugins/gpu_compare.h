// SPDX-License-Identifier: Apache-2.0
// The fixture the GPU tests of InstanceNormalization_TRT, GroupNormalizationPlugin, ScatterElements and
// MultiscaleDeformableAttnPlugin_TRT share: it skips without a usable GPU, makes seeded random host data, uploads it,
// and compares device results with the host implementation's within a tolerance per type.
//
//     class ScatterGpu : public GpuCompare {};
//     void* y = upload(std::vector<uint8_t>(bytes));
//     compare(DataType::kHALF, y, expected, n);
#pragma once

#include "NvInferRuntime.h"
#include "core/float_convert.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace kiln::plugins::test
{

class GpuCompare : public ::testing::Test
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

    static size_t elementSize(nvinfer1::DataType type)
    {
        return type == nvinfer1::DataType::kHALF ? 2 : type == nvinfer1::DataType::kINT64 ? 8 : 4;
    }

    //! Random host bytes of n elements of type (kFLOAT, kHALF, kINT32 or kINT64) in [lo, hi) (integers truncated).
    std::vector<uint8_t> random(nvinfer1::DataType type, size_t n, float lo, float hi)
    {
        std::uniform_real_distribution<float> uniform(lo, hi);
        std::vector<uint8_t> bytes(n * elementSize(type));
        for (size_t i = 0; i < n; ++i)
        {
            float const v = uniform(mRng);
            if (type == nvinfer1::DataType::kHALF)
            {
                uint16_t const h = floatToHalf(v);
                std::memcpy(bytes.data() + 2 * i, &h, 2);
            }
            else if (type == nvinfer1::DataType::kINT32)
            {
                auto const x = static_cast<int32_t>(v);
                std::memcpy(bytes.data() + 4 * i, &x, 4);
            }
            else if (type == nvinfer1::DataType::kINT64)
            {
                auto const x = static_cast<int64_t>(v);
                std::memcpy(bytes.data() + 8 * i, &x, 8);
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
    //! The element i of bytes of type, as a double.
    static double at(nvinfer1::DataType type, std::vector<uint8_t> const& bytes, size_t i)
    {
        switch (type)
        {
        case nvinfer1::DataType::kHALF:
        {
            uint16_t h = 0;
            std::memcpy(&h, bytes.data() + 2 * i, 2);
            return halfToFloat(h);
        }
        case nvinfer1::DataType::kINT32:
        {
            int32_t x = 0;
            std::memcpy(&x, bytes.data() + 4 * i, 4);
            return x;
        }
        case nvinfer1::DataType::kINT64:
        {
            int64_t x = 0;
            std::memcpy(&x, bytes.data() + 8 * i, 8);
            return static_cast<double>(x);
        }
        default:
        {
            float x = 0;
            std::memcpy(&x, bytes.data() + 4 * i, 4);
            return x;
        }
        }
    }
    //! Compares n device elements of type at device with host: integers exactly, floats within the type's tolerance
    //! (scaled by 1 + |host|).
    void compare(nvinfer1::DataType type, void const* device, std::vector<uint8_t> const& host, size_t n,
        double floatTolerance = 1e-4, double halfTolerance = 4e-3)
    {
        ASSERT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
        std::vector<uint8_t> got(host.size());
        ASSERT_EQ(cudaMemcpy(got.data(), device, got.size(), cudaMemcpyDeviceToHost), cudaSuccess);
        bool const integer = type == nvinfer1::DataType::kINT32 || type == nvinfer1::DataType::kINT64;
        double const tolerance = integer ? 0.0 : type == nvinfer1::DataType::kHALF ? halfTolerance : floatTolerance;
        int failures = 0;
        for (size_t i = 0; i < n && failures < 10; ++i)
        {
            double const a = at(type, got, i);
            double const e = at(type, host, i);
            if (!(std::fabs(a - e) <= tolerance * (1.0 + std::fabs(e))))
            {
                ADD_FAILURE() << "element " << i << ": device " << a << ", host " << e;
                ++failures;
            }
        }
    }

    cudaStream_t mStream{};
    std::vector<void*> mDevice;
    std::mt19937_64 mRng{20261130};
};

} // namespace kiln::plugins::test
