// SPDX-License-Identifier: Apache-2.0
// The fields both BatchedNMS forms share (batched_nms.cpp: BatchedNMSDynamic_TRT; batched_nms_ext.cpp: BatchedNMS_TRT):
// their declaration in TensorRT's order, the checks that read them into BatchedNmsParams, and their values as a plugin
// serializes them.
//
//     BatchedNmsParams p;
//     if (!readBatchedNmsFields(kBatchedNmsName, fc, p)) { return nullptr; }   // logged, naming the plugin
#pragma once

#include "NvInferRuntime.h"
#include "batched_nms_math.h"

#include <array>
#include <cstdint>
#include <vector>

namespace kiln::plugins
{

//! How many fields a BatchedNMS plugin has (all scalars, 4 bytes serialized).
inline constexpr size_t kBatchedNmsFieldCount = 11;

//! Reads and checks the fields of a BatchedNMS plugin into p; false (logged, naming plugin) when they are missing or
//! wrong.
bool readBatchedNmsFields(char const* plugin, nvinfer1::PluginFieldCollection const* fc, BatchedNmsParams& p);

//! The fields as a creator declares them, in TensorRT's order.
std::vector<nvinfer1::PluginField> declaredBatchedNmsFields();

//! The fields of params in declared order, pointing into params and flags (which holds the boolean fields as kINT32).
std::vector<nvinfer1::PluginField> batchedNmsFieldValues(BatchedNmsParams const& params, std::array<int32_t, 4>& flags);

} // namespace kiln::plugins
