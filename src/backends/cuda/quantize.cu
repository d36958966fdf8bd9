// SPDX-License-Identifier: Apache-2.0
// CUDA IQuantizeLayer and IDequantizeLayer: one thread per element (per byte, two elements, for packed kINT4 output),
// the scale (and zero point) of an element found through host::ScaleMap, the arithmetic of backends/host/quantize.h in
// float: x / s rounded half to even (rintf) and saturated, or converted to E4M3 with saturation (__nv_fp8_e4m3);
// (q - z) * s rounded once to the output type. Division and product are IEEE float operations (no fast math), so the
// results are bit for bit the host's.
#include "backends/cuda/elements.cuh"
#include "backends/cuda/kernels.h"
#include "backends/cuda/pointwise.cuh"
#include "backends/host/quantize.h"

#include <string>

namespace kiln::cuda
{
namespace
{

//! host::ScaleMap with plain arrays, passed to the kernels by value.
struct ScaleIndex
{
    int32_t rank;
    int64_t extents[Dims::MAX_DIMS];
    int64_t blocks[Dims::MAX_DIMS];
    int64_t strides[Dims::MAX_DIMS];

    //! The scale index of input element index (row-major). Unrolled with a rank guard, so that the parameter arrays
    //! are indexed by constants.
    __device__ __forceinline__ int64_t operator()(int64_t index) const
    {
        int64_t scaleIndex = 0;
#pragma unroll
        for (int32_t d = Dims::MAX_DIMS - 1; d >= 0; --d)
        {
            if (d < rank)
            {
                int64_t const coordinate = index % extents[d];
                index /= extents[d];
                scaleIndex += coordinate / blocks[d] * strides[d];
            }
        }
        return scaleIndex;
    }
};

ScaleIndex scaleIndexOf(host::ScaleMap const& map)
{
    ScaleIndex index{};
    index.rank = map.rank;
    for (int32_t d = 0; d < map.rank; ++d)
    {
        auto const u = static_cast<std::size_t>(d);
        index.extents[d] = map.extents[u];
        index.blocks[d] = map.blocks[u];
        index.strides[d] = map.strides[u];
    }
    return index;
}

//! The value a code stands for before scaling: element i of codes of type (kINT8, kFP8 or kINT4, packed).
__device__ __forceinline__ float loadCode(uint8_t const* codes, DataType type, int64_t i)
{
    if (type == DataType::kINT8)
    {
        return static_cast<float>(static_cast<int8_t>(codes[i]));
    }
    if (type == DataType::kFP8)
    {
        __nv_fp8_e4m3 code;
        code.__x = codes[i];
        return static_cast<float>(code);
    }
    uint8_t const packed = codes[i / 2];
    uint32_t const bits = (i % 2 == 0 ? packed : packed >> 4) & 0xFU;
    return static_cast<float>(static_cast<int32_t>(bits ^ 0x8U) - 8); // sign-extended 4-bit code
}

//! The integer code of quotient (x / s) with zero point z, saturated to [low, high]; NaN gives z.
__device__ __forceinline__ int32_t integerCode(float quotient, int32_t z, int32_t low, int32_t high)
{
    float const rounded = rintf(quotient); // to nearest, ties to even
    if (rounded != rounded)
    {
        return z;
    }
    return static_cast<int32_t>(fminf(fmaxf(rounded, static_cast<float>(low - z)), static_cast<float>(high - z))) + z;
}

//! Element i's quotient x / s, with the scale index of the element.
template <DataType In, DataType S>
__device__ __forceinline__ float quotientOf(
    Storage<In> const* in, Storage<S> const* scale, ScaleIndex const& map, int64_t i, int64_t& at)
{
    at = map(i);
    return loadFloat<In>(in, i) / loadFloat<S>(scale, at);
}

//! Quantizes to kINT8 or kFP8 (toType), one element per thread. zeroPoint: toType codes, or null.
template <DataType In, DataType S>
__global__ void quantizeKernel(Storage<In> const* in, Storage<S> const* scale, uint8_t const* zeroPoint, uint8_t* out,
    DataType toType, int64_t count, ScaleIndex map)
{
    for (int64_t i = pointwise::firstIndex(); i < count; i += pointwise::gridStride())
    {
        int64_t at = 0;
        float const quotient = quotientOf<In, S>(in, scale, map, i, at);
        if (toType == DataType::kFP8)
        {
            float const shifted = zeroPoint != nullptr ? quotient + loadCode(zeroPoint, toType, at) : quotient;
            out[i] = __nv_fp8_e4m3(shifted).__x; // to nearest even, saturated at +-448 (__NV_SATFINITE)
        }
        else
        {
            int32_t const z = zeroPoint != nullptr ? static_cast<int32_t>(loadCode(zeroPoint, toType, at)) : 0;
            out[i] = static_cast<uint8_t>(static_cast<int8_t>(integerCode(quotient, z, -128, 127)));
        }
    }
}

//! Quantizes to packed kINT4: thread b writes byte b, elements 2b (low nibble) and 2b + 1 (high nibble; 0 past the
//! end). zeroPoint: packed kINT4 codes, or null.
template <DataType In, DataType S>
__global__ void quantizeInt4Kernel(Storage<In> const* in, Storage<S> const* scale, uint8_t const* zeroPoint,
    uint8_t* out, int64_t count, ScaleIndex map)
{
    int64_t const bytes = (count + 1) / 2;
    for (int64_t b = pointwise::firstIndex(); b < bytes; b += pointwise::gridStride())
    {
        uint32_t packed = 0;
        for (int64_t k = 0; k < 2 && 2 * b + k < count; ++k)
        {
            int64_t const i = 2 * b + k;
            int64_t at = 0;
            float const quotient = quotientOf<In, S>(in, scale, map, i, at);
            int32_t const z = zeroPoint != nullptr ? static_cast<int32_t>(loadCode(zeroPoint, DataType::kINT4, at)) : 0;
            packed |= (static_cast<uint32_t>(integerCode(quotient, z, -8, 7)) & 0xFU) << (4 * k);
        }
        out[b] = static_cast<uint8_t>(packed);
    }
}

//! Dequantizes codes of type inType. zeroPoint: inType codes, or null.
template <DataType S, DataType Out>
__global__ void dequantizeKernel(uint8_t const* in, DataType inType, Storage<S> const* scale, uint8_t const* zeroPoint,
    Storage<Out>* out, int64_t count, ScaleIndex map)
{
    for (int64_t i = pointwise::firstIndex(); i < count; i += pointwise::gridStride())
    {
        int64_t const at = map(i);
        float const q = loadCode(in, inType, i);
        float const z = zeroPoint != nullptr ? loadCode(zeroPoint, inType, at) : 0.F;
        storeFloat<Out>(out, i, (q - z) * loadFloat<S>(scale, at));
    }
}

Error invalid(char const* kind, std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, std::string(kind) + ": " + message};
}

//! Why a kernel cannot use tensor (named by role): no data for its elements, or data not aligned to its elements.
std::optional<Error> checkView(char const* kind, DeviceTensor const* tensor, char const* role)
{
    if (tensor == nullptr)
    {
        return std::nullopt;
    }
    if (host::elementCount(tensor->dims) > 0 && tensor->data == nullptr)
    {
        return invalid(kind, std::string("the ") + role + " has elements but no data");
    }
    auto const bytes = static_cast<uintptr_t>(dataTypeBits(tensor->type) / 8);
    if (bytes > 1 && reinterpret_cast<uintptr_t>(tensor->data) % bytes != 0)
    {
        return invalid(kind, std::string("the ") + role + "'s device data is not aligned to its elements");
    }
    return std::nullopt;
}

//! Calls body.template operator()<T>() for a kFLOAT, kHALF or kBF16 type; false for another.
template <typename Body>
bool dispatchFloat(DataType type, Body&& body)
{
    switch (type)
    {
    case DataType::kFLOAT: body.template operator()<DataType::kFLOAT>(); return true;
    case DataType::kHALF: body.template operator()<DataType::kHALF>(); return true;
    case DataType::kBF16: body.template operator()<DataType::kBF16>(); return true;
    default: return false;
    }
}

//! The checks both kinds share after their infer: the output, the views; the scale map.
Expected<ScaleIndex> prepare(char const* kind, Expected<host::TensorDesc> const& desc, DeviceTensor const& in,
    DeviceTensor const& scale, DeviceTensor const* zeroPoint, DeviceTensor const& out, int32_t axis,
    Dims const& blockShape)
{
    if (!desc)
    {
        return desc.error();
    }
    if (std::optional<std::string> const mismatch = host::outputMismatch(out, desc.value().type, desc.value().dims))
    {
        return invalid(kind, *mismatch);
    }
    for (auto const& [tensor, role] : {std::pair{&in, "input"}, std::pair{&scale, "scale"},
             std::pair{zeroPoint, "zero point"}, std::pair<DeviceTensor const*, char const*>{&out, "output"}})
    {
        if (std::optional<Error> error = checkView(kind, tensor, role))
        {
            return *error;
        }
    }
    Expected<host::ScaleMap> const map = host::mapScales(in.dims, scale.dims, axis, blockShape);
    if (!map)
    {
        return invalid(kind, map.error().message);
    }
    return scaleIndexOf(map.value());
}

uint8_t const* codesOf(DeviceTensor const* tensor)
{
    return tensor != nullptr ? static_cast<uint8_t const*>(tensor->data) : nullptr;
}

} // namespace

Status runQuantize(QuantizeParams const& params, DeviceTensor const& in, DeviceTensor const& scale,
    DeviceTensor const* zeroPoint, DeviceTensor const& out, Launch const& launch)
{
    constexpr char const* kKind = "quantize";
    host::TensorDesc const zeroDesc
        = zeroPoint != nullptr ? host::TensorDesc{zeroPoint->type, zeroPoint->dims} : host::TensorDesc{};
    Expected<ScaleIndex> const map = prepare(kKind,
        host::inferQuantize(
            params, {in.type, in.dims}, {scale.type, scale.dims}, zeroPoint != nullptr ? &zeroDesc : nullptr),
        in, scale, zeroPoint, out, params.axis, params.blockShape);
    if (!map)
    {
        return map.error();
    }
    int64_t const count = host::elementCount(in.dims);
    if (count == 0)
    {
        return host::Done{};
    }
    bool launchedOne = false;
    dispatchFloat(in.type, [&]<DataType In>() {
        dispatchFloat(scale.type, [&]<DataType S>() {
            auto const* input = static_cast<Storage<In> const*>(in.data);
            auto const* scales = static_cast<Storage<S> const*>(scale.data);
            auto* codes = static_cast<uint8_t*>(out.data);
            if (params.toType == DataType::kINT4)
            {
                quantizeInt4Kernel<In, S><<<pointwise::grid((count + 1) / 2), pointwise::kBlock, 0, launch.stream>>>(
                    input, scales, codesOf(zeroPoint), codes, count, map.value());
            }
            else
            {
                quantizeKernel<In, S><<<pointwise::grid(count), pointwise::kBlock, 0, launch.stream>>>(
                    input, scales, codesOf(zeroPoint), codes, params.toType, count, map.value());
            }
            launchedOne = true;
        });
    });
    if (!launchedOne)
    {
        return pointwise::noKernel(kKind);
    }
    return pointwise::launched("the quantize kernel");
}

Status runDequantize(DequantizeParams const& params, DeviceTensor const& in, DeviceTensor const& scale,
    DeviceTensor const* zeroPoint, DeviceTensor const& out, Launch const& launch)
{
    constexpr char const* kKind = "dequantize";
    host::TensorDesc const zeroDesc
        = zeroPoint != nullptr ? host::TensorDesc{zeroPoint->type, zeroPoint->dims} : host::TensorDesc{};
    Expected<ScaleIndex> const map = prepare(kKind,
        host::inferDequantize(
            params, {in.type, in.dims}, {scale.type, scale.dims}, zeroPoint != nullptr ? &zeroDesc : nullptr),
        in, scale, zeroPoint, out, params.axis, params.blockShape);
    if (!map)
    {
        return map.error();
    }
    int64_t const count = host::elementCount(in.dims);
    if (count == 0)
    {
        return host::Done{};
    }
    bool launchedOne = false;
    dispatchFloat(scale.type, [&]<DataType S>() {
        dispatchFloat(out.type, [&]<DataType Out>() {
            dequantizeKernel<S, Out><<<pointwise::grid(count), pointwise::kBlock, 0, launch.stream>>>(
                static_cast<uint8_t const*>(in.data), in.type, static_cast<Storage<S> const*>(scale.data),
                codesOf(zeroPoint), static_cast<Storage<Out>*>(out.data), count, map.value());
            launchedOne = true;
        });
    });
    if (!launchedOne)
    {
        return pointwise::noKernel(kKind);
    }
    return pointwise::launched("the dequantize kernel");
}

} // namespace kiln::cuda
