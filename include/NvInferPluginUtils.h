/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * NvInferPluginUtils.h -- parameter structures of the classic standard plugins (prior boxes, region proposals,
 * grid anchors, detection output, region, NMS). They are plain data, filled by the application:
 *
 *     nvinfer1::plugin::NMSParameters nms{};
 *     nms.numClasses = 91;
 *     nms.iouThreshold = 0.5F;
 */

#ifndef NV_INFER_PLUGIN_UTILS_H
#define NV_INFER_PLUGIN_UTILS_H

#include "NvInferRuntimeCommon.h"

namespace nvinfer1
{
//! Parameters of the standard plugins.
namespace plugin
{

//! Parameters of the PriorBox plugin.
struct PriorBoxParameters
{
    float *minSize, *maxSize, *aspectRatios;         //!< Box sizes and aspect ratios.
    int32_t numMinSize, numMaxSize, numAspectRatios; //!< Their counts.
    bool flip;                                       //!< Also add the inverse aspect ratios.
    bool clip;                                       //!< Clip boxes to [0, 1].
    float variance[4];                               //!< Variances of the box coordinates.
    int32_t imgH, imgW;                              //!< Image size.
    float stepH, stepW;                              //!< Step between cells.
    float offset;                                    //!< Offset of box centres within a cell.
};

//! Parameters of the RPROI plugin.
struct RPROIParams
{
    int32_t poolingH;          //!< Height of the pooled output.
    int32_t poolingW;          //!< Width of the pooled output.
    int32_t featureStride;     //!< Stride of the feature map.
    int32_t preNmsTop;         //!< Proposals kept before NMS.
    int32_t nmsMaxOut;         //!< Proposals kept after NMS.
    int32_t anchorsRatioCount; //!< Number of anchor ratios.
    int32_t anchorsScaleCount; //!< Number of anchor scales.
    float iouThreshold;        //!< NMS overlap threshold.
    float minBoxSize;          //!< Smallest proposal size.
    float spatialScale;        //!< Scale from image to feature-map coordinates.
};

//! Parameters of the GridAnchor plugin.
struct GridAnchorParameters
{
    float minSize;           //!< Smallest box scale.
    float maxSize;           //!< Largest box scale.
    float* aspectRatios;     //!< Aspect ratios.
    int32_t numAspectRatios; //!< Their count.
    int32_t H;               //!< Feature-map height.
    int32_t W;               //!< Feature-map width.
    float variance[4];       //!< Variances of the box coordinates.
};

//! How detection boxes are encoded.
enum class CodeTypeSSD : int32_t
{
    CORNER = 0,      //!< x1, y1, x2, y2.
    CENTER_SIZE = 1, //!< Centre and size.
    CORNER_SIZE = 2, //!< Corner and size.
    TF_CENTER = 3,   //!< TensorFlow's centre encoding.
};

//! Parameters of the DetectionOutput plugin.
struct DetectionOutputParameters
{
    bool shareLocation, varianceEncodedInTarget;           //!< Box-sharing and variance options.
    int32_t backgroundLabelId, numClasses, topK, keepTopK; //!< Class and selection counts.
    float confidenceThreshold, nmsThreshold;               //!< Thresholds.
    CodeTypeSSD codeType;                                  //!< Box encoding.
    int32_t inputOrder[3];                                 //!< Order of the loc, conf and prior inputs.
    bool confSigmoid;                                      //!< Apply a sigmoid to confidences.
    bool isNormalized;                                     //!< Boxes are normalized.
    bool isBatchAgnostic{true};                            //!< Priors are shared across the batch.
};

//! A softmax tree for the Region plugin.
struct softmaxTree
{
    int32_t* leaf{nullptr};        //!< Leaf flags.
    int32_t n;                     //!< Number of nodes.
    int32_t* parent{nullptr};      //!< Parent of each node.
    int32_t* child{nullptr};       //!< First child of each node.
    int32_t* group{nullptr};       //!< Group of each node.
    char** name{nullptr};          //!< Node names.
    int32_t groups;                //!< Number of groups.
    int32_t* groupSize{nullptr};   //!< Size of each group.
    int32_t* groupOffset{nullptr}; //!< Offset of each group.
};

//! Parameters of the Region plugin.
struct RegionParameters
{
    int32_t num;         //!< Boxes per cell.
    int32_t coords;      //!< Coordinates per box.
    int32_t classes;     //!< Number of classes.
    softmaxTree* smTree; //!< Optional softmax tree.
};

//! Parameters of the BatchedNMS plugin.
struct NMSParameters
{
    bool shareLocation;                                    //!< Boxes are shared among classes.
    int32_t backgroundLabelId, numClasses, topK, keepTopK; //!< Class and selection counts.
    float scoreThreshold, iouThreshold;                    //!< Thresholds.
    bool isNormalized;                                     //!< Boxes are normalized.
};

} // namespace plugin
} // namespace nvinfer1

#endif // NV_INFER_PLUGIN_UTILS_H
