// SPDX-License-Identifier: Apache-2.0
// FooPlugin (the TensorRT developer guide's "Enabling Timing Caching and Using Custom Tactics"), version "1",
// namespace "example": y = scale * x + W
// along the last axis of a [N, 64] FP32 input, where W are weights shared by every instance (shared_weights.h).
// It offers two custom tactics, 1 and 2 (getNbTactics / getValidTactics), and a timing-cache ID made of its
// attribute, so that identically configured instances are timed once. Build and serialized field: "scale"
// (kFLOAT32, 1 value).
#pragma once

#include "NvInferRuntime.h"

#include <cstdint>
#include <map>
#include <string>

//! The creator of FooPlugin, to register with getPluginRegistry()->registerCreator(fooPluginCreator(), "example").
nvinfer1::IPluginCreatorV3One& fooPluginCreator();

//! What the FooPlugin objects created under one name (createPlugin()'s name: the layer's) have done.
struct FooActivity
{
    int32_t timedRuns{};       //!< enqueue calls of build-phase objects: the builder timing a tactic.
    int32_t runtimeTactic{-1}; //!< The tactic the last run-time enqueue used.
};

//! What every FooPlugin layer of this process has done so far, by layer name.
std::map<std::string, FooActivity> fooActivity();
