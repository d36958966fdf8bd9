// SPDX-License-Identifier: Apache-2.0
// The rules of BatchedNMS_TRT and BatchedNMSDynamic_TRT, shared by the host implementation (batched_nms.cpp) and the
// CUDA kernels (batched_nms.cu). For each image independently:
// 1. Per class c other than backgroundLabelId: the boxes n whose score is > scoreThreshold (strictly, as TensorRT's
//    sortScoresPerClass compares), ordered by score descending then n ascending; the first min(topK, N) take part.
// 2. Per class, greedy selection in that order: a box is kept unless a kept box of its class has IoU > iouThreshold
//    (strictly) with it. IoU as TensorRT's allClassNMS computes it (batchedNmsIou below).
// 3. The kept boxes of all classes, ordered by score descending, then class ascending, then their rank in their class
//    (TensorRT's stable sort over [class, rank] positions); the first keepTopK are the detections.
// 4. Outputs: num_detections [B, 1]; per detection its box as given ([x1, y1, x2, y2], clipped to [0, 1] with
//    clipBoxes, whether or not isNormalized), its score and its class (as a float); the rest of the rows have box 0,
//    score 0 and class -1.
// Boxes are [B, N, 1, 4] (shareLocation: one box for every class) or [B, N, numClasses, 4]; scores [B, N, numClasses]
// (or [..., 1]). Everything is computed in float, also for kHALF tensors (TensorRT's scoreBits, an FP16 sorting
// shortcut, changes nothing here).
#pragma once

#include "nms_math.h"

#include <stdint.h>

namespace kiln::plugins
{

//! The largest topK (TensorRT's limit: 8 blocks of 512 threads).
inline constexpr int32_t kBatchedNmsMaxTopK = 4096;

//! The attributes of one BatchedNMS plugin and the extents of one run.
struct BatchedNmsParams
{
    bool shareLocation{true};
    int32_t backgroundLabelId{-1};
    int32_t numClasses{1};
    int32_t topK{1};
    int32_t keepTopK{1};
    float scoreThreshold{0.0F};
    float iouThreshold{0.5F};
    bool isNormalized{true};
    bool clipBoxes{true};
    int32_t scoreBits{16};
    bool caffeSemantics{true};

    int64_t batch{}; //!< B
    int64_t boxes{}; //!< N

    //! The candidates per class that take part: min(topK, N).
    KILN_HOST_DEVICE int64_t perClass() const noexcept { return boxes < topK ? boxes : topK; }
};

//! Whether the score of (box, class) is a candidate (rule 1).
KILN_HOST_DEVICE inline bool batchedNmsCandidate(BatchedNmsParams const& p, float score, int64_t cls) noexcept
{
    return cls != p.backgroundLabelId && score > p.scoreThreshold;
}

//! The box of (image, box n, class c), read through load.
template <typename T, typename Load>
KILN_HOST_DEVICE NmsBox batchedNmsBox(
    BatchedNmsParams const& p, T const* boxes, int64_t image, int64_t n, int64_t c, Load load) noexcept
{
    int64_t const row = p.shareLocation ? image * p.boxes + n : (image * p.boxes + n) * p.numClasses + c;
    T const* b = boxes + row * 4;
    return NmsBox{load(b[0]), load(b[1]), load(b[2]), load(b[3])};
}

//! IoU as TensorRT's BatchedNMS computes it: corners ordered; no overlap (strictly apart) is 0; with unnormalized
//! boxes each box's area adds 1 to both extents, and with caffeSemantics so does the intersection's.
KILN_HOST_DEVICE inline float batchedNmsIou(BatchedNmsParams const& p, NmsBox a, NmsBox b) noexcept
{
    a = ordered(a);
    b = ordered(b);
    if (b.c0 > a.c2 || b.c2 < a.c0 || b.c1 > a.c3 || b.c3 < a.c1)
    {
        return 0.0F;
    }
    float const pad = !p.isNormalized && p.caffeSemantics ? 1.0F : 0.0F;
    float const iw = addRn(subRn(a.c2 < b.c2 ? a.c2 : b.c2, a.c0 > b.c0 ? a.c0 : b.c0), pad);
    float const ih = addRn(subRn(a.c3 < b.c3 ? a.c3 : b.c3, a.c1 > b.c1 ? a.c1 : b.c1), pad);
    if (!(iw > 0.0F && ih > 0.0F))
    {
        return 0.0F;
    }
    float const one = p.isNormalized ? 0.0F : 1.0F;
    float const inter = mulRn(iw, ih);
    float const areaA = mulRn(addRn(subRn(a.c2, a.c0), one), addRn(subRn(a.c3, a.c1), one));
    float const areaB = mulRn(addRn(subRn(b.c2, b.c0), one), addRn(subRn(b.c3, b.c1), one));
    return divRn(inter, subRn(addRn(areaA, areaB), inter));
}

//! A coordinate as written out: clipped to [0, 1] with clipBoxes.
KILN_HOST_DEVICE inline float batchedNmsOutputCoordinate(BatchedNmsParams const& p, float v) noexcept
{
    if (!p.clipBoxes)
    {
        return v;
    }
    return v > 1.0F ? 1.0F : (v < 0.0F ? 0.0F : v);
}

} // namespace kiln::plugins
