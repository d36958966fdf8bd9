// SPDX-License-Identifier: Apache-2.0
// The host cumulative sum against sums written out here (each output the sum of its range of the line), on random
// shapes, axes and every exclusive/reverse combination, in FP32, FP16, BF16, INT32 and INT64; ONNX's example; integer
// wrap-around; in-place runs; empty tensors; and every refusal with its message.
#include "backends/host/cumulative.h"

#include "host_test_util.h"

namespace kiln::host::test
{
namespace
{

using nvinfer1::CumulativeOperation;

//! out[..., j, ...] = the sum of in over the line's range for j: [0, j] forward inclusive, [0, j) forward exclusive,
//! [j, n) reverse inclusive, (j, n) reverse exclusive.
std::vector<double> written(std::vector<double> const& in, Dims const& dims, int32_t axis, bool exclusive, bool reverse)
{
    int64_t outer = 1;
    int64_t inner = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        outer *= i < axis ? dims.d[i] : 1;
        inner *= i > axis ? dims.d[i] : 1;
    }
    int64_t const n = dims.d[axis];
    std::vector<double> out(in.size(), 0.0);
    for (int64_t o = 0; o < outer; ++o)
    {
        for (int64_t i = 0; i < inner; ++i)
        {
            for (int64_t j = 0; j < n; ++j)
            {
                int64_t const first = reverse ? (exclusive ? j + 1 : j) : 0;
                int64_t const last = reverse ? n : (exclusive ? j : j + 1);
                double sum = 0.0;
                for (int64_t k = first; k < last; ++k)
                {
                    sum += in[static_cast<std::size_t>((o * n + k) * inner + i)];
                }
                out[static_cast<std::size_t>((o * n + j) * inner + i)] = sum;
            }
        }
    }
    return out;
}

//! Runs params on a random input of type and dims and compares with the written sums (within one ulp of the output
//! type, exactly for integers).
void check(std::mt19937& rng, DataType type, Dims const& dims, CumulativeParams const& params)
{
    SCOPED_TRACE(::testing::Message() << dataTypeName(type) << " " << shapeString(dims) << " axis " << params.axis
                                      << " exclusive " << params.exclusive << " reverse " << params.reverse);
    HostBuffer in(type, dims);
    bool const integer = type == DataType::kINT32 || type == DataType::kINT64;
    std::vector<double> values(static_cast<std::size_t>(elementCount(dims)));
    for (std::size_t i = 0; i < values.size(); ++i)
    {
        values[i] = integer ? static_cast<double>(static_cast<int64_t>(rng() % 201) - 100)
                            : roundTo(type, std::uniform_real_distribution<double>(-2.0, 2.0)(rng), 1.0F);
        encode(type, static_cast<std::byte*>(in.tensor().data), static_cast<int64_t>(i), values[i], 1.0F);
    }
    Expected<TensorDesc> const desc = inferCumulative(params, {type, dims});
    ASSERT_TRUE(desc.ok()) << desc.error().message;
    ASSERT_TRUE(sameShape(desc.value().dims, dims));
    HostBuffer out(type, dims);
    Status const done = runCumulative(params, in.tensor(), out.tensor());
    ASSERT_TRUE(done.ok()) << done.error().message;
    std::vector<double> const expected = written(values, dims, params.axis, params.exclusive, params.reverse);
    for (std::size_t i = 0; i < expected.size(); ++i)
    {
        double const actual = decode(type, bytesOf(out), static_cast<int64_t>(i), 1.0F);
        EXPECT_TRUE(matches(type, expected[i], actual, 1.0F))
            << "element " << i << ": expected " << expected[i] << ", got " << actual;
    }
}

TEST(HostCumulative, RandomAgainstWrittenSums)
{
    std::mt19937 rng(2026112);
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT32, DataType::kINT64})
    {
        for (int32_t trial = 0; trial < 24; ++trial)
        {
            Dims dims{static_cast<int32_t>(1 + rng() % 4), {}};
            for (int32_t i = 0; i < dims.nbDims; ++i)
            {
                dims.d[i] = static_cast<int64_t>(rng() % 5) + (i == 0 ? 1 : 0);
            }
            CumulativeParams params;
            params.axis = static_cast<int32_t>(rng() % static_cast<uint32_t>(dims.nbDims));
            params.exclusive = rng() % 2 == 0;
            params.reverse = rng() % 2 == 0;
            check(rng, type, dims, params);
        }
    }
}

TEST(HostCumulative, OnnxExample)
{
    // ONNX's CumSum example: [1, 2, 3] gives [1, 3, 6], exclusive [0, 1, 3], reverse [6, 5, 3], both [5, 3, 0].
    HostBuffer in(DataType::kFLOAT, Dims{1, {3}});
    for (int64_t i = 0; i < 3; ++i)
    {
        encode(DataType::kFLOAT, static_cast<std::byte*>(in.tensor().data), i, static_cast<double>(i + 1), 1.0F);
    }
    std::vector<std::vector<double>> const expected{{1, 3, 6}, {0, 1, 3}, {6, 5, 3}, {5, 3, 0}};
    for (int32_t variant = 0; variant < 4; ++variant)
    {
        CumulativeParams const params{CumulativeOperation::kSUM, (variant & 1) != 0, (variant & 2) != 0, 0};
        HostBuffer out(DataType::kFLOAT, Dims{1, {3}});
        ASSERT_TRUE(runCumulative(params, in.tensor(), out.tensor()).ok());
        for (int64_t i = 0; i < 3; ++i)
        {
            EXPECT_EQ(decode(DataType::kFLOAT, bytesOf(out), i, 1.0F),
                expected[static_cast<std::size_t>(variant)][static_cast<std::size_t>(i)])
                << "variant " << variant << " element " << i;
        }
    }
}

TEST(HostCumulative, IntegersWrapAroundAndRunsMayBeInPlace)
{
    // INT32 sums wrap as they are stored (two's complement); INT64 sums wrap in int64_t.
    HostBuffer in(DataType::kINT32, Dims{1, {3}});
    for (int64_t i = 0; i < 3; ++i)
    {
        encodeInteger(DataType::kINT32, static_cast<std::byte*>(in.tensor().data), i, 2000000000);
    }
    CumulativeParams const params{CumulativeOperation::kSUM, false, false, 0};
    // In place: the output is the input.
    ASSERT_TRUE(runCumulative(params, in.tensor(), in.tensor()).ok());
    EXPECT_EQ(decodeInteger(DataType::kINT32, bytesOf(in), 0), 2000000000);
    EXPECT_EQ(
        decodeInteger(DataType::kINT32, bytesOf(in), 1), static_cast<int32_t>(static_cast<uint32_t>(4000000000U)));
    EXPECT_EQ(decodeInteger(DataType::kINT32, bytesOf(in), 2),
        static_cast<int32_t>(static_cast<uint32_t>(6000000000ULL & 0xFFFFFFFFULL)));
    HostBuffer big(DataType::kINT64, Dims{1, {2}});
    encodeInteger(DataType::kINT64, static_cast<std::byte*>(big.tensor().data), 0, INT64_MAX);
    encodeInteger(DataType::kINT64, static_cast<std::byte*>(big.tensor().data), 1, 1);
    HostBuffer bigOut(DataType::kINT64, Dims{1, {2}});
    ASSERT_TRUE(runCumulative(params, big.tensor(), bigOut.tensor()).ok());
    EXPECT_EQ(decodeInteger(DataType::kINT64, bytesOf(bigOut), 1), INT64_MIN);
    // In place, exclusive and reverse: each element is read before its output is written.
    HostBuffer line(DataType::kFLOAT, Dims{1, {3}});
    for (int64_t i = 0; i < 3; ++i)
    {
        encode(DataType::kFLOAT, static_cast<std::byte*>(line.tensor().data), i, static_cast<double>(i + 1), 1.0F);
    }
    ASSERT_TRUE(runCumulative({CumulativeOperation::kSUM, true, true, 0}, line.tensor(), line.tensor()).ok());
    EXPECT_EQ(decode(DataType::kFLOAT, bytesOf(line), 0, 1.0F), 5.0);
    EXPECT_EQ(decode(DataType::kFLOAT, bytesOf(line), 1, 1.0F), 3.0);
    EXPECT_EQ(decode(DataType::kFLOAT, bytesOf(line), 2, 1.0F), 0.0);
}

TEST(HostCumulative, EmptyTensors)
{
    std::mt19937 rng(3);
    check(rng, DataType::kFLOAT, Dims{2, {3, 0}}, {CumulativeOperation::kSUM, false, false, 0});
    check(rng, DataType::kINT32, Dims{2, {0, 4}}, {CumulativeOperation::kSUM, true, true, 1});
}

TEST(HostCumulative, Refusals)
{
    TensorDesc const in{DataType::kFLOAT, Dims{2, {2, 3}}};
    expectError(inferCumulative({CumulativeOperation::kSUM, false, false, 2}, in),
        {"cumulative: the axis 2 is outside [0, 2) for the input [2, 3]"});
    expectError(inferCumulative({CumulativeOperation::kSUM, false, false, -1}, in), {"the axis -1 is outside [0, 2)"});
    expectError(inferCumulative({static_cast<CumulativeOperation>(3), false, false, 0}, in),
        {"operation 3 is not a CumulativeOperation"});
    expectError(inferCumulative({CumulativeOperation::kSUM, false, false, 0}, {DataType::kINT8, in.dims}),
        {"does not accept kINT8 inputs"});
    expectError(inferCumulative({CumulativeOperation::kSUM, false, false, 0}, {DataType::kFLOAT, Dims{0, {}}}),
        {"the input [] needs rank 1 or more"});
    HostBuffer x(DataType::kFLOAT, in.dims);
    HostBuffer wrong(DataType::kHALF, in.dims);
    expectError(runCumulative({CumulativeOperation::kSUM, false, false, 0}, x.tensor(), wrong.tensor()),
        {"the output is kHALF [2, 3] but must be kFLOAT [2, 3]"});
}

} // namespace
} // namespace kiln::host::test
