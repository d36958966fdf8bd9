// SPDX-License-Identifier: Apache-2.0
// Where the rules come from:
// - NvInfer.h's IPoolingLayer and PoolingType documentation (TensorRT 10) and the operator reference's Pooling page
//   (docs.nvidia.com/deeplearning/tensorrt/latest/_static/operators/Pooling.html): the three pooling types, the blend
//   (1 - blendFactor) * max + blendFactor * average with blendFactor in [0, 1], 2-D or 3-D windows, dilation 1.
// - averageCountExcludesPadding: IPoolingLayer::setAverageCountExcludesPadding, "whether average pooling uses as a
//   denominator the overlap area between the window and the unpadded input. If this is not set, the denominator is the
//   overlap between the pooling window and the padded input."
// - Padding smaller than the window: cuDNN's pooling descriptor requires it (and a window entirely in padding has no
//   maximum); kiln refuses it. NaN in kMAX: kiln's choice, as the element-wise kMAX.
#include "backends/host/pooling.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>

namespace kiln::host
{

namespace
{

constexpr std::array<PoolingTypeInfo, 3> kTypes{{
    {PoolingType::kMAX, "kMAX", true, false},
    {PoolingType::kAVERAGE, "kAVERAGE", false, true},
    {PoolingType::kMAX_AVERAGE_BLEND, "kMAX_AVERAGE_BLEND", true, true},
}};
static_assert(kTypes.size() == static_cast<std::size_t>(nvinfer1::EnumMax<PoolingType>()),
    "kTypes needs one row for every PoolingType");

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "pooling: " + message};
}

struct Plan
{
    Window window;
    int64_t planes{1};
    std::array<int64_t, 3> in{};
    std::array<int64_t, 3> out{};
    Dims outputDims{};
};

Expected<Plan> makePlan(PoolingParams const& params, TensorDesc const& in)
{
    PoolingTypeInfo const* info = findPoolingType(params.type);
    if (info == nullptr)
    {
        return invalid("unknown PoolingType " + std::to_string(static_cast<int32_t>(params.type)));
    }
    if (!contains(kPoolingTypes, in.type))
    {
        return invalid(std::string("does not accept ") + dataTypeName(in.type) + " inputs (it takes "
            + typeSetString(kPoolingTypes) + ")");
    }
    if (params.type == PoolingType::kMAX_AVERAGE_BLEND && !(params.blendFactor >= 0.0F && params.blendFactor <= 1.0F))
    {
        return invalid("blendFactor " + std::to_string(params.blendFactor) + " is outside [0, 1]");
    }
    Expected<Window> const window
        = makeWindow("pooling", params.windowSize, params.stride, Dims{}, params.prePadding, params.postPadding);
    if (!window)
    {
        return window.error();
    }
    Plan plan{window.value()};
    int32_t const nbSpatial = plan.window.nbSpatial;
    if (!isValidShape(in.dims) || in.dims.nbDims < nbSpatial + 1)
    {
        return invalid("the input " + shapeString(in.dims) + " has rank " + std::to_string(in.dims.nbDims) + " but "
            + std::to_string(nbSpatial) + "-D pooling needs rank >= " + std::to_string(nbSpatial + 1));
    }
    int32_t const first = in.dims.nbDims - nbSpatial;
    plan.outputDims = in.dims;
    for (int32_t i = 0; i < first; ++i)
    {
        plan.planes *= in.dims.d[i];
    }
    for (int32_t i = 0; i < nbSpatial; ++i)
    {
        auto const a = static_cast<std::size_t>(i);
        if (plan.window.pre[a] >= plan.window.size[a] || plan.window.post[a] >= plan.window.size[a])
        {
            return invalid("spatial axis " + std::to_string(i) + ": padding " + std::to_string(plan.window.pre[a])
                + " / " + std::to_string(plan.window.post[a]) + " must be smaller than the window "
                + std::to_string(plan.window.size[a]));
        }
        plan.in[a] = in.dims.d[first + i];
        Expected<int64_t> const extent = windowOutputExtent("pooling", plan.window, i, plan.in[a]);
        if (!extent)
        {
            return extent.error();
        }
        plan.out[a] = extent.value();
        plan.outputDims.d[first + i] = plan.out[a];
    }
    return plan;
}

} // namespace

std::span<PoolingTypeInfo const> poolingTypes() noexcept
{
    return kTypes;
}

PoolingTypeInfo const* findPoolingType(PoolingType type) noexcept
{
    auto const index = static_cast<std::size_t>(type);
    return index < kTypes.size() ? &kTypes[index] : nullptr;
}

Expected<TensorDesc> inferPooling(PoolingParams const& params, TensorDesc const& in)
{
    Expected<Plan> const plan = makePlan(params, in);
    if (!plan)
    {
        return plan.error();
    }
    return TensorDesc{in.type, plan.value().outputDims};
}

Status runPooling(PoolingParams const& params, HostTensor const& in, HostTensor const& out)
{
    Expected<Plan> const planned = makePlan(params, {in.type, in.dims});
    if (!planned)
    {
        return planned.error();
    }
    Plan const& p = planned.value();
    if (std::optional<std::string> const mismatch = outputMismatch(out, in.type, p.outputDims))
    {
        return invalid(*mismatch);
    }
    for (auto const& [tensor, role] : {std::pair{&in, "input"}, std::pair{&out, "output"}})
    {
        if (std::optional<Error> const error = checkTensor(*tensor, role))
        {
            return invalid(error->message);
        }
    }
    PoolingTypeInfo const& info = *findPoolingType(params.type);
    auto const nbSpatial = static_cast<std::size_t>(p.window.nbSpatial);
    int64_t inVolume = 1;
    int64_t outVolume = 1;
    for (std::size_t a = 0; a < nbSpatial; ++a)
    {
        inVolume *= p.in[a];
        outVolume *= p.out[a];
    }
    double const blend = params.blendFactor;
    for (int64_t plane = 0; plane < p.planes; ++plane)
    {
        for (int64_t o = 0; o < outVolume; ++o)
        {
            std::array<int64_t, 3> outAt{};
            for (std::size_t a = nbSpatial, rest = static_cast<std::size_t>(o); a-- > 0;)
            {
                outAt[a] = static_cast<int64_t>(rest) % p.out[a];
                rest /= static_cast<std::size_t>(p.out[a]);
            }
            // The window's taps inside the input, per axis (the window may be far larger than the input: its volume
            // is not a loop bound), and how many lie inside the padded input (left padding always holds the window's
            // start; a count in double, since the window's volume may pass int64).
            std::array<int64_t, 3> low{};
            std::array<int64_t, 3> taps{};
            int64_t inside = 1;
            double insidePadded = 1.0;
            for (std::size_t a = 0; a < nbSpatial; ++a)
            {
                int64_t const begin = outAt[a] * p.window.stride[a] - p.window.pre[a];
                int64_t const end = begin + p.window.size[a];
                low[a] = std::max<int64_t>(begin, 0);
                taps[a] = std::max<int64_t>(std::min(end, p.in[a]) - low[a], 0);
                inside *= taps[a];
                insidePadded
                    *= static_cast<double>(std::max<int64_t>(std::min(end, p.in[a] + p.window.post[a]) - begin, 0));
            }
            double maximum = -std::numeric_limits<double>::infinity();
            bool allNan = true;
            double sum = 0.0;
            // In the window's row-major order, as every tap's sum would be.
            for (int64_t r = 0; r < inside; ++r)
            {
                int64_t offset = 0;
                int64_t rest = r;
                std::array<int64_t, 3> tapAt{};
                for (std::size_t a = nbSpatial; a-- > 0;)
                {
                    tapAt[a] = rest % taps[a];
                    rest /= taps[a];
                }
                for (std::size_t a = 0; a < nbSpatial; ++a)
                {
                    offset = offset * p.in[a] + low[a] + tapAt[a];
                }
                double const value = loadFloat(in, plane * inVolume + offset);
                sum += value;
                if (!std::isnan(value))
                {
                    allNan = false;
                    maximum = value > maximum ? value : maximum;
                }
            }
            double const count = params.averageCountExcludesPadding ? static_cast<double>(inside) : insidePadded;
            double const average = sum / count;
            double const max = allNan ? std::numeric_limits<double>::quiet_NaN() : maximum;
            double result = average;
            if (info.usesMax && !info.usesAverage)
            {
                result = max;
            }
            else if (info.usesMax)
            {
                result = (1.0 - blend) * max + blend * average;
            }
            storeFloat(out, plane * outVolume + o, result);
        }
    }
    return Done{};
}

} // namespace kiln::host
