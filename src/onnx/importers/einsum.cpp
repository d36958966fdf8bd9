// SPDX-License-Identifier: Apache-2.0
// Einsum (opset 12) onto IEinsumLayer: the equation as given (spaces ignored), one or two inputs of one floating type
// (FLOAT, FLOAT16 or BFLOAT16). Implicit and explicit outputs, "...", diagonals and broadcasting as the layer takes
// them. The parser checks only the equation's characters; the layer checks the rest (its refusal is in the log).
// Refused: three or more inputs (kiln's layer takes two at most), integer and DOUBLE inputs (kiln has no DOUBLE).
#include "core/data_type.h"
#include "onnx/importers/helpers.h"
#include "onnx/importers/importers.h"

#include <string>
#include <vector>

namespace kiln::onnx_import
{

namespace
{

void checkEinsum(ImportContext& /*ctx*/, ::onnx::NodeProto const& node, Attributes const& attrs)
{
    require(attrs.has("equation"), ErrorCode::kINVALID_NODE, "Einsum needs the attribute equation");
    std::string const equation = attrs.get<std::string>("equation", "");
    for (char const c : equation)
    {
        bool const letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        require(letter || c == ',' || c == '-' || c == '>' || c == '.' || c == ' ', ErrorCode::kINVALID_NODE,
            "the equation '", equation, "' has the character '", c, "'; an equation has letters, ',', \"->\", ",
            "\"...\" and spaces");
    }
    require(node.input_size() >= 1 && node.input_size() <= 2, ErrorCode::kUNSUPPORTED_NODE, "Einsum has ",
        node.input_size(), " inputs; kiln's Einsum layer takes one or two");
}

std::vector<Value> importEinsum(ImportContext& ctx, Node& node)
{
    std::vector<ITensor*> inputs;
    for (std::size_t i = 0; i < node.inputs.size(); ++i)
    {
        ITensor& x = inputTensor(ctx, node, i);
        require(isFloating(x.getType()), ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "Einsum input ", i, " is ",
            dataTypeName(x.getType()), "; kiln's Einsum takes FLOAT, FLOAT16 or BFLOAT16");
        require(inputs.empty() || x.getType() == inputs.front()->getType(), ErrorCode::kINVALID_NODE,
            "Einsum inputs must have one type");
        inputs.push_back(&x);
    }
    std::string const equation = node.attrs.get<std::string>("equation", "");
    auto& layer
        = ctx.added(ctx.network().addEinsum(inputs.data(), static_cast<int32_t>(inputs.size()), equation.c_str()));
    return {output(layer.getOutput(0))};
}

} // namespace

void registerEinsumOps(OpRegistry& registry)
{
    registry.add("Einsum", importEinsum, checkEinsum);
}

} // namespace kiln::onnx_import
