// SPDX-License-Identifier: Apache-2.0
// What the executor's two halves share (runtime/engine_program.cpp, runtime/executor.cpp): how their messages name
// tensors, shapes and layers, and reading a shape value out of a tensor. Internal to the runtime.
#pragma once

#include "backends/host/tensor_view.h"
#include "core/data_type.h"
#include "core/error.h"
#include "network/layer_kinds.h"
#include "network/report.h"
#include "plan/engine_model.h"

#include <string>

namespace kiln::executor_detail
{

using nvinfer1::Dims;
using nvinfer1::ErrorCode;

//! 'name', as the runtime's messages quote tensors and layers.
inline std::string q(std::string const& name)
{
    return "'" + name + "'";
}

inline std::string dimsText(Dims const& dims)
{
    std::string text;
    message::append(text, dims);
    return text;
}

inline Error failure(ErrorCode code, std::string message)
{
    return Error{code, std::move(message)};
}

//! The layer for messages: 'relu' (Activation).
inline std::string layerText(LayerRecord const& layer)
{
    return "layer " + q(layer.name) + " (" + layerKindTag(layer.type) + ")";
}

inline bool isPluginLayer(LayerType type) noexcept
{
    return type == LayerType::kPLUGIN_V2 || type == LayerType::kPLUGIN_V3;
}

//! Whether a layer of this kind may make outputs whose extents are its own size tensors (known once it has run): plugin
//! layers, and the built-in kinds with data-dependent shapes (non-zero, NMS), whose kernels write the count.
inline bool makesSizeTensors(LayerType type) noexcept
{
    return isPluginLayer(type) || type == LayerType::kNON_ZERO || type == LayerType::kNMS;
}

inline bool isShapeValueType(DataType type) noexcept
{
    return type == DataType::kINT32 || type == DataType::kINT64;
}

//! Value index of a shape-value tensor, or the reason it cannot be read.
inline Expected<int64_t> readShapeValue(host::HostTensor const& view, int64_t index, std::string const& tensorName)
{
    // kBOOL: an if-conditional's condition, whose value chooses the extents of the conditional's outputs.
    if (!isShapeValueType(view.type) && view.type != DataType::kBOOL)
    {
        return failure(ErrorCode::kINVALID_ARGUMENT,
            "tensor " + q(tensorName) + " holds shape values but has type " + dataTypeName(view.type)
                + "; shape values are kINT32 or kINT64 (or the kBOOL condition of an if-conditional)");
    }
    int64_t const count = host::elementCount(view.dims);
    if (index < 0 || index >= count)
    {
        return failure(ErrorCode::kINVALID_ARGUMENT,
            "tensor " + q(tensorName) + " of shape " + dimsText(view.dims) + " has no value " + std::to_string(index));
    }
    if (view.data == nullptr)
    {
        return failure(ErrorCode::kINVALID_ARGUMENT, "tensor " + q(tensorName) + " has no data to read values from");
    }
    return host::loadInteger(view, index);
}

} // namespace kiln::executor_detail
