// SPDX-License-Identifier: Apache-2.0
// Host reference of IGridSampleLayer: each output element out[n, c, h, w] samples the plane in[n, c] at the position
// grid[n, h, w] = (x, y) gives (x along W, y along H), with the arithmetic of network/grid_sample_math.h (ONNX's
// GridSample): coordinates in double, the weighted sum in double, stored rounded once to the output type.
//
//     GridSampleParams params;                      // network/params.h: kLINEAR, corners not aligned, kFILL
//     // in kFLOAT [1, 1, 2, 2] = {1, 2, 3, 4}, grid kFLOAT [1, 1, 1, 2] = {0, 0} (the center) gives {2.5}
//     Status const done = runGridSample(params, in.tensor(), grid.tensor(), out.tensor());
//
// The rules (network/layers/grid_sample.cpp lists where they come from): the input is [N, C, H, W] and the grid
// [N, H_out, W_out, 2], both of one type, kFLOAT, kHALF or kBF16; the output is [N, C, H_out, W_out] of that type.
// Sample modes kFILL (zeros outside), kCLAMP and kREFLECT; interpolation kNEAREST, kLINEAR and kCUBIC.
#pragma once

#include "backends/host/tensor_view.h"
#include "network/params.h"

namespace kiln::host
{

//! The types a grid sample takes (input, grid and output of one of them).
inline constexpr TypeSet kGridSampleTypes = kFloatingTypes;

//! The output's type and shape, or the error that refuses the layer: a mode outside the enums or a sample mode other
//! than kFILL, kCLAMP and kREFLECT, a type not taken or two types, an input or grid not 4-D, a grid whose batch is not
//! the input's or whose last extent is not 2.
Expected<TensorDesc> inferGridSample(GridSampleParams const& params, TensorDesc const& in, TensorDesc const& grid);

//! Samples after checking what inferGridSample checks, the output's type and shape, and each tensor's data.
Status runGridSample(
    GridSampleParams const& params, HostTensor const& in, HostTensor const& grid, HostTensor const& out);

} // namespace kiln::host
