// SPDX-License-Identifier: Apache-2.0
// The check the IdentityConv examples share (identity_conv, identity_conv_v2, onnx_identity_conv): run the engine on
// random X in [-1, 1] of shape [batch, channels, side, side] and require Y = X.
//
//     ok = example::checkIdentityEngine(kExample, *engine, Dims4{3, 3, 8, 8}, random, ": conv1 -> IdentityConv ->
//     conv2, Y = X");
#pragma once

#include "example_common.h"
#include "io_buffers.h"

#include "NvInferRuntime.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace example
{

//! Runs engine ("X" -> "Y") once at shape; true when Y equals X. Prints one line (what follows the shape).
inline bool checkIdentityEngine(char const* name, nvinfer1::ICudaEngine& engine, nvinfer1::Dims const& shape,
    std::mt19937& random, std::string const& what)
{
    std::vector<float> x(static_cast<std::size_t>(volume(shape)));
    std::uniform_real_distribution<float> uniform(-1.0F, 1.0F);
    for (float& value : x)
    {
        value = uniform(random);
    }
    std::vector<float> y(x.size(), NAN);
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine.createExecutionContext()};
    if (context == nullptr)
    {
        return report(name, "creating an execution context", false);
    }
    IoBuffers io(name, engine, *context);
    if (!context->setInputShape("X", shape) || !io.input("X", x) || !io.output("Y", y) || !io.enqueue())
    {
        return report(name, "running the engine", false);
    }
    double maxDiff = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        maxDiff = std::max(maxDiff, difference(y[i], x[i]));
    }
    // The host backend's identity convolutions are exact; on the GPU the builder may pick a cuDNN algorithm
    // (Winograd, FFT) that rounds even an identity kernel, by a few float ulps of |X| <= 1.
    return report(name, toString(shape) + what, maxDiff, 1e-6);
}

} // namespace example
