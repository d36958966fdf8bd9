// SPDX-License-Identifier: Apache-2.0
#include "plan/model_support.h"

#include "core/data_type.h"

#include <algorithm>
#include <limits>

namespace kiln
{

std::string layerText(EngineModel const& model, std::size_t index)
{
    return cat("layer ", index, " (", quotedText(model.layers[index].name), ")");
}

std::string tensorText(EngineModel const& model, int64_t index)
{
    return cat("tensor ", index, " (", quotedText(model.tensors[static_cast<std::size_t>(index)].name), ")");
}

int64_t weightsBytes(DataType type, int64_t count) noexcept
{
    return count > std::numeric_limits<int64_t>::max() / 8 ? -1 : storageBytes(type, count);
}

BlobFinder::BlobFinder(std::vector<WeightsBlob> const& blobs)
    : mBlobs(blobs)
{
    for (std::size_t i = 0; i < blobs.size(); ++i)
    {
        if (!blobs[i].view().empty())
        {
            mStarts.push_back({reinterpret_cast<uintptr_t>(blobs[i].view().data()), static_cast<int32_t>(i)});
        }
    }
    std::sort(mStarts.begin(), mStarts.end(), [](Start a, Start b) { return a.address < b.address; });
}

std::optional<WeightsPlace> BlobFinder::find(Weights const& weights) const noexcept
{
    auto const address = reinterpret_cast<uintptr_t>(weights.values);
    auto const after = std::upper_bound(mStarts.begin(), mStarts.end(), address,
        [](uintptr_t value, Start const& start) { return value < start.address; });
    if (after == mStarts.begin())
    {
        return std::nullopt;
    }
    Start const& start = *(after - 1);
    auto const blobBytes = static_cast<uint64_t>(mBlobs[static_cast<std::size_t>(start.blob)].view().size());
    uint64_t const offset = address - start.address;
    int64_t const bytes = weightsBytes(weights.type, weights.count);
    if (offset >= blobBytes || bytes < 0 || static_cast<uint64_t>(bytes) > blobBytes - offset)
    {
        return std::nullopt;
    }
    return WeightsPlace{start.blob, static_cast<int64_t>(offset)};
}

} // namespace kiln
