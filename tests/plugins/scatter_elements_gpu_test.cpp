// SPDX-License-Identifier: Apache-2.0
// ScatterElements's CUDA kernel against its host implementation: every reduction and type (FP32, FP16, INT32,
// INT64), random ranks and axes, negative indices and indices outside the axis, duplicate targets for the combining
// reductions (on values that combine exactly in any order) and distinct ones for none (whose winner the GPU does not
// fix); the results must be equal (label gpu; skips without a GPU).
#include "gpu_compare.h"
#include "scatter_elements.h"

#include <cmath>
#include <cstring>

namespace kiln::plugins
{
namespace
{

using nvinfer1::DataType;

class ScatterElementsGpu : public test::GpuCompare
{
protected:
    //! n values of type that combine exactly in any order, so that the GPU's order of combining duplicates does not
    //! matter: for mul, powers of two (0.5, 1, 2); otherwise multiples of 1/8 in [-20, 20] (sums of a few stay exact
    //! in FP16 and FP32).
    std::vector<uint8_t> exactValues(DataType type, size_t n, bool mul)
    {
        if (type == DataType::kINT32 || type == DataType::kINT64)
        {
            return random(type, n, mul ? -3.F : -20.F, mul ? 3.F : 20.F);
        }
        std::vector<uint8_t> bytes(n * elementSize(type));
        for (size_t i = 0; i < n; ++i)
        {
            float const v = mul ? std::ldexp(1.0F, static_cast<int>(mRng() % 3) - 1)
                                : static_cast<float>(static_cast<int>(mRng() % 321) - 160) / 8.0F;
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
            std::vector<uint8_t> const data = exactValues(type, static_cast<size_t>(p.dataCount()), mul);
            std::vector<uint8_t> const updates = exactValues(type, count, mul);
            std::vector<uint8_t> expected(data.size());
            runScatterElementsHost(p, type, data.data(), indices.data(), updates.data(), expected.data());
            void* y = upload(std::vector<uint8_t>(expected.size()));
            ASSERT_EQ(launchScatterElements(p, type, upload(data), static_cast<int64_t const*>(upload(indices)),
                          upload(updates), y, mStream),
                cudaSuccess);
            compare(type, y, expected, static_cast<size_t>(p.dataCount()), 0.0, 0.0); // exact: see exactValues()
        }
    }
}

} // namespace
} // namespace kiln::plugins
