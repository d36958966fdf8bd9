// SPDX-License-Identifier: Apache-2.0
// CRC-64/XZ for tests that rewrite a plan as a hostile writer would and fix up its checksums: written here
// independently of kiln's own (src/plan), so a test does not trust the code it checks.
//
//     storeLittle(plan.data() + 56, kiln::test::hostileCrc64(plan.data(), 56));
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln::test
{

inline uint64_t hostileCrc64(uint8_t const* data, std::size_t size)
{
    uint64_t crc = ~uint64_t{0};
    for (std::size_t i = 0; i < size; ++i)
    {
        crc ^= data[i];
        for (int bit = 0; bit < 8; ++bit)
        {
            crc = (crc >> 1) ^ (0xC96C5795D7870F42ULL & (0 - (crc & 1)));
        }
    }
    return ~crc;
}

} // namespace kiln::test
