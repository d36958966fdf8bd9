// SPDX-License-Identifier: Apache-2.0
// The host reduction against a direct definition computed here (for each output element, gather the input elements
// whose kept coordinates match it and fold them), for every operation, random shapes and axes masks, keepDimensions
// on and off, floating, INT8 and integer types; edge cases; and every refusal.
#include "backends/host/reduce.h"

#include "host_test_util.h"

#include <algorithm>

namespace kiln::host::test
{
namespace
{

using Op = ReduceOperation;

static_assert(nvinfer1::EnumMax<ReduceOperation>() == 6, "a new operation needs its reference below");

TEST(HostReduce, TableCoversEveryOperationInOrder)
{
    ASSERT_EQ(reduceOps().size(), 6U);
    for (std::size_t i = 0; i < reduceOps().size(); ++i)
    {
        EXPECT_EQ(static_cast<std::size_t>(reduceOps()[i].op), i);
        EXPECT_EQ(reduceOps()[i].supported, reduceOps()[i].op != Op::kNONE);
    }
    EXPECT_EQ(findReduceOp(static_cast<Op>(6)), nullptr);
}

std::vector<int64_t> coordinates(Dims const& dims, int64_t index)
{
    std::vector<int64_t> at(static_cast<std::size_t>(dims.nbDims));
    for (int32_t i = dims.nbDims - 1; i >= 0; --i)
    {
        at[static_cast<std::size_t>(i)] = index % dims.d[i];
        index /= dims.d[i];
    }
    return at;
}

//! The input elements that output element o (of the keepDimensions shape) reduces.
std::vector<int64_t> members(Dims const& in, uint32_t axes, int64_t o)
{
    Dims kept = in;
    for (int32_t i = 0; i < in.nbDims; ++i)
    {
        kept.d[i] = (axes >> i & 1U) != 0 ? 1 : in.d[i];
    }
    std::vector<int64_t> const target = coordinates(kept, o);
    std::vector<int64_t> result;
    for (int64_t i = 0; i < elementCount(in); ++i)
    {
        std::vector<int64_t> at = coordinates(in, i);
        bool match = true;
        for (int32_t a = 0; a < in.nbDims; ++a)
        {
            match = match
                && ((axes >> a & 1U) != 0 || at[static_cast<std::size_t>(a)] == target[static_cast<std::size_t>(a)]);
        }
        if (match)
        {
            result.push_back(i);
        }
    }
    return result;
}

void runCase(std::mt19937& rng, Op op, DataType type, Dims const& in, uint32_t axes, bool keep)
{
    SCOPED_TRACE(::testing::Message() << findReduceOp(op)->name << " " << dataTypeName(type) << " " << shapeString(in)
                                      << " axes " << axes << " keep " << keep);
    bool const integer = type == DataType::kINT32 || type == DataType::kINT64;
    HostBuffer input(type, in, type == DataType::kINT8 ? 0.125F : 1.0F);
    if (integer)
    {
        fillInteger(rng, input, -4, 4); // includes the type's extremes sometimes: sums and products wrap
    }
    else
    {
        fillFloating(rng, input, op == Op::kPROD ? 0.5 : -2.0, 2.0, false);
    }
    Dims keptShape = in;
    Dims outShape{0, {}};
    for (int32_t i = 0; i < in.nbDims; ++i)
    {
        bool const reduced = (axes >> i & 1U) != 0;
        keptShape.d[i] = reduced ? 1 : in.d[i];
        if (!reduced || keep)
        {
            outShape.d[outShape.nbDims++] = keptShape.d[i];
        }
    }
    ReduceParams const params{op, axes, keep};
    Expected<TensorDesc> const desc = inferReduce(params, {type, in});
    ASSERT_TRUE(desc.ok()) << desc.error().message;
    ASSERT_TRUE(sameShape(desc.value().dims, outShape)) << shapeString(desc.value().dims);
    float const outScale = type == DataType::kINT8 ? 0.5F : 1.0F;
    HostBuffer out(type, outShape, outScale);
    Status const done = runReduce(params, input.tensor(), out.tensor());
    ASSERT_TRUE(done.ok()) << done.error().message;
    for (int64_t o = 0; o < elementCount(outShape); ++o)
    {
        std::vector<int64_t> const set = members(in, axes, o);
        if (integer)
        {
            bool const wide = type == DataType::kINT64;
            int64_t expected = op == Op::kPROD ? 1 : 0;
            if (op == Op::kMAX || op == Op::kMIN)
            {
                expected = decodeInteger(type, bytesOf(input), set.front());
            }
            for (int64_t const i : set)
            {
                int64_t const v = decodeInteger(type, bytesOf(input), i);
                switch (op)
                {
                case Op::kSUM:
                case Op::kAVG:
                    expected = static_cast<int64_t>(static_cast<uint64_t>(expected) + static_cast<uint64_t>(v));
                    break;
                case Op::kPROD:
                    expected = static_cast<int64_t>(static_cast<uint64_t>(expected) * static_cast<uint64_t>(v));
                    break;
                case Op::kMAX: expected = std::max(expected, v); break;
                case Op::kMIN: expected = std::min(expected, v); break;
                case Op::kNONE: break;
                }
            }
            if (op == Op::kAVG)
            {
                expected /= static_cast<int64_t>(set.size());
            }
            if (!wide)
            {
                expected = static_cast<int32_t>(static_cast<uint32_t>(expected));
            }
            ASSERT_EQ(decodeInteger(type, bytesOf(out), o), expected) << "output " << o;
            continue;
        }
        std::vector<double> values;
        for (int64_t const i : set)
        {
            values.push_back(decode(type, bytesOf(input), i, input.tensor().scale));
        }
        double expected = 0.0;
        double magnitude = 0.0;
        switch (op)
        {
        case Op::kSUM:
        case Op::kAVG:
            for (double const v : values)
            {
                expected += v;
                magnitude += std::fabs(v);
            }
            if (op == Op::kAVG)
            {
                expected /= static_cast<double>(values.size());
                magnitude /= static_cast<double>(values.size());
            }
            break;
        case Op::kPROD:
            expected = 1.0;
            for (double const v : values)
            {
                expected *= v;
            }
            magnitude = std::fabs(expected);
            break;
        case Op::kMAX: expected = *std::max_element(values.begin(), values.end()); break;
        case Op::kMIN: expected = *std::min_element(values.begin(), values.end()); break;
        case Op::kNONE: break;
        }
        double const rounded = roundTo(type, expected, outScale);
        double const actual = decode(type, bytesOf(out), o, outScale);
        ASSERT_LE(std::fabs(actual - rounded), ulp(type, rounded, outScale) + 1e-12 * magnitude)
            << "output " << o << " expected " << expected;
    }
}

TEST(HostReduce, RandomAgainstDirectDefinition)
{
    std::mt19937 rng(31337);
    for (ReduceOpInfo const& info : reduceOps())
    {
        if (!info.supported)
        {
            continue;
        }
        for (DataType const type :
            {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8, DataType::kINT32, DataType::kINT64})
        {
            for (int32_t trial = 0; trial < 12; ++trial)
            {
                Dims in = randomShape(rng, 96);
                for (int32_t i = 0; i < in.nbDims; ++i)
                {
                    in.d[i] = std::max<int64_t>(in.d[i], 1); // empty reductions are tested below
                }
                uint32_t const axes = in.nbDims == 0 ? 0U : static_cast<uint32_t>(rng() % (1U << in.nbDims));
                runCase(rng, info.op, type, in, axes, rng() % 2 == 0);
            }
        }
    }
}

TEST(HostReduce, EdgeCases)
{
    std::mt19937 rng(3);
    // Every axis, rank 0 and axes 0 (a copy).
    runCase(rng, Op::kSUM, DataType::kFLOAT, Dims{3, {2, 3, 4}}, 0b111, false);
    runCase(rng, Op::kMAX, DataType::kHALF, Dims{0, {}}, 0, false);
    runCase(rng, Op::kAVG, DataType::kINT32, Dims{2, {3, 4}}, 0, true);
    // A zero extent that is kept: an empty output.
    runCase(rng, Op::kPROD, DataType::kFLOAT, Dims{2, {0, 3}}, 0b10, true);
    // Reducing a zero extent: the folds' identities.
    ReduceParams params{Op::kSUM, 0b1, false};
    HostBuffer empty(DataType::kFLOAT, Dims{2, {0, 2}});
    HostBuffer out(DataType::kFLOAT, Dims{1, {2}});
    for (auto const& [op, expected] :
        {std::pair{Op::kSUM, 0.0}, std::pair{Op::kPROD, 1.0}, std::pair{Op::kMAX, -kInf}, std::pair{Op::kMIN, kInf}})
    {
        params.op = op;
        ASSERT_TRUE(runReduce(params, empty.tensor(), out.tensor()).ok());
        EXPECT_EQ(decode(DataType::kFLOAT, bytesOf(out), 1, 1.0F), expected);
    }
    params.op = Op::kAVG;
    ASSERT_TRUE(runReduce(params, empty.tensor(), out.tensor()).ok());
    EXPECT_TRUE(std::isnan(decode(DataType::kFLOAT, bytesOf(out), 0, 1.0F)));
    HostBuffer emptyInt(DataType::kINT32, Dims{2, {0, 2}});
    HostBuffer outInt(DataType::kINT32, Dims{1, {2}});
    expectError(runReduce(params, emptyInt.tensor(), outInt.tensor()),
        {"reduce kAVG: the average of an empty integer reduction is undefined (input [0, 2])"});
    params.op = Op::kMAX;
    ASSERT_TRUE(runReduce(params, emptyInt.tensor(), outInt.tensor()).ok());
    EXPECT_EQ(decodeInteger(DataType::kINT32, bytesOf(outInt), 0), std::numeric_limits<int32_t>::min());
    // NaN is ignored by kMAX unless every element is NaN; kSUM propagates it.
    HostBuffer nan(DataType::kFLOAT, Dims{2, {2, 2}});
    auto* data = static_cast<std::byte*>(nan.tensor().data);
    encode(DataType::kFLOAT, data, 0, kNan, 1.0F);
    encode(DataType::kFLOAT, data, 1, -3.0, 1.0F);
    encode(DataType::kFLOAT, data, 2, kNan, 1.0F);
    encode(DataType::kFLOAT, data, 3, kNan, 1.0F);
    HostBuffer rows(DataType::kFLOAT, Dims{1, {2}});
    ASSERT_TRUE(runReduce({Op::kMAX, 0b10, false}, nan.tensor(), rows.tensor()).ok());
    EXPECT_EQ(decode(DataType::kFLOAT, bytesOf(rows), 0, 1.0F), -3.0);
    EXPECT_TRUE(std::isnan(decode(DataType::kFLOAT, bytesOf(rows), 1, 1.0F)));
}

TEST(HostReduce, Refusals)
{
    TensorDesc const in{DataType::kFLOAT, Dims{2, {3, 4}}};
    expectError(inferReduce({Op::kSUM, 0b100, false}, in),
        {"reduce kSUM: axes mask 4 names an axis outside the input [3, 4] of rank 2"});
    expectError(inferReduce({Op::kNONE, 0b1, false}, in), {"reduce kNONE", "collectives"});
    expectError(inferReduce({static_cast<Op>(9), 0b1, false}, in), {"unknown ReduceOperation 9"});
    expectError(inferReduce({Op::kSUM, 0b1, false}, {DataType::kBOOL, in.dims}), {"does not accept kBOOL"});
    expectError(inferReduce({Op::kSUM, 0b1, false}, {DataType::kUINT8, in.dims}), {"does not accept kUINT8"});
    HostBuffer x(DataType::kFLOAT, in.dims);
    HostBuffer wrong(DataType::kFLOAT, Dims{2, {3, 1}});
    expectError(runReduce({Op::kSUM, 0b10, false}, x.tensor(), wrong.tensor()),
        {"the output is kFLOAT [3, 1] but must be kFLOAT [3]"});
}

} // namespace
} // namespace kiln::host::test
