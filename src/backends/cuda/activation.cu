// SPDX-License-Identifier: Apache-2.0
// CUDA IActivationLayer: out = f(in; alpha, beta), the functions of backends/host/activation.h in the same
// non-cancelling forms (expm1, log1p, erfc, a logistic for the tanh GELU), computed in float; kRELU on kINT32 and
// kINT64 in int64_t. One kernel per type; the function is a switch, the same for the whole grid. Floating and scaled
// tensors whose size and addresses allow it run packed (pointwise.cuh): kLanes elements per thread, one wide load and
// store each; the common functions (GELU, ReLU, sigmoid, tanh) have their own kernels with the function fixed at
// compile time and 16 bytes per access.
#include "backends/cuda/activation.cuh"
#include "backends/cuda/elements.cuh"
#include "backends/cuda/kernels.h"
#include "backends/cuda/launch.cuh"
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

//! out = f(in) for the common functions, f fixed at compile time (no per-element switch), 16 bytes per access: the
//! GELU after a transformer's first feed-forward product, ReLU, sigmoid and tanh at memory bandwidth (the erf GELU of
//! a 16- or 8-bit type in its faster 1 + erf form).
template <DataType T, Type kType>
__global__ void activationWideKernel(
    uint4 const* in, uint4* out, int64_t groups, float alpha, float beta, float inScale, float outScale)
{
    awaitPrerequisites();
    allowDependents();
    constexpr int32_t kWide = static_cast<int32_t>(sizeof(uint4) / sizeof(Storage<T>));
    for (int64_t g = pointwise::firstIndex(); g < groups; g += pointwise::gridStride())
    {
        uint4 const loaded = in[g];
        Storage<T> values[kWide];
        memcpy(values, &loaded, sizeof(loaded));
#pragma unroll
        for (int32_t e = 0; e < kWide; ++e)
        {
            float const x = loadFloat<T>(values, e, inScale);
            float y = 0.F;
            if constexpr (kType == Type::kGELU_ERF && sizeof(Storage<T>) <= 2)
            {
                y = activation::geluErfNarrow(x);
            }
            else
            {
                y = activation::apply(kType, x, alpha, beta);
            }
            storeFloat<T>(values, e, y, outScale);
        }
        uint4 stored;
        memcpy(&stored, values, sizeof(stored));
        out[g] = stored;
    }
}

//! Launches activationWideKernel for type when it is one of the compiled functions; false otherwise.
template <DataType T>
bool launchWide(Type type, void const* in, void* out, int64_t groups, ActivationParams const& params, float inScale,
    float outScale, cudaStream_t stream)
{
    auto const launch = [&]<Type kType>() {
        launchOverlapped<activationWideKernel<T, kType>>(pointwise::grid(groups), pointwise::kBlock, 0, stream,
            static_cast<uint4 const*>(in), static_cast<uint4*>(out), groups, params.alpha, params.beta, inScale,
            outScale);
        return true;
    };
    switch (type)
    {
    case Type::kGELU_ERF: return launch.template operator()<Type::kGELU_ERF>();
    case Type::kGELU_TANH: return launch.template operator()<Type::kGELU_TANH>();
    case Type::kRELU: return launch.template operator()<Type::kRELU>();
    case Type::kSIGMOID: return launch.template operator()<Type::kSIGMOID>();
    case Type::kTANH: return launch.template operator()<Type::kTANH>();
    default: return false;
    }
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
            constexpr auto kWide = static_cast<int64_t>(sizeof(uint4) / sizeof(Storage<T>));
            bool const wide = count % kWide == 0 && reinterpret_cast<uintptr_t>(in.data) % sizeof(uint4) == 0
                && reinterpret_cast<uintptr_t>(out.data) % sizeof(uint4) == 0;
            if (wide
                && launchWide<T>(
                    params.type, in.data, out.data, count / kWide, params, in.scale, out.scale, launch.stream))
            {
                ran = true;
                return;
            }
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
