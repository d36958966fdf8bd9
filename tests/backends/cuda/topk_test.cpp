// SPDX-License-Identifier: Apache-2.0
// The CUDA top-k against the host reference, exactly (values are copies of input elements, indices positions): every
// type it takes, both operations and both indices types, over fixed shapes (detection-head sizes, a non-innermost
// axis, full sorts, one long row, many short rows, rows of one element), random shapes, axes and k, values with many
// ties and special values (NaN, infinities, signed zeros), integers beyond 2^53, empty outputs, and the refusals (the
// host's messages).
#include "backends/host/topk.h"

#include "cuda_test_util.h"

#include <array>
#include <limits>
#include <sstream>
#include <vector>

namespace kiln::cuda::test
{
namespace
{

using nvinfer1::TopKOperation;

constexpr std::array kTypes{DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT32, DataType::kINT64};

class CudaTopK : public CudaKernelTest
{
protected:
    //! An input of type and dims whose values repeat often (ties), with special values for floating types.
    HostBuffer input(DataType type, Dims const& dims)
    {
        HostBuffer in(type, dims);
        int64_t const n = host::elementCount(dims);
        bool const floating = host::numberKind(type) == host::NumberKind::kFLOATING;
        double const specials[] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
            -std::numeric_limits<double>::infinity(), 0.0, -0.0};
        for (int64_t i = 0; i < n; ++i)
        {
            if (floating && mRng() % 16 == 0)
            {
                host::storeFloat(in.tensor(), i, specials[mRng() % 5]);
            }
            else if (floating)
            {
                host::storeFloat(in.tensor(), i, static_cast<double>(static_cast<int64_t>(mRng() % 41) - 20) * 0.25);
            }
            else
            {
                host::storeInteger(in.tensor(), i, static_cast<int64_t>(mRng() % 41) - 20);
            }
        }
        return in;
    }

    //! Runs the top k of in on both backends and compares both outputs exactly (or the refusals).
    void compare(HostBuffer const& in, TopKParams const& params, std::string const& what)
    {
        SCOPED_TRACE(what);
        Expected<host::TensorDesc> const desc = host::inferTopK(params, {in.tensor().type, in.tensor().dims});
        ASSERT_TRUE(desc.ok()) << desc.error().message;
        HostBuffer values(in.tensor().type, desc.value().dims);
        HostBuffer indices(params.indicesType, desc.value().dims);
        Status const hostDone = host::runTopK(params, in.tensor(), values.tensor(), indices.tensor());
        ASSERT_TRUE(hostDone.ok()) << hostDone.error().message;
        DeviceBuffer const din = DeviceBuffer::upload(in.tensor());
        DeviceBuffer const dvalues(values.tensor());
        DeviceBuffer const dindices(indices.tensor());
        Status const done = cuda::runTopK(params, din.tensor(), dvalues.tensor(), dindices.tensor(), launch());
        ASSERT_TRUE(done.ok()) << done.error().message;
        expectNear(dindices.download(mStream), indices, 1.0, "indices");
        HostBuffer const got = dvalues.download(mStream);
        // The values are copies: exact (tolerance 0 for integers; floating ones compare equal or both NaN).
        int64_t const count = host::elementCount(values.tensor());
        for (int64_t i = 0, failures = 0; i < count && failures < 10; ++i)
        {
            if (host::numberKind(values.tensor().type) == host::NumberKind::kFLOATING)
            {
                double const x = host::loadFloat(got.tensor(), i);
                double const y = host::loadFloat(values.tensor(), i);
                bool const same = (std::isnan(x) && std::isnan(y)) || (x == y && std::signbit(x) == std::signbit(y));
                EXPECT_TRUE(same) << "value " << i << ": device " << x << ", host " << y;
                failures += same ? 0 : 1;
            }
            else
            {
                EXPECT_EQ(host::loadInteger(got.tensor(), i), host::loadInteger(values.tensor(), i)) << "value " << i;
                failures += host::loadInteger(got.tensor(), i) == host::loadInteger(values.tensor(), i) ? 0 : 1;
            }
        }
    }

    void check(DataType type, Dims const& dims, int32_t axis, int32_t k, TopKOperation op, DataType indicesType)
    {
        std::ostringstream what;
        what << dataTypeName(type) << " " << host::shapeString(dims) << " axis " << axis << " k " << k
             << (op == TopKOperation::kMAX ? " kMAX " : " kMIN ") << dataTypeName(indicesType);
        HostBuffer const in = input(type, dims);
        compare(in, TopKParams{op, k, 1U << static_cast<uint32_t>(axis), indicesType}, what.str());
    }
};

struct Case
{
    Dims dims;
    int32_t axis;
    int32_t k;
};

TEST_F(CudaTopK, FixedShapesEveryTypeAndOperation)
{
    std::vector<Case> const cases{
        {Dims{2, {1, 8400}}, 1, 100},     // a detection head's scores: one long row, small k
        {Dims{3, {2, 80, 8400}}, 2, 300}, // per class
        {Dims{3, {2, 8400, 4}}, 1, 50},   // along a non-innermost axis
        {Dims{3, {3, 1000, 7}}, 1, 1000}, // a full sort of every row
        {Dims{2, {1, 1 << 20}}, 1, 1000}, // one very long row
        {Dims{2, {100000, 4}}, 1, 2},     // many short rows
        {Dims{2, {5, 3}}, 0, 2},          // the outermost axis
        {Dims{3, {4, 1, 6}}, 1, 1},       // rows of one element
        {Dims{1, {1}}, 0, 1},             // one element
        {Dims{4, {2, 3, 4, 5}}, 3, 5},    // rank 4, whole rows
        {Dims{2, {7, 33}}, 1, 0},         // k == 0: empty outputs
        {Dims{2, {0, 33}}, 1, 3},         // no rows
    };
    for (Case const& c : cases)
    {
        for (DataType const type : kTypes)
        {
            for (TopKOperation const op : {TopKOperation::kMAX, TopKOperation::kMIN})
            {
                DataType const indicesType = op == TopKOperation::kMAX ? DataType::kINT32 : DataType::kINT64;
                check(type, c.dims, c.axis, c.k, op, indicesType);
            }
        }
    }
}

TEST_F(CudaTopK, RandomShapesAxesAndK)
{
    for (int trial = 0; trial < 200; ++trial)
    {
        Dims dims{1 + static_cast<int32_t>(mRng() % 4), {}};
        for (int32_t i = 0; i < dims.nbDims; ++i)
        {
            dims.d[i] = 1 + static_cast<int64_t>(mRng() % (i == dims.nbDims - 1 ? 700 : 9));
        }
        auto const axis = static_cast<int32_t>(mRng() % static_cast<uint64_t>(dims.nbDims));
        auto const k = static_cast<int32_t>(mRng() % static_cast<uint64_t>(dims.d[axis] + 1));
        check(kTypes[mRng() % kTypes.size()], dims, axis, k,
            mRng() % 2 == 0 ? TopKOperation::kMAX : TopKOperation::kMIN,
            mRng() % 2 == 0 ? DataType::kINT32 : DataType::kINT64);
    }
}

TEST_F(CudaTopK, IntegersBeyond2To53AndTheExtremes)
{
    HostBuffer in(DataType::kINT64, Dims{1, {6}});
    int64_t const big = (int64_t{1} << 53) + 1;
    std::vector<int64_t> const values{
        big - 1, big, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), -big, -big + 1};
    for (std::size_t i = 0; i < values.size(); ++i)
    {
        host::storeInteger(in.tensor(), static_cast<int64_t>(i), values[i]);
    }
    compare(in, TopKParams{TopKOperation::kMAX, 6, 1U, DataType::kINT64}, "kINT64 kMAX");
    compare(in, TopKParams{TopKOperation::kMIN, 6, 1U, DataType::kINT32}, "kINT64 kMIN");
    HostBuffer narrow(DataType::kINT32, Dims{1, {4}});
    for (int64_t i = 0; i < 4; ++i)
    {
        host::storeInteger(narrow.tensor(), i,
            i % 2 == 0 ? std::numeric_limits<int32_t>::min() + i : std::numeric_limits<int32_t>::max() - i);
    }
    compare(narrow, TopKParams{TopKOperation::kMAX, 4, 1U, DataType::kINT32}, "kINT32 extremes");
}

TEST_F(CudaTopK, RefusesWhatTheHostRefuses)
{
    HostBuffer const in = input(DataType::kFLOAT, Dims{2, {3, 4}});
    DeviceBuffer const din = DeviceBuffer::upload(in.tensor());
    HostBuffer const values(DataType::kFLOAT, Dims{2, {3, 2}});
    HostBuffer const indices(DataType::kINT32, Dims{2, {3, 2}});
    DeviceBuffer const dvalues(values.tensor());
    DeviceBuffer const dindices(indices.tensor());
    TopKParams const good{TopKOperation::kMAX, 2, 0b10U, DataType::kINT32};
    auto const refused = [&](TopKParams const& params, DeviceTensor const& out, DeviceTensor const& idx,
                             std::string const& fragment, Launch const& how) {
        Status const done = cuda::runTopK(params, din.tensor(), out, idx, how);
        ASSERT_FALSE(done.ok()) << fragment;
        EXPECT_NE(done.error().message.find(fragment), std::string::npos) << done.error().message;
    };
    refused(TopKParams{good.op, 5, 0b10U, DataType::kINT32}, dvalues.tensor(), dindices.tensor(),
        "topk: k is 5; it must be 0 to the axis' extent 4", launch());
    refused(TopKParams{good.op, 2, 0b11U, DataType::kINT32}, dvalues.tensor(), dindices.tensor(),
        "topk: axes mask 3 must name exactly one axis", launch());
    refused(good, dvalues.tensor(), dvalues.tensor(),
        "topk: output 1 (indices): the output is kFLOAT [3, 2] but must be kINT32 [3, 2]", launch());
    refused(good, dindices.tensor(), dindices.tensor(),
        "topk: output 0 (values): the output is kINT32 [3, 2] but must be kFLOAT [3, 2]", launch());
    refused(good, dvalues.tensor(), dindices.tensor(), "topk: the kernel needs the context's scratch memory",
        Launch{mStream, nullptr, 0});
    // More elements than the kernel's 32-bit positions number: refused before anything is read (the views' data
    // pointers are never dereferenced).
    std::byte dummy[8]{};
    DeviceTensor const huge{dummy, DataType::kFLOAT, Dims{2, {2, int64_t{1} << 30}}};
    DeviceTensor const hugeValues{dummy, DataType::kFLOAT, Dims{2, {2, 1}}};
    DeviceTensor const hugeIndices{dummy, DataType::kINT64, Dims{2, {2, 1}}};
    Status const tooMany = cuda::runTopK(
        TopKParams{TopKOperation::kMAX, 1, 0b10U, DataType::kINT64}, huge, hugeValues, hugeIndices, launch());
    ASSERT_FALSE(tooMany.ok());
    EXPECT_NE(tooMany.error().message.find(
                  "topk: the input [2, 1073741824] has 2147483648 elements; the CUDA kernel takes at most 2^31 - 1"),
        std::string::npos)
        << tooMany.error().message;
    HostBuffer const flags(DataType::kBOOL, Dims{2, {3, 4}});
    DeviceBuffer const dflags = DeviceBuffer::upload(flags.tensor());
    Status const done = cuda::runTopK(good, dflags.tensor(), dvalues.tensor(), dindices.tensor(), launch());
    ASSERT_FALSE(done.ok());
    EXPECT_NE(done.error().message.find("topk: does not accept kBOOL inputs"), std::string::npos);
}

} // namespace
} // namespace kiln::cuda::test
