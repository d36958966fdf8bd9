// SPDX-License-Identifier: Apache-2.0
#include "network/shape_inference.h"

#include "core/data_type.h"
#include "network/checks.h"
#include "network/describe.h"

#include <algorithm>
#include <functional>
#include <set>
#include <variant>

namespace kiln
{
namespace
{

std::string describeTensor(Tensor const& tensor)
{
    if (tensor.producer() == nullptr)
    {
        return "network input '" + tensor.name() + "'";
    }
    return "tensor '" + tensor.name() + "' (output " + std::to_string(tensor.producerOutput()) + " of "
        + describeLayer(*tensor.producer()) + ")";
}

//! Whether input index of layer is a recurrence's next value, which the layer reads in the next iteration.
bool isBackEdge(Layer const& layer, std::size_t index) noexcept
{
    return layer.type() == LayerType::kRECURRENCE && index == 1;
}

//! Each recurrence's next value has its current value's type and shape (extents that are not both constants are
//! trusted: the run time copies the next value over the current one and checks the sizes).
std::optional<Error> checkRecurrences(NetworkShapes const& shapes)
{
    for (Layer const* layer : shapes.order)
    {
        if (layer->type() != LayerType::kRECURRENCE)
        {
            continue;
        }
        Tensor const* next = layer->input(1);
        if (next == nullptr)
        {
            return invalid(
                describeLayer(*layer) + ": the recurrence has no next value; set input 1 with setInput(1, ...)");
        }
        SymbolicTensor const& current = shapes.tensors.at(layer->outputs().front());
        SymbolicTensor const& following = shapes.tensors.at(next);
        bool same = current.type == following.type && current.rank() == following.rank();
        for (int32_t j = 0; same && j < current.rank(); ++j)
        {
            int64_t a = 0;
            int64_t b = 0;
            DimExpr const* x = (*current.shape)[static_cast<std::size_t>(j)];
            DimExpr const* y = (*following.shape)[static_cast<std::size_t>(j)];
            same = !(isConstantExpr(x, &a) && isConstantExpr(y, &b) && a != b);
        }
        if (!same)
        {
            return invalid(describeLayer(*layer) + ": the next value '" + next->name()
                + "' must have the initial value's type and shape (" + dataTypeName(current.type) + " of rank "
                + std::to_string(current.rank()) + ")");
        }
    }
    return std::nullopt;
}

//! The layers in an order where every layer follows the producers of its inputs.
std::vector<Layer const*> topologicalOrder(Network const& network)
{
    std::vector<Layer const*> order;
    std::set<Layer const*> done;
    std::function<void(Layer const*)> visit = [&](Layer const* layer) {
        if (!done.insert(layer).second)
        {
            return;
        }
        for (std::size_t i = 0; i < layer->inputs().size(); ++i)
        {
            Tensor const* input = layer->inputs()[i];
            // A recurrence's next value (input 1) is read in the next iteration: the loop's back edge.
            bool const backEdge = isBackEdge(*layer, i);
            if (input != nullptr && input->producer() != nullptr && !backEdge)
            {
                visit(input->producer());
            }
        }
        order.push_back(layer);
    };
    for (auto const& layer : network.layers())
    {
        visit(layer.get());
    }
    return order;
}

//! Whether values can stand for a tensor of this type and shape.
bool keepsValues(SymbolicTensor const& tensor)
{
    if (!tensor.values || !tensor.shape || tensor.shape->size() > 1)
    {
        return false;
    }
    bool const indexType = isIndexType(tensor.type) || tensor.type == DataType::kBOOL;
    int64_t length = 1;
    if (!tensor.shape->empty() && !isConstantExpr(tensor.shape->front(), &length))
    {
        return false;
    }
    return indexType && static_cast<int64_t>(tensor.values->size()) == length;
}

//! Fresh value symbols "<name>.v<i>" for a 0-D or 1-D tensor of build-time length; nullopt otherwise.
std::optional<SymbolicDims> valueSymbols(
    ExprContext& exprs, NetworkShapes& shapes, Tensor const& tensor, SymbolicDims const& shape)
{
    std::string const& name = tensor.name();
    int64_t length = 1;
    if (shape.size() > 1 || (shape.size() == 1 && !isConstantExpr(shape.front(), &length)) || length < 0
        || static_cast<std::size_t>(length) > kMaxShapeValues)
    {
        return std::nullopt;
    }
    SymbolicDims values;
    for (int64_t i = 0; i < length; ++i)
    {
        DimExpr const* value = exprs.symbol(name + ".v" + std::to_string(i), SymbolKind::kSHAPE_VALUE);
        shapes.sources[value->symbol()] = SymbolSource{name, static_cast<int32_t>(i), true, &tensor};
        values.push_back(value);
    }
    return values;
}

//! Symbol values at one point, and the ranges over the profile.
struct Binding
{
    std::map<SymbolId, int64_t> values;
};

//! Binds the input-extent and shape-value symbols of the network inputs from dimsOf / valuesOf (which give nullopt
//! when the source has nothing for an input); where names the source in messages.
Expected<Binding> bindInputs(NetworkShapes const& shapes, std::string const& where,
    std::function<std::optional<Dims>(std::string const&)> const& dimsOf,
    std::function<std::optional<std::vector<int64_t>>(std::string const&)> const& valuesOf,
    std::set<std::string> const& inputNames)
{
    Binding binding;
    for (auto const& [symbol, source] : shapes.sources)
    {
        if (inputNames.count(source.tensor) == 0)
        {
            continue; // an untracked value: no binding; shapes that need it fail to evaluate, naming it
        }
        if (source.isValue)
        {
            auto const values = valuesOf(source.tensor);
            if (!values)
            {
                return invalid(where + ": gives no shape values for input '" + source.tensor
                    + "', a shape tensor whose values determine shapes");
            }
            if (static_cast<int32_t>(values->size()) <= source.index)
            {
                return invalid(where + ": gives " + std::to_string(values->size()) + " shape values for input '"
                    + source.tensor + "'; it needs " + std::to_string(source.index + 1) + " or more");
            }
            binding.values[symbol] = (*values)[static_cast<std::size_t>(source.index)];
            continue;
        }
        auto const dims = dimsOf(source.tensor);
        if (!dims)
        {
            return invalid(where + ": gives no dimensions for input '" + source.tensor + "', whose extent "
                + std::to_string(source.index) + " is dynamic");
        }
        if (dims->nbDims <= source.index)
        {
            std::string text;
            message::append(text, *dims);
            return invalid(where + ": dimensions " + text + " of input '" + source.tensor + "' lack extent "
                + std::to_string(source.index));
        }
        int64_t const extent = dims->d[source.index];
        if (extent < 0)
        {
            return invalid(where + ": extent " + std::to_string(source.index) + " of input '" + source.tensor + "' is "
                + std::to_string(extent) + "; extents are at least 0");
        }
        binding.values[symbol] = extent;
    }
    return binding;
}

//! Checks that dims given for an input agree with its declared rank and fixed extents.
std::optional<Error> checkInputDims(Tensor const& input, Dims const& given, std::string const& where)
{
    Dims const declared = input.dims();
    std::string shown;
    message::append(shown, given);
    std::string expected;
    message::append(expected, declared);
    if (given.nbDims != declared.nbDims)
    {
        return invalid(where + ": input '" + input.name() + "' is given dimensions " + shown + "; it has rank "
            + std::to_string(declared.nbDims) + " " + expected);
    }
    for (int32_t i = 0; i < declared.nbDims; ++i)
    {
        if (declared.d[i] >= 0 && given.d[i] != declared.d[i])
        {
            return invalid(where + ": input '" + input.name() + "' is given dimensions " + shown + "; extent "
                + std::to_string(i) + " is fixed at " + std::to_string(declared.d[i]) + " " + expected);
        }
    }
    return std::nullopt;
}

//! Evaluates expr, naming what it is in an error.
Expected<int64_t> evaluateExtent(
    ExprContext const& exprs, DimExpr const& expr, std::map<SymbolId, int64_t> const& at, std::string const& what)
{
    auto const value = exprs.evaluate(expr, at);
    if (!value)
    {
        return invalid(what + " = " + exprs.toString(expr) + " cannot be evaluated: " + value.error().message);
    }
    if (value.value() < 0)
    {
        return invalid(
            what + " = " + exprs.toString(expr) + " is " + std::to_string(value.value()) + "; extents are at least 0");
    }
    return value;
}

//! Every assertion at one point: the first that fails (is 0) is the error. Assertions on unbound symbols wait.
std::optional<Error> checkAssertions(NetworkShapes const& shapes, ExprContext const& exprs,
    std::map<SymbolId, int64_t> const& at, std::string const& where)
{
    for (LayerAssertion const& entry : shapes.assertions)
    {
        auto const value = exprs.evaluate(*entry.assertion.condition, at);
        if (value && value.value() == 0)
        {
            return invalid(where + ": " + entry.assertion.message);
        }
    }
    return std::nullopt;
}

//! Whether expr uses a symbol that at does not bind (an untracked, data-dependent value).
bool usesUnboundSymbol(DimExpr const& expr, std::map<SymbolId, int64_t> const& at)
{
    std::vector<DimExpr const*> pending{&expr};
    std::set<uint32_t> seen;
    while (!pending.empty())
    {
        DimExpr const* node = pending.back();
        pending.pop_back();
        if (!seen.insert(node->id()).second)
        {
            continue;
        }
        if (node->kind() == DimExpr::Kind::kSYMBOL && at.count(node->symbol()) == 0)
        {
            return true;
        }
        if (node->kind() == DimExpr::Kind::kOPERATION)
        {
            pending.push_back(node->lhs());
            pending.push_back(node->rhs());
        }
    }
    return false;
}

std::set<std::string> inputNames(NetworkShapes const& shapes)
{
    std::set<std::string> names;
    for (auto const& [tensor, symbolic] : shapes.tensors)
    {
        if (tensor->isInput())
        {
            names.insert(tensor->name());
        }
    }
    return names;
}

} // namespace

Expected<NetworkShapes> inferShapes(Network const& network, ExprContext& exprs)
{
    NetworkShapes shapes;
    for (Tensor const* input : network.inputs())
    {
        Dims const dims = input->dims();
        SymbolicTensor symbolic;
        symbolic.type = input->type();
        symbolic.shape = SymbolicDims{};
        for (int32_t i = 0; i < dims.nbDims; ++i)
        {
            if (dims.d[i] >= 0)
            {
                symbolic.shape->push_back(exprs.constant(dims.d[i]));
                continue;
            }
            DimExpr const* extent = exprs.symbol(input->name() + ".d" + std::to_string(i), SymbolKind::kINPUT_EXTENT);
            shapes.sources[extent->symbol()] = SymbolSource{input->name(), i, false, input};
            symbolic.shape->push_back(extent);
        }
        if (isIndexType(input->type()) && isShapeTensor(*input))
        {
            symbolic.values = valueSymbols(exprs, shapes, *input, *symbolic.shape);
        }
        shapes.tensors[input] = std::move(symbolic);
    }

    shapes.order = topologicalOrder(network);
    for (Layer const* layer : shapes.order)
    {
        std::vector<SymbolicTensor> inputs;
        for (std::size_t i = 0; i < layer->inputs().size(); ++i)
        {
            Tensor const* tensor = layer->inputs()[i];
            if (isBackEdge(*layer, i))
            {
                // Inferred later, in the body; checked against the current value below.
                inputs.emplace_back();
                continue;
            }
            if (tensor == nullptr)
            {
                inputs.emplace_back();
                continue;
            }
            auto found = shapes.tensors.find(tensor);
            if (found == shapes.tensors.end())
            {
                return invalid(describeLayer(*layer) + ": input " + std::to_string(i) + " '" + tensor->name()
                    + "' is neither a network input nor made by a layer");
            }
            SymbolicTensor& source = found->second;
            // An if-conditional's output reads the condition's value (input 2) for the extents where its branches
            // differ.
            bool const readsValues = layer->isShapeInput(static_cast<int32_t>(i))
                || (layer->type() == LayerType::kCONDITIONAL_OUTPUT && i == 2);
            if (!source.values && readsValues)
            {
                // Values computed in ways kiln does not follow: symbols that only the run time can bind.
                source.values = valueSymbols(exprs, shapes, *tensor, *source.shape);
            }
            inputs.push_back(source);
        }
        ShapeRuleContext context(
            exprs, layer->name(), layer->type(), std::move(inputs), static_cast<int32_t>(layer->outputs().size()));
        auto outputs
            = std::visit([&](auto const& params) { return inferOutputShapes(params, context); }, layer->params());
        if (!outputs)
        {
            return outputs.error();
        }
        if (outputs.value().size() != layer->outputs().size())
        {
            return invalid(describeLayer(*layer) + ": its shape rule gave " + std::to_string(outputs.value().size())
                + " outputs; the layer has " + std::to_string(layer->outputs().size()));
        }
        for (ShapeAssertion const& assertion : context.assertions())
        {
            shapes.assertions.push_back(LayerAssertion{assertion, layer});
        }
        for (std::size_t o = 0; o < layer->outputs().size(); ++o)
        {
            Tensor const* tensor = layer->outputs()[o];
            SymbolicTensor& output = outputs.value()[o];
            if (output.shape->size() > static_cast<std::size_t>(Dims::MAX_DIMS))
            {
                return invalid(describeTensor(*tensor) + " would have " + std::to_string(output.shape->size())
                    + " dimensions; at most " + std::to_string(Dims::MAX_DIMS));
            }
            output.type = tensor->type();
            if (!keepsValues(output))
            {
                output.values.reset();
            }
            shapes.tensors[tensor] = std::move(output);
        }
    }
    if (auto problem = checkRecurrences(shapes))
    {
        return *problem;
    }
    return shapes;
}

Expected<ConcreteShapes> concretize(
    NetworkShapes const& shapes, ExprContext const& exprs, ProfileData const& profile, std::string const& profileName)
{
    std::set<std::string> const names = inputNames(shapes);
    for (auto const& [tensor, symbolic] : shapes.tensors)
    {
        if (!tensor->isInput())
        {
            continue;
        }
        auto const found = profile.inputs.find(tensor->name());
        for (std::size_t k = 0; found != profile.inputs.end() && k < 3; ++k)
        {
            if (auto const& dims = found->second.dims[k])
            {
                if (auto problem = checkInputDims(*tensor, *dims, profileName + ", " + kPointNames[k]))
                {
                    return *problem;
                }
            }
        }
    }

    // The three points.
    std::array<std::map<SymbolId, int64_t>, 3> points;
    for (std::size_t k = 0; k < 3; ++k)
    {
        auto dimsOf = [&](std::string const& name) -> std::optional<Dims> {
            auto const found = profile.inputs.find(name);
            return found == profile.inputs.end() ? std::nullopt : found->second.dims[k];
        };
        auto valuesOf = [&](std::string const& name) -> std::optional<std::vector<int64_t>> {
            auto const found = profile.inputs.find(name);
            return found == profile.inputs.end() ? std::nullopt : found->second.values[k];
        };
        auto binding = bindInputs(shapes, profileName + ", " + kPointNames[k], dimsOf, valuesOf, names);
        if (!binding)
        {
            return binding.error();
        }
        points[k] = std::move(binding.value().values);
    }
    std::map<SymbolId, Interval> ranges;
    for (auto const& [symbol, value] : points[0])
    {
        int64_t const high = points[2].at(symbol);
        ranges[symbol] = Interval{std::min(value, high), std::max(value, high)};
    }
    // Size tensors: 0 at kMIN, their optimum at kOPT, their upper bound at kMAX.
    for (SymbolId symbol = 0; symbol < exprs.symbolCount(); ++symbol)
    {
        SymbolInfo const& info = exprs.symbolInfo(symbol);
        if (info.kind != SymbolKind::kSIZE_TENSOR)
        {
            continue;
        }
        auto const opt = exprs.evaluate(*info.optimum, points[1]);
        auto const upper = exprs.evaluate(*info.upperBound, points[2]);
        if (!opt || !upper)
        {
            return invalid(profileName + ": the size tensor " + info.name
                + " cannot be bounded: " + (!opt ? opt.error().message : upper.error().message));
        }
        points[0][symbol] = 0;
        points[1][symbol] = opt.value();
        points[2][symbol] = upper.value();
    }
    for (std::size_t k = 0; k < 3; ++k)
    {
        if (auto problem = checkAssertions(shapes, exprs, points[k], profileName + ", at " + kPointNames[k]))
        {
            return *problem;
        }
    }

    ConcreteShapes result;
    auto const concretizeTensor = [&](Tensor const& tensor) -> std::optional<Error> {
        SymbolicTensor const& symbolic = shapes.tensors.at(&tensor);
        for (DimExpr const* extent : *symbolic.shape)
        {
            if (usesUnboundSymbol(*extent, points[0]))
            {
                return std::nullopt; // data-dependent: only the run time knows it
            }
        }
        ConcreteShape concrete;
        std::array<Dims*, 3> const targets{&concrete.min, &concrete.opt, &concrete.max};
        auto const rank = static_cast<int32_t>(symbolic.shape->size());
        for (Dims* target : targets)
        {
            target->nbDims = rank;
        }
        concrete.upper.nbDims = rank;
        for (int32_t i = 0; i < rank; ++i)
        {
            DimExpr const& extent = *(*symbolic.shape)[static_cast<std::size_t>(i)];
            for (std::size_t k = 0; k < 3; ++k)
            {
                auto const value = evaluateExtent(exprs, extent, points[k],
                    profileName + ", at " + kPointNames[k] + ": extent " + std::to_string(i) + " of "
                        + describeTensor(tensor));
                if (!value)
                {
                    return value.error();
                }
                targets[k]->d[i] = value.value();
            }
            auto const bound = exprs.bounds(extent, ranges);
            if (!bound)
            {
                return invalid(profileName + ": extent " + std::to_string(i) + " of " + describeTensor(tensor) + " = "
                    + exprs.toString(extent) + " cannot be bounded over the profile: " + bound.error().message);
            }
            concrete.upper.d[i] = std::max({bound.value().hi, concrete.min.d[i], concrete.opt.d[i], concrete.max.d[i]});
        }
        if (symbolic.values)
        {
            std::array<std::vector<int64_t>, 3> values;
            bool known = true;
            for (std::size_t k = 0; k < 3 && known; ++k)
            {
                for (DimExpr const* value : *symbolic.values)
                {
                    auto const v = exprs.evaluate(*value, points[k]);
                    known = known && v.ok();
                    if (!known)
                    {
                        break;
                    }
                    values[k].push_back(v.value());
                }
            }
            if (known)
            {
                concrete.values = std::move(values);
            }
        }
        result.tensors[&tensor] = concrete;
        return std::nullopt;
    };
    for (auto const& [tensor, symbolic] : shapes.tensors)
    {
        if (tensor->isInput())
        {
            if (auto problem = concretizeTensor(*tensor))
            {
                return *problem;
            }
        }
    }
    for (Layer const* layer : shapes.order)
    {
        for (Tensor const* tensor : layer->outputs())
        {
            if (auto problem = concretizeTensor(*tensor))
            {
                return *problem;
            }
        }
    }
    return result;
}

Expected<std::unordered_map<Tensor const*, Dims>> evaluate(
    NetworkShapes const& shapes, ExprContext const& exprs, InputValues const& inputs)
{
    std::set<std::string> const names = inputNames(shapes);
    for (auto const& [tensor, symbolic] : shapes.tensors)
    {
        if (tensor->isInput())
        {
            auto const found = inputs.shapes.find(tensor->name());
            if (found != inputs.shapes.end())
            {
                if (auto problem = checkInputDims(*tensor, found->second, "the input shapes"))
                {
                    return *problem;
                }
            }
        }
    }
    auto dimsOf = [&](std::string const& name) -> std::optional<Dims> {
        auto const found = inputs.shapes.find(name);
        return found == inputs.shapes.end() ? std::nullopt : std::optional(found->second);
    };
    auto valuesOf = [&](std::string const& name) -> std::optional<std::vector<int64_t>> {
        auto const found = inputs.shapeValues.find(name);
        return found == inputs.shapeValues.end() ? std::nullopt : std::optional(found->second);
    };
    auto binding = bindInputs(shapes, "the input shapes", dimsOf, valuesOf, names);
    if (!binding)
    {
        return binding.error();
    }
    std::map<SymbolId, int64_t> at = std::move(binding.value().values);
    at.insert(inputs.sizeTensors.begin(), inputs.sizeTensors.end());
    if (auto problem = checkAssertions(shapes, exprs, at, "the input shapes"))
    {
        return *problem;
    }
    std::unordered_map<Tensor const*, Dims> result;
    for (auto const& [tensor, symbolic] : shapes.tensors)
    {
        Dims dims{static_cast<int32_t>(symbolic.shape->size()), {}};
        bool pending = false;
        for (int32_t i = 0; i < dims.nbDims && !pending; ++i)
        {
            DimExpr const& extent = *(*symbolic.shape)[static_cast<std::size_t>(i)];
            if (extent.dependsOnSizeTensor())
            {
                auto const value = exprs.evaluate(extent, at);
                pending = !value.ok();
                if (pending)
                {
                    break;
                }
            }
            auto const value
                = evaluateExtent(exprs, extent, at, "extent " + std::to_string(i) + " of " + describeTensor(*tensor));
            if (!value)
            {
                return value.error();
            }
            dims.d[i] = value.value();
        }
        if (!pending)
        {
            result[tensor] = dims;
        }
    }
    return result;
}

} // namespace kiln
