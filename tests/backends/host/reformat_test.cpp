// SPDX-License-Identifier: Apache-2.0
// The host reformat kernels: the format table against the facts spelled out here, each format's layout written out by
// hand on small shapes, round trips through every format on random shapes and bytes (checked against offsets computed
// here from the documented arrays), direct conversions between formats against conversions through kLINEAR, byte
// sizes with padding, descriptions, and every refusal with its message.
#include "backends/host/reformat.h"
#include "runtime/executor.h"

#include "host_test_util.h"

#include <algorithm>
#include <initializer_list>
#include <iterator>
#include <numeric>

namespace kiln::host::test
{
namespace
{

constexpr auto kHalf = DataType::kHALF;
constexpr auto kFloat = DataType::kFLOAT;
constexpr auto kInt8 = DataType::kINT8;

//! Every format, in enum order.
std::vector<TensorFormat> allFormats()
{
    std::vector<TensorFormat> formats;
    for (FormatRule const& rule : formatRules())
    {
        formats.push_back(rule.format);
    }
    return formats;
}

FormatRule const& ruleOf(TensorFormat format)
{
    return formatRules()[static_cast<std::size_t>(format)];
}

//! Bytes per element of a type with whole bytes.
std::size_t elementSize(DataType type)
{
    return static_cast<std::size_t>(dataTypeBits(type) / 8);
}

//! Storage for a tensor of type and dims laid out in format: formatBytes bytes, first filled with garbage (0xA5) so
//! that a kernel that forgets to write padding or an element shows.
class Storage
{
public:
    Storage(TensorFormat format, DataType type, Dims const& dims, float scale = 1.0F)
    {
        Expected<int64_t> const size = formatBytes(format, type, dims);
        EXPECT_TRUE(size.ok()) << formatName(format) << " " << dataTypeName(type) << " " << shapeString(dims) << ": "
                               << (size.ok() ? "" : size.error().message);
        mBytes.assign(static_cast<std::size_t>(size.ok() ? size.value() : 0), std::byte{0xA5});
        mTensor = HostTensor{mBytes.data(), type, dims, scale};
    }
    Storage(Storage const&) = delete;
    Storage& operator=(Storage const&) = delete;

    HostTensor const& tensor() const noexcept { return mTensor; }
    std::vector<std::byte>& bytes() noexcept { return mBytes; }
    std::vector<std::byte> const& bytes() const noexcept { return mBytes; }

    //! Element i read as an unsigned integer of the type's size.
    uint64_t raw(int64_t i) const
    {
        uint64_t value = 0;
        std::size_t const size = elementSize(mTensor.type);
        std::memcpy(&value, mBytes.data() + static_cast<std::size_t>(i) * size, size);
        return value;
    }

    //! Writes value, as an unsigned integer of the type's size, into element i.
    void setRaw(int64_t i, uint64_t value)
    {
        std::size_t const size = elementSize(mTensor.type);
        std::memcpy(mBytes.data() + static_cast<std::size_t>(i) * size, &value, size);
    }

private:
    std::vector<std::byte> mBytes;
    HostTensor mTensor;
};

//! n zeros.
std::vector<uint64_t> zeros(std::size_t n)
{
    return std::vector<uint64_t>(n, 0);
}

//! The parts one after another.
std::vector<uint64_t> cat(std::initializer_list<std::vector<uint64_t>> parts)
{
    std::vector<uint64_t> all;
    for (std::vector<uint64_t> const& part : parts)
    {
        all.insert(all.end(), part.begin(), part.end());
    }
    return all;
}

//! The coordinates of logical (row-major) element index of dims.
std::vector<int64_t> coordinatesOf(Dims const& dims, int64_t index)
{
    std::vector<int64_t> x(static_cast<std::size_t>(dims.nbDims));
    for (int32_t i = dims.nbDims - 1; i >= 0; --i)
    {
        x[static_cast<std::size_t>(i)] = index % dims.d[i];
        index /= dims.d[i];
    }
    return x;
}

//! Reformats a kLINEAR tensor whose element L holds L + 1 into format and expects the stored elements, as unsigned
//! integers, to be `expected` (0 for padding); then expects elementOffset to agree and the way back to give the input.
void expectLayout(TensorFormat format, DataType type, Dims const& dims, std::vector<uint64_t> const& expected)
{
    SCOPED_TRACE(std::string(formatName(format)) + " " + dataTypeName(type) + " " + shapeString(dims));
    int64_t const count = elementCount(dims);
    Storage linear(TensorFormat::kLINEAR, type, dims);
    for (int64_t i = 0; i < count; ++i)
    {
        linear.setRaw(i, static_cast<uint64_t>(i + 1));
    }
    Storage formatted(format, type, dims);
    ASSERT_EQ(formatted.bytes().size(), expected.size() * elementSize(type));
    Status const there = reformat(linear.tensor(), TensorFormat::kLINEAR, formatted.tensor(), format);
    ASSERT_TRUE(there.ok()) << there.error().message;
    for (std::size_t i = 0; i < expected.size(); ++i)
    {
        EXPECT_EQ(formatted.raw(static_cast<int64_t>(i)), expected[i]) << "stored element " << i;
    }
    Expected<FormatLayout> const layout = formatLayout(format, type, dims);
    ASSERT_TRUE(layout.ok());
    EXPECT_EQ(layout.value().paddedCount, static_cast<int64_t>(expected.size()));
    for (int64_t i = 0; i < count; ++i)
    {
        int64_t const offset = elementOffset(layout.value(), coordinatesOf(dims, i));
        ASSERT_LT(offset, static_cast<int64_t>(expected.size()));
        EXPECT_EQ(expected[static_cast<std::size_t>(offset)], static_cast<uint64_t>(i + 1)) << "logical element " << i;
    }
    Storage back(TensorFormat::kLINEAR, type, dims);
    Status const home = reformat(formatted.tensor(), format, back.tensor(), TensorFormat::kLINEAR);
    ASSERT_TRUE(home.ok()) << home.error().message;
    EXPECT_EQ(back.bytes(), linear.bytes());
}

// ---- The table ---------------------------------------------------------------------------------------------------

TEST(HostReformat, RulesTableHasARowPerFormatInOrder)
{
    ASSERT_EQ(formatRules().size(), static_cast<std::size_t>(nvinfer1::EnumMax<TensorFormat>()));
    for (std::size_t i = 0; i < formatRules().size(); ++i)
    {
        EXPECT_EQ(static_cast<std::size_t>(formatRules()[i].format), i);
        EXPECT_TRUE(isKnownFormat(formatRules()[i].format));
    }
    EXPECT_FALSE(isKnownFormat(TensorFormat{13}));
    EXPECT_FALSE(isKnownFormat(TensorFormat{-1}));
    EXPECT_STREQ(formatName(TensorFormat::kDLA_HWC4), "kDLA_HWC4");
    EXPECT_STREQ(formatName(TensorFormat{13}), "unknown");
}

//! The facts, spelled out: the spec's type list for each format (every type for kLINEAR; the DLA formats, on which
//! the spec is silent, every type with a byte per element), the least rank and the vector size.
TEST(HostReformat, RulesFollowTheSpec)
{
    struct Fact
    {
        TensorFormat format;
        TypeSet types;
        int32_t minRank;
        int32_t vectorSize;
        FormatKind kind;
    };
    TypeSet all = 0;
    for (DataType const type : allTypes())
    {
        all |= typeSet({type});
    }
    TypeSet const bytes = all & ~typeSet({DataType::kINT4, DataType::kFP4});
    TypeSet const halves = typeSet({kHalf, DataType::kBF16});
    Fact const facts[] = {
        {TensorFormat::kLINEAR, all, 0, 1, FormatKind::kROW_MAJOR},
        {TensorFormat::kCHW2, halves, 3, 2, FormatKind::kVECTOR_MAJOR},
        {TensorFormat::kHWC8, halves, 3, 8, FormatKind::kVECTOR_MINOR},
        {TensorFormat::kCHW4, typeSet({kInt8}), 3, 4, FormatKind::kVECTOR_MAJOR},
        {TensorFormat::kCHW16, typeSet({kHalf}), 3, 16, FormatKind::kVECTOR_MAJOR},
        {TensorFormat::kCHW32, typeSet({kInt8, kFloat, kHalf}), 3, 32, FormatKind::kVECTOR_MAJOR},
        {TensorFormat::kDHWC8, halves, 4, 8, FormatKind::kVECTOR_MINOR},
        {TensorFormat::kCDHW32, typeSet({kHalf, kInt8}), 4, 32, FormatKind::kVECTOR_MAJOR},
        {TensorFormat::kHWC, typeSet({kFloat, DataType::kUINT8}), 3, 1, FormatKind::kVECTOR_MINOR},
        {TensorFormat::kDLA_LINEAR, bytes, 3, 1, FormatKind::kROW_MAJOR},
        {TensorFormat::kDLA_HWC4, bytes, 3, 4, FormatKind::kVECTOR_MINOR},
        {TensorFormat::kHWC16, typeSet({kHalf, kInt8, DataType::kFP8}), 3, 16, FormatKind::kVECTOR_MINOR},
        {TensorFormat::kDHWC, typeSet({kFloat}), 4, 1, FormatKind::kVECTOR_MINOR},
    };
    ASSERT_EQ(std::size(facts), formatRules().size());
    for (Fact const& fact : facts)
    {
        FormatRule const& rule = ruleOf(fact.format);
        SCOPED_TRACE(rule.name);
        EXPECT_EQ(rule.types, fact.types) << typeSetString(rule.types);
        EXPECT_EQ(rule.minRank, fact.minRank);
        EXPECT_EQ(rule.vectorSize, fact.vectorSize);
        EXPECT_EQ(rule.kind, fact.kind);
        bool const dla = fact.format == TensorFormat::kDLA_LINEAR || fact.format == TensorFormat::kDLA_HWC4;
        EXPECT_EQ(rule.rowAlignmentBytes, dla ? 64 : 0);
    }
}

// ---- Layouts written out by hand ----------------------------------------------------------------------------------
// The input's element L (row-major) holds L + 1; each expectation lists the stored elements in memory order.

TEST(HostReformat, LinearIsRowMajor)
{
    expectLayout(TensorFormat::kLINEAR, kFloat, Dims{2, {2, 3}}, {1, 2, 3, 4, 5, 6});
    expectLayout(TensorFormat::kLINEAR, DataType::kINT32, Dims{0, {}}, {1});
    expectLayout(TensorFormat::kLINEAR, DataType::kINT64, Dims{1, {4}}, {1, 2, 3, 4});
}

TEST(HostReformat, Chw2PairsChannels)
{
    // [1, 3, 2, 2] as [1][2][2][2][2]: the vector of channels 0-1 at every pixel, then that of channel 2 and padding;
    // L = c * 4 + h * 2 + w.
    expectLayout(
        TensorFormat::kCHW2, kHalf, Dims{4, {1, 3, 2, 2}}, {1, 5, 2, 6, 3, 7, 4, 8, 9, 0, 10, 0, 11, 0, 12, 0});
}

TEST(HostReformat, Hwc8PadsChannelsToEight)
{
    // [1, 3, 2, 2] as [1][2][2][8]: each pixel's three channels, then five zeros.
    expectLayout(TensorFormat::kHWC8, kHalf, Dims{4, {1, 3, 2, 2}},
        cat({{1, 5, 9}, zeros(5), {2, 6, 10}, zeros(5), {3, 7, 11}, zeros(5), {4, 8, 12}, zeros(5)}));
}

TEST(HostReformat, Chw4GroupsFourChannels)
{
    // [1, 3, 2, 2] as [1][1][2][2][4]: the fourth channel of each vector is padding.
    expectLayout(
        TensorFormat::kCHW4, kInt8, Dims{4, {1, 3, 2, 2}}, {1, 5, 9, 0, 2, 6, 10, 0, 3, 7, 11, 0, 4, 8, 12, 0});
    // [2, 5, 1, 2] as [2][2][1][2][4]: batch outermost, channels 0-3 then channel 4 and padding; L = n*10 + c*2 + w.
    expectLayout(TensorFormat::kCHW4, kInt8, Dims{4, {2, 5, 1, 2}},
        {1, 3, 5, 7, 2, 4, 6, 8, 9, 0, 0, 0, 10, 0, 0, 0, 11, 13, 15, 17, 12, 14, 16, 18, 19, 0, 0, 0, 20, 0, 0, 0});
    // Rank 3 has no batch: [5, 1, 1] as [2][1][1][4].
    expectLayout(TensorFormat::kCHW4, kInt8, Dims{3, {5, 1, 1}}, {1, 2, 3, 4, 5, 0, 0, 0});
}

TEST(HostReformat, Chw16GroupsSixteenChannels)
{
    // [1, 3, 1, 2] as [1][1][1][2][16]; L = c * 2 + w.
    expectLayout(TensorFormat::kCHW16, kHalf, Dims{4, {1, 3, 1, 2}}, cat({{1, 3, 5}, zeros(13), {2, 4, 6}, zeros(13)}));
}

TEST(HostReformat, Chw32GroupsThirtyTwoChannels)
{
    expectLayout(
        TensorFormat::kCHW32, kFloat, Dims{4, {1, 3, 1, 2}}, cat({{1, 3, 5}, zeros(29), {2, 4, 6}, zeros(29)}));
    // 33 channels need two vectors: channel 32 starts the second.
    std::vector<uint64_t> first(32);
    std::iota(first.begin(), first.end(), 1);
    expectLayout(TensorFormat::kCHW32, kInt8, Dims{4, {1, 33, 1, 1}}, cat({first, {33}, zeros(31)}));
}

TEST(HostReformat, Dhwc8PadsChannelsOverThreeSpatialDimensions)
{
    // [1, 3, 2, 1, 2] (N, C, D, H, W) as [1][2][1][2][8]; L = c * 4 + d * 2 + w.
    expectLayout(TensorFormat::kDHWC8, kHalf, Dims{5, {1, 3, 2, 1, 2}},
        cat({{1, 5, 9}, zeros(5), {2, 6, 10}, zeros(5), {3, 7, 11}, zeros(5), {4, 8, 12}, zeros(5)}));
}

TEST(HostReformat, Cdhw32GroupsChannelsOverThreeSpatialDimensions)
{
    // [1, 2, 2, 1, 1] as [1][1][2][1][1][32]; L = c * 2 + d.
    expectLayout(TensorFormat::kCDHW32, kInt8, Dims{5, {1, 2, 2, 1, 1}}, cat({{1, 3}, zeros(30), {2, 4}, zeros(30)}));
}

TEST(HostReformat, HwcMovesChannelsLastUnpadded)
{
    expectLayout(TensorFormat::kHWC, kFloat, Dims{4, {1, 3, 2, 2}}, {1, 5, 9, 2, 6, 10, 3, 7, 11, 4, 8, 12});
    expectLayout(TensorFormat::kHWC, DataType::kUINT8, Dims{3, {3, 1, 2}}, {1, 3, 5, 2, 4, 6});
}

TEST(HostReformat, DlaLinearPadsRowsTo64Bytes)
{
    // kHALF rows of 3 padded to 32 elements; kFLOAT rows to 16.
    expectLayout(
        TensorFormat::kDLA_LINEAR, kHalf, Dims{4, {1, 1, 2, 3}}, cat({{1, 2, 3}, zeros(29), {4, 5, 6}, zeros(29)}));
    expectLayout(
        TensorFormat::kDLA_LINEAR, kFloat, Dims{4, {1, 2, 1, 3}}, cat({{1, 2, 3}, zeros(13), {4, 5, 6}, zeros(13)}));
}

TEST(HostReformat, DlaHwc4PadsChannelsToFourAndRowsTo64Bytes)
{
    // Three kHALF channels padded to 4 (8 bytes a pixel): rows of 2 pixels padded to 8 pixels.
    expectLayout(TensorFormat::kDLA_HWC4, kHalf, Dims{4, {1, 3, 2, 2}},
        cat({{1, 5, 9, 0, 2, 6, 10, 0}, zeros(24), {3, 7, 11, 0, 4, 8, 12, 0}, zeros(24)}));
    // One kINT8 channel stays one (grayscale): rows of 3 padded to 64.
    expectLayout(
        TensorFormat::kDLA_HWC4, kInt8, Dims{4, {1, 1, 2, 3}}, cat({{1, 2, 3}, zeros(61), {4, 5, 6}, zeros(61)}));
}

TEST(HostReformat, Hwc16PadsChannelsToSixteen)
{
    expectLayout(TensorFormat::kHWC16, kInt8, Dims{4, {1, 3, 1, 2}}, cat({{1, 3, 5}, zeros(13), {2, 4, 6}, zeros(13)}));
}

TEST(HostReformat, DhwcMovesChannelsLastOverThreeSpatialDimensions)
{
    // [2, 2, 1, 1, 2] as [2][1][1][2][2]; L = n * 4 + c * 2 + w.
    expectLayout(TensorFormat::kDHWC, kFloat, Dims{5, {2, 2, 1, 1, 2}}, {1, 3, 2, 4, 5, 7, 6, 8});
}

TEST(HostReformat, LayoutFields)
{
    Expected<FormatLayout> const chw4 = formatLayout(TensorFormat::kCHW4, kInt8, Dims{4, {2, 5, 3, 4}});
    ASSERT_TRUE(chw4.ok());
    EXPECT_EQ(chw4.value().vectorizedDim, 1);
    EXPECT_EQ(chw4.value().vectorSize, 4);
    EXPECT_FALSE(chw4.value().channelsLast);
    EXPECT_EQ(chw4.value().paddedChannels, 8);
    EXPECT_EQ(chw4.value().paddedCount, 2 * 8 * 3 * 4);
    EXPECT_EQ(chw4.value().strides[0], 96); // a batch holds 2 vectors of 3 * 4 pixels of 4
    EXPECT_EQ(chw4.value().strides[1], 48); // between vectors
    EXPECT_EQ(chw4.value().strides[2], 16);
    EXPECT_EQ(chw4.value().strides[3], 4);

    Expected<FormatLayout> const hwc8 = formatLayout(TensorFormat::kHWC8, kHalf, Dims{4, {2, 5, 3, 4}});
    ASSERT_TRUE(hwc8.ok());
    EXPECT_EQ(hwc8.value().vectorizedDim, 1);
    EXPECT_EQ(hwc8.value().vectorSize, 8);
    EXPECT_TRUE(hwc8.value().channelsLast);
    EXPECT_EQ(hwc8.value().paddedChannels, 8);
    EXPECT_EQ(hwc8.value().paddedCount, 2 * 3 * 4 * 8);
    EXPECT_EQ(hwc8.value().strides[0], 96);
    EXPECT_EQ(hwc8.value().strides[1], 1);
    EXPECT_EQ(hwc8.value().strides[2], 32);
    EXPECT_EQ(hwc8.value().strides[3], 8);

    // The channel dimension counts from the end: third-to-last, or fourth-to-last for the 3-D formats.
    EXPECT_EQ(formatLayout(TensorFormat::kCHW32, kFloat, Dims{6, {2, 2, 3, 4, 5, 6}}).value().vectorizedDim, 3);
    EXPECT_EQ(formatLayout(TensorFormat::kCDHW32, kInt8, Dims{6, {2, 2, 3, 4, 5, 6}}).value().vectorizedDim, 2);
    EXPECT_EQ(formatLayout(TensorFormat::kDHWC, kFloat, Dims{4, {3, 4, 5, 6}}).value().vectorizedDim, 0);
    Expected<FormatLayout> const linear = formatLayout(TensorFormat::kLINEAR, kFloat, Dims{3, {2, 3, 4}});
    ASSERT_TRUE(linear.ok());
    EXPECT_EQ(linear.value().vectorizedDim, -1);
    EXPECT_EQ(linear.value().paddedCount, 24);
    EXPECT_EQ(linear.value().strides[0], 12);
    Expected<FormatLayout> const gray = formatLayout(TensorFormat::kDLA_HWC4, kHalf, Dims{3, {1, 2, 3}});
    ASSERT_TRUE(gray.ok());
    EXPECT_EQ(gray.value().vectorSize, 1);
    EXPECT_EQ(gray.value().paddedChannels, 1);
}

// ---- Random round trips, against offsets computed here -----------------------------------------------------------

//! The offset of coordinate x in format, computed from the documented array of each kind: row-major [dims...];
//! vector-major [batch...][ceil(C / V)][spatial...][V]; vector-minor [batch...][spatial...][roundUp(C, V)]; the DLA
//! formats' last dimension padded to roundUp(W, 64 / C' / elementSize) (C' = 1 for kDLA_LINEAR). Also gives the
//! array's element count through total.
int64_t referenceOffset(
    TensorFormat format, DataType type, Dims const& dims, std::vector<int64_t> const& x, int64_t* total = nullptr)
{
    FormatRule const& rule = ruleOf(format);
    int32_t const rank = dims.nbDims;
    auto const es = static_cast<int64_t>(elementSize(type));
    std::vector<int64_t> extents;
    std::vector<int64_t> subscripts;
    auto const add = [&](int64_t extent, int64_t subscript) {
        extents.push_back(extent);
        subscripts.push_back(subscript);
    };
    auto const padWidth = [&](int64_t w, int64_t channels) {
        if (rule.rowAlignmentBytes == 0)
        {
            return w;
        }
        int64_t const multiple = std::max<int64_t>(rule.rowAlignmentBytes / channels / es, 1);
        return (w + multiple - 1) / multiple * multiple;
    };
    auto const at = [&](int32_t i) { return x.empty() ? 0 : x[static_cast<std::size_t>(i)]; };
    if (rule.kind == FormatKind::kROW_MAJOR)
    {
        for (int32_t i = 0; i < rank; ++i)
        {
            add(i == rank - 1 ? padWidth(dims.d[i], 1) : dims.d[i], at(i));
        }
    }
    else
    {
        int32_t const c = rank - rule.minRank;
        int64_t const channels = dims.d[c];
        int64_t const v = rule.vectorSize;
        int64_t const padded = format == TensorFormat::kDLA_HWC4 ? (channels == 1 ? 1 : 4) : (channels + v - 1) / v * v;
        for (int32_t i = 0; i < c; ++i)
        {
            add(dims.d[i], at(i));
        }
        if (rule.kind == FormatKind::kVECTOR_MAJOR)
        {
            add(padded / v, at(c) / v);
        }
        for (int32_t i = c + 1; i < rank; ++i)
        {
            add(i == rank - 1 ? padWidth(dims.d[i], padded) : dims.d[i], at(i));
        }
        if (rule.kind == FormatKind::kVECTOR_MAJOR)
        {
            add(v, at(c) % v);
        }
        else
        {
            add(padded, at(c));
        }
    }
    int64_t offset = 0;
    int64_t size = 1;
    for (std::size_t i = 0; i < extents.size(); ++i)
    {
        offset = offset * extents[i] + subscripts[i];
        size *= extents[i];
    }
    if (total != nullptr)
    {
        *total = size;
    }
    return offset;
}

//! A random shape format takes: rank from its least to 2 more (0 to 5 for kLINEAR), extents 1 to 4, the channel
//! dimension up to 40 (crossing vector boundaries; 1, 3 or 4 for kDLA_HWC4), sometimes an extent of 0.
Dims randomShapeFor(std::mt19937& rng, TensorFormat format)
{
    FormatRule const& rule = ruleOf(format);
    int32_t const least = rule.minRank;
    int32_t const rank
        = format == TensorFormat::kLINEAR ? static_cast<int32_t>(rng() % 6) : least + static_cast<int32_t>(rng() % 3);
    Dims dims{rank, {}};
    for (int32_t i = 0; i < rank; ++i)
    {
        dims.d[i] = 1 + static_cast<int64_t>(rng() % 4);
    }
    if (rule.kind != FormatKind::kROW_MAJOR)
    {
        int64_t const grayOrColor[] = {1, 3, 4};
        dims.d[rank - least]
            = format == TensorFormat::kDLA_HWC4 ? grayOrColor[rng() % 3] : 1 + static_cast<int64_t>(rng() % 40);
    }
    if (rank > 0 && rng() % 15 == 0 && format != TensorFormat::kDLA_HWC4)
    {
        dims.d[rng() % static_cast<uint32_t>(rank)] = 0;
    }
    return dims;
}

//! Random bytes.
void fillBytes(std::mt19937& rng, std::vector<std::byte>& bytes)
{
    for (std::byte& b : bytes)
    {
        b = static_cast<std::byte>(rng() & 0xFFU);
    }
}

TEST(HostReformat, RoundTripsThroughEveryFormatAndType)
{
    std::mt19937 rng(4401);
    int32_t checked = 0;
    for (TensorFormat const format : allFormats())
    {
        for (DataType const type : allTypes())
        {
            if (!contains(ruleOf(format).types, type) || dataTypeBits(type) < 8)
            {
                continue;
            }
            for (int32_t trial = 0; trial < 12; ++trial)
            {
                Dims const dims = randomShapeFor(rng, format);
                SCOPED_TRACE(std::string(formatName(format)) + " " + dataTypeName(type) + " " + shapeString(dims));
                Storage linear(TensorFormat::kLINEAR, type, dims, 0.25F);
                fillBytes(rng, linear.bytes());
                Storage formatted(format, type, dims, 0.25F);
                Status const there = reformat(linear.tensor(), TensorFormat::kLINEAR, formatted.tensor(), format);
                ASSERT_TRUE(there.ok()) << there.error().message;

                // Every element where the documented array puts it, everything else zero.
                int64_t total = 0;
                referenceOffset(format, type, dims, {}, &total);
                ASSERT_EQ(formatted.bytes().size(), static_cast<std::size_t>(total) * elementSize(type));
                Expected<FormatLayout> const layout = formatLayout(format, type, dims);
                ASSERT_TRUE(layout.ok());
                std::vector<bool> used(static_cast<std::size_t>(total), false);
                int64_t const count = elementCount(dims);
                for (int64_t i = 0; i < count; ++i)
                {
                    std::vector<int64_t> const x = coordinatesOf(dims, i);
                    int64_t const offset = referenceOffset(format, type, dims, x);
                    ASSERT_EQ(elementOffset(layout.value(), x), offset) << "logical element " << i;
                    ASSERT_FALSE(used[static_cast<std::size_t>(offset)]);
                    used[static_cast<std::size_t>(offset)] = true;
                    ASSERT_EQ(formatted.raw(offset), linear.raw(i)) << "logical element " << i;
                }
                for (int64_t p = 0; p < total; ++p)
                {
                    if (!used[static_cast<std::size_t>(p)])
                    {
                        ASSERT_EQ(formatted.raw(p), 0U) << "padding element " << p;
                    }
                }

                Storage back(TensorFormat::kLINEAR, type, dims, 0.25F);
                Status const home = reformat(formatted.tensor(), format, back.tensor(), TensorFormat::kLINEAR);
                ASSERT_TRUE(home.ok()) << home.error().message;
                ASSERT_EQ(back.bytes(), linear.bytes());
                ++checked;
            }
        }
    }
    EXPECT_GT(checked, 12 * 20);
}

TEST(HostReformat, RoundTripsOfTheCommonTypes)
{
    // FP32, FP16, INT8 and INT32 through each format that holds them, on larger shapes.
    std::mt19937 rng(4402);
    for (DataType const type : {kFloat, kHalf, kInt8, DataType::kINT32})
    {
        for (TensorFormat const format : allFormats())
        {
            if (!contains(ruleOf(format).types, type))
            {
                continue;
            }
            for (int32_t trial = 0; trial < 6; ++trial)
            {
                Dims dims = randomShapeFor(rng, format);
                for (int32_t i = 0; i < dims.nbDims; ++i)
                {
                    dims.d[i] = dims.d[i] == 0 ? 0 : dims.d[i] + 2;
                }
                if (format == TensorFormat::kDLA_HWC4)
                {
                    dims.d[dims.nbDims - 3] = 3;
                }
                SCOPED_TRACE(std::string(formatName(format)) + " " + dataTypeName(type) + " " + shapeString(dims));
                Storage linear(TensorFormat::kLINEAR, type, dims);
                fillBytes(rng, linear.bytes());
                Storage formatted(format, type, dims);
                Storage back(TensorFormat::kLINEAR, type, dims);
                ASSERT_TRUE(reformat(linear.tensor(), TensorFormat::kLINEAR, formatted.tensor(), format).ok());
                ASSERT_TRUE(reformat(formatted.tensor(), format, back.tensor(), TensorFormat::kLINEAR).ok());
                ASSERT_EQ(back.bytes(), linear.bytes());
            }
        }
    }
}

TEST(HostReformat, BetweenTwoFormatsEqualsThroughLinear)
{
    std::mt19937 rng(4403);
    for (DataType const type : {kFloat, kHalf, kInt8, DataType::kUINT8, DataType::kBF16})
    {
        for (TensorFormat const a : allFormats())
        {
            for (TensorFormat const b : allFormats())
            {
                if (!contains(ruleOf(a).types, type) || !contains(ruleOf(b).types, type))
                {
                    continue;
                }
                int32_t const rank
                    = std::max({ruleOf(a).minRank, ruleOf(b).minRank, 1}) + static_cast<int32_t>(rng() % 2);
                Dims dims{rank, {}};
                for (int32_t i = 0; i < rank; ++i)
                {
                    dims.d[i] = 1 + static_cast<int64_t>(rng() % 5);
                }
                if (rank >= 3 && (a == TensorFormat::kDLA_HWC4 || b == TensorFormat::kDLA_HWC4))
                {
                    dims.d[rank - 3] = 3;
                }
                SCOPED_TRACE(std::string(formatName(a)) + " -> " + formatName(b) + " " + dataTypeName(type) + " "
                    + shapeString(dims));
                Storage linear(TensorFormat::kLINEAR, type, dims);
                fillBytes(rng, linear.bytes());
                Storage inA(a, type, dims);
                ASSERT_TRUE(reformat(linear.tensor(), TensorFormat::kLINEAR, inA.tensor(), a).ok());
                Storage direct(b, type, dims);
                Status const done = reformat(inA.tensor(), a, direct.tensor(), b);
                ASSERT_TRUE(done.ok()) << done.error().message;
                Storage viaLinear(b, type, dims);
                ASSERT_TRUE(reformat(linear.tensor(), TensorFormat::kLINEAR, viaLinear.tensor(), b).ok());
                EXPECT_EQ(direct.bytes(), viaLinear.bytes());
            }
        }
    }
}

TEST(HostReformat, SameFormatCopiesAndClearsPadding)
{
    Dims const dims{4, {1, 3, 2, 2}};
    Storage a(TensorFormat::kCHW4, kInt8, dims);
    std::mt19937 rng(4404);
    fillBytes(rng, a.bytes()); // garbage in the padding too
    Storage b(TensorFormat::kCHW4, kInt8, dims);
    ASSERT_TRUE(reformat(a.tensor(), TensorFormat::kCHW4, b.tensor(), TensorFormat::kCHW4).ok());
    for (int64_t p = 0; p < 16; ++p)
    {
        EXPECT_EQ(b.raw(p), p % 4 == 3 ? 0U : a.raw(p)) << p;
    }
    // The same buffer in the same format is left as it is.
    std::vector<std::byte> const before = a.bytes();
    ASSERT_TRUE(reformat(a.tensor(), TensorFormat::kCHW4, a.tensor(), TensorFormat::kCHW4).ok());
    EXPECT_EQ(a.bytes(), before);
}

TEST(HostReformat, PackedTypesMoveOnlyBetweenLinearTensors)
{
    for (DataType const type : {DataType::kINT4, DataType::kFP4})
    {
        Dims const dims{2, {3, 3}}; // 9 elements: 5 bytes, the last half used
        Storage in(TensorFormat::kLINEAR, type, dims);
        ASSERT_EQ(in.bytes().size(), 5U);
        std::mt19937 rng(4405);
        fillBytes(rng, in.bytes());
        Storage out(TensorFormat::kLINEAR, type, dims);
        ASSERT_TRUE(reformat(in.tensor(), TensorFormat::kLINEAR, out.tensor(), TensorFormat::kLINEAR).ok());
        EXPECT_EQ(out.bytes(), in.bytes());

        std::vector<std::byte> dla(64);
        HostTensor const dlaTensor{dla.data(), type, Dims{3, {1, 3, 3}}};
        HostTensor const in3{in.bytes().data(), type, Dims{3, {1, 3, 3}}};
        expectError(reformat(in3, TensorFormat::kLINEAR, dlaTensor, TensorFormat::kDLA_LINEAR),
            {"reformat: the destination: kDLA_LINEAR holds", std::string("not ") + dataTypeName(type),
                "a packed type, laid out only in kLINEAR"});
        expectError(reformat(in3, TensorFormat::kCHW4, dlaTensor, TensorFormat::kLINEAR),
            {"reformat: the source: kCHW4 holds kINT8, not", "packed"});
    }
}

// ---- Sizes -------------------------------------------------------------------------------------------------------

TEST(HostReformat, BytesIncludePadding)
{
    struct Case
    {
        TensorFormat format;
        DataType type;
        Dims dims;
        int64_t bytes;
    };
    Case const cases[] = {
        {TensorFormat::kLINEAR, kFloat, Dims{2, {2, 3}}, 24},
        {TensorFormat::kLINEAR, DataType::kINT4, Dims{2, {3, 3}}, 5},
        {TensorFormat::kLINEAR, DataType::kFP4, Dims{0, {}}, 1},
        {TensorFormat::kLINEAR, DataType::kINT64, Dims{3, {2, 0, 3}}, 0},
        {TensorFormat::kCHW2, kHalf, Dims{4, {1, 3, 2, 2}}, 2 * 2 * 2 * 2 * 2},
        {TensorFormat::kHWC8, DataType::kBF16, Dims{4, {2, 3, 4, 5}}, 2 * 4 * 5 * 8 * 2},
        {TensorFormat::kCHW4, kInt8, Dims{4, {1, 5, 2, 2}}, 2 * 4 * 4},
        {TensorFormat::kCHW4, kInt8, Dims{3, {5, 1, 1}}, 8},
        {TensorFormat::kCHW4, kInt8, Dims{4, {1, 0, 2, 2}}, 0},
        {TensorFormat::kCHW16, kHalf, Dims{4, {1, 17, 1, 1}}, 32 * 2},
        {TensorFormat::kCHW32, kFloat, Dims{4, {1, 3, 2, 2}}, 32 * 4 * 4},
        {TensorFormat::kCHW32, kFloat, Dims{4, {1, 3, 0, 2}}, 0},
        {TensorFormat::kCHW32, kInt8, Dims{5, {2, 3, 33, 1, 1}}, 2 * 3 * 2 * 32},
        {TensorFormat::kDHWC8, kHalf, Dims{5, {1, 3, 2, 2, 2}}, 8 * 8 * 2},
        {TensorFormat::kCDHW32, kInt8, Dims{5, {1, 33, 1, 1, 1}}, 64},
        {TensorFormat::kHWC, DataType::kUINT8, Dims{4, {1, 3, 2, 2}}, 12},
        {TensorFormat::kDLA_LINEAR, kHalf, Dims{4, {1, 1, 2, 3}}, 2 * 64},
        {TensorFormat::kDLA_LINEAR, kInt8, Dims{4, {1, 1, 2, 3}}, 2 * 64},
        {TensorFormat::kDLA_LINEAR, kInt8, Dims{4, {1, 1, 2, 65}}, 2 * 128},
        {TensorFormat::kDLA_HWC4, kHalf, Dims{4, {1, 3, 2, 2}}, 2 * 64},
        {TensorFormat::kDLA_HWC4, kInt8, Dims{4, {1, 4, 1, 17}}, 32 * 4},
        {TensorFormat::kHWC16, DataType::kFP8, Dims{4, {1, 3, 2, 2}}, 4 * 16},
        {TensorFormat::kDHWC, kFloat, Dims{5, {1, 3, 1, 1, 2}}, 24},
    };
    for (Case const& c : cases)
    {
        Expected<int64_t> const bytes = formatBytes(c.format, c.type, c.dims);
        ASSERT_TRUE(bytes.ok()) << formatName(c.format) << ": " << bytes.error().message;
        EXPECT_EQ(bytes.value(), c.bytes)
            << formatName(c.format) << " " << dataTypeName(c.type) << " " << shapeString(c.dims);
    }
}

// ---- Descriptions ------------------------------------------------------------------------------------------------

TEST(HostReformat, Descriptions)
{
    EXPECT_EQ(formatDescription(kFloat, TensorFormat::kLINEAR), "Row major linear FP32 format (kLINEAR)");
    EXPECT_EQ(formatDescription(kHalf, TensorFormat::kCHW2),
        "Channel vectorized FP16 format, 2 channels per vector, padded to a multiple of 2 (kCHW2)");
    EXPECT_EQ(formatDescription(kHalf, TensorFormat::kHWC8),
        "Channels last FP16 format, channels padded to a multiple of 8 (kHWC8)");
    EXPECT_EQ(formatDescription(kInt8, TensorFormat::kCHW4),
        "Channel vectorized INT8 format, 4 channels per vector, padded to a multiple of 4 (kCHW4)");
    EXPECT_EQ(formatDescription(kHalf, TensorFormat::kCHW16),
        "Channel vectorized FP16 format, 16 channels per vector, padded to a multiple of 16 (kCHW16)");
    EXPECT_EQ(formatDescription(kInt8, TensorFormat::kCHW32),
        "Channel vectorized INT8 format, 32 channels per vector, padded to a multiple of 32 (kCHW32)");
    EXPECT_EQ(formatDescription(DataType::kBF16, TensorFormat::kDHWC8),
        "Channels last 3-D BF16 format, channels padded to a multiple of 8 (kDHWC8)");
    EXPECT_EQ(formatDescription(kInt8, TensorFormat::kCDHW32),
        "Channel vectorized 3-D INT8 format, 32 channels per vector, padded to a multiple of 32 (kCDHW32)");
    EXPECT_EQ(formatDescription(DataType::kUINT8, TensorFormat::kHWC),
        "Channels last UINT8 format, channels unpadded (kHWC)");
    EXPECT_EQ(formatDescription(kHalf, TensorFormat::kDLA_LINEAR),
        "DLA planar FP16 format, rows padded to 64 bytes (kDLA_LINEAR)");
    EXPECT_EQ(formatDescription(kInt8, TensorFormat::kDLA_HWC4),
        "DLA image INT8 format, channels last (1, 3 or 4, padded to 1 or 4), rows padded to 64 bytes (kDLA_HWC4)");
    EXPECT_EQ(formatDescription(DataType::kFP8, TensorFormat::kHWC16),
        "Channels last FP8 format, channels padded to a multiple of 16 (kHWC16)");
    EXPECT_EQ(
        formatDescription(kFloat, TensorFormat::kDHWC), "Channels last 3-D FP32 format, channels unpadded (kDHWC)");
    EXPECT_EQ(formatDescription(kFloat, TensorFormat{13}), "Unknown FP32 format (13)");
    // kLINEAR reads as the runtime already describes I/O tensors, for every type.
    for (DataType const type : allTypes())
    {
        EXPECT_EQ(formatDescription(type, TensorFormat::kLINEAR), linearFormatDescription(type)) << dataTypeName(type);
    }
}

// ---- Refusals ----------------------------------------------------------------------------------------------------

TEST(HostReformat, LayoutRefusals)
{
    expectError(formatLayout(TensorFormat::kCHW4, kInt8, Dims{2, {4, 4}}),
        {"kCHW4 needs a rank of at least 3 (its channel dimension is third-to-last) but [4, 4] has rank 2"});
    expectError(
        formatLayout(TensorFormat::kHWC, kFloat, Dims{0, {}}), {"kHWC needs a rank of at least 3", "[] has rank 0"});
    expectError(formatLayout(TensorFormat::kDHWC8, kHalf, Dims{3, {3, 4, 5}}),
        {"kDHWC8 needs a rank of at least 4 (its channel dimension is fourth-to-last) but [3, 4, 5] has rank 3"});
    expectError(formatLayout(TensorFormat::kCDHW32, kInt8, Dims{3, {3, 4, 5}}), {"kCDHW32 needs a rank of at least 4"});
    expectError(formatLayout(TensorFormat::kDHWC, kFloat, Dims{3, {3, 4, 5}}), {"kDHWC needs a rank of at least 4"});
    expectError(formatLayout(TensorFormat::kDLA_LINEAR, kHalf, Dims{2, {4, 4}}),
        {"kDLA_LINEAR needs a rank of at least 3 but [4, 4] has rank 2"});

    expectError(formatLayout(TensorFormat::kCHW4, kFloat, Dims{4, {1, 4, 2, 2}}), {"kCHW4 holds kINT8, not kFLOAT"});
    expectError(formatLayout(TensorFormat::kHWC16, kFloat, Dims{4, {1, 4, 2, 2}}),
        {"kHWC16 holds kHALF, kINT8, kFP8, not kFLOAT"});
    expectError(formatLayout(TensorFormat::kCHW32, DataType::kINT32, Dims{4, {1, 4, 2, 2}}),
        {"kCHW32 holds kFLOAT, kHALF, kINT8, not kINT32"});
    expectError(formatLayout(TensorFormat::kDLA_HWC4, DataType::kFP4, Dims{4, {1, 4, 2, 2}}),
        {"kDLA_HWC4 holds", "not kFP4 (a packed type, laid out only in kLINEAR)"});
    // Every type a format does not hold, refused with both names.
    for (TensorFormat const format : allFormats())
    {
        for (DataType const type : allTypes())
        {
            Expected<FormatLayout> const layout = formatLayout(format, type, Dims{5, {1, 1, 4, 2, 2}});
            if (contains(ruleOf(format).types, type))
            {
                EXPECT_TRUE(layout.ok()) << formatName(format) << " " << dataTypeName(type) << ": "
                                         << layout.error().message;
            }
            else
            {
                expectError(
                    layout, {std::string(formatName(format)) + " holds ", std::string(", not ") + dataTypeName(type)});
            }
        }
    }

    expectError(formatLayout(TensorFormat::kDLA_HWC4, kHalf, Dims{4, {1, 2, 4, 4}}),
        {"kDLA_HWC4 takes 1, 3 or 4 channels (dimension 1) but [1, 2, 4, 4] has 2"});
    expectError(formatLayout(TensorFormat::kDLA_HWC4, kHalf, Dims{3, {5, 4, 4}}), {"1, 3 or 4 channels", "has 5"});
    expectError(formatLayout(TensorFormat{13}, kFloat, Dims{1, {2}}), {"format 13 is not a TensorFormat"});
    expectError(
        formatLayout(TensorFormat::kLINEAR, DataType{42}, Dims{1, {2}}), {"kLINEAR: type 42 is not a DataType"});
    expectError(formatLayout(TensorFormat::kCHW4, kInt8, Dims{4, {1, -1, 2, 2}}),
        {"kCHW4: the dims [1, -1, 2, 2] is not a concrete shape"});
    expectError(formatBytes(TensorFormat::kLINEAR, kFloat, Dims{-1, {}}), {"not a concrete shape"});

    int64_t const huge = int64_t{1} << 61;
    expectError(formatLayout(TensorFormat::kLINEAR, DataType::kINT64, Dims{2, {huge, 8}}),
        {"kLINEAR: the dims", "has more elements than a 64-bit count holds"});
    expectError(formatBytes(TensorFormat::kLINEAR, kFloat, Dims{1, {huge}}),
        {"kLINEAR: the dims", "of kFLOAT take more bytes than int64_t counts"});
    expectError(formatLayout(TensorFormat::kHWC8, kHalf, Dims{3, {std::numeric_limits<int64_t>::max(), 1, 1}}),
        {"kHWC8: the dims", "take more elements"});
    expectError(
        formatLayout(TensorFormat::kCHW32, kInt8, Dims{4, {huge, 32, 1, 1}}), {"kCHW32: the dims", "more elements"});
}

TEST(HostReformat, ReformatRefusals)
{
    Dims const dims{4, {1, 3, 2, 2}};
    Storage half(TensorFormat::kLINEAR, kHalf, dims);
    Storage chw2(TensorFormat::kCHW2, kHalf, dims);
    Storage floats(TensorFormat::kLINEAR, kFloat, dims);
    expectError(reformat(half.tensor(), TensorFormat::kLINEAR, floats.tensor(), TensorFormat::kLINEAR),
        {"reformat: the source is kHALF but the destination is kFLOAT"});

    Storage other(TensorFormat::kCHW2, kHalf, Dims{4, {1, 4, 2, 2}});
    expectError(reformat(half.tensor(), TensorFormat::kLINEAR, other.tensor(), TensorFormat::kCHW2),
        {"reformat: the source has dims [1, 3, 2, 2] but the destination has [1, 4, 2, 2]"});
    Storage rank3(TensorFormat::kLINEAR, kHalf, Dims{3, {3, 2, 2}});
    expectError(reformat(half.tensor(), TensorFormat::kLINEAR, rank3.tensor(), TensorFormat::kLINEAR),
        {"[1, 3, 2, 2] but the destination has [3, 2, 2]"});

    expectError(reformat(half.tensor(), TensorFormat::kCHW4, chw2.tensor(), TensorFormat::kCHW2),
        {"reformat: the source: kCHW4 holds kINT8, not kHALF"});
    Storage hwc8(TensorFormat::kHWC8, kHalf, Dims{3, {3, 2, 2}});
    expectError(reformat(rank3.tensor(), TensorFormat::kLINEAR, hwc8.tensor(), TensorFormat::kDHWC8),
        {"reformat: the destination: kDHWC8 needs a rank of at least 4", "[3, 2, 2] has rank 3"});
    expectError(reformat(half.tensor(), TensorFormat::kLINEAR, chw2.tensor(), TensorFormat{99}),
        {"reformat: the destination: format 99 is not a TensorFormat"});

    Storage int8a(TensorFormat::kLINEAR, kInt8, dims, 0.5F);
    Storage int8b(TensorFormat::kCHW4, kInt8, dims, 0.25F);
    expectError(reformat(int8a.tensor(), TensorFormat::kLINEAR, int8b.tensor(), TensorFormat::kCHW4),
        {"reformat: the kINT8 source has scale 0.5", "destination has scale 0.25", "not requantized"});

    HostTensor noData = half.tensor();
    noData.data = nullptr;
    expectError(reformat(noData, TensorFormat::kLINEAR, chw2.tensor(), TensorFormat::kCHW2),
        {"reformat: the source of shape [1, 3, 2, 2] has no data"});
    HostTensor noOutput = chw2.tensor();
    noOutput.data = nullptr;
    expectError(reformat(half.tensor(), TensorFormat::kLINEAR, noOutput, TensorFormat::kCHW2),
        {"reformat: the destination of shape [1, 3, 2, 2] has no data"});
    // Empty tensors need no data.
    HostTensor const emptyIn{nullptr, kHalf, Dims{4, {1, 0, 2, 2}}};
    HostTensor const emptyOut{nullptr, kHalf, Dims{4, {1, 0, 2, 2}}};
    EXPECT_TRUE(reformat(emptyIn, TensorFormat::kLINEAR, emptyOut, TensorFormat::kHWC8).ok());

    // Overlapping storage in different formats.
    Storage big(TensorFormat::kCHW2, kHalf, dims);
    HostTensor const shifted{big.bytes().data() + 2, kHalf, dims};
    expectError(reformat(big.tensor(), TensorFormat::kCHW2, shifted, TensorFormat::kLINEAR),
        {"reformat: the source (kCHW2) and the destination (kLINEAR) overlap"});
    expectError(reformat(big.tensor(), TensorFormat::kCHW2, big.tensor(), TensorFormat::kLINEAR), {"overlap"});
}

} // namespace
} // namespace kiln::host::test
