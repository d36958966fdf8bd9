// SPDX-License-Identifier: Apache-2.0
// CUDA kernel of ICumulativeLayer, with the semantics of the host reference (backends/host/cumulative.h): one thread
// per line along the axis walks it once, as the host does, keeping the running sum in double (floating types) or
// int64_t wrapping around (integers), so that each output is the host's sum rounded once to the output type (through
// float for kHALF and kBF16). Consecutive threads take lines next to each other in memory when the axis is not the
// innermost one.
#include "backends/cuda/elements.cuh"
#include "backends/cuda/kernels.h"
#include "backends/host/cumulative.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

namespace kiln::cuda
{

namespace
{

constexpr int64_t kMaxBlocks = 65535;
constexpr uint32_t kThreads = 256;

//! The lines of a tensor along the axis: outer * inner lines of extent elements, element j of line (o, i) at
//! (o * extent + j) * inner + i.
struct Lines
{
    int64_t outer{1};
    int64_t extent{1};
    int64_t inner{1};
    bool exclusive{};
    bool reverse{};
};

template <DataType T>
inline constexpr bool kSums = T == DataType::kFLOAT || T == DataType::kHALF || T == DataType::kBF16
    || T == DataType::kINT32 || T == DataType::kINT64;

template <DataType T>
__global__ void cumulate(Storage<T> const* in, Storage<T>* out, Lines const s)
{
    int64_t const count = s.outer * s.inner;
    for (int64_t line = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; line < count;
         line += int64_t{gridDim.x} * blockDim.x)
    {
        int64_t const o = line / s.inner;
        int64_t const i = line % s.inner;
        if constexpr (T == DataType::kINT32 || T == DataType::kINT64)
        {
            uint64_t running = 0;
            for (int64_t step = 0; step < s.extent; ++step)
            {
                int64_t const j = s.reverse ? s.extent - 1 - step : step;
                int64_t const index = (o * s.extent + j) * s.inner + i;
                auto const value = static_cast<uint64_t>(loadInteger<T>(in, index));
                if (s.exclusive)
                {
                    storeInteger<T>(out, index, static_cast<int64_t>(running));
                }
                running += value;
                if (!s.exclusive)
                {
                    storeInteger<T>(out, index, static_cast<int64_t>(running));
                }
            }
        }
        else
        {
            double running = 0.0;
            for (int64_t step = 0; step < s.extent; ++step)
            {
                int64_t const j = s.reverse ? s.extent - 1 - step : step;
                int64_t const index = (o * s.extent + j) * s.inner + i;
                double const value = loadFloat<T>(in, index);
                if (s.exclusive)
                {
                    storeFloat<T>(out, index, static_cast<float>(running));
                }
                running += value;
                if (!s.exclusive)
                {
                    storeFloat<T>(out, index, static_cast<float>(running));
                }
            }
        }
    }
}

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "cumulative: " + message};
}

} // namespace

Status runCumulative(
    CumulativeParams const& params, DeviceTensor const& in, DeviceTensor const& out, Launch const& launch)
{
    Expected<host::TensorDesc> const desc = host::inferCumulative(params, {in.type, in.dims});
    if (!desc)
    {
        return desc.error();
    }
    if (std::optional<std::string> const mismatch = host::outputMismatch(out, in.type, in.dims))
    {
        return invalid(*mismatch);
    }
    for (auto const& [tensor, role] : {std::pair{&in, "input 0"}, std::pair{&out, "output"}})
    {
        if (std::optional<Error> const error = host::checkTensor(*tensor, role))
        {
            return invalid(error->message);
        }
    }
    Lines lines;
    lines.exclusive = params.exclusive;
    lines.reverse = params.reverse;
    for (int32_t a = 0; a < in.dims.nbDims; ++a)
    {
        (a < params.axis ? lines.outer : a == params.axis ? lines.extent : lines.inner) *= in.dims.d[a];
    }
    int64_t const count = lines.outer * lines.inner;
    if (count == 0 || lines.extent == 0)
    {
        return host::Done{};
    }
    int64_t const blocks = std::min(kMaxBlocks, (count + kThreads - 1) / kThreads);
    dispatchType(in.type, [&]<DataType T>() {
        if constexpr (kSums<T>)
        {
            cumulate<T><<<static_cast<uint32_t>(blocks), kThreads, 0, launch.stream>>>(
                static_cast<Storage<T> const*>(in.data), static_cast<Storage<T>*>(out.data), lines);
        }
    });
    if (cudaError_t const status = cudaGetLastError(); status != cudaSuccess)
    {
        return cudaFailure(status, "launching the cumulative kernel");
    }
    return host::Done{};
}

} // namespace kiln::cuda
