// SPDX-License-Identifier: Apache-2.0
// Where the layouts come from:
// - kiln's spec, /work/shared/spec/tensorrt-10-api.md §3.2 (TensorFormat): kLINEAR "row-major, all types"; kCHW2
//   "vector-major, 2 per vector, vector dim third-to-last; FP16/BF16"; kHWC8 "vector-minor, 8 per vector; FP16/BF16";
//   kCHW4 "vector-major, 4 per vector; INT8"; kCHW16 "vector-major, 16 per vector; DLA FP16 only"; kCHW32
//   "vector-major, 32 per vector; INT8/FP32/FP16"; kDHWC8 "vector-minor, 8 per vector, vector dim fourth-to-last;
//   FP16/BF16"; kCDHW32 "vector-major, 32 per vector, fourth-to-last; FP16/INT8"; kHWC "vector-minor, channel
//   third-to-last, unpadded; FP32/UINT8"; kDLA_LINEAR "DLA planar"; kDLA_HWC4 "DLA image format"; kHWC16
//   "vector-minor, 16 per vector; FP16/INT8/FP8"; kDHWC "vector-minor, one per vector, fourth-to-last; FP32". The
//   `types` column below is that list; include/NvInferRuntime.h's enumerator comments say the same in short.
// - What vector-major and vector-minor mean, and that the dimensions before the vectorized one stay outermost:
//   TensorRT's TensorFormat documentation defines them on a tensor [M, N, C, H, W] with V scalars per vector as the
//   arrays [M][N][ceil(C / V)][H][W][V] (coordinate (m, n, c, h, w) at [m][n][c / V][h][w][c % V]) and
//   [M][N][H][W][ceil(C / V) * V] (at [m][n][h][w][c]). Its per-format entries give the least ranks: 3 for the formats
//   whose channel is third-to-last, 4 for kDHWC8, kCDHW32 and kDHWC.
// - The DLA formats, on which the spec is silent beyond their names: TensorRT's TensorFormat documentation. kDLA_LINEAR
//   is [N][C][H][roundUp(W, 64 / elementSize)] (rows of W padded to 64 bytes), rank >= 3. kDLA_HWC4 takes C of 1, 3 or
//   4, padded to C' = 1, 4, 4, and is [N][H][roundUp(W, 64 / C' / elementSize)][C'] on Orin (32 on Xavier; TensorRT 10
//   runs DLA on Orin, so kiln pads rows to 64 bytes), rank >= 3. That documentation binds both to FP16 and INT8;
//   since the spec lists no types for them, kiln is permissive and takes every type with a whole byte per element.
// - The packed kINT4 and kFP4 (two elements to a byte) are in no format's type list but kLINEAR's; they have no byte
//   offset per element, which is also why kiln refuses them in the DLA formats.
#include "backends/host/reformat.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::host
{

namespace
{

//! Every type.
constexpr TypeSet kAllTypes = (TypeSet{1} << static_cast<uint32_t>(nvinfer1::EnumMax<DataType>())) - 1U;
//! Every type with at least a byte per element: all but the packed kINT4 and kFP4.
constexpr TypeSet kByteTypes = kAllTypes & ~typeSet({DataType::kINT4, DataType::kFP4});

constexpr TypeSet kHalfTypes = typeSet({DataType::kHALF, DataType::kBF16});

constexpr std::array<FormatRule, 13> kRules{{
    {TensorFormat::kLINEAR, "kLINEAR", FormatKind::kROW_MAJOR, 0, 1, 0, kAllTypes},
    {TensorFormat::kCHW2, "kCHW2", FormatKind::kVECTOR_MAJOR, 3, 2, 0, kHalfTypes},
    {TensorFormat::kHWC8, "kHWC8", FormatKind::kVECTOR_MINOR, 3, 8, 0, kHalfTypes},
    {TensorFormat::kCHW4, "kCHW4", FormatKind::kVECTOR_MAJOR, 3, 4, 0, typeSet({DataType::kINT8})},
    {TensorFormat::kCHW16, "kCHW16", FormatKind::kVECTOR_MAJOR, 3, 16, 0, typeSet({DataType::kHALF})},
    {TensorFormat::kCHW32, "kCHW32", FormatKind::kVECTOR_MAJOR, 3, 32, 0,
        typeSet({DataType::kINT8, DataType::kFLOAT, DataType::kHALF})},
    {TensorFormat::kDHWC8, "kDHWC8", FormatKind::kVECTOR_MINOR, 4, 8, 0, kHalfTypes},
    {TensorFormat::kCDHW32, "kCDHW32", FormatKind::kVECTOR_MAJOR, 4, 32, 0,
        typeSet({DataType::kHALF, DataType::kINT8})},
    {TensorFormat::kHWC, "kHWC", FormatKind::kVECTOR_MINOR, 3, 1, 0, typeSet({DataType::kFLOAT, DataType::kUINT8})},
    {TensorFormat::kDLA_LINEAR, "kDLA_LINEAR", FormatKind::kROW_MAJOR, 3, 1, 64, kByteTypes},
    {TensorFormat::kDLA_HWC4, "kDLA_HWC4", FormatKind::kVECTOR_MINOR, 3, 4, 64, kByteTypes},
    {TensorFormat::kHWC16, "kHWC16", FormatKind::kVECTOR_MINOR, 3, 16, 0,
        typeSet({DataType::kHALF, DataType::kINT8, DataType::kFP8})},
    {TensorFormat::kDHWC, "kDHWC", FormatKind::kVECTOR_MINOR, 4, 1, 0, typeSet({DataType::kFLOAT})},
}};

static_assert(kRules.size() == static_cast<std::size_t>(nvinfer1::EnumMax<TensorFormat>()),
    "kRules needs one row for every TensorFormat");

constexpr bool rulesConsistent() noexcept
{
    for (std::size_t i = 0; i < kRules.size(); ++i)
    {
        FormatRule const& row = kRules[i];
        bool const rowMajor = row.kind == FormatKind::kROW_MAJOR;
        // In enum order; a vectorizing format has a channel dimension (rank >= 3); only kLINEAR holds packed types.
        if (static_cast<std::size_t>(row.format) != i || (!rowMajor && row.minRank < 3)
            || (rowMajor && row.vectorSize != 1) || row.vectorSize < 1 || row.types == 0
            || (row.format != TensorFormat::kLINEAR && (row.types & ~kByteTypes) != 0))
        {
            return false;
        }
    }
    return true;
}
static_assert(rulesConsistent(), "kRules rows must be in enum order and self-consistent");

Error invalid(std::string message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, std::move(message)};
}

//! The smallest multiple of multiple at least value (value >= 0, multiple >= 1), or nullopt when it overflows.
std::optional<int64_t> roundUp(int64_t value, int64_t multiple) noexcept
{
    int64_t result = 0;
    if (__builtin_mul_overflow(value / multiple + (value % multiple != 0 ? 1 : 0), multiple, &result))
    {
        return std::nullopt;
    }
    return result;
}

//! "third-to-last", "fourth-to-last": where a rule's channel dimension is.
char const* channelPlace(int32_t minRank) noexcept
{
    return minRank == 4 ? "fourth-to-last" : "third-to-last";
}

//! One axis of a layout's physical array, outermost first: a logical dimension (or -1 for a vector's lane) and its
//! extent in memory.
struct Axis
{
    int32_t dim;
    int64_t extent;
};

//! How a type is named in descriptions ("FP32"), as the runtime names kLINEAR (runtime/executor.cpp).
char const* descriptionTypeName(DataType type) noexcept
{
    switch (type)
    {
    case DataType::kFLOAT: return "FP32";
    case DataType::kHALF: return "FP16";
    case DataType::kINT8: return "INT8";
    case DataType::kINT32: return "INT32";
    case DataType::kBOOL: return "Bool";
    case DataType::kUINT8: return "UINT8";
    case DataType::kFP8: return "FP8";
    case DataType::kBF16: return "BF16";
    case DataType::kINT64: return "INT64";
    case DataType::kINT4: return "INT4";
    case DataType::kFP4: return "FP4";
    case DataType::kE8M0: return "E8M0";
    }
    return "unknown type";
}

//! Why data of bytes bytes cannot be read or written, or nullopt.
std::optional<Error> checkData(HostTensor const& t, int64_t bytes, char const* role)
{
    if (bytes > 0 && t.data == nullptr)
    {
        return invalid(std::string("reformat: the ") + role + " of shape " + shapeString(t.dims) + " has no data");
    }
    return std::nullopt;
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

std::span<FormatRule const> formatRules() noexcept
{
    return kRules;
}

bool isKnownFormat(TensorFormat format) noexcept
{
    auto const index = static_cast<int32_t>(format);
    return index >= 0 && index < static_cast<int32_t>(kRules.size());
}

char const* formatName(TensorFormat format) noexcept
{
    return isKnownFormat(format) ? kRules[static_cast<std::size_t>(format)].name : "unknown";
}

Expected<FormatLayout> formatLayout(TensorFormat format, DataType type, Dims const& dims)
{
    if (!isKnownFormat(format))
    {
        return invalid("format " + std::to_string(static_cast<int32_t>(format)) + " is not a TensorFormat");
    }
    FormatRule const& rule = kRules[static_cast<std::size_t>(format)];
    std::string const name = rule.name;
    if (!isKnownDataType(type))
    {
        return invalid(name + ": type " + std::to_string(static_cast<int32_t>(type)) + " is not a DataType");
    }
    if (!contains(rule.types, type))
    {
        std::string const packed
            = dataTypeBits(type) < 8 ? " (a packed type, laid out only in kLINEAR)" : std::string();
        return invalid(name + " holds " + typeSetString(rule.types) + ", not " + dataTypeName(type) + packed);
    }
    if (!isValidShape(dims))
    {
        return invalid(name + ": the dims " + shapeString(dims) + " " + notConcreteText(dims));
    }
    int32_t const rank = dims.nbDims;
    if (rank < rule.minRank)
    {
        std::string const why = rule.kind == FormatKind::kROW_MAJOR
            ? std::string()
            : std::string(" (its channel dimension is ") + channelPlace(rule.minRank) + ")";
        return invalid(name + " needs a rank of at least " + std::to_string(rule.minRank) + why + " but "
            + shapeString(dims) + " has rank " + std::to_string(rank));
    }

    auto const tooLarge
        = [&] { return invalid(name + ": the dims " + shapeString(dims) + " take more elements than int64_t counts"); };
    FormatLayout layout;
    layout.format = format;
    layout.rank = rank;
    int64_t const elementBytes = std::max<int64_t>(dataTypeBits(type) / 8, 1);
    // The physical array, outermost axis first.
    std::vector<Axis> axes;
    if (rule.kind == FormatKind::kROW_MAJOR)
    {
        for (int32_t i = 0; i < rank; ++i)
        {
            axes.push_back({i, dims.d[i]});
        }
    }
    else
    {
        int32_t const c = rank - rule.minRank;
        int64_t const channels = dims.d[c];
        int64_t vector = rule.vectorSize;
        if (format == TensorFormat::kDLA_HWC4)
        {
            if (channels != 1 && channels != 3 && channels != 4)
            {
                return invalid(name + " takes 1, 3 or 4 channels (dimension " + std::to_string(c) + ") but "
                    + shapeString(dims) + " has " + std::to_string(channels));
            }
            vector = channels == 1 ? 1 : 4; // grayscale, or color padded to 4
        }
        std::optional<int64_t> const padded = roundUp(channels, vector);
        if (!padded)
        {
            return tooLarge();
        }
        layout.vectorizedDim = c;
        layout.vectorSize = static_cast<int32_t>(vector);
        layout.channelsLast = rule.kind == FormatKind::kVECTOR_MINOR;
        layout.paddedChannels = *padded;
        for (int32_t i = 0; i < c; ++i)
        {
            axes.push_back({i, dims.d[i]});
        }
        if (!layout.channelsLast)
        {
            axes.push_back({c, layout.paddedChannels / vector});
        }
        for (int32_t i = c + 1; i < rank; ++i)
        {
            axes.push_back({i, dims.d[i]});
        }
        // The channels' own axis: a vector's lanes (their stride, 1, is implied) or the whole padded channel range.
        axes.push_back(layout.channelsLast ? Axis{c, layout.paddedChannels} : Axis{-1, vector});
    }
    if (rule.rowAlignmentBytes > 0)
    {
        // Pad the last dimension so that a row (with its channels, channels last) spans a multiple of the alignment.
        // The DLA formats have rank >= 3 and at most 4 channels, so a step along the row is at most 32 bytes.
        int64_t const alignment = rule.rowAlignmentBytes;
        int64_t const stepBytes = elementBytes * (layout.channelsLast ? layout.paddedChannels : 1);
        int64_t const multiple = alignment / std::gcd(alignment, stepBytes);
        for (Axis& axis : axes)
        {
            if (axis.dim == rank - 1)
            {
                std::optional<int64_t> const padded = roundUp(axis.extent, multiple);
                if (!padded)
                {
                    return tooLarge();
                }
                axis.extent = *padded;
            }
        }
    }
    int64_t stride = 1;
    for (auto axis = axes.rbegin(); axis != axes.rend(); ++axis)
    {
        if (axis->dim >= 0)
        {
            layout.strides[static_cast<std::size_t>(axis->dim)] = stride;
        }
        if (__builtin_mul_overflow(stride, axis->extent, &stride))
        {
            return tooLarge();
        }
    }
    layout.paddedCount = stride;
    if (storageBytes(type, layout.paddedCount) == std::numeric_limits<int64_t>::max())
    {
        return invalid(name + ": the dims " + shapeString(dims) + " of " + dataTypeName(type)
            + " take more bytes than int64_t counts");
    }
    return layout;
}

Expected<int64_t> formatBytes(TensorFormat format, DataType type, Dims const& dims)
{
    Expected<FormatLayout> const layout = formatLayout(format, type, dims);
    if (!layout)
    {
        return layout.error();
    }
    return storageBytes(type, layout.value().paddedCount);
}

int64_t elementOffset(FormatLayout const& layout, std::span<int64_t const> index) noexcept
{
    int64_t offset = 0;
    for (int32_t i = 0; i < layout.rank; ++i)
    {
        int64_t const x = index[static_cast<std::size_t>(i)];
        int64_t const stride = layout.strides[static_cast<std::size_t>(i)];
        if (i != layout.vectorizedDim || layout.channelsLast)
        {
            offset += x * stride;
        }
        else
        {
            offset += x / layout.vectorSize * stride + x % layout.vectorSize;
        }
    }
    return offset;
}

Status reformat(HostTensor const& src, TensorFormat srcFormat, HostTensor const& dst, TensorFormat dstFormat)
{
    if (src.type != dst.type)
    {
        return invalid(std::string("reformat: the source is ") + dataTypeName(src.type) + " but the destination is "
            + dataTypeName(dst.type));
    }
    if (!sameShape(src.dims, dst.dims))
    {
        return invalid("reformat: the source has dims " + shapeString(src.dims) + " but the destination has "
            + shapeString(dst.dims));
    }
    if (isQuantizedType(src.type) && src.scale != dst.scale)
    {
        return invalid(std::string("reformat: the ") + dataTypeName(src.type) + " source has scale "
            + std::to_string(src.scale) + " but the destination has scale " + std::to_string(dst.scale)
            + " (codes are copied, not requantized)");
    }
    Expected<FormatLayout> const from = formatLayout(srcFormat, src.type, src.dims);
    if (!from)
    {
        return invalid("reformat: the source: " + from.error().message);
    }
    Expected<FormatLayout> const to = formatLayout(dstFormat, dst.type, dst.dims);
    if (!to)
    {
        return invalid("reformat: the destination: " + to.error().message);
    }
    int64_t const srcBytes = storageBytes(src.type, from.value().paddedCount);
    int64_t const dstBytes = storageBytes(dst.type, to.value().paddedCount);
    if (std::optional<Error> error = checkData(src, srcBytes, "source"))
    {
        return std::move(*error);
    }
    if (std::optional<Error> error = checkData(dst, dstBytes, "destination"))
    {
        return std::move(*error);
    }
    if (src.data == dst.data && srcFormat == dstFormat)
    {
        return Done{}; // already in place
    }
    if (overlap(src.data, srcBytes, dst.data, dstBytes))
    {
        return invalid(std::string("reformat: the source (") + formatName(srcFormat) + ") and the destination ("
            + formatName(dstFormat) + ") overlap");
    }
    int64_t const count = elementCount(src.dims);
    if (srcFormat == dstFormat && from.value().paddedCount == count)
    {
        // The same layout without padding (kLINEAR, the packed types' only one, among them): the bytes as they are.
        if (dstBytes > 0)
        {
            std::memcpy(dst.data, src.data, static_cast<std::size_t>(dstBytes));
        }
        return Done{};
    }
    if (dstBytes > 0)
    {
        std::memset(dst.data, 0, static_cast<std::size_t>(dstBytes));
    }
    if (count == 0)
    {
        return Done{};
    }
    // Only kLINEAR holds the packed types, so from here every element has whole bytes.
    auto const elementBytes = static_cast<std::size_t>(dataTypeBits(src.type) / 8);
    auto const* const in = static_cast<std::byte const*>(src.data);
    auto* const out = static_cast<std::byte*>(dst.data);
    int32_t const rank = src.dims.nbDims;
    if (rank == 0)
    {
        std::memcpy(out, in, elementBytes);
        return Done{};
    }
    // Walk the rows of the last dimension, which no format vectorizes (a channel dimension is at most third-to-last),
    // so each format steps along a row by one stride.
    auto const last = static_cast<std::size_t>(rank - 1);
    int64_t const width = src.dims.d[last];
    int64_t const inStep = from.value().strides[last];
    int64_t const outStep = to.value().strides[last];
    std::array<int64_t, Dims::MAX_DIMS> index{};
    std::span<int64_t const> const coordinate(index.data(), static_cast<std::size_t>(rank));
    for (int64_t row = 0; row < count / width; ++row)
    {
        int64_t const inBase = elementOffset(from.value(), coordinate);
        int64_t const outBase = elementOffset(to.value(), coordinate);
        for (int64_t x = 0; x < width; ++x)
        {
            std::memcpy(out + static_cast<std::size_t>(outBase + x * outStep) * elementBytes,
                in + static_cast<std::size_t>(inBase + x * inStep) * elementBytes, elementBytes);
        }
        // The next row: advance the coordinates before the last one, innermost first.
        for (int32_t i = rank - 2; i >= 0; --i)
        {
            auto const j = static_cast<std::size_t>(i);
            if (++index[j] < src.dims.d[j])
            {
                break;
            }
            index[j] = 0;
        }
    }
    return Done{};
}

std::string formatDescription(DataType type, TensorFormat format)
{
    std::string const typeName = descriptionTypeName(type);
    if (!isKnownFormat(format))
    {
        return "Unknown " + typeName + " format (" + std::to_string(static_cast<int32_t>(format)) + ")";
    }
    FormatRule const& rule = kRules[static_cast<std::size_t>(format)];
    std::string const threeD = rule.minRank == 4 ? "3-D " : "";
    std::string const v = std::to_string(rule.vectorSize);
    std::string text;
    switch (format)
    {
    case TensorFormat::kLINEAR: text = "Row major linear " + typeName + " format"; break;
    case TensorFormat::kDLA_LINEAR: text = "DLA planar " + typeName + " format, rows padded to 64 bytes"; break;
    case TensorFormat::kDLA_HWC4:
        text
            = "DLA image " + typeName + " format, channels last (1, 3 or 4, padded to 1 or 4), rows padded to 64 bytes";
        break;
    default:
        if (rule.kind == FormatKind::kVECTOR_MAJOR)
        {
            text = "Channel vectorized " + threeD + typeName + " format, " + v + " channels per vector, padded to a "
                + "multiple of " + v;
        }
        else if (rule.vectorSize == 1)
        {
            text = "Channels last " + threeD + typeName + " format, channels unpadded";
        }
        else
        {
            text = "Channels last " + threeD + typeName + " format, channels padded to a multiple of " + v;
        }
        break;
    }
    return text + " (" + rule.name + ")";
}

} // namespace kiln::host
