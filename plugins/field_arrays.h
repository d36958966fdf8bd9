// SPDX-License-Identifier: Apache-2.0
// Plugin fields of variable length that FieldReader (common.h) does not read: a kFLOAT32 array of any length and a
// kCHAR string. Both log a wrong field, naming the plugin, and return false.
//
//     std::vector<float> scales;
//     if (!readFloatArray(kInstanceNormName, fc, "scales", scales)) { return nullptr; }
//     std::string reduction;
//     if (!readString(kScatterElementsName, fc, "reduction", reduction)) { return nullptr; }
#pragma once

#include "NvInferRuntime.h"

#include <string>
#include <vector>

namespace kiln::plugins
{

//! Sets values to the kFLOAT32 field of that name (any length, 0 included) and returns true; true and values untouched
//! when the field is absent; false (logged) when it has another type, a negative length, or no data for its length.
bool readFloatArray(
    char const* plugin, nvinfer1::PluginFieldCollection const* fc, char const* name, std::vector<float>& values);

//! Sets value to the kCHAR field of that name and returns true: its bytes up to its length or its first NUL, whichever
//! comes first (TensorRT's parser counts the NUL in the length, Python's bindings do not); true and value untouched
//! when the field is absent; false (logged) when it has another type or no data.
bool readString(char const* plugin, nvinfer1::PluginFieldCollection const* fc, char const* name, std::string& value);

} // namespace kiln::plugins
