// SPDX-License-Identifier: Apache-2.0
// What the pointwise kernel tests share (elementwise, unary, activation, cast, select, fill): random shapes of rank 0
// to 5 with broadcasting and empty tensors, values with special ones mixed in, and scales for the scaled types.
//
//     Dims const full = randomShape(mRng);
//     HostBuffer a(DataType::kHALF, broadcastInput(mRng, full));
//     fillRandom(a, mRng, -4.0, 4.0);   // sometimes ±0, ±inf, NaN, ±1 or a subnormal
#pragma once

#include "cuda_test_util.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <vector>

namespace kiln::cuda::test
{

//! Every type the host backend computes on.
inline std::vector<DataType> hostTypes()
{
    return {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8, DataType::kFP8, DataType::kINT32,
        DataType::kINT64, DataType::kUINT8, DataType::kBOOL};
}

//! A random shape of rank 0..maxRank with at most about maxCount elements, an extent of 0 now and then.
inline Dims randomShape(std::mt19937_64& rng, int32_t maxRank = 5, int64_t maxCount = 512)
{
    Dims dims{static_cast<int32_t>(rng() % static_cast<uint64_t>(maxRank + 1)), {}};
    int64_t count = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        int64_t extent = 1 + static_cast<int64_t>(rng() % 6);
        if (rng() % 40 == 0)
        {
            extent = 0;
        }
        if (count * extent > maxCount)
        {
            extent = 1;
        }
        dims.d[i] = extent;
        count *= std::max<int64_t>(extent, 1);
    }
    return dims;
}

//! shape with some extents replaced by 1 (each with probability 1/3): an input that broadcasts to shape.
inline Dims broadcastInput(std::mt19937_64& rng, Dims const& shape)
{
    Dims dims = shape;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        if (rng() % 3 == 0)
        {
            dims.d[i] = 1;
        }
    }
    return dims;
}

//! The shape that shapes broadcast to (each of one rank, every extent equal or 1; 1 against 0 gives 0).
inline Dims broadcastOf(std::initializer_list<Dims> shapes)
{
    Dims out = *shapes.begin();
    for (Dims const& s : shapes)
    {
        for (int32_t i = 0; i < out.nbDims; ++i)
        {
            out.d[i] = out.d[i] == 1 ? s.d[i] : out.d[i];
        }
    }
    return out;
}

//! A scale for type: one of a few, some not powers of two, for kINT8 and kFP8; 1 for the others.
inline float randomScale(std::mt19937_64& rng, DataType type)
{
    static constexpr std::array<float, 5> kScales{0.0625F, 0.125F, 0.3F, 1.0F, 2.5F};
    return host::contains(host::kScaledTypes, type) ? kScales[rng() % kScales.size()] : 1.0F;
}

//! Random values in every element of t. Floating types: uniform in [lo, hi), integral (floored) when integral, and
//! one in 12 a special value (±0, ±inf, NaN, ±1, a subnormal of the type) when specials. kINT8 and kFP8: random codes
//! (the FP8 NaN codes only when specials), or integral values in [lo, hi) at the tensor's scale when integral.
//! Integers: mostly in [lo, hi) and, when specials, one in 6 an extreme of the type (kUINT8: 0..255). kBOOL: 0 or 1.
inline void fillRandom(
    HostBuffer& buffer, std::mt19937_64& rng, double lo, double hi, bool specials = true, bool integral = false)
{
    HostTensor const& t = buffer.tensor();
    std::uniform_real_distribution<double> uniform(lo, hi);
    auto* const bytes = buffer.bytes().data();
    int64_t const count = host::elementCount(t);
    for (int64_t i = 0; i < count; ++i)
    {
        double const v = integral ? std::floor(uniform(rng)) : uniform(rng);
        switch (t.type)
        {
        case DataType::kINT8:
        case DataType::kFP8:
            if (integral)
            {
                host::storeFloat(t, i, v * static_cast<double>(t.scale));
                break;
            }
            bytes[i] = static_cast<std::byte>(rng() % 256);
            if (t.type == DataType::kFP8 && !specials && (bytes[i] & std::byte{0x7F}) == std::byte{0x7F})
            {
                bytes[i] = std::byte{0x38}; // 1.0 instead of NaN
            }
            break;
        case DataType::kFLOAT:
        case DataType::kHALF:
        case DataType::kBF16:
        {
            double value = v;
            if (specials && rng() % 12 == 0)
            {
                double const subnormal = t.type == DataType::kHALF ? std::ldexp(3.0, -24) : std::ldexp(3.0, -140);
                double const inf = std::numeric_limits<double>::infinity();
                std::array<double, 9> const choices{
                    0.0, -0.0, inf, -inf, std::numeric_limits<double>::quiet_NaN(), 1.0, -1.0, subnormal, -subnormal};
                value = choices[rng() % choices.size()];
            }
            host::storeFloat(t, i, value);
            break;
        }
        case DataType::kINT32:
        case DataType::kINT64:
        {
            auto value = static_cast<int64_t>(std::floor(v));
            if (specials && rng() % 6 == 0)
            {
                bool const wide = t.type == DataType::kINT64;
                std::array<int64_t, 4> const extremes{
                    wide ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int32_t>::min(),
                    wide ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int32_t>::max(),
                    static_cast<int64_t>(rng() % (uint64_t{1} << 32)) - (int64_t{1} << 31),
                    wide ? static_cast<int64_t>(rng()) : -1};
                value = extremes[rng() % extremes.size()];
            }
            host::storeInteger(t, i, value);
            break;
        }
        case DataType::kUINT8: host::storeInteger(t, i, static_cast<int64_t>(rng() % 256)); break;
        case DataType::kBOOL: host::storeInteger(t, i, static_cast<int64_t>(rng() % 2)); break;
        default: break;
        }
    }
}

//! "kHALF [2, 3]".
inline std::string describe(HostTensor const& t)
{
    return std::string(dataTypeName(t.type)) + " " + host::shapeString(t.dims);
}

} // namespace kiln::cuda::test
