// SPDX-License-Identifier: Apache-2.0
// Box arithmetic the NMS plugins share between their host implementations and their CUDA kernels (EfficientNMS_TRT,
// BatchedNMS_TRT): boxes, areas, intersection over union, box decoding, the score order, and an exponential, each
// computed in float with the same operations on both sides so that the two agree bit for bit, and therefore exactly
// on which boxes survive. On the device every product, sum and quotient is rounded on its own (__fmul_rn and friends:
// nvcc would otherwise fuse a * b + c); the host build does not fuse them either (x86-64 without -mfma). The
// exponential is a polynomial of those operations (portableExp), not the libraries' expf, which differ by an ulp.
//
//     NmsBox const a = cornerBox(b0, b1, b2, b3);
//     bool const overlaps = intersectionOverUnion(a, b) >= iouThreshold;
//     uint64_t const key = scoreOrderKey(score, element);   // ascending keys: score descending, then element
#pragma once

#include "core/integer_math.h"

#include <math.h>
#include <stdint.h>

namespace kiln::plugins
{

KILN_HOST_DEVICE inline float mulRn(float a, float b) noexcept
{
#ifdef __CUDA_ARCH__
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}

KILN_HOST_DEVICE inline float addRn(float a, float b) noexcept
{
#ifdef __CUDA_ARCH__
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}

KILN_HOST_DEVICE inline float subRn(float a, float b) noexcept
{
#ifdef __CUDA_ARCH__
    return __fsub_rn(a, b);
#else
    return a - b;
#endif
}

KILN_HOST_DEVICE inline float divRn(float a, float b) noexcept
{
#ifdef __CUDA_ARCH__
    return __fdiv_rn(a, b);
#else
    return a / b;
#endif
}

//! e^x within a few ulp, identical on host and device: x = k ln2 + r with |r| <= ln2 / 2, e^r by its Taylor
//! polynomial of degree 8 (Horner), scaled by 2^k. NaN stays NaN; the ends saturate to 0 and infinity.
KILN_HOST_DEVICE inline float portableExp(float x) noexcept
{
    if (!(x == x))
    {
        return x;
    }
    if (x > 88.8F)
    {
        return INFINITY;
    }
    if (x < -104.0F)
    {
        return 0.0F;
    }
    float const k = rintf(mulRn(x, 1.44269502F));
    // ln 2 in two parts; the first has few enough significant bits that k times it is exact.
    float const r = subRn(subRn(x, mulRn(k, 0.693145752F)), mulRn(k, 1.42860677e-6F));
    float p = 2.48015873e-5F; // 1/8!
    p = addRn(mulRn(p, r), 1.98412698e-4F);
    p = addRn(mulRn(p, r), 1.38888889e-3F);
    p = addRn(mulRn(p, r), 8.33333333e-3F);
    p = addRn(mulRn(p, r), 4.16666667e-2F);
    p = addRn(mulRn(p, r), 1.66666667e-1F);
    p = addRn(mulRn(p, r), 0.5F);
    p = addRn(mulRn(p, r), 1.0F);
    p = addRn(mulRn(p, r), 1.0F);
    return ldexpf(p, static_cast<int>(k));
}

//! 1 / (1 + e^-x), identical on host and device.
KILN_HOST_DEVICE inline float portableSigmoid(float x) noexcept
{
    return divRn(1.0F, addRn(1.0F, portableExp(-x)));
}

//! A box by two corners (c0, c1) and (c2, c3); the axes are interchangeable ([x1, y1, x2, y2] or [y1, x1, y2, x2]).
struct NmsBox
{
    float c0{};
    float c1{};
    float c2{};
    float c3{};
};

//! The box with each axis's corners in ascending order (an exact swap).
KILN_HOST_DEVICE inline NmsBox ordered(NmsBox b) noexcept
{
    if (b.c0 > b.c2)
    {
        float const t = b.c0;
        b.c0 = b.c2;
        b.c2 = t;
    }
    if (b.c1 > b.c3)
    {
        float const t = b.c1;
        b.c1 = b.c3;
        b.c3 = t;
    }
    return b;
}

//! The area of an ordered box; 0 when an extent is not positive.
KILN_HOST_DEVICE inline float boxArea(NmsBox const& b) noexcept
{
    float const e0 = subRn(b.c2, b.c0);
    float const e1 = subRn(b.c3, b.c1);
    if (e0 <= 0.0F || e1 <= 0.0F)
    {
        return 0.0F;
    }
    return mulRn(e0, e1);
}

//! Intersection over union of two boxes (each ordered first); 0 when they do not intersect or the union is empty.
//! The comparisons are written as TensorRT's EfficientNMS writes them, so a NaN coordinate gives NaN (never >= a
//! threshold: such a box suppresses nothing and is never suppressed).
KILN_HOST_DEVICE inline float intersectionOverUnion(NmsBox a, NmsBox b) noexcept
{
    a = ordered(a);
    b = ordered(b);
    NmsBox const inter{
        a.c0 > b.c0 ? a.c0 : b.c0, a.c1 > b.c1 ? a.c1 : b.c1, a.c2 < b.c2 ? a.c2 : b.c2, a.c3 < b.c3 ? a.c3 : b.c3};
    float const interArea = boxArea(inter);
    if (interArea <= 0.0F)
    {
        return 0.0F;
    }
    float const unionArea = subRn(addRn(boxArea(a), boxArea(b)), interArea);
    if (unionArea <= 0.0F)
    {
        return 0.0F;
    }
    return divRn(interArea, unionArea);
}

//! The corners of a box given by centre (v0, v1) and size (v2, v3).
KILN_HOST_DEVICE inline NmsBox centreSizeToCorners(float v0, float v1, float v2, float v3) noexcept
{
    float const h0 = mulRn(v2, 0.5F);
    float const h1 = mulRn(v3, 0.5F);
    return NmsBox{subRn(v0, h0), subRn(v1, h1), addRn(v0, h0), addRn(v1, h1)};
}

//! A float key whose unsigned order is the float order (-0 and +0 are one key; NaN sorts above +infinity).
KILN_HOST_DEVICE inline uint32_t orderedFloatBits(float v) noexcept
{
    if (v == 0.0F)
    {
        v = 0.0F;
    }
    uint32_t bits = 0;
#ifdef __CUDA_ARCH__
    bits = __float_as_uint(v);
#else
    __builtin_memcpy(&bits, &v, sizeof bits);
#endif
    return (bits & 0x80000000U) != 0 ? ~bits : (bits | 0x80000000U);
}

//! The sort key of a candidate: ascending keys put higher scores first and, among equal scores, the lower element
//! index (the candidate's position in the flattened [boxes, classes] scores of its image) first.
KILN_HOST_DEVICE inline uint64_t scoreOrderKey(float score, uint32_t element) noexcept
{
    return (static_cast<uint64_t>(~orderedFloatBits(score)) << 32) | element;
}

//! The element index a key was made from.
KILN_HOST_DEVICE inline uint32_t keyElement(uint64_t key) noexcept
{
    return static_cast<uint32_t>(key & 0xFFFFFFFFU);
}

//! The key of a position that holds no candidate: after every candidate.
inline constexpr uint64_t kNoCandidateKey = ~static_cast<uint64_t>(0);

} // namespace kiln::plugins
