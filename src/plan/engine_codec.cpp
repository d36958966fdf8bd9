// SPDX-License-Identifier: Apache-2.0
// The plan payload (schema: engine.fbs): the encoder, the decoder, and modelProblem, the checks every loaded model
// passes before anything uses it. Layer parameters go through one writer and one reader per kind, selected by the
// kind list (network/layer_kinds.h): union member i + 1 of the schema holds the parameters of kLayerKinds[i].
#include "plan/engine_codec.h"

#include "core/data_type.h"
#include "network/checks.h"
#include "network/report.h"

#include "plan/engine_generated.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>
#include <unordered_map>

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

//! The largest payload: FlatBuffers offsets are signed 32-bit.
constexpr uint64_t kMaxPayloadBytes = FLATBUFFERS_MAX_BUFFER_SIZE;

//! The text of parts (texts, Quoted, integers, enums, floating point numbers).
template <typename... Parts>
std::string cat(Parts const&... parts)
{
    std::string text;
    (message::append(text, parts), ...);
    return text;
}

//! A refusal of the payload of a plan.
Error payloadError(std::string message)
{
    return Error{ErrorCode::kINVALID_ARGUMENT, "cannot load the plan: plan payload: " + std::move(message)};
}

//! Whether index is a valid position in a sequence of size elements.
constexpr bool inRange(int64_t index, std::size_t size) noexcept
{
    return index >= 0 && static_cast<uint64_t>(index) < size;
}

std::string layerText(EngineModel const& model, std::size_t index)
{
    return cat("layer ", index, " (", quotedText(model.layers[index].name), ")");
}

std::string tensorText(EngineModel const& model, int64_t index)
{
    return cat("tensor ", index, " (", quotedText(model.tensors[static_cast<std::size_t>(index)].name), ")");
}

//! The bytes count elements of type take, or -1 when that is more than int64_t holds (a hostile count; storageBytes
//! itself would overflow).
int64_t weightsBytes(DataType type, int64_t count) noexcept
{
    return count > std::numeric_limits<int64_t>::max() / 8 ? -1 : storageBytes(type, count);
}

//! Where weights lie in EngineModel::weights.
struct WeightsPlace
{
    int32_t blob{-1};
    int64_t offset{};
};

//! Finds the blob holding a pointer: the blobs sorted by address.
class BlobFinder
{
public:
    explicit BlobFinder(std::vector<WeightsBlob> const& blobs)
        : mBlobs(blobs)
    {
        for (std::size_t i = 0; i < blobs.size(); ++i)
        {
            if (!blobs[i].bytes.empty())
            {
                mStarts.push_back({reinterpret_cast<uintptr_t>(blobs[i].bytes.data()), static_cast<int32_t>(i)});
            }
        }
        std::sort(mStarts.begin(), mStarts.end(), [](Start a, Start b) { return a.address < b.address; });
    }

    //! The blob and byte offset of all the bytes of weights (count > 0), or nullopt when no one blob holds them.
    std::optional<WeightsPlace> find(Weights const& weights) const noexcept
    {
        auto const address = reinterpret_cast<uintptr_t>(weights.values);
        auto const after = std::upper_bound(mStarts.begin(), mStarts.end(), address,
            [](uintptr_t value, Start const& start) { return value < start.address; });
        if (after == mStarts.begin())
        {
            return std::nullopt;
        }
        Start const& start = *(after - 1);
        auto const blobBytes = static_cast<uint64_t>(mBlobs[static_cast<std::size_t>(start.blob)].bytes.size());
        uint64_t const offset = address - start.address;
        int64_t const bytes = weightsBytes(weights.type, weights.count);
        if (offset >= blobBytes || bytes < 0 || static_cast<uint64_t>(bytes) > blobBytes - offset)
        {
            return std::nullopt;
        }
        return WeightsPlace{start.blob, static_cast<int64_t>(offset)};
    }

private:
    struct Start
    {
        uintptr_t address;
        int32_t blob;
    };
    std::vector<WeightsBlob> const& mBlobs;
    std::vector<Start> mStarts;
};

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

// ---- Model checks ------------------------------------------------------------------------------------------------

//! The inputs and outputs a layer kind has. Inputs from optionalFrom on may be absent (kNoTensor).
struct KindArity
{
    LayerType type;
    int32_t minInputs;
    int32_t maxInputs;
    int32_t optionalFrom;
    int32_t minOutputs;
    int32_t maxOutputs;
};

constexpr int32_t kMany = std::numeric_limits<int32_t>::max();

// Rows follow KILN_LAYER_KINDS, as network/layers/<kind>.cpp makes the layers.
constexpr std::array<KindArity, kLayerKinds.size()> kKindArity{{
    {LayerType::kCONVOLUTION, 1, 3, 1, 1, 1}, // Input 1 the kernel, input 2 the bias, when not weights.
    {LayerType::kCAST, 1, 1, kMany, 1, 1},
    {LayerType::kACTIVATION, 1, 1, kMany, 1, 1},
    {LayerType::kPOOLING, 1, 1, kMany, 1, 1},
    {LayerType::kSOFTMAX, 1, 1, kMany, 1, 1},
    {LayerType::kCONCATENATION, 1, kMany, kMany, 1, 1},
    {LayerType::kELEMENTWISE, 2, 2, kMany, 1, 1},
    {LayerType::kUNARY, 1, 1, kMany, 1, 1},
    {LayerType::kSHUFFLE, 1, 2, 1, 1, 1}, // Input 1 the reshape dimensions.
    {LayerType::kREDUCE, 1, 1, kMany, 1, 1},
    {LayerType::kGATHER, 2, 2, kMany, 1, 1},
    {LayerType::kMATRIX_MULTIPLY, 2, 2, kMany, 1, 1},
    {LayerType::kCONSTANT, 0, 0, kMany, 1, 1},
    {LayerType::kIDENTITY, 1, 1, kMany, 1, 1},
    {LayerType::kPLUGIN_V2, 0, kMany, kMany, 1, kMany},
    {LayerType::kSLICE, 1, 6, 1, 1, 1}, // Start, size, stride, fill value, axes.
    {LayerType::kSHAPE, 1, 1, kMany, 1, 1},
    {LayerType::kSELECT, 3, 3, kMany, 1, 1},
    {LayerType::kFILL, 0, 3, 0, 1, 1}, // Shape, alpha, beta.
    {LayerType::kPLUGIN_V3, 0, kMany, kMany, 1, kMany},
}};

constexpr bool arityRowsFollowKinds() noexcept
{
    for (std::size_t i = 0; i < kLayerKinds.size(); ++i)
    {
        if (kKindArity[i].type != kLayerKinds[i].type)
        {
            return false;
        }
    }
    return true;
}
static_assert(arityRowsFollowKinds(), "kKindArity has one row per layer kind, in KILN_LAYER_KINDS order");

std::string countRange(int32_t min, int32_t max)
{
    if (min == max)
    {
        return cat(min);
    }
    return max == kMany ? cat(min, " or more") : cat(min, " to ", max);
}

//! Collects the first problem of a layer's parameters.
class ParamsCheck
{
public:
    explicit ParamsCheck(BlobFinder const& blobs, std::size_t nbBlobs)
        : mBlobs(blobs)
        , mNbBlobs(nbBlobs)
    {
    }

    std::optional<std::string> const& problem() const noexcept { return mProblem; }

    template <typename E>
    void enumValue(char const* field, E value)
    {
        if (!mProblem && !isValidEnum(value))
        {
            mProblem = cat(field, " is ", value, ", which is not a valid value");
        }
    }

    void dims(char const* field, Dims const& value)
    {
        if (!mProblem && (value.nbDims < -1 || value.nbDims > Dims::MAX_DIMS))
        {
            mProblem = cat(field, " has rank ", value.nbDims, "; ranks are -1 (not set) to ", Dims::MAX_DIMS);
        }
    }

    void weights(char const* field, Weights const& value)
    {
        if (mProblem)
        {
            return;
        }
        if (char const* reason = weightsProblem(value))
        {
            mProblem = cat(field, ": ", reason);
        }
        else if (value.count > 0 && !mBlobs.find(value))
        {
            mProblem = cat(field, " (", value.count, " elements of ", dataTypeName(value.type),
                ") are not inside one of the engine's ", mNbBlobs, " weights blobs");
        }
    }

    // One check per layer kind: its enumerations, shapes and weights.
    void check(ConvolutionParams const& p)
    {
        dims("kernelSize", p.kernelSize);
        dims("stride", p.stride);
        dims("prePadding", p.prePadding);
        dims("postPadding", p.postPadding);
        dims("dilation", p.dilation);
        enumValue("paddingMode", p.paddingMode);
        weights("kernel weights", p.kernel);
        weights("bias weights", p.bias);
    }
    void check(CastParams const& p) { enumValue("toType", p.toType); }
    void check(ActivationParams const& p) { enumValue("type", p.type); }
    void check(PoolingParams const& p)
    {
        enumValue("type", p.type);
        dims("windowSize", p.windowSize);
        dims("stride", p.stride);
        dims("prePadding", p.prePadding);
        dims("postPadding", p.postPadding);
        enumValue("paddingMode", p.paddingMode);
    }
    void check(SoftMaxParams const&) {}
    void check(ConcatenationParams const&) {}
    void check(ElementWiseParams const& p) { enumValue("op", p.op); }
    void check(UnaryParams const& p) { enumValue("op", p.op); }
    void check(ShuffleParams const& p) { dims("reshape", p.reshape); }
    void check(ReduceParams const& p) { enumValue("op", p.op); }
    void check(GatherParams const& p) { enumValue("mode", p.mode); }
    void check(MatrixMultiplyParams const& p)
    {
        enumValue("ops[0]", p.ops[0]);
        enumValue("ops[1]", p.ops[1]);
    }
    void check(ConstantParams const& p)
    {
        dims("dims", p.dims);
        weights("weights", p.weights);
    }
    void check(IdentityParams const&) {}
    void check(PluginV2Params const& p)
    {
        for (DataType type : p.outputTypes)
        {
            enumValue("outputTypes", type);
        }
    }
    void check(SliceParams const& p)
    {
        dims("start", p.start);
        dims("size", p.size);
        dims("stride", p.stride);
        enumValue("mode", p.mode);
        dims("axes", p.axes);
    }
    void check(ShapeParams const&) {}
    void check(SelectParams const&) {}
    void check(FillParams const& p)
    {
        dims("dims", p.dims);
        enumValue("op", p.op);
        enumValue("toType", p.toType);
    }
    void check(PluginV3Params const& p)
    {
        for (DataType type : p.outputTypes)
        {
            enumValue("outputTypes", type);
        }
    }

private:
    BlobFinder const& mBlobs;
    std::size_t mNbBlobs;
    std::optional<std::string> mProblem;
};

//! The checks of modelProblem, in an order where each relies only on what earlier ones established.
class ModelCheck
{
public:
    explicit ModelCheck(EngineModel const& model)
        : mModel(model)
        , mBlobs(model.weights)
        , mMadeBy(model.tensors.size(), -1)
    {
    }

    std::optional<std::string> run()
    {
        if (mModel.backend != PlanBackend::kHOST && mModel.backend != PlanBackend::kCUDA)
        {
            return cat("the engine names an unknown backend (", mModel.backend, ")");
        }
        for (auto const step : {&ModelCheck::blobs, &ModelCheck::exprs, &ModelCheck::tensors, &ModelCheck::symbols,
                 &ModelCheck::layers, &ModelCheck::assertions, &ModelCheck::ioTensors, &ModelCheck::profiles})
        {
            if (auto problem = (this->*step)())
            {
                return problem;
            }
        }
        return std::nullopt;
    }

private:
    std::string tensor(int64_t index) const { return tensorText(mModel, index); }
    std::string layer(std::size_t index) const { return layerText(mModel, index); }

    std::string tensorRange(int64_t index) const
    {
        return cat("tensor ", index, ", but the engine has ", mModel.tensors.size(), " tensors");
    }
    std::string exprRange(int64_t index) const
    {
        return cat("expression ", index, ", but the engine has ", mModel.exprs.size(), " expressions");
    }

    //! The value of expression index when it is a constant.
    std::optional<int64_t> constant(uint32_t index) const
    {
        ExprRecord const& expr = mModel.exprs[index];
        return expr.kind == DimExpr::Kind::kCONSTANT ? std::optional<int64_t>(expr.value) : std::nullopt;
    }

    //! The number of elements of a tensor whose extents are all constants.
    std::optional<int64_t> constantVolume(TensorRecord const& record) const
    {
        int64_t volume = 1;
        for (uint32_t extent : record.shape)
        {
            auto const value = constant(extent);
            if (!value || *value < 0 || __builtin_mul_overflow(volume, *value, &volume))
            {
                return std::nullopt;
            }
        }
        return volume;
    }

    // The steps of run(); each relies on the ranges the earlier ones checked.
    std::optional<std::string> blobs();
    std::optional<std::string> exprs();
    std::optional<std::string> tensors();
    std::optional<std::string> symbols();
    std::optional<std::string> layers();
    std::optional<std::string> assertions();
    std::optional<std::string> ioTensors();
    std::optional<std::string> profiles();
    std::optional<std::string> profileInput(std::size_t profile, std::size_t index) const;

    EngineModel const& mModel;
    BlobFinder mBlobs;
    std::vector<int32_t> mMadeBy; //!< Per tensor: the layer that lists it as an output, or -1.
};

std::optional<std::string> ModelCheck::blobs()
{
    for (std::size_t i = 0; i < mModel.weights.size(); ++i)
    {
        WeightsBlob const& blob = mModel.weights[i];
        if (!isKnownDataType(blob.type))
        {
            return cat("weights blob ", i, " has data type ", blob.type, ", which is not a DataType");
        }
        if (blob.count < 0)
        {
            return cat("weights blob ", i, " has a negative count (", blob.count, ")");
        }
        if (int64_t const bytes = weightsBytes(blob.type, blob.count);
            bytes < 0 || static_cast<uint64_t>(bytes) != blob.bytes.size())
        {
            return cat("weights blob ", i, " holds ", blob.bytes.size(), " bytes, but ", blob.count, " elements of ",
                dataTypeName(blob.type), " take ", bytes < 0 ? std::string("more than 2^63") : cat(bytes));
        }
    }
    return std::nullopt;
}

std::optional<std::string> ModelCheck::exprs()
{
    for (std::size_t i = 0; i < mModel.exprs.size(); ++i)
    {
        ExprRecord const& expr = mModel.exprs[i];
        switch (expr.kind)
        {
        case DimExpr::Kind::kCONSTANT: continue;
        case DimExpr::Kind::kSYMBOL:
            if (expr.symbol >= mModel.symbols.size())
            {
                return cat("expression ", i, " refers to symbol ", expr.symbol, ", but the engine has ",
                    mModel.symbols.size(), " symbols");
            }
            continue;
        case DimExpr::Kind::kOPERATION:
            if (!isValidEnum(expr.op))
            {
                return cat("expression ", i, " has operation ", expr.op, ", which is not a DimensionOperation");
            }
            if (expr.lhs >= i || expr.rhs >= i)
            {
                return cat("expression ", i, " has operands ", expr.lhs, " and ", expr.rhs,
                    "; operands are earlier expressions");
            }
            continue;
        }
        return cat("expression ", i, " has kind ", expr.kind, "; kinds are 0 (constant), 1 (symbol), 2 (operation)");
    }
    return std::nullopt;
}

std::optional<std::string> ModelCheck::symbols()
{
    for (std::size_t i = 0; i < mModel.symbols.size(); ++i)
    {
        SymbolRecord const& symbol = mModel.symbols[i];
        std::string const what = cat("symbol ", i, " (", quotedText(symbol.name), ")");
        if (symbol.tensor != kNoTensor && !inRange(symbol.tensor, mModel.tensors.size()))
        {
            return cat(what, " refers to ", tensorRange(symbol.tensor));
        }
        for (int32_t const expr : {symbol.optimum, symbol.upperBound})
        {
            if (expr != -1 && !inRange(expr, mModel.exprs.size()))
            {
                return cat(what, " has bound ", exprRange(expr));
            }
        }
        switch (symbol.kind)
        {
        case SymbolKind::kINPUT_EXTENT:
        {
            if (symbol.tensor == kNoTensor || !mModel.tensors[static_cast<std::size_t>(symbol.tensor)].isInput)
            {
                return cat(what, " is an input extent, but ",
                    symbol.tensor == kNoTensor ? std::string("names no tensor")
                                               : tensor(symbol.tensor) + " is not a network input");
            }
            std::size_t const rank = mModel.tensors[static_cast<std::size_t>(symbol.tensor)].shape.size();
            if (!inRange(symbol.index, rank))
            {
                return cat(what, " is extent ", symbol.index, " of ", tensor(symbol.tensor), ", which has rank ", rank);
            }
            continue;
        }
        case SymbolKind::kSHAPE_VALUE:
        {
            if (symbol.tensor == kNoTensor)
            {
                continue;
            }
            TensorRecord const& source = mModel.tensors[static_cast<std::size_t>(symbol.tensor)];
            if (!isIndexType(source.type))
            {
                return cat(what, " is a value of ", tensor(symbol.tensor), " of type ", dataTypeName(source.type),
                    "; shape values are kINT32 or kINT64");
            }
            auto const volume = constantVolume(source);
            if (symbol.index < 0 || (volume && symbol.index >= *volume))
            {
                return cat(what, " is value ", symbol.index, " of ", tensor(symbol.tensor), ", which has ",
                    volume ? cat(*volume) : std::string("a run-time number of"), " values");
            }
            continue;
        }
        case SymbolKind::kSIZE_TENSOR: continue;
        }
        return cat(what, " has kind ", symbol.kind, "; kinds are 0 (input extent), 1 (shape value), 2 (size tensor)");
    }
    return std::nullopt;
}

std::optional<std::string> ModelCheck::tensors()
{
    for (std::size_t i = 0; i < mModel.tensors.size(); ++i)
    {
        TensorRecord const& record = mModel.tensors[i];
        auto const what = tensor(static_cast<int64_t>(i));
        if (!isKnownDataType(record.type))
        {
            return cat(what, " has data type ", record.type, ", which is not a DataType");
        }
        if (!isValidEnum(record.format))
        {
            return cat(what, " has format ", record.format, ", which is not a TensorFormat");
        }
        if (record.shape.size() > static_cast<std::size_t>(Dims::MAX_DIMS))
        {
            return cat(what, " has rank ", record.shape.size(), "; the largest rank is ", Dims::MAX_DIMS);
        }
        for (std::size_t d = 0; d < record.shape.size(); ++d)
        {
            if (record.shape[d] >= mModel.exprs.size())
            {
                return cat(what, " extent ", d, " refers to ", exprRange(record.shape[d]));
            }
            if (auto const value = constant(record.shape[d]); value && *value < 0)
            {
                return cat(what, " extent ", d, " is the constant ", *value);
            }
        }
        if (record.values)
        {
            for (std::size_t v = 0; v < record.values->size(); ++v)
            {
                if ((*record.values)[v] >= mModel.exprs.size())
                {
                    return cat(what, " value ", v, " refers to ", exprRange((*record.values)[v]));
                }
            }
            if (auto const volume = constantVolume(record);
                volume && static_cast<uint64_t>(*volume) != record.values->size())
            {
                return cat(what, " has ", record.values->size(), " value expressions but ", *volume, " elements");
            }
        }
        if (!std::isfinite(record.scale) || record.scale <= 0.F)
        {
            return cat(what, " has scale ", record.scale, "; scales are positive and finite");
        }
        if (record.producer != -1 && !inRange(record.producer, mModel.layers.size()))
        {
            return cat(what, " names layer ", record.producer, " as its producer, but the engine has ",
                mModel.layers.size(), " layers");
        }
        if (record.isShapeTensor && !record.isInput && !record.isOutput)
        {
            return cat(what, " is marked a shape tensor but is not a network input or output");
        }
        if (record.isShapeTensor && record.shape.size() > 1)
        {
            return cat(what, " is a shape tensor of rank ", record.shape.size(), "; shape tensors have rank 0 or 1");
        }
    }
    return std::nullopt;
}

std::optional<std::string> ModelCheck::layers()
{
    // Outputs first: which layer makes each tensor, so that inputs can be checked against execution order.
    for (std::size_t l = 0; l < mModel.layers.size(); ++l)
    {
        LayerRecord const& record = mModel.layers[l];
        auto const kind = layerKindIndex(record.type);
        if (!kind)
        {
            return cat(layer(l), " has type ", record.type, ", which is not a layer kind kiln offers");
        }
        if (layerTypeOf(record.params) != record.type)
        {
            return cat(layer(l), " is an ", layerClassName(record.type), " but holds the parameters of an ",
                layerClassName(layerTypeOf(record.params)));
        }
        KindArity const& arity = kKindArity[*kind];
        auto const nbInputs = static_cast<int64_t>(record.inputs.size());
        auto const nbOutputs = static_cast<int64_t>(record.outputs.size());
        if (nbInputs < arity.minInputs || nbInputs > arity.maxInputs)
        {
            return cat(layer(l), " (", layerClassName(record.type), ") has ", nbInputs, " inputs; the kind takes ",
                countRange(arity.minInputs, arity.maxInputs));
        }
        if (nbOutputs < arity.minOutputs || nbOutputs > arity.maxOutputs)
        {
            return cat(layer(l), " (", layerClassName(record.type), ") has ", nbOutputs, " outputs; the kind makes ",
                countRange(arity.minOutputs, arity.maxOutputs));
        }
        for (std::size_t o = 0; o < record.outputs.size(); ++o)
        {
            int32_t const t = record.outputs[o];
            if (!inRange(t, mModel.tensors.size()))
            {
                return cat(layer(l), " output ", o, " refers to ", tensorRange(t));
            }
            if (mModel.tensors[static_cast<std::size_t>(t)].isInput)
            {
                return cat(layer(l), " output ", o, " is ", tensor(t), ", a network input");
            }
            int32_t& madeBy = mMadeBy[static_cast<std::size_t>(t)];
            if (madeBy != -1)
            {
                return cat(tensor(t), " is made by both ", layer(static_cast<std::size_t>(madeBy)), " and ", layer(l));
            }
            madeBy = static_cast<int32_t>(l);
        }
    }
    for (std::size_t l = 0; l < mModel.layers.size(); ++l)
    {
        LayerRecord const& record = mModel.layers[l];
        KindArity const& arity = kKindArity[*layerKindIndex(record.type)];
        for (std::size_t i = 0; i < record.inputs.size(); ++i)
        {
            int32_t const t = record.inputs[i];
            if (t == kNoTensor)
            {
                if (static_cast<int64_t>(i) < arity.optionalFrom)
                {
                    return cat(
                        layer(l), " input ", i, " is absent, but the ", layerClassName(record.type), " needs it");
                }
                continue;
            }
            if (!inRange(t, mModel.tensors.size()))
            {
                return cat(layer(l), " input ", i, " refers to ", tensorRange(t));
            }
            if (mModel.tensors[static_cast<std::size_t>(t)].isInput)
            {
                continue;
            }
            int32_t const madeBy = mMadeBy[static_cast<std::size_t>(t)];
            if (madeBy == -1)
            {
                return cat(layer(l), " input ", i, " is ", tensor(t),
                    ", which is neither a network input nor made by a layer");
            }
            if (static_cast<std::size_t>(madeBy) >= l)
            {
                return cat(layer(l), " input ", i, " is ", tensor(t), ", made by ",
                    layer(static_cast<std::size_t>(madeBy)), ", which does not run before it");
            }
        }
        ParamsCheck check(mBlobs, mModel.weights.size());
        std::visit([&check](auto const& p) { check.check(p); }, record.params);
        if (check.problem())
        {
            return cat(layer(l), " (", layerClassName(record.type), ") ", *check.problem());
        }
    }
    for (std::size_t t = 0; t < mModel.tensors.size(); ++t)
    {
        int32_t const producer = mModel.tensors[t].producer;
        if (producer != mMadeBy[t])
        {
            return cat(tensor(static_cast<int64_t>(t)), " records producer ", producer, ", but ",
                mMadeBy[t] == -1 ? std::string("no layer makes it")
                                 : cat("it is made by ", layer(static_cast<std::size_t>(mMadeBy[t]))));
        }
    }
    return std::nullopt;
}

std::optional<std::string> ModelCheck::assertions()
{
    for (std::size_t i = 0; i < mModel.assertions.size(); ++i)
    {
        AssertionRecord const& assertion = mModel.assertions[i];
        if (assertion.condition >= mModel.exprs.size())
        {
            return cat(
                "assertion ", i, " (", quotedText(assertion.message), ") tests ", exprRange(assertion.condition));
        }
        if (assertion.layer != -1 && !inRange(assertion.layer, mModel.layers.size()))
        {
            return cat("assertion ", i, " (", quotedText(assertion.message), ") names layer ", assertion.layer,
                ", but the engine has ", mModel.layers.size(), " layers");
        }
    }
    return std::nullopt;
}

std::optional<std::string> ModelCheck::ioTensors()
{
    std::size_t const size = mModel.ioTensors.size();
    if (mModel.nbInputs < 0 || static_cast<std::size_t>(mModel.nbInputs) > size)
    {
        return cat("the engine has ", mModel.nbInputs, " inputs among ", size, " I/O tensors");
    }
    std::vector<bool> listed(mModel.tensors.size(), false);
    std::unordered_map<std::string_view, std::size_t> named; // I/O tensor names, to their first position.
    for (std::size_t k = 0; k < size; ++k)
    {
        int32_t const t = mModel.ioTensors[k];
        if (!inRange(t, mModel.tensors.size()))
        {
            return cat("I/O tensor ", k, " refers to ", tensorRange(t));
        }
        auto const index = static_cast<std::size_t>(t);
        TensorRecord const& record = mModel.tensors[index];
        if (listed[index])
        {
            return cat(tensor(t), " appears twice among the I/O tensors");
        }
        listed[index] = true;
        bool const asInput = k < static_cast<std::size_t>(mModel.nbInputs);
        if (asInput ? !record.isInput : !record.isOutput)
        {
            return cat(
                "I/O tensor ", k, " is ", tensor(t), ", which is not marked a network ", asInput ? "input" : "output");
        }
        if (record.name.empty())
        {
            return cat("I/O tensor ", k, " (tensor ", t, ") has no name");
        }
        if (auto const [first, added] = named.try_emplace(record.name, k); !added)
        {
            return cat("I/O tensors ", first->second, " and ", k, " are both named ", quotedText(record.name));
        }
        if (record.isOutput && !record.isInput && mMadeBy[index] == -1)
        {
            return cat("network output ", tensor(t), " is made by no layer");
        }
    }
    for (std::size_t t = 0; t < mModel.tensors.size(); ++t)
    {
        TensorRecord const& record = mModel.tensors[t];
        if ((record.isInput || record.isOutput) && !listed[t])
        {
            return cat(tensor(static_cast<int64_t>(t)), " is marked a network ", record.isInput ? "input" : "output",
                " but is not among the I/O tensors");
        }
    }
    return std::nullopt;
}

std::optional<std::string> ModelCheck::profileInput(std::size_t p, std::size_t k) const
{
    ProfileRecord::Input const& input = mModel.profiles[p].inputs[k];
    int32_t const t = mModel.ioTensors[k];
    if (input.tensor != t)
    {
        return cat(
            "profile ", p, " input ", k, " is for tensor ", input.tensor, ", but network input ", k, " is ", tensor(t));
    }
    TensorRecord const& record = mModel.tensors[static_cast<std::size_t>(t)];
    auto const what = cat("profile ", p, " input ", k, " (", quotedText(record.name), ")");
    auto const rank = static_cast<int32_t>(record.shape.size());
    std::array<Dims const*, 3> const shapes{&input.min, &input.opt, &input.max};
    std::array<char const*, 3> const names{"kMIN", "kOPT", "kMAX"};
    for (std::size_t s = 0; s < shapes.size(); ++s)
    {
        if (shapes[s]->nbDims != rank)
        {
            return cat(what, ": ", names[s], " has rank ", shapes[s]->nbDims, ", but the tensor has rank ", rank);
        }
    }
    for (int32_t d = 0; d < rank; ++d)
    {
        if (input.min.d[d] < 0 || input.min.d[d] > input.opt.d[d] || input.opt.d[d] > input.max.d[d])
        {
            return cat(what, ": extent ", d, " has kMIN ", input.min.d[d], ", kOPT ", input.opt.d[d], ", kMAX ",
                input.max.d[d], "; they must satisfy 0 <= kMIN <= kOPT <= kMAX");
        }
    }
    std::size_t const nbValues = input.optValues.size();
    if (input.minValues.size() != nbValues || input.maxValues.size() != nbValues)
    {
        return cat(what, ": ", input.minValues.size(), " kMIN values, ", nbValues, " kOPT values and ",
            input.maxValues.size(), " kMAX values");
    }
    if (!record.isShapeTensor)
    {
        if (nbValues != 0)
        {
            return cat(what, ": shape values are given, but the tensor is not a shape tensor");
        }
        return std::nullopt;
    }
    auto const volume = staticVolume(input.opt);
    if (!volume || static_cast<uint64_t>(*volume) != nbValues)
    {
        return cat(what, ": ", nbValues, " shape values for a shape tensor of shape ", input.opt);
    }
    for (std::size_t v = 0; v < nbValues; ++v)
    {
        if (input.minValues[v] > input.optValues[v] || input.optValues[v] > input.maxValues[v])
        {
            return cat(what, ": value ", v, " has kMIN ", input.minValues[v], ", kOPT ", input.optValues[v], ", kMAX ",
                input.maxValues[v], "; they must satisfy kMIN <= kOPT <= kMAX");
        }
    }
    return std::nullopt;
}

std::optional<std::string> ModelCheck::profiles()
{
    if (mModel.profiles.empty())
    {
        return "the engine has no optimization profile";
    }
    if (mModel.deviceMemorySize < 0)
    {
        return cat("the engine's device memory size is negative (", mModel.deviceMemorySize, ")");
    }
    for (std::size_t p = 0; p < mModel.profiles.size(); ++p)
    {
        ProfileRecord const& profile = mModel.profiles[p];
        if (profile.inputs.size() != static_cast<std::size_t>(mModel.nbInputs))
        {
            return cat("profile ", p, " has ", profile.inputs.size(), " inputs, but the engine has ", mModel.nbInputs,
                " network inputs");
        }
        for (std::size_t k = 0; k < profile.inputs.size(); ++k)
        {
            if (auto problem = profileInput(p, k))
            {
                return problem;
            }
        }
        if (profile.activationBytes < 0 || profile.activationBytes > mModel.deviceMemorySize)
        {
            return cat("profile ", p, " needs ", profile.activationBytes,
                " bytes of activation memory, but the engine's device memory size is ", mModel.deviceMemorySize);
        }
        if (profile.offsets.size() != mModel.tensors.size())
        {
            return cat("profile ", p, " has ", profile.offsets.size(), " offsets, but the engine has ",
                mModel.tensors.size(), " tensors");
        }
        for (std::size_t t = 0; t < profile.offsets.size(); ++t)
        {
            int64_t const offset = profile.offsets[t];
            if (offset == -1)
            {
                continue;
            }
            TensorRecord const& record = mModel.tensors[t];
            if (record.isInput || record.isOutput)
            {
                return cat("profile ", p, " places I/O ", tensor(static_cast<int64_t>(t)),
                    " in the activation block (offset ", offset, "); I/O tensors live in the application's memory");
            }
            if (offset < 0 || offset > profile.activationBytes)
            {
                return cat("profile ", p, " places ", tensor(static_cast<int64_t>(t)), " at offset ", offset,
                    ", outside its activation block of ", profile.activationBytes, " bytes");
            }
        }
    }
    return std::nullopt;
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

std::optional<std::string> modelProblem(EngineModel const& model)
{
    return ModelCheck(model).run();
}

} // namespace kiln
