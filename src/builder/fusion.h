// SPDX-License-Identifier: Apache-2.0
// The fusions a CUDA build makes before choosing kernels (builder/build.cpp calls them in this order once every layer
// is recorded):
//
// - foldConstantReshapes (fold_constants.cpp): a shuffle that only reshapes a constant (the broadcast of an ONNX
//   initializer: a product's weights [K, N] to [1, K, N], a bias [N] to [1, 1, N]) becomes a constant of the new shape
//   over the same weights, so runs copy nothing and the fusions below see a constant (GELU's scalars among them).
// - foldStaticValues (fold_values.cpp): values that depend on no input (index arithmetic, ranges and comparisons over
//   fixed extents: a sequence length of 128 behind a dynamic batch) computed by the host backend and kept as
//   constants, so that the fusions below see them (narrowAttentionMasks: an all-true part of a mask).
// - fuseGelu (fusion_gelu.cpp; a host build runs it too, then removeUnreadLayers): GELU written with primitive
//   layers, the exporters' erf form x * (1 + erf(x / sqrt(2))) * 0.5 and tanh form
//   0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))), becomes one activation layer of kGELU_ERF or
//   kGELU_TANH, which fuseEpilogues then gives the product before it as its epilogue.
// - fuseEpilogues:
//   - convolution + activation: the activation becomes the convolution's epilogue (LayerRecord::epilogue);
//   - matrix multiply x scalar + bias + residual + activation: an element-wise kPROD by a one-element constant
//     (or a kDIV of the product by one) becomes the product's scale (cuBLASLt's alpha); element-wise kSUMs that add a
//     tensor to the product without changing its shape become its third input (a broadcast bias) and fourth input (a
//     residual of the product's shape, cuBLASLt's C), in either order; an activation after them its epilogue.
//   A layer is absorbed only when the tensor between it and the layer before has no other reader: no other layer, no
//   network output, no shape symbol.
// - fuseConvolutionResiduals (fusion_residual.cpp): a convolution whose result only an element-wise kSUM reads, adding
//   a tensor of exactly the result's type, format and shape that exists before the convolution runs (a ResNet
//   block's shortcut), then optionally an activation that only reads the sum, becomes one convolution: the addend its
//   input kConvolutionResidualInput (3), the activation its epilogue, out = act(conv(x) + bias + residual). Of two
//   convolutions added together, the later one absorbs the sum.
// - fuseAttention (fusion_attention.cpp): head splits (reshape [B, S, H * D] to [B, S, H, D], transpose to
//   [B, H, S, D]; k's may be transposed to [B, H, D, S]) of q, k and v, the scores q k^T (with the scale fuseEpilogues
//   folded and scalar factors on q and k), an optional additive mask, a softmax over the last axis, an optional NaN
//   guard select(isnan(p), 0, p), the context (probabilities times v) and the head merge become one fused attention
//   that reads q, k, v (and the mask) with their heads interleaved and writes the heads merged
//   (FusedKernel::kATTENTION): the transformers export's eleven layers and four transposes' memory traffic become one
//   kernel.
// - narrowAttentionMasks (fusion_mask.cpp): a fused attention's mask that a select makes from a widened condition (an
//   ONNX Expand, an And with a constant true everywhere) is made from the narrower one: BERT's [B, 1, S, S] mask of
//   identical rows becomes [B, 1, 1, S], and the attention broadcasts it.
// - fuseLayerNorms: mean, centering, variance, + epsilon, sqrt and division (then * gamma and + beta when they follow)
//   over the last axis become one fused layer norm (FusedKernel::kLAYER_NORM).
// - fuseEmbeddings (fusion_embedding.cpp): table lookups (gathers of constant tables along axis 0, the ONNX parser's
//   wrap of negative indices included) summed with other rows, and the fused layer norm after them, become one fused
//   embedding (FusedKernel::kEMBEDDING): BERT's eleven embedding kernels become one.
// - fusePointwise: chains of element-wise (arithmetic), unary (float) and activation layers on float tensors become
//   one layer with a point-wise program (LayerRecord::pointwise), computed element by element in one kernel. A
//   point-wise layer whose result only point-wise layers read is inlined into each of them (computed again by each,
//   never stored); the others keep their layer and compute the program of everything inlined into them. A program
//   takes at most kMaxPointwiseSteps steps and kMaxPointwiseInputs inputs.
// - mergeDuplicateLayers (fusion_cse.cpp): a layer that computes what an earlier layer computes (same kind, parameters,
//   inputs and output shapes) has its readers read the earlier one's outputs (BERT's per-layer mask select).
// - removeUnreadLayers: layers whose results nothing reads any more (a scale folded into a product, the shape
//   arithmetic of a reshape that a fusion absorbed).
//
// The absorbed layers are removed and the tensors between are left unmade (their producer -1); assertions of an
// absorbed layer move to the layer that absorbed it.
//
//     foldConstantReshapes(model);   // model.backend == PlanBackend::kCUDA (first: GELU's scalars are broadcast)
//     foldStaticValues(model);
//     fuseGelu(model);               // both backends
//     fuseEpilogues(model);
//     fuseConvolutionResiduals(model);
//     fuseAttention(model);
//     narrowAttentionMasks(model);
//     fuseQkvProducts(model, widened);
//     fuseLayerNorms(model);
//     fuseEmbeddings(model);
//     fusePointwise(model);
//     mergeDuplicateLayers(model);
//     removeUnreadLayers(model);
#pragma once

#include "plan/engine_model.h"

#include <vector>

namespace kiln
{

//! Replaces each GELU written with primitive layers (erf or tanh form) with one activation layer; returns the layers
//! removed. Runs first, on either backend (the constants it leaves unread go with removeUnreadLayers).
int32_t fuseGelu(EngineModel& model);

//! Fuses what the file comment lists into model's convolutions and matrix multiplies; returns the layers removed.
int32_t fuseEpilogues(EngineModel& model);

//! Folds residual additions (and the activation after them) into the convolution before them, as the file comment
//! says; returns the layers removed. Runs after fuseEpilogues (which leaves a convolution read by a sum alone) and
//! before fusePointwise (which would take the sum and the activation).
int32_t fuseConvolutionResiduals(EngineModel& model);

//! Makes each shuffle that only reshapes a constant a constant itself; returns how many. Runs first (the constants
//! it leaves unread go with removeUnreadLayers).
int32_t foldConstantReshapes(EngineModel& model);

//! Values that do not depend on the engine's inputs (index arithmetic, ranges and comparisons over fixed extents)
//! computed at build time by the host reference backend and kept as constants (fold_values.cpp). The count of layers
//! made constants.
int32_t foldStaticValues(EngineModel& model);

//! Replaces each attention built from primitive layers (head splits, scores, mask, softmax, NaN guard, context, head
//! merge) with one fused attention (FusedKernel::kATTENTION); returns the layers removed. Runs after fuseEpilogues
//! (which folds the scores' scale, and may fold the mask as the scores' bias).
int32_t fuseAttention(EngineModel& model);

//! A fused attention's mask made by a select of a condition that was widened (an ONNX Expand, an And with a constant
//! true everywhere) is made from the narrower condition and keeps its extents (fusion_mask.cpp); run after
//! fuseAttention, before fuseQkvProducts. The count of masks narrowed.
int32_t narrowAttentionMasks(EngineModel& model);

//! A model tensor a fusion made larger than the network tensor it stands for: its extent along axis is factor times
//! the network's (the memory plan and the tactic timing scale the network's shapes by it).
struct WidenedTensor
{
    int32_t tensor{};
    int32_t axis{};
    int64_t factor{1};
};

//! Packs the q, k and v products of each fused attention into one product of three times the width (fusion_qkv.cpp
//! says which); returns the layers removed, and appends the tensors it widens to widened. Runs after fuseAttention.
int32_t fuseQkvProducts(EngineModel& model, std::vector<WidenedTensor>& widened);

//! Replaces each layer norm over the last axis built from primitive layers (reduce, element-wise and unary) with one
//! fused layer norm (FusedKernel::kLAYER_NORM); returns the layers removed. Runs before fusePointwise.
int32_t fuseLayerNorms(EngineModel& model);

//! Replaces each sum of table lookups (and other rows), with the fused layer norm that reads it, by one fused
//! embedding (FusedKernel::kEMBEDDING; fusion_embedding.cpp says which); returns the layers removed. Runs after
//! fuseLayerNorms and before fusePointwise (which would take the sums).
int32_t fuseEmbeddings(EngineModel& model);

//! Folds chains of point-wise layers into point-wise programs; returns the layers removed.
int32_t fusePointwise(EngineModel& model);

//! Points the readers of each layer that duplicates an earlier one at the earlier one's outputs (fusion_cse.cpp says
//! which layers); returns how many it redirected. The duplicates, unread, go with removeUnreadLayers.
int32_t mergeDuplicateLayers(EngineModel& model);

//! Removes the layers whose results nothing reads (no layer, no network output, no symbol), such as the shape
//! arithmetic of a reshape a fusion absorbed or a constant folded into a product; returns how many. Plugins, loops,
//! conditionals and layers with assertions stay.
int32_t removeUnreadLayers(EngineModel& model);

} // namespace kiln
