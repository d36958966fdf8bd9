// SPDX-License-Identifier: Apache-2.0
// CustomQKVToContextPluginDynamic's CUDA kernel against its host implementation on seeded random shapes, values and
// mask indices (0, past S and in between), FP32 and FP16, with and without a mask (label gpu; skips without a usable
// GPU).
#include "bert_gpu_support.h"
#include "qkv_to_context.h"

namespace kiln::plugins
{
namespace
{

using bert_gpu::BertPluginsGpu;
using nvinfer1::DataType;

TEST_F(BertPluginsGpu, QkvToContextMatchesTheHost)
{
    struct Heads
    {
        int32_t heads;
        int32_t headSize;
    };
    int trial = 0;
    for (Heads const h : {Heads{1, 1}, Heads{2, 16}, Heads{12, 64}})
    {
        for (bool withMask : {false, true})
        {
            for (DataType type : {DataType::kFLOAT, DataType::kHALF})
            {
                SCOPED_TRACE(trial++);
                QkvToContextParams const p{
                    static_cast<int64_t>(1 + mRng() % 40), static_cast<int64_t>(1 + mRng() % 3), h.heads, h.headSize};
                auto const qkv = random(type, static_cast<size_t>(p.outputCount() * 3), -2.0F, 2.0F);
                std::vector<int32_t> mask;
                for (int64_t b = 0; b < p.batch; ++b)
                {
                    mask.push_back(static_cast<int32_t>(mRng() % static_cast<uint64_t>(p.seq + 3)) - 1);
                }
                size_t const n = static_cast<size_t>(p.outputCount());
                std::vector<uint8_t> expected(n * sizeOf(type));
                runQkvToContextHost(p, type, qkv.data(), withMask ? mask.data() : nullptr, expected.data());
                void* out = scratch(expected.size());
                ASSERT_EQ(launchQkvToContext(p, type, upload(qkv),
                              withMask ? static_cast<int32_t const*>(upload(mask)) : nullptr, out, mStream),
                    cudaSuccess);
                compare(type, out, expected, n);
            }
        }
    }
}

} // namespace
} // namespace kiln::plugins
