// SPDX-License-Identifier: Apache-2.0
// CUDA IGatherLayer in its three modes, as the host gathers (backends/host/gather.h). In every mode an output element's
// coordinates give, linearly, a position in the indices and a partial offset in the data; the element then reads
// nbLookups consecutive indices from that position (1 for kDEFAULT and kELEMENT, the indices' last extent m for kND),
// each selecting a coordinate of one data dimension. The host turns each mode into those strides (GatherPlan), so one
// kernel serves the three.
//
// kDEFAULT without element-wise dimensions copies whole rows, 16 bytes a thread, where the row's bytes allow it (an
// embedding lookup); everything else goes element by element.
//
// Out-of-range indices: the host refuses an index outside [0, extent) (negative ones included: they do not wrap), but
// the device cannot report it without synchronizing. The kernel writes zero bytes into every output element that
// reads such an index (0 for every type, false for kBOOL) and never reads outside the data.
#include "backends/cuda/data_movement.cuh"
#include "backends/cuda/kernels.h"
#include "backends/host/gather.h"

#include <cstdint>
#include <string>

namespace kiln::cuda
{

namespace
{

using nvinfer1::GatherMode;

//! Per output dimension, its extent and the strides of its coordinate in the data and in the indices; per lookup, the
//! extent and stride of the data dimension the index selects.
struct GatherPlan
{
    int32_t rank{0};
    int32_t nbLookups{1};
    int64_t extents[kMaxDims]{};
    int64_t dataStrides[kMaxDims]{};
    int64_t indexStrides[kMaxDims]{};
    int64_t lookupExtents[kMaxDims]{};
    int64_t lookupStrides[kMaxDims]{};
};

template <typename Word, typename IndexT>
__global__ void gatherKernel(Word const* __restrict__ data, IndexT const* __restrict__ indices, Word* __restrict__ out,
    int64_t count, GatherPlan plan)
{
    for (int64_t o = firstIndex(); o < count; o += gridStride())
    {
        int64_t index = o;
        int64_t source = 0;
        int64_t position = 0;
#pragma unroll
        for (int32_t i = kMaxDims - 1; i >= 0; --i)
        {
            if (i < plan.rank)
            {
                int64_t const next = index / plan.extents[i];
                int64_t const c = index - next * plan.extents[i];
                source += c * plan.dataStrides[i];
                position += c * plan.indexStrides[i];
                index = next;
            }
        }
        bool inside = true;
#pragma unroll
        for (int32_t j = 0; j < kMaxDims; ++j)
        {
            if (j < plan.nbLookups)
            {
                auto const value = static_cast<int64_t>(indices[position + j]);
                if (value >= 0 && value < plan.lookupExtents[j])
                {
                    source += value * plan.lookupStrides[j];
                }
                else
                {
                    inside = false;
                }
            }
        }
        out[o] = inside ? data[source] : Word{0};
    }
}

//! kDEFAULT without element-wise dimensions, as whole rows: out [outer][lookups][inner] = data [outer][axis extent]
//! [inner] at the indices, 16 bytes a thread (the rows' bytes a multiple of 16, every pointer 16-byte aligned): an
//! embedding lookup at memory bandwidth. Out-of-range indices give zero rows, as in gatherKernel.
template <typename IndexT>
__global__ void gatherRowsKernel(uint4 const* __restrict__ data, IndexT const* __restrict__ indices,
    uint4* __restrict__ out, int64_t chunks, int64_t rowChunks, int64_t lookups, int64_t extent)
{
    for (int64_t g = firstIndex(); g < chunks; g += gridStride())
    {
        int64_t const row = g / rowChunks;
        int64_t const chunk = g - row * rowChunks;
        int64_t const outer = row / lookups;
        auto const value = static_cast<int64_t>(indices[row - outer * lookups]);
        out[g] = value >= 0 && value < extent ? data[(outer * extent + value) * rowChunks + chunk] : uint4{0, 0, 0, 0};
    }
}

Error invalid(char const* mode, std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, std::string("gather ") + mode + ": " + message};
}

//! The plan of params on data and indices, whose shapes inferGather has accepted with the output shape out.
GatherPlan planOf(GatherParams const& params, Dims const& data, Dims const& indices, Dims const& out)
{
    int32_t const r = data.nbDims;
    int32_t const q = indices.nbDims;
    int32_t const k = params.nbElementWiseDims;
    host::Index const ds = host::rowMajorStrides(data);
    host::Index const is = host::rowMajorStrides(indices);
    auto const at = [](host::Index const& strides, int32_t i) { return strides[static_cast<std::size_t>(i)]; };
    GatherPlan plan;
    plan.rank = out.nbDims;
    for (int32_t d = 0; d < out.nbDims; ++d)
    {
        plan.extents[d] = out.d[d];
    }
    switch (params.mode)
    {
    case GatherMode::kDEFAULT:
        // out = data[:axis] + indices[k:] + data[axis + 1:]; with k == 1 out dimension 0 also walks indices dimension
        // 0.
        for (int32_t d = 0; d < out.nbDims; ++d)
        {
            if (d < params.axis)
            {
                plan.dataStrides[d] = at(ds, d);
                plan.indexStrides[d] = d == 0 && k == 1 ? at(is, 0) : 0;
            }
            else if (d < params.axis + q - k)
            {
                plan.indexStrides[d] = at(is, d - params.axis + k);
            }
            else
            {
                plan.dataStrides[d] = at(ds, d - (q - k) + 1);
            }
        }
        plan.lookupExtents[0] = data.d[params.axis];
        plan.lookupStrides[0] = at(ds, params.axis);
        break;
    case GatherMode::kELEMENT:
        // out has the indices' shape; the index replaces the coordinate along axis.
        for (int32_t d = 0; d < r; ++d)
        {
            plan.dataStrides[d] = d == params.axis ? 0 : at(ds, d);
            plan.indexStrides[d] = at(is, d);
        }
        plan.lookupExtents[0] = data.d[params.axis];
        plan.lookupStrides[0] = at(ds, params.axis);
        break;
    case GatherMode::kND:
    {
        // out = indices[:q - 1] + data[k + m:]; the m indices of a row select data dimensions k .. k + m - 1.
        auto const m = static_cast<int32_t>(indices.d[q - 1]);
        for (int32_t d = 0; d < out.nbDims; ++d)
        {
            if (d < q - 1)
            {
                plan.indexStrides[d] = at(is, d);
                plan.dataStrides[d] = d == 0 && k == 1 ? at(ds, 0) : 0;
            }
            else
            {
                plan.dataStrides[d] = at(ds, d - (q - 1) + k + m);
            }
        }
        plan.nbLookups = m;
        for (int32_t j = 0; j < m; ++j)
        {
            plan.lookupExtents[j] = data.d[k + j];
            plan.lookupStrides[j] = at(ds, k + j);
        }
        break;
    }
    }
    return plan;
}

} // namespace

Status runGather(GatherParams const& params, DeviceTensor const& data, DeviceTensor const& indices,
    DeviceTensor const& out, Launch const& launch)
{
    // The host kernel's checks, in its order and with its messages (but for the index values, see the file comment).
    Expected<host::TensorDesc> const desc
        = host::inferGather(params, {data.type, data.dims}, {indices.type, indices.dims});
    if (!desc)
    {
        return desc.error();
    }
    char const* const name = host::gatherModes()[static_cast<std::size_t>(params.mode)].name;
    if (std::optional<std::string> const mismatch = host::outputMismatch(out, data.type, desc.value().dims))
    {
        return invalid(name, *mismatch);
    }
    for (auto const& [tensor, role] : {std::pair{&data, "data"}, std::pair{&indices, "indices"}, {&out, "output"}})
    {
        if (std::optional<Error> const error = host::checkMoveTensor(*tensor, role))
        {
            return invalid(name, error->message);
        }
    }
    int64_t const count = host::elementCount(out.dims);
    if (count == 0)
    {
        return host::Done{};
    }
    for (auto const& [tensor, role] : {std::pair{&data, "data"}, std::pair{&indices, "indices"}, {&out, "output"}})
    {
        if (Status aligned = checkAligned(*tensor, std::string("gather ") + name, role); !aligned)
        {
            return aligned;
        }
    }
    bool const wide = indices.type == DataType::kINT64;
    if (params.mode == GatherMode::kDEFAULT && params.nbElementWiseDims == 0)
    {
        // Whole rows of 16-byte chunks where the bytes after the axis allow it.
        int64_t inner = host::elementBytes(data.type); // Bytes of a row: the extents after the axis.
        int64_t outer = 1;                             // Rows before the axis.
        for (int32_t d = 0; d < params.axis; ++d)
        {
            outer *= data.dims.d[d];
        }
        for (int32_t d = params.axis + 1; d < data.dims.nbDims; ++d)
        {
            inner *= data.dims.d[d];
        }
        bool const aligned = inner % 16 == 0 && reinterpret_cast<uintptr_t>(data.data) % 16 == 0
            && reinterpret_cast<uintptr_t>(out.data) % 16 == 0;
        if (aligned)
        {
            int64_t const rowChunks = inner / 16;
            int64_t const lookups = host::elementCount(indices.dims);
            int64_t const chunks = outer * lookups * rowChunks;
            auto const* const source = static_cast<uint4 const*>(data.data);
            auto* const target = static_cast<uint4*>(out.data);
            int64_t const extent = data.dims.d[params.axis];
            if (wide)
            {
                gatherRowsKernel<int64_t><<<gridFor(chunks), kBlock, 0, launch.stream>>>(
                    source, static_cast<int64_t const*>(indices.data), target, chunks, rowChunks, lookups, extent);
            }
            else
            {
                gatherRowsKernel<int32_t><<<gridFor(chunks), kBlock, 0, launch.stream>>>(
                    source, static_cast<int32_t const*>(indices.data), target, chunks, rowChunks, lookups, extent);
            }
            return launched("gather: kernel launch");
        }
    }
    GatherPlan const plan = planOf(params, data.dims, indices.dims, out.dims);
    dispatchWord(host::elementBytes(data.type), [&]<typename Word>() {
        auto const* const source = static_cast<Word const*>(data.data);
        auto* const target = static_cast<Word*>(out.data);
        if (wide)
        {
            gatherKernel<Word, int64_t><<<gridFor(count), kBlock, 0, launch.stream>>>(
                source, static_cast<int64_t const*>(indices.data), target, count, plan);
        }
        else
        {
            gatherKernel<Word, int32_t><<<gridFor(count), kBlock, 0, launch.stream>>>(
                source, static_cast<int32_t const*>(indices.data), target, count, plan);
        }
    });
    return launched("gather: kernel launch");
}

} // namespace kiln::cuda
