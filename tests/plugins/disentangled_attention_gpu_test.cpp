// SPDX-License-Identifier: Apache-2.0
// DisentangledAttention_TRT's CUDA kernel against its host implementation on seeded random shapes, spans and values,
// FP32 and FP16 (label gpu; skips without a usable GPU).
#include "bert_gpu_support.h"
#include "disentangled_attention.h"

namespace kiln::plugins
{
namespace
{

using bert_gpu::BertPluginsGpu;
using nvinfer1::DataType;

TEST_F(BertPluginsGpu, DisentangledAttentionMatchesTheHost)
{
    struct Case
    {
        int32_t span;
        int64_t seq;
    };
    int trial = 0;
    for (Case const c : {Case{1, 5}, Case{4, 9}, Case{8, 33}, Case{256, 128}, Case{64, 512}})
    {
        for (DataType type : {DataType::kFLOAT, DataType::kHALF})
        {
            SCOPED_TRACE(trial++);
            DisentangledAttentionParams const p{c.span, 0.07F, static_cast<int64_t>(1 + mRng() % 4), c.seq};
            size_t const n = static_cast<size_t>(p.outputCount());
            size_t const m = static_cast<size_t>(p.groups * p.seq * 2 * p.span);
            auto const c2c = random(type, n, -2.0F, 2.0F);
            auto const c2p = random(type, m, -2.0F, 2.0F);
            auto const p2c = random(type, m, -2.0F, 2.0F);
            std::vector<uint8_t> expected(n * sizeOf(type));
            runDisentangledAttentionHost(p, type, c2c.data(), c2p.data(), p2c.data(), expected.data());
            void* out = scratch(expected.size());
            ASSERT_EQ(
                launchDisentangledAttention(p, type, upload(c2c), upload(c2p), upload(p2c), out, mStream), cudaSuccess);
            compare(type, out, expected, n);
        }
    }
}

} // namespace
} // namespace kiln::plugins
