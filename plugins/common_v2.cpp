// SPDX-License-Identifier: Apache-2.0
#include "common_v2.h"

KILN_IGNORE_DEPRECATED_BEGIN

namespace kiln::plugins
{

nvinfer1::DataType OneOutputPluginV2::getOutputDataType(
    int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept
{
    if (index != 0 || nbInputs < 1 || inputTypes == nullptr)
    {
        logError(getPluginType(), "has one output, of the type of input 0");
        return nvinfer1::DataType::kFLOAT;
    }
    return inputTypes[0];
}

} // namespace kiln::plugins

KILN_IGNORE_DEPRECATED_END
