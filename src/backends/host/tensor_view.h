// SPDX-License-Identifier: Apache-2.0
// The host backend's view of a tensor, and the one place where the host reference kernels read and write elements.
// The host backend is the oracle every GPU kernel is tested against: slow on purpose, correct always, computing in a
// wider type than it stores.
//
//     std::vector<uint16_t> bits(6);
//     HostTensor const t{bits.data(), DataType::kHALF, Dims{2, {2, 3}}};
//     storeFloat(t, 4, 0.1);              // bits[4] == 0x2E66: 0.1 rounded once, to nearest, ties to even
//     double const v = loadFloat(t, 4);   // 0.0999755859375, exact
//
// Elements are linear, row-major and contiguous. Kernels read and write them as wide values: double for the floating
// types, int64_t for the integer types, 0 or 1 for kBOOL.
//
// Scaled types. kINT8 holds floating values quantized by a scale (TensorRT's convention for the INT8 I/O of
// element-wise, unary and activation kernels: the kernel sees real values, the tensor stores x / scale), and kiln
// treats kFP8 storage the same way. A load dequantizes (q * scale, float_convert's dequantizeInt8 / dequantizeFp8); a
// store quantizes the result, rounded to float, with quantizeInt8 (round-half-even(x / scale) saturated to
// [-128, 127]) or quantizeFp8 (E4M3 rounded to nearest even, saturated at ±448). So an INT8 tensor with scale 1 reads
// as its integers and stores by rounding half to even and saturating. The scale must be positive and finite.
//
// Stores round once: a double becomes a half or bfloat16 through a float rounded to odd (exact enough that rounding
// it again to nearest even gives the correctly rounded result), an int64_t becomes a floating value the same way.
// Stores into integer types convert as TensorRT's cast does (see storeFloat, storeInteger).
#pragma once

#include "core/data_type.h"
#include "core/error.h"

#include "NvInferRuntime.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::host
{

using nvinfer1::DataType;
using nvinfer1::Dims;

//! A tensor in host memory: elements of type, linear and row-major, with dims' shape. scale is the quantization
//! scale of kINT8 and kFP8 (ignored for other types). The view does not own data.
struct HostTensor
{
    void* data{nullptr};
    DataType type{DataType::kFLOAT};
    Dims dims{};
    float scale{1.0F};
};

//! A tensor's type and shape, without its data: what shape and type inference answer.
struct TensorDesc
{
    DataType type{DataType::kFLOAT};
    Dims dims{};
};

//! What a kernel that writes its output returns when it succeeds.
struct Done
{
};
using Status = Expected<Done>;

// ---- Shapes ------------------------------------------------------------------------------------------------------

//! Whether dims is a concrete shape: rank in [0, Dims::MAX_DIMS], every extent >= 0, and the product of its extents,
//! each 0 taken as 1, fits an int64_t (a shape whose product overflows is not one: what reads it refuses it instead
//! of wrapping; an empty one counts its other extents too, since kernels form strides and outer counts from them).
bool isValidShape(Dims const& dims) noexcept;

//! Why dims is not a concrete shape, to follow its text in a message: "is not a concrete shape (rank 0 to 8, extents
//! >= 0)", "has more elements than a 64-bit count holds", or for an empty shape "has extents whose product (its
//! zeros left out) passes a 64-bit count".
std::string notConcreteText(Dims const& dims);

//! a * b, or nullopt when the product of these non-negative values does not fit an int64_t.
std::optional<int64_t> checkedProduct(int64_t a, int64_t b) noexcept;

//! The number of elements: the product of the extents, 1 for rank 0; 0 when the shape is not valid.
int64_t elementCount(Dims const& dims) noexcept;

//! The number of elements of t.
inline int64_t elementCount(HostTensor const& t) noexcept
{
    return elementCount(t.dims);
}

//! Whether a and b have the same rank and extents.
bool sameShape(Dims const& a, Dims const& b) noexcept;

//! "[2, 3]"; "[]" for rank 0; "(rank -1)" for a rank outside [0, MAX_DIMS].
std::string shapeString(Dims const& dims);

//! "the output is kHALF [2, 3] but must be kFLOAT [2, 4]" when out is not of type and shape dims; nullopt when it is.
std::optional<std::string> outputMismatch(HostTensor const& out, DataType type, Dims const& dims);

//! The shape of broadcasting a against b, as TensorRT's element-wise layer does: equal ranks, and in each dimension
//! equal extents or one of them 1 (the output takes the other; 1 against 0 gives 0). The error names both shapes.
Expected<Dims> broadcastShapes(Dims const& a, Dims const& b);

//! Maps the linear index of an output element to the linear index of the input element that broadcasting reads.
//! input must have the output's rank, each extent equal to the output's or 1 (as broadcastShapes ensures).
class BroadcastMap
{
public:
    BroadcastMap(Dims const& output, Dims const& input) noexcept;

    //! The input index read for output element outputIndex.
    int64_t operator()(int64_t outputIndex) const noexcept;

private:
    int32_t mRank{0};
    std::array<int64_t, Dims::MAX_DIMS> mExtents{};
    std::array<int64_t, Dims::MAX_DIMS> mInputStrides{};
};

// ---- Types -------------------------------------------------------------------------------------------------------

//! A set of data types, bit i for DataType i.
using TypeSet = uint32_t;

//! The set of types.
constexpr TypeSet typeSet(std::initializer_list<DataType> types) noexcept
{
    TypeSet set = 0;
    for (DataType const type : types)
    {
        set |= TypeSet{1} << static_cast<uint32_t>(type);
    }
    return set;
}

//! Whether set holds type (false for a value outside the enum).
constexpr bool contains(TypeSet set, DataType type) noexcept
{
    return isKnownDataType(type) && (set >> static_cast<uint32_t>(type) & 1U) != 0;
}

//! "kFLOAT, kHALF" in enum order; "none" for the empty set.
std::string typeSetString(TypeSet set);

//! Why a one-input, shape-preserving kernel cannot take `in`: a type outside `accepted`, or a shape that is not
//! concrete; std::nullopt when it can.
std::optional<std::string> inputProblem(TypeSet accepted, TensorDesc const& in);

//! Why `out` cannot receive a shape-preserving kernel's result of `in` in outputType: another type or shape, or an
//! unusable tensor (checkTensor); std::nullopt when it can.
std::optional<std::string> shapePreservingOutputProblem(
    HostTensor const& in, HostTensor const& out, DataType outputType);

//! Plain floating types: computed in double, stored rounded to nearest even.
inline constexpr TypeSet kFloatingTypes = typeSet({DataType::kFLOAT, DataType::kHALF, DataType::kBF16});
//! Floating values stored quantized by the tensor's scale.
inline constexpr TypeSet kScaledTypes = typeSet({DataType::kINT8, DataType::kFP8});
//! Integer types computed in int64_t.
inline constexpr TypeSet kIntegerTypes = typeSet({DataType::kINT32, DataType::kINT64, DataType::kUINT8});
//! Every type the host backend reads and writes. Not kINT4, kFP4 (packed) nor kE8M0 (a scale type): they reach kernels
//! only through quantize and dequantize layers.
inline constexpr TypeSet kHostTypes = kFloatingTypes | kScaledTypes | kIntegerTypes | typeSet({DataType::kBOOL});

//! How kernels compute on a type's elements.
enum class NumberKind : int32_t
{
    kNONE,     //!< Not a host type.
    kFLOATING, //!< double: kFLOAT, kHALF, kBF16, and the scaled kINT8 and kFP8 (dequantized).
    kINTEGER,  //!< int64_t: kINT32, kINT64, kUINT8.
    kBOOL,     //!< int64_t 0 or 1: kBOOL.
};

//! The kind of number type's elements are computed as.
constexpr NumberKind numberKind(DataType type) noexcept
{
    if (contains(kFloatingTypes | kScaledTypes, type))
    {
        return NumberKind::kFLOATING;
    }
    if (contains(kIntegerTypes, type))
    {
        return NumberKind::kINTEGER;
    }
    return type == DataType::kBOOL ? NumberKind::kBOOL : NumberKind::kNONE;
}

//! Checks what a kernel needs of a tensor besides its type and shape rules: a host type, a valid shape, data when it
//! has elements, and for a scaled type a positive finite scale. The error names the tensor as role ("input 0").
std::optional<Error> checkTensor(HostTensor const& tensor, std::string_view role);

// ---- Elements ----------------------------------------------------------------------------------------------------

//! Element index of t as a double: exact for the floating types; dequantized for kINT8 and kFP8; integers converted
//! (rounded to nearest above 2^53); kBOOL is 0 or 1 (any nonzero byte reads as 1).
double loadFloat(HostTensor const& t, int64_t index) noexcept;

//! Element index of t as an int64_t: exact for the integer types and kBOOL; floating values convert as
//! storeFloat converts them into kINT64 (truncated toward zero, saturated, NaN gives 0).
int64_t loadInteger(HostTensor const& t, int64_t index) noexcept;

//! Writes value into element index of t, rounded once to t's type:
//! - kFLOAT, kHALF, kBF16: to nearest, ties to even; overflow gives infinity; NaN stays NaN.
//! - kINT8, kFP8: quantized with t.scale as the file comment says (value rounded to float first).
//! - kINT32, kINT64, kUINT8: truncated toward zero and saturated to the type's range; NaN gives 0 (TensorRT's cast
//!   of NaN and infinities, see cast.h).
//! - kBOOL: value != 0, so NaN gives 1 and -0 gives 0.
void storeFloat(HostTensor const& t, int64_t index, double value) noexcept;

//! Writes value into element index of t:
//! - kINT64 as is; kINT32 and kUINT8 keep the low bits (two's complement wrap-around).
//! - kBOOL: value != 0.
//! - floating and scaled types: value rounded once to the type (as storeFloat, never through a double rounding).
void storeInteger(HostTensor const& t, int64_t index, int64_t value) noexcept;

//! value rounded to a float by rounding to odd: truncated toward zero, the last bit set when inexact. Rounding the
//! result again to nearest even at 2 or more fewer bits (half, bfloat16, E4M3) equals rounding value directly.
float roundToOddFloat(double value) noexcept;

//! value as a double rounded to odd (exact up to 2^53), for the same double-rounding-free narrowing.
double roundToOddDouble(int64_t value) noexcept;

// ---- Storage -----------------------------------------------------------------------------------------------------

//! Zeroed host storage for a tensor of type and dims (and a scale), and the view of it. Movable, not copyable.
class HostBuffer
{
public:
    HostBuffer(DataType type, Dims const& dims, float scale = 1.0F);
    HostBuffer(HostBuffer&&) noexcept = default;
    HostBuffer& operator=(HostBuffer&&) noexcept = default;
    HostBuffer(HostBuffer const&) = delete;
    HostBuffer& operator=(HostBuffer const&) = delete;
    ~HostBuffer() = default;

    //! The view of the storage.
    HostTensor const& tensor() const noexcept { return mTensor; }

    //! The storage's bytes.
    std::span<std::byte> bytes() noexcept { return mBytes; }

private:
    std::vector<std::byte> mBytes;
    HostTensor mTensor;
};

} // namespace kiln::host
