// SPDX-License-Identifier: Apache-2.0
// What the CUDA data-movement kernel tests share (shuffle, slice, concatenation, gather, reformat): random element
// bytes of every type the kernels move, random shapes, an exact byte comparison of a device result with the host
// reference, and the check that the device refuses what the host refuses, with the host's message.
//
//     HostBuffer in(type, dims);
//     randomBytes(in, mRng);                                     // NaN patterns included: bytes are only copied
//     Status const host = host::runShuffle(params, in.tensor(), expected.tensor());
//     Status const device = cuda::runShuffle(params, din.tensor(), dout.tensor(), launch());
//     if (sameOutcome(device, host, what)) { HostBuffer actual = dout.download(mStream); expectSameBytes(...); }
#pragma once

#include "cuda_test_util.h"

#include "core/data_type.h"

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace kiln::cuda::test
{

//! Every type the data-movement kernels move: elements of 1, 2, 4 and 8 bytes, the scaled ones and kBOOL.
inline std::vector<DataType> moveTypes()
{
    return {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8, DataType::kFP8, DataType::kINT32,
        DataType::kINT64, DataType::kUINT8, DataType::kBOOL};
}

//! Random bytes in every element (kBOOL 0 or 1).
inline void randomBytes(HostBuffer& buffer, std::mt19937_64& rng)
{
    bool const boolean = buffer.tensor().type == DataType::kBOOL;
    for (std::byte& b : buffer.bytes())
    {
        b = static_cast<std::byte>(boolean ? rng() % 2 : rng() % 256);
    }
}

//! A shape of rank, each extent in [1, maxExtent], or 0 one time in eight when zeros.
inline Dims randomShape(std::mt19937_64& rng, int32_t rank, int64_t maxExtent, bool zeros = false)
{
    Dims dims{rank, {}};
    for (int32_t i = 0; i < rank; ++i)
    {
        dims.d[i] = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(maxExtent));
        if (zeros && rng() % 8 == 0)
        {
            dims.d[i] = 0;
        }
    }
    return dims;
}

//! A random permutation of rank dimensions (the entries past rank are the identity's).
inline nvinfer1::Permutation randomPermutation(std::mt19937_64& rng, int32_t rank)
{
    nvinfer1::Permutation p{};
    for (int32_t i = 0; i < Dims::MAX_DIMS; ++i)
    {
        p.order[i] = i;
    }
    for (int32_t i = rank - 1; i > 0; --i)
    {
        std::swap(p.order[i], p.order[rng() % static_cast<uint64_t>(i + 1)]);
    }
    return p;
}

//! Expects actual and expected to hold the same bytes, naming the first elements (of elementBytes) that differ.
inline void expectSameBytes(HostBuffer& actual, HostBuffer& expected, std::string const& what, int64_t elementBytes)
{
    std::span<std::byte const> const a = actual.bytes();
    std::span<std::byte const> const e = expected.bytes();
    ASSERT_EQ(a.size(), e.size()) << what;
    int failures = 0;
    for (std::size_t i = 0; i < a.size() && failures < 10; ++i)
    {
        if (a[i] != e[i])
        {
            ADD_FAILURE() << what << ": element " << static_cast<int64_t>(i) / elementBytes << " byte "
                          << static_cast<int64_t>(i) % elementBytes << ": device " << static_cast<int>(a[i])
                          << ", host " << static_cast<int>(e[i]);
            ++failures;
            i = (i / static_cast<std::size_t>(elementBytes) + 1) * static_cast<std::size_t>(elementBytes) - 1;
        }
    }
}

//! expectSameBytes for tensors of one type.
inline void expectSameBytes(HostBuffer& actual, HostBuffer& expected, std::string const& what)
{
    expectSameBytes(actual, expected, what, std::max<int64_t>(dataTypeBits(expected.tensor().type) / 8, 1));
}

//! Expects the device kernel to succeed where the host kernel does and to fail with the host's message where it
//! fails; true when both succeeded (then the results are worth comparing).
inline bool sameOutcome(host::Status const& device, host::Status const& host, std::string const& what)
{
    if (host.ok())
    {
        EXPECT_TRUE(device.ok()) << what << ": the host succeeds, the device says: " << device.error().message;
        return device.ok();
    }
    EXPECT_FALSE(device.ok()) << what << ": the device succeeds, the host says: " << host.error().message;
    if (!device.ok())
    {
        EXPECT_EQ(device.error().message, host.error().message) << what;
        EXPECT_EQ(device.error().code, host.error().code) << what;
    }
    return false;
}

//! "kHALF [2, 3]": a tensor's type and shape for messages.
inline std::string describe(DataType type, Dims const& dims)
{
    return std::string(dataTypeName(type)) + " " + host::shapeString(dims);
}

} // namespace kiln::cuda::test
