// SPDX-License-Identifier: Apache-2.0
// GroupNormalizationPlugin version "1" (an IPluginV2DynamicExt, TensorRT's only interface for it; deprecated there
// since 10.12): group normalization. Inputs X [N, C, D1, ...] (rank 2 or more), scale [C] and bias [C], all kFLOAT, as
// TensorRT's; output of X's shape. The C channels form num_groups groups of C / num_groups consecutive channels; each
// group of each sample is normalized by its mean and variance, then each channel scaled and shifted by its scale and
// bias (instance_norm_math.h; the host implementation and CUDA kernel are InstanceNormalization_TRT's). Fields
// (TensorRT's names, types and defaults): eps (kFLOAT32, positive; 1e-5) and num_groups (kINT32, positive; 1).
// Serialized as TensorRT serializes it: eps, num_groups and a third int32 (TensorRT's scale count, 0 here).
#pragma once

#include "common_v2.h"

namespace kiln::plugins
{

inline constexpr char const* kGroupNormName = "GroupNormalizationPlugin";
inline constexpr char const* kGroupNormVersion = "1";

KILN_IGNORE_DEPRECATED_BEGIN

//! The creator of GroupNormalizationPlugin version "1" (an IPluginCreator).
class GroupNormCreator final : public StandardCreatorV2
{
public:
    GroupNormCreator();

    char const* getPluginName() const noexcept override { return kGroupNormName; }
    char const* getPluginVersion() const noexcept override { return kGroupNormVersion; }
    nvinfer1::IPluginV2* createPlugin(char const* name, nvinfer1::PluginFieldCollection const* fc) noexcept override;
    nvinfer1::IPluginV2* deserializePlugin(
        char const* name, void const* serialData, size_t serialLength) noexcept override;
};

KILN_IGNORE_DEPRECATED_END

} // namespace kiln::plugins
