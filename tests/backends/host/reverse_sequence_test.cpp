// SPDX-License-Identifier: Apache-2.0
// The host reverse sequence against reversals written out here (coordinates walked one by one) on random shapes, axis
// pairs and lengths (negative and too long ones too), over types of every element size; ONNX's two examples; empty
// tensors; and every refusal with its message.
#include "backends/host/reverse_sequence.h"

#include "backends/host/data_movement.h"
#include "host_test_util.h"

#include <cstring>

namespace kiln::host::test
{
namespace
{

//! The input element each output element reads: its coordinates with the sequence coordinate s replaced by L - 1 - s
//! where s < L, L the batch's length clamped to [0, the sequence extent].
std::vector<int64_t> written(
    Dims const& dims, int32_t batchAxis, int32_t sequenceAxis, std::vector<int64_t> const& lengths)
{
    int64_t const count = elementCount(dims);
    std::vector<int64_t> sources(static_cast<std::size_t>(count));
    std::vector<int64_t> coordinate(static_cast<std::size_t>(dims.nbDims), 0);
    for (int64_t i = 0; i < count; ++i)
    {
        int64_t rest = i;
        for (int32_t a = dims.nbDims - 1; a >= 0; --a)
        {
            coordinate[static_cast<std::size_t>(a)] = rest % dims.d[a];
            rest /= dims.d[a];
        }
        int64_t const length
            = std::clamp<int64_t>(lengths[static_cast<std::size_t>(coordinate[static_cast<std::size_t>(batchAxis)])], 0,
                dims.d[sequenceAxis]);
        std::vector<int64_t> source = coordinate;
        int64_t& s = source[static_cast<std::size_t>(sequenceAxis)];
        s = s < length ? length - 1 - s : s;
        int64_t index = 0;
        for (int32_t a = 0; a < dims.nbDims; ++a)
        {
            index = index * dims.d[a] + source[static_cast<std::size_t>(a)];
        }
        sources[static_cast<std::size_t>(i)] = index;
    }
    return sources;
}

TEST(HostReverseSequence, RandomAgainstWrittenReversals)
{
    std::mt19937 rng(2026122);
    // Elements move as bytes: one type of each size, and kBOOL.
    for (DataType const type : {DataType::kUINT8, DataType::kHALF, DataType::kFLOAT, DataType::kINT64, DataType::kBOOL})
    {
        for (int32_t trial = 0; trial < 30; ++trial)
        {
            Dims dims{static_cast<int32_t>(2 + rng() % 3), {}};
            for (int32_t i = 0; i < dims.nbDims; ++i)
            {
                dims.d[i] = 1 + static_cast<int64_t>(rng() % 4);
            }
            ReverseSequenceParams params;
            params.batchAxis = static_cast<int32_t>(rng() % static_cast<uint32_t>(dims.nbDims));
            do
            {
                params.sequenceAxis = static_cast<int32_t>(rng() % static_cast<uint32_t>(dims.nbDims));
            } while (params.sequenceAxis == params.batchAxis);
            DataType const lengthType = rng() % 2 == 0 ? DataType::kINT32 : DataType::kINT64;
            int64_t const batch = dims.d[params.batchAxis];
            SCOPED_TRACE(::testing::Message() << dataTypeName(type) << " " << shapeString(dims) << " batch axis "
                                              << params.batchAxis << " sequence axis " << params.sequenceAxis);
            HostBuffer in(type, dims);
            for (std::byte& b : in.bytes())
            {
                b = type == DataType::kBOOL ? std::byte{static_cast<uint8_t>(rng() % 2)}
                                            : static_cast<std::byte>(rng());
            }
            HostBuffer lengths(lengthType, Dims{1, {batch}});
            std::vector<int64_t> lens(static_cast<std::size_t>(batch));
            for (int64_t b = 0; b < batch; ++b)
            {
                lens[static_cast<std::size_t>(b)] = static_cast<int64_t>(rng() % 7) - 1; // -1 .. 5
                encodeInteger(
                    lengthType, static_cast<std::byte*>(lengths.tensor().data), b, lens[static_cast<std::size_t>(b)]);
            }
            Expected<TensorDesc> const desc
                = inferReverseSequence(params, {type, dims}, {lengthType, lengths.tensor().dims});
            ASSERT_TRUE(desc.ok()) << desc.error().message;
            HostBuffer out(type, dims);
            Status const done = runReverseSequence(params, in.tensor(), lengths.tensor(), out.tensor());
            ASSERT_TRUE(done.ok()) << done.error().message;
            std::vector<int64_t> const sources = written(dims, params.batchAxis, params.sequenceAxis, lens);
            auto const size = static_cast<std::size_t>(elementBytes(type));
            for (std::size_t i = 0; i < sources.size(); ++i)
            {
                EXPECT_EQ(std::memcmp(
                              bytesOf(out) + i * size, bytesOf(in) + static_cast<std::size_t>(sources[i]) * size, size),
                    0)
                    << "element " << i << " should be input element " << sources[i];
            }
        }
    }
}

TEST(HostReverseSequence, OnnxExamples)
{
    // ONNX's ReverseSequence examples: time axis 0 and batch axis 1 with lengths [4, 3, 2, 1]; then batch axis 0 and
    // time axis 1 with lengths [1, 2, 3, 4].
    HostBuffer in(DataType::kFLOAT, Dims{2, {4, 4}});
    std::vector<double> const time{0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15};
    for (int64_t i = 0; i < 16; ++i)
    {
        encode(DataType::kFLOAT, static_cast<std::byte*>(in.tensor().data), i, time[static_cast<std::size_t>(i)], 1.0F);
    }
    HostBuffer lengths(DataType::kINT64, Dims{1, {4}});
    for (int64_t i = 0; i < 4; ++i)
    {
        encodeInteger(DataType::kINT64, static_cast<std::byte*>(lengths.tensor().data), i, 4 - i);
    }
    HostBuffer out(DataType::kFLOAT, Dims{2, {4, 4}});
    ASSERT_TRUE(runReverseSequence(ReverseSequenceParams{1, 0}, in.tensor(), lengths.tensor(), out.tensor()).ok());
    std::vector<double> const timeExpected{3, 6, 9, 12, 2, 5, 8, 13, 1, 4, 10, 14, 0, 7, 11, 15};
    for (int64_t i = 0; i < 16; ++i)
    {
        EXPECT_EQ(decode(DataType::kFLOAT, bytesOf(out), i, 1.0F), timeExpected[static_cast<std::size_t>(i)]) << i;
    }
    for (int64_t i = 0; i < 16; ++i)
    {
        encode(DataType::kFLOAT, static_cast<std::byte*>(in.tensor().data), i, static_cast<double>(i), 1.0F);
    }
    for (int64_t i = 0; i < 4; ++i)
    {
        encodeInteger(DataType::kINT64, static_cast<std::byte*>(lengths.tensor().data), i, i + 1);
    }
    ASSERT_TRUE(runReverseSequence(ReverseSequenceParams{0, 1}, in.tensor(), lengths.tensor(), out.tensor()).ok());
    std::vector<double> const batchExpected{0, 1, 2, 3, 5, 4, 6, 7, 10, 9, 8, 11, 15, 14, 13, 12};
    for (int64_t i = 0; i < 16; ++i)
    {
        EXPECT_EQ(decode(DataType::kFLOAT, bytesOf(out), i, 1.0F), batchExpected[static_cast<std::size_t>(i)]) << i;
    }
}

TEST(HostReverseSequence, EmptyTensors)
{
    for (Dims const& dims : {Dims{2, {0, 3}}, Dims{3, {2, 0, 4}}})
    {
        HostBuffer in(DataType::kFLOAT, dims);
        HostBuffer lengths(DataType::kINT32, Dims{1, {dims.d[1]}});
        HostBuffer out(DataType::kFLOAT, dims);
        EXPECT_TRUE(runReverseSequence(ReverseSequenceParams{1, 0}, in.tensor(), lengths.tensor(), out.tensor()).ok());
    }
}

TEST(HostReverseSequence, Refusals)
{
    TensorDesc const in{DataType::kFLOAT, Dims{3, {2, 3, 4}}};
    TensorDesc const lengths{DataType::kINT32, Dims{1, {3}}};
    ASSERT_TRUE(inferReverseSequence({1, 0}, in, lengths).ok());
    expectError(inferReverseSequence({3, 0}, in, lengths),
        {"reverse sequence: the batch axis 3 is outside [0, 3) for the input [2, 3, 4]"});
    expectError(inferReverseSequence({1, -1}, in, lengths), {"the sequence axis -1 is outside [0, 3)"});
    expectError(inferReverseSequence({1, 1}, in, lengths), {"the batch axis and the sequence axis are both 1"});
    expectError(inferReverseSequence({1, 0}, {DataType::kFLOAT, Dims{1, {4}}}, lengths),
        {"the input [4] needs rank 2 or more"});
    expectError(inferReverseSequence({1, 0}, {DataType::kINT4, in.dims}, lengths), {"does not take kINT4 inputs"});
    expectError(inferReverseSequence({1, 0}, in, {DataType::kFLOAT, lengths.dims}),
        {"the lengths are kFLOAT [3]; they must be kINT32 or kINT64 [3] (the batch axis' extent)"});
    expectError(inferReverseSequence({1, 0}, in, {DataType::kINT64, Dims{1, {2}}}), {"the lengths are kINT64 [2]"});
    expectError(
        inferReverseSequence({1, 0}, in, {DataType::kINT64, Dims{2, {3, 1}}}), {"the lengths are kINT64 [3, 1]"});
    HostBuffer x(DataType::kFLOAT, in.dims);
    HostBuffer n(DataType::kINT32, lengths.dims);
    HostBuffer wrong(DataType::kHALF, in.dims);
    expectError(runReverseSequence({1, 0}, x.tensor(), n.tensor(), wrong.tensor()),
        {"the output is kHALF [2, 3, 4] but must be kFLOAT [2, 3, 4]"});
}

} // namespace
} // namespace kiln::host::test
