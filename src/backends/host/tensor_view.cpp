// SPDX-License-Identifier: Apache-2.0
#include "backends/host/tensor_view.h"

#include "core/float_convert.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

namespace kiln::host
{

namespace
{

//! The bytes of element index of t.
std::byte* elementAddress(HostTensor const& t, int64_t index) noexcept
{
    return static_cast<std::byte*>(t.data) + index * (dataTypeBits(t.type) / 8);
}

template <typename T>
T read(HostTensor const& t, int64_t index) noexcept
{
    T value{};
    std::memcpy(&value, elementAddress(t, index), sizeof(T));
    return value;
}

template <typename T>
void write(HostTensor const& t, int64_t index, T value) noexcept
{
    std::memcpy(elementAddress(t, index), &value, sizeof(T));
}

//! value truncated toward zero and saturated to [low, high]; NaN gives 0. low and high are exact in double.
int64_t truncateSaturate(double value, double low, double high) noexcept
{
    if (std::isnan(value))
    {
        return 0;
    }
    if (value <= low)
    {
        return static_cast<int64_t>(low);
    }
    if (value >= high)
    {
        // high may be 2^63 - 1, which rounds to 2^63 in double: saturate in the integer domain.
        return high >= 9223372036854775807.0 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(high);
    }
    return static_cast<int64_t>(std::trunc(value));
}

} // namespace

// ---- Shapes ------------------------------------------------------------------------------------------------------

bool isValidShape(Dims const& dims) noexcept
{
    if (dims.nbDims < 0 || dims.nbDims > Dims::MAX_DIMS)
    {
        return false;
    }
    // The product of the extents with each 0 taken as 1 must fit, so that every partial product the kernels form
    // (strides, outer and inner counts, which skip or come before an empty axis) fits too.
    int64_t span = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        if (dims.d[i] < 0)
        {
            return false;
        }
        std::optional<int64_t> const next = checkedProduct(span, std::max<int64_t>(dims.d[i], 1));
        if (!next)
        {
            return false;
        }
        span = *next;
    }
    return true;
}

std::string notConcreteText(Dims const& dims)
{
    bool const extentsValid = dims.nbDims >= 0 && dims.nbDims <= Dims::MAX_DIMS
        && std::all_of(dims.d, dims.d + dims.nbDims, [](int64_t e) { return e >= 0; });
    if (!extentsValid)
    {
        return "is not a concrete shape (rank 0 to 8, extents >= 0)";
    }
    bool const empty = std::any_of(dims.d, dims.d + dims.nbDims, [](int64_t e) { return e == 0; });
    return empty ? "has extents whose product (its zeros left out) passes a 64-bit count"
                 : "has more elements than a 64-bit count holds";
}

std::optional<int64_t> checkedProduct(int64_t a, int64_t b) noexcept
{
    int64_t product = 0;
    if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &product))
    {
        return std::nullopt;
    }
    return product;
}

int64_t elementCount(Dims const& dims) noexcept
{
    if (!isValidShape(dims))
    {
        return 0;
    }
    int64_t count = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        count *= dims.d[i];
    }
    return count;
}

bool sameShape(Dims const& a, Dims const& b) noexcept
{
    if (a.nbDims != b.nbDims || a.nbDims < 0 || a.nbDims > Dims::MAX_DIMS)
    {
        return a.nbDims == b.nbDims && (a.nbDims < 0 || a.nbDims > Dims::MAX_DIMS);
    }
    for (int32_t i = 0; i < a.nbDims; ++i)
    {
        if (a.d[i] != b.d[i])
        {
            return false;
        }
    }
    return true;
}

std::string shapeString(Dims const& dims)
{
    if (dims.nbDims < 0 || dims.nbDims > Dims::MAX_DIMS)
    {
        return "(rank " + std::to_string(dims.nbDims) + ")";
    }
    std::string text = "[";
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        text += (i == 0 ? "" : ", ") + std::to_string(dims.d[i]);
    }
    return text + "]";
}

std::optional<std::string> outputMismatch(HostTensor const& out, DataType type, Dims const& dims)
{
    if (out.type == type && sameShape(out.dims, dims))
    {
        return std::nullopt;
    }
    return std::string("the output is ") + dataTypeName(out.type) + " " + shapeString(out.dims) + " but must be "
        + dataTypeName(type) + " " + shapeString(dims);
}

Expected<Dims> broadcastShapes(Dims const& a, Dims const& b)
{
    for (Dims const* dims : {&a, &b})
    {
        if (!isValidShape(*dims))
        {
            return Error{
                nvinfer1::ErrorCode::kINVALID_ARGUMENT, "shape " + shapeString(*dims) + " " + notConcreteText(*dims)};
        }
    }
    if (a.nbDims != b.nbDims)
    {
        return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
            "shapes " + shapeString(a) + " and " + shapeString(b) + " have different ranks (" + std::to_string(a.nbDims)
                + " and " + std::to_string(b.nbDims) + "); broadcasting needs equal ranks"};
    }
    Dims out{a.nbDims, {}};
    for (int32_t i = 0; i < a.nbDims; ++i)
    {
        if (a.d[i] == b.d[i] || b.d[i] == 1)
        {
            out.d[i] = a.d[i];
        }
        else if (a.d[i] == 1)
        {
            out.d[i] = b.d[i];
        }
        else
        {
            return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
                "shapes " + shapeString(a) + " and " + shapeString(b) + " do not broadcast: dimension "
                    + std::to_string(i) + " is " + std::to_string(a.d[i]) + " and " + std::to_string(b.d[i])
                    + " (extents must be equal or one of them 1)"};
        }
    }
    return out;
}

BroadcastMap::BroadcastMap(Dims const& output, Dims const& input) noexcept
    : mRank(output.nbDims)
{
    int64_t stride = 1;
    for (int32_t i = mRank - 1; i >= 0; --i)
    {
        mExtents[i] = output.d[i];
        mInputStrides[i] = input.d[i] == 1 ? 0 : stride;
        stride *= input.d[i];
    }
}

int64_t BroadcastMap::operator()(int64_t outputIndex) const noexcept
{
    int64_t inputIndex = 0;
    for (int32_t i = mRank - 1; i >= 0; --i)
    {
        inputIndex += outputIndex % mExtents[i] * mInputStrides[i];
        outputIndex /= mExtents[i];
    }
    return inputIndex;
}

// ---- Types -------------------------------------------------------------------------------------------------------

std::string typeSetString(TypeSet set)
{
    std::string text;
    for (DataTypeInfo const& info : kDataTypes)
    {
        if (contains(set, info.type))
        {
            text += (text.empty() ? "" : ", ") + std::string(info.name);
        }
    }
    return text.empty() ? "none" : text;
}

std::optional<Error> checkTensor(HostTensor const& tensor, std::string_view role)
{
    auto const fail = [&](std::string const& what) {
        return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, std::string(role) + " " + what};
    };
    if (!contains(kHostTypes, tensor.type))
    {
        return fail(std::string("has type ") + dataTypeName(tensor.type)
            + ", which the host backend does not compute on " + "(it takes " + typeSetString(kHostTypes) + ")");
    }
    if (!isValidShape(tensor.dims))
    {
        return fail("has shape " + shapeString(tensor.dims) + ", not a concrete shape (rank 0 to 8, extents >= 0)");
    }
    if (tensor.data == nullptr && elementCount(tensor.dims) > 0)
    {
        return fail("of shape " + shapeString(tensor.dims) + " has no data");
    }
    if (contains(kScaledTypes, tensor.type) && !(std::isfinite(tensor.scale) && tensor.scale > 0.0F))
    {
        std::ostringstream scale;
        scale << tensor.scale;
        return fail(std::string("(") + dataTypeName(tensor.type) + ") has scale " + scale.str()
            + "; a quantization scale must be positive and finite");
    }
    return std::nullopt;
}

// ---- Elements ----------------------------------------------------------------------------------------------------

float roundToOddFloat(double value) noexcept
{
    auto nearest = static_cast<float>(value);
    if (!std::isfinite(value) || static_cast<double>(nearest) == value)
    {
        return nearest;
    }
    // Inexact: take the neighbour toward zero (truncation; an overflow to infinity steps back to the largest float),
    // then set the last bit. A value below the smallest subnormal truncates to zero and becomes the smallest one.
    if (std::fabs(static_cast<double>(nearest)) > std::fabs(value))
    {
        nearest = std::nextafter(nearest, 0.0F);
    }
    return std::bit_cast<float>(std::bit_cast<uint32_t>(nearest) | 1U);
}

double roundToOddDouble(int64_t value) noexcept
{
    uint64_t const magnitude = value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
    auto const width = static_cast<int32_t>(std::bit_width(magnitude));
    if (width <= 53)
    {
        return static_cast<double>(value);
    }
    int32_t const shift = width - 53;
    uint64_t kept = magnitude >> shift;
    if ((magnitude & ((uint64_t{1} << shift) - 1)) != 0)
    {
        kept |= 1U;
    }
    double const result = std::ldexp(static_cast<double>(kept), shift);
    return value < 0 ? -result : result;
}

double loadFloat(HostTensor const& t, int64_t index) noexcept
{
    switch (t.type)
    {
    case DataType::kFLOAT: return read<float>(t, index);
    case DataType::kHALF: return halfToFloat(read<uint16_t>(t, index));
    case DataType::kBF16: return bf16ToFloat(read<uint16_t>(t, index));
    case DataType::kINT8: return dequantizeInt8(read<int8_t>(t, index), t.scale);
    case DataType::kFP8: return dequantizeFp8(read<uint8_t>(t, index), t.scale);
    case DataType::kINT32: return read<int32_t>(t, index);
    case DataType::kINT64: return static_cast<double>(read<int64_t>(t, index));
    case DataType::kUINT8: return read<uint8_t>(t, index);
    case DataType::kBOOL: return read<uint8_t>(t, index) != 0 ? 1.0 : 0.0;
    case DataType::kINT4:
    case DataType::kFP4:
    case DataType::kE8M0: break;
    }
    return std::numeric_limits<double>::quiet_NaN();
}

int64_t loadInteger(HostTensor const& t, int64_t index) noexcept
{
    switch (t.type)
    {
    case DataType::kINT32: return read<int32_t>(t, index);
    case DataType::kINT64: return read<int64_t>(t, index);
    case DataType::kUINT8: return read<uint8_t>(t, index);
    case DataType::kBOOL: return read<uint8_t>(t, index) != 0 ? 1 : 0;
    case DataType::kFLOAT:
    case DataType::kHALF:
    case DataType::kBF16:
    case DataType::kINT8:
    case DataType::kFP8: return truncateSaturate(loadFloat(t, index), -9223372036854775808.0, 9223372036854775807.0);
    case DataType::kINT4:
    case DataType::kFP4:
    case DataType::kE8M0: break;
    }
    return 0;
}

void storeFloat(HostTensor const& t, int64_t index, double value) noexcept
{
    switch (t.type)
    {
    case DataType::kFLOAT: write(t, index, static_cast<float>(value)); return;
    case DataType::kHALF: write(t, index, floatToHalf(roundToOddFloat(value))); return;
    case DataType::kBF16: write(t, index, floatToBf16(roundToOddFloat(value))); return;
    case DataType::kINT8: write(t, index, quantizeInt8(static_cast<float>(value), t.scale)); return;
    case DataType::kFP8: write(t, index, quantizeFp8(static_cast<float>(value), t.scale)); return;
    case DataType::kINT32:
        write(t, index, static_cast<int32_t>(truncateSaturate(value, -2147483648.0, 2147483647.0)));
        return;
    case DataType::kINT64:
        write(t, index, truncateSaturate(value, -9223372036854775808.0, 9223372036854775807.0));
        return;
    case DataType::kUINT8: write(t, index, static_cast<uint8_t>(truncateSaturate(value, 0.0, 255.0))); return;
    case DataType::kBOOL: write(t, index, static_cast<uint8_t>(value != 0.0 ? 1 : 0)); return;
    case DataType::kINT4:
    case DataType::kFP4:
    case DataType::kE8M0: return;
    }
}

void storeInteger(HostTensor const& t, int64_t index, int64_t value) noexcept
{
    switch (t.type)
    {
    case DataType::kINT64: write(t, index, value); return;
    case DataType::kINT32: write(t, index, static_cast<int32_t>(static_cast<uint32_t>(value))); return;
    case DataType::kUINT8: write(t, index, static_cast<uint8_t>(value)); return;
    case DataType::kBOOL: write(t, index, static_cast<uint8_t>(value != 0 ? 1 : 0)); return;
    case DataType::kFLOAT:
    case DataType::kHALF:
    case DataType::kBF16:
    case DataType::kINT8:
    case DataType::kFP8: storeFloat(t, index, roundToOddDouble(value)); return;
    case DataType::kINT4:
    case DataType::kFP4:
    case DataType::kE8M0: return;
    }
}

// ---- Storage -----------------------------------------------------------------------------------------------------

HostBuffer::HostBuffer(DataType type, Dims const& dims, float scale)
    : mBytes(static_cast<std::size_t>(storageBytes(type, elementCount(dims))))
    , mTensor{nullptr, type, dims, scale}
{
    mTensor.data = mBytes.data();
}

std::optional<std::string> inputProblem(TypeSet accepted, TensorDesc const& in)
{
    if (!contains(accepted, in.type))
    {
        return std::string("does not accept ") + dataTypeName(in.type) + " input (it takes " + typeSetString(accepted)
            + ")";
    }
    if (!isValidShape(in.dims))
    {
        return "input shape " + shapeString(in.dims) + " " + notConcreteText(in.dims);
    }
    return std::nullopt;
}

std::optional<std::string> shapePreservingOutputProblem(
    HostTensor const& in, HostTensor const& out, DataType outputType)
{
    if (out.type != outputType)
    {
        return std::string("the output is ") + dataTypeName(out.type) + " but must be " + dataTypeName(outputType);
    }
    if (!sameShape(out.dims, in.dims))
    {
        return "the output has shape " + shapeString(out.dims) + " but the input has shape " + shapeString(in.dims);
    }
    for (auto const& [tensor, role] : {std::pair{&in, "input"}, std::pair{&out, "output"}})
    {
        if (std::optional<Error> const error = checkTensor(*tensor, role))
        {
            return error->message;
        }
    }
    return std::nullopt;
}

} // namespace kiln::host
