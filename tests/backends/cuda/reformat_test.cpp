// SPDX-License-Identifier: Apache-2.0
// The CUDA reformat against the host's: every pair of the 13 formats with the types both hold (the packed and scale
// types of kLINEAR included) on random shapes and bytes, the destination's whole storage compared (padding zeroed
// over prefilled garbage), empty tensors, a grid larger than one pass, the copy and in-place paths, and the refusals
// with the host's messages.
#include "backends/host/reformat.h"

#include "movement_test_util.h"

#include <array>

namespace kiln::cuda::test
{
namespace
{

using nvinfer1::TensorFormat;

//! Host storage of a tensor laid out in a format: formatBytes bytes (none when the format refuses the tensor).
struct Storage
{
    Storage(TensorFormat format, DataType type, Dims const& dims, float scale = 1.F)
        : buffer(DataType::kUINT8, Dims{1, {bytesOf(format, type, dims)}})
        , view{buffer.tensor().data, type, dims, scale}
    {
    }
    static int64_t bytesOf(TensorFormat format, DataType type, Dims const& dims)
    {
        Expected<int64_t> const bytes = host::formatBytes(format, type, dims);
        return bytes ? bytes.value() : 0;
    }
    HostBuffer buffer;
    HostTensor view;
};

class CudaReformat : public CudaKernelTest
{
protected:
    //! Reformats random bytes (padding included) of type and dims from one format to another on the host and the
    //! device, both destinations prefilled with 0xA5, and compares outcomes and every destination byte.
    void check(TensorFormat from, TensorFormat to, DataType type, Dims const& dims, std::string const& what)
    {
        Storage src(from, type, dims);
        randomBytes(src.buffer, mRng);
        Storage expected(to, type, dims);
        for (std::byte& b : expected.buffer.bytes())
        {
            b = std::byte{0xA5};
        }
        DeviceBuffer const dsrc = DeviceBuffer::upload(src.buffer.tensor());
        DeviceBuffer const ddst = DeviceBuffer::upload(expected.buffer.tensor()); // the same garbage
        Status const hostStatus = host::reformat(src.view, from, expected.view, to);
        DeviceTensor const srcView{dsrc.tensor().data, type, dims, 1.F};
        DeviceTensor const dstView{ddst.tensor().data, type, dims, 1.F};
        Status const deviceStatus = runReformat(srcView, from, dstView, to, launch());
        if (sameOutcome(deviceStatus, hostStatus, what))
        {
            HostBuffer actual = ddst.download(mStream);
            expectSameBytes(actual, expected.buffer, what, std::max<int64_t>(dataTypeBits(type) / 8, 1));
        }
    }

    //! A random shape for a tensor in both formats: rank at least both formats' least ranks, the channel extent of
    //! each vectorizing format up to 40 (1, 3 or 4 for kDLA_HWC4), zeros sometimes.
    Dims randomDims(TensorFormat from, TensorFormat to, bool zeros)
    {
        host::FormatRule const& a = host::formatRules()[static_cast<std::size_t>(from)];
        host::FormatRule const& b = host::formatRules()[static_cast<std::size_t>(to)];
        int32_t const rank = std::max(a.minRank, b.minRank) + static_cast<int32_t>(mRng() % 3);
        Dims dims = randomShape(mRng, rank, 4, zeros);
        for (host::FormatRule const* rule : {&a, &b})
        {
            if (rule->kind != host::FormatKind::kROW_MAJOR)
            {
                dims.d[rank - rule->minRank] = 1 + static_cast<int64_t>(mRng() % 40);
            }
        }
        for (host::FormatRule const* rule : {&a, &b})
        {
            if (rule->format == TensorFormat::kDLA_HWC4)
            {
                dims.d[rank - 3] = std::array<int64_t, 3>{1, 3, 4}[mRng() % 3];
            }
        }
        return dims;
    }
};

TEST_F(CudaReformat, EveryPairOfFormatsMatchesTheHost)
{
    for (host::FormatRule const& a : host::formatRules())
    {
        for (host::FormatRule const& b : host::formatRules())
        {
            std::vector<DataType> types;
            for (int32_t t = 0; t < nvinfer1::EnumMax<DataType>(); ++t)
            {
                auto const type = static_cast<DataType>(t);
                if (host::contains(a.types & b.types, type))
                {
                    types.push_back(type);
                }
            }
            for (DataType const type : types)
            {
                for (int32_t trial = 0; trial < 3; ++trial)
                {
                    Dims const dims = randomDims(a.format, b.format, trial == 2);
                    check(a.format, b.format, type, dims,
                        std::string(a.name) + " to " + b.name + " " + describe(type, dims));
                }
            }
        }
    }
}

TEST_F(CudaReformat, LargeTensorsLoopOverTheGrid)
{
    Dims const dims{4, {2, 40, 171, 170}};
    check(TensorFormat::kLINEAR, TensorFormat::kCHW32, DataType::kHALF, dims, "large kLINEAR to kCHW32");
    check(TensorFormat::kCHW32, TensorFormat::kHWC8, DataType::kHALF, dims, "large kCHW32 to kHWC8");
    check(TensorFormat::kHWC16, TensorFormat::kLINEAR, DataType::kINT8, dims, "large kHWC16 to kLINEAR");
    check(TensorFormat::kDLA_LINEAR, TensorFormat::kLINEAR, DataType::kINT64, dims, "large kDLA_LINEAR to kLINEAR");
    // A stem's input: 3 colour channels padded to 8 (one 16-byte row per position), and 5 of bfloat16.
    check(TensorFormat::kLINEAR, TensorFormat::kHWC8, DataType::kHALF, Dims{4, {3, 3, 171, 170}}, "stem to kHWC8");
    check(TensorFormat::kLINEAR, TensorFormat::kHWC8, DataType::kBF16, Dims{4, {2, 5, 99, 70}}, "5 to kHWC8");
}

TEST_F(CudaReformat, CopiesAndLeavesInPlace)
{
    check(TensorFormat::kLINEAR, TensorFormat::kLINEAR, DataType::kINT4, Dims{2, {3, 5}}, "packed copy");
    check(TensorFormat::kLINEAR, TensorFormat::kLINEAR, DataType::kFLOAT, Dims{0, {}}, "rank 0 copy");
    check(TensorFormat::kCHW4, TensorFormat::kCHW4, DataType::kINT8, Dims{3, {5, 2, 3}}, "same padded format");

    // The same buffer in the same format: nothing to do, nothing written.
    HostBuffer bytes(DataType::kFLOAT, Dims{1, {6}});
    randomBytes(bytes, mRng);
    DeviceBuffer const dbytes = DeviceBuffer::upload(bytes.tensor());
    DeviceTensor const view{dbytes.tensor().data, DataType::kFLOAT, Dims{3, {1, 2, 3}}, 1.F};
    ASSERT_TRUE(runReformat(view, TensorFormat::kHWC, view, TensorFormat::kHWC, launch()).ok());
    HostBuffer after = dbytes.download(mStream);
    expectSameBytes(after, bytes, "in place");
}

TEST_F(CudaReformat, RefusesWhatTheHostRefuses)
{
    check(TensorFormat::kLINEAR, TensorFormat::kCHW4, DataType::kFLOAT, Dims{3, {4, 2, 2}}, "kCHW4 of kFLOAT");
    check(TensorFormat::kLINEAR, TensorFormat::kDLA_HWC4, DataType::kHALF, Dims{3, {2, 2, 2}}, "two channels");
    check(TensorFormat::kLINEAR, TensorFormat::kCDHW32, DataType::kHALF, Dims{3, {2, 2, 2}}, "rank 3 of kCDHW32");
    check(TensorFormat::kLINEAR, TensorFormat::kCHW32, DataType::kINT4, Dims{3, {2, 2, 2}}, "packed kCHW32");

    HostBuffer const a(DataType::kINT8, Dims{3, {1, 4, 4}});
    DeviceBuffer const da(a.tensor());
    DeviceBuffer const db(HostBuffer(DataType::kUINT8, Dims{1, {64}}).tensor());
    DeviceTensor const src = da.tensor();
    DeviceTensor half{db.tensor().data, DataType::kHALF, Dims{3, {1, 4, 4}}, 1.F};
    Status const types = runReformat(src, TensorFormat::kLINEAR, half, TensorFormat::kLINEAR, launch());
    ASSERT_FALSE(types.ok());
    EXPECT_EQ(types.error().message, "reformat: the source is kINT8 but the destination is kHALF");

    DeviceTensor scaled{db.tensor().data, DataType::kINT8, Dims{3, {1, 4, 4}}, 0.5F};
    Status const scales = runReformat(src, TensorFormat::kLINEAR, scaled, TensorFormat::kCHW4, launch());
    ASSERT_FALSE(scales.ok());
    EXPECT_EQ(scales.error().message.rfind("reformat: the kINT8 source has scale 1.000000 but the destination has "
                                           "scale 0.500000",
                  0),
        0U);

    DeviceTensor overlapping{static_cast<std::byte*>(src.data) + 8, DataType::kINT8, Dims{3, {1, 4, 4}}, 1.F};
    Status const overlap = runReformat(src, TensorFormat::kLINEAR, overlapping, TensorFormat::kCHW4, launch());
    ASSERT_FALSE(overlap.ok());
    EXPECT_EQ(overlap.error().message, "reformat: the source (kLINEAR) and the destination (kCHW4) overlap");

    DeviceTensor noData{nullptr, DataType::kINT8, Dims{3, {1, 4, 4}}, 1.F};
    Status const missing = runReformat(src, TensorFormat::kLINEAR, noData, TensorFormat::kCHW4, launch());
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().message, "reformat: the destination of shape [1, 4, 4] has no data");
}

} // namespace
} // namespace kiln::cuda::test
