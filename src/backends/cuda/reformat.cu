// SPDX-License-Identifier: Apache-2.0
// CUDA reformat: src laid out in one TensorFormat rewritten as dst in another, the layouts those of the host
// (backends/host/reformat.h's formatLayout, computed on the host and passed by value). One kernel walks the logical
// elements and maps each coordinate to its offset in both layouts; the destination's padding is zeroed first
// (cudaMemsetAsync), as the host writes it. Between kLINEAR and a channels-last format that pads nothing (NCHW and
// NHWC, say) the reformat is a batched transpose, done through shared-memory tiles. From kLINEAR to a channels-last
// format that pads its channels (a stem's 3 colour channels in kHWC8) one thread writes each position's whole padded
// row, zeros included. The same layout without padding is
// one cudaMemcpyAsync (the packed kINT4 and kFP4, which only kLINEAR holds, among them).
#include "backends/cuda/data_movement.cuh"
#include "backends/cuda/kernels.h"
#include "backends/host/reformat.h"

#include <array>
#include <functional>
#include <optional>
#include <string>

namespace kiln::cuda
{

namespace
{

using nvinfer1::TensorFormat;

//! host::FormatLayout as the kernel reads it.
struct Layout
{
    int32_t vectorizedDim{-1}; //!< Split into vectors (vector-major formats only); -1 for none.
    int32_t vectorSize{1};
    int64_t strides[kMaxDims]{};
};

struct ReformatPlan
{
    int32_t rank{0};
    int64_t extents[kMaxDims]{};
    Layout src;
    Layout dst;
};

Layout layoutOf(host::FormatLayout const& layout)
{
    Layout result;
    result.vectorizedDim = layout.channelsLast ? -1 : layout.vectorizedDim;
    result.vectorSize = layout.vectorSize;
    for (int32_t i = 0; i < layout.rank; ++i)
    {
        result.strides[i] = layout.strides[static_cast<std::size_t>(i)];
    }
    return result;
}

//! The offset contributed by coordinate x of dimension i (host::elementOffset's term).
__device__ __forceinline__ int64_t term(Layout const& layout, int32_t i, int64_t x)
{
    if (i == layout.vectorizedDim)
    {
        int64_t const vector = x / layout.vectorSize;
        return vector * layout.strides[i] + (x - vector * layout.vectorSize);
    }
    return x * layout.strides[i];
}

template <typename Word>
__global__ void reformatKernel(Word const* __restrict__ in, Word* __restrict__ out, int64_t count, ReformatPlan plan)
{
    for (int64_t e = firstIndex(); e < count; e += gridStride())
    {
        int64_t index = e;
        int64_t from = 0;
        int64_t to = 0;
#pragma unroll
        for (int32_t i = kMaxDims - 1; i >= 0; --i)
        {
            if (i < plan.rank)
            {
                int64_t const next = index / plan.extents[i];
                int64_t const x = index - next * plan.extents[i];
                from += term(plan.src, i, x);
                to += term(plan.dst, i, x);
                index = next;
            }
        }
        out[to] = in[from];
    }
}

//! The transpose between channels-first and channels-last without padding: in [batch][rows][cols] becomes out
//! [batch][cols][rows], through 32 x 32 tiles of shared memory so that both sides are read and written coalesced.
constexpr int32_t kTile = 32;
constexpr int32_t kTileRows = 8;

template <typename Word>
__global__ void transposeKernel(Word const* __restrict__ in, Word* __restrict__ out, int64_t rows, int64_t cols)
{
    __shared__ Word tile[kTile][kTile + 1];
    int64_t const offset = static_cast<int64_t>(blockIdx.z) * rows * cols;
    int64_t const firstRow = static_cast<int64_t>(blockIdx.y) * kTile;
    int64_t const firstCol = static_cast<int64_t>(blockIdx.x) * kTile;
    for (int32_t j = static_cast<int32_t>(threadIdx.y); j < kTile; j += kTileRows)
    {
        int64_t const r = firstRow + j;
        int64_t const c = firstCol + threadIdx.x;
        if (r < rows && c < cols)
        {
            tile[j][threadIdx.x] = in[offset + r * cols + c];
        }
    }
    __syncthreads();
    for (int32_t j = static_cast<int32_t>(threadIdx.y); j < kTile; j += kTileRows)
    {
        int64_t const c = firstCol + j;
        int64_t const r = firstRow + threadIdx.x;
        if (r < rows && c < cols)
        {
            out[offset + c * rows + r] = tile[threadIdx.x][j];
        }
    }
}

//! kLINEAR [batch][C][spatial] to a channels-last [batch][spatial][P] that pads the C channels to P > C (a stem's 3
//! colour channels in kHWC8): one thread per position reads its C values (consecutive threads, consecutive positions:
//! coalesced) and writes all P, the padding zero, so no memset runs first. Rows of 16 bytes are written as one vector.
template <typename Word, bool kVector>
__global__ void padChannelsLastKernel(Word const* __restrict__ in, Word* __restrict__ out, int64_t positions,
    int64_t spatial, int32_t channels, int32_t padded)
{
    constexpr int32_t kRowWords = 16 / static_cast<int32_t>(sizeof(Word));
    for (int64_t p = firstIndex(); p < positions; p += gridStride())
    {
        int64_t const b = p / spatial;
        Word const* const from = in + b * channels * spatial + (p - b * spatial);
        if constexpr (kVector)
        {
            union
            {
                uint4 vector;
                Word words[kRowWords];
            } row{};
#pragma unroll
            for (int32_t c = 0; c < kRowWords; ++c)
            {
                if (c < channels)
                {
                    row.words[c] = from[c * spatial];
                }
            }
            reinterpret_cast<uint4*>(out)[p] = row.vector;
        }
        else
        {
            Word* const to = out + p * padded;
            for (int32_t c = 0; c < padded; ++c)
            {
                to[c] = c < channels ? from[c * spatial] : Word{0};
            }
        }
    }
}

//! [positions, spatial, channels, padded] of a reformat from kLINEAR to a channels-last format that pads the channels
//! of dense [batch][spatial...][padded] rows (kHWC8, kDHWC8 of fewer than 8 channels), or nullopt for another.
std::optional<std::array<int64_t, 4>> paddedChannelsLast(
    host::FormatLayout const& from, host::FormatLayout const& to, Dims const& dims)
{
    if (from.format != TensorFormat::kLINEAR || !to.channelsLast || to.vectorizedDim != 1 || dims.nbDims < 3
        || to.paddedChannels <= dims.d[1] || to.paddedChannels > 64)
    {
        return std::nullopt;
    }
    int64_t const padded = to.paddedChannels;
    int64_t stride = padded;
    for (int32_t i = dims.nbDims - 1; i >= 2; --i)
    {
        if (to.strides[static_cast<std::size_t>(i)] != stride)
        {
            return std::nullopt;
        }
        stride *= dims.d[i];
    }
    if (to.strides[1] != 1 || to.strides[0] != stride || to.paddedCount != dims.d[0] * stride)
    {
        return std::nullopt;
    }
    int64_t const spatial = stride / padded;
    return std::array<int64_t, 4>{dims.d[0] * spatial, spatial, dims.d[1], padded};
}

//! [batch, rows, cols] of the transpose that a reformat between kLINEAR and a channels-last format without padding is,
//! or nullopt for any other reformat.
std::optional<std::array<int64_t, 3>> plainTranspose(
    host::FormatLayout const& from, host::FormatLayout const& to, Dims const& dims)
{
    bool const toLast = from.format == TensorFormat::kLINEAR && to.channelsLast;
    bool const fromLast = to.format == TensorFormat::kLINEAR && from.channelsLast;
    host::FormatLayout const& last = toLast ? to : from;
    if ((!toLast && !fromLast) || last.vectorizedDim < 0 || last.vectorizedDim >= dims.nbDims
        || last.paddedChannels != dims.d[last.vectorizedDim])
    {
        return std::nullopt;
    }
    int64_t batch = 1;
    int64_t spatial = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        (i < last.vectorizedDim ? batch : spatial) *= i == last.vectorizedDim ? 1 : dims.d[i];
    }
    int64_t const channels = dims.d[last.vectorizedDim];
    // Dense [batch..., spatial..., C] only: some channels-last formats pad their rows (kDLA_HWC4).
    int64_t stride = channels;
    for (int32_t i = dims.nbDims - 1; i >= 0; --i)
    {
        if (i == last.vectorizedDim)
        {
            continue;
        }
        if (last.strides[static_cast<std::size_t>(i)] != stride)
        {
            return std::nullopt;
        }
        stride *= dims.d[i];
    }
    if (last.strides[static_cast<std::size_t>(last.vectorizedDim)] != 1
        || last.paddedCount != batch * spatial * channels)
    {
        return std::nullopt;
    }
    if (batch > 65535 || (spatial + kTile - 1) / kTile > 65535 || (channels + kTile - 1) / kTile > 65535)
    {
        return std::nullopt;
    }
    return toLast ? std::array<int64_t, 3>{batch, channels, spatial} : std::array<int64_t, 3>{batch, spatial, channels};
}

Error invalid(std::string message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, std::move(message)};
}

//! Whether the byte ranges [a, a + aBytes) and [b, b + bBytes) share a byte.
bool overlap(void const* a, int64_t aBytes, void const* b, int64_t bBytes) noexcept
{
    if (aBytes <= 0 || bBytes <= 0)
    {
        return false;
    }
    std::less<> const less;
    auto const* const aBegin = static_cast<std::byte const*>(a);
    auto const* const bBegin = static_cast<std::byte const*>(b);
    return less(aBegin, bBegin + bBytes) && less(bBegin, aBegin + aBytes);
}

} // namespace

Status runReformat(DeviceTensor const& src, TensorFormat srcFormat, DeviceTensor const& dst, TensorFormat dstFormat,
    Launch const& launch)
{
    // The host kernel's checks, in its order and with its messages.
    if (src.type != dst.type)
    {
        return invalid(std::string("reformat: the source is ") + dataTypeName(src.type) + " but the destination is "
            + dataTypeName(dst.type));
    }
    if (!host::sameShape(src.dims, dst.dims))
    {
        return invalid("reformat: the source has dims " + host::shapeString(src.dims) + " but the destination has "
            + host::shapeString(dst.dims));
    }
    if (isQuantizedType(src.type) && src.scale != dst.scale)
    {
        return invalid(std::string("reformat: the ") + dataTypeName(src.type) + " source has scale "
            + std::to_string(src.scale) + " but the destination has scale " + std::to_string(dst.scale)
            + " (codes are copied, not requantized)");
    }
    Expected<host::FormatLayout> const from = host::formatLayout(srcFormat, src.type, src.dims);
    if (!from)
    {
        return invalid("reformat: the source: " + from.error().message);
    }
    Expected<host::FormatLayout> const to = host::formatLayout(dstFormat, dst.type, dst.dims);
    if (!to)
    {
        return invalid("reformat: the destination: " + to.error().message);
    }
    int64_t const srcBytes = storageBytes(src.type, from.value().paddedCount);
    int64_t const dstBytes = storageBytes(dst.type, to.value().paddedCount);
    for (auto const& [tensor, bytes, role] :
        {std::tuple{&src, srcBytes, "source"}, std::tuple{&dst, dstBytes, "destination"}})
    {
        if (bytes > 0 && tensor->data == nullptr)
        {
            return invalid(
                std::string("reformat: the ") + role + " of shape " + host::shapeString(tensor->dims) + " has no data");
        }
    }
    if (src.data == dst.data && srcFormat == dstFormat)
    {
        return host::Done{}; // already in place
    }
    if (overlap(src.data, srcBytes, dst.data, dstBytes))
    {
        return invalid(std::string("reformat: the source (") + host::formatName(srcFormat) + ") and the destination ("
            + host::formatName(dstFormat) + ") overlap");
    }
    int64_t const count = host::elementCount(src.dims);
    if (srcFormat == dstFormat && from.value().paddedCount == count)
    {
        if (dstBytes > 0)
        {
            cudaError_t const status = cudaMemcpyAsync(
                dst.data, src.data, static_cast<size_t>(dstBytes), cudaMemcpyDeviceToDevice, launch.stream);
            if (status != cudaSuccess)
            {
                return cudaFailure(status, "reformat: cudaMemcpyAsync");
            }
        }
        return host::Done{};
    }
    if (std::optional<std::array<int64_t, 4>> const rows = paddedChannelsLast(from.value(), to.value(), src.dims);
        rows && count > 0)
    {
        for (auto const& [tensor, role] : {std::pair{&src, "source"}, std::pair{&dst, "destination"}})
        {
            if (Status aligned = checkAligned(*tensor, "reformat", role); !aligned)
            {
                return aligned;
            }
        }
        auto const [positions, spatial, channels, padded] = *rows;
        int64_t const wordBytes = host::elementBytes(src.type);
        bool const vector = padded * wordBytes == 16 && reinterpret_cast<uintptr_t>(dst.data) % 16 == 0;
        dispatchWord(wordBytes, [&]<typename Word>() {
            auto const* const in = static_cast<Word const*>(src.data);
            auto* const out = static_cast<Word*>(dst.data);
            auto const c = static_cast<int32_t>(channels);
            auto const p = static_cast<int32_t>(padded);
            if (vector)
            {
                padChannelsLastKernel<Word, true>
                    <<<gridFor(positions), kBlock, 0, launch.stream>>>(in, out, positions, spatial, c, p);
            }
            else
            {
                padChannelsLastKernel<Word, false>
                    <<<gridFor(positions), kBlock, 0, launch.stream>>>(in, out, positions, spatial, c, p);
            }
        });
        return launched("reformat: padded channels-last kernel launch");
    }
    // Only the padding needs zeros: the kernel writes every element.
    if (to.value().paddedCount > count)
    {
        cudaError_t const status = cudaMemsetAsync(dst.data, 0, static_cast<size_t>(dstBytes), launch.stream);
        if (status != cudaSuccess)
        {
            return cudaFailure(status, "reformat: cudaMemsetAsync");
        }
    }
    if (count == 0)
    {
        return host::Done{};
    }
    for (auto const& [tensor, role] : {std::pair{&src, "source"}, std::pair{&dst, "destination"}})
    {
        if (Status aligned = checkAligned(*tensor, "reformat", role); !aligned)
        {
            return aligned;
        }
    }
    if (std::optional<std::array<int64_t, 3>> const transpose = plainTranspose(from.value(), to.value(), src.dims))
    {
        auto const [batch, rows, cols] = *transpose;
        dim3 const grid(static_cast<uint32_t>((cols + kTile - 1) / kTile),
            static_cast<uint32_t>((rows + kTile - 1) / kTile), static_cast<uint32_t>(batch));
        dispatchWord(host::elementBytes(src.type), [&]<typename Word>() {
            transposeKernel<Word><<<grid, dim3(kTile, kTileRows), 0, launch.stream>>>(
                static_cast<Word const*>(src.data), static_cast<Word*>(dst.data), rows, cols);
        });
        return launched("reformat: transpose kernel launch");
    }
    ReformatPlan plan;
    plan.rank = src.dims.nbDims;
    for (int32_t i = 0; i < plan.rank; ++i)
    {
        plan.extents[i] = src.dims.d[i];
    }
    plan.src = layoutOf(from.value());
    plan.dst = layoutOf(to.value());
    // Only kLINEAR holds the packed types, so from here every element has whole bytes.
    dispatchWord(host::elementBytes(src.type), [&]<typename Word>() {
        reformatKernel<Word><<<gridFor(count), kBlock, 0, launch.stream>>>(
            static_cast<Word const*>(src.data), static_cast<Word*>(dst.data), count, plan);
    });
    return launched("reformat: kernel launch");
}

} // namespace kiln::cuda
