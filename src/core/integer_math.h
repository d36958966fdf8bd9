// SPDX-License-Identifier: Apache-2.0
// Integer arithmetic as kiln's element-wise layers define it, shared by the host reference kernels and the CUDA
// kernels (compiled for both with KILN_HOST_DEVICE): two's-complement wrap-around, division truncated or floored,
// and integer powers. Division by zero is the caller's to handle (the host refuses it, the device writes 0).
//
//     int64_t const q = integerQuotient(-7, 2, true);   // -4
//     int64_t const p = integerPower(3, 4);             // 81
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define KILN_HOST_DEVICE __host__ __device__
#else
#define KILN_HOST_DEVICE
#endif

namespace kiln
{

//! An unsigned result as int64_t, modulo 2^64 (two's complement wrap-around).
KILN_HOST_DEVICE constexpr int64_t wrapToInt64(uint64_t value) noexcept
{
    return static_cast<int64_t>(value);
}

//! a / b truncated toward zero, or rounded down when floor; b is not 0. INT64_MIN / -1 wraps to INT64_MIN.
KILN_HOST_DEVICE constexpr int64_t integerQuotient(int64_t a, int64_t b, bool floor) noexcept
{
    if (b == -1)
    {
        return wrapToInt64(0 - static_cast<uint64_t>(a));
    }
    int64_t quotient = a / b;
    if (floor && a % b != 0 && ((a < 0) != (b < 0)))
    {
        --quotient;
    }
    return quotient;
}

//! base^exponent modulo 2^64; a negative exponent gives the exact power truncated toward zero as an integer division
//! would (1 or -1 for base 1 or -1, else 0). base 0 with a negative exponent is the caller's to refuse.
KILN_HOST_DEVICE constexpr int64_t integerPower(int64_t base, int64_t exponent) noexcept
{
    if (exponent < 0)
    {
        if (base == 1 || base == -1)
        {
            return exponent % 2 == 0 ? 1 : base;
        }
        return 0;
    }
    uint64_t result = 1;
    auto factor = static_cast<uint64_t>(base);
    for (auto e = static_cast<uint64_t>(exponent); e != 0; e >>= 1)
    {
        if ((e & 1U) != 0)
        {
            result *= factor;
        }
        factor *= factor;
    }
    return wrapToInt64(result);
}

} // namespace kiln
