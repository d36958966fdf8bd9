// SPDX-License-Identifier: Apache-2.0
// GroupNormalizationPlugin's CUDA path (InstanceNormalization_TRT's kernel over groups of channels) against its host
// implementation, FP32 as TensorRT's plugin takes (label gpu; skips without a GPU).
#include "gpu_compare.h"
#include "instance_norm.h"

namespace kiln::plugins
{
namespace
{

using nvinfer1::DataType;

class GroupNormGpu : public test::GpuCompare
{
};

TEST_F(GroupNormGpu, MatchesTheHost)
{
    for (int trial = 0; trial < 12; ++trial)
    {
        SCOPED_TRACE(trial);
        int64_t const groups = 1 + static_cast<int64_t>(mRng() % 4);
        int64_t const batch = 1 + static_cast<int64_t>(mRng() % 3);
        NormParams p;
        p.channels = groups * (1 + static_cast<int64_t>(mRng() % 3));
        p.planeSize = 1 + static_cast<int64_t>(mRng() % 400);
        p.segments = batch * groups;
        p.segmentSize = p.channels / groups * p.planeSize;
        p.epsilon = 1e-5F;
        size_t const n = static_cast<size_t>(p.count());
        std::vector<uint8_t> const x = random(DataType::kFLOAT, n, -2.F, 4.F);
        std::vector<uint8_t> const scale = random(DataType::kFLOAT, static_cast<size_t>(p.channels), 0.5F, 2.F);
        std::vector<uint8_t> const bias = random(DataType::kFLOAT, static_cast<size_t>(p.channels), -1.F, 1.F);
        std::vector<uint8_t> expected(n * 4);
        runNormHost(p, DataType::kFLOAT, x.data(), reinterpret_cast<float const*>(scale.data()),
            reinterpret_cast<float const*>(bias.data()), expected.data());
        void* y = upload(std::vector<uint8_t>(expected.size()));
        ASSERT_EQ(launchNorm(p, DataType::kFLOAT, upload(x), static_cast<float const*>(upload(scale)),
                      static_cast<float const*>(upload(bias)), y, mStream),
            cudaSuccess);
        compare(DataType::kFLOAT, y, expected, n, 2e-4);
    }
}

} // namespace
} // namespace kiln::plugins
