// SPDX-License-Identifier: Apache-2.0
// The host non-zero kernel against coordinates computed here (each element's row-major multi-index, in order), on
// random shapes (rank 0 to 5, empty ones included) and values of every type it takes, with both indices and count
// types; ONNX's example; the rule for -0, NaN and kINT8 codes; indices with more room than needed; and every refusal
// with its message.
#include "backends/host/non_zero.h"

#include "host_test_util.h"

namespace kiln::host::test
{
namespace
{

//! The coordinates of the elements of dims that nonZero(index) says are non-zero, as [rank, n] in row-major order.
template <typename NonZero>
std::vector<int64_t> coordinates(Dims const& dims, NonZero const& nonZero, int64_t& n)
{
    int64_t const volume = elementCount(dims);
    std::vector<std::vector<int64_t>> columns;
    for (int64_t i = 0; i < volume; ++i)
    {
        if (!nonZero(i))
        {
            continue;
        }
        std::vector<int64_t> column(static_cast<std::size_t>(dims.nbDims));
        int64_t rest = i;
        for (int32_t r = dims.nbDims - 1; r >= 0; --r)
        {
            column[static_cast<std::size_t>(r)] = rest % dims.d[r];
            rest /= dims.d[r];
        }
        columns.push_back(column);
    }
    n = static_cast<int64_t>(columns.size());
    std::vector<int64_t> result;
    for (int32_t r = 0; r < dims.nbDims; ++r)
    {
        for (auto const& column : columns)
        {
            result.push_back(column[static_cast<std::size_t>(r)]);
        }
    }
    return result;
}

//! Runs the kernel on in and compares with coordinates(); room extra columns beyond the volume.
void check(HostBuffer const& in, DataType indicesType, DataType countType, int64_t room = 0)
{
    HostTensor const& t = in.tensor();
    SCOPED_TRACE(::testing::Message() << dataTypeName(t.type) << " " << shapeString(t.dims) << " indices "
                                      << dataTypeName(indicesType) << " count " << dataTypeName(countType));
    NonZeroParams const params{indicesType};
    Expected<TensorDesc> const desc = inferNonZero(params, {t.type, t.dims});
    ASSERT_TRUE(desc.ok()) << desc.error().message;
    EXPECT_EQ(desc.value().type, indicesType);
    ASSERT_EQ(desc.value().dims.nbDims, 2);
    EXPECT_EQ(desc.value().dims.d[0], t.dims.nbDims);
    EXPECT_EQ(desc.value().dims.d[1], elementCount(t.dims));
    Dims roomy = desc.value().dims;
    roomy.d[1] += room;
    HostBuffer indices(indicesType, roomy);
    HostBuffer count(countType, Dims{0, {}});
    Status const done = runNonZero(params, t, indices.tensor(), count.tensor());
    ASSERT_TRUE(done.ok()) << done.error().message;
    int64_t n = 0;
    std::vector<int64_t> const expected = coordinates(
        t.dims, [&](int64_t i) { return decode(t.type, bytesOf(in), i, t.scale) != 0.0; }, n);
    EXPECT_EQ(decodeInteger(countType, bytesOf(count), 0), n);
    for (std::size_t k = 0; k < expected.size(); ++k)
    {
        EXPECT_EQ(decodeInteger(indicesType, bytesOf(indices), static_cast<int64_t>(k)), expected[k])
            << "element " << k;
    }
}

TEST(HostNonZero, RandomAgainstCoordinatesWrittenHere)
{
    std::mt19937 rng(41);
    std::vector<DataType> const types{DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8,
        DataType::kINT32, DataType::kINT64, DataType::kBOOL};
    for (int trial = 0; trial < 200; ++trial)
    {
        DataType const type = types[static_cast<std::size_t>(trial) % types.size()];
        Dims const dims = randomShape(rng);
        HostBuffer in(type, dims, type == DataType::kINT8 ? randomScale(rng) : 1.0F);
        if (type == DataType::kINT32 || type == DataType::kINT64 || type == DataType::kBOOL)
        {
            fillInteger(rng, in, -2, 2); // zeros are common
        }
        else
        {
            fillFloating(rng, in, -1.0, 1.0);
            // Make about half the elements zero.
            for (int64_t i = 0; i < elementCount(dims); ++i)
            {
                if (rng() % 2 == 0 && type != DataType::kINT8)
                {
                    encode(type, static_cast<std::byte*>(in.tensor().data), i, 0.0, 1.0F);
                }
            }
        }
        check(in, trial % 2 == 0 ? DataType::kINT64 : DataType::kINT32,
            trial % 3 == 0 ? DataType::kINT32 : DataType::kINT64, trial % 5 == 0 ? 3 : 0);
    }
}

TEST(HostNonZero, OnnxExample)
{
    // ONNX's NonZero example: [[1, 0], [1, 1]] gives [[0, 1, 1], [0, 0, 1]].
    HostBuffer in(DataType::kBOOL, Dims{2, {2, 2}});
    for (auto const& [i, v] : {std::pair{0, 1}, std::pair{1, 0}, std::pair{2, 1}, std::pair{3, 1}})
    {
        encodeInteger(DataType::kBOOL, static_cast<std::byte*>(in.tensor().data), i, v);
    }
    HostBuffer indices(DataType::kINT64, Dims{2, {2, 4}});
    HostBuffer count(DataType::kINT64, Dims{0, {}});
    ASSERT_TRUE(runNonZero(NonZeroParams{DataType::kINT64}, in.tensor(), indices.tensor(), count.tensor()).ok());
    EXPECT_EQ(decodeInteger(DataType::kINT64, bytesOf(count), 0), 3);
    std::vector<int64_t> const expected{0, 1, 1, 0, 0, 1};
    for (std::size_t k = 0; k < expected.size(); ++k)
    {
        EXPECT_EQ(decodeInteger(DataType::kINT64, bytesOf(indices), static_cast<int64_t>(k)), expected[k]);
    }
}

TEST(HostNonZero, NegativeZeroIsZeroNanIsNotAndCodesCount)
{
    HostBuffer in(DataType::kFLOAT, Dims{1, {5}});
    auto* data = static_cast<std::byte*>(in.tensor().data);
    double const values[] = {-0.0, kNan, 0.0, -kInf, 1e-30};
    for (int64_t i = 0; i < 5; ++i)
    {
        encode(DataType::kFLOAT, data, i, values[i], 1.0F);
    }
    HostBuffer indices(DataType::kINT32, Dims{2, {1, 5}});
    HostBuffer count(DataType::kINT32, Dims{0, {}});
    ASSERT_TRUE(runNonZero(NonZeroParams{DataType::kINT32}, in.tensor(), indices.tensor(), count.tensor()).ok());
    EXPECT_EQ(decodeInteger(DataType::kINT32, bytesOf(count), 0), 3);
    EXPECT_EQ(decodeInteger(DataType::kINT32, bytesOf(indices), 0), 1);
    EXPECT_EQ(decodeInteger(DataType::kINT32, bytesOf(indices), 1), 3);
    EXPECT_EQ(decodeInteger(DataType::kINT32, bytesOf(indices), 2), 4);

    // A 0-D input: no rows, a count of 0 or 1.
    HostBuffer scalar(DataType::kINT8, Dims{0, {}}, 0.5F);
    static_cast<std::byte*>(scalar.tensor().data)[0] = std::byte{1};
    HostBuffer none(DataType::kINT64, Dims{2, {0, 1}});
    ASSERT_TRUE(runNonZero(NonZeroParams{DataType::kINT64}, scalar.tensor(), none.tensor(), count.tensor()).ok());
    EXPECT_EQ(decodeInteger(DataType::kINT32, bytesOf(count), 0), 1);
}

TEST(HostNonZero, Refusals)
{
    NonZeroParams const params{DataType::kINT64};
    expectError(inferNonZero(params, {DataType::kUINT8, Dims{1, {3}}}), {"non-zero: does not take kUINT8 inputs"});
    expectError(inferNonZero(params, {DataType::kFLOAT, Dims{1, {-1}}}), {"the input shape [-1] is not concrete"});
    expectError(inferNonZero(NonZeroParams{DataType::kFLOAT}, {DataType::kFLOAT, Dims{1, {3}}}),
        {"the indices type is kFLOAT; it must be kINT32 or kINT64"});
    HostBuffer in(DataType::kFLOAT, Dims{2, {2, 3}});
    HostBuffer small(DataType::kINT64, Dims{2, {2, 5}});
    HostBuffer count(DataType::kINT64, Dims{0, {}});
    expectError(runNonZero(params, in.tensor(), small.tensor(), count.tensor()),
        {"the indices are kINT64 [2, 5]; they must be kINT64 [2, n] with n at least 6"});
    HostBuffer indices(DataType::kINT64, Dims{2, {2, 6}});
    HostBuffer vector(DataType::kINT64, Dims{1, {1}});
    expectError(runNonZero(params, in.tensor(), indices.tensor(), vector.tensor()),
        {"the count is kINT64 [1]; it must be a 0-D kINT32 or kINT64 tensor"});
    HostTensor missing = in.tensor();
    missing.data = nullptr;
    expectError(runNonZero(params, missing, indices.tensor(), count.tensor()), {"non-zero: ", "input 0"});
}

} // namespace
} // namespace kiln::host::test
