// SPDX-License-Identifier: Apache-2.0
// The graph helpers every fusion family (builder/fusion.h) matches and rewrites with: who reads a tensor (layers,
// network outputs, shape symbols), the one layer that reads it, which layer made it, whether two tensors are alike,
// the value of a one-element constant, the renumbering that removes absorbed layers, and the rewrite of a pattern into
// one fused kernel (KernelFusion).
//
//     Readers const readers = readersOf(model);
//     int32_t const next = soleReader(readers, layer.outputs[0]);   // -1: read elsewhere too, or pinned
//     ...
//     keepLayers(model, sequence, movedTo);                        // the absorbed layers gone
#pragma once

#include "plan/engine_model.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace kiln
{

//! Who reads each tensor: layers (by index), network outputs, symbols.
struct Readers
{
    std::vector<std::vector<int32_t>> layers;
    std::vector<bool> pinned; //!< A network input or output, a debug tensor, or read by a symbol.
};

Readers readersOf(EngineModel const& model);

//! The one layer that reads tensor, when nothing else does; -1 otherwise.
int32_t soleReader(Readers const& readers, int32_t tensor);

//! Whether two tensors have the same type, scale, format and shape expressions.
bool sameTensorShape(TensorRecord const& a, TensorRecord const& b);

//! Whether a type's values are stored quantized (an epilogue would skip the intermediate quantization).
bool scaled(DataType type);

//! Whether a type's values are one of the float types a fused point-wise program computes.
bool pointwiseType(DataType type);

//! Keeps the layers of sequence, in that order (old indices); every other layer is removed. The tensors that only
//! removed layers made are left unmade (producer -1); the assertions of a removed layer l move to movedTo[l] (an old
//! index, or -1 for none).
void keepLayers(EngineModel& model, std::vector<int32_t> const& sequence, std::vector<int32_t> const& movedTo);

//! Per layer, 1 when a rewrite must leave it where and as it is: inside a loop or a conditional branch, or holding an
//! assertion (unless assertionsMove: a fusion whose absorbed layers' assertions move to the fused layer, as
//! applyKernelFusions moves them); nullopt when the model's loops are malformed (refused later, with the loop named).
std::optional<std::vector<uint8_t>> fixedLayers(EngineModel const& model, bool assertionsMove = false);

//! The layer that makes tensor, or -1 (a network input, or a tensor left unmade).
int32_t producerOf(EngineModel const& model, int32_t tensor);

//! Whether two extents are the same: one expression, or two constants of one value.
bool sameExtent(EngineModel const& model, uint32_t a, uint32_t b);

//! The value of a constant extent; nullopt for one known only at run time.
std::optional<int64_t> constantExtent(EngineModel const& model, uint32_t expr);

TensorRecord const& tensorAt(EngineModel const& model, int32_t tensor);

LayerRecord const& layerAt(EngineModel const& model, int32_t layer);

//! A pattern's fusion into a fused kernel (FusedKernel): the layers it absorbs (their assertions move to the fused
//! one), where it runs (an old layer index: every input exists by then) and what it becomes.
struct KernelFusion
{
    int32_t layer{-1};    //!< The layer that holds the fused kernel.
    int32_t position{-1}; //!< The old index it takes in the order.
    std::vector<int32_t> absorbed;
    std::vector<int32_t> inputs;
    int32_t output{kNoTensor};
    FusedKernel kernel;
};

//! Applies fusions (disjoint sets of layers) to model; returns the layers removed.
int32_t applyKernelFusions(EngineModel& model, std::vector<KernelFusion> const& fusions);

//! Whether a layer computes only what its kind says: no fusion of any sort yet.
bool plainLayer(LayerRecord const& layer);

//! The element-wise operation of a plain element-wise layer; nullopt for any other layer.
std::optional<nvinfer1::ElementWiseOperation> elementWiseOp(LayerRecord const& layer);

//! The value of a tensor made by a constant layer of one float element; nullopt for any other tensor, and for
//! refittable values that a refit may change (plan/refit.h: folding them is allowed only under kREFIT_IDENTICAL).
std::optional<float> scalarConstant(EngineModel const& model, int32_t tensor);

} // namespace kiln
