// SPDX-License-Identifier: Apache-2.0
// The host constant and shape copies, and identity as cast.h's same-type cast, on every type.
#include "backends/host/cast.h"
#include "backends/host/copies.h"

#include "movement_test_util.h"

namespace kiln::host::test
{
namespace
{

TEST(HostCopies, ConstantCopiesWeightsOfEveryType)
{
    std::mt19937 rng(701);
    for (DataType const type : allTypes())
    {
        if (type == DataType::kE8M0)
        {
            continue;
        }
        Dims const dims{2, {3, 3}}; // 9 elements: odd, so packed types end in half a byte
        std::vector<uint8_t> values(static_cast<std::size_t>(storageBytes(type, 9)));
        for (uint8_t& v : values)
        {
            v = static_cast<uint8_t>(rng() % 256);
        }
        ConstantParams const params{dims, Weights{type, values.data(), 9}};
        HostBuffer out(type, dims);
        Status const done = runConstant(params, out.tensor());
        ASSERT_TRUE(done.ok()) << dataTypeName(type) << ": " << done.error().message;
        ASSERT_EQ(out.bytes().size(), values.size()) << dataTypeName(type);
        EXPECT_EQ(std::memcmp(out.bytes().data(), values.data(), values.size()), 0) << dataTypeName(type);
    }
}

TEST(HostCopies, ConstantRefusals)
{
    float values[2]{};
    HostBuffer out(DataType::kFLOAT, Dims{1, {2}});
    expectError(runConstant({Dims{1, {3}}, Weights{DataType::kFLOAT, values, 2}}, out.tensor()),
        {"weights hold 2 values", "[3] have 3"});
    expectError(runConstant({Dims{1, {2}}, Weights{DataType::kHALF, values, 2}}, out.tensor()),
        {"output is kFLOAT [2]", "kHALF [2]"});
    expectError(runConstant({Dims{1, {2}}, Weights{DataType::kFLOAT, nullptr, 2}}, out.tensor()), {"no values"});
    expectError(inferConstant({Dims{1, {2}}, Weights{DataType::kE8M0, values, 2}}), {"kE8M0"});
}

TEST(HostCopies, ShapeWritesTheExtentsAsInt64)
{
    std::mt19937 rng(702);
    for (int32_t trial = 0; trial < 50; ++trial)
    {
        Dims const dims = randomShape(rng);
        HostBuffer out(DataType::kINT64, Dims{1, {dims.nbDims}});
        ASSERT_TRUE(runShape({}, {DataType::kINT4, dims}, out.tensor()).ok());
        for (int32_t i = 0; i < dims.nbDims; ++i)
        {
            EXPECT_EQ(decodeInteger(DataType::kINT64, bytesOf(out), i), dims.d[i]);
        }
    }
    HostBuffer wrong(DataType::kINT32, Dims{1, {2}});
    expectError(
        runShape({}, {DataType::kFLOAT, Dims{2, {4, 5}}}, wrong.tensor()), {"output is kINT32 [2]", "kINT64 [2]"});
    expectError(inferShape({}, {DataType::kFLOAT, Dims{1, {-1}}}), {"[-1]", "not a concrete shape"});
}

TEST(HostCopies, IdentityIsTheSameTypeCast)
{
    std::mt19937 rng(703);
    for (DataType const type : moveTypes())
    {
        ASSERT_TRUE(castSupported(type, type)) << dataTypeName(type);
        Dims const dims = randomShape(rng, 64);
        HostBuffer in(type, dims, 0.5F);
        HostBuffer out(type, dims, 0.5F);
        if (type == DataType::kFP8)
        {
            fillFloating(rng, in, -4.0, 4.0, false);
        }
        else
        {
            randomBytes(rng, in);
        }
        Status const done = runCast({type}, in.tensor(), out.tensor());
        ASSERT_TRUE(done.ok()) << done.error().message;
        for (int64_t i = 0; i < elementCount(dims); ++i)
        {
            double const a = decode(type, bytesOf(in), i, 0.5F);
            double const b = decode(type, bytesOf(out), i, 0.5F);
            ASSERT_TRUE(a == b || (std::isnan(a) && std::isnan(b))) << dataTypeName(type) << " " << i;
        }
    }
}

} // namespace
} // namespace kiln::host::test
