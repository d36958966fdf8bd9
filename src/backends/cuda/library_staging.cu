// SPDX-License-Identifier: Apache-2.0
// The staging copies around the cuBLASLt and cuDNN calls (library_staging.h): elementwise conversion with an optional
// bias per channel and activation (activation.cuh's functions), zero padding of the spatial axes, and channels-last
// rows narrowed to fewer padded channels. The element type
// is a kernel argument, read through one uniform switch per element: these copies are memory-bound and rare enough that
// one instantiation serves every pair.
#include "backends/cuda/activation.cuh"
#include "backends/cuda/data_movement.cuh"
#include "backends/cuda/elements.cuh"
#include "backends/cuda/kernels.h"
#include "backends/cuda/library_staging.h"
#include "backends/host/activation.h"

#include <algorithm>
#include <string>

namespace kiln::cuda
{

namespace
{

constexpr int32_t kThreads = 256;
constexpr int64_t kMaxBlocks = 65535;

__device__ __forceinline__ float loadAny(void const* p, DataType type, int64_t i, float scale)
{
    switch (type)
    {
    case DataType::kHALF: return loadFloat<DataType::kHALF>(static_cast<__half const*>(p), i);
    case DataType::kBF16: return loadFloat<DataType::kBF16>(static_cast<__nv_bfloat16 const*>(p), i);
    case DataType::kINT8: return loadFloat<DataType::kINT8>(static_cast<int8_t const*>(p), i, scale);
    case DataType::kFP8: return loadFloat<DataType::kFP8>(static_cast<__nv_fp8_e4m3 const*>(p), i, scale);
    default: return loadFloat<DataType::kFLOAT>(static_cast<float const*>(p), i);
    }
}

__device__ __forceinline__ void storeAny(void* p, DataType type, int64_t i, float value, float scale)
{
    switch (type)
    {
    case DataType::kHALF: storeFloat<DataType::kHALF>(static_cast<__half*>(p), i, value); break;
    case DataType::kBF16: storeFloat<DataType::kBF16>(static_cast<__nv_bfloat16*>(p), i, value); break;
    case DataType::kINT8: storeFloat<DataType::kINT8>(static_cast<int8_t*>(p), i, value, scale); break;
    case DataType::kFP8: storeFloat<DataType::kFP8>(static_cast<__nv_fp8_e4m3*>(p), i, value, scale); break;
    default: storeFloat<DataType::kFLOAT>(static_cast<float*>(p), i, value); break;
    }
}

__global__ void convertKernel(StagedElements in, void* out, DataType outType, float outScale, int64_t count,
    StagedBias bias, StagedActivation activation, StagedElements residual)
{
    int64_t const step = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step)
    {
        float value = in.data == nullptr ? 0.F : loadAny(in.data, in.type, i, in.scale);
        if (bias.data != nullptr)
        {
            value += loadAny(bias.data, bias.type, i / bias.inner % bias.channels, 1.F);
        }
        if (residual.data != nullptr)
        {
            value += loadAny(residual.data, residual.type, i, residual.scale);
        }
        if (activation.present)
        {
            value = activation::apply(activation.type, value, activation.alpha, activation.beta);
        }
        storeAny(out, outType, i, value, outScale);
    }
}

//! The extents of a padded [N, C, spatial...] copy, as a kernel argument.
struct PadShape
{
    int32_t nbSpatial;
    int64_t planes; //!< N * C.
    int64_t in[3];
    int64_t out[3];
    int64_t pre[3];
};

__global__ void padKernel(StagedElements in, void* out, DataType outType, float outScale, int64_t count, PadShape s)
{
    int64_t const step = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step)
    {
        int64_t rest = i;
        int64_t source = 0;
        int64_t sourceStride = 1;
        bool inside = true;
        for (int32_t a = s.nbSpatial - 1; a >= 0; --a)
        {
            int64_t const at = rest % s.out[a] - s.pre[a];
            rest /= s.out[a];
            inside = inside && at >= 0 && at < s.in[a];
            source += at * sourceStride;
            sourceStride *= s.in[a];
        }
        float const value = inside ? loadAny(in.data, in.type, rest * sourceStride + source, in.scale) : 0.F;
        storeAny(out, outType, i, value, outScale);
    }
}

unsigned blocksFor(int64_t count)
{
    return static_cast<unsigned>(std::clamp<int64_t>((count + kThreads - 1) / kThreads, 1, kMaxBlocks));
}

bool staged(DataType type)
{
    return type == DataType::kFLOAT || type == DataType::kHALF || type == DataType::kBF16 || type == DataType::kINT8
        || type == DataType::kFP8;
}

Error unstaged(char const* what, DataType type)
{
    return Error{nvinfer1::ErrorCode::kINTERNAL_ERROR,
        std::string(what) + ": the staging copies do not take " + dataTypeName(type) + " elements"};
}

//! Rows of 16 bytes to rows of 8: one vector load and one store per row.
__global__ void narrowHalfRowsKernel(uint4 const* __restrict__ in, uint2* __restrict__ out, int64_t rows)
{
    for (int64_t r = firstIndex(); r < rows; r += gridStride())
    {
        uint4 const row = in[r];
        out[r] = make_uint2(row.x, row.y);
    }
}

template <typename Word>
__global__ void narrowRowsKernel(
    Word const* __restrict__ in, Word* __restrict__ out, int64_t rows, int64_t wide, int64_t narrow)
{
    int64_t const count = rows * narrow;
    for (int64_t e = firstIndex(); e < count; e += gridStride())
    {
        int64_t const row = e / narrow;
        out[e] = in[row * wide + (e - row * narrow)];
    }
}

} // namespace

host::Status narrowChannels(
    void const* in, void* out, int64_t rows, int64_t wide, int64_t narrow, int64_t elementBytes, cudaStream_t stream)
{
    if (narrow <= 0 || narrow > wide)
    {
        return Error{nvinfer1::ErrorCode::kINTERNAL_ERROR,
            "narrowChannels: rows of " + std::to_string(wide) + " cannot narrow to " + std::to_string(narrow)};
    }
    if (rows <= 0)
    {
        return host::Done{};
    }
    bool const vectors = wide * elementBytes == 16 && narrow * elementBytes == 8
        && reinterpret_cast<uintptr_t>(in) % 16 == 0 && reinterpret_cast<uintptr_t>(out) % 8 == 0;
    if (vectors)
    {
        narrowHalfRowsKernel<<<blocksFor(rows), kThreads, 0, stream>>>(
            static_cast<uint4 const*>(in), static_cast<uint2*>(out), rows);
    }
    else
    {
        bool const known = dispatchWord(elementBytes, [&]<typename Word>() {
            narrowRowsKernel<Word><<<blocksFor(rows * narrow), kThreads, 0, stream>>>(
                static_cast<Word const*>(in), static_cast<Word*>(out), rows, wide, narrow);
        });
        if (!known)
        {
            return Error{nvinfer1::ErrorCode::kINTERNAL_ERROR,
                "narrowChannels: elements of " + std::to_string(elementBytes) + " bytes are not supported"};
        }
    }
    if (cudaError_t const status = cudaGetLastError(); status != cudaSuccess)
    {
        return cudaFailure(status, "narrowChannels launch");
    }
    return host::Done{};
}

host::Status convertElements(StagedElements const& in, StagedElements const& out, int64_t count, cudaStream_t stream,
    StagedBias const& bias, StagedActivation const& activation, StagedElements const& residual)
{
    if (activation.present && host::findActivation(activation.type) == nullptr)
    {
        return Error{nvinfer1::ErrorCode::kINTERNAL_ERROR,
            "convertElements: unknown ActivationType " + std::to_string(static_cast<int32_t>(activation.type))};
    }
    for (DataType const type : {in.type, out.type, bias.type, residual.type})
    {
        if (!staged(type))
        {
            return unstaged("convertElements", type);
        }
    }
    if (count <= 0)
    {
        return host::Done{};
    }
    StagedBias checked = bias;
    checked.channels = std::max<int64_t>(bias.channels, 1);
    checked.inner = std::max<int64_t>(bias.inner, 1);
    convertKernel<<<blocksFor(count), kThreads, 0, stream>>>(
        in, const_cast<void*>(out.data), out.type, out.scale, count, checked, activation, residual);
    if (cudaError_t const status = cudaGetLastError(); status != cudaSuccess)
    {
        return cudaFailure(status, "convertElements launch");
    }
    return host::Done{};
}

host::Status padSpatial(StagedElements const& in, nvinfer1::Dims const& inDims, StagedElements const& out,
    nvinfer1::Dims const& outDims, std::array<int64_t, 3> const& pre, cudaStream_t stream)
{
    for (DataType const type : {in.type, out.type})
    {
        if (!staged(type))
        {
            return unstaged("padSpatial", type);
        }
    }
    int32_t const nbSpatial = inDims.nbDims - 2;
    if (nbSpatial < 1 || nbSpatial > 3 || outDims.nbDims != inDims.nbDims)
    {
        return Error{nvinfer1::ErrorCode::kINTERNAL_ERROR,
            "padSpatial: shapes " + host::shapeString(inDims) + " and " + host::shapeString(outDims)
                + " are not [N, C, spatial...] of one rank"};
    }
    PadShape shape{nbSpatial, inDims.d[0] * inDims.d[1], {}, {}, {}};
    for (int32_t a = 0; a < nbSpatial; ++a)
    {
        shape.in[a] = inDims.d[a + 2];
        shape.out[a] = outDims.d[a + 2];
        shape.pre[a] = pre[static_cast<std::size_t>(a)];
    }
    int64_t const count = host::elementCount(outDims);
    if (count <= 0)
    {
        return host::Done{};
    }
    padKernel<<<blocksFor(count), kThreads, 0, stream>>>(
        in, const_cast<void*>(out.data), out.type, out.scale, count, shape);
    if (cudaError_t const status = cudaGetLastError(); status != cudaSuccess)
    {
        return cudaFailure(status, "padSpatial launch");
    }
    return host::Done{};
}

} // namespace kiln::cuda
