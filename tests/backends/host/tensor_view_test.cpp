// SPDX-License-Identifier: Apache-2.0
// The host tensor view: shapes, broadcasting and its messages, type sets, tensor checks, and the element loads and
// stores every host kernel goes through (single rounding, saturation, wrap-around, quantization with a scale).
#include "backends/host/tensor_view.h"

#include "host_test_util.h"

#include <bit>

namespace kiln::host::test
{
namespace
{

TEST(HostTensorView, Shapes)
{
    EXPECT_EQ(elementCount(Dims{0, {}}), 1);
    EXPECT_EQ(elementCount(Dims{3, {2, 3, 4}}), 24);
    EXPECT_EQ(elementCount(Dims{2, {5, 0}}), 0);
    EXPECT_EQ(elementCount(Dims{2, {5, -1}}), 0) << "not a concrete shape";
    EXPECT_EQ(elementCount(Dims{9, {}}), 0);
    EXPECT_TRUE(isValidShape(Dims{8, {1, 1, 1, 1, 1, 1, 1, 1}}));
    EXPECT_FALSE(isValidShape(Dims{-1, {}}));
    EXPECT_EQ(shapeString(Dims{0, {}}), "[]");
    EXPECT_EQ(shapeString(Dims{3, {2, 0, 7}}), "[2, 0, 7]");
    EXPECT_EQ(shapeString(Dims{-1, {}}), "(rank -1)");
    EXPECT_TRUE(sameShape(Dims{2, {2, 3}}, Dims{2, {2, 3, 9}}));
    EXPECT_FALSE(sameShape(Dims{2, {2, 3}}, Dims{2, {3, 2}}));
    EXPECT_FALSE(sameShape(Dims{1, {6}}, Dims{2, {2, 3}}));
}

TEST(HostTensorView, BroadcastShapesFollowTensorRT)
{
    auto const shape = [](Dims const& a, Dims const& b) {
        Expected<Dims> const out = broadcastShapes(a, b);
        return out.ok() ? shapeString(out.value()) : out.error().message;
    };
    EXPECT_EQ(shape(Dims{2, {2, 3}}, Dims{2, {2, 3}}), "[2, 3]");
    EXPECT_EQ(shape(Dims{2, {2, 1}}, Dims{2, {1, 3}}), "[2, 3]");
    EXPECT_EQ(shape(Dims{3, {1, 1, 1}}, Dims{3, {4, 5, 6}}), "[4, 5, 6]");
    EXPECT_EQ(shape(Dims{2, {1, 0}}, Dims{2, {7, 1}}), "[7, 0]");
    EXPECT_EQ(shape(Dims{2, {2, 3}}, Dims{2, {3, 3}}),
        "shapes [2, 3] and [3, 3] do not broadcast: dimension 0 is 2 and 3 (extents must be equal or one of them 1)");
    EXPECT_EQ(shape(Dims{2, {2, 3}}, Dims{1, {3}}),
        "shapes [2, 3] and [3] have different ranks (2 and 1); broadcasting needs equal ranks");
    EXPECT_EQ(shape(Dims{1, {2}}, Dims{1, {0}}),
        "shapes [2] and [0] do not broadcast: dimension 0 is 2 and 0 (extents must be equal or one of them 1)");
    EXPECT_EQ(shape(Dims{1, {-4}}, Dims{1, {1}}), "shape [-4] is not a concrete shape (rank 0 to 8, extents >= 0)");
}

TEST(HostTensorView, BroadcastMapAgreesWithCoordinates)
{
    std::mt19937 rng(7);
    for (int32_t trial = 0; trial < 200; ++trial)
    {
        Dims const out = randomShape(rng, 64);
        Dims const in = broadcastInput(rng, out);
        BroadcastMap const map(out, in);
        for (int64_t i = 0; i < elementCount(out); ++i)
        {
            ASSERT_EQ(map(i), broadcastSource(out, in, i)) << shapeString(in) << " to " << shapeString(out);
        }
    }
    // [2, 1, 3] read as [2, 4, 3]: element (1, 2, 2) = 1*12 + 2*3 + 2 reads (1, 0, 2) = 1*3 + 2.
    EXPECT_EQ(BroadcastMap(Dims{3, {2, 4, 3}}, Dims{3, {2, 1, 3}})(20), 5);
    EXPECT_EQ(BroadcastMap(Dims{0, {}}, Dims{0, {}})(0), 0);
}

TEST(HostTensorView, TypeSets)
{
    TypeSet const set = typeSet({DataType::kBF16, DataType::kFLOAT});
    EXPECT_TRUE(contains(set, DataType::kFLOAT));
    EXPECT_FALSE(contains(set, DataType::kHALF));
    EXPECT_FALSE(contains(set, DataType{40}));
    EXPECT_EQ(typeSetString(set), "kFLOAT, kBF16");
    EXPECT_EQ(typeSetString(0), "none");
    EXPECT_EQ(typeSetString(kHostTypes), "kFLOAT, kHALF, kINT8, kINT32, kBOOL, kUINT8, kFP8, kBF16, kINT64");
    EXPECT_EQ(numberKind(DataType::kINT8), NumberKind::kFLOATING);
    EXPECT_EQ(numberKind(DataType::kFP8), NumberKind::kFLOATING);
    EXPECT_EQ(numberKind(DataType::kUINT8), NumberKind::kINTEGER);
    EXPECT_EQ(numberKind(DataType::kBOOL), NumberKind::kBOOL);
    EXPECT_EQ(numberKind(DataType::kINT4), NumberKind::kNONE);
    EXPECT_EQ(numberKind(DataType::kE8M0), NumberKind::kNONE);
}

TEST(HostTensorView, CheckTensor)
{
    HostBuffer ok(DataType::kINT8, Dims{1, {2}}, 0.5F);
    EXPECT_FALSE(checkTensor(ok.tensor(), "input").has_value());
    auto const message = [](HostTensor const& t) {
        std::optional<Error> const error = checkTensor(t, "input 1");
        return error ? error->message : std::string("ok");
    };
    int8_t storage[4]{};
    EXPECT_EQ(message(HostTensor{storage, DataType::kINT4, Dims{1, {2}}}),
        "input 1 has type kINT4, which the host backend does not compute on (it takes kFLOAT, kHALF, kINT8, kINT32, "
        "kBOOL, kUINT8, kFP8, kBF16, kINT64)");
    EXPECT_EQ(message(HostTensor{storage, DataType::kFLOAT, Dims{1, {-2}}}),
        "input 1 has shape [-2], not a concrete shape (rank 0 to 8, extents >= 0)");
    EXPECT_EQ(message(HostTensor{nullptr, DataType::kFLOAT, Dims{1, {2}}}), "input 1 of shape [2] has no data");
    EXPECT_EQ(message(HostTensor{nullptr, DataType::kFLOAT, Dims{1, {0}}}), "ok");
    EXPECT_EQ(message(HostTensor{storage, DataType::kFP8, Dims{1, {2}}, -1.0F}),
        "input 1 (kFP8) has scale -1; a quantization scale must be positive and finite");
    EXPECT_EQ(message(HostTensor{storage, DataType::kFLOAT, Dims{1, {1}}, -1.0F}), "ok") << "unscaled types ignore it";
}

//! storeFloat(value) into a one-element tensor of type, read back with the test's own decoding.
double storeAndDecode(DataType type, double value, float scale = 1.0F)
{
    HostBuffer buffer(type, Dims{0, {}}, scale);
    storeFloat(buffer.tensor(), 0, value);
    return decode(type, bytesOf(buffer), 0, scale);
}

double storeIntegerAndDecode(DataType type, int64_t value)
{
    HostBuffer buffer(type, Dims{0, {}});
    storeInteger(buffer.tensor(), 0, value);
    return numberKind(type) == NumberKind::kFLOATING ? decode(type, bytesOf(buffer), 0, 1.0F)
                                                     : static_cast<double>(decodeInteger(type, bytesOf(buffer), 0));
}

TEST(HostTensorView, StoreFloatRoundsOnce)
{
    // Through a float rounded to nearest, 1 + 2^-11 + 2^-30 would become the tie 1 + 2^-11 and go to even 1.0.
    EXPECT_EQ(storeAndDecode(DataType::kHALF, 1.0 + 0x1p-11 + 0x1p-30), 1.0 + 0x1p-10);
    EXPECT_EQ(storeAndDecode(DataType::kHALF, 1.0 + 0x1p-11), 1.0);
    EXPECT_EQ(storeAndDecode(DataType::kBF16, 1.0 + 0x1p-8 + 0x1p-40), 1.0 + 0x1p-7);
    EXPECT_EQ(storeAndDecode(DataType::kBF16, -(1.0 + 0x1p-8 + 0x1p-40)), -(1.0 + 0x1p-7));
    EXPECT_EQ(storeAndDecode(DataType::kFLOAT, 1.0 + 0x1p-24 + 0x1p-50), 1.0 + 0x1p-23);
    EXPECT_EQ(storeAndDecode(DataType::kHALF, 0x1p-25 + 0x1p-60), 0x1p-24) << "above half the smallest subnormal";
    EXPECT_EQ(storeAndDecode(DataType::kHALF, 0x1p-25), 0.0);
    EXPECT_EQ(storeAndDecode(DataType::kHALF, 1e-300), 0.0);
    EXPECT_TRUE(std::signbit(storeAndDecode(DataType::kHALF, -1e-300)));
    EXPECT_EQ(storeAndDecode(DataType::kHALF, 65519.99), 65504.0);
    EXPECT_EQ(storeAndDecode(DataType::kHALF, 65520.0), kInf);
    EXPECT_EQ(storeAndDecode(DataType::kBF16, 1e300), kInf);
    EXPECT_EQ(storeAndDecode(DataType::kFLOAT, -1e300), -kInf);
    EXPECT_TRUE(std::isnan(storeAndDecode(DataType::kHALF, kNan)));
    EXPECT_TRUE(std::isnan(storeAndDecode(DataType::kBF16, kNan)));
    EXPECT_EQ(storeAndDecode(DataType::kFP8, 1000.0), 448.0);
    EXPECT_EQ(storeAndDecode(DataType::kFP8, -kInf), -448.0);
    EXPECT_TRUE(std::isnan(storeAndDecode(DataType::kFP8, kNan)));
    EXPECT_EQ(storeAndDecode(DataType::kFP8, 1024.0, 4.0F), 1024.0);
    EXPECT_EQ(storeAndDecode(DataType::kFP8, 1000.0, 4.0F), 1024.0) << "250 steps round to 256";
}

TEST(HostTensorView, StoreFloatIntoIntegersTruncatesAndSaturates)
{
    EXPECT_EQ(storeAndDecode(DataType::kINT32, 2.9), 2.0);
    EXPECT_EQ(storeAndDecode(DataType::kINT32, -2.9), -2.0);
    EXPECT_EQ(storeAndDecode(DataType::kINT32, 3e9), 2147483647.0);
    EXPECT_EQ(storeAndDecode(DataType::kINT32, -kInf), -2147483648.0);
    EXPECT_EQ(storeAndDecode(DataType::kINT32, kNan), 0.0);
    EXPECT_EQ(storeAndDecode(DataType::kINT64, 0x1p63), 0x1p63) << "INT64_MAX, read back as 2^63 in double";
    HostBuffer wide(DataType::kINT64, Dims{0, {}});
    storeFloat(wide.tensor(), 0, 0x1p63);
    EXPECT_EQ(decodeInteger(DataType::kINT64, bytesOf(wide), 0), std::numeric_limits<int64_t>::max());
    storeFloat(wide.tensor(), 0, -1e19);
    EXPECT_EQ(decodeInteger(DataType::kINT64, bytesOf(wide), 0), std::numeric_limits<int64_t>::min());
    storeFloat(wide.tensor(), 0, 0x1p62 + 0x1p10);
    EXPECT_EQ(decodeInteger(DataType::kINT64, bytesOf(wide), 0), (int64_t{1} << 62) + 1024);
    EXPECT_EQ(storeAndDecode(DataType::kUINT8, -1.5), 0.0);
    EXPECT_EQ(storeAndDecode(DataType::kUINT8, 255.9), 255.0);
    EXPECT_EQ(storeAndDecode(DataType::kUINT8, 1e6), 255.0);
    EXPECT_EQ(storeAndDecode(DataType::kBOOL, kNan), 1.0);
    EXPECT_EQ(storeAndDecode(DataType::kBOOL, -0.0), 0.0);
    EXPECT_EQ(storeAndDecode(DataType::kBOOL, 1e-300), 1.0);
}

TEST(HostTensorView, Int8QuantizesWithItsScale)
{
    EXPECT_EQ(storeAndDecode(DataType::kINT8, 2.5), 2.0);
    EXPECT_EQ(storeAndDecode(DataType::kINT8, 3.5), 4.0);
    EXPECT_EQ(storeAndDecode(DataType::kINT8, -2.5), -2.0);
    EXPECT_EQ(storeAndDecode(DataType::kINT8, 1000.0), 127.0);
    EXPECT_EQ(storeAndDecode(DataType::kINT8, -1000.0), -128.0);
    EXPECT_EQ(storeAndDecode(DataType::kINT8, kNan), 0.0);
    EXPECT_EQ(storeAndDecode(DataType::kINT8, 1.25, 0.5F), 1.0) << "2.5 steps go to even 2";
    EXPECT_EQ(storeAndDecode(DataType::kINT8, 100.0, 0.5F), 63.5);
    HostBuffer q(DataType::kINT8, Dims{1, {2}}, 0.5F);
    static_cast<int8_t*>(q.tensor().data)[0] = -128;
    static_cast<int8_t*>(q.tensor().data)[1] = 3;
    EXPECT_EQ(loadFloat(q.tensor(), 0), -64.0);
    EXPECT_EQ(loadFloat(q.tensor(), 1), 1.5);
    EXPECT_EQ(loadInteger(q.tensor(), 1), 1) << "a floating value read as an integer truncates";
}

TEST(HostTensorView, StoreIntegerWrapsAndRoundsOnce)
{
    EXPECT_EQ(storeIntegerAndDecode(DataType::kINT32, (int64_t{1} << 32) + 5), 5.0);
    EXPECT_EQ(storeIntegerAndDecode(DataType::kINT32, int64_t{1} << 31), -2147483648.0);
    EXPECT_EQ(storeIntegerAndDecode(DataType::kUINT8, 257), 1.0);
    EXPECT_EQ(storeIntegerAndDecode(DataType::kUINT8, -1), 255.0);
    EXPECT_EQ(storeIntegerAndDecode(DataType::kBOOL, 2), 1.0);
    EXPECT_EQ(storeIntegerAndDecode(DataType::kBOOL, 0), 0.0);
    EXPECT_EQ(storeIntegerAndDecode(DataType::kFLOAT, (int64_t{1} << 60) + (int64_t{1} << 36) + 1), 0x1p60 + 0x1p37);
    EXPECT_EQ(storeIntegerAndDecode(DataType::kFLOAT, (1 << 24) + 1), 0x1p24);
    EXPECT_EQ(storeIntegerAndDecode(DataType::kHALF, 65519), 65504.0);
    EXPECT_EQ(storeIntegerAndDecode(DataType::kHALF, 2049), 2048.0);
    EXPECT_EQ(storeIntegerAndDecode(DataType::kHALF, 2051), 2052.0);
    EXPECT_EQ(storeIntegerAndDecode(DataType::kINT8, 200), 127.0);
    EXPECT_EQ(storeIntegerAndDecode(DataType::kFP8, 17), 16.0) << "17 ties to even 16";
    EXPECT_EQ(storeIntegerAndDecode(DataType::kFP8, std::numeric_limits<int64_t>::min()), -448.0);
}

TEST(HostTensorView, LoadsDecodeEveryType)
{
    HostBuffer b(DataType::kBOOL, Dims{1, {2}});
    static_cast<uint8_t*>(b.tensor().data)[1] = 2;
    EXPECT_EQ(loadFloat(b.tensor(), 1), 1.0) << "any nonzero byte is true";
    EXPECT_EQ(loadInteger(b.tensor(), 1), 1);
    std::mt19937 rng(11);
    for (DataType const type : allTypes())
    {
        if (!contains(kHostTypes, type))
        {
            continue;
        }
        HostBuffer buffer(type, Dims{1, {64}}, contains(kScaledTypes, type) ? 0.375F : 1.0F);
        for (std::byte& byte : buffer.bytes())
        {
            byte = static_cast<std::byte>(rng());
        }
        for (int64_t i = 0; i < 64; ++i)
        {
            double const expected = decode(type, bytesOf(buffer), i, buffer.tensor().scale);
            double const actual = loadFloat(buffer.tensor(), i);
            EXPECT_TRUE(std::isnan(expected) ? std::isnan(actual) : actual == expected)
                << dataTypeName(type) << " " << i;
            if (numberKind(type) != NumberKind::kFLOATING)
            {
                EXPECT_EQ(loadInteger(buffer.tensor(), i), decodeInteger(type, bytesOf(buffer), i));
            }
        }
    }
}

TEST(HostTensorView, RoundToOdd)
{
    EXPECT_EQ(roundToOddFloat(1.5), 1.5F);
    EXPECT_EQ(std::bit_cast<uint32_t>(roundToOddFloat(1.0 + 0x1p-30)), 0x3F800001U) << "inexact: the last bit is set";
    EXPECT_EQ(std::bit_cast<uint32_t>(roundToOddFloat(-(1.0 + 0x1p-30))), 0xBF800001U);
    EXPECT_EQ(std::bit_cast<uint32_t>(roundToOddFloat(1.0 + 0x1p-23 - 0x1p-40)), 0x3F800001U)
        << "truncated, not rounded up";
    EXPECT_EQ(roundToOddFloat(1e39), std::numeric_limits<float>::max());
    EXPECT_EQ(roundToOddFloat(1e-50), std::numeric_limits<float>::denorm_min());
    EXPECT_EQ(roundToOddFloat(-1e-50), -std::numeric_limits<float>::denorm_min());
    EXPECT_EQ(roundToOddFloat(kInf), std::numeric_limits<float>::infinity());
    EXPECT_TRUE(std::isnan(roundToOddFloat(kNan)));
    EXPECT_EQ(roundToOddDouble(int64_t{1} << 53), 0x1p53);
    EXPECT_EQ(roundToOddDouble((int64_t{1} << 53) + 1), 0x1p53 + 2.0);
    EXPECT_EQ(roundToOddDouble(-(int64_t{1} << 62) - 1), -(0x1p62 + 0x1p10));
    EXPECT_EQ(roundToOddDouble(std::numeric_limits<int64_t>::min()), -0x1p63);
    EXPECT_EQ(roundToOddDouble(std::numeric_limits<int64_t>::max()), 0x1p63 - 0x1p10)
        << "2^63 - 1 truncates to 53 ones, already odd";
}

TEST(HostTensorView, HostBufferOwnsZeroedStorage)
{
    HostBuffer buffer(DataType::kHALF, Dims{2, {3, 5}}, 2.0F);
    EXPECT_EQ(buffer.bytes().size(), 30U);
    EXPECT_TRUE(
        std::all_of(buffer.bytes().begin(), buffer.bytes().end(), [](std::byte b) { return b == std::byte{0}; }));
    EXPECT_EQ(buffer.tensor().data, buffer.bytes().data());
    EXPECT_EQ(buffer.tensor().scale, 2.0F);
    void* const data = buffer.tensor().data;
    HostBuffer moved(std::move(buffer));
    EXPECT_EQ(moved.tensor().data, data) << "moving keeps the storage";
    HostBuffer empty(DataType::kFLOAT, Dims{1, {0}});
    EXPECT_EQ(elementCount(empty.tensor()), 0);
}

} // namespace
} // namespace kiln::host::test
