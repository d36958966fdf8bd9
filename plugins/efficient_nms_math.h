// SPDX-License-Identifier: Apache-2.0
// The rules of EfficientNMS_TRT and EfficientNMS_ONNX_TRT, shared by the host implementation (efficient_nms.cpp) and
// the CUDA kernels (efficient_nms.cu). For each image independently:
// 1. Candidates: the elements (box n, class c) of scores [B, N, C] whose score is >= score_threshold and whose class
//    is not background_class. With score_activation the raw score is compared with logit(score_threshold) (no
//    candidate is lost to the sigmoid; a threshold <= 0 keeps every score above -32768), as TensorRT does.
// 2. Order: score descending, then element index n * C + c ascending (TensorRT's sort leaves ties unspecified; kiln
//    fixes this rule on both backends). Only the first kEfficientNmsMaxCandidates take part (TensorRT's value on GPUs
//    with 64K registers per block).
// 3. Greedy selection in that order: a candidate is kept unless a kept candidate of the same class (of any class with
//    class_agnostic) overlaps it with IoU >= iou_threshold (>=, as TensorRT's kernel compares). Selection stops when
//    max_output_boxes candidates have been written.
// 4. Outputs: num_detections [B, 1], then per kept candidate its box (always as corners; decoded first: box_coding 1
//    reads [centre, size]; with anchors, corners add the ordered anchor to the ordered box and centre-size applies
//    centre + delta * anchor size and anchor size * e^delta), its score (sigmoid of it with score_activation) and its
//    class. The rest of each output is 0.
// The ONNX variant (EfficientNMS_ONNX_TRT): boxes [B, N, 4], scores [B, N, C], no background class, no activation; at
// most max_output_boxes_per_class kept candidates are written per class and per image, and (as TensorRT's plugin) at
// most that many per image in all; a kept candidate that is not written still suppresses. selected_indices
// [B * max_output_boxes_per_class, 3] rows (image, class, box): image 0's in selection order, then image 1's, ...;
// the rows after them repeat the last one, and all are -1 when nothing is selected (TensorRT's padding).
// IoU and decoding are nms_math.h's; everything is computed in float, also for kHALF tensors.
#pragma once

#include "nms_math.h"

#include <stdint.h>

namespace kiln::plugins
{

//! The most candidates per image that take part in the greedy selection.
inline constexpr int32_t kEfficientNmsMaxCandidates = 5000;

//! The attributes of one EfficientNMS plugin and the extents of one run.
struct EfficientNmsParams
{
    float scoreThreshold{0.5F};
    float iouThreshold{0.5F};
    int32_t maxOutputBoxes{100};
    int32_t backgroundClass{-1};
    bool scoreActivation{false};
    bool classAgnostic{false};
    int32_t boxCoding{0};               //!< 0: corners; 1: centre and size.
    bool onnxIndices{false};            //!< The ONNX variant: one output, selected_indices.
    int32_t maxOutputBoxesPerClass{-1}; //!< The ONNX variant's per-class limit; -1: none.

    int64_t batch{};         //!< B
    int64_t boxes{};         //!< N
    int64_t classes{};       //!< C
    bool boxPerClass{};      //!< Boxes [B, N, C, 4] (one box per class) rather than [B, N, 4] or [B, N, 1, 4].
    bool hasAnchors{};       //!< A third input: the fused box decoder.
    bool sharedAnchors{};    //!< Anchors [1, N, 4] rather than [B, N, 4].
    float filterThreshold{}; //!< What raw scores are compared with (see rule 1).

    //! Scores per image.
    KILN_HOST_DEVICE int64_t elements() const noexcept { return boxes * classes; }
};

//! The raw-score threshold of rule 1.
inline float efficientNmsFilterThreshold(float scoreThreshold, bool scoreActivation) noexcept
{
    if (!scoreActivation)
    {
        return scoreThreshold;
    }
    return scoreThreshold <= 0.0F ? -32768.0F : logf(scoreThreshold / (1.0F - scoreThreshold));
}

//! Whether element (box n, class c) of an image with raw score is a candidate.
KILN_HOST_DEVICE inline bool efficientNmsCandidate(EfficientNmsParams const& p, float score, int64_t element) noexcept
{
    return score >= p.filterThreshold && element % p.classes != p.backgroundClass;
}

//! The decoded box (corners) of element of image, from boxes and anchors of type T read through load.
template <typename T, typename Load>
KILN_HOST_DEVICE NmsBox efficientNmsBox(
    EfficientNmsParams const& p, T const* boxes, T const* anchors, int64_t image, int64_t element, Load load) noexcept
{
    int64_t const n = element / p.classes;
    int64_t const c = element % p.classes;
    int64_t const row = p.boxPerClass ? (image * p.boxes + n) * p.classes + c : image * p.boxes + n;
    T const* b = boxes + row * 4;
    float const v0 = load(b[0]);
    float const v1 = load(b[1]);
    float const v2 = load(b[2]);
    float const v3 = load(b[3]);
    if (!p.hasAnchors)
    {
        return p.boxCoding == 0 ? NmsBox{v0, v1, v2, v3} : centreSizeToCorners(v0, v1, v2, v3);
    }
    T const* a = anchors + ((p.sharedAnchors ? 0 : image * p.boxes) + n) * 4;
    float const a0 = load(a[0]);
    float const a1 = load(a[1]);
    float const a2 = load(a[2]);
    float const a3 = load(a[3]);
    if (p.boxCoding == 0)
    {
        NmsBox const delta = ordered(NmsBox{v0, v1, v2, v3});
        NmsBox const anchor = ordered(NmsBox{a0, a1, a2, a3});
        return NmsBox{addRn(delta.c0, anchor.c0), addRn(delta.c1, anchor.c1), addRn(delta.c2, anchor.c2),
            addRn(delta.c3, anchor.c3)};
    }
    return centreSizeToCorners(
        addRn(mulRn(v0, a2), a0), addRn(mulRn(v1, a3), a1), mulRn(a2, portableExp(v2)), mulRn(a3, portableExp(v3)));
}

//! The score written for a kept candidate of raw score.
KILN_HOST_DEVICE inline float efficientNmsOutputScore(EfficientNmsParams const& p, float raw) noexcept
{
    return p.scoreActivation ? portableSigmoid(raw) : raw;
}

} // namespace kiln::plugins
