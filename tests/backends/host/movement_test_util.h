// SPDX-License-Identifier: Apache-2.0
// What the data-movement kernels' tests share: random element bytes of any host type and byte-wise element
// comparison (the kernels copy bytes, so an exact byte match is the expectation), coordinates computed by the test.
#pragma once

#include "host_test_util.h"

#include <cstring>
#include <vector>

namespace kiln::host::test
{

//! The host types the data-movement kernels take.
inline std::vector<DataType> moveTypes()
{
    std::vector<DataType> types;
    for (DataType const type : allTypes())
    {
        if (contains(kHostTypes, type))
        {
            types.push_back(type);
        }
    }
    return types;
}

//! Bytes per element, as the test computes it.
inline int64_t bytesPer(DataType type)
{
    return dataTypeBits(type) / 8;
}

//! Fills every byte of a buffer at random (kBOOL gets 0 or 1).
inline void randomBytes(std::mt19937& rng, HostBuffer& buffer)
{
    for (std::byte& b : buffer.bytes())
    {
        b = static_cast<std::byte>(buffer.tensor().type == DataType::kBOOL ? rng() % 2 : rng() % 256);
    }
}

//! Whether element i of a equals element j of b, byte for byte.
inline bool sameElement(HostBuffer const& a, int64_t i, HostBuffer const& b, int64_t j)
{
    int64_t const n = bytesPer(a.tensor().type);
    return std::memcmp(bytesOf(a) + i * n, bytesOf(b) + j * n, static_cast<std::size_t>(n)) == 0;
}

//! Row-major coordinates of index in dims, computed by the test.
inline std::vector<int64_t> coords(Dims const& dims, int64_t index)
{
    std::vector<int64_t> c(static_cast<std::size_t>(dims.nbDims));
    for (int32_t i = dims.nbDims - 1; i >= 0; --i)
    {
        c[static_cast<std::size_t>(i)] = index % dims.d[i];
        index /= dims.d[i];
    }
    return c;
}

//! The linear index of coordinates c in dims.
inline int64_t linear(Dims const& dims, std::vector<int64_t> const& c)
{
    int64_t index = 0;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        index = index * dims.d[i] + c[static_cast<std::size_t>(i)];
    }
    return index;
}

//! A random shape of exactly rank, extents 1..maxExtent (0 sometimes when zeros).
inline Dims shapeOfRank(std::mt19937& rng, int32_t rank, int64_t maxExtent = 4, bool zeros = false)
{
    Dims dims{rank, {}};
    for (int32_t i = 0; i < rank; ++i)
    {
        dims.d[i] = 1 + static_cast<int64_t>(rng() % static_cast<uint32_t>(maxExtent));
        if (zeros && rng() % 8 == 0)
        {
            dims.d[i] = 0;
        }
    }
    return dims;
}

} // namespace kiln::host::test
