// SPDX-License-Identifier: Apache-2.0
// CUDA IActivationLayer: out = f(in; alpha, beta), the functions of backends/host/activation.h in the same
// non-cancelling forms (expm1, log1p, erfc, a logistic for the tanh GELU), computed in float; kRELU on kINT32 and
// kINT64 in int64_t. One kernel per type; the function is a switch, the same for the whole grid. Floating and scaled
// tensors whose size and addresses allow it run packed (pointwise.cuh): kLanes elements per thread, one wide load and
// store each.
#include "backends/cuda/activation.cuh"
#include "backends/cuda/elements.cuh"
#include "backends/cuda/kernels.h"
#include "backends/cuda/pointwise.cuh"
#include "backends/host/activation.h"

#include <string>

namespace kiln::cuda
{
namespace
{

using Type = nvinfer1::ActivationType;

//! out[i] = f(in[i]) for a floating or scaled T; kRELU for an integer T.
template <DataType T>
__global__ void activationKernel(Storage<T> const* in, Storage<T>* out, int64_t count, Type type, float alpha,
    float beta, float inScale, float outScale)
{
    for (int64_t i = pointwise::firstIndex(); i < count; i += pointwise::gridStride())
    {
        if constexpr (kIsFloating<T>)
        {
            storeFloat<T>(out, i, activation::apply(type, loadFloat<T>(in, i, inScale), alpha, beta), outScale);
        }
        else
        {
            int64_t const x = loadInteger<T>(in, i);
            storeInteger<T>(out, i, x > 0 ? x : 0);
        }
    }
}

//! out = f(in) as groups Packs of a floating or scaled T.
template <DataType T>
__global__ void activationPackedKernel(Storage<T> const* in, Storage<T>* out, int64_t groups, Type type, float alpha,
    float beta, float inScale, float outScale)
{
    pointwise::mapPacks<T>(
        in, out, groups, inScale, outScale, [&](float x) { return activation::apply(type, x, alpha, beta); });
}

} // namespace

Status runActivation(
    ActivationParams const& params, DeviceTensor const& in, DeviceTensor const& out, Launch const& launch)
{
    host::ActivationParams const hostParams{params.type, params.alpha, params.beta};
    Expected<host::TensorDesc> const desc = host::inferActivation(hostParams, {in.type, in.dims});
    if (!desc)
    {
        return desc.error();
    }
    host::ActivationInfo const& info = *host::findActivation(params.type);
    if (std::optional<std::string> const problem = host::shapePreservingOutputProblem(in, out, in.type))
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
        // Floating and scaled types, and the integers of kRELU (inferActivation refused the rest).
        if constexpr (kIsFloating<T>)
        {
            if (pointwise::packable<T>(count, {in.data, out.data}))
            {
                int64_t const groups = count / pointwise::kLanes;
                activationPackedKernel<T><<<pointwise::grid(groups), pointwise::kBlock, 0, launch.stream>>>(
                    static_cast<Storage<T> const*>(in.data), static_cast<Storage<T>*>(out.data), groups, params.type,
                    params.alpha, params.beta, in.scale, out.scale);
                ran = true;
                return;
            }
        }
        if constexpr (kIsFloating<T> || T == DataType::kINT32 || T == DataType::kINT64)
        {
            activationKernel<T><<<pointwise::grid(count), pointwise::kBlock, 0, launch.stream>>>(
                static_cast<Storage<T> const*>(in.data), static_cast<Storage<T>*>(out.data), count, params.type,
                params.alpha, params.beta, in.scale, out.scale);
            ran = true;
        }
    });
    if (!ran)
    {
        return pointwise::noKernel(std::string(info.name) + " of " + dataTypeName(in.type));
    }
    return pointwise::launched("the activation kernel");
}

} // namespace kiln::cuda
