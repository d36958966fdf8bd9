// SPDX-License-Identifier: Apache-2.0
// How shape inference and the build step name what they refuse, so that their messages read alike:
//
//     return invalid(describeLayer(layer) + ": at " + profile + ", " + kPointNames[point] + ...);
//     // "layer 'conv' (IConvolutionLayer): at optimization profile 0, kMIN ..."
#pragma once

#include "core/error.h"
#include "network/layer.h"

#include <array>
#include <string>
#include <utility>

namespace kiln
{

//! The points of an optimization profile, in OptProfileSelector order.
inline constexpr std::array<char const*, 3> kPointNames{"kMIN", "kOPT", "kMAX"};

//! An error of code kINVALID_ARGUMENT.
inline Error invalid(std::string message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, std::move(message)};
}

//! "layer 'conv' (IConvolutionLayer)".
inline std::string describeLayer(Layer const& layer)
{
    return "layer '" + layer.name() + "' (" + layer.className() + ")";
}

} // namespace kiln
