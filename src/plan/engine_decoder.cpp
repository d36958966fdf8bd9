// SPDX-License-Identifier: Apache-2.0
// The plan payload's decoder (schema: engine.fbs): the envelope, the FlatBuffers verifier, then a model read from the
// verified buffer. The model checks it runs last are plan/model_check.cpp's; what it shares with the encoder is
// plan/engine_codec_internal.h.
#include "plan/engine_codec.h"

#include "core/data_type.h"
#include "plan/engine_codec_internal.h"
#include "plan/model_check.h"
#include "plan/model_support.h"
#include "plan/refit.h"

#include <algorithm>
#include <cstring>

namespace kiln
{
namespace
{

using nvinfer1::ErrorCode;

//! A refusal of the payload of a plan.
Error payloadError(std::string message)
{
    return Error{ErrorCode::kINVALID_ARGUMENT, "cannot load the plan: plan payload: " + std::move(message)};
}

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
    //! engine lies in a payload of payloadBytes bytes.
    Decoder(fb::Engine const& engine, std::size_t payloadBytes)
        : mEngine(engine)
        , mPayloadBytes(payloadBytes)
    {
    }

    Expected<EngineModel> run();

private:
    //! The plugin libraries the plan carries (format 4.4), into mModel.
    void pluginLibraries();

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
        std::span<uint8_t const> const bytes = mModel.weights[static_cast<std::size_t>(blob)].view();
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
    LayerParams read(fb::DeconvolutionParams const& f)
    {
        DeconvolutionParams p;
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
    LayerParams read(fb::CumulativeParams const& f)
    {
        return CumulativeParams{
            static_cast<nvinfer1::CumulativeOperation>(f.op()), f.exclusive(), f.reverse(), f.axis()};
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
    LayerParams read(fb::TopKParams const& f)
    {
        return TopKParams{
            static_cast<nvinfer1::TopKOperation>(f.op()), f.k(), f.axes(), static_cast<DataType>(f.indices_type())};
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
    LayerParams read(fb::PluginV2Params const& f)
    {
        PluginV2Params p;
        p.identity = identity(*f.identity());
        p.level = f.level();
        p.outputTypes = types(*f.output_types());
        p.plan = pluginPlan(*f.plan());
        return p;
    }
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
    LayerParams read(fb::ResizeParams const& f)
    {
        ResizeParams p;
        p.outputDims = dims(f.output_dims(), "outputDims");
        if (f.scales() != nullptr && f.scales()->size() > static_cast<uint32_t>(Dims::MAX_DIMS))
        {
            fail(cat(mWhere, ": scales has ", f.scales()->size(), " entries; a resize has at most ", Dims::MAX_DIMS));
        }
        else if (f.scales() != nullptr)
        {
            p.scales.assign(f.scales()->begin(), f.scales()->end());
        }
        p.mode = static_cast<nvinfer1::InterpolationMode>(f.mode());
        p.transformation = static_cast<nvinfer1::ResizeCoordinateTransformation>(f.transformation());
        p.selector = static_cast<nvinfer1::ResizeSelector>(f.selector());
        p.rounding = static_cast<nvinfer1::ResizeRoundMode>(f.rounding());
        p.cubicCoeff = f.cubic_coeff();
        p.excludeOutside = f.exclude_outside();
        return p;
    }
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
    LayerParams read(fb::QuantizeParams const& f)
    {
        return QuantizeParams{f.axis(), dims(f.block_shape(), "blockShape"), static_cast<DataType>(f.to_type())};
    }
    LayerParams read(fb::DequantizeParams const& f)
    {
        return DequantizeParams{f.axis(), dims(f.block_shape(), "blockShape"), static_cast<DataType>(f.to_type())};
    }
    LayerParams read(fb::ScatterParams const& f)
    {
        return ScatterParams{static_cast<nvinfer1::ScatterMode>(f.mode()), f.axis()};
    }
    LayerParams read(fb::EinsumParams const& f) { return EinsumParams{text(f.equation())}; }
    LayerParams read(fb::GridSampleParams const& f)
    {
        return GridSampleParams{static_cast<nvinfer1::InterpolationMode>(f.mode()), f.align_corners(),
            static_cast<nvinfer1::SampleMode>(f.sample_mode())};
    }
    LayerParams read(fb::ReverseSequenceParams const& f)
    {
        return ReverseSequenceParams{f.batch_axis(), f.sequence_axis()};
    }
    LayerParams read(fb::NonZeroParams const& f) { return NonZeroParams{static_cast<DataType>(f.indices_type())}; }
    LayerParams read(fb::NMSParams const& f)
    {
        return NMSParams{static_cast<nvinfer1::BoundingBoxFormat>(f.bounding_box_format()), f.top_k_box_limit(),
            static_cast<DataType>(f.indices_type())};
    }
    LayerParams read(fb::ConditionParams const& f) { return ConditionParams{f.conditional()}; }
    LayerParams read(fb::IfConditionalInputParams const& f) { return IfConditionalInputParams{f.conditional()}; }
    LayerParams read(fb::IfConditionalOutputParams const& f) { return IfConditionalOutputParams{f.conditional()}; }
    LayerParams read(fb::TripLimitParams const& f)
    {
        return TripLimitParams{f.loop(), static_cast<nvinfer1::TripLimit>(f.kind())};
    }
    LayerParams read(fb::RecurrenceParams const& f) { return RecurrenceParams{f.loop()}; }
    LayerParams read(fb::IteratorParams const& f) { return IteratorParams{f.loop(), f.axis(), f.reverse()}; }
    LayerParams read(fb::LoopOutputParams const& f)
    {
        return LoopOutputParams{f.loop(), static_cast<nvinfer1::LoopOutput>(f.kind()), f.axis()};
    }
    LayerParams read(fb::PluginV3Params const& f)
    {
        PluginV3Params p;
        p.identity = identity(*f.identity());
        p.nbInputs = f.nb_inputs();
        p.nbShapeInputs = f.nb_shape_inputs();
        p.outputTypes = types(*f.output_types());
        p.plan = pluginPlan(*f.plan());
        return p;
    }

    static PluginIdentity identity(fb::PluginIdentity const& f)
    {
        return PluginIdentity{f.name()->str(), f.version()->str(), f.namespace_()->str()};
    }

    static std::vector<DataType> types(flatbuffers::Vector<int32_t> const& f)
    {
        std::vector<DataType> result;
        for (int32_t raw : f)
        {
            result.push_back(static_cast<DataType>(raw));
        }
        return result;
    }

    PluginPlanRecord pluginPlan(fb::PluginPlan const& f)
    {
        PluginPlanRecord plan;
        if (f.fields() != nullptr)
        {
            for (fb::PluginField const* field : *f.fields())
            {
                plan.fields.push_back(
                    PluginFieldRecord{field->name()->str(), static_cast<nvinfer1::PluginFieldType>(field->type()),
                        field->length(), std::vector<uint8_t>(field->data()->begin(), field->data()->end())});
            }
        }
        if (f.serialized() != nullptr)
        {
            plan.serialized.assign(f.serialized()->begin(), f.serialized()->end());
        }
        plan.tactic = f.tactic();
        plan.workspaceBytes = f.workspace_bytes();
        if (f.aliased_inputs() != nullptr)
        {
            plan.aliasedInputs.assign(f.aliased_inputs()->begin(), f.aliased_inputs()->end());
        }
        plan.language = static_cast<nvinfer1::APILanguage>(f.language()); // model_check rejects other values.
        if (f.aot() != nullptr)
        {
            plan.aot = aotKernel(*f.aot());
        }
        return plan;
    }

    //! The ahead-of-time kernel of a V3 plugin layer (format 4.6); the model check checks its expressions.
    AotKernelRecord aotKernel(fb::AotKernel const& f)
    {
        AotKernelRecord aot;
        aot.kernelName = f.kernel_name()->str();
        aot.ptx.assign(f.ptx()->begin(), f.ptx()->end());
        for (fb::AotExpr const* node : *f.nodes())
        {
            aot.nodes.push_back(AotExprNode{static_cast<AotExprNode::Kind>(node->kind()), node->value(), node->input(),
                node->axis(), static_cast<nvinfer1::DimensionOperation>(node->op()), node->lhs(), node->rhs()});
        }
        if (f.launch()->size() != kAotLaunchValues)
        {
            fail(cat(mWhere, ": the AOT kernel '", aot.kernelName, "' has ", f.launch()->size(),
                " launch values; it has ", kAotLaunchValues, " (grid x/y/z, block x/y/z, shared memory)"));
            return aot;
        }
        std::copy(f.launch()->begin(), f.launch()->end(), aot.launch.begin());
        if (f.scalars() != nullptr)
        {
            aot.scalars.assign(f.scalars()->begin(), f.scalars()->end());
        }
        return aot;
    }

    LayerParams params(fb::Layer const& flat);
    ProfileRecord profile(fb::Profile const& flat);

    fb::Engine const& mEngine;
    std::size_t mPayloadBytes;
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
        int64_t strippedBytes = 0;
        for (flatbuffers::uoffset_t i = 0; i < blobs->size(); ++i)
        {
            fb::WeightsBlob const& blob = *blobs->Get(i);
            auto const type = static_cast<DataType>(blob.type());
            if (!blob.stripped())
            {
                mModel.weights.push_back(WeightsBlob{type, blob.count(), copy(blob.bytes())});
                continue;
            }
            // A stripped blob holds zeros until a refit gives its values; it takes what the plan would have held.
            int64_t const bytes = isValidEnum(type) ? weightsBytes(type, blob.count()) : -1;
            if (bytes < 0 || (blob.bytes() != nullptr && blob.bytes()->size() != 0)
                || static_cast<uint64_t>(bytes) > kMaxPayloadBytes - static_cast<uint64_t>(strippedBytes))
            {
                return payloadError(cat("weights blob ", i, " was left out of the plan but says it has ", blob.count(),
                    " elements of type ", blob.type(), " and ", blob.bytes() != nullptr ? blob.bytes()->size() : 0,
                    " bytes; stripped weights take no bytes, and a plan's weights at most ", kMaxPayloadBytes,
                    " bytes"));
            }
            strippedBytes += bytes;
            WeightsBlob zeros{type, blob.count(), std::vector<uint8_t>(static_cast<std::size_t>(bytes))};
            zeros.stripped = true;
            mModel.weights.push_back(std::move(zeros));
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
            record.isDebug = tensor->is_debug();
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
            record.tactic = flat.tactic();
            record.tacticName = text(flat.tactic_name());
            if (auto const* epilogue = flat.epilogue())
            {
                record.epilogue = ActivationParams{
                    static_cast<nvinfer1::ActivationType>(epilogue->type()), epilogue->alpha(), epilogue->beta()};
            }
            if (auto const* steps = flat.pointwise())
            {
                for (fb::PointwiseStep const* step : *steps)
                {
                    record.pointwise.push_back(PointwiseStep{static_cast<PointwiseStep::Kind>(step->kind()), step->op(),
                        step->alpha(), step->beta(), step->a(), step->b()});
                }
            }
            record.scale = flat.scale();
            record.viewsInput = flat.views_input();
            if (auto const* fused = flat.fused())
            {
                record.fused = FusedKernel{static_cast<FusedKernel::Kind>(fused->kind()), fused->epsilon(),
                    fused->heads(), fused->scale(), fused->zero_masked_rows(), fused->packed_qkv(), fused->gathers(),
                    fused->wrapped(), fused->normalize(), fused->norm_affine()};
            }
            if (auto const* refit = flat.refit())
            {
                if (refit->size() != static_cast<flatbuffers::uoffset_t>(kRefitSlots))
                {
                    fail(cat(mWhere, ": ", refit->size(), " refit slots; a layer has ", kRefitSlots));
                }
                else
                {
                    std::copy(refit->begin(), refit->end(), record.refit.begin());
                }
            }
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
    mModel.tacticSources = mEngine.tactic_sources();
    mModel.profilingVerbosity = static_cast<nvinfer1::ProfilingVerbosity>(mEngine.profiling_verbosity());
    mModel.refit.mode = static_cast<RefitRecord::Mode>(mEngine.refit_mode());
    mModel.refit.strip = mEngine.refit_strip();
    if (auto const* refit = mEngine.refit_weights())
    {
        for (fb::RefitWeights const* entry : *refit)
        {
            mModel.refit.weights.push_back(
                RefitWeightsRecord{text(entry->layer()), static_cast<nvinfer1::WeightsRole>(entry->role()),
                    text(entry->name()), static_cast<DataType>(entry->type()), entry->count()});
        }
    }
    pluginLibraries();
    if (mError)
    {
        return *mError;
    }
    return std::move(mModel);
}

void Decoder::pluginLibraries()
{
    auto const* libraries = mEngine.plugin_libraries();
    if (libraries == nullptr)
    {
        return;
    }
    // Tables may share one vector: libraries whose bytes add up to more than the payload would be copied many
    // times over (a small hostile plan could ask for terabytes).
    uint64_t total = 0;
    for (fb::PluginLibrary const* library : *libraries)
    {
        total += library->bytes() != nullptr ? library->bytes()->size() : 0;
    }
    if (total > mPayloadBytes)
    {
        fail(cat("the plugin libraries' bytes add up to ", total, ", more than the payload's ", mPayloadBytes,
            " (libraries share their bytes)"));
        return;
    }
    for (fb::PluginLibrary const* library : *libraries)
    {
        PluginLibraryRecord record;
        record.name = text(library->name());
        if (auto const* bytes = library->bytes())
        {
            record.bytes.assign(bytes->begin(), bytes->end());
        }
        record.checksum = library->checksum();
        if (auto const* creators = library->creators())
        {
            for (fb::PluginCreator const* creator : *creators)
            {
                record.creators.push_back(PluginCreatorRecord{
                    PluginIdentity{text(creator->name()), text(creator->version()), text(creator->plugin_namespace())},
                    static_cast<PluginCreatorRecord::Kind>(creator->kind())});
            }
        }
        mModel.pluginLibraries.push_back(std::move(record));
    }
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
    auto model = Decoder(*fb::GetEngine(payload.data()), payload.size()).run();
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
