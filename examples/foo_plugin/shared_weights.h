// SPDX-License-Identifier: Apache-2.0
// SharedWeights (the TensorRT developer guide's "Sharing Custom Resources Among Plugins"): the weights W that every
// FooPlugin needs, obtained once and shared through the plugin registry's key-value store:
//
//     SharedWeights blank;   // not initialised: the registry stores a clone, never this object
//     auto* w = static_cast<SharedWeights*>(getPluginRegistry()->acquirePluginResource("W", &blank));
//     ... use w->mHostWeights (host backend) or w->mWeights (device copy) ...
//     getPluginRegistry()->releasePluginResource("W");   // the last release calls w->release() and deletes it
//
// Only clones are initialised: clone() "downloads" W (here: computes fixed values) and, when there is a GPU, copies
// it to device memory. release() frees both and leaves the object cloneable.
#pragma once

#include "NvInferRuntime.h"

#include <cstdint>
#include <vector>

//! The length of W, and the last extent of FooPlugin's input.
constexpr int64_t kFooWidth = 64;

class SharedWeights final : public nvinfer1::IPluginResource
{
public:
    //! init: download W now (clones only).
    explicit SharedWeights(bool init = false);
    SharedWeights(SharedWeights const&) = delete;
    SharedWeights& operator=(SharedWeights const&) = delete;
    ~SharedWeights() override;

    int32_t release() noexcept override;
    nvinfer1::IPluginResource* clone() noexcept override;

    //! What the weights server sends: kFooWidth values.
    static std::vector<float> download();
    //! How many times W has been downloaded in this process.
    static int32_t downloadCount() noexcept;
    //! How many downloaded copies have been released.
    static int32_t releaseCount() noexcept;

    std::vector<float> mHostWeights; //!< W in host memory: what enqueueHost() reads.
    float* mWeights{nullptr};        //!< W in device memory: what enqueue() reads; null without a GPU.
};
