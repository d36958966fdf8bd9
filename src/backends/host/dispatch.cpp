// SPDX-License-Identifier: Apache-2.0
// The host backend's dispatch: one descriptor per layer kind, HostKind<Params>, holding the inputs the kind takes
// (src/network/layers/<kind>.cpp says which index means what) and the run that calls its kernel. std::visit over
// LayerParams picks the descriptor, so a kind added to KILN_LAYER_KINDS without one does not compile.
#include "backends/host/dispatch.h"

#include "backends/host/activation.h"
#include "backends/host/cast.h"
#include "backends/host/concatenation.h"
#include "backends/host/convolution.h"
#include "backends/host/copies.h"
#include "backends/host/data_movement.h"
#include "backends/host/elementwise.h"
#include "backends/host/fill.h"
#include "backends/host/gather.h"
#include "backends/host/matrix_multiply.h"
#include "backends/host/pooling.h"
#include "backends/host/reduce.h"
#include "backends/host/select.h"
#include "backends/host/shuffle.h"
#include "backends/host/slice.h"
#include "backends/host/softmax.h"
#include "backends/host/unary.h"
#include "backends/host/window.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace kiln
{

std::unique_ptr<Backend> makeHostBackend()
{
    return std::make_unique<host::HostBackend>();
}

} // namespace kiln

namespace kiln::host
{
namespace
{

Error invalid(std::string message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, std::move(message)};
}

//! One input a kind takes: what it is, for messages, and whether a layer of the kind must have it.
struct InputRole
{
    char const* name;
    bool required;
};

//! "input 1 (start)": input index and its role (the last role repeats for a variadic kind).
std::string describeInput(std::span<InputRole const> roles, std::size_t index)
{
    char const* role = roles.empty() ? "input" : roles[std::min(index, roles.size() - 1)].name;
    return "input " + std::to_string(index) + " (" + role + ")";
}

//! What a descriptor's run receives: the layer's inputs (nullptr where absent), their roles and the one output.
class Operands
{
public:
    Operands(
        std::span<HostTensor const* const> inputs, std::span<InputRole const> roles, HostTensor const& output) noexcept
        : mInputs(inputs)
        , mRoles(roles)
        , mOutput(output)
    {
    }

    //! Input index, or nullptr when the layer does not have it.
    HostTensor const* optional(std::size_t index) const noexcept
    {
        return index < mInputs.size() ? mInputs[index] : nullptr;
    }

    //! Input index, which the kind's roles require (the dispatch checked it is there).
    HostTensor const& required(std::size_t index) const noexcept { return *mInputs[index]; }

    std::span<HostTensor const* const> inputs() const noexcept { return mInputs; }
    HostTensor const& output() const noexcept { return mOutput; }

    //! "input 1 (start)".
    std::string describe(std::size_t index) const { return describeInput(mRoles, index); }

    //! The values of present input index as Dims: a 1-D kINT32 or kINT64 tensor of at most Dims::MAX_DIMS elements.
    Expected<Dims> values(std::size_t index) const
    {
        HostTensor const& tensor = required(index);
        std::string const what = describe(index);
        if (tensor.type != DataType::kINT32 && tensor.type != DataType::kINT64)
        {
            return invalid(what + " is " + dataTypeName(tensor.type)
                + "; the values a layer reads as parameters are kINT32 or kINT64");
        }
        if (tensor.dims.nbDims != 1 || tensor.dims.d[0] < 0 || tensor.dims.d[0] > Dims::MAX_DIMS)
        {
            return invalid(what + " has shape " + shapeString(tensor.dims) + "; it must be 1-D with 0 to "
                + std::to_string(Dims::MAX_DIMS) + " values");
        }
        if (std::optional<Error> error = checkTensor(tensor, what))
        {
            return *std::move(error);
        }
        Dims dims{static_cast<int32_t>(tensor.dims.d[0]), {}};
        for (int32_t i = 0; i < dims.nbDims; ++i)
        {
            dims.d[i] = loadIndex(tensor, i);
        }
        return dims;
    }

private:
    std::span<HostTensor const* const> mInputs;
    std::span<InputRole const> mRoles;
    HostTensor const& mOutput;
};

//! params with its padding resolved against input's trailing spatial extents (windowSize's rank), so that the kernel,
//! which reads explicit padding and rounds down, computes what params.paddingMode asks for.
template <typename P>
Expected<P> withExplicitPadding(P params, Dims const& windowSize, Dims const& dilation, Dims const& input)
{
    int32_t const spatial = windowSize.nbDims;
    if (spatial < 0 || spatial > Dims::MAX_DIMS || input.nbDims < spatial || input.nbDims > Dims::MAX_DIMS)
    {
        return invalid("the input " + shapeString(input) + " has fewer axes than the window " + shapeString(windowSize)
            + " has extents");
    }
    Dims extents{spatial, {}};
    for (int32_t i = 0; i < spatial; ++i)
    {
        extents.d[i] = input.d[input.nbDims - spatial + i];
    }
    Expected<ExplicitPadding> const padding = resolvePadding(
        params.paddingMode, extents, windowSize, params.stride, dilation, params.prePadding, params.postPadding);
    if (!padding)
    {
        return padding.error();
    }
    params.prePadding = padding.value().pre;
    params.postPadding = padding.value().post;
    params.paddingMode = PaddingMode::kEXPLICIT_ROUND_DOWN;
    return params;
}

//! The descriptor of the kind whose parameters are P: `kInputs`, the roles of its inputs in index order (with
//! `kVariadic`, the last role repeats), and `run`; or `kRefusal`, why the host backend does not run the kind.
template <typename P>
struct HostKind;

template <>
struct HostKind<ConvolutionParams>
{
    static constexpr std::array kInputs{InputRole{"data", true}, InputRole{"kernel", false}, InputRole{"bias", false}};
    static Status run(ConvolutionParams const& params, Operands const& io)
    {
        HostTensor const& input = io.required(0);
        ConvolutionOperands operands;
        operands.kernel = io.optional(1);
        operands.bias = io.optional(2);
        if (operands.kernel != nullptr && params.kernel.count != 0)
        {
            return invalid("convolution: input 1 gives the kernel, so the kernel weights must be empty; they hold "
                + std::to_string(params.kernel.count) + " values");
        }
        if (operands.bias != nullptr && params.bias.count != 0)
        {
            return invalid("convolution: input 2 gives the bias, so the bias weights must be empty; they hold "
                + std::to_string(params.bias.count) + " values");
        }
        Expected<ConvolutionParams> const resolved
            = withExplicitPadding(params, params.kernelSize, params.dilation, input.dims);
        if (!resolved)
        {
            return Error{resolved.error().code, "convolution: " + resolved.error().message};
        }
        return runConvolution(resolved.value(), input, io.output(), operands);
    }
};

template <>
struct HostKind<kiln::CastParams>
{
    static constexpr std::array kInputs{InputRole{"data", true}};
    static Status run(kiln::CastParams const& params, Operands const& io)
    {
        return runCast(host::CastParams{params.toType}, io.required(0), io.output());
    }
};

template <>
struct HostKind<kiln::ActivationParams>
{
    static constexpr std::array kInputs{InputRole{"data", true}};
    static Status run(kiln::ActivationParams const& params, Operands const& io)
    {
        return runActivation(
            host::ActivationParams{params.type, params.alpha, params.beta}, io.required(0), io.output());
    }
};

template <>
struct HostKind<PoolingParams>
{
    static constexpr std::array kInputs{InputRole{"data", true}};
    static Status run(PoolingParams const& params, Operands const& io)
    {
        HostTensor const& input = io.required(0);
        Expected<PoolingParams> const resolved = withExplicitPadding(params, params.windowSize, Dims{}, input.dims);
        if (!resolved)
        {
            return Error{resolved.error().code, "pooling: " + resolved.error().message};
        }
        return runPooling(resolved.value(), input, io.output());
    }
};

template <>
struct HostKind<SoftMaxParams>
{
    static constexpr std::array kInputs{InputRole{"data", true}};
    static Status run(SoftMaxParams const& params, Operands const& io)
    {
        return runSoftMax(params, io.required(0), io.output());
    }
};

template <>
struct HostKind<ConcatenationParams>
{
    static constexpr std::array kInputs{InputRole{"input", true}};
    static constexpr bool kVariadic = true;
    static Status run(ConcatenationParams const& params, Operands const& io)
    {
        std::vector<HostTensor> inputs;
        inputs.reserve(io.inputs().size());
        for (HostTensor const* input : io.inputs())
        {
            inputs.push_back(*input);
        }
        return runConcatenation(params, inputs, io.output());
    }
};

template <>
struct HostKind<kiln::ElementWiseParams>
{
    static constexpr std::array kInputs{InputRole{"first", true}, InputRole{"second", true}};
    static Status run(kiln::ElementWiseParams const& params, Operands const& io)
    {
        return runElementWise(host::ElementWiseParams{params.op}, io.required(0), io.required(1), io.output());
    }
};

template <>
struct HostKind<kiln::UnaryParams>
{
    static constexpr std::array kInputs{InputRole{"data", true}};
    static Status run(kiln::UnaryParams const& params, Operands const& io)
    {
        return runUnary(host::UnaryParams{params.op}, io.required(0), io.output());
    }
};

template <>
struct HostKind<ShuffleParams>
{
    static constexpr std::array kInputs{InputRole{"data", true}, InputRole{"reshape dimensions", false}};
    static Status run(ShuffleParams const& params, Operands const& io)
    {
        ShuffleParams resolved = params;
        if (io.optional(1) != nullptr)
        {
            // 0 and -1 keep their meaning: the kernel copies (with zeroIsPlaceholder) or infers them.
            Expected<Dims> const reshape = io.values(1);
            if (!reshape)
            {
                return Error{reshape.error().code, "shuffle: " + reshape.error().message};
            }
            resolved.reshape = reshape.value();
        }
        return runShuffle(resolved, io.required(0), io.output());
    }
};

template <>
struct HostKind<ReduceParams>
{
    static constexpr std::array kInputs{InputRole{"data", true}};
    static Status run(ReduceParams const& params, Operands const& io)
    {
        return runReduce(params, io.required(0), io.output());
    }
};

template <>
struct HostKind<GatherParams>
{
    static constexpr std::array kInputs{InputRole{"data", true}, InputRole{"indices", true}};
    static Status run(GatherParams const& params, Operands const& io)
    {
        return runGather(params, io.required(0), io.required(1), io.output());
    }
};

template <>
struct HostKind<MatrixMultiplyParams>
{
    static constexpr std::array kInputs{InputRole{"first", true}, InputRole{"second", true}};
    static Status run(MatrixMultiplyParams const& params, Operands const& io)
    {
        return runMatrixMultiply(params, io.required(0), io.required(1), io.output());
    }
};

template <>
struct HostKind<ConstantParams>
{
    static constexpr std::array<InputRole, 0> kInputs{};
    static Status run(ConstantParams const& params, Operands const& io) { return runConstant(params, io.output()); }
};

template <>
struct HostKind<IdentityParams>
{
    static constexpr std::array kInputs{InputRole{"data", true}};
    //! A copy of the bytes when nothing converts; a cast when the output's type (or a scaled type's scale) differs.
    static Status run(IdentityParams const& /*params*/, Operands const& io)
    {
        HostTensor const& in = io.required(0);
        HostTensor const& out = io.output();
        bool const sameScale = !contains(kScaledTypes, in.type) || in.scale == out.scale;
        if (in.type != out.type || !sameScale)
        {
            return runCast(host::CastParams{out.type}, in, out);
        }
        for (auto const& [tensor, role] : {std::pair{&in, "input"}, std::pair{&out, "output"}})
        {
            if (std::optional<Error> error = checkMoveTensor(*tensor, role))
            {
                return Error{error->code, "identity: " + error->message};
            }
        }
        if (!sameShape(in.dims, out.dims))
        {
            return invalid("identity: the output has shape " + shapeString(out.dims) + " but the input has "
                + shapeString(in.dims));
        }
        int64_t const bytes = elementCount(in.dims) * elementBytes(in.type);
        if (bytes > 0 && in.data != out.data)
        {
            std::memmove(out.data, in.data, static_cast<std::size_t>(bytes));
        }
        return Done{};
    }
};

template <>
struct HostKind<PluginV2Params>
{
    static constexpr char const* kRefusal = "the host backend does not run plugin layers yet (issue 4)";
};

template <>
struct HostKind<SliceParams>
{
    static constexpr std::array kInputs{InputRole{"data", true}, InputRole{"start", false}, InputRole{"size", false},
        InputRole{"stride", false}, InputRole{"fill value", false}, InputRole{"axes", false}};
    static Status run(SliceParams const& params, Operands const& io)
    {
        SliceParams resolved = params;
        for (auto const& [index, member] : {std::pair{1U, &SliceParams::start}, std::pair{2U, &SliceParams::size},
                 std::pair{3U, &SliceParams::stride}, std::pair{5U, &SliceParams::axes}})
        {
            if (io.optional(index) != nullptr)
            {
                Expected<Dims> const values = io.values(index);
                if (!values)
                {
                    return Error{values.error().code, "slice: " + values.error().message};
                }
                resolved.*member = values.value();
            }
        }
        return runSlice(resolved, io.required(0), io.output(), io.optional(4));
    }
};

template <>
struct HostKind<ShapeParams>
{
    static constexpr std::array kInputs{InputRole{"data", true}};
    //! Only the input's extents are read, never its data.
    static Status run(ShapeParams const& params, Operands const& io)
    {
        HostTensor const& in = io.required(0);
        return runShape(params, TensorDesc{in.type, in.dims}, io.output());
    }
};

template <>
struct HostKind<SelectParams>
{
    static constexpr std::array kInputs{
        InputRole{"condition", true}, InputRole{"then input", true}, InputRole{"else input", true}};
    static Status run(SelectParams const& params, Operands const& io)
    {
        return runSelect(params, io.required(0), io.required(1), io.required(2), io.output());
    }
};

template <>
struct HostKind<FillParams>
{
    static constexpr std::array kInputs{InputRole{"shape", false}, InputRole{"alpha", false}, InputRole{"beta", false}};
    //! The kernel fills the output's shape: it must be the shape the layer asks for (input 0, or params.dims).
    static Status run(FillParams const& params, Operands const& io)
    {
        Dims shape = params.dims;
        if (io.optional(0) != nullptr)
        {
            Expected<Dims> const values = io.values(0);
            if (!values)
            {
                return Error{values.error().code, "fill: " + values.error().message};
            }
            shape = values.value();
        }
        if (!sameShape(shape, io.output().dims))
        {
            return invalid("fill: the output has shape " + shapeString(io.output().dims) + " but the layer's shape ("
                + (io.optional(0) != nullptr ? "input 0" : "its dimensions") + ") is " + shapeString(shape));
        }
        return runFill(params, io.output(), io.optional(1), io.optional(2));
    }
};

template <>
struct HostKind<PluginV3Params>
{
    static constexpr char const* kRefusal = HostKind<PluginV2Params>::kRefusal;
};

//! A descriptor whose last input role repeats (concatenation).
template <typename Kind>
concept Variadic = Kind::kVariadic;

//! A descriptor of a kind the host backend refuses.
template <typename Kind>
concept Refused = requires
{
    Kind::kRefusal;
};

//! Checks the inputs and outputs against the kind's descriptor, then runs it.
template <typename P>
Status runKind(P const& params, std::span<HostTensor const* const> inputs, std::span<HostTensor const> outputs)
{
    using Kind = HostKind<P>;
    if constexpr (Refused<Kind>)
    {
        return Error{nvinfer1::ErrorCode::kUNSUPPORTED_STATE, Kind::kRefusal};
    }
    else
    {
        std::string const kind = layerClassName(kLayerTypeOf<P>);
        std::span<InputRole const> const roles = Kind::kInputs;
        if (!Variadic<Kind> && inputs.size() > roles.size())
        {
            return invalid("an " + kind + " takes at most " + std::to_string(roles.size()) + " input(s); the layer has "
                + std::to_string(inputs.size()));
        }
        for (std::size_t i = 0; i < std::max(roles.size(), inputs.size()); ++i)
        {
            bool const required = roles[std::min(i, roles.size() - 1)].required;
            if (required && (i >= inputs.size() || inputs[i] == nullptr))
            {
                return invalid("an " + kind + " needs " + describeInput(roles, i) + "; the layer does not have it");
            }
        }
        if (outputs.size() != 1)
        {
            return invalid("an " + kind + " has one output; the layer has " + std::to_string(outputs.size()));
        }
        return Kind::run(params, Operands(inputs, roles, outputs.front()));
    }
}

} // namespace

Status HostBackend::runLayer(LayerRecord const& layer, EngineModel const& /*model*/,
    std::span<HostTensor const* const> inputs, std::span<HostTensor const> outputs, cudaStream_t /*stream*/) noexcept
{
    try
    {
        if (layer.params.valueless_by_exception())
        {
            return invalid("the layer has no parameters");
        }
        LayerType const kind = layerTypeOf(layer.params);
        if (layer.type != kind)
        {
            return invalid(std::string("the layer is an ") + layerClassName(layer.type) + " but its parameters are an "
                + layerClassName(kind) + "'s");
        }
        if (inputs.size() != layer.inputs.size() || outputs.size() != layer.outputs.size())
        {
            return invalid("the layer has " + std::to_string(layer.inputs.size()) + " input(s) and "
                + std::to_string(layer.outputs.size()) + " output(s) but was given " + std::to_string(inputs.size())
                + " input and " + std::to_string(outputs.size()) + " output views");
        }
        for (std::size_t i = 0; i < inputs.size(); ++i)
        {
            if ((layer.inputs[i] == kNoTensor) != (inputs[i] == nullptr))
            {
                return invalid("input " + std::to_string(i)
                    + (inputs[i] == nullptr ? " is a tensor of the layer but has no view"
                                            : " is absent from the layer but was given a view"));
            }
        }
        return std::visit([&](auto const& params) { return runKind(params, inputs, outputs); }, layer.params);
    }
    catch (std::bad_alloc const&)
    {
        return Error{nvinfer1::ErrorCode::kFAILED_ALLOCATION, "the host backend ran out of host memory"};
    }
    catch (std::exception const& e)
    {
        return Error{nvinfer1::ErrorCode::kINTERNAL_ERROR, std::string("the host backend failed: ") + e.what()};
    }
}

} // namespace kiln::host
