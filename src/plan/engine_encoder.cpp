// SPDX-License-Identifier: Apache-2.0
// The plan payload's encoder (schema: engine.fbs): a model into a FlatBuffer, then into the plan envelope. The model
// checks it runs first are plan/model_check.cpp's; what it shares with the decoder is plan/engine_codec_internal.h.
// The weights are copied once: from the model's blobs into the FlatBuffer, which is sized for the whole plan up front
// (no reallocation) and gets the envelope's header pushed in front of the finished payload (FlatBuffers builds
// downwards), so the plan is the encoder's own buffer (encodePlan).
#include "plan/engine_codec.h"

#include "core/data_type.h"
#include "plan/engine_codec_internal.h"
#include "plan/model_check.h"
#include "plan/model_support.h"
#include "plan/refit.h"

#include <algorithm>
#include <array>
#include <memory>
#include <span>

namespace kiln
{
namespace
{

using nvinfer1::ErrorCode;
template <typename T>
using Offset = flatbuffers::Offset<T>;

//! More than the payload of model takes: every table, vector and string with generous room for its vtable,
//! alignment and offsets.
uint64_t payloadBound(EngineModel const& model) noexcept
{
    uint64_t bytes = 4096 + model.name.size() + 40 * model.exprs.size() + 8 * model.ioTensors.size();
    for (SymbolRecord const& symbol : model.symbols)
    {
        bytes += 160 + symbol.name.size();
    }
    for (TensorRecord const& tensor : model.tensors)
    {
        bytes += 320 + tensor.name.size() + 4 * (tensor.shape.size() + (tensor.values ? tensor.values->size() : 0));
    }
    for (LayerRecord const& layer : model.layers)
    {
        bytes += 2048 + layer.name.size() + layer.metadata.size() + 4 * (layer.inputs.size() + layer.outputs.size());
    }
    for (AssertionRecord const& assertion : model.assertions)
    {
        bytes += 128 + assertion.message.size();
    }
    for (ProfileRecord const& profile : model.profiles)
    {
        bytes += 128 + 8 * profile.offsets.size();
        for (ProfileRecord::Input const& input : profile.inputs)
        {
            bytes += 768 + 8 * (input.minValues.size() + input.optValues.size() + input.maxValues.size());
        }
    }
    for (WeightsBlob const& blob : model.weights)
    {
        bytes += 128 + blob.view().size();
    }
    for (PluginLibraryRecord const& library : model.pluginLibraries)
    {
        bytes += 256 + library.name.size() + library.bytes.size();
        for (PluginCreatorRecord const& creator : library.creators)
        {
            bytes += 64 + creator.identity.name.size() + creator.identity.version.size()
                + creator.identity.pluginNamespace.size();
        }
    }
    return bytes;
}

//! Writes a model into a FlatBuffer. The first thing the format cannot hold is kept as the error; writing goes on
//! with a placeholder so that the builder's state stays consistent.
class Encoder
{
public:
    explicit Encoder(EngineModel const& model, PlanWeights weights = PlanWeights::kAS_BUILT)
        : mModel(model)
        , mStrip(weights == PlanWeights::kNOT_REFITTABLE || (weights == PlanWeights::kAS_BUILT && model.refit.strip))
        , mBlobs(model.weights)
        , mBuilder(static_cast<std::size_t>(std::min(payloadBound(model), kMaxPayloadBytes) + kPlanHeaderSize))
    {
    }

    //! The payload; with header, the whole plan file (the envelope's header in front of the payload).
    Expected<flatbuffers::DetachedBuffer> run(bool header);

private:
    void fail(ErrorCode code, std::string message)
    {
        if (!mError)
        {
            mError = Error{code, "cannot write the plan: " + std::move(message)};
        }
    }

    std::string where() const { return layerText(mModel, mLayer); }

    Offset<fb::Dims> dims(Dims const& value, char const* field)
    {
        if (value.nbDims < -1 || value.nbDims > Dims::MAX_DIMS)
        {
            fail(ErrorCode::kINVALID_ARGUMENT,
                cat(where(), ": ", field, " has rank ", value.nbDims, "; ranks are -1 (not set) to ", Dims::MAX_DIMS));
            return fb::CreateDims(mBuilder, 0, mBuilder.CreateVector(value.d, 0));
        }
        auto const rank = static_cast<std::size_t>(std::max(value.nbDims, 0));
        return fb::CreateDims(mBuilder, value.nbDims, mBuilder.CreateVector(value.d, rank));
    }

    Offset<fb::WeightsRef> weights(Weights const& value, char const* field)
    {
        auto const type = static_cast<int32_t>(value.type);
        if (value.count == 0)
        {
            return fb::CreateWeightsRef(mBuilder, type, 0, -1, 0);
        }
        auto const place = value.count > 0 ? mBlobs.find(value) : std::nullopt;
        if (!place)
        {
            fail(ErrorCode::kINVALID_ARGUMENT,
                cat(where(), ": ", field, " (", value.count, " elements of ", dataTypeName(value.type),
                    ") are not inside one of the engine's ", mModel.weights.size(), " weights blobs"));
            return fb::CreateWeightsRef(mBuilder, type, 0, -1, 0);
        }
        return fb::CreateWeightsRef(mBuilder, type, value.count, place->blob, place->offset);
    }

    Offset<flatbuffers::Vector<int32_t>> permutation(nvinfer1::Permutation const& value)
    {
        return mBuilder.CreateVector(value.order, static_cast<std::size_t>(Dims::MAX_DIMS));
    }

    Offset<fb::PluginIdentity> identity(PluginIdentity const& value)
    {
        return fb::CreatePluginIdentity(mBuilder, mBuilder.CreateString(value.name),
            mBuilder.CreateString(value.version), mBuilder.CreateString(value.pluginNamespace));
    }

    Offset<flatbuffers::Vector<int32_t>> types(std::vector<DataType> const& values)
    {
        std::vector<int32_t> raw;
        for (DataType type : values)
        {
            raw.push_back(static_cast<int32_t>(type));
        }
        return mBuilder.CreateVector(raw);
    }

    Offset<fb::PluginPlan> pluginPlan(PluginPlanRecord const& plan)
    {
        std::vector<Offset<fb::PluginField>> fields;
        for (PluginFieldRecord const& field : plan.fields)
        {
            fields.push_back(fb::CreatePluginField(mBuilder, mBuilder.CreateString(field.name),
                static_cast<int32_t>(field.type), field.length, mBuilder.CreateVector(field.data)));
        }
        return fb::CreatePluginPlan(mBuilder, mBuilder.CreateVector(fields), mBuilder.CreateVector(plan.serialized),
            plan.tactic, plan.workspaceBytes, mBuilder.CreateVector(plan.aliasedInputs),
            static_cast<int32_t>(plan.language), plan.aot ? aotKernel(*plan.aot) : 0);
    }

    Offset<fb::AotKernel> aotKernel(AotKernelRecord const& aot)
    {
        std::vector<fb::AotExpr> nodes;
        for (AotExprNode const& node : aot.nodes)
        {
            nodes.emplace_back(static_cast<int32_t>(node.kind), static_cast<int32_t>(node.op), node.input, node.axis,
                node.lhs, node.rhs, node.value);
        }
        auto const* ptx = reinterpret_cast<uint8_t const*>(aot.ptx.data());
        return fb::CreateAotKernel(mBuilder, mBuilder.CreateString(aot.kernelName),
            mBuilder.CreateVector(ptx, aot.ptx.size()), mBuilder.CreateVectorOfStructs(nodes),
            mBuilder.CreateVector(aot.launch.data(), aot.launch.size()), mBuilder.CreateVector(aot.scalars));
    }

    // One writer per layer kind: every field of its parameters.
    Offset<void> params(ConvolutionParams const& p)
    {
        auto const kernelSize = dims(p.kernelSize, "kernelSize");
        auto const stride = dims(p.stride, "stride");
        auto const prePadding = dims(p.prePadding, "prePadding");
        auto const postPadding = dims(p.postPadding, "postPadding");
        auto const dilation = dims(p.dilation, "dilation");
        auto const kernel = weights(p.kernel, "kernel weights");
        auto const bias = weights(p.bias, "bias weights");
        return fb::CreateConvolutionParams(mBuilder, p.nbOutputMaps, kernelSize, stride, prePadding, postPadding,
            dilation, static_cast<int32_t>(p.paddingMode), p.nbGroups, kernel, bias)
            .Union();
    }
    Offset<void> params(DeconvolutionParams const& p)
    {
        auto const kernelSize = dims(p.kernelSize, "kernelSize");
        auto const stride = dims(p.stride, "stride");
        auto const prePadding = dims(p.prePadding, "prePadding");
        auto const postPadding = dims(p.postPadding, "postPadding");
        auto const dilation = dims(p.dilation, "dilation");
        auto const kernel = weights(p.kernel, "kernel weights");
        auto const bias = weights(p.bias, "bias weights");
        return fb::CreateDeconvolutionParams(mBuilder, p.nbOutputMaps, kernelSize, stride, prePadding, postPadding,
            dilation, static_cast<int32_t>(p.paddingMode), p.nbGroups, kernel, bias)
            .Union();
    }
    Offset<void> params(CumulativeParams const& p)
    {
        return fb::CreateCumulativeParams(mBuilder, static_cast<int32_t>(p.op), p.exclusive, p.reverse, p.axis).Union();
    }
    Offset<void> params(CastParams const& p)
    {
        return fb::CreateCastParams(mBuilder, static_cast<int32_t>(p.toType)).Union();
    }
    Offset<void> params(ActivationParams const& p)
    {
        return fb::CreateActivationParams(mBuilder, static_cast<int32_t>(p.type), p.alpha, p.beta).Union();
    }
    Offset<void> params(PoolingParams const& p)
    {
        auto const windowSize = dims(p.windowSize, "windowSize");
        auto const stride = dims(p.stride, "stride");
        auto const prePadding = dims(p.prePadding, "prePadding");
        auto const postPadding = dims(p.postPadding, "postPadding");
        return fb::CreatePoolingParams(mBuilder, static_cast<int32_t>(p.type), windowSize, stride, prePadding,
            postPadding, static_cast<int32_t>(p.paddingMode), p.blendFactor, p.averageCountExcludesPadding)
            .Union();
    }
    Offset<void> params(SoftMaxParams const& p) { return fb::CreateSoftMaxParams(mBuilder, p.axes).Union(); }
    Offset<void> params(ConcatenationParams const& p)
    {
        return fb::CreateConcatenationParams(mBuilder, p.axis).Union();
    }
    Offset<void> params(ElementWiseParams const& p)
    {
        return fb::CreateElementWiseParams(mBuilder, static_cast<int32_t>(p.op)).Union();
    }
    Offset<void> params(UnaryParams const& p)
    {
        return fb::CreateUnaryParams(mBuilder, static_cast<int32_t>(p.op)).Union();
    }
    Offset<void> params(ShuffleParams const& p)
    {
        auto const first = permutation(p.firstTranspose);
        auto const reshape = dims(p.reshape, "reshape");
        auto const second = permutation(p.secondTranspose);
        return fb::CreateShuffleParams(mBuilder, first, reshape, second, p.zeroIsPlaceholder).Union();
    }
    Offset<void> params(ReduceParams const& p)
    {
        return fb::CreateReduceParams(mBuilder, static_cast<int32_t>(p.op), p.axes, p.keepDimensions).Union();
    }
    Offset<void> params(TopKParams const& p)
    {
        return fb::CreateTopKParams(
            mBuilder, static_cast<int32_t>(p.op), p.k, p.axes, static_cast<int32_t>(p.indicesType))
            .Union();
    }
    Offset<void> params(GatherParams const& p)
    {
        return fb::CreateGatherParams(mBuilder, static_cast<int32_t>(p.mode), p.axis, p.nbElementWiseDims).Union();
    }
    Offset<void> params(MatrixMultiplyParams const& p)
    {
        return fb::CreateMatrixMultiplyParams(mBuilder, static_cast<int32_t>(p.ops[0]), static_cast<int32_t>(p.ops[1]))
            .Union();
    }
    Offset<void> params(ConstantParams const& p)
    {
        auto const shape = dims(p.dims, "dims");
        auto const values = weights(p.weights, "weights");
        return fb::CreateConstantParams(mBuilder, shape, values).Union();
    }
    Offset<void> params(IdentityParams const&) { return fb::CreateIdentityParams(mBuilder).Union(); }
    Offset<void> params(PluginV2Params const& p)
    {
        return fb::CreatePluginV2Params(
            mBuilder, identity(p.identity), p.level, types(p.outputTypes), pluginPlan(p.plan))
            .Union();
    }
    Offset<void> params(SliceParams const& p)
    {
        auto const start = dims(p.start, "start");
        auto const size = dims(p.size, "size");
        auto const stride = dims(p.stride, "stride");
        auto const axes = dims(p.axes, "axes");
        return fb::CreateSliceParams(mBuilder, start, size, stride, static_cast<int32_t>(p.mode), axes).Union();
    }
    Offset<void> params(ShapeParams const&) { return fb::CreateShapeParams(mBuilder).Union(); }
    Offset<void> params(ResizeParams const& p)
    {
        auto const outputDims = dims(p.outputDims, "outputDims");
        auto const scales = mBuilder.CreateVector(p.scales);
        return fb::CreateResizeParams(mBuilder, outputDims, scales, static_cast<int32_t>(p.mode),
            static_cast<int32_t>(p.transformation), static_cast<int32_t>(p.selector), static_cast<int32_t>(p.rounding),
            p.cubicCoeff, p.excludeOutside)
            .Union();
    }
    Offset<void> params(SelectParams const&) { return fb::CreateSelectParams(mBuilder).Union(); }
    Offset<void> params(FillParams const& p)
    {
        auto const shape = dims(p.dims, "dims");
        return fb::CreateFillParams(mBuilder, shape, static_cast<int32_t>(p.op), p.alpha, p.beta, p.alphaInt64,
            p.betaInt64, p.alphaBetaInt64, static_cast<int32_t>(p.toType))
            .Union();
    }
    Offset<void> params(QuantizeParams const& p)
    {
        auto const blockShape = dims(p.blockShape, "blockShape");
        return fb::CreateQuantizeParams(mBuilder, p.axis, blockShape, static_cast<int32_t>(p.toType)).Union();
    }
    Offset<void> params(DequantizeParams const& p)
    {
        auto const blockShape = dims(p.blockShape, "blockShape");
        return fb::CreateDequantizeParams(mBuilder, p.axis, blockShape, static_cast<int32_t>(p.toType)).Union();
    }
    Offset<void> params(ScatterParams const& p)
    {
        return fb::CreateScatterParams(mBuilder, static_cast<int32_t>(p.mode), p.axis).Union();
    }
    Offset<void> params(EinsumParams const& p)
    {
        auto const equation = mBuilder.CreateString(p.equation);
        return fb::CreateEinsumParams(mBuilder, equation).Union();
    }
    Offset<void> params(GridSampleParams const& p)
    {
        return fb::CreateGridSampleParams(
            mBuilder, static_cast<int32_t>(p.mode), p.alignCorners, static_cast<int32_t>(p.sampleMode))
            .Union();
    }
    Offset<void> params(ReverseSequenceParams const& p)
    {
        return fb::CreateReverseSequenceParams(mBuilder, p.batchAxis, p.sequenceAxis).Union();
    }
    Offset<void> params(NonZeroParams const& p)
    {
        return fb::CreateNonZeroParams(mBuilder, static_cast<int32_t>(p.indicesType)).Union();
    }
    Offset<void> params(NMSParams const& p)
    {
        return fb::CreateNMSParams(
            mBuilder, static_cast<int32_t>(p.format), p.topKBoxLimit, static_cast<int32_t>(p.indicesType))
            .Union();
    }
    Offset<void> params(ConditionParams const& p) { return fb::CreateConditionParams(mBuilder, p.conditional).Union(); }
    Offset<void> params(IfConditionalInputParams const& p)
    {
        return fb::CreateIfConditionalInputParams(mBuilder, p.conditional).Union();
    }
    Offset<void> params(IfConditionalOutputParams const& p)
    {
        return fb::CreateIfConditionalOutputParams(mBuilder, p.conditional).Union();
    }
    Offset<void> params(TripLimitParams const& p)
    {
        return fb::CreateTripLimitParams(mBuilder, p.loop, static_cast<int32_t>(p.kind)).Union();
    }
    Offset<void> params(RecurrenceParams const& p) { return fb::CreateRecurrenceParams(mBuilder, p.loop).Union(); }
    Offset<void> params(IteratorParams const& p)
    {
        return fb::CreateIteratorParams(mBuilder, p.loop, p.axis, p.reverse).Union();
    }
    Offset<void> params(LoopOutputParams const& p)
    {
        return fb::CreateLoopOutputParams(mBuilder, p.loop, static_cast<int32_t>(p.kind), p.axis).Union();
    }
    Offset<void> params(PluginV3Params const& p)
    {
        return fb::CreatePluginV3Params(
            mBuilder, identity(p.identity), p.nbInputs, p.nbShapeInputs, types(p.outputTypes), pluginPlan(p.plan))
            .Union();
    }

    Offset<fb::Layer> layer(std::size_t index);
    Offset<fb::ProfileInput> profileInput(ProfileRecord::Input const& input);

    EngineModel const& mModel;
    bool mStrip{}; //!< Leave the refittable weights out.
    BlobFinder mBlobs;
    flatbuffers::FlatBufferBuilder mBuilder;
    std::size_t mLayer{};
    std::optional<Error> mError;
};

Offset<fb::Layer> Encoder::layer(std::size_t index)
{
    mLayer = index;
    LayerRecord const& record = mModel.layers[index];
    auto const name = mBuilder.CreateString(record.name);
    auto const inputs = mBuilder.CreateVector(record.inputs);
    auto const outputs = mBuilder.CreateVector(record.outputs);
    auto const flatParams = std::visit([this](auto const& p) { return params(p); }, record.params);
    auto const metadata = mBuilder.CreateString(record.metadata);
    auto const member = planMember(kLayerKinds[record.params.index()].type);
    Offset<fb::ActivationParams> epilogue;
    if (record.epilogue)
    {
        epilogue = fb::CreateActivationParams(
            mBuilder, static_cast<int32_t>(record.epilogue->type), record.epilogue->alpha, record.epilogue->beta);
    }
    Offset<flatbuffers::Vector<fb::PointwiseStep const*>> pointwise;
    if (!record.pointwise.empty())
    {
        std::vector<fb::PointwiseStep> steps;
        steps.reserve(record.pointwise.size());
        for (PointwiseStep const& step : record.pointwise)
        {
            steps.emplace_back(static_cast<int32_t>(step.kind), step.op, step.alpha, step.beta, step.a, step.b);
        }
        pointwise = mBuilder.CreateVectorOfStructs(steps);
    }
    Offset<fb::FusedKernel> fused;
    if (record.fused)
    {
        fused = fb::CreateFusedKernel(mBuilder, static_cast<int32_t>(record.fused->kind), record.fused->epsilon,
            record.fused->heads, record.fused->scale, record.fused->zeroMaskedRows, record.fused->packedQkv,
            record.fused->gathers, record.fused->wrapped, record.fused->normalize, record.fused->normAffine);
    }
    auto const tacticName = record.tacticName.empty() ? 0 : mBuilder.CreateString(record.tacticName);
    bool const refittable = std::any_of(record.refit.begin(), record.refit.end(), [](int32_t e) { return e >= 0; });
    auto const refit = refittable ? mBuilder.CreateVector(record.refit.data(), record.refit.size())
                                  : Offset<flatbuffers::Vector<int32_t>>{};
    return fb::CreateLayer(mBuilder, name, static_cast<int32_t>(record.type), inputs, outputs, member, flatParams,
        metadata, record.tactic, epilogue, pointwise, record.scale, fused, tacticName, refit, record.viewsInput);
}

Offset<fb::ProfileInput> Encoder::profileInput(ProfileRecord::Input const& input)
{
    auto const min = dims(input.min, "profile kMIN");
    auto const opt = dims(input.opt, "profile kOPT");
    auto const max = dims(input.max, "profile kMAX");
    auto const minValues = mBuilder.CreateVector(input.minValues);
    auto const optValues = mBuilder.CreateVector(input.optValues);
    auto const maxValues = mBuilder.CreateVector(input.maxValues);
    return fb::CreateProfileInput(mBuilder, input.tensor, min, opt, max, minValues, optValues, maxValues);
}

Expected<flatbuffers::DetachedBuffer> Encoder::run(bool header)
{
    if (uint64_t const bound = payloadBound(mModel); bound > kMaxPayloadBytes)
    {
        return Error{ErrorCode::kUNSUPPORTED_STATE,
            cat("cannot write the plan: the engine takes about ", bound / 1048576,
                " MiB (mostly weights); a plan holds ", "at most ", kMaxPayloadBytes, " bytes")};
    }
    auto const name = mBuilder.CreateString(mModel.name);

    std::vector<fb::Expr> exprRecords;
    exprRecords.reserve(mModel.exprs.size());
    for (ExprRecord const& expr : mModel.exprs)
    {
        exprRecords.emplace_back(static_cast<int32_t>(expr.kind), static_cast<int32_t>(expr.op), expr.symbol, expr.lhs,
            expr.rhs, expr.value);
    }
    auto const exprs = mBuilder.CreateVectorOfStructs(exprRecords);

    std::vector<Offset<fb::Symbol>> symbolRecords;
    for (SymbolRecord const& symbol : mModel.symbols)
    {
        symbolRecords.push_back(fb::CreateSymbol(mBuilder, mBuilder.CreateString(symbol.name),
            static_cast<int32_t>(symbol.kind), symbol.tensor, symbol.index, symbol.optimum, symbol.upperBound));
    }
    auto const symbols = mBuilder.CreateVector(symbolRecords);

    std::vector<Offset<fb::Tensor>> tensorRecords;
    for (TensorRecord const& tensor : mModel.tensors)
    {
        auto const tensorName = mBuilder.CreateString(tensor.name);
        auto const shape = mBuilder.CreateVector(tensor.shape);
        auto const values
            = tensor.values ? mBuilder.CreateVector(*tensor.values) : Offset<flatbuffers::Vector<uint32_t>>{};
        tensorRecords.push_back(fb::CreateTensor(mBuilder, tensorName, static_cast<int32_t>(tensor.type), shape, values,
            tensor.isInput, tensor.isOutput, tensor.isShapeTensor, static_cast<int32_t>(tensor.format), tensor.scale,
            tensor.producer, tensor.isDebug));
    }
    auto const tensors = mBuilder.CreateVector(tensorRecords);

    std::vector<Offset<fb::Layer>> layerRecords;
    for (std::size_t i = 0; i < mModel.layers.size(); ++i)
    {
        layerRecords.push_back(layer(i));
    }
    auto const layers = mBuilder.CreateVector(layerRecords);

    std::vector<Offset<fb::Assertion>> assertionRecords;
    for (AssertionRecord const& assertion : mModel.assertions)
    {
        assertionRecords.push_back(fb::CreateAssertion(
            mBuilder, assertion.condition, mBuilder.CreateString(assertion.message), assertion.layer));
    }
    auto const assertions = mBuilder.CreateVector(assertionRecords);
    auto const ioTensors = mBuilder.CreateVector(mModel.ioTensors);

    std::vector<Offset<fb::Profile>> profileRecords;
    for (ProfileRecord const& profile : mModel.profiles)
    {
        std::vector<Offset<fb::ProfileInput>> inputRecords;
        for (ProfileRecord::Input const& input : profile.inputs)
        {
            inputRecords.push_back(profileInput(input));
        }
        auto const inputs = mBuilder.CreateVector(inputRecords);
        auto const offsets = mBuilder.CreateVector(profile.offsets);
        profileRecords.push_back(fb::CreateProfile(mBuilder, inputs, offsets, profile.activationBytes));
    }
    auto const profiles = mBuilder.CreateVector(profileRecords);

    std::vector<Offset<fb::WeightsBlob>> blobRecords;
    std::vector<bool> const strip = mStrip ? refittableBlobs(mModel) : std::vector<bool>(mModel.weights.size());
    for (std::size_t b = 0; b < mModel.weights.size(); ++b)
    {
        WeightsBlob const& blob = mModel.weights[b];
        bool const stripped = strip[b] || blob.stripped;
        std::span<uint8_t const> const bytes = stripped ? std::span<uint8_t const>{} : blob.view();
        blobRecords.push_back(fb::CreateWeightsBlob(mBuilder, static_cast<int32_t>(blob.type), blob.count,
            mBuilder.CreateVector(bytes.data(), bytes.size()), stripped));
    }
    auto const blobs = mBuilder.CreateVector(blobRecords);

    std::vector<Offset<fb::RefitWeights>> refitRecords;
    for (RefitWeightsRecord const& entry : mModel.refit.weights)
    {
        refitRecords.push_back(
            fb::CreateRefitWeights(mBuilder, mBuilder.CreateString(entry.layer), static_cast<int32_t>(entry.role),
                mBuilder.CreateString(entry.name), static_cast<int32_t>(entry.type), entry.count));
    }
    auto const refitWeights = refitRecords.empty() ? 0 : mBuilder.CreateVector(refitRecords);

    std::vector<Offset<fb::PluginLibrary>> libraryRecords;
    for (PluginLibraryRecord const& library : mModel.pluginLibraries)
    {
        std::vector<Offset<fb::PluginCreator>> creators;
        for (PluginCreatorRecord const& creator : library.creators)
        {
            creators.push_back(fb::CreatePluginCreator(mBuilder, mBuilder.CreateString(creator.identity.name),
                mBuilder.CreateString(creator.identity.version),
                mBuilder.CreateString(creator.identity.pluginNamespace), static_cast<int32_t>(creator.kind)));
        }
        auto const creatorList = mBuilder.CreateVector(creators);
        auto const libraryName = mBuilder.CreateString(library.name);
        auto const libraryBytes = mBuilder.CreateVector(library.bytes.data(), library.bytes.size());
        libraryRecords.push_back(
            fb::CreatePluginLibrary(mBuilder, libraryName, libraryBytes, library.checksum, creatorList));
    }
    // Absent rather than empty when the plan carries none, so that such plans stay byte for byte what they were.
    auto const libraries = libraryRecords.empty() ? 0 : mBuilder.CreateVector(libraryRecords);

    auto const engine
        = fb::CreateEngine(mBuilder, name, exprs, symbols, tensors, layers, assertions, ioTensors, mModel.nbInputs,
            profiles, blobs, mModel.deviceMemorySize, mModel.tacticSources, static_cast<int32_t>(mModel.refit.mode),
            refitWeights, mModel.refit.strip, static_cast<int32_t>(mModel.profilingVerbosity), libraries);
    fb::FinishEngineBuffer(mBuilder, engine);
    if (mError)
    {
        return *mError;
    }
    if (header)
    {
        std::span const payload(mBuilder.GetBufferPointer(), mBuilder.GetSize());
        std::array<uint8_t, kPlanHeaderSize> const bytes = planHeader(PlanInfo{mModel.backend}, payload);
        mBuilder.PushBytes(bytes.data(), bytes.size());
    }
    return mBuilder.Release();
}

} // namespace

Expected<std::vector<uint8_t>> encodePayload(EngineModel const& model)
{
    auto buffer = Encoder(model).run(false);
    if (!buffer)
    {
        return buffer.error();
    }
    return std::vector<uint8_t>(buffer.value().data(), buffer.value().data() + buffer.value().size());
}

Expected<PlanBytes> encodePlan(EngineModel const& model, PlanWeights weights)
{
    if (auto problem = modelProblem(model))
    {
        return Error{ErrorCode::kINVALID_ARGUMENT, "cannot write the plan: the engine is inconsistent: " + *problem};
    }
    auto buffer = Encoder(model, weights).run(true);
    if (!buffer)
    {
        return buffer.error();
    }
    auto owner = std::make_shared<flatbuffers::DetachedBuffer>(std::move(buffer.value()));
    std::span<uint8_t const> const bytes(owner->data(), owner->size());
    return PlanBytes{std::move(owner), bytes};
}

Expected<std::vector<uint8_t>> encodeEngine(EngineModel const& model, PlanWeights weights)
{
    auto plan = encodePlan(model, weights);
    if (!plan)
    {
        return plan.error();
    }
    return std::vector<uint8_t>(plan.value().bytes.begin(), plan.value().bytes.end());
}

} // namespace kiln
