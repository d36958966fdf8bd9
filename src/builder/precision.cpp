// SPDX-License-Identifier: Apache-2.0
#include "builder/precision.h"

#include "builder/weights_blobs.h"
#include "core/data_type.h"
#include "core/float_convert.h"
#include "core/logging.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>

namespace kiln
{
namespace
{

using nvinfer1::BuilderFlag;

bool validTensor(EngineModel const& model, int32_t tensor) noexcept
{
    return tensor >= 0 && static_cast<std::size_t>(tensor) < model.tensors.size();
}

//! Whether a layer of this kind has kernels for 16-bit floats and keeps its accuracy in them (file comment).
bool reducible(LayerRecord const& layer) noexcept
{
    if (layer.fused || !layer.pointwise.empty())
    {
        return true; // fused layer norms, attention and point-wise programs compute in float inside
    }
    switch (layer.type)
    {
    case LayerType::kCONVOLUTION:
    case LayerType::kDECONVOLUTION:
    case LayerType::kMATRIX_MULTIPLY:
    case LayerType::kACTIVATION:
    case LayerType::kPOOLING:
    case LayerType::kSOFTMAX:
    case LayerType::kCONCATENATION:
    case LayerType::kSHUFFLE:
    case LayerType::kSLICE:
    case LayerType::kGATHER:
    case LayerType::kIDENTITY:
    case LayerType::kSELECT:
    case LayerType::kRESIZE:
    case LayerType::kPADDING:
    case LayerType::kEINSUM: return true;
    case LayerType::kELEMENTWISE:
        return std::get<ElementWiseParams>(layer.params).op != nvinfer1::ElementWiseOperation::kPOW;
    case LayerType::kUNARY: return std::get<UnaryParams>(layer.params).op != nvinfer1::UnaryOperation::kEXP;
    case LayerType::kREDUCE:
    {
        auto const op = std::get<ReduceParams>(layer.params).op;
        return op == nvinfer1::ReduceOperation::kMAX || op == nvinfer1::ReduceOperation::kMIN;
    }
    default: return false;
    }
}

//! Whether a fusion changed the layer (a fused kernel, a point-wise program, an epilogue, a folded scale, a bias or
//! residual input): the backend's per-kind check does not describe it.
bool fusedRecord(LayerRecord const& layer) noexcept
{
    std::size_t const natural = layer.type == LayerType::kMATRIX_MULTIPLY ? 2U
        : layer.type == LayerType::kCONVOLUTION                           ? 3U
                                                                          : layer.inputs.size();
    return layer.fused || !layer.pointwise.empty() || layer.epilogue || layer.scale != 1.F
        || layer.inputs.size() > natural;
}

//! Kinds whose inputs may be of any type without a cast before them: a cast converts, a shape reads extents.
bool readsAnyType(LayerRecord const& layer) noexcept
{
    return !layer.fused && (layer.type == LayerType::kCAST || layer.type == LayerType::kSHAPE);
}

class PrecisionPass
{
public:
    PrecisionPass(EngineModel& model, KeptTensors& kept, BuildSettings const& settings, Backend const& backend,
        std::vector<ConcreteShapes> const& profiles, DataType reduced)
        : mModel(model)
        , mKept(kept)
        , mBackend(backend)
        , mProfiles(profiles)
        , mReduced(reduced)
        , mObey(hasFlag(settings, BuilderFlag::kOBEY_PRECISION_CONSTRAINTS))
        , mPrefer(hasFlag(settings, BuilderFlag::kPREFER_PRECISION_CONSTRAINTS))
        , mOriginal(model.tensors.size())
    {
        for (std::size_t t = 0; t < model.tensors.size(); ++t)
        {
            mOriginal[t] = model.tensors[t].type;
        }
    }

    Expected<int32_t> run()
    {
        pinTensors();
        std::vector<bool> reduced(mModel.layers.size(), false);
        int32_t count = 0;
        for (std::size_t l = 0; l < mModel.layers.size(); ++l)
        {
            auto const chosen = choose(mModel.layers[l]);
            if (!chosen)
            {
                return chosen.error();
            }
            reduced[l] = chosen.value();
        }
        chooseConstants(reduced);
        for (std::size_t l = 0; l < mModel.layers.size(); ++l)
        {
            if (reduced[l])
            {
                retypeOutputs(mModel.layers[l]);
                ++count;
            }
        }
        insertCasts(reduced);
        return count;
    }

private:
    //! Tensors that keep their type: I/O, shape values and symbols' tensors, outputs whose type was set.
    void pinTensors()
    {
        std::unordered_set<Tensor const*> const shapes
            = mKept.list.empty() ? std::unordered_set<Tensor const*>{} : shapeTensors(mKept.list.front()->network());
        mPinned.assign(mModel.tensors.size(), false);
        mValues.assign(mModel.tensors.size(), false);
        for (std::size_t t = 0; t < mModel.tensors.size(); ++t)
        {
            TensorRecord const& tensor = mModel.tensors[t];
            Tensor const* network = mKept.list[t];
            Layer const* producer = network->producer();
            bool const typeSet
                = producer != nullptr && producer->requestedOutputType(network->producerOutput()).has_value();
            mValues[t] = tensor.values.has_value() || shapes.count(network) != 0;
            mPinned[t] = tensor.type != DataType::kFLOAT || tensor.isInput || tensor.isOutput || tensor.isDebug
                || mValues[t] || typeSet;
        }
        // A plugin's data inputs and outputs have the types it negotiated (builder/plugin_build.cpp), and a tensor in a
        // format other than kLINEAR is the reformatted twin of one: it holds the bytes of that type.
        for (LayerRecord const& layer : mModel.layers)
        {
            bool const plugin = layer.type == LayerType::kPLUGIN_V2 || layer.type == LayerType::kPLUGIN_V3;
            for (auto const* list : {&layer.inputs, &layer.outputs})
            {
                for (int32_t t : *list)
                {
                    if (validTensor(mModel, t)
                        && (plugin
                            || mModel.tensors[static_cast<std::size_t>(t)].format != nvinfer1::TensorFormat::kLINEAR))
                    {
                        mPinned[static_cast<std::size_t>(t)] = true;
                    }
                }
            }
        }
        for (SymbolRecord const& symbol : mModel.symbols)
        {
            // Values read as symbols (an input's extents are not its values).
            if (symbol.kind != SymbolKind::kINPUT_EXTENT && validTensor(mModel, symbol.tensor))
            {
                mPinned[static_cast<std::size_t>(symbol.tensor)] = true;
                mValues[static_cast<std::size_t>(symbol.tensor)] = true;
            }
        }
    }

    //! The precision set on the network layer behind record (through its first output), if any.
    std::optional<DataType> precisionSet(LayerRecord const& layer) const
    {
        if (layer.outputs.empty() || !validTensor(mModel, layer.outputs.front()))
        {
            return std::nullopt;
        }
        Layer const* producer = mKept.list[static_cast<std::size_t>(layer.outputs.front())]->producer();
        return producer != nullptr ? producer->precision() : std::nullopt;
    }

    //! Whether the layer computes in the reduced type; an error when kOBEY_PRECISION_CONSTRAINTS cannot be met.
    Expected<bool> choose(LayerRecord const& layer)
    {
        if (isLoopOrConditionalBoundary(layer.type))
        {
            return false;
        }
        // Float data made or read: a comparison or an IsNaN reads 16-bit inputs without making float data.
        auto const floatData = [&](int32_t t) {
            return validTensor(mModel, t) && mOriginal[static_cast<std::size_t>(t)] == DataType::kFLOAT
                && !mValues[static_cast<std::size_t>(t)];
        };
        bool const hasFloatData = std::any_of(layer.outputs.begin(), layer.outputs.end(), floatData)
            || std::any_of(layer.inputs.begin(), layer.inputs.end(), floatData);
        bool const floatValues = std::any_of(layer.outputs.begin(), layer.outputs.end(), [&](int32_t t) {
            return validTensor(mModel, t) && mOriginal[static_cast<std::size_t>(t)] == DataType::kFLOAT
                && mValues[static_cast<std::size_t>(t)];
        });
        if (!hasFloatData || floatValues || layer.type == LayerType::kCONSTANT)
        {
            return false; // constants follow their readers (chooseConstants); float values stay as they are
        }
        auto const pinned = [&](int32_t t) { return !validTensor(mModel, t) || mPinned[static_cast<std::size_t>(t)]; };
        auto const formatted = [&](int32_t t) {
            return validTensor(mModel, t)
                && mModel.tensors[static_cast<std::size_t>(t)].format != nvinfer1::TensorFormat::kLINEAR;
        };
        bool const allPinned = std::all_of(layer.inputs.begin(), layer.inputs.end(), pinned)
            && std::all_of(layer.outputs.begin(), layer.outputs.end(), pinned);
        if (std::any_of(layer.inputs.begin(), layer.inputs.end(), formatted)
            || std::any_of(layer.outputs.begin(), layer.outputs.end(), formatted)
            || (layer.type == LayerType::kIDENTITY && !layer.fused && allPinned))
        {
            // A reformat around a plugin moves the bytes of the type the plugin negotiated; a copy between tensors that
            // keep their types (the builder's, for aliased plugin I/O) would only gain a cast on each side.
            return false;
        }
        std::optional<DataType> const constraint = (mObey || mPrefer) ? precisionSet(layer) : std::nullopt;
        if (constraint && *constraint != mReduced)
        {
            return false; // kFLOAT (or a type this pass does not give): the layer keeps its types
        }
        if (!constraint && !reducible(layer))
        {
            return false;
        }
        std::string why;
        if (accepts(layer, why))
        {
            return true;
        }
        std::string const message
            = "layer '" + layer.name + "' cannot run in " + dataTypeName(mReduced) + " on this backend: " + why;
        if (constraint && mObey)
        {
            return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
                message + " (its precision is set to " + dataTypeName(mReduced)
                    + " and kOBEY_PRECISION_CONSTRAINTS is set)"};
        }
        log(constraint ? Severity::kWARNING : Severity::kVERBOSE, message + "; it stays kFLOAT");
        return false;
    }

    //! The type input slot of layer reads when the layer computes in the reduced type.
    DataType wantedInput(int32_t tensor, bool reducedLayer) const
    {
        auto const t = static_cast<std::size_t>(tensor);
        return reducedLayer && mOriginal[t] == DataType::kFLOAT && !mValues[t] ? mReduced : mOriginal[t];
    }

    //! Whether the backend runs layer with its float data in the reduced type at each profile's kOPT shapes. Fused
    //! layers are not asked: the fusions take only kernels with 16-bit variants.
    bool accepts(LayerRecord const& layer, std::string& why) const
    {
        if (fusedRecord(layer))
        {
            return true;
        }
        for (ConcreteShapes const& profile : mProfiles)
        {
            LayerQuery query;
            for (int32_t input : layer.inputs)
            {
                if (!validTensor(mModel, input))
                {
                    query.inputs.emplace_back();
                    continue;
                }
                auto const found = profile.tensors.find(mKept.list[static_cast<std::size_t>(input)]);
                if (found == profile.tensors.end())
                {
                    return true; // a data-dependent shape: the run time checks
                }
                auto const& values = found->second.values;
                query.inputs.push_back(LayerQuery::Input{host::TensorDesc{wantedInput(input, true), found->second.opt},
                    values ? std::optional((*values)[1]) : std::nullopt});
            }
            for (int32_t output : layer.outputs)
            {
                auto const t = static_cast<std::size_t>(output);
                query.outputTypes.push_back(mOriginal[t] == DataType::kFLOAT ? mReduced : mOriginal[t]);
            }
            auto const made = mBackend.checkLayer(layer.params, query);
            if (!made)
            {
                why = made.error().message;
                return false;
            }
            if (made.value() && made.value()->type != query.outputTypes.front())
            {
                why = "its kernel makes " + std::string(dataTypeName(made.value()->type));
                return false;
            }
        }
        return true;
    }

    //! A constant whose every reader computes in the reduced type (reading it as data) is stored in it.
    void chooseConstants(std::vector<bool>& reduced)
    {
        std::vector<std::vector<std::size_t>> readers(mModel.tensors.size());
        for (std::size_t l = 0; l < mModel.layers.size(); ++l)
        {
            for (int32_t input : mModel.layers[l].inputs)
            {
                if (validTensor(mModel, input))
                {
                    readers[static_cast<std::size_t>(input)].push_back(l);
                }
            }
        }
        for (std::size_t l = 0; l < mModel.layers.size(); ++l)
        {
            LayerRecord& layer = mModel.layers[l];
            auto* constant = std::get_if<ConstantParams>(&layer.params);
            if (constant == nullptr || layer.outputs.size() != 1 || layer.refit[0] >= 0)
            {
                continue;
            }
            auto const t = static_cast<std::size_t>(layer.outputs.front());
            if (mPinned[t] || constant->weights.type != DataType::kFLOAT || readers[t].empty()
                || !std::all_of(readers[t].begin(), readers[t].end(), [&](std::size_t r) { return reduced[r]; }))
            {
                continue;
            }
            if (convertWeights(constant->weights, layer.name))
            {
                reduced[l] = true;
            }
        }
    }

    //! Stores float weights in the reduced type (builder/weights_blobs.h); false when they cannot be converted. Finite
    //! values beyond the largest half are clamped to it, with a warning that names the layer (as TensorRT does): an
    //! attention mask's "minus the largest float" stays a very negative number instead of becoming -inf, whose
    //! product with 0 would be NaN.
    bool convertWeights(nvinfer1::Weights& weights, std::string const& layer)
    {
        if (weights.type != DataType::kFLOAT || weights.count <= 0 || weights.values == nullptr)
        {
            return false;
        }
        auto const count = static_cast<std::size_t>(weights.count);
        std::vector<uint8_t> bytes(count * 2);
        auto const* from = static_cast<float const*>(weights.values);
        auto* to = reinterpret_cast<uint16_t*>(bytes.data());
        constexpr float kLargestHalf = 65504.F;
        int64_t clamped = 0;
        for (std::size_t i = 0; i < count; ++i)
        {
            float value = from[i];
            if (mReduced == DataType::kHALF && std::isfinite(value) && std::fabs(value) > kLargestHalf)
            {
                value = std::copysign(kLargestHalf, value);
                ++clamped;
            }
            to[i] = mReduced == DataType::kHALF ? floatToHalf(value) : floatToBf16(value);
        }
        if (clamped > 0)
        {
            log(Severity::kWARNING,
                "layer '" + layer + "': " + std::to_string(clamped) + " of " + std::to_string(count)
                    + " weights are beyond the range of kHALF; they are clamped to +-65504");
        }
        replaceWeights(mModel, weights, mReduced, std::move(bytes));
        return true;
    }

    //! The reduced layer's float data outputs take the reduced type; a 16-bit convolution's kernel and bias are
    //! stored in it (cuDNN adds a bias of the data's type in the convolution's own epilogue, in float; a float bias
    //! would leave the output staged in float for a separate pass), a deconvolution's kernel too.
    void retypeOutputs(LayerRecord& layer)
    {
        for (int32_t output : layer.outputs)
        {
            auto const t = static_cast<std::size_t>(output);
            if (mOriginal[t] == DataType::kFLOAT && !mPinned[t])
            {
                mModel.tensors[t].type = mReduced;
            }
        }
        if (layer.refit[0] >= 0)
        {
            return;
        }
        if (auto* conv = std::get_if<ConvolutionParams>(&layer.params))
        {
            convertWeights(conv->kernel, layer.name);
            convertWeights(conv->bias, layer.name);
        }
        else if (auto* deconv = std::get_if<DeconvolutionParams>(&layer.params))
        {
            convertWeights(deconv->kernel, layer.name);
        }
    }

    //! Casts before the readers that need another type than a tensor now has, and after reduced layers that make a
    //! network output or an output whose type the application set (it keeps its type; the layer writes a 16-bit
    //! twin).
    void insertCasts(std::vector<bool> const& reduced)
    {
        std::map<std::pair<int32_t, DataType>, int32_t> casts; // (tensor, type) -> its cast, once made
        insertAround(mModel, [&](std::size_t l, LayerRecord& layer) {
            AroundLayer around;
            bool const reducedLayer = reduced[l];
            for (std::size_t i = 0; i < layer.inputs.size(); ++i)
            {
                int32_t const input = layer.inputs[i];
                if (!validTensor(mModel, input) || static_cast<std::size_t>(input) >= mOriginal.size()
                    || readsAnyType(layer))
                {
                    continue;
                }
                DataType const wanted = wantedInput(input, reducedLayer);
                if (mModel.tensors[static_cast<std::size_t>(input)].type == wanted)
                {
                    continue;
                }
                auto [found, made] = casts.try_emplace({input, wanted}, kNoTensor);
                if (made)
                {
                    std::string const typeName = dataTypeName(wanted);
                    found->second = castTwin(input, wanted);
                    around.before.push_back(castLayer(
                        layer.name + " input " + std::to_string(i) + " to " + typeName, input, found->second, wanted));
                }
                layer.inputs[i] = found->second;
            }
            for (std::size_t o = 0; reducedLayer && o < layer.outputs.size(); ++o)
            {
                int32_t const output = layer.outputs[o];
                auto const t = static_cast<std::size_t>(output);
                if (!mPinned[t] || mOriginal[t] != DataType::kFLOAT)
                {
                    continue;
                }
                int32_t const twin = castTwin(output, mReduced);
                layer.outputs[o] = twin;
                // A later reader that computes in the reduced type reads the twin itself: the output's values are the
                // twin's widened, so casting them back would give the twin again (one pass over the tensor saved).
                casts.try_emplace({output, mReduced}, twin);
                around.after.push_back(castLayer(
                    layer.name + " output " + std::to_string(o) + " to kFLOAT", twin, output, DataType::kFLOAT));
            }
            return around;
        });
    }

    //! A twin of tensor in type (the same shapes), named "<tensor> (<type>)".
    int32_t castTwin(int32_t tensor, DataType type)
    {
        int32_t const twin = addTwinTensor(mModel, mKept, tensor, " (" + std::string(dataTypeName(type)) + ")",
            mModel.tensors[static_cast<std::size_t>(tensor)].format);
        mModel.tensors[static_cast<std::size_t>(twin)].type = type;
        mModel.tensors[static_cast<std::size_t>(twin)].values.reset();
        return twin;
    }

    EngineModel& mModel;
    KeptTensors& mKept;
    Backend const& mBackend;
    std::vector<ConcreteShapes> const& mProfiles;
    DataType mReduced;
    bool mObey;
    bool mPrefer;
    std::vector<DataType> mOriginal; //!< Each tensor's type before the pass.
    std::vector<bool> mPinned;       //!< Tensors that keep their type.
    std::vector<bool> mValues;       //!< Tensors read for their values: never cast for a reader.
};

//! Says which precision flags kiln accepts without acting on them (nothing is ignored silently).
void reportIgnoredFlags(BuildSettings const& settings, bool stronglyTyped)
{
    if (hasFlag(settings, BuilderFlag::kTF32))
    {
        log(Severity::kINFO,
            "kTF32 is set (the default): kiln's kFLOAT kernels compute in full FP32 and do not use TF32");
    }
    for (auto const& [flag, name] : {std::pair{BuilderFlag::kINT8, "kINT8"}, std::pair{BuilderFlag::kFP8, "kFP8"},
             std::pair{BuilderFlag::kINT4, "kINT4"}})
    {
        if (hasFlag(settings, flag) && !stronglyTyped)
        {
            log(Severity::kWARNING,
                std::string(name)
                    + " is ignored: kiln does not choose quantized kernels for layers (implicit quantization); "
                      "quantize explicitly with IQuantizeLayer and IDequantizeLayer (Q/DQ)");
        }
    }
    if (settings.int8Calibrator != nullptr)
    {
        log(Severity::kWARNING,
            "the INT8 calibrator is ignored: kiln does not calibrate (implicit quantization); quantize explicitly "
            "with Q/DQ layers, or give kINT8 tensors a dynamic range");
    }
}

} // namespace

std::optional<DataType> reducedType(BuildSettings const& settings, bool stronglyTyped)
{
    if (stronglyTyped)
    {
        return std::nullopt;
    }
    if (hasFlag(settings, BuilderFlag::kFP16))
    {
        return DataType::kHALF;
    }
    return hasFlag(settings, BuilderFlag::kBF16) ? std::optional(DataType::kBF16) : std::nullopt;
}

Expected<int32_t> chooseReducedPrecision(EngineModel& model, KeptTensors& kept, BuildSettings const& settings,
    bool stronglyTyped, Backend const& backend, std::vector<ConcreteShapes> const& profiles)
{
    reportIgnoredFlags(settings, stronglyTyped);
    bool const fp16 = hasFlag(settings, BuilderFlag::kFP16);
    bool const bf16 = hasFlag(settings, BuilderFlag::kBF16);
    if (!fp16 && !bf16)
    {
        return 0;
    }
    if (stronglyTyped)
    {
        log(Severity::kWARNING,
            std::string(fp16 ? "kFP16" : "kBF16")
                + " is ignored: the network is strongly typed (kSTRONGLY_TYPED), so its tensors' types decide");
        return 0;
    }
    if (std::any_of(model.layers.begin(), model.layers.end(),
            [](LayerRecord const& layer) { return isLoopOrConditionalBoundary(layer.type); }))
    {
        log(Severity::kWARNING,
            std::string(fp16 ? "kFP16" : "kBF16")
                + " is not applied to this network: kiln keeps networks with loops or if-conditionals in the types "
                  "they have (cast them explicitly, or use a strongly typed network)");
        return 0;
    }
    DataType const reduced = fp16 ? DataType::kHALF : DataType::kBF16;
    return PrecisionPass(model, kept, settings, backend, profiles, reduced).run();
}

} // namespace kiln
