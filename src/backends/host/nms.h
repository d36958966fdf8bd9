// SPDX-License-Identifier: Apache-2.0
// Host reference of INMSLayer: non-maximum suppression per batch item and class.
//
//     NMSParams params;   // network/params.h: kCORNER_PAIRS, TopK box limit 5000, kINT32 indices
//     // boxes kFLOAT [1, 6, 4], scores kFLOAT [1, 6, 1], maxPerClass kINT32 [] = 3, iou kFLOAT [] = 0.5
//     NMSScalars const scalars = nmsScalars(maxPerClass.tensor(), &iou.tensor(), nullptr).value();
//     Status const done = runNMS(params, boxes.tensor(), scores.tensor(), scalars, selected.tensor(), count.tensor());
//
// The rules (network/layers/nms.cpp gives the layer's; ONNX NonMaxSuppression's reference and ONNX Runtime where
// TensorRT says less):
// - boxes [B, N, 4] (one box for every class) or [B, N, C, 4], kFLOAT or kHALF; scores [B, N, C] of the boxes' type.
//   A kCORNER_PAIRS box is any two diagonal corners (each axis' coordinates are put in order); a kCENTER_SIZES box is
//   (x, y, width, height) around its centre. Everything is computed in float, as nmsBox and nmsIoU say.
// - Per batch item, the candidates are the (box, class) pairs whose score is above the score threshold (strictly; NaN
//   never is), ordered by decreasing score, equal scores by increasing class, then box; only the first
//   params.topKBoxLimit are considered. Going down that order, a candidate is selected when its class has fewer
//   than MaxOutputBoxesPerClass selected boxes and its IoU with each of them is at most the IoU threshold.
// - Output 0 gets one row (batch, class, box) per selection, by increasing batch, then in selection order (decreasing
//   score). It has room for every row the layer can make ([R, 3], R at least B * C * min(N, MaxOutputBoxesPerClass));
//   the rows are written compactly from its start. Output 1 (0-D kINT32 or kINT64) gets the number of rows.
// - MaxOutputBoxesPerClass below 0 counts as 0; the IoU threshold must lie in [0, 1].
#pragma once

#include "backends/host/tensor_view.h"
#include "network/params.h"

#include <optional>
#include <string>

#if defined(__CUDACC__)
#define KILN_NMS_HOST_DEVICE __host__ __device__
#else
#define KILN_NMS_HOST_DEVICE
#endif

namespace kiln::host
{

//! The values the layer reads from its inputs 2 to 4.
struct NMSScalars
{
    int64_t maxPerClass{0};    //!< Input 2, at least 0.
    float iouThreshold{0.F};   //!< Input 3, or 0 when absent.
    float scoreThreshold{0.F}; //!< Input 4, or 0 when absent.
};

//! Reads inputs 2 to 4 (views of host memory; iou and score may be null): the error refuses a MaxOutputBoxesPerClass
//! that is not a 0-D kINT32 or kINT64 tensor, a threshold that is not a 0-D kFLOAT one, or an IoU threshold outside
//! [0, 1].
Expected<NMSScalars> nmsScalars(HostTensor const& maxPerClass, HostTensor const* iou, HostTensor const* score);

//! The selected indices' type and their shape at the most rows the layer can make, [B * C * N, 3]; the error refuses
//! types or shapes that do not fit, an invalid format or TopK box limit, or an indices type other than kINT32 and
//! kINT64.
Expected<TensorDesc> inferNMS(NMSParams const& params, TensorDesc const& boxes, TensorDesc const& scores);

//! Why selected and count cannot take rows rows (params' type, [at least rows, 3]; a 0-D kINT32 or kINT64 count), or
//! nullopt.
std::optional<std::string> nmsOutputProblem(
    NMSParams const& params, int64_t rows, HostTensor const& selected, HostTensor const& count);

//! A box as the suppression sees it: its extent along each axis.
struct NMSBox
{
    float xMin, yMin, xMax, yMax;
};

//! The box of four coordinates c in format.
KILN_NMS_HOST_DEVICE inline NMSBox nmsBox(float const c[4], bool centerSizes)
{
    if (centerSizes)
    {
        float const halfWidth = c[2] * 0.5F;
        float const halfHeight = c[3] * 0.5F;
        return NMSBox{c[0] - halfWidth, c[1] - halfHeight, c[0] + halfWidth, c[1] + halfHeight};
    }
    return NMSBox{
        c[0] < c[2] ? c[0] : c[2], c[1] < c[3] ? c[1] : c[3], c[0] < c[2] ? c[2] : c[0], c[1] < c[3] ? c[3] : c[1]};
}

//! The intersection over union of a and b, in float, one rounding per operation (no fused multiply-add, so that the
//! host and the GPU agree bit for bit); 0 when they do not overlap or one has no area.
KILN_NMS_HOST_DEVICE inline float nmsIoU(NMSBox const& a, NMSBox const& b)
{
    float const left = a.xMin > b.xMin ? a.xMin : b.xMin;
    float const right = a.xMax < b.xMax ? a.xMax : b.xMax;
    float const top = a.yMin > b.yMin ? a.yMin : b.yMin;
    float const bottom = a.yMax < b.yMax ? a.yMax : b.yMax;
#if defined(__CUDA_ARCH__)
    float const width = __fsub_rn(right, left);
    float const height = __fsub_rn(bottom, top);
    float const areaA = __fmul_rn(__fsub_rn(a.xMax, a.xMin), __fsub_rn(a.yMax, a.yMin));
    float const areaB = __fmul_rn(__fsub_rn(b.xMax, b.xMin), __fsub_rn(b.yMax, b.yMin));
    float const overlap = width > 0.F && height > 0.F ? __fmul_rn(width, height) : 0.F;
    float const both = __fsub_rn(__fadd_rn(areaA, areaB), overlap);
    return overlap > 0.F && areaA > 0.F && areaB > 0.F && both > 0.F ? __fdiv_rn(overlap, both) : 0.F;
#else
    float const width = right - left;
    float const height = bottom - top;
    float const areaA = (a.xMax - a.xMin) * (a.yMax - a.yMin);
    float const areaB = (b.xMax - b.xMin) * (b.yMax - b.yMin);
    float const overlap = width > 0.F && height > 0.F ? width * height : 0.F;
    float const both = (areaA + areaB) - overlap;
    return overlap > 0.F && areaA > 0.F && areaB > 0.F && both > 0.F ? overlap / both : 0.F;
#endif
}

//! Runs the suppression after checking what inferNMS and nmsOutputProblem check and each tensor's data.
Status runNMS(NMSParams const& params, HostTensor const& boxes, HostTensor const& scores, NMSScalars const& scalars,
    HostTensor const& selected, HostTensor const& count);

} // namespace kiln::host
