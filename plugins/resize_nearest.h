// SPDX-License-Identifier: Apache-2.0
// ResizeNearest_TRT version "1": an IPluginV2Ext plugin, as TensorRT 10.16 has it (its shapes are Dims without the
// batch axis; in kiln's explicit-batch networks the batch is X's first axis). Input X [N, ..., H, W] kFLOAT; output
// [N, ..., int(H * scale), int(W * scale)] kFLOAT, nearest-neighbour. Field (required, as TensorRT's creator requires
// it): scale (kFLOAT32, positive). The arithmetic: resize_nearest_math.h.
#pragma once

#include "NvInferRuntime.h"
#include "resize_nearest_math.h"

#include <memory>

namespace kiln::plugins
{

class StandardCreatorV2;

inline constexpr char const* kResizeNearestName = "ResizeNearest_TRT";
inline constexpr char const* kResizeNearestVersion = "1";

//! Computes the output on host memory.
void runResizeNearestHost(ResizeNearestParams const& params, float const* x, float* y);

#ifdef KILN_PLUGINS_CUDA
//! Queues the same computation on stream (device memory); returns the launch's status.
cudaError_t launchResizeNearest(ResizeNearestParams const& params, float const* x, float* y, cudaStream_t stream);
#endif

//! The creator of ResizeNearest_TRT version "1" (with its own host runner).
std::unique_ptr<StandardCreatorV2> makeResizeNearestCreator();

} // namespace kiln::plugins
