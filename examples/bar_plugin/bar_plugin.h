// SPDX-License-Identifier: Apache-2.0
// BarPlugin (the TensorRT developer guide's "Example: Adding a Custom Layer with Data-Dependent and Shape
// Input-Dependent Shapes Using C++"), version "1", namespace "example". One data input X [N, 3, H, W] (FP32 or FP16),
// one shape input S whose first value R counts repeats, and two outputs: Y [R, 3, N, K] of X's type, and K, an INT32
// size tensor. A pixel (h, w) is selected when X[n][c][h][w] summed over n and c is positive; K is the number of
// selected pixels (at most H * W), and Y[r][c][n][k] = (r + 1) * X[n][c][h_k][w_k] for the k-th selected pixel in
// row-major order.
#pragma once

#include "NvInferRuntime.h"

//! The creator of BarPlugin, to register with getPluginRegistry()->registerCreator(barPluginCreator(), "example").
nvinfer1::IPluginCreatorV3One& barPluginCreator();
