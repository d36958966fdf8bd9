// SPDX-License-Identifier: Apache-2.0
// modelProblem: the checks every model passes before the plan writer encodes it and after the plan reader decodes
// it, in an order where each check relies only on what earlier ones established.
#include "plan/model_check.h"

#include "core/data_type.h"
#include "network/checks.h"
#include "plan/layer_arity.h"
#include "plan/model_support.h"
#include "plan/params_fields.h"
#include "plan/plugin_libraries.h"
#include "plan/refit.h"
#include "plugin/aot_kernel.h"
#include "plugin/plugin_fields.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>

namespace kiln
{
namespace
{

std::string countRange(int32_t min, int32_t max)
{
    if (min == max)
    {
        return cat(min);
    }
    return max == kMany ? cat(min, " or more") : cat(min, " to ", max);
}

//! The first problem of a layer's parameters: an enumeration out of range, a Dims of an impossible rank, weights that
//! are invalid or outside every blob, scales that are not positive and finite. Other fields (numbers, flags,
//! permutations) hold any value.
class ParamsCheck
{
public:
    ParamsCheck(BlobFinder const& blobs, std::size_t nbBlobs)
        : mBlobs(blobs)
        , mNbBlobs(nbBlobs)
    {
    }

    std::optional<std::string> run(LayerParams const& params)
    {
        std::visit(
            [&](auto const& p) { forEachField(p, [&](char const* name, auto const& value) { field(name, value); }); },
            params);
        return mProblem;
    }

private:
    template <typename T>
    void field(char const* name, T const& value)
    {
        if (mProblem)
        {
            return;
        }
        if constexpr (std::is_same_v<T, Dims>)
        {
            dims(name, value);
        }
        else if constexpr (std::is_same_v<T, Weights>)
        {
            weights(name, value);
        }
        else if constexpr (std::is_enum_v<T>)
        {
            enumValue(name, value);
        }
        else if constexpr (std::is_same_v<T, std::vector<DataType>>)
        {
            for (DataType type : value)
            {
                field(name, type);
            }
        }
        else if constexpr (std::is_same_v<T, std::vector<float>>)
        {
            scales(name, value);
        }
    }

    template <typename E>
    void enumValue(char const* name, E value)
    {
        if (!isValidEnum(value))
        {
            mProblem = cat(name, " is ", value, ", which is not a valid value");
        }
    }

    //! A resize's scales: at most one per dimension, each positive and finite.
    void scales(char const* name, std::vector<float> const& value)
    {
        if (value.size() > static_cast<std::size_t>(Dims::MAX_DIMS))
        {
            mProblem = cat(name, " has ", value.size(), " entries; at most ", Dims::MAX_DIMS);
            return;
        }
        for (std::size_t i = 0; i < value.size(); ++i)
        {
            if (!std::isfinite(value[i]) || value[i] <= 0.F)
            {
                mProblem
                    = cat(name, "[", i, "] is ", static_cast<double>(value[i]), "; scales are positive and finite");
                return;
            }
        }
    }

    void dims(char const* name, Dims const& value)
    {
        if (value.nbDims < -1 || value.nbDims > Dims::MAX_DIMS)
        {
            mProblem = cat(name, " has rank ", value.nbDims, "; ranks are -1 (not set) to ", Dims::MAX_DIMS);
        }
    }

    void weights(char const* name, Weights const& value)
    {
        if (char const* reason = weightsProblem(value))
        {
            mProblem = cat(name, ": ", reason);
        }
        else if (value.count > 0 && !mBlobs.find(value))
        {
            mProblem = cat(name, " (", value.count, " elements of ", dataTypeName(value.type),
                ") are not inside one of the engine's ", mNbBlobs, " weights blobs");
        }
    }

    BlobFinder const& mBlobs;
    std::size_t mNbBlobs;
    std::optional<std::string> mProblem;
};

//! "[2, 3]".
std::string dimsText(Dims const& dims)
{
    std::string text = "[";
    for (int32_t i = 0; i < std::clamp(dims.nbDims, 0, Dims::MAX_DIMS); ++i)
    {
        text += (i == 0 ? "" : ", ") + std::to_string(dims.d[i]);
    }
    return text + "]";
}

//! A window member (size, stride, dilation, padding) with an extent outside [minimum, kMaxWindowExtent], as the
//! problem; nullopt otherwise (rank 0 stands for the defaults).
std::optional<std::string> windowMemberProblem(char const* name, Dims const& dims, int64_t minimum)
{
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        if (dims.d[i] < minimum || dims.d[i] > kMaxWindowExtent)
        {
            return cat("has ", name, " extent ", i, " of ", dims.d[i], "; window extents are ", minimum, " to ",
                kMaxWindowExtent);
        }
    }
    return std::nullopt;
}

//! What is wrong with the sizes a layer's parameters state, before any shape is known: a constant whose dimensions
//! overflow a 64-bit count or disagree with its weights, a window member out of range, a filter's kernel weights
//! fewer than its output maps and window need. The backends check the rest against the shapes when they run.
template <typename Filter>
std::optional<std::string> filterProblem(Filter const& params)
{
    for (auto const& [name, dims, minimum] : {std::tuple{"kernel size", &params.kernelSize, int64_t{1}},
             std::tuple{"stride", &params.stride, int64_t{1}}, std::tuple{"dilation", &params.dilation, int64_t{1}},
             std::tuple{"pre-padding", &params.prePadding, int64_t{0}},
             std::tuple{"post-padding", &params.postPadding, int64_t{0}}})
    {
        if (auto problem = windowMemberProblem(name, *dims, minimum))
        {
            return problem;
        }
    }
    if (params.nbOutputMaps < 1 || params.nbGroups < 1)
    {
        return cat("has ", params.nbOutputMaps, " output maps and ", params.nbGroups, " groups; both are 1 or more");
    }
    std::optional<int64_t> const window = staticVolume(params.kernelSize);
    std::optional<int64_t> const mapsTimesWindow
        = window ? staticVolume(Dims{2, {params.nbOutputMaps, *window}}) : std::nullopt;
    if (params.kernel.count > 0
        && (!mapsTimesWindow || params.kernel.count < *mapsTimesWindow || params.kernel.count % *mapsTimesWindow != 0))
    {
        return cat("has ", params.kernel.count, " kernel values, not a multiple of ", params.nbOutputMaps,
            " output maps x window ", dimsText(params.kernelSize));
    }
    return std::nullopt;
}

std::optional<std::string> sizeProblem(LayerRecord const& record)
{
    if (auto const* constant = std::get_if<ConstantParams>(&record.params))
    {
        std::optional<int64_t> const count = staticVolume(constant->dims);
        if (constant->dims.nbDims >= 0 && !count)
        {
            return cat("has dims ", dimsText(constant->dims), ", more elements than a 64-bit count holds");
        }
        if (count && *count != constant->weights.count)
        {
            return cat("has dims ", dimsText(constant->dims), " (", *count, " elements) but ", constant->weights.count,
                " weights");
        }
    }
    if (auto const* convolution = std::get_if<ConvolutionParams>(&record.params))
    {
        return filterProblem(*convolution);
    }
    if (auto const* deconvolution = std::get_if<DeconvolutionParams>(&record.params))
    {
        return filterProblem(*deconvolution);
    }
    return std::nullopt;
}

//! The first problem of what a plan keeps of a plugin layer with nbInputs/nbOutputs tensors, or nullopt.
std::optional<std::string> pluginProblem(PluginIdentity const& identity, PluginPlanRecord const& plan,
    std::size_t nbTypes, int64_t nbDataInputs, int64_t nbOutputs)
{
    // IPluginV3OneCore: the strings are at most 1024 bytes with the NUL.
    constexpr std::size_t kMaxIdentity = 1023;
    if (identity.name.empty())
    {
        return std::string("has a plugin with an empty name");
    }
    for (std::string const* part : {&identity.name, &identity.version, &identity.pluginNamespace})
    {
        if (part->size() > kMaxIdentity || part->find('\0') != std::string::npos)
        {
            return cat("has a plugin identity string of ", part->size(),
                " bytes or with a NUL inside; they are at most 1023 bytes");
        }
    }
    if (static_cast<int64_t>(nbTypes) != nbOutputs)
    {
        return cat("records ", nbTypes, " output types for ", nbOutputs, " outputs");
    }
    for (PluginFieldRecord const& field : plan.fields)
    {
        if (auto problem = fieldProblem(field))
        {
            return cat("plugin ", *problem);
        }
    }
    if (plan.workspaceBytes < 0)
    {
        return cat("has the negative plugin workspace size ", plan.workspaceBytes);
    }
    if (plan.language != nvinfer1::APILanguage::kCPP && plan.language != nvinfer1::APILanguage::kPYTHON)
    {
        return cat("has the plugin API language ", static_cast<int32_t>(plan.language), " (0 C++ or 1 Python)");
    }
    if (!plan.aliasedInputs.empty() && static_cast<int64_t>(plan.aliasedInputs.size()) != nbOutputs)
    {
        return cat("records ", plan.aliasedInputs.size(), " aliased inputs for ", nbOutputs, " outputs");
    }
    std::vector<bool> aliased(static_cast<std::size_t>(std::max<int64_t>(nbDataInputs, 0)), false);
    for (int32_t input : plan.aliasedInputs)
    {
        if (input == -1)
        {
            continue;
        }
        if (input < 0 || input >= nbDataInputs || aliased[static_cast<std::size_t>(input)])
        {
            return cat("has an output aliasing input ", input, "; aliased inputs are distinct data inputs");
        }
        aliased[static_cast<std::size_t>(input)] = true;
    }
    return std::nullopt;
}

//! What is wrong with a layer that views its input (LayerRecord::viewsInput): it must be a plain reshape (a shuffle
//! without transposes, fusions, epilogue or tactic) of a tensor that is no network I/O into one of its type, scale and
//! kLINEAR format that is no network output, debug or shape tensor. Indices are valid here.
std::optional<std::string> viewProblem(LayerRecord const& record, EngineModel const& model)
{
    auto const* shuffle = std::get_if<ShuffleParams>(&record.params);
    auto const identity = [](nvinfer1::Permutation const& order) {
        for (int32_t i = 0; i < Dims::MAX_DIMS; ++i)
        {
            if (order.order[i] != i)
            {
                return false;
            }
        }
        return true;
    };
    bool const plain = record.type == LayerType::kSHUFFLE && shuffle != nullptr && identity(shuffle->firstTranspose)
        && identity(shuffle->secondTranspose) && !record.fused && record.pointwise.empty() && !record.epilogue
        && record.tactic == 0 && record.outputs.size() == 1 && !record.inputs.empty() && record.inputs[0] != kNoTensor;
    if (!plain)
    {
        return std::string("views its input, but only a shuffle without transposes, fusions or a tactic may");
    }
    TensorRecord const& in = model.tensors[static_cast<std::size_t>(record.inputs[0])];
    TensorRecord const& out = model.tensors[static_cast<std::size_t>(record.outputs[0])];
    if (in.isInput || in.isOutput || out.isOutput || out.isDebug || out.isShapeTensor || in.type != out.type
        || in.scale != out.scale || in.format != nvinfer1::TensorFormat::kLINEAR || out.format != in.format)
    {
        return std::string("views its input, but its input or output is network I/O, a debug or shape tensor, or "
                           "they differ in type, scale or format (or are not kLINEAR)");
    }
    return std::nullopt;
}

//! What is wrong with a layer's fused point-wise program (LayerRecord::pointwise), in a CUDA engine or not.
std::optional<std::string> pointwiseProblem(LayerRecord const& record, bool cuda)
{
    if (!cuda)
    {
        return std::string("has a fused point-wise program; only CUDA engines have them");
    }
    if (record.type != LayerType::kELEMENTWISE && record.type != LayerType::kUNARY
        && record.type != LayerType::kACTIVATION)
    {
        return std::string("has a fused point-wise program; only element-wise, unary and activation layers have one");
    }
    if (record.outputs.size() != 1 || record.epilogue || record.tactic != 0)
    {
        return std::string("has a fused point-wise program with another output count, an epilogue or a tactic");
    }
    if (std::find(record.inputs.begin(), record.inputs.end(), kNoTensor) != record.inputs.end())
    {
        return std::string("has a fused point-wise program with an absent input");
    }
    return pointwiseProgramProblem(record.pointwise, record.inputs.size());
}

//! What is wrong with a layer's fused kernel (LayerRecord::fused): its kind, the layer type that holds it, its
//! inputs and outputs, its numbers.
std::optional<std::string> fusedKernelProblem(LayerRecord const& record, bool cuda)
{
    FusedKernel const& fused = *record.fused;
    if (!cuda)
    {
        return std::string("has a fused kernel; only CUDA engines have them");
    }
    if (!record.pointwise.empty() || record.epilogue || record.tactic != 0 || record.scale != 1.F
        || record.outputs.size() != 1)
    {
        return std::string("has a fused kernel with a point-wise program, an epilogue, a tactic, a product scale or "
                           "another output count than 1");
    }
    if (std::find(record.inputs.begin(), record.inputs.end(), kNoTensor) != record.inputs.end())
    {
        return std::string("has a fused kernel with an absent input");
    }
    switch (fused.kind)
    {
    case FusedKernel::Kind::kLAYER_NORM:
        if (record.type != LayerType::kREDUCE || record.inputs.empty() || record.inputs.size() > 3)
        {
            return std::string("has a fused layer norm; it is held by a reduce layer with 1 to 3 inputs");
        }
        if (!std::isfinite(fused.epsilon) || fused.epsilon < 0.F || fused.zeroMaskedRows || fused.packedQkv)
        {
            return cat("has a fused layer norm with epsilon ", fused.epsilon, fused.zeroMaskedRows ? " and" : "",
                fused.zeroMaskedRows ? " masked rows (an attention's)" : "", "; epsilon is finite and not negative");
        }
        return std::nullopt;
    case FusedKernel::Kind::kATTENTION:
        // The mask (input 3) came later: plans before it hold 3 inputs, and an earlier reader refuses 4 here.
        if (record.type != LayerType::kMATRIX_MULTIPLY
            || (fused.packedQkv ? record.inputs.size() > 2 : record.inputs.size() < 3 || record.inputs.size() > 4))
        {
            return std::string(fused.packedQkv
                    ? "has a fused attention of packed q, k and v; it is held by a matrix multiply with 1 or 2 inputs "
                      "(q|k|v, mask)"
                    : "has a fused attention; it is held by a matrix multiply with 3 or 4 inputs (q, k, v, mask)");
        }
        if (fused.heads < 1 || !std::isfinite(fused.scale))
        {
            return cat("has a fused attention with ", fused.heads, " heads and scale ", fused.scale,
                "; heads are 1 or more and the scale finite");
        }
        return std::nullopt;
    case FusedKernel::Kind::kEMBEDDING:
    {
        std::size_t const lookups = fused.gathers > 0 ? 2 * static_cast<std::size_t>(fused.gathers) : 0;
        bool const affineOk = fused.normalize ? fused.normAffine >= 0 && fused.normAffine <= 2 : fused.normAffine == 0;
        if (record.type != LayerType::kGATHER || fused.gathers < 1 || fused.gathers > kMaxEmbeddingTerms || !affineOk
            || record.inputs.size() < lookups + static_cast<std::size_t>(fused.normAffine)
            || record.inputs.size() - lookups - static_cast<std::size_t>(fused.normAffine) > kMaxEmbeddingTerms)
        {
            return cat("has a fused embedding of ", fused.gathers, " lookups over ", record.inputs.size(),
                " inputs (layer norm parameters: ", fused.normAffine, "); it is held by a gather layer with 1 to ",
                kMaxEmbeddingTerms, " (table, indices) pairs, at most ", kMaxEmbeddingTerms,
                " addends, then up to 2 layer norm parameters");
        }
        if (fused.normalize && (!std::isfinite(fused.epsilon) || fused.epsilon < 0.F))
        {
            return cat("has a fused embedding with layer norm epsilon ", fused.epsilon,
                "; epsilon is finite and not negative");
        }
        if (fused.wrapped < 0 || fused.wrapped >= (1 << fused.gathers) || fused.zeroMaskedRows || fused.packedQkv)
        {
            return cat("has a fused embedding with wrapped lookups ", fused.wrapped, " of ", fused.gathers,
                fused.zeroMaskedRows || fused.packedQkv ? " and an attention's fields" : "");
        }
        return std::nullopt;
    }
    }
    return cat("has a fused kernel of kind ", static_cast<int32_t>(fused.kind), ", which is none kiln knows");
}

std::optional<std::string> pluginProblem(LayerRecord const& record)
{
    auto const nbInputs = static_cast<int64_t>(record.inputs.size());
    auto const nbOutputs = static_cast<int64_t>(record.outputs.size());
    if (auto const* v3 = std::get_if<PluginV3Params>(&record.params))
    {
        if (v3->nbInputs < 0 || v3->nbShapeInputs < 0
            || static_cast<int64_t>(v3->nbInputs) + v3->nbShapeInputs != nbInputs)
        {
            return cat("has ", nbInputs, " inputs but records ", v3->nbInputs, " data and ", v3->nbShapeInputs,
                " shape inputs");
        }
        if (std::find(record.inputs.begin(), record.inputs.end(), kNoTensor) != record.inputs.end())
        {
            return std::string("has an absent input; plugin inputs are all present");
        }
        return pluginProblem(v3->identity, v3->plan, v3->outputTypes.size(), v3->nbInputs, nbOutputs);
    }
    if (auto const* v2 = std::get_if<PluginV2Params>(&record.params))
    {
        if (v2->level < 0 || v2->level > 3)
        {
            return cat("has V2 plugin level ", v2->level, "; levels are 0 (IPluginV2) to 3 (IPluginV2DynamicExt)");
        }
        if (!v2->plan.fields.empty() || v2->plan.tactic != 0 || !v2->plan.aliasedInputs.empty()
            || v2->plan.language != nvinfer1::APILanguage::kCPP || v2->plan.aot)
        {
            return std::string("is a V2 plugin layer with V3 fields, tactic, aliases, API language or an AOT kernel");
        }
        return pluginProblem(v2->identity, v2->plan, v2->outputTypes.size(), nbInputs, nbOutputs);
    }
    return std::nullopt;
}

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

    //! What is wrong with the ahead-of-time kernel of a V3 plugin layer (plugin/aot_kernel.h), whose inputs are in
    //! range; nothing for a layer without one.
    std::optional<std::string> aotProblem(LayerRecord const& record) const
    {
        auto const* v3 = std::get_if<PluginV3Params>(&record.params);
        if (v3 == nullptr || !v3->plan.aot)
        {
            return std::nullopt;
        }
        std::string const who = "(" + describeIdentity(v3->identity) + ") ";
        if (!v3->plan.fields.empty() || v3->nbShapeInputs != 0 || !v3->plan.aliasedInputs.empty()
            || v3->plan.workspaceBytes != 0)
        {
            return who + "is an AOT kernel with plugin fields, shape inputs, aliased outputs or a workspace";
        }
        std::vector<int32_t> ranks;
        for (int32_t i = 0; i < v3->nbInputs; ++i)
        {
            ranks.push_back(static_cast<int32_t>(
                mModel.tensors[static_cast<std::size_t>(record.inputs[static_cast<std::size_t>(i)])].shape.size()));
        }
        if (auto problem = aotKernelProblem(*v3->plan.aot, ranks))
        {
            return who + *problem;
        }
        return std::nullopt;
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
            bytes < 0 || static_cast<uint64_t>(bytes) != blob.view().size())
        {
            return cat("weights blob ", i, " holds ", blob.view().size(), " bytes, but ", blob.count, " elements of ",
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
            // kBOOL: the condition an if-conditional's output extents follow.
            if (!isIndexType(source.type) && source.type != DataType::kBOOL)
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
    std::unordered_map<std::string_view, std::size_t> debugNames; // A context finds debug tensors by name.
    for (std::size_t i = 0; i < mModel.tensors.size(); ++i)
    {
        TensorRecord const& record = mModel.tensors[i];
        auto const what = tensor(static_cast<int64_t>(i));
        if (record.isDebug && record.name.empty())
        {
            return cat(what, " is a debug tensor without a name; debug tensors are found by name");
        }
        if (record.isDebug)
        {
            if (auto const [other, added] = debugNames.emplace(record.name, i); !added)
            {
                return cat(what, " is a debug tensor named like ", tensor(static_cast<int64_t>(other->second)),
                    "; debug tensors' names are distinct");
            }
        }
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
        // A CUDA engine's matrix multiply may carry a fused bias and residual as a third and fourth input, its
        // convolution a fused residual as a fourth (kConvolutionResidualInput), and a fused point-wise program takes up
        // to kMaxPointwiseInputs.
        bool const cuda = mModel.backend == PlanBackend::kCUDA;
        bool const fused = !record.pointwise.empty();
        if (record.fused)
        {
            if (auto const problem = fusedKernelProblem(record, cuda))
            {
                return cat(layer(l), " (", layerClassName(record.type), ") ", *problem);
            }
        }
        int64_t const minInputs = fused ? 1 : arity.minInputs;
        int64_t const maxInputs = fused ? static_cast<int64_t>(kMaxPointwiseInputs)
                                        : arity.maxInputs + (cuda && record.type == LayerType::kMATRIX_MULTIPLY ? 2 : 0)
                + (cuda && record.type == LayerType::kCONVOLUTION ? 1 : 0);
        if (!record.fused && (nbInputs < minInputs || nbInputs > maxInputs))
        {
            return cat(layer(l), " (", layerClassName(record.type), ") has ", nbInputs, " inputs; ",
                fused ? "a fused point-wise program takes " : "the kind takes ", countRange(minInputs, maxInputs));
        }
        if (record.scale != 1.F
            && (!cuda || record.type != LayerType::kMATRIX_MULTIPLY || !std::isfinite(record.scale)))
        {
            return cat(layer(l), " (", layerClassName(record.type), ") has a product scale of ", record.scale,
                "; only a CUDA engine's matrix multiplies have one, and it is finite");
        }
        if (fused)
        {
            if (auto const problem = pointwiseProblem(record, cuda))
            {
                return cat(layer(l), " (", layerClassName(record.type), ") ", *problem);
            }
        }
        if (record.tactic < 0)
        {
            return cat(
                layer(l), " (", layerClassName(record.type), ") has tactic ", record.tactic, "; tactics are 0 or more");
        }
        if (record.epilogue)
        {
            if (!cuda || (record.type != LayerType::kCONVOLUTION && record.type != LayerType::kMATRIX_MULTIPLY))
            {
                return cat(layer(l), " (", layerClassName(record.type),
                    ") has a fused activation; only a CUDA engine's convolutions and matrix multiplies have one");
            }
            if (!isValidEnum(record.epilogue->type))
            {
                return cat(layer(l), " (", layerClassName(record.type), ") has a fused activation of type ",
                    static_cast<int32_t>(record.epilogue->type), ", which is no ActivationType");
            }
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
                // A fused matrix multiply's bias is absent when it has a residual but no bias.
                bool const fusedBias = record.type == LayerType::kMATRIX_MULTIPLY && i == 2;
                if (static_cast<int64_t>(i) < arity.optionalFrom && !fusedBias)
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
            // A recurrence's next value (input 1) is made later in its loop's block: the back edge.
            bool const backEdge = record.type == LayerType::kRECURRENCE && i == 1;
            if (static_cast<std::size_t>(madeBy) >= l && !backEdge)
            {
                return cat(layer(l), " input ", i, " is ", tensor(t), ", made by ",
                    layer(static_cast<std::size_t>(madeBy)), ", which does not run before it");
            }
        }
        if (record.type == LayerType::kCONVOLUTION && record.inputs.size() > kConvolutionResidualInput)
        {
            // A fused residual has the output's type and format (the backends check the shapes when they run).
            int32_t const residual = record.inputs[kConvolutionResidualInput];
            TensorRecord const* const out = record.outputs.empty() || !inRange(record.outputs[0], mModel.tensors.size())
                ? nullptr
                : &mModel.tensors[static_cast<std::size_t>(record.outputs[0])];
            if (residual == kNoTensor || out == nullptr
                || mModel.tensors[static_cast<std::size_t>(residual)].type != out->type
                || mModel.tensors[static_cast<std::size_t>(residual)].format != out->format)
            {
                return cat(layer(l), " (", layerClassName(record.type), ") has a fused residual (input ",
                    kConvolutionResidualInput, ") that is absent or differs from its output in type or format");
            }
        }
        if (auto const problem = ParamsCheck(mBlobs, mModel.weights.size()).run(record.params))
        {
            return cat(layer(l), " (", layerClassName(record.type), ") ", *problem);
        }
        if (record.viewsInput)
        {
            if (auto const problem = viewProblem(record, mModel))
            {
                return cat(layer(l), " (", layerClassName(record.type), ") ", *problem);
            }
        }
        if (auto const problem = sizeProblem(record))
        {
            return cat(layer(l), " (", layerClassName(record.type), ") ", *problem);
        }
        if (auto const problem = pluginProblem(record))
        {
            return cat(layer(l), " (", layerClassName(record.type), ") ", *problem);
        }
        if (auto const problem = aotProblem(record))
        {
            return cat(layer(l), " (", layerClassName(record.type), ") ", *problem);
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
        if (record.format != nvinfer1::TensorFormat::kLINEAR)
        {
            return cat("I/O tensor ", tensor(t), " has format ", record.format, "; the engine's I/O is kLINEAR");
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
        // A fixed extent is what the runtime uses whatever the profile says: a profile that disagrees would have
        // applications size their buffers wrongly.
        ExprRecord const& extent = mModel.exprs[record.shape[static_cast<std::size_t>(d)]];
        if (extent.kind == DimExpr::Kind::kCONSTANT
            && (input.min.d[d] != extent.value || input.max.d[d] != extent.value))
        {
            return cat(what, ": extent ", d, " is fixed at ", extent.value, ", but the profile gives kMIN ",
                input.min.d[d], ", kOPT ", input.opt.d[d], ", kMAX ", input.max.d[d]);
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
} // namespace

std::optional<std::string> modelProblem(EngineModel const& model)
{
    if (auto problem = ModelCheck(model).run())
    {
        return problem;
    }
    if (!isValidEnum(model.profilingVerbosity))
    {
        return cat("the profiling verbosity is ", static_cast<int32_t>(model.profilingVerbosity),
            ", which is not a valid value");
    }
    if (auto problem = refitProblem(model))
    {
        return problem;
    }
    return pluginLibrariesProblem(model);
}

} // namespace kiln
