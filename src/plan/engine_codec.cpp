// SPDX-License-Identifier: Apache-2.0
// The plan payload (schema: engine.fbs): the encoder and the decoder; the model checks both run are
// plan/model_check.cpp's. Layer parameters go through one writer and one reader per kind, selected by the kind list
// (network/layer_kinds.h): union member i + 1 of the schema holds the parameters of kLayerKinds[i].
#include "plan/engine_codec.h"

#include "core/data_type.h"
#include "plan/model_check.h"
#include "plan/model_support.h"

#include "plan/engine_generated.h"

#include <algorithm>
#include <cstring>

namespace kiln
{
namespace
{

using nvinfer1::ErrorCode;
template <typename T>
using Offset = flatbuffers::Offset<T>;

#define KILN_PLAN_MEMBER_MATCHES_KIND(e, Name, tag)                                                                    \
    static_assert(static_cast<std::size_t>(fb::LayerParams::Name) == *layerKindIndex(LayerType::e) + 1,                \
        "engine.fbs: LayerParams member " #Name " must be member kLayerKinds index + 1");
KILN_LAYER_KINDS(KILN_PLAN_MEMBER_MATCHES_KIND)
#undef KILN_PLAN_MEMBER_MATCHES_KIND
static_assert(static_cast<std::size_t>(fb::LayerParams::MAX) == kLayerKinds.size(),
    "engine.fbs: LayerParams has one member per layer kind");

static_assert(kMaxPayloadBytes == FLATBUFFERS_MAX_BUFFER_SIZE, "kMaxPayloadBytes is FlatBuffers' limit");

//! A refusal of the payload of a plan.
Error payloadError(std::string message)
{
    return Error{ErrorCode::kINVALID_ARGUMENT, "cannot load the plan: plan payload: " + std::move(message)};
}

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
        bytes += 128 + blob.bytes.size();
    }
    return bytes;
}

// ---- Encoding ----------------------------------------------------------------------------------------------------

//! Writes a model into a FlatBuffer. The first thing the format cannot hold is kept as the error; writing goes on
//! with a placeholder so that the builder's state stays consistent.
class Encoder
{
public:
    explicit Encoder(EngineModel const& model)
        : mModel(model)
        , mBlobs(model.weights)
    {
    }

    Expected<flatbuffers::DetachedBuffer> run();

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

    Offset<void> pluginLayer()
    {
        fail(ErrorCode::kUNSUPPORTED_STATE,
            cat(where(), " is an ", layerClassName(mModel.layers[mLayer].type),
                ": plugin layers cannot be written to a plan yet"));
        return fb::CreateIdentityParams(mBuilder).Union();
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
    Offset<void> params(PluginV2Params const&) { return pluginLayer(); }
    Offset<void> params(SliceParams const& p)
    {
        auto const start = dims(p.start, "start");
        auto const size = dims(p.size, "size");
        auto const stride = dims(p.stride, "stride");
        auto const axes = dims(p.axes, "axes");
        return fb::CreateSliceParams(mBuilder, start, size, stride, static_cast<int32_t>(p.mode), axes).Union();
    }
    Offset<void> params(ShapeParams const&) { return fb::CreateShapeParams(mBuilder).Union(); }
    Offset<void> params(SelectParams const&) { return fb::CreateSelectParams(mBuilder).Union(); }
    Offset<void> params(FillParams const& p)
    {
        auto const shape = dims(p.dims, "dims");
        return fb::CreateFillParams(mBuilder, shape, static_cast<int32_t>(p.op), p.alpha, p.beta, p.alphaInt64,
            p.betaInt64, p.alphaBetaInt64, static_cast<int32_t>(p.toType))
            .Union();
    }
    Offset<void> params(PluginV3Params const&) { return pluginLayer(); }

    Offset<fb::Layer> layer(std::size_t index);
    Offset<fb::ProfileInput> profileInput(ProfileRecord::Input const& input);

    EngineModel const& mModel;
    BlobFinder mBlobs;
    flatbuffers::FlatBufferBuilder mBuilder{1024};
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
    auto const member = static_cast<fb::LayerParams>(record.params.index() + 1);
    return fb::CreateLayer(
        mBuilder, name, static_cast<int32_t>(record.type), inputs, outputs, member, flatParams, metadata);
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

Expected<flatbuffers::DetachedBuffer> Encoder::run()
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
            tensor.producer));
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
    for (WeightsBlob const& blob : mModel.weights)
    {
        blobRecords.push_back(fb::CreateWeightsBlob(
            mBuilder, static_cast<int32_t>(blob.type), blob.count, mBuilder.CreateVector(blob.bytes)));
    }
    auto const blobs = mBuilder.CreateVector(blobRecords);

    auto const engine = fb::CreateEngine(mBuilder, name, exprs, symbols, tensors, layers, assertions, ioTensors,
        mModel.nbInputs, profiles, blobs, mModel.deviceMemorySize);
    fb::FinishEngineBuffer(mBuilder, engine);
    if (mError)
    {
        return *mError;
    }
    return mBuilder.Release();
}

// ---- Decoding ----------------------------------------------------------------------------------------------------

std::string text(flatbuffers::String const* value)
{
    return value != nullptr ? value->str() : std::string{};
}

template <typename T>
std::vector<T> copy(flatbuffers::Vector<T> const* values)
{
    return values != nullptr ? std::vector<T>(values->begin(), values->end()) : std::vector<T>{};
}

//! 8-byte elements, copied bytewise: the verifier checks the alignment of a vector's length but not of its
//! elements, so a hostile payload can misalign them (the builder never does).
std::vector<int64_t> copy(flatbuffers::Vector<int64_t> const* values)
{
    std::vector<int64_t> out(values != nullptr ? values->size() : 0);
    if (!out.empty())
    {
        std::memcpy(out.data(), values->Data(), out.size() * sizeof(int64_t));
    }
    for (int64_t& value : out)
    {
        value = flatbuffers::EndianScalar(value);
    }
    return out;
}

//! Bytes in one copy (weights can be large).
std::vector<uint8_t> copy(flatbuffers::Vector<uint8_t> const* bytes)
{
    return bytes != nullptr ? std::vector<uint8_t>(bytes->data(), bytes->data() + bytes->size())
                            : std::vector<uint8_t>{};
}

//! Reads a verified FlatBuffer into a model. What the model cannot hold (a Dims of rank 9, weights outside their
//! blob, an unknown kind of parameters) is kept as the error; the model's own consistency is modelProblem's.
class Decoder
{
public:
    explicit Decoder(fb::Engine const& engine)
        : mEngine(engine)
    {
    }

    Expected<EngineModel> run();

private:
    void fail(std::string message)
    {
        if (!mError)
        {
            mError = payloadError(std::move(message));
        }
    }

    Dims dims(fb::Dims const* flat, char const* field)
    {
        if (flat == nullptr)
        {
            fail(cat(mWhere, ": ", field, " is missing"));
            return Dims{};
        }
        int32_t const rank = flat->rank();
        std::vector<int64_t> const extents = copy(flat->extents());
        if (rank < -1 || rank > Dims::MAX_DIMS)
        {
            fail(cat(mWhere, ": ", field, " has rank ", rank, "; ranks are -1 (not set) to ", Dims::MAX_DIMS));
            return Dims{};
        }
        if (extents.size() != static_cast<std::size_t>(std::max(rank, 0)))
        {
            fail(cat(mWhere, ": ", field, " has rank ", rank, " but ", extents.size(), " extents"));
            return Dims{};
        }
        Dims value{rank, {}};
        std::copy(extents.begin(), extents.end(), value.d);
        return value;
    }

    Weights weights(fb::WeightsRef const* flat, char const* field)
    {
        if (flat == nullptr)
        {
            fail(cat(mWhere, ": ", field, " are missing"));
            return Weights{};
        }
        Weights value{static_cast<DataType>(flat->type()), nullptr, flat->count()};
        int32_t const blob = flat->blob();
        if (blob == -1)
        {
            if (value.count != 0)
            {
                fail(cat(mWhere, ": ", field, " have ", value.count, " elements but no weights blob"));
                value.count = 0;
            }
            return value;
        }
        if (!inRange(blob, mModel.weights.size()))
        {
            fail(cat(mWhere, ": ", field, " refer to weights blob ", blob, ", but the engine has ",
                mModel.weights.size(), " weights blobs"));
            return Weights{};
        }
        std::vector<uint8_t> const& bytes = mModel.weights[static_cast<std::size_t>(blob)].bytes;
        int64_t const offset = flat->offset();
        int64_t const size = weightsBytes(value.type, value.count);
        if (value.count < 0 || size < 0 || offset < 0 || static_cast<uint64_t>(offset) > bytes.size()
            || static_cast<uint64_t>(size) > bytes.size() - static_cast<uint64_t>(offset))
        {
            fail(cat(mWhere, ": ", field, " (", value.count, " elements of ", dataTypeName(value.type),
                ") at byte offset ", offset, " do not fit in weights blob ", blob, " of ", bytes.size(), " bytes"));
            return Weights{};
        }
        value.values = bytes.data() + offset;
        return value;
    }

    nvinfer1::Permutation permutation(flatbuffers::Vector<int32_t> const* flat, char const* field)
    {
        nvinfer1::Permutation value = identityPermutation();
        std::size_t const size = flat != nullptr ? flat->size() : 0;
        if (size != static_cast<std::size_t>(Dims::MAX_DIMS))
        {
            fail(cat(mWhere, ": ", field, " has ", size, " entries; a permutation has ", Dims::MAX_DIMS));
            return value;
        }
        std::copy(flat->begin(), flat->end(), value.order);
        return value;
    }

    // One reader per layer kind: every field of its parameters.
    LayerParams read(fb::ConvolutionParams const& f)
    {
        ConvolutionParams p;
        p.nbOutputMaps = f.nb_output_maps();
        p.kernelSize = dims(f.kernel_size(), "kernelSize");
        p.stride = dims(f.stride(), "stride");
        p.prePadding = dims(f.pre_padding(), "prePadding");
        p.postPadding = dims(f.post_padding(), "postPadding");
        p.dilation = dims(f.dilation(), "dilation");
        p.paddingMode = static_cast<nvinfer1::PaddingMode>(f.padding_mode());
        p.nbGroups = f.nb_groups();
        p.kernel = weights(f.kernel(), "kernel weights");
        p.bias = weights(f.bias(), "bias weights");
        return p;
    }
    LayerParams read(fb::CastParams const& f) { return CastParams{static_cast<DataType>(f.to_type())}; }
    LayerParams read(fb::ActivationParams const& f)
    {
        return ActivationParams{static_cast<nvinfer1::ActivationType>(f.type()), f.alpha(), f.beta()};
    }
    LayerParams read(fb::PoolingParams const& f)
    {
        PoolingParams p;
        p.type = static_cast<nvinfer1::PoolingType>(f.type());
        p.windowSize = dims(f.window_size(), "windowSize");
        p.stride = dims(f.stride(), "stride");
        p.prePadding = dims(f.pre_padding(), "prePadding");
        p.postPadding = dims(f.post_padding(), "postPadding");
        p.paddingMode = static_cast<nvinfer1::PaddingMode>(f.padding_mode());
        p.blendFactor = f.blend_factor();
        p.averageCountExcludesPadding = f.average_count_excludes_padding();
        return p;
    }
    LayerParams read(fb::SoftMaxParams const& f) { return SoftMaxParams{f.axes()}; }
    LayerParams read(fb::ConcatenationParams const& f) { return ConcatenationParams{f.axis()}; }
    LayerParams read(fb::ElementWiseParams const& f)
    {
        return ElementWiseParams{static_cast<nvinfer1::ElementWiseOperation>(f.op())};
    }
    LayerParams read(fb::UnaryParams const& f) { return UnaryParams{static_cast<nvinfer1::UnaryOperation>(f.op())}; }
    LayerParams read(fb::ShuffleParams const& f)
    {
        ShuffleParams p;
        p.firstTranspose = permutation(f.first_transpose(), "firstTranspose");
        p.reshape = dims(f.reshape(), "reshape");
        p.secondTranspose = permutation(f.second_transpose(), "secondTranspose");
        p.zeroIsPlaceholder = f.zero_is_placeholder();
        return p;
    }
    LayerParams read(fb::ReduceParams const& f)
    {
        return ReduceParams{static_cast<nvinfer1::ReduceOperation>(f.op()), f.axes(), f.keep_dimensions()};
    }
    LayerParams read(fb::GatherParams const& f)
    {
        return GatherParams{static_cast<nvinfer1::GatherMode>(f.mode()), f.axis(), f.nb_element_wise_dims()};
    }
    LayerParams read(fb::MatrixMultiplyParams const& f)
    {
        MatrixMultiplyParams p;
        p.ops[0] = static_cast<nvinfer1::MatrixOperation>(f.op0());
        p.ops[1] = static_cast<nvinfer1::MatrixOperation>(f.op1());
        return p;
    }
    LayerParams read(fb::ConstantParams const& f)
    {
        ConstantParams p;
        p.dims = dims(f.dims(), "dims");
        p.weights = weights(f.weights(), "weights");
        return p;
    }
    LayerParams read(fb::IdentityParams const&) { return IdentityParams{}; }
    LayerParams read(fb::PluginV2Params const&) { return pluginLayer(); }
    LayerParams read(fb::SliceParams const& f)
    {
        SliceParams p;
        p.start = dims(f.start(), "start");
        p.size = dims(f.size(), "size");
        p.stride = dims(f.stride(), "stride");
        p.mode = static_cast<nvinfer1::SampleMode>(f.mode());
        p.axes = dims(f.axes(), "axes");
        return p;
    }
    LayerParams read(fb::ShapeParams const&) { return ShapeParams{}; }
    LayerParams read(fb::SelectParams const&) { return SelectParams{}; }
    LayerParams read(fb::FillParams const& f)
    {
        FillParams p;
        p.dims = dims(f.dims(), "dims");
        p.op = static_cast<nvinfer1::FillOperation>(f.op());
        p.alpha = f.alpha();
        p.beta = f.beta();
        p.alphaInt64 = f.alpha_int64();
        p.betaInt64 = f.beta_int64();
        p.alphaBetaInt64 = f.alpha_beta_int64();
        p.toType = static_cast<DataType>(f.to_type());
        return p;
    }
    LayerParams read(fb::PluginV3Params const&) { return pluginLayer(); }

    LayerParams pluginLayer()
    {
        fail(cat(mWhere, " is a plugin layer: plugin layers cannot be read from a plan yet"));
        return IdentityParams{};
    }

    LayerParams params(fb::Layer const& flat);
    ProfileRecord profile(fb::Profile const& flat);

    fb::Engine const& mEngine;
    EngineModel mModel;
    std::string mWhere; //!< The record being read, for messages.
    std::optional<Error> mError;
};

LayerParams Decoder::params(fb::Layer const& flat)
{
    // The verifier has checked the table of every known member; a member this kiln does not know is refused here.
    switch (flat.params_type())
    {
#define KILN_PLAN_READ_PARAMS(e, Name, tag)                                                                            \
    case fb::LayerParams::Name: return read(*flat.params_as_##Name());
        KILN_LAYER_KINDS(KILN_PLAN_READ_PARAMS)
#undef KILN_PLAN_READ_PARAMS
    case fb::LayerParams::NONE: break;
    }
    fail(cat(mWhere, " has parameters of an unknown kind (union member ", static_cast<int32_t>(flat.params_type()),
        "); the plan may come from a newer kiln"));
    return IdentityParams{};
}

ProfileRecord Decoder::profile(fb::Profile const& flat)
{
    ProfileRecord record;
    std::string const profileWhere = mWhere;
    if (flat.inputs() != nullptr)
    {
        for (flatbuffers::uoffset_t i = 0; i < flat.inputs()->size(); ++i)
        {
            fb::ProfileInput const& input = *flat.inputs()->Get(i);
            mWhere = cat(profileWhere, " input ", i);
            record.inputs.push_back(ProfileRecord::Input{input.tensor(), dims(input.min(), "kMIN"),
                dims(input.opt(), "kOPT"), dims(input.max(), "kMAX"), copy(input.min_values()),
                copy(input.opt_values()), copy(input.max_values())});
        }
    }
    record.offsets = copy(flat.offsets());
    record.activationBytes = flat.activation_bytes();
    return record;
}

Expected<EngineModel> Decoder::run()
{
    mModel.name = text(mEngine.name());
    // Weights first: layer parameters point into them, and the blobs never move afterwards.
    if (auto const* blobs = mEngine.weights())
    {
        mModel.weights.reserve(blobs->size());
        for (fb::WeightsBlob const* blob : *blobs)
        {
            mModel.weights.push_back(
                WeightsBlob{static_cast<DataType>(blob->type()), blob->count(), copy(blob->bytes())});
        }
    }
    if (auto const* exprs = mEngine.exprs())
    {
        mModel.exprs.reserve(exprs->size());
        for (flatbuffers::uoffset_t i = 0; i < exprs->size(); ++i)
        {
            // Copied bytewise, like the 8-byte vectors: the verifier does not check the alignment of structs.
            fb::Expr expr;
            std::memcpy(&expr, exprs->Data() + std::size_t{i} * sizeof(fb::Expr), sizeof(fb::Expr));
            mModel.exprs.push_back(ExprRecord{static_cast<DimExpr::Kind>(expr.kind()), expr.value(), expr.symbol(),
                static_cast<DimensionOperation>(expr.op()), expr.lhs(), expr.rhs()});
        }
    }
    if (auto const* symbols = mEngine.symbols())
    {
        for (fb::Symbol const* symbol : *symbols)
        {
            mModel.symbols.push_back(SymbolRecord{text(symbol->name()), static_cast<SymbolKind>(symbol->kind()),
                symbol->tensor(), symbol->index(), symbol->optimum(), symbol->upper_bound()});
        }
    }
    if (auto const* tensors = mEngine.tensors())
    {
        for (fb::Tensor const* tensor : *tensors)
        {
            TensorRecord record;
            record.name = text(tensor->name());
            record.type = static_cast<DataType>(tensor->type());
            record.shape = copy(tensor->shape());
            if (tensor->values() != nullptr)
            {
                record.values = copy(tensor->values());
            }
            record.isInput = tensor->is_input();
            record.isOutput = tensor->is_output();
            record.isShapeTensor = tensor->is_shape_tensor();
            record.format = static_cast<nvinfer1::TensorFormat>(tensor->format());
            record.scale = tensor->scale();
            record.producer = tensor->producer();
            mModel.tensors.push_back(std::move(record));
        }
    }
    if (auto const* layers = mEngine.layers())
    {
        for (flatbuffers::uoffset_t i = 0; i < layers->size(); ++i)
        {
            fb::Layer const& flat = *layers->Get(i);
            LayerRecord record;
            record.name = text(flat.name());
            mWhere = cat("layer ", i, " (", quotedText(record.name), ")");
            record.type = static_cast<LayerType>(flat.type());
            record.inputs = copy(flat.inputs());
            record.outputs = copy(flat.outputs());
            record.params = params(flat);
            record.metadata = text(flat.metadata());
            mModel.layers.push_back(std::move(record));
        }
    }
    if (auto const* assertions = mEngine.assertions())
    {
        for (fb::Assertion const* assertion : *assertions)
        {
            mModel.assertions.push_back(
                AssertionRecord{assertion->condition(), text(assertion->message()), assertion->layer()});
        }
    }
    mModel.ioTensors = copy(mEngine.io_tensors());
    mModel.nbInputs = mEngine.nb_inputs();
    if (auto const* profiles = mEngine.profiles())
    {
        for (flatbuffers::uoffset_t i = 0; i < profiles->size(); ++i)
        {
            mWhere = cat("profile ", i);
            mModel.profiles.push_back(profile(*profiles->Get(i)));
        }
    }
    mModel.deviceMemorySize = mEngine.device_memory_size();
    if (mError)
    {
        return *mError;
    }
    return std::move(mModel);
}

//! A copy of the payload when it is not aligned for FlatBuffers' 8-byte scalars (the caller's buffer may start
//! anywhere), else empty.
std::vector<uint8_t> alignedCopy(std::span<uint8_t const> payload)
{
    if (reinterpret_cast<uintptr_t>(payload.data()) % alignof(int64_t) == 0)
    {
        return {};
    }
    return std::vector<uint8_t>(payload.begin(), payload.end());
}

} // namespace

Expected<std::vector<uint8_t>> encodePayload(EngineModel const& model)
{
    auto buffer = Encoder(model).run();
    if (!buffer)
    {
        return buffer.error();
    }
    return std::vector<uint8_t>(buffer.value().data(), buffer.value().data() + buffer.value().size());
}

Expected<std::vector<uint8_t>> encodeEngine(EngineModel const& model)
{
    if (auto problem = modelProblem(model))
    {
        return Error{ErrorCode::kINVALID_ARGUMENT, "cannot write the plan: the engine is inconsistent: " + *problem};
    }
    auto buffer = Encoder(model).run();
    if (!buffer)
    {
        return buffer.error();
    }
    return writePlan(PlanInfo{model.backend}, std::span(buffer.value().data(), buffer.value().size()));
}

Expected<EngineModel> decodeEngine(void const* data, std::size_t size)
{
    auto plan = readPlan(data, size);
    if (!plan)
    {
        return plan.error();
    }
    std::span<uint8_t const> payload = plan.value().payload;
    if (payload.size() >= kMaxPayloadBytes)
    {
        return payloadError(cat("it is ", payload.size(), " bytes; a payload holds less than ", kMaxPayloadBytes));
    }
    // Room for the root offset and the file identifier.
    constexpr std::size_t kPrefix = sizeof(flatbuffers::uoffset_t) + flatbuffers::kFileIdentifierLength;
    if (payload.size() < kPrefix || !fb::EngineBufferHasIdentifier(payload.data()))
    {
        return payloadError(
            cat("it is not a kiln engine (", payload.size(), " bytes, without the identifier \"KLNE\" at bytes 4-7)"));
    }
    std::vector<uint8_t> const aligned = alignedCopy(payload);
    if (!aligned.empty())
    {
        payload = aligned;
    }
    flatbuffers::Verifier::Options options;
    options.max_depth = 16;
    // A table takes at least 4 bytes, so a payload holds no more tables than this; the limit also bounds the work a
    // hostile payload that shares one table many times can cause.
    options.max_tables = static_cast<flatbuffers::uoffset_t>(payload.size() / 4 + 64);
    flatbuffers::Verifier verifier(payload.data(), payload.size(), options);
    if (!fb::VerifyEngineBuffer(verifier))
    {
        return payloadError("the FlatBuffers verifier refused it (an offset or a size points outside the payload, a "
                            "required field is missing, or it nests too deep)");
    }
    auto model = Decoder(*fb::GetEngine(payload.data())).run();
    if (!model)
    {
        return model;
    }
    model.value().backend = plan.value().info.backend;
    if (auto problem = modelProblem(model.value()))
    {
        return payloadError(std::move(*problem));
    }
    return model;
}

} // namespace kiln
