// SPDX-License-Identifier: Apache-2.0
// What the plan codec (plan/engine_encoder.cpp and plan/engine_decoder.cpp) and the model checks (plan/model_check.cpp)
// share: how messages name a model's records, index ranges, and where weights lie among the model's blobs.
//
//     BlobFinder blobs(model.weights);
//     if (!blobs.find(weights)) { return cat(layerText(model, l), ": the weights are outside every blob"); }
#pragma once

#include "network/report.h"
#include "plan/engine_model.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln
{

//! The text of parts (texts, Quoted, integers, enums, floating point numbers).
template <typename... Parts>
std::string cat(Parts const&... parts)
{
    std::string text;
    (message::append(text, parts), ...);
    return text;
}

//! Whether index is a valid position in a sequence of size elements.
constexpr bool inRange(int64_t index, std::size_t size) noexcept
{
    return index >= 0 && static_cast<uint64_t>(index) < size;
}

//! `layer 3 ("pool")`: how messages name model.layers[index].
std::string layerText(EngineModel const& model, std::size_t index);

//! `tensor 5 ("x")`: how messages name model.tensors[index].
std::string tensorText(EngineModel const& model, int64_t index);

//! The bytes count elements of type take, or -1 when that is more than int64_t holds (a hostile count; storageBytes
//! itself would overflow).
int64_t weightsBytes(DataType type, int64_t count) noexcept;

//! Where weights lie in EngineModel::weights.
struct WeightsPlace
{
    int32_t blob{-1};
    int64_t offset{};
};

//! Finds the blob holding a pointer: the blobs sorted by address.
class BlobFinder
{
public:
    explicit BlobFinder(std::vector<WeightsBlob> const& blobs);

    //! The blob and byte offset of all the bytes of weights (count > 0), or nullopt when no one blob holds them.
    std::optional<WeightsPlace> find(Weights const& weights) const noexcept;

private:
    struct Start
    {
        uintptr_t address;
        int32_t blob;
    };
    std::vector<WeightsBlob> const& mBlobs;
    std::vector<Start> mStarts;
};

} // namespace kiln
