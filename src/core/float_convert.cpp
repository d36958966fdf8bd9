// SPDX-License-Identifier: Apache-2.0
// Packing and unpacking 4-bit tensors: element 2k in the low nibble of byte k, element 2k+1 in the high nibble.
#include "core/float_convert.h"

#include <cstddef>

namespace kiln
{
namespace
{

//! Packs count elements, code(i) giving element i's nibble; false when packed is too short.
template <typename Code>
bool packNibbleCodes(size_t count, std::span<uint8_t> packed, Code code) noexcept
{
    if (packed.size() < (count + 1) / 2)
    {
        return false;
    }
    for (size_t i = 0; i < count; i += 2)
    {
        packed[i / 2] = packNibbles(code(i), i + 1 < count ? code(i + 1) : uint8_t{0});
    }
    return true;
}

//! Calls store(i, nibble) for each of count elements; false when packed is too short.
template <typename Store>
bool unpackNibbleCodes(std::span<uint8_t const> packed, size_t count, Store store) noexcept
{
    if (packed.size() < (count + 1) / 2)
    {
        return false;
    }
    for (size_t i = 0; i < count; ++i)
    {
        store(i, nibble(packed[i / 2], static_cast<int32_t>(i % 2)));
    }
    return true;
}

} // namespace

bool packInt4(std::span<int8_t const> values, std::span<uint8_t> packed) noexcept
{
    return packNibbleCodes(values.size(), packed, [&](size_t i) { return int4ToNibble(values[i]); });
}

bool unpackInt4(std::span<uint8_t const> packed, std::span<int8_t> values) noexcept
{
    return unpackNibbleCodes(packed, values.size(), [&](size_t i, uint8_t code) { values[i] = int4FromNibble(code); });
}

bool packFp4(std::span<float const> values, std::span<uint8_t> packed) noexcept
{
    return packNibbleCodes(values.size(), packed, [&](size_t i) { return floatToFp4e2m1(values[i]); });
}

bool unpackFp4(std::span<uint8_t const> packed, std::span<float> values) noexcept
{
    return unpackNibbleCodes(packed, values.size(), [&](size_t i, uint8_t code) { values[i] = fp4e2m1ToFloat(code); });
}

} // namespace kiln
