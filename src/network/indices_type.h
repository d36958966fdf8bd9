// SPDX-License-Identifier: Apache-2.0
// The check of the layers with an indices type (ITopKLayer, INonZeroLayer, INMSLayer): setIndicesType takes kINT32
// or kINT64 and reports anything else on the layer.
//
//     if (!checkIndicesType(mLayer, type)) { return false; }
#pragma once

#include "core/data_type.h"
#include "network/checks.h"
#include "network/layer.h"

namespace kiln
{

//! Whether type is kINT32 or kINT64; else reports it as setIndicesType's argument on layer.
inline bool checkIndicesType(Layer const& layer, DataType type) noexcept
{
    if (isIndexType(type))
    {
        return true;
    }
    layer.fail("setIndicesType", "the indices type ", dataTypeName(type), " (", type, ") is not kINT32 or kINT64");
    return false;
}

} // namespace kiln
