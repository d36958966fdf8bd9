// SPDX-License-Identifier: Apache-2.0
// Which operations a program may hold is plan/engine_model.h's isPointwiseOp (one rule for the plan check, this
// check and the builder's fusion); what each computes is the row of the unfused kernel's table.
#include "backends/host/pointwise_program.h"

#include "backends/host/activation.h"
#include "backends/host/elementwise.h"
#include "backends/host/unary.h"

#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace kiln::host
{

namespace
{

using Kind = PointwiseStep::Kind;

Error invalid(std::string const& what)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, what};
}

Error stepError(std::size_t step, std::string const& what)
{
    return invalid("pointwise step " + std::to_string(step) + ": " + what);
}

Error programError(std::string const& what)
{
    return invalid("pointwise program: " + what);
}

bool isKnownKind(Kind kind) noexcept
{
    return kind == Kind::kELEMENTWISE || kind == Kind::kUNARY || kind == Kind::kACTIVATION;
}

//! The name of op in kind's table ("kSUM"), or nullptr for a value outside the enum.
char const* operationName(Kind kind, int32_t op) noexcept
{
    switch (kind)
    {
    case Kind::kELEMENTWISE:
    {
        ElementWiseOpInfo const* info = findElementWiseOp(static_cast<ElementWiseOperation>(op));
        return info != nullptr ? info->name : nullptr;
    }
    case Kind::kUNARY:
    {
        UnaryOpInfo const* info = findUnaryOp(static_cast<UnaryOperation>(op));
        return info != nullptr ? info->name : nullptr;
    }
    case Kind::kACTIVATION:
    {
        ActivationInfo const* info = findActivation(static_cast<ActivationType>(op));
        return info != nullptr ? info->name : nullptr;
    }
    }
    return nullptr;
}

//! "kSUM, kPROD": the operations of kind's table that a program computes (allowed) or does not.
std::string operationNames(Kind kind, bool allowed)
{
    std::string names;
    for (int32_t op = 0; operationName(kind, op) != nullptr; ++op)
    {
        if (isPointwiseOp(kind, op) == allowed)
        {
            names += (names.empty() ? "" : ", ") + std::string(operationName(kind, op));
        }
    }
    return names;
}

//! Why step cannot compute its operation (an unknown kind or operation, one a program does not compute).
std::optional<std::string> operationProblem(PointwiseStep const& step)
{
    if (!isKnownKind(step.kind))
    {
        return "unknown kind " + std::to_string(static_cast<int32_t>(step.kind))
            + " (kELEMENTWISE is 0, kUNARY 1, kACTIVATION 2)";
    }
    if (isPointwiseOp(step.kind, step.op))
    {
        return std::nullopt;
    }
    char const* const name = operationName(step.kind, step.op);
    if (name == nullptr)
    {
        char const* const enumName = step.kind == Kind::kELEMENTWISE
            ? "ElementWiseOperation"
            : (step.kind == Kind::kUNARY ? "UnaryOperation" : "ActivationType");
        return std::string("unknown ") + enumName + " " + std::to_string(step.op);
    }
    if (step.kind == Kind::kELEMENTWISE)
    {
        return std::string("element-wise ") + name + " is not arithmetic; a program computes "
            + operationNames(step.kind, true);
    }
    return std::string("unary ") + name + " has no float result; a program computes every unary operation but "
        + operationNames(step.kind, false);
}

//! Why operand value (which: "a" or "b") of step cannot be read: an input beyond nbInputs, or not an earlier step.
std::optional<std::string> operandProblem(char const* which, int32_t value, std::size_t step, std::size_t nbInputs)
{
    if (value >= 0)
    {
        if (static_cast<std::size_t>(value) < nbInputs)
        {
            return std::nullopt;
        }
        return std::string("operand ") + which + " names input " + std::to_string(value) + ", but the program has "
            + std::to_string(nbInputs) + (nbInputs == 1 ? " input" : " inputs");
    }
    int64_t const earlier = -1 - static_cast<int64_t>(value);
    if (static_cast<uint64_t>(earlier) < step)
    {
        return std::nullopt;
    }
    return std::string("operand ") + which + " = " + std::to_string(value) + " names step " + std::to_string(earlier)
        + ", which is not before it";
}

constexpr TypeSet kProgramTypes = kFloatingTypes;

//! Where a checked step reads its operands in a list of values: the inputs' elements, then the steps' results.
std::size_t slotOf(int32_t operand, std::size_t nbInputs) noexcept
{
    return operand >= 0 ? static_cast<std::size_t>(operand)
                        : nbInputs + static_cast<std::size_t>(-1 - static_cast<int64_t>(operand));
}

} // namespace

Status checkPointwiseProgram(
    std::span<PointwiseStep const> program, std::span<TensorDesc const> inputs, TensorDesc const& output)
{
    if (program.empty())
    {
        return programError("it has no steps; a program computes at least one");
    }
    for (std::size_t k = 0; k < program.size(); ++k)
    {
        PointwiseStep const& step = program[k];
        if (std::optional<std::string> const problem = operationProblem(step))
        {
            return stepError(k, *problem);
        }
        if (std::optional<std::string> const problem = operandProblem("a", step.a, k, inputs.size()))
        {
            return stepError(k, *problem);
        }
        if (step.kind == Kind::kELEMENTWISE)
        {
            if (std::optional<std::string> const problem = operandProblem("b", step.b, k, inputs.size()))
            {
                return stepError(k, *problem);
            }
        }
        else if (step.b != 0)
        {
            return stepError(k,
                std::string(operationName(step.kind, step.op)) + " takes one operand, but b is "
                    + std::to_string(step.b) + " (it must be 0)");
        }
    }
    if (!contains(kProgramTypes, output.type))
    {
        return programError(std::string("the output is ") + dataTypeName(output.type) + "; a program computes "
            + typeSetString(kProgramTypes));
    }
    if (!isValidShape(output.dims))
    {
        return programError("the output shape " + shapeString(output.dims) + " is not a concrete shape");
    }
    for (std::size_t k = 0; k < inputs.size(); ++k)
    {
        TensorDesc const& input = inputs[k];
        std::string const name = "input " + std::to_string(k);
        if (input.type != output.type)
        {
            return programError(name + " is " + dataTypeName(input.type) + " but the output is "
                + dataTypeName(output.type) + "; inputs and output share one type");
        }
        if (!isValidShape(input.dims))
        {
            return programError(name + "'s shape " + shapeString(input.dims) + " is not a concrete shape");
        }
        if (input.dims.nbDims != output.dims.nbDims)
        {
            return programError(name + " " + shapeString(input.dims) + " has rank " + std::to_string(input.dims.nbDims)
                + " but the output " + shapeString(output.dims) + " has rank " + std::to_string(output.dims.nbDims));
        }
        for (int32_t d = 0; d < output.dims.nbDims; ++d)
        {
            if (input.dims.d[d] != output.dims.d[d] && input.dims.d[d] != 1)
            {
                return programError(name + " " + shapeString(input.dims) + " does not broadcast to the output "
                    + shapeString(output.dims) + ": dimension " + std::to_string(d) + " is "
                    + std::to_string(input.dims.d[d]) + ", not " + std::to_string(output.dims.d[d]) + " or 1");
            }
        }
    }
    return Done{};
}

double pointwiseStepValue(PointwiseStep const& step, double a, double b) noexcept
{
    switch (step.kind)
    {
    case Kind::kELEMENTWISE:
        if (ElementWiseOpInfo const* info = findElementWiseOp(static_cast<ElementWiseOperation>(step.op));
            info != nullptr && info->floating != nullptr)
        {
            return info->floating(a, b);
        }
        break;
    case Kind::kUNARY:
        if (UnaryOpInfo const* info = findUnaryOp(static_cast<UnaryOperation>(step.op));
            info != nullptr && info->floating != nullptr)
        {
            return info->floating(a);
        }
        break;
    case Kind::kACTIVATION:
        if (ActivationInfo const* info = findActivation(static_cast<ActivationType>(step.op)); info != nullptr)
        {
            return info->floating(a, step.alpha, step.beta);
        }
        break;
    }
    return std::numeric_limits<double>::quiet_NaN();
}

Status runPointwiseProgram(
    std::span<PointwiseStep const> program, std::span<HostTensor const* const> inputs, HostTensor const& output)
{
    std::vector<TensorDesc> descs;
    descs.reserve(inputs.size());
    for (std::size_t k = 0; k < inputs.size(); ++k)
    {
        if (inputs[k] == nullptr)
        {
            return programError("input " + std::to_string(k) + " is missing");
        }
        descs.push_back({inputs[k]->type, inputs[k]->dims});
    }
    if (Status const checked = checkPointwiseProgram(program, descs, {output.type, output.dims}); !checked)
    {
        return checked;
    }
    for (std::size_t k = 0; k < inputs.size(); ++k)
    {
        if (std::optional<Error> const error = checkTensor(*inputs[k], "input " + std::to_string(k)))
        {
            return programError(error->message);
        }
    }
    if (std::optional<Error> const error = checkTensor(output, "output"))
    {
        return programError(error->message);
    }

    std::vector<BroadcastMap> maps;
    maps.reserve(inputs.size());
    for (HostTensor const* input : inputs)
    {
        maps.emplace_back(output.dims, input->dims);
    }
    // values: the inputs' elements (exact in float: the inputs are kFLOAT, kHALF or kBF16), then the steps' results.
    std::size_t const nbInputs = inputs.size();
    std::vector<float> values(nbInputs + program.size());
    int64_t const count = elementCount(output.dims);
    for (int64_t i = 0; i < count; ++i)
    {
        for (std::size_t k = 0; k < nbInputs; ++k)
        {
            values[k] = static_cast<float>(loadFloat(*inputs[k], maps[k](i)));
        }
        for (std::size_t s = 0; s < program.size(); ++s)
        {
            PointwiseStep const& step = program[s];
            double const a = values[slotOf(step.a, nbInputs)];
            double const b = step.kind == Kind::kELEMENTWISE ? values[slotOf(step.b, nbInputs)] : 0.0;
            values[nbInputs + s] = static_cast<float>(pointwiseStepValue(step, a, b));
        }
        storeFloat(output, i, values.back());
    }
    return Done{};
}

} // namespace kiln::host
