// SPDX-License-Identifier: Apache-2.0
// The host softmax against exp(x) / sum(exp(x)) computed here along the axis (without max subtraction, on values
// small enough for it), on random shapes and axes in FP32, FP16 and BF16; stability on large values; special values;
// and every refusal.
#include "backends/host/softmax.h"

#include "host_test_util.h"

namespace kiln::host::test
{
namespace
{

void runCase(std::mt19937& rng, DataType type, Dims const& dims, int32_t axis)
{
    SCOPED_TRACE(::testing::Message() << dataTypeName(type) << " " << shapeString(dims) << " axis " << axis);
    HostBuffer in(type, dims);
    fillFloating(rng, in, -8.0, 8.0, false);
    SoftMaxParams const params{1U << axis};
    ASSERT_TRUE(inferSoftMax(params, {type, dims}).ok());
    HostBuffer out(type, dims);
    Status const done = runSoftMax(params, in.tensor(), out.tensor());
    ASSERT_TRUE(done.ok()) << done.error().message;
    int64_t stride = 1;
    for (int32_t i = axis + 1; i < dims.nbDims; ++i)
    {
        stride *= dims.d[i];
    }
    for (int64_t i = 0; i < elementCount(dims); ++i)
    {
        // The row through element i: same coordinates except along axis.
        int64_t const along = i / stride % dims.d[axis];
        int64_t const first = i - along * stride;
        double sum = 0.0;
        for (int64_t j = 0; j < dims.d[axis]; ++j)
        {
            sum += std::exp(decode(type, bytesOf(in), first + j * stride, 1.0F));
        }
        double const expected = std::exp(decode(type, bytesOf(in), i, 1.0F)) / sum;
        double const rounded = roundTo(type, expected, 1.0F);
        double const actual = decode(type, bytesOf(out), i, 1.0F);
        ASSERT_LE(std::fabs(actual - rounded), ulp(type, rounded, 1.0F) + 1e-12) << "element " << i;
    }
}

TEST(HostSoftMax, RandomAgainstDefinition)
{
    std::mt19937 rng(2718);
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        for (int32_t trial = 0; trial < 40; ++trial)
        {
            Dims dims = randomShape(rng, 128);
            if (dims.nbDims == 0)
            {
                dims = Dims{1, {5}};
            }
            runCase(rng, type, dims, static_cast<int32_t>(rng() % static_cast<uint32_t>(dims.nbDims)));
        }
    }
}

TEST(HostSoftMax, StableOnLargeValuesAndSpecials)
{
    HostBuffer in(DataType::kFLOAT, Dims{2, {3, 2}});
    HostBuffer out(DataType::kFLOAT, Dims{2, {3, 2}});
    auto* data = static_cast<std::byte*>(in.tensor().data);
    // Row 0: exp would overflow without subtracting the max. Row 1: -inf gives 0. Row 2: a NaN makes the row NaN.
    double const values[] = {1000.0, 1001.0, -kInf, 0.0, kNan, 1.0};
    for (int64_t i = 0; i < 6; ++i)
    {
        encode(DataType::kFLOAT, data, i, values[i], 1.0F);
    }
    ASSERT_TRUE(runSoftMax({1U << 1}, in.tensor(), out.tensor()).ok());
    EXPECT_NEAR(decode(DataType::kFLOAT, bytesOf(out), 0, 1.0F), 1.0 / (1.0 + std::exp(1.0)), 1e-7);
    EXPECT_NEAR(decode(DataType::kFLOAT, bytesOf(out), 1, 1.0F), std::exp(1.0) / (1.0 + std::exp(1.0)), 1e-7);
    EXPECT_EQ(decode(DataType::kFLOAT, bytesOf(out), 2, 1.0F), 0.0);
    EXPECT_EQ(decode(DataType::kFLOAT, bytesOf(out), 3, 1.0F), 1.0);
    EXPECT_TRUE(std::isnan(decode(DataType::kFLOAT, bytesOf(out), 4, 1.0F)));
    EXPECT_TRUE(std::isnan(decode(DataType::kFLOAT, bytesOf(out), 5, 1.0F)));
    // In place, and an empty tensor.
    ASSERT_TRUE(runSoftMax({1U}, in.tensor(), in.tensor()).ok());
    HostBuffer empty(DataType::kHALF, Dims{2, {0, 3}});
    EXPECT_TRUE(runSoftMax({1U << 1}, empty.tensor(), empty.tensor()).ok());
}

TEST(HostSoftMax, Refusals)
{
    TensorDesc const in{DataType::kFLOAT, Dims{2, {3, 4}}};
    expectError(inferSoftMax({0b11}, in), {"softmax: axes mask 3 must have exactly one bit set"});
    expectError(inferSoftMax({0}, in), {"axes mask 0 must have exactly one bit set"});
    expectError(inferSoftMax({0b100}, in), {"axis 2 (mask 4) is outside the input [3, 4] of rank 2"});
    expectError(inferSoftMax({0b1}, {DataType::kFLOAT, Dims{0, {}}}), {"the input [] needs rank >= 1"});
    for (DataType const type : {DataType::kINT8, DataType::kINT32, DataType::kBOOL})
    {
        expectError(inferSoftMax({0b1}, {type, in.dims}), {std::string("does not accept ") + dataTypeName(type)});
    }
    HostBuffer x(DataType::kFLOAT, in.dims);
    HostBuffer wrong(DataType::kHALF, in.dims);
    expectError(
        runSoftMax({0b1}, x.tensor(), wrong.tensor()), {"the output is kHALF [3, 4] but must be kFLOAT [3, 4]"});
}

} // namespace
} // namespace kiln::host::test
