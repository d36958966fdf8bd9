// SPDX-License-Identifier: Apache-2.0
// Bit-exact scalar conversions between float and the narrow element types, and quantization with a scale, for the
// host reference backend. No CUDA: every function is plain constexpr C++ and gives the same bits on every host.
//
//     uint16_t const h = floatToHalf(0.1f);              // 0x2E66, rounded to nearest, ties to even
//     float const back = halfToFloat(h);                 // 0.0999755859375f
//     uint8_t const q = floatToFp8e4m3(1000.0f);         // 0x7E: saturated to 448
//     int8_t const i = quantizeInt8(2.5f, 1.0f);         // 2: ties go to the even integer
//
// Rounding is to nearest, ties to even, everywhere except floatToE8M0 (see there). The narrow types travel as
// their bit patterns: uint16_t for half and bfloat16, uint8_t for FP8 and E8M0, the low nibble of a uint8_t for
// a single FP4 or INT4 value. Packed 4-bit tensors hold element 2k in the low nibble of byte k and element 2k+1
// in its high nibble; an odd count leaves the last high nibble zero.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <span>

namespace kiln
{

namespace detail
{

//! A narrow binary floating-point format: mantissa bits and exponent bias. Exponent field 0 is subnormal.
struct MiniFloatFormat
{
    int32_t mantissaBits;
    int32_t bias;
};

inline constexpr MiniFloatFormat kHalfFormat{10, 15};
inline constexpr MiniFloatFormat kE4M3Format{3, 7};
inline constexpr MiniFloatFormat kE2M1Format{1, 1};

inline constexpr uint32_t kFloatSign = 0x80000000U;
inline constexpr uint32_t kFloatInf = 0x7F800000U;
inline constexpr uint32_t kFloatQuietNan = 0x7FC00000U;

//! 2^n, exact for n in [-149, 127].
constexpr float exp2i(int32_t n) noexcept
{
    return n >= -126 ? std::bit_cast<float>(static_cast<uint32_t>(n + 127) << 23)
                     : std::bit_cast<float>(uint32_t{1} << (n + 149));
}

//! value / 2^shift rounded to nearest, ties to even; shift in [1, 31].
constexpr uint32_t shiftRightRoundEven(uint32_t value, int32_t shift) noexcept
{
    uint32_t const kept = value >> shift;
    uint32_t const dropped = value & ((uint32_t{1} << shift) - 1);
    uint32_t const half = uint32_t{1} << (shift - 1);
    bool const up = dropped > half || (dropped == half && (kept & 1U) != 0);
    return kept + (up ? 1U : 0U);
}

//! The magnitude code (exponent field, then mantissa) of the format's value nearest to the float whose bits
//! without the sign are magnitude, ties to even; not for NaN. A code past the format's largest finite one means
//! overflow (infinity always gives one); the caller maps it to infinity, NaN or the largest value.
constexpr uint32_t encodeMagnitude(uint32_t magnitude, MiniFloatFormat format) noexcept
{
    uint32_t const floatExponent = magnitude >> 23;
    uint32_t const floatMantissa = magnitude & 0x7FFFFFU;
    // |x| = significand * 2^(exponent - 23)
    uint32_t const significand = floatExponent == 0 ? floatMantissa : (floatMantissa | 0x800000U);
    int32_t const exponent = floatExponent == 0 ? -126 : static_cast<int32_t>(floatExponent) - 127;
    int32_t const field = exponent + format.bias; // the exponent field if |x| is normal in the format
    int32_t shift = 23 - format.mantissaBits;
    uint32_t base = 0;
    if (field >= 1)
    {
        // The significand's implicit bit adds the last 1 to the exponent field; a rounding carry adds another.
        base = static_cast<uint32_t>(field - 1) << format.mantissaBits;
    }
    else
    {
        shift += 1 - field; // subnormal in the format: fewer mantissa bits survive
    }
    if (shift > 24)
    {
        return 0; // below half the smallest subnormal
    }
    return base + shiftRightRoundEven(significand, shift);
}

//! The value of a finite magnitude code of the format; exact.
constexpr float decodeMagnitude(uint32_t code, MiniFloatFormat format) noexcept
{
    auto const field = static_cast<int32_t>(code >> format.mantissaBits);
    uint32_t const mantissa = code & ((uint32_t{1} << format.mantissaBits) - 1);
    if (field == 0)
    {
        return static_cast<float>(mantissa) * exp2i(1 - format.bias - format.mantissaBits);
    }
    uint32_t const significand = mantissa | (uint32_t{1} << format.mantissaBits);
    return static_cast<float>(significand) * exp2i(field - format.bias - format.mantissaBits);
}

//! The float with the bits of magnitude (a non-negative float) and sign (0 or kFloatSign).
constexpr float withSign(uint32_t sign, float magnitude) noexcept
{
    return std::bit_cast<float>(sign | std::bit_cast<uint32_t>(magnitude));
}

//! v rounded to the nearest integer, ties to even, then clamped to [low, high]; NaN gives 0.
constexpr int32_t roundHalfEvenClamped(float v, int32_t low, int32_t high) noexcept
{
    if (v != v)
    {
        return 0;
    }
    if (v <= static_cast<float>(low))
    {
        return low;
    }
    if (v >= static_cast<float>(high))
    {
        return high;
    }
    auto rounded = static_cast<int32_t>(v);             // toward zero
    float const rest = v - static_cast<float>(rounded); // exact: |v| is small here
    bool const odd = (rounded & 1) != 0;
    if (rest > 0.5F || (rest == 0.5F && odd))
    {
        ++rounded;
    }
    else if (rest < -0.5F || (rest == -0.5F && odd))
    {
        --rounded;
    }
    return rounded;
}

} // namespace detail

// ---- IEEE binary16 (half) --------------------------------------------------------------------------------------

//! The float value of half bits h; exact. A NaN stays NaN (quieted), with its sign and payload.
constexpr float halfToFloat(uint16_t h) noexcept
{
    uint32_t const sign = static_cast<uint32_t>(h & 0x8000U) << 16;
    uint32_t const magnitude = h & 0x7FFFU;
    if (magnitude >= 0x7C00U)
    {
        uint32_t const payload = (magnitude & 0x3FFU) << 13;
        return std::bit_cast<float>(sign | detail::kFloatInf | payload | (payload != 0 ? 0x400000U : 0U));
    }
    return detail::withSign(sign, detail::decodeMagnitude(magnitude, detail::kHalfFormat));
}

//! x as half bits, rounded to nearest, ties to even, subnormals kept. Magnitudes from 65520 (the midpoint
//! between the largest half, 65504, and 2^16) up become infinity; a NaN becomes a quiet NaN with its sign and the
//! top of its payload.
constexpr uint16_t floatToHalf(float x) noexcept
{
    uint32_t const bits = std::bit_cast<uint32_t>(x);
    auto const sign = static_cast<uint16_t>((bits >> 16) & 0x8000U);
    uint32_t const magnitude = bits & ~detail::kFloatSign;
    if (magnitude > detail::kFloatInf)
    {
        return static_cast<uint16_t>(sign | 0x7E00U | ((magnitude >> 13) & 0x3FFU));
    }
    uint32_t const code = detail::encodeMagnitude(magnitude, detail::kHalfFormat);
    return static_cast<uint16_t>(sign | (code > 0x7BFFU ? 0x7C00U : code)); // infinity included
}

// ---- bfloat16 --------------------------------------------------------------------------------------------------

//! The float value of bfloat16 bits b: the top half of a float.
constexpr float bf16ToFloat(uint16_t b) noexcept
{
    return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
}

//! x as bfloat16 bits, the dropped 16 bits rounded to nearest, ties to even; overflow past the largest bfloat16
//! rounds to infinity as IEEE rounding does. A NaN becomes a quiet NaN (it never rounds into infinity).
constexpr uint16_t floatToBf16(float x) noexcept
{
    uint32_t const bits = std::bit_cast<uint32_t>(x);
    if ((bits & ~detail::kFloatSign) > detail::kFloatInf)
    {
        return static_cast<uint16_t>((bits >> 16) | 0x0040U);
    }
    uint32_t const roundingBias = 0x7FFFU + ((bits >> 16) & 1U);
    return static_cast<uint16_t>((bits + roundingBias) >> 16);
}

// ---- FP8 E4M3 (OCP E4M3FN: bias 7, no infinities, S.1111.111 is NaN, largest finite 448) -----------------------

//! The float value of E4M3 bits v; exact. 0x7F and 0xFF are NaN; every other pattern is finite.
constexpr float fp8e4m3ToFloat(uint8_t v) noexcept
{
    uint32_t const sign = static_cast<uint32_t>(v & 0x80U) << 24;
    uint32_t const magnitude = v & 0x7FU;
    if (magnitude == 0x7FU)
    {
        return std::bit_cast<float>(sign | detail::kFloatQuietNan);
    }
    return detail::withSign(sign, detail::decodeMagnitude(magnitude, detail::kE4M3Format));
}

//! x as E4M3 bits, rounded to nearest, ties to even, saturating: every magnitude above 448, infinity included,
//! becomes ±448 (0x7E/0xFE); any NaN becomes the canonical NaN 0x7F, whatever its sign, as CUDA's conversion
//! gives. This is the conversion quantization uses (CUDA's __NV_SATFINITE behaviour).
constexpr uint8_t floatToFp8e4m3(float x) noexcept
{
    uint32_t const bits = std::bit_cast<uint32_t>(x);
    auto const sign = static_cast<uint8_t>((bits >> 24) & 0x80U);
    uint32_t const magnitude = bits & ~detail::kFloatSign;
    if (magnitude > detail::kFloatInf)
    {
        return 0x7FU;
    }
    uint32_t const code = detail::encodeMagnitude(magnitude, detail::kE4M3Format);
    return static_cast<uint8_t>(sign | (code > 0x7EU ? 0x7EU : code)); // infinity included
}

//! As floatToFp8e4m3 but not saturating (CUDA's __NV_NOSAT): a magnitude that rounds past 448 (above 464, the
//! tie that goes to even 448) and ±infinity become NaN with x's sign (0x7F/0xFF); a NaN becomes 0x7F.
constexpr uint8_t floatToFp8e4m3NoSat(float x) noexcept
{
    uint32_t const bits = std::bit_cast<uint32_t>(x);
    auto const sign = static_cast<uint8_t>((bits >> 24) & 0x80U);
    uint32_t const magnitude = bits & ~detail::kFloatSign;
    if (magnitude > detail::kFloatInf)
    {
        return 0x7FU;
    }
    uint32_t const code = detail::encodeMagnitude(magnitude, detail::kE4M3Format);
    return static_cast<uint8_t>(sign | (code > 0x7EU ? 0x7FU : code)); // infinity included
}

// ---- FP4 E2M1 (bias 1: ±{0, 0.5, 1, 1.5, 2, 3, 4, 6}, no infinity or NaN) -----------------------------------------

//! The float value of the E2M1 code in the low nibble of v (bit 3 the sign); exact.
constexpr float fp4e2m1ToFloat(uint8_t v) noexcept
{
    uint32_t const sign = static_cast<uint32_t>(v & 0x8U) << 28;
    return detail::withSign(sign, detail::decodeMagnitude(v & 0x7U, detail::kE2M1Format));
}

//! x as an E2M1 code in the low nibble, rounded to nearest, ties to even, saturating: magnitudes above 6 and
//! infinity become ±6. The format has no NaN: NaN becomes +6 (0x7), the largest value, so that it stays visible.
constexpr uint8_t floatToFp4e2m1(float x) noexcept
{
    uint32_t const bits = std::bit_cast<uint32_t>(x);
    uint32_t const magnitude = bits & ~detail::kFloatSign;
    if (magnitude > detail::kFloatInf)
    {
        return 0x7U;
    }
    auto const sign = static_cast<uint8_t>((bits >> 28) & 0x8U);
    uint32_t const code = detail::encodeMagnitude(magnitude, detail::kE2M1Format);
    return static_cast<uint8_t>(sign | (code > 0x7U ? 0x7U : code)); // infinity included
}

// ---- E8M0 (an unsigned power of two, 2^(e - 127) for e in [0, 254]; 0xFF is NaN; no zero, no sign) -----------

//! The float value of E8M0 bits e: 2^(e - 127), exact (0x00 is 2^-127, a float subnormal); 0xFF is NaN.
constexpr float e8m0ToFloat(uint8_t e) noexcept
{
    return e == 0xFFU ? std::bit_cast<float>(detail::kFloatQuietNan) : detail::exp2i(static_cast<int32_t>(e) - 127);
}

//! How floatToE8M0 picks a power of two for a value between two of them.
enum class E8M0Rounding : int32_t
{
    kNEAREST, //!< Nearest in the log2 domain: 2^k up to below sqrt(2) * 2^k, then 2^(k+1). Never a tie.
    kDOWN,    //!< 2^floor(log2 x): drop the mantissa (PTX cvt.rz ue8m0).
    kUP,      //!< 2^ceil(log2 x): the smallest power of two >= x (PTX cvt.rp ue8m0), so x / scale <= 1.
};

//! |x| as E8M0 bits: the format has no sign, so the sign of x is ignored, as CUDA's conversion does. A nonzero
//! finite |x| rounds to a power of two as rounding says, then clamps to [2^-127, 2^127] (0x00..0xFE); ±infinity
//! gives 0xFE (saturated); ±0 gives 0x00, the smallest scale (the format has no zero); NaN gives 0xFF.
constexpr uint8_t floatToE8M0(float x, E8M0Rounding rounding = E8M0Rounding::kNEAREST) noexcept
{
    uint32_t const magnitude = std::bit_cast<uint32_t>(x) & ~detail::kFloatSign;
    if (magnitude == 0)
    {
        return 0x00U;
    }
    if (magnitude > detail::kFloatInf)
    {
        return 0xFFU;
    }
    if (magnitude == detail::kFloatInf)
    {
        return 0xFEU;
    }
    // x = 2^floorLog2 * (1 + fraction / 2^23), subnormals normalised first.
    uint32_t const floatExponent = magnitude >> 23;
    uint32_t fraction = magnitude & 0x7FFFFFU;
    int32_t floorLog2 = static_cast<int32_t>(floatExponent) - 127;
    if (floatExponent == 0)
    {
        auto const width = static_cast<int32_t>(std::bit_width(fraction));
        floorLog2 = width - 1 - 149;
        fraction = (fraction << (24 - width)) & 0x7FFFFFU;
    }
    // 1 + 0x3504F4 / 2^23 is the first 24-bit significand above sqrt(2) = 1.41421356...
    constexpr uint32_t kSqrt2Fraction = 0x3504F4U;
    bool up = false;
    switch (rounding)
    {
    case E8M0Rounding::kNEAREST: up = fraction >= kSqrt2Fraction; break;
    case E8M0Rounding::kDOWN: up = false; break;
    case E8M0Rounding::kUP: up = fraction != 0; break;
    }
    int32_t const field = floorLog2 + (up ? 1 : 0) + 127;
    return static_cast<uint8_t>(field < 0 ? 0 : (field > 254 ? 254 : field));
}

// ---- Quantization with a scale ---------------------------------------------------------------------------------
// TensorRT's QuantizeLayer and ONNX QuantizeLinear (zero point 0): q = saturate(round(x / scale)), where round
// takes the nearest integer and sends an exact .5 to the even neighbour (2.5 -> 2, -2.5 -> -2, 3.5 -> 4), and
// saturate clamps to the type's range. x / scale is computed in float. DequantizeLayer: x = q * scale, in float.
// Scales are positive and finite; a NaN quotient gives integer 0 (FP8 and FP4 keep their own NaN rules).

//! round-half-even(x / scale) clamped to [-128, 127].
constexpr int8_t quantizeInt8(float x, float scale) noexcept
{
    return static_cast<int8_t>(detail::roundHalfEvenClamped(x / scale, -128, 127));
}

//! q * scale.
constexpr float dequantizeInt8(int8_t q, float scale) noexcept
{
    return static_cast<float>(q) * scale;
}

//! round-half-even(x / scale) clamped to [-8, 7], the INT4 range.
constexpr int8_t quantizeInt4(float x, float scale) noexcept
{
    return static_cast<int8_t>(detail::roundHalfEvenClamped(x / scale, -8, 7));
}

//! q * scale for an INT4 value q in [-8, 7].
constexpr float dequantizeInt4(int8_t q, float scale) noexcept
{
    return static_cast<float>(q) * scale;
}

//! x / scale as E4M3 bits through the saturating conversion.
constexpr uint8_t quantizeFp8(float x, float scale) noexcept
{
    return floatToFp8e4m3(x / scale);
}

//! The E4M3 value of q times scale.
constexpr float dequantizeFp8(uint8_t q, float scale) noexcept
{
    return fp8e4m3ToFloat(q) * scale;
}

//! x / scale as an E2M1 code through the saturating conversion.
constexpr uint8_t quantizeFp4(float x, float scale) noexcept
{
    return floatToFp4e2m1(x / scale);
}

//! The E2M1 value of the code in q's low nibble times scale.
constexpr float dequantizeFp4(uint8_t q, float scale) noexcept
{
    return fp4e2m1ToFloat(q) * scale;
}

// ---- Packed 4-bit values ---------------------------------------------------------------------------------------

//! One byte from two 4-bit codes: low holds element 2k, high element 2k+1; higher bits of each are ignored.
constexpr uint8_t packNibbles(uint8_t low, uint8_t high) noexcept
{
    return static_cast<uint8_t>((low & 0xFU) | ((high & 0xFU) << 4));
}

//! The 4-bit code of element index (0 low nibble, 1 high nibble) of a packed byte.
constexpr uint8_t nibble(uint8_t packed, int32_t index) noexcept
{
    return static_cast<uint8_t>(index == 0 ? (packed & 0xFU) : (packed >> 4));
}

//! The INT4 code of v, saturated to [-8, 7] first.
constexpr uint8_t int4ToNibble(int32_t v) noexcept
{
    int32_t const clamped = v < -8 ? -8 : (v > 7 ? 7 : v);
    return static_cast<uint8_t>(clamped & 0xF);
}

//! The signed value of the INT4 code in the low nibble of n, in [-8, 7].
constexpr int8_t int4FromNibble(uint8_t n) noexcept
{
    return static_cast<int8_t>(static_cast<int32_t>((n & 0xFU) ^ 0x8U) - 8);
}

//! Packs values (saturated to [-8, 7]) two per byte into packed; false, writing nothing, when packed has fewer
//! than (values.size() + 1) / 2 bytes. An odd count leaves the last high nibble zero.
bool packInt4(std::span<int8_t const> values, std::span<uint8_t> packed) noexcept;

//! Unpacks values.size() INT4 elements from packed; false, writing nothing, when packed is too short.
bool unpackInt4(std::span<uint8_t const> packed, std::span<int8_t> values) noexcept;

//! Converts values to E2M1 (floatToFp4e2m1, saturating) and packs them two per byte, as packInt4.
bool packFp4(std::span<float const> values, std::span<uint8_t> packed) noexcept;

//! Unpacks values.size() E2M1 elements from packed as floats; false, writing nothing, when packed is too short.
bool unpackFp4(std::span<uint8_t const> packed, std::span<float> values) noexcept;

//! v as the integer type I: truncated toward zero, saturated at I's bounds, 0 for NaN (a plain conversion of a value
//! outside I's range is undefined behaviour).
template <typename I>
constexpr I saturatingInteger(double v) noexcept
{
    // The bounds as doubles: the lowest is a power of two (exact); the largest + 1 is one too.
    constexpr double kLowest = static_cast<double>(std::numeric_limits<I>::lowest());
    constexpr double kAbove = static_cast<double>(std::numeric_limits<I>::max() / 2 + 1) * 2.0;
    if (v != v)
    {
        return I{0};
    }
    if (v <= kLowest)
    {
        return std::numeric_limits<I>::lowest();
    }
    if (v >= kAbove)
    {
        return std::numeric_limits<I>::max();
    }
    return static_cast<I>(v);
}

} // namespace kiln
