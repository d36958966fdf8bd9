// SPDX-License-Identifier: Apache-2.0
// ScatterElements's CUDA kernel against its host implementation: every reduction and type (FP32, FP16, INT32,
// INT64), random ranks and axes, negative indices and indices outside the axis, duplicate targets for the combining
// reductions and distinct ones for none (whose winner the GPU does not fix) (label gpu; skips without a GPU).
#include "gpu_compare.h"
#include "scatter_elements.h"

namespace kiln::plugins
{
namespace
{

using nvinfer1::DataType;

class ScatterElementsGpu : public test::GpuCompare
{
};

TEST_F(ScatterElementsGpu, MatchesTheHost)
{
    DataType const types[] = {DataType::kFLOAT, DataType::kHALF, DataType::kINT32, DataType::kINT64};
    ScatterReduction const reductions[] = {ScatterReduction::kNONE, ScatterReduction::kADD, ScatterReduction::kMUL,
        ScatterReduction::kMIN, ScatterReduction::kMAX, ScatterReduction::kMEAN};
    int trial = 0;
    for (DataType type : types)
    {
        for (ScatterReduction reduction : reductions)
        {
            SCOPED_TRACE(trial++);
            ScatterParams p;
            p.reduction = reduction;
            p.rank = 1 + static_cast<int32_t>(mRng() % 3);
            p.axis = static_cast<int32_t>(mRng() % static_cast<uint64_t>(p.rank));
            for (int32_t d = 0; d < p.rank; ++d)
            {
                p.dataDims[d] = 2 + static_cast<int64_t>(mRng() % 6);
                p.updatesDims[d] = 1 + static_cast<int64_t>(mRng() % static_cast<uint64_t>(p.dataDims[d]));
            }
            size_t const count = static_cast<size_t>(p.updatesCount());
            int64_t const extent = p.dataDims[p.axis];
            std::vector<int64_t> indices(count);
            for (size_t e = 0; e < count; ++e)
            {
                if (reduction == ScatterReduction::kNONE)
                {
                    // Distinct targets: the update's own coordinate on the axis, half of them counted from the end.
                    int64_t stride = 1;
                    for (int32_t d = p.rank - 1; d > p.axis; --d)
                    {
                        stride *= p.updatesDims[d];
                    }
                    int64_t const coordinate = static_cast<int64_t>(e) / stride % p.updatesDims[p.axis];
                    indices[e] = e % 2 == 0 ? coordinate : coordinate - extent;
                }
                else
                {
                    indices[e] = static_cast<int64_t>(mRng() % static_cast<uint64_t>(2 * extent + 2)) - extent - 1;
                }
            }
            bool const mul = reduction == ScatterReduction::kMUL;
            std::vector<uint8_t> const data
                = random(type, static_cast<size_t>(p.dataCount()), mul ? 0.5F : -20.F, mul ? 1.5F : 20.F);
            std::vector<uint8_t> const updates = random(type, count, mul ? 0.5F : -20.F, mul ? 1.5F : 20.F);
            std::vector<uint8_t> expected(data.size());
            runScatterElementsHost(p, type, data.data(), indices.data(), updates.data(), expected.data());
            void* y = upload(std::vector<uint8_t>(expected.size()));
            ASSERT_EQ(launchScatterElements(p, type, upload(data), static_cast<int64_t const*>(upload(indices)),
                          upload(updates), y, mStream),
                cudaSuccess);
            // Combining duplicates in another order rounds differently in floating point.
            compare(type, y, expected, static_cast<size_t>(p.dataCount()), 1e-5, 1e-2);
        }
    }
}

} // namespace
} // namespace kiln::plugins
