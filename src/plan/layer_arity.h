// SPDX-License-Identifier: Apache-2.0
// How many inputs and outputs each layer kind has, as network/layers/<kind>.cpp makes the layers: the table the model
// checks (plan/model_check.cpp) hold every loaded layer to.
//
//     KindArity const& arity = kindArity(*layerKindIndex(LayerType::kSLICE));   // 1 to 6 inputs, from 1 on optional
#pragma once

#include "network/layer_kinds.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace kiln
{

//! The inputs and outputs a layer kind has. Inputs from optionalFrom on may be absent (kNoTensor).
struct KindArity
{
    LayerType type;
    int32_t minInputs;
    int32_t maxInputs;
    int32_t optionalFrom;
    int32_t minOutputs;
    int32_t maxOutputs;
};

//! No upper bound.
inline constexpr int32_t kMany = std::numeric_limits<int32_t>::max();

// Rows follow KILN_LAYER_KINDS.
inline constexpr std::array<KindArity, kLayerKinds.size()> kKindArity{{
    {LayerType::kCONVOLUTION, 1, 3, 1, 1, 1}, // Input 1 the kernel, input 2 the bias, when not weights.
    {LayerType::kCAST, 1, 1, kMany, 1, 1},
    {LayerType::kACTIVATION, 1, 1, kMany, 1, 1},
    {LayerType::kPOOLING, 1, 1, kMany, 1, 1},
    {LayerType::kSOFTMAX, 1, 1, kMany, 1, 1},
    {LayerType::kDECONVOLUTION, 1, 3, 1, 1, 1}, // Input 1 the kernel, input 2 the bias, when not weights.
    {LayerType::kCONCATENATION, 1, kMany, kMany, 1, 1},
    {LayerType::kELEMENTWISE, 2, 2, kMany, 1, 1},
    {LayerType::kUNARY, 1, 1, kMany, 1, 1},
    {LayerType::kSHUFFLE, 1, 2, 1, 1, 1}, // Input 1 the reshape dimensions.
    {LayerType::kREDUCE, 1, 1, kMany, 1, 1},
    {LayerType::kTOPK, 1, 2, 1, 2, 2}, // Input 1 k, when not a parameter; outputs values and indices.
    {LayerType::kGATHER, 2, 2, kMany, 1, 1},
    {LayerType::kMATRIX_MULTIPLY, 2, 2, kMany, 1, 1},
    {LayerType::kCONSTANT, 0, 0, kMany, 1, 1},
    {LayerType::kIDENTITY, 1, 1, kMany, 1, 1},
    {LayerType::kPLUGIN_V2, 0, kMany, kMany, 1, kMany},
    {LayerType::kSLICE, 1, 6, 1, 1, 1}, // Start, size, stride, fill value, axes.
    {LayerType::kSHAPE, 1, 1, kMany, 1, 1},
    {LayerType::kRESIZE, 1, 2, 1, 1, 1},         // Input 1 the output shape.
    {LayerType::kTRIP_LIMIT, 1, 1, kMany, 0, 0}, // The count or the condition.
    {LayerType::kRECURRENCE, 2, 2, kMany, 1, 1}, // The initial and the next value.
    {LayerType::kITERATOR, 1, 1, kMany, 1, 1},   //
    {LayerType::kLOOP_OUTPUT, 1, 2, 1, 1, 1},    // The value, the length of the new axis.
    {LayerType::kSELECT, 3, 3, kMany, 1, 1},
    {LayerType::kFILL, 0, 3, 0, 1, 1},                   // Shape, alpha, beta.
    {LayerType::kQUANTIZE, 2, 3, 2, 1, 1},               // Data, scale, zero point.
    {LayerType::kDEQUANTIZE, 2, 3, 2, 1, 1},             // Data, scale, zero point.
    {LayerType::kCONDITION, 1, 1, kMany, 1, 1},          // The condition; output its copy.
    {LayerType::kCONDITIONAL_INPUT, 1, 1, kMany, 1, 1},  //
    {LayerType::kCONDITIONAL_OUTPUT, 3, 3, kMany, 1, 1}, // True and false values, the condition layer's output.
    {LayerType::kSCATTER, 3, 3, kMany, 1, 1},            // Data, indices, updates.
    {LayerType::kEINSUM, 1, 2, kMany, 1, 1},             // One operand per term of the equation.
    {LayerType::kNON_ZERO, 1, 1, kMany, 2, 2},           // Outputs the indices and the hidden count.
    {LayerType::kGRID_SAMPLE, 2, 2, kMany, 1, 1},        // Data, grid.
    {LayerType::kNMS, 3, 5, 3, 2, 2},                    // Boxes, scores, max boxes, IoU and score thresholds.
    {LayerType::kREVERSE_SEQUENCE, 2, 2, kMany, 1, 1},   // Data, sequence lengths.
    {LayerType::kPLUGIN_V3, 0, kMany, kMany, 1, kMany},
    {LayerType::kCUMULATIVE, 2, 2, kMany, 1, 1},
}};

constexpr bool arityRowsFollowKinds() noexcept
{
    for (std::size_t i = 0; i < kLayerKinds.size(); ++i)
    {
        if (kKindArity[i].type != kLayerKinds[i].type)
        {
            return false;
        }
    }
    return true;
}
static_assert(arityRowsFollowKinds(), "kKindArity has one row per layer kind, in KILN_LAYER_KINDS order");

} // namespace kiln
