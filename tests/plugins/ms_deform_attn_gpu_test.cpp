// SPDX-License-Identifier: Apache-2.0
// MultiscaleDeformableAttnPlugin_TRT's CUDA kernel against its host implementation: random levels, heads, channels,
// queries and points, locations beyond the maps' edges, FP32 and FP16 (label gpu; skips without a GPU).
#include "gpu_compare.h"
#include "ms_deform_attn.h"

namespace kiln::plugins
{
namespace
{

using nvinfer1::DataType;

class MsDeformAttnGpu : public test::GpuCompare
{
};

TEST_F(MsDeformAttnGpu, MatchesTheHost)
{
    for (int trial = 0; trial < 12; ++trial)
    {
        SCOPED_TRACE(trial);
        DataType const type = trial % 2 == 0 ? DataType::kFLOAT : DataType::kHALF;
        MsDeformAttnParams p;
        p.batch = 1 + static_cast<int64_t>(mRng() % 2);
        p.heads = 1 + static_cast<int64_t>(mRng() % 4);
        p.channels = 1 + static_cast<int64_t>(mRng() % 16);
        p.queries = 1 + static_cast<int64_t>(mRng() % 20);
        p.points = 1 + static_cast<int64_t>(mRng() % 4);
        p.levels = 1 + static_cast<int64_t>(mRng() % 4);
        std::vector<int32_t> shapes;
        std::vector<int32_t> starts;
        int32_t start = 0;
        for (int64_t l = 0; l < p.levels; ++l)
        {
            int32_t const h = 1 + static_cast<int32_t>(mRng() % 12);
            int32_t const w = 1 + static_cast<int32_t>(mRng() % 12);
            shapes.push_back(h);
            shapes.push_back(w);
            starts.push_back(start);
            start += h * w;
        }
        p.spatialSize = start;
        size_t const pairs = static_cast<size_t>(p.batch * p.queries * p.heads * p.levels * p.points);
        auto const value = random(type, static_cast<size_t>(p.batch * p.spatialSize * p.heads * p.channels), -1.F, 1.F);
        auto const locations = random(type, 2 * pairs, -0.2F, 1.2F);
        auto const weights = random(type, pairs, 0.F, 1.F);
        size_t const n = static_cast<size_t>(p.outputCount());
        std::vector<uint8_t> expected(n * elementSize(type));
        runMsDeformAttnHost(
            p, type, value.data(), shapes.data(), starts.data(), locations.data(), weights.data(), expected.data());
        void* y = upload(std::vector<uint8_t>(expected.size()));
        ASSERT_EQ(launchMsDeformAttn(p, type, upload(value), static_cast<int32_t const*>(upload(shapes)),
                      static_cast<int32_t const*>(upload(starts)), upload(locations), upload(weights), y, mStream),
            cudaSuccess);
        compare(type, y, expected, n, 1e-4, 1e-2);
    }
}

} // namespace
} // namespace kiln::plugins
