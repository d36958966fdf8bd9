// SPDX-License-Identifier: Apache-2.0
#include "plugin_sample.h"

#include "specs.h"
#include "values.h"

namespace kiln_tool
{
namespace
{

using namespace nvinfer1;
using nlohmann::json;

std::string tensorText(TensorSample const& tensor, bool withDims)
{
    std::string const shape = tensor.dims.nbDims == 0 ? "scalar" : dimsText(tensor.dims);
    return std::string(typeName(tensor.type)) + (withDims ? " " + shape : "");
}

std::string listText(std::vector<TensorSample> const& tensors, bool withDims)
{
    std::string text;
    for (TensorSample const& tensor : tensors)
    {
        text += (text.empty() ? "" : ", ") + tensorText(tensor, withDims);
    }
    return text;
}

Dims dimsOf(std::vector<int64_t> const& extents)
{
    Dims dims{};
    dims.nbDims = static_cast<int32_t>(extents.size());
    for (std::size_t i = 0; i < extents.size(); ++i)
    {
        dims.d[i] = extents[i];
    }
    return dims;
}

json tensorJson(TensorSample const& tensor)
{
    return {{"type", static_cast<int32_t>(tensor.type)}, {"typeName", std::string(typeName(tensor.type))},
        {"dims", std::vector<int64_t>(tensor.dims.d, tensor.dims.d + std::max(tensor.dims.nbDims, 0))}};
}

TensorSample tensorFrom(json const& value)
{
    return {static_cast<DataType>(value["type"].get<int32_t>()), dimsOf(value["dims"].get<std::vector<int64_t>>())};
}

PluginTensorDesc descriptor(DataType type, Dims const& dims)
{
    PluginTensorDesc desc{};
    desc.dims = dims;
    desc.type = type;
    desc.format = TensorFormat::kLINEAR;
    desc.scale = 1.0F;
    return desc;
}

//! One candidate: input count and shapes. Its types are chosen position by position.
struct Candidate
{
    std::vector<Dims> shapes;
};

std::vector<Candidate> candidates(SampleOptions const& options)
{
    std::vector<Candidate> list;
    if (!options.shapes.empty())
    {
        list.push_back({options.shapes});
        return list;
    }
    std::vector<int32_t> counts{1, 2, 3, 4};
    if (options.nbInputs)
    {
        counts = {*options.nbInputs};
    }
    for (int32_t const count : counts)
    {
        for (std::vector<int64_t> const& extents :
            std::vector<std::vector<int64_t>>{{2, 3, 4, 5}, {2, 3, 4}, {2, 3}, {6}})
        {
            list.push_back({std::vector<Dims>(static_cast<std::size_t>(count), dimsOf(extents))});
        }
    }
    return list;
}

//! The candidate's types, when supportsFormatCombination and getOutputDataTypes agree on some; else nullopt.
std::optional<SampleIO> formats(PluginQueries const& queries, Candidate const& candidate)
{
    auto const nbInputs = static_cast<int32_t>(candidate.shapes.size());
    std::vector<PluginTensorDesc> inOut;
    for (Dims const& dims : candidate.shapes)
    {
        inOut.push_back(descriptor(DataType::kFLOAT, dims));
    }
    for (int32_t i = 0; i < queries.nbOutputs; ++i)
    {
        inOut.push_back(descriptor(DataType::kFLOAT, candidate.shapes.empty() ? Dims{} : candidate.shapes[0]));
    }
    for (int32_t pos = 0; pos < nbInputs; ++pos)
    {
        bool accepted = false;
        for (DataType const type : candidateTypes())
        {
            for (int32_t later = pos; later < nbInputs; ++later)
            {
                inOut[static_cast<std::size_t>(later)].type = type;
            }
            if (queries.supports(pos, inOut, nbInputs))
            {
                accepted = true;
                break;
            }
        }
        if (!accepted)
        {
            return std::nullopt;
        }
    }
    std::vector<DataType> inputTypes;
    SampleIO sample;
    for (int32_t i = 0; i < nbInputs; ++i)
    {
        inputTypes.push_back(inOut[static_cast<std::size_t>(i)].type);
        sample.inputs.push_back(
            {inOut[static_cast<std::size_t>(i)].type, candidate.shapes[static_cast<std::size_t>(i)]});
    }
    std::vector<DataType> outputTypes;
    if (!queries.outputTypes(inputTypes, outputTypes))
    {
        return std::nullopt;
    }
    for (int32_t i = 0; i < queries.nbOutputs; ++i)
    {
        inOut[static_cast<std::size_t>(nbInputs + i)].type = outputTypes[static_cast<std::size_t>(i)];
    }
    for (int32_t i = 0; i < queries.nbOutputs; ++i)
    {
        if (!queries.supports(nbInputs + i, inOut, nbInputs))
        {
            return std::nullopt;
        }
        sample.outputs.push_back({outputTypes[static_cast<std::size_t>(i)], Dims{}});
    }
    return sample;
}

} // namespace

std::vector<DataType> const& candidateTypes()
{
    static std::vector<DataType> const types{DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT32,
        DataType::kINT64, DataType::kINT8, DataType::kUINT8, DataType::kBOOL, DataType::kFP8};
    return types;
}

std::string SampleIO::text() const
{
    auto const count
        = [](std::size_t n, char const* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); };
    return count(inputs.size(), "input") + (inputs.empty() ? "" : " " + listText(inputs, true)) + " -> "
        + count(outputs.size(), "output") + (outputs.empty() ? "" : " " + listText(outputs, shapesKnown))
        + (shapesKnown ? "" : " (output shapes unknown)");
}

json SampleIO::toJson() const
{
    json in = json::array();
    json out = json::array();
    for (TensorSample const& tensor : inputs)
    {
        in.push_back(tensorJson(tensor));
    }
    for (TensorSample const& tensor : outputs)
    {
        out.push_back(tensorJson(tensor));
    }
    return {{"inputs", in}, {"outputs", out}, {"shapesKnown", shapesKnown}, {"shapesProblem", shapesProblem},
        {"shapesRefusal", shapesRefusal}};
}

SampleIO SampleIO::fromJson(json const& value)
{
    SampleIO sample;
    for (json const& tensor : value["inputs"])
    {
        sample.inputs.push_back(tensorFrom(tensor));
    }
    for (json const& tensor : value["outputs"])
    {
        sample.outputs.push_back(tensorFrom(tensor));
    }
    sample.shapesKnown = value["shapesKnown"].get<bool>();
    sample.shapesProblem = value["shapesProblem"].get<std::string>();
    sample.shapesRefusal = value["shapesRefusal"].get<std::string>();
    return sample;
}

std::vector<PluginTensorDesc> SampleIO::descriptors() const
{
    std::vector<PluginTensorDesc> descs;
    for (TensorSample const& tensor : inputs)
    {
        descs.push_back(descriptor(tensor.type, tensor.dims));
    }
    for (TensorSample const& tensor : outputs)
    {
        descs.push_back(descriptor(tensor.type, tensor.dims));
    }
    return descs;
}

std::vector<DimsExprs> blankShapes(int32_t nbOutputs)
{
    DimsExprs blank{};
    blank.nbDims = -1;
    return std::vector<DimsExprs>(static_cast<std::size_t>(std::max(nbOutputs, 0)), blank);
}

std::vector<DimsExprs> constantShapes(std::vector<Dims> const& dims, ConstantExprBuilder& builder)
{
    std::vector<DimsExprs> shapes;
    for (Dims const& each : dims)
    {
        DimsExprs shape{};
        shape.nbDims = each.nbDims;
        for (int32_t i = 0; i < each.nbDims; ++i)
        {
            shape.d[i] = builder.constant(each.d[i]);
        }
        shapes.push_back(shape);
    }
    return shapes;
}

ShapeAnswer readShapes(std::vector<DimsExprs> const& outputs, ConstantExprBuilder const& builder)
{
    ShapeAnswer answer;
    if (!builder.misuses().empty())
    {
        answer.problem = "it misused the IExprBuilder: " + builder.misuses().front();
        return answer;
    }
    for (std::size_t o = 0; o < outputs.size(); ++o)
    {
        DimsExprs const& shape = outputs[o];
        std::string const which = "output " + std::to_string(o);
        if (shape.nbDims == -1)
        {
            answer.problem = "it returned success but left " + which + " unwritten (of "
                + std::to_string(outputs.size()) + " outputs getNbOutputs declares)";
            return answer;
        }
        if (shape.nbDims < 0 || shape.nbDims > Dims::MAX_DIMS)
        {
            answer.problem = which + " has rank " + std::to_string(shape.nbDims) + " (0 to 8 allowed)";
            return answer;
        }
        Dims dims{};
        dims.nbDims = shape.nbDims;
        for (int32_t i = 0; i < shape.nbDims; ++i)
        {
            if (shape.d[i] == nullptr)
            {
                answer.problem = which + " extent " + std::to_string(i) + " is null";
                return answer;
            }
            if (!builder.owns(shape.d[i]))
            {
                answer.problem = which + " extent " + std::to_string(i)
                    + " is an expression the IExprBuilder did not make (a dangling or foreign pointer)";
                return answer;
            }
            std::optional<int64_t> const value = builder.valueOf(shape.d[i]);
            if (!value)
            {
                answer.dataDependent = true;
                dims.d[i] = -1;
                continue;
            }
            if (*value < 0)
            {
                answer.problem = which + " extent " + std::to_string(i) + " is " + std::to_string(*value);
                return answer;
            }
            dims.d[i] = *value;
        }
        answer.dims.push_back(dims);
    }
    return answer;
}

ProbeResult findSample(PluginQueries const& queries, SampleOptions const& options)
{
    if (queries.nbOutputs < 0 || queries.nbOutputs > 1024)
    {
        return {std::nullopt, "getNbOutputs returned " + std::to_string(queries.nbOutputs)};
    }
    std::optional<SampleIO> problem;
    std::optional<SampleIO> refused;
    for (Candidate const& candidate : candidates(options))
    {
        std::optional<SampleIO> sample = formats(queries, candidate);
        if (!sample)
        {
            continue;
        }
        ShapeAnswer const answer = queries.outputShapes(candidate.shapes);
        if (!answer.problem.empty())
        {
            sample->shapesProblem = answer.problem;
            problem = problem ? problem : sample;
            continue;
        }
        if (answer.refused)
        {
            sample->shapesRefusal = answer.refusalText;
            refused = refused ? refused : sample;
            continue;
        }
        for (std::size_t o = 0; o < sample->outputs.size(); ++o)
        {
            sample->outputs[o].dims = answer.dims[o];
        }
        sample->shapesKnown = !answer.dataDependent;
        if (answer.dataDependent)
        {
            sample->shapesRefusal = "some output extent is not a constant (size tensors: data-dependent shapes)";
        }
        return {sample, ""};
    }
    if (problem)
    {
        return {problem, ""};
    }
    if (refused)
    {
        return {refused, ""};
    }
    std::string const tried = !options.shapes.empty()
        ? "the inputs of --shapes"
        : (options.nbInputs ? std::to_string(*options.nbInputs) : std::string("1 to 4"))
            + " inputs of shapes 2x3x4x5, "
              "2x3x4, 2x3 and 6";
    return {std::nullopt,
        "supportsFormatCombination and getOutputDataTypes agreed on no linear types (FP32, FP16, BF16, INT32, INT64, "
        "INT8, UINT8, BOOL, FP8) for "
            + tried + " (give --inputs and --shapes)"};
}

} // namespace kiln_tool
