// SPDX-License-Identifier: Apache-2.0
#include "plan/engine_model.h"

namespace kiln
{

int32_t EngineModel::findTensor(std::string const& tensorName) const noexcept
{
    for (std::size_t i = 0; i < tensors.size(); ++i)
    {
        if (tensors[i].name == tensorName)
        {
            return static_cast<int32_t>(i);
        }
    }
    return kNoTensor;
}

Weights EngineModel::weightsOf(int32_t index) const noexcept
{
    if (index < 0 || static_cast<std::size_t>(index) >= weights.size())
    {
        return Weights{DataType::kFLOAT, nullptr, 0};
    }
    WeightsBlob const& blob = weights[static_cast<std::size_t>(index)];
    return Weights{blob.type, blob.bytes.data(), blob.count};
}

} // namespace kiln
