// SPDX-License-Identifier: Apache-2.0
// CUDA IUnaryLayer: out = op(in), the rules of backends/host/unary.h, computed in float with CUDA's math functions
// (floating and scaled types) or int64_t (kINT32, kINT64, kBOOL). One kernel per input type; the operation is a switch,
// the same for the whole grid. A floating or scaled result of the input's type runs packed (pointwise.cuh) when the
// size and addresses allow.
#include "backends/cuda/elements.cuh"
#include "backends/cuda/kernels.h"
#include "backends/cuda/pointwise.cuh"
#include "backends/cuda/unary.cuh"
#include "backends/host/unary.h"

#include <string>

namespace kiln::cuda
{
namespace
{

using Op = nvinfer1::UnaryOperation;

__device__ __forceinline__ int64_t integerOp(Op op, int64_t x)
{
    switch (op)
    {
    case Op::kABS: return x < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(x)) : x; // |INT_MIN| wraps
    case Op::kSIGN: return x > 0 ? 1 : (x < 0 ? -1 : 0);
    case Op::kNOT: return x == 0 ? 1 : 0;
    default: return 0; // floating only
    }
}

//! out[i] = op(in[i]); out is kBOOL when boolOutput, else of type T (quantized with outScale).
template <DataType T>
__global__ void unaryKernel(
    Storage<T> const* in, void* out, int64_t count, Op op, float inScale, float outScale, bool boolOutput)
{
    auto* const typedOut = static_cast<Storage<T>*>(out);
    auto* const boolOut = static_cast<bool*>(out);
    for (int64_t i = pointwise::firstIndex(); i < count; i += pointwise::gridStride())
    {
        if constexpr (kIsFloating<T>)
        {
            float const result = unary::apply(op, loadFloat<T>(in, i, inScale));
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
            storeInteger<T>(typedOut, i, integerOp(op, loadInteger<T>(in, i))); // kNOT: T is kBOOL
        }
    }
}

//! out = op(in) as groups Packs of a floating or scaled T (a result of T, not kBOOL).
template <DataType T>
__global__ void unaryPackedKernel(
    Storage<T> const* in, Storage<T>* out, int64_t groups, Op op, float inScale, float outScale)
{
    pointwise::mapPacks<T>(in, out, groups, inScale, outScale, [&](float x) { return unary::apply(op, x); });
}

} // namespace

Status runUnary(UnaryParams const& params, DeviceTensor const& in, DeviceTensor const& out, Launch const& launch)
{
    Expected<host::TensorDesc> const desc = host::inferUnary(host::UnaryParams{params.op}, {in.type, in.dims});
    if (!desc)
    {
        return desc.error();
    }
    host::UnaryOpInfo const& info = *host::findUnaryOp(params.op);
    if (std::optional<std::string> const problem = host::shapePreservingOutputProblem(in, out, desc.value().type))
    {
        return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, std::string(info.name) + ": " + *problem};
    }
    if (std::optional<Error> const error = pointwise::checkTensors({{&in, "input"}, {&out, "output"}}))
    {
        return Error{error->code, std::string(info.name) + ": " + error->message};
    }
    int64_t const count = host::elementCount(in.dims);
    if (count == 0)
    {
        return host::Done{};
    }
    bool ran = false;
    dispatchType(in.type, [&]<DataType T>() {
        if constexpr (kIsFloating<T>)
        {
            if (!info.boolOutput && pointwise::packable<T>(count, {in.data, out.data}))
            {
                int64_t const groups = count / pointwise::kLanes;
                unaryPackedKernel<T><<<pointwise::grid(groups), pointwise::kBlock, 0, launch.stream>>>(
                    static_cast<Storage<T> const*>(in.data), static_cast<Storage<T>*>(out.data), groups, params.op,
                    in.scale, out.scale);
                ran = true;
                return;
            }
        }
        if constexpr (T != DataType::kUINT8) // no operation takes kUINT8 (inferUnary refused it)
        {
            unaryKernel<T><<<pointwise::grid(count), pointwise::kBlock, 0, launch.stream>>>(
                static_cast<Storage<T> const*>(in.data), out.data, count, params.op, in.scale, out.scale,
                info.boolOutput);
            ran = true;
        }
    });
    if (!ran)
    {
        return pointwise::noKernel(std::string(info.name) + " of " + dataTypeName(in.type));
    }
    return pointwise::launched("the unary kernel");
}

} // namespace kiln::cuda
