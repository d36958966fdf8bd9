// SPDX-License-Identifier: Apache-2.0
// The register function of every op family; builtinOps() calls each once.
#pragma once

#include "onnx/op_registry.h"

namespace kiln::onnx_import
{

void registerActivationOps(OpRegistry& registry);     //!< Relu, Sigmoid, Clip, ... (activation.cpp)
void registerAttentionOps(OpRegistry& registry);      //!< Attention, RotaryEmbedding (attention.cpp)
void registerCastOps(OpRegistry& registry);           //!< Cast, CastLike (cast.cpp)
void registerConcatenationOps(OpRegistry& registry);  //!< Concat, Split (concatenation.cpp)
void registerConstantOps(OpRegistry& registry);       //!< Constant, ConstantOfShape, Range, Shape, ... (constant.cpp)
void registerControlFlowOps(OpRegistry& registry);    //!< If (control_flow.cpp)
void registerConvolutionOps(OpRegistry& registry);    //!< Conv (convolution.cpp)
void registerCumulativeOps(OpRegistry& registry);     //!< CumSum (cumulative.cpp)
void registerDeconvolutionOps(OpRegistry& registry);  //!< ConvTranspose (deconvolution.cpp)
void registerDeformConvOps(OpRegistry& registry);     //!< DeformConv, a standard plugin (deform_conv.cpp)
void registerEinsumOps(OpRegistry& registry);         //!< Einsum (einsum.cpp)
void registerElementwiseOps(OpRegistry& registry);    //!< Add, Sub, Pow, Max, Equal, And, Where, ... (elementwise.cpp)
void registerGatherOps(OpRegistry& registry);         //!< Gather, GatherElements, GatherND, OneHot (gather.cpp)
void registerGridSampleOps(OpRegistry& registry);     //!< GridSample (grid_sample.cpp)
void registerIdentityOps(OpRegistry& registry);       //!< Identity, Dropout (identity.cpp)
void registerLoopOps(OpRegistry& registry);           //!< Loop, Scan (loop.cpp)
void registerMatrixMultiplyOps(OpRegistry& registry); //!< MatMul, Gemm (matrix_multiply.cpp)
void registerNmsOps(OpRegistry& registry);            //!< NonMaxSuppression (nms.cpp)
void registerNonZeroOps(OpRegistry& registry);        //!< NonZero (non_zero.cpp)
void registerNormalizationOps(
    OpRegistry& registry); //!< BatchNormalization, LayerNormalization, RMSNormalization, ... (normalization.cpp)
void registerPoolingOps(OpRegistry& registry);         //!< MaxPool, AveragePool, Global*Pool (pooling.cpp)
void registerQuantizeOps(OpRegistry& registry);        //!< QuantizeLinear, DequantizeLinear (quantize.cpp)
void registerRandomOps(OpRegistry& registry);          //!< RandomUniform, RandomNormal, *Like (random.cpp)
void registerReduceOps(OpRegistry& registry);          //!< Reduce*, ArgMax, ArgMin (reduce.cpp)
void registerReshapeOps(OpRegistry& registry);         //!< Reshape, Flatten, Squeeze, Transpose, ... (reshape.cpp)
void registerRnnOps(OpRegistry& registry);             //!< RNN, GRU, LSTM (rnn.cpp)
void registerResizeOps(OpRegistry& registry);          //!< Resize, Upsample (resize.cpp)
void registerReverseSequenceOps(OpRegistry& registry); //!< ReverseSequence (reverse_sequence.cpp)
void registerRoiAlignOps(OpRegistry& registry);        //!< RoiAlign, a standard plugin (roi_align.cpp)
void registerScatterOps(OpRegistry& registry);     //!< ScatterElements, Scatter, ScatterND, TensorScatter (scatter.cpp)
void registerSignalOps(OpRegistry& registry);      //!< STFT, Hann/Hamming/BlackmanWindow (signal.cpp)
void registerSliceOps(OpRegistry& registry);       //!< Slice, Pad, Tile, Expand (slice.cpp)
void registerSoftmaxOps(OpRegistry& registry);     //!< Softmax, LogSoftmax, Hardmax (softmax.cpp)
void registerTopKOps(OpRegistry& registry);        //!< TopK (topk.cpp)
void registerUnaryOps(OpRegistry& registry);       //!< Abs, Sqrt, Exp, Not, Sin, ... (unary.cpp)
void registerUnsupportedOps(OpRegistry& registry); //!< ONNX ops kiln knows it cannot import (unsupported.cpp)

} // namespace kiln::onnx_import
