// SPDX-License-Identifier: Apache-2.0
// Symbolic shape inference over a whole network, and its evaluation against an optimization profile.
//
//     ExprContext exprs;
//     auto shapes = inferShapes(network, exprs);               // every tensor's extents as DimExprs
//     auto concrete = concretize(shapes.value(), exprs, profile, "profile 0");
//     concrete.value().tensors.at(tensor).max;                 // the shape at the profile's kMAX point
//
// inferShapes walks the layers in topological order. Each dynamic extent (-1) of a network input becomes a symbol
// "<input>.d<i>"; each value of a network input that is a shape tensor becomes a symbol "<input>.v<i>"; fixed
// extents are constants. Each layer's kind computes its outputs (network/shape_rules.h). Shape-tensor values are
// tracked for 0-D and 1-D index tensors of at most kMaxShapeValues values; a shape input whose values cannot be
// tracked (data-dependent) gets fresh value symbols "<tensor>.v<i>", which no profile binds, so evaluating a shape
// that depends on them fails with a message naming them.
//
// concretize evaluates every extent at the profile's kMIN, kOPT and kMAX points (input extents and shape values
// from the profile; plugin size tensors at 0, their optimum and their upper bound) and bounds it over the whole
// range (interval arithmetic: `upper` is a safe bound for memory planning). It refuses, naming the layer, tensor
// and profile, a negative extent, a division by zero, or a broadcast/shape assertion that fails at any of the three
// points. Assertions that depend on several symbols can still fail between the points: they stay in NetworkShapes
// for the run time, where evaluate() checks them with the real input shapes. A tensor whose shape depends on an
// untracked (data-dependent) value cannot be bounded by any profile: concretize leaves it out of
// ConcreteShapes::tensors, and the run time learns its shape once the values are computed.
#pragma once

#include "builder/optimization_profile.h"
#include "network/network.h"
#include "network/shape_rules.h"

#include <array>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace kiln
{

//! Where a symbol comes from, for binding it to profile or run-time values.
struct SymbolSource
{
    std::string tensor;    //!< The network input (or, for an untracked value, the tensor) named.
    int32_t index{};       //!< The extent or value index.
    bool isValue{};        //!< A shape-tensor value rather than an extent.
    Tensor const* owner{}; //!< The tensor named: a network input, or the tensor whose values are untracked.
};

//! A shape assertion and the layer that recorded it.
struct LayerAssertion
{
    ShapeAssertion assertion;
    Layer const* layer{};
};

//! The symbolic result for a network.
struct NetworkShapes
{
    std::unordered_map<Tensor const*, SymbolicTensor> tensors; //!< Every network input and live layer output.
    std::vector<Layer const*> order;                           //!< The layers in topological order.
    std::vector<LayerAssertion> assertions;
    std::map<SymbolId, SymbolSource> sources; //!< Input-extent and shape-value symbols.

    //! The symbolic shape of tensor (which must be in the network).
    SymbolicDims const& shape(Tensor const& tensor) const { return *tensors.at(&tensor).shape; }
};

//! Infers the symbolic shape (and shape-tensor values) of every tensor; the first error names the layer.
Expected<NetworkShapes> inferShapes(Network const& network, ExprContext& exprs);

//! One tensor's shape over a profile.
struct ConcreteShape
{
    Dims min{};   //!< At the profile's kMIN point.
    Dims opt{};   //!< At kOPT.
    Dims max{};   //!< At kMAX.
    Dims upper{}; //!< The largest each extent can be anywhere in the profile's range.
    //! Shape-tensor values at kMIN, kOPT and kMAX, when known.
    std::optional<std::array<std::vector<int64_t>, 3>> values;
};

struct ConcreteShapes
{
    //! Every tensor of NetworkShapes except those whose shape depends on a data-dependent value.
    std::unordered_map<Tensor const*, ConcreteShape> tensors;
};

//! Evaluates shapes against profile (profileName is for messages, e.g. "profile 0").
Expected<ConcreteShapes> concretize(
    NetworkShapes const& shapes, ExprContext const& exprs, ProfileData const& profile, std::string const& profileName);

//! Run-time input: each network input's shape, and each shape input's values.
struct InputValues
{
    std::map<std::string, Dims> shapes;
    std::map<std::string, std::vector<int64_t>> shapeValues;
    std::map<SymbolId, int64_t> sizeTensors; //!< Plugin size tensors, once known (after their plugin ran).
};

//! Every tensor's concrete shape for these inputs, after checking every assertion; tensors whose shape depends on a
//! size tensor not given are left out.
Expected<std::unordered_map<Tensor const*, Dims>> evaluate(
    NetworkShapes const& shapes, ExprContext const& exprs, InputValues const& inputs);

} // namespace kiln
