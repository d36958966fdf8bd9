// SPDX-License-Identifier: Apache-2.0
// BatchedNMSDynamic_TRT version "1", an IPluginV2DynamicExt plugin, and BatchedNMS_TRT version "1", its IPluginV2Ext
// form (shapes without the batch axis: boxes [N, 1 or numClasses, 4], scores [N, numClasses]; outputs num_detections
// [] and the rest as below without B; FP32 only, as TensorRT's), as TensorRT 10.16 has them (TensorRT deprecates both
// in favour of INMSLayer and EfficientNMS_TRT). The rules: batched_nms_math.h.
//
// Inputs boxes [B, N, 1, 4] (shareLocation 1) or [B, N, numClasses, 4] (shareLocation 0) and scores [B, N, numClasses]
// or [B, N, numClasses, 1], both kFLOAT or both kHALF. Outputs num_detections [B, 1] kINT32, nmsed_boxes
// [B, keepTopK, 4], nmsed_scores [B, keepTopK] and nmsed_classes [B, keepTopK], the last three of the inputs' type.
// Fields (TensorRT's names and types; the first seven are required, as TensorRT's creator requires them):
// shareLocation (kINT32, 0 or 1), backgroundLabelId (kINT32, -1 for none), numClasses (kINT32, > 0), topK (kINT32, 1 to
// 4096), keepTopK (kINT32, 1 to topK: kiln refuses more, where TensorRT's kernel writes nothing), scoreThreshold and
// iouThreshold (kFLOAT32), isNormalized (kINT32, 0 or 1; default 1), clipBoxes (kINT32, 0 or 1; default 1), scoreBits
// (kINT32; default 16; kept and serialized, and changes nothing) and caffeSemantics (kINT32, 0 or 1; default 1).
#pragma once

#include "NvInferRuntime.h"
#include "batched_nms_math.h"

#include <memory>

namespace kiln::plugins
{

class StandardCreatorV2;

inline constexpr char const* kBatchedNmsName = "BatchedNMS_TRT";
inline constexpr char const* kBatchedNmsDynamicName = "BatchedNMSDynamic_TRT";
inline constexpr char const* kBatchedNmsVersion = "1";

//! Computes num_detections, nmsed_boxes, nmsed_scores and nmsed_classes on host memory; type is the inputs' (kFLOAT,
//! or kHALF as IEEE bit patterns).
void runBatchedNmsHost(BatchedNmsParams const& params, nvinfer1::DataType type, void const* boxes, void const* scores,
    void* const* outputs);

#ifdef KILN_PLUGINS_CUDA
//! The device workspace launchBatchedNms() needs for these extents.
size_t batchedNmsWorkspaceSize(BatchedNmsParams const& params);

//! Queues the same computation on stream (device memory); workspace has batchedNmsWorkspaceSize() bytes.
cudaError_t launchBatchedNms(BatchedNmsParams const& params, nvinfer1::DataType type, void const* boxes,
    void const* scores, void* const* outputs, void* workspace, cudaStream_t stream);
#endif

//! The creator of BatchedNMSDynamic_TRT version "1".
std::unique_ptr<StandardCreatorV2> makeBatchedNmsDynamicCreator();

//! The creator of BatchedNMS_TRT version "1" (the IPluginV2Ext form, FP32, with its own host runner).
std::unique_ptr<StandardCreatorV2> makeBatchedNmsCreator();

} // namespace kiln::plugins
