// SPDX-License-Identifier: Apache-2.0
// CUDA IScatterLayer: the data copied to the output (cudaMemcpyAsync, none in place), then one thread per update
// element writing it where host::scatterTarget's rule says (the same arithmetic, on the device): negative indices
// from the end of their axis, out-of-range ones skipped. Elements move as words of their size, so one kernel per
// element size serves every type. Where indices repeat, which update is kept is unspecified (the host keeps the last).
#include "backends/cuda/data_movement.cuh"
#include "backends/cuda/kernels.h"
#include "backends/host/scatter.h"

#include <string>

namespace kiln::cuda
{
namespace
{

//! host::ScatterGeometry with plain arrays, passed to the kernel by value.
struct Geometry
{
    int32_t element; //!< 1 for kELEMENT, 0 for kND.
    int32_t rank;
    int64_t extents[kMaxDims];
    int64_t strides[kMaxDims];
    int64_t dataDims[kMaxDims];
    int32_t axis;
    int32_t tupleLength;
    int64_t sliceSize;
};

Geometry geometryOf(host::ScatterGeometry const& g)
{
    Geometry out{};
    out.element = g.mode == nvinfer1::ScatterMode::kELEMENT ? 1 : 0;
    out.rank = g.rank;
    for (int32_t i = 0; i < kMaxDims; ++i)
    {
        auto const a = static_cast<std::size_t>(i);
        out.extents[i] = g.extents[a];
        out.strides[i] = g.strides[a];
        out.dataDims[i] = g.dataDims[a];
    }
    out.axis = g.axis;
    out.tupleLength = g.tupleLength;
    out.sliceSize = g.sliceSize;
    return out;
}

//! i made non-negative by adding extent to a negative index.
__device__ __forceinline__ int64_t wrapIndex(int64_t i, int64_t extent)
{
    return i < 0 ? i + extent : i;
}

//! The data element update u goes to, or -1 (host::scatterTarget's rule).
template <typename I>
__device__ __forceinline__ int64_t targetOf(Geometry const& g, I const* indices, int64_t u)
{
    int64_t target = 0;
    if (g.element != 0)
    {
        int64_t rest = u;
#pragma unroll
        for (int32_t d = kMaxDims - 1; d >= 0; --d)
        {
            if (d >= g.rank)
            {
                continue;
            }
            int64_t coordinate = rest % g.extents[d];
            rest /= g.extents[d];
            if (d == g.axis)
            {
                coordinate = wrapIndex(static_cast<int64_t>(indices[u]), g.dataDims[d]);
                if (coordinate < 0 || coordinate >= g.dataDims[d])
                {
                    return -1;
                }
            }
            target += coordinate * g.strides[d];
        }
        return target;
    }
    int64_t const tuple = u / g.sliceSize;
    target = u % g.sliceSize;
#pragma unroll
    for (int32_t j = 0; j < kMaxDims; ++j)
    {
        if (j >= g.tupleLength)
        {
            break;
        }
        int64_t const coordinate = wrapIndex(static_cast<int64_t>(indices[tuple * g.tupleLength + j]), g.dataDims[j]);
        if (coordinate < 0 || coordinate >= g.dataDims[j])
        {
            return -1;
        }
        target += coordinate * g.strides[j];
    }
    return target;
}

template <typename Word, typename I>
__global__ void scatterKernel(I const* indices, Word const* updates, Word* out, int64_t count, Geometry g)
{
    for (int64_t u = firstIndex(); u < count; u += gridStride())
    {
        int64_t const target = targetOf(g, indices, u);
        if (target >= 0)
        {
            out[target] = updates[u];
        }
    }
}

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "scatter: " + message};
}

} // namespace

Status runScatter(ScatterParams const& params, DeviceTensor const& data, DeviceTensor const& indices,
    DeviceTensor const& updates, DeviceTensor const& out, Launch const& launch)
{
    Expected<host::TensorDesc> const desc = host::inferScatter(
        params, {data.type, data.dims}, {indices.type, indices.dims}, {updates.type, updates.dims});
    if (!desc)
    {
        return desc.error();
    }
    if (std::optional<std::string> const mismatch = host::outputMismatch(out, desc.value().type, desc.value().dims))
    {
        return invalid(*mismatch);
    }
    for (auto const& [tensor, role] : {std::pair{&data, "data"}, std::pair{&indices, "indices"},
             std::pair{&updates, "updates"}, std::pair{&out, "output"}})
    {
        if (std::optional<Error> const error = host::checkMoveTensor(*tensor, role))
        {
            return invalid(error->message);
        }
        if (Status aligned = checkAligned(*tensor, "scatter", role); !aligned)
        {
            return aligned;
        }
    }
    int64_t const bytes = host::elementCount(data.dims) * host::elementBytes(data.type);
    if (bytes > 0 && out.data != data.data)
    {
        cudaError_t const status
            = cudaMemcpyAsync(out.data, data.data, static_cast<size_t>(bytes), cudaMemcpyDeviceToDevice, launch.stream);
        if (status != cudaSuccess)
        {
            return cudaFailure(status, "scatter: cudaMemcpyAsync of the data");
        }
    }
    host::ScatterGeometry const g = host::scatterGeometry(params, data.dims, indices.dims, updates.dims);
    if (g.updates == 0)
    {
        return host::Done{};
    }
    Geometry const geometry = geometryOf(g);
    bool const wide = indices.type == DataType::kINT64;
    bool const known = dispatchWord(host::elementBytes(data.type), [&]<typename Word>() {
        auto const* source = static_cast<Word const*>(updates.data);
        auto* target = static_cast<Word*>(out.data);
        if (wide)
        {
            scatterKernel<Word, int64_t><<<gridFor(g.updates), kBlock, 0, launch.stream>>>(
                static_cast<int64_t const*>(indices.data), source, target, g.updates, geometry);
        }
        else
        {
            scatterKernel<Word, int32_t><<<gridFor(g.updates), kBlock, 0, launch.stream>>>(
                static_cast<int32_t const*>(indices.data), source, target, g.updates, geometry);
        }
    });
    if (!known)
    {
        return invalid(std::string("no kernel moves ") + dataTypeName(data.type) + " elements");
    }
    return launched("scatter: kernel launch");
}

} // namespace kiln::cuda
