// SPDX-License-Identifier: Apache-2.0
// EfficientNMS_TRT version "1" and EfficientNMS_ONNX_TRT version "1": IPluginV2DynamicExt plugins, as TensorRT 10.16
// has them. The rules: efficient_nms_math.h.
//
// EfficientNMS_TRT. Inputs boxes [B, N, 4], [B, N, 1, 4] or [B, N, C, 4], scores [B, N, C] (or [B, N, C, 1]), and
// optionally anchors [1, N, 4] or [B, N, 4] (the fused box decoder), all kFLOAT or all kHALF. Outputs num_detections
// [B, 1] kINT32, detection_boxes [B, max_output_boxes, 4], detection_scores [B, max_output_boxes] (the inputs' type)
// and detection_classes [B, max_output_boxes] kINT32. Fields (TensorRT's names and types; the first six are
// required, as TensorRT's creator requires them): score_threshold (kFLOAT32, >= 0), iou_threshold (kFLOAT32, > 0),
// max_output_boxes (kINT32, > 0), background_class (kINT32, -1 for none), score_activation (kINT32, 0 or 1),
// box_coding (kINT32, 0 = corners, 1 = centre and size), and class_agnostic (kINT32, 0 or 1; default 0).
//
// EfficientNMS_ONNX_TRT (ONNX NonMaxSuppression's semantics on TensorRT's boxes [B, N, 4] and scores [B, N, C]
// layout). Fields (all optional): score_threshold (kFLOAT32, default 0.5), iou_threshold (kFLOAT32, default 0.5),
// max_output_boxes_per_class (kINT32, must be given a positive value: TensorRT's default of -1 has no output shape),
// center_point_box (kINT32, 0 or 1; default 0). One output, selected_indices [B * max_output_boxes_per_class, 3]
// kINT32. kiln reports this plugin as EfficientNMS_ONNX_TRT (TensorRT's reports EfficientNMS_TRT and marks the mode
// in its serialized bytes), so its plans are restored by this creator.
#pragma once

#include "NvInferRuntime.h"
#include "efficient_nms_math.h"

#include <memory>

namespace kiln::plugins
{

class StandardCreatorV2;

inline constexpr char const* kEfficientNmsName = "EfficientNMS_TRT";
inline constexpr char const* kEfficientNmsOnnxName = "EfficientNMS_ONNX_TRT";
inline constexpr char const* kEfficientNmsVersion = "1";

//! Computes the outputs on host memory: num_detections, detection_boxes, detection_scores, detection_classes; or
//! selected_indices for the ONNX variant. type is the boxes' and scores' (kFLOAT, or kHALF as IEEE bit patterns);
//! anchors is nullptr without the box decoder.
void runEfficientNmsHost(EfficientNmsParams const& params, nvinfer1::DataType type, void const* boxes,
    void const* scores, void const* anchors, void* const* outputs);

#ifdef KILN_PLUGINS_CUDA
//! The device workspace launchEfficientNms() needs for these extents.
size_t efficientNmsWorkspaceSize(EfficientNmsParams const& params, nvinfer1::DataType type);

//! Queues the same computation on stream (device memory); workspace has efficientNmsWorkspaceSize() bytes. Returns
//! the first failing status of the launches.
cudaError_t launchEfficientNms(EfficientNmsParams const& params, nvinfer1::DataType type, void const* boxes,
    void const* scores, void const* anchors, void* const* outputs, void* workspace, cudaStream_t stream);
#endif

//! The creator of EfficientNMS_TRT version "1".
std::unique_ptr<StandardCreatorV2> makeEfficientNmsCreator();

//! The creator of EfficientNMS_ONNX_TRT version "1".
std::unique_ptr<StandardCreatorV2> makeEfficientNmsOnnxCreator();

} // namespace kiln::plugins
