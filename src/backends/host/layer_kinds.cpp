// SPDX-License-Identifier: Apache-2.0
// One descriptor per layer kind, HostKind<Params>: the roles of its inputs (src/network/layers/<kind>.cpp says which
// index means what), `resolve` where the kernel needs more than the layer's parameters, and the kernel's `infer` (at
// build time) and `run`. resolve takes LayerInputs, so run and infer complete the parameters the same way; at build
// time it answers nullopt when it needs values known only at run time.
#include "backends/host/layer_kinds.h"

#include "backends/host/activation.h"
#include "backends/host/cast.h"
#include "backends/host/concatenation.h"
#include "backends/host/convolution.h"
#include "backends/host/copies.h"
#include "backends/host/cumulative.h"
#include "backends/host/data_movement.h"
#include "backends/host/deconvolution.h"
#include "backends/host/einsum.h"
#include "backends/host/elementwise.h"
#include "backends/host/fill.h"
#include "backends/host/gather.h"
#include "backends/host/grid_sample.h"
#include "backends/host/if_conditional.h"
#include "backends/host/layer_inputs.h"
#include "backends/host/matrix_multiply.h"
#include "backends/host/nms.h"
#include "backends/host/non_zero.h"
#include "backends/host/pooling.h"
#include "backends/host/quantize.h"
#include "backends/host/reduce.h"
#include "backends/host/resize.h"
#include "backends/host/reverse_sequence.h"
#include "backends/host/scatter.h"
#include "backends/host/select.h"
#include "backends/host/shuffle.h"
#include "backends/host/slice.h"
#include "backends/host/softmax.h"
#include "backends/host/topk.h"
#include "backends/host/unary.h"
#include "backends/host/window.h"

#include <array>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace kiln::host
{
namespace
{

//! Parameters completed from the inputs, nullopt when that needs values known only at run time, or the error.
template <typename P>
using Resolved = Expected<std::optional<P>>;

//! error, its message prefixed with what (the kind, as the kernels name it).
Error within(char const* what, Error const& error)
{
    return Error{error.code, std::string(what) + ": " + error.message};
}

//! Reads the values of input index into target when the layer has the input; false when they are known only at run
//! time (target is then unchanged).
Expected<bool> readValues(LayerInputs const& io, std::size_t index, Dims& target)
{
    if (!io.given(index))
    {
        return true;
    }
    Expected<std::optional<Dims>> const values = io.values(index);
    if (!values)
    {
        return values.error();
    }
    if (!values.value())
    {
        return false;
    }
    target = *values.value();
    return true;
}

//! params with its padding resolved against input's trailing spatial extents (windowSize's rank), so that the kernel,
//! which reads explicit padding and rounds down, computes what params.paddingMode asks for. what names the kind.
template <typename P>
Resolved<P> withExplicitPadding(
    char const* what, P params, Dims const& windowSize, Dims const& dilation, Dims const& input)
{
    int32_t const spatial = windowSize.nbDims;
    if (spatial < 0 || spatial > Dims::MAX_DIMS || input.nbDims < spatial || input.nbDims > Dims::MAX_DIMS)
    {
        return invalidArgument(std::string(what) + ": the input " + shapeString(input)
            + " has fewer axes than the window " + shapeString(windowSize) + " has extents");
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
        return within(what, padding.error());
    }
    params.prePadding = padding.value().pre;
    params.postPadding = padding.value().post;
    params.paddingMode = PaddingMode::kEXPLICIT_ROUND_DOWN;
    return std::optional(params);
}

//! The infer and run of a kind whose kernel takes its parameters and input 0: Infer(params, in) and
//! Run(params, in, out).
template <auto Infer, auto Run>
struct OneOperandKernel
{
    template <typename P>
    static Expected<TensorDesc> infer(P const& params, QueryInputs const& io)
    {
        return Infer(params, io.desc(0));
    }
    template <typename P>
    static Status run(P const& params, RunInputs const& io)
    {
        return Run(params, io.required(0), io.output());
    }
};

//! The same for a kernel that takes inputs 0 and 1: Infer(params, a, b) and Run(params, a, b, out).
template <auto Infer, auto Run>
struct TwoOperandKernel
{
    template <typename P>
    static Expected<TensorDesc> infer(P const& params, QueryInputs const& io)
    {
        return Infer(params, io.desc(0), io.desc(1));
    }
    template <typename P>
    static Status run(P const& params, RunInputs const& io)
    {
        return Run(params, io.required(0), io.required(1), io.output());
    }
};

//! The descriptor of the kind whose parameters are P: `kInputs`, the roles of its inputs in index order (with
//! `kVariadic`, the last role repeats), an optional `resolve`, `infer` and `run`; or `kRefusal`, why the host backend
//! does not run the kind.
template <typename P>
struct HostKind;

template <>
struct HostKind<ConvolutionParams>
{
    static constexpr std::array kInputs{InputRole{"data", true}, InputRole{"kernel", false}, InputRole{"bias", false}};
    //! An input gives the kernel (or the bias) only where the weights are empty; padding as the input asks.
    static Resolved<ConvolutionParams> resolve(ConvolutionParams const& params, LayerInputs const& io)
    {
        if (io.given(1) && params.kernel.count != 0)
        {
            return invalidArgument(
                "convolution: input 1 gives the kernel, so the kernel weights must be empty; they hold "
                + std::to_string(params.kernel.count) + " values");
        }
        if (io.given(2) && params.bias.count != 0)
        {
            return invalidArgument("convolution: input 2 gives the bias, so the bias weights must be empty; they hold "
                + std::to_string(params.bias.count) + " values");
        }
        return withExplicitPadding("convolution", params, params.kernelSize, params.dilation, io.desc(0).dims);
    }
    static Expected<TensorDesc> infer(ConvolutionParams const& params, QueryInputs const& io)
    {
        HostTensor const kernel = io.given(1) ? io.view(1) : HostTensor{};
        HostTensor const bias = io.given(2) ? io.view(2) : HostTensor{};
        return inferConvolution(params, io.desc(0),
            ConvolutionOperands{io.given(1) ? &kernel : nullptr, io.given(2) ? &bias : nullptr, {}});
    }
    static Status run(ConvolutionParams const& params, RunInputs const& io)
    {
        return runConvolution(
            params, io.required(0), io.output(), ConvolutionOperands{io.optional(1), io.optional(2), {}});
    }
};

template <>
struct HostKind<DeconvolutionParams>
{
    static constexpr std::array kInputs{InputRole{"data", true}, InputRole{"kernel", false}, InputRole{"bias", false}};
    //! An input gives the kernel (or the bias) only where the weights are empty. The kernel resolves the padding mode
    //! itself (a deconvolution's SAME padding does not depend on the input).
    static Resolved<DeconvolutionParams> resolve(DeconvolutionParams const& params, LayerInputs const& io)
    {
        if (io.given(1) && params.kernel.count != 0)
        {
            return invalidArgument(
                "deconvolution: input 1 gives the kernel, so the kernel weights must be empty; they hold "
                + std::to_string(params.kernel.count) + " values");
        }
        if (io.given(2) && params.bias.count != 0)
        {
            return invalidArgument(
                "deconvolution: input 2 gives the bias, so the bias weights must be empty; they hold "
                + std::to_string(params.bias.count) + " values");
        }
        return std::optional(params);
    }
    static Expected<TensorDesc> infer(DeconvolutionParams const& params, QueryInputs const& io)
    {
        HostTensor const kernel = io.given(1) ? io.view(1) : HostTensor{};
        HostTensor const bias = io.given(2) ? io.view(2) : HostTensor{};
        return inferDeconvolution(
            params, io.desc(0), DeconvolutionOperands{io.given(1) ? &kernel : nullptr, io.given(2) ? &bias : nullptr});
    }
    static Status run(DeconvolutionParams const& params, RunInputs const& io)
    {
        return runDeconvolution(
            params, io.required(0), io.output(), DeconvolutionOperands{io.optional(1), io.optional(2)});
    }
};

template <>
struct HostKind<kiln::CastParams>
{
    static constexpr std::array kInputs{InputRole{"data", true}};
    static Expected<TensorDesc> infer(kiln::CastParams const& params, QueryInputs const& io)
    {
        return inferCast(host::CastParams{params.toType}, io.desc(0));
    }
    static Status run(kiln::CastParams const& params, RunInputs const& io)
    {
        return runCast(host::CastParams{params.toType}, io.required(0), io.output());
    }
};

template <>
struct HostKind<kiln::ActivationParams>
{
    static constexpr std::array kInputs{InputRole{"data", true}};
    static host::ActivationParams kernel(kiln::ActivationParams const& params)
    {
        return host::ActivationParams{params.type, params.alpha, params.beta};
    }
    static Expected<TensorDesc> infer(kiln::ActivationParams const& params, QueryInputs const& io)
    {
        return inferActivation(kernel(params), io.desc(0));
    }
    static Status run(kiln::ActivationParams const& params, RunInputs const& io)
    {
        return runActivation(kernel(params), io.required(0), io.output());
    }
};

template <>
struct HostKind<PoolingParams> : OneOperandKernel<inferPooling, runPooling>
{
    static constexpr std::array kInputs{InputRole{"data", true}};
    static Resolved<PoolingParams> resolve(PoolingParams const& params, LayerInputs const& io)
    {
        return withExplicitPadding("pooling", params, params.windowSize, Dims{}, io.desc(0).dims);
    }
};

template <>
struct HostKind<SoftMaxParams> : OneOperandKernel<inferSoftMax, runSoftMax>
{
    static constexpr std::array kInputs{InputRole{"data", true}};
};

template <>
struct HostKind<ConcatenationParams>
{
    static constexpr std::array kInputs{InputRole{"input", true}};
    static constexpr bool kVariadic = true;
    static Expected<TensorDesc> infer(ConcatenationParams const& params, QueryInputs const& io)
    {
        std::vector<TensorDesc> inputs;
        for (std::size_t i = 0; i < io.size(); ++i)
        {
            inputs.push_back(io.desc(i));
        }
        return inferConcatenation(params, inputs);
    }
    static Status run(ConcatenationParams const& params, RunInputs const& io)
    {
        std::vector<HostTensor> inputs;
        inputs.reserve(io.size());
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
    static Expected<TensorDesc> infer(kiln::ElementWiseParams const& params, QueryInputs const& io)
    {
        return inferElementWise(host::ElementWiseParams{params.op}, io.desc(0), io.desc(1));
    }
    static Status run(kiln::ElementWiseParams const& params, RunInputs const& io)
    {
        return runElementWise(host::ElementWiseParams{params.op}, io.required(0), io.required(1), io.output());
    }
};

template <>
struct HostKind<kiln::UnaryParams>
{
    static constexpr std::array kInputs{InputRole{"data", true}};
    static Expected<TensorDesc> infer(kiln::UnaryParams const& params, QueryInputs const& io)
    {
        return inferUnary(host::UnaryParams{params.op}, io.desc(0));
    }
    static Status run(kiln::UnaryParams const& params, RunInputs const& io)
    {
        return runUnary(host::UnaryParams{params.op}, io.required(0), io.output());
    }
};

template <>
struct HostKind<ShuffleParams> : OneOperandKernel<inferShuffle, runShuffle>
{
    static constexpr std::array kInputs{
        InputRole{"data", true}, InputRole{"reshape dimensions", false, InputUse::kVALUES}};
    //! Input 1 gives the reshape dimensions; 0 and -1 keep their meaning: the kernel copies (with zeroIsPlaceholder)
    //! or infers them.
    static Resolved<ShuffleParams> resolve(ShuffleParams params, LayerInputs const& io)
    {
        Expected<bool> const known = readValues(io, 1, params.reshape);
        if (!known)
        {
            return within("shuffle", known.error());
        }
        return known.value() ? std::optional(params) : std::nullopt;
    }
};

template <>
struct HostKind<ReduceParams> : OneOperandKernel<inferReduce, runReduce>
{
    static constexpr std::array kInputs{InputRole{"data", true}};
};

template <>
struct HostKind<TopKParams>
{
    static constexpr std::array kInputs{InputRole{"data", true}, InputRole{"k", false, InputUse::kVALUES}};
    //! Output 0 the values, output 1 the indices.
    static constexpr std::size_t kOutputs = 2;
    //! Input 1 gives k.
    static Resolved<TopKParams> resolve(TopKParams params, LayerInputs const& io)
    {
        if (!io.given(1))
        {
            return std::optional(params);
        }
        Expected<std::optional<int64_t>> const k = io.scalar(1);
        if (!k)
        {
            return within("topk", k.error());
        }
        if (!k.value())
        {
            return std::optional<TopKParams>{};
        }
        if (*k.value() < 0 || *k.value() > std::numeric_limits<int32_t>::max())
        {
            return invalidArgument("topk: input 1 (k) is " + std::to_string(*k.value()) + "; k is 0 to 2^31 - 1");
        }
        params.k = static_cast<int32_t>(*k.value());
        return std::optional(params);
    }
    //! The values' type and shape; the indices must have the type the layer gives them.
    static Expected<TensorDesc> infer(TopKParams const& params, QueryInputs const& io)
    {
        if (io.outputType(1) != params.indicesType)
        {
            return invalidArgument(std::string("topk: output 1 (indices) is ") + dataTypeName(io.outputType(1))
                + " but the kernel makes " + dataTypeName(params.indicesType) + " (the layer's indices type)");
        }
        return inferTopK(params, io.desc(0));
    }
    static Status run(TopKParams const& params, RunInputs const& io)
    {
        return runTopK(params, io.required(0), io.output(0), io.output(1));
    }
};

template <>
struct HostKind<GatherParams> : TwoOperandKernel<inferGather, runGather>
{
    static constexpr std::array kInputs{InputRole{"data", true}, InputRole{"indices", true}};
};

template <>
struct HostKind<MatrixMultiplyParams> : TwoOperandKernel<inferMatrixMultiply, runMatrixMultiply>
{
    static constexpr std::array kInputs{InputRole{"first", true}, InputRole{"second", true}};
};

template <>
struct HostKind<ConstantParams>
{
    static constexpr std::array<InputRole, 0> kInputs{};
    static Expected<TensorDesc> infer(ConstantParams const& params, QueryInputs const& /*io*/)
    {
        return inferConstant(params);
    }
    static Status run(ConstantParams const& params, RunInputs const& io) { return runConstant(params, io.output()); }
};

template <>
struct HostKind<IdentityParams>
{
    static constexpr std::array kInputs{InputRole{"data", true}};
    //! The input when the output's type (setOutputType) is the input's; else a cast to it.
    static Expected<TensorDesc> infer(IdentityParams const& /*params*/, QueryInputs const& io)
    {
        TensorDesc const in = io.desc(0);
        if (in.type == io.outputType())
        {
            return in;
        }
        return inferCast(host::CastParams{io.outputType()}, in);
    }
    //! A copy of the bytes when nothing converts; a cast when the output's type (or a scaled type's scale) differs.
    static Status run(IdentityParams const& /*params*/, RunInputs const& io)
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
                return within("identity", *error);
            }
        }
        if (!sameShape(in.dims, out.dims))
        {
            return invalidArgument("identity: the output has shape " + shapeString(out.dims) + " but the input has "
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

//! An if-conditional's condition layer: a copy of the 0-D kBOOL condition, which the run time reads back.
template <>
struct HostKind<ConditionParams>
{
    static constexpr std::array kInputs{InputRole{"condition", true}};
    static Expected<TensorDesc> infer(ConditionParams const& /*params*/, QueryInputs const& io)
    {
        TensorDesc const in = io.desc(0);
        if (in.type != DataType::kBOOL || in.dims.nbDims != 0)
        {
            return invalidArgument("condition: the condition is " + std::string(dataTypeName(in.type)) + " "
                + shapeString(in.dims) + "; it must be a 0-D kBOOL tensor");
        }
        return in;
    }
    static Status run(ConditionParams const& /*params*/, RunInputs const& io)
    {
        return HostKind<IdentityParams>::run(IdentityParams{}, io);
    }
};

//! An if-conditional's input layer: a copy.
template <>
struct HostKind<IfConditionalInputParams>
{
    static constexpr std::array kInputs{InputRole{"data", true}};
    static Expected<TensorDesc> infer(IfConditionalInputParams const& /*params*/, QueryInputs const& io)
    {
        return io.desc(0);
    }
    static Status run(IfConditionalInputParams const& /*params*/, RunInputs const& io)
    {
        return HostKind<IdentityParams>::run(IdentityParams{}, io);
    }
};

//! An if-conditional's output layer: a copy of the value of the branch the condition (input 2, read on the host)
//! chose. Only that branch ran, so the other value is never read.
template <>
struct HostKind<IfConditionalOutputParams>
{
    static constexpr std::array kInputs{
        InputRole{"true value", true}, InputRole{"false value", true}, InputRole{"condition", true, InputUse::kVALUES}};
    //! The shape follows the branch taken: the build checks the types only.
    static constexpr bool kDataDependent = true;
    static Expected<TensorDesc> infer(IfConditionalOutputParams const& /*params*/, QueryInputs const& io)
    {
        TensorDesc const onTrue = io.desc(0);
        TensorDesc const onFalse = io.desc(1);
        TensorDesc const condition = io.desc(2);
        if (onTrue.type != onFalse.type || onTrue.dims.nbDims != onFalse.dims.nbDims)
        {
            return invalidArgument("conditional output: the branches give " + std::string(dataTypeName(onTrue.type))
                + " " + shapeString(onTrue.dims) + " and " + dataTypeName(onFalse.type) + " "
                + shapeString(onFalse.dims) + "; they must have one type and rank");
        }
        if (condition.type != DataType::kBOOL || condition.dims.nbDims != 0)
        {
            return invalidArgument("conditional output: the condition is " + std::string(dataTypeName(condition.type))
                + " " + shapeString(condition.dims) + "; it must be a 0-D kBOOL tensor");
        }
        return onTrue;
    }
    static Status run(IfConditionalOutputParams const& /*params*/, RunInputs const& io)
    {
        HostTensor const* chosen = &io.required(conditionalBranch(io.required(2)) ? 0 : 1);
        static constexpr std::array kCopied{InputRole{"data", true}};
        return HostKind<IdentityParams>::run(
            IdentityParams{}, RunInputs(std::span(&chosen, 1), kCopied, std::span(&io.output(), 1)));
    }
};

//! The boundary layers of a loop run in the executor, which slices the iterators' inputs, carries the recurrences
//! and gathers the outputs with the slice, copy and shuffle kernels (runtime/executor.h, "Loops"). Here: the roles of
//! their inputs, and the build's check of types (the shapes follow from the iterations).
constexpr char const* kRunByTheExecutor = "the executor runs a loop's boundary layers";

template <>
struct HostKind<TripLimitParams>
{
    static constexpr std::array kInputs{InputRole{"limit", true, InputUse::kVALUES}};
    static constexpr std::size_t kOutputs = 0;
    static constexpr bool kDataDependent = true;
    static Expected<TensorDesc> infer(TripLimitParams const& params, QueryInputs const& io)
    {
        TensorDesc const limit = io.desc(0);
        bool const count = params.kind == nvinfer1::TripLimit::kCOUNT;
        bool const typeOk = count ? contains(typeSet({DataType::kINT32, DataType::kINT64}), limit.type)
                                  : limit.type == DataType::kBOOL;
        if (!typeOk || limit.dims.nbDims != 0)
        {
            return invalidArgument(std::string("trip limit: the limit is ") + dataTypeName(limit.type) + " "
                + shapeString(limit.dims) + (count ? "; a count is a 0-D kINT32 or kINT64 tensor" : "; a 0-D kBOOL"));
        }
        return limit;
    }
    static Status run(TripLimitParams const&, RunInputs const&) { return invalidArgument(kRunByTheExecutor); }
};

template <>
struct HostKind<RecurrenceParams>
{
    static constexpr std::array kInputs{InputRole{"initial value", true}, InputRole{"next value", true}};
    static constexpr bool kDataDependent = true;
    static Expected<TensorDesc> infer(RecurrenceParams const&, QueryInputs const& io)
    {
        if (io.desc(0).type != io.desc(1).type)
        {
            return invalidArgument(std::string("recurrence: the initial value is ") + dataTypeName(io.desc(0).type)
                + " but the next value " + dataTypeName(io.desc(1).type));
        }
        return io.desc(0);
    }
    static Status run(RecurrenceParams const&, RunInputs const&) { return invalidArgument(kRunByTheExecutor); }
};

template <>
struct HostKind<IteratorParams>
{
    static constexpr std::array kInputs{InputRole{"data", true}};
    static constexpr bool kDataDependent = true;
    static Expected<TensorDesc> infer(IteratorParams const&, QueryInputs const& io) { return io.desc(0); }
    static Status run(IteratorParams const&, RunInputs const&) { return invalidArgument(kRunByTheExecutor); }
};

template <>
struct HostKind<LoopOutputParams>
{
    static constexpr std::array kInputs{InputRole{"value", true}, InputRole{"length", false, InputUse::kVALUES}};
    static constexpr bool kDataDependent = true;
    static Expected<TensorDesc> infer(LoopOutputParams const&, QueryInputs const& io) { return io.desc(0); }
    static Status run(LoopOutputParams const&, RunInputs const&) { return invalidArgument(kRunByTheExecutor); }
};

template <>
struct HostKind<PluginV2Params>
{
    static constexpr char const* kRefusal = "the host backend does not run plugin layers yet (issue 4)";
};

template <>
struct HostKind<SliceParams>
{
    static constexpr std::array kInputs{InputRole{"data", true}, InputRole{"start", false, InputUse::kVALUES},
        InputRole{"size", false, InputUse::kVALUES}, InputRole{"stride", false, InputUse::kVALUES},
        InputRole{"fill value", false}, InputRole{"axes", false, InputUse::kVALUES}};
    //! Inputs 1, 2, 3 and 5 give the start, size, stride and axes.
    static Resolved<SliceParams> resolve(SliceParams params, LayerInputs const& io)
    {
        for (auto const& [index, member] : {std::pair{1U, &SliceParams::start}, std::pair{2U, &SliceParams::size},
                 std::pair{3U, &SliceParams::stride}, std::pair{5U, &SliceParams::axes}})
        {
            Expected<bool> const known = readValues(io, index, params.*member);
            if (!known)
            {
                return within("slice", known.error());
            }
            if (!known.value())
            {
                return std::optional<SliceParams>{};
            }
        }
        return std::optional(params);
    }
    static Expected<TensorDesc> infer(SliceParams const& params, QueryInputs const& io)
    {
        return inferSlice(params, io.desc(0));
    }
    static Status run(SliceParams const& params, RunInputs const& io)
    {
        return runSlice(params, io.required(0), io.output(), io.optional(4));
    }
};

template <>
struct HostKind<ShapeParams>
{
    static constexpr std::array kInputs{InputRole{"data", true, InputUse::kSHAPE}};
    static Expected<TensorDesc> infer(ShapeParams const& params, QueryInputs const& io)
    {
        return inferShape(params, io.desc(0));
    }
    //! Only the input's extents are read, never its data.
    static Status run(ShapeParams const& params, RunInputs const& io)
    {
        return runShape(params, io.desc(0), io.output());
    }
};

template <>
struct HostKind<ResizeParams> : OneOperandKernel<inferResize, runResize>
{
    static constexpr std::array kInputs{InputRole{"data", true}, InputRole{"output shape", false, InputUse::kVALUES}};
    //! Input 1 gives the output shape, in place of the output dimensions and the scales.
    static Resolved<ResizeParams> resolve(ResizeParams params, LayerInputs const& io)
    {
        if (!io.given(1))
        {
            return std::optional(params);
        }
        Expected<bool> const known = readValues(io, 1, params.outputDims);
        if (!known)
        {
            return within("resize", known.error());
        }
        params.scales.clear();
        return known.value() ? std::optional(params) : std::nullopt;
    }
};

template <>
struct HostKind<SelectParams>
{
    static constexpr std::array kInputs{
        InputRole{"condition", true}, InputRole{"then input", true}, InputRole{"else input", true}};
    static Expected<TensorDesc> infer(SelectParams const& params, QueryInputs const& io)
    {
        return inferSelect(params, io.desc(0), io.desc(1), io.desc(2));
    }
    static Status run(SelectParams const& params, RunInputs const& io)
    {
        return runSelect(params, io.required(0), io.required(1), io.required(2), io.output());
    }
};

template <>
struct HostKind<FillParams>
{
    static constexpr std::array kInputs{
        InputRole{"shape", false, InputUse::kVALUES}, InputRole{"alpha", false}, InputRole{"beta", false}};
    //! Input 0 gives the shape.
    static Resolved<FillParams> resolve(FillParams params, LayerInputs const& io)
    {
        Expected<bool> const known = readValues(io, 0, params.dims);
        if (!known)
        {
            return within("fill", known.error());
        }
        return known.value() ? std::optional(params) : std::nullopt;
    }
    //! inferFill checks that the alpha and beta tensors have data, which it does not read.
    static Expected<TensorDesc> infer(FillParams const& params, QueryInputs const& io)
    {
        HostTensor const alpha = io.given(1) ? io.view(1) : HostTensor{};
        HostTensor const beta = io.given(2) ? io.view(2) : HostTensor{};
        return inferFill(params, params.dims, io.given(1) ? &alpha : nullptr, io.given(2) ? &beta : nullptr);
    }
    //! The kernel fills the output's shape: it must be the shape the layer asks for (input 0, or params.dims).
    static Status run(FillParams const& params, RunInputs const& io)
    {
        if (!sameShape(params.dims, io.output().dims))
        {
            return invalidArgument("fill: the output has shape " + shapeString(io.output().dims)
                + " but the layer's shape (" + (io.given(0) ? "input 0" : "its dimensions") + ") is "
                + shapeString(params.dims));
        }
        return runFill(params, io.output(), io.optional(1), io.optional(2));
    }
};

//! Quantize and dequantize: input 1 the scale, input 2 the optional zero point (the scale's shape).
template <typename P, auto Infer, auto Run>
struct QuantizeKind
{
    static constexpr std::array kInputs{
        InputRole{"data", true}, InputRole{"scale", true}, InputRole{"zero point", false}};
    static Expected<TensorDesc> infer(P const& params, QueryInputs const& io)
    {
        TensorDesc const zeroPoint = io.given(2) ? io.desc(2) : TensorDesc{};
        return Infer(params, io.desc(0), io.desc(1), io.given(2) ? &zeroPoint : nullptr);
    }
    static Status run(P const& params, RunInputs const& io)
    {
        return Run(params, io.required(0), io.required(1), io.optional(2), io.output());
    }
};

template <>
struct HostKind<QuantizeParams> : QuantizeKind<QuantizeParams, inferQuantize, runQuantize>
{
};

template <>
struct HostKind<DequantizeParams> : QuantizeKind<DequantizeParams, inferDequantize, runDequantize>
{
};

template <>
struct HostKind<ScatterParams>
{
    static constexpr std::array kInputs{
        InputRole{"data", true}, InputRole{"indices", true}, InputRole{"updates", true}};
    static Expected<TensorDesc> infer(ScatterParams const& params, QueryInputs const& io)
    {
        return inferScatter(params, io.desc(0), io.desc(1), io.desc(2));
    }
    static Status run(ScatterParams const& params, RunInputs const& io)
    {
        return runScatter(params, io.required(0), io.required(1), io.required(2), io.output());
    }
};

template <>
struct HostKind<EinsumParams>
{
    static constexpr std::array kInputs{InputRole{"first", true}, InputRole{"second", false}};
    static Expected<TensorDesc> infer(EinsumParams const& params, QueryInputs const& io)
    {
        std::vector<TensorDesc> inputs;
        for (std::size_t i = 0; i < io.size(); ++i)
        {
            if (!io.given(i))
            {
                return invalidArgument("einsum: " + io.describe(i) + " is missing");
            }
            inputs.push_back(io.desc(i));
        }
        return inferEinsum(params, inputs);
    }
    static Status run(EinsumParams const& params, RunInputs const& io)
    {
        std::vector<HostTensor> inputs;
        for (std::size_t i = 0; i < io.size(); ++i)
        {
            if (!io.given(i))
            {
                return invalidArgument("einsum: " + io.describe(i) + " is missing");
            }
            inputs.push_back(io.required(i));
        }
        return runEinsum(params, inputs, io.output());
    }
};

template <>
struct HostKind<NonZeroParams>
{
    static constexpr std::array kInputs{InputRole{"data", true}};
    //! Output 0 the indices, output 1 the count (hidden from the API).
    static constexpr std::size_t kOutputs = 2;
    //! Output 0's extent is the count the kernel writes: the build checks the types only.
    static constexpr bool kDataDependent = true;
    static Expected<TensorDesc> infer(NonZeroParams const& params, QueryInputs const& io)
    {
        if (io.outputType(0) != params.indicesType
            || !contains(typeSet({DataType::kINT32, DataType::kINT64}), io.outputType(1)))
        {
            return invalidArgument(std::string("non-zero: the outputs are ") + dataTypeName(io.outputType(0)) + " and "
                + dataTypeName(io.outputType(1)) + " but the kernel makes " + dataTypeName(params.indicesType)
                + " indices (the layer's indices type) and a kINT32 or kINT64 count");
        }
        return inferNonZero(params, io.desc(0));
    }
    static Status run(NonZeroParams const& params, RunInputs const& io)
    {
        return runNonZero(params, io.required(0), io.output(0), io.output(1));
    }
};

template <>
struct HostKind<GridSampleParams> : TwoOperandKernel<inferGridSample, runGridSample>
{
    static constexpr std::array kInputs{InputRole{"data", true}, InputRole{"grid", true}};
};

template <>
struct HostKind<ReverseSequenceParams> : TwoOperandKernel<inferReverseSequence, runReverseSequence>
{
    static constexpr std::array kInputs{InputRole{"data", true}, InputRole{"sequence lengths", true}};
};

template <>
struct HostKind<NMSParams>
{
    static constexpr std::array kInputs{InputRole{"boxes", true}, InputRole{"scores", true},
        InputRole{"MaxOutputBoxesPerClass", true, InputUse::kVALUES},
        InputRole{"IoU threshold", false, InputUse::kVALUES}, InputRole{"score threshold", false, InputUse::kVALUES}};
    //! Output 0 the selected indices, output 1 their number.
    static constexpr std::size_t kOutputs = 2;
    //! Output 0's extent is the number of selections the kernel writes: the build checks the types only.
    static constexpr bool kDataDependent = true;
    static Expected<TensorDesc> infer(NMSParams const& params, QueryInputs const& io)
    {
        if (io.outputType(0) != params.indicesType
            || !contains(typeSet({DataType::kINT32, DataType::kINT64}), io.outputType(1)))
        {
            return invalidArgument(std::string("nms: the outputs are ") + dataTypeName(io.outputType(0)) + " and "
                + dataTypeName(io.outputType(1)) + " but the kernel makes " + dataTypeName(params.indicesType)
                + " indices (the layer's indices type) and a kINT32 or kINT64 count");
        }
        TensorDesc const limit = io.desc(2);
        if ((limit.type != DataType::kINT32 && limit.type != DataType::kINT64) || limit.dims.nbDims != 0)
        {
            return invalidArgument(std::string("nms: MaxOutputBoxesPerClass is ") + dataTypeName(limit.type) + " "
                + shapeString(limit.dims) + "; it must be a 0-D kINT32 or kINT64 tensor");
        }
        for (std::size_t i = 3; i < 5; ++i)
        {
            if (io.given(i) && (io.desc(i).type != DataType::kFLOAT || io.desc(i).dims.nbDims != 0))
            {
                return invalidArgument("nms: " + io.describe(i) + " is " + dataTypeName(io.desc(i).type) + " "
                    + shapeString(io.desc(i).dims) + "; it must be a 0-D kFLOAT tensor");
            }
        }
        return inferNMS(params, io.desc(0), io.desc(1));
    }
    static Status run(NMSParams const& params, RunInputs const& io)
    {
        Expected<NMSScalars> const scalars = nmsScalars(io.required(2), io.optional(3), io.optional(4));
        if (!scalars)
        {
            return scalars.error();
        }
        return runNMS(params, io.required(0), io.required(1), scalars.value(), io.output(0), io.output(1));
    }
};

template <>
struct HostKind<PluginV3Params>
{
    static constexpr char const* kRefusal = HostKind<PluginV2Params>::kRefusal;
};

template <>
struct HostKind<CumulativeParams> : OneOperandKernel<inferCumulative, runCumulative>
{
    static constexpr std::array kInputs{InputRole{"data", true}, InputRole{"axis", true, InputUse::kVALUES}};
    //! Input 1 gives the axis (negative values count from the end).
    static Resolved<CumulativeParams> resolve(CumulativeParams params, LayerInputs const& io)
    {
        Expected<std::optional<int64_t>> const axis = io.scalar(1);
        if (!axis)
        {
            return within("cumulative", axis.error());
        }
        if (!axis.value())
        {
            return std::optional<CumulativeParams>{};
        }
        int64_t const rank = io.desc(0).dims.nbDims;
        int64_t const value = *axis.value();
        if (value < -rank || value >= rank)
        {
            return invalidArgument("cumulative: the axis (input 1) is " + std::to_string(value)
                + "; for an input of rank " + std::to_string(rank) + " it must be in [" + std::to_string(-rank) + ", "
                + std::to_string(rank - 1) + "]");
        }
        params.axis = static_cast<int32_t>(value < 0 ? value + rank : value);
        return std::optional(params);
    }
};

//! A descriptor whose last input role repeats (concatenation).
template <typename Kind>
concept Variadic = Kind::kVariadic;

//! The outputs of a kind: its descriptor's kOutputs, else one.
template <typename Kind>
constexpr std::size_t outputsOf() noexcept
{
    if constexpr (requires { Kind::kOutputs; })
    {
        return Kind::kOutputs;
    }
    else
    {
        return 1;
    }
}

//! A descriptor of a kind whose output 0 has an extent only the kernel knows (a count it writes): the build asks its
//! infer about the types and inputs, not the shape.
template <typename Kind>
concept DataDependent = requires
{
    Kind::kDataDependent;
};

//! A descriptor of a kind the host backend refuses.
template <typename Kind>
concept Refused = requires
{
    Kind::kRefusal;
};

//! params completed by the kind's resolve, or as they are for a kind that reads nothing more.
template <typename P>
Resolved<P> resolve(P const& params, LayerInputs const& io)
{
    if constexpr (requires { HostKind<P>::resolve(params, io); })
    {
        return HostKind<P>::resolve(params, io);
    }
    else
    {
        return std::optional(params);
    }
}

//! Checks the views against the kind's descriptor, completes the parameters (prepareRun), then runs the kernel.
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
        Expected<P> const prepared = prepareRun(params, inputs, outputs);
        if (!prepared)
        {
            return prepared.error();
        }
        return Kind::run(prepared.value(), RunInputs(inputs, Kind::kInputs, outputs));
    }
}

//! Checks the query against the kind's descriptor, completes the parameters, then asks the kernel's infer.
template <typename P>
Expected<std::optional<TensorDesc>> checkKind(P const& params, LayerQuery const& query)
{
    using Kind = HostKind<P>;
    if constexpr (Refused<Kind>)
    {
        return Error{nvinfer1::ErrorCode::kUNSUPPORTED_STATE, Kind::kRefusal};
    }
    else
    {
        QueryInputs const io(query, Kind::kInputs);
        if (std::optional<Error> problem = io.checkArity(
                layerClassName(kLayerTypeOf<P>), Variadic<Kind>, query.outputTypes.size(), outputsOf<Kind>()))
        {
            return *std::move(problem);
        }
        Resolved<P> const resolved = resolve(params, io);
        if (!resolved)
        {
            return resolved.error();
        }
        if (!resolved.value())
        {
            return std::optional<TensorDesc>{};
        }
        Expected<TensorDesc> const made = Kind::infer(*resolved.value(), io);
        if (!made)
        {
            return made.error();
        }
        if constexpr (DataDependent<Kind>)
        {
            return std::optional<TensorDesc>{};
        }
        else
        {
            return std::optional(made.value());
        }
    }
}

} // namespace

template <typename P>
Expected<P> prepareRun(P const& params, std::span<HostTensor const* const> inputs, std::span<HostTensor const> outputs)
{
    using Kind = HostKind<P>;
    if constexpr (Refused<Kind>)
    {
        return Error{nvinfer1::ErrorCode::kUNSUPPORTED_STATE, "plugin layers run through their plugins"};
    }
    else
    {
        RunInputs const io(inputs, Kind::kInputs, outputs);
        if (std::optional<Error> problem
            = io.checkArity(layerClassName(kLayerTypeOf<P>), Variadic<Kind>, outputs.size(), outputsOf<Kind>()))
        {
            return *std::move(problem);
        }
        Resolved<P> const resolved = resolve(params, io);
        if (!resolved)
        {
            return resolved.error();
        }
        if (!resolved.value())
        {
            return Error{nvinfer1::ErrorCode::kINTERNAL_ERROR, "an input read as values has none at run time"};
        }
        return *resolved.value();
    }
}

#define KILN_PREPARE_RUN(e, Name, tag)                                                                                 \
    template Expected<kiln::Name##Params> prepareRun(                                                                  \
        kiln::Name##Params const&, std::span<HostTensor const* const>, std::span<HostTensor const>);
KILN_LAYER_KINDS(KILN_PREPARE_RUN)
#undef KILN_PREPARE_RUN

InputUse inputUse(LayerParams const& params, std::size_t index) noexcept
{
    return std::visit(
        [&](auto const& kind) {
            using Kind = HostKind<std::decay_t<decltype(kind)>>;
            if constexpr (Refused<Kind>)
            {
                return InputUse::kDATA;
            }
            else if constexpr (Kind::kInputs.empty())
            {
                return InputUse::kDATA;
            }
            else
            {
                return Kind::kInputs[std::min(index, Kind::kInputs.size() - 1)].use;
            }
        },
        params);
}

Status runLayerKind(
    LayerParams const& params, std::span<HostTensor const* const> inputs, std::span<HostTensor const> outputs)
{
    return std::visit([&](auto const& kind) { return runKind(kind, inputs, outputs); }, params);
}

Expected<std::optional<TensorDesc>> checkLayerKind(LayerParams const& params, LayerQuery const& query)
{
    return std::visit([&](auto const& kind) { return checkKind(kind, query); }, params);
}

} // namespace kiln::host
