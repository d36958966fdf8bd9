// SPDX-License-Identifier: Apache-2.0
// DummyPlugin (the TensorRT developer guide's "Plugin Serialization and Deserialization"), version "1", namespace
// "example". Its state is
// three fields of three kinds, serialized through getFieldsToSerialize() and restored by createPlugin(kRUNTIME):
//
//     "intScalar"   kINT32,   1 value            s
//     "floatVector" kFLOAT32, L values           v
//     "dummyStruct" kUNKNOWN, sizeof(DummyStruct) bytes: {a, b}, a type TensorRT knows nothing about
//
// It computes y[n][i] = b * (x[n][i] * v[i] + s) + a for x [N, L] in FP32 (L at most 64), so every field shows in the
// output. The same three fields are its build fields.
#pragma once

#include "NvInferRuntime.h"

#include <cstdint>

//! The custom type serialized as raw bytes (PluginFieldType::kUNKNOWN).
struct DummyStruct
{
    int32_t a;
    float b;
};

//! The creator of DummyPlugin, to register with getPluginRegistry()->registerCreator(dummyPluginCreator(), "example").
nvinfer1::IPluginCreatorV3One& dummyPluginCreator();

//! How many DummyPlugin objects createPlugin() has made for the run-time phase, i.e. from serialized fields.
int32_t dummyRuntimeCreations();
