// SPDX-License-Identifier: Apache-2.0
// BatchedNMSDynamic_TRT's CUDA kernels against its host implementation, bit for bit (label gpu; skips without a usable
// GPU): seeded random boxes and scores with every option, FP32 and FP16, and scores drawn from a few values so that
// most of them tie.
#include "batched_nms.h"
#include "core/float_convert.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace kiln::plugins
{
namespace
{

using nvinfer1::DataType;

class BatchedNmsGpu : public ::testing::Test
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

    void* device(size_t bytes)
    {
        void* p = nullptr;
        EXPECT_EQ(cudaMalloc(&p, bytes == 0 ? 1 : bytes), cudaSuccess);
        EXPECT_EQ(cudaMemset(p, 0x5A, bytes == 0 ? 1 : bytes), cudaSuccess);
        mDevice.push_back(p);
        return p;
    }
    void* upload(std::vector<uint8_t> const& bytes)
    {
        void* p = device(bytes.size());
        EXPECT_EQ(cudaMemcpy(p, bytes.data(), bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
        return p;
    }

    //! n random elements of type in [lo, hi); with levels > 0, drawn from that many evenly spaced values only.
    std::vector<uint8_t> random(DataType type, size_t n, float lo, float hi, int levels = 0)
    {
        std::uniform_real_distribution<float> uniform(lo, hi);
        std::uniform_int_distribution<int> level(0, levels > 0 ? levels - 1 : 0);
        std::vector<uint8_t> bytes(n * (type == DataType::kHALF ? 2 : 4));
        for (size_t i = 0; i < n; ++i)
        {
            float const v = levels > 0 ? lo + (hi - lo) * static_cast<float>(level(mRng)) / levels : uniform(mRng);
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

    void compare(BatchedNmsParams const& p, DataType type, int scoreLevels)
    {
        size_t const element = type == DataType::kHALF ? 2 : 4;
        float const scale = p.isNormalized ? 1.2F : 40.0F;
        std::vector<uint8_t> const boxes = random(
            type, static_cast<size_t>(p.batch * p.boxes * (p.shareLocation ? 1 : p.numClasses) * 4), 0.0F, scale);
        std::vector<uint8_t> const scores
            = random(type, static_cast<size_t>(p.batch * p.boxes * p.numClasses), 0.0F, 1.0F, scoreLevels);
        size_t const slots = static_cast<size_t>(p.batch * p.keepTopK);
        std::vector<size_t> const outBytes
            = {static_cast<size_t>(p.batch) * 4, slots * 4 * element, slots * element, slots * element};
        std::vector<std::vector<uint8_t>> host;
        std::vector<void*> hostPtrs;
        std::vector<void*> devicePtrs;
        for (size_t bytes : outBytes)
        {
            host.emplace_back(bytes, 0xA5);
            devicePtrs.push_back(device(bytes));
        }
        for (auto& h : host)
        {
            hostPtrs.push_back(h.data());
        }
        runBatchedNmsHost(p, type, boxes.data(), scores.data(), hostPtrs.data());
        void* workspace = device(batchedNmsWorkspaceSize(p));
        ASSERT_EQ(launchBatchedNms(p, type, upload(boxes), upload(scores), devicePtrs.data(), workspace, mStream),
            cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
        for (size_t o = 0; o < outBytes.size(); ++o)
        {
            std::vector<uint8_t> got(outBytes[o]);
            ASSERT_EQ(cudaMemcpy(got.data(), devicePtrs[o], got.size(), cudaMemcpyDeviceToHost), cudaSuccess);
            EXPECT_EQ(got, host[o]) << "output " << o;
        }
        int32_t first = 0;
        std::memcpy(&first, host[0].data(), 4);
        EXPECT_GT(first, 0) << "a case that selects nothing tests little";
    }

    std::mt19937_64 mRng{20261130};
    cudaStream_t mStream{};
    std::vector<void*> mDevice;
};

TEST_F(BatchedNmsGpu, MatchesTheHostWithEveryOption)
{
    for (DataType type : {DataType::kFLOAT, DataType::kHALF})
    {
        for (int variant = 0; variant < 5; ++variant)
        {
            SCOPED_TRACE("type " + std::to_string(static_cast<int>(type)) + " variant " + std::to_string(variant));
            BatchedNmsParams p;
            p.batch = 3;
            p.boxes = 700;
            p.numClasses = 6;
            p.topK = variant == 4 ? 4096 : 200;
            p.keepTopK = 100;
            p.scoreThreshold = 0.1F;
            p.iouThreshold = 0.45F;
            p.shareLocation = variant != 1;
            p.backgroundLabelId = variant == 1 ? 2 : -1;
            p.isNormalized = variant != 2 && variant != 3;
            p.caffeSemantics = variant != 3;
            p.clipBoxes = variant != 2;
            compare(p, type, 0);
            compare(p, type, 5); // Mostly ties.
        }
    }
}

} // namespace
} // namespace kiln::plugins
