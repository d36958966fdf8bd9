// SPDX-License-Identifier: Apache-2.0
// The model checks: whether an EngineModel is a consistent engine. The plan writer runs them before encoding and the
// reader after decoding (plan/engine_codec.h), so no inconsistent model reaches the runtime; createEngine runs them
// on the builder's models. docs/plan-format.md lists the checks.
//
//     if (auto problem = modelProblem(model)) { ... *problem names the record: "layer 3 (\"pool\") input 0 ..." }
#pragma once

#include "plan/engine_model.h"

#include <optional>
#include <string>

namespace kiln
{

//! Why model is not a consistent engine (an index out of range, an operand after its node, a layer reading a tensor
//! made later, weights whose size does not match their count, ...), or std::nullopt.
std::optional<std::string> modelProblem(EngineModel const& model);

} // namespace kiln
