// SPDX-License-Identifier: Apache-2.0
// Host reference of the reformat layers the builder inserts where a plugin asks (supportsFormatCombination) for a
// tensor in another nvinfer1::TensorFormat than its neighbour's: where each logical element of a tensor lives in each
// format, how many bytes a format takes, and a kernel that converts between any two formats. One table,
// formatRules(), one row per TensorFormat, feeds the layouts, the checks, the descriptions and the tests.
//
//     // a kINT8 [1, 3, 2, 2] tensor in kCHW4: channels in vectors of 4, the fourth channel zero padding
//     Expected<int64_t> const bytes = formatBytes(TensorFormat::kCHW4, DataType::kINT8, Dims{4, {1, 3, 2, 2}}); // 16
//     std::vector<int8_t> chw4(16);   // linear: a HostTensor of the same kINT8 [1, 3, 2, 2] in kLINEAR
//     Status const done = reformat(linear, TensorFormat::kLINEAR, HostTensor{chw4.data(), DataType::kINT8,
//         Dims{4, {1, 3, 2, 2}}}, TensorFormat::kCHW4);
//     // chw4 == {x[0,0,0,0], x[0,1,0,0], x[0,2,0,0], 0, x[0,0,0,1], x[0,1,0,1], x[0,2,0,1], 0, ...}
//
// A HostTensor here carries a tensor's logical dims (one extent per dimension, as the network sees it) while its data
// is laid out in the format passed beside it, padding included (formatBytes bytes). The layouts (reformat.cpp cites
// the facts each row comes from):
// - Row-major formats: kLINEAR (any rank, every type) and kDLA_LINEAR (rank >= 3, the last dimension's rows padded
//   to 64 bytes).
// - Vector-major formats, channel vectors innermost: the channel dimension C (third-to-last, or fourth-to-last for
//   kCDHW32) is split into ceil(C / V) vectors of V scalars; a tensor [N..., C, S...] is stored as the array
//   [N...][ceil(C / V)][S...][V], element (n, c, s) at [n][c / V][s][c % V]. kCHW2, kCHW4, kCHW16, kCHW32, kCDHW32.
// - Vector-minor (channels-last) formats: the channel dimension (third-to-last, or fourth-to-last for kDHWC8 and
//   kDHWC) moves innermost, padded to a multiple of V: [N...][S...][roundUp(C, V)]. kHWC8, kHWC16, kDHWC8 (V = 8, 16,
//   8); kHWC, kDHWC (V = 1, unpadded); kDLA_HWC4 (C of 1, 3 or 4 padded to 1, 4, 4, and each row of the last dimension
//   padded to 64 bytes).
// - Dimensions before the channel dimension are batch-like and outermost in every format; the spatial dimensions keep
//   their order. Padding is written as zero.
// Elements are moved as raw bytes of the type's size, so any type moves exactly (a scaled kINT8 or kFP8 keeps its
// codes, so both tensors must share the scale). The packed kINT4 and kFP4 have no byte per element: they are laid
// out only in kLINEAR.
#pragma once

#include "backends/host/tensor_view.h"

#include "NvInferRuntime.h"

#include <array>
#include <cstdint>
#include <span>
#include <string>

namespace kiln::host
{

using nvinfer1::TensorFormat;

//! How a format orders a tensor's dimensions in memory.
enum class FormatKind : int32_t
{
    kROW_MAJOR,    //!< The logical order (kLINEAR, kDLA_LINEAR).
    kVECTOR_MAJOR, //!< Channels split into vectors, each vector's scalars innermost (kCHW2 ... kCDHW32).
    kVECTOR_MINOR, //!< Channels innermost, padded (kHWC8, kHWC16, kDHWC8, kHWC, kDHWC, kDLA_HWC4).
};

//! What one TensorFormat is, from the facts reformat.cpp cites.
struct FormatRule
{
    TensorFormat format;
    char const* name; //!< The enumerator's name, "kCHW4".
    FormatKind kind;
    //! The least rank; for a vectorizing format also the channel dimension's place from the end (3: dims[rank - 3],
    //! 4: dims[rank - 4]). 0 for kLINEAR.
    int32_t minRank;
    //! Scalars per vector (kind kVECTOR_MAJOR), or the multiple channels are padded to (kVECTOR_MINOR; 1 unpadded;
    //! kDLA_HWC4's 4 is its largest, see FormatLayout::vectorSize). 1 for row-major formats.
    int32_t vectorSize;
    //! Each row (the last dimension, with the channels of a channels-last format) padded to a multiple of this many
    //! bytes; 0 for none. Only the DLA formats pad rows.
    int32_t rowAlignmentBytes;
    //! The types the format holds.
    TypeSet types;
};

//! One row per TensorFormat, in enum order.
std::span<FormatRule const> formatRules() noexcept;

//! Whether format is one of the enum's values.
bool isKnownFormat(TensorFormat format) noexcept;

//! The enumerator's name ("kHWC8"), or "unknown" for a value outside the enum.
char const* formatName(TensorFormat format) noexcept;

//! Where a tensor's elements live in one format, for one type and shape: the element offset of logical coordinate x
//! is the sum over dimensions i other than vectorizedDim of x[i] * strides[i], plus for vectorizedDim
//! (x / vectorSize) * strides[vectorizedDim] + x % vectorSize in a vector-major format, or x (its stride is 1) in a
//! channels-last one.
struct FormatLayout
{
    TensorFormat format{TensorFormat::kLINEAR};
    int32_t rank{0};
    //! The channel dimension the format vectorizes or moves innermost; -1 for the row-major formats.
    int32_t vectorizedDim{-1};
    //! Scalars per vector: V of a vector-major format, the padding multiple of a channels-last one (1 for kHWC and
    //! kDHWC; for kDLA_HWC4 the padded channel count, 1 or 4); 1 for row-major formats.
    int32_t vectorSize{1};
    //! Whether the channel dimension is innermost (the vector-minor formats).
    bool channelsLast{false};
    //! The channel extent rounded up to a whole number of vectors; 0 without a vectorized dimension.
    int64_t paddedChannels{0};
    //! Elements the layout spans, padding included.
    int64_t paddedCount{0};
    //! Element stride of each dimension; for a vector-major vectorizedDim, the stride between its vectors.
    std::array<int64_t, Dims::MAX_DIMS> strides{};
};

//! The layout of format for type and dims, or an error naming the format and why: a format outside the enum, a shape
//! that is not concrete, a rank below the format's, a type the format does not hold, a channel count kDLA_HWC4 does
//! not take, or a size that does not fit in int64_t.
Expected<FormatLayout> formatLayout(TensorFormat format, DataType type, Dims const& dims);

//! Bytes a tensor of type and dims takes in format, padding included (packed kINT4 and kFP4 rounded up to a byte);
//! the error as formatLayout's.
Expected<int64_t> formatBytes(TensorFormat format, DataType type, Dims const& dims);

//! The element offset of the logical coordinate index (one coordinate per dimension, each within its extent) in
//! layout. Not checked: index must have layout.rank coordinates in range.
int64_t elementOffset(FormatLayout const& layout, std::span<int64_t const> index) noexcept;

//! Converts src (laid out in srcFormat) into dst (laid out in dstFormat), padding written as zero. Both must have the
//! same type, logical dims and (for kINT8 and kFP8) scale; each format must take them (formatLayout); src and dst must
//! not overlap unless they are the same buffer in the same format (then nothing is written).
Status reformat(HostTensor const& src, TensorFormat srcFormat, HostTensor const& dst, TensorFormat dstFormat);

//! How the tools describe a format for a type: "Row major linear FP32 format (kLINEAR)", "Channel vectorized INT8
//! format, 4 channels per vector, padded to a multiple of 4 (kCHW4)".
std::string formatDescription(DataType type, TensorFormat format);

} // namespace kiln::host
