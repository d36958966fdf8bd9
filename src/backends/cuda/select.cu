// SPDX-License-Identifier: Apache-2.0
// CUDA ISelectLayer: out = condition ? thenInput : elseInput, the three broadcast together, the rules of
// backends/host/select.h. Elements are copied as bytes, so one kernel per element size serves every type.
#include "backends/cuda/kernels.h"
#include "backends/cuda/pointwise.cuh"
#include "backends/host/data_movement.h"
#include "backends/host/select.h"

#include <string>

namespace kiln::cuda
{
namespace
{

//! E: an unsigned integer of the element's size.
template <typename E>
__global__ void selectKernel(uint8_t const* condition, E const* thenInput, E const* elseInput, E* out, int64_t count,
    pointwise::BroadcastIndex<3> map)
{
    for (int64_t i = pointwise::firstIndex(); i < count; i += pointwise::gridStride())
    {
        int64_t at[3];
        map(i, at);
        out[i] = condition[at[0]] != 0 ? thenInput[at[1]] : elseInput[at[2]];
    }
}

template <typename E>
void launchSelect(DeviceTensor const& condition, DeviceTensor const& thenInput, DeviceTensor const& elseInput,
    DeviceTensor const& out, int64_t count, pointwise::BroadcastIndex<3> const& map, cudaStream_t stream)
{
    selectKernel<E><<<pointwise::grid(count), pointwise::kBlock, 0, stream>>>(
        static_cast<uint8_t const*>(condition.data), static_cast<E const*>(thenInput.data),
        static_cast<E const*>(elseInput.data), static_cast<E*>(out.data), count, map);
}

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "select: " + message};
}

} // namespace

Status runSelect(DeviceTensor const& condition, DeviceTensor const& thenInput, DeviceTensor const& elseInput,
    DeviceTensor const& out, Launch const& launch)
{
    Expected<host::TensorDesc> const desc = host::inferSelect(
        {}, {condition.type, condition.dims}, {thenInput.type, thenInput.dims}, {elseInput.type, elseInput.dims});
    if (!desc)
    {
        return desc.error();
    }
    if (std::optional<std::string> const mismatch = host::outputMismatch(out, desc.value().type, desc.value().dims))
    {
        return invalid(*mismatch);
    }
    for (auto const& [tensor, role] : {std::pair{&condition, "condition"}, std::pair{&thenInput, "then input"},
             std::pair{&elseInput, "else input"}, std::pair{&out, "output"}})
    {
        std::optional<Error> error = host::checkMoveTensor(*tensor, role);
        if (!error)
        {
            error = pointwise::checkTensor(*tensor, role);
        }
        if (error)
        {
            return invalid(error->message);
        }
    }
    int64_t const count = host::elementCount(out.dims);
    if (count == 0)
    {
        return host::Done{};
    }
    pointwise::BroadcastIndex<3> const map
        = pointwise::broadcastIndex<3>(out.dims, {condition.dims, thenInput.dims, elseInput.dims});
    switch (host::elementBytes(out.type))
    {
    case 1: launchSelect<uint8_t>(condition, thenInput, elseInput, out, count, map, launch.stream); break;
    case 2: launchSelect<uint16_t>(condition, thenInput, elseInput, out, count, map, launch.stream); break;
    case 4: launchSelect<uint32_t>(condition, thenInput, elseInput, out, count, map, launch.stream); break;
    case 8: launchSelect<uint64_t>(condition, thenInput, elseInput, out, count, map, launch.stream); break;
    default: return invalid(std::string("no kernel copies ") + dataTypeName(out.type) + " elements");
    }
    return pointwise::launched("the select kernel");
}

} // namespace kiln::cuda
