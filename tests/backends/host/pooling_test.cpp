// SPDX-License-Identifier: Apache-2.0
// The host pooling against windows enumerated here (every window position checked against the unpadded and the
// padded input), for every pooling type, 2-D and 3-D, random strides and padding, averages with and without padding
// counted, in FP32, FP16, BF16 and INT8; and every refusal.
#include "backends/host/pooling.h"

#include "host_test_util.h"

#include <algorithm>

namespace kiln::host::test
{
namespace
{

static_assert(nvinfer1::EnumMax<PoolingType>() == 3, "a new pooling type needs its reference below");

TEST(HostPooling, TableCoversEveryTypeInOrder)
{
    ASSERT_EQ(poolingTypes().size(), 3U);
    for (std::size_t i = 0; i < poolingTypes().size(); ++i)
    {
        EXPECT_EQ(static_cast<std::size_t>(poolingTypes()[i].type), i);
    }
    EXPECT_EQ(findPoolingType(static_cast<PoolingType>(3)), nullptr);
}

void runCase(std::mt19937& rng, DataType type, PoolingParams const& params, Dims const& inDims)
{
    int32_t const nb = params.windowSize.nbDims;
    int32_t const first = inDims.nbDims - nb;
    SCOPED_TRACE(::testing::Message() << findPoolingType(params.type)->name << " " << dataTypeName(type) << " "
                                      << shapeString(inDims) << " window " << shapeString(params.windowSize)
                                      << " stride " << shapeString(params.stride) << " pre "
                                      << shapeString(params.prePadding) << " post " << shapeString(params.postPadding)
                                      << " excl " << params.averageCountExcludesPadding);
    float const scale = type == DataType::kINT8 ? 0.125F : 1.0F;
    HostBuffer in(type, inDims, scale);
    fillFloating(rng, in, -4.0, 4.0, false);
    Dims outDims = inDims;
    for (int32_t a = 0; a < nb; ++a)
    {
        outDims.d[first + a]
            = (inDims.d[first + a] + params.prePadding.d[a] + params.postPadding.d[a] - params.windowSize.d[a])
                / params.stride.d[a]
            + 1;
    }
    Expected<TensorDesc> const desc = inferPooling(params, {type, inDims});
    ASSERT_TRUE(desc.ok()) << desc.error().message;
    ASSERT_TRUE(sameShape(desc.value().dims, outDims)) << shapeString(desc.value().dims);
    HostBuffer out(type, outDims, scale);
    Status const done = runPooling(params, in.tensor(), out.tensor());
    ASSERT_TRUE(done.ok()) << done.error().message;

    int64_t planes = 1;
    for (int32_t i = 0; i < first; ++i)
    {
        planes *= inDims.d[i];
    }
    int64_t const outPlane = elementCount(outDims) / std::max<int64_t>(planes, 1);
    int64_t const inPlane = elementCount(inDims) / std::max<int64_t>(planes, 1);
    for (int64_t o = 0; o < elementCount(outDims); ++o)
    {
        int64_t const plane = o / outPlane;
        // The output coordinates, then every window position by an odometer over the window.
        std::vector<int64_t> at(static_cast<std::size_t>(nb));
        for (int32_t a = nb - 1, rest = static_cast<int32_t>(o % outPlane); a >= 0; --a)
        {
            at[static_cast<std::size_t>(a)] = rest % outDims.d[first + a];
            rest /= static_cast<int32_t>(outDims.d[first + a]);
        }
        std::vector<int64_t> tap(static_cast<std::size_t>(nb), 0);
        double maximum = -kInf;
        double sum = 0.0;
        int64_t inside = 0;
        int64_t padded = 0;
        for (bool more = true; more;)
        {
            bool inInput = true;
            bool inPadded = true;
            int64_t index = 0;
            for (int32_t a = 0; a < nb; ++a)
            {
                auto const s = static_cast<std::size_t>(a);
                int64_t const x = at[s] * params.stride.d[a] - params.prePadding.d[a] + tap[s];
                int64_t const extent = inDims.d[first + a];
                inInput = inInput && x >= 0 && x < extent;
                inPadded = inPadded && x >= -params.prePadding.d[a] && x < extent + params.postPadding.d[a];
                index = index * extent + x;
            }
            padded += inPadded ? 1 : 0;
            if (inInput)
            {
                double const v = decode(type, bytesOf(in), plane * inPlane + index, scale);
                maximum = std::max(maximum, v);
                sum += v;
                ++inside;
            }
            more = false;
            for (int32_t a = nb - 1; a >= 0 && !more; --a)
            {
                auto const s = static_cast<std::size_t>(a);
                if (++tap[s] < params.windowSize.d[a])
                {
                    more = true;
                }
                else
                {
                    tap[s] = 0;
                }
            }
        }
        double const average = sum / static_cast<double>(params.averageCountExcludesPadding ? inside : padded);
        double expected = average;
        if (params.type == PoolingType::kMAX)
        {
            expected = maximum;
        }
        else if (params.type == PoolingType::kMAX_AVERAGE_BLEND)
        {
            double const f = params.blendFactor;
            expected = (1.0 - f) * maximum + f * average;
        }
        double const rounded = roundTo(type, expected, scale);
        double const actual = decode(type, bytesOf(out), o, scale);
        ASSERT_LE(std::fabs(actual - rounded), ulp(type, rounded, scale) + 1e-12 * std::fabs(sum)) << "output " << o;
    }
}

TEST(HostPooling, RandomAgainstEnumeratedWindows)
{
    std::mt19937 rng(4242);
    for (PoolingTypeInfo const& info : poolingTypes())
    {
        for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8})
        {
            for (int32_t trial = 0; trial < 15; ++trial)
            {
                int32_t const nb = rng() % 3 == 0 ? 3 : 2;
                PoolingParams params;
                params.type = info.type;
                params.blendFactor = static_cast<float>(rng() % 5) / 4.0F;
                params.averageCountExcludesPadding = rng() % 2 == 0;
                params.windowSize = Dims{nb, {}};
                params.stride = Dims{nb, {}};
                params.prePadding = Dims{nb, {}};
                params.postPadding = Dims{nb, {}};
                int32_t const lead = 1 + static_cast<int32_t>(rng() % 2);
                Dims in{lead + nb, {}};
                for (int32_t i = 0; i < lead; ++i)
                {
                    in.d[i] = 1 + rng() % 3;
                }
                for (int32_t a = 0; a < nb; ++a)
                {
                    int64_t const window = 1 + rng() % 3;
                    params.windowSize.d[a] = window;
                    params.stride.d[a] = 1 + rng() % 3;
                    params.prePadding.d[a] = static_cast<int64_t>(rng() % static_cast<uint32_t>(window));
                    params.postPadding.d[a] = static_cast<int64_t>(rng() % static_cast<uint32_t>(window));
                    in.d[lead + a] = std::max<int64_t>(1 + rng() % 5, window);
                }
                runCase(rng, type, params, in);
            }
        }
    }
}

TEST(HostPooling, AWindowFarLargerThanItsInputVisitsOnlyTheInput)
{
    // A 3-D window of (2^31 - 1)^3 taps (past int64) over one element, padded to the window on both sides: the
    // kernel visits the taps inside the input, not the window's volume, and counts the padded taps in double.
    int64_t const window = (int64_t{1} << 31) - 1;
    int64_t const pad = (int64_t{1} << 30) - 1;
    Dims const in{5, {1, 1, 1, 1, 1}};
    for (bool const excludePadding : {true, false})
    {
        PoolingParams params;
        params.type = PoolingType::kAVERAGE;
        params.averageCountExcludesPadding = excludePadding;
        params.windowSize = Dims{3, {window, window, window}};
        params.stride = Dims{3, {1, 1, 1}};
        params.prePadding = Dims{3, {pad, pad, pad}};
        params.postPadding = Dims{3, {pad, pad, pad}};
        Expected<TensorDesc> const desc = inferPooling(params, {DataType::kFLOAT, in});
        ASSERT_TRUE(desc.ok()) << desc.error().message;
        ASSERT_TRUE(sameShape(desc.value().dims, in)) << shapeString(desc.value().dims);
        HostBuffer x(DataType::kFLOAT, in);
        static_cast<float*>(x.tensor().data)[0] = 6.0F;
        HostBuffer y(DataType::kFLOAT, in);
        ASSERT_TRUE(runPooling(params, x.tensor(), y.tensor()).ok());
        double const padded = static_cast<double>(window) * static_cast<double>(window) * static_cast<double>(window);
        EXPECT_FLOAT_EQ(
            static_cast<float const*>(y.tensor().data)[0], excludePadding ? 6.0F : static_cast<float>(6.0 / padded));
    }
}

TEST(HostPooling, Refusals)
{
    PoolingParams params;
    params.type = PoolingType::kAVERAGE;
    params.windowSize = Dims{2, {2, 2}};
    TensorDesc const in{DataType::kFLOAT, Dims{3, {2, 4, 4}}};
    ASSERT_TRUE(inferPooling(params, in).ok());
    expectError(
        inferPooling(params, {DataType::kFLOAT, Dims{2, {4, 4}}}), {"has rank 2 but 2-D pooling needs rank >= 3"});
    expectError(inferPooling(params, {DataType::kINT32, in.dims}), {"pooling: does not accept kINT32"});
    PoolingParams padded = params;
    padded.prePadding = Dims{2, {0, 2}};
    expectError(inferPooling(padded, in), {"spatial axis 1: padding 2 / 0 must be smaller than the window 2"});
    PoolingParams blend = params;
    blend.type = PoolingType::kMAX_AVERAGE_BLEND;
    blend.blendFactor = 1.5F;
    expectError(inferPooling(blend, in), {"blendFactor 1.5", "outside [0, 1]"});
    PoolingParams unknown = params;
    unknown.type = static_cast<PoolingType>(5);
    expectError(inferPooling(unknown, in), {"unknown PoolingType 5"});
    PoolingParams big = params;
    big.windowSize = Dims{2, {5, 2}};
    expectError(inferPooling(big, in), {"padded input extent 4", "shorter than the window's span 5"});
    HostBuffer x(DataType::kFLOAT, in.dims);
    HostBuffer wrong(DataType::kFLOAT, in.dims);
    expectError(runPooling(params, x.tensor(), wrong.tensor()),
        {"the output is kFLOAT [2, 4, 4] but must be kFLOAT [2, 3, 3]"});
}

} // namespace
} // namespace kiln::host::test
