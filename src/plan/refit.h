// SPDX-License-Identifier: Apache-2.0
// Refittable weights in an engine model: what the builder records (EngineModel::refit, LayerRecord::refit), what the
// plan keeps of them, and how new values are turned into what a layer stores. TensorRT names refittable weights by
// layer and role (IRefitter::setWeights) and by the name setWeightsName gave them (setNamedWeights); one entry of
// EngineModel::refit.weights is one such weights of the network, and every engine layer that holds a form of them
// points to it from the slot of the weights field (slot 0: a convolution's or deconvolution's kernel, a constant's
// weights; slot 1: the bias).
//
// A layer may store another form of the values than the network gave: the CUDA build stores a channels-last
// convolution's kernel KRSC in the convolution's type (builder/layout.h). storedWeights() replays that derivation for
// new values, so a refitted engine computes what an engine built with the new values computes. Derivations that would
// fold refittable values into other values (a scalar factor into a matrix multiply) are not made for refittable
// weights unless the build assumes identical values (BuilderFlag::kREFIT_IDENTICAL; builder/fusion.h).
//
//     for (int32_t slot : {0, 1})
//         if (layer.refit[slot] == entry) { auto bytes = storedWeights(model, layer, slot, newValues); ... }
#pragma once

#include "core/error.h"
#include "plan/engine_model.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln
{

//! The number of weights fields a layer can have (LayerRecord::refit's size).
inline constexpr int32_t kRefitSlots = 2;

//! The weights field slot of params (0: kernel or constant weights, 1: bias), or nullptr for a kind without one.
Weights const* weightsField(LayerParams const& params, int32_t slot) noexcept;

//! The role TensorRT gives the weights of slot of a layer with params; nullopt for a slot the kind does not have.
std::optional<nvinfer1::WeightsRole> weightsRoleOf(LayerParams const& params, int32_t slot) noexcept;

//! "kKERNEL", "kBIAS", ... for messages.
char const* weightsRoleName(nvinfer1::WeightsRole role) noexcept;

//! A convolution's kernel [K, C / groups, spatial...] (params gives K and the spatial extents) stored KRSC, in type
//! (kFLOAT, kHALF or kBF16; the kernel has one of them too): the layout the CUDA convolution reads with channels-last
//! tensors. storedChannels (0: C / groups) is the channel extent stored, at least C / groups: the channels a
//! channels-last input pads to (kHWC8 pads 3 channels to 8), the extra ones zero, so the stored kernel has
//! K * spatial * storedChannels elements.
std::vector<uint8_t> kernelChannelsLast(
    ConvolutionParams const& params, Weights const& kernel, DataType type, int64_t storedChannels = 0);

//! The bytes that slot of layer stores for source, new values of the entry's prototype type and count: a copy,
//! converted to the stored type where the build converted it, KRSC for a channels-last convolution's kernel (its
//! channels padded as the stored kernel's are). An error when the stored form cannot be made from source.
Expected<std::vector<uint8_t>> storedWeights(
    EngineModel const& model, LayerRecord const& layer, int32_t slot, Weights const& source);

//! Per blob of model.weights: whether refittable weights alone point into it, and at least one does (what the plan
//! leaves out under BuilderFlag::kSTRIP_PLAN).
std::vector<bool> refittableBlobs(EngineModel const& model);

//! What is wrong with model's refit records (entries, layers' refit slots, stripped blobs); nullopt when nothing.
std::optional<std::string> refitProblem(EngineModel const& model);

} // namespace kiln
