// SPDX-License-Identifier: Apache-2.0
// The host top-k against a definition computed here (each row stably sorted by value, NaN above every number, then
// cut to k), for both operations, random shapes, axes and k, every type it takes and both indices types; hand-made
// cases for ties, NaN, signed zeros, integers beyond 2^53, k == 0 and empty rows; and every refusal.
#include "backends/host/topk.h"

#include "host_test_util.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace kiln::host::test
{
namespace
{

using nvinfer1::TopKOperation;

//! A buffer of type and dims holding values (encoded by the test's own path).
HostBuffer tensorOf(DataType type, Dims const& dims, std::vector<double> const& values)
{
    HostBuffer buffer(type, dims);
    EXPECT_EQ(static_cast<int64_t>(values.size()), elementCount(dims));
    for (std::size_t i = 0; i < values.size(); ++i)
    {
        encode(type, static_cast<std::byte*>(buffer.tensor().data), static_cast<int64_t>(i), values[i], 1.0F);
    }
    return buffer;
}

//! Every element as a double (integers exactly up to 2^53), through the test's own decoder.
std::vector<double> valuesOf(HostBuffer const& buffer)
{
    std::vector<double> values;
    for (int64_t i = 0; i < elementCount(buffer.tensor()); ++i)
    {
        values.push_back(decode(buffer.tensor().type, bytesOf(buffer), i, 1.0F));
    }
    return values;
}

std::vector<int64_t> integersOf(HostBuffer const& buffer)
{
    std::vector<int64_t> values;
    for (int64_t i = 0; i < elementCount(buffer.tensor()); ++i)
    {
        values.push_back(decodeInteger(buffer.tensor().type, bytesOf(buffer), i));
    }
    return values;
}

//! The output shape: the input's with the axis' extent k.
Dims outputShape(Dims dims, int32_t axis, int64_t k)
{
    dims.d[axis] = k;
    return dims;
}

//! What runTopK must write, computed directly: for each row (every coordinate but the axis), the positions along the
//! axis stably sorted by value (descending for kMAX; NaN greatest), the first k of them.
struct Expected2
{
    std::vector<int64_t> positions; //!< In output order (row-major over the output shape).
    std::vector<int64_t> sources;   //!< The input element each output element copies.
};

Expected2 reference(HostBuffer const& in, TopKOperation op, int32_t axis, int64_t k)
{
    Dims const& dims = in.tensor().dims;
    bool const integer = numberKind(in.tensor().type) != NumberKind::kFLOATING;
    int64_t const n = dims.d[axis];
    int64_t inner = 1;
    for (int32_t d = axis + 1; d < dims.nbDims; ++d)
    {
        inner *= dims.d[d];
    }
    int64_t outer = 1;
    for (int32_t d = 0; d < axis; ++d)
    {
        outer *= dims.d[d];
    }
    // A rank of each value: NaN (floating) above everything.
    auto const less = [&](int64_t a, int64_t b) {
        if (integer)
        {
            return decodeInteger(in.tensor().type, bytesOf(in), a) < decodeInteger(in.tensor().type, bytesOf(in), b);
        }
        double const x = decode(in.tensor().type, bytesOf(in), a, 1.0F);
        double const y = decode(in.tensor().type, bytesOf(in), b, 1.0F);
        return std::isnan(y) ? !std::isnan(x) : (!std::isnan(x) && x < y);
    };
    Expected2 result;
    Dims const out = outputShape(dims, axis, k);
    result.positions.assign(static_cast<std::size_t>(elementCount(out)), -1);
    result.sources.assign(result.positions.size(), -1);
    for (int64_t o = 0; o < outer; ++o)
    {
        for (int64_t i = 0; i < inner; ++i)
        {
            std::vector<int64_t> row(static_cast<std::size_t>(n));
            std::iota(row.begin(), row.end(), 0);
            auto const at = [&](int64_t j) { return (o * n + j) * inner + i; };
            std::stable_sort(row.begin(), row.end(), [&](int64_t a, int64_t b) {
                return op == TopKOperation::kMAX ? less(at(b), at(a)) : less(at(a), at(b));
            });
            for (int64_t t = 0; t < k; ++t)
            {
                auto const e = static_cast<std::size_t>((o * k + t) * inner + i);
                result.positions[e] = row[static_cast<std::size_t>(t)];
                result.sources[e] = at(row[static_cast<std::size_t>(t)]);
            }
        }
    }
    return result;
}

//! Runs the kernel and compares both outputs with the reference exactly (values bit for bit, NaN as NaN).
void expectTopK(
    HostBuffer const& in, TopKOperation op, int32_t axis, int64_t k, DataType indicesType, std::string const& what)
{
    Dims const out = outputShape(in.tensor().dims, axis, k);
    HostBuffer values(in.tensor().type, out);
    HostBuffer indices(indicesType, out);
    TopKParams const params{op, static_cast<int32_t>(k), 1U << static_cast<uint32_t>(axis), indicesType};
    Expected<TensorDesc> const desc = inferTopK(params, {in.tensor().type, in.tensor().dims});
    ASSERT_TRUE(desc.ok()) << what << ": " << desc.error().message;
    EXPECT_EQ(desc.value().type, in.tensor().type) << what;
    EXPECT_TRUE(sameShape(desc.value().dims, out)) << what;
    Status const done = runTopK(params, in.tensor(), values.tensor(), indices.tensor());
    ASSERT_TRUE(done.ok()) << what << ": " << done.error().message;
    Expected2 const expected = reference(in, op, axis, k);
    EXPECT_EQ(integersOf(indices), expected.positions) << what;
    std::size_t const bytes = static_cast<std::size_t>(dataTypeBits(in.tensor().type) / 8);
    for (std::size_t e = 0; e < expected.sources.size(); ++e)
    {
        // A copy: the same bits (so -0 stays -0), except that NaN payloads need not survive.
        std::byte const* got = bytesOf(values) + e * bytes;
        std::byte const* want = bytesOf(in) + static_cast<std::size_t>(expected.sources[e]) * bytes;
        double const x = decode(in.tensor().type, got, 0, 1.0F);
        bool const same = std::memcmp(got, want, bytes) == 0
            || (std::isnan(x) && std::isnan(decode(in.tensor().type, want, 0, 1.0F)));
        EXPECT_TRUE(same) << what << ": value " << e << " is " << x << ", expected "
                          << decode(in.tensor().type, want, 0, 1.0F);
    }
}

TEST(HostTopK, MatchesTheDefinitionOnRandomInputs)
{
    std::mt19937 rng(20261121);
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT32, DataType::kINT64})
    {
        for (int trial = 0; trial < 60; ++trial)
        {
            Dims dims = randomShape(rng, 200);
            if (dims.nbDims == 0)
            {
                dims = Dims{1, {1 + static_cast<int64_t>(rng() % 9)}};
            }
            HostBuffer in(type, dims);
            if (numberKind(type) == NumberKind::kFLOATING)
            {
                // Few distinct values, so ties are common; specials include NaN, infinities and signed zeros.
                fillFloating(rng, in, -3.0, 3.0);
                for (int64_t i = 0; i < elementCount(dims); ++i)
                {
                    if (rng() % 3 == 0)
                    {
                        encode(
                            type, static_cast<std::byte*>(in.tensor().data), i, static_cast<double>(rng() % 3), 1.0F);
                    }
                }
            }
            else
            {
                fillInteger(rng, in, -3, 3);
            }
            auto const axis = static_cast<int32_t>(rng() % static_cast<uint32_t>(dims.nbDims));
            int64_t const k = static_cast<int64_t>(rng() % static_cast<uint64_t>(dims.d[axis] + 1));
            TopKOperation const op = rng() % 2 == 0 ? TopKOperation::kMAX : TopKOperation::kMIN;
            DataType const indicesType = rng() % 2 == 0 ? DataType::kINT32 : DataType::kINT64;
            expectTopK(in, op, axis, k, indicesType,
                std::string(dataTypeName(type)) + " " + shapeString(dims) + " axis " + std::to_string(axis) + " k "
                    + std::to_string(k) + (op == TopKOperation::kMAX ? " kMAX" : " kMIN"));
        }
    }
}

TEST(HostTopK, TiesNaNAndSignedZeros)
{
    double const nan = kNan;
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{1, {8}}, {1, nan, -0.0, 3, 0.0, 3, nan, -kInf});
    HostBuffer values(DataType::kFLOAT, Dims{1, {8}});
    HostBuffer indices(DataType::kINT32, Dims{1, {8}});
    ASSERT_TRUE(
        runTopK({TopKOperation::kMAX, 8, 1U, DataType::kINT32}, in.tensor(), values.tensor(), indices.tensor()));
    // NaNs first (in position order), then 3 (position 3 before 5), 1, the zeros as equals (-0 at 2 before +0 at 4).
    EXPECT_EQ(integersOf(indices), (std::vector<int64_t>{1, 6, 3, 5, 0, 2, 4, 7}));
    std::vector<double> const largest = valuesOf(values);
    EXPECT_TRUE(std::isnan(largest[0]) && std::isnan(largest[1]));
    EXPECT_TRUE(std::signbit(largest[5]) && !std::signbit(largest[6]));
    EXPECT_EQ(largest[7], -kInf);
    ASSERT_TRUE(
        runTopK({TopKOperation::kMIN, 8, 1U, DataType::kINT32}, in.tensor(), values.tensor(), indices.tensor()));
    EXPECT_EQ(integersOf(indices), (std::vector<int64_t>{7, 2, 4, 0, 3, 5, 1, 6}));
}

TEST(HostTopK, AlongAnInnerAxisWithKINT64Indices)
{
    // [2, 3, 2]: the top 2 along axis 1 of each (outer, inner) pair.
    HostBuffer const in = tensorOf(DataType::kHALF, Dims{3, {2, 3, 2}}, {1, 6, 5, 2, 3, 4, -1, 0, -2, 0, -3, 7});
    HostBuffer values(DataType::kHALF, Dims{3, {2, 2, 2}});
    HostBuffer indices(DataType::kINT64, Dims{3, {2, 2, 2}});
    ASSERT_TRUE(
        runTopK({TopKOperation::kMAX, 2, 0b010U, DataType::kINT64}, in.tensor(), values.tensor(), indices.tensor()));
    EXPECT_EQ(valuesOf(values), (std::vector<double>{5, 6, 3, 4, -1, 7, -2, 0}));
    EXPECT_EQ(integersOf(indices), (std::vector<int64_t>{1, 0, 2, 2, 0, 2, 1, 0}));
}

TEST(HostTopK, IntegersCompareExactlyBeyond2To53)
{
    int64_t const big = (int64_t{1} << 53) + 1;
    HostBuffer in(DataType::kINT64, Dims{1, {3}});
    auto* data = static_cast<std::byte*>(in.tensor().data);
    encodeInteger(DataType::kINT64, data, 0, big - 1);
    encodeInteger(DataType::kINT64, data, 1, big);
    encodeInteger(DataType::kINT64, data, 2, std::numeric_limits<int64_t>::min());
    HostBuffer values(DataType::kINT64, Dims{1, {2}});
    HostBuffer indices(DataType::kINT32, Dims{1, {2}});
    ASSERT_TRUE(
        runTopK({TopKOperation::kMAX, 2, 1U, DataType::kINT32}, in.tensor(), values.tensor(), indices.tensor()));
    EXPECT_EQ(integersOf(values), (std::vector<int64_t>{big, big - 1}));
    EXPECT_EQ(integersOf(indices), (std::vector<int64_t>{1, 0}));
}

TEST(HostTopK, EmptyOutputsAndEmptyRows)
{
    HostBuffer const in = tensorOf(DataType::kFLOAT, Dims{2, {2, 3}}, {1, 2, 3, 4, 5, 6});
    HostBuffer none(DataType::kFLOAT, Dims{2, {2, 0}});
    HostBuffer noIndices(DataType::kINT32, Dims{2, {2, 0}});
    EXPECT_TRUE(
        runTopK({TopKOperation::kMAX, 0, 0b10U, DataType::kINT32}, in.tensor(), none.tensor(), noIndices.tensor()));
    HostBuffer const empty(DataType::kFLOAT, Dims{2, {0, 3}});
    HostBuffer out(DataType::kFLOAT, Dims{2, {0, 2}});
    HostBuffer outIndices(DataType::kINT32, Dims{2, {0, 2}});
    EXPECT_TRUE(
        runTopK({TopKOperation::kMIN, 2, 0b10U, DataType::kINT32}, empty.tensor(), out.tensor(), outIndices.tensor()));
}

TEST(HostTopK, Refusals)
{
    TopKParams const good{TopKOperation::kMAX, 2, 0b10U, DataType::kINT32};
    TensorDesc const in{DataType::kFLOAT, Dims{2, {3, 4}}};
    auto const refused = [](TopKParams const& params, TensorDesc const& desc, std::string const& fragment) {
        expectError(inferTopK(params, desc), {"topk: ", fragment});
    };
    refused(TopKParams{static_cast<TopKOperation>(2), 2, 0b10U, DataType::kINT32}, in, "unknown TopKOperation 2");
    refused(good, TensorDesc{DataType::kINT8, in.dims}, "does not accept kINT8 inputs (it takes ");
    refused(good, TensorDesc{DataType::kBOOL, in.dims}, "does not accept kBOOL inputs");
    refused(good, TensorDesc{DataType::kFLOAT, Dims{2, {3, -1}}}, "the input shape [3, -1] is not valid");
    refused(
        TopKParams{good.op, 2, 0U, DataType::kINT32}, in, "axes mask 0 must name exactly one axis of the input [3, 4]");
    refused(TopKParams{good.op, 2, 0b11U, DataType::kINT32}, in, "axes mask 3 must name exactly one axis");
    refused(TopKParams{good.op, 2, 0b100U, DataType::kINT32}, in, "axes mask 4 must name exactly one axis");
    refused(TopKParams{good.op, -1, 0b10U, DataType::kINT32}, in, "k is -1; it must be 0 to the axis' extent 4");
    refused(TopKParams{good.op, 5, 0b10U, DataType::kINT32}, in,
        "k is 5; it must be 0 to the axis' extent 4 (the input is [3, 4])");
    refused(
        TopKParams{good.op, 2, 0b10U, DataType::kINT8}, in, "the indices type is kINT8; it must be kINT32 or kINT64");
    TensorDesc const huge{DataType::kFLOAT, Dims{1, {int64_t{1} << 32}}};
    refused(TopKParams{good.op, 2, 1U, DataType::kINT32}, huge,
        "the axis has 4294967296 elements, more than kINT32 indices can number; use kINT64 indices");
    EXPECT_TRUE(inferTopK(TopKParams{good.op, 2, 1U, DataType::kINT64}, huge).ok());

    HostBuffer const x = tensorOf(DataType::kFLOAT, in.dims, std::vector<double>(12, 1.0));
    HostBuffer values(DataType::kFLOAT, Dims{2, {3, 2}});
    HostBuffer indices(DataType::kINT32, Dims{2, {3, 2}});
    HostBuffer wrongValues(DataType::kHALF, Dims{2, {3, 2}});
    HostBuffer wrongIndices(DataType::kINT32, Dims{2, {3, 3}});
    expectError(runTopK(good, x.tensor(), wrongValues.tensor(), indices.tensor()),
        {"topk: output 0 (values): the output is kHALF [3, 2] but must be kFLOAT [3, 2]"});
    expectError(runTopK(good, x.tensor(), values.tensor(), wrongIndices.tensor()),
        {"topk: output 1 (indices): the output is kINT32 [3, 3] but must be kINT32 [3, 2]"});
    HostTensor noData = indices.tensor();
    noData.data = nullptr;
    expectError(runTopK(good, x.tensor(), values.tensor(), noData), {"topk: ", "output 1 (indices)"});
    expectError(runTopK(TopKParams{good.op, 5, 0b10U, DataType::kINT32}, x.tensor(), values.tensor(), indices.tensor()),
        {"topk: k is 5"});
}

} // namespace
} // namespace kiln::host::test
