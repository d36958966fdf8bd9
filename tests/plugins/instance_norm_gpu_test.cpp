// SPDX-License-Identifier: Apache-2.0
// InstanceNormalization_TRT's CUDA kernel against its host implementation: random shapes (planes shorter and longer
// than a block), FP32 and FP16, with and without the leaky ReLU (label gpu; skips without a GPU).
#include "gpu_compare.h"
#include "instance_norm.h"

namespace kiln::plugins
{
namespace
{

using nvinfer1::DataType;

class InstanceNormGpu : public test::GpuCompare
{
};

TEST_F(InstanceNormGpu, MatchesTheHost)
{
    for (int trial = 0; trial < 16; ++trial)
    {
        SCOPED_TRACE(trial);
        DataType const type = trial % 2 == 0 ? DataType::kFLOAT : DataType::kHALF;
        NormParams p;
        int64_t const batch = 1 + static_cast<int64_t>(mRng() % 3);
        p.channels = 1 + static_cast<int64_t>(mRng() % 5);
        p.planeSize
            = trial % 4 == 3 ? 1000 + static_cast<int64_t>(mRng() % 3000) : 1 + static_cast<int64_t>(mRng() % 300);
        p.segments = batch * p.channels;
        p.segmentSize = p.planeSize;
        p.epsilon = 1e-5F;
        p.relu = trial % 3 == 0;
        p.alpha = 0.25F;
        size_t const n = static_cast<size_t>(p.count());
        std::vector<uint8_t> const x = random(type, n, -3.F, 5.F);
        std::vector<uint8_t> const scaleBytes = random(DataType::kFLOAT, static_cast<size_t>(p.channels), 0.5F, 2.F);
        std::vector<uint8_t> const biasBytes = random(DataType::kFLOAT, static_cast<size_t>(p.channels), -1.F, 1.F);
        std::vector<uint8_t> expected(n * elementSize(type));
        runNormHost(p, type, x.data(), reinterpret_cast<float const*>(scaleBytes.data()),
            reinterpret_cast<float const*>(biasBytes.data()), expected.data());
        void* y = upload(std::vector<uint8_t>(expected.size()));
        ASSERT_EQ(launchNorm(p, type, upload(x), static_cast<float const*>(upload(scaleBytes)),
                      static_cast<float const*>(upload(biasBytes)), y, mStream),
            cudaSuccess);
        compare(type, y, expected, n, 2e-4, 8e-3);
    }
}

} // namespace
} // namespace kiln::plugins
