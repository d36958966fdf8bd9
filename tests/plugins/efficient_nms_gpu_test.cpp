// SPDX-License-Identifier: Apache-2.0
// EfficientNMS_TRT's CUDA kernels against its host implementation, bit for bit (label gpu; skips without a usable
// GPU): seeded random boxes and scores with every option, FP32 and FP16, scores drawn from a few values so that most
// of them tie, more candidates than kEfficientNmsMaxCandidates, and the ONNX variant's rows.
#include "core/float_convert.h"
#include "efficient_nms.h"

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

class EfficientNmsGpu : public ::testing::Test
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
    std::vector<uint8_t> download(void const* p, size_t bytes)
    {
        std::vector<uint8_t> host(bytes);
        EXPECT_EQ(cudaMemcpy(host.data(), p, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
        return host;
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

    //! Runs p on both sides with random inputs and expects identical bytes in every output.
    void compare(EfficientNmsParams p, DataType type, int scoreLevels)
    {
        p.filterThreshold = efficientNmsFilterThreshold(p.scoreThreshold, p.scoreActivation);
        size_t const element = type == DataType::kHALF ? 2 : 4;
        int64_t const boxRows = p.batch * p.boxes * (p.boxPerClass ? p.classes : 1);
        std::vector<uint8_t> const boxes = random(type, static_cast<size_t>(boxRows * 4), 0.0F, 6.0F);
        std::vector<uint8_t> const scores = random(
            type, static_cast<size_t>(p.batch * p.elements()), p.scoreActivation ? -3.0F : 0.0F, 1.0F, scoreLevels);
        std::vector<uint8_t> const anchors
            = random(type, static_cast<size_t>((p.sharedAnchors ? 1 : p.batch) * p.boxes * 4), 0.5F, 3.0F);
        size_t const slots = static_cast<size_t>(p.batch * p.maxOutputBoxes);
        std::vector<size_t> const outBytes = p.onnxIndices
            ? std::vector<size_t>{slots * 3 * 4}
            : std::vector<size_t>{static_cast<size_t>(p.batch) * 4, slots * 4 * element, slots * element, slots * 4};
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
        runEfficientNmsHost(
            p, type, boxes.data(), scores.data(), p.hasAnchors ? anchors.data() : nullptr, hostPtrs.data());
        void* workspace = device(efficientNmsWorkspaceSize(p, type));
        ASSERT_EQ(launchEfficientNms(p, type, upload(boxes), upload(scores), p.hasAnchors ? upload(anchors) : nullptr,
                      devicePtrs.data(), workspace, mStream),
            cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
        for (size_t o = 0; o < outBytes.size(); ++o)
        {
            EXPECT_EQ(download(devicePtrs[o], outBytes[o]), host[o]) << "output " << o;
        }
        if (!p.onnxIndices)
        {
            int32_t first = 0;
            std::memcpy(&first, host[0].data(), 4);
            EXPECT_GT(first, 0) << "a case that selects nothing tests little";
        }
    }

    std::mt19937_64 mRng{20261130};
    cudaStream_t mStream{};
    std::vector<void*> mDevice;
};

EfficientNmsParams gpuParams()
{
    EfficientNmsParams p;
    p.batch = 3;
    p.boxes = 300;
    p.classes = 5;
    p.scoreThreshold = 0.2F;
    p.iouThreshold = 0.5F;
    p.maxOutputBoxes = 60;
    return p;
}

TEST_F(EfficientNmsGpu, MatchesTheHostWithEveryOption)
{
    for (DataType type : {DataType::kFLOAT, DataType::kHALF})
    {
        for (int variant = 0; variant < 9; ++variant)
        {
            SCOPED_TRACE("type " + std::to_string(static_cast<int>(type)) + " variant " + std::to_string(variant));
            EfficientNmsParams p = gpuParams();
            p.classAgnostic = variant == 1;
            p.backgroundClass = variant == 2 ? 0 : -1;
            p.scoreActivation = variant == 3;
            p.boxCoding = variant == 4 || variant == 6 ? 1 : 0;
            p.hasAnchors = variant == 5 || variant == 6;
            p.sharedAnchors = variant == 5;
            p.boxPerClass = variant == 7;
            if (variant == 8)
            {
                p.onnxIndices = true;
                p.maxOutputBoxesPerClass = 7;
                p.maxOutputBoxes = 7;
            }
            compare(p, type, 0);
            compare(p, type, 6); // Mostly ties.
        }
    }
}

TEST_F(EfficientNmsGpu, MoreCandidatesThanTheLimit)
{
    EfficientNmsParams p = gpuParams();
    p.batch = 2;
    p.boxes = 3000;
    p.classes = 4;
    p.scoreThreshold = 0.0F;
    p.maxOutputBoxes = 500;
    compare(p, DataType::kFLOAT, 0);
    compare(p, DataType::kFLOAT, 3);
}

} // namespace
} // namespace kiln::plugins
