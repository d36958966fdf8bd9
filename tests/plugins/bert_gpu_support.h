// SPDX-License-Identifier: Apache-2.0
// The fixture of the BERT family's GPU tests (label gpu): a stream, device buffers freed at the end, seeded random
// values of kFLOAT or kHALF as bytes, and the comparison of a device result with the host implementation's within the
// type's tolerance. It skips without a usable GPU.
#pragma once

#include "core/float_convert.h"

#include "NvInferRuntime.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace kiln::plugins::bert_gpu
{

class BertPluginsGpu : public ::testing::Test
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

    static size_t sizeOf(nvinfer1::DataType type) { return type == nvinfer1::DataType::kHALF ? 2 : 4; }

    //! Random host bytes of n elements of type (kFLOAT or kHALF) in [lo, hi).
    std::vector<uint8_t> random(nvinfer1::DataType type, size_t n, float lo, float hi)
    {
        std::uniform_real_distribution<float> uniform(lo, hi);
        std::vector<uint8_t> bytes(n * sizeOf(type));
        for (size_t i = 0; i < n; ++i)
        {
            float const v = uniform(mRng);
            if (type == nvinfer1::DataType::kHALF)
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

    std::vector<float> randomFloats(size_t n, float lo, float hi)
    {
        std::uniform_real_distribution<float> uniform(lo, hi);
        std::vector<float> values(n);
        for (float& v : values)
        {
            v = uniform(mRng);
        }
        return values;
    }

    void* upload(void const* data, size_t bytes)
    {
        void* p = nullptr;
        EXPECT_EQ(cudaMalloc(&p, bytes == 0 ? 1 : bytes), cudaSuccess);
        if (bytes != 0)
        {
            EXPECT_EQ(cudaMemcpy(p, data, bytes, cudaMemcpyHostToDevice), cudaSuccess);
        }
        mDevice.push_back(p);
        return p;
    }

    template <typename V>
    void* upload(std::vector<V> const& v)
    {
        return upload(v.data(), v.size() * sizeof(V));
    }

    //! A device buffer of bytes, filled with 0xFF.
    void* scratch(size_t bytes) { return upload(std::vector<uint8_t>(bytes == 0 ? 1 : bytes, 0xFF)); }

    //! The bytes of a device buffer, after the stream's work.
    std::vector<uint8_t> download(void const* device, size_t bytes)
    {
        EXPECT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
        std::vector<uint8_t> out(bytes);
        EXPECT_EQ(cudaMemcpy(out.data(), device, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
        return out;
    }

    //! Compares n device elements of type with the host's bytes, within the type's tolerance.
    void compare(nvinfer1::DataType type, void const* device, std::vector<uint8_t> const& host, size_t n)
    {
        std::vector<uint8_t> const got = download(device, host.size());
        bool const half = type == nvinfer1::DataType::kHALF;
        double const tolerance = half ? 4e-3 : 1e-4;
        int failures = 0;
        for (size_t i = 0; i < n && failures < 10; ++i)
        {
            double a = 0;
            double e = 0;
            if (half)
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
    std::mt19937_64 mRng{20261130};
};

} // namespace kiln::plugins::bert_gpu
