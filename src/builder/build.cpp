// SPDX-License-Identifier: Apache-2.0
// The build step (builder/build.h), in passes:
// 1. Refuse what the graph alone tells: no outputs, I/O that may not be linear, plugin layers that an output needs,
//    dynamic or shape inputs without an optimization profile (or a profile that leaves one out).
// 2. Infer every shape symbolically (the whole network), and evaluate the shapes against each profile.
// 3. Keep the layers that lead to an output (dead-layer elimination), in topological order; the tensors are every
//    network input, then the outputs of the layers kept. Quantized tensors take their scale from the dynamic range.
// 4. Per layer: ask the host backend whether it runs the layer at each profile's kMIN, kOPT and kMAX shapes, and copy
//    the layer's weights into the model (progress is reported here, one step per layer).
// 5. Export the shape expressions the engine uses, their symbols and the assertions.
// 6. Plan activation memory per profile.
#include "builder/build.h"

#include "backends/host/activation.h"
#include "backends/host/cast.h"
#include "backends/host/concatenation.h"
#include "backends/host/convolution.h"
#include "backends/host/copies.h"
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
#include "builder/memory_plan.h"
#include "core/data_type.h"
#include "network/checks.h"
#include "network/shape_inference.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <type_traits>
#include <unordered_map>
#include <variant>

namespace kiln
{
namespace
{

using nvinfer1::ErrorCode;

//! The one phase the progress monitor sees: one step per layer of the engine.
constexpr char const* kBuildPhase = "Building engine";
constexpr std::array<char const*, 3> kPointNames{"kMIN", "kOPT", "kMAX"};

Error invalid(std::string message)
{
    return Error{ErrorCode::kINVALID_ARGUMENT, std::move(message)};
}

std::string describeLayer(Layer const& layer)
{
    return "layer '" + layer.name() + "' (" + layer.className() + ")";
}

std::string describeIo(Tensor const& tensor)
{
    return (tensor.isInput() ? "network input '" : "network output '") + tensor.name() + "'";
}

std::string dimsText(Dims const& dims)
{
    std::string text;
    message::append(text, dims);
    return text;
}

std::string profileName(std::size_t index)
{
    return "optimization profile " + std::to_string(index);
}

bool hasDynamicExtent(Dims const& dims)
{
    return std::any_of(dims.d, dims.d + std::max(dims.nbDims, 0), [](int64_t extent) { return extent < 0; });
}

//! Whether a network input is a shape tensor whose values each profile gives (as shape inference treats it).
bool isShapeTensorInput(Tensor const& input)
{
    return isIndexType(input.type()) && isShapeTensor(input);
}

// ---- 1. Refusals from the graph alone -------------------------------------------------------------------------------

std::optional<Error> checkIo(Network const& network)
{
    if (network.outputs().empty())
    {
        return invalid("network '" + network.name() + "' has no outputs; mark one with INetworkDefinition::markOutput");
    }
    constexpr auto kLinear = 1U << static_cast<uint32_t>(nvinfer1::TensorFormat::kLINEAR);
    for (auto const* io : {&network.inputs(), &network.outputs()})
    {
        for (Tensor const* tensor : *io)
        {
            if ((tensor->allowedFormats() & kLinear) == 0)
            {
                return invalid(describeIo(*tensor)
                    + ": its allowed formats (ITensor::setAllowedFormats) exclude kLINEAR, the only format kiln's host "
                      "backend supports");
            }
        }
    }
    return std::nullopt;
}

//! The layers that some network output depends on.
std::set<Layer const*> liveLayers(Network const& network)
{
    std::set<Layer const*> live;
    std::vector<Tensor const*> pending(network.outputs().begin(), network.outputs().end());
    while (!pending.empty())
    {
        Layer const* producer = pending.back()->producer();
        pending.pop_back();
        if (producer == nullptr || !live.insert(producer).second)
        {
            continue;
        }
        for (Tensor const* input : producer->inputs())
        {
            if (input != nullptr)
            {
                pending.push_back(input);
            }
        }
    }
    return live;
}

std::optional<Error> refusePlugins(Network const& network, std::set<Layer const*> const& live)
{
    for (auto const& layer : network.layers())
    {
        bool const plugin = layer->type() == LayerType::kPLUGIN_V2 || layer->type() == LayerType::kPLUGIN_V3;
        if (plugin && live.count(layer.get()) != 0)
        {
            return Error{ErrorCode::kUNSUPPORTED_STATE,
                describeLayer(*layer) + ": the builder does not build plugin layers yet (issue 4)"};
        }
    }
    return std::nullopt;
}

//! The quantization scale of a tensor: its dynamic range over the type's largest value for kINT8 and kFP8, else 1.
Expected<float> scaleOf(Tensor const& tensor, bool stronglyTyped)
{
    DataType const type = tensor.type();
    if (type != DataType::kINT8 && type != DataType::kFP8)
    {
        return 1.0F;
    }
    auto const range = tensor.dynamicRange();
    if (!range)
    {
        if (type == DataType::kINT8 && !stronglyTyped)
        {
            return invalid("tensor '" + tensor.name()
                + "' is kINT8 but has no dynamic range; set one with ITensor::setDynamicRange");
        }
        return 1.0F;
    }
    float const magnitude = std::max(std::fabs(range->first), std::fabs(range->second));
    if (!(magnitude > 0.0F) || !std::isfinite(magnitude))
    {
        std::string text = "tensor '" + tensor.name() + "' is " + dataTypeName(type) + " with the dynamic range [";
        message::append(text, static_cast<double>(range->first));
        text += ", ";
        message::append(text, static_cast<double>(range->second));
        return invalid(text + "]; a quantized tensor needs a finite range that is not [0, 0]");
    }
    return magnitude / (type == DataType::kINT8 ? 127.0F : 448.0F);
}

//! Whether kMIN, kOPT and kMAX are all set.
template <typename T>
bool allSelectors(std::array<std::optional<T>, 3> const& selectors)
{
    return std::all_of(selectors.begin(), selectors.end(), [](auto const& entry) { return entry.has_value(); });
}

//! The profiles to build: the config's, or, for a network whose inputs are all static, one of their dimensions.
Expected<std::vector<ProfileData>> profilesToBuild(Network const& network, BuildSettings const& settings)
{
    if (settings.profiles.empty())
    {
        std::string const needs
            = ", but the config has no optimization profile; add one with IBuilderConfig::addOptimizationProfile";
        ProfileData implicit;
        for (Tensor const* input : network.inputs())
        {
            if (hasDynamicExtent(input->dims()))
            {
                return invalid(describeIo(*input) + " has dynamic dimensions " + dimsText(input->dims()) + needs);
            }
            if (isShapeTensorInput(*input))
            {
                return invalid(describeIo(*input) + " is a shape tensor whose values a profile gives" + needs);
            }
            implicit.inputs[input->name()].dims = {input->dims(), input->dims(), input->dims()};
        }
        return std::vector<ProfileData>{implicit};
    }
    for (std::size_t p = 0; p < settings.profiles.size(); ++p)
    {
        for (Tensor const* input : network.inputs())
        {
            auto const found = settings.profiles[p].inputs.find(input->name());
            bool const listed = found != settings.profiles[p].inputs.end();
            if (hasDynamicExtent(input->dims()) && !(listed && allSelectors(found->second.dims)))
            {
                return invalid(profileName(p) + " gives no dimensions for " + describeIo(*input) + " "
                    + dimsText(input->dims())
                    + ", which has dynamic extents; set its kMIN, kOPT and kMAX with "
                      "IOptimizationProfile::setDimensions");
            }
            if (isShapeTensorInput(*input) && !(listed && allSelectors(found->second.values)))
            {
                return invalid(profileName(p) + " gives no shape values for " + describeIo(*input)
                    + ", a shape tensor; set its kMIN, kOPT and kMAX with IOptimizationProfile::setShapeValuesV2");
            }
        }
    }
    return settings.profiles;
}

// ---- 4. The host backend's verdict on a layer at one point of a profile ---------------------------------------------

//! One layer at one point: its inputs' types and shapes, the values of inputs whose values are known, its output.
struct KernelQuery
{
    std::vector<std::optional<host::TensorDesc>> inputs; //!< nullopt: an absent optional input.
    std::vector<std::optional<std::vector<int64_t>>> values;
    host::TensorDesc output;

    bool given(std::size_t index) const { return index < inputs.size() && inputs[index].has_value(); }
    //! Input index, or a description no kernel accepts when it is absent.
    host::TensorDesc in(std::size_t index) const
    {
        return given(index) ? *inputs[index] : host::TensorDesc{{}, {-1, {}}};
    }
    //! The values of input index as dims, or nullopt when the build does not know them.
    std::optional<Dims> valuesAsDims(std::size_t index) const
    {
        if (index >= values.size() || !values[index] || values[index]->size() > Dims::MAX_DIMS)
        {
            return std::nullopt;
        }
        Dims dims{static_cast<int32_t>(values[index]->size()), {}};
        std::copy(values[index]->begin(), values[index]->end(), dims.d);
        return dims;
    }
};

//! The output a host kernel makes, its refusal, or nullopt where the build cannot ask (values known only at run time).
using KernelAnswer = Expected<std::optional<host::TensorDesc>>;

KernelAnswer answer(Expected<host::TensorDesc> const& desc)
{
    if (!desc)
    {
        return desc.error();
    }
    return std::optional(desc.value());
}

//! The window parameters of a convolution or pooling layer with padding resolved for input's spatial extents (the
//! last window.nbDims axes), as the host kernels take them.
template <typename P>
Expected<P> resolveWindow(P params, Dims const& window, Dims const& dilation, Dims const& input)
{
    if (input.nbDims < window.nbDims || window.nbDims <= 0)
    {
        return params; // the kernel refuses the rank
    }
    Dims spatial{window.nbDims, {}};
    std::copy(input.d + input.nbDims - window.nbDims, input.d + input.nbDims, spatial.d);
    auto const padding = host::resolvePadding(
        params.paddingMode, spatial, window, params.stride, dilation, params.prePadding, params.postPadding);
    if (!padding)
    {
        return padding.error();
    }
    params.prePadding = padding.value().pre;
    params.postPadding = padding.value().post;
    params.paddingMode = nvinfer1::PaddingMode::kEXPLICIT_ROUND_DOWN;
    return params;
}

KernelAnswer hostOutput(ConvolutionParams const& params, KernelQuery const& query)
{
    // Inputs: 0 data, 1 kernel, 2 bias; infer reads the operands' types and shapes only.
    auto const resolved = resolveWindow(params, params.kernelSize, params.dilation, query.in(0).dims);
    if (!resolved)
    {
        return resolved.error();
    }
    host::ConvolutionOperands operands;
    host::HostTensor kernel{nullptr, query.in(1).type, query.in(1).dims};
    host::HostTensor bias{nullptr, query.in(2).type, query.in(2).dims};
    operands.kernel = query.given(1) ? &kernel : nullptr;
    operands.bias = query.given(2) ? &bias : nullptr;
    return answer(host::inferConvolution(resolved.value(), query.in(0), operands));
}

KernelAnswer hostOutput(CastParams const& params, KernelQuery const& query)
{
    return answer(host::inferCast(host::CastParams{params.toType}, query.in(0)));
}

KernelAnswer hostOutput(ActivationParams const& params, KernelQuery const& query)
{
    return answer(host::inferActivation(host::ActivationParams{params.type, params.alpha, params.beta}, query.in(0)));
}

KernelAnswer hostOutput(PoolingParams const& params, KernelQuery const& query)
{
    auto const resolved = resolveWindow(params, params.windowSize, Dims{0, {}}, query.in(0).dims);
    if (!resolved)
    {
        return resolved.error();
    }
    return answer(host::inferPooling(resolved.value(), query.in(0)));
}

KernelAnswer hostOutput(SoftMaxParams const& params, KernelQuery const& query)
{
    return answer(host::inferSoftMax(params, query.in(0)));
}

KernelAnswer hostOutput(ConcatenationParams const& params, KernelQuery const& query)
{
    std::vector<host::TensorDesc> inputs;
    for (std::size_t i = 0; i < query.inputs.size(); ++i)
    {
        inputs.push_back(query.in(i));
    }
    return answer(host::inferConcatenation(params, inputs));
}

KernelAnswer hostOutput(ElementWiseParams const& params, KernelQuery const& query)
{
    return answer(host::inferElementWise(host::ElementWiseParams{params.op}, query.in(0), query.in(1)));
}

KernelAnswer hostOutput(UnaryParams const& params, KernelQuery const& query)
{
    return answer(host::inferUnary(host::UnaryParams{params.op}, query.in(0)));
}

KernelAnswer hostOutput(ShuffleParams const& params, KernelQuery const& query)
{
    ShuffleParams resolved = params;
    if (query.given(1)) // input 1: the reshape dimensions
    {
        auto const reshape = query.valuesAsDims(1);
        if (!reshape)
        {
            return std::optional<host::TensorDesc>{};
        }
        resolved.reshape = *reshape;
    }
    return answer(host::inferShuffle(resolved, query.in(0)));
}

KernelAnswer hostOutput(ReduceParams const& params, KernelQuery const& query)
{
    return answer(host::inferReduce(params, query.in(0)));
}

KernelAnswer hostOutput(GatherParams const& params, KernelQuery const& query)
{
    return answer(host::inferGather(params, query.in(0), query.in(1)));
}

KernelAnswer hostOutput(MatrixMultiplyParams const& params, KernelQuery const& query)
{
    return answer(host::inferMatrixMultiply(params, query.in(0), query.in(1)));
}

KernelAnswer hostOutput(ConstantParams const& params, KernelQuery const& /*query*/)
{
    return answer(host::inferConstant(params));
}

KernelAnswer hostOutput(IdentityParams const& /*params*/, KernelQuery const& query)
{
    // The host copies the bytes when the types agree, and casts to the output's type (setOutputType) otherwise.
    host::TensorDesc const in = query.in(0);
    if (in.type == query.output.type)
    {
        return std::optional(in);
    }
    return answer(host::inferCast(host::CastParams{query.output.type}, in));
}

KernelAnswer hostOutput(PluginV2Params const& /*params*/, KernelQuery const& /*query*/)
{
    return std::optional<host::TensorDesc>{}; // refused before (issue 4)
}

KernelAnswer hostOutput(PluginV3Params const& /*params*/, KernelQuery const& /*query*/)
{
    return std::optional<host::TensorDesc>{}; // refused before (issue 4)
}

KernelAnswer hostOutput(SliceParams const& params, KernelQuery const& query)
{
    // Inputs: 0 data, 1 start, 2 size, 3 stride, 4 fill value, 5 axes.
    SliceParams resolved = params;
    for (auto const& [index, target] : {std::pair{1, &resolved.start}, std::pair{2, &resolved.size},
             std::pair{3, &resolved.stride}, std::pair{5, &resolved.axes}})
    {
        if (query.given(static_cast<std::size_t>(index)))
        {
            auto const values = query.valuesAsDims(static_cast<std::size_t>(index));
            if (!values)
            {
                return std::optional<host::TensorDesc>{};
            }
            *target = *values;
        }
    }
    return answer(host::inferSlice(resolved, query.in(0)));
}

KernelAnswer hostOutput(ShapeParams const& params, KernelQuery const& query)
{
    return answer(host::inferShape(params, query.in(0)));
}

KernelAnswer hostOutput(SelectParams const& params, KernelQuery const& query)
{
    return answer(host::inferSelect(params, query.in(0), query.in(1), query.in(2)));
}

KernelAnswer hostOutput(FillParams const& params, KernelQuery const& query)
{
    // Inputs: 0 shape, 1 alpha, 2 beta. The output's shape is the one shape inference gives. inferFill checks that the
    // alpha and beta tensors have data without reading it.
    alignas(8) std::array<std::byte, 8> unread{};
    host::HostTensor alpha{unread.data(), query.in(1).type, query.in(1).dims};
    host::HostTensor beta{unread.data(), query.in(2).type, query.in(2).dims};
    return answer(host::inferFill(
        params, query.output.dims, query.given(1) ? &alpha : nullptr, query.given(2) ? &beta : nullptr));
}

std::string describeDescs(std::vector<std::optional<host::TensorDesc>> const& descs)
{
    std::string text;
    for (auto const& desc : descs)
    {
        text += text.empty() ? "" : ", ";
        text += desc ? std::string(dataTypeName(desc->type)) + " " + host::shapeString(desc->dims) : "none";
    }
    return text.empty() ? "none" : text;
}

Dims atPoint(ConcreteShape const& shape, std::size_t point)
{
    return point == 0 ? shape.min : point == 1 ? shape.opt : shape.max;
}

//! Asks the host backend about layer at the kMIN, kOPT and kMAX points of every profile; the first refusal names the
//! layer, the profile, the point and the input types and shapes. Points where a shape is data-dependent are skipped.
std::optional<Error> checkHostKernel(Layer const& layer, std::vector<ConcreteShapes> const& profiles)
{
    if (layer.outputs().size() != 1)
    {
        return std::nullopt; // every kind the host backend runs has one output
    }
    Tensor const& output = *layer.outputs().front();
    for (std::size_t p = 0; p < profiles.size(); ++p)
    {
        auto const& tensors = profiles[p].tensors;
        for (std::size_t point = 0; point < kPointNames.size(); ++point)
        {
            KernelQuery query;
            bool known = tensors.count(&output) != 0;
            for (Tensor const* input : layer.inputs())
            {
                auto const found = input != nullptr ? tensors.find(input) : tensors.end();
                known = known && (input == nullptr || found != tensors.end());
                if (!known)
                {
                    break;
                }
                query.inputs.push_back(input != nullptr
                        ? std::optional(host::TensorDesc{input->type(), atPoint(found->second, point)})
                        : std::nullopt);
                query.values.push_back(input != nullptr && found->second.values
                        ? std::optional((*found->second.values)[point])
                        : std::nullopt);
            }
            if (!known)
            {
                continue;
            }
            query.output = host::TensorDesc{output.type(), atPoint(tensors.at(&output), point)};
            auto const made = std::visit([&](auto const& params) { return hostOutput(params, query); }, layer.params());
            std::string const where = profileName(p) + ", " + kPointNames[point];
            if (!made)
            {
                return invalid(describeLayer(layer) + ": the host backend cannot run it at " + where + " (inputs "
                    + describeDescs(query.inputs) + "): " + made.error().message);
            }
            if (!made.value())
            {
                continue;
            }
            host::TensorDesc const& desc = *made.value();
            if (desc.type != query.output.type)
            {
                return invalid(describeLayer(layer) + ": output 0 '" + output.name() + "' is "
                    + dataTypeName(query.output.type) + ", but the host backend's kernel makes "
                    + dataTypeName(desc.type) + " from inputs " + describeDescs(query.inputs)
                    + " (kiln inserts no casts yet; add an ICastLayer)");
            }
            if (!host::sameShape(desc.dims, query.output.dims))
            {
                return Error{ErrorCode::kINTERNAL_ERROR,
                    describeLayer(layer) + ": at " + where + ", shape inference gives output 0 the shape "
                        + host::shapeString(query.output.dims) + " but the host backend's kernel makes "
                        + host::shapeString(desc.dims)};
            }
        }
    }
    return std::nullopt;
}

// ---- 4. Weights -----------------------------------------------------------------------------------------------------

//! A copy of weights kept in blobs, and the Weights that points at it (empty weights stay empty).
Weights keepWeights(Weights const& weights, std::vector<WeightsBlob>& blobs)
{
    if (weights.count <= 0 || weights.values == nullptr)
    {
        return Weights{weights.type, nullptr, 0};
    }
    auto const* first = static_cast<uint8_t const*>(weights.values);
    WeightsBlob blob{weights.type, weights.count, {}};
    blob.bytes.assign(first, first + storageBytes(weights.type, weights.count));
    blobs.push_back(std::move(blob));
    return Weights{weights.type, blobs.back().bytes.data(), weights.count};
}

//! The parameters of a layer with their weights copied into blobs.
LayerParams copyParams(LayerParams const& params, std::vector<WeightsBlob>& blobs)
{
    return std::visit(
        [&](auto const& kind) -> LayerParams {
            using P = std::decay_t<decltype(kind)>;
            if constexpr (std::is_copy_constructible_v<P>)
            {
                P copy = kind;
                if constexpr (std::is_same_v<P, ConvolutionParams>)
                {
                    copy.kernel = keepWeights(kind.kernel, blobs);
                    copy.bias = keepWeights(kind.bias, blobs);
                }
                else if constexpr (std::is_same_v<P, ConstantParams>)
                {
                    copy.weights = keepWeights(kind.weights, blobs);
                }
                return LayerParams{std::in_place_type<P>, std::move(copy)};
            }
            else
            {
                return LayerParams{std::in_place_type<P>}; // plugin layers: refused before (issue 4)
            }
        },
        params);
}

// ---- 5. Shape expressions -------------------------------------------------------------------------------------------

//! Copies the part of the expression DAG the engine uses into EngineModel::exprs and ::symbols. Nodes keep their
//! creation order, so operands come before the operations that use them.
class ExprExport
{
public:
    explicit ExprExport(ExprContext const& exprs)
        : mExprs(exprs)
    {
    }

    //! Adds expr and every node it refers to.
    void add(DimExpr const* expr)
    {
        std::vector<DimExpr const*> pending{expr};
        while (!pending.empty())
        {
            DimExpr const* node = pending.back();
            pending.pop_back();
            if (node == nullptr || !mNodes.emplace(node->id(), node).second)
            {
                continue;
            }
            if (node->kind() == DimExpr::Kind::kOPERATION)
            {
                pending.push_back(node->lhs());
                pending.push_back(node->rhs());
            }
            else if (node->kind() == DimExpr::Kind::kSYMBOL)
            {
                mSymbols.insert(node->symbol());
                SymbolInfo const& info = mExprs.symbolInfo(node->symbol());
                pending.push_back(info.optimum);
                pending.push_back(info.upperBound);
            }
        }
    }

    void add(SymbolicDims const& dims)
    {
        for (DimExpr const* expr : dims)
        {
            add(expr);
        }
    }

    //! Writes the nodes and symbols added into model; tensors maps each kept tensor to its index there.
    std::optional<Error> write(
        EngineModel& model, NetworkShapes const& shapes, std::unordered_map<Tensor const*, int32_t> const& tensors)
    {
        for (SymbolId symbol : mSymbols)
        {
            SymbolInfo const& info = mExprs.symbolInfo(symbol);
            SymbolRecord record{info.name, info.kind};
            if (info.kind != SymbolKind::kSIZE_TENSOR)
            {
                auto const source = shapes.sources.find(symbol);
                auto const tensor = source != shapes.sources.end() ? tensors.find(source->second.owner) : tensors.end();
                if (tensor == tensors.end())
                {
                    return Error{ErrorCode::kINTERNAL_ERROR,
                        "the symbol " + info.name + " has no source tensor among the engine's tensors"};
                }
                record.tensor = tensor->second;
                record.index = source->second.index;
            }
            mSymbolIndex[symbol] = static_cast<uint32_t>(model.symbols.size());
            model.symbols.push_back(std::move(record));
        }
        for (auto const& [id, node] : mNodes)
        {
            ExprRecord record;
            record.kind = node->kind();
            record.value = node->value();
            if (node->kind() == DimExpr::Kind::kSYMBOL)
            {
                record.symbol = mSymbolIndex.at(node->symbol());
            }
            if (node->kind() == DimExpr::Kind::kOPERATION)
            {
                record.op = node->op();
                record.lhs = index(node->lhs());
                record.rhs = index(node->rhs());
            }
            mIndex[id] = static_cast<uint32_t>(model.exprs.size());
            model.exprs.push_back(record);
        }
        for (SymbolId symbol : mSymbols)
        {
            SymbolInfo const& info = mExprs.symbolInfo(symbol);
            SymbolRecord& record = model.symbols[mSymbolIndex.at(symbol)];
            record.optimum = info.optimum != nullptr ? static_cast<int32_t>(index(info.optimum)) : -1;
            record.upperBound = info.upperBound != nullptr ? static_cast<int32_t>(index(info.upperBound)) : -1;
        }
        return std::nullopt;
    }

    //! The index in EngineModel::exprs of a node added and written.
    uint32_t index(DimExpr const* expr) const { return mIndex.at(expr->id()); }

    std::vector<uint32_t> indices(SymbolicDims const& dims) const
    {
        std::vector<uint32_t> result;
        for (DimExpr const* expr : dims)
        {
            result.push_back(index(expr));
        }
        return result;
    }

private:
    ExprContext const& mExprs;
    std::map<uint32_t, DimExpr const*> mNodes; //!< By id: creation order.
    std::set<SymbolId> mSymbols;
    std::map<SymbolId, uint32_t> mSymbolIndex;
    std::map<uint32_t, uint32_t> mIndex;
};

// ---- 6. Profiles and memory -----------------------------------------------------------------------------------------

//! One profile's record: its input ranges, and the activation memory of the internal tensors it bounds. tensors are
//! the engine's tensors, as model.tensors records them.
Expected<ProfileRecord> planProfile(EngineModel const& model, std::vector<Tensor const*> const& tensors,
    ConcreteShapes const& concrete, std::string const& where)
{
    ProfileRecord record;
    for (int32_t i = 0; i < model.nbInputs; ++i)
    {
        auto const io = static_cast<std::size_t>(model.ioTensors[static_cast<std::size_t>(i)]);
        ConcreteShape const& shape = concrete.tensors.at(tensors[io]);
        ProfileRecord::Input input{static_cast<int32_t>(io), shape.min, shape.opt, shape.max, {}, {}, {}};
        if (model.tensors[io].isShapeTensor && shape.values)
        {
            input.minValues = (*shape.values)[0];
            input.optValues = (*shape.values)[1];
            input.maxValues = (*shape.values)[2];
        }
        record.inputs.push_back(std::move(input));
    }

    // Lifetimes: from the layer that makes a tensor to the last layer that reads it.
    std::vector<int32_t> lastStep(model.tensors.size());
    for (std::size_t t = 0; t < model.tensors.size(); ++t)
    {
        lastStep[t] = model.tensors[t].producer;
    }
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        for (int32_t input : model.layers[l].inputs)
        {
            if (input != kNoTensor)
            {
                auto& last = lastStep[static_cast<std::size_t>(input)];
                last = std::max(last, static_cast<int32_t>(l));
            }
        }
    }

    std::vector<BufferRequest> requests;
    std::vector<std::size_t> owners;
    for (std::size_t t = 0; t < model.tensors.size(); ++t)
    {
        TensorRecord const& tensor = model.tensors[t];
        auto const shape = concrete.tensors.find(tensors[t]);
        if (tensor.isInput || tensor.isOutput || shape == concrete.tensors.end())
        {
            continue; // I/O lives in the caller's memory; a data-dependent shape is allocated at run time
        }
        std::optional<int64_t> const count = staticVolume(shape->second.upper);
        constexpr int64_t kLargest = std::numeric_limits<int64_t>::max() / 8;
        if (!count || *count > kLargest)
        {
            return invalid(where + ": tensor '" + tensor.name + "' of up to " + dimsText(shape->second.upper)
                + " elements is too large to allocate");
        }
        requests.push_back(BufferRequest{storageBytes(tensor.type, *count), tensor.producer, lastStep[t]});
        owners.push_back(t);
    }
    auto plan = planMemory(requests);
    if (!plan)
    {
        return Error{plan.error().code, where + ": " + plan.error().message};
    }
    record.offsets.assign(model.tensors.size(), -1);
    for (std::size_t i = 0; i < owners.size(); ++i)
    {
        record.offsets[owners[i]] = plan.value().offsets[i];
    }
    record.activationBytes = plan.value().totalBytes;
    return record;
}

//! Calls phaseFinish for a phase that started, however the build leaves it.
class PhaseScope
{
public:
    PhaseScope(nvinfer1::IProgressMonitor* monitor, int32_t nbSteps)
        : mMonitor(monitor)
    {
        if (mMonitor != nullptr)
        {
            mMonitor->phaseStart(kBuildPhase, nullptr, nbSteps);
        }
    }
    ~PhaseScope()
    {
        if (mMonitor != nullptr)
        {
            mMonitor->phaseFinish(kBuildPhase);
        }
    }
    PhaseScope(PhaseScope const&) = delete;
    PhaseScope& operator=(PhaseScope const&) = delete;

    //! Whether the monitor lets the build go on after step.
    bool stepComplete(int32_t step) const { return mMonitor == nullptr || mMonitor->stepComplete(kBuildPhase, step); }

private:
    nvinfer1::IProgressMonitor* mMonitor;
};

} // namespace

Expected<EngineModel> buildEngineModel(Network const& network, BuildSettings const& settings)
{
    // 1. What the graph alone refuses.
    if (auto problem = checkIo(network))
    {
        return *problem;
    }
    std::set<Layer const*> const live = liveLayers(network);
    if (auto problem = refusePlugins(network, live))
    {
        return *problem;
    }
    auto const profiles = profilesToBuild(network, settings);
    if (!profiles)
    {
        return profiles.error();
    }

    // 2. Shapes, symbolic and per profile.
    ExprContext exprs;
    auto inferred = inferShapes(network, exprs);
    if (!inferred)
    {
        return inferred.error();
    }
    NetworkShapes const& shapes = inferred.value();
    std::vector<ConcreteShapes> concrete;
    for (std::size_t p = 0; p < profiles.value().size(); ++p)
    {
        auto shapesAtProfile = concretize(shapes, exprs, profiles.value()[p], profileName(p));
        if (!shapesAtProfile)
        {
            return shapesAtProfile.error();
        }
        concrete.push_back(std::move(shapesAtProfile.value()));
    }

    // 3. The engine's layers and tensors: every network input, then the outputs of the layers kept, in order.
    EngineModel model;
    model.name = network.name();
    model.backend = PlanBackend::kHOST;
    std::vector<Layer const*> order;
    std::copy_if(shapes.order.begin(), shapes.order.end(), std::back_inserter(order),
        [&](Layer const* layer) { return live.count(layer) != 0; });
    std::vector<Tensor const*> tensors;
    std::unordered_map<Tensor const*, int32_t> tensorIndex;
    auto const keep = [&](Tensor const& tensor, int32_t producer) -> std::optional<Error> {
        auto const scale = scaleOf(tensor, network.isStronglyTyped());
        if (!scale)
        {
            return scale.error();
        }
        TensorRecord record;
        record.name = tensor.name();
        record.type = tensor.type();
        record.isInput = tensor.isInput();
        record.isOutput = tensor.isOutput();
        record.isShapeTensor = tensor.isInput() ? isShapeTensorInput(tensor) : tensor.isShapeOutput();
        record.scale = scale.value();
        record.producer = producer;
        tensorIndex[&tensor] = static_cast<int32_t>(tensors.size());
        tensors.push_back(&tensor);
        model.tensors.push_back(std::move(record));
        return std::nullopt;
    };
    for (Tensor const* input : network.inputs())
    {
        if (auto problem = keep(*input, -1))
        {
            return *problem;
        }
    }
    for (std::size_t l = 0; l < order.size(); ++l)
    {
        for (Tensor const* output : order[l]->outputs())
        {
            if (auto problem = keep(*output, static_cast<int32_t>(l)))
            {
                return *problem;
            }
        }
    }
    for (std::size_t i = 0; i < network.inputs().size(); ++i)
    {
        model.ioTensors.push_back(static_cast<int32_t>(i));
    }
    model.nbInputs = static_cast<int32_t>(network.inputs().size());
    for (Tensor const* output : network.outputs())
    {
        model.ioTensors.push_back(tensorIndex.at(output));
    }

    // 4. Per layer: the host backend's verdict, the record with its weights copied, one progress step.
    {
        PhaseScope const phase(settings.progressMonitor, static_cast<int32_t>(order.size()));
        for (std::size_t l = 0; l < order.size(); ++l)
        {
            Layer const& layer = *order[l];
            if (auto problem = checkHostKernel(layer, concrete))
            {
                return *problem;
            }
            LayerRecord record;
            record.name = layer.name();
            record.type = layer.type();
            for (Tensor const* input : layer.inputs())
            {
                record.inputs.push_back(input != nullptr ? tensorIndex.at(input) : kNoTensor);
            }
            for (Tensor const* output : layer.outputs())
            {
                record.outputs.push_back(tensorIndex.at(output));
            }
            record.params = copyParams(layer.params(), model.weights);
            record.metadata = layer.metadata();
            model.layers.push_back(std::move(record));
            if (!phase.stepComplete(static_cast<int32_t>(l)))
            {
                return Error{ErrorCode::kUNSPECIFIED_ERROR,
                    "network '" + network.name() + "': build cancelled by the progress monitor after "
                        + describeLayer(layer) + " (step " + std::to_string(l + 1) + " of "
                        + std::to_string(order.size()) + ")"};
            }
        }
    }

    // 5. The shape expressions of every tensor and assertion kept.
    std::unordered_map<Layer const*, int32_t> layerIndex;
    for (std::size_t l = 0; l < order.size(); ++l)
    {
        layerIndex[order[l]] = static_cast<int32_t>(l);
    }
    ExprExport exported(exprs);
    for (Tensor const* tensor : tensors)
    {
        SymbolicTensor const& symbolic = shapes.tensors.at(tensor);
        exported.add(*symbolic.shape);
        if (symbolic.values)
        {
            exported.add(*symbolic.values);
        }
    }
    for (LayerAssertion const& entry : shapes.assertions)
    {
        if (layerIndex.count(entry.layer) != 0)
        {
            exported.add(entry.assertion.condition);
        }
    }
    if (auto problem = exported.write(model, shapes, tensorIndex))
    {
        return *problem;
    }
    for (std::size_t t = 0; t < tensors.size(); ++t)
    {
        SymbolicTensor const& symbolic = shapes.tensors.at(tensors[t]);
        model.tensors[t].shape = exported.indices(*symbolic.shape);
        if (symbolic.values)
        {
            model.tensors[t].values = exported.indices(*symbolic.values);
        }
    }
    for (LayerAssertion const& entry : shapes.assertions)
    {
        if (auto const found = layerIndex.find(entry.layer); found != layerIndex.end())
        {
            model.assertions.push_back(
                AssertionRecord{exported.index(entry.assertion.condition), entry.assertion.message, found->second});
        }
    }

    // 6. Each profile's input ranges and activation memory.
    for (std::size_t p = 0; p < concrete.size(); ++p)
    {
        auto record = planProfile(model, tensors, concrete[p], profileName(p));
        if (!record)
        {
            return record.error();
        }
        model.deviceMemorySize = std::max(model.deviceMemorySize, record.value().activationBytes);
        model.profiles.push_back(std::move(record.value()));
    }
    return model;
}

} // namespace kiln
