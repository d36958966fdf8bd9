// SPDX-License-Identifier: Apache-2.0
// CUDA IElementWiseLayer: out = op(a, b) with TensorRT's broadcasting, the rules of backends/host/elementwise.h,
// computed in float (floating and scaled types; kFLOOR_DIV divides in double so that it floors what the host floors)
// or int64_t (integer and bool types). One kernel per input type; the operation is a switch, the same for the whole
// grid.
//
// One difference the device cannot avoid: the host refuses integer division by zero and 0 to a negative power after
// looking at the values, which a kernel launched without waiting cannot report. Those elements are 0 here.
#include "backends/cuda/elements.cuh"
#include "backends/cuda/elementwise.cuh"
#include "backends/cuda/kernels.h"
#include "backends/cuda/pointwise.cuh"
#include "backends/host/elementwise.h"
#include "core/integer_math.h"

#include <string>

namespace kiln::cuda
{
namespace
{

using Op = nvinfer1::ElementWiseOperation;

//! a / b as core/integer_math.h defines it; division by zero gives 0 (the device cannot refuse it).
__device__ __forceinline__ int64_t integerDivide(int64_t a, int64_t b, bool floor)
{
    return b == 0 ? 0 : integerQuotient(a, b, floor);
}

__device__ __forceinline__ int64_t integerOp(Op op, int64_t a, int64_t b)
{
    auto const u = [](int64_t v) { return static_cast<uint64_t>(v); };
    switch (op)
    {
    case Op::kSUM: return wrapToInt64(u(a) + u(b));
    case Op::kPROD: return wrapToInt64(u(a) * u(b));
    case Op::kMAX: return a > b ? a : b;
    case Op::kMIN: return a < b ? a : b;
    case Op::kSUB: return wrapToInt64(u(a) - u(b));
    case Op::kDIV: return integerDivide(a, b, false);
    case Op::kPOW: return integerPower(a, b);
    case Op::kFLOOR_DIV: return integerDivide(a, b, true);
    case Op::kAND: return a != 0 && b != 0 ? 1 : 0;
    case Op::kOR: return a != 0 || b != 0 ? 1 : 0;
    case Op::kXOR: return (a != 0) != (b != 0) ? 1 : 0;
    case Op::kEQUAL: return a == b ? 1 : 0;
    case Op::kGREATER: return a > b ? 1 : 0;
    case Op::kLESS: return a < b ? 1 : 0;
    }
    return 0;
}

//! out[i] = op(a[at0], b[at1]); out is kBOOL when boolOutput, else of type T (quantized with outScale).
template <DataType T>
__global__ void elementWiseKernel(Storage<T> const* a, Storage<T> const* b, void* out, int64_t count,
    pointwise::BroadcastIndex<2> map, Op op, float aScale, float bScale, float outScale, bool boolOutput)
{
    auto* const typedOut = static_cast<Storage<T>*>(out);
    auto* const boolOut = static_cast<bool*>(out);
    for (int64_t i = pointwise::firstIndex(); i < count; i += pointwise::gridStride())
    {
        int64_t at[2];
        map(i, at);
        if constexpr (kIsFloating<T>)
        {
            float const result = elementwise::apply(op, loadFloat<T>(a, at[0], aScale), loadFloat<T>(b, at[1], bScale));
            if (boolOutput)
            {
                storeFloat<DataType::kBOOL>(boolOut, i, result);
            }
            else
            {
                storeFloat<T>(typedOut, i, result, outScale);
            }
        }
        else
        {
            int64_t const result = integerOp(op, loadInteger<T>(a, at[0]), loadInteger<T>(b, at[1]));
            if (boolOutput)
            {
                storeInteger<DataType::kBOOL>(boolOut, i, result);
            }
            else
            {
                storeInteger<T>(typedOut, i, result);
            }
        }
    }
}

Error invalid(host::ElementWiseOpInfo const& info, std::string const& what)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, std::string(info.name) + ": " + what};
}

} // namespace

Status runElementWise(ElementWiseParams const& params, DeviceTensor const& a, DeviceTensor const& b,
    DeviceTensor const& out, Launch const& launch)
{
    Expected<host::TensorDesc> const desc
        = host::inferElementWise(host::ElementWiseParams{params.op}, {a.type, a.dims}, {b.type, b.dims});
    if (!desc)
    {
        return desc.error();
    }
    host::ElementWiseOpInfo const& info = *host::findElementWiseOp(params.op);
    if (out.type != desc.value().type)
    {
        return invalid(info,
            std::string("the output is ") + dataTypeName(out.type) + " but must be " + dataTypeName(desc.value().type));
    }
    if (!host::sameShape(out.dims, desc.value().dims))
    {
        return invalid(info,
            "the output has shape " + host::shapeString(out.dims) + " but inputs " + host::shapeString(a.dims) + " and "
                + host::shapeString(b.dims) + " broadcast to " + host::shapeString(desc.value().dims));
    }
    if (std::optional<Error> const error
        = pointwise::checkTensors({{&a, "input 0"}, {&b, "input 1"}, {&out, "output"}}))
    {
        return invalid(info, error->message);
    }
    int64_t const count = host::elementCount(out.dims);
    if (count == 0)
    {
        return host::Done{};
    }
    pointwise::BroadcastIndex<2> const map = pointwise::broadcastIndex<2>(out.dims, {a.dims, b.dims});
    bool ran = false;
    dispatchType(a.type, [&]<DataType T>() {
        if constexpr (T != DataType::kUINT8) // no operation takes kUINT8 (inferElementWise refused it)
        {
            elementWiseKernel<T><<<pointwise::grid(count), pointwise::kBlock, 0, launch.stream>>>(
                static_cast<Storage<T> const*>(a.data), static_cast<Storage<T> const*>(b.data), out.data, count, map,
                params.op, a.scale, b.scale, out.scale, info.boolOutput);
            ran = true;
        }
    });
    if (!ran)
    {
        return pointwise::noKernel(std::string(info.name) + " of " + dataTypeName(a.type));
    }
    return pointwise::launched("the element-wise kernel");
}

} // namespace kiln::cuda
