// SPDX-License-Identifier: Apache-2.0
// CUDA IConcatenationLayer: the inputs joined along params.axis, as the host joins them
// (backends/host/concatenation.h). The output is outer rows of (sum of the inputs' bands), an input's band being its
// axis extent times the inner extent; when there is one outer row each input is one cudaMemcpyAsync, otherwise one
// launch writes the bands of up to kChunk inputs, each thread finding its input by its place in the row.
#include "backends/cuda/data_movement.cuh"
#include "backends/cuda/kernels.h"
#include "backends/host/concatenation.h"

#include <string>
#include <vector>

namespace kiln::cuda
{

namespace
{

constexpr int32_t kChunk = 16;

//! Consecutive nonempty inputs written by one launch: their data, and where each one's band begins in the chunk's
//! part of an output row (begin[nbInputs] is the part's width).
struct Chunk
{
    int32_t nbInputs{0};
    void const* data[kChunk]{};
    int64_t begin[kChunk + 1]{};
};

template <typename Word>
__global__ void concatenationKernel(Word* __restrict__ out, int64_t count, int64_t row, int64_t offset, Chunk chunk)
{
    int64_t const width = chunk.begin[kChunk];
    for (int64_t i = firstIndex(); i < count; i += gridStride())
    {
        int64_t const o = i / width;
        int64_t const r = i - o * width;
        // The input whose band holds r (constant indices only, so the chunk stays in parameter memory).
        void const* data = chunk.data[0];
        int64_t begin = 0;
        int64_t end = chunk.begin[1];
#pragma unroll
        for (int32_t j = 1; j < kChunk; ++j)
        {
            if (j < chunk.nbInputs && chunk.begin[j] <= r)
            {
                data = chunk.data[j];
                begin = chunk.begin[j];
                end = chunk.begin[j + 1];
            }
        }
        out[o * row + offset + r] = static_cast<Word const*>(data)[o * (end - begin) + r - begin];
    }
}

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "concatenation: " + message};
}

} // namespace

Status runConcatenation(ConcatenationParams const& params, std::span<DeviceTensor const> inputs,
    DeviceTensor const& out, Launch const& launch)
{
    // The host kernel's checks, in its order and with its messages.
    std::vector<host::TensorDesc> descs;
    for (DeviceTensor const& input : inputs)
    {
        descs.push_back({input.type, input.dims});
    }
    Expected<host::TensorDesc> const desc = host::inferConcatenation(params, descs);
    if (!desc)
    {
        return desc.error();
    }
    if (std::optional<std::string> const mismatch = host::outputMismatch(out, desc.value().type, desc.value().dims))
    {
        return invalid(*mismatch);
    }
    for (std::size_t i = 0; i < inputs.size(); ++i)
    {
        if (std::optional<Error> const error = host::checkMoveTensor(inputs[i], "input " + std::to_string(i)))
        {
            return invalid(error->message);
        }
    }
    if (std::optional<Error> const error = host::checkMoveTensor(out, "output"))
    {
        return invalid(error->message);
    }
    int64_t outer = 1;
    int64_t inner = 1;
    for (int32_t d = 0; d < out.dims.nbDims; ++d)
    {
        outer *= d < params.axis ? out.dims.d[d] : 1;
        inner *= d > params.axis ? out.dims.d[d] : 1;
    }
    int64_t const row = out.dims.d[params.axis] * inner;
    if (outer * row == 0)
    {
        return host::Done{};
    }
    int64_t const bytes = host::elementBytes(out.type);
    auto* const outBytes = static_cast<std::byte*>(out.data);
    if (outer == 1)
    {
        int64_t offset = 0;
        for (DeviceTensor const& input : inputs)
        {
            int64_t const band = input.dims.d[params.axis] * inner;
            if (band > 0)
            {
                cudaError_t const status = cudaMemcpyAsync(outBytes + offset * bytes, input.data,
                    static_cast<size_t>(band * bytes), cudaMemcpyDeviceToDevice, launch.stream);
                if (status != cudaSuccess)
                {
                    return cudaFailure(status, "concatenation: cudaMemcpyAsync");
                }
            }
            offset += band;
        }
        return host::Done{};
    }
    for (std::size_t i = 0; i < inputs.size(); ++i)
    {
        if (Status aligned = checkAligned(inputs[i], "concatenation", "input " + std::to_string(i)); !aligned)
        {
            return aligned;
        }
    }
    if (Status aligned = checkAligned(out, "concatenation", "output"); !aligned)
    {
        return aligned;
    }
    // Chunks of up to kChunk consecutive nonempty inputs, each launched over outer x its part of the row.
    int64_t offset = 0;
    std::size_t next = 0;
    while (next < inputs.size())
    {
        Chunk chunk;
        int64_t const chunkOffset = offset;
        for (; next < inputs.size() && chunk.nbInputs < kChunk; ++next)
        {
            int64_t const band = inputs[next].dims.d[params.axis] * inner;
            if (band == 0)
            {
                continue;
            }
            chunk.data[chunk.nbInputs] = inputs[next].data;
            chunk.begin[chunk.nbInputs] = offset - chunkOffset;
            ++chunk.nbInputs;
            offset += band;
        }
        int64_t const width = offset - chunkOffset;
        for (int32_t j = chunk.nbInputs; j <= kChunk; ++j)
        {
            chunk.begin[j] = width;
        }
        if (chunk.nbInputs == 0)
        {
            break;
        }
        int64_t const count = outer * width;
        dispatchWord(bytes, [&]<typename Word>() {
            concatenationKernel<Word><<<gridFor(count), kBlock, 0, launch.stream>>>(
                static_cast<Word*>(out.data), count, row, chunkOffset, chunk);
        });
        if (Status status = launched("concatenation: kernel launch"); !status)
        {
            return status;
        }
    }
    return host::Done{};
}

} // namespace kiln::cuda
