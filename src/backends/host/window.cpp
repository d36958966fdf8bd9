// SPDX-License-Identifier: Apache-2.0
// Padding formulas: NvInfer.h's PaddingMode documentation (TensorRT 10, the same text in every release since 7),
// checked with the operator reference's Convolution and Pooling pages (docs.nvidia.com/deeplearning/tensorrt/latest/
// _static/operators/Pooling.html: "D = dilation. For Pooling layers, always equals 1").
#include "backends/host/window.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

namespace kiln::host
{

namespace
{

Error invalid(std::string_view what, std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, std::string(what) + ": " + message};
}

//! Copies dims into member (or fills it with fallback when dims has rank 0), checking each extent >= minimum.
std::optional<Error> readExtents(std::string_view what, char const* name, Dims const& dims, int32_t nbSpatial,
    int64_t fallback, int64_t minimum, std::array<int64_t, 3>& member)
{
    if (dims.nbDims == 0)
    {
        member.fill(fallback);
        return std::nullopt;
    }
    if (dims.nbDims != nbSpatial)
    {
        return invalid(what,
            std::string(name) + " " + shapeString(dims) + " has " + std::to_string(dims.nbDims)
                + " extents but the window has " + std::to_string(nbSpatial));
    }
    for (int32_t i = 0; i < nbSpatial; ++i)
    {
        if (dims.d[i] < minimum || dims.d[i] > kMaxWindowExtent)
        {
            return invalid(what,
                std::string(name) + " " + shapeString(dims) + " needs every extent in [" + std::to_string(minimum)
                    + ", " + std::to_string(kMaxWindowExtent) + "]");
        }
        member[static_cast<std::size_t>(i)] = dims.d[i];
    }
    return std::nullopt;
}

int64_t floorDiv(int64_t a, int64_t b) noexcept
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

} // namespace

Expected<Window> makeWindow(std::string_view what, Dims const& size, Dims const& stride, Dims const& dilation,
    Dims const& pre, Dims const& post)
{
    if (size.nbDims != 2 && size.nbDims != 3)
    {
        return invalid(what, "the window " + shapeString(size) + " needs 2 or 3 spatial extents");
    }
    Window window;
    window.nbSpatial = size.nbDims;
    for (auto const& [name, dims, fallback, minimum, member] : {
             std::tuple{"window", &size, int64_t{1}, int64_t{1}, &window.size},
             std::tuple{"stride", &stride, int64_t{1}, int64_t{1}, &window.stride},
             std::tuple{"dilation", &dilation, int64_t{1}, int64_t{1}, &window.dilation},
             std::tuple{"pre-padding", &pre, int64_t{0}, int64_t{0}, &window.pre},
             std::tuple{"post-padding", &post, int64_t{0}, int64_t{0}, &window.post},
         })
    {
        if (std::optional<Error> error = readExtents(what, name, *dims, window.nbSpatial, fallback, minimum, *member))
        {
            return *error;
        }
    }
    return window;
}

Expected<int64_t> windowOutputExtent(std::string_view what, Window const& window, int32_t i, int64_t input)
{
    auto const a = static_cast<std::size_t>(i);
    int64_t padded = 0;
    if (__builtin_add_overflow(input, window.pre[a] + window.post[a], &padded))
    {
        return invalid(what,
            "spatial axis " + std::to_string(i) + ": the input extent " + std::to_string(input)
                + " plus its padding is more than a 64-bit extent holds");
    }
    if (padded < window.span(i))
    {
        return invalid(what,
            "spatial axis " + std::to_string(i) + ": the padded input extent " + std::to_string(padded) + " ("
                + std::to_string(input) + " + " + std::to_string(window.pre[a]) + " + " + std::to_string(window.post[a])
                + ") is shorter than the window's span " + std::to_string(window.span(i)));
    }
    return (padded - window.span(i)) / window.stride[a] + 1;
}

Expected<ExplicitPadding> resolvePadding(PaddingMode mode, Dims const& inputExtents, Dims const& windowSize,
    Dims const& stride, Dims const& dilation, Dims const& prePadding, Dims const& postPadding)
{
    constexpr std::string_view kWhat = "padding";
    bool const same = mode == PaddingMode::kSAME_UPPER || mode == PaddingMode::kSAME_LOWER;
    Expected<Window> const window
        = makeWindow(kWhat, windowSize, stride, dilation, same ? Dims{} : prePadding, same ? Dims{} : postPadding);
    if (!window)
    {
        return window.error();
    }
    Window const& w = window.value();
    if (inputExtents.nbDims != w.nbSpatial)
    {
        return invalid(kWhat,
            "the input extents " + shapeString(inputExtents) + " need " + std::to_string(w.nbSpatial) + " values");
    }
    ExplicitPadding result{Dims{w.nbSpatial, {}}, Dims{w.nbSpatial, {}}};
    for (int32_t i = 0; i < w.nbSpatial; ++i)
    {
        auto const a = static_cast<std::size_t>(i);
        int64_t const input = inputExtents.d[i];
        int64_t const s = w.stride[a];
        int64_t const dk = w.span(i);
        if (input < 0 || input > std::numeric_limits<int64_t>::max() / 4)
        {
            return invalid(kWhat,
                "spatial axis " + std::to_string(i) + ": the input extent " + std::to_string(input)
                    + " is outside [0, 2^61]");
        }
        switch (mode)
        {
        case PaddingMode::kEXPLICIT_ROUND_DOWN:
        case PaddingMode::kEXPLICIT_ROUND_UP:
        {
            int64_t const m = input + w.pre[a] + w.post[a];
            if (m < dk)
            {
                return invalid(kWhat,
                    "spatial axis " + std::to_string(i) + ": the padded input extent " + std::to_string(m)
                        + " is shorter than the window's span " + std::to_string(dk));
            }
            int64_t const remainder = (m - dk) % s;
            int64_t const extra = mode == PaddingMode::kEXPLICIT_ROUND_UP && remainder != 0 ? s - remainder : 0;
            result.pre.d[i] = w.pre[a];
            result.post.d[i] = w.post[a] + extra;
            break;
        }
        case PaddingMode::kSAME_UPPER:
        case PaddingMode::kSAME_LOWER:
        {
            int64_t const p = std::max<int64_t>(floorDiv(input - 1, s) * s + dk - input, 0);
            int64_t const half = p / 2;
            result.pre.d[i] = mode == PaddingMode::kSAME_UPPER ? half : p - half;
            result.post.d[i] = p - result.pre.d[i];
            break;
        }
        default: return invalid(kWhat, "unknown PaddingMode " + std::to_string(static_cast<int32_t>(mode)));
        }
    }
    return result;
}

std::optional<std::string> filterOperandsProblem(HostTensor const& input, HostTensor const& output,
    HostTensor const* kernelTensor, HostTensor const* biasTensor, nvinfer1::Weights const& kernel,
    nvinfer1::Weights const& bias)
{
    for (auto const& [tensor, role] : {std::pair{&input, "input 0"}, std::pair{&output, "output"},
             std::pair{kernelTensor, "input 1 (kernel)"}, std::pair{biasTensor, "input 2 (bias)"}})
    {
        if (tensor == nullptr)
        {
            continue;
        }
        if (std::optional<Error> const error = checkTensor(*tensor, role))
        {
            return error->message;
        }
    }
    for (auto const& [weights, name] : {std::pair{&kernel, "kernel"}, std::pair{&bias, "bias"}})
    {
        if (weights->count > 0 && weights->values == nullptr)
        {
            return std::string("the ") + name + " weights have " + std::to_string(weights->count)
                + " values but no data";
        }
    }
    return std::nullopt;
}

} // namespace kiln::host
