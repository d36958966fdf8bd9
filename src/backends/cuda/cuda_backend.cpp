// SPDX-License-Identifier: Apache-2.0
// The CUDA backend's dispatch: one launch per built-in kind, after host::prepareRun has checked the views and
// completed the parameters exactly as for the host kernels.
#include "backends/cuda/cuda_backend.h"

#include "backends/cuda/kernels.h"
#include "backends/cuda/library_loader.h"
#include "backends/host/if_conditional.h"
#include "backends/host/layer_kinds.h"
#include "backends/host/reformat.h"

#include "core/data_type.h"
#include "core/logging.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <functional>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace kiln::cuda
{
namespace
{

using host::HostTensor;
using nvinfer1::ErrorCode;

//! What body returns, or the error for an exception that escapes it: the entry points are noexcept.
template <typename Body>
auto guarded(Body const& body) noexcept -> decltype(body())
{
    try
    {
        return body();
    }
    catch (std::bad_alloc const&)
    {
        return Error{ErrorCode::kFAILED_ALLOCATION, "the CUDA backend ran out of host memory"};
    }
    catch (std::exception const& e)
    {
        return Error{ErrorCode::kINTERNAL_ERROR, std::string("the CUDA backend failed: ") + e.what()};
    }
}

//! The bytes of count elements of type.
int64_t bytesOf(DataType type, int64_t count)
{
    return storageBytes(type, count);
}

class CudaBackend final : public Backend
{
public:
    explicit CudaBackend(std::shared_ptr<DeviceWeights const> weights)
        : mWeights(std::move(weights))
    {
    }

    PlanBackend kind() const noexcept override { return PlanBackend::kCUDA; }

    void finishRun(cudaStream_t stream) noexcept override { mLibraries.finishRun(stream); }

    Expected<std::optional<host::TensorDesc>> checkLayer(
        LayerParams const& params, LayerQuery const& query) const noexcept override
    {
        return guarded([&]() -> Expected<std::optional<host::TensorDesc>> {
            if (params.valueless_by_exception())
            {
                return Error{ErrorCode::kINVALID_ARGUMENT, "the layer has no parameters"};
            }
            return host::checkLayerKind(params, query);
        });
    }

    host::Status runLayer(LayerRecord const& layer, EngineModel const& model, std::span<HostTensor const* const> inputs,
        std::span<HostTensor const> outputs, cudaStream_t stream) noexcept override
    {
        return guarded([&]() -> host::Status {
            if (mWeights == nullptr)
            {
                return Error{ErrorCode::kINVALID_STATE, "this CUDA backend only checks layers (it has no weights)"};
            }
            if (layer.params.valueless_by_exception() || inputs.size() != layer.inputs.size()
                || outputs.size() != layer.outputs.size())
            {
                return Error{ErrorCode::kINVALID_ARGUMENT, "the layer's views do not match its record"};
            }
            Launch const launch{stream, &mLibraries, layer.tactic};
            if (layer.fused)
            {
                return runFused(*layer.fused, inputs, outputs, launch);
            }
            if (!layer.pointwise.empty())
            {
                if (outputs.size() != 1)
                {
                    return Error{ErrorCode::kINVALID_ARGUMENT, "a fused point-wise layer has one output"};
                }
                return runPointwiseProgram(layer.pointwise, inputs, outputs.front(), launch);
            }
            return std::visit(
                [&](auto const& params) -> host::Status {
                    using P = std::decay_t<decltype(params)>;
                    if constexpr (std::is_same_v<P, PluginV2Params> || std::is_same_v<P, PluginV3Params>)
                    {
                        return Error{ErrorCode::kINTERNAL_ERROR, "plugin layers run through their plugins"};
                    }
                    else
                    {
                        // A matrix multiply's fused bias and residual, and a convolution's fused residual
                        // (builder/fusion.h), are inputs their kind does not list.
                        auto const listed = inputs.first(listedInputs<P>(inputs.size()));
                        Expected<P> const prepared = host::prepareRun(params, listed, outputs);
                        if (!prepared)
                        {
                            return prepared.error();
                        }
                        if constexpr (std::is_same_v<P, TopKParams>)
                        {
                            // Two outputs: the values and the indices (prepareRun checked that there are two).
                            return runTopK(prepared.value(), *inputs[0], outputs[0], outputs[1], launch);
                        }
                        else if constexpr (std::is_same_v<P, NonZeroParams>)
                        {
                            // Two outputs: the indices and the count.
                            return runNonZero(prepared.value(), *inputs[0], outputs[0], outputs[1], launch);
                        }
                        else if constexpr (std::is_same_v<P, NMSParams>)
                        {
                            // Inputs 2 to 4 are read on the host (their views are host memory); two outputs: the
                            // selected indices and their number.
                            Expected<host::NMSScalars> const scalars = host::nmsScalars(*inputs[2],
                                inputs.size() > 3 ? inputs[3] : nullptr, inputs.size() > 4 ? inputs[4] : nullptr);
                            if (!scalars)
                            {
                                return scalars.error();
                            }
                            return runNMS(prepared.value(), *inputs[0], *inputs[1], scalars.value(), outputs[0],
                                outputs[1], launch);
                        }
                        else if constexpr (std::is_same_v<P, TripLimitParams>)
                        {
                            return Error{ErrorCode::kINTERNAL_ERROR, "the executor reads a loop's trip limits"};
                        }
                        else
                        {
                            return run(prepared.value(), layer, model, inputs, outputs.front(), launch);
                        }
                    }
                },
                layer.params);
        });
    }

    using Inputs = std::span<HostTensor const* const>;

    //! A fused kernel (FusedKernel): its inputs as LayerRecord::fused lists them.
    static host::Status runFused(
        FusedKernel const& fused, Inputs inputs, std::span<HostTensor const> outputs, Launch const& launch)
    {
        if (outputs.size() != 1)
        {
            return Error{ErrorCode::kINVALID_ARGUMENT, "a fused kernel has one output"};
        }
        switch (fused.kind)
        {
        case FusedKernel::Kind::kLAYER_NORM:
            if (inputs.empty() || inputs.size() > 3)
            {
                return Error{ErrorCode::kINVALID_ARGUMENT, "a fused layer norm takes 1 to 3 inputs"};
            }
            return runLayerNorm(fused.epsilon, *inputs[0], inputs.size() > 1 ? inputs[1] : nullptr,
                inputs.size() > 2 ? inputs[2] : nullptr, outputs.front(), launch);
        case FusedKernel::Kind::kATTENTION:
            if (fused.packedQkv)
            {
                return runPackedAttention(fused, inputs, outputs.front(), launch);
            }
            if (inputs.size() != 3 && inputs.size() != 4)
            {
                return Error{ErrorCode::kINVALID_ARGUMENT, "a fused attention takes 3 or 4 inputs (q, k, v, mask)"};
            }
            return runAttention(fused, *inputs[0], *inputs[1], *inputs[2], inputs.size() > 3 ? inputs[3] : nullptr,
                outputs.front(), launch);
        case FusedKernel::Kind::kEMBEDDING: return runEmbedding(fused, inputs, outputs.front(), launch);
        }
        return Error{ErrorCode::kINVALID_ARGUMENT, "a fused kernel of a kind kiln does not know"};
    }

    //! A fused attention whose input 0 holds q, k and v side by side ([B, S, 3 * heads * D]): three views of it.
    static host::Status runPackedAttention(
        FusedKernel const& fused, Inputs inputs, HostTensor const& out, Launch const& launch)
    {
        if (inputs.empty() || inputs.size() > 2 || inputs[0]->dims.nbDims != 3 || inputs[0]->dims.d[2] % 3 != 0)
        {
            return Error{ErrorCode::kINVALID_ARGUMENT,
                "a fused attention of packed q, k and v takes [B, S, 3 * heads * D], then optionally the mask"};
        }
        HostTensor const& packed = *inputs[0];
        int64_t const width = packed.dims.d[2] / 3;
        std::array<HostTensor, 3> views{packed, packed, packed};
        for (std::size_t i = 0; i < views.size(); ++i)
        {
            views[i].dims.d[2] = width;
            views[i].data = static_cast<std::byte*>(packed.data)
                + static_cast<int64_t>(i) * width * static_cast<int64_t>(dataTypeBits(packed.type) / 8);
        }
        return runAttention(fused, views[0], views[1], views[2], inputs.size() > 1 ? inputs[1] : nullptr, out, launch,
            packed.dims.d[2]);
    }

    void const* constantData(LayerRecord const& layer, EngineModel const& model) const noexcept override
    {
        auto const* constant = std::get_if<ConstantParams>(&layer.params);
        if (mWeights == nullptr || constant == nullptr || constant->weights.count == 0 || layer.outputs.size() != 1)
        {
            return nullptr;
        }
        TensorRecord const& out = model.tensors[static_cast<std::size_t>(layer.outputs[0])];
        // Packed types and scaled ones are converted on the way: they run.
        bool const plain = constant->weights.type == out.type && out.format == nvinfer1::TensorFormat::kLINEAR
            && out.scale == 1.F && dataTypeBits(out.type) % 8 == 0;
        return plain ? mWeights->find(constant->weights.values) : nullptr;
    }

    //! The names of the variants of layer's kernel for these views (TacticNames; one empty name for kinds without
    //! variants).
    Expected<std::vector<std::string>> tacticNames(
        LayerRecord const& layer, EngineModel const& model, Inputs inputs, HostTensor const& output)
    {
        if (auto const* conv = std::get_if<ConvolutionParams>(&layer.params))
        {
            Expected<ConvolutionParams> const prepared = host::prepareRun(*conv,
                inputs.first(listedInputs<ConvolutionParams>(inputs.size())), std::span<HostTensor const>(&output, 1));
            if (!prepared)
            {
                return prepared.error();
            }
            ConvolutionLayout const layout = convolutionLayout(*conv, layer, model);
            auto const operands = convolutionOperands(prepared.value(), inputs, layout);
            if (!operands)
            {
                return operands.error();
            }
            HostTensor const* bias = operands.value().bias ? &*operands.value().bias : nullptr;
            return copied(convolutionTacticNames(
                prepared.value(), *inputs[0], bias, output, epilogueOf(layer), mLibraries, layout, residualOf(inputs)));
        }
        if (auto const* deconv = std::get_if<DeconvolutionParams>(&layer.params))
        {
            Expected<DeconvolutionParams> const prepared
                = host::prepareRun(*deconv, inputs, std::span<HostTensor const>(&output, 1));
            if (!prepared)
            {
                return prepared.error();
            }
            return copied(deconvolutionTacticNames(prepared.value(), *inputs[0], mLibraries));
        }
        if (auto const* matrix = std::get_if<MatrixMultiplyParams>(&layer.params))
        {
            return copied(matrixMultiplyTacticNames(
                *matrix, *inputs[0], *inputs[1], matmulEpilogueOf(layer, inputs), output, mLibraries));
        }
        return std::vector<std::string>(1);
    }

private:
    static std::vector<std::string> copied(TacticNames names) { return {names.begin(), names.end()}; }

    //! The device view of weights of the given shape.
    Expected<HostTensor> deviceWeights(Weights const& weights, Dims const& dims, char const* what) const
    {
        void const* data = mWeights->find(weights.values);
        if (data == nullptr)
        {
            return Error{ErrorCode::kINTERNAL_ERROR, std::string("the ") + what + " weights are not on the device"};
        }
        return HostTensor{const_cast<void*>(data), weights.type, dims, 1.0F};
    }

    host::Status copy(HostTensor const& in, HostTensor const& out, Launch const& launch) const
    {
        int64_t const bytes = bytesOf(in.type, host::elementCount(in.dims));
        if (bytes > 0 && in.data != out.data)
        {
            cudaError_t const status = cudaMemcpyAsync(
                out.data, in.data, static_cast<size_t>(bytes), cudaMemcpyDeviceToDevice, launch.stream);
            if (status != cudaSuccess)
            {
                return cudaFailure(status, "cudaMemcpyAsync");
            }
        }
        return host::Done{};
    }

    //! A convolution's or deconvolution's kernel and bias as device views: its weights, or its inputs 1 and 2.
    struct FilterOperands
    {
        HostTensor kernel;
        std::optional<HostTensor> bias;
    };
    //! kernel and bias are the layer's weights, kernelDims the kernel's shape, what the kind ("convolution").
    Expected<FilterOperands> filterOperands(
        Weights const& kernel, Weights const& bias, Dims const& kernelDims, Inputs in, char const* what) const
    {
        FilterOperands operands;
        if (kernel.count > 0)
        {
            auto made = deviceWeights(kernel, kernelDims, (std::string(what) + " kernel").c_str());
            if (!made)
            {
                return made.error();
            }
            operands.kernel = made.value();
        }
        else if (in.size() > 1 && in[1] != nullptr)
        {
            operands.kernel = *in[1];
        }
        else
        {
            return Error{ErrorCode::kINVALID_ARGUMENT, std::string("the ") + what + " has no kernel"};
        }
        if (bias.count > 0)
        {
            auto made = deviceWeights(bias, Dims{1, {bias.count}}, (std::string(what) + " bias").c_str());
            if (!made)
            {
                return made.error();
            }
            operands.bias = made.value();
        }
        else if (in.size() > 2 && in[2] != nullptr)
        {
            operands.bias = *in[2];
        }
        return operands;
    }
    //! The shape of a filter [outer, inner, kernelSize...] (extents of a missing channel axis are 0).
    static Dims filterDims(int64_t outer, int64_t inner, Dims const& kernelSize)
    {
        Dims dims{2 + kernelSize.nbDims, {outer, inner}};
        for (int32_t j = 0; j < kernelSize.nbDims; ++j)
        {
            dims.d[2 + j] = kernelSize.d[j];
        }
        return dims;
    }
    //! A convolution's kernel is [K, C / groups, spatial...]; a channels-last kernel (layout) has as many channels as
    //! its input's format stores (kHWC8 pads 3 channels to 8: builder/layout.h).
    Expected<FilterOperands> convolutionOperands(
        ConvolutionParams const& params, Inputs in, ConvolutionLayout const& layout) const
    {
        HostTensor const& data = *in[0];
        int64_t channels = data.dims.nbDims > 1 ? data.dims.d[1] : 0;
        if (layout.kernelChannelsLast)
        {
            Expected<host::FormatLayout> const stored = host::formatLayout(layout.input, data.type, data.dims);
            if (!stored)
            {
                return stored.error();
            }
            channels = stored.value().paddedChannels;
        }
        int64_t const perGroup = params.nbGroups > 0 ? channels / params.nbGroups : 0;
        return filterOperands(params.kernel, params.bias, filterDims(params.nbOutputMaps, perGroup, params.kernelSize),
            in, "convolution");
    }
    //! A deconvolution's kernel is [C, K / groups, spatial...].
    Expected<FilterOperands> deconvolutionOperands(DeconvolutionParams const& params, Inputs in) const
    {
        HostTensor const& data = *in[0];
        int64_t const channels = data.dims.nbDims > 1 ? data.dims.d[1] : 0;
        int64_t const perGroup = params.nbGroups > 0 ? params.nbOutputMaps / params.nbGroups : 0;
        return filterOperands(
            params.kernel, params.bias, filterDims(channels, perGroup, params.kernelSize), in, "deconvolution");
    }

    //! The format of tensor in model (kLINEAR for an index outside it).
    static nvinfer1::TensorFormat formatOf(EngineModel const& model, int32_t tensor)
    {
        return tensor >= 0 && static_cast<std::size_t>(tensor) < model.tensors.size()
            ? model.tensors[static_cast<std::size_t>(tensor)].format
            : nvinfer1::TensorFormat::kLINEAR;
    }

    //! How a convolution layer's tensors lie in memory (builder/layout.h): their formats in the plan, and its kernel
    //! weights KRSC when they are channels-last (a kernel tensor, input 1, is KCRS).
    static ConvolutionLayout convolutionLayout(
        ConvolutionParams const& params, LayerRecord const& layer, EngineModel const& model)
    {
        ConvolutionLayout layout{formatOf(model, layer.inputs[0]), formatOf(model, layer.outputs[0]), false};
        layout.kernelChannelsLast = layout.input != nvinfer1::TensorFormat::kLINEAR && params.kernel.count > 0;
        if (layer.inputs.size() > kConvolutionResidualInput)
        {
            layout.residual = formatOf(model, layer.inputs[kConvolutionResidualInput]);
        }
        return layout;
    }

    //! A convolution's fused residual (input kConvolutionResidualInput), or null.
    static HostTensor const* residualOf(Inputs in)
    {
        return in.size() > kConvolutionResidualInput ? in[kConvolutionResidualInput] : nullptr;
    }

    //! How many of a layer's inputs its kind lists: a matrix multiply's fused bias and residual (inputs 2 and 3) and a
    //! convolution's fused residual (input kConvolutionResidualInput) come after them.
    template <typename P>
    static std::size_t listedInputs(std::size_t nbInputs)
    {
        if constexpr (std::is_same_v<P, MatrixMultiplyParams>)
        {
            return std::min<std::size_t>(nbInputs, 2);
        }
        else if constexpr (std::is_same_v<P, ConvolutionParams>)
        {
            return std::min(nbInputs, kConvolutionResidualInput);
        }
        else
        {
            return nbInputs;
        }
    }

    static ActivationParams const* epilogueOf(LayerRecord const& layer)
    {
        return layer.epilogue ? &*layer.epilogue : nullptr;
    }

    //! A matrix multiply's fusions (LayerRecord): its inputs 2 (bias) and 3 (residual), scale and activation.
    static MatmulEpilogue matmulEpilogueOf(LayerRecord const& layer, Inputs in)
    {
        return {in.size() > 2 ? in[2] : nullptr, in.size() > 3 ? in[3] : nullptr, layer.scale, epilogueOf(layer)};
    }

    host::Status run(ConvolutionParams const& params, LayerRecord const& layer, EngineModel const& model, Inputs in,
        HostTensor const& out, Launch const& launch)
    {
        ConvolutionLayout const layout = convolutionLayout(params, layer, model);
        auto const operands = convolutionOperands(params, in, layout);
        if (!operands)
        {
            return operands.error();
        }
        HostTensor const* bias = operands.value().bias ? &*operands.value().bias : nullptr;
        // The variant the builder chose, found by its name among those cuDNN lists here (plan/engine_model.h).
        Launch chosen = launch;
        HostTensor const* residual = residualOf(in);
        chosen.tactic = chosenTactic(
            layer, convolutionTacticNames(params, *in[0], bias, out, epilogueOf(layer), mLibraries, layout, residual));
        return runConvolution(
            params, *in[0], operands.value().kernel, bias, epilogueOf(layer), out, chosen, layout, residual);
    }
    host::Status run(DeconvolutionParams const& params, LayerRecord const& layer, EngineModel const&, Inputs in,
        HostTensor const& out, Launch const& launch)
    {
        auto const operands = deconvolutionOperands(params, in);
        if (!operands)
        {
            return operands.error();
        }
        HostTensor const* bias = operands.value().bias ? &*operands.value().bias : nullptr;
        Launch chosen = launch; // As for convolutions.
        chosen.tactic = chosenTactic(layer, deconvolutionTacticNames(params, *in[0], mLibraries));
        return runDeconvolution(params, *in[0], operands.value().kernel, bias, out, chosen);
    }
    host::Status run(CastParams const&, LayerRecord const&, EngineModel const&, Inputs in, HostTensor const& out,
        Launch const& launch)
    {
        return runCast(*in[0], out, launch);
    }
    host::Status run(ActivationParams const& params, LayerRecord const&, EngineModel const&, Inputs in,
        HostTensor const& out, Launch const& launch)
    {
        return runActivation(params, *in[0], out, launch);
    }
    //! A pooling of a channels-last chain (builder/layout.h) reads and writes one channels-last format.
    host::Status run(PoolingParams const& params, LayerRecord const& layer, EngineModel const& model, Inputs in,
        HostTensor const& out, Launch const& launch)
    {
        nvinfer1::TensorFormat const format = formatOf(model, layer.inputs[0]);
        if (formatOf(model, layer.outputs[0]) != format)
        {
            return Error{ErrorCode::kINVALID_ARGUMENT,
                std::string("pooling: the input is in ") + host::formatName(format) + " but the output in "
                    + host::formatName(formatOf(model, layer.outputs[0])) + "; they must share one format"};
        }
        return runPooling(params, *in[0], out, launch, format);
    }
    host::Status run(SoftMaxParams const& params, LayerRecord const&, EngineModel const&, Inputs in,
        HostTensor const& out, Launch const& launch)
    {
        return runSoftMax(params, *in[0], out, launch);
    }
    host::Status run(ConcatenationParams const& params, LayerRecord const&, EngineModel const&, Inputs in,
        HostTensor const& out, Launch const& launch)
    {
        std::vector<HostTensor> views;
        views.reserve(in.size());
        for (HostTensor const* input : in)
        {
            views.push_back(*input);
        }
        return runConcatenation(params, views, out, launch);
    }
    host::Status run(ElementWiseParams const& params, LayerRecord const&, EngineModel const&, Inputs in,
        HostTensor const& out, Launch const& launch)
    {
        return runElementWise(params, *in[0], *in[1], out, launch);
    }
    host::Status run(UnaryParams const& params, LayerRecord const&, EngineModel const&, Inputs in,
        HostTensor const& out, Launch const& launch)
    {
        return runUnary(params, *in[0], out, launch);
    }
    host::Status run(ShuffleParams const& params, LayerRecord const&, EngineModel const&, Inputs in,
        HostTensor const& out, Launch const& launch)
    {
        return runShuffle(params, *in[0], out, launch);
    }
    host::Status run(ReduceParams const& params, LayerRecord const&, EngineModel const&, Inputs in,
        HostTensor const& out, Launch const& launch)
    {
        return runReduce(params, *in[0], out, launch);
    }
    host::Status run(GatherParams const& params, LayerRecord const&, EngineModel const&, Inputs in,
        HostTensor const& out, Launch const& launch)
    {
        return runGather(params, *in[0], *in[1], out, launch);
    }
    host::Status run(MatrixMultiplyParams const& params, LayerRecord const& layer, EngineModel const&, Inputs in,
        HostTensor const& out, Launch const& launch)
    {
        MatmulEpilogue const epilogue = matmulEpilogueOf(layer, in);
        // As for convolutions: cuBLASLt's list depends on the shapes and on the pointers' alignment.
        Launch chosen = launch;
        chosen.tactic
            = chosenTactic(layer, matrixMultiplyTacticNames(params, *in[0], *in[1], epilogue, out, mLibraries));
        return runMatrixMultiply(params, *in[0], *in[1], epilogue, out, chosen);
    }
    host::Status run(ConstantParams const& params, LayerRecord const&, EngineModel const&, Inputs,
        HostTensor const& out, Launch const& launch)
    {
        if (params.weights.count == 0)
        {
            return host::Done{};
        }
        auto const weights = deviceWeights(params.weights, out.dims, "constant");
        if (!weights)
        {
            return weights.error();
        }
        return copy(weights.value(), out, launch);
    }
    //! A copy; a cast when the type or scale differs; a reformat when the formats differ.
    host::Status run(IdentityParams const&, LayerRecord const& layer, EngineModel const& model, Inputs in,
        HostTensor const& out, Launch const& launch)
    {
        auto const formatOf = [&](int32_t tensor) {
            return tensor >= 0 && static_cast<std::size_t>(tensor) < model.tensors.size()
                ? model.tensors[static_cast<std::size_t>(tensor)].format
                : nvinfer1::TensorFormat::kLINEAR;
        };
        nvinfer1::TensorFormat const from = formatOf(layer.inputs[0]);
        nvinfer1::TensorFormat const to = formatOf(layer.outputs[0]);
        if (from != to)
        {
            return runReformat(*in[0], from, out, to, launch);
        }
        HostTensor const& input = *in[0];
        bool const sameScale = !host::contains(host::kScaledTypes, input.type) || input.scale == out.scale;
        if (input.type != out.type || !sameScale)
        {
            return runCast(input, out, launch);
        }
        if (!host::sameShape(input.dims, out.dims))
        {
            return Error{ErrorCode::kINVALID_ARGUMENT,
                "identity: the output has shape " + host::shapeString(out.dims) + " but the input has "
                    + host::shapeString(input.dims)};
        }
        return copy(input, out, launch);
    }
    //! An if-conditional's condition and input layers copy (the condition layer runs on the host in practice: only the
    //! host reads its output).
    host::Status run(ConditionParams const&, LayerRecord const&, EngineModel const&, Inputs in, HostTensor const& out,
        Launch const& launch)
    {
        return copy(*in[0], out, launch);
    }
    host::Status run(IfConditionalInputParams const&, LayerRecord const&, EngineModel const&, Inputs in,
        HostTensor const& out, Launch const& launch)
    {
        return copy(*in[0], out, launch);
    }
    //! An if-conditional's output: a copy of the chosen branch's value; the condition (input 2) is a host view.
    host::Status run(IfConditionalOutputParams const&, LayerRecord const&, EngineModel const&, Inputs in,
        HostTensor const& out, Launch const& launch)
    {
        HostTensor const& chosen = *in[host::conditionalBranch(*in[2]) ? 0 : 1];
        if (!host::sameShape(chosen.dims, out.dims))
        {
            return Error{ErrorCode::kINVALID_ARGUMENT,
                "conditional output: the output has shape " + host::shapeString(out.dims)
                    + " but the chosen branch's value has " + host::shapeString(chosen.dims)};
        }
        return copy(chosen, out, launch);
    }
    //! A loop's boundary layers run in the executor (with the slice, copy and shuffle kernels).
    template <typename P>
    requires std::is_same_v<P, TripLimitParams> || std::is_same_v<P, RecurrenceParams> || std::is_same_v<P,
        IteratorParams> || std::is_same_v<P, LoopOutputParams>
        host::Status run(P const&, LayerRecord const&, EngineModel const&, Inputs, HostTensor const&, Launch const&)
    {
        return Error{ErrorCode::kINTERNAL_ERROR, "the executor runs a loop's boundary layers"};
    }
    host::Status run(SliceParams const& params, LayerRecord const&, EngineModel const&, Inputs in,
        HostTensor const& out, Launch const& launch)
    {
        return runSlice(params, *in[0], in.size() > 4 ? in[4] : nullptr, out, launch);
    }
    host::Status run(
        ShapeParams const&, LayerRecord const&, EngineModel const&, Inputs, HostTensor const&, Launch const&)
    {
        return Error{ErrorCode::kINTERNAL_ERROR, "shape layers run on the host in a CUDA engine"};
    }
    host::Status run(ResizeParams const& params, LayerRecord const&, EngineModel const&, Inputs in,
        HostTensor const& out, Launch const& launch)
    {
        return runResize(params, *in[0], out, launch);
    }
    host::Status run(CumulativeParams const& params, LayerRecord const&, EngineModel const&, Inputs in,
        HostTensor const& out, Launch const& launch)
    {
        return runCumulative(params, *in[0], out, launch);
    }
    host::Status run(SelectParams const&, LayerRecord const&, EngineModel const&, Inputs in, HostTensor const& out,
        Launch const& launch)
    {
        return runSelect(*in[0], *in[1], *in[2], out, launch);
    }
    host::Status run(FillParams const& params, LayerRecord const&, EngineModel const&, Inputs in, HostTensor const& out,
        Launch const& launch)
    {
        return runFill(params, out, in.size() > 1 ? in[1] : nullptr, in.size() > 2 ? in[2] : nullptr, launch);
    }

    host::Status run(ScatterParams const& params, LayerRecord const&, EngineModel const&, Inputs in,
        HostTensor const& out, Launch const& launch)
    {
        return runScatter(params, *in[0], *in[1], *in[2], out, launch);
    }
    host::Status run(EinsumParams const& params, LayerRecord const&, EngineModel const&, Inputs in,
        HostTensor const& out, Launch const& launch)
    {
        std::vector<HostTensor> views;
        views.reserve(in.size());
        for (HostTensor const* input : in)
        {
            views.push_back(*input);
        }
        return runEinsum(params, views, out, launch);
    }
    host::Status run(GridSampleParams const& params, LayerRecord const&, EngineModel const&, Inputs in,
        HostTensor const& out, Launch const& launch)
    {
        return runGridSample(params, *in[0], *in[1], out, launch);
    }
    host::Status run(ReverseSequenceParams const& params, LayerRecord const&, EngineModel const&, Inputs in,
        HostTensor const& out, Launch const& launch)
    {
        return runReverseSequence(params, *in[0], *in[1], out, launch);
    }
    host::Status run(QuantizeParams const& params, LayerRecord const&, EngineModel const&, Inputs in,
        HostTensor const& out, Launch const& launch)
    {
        return runQuantize(params, *in[0], *in[1], in.size() > 2 ? in[2] : nullptr, out, launch);
    }
    host::Status run(DequantizeParams const& params, LayerRecord const&, EngineModel const&, Inputs in,
        HostTensor const& out, Launch const& launch)
    {
        return runDequantize(params, *in[0], *in[1], in.size() > 2 ? in[2] : nullptr, out, launch);
    }

    std::shared_ptr<DeviceWeights const> mWeights;
    Libraries mLibraries;
};

} // namespace

bool gpuUsable() noexcept
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess)
    {
        static_cast<void>(cudaGetLastError());
        return false;
    }
    return count > 0;
}

std::optional<Error> loadBackendLibraries()
{
    if (std::optional<Error> missing = loadLibrary(GpuLibrary::kCUDNN))
    {
        return missing;
    }
    return loadLibrary(GpuLibrary::kCUBLAS_LT);
}

bool cudaBackendAvailable()
{
    return gpuUsable() && !loadBackendLibraries();
}

Expected<std::shared_ptr<DeviceWeights const>> DeviceWeights::upload(EngineModel const& model)
{
    std::shared_ptr<DeviceWeights> weights(new DeviceWeights());
    constexpr int64_t kAlign = 256;
    int64_t total = 0;
    for (WeightsBlob const& blob : model.weights)
    {
        total += (static_cast<int64_t>(blob.view().size()) + kAlign - 1) / kAlign * kAlign;
    }
    if (total == 0)
    {
        return std::shared_ptr<DeviceWeights const>(std::move(weights));
    }
    if (cudaError_t const status = cudaMalloc(&weights->mBlock, static_cast<size_t>(total)); status != cudaSuccess)
    {
        static_cast<void>(cudaGetLastError());
        return Error{ErrorCode::kFAILED_ALLOCATION,
            "cannot allocate " + std::to_string(total)
                + " bytes of device memory for the engine's weights: " + cudaGetErrorString(status)};
    }
    weights->mBytes = total;
    auto* cursor = static_cast<std::byte*>(weights->mBlock);
    for (WeightsBlob const& blob : model.weights)
    {
        std::span<uint8_t const> const bytes = blob.view(); // owned, or the network's while a build times tactics
        if (bytes.empty())
        {
            continue;
        }
        if (cudaError_t const status = cudaMemcpy(cursor, bytes.data(), bytes.size(), cudaMemcpyHostToDevice);
            status != cudaSuccess)
        {
            return cudaFailure(status, "copying the engine's weights to the device");
        }
        weights->mBlobs.emplace(
            reinterpret_cast<std::byte const*>(bytes.data()), std::pair{static_cast<int64_t>(bytes.size()), cursor});
        cursor += (static_cast<int64_t>(bytes.size()) + kAlign - 1) / kAlign * kAlign;
    }
    return std::shared_ptr<DeviceWeights const>(std::move(weights));
}

DeviceWeights::~DeviceWeights()
{
    if (mBlock != nullptr)
    {
        static_cast<void>(cudaFree(mBlock));
    }
}

std::optional<Error> DeviceWeights::refresh(WeightsBlob const& blob, cudaStream_t stream) const
{
    std::span<uint8_t const> const bytes = blob.view();
    if (bytes.empty())
    {
        return std::nullopt;
    }
    auto const found = mBlobs.find(reinterpret_cast<std::byte const*>(bytes.data()));
    if (found == mBlobs.end() || found->second.first != static_cast<int64_t>(bytes.size()))
    {
        return Error{ErrorCode::kINTERNAL_ERROR,
            "a weights blob of " + std::to_string(bytes.size()) + " bytes has no copy on the device to refit"};
    }
    // From pageable memory the copy has read the host bytes when the call returns, so they may change afterwards.
    if (cudaError_t const status
        = cudaMemcpyAsync(found->second.second, bytes.data(), bytes.size(), cudaMemcpyHostToDevice, stream);
        status != cudaSuccess)
    {
        return cudaFailure(status, "copying refitted weights to the device");
    }
    return std::nullopt;
}

void const* DeviceWeights::find(void const* hostValues) const noexcept
{
    auto const* address = static_cast<std::byte const*>(hostValues);
    auto it = mBlobs.upper_bound(address);
    if (it == mBlobs.begin())
    {
        return nullptr;
    }
    --it;
    int64_t const offset = address - it->first;
    return offset < it->second.first ? it->second.second + offset : nullptr;
}

namespace
{

//! Zeroed device memory, freed on destruction.
class ScratchBuffer
{
public:
    explicit ScratchBuffer(int64_t bytes)
    {
        if (cudaMalloc(&mData, static_cast<size_t>(std::max<int64_t>(bytes, 1))) != cudaSuccess
            || cudaMemset(mData, 0, static_cast<size_t>(std::max<int64_t>(bytes, 1))) != cudaSuccess)
        {
            static_cast<void>(cudaGetLastError());
            mData = nullptr;
        }
    }
    ~ScratchBuffer()
    {
        if (mData != nullptr)
        {
            static_cast<void>(cudaFree(mData));
        }
    }
    ScratchBuffer(ScratchBuffer const&) = delete;
    ScratchBuffer& operator=(ScratchBuffer const&) = delete;
    void* data() const noexcept { return mData; }

private:
    void* mData{};
};

//! Writes count values in [-1, 1) (a hash of seed and the index) into device tensor t; for kINT8 and kFP8, values in
//! [-100, 100) times t's scale, so that the quantized values vary as much. False when the copy fails.
bool fillForTiming(HostTensor const& t, int64_t count, uint32_t seed)
{
    std::vector<std::byte> values(static_cast<std::size_t>(bytesOf(t.type, count)));
    HostTensor const staged{values.data(), t.type, t.dims, t.scale};
    bool const quantized = t.type == DataType::kINT8 || t.type == DataType::kFP8;
    double const range = quantized ? 100.0 * t.scale : 1.0;
    for (int64_t i = 0; i < count; ++i)
    {
        uint32_t h = seed * 0x9E3779B9U + static_cast<uint32_t>(i);
        h = (h ^ (h >> 16)) * 0x7FEB352DU;
        h = (h ^ (h >> 15)) * 0x846CA68BU;
        h ^= h >> 16;
        host::storeFloat(staged, i, (static_cast<double>(h >> 8) * 0x1p-23 - 1.0) * range);
    }
    if (cudaMemcpy(t.data, values.data(), values.size(), cudaMemcpyHostToDevice) != cudaSuccess)
    {
        static_cast<void>(cudaGetLastError());
        return false;
    }
    return true;
}

//! Milliseconds of the best of three timed batches of runs of layer, each batch launched by launchBatch (which
//! enqueues its runs on stream and says whether it could), or nullopt when a batch fails.
template <typename LaunchBatch>
std::optional<float> bestOfThree(cudaStream_t stream, int32_t iterations, LaunchBatch const& launchBatch)
{
    cudaEvent_t start{};
    cudaEvent_t stop{};
    static_cast<void>(cudaEventCreate(&start));
    static_cast<void>(cudaEventCreate(&stop));
    bool ok = true;
    std::optional<float> best;
    for (int32_t batch = 0; ok && batch < 3; ++batch)
    {
        ok = cudaEventRecord(start, stream) == cudaSuccess && launchBatch();
        float milliseconds = 0.F;
        ok = ok && cudaEventRecord(stop, stream) == cudaSuccess && cudaEventSynchronize(stop) == cudaSuccess
            && cudaEventElapsedTime(&milliseconds, start, stop) == cudaSuccess;
        if (ok && (!best || milliseconds < *best))
        {
            best = milliseconds;
        }
    }
    static_cast<void>(cudaEventDestroy(start));
    static_cast<void>(cudaEventDestroy(stop));
    if (!ok || !best)
    {
        static_cast<void>(cudaGetLastError());
        return std::nullopt;
    }
    return *best / static_cast<float>(iterations);
}

//! A CUDA graph of iterations runs of layer, each run followed by an event record node, so that no run starts before
//! the one before it has finished (a kernel launched for programmatic dependent launch, as cuBLASLt's and some of
//! cuDNN's are on Hopper, otherwise overlaps the next copy of itself, and a kernel on a few multiprocessors looks
//! twice as fast back to back as it runs between other layers) and no host work lies between runs (a cuDNN graph
//! execution costs the host about as long as a small convolution takes on the GPU). Null where a run cannot be
//! captured; the stream is then out of capture and its error cleared.
cudaGraphExec_t latencyGraph(CudaBackend& backend, LayerRecord const& layer, EngineModel const& model,
    std::span<HostTensor const* const> inputs, std::span<HostTensor const> outputs, cudaStream_t stream,
    cudaEvent_t barrier, int32_t iterations)
{
    if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess)
    {
        static_cast<void>(cudaGetLastError());
        return nullptr;
    }
    bool captured = true;
    for (int32_t k = 0; captured && k < iterations; ++k)
    {
        captured = static_cast<bool>(backend.runLayer(layer, model, inputs, outputs, stream))
            && cudaEventRecordWithFlags(barrier, stream, cudaEventRecordExternal) == cudaSuccess;
    }
    cudaGraph_t graph{};
    captured = cudaStreamEndCapture(stream, &graph) == cudaSuccess && captured;
    cudaGraphExec_t exec{};
    captured = captured && cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess;
    if (graph != nullptr)
    {
        static_cast<void>(cudaGraphDestroy(graph));
    }
    if (!captured)
    {
        static_cast<void>(cudaGetLastError());
        return nullptr;
    }
    return exec;
}

//! A tactic's time per run, and how it was taken.
struct TacticTime
{
    float milliseconds{};
    bool latency{}; //!< Each run alone in a CUDA graph (latencyGraph); else the runs back to back.
};

//! The time per run of layer with tactic, or nullopt when the tactic fails: each run's latency on the GPU alone
//! (latencyGraph), or where its runs cannot be captured, their time back to back as the stream takes them.
std::optional<TacticTime> timeTactic(CudaBackend& backend, LayerRecord& layer, int32_t tactic, EngineModel const& model,
    std::span<HostTensor const* const> inputs, HostTensor const& output, cudaStream_t stream, int32_t iterations)
{
    layer.tactic = tactic;
    std::span<HostTensor const> const outputs(&output, 1);
    // Two runs to warm up (the libraries prepare the shape and size their workspace on the first), then the best of
    // three timed batches.
    for (int32_t k = 0; k < 2; ++k)
    {
        if (!backend.runLayer(layer, model, inputs, outputs, stream) || cudaStreamSynchronize(stream) != cudaSuccess)
        {
            static_cast<void>(cudaGetLastError());
            return std::nullopt;
        }
    }
    static bool const latency = [] {
        char const* setting = std::getenv("KILN_TACTIC_LATENCY");
        return setting == nullptr || std::string_view(setting) != "0";
    }();
    cudaEvent_t barrier{};
    cudaGraphExec_t exec = nullptr;
    if (latency && cudaEventCreateWithFlags(&barrier, cudaEventDisableTiming) == cudaSuccess)
    {
        exec = latencyGraph(backend, layer, model, inputs, outputs, stream, barrier, iterations);
    }
    static_cast<void>(cudaGetLastError());
    std::optional<float> milliseconds;
    // The graph's first launch warms it up; where it fails, the runs are timed back to back instead.
    bool const captured = exec != nullptr && cudaGraphLaunch(exec, stream) == cudaSuccess
        && cudaStreamSynchronize(stream) == cudaSuccess;
    if (exec != nullptr)
    {
        milliseconds = captured
            ? bestOfThree(stream, iterations, [&] { return cudaGraphLaunch(exec, stream) == cudaSuccess; })
            : std::nullopt;
        static_cast<void>(cudaGraphExecDestroy(exec));
        static_cast<void>(cudaGetLastError());
    }
    if (!captured)
    {
        milliseconds = bestOfThree(stream, iterations, [&] {
            for (int32_t k = 0; k < iterations; ++k)
            {
                if (!backend.runLayer(layer, model, inputs, outputs, stream))
                {
                    return false;
                }
            }
            return true;
        });
    }
    if (barrier != nullptr)
    {
        static_cast<void>(cudaEventDestroy(barrier));
    }
    static_cast<void>(cudaGetLastError());
    if (!milliseconds)
    {
        return std::nullopt;
    }
    return TacticTime{*milliseconds, captured};
}

} // namespace

std::optional<Error> chooseTactics(EngineModel& model, std::function<std::optional<Dims>(int32_t)> const& optShape,
    int32_t iterations, TacticMemo const* memo)
{
    auto const timed = [](LayerRecord const& layer) {
        return !layer.fused
            && (layer.type == LayerType::kCONVOLUTION || layer.type == LayerType::kDECONVOLUTION
                || layer.type == LayerType::kMATRIX_MULTIPLY);
    };
    if (std::none_of(model.layers.begin(), model.layers.end(), timed))
    {
        return std::nullopt;
    }
    auto weights = DeviceWeights::upload(model);
    if (!weights)
    {
        return weights.error();
    }
    CudaBackend backend(weights.value());
    cudaStream_t stream{};
    if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess)
    {
        static_cast<void>(cudaGetLastError());
        return Error{ErrorCode::kFAILED_INITIALIZATION, "cannot create a CUDA stream to time kernels on"};
    }
    iterations = std::max(iterations, 5);
    std::optional<Error> problem;
    for (LayerRecord& layer : model.layers)
    {
        if (!timed(layer))
        {
            continue;
        }
        // Buffers at the kOPT shapes of the first profile: inputs of values in [-1, 1] (zeros would let the GPU run
        // cooler and clock higher than on real data, flattering the kernels that compute most), the output zeroed.
        // An absent optional input (kNoTensor: a fused residual without a bias tensor) has no view.
        std::vector<std::unique_ptr<ScratchBuffer>> buffers;
        std::vector<HostTensor> views;
        views.reserve(layer.inputs.size() + 1);
        bool shaped = true;
        auto const view = [&](int32_t tensor, bool filled) {
            if (tensor == kNoTensor)
            {
                views.emplace_back();
                return;
            }
            TensorRecord const& record = model.tensors[static_cast<std::size_t>(tensor)];
            std::optional<Dims> const dims = optShape(tensor);
            if (!dims)
            {
                shaped = false;
                return;
            }
            // Elements with the format's padding (a kHWC8 tensor of 3 channels stores 8).
            Expected<host::FormatLayout> const layout = host::formatLayout(record.format, record.type, *dims);
            int64_t const count = layout ? layout.value().paddedCount : host::elementCount(*dims);
            buffers.push_back(std::make_unique<ScratchBuffer>(bytesOf(record.type, count)));
            views.push_back(HostTensor{buffers.back()->data(), record.type, *dims, record.scale});
            shaped = shaped && buffers.back()->data() != nullptr
                && (!filled || fillForTiming(views.back(), count, static_cast<uint32_t>(tensor)));
        };
        for (int32_t input : layer.inputs)
        {
            view(input, true);
        }
        view(layer.outputs.front(), false);
        if (!shaped || views.size() != layer.inputs.size() + 1)
        {
            continue; // A shape known only at run time: the default variant.
        }
        std::vector<HostTensor const*> inputs;
        for (std::size_t i = 0; i + 1 < views.size(); ++i)
        {
            inputs.push_back(layer.inputs[i] == kNoTensor ? nullptr : &views[i]);
        }
        auto const names = backend.tacticNames(layer, model, inputs, views.back());
        int32_t best = 0;
        auto const count = names ? static_cast<int32_t>(names.value().size()) : 0;
        // The problem as the timing cache knows it: a layer whose problem it holds takes the variant recorded there.
        std::optional<std::string> key;
        std::optional<int32_t> remembered;
        if (memo != nullptr && count > 1)
        {
            std::vector<Dims> inputDims;
            for (std::size_t i = 0; i < layer.inputs.size(); ++i)
            {
                inputDims.push_back(layer.inputs[i] == kNoTensor ? Dims{-1, {}} : views[i].dims);
            }
            key = tacticProblemText(layer, model, inputDims, views.back().dims, names.value());
            remembered = memo->lookup(*key, names.value());
            if (!remembered && memo->errorOnMiss)
            {
                problem = Error{ErrorCode::kINVALID_CONFIG,
                    "layer '" + layer.name + "': the timing cache has no choice among its " + std::to_string(count)
                        + " variants, and BuilderFlag::kERROR_ON_TIMING_CACHE_MISS is set"};
                break;
            }
        }
        if (remembered && *remembered >= 0 && *remembered < count)
        {
            best = *remembered;
            log(Severity::kVERBOSE,
                "layer '" + layer.name + "': tactic " + names.value()[static_cast<std::size_t>(best)]
                    + " from the timing cache");
        }
        else if (count > 1)
        {
            // The fastest of the variants timed by their latency; one whose runs could not be captured in a graph
            // (timed back to back, where its runs may overlap) only where no variant could: an engine captured in a
            // graph, by the application or by the executor's replay, needs capturable variants.
            std::optional<TacticTime> fastest;
            layer.tacticName.clear(); // Tactics timed by their index.
            for (int32_t tactic = 0; tactic < count; ++tactic)
            {
                auto const time = timeTactic(backend, layer, tactic, model, inputs, views.back(), stream, iterations);
                log(Severity::kVERBOSE,
                    "layer '" + layer.name + "': tactic " + names.value()[static_cast<std::size_t>(tactic)] + ": "
                        + (time ? std::to_string(time->milliseconds) + " ms"
                                    + (time->latency ? " (latency, in a CUDA graph)" : " (back to back)")
                                : std::string("failed, skipped")));
                bool const better = time
                    && (!fastest || time->latency > fastest->latency
                        || (time->latency == fastest->latency && time->milliseconds < fastest->milliseconds));
                if (better)
                {
                    fastest = time;
                    best = tactic;
                }
            }
            if (key && fastest)
            {
                if (auto refused
                    = memo->record(*key, names.value()[static_cast<std::size_t>(best)], fastest->milliseconds))
                {
                    problem = Error{refused->code, "layer '" + layer.name + "': " + refused->message};
                    break;
                }
            }
        }
        layer.tactic = best;
        layer.tacticName = best < count ? names.value()[static_cast<std::size_t>(best)] : std::string();
        if (count > 1)
        {
            log(Severity::kVERBOSE,
                "layer '" + layer.name + "': chose tactic " + layer.tacticName + " of " + std::to_string(count));
        }
    }
    static_cast<void>(cudaStreamSynchronize(stream));
    static_cast<void>(cudaStreamDestroy(stream));
    return problem;
}

std::unique_ptr<Backend> makeCudaBackend(std::shared_ptr<DeviceWeights const> weights)
{
    return std::make_unique<CudaBackend>(std::move(weights));
}

std::unique_ptr<Backend> makeCudaBuildBackend()
{
    return std::make_unique<CudaBackend>(nullptr);
}

} // namespace kiln::cuda
